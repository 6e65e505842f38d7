//! Programs whose options (or script) name a command they run with a shell: `tar
//! --checkpoint-action=exec=…`, `ssh -o ProxyCommand=…`, `vim -c '!…'`, GNU sed's `e`. Part of
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
}

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
    (&["rsync"], &["-e", "--rsh"], RunsAs::Line),
    (
        &["ssh", "scp", "sftp", "autossh"],
        &["-o"],
        RunsAs::SshOption,
    ),
    (
        &["vim", "vi", "nvim", "view", "ex", "vimdiff", "gvim", "rvim"],
        &["-c", "--cmd", "+"],
        RunsAs::EditorCommand,
    ),
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
        &["emacs", "emacsclient", "emacs-nox"],
        &["--eval", "-eval", "--execute"],
        RunsAs::Elisp,
    ),
];

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
            } else if option.starts_with("--") {
                a.strip_prefix(option)
                    .and_then(|v| v.strip_prefix('='))
                    .map(|v| (v, 0))
            } else if option.len() == 2
                && a.len() > 2
                && !a.starts_with("--")
                && a[1..].chars().all(|c| c.is_ascii_alphabetic())
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
            _ => None,
        };
        out.extend(line.as_deref().map(line_if_any).unwrap_or_default());
    }
    out
}

/// Emacs Lisp calls whose arguments name a command or a file to delete.
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
    for statement in code.split([';', '\n']) {
        let c = statement.trim();
        if let Some(cmd) = c.strip_prefix("spawn ").or_else(|| c.strip_prefix("exec ")) {
            out.extend(line_if_any(cmd));
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(oc("vim", "-c set -c wq"), Vec::<String>::new());
        assert_eq!(oc("gdb", "-batch -ex !id"), ["id"]);
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
}
