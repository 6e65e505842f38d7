//! `palisade policy validate [FILE]`: load a policy as the hook would (strictly, with the line
//! of any error) and run the `examples:` of its rules, with exit codes for scripts. `doctor`
//! runs the same examples.

use crate::event::HookEvent;
use crate::hook;
use crate::locations::Locations;
use crate::normalize;
use crate::policy::{self, Policy};
use crate::verdict::Effect;
use std::path::{Path, PathBuf};

/// Work with policy files.
#[derive(Debug, clap::Args)]
pub struct PolicyArgs {
    #[command(subcommand)]
    pub command: PolicyCommand,
}

/// `policy` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum PolicyCommand {
    /// Check a policy file (default: the user and project policy in effect here) and run the
    /// examples of its rules. Exit 0 valid, 1 invalid or an example fails.
    #[command(after_help = "Examples:
  palisade policy validate
  palisade policy validate ~/.config/palisade/policy.yaml
  palisade policy validate .palisade.yaml && git commit")]
    Validate {
        /// The policy file to check: on its own, or, named `.palisade.yaml` or
        /// `*.palisade.yaml`, as a project policy over the user policy.
        file: Option<PathBuf>,
        /// Directory example calls run in (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
}

/// Runs `policy`; returns the exit code.
pub fn run(args: &PolicyArgs, locations: &Locations) -> i32 {
    match &args.command {
        PolicyCommand::Validate { file, cwd } => {
            let cwd = cwd
                .clone()
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_else(|| PathBuf::from("/"));
            validate(file.as_deref(), &cwd, locations)
        }
    }
}

fn validate(file: Option<&Path>, cwd: &Path, locations: &Locations) -> i32 {
    let (loc, project_root, project_file) = match file {
        // A project policy (`.palisade.yaml`, `*.palisade.yaml`) is checked as the hook would
        // load it: over the user policy, for the project its directory is, so what it may not
        // loosen (or widen) is listed.
        Some(f) if is_project_file(f) => {
            let f = cwd.join(f);
            let root = f
                .parent()
                .map_or_else(|| cwd.to_path_buf(), Path::to_path_buf);
            (locations.clone(), root, f)
        }
        Some(f) => {
            let mut loc = locations.clone();
            loc.user_policy = f.to_path_buf();
            loc.user_policy_explicit = true;
            // The file alone: no project policy on top of it.
            let none = PathBuf::from("/nonexistent-palisade-project");
            (loc, none.clone(), none.join(".palisade.yaml"))
        }
        None => {
            let root = Locations::project_root(cwd, None);
            let f = root.join(".palisade.yaml");
            (locations.clone(), root, f)
        }
    };
    let policy = match policy::load_layers(&loc, &project_root, &project_file) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("invalid: {e}");
            return 1;
        }
    };
    let files: Vec<String> = policy
        .sources
        .iter()
        .skip(1)
        .map(|s| s.path.display().to_string())
        .collect();
    for i in &policy.ignored {
        println!("warning: {i}");
    }
    let (passed, failures) = run_examples(&policy, &loc, cwd);
    for f in &failures {
        eprintln!("example failed: {f}");
    }
    let what = if files.is_empty() {
        "no policy file (the built-in defaults)".to_string()
    } else {
        files.join(", ")
    };
    if failures.is_empty() {
        println!(
            "valid: {what} ({} rules, {passed} examples pass)",
            policy.rules.len()
        );
        0
    } else {
        println!(
            "invalid: {what}: {} of {} examples fail",
            failures.len(),
            passed + failures.len()
        );
        1
    }
}

/// A project policy by its name: `.palisade.yaml`, or an example named `*.palisade.yaml`.
fn is_project_file(f: &Path) -> bool {
    f.file_name()
        .is_some_and(|n| n.to_string_lossy().ends_with(".palisade.yaml"))
}

/// Runs every rule's `examples:` through the hook's pipeline (static rules and the same-line
/// ledger check, recorded in memory only). A refused example must be refused, by this rule when
/// it is a deny or ask rule; an allowed one must not be refused, and an allow rule must be what
/// allows it. Returns (passed, one sentence per failure).
pub fn run_examples(policy: &Policy, locations: &Locations, cwd: &Path) -> (usize, Vec<String>) {
    let mut passed = 0;
    let mut failures = Vec::new();
    for rule in &policy.rules {
        let own = format!("policy:{}", rule.id);
        for ex in &rule.examples {
            let event = HookEvent::hypothetical("validate", cwd, ex.tool.clone(), ex.input.clone());
            let verdict = super::check::hypothetical(policy, locations, &event);
            let project_root = Locations::project_root(cwd, None);
            let scope = hook::scope_for(policy, locations, cwd, &project_root, true);
            let call = normalize::normalize(&event, &scope);
            let hit = policy
                .evaluate(&call, &scope)
                .hits
                .iter()
                .any(|h| h.rule_id == own);
            let refused = matches!(verdict.effect, Some(Effect::Ask | Effect::Deny));
            let shown = match ex.input.get("command").and_then(|c| c.as_str()) {
                Some(c) if ex.tool == "Bash" => format!("`{c}`"),
                _ => format!("{} {}", ex.tool, ex.input),
            };
            let got = match &verdict.rule {
                Some(r) => format!("{} by {r}", verdict.outcome()),
                None => "pass (no opinion)".to_string(),
            };
            let problem = if ex.refused {
                if !refused {
                    Some(format!("should be refused, got {got}"))
                } else if rule.effect != Effect::Allow && !hit {
                    Some(format!(
                        "is refused, but not by this rule (it does not match); got {got}"
                    ))
                } else {
                    None
                }
            } else if refused {
                Some(format!("should not be refused, got {got}"))
            } else if rule.effect == Effect::Allow && verdict.rule.as_deref() != Some(&own) {
                Some(format!("should be allowed by this rule, got {got}"))
            } else {
                None
            };
            match problem {
                Some(p) => failures.push(format!(
                    "{}: rule '{}': {shown} {p}",
                    rule.file.display(),
                    rule.id
                )),
                None => passed += 1,
            }
        }
    }
    (passed, failures)
}
