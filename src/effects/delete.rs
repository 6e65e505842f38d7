//! The deletes of a shell line, as `Effect::Delete`: what each removes (a path with how much
//! of it a glob covers, what `find` selects under a start, a target not known until it runs,
//! or whatever standard input names) and whether whole trees go. Computed once here so that
//! the destructive rules judge the effect, whichever wrapper (`sudo`, `xargs`, `find -exec`,
//! `bash -c`) or tool (an MCP delete tool, modelled as `rm`) hides the command.

use super::Effect;
use crate::call::{DeleteTarget, Scope, Span};
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
    let p = c.program.as_str();
    let ops = c.operands();
    let targets: &[&Word] = match p {
        _ if REMOVERS.contains(&p) => &ops,
        // `gio trash PATH…`, `gio remove PATH…`.
        "gio" if matches!(c.subcommand(), Some("trash" | "remove")) => &ops[1..],
        "find" => {
            if c.args.iter().any(|a| a.text == "-delete") {
                let filtered = filtered(c);
                for start in find_starts(c) {
                    out.push(found(&start, c, scope, filtered, true, FIND_DELETE));
                }
            }
            return;
        }
        _ => return,
    };
    let recursive = c.has_flag(Some('r'), &["recursive"]) || c.has_flag(Some('R'), &[]);
    let delete = |target| Effect::Delete {
        target,
        recursive,
        how: p.to_string(),
    };
    if c.args_from_stdin {
        // `find DIR … | xargs rm`: the names come from what find lists under its starts.
        let listed = c
            .stdin_from
            .and_then(|up| analysis.commands.get(up))
            .filter(|up| up.program == "find")
            .map(|up| {
                find_starts(up)
                    .iter()
                    .map(|s| (s.text.clone(), word_path(s, up, scope).map(|(p, _)| p)))
                    .collect()
            })
            .unwrap_or_default();
        out.push(delete(DeleteTarget::Stdin { listed }));
    }
    // Run by `find … -exec`: an operand that is one of find's starts (`{}`) removes what find
    // selects under it, not the start alone. `rmdir` removes only empty directories, a
    // filter of its own (as `-empty` is).
    let parent = exec_parent(analysis, i).map(|f| (find_starts(f), filtered(f) || p == "rmdir"));
    for w in targets {
        if let Some((starts, filtered)) = &parent {
            if w.text.contains("{}") {
                // Not expanded (too many starts): each start's selection.
                for s in starts {
                    out.push(found(s, c, scope, *filtered, recursive, p));
                }
                continue;
            }
            if starts.iter().any(|s| s.text == w.text) {
                out.push(found(w, c, scope, *filtered, recursive, p));
                continue;
            }
        }
        let (path, span) = match word_path(w, c, scope) {
            Some((path, span)) => (Some(path), span),
            None => (None, Span::Exact),
        };
        out.push(delete(DeleteTarget::Named {
            written: w.text.clone(),
            path,
            span,
        }));
    }
}

/// A delete, by `how` run as `c`, of what `find` selects under `start`.
fn found(
    start: &Word,
    c: &Command,
    scope: &Scope,
    filtered: bool,
    recursive: bool,
    how: &str,
) -> Effect {
    Effect::Delete {
        target: DeleteTarget::Named {
            written: start.text.clone(),
            path: word_path(start, c, scope).map(|(p, _)| p),
            span: Span::Found { filtered },
        },
        recursive,
        how: how.to_string(),
    }
}

/// The `find` whose `-exec`/`-execdir`/`-ok` runs command `i`: the nearest one before it
/// whose wrappers are those of `i` up to the `find -exec…` that runs it.
fn exec_parent(analysis: &ShellAnalysis, i: usize) -> Option<&Command> {
    let c = analysis.commands.get(i)?;
    let k = c.wrappers.iter().rposition(|w| w.starts_with("find -"))?;
    analysis.commands[..i]
        .iter()
        .rev()
        .find(|f| f.program == "find" && f.wrappers[..] == c.wrappers[..k])
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

/// A test narrows what `find` selects (`-name '*'` does not).
fn filtered(c: &Command) -> bool {
    c.args.iter().enumerate().any(|(i, a)| {
        FIND_TESTS.contains(&a.text.as_str())
            && !c
                .args
                .get(i + 1)
                .is_some_and(|v| matches!(v.text.as_str(), "*" | ".*" | "*.*"))
    })
}
