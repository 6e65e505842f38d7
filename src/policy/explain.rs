//! `palisade explain`: the effective policy written out for a reviewer, as text or JSON.

use super::{Policy, PolicyRule};
use serde_json::{Value, json};
use std::fmt::Write;

/// The effective policy as text: sources, packs, overrides, rules, roots, modes, settings, and
/// everything a project policy tried to loosen.
pub fn explain(policy: &Policy) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail; the results are ignored for that reason.
    let _ = writeln!(s, "palisade policy");
    let _ = writeln!(
        s,
        "\nSources (in layer order; a project policy can only tighten):"
    );
    for src in &policy.sources {
        let _ = writeln!(s, "  {:<9} {}", src.layer.as_str(), src.path.display());
    }
    let _ = writeln!(
        s,
        "  digest    {} (the audit flags a session whose policy changes)",
        policy.digest
    );

    let _ = writeln!(s, "\nModes:");
    let _ = writeln!(
        s,
        "  headless: {}",
        if policy.headless {
            "yes (every ask becomes a deny)"
        } else {
            "no"
        }
    );
    let _ = writeln!(
        s,
        "  outside_roots: {} (a write outside every root)",
        policy.outside_roots
    );
    let _ = writeln!(
        s,
        "  write roots: the project root, the system temp dirs{}",
        if policy.roots.is_empty() {
            ""
        } else {
            ", and:"
        }
    );
    for r in &policy.roots {
        let _ = writeln!(s, "    {}", r.display());
    }

    let (enabled, disabled): (Vec<&str>, Vec<&str>) = crate::packs::PACKS
        .iter()
        .partition(|p| !policy.disabled_packs.contains(**p));
    let _ = writeln!(s, "\nPacks:");
    let _ = writeln!(s, "  enabled:  {}", list_or_none(&enabled));
    let _ = writeln!(s, "  disabled: {}", list_or_none(&disabled));
    if !policy.rule_overrides.is_empty() {
        let _ = writeln!(s, "  overrides:");
        for (rule, effect) in &policy.rule_overrides {
            let _ = writeln!(s, "    {rule} → {effect}");
        }
    }
    if !policy.tool_models.is_empty() {
        let _ = writeln!(
            s,
            "\nMCP tool models (yours, tried before the built-in ones):"
        );
        for m in &policy.tool_models {
            let _ = writeln!(s, "  {}", m.tools.join(", "));
        }
    }

    let _ = writeln!(s, "\nPolicy rules ({}):", policy.rules.len());
    if policy.rules.is_empty() {
        let _ = writeln!(s, "  (none)");
    }
    for rule in &policy.rules {
        let _ = writeln!(
            s,
            "  {} [{}] {} policy, {}",
            rule.id,
            rule.effect,
            rule.layer.as_str(),
            rule.file.display()
        );
        let _ = writeln!(s, "    tools: {}", tools(rule).join(", "));
        for c in &rule.when {
            let _ = writeln!(s, "    when: {}", c.describe());
        }
        if let Some(m) = &rule.command {
            let _ = writeln!(s, "    command: {}", m.describe());
        }
        if let Some(r) = &rule.reason {
            let _ = writeln!(s, "    reason: {r}");
        }
    }

    let builtin: Vec<_> = crate::packs::all_rules().collect();
    let _ = writeln!(s, "\nBuilt-in rules ({}):", builtin.len());
    for rule in builtin {
        let full = format!("{}/{}", rule.pack, rule.id);
        let state = if policy.disabled_packs.contains(rule.pack) {
            " (pack disabled)".to_string()
        } else if let Some(e) = policy.rule_overrides.get(&full) {
            format!(" (overridden → {e})")
        } else {
            String::new()
        };
        let _ = writeln!(s, "  {full} [{}]{state}: {}", rule.effect, rule.reason);
    }

    let r = &policy.risk;
    let _ = writeln!(s, "\nRisk backend:");
    if r.enabled {
        let _ = writeln!(
            s,
            "  enabled: {} model {}, {} mode, scope {}, timeout {} ms, on error {}",
            r.url,
            r.model,
            if r.observe { "observe" } else { "enforce" },
            r.scope,
            r.timeout_ms,
            if r.on_error_deny { "deny" } else { "ask" }
        );
        let _ = writeln!(
            s,
            "  auto_allow: {}, non-mitigable: {}",
            r.auto_allow,
            r.non_mitigable.join(", ")
        );
        let changed: Vec<String> = crate::risk::settings::THRESHOLD_KEYS
            .iter()
            .filter_map(|k| {
                let v = r.thresholds.get(k.name)?;
                (v != k.default).then(|| format!("{} {v} (default {})", k.name, k.default))
            })
            .collect();
        let _ = writeln!(
            s,
            "  question set {}, thresholds: {}",
            crate::risk::questions::QUESTION_SET,
            if changed.is_empty() {
                "defaults".to_string()
            } else {
                changed.join(", ")
            }
        );
    } else {
        let _ = writeln!(s, "  disabled");
    }

    let a = &policy.audit;
    let _ = writeln!(s, "\nAudit:");
    let _ = writeln!(
        s,
        "  on error: {}",
        if a.on_error_ask { "ask" } else { "deny" }
    );
    if let Some(f) = &a.file {
        let _ = writeln!(s, "  file: {}", f.display());
    }
    if !a.redact.is_empty() {
        let _ = writeln!(s, "  redact: {}", a.redact.join(", "));
    }

    explain_limits_and_mode(policy, &mut s);

    let _ = writeln!(s, "\nIgnored ({}):", policy.ignored.len());
    if policy.ignored.is_empty() {
        let _ = writeln!(s, "  (nothing)");
    }
    for i in &policy.ignored {
        let _ = writeln!(s, "  {i}");
    }
    s
}

/// The same as `explain`, as one JSON object for `explain --json`.
pub fn explain_json(policy: &Policy) -> Value {
    let packs: Vec<Value> = crate::packs::PACKS
        .iter()
        .map(|p| json!({"name": p, "enabled": !policy.disabled_packs.contains(*p)}))
        .collect();
    let rules: Vec<Value> = policy.rules.iter().map(rule_json).collect();
    let builtin: Vec<Value> = crate::packs::all_rules()
        .map(|r| {
            let full = format!("{}/{}", r.pack, r.id);
            json!({
                "id": full,
                "pack": r.pack,
                "effect": r.effect,
                "effective": policy.rule_overrides.get(&full).copied().unwrap_or(r.effect),
                "enabled": !policy.disabled_packs.contains(r.pack),
                "reason": r.reason,
            })
        })
        .collect();
    let r = &policy.risk;
    let a = &policy.audit;
    json!({
        "sources": policy.sources.iter().map(|s| json!({
            "layer": s.layer.as_str(),
            "path": s.path.display().to_string(),
        })).collect::<Vec<_>>(),
        "digest": policy.digest,
        "headless": policy.headless,
        "outside_roots": policy.outside_roots,
        "roots": policy.roots.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "packs": packs,
        "overrides": policy.rule_overrides,
        "rules": rules,
        "builtin_rules": builtin,
        "risk": {
            "enabled": r.enabled,
            "url": r.url,
            "model": r.model,
            "mode": if r.observe { "observe" } else { "enforce" },
            "scope": r.scope,
            "timeout_ms": r.timeout_ms,
            "on_error": if r.on_error_deny { "deny" } else { "ask" },
            "auto_allow": r.auto_allow,
            "non_mitigable": r.non_mitigable,
            "cache_ttl_s": r.cache_ttl_s,
            "question_set": crate::risk::questions::QUESTION_SET,
            "thresholds": crate::risk::settings::THRESHOLD_KEYS
                .iter()
                .map(|k| (k.name.to_string(), json!(r.thresholds.get(k.name))))
                .collect::<serde_json::Map<String, Value>>(),
        },
        "audit": {
            "on_error": if a.on_error_ask { "ask" } else { "deny" },
            "redact": a.redact,
            "file": a.file.as_ref().map(|f| f.display().to_string()),
        },
        "ignored": policy.ignored,
        "mode": if policy.read_only.on { "read-only" } else { "normal" },
        "read_only_effect": policy.read_only.effect,
        "limits": policy.limits.iter().map(|l| json!({
            "id": l.id,
            "counts": l.counted_as_written(),
            "per": match l.per { super::schema::Per::Session => "session", super::schema::Per::Hour => "hour" },
            "max": l.max,
            "effect": l.effect,
            "layer": l.layer.as_str(),
        })).collect::<Vec<_>>(),
    })
}

/// The `Mode:` and `Limits:` sections of `explain`.
fn explain_limits_and_mode(policy: &Policy, s: &mut String) {
    let ro = &policy.read_only;
    let _ = writeln!(
        s,
        "\nSession mode: {}",
        if ro.on {
            format!("read-only (a call that changes something: {})", ro.effect)
        } else {
            "normal".to_string()
        }
    );
    let _ = writeln!(s, "\nLimits ({}):", policy.limits.len());
    if policy.limits.is_empty() {
        let _ = writeln!(s, "  (none)");
    }
    for l in &policy.limits {
        let _ = writeln!(
            s,
            "  {} [{}]: {}, max {} {}, then {}",
            l.id,
            l.layer.as_str(),
            l.counted_as_written(),
            l.max,
            match l.per {
                super::schema::Per::Session => "per session",
                super::schema::Per::Hour => "per rolling hour",
            },
            l.effect
        );
    }
}

fn rule_json(rule: &PolicyRule) -> Value {
    json!({
        "id": rule.id,
        "effect": rule.effect,
        "layer": rule.layer.as_str(),
        "file": rule.file.display().to_string(),
        "tools": tools(rule),
        "when": rule.when.iter().map(|c| c.describe()).collect::<Vec<_>>(),
        "command": rule.command.as_ref().map(|m| m.describe()),
        "reason": rule.reason,
    })
}

fn tools(rule: &PolicyRule) -> Vec<&str> {
    rule.tools.iter().map(|g| g.as_str()).collect()
}

fn list_or_none(items: &[&str]) -> String {
    if items.is_empty() {
        "(none)".into()
    } else {
        items.join(", ")
    }
}
