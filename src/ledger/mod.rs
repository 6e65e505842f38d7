//! The action ledger: per session, every file the agent wrote or changed, with the analysis of
//! its content, so that a later call that executes it is judged by what it runs.
//!
//! Decisions worth knowing:
//! - What is recorded: writes of calls that were allowed, passed *or asked* (an asked write
//!   happens once the user agrees, and an unrecorded write would escape the chain check);
//!   denied writes never. PostToolUse confirms and takes the hash and analysis from disk.
//! - What a run is judged by: the file on disk when it is there and its hash differs from the
//!   recorded one (or none was known), else the analysis stored at write time, so chains
//!   replay without the files. Downloaded content is asked about at least (remote code);
//!   content nobody could see (`python gen.py > run.sh` without the file) is asked about.
//! - A ledger store that cannot be read or parsed is an error, never an empty ledger: the hook
//!   refuses calls that write or run files (asks with `audit.on_error: ask`) and names the
//!   file; calls that neither write nor run files do not read the ledger at all.
//! - Bounds: 4096 entries and 4 MiB of excerpts per session (oldest first out; an entry
//!   without excerpt keeps its hash and analysis), files read up to 8 MiB, chains followed
//!   4 deep; ledgers of sessions untouched for 30 days are removed when a new one starts.
//!
//! Two pure-ish steps around a `Ledger` value (they read the files involved through the
//! scope's file view — the disk in the hook, `check` and `replay` — nothing else): `check` before a call (does it run something written earlier?)
//! and `record` after the verdict (what did it write?). `LedgerStore` keeps the ledger of a
//! session on disk between hook processes (SQLite, one row per path: a call reads only the
//! rows it asks for, through a partial `Ledger` view); replay keeps one in memory per case.

mod calls;
mod dirrun;
pub mod keyset;
mod latest;
pub mod limits;
mod session;
mod store;
mod taint;

pub use calls::{PreSeen, observe_post, observe_pre};
use dirrun::DirRun;
pub use session::{ExposureQuery, Opening, SessionChanges, SessionStore, SessionView};
pub use store::{LedgerError, LedgerStore, checkpoint, read_file, take_due_checkpoints};

/// How many times this thread has opened a session's store (tests count a call's opens).
#[cfg(test)]
pub(crate) fn store_opens() -> usize {
    store::OPENS.with(|n| n.get())
}

use crate::effects;
use crate::evaluate::StaticEngine;
use crate::fileops::{self, Execution};
use crate::normalize::{Call, CallKind, Scope};
use crate::policy::Policy;
use crate::scan::{self, ContentAnalysis, Finding, Language, ShellEngine};
use crate::verdict::{ChainLink, Effect, Source, Verdict};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Content up to this size is kept whole (so replay and later edits can re-analyse it).
const EXCERPT_FULL: usize = 32 * 1024;
const EXCERPT_HEAD: usize = 24 * 1024;
const EXCERPT_TAIL: usize = 8 * 1024;
/// Most entries one session keeps; the oldest go first.
pub(crate) const MAX_ENTRIES: usize = 4096;
/// Total excerpt bytes one session keeps; older entries lose their excerpt (not their
/// hash or analysis) first.
pub(crate) const EXCERPT_BUDGET: usize = 4 * 1024 * 1024;
/// Deepest chain followed: `a.sh` runs `b.sh` runs `c.py`…
const MAX_CHAIN_DEPTH: usize = 4;
/// Largest file read from disk to hash and analyse.
const MAX_READ_BYTES: u64 = 8 * 1024 * 1024;
/// Longest tool-call summary kept.
const MAX_SUMMARY: usize = 200;

/// The audit receipt of the entry that recorded a write (what `audit::append` returns).
pub use crate::audit::AppendReceipt as Receipt;

/// One file written or changed in the session, as last written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// Resolved path.
    pub path: String,
    /// sha256 of the content as written; `None` when the content is not known.
    #[serde(default)]
    pub sha256: Option<String>,
    #[serde(default)]
    pub size: Option<u64>,
    /// The tool that wrote it (`Write`, `Edit`, `Bash`…) and its call id.
    pub tool: String,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    /// The call, shortened (`Write clean.sh`, the command line of a Bash call).
    pub summary: String,
    /// How it was written: `Write`, `Edit`, `>`, `tee`, `cp`, `curl -o`, `chmod +x`…
    pub how: String,
    /// Downloaded: running it is running remote code.
    #[serde(default)]
    pub from_network: bool,
    /// Made executable (`chmod +x`, `install`).
    #[serde(default)]
    pub executable: bool,
    /// The content, whole when `excerpt_complete`, else head and tail.
    #[serde(default)]
    pub excerpt: Option<String>,
    #[serde(default)]
    pub excerpt_complete: bool,
    /// What the content would do, computed when it was written; `None` when the content is
    /// not known (`python gen.py > run.sh`, `curl -o`).
    #[serde(default)]
    pub analysis: Option<ContentAnalysis>,
    /// The audit entry of the write, for the `chain` link of a later run.
    #[serde(default)]
    pub receipt: Option<Receipt>,
    /// Milliseconds since the epoch.
    pub written_at: u64,
    /// A PostToolUse event confirmed the write and the hash was taken from disk.
    #[serde(default)]
    pub confirmed: bool,
    /// The files the content names as a diff's targets, when it reads as one (bounded,
    /// `effects::patch::targets`): what a later `git apply`/`patch` of this file writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<crate::effects::patch::Targets>,
}

#[cfg(test)]
impl LedgerEntry {
    /// A plain Write of `path` at time 1, nothing analysed: the store's and core's fixtures.
    pub(crate) fn written(path: &str, tool_use_id: Option<&str>, summary: &str) -> LedgerEntry {
        LedgerEntry {
            path: path.into(),
            sha256: None,
            size: None,
            tool: "Write".into(),
            tool_use_id: tool_use_id.map(Into::into),
            summary: summary.into(),
            how: "Write".into(),
            from_network: false,
            executable: false,
            excerpt: None,
            excerpt_complete: false,
            analysis: None,
            receipt: None,
            written_at: 1,
            confirmed: false,
            patch: None,
        }
    }
}

/// A session's ledger: the last write of every path.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    #[serde(default)]
    pub entries: BTreeMap<String, LedgerEntry>,
    /// Set on a partial view (the rows a store fetched for one call): the paths asked for and
    /// not held, so the store can fetch them and run the step again.
    #[serde(skip)]
    /// Shared by the copies of a view (a call's planned writes are judged on a copy), so a
    /// path a copy asks for is fetched too.
    misses: Option<Rc<RefCell<BTreeSet<String>>>>,
}

impl Ledger {
    /// An empty partial view that notes the paths asked for and not held.
    pub(crate) fn partial() -> Ledger {
        Ledger {
            entries: BTreeMap::new(),
            misses: Some(Rc::new(RefCell::new(BTreeSet::new()))),
        }
    }

    /// The paths asked for and not held since the last call (partial views only).
    pub(crate) fn take_misses(&self) -> BTreeSet<String> {
        self.misses
            .as_ref()
            .map(|m| std::mem::take(&mut *m.borrow_mut()))
            .unwrap_or_default()
    }

    /// The entry of a resolved path.
    pub fn get(&self, path: &Path) -> Option<&LedgerEntry> {
        let key = path.to_string_lossy();
        let found = self.entries.get(key.as_ref());
        if found.is_none()
            && let Some(m) = &self.misses
        {
            m.borrow_mut().insert(key.into_owned());
        }
        found
    }

    /// The entries of the files a run of a directory (resolved) takes. A partial view notes
    /// the run (`DirRun::key`) as asked for: the store then fetches the rows of those files,
    /// and no other row under the directory.
    pub fn files_under(&self, dir: &Path, run: &DirRun) -> Vec<&LedgerEntry> {
        let mut prefix = dir.to_string_lossy().into_owned();
        if !prefix.ends_with('/') {
            prefix.push('/');
        }
        if let Some(m) = &self.misses {
            m.borrow_mut().insert(run.key(&prefix));
        }
        self.entries
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter(|(k, _)| run.takes(&prefix, k))
            .map(|(_, e)| e)
            .collect()
    }

    fn put(&mut self, entry: LedgerEntry) {
        self.entries.insert(entry.path.clone(), entry);
    }

    /// Drops the oldest entries beyond `MAX_ENTRIES` and the oldest excerpts beyond the
    /// excerpt budget, so a long session keeps a ledger the hook can read quickly.
    pub fn enforce_bounds(&mut self) {
        let mut by_age: Vec<(u64, String)> = self
            .entries
            .values()
            .map(|e| (e.written_at, e.path.clone()))
            .collect();
        by_age.sort();
        while self.entries.len() > MAX_ENTRIES {
            let Some((_, path)) = by_age.first().cloned() else {
                break;
            };
            by_age.remove(0);
            self.entries.remove(&path);
        }
        let mut total: usize = self
            .entries
            .values()
            .filter_map(|e| e.excerpt.as_ref().map(String::len))
            .sum();
        for (_, path) in by_age {
            if total <= EXCERPT_BUDGET {
                break;
            }
            if let Some(e) = self.entries.get_mut(&path)
                && let Some(x) = e.excerpt.take()
            {
                total -= x.len();
                e.excerpt_complete = false;
            }
        }
    }
}

/// What the ledger says about one call.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerVerdict {
    /// No opinion, or an ask/deny from what the call runs (source `Ledger`).
    pub verdict: Verdict,
    /// The writes the call executes, for the audit `chain` (also in `verdict.chain`).
    pub links: Vec<ChainLink>,
}

impl Ledger {
    /// Gives the entries a call recorded (matched by `tool_use_id`, still without a receipt)
    /// the receipt of the audit entry appended for that call. Returns how many changed.
    pub fn attach_receipt(&mut self, tool_use_id: &str, receipt: &Receipt) -> usize {
        let mut n = 0;
        for e in self.entries.values_mut() {
            if e.receipt.is_none() && e.tool_use_id.as_deref() == Some(tool_use_id) {
                e.receipt = Some(receipt.clone());
                n += 1;
            }
        }
        n
    }
}

/// Who wrote: the call's identity for the entries it records.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteContext {
    pub tool_use_id: Option<String>,
    pub receipt: Option<Receipt>,
    /// Milliseconds since the epoch (passed in: the ledger reads no clock).
    pub now_ms: u64,
}

/// Whether a call may write files and whether it may execute files: the hook loads the
/// ledger only when one is true.
pub fn relevance(call: &Call) -> (bool, bool) {
    use crate::effects::Effect;
    match &call.kind {
        // A write that schedules a run (an MCP server config) is judged as that run.
        CallKind::Write { .. } => (true, !effects::file_runs(&call.effects).is_empty()),
        // Read from the effects normalize computed (the hook asks up to three times).
        CallKind::Shell { .. } => (
            call.effects.iter().any(effects::is_recorded_write),
            call.effects.iter().any(|e| {
                matches!(
                    e,
                    Effect::Execute {
                        path: Some(_),
                        run: Some(_),
                        ..
                    }
                )
            }),
        ),
        // A tool that writes several files (an MCP batch) writes what its effects say.
        _ => (call.effects.iter().any(|e| tool_write(e).is_some()), false),
    }
}

/// A write a tool's effects name outside a shell (an MCP batch's file): its path, its
/// content when known, and how.
fn tool_write(e: &effects::Effect) -> Option<(&Path, Option<&str>, &str)> {
    match e {
        effects::Effect::Write {
            path,
            content,
            how,
            shell: None,
        } => Some((path, content.as_deref(), how)),
        _ => None,
    }
}

/// The ledger rows a call is likely to read: the files it writes and the files it runs. A
/// store fetches these first; a step that asks for more gets them on a second pass.
pub fn keys(call: &Call) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    match &call.kind {
        CallKind::Write { path, .. } => out.push(path.to_string_lossy().into_owned()),
        CallKind::Shell { .. } => {
            for w in effects::shell_writes(&call.effects) {
                out.push(w.path.to_string_lossy().into_owned());
            }
            for e in effects::file_runs(&call.effects) {
                let mut key = e.path.to_string_lossy().into_owned();
                if e.directory {
                    key.push('/');
                } else {
                    // The directories an archive may have been extracted into.
                    out.extend(
                        e.path
                            .ancestors()
                            .skip(1)
                            .take(MAX_ANCESTORS)
                            .map(|a| a.to_string_lossy().into_owned()),
                    );
                }
                out.push(key);
            }
        }
        _ => out.extend(
            call.effects
                .iter()
                .filter_map(tool_write)
                .map(|(p, _, _)| p.to_string_lossy().into_owned()),
        ),
    }
    out.sort();
    out.dedup();
    out
}

/// The ledger entries of the files a call runs (for the risk backend's state: what the
/// agent wrote earlier that this call executes).
pub fn entries_run_by<'a>(ledger: &'a Ledger, call: &Call) -> Vec<&'a LedgerEntry> {
    let mut out: Vec<&LedgerEntry> = Vec::new();
    for e in effects::file_runs(&call.effects) {
        if let Some(entry) = ledger.get(&e.path)
            && !out.iter().any(|x| x.path == entry.path)
        {
            out.push(entry);
        }
    }
    out
}

/// Judges a call by the ledgered files it executes, with the static engine of `policy`
/// (`patches`: the call's `applied_patches` over this ledger, computed once per call).
pub fn check(
    ledger: &Ledger,
    call: &Call,
    scope: &Scope,
    policy: &Policy,
    patches: &[AppliedPatch],
) -> LedgerVerdict {
    let engine = StaticEngine::new(policy, scope);
    let mut v = check_planned(ledger, call, scope, &engine, patches);
    v.verdict = crate::evaluate::headless(policy, v.verdict);
    v
}

/// Records what an allowed (or asked) call writes, analysed with the static engine of
/// `policy` (`patches`: the call's `applied_patches` over this ledger, as the verdict judged
/// them, so the files recorded are the ones judged).
pub fn record(
    ledger: &mut Ledger,
    call: &Call,
    scope: &Scope,
    policy: &Policy,
    ctx: &WriteContext,
    patches: &[AppliedPatch],
) -> usize {
    let engine = StaticEngine::new(policy, scope);
    record_planned(ledger, call, scope, &engine, ctx, patches)
}

/// PostToolUse: the call ran; refreshes the entries of the files it wrote from disk.
pub fn confirm(
    ledger: &mut Ledger,
    call: &Call,
    scope: &Scope,
    policy: &Policy,
    ctx: &WriteContext,
) {
    let engine = StaticEngine::new(policy, scope);
    confirm_with(ledger, call, scope, &engine, ctx);
}

/// `check` with an explicit engine.
pub fn check_with(
    ledger: &Ledger,
    call: &Call,
    scope: &Scope,
    engine: &dyn ShellEngine,
) -> LedgerVerdict {
    check_planned(
        ledger,
        call,
        scope,
        engine,
        &applied_patches(ledger, call, scope),
    )
}

fn check_planned(
    ledger: &Ledger,
    call: &Call,
    scope: &Scope,
    engine: &dyn ShellEngine,
    patches: &[AppliedPatch],
) -> LedgerVerdict {
    let execs = expand_directories(ledger, effects::file_runs(&call.effects));
    let later = configs_running_writes(ledger, call, scope);
    if execs.is_empty() && later.is_empty() {
        return LedgerVerdict {
            verdict: Verdict::no_opinion(),
            links: Vec::new(),
        };
    }
    // Writes of this same line count (`echo … > x.sh && sh x.sh`).
    let quiet = WriteContext {
        tool_use_id: None,
        receipt: None,
        now_ms: 0,
    };
    let planned = planned_writes(ledger, call, scope, engine, &quiet, patches);
    let mut with_planned = None;
    if !planned.is_empty() {
        let mut l = ledger.clone();
        for e in planned {
            l.put(e);
        }
        with_planned = Some(l);
    }
    let base = with_planned.as_ref().unwrap_or(ledger);
    // And what the scripts it runs write (`bash gen.sh && bash out.sh`).
    let derived = derived_writes(base, call, scope, engine, &quiet);
    let overlay;
    let ledger = if derived.is_empty() {
        base
    } else {
        let mut l = base.clone();
        for e in derived {
            l.put(e);
        }
        overlay = l;
        &overlay
    };
    let mut best: Option<Judged> = None;
    let mut links: Vec<ChainLink> = Vec::new();
    for (exec, later) in execs
        .iter()
        .map(|e| (e, false))
        .chain(later.iter().map(|e| (e, true)))
    {
        let mut trail = Vec::new();
        if let Some(mut j) = judge_execution(ledger, exec, scope, engine, &mut trail, &mut links)
            && best.as_ref().is_none_or(|b| j.effect > b.effect)
        {
            if later {
                j.reason = format!("what this call writes is run by {}: {}", exec.how, j.reason);
            }
            best = Some(j);
        }
    }
    let mut verdict = match best {
        Some(j) => Verdict::decided(j.effect, j.rule, j.category, j.reason, Source::Ledger),
        None => Verdict::no_opinion(),
    };
    verdict.chain = links.clone();
    LedgerVerdict { verdict, links }
}

/// The files that name commands run with no command of the agent's (`effects::deferred_runs`:
/// MCP server configs, VS Code settings, dev container definitions), by name wherever they
/// are; rows of other files of these names are fetched too and skipped by language.
fn deferred_configs() -> DirRun<'static> {
    DirRun {
        names: vec![
            ".mcp.json",
            ".claude.json",
            "mcp.json",
            "settings.json",
            "devcontainer.json",
            ".devcontainer.json",
            "mcp_config.json",
            "claude_desktop_config.json",
            "cline_mcp_settings.json",
            "config.yaml",
            "config.yml",
            "config.toml",
        ],
        suffixes: vec![".code-workspace"],
        affixes: Vec::new(),
        direct: false,
        skip: None,
    }
}

/// The view's key of the session's deferred configs, fetched with the rows of a call that
/// writes (`keys_before`), so the check needs no second pass.
fn deferred_configs_key() -> String {
    deferred_configs().key("/")
}

/// The ledger rows a call is likely to read before it runs: `keys`, and for a call that writes,
/// the session's deferred configs (`configs_running_writes`).
pub fn keys_before(call: &Call) -> Vec<String> {
    let mut out = keys(call);
    if relevance(call).0 {
        out.push(deferred_configs_key());
    }
    out
}

/// Runs of configs the session wrote earlier that run a file this call writes: `.mcp.json`
/// naming `./srv.sh`, then `srv.sh` written. Nothing of the agent's runs the file later (an
/// agent starts its servers, an editor its tools), so the write is judged as that run, as
/// writing the config after the file is (`effects::deferred_runs`). Only the configs' rows are
/// read (by name, `deferred_configs`), and their commands only when the call writes.
fn configs_running_writes(ledger: &Ledger, call: &Call, scope: &Scope) -> Vec<Execution> {
    let written: Vec<&Path> = call
        .effects
        .iter()
        .filter_map(|e| match e {
            effects::Effect::Write { path, .. } => Some(path.as_path()),
            _ => None,
        })
        .collect();
    if written.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for entry in ledger.files_under(Path::new("/"), &deferred_configs()) {
        let path = PathBuf::from(&entry.path);
        let language = scan::detect(&path, "");
        let Some(runner) = effects::deferred_runner(language) else {
            continue;
        };
        // Written again by this call: its own deferred run judges it.
        if written.contains(&path.as_path()) {
            continue;
        }
        let text = read_text(scope, &path)
            .or_else(|| entry.excerpt.clone().filter(|_| entry.excerpt_complete));
        let Some(text) = text else {
            continue;
        };
        let runs_written = scan::command_lines(language, &text, &[], &[])
            .iter()
            .any(|line| {
                effects::file_runs(&shell_call(line, scope).effects)
                    .iter()
                    .any(|r| written.contains(&r.path.as_path()))
            });
        if runs_written {
            out.push(Execution {
                path,
                how: runner.into(),
                command: 0,
                language: Some(language),
                sections: Vec::new(),
                defines: Vec::new(),
                directory: false,
                looked_up: false,
                args: Vec::new(),
            });
        }
    }
    out
}

/// Runs of a directory become runs of each ledgered file under it that the runner takes
/// (`DirRun::of`: a CI system reads the directory's YAML files, pytest collects `conftest.py`
/// and test modules at any depth, `go test ./...` the `.go` files outside `testdata`).
fn expand_directories(ledger: &Ledger, execs: Vec<fileops::Execution>) -> Vec<fileops::Execution> {
    let mut out = Vec::with_capacity(execs.len());
    for e in execs {
        if !e.directory {
            out.push(e);
            continue;
        }
        let Some(run) = DirRun::of(e.language) else {
            continue;
        };
        for entry in ledger.files_under(&e.path, &run) {
            out.push(fileops::Execution {
                path: PathBuf::from(&entry.path),
                directory: false,
                ..e.clone()
            });
        }
    }
    out
}

/// One judged execution, before it becomes a verdict.
struct Judged {
    effect: Effect,
    rule: String,
    category: String,
    reason: String,
}

fn judge_execution(
    ledger: &Ledger,
    exec: &Execution,
    scope: &Scope,
    engine: &dyn ShellEngine,
    trail: &mut Vec<PathBuf>,
    links: &mut Vec<ChainLink>,
) -> Option<Judged> {
    if trail.len() >= MAX_CHAIN_DEPTH || trail.contains(&exec.path) {
        return None;
    }
    let extracted;
    let entry = match ledger.get(&exec.path) {
        Some(e) => e,
        None => {
            extracted = downloaded_into(ledger, &exec.path, scope)?;
            &extracted
        }
    };
    if let Some(r) = &entry.receipt {
        let link = ChainLink {
            path: entry.path.clone(),
            seq: r.seq,
            hash: r.hash.clone(),
        };
        if !links.contains(&link) {
            links.push(link);
        }
    }
    let disp = display(&exec.path, scope);
    let origin = if entry.from_network {
        format!("downloaded earlier in this session (`{}`)", entry.how)
    } else {
        format!("written earlier in this session ({})", entry.how)
    };

    // The content as it is now: from disk when the file is there, else as recorded.
    let on_disk = read_text(scope, &exec.path);
    let changed = match (&on_disk, &entry.sha256) {
        (Some(d), Some(h)) => &sha256_hex(d.as_bytes()) != h,
        (Some(_), None) => true,
        (None, _) => false,
    };
    let text: Option<String> = match &on_disk {
        Some(d) => Some(d.clone()),
        None if entry.excerpt_complete => entry.excerpt.clone(),
        None => None,
    };
    let want = run_language(exec, entry, text.as_deref());
    // The arguments the run gives, put in where the script reads them (`python3 x.py ~` of
    // `shutil.rmtree(sys.argv[1])`, `bash x.sh build` of `rm -rf "$1"`).
    let given = text.as_deref().and_then(|t| {
        awk_program(exec, t)
            .or_else(|| command_file(exec, t))
            .or_else(|| with_args(want, t, &exec.args))
    });
    let with_given = given.is_some();
    let text = given.or(text);
    let sections = run_sections(exec, want, text.as_deref());
    let analysis: Option<ContentAnalysis> = match (&text, &entry.analysis) {
        (Some(_), Some(a))
            if !changed && !with_given && a.language == want && exec.defines.is_empty() =>
        {
            Some(a.clone())
        }
        (Some(t), _) => Some(scan::analyse_run(want, t, &exec.defines, engine)),
        (None, Some(a)) => Some(a.clone()),
        (None, None) => None,
    };
    let changed_note = if changed && on_disk.is_some() && entry.sha256.is_some() {
        " (changed on disk since; analysed as it is now)"
    } else {
        ""
    };

    let mut best: Option<Judged> = None;
    let consider = |j: Judged, best: &mut Option<Judged>| {
        if best.as_ref().is_none_or(|b| j.effect > b.effect) {
            *best = Some(j);
        }
    };
    match &analysis {
        None => consider(
            Judged {
                effect: Effect::Ask,
                rule: if entry.from_network {
                    "ledger/remote-code".into()
                } else {
                    "ledger/unknown-content".into()
                },
                category: if entry.from_network {
                    "remote-code".into()
                } else {
                    "write-then-run".into()
                },
                reason: format!(
                    "runs {disp}, {origin}, whose content palisade could not see{}",
                    if entry.from_network {
                        ": remote code must be confirmed"
                    } else {
                        ""
                    }
                ),
            },
            &mut best,
        ),
        Some(a) => {
            if entry.from_network {
                consider(
                    Judged {
                        effect: Effect::Ask,
                        rule: "ledger/remote-code".into(),
                        category: "remote-code".into(),
                        reason: format!("runs {disp}, {origin}: remote code must be confirmed"),
                    },
                    &mut best,
                );
            }
            if let Some(f) = a.worst(&sections) {
                consider(
                    Judged {
                        effect: f.effect,
                        rule: format!("ledger/{}", f.rule),
                        category: f
                            .rule
                            .split('/')
                            .next()
                            .unwrap_or("write-then-run")
                            .to_string(),
                        reason: format!(
                            "runs {disp}, {origin}{changed_note}, {}",
                            describe(f, a.language)
                        ),
                    },
                    &mut best,
                );
            }
        }
    }

    // What the file runs in turn, when it is a script of commands.
    if let Some(t) = &text {
        trail.push(exec.path.clone());
        for line in scan::command_lines(want, t, &sections, &exec.defines) {
            let runs = effects::file_runs(&shell_call(&line, scope).effects);
            for e in expand_directories(ledger, runs) {
                if let Some(j) = judge_execution(ledger, &e, scope, engine, trail, links) {
                    consider(
                        Judged {
                            reason: format!("runs {disp}, which {}", j.reason),
                            ..j
                        },
                        &mut best,
                    );
                }
            }
        }
        // The modules it loads from beside it (`import helper`, `require('./lib')`), each
        // judged as run when the session wrote it.
        for module in scan::local_modules(want, &exec.path, t) {
            let path = scope.resolve(&module.to_string_lossy());
            if path == exec.path {
                continue;
            }
            let load = fileops::Execution {
                path,
                how: format!("loaded by {disp}"),
                language: Some(want),
                sections: Vec::new(),
                defines: Vec::new(),
                directory: false,
                looked_up: true,
                command: exec.command,
                args: Vec::new(),
            };
            if let Some(j) = judge_execution(ledger, &load, scope, engine, trail, links) {
                consider(
                    Judged {
                        reason: format!(
                            "runs {disp}, which loads {}",
                            j.reason.trim_start_matches("runs ")
                        ),
                        ..j
                    },
                    &mut best,
                );
            }
        }
        trail.pop();
    }
    best
}

/// An awk program file (`awk -f prog.awk`) as the command line that gives awk the same text
/// inline, which the shell analysis reads (its `system()`, pipes into commands, redirects).
fn awk_program(exec: &Execution, text: &str) -> Option<String> {
    (exec.how == fileops::AWK_PROGRAM)
        .then(|| format!("awk {}", crate::shell::indirect::shell_word(text)))
}

/// A file of a program's own commands (`gdb -x`, `vim -S`, `expect FILE`) as the shell
/// commands it runs, one a line; an empty script when it runs none, so the program's own
/// language is never read as shell.
fn command_file(exec: &Execution, text: &str) -> Option<String> {
    crate::vocab::file_commands(&exec.how, text).map(|commands| commands.join("\n"))
}

/// A script's text with the arguments of its run put in, when it reads them and they are
/// known: a shell script gets them as its positional parameters (`set --` before its first
/// line, which keeps the lines' numbers), another language where it reads its argument list.
fn with_args(language: Language, text: &str, args: &[Option<String>]) -> Option<String> {
    if args.is_empty() {
        return None;
    }
    if language == Language::Shell {
        let known: Option<Vec<&str>> = args.iter().map(Option::as_deref).collect();
        // A leading `~` was the home directory when the caller's shell expanded it: left
        // unquoted, so it still is.
        let quote = |a: &str| format!("'{}'", a.replace('\'', "'\\''"));
        let quoted: Vec<String> = known?
            .iter()
            .map(|a| match a.strip_prefix('~') {
                Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                    format!(
                        "~{}",
                        if rest.is_empty() {
                            String::new()
                        } else {
                            quote(rest)
                        }
                    )
                }
                _ => quote(a),
            })
            .collect();
        return Some(format!("set -- {}; {text}", quoted.join(" ")));
    }
    let inputs = crate::vocab::ProgramInputs {
        args: args.to_vec(),
        env: Vec::new(),
        stdin: false,
    };
    match scan::with_inputs(language, text, &inputs) {
        std::borrow::Cow::Owned(t) => Some(t),
        std::borrow::Cow::Borrowed(_) => None,
    }
}

/// A file the session did not write that lies under a directory it filled from the network:
/// a downloaded archive extracted there (`curl -o t.tgz URL`, then `tar xzf t.tgz`, then
/// `./t/install.sh`), release assets or a bucket copied into it (`gh release download -D`,
/// `aws s3 sync`). It is the download's own file, with no content known. A file on disk that
/// has not changed since the directory was filled is the directory's own, not the download's.
fn downloaded_into(ledger: &Ledger, path: &Path, scope: &Scope) -> Option<LedgerEntry> {
    // Only a directory has files under it: a downloaded file's entry never matches here.
    let dir = path
        .ancestors()
        .skip(1)
        .take(MAX_ANCESTORS)
        .filter_map(|a| ledger.get(a))
        .find(|e| e.from_network)?;
    // A second of slack: a file system's change times may be coarser than the clock.
    let before = dir.written_at.saturating_sub(1000);
    if scope.files.changed_at(path).is_some_and(|t| t < before) {
        return None;
    }
    Some(LedgerEntry {
        path: path.to_string_lossy().into_owned(),
        sha256: None,
        size: None,
        excerpt: None,
        excerpt_complete: false,
        analysis: None,
        executable: false,
        confirmed: false,
        patch: None,
        ..dir.clone()
    })
}

/// Deepest directory above a file looked at for a download it came in (`keys` fetches the
/// same ones for a run).
const MAX_ANCESTORS: usize = 16;

/// The language a run executes a file as: what the runner forces (`bash f`), else what the
/// file is; a file of no known language run directly is run by the shell.
fn run_language(exec: &Execution, entry: &LedgerEntry, text: Option<&str>) -> Language {
    exec.language
        .unwrap_or(match entry.analysis.as_ref().map(|a| a.language) {
            Some(Language::Other) | None => text
                .map(|t| scan::detect(&exec.path, t))
                .map(|l| {
                    if l == Language::Other {
                        Language::Shell
                    } else {
                        l
                    }
                })
                .unwrap_or(Language::Shell),
            Some(l) => l,
        })
}

/// The parts of a file a run executes: npm scripts as named, Makefile targets as make
/// would build them (goals and their prerequisites; all targets when the text is not known).
fn run_sections(exec: &Execution, language: Language, text: Option<&str>) -> Vec<String> {
    match (language, text) {
        (Language::Make, Some(t)) => scan::make_targets(t, &exec.sections, &exec.defines),
        (Language::Make, None) => Vec::new(),
        _ => exec.sections.clone(),
    }
}

/// A Bash call for one command line of a script, normalised like any call: its effects are
/// computed once per call (`Scope::lines`: the verdict, the record and each pass over the
/// store read the same script), and the ledger reads its writes and runs from them.
fn shell_call(line: &str, scope: &Scope) -> std::rc::Rc<Call> {
    scope.lines.get_or(line, || {
        let input = serde_json::json!({ "command": line });
        let kind = CallKind::Shell {
            analysis: crate::shell::analyse(line),
            command: line.to_string(),
        };
        let effects = effects::of_call("Bash", &input, &kind, scope);
        std::rc::Rc::new(Call {
            tool: "Bash".into(),
            input: input.into(),
            kind,
            effects,
        })
    })
}

/// Files written by the ledgered scripts a call runs: a script that writes another file is
/// recorded as its writer (`bash a.sh`, where `a.sh` holds `cat > b.sh <<EOF`), so running
/// that file later is judged too. The command lines the file runs are read with the shell
/// analysis (content known where it is literal); programs also give the paths they write
/// literally, with content unknown.
fn derived_writes(
    ledger: &Ledger,
    call: &Call,
    scope: &Scope,
    engine: &dyn ShellEngine,
    ctx: &WriteContext,
) -> Vec<LedgerEntry> {
    let mut out = Vec::new();
    for exec in effects::file_runs(&call.effects) {
        let Some(entry) = ledger.get(&exec.path) else {
            continue;
        };
        let text = match read_text(scope, &exec.path) {
            Some(t) => t,
            None if entry.excerpt_complete => entry.excerpt.clone().unwrap_or_default(),
            None => continue,
        };
        let by = display(&exec.path, scope);
        let lang = run_language(&exec, entry, Some(&text));
        let sections = run_sections(&exec, lang, Some(&text));
        for line in scan::command_lines(lang, &text, &sections, &exec.defines) {
            let run = shell_call(&line, scope);
            let patches = applied_patches(ledger, &run, scope);
            for mut e in planned_writes(ledger, &run, scope, engine, ctx, &patches) {
                e.how = format!("{} in {by}", e.how);
                e.tool = call.tool.clone();
                e.summary = summary(call);
                out.push(e);
            }
        }
        if matches!(
            lang,
            Language::Shell | Language::Make | Language::PackageJson
        ) {
            continue;
        }
        // A program's calls on literal paths, as the shell commands with the same changes
        // (the lines it runs were read above).
        for change in scan::changes(lang, &text).iter().filter(|c| !c.runs) {
            let mut standin = Call::clone(&shell_call(&change.line, scope));
            if !change.content {
                effects::forget_content(&mut standin.effects);
            }
            let patches = applied_patches(ledger, &standin, scope);
            for mut e in planned_writes(ledger, &standin, scope, engine, ctx, &patches) {
                e.how = format!("written by {by}");
                e.tool = call.tool.clone();
                e.summary = summary(call);
                out.push(e);
            }
        }
    }
    out
}

/// "whose line 2 `rm -rf "$HOME"` is refused: <reason>".
fn describe(f: &Finding, language: Language) -> String {
    let verb = match f.effect {
        Effect::Deny => "is refused",
        _ => "needs confirmation",
    };
    let part = match language {
        Language::Make => "target",
        Language::Ansible => "task",
        _ => "script",
    };
    let place = match (&f.section, f.line) {
        (Some(s), Some(n)) => format!("whose {part} `{s}` (line {n}) `{}`", f.text),
        (Some(s), None) => format!("whose {part} `{s}` `{}`", f.text),
        (None, Some(n)) if !f.text.is_empty() => format!("whose line {n} `{}`", f.text),
        (None, Some(n)) => format!("whose line {n}"),
        (None, None) => "whose content".to_string(),
    };
    format!("{place} {verb}: {}", f.reason)
}

/// A path as the reader knows it: relative to the working directory when inside it.
fn display(path: &Path, scope: &Scope) -> String {
    match path.strip_prefix(&scope.paths.cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => path.to_string_lossy().into_owned(),
    }
}

/// `record` with an explicit engine.
pub fn record_with(
    ledger: &mut Ledger,
    call: &Call,
    scope: &Scope,
    engine: &dyn ShellEngine,
    ctx: &WriteContext,
) -> usize {
    let patches = applied_patches(ledger, call, scope);
    record_planned(ledger, call, scope, engine, ctx, &patches)
}

fn record_planned(
    ledger: &mut Ledger,
    call: &Call,
    scope: &Scope,
    engine: &dyn ShellEngine,
    ctx: &WriteContext,
    patches: &[AppliedPatch],
) -> usize {
    let mut n = 0;
    for e in planned_writes(ledger, call, scope, engine, ctx, patches) {
        ledger.put(e);
        n += 1;
    }
    for e in derived_writes(ledger, call, scope, engine, ctx) {
        ledger.put(e);
        n += 1;
    }
    n
}

/// `confirm` with an explicit engine.
pub fn confirm_with(
    ledger: &mut Ledger,
    call: &Call,
    scope: &Scope,
    engine: &dyn ShellEngine,
    ctx: &WriteContext,
) {
    let patches = applied_patches(ledger, call, scope);
    let planned = planned_writes(ledger, call, scope, engine, ctx, &patches);
    for mut e in planned {
        let path = PathBuf::from(&e.path);
        if let Some(text) = read_text(scope, &path) {
            let previous = ledger.get(&path).cloned();
            let mut fresh = entry_from_text(&path, &text, &e, engine);
            if let Some(p) = previous {
                fresh.receipt = p.receipt.or(fresh.receipt);
                fresh.from_network |= p.from_network;
                fresh.executable |= p.executable;
            }
            fresh.confirmed = true;
            e = fresh;
        }
        ledger.put(e);
    }
}

/// The entries a call would record, without changing the ledger (`patches`: the call's
/// `applied_patches` over this ledger).
fn planned_writes(
    ledger: &Ledger,
    call: &Call,
    scope: &Scope,
    engine: &dyn ShellEngine,
    ctx: &WriteContext,
    patches: &[AppliedPatch],
) -> Vec<LedgerEntry> {
    let base = |path: &Path, how: &str| LedgerEntry {
        path: path.to_string_lossy().into_owned(),
        sha256: None,
        size: None,
        tool: call.tool.clone(),
        tool_use_id: ctx.tool_use_id.clone(),
        summary: summary(call),
        how: how.to_string(),
        from_network: false,
        executable: false,
        excerpt: None,
        excerpt_complete: false,
        analysis: None,
        receipt: ctx.receipt.clone(),
        written_at: ctx.now_ms,
        confirmed: false,
        patch: None,
    };
    let mut out: Vec<LedgerEntry> = Vec::new();
    match &call.kind {
        CallKind::Write { path, content } => {
            let seed = base(path, &call.tool);
            let input = &call.input;
            match call.tool.as_str() {
                "Write" => {
                    let text = input
                        .get("content")
                        .and_then(Value::as_str)
                        .or(content.as_deref())
                        .unwrap_or("");
                    out.push(entry_from_text(path, text, &seed, engine));
                }
                // An MCP edit tool (`edit_file`, `edit_block`) replaces text like `Edit`: the
                // file's known content is edited, not replaced by the new text alone.
                tool if tool == "Edit" || tool == "MultiEdit" || is_mcp_edit(call) => {
                    let edits: Vec<(String, String, bool)> = if input.get("edits").is_none() {
                        vec![edit_of(input)]
                    } else {
                        input
                            .get("edits")
                            .and_then(Value::as_array)
                            .map(|a| a.iter().map(edit_of).collect())
                            .unwrap_or_default()
                    };
                    match current_text(ledger, scope, path) {
                        Some(mut text) => {
                            for (old, new, all) in &edits {
                                text = apply_edit(&text, old, new, *all);
                            }
                            let mut e = entry_from_text(path, &text, &seed, engine);
                            if let Some(prev) = ledger.get(path) {
                                e.from_network = prev.from_network;
                                e.executable = prev.executable;
                            }
                            out.push(e);
                        }
                        None => {
                            // The file as a whole is unknown: judge the new text, and keep
                            // what was known before.
                            let new_text: Vec<&str> =
                                edits.iter().map(|(_, n, _)| n.as_str()).collect();
                            let joined = new_text.join("\n");
                            let mut e = seed;
                            let lang = scan::detect(path, &joined);
                            let mut analysis = scan::analyse(lang, &joined, engine);
                            if let Some(prev) = ledger.get(path) {
                                if let Some(pa) = &prev.analysis {
                                    analysis.findings.extend(pa.findings.iter().cloned());
                                }
                                e.from_network = prev.from_network;
                                e.executable = prev.executable;
                            }
                            e.analysis = Some(analysis);
                            out.push(e);
                        }
                    }
                }
                "NotebookEdit" => {
                    let is_code =
                        input.get("cell_type").and_then(Value::as_str) != Some("markdown");
                    if let Some(src) = input
                        .get("new_source")
                        .and_then(Value::as_str)
                        .filter(|_| is_code)
                    {
                        let mut e = seed;
                        e.analysis = Some(scan::analyse(Language::Python, src, engine));
                        out.push(e);
                    }
                }
                _ => {
                    if let Some(text) = content {
                        out.push(entry_from_text(path, text, &seed, engine));
                    }
                }
            }
        }
        CallKind::Shell { analysis, .. } => {
            // A build's output, by path: its index in `out`, where each further source of
            // the same build adds its findings.
            let mut built: BTreeMap<PathBuf, usize> = BTreeMap::new();
            for w in effects::shell_writes(&call.effects) {
                let known = |p: &Path, out: &Vec<LedgerEntry>| -> Option<LedgerEntry> {
                    let key = p.to_string_lossy();
                    out.iter()
                        .rev()
                        .find(|e| e.path == key)
                        .cloned()
                        .or_else(|| ledger.get(p).cloned())
                };
                let mut seed = base(w.path, w.how);
                seed.from_network = w.from_network;
                // An archive from a download extracted into a directory: what lands there is
                // remote code (`downloaded_into`). A later extraction of another archive
                // into it does not make the download's files seen.
                if matches!(w.how, "tar -x" | "unzip") {
                    // The archive, or a directory it came in (`gh release download -D`).
                    let from_download =
                        fileops::extracts_download(analysis, w.command, scope, |a| {
                            a.ancestors()
                                .take(MAX_ANCESTORS + 1)
                                .any(|p| known(p, &out).is_some_and(|e| e.from_network))
                        });
                    if from_download {
                        let c = &analysis.commands[w.command];
                        seed.from_network = true;
                        seed.how = match fileops::extracted_archive(c) {
                            Some(a) => format!(
                                "{} {}",
                                w.how,
                                display(&fileops::resolve_for(scope, c, a), scope)
                            ),
                            None => format!("{} of a download", w.how),
                        };
                    } else if known(w.path, &out).is_some_and(|e| e.from_network) {
                        continue;
                    }
                }
                match w.how {
                    "chmod +x" => {
                        // A file a download brought stays the download's when made runnable.
                        if let Some(mut e) =
                            known(w.path, &out).or_else(|| downloaded_into(ledger, w.path, scope))
                        {
                            e.executable = true;
                            out.push(e);
                        } else if let Some(text) = read_text(scope, w.path) {
                            let mut e = entry_from_text(w.path, &text, &seed, engine);
                            e.executable = true;
                            out.push(e);
                        }
                    }
                    "patch" => match &w.source {
                        Some(patch) => {
                            // The session's patch file: what the verdict judged. One this
                            // line wrote before applying it, or one the session did not
                            // write (read where it is), is read here.
                            let key = patch.to_string_lossy();
                            let judged = patches
                                .iter()
                                .find(|a| a.command == w.command && a.source == *patch)
                                .filter(|_| !out.iter().any(|e| e.path == key));
                            let files = match judged {
                                Some(a) => a.files(),
                                None => {
                                    let prior = known(patch, &out);
                                    prior
                                        .as_ref()
                                        .and_then(|e| e.patch.clone())
                                        .or_else(|| {
                                            prior
                                                .filter(|e| e.excerpt_complete)
                                                .and_then(|e| e.excerpt)
                                                .or_else(|| read_text(scope, patch))
                                                .map(|t| effects::patch::targets(&t))
                                        })
                                        .map(|t| {
                                            let c = &analysis.commands[w.command];
                                            patch_files(&effects::patch::file_effects(
                                                c, w.command, scope, &t,
                                            ))
                                        })
                                        .unwrap_or_default()
                                }
                            };
                            for target in files {
                                out.push(base(&target, "patch"));
                            }
                        }
                        None => out.push(seed),
                    },
                    _ => {
                        // A copy or link of a program the session did not write (`ln -s
                        // /usr/bin/python3 .venv/bin/python`) is not agent-written code.
                        if w.content.is_none()
                            && let Some(src) = &w.source
                            && known(src, &out).is_none()
                            && scope.files.is_binary(src)
                        {
                            continue;
                        }
                        let prior = known(w.path, &out);
                        let entry = match (&w.content, &w.source) {
                            (Some(c), _) if w.append => {
                                let before = prior
                                    .as_ref()
                                    .filter(|e| e.excerpt_complete)
                                    .and_then(|e| e.excerpt.clone())
                                    .or_else(|| read_text(scope, w.path));
                                match before {
                                    Some(b) => entry_from_text(w.path, &(b + c), &seed, engine),
                                    // Appending to a file that is neither on disk nor in the
                                    // ledger creates it: the text is the whole file.
                                    None if prior.is_none() => {
                                        entry_from_text(w.path, c, &seed, engine)
                                    }
                                    None => {
                                        let mut e = seed;
                                        let mut a =
                                            scan::analyse(scan::detect(w.path, c), c, engine);
                                        if let Some(pa) =
                                            prior.as_ref().and_then(|p| p.analysis.as_ref())
                                        {
                                            a.findings.extend(pa.findings.iter().cloned());
                                        }
                                        e.analysis = Some(a);
                                        e
                                    }
                                }
                            }
                            (Some(c), _) => entry_from_text(w.path, c, &seed, engine),
                            (None, Some(src)) => match known(src, &out) {
                                Some(src_entry) => LedgerEntry {
                                    path: seed.path.clone(),
                                    how: format!("{} {}", w.how, display(src, scope)),
                                    tool: seed.tool.clone(),
                                    tool_use_id: seed.tool_use_id.clone(),
                                    summary: seed.summary.clone(),
                                    receipt: seed.receipt.clone(),
                                    written_at: seed.written_at,
                                    executable: w.how == "install",
                                    confirmed: false,
                                    from_network: src_entry.from_network || w.from_network,
                                    ..src_entry
                                },
                                None => match read_text(scope, src) {
                                    Some(text) => entry_from_text(w.path, &text, &seed, engine),
                                    None => seed,
                                },
                            },
                            (None, None) => seed,
                        };
                        let mut entry = entry;
                        if fileops::is_build(w.how) {
                            if let Some(src) = w.source {
                                built_from_package(&mut entry, ledger, src, w.how, scope);
                            }
                            // No source the session wrote or that can be read: nothing known
                            // of what the output does.
                            let Some(found) = entry.analysis.clone() else {
                                continue;
                            };
                            entry.executable = true;
                            if let Some(&at) = built.get(w.path) {
                                let earlier = &mut out[at];
                                match &mut earlier.analysis {
                                    Some(a) => a.findings.extend(found.findings),
                                    None => earlier.analysis = Some(found),
                                }
                                let source = w.source.map(|s| display(s, scope));
                                earlier.how =
                                    format!("{} {}", earlier.how, source.unwrap_or_default());
                                continue;
                            }
                            built.insert(w.path.to_path_buf(), out.len());
                            out.push(entry);
                            continue;
                        }
                        if w.append
                            && let Some(p) = &prior
                        {
                            entry.from_network |= p.from_network;
                        }
                        if let Some(p) = &prior {
                            entry.executable |= p.executable;
                        }
                        entry.executable |= w.how == "install";
                        out.push(entry);
                    }
                }
            }
        }
        // A tool that writes several files (an MCP batch): each write its effects name.
        _ => {
            for (path, content, how) in call.effects.iter().filter_map(tool_write) {
                let seed = base(path, how);
                out.push(match content {
                    Some(text) => entry_from_text(path, text, &seed, engine),
                    None => seed,
                });
            }
        }
    }
    out
}

/// `go build` of a package: the output does what the session's Go files of its directory
/// do (a source that is a `.go` file is a copy's source, already read).
fn built_from_package(
    entry: &mut LedgerEntry,
    ledger: &Ledger,
    src: &Path,
    how: &str,
    scope: &Scope,
) {
    if how != "go build" || src.extension().is_some_and(|e| e == "go") {
        return;
    }
    let Some(run) = DirRun::of(Some(Language::Go)) else {
        return;
    };
    let files = ledger.files_under(src, &run);
    let mut findings: Vec<Finding> = files
        .iter()
        .filter_map(|e| e.analysis.as_ref())
        .flat_map(|a| a.findings.iter().cloned())
        .collect();
    if files.is_empty() {
        return;
    }
    match &mut entry.analysis {
        Some(a) => a.findings.append(&mut findings),
        None => {
            entry.analysis = Some(ContentAnalysis {
                language: Language::Go,
                findings,
            })
        }
    }
    entry.how = format!("go build {}", display(src, scope));
}

fn edit_of(v: &Value) -> (String, String, bool) {
    let s = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str))
            .unwrap_or("")
            .to_string()
    };
    (
        s(&["old_string", "oldText", "old_text", "old_str"]),
        s(&["new_string", "newText", "new_text", "new_str"]),
        v.get("replace_all")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    )
}

/// An MCP tool that writes by replacing text (`edits: [{oldText, newText}]`, `old_string`).
fn is_mcp_edit(call: &Call) -> bool {
    call.tool.starts_with("mcp__")
        && (call.input.get("edits").is_some_and(Value::is_array)
            || ["old_string", "oldText", "old_text", "old_str"]
                .iter()
                .any(|k| call.input.get(*k).is_some()))
}

/// The text after one Edit: the first (or every) `old` replaced; unchanged when `old` does
/// not occur (the tool would fail). An empty `old` on an empty file creates it.
fn apply_edit(text: &str, old: &str, new: &str, all: bool) -> String {
    if old.is_empty() {
        return if text.is_empty() {
            new.to_string()
        } else {
            text.to_string()
        };
    }
    if all {
        text.replace(old, new)
    } else {
        text.replacen(old, new, 1)
    }
}

/// A patch file a shell call applies whose diff the session's ledger knows (a file the
/// session wrote, `LedgerEntry::patch`), with the writes of the command that applies it.
/// Computed once per call (`applied_patches`): the verdict judges these writes and the ledger
/// records their files, so what is recorded is what was judged.
#[derive(Debug, Clone, PartialEq)]
pub struct AppliedPatch {
    /// The applying command's index in the line.
    pub command: usize,
    /// The patch file, resolved.
    pub source: PathBuf,
    /// What the command writes applying it, as `effects::patch::file_effects` reads the
    /// line (its `-p`, `--directory` and work tree); for a diff too long to read, also the
    /// directory the rest lands under (`effects::PATCH_DIR`).
    pub writes: Vec<effects::Effect>,
}

impl AppliedPatch {
    /// The files it writes: not the directory of an over-long diff's rest, which is no file.
    pub fn files(&self) -> Vec<PathBuf> {
        patch_files(&self.writes)
    }
}

/// The patch files `call` applies that `ledger` knows the diff of, each with its command's
/// writes. Pure: the ledger's rows and the scope's path resolution, no file read.
pub fn applied_patches(ledger: &Ledger, call: &Call, scope: &Scope) -> Vec<AppliedPatch> {
    let CallKind::Shell { analysis, .. } = &call.kind else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in &call.effects {
        let effects::Effect::Write {
            how,
            shell: Some(w),
            ..
        } = e
        else {
            continue;
        };
        let (Some(src), Some(c)) = (&w.source, analysis.commands.get(w.command)) else {
            continue;
        };
        if how != "patch" {
            continue;
        }
        let Some(targets) = ledger.get(src).and_then(|e| e.patch.as_ref()) else {
            continue;
        };
        out.push(AppliedPatch {
            command: w.command,
            source: src.clone(),
            writes: effects::patch::file_effects(c, w.command, scope, targets),
        });
    }
    out
}

/// The files among a patching command's writes.
fn patch_files(writes: &[effects::Effect]) -> Vec<PathBuf> {
    writes
        .iter()
        .filter_map(|fx| match fx {
            effects::Effect::Write { path, how, .. } if how != effects::PATCH_DIR => {
                Some(path.clone())
            }
            _ => None,
        })
        .collect()
}

/// The text of a file now: from disk when it exists, else the complete excerpt the ledger holds.
fn current_text(ledger: &Ledger, scope: &Scope, path: &Path) -> Option<String> {
    read_text(scope, path).or_else(|| {
        ledger
            .get(path)
            .filter(|e| e.excerpt_complete)
            .and_then(|e| e.excerpt.clone())
    })
}

/// A file's text as the scope's file view has it: a regular file's text when it exists, is
/// UTF-8 (lossily) and not over the read cap.
fn read_text(scope: &Scope, path: &Path) -> Option<String> {
    scope.files.text(path, MAX_READ_BYTES)
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// An entry for known content: hash, size, excerpt and analysis.
fn entry_from_text(
    path: &Path,
    text: &str,
    seed: &LedgerEntry,
    engine: &dyn ShellEngine,
) -> LedgerEntry {
    let (excerpt, complete) = excerpt_of(text);
    LedgerEntry {
        sha256: Some(sha256_hex(text.as_bytes())),
        size: Some(text.len() as u64),
        excerpt: Some(excerpt),
        excerpt_complete: complete,
        analysis: Some(scan::analyse(scan::detect(path, text), text, engine)),
        // Only the session's own files are known: a diff it wrote is judged when applied.
        patch: Some(crate::effects::patch::targets(text)).filter(|t| !t.names.is_empty()),
        ..seed.clone()
    }
}

fn excerpt_of(text: &str) -> (String, bool) {
    if text.len() <= EXCERPT_FULL {
        return (text.to_string(), true);
    }
    let mut head = EXCERPT_HEAD;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - EXCERPT_TAIL;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    (format!("{}\n[…]\n{}", &text[..head], &text[tail..]), false)
}

fn summary(call: &Call) -> String {
    // Borrowed: a here-document's command is a long text, of which the summary keeps a line.
    let s: std::borrow::Cow<'_, str> = match &call.kind {
        CallKind::Shell { command, .. } => command.into(),
        CallKind::Write { path, .. } => format!("{} {}", call.tool, path.display()).into(),
        _ => call.tool.as_str().into(),
    };
    scan::shorten(&s).chars().take(MAX_SUMMARY).collect()
}

#[cfg(test)]
mod tests;
