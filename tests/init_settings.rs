//! `palisade init` on a temporary HOME: missing, empty and rich settings files, idempotence,
//! dry run, uninstall, a broken file left alone, CLAUDE_CONFIG_DIR, project and local scope.

#[path = "e2e/sandbox.rs"]
mod sandbox;

use sandbox::{Sandbox, read_json, stderr, stdout};
use serde_json::{Value, json};
use std::path::Path;

fn our_handler() -> Value {
    json!({
        "type": "command",
        "command": Sandbox::bin().to_string_lossy(),
        "args": ["hook"],
        "timeout": 30
    })
}

/// The settings without palisade's handlers, for comparing with what was there before.
fn without_ours(mut v: Value) -> Value {
    palisade::settings_file::uninstall(&mut v);
    v
}

fn backups(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".bak"))
        .collect();
    v.sort();
    v
}

/// Laid out the way Claude Code writes settings (one element per line), with 4-space indentation
/// to show that the file's own indentation is kept.
const RICH: &str = r#"{
    "model": "opus",
    "env": {
        "FOO": "bar"
    },
    "permissions": {
        "allow": [
            "Bash(npm test)",
            "Read(~/notes/**)"
        ],
        "deny": [
            "Read(./.env)"
        ],
        "defaultMode": "acceptEdits"
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": "/usr/local/bin/audit-bash",
                        "timeout": 5
                    }
                ]
            }
        ],
        "PostToolUse": [
            {
                "matcher": "Edit|Write",
                "hooks": [
                    {
                        "type": "command",
                        "command": "prettier --write"
                    }
                ]
            }
        ],
        "Stop": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "say done"
                    }
                ]
            }
        ]
    },
    "statusLine": {
        "type": "command",
        "command": "~/.claude/statusline.sh"
    }
}
"#;

#[test]
fn installs_into_a_missing_settings_file() {
    let sb = Sandbox::new();
    let out = sb.run(&["init"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = read_json(&sb.user_settings());
    for event in ["PreToolUse", "PostToolUse"] {
        assert_eq!(
            v["hooks"][event],
            json!([{ "hooks": [our_handler()] }]),
            "{event}"
        );
    }
    assert!(backups(&sb.claude_dir()).is_empty(), "nothing to back up");
    let policy = std::fs::read_to_string(sb.user_policy()).expect("starter policy written");
    assert!(policy.starts_with("# palisade user policy"));
    assert!(stdout(&out).contains("wrote a starter policy"));
    // The test binary lives in target/: init must say it will vanish with `cargo clean`.
    assert!(stderr(&out).contains("cargo target/"), "{}", stderr(&out));
}

#[test]
fn installs_into_an_empty_file_and_backs_it_up() {
    let sb = Sandbox::new();
    sb.write(&sb.user_settings(), "");
    let out = sb.run(&["init"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = read_json(&sb.user_settings());
    assert_eq!(palisade::settings_file::palisade_handlers(&v).len(), 2);
    assert_eq!(backups(&sb.claude_dir()), ["settings.json.bak"]);
    assert_eq!(
        std::fs::read_to_string(sb.claude_dir().join("settings.json.bak")).unwrap(),
        ""
    );
}

#[test]
fn rich_settings_survive_in_meaning_and_order() {
    let sb = Sandbox::new();
    sb.write(&sb.user_settings(), RICH);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(sb.user_settings(), std::fs::Permissions::from_mode(0o600))
            .unwrap();
    }
    let out = sb.run(&["init"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let before: Value = serde_json::from_str(RICH).unwrap();
    let after = read_json(&sb.user_settings());
    assert_eq!(without_ours(after.clone()), before);
    // Exactly one group each was appended; the user's groups stay first and untouched.
    assert_eq!(
        after["hooks"]["PreToolUse"][0],
        before["hooks"]["PreToolUse"][0]
    );
    assert_eq!(
        after["hooks"]["PreToolUse"][1],
        json!({ "hooks": [our_handler()] })
    );
    assert_eq!(after["hooks"]["Stop"], before["hooks"]["Stop"]);
    let keys: Vec<&String> = after.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["model", "env", "permissions", "hooks", "statusLine"],
        "key order kept"
    );
    // The file's own style: 4-space indentation, final newline.
    let text = std::fs::read_to_string(sb.user_settings()).unwrap();
    assert!(text.starts_with("{\n    \"model\""), "{text}");
    assert!(text.ends_with("}\n"));
    // The backup is the file as it was, byte for byte; the mode is kept.
    assert_eq!(
        std::fs::read_to_string(sb.claude_dir().join("settings.json.bak")).unwrap(),
        RICH
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(sb.user_settings())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn second_run_changes_nothing() {
    let sb = Sandbox::new();
    sb.write(&sb.user_settings(), RICH);
    assert!(sb.run(&["init"]).status.success());
    let first = std::fs::read(sb.user_settings()).unwrap();
    let baks = backups(&sb.claude_dir());
    let out = sb.run(&["init"]);
    assert!(out.status.success());
    assert!(
        stdout(&out).contains("already installed"),
        "{}",
        stdout(&out)
    );
    assert_eq!(std::fs::read(sb.user_settings()).unwrap(), first);
    assert_eq!(backups(&sb.claude_dir()), baks, "no new backup");
}

#[test]
fn a_second_backup_gets_a_timestamp() {
    let sb = Sandbox::new();
    sb.write(&sb.user_settings(), RICH);
    assert!(sb.run(&["init"]).status.success());
    assert!(sb.run(&["init", "--uninstall"]).status.success());
    let baks = backups(&sb.claude_dir());
    assert_eq!(baks.len(), 2, "{baks:?}");
    assert_eq!(baks[0], "settings.json.bak");
    let stamped = &baks[1];
    let stamp = stamped.strip_prefix("settings.json.bak.").unwrap();
    assert_eq!(stamp.len(), "20260101T000000Z".len(), "{stamped}");
    assert!(
        stamp.ends_with('Z') && stamp.as_bytes()[8] == b'T',
        "{stamped}"
    );
}

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let sb = Sandbox::new();
    sb.write(&sb.user_settings(), RICH);
    let out = sb.run(&["init", "--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("--- ") && text.contains("+++ "), "{text}");
    let bin = Sandbox::bin().to_string_lossy().into_owned();
    assert!(
        text.lines()
            .any(|l| l.starts_with('+') && l.contains(&format!("\"command\": \"{bin}\""))),
        "{text}"
    );
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with('-') && !l.starts_with("---")),
        "installing only adds lines: {text}"
    );
    assert_eq!(std::fs::read_to_string(sb.user_settings()).unwrap(), RICH);
    assert!(backups(&sb.claude_dir()).is_empty());
    assert!(!sb.user_policy().exists(), "dry run writes no policy");

    // And for a file that does not exist yet: a diff from /dev/null, still nothing written.
    let sb = Sandbox::new();
    let out = sb.run(&["init", "--dry-run"]);
    assert!(stdout(&out).contains("--- /dev/null"), "{}", stdout(&out));
    assert!(!sb.user_settings().exists());
}

#[test]
fn uninstall_removes_exactly_what_init_added() {
    let sb = Sandbox::new();
    sb.write(&sb.user_settings(), RICH);
    assert!(sb.run(&["init"]).status.success());
    let out = sb.run(&["init", "--uninstall"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("removed 2"), "{}", stdout(&out));
    let before: Value = serde_json::from_str(RICH).unwrap();
    assert_eq!(read_json(&sb.user_settings()), before);

    let again = sb.run(&["init", "--uninstall"]);
    assert!(again.status.success());
    assert!(
        stdout(&again).contains("nothing changed"),
        "{}",
        stdout(&again)
    );
}

#[test]
fn uninstall_leaves_no_empty_hooks_behind() {
    let sb = Sandbox::new();
    sb.write(&sb.user_settings(), "{\"model\": \"opus\"}\n");
    assert!(sb.run(&["init"]).status.success());
    assert!(sb.run(&["init", "--uninstall"]).status.success());
    assert_eq!(read_json(&sb.user_settings()), json!({"model": "opus"}));
}

#[test]
fn uninstall_dry_run_shows_removals_only() {
    let sb = Sandbox::new();
    sb.write(&sb.user_settings(), RICH);
    assert!(sb.run(&["init"]).status.success());
    let installed = std::fs::read(sb.user_settings()).unwrap();
    let out = sb.run(&["init", "--uninstall", "--dry-run"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(
        text.lines()
            .any(|l| l.starts_with('-') && l.contains("\"hook\"")),
        "{text}"
    );
    assert_eq!(std::fs::read(sb.user_settings()).unwrap(), installed);
}

#[test]
fn an_unparseable_file_is_never_touched() {
    let sb = Sandbox::new();
    let broken = "{\n  \"model\": \"opus\",\n  \"hooks\": {,}\n}\n";
    sb.write(&sb.user_settings(), broken);
    for args in [
        &["init"][..],
        &["init", "--uninstall"],
        &["init", "--dry-run"],
    ] {
        let out = sb.run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        let shown = format!("{}:3:13", sb.user_settings().display());
        assert!(err.contains(&shown), "{args:?}: {err}");
        assert!(err.contains("never rewrites"), "{err}");
        assert_eq!(std::fs::read_to_string(sb.user_settings()).unwrap(), broken);
        assert!(backups(&sb.claude_dir()).is_empty());
    }
}

#[test]
fn a_wrong_shape_is_refused_too() {
    let sb = Sandbox::new();
    let odd = "{\"hooks\": {\"PreToolUse\": {\"matcher\": \"*\"}}}";
    sb.write(&sb.user_settings(), odd);
    let out = sb.run(&["init"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("hooks.PreToolUse"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(sb.user_settings()).unwrap(), odd);
}

#[test]
fn honours_claude_config_dir() {
    let sb = Sandbox::new();
    let elsewhere = sb.dir.path().join("claude-config");
    let out = sb
        .cmd(&["init"])
        .env("CLAUDE_CONFIG_DIR", &elsewhere)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = read_json(&elsewhere.join("settings.json"));
    assert_eq!(palisade::settings_file::palisade_handlers(&v).len(), 2);
    assert!(!sb.home.join(".claude").exists(), "~/.claude untouched");
}

#[test]
fn project_and_local_scopes() {
    let sb = Sandbox::new();
    let out = sb.run(&["init", "--project"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let project = sb.project.join(".claude/settings.json");
    assert_eq!(
        palisade::settings_file::palisade_handlers(&read_json(&project)).len(),
        2
    );
    let out = sb.run(&["init", "--local"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let local = sb.project.join(".claude/settings.local.json");
    assert_eq!(
        palisade::settings_file::palisade_handlers(&read_json(&local)).len(),
        2
    );
    assert!(!sb.user_settings().exists());
    let both = sb.run(&["init", "--project", "--local"]);
    assert!(!both.status.success(), "the flags exclude each other");
}

#[test]
fn warns_about_what_would_switch_the_firewall_off() {
    let sb = Sandbox::new();
    sb.write(
        &sb.project.join(".claude/settings.local.json"),
        r#"{"disableAllHooks": true}"#,
    );
    sb.write(
        &sb.project.join(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "/opt/old/palisade", "args": ["hook"]}]}]}}"#,
    );
    let out = sb.run(&["init"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("settings.local.json sets \"disableAllHooks\": true"),
        "{err}"
    );
    assert!(
        err.contains("also runs palisade from /opt/old/palisade"),
        "{err}"
    );
}

#[test]
fn an_existing_policy_is_never_overwritten() {
    let sb = Sandbox::new();
    sb.write(&sb.user_policy(), "version: 1\nheadless: true\n");
    let out = sb.run(&["init"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("using your policy"));
    assert_eq!(
        std::fs::read_to_string(sb.user_policy()).unwrap(),
        "version: 1\nheadless: true\n"
    );
}

#[test]
fn refuses_a_binary_that_cannot_run() {
    let sb = Sandbox::new();
    sb.write(&sb.user_settings(), RICH);
    let out = sb.run(&["init", "--binary", "/nonexistent/palisade"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("/nonexistent/palisade"),
        "{}",
        stderr(&out)
    );
    let not_named = sb.dir.path().join("fw");
    std::fs::copy(Sandbox::bin(), &not_named).unwrap();
    let out = sb.run(&["init", "--binary", not_named.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not named `palisade`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(sb.user_settings()).unwrap(), RICH);
}

#[test]
fn explicit_binary_is_used_and_a_relative_path_made_absolute() {
    let sb = Sandbox::new();
    let bin_dir = sb.project.join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::fs::copy(Sandbox::bin(), bin_dir.join("palisade")).unwrap();
    let out = sb.run(&["init", "--binary", "./bin/palisade"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = read_json(&sb.user_settings());
    let h = palisade::settings_file::palisade_handlers(&v);
    assert_eq!(h[0].command, bin_dir.join("palisade").to_string_lossy());
    // Installing another binary next to it keeps both and warns about the first.
    let out = sb.run(&["init"]);
    assert!(
        stderr(&out).contains("also runs palisade from"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        palisade::settings_file::palisade_handlers(&read_json(&sb.user_settings())).len(),
        4
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_settings_file_stays_a_symlink() {
    let sb = Sandbox::new();
    let real = sb.dir.path().join("dotfiles/claude-settings.json");
    sb.write(&real, RICH);
    std::fs::create_dir_all(sb.claude_dir()).unwrap();
    std::os::unix::fs::symlink(&real, sb.user_settings()).unwrap();
    assert!(sb.run(&["init"]).status.success());
    assert!(
        std::fs::symlink_metadata(sb.user_settings())
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        palisade::settings_file::palisade_handlers(&read_json(&real)).len(),
        2
    );
}

#[test]
fn hand_written_shell_form_entries_are_reported_not_removed() {
    let sb = Sandbox::new();
    let text = r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "/opt/palisade hook"}]}]}}"#;
    sb.write(&sb.user_settings(), text);
    let out = sb.run(&["init"]);
    assert!(out.status.success());
    assert!(stderr(&out).contains("shell form"), "{}", stderr(&out));
    let out = sb.run(&["init", "--uninstall"]);
    assert!(out.status.success());
    assert!(
        stdout(&out).contains("hand-written shell-form"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        read_json(&sb.user_settings()),
        serde_json::from_str::<Value>(text).unwrap()
    );
}

#[test]
fn a_file_in_claude_codes_own_layout_round_trips_byte_for_byte() {
    // Claude Code writes settings with JSON.stringify(v, null, 2): init then uninstall must
    // give back exactly those bytes.
    // RICH is in that layout, with 4-space indentation.
    let sb = Sandbox::new();
    sb.write(&sb.user_settings(), RICH);
    assert!(sb.run(&["init"]).status.success());
    assert!(sb.run(&["init", "--uninstall"]).status.success());
    assert_eq!(std::fs::read_to_string(sb.user_settings()).unwrap(), RICH);
}
