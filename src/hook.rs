//! `palisade hook`: one event on stdin, one answer in Claude Code's protocol. Every failure
//! ends in a deny with exit 2 and a reason; nothing but the one JSON object goes to stdout.

use crate::event::{self, HookEvent};
use crate::ledger::{self, LedgerStore, Receipt, WriteContext};
use crate::locations::Locations;
use crate::normalize::{self, Call, ProtectedPath, Scope};
use crate::paths::PathResolver;
use crate::policy::{self, Policy};
use crate::verdict::{Effect, Verdict};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Internal deadline for one hook call, well under the `timeout` `palisade init` sets (30 s).
pub const DEADLINE: Duration = Duration::from_secs(10);

/// The deadline in effect: `DEADLINE`, or shorter when `PALISADE_DEADLINE_MS` asks for it (for a
/// tighter hook timeout, and for tests). It can never be made longer.
pub fn deadline() -> Duration {
    std::env::var("PALISADE_DEADLINE_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_millis)
        .map_or(DEADLINE, |d| d.min(DEADLINE))
}

/// What the process prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookAnswer {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl HookAnswer {
    /// The protocol answer for a PreToolUse verdict: deny = JSON + exit 2 + reason on stderr;
    /// ask/allow = JSON, exit 0; no opinion = exit 0, nothing on stdout.
    pub fn for_verdict(verdict: &Verdict) -> HookAnswer {
        let reason = decorated_reason(verdict);
        match verdict.effect {
            None => HookAnswer {
                stdout: String::new(),
                stderr: String::new(),
                code: 0,
            },
            Some(effect) => {
                let body = json!({
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": effect.as_str(),
                        "permissionDecisionReason": reason,
                    }
                });
                let stdout = body.to_string();
                if effect == Effect::Deny {
                    HookAnswer {
                        stdout,
                        stderr: reason,
                        code: 2,
                    }
                } else {
                    HookAnswer {
                        stdout,
                        stderr: String::new(),
                        code: 0,
                    }
                }
            }
        }
    }

    /// No opinion: exit 0, nothing on stdout.
    pub fn silent() -> HookAnswer {
        HookAnswer {
            stdout: String::new(),
            stderr: String::new(),
            code: 0,
        }
    }

    /// A deny for an internal failure, when nothing else can be trusted.
    pub fn failure(cause: &str) -> HookAnswer {
        HookAnswer::for_verdict(&Verdict::failure("error/internal", cause))
    }
}

/// `palisade: <reason> [rule]`, so the model and the user see who refused and why.
fn decorated_reason(v: &Verdict) -> String {
    match &v.rule {
        Some(rule) => format!("palisade: {} [{}]", v.reason, rule),
        None => format!("palisade: {}", v.reason),
    }
}

/// How one event is processed beyond the policy: where state lives and which layers run.
#[derive(Debug, Clone)]
pub struct Pipeline<'a> {
    pub policy: &'a Policy,
    pub locations: &'a Locations,
    /// `CLAUDE_PROJECT_DIR`, when Claude Code gave one.
    pub project_dir: Option<&'a Path>,
    /// Resolve symlinks of existing paths (off in replay, where paths are lexical).
    pub follow_symlinks: bool,
    /// Recorded risk answers to use instead of calling the backend (replay `--risk frozen`).
    pub frozen_risk: Option<&'a serde_json::Value>,
    /// Skip the risk layer entirely (replay `--risk off`).
    pub risk_off: bool,
    /// When the hook's own deadline falls: the risk step's budget is cut to end before it, so
    /// a slow backend ends in a recorded `on_error`, not the watchdog's deny. `None` outside
    /// the hook (replay, check).
    pub deadline: Option<std::time::Instant>,
    /// Where what the pipeline records goes: the state directory, or memory only.
    pub record: Record,
}

/// Where the pipeline keeps the ledger and the audit entry of a call.
#[derive(Debug, Clone)]
pub enum Record {
    /// The state directory of `Locations` (the hook).
    Disk,
    /// Memory only (`check`, `replay`): the ledger in an in-memory store (a replayed chain's
    /// steps share it), audit entries numbered but kept nowhere. No state directory is made.
    Memory {
        ledger: LedgerStore,
        appended: std::sync::Arc<std::sync::atomic::AtomicU64>,
    },
}

impl Record {
    /// A fresh, empty in-memory record.
    pub fn in_memory() -> Record {
        Record::Memory {
            ledger: LedgerStore::in_memory(),
            appended: Default::default(),
        }
    }
}

/// Runs the whole hook on raw stdin bytes. Never panics on bad input; the caller still guards
/// against panics and the deadline.
pub fn run(stdin: &[u8], locations: &Locations, env_project_dir: Option<&Path>) -> HookAnswer {
    // Latency is measured from here at the latest (main touches it first).
    let _ = *crate::audit::PROCESS_START;
    // Lets the tests prove that a panic inside the pipeline still ends in a deny with exit 2.
    // Setting it can only make palisade refuse.
    if std::env::var_os("PALISADE_TEST_PANIC").is_some() {
        panic!("PALISADE_TEST_PANIC is set");
    }
    let event = match event::parse_event(stdin) {
        Ok(ev) => ev,
        Err(e) => {
            let verdict = Verdict::failure("error/bad-input", format!("refused: {e}"));
            // Recorded too (default audit settings, no input kept): a refusal is a decision.
            let unreadable = HookEvent::unreadable();
            let _ = record_audit(&Default::default(), locations, &unreadable, &verdict);
            return HookAnswer::for_verdict(&verdict);
        }
    };
    let cwd = event_cwd(&event);
    let project_root = Locations::project_root(&cwd, env_project_dir);
    let policy = match policy::load(locations, &project_root) {
        Ok(p) => p,
        // A PostToolUse cannot block anything: the tool already ran. It is still recorded,
        // with the default audit settings (the configured ones are unknown).
        Err(_) if event.is_post() => {
            let recorded = record_audit(
                &Default::default(),
                locations,
                &event,
                &Verdict::no_opinion(),
            );
            return post_answer(recorded.err().map(|v| *v));
        }
        Err(e) => {
            let verdict = Verdict::failure(
                "error/policy",
                format!("the policy could not be loaded, so every call is denied: {e}"),
            );
            // Recorded with the default audit settings; denied whether or not that works.
            let _ = record_audit(&Default::default(), locations, &event, &verdict);
            return HookAnswer::for_verdict(&verdict);
        }
    };
    let pipeline = Pipeline {
        policy: &policy,
        locations,
        project_dir: env_project_dir,
        follow_symlinks: true,
        frozen_risk: None,
        risk_off: false,
        deadline: Some(*crate::audit::PROCESS_START + deadline()),
        record: Record::Disk,
    };
    let verdict = process(&pipeline, &event);
    if event.is_post() {
        // A post verdict with an effect is a failure to record.
        return post_answer(verdict.effect.is_some().then_some(verdict));
    }
    HookAnswer::for_verdict(&verdict)
}

/// Records a refusal decided outside the pipeline (deadline, signal, panic) for the event in
/// `stdin`, with the default audit settings (the configured ones may be what failed to load).
/// Best effort: the caller bounds how long it waits, and denies whether or not it worked.
pub fn record_refusal(stdin: Option<&[u8]>, locations: &Locations, verdict: &Verdict) {
    let event = stdin
        .and_then(|b| event::parse_event(b).ok())
        .unwrap_or_else(HookEvent::unreadable);
    let _ = record_audit(&Default::default(), locations, &event, verdict);
}

/// The answer to a PostToolUse: nothing, or — when it could not be recorded — exit 2 with the
/// cause on stderr (shown to Claude; the tool already ran, so nothing is blocked).
fn post_answer(failure: Option<Verdict>) -> HookAnswer {
    match failure {
        None => HookAnswer::silent(),
        Some(v) => HookAnswer {
            stdout: String::new(),
            stderr: decorated_reason(&v),
            code: 2,
        },
    }
}

/// The working directory of an event (`/` when Claude Code sent none).
pub fn event_cwd(event: &HookEvent) -> PathBuf {
    event
        .cwd
        .clone()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// The full pipeline for one event: normalize, static rules, ledger, risk, record.
/// PostToolUse events are recorded only; their verdict is no opinion.
pub fn process(p: &Pipeline, event: &HookEvent) -> Verdict {
    let cwd = event_cwd(event);
    let project_root = Locations::project_root(&cwd, p.project_dir);
    let mut scope = scope_for(
        p.policy,
        p.locations,
        &cwd,
        &project_root,
        p.follow_symlinks,
    );
    protect_transcript(&mut scope, event);
    let call = normalize::normalize_with(event, &scope, &p.policy.tool_models);
    let store = match &p.record {
        Record::Disk => LedgerStore::new(&p.locations.data_dir),
        Record::Memory { ledger, .. } => ledger.clone(),
    };
    if event.is_post() {
        // PostToolUse cannot block: it confirms what was written. A ledger that cannot be
        // updated here is caught by the next PreToolUse that needs it.
        let _ = ledger_confirm(p.policy, &store, event, &call, &scope);
        // Recorded too; an effect here means it could not be (`run` makes that loud).
        let pass = ledger::observe_post(&store, event, Verdict::no_opinion());
        return match append_audit(p, event, &pass) {
            Ok(_) => pass,
            Err(refusal) => *refusal,
        };
    }
    let verdict = crate::evaluate::evaluate(p.policy, &call, &scope);
    let verdict = crate::readonly::judge(p.policy, &call, verdict);
    let verdict = ledger_check(p.policy, &store, event, &call, &scope, verdict);
    let verdict = taint_check(p.policy, &store, event, &call, &scope, verdict);
    let verdict = crate::limits::risk_budget(p.policy, &store, event, &call, &scope, verdict);
    let verdict = with_risk(p, &store, event, &call, &scope, verdict);
    let verdict = crate::limits::enforce(p.policy, &store, event, &call, &scope, verdict);
    let verdict = ledger_record(p.policy, &store, event, &call, &scope, verdict, None);
    let (verdict, exposed) = taint_record(p.policy, &store, event, &call, &scope, verdict);
    let verdict = ledger::observe_pre(&store, &p.policy.digest, event, now_ms(), verdict);
    // Record, audit half: append the entry, then link the writes the ledger just recorded to
    // its receipt. A lost link is reported, not a deny (the write itself is ledgered).
    match append_audit(p, event, &verdict) {
        Ok(receipt) => {
            // Only the seq named in a later reason is lost if this fails: reported, not denied.
            if let Err(e) = store.attach_exposure_seq(&event.session_id, &exposed, receipt.seq) {
                tracing::warn!("could not link the session's exposure to audit entry: {e}");
            }
            if let Err(e) = ledger_attach_receipt(&store, event, receipt) {
                tracing::warn!("could not link the ledger's writes to audit entry: {e}");
            }
            verdict
        }
        Err(refusal) => crate::evaluate::headless(p.policy, *refusal),
    }
}

/// The audit append of the pipeline's record: to the log, or (in memory) only numbered.
fn append_audit(
    p: &Pipeline,
    event: &HookEvent,
    verdict: &Verdict,
) -> Result<crate::audit::AppendReceipt, Box<Verdict>> {
    match &p.record {
        Record::Disk => record_audit(&p.policy.audit, p.locations, event, verdict),
        Record::Memory { appended, .. } => Ok(crate::audit::AppendReceipt {
            seq: appended.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
            hash: String::new(),
        }),
    }
}

/// Record step, audit half: appends the entry for `verdict`. When the entry cannot be written
/// the call is refused (`on_error: deny`, or asked with `on_error: ask`; a deny stays a deny)
/// with a reason naming the file and the cause.
pub fn record_audit(
    settings: &crate::audit::AuditSettings,
    locations: &Locations,
    event: &HookEvent,
    verdict: &Verdict,
) -> Result<crate::audit::AppendReceipt, Box<Verdict>> {
    let path = crate::audit::audit_file(settings, locations);
    let entry = crate::audit::NewEntry::from_verdict(
        event,
        verdict,
        &settings.redact,
        crate::audit::elapsed_us(),
    );
    crate::audit::append(&path, entry).map_err(|e| {
        let effect = if settings.on_error_ask && verdict.effect != Some(Effect::Deny) {
            Effect::Ask
        } else {
            Effect::Deny
        };
        let reason = if effect == Effect::Deny {
            format!("the decision could not be recorded, so the call is refused: {e}")
        } else {
            format!("the decision could not be recorded, so a human must confirm: {e}")
        };
        Box::new(Verdict::decided(
            effect,
            "error/audit",
            "error",
            reason,
            crate::verdict::Source::Error,
        ))
    })
}

// ---- Ledger step (write-then-run chains) ------------------------------------------------
// Before the answer, a call that runs a file written earlier in the session is judged by
// that file's content; after it, what an allowed (or asked) call writes is recorded. The
// ledger is read only for calls that run or write files.

/// The stricter of the static verdict and the ledger's, with the chain links of the run.
fn ledger_check(
    policy: &Policy,
    store: &LedgerStore,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
    verdict: Verdict,
) -> Verdict {
    if verdict.effect == Some(Effect::Deny) || !ledger::relevance(call, scope).1 {
        return verdict;
    }
    let keys = ledger::keys(call, scope);
    match store.read(&event.session_id, &keys, |l| {
        ledger::check(l, call, scope, policy)
    }) {
        Ok(lv) => {
            let mut v = verdict.stricter(lv.verdict);
            v.chain = lv.links;
            v
        }
        Err(e) => ledger_failure(policy, &e),
    }
}

/// Records the files the call writes, unless it was denied (a denied write never happens;
/// an asked one may, once the user agrees, so it is recorded too). A ledger that cannot be
/// written fails closed like the audit log: the call is denied (asked with `on_error: ask`).
fn ledger_record(
    policy: &Policy,
    store: &LedgerStore,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
    verdict: Verdict,
    receipt: Option<Receipt>,
) -> Verdict {
    let (writes, runs) = ledger::relevance(call, scope);
    // A run of a ledgered script records what that script writes; with no ledger yet there
    // is nothing ledgered to run.
    let ledgered = || store.exists(&event.session_id);
    if verdict.effect == Some(Effect::Deny) || !(writes || (runs && ledgered())) {
        return verdict;
    }
    let ctx = WriteContext {
        tool_use_id: event.tool_use_id.clone(),
        receipt,
        now_ms: now_ms(),
    };
    let keys = ledger::keys(call, scope);
    match store.update_keys(&event.session_id, &keys, |l| {
        ((), ledger::record(l, call, scope, policy, &ctx) > 0)
    }) {
        Ok(()) => verdict,
        Err(e) => ledger_failure(policy, &e).stricter(verdict),
    }
}

/// PostToolUse: refreshes the entries of the files the call wrote from disk.
fn ledger_confirm(
    policy: &Policy,
    store: &LedgerStore,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
) -> Result<(), ledger::LedgerError> {
    if !ledger::relevance(call, scope).0 {
        return Ok(());
    }
    let ctx = WriteContext {
        tool_use_id: event.tool_use_id.clone(),
        receipt: None,
        now_ms: now_ms(),
    };
    let keys = ledger::keys(call, scope);
    store.update_keys(&event.session_id, &keys, |l| {
        (ledger::confirm(l, call, scope, policy, &ctx), true)
    })
}

/// After the audit entry of a PreToolUse call is appended: the writes the call recorded get
/// its receipt, so a later run of them links to it (`chain`). Only calls that wrote files
/// touch the ledger. A failure here loses only the link, never a write, so it is reported,
/// not turned into a deny.
pub fn ledger_attach_receipt(
    store: &LedgerStore,
    event: &HookEvent,
    receipt: Receipt,
) -> Result<(), ledger::LedgerError> {
    let Some(id) = event.tool_use_id.as_deref() else {
        return Ok(());
    };
    if event.is_post()
        || !matches!(
            event.tool_name.as_str(),
            "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "Bash"
        )
    {
        return Ok(());
    }
    if !store.exists(&event.session_id) {
        return Ok(());
    }
    store
        .attach_receipt(&event.session_id, id, &receipt)
        .map(|_| ())
}

fn ledger_failure(policy: &Policy, e: &ledger::LedgerError) -> Verdict {
    let mut v = Verdict::failure(
        "error/ledger",
        format!("{e}, so write-then-run chains cannot be checked and the call is refused"),
    );
    if policy.audit.on_error_ask {
        v.effect = Some(Effect::Ask);
    }
    crate::evaluate::headless(policy, v)
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

// ---- end of the ledger step --------------------------------------------------------------

// ---- Taint step (the lethal trifecta across calls) ---------------------------------------
// A call that sends data out is judged with what the session was exposed to (see
// `crate::taint`); after the verdict, what the call exposes the session to is recorded. The
// exposure rows live in the session's ledger store and are read only by calls that send data
// out, read files, or write files in a session that has a store.

/// Where exposure older than the policy's TTL begins (0: the whole session).
fn taint_since(policy: &Policy) -> u64 {
    policy
        .taint
        .ttl_ms
        .map_or(0, |ttl| now_ms().saturating_sub(ttl))
}

/// The stricter of the verdict so far and the taint judgement of the call's ways out. An
/// unreadable store fails closed, as the ledger step does.
fn taint_check(
    policy: &Policy,
    store: &LedgerStore,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
    verdict: Verdict,
) -> Verdict {
    use crate::taint::{self, TaintMode};
    if policy.taint.mode == TaintMode::Off || verdict.effect == Some(Effect::Deny) {
        return verdict;
    }
    let outs = taint::outbound(call, scope, &policy.taint);
    if outs.is_empty() {
        return verdict;
    }
    let paths: Vec<String> = outs
        .iter()
        .flat_map(|o| o.sent.iter().map(|p| p.to_string_lossy().into_owned()))
        .collect();
    let remotes: Vec<String> = outs.iter().filter_map(|o| o.push_remote.clone()).collect();
    match store.session_exposure(&event.session_id, &paths, &remotes, taint_since(policy)) {
        // The taint reason names the calls behind it, so it wins a tie with a static ask.
        Ok(mut seen) => {
            // What this very call reads counts too (`cat .env | curl -d @- …`).
            taint::include_own(&mut seen, call, scope, &policy.taint);
            match taint::judge(&policy.taint, &outs, &seen) {
                Some(v) if v.effect >= verdict.effect => crate::evaluate::headless(policy, v),
                _ => verdict,
            }
        }
        Err(e) => ledger_failure(policy, &e).stricter(verdict),
    }
}

/// Records what the call exposes the session to (unless it was denied): untrusted content,
/// private data, remotes changed, and files written after private data was read. Returns the
/// rows to be given the call's audit seq. A store that cannot be written fails closed.
fn taint_record(
    policy: &Policy,
    store: &LedgerStore,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
    verdict: Verdict,
) -> (Verdict, Vec<i64>) {
    use crate::taint::{self, Exposure, ExposureKind, TaintMode};
    if policy.taint.mode == TaintMode::Off || verdict.effect == Some(Effect::Deny) {
        return (verdict, Vec::new());
    }
    let sid = &event.session_id;
    let exists = store.exists(sid);
    let reads: Vec<PathBuf> = call
        .effects
        .iter()
        .filter_map(|e| match e {
            crate::effects::Effect::Read { path } => Some(path.clone()),
            _ => None,
        })
        .collect();
    let result = (|| -> Result<Vec<i64>, ledger::LedgerError> {
        // Files downloaded earlier in the session are outside content too. The download call
        // itself was recorded as untrusted already, so an unreadable ledger here costs only
        // that second sighting: a plain read does not fail on it (sends still fail closed).
        let downloaded: Vec<PathBuf> = if exists && !reads.is_empty() {
            let keys: Vec<String> = reads
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            store
                .read(sid, &keys, |l| {
                    reads
                        .iter()
                        .filter(|p| l.get(p).is_some_and(|e| e.from_network))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let mut rows = taint::exposures(call, scope, &policy.taint, &|p| {
            downloaded.iter().any(|d| d == p)
        });
        rows.extend(taint::remotes_changed(call));
        let writes = taint::written(call);
        if !writes.is_empty() {
            let private = match rows.iter().find(|r| r.kind == ExposureKind::Private) {
                Some(r) => Some(r.origin.clone()),
                None if exists => store
                    .session_exposure(sid, &[], &[], taint_since(policy))?
                    .private
                    .map(|r| r.describe()),
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
        let ids = store.record_exposures(sid, &rows, now_ms())?;
        // Derived rows keep the read that made them private; the others get this call's seq.
        Ok(ids
            .into_iter()
            .zip(&rows)
            .filter(|(_, r)| r.kind != ExposureKind::Derived)
            .map(|(id, _)| id)
            .collect())
    })();
    match result {
        Ok(ids) => (verdict, ids),
        Err(e) => (ledger_failure(policy, &e).stricter(verdict), Vec::new()),
    }
}

// ---- end of the taint step ---------------------------------------------------------------

// ---- Risk step (the decision-model backend) ---------------------------------------------
// After the static and ledger verdicts, before recording. Off, out of scope (by default: only
// calls nothing else had an opinion on) or after a deny it changes nothing and starts no
// runtime. Frozen answers (replay `--risk frozen`) run the ladder offline whether or not the
// policy enables the layer; its scope still applies.

/// Time kept back from the hook's deadline for what follows the risk step.
const RISK_DEADLINE_MARGIN: Duration = Duration::from_millis(250);

/// The stricter of the verdict so far and the risk layer's, with the risk record attached.
fn with_risk(
    p: &Pipeline,
    store: &LedgerStore,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
    verdict: Verdict,
) -> Verdict {
    if p.risk_off {
        return verdict;
    }
    let mut settings = match p.frozen_risk {
        Some(_) => crate::risk::RiskSettings {
            enabled: true,
            ..p.policy.risk.clone()
        },
        None => p.policy.risk.clone(),
    };
    if matches!(p.record, Record::Memory { .. }) {
        // A memory-only run (`replay --risk live`) writes nothing to disk: no answer cache.
        settings.cache_ttl_s = 0;
    }
    if let Some(d) = p.deadline {
        // Room after the risk step for the ledger and the audit append.
        let left = d
            .saturating_duration_since(std::time::Instant::now())
            .saturating_sub(RISK_DEADLINE_MARGIN);
        settings.timeout_ms = settings.timeout_ms.min(left.as_millis() as u64);
    }
    if settings.enabled
        && let Ok(k) = std::env::var(&settings.api_key_env)
    {
        // The audit entry's input is redacted by the same redactor: it never keeps the key.
        crate::redact::register_secret(&k);
    }
    if !crate::risk::in_scope(&settings, &verdict) {
        return verdict;
    }
    let mut executed = risk_ledger_context(store, event, call, scope);
    executed.extend(risk_exposure_context(p.policy, store, event));
    let outcome = match p.frozen_risk {
        Some(answers) => {
            let ctx = crate::risk::context(&verdict, &executed);
            crate::risk::assess_frozen_value(&settings, answers, &ctx)
        }
        None => match crate::risk::assess(
            &settings,
            event,
            call,
            scope,
            &verdict,
            &executed,
            &p.locations.data_dir,
        ) {
            Some(outcome) => outcome,
            None => return verdict,
        },
    };
    crate::evaluate::headless(p.policy, crate::risk::combine(verdict, outcome))
}

/// The ledger entries of the files this call executes, as the risk state shows them: the
/// model judges what actually runs, not the one-line command. Downloaded files go to
/// `untrusted_reads`. An unreadable ledger gives none (the ledger step already failed closed).
fn risk_ledger_context(
    store: &LedgerStore,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
) -> Vec<crate::risk::LedgerExcerpt> {
    let execs = crate::fileops::executions(call, scope);
    if execs.is_empty() || !store.exists(&event.session_id) {
        return Vec::new();
    }
    let keys: Vec<String> = execs
        .iter()
        .map(|e| e.path.to_string_lossy().into_owned())
        .collect();
    let Ok(entries) = store.read(&event.session_id, &keys, |l| {
        execs
            .iter()
            .filter_map(|e| l.get(&e.path).cloned())
            .collect::<Vec<_>>()
    }) else {
        return Vec::new();
    };
    let mut out: Vec<crate::risk::LedgerExcerpt> = Vec::new();
    for entry in &entries {
        if out.iter().any(|e| e.path == entry.path) {
            continue;
        }
        out.push(crate::risk::LedgerExcerpt {
            path: entry.path.clone(),
            written_by_agent: true,
            turns_ago: None,
            excerpt: entry.excerpt.clone(),
            untrusted_source: entry
                .from_network
                .then(|| format!("{} ({})", entry.summary, entry.how)),
        });
    }
    out
}

/// The session's recorded untrusted exposure, for the `from_untrusted` question: the model
/// learns that outside content entered this session and from which call, even when the call
/// judged runs nothing downloaded. An unreadable store gives none (the taint step already
/// failed closed).
fn risk_exposure_context(
    policy: &Policy,
    store: &LedgerStore,
    event: &HookEvent,
) -> Option<crate::risk::LedgerExcerpt> {
    if policy.taint.mode == crate::taint::TaintMode::Off || !store.exists(&event.session_id) {
        return None;
    }
    let seen = store
        .session_exposure(&event.session_id, &[], &[], taint_since(policy))
        .ok()?;
    let u = seen.untrusted?;
    Some(crate::risk::LedgerExcerpt {
        path: String::new(),
        written_by_agent: false,
        turns_ago: None,
        excerpt: None,
        untrusted_source: Some(format!(
            "untrusted content entered this session: {}",
            u.describe()
        )),
    })
}

// ---- end of the risk step ----------------------------------------------------------------

/// The session's transcript (`transcript_path`) is the record of what the user said: the
/// agent may read it, never rewrite it.
pub fn protect_transcript(scope: &mut Scope, event: &HookEvent) {
    if let Some(t) = event.transcript_path.as_deref().filter(|t| !t.is_empty()) {
        scope.protected.push(ProtectedPath {
            path: scope.paths.resolve(t),
            what: "the session transcript".to_string(),
            subtree: false,
            suffix: false,
        });
    }
}

/// The static decision for one event (the pure core used by `hook`, `check` and `replay`).
pub fn decide(policy: &Policy, event: &HookEvent, scope: &Scope) -> Verdict {
    let mut scope = scope.clone();
    protect_transcript(&mut scope, event);
    let scope = &scope;
    let call = normalize::normalize_with(event, scope, &policy.tool_models);
    let verdict = crate::evaluate::evaluate(policy, &call, scope);
    crate::readonly::judge(policy, &call, verdict)
}

/// Builds the scope of a call: path resolution, write roots and protected paths.
pub fn scope_for(
    policy: &Policy,
    loc: &Locations,
    cwd: &Path,
    project_root: &Path,
    follow_symlinks: bool,
) -> Scope {
    let paths = PathResolver {
        cwd: cwd.to_path_buf(),
        home: loc.home.clone(),
        follow_symlinks,
    };
    let project_root = paths.resolve(&project_root.to_string_lossy());
    // The home directory or `/` as a "project" would make every write a write inside it.
    let mut roots = Vec::new();
    if project_root != paths.resolve(&loc.home.to_string_lossy()) && project_root.parent().is_some()
    {
        roots.push(project_root.clone());
    }
    for tmp in temp_dirs() {
        roots.push(paths.resolve(&tmp.to_string_lossy()));
    }
    roots.extend(
        policy
            .roots
            .iter()
            .map(|r| paths.resolve(&r.to_string_lossy())),
    );
    let mut protected = protected_paths(loc, &paths);
    // The project's own copies of the suffix entries, by where they really are: a symlinked
    // `.claude` or `.palisade.yaml` resolves elsewhere, and is protected there too.
    let concrete: Vec<ProtectedPath> = protected
        .iter()
        .filter(|p| p.suffix)
        .map(|p| ProtectedPath {
            path: paths.resolve(&project_root.join(&p.path).to_string_lossy()),
            what: p.what.clone(),
            subtree: false,
            suffix: false,
        })
        .collect();
    protected.extend(concrete);
    // The user policy may put the audit log outside the state directory.
    let audit_log = crate::audit::audit_file(&policy.audit, loc);
    protected.push(ProtectedPath {
        path: paths.resolve(&audit_log.to_string_lossy()),
        what: "palisade's audit log".to_string(),
        subtree: false,
        suffix: false,
    });
    Scope {
        paths,
        project_root,
        roots,
        protected,
    }
}

/// What self-protection guards: palisade's policy, state and binary — at the configured places
/// and at the default ones, since an override only moves where palisade looks today — and the
/// Claude Code settings that install or disable hooks, in any project.
fn protected_paths(loc: &Locations, paths: &PathResolver) -> Vec<ProtectedPath> {
    let mut protected = Vec::new();
    let mut guard = |path: PathBuf, what: &str, subtree: bool, suffix: bool| {
        let path = if suffix {
            path
        } else {
            paths.resolve(&path.to_string_lossy())
        };
        protected.push(ProtectedPath {
            path,
            what: what.to_string(),
            subtree,
            suffix,
        });
    };
    let defaults = Locations::from_vars(|k| (k == "HOME").then(|| loc.home.clone()));
    for l in [loc, &defaults] {
        guard(
            l.user_policy.clone(),
            "palisade's user policy",
            false,
            false,
        );
        if let Some(dir) = l.user_policy.parent()
            && dir.file_name().is_some_and(|n| n == "palisade")
        {
            guard(
                dir.to_path_buf(),
                "palisade's config directory",
                true,
                false,
            );
        }
        guard(
            l.data_dir.clone(),
            "palisade's state directory (audit log, ledger)",
            true,
            false,
        );
        guard(
            l.claude_dir.join("plugins"),
            "Claude Code plugins (they carry hooks)",
            true,
            false,
        );
        // Session transcripts (`projects/<project>/<session>.jsonl`): the record of what the
        // user said, which the risk layer reads as authorization. Memory notes beside them
        // stay writable.
        guard(
            l.claude_dir.join("projects").join("*.jsonl"),
            "Claude Code session transcripts",
            true,
            false,
        );
        for name in ["settings.json", "settings.local.json"] {
            guard(
                l.claude_dir.join(name),
                "Claude Code settings (they install the hooks)",
                false,
                false,
            );
        }
    }
    guard(
        PathBuf::from(".palisade.yaml"),
        "a palisade project policy",
        false,
        true,
    );
    for name in [".claude/settings.json", ".claude/settings.local.json"] {
        guard(
            PathBuf::from(name),
            "Claude Code project settings (they can install or disable hooks)",
            false,
            true,
        );
    }
    // A lexical world (replay) describes the recorded machine, not the one replaying it: where
    // this process's own binary lives must not change a replayed verdict.
    if paths.follow_symlinks
        && let Ok(exe) = std::env::current_exe()
    {
        guard(exe, "the palisade binary", false, false);
    }
    for bin in [".cargo/bin/palisade", ".local/bin/palisade"] {
        guard(loc.home.join(bin), "the palisade binary", false, false);
    }
    guard(
        PathBuf::from("/usr/local/bin/palisade"),
        "the palisade binary",
        false,
        false,
    );
    guard(
        PathBuf::from("/etc/claude-code"),
        "Claude Code managed settings",
        true,
        false,
    );
    guard(
        PathBuf::from("/Library/Application Support/ClaudeCode"),
        "Claude Code managed settings",
        true,
        false,
    );
    protected
}

fn temp_dirs() -> Vec<PathBuf> {
    let mut v = vec![PathBuf::from("/tmp"), PathBuf::from("/var/tmp")];
    if let Some(t) = std::env::var_os("TMPDIR").filter(|t| !t.is_empty()) {
        v.push(PathBuf::from(t));
    }
    v
}
