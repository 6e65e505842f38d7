//! `palisade check` and `palisade explain` as a CI script would run them: exit 0 allow, 1 deny,
//! 3 ask, 4 no opinion, 2 for a usage error; explain shows what came from which file.

mod common;
use common::Sandbox;

fn check(sb: &Sandbox, args: &[&str]) -> (i32, String) {
    let out = sb
        .command()
        .arg("check")
        .args(args)
        .output()
        .expect("run check");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn exit_codes_follow_the_verdict() {
    let sb = Sandbox::new();
    sb.user_policy(
        "version: 1\nrules:\n  - id: gh-own-org\n    tools: ['mcp__github__*']\n    effect: allow\n    when:\n      owner: {oneOf: [acme]}\n",
    );
    let (code, out) = check(&sb, &["--command", "rm -rf ~"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("deny:") && out.contains("destructive-fs/rm-critical"),
        "{out}"
    );
    let (code, out) = check(&sb, &["--command", "git push --force origin main"]);
    assert_eq!(code, 3, "{out}");
    let (code, _) = check(&sb, &["--command", "cargo test"]);
    assert_eq!(code, 4);
    let (code, out) = check(
        &sb,
        &[
            "--tool",
            "mcp__github__create_issue",
            "--input",
            r#"{"owner":"acme"}"#,
        ],
    );
    assert_eq!(code, 0, "{out}");
    // The allow rule's near miss is named when the argument is outside it, but the verdict is
    // what it would be without the rule: an allow rule only widens.
    let (code, out) = check(
        &sb,
        &[
            "--tool",
            "mcp__github__create_issue",
            "--input",
            r#"{"owner":"evil"}"#,
            "--json",
        ],
    );
    assert_eq!(code, 4, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["decision"], "pass", "{out}");
    let near = v["near_misses"][0].as_str().unwrap();
    assert!(
        near.contains("gh-own-org") && near.contains("evil"),
        "{out}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let sb = Sandbox::new();
    assert_eq!(check(&sb, &[]).0, 2);
    assert_eq!(check(&sb, &["--tool", "Write", "--input", "not json"]).0, 2);
    assert_eq!(check(&sb, &["--input", "{}"]).0, 2);
}

#[test]
fn explain_names_files_and_ignored_loosening() {
    let sb = Sandbox::new();
    let user = sb.user_policy("version: 1\npacks:\n  disable: [publishing]\n");
    std::fs::create_dir_all(sb.project().join(".git")).unwrap();
    let project = sb.project_policy(
        "version: 1\nrules:\n  - id: sneaky\n    tools: ['**']\n    effect: allow\n",
    );
    let out = sb.command().arg("explain").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&user.display().to_string()), "{text}");
    assert!(text.contains(&project.display().to_string()), "{text}");
    assert!(
        text.contains("sneaky"),
        "the ignored allow rule is listed: {text}"
    );
    assert!(
        text.contains("destructive-fs/rm-critical"),
        "built-in rules are listed"
    );
}

/// The hook reads a file's content through the real filesystem view; `check` has a lexical
/// world and reads none: a public certificate named `.pem` passes in the hook and is asked
/// about in `check`, and `cargo install --path DIR` of a crate named palisade is refused by the
/// hook (it reads `DIR/Cargo.toml`) and not by `check` (no manifest to read).
#[test]
fn the_hook_reads_files_and_check_does_not() {
    let sb = Sandbox::new();
    let certs = sb.project().join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    std::fs::write(
        certs.join("ca.pem"),
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    std::fs::write(
        certs.join("server.pem"),
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    let fork = sb.project().join("fork");
    std::fs::create_dir_all(&fork).unwrap();
    std::fs::write(
        fork.join("Cargo.toml"),
        "[package]\nname = \"palisade\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    let cwd = sb.project().display().to_string();

    let public = sb.bash("cat certs/ca.pem");
    assert_ne!(public.decision(), "ask", "{}", public.reason());
    assert_ne!(public.decision(), "deny", "{}", public.reason());
    assert_eq!(sb.bash("cat certs/server.pem").decision(), "ask");
    let (code, out) = check(&sb, &["--cwd", &cwd, "--command", "cat certs/ca.pem"]);
    assert_eq!(code, 3, "{out}");
    let (code, out) = check(&sb, &["--cwd", &cwd, "--command", "cat certs/server.pem"]);
    assert_eq!(code, 3, "{out}");

    let install = "cargo install --path fork --force";
    assert_eq!(sb.bash(install).decision(), "deny");
    let (code, out) = check(&sb, &["--cwd", &cwd, "--command", install]);
    assert_ne!(code, 1, "{out}");
}

/// A home inside a temp directory (`HOME=/tmp/…` in containers and CI jobs, and in this
/// sandbox) stays the user's: its dotfiles are outside the project although `/tmp` is a write
/// root; the project below it and the rest of `/tmp` stay writable.
#[test]
fn a_home_under_a_temp_root_is_not_temp() {
    let sb = Sandbox::new();
    assert!(
        sb.home().starts_with(std::env::temp_dir()),
        "the sandbox's home is under /tmp"
    );
    let (code, out) = check(&sb, &["--command", "rm -rf ~/.ssh"]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("outside the project"), "{out}");
    let (code, out) = check(&sb, &["--command", "echo x > ~/notes.txt"]);
    assert_eq!(code, 3, "{out}");
    let (code, out) = check(&sb, &["--command", "rm -rf dist && echo x > build.log"]);
    assert_eq!(code, 4, "{out}");
    let elsewhere = format!(
        "rm -rf {}/palisade-scratch-x",
        std::env::temp_dir().display()
    );
    let (code, out) = check(&sb, &["--command", &elsewhere]);
    assert_eq!(code, 4, "{out}");
}
