//! `palisade allow`: the narrow way past a false positive. Turns a refusal from the audit log
//! (the last one, or `--id SEQ`) into a scoped allow rule in the user policy — `overrides:`
//! naming the built-in rule, a `command:`/`paths:` (or `when:`) scope matching that call, and
//! the project — shows it as a diff, and writes it only when the user says yes.
//!
//! The rule is appended to the file as text, so the user's comments and layout stay; the new
//! text is loaded and validated before it replaces the file.

use crate::audit::AuditEntry;
use crate::event::HookEvent;
use crate::hook;
use crate::locations::Locations;
use crate::normalize::{self, CallKind};
use crate::policy;
use serde_json::Value;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// Turn a refusal from the audit log into a scoped allow rule in your policy.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  palisade allow                 # the last refusal, asks before writing
  palisade allow --id 42 --yes   # audit entry 42, no question (for scripts)
  palisade allow --any-project   # not limited to the current project

The rule overrides only the built-in rule that refused, only for calls like the refused one
(same programs and paths), and only the ask of that rule unless it denied (then the rule says
override_deny: true). Run it in the project where the call was refused: relative paths and the
project scope are taken from the current directory.")]
pub struct AllowArgs {
    /// The audit entry (its `seq`) to allow; default: the last ask or deny of a built-in rule.
    #[arg(long = "id", value_name = "SEQ")]
    pub id: Option<u64>,
    /// Write without asking.
    #[arg(long)]
    pub yes: bool,
    /// Do not limit the rule to the current project.
    #[arg(long)]
    pub any_project: bool,
    /// The directory the refused call ran in (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
}

/// Runs `allow`; returns the exit code (0 written, 1 refused or failed, 2 nothing to allow).
pub fn run(args: &AllowArgs, locations: &Locations) -> i32 {
    match allow(args, locations, &mut std::io::stdin().lock()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("palisade allow: {e}");
            1
        }
    }
}

fn allow(args: &AllowArgs, locations: &Locations, answer: &mut dyn BufRead) -> Result<i32, String> {
    let cwd = match &args.cwd {
        Some(c) => c.clone(),
        None => std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?,
    };
    // The project as the hook sees it: CLAUDE_PROJECT_DIR when set, else the nearest ancestor
    // with .git or .palisade.yaml.
    let claude_project = std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let project_root = Locations::project_root(&cwd, claude_project.as_deref());
    let current = policy::load(locations, &project_root)
        .map_err(|e| format!("the policy does not load, fix it first: {e}"))?;
    let audit = crate::policy::audit_settings::audit_file(&current.audit, locations);
    let entry = match find_refusal(&audit, args.id)? {
        Some(e) => e,
        None => {
            eprintln!(
                "palisade allow: {} has no ask or deny of a built-in rule to allow{}",
                audit.display(),
                args.id.map(|i| format!(" with id {i}")).unwrap_or_default()
            );
            return Ok(2);
        }
    };
    let rule_id = entry.decision.rule.clone().unwrap_or_default();
    let event = HookEvent::hypothetical("allow", &cwd, entry.tool.clone(), entry.input.clone());
    let project = (!args.any_project).then_some(project_root.as_path());
    let block = scoped_rule(&entry, &rule_id, &event, locations, &current, project)?;

    let path = &locations.user_policy;
    let old = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let new = append_rule(&old, &block)?;
    validate(path, &new, locations, &project_root, &entry, &cwd)?;

    println!(
        "Audit entry {}: {} {} [{}]",
        entry.seq, entry.decision.effect, entry.decision.reason, rule_id
    );
    println!("--- {}", path.display());
    println!("+++ {} (with the new rule)", path.display());
    print!("{}", added_lines(&old, &new));
    if !args.yes {
        print!("Write this rule to {}? [y/N] ", path.display());
        let _ = std::io::stdout().flush();
        let mut line = String::new();
        let _ = answer.read_line(&mut line);
        if !matches!(line.trim(), "y" | "Y" | "yes") {
            println!("Nothing written.");
            return Ok(1);
        }
    }
    write_atomically(path, &new)?;
    println!(
        "Written. Check it: palisade check --tool {} --input '{}'",
        entry.tool, entry.input
    );
    Ok(0)
}

/// The entry to allow: `seq` when given, else the last PreToolUse ask or deny decided by a
/// built-in rule. Entries of other sources (policy, ledger chains, the risk layer) are not
/// built-in rules and cannot be overridden this way: say so.
fn find_refusal(audit: &Path, seq: Option<u64>) -> Result<Option<AuditEntry>, String> {
    let text = match std::fs::read_to_string(audit) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", audit.display())),
    };
    let mut found = None;
    for line in text.lines() {
        let Ok(e) = serde_json::from_str::<AuditEntry>(line) else {
            continue;
        };
        match seq {
            Some(s) if e.seq == s => {
                if !is_builtin_refusal(&e) {
                    return Err(format!(
                        "entry {s} is not an ask or deny of a built-in rule (it is {} by {}); only built-in rules can be overridden by `palisade allow`",
                        e.decision.effect,
                        e.decision.rule.as_deref().unwrap_or(&e.decision.source)
                    ));
                }
                return Ok(Some(e));
            }
            Some(_) => {}
            None if is_builtin_refusal(&e) => found = Some(e),
            None => {}
        }
    }
    Ok(found)
}

fn is_builtin_refusal(e: &AuditEntry) -> bool {
    e.event == "PreToolUse"
        && matches!(e.decision.effect.as_str(), "ask" | "deny")
        && e.decision.source == "static"
        && e.decision.rule.as_deref().is_some_and(|r| {
            r.split_once('/')
                .is_some_and(|(pack, _)| crate::packs::PACKS.contains(&pack))
        })
}

/// The YAML of the rule (one list item, indented by two spaces), scoped to calls like `event`.
fn scoped_rule(
    entry: &AuditEntry,
    rule_id: &str,
    event: &HookEvent,
    locations: &Locations,
    current: &policy::Policy,
    project: Option<&Path>,
) -> Result<String, String> {
    let cwd = hook::event_cwd(event);
    let project_root = Locations::project_root(&cwd, None);
    let scope = hook::scope_for(current, locations, &cwd, &project_root, true);
    let call = normalize::normalize(event, &scope);
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let short = rule_id.rsplit('/').next().unwrap_or(rule_id);
    let mut out = format!(
        "  # Added by `palisade allow` from audit entry {}.\n  - id: allow-{short}-{}\n    tools: [{}]\n    effect: allow\n    overrides: [{}]\n",
        entry.seq,
        entry.seq,
        q(&entry.tool),
        q(rule_id)
    );
    if entry.decision.effect == "deny" {
        out.push_str("    override_deny: true\n");
    }
    if let Some(p) = project {
        out.push_str(&format!("    project: {}\n", q(&p.to_string_lossy())));
    }
    let list = |items: &[String]| items.iter().map(|s| q(s)).collect::<Vec<_>>().join(", ");
    match &call.kind {
        CallKind::Shell { analysis, .. } => {
            let mut programs: Vec<String> = Vec::new();
            for c in &analysis.commands {
                if !programs.contains(&c.program) {
                    programs.push(c.program.clone());
                }
            }
            if programs.is_empty() || !analysis.findings.is_empty() {
                return Err(
                    "the refused command cannot be fully analysed, so no scope can be written for it; write the rule by hand (see docs/POLICY.md, \"Scoped overrides\")".into(),
                );
            }
            out.push_str(&format!(
                "    command:\n      program: [{}]\n",
                list(&programs)
            ));
            let looks_like_path =
                |t: &str| t.contains('/') || t.starts_with('.') || t.starts_with('~');
            // A subcommand is the first operand when it is a word, not a path (`git push`, not
            // `rm /opt/x`).
            let sub_of = |c: &crate::shell::Command| {
                c.subcommand()
                    .filter(|s| !looks_like_path(s))
                    .map(str::to_string)
            };
            let subs: Vec<String> = analysis.commands.iter().filter_map(sub_of).collect();
            if analysis.commands.len() == 1 && subs.len() == 1 {
                out.push_str(&format!("      subcommand: [{}]\n", list(&subs)));
            }
            // Paths only when every other operand reads as a path: `git push origin main` is
            // scoped by program and subcommand, `rm -rf /opt/build/out` by the path too.
            let pathlike = analysis.commands.iter().all(|c| {
                let sub = sub_of(c);
                c.operands()
                    .iter()
                    .filter(|w| sub.as_deref() != Some(w.text.as_str()))
                    .all(|w| looks_like_path(&w.text))
            });
            if pathlike
                && let Some(paths) = policy::command::shell_paths(analysis, &scope)
                && !paths.is_empty()
            {
                let paths: Vec<String> = paths
                    .iter()
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect();
                out.push_str(&format!("    paths: [{}]\n", list(&paths)));
            }
        }
        CallKind::Write { path, .. } => {
            out.push_str(&format!("    paths: [{}]\n", q(&path.to_string_lossy())));
        }
        CallKind::Read { paths } if !paths.is_empty() => {
            let paths: Vec<String> = paths
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            out.push_str(&format!("    paths: [{}]\n", list(&paths)));
        }
        _ => {
            // Any other tool: the call's own top-level values, exactly.
            let mut when = String::new();
            if let Value::Object(map) = &entry.input {
                for (k, v) in map {
                    let text = match v {
                        Value::String(s) => q(s),
                        Value::Bool(_) | Value::Number(_) => v.to_string(),
                        _ => continue,
                    };
                    when.push_str(&format!("      {}: {{equals: {text}}}\n", q(k)));
                }
            }
            if when.is_empty() {
                return Err("the refused call has no value to scope a rule by; write the rule by hand (see docs/POLICY.md, \"Scoped overrides\")".into());
            }
            out.push_str("    when:\n");
            out.push_str(&when);
        }
    }
    Ok(out)
}

/// `text` with `block` (a list item of `rules:`) added, everything else unchanged: into the
/// existing `rules:` list when there is one, else as a new `rules:` at the end.
pub fn append_rule(text: &str, block: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Ok(format!("version: 1\nrules:\n{block}"));
    }
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines.iter().position(|l| {
        l.strip_prefix("rules:")
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '#']))
    }) else {
        let mut out = text.to_string();
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("rules:\n");
        out.push_str(block);
        return Ok(out);
    };
    let rest = lines[start]["rules:".len()..].trim();
    let inline_empty = rest == "[]" || rest.starts_with("[] #") || rest.starts_with("[]#");
    if !rest.is_empty() && !rest.starts_with('#') && !inline_empty {
        return Err(format!(
            "the rules of this policy are written inline (`rules: {rest}`); add the rule by hand"
        ));
    }
    // The list ends at the next top-level key; comments and blank lines just before that key
    // belong to it.
    let mut end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with(|c: char| !c.is_whitespace() && c != '#' && c != '-'))
        .map_or(lines.len(), |i| start + 1 + i);
    while end > start + 1 && {
        let t = lines[end - 1].trim_start();
        t.is_empty() || (t.starts_with('#') && !lines[end - 1].starts_with(' '))
    } {
        end -= 1;
    }
    // Follow the file's indentation of list items (`- id` or `  - id`).
    let indent = lines[start + 1..end]
        .iter()
        .find(|l| l.trim_start().starts_with("- "))
        .map(|l| l.len() - l.trim_start().len());
    let block = match indent {
        Some(n) if n != 2 => reindent(block, n),
        _ => block.to_string(),
    };
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i == end {
            out.push_str(&block);
        }
        if i == start && inline_empty {
            out.push_str("rules:\n");
            continue;
        }
        out.push_str(l);
        out.push('\n');
    }
    if end == lines.len() {
        out.push_str(&block);
    }
    Ok(out)
}

/// Moves a block written with list items at two spaces to `n` spaces.
fn reindent(block: &str, n: usize) -> String {
    block
        .lines()
        .map(|l| {
            let stripped = l.strip_prefix("  ").unwrap_or(l);
            format!("{}{stripped}\n", " ".repeat(n))
        })
        .collect()
}

/// Loads the new text as the user policy (in a scratch file beside it) and checks that the
/// refused call is now allowed; nothing is written otherwise.
fn validate(
    path: &Path,
    text: &str,
    locations: &Locations,
    project_root: &Path,
    entry: &AuditEntry,
    cwd: &Path,
) -> Result<(), String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let scratch = scratch_path(path);
    std::fs::write(&scratch, text)
        .map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
    let mut loc = locations.clone();
    loc.user_policy = scratch.clone();
    loc.user_policy_explicit = true;
    let loaded = policy::load(&loc, project_root);
    let _ = std::fs::remove_file(&scratch);
    let policy = loaded.map_err(|e| {
        format!(
            "the policy with the new rule would not load ({}); nothing written",
            e.to_string()
                .replace(&scratch.display().to_string(), &path.display().to_string())
        )
    })?;
    let event = HookEvent::hypothetical("allow", cwd, entry.tool.clone(), entry.input.clone());
    let scope = hook::scope_for(&policy, &loc, cwd, project_root, true);
    let verdict = hook::decide(&policy, &event, &scope);
    if verdict.effect != Some(crate::verdict::Effect::Allow) {
        return Err(format!(
            "with the new rule the call would still be {} ({}: {}); the refusal does not come from the overridden rule alone, so nothing was written",
            verdict.outcome(),
            verdict.rule.as_deref().unwrap_or("-"),
            verdict.reason
        ));
    }
    Ok(())
}

/// The lines of `new` that are not in `old`, as `+` lines of a diff.
fn added_lines(old: &str, new: &str) -> String {
    let old_lines: Vec<&str> = old.lines().collect();
    let mut i = 0;
    let mut out = String::new();
    for l in new.lines() {
        if i < old_lines.len() && old_lines[i] == l {
            i += 1;
            continue;
        }
        out.push_str(&format!("+{l}\n"));
    }
    out
}

/// A file beside `path`, private to this process.
fn scratch_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or("policy.yaml".into(), |n| n.to_string_lossy());
    path.with_file_name(format!(".{name}.palisade-allow-{}", std::process::id()))
}

/// Writes beside the file and renames over it, so a crash leaves the old policy or the new one.
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let tmp = scratch_path(path);
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot replace {}: {e}", path.display())
    })
}

#[cfg(test)]
mod tests {
    use super::append_rule;

    const BLOCK: &str = "  - id: x\n    tools: [Bash]\n    effect: allow\n";

    #[test]
    fn appends_into_the_rules_list_and_keeps_everything_else() {
        let text = "# mine\nversion: 1\nrules:\n  - id: a # keep\n    tools: [Read]\n    effect: deny\n\n# about risk\nrisk:\n  enabled: false\n";
        let out = append_rule(text, BLOCK).unwrap();
        assert_eq!(
            out,
            "# mine\nversion: 1\nrules:\n  - id: a # keep\n    tools: [Read]\n    effect: deny\n  - id: x\n    tools: [Bash]\n    effect: allow\n\n# about risk\nrisk:\n  enabled: false\n"
        );
    }

    #[test]
    fn follows_the_file_s_indentation_and_creates_rules() {
        let out = append_rule(
            "version: 1\nrules:\n- id: a\n  tools: [Read]\n  effect: deny\n",
            BLOCK,
        )
        .unwrap();
        assert!(
            out.ends_with("- id: x\n  tools: [Bash]\n  effect: allow\n"),
            "{out}"
        );
        let out = append_rule("version: 1\nheadless: false", BLOCK).unwrap();
        assert_eq!(out, format!("version: 1\nheadless: false\nrules:\n{BLOCK}"));
        let out = append_rule("version: 1\nrules: []\nheadless: false\n", BLOCK).unwrap();
        assert_eq!(out, format!("version: 1\nrules:\n{BLOCK}headless: false\n"));
        assert!(append_rule("version: 1\nrules: [{id: a}]\n", BLOCK).is_err());
    }
}
