//! `palisade doctor` on a temporary HOME: healthy, broken policy, missing hook binary,
//! disableAllHooks, unwritable state dir, not installed, managed-only hooks — each with the
//! right status and exit code.

#[path = "e2e/sandbox.rs"]
mod sandbox;

use palisade::cli::doctor::{self, DoctorEnv, Status};
use sandbox::{Sandbox, stderr, stdout};
use serde_json::Value;

fn doctor_json(sb: &Sandbox, extra_env: &[(&str, &str)]) -> (i32, Value) {
    let mut cmd = sb.cmd(&["doctor", "--json"]);
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let v: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(&out), stderr(&out)));
    (out.status.code().unwrap_or(-1), v)
}

/// The checks with this status whose name is `name`.
fn with(v: &Value, name: &str, status: &str) -> Vec<Value> {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == name && c["status"] == status)
        .cloned()
        .collect()
}

fn fails(v: &Value) -> Vec<String> {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| format!("{}: {}", c["name"], c["detail"]))
        .collect()
}

fn installed() -> Sandbox {
    let sb = Sandbox::new();
    let out = sb.run(&["init"]);
    assert!(out.status.success(), "{}", stderr(&out));
    sb
}

#[test]
fn healthy_installation_passes() {
    let sb = installed();
    let (code, v) = doctor_json(&sb, &[]);
    assert_eq!(fails(&v), Vec::<String>::new());
    assert_eq!(code, 0);
    assert_eq!(v["ok"], true);
    assert_eq!(with(&v, "hook", "ok").len(), 2, "{v:#}");
    assert_eq!(with(&v, "policy", "ok").len(), 1);
    assert_eq!(with(&v, "state dir", "ok").len(), 1);
    let selftest = with(&v, "self-test", "ok");
    assert!(
        selftest.iter().any(|c| c["detail"]
            .as_str()
            .unwrap()
            .starts_with("malformed event: denied")),
        "{v:#}"
    );
    assert!(
        selftest
            .iter()
            .any(|c| c["detail"].as_str().unwrap().starts_with("ls: passed")),
        "{v:#}"
    );
    if sandbox::shell_analysis_present() {
        assert!(
            selftest.iter().any(|c| c["detail"]
                .as_str()
                .unwrap()
                .starts_with("rm -rf ~: denied")),
            "{v:#}"
        );
    }
    // The self-test ran in its own state dir: nothing was recorded in the user's.
    assert!(!sb.data_dir().join("audit.jsonl").exists());

    // Human output: one line per check, a summary, exit 0; no colour when not a terminal.
    let out = sb.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.contains("ok    binary: palisade "), "{text}");
    assert!(text.contains("0 failure(s)"), "{text}");
    assert!(!text.contains('\x1b'));
}

#[test]
fn not_installed_fails() {
    let sb = Sandbox::new();
    let (code, v) = doctor_json(&sb, &[]);
    assert_eq!(code, 1);
    assert_eq!(v["ok"], false);
    let f = with(&v, "hooks", "fail");
    assert_eq!(f.len(), 1, "{v:#}");
    assert_eq!(f[0]["fix"], "palisade init");
}

#[test]
fn broken_policy_fails() {
    let sb = installed();
    std::fs::write(sb.user_policy(), "version: 1\nroots: [unclosed\n").unwrap();
    if !sandbox::policy_loader_is_real() {
        eprintln!("SKIPPED broken_policy_fails: the policy loader in this build is the stub");
        return;
    }
    let (code, v) = doctor_json(&sb, &[]);
    assert_eq!(code, 1);
    let f = with(&v, "policy", "fail");
    assert_eq!(f.len(), 1, "{v:#}");
    assert!(
        f[0]["detail"]
            .as_str()
            .unwrap()
            .contains(&sb.user_policy().display().to_string())
    );
    // The installed hook, loading the same policy, blocks the ordinary call too.
    assert!(
        with(&v, "self-test", "fail")
            .iter()
            .any(|c| c["detail"].as_str().unwrap().starts_with("ls:")),
        "{v:#}"
    );
}

#[test]
fn missing_hook_binary_fails() {
    let sb = Sandbox::new();
    sb.write(
        &sb.user_settings(),
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "/nonexistent/bin/palisade", "args": ["hook"], "timeout": 30}]}]}}"#,
    );
    let (code, v) = doctor_json(&sb, &[]);
    assert_eq!(code, 1);
    let f = with(&v, "hook", "fail");
    assert_eq!(f.len(), 1, "{v:#}");
    let detail = f[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("/nonexistent/bin/palisade does not exist"),
        "{detail}"
    );
    assert!(f[0]["fix"].as_str().unwrap().contains("palisade init"));
    // And with nothing healthy installed, the hooks summary fails as well.
    assert_eq!(with(&v, "hooks", "fail").len(), 1, "{v:#}");
}

#[test]
fn disable_all_hooks_fails() {
    let sb = installed();
    sb.write(
        &sb.project.join(".claude/settings.local.json"),
        r#"{"disableAllHooks": true}"#,
    );
    let (code, v) = doctor_json(&sb, &[]);
    assert_eq!(code, 1);
    let f = with(&v, "local settings", "fail");
    assert_eq!(f.len(), 1, "{v:#}");
    assert!(f[0]["detail"].as_str().unwrap().contains("disableAllHooks"));
}

#[test]
fn unwritable_state_dir_fails() {
    let sb = installed();
    // Tests run as root, where a chmod does not stop writes: a directory under a regular file
    // cannot be created by anyone.
    let file = sb.dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let state = file.join("sub");
    let (code, v) = doctor_json(&sb, &[("PALISADE_DATA_DIR", state.to_str().unwrap())]);
    assert_eq!(code, 1);
    let f = with(&v, "state dir", "fail");
    assert_eq!(f.len(), 1, "{v:#}");
    assert!(f[0]["fix"].as_str().unwrap().contains("PALISADE_DATA_DIR"));
    assert_eq!(with(&v, "audit dir", "fail").len(), 1, "{v:#}");
}

#[test]
fn a_broken_settings_file_fails() {
    let sb = installed();
    sb.write(&sb.project.join(".claude/settings.json"), "{ nope");
    let (code, v) = doctor_json(&sb, &[]);
    assert_eq!(code, 1);
    let f = with(&v, "project settings", "fail");
    assert_eq!(f.len(), 1, "{v:#}");
    assert!(
        f[0]["detail"]
            .as_str()
            .unwrap()
            .contains("settings.json:1:3")
    );
}

#[test]
fn short_timeout_and_matcher_warn_without_failing() {
    let sb = Sandbox::new();
    let bin = Sandbox::bin().display().to_string();
    sb.write(
        &sb.user_settings(),
        &format!(
            r#"{{"hooks": {{
                "PreToolUse": [{{"matcher": "Bash", "hooks": [{{"type": "command", "command": "{bin}", "args": ["hook"], "timeout": 5}}]}}],
                "PostToolUse": [{{"hooks": [{{"type": "command", "command": "{bin}", "args": ["hook"]}}]}}]
            }}}}"#
        ),
    );
    let (code, v) = doctor_json(&sb, &[]);
    let warns: Vec<String> = with(&v, "hook", "warn")
        .iter()
        .map(|c| c["detail"].as_str().unwrap().to_string())
        .collect();
    assert!(warns.iter().any(|w| w.contains("timeout 5 s")), "{warns:?}");
    assert!(warns.iter().any(|w| w.contains("no timeout")), "{warns:?}");
    assert_eq!(fails(&v), Vec::<String>::new());
    assert_eq!(code, 0);
}

#[test]
fn managed_only_hooks_without_palisade_fail() {
    let sb = installed();
    let managed = sb.dir.path().join("managed");
    sb.write(
        &managed.join("managed-settings.json"),
        r#"{"allowManagedHooksOnly": true}"#,
    );
    let env = DoctorEnv {
        locations: palisade::locations::Locations::from_vars(|k| {
            sb.vars()
                .into_iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| v)
        }),
        cwd: sb.project.clone(),
        project_root: sb.project.clone(),
        managed_dir: managed,
    };
    let checks = doctor::checks(&env);
    let f: Vec<_> = checks.iter().filter(|c| c.status == Status::Fail).collect();
    assert_eq!(f.len(), 1, "{checks:#?}");
    assert!(f[0].detail.contains("allowManagedHooksOnly"));
}

#[test]
fn a_corrupt_ledger_fails() {
    let sb = installed();
    let ledger = sb.data_dir().join("ledger");
    sb.write(&ledger.join("0123456789abcdef.json"), "{\"files\": {}}");
    let (code, v) = doctor_json(&sb, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(with(&v, "ledger", "ok").len(), 1);
    sb.write(&ledger.join("fedcba9876543210.json"), "{\"files\": ");
    let (code, v) = doctor_json(&sb, &[]);
    assert_eq!(code, 1);
    let f = with(&v, "ledger", "fail");
    assert_eq!(f.len(), 1, "{v:#}");
    assert!(
        f[0]["detail"]
            .as_str()
            .unwrap()
            .contains("fedcba9876543210.json")
    );
}

#[test]
fn risk_backend_without_its_key_fails() {
    if !sandbox::risk_block_applied() {
        eprintln!("SKIPPED risk_backend_without_its_key_fails: the risk settings are the stub");
        return;
    }
    let sb = installed();
    std::fs::write(
        sb.user_policy(),
        "version: 1\nrisk:\n  enabled: true\n  api_key_env: PALISADE_TEST_NO_SUCH_KEY\n",
    )
    .unwrap();
    let (code, v) = doctor_json(&sb, &[]);
    assert_eq!(code, 1);
    let f = with(&v, "risk backend", "fail");
    assert_eq!(f.len(), 1, "{v:#}");
    assert!(
        f[0]["detail"]
            .as_str()
            .unwrap()
            .contains("PALISADE_TEST_NO_SUCH_KEY")
    );
}
