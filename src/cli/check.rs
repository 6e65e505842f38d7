//! `palisade check`: evaluates one hypothetical call against the effective policy, so policies
//! can be regression-tested in CI. Exit 0 allow, 1 deny, 3 ask, 4 no opinion.

use crate::event::HookEvent;
use crate::hook;
use crate::locations::Locations;
use crate::policy;
use crate::verdict::{Effect, Verdict};
use serde_json::{Value, json};
use std::path::PathBuf;

/// Evaluate one hypothetical tool call (static rules and the ledger's same-line check; nothing
/// is recorded and the risk backend is not asked).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  palisade check --command 'rm -rf ~'
  palisade check --tool Write --input '{\"file_path\":\"/etc/hosts\",\"content\":\"x\"}'
  palisade check --tool mcp__github__create_issue --input '{\"owner\":\"acme\"}' --json

Exit status: 0 allow, 1 deny, 3 ask, 4 no opinion, 2 usage error.")]
pub struct CheckArgs {
    /// Tool name (default Bash when --command is given).
    #[arg(long)]
    pub tool: Option<String>,
    /// The tool input as JSON.
    #[arg(long, conflicts_with = "command")]
    pub input: Option<String>,
    /// A Bash command (shorthand for --tool Bash --input '{"command": …}').
    #[arg(long)]
    pub command: Option<String>,
    /// Working directory of the call (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Print the verdict as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Exit code for a verdict, as documented.
pub fn exit_code(v: &Verdict) -> i32 {
    match v.effect {
        Some(Effect::Allow) => 0,
        Some(Effect::Deny) => 1,
        Some(Effect::Ask) => 3,
        None => 4,
    }
}

/// Runs `check`; returns the exit code.
pub fn run(args: &CheckArgs, locations: &Locations) -> i32 {
    let cwd = match &args.cwd {
        Some(c) => c.clone(),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
    };
    let (tool, input) = match (&args.command, &args.input) {
        (Some(cmd), _) => (
            args.tool.clone().unwrap_or_else(|| "Bash".into()),
            json!({ "command": cmd }),
        ),
        (None, Some(raw)) => match serde_json::from_str::<Value>(raw) {
            Ok(v) if v.is_object() => match &args.tool {
                Some(t) => (t.clone(), v),
                None => {
                    eprintln!(
                        "palisade check: --input needs --tool; name the tool the input belongs to."
                    );
                    return 2;
                }
            },
            _ => {
                eprintln!(
                    "palisade check: --input is not a JSON object; pass the tool input as JSON, e.g. '{{\"file_path\":\"x\"}}'."
                );
                return 2;
            }
        },
        (None, None) => {
            eprintln!("palisade check: nothing to check; give --command or --tool with --input.");
            return 2;
        }
    };
    let project_root = Locations::project_root(&cwd, None);
    let policy = match policy::load(locations, &project_root) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("palisade check: the policy does not load: {e}");
            return 1;
        }
    };
    let event = HookEvent {
        session_id: "check".into(),
        transcript_path: None,
        cwd: Some(cwd.to_string_lossy().into_owned()),
        permission_mode: None,
        hook_event_name: "PreToolUse".into(),
        tool_name: tool,
        tool_input: input,
        tool_use_id: None,
        tool_response: None,
        agent_id: None,
    };
    // The same pipeline as the hook (static rules, then the ledger's same-line write-then-run
    // check) in a throwaway state directory: a hypothetical call records nothing, and the risk
    // backend is not asked.
    let scratch = std::env::temp_dir().join(format!("palisade-check-{}", std::process::id()));
    let mut isolated = locations.clone();
    isolated.data_dir = scratch.clone();
    let mut policy = policy;
    policy.audit.file = None;
    let pipeline = hook::Pipeline {
        policy: &policy,
        locations: &isolated,
        project_dir: None,
        follow_symlinks: true,
        frozen_risk: None,
        risk_off: true,
        deadline: None,
    };
    let verdict = hook::process(&pipeline, &event);
    let _ = std::fs::remove_dir_all(&scratch);
    if args.json {
        println!(
            "{}",
            json!({"decision": verdict.outcome(), "rule": verdict.rule, "category": verdict.category, "reason": verdict.reason})
        );
    } else {
        match &verdict.rule {
            Some(rule) => println!("{}: {} [{}]", verdict.outcome(), verdict.reason, rule),
            None => {
                println!("pass: no rule has an opinion; Claude Code's own permission flow applies")
            }
        }
    }
    exit_code(&verdict)
}
