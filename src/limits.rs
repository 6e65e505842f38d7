//! Rate limits and budgets (`limits:` in the policy): how many calls of a kind a session may
//! make — network sends, recursive deletes, writes outside the project, calls of an MCP server
//! — in the whole session or in a rolling hour. Past the limit a call is asked or denied
//! (the limit's `effect`) with the count, the max and the window in the reason.
//!
//! What counts: a call counts once (however many matching effects it has) for every limit
//! it matches, when palisade lets it through or asks about it for another reason; a call
//! denied earlier in the pipeline, or refused by a limit, consumes nothing. The counts live
//! in the session's ledger store (`ledger::limits`), checked and incremented inside the
//! call's one write transaction (`Counting`, run by `SessionStore::commit`: a call a limit
//! denies records nothing either), so parallel hook processes neither lose nor double a
//! count. The risk budgets are checked before the risk request, in one transaction of their
//! own on the same connection (`risk_budget`). A store that cannot be used refuses the call
//! (fail closed). Counts are stamped with the world's clock, read once per call.

use crate::event::HookEvent;
use crate::ledger::limits::{self, LimitCounts, LimitUse};
use crate::ledger::{LedgerError, SessionStore};
use crate::normalize::{Call, Scope};
use crate::policy::Policy;
use crate::policy::limit_settings::{Counted, HOUR_MS, Limit};
use crate::policy::schema::Per;
use crate::verdict::{Effect, Source, Verdict};
use rusqlite::Connection;

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

/// The limit stage of one call, run inside its write transaction (`SessionStore::commit`):
/// the limits the call counts against, and the risk layer's spend to add.
#[derive(Debug)]
pub struct Counting<'p> {
    hit: Vec<&'p Limit>,
    spend: Vec<LimitUse>,
    amount: u64,
}

impl<'p> Counting<'p> {
    /// What a call with the final verdict `verdict` counts: every limit it matches (none for
    /// a call already denied, or a PostToolUse), and the input tokens the backend reported
    /// for its risk request (none for a cache hit, which costs nothing).
    pub fn of(
        policy: &'p Policy,
        event: &HookEvent,
        call: &Call,
        scope: &Scope,
        verdict: &Verdict,
    ) -> Counting<'p> {
        let hit = if event.is_post() || verdict.effect == Some(Effect::Deny) {
            Vec::new()
        } else {
            policy
                .limits
                .iter()
                .filter(|l| l.counts(call, scope))
                .collect()
        };
        let spend: Vec<LimitUse> = tokens(policy).map(usage).collect();
        let amount = verdict
            .risk
            .as_ref()
            .filter(|_| !spend.is_empty())
            .filter(|r| r.get("cached").and_then(|c| c.as_bool()) != Some(true))
            .and_then(|r| r.pointer("/tokens/input"))
            .and_then(|t| t.as_u64())
            .unwrap_or(0);
        Counting { hit, spend, amount }
    }

    /// Nothing to count: the stage needs no store.
    pub fn is_empty(&self) -> bool {
        self.hit.is_empty() && self.amount == 0
    }

    /// The stage, on the call's write transaction `tx`: adds the spend (the call itself is not
    /// refused for the spend it just made; the next request is), then checks every limit the
    /// call matches and counts it when all have room. Returns the stricter of `verdict` and
    /// the refusal of a limit that is over, and whether the call's recording is written (not
    /// for a deny: a refused call records and consumes nothing).
    pub fn run(
        &self,
        policy: &Policy,
        tx: &Connection,
        verdict: Verdict,
        now_ms: u64,
    ) -> Result<(Verdict, bool), LedgerError> {
        limits::add(tx, &self.spend, self.amount, now_ms)?;
        let uses: Vec<LimitUse> = self.hit.iter().copied().map(usage).collect();
        let counts = limits::take(tx, &uses, now_ms)?;
        let verdict = if counts.counted {
            verdict
        } else {
            over_limit(policy, &self.hit, &counts.before, verdict)
        };
        let write = verdict.effect != Some(Effect::Deny);
        Ok((verdict, write))
    }
}

/// The risk budget, before the risk step: a call the risk layer would be asked about is
/// counted against the `count: risk-request` limits; past one, or past a `count:
/// risk-tokens` limit already spent, it gets the limit's effect and is not sent (the risk
/// layer leaves a decided call alone in its default scope). A cache hit counts like a
/// request: which it will be is known only after the request is built. Both budgets are
/// read and the request counted in one transaction on the call's connection.
pub fn risk_budget(
    policy: &Policy,
    session: &mut SessionStore,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
    verdict: Verdict,
    now_ms: u64,
) -> Verdict {
    let risk = &policy.risk;
    if !policy
        .limits
        .iter()
        .any(|l| matches!(l.counted, Counted::RiskRequests | Counted::RiskTokens))
        || event.is_post()
        || !crate::risk::in_scope(risk, &verdict)
        || (risk.scope != crate::risk::RiskScope::All
            && crate::risk::fastpath::read_only(call, scope))
    {
        return verdict;
    }
    let spent: Vec<&Limit> = tokens(policy).collect();
    let spent_uses: Vec<LimitUse> = spent.iter().copied().map(usage).collect();
    let hit: Vec<&Limit> = policy
        .limits
        .iter()
        .filter(|l| matches!(l.counted, Counted::RiskRequests))
        .collect();
    let uses: Vec<LimitUse> = hit.iter().copied().map(usage).collect();
    // The store is made only when a request can be counted; a token budget reads it.
    let create = !uses.is_empty() && uses.iter().all(|u| u.max > 0);
    let checked = session.immediate(create, |tx| {
        let totals = limits::counts(tx, &spent_uses, now_ms)?;
        // A token budget already spent stops the request; what it will cost is known only after.
        let over = spent
            .iter()
            .zip(totals)
            .filter(|(l, n)| *n >= l.max)
            .max_by_key(|(l, _)| l.effect);
        if let Some((limit, n)) = over {
            return Ok(Err((*limit, n)));
        }
        limits::take(tx, &uses, now_ms).map(Ok)
    });
    let counts = match checked {
        Ok(Some(Ok(counts))) => counts,
        // No store yet: nothing spent, nothing counted (a max of 0 refuses).
        Ok(None) => LimitCounts {
            before: vec![0; uses.len()],
            counted: uses.iter().all(|u| u.max > 0),
        },
        Ok(Some(Err((limit, n)))) => {
            let reason = format!(
                "limit {}: the risk layer has used {n} input tokens {} (max {}), so this \
                 call is not sent to it",
                limit.id,
                limit.window(),
                limit.max
            );
            return verdict.stricter(refusal(policy, limit, reason));
        }
        Err(e) => return store_failure(policy, &e).stricter(verdict),
    };
    if counts.counted {
        verdict
    } else {
        over_limit(policy, &hit, &counts.before, verdict)
    }
}

/// The policy's `count: risk-tokens` limits.
fn tokens(policy: &Policy) -> impl Iterator<Item = &Limit> {
    policy
        .limits
        .iter()
        .filter(|l| matches!(l.counted, Counted::RiskTokens))
}

/// The refusal for a store the limits cannot use (an ask with `on_error: ask`).
pub fn store_failure(policy: &Policy, e: &LedgerError) -> Verdict {
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

    #[test]
    fn both_risk_budgets_take_one_open_and_one_transaction() {
        use crate::ledger::LedgerStore;
        use crate::policy::Layer;
        use crate::policy::limit_settings::apply_layer;
        let mut policy = Policy::default();
        policy.risk.enabled = true;
        let limits = serde_yaml::from_str(
            "[{id: req, count: risk-request, per: session, max: 2, effect: deny},
              {id: tok, count: risk-tokens, per: session, max: 100, effect: deny}]",
        )
        .unwrap();
        apply_layer(&mut policy, limits, Layer::User, &mut Vec::new()).unwrap();
        let dir = std::path::PathBuf::from("/nonexistent-palisade-test/p");
        let scope = Scope {
            paths: crate::paths::PathResolver {
                cwd: dir.clone(),
                home: "/nonexistent-palisade-test".into(),
                follow_symlinks: false,
            },
            project_root: dir.clone(),
            roots: vec![dir.clone()],
            protected: Default::default(),
            files: crate::call::FileView::disk(),
            lines: Default::default(),
        };
        let event = HookEvent::hypothetical(
            "s",
            &dir,
            "Bash".into(),
            serde_json::json!({"command": "curl -X POST -d x=1 https://api.example.com/items"}),
        );
        let call = crate::normalize::normalize(&event, &scope);
        let store = LedgerStore::in_memory();
        let budget = |now: u64| {
            let before = crate::ledger::store_opens();
            let mut session = store.session("s");
            let v = risk_budget(
                &policy,
                &mut session,
                &event,
                &call,
                &scope,
                Verdict::no_opinion(),
                now,
            );
            (crate::ledger::store_opens() - before, v)
        };
        // Both budgets read and the request counted on one connection.
        assert_eq!(budget(1), (1, Verdict::no_opinion()));
        // A spend past the token budget stops the next request before it is counted.
        let spend = [usage(&policy.limits[1])];
        store
            .session("s")
            .immediate(true, |tx| limits::add(tx, &spend, 150, 2))
            .unwrap();
        let (n, v) = budget(3);
        assert_eq!(n, 1);
        assert_eq!(v.effect, Some(Effect::Deny), "{v:?}");
        assert!(
            v.reason.contains("limit tok: the risk layer has used 150"),
            "{}",
            v.reason
        );
        let req = [usage(&policy.limits[0])];
        assert_eq!(
            store.limit_counts("s", &req, 3).unwrap(),
            [1],
            "a refusal counts nothing"
        );
    }
}
