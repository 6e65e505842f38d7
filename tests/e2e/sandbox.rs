//! A throwaway HOME for tests that run the real `palisade` binary: every location palisade or
//! Claude Code reads (HOME, XDG_*, CLAUDE_CONFIG_DIR, PALISADE_DATA_DIR) points inside it, so a
//! test never touches the real home.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "../under_test/mod.rs"]
mod under_test;

pub struct Sandbox {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub project: PathBuf,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        // Under cargo's target tmp dir, not /tmp: the system temp dir is a write root for
        // palisade, and a HOME inside it would make `rm -rf ~` look like cleaning up temp files.
        let dir = tempfile::Builder::new()
            .prefix("sandbox-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("tempdir");
        let home = dir.path().join("home");
        let project = home.join("project");
        std::fs::create_dir_all(&project).unwrap();
        Sandbox { dir, home, project }
    }

    /// A sandbox outside the system temp dirs (`/tmp`, `/var/tmp`, `$TMPDIR`), which are write
    /// roots of their own, for tests of what lies outside every root: cargo's target tmp dir
    /// unless the checkout lives under one of them (CI may clone there), else `/dev/shm`.
    /// `None` when there is no such place; the caller skips and says so.
    pub fn outside_temp_roots() -> Option<Sandbox> {
        let temp: Vec<PathBuf> = ["/tmp", "/var/tmp"]
            .into_iter()
            .map(PathBuf::from)
            .chain(std::env::var_os("TMPDIR").map(PathBuf::from))
            .flat_map(|t| [std::fs::canonicalize(&t).unwrap_or(t.clone()), t])
            .collect();
        let base = [
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
            PathBuf::from("/dev/shm"),
        ]
        .into_iter()
        .find(|d| {
            let real = std::fs::canonicalize(d).unwrap_or(d.clone());
            !temp.iter().any(|t| real.starts_with(t)) && tempfile::tempdir_in(d).is_ok()
        })?;
        let dir = tempfile::Builder::new()
            .prefix("sandbox-")
            .tempdir_in(base)
            .ok()?;
        let home = dir.path().join("home");
        let project = home.join("project");
        std::fs::create_dir_all(&project).unwrap();
        Some(Sandbox { dir, home, project })
    }

    /// The palisade binary under test.
    pub fn bin() -> PathBuf {
        under_test::palisade_bin()
    }

    pub fn claude_dir(&self) -> PathBuf {
        self.home.join(".claude")
    }

    pub fn user_settings(&self) -> PathBuf {
        self.claude_dir().join("settings.json")
    }

    pub fn user_policy(&self) -> PathBuf {
        self.home.join(".config/palisade/policy.yaml")
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    /// The environment every spawned process gets, as (name, value) pairs.
    pub fn vars(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("HOME", self.home.clone()),
            ("XDG_CONFIG_HOME", self.home.join(".config")),
            ("XDG_DATA_HOME", self.home.join(".local/share")),
            ("XDG_CACHE_HOME", self.home.join(".cache")),
            ("XDG_STATE_HOME", self.home.join(".local/state")),
            ("CLAUDE_CONFIG_DIR", self.claude_dir()),
            ("PALISADE_DATA_DIR", self.data_dir()),
        ]
    }

    /// `palisade <args>` in the project directory with the sandbox environment.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(Sandbox::bin());
        c.args(args).current_dir(&self.project);
        self.apply_env(&mut c);
        c
    }

    /// Points a command at the sandbox (and clears what would leak the runner's setup in).
    pub fn apply_env(&self, c: &mut Command) {
        for var in [
            "PALISADE_CONFIG",
            "CLAUDE_PROJECT_DIR",
            "RUST_LOG",
            "NO_COLOR",
        ] {
            c.env_remove(var);
        }
        for (k, v) in self.vars() {
            c.env(k, v);
        }
    }

    /// `palisade hook` with `event` on stdin, as Claude Code runs it for a session in
    /// `project` (CLAUDE_PROJECT_DIR). A hook may answer before reading all of stdin: only a
    /// broken pipe is accepted when writing it, and the answer is judged by its output.
    pub fn hook_in(&self, project: &Path, event: &[u8]) -> Output {
        use std::io::Write;
        let mut child = self
            .cmd(&["hook"])
            .env("CLAUDE_PROJECT_DIR", project)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn palisade hook");
        if let Err(e) = child.stdin.take().unwrap().write_all(event) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
        child.wait_with_output().unwrap()
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().expect("spawn palisade")
    }

    pub fn write(&self, path: &Path, text: &str) {
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(path, text).unwrap();
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// True once the real policy loader is in the build: it rejects an unknown top-level key.
/// (The skeleton's stub accepts anything; assertions about policy loading wait for the real one.)
pub fn policy_loader_is_real() -> bool {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    std::fs::write(&file, "version: 1\nno_such_key: true\n").unwrap();
    let loc = palisade::locations::Locations::from_vars(|k| match k {
        "HOME" => Some(dir.path().to_path_buf()),
        "PALISADE_CONFIG" => Some(file.clone()),
        "PALISADE_DATA_DIR" => Some(dir.path().join("state")),
        _ => None,
    });
    palisade::policy::load(&loc, dir.path()).is_err()
}

/// True once the shell analysis is in the build (the skeleton's stub finds no commands): until
/// then no rule can see what a Bash command does, so Bash denies are not asserted.
pub fn shell_analysis_present() -> bool {
    !palisade::shell::analyse("rm -rf /").commands.is_empty()
}

/// True once the risk module applies a policy's `risk:` block (the skeleton's stub ignores it).
pub fn risk_block_applied() -> bool {
    let mut s = palisade::risk::RiskSettings::default();
    let c = palisade::risk::RiskConfig {
        enabled: Some(true),
        ..Default::default()
    };
    s.apply_user(&c).is_ok() && s.enabled
}
