//! The Claude Code plugin: its manifests have the documented shape, and its hook command, run
//! the way Claude Code runs it (same command and args, `CLAUDE_PLUGIN_ROOT` set, event on
//! stdin), gives palisade's answer — or a block when palisade cannot run.

#[path = "e2e/sandbox.rs"]
mod sandbox;

use sandbox::{Sandbox, stderr, stdout};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn plugin_root() -> PathBuf {
    repo().join("plugin")
}

fn json_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The handlers of hooks.json, checked for the shape Claude Code documents.
fn handlers() -> Vec<(String, Value)> {
    let v = json_file(&plugin_root().join("hooks/hooks.json"));
    let top: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(top, ["description", "hooks"]);
    let mut out = Vec::new();
    for (event, groups) in v["hooks"].as_object().unwrap() {
        let groups = groups.as_array().unwrap();
        assert_eq!(groups.len(), 1, "{event}: one group");
        assert!(
            palisade::settings_file::matches_all(&groups[0]),
            "{event}: no matcher, so every tool (MCP and future ones included) reaches palisade"
        );
        for h in groups[0]["hooks"].as_array().unwrap() {
            out.push((event.clone(), h.clone()));
        }
    }
    out
}

#[test]
fn hooks_json_has_the_documented_shape() {
    let hs = handlers();
    let events: Vec<&str> = hs.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(events, ["PreToolUse", "PostToolUse"]);
    for (event, h) in &hs {
        assert_eq!(h["type"], "command", "{event}");
        let command = h["command"].as_str().unwrap();
        let rel = command
            .strip_prefix("${CLAUDE_PLUGIN_ROOT}/")
            .unwrap_or_else(|| panic!("{event}: {command} must live in the plugin"));
        assert_eq!(h["args"], serde_json::json!(["hook"]), "{event}: exec form");
        let timeout = h["timeout"].as_f64().unwrap();
        assert!(
            timeout > palisade::hook::DEADLINE.as_secs_f64(),
            "{event}: timeout above palisade's own deadline"
        );
        let script = plugin_root().join(rel);
        assert!(script.is_file(), "{}", script.display());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&script).unwrap().permissions().mode();
            assert!(mode & 0o111 != 0, "{} must be executable", script.display());
        }
    }
}

#[test]
fn manifests_agree() {
    let plugin = json_file(&plugin_root().join(".claude-plugin/plugin.json"));
    assert_eq!(plugin["name"], "palisade");
    assert_eq!(plugin["version"], env!("CARGO_PKG_VERSION"));
    let market = json_file(&repo().join(".claude-plugin/marketplace.json"));
    let name = market["name"].as_str().unwrap();
    assert!(
        name.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
        "kebab-case marketplace name"
    );
    assert!(market["owner"]["name"].is_string());
    let entry = &market["plugins"][0];
    assert_eq!(entry["name"], plugin["name"]);
    assert_eq!(entry["source"], "./plugin");
    assert_eq!(entry["version"], plugin["version"]);
    assert!(repo().join("plugin/.claude-plugin/plugin.json").is_file());
}

/// Runs the PreToolUse handler as Claude Code does: `${CLAUDE_PLUGIN_ROOT}` substituted in the
/// command, exec form with the handler's args, plugin variables in the environment.
fn run_plugin_hook(sb: &Sandbox, plugin_data: &Path, path_var: &str, input: &[u8]) -> Output {
    use std::io::Write;
    let (_, h) = handlers().into_iter().next().unwrap();
    let root = plugin_root();
    let command = h["command"]
        .as_str()
        .unwrap()
        .replace("${CLAUDE_PLUGIN_ROOT}", &root.to_string_lossy());
    let args: Vec<String> = h["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let mut cmd = std::process::Command::new(command);
    cmd.args(&args).current_dir(&sb.project);
    sb.apply_env(&mut cmd);
    cmd.env("CLAUDE_PLUGIN_ROOT", &root)
        .env("CLAUDE_PLUGIN_DATA", plugin_data)
        .env("CLAUDE_PROJECT_DIR", &sb.project)
        .env("PATH", path_var)
        .env_remove("PALISADE_BIN")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    // A wrapper that refuses (no binary, a binary that dies) exits without reading stdin;
    // whether the write then fails depends on timing, so a broken pipe is part of the answer.
    let written = child.stdin.take().unwrap().write_all(input);
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

fn event(sb: &Sandbox, command: &str) -> Vec<u8> {
    serde_json::json!({
        "session_id": "plugin-test",
        "cwd": sb.project,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_plugin_1"
    })
    .to_string()
    .into_bytes()
}

/// A PATH with the system tools and no palisade on it.
const SYSTEM_PATH: &str = "/usr/bin:/bin";

fn place(path: &Path, target_or_script: Result<&Path, &str>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    match target_or_script {
        // A link, not a copy: executing a file just written races with other tests' forks
        // (ETXTBSY).
        #[cfg(unix)]
        Ok(target) => std::os::unix::fs::symlink(target, path).unwrap(),
        #[cfg(not(unix))]
        Ok(target) => std::fs::copy(target, path).map(|_| ()).unwrap(),
        Err(script) => {
            std::fs::write(path, script).unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
    }
}

fn no_palisade_on_system_path() -> bool {
    SYSTEM_PATH
        .split(':')
        .all(|d| !Path::new(d).join("palisade").exists())
}

#[test]
fn wrapper_gives_palisades_answer() {
    let sb = Sandbox::new();
    let data = sb.dir.path().join("plugin-data");
    place(&data.join("bin/palisade"), Ok(&Sandbox::bin()));

    let out = run_plugin_hook(&sb, &data, SYSTEM_PATH, b"{\"tool_name\": ");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("palisade's JSON on stdout");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(stderr(&out).starts_with("palisade: "), "{}", stderr(&out));

    let out = run_plugin_hook(&sb, &data, SYSTEM_PATH, &event(&sb, "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    if sandbox::shell_analysis_present() {
        let out = run_plugin_hook(&sb, &data, SYSTEM_PATH, &event(&sb, "rm -rf ~"));
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    }
}

#[test]
fn wrapper_finds_cargo_installs() {
    let sb = Sandbox::new();
    place(&sb.home.join(".cargo/bin/palisade"), Ok(&Sandbox::bin()));
    let empty = sb.dir.path().join("no-data");
    let out = run_plugin_hook(&sb, &empty, SYSTEM_PATH, b"not json");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("palisade: "), "{}", stderr(&out));
    let out = run_plugin_hook(&sb, &empty, SYSTEM_PATH, &event(&sb, "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn missing_binary_blocks() {
    if !no_palisade_on_system_path() {
        eprintln!("SKIPPED missing_binary_blocks: a palisade is installed in {SYSTEM_PATH}");
        return;
    }
    let sb = Sandbox::new();
    let empty = sb.dir.path().join("no-data");
    let out = run_plugin_hook(&sb, &empty, SYSTEM_PATH, &event(&sb, "ls"));
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("palisade binary was not found"), "{err}");
    assert!(err.contains("cargo install"), "{err}");
}

#[test]
fn a_binary_that_cannot_answer_blocks() {
    let sb = Sandbox::new();
    let data = sb.dir.path().join("plugin-data");
    let bin = data.join("bin/palisade");
    let cases: [(&str, &str); 3] = [
        ("#!/bin/sh\ncat >/dev/null\nexit 1\n", "status 1"),
        (
            "#!/bin/sh\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\"}}'\nexit 101\n",
            "status 101",
        ),
        ("#!/bin/sh\nkill -9 $$\n", "status 137"),
    ];
    for (script, expect) in cases {
        let _ = std::fs::remove_file(&bin);
        place(&bin, Err(script));
        let out = run_plugin_hook(&sb, &data, SYSTEM_PATH, &event(&sb, "ls"));
        assert_eq!(out.status.code(), Some(2), "{expect}");
        assert!(stderr(&out).contains(expect), "{expect}: {}", stderr(&out));
    }
    // Present but not executable: refused, not skipped in favour of another candidate.
    std::fs::write(&bin, "not a program").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    place(&sb.home.join(".cargo/bin/palisade"), Ok(&Sandbox::bin()));
    let out = run_plugin_hook(&sb, &data, SYSTEM_PATH, &event(&sb, "ls"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("is not an executable file"),
        "{}",
        stderr(&out)
    );
}
