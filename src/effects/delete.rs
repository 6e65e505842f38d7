//! The deletes of a shell line, as `Effect::Delete`: what each removes (a path with how much
//! of it a glob covers, what `find` selects under a start, a target not known until it runs,
//! or whatever standard input names) and whether whole trees go. Computed once here so that
//! the destructive rules judge the effect, whichever wrapper (`sudo`, `xargs`, `find -exec`,
//! `bash -c`) or tool (an MCP delete tool, modelled as `rm`) hides the command.

use super::Effect;
use crate::call::{DeleteTarget, NameMatch, NameTest, Scope, Span};
use crate::fileops::word_path;
use crate::shell::{Command, ShellAnalysis, Word};

/// Programs that remove the files they are given.
const REMOVERS: &[&str] = &[
    "rm",
    "rmdir",
    "unlink",
    "shred",
    "srm",
    "trash",
    "trash-put",
];

/// Programs that remove whole trees whatever their options: Node's `rimraf` and `del-cli`
/// (`npx rimraf dist`), `rm -rf` by another name.
const TREE_REMOVERS: &[&str] = &["rimraf", "del-cli"];

/// `how` of `find`'s own `-delete` action.
pub const FIND_DELETE: &str = "find -delete";

/// `find` tests that narrow what it selects: a find with none of them (`-type` alone does not
/// narrow, nor `-name '*'`) selects everything under its starts.
const FIND_TESTS: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-lname",
    "-ilname",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-newer",
    "-anewer",
    "-cnewer",
    "-newermt",
    "-size",
    "-empty",
    "-user",
    "-group",
    "-perm",
    "-links",
    "-inum",
    "-samefile",
    "-uid",
    "-gid",
    "-nouser",
    "-nogroup",
    "-prune",
    "-used",
];

/// The deletes command `i` of `analysis` makes, appended to `out`.
pub(super) fn effects(analysis: &ShellAnalysis, i: usize, scope: &Scope, out: &mut Vec<Effect>) {
    let Some(c) = analysis.commands.get(i) else {
        return;
    };
    if source_removals(c, scope, out) {
        return;
    }
    let p = c.program.as_str();
    let ops = crate::vocab::operands(c);
    // A file emptied is as lost as one removed, when what is emptied is whatever a `find`
    // hands over (`find / -type f -exec truncate -s 0 {} +`, `find ~ | xargs cp /dev/null`):
    // judged as the same find's delete. One file emptied by name stays a write.
    let exec_find = exec_parent(analysis, i);
    let fed = c.args_from_stdin || exec_find.is_some();
    let wiped = if fed { wiped_files(c) } else { None };
    let targets: &[&Word] = match p {
        _ if REMOVERS.contains(&p) || TREE_REMOVERS.contains(&p) => &ops,
        _ if wiped.is_some() => wiped.as_deref().unwrap_or_default(),
        // `gio trash PATH…`, `gio remove PATH…`.
        "gio" if matches!(c.subcommand(), Some("trash" | "remove")) => {
            ops.get(1..).unwrap_or_default()
        }
        // `git rm PATH…` removes from the work tree too, unless only from the index.
        "git"
            if crate::vocab::subcommand(c) == Some("rm")
                && !c.has_flag(None, &["cached"])
                && !c.has_flag(Some('n'), &["dry-run"]) =>
        {
            ops.get(1..).unwrap_or_default()
        }
        "find" => {
            if c.args.iter().any(|a| a.text == "-delete") {
                let select = Select::of(c);
                for start in find_starts(c) {
                    out.push(found(&start, c, scope, &select, true, FIND_DELETE));
                }
            }
            return;
        }
        _ => return,
    };
    let recursive = TREE_REMOVERS.contains(&p)
        || c.has_flag(Some('r'), &["recursive"])
        || c.has_flag(Some('R'), &[]);
    let how = if p == "git" { "git rm" } else { p };
    let delete = |target, names| Effect::Delete {
        target,
        recursive,
        how: how.to_string(),
        names,
    };
    if c.args_from_stdin {
        // `find DIR … | xargs rm`: the names come from what find lists under its starts.
        let fed = find_fed(c, analysis, scope);
        let (listed, names) = match &fed {
            Some((find, listed)) => (listed.clone(), Select::of(find).names),
            None => Default::default(),
        };
        out.push(delete(DeleteTarget::Stdin { listed }, names));
        // And what goes is what the lister selects, judged as `find … -delete` is: `find .
        // -type f | xargs rm` and `git ls-files | xargs rm` empty the project.
        if let Some((find, _)) = fed {
            let select = Select::of(find);
            for s in find_starts(find) {
                out.push(found(&s, find, scope, &select, recursive, p));
            }
        } else if let Some((git, select)) = ls_files_fed(c, analysis) {
            let here = Word {
                text: ".".into(),
                dynamic: false,
                glob: false,
            };
            out.push(found(&here, git, scope, &select, recursive, p));
        }
    }
    // Run by `find … -exec`: an operand that is one of find's starts (`{}`) removes what find
    // selects under it, not the start alone. `rmdir` removes only empty directories, a
    // filter of its own (as `-empty` is).
    let parent = exec_find.map(|f| {
        let mut select = Select::of(f);
        select.filtered |= p == "rmdir";
        (find_starts(f), select)
    });
    for w in targets {
        if let Some((starts, select)) = &parent {
            if w.text.contains("{}") {
                // Not expanded (too many starts): each start's selection.
                for s in starts {
                    out.push(found(s, c, scope, select, recursive, p));
                }
                continue;
            }
            if starts.iter().any(|s| s.text == w.text) {
                out.push(found(w, c, scope, select, recursive, p));
                continue;
            }
        }
        let (path, span) = match word_path(w, c, scope) {
            Some((path, span)) => (Some(path), span),
            None => (None, Span::Exact),
        };
        // `rm link` removes the link, not what it points to (`shred` overwrites that).
        let path = match path {
            Some(p) if !matches!(how, "shred" | "srm") => {
                Some(link_itself(w, c, scope).unwrap_or(p))
            }
            other => other,
        };
        out.push(delete(
            DeleteTarget::Named {
                written: w.text.clone(),
                path,
                span,
            },
            Vec::new(),
        ));
    }
}

/// The link a word names, when its last component is a symbolic link on disk: what `rm`,
/// `unlink` or `git rm` removes, its parent directory resolved and the link kept. `None` for a
/// word that goes through its last component (`link/`, `link/.`), a glob, a word not known
/// statically, or off the disk. (`mv link x` moves the link as well.)
pub(super) fn link_itself(w: &Word, c: &Command, scope: &Scope) -> Option<std::path::PathBuf> {
    if !scope.paths.follow_symlinks || w.glob || w.dynamic {
        return None;
    }
    let text = w.text.as_str();
    if text.ends_with('/') || text.ends_with("/.") || matches!(text, "." | ".." | "~") {
        return None;
    }
    let (parent, name) = match text.rsplit_once('/') {
        Some(("", name)) => ("/", name),
        Some((parent, name)) => (parent, name),
        None => (".", text),
    };
    if matches!(name, "" | "." | "..") {
        return None;
    }
    let candidate = crate::fileops::resolve_for(scope, c, parent).join(name);
    std::fs::symlink_metadata(&candidate)
        .is_ok_and(|m| m.file_type().is_symlink())
        .then_some(candidate)
}

/// The files command `c` empties, when that is what it does: `truncate -s 0 F…` (or
/// `--size=0`), `cp /dev/null F`.
fn wiped_files(c: &Command) -> Option<Vec<&Word>> {
    match c.program.as_str() {
        "truncate" => {
            let size = c.option_value(Some('s'), &["size"])?;
            (size.trim_start_matches(['<', '>', '/', '%']) == "0")
                .then(|| crate::vocab::operands_skipping(c, "sr", &["size", "reference"]))
        }
        "cp" => {
            let ops = crate::vocab::operands(c);
            match ops.as_slice() {
                [from, to] if from.text == "/dev/null" => Some(vec![*to]),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Archivers and copiers told to remove what they took in (`tar --remove-files`, `zip -m`,
/// `7z a -sdel`, `rsync --remove-source-files`): each source is deleted once copied, so
/// `tar --remove-files -czf /tmp/h.tgz ~` empties the home directory as `rm -rf ~` does.
/// True when `c` is one (its deletes appended to `out`).
fn source_removals(c: &Command, scope: &Scope, out: &mut Vec<Effect>) -> bool {
    let p = c.program.as_str();
    let named = |w: &Word| (w.text.clone(), word_path(w, c, scope));
    let (how, recursive, sources): (&str, bool, Vec<_>) = match p {
        "tar" | "gtar" | "bsdtar" if c.has_flag(None, &["remove-files"]) => {
            let t = crate::vocab::tar_line(c);
            if !t.writes_archive() {
                return false;
            }
            let sources = t
                .members
                .iter()
                .map(|(dir, w)| match (dir, crate::fileops::static_text(w)) {
                    // A member is relative to the `-C` directory before it.
                    (Some(dir), Some(text)) if !text.starts_with(['/', '~']) => {
                        let joined = format!("{dir}/{text}");
                        let span = if w.glob { Span::Pattern } else { Span::Exact };
                        let path = crate::fileops::resolve_for(scope, c, &joined);
                        (w.text.clone(), Some((path, span)))
                    }
                    _ => named(w),
                })
                .collect();
            // tar recurses into the directories it is given unless told not to.
            (
                "tar --remove-files",
                !c.has_flag(None, &["no-recursion"]),
                sources,
            )
        }
        "zip" if c.has_flag(Some('m'), &["move"]) => {
            // `zip [-options] ARCHIVE FILE…`; `-x`/`-i` lists of patterns end the files.
            let end = c
                .args
                .iter()
                .position(|a| matches!(a.text.as_str(), "-x" | "-i" | "--exclude" | "--include"))
                .unwrap_or(c.args.len());
            let ops: Vec<&Word> = crate::vocab::operands(c)
                .into_iter()
                .filter(|w| c.args[..end].iter().any(|a| std::ptr::eq(a, *w)))
                .collect();
            let sources = ops.iter().skip(1).map(|w| named(w)).collect();
            let recursive = c.has_flag(Some('r'), &["recurse-paths"]) || c.has_flag(Some('R'), &[]);
            ("zip -m", recursive, sources)
        }
        "7z" | "7za" | "7zz" | "7zr"
            if c.args.iter().any(|a| a.text.eq_ignore_ascii_case("-sdel")) =>
        {
            // `7z a ARCHIVE FILE…`: the command, the archive, then what goes in.
            let ops = crate::vocab::operands(c);
            if !ops
                .first()
                .is_some_and(|w| matches!(w.text.as_str(), "a" | "u"))
            {
                return false;
            }
            (
                "7z -sdel",
                true,
                ops.iter().skip(2).map(|w| named(w)).collect(),
            )
        }
        "rsync" if c.has_flag(None, &["remove-source-files", "remove-sent-files"]) => {
            let ops = crate::vocab::operands(c);
            let Some((_, srcs)) = ops.split_last() else {
                return false;
            };
            let sources = srcs
                .iter()
                .filter(|w| !w.text.contains("://") && !crate::vocab::is_remote_spec(&w.text))
                .map(|w| named(w))
                .collect();
            let recursive =
                c.has_flag(Some('r'), &["recursive", "archive"]) || c.has_flag(Some('a'), &[]);
            ("rsync --remove-source-files", recursive, sources)
        }
        _ => return false,
    };
    for (written, resolved) in sources {
        let (path, span) = match resolved {
            Some((path, span)) => (Some(path), span),
            None => (None, Span::Exact),
        };
        out.push(Effect::Delete {
            target: DeleteTarget::Named {
                written,
                path,
                span,
            },
            recursive,
            how: how.to_string(),
            names: Vec::new(),
        });
    }
    true
}

/// A delete, by `how` run as `c`, of what `find` selects under `start`.
fn found(
    start: &Word,
    c: &Command,
    scope: &Scope,
    select: &Select,
    recursive: bool,
    how: &str,
) -> Effect {
    Effect::Delete {
        target: DeleteTarget::Named {
            written: start.text.clone(),
            path: word_path(start, c, scope).map(|(p, _)| p),
            span: Span::Found {
                filtered: select.filtered,
            },
        },
        recursive,
        how: how.to_string(),
        names: select.names.clone(),
    }
}

/// For command `i` run by `find … -exec`: the starts `find` walks and the name tests every
/// entry it hands over passes (empty when none narrows it), so a rule can tell which files
/// a writer run on `{}` changes (`find ~/.claude -name settings.json -exec truncate …`).
pub fn exec_selection(
    analysis: &ShellAnalysis,
    i: usize,
) -> Option<(Vec<Word>, Vec<crate::call::NameTest>)> {
    let f = exec_parent(analysis, i)?;
    Some((find_starts(f), Select::of(f).names))
}

/// The name tests every entry `find` command `c` hands over passes (empty when none narrows
/// it): what a reader it feeds (`find ~ -name id_rsa | xargs cat`) reads under each start.
pub fn find_names(c: &Command) -> Vec<crate::call::NameTest> {
    Select::of(c).names
}

/// The `find` whose `-exec`/`-execdir`/`-ok` runs command `i`: the nearest one before it
/// whose wrappers are those of `i` up to the `find -exec…` that runs it.
pub fn exec_parent(analysis: &ShellAnalysis, i: usize) -> Option<&Command> {
    let c = analysis.commands.get(i)?;
    let k = c.wrappers.iter().rposition(|w| w.starts_with("find -"))?;
    analysis.commands[..i]
        .iter()
        .rev()
        .find(|f| f.program == "find" && f.wrappers[..] == c.wrappers[..k])
}

/// A `find`'s starts, each as written and its path when known (`DeleteTarget::Stdin`).
pub type Listed = Vec<(String, Option<std::path::PathBuf>)>;

/// The `find` that feeds command `c` its operands on its input (`find DIR … | xargs CMD`),
/// with each of its starts as written and its path (`None`: not known statically): what it
/// lists, and so what `c` is given. `None` when `c` takes no operands from a `find`.
pub fn find_fed<'a>(
    c: &Command,
    analysis: &'a ShellAnalysis,
    scope: &Scope,
) -> Option<(&'a Command, Listed)> {
    if !c.args_from_stdin {
        return None;
    }
    let find = c
        .stdin_from
        .and_then(|up| analysis.commands.get(up))
        .filter(|up| up.program == "find")?;
    let listed = find_starts(find)
        .iter()
        .map(|s| (s.text.clone(), word_path(s, find, scope).map(|(p, _)| p)))
        .collect();
    Some((find, listed))
}

/// The `git ls-files` that feeds command `c` its operands on its input, with what it selects
/// of the work tree under its directory: everything tracked (or, with `--others`, everything
/// untracked) unless a pathspec or a state option (`--modified`, `--deleted`…) narrows it.
fn ls_files_fed<'a>(c: &Command, analysis: &'a ShellAnalysis) -> Option<(&'a Command, Select)> {
    let git = c
        .stdin_from
        .and_then(|up| analysis.commands.get(up))
        .filter(|up| up.program == "git" && crate::vocab::subcommand(up) == Some("ls-files"))?;
    let narrowed = crate::vocab::positionals(git).len() > 1
        || git.has_flag(Some('m'), &["modified"])
        || git.has_flag(Some('d'), &["deleted"])
        || git.has_flag(Some('u'), &["unmerged"])
        || git.has_flag(Some('k'), &["killed"])
        || git.has_flag(Some('i'), &["ignored"]);
    Some((
        git,
        Select {
            filtered: narrowed,
            names: Vec::new(),
        },
    ))
}

/// The `find` whose output is one of `c`'s operands (`cat $(find ~/.ssh -name 'id_*')`), as
/// `find_fed` gives the one piped into it: the last `find` of the substitutions analysed
/// just before `c` (the commands between it and `c` are all inside substitutions), when an
/// operand of `c` is such a substitution.
pub fn find_substituted<'a>(
    c: &Command,
    at: usize,
    analysis: &'a ShellAnalysis,
    scope: &Scope,
) -> Option<(&'a Command, Listed)> {
    let substituted = c.args.iter().any(|w| {
        w.dynamic
            && (w.text.starts_with("$(find ") || w.text.starts_with("`find "))
            && (w.text.ends_with(')') || w.text.ends_with('`'))
    });
    if !substituted {
        return None;
    }
    let before = analysis.commands.get(..at)?;
    let find = before
        .iter()
        .rev()
        .take_while(|b| b.in_substitution)
        .find(|b| b.program == "find")?;
    let listed = find_starts(find)
        .iter()
        .map(|s| (s.text.clone(), word_path(s, find, scope).map(|(p, _)| p)))
        .collect();
    Some((find, listed))
}

/// Where `find` starts: the operands before its expression, after its leading options
/// (`-H`, `-L`, `-P`, `-D LIST`, `-O3`); `.` when there are none.
pub fn find_starts(c: &Command) -> Vec<Word> {
    let mut args = c.args.iter().peekable();
    while let Some(a) = args.peek() {
        match a.text.as_str() {
            "-H" | "-L" | "-P" => {}
            "-D" => {
                args.next();
            }
            t if t.starts_with("-O") && t.len() > 2 => {}
            _ => break,
        }
        args.next();
    }
    let starts: Vec<Word> = args
        .take_while(|a| {
            !a.text.starts_with('-') && !matches!(a.text.as_str(), "(" | "!" | ")" | ",")
        })
        .cloned()
        .collect();
    if starts.is_empty() {
        vec![Word::literal(".")]
    } else {
        starts
    }
}

/// What a `find` selects: whether a test narrows it, and the name tests every selected entry
/// passes.
struct Select {
    filtered: bool,
    names: Vec<NameTest>,
}

/// `find` actions: a test after the first of them does not narrow what it acts on (`find d
/// -delete -name x` deletes everything under d).
const FIND_ACTIONS: &[&str] = &[
    "-delete", "-exec", "-execdir", "-ok", "-okdir", "-print", "-print0", "-printf", "-fprint",
    "-fprint0", "-fprintf", "-ls", "-fls", "-quit",
];

/// `-regextype` values whose syntax is POSIX extended (bare `(`, `|` group); the emacs,
/// basic and grep kinds escape them (`\(`, `\|`).
const EXTENDED_REGEX: &[&str] = &[
    "posix-extended",
    "posix-egrep",
    "egrep",
    "awk",
    "posix-awk",
    "gnu-awk",
];

const BASIC_REGEX: &[&str] = &[
    "emacs",
    "posix-basic",
    "grep",
    "posix-minimal-basic",
    "sed",
    "ed",
    "findutils-default",
];

impl Select {
    fn of(c: &Command) -> Select {
        // A test narrows what `find` selects (`-name '*'` does not).
        let filtered = c.args.iter().enumerate().any(|(i, a)| {
            FIND_TESTS.contains(&a.text.as_str())
                && !c
                    .args
                    .get(i + 1)
                    .is_some_and(|v| matches!(v.text.as_str(), "*" | ".*" | "*.*"))
        });
        Select {
            filtered,
            names: name_tests(c),
        }
    }
}

/// The name tests before `find`'s first action, when its expression is a conjunction (an
/// entry selected passes every one); none when `-o`, `!`, `,` or a regex syntax the
/// analysis does not know can select around them.
fn name_tests(c: &Command) -> Vec<NameTest> {
    let mut extended = false;
    let mut out = Vec::new();
    let mut args = c.args.iter();
    while let Some(a) = args.next().map(|w| w.text.as_str()) {
        if FIND_ACTIONS.contains(&a) {
            break;
        }
        let (on, case_insensitive) = match a {
            "-o" | "-or" | "!" | "-not" | "," => return Vec::new(),
            "-regextype" => {
                match args.next().map(|w| w.text.as_str()) {
                    Some(t) if EXTENDED_REGEX.contains(&t) => extended = true,
                    Some(t) if BASIC_REGEX.contains(&t) => extended = false,
                    _ => return Vec::new(),
                }
                continue;
            }
            "-name" => (NameMatch::Name, false),
            "-iname" => (NameMatch::Name, true),
            "-path" | "-wholename" => (NameMatch::Path, false),
            "-ipath" | "-iwholename" => (NameMatch::Path, true),
            "-regex" => (NameMatch::Regex { extended }, false),
            "-iregex" => (NameMatch::Regex { extended }, true),
            _ => continue,
        };
        // A pattern known only when it runs (`-name "$N"`) could be any name.
        let Some(pattern) = args.next().filter(|w| !w.dynamic) else {
            return Vec::new();
        };
        out.push(NameTest {
            on,
            case_insensitive,
            pattern: pattern.text.clone(),
        });
    }
    out
}
