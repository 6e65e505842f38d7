//! Programs whose options (or script) name a command they run with a shell: `tar
//! --checkpoint-action=exec=…`, `ssh -o ProxyCommand=…`, `vim -c '!…'`, GNU sed's `e`; programs
//! whose standard input is a script of such commands (`ed <<< '!…'`, `m4 <<< 'esyscmd(…)'`);
//! and clients that run a command on other hosts (`ssh HOST CMD`, `ansible -a`, `pdsh`). Part of
//! the vocabulary of programs (re-exported by `crate::vocab`), kept here so the unwrapper can
//! read it without `shell` and `vocab` importing each other.

/// How an option's value names the command it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RunsAs {
    /// The value is a command line (`tar --to-command=CMD`, `rsync -e CMD`, `zip -TT CMD`).
    Line,
    /// `exec=CMD` (`tar --checkpoint-action=exec=CMD`).
    ExecEquals,
    /// An ssh option whose key runs a command (`-o ProxyCommand=CMD`, `LocalCommand`).
    SshOption,
    /// An editor or debugger command that runs a shell: `!CMD`, `:!CMD`, `silent !CMD`,
    /// `shell CMD`, `call system("CMD")` (vim `-c`/`+`, gdb `-ex`).
    EditorCommand,
    /// Tcl for expect: `spawn CMD`, `exec CMD`.
    Spawn,
    /// Emacs Lisp: `(shell-command "CMD")`, `(call-process "PROG" nil nil nil ARGS…)`,
    /// `(delete-directory "DIR" t)`, `(delete-file "F")`.
    Elisp,
    /// An lldb command: `platform shell CMD` (and its alias `shell CMD`), `script CODE`
    /// (Python), `script` lines and the editor forms above.
    Lldb,
    /// ed's commands that run a shell: `!CMD`, `r !CMD`, `w !CMD`, `e !CMD`.
    Ed,
    /// m4 text: `syscmd(CMD)`, `esyscmd(CMD)` run CMD with a shell.
    M4,
    /// A pager's start-up keys (`less +KEYS`): `!CMD` runs CMD with a shell, `|MCMD` pipes to
    /// CMD.
    Pager,
    /// IPython code (`ipython -c`): its `!CMD` lines, `%%bash` cells and `%system CMD` run
    /// with a shell (`ipython_cell`).
    IPython,
}

/// Vim and the programs that are Vim under another name.
const VIM_FAMILY: &[&str] = &["vim", "vi", "nvim", "view", "ex", "vimdiff", "gvim", "rvim"];

/// Options whose value is a command the program runs with a shell, by program: the unwrapper
/// judges each as a script the program runs (`shell::unwrap`, `option_commands`).
const OPTION_COMMANDS: &[(&[&str], &[&str], RunsAs)] = &[
    (
        &["tar", "gtar", "bsdtar"],
        &[
            "--to-command",
            "--use-compress-program",
            "-I",
            "--info-script",
            "--new-volume-script",
            "-F",
            "--rsh-command",
            "--rmt-command",
        ],
        RunsAs::Line,
    ),
    (
        &["tar", "gtar", "bsdtar"],
        &["--checkpoint-action"],
        RunsAs::ExecEquals,
    ),
    (&["zip"], &["-TT", "--unzip-command"], RunsAs::Line),
    // `go test -exec PROG` runs the test binary through PROG; `-toolexec` every compiler tool.
    (
        &["go"],
        &["-exec", "--exec", "-toolexec", "--toolexec"],
        RunsAs::Line,
    ),
    (&["rsync"], &["-e", "--rsh"], RunsAs::Line),
    // `nix-shell --run CMD` (`--command CMD`) runs CMD in the shell it sets up.
    (&["nix-shell"], &["--run", "--command"], RunsAs::Line),
    (
        &["ssh", "scp", "sftp", "autossh"],
        &["-o"],
        RunsAs::SshOption,
    ),
    (VIM_FAMILY, &["-c", "--cmd", "+"], RunsAs::EditorCommand),
    (
        &["gdb"],
        &[
            "-ex",
            "-iex",
            "--ex",
            "--eval-command",
            "--init-eval-command",
        ],
        RunsAs::EditorCommand,
    ),
    (&["expect"], &["-c"], RunsAs::Spawn),
    (
        &["lldb"],
        &[
            "-o",
            "--one-line",
            "-O",
            "--one-line-before-file",
            "-k",
            "--one-line-on-crash",
        ],
        RunsAs::Lldb,
    ),
    (&["less", "more"], &["+"], RunsAs::Pager),
    // man runs its pager with a shell: `man -P 'CMD' PAGE`, `--pager=CMD`.
    (&["man"], &["-P", "--pager"], RunsAs::Line),
    // A definition's text is expanded where the macro is used: `m4 -DX='esyscmd(CMD)'`.
    (&["m4", "gm4"], &["-D", "--define"], RunsAs::M4),
    (&["ipython", "ipython3"], &["-c"], RunsAs::IPython),
    (
        &["emacs", "emacsclient", "emacs-nox"],
        &["--eval", "-eval", "--execute"],
        RunsAs::Elisp,
    ),
];

/// Options naming a file of the commands the program reads as it reads one from an option
/// above (`gdb -x FILE` as `-ex`, `vim -S FILE` as `-c`, `lldb -s FILE` as `-o`, `emacs -l
/// FILE` as `--eval`, `expect FILE` as `-c`): the ledger judges a session-written such file by
/// the commands it runs (`file_commands`).
const COMMAND_FILES: &[(&[&str], &[&str], RunsAs)] = &[
    (VIM_FAMILY, &["-S", "-u"], RunsAs::EditorCommand),
    (
        &["gdb", "gdb-multiarch", "cgdb"],
        &[
            "-x",
            "--x",
            "-command",
            "--command",
            "-ix",
            "--ix",
            "-init-command",
            "--init-command",
        ],
        RunsAs::EditorCommand,
    ),
    (
        &["lldb"],
        &["-s", "--source", "-S", "--source-before-file", "-source"],
        RunsAs::Lldb,
    ),
    // `expect FILE` is read as `expect -f FILE` (`command_files`).
    (&["expect"], &["-f", "-b"], RunsAs::Spawn),
    (
        &["emacs", "emacs-nox"],
        &["-l", "--load", "-load", "--script", "-scriptload"],
        RunsAs::Elisp,
    ),
];

/// The files `args` name as scripts of `program`'s commands (`COMMAND_FILES`), each with the
/// option naming it: `gdb -x a.gdb --command=b.gdb` gives `("-x", "a.gdb")` and
/// `("--command", "b.gdb")`.
pub fn command_files(program: &str, args: &[&str]) -> Vec<(&'static str, String)> {
    let Some((_, options, _)) = COMMAND_FILES
        .iter()
        .find(|(programs, ..)| programs.contains(&program))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if *a == "--" {
            break;
        }
        if let Some(option) = options.iter().find(|o| a == *o) {
            // `vim -S` alone sources `Session.vim`: an option after it is no file.
            if let Some(f) = args.get(i + 1).filter(|f| !f.starts_with('-')) {
                out.push((*option, f.to_string()));
            }
            i += 2;
            continue;
        }
        if let Some((option, f)) = options.iter().find_map(|o| {
            a.strip_prefix(o)
                .and_then(|v| v.strip_prefix('='))
                .map(|f| (*o, f))
        }) {
            out.push((option, f.to_string()));
        } else if program == "expect" {
            // `expect [-dDinN] [-c CMDS] [FILE] [ARGS]`: the first operand is the script.
            if *a == "-c" {
                i += 1;
            } else if !a.starts_with('-') {
                out.push(("-f", a.to_string()));
                break;
            }
        }
        i += 1;
    }
    out.truncate(8);
    out
}

/// The command lines a file of commands runs, read as `how` (`"PROGRAM OPTION"`, an option of
/// `COMMAND_FILES`) reads it: line by line for an editor or debugger, whole for Tcl and Lisp.
/// `None` when `how` names no such reader.
pub fn file_commands(how: &str, script: &str) -> Option<Vec<String>> {
    let (program, option) = how.split_once(' ')?;
    let (_, _, runs) = COMMAND_FILES
        .iter()
        .find(|(programs, options, _)| programs.contains(&program) && options.contains(&option))?;
    let mut out: Vec<String> = match runs {
        RunsAs::Spawn | RunsAs::Elisp => command_of(script, *runs),
        runs => script
            .lines()
            .flat_map(|line| command_of(line, *runs))
            .take(32)
            .collect(),
    };
    out.truncate(32);
    Some(out)
}

/// Where a client that runs a command on other hosts finds it on its command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RemoteAt {
    /// The words after the first operand, the host: `ssh [opts] HOST CMD…`.
    AfterHost,
    /// Every operand: `pdsh -w HOSTS CMD…`, `pssh -h FILE CMD…`, `clush -w HOSTS CMD…`.
    Operands,
    /// An option's value, by any of its spellings: `gcloud compute ssh VM --command CMD`,
    /// `fly ssh console -C CMD`.
    Option(&'static [&'static str]),
    /// The words after the subcommand's options, with its long options that take a value:
    /// `heroku run --app APP CMD…`.
    AfterSubcommand(&'static [&'static str]),
    /// ansible's module arguments (`-a ARGS`), when the module (`-m`, `command` when none is
    /// named) runs them as a command line.
    AnsibleModule,
    /// The word after a function that runs a shell: `salt TARGET cmd.run CMD`.
    AfterFunction,
}

/// Clients that run a shell command on other hosts (or, for `salt-call`, this one): the
/// programs, their short options taking a value, and where the command is.
const REMOTE_COMMANDS: &[(&[&str], &str, RemoteAt)] = &[
    (
        &["ssh", "autossh"],
        "bcDEeFIiJLlmOopQRSWw",
        RemoteAt::AfterHost,
    ),
    (&["gcloud"], "", RemoteAt::Option(&["--command"])),
    // `az vm run-command invoke … --scripts CMD`, `fly ssh console -C CMD`, `heroku run CMD`
    // (the unwrapper sends only those subcommands here).
    (&["az"], "", RemoteAt::Option(&["--scripts"])),
    (
        &["fly", "flyctl"],
        "",
        RemoteAt::Option(&["-C", "--command"]),
    ),
    (
        &["heroku"],
        "ares",
        RemoteAt::AfterSubcommand(&["--app", "--remote", "--env", "--size", "--type"]),
    ),
    (&["pdsh"], "wxgXltufRMF", RemoteAt::Operands),
    (
        &["pssh", "parallel-ssh", "prsh"],
        "hHlpoetOxX",
        RemoteAt::Operands,
    ),
    (&["clush"], "wgxXlftuoRE", RemoteAt::Operands),
    (&["ansible"], "", RemoteAt::AnsibleModule),
    (
        &["salt", "salt-ssh", "salt-call"],
        "",
        RemoteAt::AfterFunction,
    ),
];

/// True for a client of `REMOTE_COMMANDS`, which runs a command on other hosts.
pub fn is_remote_client(program: &str) -> bool {
    REMOTE_COMMANDS
        .iter()
        .any(|(programs, _, _)| programs.contains(&program))
}

/// ansible modules whose arguments are a command line.
const ANSIBLE_COMMAND_MODULES: &[&str] = &["command", "shell", "raw"];

/// Salt functions whose first argument is a command line.
const SALT_COMMAND_FUNCTIONS: &[&str] = &[
    "cmd.run",
    "cmd.shell",
    "cmd.run_all",
    "cmd.run_stdout",
    "cmd.run_stderr",
    "cmd.run_bg",
    "cmd.exec_code",
    "cmd.script",
];

/// Where the command a remote client runs is in `args`: `(index, offset)`, the command being
/// the words from `args[index]` on, its text from byte `offset` (an `--opt=CMD` word), for a
/// client of `REMOTE_COMMANDS`; `Some(None)` for such a client given no command; `None` for
/// another program.
pub fn remote_command(program: &str, args: &[&str]) -> Option<Option<RemoteCommand>> {
    let (_, value_short, at) = REMOTE_COMMANDS
        .iter()
        .find(|(programs, _, _)| programs.contains(&program))?;
    // The first operand from `from` on; `long_values` are long options whose value is the
    // next word.
    let first_operand = |from: usize, long_values: &[&str]| {
        let mut i = from;
        while let Some(a) = args.get(i) {
            if *a == "--" {
                return i + 1;
            }
            if a.starts_with("--") {
                i += if long_values.contains(a) { 2 } else { 1 };
                continue;
            }
            if a.len() < 2 || !a.starts_with('-') {
                return i;
            }
            let cluster = &a[1..];
            let takes = cluster
                .char_indices()
                .find(|(_, c)| value_short.contains(*c))
                .is_some_and(|(ci, c)| ci + c.len_utf8() == cluster.len());
            i += if takes { 2 } else { 1 };
        }
        args.len()
    };
    let words = |i: usize| {
        (i < args.len()).then_some(RemoteCommand {
            index: i,
            offset: 0,
            whole: false,
        })
    };
    Some(match at {
        RemoteAt::AfterHost => words(first_operand(0, &[]) + 1),
        RemoteAt::Operands => words(first_operand(0, &[])),
        RemoteAt::AfterSubcommand(long_values) => {
            words(first_operand(first_operand(0, &[]) + 1, long_values))
        }
        RemoteAt::Option(options) => args.iter().enumerate().find_map(|(i, a)| {
            let option = options
                .iter()
                .find(|o| a == *o || a.strip_prefix(**o).is_some_and(|v| v.starts_with('=')))?;
            if a == option {
                (i + 1 < args.len()).then_some(RemoteCommand {
                    index: i + 1,
                    offset: 0,
                    whole: true,
                })
            } else {
                a.strip_prefix(option)
                    .and_then(|v| v.strip_prefix('='))
                    .map(|_| RemoteCommand {
                        index: i,
                        offset: option.len() + 1,
                        whole: true,
                    })
            }
        }),
        RemoteAt::AnsibleModule => {
            let value = |short: &str, long: &str| {
                args.iter().enumerate().find_map(|(i, a)| {
                    if *a == short || *a == long {
                        (i + 1 < args.len()).then_some((i + 1, 0))
                    } else {
                        a.strip_prefix(long)
                            .and_then(|v| v.strip_prefix('='))
                            .map(|_| (i, long.len() + 1))
                    }
                })
            };
            let module =
                value("-m", "--module-name").map_or("command", |(i, offset)| &args[i][offset..]);
            let module = module.rsplit('.').next().unwrap_or(module);
            if !ANSIBLE_COMMAND_MODULES.contains(&module) {
                return Some(None);
            }
            value("-a", "--args").map(|(index, offset)| RemoteCommand {
                index,
                offset,
                whole: true,
            })
        }
        RemoteAt::AfterFunction => args
            .iter()
            .position(|a| SALT_COMMAND_FUNCTIONS.contains(a))
            .and_then(|i| {
                (i + 1 < args.len()).then_some(RemoteCommand {
                    index: i + 1,
                    offset: 0,
                    whole: true,
                })
            }),
    })
}

/// Where a remote client's command is among its arguments (`remote_command`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteCommand {
    /// The word it starts in.
    pub index: usize,
    /// Where it starts in that word (after `--command=`).
    pub offset: usize,
    /// It is that one word, not every word from it on.
    pub whole: bool,
}

/// Whether a program's arguments make it read its commands on standard input.
type ReadsStdin = fn(&[&str]) -> bool;

/// Programs whose standard input is a script of commands, some of which run a shell: the
/// unwrapper reads the script the line gives them (a here-document, a here-string, a literal
/// pipe) and judges each command as one the program runs (`shell::unwrap`). The test says
/// whether the arguments put the program in that mode (Vim reads Ex commands from standard
/// input only in Ex mode, `vim -es`).
const STDIN_COMMANDS: &[(&[&str], RunsAs, ReadsStdin)] = &[
    (&["ed"], RunsAs::Ed, always),
    (&["ex"], RunsAs::EditorCommand, always),
    (
        &["vim", "vi", "nvim", "view", "gvim", "vimdiff"],
        RunsAs::EditorCommand,
        vim_ex_mode,
    ),
    (&["m4", "gm4"], RunsAs::M4, always),
    (&["lldb"], RunsAs::Lldb, always),
];

/// For a program that reads its commands on standard input whatever its arguments.
fn always(_: &[&str]) -> bool {
    true
}

/// True when Vim's or Neovim's arguments start it in Ex mode (`-e`, `-E`, `-es`, `-Es`, `-e
/// -s`), where it reads Ex commands from standard input (`echo ':!id' | vim -es`). Values of
/// the options that take one (`-c -e` runs a command named `-e`) are skipped, `--` ends the
/// options.
fn vim_ex_mode(args: &[&str]) -> bool {
    const VALUE: &[&str] = &[
        "-c",
        "--cmd",
        "-S",
        "-u",
        "-U",
        "-i",
        "-T",
        "-w",
        "-W",
        "-s",
        "-t",
        "-q",
        "-r",
        "--listen",
        "--startuptime",
    ];
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if *a == "--" {
            break;
        }
        // `-s` before Ex mode is set takes a Normal-mode script file (`vim -s keys.txt`); after
        // `-e` it means silent, but `-e` has been seen by then.
        if VALUE.contains(a) {
            i += 2;
            continue;
        }
        if let Some(flags) = a.strip_prefix('-')
            && !flags.starts_with('-')
            && !flags.is_empty()
            && flags.chars().all(|c| c.is_ascii_alphabetic())
            && flags.contains(['e', 'E'])
        {
            return true;
        }
        i += 1;
    }
    false
}

/// True when `program`, given `args`, reads a script of its commands on standard input.
pub fn reads_commands_on_stdin(program: &str, args: &[&str]) -> bool {
    STDIN_COMMANDS
        .iter()
        .any(|(programs, _, mode)| programs.contains(&program) && mode(args))
}

/// The commands `program` runs from the script it reads on standard input (`ed <<< '!CMD'`,
/// `m4 <<< 'esyscmd(CMD)'`), line by line as the program reads it.
pub fn stdin_commands(program: &str, script: &str) -> Vec<String> {
    let Some((_, how, _)) = STDIN_COMMANDS
        .iter()
        .find(|(programs, ..)| programs.contains(&program))
    else {
        return Vec::new();
    };
    let mut out: Vec<String> = match how {
        // m4 text is not line-based: a call may span lines.
        RunsAs::M4 => m4_commands(script),
        how => script
            .lines()
            .flat_map(|line| command_of(line, *how))
            .collect(),
    };
    out.truncate(16);
    out
}

/// The commands an ed command line runs: `!CMD`, and `r`, `w`, `e`, `E`, `W` given `!CMD`,
/// after an optional address (`1,$w !CMD`).
fn ed_command(line: &str) -> Vec<String> {
    let c = line
        .trim_start()
        .trim_start_matches(|ch: char| ch.is_ascii_digit() || ",;.$+-'/ ".contains(ch));
    if let Some(cmd) = c.strip_prefix('!') {
        return line_if_any(cmd);
    }
    let mut chars = c.chars();
    if let Some('r' | 'w' | 'W' | 'e' | 'E') = chars.next()
        && let Some(cmd) = chars.as_str().trim_start().strip_prefix('!')
    {
        return line_if_any(cmd);
    }
    Vec::new()
}

/// The commands m4 text runs: the argument of each `syscmd(…)` and `esyscmd(…)`, up to its
/// balancing parenthesis, with m4's quotes (`` `…' ``) taken off.
fn m4_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("syscmd(").take(16) {
        // `esyscmd(` and `syscmd(` both end in `syscmd(`; a longer name (`mysyscmd(`) is
        // another macro.
        let before = text[..at].strip_suffix('e').unwrap_or(&text[..at]);
        if before
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = &text[at + "syscmd(".len()..];
        let end = call_end(rest);
        let arg = rest[..end].trim();
        let arg = arg
            .strip_prefix('`')
            .and_then(|a| a.strip_suffix('\''))
            .unwrap_or(arg);
        out.extend(line_if_any(arg));
    }
    out
}

/// The commands an lldb command runs: `platform shell CMD`, `script CODE` (Python, as
/// `python3 -c CODE`), else what an editor's or debugger's command runs (`shell CMD`).
fn lldb_command(value: &str) -> Vec<String> {
    let c = value.trim();
    if let Some(cmd) = c.strip_prefix("platform shell ") {
        // `platform shell [-h HOST] [-t SECS] -- CMD`; without options the rest is CMD.
        let cmd = cmd.trim_start();
        let cmd = match cmd.strip_prefix('-') {
            Some(_) => cmd.split_once(" -- ").map_or("", |(_, c)| c),
            None => cmd,
        };
        return line_if_any(cmd);
    }
    if let Some(code) = c.strip_prefix("script ") {
        return line_if_any(&format!("python3 -c {}", quoted(code.trim())));
    }
    editor_command(c, 0)
}

/// The commands a GNU sed script runs: `e CMD` (and `1e CMD`, `$e CMD`), and a `s///e`
/// substitution, whose result runs as a command (its replacement, as far as it is known).
pub fn sed_commands(args: &[&str]) -> Vec<String> {
    let mut scripts: Vec<&str> = Vec::new();
    let mut operands = Vec::new();
    let mut from_file = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        match a {
            "-e" | "--expression" => {
                scripts.extend(args.get(i + 1));
                i += 1;
            }
            "-f" | "--file" => {
                from_file = true;
                i += 1;
            }
            "-l" | "--line-length" => i += 1,
            _ if a.starts_with("--expression=") => scripts.push(&a["--expression=".len()..]),
            _ if a.starts_with("--file=") => from_file = true,
            // `-ne 'e id'`, `-Ee`: a cluster ending in `e` takes the script.
            _ if a.starts_with('-') && !a.starts_with("--") && a.len() > 1 => {
                if a.ends_with('e') && a[1..].chars().all(|c| c.is_ascii_alphabetic()) {
                    scripts.extend(args.get(i + 1));
                    i += 1;
                } else if a.ends_with('f') && a[1..].chars().all(|c| c.is_ascii_alphabetic()) {
                    from_file = true;
                    i += 1;
                }
            }
            _ => operands.push(a),
        }
        i += 1;
    }
    if scripts.is_empty() && !from_file {
        scripts.extend(operands.first());
    }
    let mut out = Vec::new();
    for line in scripts.iter().flat_map(|s| s.lines()) {
        sed_line_commands(line, &mut out);
    }
    out.truncate(16);
    out
}

/// The commands one line of a sed script runs (see `sed_commands`).
fn sed_line_commands(line: &str, out: &mut Vec<String>) {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // Skip separators, the address (numbers, `$`, `/re/`, ranges, steps) and `!`.
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b';' | b'{' | b'}') {
            i += 1;
        }
        while i < b.len() {
            match b[i] {
                b'0'..=b'9' | b'$' | b',' | b'~' | b'+' | b'!' | b' ' => i += 1,
                b'/' => {
                    i += 1;
                    while i < b.len() && b[i] != b'/' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                _ => break,
            }
        }
        let Some(&c) = b.get(i) else { return };
        match c {
            // `e CMD` runs to the end of the line.
            b'e' => {
                let cmd = line[i + 1..].trim();
                if !cmd.is_empty() {
                    out.push(cmd.to_string());
                }
                return;
            }
            // A delimiter outside ASCII would cut a character in two: not read.
            b's' if i + 1 < b.len() && b[i + 1].is_ascii() => {
                let delim = b[i + 1];
                let mut parts = Vec::new();
                let mut j = i + 2;
                let mut start = j;
                while j < b.len() && parts.len() < 2 {
                    if b[j] == b'\\' {
                        j += 2;
                        continue;
                    }
                    if b[j] == delim {
                        parts.push(&line[start..j]);
                        start = j + 1;
                    }
                    j += 1;
                }
                let flags_end = line[start.min(line.len())..]
                    .find([';', '}', ' '])
                    .map_or(line.len(), |k| start + k);
                let flags = &line[start.min(line.len())..flags_end];
                if parts.len() == 2 && flags.contains('e') {
                    out.push(parts[1].replace(
                        &format!("\\{}", delim as char),
                        &(delim as char).to_string(),
                    ));
                }
                i = flags_end;
            }
            // Commands that take the rest of the line (text, file names, labels).
            b'a' | b'i' | b'c' | b'r' | b'R' | b'w' | b'W' | b'b' | b't' | b'T' | b':' => return,
            b'y' => return,
            _ => i += 1,
        }
    }
}

/// The commands a program's options make it run (`tar --checkpoint-action=exec='rm -rf ~'`,
/// `ssh -o ProxyCommand='…'`, `vim -c '!…'`): each as (the option, the command line).
pub fn option_commands(program: &str, args: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let specs: Vec<(&str, RunsAs)> = OPTION_COMMANDS
        .iter()
        .filter(|(programs, _, _)| programs.contains(&program))
        .flat_map(|(_, options, how)| options.iter().map(|o| (*o, *how)))
        .collect();
    if specs.is_empty() {
        return out;
    }
    let mut i = 0;
    while i < args.len() && out.len() < 16 {
        let a = args[i];
        if a == "--" {
            break;
        }
        for (option, how) in &specs {
            let value = if *option == "+" {
                // vim's `+CMD` is one word.
                a.strip_prefix('+')
                    .filter(|v| !v.is_empty())
                    .map(|v| (v, 0))
            } else if a == *option {
                args.get(i + 1).map(|v| (*v, 1))
            } else if option.starts_with("--") || option.len() > 2 {
                // `--rsh=ssh`, and Go's single-dash long flags: `-exec=prog`.
                a.strip_prefix(option)
                    .and_then(|v| v.strip_prefix('='))
                    .map(|v| (v, 0))
            } else if option.len() == 2
                && a.len() > 2
                && !a.starts_with("--")
                && a.strip_prefix('-')
                    .is_some_and(|cluster| cluster.chars().all(|c| c.is_ascii_alphabetic()))
                && a.ends_with(&option[1..])
                && !a.starts_with(option)
            {
                // `rsync -avze 'ssh -p 22'`: the last letter of a cluster takes the next word.
                args.get(i + 1).map(|v| (*v, 1))
            } else if option.len() == 2 {
                // `-oProxyCommand=…`, `-e'ssh -p 22'`: a short option glued to its value.
                a.strip_prefix(option)
                    .filter(|v| !v.is_empty())
                    .map(|v| (v, 0))
            } else {
                None
            };
            let Some((value, skip)) = value else {
                continue;
            };
            for command in command_of(value, *how) {
                out.push((option.to_string(), command));
            }
            i += skip;
            break;
        }
        i += 1;
    }
    out
}

/// What an IPython cell runs: the shell commands (`!CMD` lines, a `%%bash`/`%%sh`/`%%system`
/// or `%%script bash` cell's body, `%system CMD`/`%sx CMD`, `%run F` as `python F`) and the
/// Python left, a blank line where each shell line was so line numbers hold. Other cell
/// magics (`%%writefile`, `%%html`) are no Python.
pub fn ipython_cell(source: &str) -> (Vec<String>, String) {
    let (mut commands, mut python) = (Vec::new(), String::new());
    let mut lines = source.lines();
    let first = source.lines().next().unwrap_or("").trim();
    if let Some(magic) = first.strip_prefix("%%") {
        let mut words = magic.split_whitespace();
        let name = words.next().unwrap_or("");
        let shell = match name {
            "bash" | "sh" | "system" => true,
            "script" => words.next().is_some_and(|w| {
                matches!(super::words::basename(w), "bash" | "sh" | "zsh" | "dash")
            }),
            _ => false,
        };
        if shell {
            lines.next();
            commands.push(lines.collect::<Vec<_>>().join("\n"));
        }
        return (commands, python);
    }
    for line in lines {
        let t = line.trim_start();
        if let Some(c) = t.strip_prefix('!') {
            commands.push(c.trim().to_string());
            python.push('\n');
        } else if let Some(m) = t.strip_prefix('%') {
            let (name, rest) = m.split_once(char::is_whitespace).unwrap_or((m, ""));
            match name {
                "system" | "sx" => commands.push(rest.trim().to_string()),
                "run" => commands.push(format!("python {}", rest.trim())),
                _ => {}
            }
            python.push('\n');
        } else {
            python.push_str(line);
            python.push('\n');
        }
    }
    (commands, python)
}

/// The shell command an editor or debugger command runs: `!CMD` and `shell CMD` to the end
/// (a `|` there is the shell's), `call system("CMD")`, `terminal CMD`; else each of the ex
/// commands a `|` separates.
fn editor_command(value: &str, depth: usize) -> Vec<String> {
    let c = value.trim().trim_start_matches(':').trim_start();
    let c = c
        .strip_prefix("silent!")
        .or_else(|| c.strip_prefix("silent"))
        .unwrap_or(c)
        .trim_start();
    if let Some(cmd) = c
        .strip_prefix('!')
        .or_else(|| c.strip_prefix("shell "))
        .or_else(|| c.strip_prefix("terminal "))
        .or_else(|| c.strip_prefix("term "))
    {
        return line_if_any(cmd);
    }
    // An editor's or debugger's own interpreters (`:lua CODE`, `:py3 CODE`, gdb's `python
    // CODE`): the code as the interpreter's command line, which the analysis reads as such.
    for (command, run) in [
        ("lua ", "lua -e"),
        ("luado ", "lua -e"),
        ("py3 ", "python3 -c"),
        ("python3 ", "python3 -c"),
        ("pyx ", "python3 -c"),
        ("py ", "python3 -c"),
        ("python ", "python3 -c"),
        ("perl ", "perl -e"),
        ("ruby ", "ruby -e"),
    ] {
        if let Some(code) = c.strip_prefix(command) {
            return line_if_any(&format!("{run} {}", quoted(code)));
        }
    }
    if let Some(at) = c.find("system(") {
        let inner = &c[at + "system(".len()..];
        if let Some(q) = inner.chars().next().filter(|q| *q == '"' || *q == '\'')
            && let Some(end) = inner[1..].find(q)
        {
            return line_if_any(&inner[1..=end]);
        }
        return Vec::new();
    }
    if depth > 0 || !c.contains('|') {
        return Vec::new();
    }
    c.split('|')
        .take(8)
        .flat_map(|part| editor_command(part, depth + 1))
        .collect()
}

/// `s` as one shell word, in single quotes.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A path as one shell word; a leading `~` stays outside the quotes, where the shell and
/// Emacs both expand it.
fn quoted_path(s: &str) -> String {
    match s.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("~{}", quoted(rest)),
        _ => quoted(s),
    }
}

/// The commands Emacs Lisp runs or the files it deletes, as command lines, for the calls whose
/// arguments are string literals.
fn elisp_commands(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let calls: Vec<(&str, usize)> = ELISP_CALLS
        .iter()
        .flat_map(|c| {
            let open = format!("({c} ");
            code.match_indices(&open)
                .map(|(at, _)| (*c, at))
                .collect::<Vec<_>>()
        })
        .take(16)
        .collect();
    for (call, at) in calls {
        let args = elisp_args(&code[at + call.len() + 2..]);
        let strings: Vec<String> = args.iter().flatten().cloned().collect();
        let line = match call {
            "shell-command" | "async-shell-command" | "shell-command-to-string" => {
                args.first().cloned().flatten()
            }
            // (call-process PROGRAM INFILE DESTINATION DISPLAY ARGS…)
            "call-process" | "process-file" => args.first().cloned().flatten().map(|p| {
                let rest = args.iter().skip(4).flatten().map(|a| quoted_path(a));
                std::iter::once(quoted(&p))
                    .chain(rest)
                    .collect::<Vec<_>>()
                    .join(" ")
            }),
            // (start-process NAME BUFFER PROGRAM ARGS…)
            "start-process" => args.get(2).cloned().flatten().map(|p| {
                let rest = args.iter().skip(3).flatten().map(|a| quoted_path(a));
                std::iter::once(quoted(&p))
                    .chain(rest)
                    .collect::<Vec<_>>()
                    .join(" ")
            }),
            "process-lines" => (!strings.is_empty()).then(|| {
                strings
                    .iter()
                    .enumerate()
                    .map(|(i, a)| if i == 0 { quoted(a) } else { quoted_path(a) })
                    .collect::<Vec<_>>()
                    .join(" ")
            }),
            "delete-directory" => args.first().cloned().flatten().map(|d| {
                let recursive = args.get(1).is_some_and(|a| a.is_none());
                let flags = if recursive { "-rf" } else { "-d" };
                format!("rm {flags} -- {}", quoted_path(&d))
            }),
            "delete-file" => args
                .first()
                .cloned()
                .flatten()
                .map(|f| format!("rm -f -- {}", quoted_path(&f))),
            // A file read into a buffer, which the code may then print or send.
            "insert-file-contents"
            | "insert-file-contents-literally"
            | "find-file"
            | "find-file-noselect"
            | "find-file-literally" => args
                .first()
                .cloned()
                .flatten()
                .map(|f| format!("cat -- {}", quoted_path(&f))),
            "copy-file" | "copy-directory" | "rename-file" | "make-symbolic-link"
            | "add-name-to-file" => match (args.first(), args.get(1)) {
                (Some(Some(from)), Some(Some(to))) => {
                    let verb = match call {
                        "copy-file" => "cp",
                        "copy-directory" => "cp -r",
                        "rename-file" => "mv",
                        "make-symbolic-link" => "ln -s",
                        _ => "ln",
                    };
                    Some(format!(
                        "{verb} -- {} {}",
                        quoted_path(from),
                        quoted_path(to)
                    ))
                }
                _ => None,
            },
            // (write-region START END FILE APPEND): the region, or the string START, into FILE.
            "write-region" | "append-to-file" => args.get(2).cloned().flatten().map(|f| {
                let append = call == "append-to-file" || args.get(3).is_some_and(|a| a.is_none());
                let to = if append { ">>" } else { ">" };
                let text = args.first().cloned().flatten().unwrap_or_default();
                format!("printf %s {} {to} {}", quoted(&text), quoted_path(&f))
            }),
            _ => None,
        };
        out.extend(line.as_deref().map(line_if_any).unwrap_or_default());
    }
    out
}

/// Emacs Lisp calls whose arguments name a command, or a file they delete, read, copy, move,
/// link or write.
const ELISP_CALLS: &[&str] = &[
    "shell-command",
    "async-shell-command",
    "shell-command-to-string",
    "call-process",
    "process-file",
    "start-process",
    "process-lines",
    "delete-directory",
    "delete-file",
    "insert-file-contents",
    "insert-file-contents-literally",
    "find-file",
    "find-file-noselect",
    "find-file-literally",
    "copy-file",
    "copy-directory",
    "rename-file",
    "make-symbolic-link",
    "add-name-to-file",
    "write-region",
    "append-to-file",
];

/// The arguments of an Emacs Lisp call up to its `)`: each string literal's text, `None` for
/// anything else (a symbol such as `t`, `nil`, or an expression, which ends the reading).
fn elisp_args(s: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while out.len() < 32 {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        match chars.peek() {
            None | Some(')') => break,
            Some('"') => {
                chars.next();
                let mut text = String::new();
                loop {
                    match chars.next() {
                        Some('\\') => text.extend(chars.next()),
                        Some('"') | None => break,
                        Some(c) => text.push(c),
                    }
                }
                out.push(Some(text));
            }
            Some('(') => {
                out.push(None);
                break;
            }
            Some(_) => {
                while chars.next_if(|c| !c.is_whitespace() && *c != ')').is_some() {}
                out.push(None);
            }
        }
    }
    out
}

/// The programs Tcl code starts (`spawn CMD`, `exec CMD` as a statement, `[exec CMD]` inside
/// one), for expect's `-c` and a Tcl shell's script.
pub fn tcl_commands(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for statement in tcl_statements(code) {
        let c = statement.trim();
        if let Some(cmd) = c.strip_prefix("spawn ").or_else(|| c.strip_prefix("exec ")) {
            out.extend(line_if_any(&tcl_braces_quoted(cmd)));
        }
        for (at, _) in c.match_indices("[exec ") {
            let cmd = &c[at + "[exec ".len()..];
            out.extend(line_if_any(&cmd[..cmd.find(']').unwrap_or(cmd.len())]));
        }
        out.extend(tcl_file_command(c));
    }
    out.truncate(8);
    out
}

/// Tcl code's statements: split at `;` and line ends outside braces and double quotes (`spawn
/// sh -c {a; b}` is one statement).
fn tcl_statements(code: &str) -> Vec<&str> {
    let (mut out, mut start, mut depth, mut quoted, mut escaped) =
        (Vec::new(), 0, 0usize, false, false);
    for (at, ch) in code.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match ch {
            '\\' => escaped = true,
            '"' if depth == 0 => quoted = !quoted,
            '{' if !quoted => depth += 1,
            '}' if !quoted => depth = depth.saturating_sub(1),
            ';' | '\n' if depth == 0 && !quoted => {
                out.push(&code[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    out.push(&code[start..]);
    out
}

/// A Tcl command's words as a shell line: a word in braces, which Tcl takes literally, in
/// single quotes (`sh -c {curl x | sh}` is `sh -c 'curl x | sh'`); other words as written.
fn tcl_braces_quoted(cmd: &str) -> String {
    let mut out = String::with_capacity(cmd.len() + 8);
    let mut rest = cmd;
    while let Some(open) = rest.find('{') {
        // Only a word that starts with the brace is a braced word.
        let starts_word = open == 0 || rest[..open].ends_with([' ', '\t']);
        let close = starts_word
            .then(|| {
                let mut depth = 0usize;
                rest[open..].char_indices().find_map(|(k, ch)| {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                return Some(open + k);
                            }
                        }
                        _ => {}
                    }
                    None
                })
            })
            .flatten();
        let Some(close) = close else {
            out.push_str(&rest[..=open]);
            rest = &rest[open + 1..];
            continue;
        };
        out.push_str(&rest[..open]);
        out.push_str(&quoted(&rest[open + 1..close]));
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Tcl's `file delete|rename|copy|link` statement as the shell command with the same change
/// (`file delete -force ~` is `rm -rf ~`); `$env(NAME)` is the shell's `$NAME`.
fn tcl_file_command(statement: &str) -> Option<String> {
    let mut rest = statement.strip_prefix("file ")?.to_string();
    while let Some(at) = rest.find("$env(") {
        let Some(end) = rest[at..].find(')') else {
            break;
        };
        rest.replace_range(at + end..=at + end, "}");
        rest.replace_range(at..at + "$env(".len(), "${");
    }
    let mut words = rest.split_whitespace();
    let verb = words.next()?;
    let mut force = false;
    let mut link = "-s";
    let operands: Vec<&str> = words
        .skip_while(|w| {
            match *w {
                "-force" => force = true,
                "-hard" => link = "",
                "-symbolic" | "--" => {}
                _ => return false,
            }
            true
        })
        .collect();
    let joined = operands.join(" ");
    let line = match (verb, operands.as_slice()) {
        ("delete", [_, ..]) if force => format!("rm -rf {joined}"),
        ("delete", [_, ..]) => format!("rm -f {joined}"),
        ("rename", [_, _, ..]) => format!("mv {joined}"),
        ("copy", [_, _, ..]) => format!("cp -r {joined}"),
        // `file link NAME TARGET`: the shell names the target first.
        ("link", [name, target]) => format!("ln {link} {target} {name}"),
        _ => return None,
    };
    Some(line)
}

/// A command line, unless it is empty.
fn line_if_any(s: &str) -> Vec<String> {
    let s = s.trim();
    if s.is_empty() {
        Vec::new()
    } else {
        vec![s.to_string()]
    }
}

/// The command lines an option's value runs, by how the program reads it.
fn command_of(value: &str, how: RunsAs) -> Vec<String> {
    let value = value.trim();
    match how {
        RunsAs::Line => line_if_any(value),
        RunsAs::ExecEquals => value
            .strip_prefix("exec=")
            .map(line_if_any)
            .unwrap_or_default(),
        RunsAs::SshOption => {
            let (key, v) = value.split_once(['=', ' ', '\t']).unwrap_or((value, ""));
            let runs = [
                "proxycommand",
                "localcommand",
                "knownhostscommand",
                "remotecommand",
            ];
            if runs.contains(&key.trim().to_ascii_lowercase().as_str())
                && !v.trim().eq_ignore_ascii_case("none")
            {
                line_if_any(v.trim_start_matches(['=', ' ']))
            } else {
                Vec::new()
            }
        }
        RunsAs::EditorCommand => editor_command(value, 0),
        RunsAs::Elisp => elisp_commands(value),
        RunsAs::Spawn => tcl_commands(value),
        RunsAs::Lldb => lldb_command(value),
        RunsAs::Ed => ed_command(value),
        RunsAs::M4 => m4_commands(value),
        RunsAs::Pager => pager_command(value),
        RunsAs::IPython => ipython_cell(value).0,
    }
}

/// The command a pager's start-up keys run: the keys are read in order, and `!` takes the
/// rest as a shell command, `|` a mark then the rest; a search (`/`, `?`, `&`) takes the rest
/// as its pattern. `++KEYS` runs them on every file.
fn pager_command(keys: &str) -> Vec<String> {
    let keys = keys.strip_prefix('+').unwrap_or(keys);
    let mut chars = keys.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '!' => return line_if_any(&keys[i + 1..]),
            '|' => {
                let rest = chars.as_str();
                let mut after_mark = rest.chars();
                after_mark.next();
                return line_if_any(after_mark.as_str());
            }
            '/' | '?' | '&' => break,
            _ => {}
        }
    }
    Vec::new()
}

/// Where a call's arguments end in `body` (the text after its opening parenthesis): the
/// parenthesis that balances it, or the end of the text when none does (`$(shell …)`,
/// m4's `syscmd(…)`).
pub fn call_end(body: &str) -> usize {
    let mut depth = 1usize;
    for (i, c) in body.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    body.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_files_are_found_by_their_options_and_expects_operand() {
        let f = |p: &str, a: &str| command_files(p, &a.split(' ').collect::<Vec<_>>());
        let owned = |v: &[(&'static str, &str)]| -> Vec<(&'static str, String)> {
            v.iter().map(|(o, f)| (*o, f.to_string())).collect()
        };
        assert_eq!(
            f("gdb", "-batch -x a.gdb --command=b.gdb ./app"),
            owned(&[("-x", "a.gdb"), ("--command", "b.gdb")])
        );
        assert_eq!(f("vim", "-S x.vim notes.txt"), owned(&[("-S", "x.vim")]));
        // `vim -S` alone sources Session.vim; `-u NONE` names no file the session wrote.
        assert_eq!(f("vim", "-S -c q"), owned(&[]));
        assert_eq!(f("lldb", "-s cmds ./app"), owned(&[("-s", "cmds")]));
        assert_eq!(
            f("expect", "-d -c set e.exp arg"),
            owned(&[("-f", "e.exp")])
        );
        assert_eq!(f("expect", "-f e.exp"), owned(&[("-f", "e.exp")]));
        assert_eq!(
            f("emacs", "--batch --load=l.el"),
            owned(&[("--load", "l.el")])
        );
        assert!(f("gdb", "./app core").is_empty());
        assert!(f("cat", "-x a.gdb").is_empty());
    }

    #[test]
    fn a_command_file_runs_what_its_lines_run_in_the_programs_language() {
        let run = |how: &str, text: &str| file_commands(how, text).unwrap();
        assert_eq!(
            run("gdb -x", "break main\nrun\nshell rm -rf ~\n!id\nbt"),
            ["rm -rf ~", "id"]
        );
        assert_eq!(
            run("vim -S", "set nu\n:!make clean\nsyntax on"),
            ["make clean"]
        );
        assert_eq!(run("lldb -s", "b main\nplatform shell ls"), ["ls"]);
        assert_eq!(
            run(
                "expect -f",
                "set timeout 5\nspawn sh -c {curl x | sh}\nexpect eof"
            ),
            ["sh -c 'curl x | sh'"]
        );
        assert_eq!(
            run(
                "emacs -l",
                "(progn\n (message \"x\")\n (shell-command \"rm -rf ~\"))"
            ),
            ["rm -rf ~"]
        );
        // Nothing run: an empty list, so the file is never read as shell.
        assert_eq!(run("gdb -x", "break main\nrun\nbt"), Vec::<String>::new());
        assert_eq!(file_commands("gdb -q", "shell id"), None);
        assert_eq!(file_commands("bash", "id"), None);
    }

    #[test]
    fn elisp_file_calls_are_their_shell_commands() {
        assert_eq!(
            elisp_commands(
                "(progn (insert-file-contents \"~/.ssh/id_rsa\") (princ (buffer-string)))"
            ),
            ["cat -- ~'/.ssh/id_rsa'"]
        );
        assert_eq!(
            elisp_commands("(copy-file \"~/.aws/credentials\" \"/tmp/c\" t)"),
            ["cp -- ~'/.aws/credentials' '/tmp/c'"]
        );
        assert_eq!(
            elisp_commands("(rename-file \"src\" \"/tmp/src\")"),
            ["mv -- 'src' '/tmp/src'"]
        );
        assert_eq!(
            elisp_commands("(write-region \"curl x | sh\" nil \"~/.bashrc\" t)"),
            ["printf %s 'curl x | sh' >> ~'/.bashrc'"]
        );
        assert_eq!(
            elisp_commands("(write-region (point-min) (point-max) \"out.txt\")"),
            Vec::<String>::new(),
            "a region given by expressions ends the reading of the arguments"
        );
        assert!(elisp_commands("(message (buffer-name))").is_empty());
    }

    #[test]
    fn tcl_braces_are_one_literal_word_and_hold_their_semicolons() {
        assert_eq!(
            tcl_commands("spawn sh -c {rm -rf ~; echo done}; expect eof"),
            ["sh -c 'rm -rf ~; echo done'"]
        );
        assert_eq!(tcl_commands("spawn ssh {user@host}"), ["ssh 'user@host'"]);
        assert_eq!(
            tcl_commands("exec echo a{b}c"),
            ["echo a{b}c"],
            "a brace inside a word is a character"
        );
        assert_eq!(
            tcl_commands("puts \"a; b\"; spawn id"),
            ["id"],
            "a quoted semicolon ends no statement"
        );
    }

    #[test]
    fn tcl_file_statements_are_their_shell_commands() {
        assert_eq!(tcl_commands("file delete -force ~"), ["rm -rf ~"]);
        assert_eq!(
            tcl_commands("puts hi; file delete -force -- $env(HOME)/x"),
            ["rm -rf ${HOME}/x"]
        );
        assert_eq!(tcl_commands("file delete a.tmp"), ["rm -f a.tmp"]);
        assert_eq!(tcl_commands("file rename a ~/.bashrc"), ["mv a ~/.bashrc"]);
        assert_eq!(
            tcl_commands("file copy -force k ~/.ssh/authorized_keys"),
            ["cp -r k ~/.ssh/authorized_keys"]
        );
        assert_eq!(tcl_commands("file link -symbolic l /etc"), ["ln -s /etc l"]);
        // Questions about a file change nothing.
        assert!(tcl_commands("file exists ~/.ssh; file join a b").is_empty());
    }

    #[test]
    fn editors_run_their_interpreters_and_emacs_lisp() {
        let oc = |p: &str, args: &[&str]| {
            option_commands(p, args)
                .into_iter()
                .map(|(_, c)| c)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            oc("nvim", &["--headless", "-c", "lua os.exit(0)"]),
            ["lua -e 'os.exit(0)'"]
        );
        assert_eq!(
            oc("vim", &["-c", ":py3 print('x')"]),
            ["python3 -c 'print('\\''x'\\'')'"]
        );
        assert_eq!(
            oc("gdb", &["-ex", "python import os"]),
            ["python3 -c 'import os'"]
        );
        assert_eq!(
            oc(
                "emacs",
                &["--batch", "--eval", "(shell-command \"make test\")"]
            ),
            ["make test"]
        );
        assert_eq!(
            oc(
                "emacs",
                &["--eval=(call-process \"rm\" nil nil nil \"-rf\" \"~/x\")"]
            ),
            ["'rm' '-rf' ~'/x'"]
        );
        assert_eq!(
            oc(
                "emacs",
                &[
                    "-eval",
                    "(progn (delete-directory \"~\" t) (delete-file \"a b\"))"
                ]
            ),
            ["rm -rf -- ~''", "rm -f -- 'a b'"]
        );
        assert_eq!(
            tcl_commands("set x [exec ls -la]; puts $x\nexec make test"),
            ["ls -la", "make test"]
        );
        assert_eq!(
            oc("emacs", &["--eval", "(delete-directory \"build\")"]),
            ["rm -d -- 'build'"]
        );
        assert_eq!(
            oc(
                "emacs",
                &[
                    "--eval",
                    "(shell-command cmd)",
                    "--eval",
                    "(message \"hi\")"
                ]
            ),
            Vec::<String>::new()
        );
    }

    #[test]
    fn options_whose_value_is_a_command() {
        let oc = |p: &str, line: &str| {
            let words: Vec<&str> = line.split(' ').collect();
            option_commands(p, &words)
                .into_iter()
                .map(|(_, c)| c)
                .collect::<Vec<_>>()
        };
        assert_eq!(oc("tar", "-cf x --checkpoint-action=exec=id ."), ["id"]);
        assert_eq!(oc("tar", "xf a.tar --to-command id"), ["id"]);
        assert_eq!(oc("tar", "-I zstd -cf a src"), ["zstd"]);
        assert_eq!(oc("zip", "z.zip x -T -TT id"), ["id"]);
        assert_eq!(oc("rsync", "-avze ssh a h:"), ["ssh"]);
        assert_eq!(oc("rsync", "--rsh=ssh a h:"), ["ssh"]);
        assert_eq!(oc("ssh", "-oProxyCommand=id host"), ["id"]);
        assert_eq!(oc("ssh", "-o ProxyCommand=none host"), Vec::<String>::new());
        assert_eq!(
            oc("ssh", "-o StrictHostKeyChecking=no host"),
            Vec::<String>::new()
        );
        assert_eq!(oc("vim", "-c :!id -c :q"), ["id"]);
        assert_eq!(oc("vim", "+10 f"), Vec::<String>::new());
        assert_eq!(oc("less", "+!id f"), ["id"]);
        assert_eq!(oc("less", "++G!id f"), ["id"]);
        assert_eq!(oc("more", "+|aid f"), ["id"]);
        assert_eq!(oc("less", "+G f"), Vec::<String>::new());
        assert_eq!(oc("less", "+F log"), Vec::<String>::new());
        assert_eq!(oc("less", "+/err!or f"), Vec::<String>::new());
        assert_eq!(oc("vim", "-c set -c wq"), Vec::<String>::new());
        assert_eq!(oc("gdb", "-batch -ex !id"), ["id"]);
        assert_eq!(oc("go", "test -exec id ./..."), ["id"]);
        assert_eq!(oc("go", "test -toolexec=id ./..."), ["id"]);
        assert_eq!(oc("go", "test -run TestExec ./..."), Vec::<String>::new());
        assert_eq!(oc("gdb", "-ex run -ex bt"), Vec::<String>::new());
        assert_eq!(oc("expect", "-c spawn"), Vec::<String>::new());
        assert_eq!(oc("cp", "-e x y"), Vec::<String>::new());
        let line = ["-c", "call system('curl x | sh')"];
        assert_eq!(option_commands("nvim", &line)[0].1, "curl x | sh");
        let line = ["-c", "spawn ssh host; expect eof"];
        assert_eq!(option_commands("expect", &line)[0].1, "ssh host");
    }

    #[test]
    fn sed_scripts_that_run_commands() {
        assert_eq!(sed_commands(&["-n", "1e rm -rf ~", "f"]), ["rm -rf ~"]);
        assert_eq!(sed_commands(&["s/.*/id/e"]), ["id"]);
        assert_eq!(
            sed_commands(&["-e", "p", "-e", "$e date; id"]),
            ["date; id"]
        );
        assert_eq!(sed_commands(&["-ne", "/x/e whoami", "f"]), ["whoami"]);
        assert_eq!(sed_commands(&["s|a|b\\|c|ge"]), ["b|c"]);
        // Ordinary scripts run nothing: `e` inside a pattern, text or file names.
        for script in [
            "s/e/E/g",
            "s/foo/bar/w out.txt",
            "/^#/d;s/\\bexec\\b/run/",
            "a\\ exec me",
            "1i header",
            "y/abc/xyz/",
            "/begin/,/end/d",
        ] {
            assert!(sed_commands(&[script, "f"]).is_empty(), "{script}");
        }
        assert!(sed_commands(&["-f", "script.sed", "f"]).is_empty());
        // Any text is read without panicking: multi-byte delimiters and addresses.
        for script in [
            "séaébée",
            "s\u{e9}x\u{e9}id\u{e9}e",
            "/é/e id",
            "1,/ü/s/a/b/e",
            "s",
        ] {
            let _ = sed_commands(&[script]);
        }
    }

    #[test]
    fn ipython_code_runs_its_shell_lines() {
        let run = |code: &str| -> Vec<String> {
            option_commands("ipython3", &["-c", code])
                .into_iter()
                .map(|(_, c)| c)
                .collect()
        };
        assert_eq!(run("import os\n  !rm -rf build\nx = 1"), ["rm -rf build"]);
        assert_eq!(
            run("%%bash\ncurl -s u | sh\necho hi"),
            ["curl -s u | sh\necho hi"]
        );
        assert_eq!(
            run("%system ls -la\n%run gen.py"),
            ["ls -la", "python gen.py"]
        );
        assert!(run("%%writefile x.sh\nrm -rf /").is_empty());
        assert!(run("print('!not a command')").is_empty());
        let (_, python) = ipython_cell("a = 1\n!ls\nb = 2");
        assert_eq!(python, "a = 1\n\nb = 2\n");
    }

    #[test]
    fn debuggers_pagers_and_m4_definitions_run_commands() {
        let oc = |p: &str, args: &[&str]| {
            option_commands(p, args)
                .into_iter()
                .map(|(_, c)| c)
                .collect::<Vec<_>>()
        };
        let none = Vec::<String>::new();
        assert_eq!(oc("lldb", &["-o", "platform shell rm -rf ~"]), ["rm -rf ~"]);
        assert_eq!(
            oc("lldb", &["--one-line=platform shell -t 5 -- id"]),
            ["id"]
        );
        assert_eq!(oc("lldb", &["-O", "shell id"]), ["id"]);
        assert_eq!(
            oc("lldb", &["-k", "script import os"]),
            ["python3 -c 'import os'"]
        );
        assert_eq!(oc("lldb", &["./a.out", "-o", "run", "-o", "bt"]), none);
        assert_eq!(oc("man", &["-P", "rm -rf ~", "ls"]), ["rm -rf ~"]);
        assert_eq!(oc("man", &["--pager=less -R", "ls"]), ["less -R"]);
        assert_eq!(oc("man", &["-Pcat", "ls"]), ["cat"]);
        assert_eq!(oc("man", &["-k", "printf"]), none);
        assert_eq!(oc("m4", &["-DX=esyscmd(id)", "in.m4"]), ["id"]);
        assert_eq!(
            oc("m4", &["--define", "X=syscmd(`rm -rf ~')"]),
            ["rm -rf ~"]
        );
        assert_eq!(oc("m4", &["-DVERSION=1", "in.m4"]), none);
    }

    #[test]
    fn scripts_on_standard_input_run_their_shell_commands() {
        let none = Vec::<String>::new();
        assert_eq!(stdin_commands("ed", "!rm -rf ~\nq"), ["rm -rf ~"]);
        assert_eq!(stdin_commands("ed", "1,$w !sh\nq"), ["sh"]);
        assert_eq!(stdin_commands("ed", "r !id\nw\nq"), ["id"]);
        assert_eq!(stdin_commands("ed", "1p\n,s/a/b/g\nw\nq"), none);
        assert_eq!(stdin_commands("ed", "w out.txt\nq"), none);
        assert_eq!(stdin_commands("ex", "silent !id\nwq"), ["id"]);
        assert_eq!(stdin_commands("ex", "%s/a/b/g|wq"), none);
        assert_eq!(stdin_commands("m4", "esyscmd(rm -rf ~)"), ["rm -rf ~"]);
        assert_eq!(
            stdin_commands("m4", "define(X, 1)\nsyscmd(`echo (a) b')dnl"),
            ["echo (a) b"]
        );
        assert_eq!(stdin_commands("m4", "mysyscmd(id) define(X,1)X"), none);
        assert_eq!(stdin_commands("lldb", "platform shell id"), ["id"]);
        // A program that reads data, not commands, on its standard input.
        assert_eq!(stdin_commands("cat", "!rm -rf ~"), none);
        // Vim and Neovim read Ex commands on standard input in Ex mode only.
        assert_eq!(stdin_commands("vim", ":!rm -rf ~\nq!"), ["rm -rf ~"]);
        for args in [
            &["-es"][..],
            &["-E", "-s"],
            &["-e"],
            &["--headless", "-Es"],
            &["-u", "NONE", "-es"],
        ] {
            assert!(reads_commands_on_stdin("nvim", args), "{args:?}");
        }
        for args in [
            &[][..],
            &["-"],
            &["-c", "-es"],
            &["-s", "keys.txt"],
            &["README.md"],
            &["--", "-es"],
        ] {
            assert!(!reads_commands_on_stdin("vim", args), "{args:?}");
        }
    }

    #[test]
    fn remote_clients_name_the_command_they_run() {
        let at = |p: &str, line: &str| {
            let words: Vec<&str> = line.split(' ').collect();
            remote_command(p, &words).map(|c| c.map(|c| (c.index, c.offset, c.whole)))
        };
        assert_eq!(at("ssh", "-p 22 host rm -rf ~"), Some(Some((3, 0, false))));
        assert_eq!(at("ssh", "host"), Some(None));
        assert_eq!(at("pdsh", "-w h1,h2 -l root id"), Some(Some((4, 0, false))));
        assert_eq!(at("pssh", "-h hosts -i id"), Some(Some((3, 0, false))));
        assert_eq!(at("clush", "-bw h id"), Some(Some((2, 0, false))));
        assert_eq!(
            at("ansible", "all -m shell -a id"),
            Some(Some((4, 0, true)))
        );
        assert_eq!(at("ansible", "all -a id"), Some(Some((2, 0, true))));
        assert_eq!(
            at("ansible", "all --module-name=ansible.builtin.raw --args=id"),
            Some(Some((2, 7, true)))
        );
        assert_eq!(at("ansible", "all -m ping"), Some(None));
        assert_eq!(at("ansible", "all -m copy -a src=a"), Some(None));
        assert_eq!(at("salt", "* cmd.run id"), Some(Some((2, 0, true))));
        assert_eq!(at("salt", "* test.ping"), Some(None));
        assert_eq!(
            at("gcloud", "compute ssh vm --command=id"),
            Some(Some((3, 10, true)))
        );
        assert_eq!(
            at("fly", "ssh console -a app -C id"),
            Some(Some((5, 0, true)))
        );
        assert_eq!(
            at("fly", "ssh console --command=id"),
            Some(Some((2, 10, true)))
        );
        assert_eq!(
            at("heroku", "run -a app rails c"),
            Some(Some((3, 0, false)))
        );
        assert_eq!(at("heroku", "run"), Some(None));
        assert_eq!(
            at("az", "vm run-command invoke --scripts id"),
            Some(Some((4, 0, true)))
        );
        assert_eq!(at("ls", "-la"), None);
    }
}
