//! Spawns the real `palisade` binary as Claude Code does, in an isolated HOME and state dir.
#![allow(dead_code)]

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[path = "../under_test/mod.rs"]
mod under_test;
pub use under_test::palisade_bin;

/// A temporary HOME with its own XDG dirs, Claude config dir and palisade state dir.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

/// What one hook process printed and how it exited.
#[derive(Debug)]
pub struct Answer {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Answer {
    /// The `permissionDecision` of the JSON answer, or `pass` for exit 0 with empty stdout.
    pub fn decision(&self) -> String {
        if self.stdout.trim().is_empty() {
            assert_eq!(self.code, 0, "empty stdout must mean exit 0: {self:?}");
            return "pass".into();
        }
        let v: Value = serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}): {self:?}"));
        let d = v["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or_else(|| panic!("no decision: {self:?}"))
            .to_string();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        if d == "deny" {
            assert_eq!(self.code, 2, "a deny must exit 2: {self:?}");
            assert!(
                !self.stderr.trim().is_empty(),
                "a deny must explain itself on stderr"
            );
        } else {
            assert_eq!(self.code, 0, "{self:?}");
        }
        d
    }

    /// The reason shown to the model or the user.
    pub fn reason(&self) -> String {
        let v: Value = serde_json::from_str(&self.stdout).unwrap_or(Value::Null);
        v["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("home/project")).unwrap();
        Sandbox { dir }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn project(&self) -> PathBuf {
        self.home().join("project")
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("state/palisade")
    }

    pub fn config_dir(&self) -> PathBuf {
        self.dir.path().join("config")
    }

    /// A `palisade` command with the sandbox environment.
    pub fn command(&self) -> Command {
        let mut c = Command::new(palisade_bin());
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.config_dir())
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("XDG_STATE_HOME", self.dir.path().join("state"))
            .env("CLAUDE_CONFIG_DIR", self.home().join(".claude"))
            .env("PALISADE_DATA_DIR", self.data_dir())
            .current_dir(self.project());
        c
    }

    /// Runs `palisade hook` with raw bytes on stdin.
    pub fn hook_raw(&self, stdin: &[u8]) -> Answer {
        self.hook_with(stdin, |_| {})
    }

    /// Runs `palisade hook` with extra setup of the command.
    pub fn hook_with(&self, stdin: &[u8], setup: impl FnOnce(&mut Command)) -> Answer {
        let mut cmd = self.command();
        cmd.arg("hook")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        setup(&mut cmd);
        let mut child = cmd.spawn().expect("spawn palisade");
        {
            let mut stdin_pipe = child.stdin.take().unwrap();
            // The hook may stop reading early (over the cap); a broken pipe is fine.
            let _ = stdin_pipe.write_all(stdin);
        }
        let out = child.wait_with_output().expect("wait");
        Answer {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap_or(-1),
        }
    }

    /// A PreToolUse event for `tool` with `input`, in the sandbox project.
    pub fn event(&self, tool: &str, input: Value) -> Value {
        serde_json::json!({
            "session_id": "s1",
            "transcript_path": self.dir.path().join("transcript.jsonl"),
            "cwd": self.project(),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": input,
            "tool_use_id": "toolu_1",
        })
    }

    /// Runs the hook on a PreToolUse event.
    pub fn hook(&self, tool: &str, input: Value) -> Answer {
        self.hook_raw(self.event(tool, input).to_string().as_bytes())
    }

    /// Runs the hook on a Bash command.
    pub fn bash(&self, command: &str) -> Answer {
        self.hook("Bash", serde_json::json!({ "command": command }))
    }

    /// Writes the user policy.
    pub fn user_policy(&self, yaml: &str) -> PathBuf {
        let p = self.config_dir().join("palisade/policy.yaml");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, yaml).unwrap();
        p
    }

    /// Writes the project policy.
    pub fn project_policy(&self, yaml: &str) -> PathBuf {
        let p = self.project().join(".palisade.yaml");
        std::fs::write(&p, yaml).unwrap();
        p
    }
}

/// Paths relative to the sandbox, for messages.
pub fn show(p: &Path) -> String {
    p.display().to_string()
}
