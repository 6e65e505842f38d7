//! An allow rule only widens: a call it does not match is judged exactly as if the rule did not
//! exist. Near misses go to `check` (and `explain`), never into the hook's verdict, and never
//! name a rule about another program.

mod common;
use common::Sandbox;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The `git-read-only` example as documented in docs/POLICY.md.
const GIT_READ_ONLY: &str = "version: 1
rules:
  - id: git-read-only
    tools: [Bash]
    effect: allow
    command:
      program: git
      subcommand: [status, log, diff, show]
";

#[test]
fn the_git_read_only_example_adds_no_ask() {
    let sb = Sandbox::new();
    for cmd in [
        "ls",
        "cargo test",
        "npm install",
        "git push origin main",
        "make",
    ] {
        let without = sb.bash(cmd).decision();
        sb.user_policy(GIT_READ_ONLY);
        let with = sb.bash(cmd);
        assert_eq!(with.decision(), without, "{cmd}: {with:?}");
        assert!(!with.reason().contains("git-read-only"), "{cmd}: {with:?}");
        std::fs::remove_file(sb.config_dir().join("palisade/policy.yaml")).unwrap();
    }
    sb.user_policy(GIT_READ_ONLY);
    assert_eq!(sb.bash("git status").decision(), "allow");
    assert_eq!(sb.bash("git log --oneline | head").decision(), "pass");
}

fn check_json(sb: &Sandbox, cmd: &str) -> Value {
    let out = sb
        .command()
        .args(["check", "--json", "--command", cmd])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn near_misses_are_told_by_check_and_only_for_the_rule_s_program() {
    let sb = Sandbox::new();
    sb.user_policy(GIT_READ_ONLY);
    let v = check_json(&sb, "git push origin main");
    let near = v["near_misses"].as_array().unwrap();
    assert_eq!(near.len(), 1, "{v}");
    assert!(
        near[0].as_str().unwrap().contains("git-read-only")
            && near[0].as_str().unwrap().contains("'push'"),
        "{v}"
    );
    assert!(!v["reason"].as_str().unwrap_or("").contains("git-read-only"));
    for unrelated in ["ls -la", "cargo test", "npm install"] {
        let v = check_json(&sb, unrelated);
        assert_eq!(v["near_misses"], serde_json::json!([]), "{unrelated}: {v}");
        assert_eq!(v["decision"], "pass", "{unrelated}: {v}");
    }
}

/// Every case of every challenge set that must pass (single calls and the steps of chains that
/// must pass are left out where a step depends on the one before), as one JSONL file.
fn ordinary_cases(dir: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("challenge-sets");
    let mut lines = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    for f in files {
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let Ok(case) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if case.get("steps").is_some() || case.get("risk_answers").is_some() {
                continue;
            }
            if matches!(case["expect"].as_str(), Some("pass" | "allow")) {
                lines.push(line.to_string());
            }
        }
    }
    assert!(lines.len() > 300, "too few ordinary cases: {}", lines.len());
    let out = dir.join("ordinary.jsonl");
    std::fs::write(&out, lines.join("\n") + "\n").unwrap();
    out
}

#[test]
fn example_policies_add_no_refusal_to_ordinary_calls() {
    let sb = Sandbox::new();
    let cases = ordinary_cases(sb.dir.path());
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/policies");
    let git = sb.dir.path().join("git-read-only.yaml");
    std::fs::write(&git, GIT_READ_ONLY).unwrap();
    let mut policies: Vec<PathBuf> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    policies.sort();
    policies.push(git);
    assert!(policies.len() >= 5);
    for policy in policies {
        let out = sb
            .command()
            .args(["replay", "--risk", "off", "--json", "--policy"])
            .arg(&policy)
            .arg(&cases)
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{}: {e}: {}",
                policy.display(),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        // A refusal of an ordinary call is only acceptable when a deny/ask rule of the policy
        // itself says so; none may come from an allow rule's near miss.
        let unexplained: Vec<&Value> = report["failures"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| !f["rule"].as_str().unwrap_or("").starts_with("policy:"))
            .collect();
        assert!(
            unexplained.is_empty(),
            "{}: {} ordinary calls refused: {unexplained:#?}",
            policy.display(),
            unexplained.len()
        );
        for f in report["failures"].as_array().unwrap() {
            assert!(
                !f["reason"].as_str().unwrap_or("").contains("Near miss"),
                "{f}"
            );
        }
    }
}
