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
    // STOPGAP (risk branch): reads only the `risk:` block of the user and project policy so
    // the risk layer can be switched on and tested end to end. The policy branch's real loader
    // replaces this whole body; it must call `RiskSettings::apply_user`/`apply_project` the same
    // way.
    let mut policy = Policy::default();
    let read = |path: &std::path::Path| -> Result<Option<serde_yaml::Value>, PolicyError> {
        let err = |message: String| PolicyError {
            path: path.to_path_buf(),
            line: None,
            message,
        };
        match std::fs::read_to_string(path) {
            Ok(text) => serde_yaml::from_str(&text)
                .map(Some)
                .map_err(|e| err(e.to_string())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(err(e.to_string())),
        }
    };
    let risk_block = |v: &serde_yaml::Value, path: &std::path::Path| {
        v.get("risk")
            .map(|r| serde_yaml::from_value::<crate::risk::RiskConfig>(r.clone()))
            .transpose()
            .map_err(|e| PolicyError {
                path: path.to_path_buf(),
                line: None,
                message: format!("risk: {e}"),
            })
    };
    let user = read(&locations.user_policy)?;
    if user.is_none() && locations.user_policy_explicit {
        return Err(PolicyError {
            path: locations.user_policy.clone(),
            line: None,
            message: "PALISADE_CONFIG names a file that does not exist".into(),
        });
    }
    if let Some(v) = &user
        && let Some(c) = risk_block(v, &locations.user_policy)?
    {
        policy.risk.apply_user(&c).map_err(|message| PolicyError {
            path: locations.user_policy.clone(),
            line: None,
            message,
        })?;
    }
    let project = project_root.join(".palisade.yaml");
    if let Some(v) = read(&project)?
        && let Some(c) = risk_block(&v, &project)?
    {
        policy
            .risk
            .apply_project(&c, &mut policy.ignored)
            .map_err(|message| PolicyError {
                path: project.clone(),
                line: None,
                message,
            })?;
    }
    Ok(policy)
}
