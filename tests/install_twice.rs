//! Plugin and init together, `hook --help`, and uninstall on a home that had no settings file:
//! the things a user trips over when installing twice or taking palisade out again.

#[path = "e2e/sandbox.rs"]
mod sandbox;

use sandbox::{Sandbox, stderr, stdout};
use std::process::Stdio;

#[test]
fn hook_help_prints_help_and_records_nothing() {
    let sb = Sandbox::new();
    for flag in ["--help", "-h"] {
        let out = sb
            .cmd(&["hook", flag])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(
            stdout(&out).contains("Usage: palisade hook"),
            "{}",
            stdout(&out)
        );
    }
    assert!(
        !sb.data_dir().join("audit.jsonl").exists(),
        "hook --help must record nothing"
    );
    // The hook itself still records: the check above can fail.
    let out = sb.cmd(&["hook"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(sb.data_dir().join("audit.jsonl").exists());
}

#[test]
fn uninstall_removes_the_settings_file_init_created() {
    let sb = Sandbox::new();
    assert!(!sb.user_settings().exists());
    let out = sb.run(&["init"]);
    assert!(out.status.success(), "{out:?}");
    assert!(sb.user_settings().exists());
    let out = sb.run(&["init", "--uninstall"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("which held nothing else"),
        "{}",
        stdout(&out)
    );
    assert!(!sb.user_settings().exists());

    // A file with the user's own settings stays, without palisade.
    sb.write(&sb.user_settings(), "{\"model\": \"opus\"}\n");
    assert!(sb.run(&["init"]).status.success());
    assert!(sb.run(&["init", "--uninstall"]).status.success());
    let v = sandbox::read_json(&sb.user_settings());
    assert_eq!(v, serde_json::json!({"model": "opus"}));
}

#[test]
fn init_and_doctor_name_the_double_installation() {
    let sb = Sandbox::new();
    sb.write(
        &sb.user_settings(),
        "{\"enabledPlugins\": {\"palisade@palisade-local\": true}}\n",
    );
    let out = sb.run(&["init"]);
    assert!(out.status.success(), "{out:?}");
    let err = stderr(&out);
    assert!(
        err.contains("enables the palisade plugin (palisade@palisade-local)")
            && err.contains("decided and logged twice")
            && err.contains("palisade init --uninstall"),
        "{err}"
    );
    let out = sb.run(&["doctor"]);
    let text = stdout(&out) + &stderr(&out);
    assert!(
        text.contains("palisade runs twice: as the plugin palisade@palisade-local"),
        "{text}"
    );
    // With only the plugin, no such warning.
    assert!(sb.run(&["init", "--uninstall"]).status.success());
    let out = sb.run(&["doctor"]);
    assert!(!(stdout(&out) + &stderr(&out)).contains("runs twice"));
}
