//! `audit tail` as a user reads it: one line per call within 100 columns, filters, JSON, the
//! user's answer to each ask (from the PostToolUse that follows it), colour only on a terminal.

mod audit_support;

use audit_support::Sandbox;
use serde_json::Value;

fn post_event(session: &str, command: &str) -> String {
    let mut v: Value = serde_json::from_str(&audit_support::bash_event(session, command)).unwrap();
    v["hook_event_name"] = "PostToolUse".into();
    v["tool_response"] = serde_json::json!({"stdout": "", "stderr": ""});
    v.to_string()
}

fn hook(sb: &Sandbox, event: &str) {
    let out = sb.run(&["hook"], event);
    assert!(matches!(out.status.code(), Some(0 | 2)), "{out:?}");
}

/// A small session: an approved ask, an unanswered ask, a deny, a pass (with its post), and a
/// call in another session.
fn session(sb: &Sandbox) {
    hook(
        sb,
        &audit_support::bash_event("s1", "git push --force origin main"),
    );
    hook(sb, &post_event("s1", "git push --force origin main"));
    hook(
        sb,
        &audit_support::bash_event("s1", "git reset --hard HEAD~3"),
    );
    hook(sb, &audit_support::bash_event("s1", "rm -rf /"));
    hook(sb, &audit_support::bash_event("s1", "ls"));
    hook(sb, &post_event("s1", "ls"));
    let long = format!("echo {}", "x".repeat(300));
    hook(sb, &audit_support::bash_event("s2", &long));
}

fn tail(sb: &Sandbox, args: &[&str]) -> String {
    let mut all = vec!["audit", "tail"];
    all.extend_from_slice(args);
    let out = sb.run(&all, "");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    audit_support::stdout(&out)
}

#[test]
fn one_line_per_call_with_the_answer_to_each_ask() {
    let sb = Sandbox::new();
    session(&sb);
    let text = tail(&sb, &[]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    for l in &lines {
        assert!(
            l.chars().count() <= 100,
            "{} columns: {l}",
            l.chars().count()
        );
        assert!(!l.contains('\x1b'), "no colour into a pipe: {l:?}");
    }
    assert!(
        lines[0].contains("ask:yes") && lines[0].contains("git push --force"),
        "{text}"
    );
    assert!(
        lines[1].contains("ask:no") && lines[1].contains("git reset --hard"),
        "{text}"
    );
    assert!(
        lines[2].contains("deny") && lines[2].contains("[destructive-fs/rm-critical]"),
        "{text}"
    );
    assert!(
        lines[4].contains("echo xxx") && lines[4].ends_with('…'),
        "{text}"
    );
}

#[test]
fn filters_and_json() {
    let sb = Sandbox::new();
    session(&sb);
    let text = tail(&sb, &["--effect", "ask"]);
    assert_eq!(text.lines().count(), 2, "{text}");
    let text = tail(&sb, &["--session", "s2"]);
    assert_eq!(text.lines().count(), 1, "{text}");
    let text = tail(&sb, &["--rule", "destructive-git"]);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert_eq!(tail(&sb, &["--since", "1h"]).lines().count(), 5);
    let text = tail(&sb, &["--effect", "ask", "--json"]);
    let asks: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(asks[0]["answer"], "approved");
    assert_eq!(asks[1]["answer"], "not approved");
    assert_eq!(asks[0]["decision"]["rule"], "destructive-git/force-push");
    let out = sb.run(&["audit", "tail", "--since", "soon"], "");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn colour_on_a_terminal_only() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: `script` (util-linux) is needed to give palisade a terminal");
        return;
    }
    let sb = Sandbox::new();
    session(&sb);
    let bin = audit_support::palisade_bin();
    let mut cmd = sb.cmd(&[]);
    cmd.env_remove("NO_COLOR");
    let out = std::process::Command::new("script")
        .args([
            "-qec",
            &format!("{} audit tail", bin.display()),
            "/dev/null",
        ])
        .envs(cmd.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
        .current_dir(sb.root())
        .output()
        .unwrap();
    let text = audit_support::stdout(&out);
    assert!(text.contains("\x1b[31mdeny\x1b[0m"), "{text:?}");
    assert!(text.contains("\x1b[33mask:yes\x1b[0m"), "{text:?}");
}

/// The README's `audit tail` lines run as written.
#[test]
fn the_readme_commands_run() {
    let sb = Sandbox::new();
    session(&sb);
    let text = tail(&sb, &["--effect", "deny", "--since", "24h"]);
    assert_eq!(text.lines().count(), 1, "{text}");
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(readme.contains("palisade audit tail --effect deny --since 24h"));
}
