//! The `limits:` of a policy, compiled: what each limit counts, per what window, up to which
//! max, and what a call past it gets. How a project layer may change a user limit (only
//! lower it) is decided here, at load; counting and refusing is `crate::limits`.

use super::schema::{LimitConfig, Per};
use super::{Glob, GlobKind, Layer, Policy};
use crate::normalize::{Call, Scope};
use crate::verdict::Effect;

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

#[cfg(test)]
mod tests {
    use super::*;

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
