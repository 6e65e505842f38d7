//! CLI quality: completions, --version, and logs that never reach stdout.

#[path = "e2e/sandbox.rs"]
mod sandbox;

use sandbox::{Sandbox, stderr, stdout};

#[test]
fn completions_for_each_shell() {
    let sb = Sandbox::new();
    for (shell, marker) in [
        ("bash", "_palisade()"),
        ("zsh", "#compdef palisade"),
        ("fish", "complete -c palisade"),
    ] {
        let out = sb.run(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains(marker), "{shell}");
        for sub in ["init", "doctor", "hook"] {
            assert!(text.contains(sub), "{shell} completes {sub}");
        }
    }
    assert!(!sb.run(&["completions", "cmd.exe"]).status.success());
}

#[test]
fn version() {
    let out = Sandbox::new().run(&["--version"]);
    assert_eq!(
        stdout(&out).trim(),
        format!("palisade {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn logs_go_to_stderr_only() {
    let sb = Sandbox::new();
    assert!(sb.run(&["init"]).status.success());
    let out = sb
        .cmd(&["-vvv", "doctor", "--json"])
        .env("RUST_LOG", "trace")
        .output()
        .unwrap();
    serde_json::from_str::<serde_json::Value>(&stdout(&out))
        .unwrap_or_else(|e| panic!("stdout is one JSON object ({e}): {}", stdout(&out)));
    assert!(stderr(&out).contains("read settings"), "{}", stderr(&out));
    let quiet = sb.run(&["doctor", "--json"]);
    assert!(
        !stderr(&quiet).contains("read settings"),
        "no logs without -v"
    );

    // The hook with logging on: stdout is still exactly the protocol answer.
    use std::io::Write;
    let mut child = sb
        .cmd(&["hook"])
        .env("RUST_LOG", "trace")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The hook may answer before reading everything; a broken pipe is not a failure.
    if let Err(e) = child.stdin.take().unwrap().write_all(b"not json") {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
}
