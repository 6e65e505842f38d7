//! docs/AUDIT.md specifies the format for other implementations: its worked example and its
//! Python verifier must agree with the code.

mod audit_support;

use audit_support::{Sandbox, bash_event};
use palisade::audit::canonical::to_canonical_string;
use palisade::audit::entry::hash_value;
use serde_json::Value;

const DOC: &str = include_str!("../docs/AUDIT.md");

/// The content of the first fenced block (or backquoted span) after `marker`.
fn after_marker(marker: &str) -> String {
    let start = DOC.find(marker).expect("marker in doc") + marker.len();
    let rest = DOC[start..].trim_start();
    if let Some(body) = rest.strip_prefix("```") {
        let body = &body[body.find('\n').unwrap() + 1..];
        body[..body.find("```").unwrap()].to_string()
    } else {
        let body = rest.strip_prefix('`').unwrap();
        body[..body.find('`').unwrap()].to_string()
    }
}

#[test]
fn the_worked_example_hashes_as_documented() {
    let canonical = after_marker("<!-- example-canonical -->");
    let canonical = canonical.trim_end_matches('\n');
    let v: Value = serde_json::from_str(canonical).unwrap();
    assert_eq!(
        to_canonical_string(&v),
        canonical,
        "the doc's example is canonical"
    );
    let want = after_marker("<!-- example-hash -->");
    assert_eq!(hash_value(&v, &mut Vec::new()), want);
    // And an AuditEntry built from those fields seals to the same hash.
    let mut entry_v = v.clone();
    entry_v["hash"] = Value::String(String::new());
    let entry: palisade::audit::AuditEntry = serde_json::from_value(entry_v).unwrap();
    assert_eq!(entry.compute_hash(), want);
}

#[test]
fn the_documented_python_verifier_agrees() {
    let python = after_marker("<!-- example-python -->");
    let Ok(probe) = std::process::Command::new("python3").arg("-V").output() else {
        eprintln!("python3 not available: skipped");
        return;
    };
    assert!(probe.status.success());
    let sb = Sandbox::new();
    for c in [
        "ls",
        "echo 'é ∑ \u{1} \"q\"'",
        "curl -u a:b https://u:pw@h/",
    ] {
        sb.run(&["hook"], &bash_event("s", c));
    }
    let script = sb.root().join("verify.py");
    std::fs::write(&script, python).unwrap();
    let run = || {
        std::process::Command::new("python3")
            .arg(&script)
            .arg(sb.audit_file())
            .output()
            .unwrap()
    };
    let out = run();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(sb.audit_file()).unwrap();
    std::fs::write(sb.audit_file(), text.replacen("\"ls\"", "\"id\"", 1)).unwrap();
    assert!(
        !run().status.success(),
        "the Python verifier catches an edit"
    );
}
