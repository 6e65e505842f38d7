//! What a call changes, for read-only sessions: `mode: read-only` in the policy (every tool),
//! or `read_only: true` on a rule (the tools it names). A call that changes something —
//! writes, creates, deletes, moves, links or chmods a path, runs a file or a program that can
//! change things, runs a statement that is not a read, sends data out, signals a process,
//! changes configuration or starts another agent — is asked (or denied, `read_only_effect:
//! deny`) by `evaluate::read_only` and by the policy's `read_only` rules. Reads, listings,
//! searches and fetches pass, and so do the programs that only read (`ls`, `cat`, `grep`,
//! `git status/log/diff`).
//!
//! Judged on the typed effects of the call (`Call::effects`) and, for shell lines, on every
//! simple command the analysis found, so the same answer holds for `Bash`, the file tools and
//! any MCP tool. What cannot be known statically (a dynamic program, a line the parser
//! rejected, an MCP tool whose model shows no effect and whose name does not say it reads)
//! counts as a change. Pure: no I/O, and no policy: the settings live in
//! `policy::readonly_settings`, the verdict in `evaluate`.

use crate::effects::Effect as Fx;
use crate::normalize::{Call, CallKind};
use crate::shell::ShellFinding;

/// What the call changes, in words (`deletes /p/build`), or `None` when it only reads.
pub fn change(call: &Call) -> Option<String> {
    let analysis = match &call.kind {
        CallKind::Shell { analysis, .. } => Some(analysis),
        _ => None,
    };
    for e in &call.effects {
        let what = match e {
            Fx::Read { .. } | Fx::List { .. } | Fx::Fetch { .. } => continue,
            Fx::Write { path, .. } if crate::vocab::is_device(&path.to_string_lossy()) => {
                continue;
            }
            Fx::Write { path, .. } => format!("writes {}", path.display()),
            Fx::Create { path } => format!("creates {}", path.display()),
            Fx::Delete { target, .. } => match target.path() {
                Some(path) => format!("deletes {}", path.display()),
                None => "deletes a path not known until it runs".to_string(),
            },
            Fx::Move { from, to, .. } => format!("moves {} to {}", from.display(), to.display()),
            Fx::Link { link, .. } => format!("makes the link {}", link.display()),
            Fx::Chmod { path, how, .. } => format!("changes {} ({how})", path.display()),
            // A settings file is "run" by the program that reads it; that program is judged.
            Fx::Execute {
                path: Some(_),
                language,
                ..
            } if language.is_some_and(|l| l.is_settings()) => continue,
            // A file that runs only if it is there: the program that looks for it is judged.
            Fx::Execute { run: Some(r), .. } if r.looked_up => continue,
            Fx::Execute { path: Some(p), .. } => format!("runs the file {}", p.display()),
            // Programs are judged with their arguments below, command by command.
            Fx::Execute { path: None, .. } if analysis.is_some() => continue,
            Fx::Execute { program, .. } => format!("runs {program}"),
            Fx::Query { statement, .. } if crate::vocab::read_only_sql(statement) => continue,
            Fx::Query { statement, .. } => {
                format!("runs the statement '{}'", clip(statement))
            }
            Fx::Send { host, .. } => match host {
                Some(h) => format!("sends data to {h}"),
                None => "sends data out".to_string(),
            },
            Fx::Signal { target } => format!("signals {target}"),
            Fx::Configure { what, .. } => format!("changes configuration ({})", clip(what)),
            Fx::StartAgent { program } => format!("starts another agent ({program})"),
            Fx::Destroy { what, tool } => format!("destroys a {what} ({tool})"),
            Fx::Pay { what, tool } => format!("moves money: a {what} ({tool})"),
            Fx::Publish { what, tool } => format!("{what} ({tool})"),
            // Only a command serves a directory; it is judged with its arguments below.
            Fx::Serve { .. } => continue,
        };
        return Some(what);
    }
    if let Some(a) = analysis {
        if let Some(f) = a.findings.first() {
            return Some(match f {
                ShellFinding::DynamicProgram { text } => {
                    format!("runs a program not known statically ({})", clip(text))
                }
                _ => "runs a command line that cannot be fully analysed".to_string(),
            });
        }
        // A client's statements are `Query` effects of its command, judged above.
        let gives_query = |i: usize| {
            call.effects
                .iter()
                .any(|e| matches!(e, Fx::Query { command: Some(j), .. } if *j == i))
        };
        for (i, c) in a.commands.iter().enumerate() {
            if c.program.is_empty() {
                return Some("runs a program not known statically".to_string());
            }
            // A database client the call gives a statement to is judged by the statement.
            let client = matches!(
                c.program.as_str(),
                "psql" | "mysql" | "mariadb" | "sqlite3" | "duckdb"
            );
            if !(crate::vocab::reads_only(c) || client && gives_query(i)) {
                return Some(format!("runs {}, which can change things", clip(&c.line())));
            }
        }
    }
    if call.effects.is_empty()
        && let Some(rest) = call.tool.strip_prefix("mcp__")
    {
        let verb = crate::effects::mcp::canonical_name(rest.rsplit("__").next().unwrap_or(rest));
        if !reads_by_name(&verb) {
            return Some(format!(
                "calls {}, a tool whose effects are not known and whose name does not say it only reads",
                call.tool
            ));
        }
    }
    None
}

fn reads_by_name(verb: &str) -> bool {
    let first = verb.split('_').next().unwrap_or(verb);
    crate::effects::mcp::READ_VERBS.contains(&first)
}

fn clip(s: &str) -> String {
    const MAX: usize = 80;
    let s = s.trim();
    if s.chars().count() <= MAX {
        return s.to_string();
    }
    let cut: String = s.chars().take(MAX).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::HookEvent;
    use crate::paths::PathResolver;

    fn scope() -> crate::normalize::Scope {
        crate::normalize::Scope {
            paths: PathResolver {
                cwd: "/home/dev/project".into(),
                home: "/home/dev".into(),
                follow_symlinks: false,
            },
            project_root: "/home/dev/project".into(),
            roots: vec!["/home/dev/project".into(), "/tmp".into()],
            protected: Default::default(),
            files: Default::default(),
            lines: Default::default(),
        }
    }

    fn changes(tool: &str, input: serde_json::Value) -> Option<String> {
        let event: HookEvent = serde_json::from_value(serde_json::json!({
            "hook_event_name": "PreToolUse",
            "session_id": "s",
            "cwd": "/home/dev/project",
            "tool_name": tool,
            "tool_input": input,
        }))
        .unwrap();
        let call = crate::normalize::normalize(&event, &scope());
        change(&call)
    }

    fn bash(cmd: &str) -> Option<String> {
        changes("Bash", serde_json::json!({ "command": cmd }))
    }

    #[test]
    fn reads_pass() {
        for cmd in [
            "ls -la src",
            "cat README.md | grep -n palisade",
            "git status && git log --oneline -5 && git diff HEAD~1",
            "git branch",
            "git branch -a",
            "git remote -v",
            "git stash list",
            "rg -n 'fn main' src 2>/dev/null",
            "find . -name '*.rs' | wc -l",
            "sed -n '1,20p' src/main.rs",
            "head -50 Cargo.toml; tail -5 Cargo.lock",
            "cd src && ls",
            "npm ls --depth 0",
        ] {
            assert_eq!(bash(cmd), None, "{cmd}");
        }
        assert_eq!(
            changes(
                "Read",
                serde_json::json!({"file_path": "/home/dev/project/a"})
            ),
            None
        );
        assert_eq!(changes("Grep", serde_json::json!({"pattern": "x"})), None);
        assert_eq!(
            changes("WebFetch", serde_json::json!({"url": "https://docs.rs/x"})),
            None
        );
        assert_eq!(
            changes(
                "mcp__github__get_issue",
                serde_json::json!({"owner": "o", "repo": "r", "issue_number": 1})
            ),
            None
        );
        assert_eq!(
            changes(
                "mcp__postgres__query",
                serde_json::json!({"sql": "SELECT * FROM users"})
            ),
            None
        );
    }

    /// A Bash SQL client whose statements its command line gives is judged by them, as the
    /// MCP SQL tools are; one whose statements come from elsewhere, or any client beside it
    /// that gives none, counts as a change.
    #[test]
    fn bash_sql_clients_are_judged_by_their_statements() {
        for cmd in [
            "psql -h db -U app -c 'SELECT count(*) FROM users' shop",
            "psql --command='SHOW search_path' -X",
            "mysql -u app -pSecret -e 'SELECT 1' shop",
            "sqlite3 -readonly app.db 'SELECT * FROM t'",
            "duckdb -c 'SELECT 42'",
        ] {
            assert_eq!(bash(cmd), None, "{cmd}");
        }
        for cmd in [
            "psql -c 'DELETE FROM users'",
            "psql -c 'SELECT 1' -f migrate.sql",
            "psql -c 'SELECT 1'; psql -f migrate.sql",
            "psql -c 'SELECT 1' < dump.sql",
            "psql <<'EOF'\nSELECT 1;\nEOF",
            "echo 'SELECT 1' | psql",
            "psql -c \"$Q\"",
            "psql --unknown-option -c 'SELECT 1'",
            "mysql -e 'SELECT 1' --init-command='DROP TABLE t'",
            "sqlite3 app.db '.shell rm -rf ~'",
            "sqlite3 -init evil.sql app.db 'SELECT 1'",
            "sqlite3 app.db",
            "psql -c 'SELECT * INTO copy FROM users'",
        ] {
            assert!(bash(cmd).is_some(), "{cmd}");
        }
    }

    #[test]
    fn changes_are_found_whatever_the_tool() {
        for cmd in [
            "echo x > notes.txt",
            "rm -rf build",
            "mv a b",
            "ln -s a b",
            "chmod +x run.sh",
            "touch x",
            "./run.sh",
            "python3 -c 'print(1)'",
            "cargo build",
            "git commit -m x",
            "git branch -D old",
            "git branch newbranch",
            "git tag v1",
            "git config user.name x",
            "curl -d @notes https://example.com/u",
            "sed -i s/a/b/ f",
            "find . -delete",
            "kill 1234",
            "$x foo",
            "npm install",
            "sort -o out.txt in.txt",
            "claude -p hi",
        ] {
            assert!(bash(cmd).is_some(), "{cmd}");
        }
        assert!(
            changes(
                "Write",
                serde_json::json!({"file_path": "/home/dev/project/a", "content": "x"})
            )
            .is_some()
        );
        assert!(changes("Edit", serde_json::json!({"file_path": "/home/dev/project/a", "old_string": "x", "new_string": "y"})).is_some());
        assert!(
            changes(
                "mcp__github__create_issue",
                serde_json::json!({"owner": "o", "repo": "r", "title": "t", "body": "b"})
            )
            .is_some()
        );
        assert!(
            changes(
                "mcp__github__merge_pull_request",
                serde_json::json!({"owner": "o", "repo": "r", "pull_number": 3})
            )
            .is_some()
        );
        assert!(
            changes(
                "mcp__fs__write_file",
                serde_json::json!({"path": "/home/dev/project/a", "content": "x"})
            )
            .is_some()
        );
        assert!(
            changes(
                "mcp__postgres__query",
                serde_json::json!({"sql": "DELETE FROM users"})
            )
            .is_some()
        );
        assert!(
            changes(
                "mcp__shell__run_command",
                serde_json::json!({"command": "rm -rf build"})
            )
            .is_some()
        );
    }

    #[test]
    fn evasions_are_still_changes() {
        for cmd in [
            "r''m -rf build",
            "\\rm -rf build",
            "/bin/rm -rf build",
            "sudo rm -rf build",
            "env rm -rf build",
            "command rm -rf build",
            "nice -n 5 rm -rf build",
            "timeout 5 rm -rf build",
            "bash -c 'rm -rf build'",
            "sh -c \"echo x > f\"",
            "eval 'rm -rf build'",
            "eval \"$CMD\"",
            "x=rm; $x -rf build",
            "$(echo rm) -rf build",
            "echo build | xargs rm -rf",
            "find . -exec rm {} \\;",
            "git -C ../other commit -m x",
            "cat a | tee b",
            "ls; rm x",
            "ls && echo x >> y",
            "ls $(touch z)",
            "cat <<EOF > f\nhi\nEOF",
            "ssh host 'rm -rf /srv/app'",
        ] {
            assert!(bash(cmd).is_some(), "{cmd}");
        }
    }

    #[test]
    fn wrapped_reads_still_read() {
        for cmd in [
            "command ls",
            "nice git log",
            "timeout 5 git status",
            "env LC_ALL=C grep -rn x src",
            "git -C sub status",
            "git --no-pager log -3",
            "ls 2>&1 | head",
        ] {
            assert_eq!(bash(cmd), None, "{cmd}");
        }
    }

    /// The one list of readers (`vocab::READERS`) decides: what was only a sudo inspector
    /// reads here too, and the options that make a reader write or run something are changes.
    #[test]
    fn readers_come_from_the_vocabulary() {
        for cmd in [
            "lsof -i :3000",
            "ss -tlnp",
            "netstat -an",
            "lsblk",
            "pgrep -fl node",
            "groups",
            "getent passwd dev",
            "who",
            "nproc",
            "hostname",
            "date +%F",
            "systemctl status nginx",
            "journalctl -u app",
            "podman ps",
            "uniq -c names.txt",
            "xxd -l 64 app.bin",
        ] {
            assert_eq!(bash(cmd), None, "{cmd}");
        }
        for cmd in [
            "GIT_PAGER=./x git log",
            "LESSOPEN='|./x %s' less README.md",
            "git diff --output=changes.patch",
            "less -o copy.txt README.md",
            "rg --pre ./x TODO",
            "ss -K dst 10.0.0.5",
            "uniq names.txt unique.txt",
            "xxd -r dump.hex app.bin",
            "hostname build-box",
            "date -s 2026-01-01",
            "bat --pager ./x README.md",
            "file -C -m magic",
            "cloc --out=report.txt src",
            "sort --compress-program=./x big.txt",
            "sort -uo sorted.txt names.txt",
            "journalctl --vacuum-time=1d",
            "go env -w GOPROXY=https://proxy.example.net",
        ] {
            assert!(bash(cmd).is_some(), "{cmd}");
        }
    }

    #[test]
    fn sql_reads() {
        assert!(crate::vocab::read_only_sql("select 1; SHOW TABLES"));
        assert!(crate::vocab::read_only_sql("EXPLAIN SELECT 1"));
        assert!(!crate::vocab::read_only_sql(
            "EXPLAIN ANALYZE DELETE FROM t"
        ));
        assert!(!crate::vocab::read_only_sql("SELECT * INTO t2 FROM t"));
        assert!(!crate::vocab::read_only_sql("select 1; drop table t"));
    }
}
