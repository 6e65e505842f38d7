//! self-protection: the agent may not change palisade's policy, state or binary, nor the
//! Claude Code settings that install (or disable) the hook.

use super::common::{
    altered_paths, inline_code, inline_code_paths, inline_code_writes, written_paths,
};
use super::{Check, Example, Rule};
use crate::fileops::resolve_for;
use crate::normalize::{Call, CallKind, Scope};
use crate::shell::Command;
use crate::verdict::Effect::Deny;

const PACK: &str = "self-protection";

fn tamper(call: &Call, scope: &Scope) -> Option<String> {
    let mut paths = written_paths(call, scope);
    if let CallKind::Shell { analysis, .. } = &call.kind {
        paths.extend(altered_paths(analysis, scope));
        // `python3 -c "open('~/.claude/settings.json','w')…"`: code that writes a named file.
        for c in &analysis.commands {
            if inline_code(c).is_some_and(inline_code_writes) {
                for p in inline_code_paths(c) {
                    paths.push((resolve_for(scope, c, &p), format!("{} code", c.program)));
                }
            }
        }
    }
    paths.into_iter().find_map(|(p, how)| {
        scope
            .protected(&p)
            .map(|guard| format!("{how} would change {} ({})", p.display(), guard.what))
    })
}

fn uninstall(c: &Command, _: &Scope) -> Option<String> {
    let ops: Vec<&str> = c.operands().iter().map(|w| w.text.as_str()).collect();
    match c.program.as_str() {
        "palisade" if ops.first() == Some(&"init") && !c.has_flag(None, &["dry-run"]) => {
            Some("`palisade init` rewrites the hook installation".into())
        }
        "palisade" if ops.first() == Some(&"allow") => {
            Some("`palisade allow` widens the user's policy".into())
        }
        "cargo" if ops.first() == Some(&"uninstall") && ops.contains(&"palisade") => {
            Some("it uninstalls palisade".into())
        }
        "pkill" | "killall" if ops.iter().any(|o| o.contains("palisade")) => {
            Some("it kills palisade".into())
        }
        "claude"
            if ops.iter().any(|o| o.contains("disableAllHooks"))
                || c.args.iter().any(|a| a.text.contains("disableAllHooks")) =>
        {
            Some("it starts Claude Code with hooks disabled".into())
        }
        _ => None,
    }
}

pub static RULES: &[Rule] = &[
    Rule {
        id: "firewall-files",
        pack: PACK,
        effect: Deny,
        reason: "palisade's own policy, audit log, ledger and binary, and the Claude Code settings that install hooks, are off-limits to the agent; ask the user to change them",
        programs: &[],
        check: Check::Call(tamper),
        refused: &[
            Example::tool(
                "Write",
                r#"{"file_path":"/home/dev/.claude/settings.json","content":"{}"}"#,
            ),
            Example::tool(
                "Edit",
                r#"{"file_path":"/home/dev/project/.claude/settings.local.json","old_string":"a","new_string":"b"}"#,
            ),
            Example::tool(
                "Write",
                r#"{"file_path":"/home/dev/.config/palisade/policy.yaml","content":"version: 1\n"}"#,
            ),
            Example::tool(
                "Write",
                r#"{"file_path":"/home/dev/project/.palisade.yaml","content":"version: 1\n"}"#,
            ),
            Example::bash("echo '{}' > ~/.claude/settings.json"),
            Example::bash("sed -i 's/palisade//' ~/.claude/settings.json"),
            Example::bash("rm ~/.local/share/palisade/audit.jsonl"),
            Example::bash("mv ~/.claude/settings.json /tmp/"),
            Example::bash("cp /tmp/x.json /home/dev/.claude/settings.json"),
            Example::bash("truncate -s 0 $HOME/.local/share/palisade/audit.jsonl"),
            Example::bash("python3 -c \"open('/home/dev/.claude/settings.json','w').write('{}')\""),
            Example::bash("find ~/.local/share/palisade -delete"),
            Example::bash("git checkout HEAD~5 -- .palisade.yaml"),
            Example::bash("echo 'version: 1' > ../.palisade.yaml"),
        ],
        allowed: &[
            Example::bash("cat ~/.claude/settings.json"),
            Example::tool(
                "Read",
                r#"{"file_path":"/home/dev/.config/palisade/policy.yaml"}"#,
            ),
            Example::tool(
                "Write",
                r#"{"file_path":"/home/dev/project/.claude/commands/review.md","content":"x"}"#,
            ),
            Example::bash("palisade audit verify"),
        ],
    },
    Rule {
        id: "disable-firewall",
        pack: PACK,
        effect: Deny,
        reason: "Reinstalling, uninstalling or disabling palisade is for the user to do, not the agent",
        programs: &["palisade", "cargo", "pkill", "killall", "claude"],
        check: Check::Command(uninstall),
        refused: &[
            Example::bash("palisade init --uninstall"),
            Example::bash("cargo uninstall palisade"),
            Example::bash("palisade allow --yes"),
            Example::bash("claude --settings '{\"disableAllHooks\":true}' -p x"),
        ],
        allowed: &[
            Example::bash("palisade explain"),
            Example::bash("cargo uninstall ripgrep"),
            Example::bash("palisade init --dry-run"),
        ],
    },
];
