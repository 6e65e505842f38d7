//! `palisade replay challenge-sets/` must pass: every case in the shipped sets, spawned as the
//! real binary, with the JSON report checked for its documented shape.

mod common;
use common::Sandbox;

#[test]
fn shipped_challenge_sets_pass() {
    let sb = Sandbox::new();
    let sets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("challenge-sets");
    let out = sb
        .command()
        .arg("replay")
        .arg("--json")
        .arg(&sets)
        .output()
        .expect("run replay");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "replay --json printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    for key in ["total", "passed", "failed", "by_category", "failures"] {
        assert!(report.get(key).is_some(), "missing {key}");
    }
    let failures = report["failures"].as_array().cloned().unwrap_or_default();
    let listing: Vec<String> = failures.iter().map(|f| f.to_string()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        report["total"],
        listing.join("\n")
    );
    assert_eq!(out.status.code(), Some(0));
    // No category's ordinary calls are blocked more than 1% of the time.
    for (cat, fp) in report["false_positives"]
        .as_object()
        .cloned()
        .unwrap_or_default()
    {
        let rate = fp["rate"].as_f64().unwrap_or(1.0);
        assert!(rate <= 0.01, "{cat}: false-positive rate {rate}");
    }
    assert!(
        report["total"].as_u64().unwrap_or(0) >= 250,
        "at least 250 cases ship"
    );
}

#[test]
fn a_miss_fails_the_replay() {
    let sb = Sandbox::new();
    let file = sb.dir.path().join("miss.jsonl");
    std::fs::write(
        &file,
        r#"{"id":"m1","category":"x","expect":"pass","event":{"hook_event_name":"PreToolUse","session_id":"m1","cwd":"/home/dev/project","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}}
{"id":"m2","category":"x","expect":"deny","event":{"hook_event_name":"PreToolUse","session_id":"m2","cwd":"/home/dev/project","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}}
"#,
    )
    .unwrap();
    let out = sb
        .command()
        .arg("replay")
        .arg("--json")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["total"], 2);
    assert_eq!(report["passed"], 1);
    assert_eq!(report["failures"][0]["id"], "m1");
    assert_eq!(report["failures"][0]["got"], "deny");
    assert_eq!(report["by_category"]["x"]["total"], 2);
    // m1 expected a pass: an ordinary call that was blocked, a false positive.
    assert_eq!(report["false_positives"]["x"]["ordinary"], 1);
    assert_eq!(report["false_positives"]["x"]["blocked"], 1);
    assert_eq!(report["false_positives"]["x"]["rate"], 1.0);
}

#[test]
fn replay_and_check_make_no_state_directory() {
    let sb = Sandbox::new();
    let tmp = sb.dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let file = sb.dir.path().join("chain.jsonl");
    // A write-then-run chain: the run is judged by what the first step wrote, so the steps
    // share the case's ledger, which lives in memory.
    std::fs::write(
        &file,
        r#"{"id":"c1","category":"x","steps":[{"expect":"pass","event":{"hook_event_name":"PreToolUse","session_id":"c1","tool_use_id":"t1","cwd":"/home/dev/project","tool_name":"Write","tool_input":{"file_path":"/home/dev/project/go.sh","content":"rm -rf ~\n"}}},{"expect":"deny","event":{"hook_event_name":"PreToolUse","session_id":"c1","tool_use_id":"t2","cwd":"/home/dev/project","tool_name":"Bash","tool_input":{"command":"bash go.sh"}}}]}
{"id":"c2","category":"x","expect":"pass","event":{"hook_event_name":"PreToolUse","session_id":"c1","tool_use_id":"t3","cwd":"/home/dev/project","tool_name":"Bash","tool_input":{"command":"rm -rf /tmp/*"}}}
"#,
    )
    .unwrap();
    let out = sb
        .command()
        .env("TMPDIR", &tmp)
        .arg("replay")
        .arg(&file)
        .output()
        .expect("run replay");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = sb
        .command()
        .env("TMPDIR", &tmp)
        .args(["check", "--command", "echo hi > notes.txt"])
        .output()
        .expect("run check");
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().collect();
    assert!(left.is_empty(), "scratch left behind: {left:?}");
    assert!(
        !sb.data_dir().exists(),
        "check wrote to the state directory"
    );
}
