//! MCP calls: an arbitrary `mcp__server__tool` name and JSON input through normalize and the
//! rules. Input: the tool name, a NUL byte, the JSON input.
#![no_main]
use libfuzzer_sys::fuzz_target;
mod common;

fuzz_target!(|data: &[u8]| {
    let (name, input) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b"{}"[..]),
    };
    let name = format!("mcp__{}", String::from_utf8_lossy(name));
    let input: serde_json::Value =
        serde_json::from_slice(input).unwrap_or(serde_json::Value::Null);
    let event = serde_json::from_value(serde_json::json!({
        "session_id": "f",
        "cwd": "/home/dev/project",
        "hook_event_name": "PreToolUse",
        "tool_name": name,
        "tool_input": input,
    }));
    if let Ok(event) = event {
        common::judge(&event);
    }
});
