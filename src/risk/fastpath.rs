//! Step 1 of the ladder, the read-only fast path: a call whose only effect is reading files
//! inside the roots (Read/Grep/Glob/LS in the project, `ls`, `git status`, `cat` of a project
//! file that is not secret-looking) is not sent to the model. It cannot destroy or leak
//! anything the static layer would not already have flagged, and it is most of a session.
//!
//! One function, `read_only`, classifies from today's `CallKind` and shell analysis; when typed
//! effects land on `normalize::Call` it can be re-pointed at them without changing its callers.

use crate::normalize::{Call, CallKind, Scope};
use crate::paths::is_within;
use crate::shell::{Command, RedirectKind, ShellAnalysis};
use std::path::Path;

/// Programs that only read (files, the repository, the environment) and print. An option that
/// makes one of them write or run something is checked in `command_reads_only`.
const READERS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "find",
    "fd",
    "tree",
    "stat",
    "file",
    "du",
    "df",
    "pwd",
    "which",
    "type",
    "less",
    "more",
    "diff",
    "cmp",
    "sort",
    "uniq",
    "cut",
    "tr",
    "nl",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "echo",
    "printf",
    "true",
    "date",
    "whoami",
    "uname",
    "id",
    "jq",
    "column",
    "md5sum",
    "sha256sum",
    "sha1sum",
];

/// `git` subcommands that only read.
const GIT_READERS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "rev-parse",
    "ls-files",
    "blame",
    "describe",
    "shortlog",
    "grep",
    "cat-file",
    "ls-tree",
    "reflog",
];

/// Options that turn a reader into something else (`find -delete`, `sort -o f`, `rg --pre`).
const WRITING_OPTIONS: &[&str] = &[
    "-delete",
    "-exec",
    "-execdir",
    "-ok",
    "-okdir",
    "-fprint",
    "-fprintf",
    "-fls",
    "-o",
    "--output",
    "--pre",
    "--output-file",
    "-i",
    "--in-place",
];

/// True when the call only reads inside the roots and touches nothing secret-looking.
pub fn read_only(call: &Call, scope: &Scope) -> bool {
    match &call.kind {
        CallKind::Read { paths } => {
            // A Glob pattern or a Grep `glob` can name files outside its path (`/etc/*`).
            let filter = if call.tool == "Grep" {
                "glob"
            } else {
                "pattern"
            };
            let escapes = call
                .input
                .get(filter)
                .and_then(|v| v.as_str())
                .is_some_and(|g| g.starts_with('/') || g.starts_with('~') || g.contains(".."));
            !escapes && !paths.is_empty() && paths.iter().all(|p| readable(p, scope))
        }
        CallKind::Shell { analysis, .. } => shell_reads_only(analysis, scope),
        _ => false,
    }
}

fn readable(path: &Path, scope: &Scope) -> bool {
    let inside = scope.roots.iter().any(|r| is_within(path, r));
    inside && scope.protected(path).is_none() && !secret_looking(path)
}

/// File names that hold credentials by convention: never read without the model.
fn secret_looking(path: &Path) -> bool {
    path.components().any(|c| {
        let n = c.as_os_str().to_string_lossy().to_ascii_lowercase();
        n.starts_with(".env")
            || n.ends_with(".env")
            || n.ends_with(".pem")
            || n.ends_with(".key")
            || n.ends_with(".p12")
            || n.ends_with(".pfx")
            || n.starts_with("id_")
            || n.contains("secret")
            || n.contains("credential")
            || n.contains("token")
            || n == ".netrc"
            || n == ".npmrc"
            || n == ".pypirc"
            || n == ".ssh"
            || n == ".aws"
            || n == ".gnupg"
            || n == ".git-credentials"
    })
}

fn shell_reads_only(analysis: &ShellAnalysis, scope: &Scope) -> bool {
    !analysis.commands.is_empty()
        && analysis.findings.is_empty()
        && analysis
            .commands
            .iter()
            .all(|c| command_reads_only(c, scope))
}

fn command_reads_only(c: &Command, scope: &Scope) -> bool {
    if c.privileged || !c.wrappers.is_empty() || !c.env.is_empty() || c.args_from_stdin {
        return false;
    }
    let redirects_ok = c.redirects.iter().all(|r| match r.kind {
        RedirectKind::Dup => true,
        RedirectKind::Read => {
            !r.target.dynamic && readable(&path_of(c, scope, &r.target.text), scope)
        }
        // `2>/dev/null` writes nothing.
        _ => r.target.text == "/dev/null",
    });
    if !redirects_ok {
        return false;
    }
    let args = &c.args;
    if args.iter().any(|a| {
        a.dynamic
            || WRITING_OPTIONS
                .iter()
                .any(|o| a.text == *o || a.text.starts_with(&format!("{o}=")))
    }) {
        return false;
    }
    let program = c.program.as_str();
    if program == "git" {
        return args
            .first()
            .is_some_and(|a| GIT_READERS.contains(&a.text.as_str()))
            && !args
                .iter()
                .any(|a| a.text.starts_with("--output") || a.text == "--ext-diff");
    }
    if !READERS.contains(&program) || c.program_path != program {
        // A reader named by a path (`./ls`) may be anything.
        return false;
    }
    // Every operand that names a path stays inside the roots and is not secret-looking.
    args.iter()
        .filter(|a| !a.text.starts_with('-'))
        .filter(|a| {
            matches!(
                program,
                "ls" | "cat"
                    | "head"
                    | "tail"
                    | "wc"
                    | "tree"
                    | "stat"
                    | "file"
                    | "du"
                    | "less"
                    | "more"
                    | "diff"
                    | "cmp"
                    | "nl"
                    | "md5sum"
                    | "sha256sum"
                    | "sha1sum"
            ) || looks_like_path(&a.text)
        })
        .all(|a| readable(&path_of(c, scope, &a.text), scope))
}

fn looks_like_path(s: &str) -> bool {
    s.contains('/') || s.starts_with('.') || s.starts_with('~')
}

fn path_of(c: &Command, scope: &Scope, raw: &str) -> std::path::PathBuf {
    crate::fileops::resolve_for(scope, c, raw)
}
