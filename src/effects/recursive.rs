//! Commands that read every file under a directory they are given: an archive or copy of a
//! tree, a recursive search that prints every line, a `find` handing all it finds to a reader.
//! Their read of `~` is a read of `~/.ssh/id_rsa`, and with links followed, a read of what a
//! link inside the tree points to (`packs::common::held_secret` judges both).

use crate::call::{Found, NameTest, Tree};
use crate::shell::Command;

/// How command `c` reads the directories among the files it reads: `Some` when it reads every
/// file under them; `None` when it reads only the files named, or prints names, counts or the
/// lines a pattern picks rather than content (`ls -R`, `grep -rl x`, `grep -r TODO ~`).
pub fn tree_read(c: &Command) -> Option<Tree> {
    let flag = |short: Option<char>, long: &[&str]| c.has_flag(short, long);
    let follows = |yes: bool| {
        if yes {
            Tree::LinksFollowed
        } else {
            Tree::LinksKept
        }
    };
    match c.program.as_str() {
        "tar" | "gtar" | "bsdtar" => {
            let t = crate::vocab::tar_line(c);
            (t.writes_archive() && !t.no_recursion).then(|| follows(t.dereference))
        }
        "cp" => (flag(Some('r'), &["recursive", "archive"])
            || flag(Some('R'), &[])
            || flag(Some('a'), &[]))
        .then(|| follows(flag(Some('L'), &["dereference"]))),
        "rsync" => (flag(Some('r'), &["recursive"]) || flag(Some('a'), &["archive"]))
            .then(|| follows(flag(Some('L'), &["copy-links", "copy-unsafe-links"]))),
        // zip stores what a link points to unless told to store the link (`-y`).
        "zip" => (flag(Some('r'), &["recurse-paths"]) || flag(Some('R'), &[]))
            .then(|| follows(!flag(Some('y'), &["symlinks"]))),
        // scp follows the links it meets in a tree it copies.
        "scp" => flag(Some('r'), &[]).then_some(Tree::LinksFollowed),
        "grep" | "egrep" | "fgrep" | "rgrep" => {
            let followed = flag(Some('R'), &["dereference-recursive"]);
            let recursive = c.program == "rgrep" || followed || flag(Some('r'), &["recursive"]);
            (recursive && prints_every_line(c, GREP_NAMES_ONLY)).then(|| follows(followed))
        }
        // A recursive diff prints a file only one side has only when told to take it as
        // empty on the other (`-N`); it follows links. git's no-index diff always does, and
        // shows a link as its target's name.
        "diff" => (flag(Some('r'), &["recursive"])
            && flag(Some('N'), &["new-file", "unidirectional-new-file"]))
        .then_some(Tree::LinksFollowed),
        "git" if c.subcommand() == Some("diff") && flag(None, &["no-index"]) => {
            Some(Tree::LinksKept)
        }
        // ripgrep skips hidden files (every secret under home is one) unless told not to.
        "rg" => (flag(Some('u'), &["hidden", "unrestricted"])
            && prints_every_line(c, RG_NAMES_ONLY))
        .then(|| follows(flag(Some('L'), &["follow"]))),
        _ => None,
    }
}

/// How a `find` hands a reader the entries under a start, when no name test narrows them:
/// a link it lists is handed over as a link, and the reader opens what it points to, unless
/// `-type` keeps links out (`-type f` without `-L`); with `-L`/`-follow` it descends through
/// them too.
pub fn find_tree(find: &Command) -> Tree {
    let followed = find_follows(find);
    let typed = find.args.iter().any(|a| a.text == "-type");
    if followed || !typed {
        Tree::LinksFollowed
    } else {
        Tree::LinksKept
    }
}

/// What `find` hands a reader under `start` (as written) when its name tests `names` narrow
/// it: the entries that pass them, with the links among them as `find_tree` says.
pub fn found(find: &Command, start: String, names: Vec<NameTest>) -> Found {
    Found {
        start,
        names,
        links: find_tree(find) == Tree::LinksFollowed,
        follows: find_follows(find),
    }
}

/// Whether `find` follows links into the directories they point to (`-L`, `-follow`).
pub fn find_follows(find: &Command) -> bool {
    find.args
        .iter()
        .any(|a| matches!(a.text.as_str(), "-L" | "-follow"))
}

/// grep's options that print names, counts or nothing instead of the lines: short, long.
const GREP_NAMES_ONLY: (&str, &[&str]) = (
    "lLcq",
    &[
        "files-with-matches",
        "files-without-match",
        "count",
        "quiet",
        "silent",
    ],
);
/// ripgrep's, likewise (its `-L` follows links).
const RG_NAMES_ONLY: (&str, &[&str]) = (
    "lcq",
    &[
        "files-with-matches",
        "files-without-match",
        "count",
        "quiet",
        "files",
    ],
);

/// Patterns that every line (or every line with a character, which is every line of a key
/// or credentials file) matches.
const EVERY_LINE: &[&str] = &[
    "", "^", "$", ".", ".*", "^.*", ".*$", "^.*$", "^.", "[^\\n]*",
];

/// True when a search prints every line of what it reads: its pattern matches any line and no
/// option makes it print names or counts instead (`-l`, `-L`, `-c`, `-q`).
fn prints_every_line(c: &Command, names_only: (&str, &[&str])) -> bool {
    let (short, long) = names_only;
    if c.has_flag(None, long) || short.chars().any(|f| c.has_flag(Some(f), &[])) {
        return false;
    }
    if c.has_flag(Some('f'), &["file"]) {
        return false;
    }
    let pattern = match c.option_value(Some('e'), &["regexp"]) {
        Some(p) => Some(p),
        None => crate::vocab::first_operand(c).map(|w| w.text.clone()),
    };
    pattern.is_some_and(|p| matches_every_line(&p))
}

/// True when the search pattern `p` matches every line of a key or credentials file.
pub fn matches_every_line(p: &str) -> bool {
    EVERY_LINE.contains(&p)
}
