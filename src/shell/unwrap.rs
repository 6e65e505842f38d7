//! Wrappers: commands that run another command (`sudo`, `env`, `timeout`, `xargs`, `find -exec`)
//! or shell code (`bash -c`, `eval`, `su -c`, `git -c alias.x=!…`). The inner command is what
//! the rules must see, with the path of wrappers recorded.
//!
//! Which wrappers are emitted themselves: `find` (its own `-delete`, `-fprint`…), `git` (its
//! subcommand), non-shell interpreters (`python3 -c …`: the code is not shell), and any wrapper
//! left with no inner command (`sudo -i`, `env`, `exec >f`, `xargs`, `command -v x`). Pure
//! launchers (`sudo rm`, `timeout 5 rm`, `bash -c 'rm'`) are replaced by what they launch.

use super::parse::{Analyser, Ctx, Invocation, join_dir, positional_from};
use super::words::{Expanded, basename};
use super::{MAX_NESTING, ShellFinding, Word};
use std::rc::Rc;

mod fanout;

/// Upper bound on `{}` replacements for one `find -exec`, so `find a b c … -exec x {} {} {}…`
/// cannot multiply words without bound.
const MAX_FIND_WORDS: usize = 4096;

/// What one unwrapping step decided.
enum Flow {
    /// The invocation now holds the inner command; record the wrapper and go on.
    Inner(Wrap),
    /// Not a wrapper (or a wrapper with nothing inside): record the invocation as it is.
    Emit,
    /// As `Emit`, for a privilege wrapper with nothing inside (`sudo -i`, `su`).
    EmitPrivileged,
    /// Handled completely; the index of the command whose output leaves it.
    Done(Option<usize>),
}

struct Wrap {
    label: String,
    privileged: bool,
    cwd: Option<String>,
    args_from_stdin: bool,
}

impl Wrap {
    fn new(label: impl Into<String>) -> Wrap {
        Wrap {
            label: label.into(),
            privileged: false,
            cwd: None,
            args_from_stdin: false,
        }
    }

    fn privileged(label: impl Into<String>) -> Wrap {
        Wrap {
            privileged: true,
            ..Wrap::new(label)
        }
    }
}

use super::switches::Source;

/// Interpreters whose code the unwrapper treats differently: a shell's is unwrapped into
/// commands, PowerShell's rewritten, AppleScript's `do shell script` run; the rest reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Shell,
    Pwsh,
    Osascript,
    /// Tcl: the programs its `exec` starts are read.
    Tcl,
    Code,
}

fn interpreter_kind(name: &str) -> Option<Kind> {
    if matches!(super::switches::family(name), "pwsh" | "powershell") {
        return Some(Kind::Pwsh);
    }
    Some(match super::switches::switches(name)?.language {
        "shell" => Kind::Shell,
        "applescript" => Kind::Osascript,
        "tcl" => Kind::Tcl,
        _ => Kind::Code,
    })
}

/// Index of the first operand at or after `from`: options (and their values) are skipped, `--`
/// ends them. `value_short` lists short options that take a value, `value_long` long ones.
fn skip_options(args: &[Expanded], from: usize, value_short: &str, value_long: &[&str]) -> usize {
    let mut i = from;
    while i < args.len() {
        let a = args[i].text();
        if a == "--" {
            return i + 1;
        }
        if let Some(long) = a.strip_prefix("--") {
            let takes_next = !long.contains('=') && value_long.contains(&a);
            i += if takes_next { 2 } else { 1 };
            continue;
        }
        if a.len() < 2 || !a.starts_with('-') {
            return i;
        }
        let cluster = &a[1..];
        let mut skip = 1;
        for (ci, ch) in cluster.char_indices() {
            if value_short.contains(ch) {
                if ci + ch.len_utf8() == cluster.len() {
                    skip = 2;
                }
                break;
            }
        }
        i += skip;
    }
    args.len().min(i)
}

/// Long options of `pm2 start` and `forever start` that take a value.
const PROCESS_MANAGER_VALUES: &[&str] = &[
    "--name",
    "--instances",
    "--interpreter",
    "--interpreter-args",
    "--node-args",
    "--output",
    "--error",
    "--log",
    "--cwd",
    "--max-memory-restart",
    "--cron",
    "--cron-restart",
    "--env",
    "--namespace",
    "--restart-delay",
    "--max-restarts",
    "--kill-timeout",
    "--listen-timeout",
    "--log-date-format",
    "--pid",
    "--uid",
    "--gid",
    "--ignore-watch",
    "--exp-backoff-restart-delay",
    "--sourceDir",
    "--workingDir",
    "--minUptime",
    "--spinSleepTime",
];

/// The words of `args` that are not options or their values.
fn operands_of<'a>(args: &'a [Expanded], value_short: &str, value_long: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut i = skip_options(args, 0, value_short, value_long);
    while let Some(a) = args.get(i) {
        out.push(a.text());
        i = skip_options(args, i + 1, value_short, value_long);
    }
    out
}

/// The host of a transfer client's operand: `user@host:path`, `//host/share`,
/// `sftp://user@host/dir`.
fn transfer_host(operand: &str) -> String {
    let rest = operand.split_once("://").map_or(operand, |(_, r)| r);
    let rest = rest.trim_start_matches('/');
    let rest = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
    rest.split(['/', ':']).next().unwrap_or("").to_string()
}

/// A transfer client's commands as the shell lines that move the same files. Commands are
/// one per line or `;`-separated (lftp, smbclient); `open HOST` changes the host.
fn transfer_lines(client: &str, host: &str, script: &str) -> Vec<String> {
    let scheme = match client {
        "sftp" => "sftp",
        "smbclient" => "smb",
        _ => "ftp",
    };
    let mut host = host.to_string();
    let mut out = Vec::new();
    // Bare when plain, so `~` still expands, as the clients do.
    let word = super::indirect::shell_word;
    for command in script
        .lines()
        .flat_map(|l| l.split(';'))
        .take(MAX_TRANSFER_COMMANDS)
    {
        let command = command.trim();
        if let Some(local) = command.strip_prefix('!') {
            out.push(local.trim().to_string());
            continue;
        }
        let mut words = command.split_whitespace();
        let Some(verb) = words.next() else { continue };
        let rest = command[verb.len()..].trim();
        let args: Vec<&str> = words.filter(|w| !w.starts_with('-')).collect();
        let url = |remote: &str| format!("{scheme}://{host}/{}", remote.trim_start_matches('/'));
        match verb {
            "open" | "connect" => {
                if let Some(h) = args.first() {
                    host = transfer_host(h);
                }
            }
            "put" | "reput" | "append" | "send" => {
                if let Some(local) = args.first() {
                    out.push(format!("curl -T {} {}", word(local), word(&url(""))));
                }
            }
            "mput" => {
                for local in &args {
                    out.push(format!("curl -T {} {}", word(local), word(&url(""))));
                }
            }
            "get" | "reget" | "recv" => {
                if let Some(remote) = args.first() {
                    let local = args
                        .get(1)
                        .copied()
                        .unwrap_or_else(|| remote.rsplit('/').next().unwrap_or(remote));
                    out.push(format!("curl -o {} {}", word(local), word(&url(remote))));
                }
            }
            "lcd" => {
                if let Some(dir) = args.first() {
                    out.push(format!("cd {}", word(dir)));
                }
            }
            "shell" | "system" => out.push(rest.to_string()),
            _ => {}
        }
    }
    out
}

/// Most commands of a transfer client's script read.
const MAX_TRANSFER_COMMANDS: usize = 256;

/// Makes `args[index]` the program and the words after it the arguments.
fn promote(inv: &mut Invocation, index: usize) -> bool {
    if index >= inv.args.len() {
        return false;
    }
    let mut rest = inv.args.split_off(index);
    inv.program = rest.remove(0);
    inv.args = rest;
    true
}

/// `NAME=value` as `env` and `sudo` read it.
fn env_assignment(w: &Expanded) -> Option<(String, Word)> {
    let (name, value) = w.text().split_once('=')?;
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| {
        (
            name.to_string(),
            Word {
                text: value.to_string(),
                dynamic: w.word.dynamic,
                glob: false,
            },
        )
    })
}

/// Moves leading `NAME=value` words into the environment; returns the index after them.
fn take_env(inv: &mut Invocation, mut i: usize) -> usize {
    while let Some(w) = inv.args.get(i) {
        match env_assignment(w) {
            Some(pair) => inv.env.push(pair),
            None => break,
        }
        i += 1;
    }
    i
}

fn has_arg(inv: &Invocation, upto: usize, names: &[&str]) -> bool {
    inv.args[..upto.min(inv.args.len())]
        .iter()
        .any(|a| names.contains(&a.text()))
}

/// True when the argument at `index` is one of `names`.
fn arg_at(inv: &Invocation, index: usize, names: &[&str]) -> bool {
    inv.args
        .get(index)
        .is_some_and(|a| names.contains(&a.text()))
}

/// The body of a text that is one command substitution and nothing else (`$(…)`, `` `…` ``).
fn substitution_body(text: &str) -> Option<&str> {
    let t = text.trim();
    t.strip_prefix("$(")
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| t.strip_prefix('`').and_then(|r| r.strip_suffix('`')))
}

/// Whether `text` is one command substitution of one simple command.
fn is_one_substitution(text: &str) -> bool {
    substitution_body(text).is_some_and(|i| !i.contains(['$', '`', '(', ')', ';', '&', '|', '\n']))
}

/// The file a word is the whole text of: `$(cat F)`, `$(< F)`, `` `cat F` `` with one plain
/// path F (no expansion, quoting or pattern in it).
fn substituted_file(w: &Expanded) -> Option<String> {
    let inner = substitution_body(w.text())?.trim();
    let file = match inner.strip_prefix('<') {
        Some(f) => f.trim(),
        None => {
            let rest = inner.strip_prefix("cat ")?.trim_start();
            rest.strip_prefix("-- ").unwrap_or(rest).trim()
        }
    };
    let plain = !file.is_empty()
        && !file.starts_with('-')
        && !file.contains(|c: char| c.is_whitespace() || "$`'\"\\*?[]{}()<>|;&".contains(c));
    plain.then(|| file.to_string())
}

/// `promote`s `args[index]` to the program, as the command a wrapper named `label` runs;
/// nothing unwrapped when there is no such argument.
fn promote_as(inv: &mut Invocation, index: usize, label: &str) -> Flow {
    if promote(inv, index) {
        Flow::Inner(Wrap::new(label))
    } else {
        Flow::Emit
    }
}

/// The command after the first `marker` of a runner that takes it there (`op run -- CMD`,
/// `lldb -- PROG ARGS`, `gdb --args PROG ARGS`); nothing unwrapped without one.
fn promote_after(inv: &mut Invocation, marker: &str, label: &str) -> Flow {
    match inv.args.iter().position(|a| a.text() == marker) {
        Some(at) => promote_as(inv, at + 1, label),
        None => Flow::Emit,
    }
}

/// Index of the command in `bwrap`'s arguments: its options take zero, one or two values
/// (`--bind SRC DEST`, `--chdir DIR`, `--unshare-all`).
fn bwrap_command(args: &[Expanded]) -> usize {
    const TWO: &[&str] = &[
        "--bind",
        "--bind-try",
        "--ro-bind",
        "--ro-bind-try",
        "--dev-bind",
        "--dev-bind-try",
        "--symlink",
        "--setenv",
        "--file",
        "--bind-data",
        "--ro-bind-data",
        "--chmod",
        "--overlay-src",
    ];
    const ONE: &[&str] = &[
        "--chdir",
        "--proc",
        "--dev",
        "--tmpfs",
        "--mqueue",
        "--dir",
        "--unsetenv",
        "--uid",
        "--gid",
        "--hostname",
        "--remount-ro",
        "--seccomp",
        "--exec-label",
        "--file-label",
        "--lock-file",
        "--sync-fd",
        "--info-fd",
        "--json-status-fd",
        "--block-fd",
        "--userns-block-fd",
        "--userns",
        "--userns2",
        "--pidns",
        "--cap-add",
        "--cap-drop",
        "--perms",
        "--size",
        "--args",
        "--argv0",
        "--tmp-overlay",
        "--ro-overlay",
    ];
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text();
        if t == "--" {
            return i + 1;
        }
        if !t.starts_with("--") {
            return i;
        }
        i += 1 + if TWO.contains(&t) {
            2
        } else {
            usize::from(ONE.contains(&t))
        };
    }
    i
}

/// A runner (`npx`, `npm exec`, `bundle exec`, `python -m`, `docker exec`…): after `lead` words
/// of its own, its options and `skip_operands` operands, the command it runs. A package
/// version (`prisma@5`) is not part of the program's name.
/// The options of `docker compose exec` and `run` that take a value.
const COMPOSE_SHORT: &str = "eluwpv";
const COMPOSE_LONG: &[&str] = &[
    "--env",
    "--env-file",
    "--label",
    "--user",
    "--workdir",
    "--index",
    "--name",
    "--entrypoint",
    "--publish",
    "--volume",
    "--pull",
    "--cap-add",
    "--cap-drop",
];

/// Where `exec` or `run` stands after compose's own options (`-f FILE`, `-p NAME`,
/// `--env-file F`, `--profile P`…), from `from`.
fn compose_subcommand(inv: &Invocation, from: usize) -> Option<usize> {
    let at = skip_options(
        &inv.args,
        from,
        "fp",
        &[
            "--file",
            "--project-name",
            "--env-file",
            "--profile",
            "--project-directory",
            "--ansi",
            "--progress",
            "--parallel",
        ],
    );
    matches!(inv.args.get(at)?.text(), "exec" | "run").then_some(at)
}

/// `docker compose exec|run [opts] SERVICE CMD…`, options from `lead`: CMD, or with
/// `--entrypoint E` the entrypoint given the words after the service.
fn compose_command(inv: &mut Invocation, lead: usize) -> Flow {
    let entrypoint = inv.args.iter().enumerate().find_map(|(i, a)| {
        match a.text().strip_prefix("--entrypoint") {
            Some("") => inv.args.get(i + 1).cloned(),
            Some(v) => v.strip_prefix('=').map(Expanded::literal),
            None => None,
        }
    });
    if let Some(entrypoint) = entrypoint {
        let service = skip_options(&inv.args, lead, COMPOSE_SHORT, COMPOSE_LONG);
        if service < inv.args.len() {
            inv.args[service] = entrypoint;
            return strip_runner(inv, "docker compose", lead, COMPOSE_SHORT, COMPOSE_LONG, 0);
        }
    }
    strip_runner(inv, "docker compose", lead, COMPOSE_SHORT, COMPOSE_LONG, 1)
}

fn strip_runner(
    inv: &mut Invocation,
    label: &str,
    lead: usize,
    value_short: &str,
    value_long: &[&str],
    skip_operands: usize,
) -> Flow {
    let i = skip_options(&inv.args, lead, value_short, value_long) + skip_operands;
    if !promote(inv, i) {
        return Flow::Emit;
    }
    let text = inv.program.word.text.clone();
    if let Some(at) = text
        .char_indices()
        .skip(1)
        .find(|(_, c)| *c == '@')
        .map(|(i, _)| i)
    {
        inv.program.word.text = text[..at].to_string();
    }
    // A package whose command has another name (`npx @anthropic-ai/claude-code` runs `claude`).
    if let Some((_, bin)) = PACKAGE_BINARIES
        .iter()
        .find(|(package, _)| *package == inv.program.word.text)
    {
        inv.program.word.text = (*bin).to_string();
    }
    Flow::Inner(Wrap::new(label))
}

/// Packages a runner runs by a command of another name: the coding agents, whose rules know
/// them by their commands.
const PACKAGE_BINARIES: &[(&str, &str)] = &[
    ("@anthropic-ai/claude-code", "claude"),
    ("@google/gemini-cli", "gemini"),
    ("@openai/codex", "codex"),
    ("@sourcegraph/amp", "amp"),
    ("opencode-ai", "opencode"),
    ("aider-chat", "aider"),
];

/// The wrapper label of a command `systemd-run` schedules (a timer, a path or socket trigger):
/// it runs after this session, as an `at` job does.
pub const SCHEDULED_UNIT: &str = "systemd-run timer";

/// uvx's options that take a value.
const UVX_VALUES: &[&str] = &[
    "--from",
    "--with",
    "--with-editable",
    "--with-requirements",
    "--python",
    "--index",
    "--index-url",
    "--extra-index-url",
    "--default-index",
];

/// The file a program hands its editor: `visudo` the sudoers (or its `-f FILE`), `vipw` and
/// `vigr` the account files, `sudoedit FILE` (`sudo -e FILE`) its file.
fn edited_file(inv: &Invocation) -> Option<String> {
    let args: Vec<&str> = inv.args.iter().map(|a| a.text()).collect();
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| *a == flag)
            .and_then(|i| args.get(i + 1))
            .map(|v| v.to_string())
    };
    match basename(inv.program.text()) {
        "visudo" => Some(value_of("-f").unwrap_or_else(|| "/etc/sudoers".into())),
        "vipw" => Some(
            if args.contains(&"-s") {
                "/etc/shadow"
            } else {
                "/etc/passwd"
            }
            .into(),
        ),
        "vigr" => Some(
            if args.contains(&"-s") {
                "/etc/gshadow"
            } else {
                "/etc/group"
            }
            .into(),
        ),
        "sudoedit" => args
            .iter()
            .find(|a| !a.starts_with('-'))
            .map(|a| a.to_string()),
        // `sudo -e FILE` is `sudoedit FILE`: the first operand after the flag.
        "sudo" => {
            let at = args.iter().position(|a| matches!(*a, "-e" | "--edit"))?;
            args[at + 1..]
                .iter()
                .find(|a| !a.starts_with('-'))
                .map(|a| a.to_string())
        }
        _ => None,
    }
}

/// A wrapper whose inner command follows its options and `skip_operands` operands.
/// Paths that name the standard input of the process that opens them.
const STDIN_PATHS: &[&str] = &["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];

fn strip_simple(
    inv: &mut Invocation,
    label: &str,
    value_short: &str,
    value_long: &[&str],
    skip_operands: usize,
) -> Flow {
    let i = skip_options(&inv.args, 0, value_short, value_long) + skip_operands;
    promote_as(inv, i, label)
}

impl Analyser<'_> {
    /// Unwraps an invocation down to the command it really runs and records it.
    pub(super) fn run(&mut self, mut inv: Invocation, ctx: &Ctx) -> Option<usize> {
        let mut local: Option<Ctx> = None;
        // Variables read so far (`env A=x sudo B=y cmd` adds them level by level).
        let mut env_read = 0;
        loop {
            let cur = local.as_ref().unwrap_or(ctx);
            if inv.env.len() > env_read {
                self.env_commands(&inv, env_read, cur);
                env_read = inv.env.len();
            }
            if cur.depth > MAX_NESTING {
                self.too_complex(format!("more than {MAX_NESTING} nested wrappers"));
                return None;
            }
            let flow = if inv.program.word.dynamic {
                Flow::Emit
            } else {
                self.step(&mut inv, cur)
            };
            match flow {
                Flow::Emit => return Some(self.emit(inv, cur)),
                Flow::EmitPrivileged => {
                    let mut c = cur.clone();
                    c.privileged = true;
                    return Some(self.emit(inv, &c));
                }
                Flow::Done(result) => return result,
                Flow::Inner(w) => {
                    let mut c = cur.clone();
                    c.depth += 1;
                    c.wrappers.push(w.label);
                    c.privileged |= w.privileged;
                    c.args_from_stdin |= w.args_from_stdin;
                    if let Some(dir) = w.cwd {
                        c.cwd = Some(join_dir(c.cwd.as_deref(), &dir));
                    }
                    local = Some(c);
                }
            }
        }
    }

    /// Variables of `inv` from `from` on whose value the program runs or loads
    /// (`vocab::variable_command`): `PAGER='…' man ls`, `GIT_SSH_COMMAND='…' git fetch`,
    /// `LESSOPEN='|… %s' less f`, `NODE_OPTIONS='--require x.js' node app.js`. Each is analysed
    /// as the command line it amounts to.
    pub(super) fn env_commands(&mut self, inv: &Invocation, from: usize, ctx: &Ctx) {
        for (k, v) in &inv.env[from..] {
            let Some(mut line) = super::indirect::variable_command(k, &v.text) else {
                continue;
            };
            // The editor is handed the file the program edits (`EDITOR='tee -a' visudo`
            // appends to the sudoers).
            if matches!(k.as_str(), "EDITOR" | "VISUAL" | "SUDO_EDITOR")
                && let Some(file) = edited_file(inv)
            {
                line = format!("{line} {}", super::indirect::shell_word(&file));
            }
            let label = format!("{k}=");
            let mut sctx = ctx.clone();
            sctx.depth += 1;
            sctx.wrappers.push(label.clone());
            let script = Expanded {
                word: Word {
                    text: line,
                    ..v.clone()
                },
                substitutions: None,
            };
            self.run_script("env", &label, &script, sctx);
        }
    }

    /// A package runner (`npx`, `pnpm dlx`, `uvx`, `uv run`, `pipx run`): the command it runs,
    /// as `strip_runner` finds it, after reporting a package it fetches from a URL or a
    /// repository (the package run, or one its options add: `--package`, `--from`, `--with`,
    /// `--spec`), which no registry or lockfile vouches for.
    fn package_runner(
        &mut self,
        inv: &mut Invocation,
        label: &str,
        lead: usize,
        value_short: &str,
        value_long: &[&str],
        npm: bool,
    ) -> Flow {
        let program = skip_options(&inv.args, lead, value_short, value_long);
        let end = (program + 1).min(inv.args.len());
        let spec = inv.args.get(lead..end).and_then(|words| {
            words.iter().find_map(|w| {
                let t = w.text();
                // `--from=git+https://…`: the value of a glued option.
                let value = t
                    .split_once('=')
                    .filter(|_| t.starts_with("--"))
                    .map_or(t, |(_, v)| v);
                super::indirect::remote_package_spec(value, npm).then(|| value.to_string())
            })
        });
        if let Some(spec) = spec {
            self.finding(ShellFinding::PackageFromUrl {
                runner: label.to_string(),
                spec,
            });
        }
        strip_runner(inv, label, lead, value_short, value_long, 0)
    }

    fn step(&mut self, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        // An alias defined earlier runs its value with the words after it (with
        // `expand_aliases`, as Claude Code's shell has it). While its value is read, the
        // alias is not expanded again, as in bash (`alias ls='ls -F'`).
        // The words run as written too: bash applies an alias only to lines read after it is
        // defined (not later on the same line), and not at all without `expand_aliases`.
        // One defined on some ways through the line only has each of its values.
        if self.aliases.contains_key(inv.program.text())
            && let Some((word, values)) =
                Rc::make_mut(&mut self.aliases).remove_entry(inv.program.text())
        {
            // Each value from the state before it; the words as written leave that state,
            // so what follows holds what all of them agree on.
            let label = format!("alias {word}");
            let before = self.shell_state();
            let mut end = before.clone();
            for value in &values {
                self.leave_subshell(before.clone());
                let code = format!("{value} {}", join_words(&inv.args).text());
                let sctx = self.script_ctx(ctx, &label, inv);
                self.run_script_here("alias", &label, &Expanded::literal(code), sctx);
                end = super::parse::merged_shell(end, &self.shell_state());
            }
            self.leave_subshell(end);
            Rc::make_mut(&mut self.aliases).insert(word, values);
        }
        let name = basename(inv.program.text()).to_string();
        self.run_option_commands(&name, inv, ctx);
        match name.as_str() {
            "sudo" => {
                let flow = strip_sudo(inv);
                if matches!(flow, Flow::EmitPrivileged)
                    && has_arg(inv, inv.args.len(), &["-s", "-i", "--shell", "--login"])
                {
                    // A root shell with no command reads its commands from stdin.
                    self.report_source(&name, Source::Stdin { from: 0 }, inv, ctx);
                }
                flow
            }
            "doas" => {
                let i = skip_options(&inv.args, 0, "uC", &[]);
                if has_arg(inv, i, &["-C"]) {
                    Flow::EmitPrivileged
                } else if has_arg(inv, i, &["-s"]) || !promote(inv, i) {
                    self.report_source(&name, Source::Stdin { from: 0 }, inv, ctx);
                    Flow::EmitPrivileged
                } else {
                    Flow::Inner(Wrap::privileged("doas"))
                }
            }
            "pkexec" => {
                let i = skip_options(&inv.args, 0, "", &["--user"]);
                if promote(inv, i) {
                    Flow::Inner(Wrap::privileged("pkexec"))
                } else {
                    Flow::EmitPrivileged
                }
            }
            "su" | "runuser" => self.run_su(&name, inv, ctx),
            "unbuffer" => strip_simple(inv, "unbuffer", "", &[], 0),
            "chroot" => {
                // The command runs inside NEWROOT (and `chroot` needs root).
                let i = skip_options(&inv.args, 0, "", &["--userspec", "--groups"]) + 1;
                if promote(inv, i) {
                    Flow::Inner(Wrap::privileged("chroot"))
                } else {
                    Flow::EmitPrivileged
                }
            }
            "flock" | "script" => self.run_flock_or_script(&name, inv, ctx),
            "alias" => {
                // `alias ll='rm -rf /'`: the value runs wherever the alias is used.
                for a in inv.args.clone() {
                    if let Some((alias, value)) = a.text().split_once('=') {
                        if !a.word.dynamic {
                            Rc::make_mut(&mut self.aliases)
                                .insert(alias.to_string(), vec![value.to_string()]);
                        }
                        let code = Expanded {
                            word: Word {
                                text: value.to_string(),
                                ..a.word.clone()
                            },
                            substitutions: a.substitutions.clone(),
                        };
                        let sctx = self.script_ctx(ctx, "alias", inv);
                        self.run_script("alias", "alias", &code, sctx);
                    }
                }
                Flow::Emit
            }
            // Package and environment runners: the command they run is what matters.
            "npx" | "pnpx" | "bunx" => {
                self.package_runner(inv, &name, 0, "p", &["--package"], true)
            }
            "npm" if arg_at(inv, 0, &["exec", "x"]) => {
                self.package_runner(inv, "npm exec", 1, "p", &["--package"], true)
            }
            "pnpm" | "yarn" if arg_at(inv, 0, &["dlx", "exec"]) => {
                self.package_runner(inv, &name, 1, "p", &["--package"], true)
            }
            // uv's and pipx's tool runners install the package (`--from`, `--spec`) and run it.
            "uvx" => self.package_runner(inv, "uvx", 0, "p", UVX_VALUES, false),
            "uv" if arg_at(inv, 0, &["tool"]) && arg_at(inv, 1, &["run"]) => {
                self.package_runner(inv, "uv tool run", 2, "p", UVX_VALUES, false)
            }
            "pipx" if arg_at(inv, 0, &["run"]) => self.package_runner(
                inv,
                "pipx run",
                1,
                "",
                &["--spec", "--python", "--pip-args", "--index-url"],
                false,
            ),
            // `nix shell|develop REFS -c CMD…`: CMD runs with the packages on the path.
            // A flake it fetches from a repository or URL is run code the line cannot show
            // (`remote-code/run-from-url`); the command stands in its place otherwise.
            "nix" if arg_at(inv, 0, &["shell", "develop"]) => {
                let Some(at) = inv
                    .args
                    .iter()
                    .position(|a| matches!(a.text(), "-c" | "--command"))
                else {
                    return Flow::Emit;
                };
                let remote = inv.args[1..at]
                    .iter()
                    .map(|a| a.text())
                    .find(|t| super::indirect::remote_flake(t));
                if let Some(spec) = remote.map(str::to_string) {
                    self.finding(ShellFinding::PackageFromUrl {
                        runner: format!("nix {}", inv.args[0].text()),
                        spec,
                    });
                }
                promote_as(inv, at + 1, "nix shell")
            }
            "bundle" if arg_at(inv, 0, &["exec"]) => {
                strip_runner(inv, "bundle exec", 1, "", &[], 0)
            }
            "poetry" | "pipenv" | "pdm" | "hatch" | "uv" | "rye" if arg_at(inv, 0, &["run"]) => {
                let flow = self.package_runner(
                    inv,
                    &name,
                    1,
                    "",
                    &["--with", "--python", "--env", "--from"],
                    false,
                );
                // `uv run x.py`, `pdm run x.py`: a Python file given as the command is run by
                // the environment's Python, as `python x.py` is.
                let file = inv.program.text();
                if matches!(flow, Flow::Inner(_))
                    && (file.ends_with(".py") || file.ends_with(".pyw"))
                {
                    let file = std::mem::replace(&mut inv.program, Expanded::literal("python"));
                    inv.args.insert(0, file);
                }
                flow
            }
            // `dotenv -e .env -- CMD`, `dotenv -f .env run CMD`, `dotenvx run -f .env -- CMD`:
            // CMD runs with the file's variables in its environment, the file is not shown.
            // What prints (`dotenv -p VAR`, `dotenv list`, `dotenvx get`) is not unwrapped.
            "dotenv"
                if !has_arg(
                    inv,
                    inv.args
                        .iter()
                        .position(|a| a.text() == "--")
                        .unwrap_or(inv.args.len()),
                    &["-p", "--print"],
                ) =>
            {
                let i = skip_options(&inv.args, 0, "efvcpq", &["--file", "--export", "--quote"]);
                if arg_at(inv, i, &["run"]) {
                    strip_runner(inv, "dotenv", i + 1, "", &[], 0)
                } else if i > 0 && inv.args[i - 1].text() == "--" && promote(inv, i) {
                    Flow::Inner(Wrap::new("dotenv"))
                } else {
                    Flow::Emit
                }
            }
            // Agents' CLIs that add an MCP server: `claude mcp add`, `codex mcp add NAME -- CMD`,
            // `gemini mcp add NAME CMD ARGS` (Qwen Code's `qwen` is Gemini's).
            "claude" | "codex" | "gemini" | "qwen"
                if arg_at(inv, 0, &["mcp"]) && arg_at(inv, 1, &["add", "add-json"]) =>
            {
                self.run_mcp_add(inv, ctx)
            }
            "dotenvx" if arg_at(inv, 0, &["run"]) => promote_after(inv, "--", "dotenvx run"),
            // `launchctl submit -l LABEL -- CMD…`: launchd runs CMD (and keeps it running).
            "launchctl" if arg_at(inv, 0, &["submit"]) => {
                promote_after(inv, "--", "launchctl submit")
            }
            "conda" | "mamba" | "micromamba" if arg_at(inv, 0, &["run"]) => {
                strip_runner(inv, &name, 1, "np", &["--name", "--prefix", "--cwd"], 0)
            }
            "pixi" if arg_at(inv, 0, &["run", "exec"]) => strip_runner(
                inv,
                &name,
                1,
                "e",
                &["--environment", "--manifest-path", "--spec"],
                0,
            ),
            "python" | "python3" | "python2" | "pypy3" if arg_at(inv, 0, &["-m"]) => {
                strip_runner(inv, "python -m", 1, "", &[], 0)
            }
            // `docker exec [opts] CONTAINER CMD…` runs CMD in the container.
            "docker" | "podman" if arg_at(inv, 0, &["exec"]) => strip_runner(
                inv,
                "docker exec",
                1,
                "euw",
                &[
                    "--env",
                    "--user",
                    "--workdir",
                    "--env-file",
                    "--detach-keys",
                ],
                1,
            ),
            // `docker compose exec [opts] SERVICE CMD…` (and `run`, and `docker-compose`): CMD
            // runs in the service's container, as with `docker exec`.
            // The compose command is recorded too: `run` makes a container from the service's
            // definition, which the compose file's reading judges (a privileged service).
            "docker" | "podman" if arg_at(inv, 0, &["compose"]) => match compose_subcommand(inv, 1)
            {
                Some(at) => {
                    self.emit(inv.clone(), ctx);
                    compose_command(inv, at + 1)
                }
                None => Flow::Emit,
            },
            "docker-compose" | "podman-compose" => match compose_subcommand(inv, 0) {
                Some(at) => {
                    self.emit(inv.clone(), ctx);
                    compose_command(inv, at + 1)
                }
                None => Flow::Emit,
            },
            // Programs that run the command they are given, after their own options:
            // profilers and debuggers, resource and namespace wrappers, proxies, init shims,
            // environment and secret injectors. What runs is that command.
            "perf" if arg_at(inv, 0, &["stat", "record", "trace"]) => strip_runner(
                inv,
                "perf",
                1,
                "eopPtCcFrGjuIxmD",
                &[
                    "--event",
                    "--output",
                    "--pid",
                    "--tid",
                    "--cpu",
                    "--count",
                    "--freq",
                    "--repeat",
                    "--call-graph",
                    "--cgroup",
                    "--delay",
                    "--mmap-pages",
                    "--field-separator",
                    "--interval-print",
                ],
                0,
            ),
            "rr" if arg_at(inv, 0, &["record"]) => strip_runner(inv, "rr record", 1, "", &[], 0),
            "heaptrack" | "with-contenv" => strip_simple(inv, &name, "o", &["--output"], 0),
            "torsocks" => strip_simple(
                inv,
                "torsocks",
                "upaP",
                &["--user", "--pass", "--address", "--port"],
                0,
            ),
            "proxychains" | "proxychains4" => strip_simple(inv, &name, "f", &[], 0),
            "tini" => strip_simple(inv, "tini", "pe", &[], 0),
            "dumb-init" => strip_simple(inv, "dumb-init", "r", &["--rewrite"], 0),
            "numactl" => strip_simple(
                inv,
                "numactl",
                "NmCipP",
                &[
                    "--cpunodebind",
                    "--membind",
                    "--physcpubind",
                    "--interleave",
                    "--preferred",
                    "--preferred-many",
                ],
                0,
            ),
            "prlimit" if !inv.args.iter().any(|a| matches!(a.text(), "-p" | "--pid")) => {
                strip_simple(inv, "prlimit", "o", &["--output"], 0)
            }
            "cgexec" => strip_simple(inv, "cgexec", "g", &[], 0),
            "proot" => strip_simple(
                inv,
                "proot",
                "rbwqkm",
                &[
                    "--rootfs",
                    "--bind",
                    "--mount",
                    "--cwd",
                    "--qemu",
                    "--kernel-release",
                ],
                0,
            ),
            "bwrap" => {
                let i = bwrap_command(&inv.args);
                promote_as(inv, i, "bwrap")
            }
            "direnv" if arg_at(inv, 0, &["exec"]) => {
                strip_runner(inv, "direnv exec", 1, "", &[], 1)
            }
            "asdf" | "pyenv" | "rbenv" | "nodenv" | "goenv" | "jenv" | "plenv" | "phpenv"
                if arg_at(inv, 0, &["exec"]) =>
            {
                let label = format!("{name} exec");
                strip_runner(inv, &label, 1, "", &[], 0)
            }
            "fnm" if arg_at(inv, 0, &["exec"]) => {
                strip_runner(inv, "fnm exec", 1, "", &["--using"], 0)
            }
            "opam" if arg_at(inv, 0, &["exec"]) => promote_after(inv, "--", "opam exec"),
            "devbox" if arg_at(inv, 0, &["run"]) => {
                strip_runner(inv, "devbox run", 1, "c", &["--config", "--environment"], 0)
            }
            "aws-vault" if arg_at(inv, 0, &["exec"]) => {
                if inv.args.iter().any(|a| a.text() == "--") {
                    promote_after(inv, "--", "aws-vault exec")
                } else {
                    strip_runner(
                        inv,
                        "aws-vault exec",
                        1,
                        "d",
                        &["--duration", "--region"],
                        1,
                    )
                }
            }
            "mise" | "rtx" if arg_at(inv, 0, &["exec", "x"]) => {
                promote_after(inv, "--", "mise exec")
            }
            "op" | "doppler" | "infisical" if arg_at(inv, 0, &["run"]) => {
                let label = format!("{name} run");
                promote_after(inv, "--", &label)
            }
            // `rails runner CODE` (or a `.rb` file) is Ruby run in the application:
            // `ruby -e CODE`, `ruby FILE`.
            "rails" if arg_at(inv, 0, &["runner", "r"]) => {
                let i = skip_options(&inv.args, 1, "e", &["--environment"]);
                if i >= inv.args.len() {
                    return Flow::Emit;
                }
                let mut rest = inv.args.split_off(i);
                if !rest[0].text().ends_with(".rb") {
                    rest.insert(0, Expanded::literal("-e".to_string()));
                }
                inv.program = Expanded::literal("ruby".to_string());
                inv.args = rest;
                Flow::Inner(Wrap::new("rails runner"))
            }
            "lldb" => promote_after(inv, "--", "lldb"),
            "gdb" | "cgdb" => promote_after(inv, "--args", "gdb --args"),
            "hyperfine" => self.run_hyperfine(inv, ctx),
            "gcloud" if has_arg(inv, 3, &["ssh"]) => self.run_remote(&name, inv, ctx),
            // A command run on a cloud VM or app: `az vm run-command invoke --scripts`, `fly
            // ssh console -C`, `heroku run`.
            "az" if arg_at(inv, 0, &["vm"]) && has_arg(inv, 3, &["run-command"]) => {
                self.run_remote(&name, inv, ctx)
            }
            "fly" | "flyctl" if arg_at(inv, 0, &["ssh"]) => self.run_remote(&name, inv, ctx),
            "aws" if has_arg(inv, 4, &["ssm"]) && has_arg(inv, 4, &["send-command"]) => {
                self.run_ssm(inv, ctx)
            }
            "heroku" if arg_at(inv, 0, &["run", "run:detached"]) => {
                self.run_remote(&name, inv, ctx)
            }
            n if !matches!(n, "gcloud" | "az" | "fly" | "flyctl" | "heroku")
                && super::option_commands::is_remote_client(n) =>
            {
                self.run_remote(&name, inv, ctx)
            }
            "kubectl" | "oc" if arg_at(inv, 0, &["exec"]) => {
                promote_after(inv, "--", "kubectl exec")
            }
            "env" => strip_env(inv),
            "command" => {
                let i = skip_options(&inv.args, 0, "", &[]);
                if has_arg(inv, i, &["-v", "-V", "-pv", "-vp", "-pV", "-Vp"]) || !promote(inv, i) {
                    Flow::Emit
                } else {
                    Flow::Inner(Wrap::new("command"))
                }
            }
            "builtin" => strip_simple(inv, "builtin", "", &[], 0),
            "busybox" => strip_simple(inv, "busybox", "", &[], 0),
            "exec" => strip_simple(inv, "exec", "a", &[], 0),
            "nice" => strip_simple(inv, "nice", "n", &["--adjustment"], 0),
            "nohup" => strip_simple(inv, "nohup", "", &[], 0),
            "setsid" => strip_simple(inv, "setsid", "", &[], 0),
            "timeout" => strip_simple(inv, "timeout", "sk", &["--signal", "--kill-after"], 1),
            "time" => strip_simple(inv, "time", "fo", &["--format", "--output"], 0),
            "stdbuf" => strip_simple(inv, "stdbuf", "ioe", &["--input", "--output", "--error"], 0),
            "ionice" => {
                let i = skip_options(&inv.args, 0, "cnpPu", &["--class", "--classdata"]);
                if has_arg(inv, i, &["-p", "-P", "-u", "--pid", "--pgid", "--uid"]) {
                    Flow::Emit
                } else {
                    strip_simple(inv, "ionice", "cnpPu", &["--class", "--classdata"], 0)
                }
            }
            "chrt" | "taskset" => {
                let value = if name == "chrt" { "TPD" } else { "" };
                let i = skip_options(&inv.args, 0, value, &[]);
                if has_arg(inv, i, &["-p", "--pid"]) {
                    Flow::Emit
                } else {
                    let label = name.clone();
                    strip_simple(inv, &label, value, &[], 1)
                }
            }
            "watch" => self.run_watch(inv, ctx),
            "fd" | "fdfind" => self.run_fd(inv, ctx),
            "sftp" | "ftp" | "lftp" | "tftp" | "smbclient" => self.transfer_job(&name, inv, ctx),
            "cmd" => self.run_cmd(inv, ctx),
            // `reg add KEY …` from any shell: read as PowerShell reads it (a Run key is a
            // start-up entry).
            "reg"
                if arg_at(inv, 0, &["add"])
                    && inv
                        .args
                        .get(1)
                        .is_some_and(|k| super::powershell::run_key(k.text()))
                    && inv.args.iter().all(Expanded::is_static) =>
            {
                let line = std::iter::once("reg")
                    .chain(inv.args.iter().map(|a| a.text()))
                    .map(super::indirect::shell_word)
                    .collect::<Vec<_>>()
                    .join(" ");
                let script = Expanded::literal(super::powershell::rewrite(&line));
                let sctx = self.script_ctx(ctx, "reg add", inv);
                Flow::Done(self.run_script("reg", "reg add", &script, sctx))
            }
            "pm2" if arg_at(inv, 0, &["start"]) => self.run_process_manager(inv, ctx, "pm2", 1),
            "forever" if arg_at(inv, 0, &["start"]) => {
                self.run_process_manager(inv, ctx, "forever", 1)
            }
            // Runners that start their command detached, in a unit, a sandbox or under a
            // tracer: the command still runs, with this user's rights.
            "systemd-run" => {
                if has_arg(inv, 0, &["--help", "-h", "--version"]) {
                    Flow::Emit
                } else {
                    // A timer or a path or socket trigger runs the command later, again.
                    let later = inv.args.iter().any(|a| {
                        let t = a.text();
                        let name = t.split('=').next().unwrap_or(t);
                        name.starts_with("--on-")
                            || matches!(
                                name,
                                "--timer-property" | "--path-property" | "--socket-property"
                            )
                    });
                    strip_simple(
                        inv,
                        if later { SCHEDULED_UNIT } else { "systemd-run" },
                        "upEMH",
                        &[
                            "--unit",
                            "--property",
                            "--setenv",
                            "--machine",
                            "--host",
                            "--description",
                            "--slice",
                            "--uid",
                            "--gid",
                            "--nice",
                            "--working-directory",
                            "--on-active",
                            "--on-boot",
                            "--on-startup",
                            "--on-unit-active",
                            "--on-unit-inactive",
                            "--on-calendar",
                            "--timer-property",
                            "--path-property",
                            "--socket-property",
                            "--service-type",
                            "--background",
                        ],
                        0,
                    )
                }
            }
            "screen" if !has_arg(inv, 0, &["-X", "-x", "-r", "-R", "-ls", "-list"]) => {
                strip_simple(inv, "screen", "ScehpTt", &[], 0)
            }
            "tmux" => self.run_tmux(inv, ctx),
            // `at TIME`, `batch`: the job is the shell script on standard input (or `-f FILE`).
            "at" | "batch" if !has_arg(inv, inv.args.len(), &["-l", "-r", "-d", "-c", "-f"]) => {
                self.stdin_job(&name, &format!("{name} job"), inv, ctx)
            }
            "toybox" => strip_simple(inv, "toybox", "", &[], 0),
            // Namespaces: the command runs in new or another process's namespaces.
            "unshare" => strip_simple(
                inv,
                "unshare",
                "SGwR",
                &[
                    "--setuid",
                    "--setgid",
                    "--wd",
                    "--root",
                    "--propagation",
                    "--map-user",
                    "--map-group",
                    "--map-users",
                    "--map-groups",
                ],
                0,
            ),
            "nsenter" => strip_simple(
                inv,
                "nsenter",
                "tSG",
                &["--target", "--setuid", "--setgid"],
                0,
            ),
            "daemonize" => strip_simple(inv, "daemonize", "ceEoplu", &[], 0),
            "entr" => strip_simple(inv, "entr", "", &[], 0),
            // `start-stop-daemon --start --exec PROG -- ARGS`: PROG runs with ARGS.
            "start-stop-daemon" => {
                let exec = inv
                    .args
                    .iter()
                    .enumerate()
                    .find_map(|(i, a)| match a.text() {
                        "--exec" | "-x" | "--startas" | "-a" => Some((i + 1, None)),
                        t => ["--exec=", "--startas="]
                            .iter()
                            .find_map(|p| t.strip_prefix(p))
                            .map(|v| (i, Some(v.to_string()))),
                    });
                match exec.filter(|(i, _)| *i < inv.args.len()) {
                    Some((i, glued)) => {
                        let mut program = inv.args[i].clone();
                        if let Some(v) = glued {
                            program.word.text = v;
                        }
                        let rest = match inv.args.iter().position(|a| a.text() == "--") {
                            Some(d) => inv.args.split_off(d + 1),
                            None => Vec::new(),
                        };
                        inv.program = program;
                        inv.args = rest;
                        Flow::Inner(Wrap::new("start-stop-daemon"))
                    }
                    None => Flow::Emit,
                }
            }
            "firejail" | "fakeroot" | "chronic" | "dbus-run-session" | "catchsegv" => {
                strip_simple(inv, &name, "", &[], 0)
            }
            "caffeinate" => strip_simple(inv, "caffeinate", "tw", &[], 0),
            "strace" | "ltrace" => strip_simple(inv, &name, "eoOpPsSuEaXIU", &[], 0),
            "valgrind" => strip_simple(inv, "valgrind", "", &[], 0),
            "xvfb-run" => strip_simple(inv, "xvfb-run", "nsfpe", &[], 0),
            "xargs" => self.run_xargs(inv, ctx),
            "parallel" | "sem" => self.run_parallel(&name, inv, ctx),
            "find" => self.run_find(inv, ctx),
            "awk" | "gawk" | "mawk" | "nawk" => self.run_awk(&name, inv, ctx),
            "git" => self.run_git(inv, ctx),
            "eval" => self.run_eval(inv, ctx),
            "trap" => self.run_trap(inv, ctx),
            "source" | "." => self.run_source(&name, inv, ctx),
            _ => match interpreter_kind(&name) {
                Some(kind) => self.run_interpreter(kind, &name, inv, ctx),
                None => Flow::Emit,
            },
        }
    }

    /// The context of a script run by a wrapper: the wrapper's stdin and redirections apply
    /// to the script's commands.
    fn script_ctx(&self, ctx: &Ctx, label: &str, inv: &Invocation) -> Ctx {
        let mut c = ctx.clone();
        c.depth += 1;
        // A start-up file the shell runs first (`BASH_ENV=f bash -c …`) is invisible in the
        // script; the marker lets self-protection see it.
        for (k, v) in &inv.env {
            if matches!(
                k.as_str(),
                "BASH_ENV" | "ENV" | "ZDOTDIR" | "PROMPT_COMMAND"
            ) {
                c.wrappers.push(format!("{k}={}", v.text));
            }
        }
        c.wrappers.push(label.to_string());
        c.stdin_from = inv.stdin_from;
        c.redirects.extend(inv.redirects.iter().cloned());
        c.positional.clear();
        c.script_env = inv.env.clone();
        c
    }

    /// Reports what cannot be known about a script word, then analyses its text as another
    /// process, or this shell later (a trap, an alias where it is defined), runs it: what it
    /// assigns, aliases or defines is not this shell's now
    /// (`x=/; bash -c 'x=build'; rm -rf $x` deletes `/`).
    fn run_script(
        &mut self,
        interpreter: &str,
        label: &str,
        script: &Expanded,
        sctx: Ctx,
    ) -> Option<usize> {
        let before = self.shell_state();
        let last = self.run_script_here(interpreter, label, script, sctx);
        self.leave_subshell(before);
        last
    }

    /// `run_script` for code this shell runs now (`eval`, an alias where it is used): what
    /// it assigns holds after it.
    fn run_script_here(
        &mut self,
        interpreter: &str,
        label: &str,
        script: &Expanded,
        mut sctx: Ctx,
    ) -> Option<usize> {
        self.report_code(interpreter, label, script);
        let before = self.out.commands.len();
        // The runner's own assignments hold in the script, then the line's values again.
        let env = std::mem::take(&mut sctx.script_env);
        let saved: Vec<(String, Option<String>)> = env
            .iter()
            .map(|(k, _)| (k.clone(), self.vars.get(k).cloned()))
            .collect();
        for (k, v) in env {
            let value = Expanded {
                word: v,
                substitutions: None,
            };
            self.assign(&k, Some(&value));
        }
        let last = self.analyse_script(script.text(), &mut sctx);
        for (k, old) in saved.into_iter().rev() {
            self.vars.restore(k, old);
        }
        last.or_else(|| (self.out.commands.len() > before).then(|| self.out.commands.len() - 1))
    }

    /// Findings for code that comes from a substitution or is otherwise not static.
    fn report_code(&mut self, interpreter: &str, label: &str, code: &Expanded) {
        if let Some(inner) = &code.substitutions {
            self.finding(ShellFinding::InterpreterFromSubstitution {
                interpreter: interpreter.to_string(),
                inner: inner.clone(),
            });
        } else if code.word.dynamic {
            self.finding(ShellFinding::DynamicScript {
                wrapper: label.to_string(),
                text: code.text().to_string(),
            });
        }
    }

    /// Commands a program's options run with a shell (`tar --checkpoint-action=exec=…`,
    /// `ssh -o ProxyCommand=…`, `vim -c '!…'`; `vocab::option_commands`), judged as scripts
    /// the program runs.
    fn run_option_commands(&mut self, name: &str, inv: &Invocation, ctx: &Ctx) {
        let texts: Vec<&str> = inv.args.iter().map(|a| a.text()).collect();
        let mut found = super::option_commands::option_commands(name, &texts);
        if matches!(name, "sed" | "gsed") {
            found.extend(
                super::option_commands::sed_commands(&texts)
                    .into_iter()
                    .map(|c| ("e".to_string(), c)),
            );
        }
        // A script of the program's own commands on its standard input (`ed <<< '!CMD'`).
        if super::option_commands::reads_commands_on_stdin(name, &texts)
            && let Some(script) = self.stdin_script(inv)
        {
            found.extend(
                super::option_commands::stdin_commands(name, script.text())
                    .into_iter()
                    .map(|c| ("stdin".to_string(), c)),
            );
        }
        let mut like = inv.args.first().unwrap_or(&inv.program).clone();
        like.word.dynamic = false;
        like.substitutions = None;
        for (option, line) in found {
            self.run_text(name, &format!("{name} {option}"), &like, line, ctx, inv);
        }
    }

    /// Runs `text`, a shell script a wrapper hands to `sh -c` (an option's value, an awk
    /// `system()`, AppleScript's `do shell script`), in the wrapper's context, with no
    /// positional parameters; `like` is the word it came from.
    fn run_text(
        &mut self,
        name: &str,
        label: &str,
        like: &Expanded,
        text: String,
        ctx: &Ctx,
        inv: &Invocation,
    ) {
        let mut sctx = self.script_ctx(ctx, label, inv);
        sctx.positional.clear();
        let mut w = like.clone();
        w.word.text = text;
        self.run_script(name, label, &w, sctx);
    }

    /// `awk 'PROGRAM'`: the commands the program runs (`system("…")`, `print | "…"`, `"…" |
    /// getline`) are scripts awk hands to `sh -c`, and the files it prints to are writes
    /// (`awk::read`). awk itself is emitted, for the files it reads.
    fn run_awk(&mut self, name: &str, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        const VALUE_LONG: &[&str] = &[
            "--field-separator",
            "--assign",
            "--file",
            "--include",
            "--load",
            "--exec",
            "--source",
        ];
        let i = skip_options(&inv.args, 0, "FvfilE", VALUE_LONG);
        // `gawk --source 'PROGRAM'` / `-e`: the program given as an option's value.
        let source = inv
            .args
            .iter()
            .take(i)
            .position(|a| matches!(a.text(), "--source" | "-e"))
            .map(|p| p + 1);
        let from_file = has_arg(inv, i, &["-f", "--file", "-E", "--exec"]);
        let at = match source {
            Some(p) => p,
            None if from_file => return Flow::Emit,
            None => i,
        };
        let Some(code) = inv.args.get(at).cloned() else {
            return Flow::Emit;
        };
        let label = format!("{name} program");
        if code.word.dynamic || code.substitutions.is_some() {
            self.report_code(name, &label, &code);
            return Flow::Emit;
        }
        let program = super::awk::read(code.text());
        let writes = program.writes.iter().map(|(append, path)| {
            let quoted = path.replace(['"', '\\', '`'], "");
            let op = if *append { ">>" } else { ">" };
            super::awk::Text::Known(format!("cat {op} \"{quoted}\""))
        });
        // What awk prints into reads awk's output, as if piped (`print l | "sh"`).
        let fed = program.fed.iter().map(|t| match t {
            super::awk::Text::Known(line) => super::awk::Text::Known(format!("cat | {line}")),
            dynamic => dynamic.clone(),
        });
        let all: Vec<super::awk::Text> = program
            .commands
            .iter()
            .cloned()
            .chain(fed)
            .chain(writes)
            .collect();
        for c in all {
            match c {
                super::awk::Text::Known(line) => self.run_text(name, &label, &code, line, ctx, inv),
                super::awk::Text::Dynamic(text) => self.finding(ShellFinding::DynamicScript {
                    wrapper: label.clone(),
                    text,
                }),
            }
        }
        Flow::Emit
    }

    fn run_su(&mut self, name: &str, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let mut script: Option<Expanded> = None;
        let mut i = 0;
        while i < inv.args.len() {
            let a = inv.args[i].text();
            if let Some(v) = a
                .strip_prefix("--command=")
                .or_else(|| a.strip_prefix("--session-command="))
            {
                script = Some(Expanded {
                    word: Word {
                        text: v.to_string(),
                        ..inv.args[i].word.clone()
                    },
                    substitutions: inv.args[i].substitutions.clone(),
                });
                i += 1;
            } else if matches!(a, "--command" | "--session-command")
                || (a.starts_with('-') && !a.starts_with("--") && a.ends_with('c'))
            {
                script = inv.args.get(i + 1).cloned();
                i += 2;
            } else if matches!(
                a,
                "-s" | "--shell" | "-g" | "--group" | "-G" | "--supp-group" | "-w"
            ) {
                i += 2;
            } else {
                i += 1;
            }
        }
        if script.is_none() && name == "runuser" {
            // `runuser -u USER -- CMD ARGS` runs the command directly.
            if let Some(dd) = inv.args.iter().position(|a| a.text() == "--")
                && promote(inv, dd + 1)
            {
                return Flow::Inner(Wrap::privileged("runuser"));
            }
        }
        let Some(script) = script else {
            // `su` with no command starts a shell, which reads stdin.
            self.report_source(name, Source::Stdin { from: 0 }, inv, ctx);
            return Flow::EmitPrivileged;
        };
        let label = format!("{name} -c");
        let mut sctx = self.script_ctx(ctx, &label, inv);
        sctx.privileged = true;
        Flow::Done(self.run_script(name, &label, &script, sctx))
    }

    /// `flock FILE -c CMD`, `flock FILE CMD ARGS`, `script -c CMD`: shell code or a command.
    fn run_flock_or_script(&mut self, name: &str, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let code = inv.args.iter().position(|a| {
            matches!(a.text(), "-c" | "--command")
                || (a.text().starts_with('-')
                    && !a.text().starts_with("--")
                    && a.text().ends_with('c'))
        });
        if let Some(at) = code
            && let Some(script) = inv.args.get(at + 1).cloned()
        {
            let label = format!("{name} -c");
            let sctx = self.script_ctx(ctx, &label, inv);
            return Flow::Done(self.run_script(name, &label, &script, sctx));
        }
        if name == "flock" {
            return strip_simple(
                inv,
                "flock",
                "wEn",
                &["--timeout", "--conflict-exit-code"],
                1,
            );
        }
        Flow::Emit
    }

    /// `claude mcp add NAME [opts] [--] CMD ARGS…` registers CMD as an MCP server that Claude
    /// Code starts with its next session, and `claude mcp add-json NAME JSON` the JSON's
    /// `command` and `args`: judged as that command run (a server at a URL runs nothing here).
    fn run_mcp_add(&mut self, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        const VALUES: &[&str] = &[
            "--scope",
            "--transport",
            "--env",
            "--header",
            "--client-id",
            "--client-secret",
            "--callback-port",
            "--timeout",
            "--description",
            "--include-tools",
            "--exclude-tools",
        ];
        let label = format!("{} mcp add", basename(inv.program.text()));
        let label = label.as_str();
        if arg_at(inv, 1, &["add-json"]) {
            let name = skip_options(&inv.args, 2, "s", &["--scope"]);
            let Some(json) = inv.args.get(name + 1) else {
                return Flow::Emit;
            };
            let Ok(server) = serde_json::from_str::<serde_json::Value>(json.text()) else {
                return Flow::Emit;
            };
            let Some(line) = super::indirect::mcp_server_command(&server) else {
                return Flow::Emit;
            };
            let script = Expanded::literal(line);
            let sctx = self.script_ctx(ctx, label, inv);
            return Flow::Done(self.run_script("sh", label, &script, sctx));
        }
        let start = match inv.args.iter().position(|a| a.text() == "--") {
            Some(dashes) => dashes + 1,
            None => {
                let name = skip_options(&inv.args, 2, "steH", VALUES);
                skip_options(&inv.args, name + 1, "steH", VALUES)
            }
        };
        if inv
            .args
            .get(start)
            .is_some_and(|a| a.text().contains("://"))
        {
            return Flow::Emit;
        }
        promote_as(inv, start, label)
    }

    /// `pm2 start TARGET [options] [-- ARGS]`, `forever start FILE`: the manager keeps TARGET
    /// running, detached, and starts it again when it exits. A command string (`pm2 start
    /// "npm run dev"`) runs in a shell; a file runs with the interpreter `--interpreter` or
    /// its extension names (an ecosystem file is JavaScript pm2 loads); anything else is a
    /// program, given the words after `--`.
    fn run_process_manager(
        &mut self,
        inv: &mut Invocation,
        ctx: &Ctx,
        label: &str,
        lead: usize,
    ) -> Flow {
        let (mut i, mut interpreter, mut target) = (lead, None, None);
        while i < inv.args.len() {
            let t = inv.args[i].text();
            if t == "--" {
                break;
            }
            let (name, inline) = match t.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v)),
                _ => (t, None),
            };
            if !name.starts_with('-') || name == "-" {
                target.get_or_insert(i);
                i += 1;
                continue;
            }
            let takes_value = PROCESS_MANAGER_VALUES.contains(&name)
                || (name.len() == 2 && "nioelcp".contains(&name[1..]));
            // forever's `-c` names the command that runs the file.
            if name == "--interpreter" || (label == "forever" && name == "-c") {
                interpreter = inline
                    .map(str::to_string)
                    .or_else(|| inv.args.get(i + 1).map(|a| a.text().to_string()));
            }
            i += if takes_value && inline.is_none() {
                2
            } else {
                1
            };
        }
        let Some(at) = target else {
            return Flow::Emit;
        };
        let text = inv.args[at].text();
        if text.contains(char::is_whitespace) {
            let script = inv.args[at].clone();
            let sctx = self.script_ctx(ctx, label, inv);
            return Flow::Done(self.run_script("sh", label, &script, sctx));
        }
        let by_extension = match text.rsplit_once('.').map(|(_, e)| e) {
            Some("js" | "cjs" | "mjs" | "ts") => Some("node"),
            Some("py") => Some("python3"),
            Some("sh") => Some("bash"),
            Some("rb") => Some("ruby"),
            Some("php") => Some("php"),
            Some("pl") => Some("perl"),
            _ => None,
        };
        let passed: Vec<Expanded> = inv
            .args
            .iter()
            .position(|a| a.text() == "--")
            .map(|d| inv.args[d + 1..].to_vec())
            .unwrap_or_default();
        let mut words = vec![inv.args[at].clone()];
        words.extend(passed);
        match interpreter.as_deref().or(by_extension) {
            Some(run) => {
                inv.program = Expanded::literal(run);
                inv.args = words;
            }
            None => {
                inv.program = words.remove(0);
                inv.args = words;
            }
        }
        Flow::Inner(Wrap::new(label))
    }

    /// `cmd /c LINE` (`/k` too, after cmd's own switches): LINE is a cmd.exe command line,
    /// rewritten as the Bash line with its effects (`shell::cmd`) and judged as such.
    /// `fd PATTERN DIR -x CMD` (`-X` for one batch) runs CMD on what it finds: read as the
    /// `find` line that does the same (`find DIR [-type T] [-name|-regex …] -exec CMD {} ;`),
    /// which the find rules judge. A pattern that matches every name (none, `.`, `^`, `.*`)
    /// tests nothing; any other narrows the selection. Without `-x`/`-X` fd only lists.
    fn run_fd(&mut self, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        const VALUES: &[&str] = &[
            "-e",
            "--extension",
            "-t",
            "--type",
            "-d",
            "--max-depth",
            "--min-depth",
            "--exact-depth",
            "-E",
            "--exclude",
            "-c",
            "--color",
            "-j",
            "--threads",
            "-S",
            "--size",
            "--changed-within",
            "--changed-before",
            "-o",
            "--owner",
            "--base-directory",
            "--ignore-file",
            "--max-results",
            "--search-path",
            "--format",
            "--path-separator",
            "--batch-size",
        ];
        // `--exec=CMD` glues the command's first word to the option.
        let texts: Vec<String> = inv
            .args
            .iter()
            .flat_map(|a| match a.text().split_once('=') {
                Some((o @ ("--exec" | "--exec-batch"), v)) => vec![o.to_string(), v.to_string()],
                _ => vec![a.text().to_string()],
            })
            .collect();
        let Some(exec_at) = texts
            .iter()
            .position(|t| matches!(t.as_str(), "-x" | "--exec" | "-X" | "--exec-batch"))
        else {
            return Flow::Emit;
        };
        let batch = matches!(texts[exec_at].as_str(), "-X" | "--exec-batch");
        let mut command: Vec<&str> = texts[exec_at + 1..]
            .iter()
            .map(String::as_str)
            .take_while(|t| *t != ";")
            .collect();
        if command.is_empty() {
            return Flow::Emit;
        }
        let (mut positional, mut types, mut extensions) = (Vec::new(), Vec::new(), Vec::new());
        let (mut follow, mut glob) = (false, false);
        let mut search_paths = Vec::new();
        let mut i = 0;
        while i < exec_at {
            let t = texts[i].as_str();
            let (name, inline) = match t.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
                _ => (t, None),
            };
            if VALUES.contains(&name) {
                let value = inline
                    .or_else(|| texts.get(i + 1).cloned())
                    .unwrap_or_default();
                match name {
                    "-t" | "--type" => types.push(value),
                    "-e" | "--extension" => extensions.push(value),
                    "--search-path" => search_paths.push(value),
                    _ => {}
                }
                i += if t.contains('=') { 1 } else { 2 };
                continue;
            }
            match name {
                "-L" | "--follow" => follow = true,
                "-g" | "--glob" => glob = true,
                "--" => {
                    positional.extend(texts[i + 1..exec_at].iter().cloned());
                    break;
                }
                _ if !name.starts_with('-') => positional.push(t.to_string()),
                _ => {}
            }
            i += 1;
        }
        let mut positional = positional.into_iter();
        let pattern = positional.next().unwrap_or_default();
        search_paths.extend(positional);
        if search_paths.is_empty() {
            search_paths.push(".".into());
        }
        let word = |t: &str| super::indirect::shell_word(t);
        let mut line = vec!["find".to_string()];
        if follow {
            line.push("-L".into());
        }
        line.extend(search_paths.iter().map(|p| word(p)));
        // Several `-t` are alternatives; one narrows, several only when all do.
        if let [t] = types.as_slice() {
            match t.as_str() {
                "f" | "file" | "x" | "executable" => line.push("-type f".into()),
                "d" | "dir" | "directory" => line.push("-type d".into()),
                "l" | "symlink" => line.push("-type l".into()),
                "e" | "empty" => line.push("-empty".into()),
                _ => {}
            }
        }
        if let [e] = extensions.as_slice() {
            line.push(format!("-name {}", word(&format!("*.{e}"))));
        }
        let every = matches!(pattern.as_str(), "" | "." | "^" | ".*" | "*" | "**");
        if !every {
            let test = if glob { "-name" } else { "-regex" };
            line.push(format!("{test} {}", word(&pattern)));
        }
        // fd appends the path when the command names no placeholder.
        if !command.iter().any(|w| w.contains('{')) {
            command.push("{}");
        }
        line.push("-exec".into());
        // fd's other placeholders (`{/}`, `{//}`, `{.}`, `{/.}`) name parts of the same path.
        line.extend(command.iter().map(|w| {
            let w = ["{/.}", "{//}", "{/}", "{.}"]
                .iter()
                .fold(w.to_string(), |w, p| w.replace(p, "{}"));
            word(&w)
        }));
        line.push(if batch { "+".into() } else { "\\;".into() });
        let script = Expanded::literal(line.join(" "));
        let sctx = self.script_ctx(ctx, "fd -x", inv);
        Flow::Done(self.run_script("fd", "fd -x", &script, sctx))
    }

    fn run_cmd(&mut self, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let Some(at) = inv.args.iter().position(|a| {
            let t = a.text();
            t.eq_ignore_ascii_case("/c") || t.eq_ignore_ascii_case("/k")
        }) else {
            return Flow::Emit;
        };
        let text = inv.args[at + 1..]
            .iter()
            .map(|a| a.text())
            .collect::<Vec<_>>()
            .join(" ");
        if text.len() > super::cmd::MAX_BYTES || inv.args[at + 1..].iter().any(|a| !a.is_static()) {
            self.finding(ShellFinding::DynamicScript {
                wrapper: "cmd /c".into(),
                text,
            });
            return Flow::Emit;
        }
        let script = Expanded::literal(super::cmd::rewrite(&text));
        let sctx = self.script_ctx(ctx, "cmd /c", inv);
        Flow::Done(self.run_script("cmd", "cmd /c", &script, sctx))
    }

    fn run_watch(&mut self, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let i = skip_options(&inv.args, 0, "nq", &["--interval", "--equexit"]);
        if has_arg(inv, i, &["-x", "--exec"]) {
            return promote_as(inv, i, "watch");
        }
        if i >= inv.args.len() {
            return Flow::Emit;
        }
        // `watch` hands its arguments, joined, to `sh -c`.
        let script = join_words(&inv.args[i..]);
        let sctx = self.script_ctx(ctx, "watch", inv);
        Flow::Done(self.run_script("watch", "watch", &script, sctx))
    }

    /// `hyperfine [opts] CMD…`: each command, and each `--prepare`, `--setup`, `--cleanup`
    /// and `--conclude` command, runs with `sh -c` (or split into words with `-N`), as a
    /// script does.
    fn run_hyperfine(&mut self, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        const SCRIPTS: &[&str] = &[
            "-p",
            "--prepare",
            "-s",
            "--setup",
            "-c",
            "--cleanup",
            "--conclude",
        ];
        const VALUES: &[&str] = &[
            "-w",
            "--warmup",
            "-m",
            "--min-runs",
            "-M",
            "--max-runs",
            "-r",
            "--runs",
            "-S",
            "--shell",
            "-u",
            "--time-unit",
            "--style",
            "--sort",
            "-n",
            "--command-name",
            "--export-asciidoc",
            "--export-csv",
            "--export-json",
            "--export-markdown",
            "--export-orgmode",
            "--output",
            "--input",
            "-D",
            "--parameter-step-size",
            "--min-benchmarking-time",
            "--reference",
        ];
        let mut commands = Vec::new();
        let mut i = 0;
        while let Some(a) = inv.args.get(i) {
            let t = a.text();
            let (name, glued) = match t.split_once('=') {
                Some((n, _)) if t.starts_with("--") => (n, true),
                _ => (t, false),
            };
            let skip = if SCRIPTS.contains(&name) {
                if glued {
                    let mut v = a.clone();
                    v.word.text = t[name.len() + 1..].to_string();
                    commands.push(v);
                } else if let Some(v) = inv.args.get(i + 1) {
                    commands.push(v.clone());
                }
                usize::from(!glued)
            } else if VALUES.contains(&name) {
                usize::from(!glued)
            } else if matches!(name, "-P" | "--parameter-scan") {
                3
            } else if matches!(name, "-L" | "--parameter-list") {
                2
            } else {
                if !t.starts_with('-') {
                    commands.push(a.clone());
                }
                0
            };
            i += 1 + skip;
        }
        if commands.is_empty() {
            return Flow::Emit;
        }
        let script = join_words_with(&commands, '\n');
        let sctx = self.script_ctx(ctx, "hyperfine", inv);
        Flow::Done(self.run_script("hyperfine", "hyperfine", &script, sctx))
    }

    /// `tmux new-session|new-window|split-window|respawn-*|run-shell … 'CMD'` runs CMD with
    /// `sh -c`, and `send-keys … 'CMD' Enter` types it into a shell: either way CMD is a script.
    fn run_tmux(&mut self, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let sub = skip_options(&inv.args, 0, "LSfc", &[]);
        let Some(command) = inv.args.get(sub).map(|a| a.text().to_string()) else {
            return Flow::Emit;
        };
        let (value_short, keys) = match command.as_str() {
            "new-session" | "new" => ("cefnstxyFX", false),
            "new-window" | "neww" | "split-window" | "splitw" => ("celtFsnp", false),
            "respawn-pane" | "respawnp" | "respawn-window" | "respawnw" => ("cte", false),
            "run-shell" | "run" => ("dt", false),
            "send-keys" | "send" => ("tNc", true),
            _ => return Flow::Emit,
        };
        let i = skip_options(&inv.args, sub + 1, value_short, &[]);
        let words: Vec<Expanded> = inv.args[i.min(inv.args.len())..]
            .iter()
            .filter(|w| !(keys && is_tmux_key(w.text())))
            .cloned()
            .collect();
        if words.is_empty() {
            return Flow::Emit;
        }
        let label = format!("tmux {command}");
        let script = join_words(&words);
        let sctx = self.script_ctx(ctx, &label, inv);
        self.run_script("tmux", &label, &script, sctx);
        Flow::Emit
    }

    fn run_eval(&mut self, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        // `eval "$(cat F)"`: this shell runs F's text, as `. F` does; the code is still not
        // on the line (reported as any substituted code is).
        if let [word] = &inv.args[..]
            && let Some(file) = substituted_file(word)
        {
            let word = word.clone();
            self.report_code("eval", "eval", &word);
            let mut run = std::mem::take(inv);
            run.program = Expanded::literal("source".to_string());
            run.args = vec![Expanded::literal(file)];
            return Flow::Done(self.run(run, ctx));
        }
        let script = join_words(&inv.args);
        // `eval "$(ssh-agent -s)"`, `eval "$(pyenv init -)"`: the setup code a local tool
        // prints of its own (its run is analysed as the substitution's).
        if script
            .substitutions
            .as_ref()
            .is_some_and(|p| super::indirect::prints_shell_setup(p))
            && is_one_substitution(script.text())
        {
            return Flow::Emit;
        }
        let sctx = self.script_ctx(ctx, "eval", inv);
        Flow::Done(self.run_script_here("eval", "eval", &script, sctx))
    }

    fn run_trap(&mut self, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        // `trap 'code' SIGNAL…` runs the code later, in this shell.
        match inv.args.first() {
            Some(code) if inv.args.len() >= 2 && !code.text().starts_with('-') => {
                let code = code.clone();
                let sctx = self.script_ctx(ctx, "trap", inv);
                self.run_script("trap", "trap", &code, sctx);
                Flow::Emit
            }
            _ => Flow::Emit,
        }
    }

    fn run_source(&mut self, name: &str, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let i = skip_options(&inv.args, 0, "", &[]);
        let source = if i < inv.args.len() {
            Source::File(i)
        } else {
            Source::Stdin { from: i }
        };
        self.report_source(name, source, inv, ctx);
        // `. /dev/stdin <<< CODE`: the current shell runs what it reads there.
        if inv
            .args
            .get(i)
            .is_some_and(|a| STDIN_PATHS.contains(&a.text()))
        {
            return self.stdin_job(name, &format!("{name} /dev/stdin"), inv, ctx);
        }
        // A file read here may set any variable (`x=build; . ./env.sh; rm -rf $x`).
        self.vars.clear();
        Flow::Emit
    }

    /// Findings for where an interpreter's code comes from (pipe, substitution).
    fn report_source(&mut self, name: &str, source: Source, inv: &Invocation, ctx: &Ctx) {
        let reads_stdin = match source {
            Source::Stdin { .. } => true,
            Source::File(i) => {
                let w = &inv.args[i];
                if let Some(inner) = &w.substitutions
                    && w.text().starts_with("<(")
                {
                    self.finding(ShellFinding::InterpreterFromSubstitution {
                        interpreter: name.to_string(),
                        inner: inner.clone(),
                    });
                }
                w.text() == "-" || STDIN_PATHS.contains(&w.text())
            }
            _ => false,
        };
        if !reads_stdin {
            return;
        }
        if let Some(inner) = &inv.stdin_substitution {
            self.finding(ShellFinding::InterpreterFromSubstitution {
                interpreter: name.to_string(),
                inner: inner.clone(),
            });
        } else if let Some(text) = &inv.stdin_text {
            if let Some(inner) = &text.substitutions {
                self.finding(ShellFinding::InterpreterFromSubstitution {
                    interpreter: name.to_string(),
                    inner: inner.clone(),
                });
            }
        } else if inv.stdin_from.is_some() && !reads_file_on_stdin(inv) {
            self.finding(ShellFinding::InterpreterFromPipe {
                interpreter: name.to_string(),
                upstream: ctx.upstream.iter().map(|p| p.to_string()).collect(),
            });
        }
    }

    fn run_interpreter(&mut self, kind: Kind, name: &str, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let source = interpreter_source(kind, name, &inv.args);
        if kind != Kind::Shell {
            match source {
                Source::Code { index, .. } => {
                    let option = code_option(kind, &inv.args, index);
                    // PowerShell's `-Command` takes every argument after it, joined
                    // (`powershell -c Remove-Item -Recurse ~`); `-EncodedCommand` one word.
                    let code = if kind == Kind::Pwsh
                        && !option.to_ascii_lowercase().starts_with("-e")
                        && index + 1 < inv.args.len()
                    {
                        join_words(&inv.args[index..])
                    } else {
                        inv.args[index].clone()
                    };
                    let label = format!("{name} {option}");
                    if kind == Kind::Osascript {
                        // `do shell script "…"` runs its string with sh.
                        for script in applescript_shell_scripts(code.text()) {
                            let label = "osascript do shell script";
                            self.run_text(name, label, &code, script, ctx, inv);
                        }
                    }
                    let encoded =
                        kind == Kind::Pwsh && option.to_ascii_lowercase().starts_with("-e");
                    let decoded = encoded
                        .then(|| {
                            code.is_static()
                                .then(|| decode_encoded_command(code.text()))
                        })
                        .flatten()
                        .flatten();
                    if let Some(text) = decoded {
                        // `-EncodedCommand`: base64 of UTF-16LE text, judged as the code it is.
                        let label = format!("{name} {option} (decoded)");
                        let mut w = code.clone();
                        w.word.text = super::powershell::rewrite(&text);
                        let sctx = self.script_ctx(ctx, &label, inv);
                        self.run_script(name, &label, &w, sctx);
                    } else if encoded {
                        // Not decodable from the line (built at run time, or not base64).
                        self.finding(ShellFinding::DynamicScript {
                            wrapper: label,
                            text: code.text().to_string(),
                        });
                    } else {
                        self.report_code(name, label.trim(), &code);
                        if kind == Kind::Pwsh {
                            // `pwsh -c '…'`: the PowerShell code, rewritten to Bash, is judged.
                            let mut w = code.clone();
                            w.word.text = super::powershell::rewrite(code.text());
                            let sctx = self.script_ctx(ctx, label.trim(), inv);
                            self.run_script(name, label.trim(), &w, sctx);
                        }
                    }
                }
                Source::MissingCode if ctx.args_from_stdin => {
                    self.finding(ShellFinding::DynamicScript {
                        wrapper: name.to_string(),
                        text: "(code from xargs input)".to_string(),
                    });
                }
                Source::Stdin { .. } if kind == Kind::Tcl => {
                    // `tclsh <<< 'exec rm -rf …'`: Tcl's `exec` runs a program, read as
                    // expect's are (`option_commands::tcl_commands`).
                    if let Some(text) = inv.stdin_text.clone().filter(|t| t.substitutions.is_none())
                    {
                        for command in super::option_commands::tcl_commands(text.text()) {
                            self.run_text(name, "tclsh exec", &text, command, ctx, inv);
                        }
                    }
                    self.report_source(name, source, inv, ctx);
                }
                _ => self.report_source(name, source, inv, ctx),
            }
            return Flow::Emit;
        }
        // `sh -c "$(cat F)"`: the shell runs F's text, as `sh F` does; the code is still not
        // on the line (reported as any substituted code is).
        if let Source::Code { index, offset: 0 } = source
            && let Some(file) = substituted_file(&inv.args[index])
        {
            self.report_code(name, &format!("{name} -c"), &inv.args[index]);
            let mut run = std::mem::take(inv);
            run.args = vec![Expanded::literal(file)];
            return Flow::Done(self.run(run, ctx));
        }
        let inv = std::mem::take(inv);
        match source {
            Source::Code { index, offset } => {
                let mut script = inv.args[index].clone();
                if offset > 0 {
                    script.word.text = script.word.text.get(offset..).unwrap_or("").to_string();
                }
                let label = format!("{name} -c");
                let mut sctx = self.script_ctx(ctx, &label, &inv);
                // `sh -c SCRIPT NAME ARG…`: NAME is `$0`, the rest `$1`…; none after a word not
                // known is known (`positional_from`).
                let mut words = inv.args[index + 1..]
                    .iter()
                    .map(|a| a.is_static().then(|| a.text()));
                sctx.positional = match words.next() {
                    None => Vec::new(),
                    Some(Some(name)) => positional_from(Some(name.to_string()), words),
                    Some(None) => vec![None, None],
                };
                Flow::Done(self.run_script(name, &label, &script, sctx))
            }
            Source::MissingCode => {
                if ctx.args_from_stdin {
                    self.finding(ShellFinding::DynamicScript {
                        wrapper: format!("{name} -c"),
                        text: "(script from xargs input)".to_string(),
                    });
                }
                Flow::Done(Some(self.emit(inv, ctx)))
            }
            Source::Stdin { .. }
                if inv.stdin_text.is_some() && inv.stdin_substitution.is_none() =>
            {
                // `bash <<EOF … EOF`, `sh <<< "…"`: the here-document is the script.
                let script = self.stdin_script(&inv).unwrap_or_default();
                let label = format!("{name} <<");
                let mut sctx = self.script_ctx(ctx, &label, &inv);
                sctx.stdin_from = None;
                Flow::Done(self.run_script(name, &label, &script, sctx))
            }
            source => {
                self.report_source(name, source, &inv, ctx);
                let piped = match source {
                    Source::Stdin { .. } => self.stdin_script(&inv),
                    _ => None,
                };
                let index = self.emit(inv, ctx);
                if let Some(script) = piped {
                    // `echo 'rm -rf /' | sh`: the piped text is known, so is the script.
                    let label = format!("{name} stdin");
                    let mut sctx = ctx.clone();
                    sctx.depth += 1;
                    sctx.wrappers.push(label.clone());
                    sctx.stdin_from = None;
                    sctx.positional.clear();
                    self.run_script(name, &label, &script, sctx);
                }
                Flow::Done(Some(index))
            }
        }
    }

    /// `at`/`batch`, `. /dev/stdin`: recorded as the command it is, and the script it reads on
    /// standard input (a here-document, a here-string, a literal pipe) analysed as the shell
    /// script it is.
    fn stdin_job(&mut self, name: &str, label: &str, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let inv = std::mem::take(inv);
        let script = self.stdin_script(&inv);
        let mut sctx = self.script_ctx(ctx, label, &inv);
        sctx.stdin_from = None;
        let index = self.emit(inv, ctx);
        if let Some(script) = script {
            self.run_script(name, label, &script, sctx);
        }
        Flow::Done(Some(index))
    }

    /// A file-transfer client's commands (`sftp HOST <<< 'put F'`, `lftp -c 'open H; put F'`,
    /// `smbclient //H/S -c 'put F'`, `tftp H -c put F`): each transfer is analysed as the
    /// `curl` line that moves the same file (`put F` reads F and sends it to the host, `get R
    /// L` downloads L), `lcd` as `cd`, and a `!cmd` escape as the local command it is. The
    /// client is recorded as a command of its own.
    fn transfer_job(&mut self, name: &str, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let (value_short, long): (&str, &[&str]) = match name {
            "lftp" => ("ceupf", &["--user", "--port"]),
            "smbclient" => ("cUWIpnsOPmAlDETA", &["--command", "--user"]),
            "tftp" => ("cm", &[]),
            "ftp" => ("P", &[]),
            _ => ("BbcDFiJlPoRSs", &[]),
        };
        let mut scripts: Vec<String> = Vec::new();
        // The word after the first option spelled one of `names`.
        let option = |names: &[&str]| {
            let at = inv.args.iter().position(|a| names.contains(&a.text()))?;
            inv.args.get(at + 1).map(|v| v.text().to_string())
        };
        match name {
            "lftp" => {
                scripts.extend(option(&["-c"]));
                scripts.extend(option(&["-e"]));
            }
            "smbclient" => scripts.extend(option(&["-c", "--command"])),
            "tftp" => {
                // `tftp HOST -c put FILE`: the words after `-c` are the command.
                if let Some(at) = inv.args.iter().position(|a| a.text() == "-c") {
                    let words: Vec<&str> = inv.args[at + 1..].iter().map(|a| a.text()).collect();
                    scripts.push(words.join(" "));
                }
            }
            _ => {}
        }
        if let Some(s) = self.stdin_script(inv) {
            scripts.push(s.text().to_string());
        }
        let operands = operands_of(&inv.args, value_short, long);
        let host = match name {
            "sftp" => operands.last(),
            _ => operands.first(),
        }
        .map(|h| transfer_host(h))
        .unwrap_or_default();
        let lines = transfer_lines(name, &host, &scripts.join("\n"));
        let inv = std::mem::take(inv);
        let label = format!("{name} commands");
        let mut sctx = self.script_ctx(ctx, &label, &inv);
        sctx.stdin_from = None;
        let index = self.emit(inv, ctx);
        if !lines.is_empty() {
            self.run_script(name, &label, &Expanded::literal(lines.join("\n")), sctx);
        }
        Flow::Done(Some(index))
    }

    /// The script a command reads on standard input when the line gives it: a here-document
    /// or here-string without substitutions, or what a literal command pipes in (not when
    /// the command reads a file given as an argument instead).
    fn stdin_script(&self, inv: &Invocation) -> Option<Expanded> {
        match (&inv.stdin_text, inv.stdin_from) {
            (Some(text), _) if inv.stdin_substitution.is_none() => Some(text.clone()),
            (None, Some(up)) if !reads_file_on_stdin(inv) => {
                self.piped_script(up).map(Expanded::literal)
            }
            _ => None,
        }
    }

    /// The text a command writes to its stdout, when it is a literal (`echo`, `printf`, `cat`
    /// of its here-document: `shell::printed_text`) and goes down the pipe, not elsewhere.
    fn piped_script(&self, index: usize) -> Option<String> {
        let c = self.out.commands.get(index)?;
        if c.redirects.iter().any(|r| r.fd != Some(2)) {
            return None;
        }
        super::printed_text(c)
    }

    /// `ssh [opts] HOST CMD…`, `gcloud compute ssh VM --command CMD`, `pdsh -w HOSTS CMD`,
    /// `ansible HOSTS -m shell -a CMD`, `salt TARGET cmd.run CMD` (`vocab::remote_command`):
    /// the remote command is shell code run on the other hosts; it is analysed as such (a
    /// destructive command there is still destructive), and the client is recorded as a
    /// command of its own.
    fn run_remote(&mut self, name: &str, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let texts: Vec<&str> = inv.args.iter().map(|a| a.text()).collect();
        let at = super::option_commands::remote_command(name, &texts).flatten();
        let script = at.map(|at| {
            if at.whole {
                let mut w = inv.args[at.index].clone();
                w.word.text = w.word.text.get(at.offset..).unwrap_or("").to_string();
                w
            } else {
                join_words(&inv.args[at.index..])
            }
        });
        let inv = std::mem::take(inv);
        let label = format!("{name} remote command");
        let sctx = self.script_ctx(ctx, &label, &inv);
        let index = self.emit(inv, ctx);
        if let Some(script) = script {
            self.run_script(name, &label, &script, sctx);
        }
        Flow::Done(Some(index))
    }

    /// `aws ssm send-command --parameters commands=[…]` (or `'{"commands": […]}'`): each
    /// command is shell code run on the instances, analysed as a remote command is.
    fn run_ssm(&mut self, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let inv = std::mem::take(inv);
        let mut scripts: Vec<Expanded> = Vec::new();
        let mut words = inv.args.iter();
        while let Some(a) = words.next() {
            let value = match a.text().strip_prefix("--parameters") {
                Some("") => words.next(),
                Some(v) if v.starts_with('=') => Some(a),
                _ => None,
            };
            let Some(value) = value else { continue };
            let text = value.text();
            let text = text.strip_prefix("--parameters=").unwrap_or(text);
            for command in ssm_commands(text) {
                let mut w = value.clone();
                w.word.text = command;
                scripts.push(w);
            }
        }
        let label = "aws ssm send-command".to_string();
        let sctx = self.script_ctx(ctx, &label, &inv);
        let index = self.emit(inv, ctx);
        for script in scripts.iter().take(16) {
            self.run_script("aws", &label, script, sctx.clone());
        }
        Flow::Done(Some(index))
    }

    fn run_find(&mut self, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let inv = std::mem::take(inv);
        let args = &inv.args;
        let mut i = 0;
        while i < args.len() {
            match args[i].text() {
                "-H" | "-L" | "-P" => i += 1,
                "-D" => i += 2,
                a if a.starts_with("-O") => i += 1,
                _ => break,
            }
        }
        let mut starts: Vec<Word> = Vec::new();
        while let Some(a) = args.get(i) {
            if a.text().starts_with('-') || matches!(a.text(), "(" | "!" | ")" | ",") {
                break;
            }
            starts.push(a.word.clone());
            i += 1;
        }
        if starts.is_empty() {
            starts.push(Word::literal("."));
        }
        let mut inner: Vec<(String, Invocation)> = Vec::new();
        while i < args.len() {
            let action = args[i].text();
            if !matches!(action, "-exec" | "-execdir" | "-ok" | "-okdir") {
                i += 1;
                continue;
            }
            let start = i + 1;
            let mut end = start;
            while end < args.len() {
                let t = args[end].text();
                if t == ";" || (t == "+" && end > start && args[end - 1].text() == "{}") {
                    break;
                }
                end += 1;
            }
            let mut words = Vec::new();
            let braces = args[start..end]
                .iter()
                .filter(|a| a.text().contains("{}"))
                .count();
            let expand = braces * starts.len() <= MAX_FIND_WORDS;
            for a in &args[start..end] {
                if !a.text().contains("{}") {
                    words.push(a.clone());
                } else if !expand {
                    let mut w = a.clone();
                    w.word.dynamic = true;
                    words.push(w);
                } else {
                    for s in &starts {
                        words.push(Expanded {
                            word: Word {
                                text: a.text().replace("{}", &s.text),
                                dynamic: a.word.dynamic || s.dynamic,
                                glob: a.word.glob || s.glob,
                            },
                            substitutions: a.substitutions.clone(),
                        });
                    }
                }
            }
            if !words.is_empty() {
                let program = words.remove(0);
                inner.push((
                    format!("find {action}"),
                    Invocation {
                        program,
                        args: words,
                        stdin_from: inv.stdin_from,
                        ..Invocation::default()
                    },
                ));
            }
            i = end + 1;
        }
        let index = self.emit(inv, ctx);
        for (label, child) in inner {
            let mut c = ctx.clone();
            c.depth += 1;
            c.wrappers.push(label);
            self.run(child, &c);
        }
        Flow::Done(Some(index))
    }

    fn run_git(&mut self, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let mut inv = std::mem::take(inv);
        let mut cwd: Option<String> = None;
        let mut scripts: Vec<(String, Expanded)> = Vec::new();
        let mut aliases: Vec<(String, Vec<String>)> = Vec::new();
        let mut i = 0;
        while let Some(a) = inv.args.get(i) {
            let t = a.text();
            match t {
                "-C" => {
                    if let Some(dir) = inv.args.get(i + 1) {
                        cwd = Some(join_dir(cwd.as_deref(), dir.text()));
                    }
                    i += 2;
                }
                "-c" => {
                    if let Some(kv) = inv.args.get(i + 1) {
                        scripts.extend(git_config_script(kv));
                        if let Some((name, value)) = git_subcommand_alias(kv.text()) {
                            aliases.push((name, value));
                        }
                        // Git hands `-c` settings to the command in this variable; kept
                        // there, what reads one-shot settings (`vocab::git_one_shot_config`:
                        // a push's remote URL) sees both spellings.
                        if let Some((k, v)) = kv.text().split_once('=') {
                            let word = Word {
                                text: format!("'{k}'='{v}'"),
                                dynamic: kv.word.dynamic,
                                glob: false,
                            };
                            inv.env.push(("GIT_CONFIG_PARAMETERS".to_string(), word));
                        }
                    }
                    i += 2;
                }
                // `--work-tree DIR` is `GIT_WORK_TREE=DIR`: checkouts land files there.
                "--work-tree" => {
                    if let Some(dir) = inv.args.get(i + 1) {
                        let word = Word {
                            text: dir.text().to_string(),
                            dynamic: dir.word.dynamic,
                            glob: false,
                        };
                        inv.env.push(("GIT_WORK_TREE".to_string(), word));
                    }
                    i += 2
                }
                "--git-dir" | "--namespace" | "--config-env" | "--super-prefix" => i += 2,
                "-p"
                | "--paginate"
                | "-P"
                | "--no-pager"
                | "--bare"
                | "--no-replace-objects"
                | "--literal-pathspecs"
                | "--glob-pathspecs"
                | "--noglob-pathspecs"
                | "--icase-pathspecs"
                | "--no-optional-locks"
                | "--no-lazy-fetch"
                | "--no-advice"
                | "--exec-path" => i += 1,
                _ if t.starts_with("--work-tree=") => {
                    let word = Word {
                        text: t["--work-tree=".len()..].to_string(),
                        dynamic: a.word.dynamic,
                        glob: false,
                    };
                    inv.env.push(("GIT_WORK_TREE".to_string(), word));
                    i += 1
                }
                _ if t.starts_with("--")
                    && t.contains('=')
                    && [
                        "--git-dir=",
                        "--work-tree=",
                        "--namespace=",
                        "--config-env=",
                        "--super-prefix=",
                        "--exec-path=",
                        "--list-cmds=",
                        "--attr-source=",
                    ]
                    .iter()
                    .any(|p| t.starts_with(p)) =>
                {
                    i += 1
                }
                _ => break,
            }
        }
        inv.args.drain(..i.min(inv.args.len()));
        // `git -c alias.yolo='push --force' yolo`: the alias stands for a git subcommand.
        if let Some(first) = inv.args.first()
            && let Some((_, words)) = aliases.iter().find(|(n, _)| n == first.text())
        {
            let template = first.clone();
            let expanded: Vec<Expanded> = words
                .iter()
                .map(|w| {
                    let mut e = template.clone();
                    e.word.text = w.clone();
                    e
                })
                .collect();
            inv.args.splice(0..1, expanded);
        }
        let mut gctx = ctx.clone();
        if let Some(dir) = cwd {
            gctx.cwd = Some(join_dir(ctx.cwd.as_deref(), &dir));
        }
        // `git config alias.x '!cmd'` stores shell code that a later `git x` runs.
        if inv.args.first().is_some_and(|a| a.text() == "config") {
            scripts.extend(git_config_command_script(&inv.args[1..]));
        }
        scripts.extend(git_transport_programs(&inv.args));
        let index = self.emit(inv, &gctx);
        for (label, script) in scripts {
            let mut sctx = gctx.clone();
            sctx.depth += 1;
            sctx.wrappers.push(label.clone());
            self.run_script("git", &label, &script, sctx);
        }
        Flow::Done(Some(index))
    }
}

/// The commands of an SSM `--parameters` value: `commands=["a","b"]`, `commands=a`,
/// `{"commands": ["a"]}`.
fn ssm_commands(text: &str) -> Vec<String> {
    let strings = |v: &serde_json::Value| -> Vec<String> {
        match v {
            serde_json::Value::String(s) => vec![s.clone()],
            serde_json::Value::Array(items) => items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    };
    let t = text.trim();
    if t.starts_with('{') {
        return serde_json::from_str::<serde_json::Value>(t)
            .ok()
            .and_then(|v| v.get("commands").map(strings))
            .unwrap_or_default();
    }
    let Some(rest) = t.strip_prefix("commands=") else {
        return Vec::new();
    };
    if rest.starts_with('[') {
        serde_json::from_str::<serde_json::Value>(rest)
            .map(|v| strings(&v))
            .unwrap_or_else(|_| vec![rest.trim_matches(['[', ']']).to_string()])
    } else {
        vec![rest.to_string()]
    }
}

/// `< file` replaces a piped stdin.
fn reads_file_on_stdin(inv: &Invocation) -> bool {
    inv.redirects
        .iter()
        .any(|r| r.kind == super::RedirectKind::Read && matches!(r.fd, None | Some(0)))
}

fn strip_sudo(inv: &mut Invocation) -> Flow {
    let i = skip_options(
        &inv.args,
        0,
        "ugpChDrtTUR",
        &[
            "--user",
            "--group",
            "--prompt",
            "--close-from",
            "--chdir",
            "--role",
            "--type",
            "--command-timeout",
            "--other-user",
            "--host",
            "--chroot",
        ],
    );
    if has_arg(inv, i, &["-e", "--edit", "-l", "--list"]) {
        return Flow::EmitPrivileged;
    }
    let i = take_env(inv, i);
    if promote(inv, i) {
        Flow::Inner(Wrap::privileged("sudo"))
    } else {
        Flow::EmitPrivileged
    }
}

fn strip_env(inv: &mut Invocation) -> Flow {
    let mut cwd = None;
    let mut i = 0;
    // Where `-S` stood, how many words it took, and the words of its string.
    let mut split: Option<(usize, usize, Vec<Expanded>)> = None;
    while let Some(a) = inv.args.get(i) {
        let t = a.text();
        if t == "--" {
            i += 1;
            break;
        }
        if t == "-" {
            // Same as `-i`.
            i += 1;
        } else if matches!(t, "-u" | "--unset") {
            i += 2;
        } else if matches!(t, "-C" | "--chdir") {
            cwd = inv.args.get(i + 1).map(|d| d.text().to_string());
            i += 2;
        } else if let Some(d) = t.strip_prefix("--chdir=") {
            cwd = Some(d.to_string());
            i += 1;
        } else if let Some(s) = t
            .strip_prefix("--split-string=")
            .or_else(|| t.strip_prefix("-S").filter(|s| !s.is_empty()))
        {
            split = Some((i, 1, split_words(s, a)));
            i += 1;
            break;
        } else if matches!(t, "-S" | "--split-string") {
            let words = inv
                .args
                .get(i + 1)
                .map(|w| split_words(w.text(), w))
                .unwrap_or_default();
            split = Some((i, 2, words));
            i += 1;
            break;
        } else if t.starts_with('-') && t.len() > 1 {
            i += 1;
        } else {
            break;
        }
    }
    if let Some((at, taken, words)) = split {
        // `env -S 'a b' c` runs `a b c`: the split words take the place of the option.
        let rest = inv.args.split_off((at + taken).min(inv.args.len()));
        inv.args.truncate(at);
        inv.args.extend(words);
        inv.args.extend(rest);
        i = at;
    }
    let i = take_env(inv, i);
    if promote(inv, i) {
        Flow::Inner(Wrap {
            cwd,
            ..Wrap::new("env")
        })
    } else {
        Flow::Emit
    }
}

/// The strings of `do shell script "…"` in AppleScript code, unescaped.
fn applescript_shell_scripts(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lower = code.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("do shell script") {
        let start = from + at + "do shell script".len();
        from = start;
        let rest = code[start..].trim_start();
        let Some(body) = rest.strip_prefix('"') else {
            continue;
        };
        let mut text = String::new();
        let mut chars = body.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => text.extend(chars.next()),
                '"' => break,
                c => text.push(c),
            }
        }
        out.push(text);
        if out.len() >= 16 {
            break;
        }
    }
    out
}

/// `alias.NAME=VALUE` whose value is git arguments (not `!shell`): NAME and the words.
fn git_subcommand_alias(kv: &str) -> Option<(String, Vec<String>)> {
    let (key, value) = kv.split_once('=')?;
    let name = key
        .strip_prefix("alias.")
        .or_else(|| key.strip_prefix("Alias."))?;
    if value.starts_with('!') || name.is_empty() {
        return None;
    }
    Some((
        name.to_string(),
        value.split_whitespace().map(str::to_string).collect(),
    ))
}

/// Shell code that a `git -c KEY=VALUE` makes git run: aliases starting with `!`, pagers,
/// editors, ssh commands, diff and filter drivers, credential helpers.
fn git_config_script(kv: &Expanded) -> Option<(String, Expanded)> {
    let (key, value) = kv.text().split_once('=')?;
    let key = key.to_ascii_lowercase();
    let parts: Vec<&str> = key.split('.').collect();
    let (first, last) = (parts.first().copied()?, parts.last().copied()?);
    let (label, code) = if first == "alias" {
        ("git alias".to_string(), value.strip_prefix('!')?)
    } else if first == "credential" && last == "helper" {
        (format!("git -c {key}"), value.strip_prefix('!')?)
    } else if matches!(
        key.as_str(),
        "core.pager"
            | "core.editor"
            | "core.sshcommand"
            | "sequence.editor"
            | "diff.external"
            | "gpg.program"
    ) || first == "pager"
        || (first == "diff" && matches!(last, "textconv" | "command"))
        || (first == "filter" && matches!(last, "clean" | "smudge" | "process"))
        || (first == "merge" && last == "driver")
        || (first == "gpg" && last == "program")
        || (key == "core.fsmonitor" && !matches!(value, "true" | "false"))
    {
        (format!("git -c {key}"), value)
    } else {
        return None;
    };
    Some((
        label,
        Expanded {
            word: Word {
                text: code.to_string(),
                dynamic: kv.word.dynamic,
                glob: false,
            },
            substitutions: kv.substitutions.clone(),
        },
    ))
}

/// The programs a git transport runs through the shell, named on its command line: the other
/// side's `--upload-pack`, `--receive-pack` or `--exec` (run here when the repository is a
/// local path: `git clone -u 'CMD;' . x`) and an `ext::CMD` remote (`% ` is a space, `%%` a
/// percent sign).
fn git_transport_programs(args: &[Expanded]) -> Vec<(String, Expanded)> {
    let Some(sub) = args.first().map(Expanded::text) else {
        return Vec::new();
    };
    let options: &[&str] = match sub {
        "clone" => &["-u", "--upload-pack"],
        "fetch" | "pull" | "ls-remote" => &["--upload-pack"],
        "fetch-pack" => &["--upload-pack", "--exec"],
        "push" | "send-pack" => &["--receive-pack", "--exec"],
        "archive" => &["--exec"],
        _ => &[],
    };
    let transports = matches!(
        sub,
        "clone" | "fetch" | "pull" | "ls-remote" | "push" | "archive" | "submodule" | "remote"
    );
    // The word the program is read from, its text the program's.
    let code = |label: String, from: &Expanded, text: String| {
        let mut w = from.clone();
        w.word.text = text;
        w.word.glob = false;
        (label, w)
    };
    let mut out = Vec::new();
    let mut i = 1;
    while let Some(a) = args.get(i) {
        let t = a.text();
        i += 1;
        if let Some(&option) = options.iter().find(|o| **o == t) {
            if let Some(v) = args.get(i) {
                out.push(code(format!("git {sub} {option}"), v, v.text().to_string()));
                i += 1;
            }
            continue;
        }
        if let Some((option, value)) = t.split_once('=')
            && options.contains(&option)
            && option.starts_with("--")
        {
            out.push(code(format!("git {sub} {option}"), a, value.to_string()));
            continue;
        }
        let url = t.strip_prefix("--remote=").unwrap_or(t);
        if transports && let Some(command) = url.strip_prefix("ext::") {
            // Git splits the command at spaces and runs it without a shell: each word is
            // quoted as one.
            let mut words = Vec::new();
            let mut word = String::new();
            let mut chars = command.chars().peekable();
            while let Some(c) = chars.next() {
                match (c, chars.peek()) {
                    ('%', Some(&n @ (' ' | '%'))) => {
                        word.push(n);
                        chars.next();
                    }
                    (' ', _) => words.push(std::mem::take(&mut word)),
                    _ => word.push(c),
                }
            }
            words.push(word);
            let command = words
                .iter()
                .filter(|w| !w.is_empty())
                .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
                .collect::<Vec<_>>()
                .join(" ");
            out.push(code(format!("git {sub} ext::"), a, command));
        }
    }
    out
}

/// The shell code a `git config [options] KEY VALUE` stores, when KEY runs shell code.
fn git_config_command_script(args: &[Expanded]) -> Option<(String, Expanded)> {
    let mut operands = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text();
        if matches!(
            t,
            "-f" | "--file" | "--blob" | "--type" | "--default" | "--comment"
        ) {
            i += 2;
            continue;
        }
        if t.starts_with('-') {
            i += 1;
            continue;
        }
        operands.push(a);
        i += 1;
    }
    // `git config set KEY VALUE` (git ≥ 2.46) and `git config KEY VALUE`.
    let (key, value) = match operands.as_slice() {
        [verb, key, value, ..] if matches!(verb.text(), "set" | "--add") => (*key, *value),
        [key, value, ..] => (*key, *value),
        _ => return None,
    };
    let kv = Expanded {
        word: Word {
            text: format!("{}={}", key.text(), value.text()),
            dynamic: key.word.dynamic || value.word.dynamic,
            glob: false,
        },
        substitutions: value.substitutions.clone(),
    };
    git_config_script(&kv).map(|(label, code)| {
        let label = match label.strip_prefix("git -c ") {
            Some(key) => format!("git config {key}"),
            None => "git config alias".to_string(),
        };
        (label, code)
    })
}

/// Words joined with spaces, as `eval` and `watch` do; dynamic if any part is.
fn join_words(words: &[Expanded]) -> Expanded {
    join_words_with(words, ' ')
}

/// Words joined with `sep` (a newline: commands of one script); dynamic if any part is.
fn join_words_with(words: &[Expanded], sep: char) -> Expanded {
    let mut out = Expanded::default();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.word.text.push(sep);
        }
        out.word.text.push_str(w.text());
        out.word.dynamic |= w.word.dynamic;
        if let Some(s) = &w.substitutions {
            out.substitutions
                .get_or_insert_with(Vec::new)
                .extend(s.iter().cloned());
        }
    }
    out
}

/// `env -S` splits its string on blanks.
fn split_words(s: &str, from: &Expanded) -> Vec<Expanded> {
    s.split_whitespace()
        .map(|w| Expanded {
            word: Word {
                text: w.to_string(),
                dynamic: from.word.dynamic,
                glob: false,
            },
            substitutions: None,
        })
        .collect()
}

/// The option spelling used to pass code at `index`, for the finding's wrapper label.
fn code_option(kind: Kind, args: &[Expanded], index: usize) -> String {
    match index.checked_sub(1).and_then(|p| args.get(p)) {
        Some(prev) if prev.text().starts_with('-') && kind != Kind::Shell => {
            prev.text().to_string()
        }
        _ => String::new(),
    }
}

/// Where an interpreter invoked with `args` takes its code from, by its own option grammar
/// (`shell::switches`; PowerShell's below).
fn interpreter_source(kind: Kind, name: &str, args: &[Expanded]) -> Source {
    let texts: Vec<&str> = args.iter().map(|a| a.text()).collect();
    if kind == Kind::Pwsh {
        return super::switches::pwsh_source(&texts);
    }
    match super::switches::switches(name) {
        // A script file that names standard input (`. /dev/stdin`, `bash /dev/fd/0`) is it.
        Some(switches) => match switches.source(&texts) {
            Source::File(i) if STDIN_PATHS.contains(&texts[i]) => Source::Stdin { from: i + 1 },
            source => source,
        },
        None => Source::Module,
    }
}

/// The text of a PowerShell `-EncodedCommand` argument: standard base64 of UTF-16LE. `None`
/// when it is not exactly that (the caller then treats the code as unknowable).
fn decode_encoded_command(b64: &str) -> Option<String> {
    let bytes = base64_bytes(b64)?;
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    let units: Vec<u16> = bytes
        .chunks(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    String::from_utf16(&units).ok()
}

/// The bytes of standard base64 (blanks ignored, padded to a multiple of four); `None` when
/// the text is not that.
pub(super) fn base64_bytes(b64: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = b64.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let body = digits
        .strip_suffix(b"==")
        .or_else(|| digits.strip_suffix(b"="))
        .unwrap_or(&digits);
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    if body.is_empty() || !digits.len().is_multiple_of(4) {
        return None;
    }
    let mut bytes = Vec::with_capacity(body.len() * 3 / 4);
    for chunk in body.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= value(*c)? << (18 - 6 * i);
        }
        let take = chunk.len() - 1;
        bytes.extend_from_slice(&n.to_be_bytes()[1..1 + take]);
    }
    Some(bytes)
}

/// A `tmux send-keys` key name (`Enter`, `C-m`, `Escape`…) rather than text to type.
fn is_tmux_key(word: &str) -> bool {
    matches!(
        word,
        "Enter" | "KPEnter" | "Escape" | "Space" | "Tab" | "BSpace"
    ) || word.len() <= 4 && (word.starts_with("C-") || word.starts_with("M-"))
}
