//! Many hook processes at once on one state dir: each decision recorded exactly once, `seq`
//! gap-free, and the chain verifies.

mod audit_support;

use audit_support::{Sandbox, bash_event, feed};
use std::collections::BTreeMap;

const PROCESSES: usize = 100;

#[test]
fn parallel_hooks_record_every_decision_once() {
    let sb = Sandbox::new();
    // Spawn every process first (each blocks reading stdin), then release them together.
    let mut children: Vec<_> = (0..PROCESSES).map(|_| sb.spawn(&["hook"])).collect();
    for (i, child) in children.iter_mut().enumerate() {
        let mut e: serde_json::Value =
            serde_json::from_str(&bash_event("par", &format!("echo call-{i}"))).unwrap();
        e["tool_use_id"] = format!("toolu_par_{i}").into();
        feed(child, &e.to_string());
    }
    // On a heavily loaded machine a debug-build process can hit the hook's 10 s deadline; it
    // then answers deny (fail closed) and may or may not have recorded. Every process that
    // answered normally must be recorded exactly once; none may be recorded twice.
    let mut answered = Vec::new();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().expect("wait");
        let err = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => answered.push(i),
            Some(2) if err.contains("deadline") => {}
            other => panic!("process {i}: exit {other:?}: {err}"),
        }
    }
    assert!(
        answered.len() >= PROCESSES / 10,
        "only {} of {PROCESSES} processes answered in time",
        answered.len()
    );
    let entries = sb.entries();
    assert!(entries.len() >= answered.len() && entries.len() <= PROCESSES);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, e) in entries.iter().enumerate() {
        assert_eq!(
            e["seq"].as_u64(),
            Some(i as u64 + 1),
            "seq must be gap-free"
        );
        let cmd = e["input"]["command"].as_str().unwrap().to_string();
        *seen.entry(cmd).or_default() += 1;
    }
    assert!(
        seen.values().all(|&n| n == 1),
        "a decision was recorded twice"
    );
    // The decided calls (bypass detection), appended by every process at once: each id a
    // whole line, none twice, every answered call's there.
    let calls = sb.state().join("calls");
    let ids: Vec<String> = std::fs::read_dir(&calls)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ids"))
        .flat_map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect();
    let distinct: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "an id was recorded twice");
    assert!(ids.iter().all(|l| l.starts_with("toolu_par_")), "{ids:?}");
    for i in answered {
        assert_eq!(seen.get(&format!("echo call-{i}")), Some(&1), "call {i}");
        assert!(
            distinct.contains(&format!("toolu_par_{i}")),
            "id of call {i}"
        );
    }
    let out = sb.run(&["audit", "verify"], "");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        audit_support::stdout(&out)
    );
}
