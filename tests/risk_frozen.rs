//! The frozen risk challenge set (`challenge-sets/risk.jsonl`): every case is a call the static
//! layer leaves undecided, with recorded answers; the ladder with default thresholds must give
//! the expected outcome, offline and deterministically.

use palisade::event::HookEvent;
use palisade::locations::Locations;
use palisade::policy::Policy;
use palisade::risk::{self, RiskSettings};
use palisade::verdict::Verdict;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn cases() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("challenge-sets/risk.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn matches(expect: &str, got: &Verdict) -> bool {
    match expect {
        "block" => matches!(got.outcome(), "ask" | "deny"),
        "pass" => matches!(got.outcome(), "pass" | "allow"),
        e => got.outcome() == e,
    }
}

fn replay(case: &Value, settings: &RiskSettings) -> (Verdict, Option<String>) {
    let event: HookEvent = serde_json::from_value(case["event"].clone()).unwrap();
    let loc = Locations::from_vars(|k| match k {
        "HOME" => Some(PathBuf::from("/home/dev")),
        "PALISADE_DATA_DIR" => Some(PathBuf::from("/nonexistent/palisade-replay")),
        _ => None,
    });
    let cwd = PathBuf::from(event.cwd.clone().unwrap());
    let policy = Policy::default();
    let scope = palisade::hook::scope_for(&policy, &loc, &cwd, &cwd, false);
    let static_verdict = palisade::hook::decide(&policy, &event, &scope);
    if !risk::in_scope(settings, &static_verdict) {
        return (static_verdict, None);
    }
    let ctx = risk::context(&static_verdict, &[]);
    let outcome = risk::assess_frozen_value(settings, &case["risk_answers"], &ctx);
    let step = outcome.record["step"].as_str().map(str::to_string);
    (risk::combine(static_verdict, outcome), step)
}

/// `v` with its risk record's `latency_ms` set to 0: the one field a replay may change.
fn without_latency(mut v: Verdict) -> Verdict {
    if let Some(latency) = v.risk.as_mut().and_then(|r| r.get_mut("latency_ms")) {
        *latency = 0.into();
    }
    v
}

#[test]
fn frozen_risk_cases_follow_the_ladder() {
    let cases = cases();
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    let settings = RiskSettings {
        enabled: true,
        ..Default::default()
    };
    let mut ids = BTreeSet::new();
    let mut steps = BTreeSet::new();
    let mut failures = Vec::new();
    for case in &cases {
        let id = case["id"].as_str().unwrap().to_string();
        assert!(ids.insert(id.clone()), "duplicate id {id}");
        assert!(case["risk_answers"].is_object(), "{id} has no risk_answers");
        let expect = case["expect"].as_str().unwrap();
        let (got, step) = replay(case, &settings);
        let Some(step) = step else {
            failures.push(format!(
                "{id}: the static layer decided ({:?}), so the case does not test the ladder",
                got.rule
            ));
            continue;
        };
        steps.insert(step.clone());
        if !matches(expect, &got) {
            failures.push(format!(
                "{id}: expected {expect}, got {} at step {step} ({})",
                got.outcome(),
                got.reason
            ));
        }
        // Frozen replay is deterministic, but for the time it took: a loaded machine can
        // take a millisecond or more over a replay (a CI run failed on `latency_ms` 4 against 0).
        let (again, _) = replay(case, &settings);
        assert_eq!(without_latency(again), without_latency(got), "{id}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for step in [
        "from-untrusted",
        "deny",
        "low-confidence",
        "ask",
        "authorized",
        "low-risk",
        "unsure",
        "error",
    ] {
        assert!(steps.contains(step), "no case reaches step {step}");
    }
}

#[test]
fn frozen_cases_under_other_settings() {
    let cases = cases();
    let by_id = |id: &str| cases.iter().find(|c| c["id"] == id).unwrap().clone();
    // auto_allow turns the low-risk band into allow, and nothing else.
    let auto = RiskSettings {
        enabled: true,
        auto_allow: true,
        ..Default::default()
    };
    for case in &cases {
        let (got, step) = replay(case, &auto);
        if step.as_deref() == Some("low-risk") {
            assert_eq!(got.outcome(), "allow", "{}", case["id"]);
        } else {
            assert_ne!(got.outcome(), "allow", "{}", case["id"]);
        }
    }
    // on_error: deny turns every error case into a deny.
    let strict = RiskSettings {
        enabled: true,
        on_error_deny: true,
        ..Default::default()
    };
    for case in cases.iter().filter(|c| c["category"] == "risk-error") {
        assert_eq!(replay(case, &strict).0.outcome(), "deny", "{}", case["id"]);
    }
    // observe mode never acts.
    let observe = RiskSettings {
        enabled: true,
        observe: true,
        ..Default::default()
    };
    for case in &cases {
        assert_eq!(replay(case, &observe).0.outcome(), "pass", "{}", case["id"]);
    }
    // A tightened threshold moves a case: risk 1.8 + authorized 0.85 passes by default, but
    // not when the bar for `authorized` is raised.
    let c = by_id("risk-030");
    assert_eq!(
        replay(
            &c,
            &RiskSettings {
                enabled: true,
                ..Default::default()
            }
        )
        .0
        .outcome(),
        "pass"
    );
    let mut tight = RiskSettings {
        enabled: true,
        ..Default::default()
    };
    tight.thresholds.authorized_min = 0.9;
    assert_eq!(replay(&c, &tight).0.outcome(), "ask");
}
