//! Rate limits and budgets (`limits:` in the policy): how many calls of a kind a session may
//! make — network sends, recursive deletes, writes outside the project, calls of an MCP server
//! — in the whole session or in a rolling hour. Past the limit a call is asked or denied
//! (the limit's `effect`) with the count, the max and the window in the reason.
//!
//! What counts: a call counts once (however many matching effects it has) for every limit
//! it matches, when palisade lets it through or asks about it for another reason; a call
//! denied earlier in the pipeline, or refused by a limit, consumes nothing. The counts live
//! in the session's ledger store (`ledger::limits`), checked and incremented in one
//! transaction, so parallel hook processes neither lose nor double a count. A store that
//! cannot be used refuses the call (fail closed).

use crate::event::HookEvent;
use crate::ledger::LedgerStore;
use crate::ledger::limits::LimitUse;
use crate::normalize::{Call, Scope};
use crate::policy::Policy;
use crate::policy::limit_settings::{Counted, HOUR_MS, Limit};
use crate::policy::schema::Per;
use crate::verdict::{Effect, Source, Verdict};

pub mod stats;

/// What the store counts for `limit`: its id, its window, its max.
fn usage(limit: &Limit) -> LimitUse {
    LimitUse {
        id: limit.id.clone(),
        window_ms: match limit.per {
            Per::Session => None,
            Per::Hour => Some(HOUR_MS),
        },
        max: limit.max,
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`…
pub fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The limit stage: counts the call against every limit it matches and, past one, the
/// stricter of `verdict` and that limit's ask or deny. A call already denied is not counted;
/// PostToolUse events are never counted.
pub fn enforce(
    policy: &Policy,
    store: &LedgerStore,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
    verdict: Verdict,
) -> Verdict {
    if policy.limits.is_empty() || event.is_post() || verdict.effect == Some(Effect::Deny) {
        return verdict;
    }
    let hit: Vec<&Limit> = policy
        .limits
        .iter()
        .filter(|l| l.counts(call, scope))
        .collect();
    if hit.is_empty() {
        return verdict;
    }
    let uses: Vec<LimitUse> = hit.iter().map(|l| usage(l)).collect();
    let counts = match store.take_limits(&event.session_id, &uses, now_ms()) {
        Ok(c) => c,
        Err(e) => return store_failure(policy, &e).stricter(verdict),
    };
    if counts.counted {
        return verdict;
    }
    over_limit(policy, &hit, &counts.before, verdict)
}

/// The risk budget, before the risk step: a call the risk layer would be asked about is
/// counted against the `count: risk-request` limits; past one, it gets the limit's effect and
/// is not sent (the risk layer leaves a decided call alone in its default scope). A cache hit
/// counts like a request: which it will be is known only after the request is built.
pub fn risk_budget(
    policy: &Policy,
    store: &LedgerStore,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
    verdict: Verdict,
) -> Verdict {
    let hit: Vec<&Limit> = policy
        .limits
        .iter()
        .filter(|l| matches!(l.counted, Counted::RiskRequests | Counted::RiskTokens))
        .collect();
    let risk = &policy.risk;
    if hit.is_empty()
        || event.is_post()
        || !crate::risk::in_scope(risk, &verdict)
        || (risk.scope != crate::risk::RiskScope::All
            && crate::risk::fastpath::read_only(call, scope))
    {
        return verdict;
    }
    let now = now_ms();
    // A token budget already spent stops the request; what it will cost is known only after.
    let spent: Vec<&Limit> = tokens(policy).collect();
    let uses: Vec<LimitUse> = spent.iter().map(|l| usage(l)).collect();
    match store.limit_counts(&event.session_id, &uses, now) {
        Ok(totals) => {
            let over = spent.iter().zip(&totals).filter(|(l, n)| **n >= l.max);
            if let Some((limit, n)) = over.max_by_key(|(l, _)| l.effect) {
                let reason = format!(
                    "limit {}: the risk layer has used {n} input tokens {} (max {}), so this \
                     call is not sent to it",
                    limit.id,
                    limit.window(),
                    limit.max
                );
                return verdict.stricter(refusal(policy, limit, reason));
            }
        }
        Err(e) => return store_failure(policy, &e).stricter(verdict),
    }
    let hit: Vec<&Limit> = hit
        .into_iter()
        .filter(|l| matches!(l.counted, Counted::RiskRequests))
        .collect();
    let uses: Vec<LimitUse> = hit.iter().map(|l| usage(l)).collect();
    match store.take_limits(&event.session_id, &uses, now) {
        Ok(c) if c.counted => verdict,
        Ok(c) => over_limit(policy, &hit, &c.before, verdict),
        Err(e) => store_failure(policy, &e).stricter(verdict),
    }
}

/// The policy's `count: risk-tokens` limits.
fn tokens(policy: &Policy) -> impl Iterator<Item = &Limit> {
    policy
        .limits
        .iter()
        .filter(|l| matches!(l.counted, Counted::RiskTokens))
}

/// After the risk step: adds the input tokens the backend reported for this call's request
/// (none for a cache hit, which costs nothing) to the `count: risk-tokens` limits. The call
/// itself is not refused for the spend it just made; the next request is.
pub fn risk_spend(
    policy: &Policy,
    store: &LedgerStore,
    event: &HookEvent,
    verdict: Verdict,
) -> Verdict {
    let uses: Vec<LimitUse> = tokens(policy).map(usage).collect();
    let Some(risk) = verdict.risk.as_ref().filter(|_| !uses.is_empty()) else {
        return verdict;
    };
    if risk.get("cached").and_then(|c| c.as_bool()) == Some(true) {
        return verdict;
    }
    let spent = risk
        .pointer("/tokens/input")
        .and_then(|t| t.as_u64())
        .unwrap_or(0);
    match store.add_to_limits(&event.session_id, &uses, spent, now_ms()) {
        Ok(()) => verdict,
        Err(e) => store_failure(policy, &e).stricter(verdict),
    }
}

fn store_failure(policy: &Policy, e: &crate::ledger::LedgerError) -> Verdict {
    let mut v = Verdict::failure(
        "error/limits",
        format!("{e}, so the policy's limits cannot be checked and the call is refused"),
    );
    if policy.audit.on_error_ask {
        v.effect = Some(Effect::Ask);
    }
    crate::evaluate::headless(policy, v)
}

/// The stricter of `verdict` and the refusal of the strictest limit that is over (deny
/// before ask, then the first listed), with the count, the max and the window in the reason.
fn over_limit(policy: &Policy, hit: &[&Limit], before: &[u64], verdict: Verdict) -> Verdict {
    let over = hit
        .iter()
        .zip(before)
        .filter(|(l, n)| **n + 1 > l.max)
        .max_by(|a, b| {
            a.0.effect
                .cmp(&b.0.effect)
                .then(std::cmp::Ordering::Greater)
        });
    let Some((limit, n)) = over else {
        return verdict;
    };
    let per_hour = if limit.per == Per::Hour {
        " per hour"
    } else {
        ""
    };
    let reason = format!(
        "limit {}: {} {} {} (max {}{per_hour})",
        limit.id,
        ordinal(n + 1),
        limit.what(),
        limit.window(),
        limit.max
    );
    verdict.stricter(refusal(policy, limit, reason))
}

/// The limit's ask or deny with `reason` (a deny when no human will answer).
fn refusal(policy: &Policy, limit: &Limit, reason: String) -> Verdict {
    let v = Verdict::decided(
        limit.effect,
        format!("policy:limit/{}", limit.id),
        "limits",
        reason,
        Source::Static,
    );
    crate::evaluate::headless(policy, v)
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
                "111th"
            ]
        );
    }
}
