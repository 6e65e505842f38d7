//! The policy loader on an arbitrary project policy file: an error or a policy, never a panic;
//! a policy that loads is then used for one call.
#![no_main]
use libfuzzer_sys::fuzz_target;
use palisade::locations::Locations;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    std::fs::write(root.join(".palisade.yaml"), data).unwrap();
    let home = root.join("home");
    let loc = Locations::from_vars(|k| match k {
        "HOME" => Some(home.clone()),
        "PALISADE_DATA_DIR" => Some(root.join("state")),
        "XDG_CONFIG_HOME" => Some(root.join("config")),
        _ => None,
    });
    if let Ok(policy) = palisade::policy::load(&loc, &root) {
        let scope = palisade::hook::scope_for(&policy, &loc, &root, &root, false);
        let event = serde_json::from_value(serde_json::json!({
            "session_id": "f",
            "cwd": root,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git push --force && rm -rf build"},
        }))
        .unwrap();
        let call = palisade::normalize::normalize(&event, &scope);
        let _ = palisade::evaluate::evaluate(&policy, &call, &scope);
    }
});
