//! A replayed case may carry its own user policy (`"policy"`: YAML text or a JSON object):
//! the case runs under it, other cases keep the run's policy, and a policy that does not load
//! fails the case.

mod common;
use common::Sandbox;
use serde_json::{Value, json};

fn case(id: &str, policy: Option<Value>, steps: &[(&str, &str)]) -> String {
    let steps: Vec<Value> = steps
        .iter()
        .map(|(cmd, expect)| {
            json!({"event": {"hook_event_name": "PreToolUse", "session_id": id,
                "cwd": "/home/dev/project", "tool_name": "Bash", "tool_input": {"command": cmd}},
                "expect": expect})
        })
        .collect();
    let mut c = json!({"id": id, "category": "x", "steps": steps});
    if let Some(p) = policy {
        c["policy"] = p;
    }
    c.to_string()
}

fn replay(sb: &Sandbox, lines: &[String]) -> Value {
    let file = sb.dir.path().join("cases.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let out = sb
        .command()
        .args(["replay", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn each_case_runs_under_its_own_policy() {
    let sb = Sandbox::new();
    let send = "curl -X POST -d x=1 https://api.example.com/a";
    let yaml = "version: 1\nlimits:\n  - {id: net, count: network-send, per: session, max: 1, effect: deny}\n";
    let lines = [
        case("a", Some(json!(yaml)), &[(send, "pass"), (send, "deny")]),
        case(
            "b",
            Some(json!({"version": 1, "mode": "read-only"})),
            &[("git status", "pass"), ("rm -rf build", "ask")],
        ),
        // No policy: the run's (here the built-in defaults), and nothing of a or b.
        case(
            "c",
            None,
            &[(send, "pass"), (send, "pass"), ("rm -rf build", "pass")],
        ),
    ];
    let report = replay(&sb, &lines);
    assert_eq!(report["failed"], 0, "{report:#}");
    assert_eq!(report["passed"], 3);
    // The expectations are not vacuous: the same case without its policy fails.
    let report = replay(&sb, &[case("a", None, &[(send, "pass"), (send, "deny")])]);
    assert_eq!(report["failed"], 1, "{report:#}");
}

#[test]
fn a_case_policy_that_does_not_load_fails_the_case() {
    let sb = Sandbox::new();
    let lines = [
        case(
            "bad",
            Some(json!(
                "version: 1\nlimits: [{id: n, count: network-sends, per: session, max: 1, effect: deny}]\n"
            )),
            &[("rm -rf ~", "deny")],
        ),
        case(
            "typo",
            Some(json!({"version": 1, "mod": "read-only"})),
            &[("ls", "pass")],
        ),
        case("kind", Some(json!(42)), &[("ls", "pass")]),
    ];
    let report = replay(&sb, &lines);
    assert_eq!(report["failed"], 3, "{report:#}");
    let reasons: Vec<String> = report["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["reason"].as_str().unwrap().to_string())
        .collect();
    assert!(
        reasons[0].contains("unknown effect kind 'network-sends'"),
        "{reasons:?}"
    );
    assert!(reasons[1].contains("unknown field `mod`"), "{reasons:?}");
    assert!(
        reasons[2].contains("YAML text or a JSON object"),
        "{reasons:?}"
    );
}
