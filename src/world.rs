//! The world a call is judged in: everything the judgement needs besides the event and the
//! policy — the filesystem view (`Scope`: real in the hook, lexical in `check`/`replay`), the
//! clock, and what the session's store holds that matters for this call (the ledger rows of
//! the paths its effects name, the session's exposure). The hook reads the environment once
//! (`Environment`), works out what of the store the call needs (`needs`), and loads it in one
//! read (`ledger::SessionStore::load`); `crate::decide` then judges over the `World` and reads
//! nothing else. Tests build a `World` by hand, with no store at all.

use crate::ledger::{self, ExposureQuery, LedgerError, SessionView};
use crate::normalize::{Call, Scope};
use crate::policy::Policy;
use crate::taint::{self, ExposureKind, TaintMode};
use crate::verdict::{Effect, Verdict};
use std::path::PathBuf;

/// One call's world: borrowed, so the loader can re-run the judgement over a view it grows
/// without copying it.
#[derive(Debug, Clone, Copy)]
pub struct World<'a> {
    /// Paths, roots and protected files: the filesystem view.
    pub scope: &'a Scope,
    /// Milliseconds since the epoch, read once per call: what the ledger and exposure rows
    /// are stamped with and where the taint TTL begins.
    pub now_ms: u64,
    /// The session's ledger rows and exposure that matter for this call.
    pub session: &'a SessionView,
    /// Set when the store could not be read: every stage that needs it fails closed with it.
    pub unreadable: Option<&'a LedgerError>,
    /// The caller puts the input into the audit record (a long input it redacts on another
    /// thread meanwhile): the core leaves the record's `input` null.
    pub caller_records_input: bool,
}

impl<'a> World<'a> {
    /// A world with this view of the session and nothing wrong with the store.
    pub fn new(scope: &'a Scope, now_ms: u64, session: &'a SessionView) -> World<'a> {
        World {
            scope,
            now_ms,
            session,
            unreadable: None,
            caller_records_input: false,
        }
    }

    /// Where exposure older than the policy's TTL begins (0: the whole session).
    pub fn taint_since(&self, policy: &Policy) -> u64 {
        taint_since(policy, self.now_ms)
    }
}

/// Where exposure older than the policy's TTL begins at `now_ms` (0: the whole session).
pub fn taint_since(policy: &Policy, now_ms: u64) -> u64 {
    policy
        .taint
        .ttl_ms
        .map_or(0, |ttl| now_ms.saturating_sub(ttl))
}

/// The facts of the process's environment a call's world is built from, read once at the
/// hook's edge: the clock, the temp directories (`TMPDIR`), and where palisade's own binary is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    pub now_ms: u64,
    /// `/tmp`, `/var/tmp` and `$TMPDIR`: write roots.
    pub temp_dirs: Vec<PathBuf>,
    /// This process's binary (protected in a real world, ignored in a lexical one).
    pub current_exe: Option<PathBuf>,
}

impl Environment {
    /// Reads the clock and the environment.
    pub fn read() -> Environment {
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let mut temp_dirs = vec![PathBuf::from("/tmp"), PathBuf::from("/var/tmp")];
        if let Some(t) = std::env::var_os("TMPDIR").filter(|t| !t.is_empty()) {
            temp_dirs.push(PathBuf::from(t));
        }
        Environment {
            now_ms,
            temp_dirs,
            current_exe: std::env::current_exe().ok(),
        }
    }
}

/// What of the session's store a call's judgement reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needs {
    /// Ledger rows: the paths the call writes, runs, and (with taint on) reads.
    pub keys: Vec<String>,
    /// The exposure rows, when the taint stages or the risk layer read them.
    pub exposure: Option<ExposureQuery>,
}

/// What of the store the judgement of `call` reads, or `None` when it reads nothing (a call
/// the static rules denied, or one that neither writes, runs, reads nor sends): then no store
/// is opened. `risk_may_run`: the risk layer is on, so it may want the session's context.
pub fn needs(
    policy: &Policy,
    call: &Call,
    scope: &Scope,
    static_verdict: &Verdict,
    now_ms: u64,
    risk_may_run: bool,
) -> Option<Needs> {
    if static_verdict.effect == Some(Effect::Deny) {
        return None;
    }
    let (writes, runs) = ledger::relevance(call);
    let taint_on = policy.taint.mode != TaintMode::Off;
    let reads: Vec<String> = if taint_on {
        call.effects
            .iter()
            .filter_map(|e| e.counted_read().map(|p| p.to_string_lossy().into_owned()))
            .collect()
    } else {
        Vec::new()
    };
    let outs = if taint_on {
        taint::outbound(call, &policy.taint)
    } else {
        Vec::new()
    };
    let exposure = (taint_on
        && (!outs.is_empty() || !taint::written(call).is_empty() || risk_may_run))
        .then(|| ExposureQuery {
            paths: outs
                .iter()
                .flat_map(|o| o.sent.iter().map(|p| p.to_string_lossy().into_owned()))
                .collect(),
            // A URL rewrite made earlier changes every remote (`vocab::EVERY_REMOTE`).
            remotes: {
                let mut r: Vec<String> =
                    outs.iter().filter_map(|o| o.push_remote.clone()).collect();
                if !r.is_empty() {
                    r.push(crate::vocab::EVERY_REMOTE.to_string());
                }
                r
            },
            since_ms: taint_since(policy, now_ms),
            untrusted: risk_may_run
                || taint::exposures(call, scope, &policy.taint, &|_| false)
                    .iter()
                    .any(|e| e.kind == ExposureKind::Private),
        });
    if !(writes || runs || !reads.is_empty() || exposure.is_some()) {
        return None;
    }
    let mut keys = if writes || runs {
        ledger::keys_before(call)
    } else {
        Vec::new()
    };
    keys.extend(reads);
    keys.sort();
    keys.dedup();
    Some(Needs { keys, exposure })
}

/// What of the store a PostToolUse reads: the ledger rows of the paths the call wrote, or
/// `None` when it wrote nothing (then no store is opened).
pub fn needs_after(call: &Call) -> Option<Vec<String>> {
    ledger::relevance(call).0.then(|| ledger::keys(call))
}
