//! `mode: read-only` and `read_only: true` rules driven through the real hook binary: changes
//! refused whatever the tool (Bash, file tools, MCP), reads and read-only commands passing,
//! a project turning the mode on but never off, `palisade init --read-only`, and the example
//! policies loading.

mod common;
use common::Sandbox;
use serde_json::json;
use std::path::Path;

const CHANGES: &[&str] = &[
    "echo note > notes.txt",
    "rm -rf build",
    "mv src/a.rs src/b.rs",
    "ln -s /etc/hosts hosts",
    "chmod +x run.sh",
    "touch new.txt",
    "./run.sh",
    "bash scripts/setup.sh",
    "python3 -c 'import os; os.remove(\"x\")'",
    "cargo build",
    "npm install left-pad",
    "git commit -am wip",
    "git checkout -b feature",
    "git branch -D old",
    "git stash",
    "git config core.hooksPath .hooks",
    "curl -X POST -d '{\"a\":1}' https://api.example.com/items",
    "sed -i 's/a/b/' src/main.rs",
    "find . -name '*.tmp' -delete",
    "kill 4242",
    "env FOO=1 sh -c 'echo hi > out.txt'",
    "xargs rm < files.txt",
    "$EDITOR notes.txt",
];

const READS: &[&str] = &[
    "ls -la",
    "cat README.md",
    "grep -rn 'fn main' src",
    "rg -n TODO --type rust",
    "git status",
    "git log --oneline -20",
    "git diff HEAD~1 -- src/",
    "git show HEAD:Cargo.toml",
    "git branch -a",
    "git blame src/main.rs | head -40",
    "find . -name '*.rs' | xargs wc -l",
    "head -n 50 src/lib.rs && tail -n 5 Cargo.lock",
    "sed -n '10,40p' src/main.rs",
    "cd src && ls -R | sort | uniq -c",
    "git log -p -1 > /dev/null 2>&1; echo done",
];

fn read_only_user(sb: &Sandbox, extra: &str) {
    sb.user_policy(&format!("version: 1\nmode: read-only\n{extra}"));
}

#[test]
fn bash_changes_are_asked_and_reads_pass() {
    let sb = Sandbox::new();
    read_only_user(&sb, "");
    for cmd in CHANGES {
        let a = sb.bash(cmd);
        assert!(
            matches!(a.decision().as_str(), "ask" | "deny"),
            "{cmd}: {a:?}"
        );
    }
    // The reason says it is the mode, and what the call changes.
    let a = sb.bash("rm -rf build");
    assert_eq!(a.decision(), "ask");
    assert!(a.reason().contains("read-only"), "{}", a.reason());
    assert!(a.reason().contains("deletes"), "{}", a.reason());
    assert!(a.reason().contains("build"), "{}", a.reason());
    for cmd in READS {
        assert_eq!(sb.bash(cmd).decision(), "pass", "{cmd}");
    }
}

#[test]
fn file_tools_and_mcp_are_judged_by_their_effects() {
    let sb = Sandbox::new();
    read_only_user(&sb, "read_only_effect: deny\n");
    let file = sb.project().join("src/main.rs");
    let denied = [
        (
            "Write",
            json!({"file_path": file, "content": "fn main() {}"}),
        ),
        (
            "Edit",
            json!({"file_path": file, "old_string": "a", "new_string": "b"}),
        ),
        (
            "MultiEdit",
            json!({"file_path": file, "edits": [{"old_string": "a", "new_string": "b"}]}),
        ),
        (
            "NotebookEdit",
            json!({"notebook_path": sb.project().join("a.ipynb"), "new_source": "x = 1"}),
        ),
        (
            "mcp__filesystem__write_file",
            json!({"path": file, "content": "x"}),
        ),
        (
            "mcp__filesystem__move_file",
            json!({"source": file, "destination": sb.project().join("b.rs")}),
        ),
        (
            "mcp__github__create_issue",
            json!({"owner": "acme", "repo": "shop", "title": "t", "body": "b"}),
        ),
        (
            "mcp__github__merge_pull_request",
            json!({"owner": "acme", "repo": "shop", "pull_number": 3}),
        ),
        (
            "mcp__postgres__query",
            json!({"sql": "DELETE FROM users WHERE id = 1"}),
        ),
        (
            "mcp__shell__run_command",
            json!({"command": "rm -rf build"}),
        ),
        (
            "mcp__slack__post_message",
            json!({"channel": "C1", "text": "hi"}),
        ),
    ];
    for (tool, input) in denied {
        let a = sb.hook(tool, input);
        assert_eq!(a.decision(), "deny", "{tool}: {a:?}");
        assert!(a.reason().contains("read-only"), "{tool}: {}", a.reason());
    }
    let passed = [
        ("Read", json!({"file_path": file})),
        ("Grep", json!({"pattern": "fn main", "path": sb.project()})),
        ("Glob", json!({"pattern": "**/*.rs"})),
        (
            "WebFetch",
            json!({"url": "https://docs.rs/serde", "prompt": "summary"}),
        ),
        ("mcp__filesystem__read_text_file", json!({"path": file})),
        (
            "mcp__filesystem__list_directory",
            json!({"path": sb.project()}),
        ),
        (
            "mcp__github__get_issue",
            json!({"owner": "acme", "repo": "shop", "issue_number": 7}),
        ),
        (
            "mcp__github__list_pull_requests",
            json!({"owner": "acme", "repo": "shop"}),
        ),
        (
            "mcp__postgres__query",
            json!({"sql": "SELECT id, name FROM users LIMIT 10"}),
        ),
        (
            "mcp__shell__run_command",
            json!({"command": "git status && ls"}),
        ),
        ("TodoWrite", json!({"todos": []})),
    ];
    for (tool, input) in passed {
        assert_eq!(sb.hook(tool, input).decision(), "pass", "{tool}");
    }
}

#[test]
fn a_project_turns_read_only_on_but_never_off() {
    let sb = Sandbox::new();
    // On, from the project alone.
    sb.project_policy("version: 1\nmode: read-only\n");
    assert_eq!(sb.bash("rm -rf build").decision(), "ask");
    assert_eq!(sb.bash("git status").decision(), "pass");
    // The project may make it deny; it cannot make the user's deny an ask.
    sb.project_policy("version: 1\nmode: read-only\nread_only_effect: deny\n");
    assert_eq!(sb.bash("rm -rf build").decision(), "deny");
    // Off, from the project: ignored, and said so.
    read_only_user(&sb, "read_only_effect: deny\n");
    sb.project_policy("version: 1\nmode: normal\nread_only_effect: ask\n");
    assert_eq!(sb.bash("rm -rf build").decision(), "deny");
    let explain = sb.command().arg("explain").output().unwrap();
    let text = String::from_utf8_lossy(&explain.stdout);
    assert!(
        text.contains("mode: normal (the user policy says read-only)"),
        "{text}"
    );
    assert!(
        text.contains("read_only_effect: ask (the user policy says deny)"),
        "{text}"
    );
    // A user rule allowing the call does not lift the mode.
    read_only_user(
        &sb,
        "rules:\n  - id: rm-build\n    tools: Bash\n    effect: allow\n    command: {program: rm, targets: [\"**/build\"]}\n",
    );
    std::fs::remove_file(sb.project().join(".palisade.yaml")).unwrap();
    assert_eq!(sb.bash("rm -rf build").decision(), "ask");
}

#[test]
fn a_read_only_rule_scopes_the_mode_to_its_tools() {
    let sb = Sandbox::new();
    sb.user_policy(
        "version: 1\nrules:\n  - id: gh-ro\n    tools: 'mcp__github__*'\n    read_only: true\n    effect: deny\n",
    );
    let a = sb.hook(
        "mcp__github__create_pull_request",
        json!({"owner": "acme", "repo": "shop", "title": "t", "head": "f", "base": "main"}),
    );
    assert_eq!(a.decision(), "deny");
    assert!(
        a.reason()
            .contains("the user policy rule 'gh-ro' makes mcp__github__* read-only"),
        "{}",
        a.reason()
    );
    assert_eq!(
        sb.hook(
            "mcp__github__get_file_contents",
            json!({"owner": "acme", "repo": "shop", "path": "README.md"})
        )
        .decision(),
        "pass"
    );
    // Other tools are not read-only.
    assert_eq!(sb.bash("touch new.txt").decision(), "pass");
    assert_eq!(
        sb.hook(
            "Write",
            json!({"file_path": sb.project().join("a.txt"), "content": "x"})
        )
        .decision(),
        "pass"
    );
    // An allow rule cannot be read_only.
    sb.user_policy(
        "version: 1\nrules:\n  - id: gh-ro\n    tools: 'mcp__github__*'\n    read_only: true\n    effect: allow\n",
    );
    assert_eq!(sb.bash("ls").decision(), "deny");
}

#[test]
fn init_read_only_writes_a_project_policy_once_and_never_clobbers() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.project().join(".git")).unwrap();
    let policy = sb.project().join(".palisade.yaml");
    // Dry run: shows, writes nothing.
    let out = sb
        .command()
        .args(["init", "--read-only", "--dry-run"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("mode: read-only"));
    assert!(!policy.exists());
    // From a sub-directory: the policy goes to the project root.
    std::fs::create_dir_all(sb.project().join("src")).unwrap();
    let out = sb
        .command()
        .args(["init", "--read-only"])
        .current_dir(sb.project().join("src"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read_to_string(&policy).unwrap();
    assert!(written.contains("\nmode: read-only\n"), "{written}");
    let validate = sb
        .command()
        .args(["policy", "validate"])
        .arg(&policy)
        .output()
        .unwrap();
    assert!(validate.status.success());
    // The hook now treats the project as read-only.
    assert_eq!(sb.bash("rm -rf build").decision(), "ask");
    assert_eq!(sb.bash("git log -3").decision(), "pass");
    // Twice: nothing changes.
    let out = sb.command().args(["init", "--read-only"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("already makes this project read-only"));
    assert_eq!(std::fs::read_to_string(&policy).unwrap(), written);
    // Another project policy is never overwritten: init says so and fails.
    let mine = "version: 1\noutside_roots: deny\n";
    std::fs::write(&policy, mine).unwrap();
    let out = sb.command().args(["init", "--read-only"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not overwrite it"), "{err}");
    assert!(err.contains("mode: read-only"), "{err}");
    assert_eq!(std::fs::read_to_string(&policy).unwrap(), mine);
}

#[test]
fn the_example_policies_load_and_validate() {
    let sb = Sandbox::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/policies");
    for name in ["limits.yaml", "read-only.yaml"] {
        let out = sb
            .command()
            .args(["policy", "validate"])
            .arg(dir.join(name))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // read-only.yaml as the user policy: changes denied, reads pass.
    let text = std::fs::read_to_string(dir.join("read-only.yaml")).unwrap();
    sb.user_policy(&text);
    assert_eq!(sb.bash("rm -rf build").decision(), "deny");
    assert_eq!(sb.bash("git diff").decision(), "pass");
    // limits.yaml: the 6th recursive delete in an hour is refused.
    let text = std::fs::read_to_string(dir.join("limits.yaml")).unwrap();
    sb.user_policy(&text);
    let mut ev = sb.event("Bash", json!({"command": "rm -rf build"}));
    ev["session_id"] = json!("limits-example");
    for _ in 0..5 {
        assert_eq!(sb.hook_raw(ev.to_string().as_bytes()).decision(), "pass");
    }
    let a = sb.hook_raw(ev.to_string().as_bytes());
    assert_eq!(a.decision(), "deny");
    assert!(a.reason().contains("limit rm-trees: 6th"), "{}", a.reason());
}
