//! `risk::assess` against a stand-in server on 127.0.0.1: the audit record, scope, and how the
//! risk outcome combines with a static verdict.

#[path = "risk_server.rs"]
mod risk_server;

use palisade::event::HookEvent;
use palisade::locations::Locations;
use palisade::normalize::{self, Call, Scope};
use palisade::policy::Policy;
use palisade::risk::{self, LedgerExcerpt, RiskScope, RiskSettings};
use palisade::verdict::{Effect, Source, Verdict};
use risk_server::{Reply, Server, answers, response};
use serde_json::json;
use std::path::PathBuf;

const KEY: &str = "sk-assess-test-0123456789abcdef";

struct Fixture {
    dir: tempfile::TempDir,
    event: HookEvent,
    call: Call,
    scope: Scope,
}

fn fixture(command: &str) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    let home = dir.path().join("home");
    let loc = Locations::from_vars(|k| match k {
        "HOME" => Some(home.clone()),
        "PALISADE_DATA_DIR" => Some(dir.path().join("data")),
        _ => None,
    });
    let event: HookEvent = serde_json::from_value(json!({
        "session_id": "s",
        "cwd": root.to_string_lossy(),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }))
    .unwrap();
    let scope = palisade::hook::scope_for(&Policy::default(), &loc, &root, &root, false);
    let call = normalize::normalize(&event, &scope);
    Fixture {
        dir,
        event,
        call,
        scope,
    }
}

fn settings(url: String) -> RiskSettings {
    RiskSettings {
        enabled: true,
        url,
        ..Default::default()
    }
}

impl Fixture {
    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn assess(
        &self,
        s: &RiskSettings,
        static_verdict: &Verdict,
        ledger: &[LedgerExcerpt],
    ) -> Option<risk::RiskOutcome> {
        risk::assess_with_key(
            s,
            Some(KEY.to_string()),
            &self.event,
            &self.call,
            &self.scope,
            static_verdict,
            ledger,
            &self.data(),
        )
    }
}

#[test]
fn record_holds_what_the_audit_needs() {
    let server = Server::start(vec![
        Reply::ok(response(answers(1.8, 0.9, [0.3, 0.1, 0.2, 0.02, 0.1, 0.1])))
            .with_header("x-typesafe-request-id", "req-42"),
    ]);
    let f = fixture("git push origin main");
    let s = settings(server.url());
    let out = f.assess(&s, &Verdict::no_opinion(), &[]).unwrap();
    assert_eq!(out.verdict.effect, Some(Effect::Ask));
    assert_eq!(out.verdict.source, Source::Risk);
    assert_eq!(out.verdict.rule.as_deref(), Some("risk/ask"));
    let r = &out.record;
    assert_eq!(r["model"], "jev-1.13.0");
    assert_eq!(r["question_set"], risk::questions::QUESTION_SET);
    assert_eq!(r["step"], "ask");
    assert_eq!(r["request_id"], "req-42");
    assert_eq!(r["cached"], false);
    assert_eq!(r["mode"], "enforce");
    assert_eq!(r["tokens"]["input"], 449);
    assert_eq!(r["answers"]["risk"]["score"], 1.8);
    assert_eq!(r["answers"].as_object().unwrap().len(), 7);
    assert!(
        r["answers"]["risk"].get("legend").is_none(),
        "the echoed legend is not kept"
    );
    assert!(r["latency_ms"].as_u64().is_some());
    assert!(r["error"].is_null());
    assert_eq!(r["state"]["input"]["command"], "git push origin main");
    assert_eq!(out.verdict.risk.as_ref(), Some(r));

    let again = f.assess(&s, &Verdict::no_opinion(), &[]).unwrap();
    assert_eq!(again.record["cached"], true);
    assert_eq!(again.record["request_id"], "req-42");
    assert_eq!(again.verdict.effect, Some(Effect::Ask));
    assert_eq!(server.count(), 1);
}

#[test]
fn failure_record_names_the_cause() {
    let server = Server::start(vec![Reply::status(401, r#"{"detail":"Invalid API key"}"#)]);
    let f = fixture("npm run build");
    let out = f
        .assess(&settings(server.url()), &Verdict::no_opinion(), &[])
        .unwrap();
    assert_eq!(out.verdict.effect, Some(Effect::Ask));
    assert_eq!(out.record["step"], "error");
    assert_eq!(out.record["error"]["code"], "http-401");
    assert!(
        out.record["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Invalid API key")
    );
    assert_eq!(server.count(), 1, "401 is not retried");
}

#[test]
fn observe_mode_record() {
    let server = Server::start(vec![Reply::ok(response(answers(
        2.9,
        0.9,
        [0.97, 0.1, 0.2, 0.02, 0.1, 0.0],
    )))]);
    let f = fixture("npm run build");
    let s = RiskSettings {
        observe: true,
        ..settings(server.url())
    };
    let out = f.assess(&s, &Verdict::no_opinion(), &[]).unwrap();
    assert_eq!(out.verdict.effect, None);
    assert_eq!(out.record["mode"], "observe");
    assert_eq!(out.record["decided"], "deny");
    assert_eq!(out.record["step"], "deny");
    let combined = risk::combine(Verdict::no_opinion(), out);
    assert_eq!(combined.effect, None);
    assert_eq!(combined.risk.as_ref().unwrap()["decided"], "deny");
}

#[test]
fn scope_and_combination_with_static_verdicts() {
    let server = Server::start(vec![Reply::ok(response(answers(
        1.8,
        0.9,
        [0.3, 0.1, 0.2, 0.02, 0.1, 0.95],
    )))]);
    let f = fixture("git push origin main");
    let s = settings(server.url());
    let static_deny =
        Verdict::decided(Effect::Deny, "p/r", "destructive-git", "no", Source::Static);
    let static_ask = Verdict::decided(Effect::Ask, "p/r", "publishing", "sure?", Source::Static);
    // Never for a static deny; not for a static ask under the default scope.
    assert!(f.assess(&s, &static_deny, &[]).is_none());
    assert!(f.assess(&s, &static_ask, &[]).is_none());
    assert!(
        f.assess(
            &RiskSettings {
                enabled: false,
                ..s.clone()
            },
            &Verdict::no_opinion(),
            &[]
        )
        .is_none()
    );
    assert_eq!(server.count(), 0);
    // With `all-but-denied`, the mitigator's pass never lowers the static ask.
    let wide = RiskSettings {
        scope: RiskScope::AllButDenied,
        ..s.clone()
    };
    let out = f.assess(&wide, &static_ask, &[]).unwrap();
    assert_eq!(out.record["step"], "authorized");
    let combined = risk::combine(static_ask.clone(), out);
    assert_eq!(combined.effect, Some(Effect::Ask));
    assert_eq!(combined.source, Source::Static);
    assert!(combined.risk.is_some());
    assert!(f.assess(&wide, &static_deny, &[]).is_none());
}

#[test]
fn unseen_agent_written_file_asks_and_ledger_reaches_the_state() {
    let server = Server::start(vec![Reply::ok(response(answers(
        0.1,
        0.9,
        [0.02, 0.02, 0.1, 0.02, 0.02, 0.99],
    )))]);
    let f = fixture("bash scripts/deploy.sh");
    let s = RiskSettings {
        auto_allow: true,
        ..settings(server.url())
    };
    let seen = [LedgerExcerpt {
        path: "scripts/deploy.sh".into(),
        written_by_agent: true,
        turns_ago: Some(1),
        excerpt: Some("#!/bin/sh\nmake build\n".into()),
        untrusted_source: None,
    }];
    let out = f.assess(&s, &Verdict::no_opinion(), &seen).unwrap();
    assert_eq!(out.verdict.effect, Some(Effect::Allow));
    let body = server.seen()[0].json();
    assert_eq!(body["state"]["ledger"][0]["path"], "scripts/deploy.sh");
    assert_eq!(body["state"]["ledger"][0]["written_by_agent"], true);

    let unseen = [LedgerExcerpt {
        excerpt: None,
        ..seen[0].clone()
    }];
    let out = f.assess(&s, &Verdict::no_opinion(), &unseen).unwrap();
    assert_eq!(out.verdict.effect, Some(Effect::Ask));
    assert!(
        out.verdict.reason.contains("not seen"),
        "{}",
        out.verdict.reason
    );
}

#[test]
fn doctor_reports_key_and_endpoint() {
    let server = Server::start(vec![Reply::ok(json!({
        "model": "jev-1.13.0",
        "answers": {"ping": {"type": "noul", "noul": 0.98}},
        "usage": {"input_tokens": 280, "output_tokens": 1}
    }))]);
    // Cargo sets CARGO_PKG_NAME for test processes: a variable that is surely present, so the
    // test needs no `set_var` (unsound with other threads running).
    let s = RiskSettings {
        api_key_env: "CARGO_PKG_NAME".into(),
        ..settings(server.url())
    };
    let report = risk::doctor_check(&s);
    assert_eq!(report.len(), 2, "{report:?}");
    assert!(
        report.iter().all(|(st, _)| *st != risk::CheckStatus::Fail),
        "{report:?}"
    );
    assert!(report[1].1.contains("answered in"), "{report:?}");
    let req = &server.seen()[0];
    assert_eq!(req.header("authorization"), Some("Bearer palisade"));
    assert!(req.json()["questions"]["ping"].is_object());

    let missing = RiskSettings {
        api_key_env: "PALISADE_SURELY_UNSET_VARIABLE_FOR_TESTS".into(),
        ..settings(server.url())
    };
    let report = risk::doctor_check(&missing);
    assert_eq!(report[0].0, risk::CheckStatus::Fail);
    assert!(
        report[0]
            .1
            .contains("PALISADE_SURELY_UNSET_VARIABLE_FOR_TESTS")
    );

    let down = Server::start(vec![Reply::status(503, "{}")]);
    let s = RiskSettings {
        api_key_env: "CARGO_PKG_NAME".into(),
        ..settings(down.url())
    };
    let report = risk::doctor_check(&s);
    assert_eq!(
        report.last().unwrap().0,
        risk::CheckStatus::Fail,
        "{report:?}"
    );
    assert!(report.last().unwrap().1.contains("HTTP 503"));

    let off = risk::doctor_check(&RiskSettings::default());
    assert_eq!(off[0].0, risk::CheckStatus::Ok);
    assert!(off[0].1.contains("off"));
}
