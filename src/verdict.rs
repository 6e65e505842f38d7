//! The outcome of evaluating one tool call: effect, the rule that decided, and why.

use serde::{Deserialize, Serialize};

/// What palisade answers for a call. Ordered by strictness: `Allow < Ask < Deny`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    Allow,
    Ask,
    Deny,
}

impl Effect {
    /// The lowercase name used in policies, the audit log and replay.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Allow => "allow",
            Effect::Ask => "ask",
            Effect::Deny => "deny",
        }
    }

    /// Parses `allow`, `ask` or `deny`.
    pub fn parse(s: &str) -> Option<Effect> {
        match s {
            "allow" => Some(Effect::Allow),
            "ask" => Some(Effect::Ask),
            "deny" => Some(Effect::Deny),
            _ => None,
        }
    }
}

impl std::fmt::Display for Effect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which stage of the pipeline produced a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Built-in packs or the user's/project's policy rules.
    Static,
    /// A write-then-run chain found through the action ledger.
    Ledger,
    /// The decision-model risk backend.
    Risk,
    /// An internal failure (bad input, broken policy, unwritable audit…), failing closed.
    Error,
}

impl Source {
    /// The lowercase name used in the audit log.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Static => "static",
            Source::Ledger => "ledger",
            Source::Risk => "risk",
            Source::Error => "error",
        }
    }
}

/// A link from a run to the ledgered write it executes (audit `chain`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainLink {
    /// The file that was written earlier in the session and is executed now.
    pub path: String,
    /// Audit sequence number of the entry that recorded the write.
    pub seq: u64,
    /// Hash of that audit entry.
    pub hash: String,
}

/// Something the audit flags about a call beside its verdict (audit `alerts`). An alert never
/// changes the verdict: it is evidence for `audit --stats` and `doctor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Alert {
    /// The effective policy differs from the one the session's first call was decided under
    /// (both are `Policy::digest` values).
    PolicyDrift { first: String, now: String },
    /// A PostToolUse for a call with no PreToolUse decision recorded in its session: the hook
    /// did not run before the tool (hooks disabled, a narrower matcher, a killed hook).
    Bypass { tool_use_id: String },
}

/// The decision for one call. `effect: None` is "no opinion": exit 0, empty stdout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub effect: Option<Effect>,
    /// Id of the rule that decided (`pack:rule-id`, `policy:rule-id`, `ledger:…`, `risk:…`, `error:…`).
    pub rule: Option<String>,
    /// The category of that rule (`destructive-fs`, `secrets`, …).
    pub category: Option<String>,
    /// One sentence the model (or the user) can act on.
    pub reason: String,
    pub source: Source,
    /// Runs linked to the writes they execute.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<ChainLink>,
    /// The risk backend's record for this call, when it was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<serde_json::Value>,
    /// What the audit should flag about the call; never part of the decision.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alerts: Vec<Alert>,
}

impl Verdict {
    /// No rule had an opinion: Claude Code's own permission flow applies.
    pub fn no_opinion() -> Verdict {
        Verdict {
            effect: None,
            rule: None,
            category: None,
            reason: String::new(),
            source: Source::Static,
            chain: Vec::new(),
            risk: None,
            alerts: Vec::new(),
        }
    }

    /// A verdict decided by a rule.
    pub fn decided(
        effect: Effect,
        rule: impl Into<String>,
        category: impl Into<String>,
        reason: impl Into<String>,
        source: Source,
    ) -> Verdict {
        Verdict {
            effect: Some(effect),
            rule: Some(rule.into()),
            category: Some(category.into()),
            reason: reason.into(),
            source,
            chain: Vec::new(),
            risk: None,
            alerts: Vec::new(),
        }
    }

    /// A fail-closed deny for an internal failure; `cause` names what went wrong.
    pub fn failure(rule: impl Into<String>, cause: impl Into<String>) -> Verdict {
        Verdict::decided(Effect::Deny, rule, "error", cause, Source::Error)
    }

    /// The stricter of two verdicts (deny > ask > allow > no opinion); ties keep `self`.
    pub fn stricter(self, other: Verdict) -> Verdict {
        if other.effect > self.effect {
            other
        } else {
            self
        }
    }

    /// The effect as a replay/audit word: `allow`, `ask`, `deny` or `pass` for no opinion.
    pub fn outcome(&self) -> &'static str {
        match self.effect {
            Some(e) => e.as_str(),
            None => "pass",
        }
    }
}
