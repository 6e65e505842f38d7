//! What the hook records: every PreToolUse decision, every PostToolUse, refusals of unreadable
//! input and of a broken policy; and the user policy's `audit:` block in effect.

mod audit_support;

use audit_support::{Sandbox, bash_event};
use serde_json::json;

#[test]
fn pre_and_post_events_are_recorded() {
    let sb = Sandbox::new();
    sb.run(&["hook"], &bash_event("s1", "ls"));
    let post = json!({"session_id":"s1","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash",
        "tool_input":{"command":"ls"},"tool_response":{"stdout":"x"}});
    let out = sb.run(&["hook"], &post.to_string());
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let e = sb.entries();
    assert_eq!(e.len(), 2);
    assert_eq!(e[0]["event"], "PreToolUse");
    assert_eq!(e[0]["session"], "s1");
    assert_eq!(e[0]["tool"], "Bash");
    assert_eq!(e[1]["event"], "PostToolUse");
    assert_eq!(e[1]["decision"]["effect"], "pass");
    assert_eq!(e[1]["chain"], json!([]));
    assert_eq!(e[1]["risk"], json!(null));
    assert_eq!(e[1]["prev"], e[0]["hash"]);
    assert!(e[0]["latency_us"].as_u64().unwrap() > 0);
}

#[test]
fn refusals_of_bad_input_and_broken_policies_are_recorded() {
    let sb = Sandbox::new();
    let out = sb.run(&["hook"], "{not json");
    assert_eq!(out.status.code(), Some(2));
    let policy = sb.root().join("broken.yaml");
    std::fs::write(&policy, "version: 1\nno_such_key: 1\n").unwrap();
    let out = sb
        .cmd(&["hook"])
        .env("PALISADE_CONFIG", &policy)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            audit_support::feed(&mut c, &bash_event("s", "ls"));
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = sb.entries();
    assert_eq!(e.len(), 2);
    assert_eq!(e[0]["tool"], "(unreadable)");
    assert_eq!(e[0]["decision"]["rule"], "error/bad-input");
    assert_eq!(e[0]["decision"]["source"], "error");
    assert_eq!(e[1]["decision"]["effect"], "deny");
    assert_eq!(e[1]["decision"]["rule"], "error/policy");
}

#[test]
fn the_user_policy_chooses_the_file_and_extra_redactions() {
    let sb = Sandbox::new();
    let log = sb.root().join("elsewhere/my-audit.jsonl");
    let policy = sb.root().join("config/palisade/policy.yaml");
    std::fs::create_dir_all(policy.parent().unwrap()).unwrap();
    std::fs::write(
        &policy,
        format!(
            "version: 1\naudit:\n  file: {}\n  redact: [description]\n",
            log.display()
        ),
    )
    .unwrap();
    let ev = json!({"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash",
        "tool_input":{"command":"ls","description":"list the files of the customer ACME"}});
    let out = sb.run(&["hook"], &ev.to_string());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        audit_support::stderr(&out)
    );
    assert!(!sb.audit_file().exists());
    let e = audit_support::read_entries(&log);
    assert_eq!(
        e[0]["input"],
        json!({"command": "ls", "description": "[redacted]"})
    );
    // `audit verify` without FILE follows the policy too.
    let out = sb.run(&["audit", "verify"], "");
    assert_eq!(out.status.code(), Some(0));
    assert!(audit_support::stdout(&out).contains("my-audit.jsonl"));
}

#[test]
fn a_relocated_audit_log_is_still_protected() {
    let sb = Sandbox::new();
    let log = sb.root().join("elsewhere/my-audit.jsonl");
    let policy = sb.root().join("config/palisade/policy.yaml");
    std::fs::create_dir_all(policy.parent().unwrap()).unwrap();
    std::fs::write(
        &policy,
        format!("version: 1\naudit:\n  file: {}\n", log.display()),
    )
    .unwrap();
    let ev = json!({"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Write",
        "tool_input":{"file_path": log, "content":"{}\n"}});
    let out = sb.run(&["hook"], &ev.to_string());
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        audit_support::stdout(&out)
    );
    assert!(
        audit_support::stdout(&out).contains("audit log"),
        "{}",
        audit_support::stdout(&out)
    );
}

#[test]
fn a_run_of_a_written_script_links_to_the_audit_entry_of_the_write() {
    let sb = Sandbox::new();
    let project = std::fs::canonicalize(sb.root()).unwrap().join("proj");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let script = project.join("clean.sh");
    let ev = |id: &str, tool: &str, input: serde_json::Value| {
        json!({"session_id":"chain","cwd": project,"hook_event_name":"PreToolUse",
            "tool_name": tool,"tool_input": input,"tool_use_id": id})
        .to_string()
    };
    let out = sb.run(
        &["hook"],
        &ev(
            "t1",
            "Write",
            json!({"file_path": script, "content": "#!/bin/sh\nrm -rf \"$HOME\"\n"}),
        ),
    );
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        audit_support::stdout(&out)
    );
    std::fs::write(&script, "#!/bin/sh\nrm -rf \"$HOME\"\n").unwrap();
    let out = sb.run(
        &["hook"],
        &ev("t2", "Bash", json!({"command": "sh clean.sh"})),
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        audit_support::stdout(&out)
    );
    let e = sb.entries();
    assert_eq!(e.len(), 2);
    assert_eq!(e[1]["decision"]["effect"], "deny");
    assert_eq!(e[1]["decision"]["source"], "ledger");
    assert_eq!(
        e[1]["chain"],
        json!([{"path": script, "seq": 1, "hash": e[0]["hash"]}])
    );
    // And the stats count it as a chain caught.
    let out = sb.run(&["audit", "stats", "--json"], "");
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["chains_caught"], 1);
}
