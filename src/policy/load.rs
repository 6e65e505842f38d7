//! Reading and layering: built-in defaults ← user policy ← project policy, where the project
//! layer can only tighten. Everything a project tries to loosen is recorded in
//! `Policy::ignored`, never an error: a cloned repository must not loosen the firewall, and
//! must not be able to hide that it tried.

use super::command::CommandMatcher;
use super::constraints::Constraint;
use super::glob::{Glob, GlobKind};
use super::schema::{PolicyFile, RuleConfig};
use super::{Layer, Policy, PolicyError, PolicyRule, PolicySource};
use crate::locations::Locations;
use crate::paths::PathResolver;
use crate::verdict::Effect;
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest policy file read; a bigger one is an error, not a truncation.
const MAX_POLICY_BYTES: u64 = 1024 * 1024;

/// The tools a `command:` matcher can apply to.
const SHELL_TOOLS: &[&str] = &["Bash", "PowerShell", "Monitor"];

/// Loads the layered policy: built-in defaults ← user policy ← `<project_root>/.palisade.yaml`.
///
/// A missing user policy is fine unless it was named explicitly (`PALISADE_CONFIG`); a missing
/// project policy is fine. A file that exists but cannot be read or parsed is an error naming
/// the file and, where known, the line.
pub fn load(locations: &Locations, project_root: &Path) -> Result<Policy, PolicyError> {
    load_layers(
        locations,
        project_root,
        &project_root.join(".palisade.yaml"),
    )
}

/// `load`, with the project layer read from `project_path` (`policy validate` of a project
/// file that is not yet in place) for the project at `project_root`.
pub fn load_layers(
    locations: &Locations,
    project_root: &Path,
    project_path: &Path,
) -> Result<Policy, PolicyError> {
    let mut policy = Policy::default();
    let user_path = &locations.user_policy;
    let user_text = read_policy(user_path)?;
    let user = user_text
        .as_deref()
        .map(|t| (super::Layer::User, user_path.as_path(), t));
    match user_text.as_deref() {
        Some(text) => {
            let file = parse(user_path, text)?;
            let mut layer = LayerLoad {
                path: user_path,
                text,
                home: &locations.home,
                project_root,
            };
            layer.apply_user(&mut policy, file)?;
        }
        None if locations.user_policy_explicit => {
            return Err(PolicyError {
                path: user_path.clone(),
                line: None,
                message: "the policy named by PALISADE_CONFIG does not exist".into(),
            });
        }
        None => {}
    }

    // Only a user policy that exists can be the project's file.
    if user.is_some() && same_file(project_path, user_path) {
        // PALISADE_CONFIG names the project's own file: it is the user layer already.
        policy.digest = super::digest_of(&user.into_iter().collect::<Vec<_>>());
        return Ok(policy);
    }
    let project_text = read_policy(project_path)?;
    if let Some(text) = project_text.as_deref() {
        let file = parse(project_path, text)?;
        let mut layer = LayerLoad {
            path: project_path,
            text,
            home: &locations.home,
            project_root,
        };
        layer.apply_project(&mut policy, file)?;
    }
    let project = project_text
        .as_deref()
        .map(|t| (super::Layer::Project, project_path, t));
    policy.digest = super::digest_of(&user.into_iter().chain(project).collect::<Vec<_>>());
    Ok(policy)
}

/// Loads one policy given as text (a replayed case's own policy) as the user layer: the same
/// parsing and validation as a file, `name` standing for the file in errors.
pub fn load_text(
    text: &str,
    name: &Path,
    locations: &Locations,
    project_root: &Path,
) -> Result<Policy, PolicyError> {
    let mut policy = Policy::default();
    let file = parse(name, text)?;
    let mut layer = LayerLoad {
        path: name,
        text,
        home: &locations.home,
        project_root,
    };
    layer.apply_user(&mut policy, file)?;
    Ok(policy)
}

fn same_file(a: &Path, b: &Path) -> bool {
    // The same inode: two `stat`s, not a `readlink` per component of each path.
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// The file's text, `None` when it does not exist.
fn read_policy(path: &Path) -> Result<Option<String>, PolicyError> {
    let err = |message: String| PolicyError {
        path: path.to_path_buf(),
        line: None,
        message,
    };
    // Absent only when nothing is there (one `stat` for the usual case, no file): a dangling
    // symlink is a policy that cannot be read, and its deny rules must not silently vanish.
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        _ => {}
    }
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(err(
                "cannot read the policy: it is a symbolic link to nothing".to_string(),
            ));
        }
        Err(e) => return Err(err(format!("cannot read the policy: {e}"))),
        Ok(m) if m.is_dir() => return Err(err("is a directory, not a policy file".into())),
        Ok(_) => {}
    }
    let file =
        std::fs::File::open(path).map_err(|e| err(format!("cannot read the policy: {e}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_POLICY_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| err(format!("cannot read the policy: {e}")))?;
    if bytes.len() as u64 > MAX_POLICY_BYTES {
        return Err(err(format!(
            "the policy is larger than {MAX_POLICY_BYTES} bytes"
        )));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| err("the policy is not valid UTF-8".into()))
}

fn parse(path: &Path, text: &str) -> Result<PolicyFile, PolicyError> {
    if text.trim().is_empty() {
        return Err(PolicyError {
            path: path.to_path_buf(),
            line: None,
            message: "the policy file is empty (it must start with `version: 1`)".into(),
        });
    }
    if let Some(i) = text
        .lines()
        .position(|l| l.trim_start_matches(' ').starts_with('\t'))
    {
        return Err(PolicyError {
            path: path.to_path_buf(),
            line: Some(i + 1),
            message: "a tab indents this line; YAML indents with spaces only".into(),
        });
    }
    let file: PolicyFile = serde_yaml::from_str(text).map_err(|e| {
        let (line, message) = readable_error(text, e.location().map(|l| l.line()), e.to_string());
        PolicyError {
            path: path.to_path_buf(),
            line,
            message,
        }
    })?;
    if file.version != 1 {
        return Err(PolicyError {
            path: path.to_path_buf(),
            line: key_line(text, "version"),
            message: format!(
                "unsupported policy version {} (this palisade reads version 1)",
                file.version
            ),
        });
    }
    Ok(file)
}

/// The parser's message made into one a user can act on, with the line it is about: a
/// duplicate key points at its second occurrence, a quoted version or a single string where a
/// list belongs says what to write instead.
fn readable_error(text: &str, line: Option<usize>, message: String) -> (Option<usize>, String) {
    let dup = message
        .split_once("duplicate key '")
        .and_then(|(_, r)| r.split_once('\''))
        .or_else(|| {
            message
                .split_once("duplicate field `")
                .and_then(|(_, r)| r.split_once('`'))
        })
        .map(|(k, _)| k.to_string());
    if let Some(key) = dup {
        let from = line.unwrap_or(1).saturating_sub(1);
        let lines: Vec<&str> = text.lines().collect();
        let is_key = |l: &str| {
            let t = l.trim_start().trim_start_matches("- ").trim_start();
            let t = t.trim_start_matches(['"', '\'']);
            t.strip_prefix(key.as_str()).is_some_and(|r| {
                r.trim_start_matches(['"', '\''])
                    .trim_start()
                    .starts_with(':')
            })
        };
        let indent = |l: &str| l.len() - l.trim_start().len();
        if let Some(first) = (from..lines.len()).find(|&i| is_key(lines[i])) {
            let second = (first + 1..lines.len())
                .find(|&i| is_key(lines[i]) && indent(lines[i]) == indent(lines[first]));
            if let Some(second) = second {
                return (
                    Some(second + 1),
                    format!(
                        "'{key}' is given twice (first on line {}); YAML would keep only the last",
                        first + 1
                    ),
                );
            }
        }
        return (line, message);
    }
    if message.starts_with("version: invalid type: string") {
        return (
            line,
            "version must be the number 1, not a string: write `version: 1` without quotes".into(),
        );
    }
    if let Some((field, _)) = message.split_once(": invalid type: string")
        && message.contains("expected a sequence")
    {
        let name = field.rsplit('.').next().unwrap_or(field);
        return (
            line,
            format!("{field} must be a list, even of one item: write `{name}: [value]`"),
        );
    }
    (line, message)
}

/// The first line (1-based) whose content starts with `key:` — for errors found after parsing,
/// where the YAML parser no longer gives positions.
fn key_line(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let t = l.trim_start().trim_start_matches("- ").trim_start();
            t.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map(|i| i + 1)
}

/// The line of a rule's `id:` (quoted or not).
fn rule_line(text: &str, id: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let t = l.trim_start().trim_start_matches("- ").trim_start();
            t.strip_prefix("id")
                .and_then(|r| r.trim_start().strip_prefix(':'))
                .map(|v| {
                    let v = v.split(" #").next().unwrap_or(v).trim();
                    v.trim_matches(|c| c == '"' || c == '\'') == id
                })
                .unwrap_or(false)
        })
        .map(|i| i + 1)
}

/// The line of the first occurrence of `needle`, for names inside lists.
fn text_line(text: &str, needle: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(needle)).map(|i| i + 1)
}

/// One file being applied.
struct LayerLoad<'a> {
    path: &'a Path,
    text: &'a str,
    home: &'a Path,
    project_root: &'a Path,
}

impl LayerLoad<'_> {
    fn error(&self, line: Option<usize>, message: impl Into<String>) -> PolicyError {
        PolicyError {
            path: self.path.to_path_buf(),
            line,
            message: message.into(),
        }
    }

    fn ignore(&self, policy: &mut Policy, what: String) {
        policy.ignored.push(format!(
            "{}: {what} (ignored: a project policy can only tighten)",
            self.path.display()
        ));
    }

    fn apply_user(&mut self, policy: &mut Policy, file: PolicyFile) -> Result<(), PolicyError> {
        policy.sources.push(PolicySource {
            layer: Layer::User,
            path: self.path.to_path_buf(),
        });
        if let Some(h) = file.headless {
            policy.headless = h;
        }
        if let Some(packs) = file.packs {
            for name in packs.disable {
                if !crate::packs::PACKS.contains(&name.as_str()) {
                    return Err(self.error(text_line(self.text, &name), unknown_pack(&name)));
                }
                policy.disabled_packs.insert(name);
            }
            for (key, effect) in packs.overrides {
                check_override(&key).map_err(|m| self.error(text_line(self.text, &key), m))?;
                policy.rule_overrides.insert(key, effect);
            }
        }
        if let Some(roots) = file.roots {
            for raw in roots {
                let expands = raw == "~"
                    || ["~/", "$HOME", "${HOME}"]
                        .iter()
                        .any(|p| raw.starts_with(p));
                if !expands && !Path::new(&raw).is_absolute() {
                    return Err(self.error(
                        text_line(self.text, &raw),
                        format!("root '{raw}' must be absolute (or start with ~ or $HOME)"),
                    ));
                }
                let root = self.resolve_root(&raw);
                if !policy.roots.contains(&root) {
                    policy.roots.push(root);
                }
            }
        }
        if let Some(o) = file.outside_roots {
            policy.outside_roots = o.effect();
        }
        for m in file.tool_models.unwrap_or_default() {
            let bad = if m.tools.is_empty() {
                Some("a tool model needs at least one glob in `tools`".to_string())
            } else {
                m.tools.iter().find(|g| !g.starts_with("mcp__")).map(|g| {
                    format!(
                        "tool model glob '{g}' must start with mcp__ (models describe MCP tools)"
                    )
                })
            };
            if let Some(message) = bad {
                return Err(self.error(key_line(self.text, "tool_models"), message));
            }
            policy.tool_models.push(m);
        }
        self.add_rules(policy, file.rules, Layer::User)?;
        if let Some(risk) = &file.risk {
            policy
                .risk
                .apply_user(risk)
                .map_err(|m| self.error(key_line(self.text, "risk"), m))?;
        }
        if let Some(audit) = &file.audit {
            policy
                .audit
                .apply_user(audit)
                .map_err(|m| self.error(key_line(self.text, "audit"), m))?;
        }
        if let Some(taint) = &file.taint {
            policy
                .taint
                .apply_user(taint)
                .map_err(|m| self.error(key_line(self.text, "taint"), m))?;
        }
        self.apply_limits_and_mode(
            policy,
            file.limits,
            file.mode,
            file.read_only_effect,
            Layer::User,
        )?;
        Ok(())
    }

    fn apply_project(&mut self, policy: &mut Policy, file: PolicyFile) -> Result<(), PolicyError> {
        policy.sources.push(PolicySource {
            layer: Layer::Project,
            path: self.path.to_path_buf(),
        });
        match file.headless {
            Some(true) => policy.headless = true,
            Some(false) if policy.headless => {
                self.ignore(policy, "headless: false".into());
            }
            _ => {}
        }
        if let Some(packs) = file.packs {
            for name in packs.disable {
                self.ignore(policy, format!("packs.disable: {name}"));
            }
            for (key, effect) in packs.overrides {
                let base =
                    check_override(&key).map_err(|m| self.error(text_line(self.text, &key), m))?;
                let current = policy.rule_overrides.get(&key).copied().or(base);
                // With the rule's effect unknown, only `deny` is certain not to loosen it.
                let tightens = match current {
                    Some(c) => effect >= c,
                    None => effect == Effect::Deny,
                };
                if tightens {
                    policy.rule_overrides.insert(key, effect);
                } else {
                    let was = current.map_or("unknown".to_string(), |c| c.to_string());
                    self.ignore(
                        policy,
                        format!("packs.overrides: {key}: {effect} (the rule's effect is {was})"),
                    );
                }
            }
        }
        if let Some(roots) = file.roots {
            // The project root is a write root unless it is the home directory or `/`, which
            // the hook never treats as one (`hook::scope_for`): a policy in `~` or `/` must not
            // make its own directory a root through the back door.
            let project = self.resolve_root(&self.project_root.to_string_lossy());
            let home = self.resolve_root(&self.home.to_string_lossy());
            let project = (project != home && project.parent().is_some()).then_some(project);
            let mut kept = Vec::new();
            for raw in roots {
                let root = self.resolve_root(&raw);
                let inside = policy
                    .roots
                    .iter()
                    .chain(project.as_ref())
                    .any(|r| root.starts_with(r));
                if inside {
                    if !kept.contains(&root) {
                        kept.push(root);
                    }
                } else {
                    self.ignore(
                        policy,
                        format!(
                            "roots: {raw} (resolves to {}, outside the project root and the \
                             user's roots: a project's roots can only narrow)",
                            root.display()
                        ),
                    );
                }
            }
            // The project's list replaces the user's: roots can only narrow.
            policy.roots = kept;
        }
        match file.outside_roots {
            Some(super::schema::OutsideRoots::Deny) => policy.outside_roots = Effect::Deny,
            Some(super::schema::OutsideRoots::Ask) if policy.outside_roots == Effect::Deny => {
                self.ignore(
                    policy,
                    "outside_roots: ask (the user policy says deny)".into(),
                );
            }
            _ => {}
        }
        if file.tool_models.is_some() {
            // A model can say a tool does less than the built-in one says: that loosens.
            self.ignore(
                policy,
                "tool_models (a project policy cannot redefine what a tool does)".into(),
            );
        }
        self.add_rules(policy, file.rules, Layer::Project)?;
        let mut ignored = Vec::new();
        if let Some(risk) = &file.risk {
            policy
                .risk
                .apply_project(risk, &mut ignored)
                .map_err(|m| self.error(key_line(self.text, "risk"), m))?;
        }
        if let Some(audit) = &file.audit {
            policy
                .audit
                .apply_project(audit, &mut ignored)
                .map_err(|m| self.error(key_line(self.text, "audit"), m))?;
        }
        if let Some(taint) = &file.taint {
            policy
                .taint
                .apply_project(taint, &mut ignored)
                .map_err(|m| self.error(key_line(self.text, "taint"), m))?;
        }
        for what in ignored {
            self.ignore(policy, what);
        }
        self.apply_limits_and_mode(
            policy,
            file.limits,
            file.mode,
            file.read_only_effect,
            Layer::Project,
        )?;
        Ok(())
    }

    /// `limits:`, `mode:` and `read_only_effect:` of this layer. A project layer may lower a
    /// limit, add one, turn read-only on and make it deny; what would loosen is ignored.
    fn apply_limits_and_mode(
        &self,
        policy: &mut Policy,
        limits: Vec<super::schema::LimitConfig>,
        mode: Option<super::schema::Mode>,
        read_only_effect: Option<super::schema::OutsideRoots>,
        layer: Layer,
    ) -> Result<(), PolicyError> {
        use super::schema::Mode;
        let mut ignored = Vec::new();
        super::limit_settings::apply_layer(policy, limits, layer, &mut ignored)
            .map_err(|(id, m)| self.error(rule_line(self.text, &id), m))?;
        match (mode, layer) {
            (Some(Mode::ReadOnly), _) => policy.read_only.on = true,
            (Some(Mode::Normal), Layer::Project) if policy.read_only.on => {
                ignored.push("mode: normal (the user policy says read-only)".into())
            }
            (Some(Mode::Normal), _) => policy.read_only.on = false,
            (None, _) => {}
        }
        if let Some(e) = read_only_effect.map(|e| e.effect()) {
            if layer == Layer::Project && e < policy.read_only.effect {
                ignored.push(format!(
                    "read_only_effect: {e} (the user policy says {})",
                    policy.read_only.effect
                ));
            } else {
                policy.read_only.effect = e;
            }
        }
        if layer == Layer::Project {
            for what in ignored {
                self.ignore(policy, what);
            }
        }
        Ok(())
    }

    /// `~`, `$HOME` expanded; relative roots are relative to the project root; symlinks of the
    /// existing part resolved, so a root is compared by where it really is.
    fn resolve_root(&self, raw: &str) -> PathBuf {
        PathResolver {
            cwd: self.project_root.to_path_buf(),
            home: self.home.to_path_buf(),
            follow_symlinks: true,
        }
        .resolve(raw)
    }

    fn add_rules(
        &mut self,
        policy: &mut Policy,
        rules: Vec<RuleConfig>,
        layer: Layer,
    ) -> Result<(), PolicyError> {
        let mut seen: BTreeSet<String> = policy.rules.iter().map(|r| r.id.clone()).collect();
        for rc in rules {
            let line = rule_line(self.text, &rc.id);
            let id = rc.id.clone();
            if !seen.insert(id.clone()) {
                let other = policy
                    .rules
                    .iter()
                    .find(|r| r.id == id)
                    .map(|r| format!(" (also in {})", r.file.display()))
                    .unwrap_or_default();
                return Err(self.error(line, format!("rule id '{id}' is defined twice{other}")));
            }
            let rule = compile_rule(rc, layer, self.path, self.home)
                .map_err(|m| self.error(line, format!("rule '{id}': {m}")))?;
            if layer == Layer::Project && rule.effect == Effect::Allow {
                self.ignore(policy, format!("rule '{id}' (effect allow)"));
                continue;
            }
            policy.rules.push(rule);
        }
        Ok(())
    }
}

fn unknown_pack(name: &str) -> String {
    format!(
        "unknown pack '{name}' (packs: {})",
        crate::packs::PACKS.join(", ")
    )
}

/// Validates `<pack>/<rule-id>` and returns the built-in rule's effect when it is known.
/// While a pack has no rules listed at all, any rule id in it is accepted.
fn check_override(key: &str) -> Result<Option<Effect>, String> {
    let Some((pack, rule)) = key.split_once('/') else {
        return Err(format!(
            "override '{key}' must name a built-in rule as <pack>/<rule-id>"
        ));
    };
    if !crate::packs::PACKS.contains(&pack) {
        return Err(unknown_pack(pack));
    }
    let mut in_pack = crate::packs::all_rules()
        .filter(|r| r.pack == pack)
        .peekable();
    if in_pack.peek().is_none() {
        return Ok(None);
    }
    let ids: Vec<&str> = crate::packs::all_rules()
        .filter(|r| r.pack == pack)
        .map(|r| r.id)
        .collect();
    in_pack
        .find(|r| r.id == rule || r.id == key)
        .map(|r| Some(r.effect))
        .ok_or_else(|| {
            format!(
                "pack '{pack}' has no rule '{rule}'{}",
                did_you_mean(rule, ids.into_iter())
            )
        })
}

fn compile_rule(
    rc: RuleConfig,
    layer: Layer,
    file: &Path,
    home: &Path,
) -> Result<PolicyRule, String> {
    if rc.id.is_empty() || rc.id.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("a rule id must be non-empty, without spaces".into());
    }
    let tools = rc.tools.into_vec();
    if tools.is_empty() {
        return Err("tools is an empty list and would never match".into());
    }
    let tools = tools
        .iter()
        .map(|t| Glob::new(t, GlobKind::Tool).map_err(|e| format!("tools: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut when = Vec::new();
    for (path, c) in rc.when.unwrap_or_default() {
        when.push(Constraint::compile(&path, c)?);
    }
    let command = match rc.command {
        Some(c) => {
            if !tools
                .iter()
                .any(|g| SHELL_TOOLS.iter().any(|t| g.matches(t)))
            {
                return Err(format!(
                    "command applies only to the shell tools ({}), which tools does not match",
                    SHELL_TOOLS.join(", ")
                ));
            }
            Some(CommandMatcher::compile(c, home)?)
        }
        None => None,
    };
    if let Some(r) = &rc.reason
        && r.trim().is_empty()
    {
        return Err("reason is empty".into());
    }
    let path_glob = |raw: &str, field: &str| -> Result<Glob, String> {
        let expanded = super::command::expand_target(raw, home)
            .map_err(|e| e.replace("command.targets", field))?;
        Glob::new(&expanded, GlobKind::Path).map_err(|e| format!("{field}: {e}"))
    };
    let paths = rc
        .paths
        .map(|p| p.into_vec())
        .unwrap_or_default()
        .iter()
        .map(|p| path_glob(p, "paths"))
        .collect::<Result<Vec<_>, _>>()?;
    let project = rc
        .project
        .as_deref()
        .map(|p| path_glob(p, "project"))
        .transpose()?;
    let overrides = rc.overrides.map(|o| o.into_vec()).unwrap_or_default();
    let override_deny = rc.override_deny.unwrap_or(false);
    if override_deny && overrides.is_empty() {
        return Err("override_deny needs overrides: [<pack>/<rule-id>, …]".into());
    }
    if !overrides.is_empty() {
        if rc.effect != Effect::Allow {
            return Err(
                "overrides is only for allow rules (a deny or ask rule already wins)".into(),
            );
        }
        if command.is_none() && paths.is_empty() && when.is_empty() {
            return Err("an override needs a scope (command:, paths: or when:); to change a built-in rule everywhere use packs.overrides".into());
        }
        for key in &overrides {
            check_rule_id(key)?;
        }
    }
    let mut examples = Vec::new();
    if let Some(ex) = rc.examples {
        let calls = ex
            .refused
            .into_iter()
            .map(|c| (true, c))
            .chain(ex.allowed.into_iter().map(|c| (false, c)));
        for (refused, call) in calls {
            let (tool, input) = match call {
                super::schema::ExampleCall::Command(c) => {
                    ("Bash".to_string(), serde_json::json!({ "command": c }))
                }
                super::schema::ExampleCall::Call { tool, input } => {
                    if !input.is_object() {
                        return Err(format!(
                            "examples: the input of a {tool} example must be a mapping"
                        ));
                    }
                    (tool, input)
                }
            };
            examples.push(super::RuleExample {
                refused,
                tool,
                input,
            });
        }
    }
    let read_only = rc.read_only.unwrap_or(false);
    if read_only && rc.effect == Effect::Allow {
        return Err(
            "read_only: true marks the calls that change something; its effect is ask or deny"
                .into(),
        );
    }
    Ok(PolicyRule {
        read_only,
        id: rc.id,
        effect: rc.effect,
        reason: rc.reason,
        layer,
        file: file.to_path_buf(),
        tools,
        when,
        command,
        paths,
        project,
        overrides,
        override_deny,
        examples,
    })
}

/// A built-in rule named in `overrides:` must exist: `<pack>/<rule-id>`, with the closest
/// known id suggested for a typo.
fn check_rule_id(key: &str) -> Result<(), String> {
    let ids: Vec<String> = crate::packs::all_rules()
        .map(|r| format!("{}/{}", r.pack, r.id))
        .collect();
    if ids.iter().any(|i| i == key) {
        return Ok(());
    }
    Err(format!(
        "overrides: unknown built-in rule '{key}'{}",
        did_you_mean(key, ids.iter().map(String::as_str))
    ))
}

/// ` (did you mean 'x'?)` for the closest candidate within a small edit distance, else "".
pub(crate) fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    let best = candidates
        .map(|c| (edit_distance(word, c), c))
        .min_by_key(|(d, _)| *d);
    match best {
        Some((d, c)) if d <= (word.chars().count() / 3).max(2) => {
            format!(" (did you mean '{c}'?)")
        }
        _ => String::new(),
    }
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
