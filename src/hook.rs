//! `palisade hook`: one event on stdin, one answer in Claude Code's protocol. Every failure
//! ends in a deny with exit 2 and a reason; nothing but the one JSON object goes to stdout.

use crate::decide;
use crate::event::{self, HookEvent};
use crate::ledger::SessionView;
use crate::ledger::{self, LedgerStore, WriteContext};
use crate::locations::Locations;
use crate::normalize::{self, Call, ProtectedPath, Scope};
use crate::paths::PathResolver;
use crate::policy::{self, Policy};
use crate::verdict::{Effect, Verdict};
use crate::world::{self, Environment, World};
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
    /// a slow backend ends in a recorded `on_error`, not the deadline watcher's deny. `None` outside
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
        // The root just found: `process` does not walk up from the cwd a second time.
        project_dir: Some(project_root.as_path()),
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

/// The full pipeline for one event: normalize, load the world, decide, risk, record.
/// PostToolUse events are recorded only; their verdict is no opinion.
///
/// All I/O of a call happens here, around the pure core (`crate::decide`): the environment is
/// read once, the session's store is opened once and read in one transaction (`world::needs`
/// says what to read; nothing when the call needs nothing), what the call records is written
/// in one transaction, the audit entry appended, and the rows linked to it.
pub fn process(p: &Pipeline, event: &HookEvent) -> Verdict {
    // The core redacts the audit record it returns: the backend's key, when the environment
    // holds one, is among the secrets it redacts (the risk step adds it too, later).
    if !event.is_post()
        && let Ok(k) = std::env::var(&p.policy.risk.api_key_env)
    {
        crate::redact::register_secret(&k);
    }
    let long = !event.is_post() && crate::audit::entry::is_long_input(&event.tool_input);
    std::thread::scope(|s| {
        // A long input is redacted for the record on the second core from the start, while
        // the call is parsed and judged (a 100 KB here-doc's parse is most of its time); a
        // panic there is a deny, as on this thread: the panic hook answers.
        let recording = long.then(|| {
            s.spawn(|| {
                crate::audit::entry::recorded_input(&event.tool_input, &p.policy.audit.redact)
            })
        });
        judge(p, event, recording)
    })
}

/// [`process`] on this thread: normalize, then confirm a PostToolUse or judge a PreToolUse.
fn judge(
    p: &Pipeline,
    event: &HookEvent,
    recording: Option<std::thread::ScopedJoinHandle<'_, serde_json::Value>>,
) -> Verdict {
    let env = Environment::read();
    let cwd = event_cwd(event);
    let project_root = Locations::project_root(&cwd, p.project_dir);
    let mut scope = scope_in(
        p.policy,
        p.locations,
        &cwd,
        &project_root,
        p.follow_symlinks,
        &env,
    );
    protect_transcript(&mut scope, event);
    let store = match &p.record {
        // The process's answer does not wait for a checkpoint's syncs (`main::settle_later`).
        Record::Disk => LedgerStore::new(&p.locations.data_dir).checkpoints_deferred(),
        Record::Memory { ledger, .. } => ledger.clone(),
    };
    // A long call that will surely need its session's store has it opened on the second core
    // while it is parsed. Not a short one, nor a call that only may need it (a run of a file,
    // known after the parse): their thread cost more than the open it hid (0.14-0.16 ms of a
    // 2.3-3.4 ms call).
    let opening = (!event.is_post() && store_needed_early(event))
        .then(|| store.open_ahead(&event.session_id))
        .flatten();
    let call = normalize::normalize_with(event, &scope, &p.policy.tool_models);
    if event.is_post() {
        // PostToolUse cannot block: it confirms what was written, through the same world and
        // core. A ledger that cannot be read or updated here is caught by the next PreToolUse
        // that needs it.
        if let Err(e) = confirm_after(p, &store, event, &call, &scope, env.now_ms) {
            tracing::warn!("could not confirm the call's writes in the ledger: {e}");
        }
        // Recorded too; an effect here means it could not be (`run` makes that loud).
        let pass = ledger::observe_post(&store, event, Verdict::no_opinion());
        let entry = crate::audit::NewEntry::from_verdict(
            event,
            &pass,
            &p.policy.audit.redact,
            crate::audit::elapsed_us(),
        );
        return match append_audit(p, entry, &pass) {
            Ok(_) => pass,
            Err(refusal) => *refusal,
        };
    }
    let session = store.session_with(&event.session_id, opening);
    let verdict = pre_tool_use(p, event, &call, &scope, session, &env, recording);
    if crate::shell::trees_kept() {
        // The process ends after this call: a long line's analysis (a 20,000-stage pipeline's
        // commands and effects, 3% of its time to free) is left to the exit.
        std::mem::forget(call);
    }
    verdict
}

/// Input text this long takes longer to parse and judge than the session's store to open (a
/// 100 KB here-document: 1.5 ms of parse against 0.3-0.6 ms), so the open is hidden.
const OPEN_AHEAD_BYTES: usize = 4 * 1024;

/// Whether a PreToolUse call is to have its session's store opened ahead, told from the event
/// alone: a file tool's write is always recorded, a shell text's write most often, and only a
/// long input hides the open.
fn store_needed_early(event: &HookEvent) -> bool {
    receipt_tool(&event.tool_name)
        && crate::audit::entry::input_holds(&event.tool_input, OPEN_AHEAD_BYTES)
}

/// The PreToolUse part of [`process`]: decide over the world, risk, record. `recording` is
/// the input being made ready for the audit record on another thread, if it is.
fn pre_tool_use(
    p: &Pipeline,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
    mut session: ledger::SessionStore<'_>,
    env: &Environment,
    recording: Option<std::thread::ScopedJoinHandle<'_, serde_json::Value>>,
) -> Verdict {
    let static_verdict = decide::static_verdict(p.policy, call, scope);
    // Load the world once and decide over it; a row the core missed (a chain followed into a
    // file the call does not name) is fetched in the same read transaction and it decides again.
    let needs = world::needs(
        p.policy,
        call,
        scope,
        &static_verdict,
        env.now_ms,
        risk_may_run(p),
    );
    let decide_in = |view: &SessionView, unreadable: Option<&ledger::LedgerError>| {
        let world = World {
            scope,
            now_ms: env.now_ms,
            session: view,
            unreadable,
            caller_records_input: recording.is_some(),
        };
        decide::decide_after(p.policy, event, call, &world, static_verdict.clone())
    };
    let (decision, view) = match &needs {
        None => {
            let view = SessionView::default();
            (decide_in(&view, None), view)
        }
        Some(n) => match session.load(&n.keys, n.exposure.as_ref(), |view| {
            let d = decide_in(view, None);
            let wanted = d.wanted.clone();
            (d, wanted)
        }) {
            Ok(loaded) => loaded,
            Err(e) => {
                // The store is there but cannot be read: every stage that needs it fails closed.
                let view = SessionView::unreadable();
                (decide_in(&view, Some(&e)), view)
            }
        },
    };
    let verdict = crate::limits::risk_budget(
        p.policy,
        &mut session,
        event,
        call,
        scope,
        decision.verdict,
        env.now_ms,
    );
    let verdict = with_risk(p, event, call, scope, verdict, &decision.risk_context);
    let (mut verdict, write) = decide::finish(verdict, &decision.record);
    // Record, store half: everything the call records, and the limits' counts, in one write
    // transaction. A store that cannot be written fails closed like the audit log (asked with
    // `on_error: ask`).
    let counting = crate::limits::Counting::of(p.policy, event, call, scope, &verdict);
    let mut exposed = Vec::new();
    let mut ledgered = false;
    if write || !counting.is_empty() {
        let ctx = WriteContext {
            tool_use_id: event.tool_use_id.clone(),
            receipt: None,
            now_ms: env.now_ms,
        };
        // Re-planned over rows another process changed: the patches' rows may be new too.
        let redo = |l: &mut ledger::Ledger| {
            let patches = ledger::applied_patches(l, call, scope);
            ledger::record(l, call, scope, p.policy, &ctx, &patches) > 0
        };
        let nothing = ledger::SessionChanges::default();
        let changes = if write {
            &decision.record.changes
        } else {
            &nothing
        };
        // The limits count first in the transaction; a call one of them denies writes nothing.
        let limited = |tx: &rusqlite::Connection| {
            let (v, keep) = counting.run(p.policy, tx, verdict.clone(), env.now_ms)?;
            Ok((v, write && keep))
        };
        match session.commit(&view, changes, redo, limited) {
            Ok((ids, v)) => {
                verdict = v;
                if write && verdict.effect != Some(Effect::Deny) {
                    exposed = decision.record.seq_rows(ids);
                    ledgered = decision.record.changes.ledger.is_some();
                }
            }
            // The limits could not be checked (whatever else failed with them).
            Err(e) if !counting.is_empty() => {
                verdict = crate::limits::store_failure(p.policy, &e).stricter(verdict)
            }
            Err(e) => verdict = decide::ledger_failure(p.policy, &e).stricter(verdict),
        }
    }
    // Bypass detection and policy drift: this decision's id and the session's first policy.
    let verdict = ledger::observe_pre(session.store(), &p.policy.digest, event, verdict);
    // Record, audit half: append the entry, then link the rows just recorded to its receipt
    // (a later run of a written file links to it; a taint reason names its seq). A lost link
    // is reported, not a deny: the rows themselves are recorded.
    let mut entry = decision.audit.decided(&verdict, crate::audit::elapsed_us());
    if let Some(h) = recording {
        entry.input = h.join().unwrap_or_else(|_| {
            crate::audit::entry::recorded_input(&event.tool_input, &p.policy.audit.redact)
        });
    }
    match append_audit(p, entry, &verdict) {
        Ok(receipt) => {
            let id = event
                .tool_use_id
                .as_deref()
                .filter(|_| ledgered && receipt_tool(&event.tool_name));
            if let Err(e) = session.attach(id, &exposed, &receipt) {
                tracing::warn!("could not link the call's ledger rows to its audit entry: {e}");
            }
            verdict
        }
        Err(refusal) => crate::evaluate::headless(p.policy, *refusal),
    }
}

/// Whether the risk layer may run for this pipeline (then the world carries its context).
fn risk_may_run(p: &Pipeline) -> bool {
    !p.risk_off && (p.frozen_risk.is_some() || p.policy.risk.enabled)
}

/// The tools whose ledgered writes are linked to their audit receipt (the `chain` of a
/// later run names it).
fn receipt_tool(tool: &str) -> bool {
    matches!(
        tool,
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "Bash"
    )
}

/// The audit append of the pipeline's record: to the log, or (in memory) only numbered.
fn append_audit(
    p: &Pipeline,
    entry: crate::audit::NewEntry,
    verdict: &Verdict,
) -> Result<crate::audit::AppendReceipt, Box<Verdict>> {
    match &p.record {
        Record::Disk => append_entry(&p.policy.audit, p.locations, entry, verdict),
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
    settings: &crate::policy::audit_settings::AuditSettings,
    locations: &Locations,
    event: &HookEvent,
    verdict: &Verdict,
) -> Result<crate::audit::AppendReceipt, Box<Verdict>> {
    let entry = crate::audit::NewEntry::from_verdict(
        event,
        verdict,
        &settings.redact,
        crate::audit::elapsed_us(),
    );
    append_entry(settings, locations, entry, verdict)
}

/// Appends `entry`, the record of `verdict`; a refusal naming the file and the cause when it
/// cannot be written.
fn append_entry(
    settings: &crate::policy::audit_settings::AuditSettings,
    locations: &Locations,
    entry: crate::audit::NewEntry,
    verdict: &Verdict,
) -> Result<crate::audit::AppendReceipt, Box<Verdict>> {
    let path = crate::policy::audit_settings::audit_file(settings, locations);
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

/// PostToolUse: loads the world of the paths the call wrote (nothing when it wrote none),
/// lets the core plan their confirmed rows (`decide::after`), and writes them in one
/// transaction, re-planned under the lock if another process changed a row meanwhile.
fn confirm_after(
    p: &Pipeline,
    store: &LedgerStore,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
    now_ms: u64,
) -> Result<(), ledger::LedgerError> {
    let Some(keys) = world::needs_after(call) else {
        return Ok(());
    };
    let mut session = store.session(&event.session_id);
    let (plan, view) = session.load(&keys, None, |view| {
        let plan = decide::after(p.policy, event, call, &World::new(scope, now_ms, view));
        let wanted = plan.wanted.clone();
        (plan, wanted)
    })?;
    if plan.changes.is_empty() {
        return Ok(());
    }
    let ctx = WriteContext {
        tool_use_id: event.tool_use_id.clone(),
        receipt: None,
        now_ms,
    };
    let redo = |l: &mut ledger::Ledger| {
        ledger::confirm(l, call, scope, p.policy, &ctx);
        true
    };
    session
        .commit(&view, &plan.changes, redo, |_| Ok(((), true)))
        .map(|_| ())
}

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
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
    verdict: Verdict,
    executed: &[crate::risk::LedgerExcerpt],
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
    let outcome = match p.frozen_risk {
        Some(answers) => {
            let ctx = crate::risk::context(&verdict, executed);
            crate::risk::assess_frozen_value(&settings, answers, &ctx)
        }
        None => match crate::risk::assess(
            &settings,
            event,
            call,
            scope,
            &verdict,
            executed,
            &p.locations.data_dir,
        ) {
            Some(outcome) => outcome,
            None => return verdict,
        },
    };
    crate::evaluate::headless(p.policy, crate::risk::combine(verdict, outcome))
}

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

/// The core's verdict for one event in a session with no history (`allow`, `doctor`): the same
/// `crate::decide` the hook runs, over an empty session view.
pub fn decide(policy: &Policy, event: &HookEvent, scope: &Scope) -> Verdict {
    let mut scope = scope.clone();
    protect_transcript(&mut scope, event);
    let call = normalize::normalize_with(event, &scope, &policy.tool_models);
    let session = SessionView::default();
    let world = World::new(&scope, 0, &session);
    decide::decide(policy, event, &call, &world).verdict
}

/// Builds the scope of a call: path resolution, write roots and protected paths, with the
/// environment read now.
pub fn scope_for(
    policy: &Policy,
    loc: &Locations,
    cwd: &Path,
    project_root: &Path,
    follow_symlinks: bool,
) -> Scope {
    let env = Environment::read();
    scope_in(policy, loc, cwd, project_root, follow_symlinks, &env)
}

/// `scope_for` in the environment `env` (temp dirs, palisade's own binary), read by the caller.
pub fn scope_in(
    policy: &Policy,
    loc: &Locations,
    cwd: &Path,
    project_root: &Path,
    follow_symlinks: bool,
    env: &Environment,
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
    for tmp in &env.temp_dirs {
        roots.push(paths.resolve(&tmp.to_string_lossy()));
    }
    roots.extend(
        policy
            .roots
            .iter()
            .map(|r| paths.resolve(&r.to_string_lossy())),
    );
    // The user policy may put the audit log outside the state directory.
    let audit_log = crate::policy::audit_settings::audit_file(&policy.audit, loc);
    let (loc, env, resolver, root) = (
        loc.clone(),
        env.clone(),
        paths.clone(),
        project_root.clone(),
    );
    let protected = crate::call::Protected::lazy(move || {
        let paths = &resolver;
        let mut protected = protected_paths(&loc, paths, &env);
        // The project's own copies of the suffix entries, by where they really are: a
        // symlinked `.claude` or `.palisade.yaml` resolves elsewhere, and is protected there
        // too.
        let concrete: Vec<ProtectedPath> = protected
            .iter()
            .filter(|p| p.suffix)
            .map(|p| ProtectedPath {
                path: paths.resolve(&root.join(&p.path).to_string_lossy()),
                what: p.what.clone(),
                subtree: false,
                suffix: false,
            })
            .collect();
        protected.extend(concrete);
        protected.push(ProtectedPath {
            path: paths.resolve(&audit_log.to_string_lossy()),
            what: "palisade's audit log".to_string(),
            subtree: false,
            suffix: false,
        });
        protected
    });
    Scope {
        paths,
        project_root,
        roots,
        protected,
        // A world whose paths are lexical (replay, check) has no files to read either.
        files: if follow_symlinks {
            crate::call::FileView::disk()
        } else {
            crate::call::FileView::lexical()
        },
        lines: Default::default(),
    }
}

/// What self-protection guards: palisade's policy, state and binary — at the configured places
/// and at the default ones, since an override only moves where palisade looks today — and the
/// Claude Code settings that install or disable hooks, in any project.
fn protected_paths(loc: &Locations, paths: &PathResolver, env: &Environment) -> Vec<ProtectedPath> {
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
        && let Some(exe) = &env.current_exe
    {
        guard(exe.clone(), "the palisade binary", false, false);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn event(tool: &str, input: serde_json::Value) -> HookEvent {
        let e = serde_json::json!({
            "session_id": "s",
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": input,
            "cwd": "/p",
        });
        crate::event::parse_event(e.to_string().as_bytes()).unwrap()
    }

    /// Only a long input of a tool that records what it writes has its store opened ahead:
    /// a short call's thread cost more than the open it hid.
    #[test]
    fn a_store_is_opened_ahead_for_long_writing_calls_only() {
        let long = "x".repeat(OPEN_AHEAD_BYTES);
        let short = "x".repeat(2000);
        let half = "x".repeat(OPEN_AHEAD_BYTES / 2);
        for (tool, input, ahead) in [
            (
                "Write",
                serde_json::json!({"file_path": "/p/a", "content": long}),
                true,
            ),
            (
                "Write",
                serde_json::json!({"file_path": "/p/a", "content": short}),
                false,
            ),
            (
                "Edit",
                serde_json::json!({"file_path": "/p/a", "old_string": "a", "new_string": long}),
                true,
            ),
            (
                "MultiEdit",
                serde_json::json!({"file_path": "/p/a", "edits": [{"old_string": "a", "new_string": half}, {"old_string": "b", "new_string": half}]}),
                true,
            ),
            (
                "Bash",
                serde_json::json!({"command": format!("cat > f <<'EOF'\n{long}\nEOF")}),
                true,
            ),
            ("Bash", serde_json::json!({"command": "bash run.sh"}), false),
            ("Read", serde_json::json!({"file_path": long}), false),
            (
                "mcp__filesystem__write_file",
                serde_json::json!({"path": "/p/a", "content": long}),
                false,
            ),
        ] {
            assert_eq!(store_needed_early(&event(tool, input)), ahead, "{tool}");
        }
    }
}
