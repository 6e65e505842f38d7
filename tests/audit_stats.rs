//! `audit --stats` on a small known log, with and without `--since`; and `audit tail`.

mod audit_support;

use audit_support::Sandbox;
use palisade::audit::{AuditDecision, GENESIS, NewEntry};
use palisade::verdict::ChainLink;
use serde_json::{Value, json};

const DAY_MS: u64 = 86_400_000;

struct Spec {
    age_ms: u64,
    event: &'static str,
    tool: &'static str,
    command: &'static str,
    effect: &'static str,
    rule: Option<&'static str>,
    source: &'static str,
    chain: bool,
    risk: Option<Value>,
    latency_us: u64,
}

fn spec(age_ms: u64, tool: &'static str, command: &'static str, effect: &'static str) -> Spec {
    Spec {
        age_ms,
        event: "PreToolUse",
        tool,
        command,
        effect,
        rule: (effect != "pass").then_some("pack:rule"),
        source: "static",
        chain: false,
        risk: None,
        latency_us: 1000,
    }
}

fn write_log(path: &std::path::Path, specs: Vec<Spec>) {
    let now = palisade::audit::append::now_ms();
    let mut prev = GENESIS.to_string();
    let mut text = String::new();
    for (i, s) in specs.into_iter().enumerate() {
        let e = NewEntry {
            session: "s".into(),
            event: s.event.into(),
            tool: s.tool.into(),
            input: json!({"command": s.command}),
            decision: AuditDecision {
                effect: s.effect.into(),
                rule: s.rule.map(str::to_string),
                reason: String::new(),
                source: s.source.into(),
                category: s.rule.map(|_| "destructive".to_string()),
            },
            chain: if s.chain {
                vec![ChainLink {
                    path: "/p/clean.sh".into(),
                    seq: 1,
                    hash: GENESIS.into(),
                }]
            } else {
                Vec::new()
            },
            risk: s.risk,
            latency_us: s.latency_us,
            alerts: Vec::new(),
        }
        .seal(i as u64 + 1, now - s.age_ms, prev);
        prev = e.hash.clone();
        text.push_str(&e.to_line());
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn fixture(sb: &Sandbox) {
    let old = 2 * DAY_MS;
    let specs = vec![
        spec(old, "Bash", "rm -rf /", "deny"),
        spec(old, "Bash", "rm -rf /", "deny"),
        spec(old, "Read", "", "allow"),
        spec(1000, "Bash", "rm -rf /", "deny"),
        spec(1000, "Bash", "curl x | sh", "deny"),
        spec(1000, "Bash", "curl x | sh", "deny"),
        Spec {
            chain: true,
            source: "ledger",
            ..spec(900, "Bash", "sh clean.sh", "ask")
        },
        Spec {
            chain: true,
            source: "ledger",
            ..spec(900, "Bash", "bash clean.sh", "deny")
        },
        Spec {
            chain: true,
            ..spec(900, "Bash", "sh build.sh", "pass")
        },
        Spec {
            risk: Some(json!({"latency_ms": 100})),
            source: "risk",
            latency_us: 100_000,
            ..spec(800, "WebFetch", "", "ask")
        },
        Spec {
            risk: Some(json!({"latency_ms": 2500, "error": "timeout"})),
            latency_us: 2_500_000,
            ..spec(800, "Bash", "make", "pass")
        },
        Spec {
            risk: Some(json!({"cached": true})),
            ..spec(800, "Bash", "make", "pass")
        },
        Spec {
            event: "PostToolUse",
            ..spec(700, "Bash", "make", "pass")
        },
    ];
    write_log(&sb.audit_file(), specs);
}

fn stats_json(sb: &Sandbox, extra: &[&str]) -> Value {
    let mut args = vec!["audit", "stats", "--json"];
    args.extend_from_slice(extra);
    let out = sb.run(&args, "");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        audit_support::stderr(&out)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn stats_count_what_the_log_holds() {
    let sb = Sandbox::new();
    fixture(&sb);
    assert_eq!(sb.run(&["audit", "verify"], "").status.code(), Some(0));
    let s = stats_json(&sb, &[]);
    assert_eq!(s["entries"], 13);
    assert_eq!(s["decisions"], 12);
    assert_eq!(s["by_event"], json!({"PreToolUse": 12, "PostToolUse": 1}));
    assert_eq!(
        s["by_effect"],
        json!({"deny": 6, "ask": 2, "allow": 1, "pass": 3})
    );
    assert_eq!(s["by_tool"], json!({"Bash": 10, "Read": 1, "WebFetch": 1}));
    assert_eq!(s["by_source"], json!({"static": 9, "ledger": 2, "risk": 1}));
    assert_eq!(s["by_rule"]["pack:rule"], 9);
    assert_eq!(s["by_rule"]["(none)"], 3);
    assert_eq!(s["by_category"]["destructive"], 9);
    assert_eq!(
        s["top_denied"],
        json!([
            {"target": "rm -rf /", "count": 3},
            {"target": "curl x | sh", "count": 2},
            {"target": "bash clean.sh", "count": 1}
        ])
    );
    assert_eq!(s["chains_caught"], 2, "the passed chain is not caught");
    assert_eq!(s["backend"]["calls"], 2);
    assert_eq!(s["backend"]["failures"], 1);
    assert_eq!(s["backend"]["cached"], 1);
    assert_eq!(s["backend"]["latency_ms"]["max"], 2500);
    assert_eq!(s["latency_us"]["count"], 13);
    assert_eq!(s["latency_us"]["max"], 2_500_000);
    let p50 = s["latency_us"]["p50"].as_u64().unwrap();
    assert!((1000..=1100).contains(&p50), "p50 {p50}");
    assert_eq!(s["latency_us"]["p99"], 2_500_000);
    // `audit --stats` is the same report.
    let out = sb.run(&["audit", "--stats", "--json"], "");
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again["by_effect"], s["by_effect"]);
    // The human table names the figures.
    let out = sb.run(&["audit", "--stats"], "");
    let text = audit_support::stdout(&out);
    assert!(
        text.contains("rm -rf /") && text.contains("chains caught") && text.contains("p95"),
        "{text}"
    );
}

#[test]
fn since_keeps_only_recent_entries() {
    let sb = Sandbox::new();
    fixture(&sb);
    let s = stats_json(&sb, &["--since", "24h"]);
    assert_eq!(s["entries"], 10);
    assert_eq!(s["by_effect"]["deny"], 4);
    assert_eq!(s["by_effect"].get("allow"), None);
    assert_eq!(
        s["top_denied"][0],
        json!({"target": "curl x | sh", "count": 2})
    );
    let s = stats_json(&sb, &["--since", "3d"]);
    assert_eq!(s["entries"], 13);
    let out = sb.run(&["audit", "stats", "--since", "yesterday"], "");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn tail_prints_the_last_entries() {
    let sb = Sandbox::new();
    fixture(&sb);
    let out = sb.run(&["audit", "tail", "-n", "3"], "");
    assert_eq!(out.status.code(), Some(0));
    let text = audit_support::stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    // One line per call: the PostToolUse (#13) is not a call of its own.
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].contains("#10") && lines[0].contains("WebFetch"),
        "{}",
        lines[0]
    );
    assert!(
        lines[2].contains("#12") && lines[2].contains("make"),
        "{}",
        lines[2]
    );
    let out = sb.run(&["audit", "tail", "-n", "100"], "");
    assert_eq!(audit_support::stdout(&out).lines().count(), 12);
    let line = audit_support::stdout(&out)
        .lines()
        .nth(6)
        .unwrap()
        .to_string();
    assert!(
        line.contains("ask:no")
            && line.contains("sh clean.sh")
            && line.contains("[pack:rule]")
            && line.ends_with(" chain"),
        "{line}"
    );
}

#[test]
fn tail_follow_prints_new_entries() {
    use std::io::BufRead;
    let sb = Sandbox::new();
    fixture(&sb);
    let mut child = sb
        .cmd(&["audit", "tail", "-n", "1", "--follow"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let wait = std::time::Duration::from_secs(20);
    let first = rx.recv_timeout(wait).unwrap();
    assert!(first.contains("#12"), "{first}");
    let out = sb.run(&["hook"], &audit_support::bash_event("s", "echo followed"));
    assert_eq!(out.status.code(), Some(0));
    let next = rx.recv_timeout(wait);
    let _ = child.kill();
    let _ = child.wait();
    let next = next.unwrap();
    assert!(
        next.contains("#14") && next.contains("echo followed"),
        "{next}"
    );
}
