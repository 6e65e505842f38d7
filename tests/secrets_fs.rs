//! Secret reads on a real filesystem: a project file that is a hard link to a private key or
//! a credential file is that secret, through the hook binary as Claude Code runs it, in a
//! temporary HOME. The lexical view of `check`/`replay` has no inodes and cannot see them.

mod common;

use common::Sandbox;
use serde_json::json;

/// A sandbox with a private key, its public half and cloud credentials in its HOME.
fn with_secrets() -> Sandbox {
    let sb = Sandbox::new();
    let ssh = sb.home().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(
        ssh.join("id_rsa"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\nx\n",
    )
    .unwrap();
    std::fs::write(ssh.join("id_rsa.pub"), "ssh-rsa AAAA me@host\n").unwrap();
    std::fs::write(
        ssh.join("deploy"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\ny\n",
    )
    .unwrap();
    let aws = sb.home().join(".aws");
    std::fs::create_dir_all(&aws).unwrap();
    std::fs::write(
        aws.join("credentials"),
        "[default]\naws_secret_access_key=x\n",
    )
    .unwrap();
    std::fs::create_dir_all(sb.project().join("docs")).unwrap();
    sb
}

#[track_caller]
fn expect(sb: &Sandbox, command: &str, want: &str) {
    let a = sb.bash(command);
    assert_eq!(a.decision(), want, "{command}: {}", a.reason());
}

#[test]
fn a_hard_link_to_a_private_key_is_the_key() {
    let sb = with_secrets();
    let p = sb.project();
    std::fs::hard_link(sb.home().join(".ssh/id_rsa"), p.join("innocent.txt")).unwrap();
    std::fs::hard_link(sb.home().join(".ssh/deploy"), p.join("docs/notes.md")).unwrap();
    expect(&sb, "cat ./innocent.txt", "deny");
    expect(&sb, "head -n 3 innocent.txt", "deny");
    expect(&sb, "base64 docs/notes.md", "deny");
    let read = sb.hook("Read", json!({"file_path": p.join("innocent.txt")}));
    assert_eq!(read.decision(), "deny", "{}", read.reason());
}

#[test]
fn a_hard_link_to_cloud_credentials_is_them() {
    let sb = with_secrets();
    let p = sb.project();
    std::fs::hard_link(sb.home().join(".aws/credentials"), p.join("config.ini")).unwrap();
    expect(&sb, "cat config.ini", "deny");
}

#[test]
fn other_hard_links_and_plain_files_pass() {
    let sb = with_secrets();
    let p = sb.project();
    std::fs::write(p.join("a.txt"), "hello\n").unwrap();
    std::fs::hard_link(p.join("a.txt"), p.join("b.txt")).unwrap();
    std::fs::hard_link(sb.home().join(".ssh/id_rsa.pub"), p.join("key.pub.txt")).unwrap();
    std::fs::write(p.join("README.md"), "# x\n").unwrap();
    expect(&sb, "cat a.txt b.txt", "pass");
    expect(&sb, "cat key.pub.txt", "pass");
    expect(&sb, "cat README.md", "pass");
    expect(&sb, "cat missing.txt", "pass");
}
