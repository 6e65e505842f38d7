//! The shell analyser on arbitrary text, then the rules over the Bash call it makes.
#![no_main]
use libfuzzer_sys::fuzz_target;
mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    common::caught_panics_are_not_crashes();
    let _ = palisade::shell::analyse(line);
    let event = serde_json::from_value(serde_json::json!({
        "session_id": "f",
        "cwd": "/home/dev/project",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": line},
    }))
    .unwrap();
    common::judge(&event);
});
