//! cmd.exe: the command line `cmd /c …` runs (`rd /s /q %USERPROFILE%`, `type
//! %USERPROFILE%\.ssh\id_rsa`, `copy a b & del a`) is rewritten as the Bash line with the same
//! effects (`rm -r -f ~`, `cat ~/.ssh/id_rsa`), which the Bash analysis then judges, as
//! PowerShell's is (`powershell.rs`). The builtins that delete, read, copy, move, set
//! variables and start programs are mapped; any other command keeps its name, lower-cased,
//! with its arguments.

/// Most bytes rewritten; a longer line is judged as the unknown script it is.
pub(super) const MAX_BYTES: usize = 16 * 1024;

/// The Bash line with the effects of the cmd.exe line `text`.
pub(super) fn rewrite(text: &str) -> String {
    let mut out = String::new();
    for (command, separator) in split_commands(text) {
        out.push_str(&rewrite_command(command));
        out.push_str(separator);
    }
    out
}

/// The commands of a line with the separator after each (`&` runs the next after it, as
/// Bash's `;` does; `&&`, `||` and `|` are Bash's own). Quoted text is not split.
fn split_commands(text: &str) -> Vec<(&str, &'static str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i, mut quoted) = (0, 0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' {
            quoted = !quoted;
        } else if !quoted && (b == b'&' || b == b'|') {
            let double = bytes.get(i + 1) == Some(&b);
            let separator = match (b, double) {
                (b'&', true) => " && ",
                (b'&', false) => "; ",
                (_, true) => " || ",
                _ => " | ",
            };
            out.push((&text[start..i], separator));
            i += if double { 2 } else { 1 };
            start = i;
            continue;
        }
        i += 1;
    }
    out.push((&text[start..], ""));
    out
}

/// The words of one command: split at blanks outside double quotes, quotes dropped.
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut any) = (false, false);
    for c in command.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            ' ' | '\t' if !quoted => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            _ => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out
}

/// A cmd switch (`/s`, `/Q`, `/MIR`, `/e:on`): not a path.
fn is_switch(word: &str) -> bool {
    let Some(rest) = word.strip_prefix('/') else {
        return false;
    };
    let name = rest.split(':').next().unwrap_or("");
    !name.is_empty() && name.len() <= 8 && name.chars().all(|c| c.is_ascii_alphabetic())
}

/// Whether the switch `name` (`s`, `mir`) is among `words`, in any case.
fn has_switch(words: &[String], name: &str) -> bool {
    words.iter().any(|w| {
        is_switch(w)
            && w[1..]
                .split(':')
                .next()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
    })
}

/// One cmd.exe command as a Bash command.
fn rewrite_command(command: &str) -> String {
    let command = command.trim().trim_start_matches('@');
    let words = words(command);
    let Some((program, args)) = words.split_first() else {
        return String::new();
    };
    let program = program.to_ascii_lowercase();
    let program = program.strip_suffix(".exe").unwrap_or(&program);
    let operands = || -> Vec<String> {
        args.iter()
            .filter(|w| !is_switch(w))
            .map(|w| path_word(w))
            .collect()
    };
    let line = |head: &str, rest: Vec<String>| -> String {
        std::iter::once(head.to_string())
            .chain(rest)
            .collect::<Vec<_>>()
            .join(" ")
    };
    match program {
        "rd" | "rmdir" if has_switch(args, "s") => line("rm -r -f", operands()),
        "rd" | "rmdir" => line("rmdir", operands()),
        // `del /s` deletes the matching files in every directory below.
        "del" | "erase" if has_switch(args, "s") => line("rm -r -f", operands()),
        "del" | "erase" => line("rm -f", operands()),
        "type" | "more" => line("cat", operands()),
        "copy" | "xcopy" => line("cp -r", operands()),
        // `robocopy SRC DST /MIR` mirrors: what DST holds and SRC does not is deleted.
        "robocopy" if has_switch(args, "mir") || has_switch(args, "purge") => {
            line("rsync -a --delete", operands())
        }
        "robocopy" => line("cp -r", operands()),
        "move" | "ren" | "rename" => line("mv", operands()),
        "md" | "mkdir" => line("mkdir -p", operands()),
        "cd" | "chdir" | "pushd" => line("cd", operands()),
        "popd" => "popd".into(),
        // `set NAME=value` (or `set "NAME=value"`): the value later commands get, the whole
        // rest of the command, blanks included.
        "set" => {
            let rest = command[command.find(char::is_whitespace).unwrap_or(command.len())..]
                .trim()
                .trim_matches('"');
            match rest.split_once('=') {
                Some((name, value))
                    if !name.is_empty()
                        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
                {
                    format!("export {name}={}", path_word(value))
                }
                _ if rest.is_empty() => "env".into(),
                _ => "set".into(),
            }
        }
        // `start ["title"] PROGRAM ARGS`, `call PROGRAM ARGS`: the program runs.
        "start" | "call" => {
            let rest: Vec<&String> = args
                .iter()
                .skip_while(|a| is_switch(a) || (program == "start" && a.is_empty()))
                .collect();
            rest.split_first()
                .map(|(p, a)| {
                    rewrite_command(
                        &std::iter::once(quote_if_blank(p))
                            .chain(a.iter().map(|w| quote_if_blank(w)))
                            .collect::<Vec<_>>()
                            .join(" "),
                    )
                })
                .unwrap_or_default()
        }
        // `reg add KEY …`: PowerShell's reading of it (a Run key is a start-up entry).
        "reg" => super::powershell::rewrite(command),
        "echo" => line(
            "echo",
            args.iter()
                .map(|a| super::indirect::shell_word(a))
                .collect(),
        ),
        "cls" | "ver" | "title" | "pause" | "rem" | "::" => "true".into(),
        // cmd looks in the working directory before the search path: a script named
        // there (`setup.bat`) is that file.
        other if is_local_script(other) => line(
            &format!("./{}", path_word(other)),
            args.iter().map(|a| path_word(a)).collect(),
        ),
        other => line(
            &super::indirect::shell_word(other),
            args.iter().map(|a| path_word(a)).collect(),
        ),
    }
}

/// A program named by a file of the working directory: a batch or PowerShell script, no
/// directory given.
fn is_local_script(program: &str) -> bool {
    !program.contains(['/', '\\', ':'])
        && [".bat", ".cmd", ".ps1"]
            .iter()
            .any(|e| program.ends_with(e))
}

/// A word with blanks quoted again, for a command line rewritten from its words.
fn quote_if_blank(w: &str) -> String {
    if w.contains(' ') {
        format!("\"{w}\"")
    } else {
        w.to_string()
    }
}

/// A cmd word as a Bash word: backslashes as slashes, `%USERPROFILE%` (and `%HOMEPATH%`,
/// `%HOME%`) as `~`, `%TEMP%`/`%TMP%` as `/tmp`, `%CD%` as `.`, other `%NAME%` as `${NAME}`;
/// the rest quoted, so nothing in it means more to Bash than it did to cmd.
fn path_word(word: &str) -> String {
    let text = word.replace('\\', "/");
    let mut out = String::new();
    let mut literal = String::new();
    let mut rest = text.as_str();
    let flush = |literal: &mut String, out: &mut String| {
        if !literal.is_empty() {
            out.push_str(&super::indirect::shell_word(literal));
            literal.clear();
        }
    };
    while let Some(at) = rest.find('%') {
        let after = &rest[at + 1..];
        let Some(end) = after.find('%') else { break };
        let name = &after[..end];
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '(' || c == ')');
        if !valid {
            literal.push_str(&rest[..at + 1]);
            rest = after;
            continue;
        }
        literal.push_str(&rest[..at]);
        let upper = name.to_ascii_uppercase();
        let home = matches!(upper.as_str(), "USERPROFILE" | "HOMEPATH" | "HOME");
        if home && literal.is_empty() && out.is_empty() {
            out.push('~');
        } else {
            flush(&mut literal, &mut out);
            match upper.as_str() {
                "USERPROFILE" | "HOMEPATH" | "HOME" => out.push_str("$HOME"),
                "TEMP" | "TMP" => out.push_str("/tmp"),
                "CD" => out.push('.'),
                _ => {
                    out.push_str("${");
                    out.push_str(&upper);
                    out.push('}');
                }
            }
        }
        rest = &after[end + 1..];
    }
    literal.push_str(rest);
    flush(&mut literal, &mut out);
    if out.is_empty() { "''".into() } else { out }
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn builtins_become_the_bash_commands_with_their_effects() {
        for (cmd, bash) in [
            ("rd /s /q %USERPROFILE%", "rm -r -f ~"),
            ("rmdir build", "rmdir build"),
            (
                "del /f /q %USERPROFILE%\\.ssh\\id_rsa",
                "rm -f ~/.ssh/id_rsa",
            ),
            ("del /s /q C:\\", "rm -r -f C:/"),
            (
                "type %USERPROFILE%\\.aws\\credentials",
                "cat ~/.aws/credentials",
            ),
            (
                "copy \"%APPDATA%\\x y\\k.txt\" %TEMP%\\k.txt",
                "cp -r ${APPDATA}'/x y/k.txt' /tmp/k.txt",
            ),
            (
                "robocopy empty %USERPROFILE% /MIR",
                "rsync -a --delete empty ~",
            ),
            ("set HOME=C:\\tmp", "export HOME=C:/tmp"),
            ("set \"PAGER=rm -rf ~\"", "export PAGER='rm -rf ~'"),
            ("set", "env"),
            ("start \"\" powershell -c x", "powershell -c x"),
            ("call build.bat", "./build.bat"),
            ("setup.cmd /quiet", "./setup.cmd /quiet"),
            (
                "reg add HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run /v x /d e.exe",
                "tee '~/AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup/'x >/dev/null",
            ),
            ("echo a & del x", "echo a; rm -f x"),
            ("dir && cls", "dir && true"),
            ("@echo off", "echo off"),
        ] {
            assert_eq!(rewrite(cmd), bash, "{cmd}");
        }
    }
}
