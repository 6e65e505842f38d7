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

/// The hypothetical PreToolUse event of `--command` or `--tool`/`--input` in `cwd`; on a usage
/// error, the message for stderr.
pub fn event_from_args(
    tool: Option<&str>,
    input: Option<&str>,
    command: Option<&str>,
    cwd: &std::path::Path,
) -> Result<HookEvent, String> {
    let (tool, input) = match (command, input) {
        (Some(cmd), _) => (
            tool.unwrap_or("Bash").to_string(),
            json!({ "command": cmd }),
        ),
        (None, Some(raw)) => match serde_json::from_str::<Value>(raw) {
            Ok(v) if v.is_object() => match tool {
                Some(t) => (t.to_string(), v),
                None => {
                    return Err("--input needs --tool; name the tool the input belongs to.".into());
                }
            },
            _ => {
                return Err("--input is not a JSON object; pass the tool input as JSON, e.g. '{\"file_path\":\"x\"}'.".into());
            }
        },
        (None, None) => {
            return Err("nothing to check; give --command or --tool with --input.".into());
        }
    };
    Ok(HookEvent::hypothetical("check", cwd, tool, input))
}

/// The hook's pipeline (static rules, then the ledger's same-line write-then-run check) on a
/// hypothetical call, with its record kept in memory: no state directory is made or written,
/// and the risk backend is not asked. Its world is lexical, as replay's: paths are not
/// resolved through symlinks and no file's content is read, so the answer is the same on any
/// machine (a CI runner has none of the files a policy test names).
pub fn hypothetical(policy: &policy::Policy, locations: &Locations, event: &HookEvent) -> Verdict {
    let pipeline = hook::Pipeline {
        policy,
        locations,
        project_dir: None,
        follow_symlinks: false,
        frozen_risk: None,
        risk_off: true,
        deadline: None,
        record: hook::Record::in_memory(),
    };
    hook::process(&pipeline, event)
}

/// Runs `check`; returns the exit code.
pub fn run(args: &CheckArgs, locations: &Locations) -> i32 {
    let cwd = match &args.cwd {
        Some(c) => c.clone(),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
    };
    let event = match event_from_args(
        args.tool.as_deref(),
        args.input.as_deref(),
        args.command.as_deref(),
        &cwd,
    ) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("palisade check: {e}");
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
    let verdict = hypothetical(&policy, locations, &event);
    let near = near_misses(&policy, locations, &event);
    if args.json {
        println!(
            "{}",
            json!({"decision": verdict.outcome(), "rule": verdict.rule, "category": verdict.category, "reason": verdict.reason, "near_misses": near})
        );
    } else {
        match &verdict.rule {
            Some(rule) => println!("{}: {} [{}]", verdict.outcome(), verdict.reason, rule),
            None => {
                println!("pass: no rule has an opinion; Claude Code's own permission flow applies")
            }
        }
        for n in &near {
            println!("near miss (not part of the verdict): {n}");
        }
    }
    exit_code(&verdict)
}

/// The allow rules that wanted this call but not its arguments. They never change the verdict
/// (an allow rule only widens); they tell the policy's author why the rule did not apply.
pub fn near_misses(
    policy: &policy::Policy,
    locations: &Locations,
    event: &HookEvent,
) -> Vec<String> {
    let cwd = hook::event_cwd(event);
    let project_root = Locations::project_root(&cwd, None);
    let scope = hook::scope_for(policy, locations, &cwd, &project_root, true);
    let call = crate::normalize::normalize(event, &scope);
    policy.evaluate(&call, &scope).near_misses
}
