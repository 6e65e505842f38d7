//! Policy drift and bypass detection through the real hook binary: the audit entries that carry
//! the alerts, what `audit --stats` and `doctor` make of them, and the cases that must not
//! raise a false alert (a PostToolUse without an id, a Claude Code that sends none on
//! PreToolUse, parallel calls, a tool that ran after an ask).

#[path = "e2e/sandbox.rs"]
mod sandbox;

use sandbox::{Sandbox, stderr, stdout};
use serde_json::{Value, json};

fn hook(sb: &Sandbox, event: &Value) -> (i32, String) {
    // The project is the sandbox's, not the repository the tests run in.
    let out = sb.hook_in(&sb.project, event.to_string().as_bytes());
    (out.status.code().unwrap_or(-1), stdout(&out))
}

fn event(sb: &Sandbox, session: &str, name: &str, tool: &str, input: Value, id: &str) -> Value {
    let mut e = json!({
        "session_id": session,
        "cwd": sb.project,
        "hook_event_name": name,
        "tool_name": tool,
        "tool_input": input,
    });
    if !id.is_empty() {
        e["tool_use_id"] = json!(id);
    }
    e
}

fn pre(sb: &Sandbox, session: &str, command: &str, id: &str) -> (i32, String) {
    hook(
        sb,
        &event(
            sb,
            session,
            "PreToolUse",
            "Bash",
            json!({ "command": command }),
            id,
        ),
    )
}

fn post(sb: &Sandbox, session: &str, tool: &str, id: &str) -> (i32, String) {
    hook(
        sb,
        &event(
            sb,
            session,
            "PostToolUse",
            tool,
            json!({"command": "ls"}),
            id,
        ),
    )
}

fn entries(sb: &Sandbox) -> Vec<Value> {
    std::fs::read_to_string(sb.data_dir().join("audit.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn last(sb: &Sandbox) -> Value {
    entries(sb).pop().expect("an audit entry")
}

fn stats_json(sb: &Sandbox, extra: &[&str]) -> Value {
    let mut args = vec!["audit", "--stats", "--json"];
    args.extend_from_slice(extra);
    let out = sb.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

fn digest(sb: &Sandbox) -> String {
    let out = sb.run(&["explain", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    v["digest"].as_str().unwrap().to_string()
}

#[test]
fn a_policy_change_mid_session_is_recorded_with_both_digests() {
    let sb = Sandbox::new();
    let before = digest(&sb);
    assert_eq!(before.len(), 64);
    assert_eq!(pre(&sb, "s1", "ls", "t1").0, 0);
    assert!(last(&sb).get("alerts").is_none(), "{}", last(&sb));
    assert_eq!(pre(&sb, "s1", "ls -la", "t2").0, 0);
    assert!(last(&sb).get("alerts").is_none());

    sb.write(&sb.user_policy(), "version: 1\nroots: [~/scratch]\n");
    let after = digest(&sb);
    assert_ne!(before, after);
    // The verdict is the same; the entry says the policy is not the session's first.
    let (code, out) = pre(&sb, "s1", "ls", "t3");
    assert_eq!((code, out.as_str()), (0, ""));
    let e = last(&sb);
    assert_eq!(
        e["alerts"],
        json!([{"kind": "policy-drift", "first": before, "now": after}])
    );
    assert_eq!(e["decision"]["effect"], "pass");
    // A session that started under the new policy has not drifted.
    pre(&sb, "s2", "ls", "u1");
    assert!(last(&sb).get("alerts").is_none());
    // A comment-only edit is a change of the files in effect, and is recorded as one.
    sb.write(
        &sb.user_policy(),
        "version: 1\nroots: [~/scratch]\n# reviewed\n",
    );
    pre(&sb, "s2", "ls", "u2");
    assert_eq!(last(&sb)["alerts"][0]["kind"], "policy-drift");

    // The chain still verifies with the new field in it.
    let out = sb.run(&["audit", "verify"]);
    assert!(out.status.success(), "{}", stdout(&out));

    let s = stats_json(&sb, &[]);
    let drift = s["alerts"]["policy_drift"].as_array().unwrap();
    assert_eq!(drift.len(), 2, "{s:#}");
    assert_eq!(drift[0]["session"], "s1");
    assert_eq!(drift[0]["policies"][0], before);
    assert_eq!(drift[0]["policies"][1], after);
    assert_eq!(drift[0]["drifted_calls"], 1);
    let text = stdout(&sb.run(&["audit", "--stats"]));
    assert!(
        text.contains("sessions under more than one policy: 2"),
        "{text}"
    );
    assert!(text.contains(&format!("{} → {}", &before[..12], &after[..12])));
}

#[test]
fn a_post_without_its_pre_is_a_bypass_alert() {
    let sb = Sandbox::new();
    // The ordinary flow: PreToolUse, then PostToolUse of the same call.
    pre(&sb, "s", "ls", "toolu_a");
    assert_eq!(post(&sb, "s", "Bash", "toolu_a").0, 0);
    assert!(last(&sb).get("alerts").is_none(), "{}", last(&sb));
    // A call whose PreToolUse never reached palisade (a matcher that left Write out).
    let (code, out) = post(&sb, "s", "Write", "toolu_b");
    assert_eq!((code, out.as_str()), (0, ""), "PostToolUse stays silent");
    let e = last(&sb);
    assert_eq!(
        e["alerts"],
        json!([{"kind": "bypass", "tool_use_id": "toolu_b"}])
    );
    assert_eq!(e["event"], "PostToolUse");
    // The same id in another session is another call.
    post(&sb, "other", "Bash", "toolu_a");
    assert_eq!(last(&sb)["alerts"][0]["kind"], "bypass");
    // A PostToolUse without an id cannot be matched: no alert.
    post(&sb, "s", "Bash", "");
    assert!(last(&sb).get("alerts").is_none());

    let s = stats_json(&sb, &[]);
    assert_eq!(s["alerts"]["bypassed_calls"], 2, "{s:#}");
    let sessions: Vec<&str> = s["alerts"]["bypass"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["session"].as_str().unwrap())
        .collect();
    assert_eq!(sessions, ["other", "s"]);
    assert_eq!(s["alerts"]["bypass"][1]["tools"], json!(["Write"]));
    let text = stdout(&sb.run(&["audit", "--stats"]));
    assert!(
        text.contains("calls with no PreToolUse decision (the hook did not run): 2"),
        "{text}"
    );
    // `audit tail` shows the bypassed calls as calls of their own, and no other PostToolUse.
    let tail = stdout(&sb.run(&["audit", "tail", "-n", "20"]));
    let lines: Vec<&str> = tail.lines().collect();
    assert_eq!(lines.len(), 3, "{tail}");
    assert!(
        lines[0].contains(" pass ") && lines[0].contains("Bash"),
        "{tail}"
    );
    assert!(
        lines[1].contains(" bypass ") && lines[1].contains("Write"),
        "{tail}"
    );
    assert!(
        lines[2].contains(" bypass ") && lines[2].contains("Bash"),
        "{tail}"
    );
}

#[test]
fn no_false_alert_for_asked_refused_or_unkeyed_calls() {
    // A write outside every root asks only where the sandbox is outside the temp roots.
    let Some(sb) = Sandbox::outside_temp_roots() else {
        eprintln!("SKIPPED: no scratch dir outside the system temp dirs");
        return;
    };
    // An asked call the user approved: its PostToolUse follows the recorded decision.
    let outside = sb.home.join("elsewhere/notes.txt");
    let ask = event(
        &sb,
        "s",
        "PreToolUse",
        "Write",
        json!({"file_path": outside, "content": "x"}),
        "toolu_ask",
    );
    let (code, out) = hook(&sb, &ask);
    assert_eq!(code, 0);
    assert!(out.contains("\"ask\""), "{out}");
    let mut done = ask.clone();
    done["hook_event_name"] = json!("PostToolUse");
    hook(&sb, &done);
    assert!(last(&sb).get("alerts").is_none(), "{}", last(&sb));
    // A refused call has no PostToolUse at all; the next calls are judged as usual.
    assert_eq!(pre(&sb, "s", "rm -rf ~", "toolu_deny").0, 2);
    pre(&sb, "s", "ls", "toolu_next");
    post(&sb, "s", "Bash", "toolu_next");
    assert!(last(&sb).get("alerts").is_none());
    // A Claude Code that sends no tool_use_id on PreToolUse: an unknown id proves nothing.
    pre(&sb, "old", "ls", "");
    post(&sb, "old", "Bash", "toolu_x");
    assert!(last(&sb).get("alerts").is_none(), "{}", last(&sb));
    assert_eq!(stats_json(&sb, &[])["alerts"]["bypassed_calls"], 0);
}

#[test]
fn parallel_calls_of_one_session_raise_no_alert() {
    let sb = Sandbox::new();
    let n = 24;
    std::thread::scope(|s| {
        for i in 0..n {
            let sb = &sb;
            s.spawn(move || {
                let id = format!("toolu_{i}");
                let (code, _) = pre(sb, "par", &format!("echo {i}"), &id);
                assert_eq!(code, 0);
                post(sb, "par", "Bash", &id);
            });
        }
    });
    let all = entries(&sb);
    assert_eq!(all.len(), 2 * n);
    let alerted: Vec<&Value> = all.iter().filter(|e| e.get("alerts").is_some()).collect();
    assert!(alerted.is_empty(), "{alerted:#?}");
}

#[test]
fn doctor_fails_on_a_recent_bypass_and_names_the_fix() {
    let sb = Sandbox::new();
    let out = sb.run(&["init"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let check = |sb: &Sandbox| -> Value {
        let out = sb.run(&["doctor", "--json"]);
        let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "bypass")
            .cloned()
            .unwrap_or_else(|| panic!("no bypass check: {v:#}"))
    };
    pre(&sb, "s", "ls", "toolu_1");
    post(&sb, "s", "Bash", "toolu_1");
    assert_eq!(check(&sb)["status"], "ok");
    post(&sb, "s", "Edit", "toolu_2");
    let c = check(&sb);
    assert_eq!(c["status"], "fail", "{c}");
    assert!(c["detail"].as_str().unwrap().contains("Edit"), "{c}");
    assert!(c["fix"].as_str().unwrap().contains("palisade init"), "{c}");
    let out = sb.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("bypass"), "{}", stdout(&out));
}

#[test]
fn usage_by_tool_and_server_never_shows_argument_values() {
    let sb = Sandbox::new();
    let canaries = [
        "canary-7f3a9",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "hunter2-canary",
    ];
    pre(&sb, "s", "echo canary-7f3a9 > /dev/null", "t1");
    pre(&sb, "s", "rm -rf ~ # canary-7f3a9", "t2");
    for (i, (tool, input)) in [
        (
            "mcp__github__create_issue",
            json!({"title": "canary-7f3a9", "token": canaries[1]}),
        ),
        ("mcp__github__list_issues", json!({"owner": "canary-7f3a9"})),
        (
            "mcp__plugin_acme_db__query",
            json!({"sql": "select 'hunter2-canary'"}),
        ),
        (
            "Write",
            json!({"file_path": sb.project.join("canary-7f3a9.txt"), "content": "hunter2-canary"}),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        hook(
            &sb,
            &event(&sb, "s", "PreToolUse", tool, input, &format!("m{i}")),
        );
    }
    post(&sb, "s", "mcp__github__delete_repo", "never-pre");
    // The log itself holds the plain canary (it is not a secret): the view must leave it out.
    let log = std::fs::read_to_string(sb.data_dir().join("audit.jsonl")).unwrap();
    assert!(log.contains("canary-7f3a9"));

    let tool = stats_json(&sb, &["--by", "tool"]);
    let rows = tool["rows"].as_array().unwrap();
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {tool:#}"))
            .clone()
    };
    assert_eq!(row("Bash")["calls"], 2);
    assert_eq!(row("Bash")["deny"], 1);
    assert_eq!(row("Bash")["pass"], 1);
    assert!(row("Bash")["median_latency_us"].as_u64().unwrap() > 0);
    assert_eq!(row("mcp__github__create_issue")["calls"], 1);
    assert_eq!(row("mcp__github__delete_repo")["calls"], 0);
    assert_eq!(row("mcp__github__delete_repo")["unchecked"], 1);

    let server = stats_json(&sb, &["--by", "server"]);
    let names: Vec<&str> = server["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["github", "plugin_acme_db"], "{server:#}");
    assert_eq!(server["rows"][0]["calls"], 2);
    assert_eq!(server["rows"][0]["unchecked"], 1);

    for by in ["tool", "server"] {
        for json in [true, false] {
            let mut args = vec!["audit", "--stats", "--by", by];
            if json {
                args.push("--json");
            }
            let out = sb.run(&args);
            assert!(out.status.success());
            let text = stdout(&out);
            for c in canaries {
                assert!(
                    !text.contains(c),
                    "--by {by} (json {json}) shows {c}: {text}"
                );
            }
            assert!(text.contains(if by == "tool" { "Bash" } else { "github" }));
        }
    }
}
