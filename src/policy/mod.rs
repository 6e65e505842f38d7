//! The policy: YAML, strictly validated, layered built-in defaults ← user ← project, where a
//! project policy can only tighten. Also the matching of user rules against a call.

use crate::normalize::{Call, CallKind, Scope};
use crate::verdict::Effect;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

pub mod audit_settings;
pub mod command;
pub mod constraints;
pub mod explain;
pub use crate::glob;
pub mod limit_settings;
mod load;
pub mod readonly_settings;
pub mod schema;
pub mod taint_settings;

pub use explain::{explain, explain_json};
pub use glob::{Glob, GlobKind};
pub(crate) use load::did_you_mean;
pub use load::{load, load_layers, load_text};

/// Which layer a setting or rule came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    BuiltIn,
    User,
    Project,
}

impl Layer {
    /// The layer's name in `explain` and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::BuiltIn => "built-in",
            Layer::User => "user",
            Layer::Project => "project",
        }
    }
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
    /// Tool-name globs; the rule applies when any matches.
    pub tools: Vec<Glob>,
    /// Constraints on `tool_input`, all of which must hold.
    pub when: Vec<constraints::Constraint>,
    /// The shell-aware matcher (shell tools only).
    pub command: Option<command::CommandMatcher>,
    /// Path globs (`paths:`): every path of an allowed call inside them, one of a refused call.
    pub paths: Vec<Glob>,
    /// The project root must match this glob (`project:`).
    pub project: Option<Glob>,
    /// Built-in rules (`<pack>/<rule-id>`) whose verdict this allow rule beats where it matches.
    pub overrides: Vec<String>,
    /// Beat the overridden rules' deny too, not only their ask.
    pub override_deny: bool,
    /// Calls that prove the rule (`examples:`), checked by `policy validate` and `doctor`.
    pub examples: Vec<RuleExample>,
    /// `read_only: true`: the rule matches only the calls of its tools that change something.
    pub read_only: bool,
}

/// One `examples:` entry of a rule: a call, and whether the policy must refuse it.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleExample {
    pub refused: bool,
    pub tool: String,
    pub input: serde_json::Value,
}

impl PolicyRule {
    /// True when one of the rule's tool globs matches the call's tool and, for a rule with a
    /// `command` matcher, the call is a shell call (`tools: ['*']` plus `command` is about
    /// shell calls only, so other tools are neither hits nor near misses).
    pub fn applies_to(&self, call: &Call) -> bool {
        if self.command.is_some() && !matches!(call.kind, CallKind::Shell { .. }) {
            return false;
        }
        self.tools.iter().any(|g| g.matches(&call.tool))
    }

    /// True when a miss of this rule is a near miss worth telling about the call (see
    /// `CommandMatcher::concerns`).
    fn concerns(&self, call: &Call) -> bool {
        match (&self.command, &call.kind) {
            (Some(m), CallKind::Shell { analysis, .. }) => m.concerns(analysis),
            _ => true,
        }
    }

    fn tools_phrase(&self) -> String {
        self.tools
            .iter()
            .map(Glob::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Checks constraints and command matcher; on failure, (argument, wanted, found).
    fn check(&self, call: &Call, scope: &Scope) -> Result<(), (String, String, String)> {
        for c in &self.when {
            c.check(&call.input)
                .map_err(|f| (f.path, f.wanted, f.found))?;
        }
        if let Some(m) = &self.command {
            let reading = if self.effect == Effect::Allow {
                command::Reading::Every
            } else {
                command::Reading::Any
            };
            let CallKind::Shell { analysis, .. } = &call.kind else {
                return Err((
                    "command".into(),
                    m.describe(),
                    "the call is not a shell command".into(),
                ));
            };
            m.check(analysis, scope, reading)
                .map_err(|(w, f)| ("command".to_string(), w, f))?;
        }
        if let Some(project) = &self.project {
            let root = scope.project_root.to_string_lossy();
            if !project.matches(&root) {
                return Err((
                    "project".into(),
                    format!("matches '{project}'"),
                    format!("got '{root}'"),
                ));
            }
        }
        if !self.paths.is_empty() {
            self.check_paths(call, scope)?;
        }
        if self.read_only && crate::readonly::change(call).is_none() {
            return Err((
                "read_only".into(),
                "the call changes something".into(),
                "it only reads".into(),
            ));
        }
        Ok(())
    }

    /// `paths:` — an allow rule wants every path the call touches inside its globs (and the
    /// paths known); a deny or ask rule one of them, an unknown path counting as inside.
    fn check_paths(&self, call: &Call, scope: &Scope) -> Result<(), (String, String, String)> {
        let wanted = format!(
            "every path matches one of [{}]",
            self.paths
                .iter()
                .map(Glob::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let inside = |p: &std::path::Path| {
            let text = p.to_string_lossy();
            self.paths.iter().any(|g| g.matches(&text))
        };
        let paths = touched_paths(call, scope);
        let every = self.effect == Effect::Allow;
        match paths {
            None if every => Err((
                "paths".into(),
                wanted,
                "the paths of the call cannot be known statically".into(),
            )),
            None => Ok(()),
            Some(p) if p.is_empty() => {
                Err(("paths".into(), wanted, "the call names no path".into()))
            }
            Some(p) => {
                let ok = if every {
                    p.iter().all(|p| inside(p))
                } else {
                    p.iter().any(|p| inside(p))
                };
                match (ok, p.iter().find(|p| !inside(p))) {
                    (true, _) => Ok(()),
                    (false, Some(out)) => {
                        Err(("paths".into(), wanted, format!("got '{}'", out.display())))
                    }
                    (false, None) => Err(("paths".into(), wanted, "no path matched".into())),
                }
            }
        }
    }

    /// The reason given when the rule matches.
    fn hit_reason(&self) -> String {
        if let Some(r) = &self.reason {
            return r.clone();
        }
        let verb = match self.effect {
            Effect::Allow => "allows",
            Effect::Ask => "asks before",
            Effect::Deny => "denies",
        };
        format!(
            "the {} policy rule '{}' {verb} this call",
            self.layer.as_str(),
            self.id
        )
    }
}

/// The effective, layered policy.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Files that contributed, in layer order.
    pub sources: Vec<PolicySource>,
    /// Built-in packs switched off (user layer only).
    pub disabled_packs: BTreeSet<String>,
    /// Built-in rules whose effect was changed (`<pack>/<rule-id>` → effect).
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
    pub audit: audit_settings::AuditSettings,
    /// The user's MCP tool models, tried before the built-in ones.
    pub tool_models: Vec<crate::effects::mcp::ToolModel>,
    /// Session taint settings (`taint:`).
    pub taint: taint_settings::TaintSettings,
    /// Rate limits and budgets (`limits:`), user and project, by id.
    pub limits: Vec<limit_settings::Limit>,
    /// `mode: read-only` and `read_only_effect:`.
    pub read_only: readonly_settings::ReadOnly,
    /// Hex sha256 of what this policy is made of: the palisade version (its built-in packs)
    /// and each policy file in effect (layer, path, bytes). Two calls with the same digest were
    /// decided under the same policy; the audit flags a session whose digest changes.
    pub digest: String,
}

/// The digest of a policy made of the built-in defaults and `files` (layer, path, text), in
/// layer order.
pub fn digest_of(files: &[(Layer, &std::path::Path, &str)]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(format!("palisade {}\n", env!("CARGO_PKG_VERSION")));
    for (layer, path, text) in files {
        // Lengths make the framing unambiguous: no text can pass for a header.
        let path = path.to_string_lossy();
        h.update(format!(
            "{} {}:{} {}\n",
            layer.as_str(),
            path.len(),
            path,
            text.len()
        ));
        h.update(text.as_bytes());
    }
    hex::encode(h.finalize())
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
            tool_models: Vec::new(),
            taint: Default::default(),
            limits: Vec::new(),
            read_only: Default::default(),
            digest: digest_of(&[]),
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
    /// Allow rules that wanted the call but rejected an argument — never part of the verdict
    /// (an allow rule only widens), shown by `check` and `explain`. Each is one sentence naming the
    /// rule, the argument and the constraint (`rule 'gh-own-org' allows mcp__github__* only
    /// when owner is one of [acme]; got 'evil'`).
    pub near_misses: Vec<String>,
}

impl Policy {
    /// The user's scoped allow rule that beats built-in rule `full_id` (whose effect here is
    /// `effect`) for this call, if any: the rule names it in `overrides:`, matches the call, and
    /// — for a deny — says `override_deny: true`. Project rules never loosen.
    pub fn overriding_rule(
        &self,
        full_id: &str,
        effect: Effect,
        call: &Call,
        scope: &Scope,
    ) -> Option<&PolicyRule> {
        if effect == Effect::Allow {
            return None;
        }
        self.rules.iter().find(|r| {
            r.layer == Layer::User
                && r.effect == Effect::Allow
                && r.overrides.iter().any(|o| o == full_id)
                && (effect == Effect::Ask || r.override_deny)
                && r.applies_to(call)
                && r.check(call, scope).is_ok()
        })
    }

    /// Matches the policy's rules against a call. Pure.
    pub fn evaluate(&self, call: &Call, scope: &Scope) -> PolicyOutcome {
        let mut out = PolicyOutcome::default();
        for rule in self.rules.iter().filter(|r| r.applies_to(call)) {
            match rule.check(call, scope) {
                Ok(()) => out.hits.push(PolicyHit {
                    rule_id: format!("policy:{}", rule.id),
                    effect: rule.effect,
                    reason: match crate::readonly::change(call).filter(|_| rule.read_only) {
                        Some(what) if rule.reason.is_none() => format!(
                            "the {} policy rule '{}' makes {} read-only: the call {what}",
                            rule.layer.as_str(),
                            rule.id,
                            rule.tools_phrase()
                        ),
                        _ => rule.hit_reason(),
                    },
                }),
                Err((arg, wanted, found))
                    if rule.effect == Effect::Allow && rule.concerns(call) =>
                {
                    let arg = if arg == "command" {
                        String::new()
                    } else {
                        format!("{arg} ")
                    };
                    out.near_misses.push(format!(
                        "rule '{}' allows {} only when {arg}{wanted}; {found}",
                        rule.id,
                        rule.tools_phrase()
                    ))
                }
                Err(_) => {}
            }
        }
        out
    }
}

/// The paths a call touches, for `paths:`: the paths of its effects (whatever the tool: a
/// file read or written, a delete's target, a move's ends, a link, a file run, through a link
/// the line makes) and, for a shell line, every operand and redirection as written. `None`
/// when one of them cannot be known statically (`$DIR`, a glob, names from standard input, a
/// line the parser could not resolve, a delete whose target is known only when it runs). The
/// settings a program loads (`git status` reads `~/.gitconfig`) are not paths it touches.
fn touched_paths(call: &Call, scope: &Scope) -> Option<Vec<std::path::PathBuf>> {
    use crate::effects::{DeleteTarget, Effect as Fx};
    let mut out = match &call.kind {
        CallKind::Shell { analysis, .. } => command::shell_paths(analysis, scope)?,
        CallKind::Read { paths } => paths.clone(),
        CallKind::Write { path, .. } => vec![path.clone()],
        _ => Vec::new(),
    };
    for e in &call.effects {
        match e {
            Fx::Delete {
                target: DeleteTarget::Stdin { .. } | DeleteTarget::Named { path: None, .. },
                ..
            } => return None,
            Fx::Execute {
                language: Some(l), ..
            } if l.is_settings() => continue,
            // Runs only if it is there: no path the call names.
            Fx::Execute { run: Some(r), .. } if r.looked_up => continue,
            _ => out.extend(e.paths().into_iter().cloned()),
        }
    }
    out.sort();
    out.dedup();
    Some(out)
}
