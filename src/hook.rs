//! `palisade hook`: one event on stdin, one answer in Claude Code's protocol. Every failure
//! ends in a deny with exit 2 and a reason; nothing but the one JSON object goes to stdout.

use crate::event::{self, HookEvent};
use crate::locations::Locations;
use crate::normalize::{self, ProtectedPath, Scope};
use crate::paths::PathResolver;
use crate::policy::{self, Policy};
use crate::verdict::{Effect, Verdict};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Internal deadline for one hook call, well under the `timeout` `palisade init` sets (30 s).
pub const DEADLINE: Duration = Duration::from_secs(10);

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
}

/// Runs the whole hook on raw stdin bytes. Never panics on bad input; the caller still guards
/// against panics and the deadline.
pub fn run(stdin: &[u8], locations: &Locations, env_project_dir: Option<&Path>) -> HookAnswer {
    let event = match event::parse_event(stdin) {
        Ok(ev) => ev,
        Err(e) => {
            return HookAnswer::for_verdict(&Verdict::failure(
                "error/bad-input",
                format!("refused: {e}"),
            ));
        }
    };
    let cwd = event_cwd(&event);
    let project_root = Locations::project_root(&cwd, env_project_dir);
    let policy = match policy::load(locations, &project_root) {
        Ok(p) => p,
        // A PostToolUse cannot block anything: the tool already ran.
        Err(_) if event.is_post() => {
            return HookAnswer {
                stdout: String::new(),
                stderr: String::new(),
                code: 0,
            };
        }
        Err(e) => {
            return HookAnswer::for_verdict(&Verdict::failure(
                "error/policy",
                format!("the policy could not be loaded, so every call is denied: {e}"),
            ));
        }
    };
    let pipeline = Pipeline {
        policy: &policy,
        locations,
        project_dir: env_project_dir,
        follow_symlinks: true,
        frozen_risk: None,
        risk_off: false,
    };
    let verdict = process(&pipeline, &event);
    if event.is_post() {
        return HookAnswer {
            stdout: String::new(),
            stderr: String::new(),
            code: 0,
        };
    }
    HookAnswer::for_verdict(&verdict)
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
    let scope = scope_for(
        p.policy,
        p.locations,
        &cwd,
        &project_root,
        p.follow_symlinks,
    );
    if event.is_post() {
        return Verdict::no_opinion();
    }
    let call = normalize::normalize(event, &scope);
    let verdict = crate::evaluate::evaluate(p.policy, &call, &scope);
    with_risk(p, event, &call, &scope, verdict)
}

/// Pipeline step 5, the risk backend: after the static (and ledger) verdict, before recording.
/// Off, out of scope or after a static deny it changes nothing and starts no runtime. Frozen
/// answers (replay `--risk frozen`) run the ladder offline, whether or not the policy enables
/// the layer; its scope still applies.
// TODO(lead): pass the ledger step's excerpts of executed files instead of `&[]`.
fn with_risk(
    p: &Pipeline,
    event: &HookEvent,
    call: &normalize::Call,
    scope: &Scope,
    verdict: Verdict,
) -> Verdict {
    if p.risk_off {
        return verdict;
    }
    let outcome = match p.frozen_risk {
        Some(answers) => {
            let settings = crate::risk::RiskSettings {
                enabled: true,
                ..p.policy.risk.clone()
            };
            if !crate::risk::in_scope(&settings, &verdict) {
                return verdict;
            }
            let ctx = crate::risk::context(&verdict, &[]);
            crate::risk::assess_frozen_value(&settings, answers, &ctx)
        }
        None => match crate::risk::assess(
            &p.policy.risk,
            event,
            call,
            scope,
            &verdict,
            &[],
            &p.locations.data_dir,
        ) {
            Some(outcome) => outcome,
            None => return verdict,
        },
    };
    crate::evaluate::headless(p.policy, crate::risk::combine(verdict, outcome))
}

/// The static decision for one event (the pure core used by `hook`, `check` and `replay`).
pub fn decide(policy: &Policy, event: &HookEvent, scope: &Scope) -> Verdict {
    let call = normalize::normalize(event, scope);
    crate::evaluate::evaluate(policy, &call, scope)
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
    let mut roots = vec![project_root.clone()];
    for tmp in temp_dirs() {
        roots.push(paths.resolve(&tmp.to_string_lossy()));
    }
    roots.extend(
        policy
            .roots
            .iter()
            .map(|r| paths.resolve(&r.to_string_lossy())),
    );
    let mut protected = Vec::new();
    let mut guard = |path: PathBuf, what: &str, subtree: bool| {
        protected.push(ProtectedPath {
            path: paths.resolve(&path.to_string_lossy()),
            what: what.to_string(),
            subtree,
        });
    };
    guard(loc.user_policy.clone(), "palisade's user policy", false);
    if let Some(dir) = loc.user_policy.parent()
        && dir.file_name().is_some_and(|n| n == "palisade")
    {
        guard(dir.to_path_buf(), "palisade's config directory", true);
    }
    guard(
        loc.data_dir.clone(),
        "palisade's state directory (audit log, ledger)",
        true,
    );
    guard(
        project_root.join(".palisade.yaml"),
        "palisade's project policy",
        false,
    );
    if let Ok(exe) = std::env::current_exe() {
        guard(exe, "the palisade binary", false);
    }
    for name in ["settings.json", "settings.local.json"] {
        guard(
            loc.claude_dir.join(name),
            "Claude Code settings (they install the hooks)",
            false,
        );
        guard(
            project_root.join(".claude").join(name),
            "Claude Code project settings (they can install or disable hooks)",
            false,
        );
    }
    guard(
        loc.claude_dir.join("plugins"),
        "Claude Code plugins (they carry hooks)",
        true,
    );
    guard(
        PathBuf::from("/etc/claude-code"),
        "Claude Code managed settings",
        true,
    );
    Scope {
        paths,
        project_root,
        roots,
        protected,
    }
}

fn temp_dirs() -> Vec<PathBuf> {
    let mut v = vec![PathBuf::from("/tmp"), PathBuf::from("/var/tmp")];
    if let Some(t) = std::env::var_os("TMPDIR").filter(|t| !t.is_empty()) {
        v.push(PathBuf::from(t));
    }
    v
}
