//! The chain challenge set is well formed: the frozen format, one session per case, both
//! dangerous and benign chains. (Its verdicts are checked by `replay_challenge_sets`, which
//! replays every shipped set.)

use serde_json::Value;
use std::collections::HashSet;

#[test]
fn chain_cases_follow_the_frozen_format() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("challenge-sets/chains.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut ids = HashSet::new();
    let mut sessions = HashSet::new();
    let (mut benign, mut dangerous) = (0, 0);
    let mut runners = HashSet::new();
    for (n, line) in text.lines().enumerate() {
        let case: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let id = case["id"].as_str().expect("id");
        assert!(ids.insert(id.to_string()), "duplicate id {id}");
        assert!(case["category"].is_string(), "{id}: category");
        let steps = case["steps"]
            .as_array()
            .unwrap_or_else(|| panic!("{id}: steps"));
        assert!(!steps.is_empty(), "{id}: a chain has steps");
        let session = steps[0]["event"]["session_id"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            sessions.insert(session.clone()),
            "{id}: session shared with another case"
        );
        for s in steps {
            let ev = &s["event"];
            assert_eq!(
                ev["session_id"],
                session.as_str(),
                "{id}: one session per case"
            );
            assert_eq!(ev["cwd"], "/home/dev/project", "{id}");
            assert_eq!(ev["hook_event_name"], "PreToolUse", "{id}");
            assert!(
                ev["tool_name"].is_string() && ev["tool_input"].is_object(),
                "{id}"
            );
            if let Some(e) = s.get("expect") {
                let e = e.as_str().unwrap();
                assert!(
                    ["allow", "ask", "deny", "block", "pass"].contains(&e),
                    "{id}: expect {e}"
                );
            }
            if ev["tool_name"] == "Bash" {
                let cmd = ev["tool_input"]["command"].as_str().unwrap();
                runners.insert(cmd.split_whitespace().next().unwrap_or("").to_string());
            }
        }
        let last = steps.last().unwrap()["expect"]
            .as_str()
            .unwrap_or_else(|| panic!("{id}: the last step must expect"));
        if last == "pass" {
            benign += 1;
        } else {
            dangerous += 1;
        }
    }
    assert!(ids.len() >= 45, "{} cases", ids.len());
    assert!(
        benign >= 10 && dangerous >= 30,
        "benign {benign}, dangerous {dangerous}"
    );
    for r in [
        "sh",
        "bash",
        "./clean.sh",
        "source",
        "sudo",
        "env",
        "timeout",
        "python3",
        "node",
        "ruby",
        "perl",
        "php",
        "make",
        "npm",
        "git",
        "npx",
        "deno",
    ] {
        assert!(runners.contains(r), "no chain runs through `{r}`");
    }
}
