//! Latency of the risk layer, for docs/PERFORMANCE.md ("Risk backend"). Ignored by default;
//! run on a release build:
//!
//! `cargo test --release --test risk_perf -- --ignored --nocapture`
//!
//! Measures, against a stand-in server on 127.0.0.1 answering at once: the whole `palisade hook`
//! process with a backend call (cache off), with a cache hit, and with the layer off; and
//! in-process `risk::assess` for a backend call and a cache hit.

#[path = "risk_server.rs"]
mod risk_server;
mod under_test;

use palisade::event::HookEvent;
use palisade::locations::Locations;
use palisade::normalize;
use palisade::policy::Policy;
use palisade::risk::{self, RiskSettings};
use palisade::verdict::Verdict;
use risk_server::{Reply, Server, answers, response};
use serde_json::json;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const N: usize = 41;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn p90(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[(v.len() * 9) / 10]
}

fn hook_once(dir: &std::path::Path, policy: &str, command: &str) -> Duration {
    std::fs::write(dir.join("policy.yaml"), policy).unwrap();
    let event = json!({"session_id":"perf","cwd":dir.join("project").to_string_lossy(),
        "hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":command}});
    let start = Instant::now();
    let mut child = Command::new(under_test::palisade_bin())
        .arg("hook")
        .env_clear()
        .env("HOME", dir.join("home"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("CLAUDE_CONFIG_DIR", dir.join("claude"))
        .env("PALISADE_CONFIG", dir.join("policy.yaml"))
        .env("PALISADE_DATA_DIR", dir.join("palisade"))
        .env("PERF_KEY", "sk-perf-key-0123456789")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The hook may answer before reading everything; a broken pipe is not a failure.
    if let Err(e) = child
        .stdin
        .take()
        .unwrap()
        .write_all(event.to_string().as_bytes())
    {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    let out = child.wait_with_output().unwrap();
    let elapsed = start.elapsed();
    assert!(out.status.code() == Some(0), "{out:?}");
    elapsed
}

#[test]
#[ignore]
fn risk_latency() {
    let server = Server::start(vec![Reply::ok(response(answers(
        1.8,
        0.9,
        [0.3, 0.1, 0.2, 0.02, 0.1, 0.1],
    )))]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("project")).unwrap();
    let base = format!(
        "version: 1\nrisk:\n  enabled: true\n  url: {}\n  api_key_env: PERF_KEY\n",
        server.url()
    );

    let off = "version: 1\n";
    let no_cache = format!("{base}  cache_ttl_s: 0\n");
    let cached = base.clone();
    // Warm the page cache and the risk cache.
    hook_once(dir.path(), off, "npm run build");
    hook_once(dir.path(), &cached, "npm run build");

    let t_off: Vec<_> = (0..N)
        .map(|_| hook_once(dir.path(), off, "npm run build"))
        .collect();
    let before = server.count();
    let t_call: Vec<_> = (0..N)
        .map(|_| hook_once(dir.path(), &no_cache, "npm run build"))
        .collect();
    assert_eq!(server.count() - before, N);
    let before = server.count();
    let t_hit: Vec<_> = (0..N)
        .map(|_| hook_once(dir.path(), &cached, "npm run build"))
        .collect();
    assert_eq!(server.count(), before, "all cache hits");

    // In process: risk::assess alone.
    let home = dir.path().join("home");
    let data = dir.path().join("inproc");
    let loc = Locations::from_vars(|k| (k == "HOME").then(|| home.clone()));
    let root = dir.path().join("project");
    let event: HookEvent = serde_json::from_value(json!({"session_id":"perf","cwd":root.to_string_lossy(),
        "hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm run build"}}))
    .unwrap();
    let scope = palisade::hook::scope_for(&Policy::default(), &loc, &root, &root, false);
    let call = normalize::normalize(&event, &scope);
    let s = RiskSettings {
        enabled: true,
        url: server.url(),
        ..Default::default()
    };
    let assess = |s: &RiskSettings| {
        let start = Instant::now();
        let out = risk::assess_with_key(
            s,
            Some("sk-perf".into()),
            &event,
            &call,
            &scope,
            &Verdict::no_opinion(),
            &[],
            &data,
        )
        .unwrap();
        assert_eq!(out.record["step"], "ask");
        start.elapsed()
    };
    let s_nocache = RiskSettings {
        cache_ttl_s: 0,
        ..s.clone()
    };
    let before = server.count();
    let a_call: Vec<_> = (0..N).map(|_| assess(&s_nocache)).collect();
    assert_eq!(
        server.count() - before,
        N,
        "every in-process call reached the server"
    );
    assess(&s);
    let before = server.count();
    let a_hit: Vec<_> = (0..N).map(|_| assess(&s)).collect();
    assert_eq!(server.count(), before, "all cache hits");

    let row = |name: &str, v: Vec<Duration>| {
        println!(
            "| {name} | {:.2} ms | {:.2} ms |",
            median(v.clone()).as_secs_f64() * 1000.0,
            p90(v).as_secs_f64() * 1000.0
        )
    };
    println!("N = {N}");
    println!("| measurement | median | p90 |");
    println!("|---|---|---|");
    row("`palisade hook`, risk layer off (static only)", t_off);
    row(
        "`palisade hook`, backend call to loopback (cache off)",
        t_call,
    );
    row("`palisade hook`, cache hit", t_hit);
    row(
        "`risk::assess` in process, backend call to loopback",
        a_call,
    );
    row("`risk::assess` in process, cache hit", a_hit);
}
