//! Audit benchmark: generates a 1,000,000-entry chain, then times the real binary's
//! `audit stats` and `audit verify` over it, an append at the end of it, and a whole `hook`
//! call (static path + audit append). Prints medians; `docs/PERFORMANCE.md` records them.
//!
//! Run: `cargo bench --bench audit` (release). `AUDIT_BENCH_ENTRIES` overrides the size.

use palisade::audit::{AuditDecision, GENESIS, NewEntry, append};
use palisade::verdict::ChainLink;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 5;

fn entry(i: u64) -> NewEntry {
    let (effect, rule, command) = match i % 20 {
        0 => (
            "deny",
            Some("fs:rm-rf-home"),
            format!("rm -rf ~/{}", i % 37),
        ),
        1 => (
            "ask",
            Some("net:curl-pipe-sh"),
            "curl https://x.sh | sh".to_string(),
        ),
        2..=9 => (
            "allow",
            Some("policy:cargo"),
            format!("cargo test -p crate{}", i % 50),
        ),
        _ => (
            "pass",
            None,
            format!("ls -la src/module{}/file{}.rs", i % 13, i % 1000),
        ),
    };
    NewEntry {
        session: format!("session-{}", i / 5000),
        event: if i.is_multiple_of(7) {
            "PostToolUse"
        } else {
            "PreToolUse"
        }
        .into(),
        tool: if i.is_multiple_of(11) {
            "Write"
        } else {
            "Bash"
        }
        .into(),
        input: json!({"command": command, "description": "benchmark call", "timeout": 120000}),
        decision: AuditDecision {
            effect: effect.into(),
            rule: rule.map(str::to_string),
            reason: if rule.is_some() {
                "a rule decided this call for the benchmark".into()
            } else {
                String::new()
            },
            source: "static".into(),
            category: rule.map(|_| "bench".to_string()),
        },
        chain: if i.is_multiple_of(97) {
            vec![ChainLink {
                path: "/p/clean.sh".into(),
                seq: i.saturating_sub(3).max(1),
                hash: GENESIS.into(),
            }]
        } else {
            Vec::new()
        },
        risk: (i.is_multiple_of(50)).then(|| json!({"latency_ms": 300 + i % 700, "cached": false})),
        latency_us: 300 + (i * 7919) % 4000,
        alerts: Vec::new(),
    }
}

fn generate(path: &Path, n: u64) {
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let mut prev = GENESIS.to_string();
    let start = palisade::audit::append::now_ms() - n;
    for i in 1..=n {
        let e = entry(i).seal(i, start + i, prev);
        out.write_all(e.to_line().as_bytes()).unwrap();
        prev = e.hash;
    }
    out.flush().unwrap();
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time_cmd(name: &str, runs: usize, mut cmd: impl FnMut() -> Command) -> Duration {
    let mut times = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let out = cmd()
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        times.push(t.elapsed());
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let m = median(times.clone());
    println!(
        "{name:<44} median {:>9.3} ms  (min {:.3}, max {:.3}; {runs} runs)",
        m.as_secs_f64() * 1e3,
        times.iter().min().unwrap().as_secs_f64() * 1e3,
        times.iter().max().unwrap().as_secs_f64() * 1e3
    );
    m
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs us too: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let n: u64 = std::env::var("AUDIT_BENCH_ENTRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 2_000 } else { 1_000_000 });
    let runs = if quick { 1 } else { RUNS };
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let file = state.join("audit.jsonl");
    let t = Instant::now();
    generate(&file, n);
    let size = std::fs::metadata(&file).unwrap().len();
    println!(
        "generated {n} entries, {:.1} MB, in {:.2} s",
        size as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    let exe = env!("CARGO_BIN_EXE_palisade");
    let base = |args: &[&str]| {
        let mut c = Command::new(exe);
        c.args(args)
            .env("HOME", dir.path())
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_CACHE_HOME", dir.path().join("cache"))
            .env("XDG_STATE_HOME", dir.path().join("xstate"))
            .env("CLAUDE_CONFIG_DIR", dir.path().join("claude"))
            .env("PALISADE_DATA_DIR", &state);
        c
    };
    let f = file.to_str().unwrap().to_string();
    time_cmd(&format!("audit stats --json ({n} entries)"), runs, || {
        base(&["audit", "stats", "--json", "--file", &f])
    });
    time_cmd(&format!("audit verify ({n} entries)"), runs, || {
        base(&["audit", "verify", &f])
    });

    // One append at the end of the big log (library call: lock, tail read, write).
    let mut appends = Vec::new();
    let appends_done: u64 = if quick { 5 } else { 200 };
    for i in 0..appends_done {
        let t = Instant::now();
        append(&file, entry(i)).unwrap();
        appends.push(t.elapsed());
    }
    println!(
        "{:<44} median {:>9.3} ms",
        "append to the end of the log (library)",
        median(appends).as_secs_f64() * 1e3
    );

    // A whole hook process: parse, policy, static decision, audit append, answer.
    let event = json!({"session_id": "b", "cwd": "/tmp", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "cargo test"}})
    .to_string();
    let hook_runs = if quick { 1 } else { 50 };
    let mut hooks = Vec::new();
    for _ in 0..hook_runs {
        let t = Instant::now();
        let mut child = base(&["hook"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(event.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success());
        hooks.push(t.elapsed());
    }
    println!(
        "{:<44} median {:>9.3} ms  ({hook_runs} runs)",
        "palisade hook process (static path + append)",
        median(hooks).as_secs_f64() * 1e3
    );
    let appended = appends_done + hook_runs as u64;
    let s = palisade::audit::verify(&file).unwrap();
    assert_eq!(s.entries, n + appended);
}
