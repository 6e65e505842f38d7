//! Many hook processes at once on one state dir: each decision recorded exactly once, `seq`
//! gap-free, and the chain verifies.

mod audit_support;

use audit_support::{Sandbox, bash_event, feed};
use std::collections::BTreeMap;

const PROCESSES: usize = 120;

#[test]
fn parallel_hooks_record_every_decision_once() {
    let sb = Sandbox::new();
    // Spawn every process first (each blocks reading stdin), then release them together.
    let mut children: Vec<_> = (0..PROCESSES).map(|_| sb.spawn(&["hook"])).collect();
    for (i, child) in children.iter_mut().enumerate() {
        feed(child, &bash_event("par", &format!("echo call-{i}")));
    }
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let entries = sb.entries();
    assert_eq!(entries.len(), PROCESSES);
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
    for i in 0..PROCESSES {
        assert_eq!(seen.get(&format!("echo call-{i}")), Some(&1), "call {i}");
    }
    let out = sb.run(&["audit", "verify"], "");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        audit_support::stdout(&out)
    );
}
