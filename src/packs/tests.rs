//! Every built-in rule's example table, run: refused examples hit the rule and are refused
//! with its effect or stricter; allowed examples never hit it.

use super::{Example, PACKS, all_rules, hits};
use crate::event::HookEvent;
use crate::locations::Locations;
use crate::normalize::{Call, Scope, normalize};
use crate::policy::Policy;
use std::path::Path;

fn scope() -> Scope {
    let loc = Locations::from_vars(|k| (k == "HOME").then(|| "/home/dev".into()));
    crate::hook::scope_for(
        &Policy::default(),
        &loc,
        Path::new("/home/dev/project"),
        Path::new("/home/dev/project"),
        false,
    )
}

fn call_of(ex: &Example, scope: &Scope) -> Call {
    let input = if ex.tool == "Bash" {
        serde_json::json!({ "command": ex.input })
    } else {
        serde_json::from_str(ex.input)
            .unwrap_or_else(|e| panic!("bad example JSON {}: {e}", ex.input))
    };
    let event = HookEvent {
        session_id: "t".into(),
        transcript_path: None,
        cwd: Some("/home/dev/project".into()),
        permission_mode: None,
        hook_event_name: "PreToolUse".into(),
        tool_name: ex.tool.into(),
        tool_input: input,
        tool_use_id: None,
        tool_response: None,
        agent_id: None,
    };
    normalize(&event, scope)
}

#[test]
fn rule_ids_are_unique_and_packs_known() {
    let mut seen = std::collections::BTreeSet::new();
    for r in all_rules() {
        assert!(PACKS.contains(&r.pack), "{r:?} has unknown pack");
        assert!(
            seen.insert(format!("{}/{}", r.pack, r.id)),
            "duplicate {r:?}"
        );
        assert!(!r.reason.is_empty());
    }
}

#[test]
fn every_rule_refuses_its_refused_examples() {
    let scope = scope();
    let mut failures = Vec::new();
    for rule in all_rules() {
        for ex in rule.refused {
            let call = call_of(ex, &scope);
            let found = hits(&call, &scope, |_| true);
            if !found.iter().any(|h| std::ptr::eq(h.rule, rule)) {
                failures.push(format!(
                    "{}/{} did not refuse {:?}: hits {:?}",
                    rule.pack,
                    rule.id,
                    ex.input,
                    found.iter().map(|h| h.rule.id).collect::<Vec<_>>()
                ));
            }
            let verdict = crate::evaluate::evaluate(&Policy::default(), &call, &scope);
            if verdict.effect < Some(rule.effect) {
                failures.push(format!(
                    "{}/{}: {:?} got {:?}",
                    rule.pack, rule.id, ex.input, verdict.effect
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn no_rule_hits_its_allowed_examples() {
    let scope = scope();
    let mut failures = Vec::new();
    for rule in all_rules() {
        for ex in rule.allowed {
            let call = call_of(ex, &scope);
            let found = hits(&call, &scope, |_| true);
            if let Some(h) = found.iter().find(|h| std::ptr::eq(h.rule, rule)) {
                failures.push(format!(
                    "{}/{} hit allowed {:?}: {}",
                    rule.pack, rule.id, ex.input, h.detail
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Packs read file contents only through the scope's file view: the same call is judged by
/// the files the world has, and a lexical world (no files) never reads the disk.
#[test]
fn packs_read_files_through_the_scope() {
    use crate::normalize::FileView;
    let mut scope = scope();
    assert_eq!(
        scope.files,
        FileView::lexical(),
        "scope_for(.., false) is lexical"
    );
    let cert = Example::bash("cat /home/dev/project/certs/ca.pem");
    let install = Example::bash("cargo install --path fork --force");
    let judged = |scope: &Scope, ex: &Example| {
        let call = call_of(ex, scope);
        crate::evaluate::evaluate(&Policy::default(), &call, scope).effect
    };
    assert_eq!(judged(&scope, &cert), Some(crate::verdict::Effect::Ask));
    assert_ne!(judged(&scope, &install), Some(crate::verdict::Effect::Deny));
    let files = [
        (
            "/home/dev/project/certs/ca.pem",
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
        ),
        (
            "/home/dev/project/fork/Cargo.toml",
            "[package]\nname = \"palisade\"\n",
        ),
    ];
    scope.files = FileView::Fixed(std::sync::Arc::new(
        files
            .iter()
            .map(|(p, t)| (std::path::PathBuf::from(p), t.to_string()))
            .collect(),
    ));
    assert_eq!(judged(&scope, &cert), None);
    assert_eq!(judged(&scope, &install), Some(crate::verdict::Effect::Deny));
}
