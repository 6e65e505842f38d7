//! `palisade scan [PATH]`: the hook's engine over what a repository would have an agent run —
//! scripts, Makefiles, justfiles, `package.json` scripts, CI workflows, Dockerfiles, git hooks,
//! and `.claude/` settings, commands and agents — reporting what would be refused or asked,
//! as text, JSON or SARIF 2.1.0, with exit codes for CI.
//!
//! Each kind of file is reduced to shell text with the commands at their own line numbers (the
//! other lines blank), so one analysis gives findings with the right line.

use crate::evaluate::StaticEngine;
use crate::locations::Locations;
use crate::policy;
use crate::scan::{self, Finding, Language};
use crate::verdict::Effect;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Scan a repository for what palisade would refuse or ask if an agent ran it.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  palisade scan
  palisade scan ~/src/shop --json
  palisade scan --sarif > palisade.sarif     # for GitHub code scanning upload
  palisade scan --fail-on deny               # CI: fail only on what would be denied

Exit status: 0 nothing at or above --fail-on, 1 findings at or above it, 2 usage error.")]
pub struct ScanArgs {
    /// The repository (default: the current directory).
    pub path: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long, conflicts_with = "sarif")]
    pub json: bool,
    /// Print SARIF 2.1.0 (for code-scanning upload).
    #[arg(long)]
    pub sarif: bool,
    /// The weakest finding that makes the exit status 1.
    #[arg(long, value_parser = ["ask", "deny"], default_value = "ask")]
    pub fail_on: String,
}

/// Directories never descended into: dependencies and build output, not the repository's own.
const SKIP_DIRS: &[&str] = &[
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".mypy_cache",
];

/// Largest file read.
const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// One finding in one file.
#[derive(Debug, Clone)]
pub struct ScanFinding {
    /// Relative to the scanned root, `/`-separated.
    pub path: String,
    /// What kind of file: `script`, `makefile`, `justfile`, `package.json`, `ci-workflow`,
    /// `dockerfile`, `git-hook`, `claude-settings`, `claude-command`, `claude-agent`.
    pub kind: &'static str,
    pub finding: Finding,
}

/// Runs `scan`; returns the exit code.
pub fn run(args: &ScanArgs, locations: &Locations) -> i32 {
    let root = match &args.path {
        Some(p) => p.clone(),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    let root = match std::fs::canonicalize(&root) {
        Ok(r) if r.is_dir() => r,
        _ => {
            eprintln!("palisade scan: {} is not a directory", root.display());
            return 2;
        }
    };
    let policy = match policy::load(locations, &root) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("palisade scan: the policy does not load: {e}");
            return 2;
        }
    };
    let (files, findings) = scan_tree(&root, &policy, locations);
    let fail_at = if args.fail_on == "deny" {
        Effect::Deny
    } else {
        Effect::Ask
    };
    if args.sarif {
        println!(
            "{}",
            serde_json::to_string_pretty(&sarif(&findings)).unwrap_or_default()
        );
    } else if args.json {
        let list: Vec<Value> = findings
            .iter()
            .map(|f| {
                json!({"path": f.path, "kind": f.kind, "line": f.finding.line, "effect": f.finding.effect,
                       "rule": f.finding.rule, "reason": f.finding.reason, "text": f.finding.text,
                       "section": f.finding.section})
            })
            .collect();
        println!(
            "{}",
            json!({"root": root, "files_scanned": files, "findings": list})
        );
    } else {
        for f in &findings {
            let line = f.finding.line.map(|l| format!(":{l}")).unwrap_or_default();
            let section = f
                .finding
                .section
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            println!(
                "{}{line}: {} [{}] {}{section}\n    {}",
                f.path, f.finding.effect, f.finding.rule, f.finding.reason, f.finding.text
            );
        }
        let denies = findings
            .iter()
            .filter(|f| f.finding.effect == Effect::Deny)
            .count();
        println!(
            "{files} files scanned: {denies} would be denied, {} asked.",
            findings.len() - denies
        );
    }
    i32::from(findings.iter().any(|f| f.finding.effect >= fail_at))
}

/// Scans every file of interest under `root`; returns (files scanned, findings in path order).
pub fn scan_tree(
    root: &Path,
    policy: &policy::Policy,
    locations: &Locations,
) -> (usize, Vec<ScanFinding>) {
    let scope = crate::hook::scope_for(policy, locations, root, root, true);
    let engine = StaticEngine::new(policy, &scope);
    let mut paths = Vec::new();
    walk(root, root, &mut paths);
    paths.sort();
    let mut files = 0;
    let mut out = Vec::new();
    for path in paths {
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let Some(kind) = kind_of(&rel) else {
            continue;
        };
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.len() > MAX_FILE_BYTES {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        // A plain file (not a shebang or shell file) is not something the agent runs.
        if kind == "script" && !is_script(&path, &text) {
            continue;
        }
        let analysis = match kind {
            "script" | "git-hook" => {
                let lang = scan::detect(&path, &text);
                if kind == "script" && lang == Language::Other {
                    continue;
                }
                scan::analyse(lang, &text, &engine)
            }
            "makefile" => scan::analyse(Language::Make, &text, &engine),
            "package.json" => scan::analyse(Language::PackageJson, &text, &engine),
            "justfile" => scan::analyse(Language::Justfile, &text, &engine),
            "dockerfile" => scan::analyse(Language::Shell, &dockerfile_shell(&text), &engine),
            "ci-workflow" => scan::analyse(Language::Shell, &workflow_shell(&text), &engine),
            "claude-settings" => scan::analyse(Language::Shell, &settings_shell(&text), &engine),
            _ => scan::analyse(Language::Shell, &markdown_shell(&text), &engine),
        };
        files += 1;
        for finding in analysis.findings {
            out.push(ScanFinding {
                path: rel.clone(),
                kind,
                finding,
            });
        }
    }
    (files, out)
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let Ok(ft) = e.file_type() else { continue };
        let name = e.file_name().to_string_lossy().into_owned();
        if ft.is_dir() {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let in_git = rel.starts_with(".git");
            if SKIP_DIRS.contains(&name.as_str()) {
                continue;
            }
            // Of .git, only the hooks are the repository's code.
            if in_git && rel != Path::new(".git") && !rel.starts_with(".git/hooks") {
                continue;
            }
            walk(root, &path, out);
        } else if ft.is_file() {
            out.push(path);
        }
    }
}

/// What kind of file `rel` is for the scan, `None` for files it does not read.
fn kind_of(rel: &str) -> Option<&'static str> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if rel.starts_with(".git/hooks/") || rel.starts_with(".husky/") && !name.starts_with('_') {
        return (!name.ends_with(".sample")).then_some("git-hook");
    }
    if rel.starts_with(".github/workflows/") && (name.ends_with(".yml") || name.ends_with(".yaml"))
        || name == ".gitlab-ci.yml"
    {
        return Some("ci-workflow");
    }
    if rel.starts_with(".claude/") || rel.contains("/.claude/") {
        if name.starts_with("settings") && name.ends_with(".json") {
            return Some("claude-settings");
        }
        if name.ends_with(".md") && rel.contains("commands/") {
            return Some("claude-command");
        }
        if name.ends_with(".md") && rel.contains("agents/") {
            return Some("claude-agent");
        }
        return None;
    }
    match name {
        "Makefile" | "makefile" | "GNUmakefile" => return Some("makefile"),
        n if scan::JUSTFILES.contains(&n) || n.ends_with(".just") => return Some("justfile"),
        "package.json" => return Some("package.json"),
        _ => {}
    }
    if name.ends_with(".mk") {
        return Some("makefile");
    }
    if name == "Dockerfile"
        || name.ends_with(".Dockerfile")
        || name.starts_with("Dockerfile.")
        || name == "Containerfile"
    {
        return Some("dockerfile");
    }
    Some("script")
}

/// A shell file by extension, or any file starting with `#!`.
fn is_script(path: &Path, text: &str) -> bool {
    text.starts_with("#!")
        || path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "sh" | "bash" | "zsh" | "ksh"))
}

/// Shell text holding `commands` (line index → command text) at their lines, blank elsewhere.
fn at_lines(total: usize, commands: Vec<(usize, String)>) -> String {
    let mut lines = vec![String::new(); total.max(1)];
    for (i, c) in commands {
        if i >= lines.len() {
            lines.resize(i + 1, String::new());
        }
        lines[i] = c;
    }
    lines.join("\n") + "\n"
}

/// The `RUN` instructions of a Dockerfile (continuation lines kept, exec form joined).
fn dockerfile_shell(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut cmds = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim_start();
        let upper = l.get(..4).map(str::to_ascii_uppercase);
        if upper.as_deref() == Some("RUN ") {
            let rest = l[4..].trim_start();
            let rest = strip_run_flags(rest);
            if rest.starts_with('[') {
                if let Ok(words) = serde_json::from_str::<Vec<String>>(rest) {
                    let quoted: Vec<String> = words.iter().map(|w| shell_quote(w)).collect();
                    cmds.push((i, quoted.join(" ")));
                }
            } else {
                cmds.push((i, rest.to_string()));
                while lines[i].trim_end().ends_with('\\') && i + 1 < lines.len() {
                    i += 1;
                    cmds.push((i, lines[i].to_string()));
                }
            }
        }
        i += 1;
    }
    at_lines(lines.len(), cmds)
}

/// `RUN --mount=… --network=… cmd` → `cmd`.
fn strip_run_flags(mut s: &str) -> &str {
    while s.starts_with("--") {
        s = s
            .split_once(char::is_whitespace)
            .map_or("", |(_, r)| r)
            .trim_start();
    }
    s
}

fn shell_quote(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// The `run:` steps (GitHub Actions) and `script:` lists (GitLab CI) of a workflow, each at the
/// lines where it is written.
fn workflow_shell(text: &str) -> String {
    let Ok(doc) = serde_yaml::from_str::<serde_yaml::Value>(text) else {
        return String::new();
    };
    let mut scripts = Vec::new();
    collect_scripts(&doc, &mut scripts);
    let lines: Vec<&str> = text.lines().collect();
    let mut cmds = Vec::new();
    let mut cursor = 0;
    for script in scripts {
        let first = script.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let Some(start) = (cursor..lines.len())
            .chain(0..cursor)
            .find(|&i| !first.trim().is_empty() && lines[i].contains(first.trim()))
        else {
            continue;
        };
        cursor = start + 1;
        let offset = script
            .lines()
            .position(|l| !l.trim().is_empty())
            .unwrap_or(0);
        for (k, l) in script.lines().enumerate().skip(offset) {
            cmds.push((start + k - offset, l.to_string()));
        }
    }
    at_lines(lines.len(), cmds)
}

fn collect_scripts(v: &serde_yaml::Value, out: &mut Vec<String>) {
    match v {
        serde_yaml::Value::Mapping(m) => {
            for (k, val) in m {
                let key = k.as_str().unwrap_or("");
                match (key, val) {
                    ("run", serde_yaml::Value::String(s)) => out.push(s.clone()),
                    ("script" | "before_script" | "after_script", serde_yaml::Value::String(s)) => {
                        out.push(s.clone())
                    }
                    (
                        "script" | "before_script" | "after_script",
                        serde_yaml::Value::Sequence(seq),
                    ) => out.extend(seq.iter().filter_map(|s| s.as_str().map(str::to_string))),
                    _ => collect_scripts(val, out),
                }
            }
        }
        serde_yaml::Value::Sequence(s) => {
            for x in s {
                collect_scripts(x, out);
            }
        }
        _ => {}
    }
}

/// The hook commands (and status line command) of a Claude Code settings file.
fn settings_shell(text: &str) -> String {
    let Ok(doc) = serde_json::from_str::<Value>(text) else {
        return String::new();
    };
    let mut commands = Vec::new();
    if let Some(events) = doc.get("hooks").and_then(Value::as_object) {
        for groups in events.values().filter_map(Value::as_array) {
            for g in groups {
                for h in g
                    .get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(c) = h.get("command").and_then(Value::as_str) {
                        commands.push(c.to_string());
                    }
                }
            }
        }
    }
    if let Some(c) = doc.pointer("/statusLine/command").and_then(Value::as_str) {
        commands.push(c.to_string());
    }
    let lines: Vec<&str> = text.lines().collect();
    let placed = commands
        .into_iter()
        .map(|c| {
            let json = serde_json::to_string(&c).unwrap_or_default();
            let inner = &json[1..json.len() - 1];
            let i = lines
                .iter()
                .position(|l| l.contains(inner))
                .unwrap_or(lines.len());
            (i, c)
        })
        .collect();
    at_lines(lines.len(), placed)
}

/// The shell of a slash command or agent file: ```bash/sh/console fences and `` !`cmd` ``.
fn markdown_shell(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut cmds = Vec::new();
    let mut fence: Option<bool> = None; // Some(console?) inside a shell fence
    let mut other_fence = false;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if let Some(info) = t.strip_prefix("```") {
            if fence.is_some() || other_fence {
                fence = None;
                other_fence = false;
            } else {
                match info.trim() {
                    "bash" | "sh" | "shell" | "zsh" => fence = Some(false),
                    "console" | "shell-session" => fence = Some(true),
                    _ => other_fence = true,
                }
            }
            continue;
        }
        match fence {
            Some(false) => cmds.push((i, l.to_string())),
            Some(true) => {
                if let Some(c) = t.strip_prefix("$ ") {
                    cmds.push((i, c.to_string()));
                }
            }
            None if !other_fence => {
                // `!`cmd`` runs cmd when the slash command is expanded.
                let mut rest = *l;
                let mut found = Vec::new();
                while let Some(at) = rest.find("!`") {
                    let after = &rest[at + 2..];
                    let Some(end) = after.find('`') else { break };
                    found.push(after[..end].to_string());
                    rest = &after[end + 1..];
                }
                if !found.is_empty() {
                    cmds.push((i, found.join("; ")));
                }
            }
            None => {}
        }
    }
    at_lines(lines.len(), cmds)
}

/// The findings as SARIF 2.1.0: one run, palisade as the tool, one rule per rule id.
pub fn sarif(findings: &[ScanFinding]) -> Value {
    let mut rules: Vec<Value> = Vec::new();
    let mut ids: Vec<&str> = Vec::new();
    for f in findings {
        if !ids.contains(&f.finding.rule.as_str()) {
            ids.push(&f.finding.rule);
            rules.push(json!({
                "id": f.finding.rule,
                "shortDescription": {"text": format!("palisade rule {}", f.finding.rule)},
                "defaultConfiguration": {"level": level(f.finding.effect)},
            }));
        }
    }
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let mut location = json!({
                "physicalLocation": {
                    "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                }
            });
            if let Some(line) = f.finding.line.filter(|l| *l >= 1) {
                location["physicalLocation"]["region"] = json!({"startLine": line});
            }
            let what = if f.finding.text.is_empty() {
                String::new()
            } else {
                format!(" (`{}`)", f.finding.text)
            };
            json!({
                "ruleId": f.finding.rule,
                "ruleIndex": ids.iter().position(|i| *i == f.finding.rule).unwrap_or(0),
                "level": level(f.finding.effect),
                "message": {"text": format!("An agent running this would be {}: {}{what}", past(f.finding.effect), f.finding.reason)},
                "locations": [location],
                "properties": {"kind": f.kind, "effect": f.finding.effect},
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "palisade",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the scanned repository"}}},
            "results": results,
        }]
    })
}

fn level(e: Effect) -> &'static str {
    match e {
        Effect::Deny => "error",
        Effect::Ask => "warning",
        Effect::Allow => "note",
    }
}

fn past(e: Effect) -> &'static str {
    match e {
        Effect::Deny => "denied",
        Effect::Ask => "asked",
        Effect::Allow => "allowed",
    }
}
