//! What a shell command line does to files: the paths it writes (redirections, `tee`, `cp`,
//! `mv`, `install`, `curl -o`, `wget -O`, `dd of=`, `sed -i`…) with the content where it is
//! known statically (here-docs, `echo`/`printf` into a file), and the files it executes
//! (`bash f`, `./f`, `source f`, `python f`, `make`, `npm test`, git hooks…). Shared by the rule
//! packs (self-protection, confinement) and the ledger (write-then-run chains).

use crate::call::{Scope, Span};
use crate::shell::{Command, RedirectKind, ShellAnalysis, Word};
use crate::vocab::Language;
pub use crate::vocab::{
    Interpreter, basename, interpreter, is_device, is_downloader, operands_skipping,
};
use std::path::{Path, PathBuf};

/// Longest pipe chain followed upstream (the analysis is acyclic; this is a guard).
const MAX_PIPE_WALK: usize = 64;

/// One file a command line writes or changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWrite {
    /// Resolved path.
    pub path: PathBuf,
    /// The text written, when known statically.
    pub content: Option<String>,
    /// `>>`, `tee -a`: the content is appended.
    pub append: bool,
    /// The content came from the network (`curl -o`, `wget -O`, `curl … > f`).
    pub from_network: bool,
    /// Index of the command in `ShellAnalysis::commands`.
    pub command: usize,
    /// How it is written: `>`, `>>`, `tee`, `cp`, `mv`, `curl -o`, `chmod +x`…
    pub how: String,
    /// The file whose content is copied here (`cp`, `mv`, `install`, `ln -s`, `cat a > b`),
    /// resolved; the ledger takes the content from it when it knows it.
    pub source: Option<PathBuf>,
}

impl FileWrite {
    /// A write of unknown content, neither appended nor from the network, copying nothing.
    pub(crate) fn new(path: PathBuf, command: usize, how: impl Into<String>) -> FileWrite {
        FileWrite {
            path,
            content: None,
            append: false,
            from_network: false,
            command,
            how: how.into(),
            source: None,
        }
    }

    /// A file saved from the network (`curl -o`, `wget`, a cloud copy into a local path).
    pub(crate) fn downloaded(path: PathBuf, command: usize, how: impl Into<String>) -> FileWrite {
        FileWrite {
            from_network: true,
            ..FileWrite::new(path, command, how)
        }
    }
}

/// One file a command line executes (or hands to an interpreter, `make`, `npm`, `git`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    /// Resolved path of the file that is run.
    pub path: PathBuf,
    /// How it is run, for reasons: `bash`, `./`, `source`, `python3`, `make`, `npm test`, `git commit`…
    pub how: String,
    /// Index of the command in `ShellAnalysis::commands`.
    pub command: usize,
    /// The language the runner forces (`bash f` runs `f` as shell whatever its name).
    pub language: Option<Language>,
    /// The parts of the file that run: npm scripts (`pretest`, `test`, `posttest`); empty = all.
    pub sections: Vec<String>,
    /// Variables the invocation sets for the file (`make PY=python3`, `PY=python3 make`).
    pub defines: Vec<(String, String)>,
    /// `path` is a directory whose files of the kind the runner takes run: the ledger judges
    /// each such file written under it (`.github/workflows/*.yml` on `git push`, test
    /// modules and `conftest.py` at any depth for pytest).
    pub directory: bool,
    /// The file runs only if it is there (`call::ShellRun::looked_up`).
    pub looked_up: bool,
    /// The arguments the run gives the file (`call::ShellRun::args`).
    pub args: Vec<Option<String>>,
}

/// The text of a path word when it is known statically: the word itself, a `$HOME/…` word
/// (resolved like `~`), or a `$TMPDIR/…` word as a path under `/tmp`. `None` for any other
/// word whose value is only known when it runs.
pub fn static_text(word: &Word) -> Option<std::borrow::Cow<'_, str>> {
    if !word.dynamic {
        return Some(std::borrow::Cow::Borrowed(word.text.as_str()));
    }
    if let Some(temp) = tmpdir_word(&word.text) {
        return Some(std::borrow::Cow::Owned(temp));
    }
    if let Some(decoded) = crate::shell::decoded_path(&word.text) {
        return Some(std::borrow::Cow::Owned(decoded));
    }
    // `$PWD/..`: the command's own directory, which `resolve_for` resolves `./…` against;
    // `${PWD%/*}` takes its last component off (its parent), `${PWD%/}` a trailing slash.
    // `${HOME%/*}` is the home directory's parent.
    let pwd = [
        ("${PWD}", "."),
        ("$PWD", "."),
        ("${PWD%/}", "."),
        ("${PWD%%/}", "."),
        ("${PWD%/*}", ".."),
        ("${HOME%/*}", "~/.."),
    ]
    .iter()
    .find_map(|(v, dir)| word.text.strip_prefix(v).map(|rest| (*dir, rest)))
    .filter(|(_, rest)| (rest.is_empty() || rest.starts_with('/')) && !rest.contains(['$', '`']));
    if let Some((dir, rest)) = pwd {
        return Some(std::borrow::Cow::Owned(format!("{dir}{rest}")));
    }
    // `$(git rev-parse --show-toplevel)/…`: the top of the work tree, which the scope finds
    // (`Scope::resolve`; `resolve_for` leaves it unknown after a `cd`).
    if let Some(rest) = crate::shell::git_toplevel(&word.text)
        && (rest.is_empty() || rest.starts_with('/'))
        && !rest.contains(['$', '`'])
    {
        return Some(std::borrow::Cow::Owned(format!(
            "{}{rest}",
            crate::shell::GIT_TOPLEVEL
        )));
    }
    starts_with_home_var(&word.text).then_some(std::borrow::Cow::Borrowed(word.text.as_str()))
}

/// The path an operand of `cmd` names, when it is known statically (`static_text`), resolved
/// against the command's own directory. A glob stays as written (`build/*`).
pub fn word_target(word: &Word, cmd: &Command, scope: &Scope) -> Option<PathBuf> {
    static_text(word).map(|t| resolve_for(scope, cmd, &t))
}

/// A word as a path target: resolved against the command's own directory when it changed
/// (`cd dir && …`). `None` when the word is not known statically. A glob resolves to the
/// directory it ranges over, with how much of it it covers.
pub fn word_path(word: &Word, cmd: &Command, scope: &Scope) -> Option<(PathBuf, Span)> {
    let text = static_text(word)?;
    let text = text.as_ref();
    if !word.glob {
        return Some((resolve_for(scope, cmd, text), Span::Exact));
    }
    let cut = text.find(['*', '?', '[']).unwrap_or(text.len());
    let (dir, rest) = match text[..cut].rfind('/') {
        Some(i) => (&text[..=i], &text[i + 1..]),
        None => ("", text),
    };
    let span = if matches!(rest.trim_end_matches('/'), "*" | ".*" | "{*,.*}" | ".[!.]*") {
        Span::Contents
    } else {
        Span::Pattern
    };
    let dir = if dir.is_empty() { "." } else { dir };
    Some((resolve_for(scope, cmd, dir), span))
}

/// A glob word's pattern below the directory `word_path` gives for it (`~/.claude/s*.json` →
/// `s*.json`, `a/*/b` → `*/b`); `None` for a word that is no glob.
pub fn glob_pattern(word: &Word) -> Option<String> {
    if !word.glob {
        return None;
    }
    let text = word.text.as_str();
    let cut = text.find(['*', '?', '[']).unwrap_or(text.len());
    Some(match text[..cut].rfind('/') {
        Some(i) => text[i + 1..].to_string(),
        None => text.to_string(),
    })
}

/// Whether `cmd` installs or builds the Python project in a directory, which runs its
/// setup.py: `pip install [-e] .`, `pip wheel .`, `pipx install .`, `uv pip install .`, `uv
/// build`, `python -m build`, `pyproject-build`.
fn builds_python_project(cmd: &Command) -> bool {
    let ops = cmd.operands();
    let local = cmd
        .args
        .iter()
        .any(|w| matches!(w.text.as_str(), "." | "-e" | "--editable" | "./"));
    match cmd.program.as_str() {
        "pip" | "pip3" | "pipx" => {
            local
                && ops
                    .iter()
                    .any(|w| matches!(w.text.as_str(), "install" | "wheel"))
        }
        "uv" => {
            cmd.subcommand() == Some("build")
                || (local
                    && ops
                        .iter()
                        .any(|w| matches!(w.text.as_str(), "install" | "wheel")))
        }
        "build" => cmd.wrappers.iter().any(|w| w.starts_with("python")),
        "pyproject-build" => true,
        _ => false,
    }
}

/// `how` of a dotfile manager's apply (`stow -t DIR PKG`, `chezmoi apply`): the files it
/// manages are linked or copied into the target directory, which ones not known here (one of
/// `effects::INTO_DIRECTORY`).
pub const DOTFILES: &str = "a dotfile manager";

/// The requirements files a pip command reads: each `-r`/`-c FILE` (glued or `=`), and for
/// `pip-sync` its operands (`requirements.txt` when none).
fn requirement_files(cmd: &Command) -> Vec<&str> {
    let mut words = cmd.args.iter().map(|w| w.text.as_str());
    let mut files: Vec<&str> = Vec::new();
    while let Some(t) = words.next() {
        match t {
            "-r" | "--requirement" | "-c" | "--constraint" => files.extend(words.next()),
            _ => files.extend(
                ["--requirement=", "--constraint="]
                    .iter()
                    .find_map(|p| t.strip_prefix(p))
                    .or_else(|| t.strip_prefix("-r").filter(|f| !f.is_empty())),
            ),
        }
    }
    if cmd.program == "pip-sync" {
        let ops: Vec<&str> = cmd.operands().iter().map(|w| w.text.as_str()).collect();
        files.extend(if ops.is_empty() {
            vec!["requirements.txt"]
        } else {
            ops
        });
    }
    files
}

/// `$TMPDIR/x`, `${TMPDIR}/x`, `${TMPDIR:-/tmp}/x` as a path under the temp root: the variable
/// names a temp directory wherever it is set (an assignment in the line is substituted before).
fn tmpdir_word(text: &str) -> Option<String> {
    let rest = if let Some(r) = text
        .strip_prefix("${TMPDIR}")
        .or_else(|| text.strip_prefix("$TMPDIR"))
    {
        r
    } else {
        let r = text
            .strip_prefix("${TMPDIR:-")
            .or_else(|| text.strip_prefix("${TMPDIR-"))?;
        let close = r.find('}')?;
        let default = &r[..close];
        if !matches!(default.trim_end_matches('/'), "/tmp" | "/var/tmp") {
            return None;
        }
        &r[close + 1..]
    };
    ((rest.is_empty() || rest.starts_with('/')) && !rest.contains('$'))
        .then(|| format!("/tmp{rest}"))
}

fn starts_with_home_var(text: &str) -> bool {
    crate::paths::strip_home_var(text).is_some_and(|r| !r.contains(['$', '`']))
}

/// The files a command reads the content of, in order: a reader's operands (not a copy's
/// destination nor an output option's value; `@file` forms; `dd if=`), paths in its inline
/// code, and its `<` input. What the secrets pack judges as a secret read, and what a send's
/// sources read (`effects`).
pub fn read_paths(cmd: &Command, scope: &Scope) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if matches!(cmd.program.as_str(), "tar" | "bsdtar") {
        out.extend(tar_reads(cmd, scope));
    } else if matches!(cmd.program.as_str(), "kubectl" | "oc") {
        // `kubectl create secret|configmap … --from-file=[KEY=]PATH`, `--from-env-file=PATH`:
        // the file's content goes into the cluster object.
        let mut args = cmd.args.iter().peekable();
        while let Some(a) = args.next() {
            let t = a.text.as_str();
            let value = match t.split_once('=') {
                Some((o @ ("--from-file" | "--from-env-file"), v)) => Some((o, v.to_string())),
                None if matches!(t, "--from-file" | "--from-env-file") => {
                    args.next().map(|v| (t, v.text.clone()))
                }
                _ => None,
            };
            if let Some((option, v)) = value {
                // `KEY=PATH` names the key the file's content is stored under.
                let path = match option {
                    "--from-file" => v.split_once('=').map_or(v.as_str(), |(_, p)| p).to_string(),
                    _ => v,
                };
                out.push(resolve_for(scope, cmd, &path));
            }
        }
    } else if cmd.program == "git" {
        // `git diff --no-index A B` and `git hash-object F` read files anywhere.
        let pos = crate::vocab::positionals(cmd);
        let reads = match pos.first() {
            Some(&"diff") => cmd.args.iter().any(|a| a.text == "--no-index"),
            Some(&"hash-object") => !cmd.args.iter().any(|a| a.text == "--stdin"),
            _ => false,
        };
        if reads {
            out.extend(pos[1..].iter().map(|p| resolve_for(scope, cmd, p)));
        }
    } else if crate::vocab::reads_operands(&cmd.program) {
        // The last operand of a copy is where it writes, not what it reads.
        let dest = match cmd.program.as_str() {
            "cp" | "mv" | "install" | "ln" | "rsync" | "scp" => {
                cmd.operands().last().map(|w| *w as *const Word)
            }
            _ => None,
        };
        // The value of an output option is written, not read (`openssl req -keyout key.pem`,
        // `curl -o out`, `sort -o sorted`).
        let mut output_value = false;
        // The values of options such as `grep -A 3`, `cut -d ,`: no file is read from them.
        let values = crate::vocab::value_words(cmd);
        for (i, w) in cmd.args.iter().enumerate() {
            if std::mem::take(&mut output_value) || values.contains(&i) {
                continue;
            }
            if matches!(
                w.text.as_str(),
                "-o" | "-O" | "--output" | "-out" | "--out" | "-keyout" | "--keyout"
            ) {
                output_value = true;
                continue;
            }
            if dest == Some(w as *const Word) {
                continue;
            }
            if cmd.program == "dd" {
                if let Some(src) = w.text.strip_prefix("if=") {
                    out.push(resolve_for(scope, cmd, src));
                }
                continue;
            }
            out.extend(word_read_paths(w, cmd, scope));
        }
    } else if let Some((source, _)) = bind_mount(cmd) {
        // What a bind mount shows at its mount point is read there, as through a link.
        out.extend(word_read_paths(source, cmd, scope));
    } else if let Some(upload) = crate::vocab::cli_upload(cmd) {
        // What an upload CLI sends it reads (`docker cp f c1:/tmp`, `croc send f`, `gh gist
        // create f`), as `scp` reads its sources.
        for (w, f) in upload.files {
            let named = Word {
                text: f.to_string(),
                dynamic: w.dynamic,
                glob: w.glob,
            };
            out.extend(word_path(&named, cmd, scope).map(|(p, _)| p));
        }
    }
    // The script an interpreter runs is read by it, and what does not parse comes back in its
    // errors (`bash: line 2: MIIEow…: command not found`): `bash ~/.ssh/id_rsa` prints the key.
    if let Some(w) = script_operand(cmd)
        && !crate::vocab::reads_operands(&cmd.program)
    {
        out.extend(word_read_paths(w, cmd, scope));
    }
    for p in inline_code_paths(cmd) {
        out.push(resolve_for(scope, cmd, &p));
    }
    for r in &cmd.redirects {
        if matches!(r.kind, RedirectKind::Read | RedirectKind::ReadWrite)
            && let Some((p, _)) = word_path(&r.target, cmd, scope)
        {
            out.push(p);
        }
    }
    out
}

/// The script file operand an interpreter runs (`bash f`, `php f`, `source f`), if any.
fn script_operand(cmd: &Command) -> Option<&Word> {
    if matches!(cmd.program.as_str(), "source" | ".") {
        return cmd.args.first();
    }
    match crate::vocab::program_source(cmd)? {
        crate::shell::switches::Source::File(i) => cmd.args.get(i),
        _ => None,
    }
}

/// What a `tar` line reads: the members it archives (each relative to the `-C` before it) and
/// the lists of members, or the archive it extracts, lists or compares.
fn tar_reads(cmd: &Command, scope: &Scope) -> Vec<PathBuf> {
    let t = crate::vocab::tar_line(cmd);
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    let mut out: Vec<PathBuf> = t
        .lists
        .iter()
        .filter(|l| **l != "-")
        .map(|l| res(l))
        .collect();
    let archive = t.archive.filter(|a| *a != "-" && !a.contains(':'));
    let members = matches!(t.op, Some('c' | 'r' | 'u' | 'd'));
    if members {
        for (dir, w) in &t.members {
            let path = match dir {
                // Resolved as one path, as the member named without `-C` is: `-C lnk s/`
                // goes through the link `s` as `lnk/s/` does.
                Some(d) if !w.text.starts_with(['/', '~', '$']) => {
                    res(&format!("{}/{}", d.trim_end_matches('/'), w.text))
                }
                _ => {
                    out.extend(
                        word_read_paths(w, cmd, scope)
                            .iter()
                            .map(|p| crate::paths::fold(p)),
                    );
                    continue;
                }
            };
            out.push(crate::paths::fold(&path));
        }
    }
    // An archive extracted, listed, compared, appended to or updated is read.
    if !matches!(t.op, Some('c')) {
        out.extend(archive.map(res));
    }
    out
}

/// What a glob word matches on disk that its pattern does not show: each match reached
/// through a link (`creds.txt` → ~/.aws/credentials, `keys/id_rsa` with `keys` → ~/.ssh), as
/// the file it is, and each hard link; with the pattern's own path (as `word_read_paths`
/// gives it). `None` for a word that is no glob, or off the disk (a fixed view lists no
/// directory). A plain file matched is the pattern's to judge: judging every one of a large
/// directory's files cost more than the call. Bounded as `protect::expand` is.
pub fn glob_hits(word: &Word, cmd: &Command, scope: &Scope) -> Option<(PathBuf, Vec<PathBuf>)> {
    if !word.glob || !scope.paths.follow_symlinks {
        return None;
    }
    let pattern = resolve_for(scope, cmd, &static_text(word)?);
    let hits = crate::protect::expand(scope, &pattern.to_string_lossy())
        .into_iter()
        .filter_map(|hit| {
            let real = resolve_for(scope, cmd, &hit.to_string_lossy());
            let linked = real != hit
                || scope
                    .files
                    .identity(&real)
                    .is_some_and(|id| id.is_file && id.links > 1);
            linked.then_some(real)
        })
        .collect();
    Some((pattern, hits))
}

/// Paths a word names for reading, including `@file` forms (`curl -d @f`, `-F x=@f`).
pub fn word_read_paths(word: &Word, cmd: &Command, scope: &Scope) -> Vec<PathBuf> {
    let mut out = Vec::new();
    // A glob reads what it matches, not the directory it ranges over (`cat ~/.ssh/*.pub` reads
    // no private key): the pattern is kept for the rules that match it against known files
    // (`cp ~/.*/credentials x`).
    if word.glob {
        if let Some(text) = static_text(word) {
            out.push(resolve_for(scope, cmd, &text));
        }
    } else if let Some((p, _)) = word_path(word, cmd, scope) {
        out.push(p);
    }
    // `cat ~/.ssh/$K`, `cat "$HOME/.aws/$F"`: a name not known until the line runs, in a
    // directory that is known, reads one of that directory's files: judged as the glob with
    // the unknown parts as `*`, which the rules match against the files they know.
    if word.dynamic
        && static_text(word).is_none()
        && let Some(text) = unknown_as_glob(&word.text)
    {
        out.push(resolve_for(scope, cmd, &text));
    }
    // `${KEY:-id_rsa}`: the default is what the line reads unless the variable is set.
    if word.dynamic
        && let Some(text) = with_defaults(&word.text)
    {
        let w = Word {
            dynamic: text.contains('$'),
            glob: word.glob || text.contains(['*', '?', '[']),
            text,
        };
        out.extend(word_read_paths(&w, cmd, scope));
    }
    if let Some(idx) = word.text.rfind('@') {
        let after = word.text[idx + 1..].split(';').next().unwrap_or("");
        if !after.is_empty()
            && after != "-"
            && (after.contains('/')
                || after.starts_with('.')
                || after.starts_with('~')
                || after.starts_with('$'))
        {
            let w = Word {
                text: after.to_string(),
                dynamic: word.dynamic,
                glob: word.glob,
            };
            if let Some((p, _)) = word_path(&w, cmd, scope) {
                out.push(p);
            }
        }
    }
    if let Some((_, v)) = word.text.split_once('=')
        && (v.starts_with('/') || v.starts_with('~') || v.starts_with("$HOME"))
    {
        let w = Word {
            text: v.to_string(),
            dynamic: word.dynamic,
            glob: word.glob,
        };
        if let Some((p, _)) = word_path(&w, cmd, scope) {
            out.push(p);
        }
    }
    out
}

/// A dynamic word's text with every expansion after its literal directory replaced by `*`
/// (`~/.ssh/id_$K` → `~/.ssh/id_*`; `$HOME` at the start is `~`): `None` when no directory
/// below the root precedes the first unknown part (`$DIR/x`, `/$X`), or a backquote is not
/// closed.
fn unknown_as_glob(text: &str) -> Option<String> {
    let (head, rest) = match crate::paths::strip_home_var(text) {
        Some(r) => ("~", r),
        None => ("", text),
    };
    let mut out = String::from(head);
    let mut chars = rest.chars().peekable();
    let mut unknown = false;
    while let Some(c) = chars.next() {
        match c {
            '$' => {
                unknown = true;
                match chars.peek().copied() {
                    Some('{') => {
                        let mut depth = 0usize;
                        for n in chars.by_ref() {
                            match n {
                                '{' => depth += 1,
                                '}' if depth <= 1 => break,
                                '}' => depth -= 1,
                                _ => {}
                            }
                        }
                    }
                    Some('(') => {
                        let mut depth = 0usize;
                        for n in chars.by_ref() {
                            match n {
                                '(' => depth += 1,
                                ')' if depth <= 1 => break,
                                ')' => depth -= 1,
                                _ => {}
                            }
                        }
                    }
                    _ => {
                        // `$NAME`, `$1`, `$@`: a name, or one special parameter.
                        if chars.peek().is_some_and(|&n| "@*#?$!-".contains(n)) {
                            chars.next();
                        }
                        while chars
                            .peek()
                            .is_some_and(|&n| n.is_ascii_alphanumeric() || n == '_')
                        {
                            chars.next();
                        }
                    }
                }
                if !out.ends_with('*') {
                    out.push('*');
                }
            }
            '`' => {
                unknown = true;
                chars.by_ref().find(|&n| n == '`')?;
                if !out.ends_with('*') {
                    out.push('*');
                }
            }
            c => out.push(c),
        }
    }
    let literal_dir = out[..out.find('*')?].rfind('/').is_some_and(|i| i > 0);
    (unknown && literal_dir).then_some(out)
}

/// A word's text with each `${NAME:-default}` (`-`, `:=`, `=`) replaced by its default, when
/// there is one and the defaults are literal; `None` otherwise.
fn with_defaults(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = text;
    let mut replaced = false;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let body = &rest[at + 2..];
        let close = body.find('}')?;
        let inner = &body[..close];
        let name_end = inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(inner.len());
        let op = &inner[name_end..];
        let default = [":-", ":=", "-", "="]
            .iter()
            .find_map(|o| op.strip_prefix(o))
            .filter(|d| name_end > 0 && !d.contains(['$', '`', '{']));
        match default {
            Some(d) => {
                out.push_str(d);
                replaced = true;
            }
            None => out.push_str(&rest[at..at + 3 + close]),
        }
        rest = &body[close + 1..];
    }
    out.push_str(rest);
    replaced.then_some(out)
}

/// Path-like string literals in inline interpreter code: `'/home/dev/.ssh/id_rsa'`, `"~/.aws/x"`.
pub fn inline_code_paths(cmd: &Command) -> Vec<String> {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"["'`]((?:/|~/|\$HOME/)[^"'`\s]*)["'`]"#).expect("static regex")
    });
    let Some(code) = crate::vocab::inline_code(cmd) else {
        return Vec::new();
    };
    RE.captures_iter(&code).map(|c| c[1].to_string()).collect()
}

/// Resolves a path argument of `cmd`, relative to the directory the command runs in.
pub fn resolve_for(scope: &Scope, cmd: &Command, raw: &str) -> PathBuf {
    // `~+` and `/proc/self/cwd` are the command's own directory, wherever the line went
    // before it.
    let relative;
    let raw = match crate::paths::own_directory(raw) {
        Some(rest) => {
            relative = format!("./{}", rest.display());
            relative.as_str()
        }
        None => raw,
    };
    match &cmd.cwd {
        // The work tree's top as seen from another directory is not the line's.
        Some(_) if raw.starts_with(crate::shell::GIT_TOPLEVEL) => {
            PathBuf::from(format!("/(cd {raw})"))
        }
        Some(dir)
            if !raw.starts_with('/')
                && !raw.starts_with('~')
                && !raw.starts_with("$HOME")
                && !raw.starts_with("${HOME}") =>
        {
            scope.resolve(&format!("{}/{}", dir.trim_end_matches('/'), raw))
        }
        _ => scope.resolve(raw),
    }
}

fn cwd_of(scope: &Scope, cmd: &Command) -> PathBuf {
    match &cmd.cwd {
        Some(dir) => scope.resolve(dir),
        None => scope.paths.cwd.clone(),
    }
}

/// The archive an extracting command (`tar -x`, `unzip`) reads: its operand as written, or
/// `None` when it reads standard input (`curl … | tar xz`, `tar xf -`).
pub fn extracted_archive(c: &Command) -> Option<&str> {
    let archive = match c.program.as_str() {
        "unzip" => crate::vocab::operands_skipping(c, "dxP", &[])
            .first()
            .map(|a| a.text.as_str()),
        // `python -m zipfile -e ARCHIVE DIR`, `-m tarfile -e ARCHIVE [DIR]`.
        "zipfile" | "tarfile" => c.args.get(1).map(|a| a.text.as_str()),
        _ => crate::vocab::tar_line(c).archive,
    };
    archive.filter(|a| *a != "-")
}

/// Whether the archive command `idx` of a line extracts came from the network: a file the
/// `downloaded` test names (resolved), or standard input fed by a downloader.
pub fn extracts_download(
    analysis: &ShellAnalysis,
    idx: usize,
    scope: &Scope,
    downloaded: impl Fn(&Path) -> bool,
) -> bool {
    let Some(c) = analysis.commands.get(idx) else {
        return false;
    };
    match extracted_archive(c) {
        Some(a) => downloaded(&resolve_for(scope, c, a)),
        None => upstream_network(analysis, idx),
    }
}

/// True when `cmd` or anything piped into it downloads.
pub fn upstream_network(analysis: &ShellAnalysis, idx: usize) -> bool {
    let mut cur = Some(idx);
    for _ in 0..MAX_PIPE_WALK {
        let Some(i) = cur else { break };
        let Some(c) = analysis.commands.get(i) else {
            break;
        };
        if is_downloader(&c.program) {
            return true;
        }
        cur = c.stdin_from.filter(|&j| j != i);
    }
    false
}

/// Every file the analysed line writes or changes.
pub fn writes(analysis: &ShellAnalysis, scope: &Scope) -> Vec<FileWrite> {
    let mut out = Vec::new();
    for (i, cmd) in analysis.commands.iter().enumerate() {
        redirect_writes(analysis, scope, i, cmd, &mut out);
        command_writes(analysis, scope, i, cmd, &mut out);
    }
    out
}

/// `npm pkg set scripts.postinstall=CMD` and `npm set-script NAME CMD` write package.json: a
/// script the next `npm install` or `npm run` runs. Recorded as an append of the `"name":
/// "value"` pairs set, which the package.json reader takes as scripts of a fragment.
fn package_settings(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<FileWrite>) {
    let texts = crate::vocab::positionals(cmd);
    let pairs: Vec<(String, String)> = match texts.as_slice() {
        ["pkg", "set", settings @ ..] => settings
            .iter()
            .filter_map(|s| s.split_once('='))
            .map(|(key, value)| {
                let name = key.strip_prefix("scripts.").unwrap_or(key);
                (name.to_string(), value.to_string())
            })
            .collect(),
        ["set-script", name, value, ..] => vec![(name.to_string(), value.to_string())],
        _ => return,
    };
    if pairs.is_empty() {
        return;
    }
    let dir = cmd
        .option_value(Some('C'), &["prefix"])
        .map(|d| resolve_for(scope, cmd, &d))
        .unwrap_or_else(|| cwd_of(scope, cmd));
    let known = cmd.args.iter().all(|w| !w.dynamic);
    let mut w = FileWrite::new(dir.join("package.json"), i, format!("npm {}", texts[0]));
    w.append = true;
    w.content = known.then(|| {
        let quoted = |s: &str| serde_json::Value::String(s.to_string()).to_string();
        pairs
            .iter()
            .map(|(k, v)| format!("\n{}: {}", quoted(k), quoted(v)))
            .collect()
    });
    out.push(w);
}

fn redirect_writes(
    analysis: &ShellAnalysis,
    scope: &Scope,
    i: usize,
    cmd: &Command,
    out: &mut Vec<FileWrite>,
) {
    for r in &cmd.redirects {
        let append = match r.kind {
            RedirectKind::Write | RedirectKind::ReadWrite => false,
            RedirectKind::Append => true,
            _ => continue,
        };
        // `2> err.log` carries diagnostics, not the command's output.
        let stdout = r.fd.is_none_or(|fd| fd == 1);
        if is_device(&r.target.text) {
            continue;
        }
        let mut w = FileWrite::new(
            resolve_for(scope, cmd, &r.target.text),
            i,
            if append { ">>" } else { ">" },
        );
        w.append = append;
        if stdout {
            w.from_network = upstream_network(analysis, i);
            w.content = crate::shell::printed_text(cmd);
            if w.content.is_none() && cmd.program == "cat" {
                let ops = cmd.operands();
                if let [only] = ops.as_slice()
                    && !only.dynamic
                    && cmd.args.len() == 1
                {
                    w.source = Some(resolve_for(scope, cmd, &only.text));
                }
            }
        }
        out.push(w);
    }
}

fn command_writes(
    analysis: &ShellAnalysis,
    scope: &Scope,
    i: usize,
    cmd: &Command,
    out: &mut Vec<FileWrite>,
) {
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    match cmd.program.as_str() {
        "tee" => {
            let append = cmd.has_flag(Some('a'), &["append"]);
            let upstream = cmd.stdin_from.and_then(|j| analysis.commands.get(j));
            let content = cmd
                .stdin_text
                .clone()
                .or_else(|| upstream.and_then(crate::shell::printed_text));
            let network = upstream_network(analysis, i);
            for op in operands_skipping(cmd, "", &["output-error"]) {
                if is_device(&op.text) {
                    continue;
                }
                let mut w = FileWrite::new(res(&op.text), i, if append { "tee -a" } else { "tee" });
                w.append = append;
                w.content = content.clone();
                w.from_network = network;
                out.push(w);
            }
        }
        "cp" | "mv" | "install" | "ln" => copy_writes(scope, i, cmd, out),
        program
            if BUILDS.contains(&program)
                || (program == "go" && cmd.subcommand() == Some("build")) =>
        {
            build_writes(scope, i, cmd, out)
        }
        // `ssh-copy-id` to this machine appends a login key to the user's authorized_keys.
        "ssh-copy-id" => {
            let target = operands_skipping(cmd, "ipoFtx", &[])
                .last()
                .map(|w| w.text.clone())
                .unwrap_or_default();
            let (user, host) = match target.rsplit_once('@') {
                Some((u, h)) => (Some(u), h),
                None => (None, target.as_str()),
            };
            if crate::vocab::is_local_host(host.trim_matches(['[', ']'])) {
                let keys = match user {
                    Some(u) if u != "$USER" && u != "${USER}" => {
                        format!("~{u}/.ssh/authorized_keys")
                    }
                    _ => "~/.ssh/authorized_keys".to_string(),
                };
                let mut w = FileWrite::new(res(&keys), i, "ssh-copy-id");
                w.append = true;
                out.push(w);
            }
        }
        // rsync/scp into a local destination (a remote one is not a write here).
        "rsync" | "scp" => {
            let ops = cmd.operands();
            if let Some((dst, srcs)) = ops.split_last()
                && !srcs.is_empty()
                && !crate::vocab::is_remote_spec(&dst.text)
            {
                out.push(FileWrite::new(res(&dst.text), i, program_name(cmd)));
            }
        }
        // Archives extracted into a directory write everything under it.
        "tar" | "bsdtar" => {
            let t = crate::vocab::tar_line(cmd);
            if t.op == Some('x') {
                out.push(FileWrite::new(res(t.directory.unwrap_or(".")), i, "tar -x"));
            } else if t.writes_archive()
                && let Some(archive) = t.archive.filter(|a| !is_device(a) && !a.contains(':'))
            {
                out.push(FileWrite::new(res(archive), i, "tar -c"));
            }
        }
        "unzip" => {
            let dir = cmd
                .option_value(Some('d'), &[])
                .unwrap_or_else(|| ".".into());
            out.push(FileWrite::new(res(&dir), i, "unzip"));
        }
        // Dotfile managers link or copy the files they manage into a directory: stow's
        // target (`-t`, else the parent of its `-d` directory or of the working directory),
        // chezmoi's destination (the home directory unless `-D` names another).
        "stow"
            if !cmd.has_flag(Some('D'), &["delete"])
                && !cmd.has_flag(Some('n'), &["no", "simulate"]) =>
        {
            let target = cmd
                .option_value(Some('t'), &["target"])
                .map(|t| res(&t))
                .unwrap_or_else(|| {
                    let dir = cmd
                        .option_value(Some('d'), &["dir"])
                        .map(|d| res(&d))
                        .unwrap_or_else(|| cwd_of(scope, cmd));
                    dir.parent().map(Path::to_path_buf).unwrap_or(dir)
                });
            out.push(FileWrite::new(target, i, DOTFILES));
        }
        "chezmoi"
            if matches!(cmd.subcommand(), Some("apply" | "update" | "init"))
                && (cmd.subcommand() != Some("init") || cmd.has_flag(None, &["apply"]))
                && !cmd.has_flag(Some('n'), &["dry-run"]) =>
        {
            let dest = cmd
                .option_value(Some('D'), &["destination"])
                .unwrap_or_else(|| "~".into());
            out.push(FileWrite::new(res(&dest), i, DOTFILES));
        }
        // Python's archive modules extract into the directory given: `python3 -m zipfile -e
        // x.zip DIR`, `-m tarfile -e x.tar [DIR]` (`.` when none).
        // (The unwrapper makes the module the program.)
        "zipfile" | "tarfile" if cmd.wrappers.iter().any(|w| w == "python -m") => {
            let words: Vec<&str> = cmd.args.iter().map(|w| w.text.as_str()).collect();
            if let ["-e" | "--extract", _archive, rest @ ..] = words.as_slice() {
                let dir = rest.first().copied().unwrap_or(".");
                // Written as the extractors they are, so what lands there is read as theirs.
                let how = if cmd.program == "zipfile" {
                    "unzip"
                } else {
                    "tar -x"
                };
                out.push(FileWrite::new(res(dir), i, how));
            }
        }
        "npm" => package_settings(scope, i, cmd, out),
        "curl" => curl_writes(scope, i, cmd, out),
        "wget" => wget_writes(scope, i, cmd, out),
        "aria2c" | "axel" | "fetch" | "lwp-download" | "http" | "https" | "xh" | "xhs" => {
            fetcher_writes(scope, i, cmd, out)
        }
        // `gh release download -O file` / `-D dir`: release assets, code from the network.
        "gh" if cmd.operands().first().is_some_and(|w| w.text == "release")
            && cmd.operands().get(1).is_some_and(|w| w.text == "download") =>
        {
            let target = cmd
                .option_value(Some('O'), &["output"])
                .or_else(|| cmd.option_value(Some('D'), &["dir"]));
            if let Some(t) = target.filter(|t| !is_device(t)) {
                out.push(FileWrite::downloaded(res(&t), i, "gh release download"));
            }
        }
        "chmod" => {
            let ops = operands_skipping(cmd, "", &["reference"]);
            let Some((mode, files)) = ops.split_first() else {
                return;
            };
            if mode_adds_exec(&mode.text) {
                for f in files {
                    out.push(FileWrite::new(res(&f.text), i, "chmod +x"));
                }
            }
        }
        "git" if cmd.subcommand() == Some("apply") => {
            // `-p 1`, `-C 3`, `--directory DIR`: values, not patch files.
            let ops = operands_skipping(
                cmd,
                crate::vocab::GIT_APPLY_VALUES.0,
                crate::vocab::GIT_APPLY_VALUES.1,
            );
            for op in ops.iter().skip(1) {
                let mut w = FileWrite::new(res(&op.text), i, "patch");
                w.source = Some(res(&op.text));
                out.push(w);
            }
        }
        "patch" => {
            let redirected = cmd
                .redirects
                .iter()
                .find(|r| r.kind == RedirectKind::Read)
                .map(|r| r.target.text.clone());
            let ops = operands_skipping(
                cmd,
                crate::vocab::PATCH_VALUES.0,
                crate::vocab::PATCH_VALUES.1,
            );
            // `patch -d DIR` changes to DIR before anything else: its file operands and `-i`
            // are relative to DIR (a `<` redirect is the shell's, relative to the line's).
            let dir = cmd.option_value(Some('d'), &["directory"]);
            let in_dir = |raw: &str| match &dir {
                Some(d) if !raw.starts_with(['/', '~', '$']) => {
                    res(&format!("{}/{raw}", d.trim_end_matches('/')))
                }
                _ => res(raw),
            };
            // `patch [options] [originalfile [patchfile]]`
            if let Some(orig) = ops.first() {
                out.push(FileWrite::new(in_dir(&orig.text), i, "patch"));
            }
            let file = match cmd.option_value(Some('i'), &["input"]) {
                Some(f) => Some(in_dir(&f)),
                None => redirected.map(|f| res(&f)),
            };
            let file = file.or_else(|| ops.get(1).map(|w| in_dir(&w.text)));
            if let Some(p) = file {
                let mut w = FileWrite::new(p.clone(), i, "patch");
                w.source = Some(p);
                out.push(w);
            }
        }
        "sed"
            if cmd.args.iter().any(|a| {
                a.text.starts_with("-i")
                    || a.text.starts_with("--in-place")
                    || (a.text.starts_with('-')
                        && !a.text.starts_with("--")
                        && a.text.contains('i')
                        && a.text[1..].chars().all(|c| c.is_ascii_alphabetic()))
            }) =>
        {
            let has_script_opt = cmd.args.iter().any(|a| {
                a.text == "-e"
                    || a.text == "-f"
                    || a.text.starts_with("--expression")
                    || a.text.starts_with("--file")
            });
            let ops = operands_skipping(cmd, "ef", &["expression", "file"]);
            let skip = usize::from(!has_script_opt);
            for f in ops.iter().skip(skip) {
                out.push(FileWrite::new(res(&f.text), i, "sed -i"));
            }
        }
        "perl"
            if cmd.args.iter().any(|a| {
                a.text.starts_with("-i") || (a.text.starts_with("-p") && a.text.contains('i'))
            }) =>
        {
            // `perl -pi -e 's/…/' files`: in-place edit.
            for f in operands_skipping(cmd, "eEIM", &[]).iter() {
                out.push(FileWrite::new(res(&f.text), i, "perl -i"));
            }
        }
        // In-place editors: every file operand may be rewritten (`vim -es -c wq f`, `ed f`,
        // `… | sponge f`); a `+CMD` operand is a command, not a file.
        "ex" | "vi" | "vim" | "nvim" | "ed" | "red" | "sponge" | "emacs" => {
            let program = cmd.program.as_str();
            let short = match program {
                "ed" | "red" => "p",
                // `-l FILE` loads Lisp, `-L DIR` adds a load path, `-f FUNC` calls one.
                "emacs" => "lLfdtu",
                _ => "cSuUiTwW",
            };
            for f in operands_skipping(cmd, short, &["cmd", "eval", "load", "script"]) {
                if !f.text.starts_with('+') {
                    out.push(FileWrite::new(res(&f.text), i, program));
                }
            }
        }
        // `gawk -i inplace '{…}' f`: the program text comes first unless `-f` gives it.
        "gawk" | "awk" if cmd.args.iter().any(|a| a.text.contains("inplace")) => {
            let ops = operands_skipping(cmd, "ifvF", &["include", "file", "assign"]);
            let has_file = cmd.has_flag(Some('f'), &["file"]);
            for f in ops.into_iter().skip(usize::from(!has_file)) {
                out.push(FileWrite::new(res(&f.text), i, "gawk -i inplace"));
            }
        }
        "ruby" if cmd.args.iter().any(|a| a.text.starts_with("-i")) => {
            for f in operands_skipping(cmd, "eIr", &[]) {
                out.push(FileWrite::new(res(&f.text), i, "ruby -i"));
            }
        }
        // `mkfs.ext4 /dev/sdb1`, `wipefs -a /dev/sdb`, `shred /dev/sda`: the device is
        // overwritten.
        p if crate::vocab::writes_devices(cmd) => {
            for op in crate::vocab::operands(cmd) {
                if crate::vocab::is_disk_device(&op.text) {
                    out.push(FileWrite::new(res(&op.text), i, p));
                }
            }
        }
        "dd" => {
            for a in &cmd.args {
                if let Some(of) = a.text.strip_prefix("of=")
                    && !is_device(of)
                {
                    let mut w = FileWrite::new(res(of), i, "dd");
                    w.source = cmd
                        .args
                        .iter()
                        .find_map(|a| a.text.strip_prefix("if="))
                        .map(&res);
                    out.push(w);
                }
            }
        }
        // A cloud copy into a local path (`aws s3 cp s3://b/k f`, `rclone sync r:x dir`):
        // content from the network, like `curl -o`.
        _ if let Some(dst) = crate::vocab::cli_download_target(cmd)
            && !is_device(&dst.text) =>
        {
            let how = format!("{} download", cmd.program);
            out.push(FileWrite::downloaded(res(&dst.text), i, &how));
        }
        "truncate" => {
            let size = cmd.option_value(Some('s'), &["size"]);
            for f in operands_skipping(cmd, "sr", &["size", "reference"]) {
                let mut w = FileWrite::new(res(&f.text), i, "truncate");
                if size.as_deref() == Some("0") {
                    w.content = Some(String::new());
                }
                out.push(w);
            }
        }
        _ => {}
    }
}

/// `chmod` modes that make a file executable: `+x`, `u+x`, `a+rx`, `=rwx`, `755`, `0700`.
fn mode_adds_exec(mode: &str) -> bool {
    if mode.chars().all(|c| c.is_ascii_digit()) {
        let digits: Vec<u32> = mode.chars().filter_map(|c| c.to_digit(8)).collect();
        return digits.iter().rev().take(3).any(|d| d & 1 == 1);
    }
    mode.split(',').any(|clause| {
        clause
            .find(['+', '='])
            .is_some_and(|pos| clause[pos + 1..].contains('x'))
    })
}

/// The program's name as a `how` for a write.
fn program_name(cmd: &Command) -> &'static str {
    match cmd.program.as_str() {
        "scp" => "scp",
        _ => "rsync",
    }
}

/// `how` of an awk program file's run (`awk -f prog.awk`).
pub const AWK_PROGRAM: &str = "awk -f";

/// Compilers whose output is the program their sources make (`go build` too): what the
/// output does when run is what the sources say.
pub const BUILDS: &[&str] = &[
    "gcc", "cc", "clang", "g++", "c++", "clang++", "tcc", "rustc", "javac",
];

/// Whether a write's `how` is a build: each of its sources adds to what the output does.
pub fn is_build(how: &str) -> bool {
    BUILDS.contains(&how) || how == "go build"
}

/// A compiler's output, one write per source (the ledger joins them): `gcc a.c b.c -o app`,
/// `cc x.c` (`a.out`), `gcc -c x.c` (`x.o`, which a later link takes as its source), `rustc
/// x.rs` (`x`), `javac X.java` (`X.class`), `go build -o app .` (the package's files: the
/// directory is the source).
fn build_writes(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<FileWrite>) {
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    let program = cmd.program.as_str();
    // The options that take the next word as their value.
    let valued: &[&str] = match program {
        "rustc" => &[
            "-o",
            "--out-dir",
            "--crate-name",
            "--crate-type",
            "-C",
            "--codegen",
            "--edition",
            "-L",
            "-l",
            "--cfg",
            "--target",
            "--emit",
            "-A",
            "-W",
            "-D",
            "-F",
            "--cap-lints",
        ],
        "javac" => &[
            "-d",
            "-cp",
            "-classpath",
            "--class-path",
            "-sourcepath",
            "-s",
            "-h",
            "--release",
            "-source",
            "-target",
            "-encoding",
            "-processorpath",
            "-p",
            "--module-path",
        ],
        "go" => &[
            "-o",
            "-tags",
            "-ldflags",
            "-gcflags",
            "-C",
            "-mod",
            "-p",
            "-buildmode",
        ],
        _ => &[
            "-o",
            "-I",
            "-L",
            "-D",
            "-U",
            "-x",
            "-l",
            "-MF",
            "-MT",
            "-MQ",
            "-include",
            "-isystem",
            "-iquote",
            "-idirafter",
            "-Xlinker",
            "-T",
            "-B",
        ],
    };
    let mut sources: Vec<&Word> = Vec::new();
    let mut words = cmd.args.iter();
    if program == "go" {
        words.next();
    }
    while let Some(w) = words.next() {
        let t = w.text.as_str();
        if valued.contains(&t) {
            words.next();
        } else if !t.starts_with('-') {
            sources.push(w);
        }
    }
    let named = cmd.option_value(Some('o'), &[]);
    let stem = |t: &str| {
        let base = basename(t);
        base.rsplit_once('.').map_or(base, |(s, _)| s).to_string()
    };
    let cwd = cwd_of(scope, cmd);
    let mut push = |path: PathBuf, src: &Word| {
        let mut w = FileWrite::new(path, i, if program == "go" { "go build" } else { program });
        w.source = Some(res(&src.text));
        out.push(w);
    };
    match program {
        "javac" => {
            let dir = cmd.option_value(Some('d'), &[]);
            for src in sources.iter().filter(|s| s.text.ends_with(".java")) {
                let class = format!("{}.class", stem(&src.text));
                let path = match &dir {
                    Some(d) => res(d).join(class),
                    None => res(&src.text).with_file_name(class),
                };
                push(path, src);
            }
        }
        "go" => {
            // Files named: the output is named after the first; a package (or none: the
            // current one) after its directory.
            let dot = Word::literal(".");
            let packages: Vec<&Word> = if sources.is_empty() {
                vec![&dot]
            } else {
                sources
            };
            let first = packages[0].text.as_str();
            let default = if first.ends_with(".go") {
                cwd.join(stem(first))
            } else {
                let dir = res(first);
                cwd.join(
                    dir.file_name()
                        .map_or_else(|| "main".into(), |n| n.to_os_string()),
                )
            };
            let path = match named {
                Some(o) if o.ends_with('/') => {
                    res(&o).join(default.file_name().unwrap_or_default())
                }
                Some(o) => res(&o),
                None => default,
            };
            for src in packages {
                push(path.clone(), src);
            }
        }
        _ => {
            let objects = cmd.has_flag(Some('c'), &[]) || cmd.has_flag(Some('S'), &[]);
            if cmd.has_flag(Some('E'), &[])
                || (program == "tcc" && cmd.args.iter().any(|w| w.text == "-run"))
            {
                return;
            }
            for src in &sources {
                let path = match (&named, objects) {
                    (Some(o), _) => res(o),
                    (None, true) => cwd.join(format!("{}.o", stem(&src.text))),
                    (None, false) if program == "rustc" => cwd.join(stem(&src.text)),
                    (None, false) => cwd.join("a.out"),
                };
                push(path, src);
            }
        }
    }
}

fn copy_writes(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<FileWrite>) {
    let program = cmd.program.as_str();
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    if program == "install" && cmd.has_flag(Some('d'), &["directory"]) {
        return;
    }
    // A hard link shares the content: the same as a copy for our purpose.
    let short = match program {
        "install" => "mogtSZ",
        "ln" => "tS",
        _ => "tS",
    };
    let long = [
        "target-directory",
        "suffix",
        "mode",
        "owner",
        "group",
        "backup",
        "context",
    ];
    let target_dir = cmd.option_value(Some('t'), &["target-directory"]);
    let ops: Vec<&Word> = operands_skipping(cmd, short, &long);
    let no_target_dir = cmd.has_flag(Some('T'), &["no-target-directory"]);
    let (sources, dest_dir, dest_file): (Vec<&Word>, Option<PathBuf>, Option<PathBuf>) =
        match target_dir {
            Some(dir) => (ops, Some(res(&dir)), None),
            None => {
                let Some((dst, srcs)) = ops.split_last() else {
                    return;
                };
                if srcs.is_empty() {
                    return;
                }
                let dst_path = res(&dst.text);
                let is_dir = !no_target_dir
                    && (srcs.len() > 1 || dst.text.ends_with('/') || dst_path.is_dir());
                if is_dir {
                    (srcs.to_vec(), Some(dst_path), None)
                } else {
                    (srcs.to_vec(), None, Some(dst_path))
                }
            }
        };
    let how = if program == "ln" { "ln -s" } else { program };
    for src in sources {
        let path = match (&dest_dir, &dest_file) {
            (Some(d), _) => d.join(basename(&src.text)),
            (None, Some(f)) => f.clone(),
            _ => continue,
        };
        let mut w = FileWrite::new(path, i, how);
        w.source = Some(if program == "ln" && !src.text.starts_with('/') {
            // A relative symlink target is relative to the link's directory.
            let base = dest_dir
                .clone()
                .or_else(|| {
                    dest_file
                        .as_ref()
                        .and_then(|f| f.parent().map(Path::to_path_buf))
                })
                .unwrap_or_else(|| cwd_of(scope, cmd));
            scope.resolve(&base.join(&src.text).to_string_lossy())
        } else {
            res(&src.text)
        });
        out.push(w);
    }
}

/// `mount --bind SRC DIR` (`-B`, `--rbind`, `-o bind,ro`), `bindfs SRC DIR`: the source and
/// the mount point, where the source's files can then be reached, as through a link.
pub fn bind_mount(cmd: &Command) -> Option<(&Word, &Word)> {
    let bind = match cmd.program.as_str() {
        "bindfs" => true,
        "mount" => {
            cmd.has_flag(Some('B'), &["bind", "rbind"])
                || cmd
                    .option_value(Some('o'), &["options"])
                    .is_some_and(|o| o.split(',').any(|x| matches!(x, "bind" | "rbind")))
        }
        _ => false,
    };
    if !bind {
        return None;
    }
    let ops = operands_skipping(
        cmd,
        "otOLUNTuMgp",
        &[
            "options",
            "types",
            "test-opts",
            "label",
            "uuid",
            "namespace",
            "fstab",
            "map",
            "perms",
        ],
    );
    match ops[..] {
        [.., source, point] => Some((source, point)),
        _ => None,
    }
}

/// Where `git clone URL [DIR]` puts the repository it fetches from another host: DIR, or the
/// URL's last segment without `.git`. `None` for a local source or another command.
pub fn cloned_dir(cmd: &Command, scope: &Scope) -> Option<PathBuf> {
    if cmd.program != "git" {
        return None;
    }
    let at = cmd.args.iter().position(|a| a.text == "clone")?;
    let ops = crate::vocab::operands_in(
        &cmd.args[at + 1..],
        "bocuj",
        &[
            "branch",
            "depth",
            "origin",
            "config",
            "reference",
            "reference-if-able",
            "separate-git-dir",
            "upload-pack",
            "template",
            "filter",
            "shallow-since",
            "shallow-exclude",
            "jobs",
            "bundle-uri",
            "server-option",
        ],
    );
    let url = ops.first()?.text.as_str();
    if !(url.contains("://") || (url.contains('@') && url.contains(':'))) {
        return None;
    }
    let dir = match ops.get(1) {
        Some(d) => d.text.clone(),
        None => {
            let last = url.trim_end_matches('/').rsplit(['/', ':']).next()?;
            last.trim_end_matches(".git").to_string()
        }
    };
    (!dir.is_empty()).then(|| resolve_for(scope, cmd, &dir))
}

fn url_operands(cmd: &Command) -> Vec<String> {
    cmd.args
        .iter()
        .filter(|a| a.text.contains("://"))
        .map(|a| a.text.clone())
        .collect()
}

/// The file name `curl -O`/`wget` derive from a URL: the last path segment.
fn url_file_name(url: &str, default: &str) -> String {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let path = rest.split(['?', '#']).next().unwrap_or(rest);
    match path.split_once('/') {
        Some((_, p)) if !p.is_empty() && !p.ends_with('/') => basename(p).to_string(),
        _ => default.to_string(),
    }
}

/// curl's short options that take a value (`-o FILE`, `-d DATA`, `-H HEADER`…).
const CURL_VALUE_SHORTS: &str = "oAbcCdDeEFhHKmPQrtTuUwxXyYz";

fn curl_writes(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<FileWrite>) {
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    let dir = cmd.option_value(None, &["output-dir"]);
    let place = |name: &str| match &dir {
        Some(d) if !name.starts_with('/') => res(&format!("{d}/{name}")),
        _ => res(name),
    };
    let mut iter = cmd.args.iter().peekable();
    let urls = url_operands(cmd);
    let mut remote_names = 0usize;
    while let Some(a) = iter.next() {
        let t = a.text.as_str();
        let value = if t == "--output" {
            iter.next().map(|w| w.text.clone())
        } else if let Some(v) = t.strip_prefix("--output=") {
            Some(v.to_string())
        } else if t.starts_with('-') && !t.starts_with("--") && t.len() > 1 {
            // A bundle of short options (`-sSo f`, `-fsSLO`, `-ofile`): flags until the first
            // option that takes a value, which takes the rest of the bundle or the next word.
            let mut value = None;
            for (at, c) in t.char_indices().skip(1) {
                if c == 'O' {
                    remote_names += 1;
                } else if CURL_VALUE_SHORTS.contains(c) {
                    let rest = &t[at + c.len_utf8()..];
                    let v = if rest.is_empty() {
                        iter.next().map(|w| w.text.clone())
                    } else {
                        Some(rest.to_string())
                    };
                    if c == 'o' {
                        value = v;
                    }
                    break;
                }
            }
            value
        } else {
            if t == "--remote-name" || t == "--remote-name-all" {
                remote_names += if t == "--remote-name-all" {
                    urls.len()
                } else {
                    1
                };
            }
            None
        };
        if let Some(v) = value
            && !is_device(&v)
        {
            out.push(FileWrite::downloaded(place(&v), i, "curl -o"));
        }
    }
    for url in urls.iter().take(remote_names) {
        out.push(FileWrite::downloaded(
            place(&url_file_name(url, "index.html")),
            i,
            "curl -O",
        ));
    }
}

fn wget_writes(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<FileWrite>) {
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    if let Some(doc) = cmd.option_value(Some('O'), &["output-document"]) {
        if !is_device(&doc) {
            out.push(FileWrite::downloaded(res(&doc), i, "wget -O"));
        }
        return;
    }
    if cmd.has_flag(Some('r'), &["recursive", "mirror"]) || cmd.has_flag(Some('m'), &[]) {
        return; // Unknown file set: the packs judge recursive downloads.
    }
    let prefix = cmd.option_value(Some('P'), &["directory-prefix"]);
    for url in url_operands(cmd) {
        let name = url_file_name(&url, "index.html");
        let path = match &prefix {
            Some(p) => res(&format!("{p}/{name}")),
            None => res(&name),
        };
        out.push(FileWrite::downloaded(path, i, "wget"));
    }
}

/// The files the other downloaders save, each from the network: `aria2c [-d DIR] [-o NAME]
/// URL`, `axel [-o FILE] URL`, FreeBSD's `fetch [-o FILE] URL`, `lwp-download URL [FILE]`
/// (a URL's last segment when no name is given), and httpie's and xh's `-o FILE` or
/// `--download` (without either they print the body).
fn fetcher_writes(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<FileWrite>) {
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    let program = match cmd.program.as_str() {
        "aria2c" => "aria2c",
        "axel" => "axel",
        "fetch" => "fetch",
        "lwp-download" => "lwp-download",
        "xh" | "xhs" => "xh",
        _ => "http",
    };
    let urls = url_operands(cmd);
    let mut save = |raw: &str| {
        if !is_device(raw) {
            out.push(FileWrite::downloaded(res(raw), i, program));
        }
    };
    match program {
        "lwp-download" => {
            let ops = cmd.operands();
            match ops.iter().find(|w| !w.text.contains("://")) {
                Some(file) => save(&file.text),
                None => urls
                    .iter()
                    .for_each(|u| save(&url_file_name(u, "index.html"))),
            }
        }
        "http" | "xh" => {
            if let Some(file) = cmd.option_value(Some('o'), &["output"]) {
                save(&file);
            } else if cmd.has_flag(Some('d'), &["download"]) {
                urls.iter()
                    .for_each(|u| save(&url_file_name(u, "index.html")));
            }
        }
        _ => {
            let name = cmd.option_value(Some('o'), &["out", "output"]);
            let dir = (program == "aria2c")
                .then(|| cmd.option_value(Some('d'), &["dir"]))
                .flatten();
            let place = |name: &str| match &dir {
                Some(d) if !name.starts_with('/') => format!("{d}/{name}"),
                _ => name.to_string(),
            };
            match name {
                Some(n) => save(&place(&n)),
                None => urls
                    .iter()
                    .for_each(|u| save(&place(&url_file_name(u, "index.html")))),
            }
        }
    }
}

/// Files a shell call reads as data (`cat f`, `< f`), for chains such as `cat x.sh | sh`.
pub fn reads(cmd: &Command, scope: &Scope) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = cmd
        .redirects
        .iter()
        .filter(|r| r.kind == RedirectKind::Read)
        .map(|r| resolve_for(scope, cmd, &r.target.text))
        .collect();
    if cmd.program == "cat" {
        out.extend(
            cmd.operands()
                .iter()
                .filter(|w| w.text != "-")
                .map(|w| resolve_for(scope, cmd, &w.text)),
        );
    }
    out
}

/// Deepest inline code followed (`python -c` running `perl -e` running …).
const MAX_INLINE_DEPTH: usize = 4;

/// Every file the call executes. Commands in the analysis are already unwrapped (`sudo`,
/// `env`, `timeout`, `bash -c`…), so wrappers need no handling here. Test-only: a call's runs
/// are its `Execute` effects (`effects::file_runs`), computed once by normalize.
#[cfg(test)]
pub fn executions(call: &crate::call::Call, scope: &Scope) -> Vec<Execution> {
    let crate::call::CallKind::Shell { analysis, .. } = &call.kind else {
        return Vec::new();
    };
    executions_in(analysis, scope)
}

/// Every file an analysed shell line executes.
pub fn executions_in(analysis: &ShellAnalysis, scope: &Scope) -> Vec<Execution> {
    let mut out = Vec::new();
    for (i, cmd) in analysis.commands.iter().enumerate() {
        command_executions(analysis, scope, i, cmd, &mut out, 0);
    }
    out
}

fn exec(
    path: PathBuf,
    how: impl Into<String>,
    command: usize,
    language: Option<Language>,
) -> Execution {
    Execution {
        path,
        how: how.into(),
        command,
        language,
        sections: Vec::new(),
        defines: Vec::new(),
        directory: false,
        looked_up: false,
        args: Vec::new(),
    }
}

/// Files a program loads by name from its directory, as code: build and test tools' config
/// files and task files (`jest` loads `jest.config.js`, `rake` the `Rakefile`).
const CONVENTION_FILES: &[(&[&str], &[&str], Language)] = &[
    (
        &["jest"],
        &[
            "jest.config.js",
            "jest.config.ts",
            "jest.config.mjs",
            "jest.config.cjs",
            "jest.setup.js",
        ],
        Language::Node,
    ),
    (
        &["vitest", "vite"],
        &[
            "vitest.config.js",
            "vitest.config.ts",
            "vitest.config.mjs",
            "vite.config.js",
            "vite.config.ts",
            "vite.config.mjs",
        ],
        Language::Node,
    ),
    (
        &["webpack", "webpack-cli", "webpack-dev-server"],
        &[
            "webpack.config.js",
            "webpack.config.ts",
            "webpack.config.mjs",
            "webpack.config.cjs",
        ],
        Language::Node,
    ),
    (
        &["eslint"],
        &[
            "eslint.config.js",
            "eslint.config.mjs",
            "eslint.config.cjs",
            "eslint.config.ts",
            ".eslintrc.js",
            ".eslintrc.cjs",
        ],
        Language::Node,
    ),
    (
        &["rollup"],
        &["rollup.config.js", "rollup.config.mjs", "rollup.config.ts"],
        Language::Node,
    ),
    (
        &["next"],
        &["next.config.js", "next.config.mjs", "next.config.ts"],
        Language::Node,
    ),
    (
        &["nuxt", "nuxi"],
        &["nuxt.config.js", "nuxt.config.ts"],
        Language::Node,
    ),
    (
        &["astro"],
        &["astro.config.mjs", "astro.config.js", "astro.config.ts"],
        Language::Node,
    ),
    (
        &["babel"],
        &["babel.config.js", "babel.config.cjs", ".babelrc.js"],
        Language::Node,
    ),
    (
        &["postcss"],
        &[
            "postcss.config.js",
            "postcss.config.cjs",
            "postcss.config.mjs",
        ],
        Language::Node,
    ),
    (
        &["tailwindcss"],
        &[
            "tailwind.config.js",
            "tailwind.config.cjs",
            "tailwind.config.ts",
        ],
        Language::Node,
    ),
    (
        &["playwright"],
        &["playwright.config.ts", "playwright.config.js"],
        Language::Node,
    ),
    (
        &["cypress"],
        &["cypress.config.ts", "cypress.config.js"],
        Language::Node,
    ),
    (&["mocha"], &[".mocharc.js", ".mocharc.cjs"], Language::Node),
    (
        &["prettier"],
        &[
            "prettier.config.js",
            ".prettierrc.js",
            ".prettierrc.cjs",
            "prettier.config.mjs",
        ],
        Language::Node,
    ),
    (
        &["gulp"],
        &["gulpfile.js", "gulpfile.mjs", "gulpfile.ts"],
        Language::Node,
    ),
    (
        &["grunt"],
        &["Gruntfile.js", "gruntfile.js"],
        Language::Node,
    ),
    (
        &["rake"],
        &["Rakefile", "rakefile", "Rakefile.rb"],
        Language::Ruby,
    ),
    (&["invoke", "inv"], &["tasks.py"], Language::Python),
    (&["fab"], &["fabfile.py"], Language::Python),
    (&["nox"], &["noxfile.py"], Language::Python),
    (&["tox"], &["tox.ini"], Language::PytestConfig),
    // Build and dependency tools whose project file is code they evaluate.
    (
        &["pnpm"],
        &[".pnpmfile.cjs", ".pnpmfile.mjs"],
        Language::Node,
    ),
    // Interpreters that run a start-up file of the working directory: R's `.Rprofile` (else
    // the home's), irb's and pry's.
    (&["R", "Rscript"], &[".Rprofile"], Language::R),
    (&["irb"], &[".irbrc", "irb.rc", "_irbrc"], Language::Ruby),
    (&["pry"], &[".pryrc"], Language::Ruby),
    (&["mix"], &["mix.exs"], Language::Elixir),
    (&["sbt"], &["build.sbt"], Language::Scala),
    (&["bundle", "bundler"], &["Gemfile"], Language::Ruby),
    (&["pod"], &["Podfile"], Language::Ruby),
    (&["vagrant"], &["Vagrantfile"], Language::Ruby),
    (
        &["fastlane"],
        &["fastlane/Fastfile", "Fastfile"],
        Language::Ruby,
    ),
];

/// Options that make a program skip its convention files (`R --vanilla`, `irb -f`).
const CONVENTION_SKIPS: &[(&str, &[&str])] = &[
    ("R", &["--vanilla", "--no-init-file"]),
    ("Rscript", &["--vanilla", "--no-init-file"]),
    ("irb", &["-f"]),
    ("pry", &["-f", "--no-pry-rc"]),
];

/// What a program runs besides its operands: the files it loads by name from its
/// directory (`CONVENTION_FILES`), and the file its name finds first on the search path
/// when that is a directory the line puts first (`PATH=./bin:$PATH git`) or the package's
/// own bin directory (`npx jest` runs `node_modules/.bin/jest`). Only files the session
/// wrote are judged. The user's own bin directories are not looked in: a write there is
/// asked already, and every command would then read the session's ledger.
fn conventional_runs(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<Execution>) {
    let program = cmd.program.as_str();
    if program.is_empty() {
        return;
    }
    let dir = cwd_of(scope, cmd);
    // A program named by its path (`/usr/local/bin/jest`, `./node_modules/.bin/jest`) loads
    // the same files as one found on the search path.
    let skipped = CONVENTION_SKIPS.iter().any(|(p, options)| {
        *p == program && cmd.args.iter().any(|a| options.contains(&a.text.as_str()))
    });
    for (programs, files, language) in CONVENTION_FILES {
        if programs.contains(&program) && !skipped {
            for f in *files {
                out.push(looked_up(dir.join(f), program, i, Some(*language)));
            }
        }
    }
    code_modules(scope, i, cmd, &dir, out);
    if cmd.program_path.contains('/') {
        return;
    }
    let mut path_dirs: Vec<PathBuf> = Vec::new();
    if let Some((_, path)) = cmd.env.iter().rev().find(|(k, _)| k == "PATH") {
        path_dirs.extend(
            path.text
                .split(':')
                .take_while(|d| !d.contains('$'))
                .filter(|d| !d.is_empty())
                .map(|d| resolve_for(scope, cmd, d)),
        );
    }
    let runners = [
        "npx", "pnpx", "bunx", "npm exec", "pnpm", "yarn", "npm run", "npm test",
    ];
    if cmd
        .wrappers
        .iter()
        .any(|w| runners.iter().any(|r| w.starts_with(r)))
    {
        path_dirs.push(dir.join("node_modules/.bin"));
        if scope.project_root != dir {
            path_dirs.push(scope.project_root.join("node_modules/.bin"));
        }
    }
    for d in path_dirs {
        let how = format!("{program} (found on the search path)");
        out.push(looked_up(d.join(program), how, i, None));
    }
}

/// Files an interpreter loads as code besides its script, found where it looks: the module
/// `python -m MOD` runs and the top-level modules `python -c CODE` imports (from the working
/// directory first), and the files `node -r/--require/--import/--loader F` preloads (and
/// `mocha --require F`). Each runs only if it is there (`looked_up`), and a file written
/// earlier in the session is judged by what it does (`python -c 'import x'` after writing
/// `x.py`).
fn code_modules(scope: &Scope, i: usize, cmd: &Command, dir: &Path, out: &mut Vec<Execution>) {
    let program = cmd.program.as_str();
    // The analysis unwraps `python -m MOD ARGS` to `MOD ARGS` run via `python -m` (so `python
    // -m pip install` is pip's): MOD is also a file Python finds from the working directory.
    let via_module = cmd.wrappers.last().is_some_and(|w| {
        w.strip_suffix(" -m").is_some_and(|p| {
            crate::vocab::interpreter(p).is_some_and(|i| i.language == Language::Python)
        })
    });
    if via_module && !program.contains('/') {
        let rel = program.replace('.', "/");
        for f in [format!("{rel}.py"), format!("{rel}/__main__.py")] {
            out.push(looked_up(
                dir.join(f),
                "python -m",
                i,
                Some(Language::Python),
            ));
        }
    }
    let language = crate::vocab::interpreter(program).map(|i| i.language);
    if language == Some(Language::Python) {
        let code = crate::vocab::inline_code(cmd).unwrap_or_default();
        for module in imported_modules(&code) {
            for f in [format!("{module}.py"), format!("{module}/__init__.py")] {
                out.push(looked_up(
                    dir.join(f),
                    "python -c import",
                    i,
                    Some(Language::Python),
                ));
            }
        }
        return;
    }
    let preloads: &[&str] = match program {
        "node" | "nodejs" | "bun" => &[
            "-r",
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
        ],
        "mocha" | "_mocha" => &["-r", "--require", "--file"],
        _ => return,
    };
    let mut args = cmd.args.iter();
    while let Some(a) = args.next() {
        let t = a.text.as_str();
        let value = if preloads.contains(&t) {
            args.next().map(|v| v.text.as_str())
        } else {
            preloads
                .iter()
                .filter(|p| p.starts_with("--"))
                .find_map(|p| t.strip_prefix(*p).and_then(|r| r.strip_prefix('=')))
        };
        if let Some(f) = value.filter(|f| f.starts_with(['.', '/', '~'])) {
            out.push(looked_up(
                resolve_for(scope, cmd, f),
                format!("{program} {t}"),
                i,
                Some(Language::Node),
            ));
        }
    }
}

/// The top-level modules Python code imports (`import a.b, c`, `from d import e`), at most a
/// few dozen; relative imports (`from . import x`) name no top-level module.
fn imported_modules(code: &str) -> Vec<String> {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?m)(?:^|[;:])\s*(?:import\s+([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)|from\s+([A-Za-z_][\w.]*)\s+import)")
            .expect("import pattern")
    });
    let mut out: Vec<String> = Vec::new();
    for c in RE.captures_iter(code).take(32) {
        let names = c.get(1).or_else(|| c.get(2)).map_or("", |m| m.as_str());
        for n in names.split(',') {
            let top = n.trim().split('.').next().unwrap_or("").to_string();
            if !top.is_empty() && !out.contains(&top) {
                out.push(top);
            }
        }
    }
    out
}

/// A run of `path` that happens only if the file is there (`Execution::looked_up`).
fn looked_up(
    path: PathBuf,
    how: impl Into<String>,
    command: usize,
    language: Option<Language>,
) -> Execution {
    Execution {
        looked_up: true,
        ..exec(path, how, command, language)
    }
}

fn command_executions(
    analysis: &ShellAnalysis,
    scope: &Scope,
    i: usize,
    cmd: &Command,
    out: &mut Vec<Execution>,
    depth: usize,
) {
    if depth > MAX_INLINE_DEPTH {
        return;
    }
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    let program = cmd.program.as_str();
    // `busybox sh x.sh`: the applet is the program.
    if matches!(program, "busybox" | "toybox")
        && let Some((applet, rest)) = cmd.args.split_first()
    {
        let shifted = Command {
            program: basename(&applet.text).to_string(),
            program_path: applet.text.clone(),
            args: rest.to_vec(),
            ..cmd.clone()
        };
        return command_executions(analysis, scope, i, &shifted, out, depth + 1);
    }
    // Python imports `sitecustomize` and `usercustomize` at start-up from its path: the
    // directories of a `PYTHONPATH` set for the command (`PYTHONPATH=. python3 -c 1`).
    if interpreter(program).is_some_and(|i| i.language == Language::Python)
        && let Some((_, dirs)) = cmd.env.iter().find(|(n, _)| n == "PYTHONPATH")
        && let Some(dirs) = static_text(dirs)
    {
        for dir in dirs.split(':').filter(|d| !d.is_empty()).take(8) {
            for module in ["sitecustomize.py", "usercustomize.py"] {
                let path = res(dir).join(module);
                out.push(exec(path, "python start-up", i, Some(Language::Python)));
            }
        }
    }
    // `sh gradlew build`, `bash ./mvnw test`: a build tool's wrapper script run by a shell
    // is that build tool, and runs the same build files.
    if matches!(program, "sh" | "bash" | "dash" | "zsh" | "ksh")
        && let Some((script, rest)) = cmd.args.split_first()
        && matches!(basename(&script.text), "gradlew" | "mvnw")
    {
        let path = if script.text.contains('/') {
            script.text.clone()
        } else {
            format!("./{}", script.text)
        };
        let shifted = Command {
            program: basename(&script.text).to_string(),
            program_path: path,
            args: rest.to_vec(),
            ..cmd.clone()
        };
        return command_executions(analysis, scope, i, &shifted, out, depth + 1);
    }
    // A program named by a path runs that file: `./x.sh`, `/abs/x`, `scripts/x`.
    if cmd.program_path.contains('/') && !cmd.program_path.contains('$') {
        let path = res(&cmd.program_path);
        // A binary cargo built (`target/debug/app`, `target/x86_64-…/release/app`) does what
        // the crate's Rust files say, as `cargo run` of the crate does.
        if let Some(root) = cargo_built(&path) {
            out.push(directory_run(root, "cargo build", i, Language::Rust));
        }
        let mut e = exec(path, cmd.program_path.clone(), i, None);
        e.args = cmd.args.iter().map(crate::vocab::input_value).collect();
        out.push(e);
    }
    conventional_runs(scope, i, cmd, out);
    // A task of pyproject.toml run by name: `poe NAME`, and `pdm run NAME`, `hatch run
    // [ENV:]NAME`, `rye run NAME`, whose runner the shell analysis unwraps (the task's name
    // is then the program).
    let task = match cmd.wrappers.last().map(String::as_str) {
        Some("pdm" | "rye") => Some(program),
        Some("hatch") => program.rsplit(':').next(),
        _ if matches!(program, "poe" | "poethepoet") => {
            cmd.operands().first().map(|w| w.text.as_str())
        }
        _ => None,
    };
    if let Some(task) = task.filter(|t| !t.is_empty() && !t.starts_with('-')) {
        let how = match cmd.wrappers.last() {
            Some(runner) => format!("{runner} run"),
            None => program.to_string(),
        };
        let mut e = exec(
            cwd_of(scope, cmd).join("pyproject.toml"),
            how,
            i,
            Some(Language::PytestConfig),
        );
        e.sections = vec![task.to_string()];
        out.push(e);
    }
    // `pip install -r FILE` (`-c FILE` too, `uv pip install -r`, `pip-sync FILE`) installs what
    // each line of the file names; a build of the project besides is the arm below.
    if matches!(program, "pip" | "pip3" | "uv" | "pip-sync") {
        let how = format!("{} -r", program_name(cmd));
        for f in requirement_files(cmd) {
            out.push(exec(res(f), how.clone(), i, Some(Language::Requirements)));
        }
    }
    // `gdb -x FILE`, `vim -S FILE`, `expect FILE`: a file of the program's own commands,
    // judged by the shell commands it runs (`ledger::command_file`).
    let texts: Vec<&str> = cmd.args.iter().map(|w| w.text.as_str()).collect();
    for (option, f) in crate::vocab::command_files(program, &texts) {
        out.push(exec(
            res(&f),
            format!("{program} {option}"),
            i,
            Some(Language::Shell),
        ));
    }
    match program {
        "source" | "." => {
            if let Some(f) = cmd.args.first() {
                out.push(exec(res(&f.text), program, i, Some(Language::Shell)));
            }
            return;
        }
        "deno" if cmd.subcommand() == Some("task") => {
            // `deno task NAME` runs a task of the directory's deno.json (or `--config FILE`).
            let dir = cwd_of(scope, cmd);
            let files = match cmd.option_value(Some('c'), &["config"]) {
                Some(f) => vec![res(&f)],
                None => vec![dir.join("deno.json"), dir.join("deno.jsonc")],
            };
            for f in files {
                out.push(exec(f, "deno task", i, Some(Language::TaskManifest)));
            }
            return;
        }
        "deno" => {
            if matches!(cmd.subcommand(), Some("run") | Some("test"))
                && let Some(f) = cmd.operands().get(1)
            {
                out.push(exec(res(&f.text), "deno run", i, Some(Language::Node)));
            }
            return;
        }
        "npx" | "pnpx" | "bunx" => {
            // `npx tsx f.ts`, `npx ts-node f.ts`, `npx node f.js`.
            let ops = cmd.operands();
            if let [runner, file, ..] = ops.as_slice()
                && matches!(runner.text.as_str(), "tsx" | "ts-node" | "node" | "bun")
            {
                out.push(exec(
                    res(&file.text),
                    format!("{program} {}", runner.text),
                    i,
                    Some(Language::Node),
                ));
            }
            return;
        }
        "make" | "gmake" => {
            let dir = cmd
                .option_value(Some('C'), &["directory"])
                .map(|d| res(&d))
                .unwrap_or_else(|| cwd_of(scope, cmd));
            // `make VAR=value` and `VAR=value make`: variables the recipes see.
            let mut defines: Vec<(String, String)> = cmd
                .env
                .iter()
                .map(|(k, v)| (k.clone(), v.text.clone()))
                .collect();
            defines.extend(cmd.operands().iter().filter_map(|w| {
                w.text
                    .split_once('=')
                    .filter(|(k, _)| {
                        !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_')
                    })
                    .map(|(k, v)| (k.to_string(), v.to_string()))
            }));
            let first = out.len();
            match cmd.option_value(Some('f'), &["file", "makefile"]) {
                Some(f) => {
                    let p = if f.starts_with('/') {
                        scope.resolve(&f)
                    } else {
                        scope.resolve(&dir.join(&f).to_string_lossy())
                    };
                    out.push(exec(p, "make", i, Some(Language::Make)));
                }
                None => {
                    for name in ["GNUmakefile", "makefile", "Makefile"] {
                        out.push(exec(dir.join(name), "make", i, Some(Language::Make)));
                    }
                }
            }
            // The goals: what make is asked to build (the default goal when none).
            let goals: Vec<String> = operands_skipping(
                cmd,
                "fCIoW",
                &[
                    "file",
                    "makefile",
                    "directory",
                    "include-dir",
                    "old-file",
                    "new-file",
                    "what-if",
                    "assume-old",
                    "assume-new",
                ],
            )
            .iter()
            .map(|w| w.text.clone())
            .filter(|g| !g.contains('=') && !g.chars().all(|c| c.is_ascii_digit()))
            .collect();
            for e in &mut out[first..] {
                e.defines = defines.clone();
                e.sections = goals.clone();
            }
            return;
        }
        "npm" | "yarn" | "pnpm" | "bun"
            if !(program == "bun" && cmd.subcommand().is_some_and(|s| s.contains('.'))) =>
        {
            if let Some(sections) = package_scripts(cmd) {
                let dir = package_dir(cmd)
                    .map(|d| res(&d))
                    .unwrap_or_else(|| cwd_of(scope, cmd));
                let sub = package_operands(cmd).first().map(|w| w.text.as_str());
                let how = format!("{program} {}", sub.unwrap_or("install"));
                let mut e = exec(
                    dir.join("package.json"),
                    how,
                    i,
                    Some(Language::PackageJson),
                );
                e.sections = sections;
                out.push(e);
                // `bun run x.ts` runs the script named so if package.json has one, else the
                // file: both are judged.
                let file = program == "bun"
                    && sub == Some("run")
                    && package_operands(cmd)
                        .get(1)
                        .is_some_and(|w| w.text.contains(['.', '/']));
                if !file {
                    return;
                }
            }
        }
        "git" => {
            let sub = crate::vocab::subcommand(cmd);
            // `--no-verify` (`commit -n`) skips the commit and push hooks.
            let verify = !(cmd.has_flag(None, &["no-verify"])
                || (sub == Some("commit") && cmd.has_flag(Some('n'), &[])));
            let hooks: &[&str] = match sub.filter(|_| verify) {
                Some("commit") => &[
                    "pre-commit",
                    "prepare-commit-msg",
                    "commit-msg",
                    "post-commit",
                ],
                Some("merge") | Some("pull") => &[
                    "pre-merge-commit",
                    "post-merge",
                    "prepare-commit-msg",
                    "commit-msg",
                ],
                Some("push") => &["pre-push"],
                Some("checkout") | Some("switch") | Some("clone") => &["post-checkout"],
                Some("rebase") => &["pre-rebase", "post-rewrite"],
                Some("am") => &["applypatch-msg", "pre-applypatch", "post-applypatch"],
                Some("cherry-pick") | Some("revert") => {
                    &["prepare-commit-msg", "commit-msg", "post-commit"]
                }
                _ => &[],
            };
            let mut roots = vec![scope.project_root.clone()];
            let here = cwd_of(scope, cmd);
            if !roots.contains(&here) {
                roots.push(here);
            }
            for root in &roots {
                for h in hooks {
                    let how = format!("git {}", sub.unwrap_or(""));
                    out.push(exec(
                        root.join(".git/hooks").join(h),
                        how,
                        i,
                        Some(Language::Shell),
                    ));
                }
            }
            git_convention_files(scope, i, cmd, &roots, hooks, out);
            return;
        }
        // Files a tool loads by convention from the directory it runs in.
        "pytest" | "py.test" => {
            let dir = cwd_of(scope, cmd);
            for root in [dir.clone(), scope.project_root.clone()] {
                for name in ["conftest.py", "tests/conftest.py", "test/conftest.py"] {
                    out.push(exec(root.join(name), "pytest", i, Some(Language::Python)));
                }
                if root == dir && dir == scope.project_root {
                    break;
                }
            }
            pytest_files(scope, i, cmd, &dir, out);
            return;
        }
        // Test runners collect the project's test files: jest and vitest `*.test.*` and
        // `*.spec.*`, RSpec `*_spec.rb`, `python -m unittest` (and `discover`) `test*.py`.
        "jest" | "vitest" | "rspec" | "unittest"
            if !matches!(cmd.subcommand(), Some("init" | "list" | "--version")) =>
        {
            let language = match program {
                "rspec" => Language::Ruby,
                "unittest" => Language::Python,
                _ => Language::Node,
            };
            let how = if program == "unittest" {
                "python -m unittest"
            } else {
                program
            };
            let start = match program {
                "unittest" => cmd.option_value(Some('s'), &["start-directory"]),
                _ => None,
            };
            // Test files named are run as files (`rspec spec/x_spec.rb`, `python -m unittest
            // tests/test_x.py`); a directory named, or none, is searched.
            let named: Vec<&Word> = operands_skipping(
                cmd,
                "spt",
                &[
                    "start-directory",
                    "pattern",
                    "top-level-directory",
                    "config",
                    "project",
                ],
            )
            .into_iter()
            .filter(|w| !matches!(w.text.as_str(), "discover" | "run" | "watch"))
            .collect();
            let mut dirs: Vec<PathBuf> = start.map(|s| res(&s)).into_iter().collect();
            for w in &named {
                let t = w.text.split("::").next().unwrap_or(&w.text);
                let path = if program == "unittest" && !t.contains('/') && !t.ends_with(".py") {
                    res(&format!("{}.py", t.replace('.', "/")))
                } else {
                    res(t)
                };
                if path.extension().is_some() {
                    out.push(exec(path, how, i, Some(language)));
                } else {
                    dirs.push(path);
                }
            }
            if named.is_empty() && dirs.is_empty() {
                dirs.push(cwd_of(scope, cmd));
            }
            for d in dirs {
                out.push(directory_run(d, how, i, language));
            }
            return;
        }
        // Hook managers run by hand: `pre-commit run`, `lefthook run HOOK`.
        "pre-commit" if matches!(cmd.subcommand(), Some("run" | "try-repo") | None) => {
            let file = cmd
                .option_value(Some('c'), &["config"])
                .map(|f| res(&f))
                .unwrap_or_else(|| git_repo(scope, cmd).join(".pre-commit-config.yaml"));
            out.push(exec(file, "pre-commit run", i, Some(Language::HookConfig)));
            return;
        }
        "lefthook" if cmd.subcommand() == Some("run") => {
            let repo = git_repo(scope, cmd);
            let hook: Vec<String> = cmd
                .operands()
                .get(1)
                .map(|h| vec![h.text.clone()])
                .unwrap_or_default();
            for name in [
                "lefthook.yml",
                "lefthook.yaml",
                ".lefthook.yml",
                ".lefthook.yaml",
                "lefthook-local.yml",
                "lefthook-local.yaml",
            ] {
                let mut e = exec(
                    repo.join(name),
                    "lefthook run",
                    i,
                    Some(Language::HookConfig),
                );
                e.sections = hook.clone();
                out.push(e);
            }
            return;
        }
        // tox and nox run the project's tests (pytest, as a rule) in fresh environments.
        "tox" | "nox" => {
            let dir = cwd_of(scope, cmd);
            for name in ["pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"] {
                out.push(settings_only(exec(
                    dir.join(name),
                    program,
                    i,
                    Some(Language::PytestConfig),
                )));
            }
            let mut e = exec(dir, program, i, Some(Language::Python));
            e.directory = true;
            out.push(e);
            return;
        }
        "psql" | "mysql" | "mariadb" | "sqlite3" | "duckdb" | "clickhouse-client" | "pgcli"
        | "mycli" | "litecli" | "usql" | "sqlcmd" | "cockroach" => {
            sql_files(analysis, scope, i, cmd, out, depth);
            return;
        }
        "jupyter" | "jupyter-nbconvert" | "jupyter-execute" | "papermill" | "ipython"
        | "runipy" => {
            let sub = cmd.subcommand();
            let runs = match program {
                "jupyter" => match sub {
                    Some("nbconvert") => cmd.has_flag(None, &["execute"]),
                    Some("execute" | "run") => true,
                    _ => false,
                },
                "jupyter-nbconvert" => cmd.has_flag(None, &["execute"]),
                _ => true,
            };
            if runs {
                // papermill runs its input; its output (the second operand) is written.
                let nbs: Vec<&Word> = cmd
                    .operands()
                    .into_iter()
                    .filter(|w| w.text.ends_with(".ipynb"))
                    .collect();
                let take = if program == "papermill" { 1 } else { nbs.len() };
                for nb in nbs.into_iter().take(take) {
                    out.push(exec(
                        res(&nb.text),
                        format!("{program} {}", sub.unwrap_or(""))
                            .trim_end()
                            .to_string(),
                        i,
                        Some(Language::Notebook),
                    ));
                }
            }
            if program != "ipython" || cmd.operands().iter().any(|w| w.text.ends_with(".ipynb")) {
                return;
            }
        }
        "docker" | "podman" if crate::vocab::subcommand(cmd) == Some("compose") => {
            compose_files(scope, i, cmd, 1, out);
            return;
        }
        "docker-compose" | "podman-compose" => {
            compose_files(scope, i, cmd, 0, out);
            return;
        }
        // The dev containers CLI runs a definition's commands: `up` its `initializeCommand` on
        // this machine and the rest inside, `run-user-commands` the ones inside.
        "devcontainer" if matches!(cmd.subcommand(), Some("up" | "run-user-commands")) => {
            let named = cmd.option_value(None, &["config"]).map(|c| res(&c));
            let dir = cmd
                .option_value(None, &["workspace-folder"])
                .map(|d| res(&d))
                .unwrap_or_else(|| cwd_of(scope, cmd));
            let how = format!("devcontainer {}", cmd.subcommand().unwrap_or(""));
            let paths = match named {
                Some(p) => vec![p],
                None => vec![
                    dir.join(".devcontainer/devcontainer.json"),
                    dir.join(".devcontainer.json"),
                ],
            };
            for p in paths {
                out.push(exec(p, &how, i, Some(Language::DevContainer)));
            }
            return;
        }
        "direnv" if matches!(cmd.subcommand(), Some("allow" | "exec" | "reload")) => {
            let dir = cmd
                .operands()
                .get(1)
                .filter(|_| cmd.subcommand() == Some("allow"))
                .map(|d| res(&d.text))
                .unwrap_or_else(|| cwd_of(scope, cmd));
            for name in [".envrc", ".env"] {
                out.push(exec(dir.join(name), "direnv", i, Some(Language::Shell)));
            }
            return;
        }
        // `pip install -e .` (and `pip wheel .`, `pipx install .`) and a build of the project
        // (`python -m build`, `uv build`, `pyproject-build`) run its setup.py.
        "pip" | "pip3" | "uv" | "pipx" | "build" | "pyproject-build"
            if builds_python_project(cmd) =>
        {
            let dir = cmd
                .operands()
                .iter()
                .find(|w| w.text.starts_with('.') || w.text.starts_with('/'))
                .map(|w| res(&w.text))
                .unwrap_or_else(|| cwd_of(scope, cmd));
            out.push(exec(
                dir.join("setup.py"),
                "a Python build",
                i,
                Some(Language::Python),
            ));
            return;
        }
        "task" | "go-task" => {
            task_files(scope, i, cmd, out);
            return;
        }
        "just" => {
            just_files(scope, i, cmd, out);
            return;
        }
        "composer" | "composer.phar" => {
            composer_files(scope, i, cmd, out);
            return;
        }
        // Process managers of a Procfile (`-f FILE`; hivemind takes it as an operand).
        "foreman" | "honcho" | "overmind" | "forego" | "goreman" | "nf" | "hivemind" | "heroku"
            if procfile_starts(cmd) =>
        {
            let named = cmd.option_value(Some('f'), &["procfile"]).or_else(|| {
                (program == "hivemind")
                    .then(|| cmd.operands().first().map(|w| w.text.clone()))
                    .flatten()
            });
            let file = named
                .map(|f| res(&f))
                .unwrap_or_else(|| cwd_of(scope, cmd).join("Procfile"));
            out.push(exec(file, program, i, Some(Language::Procfile)));
            return;
        }
        "cmake" | "cmake3" | "ccmake" => {
            cmake_files(scope, i, cmd, out);
            return;
        }
        "gradle" | "gradlew" => {
            gradle_files(scope, i, cmd, out);
            return;
        }
        "mvn" | "mvnw" | "mvnd" => {
            maven_files(scope, i, cmd, out);
            return;
        }
        "dotnet" | "msbuild" | "xbuild" => {
            msbuild_files(scope, i, cmd, out);
            return;
        }
        "go" => {
            go_files(scope, i, cmd, out);
            return;
        }
        "cargo" => {
            if matches!(
                cmd.subcommand(),
                Some(
                    "build"
                        | "test"
                        | "run"
                        | "check"
                        | "bench"
                        | "install"
                        | "b"
                        | "t"
                        | "r"
                        | "c"
                        | "clippy"
                        | "doc"
                )
            ) {
                let root = cwd_of(scope, cmd);
                out.push(exec(
                    root.join("build.rs"),
                    "cargo build script",
                    i,
                    Some(Language::Rust),
                ));
                // The wrappers, runners and linkers its config names.
                let mut configs = vec![root.join(".cargo/config.toml"), root.join(".cargo/config")];
                if root != scope.project_root {
                    configs.push(scope.project_root.join(".cargo/config.toml"));
                }
                configs.push(scope.paths.home.join(".cargo/config.toml"));
                for c in configs {
                    out.push(exec(c, "cargo", i, Some(Language::CargoConfig)));
                }
                if root != scope.project_root {
                    out.push(exec(
                        scope.project_root.join("build.rs"),
                        "cargo build script",
                        i,
                        Some(Language::Rust),
                    ));
                }
                // A run, a test or a bench runs the crate's own code: every Rust file the
                // session wrote in it (its binaries, modules, tests, examples, benches), as
                // `go run`/`go test` run a package's.
                if let Some(sub @ ("run" | "r" | "test" | "t" | "bench")) = cmd.subcommand() {
                    out.push(directory_run(
                        root,
                        &format!("cargo {sub}"),
                        i,
                        Language::Rust,
                    ));
                }
            }
            return;
        }
        // `java X.java`: the launcher compiles and runs a source file (JEP 330).
        "java" => {
            const VALUED: &[&str] = &[
                "-cp",
                "-classpath",
                "--class-path",
                "-p",
                "--module-path",
                "--add-modules",
                "--source",
                "--enable-native-access",
            ];
            let mut words = cmd.args.iter();
            while let Some(w) = words.next() {
                let t = w.text.as_str();
                if VALUED.contains(&t) {
                    words.next();
                } else if t == "-jar" || t == "-m" || t == "--module" {
                    break;
                } else if !t.starts_with('-') {
                    if t.ends_with(".java") {
                        out.push(exec(res(t), "java", i, Some(Language::Java)));
                    } else if !t.contains(['/', '.']) {
                        // `java X`: the class `javac X.java` wrote, run if the session built it.
                        let dir = cmd
                            .args
                            .windows(2)
                            .find(|p| VALUED[..3].contains(&p[0].text.as_str()))
                            .and_then(|p| p[1].text.split(':').next().map(str::to_string))
                            .map_or_else(|| cwd_of(scope, cmd), |d| res(&d));
                        out.push(looked_up(
                            dir.join(format!("{t}.class")),
                            "java",
                            i,
                            Some(Language::Java),
                        ));
                    }
                    break;
                }
            }
            return;
        }
        // `pwsh x.ps1`, `powershell -File x.ps1`: a PowerShell script file, whose lines the
        // shell analysis reads as PowerShell (as it reads `-Command` code, its own).
        "pwsh" | "powershell" | "pwsh.exe" | "powershell.exe" => {
            if let crate::vocab::Source::File(at) = crate::shell::switches::pwsh_source(&texts) {
                let mut e = exec(res(&cmd.args[at].text), program, i, Some(Language::Shell));
                e.args = cmd.args[at + 1..]
                    .iter()
                    .map(crate::vocab::input_value)
                    .collect();
                out.push(e);
            }
            return;
        }
        // `awk -f prog.awk`: the program file, judged as the same text given inline is
        // (`ledger::awk_program`).
        "awk" | "gawk" | "mawk" | "nawk" => {
            let mut words = cmd.args.iter();
            while let Some(w) = words.next() {
                let file = match w.text.as_str() {
                    "-f" | "--file" | "-E" | "--exec" => words.next().map(|f| f.text.clone()),
                    t => t
                        .strip_prefix("--file=")
                        .or_else(|| t.strip_prefix("-f").filter(|f| !f.is_empty()))
                        .map(str::to_string),
                };
                if let Some(f) = file {
                    out.push(exec(res(&f), AWK_PROGRAM, i, Some(Language::Shell)));
                }
            }
            return;
        }
        // `ansible-playbook site.yml`: the playbooks' tasks.
        "ansible-playbook" => {
            const VALUED: &str = "iefulkMtTc";
            for p in operands_skipping(
                cmd,
                VALUED,
                &[
                    "inventory",
                    "extra-vars",
                    "forks",
                    "user",
                    "limit",
                    "tags",
                    "skip-tags",
                    "connection",
                    "vault-password-file",
                    "become-user",
                    "private-key",
                    "module-path",
                    "timeout",
                    "start-at-task",
                ],
            ) {
                out.push(exec(
                    res(&p.text),
                    "ansible-playbook",
                    i,
                    Some(Language::Ansible),
                ));
            }
            return;
        }
        // `tcc -run x.c`: compiled in memory and run at once.
        "tcc" => {
            let mut words = cmd.args.iter().skip_while(|w| w.text != "-run").skip(1);
            if let Some(src) = words.find(|w| !w.text.starts_with('-')) {
                out.push(exec(res(&src.text), "tcc -run", i, Some(Language::C)));
            }
            return;
        }
        _ => {}
    }
    if let Some(interp) = interpreter(program) {
        let args: &[Word] = if program == "bun" && cmd.subcommand() == Some("run") {
            &cmd.args[1..]
        } else {
            &cmd.args
        };
        let texts: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
        match interp.switches.source(&texts) {
            crate::vocab::Source::File(word) => {
                let mut e = exec(res(&args[word].text), program, i, Some(interp.language));
                e.args = args[word + 1..]
                    .iter()
                    .map(crate::vocab::input_value)
                    .collect();
                out.push(e);
            }
            // The interpreter reads its code from stdin: `sh < x.sh`, `cat x.sh | sh`.
            crate::vocab::Source::Stdin { .. } => {
                let mut fed = reads(cmd, scope);
                if let Some(up) = cmd.stdin_from.and_then(|j| analysis.commands.get(j))
                    && up.program == "cat"
                {
                    fed.extend(reads(up, scope));
                }
                for p in fed {
                    out.push(exec(p, format!("{program} <"), i, Some(interp.language)));
                }
            }
            _ => {}
        }
        // `python3 -c "…"`, `perl -e '…'`, `python3 - <<EOF`: the commands the code runs, as
        // far as they are literal once its arguments are put in (the shell analysis unwraps
        // `sh -c` itself).
        if interp.language != Language::Shell
            && let Some(code) = crate::vocab::program_code_of(analysis, cmd)
        {
            let text = crate::scan::with_inputs(interp.language, &code.code, &code.inputs());
            for line in crate::scan::commands_run(interp.language, &text) {
                let inner = crate::shell::analyse(&line);
                for c in &inner.commands {
                    command_executions(&inner, scope, i, c, out, depth + 1);
                }
            }
        }
    }
}

/// The crate whose build output `path` is: `ROOT/target/[TRIPLE/]PROFILE/[examples/]NAME`.
fn cargo_built(path: &Path) -> Option<PathBuf> {
    let target = path
        .ancestors()
        .skip(2)
        .take(3)
        .find(|d| d.file_name().is_some_and(|n| n == "target"))?;
    target.parent().map(Path::to_path_buf)
}

/// A run of every file of the runner's kind the session wrote under `dir`, at any depth
/// (`Execution::directory`; the ledger picks the files by `language`).
fn directory_run(dir: PathBuf, how: &str, command: usize, language: Language) -> Execution {
    let mut e = exec(dir, how, command, Some(language));
    e.directory = true;
    e
}

/// `task` runs the Taskfile of its directory (`-d DIR`) and those it includes, or the one
/// `-t`/`--taskfile` names (a file, or a directory to look in); found none, it looks in the
/// directories above, so the project root's counts from a sub-directory. `-g` uses the home
/// directory's.
fn task_files(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<Execution>) {
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(f) = cmd.option_value(Some('t'), &["taskfile"]) {
        let p = res(&f);
        out.push(exec(p.clone(), "task", i, Some(Language::Taskfile)));
        dirs.push(p);
    } else if cmd.has_flag(Some('g'), &["global"]) {
        // The home directory's own Taskfile only: a run of everything under home would read
        // most of the session's ledger.
        for name in crate::scan::TASKFILES {
            let p = scope.paths.home.join(name);
            out.push(exec(p, "task", i, Some(Language::Taskfile)));
        }
    } else {
        let dir = cmd
            .option_value(Some('d'), &["dir"])
            .map(|d| res(&d))
            .unwrap_or_else(|| cwd_of(scope, cmd));
        dirs = with_project_root(scope, dir);
    }
    // A Taskfile includes others (`includes:`), most often the Taskfiles of sub-directories:
    // every Taskfile the session wrote under the directory counts.
    for d in dirs {
        out.push(directory_run(d, "task", i, Language::Taskfile));
    }
}

/// A task runner's directory and, when it is below the project root, the root too: a runner
/// that finds no file in its directory looks in the directories above (`task`, `just`).
fn with_project_root(scope: &Scope, dir: PathBuf) -> Vec<PathBuf> {
    let below = dir != scope.project_root && dir.starts_with(&scope.project_root);
    let mut dirs = vec![dir];
    if below {
        dirs.push(scope.project_root.clone());
    }
    dirs
}

/// `just` runs recipes of the justfile of its directory, or of the first directory above it
/// that has one, or of the file `-f`/`--justfile` names; the files it imports and the modules
/// it loads (`*.just`, a module directory's `justfile`) run too, so every justfile the session
/// wrote under the directory counts. Listing, showing, formatting and a dry run run nothing.
fn just_files(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<Execution>) {
    const SHOWS: &[&str] = &[
        "list",
        "summary",
        "show",
        "dump",
        "fmt",
        "init",
        "variables",
        "help",
        "version",
        "dry-run",
        "changelog",
        "completions",
        "edit",
        "groups",
    ];
    if cmd.args.iter().any(|a| {
        a.text
            .strip_prefix("--")
            .is_some_and(|l| SHOWS.contains(&l))
            || matches!(a.text.as_str(), "-l" | "-s" | "-h" | "-V" | "-n" | "-e")
    }) {
        return;
    }
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    if let Some(f) = cmd.option_value(Some('f'), &["justfile"]) {
        out.push(exec(res(&f), "just", i, Some(Language::Justfile)));
        return;
    }
    let dir = cmd
        .option_value(Some('d'), &["working-directory"])
        .map(|d| res(&d))
        .unwrap_or_else(|| cwd_of(scope, cmd));
    for d in &with_project_root(scope, dir.clone()) {
        for name in crate::scan::JUSTFILES {
            out.push(exec(d.join(name), "just", i, Some(Language::Justfile)));
        }
    }
    out.push(directory_run(dir, "just", i, Language::Justfile));
}

/// Whether a Procfile manager's command line starts the Procfile's processes: `start` (or
/// overmind's `s`), `heroku local`, hivemind with no subcommand.
fn procfile_starts(cmd: &Command) -> bool {
    let ops = crate::vocab::operands_skipping(cmd, "fdep", &["procfile", "root", "env", "port"]);
    let sub = ops.first().map(|w| w.text.as_str());
    match cmd.program.as_str() {
        "hivemind" => true,
        "heroku" => sub == Some("local"),
        "overmind" => matches!(sub, Some("start" | "s")),
        _ => sub == Some("start"),
    }
}

/// `composer` runs the scripts of `composer.json` (in `-d`/`--working-dir`): `run-script`
/// and a script's own name run it, `install`, `update`, `require`, `remove`, `dump-autoload`
/// and `create-project` their events' scripts. Commands that only read or report run none,
/// nor does any with `--no-scripts`.
fn composer_files(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<Execution>) {
    const QUIET: &[&str] = &[
        "show",
        "info",
        "validate",
        "outdated",
        "search",
        "config",
        "diagnose",
        "why",
        "depends",
        "why-not",
        "prohibits",
        "licenses",
        "about",
        "list",
        "help",
        "audit",
        "check-platform-reqs",
        "fund",
        "status",
        "suggests",
        "browse",
        "home",
        "archive",
        "clear-cache",
        "clearcache",
        "self-update",
        "selfupdate",
        "init",
        "bump",
        "global",
        "exec",
        "reinstall",
    ];
    if cmd.subcommand().is_none_or(|s| QUIET.contains(&s))
        || cmd.has_flag(None, &["no-scripts", "version", "help"])
    {
        return;
    }
    let dir = cmd
        .option_value(Some('d'), &["working-dir"])
        .map(|d| resolve_for(scope, cmd, &d))
        .unwrap_or_else(|| cwd_of(scope, cmd));
    out.push(exec(
        dir.join("composer.json"),
        "composer",
        i,
        Some(Language::TaskManifest),
    ));
}

/// `cmake` configures the source directory (`-S DIR`, an operand, or the working directory
/// with `-B`): its `CMakeLists.txt` and the scripts it includes, at any depth. `-P FILE` runs
/// a script, `-C FILE` preloads one; `--build DIR` reconfigures when the lists changed, so
/// the working directory's and the project's count. `-E` is command mode: no script runs.
fn cmake_files(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<Execution>) {
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    if cmd.args.first().is_some_and(|a| a.text == "-E") {
        return;
    }
    for (short, how) in [('P', "cmake -P"), ('C', "cmake -C")] {
        if let Some(f) = cmd.option_value(Some(short), &[]) {
            out.push(exec(res(&f), how, i, Some(Language::CMake)));
        }
    }
    if cmd.option_value(Some('P'), &[]).is_some() {
        return;
    }
    let mut sources: Vec<PathBuf> = Vec::new();
    if let Some(s) = cmd.option_value(Some('S'), &[]) {
        sources.push(res(&s));
    } else if cmd
        .option_value(None, &["build", "install", "open"])
        .is_some()
    {
        sources.push(cwd_of(scope, cmd));
        sources.push(scope.project_root.clone());
    } else {
        let operands = crate::vocab::operands_skipping(
            cmd,
            "BCDGPTAUS",
            &[
                "build",
                "install",
                "open",
                "preset",
                "toolchain",
                "graphviz",
                "log-level",
            ],
        );
        match operands.first() {
            Some(src) => sources.push(res(&src.text)),
            None => sources.push(cwd_of(scope, cmd)),
        }
    }
    sources.dedup();
    for s in sources {
        out.push(directory_run(s, "cmake", i, Language::CMake));
    }
}

/// Gradle evaluates every build and settings script of the build (`-p`/`--project-dir`, or
/// the working directory; the settings script may be in the project root above), the ones
/// `-b`, `-c` and `-I` name, and the user's init scripts (`~/.gradle/init.gradle`,
/// `~/.gradle/init.d/`). `--version` and `--help` configure nothing.
fn gradle_files(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<Execution>) {
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    if cmd.args.len() == 1
        && matches!(
            cmd.args[0].text.as_str(),
            "--version" | "-v" | "--help" | "-h" | "-?" | "--stop" | "--status"
        )
    {
        return;
    }
    let how = cmd.program.as_str();
    let dir = cmd
        .option_value(Some('p'), &["project-dir"])
        .map(|d| res(&d))
        .unwrap_or_else(|| cwd_of(scope, cmd));
    for (short, long) in [
        ('b', "build-file"),
        ('c', "settings-file"),
        ('I', "init-script"),
    ] {
        if let Some(f) = cmd.option_value(Some(short), &[long]) {
            out.push(exec(res(&f), how, i, Some(Language::Gradle)));
        }
    }
    if dir != scope.project_root && dir.starts_with(&scope.project_root) {
        out.push(directory_run(
            scope.project_root.clone(),
            how,
            i,
            Language::Gradle,
        ));
    } else {
        out.push(directory_run(dir, how, i, Language::Gradle));
    }
    let user = scope.paths.home.join(".gradle");
    for name in ["init.gradle", "init.gradle.kts"] {
        out.push(exec(user.join(name), how, i, Some(Language::Gradle)));
    }
    out.push(directory_run(user.join("init.d"), how, i, Language::Gradle));
}

/// Maven reads the POM of `-f`/`--file` (a file or a directory) or of the working directory,
/// its parent's in the project root, and the POMs of the modules it builds: every `pom.xml`
/// the session wrote under that directory. `--version` and `--help` build nothing.
fn maven_files(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<Execution>) {
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    if cmd.args.len() == 1
        && matches!(
            cmd.args[0].text.as_str(),
            "--version" | "-v" | "--help" | "-h"
        )
    {
        return;
    }
    let how = cmd.program.as_str();
    let dir = match cmd.option_value(Some('f'), &["file"]) {
        Some(f) if f.ends_with(".xml") => {
            let pom = res(&f);
            out.push(exec(pom.clone(), how, i, Some(Language::Maven)));
            pom.parent().map(Path::to_path_buf).unwrap_or(pom)
        }
        Some(d) => res(&d),
        None => cwd_of(scope, cmd),
    };
    if dir != scope.project_root && dir.starts_with(&scope.project_root) {
        out.push(exec(
            scope.project_root.join("pom.xml"),
            how,
            i,
            Some(Language::Maven),
        ));
    }
    out.push(directory_run(dir, how, i, Language::Maven));
}

/// MSBuild's runs (`dotnet build|test|run|pack|publish|restore|watch|msbuild|clean`,
/// `msbuild`): the project or solution named (or found in the working directory) and every
/// project and imported file the session wrote under its directory, and the
/// `Directory.Build.props`/`.targets` MSBuild imports from the directories above, up to the
/// project root.
fn msbuild_files(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<Execution>) {
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    let sub = if cmd.program == "dotnet" {
        match cmd.subcommand() {
            Some(
                s @ ("build" | "test" | "run" | "pack" | "publish" | "restore" | "watch"
                | "msbuild" | "clean"),
            ) => s,
            _ => return,
        }
    } else {
        ""
    };
    let how = format!("{} {sub}", cmd.program).trim_end().to_string();
    let named = cmd.option_value(None, &["project"]).or_else(|| {
        cmd.operands()
            .into_iter()
            .map(|w| w.text.as_str())
            .find(|t| {
                [
                    ".csproj", ".fsproj", ".vbproj", ".proj", ".targets", ".props", ".sln", ".slnx",
                ]
                .iter()
                .any(|x| t.ends_with(x))
                    || (t.starts_with(['.', '/']) && !t.contains('='))
            })
            .map(str::to_string)
    });
    let dir = match named {
        Some(t) if t.ends_with("proj") || t.ends_with(".targets") || t.ends_with(".props") => {
            let p = res(&t);
            out.push(exec(p.clone(), &how, i, Some(Language::MsBuild)));
            p.parent().map(Path::to_path_buf).unwrap_or(p)
        }
        Some(t) if t.ends_with(".sln") || t.ends_with(".slnx") => {
            let p = res(&t);
            p.parent().map(Path::to_path_buf).unwrap_or(p)
        }
        Some(t) => res(&t),
        None => cwd_of(scope, cmd),
    };
    out.push(directory_run(dir.clone(), &how, i, Language::MsBuild));
    for up in dir.ancestors().skip(1) {
        if !up.starts_with(&scope.project_root) {
            break;
        }
        for name in ["Directory.Build.props", "Directory.Build.targets"] {
            out.push(looked_up(up.join(name), &how, i, Some(Language::MsBuild)));
        }
    }
}

/// `go test`, `go run` and `go generate` compile and run the Go files of the packages they
/// are given (a directory, `./...` below one, or `.go` files for `go run`), after `-C DIR`;
/// a package imports its sub-packages, so every Go file the session wrote under a package's
/// directory counts. A package named by import path is taken to be the project's.
fn go_files(scope: &Scope, i: usize, cmd: &Command, out: &mut Vec<Execution>) {
    // Flags of the build and test commands that take a value (`-run X`, `-tags=a,b`).
    const VALUED: &[&str] = &[
        "C",
        "o",
        "p",
        "run",
        "skip",
        "bench",
        "benchtime",
        "count",
        "cpu",
        "parallel",
        "timeout",
        "tags",
        "ldflags",
        "gcflags",
        "asmflags",
        "coverprofile",
        "covermode",
        "coverpkg",
        "cpuprofile",
        "memprofile",
        "memprofilerate",
        "blockprofile",
        "blockprofilerate",
        "mutexprofile",
        "mutexprofilefraction",
        "outputdir",
        "trace",
        "exec",
        "mod",
        "modfile",
        "pkgdir",
        "toolexec",
        "shuffle",
        "fuzz",
        "fuzztime",
        "fuzzminimizetime",
        "list",
        "vet",
        "overlay",
        "pgo",
        "buildmode",
        "compiler",
        "installsuffix",
        "buildvcs",
        "covermode",
        "json",
    ];
    let words: Vec<&str> = cmd.args.iter().map(|w| w.text.as_str()).collect();
    let mut at = 0;
    let mut base = cwd_of(scope, cmd);
    let mut sub = None;
    let mut operands: Vec<&str> = Vec::new();
    while at < words.len() {
        let w = words[at];
        at += 1;
        if let Some(flag) = w.strip_prefix('-') {
            let flag = flag.trim_start_matches('-');
            let (name, glued) = match flag.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (flag, None),
            };
            // `json` takes no value; listed for `-json=true` only.
            let value = match glued {
                Some(v) => Some(v),
                None if VALUED.contains(&name) && name != "json" => {
                    at += 1;
                    words.get(at - 1).copied()
                }
                None => None,
            };
            if name == "C"
                && let Some(d) = value
            {
                base = resolve_for(scope, cmd, d);
            }
            continue;
        }
        if sub.is_none() {
            sub = Some(w);
            continue;
        }
        operands.push(w);
        // `go run PKG ARGS…`: what follows the package is the program's.
        if sub == Some("run") && !w.ends_with(".go") {
            break;
        }
    }
    let Some(sub) = sub.filter(|s| matches!(*s, "test" | "run" | "generate")) else {
        return;
    };
    let how = format!("go {sub}");
    let mut dirs: Vec<PathBuf> = Vec::new();
    for op in &operands {
        let pkg = op.trim_end_matches("/...").trim_end_matches("...");
        if op.ends_with(".go") {
            out.push(exec(base.join(op), how.clone(), i, Some(Language::Go)));
        } else if pkg.is_empty() || pkg.starts_with('.') || pkg.starts_with('/') {
            let p = if pkg.is_empty() { "." } else { pkg };
            dirs.push(scope.resolve(&base.join(p).to_string_lossy()));
        } else if pkg.split('/').next().is_some_and(|h| h.contains('.')) {
            dirs.push(scope.project_root.clone());
        }
    }
    if operands.is_empty() {
        dirs.push(base);
    }
    dirs.dedup();
    for d in dirs {
        out.push(directory_run(d, &how, i, Language::Go));
    }
}

/// Git subcommands that are not aliases (git ignores an alias of a built-in name).
const GIT_BUILTINS: &[&str] = &[
    "add",
    "am",
    "apply",
    "bisect",
    "blame",
    "branch",
    "bundle",
    "checkout",
    "cherry-pick",
    "clean",
    "clone",
    "commit",
    "config",
    "describe",
    "diff",
    "fetch",
    "format-patch",
    "gc",
    "grep",
    "init",
    "log",
    "ls-files",
    "merge",
    "mv",
    "notes",
    "pull",
    "push",
    "rebase",
    "reflog",
    "remote",
    "reset",
    "restore",
    "revert",
    "rm",
    "show",
    "stash",
    "status",
    "submodule",
    "switch",
    "tag",
    "worktree",
    "rev-parse",
    "lfs",
];

/// The repository a git command works in: the project when it runs inside it, else its
/// directory.
fn git_repo(scope: &Scope, cmd: &Command) -> PathBuf {
    let here = cwd_of(scope, cmd);
    if here.starts_with(&scope.project_root) {
        scope.project_root.clone()
    } else {
        here
    }
}

/// What else a git command runs by convention: the config it reads (aliases, the programs it
/// starts, remotes), the hook managers (pre-commit, lefthook, husky) that the hooks of
/// `hooks` start, and on `git push` the CI workflows the push triggers.
fn git_convention_files(
    scope: &Scope,
    i: usize,
    cmd: &Command,
    roots: &[PathBuf],
    hooks: &[&str],
    out: &mut Vec<Execution>,
) {
    let sub = crate::vocab::subcommand(cmd);
    let how = format!("git {}", sub.unwrap_or(""));
    let hook_sections: Vec<String> = hooks.iter().map(|h| h.to_string()).collect();
    for root in roots {
        for name in [
            ".pre-commit-config.yaml",
            ".pre-commit-config.yml",
            "lefthook.yml",
            "lefthook.yaml",
            ".lefthook.yml",
            ".lefthook.yaml",
            "lefthook-local.yml",
            "lefthook-local.yaml",
        ] {
            let mut e = exec(root.join(name), &how, i, Some(Language::HookConfig));
            e.sections = hook_sections.clone();
            if !hooks.is_empty() {
                out.push(e);
            }
        }
        for h in hooks {
            out.push(exec(
                root.join(".husky").join(h),
                &how,
                i,
                Some(Language::Shell),
            ));
        }
        if sub == Some("push") {
            let mut e = exec(
                root.join(".github/workflows"),
                &how,
                i,
                Some(Language::CiWorkflow),
            );
            e.directory = true;
            out.push(e);
            for name in [
                ".gitlab-ci.yml",
                ".circleci/config.yml",
                ".travis.yml",
                "bitbucket-pipelines.yml",
                "azure-pipelines.yml",
            ] {
                out.push(exec(root.join(name), &how, i, Some(Language::CiWorkflow)));
            }
        }
    }
    // Every git command reads the config: the programs it names run on any command, an
    // alias when it is used.
    let mut sections = vec!["git".to_string()];
    if let Some(s) = sub.filter(|s| !GIT_BUILTINS.contains(s)) {
        sections.push(format!("alias.{}", s.to_ascii_lowercase()));
    }
    sections.extend(hooks.iter().map(|h| format!("hook:{h}")));
    let repo = git_repo(scope, cmd);
    let home = &scope.paths.home;
    let mut configs = vec![
        repo.join(".git/config"),
        home.join(".gitconfig"),
        home.join(".config/git/config"),
    ];
    // Config files the line names: `GIT_CONFIG_GLOBAL=f git …`, `git -c include.path=f …`.
    for (k, v) in cmd.env.iter().filter(|(_, v)| !v.dynamic) {
        match k.as_str() {
            "GIT_CONFIG_GLOBAL" | "GIT_CONFIG_SYSTEM" | "GIT_CONFIG" => {
                configs.push(resolve_for(scope, cmd, &v.text));
            }
            "GIT_CONFIG_PARAMETERS" => {
                if let Some((key, value)) = v.text.split_once("'='") {
                    let key = key.trim_matches('\'').to_ascii_lowercase();
                    if key.starts_with("include") && key.ends_with(".path") {
                        configs.push(resolve_for(scope, cmd, value.trim_matches('\'')));
                    }
                }
            }
            _ => {}
        }
    }
    for path in configs {
        let mut e = exec(path, &how, i, Some(Language::GitConfig));
        e.sections = sections.clone();
        out.push(e);
    }
}

/// Git configuration a command line changes, as the text it adds: `git config [--global |
/// --system | --file F] KEY VALUE` (also `--add`, `set`) appends `[section] key = value` to
/// that config file. Kept apart from `writes`: the packs judge these commands by their own
/// rules; the ledger records them so that a later `git ALIAS` (or any git command, for the
/// programs git starts) is judged by what they set. Remote URLs are left to the taint step,
/// which counts a push to a remote added or changed in the session as a way out.
pub fn config_writes(analysis: &ShellAnalysis, scope: &Scope) -> Vec<FileWrite> {
    let mut out = Vec::new();
    for (i, c) in analysis.commands.iter().enumerate() {
        if c.program != "git"
            || c.args.iter().any(|a| a.dynamic)
            || crate::vocab::subcommand(c) != Some("config")
        {
            continue;
        }
        let mut file: Option<PathBuf> = None;
        let mut ops: Vec<&str> = Vec::new();
        let mut it = c
            .args
            .iter()
            .map(|a| a.text.as_str())
            .skip_while(|a| *a != "config")
            .skip(1);
        let mut reading = false;
        while let Some(a) = it.next() {
            match a {
                "--global" => file = Some(scope.paths.home.join(".gitconfig")),
                "--system" => file = Some(PathBuf::from("/etc/gitconfig")),
                "--local" | "--add" | "--replace-all" | "--bool" | "--int" | "--path" => {}
                "-f" | "--file" => file = it.next().map(|f| resolve_for(scope, c, f)),
                a if a.starts_with("--file=") => {
                    file = Some(resolve_for(scope, c, &a["--file=".len()..]))
                }
                // `--get`, `--unset`, `--list`…: not a setting.
                a if a.starts_with('-') => reading = true,
                a => ops.push(a),
            }
        }
        if ops.first() == Some(&"set") {
            ops.remove(0);
        }
        let [key, value] = ops.as_slice() else {
            continue;
        };
        let parts: Vec<&str> = key.split('.').collect();
        if reading || parts[0].eq_ignore_ascii_case("remote") {
            continue;
        }
        let header = match parts.as_slice() {
            [s, k] => (format!("[{s}]"), *k),
            [s, mid @ .., k] if !mid.is_empty() => (format!("[{s} \"{}\"]", mid.join(".")), *k),
            _ => continue,
        };
        let path = file.unwrap_or_else(|| git_repo(scope, c).join(".git/config"));
        let mut w = FileWrite::new(path, i, "git config");
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        w.content = Some(format!("{}\n\t{} = \"{escaped}\"\n", header.0, header.1));
        w.append = true;
        out.push(w);
    }
    out
}

/// A run of pytest's or tox's settings file: the settings and tox's commands (which belong to
/// no section), not the tasks project runners keep in the same pyproject.toml (`poe`'s,
/// `pdm run`'s), whose sections are their names.
fn settings_only(mut e: Execution) -> Execution {
    e.sections = vec![String::new()];
    e
}

/// The pytest settings a run reads (`-c FILE`, else `pytest.ini`, `pyproject.toml`,
/// `tox.ini`, `setup.cfg` in its directory and the project), and the plugin modules it
/// loads by `-p` on the command line, in `PYTEST_ADDOPTS` or `PYTEST_PLUGINS`.
fn pytest_files(scope: &Scope, i: usize, cmd: &Command, dir: &Path, out: &mut Vec<Execution>) {
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    match cmd.option_value(Some('c'), &["config-file"]) {
        Some(f) => out.push(settings_only(exec(
            res(&f),
            "pytest",
            i,
            Some(Language::PytestConfig),
        ))),
        None => {
            let mut roots = vec![dir.to_path_buf()];
            if scope.project_root != dir {
                roots.push(scope.project_root.clone());
            }
            for root in roots {
                for name in [
                    "pytest.ini",
                    ".pytest.ini",
                    "pyproject.toml",
                    "tox.ini",
                    "setup.cfg",
                ] {
                    out.push(settings_only(exec(
                        root.join(name),
                        "pytest",
                        i,
                        Some(Language::PytestConfig),
                    )));
                }
            }
        }
    }
    let mut words: Vec<String> = cmd.args.iter().map(|w| w.text.clone()).collect();
    for (k, v) in &cmd.env {
        match k.as_str() {
            "PYTEST_ADDOPTS" => words.extend(v.text.split_whitespace().map(str::to_string)),
            "PYTEST_PLUGINS" => {
                for m in v.text.split(',').map(str::trim).filter(|m| !m.is_empty()) {
                    words.push("-p".into());
                    words.push(m.to_string());
                }
            }
            _ => {}
        }
    }
    // The tests it collects: files named as operands (`tests/test_a.py::test_x`), else test
    // modules and `conftest.py` under the directories named (the run directory by default).
    let mut dirs = Vec::new();
    for w in operands_skipping(
        cmd,
        "cpkmo",
        &[
            "config-file",
            "rootdir",
            "basetemp",
            "junitxml",
            "cov",
            "ignore",
            "deselect",
        ],
    ) {
        let path = w.text.split("::").next().unwrap_or(&w.text);
        if path.ends_with(".py") {
            out.push(exec(res(path), "pytest", i, Some(Language::Python)));
        } else if !w.dynamic && !path.contains('=') {
            dirs.push(res(path));
        }
    }
    if dirs.is_empty() {
        dirs.push(dir.to_path_buf());
    }
    for d in dirs {
        let mut e = exec(d, "pytest", i, Some(Language::Python));
        e.directory = true;
        out.push(e);
    }
    for line in crate::scan::pytest_option_commands(&words) {
        if let Some(module) = line.strip_prefix("python ") {
            out.push(exec(
                dir.join(module.trim_matches('\'')),
                "pytest -p",
                i,
                Some(Language::Python),
            ));
        }
    }
}

/// The SQL files a database client runs: `-f FILE` (psql, usql, duckdb), `-i FILE`
/// (sqlcmd), `-init FILE` (sqlite3), `--queries-file` (clickhouse), stdin (`< f`, `cat f |`),
/// and files its inline statements include (`-c '\\i f'`, `-e 'source f'`, `".read f"`).
fn sql_files(
    analysis: &ShellAnalysis,
    scope: &Scope,
    i: usize,
    cmd: &Command,
    out: &mut Vec<Execution>,
    depth: usize,
) {
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    let program = cmd.program.as_str();
    let how = format!("{program} <file>");
    let mut files: Vec<PathBuf> = Vec::new();
    let file_flag = match program {
        "psql" | "usql" | "duckdb" | "pgcli" => cmd.option_value(Some('f'), &["file"]),
        "sqlcmd" => cmd.option_value(Some('i'), &["input-file"]),
        "sqlite3" => cmd.option_value(None, &["init", "-init"]),
        "clickhouse-client" => cmd.option_value(None, &["queries-file"]),
        _ => None,
    };
    files.extend(file_flag.map(|f| res(&f)));
    if program == "sqlite3" {
        // `sqlite3 -init f db`: the single-dash long option.
        let mut it = cmd.args.iter();
        while let Some(a) = it.next() {
            if a.text == "-init"
                && let Some(f) = it.next()
            {
                files.push(res(&f.text));
            }
        }
    }
    files.extend(reads(cmd, scope));
    if let Some(up) = cmd.stdin_from.and_then(|j| analysis.commands.get(j))
        && up.program == "cat"
    {
        files.extend(reads(up, scope));
    }
    for f in files {
        out.push(exec(f, &how, i, Some(Language::Sql)));
    }
    // Inline statements: `-c`, `-e`, `--command`, `--execute`, sqlite3's trailing operands.
    let mut inline: Vec<String> = Vec::new();
    inline.extend(cmd.option_value(Some('c'), &["command"]));
    inline.extend(cmd.option_value(Some('e'), &["execute"]));
    if program == "sqlite3" || program == "duckdb" {
        inline.extend(cmd.operands().iter().skip(1).map(|w| w.text.clone()));
    }
    for text in inline {
        for line in crate::scan::command_lines(Language::Sql, &text, &[], &[]) {
            if line.starts_with("psql -f ") {
                let inner = crate::shell::analyse(&line);
                for c in &inner.commands {
                    let c = Command {
                        cwd: cmd.cwd.clone(),
                        ..c.clone()
                    };
                    command_executions(&inner, scope, i, &c, out, depth + 1);
                }
            }
        }
    }
}

/// The compose files `docker compose up|run|create|start|restart|watch` reads: `-f FILE`
/// (each), `COMPOSE_FILE`, else the default file and its override in the project directory.
/// The sections are the services named (all when none is).
fn compose_files(scope: &Scope, i: usize, cmd: &Command, skip: usize, out: &mut Vec<Execution>) {
    let res = |raw: &str| resolve_for(scope, cmd, raw);
    let mut files: Vec<String> = Vec::new();
    let mut dir: Option<String> = None;
    let mut sub: Option<&str> = None;
    let mut services: Vec<String> = Vec::new();
    let mut it = cmd.args.iter().skip(skip);
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        let (name, inline) = match t.split_once('=') {
            Some((n, v)) if t.starts_with("--") => (n, Some(v.to_string())),
            _ => (t, None),
        };
        let mut value = || inline.clone().or_else(|| it.next().map(|w| w.text.clone()));
        match (sub, name) {
            (None, "-f" | "--file") => files.extend(value()),
            (None, "--project-directory") => dir = value(),
            (
                None,
                "-p" | "--project-name" | "--env-file" | "--profile" | "--ansi" | "--progress",
            ) => {
                value();
            }
            (
                Some(_),
                "-e" | "--env" | "-w" | "--workdir" | "-u" | "--user" | "-v" | "--volume"
                | "--name" | "--entrypoint" | "-p" | "--publish" | "-l" | "--label" | "-t"
                | "--timeout" | "--scale" | "--exit-code-from" | "--pull" | "--wait-timeout",
            ) => {
                value();
            }
            (_, n) if n.starts_with('-') => {}
            (None, n) => sub = Some(n),
            (Some("run"), n) if !services.is_empty() => {
                let _ = n;
                break;
            }
            (Some(_), n) => services.push(n.to_string()),
        }
    }
    if !matches!(
        sub,
        Some("up" | "run" | "create" | "start" | "restart" | "watch")
    ) {
        return;
    }
    if files.is_empty()
        && let Some((_, v)) = cmd.env.iter().find(|(k, _)| k == "COMPOSE_FILE")
    {
        files.extend(v.text.split(':').map(str::to_string));
    }
    let base = dir.map(|d| res(&d)).unwrap_or_else(|| cwd_of(scope, cmd));
    let mut paths: Vec<PathBuf> = files.iter().map(|f| res(f)).collect();
    if paths.is_empty() {
        for name in [
            "compose.yaml",
            "compose.yml",
            "docker-compose.yml",
            "docker-compose.yaml",
            "compose.override.yaml",
            "compose.override.yml",
            "docker-compose.override.yml",
            "docker-compose.override.yaml",
        ] {
            paths.push(base.join(name));
        }
    }
    let how = format!("{} compose {}", cmd.program, sub.unwrap_or(""));
    for p in paths {
        let mut e = exec(p, &how, i, Some(Language::Compose));
        e.sections = services.clone();
        out.push(e);
    }
}

/// The npm/yarn/pnpm scripts a command runs, with their `pre`/`post` companions; `None` when
/// the command runs no package script.
/// The package managers' options that take a value, by program: where they run and which
/// workspace (`npm --prefix web test`, `npm run build -w web`, `pnpm -C web build`, `pnpm
/// --filter ./web build`, `yarn --cwd web build`), so the value is not read as the script.
fn package_options(program: &str) -> (&'static str, &'static [&'static str]) {
    let long: &[&str] = &["prefix", "cwd", "dir", "workspace", "filter"];
    match program {
        "npm" => ("w", long),
        "pnpm" => ("CF", long),
        _ => ("", long),
    }
}

/// A package manager's operands, its options' values left out.
fn package_operands(cmd: &Command) -> Vec<&Word> {
    let (short, long) = package_options(&cmd.program);
    crate::vocab::operands_skipping(cmd, short, long)
}

/// The directory whose package.json a package manager runs, when an option names it: a
/// folder (`--prefix`, `--cwd`, `-C`, `--dir`) or a workspace, which names its folder too in
/// the common layouts (`-w web`, `--filter ./web`).
fn package_dir(cmd: &Command) -> Option<String> {
    let (short, _) = package_options(&cmd.program);
    let c = short.contains('C').then_some('C');
    cmd.option_value(c, &["prefix", "cwd", "dir"])
        .or_else(|| {
            let w = short.contains('w').then_some('w');
            cmd.option_value(w, &["workspace"])
        })
        .or_else(|| {
            let f = short.contains('F').then_some('F');
            cmd.option_value(f, &["filter"])
        })
        .map(|d| d.trim_start_matches("./").to_string())
        .filter(|d| !d.is_empty())
}

fn package_scripts(cmd: &Command) -> Option<Vec<String>> {
    let ops = package_operands(cmd);
    let sub = ops.first().map(|w| w.text.as_str());
    let with_hooks = |name: &str| {
        vec![
            format!("pre{name}"),
            name.to_string(),
            format!("post{name}"),
        ]
    };
    let install = || {
        std::iter::once(crate::scan::REMOTE_DEPENDENCIES)
            .chain(crate::scan::INSTALL_SCRIPTS.iter().copied())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    Some(match (cmd.program.as_str(), sub) {
        (_, Some("run" | "run-script" | "rum" | "urn")) => with_hooks(&ops.get(1)?.text),
        (_, Some("test" | "t" | "tst")) => with_hooks("test"),
        (_, Some("start")) => with_hooks("start"),
        (_, Some("stop")) => with_hooks("stop"),
        (_, Some("restart")) => with_hooks("restart"),
        (_, Some("install" | "i" | "ci" | "add" | "isntall")) => install(),
        ("yarn", None) => install(),
        ("npm" | "pnpm", None) => return None,
        ("yarn" | "pnpm" | "bun", Some(name))
            if !matches!(
                name,
                "exec"
                    | "dlx"
                    | "x"
                    | "create"
                    | "init"
                    | "why"
                    | "info"
                    | "list"
                    | "ls"
                    | "outdated"
                    | "remove"
                    | "upgrade"
                    | "up"
                    | "link"
                    | "publish"
                    | "pack"
                    | "version"
                    | "config"
                    | "cache"
            ) =>
        {
            with_hooks(name)
        }
        _ => return None,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::call::{Call, CallKind};

    #[test]
    fn the_shells_own_directories_with_a_suffix_taken_off_are_known() {
        let w = |t: &str| Word {
            text: t.into(),
            dynamic: true,
            glob: false,
        };
        for (text, want) in [
            ("$PWD/build", Some("./build")),
            ("${PWD%/}/build", Some("./build")),
            ("${PWD%/*}", Some("..")),
            ("${PWD%/*}/other", Some("../other")),
            ("${HOME%/*}/dev", Some("~/../dev")),
            ("${HOME%/}/.ssh", Some("${HOME%/}/.ssh")),
            // Another pattern, or more unknown text after: not known.
            ("${PWD%/*/*}", None),
            ("${PWD%/*}/$X", None),
        ] {
            assert_eq!(static_text(&w(text)).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn unknown_parts_of_a_name_in_a_known_directory_are_globs() {
        for (text, want) in [
            ("~/.ssh/$K", Some("~/.ssh/*")),
            ("$HOME/.aws/$F", Some("~/.aws/*")),
            ("${HOME}/.ssh/id_${T:-x}", Some("~/.ssh/id_*")),
            ("~/.kube/$(ls ~/.kube | head -1)", Some("~/.kube/*")),
            ("~/.ssh/`ls ~/.ssh`.pub", Some("~/.ssh/*.pub")),
            ("~/.ssh/$A$B", Some("~/.ssh/*")),
            ("/etc/$@", Some("/etc/*")),
            // No directory known before the unknown part.
            ("$DIR/id_rsa", None),
            ("/$X", None),
            ("$K", None),
            ("~/.ssh/`x", None),
        ] {
            assert_eq!(unknown_as_glob(text).as_deref(), want, "{text}");
        }
    }
    use crate::paths::PathResolver;
    use crate::shell::Redirect;

    pub(crate) fn scope() -> Scope {
        Scope {
            paths: PathResolver {
                cwd: "/home/dev/project".into(),
                home: "/home/dev".into(),
                follow_symlinks: false,
            },
            project_root: "/home/dev/project".into(),
            roots: vec!["/home/dev/project".into()],
            protected: Default::default(),
            files: Default::default(),
            lines: Default::default(),
        }
    }

    /// A default is what a word reads when its variable is unset; a default that is itself
    /// built at run time, or a parameter with none, leaves the word unknown.
    #[test]
    fn defaults_stand_for_unset_variables() {
        assert_eq!(
            with_defaults("~/.ssh/${K:-id_rsa}").as_deref(),
            Some("~/.ssh/id_rsa")
        );
        assert_eq!(
            with_defaults("${D=/etc}/${F-shadow}").as_deref(),
            Some("/etc/shadow")
        );
        assert_eq!(
            with_defaults("$HOME/${F:=.netrc}").as_deref(),
            Some("$HOME/.netrc")
        );
        assert_eq!(
            with_defaults("${A}/${B:-x}").as_deref(),
            Some("${A}/x"),
            "a parameter without a default stays as written"
        );
        assert_eq!(with_defaults("~/.ssh/${K:-$(pick)}"), None);
        assert_eq!(with_defaults("~/.ssh/$K"), None);
        assert_eq!(with_defaults("${#K}"), None);
        assert_eq!(with_defaults("${K:-unclosed"), None);
    }

    fn cmd(line: &str) -> Command {
        let mut words = line.split_whitespace();
        let program_path = words.next().unwrap_or_default().to_string();
        Command {
            program: basename(&program_path).to_string(),
            program_path,
            args: words.map(Word::literal).collect(),
            ..Command::default()
        }
    }

    fn redirect(mut c: Command, kind: RedirectKind, target: &str) -> Command {
        c.redirects.push(Redirect {
            fd: None,
            kind,
            target: Word::literal(target),
        });
        c
    }

    fn analysis(cmds: Vec<Command>) -> ShellAnalysis {
        ShellAnalysis {
            commands: cmds,
            findings: Vec::new(),
            ..Default::default()
        }
    }

    fn shell_call(cmds: Vec<Command>) -> Call {
        Call {
            tool: "Bash".into(),
            input: serde_json::json!({}).into(),
            kind: CallKind::Shell {
                command: String::new(),
                analysis: analysis(cmds),
            },
            effects: Vec::new(),
        }
    }

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    /// A compiler writes its output from its sources: one write per source, which the ledger
    /// joins.
    #[test]
    fn compilers_write_their_output_from_their_sources() {
        let of = |line: &str| -> Vec<(PathBuf, PathBuf, String)> {
            writes(&crate::shell::analyse(line), &scope())
                .into_iter()
                .map(|w| (w.path, w.source.unwrap_or_default(), w.how.to_string()))
                .collect()
        };
        let proj = |s: &str| p(&format!("/home/dev/project/{s}"));
        let w = |out: &str, src: &str, how: &str| (proj(out), proj(src), how.to_string());
        assert_eq!(of("gcc x.c -o x"), [w("x", "x.c", "gcc")]);
        assert_eq!(
            of("gcc -Wall -I include -o bin/app a.c b.c -lm"),
            [w("bin/app", "a.c", "gcc"), w("bin/app", "b.c", "gcc")]
        );
        assert_eq!(of("cc x.c"), [w("a.out", "x.c", "cc")]);
        assert_eq!(of("clang -c x.c"), [w("x.o", "x.c", "clang")]);
        assert_eq!(
            of("g++ -shared -fPIC -o e.so e.cpp"),
            [w("e.so", "e.cpp", "g++")]
        );
        assert_eq!(of("rustc src/main.rs"), [w("main", "src/main.rs", "rustc")]);
        assert_eq!(
            of("rustc -C opt-level=3 -o t x.rs"),
            [w("t", "x.rs", "rustc")]
        );
        assert_eq!(of("javac X.java"), [w("X.class", "X.java", "javac")]);
        assert_eq!(
            of("javac -d out X.java"),
            [w("out/X.class", "X.java", "javac")]
        );
        assert_eq!(of("go build main.go"), [w("main", "main.go", "go build")]);
        assert_eq!(
            of("go build -o app ."),
            [(proj("app"), p("/home/dev/project"), "go build".into())]
        );
        assert_eq!(
            of("go build -o bin/ ./cmd/tool"),
            [w("bin/tool", "cmd/tool", "go build")]
        );
        // Preprocessing and checking write no program; `tcc -run` runs the source itself.
        assert!(of("gcc -E x.c").is_empty());
        assert!(of("tcc -run x.c").is_empty());
        assert!(of("go vet ./...").is_empty());
    }

    /// Test runners collect the project's test files: a directory run over what they search,
    /// the files they are given as runs of those files.
    #[test]
    fn test_runners_run_the_test_files_they_collect() {
        let runs = |line: &str| -> Vec<(PathBuf, bool, Option<Language>)> {
            executions_in(&crate::shell::analyse(line), &scope())
                .into_iter()
                .map(|e| (e.path, e.directory, e.language))
                .collect()
        };
        let dir = |d: &str, l: Language| (p(&format!("/home/dev/project{d}")), true, Some(l));
        let file = |f: &str, l: Language| (p(&format!("/home/dev/project/{f}")), false, Some(l));
        assert!(runs("npx jest --ci").contains(&dir("", Language::Node)));
        assert!(runs("vitest run src").contains(&dir("/src", Language::Node)));
        assert!(runs("python3 -m unittest").contains(&dir("", Language::Python)));
        assert!(
            runs("python -m unittest discover -s tests -p 'test_*.py'")
                .contains(&dir("/tests", Language::Python))
        );
        assert!(
            runs("python -m unittest tests.test_api")
                .contains(&file("tests/test_api.py", Language::Python))
        );
        assert!(runs("bundle exec rspec").contains(&dir("", Language::Ruby)));
        assert!(
            runs("rspec spec/models/user_spec.rb")
                .contains(&file("spec/models/user_spec.rb", Language::Ruby))
        );
    }

    /// A program cargo built does what its crate's sources say; `java X` runs the class
    /// `javac` wrote, if the session built it; `tcc -run` runs its source.
    #[test]
    fn built_programs_run_their_sources() {
        let runs = |line: &str| -> Vec<(PathBuf, bool, bool)> {
            executions(&shell_call(vec![cmd(line)]), &scope())
                .into_iter()
                .map(|e| (e.path, e.directory, e.looked_up))
                .collect()
        };
        let root = (p("/home/dev/project"), true, false);
        assert!(runs("./target/release/app").contains(&root));
        assert!(runs("target/x86_64-unknown-linux-musl/debug/app --help").contains(&root));
        assert!(runs("./target/debug/examples/demo").contains(&root));
        assert!(!runs("./bin/app").contains(&root));
        assert_eq!(
            runs("java -cp classes X"),
            [(p("/home/dev/project/classes/X.class"), false, true)]
        );
        assert_eq!(runs("java -jar app.jar"), []);
        for line in [
            "pwsh x.ps1 a",
            "pwsh -NoProfile -File x.ps1",
            "powershell.exe -ExecutionPolicy Bypass -File ./x.ps1",
        ] {
            assert_eq!(
                runs(line),
                [(p("/home/dev/project/x.ps1"), false, false)],
                "{line}"
            );
        }
        assert_eq!(runs("pwsh -Command ./x.ps1"), []);
        for line in ["awk -f x.awk data.txt", "gawk --file=x.awk", "awk -fx.awk"] {
            assert_eq!(
                runs(line),
                [(p("/home/dev/project/x.awk"), false, false)],
                "{line}"
            );
        }
        assert_eq!(runs("awk '{print $1}' x.awk"), []);
        assert_eq!(
            runs("tcc -run x.c"),
            [(p("/home/dev/project/x.c"), false, false)]
        );
    }

    #[test]
    fn pythons_archive_modules_extract_into_the_directory_given() {
        let of = |line: &str| -> Vec<(PathBuf, String)> {
            writes(&crate::shell::analyse(line), &scope())
                .into_iter()
                .map(|w| (w.path, w.how.to_string()))
                .collect()
        };
        assert_eq!(
            of("python3 -m zipfile -e x.zip ~"),
            vec![(p("/home/dev"), "unzip".to_string())]
        );
        assert_eq!(
            of("python -m tarfile -e x.tar"),
            vec![(p("/home/dev/project"), "tar -x".to_string())]
        );
        assert!(of("python3 -m zipfile -l x.zip").is_empty());
        // Dotfile managers write into their target, the home directory for chezmoi.
        let dotfiles = DOTFILES.to_string();
        assert_eq!(
            of("stow -t ~ vim"),
            vec![(p("/home/dev"), dotfiles.clone())]
        );
        assert_eq!(of("stow vim"), vec![(p("/home/dev"), dotfiles.clone())]);
        assert_eq!(of("chezmoi apply"), vec![(p("/home/dev"), dotfiles)]);
        assert!(of("stow -n vim").is_empty() && of("chezmoi diff").is_empty());
        let a = crate::shell::analyse("python3 -m zipfile -e a.zip vendor/");
        assert_eq!(extracted_archive(&a.commands[0]), Some("a.zip"));
    }

    #[test]
    fn heredoc_and_echo_content() {
        let mut c = redirect(cmd("cat"), RedirectKind::Write, "x.sh");
        c.stdin_text = Some("rm -rf ~\n".into());
        let w = writes(&analysis(vec![c]), &scope());
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].path, p("/home/dev/project/x.sh"));
        assert_eq!(w[0].content.as_deref(), Some("rm -rf ~\n"));
        assert!(!w[0].from_network);

        let c = redirect(cmd("echo hello world"), RedirectKind::Append, "~/notes");
        let w = writes(&analysis(vec![c]), &scope());
        assert_eq!(w[0].path, p("/home/dev/notes"));
        assert!(w[0].append);
        assert_eq!(w[0].content.as_deref(), Some("hello world\n"));

        let mut c = cmd("printf");
        c.args = vec![
            Word::literal("#!/bin/sh\\n%s\\n"),
            Word::literal("rm -rf /"),
        ];
        let c = redirect(c, RedirectKind::Write, "y.sh");
        let w = writes(&analysis(vec![c]), &scope());
        assert_eq!(w[0].content.as_deref(), Some("#!/bin/sh\nrm -rf /\n"));

        // stderr and /dev/null are not files the agent wrote.
        let mut c = redirect(cmd("make"), RedirectKind::Write, "/dev/null");
        c.redirects.push(Redirect {
            fd: Some(2),
            kind: RedirectKind::Write,
            target: Word::literal("err.log"),
        });
        let w = writes(&analysis(vec![c]), &scope());
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].content, None);
    }

    #[test]
    fn tee_takes_upstream_content_and_network() {
        let echo = cmd("echo rm -rf /");
        let mut tee = cmd("tee -a a.sh b.sh");
        tee.stdin_from = Some(0);
        let w = writes(&analysis(vec![echo, tee]), &scope());
        assert_eq!(w.len(), 2);
        assert!(
            w.iter()
                .all(|w| w.append && w.content.as_deref() == Some("rm -rf /\n"))
        );

        let curl = cmd("curl -fsSL https://x.example/i.sh");
        let mut tee = cmd("tee i.sh");
        tee.stdin_from = Some(0);
        let w = writes(&analysis(vec![curl, tee]), &scope());
        assert!(w[0].from_network);
        assert_eq!(w[0].content, None);

        let c = redirect(
            cmd("curl -s https://x.example/i.sh"),
            RedirectKind::Write,
            "i.sh",
        );
        let w = writes(&analysis(vec![c]), &scope());
        assert!(w[0].from_network);
    }

    #[test]
    fn copies_into_place() {
        let w = writes(&analysis(vec![cmd("cp a.sh b.sh")]), &scope());
        assert_eq!(w[0].path, p("/home/dev/project/b.sh"));
        assert_eq!(w[0].source, Some(p("/home/dev/project/a.sh")));
        let w = writes(&analysis(vec![cmd("mv a.sh c.sh bin/")]), &scope());
        assert_eq!(w.len(), 2);
        assert_eq!(w[1].path, p("/home/dev/project/bin/c.sh"));
        assert_eq!(w[1].how, "mv");
        let w = writes(
            &analysis(vec![cmd("install -m 755 tool /home/dev/.local/bin/tool")]),
            &scope(),
        );
        assert_eq!(w[0].path, p("/home/dev/.local/bin/tool"));
        let w = writes(&analysis(vec![cmd("cp -t dst x y")]), &scope());
        assert_eq!(w[1].path, p("/home/dev/project/dst/y"));
        let w = writes(&analysis(vec![cmd("ln -s evil.sh run.sh")]), &scope());
        assert_eq!(w[0].source, Some(p("/home/dev/project/evil.sh")));
        assert_eq!(w[0].how, "ln -s");
    }

    #[test]
    fn downloads() {
        let w = writes(
            &analysis(vec![cmd(
                "curl -fsSL -o inst.sh https://get.example/install.sh",
            )]),
            &scope(),
        );
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].path, p("/home/dev/project/inst.sh"));
        assert!(w[0].from_network);
        let w = writes(
            &analysis(vec![cmd("curl -sLO https://get.example/dir/setup.sh?x=1")]),
            &scope(),
        );
        assert_eq!(w[0].path, p("/home/dev/project/setup.sh"));
        let w = writes(
            &analysis(vec![cmd("curl --output=/tmp/a.py https://e.example/a")]),
            &scope(),
        );
        assert_eq!(w[0].path, p("/tmp/a.py"));
        // Bundled short options: the value-taking one ends the bundle.
        for (line, want) in [
            (
                "curl -sSo f.sh https://e.example/x",
                "/home/dev/project/f.sh",
            ),
            (
                "curl -sSof.sh https://e.example/x",
                "/home/dev/project/f.sh",
            ),
            ("curl -fsSLo /tmp/i.sh https://e.example/x", "/tmp/i.sh"),
            (
                "curl -sSLO https://e.example/d/g.sh",
                "/home/dev/project/g.sh",
            ),
        ] {
            let w = writes(&analysis(vec![cmd(line)]), &scope());
            assert_eq!(w.len(), 1, "{line}");
            assert_eq!(w[0].path, p(want), "{line}");
            assert!(w[0].from_network, "{line}");
        }
        // `-H` takes the rest of its bundle: the `o` inside a header is no output.
        let w = writes(
            &analysis(vec![cmd("curl -sHo:x https://e.example/x")]),
            &scope(),
        );
        assert!(w.is_empty(), "{w:?}");
        let w = writes(
            &analysis(vec![cmd("wget -qO run.sh https://e.example/r")]),
            &scope(),
        );
        assert_eq!(w[0].path, p("/home/dev/project/run.sh"));
        let w = writes(
            &analysis(vec![cmd("wget https://e.example/path/tool.py")]),
            &scope(),
        );
        assert_eq!(w[0].path, p("/home/dev/project/tool.py"));
        assert!(w[0].from_network);
        let w = writes(
            &analysis(vec![cmd("wget -O - https://e.example/x")]),
            &scope(),
        );
        assert!(w.is_empty());
    }

    /// The other downloaders save where their options say, else under the URL's last segment,
    /// each from the network; httpie and xh only with `-o` or `--download`.
    #[test]
    fn other_downloaders_save_files_from_the_network() {
        for (line, want) in [
            (
                "aria2c https://e.example/d/tool.sh",
                "/home/dev/project/tool.sh",
            ),
            ("aria2c -d /tmp -o t.sh https://e.example/x", "/tmp/t.sh"),
            (
                "aria2c --dir=bin --out=t https://e.example/x",
                "/home/dev/project/bin/t",
            ),
            ("axel -o /tmp/a.bin https://e.example/x", "/tmp/a.bin"),
            ("fetch https://e.example/i.sh", "/home/dev/project/i.sh"),
            (
                "fetch -o run https://e.example/i.sh",
                "/home/dev/project/run",
            ),
            ("lwp-download https://e.example/x.pl /tmp/x.pl", "/tmp/x.pl"),
            (
                "lwp-download https://e.example/x.pl",
                "/home/dev/project/x.pl",
            ),
            (
                "http --download https://e.example/k.sh",
                "/home/dev/project/k.sh",
            ),
            (
                "xh -o out.sh https://e.example/k",
                "/home/dev/project/out.sh",
            ),
        ] {
            let w = writes(&analysis(vec![cmd(line)]), &scope());
            assert_eq!(w.len(), 1, "{line}: {w:?}");
            assert_eq!(w[0].path, p(want), "{line}");
            assert!(w[0].from_network, "{line}");
        }
        for line in [
            "http https://e.example/api",
            "xh get https://e.example/k",
            "fetch -o - https://e.example/i.sh",
        ] {
            let w = writes(&analysis(vec![cmd(line)]), &scope());
            assert!(w.is_empty(), "{line}: {w:?}");
        }
    }

    /// A cloud copy from a bucket or remote into a local path writes it with content from the
    /// network, options and all; an upload, a copy to stdout and a bucket-to-bucket copy write
    /// nothing here.
    #[test]
    fn cloud_copies_download_into_their_local_destination() {
        for (line, want) in [
            (
                "aws s3 cp s3://b/k ~/.aws/credentials",
                "/home/dev/.aws/credentials",
            ),
            (
                "aws --profile p s3 cp s3://b/k out.bin",
                "/home/dev/project/out.bin",
            ),
            (
                "aws s3 sync s3://b/site ./public",
                "/home/dev/project/public",
            ),
            (
                "gsutil -m cp gs://b/m.bin models/",
                "/home/dev/project/models",
            ),
            ("gcloud storage cp gs://b/x /tmp/x", "/tmp/x"),
            (
                "rclone copyto remote:cron/job /etc/cron.d/job",
                "/etc/cron.d/job",
            ),
        ] {
            let w = writes(&analysis(vec![cmd(line)]), &scope());
            assert_eq!(w.len(), 1, "{line}: {w:?}");
            assert_eq!(w[0].path, p(want), "{line}");
            assert!(w[0].from_network, "{line}");
        }
        for line in [
            "aws s3 cp dist/app.js s3://b/app.js",
            "aws s3 cp s3://b/k -",
            "aws s3 cp s3://a/k s3://b/k",
            "aws s3 ls s3://b/",
        ] {
            let w = writes(&analysis(vec![cmd(line)]), &scope());
            assert!(w.is_empty(), "{line}: {w:?}");
        }
    }

    #[test]
    fn chmod_patch_sed_dd_truncate() {
        let w = writes(&analysis(vec![cmd("chmod +x a.sh b.sh")]), &scope());
        assert_eq!(w.len(), 2);
        assert_eq!(w[0].how, "chmod +x");
        assert_eq!(
            writes(&analysis(vec![cmd("chmod 755 a")]), &scope()).len(),
            1
        );
        assert_eq!(
            writes(&analysis(vec![cmd("chmod u+rwx,go-w a")]), &scope()).len(),
            1
        );
        assert!(writes(&analysis(vec![cmd("chmod 644 a")]), &scope()).is_empty());
        assert!(writes(&analysis(vec![cmd("chmod -x a")]), &scope()).is_empty());

        let w = writes(&analysis(vec![cmd("git apply fix.patch")]), &scope());
        assert_eq!(w[0].how, "patch");
        assert_eq!(w[0].path, p("/home/dev/project/fix.patch"));
        let c = redirect(cmd("patch -p1"), RedirectKind::Read, "fix.diff");
        let w = writes(&analysis(vec![c]), &scope());
        assert_eq!(w[0].source, Some(p("/home/dev/project/fix.diff")));

        let w = writes(&analysis(vec![cmd("sed -i s/a/b/ run.sh")]), &scope());
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].path, p("/home/dev/project/run.sh"));
        let w = writes(&analysis(vec![cmd("sed -i -e s/a/b/ x y")]), &scope());
        assert_eq!(w.len(), 2);
        assert!(writes(&analysis(vec![cmd("sed s/a/b/ x")]), &scope()).is_empty());

        // In-place editors rewrite their file operands, not their commands or programs.
        let paths = |line: &str| -> Vec<PathBuf> {
            writes(&analysis(vec![cmd(line)]), &scope())
                .into_iter()
                .map(|w| w.path)
                .collect()
        };
        let proj = |f: &str| p(&format!("/home/dev/project/{f}"));
        assert_eq!(paths("vim -es -c %d -c wq +1 a.txt"), vec![proj("a.txt")]);
        assert_eq!(paths("ed -p '>' a.txt"), vec![proj("a.txt")]);
        assert_eq!(paths("sponge out.txt"), vec![proj("out.txt")]);
        assert_eq!(
            paths("gawk -i inplace {print} a b"),
            vec![proj("a"), proj("b")]
        );
        assert_eq!(paths("gawk -i inplace -f prog.awk a"), vec![proj("a")]);
        assert_eq!(paths("ruby -i -pe gsub(/a/,'b') a.rb"), vec![proj("a.rb")]);
        assert!(paths("gawk {print} a").is_empty());
        assert!(paths("ruby -e puts(1)").is_empty());

        let w = writes(
            &analysis(vec![cmd("dd if=/dev/zero of=disk.img bs=1M")]),
            &scope(),
        );
        assert_eq!(w[0].path, p("/home/dev/project/disk.img"));
        let w = writes(&analysis(vec![cmd("truncate -s 0 log.txt")]), &scope());
        assert_eq!(w[0].content.as_deref(), Some(""));
    }

    #[test]
    fn command_cwd_applies() {
        let mut c = redirect(cmd("echo hi"), RedirectKind::Write, "x.sh");
        c.cwd = Some("sub".into());
        let w = writes(&analysis(vec![c]), &scope());
        assert_eq!(w[0].path, p("/home/dev/project/sub/x.sh"));
    }

    fn ex(cmds: Vec<Command>) -> Vec<(PathBuf, Option<Language>)> {
        executions(&shell_call(cmds), &scope())
            .into_iter()
            .map(|e| (e.path, e.language))
            .collect()
    }

    #[test]
    fn interpreters_and_paths() {
        let x = p("/home/dev/project/x.sh");
        assert_eq!(
            ex(vec![cmd("bash x.sh")]),
            vec![(x.clone(), Some(Language::Shell))]
        );
        assert_eq!(
            ex(vec![cmd("sh -e -o pipefail x.sh arg")]),
            vec![(x.clone(), Some(Language::Shell))]
        );
        assert!(ex(vec![cmd("bash -c x.sh")]).is_empty());
        assert_eq!(ex(vec![cmd("./x.sh")]), vec![(x.clone(), None)]);
        assert_eq!(
            ex(vec![cmd("source x.sh")]),
            vec![(x.clone(), Some(Language::Shell))]
        );
        assert_eq!(
            ex(vec![cmd(". ./x.sh")]),
            vec![(x.clone(), Some(Language::Shell))]
        );
        assert_eq!(
            ex(vec![cmd("python3 -u t.py")]),
            vec![(p("/home/dev/project/t.py"), Some(Language::Python))]
        );
        assert!(ex(vec![cmd("python3 -m pytest")]).is_empty());
        // Files loaded by convention from the directory the tool runs in.
        let conv = |line: &str| -> Vec<PathBuf> {
            ex(vec![cmd(line)]).into_iter().map(|(p, _)| p).collect()
        };
        assert!(conv("pytest -q").contains(&p("/home/dev/project/conftest.py")));
        assert!(conv("pytest").contains(&p("/home/dev/project/tests/conftest.py")));
        assert!(conv("just build").contains(&p("/home/dev/project/justfile")));
        assert!(conv("just -d sub").contains(&p("/home/dev/project/sub/Justfile")));
        assert!(conv("just --list").is_empty());
        assert_eq!(
            conv("composer install"),
            vec![p("/home/dev/project/composer.json")]
        );
        assert_eq!(
            conv("composer -d api run-script test"),
            vec![p("/home/dev/project/api/composer.json")]
        );
        assert!(conv("composer show -i").is_empty());
        assert!(conv("composer install --no-scripts").is_empty());
        assert!(conv("deno task dev").contains(&p("/home/dev/project/deno.jsonc")));
        assert!(conv("mix test").contains(&p("/home/dev/project/mix.exs")));
        assert!(conv("bundle install").contains(&p("/home/dev/project/Gemfile")));
        assert!(conv("sbt compile").contains(&p("/home/dev/project/build.sbt")));
        assert!(conv("pnpm install").contains(&p("/home/dev/project/.pnpmfile.cjs")));
        assert_eq!(
            conv("foreman start web"),
            vec![p("/home/dev/project/Procfile")]
        );
        assert_eq!(
            conv("honcho -f Procfile.dev start"),
            vec![p("/home/dev/project/Procfile.dev")]
        );
        assert!(conv("heroku local").contains(&p("/home/dev/project/Procfile")));
        assert!(conv("foreman check").is_empty());
        assert_eq!(
            conv("just -f ci.just"),
            vec![p("/home/dev/project/ci.just")]
        );
        assert!(conv("direnv allow").contains(&p("/home/dev/project/.envrc")));
        assert!(conv("Rscript run.R").contains(&p("/home/dev/project/.Rprofile")));
        assert!(!conv("Rscript --vanilla run.R").contains(&p("/home/dev/project/.Rprofile")));
        assert!(conv("irb").contains(&p("/home/dev/project/.irbrc")));
        assert!(
            conv("devcontainer up --workspace-folder .")
                .contains(&p("/home/dev/project/.devcontainer/devcontainer.json"))
        );
        assert_eq!(
            conv("devcontainer run-user-commands --config ci/dc.json"),
            vec![p("/home/dev/project/ci/dc.json")]
        );
        assert!(conv("devcontainer read-configuration").is_empty());
        let built = conv("dotnet build src/App/App.csproj");
        assert!(built.contains(&p("/home/dev/project/src/App/App.csproj")));
        assert!(built.contains(&p("/home/dev/project/src/Directory.Build.props")));
        assert!(built.contains(&p("/home/dev/project/Directory.Build.targets")));
        assert!(conv("dotnet run --project src/App").contains(&p("/home/dev/project/src/App")));
        assert!(conv("dotnet --info").is_empty());
        assert!(conv("dotnet nuget list source").is_empty());
        assert_eq!(
            conv("pip install -e ."),
            vec![p("/home/dev/project/setup.py")]
        );
        assert!(conv("pip install requests").is_empty());
        // A build of the project runs setup.py through the build backend.
        for line in [
            "uv build",
            "pip wheel . -w dist",
            "pipx install .",
            "pyproject-build",
        ] {
            assert_eq!(conv(line), vec![p("/home/dev/project/setup.py")], "{line}");
        }
        let mut build = cmd("build --wheel");
        build.wrappers = vec!["python -m".into()];
        assert!(
            ex(vec![build])
                .into_iter()
                .any(|(path, _)| path == p("/home/dev/project/setup.py"))
        );
        assert!(conv("build --wheel").is_empty());
        assert!(ex(vec![cmd("python3 -c print(1)")]).is_empty());
        let mut inline = cmd("python3 -c");
        inline
            .args
            .push(Word::literal("import os; os.system('./x.sh')"));
        // What it imports is looked for in the working directory first (`os.py` there would
        // shadow the library's), then what it runs.
        assert_eq!(
            ex(vec![inline]),
            vec![
                (p("/home/dev/project/os.py"), Some(Language::Python)),
                (
                    p("/home/dev/project/os/__init__.py"),
                    Some(Language::Python)
                ),
                (x.clone(), None)
            ]
        );
        assert_eq!(
            imported_modules("import a.b, c\nfrom d.e import f; import g"),
            ["a", "c", "d", "g"]
        );
        assert!(imported_modules("from . import x").is_empty());
        assert_eq!(
            ex(vec![cmd("busybox sh x.sh")]),
            vec![(x.clone(), Some(Language::Shell))]
        );
        assert_eq!(
            ex(vec![cmd("node --require dotenv/config a.js")])[0].0,
            p("/home/dev/project/a.js")
        );
        assert_eq!(ex(vec![cmd("ruby a.rb")])[0].1, Some(Language::Ruby));
        assert_eq!(ex(vec![cmd("perl -w a.pl")])[0].1, Some(Language::Perl));
        assert_eq!(ex(vec![cmd("php a.php")])[0].1, Some(Language::Php));
        assert_eq!(
            ex(vec![cmd("deno run --allow-all a.ts")])[0].0,
            p("/home/dev/project/a.ts")
        );
        assert_eq!(
            ex(vec![cmd("npx tsx a.ts")])[0].0,
            p("/home/dev/project/a.ts")
        );
        assert_eq!(ex(vec![cmd("/opt/tool/run")])[0].0, p("/opt/tool/run"));
        // Wrapped commands arrive unwrapped; the wrapper list changes nothing.
        let mut c = cmd("bash x.sh");
        c.wrappers = vec!["sudo".into()];
        c.privileged = true;
        assert_eq!(ex(vec![c])[0].0, x);
        // Code fed on stdin from a file.
        let c = redirect(cmd("sh"), RedirectKind::Read, "x.sh");
        assert_eq!(ex(vec![c])[0].0, x);
        let mut sh = cmd("bash");
        sh.stdin_from = Some(0);
        assert_eq!(ex(vec![cmd("cat x.sh"), sh])[0].0, x);
    }

    #[test]
    fn config_files_tools_read() {
        let run = |line: &str| executions_in(&crate::shell::analyse(line), &scope());
        let has = |line: &str, path: &str, lang: Language| {
            run(line)
                .iter()
                .any(|e| e.path == p(path) && e.language == Some(lang))
        };
        // git: hook managers on commit, CI workflows on push, the config on every command.
        assert!(has(
            "git commit -m x",
            "/home/dev/project/.pre-commit-config.yaml",
            Language::HookConfig
        ));
        assert!(has(
            "git commit -m x",
            "/home/dev/project/.husky/pre-commit",
            Language::Shell
        ));
        let push = run("git -C /home/dev/project push origin main");
        let wf = push
            .iter()
            .find(|e| e.path == p("/home/dev/project/.github/workflows"))
            .unwrap();
        assert!(wf.directory);
        assert!(has(
            "git push",
            "/home/dev/project/.gitlab-ci.yml",
            Language::CiWorkflow
        ));
        assert!(!has(
            "git commit",
            "/home/dev/project/.gitlab-ci.yml",
            Language::CiWorkflow
        ));
        let sync = run("git sync");
        let cfg = sync
            .iter()
            .find(|e| e.path == p("/home/dev/project/.git/config"))
            .unwrap();
        assert_eq!(cfg.sections, vec!["git", "alias.sync"]);
        assert!(has(
            "git status",
            "/home/dev/.gitconfig",
            Language::GitConfig
        ));
        assert!(has(
            "pre-commit run --all-files",
            "/home/dev/project/.pre-commit-config.yaml",
            Language::HookConfig
        ));
        // pytest: settings and `-p` plugins (also from the environment).
        assert!(has(
            "pytest",
            "/home/dev/project/pyproject.toml",
            Language::PytestConfig
        ));
        assert!(has(
            "pytest -c ci/pytest.ini",
            "/home/dev/project/ci/pytest.ini",
            Language::PytestConfig
        ));
        assert!(has(
            "pytest -p plug.x",
            "/home/dev/project/plug/x.py",
            Language::Python
        ));
        assert!(has(
            "PYTEST_PLUGINS=a,b pytest",
            "/home/dev/project/b.py",
            Language::Python
        ));
        assert!(!has(
            "pytest -p no:cacheprovider",
            "/home/dev/project/no:cacheprovider.py",
            Language::Python
        ));
        // The tests it collects: named files, else test modules under the directories.
        assert!(has(
            "pytest tests/test_a.py::test_x",
            "/home/dev/project/tests/test_a.py",
            Language::Python
        ));
        let t = run("pytest -k fast tests/unit");
        let d = t
            .iter()
            .find(|e| e.path == p("/home/dev/project/tests/unit"))
            .unwrap();
        assert!(d.directory);
        // SQL clients.
        for line in [
            "psql -f db/x.sql",
            "psql --file=db/x.sql app",
            "mysql app < db/x.sql",
            "cat db/x.sql | sqlite3 app.db",
            "sqlite3 app.db '.read db/x.sql'",
            "psql -c '\\i db/x.sql'",
        ] {
            assert!(
                has(line, "/home/dev/project/db/x.sql", Language::Sql),
                "{line}"
            );
        }
        assert!(run("mysql -f app").is_empty());
        // Notebooks run, not converted.
        assert!(has(
            "jupyter nbconvert --to html --execute a.ipynb",
            "/home/dev/project/a.ipynb",
            Language::Notebook
        ));
        assert!(run("jupyter nbconvert --to html a.ipynb").is_empty());
        let pm = run("papermill in.ipynb out.ipynb -p n 1");
        assert_eq!(pm.len(), 1);
        assert_eq!(pm[0].path, p("/home/dev/project/in.ipynb"));
        // Compose: defaults with overrides, `-f` files, services as sections.
        assert!(has(
            "docker compose up -d",
            "/home/dev/project/compose.override.yaml",
            Language::Compose
        ));
        let c = run("docker compose -f ops/c.yml -f ops/d.yml run --rm -e X=1 app sh");
        assert_eq!(c.len(), 2);
        assert_eq!(c[1].path, p("/home/dev/project/ops/d.yml"));
        assert_eq!(c[0].sections, vec!["app"]);
        assert!(run("docker compose ps").is_empty());
        assert!(has(
            "docker-compose up web db",
            "/home/dev/project/docker-compose.yml",
            Language::Compose
        ));
    }

    #[test]
    fn git_config_writes_are_fragments() {
        let w = |line: &str| config_writes(&crate::shell::analyse(line), &scope());
        let x = w("git config alias.x '!rm -rf ~'");
        assert_eq!(x.len(), 1);
        assert_eq!(x[0].path, p("/home/dev/project/.git/config"));
        assert_eq!(
            x[0].content.as_deref(),
            Some("[alias]\n\tx = \"!rm -rf ~\"\n")
        );
        assert!(x[0].append);
        let g = w("git config --global diff.lock.textconv 'cat \"x\"'");
        assert_eq!(g[0].path, p("/home/dev/.gitconfig"));
        assert_eq!(
            g[0].content.as_deref(),
            Some("[diff \"lock\"]\n\ttextconv = \"cat \\\"x\\\"\"\n")
        );
        assert_eq!(w("git config set core.pager less").len(), 1);
        assert!(w("git config --get alias.x").is_empty());
        assert!(w("git config user.name").is_empty());
        assert!(w("git config --unset alias.x").is_empty());
        assert!(w("git config remote.origin.url https://e.example/x").is_empty());
        assert!(w("git status").is_empty());
    }

    /// `kubectl create secret|configmap --from-file=[KEY=]PATH` and `--from-env-file PATH`
    /// read the file into the cluster object; a literal reads nothing.
    #[test]
    fn kubectl_from_file_reads_the_file() {
        let reads = |line: &str| read_paths(&cmd(line), &scope());
        assert_eq!(
            reads("kubectl create secret generic k --from-file=ssh=/home/dev/.ssh/id_rsa"),
            vec![p("/home/dev/.ssh/id_rsa")]
        );
        assert_eq!(
            reads("oc create configmap c --from-file config/app.yaml --from-env-file=.env"),
            vec![
                p("/home/dev/project/config/app.yaml"),
                p("/home/dev/project/.env")
            ]
        );
        assert!(reads("kubectl create secret generic x --from-literal=a=b").is_empty());
    }

    /// `bun run x.ts` runs package.json's script of that name if there is one, else the file:
    /// both are runs; `bun run dev` only the script.
    #[test]
    fn bun_run_of_a_file_runs_the_file() {
        let paths = |line: &str| -> Vec<PathBuf> {
            executions(&shell_call(vec![cmd(line)]), &scope())
                .into_iter()
                .map(|e| e.path)
                .collect()
        };
        for line in ["bun run clean.ts", "bun run ./clean.ts"] {
            let got = paths(line);
            assert!(
                got.contains(&p("/home/dev/project/clean.ts")),
                "{line}: {got:?}"
            );
            assert!(
                got.contains(&p("/home/dev/project/package.json")),
                "{line}: {got:?}"
            );
        }
        assert_eq!(
            paths("bun run dev"),
            vec![p("/home/dev/project/package.json")]
        );
        assert_eq!(paths("bun clean.ts"), vec![p("/home/dev/project/clean.ts")]);
    }

    /// A package manager's folder and workspace options name the package.json it runs, and
    /// their values are not read as the script's name.
    #[test]
    fn package_managers_run_the_package_their_options_name() {
        let run = |line: &str| {
            let e = executions(&shell_call(vec![cmd(line)]), &scope());
            e.into_iter()
                .map(|e| (e.path, e.sections))
                .collect::<Vec<_>>()
        };
        let web = p("/home/dev/project/web/package.json");
        for (line, script) in [
            ("npm --prefix web test", "test"),
            ("npm test --prefix=web", "test"),
            ("npm run build -w web", "build"),
            ("npm run build --workspace ./web", "build"),
            ("yarn --cwd web build", "build"),
            ("pnpm -C web build", "build"),
            ("pnpm --filter ./web run build", "build"),
            ("pnpm -F web build", "build"),
        ] {
            let got = run(line);
            let manifests: Vec<_> = got
                .iter()
                .filter(|(p, _)| p.ends_with("package.json"))
                .collect();
            assert_eq!(manifests.len(), 1, "{line}: {got:?}");
            assert_eq!(manifests[0].0, web, "{line}");
            assert!(
                manifests[0].1.contains(&script.to_string()),
                "{line}: {got:?}"
            );
        }
        assert_eq!(run("npm test")[0].0, p("/home/dev/project/package.json"));
    }

    #[test]
    fn build_tools_and_hooks() {
        let e = executions(&shell_call(vec![cmd("make -C sub test")]), &scope());
        assert!(
            e.iter()
                .any(|e| e.path == p("/home/dev/project/sub/Makefile"))
        );
        let e = executions(&shell_call(vec![cmd("make -f build.mk")]), &scope());
        assert_eq!(e[0].path, p("/home/dev/project/build.mk"));
        let e = executions(
            &shell_call(vec![cmd("make -j 4 -C sub test lint PY=python3")]),
            &scope(),
        );
        assert_eq!(e[0].sections, vec!["test", "lint"]);
        assert_eq!(
            e[0].defines,
            vec![("PY".to_string(), "python3".to_string())]
        );
        let e = executions(&shell_call(vec![cmd("npm test")]), &scope());
        assert_eq!(e[0].path, p("/home/dev/project/package.json"));
        assert_eq!(e[0].sections, vec!["pretest", "test", "posttest"]);
        let e = executions(&shell_call(vec![cmd("npm run build")]), &scope());
        assert_eq!(e[0].sections, vec!["prebuild", "build", "postbuild"]);
        let e = executions(&shell_call(vec![cmd("yarn lint")]), &scope());
        assert_eq!(e[0].sections[1], "lint");
        let e = executions(&shell_call(vec![cmd("npm ci")]), &scope());
        assert!(e[0].sections.contains(&"postinstall".to_string()));
        assert!(executions(&shell_call(vec![cmd("npm view react")]), &scope()).is_empty());
        let e = executions(&shell_call(vec![cmd("git commit -m x")]), &scope());
        assert!(
            e.iter()
                .any(|e| e.path == p("/home/dev/project/.git/hooks/pre-commit"))
        );
        // `git status` runs no hook, only what the git config names (`core.fsmonitor`).
        assert!(
            executions(&shell_call(vec![cmd("git status")]), &scope())
                .iter()
                .all(|e| e.language == Some(Language::GitConfig))
        );
        let e = executions(&shell_call(vec![cmd("git push origin main")]), &scope());
        assert_eq!(e[0].path, p("/home/dev/project/.git/hooks/pre-push"));
    }
    #[test]
    fn python_project_runners_run_a_task_of_pyproject_by_name() {
        let pyproject = p("/home/dev/project/pyproject.toml");
        let tasks = |line: &str| -> Vec<(String, Vec<String>)> {
            executions_in(&crate::shell::analyse(line), &scope())
                .into_iter()
                .filter(|e| e.path == pyproject)
                .map(|e| (e.how, e.sections))
                .collect()
        };
        let one = |how: &str, task: &str| vec![(how.to_string(), vec![task.to_string()])];
        assert_eq!(tasks("poe clean"), one("poe", "clean"));
        assert_eq!(tasks("pdm run clean"), one("pdm run", "clean"));
        assert_eq!(tasks("hatch run test:cov"), one("hatch run", "cov"));
        assert_eq!(tasks("rye run serve"), one("rye run", "serve"));
        assert_eq!(
            tasks("cd sub && poe lint").len(),
            0,
            "another directory's file"
        );
        assert!(tasks("poe --help").is_empty());
        // pytest and tox read the settings and tox's commands, no runner's task.
        for line in ["pytest -q", "tox -e py312"] {
            let runs = tasks(line);
            assert!(!runs.is_empty(), "{line}");
            assert!(
                runs.iter().all(|(_, s)| s == &vec![String::new()]),
                "{line}: {runs:?}"
            );
        }
    }

    #[test]
    fn build_tools_run_their_build_files() {
        // (path, directory) of each run of the line.
        let runs = |line: &str| -> Vec<(String, bool)> {
            executions_in(&crate::shell::analyse(line), &scope())
                .into_iter()
                .map(|e| (e.path.to_string_lossy().into_owned(), e.directory))
                .collect()
        };
        let file = |line: &str, path: &str| runs(line).contains(&(path.to_string(), false));
        let dir = |line: &str, path: &str| runs(line).contains(&(path.to_string(), true));
        let p = "/home/dev/project";
        assert!(dir("task build", p));
        assert!(dir("cd sub && task", &format!("{p}/sub")));
        assert!(dir("cd sub && task", p));
        assert!(dir("task -d /srv/web lint", "/srv/web"));
        assert!(file("task -t ci/Tasks.yml", &format!("{p}/ci/Tasks.yml")));
        assert!(file("task -g up", "/home/dev/Taskfile.yml"));
        assert!(!dir("task -g up", "/home/dev"));
        assert!(dir("cmake -S src -B build", &format!("{p}/src")));
        assert!(dir("cd build && cmake ..", p));
        assert!(dir("/usr/bin/cmake --build build", p));
        assert!(file(
            "cmake -P tools/gen.cmake",
            &format!("{p}/tools/gen.cmake")
        ));
        assert!(runs("cmake -E rm -rf build").is_empty());
        assert!(dir("./gradlew test", p));
        assert!(dir("gradle -p lib build", p));
        assert!(dir("gradle --project-dir /tmp/lib build", "/tmp/lib"));
        assert!(file("gradle -I ci.gradle build", &format!("{p}/ci.gradle")));
        assert!(dir("gradle build", "/home/dev/.gradle/init.d"));
        assert!(runs("gradle --version").is_empty());
        assert!(dir("mvn -q package", p));
        assert!(dir("mvn -f api verify", &format!("{p}/api")));
        assert!(file("mvn -f api verify", &format!("{p}/pom.xml")));
        assert!(file(
            "mvn -f ci/pom-ci.xml verify",
            &format!("{p}/ci/pom-ci.xml")
        ));
        assert!(dir("sh gradlew build", p));
        assert!(file("sh gradlew build", &format!("{p}/gradlew")));
        assert!(dir("bash ./mvnw -B test", p));
        assert!(dir("go test ./...", p));
        assert!(dir(
            "go test -run TestX -count=1 ./pkg/...",
            &format!("{p}/pkg")
        ));
        assert!(dir("go -C tools generate ./...", &format!("{p}/tools")));
        assert!(file("go run main.go -v", &format!("{p}/main.go")));
        assert!(dir(
            "timeout 60 go run ./cmd/app serve",
            &format!("{p}/cmd/app")
        ));
        assert!(runs("go build ./...").is_empty());
        assert!(runs("go test net/http").is_empty());
        // A crate's run, test or bench runs its own code; a build runs its build script only.
        for line in [
            "cargo run",
            "cargo test --release",
            "cargo r -- --help",
            "cargo bench",
        ] {
            assert!(dir(line, p), "{line}");
        }
        assert!(!dir("cargo build", p));
        assert!(file("cargo build", &format!("{p}/build.rs")));
        // The Java launcher runs a source file; a jar was built elsewhere, a class is looked
        // up (judged only if the session's javac wrote it).
        assert!(file("java Main.java arg", &format!("{p}/Main.java")));
        assert!(file(
            "java -cp lib/a.jar src/Main.java",
            &format!("{p}/src/Main.java")
        ));
        assert!(runs("java -jar app.jar Main.java").is_empty());
        assert!(file(
            "java -cp build Main",
            &format!("{p}/build/Main.class")
        ));
        // pip installs what its requirements files name.
        assert!(file(
            "pip install -r requirements-dev.txt",
            &format!("{p}/requirements-dev.txt")
        ));
        assert!(file(
            "python3 -m pip install --requirement=req/base.txt",
            &format!("{p}/req/base.txt")
        ));
        assert!(file(
            "uv pip install -c constraints.txt flask",
            &format!("{p}/constraints.txt")
        ));
        assert!(file("pip-sync", &format!("{p}/requirements.txt")));
        assert!(runs("pip install flask").is_empty());
        // Python's start-up modules, from a PYTHONPATH set for the command.
        assert!(file(
            "PYTHONPATH=. python3 -c 1",
            &format!("{p}/sitecustomize.py")
        ));
        assert!(file(
            "PYTHONPATH=lib:/opt/x python app.py",
            "/opt/x/usercustomize.py"
        ));
        assert!(!file("python3 app.py", &format!("{p}/sitecustomize.py")));
    }

    #[test]
    fn programs_run_the_files_they_load_by_name_or_find_on_the_path() {
        let runs = |line: &str| -> Vec<(String, bool)> {
            executions_in(&crate::shell::analyse(line), &scope())
                .into_iter()
                .map(|e| (e.path.to_string_lossy().into_owned(), e.looked_up))
                .collect()
        };
        let has = |line: &str, path: &str| runs(line).contains(&(path.to_string(), true));
        assert!(has("npx jest", "/home/dev/project/jest.config.js"));
        assert!(has("npx jest", "/home/dev/project/node_modules/.bin/jest"));
        assert!(has("rake test", "/home/dev/project/Rakefile"));
        assert!(has(
            "PATH=./bin:$PATH git status",
            "/home/dev/project/bin/git"
        ));
        // No lookup past an unknown part of the path, and none on the search path for a
        // program named by path; its own files it loads all the same.
        assert!(!has(
            "PATH=$X:./bin git status",
            "/home/dev/project/bin/git"
        ));
        assert!(runs("ls -la").is_empty());
        assert!(runs("./jest").contains(&("/home/dev/project/jest".to_string(), false)));
        assert!(has(
            "/usr/local/bin/jest --ci",
            "/home/dev/project/jest.config.js"
        ));
    }
}
