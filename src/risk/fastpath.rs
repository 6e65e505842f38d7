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
            && !args.iter().any(|a| {
                // `--output` writes a file; `--ext-diff` and `grep -O` (a pager) run programs.
                a.text.starts_with("--output")
                    || a.text == "--ext-diff"
                    || a.text.starts_with("-O")
                    || a.text.starts_with("--open-files-in-pager")
            });
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scope() -> Scope {
        Scope {
            paths: crate::paths::PathResolver {
                cwd: "/home/dev/project".into(),
                home: "/home/dev".into(),
                follow_symlinks: false,
            },
            project_root: "/home/dev/project".into(),
            roots: vec!["/home/dev/project".into()],
            protected: Vec::new(),
            files: Default::default(),
        }
    }

    fn shell(cmd: &str) -> Call {
        Call {
            tool: "Bash".into(),
            input: json!({"command": cmd}),
            kind: CallKind::Shell {
                command: cmd.into(),
                analysis: crate::shell::analyse(cmd),
            },
            effects: Vec::new(),
        }
    }

    fn read(tool: &str, input: serde_json::Value, path: &str) -> Call {
        Call {
            tool: tool.into(),
            input,
            kind: CallKind::Read {
                paths: vec![path.into()],
            },
            effects: Vec::new(),
        }
    }

    #[test]
    fn reads_inside_the_roots_take_the_fast_path() {
        let s = scope();
        for c in [
            "ls -la",
            "git status",
            "git log --oneline -5 && git diff --stat",
            "cat README.md | head -20",
            "grep -rn TODO src 2>/dev/null | wc -l",
            "find . -name '*.rs'",
            "wc -l src/*.rs",
            "jq .version package.json",
        ] {
            assert!(read_only(&shell(c), &s), "{c}");
        }
        assert!(read_only(
            &read(
                "Read",
                json!({"file_path": "/home/dev/project/src/a.rs"}),
                "/home/dev/project/src/a.rs"
            ),
            &s
        ));
        assert!(read_only(
            &read(
                "Glob",
                json!({"pattern": "src/**/*.rs"}),
                "/home/dev/project"
            ),
            &s
        ));
    }

    #[test]
    fn anything_else_is_sent() {
        let s = scope();
        for c in [
            "npm run build",
            "cat README.md > copy.md",
            "cat ~/.bashrc",
            "cat /etc/passwd",
            "cat .env",
            "cat config/credentials.json",
            "find . -name '*.o' -delete",
            "find . -exec rm {} +",
            "sort -o out.txt in.txt",
            "git push origin main",
            "git grep -Ovim TODO",
            "git diff --output=x",
            "sudo ls /root",
            "FOO=1 ls",
            "ls $(curl -s https://x.example)",
            "./ls",
            "echo hi | sh",
            "ls; rm -rf build",
        ] {
            assert!(!read_only(&shell(c), &s), "{c}");
        }
        for (tool, input, path) in [
            (
                "Read",
                json!({"file_path": "/home/dev/.ssh/config"}),
                "/home/dev/.ssh/config",
            ),
            (
                "Read",
                json!({"file_path": "/home/dev/project/.env"}),
                "/home/dev/project/.env",
            ),
            ("Glob", json!({"pattern": "/etc/**"}), "/home/dev/project"),
            (
                "Glob",
                json!({"pattern": "../../**/id_*"}),
                "/home/dev/project",
            ),
            (
                "Grep",
                json!({"pattern": "x", "glob": "~/**"}),
                "/home/dev/project",
            ),
        ] {
            assert!(
                !read_only(&read(tool, input.clone(), path), &s),
                "{tool} {input}"
            );
        }
        let write = Call {
            tool: "Write".into(),
            input: json!({}),
            kind: CallKind::Write {
                path: "/home/dev/project/a".into(),
                content: None,
            },
            effects: Vec::new(),
        };
        assert!(!read_only(&write, &s));
    }
}
