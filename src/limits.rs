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
use crate::policy::schema::{LimitConfig, Per};
use crate::policy::{Glob, GlobKind, Layer, Policy};
use crate::verdict::{Effect, Source, Verdict};

/// Length of the `per: hour` window.
pub const HOUR_MS: u64 = 3_600_000;

/// What a limit counts.
#[derive(Debug, Clone)]
pub enum Counted {
    /// Calls with an effect of this kind (`crate::effects::KINDS`).
    Kind(&'static str),
    /// Calls of the tools this glob matches (`mcp__github__*`).
    Tool(Glob),
    /// Calls sent to the risk layer (`count: risk-request`), checked before the request.
    RiskRequests,
    /// The risk layer's spend in input tokens as the backend reports them (`count:
    /// risk-tokens`, the unit it bills): checked before a request, added after it.
    RiskTokens,
}

/// The `count:` that budgets the risk layer rather than an effect.
pub const RISK_REQUEST: &str = "risk-request";
/// The `count:` that budgets the risk layer's reported input tokens.
pub const RISK_TOKENS: &str = "risk-tokens";

/// One limit of the effective policy.
#[derive(Debug, Clone)]
pub struct Limit {
    pub id: String,
    pub counted: Counted,
    pub per: Per,
    pub max: u64,
    /// Ask or deny, past the limit.
    pub effect: Effect,
    pub layer: Layer,
}

impl Limit {
    /// Compiles a `limits:` entry; an error says what is wrong with it.
    pub fn compile(c: LimitConfig, layer: Layer) -> Result<Limit, String> {
        if c.id.is_empty() || c.id.chars().any(|ch| ch.is_whitespace() || ch.is_control()) {
            return Err("a limit id must be non-empty, without spaces".into());
        }
        if c.effect == Effect::Allow {
            return Err(format!(
                "limit '{}': effect must be ask or deny (what happens past the limit)",
                c.id
            ));
        }
        let counted = match (c.count, c.tool) {
            (Some(kind), None) if kind == RISK_REQUEST => Counted::RiskRequests,
            (Some(kind), None) if kind == RISK_TOKENS => Counted::RiskTokens,
            (Some(kind), None) => Counted::Kind(crate::effects::kind(&kind).ok_or_else(|| {
                format!(
                    "limit '{}': unknown effect kind '{kind}'{}; kinds: {}",
                    c.id,
                    crate::policy::did_you_mean(
                        &kind,
                        crate::effects::KINDS.iter().map(|(k, _)| *k)
                    ),
                    crate::effects::KINDS
                        .iter()
                        .map(|(k, _)| *k)
                        .chain([RISK_REQUEST, RISK_TOKENS])
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?),
            (None, Some(tool)) => Counted::Tool(
                Glob::new(&tool, GlobKind::Tool)
                    .map_err(|e| format!("limit '{}': tool: {e}", c.id))?,
            ),
            _ => {
                return Err(format!(
                    "limit '{}': give exactly one of count: <effect kind> or tool: <glob>",
                    c.id
                ));
            }
        };
        Ok(Limit {
            id: c.id,
            counted,
            per: c.per,
            max: c.max,
            effect: c.effect,
            layer,
        })
    }

    /// True when the call counts against this limit.
    pub fn counts(&self, call: &Call, scope: &Scope) -> bool {
        match &self.counted {
            Counted::Kind(k) => call
                .effects
                .iter()
                .any(|e| e.is_kind(k, &scope.project_root)),
            Counted::Tool(g) => g.matches(&call.tool),
            Counted::RiskRequests | Counted::RiskTokens => false,
        }
    }

    /// What is counted, in words: `network-send call`, `call of mcp__github__*`.
    pub fn what(&self) -> String {
        match &self.counted {
            Counted::Kind(k) => format!("{k} call"),
            Counted::Tool(g) => format!("call of {}", g.as_str()),
            Counted::RiskRequests => "request to the risk layer".to_string(),
            Counted::RiskTokens => "risk-layer input tokens".to_string(),
        }
    }

    /// The window in words: `this session`, `in the last hour`.
    pub fn window(&self) -> &'static str {
        match self.per {
            Per::Session => "this session",
            Per::Hour => "in the last hour",
        }
    }

    /// `count: network-send` or `tool: mcp__github__*`, as written.
    pub fn counted_as_written(&self) -> String {
        match &self.counted {
            Counted::Kind(k) => format!("count: {k}"),
            Counted::Tool(g) => format!("tool: {}", g.as_str()),
            Counted::RiskRequests => format!("count: {RISK_REQUEST}"),
            Counted::RiskTokens => format!("count: {RISK_TOKENS}"),
        }
    }

    fn usage(&self) -> LimitUse {
        LimitUse {
            id: self.id.clone(),
            window_ms: match self.per {
                Per::Session => None,
                Per::Hour => Some(HOUR_MS),
            },
            max: self.max,
        }
    }

    fn same_shape(&self, other: &Limit) -> bool {
        self.per == other.per && self.counted_as_written() == other.counted_as_written()
    }
}

/// Adds a layer's `limits:` to the policy. The user layer defines them; a project layer adds
/// its own and may lower (never raise) a user limit of the same id: what it cannot do goes to
/// `ignored`. An error is (limit id, message).
pub fn apply_layer(
    policy: &mut Policy,
    configs: Vec<LimitConfig>,
    layer: Layer,
    ignored: &mut Vec<String>,
) -> Result<(), (String, String)> {
    let mut seen = std::collections::BTreeSet::new();
    for c in configs {
        let id = c.id.clone();
        if !seen.insert(id.clone()) {
            return Err((id.clone(), format!("limit id '{id}' is defined twice")));
        }
        let limit = Limit::compile(c, layer).map_err(|m| (id.clone(), m))?;
        if matches!(limit.counted, Counted::RiskRequests | Counted::RiskTokens)
            && limit.effect == Effect::Ask
            && policy.risk.scope != crate::risk::RiskScope::Undecided
        {
            // An asked call is still sent to the risk layer in those scopes: no budget.
            return Err((
                id.clone(),
                format!(
                    "limit '{id}': a risk-request or risk-tokens limit with risk.scope other than \
                     undecided must say effect: deny (an asked call would still be sent to the \
                     risk layer)"
                ),
            ));
        }
        match policy.limits.iter_mut().find(|l| l.id == limit.id) {
            None => policy.limits.push(limit),
            Some(existing) if layer == Layer::Project => {
                if !existing.same_shape(&limit) {
                    ignored.push(format!(
                        "limits: {id} ({}, per {}) is not the user's limit {id} ({}, per {}); a \
                         project limit of the same id can only lower its max",
                        limit.counted_as_written(),
                        per_word(limit.per),
                        existing.counted_as_written(),
                        per_word(existing.per)
                    ));
                    continue;
                }
                if limit.max > existing.max {
                    ignored.push(format!(
                        "limits: {id} max {} (the user's limit is max {}; a project limit can only be lower)",
                        limit.max, existing.max
                    ));
                } else {
                    existing.max = limit.max;
                }
                if limit.effect > existing.effect {
                    existing.effect = limit.effect;
                } else if limit.effect < existing.effect {
                    ignored.push(format!(
                        "limits: {id} effect {} (the user's limit says {})",
                        limit.effect, existing.effect
                    ));
                }
            }
            Some(_) => return Err((id.clone(), format!("limit id '{id}' is defined twice"))),
        }
    }
    Ok(())
}

fn per_word(p: Per) -> &'static str {
    match p {
        Per::Session => "session",
        Per::Hour => "hour",
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
    let uses: Vec<LimitUse> = hit.iter().map(|l| l.usage()).collect();
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
    let uses: Vec<LimitUse> = spent.iter().map(|l| l.usage()).collect();
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
    let uses: Vec<LimitUse> = hit.iter().map(|l| l.usage()).collect();
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
    let uses: Vec<LimitUse> = tokens(policy).map(|l| l.usage()).collect();
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

    fn config(yaml: &str) -> LimitConfig {
        serde_yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn compile_errors_say_what_is_wrong() {
        let e = Limit::compile(
            config("{id: n, count: network-sends, per: session, max: 3, effect: deny}"),
            Layer::User,
        )
        .unwrap_err();
        assert!(e.contains("unknown effect kind 'network-sends'"), "{e}");
        assert!(e.contains("did you mean 'network-send'"), "{e}");
        let e = Limit::compile(
            config("{id: n, count: network-send, per: session, max: 3, effect: allow}"),
            Layer::User,
        )
        .unwrap_err();
        assert!(e.contains("ask or deny"), "{e}");
        let e = Limit::compile(
            config("{id: n, count: execute, tool: 'mcp__*', per: hour, max: 3, effect: ask}"),
            Layer::User,
        )
        .unwrap_err();
        assert!(e.contains("exactly one of"), "{e}");
        assert!(
            serde_yaml::from_str::<LimitConfig>(
                "{id: n, count: execute, per: day, max: 3, effect: ask}"
            )
            .is_err()
        );
    }

    #[test]
    fn a_project_can_only_lower() {
        let mut policy = Policy::default();
        let mut ignored = Vec::new();
        apply_layer(
            &mut policy,
            vec![config(
                "{id: net, count: network-send, per: session, max: 3, effect: ask}",
            )],
            Layer::User,
            &mut ignored,
        )
        .unwrap();
        apply_layer(
            &mut policy,
            vec![
                config("{id: net, count: network-send, per: session, max: 10, effect: deny}"),
                config("{id: rm, count: delete-recursive, per: hour, max: 1, effect: ask}"),
            ],
            Layer::Project,
            &mut ignored,
        )
        .unwrap();
        assert_eq!(policy.limits.len(), 2);
        assert_eq!(policy.limits[0].max, 3);
        assert_eq!(policy.limits[0].effect, Effect::Deny);
        assert_eq!(ignored.len(), 1, "{ignored:?}");
        assert!(ignored[0].contains("max 10"), "{ignored:?}");
        apply_layer(
            &mut policy,
            vec![config(
                "{id: net, count: network-send, per: session, max: 1, effect: ask}",
            )],
            Layer::Project,
            &mut ignored,
        )
        .unwrap();
        assert_eq!(policy.limits[0].max, 1);
        assert_eq!(policy.limits[0].effect, Effect::Deny);
    }
}
