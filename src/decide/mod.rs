//! The decision core: one call judged over its `World`, as a pure function. `decide` runs the
//! static rules, the ledger's write-then-run check and the taint check, and plans what the
//! call records (ledger rows, exposure rows) — reading nothing but its arguments: no store,
//! no clock, no environment (the world's `Scope` is its only view of the filesystem). The hook
//! loads the world, calls `decide`, asks the risk layer when the decision leaves it room, then
//! `finish`es and writes what was planned in one transaction.
//!
//! Stage order, each skipped once the verdict is a deny: static rules → ledger check →
//! taint check; then (in the hook) risk; then recording, for calls not denied in the end.
//! A PostToolUse goes through `after` over its own world: no verdict, the rows it confirms.

use crate::audit::NewEntry;
use crate::event::HookEvent;
use crate::ledger::{self, LedgerError, SessionChanges, WriteContext};
use crate::normalize::{Call, Scope};
use crate::policy::Policy;
use crate::risk::LedgerExcerpt;
use crate::taint::{self, Exposure, ExposureKind, ExposureRow, SessionExposure, TaintMode};
use crate::verdict::{Effect, Verdict};
use crate::world::World;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// What the core decided about one call.
#[derive(Debug, Clone)]
pub struct Decision {
    /// The verdict of the static rules, the ledger and the taint check (before risk), with
    /// the chain links of what the call runs.
    pub verdict: Verdict,
    /// What the risk layer is told about the session: the ledger entries of the files the
    /// call runs, and the untrusted content the session has seen.
    pub risk_context: Vec<LedgerExcerpt>,
    /// What the call records unless its final verdict is a deny.
    pub record: Recording,
    /// Ledger rows the judgement asked for and the world did not hold (a chain followed into
    /// a file the call does not name): the loader fetches them and decides again.
    pub wanted: BTreeSet<String>,
    /// The audit record of this decision: the call (its input redacted as the policy says)
    /// and the verdict above. The stages after the core (risk, the store's commit) settle the
    /// final verdict and the hook amends the record with it (`NewEntry::decided`) before the
    /// audit log chains it.
    pub audit: NewEntry,
}

/// What a call records, planned by `decide`, written by the hook after `finish`.
#[derive(Debug, Clone, Default)]
pub struct Recording {
    /// The ledger rows and exposure rows to write, in one transaction.
    pub changes: SessionChanges,
    /// A recording step could not be planned (the store was unreadable): the verdict it
    /// imposes on a call not denied, and nothing is written.
    pub failure: Option<Verdict>,
}

impl Recording {
    /// Of the ids the store gave `changes.exposures` (in order), those that get the call's
    /// audit seq: derived rows keep the read that made them private.
    pub fn seq_rows(&self, ids: Vec<i64>) -> Vec<i64> {
        ids.into_iter()
            .zip(&self.changes.exposures)
            .filter(|(_, r)| r.kind != ExposureKind::Derived)
            .map(|(id, _)| id)
            .collect()
    }
}

/// Judges `call` (normalised from `event`) over `world`.
pub fn decide(policy: &Policy, event: &HookEvent, call: &Call, world: &World) -> Decision {
    let static_verdict = static_verdict(policy, call, world.scope);
    decide_after(policy, event, call, world, static_verdict)
}

/// What the call's effects are judged to be with no session state: the packs and the policy's
/// rules, then read-only mode. The loader computes it once to know which rows the rest needs.
pub fn static_verdict(policy: &Policy, call: &Call, scope: &Scope) -> Verdict {
    let verdict = crate::evaluate::evaluate(policy, call, scope);
    crate::evaluate::read_only(policy, call, verdict)
}

/// `decide` given the static rules' verdict: what the loader runs again when the world grew.
pub fn decide_after(
    policy: &Policy,
    event: &HookEvent,
    call: &Call,
    world: &World,
    static_verdict: Verdict,
) -> Decision {
    // The session's patch files the call applies, with what they write: computed once, for
    // the verdict, the chains it runs and the ledger rows (a call denied already is done).
    let patches = if static_verdict.effect == Some(Effect::Deny) {
        Vec::new()
    } else {
        ledger::applied_patches(&world.session.ledger, call, world.scope)
    };
    let verdict = patch_check(policy, call, world.scope, &patches, static_verdict);
    let verdict = ledger_check(policy, call, world, &patches, verdict);
    let verdict = taint_check(policy, call, world, verdict);
    let risk_context = risk_context(policy, call, world);
    let mut wanted = BTreeSet::new();
    let mut record = Recording {
        changes: SessionChanges {
            now_ms: world.now_ms,
            ..Default::default()
        },
        failure: None,
    };
    if verdict.effect != Some(Effect::Deny) {
        plan_ledger(
            policy,
            event,
            call,
            world,
            &patches,
            &mut record,
            &mut wanted,
        );
        plan_exposures(policy, call, world, &mut record);
    }
    let input = if world.caller_records_input {
        serde_json::Value::Null
    } else {
        crate::audit::entry::recorded_input(&event.tool_input, &policy.audit.redact)
    };
    let audit = NewEntry::with_input(event, &verdict, input, 0);
    Decision {
        verdict,
        risk_context,
        record,
        wanted,
        audit,
    }
}

/// The final verdict of a call after risk, and whether its recording is written: a call
/// denied in the end records nothing; a recording that could not be planned fails closed.
pub fn finish(verdict: Verdict, record: &Recording) -> (Verdict, bool) {
    if verdict.effect == Some(Effect::Deny) {
        return (verdict, false);
    }
    match &record.failure {
        Some(f) => (f.clone().stricter(verdict), false),
        None => (verdict, !record.changes.is_empty()),
    }
}

/// The refusal for a store that cannot be read or written (an ask with `on_error: ask`).
pub fn ledger_failure(policy: &Policy, e: &LedgerError) -> Verdict {
    let mut v = Verdict::failure(
        "error/ledger",
        format!("{e}, so write-then-run chains cannot be checked and the call is refused"),
    );
    if policy.audit.on_error_ask {
        v.effect = Some(Effect::Ask);
    }
    crate::evaluate::headless(policy, v)
}

// ---- PostToolUse (the call ran) ---------------------------------------------------------

/// What a PostToolUse records, planned by `after`, written by the hook in one transaction.
#[derive(Debug, Clone, Default)]
pub struct Confirmation {
    /// The ledger rows of the files the call wrote, confirmed (no exposure rows).
    pub changes: SessionChanges,
    /// Ledger rows the plan needed and the world did not hold: the loader fetches them and
    /// plans again.
    pub wanted: BTreeSet<String>,
}

/// The core of a PostToolUse: the tool already ran, so there is no verdict; the ledger rows
/// of the files it wrote are refreshed from the files as they are now (read through the
/// world's `Scope::files`, the core's only view of the filesystem) and marked confirmed.
pub fn after(policy: &Policy, event: &HookEvent, call: &Call, world: &World) -> Confirmation {
    let mut out = Confirmation {
        changes: SessionChanges {
            now_ms: world.now_ms,
            ..Default::default()
        },
        wanted: BTreeSet::new(),
    };
    if !ledger::relevance(call).0 {
        return out;
    }
    let ctx = WriteContext {
        tool_use_id: event.tool_use_id.clone(),
        receipt: None,
        now_ms: world.now_ms,
    };
    let mut work = world.session.ledger.clone();
    ledger::confirm(&mut work, call, world.scope, policy, &ctx);
    out.wanted = work.take_misses();
    if work.entries != world.session.ledger.entries {
        out.changes.ledger = Some(work);
    }
    out
}

// ---- Ledger (write-then-run chains) ------------------------------------------------------

/// A patch file the session wrote, applied (`git apply f.patch`, `patch -p1 < f.diff`): the
/// ledger recorded the files its diff names, and the static rules judge the call again with
/// those writes (`ledger::applied_patches`) among its effects, as they judge a diff given on
/// the line (`effects::patch`). A patch the session did not write is unknown and changes
/// nothing.
fn patch_check(
    policy: &Policy,
    call: &Call,
    scope: &Scope,
    patches: &[ledger::AppliedPatch],
    verdict: Verdict,
) -> Verdict {
    if verdict.effect == Some(Effect::Deny) {
        return verdict;
    }
    let mut added = Vec::new();
    for fx in patches.iter().flat_map(|p| &p.writes) {
        if !call.effects.contains(fx) && !added.contains(fx) {
            added.push(fx.clone());
        }
    }
    if added.is_empty() {
        return verdict;
    }
    let mut patched = call.clone();
    patched.effects.extend(added);
    verdict.stricter(static_verdict(policy, &patched, scope))
}

/// The stricter of the verdict so far and the ledger's, with the chain links of the run.
fn ledger_check(
    policy: &Policy,
    call: &Call,
    world: &World,
    patches: &[ledger::AppliedPatch],
    verdict: Verdict,
) -> Verdict {
    let (writes, runs) = ledger::relevance(call);
    // A write is judged too: a config written earlier may run the file it writes.
    if verdict.effect == Some(Effect::Deny) || !(writes || runs) {
        return verdict;
    }
    if let Some(e) = world.unreadable {
        // A write alone fails closed where its recording is planned (`plan_ledger`).
        return if runs {
            ledger_failure(policy, e)
        } else {
            verdict
        };
    }
    let lv = ledger::check(&world.session.ledger, call, world.scope, policy, patches);
    let mut v = verdict.stricter(lv.verdict);
    v.chain = lv.links;
    v
}

/// The ledger rows the call writes (a run of a ledgered script records what that script
/// writes; with no store there is nothing ledgered to run).
fn plan_ledger(
    policy: &Policy,
    event: &HookEvent,
    call: &Call,
    world: &World,
    patches: &[ledger::AppliedPatch],
    record: &mut Recording,
    wanted: &mut BTreeSet<String>,
) {
    let (writes, runs) = ledger::relevance(call);
    if !(writes || (runs && world.session.stored)) {
        return;
    }
    if let Some(e) = world.unreadable {
        record.failure = Some(ledger_failure(policy, e));
        return;
    }
    let ctx = WriteContext {
        tool_use_id: event.tool_use_id.clone(),
        receipt: None,
        now_ms: world.now_ms,
    };
    let mut work = world.session.ledger.clone();
    let n = ledger::record(&mut work, call, world.scope, policy, &ctx, patches);
    wanted.extend(work.take_misses());
    if n > 0 {
        record.changes.ledger = Some(work);
    }
}

// ---- Taint (the lethal trifecta across calls) --------------------------------------------

/// The stricter of the verdict so far and the taint judgement of the call's ways out.
fn taint_check(policy: &Policy, call: &Call, world: &World, verdict: Verdict) -> Verdict {
    if policy.taint.mode == TaintMode::Off || verdict.effect == Some(Effect::Deny) {
        return verdict;
    }
    let outs = taint::outbound(call, &policy.taint);
    if outs.is_empty() {
        return verdict;
    }
    if let Some(e) = world.unreadable {
        return ledger_failure(policy, e).stricter(verdict);
    }
    let mut seen = exposure_seen(policy, world);
    // What this very call reads counts too (`cat .env | curl -d @- …`).
    taint::include_own(&mut seen, call, world.scope, &policy.taint);
    // The taint reason names the calls behind it, so it wins a tie with a static ask.
    match taint::judge(&policy.taint, &outs, &seen) {
        Some(v) if v.effect >= verdict.effect => crate::evaluate::headless(policy, v),
        _ => verdict,
    }
}

/// The session's exposure within the policy's TTL at the world's clock (the loader already
/// reads only those rows; a world built by hand may hold older ones).
fn exposure_seen(policy: &Policy, world: &World) -> SessionExposure {
    let since = world.taint_since(policy);
    let e = &world.session.exposure;
    let fresh = |r: &&ExposureRow| r.at_ms >= since;
    SessionExposure {
        untrusted: e.untrusted.as_ref().filter(fresh).cloned(),
        private: e.private.as_ref().filter(fresh).cloned(),
        derived: e.derived.iter().filter(fresh).cloned().collect(),
        remotes: e.remotes.iter().filter(fresh).cloned().collect(),
    }
}

/// What the call exposes the session to: untrusted content, private data, remotes changed,
/// and files written after private data was read.
fn plan_exposures(policy: &Policy, call: &Call, world: &World, record: &mut Recording) {
    if policy.taint.mode == TaintMode::Off || record.failure.is_some() {
        return;
    }
    let session = world.session;
    let reads: Vec<PathBuf> = call
        .effects
        .iter()
        .filter_map(|e| e.counted_read().map(std::path::Path::to_path_buf))
        .collect();
    // Files downloaded earlier in the session are outside content too. The download itself
    // was recorded as untrusted already, so an unreadable store costs only this sighting.
    let downloaded: Vec<PathBuf> = if session.stored && world.unreadable.is_none() {
        reads
            .iter()
            .filter(|p| session.ledger.get(p).is_some_and(|e| e.from_network))
            .cloned()
            .collect()
    } else {
        Vec::new()
    };
    let mut rows = taint::exposures(call, world.scope, &policy.taint, &|p| {
        downloaded.iter().any(|d| d == p)
    });
    rows.extend(taint::remotes_changed(call));
    let writes = taint::written(call);
    if !writes.is_empty() {
        let private = match rows.iter().find(|r| r.kind == ExposureKind::Private) {
            Some(r) => Some(r.origin.clone()),
            None if session.stored => match world.unreadable {
                Some(e) => {
                    record.failure = Some(ledger_failure(policy, e));
                    return;
                }
                None => exposure_seen(policy, world).private.map(|r| r.describe()),
            },
            None => None,
        };
        if let Some(origin) = private {
            for w in writes {
                rows.push(Exposure {
                    kind: ExposureKind::Derived,
                    key: w.to_string_lossy().into_owned(),
                    origin: origin.clone(),
                });
            }
        }
    }
    record.changes.exposures = rows;
}

// ---- Risk context ------------------------------------------------------------------------

/// What the risk layer is told about the session: the ledger entries of the files the call
/// runs (the model judges what actually runs, downloaded files as untrusted), and the
/// untrusted content the session has seen. An unreadable store gives none (the stages above
/// already failed closed).
fn risk_context(policy: &Policy, call: &Call, world: &World) -> Vec<LedgerExcerpt> {
    let session = world.session;
    if !session.stored || world.unreadable.is_some() {
        return Vec::new();
    }
    let mut out: Vec<LedgerExcerpt> = Vec::new();
    for entry in ledger::entries_run_by(&session.ledger, call) {
        out.push(LedgerExcerpt {
            path: entry.path.clone(),
            written_by_agent: true,
            turns_ago: None,
            excerpt: entry.excerpt.clone(),
            untrusted_source: entry
                .from_network
                .then(|| format!("{} ({})", entry.summary, entry.how)),
        });
    }
    if policy.taint.mode != TaintMode::Off
        && let Some(u) = &exposure_seen(policy, world).untrusted
    {
        out.push(LedgerExcerpt {
            path: String::new(),
            written_by_agent: false,
            turns_ago: None,
            excerpt: None,
            untrusted_source: Some(format!(
                "untrusted content entered this session: {}",
                u.describe()
            )),
        });
    }
    out
}

#[cfg(test)]
mod tests;
