//! Shared by the audit integration tests: run the real binary in an isolated home and state dir.
#![allow(dead_code)]

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

#[path = "../under_test/mod.rs"]
mod under_test;
pub use under_test::palisade_bin;

/// An isolated HOME / XDG / state directory for one test.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        Sandbox {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn state(&self) -> PathBuf {
        self.root().join("state")
    }

    pub fn audit_file(&self) -> PathBuf {
        self.state().join("audit.jsonl")
    }

    /// A `palisade` command with every location pointing into the sandbox.
    pub fn cmd(&self, args: &[&str]) -> Command {
        self.cmd_with_state(args, &self.state())
    }

    pub fn cmd_with_state(&self, args: &[&str], state: &Path) -> Command {
        let r = self.root();
        let mut c = Command::new(palisade_bin());
        c.args(args)
            .current_dir(r)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", r.join("home"))
            .env("XDG_CONFIG_HOME", r.join("config"))
            .env("XDG_DATA_HOME", r.join("data"))
            .env("XDG_CACHE_HOME", r.join("cache"))
            .env("XDG_STATE_HOME", r.join("xstate"))
            .env("CLAUDE_CONFIG_DIR", r.join("claude"))
            .env("PALISADE_DATA_DIR", state);
        c
    }

    /// Runs `palisade args…` with `stdin`.
    pub fn run(&self, args: &[&str], stdin: &str) -> Output {
        let mut child = self.spawn(args);
        feed(&mut child, stdin);
        child.wait_with_output().expect("wait")
    }

    pub fn spawn(&self, args: &[&str]) -> Child {
        self.cmd(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn palisade")
    }

    /// The audit entries, parsed.
    pub fn entries(&self) -> Vec<Value> {
        read_entries(&self.audit_file())
    }
}

pub fn feed(child: &mut Child, stdin: &str) {
    let mut input = child.stdin.take().expect("stdin");
    // The hook may answer before reading everything; a broken pipe is not a failure.
    if let Err(e) = input.write_all(stdin.as_bytes()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
}

pub fn read_entries(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("read audit log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("entry is JSON"))
        .collect()
}

/// A PreToolUse Bash event.
pub fn bash_event(session: &str, command: &str) -> String {
    serde_json::json!({
        "session_id": session,
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
    .to_string()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
