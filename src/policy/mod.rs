//! The policy: YAML, strictly validated, layered built-in defaults ← user ← project, where a
//! project policy can only tighten. Also the matching of user rules against a call.

use crate::verdict::Effect;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Which layer a setting or rule came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    BuiltIn,
    User,
    Project,
}

/// A policy file that contributed to the effective policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicySource {
    pub layer: Layer,
    pub path: PathBuf,
}

/// Why a policy could not be loaded: the file and, where the parser gives it, the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    pub path: PathBuf,
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.path.display(), line, self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for PolicyError {}

/// One rule from a user or project policy.
#[derive(Debug, Clone)]
pub struct PolicyRule {
    pub id: String,
    pub effect: Effect,
    pub reason: Option<String>,
    pub layer: Layer,
    pub file: PathBuf,
}

/// The effective, layered policy.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Files that contributed, in layer order.
    pub sources: Vec<PolicySource>,
    /// Built-in packs switched off (user layer only).
    pub disabled_packs: BTreeSet<String>,
    /// Built-in rules whose effect was changed (`pack-rule-id` → effect).
    pub rule_overrides: BTreeMap<String, Effect>,
    pub rules: Vec<PolicyRule>,
    /// Extra write roots beyond the project root and the temp dir, resolved.
    pub roots: Vec<PathBuf>,
    /// Effect for a file write outside every root.
    pub outside_roots: Effect,
    /// No human will answer a prompt: every ask becomes a deny.
    pub headless: bool,
    /// What a project policy tried to loosen and was ignored, for `explain` and `doctor`.
    pub ignored: Vec<String>,
    pub risk: crate::risk::RiskSettings,
    pub audit: crate::audit::AuditSettings,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            sources: vec![PolicySource {
                layer: Layer::BuiltIn,
                path: PathBuf::from("<built-in>"),
            }],
            disabled_packs: BTreeSet::new(),
            rule_overrides: BTreeMap::new(),
            rules: Vec::new(),
            roots: Vec::new(),
            outside_roots: Effect::Ask,
            headless: false,
            ignored: Vec::new(),
            risk: Default::default(),
            audit: Default::default(),
        }
    }
}

/// A user or project rule that matched a call.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyHit {
    /// `policy:<id>`, as shown in verdicts.
    pub rule_id: String,
    pub effect: Effect,
    pub reason: String,
}

/// What the policy's own rules said about a call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolicyOutcome {
    pub hits: Vec<PolicyHit>,
    /// Rules that wanted the tool but rejected an argument, each as one sentence naming the
    /// rule, the argument and the constraint (`rule 'gh-own-org' allows mcp__github__* only
    /// when owner is one of [acme]; got 'evil'`).
    pub near_misses: Vec<String>,
}

impl Policy {
    /// Matches the policy's rules against a call. Pure.
    pub fn evaluate(
        &self,
        call: &crate::normalize::Call,
        scope: &crate::normalize::Scope,
    ) -> PolicyOutcome {
        let _ = (call, scope);
        PolicyOutcome::default()
    }
}

/// Loads the layered policy: built-in defaults ← user policy ← `<project_root>/.palisade.yaml`.
pub fn load(
    locations: &crate::locations::Locations,
    project_root: &std::path::Path,
) -> Result<Policy, PolicyError> {
    let _ = (locations, project_root);
    Ok(Policy::default())
}

/// The effective policy as text for a reviewer.
pub fn explain(policy: &Policy) -> String {
    let mut s = String::new();
    for src in &policy.sources {
        s.push_str(&format!("source: {:?} {}\n", src.layer, src.path.display()));
    }
    for r in crate::packs::all_rules() {
        s.push_str(&format!(
            "{}/{}: {} — {}\n",
            r.pack, r.id, r.effect, r.reason
        ));
    }
    s
}

/// The effective policy as JSON.
pub fn explain_json(policy: &Policy) -> serde_json::Value {
    serde_json::json!({"sources": policy.sources.iter().map(|s| s.path.display().to_string()).collect::<Vec<_>>()})
}
