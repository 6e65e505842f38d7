//! self-protection: the agent may not change palisade's policy, state or binary, the Claude
//! Code settings that install (or disable) the hook, or the session transcripts — judged by
//! the resource a changed path reaches (`crate::protect`), whichever tool changes it. Nor may
//! it signal the hook, start an agent without it, or have a shell run a start-up file unseen.

use super::{Check, Example, Rule};
use crate::fileops::resolve_for;
use crate::normalize::{Call, CallKind, Scope};
use crate::protect::{Change, Reach};
use crate::shell::{Command, ShellAnalysis};
use crate::verdict::Effect::{Ask, Deny};
use crate::vocab::operands_skipping;
use std::path::{Path, PathBuf};

const PACK: &str = "self-protection";

/// One path a call changes, and how.
struct Target {
    path: PathBuf,
    change: Change,
    how: String,
}

impl Target {
    fn new(path: PathBuf, change: Change, how: impl Into<String>) -> Target {
        Target {
            path,
            change,
            how: how.into(),
        }
    }
}

/// The protection answer over every path the call changes; a deny wins over an ask found
/// earlier on the line.
fn verdict(call: &Call, scope: &Scope) -> Option<(Reach, String)> {
    let mut first_ask = None;
    for t in targets(call, scope) {
        match crate::protect::reaches(scope, &t.path, t.change) {
            Some(Reach::Deny(why)) => return Some((Reach::Deny(why), t.how)),
            Some(ask) if first_ask.is_none() => first_ask = Some((ask, t.how)),
            _ => {}
        }
    }
    first_ask
}

fn tamper(call: &Call, scope: &Scope) -> Option<String> {
    match verdict(call, scope)? {
        (Reach::Deny(why), how) => Some(format!("{how}: {why}")),
        (Reach::Ask(_), _) => None,
    }
}

fn unresolved(call: &Call, scope: &Scope) -> Option<String> {
    match verdict(call, scope)? {
        (Reach::Ask(why), how) => Some(format!("{how}: {why}")),
        (Reach::Deny(_), _) => None,
    }
}

/// Every path the call changes, from its effects — whichever tool made them: a file tool, an
/// MCP tool (by its tool model), a shell line, the inline interpreter code a line runs.
fn targets(call: &Call, scope: &Scope) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for (path, how) in super::common::written_paths(call) {
        if let Some((written, start, names)) = found_by(call, scope, &path) {
            // A writer `find -exec` runs on `{}`: what find selects under the start changes
            // (`cp x {}` into a directory start writes inside it, and over selected files).
            let mut found = Vec::new();
            found_targets(scope, (&written, &start), &names, false, &how, &mut found);
            for mut t in found {
                t.change = if t.path == start {
                    Change::Into
                } else {
                    Change::Write
                };
                out.push(t);
            }
            continue;
        }
        let change = change_of(&how);
        out.push(Target::new(path, change, how));
    }
    effect_targets(call, scope, &mut out);
    out
}

/// When `path` is written by a command `find … -exec` runs on one of find's starts: the start
/// as written and resolved, and find's name tests.
fn found_by(
    call: &Call,
    scope: &Scope,
    path: &Path,
) -> Option<(String, PathBuf, Vec<crate::call::NameTest>)> {
    let CallKind::Shell { analysis, .. } = &call.kind else {
        return None;
    };
    call.effects.iter().find_map(|e| match e {
        crate::effects::Effect::Write {
            path: p,
            shell: Some(w),
            ..
        } if p == path => {
            let (starts, names) = crate::effects::exec_selection(analysis, w.command)?;
            let c = &analysis.commands[w.command];
            let start = starts
                .into_iter()
                .find(|s| c.args.iter().any(|a| a.text == s.text))?;
            let resolved = resolve_for(scope, c, &start.text);
            Some((start.text, resolved, names))
        }
        _ => None,
    })
}

/// How a write changes its path, by what made it.
fn change_of(how: &str) -> Change {
    if crate::effects::INTO_DIRECTORY.contains(&how) {
        return Change::Into;
    }
    match how.split_whitespace().next().unwrap_or("") {
        "mv" | "move" => Change::Move,
        "ln" | "link" => Change::Link,
        "cp" | "install" | "rsync" | "scp" | "tar" | "unzip" | "ditto" => Change::Into,
        "chmod" => Change::Mode,
        _ => Change::Write,
    }
}

/// The deletes, moves, mode changes, hard links and creations of a shell line, from its
/// effects (which already see through `sudo`, `xargs`, `find -exec`, `bash -c` and the links
/// made earlier on the line).
fn effect_targets(call: &Call, scope: &Scope, out: &mut Vec<Target>) {
    use crate::call::{DeleteTarget, Span};
    use crate::effects::Effect as Fx;
    for e in &call.effects {
        match e {
            Fx::Delete {
                target:
                    DeleteTarget::Named {
                        written,
                        path,
                        span,
                    },
                how,
                recursive,
                names,
            } => {
                let Some(path) = path else {
                    // Not known until it runs: judged by what it names.
                    out.push(Target::new(PathBuf::from(written), Change::Delete, how));
                    continue;
                };
                match span {
                    Span::Exact => out.push(Target::new(path.clone(), Change::Delete, how)),
                    Span::Contents | Span::Pattern => {
                        out.push(Target::new(glob_path(path, written), Change::Delete, how))
                    }
                    Span::Found { .. } => {
                        found_targets(scope, (written, path), names, *recursive, how, out)
                    }
                }
            }
            // `find DIR | xargs rm`: what find lists under DIR, as with `find -exec`.
            Fx::Delete {
                target: DeleteTarget::Stdin { listed },
                how,
                recursive,
                names,
            } => {
                let how = format!("find | xargs {how}");
                for (written, path) in listed {
                    match path {
                        Some(path) => {
                            found_targets(scope, (written, path), names, *recursive, &how, out)
                        }
                        None => out.push(Target::new(PathBuf::from(written), Change::Delete, &how)),
                    }
                }
            }
            Fx::Move {
                from,
                glob: Some(glob),
                ..
            } => out.push(Target::new(from.join(glob), Change::Move, "mv")),
            Fx::Move { from, .. } => out.push(Target::new(from.clone(), Change::Move, "mv")),
            Fx::Chmod { path, how, .. } => out.push(Target::new(path.clone(), Change::Mode, how)),
            // A hard link makes a second name for a protected file's content.
            Fx::Link {
                target,
                symbolic: false,
                ..
            } => out.push(Target::new(target.clone(), Change::Link, "ln")),
            // `touch` rewrites a file's times, `mkdir` makes a place for files.
            Fx::Create { path } => {
                out.push(Target::new(path.clone(), Change::Write, "touch or mkdir"))
            }
            _ => {}
        }
    }
}

/// What `find` selects under `start` (written, resolved) goes: everything below it when no
/// name test narrows it (whatever other tests it has, a protected file may pass them), else
/// the protected entries whose names pass every test (`protect::selected_by_name`).
fn found_targets(
    scope: &Scope,
    (written, start): (&String, &PathBuf),
    names: &[crate::call::NameTest],
    recursive: bool,
    how: &str,
    out: &mut Vec<Target>,
) {
    if names.is_empty() {
        out.push(Target::new(start.clone(), Change::Delete, how));
        return;
    }
    // find prints its start as the shell gave it; `~` and `$HOME` reach it expanded.
    let printed = if written.starts_with(['~', '$']) {
        start.to_string_lossy().into_owned()
    } else {
        written.clone()
    };
    // `-delete` removes a directory only once it is empty; a recursive remover run on a
    // selected directory takes everything below it.
    let whole_dirs = recursive && how != crate::effects::FIND_DELETE;
    for path in crate::protect::selected_by_name(scope, start, &printed, names, whole_dirs) {
        out.push(Target::new(path, Change::Delete, how));
    }
}

/// The glob a delete named (`~/.claude/*`, `dir/settings*`) rebuilt from the directory the
/// effect resolved and the pattern as written, so `protect` can match the pattern.
fn glob_path(dir: &Path, written: &str) -> PathBuf {
    let cut = written.find(['*', '?', '[']).unwrap_or(written.len());
    let tail = match written[..cut].rfind('/') {
        Some(i) => &written[i + 1..],
        None => written,
    };
    dir.join(tail)
}

fn uninstall(c: &Command, scope: &Scope) -> Option<String> {
    let ops: Vec<&str> = c.operands().iter().map(|w| w.text.as_str()).collect();
    match c.program.as_str() {
        "palisade" if ops.first() == Some(&"init") && !c.has_flag(None, &["dry-run"]) => {
            Some("`palisade init` rewrites the hook installation".into())
        }
        "palisade" if ops.first() == Some(&"allow") => {
            Some("`palisade allow` widens the user's policy".into())
        }
        // The hook trusts the broker with its backend answers: the agent must not start one
        // (with a preloaded library, under a debugger, from another binary on the socket).
        "palisade" if ops.first() == Some(&"serve") && !c.has_flag(Some('h'), &["help"]) => Some(
            "`palisade serve` starts the broker the hook trusts with its backend answers".into(),
        ),
        "cargo" if ops.first() == Some(&"uninstall") && ops.contains(&"palisade") => {
            Some("it uninstalls palisade".into())
        }
        "cargo" if ops.first() == Some(&"install") => cargo_install(c, scope),
        _ => None,
    }
}

/// `cargo install palisade`, `--bin palisade`, or `--path DIR` of the palisade package: the
/// installed binary replaces the one that runs as the hook.
fn cargo_install(c: &Command, scope: &Scope) -> Option<String> {
    let with_value = [
        "path",
        "git",
        "root",
        "version",
        "branch",
        "tag",
        "rev",
        "features",
        "bin",
        "example",
        "target",
        "profile",
        "registry",
        "index",
        "config",
        "target-dir",
        "jobs",
        "color",
    ];
    let ops = operands_skipping(c, "jFZ", &with_value);
    let named = ops
        .iter()
        .skip(1)
        .any(|w| w.text == "palisade" || w.text.starts_with("palisade@"));
    let bin = c
        .option_value(None, &["bin"])
        .is_some_and(|b| b == "palisade");
    let from_path = c.option_value(None, &["path"]).is_some_and(|dir| {
        let manifest = resolve_for(scope, c, &dir).join("Cargo.toml");
        // Through the scope's file view: the real manifest in the hook, none in `check`/`replay`.
        scope.files.head(&manifest, 1024 * 1024).is_some_and(|t| {
            t.lines().any(|l| {
                let l: String = l.chars().filter(|ch| !ch.is_whitespace()).collect();
                l == "name=\"palisade\""
            })
        })
    });
    (named || bin || from_path)
        .then(|| "it installs over the palisade binary that runs as the hook".into())
}

/// The names the running hook has, as signal senders match them: its process name and,
/// for `-f`, its command line.
const HOOK_NAMES: &[&str] = &["palisade", "palisade hook"];

/// True when a process-matching pattern could select the hook. `regex`: an extended regex
/// found anywhere in the name (pkill, pgrep, killall -r); otherwise the exact name (killall,
/// pidof). An unreadable pattern could match anything.
fn could_match_hook(pattern: &str, regex: bool, full: bool, anchored: bool) -> bool {
    let names: &[&str] = if full { HOOK_NAMES } else { &HOOK_NAMES[..1] };
    if !regex {
        let base = pattern.rsplit('/').next().unwrap_or(pattern);
        return names.contains(&base);
    }
    let text = if anchored {
        format!("^(?:{pattern})$")
    } else {
        pattern.to_string()
    };
    match regex::Regex::new(&text) {
        Ok(re) => names.iter().any(|n| re.is_match(n)),
        Err(_) => true,
    }
}

/// Patterns a process finder or killer selects by: (pattern, regex, full, anchored).
fn process_patterns(c: &Command) -> Vec<(String, bool, bool, bool)> {
    let case = c.has_flag(Some('i'), &["ignore-case"]);
    let with = |p: &str| {
        if case {
            format!("(?i){p}")
        } else {
            p.to_string()
        }
    };
    match c.program.as_str() {
        "pkill" | "pgrep" => {
            let full = c.has_flag(Some('f'), &["full"]);
            let exact = c.has_flag(Some('x'), &["exact"]);
            operands_skipping(
                c,
                "gGPstUuFn",
                &[
                    "signal", "pgroup", "group", "parent", "session", "terminal", "euid", "uid",
                    "pidfile", "ns", "nslist",
                ],
            )
            .into_iter()
            .map(|w| (with(&w.text), true, full, exact))
            .collect()
        }
        "killall" => {
            let regex = c.has_flag(Some('r'), &["regexp"]);
            operands_skipping(
                c,
                "usoyYnZ",
                &["user", "signal", "older-than", "younger-than", "context"],
            )
            .into_iter()
            .map(|w| (with(&w.text), regex, false, false))
            .collect()
        }
        "pidof" => c
            .operands()
            .into_iter()
            .map(|w| (w.text.clone(), false, false, true))
            .collect(),
        _ => Vec::new(),
    }
}

/// Signals to the hook: `pkill pal`, `killall -r 'pal.*'`, `kill $(pgrep palisade)`,
/// `pgrep -f hook | xargs kill`, `kill -9 -1`. A `kill` of a job (`%1`) or a literal pid passes.
fn kills_hook(a: &ShellAnalysis, _: &Scope) -> Option<String> {
    let hits = |c: &Command| {
        process_patterns(c)
            .into_iter()
            .find(|(p, regex, full, anchored)| could_match_hook(p, *regex, *full, *anchored))
            .map(|(p, ..)| p)
    };
    for c in &a.commands {
        if matches!(c.program.as_str(), "pkill" | "killall")
            && let Some(p) = hits(c)
        {
            return Some(format!(
                "`{}` selects processes by `{p}`, which matches palisade",
                c.program
            ));
        }
        if c.program == "kill" && c.args.last().is_some_and(|w| w.text == "-1") {
            return Some("`kill -1` signals every process of the user, the hook included".into());
        }
        // `pkill -u dev`, `killall -u dev`: every process of a user, no name to narrow it.
        let by_user = match c.program.as_str() {
            "pkill" => c.has_flag(Some('u'), &["user", "euid"]) || c.has_flag(Some('U'), &["uid"]),
            "killall" => c.has_flag(Some('u'), &["user", "euid"]),
            _ => false,
        };
        if by_user && process_patterns(c).is_empty() {
            return Some(format!(
                "`{}` signals every process of the user, the hook included",
                c.program
            ));
        }
        if c.program == "killall5" {
            return Some("`killall5` signals every process outside its session".into());
        }
    }
    // `kill` fed by a finder: `kill $(pgrep palisade)`, `pidof palisade | xargs kill`.
    let kill = a
        .commands
        .iter()
        .any(|c| c.program == "kill" && (c.args_from_stdin || c.args.iter().any(|w| w.dynamic)));
    if kill
        && let Some((c, p)) = a
            .commands
            .iter()
            .filter(|c| matches!(c.program.as_str(), "pgrep" | "pidof"))
            .find_map(|c| hits(c).map(|p| (c, p)))
    {
        return Some(format!(
            "`kill` signals what `{} {p}` finds, which matches palisade",
            c.program
        ));
    }
    None
}

/// Variables that move where an agent finds its settings or where palisade keeps its state.
fn moves_config(name: &str) -> bool {
    matches!(
        name,
        "HOME" | "CLAUDE_CONFIG_DIR" | "XDG_CONFIG_HOME" | "XDG_DATA_HOME"
    ) || name.starts_with("PALISADE_")
}

/// A nested `claude` that would run without this hook or without its permission checks; or
/// another agent (which runs no Claude Code hook at all) told to run every command without
/// its own approvals or sandbox.
fn hookless_agent(c: &Command, _: &Scope) -> Option<String> {
    if c.program != "claude" {
        let value = |short: Option<char>, long: &[&str]| c.option_value(short, long);
        let unchecked = match c.program.as_str() {
            "codex" => {
                c.has_flag(None, &["dangerously-bypass-approvals-and-sandbox", "yolo"])
                    || value(Some('s'), &["sandbox"]).is_some_and(|v| v == "danger-full-access")
                    || c.args.iter().any(|a| a.text.contains("danger-full-access"))
            }
            "gemini" => {
                c.has_flag(Some('y'), &["yolo"])
                    || value(None, &["approval-mode"]).is_some_and(|v| v == "yolo")
            }
            "aider" => c.has_flag(None, &["yes-always"]),
            "cursor-agent" => c.has_flag(Some('f'), &["force"]),
            "amp" => c.has_flag(None, &["dangerously-allow-all"]),
            _ => false,
        };
        return unchecked.then(|| {
            format!(
                "`{}` runs its commands without its own approvals, and no hook of Claude Code's checks them",
                c.program
            )
        });
    }
    if c.args.iter().any(|a| a.text.contains("disableAllHooks")) {
        return Some("it starts Claude Code with hooks disabled".into());
    }
    if let Some((k, _)) = c.env.iter().find(|(k, _)| moves_config(k)) {
        return Some(format!(
            "`{k}=` in front of `claude` starts an agent with other settings, where this hook may not be installed"
        ));
    }
    const BYPASS: &[&str] = &[
        "bare",
        "settings",
        "setting-sources",
        "dangerously-skip-permissions",
        "allow-dangerously-skip-permissions",
        "plugin-dir",
    ];
    if let Some(flag) = BYPASS.iter().find(|f| c.has_flag(None, &[f])) {
        return Some(format!(
            "`claude --{flag}` starts an agent whose hooks or permission checks can be dropped"
        ));
    }
    if c.option_value(None, &["permission-mode"])
        .is_some_and(|m| m == "bypassPermissions")
    {
        return Some(
            "`claude --permission-mode bypassPermissions` skips every permission check".into(),
        );
    }
    None
}

/// `claude config set|add|remove KEY …` of a setting that decides what runs unchecked: the
/// hooks, the permissions, the environment every command gets, the MCP servers enabled
/// without asking, a helper run for keys. The CLI writes the same settings a file edit would.
fn settings_command(c: &Command, _: &Scope) -> Option<String> {
    const KEYS: &[&str] = &[
        "hooks",
        "disableallhooks",
        "permissions",
        "allowedtools",
        "defaultmode",
        "env",
        "apikeyhelper",
        "awsauthrefresh",
        "awscredentialexport",
        "enableallprojectmcpservers",
        "enabledmcpjsonservers",
        "statusline",
        "otelheadershelper",
    ];
    let ops = super::common::positionals(c);
    if ops.first() != Some(&"config") || !matches!(ops.get(1), Some(&("set" | "add" | "remove"))) {
        return None;
    }
    let key = ops.get(2)?;
    let head = key.split('.').next().unwrap_or(key).to_ascii_lowercase();
    KEYS.contains(&head.as_str()).then(|| {
        format!(
            "`claude config {} {key}` changes Claude Code's settings",
            ops[1]
        )
    })
}

/// Shell start-up files as a way to run a file unseen: `BASH_ENV=f bash -c …`, `ENV=f sh -i`,
/// `bash --rcfile f`, `PROMPT_COMMAND=…`, `ZDOTDIR=d zsh`, and the same exported.
fn startup_file(c: &Command, _: &Scope) -> Option<String> {
    let prog = c.program.as_str();
    let shell = matches!(
        prog,
        "bash" | "sh" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "yash"
    );
    let var_runs = |k: &str, v: &str| match k {
        "BASH_ENV" | "PROMPT_COMMAND" | "ZDOTDIR" => true,
        // `ENV=production npm start` is a setting; `ENV=./f sh -i` names a file.
        "ENV" => v.contains('/') || v.ends_with(".sh"),
        _ => false,
    };
    if shell && let Some((k, _)) = c.env.iter().find(|(k, v)| var_runs(k, &v.text)) {
        return Some(format!(
            "`{k}=` makes {prog} run a file before the command, unseen by the analysis"
        ));
    }
    // The same variables on a `bash -c` that was unwrapped to reach this command.
    if let Some(w) = c
        .wrappers
        .iter()
        .find(|w| w.split_once('=').is_some_and(|(k, v)| var_runs(k, v)))
    {
        let k = w.split('=').next().unwrap_or("");
        return Some(format!(
            "`{k}=` makes the shell run a file before the command, unseen by the analysis"
        ));
    }
    if shell && c.has_flag(None, &["rcfile", "init-file"]) {
        return Some(format!(
            "`{prog} --rcfile` runs a start-up file unseen by the analysis"
        ));
    }
    if matches!(
        prog,
        "export" | "declare" | "typeset" | "readonly" | "setenv"
    ) {
        for a in &c.args {
            let (k, v) = a.text.split_once('=').unwrap_or((a.text.as_str(), ""));
            if var_runs(k, v) {
                return Some(format!(
                    "`{prog} {k}=` makes later shells run a file unseen by the analysis"
                ));
            }
        }
    }
    None
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
            Example::bash("ln -s ~/.claude/settings.json cfg.json && echo '{}' > cfg.json"),
            Example::bash("ln -sf ~/.claude c && printf '{}' > c/settings.json"),
            // What `find` selects, by its name tests on the `Delete` effect.
            Example::bash("find . -name .palisade.yaml -delete"),
            Example::bash("find ~/.claude ! -name '*.md' -delete"),
            Example::bash("find ~/.claude -regex '.*\\(settings\\|x\\)\\.json' -delete"),
            Example::bash("find ~/.claude -name 'settings.js[o]n' -exec rm {} +"),
            Example::bash("find ~/.claude -type f | xargs rm -f"),
            // A glob's pattern, on the `Move` effect.
            Example::bash("mv ~/.claude/s* /tmp/"),
            // Writes git and patch make.
            Example::bash("patch -d ~/.claude -p1 < x.patch"),
            Example::bash("git restore .palisade.yaml"),
            Example::bash("git checkout main .claude/settings.json"),
            Example::bash("GIT_WORK_TREE=~/.claude git reset --hard"),
            Example::bash("touch ~/.claude/settings.json"),
        ],
        allowed: &[
            Example::bash("cat ~/.claude/settings.json"),
            Example::bash("ln -s ../README.md docs/README.md && echo hi >> docs/README.md"),
            Example::bash("ln -s ~/.claude/settings.json settings-link.json"),
            Example::tool(
                "Read",
                r#"{"file_path":"/home/dev/.config/palisade/policy.yaml"}"#,
            ),
            Example::tool(
                "Write",
                r#"{"file_path":"/home/dev/project/.claude/commands/review.md","content":"x"}"#,
            ),
            Example::bash("palisade audit verify"),
            Example::bash("find . -name '*.pyc' -delete"),
            Example::bash("find ~/.claude/commands -name '*.md' -exec rm {} +"),
            Example::bash("find . -name '*.o' | xargs rm -f"),
            Example::bash("mv *.log logs/"),
            Example::bash("patch -p1 < fix.diff"),
            Example::bash("git checkout -- src/main.rs"),
            Example::bash("git restore --staged .palisade.yaml"),
            Example::bash("touch build/stamp"),
        ],
    },
    Rule {
        id: "firewall-files-unresolved",
        pack: PACK,
        effect: Ask,
        reason: "This changes a path palisade cannot resolve before it runs, and it may be one of palisade's or Claude Code's protected files",
        programs: &[],
        check: Check::Call(unresolved),
        refused: &[
            Example::bash("echo '{}' > \"$(cat f)/.claude/settings.json\""),
            Example::bash(
                "python3 -c \"import os,pathlib; pathlib.Path(os.environ['D'], 'palisade.yaml').write_text('x')\"",
            ),
        ],
        allowed: &[
            Example::bash("echo x > \"$OUT/result.txt\""),
            Example::bash("python3 -c \"open('out.txt','w').write('x')\""),
        ],
    },
    Rule {
        id: "disable-firewall",
        pack: PACK,
        effect: Deny,
        reason: "Reinstalling, uninstalling or disabling palisade is for the user to do, not the agent",
        programs: &["palisade", "cargo"],
        check: Check::Command(uninstall),
        refused: &[
            Example::bash("palisade init --uninstall"),
            Example::bash("cargo uninstall palisade"),
            Example::bash("palisade allow --yes"),
            Example::bash("cargo install --force palisade"),
            Example::bash("cargo install --bin palisade --git https://example.com/p"),
            Example::bash("palisade serve"),
            Example::bash("nohup /usr/local/bin/palisade serve >/dev/null 2>&1 &"),
            Example::bash("LD_PRELOAD=/tmp/x.so ~/.cargo/bin/palisade -v serve"),
            Example::bash("bash -c 'palisade serve &'"),
            Example::bash("setsid 'palisade' serve"),
        ],
        allowed: &[
            Example::bash("palisade serve --help"),
            Example::bash("palisade explain"),
            Example::bash("cargo uninstall ripgrep"),
            Example::bash("cargo install --force ripgrep"),
            Example::bash("palisade init --dry-run"),
        ],
    },
    Rule {
        id: "signal-firewall",
        pack: PACK,
        effect: Deny,
        reason: "Signalling palisade's processes would end the check of a call in progress",
        programs: &[],
        check: Check::Line(kills_hook),
        refused: &[
            Example::bash("kill $(pgrep palisade)"),
            Example::bash("pkill pal"),
            Example::bash("killall -r 'pal.*'"),
            Example::bash("pgrep -f hook | xargs kill -9"),
            Example::bash("killall palisade"),
            Example::bash("kill -9 -1"),
            Example::bash("pkill -u $USER"),
            Example::bash("pkill -9 --euid dev"),
            Example::bash("killall -u dev"),
            Example::bash("sudo killall5 -9"),
        ],
        allowed: &[
            Example::bash("kill %1"),
            Example::bash("pkill -u dev -f 'node server.js'"),
            Example::bash("killall -u dev node"),
            Example::bash("kill 12345"),
            Example::bash("pkill -f 'node server.js'"),
            Example::bash("killall node"),
            Example::bash("kill $(cat server.pid)"),
        ],
    },
    Rule {
        id: "hookless-agent",
        pack: PACK,
        effect: Deny,
        reason: "A nested agent started with other settings or without permission checks escapes this hook",
        programs: &["claude", "codex", "gemini", "aider", "cursor-agent", "amp"],
        check: Check::Command(hookless_agent),
        refused: &[
            Example::bash("claude --settings '{\"disableAllHooks\":true}' -p x"),
            Example::bash("claude --bare -p x"),
            Example::bash("claude --dangerously-skip-permissions -p x"),
            Example::bash("npx -y @anthropic-ai/claude-code -p x --dangerously-skip-permissions"),
            Example::bash("npx @google/gemini-cli --yolo -p x"),
            Example::bash("pipx run aider-chat --yes-always -m x"),
            Example::bash("HOME=/tmp/h claude -p x"),
            Example::bash("env CLAUDE_CONFIG_DIR=/tmp/c claude -p x"),
            Example::bash("PALISADE_CONFIG=/tmp/p.yaml claude -p x"),
            Example::bash("codex exec --dangerously-bypass-approvals-and-sandbox 'fix it'"),
            Example::bash("codex exec -s danger-full-access 'fix it'"),
            Example::bash("gemini --yolo -p 'fix it'"),
            Example::bash("aider --yes-always --message 'fix it'"),
            Example::bash("cursor-agent -p --force 'fix it'"),
        ],
        allowed: &[
            Example::bash("claude -p 'summarise the diff'"),
            Example::bash("claude --version"),
            Example::bash("codex exec 'summarise the diff'"),
            Example::bash("codex exec --full-auto 'add a test'"),
            Example::bash("gemini -p 'explain src/main.rs'"),
        ],
    },
    Rule {
        id: "agent-settings-command",
        pack: PACK,
        effect: Deny,
        reason: "Changing Claude Code's hooks, permissions or environment through its CLI is editing the settings that install this hook; ask the user to change them",
        programs: &["claude"],
        check: Check::Command(settings_command),
        refused: &[
            Example::bash("claude config set -g hooks '{}'"),
            Example::bash("claude config add permissions.allow 'Bash(*)'"),
            Example::bash("claude config set disableAllHooks true"),
            Example::bash("claude config set env.PALISADE_CONFIG /tmp/p.yaml"),
        ],
        allowed: &[
            Example::bash("claude config set -g theme dark"),
            Example::bash("claude config get hooks"),
            Example::bash("claude config list"),
        ],
    },
    Rule {
        id: "startup-file",
        pack: PACK,
        effect: Deny,
        reason: "Shell start-up files run before the command and are not seen by the analysis",
        programs: &[],
        check: Check::Command(startup_file),
        refused: &[
            Example::bash("BASH_ENV=/tmp/f bash -c true"),
            Example::bash("ENV=/tmp/f sh -i"),
            Example::bash("bash --rcfile /tmp/f -i"),
            Example::bash("PROMPT_COMMAND='sh /tmp/f' bash -i"),
            Example::bash("export BASH_ENV=/tmp/f"),
        ],
        allowed: &[
            Example::bash("ENV=production npm start"),
            Example::bash("bash -c 'echo hi'"),
            Example::bash("export PATH=$PATH:/opt/bin"),
            Example::bash("export ENV=production"),
        ],
    },
];
