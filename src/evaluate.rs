//! The static verdict: built-in packs and policy rules over one normalised call, combined by
//! strictness (deny > ask > allow; rule order never matters). A pure function.

use crate::normalize::{Call, Scope};
use crate::packs;
use crate::policy::Policy;
use crate::verdict::{Effect, Source, Verdict};

/// Evaluates a call against the effective policy and the enabled built-in packs.
pub fn evaluate(policy: &Policy, call: &Call, scope: &Scope) -> Verdict {
    let mut best = Verdict::no_opinion();
    let mut best_rank: Option<Effect> = None;

    for hit in packs::hits(call, scope, |r| !policy.disabled_packs.contains(r.pack)) {
        let full_id = format!("{}/{}", hit.rule.pack, hit.rule.id);
        // Confinement's strength is a policy setting (`outside_roots`), not a fixed rule effect.
        let base = if hit.rule.pack == "path-escape" {
            policy.outside_roots
        } else {
            hit.rule.effect
        };
        let effect = policy.rule_overrides.get(&full_id).copied().unwrap_or(base);
        if Some(effect) > best_rank {
            best_rank = Some(effect);
            let reason = if hit.detail.is_empty() {
                hit.rule.reason.to_string()
            } else {
                format!("{}: {}.", hit.rule.reason, hit.detail)
            };
            best = Verdict::decided(effect, full_id, hit.rule.pack, reason, Source::Static);
        }
    }

    let outcome = policy.evaluate(call, scope);
    for hit in &outcome.hits {
        if Some(hit.effect) > best_rank {
            best_rank = Some(hit.effect);
            best = Verdict::decided(
                hit.effect,
                hit.rule_id.clone(),
                "policy",
                hit.reason.clone(),
                Source::Static,
            );
        }
    }

    if best.effect != Some(Effect::Allow)
        && best.effect.is_some()
        && !outcome.near_misses.is_empty()
    {
        best.reason = format!(
            "{} Near miss: {}",
            best.reason,
            outcome.near_misses.join("; ")
        );
    } else if best.effect.is_none() && !outcome.near_misses.is_empty() {
        // A rule wanted this tool but its arguments were outside what it allows: say so, and
        // let a human look rather than fall through silently.
        best = Verdict::decided(
            Effect::Ask,
            "policy/near-miss",
            "policy",
            format!(
                "No rule allows this call as made. Near miss: {}",
                outcome.near_misses.join("; ")
            ),
            Source::Static,
        );
    }

    headless(policy, best)
}

/// In a headless policy nobody answers a prompt, so an ask becomes a deny.
pub fn headless(policy: &Policy, mut verdict: Verdict) -> Verdict {
    if policy.headless && verdict.effect == Some(Effect::Ask) {
        verdict.effect = Some(Effect::Deny);
        verdict.reason = format!("{} (headless policy: asks are denied)", verdict.reason);
    }
    verdict
}
