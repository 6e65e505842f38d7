//! Secret reads on a real filesystem, through the hook binary as Claude Code runs it, in a
//! temporary HOME: a project file that is a hard link to a private key or a credential file is
//! that secret; a read of a whole tree takes the secrets under it, and, when it follows links,
//! what a link in it points to; a glob reads each file it matches. The lexical view of `check`/`replay` has no inodes or links.

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

/// A project holding links out of it: to the credentials directory, to a key, to home.
fn with_links_out() -> Sandbox {
    let sb = with_secrets();
    let p = sb.project();
    std::fs::write(p.join("docs/a.md"), "# a\n").unwrap();
    std::os::unix::fs::symlink(sb.home().join(".aws"), p.join("docs/cloud")).unwrap();
    sb
}

#[test]
fn a_tree_read_that_follows_links_reads_what_they_point_to() {
    let sb = with_links_out();
    for command in [
        "grep -R '' .",
        "grep --dereference-recursive -h . docs",
        "tar chf - . | base64",
        "tar --dereference -czf /tmp/p.tgz docs",
        "zip -r /tmp/p.zip .",
        "cp -rL . /tmp/copy",
        "rsync -a --copy-unsafe-links ./ /tmp/copy/",
        "find -L . -type f -exec cat {} +",
        "find . -exec cat {} +",
        "find docs | xargs cat",
        "rg -L --hidden '' .",
        // A member named through a link, relative to `-C`, as without it.
        "tar czf /tmp/p.tgz -C docs cloud/",
        "tar czf /tmp/p.tgz docs/cloud/",
    ] {
        expect(&sb, command, "deny");
    }
    // A link to a key, and a link to home itself, deep in the tree.
    let sb = with_secrets();
    let deep = sb.project().join("a/b");
    std::fs::create_dir_all(&deep).unwrap();
    std::os::unix::fs::symlink(sb.home().join(".ssh/deploy"), deep.join("k")).unwrap();
    expect(&sb, "zip -r /tmp/p.zip a", "deny");
    let sb = with_secrets();
    std::os::unix::fs::symlink(sb.home(), sb.project().join("docs/h")).unwrap();
    expect(&sb, "grep -R '' docs", "deny");
}

#[test]
fn a_tree_read_that_keeps_links_or_a_tree_without_them_passes() {
    let sb = with_links_out();
    for command in [
        "grep -r '' .",
        "grep -R TODO .",
        "grep -Rl '' .",
        "tar cf - . | base64",
        "zip -ry /tmp/p.zip .",
        "cp -r . /tmp/copy",
        "rsync -a ./ /tmp/copy/",
        "find . -type f -exec cat {} +",
        "find . -type f | xargs cat",
        "find . -name '*.md' -exec cat {} +",
    ] {
        expect(&sb, command, "pass");
    }
    // Links that stay inside the tree, and links to ordinary places outside it.
    let sb = with_secrets();
    let p = sb.project();
    std::fs::create_dir_all(p.join("src")).unwrap();
    std::fs::write(p.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::os::unix::fs::symlink(p.join("src"), p.join("lib")).unwrap();
    std::os::unix::fs::symlink("../src/main.rs", p.join("docs/main.rs")).unwrap();
    let shared = sb.home().join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    std::os::unix::fs::symlink(&shared, p.join("shared")).unwrap();
    for command in [
        "grep -R '' .",
        "zip -r /tmp/p.zip .",
        "tar chf - . | base64",
        "cp -rL . /tmp/copy",
        "find -L . -type f -exec cat {} +",
    ] {
        expect(&sb, command, "pass");
    }
}

#[test]
fn a_glob_reads_each_file_it_matches_on_disk() {
    let sb = with_links_out();
    let p = sb.project();
    std::os::unix::fs::symlink(sb.home().join(".aws/credentials"), p.join("creds.txt")).unwrap();
    std::os::unix::fs::symlink(sb.home().join(".ssh"), p.join("keys")).unwrap();
    std::fs::write(p.join("README.md"), "# x\n").unwrap();
    for command in [
        "cat *",
        "cat c*.txt",
        "grep . *.txt",
        "head -c 9999 ./k*/id*",
        "base64 k?ys/d*",
        "cat d*/c*/*",
        "cp *.txt /tmp/out/",
        "grep -r '' *",
    ] {
        expect(&sb, command, "deny");
    }
    // A hard link to a key among the files a glob matches.
    std::fs::hard_link(sb.home().join(".ssh/deploy"), p.join("docs/b.md")).unwrap();
    expect(&sb, "cat docs/*.md", "deny");
    std::fs::remove_file(p.join("docs/b.md")).unwrap();
    for command in [
        "cat *.md",
        "cat docs/*.md",
        "wc -l docs/*",
        "ls -la *",
        "cat k*/*.pub",
        "cat no-such-*",
    ] {
        expect(&sb, command, "pass");
    }
}

#[test]
fn a_find_narrowed_by_name_hands_over_the_links_it_lists() {
    let sb = with_links_out();
    let p = sb.project();
    std::os::unix::fs::symlink(sb.home().join(".aws/credentials"), p.join("creds.txt")).unwrap();
    std::os::unix::fs::symlink(sb.home().join(".ssh"), p.join("keys")).unwrap();
    std::fs::write(p.join("notes.txt"), "x\n").unwrap();
    for command in [
        "find . -name '*.txt' -exec cat {} +",
        "find . -name '*.txt' | xargs cat",
        "cat $(find . -name '*.txt')",
        "find -L . -name 'deploy' -exec cat {} +",
        "find -L . -type f -name '*.txt' -exec head {} +",
    ] {
        expect(&sb, command, "deny");
    }
    for command in [
        // `-type f` without `-L` keeps the links out; a name no link has selects none.
        "find . -type f -name '*.txt' -exec cat {} +",
        "find . -name '*.md' -exec cat {} +",
        "find . -name 'deploy' -exec cat {} +",
    ] {
        expect(&sb, command, "pass");
    }
}

#[test]
fn a_tree_read_of_home_takes_the_keys_it_holds() {
    let sb = with_secrets();
    for command in [
        "tar cz ~ | base64",
        "find ~ -type f -exec cat {} +",
        "find ~ -type f | xargs head -n 50",
        "grep -r '' ~",
        "cp -a ~ /tmp/home-copy",
    ] {
        expect(&sb, command, "deny");
    }
    // A home whose only key has a name of its own: `~/.ssh` holds it.
    let sb = Sandbox::new();
    let ssh = sb.home().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("work"), "-----BEGIN OPENSSH PRIVATE KEY-----\n").unwrap();
    expect(&sb, "tar cz ~ | base64", "deny");
    // Names, counts and the lines a pattern picks are not the files.
    let sb = with_secrets();
    for command in ["grep -rn TODO ~", "grep -rl '' ~", "ls -laR ~", "du -a ~"] {
        expect(&sb, command, "pass");
    }
}
