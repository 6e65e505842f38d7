//! Step 1 of the ladder, the read-only fast path: a call whose only effect is reading files
//! inside the roots (Read/Grep/Glob/LS in the project, an MCP server's read of a project file,
//! `ls`, `git status`, `cat` of a project file that is not secret-looking) is not sent to the
//! model. It cannot destroy or leak anything the static layer would not already have flagged,
//! and it is most of a session.
//!
//! Judged on the call's effects, whatever the tool: nothing changes (`readonly::change`, which
//! knows the programs that only read from `vocab::READERS`), nothing goes to or comes from the
//! network, and every path read or listed is inside the roots, unprotected and not
//! secret-looking. A shell line must also be certain: no word known only when it runs, no
//! wrapper, privilege or environment of its own, no names from standard input, no obfuscation
//! finding, no dump of the environment, and only programs that inspect this machine's files
//! (`vocab::READERS`) or the repository (`git`'s reading subcommands).

use crate::effects::Effect;
use crate::normalize::{Call, CallKind, Scope};
use crate::shell::ShellAnalysis;
use std::path::Path;

/// True when the call only reads inside the roots and touches nothing secret-looking.
pub fn read_only(call: &Call, scope: &Scope) -> bool {
    let certain = match &call.kind {
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
            !escapes && !paths.is_empty()
        }
        CallKind::Shell { analysis, .. } => shell_certain(analysis),
        // An MCP tool whose model reads or lists only (a tool it cannot model changes
        // something for `readonly::change`).
        CallKind::Mcp { .. } => call
            .effects
            .iter()
            .any(|e| matches!(e, Effect::Read { .. } | Effect::List { .. })),
        _ => false,
    };
    certain
        && crate::readonly::change(call).is_none()
        && call.effects.iter().all(|e| match e {
            Effect::Read { path, .. } | Effect::List { path } => readable(path, scope),
            // A program that only reads, run by name (`readonly::change` vetted it), and the
            // settings it loads (`git status` reads `.git/config`: the ledger judges a
            // session's write of one).
            Effect::Execute { path: None, .. } => true,
            Effect::Execute {
                language: Some(l), ..
            } => l.is_settings(),
            _ => false,
        })
}

fn readable(path: &Path, scope: &Scope) -> bool {
    let inside = scope.within_roots(path);
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

/// A shell line whose every word is known before it runs, run as written: what its effects
/// say is all it does.
fn shell_certain(analysis: &ShellAnalysis) -> bool {
    !analysis.commands.is_empty()
        && analysis.findings.is_empty()
        && analysis.commands.iter().all(|c| {
            !c.privileged
                && c.wrappers.is_empty()
                && c.env.is_empty()
                && !c.args_from_stdin
                && c.program_path == c.program
                && !c.args.iter().any(|a| a.dynamic)
                && !c.redirects.iter().any(|r| r.target.dynamic)
                && !crate::vocab::dumps_environment(c)
                // This machine's files and the repository only: a read of a cluster or an API
                // (`kubectl get`, which read-only mode lets through) goes to the model.
                && (crate::vocab::reader_of(&c.program).is_some() || c.program == "git")
        })
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
            protected: Default::default(),
            files: Default::default(),
            lines: Default::default(),
        }
    }

    /// The call as the hook sees it: normalised, its effects computed.
    fn call(tool: &str, input: serde_json::Value) -> Call {
        let event = crate::event::HookEvent::hypothetical(
            "s",
            std::path::Path::new("/home/dev/project"),
            tool.into(),
            input,
        );
        crate::normalize::normalize(&event, &scope())
    }

    fn shell(cmd: &str) -> Call {
        call("Bash", json!({ "command": cmd }))
    }

    fn read(tool: &str, input: serde_json::Value, _path: &str) -> Call {
        call(tool, input)
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
        let write = call(
            "Write",
            json!({"file_path": "/home/dev/project/a", "content": "x"}),
        );
        assert!(!read_only(&write, &s));
    }

    /// The fast path judges effects, so an MCP server's read is judged as the Read tool's:
    /// a project file skips the model, a credential or a path outside the roots does not,
    /// and neither does a tool it cannot model or one that writes.
    #[test]
    fn mcp_reads_are_judged_by_their_effects() {
        let s = scope();
        let mcp = |tool: &str, input: serde_json::Value| read_only(&call(tool, input), &s);
        assert!(mcp(
            "mcp__filesystem__read_text_file",
            json!({"path": "/home/dev/project/src/main.rs"})
        ));
        assert!(mcp(
            "mcp__filesystem__list_directory",
            json!({"path": "/home/dev/project"})
        ));
        assert!(!mcp(
            "mcp__filesystem__read_text_file",
            json!({"path": "/home/dev/.aws/credentials"})
        ));
        assert!(!mcp(
            "mcp__filesystem__read_file",
            json!({"path": "/etc/passwd"})
        ));
        assert!(!mcp(
            "mcp__filesystem__write_file",
            json!({"path": "/home/dev/project/a", "content": "x"})
        ));
        assert!(!mcp("mcp__weird__frobnicate", json!({"x": 1})));
        assert!(!mcp(
            "mcp__fetch__fetch",
            json!({"url": "https://example.com"})
        ));
        // A shell line that prints the environment or reads a file named at run time.
        for c in [
            "printenv",
            "env",
            "cat $F",
            "cat < $F",
            "ls \"$(pwd)\"",
            "kubectl get pods",
            "psql -c 'SELECT 1'",
        ] {
            assert!(!read_only(&shell(c), &s), "{c}");
        }
    }
}
