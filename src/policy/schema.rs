//! The policy file as written: plain serde types, strict (`deny_unknown_fields` everywhere), so
//! a typo is a load error and never turns a scoped rule into an unscoped one.

use super::audit_settings::AuditConfig;
use crate::risk::RiskConfig;
use crate::verdict::Effect;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One policy file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyFile {
    /// Must be 1.
    pub version: u32,
    pub headless: Option<bool>,
    pub packs: Option<PacksConfig>,
    pub roots: Option<Vec<String>>,
    pub outside_roots: Option<OutsideRoots>,
    /// `rules:` with nothing under it (the starter policy's examples still commented) is no rules.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub rules: Vec<RuleConfig>,
    pub risk: Option<RiskConfig>,
    pub audit: Option<AuditConfig>,
    /// Models of MCP tools: which arguments carry which effect (user layer only).
    pub tool_models: Option<Vec<crate::effects::mcp::ToolModel>>,
    /// Session taint (the lethal trifecta across calls): mode, trusted hosts, TTL.
    pub taint: Option<super::taint_settings::TaintConfig>,
    /// Rate limits and budgets, counted per session or per rolling hour (see `crate::limits`).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub limits: Vec<LimitConfig>,
    /// `read-only`: every call that changes something is asked (or denied); `normal` is the
    /// default (see `crate::readonly`).
    pub mode: Option<Mode>,
    /// What a change gets in read-only mode: `ask` (the default) or `deny`.
    pub read_only_effect: Option<OutsideRoots>,
}

/// `mode:` — the session's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    Normal,
    ReadOnly,
}

/// One entry of `limits:` — `{id: net, count: network-send, per: session, max: 3, effect: deny}`.
/// Exactly one of `count` (an effect kind) and `tool` (a tool-name glob) says what is counted.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitConfig {
    pub id: String,
    pub count: Option<String>,
    pub tool: Option<String>,
    pub per: Per,
    pub max: u64,
    pub effect: Effect,
}

/// The window a limit counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Per {
    /// The whole session.
    Session,
    /// The last 60 minutes of the session (a rolling window).
    Hour,
}

/// `packs:` — built-in packs switched off and built-in rules whose effect is changed.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PacksConfig {
    #[serde(default)]
    pub disable: Vec<String>,
    /// `<pack>/<rule-id>` → effect.
    #[serde(default)]
    pub overrides: UniqueMap<Effect>,
}

/// `outside_roots:` — a write outside every root is asked or denied, never allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutsideRoots {
    Ask,
    Deny,
}

impl OutsideRoots {
    /// As an effect.
    pub fn effect(self) -> Effect {
        match self {
            OutsideRoots::Ask => Effect::Ask,
            OutsideRoots::Deny => Effect::Deny,
        }
    }
}

/// A single string or a list of them (`startsWith: /a` or `startsWith: [/a, /b]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneOrMany(pub Vec<String>);

impl OneOrMany {
    /// The values as a list.
    pub fn into_vec(self) -> Vec<String> {
        self.0
    }
}

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = OneOrMany;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or a list of strings")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<OneOrMany, E> {
                Ok(OneOrMany(vec![v.to_string()]))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<OneOrMany, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element::<String>()? {
                    out.push(v);
                }
                Ok(OneOrMany(out))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// A YAML scalar compared as text (`equals`, `oneOf`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl Scalar {
    /// The text a value of the call is compared with: numbers and booleans in their JSON form.
    pub fn into_text(self) -> String {
        match self {
            Scalar::Bool(b) => b.to_string(),
            Scalar::Int(i) => i.to_string(),
            Scalar::Float(f) => serde_json::Number::from_f64(f)
                .map(|n| n.to_string())
                .unwrap_or_else(|| f.to_string()),
            Scalar::Str(s) => s,
        }
    }
}

/// One rule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleConfig {
    pub id: String,
    pub tools: OneOrMany,
    pub effect: Effect,
    pub reason: Option<String>,
    /// Dotted path into `tool_input` → constraint.
    pub when: Option<UniqueMap<ConstraintConfig>>,
    pub command: Option<CommandConfig>,
    /// Globs (absolute, `~/`, `**/`) that every path the call touches must match (allow rules),
    /// or one of them (deny and ask rules).
    pub paths: Option<OneOrMany>,
    /// A glob the project root must match (`~/work/shop`, `~/work/**`).
    pub project: Option<String>,
    /// Built-in rules (`<pack>/<rule-id>`) whose ask this allow rule beats where it matches.
    pub overrides: Option<OneOrMany>,
    /// With `overrides`: beat those rules' deny too. User policy only, never implied.
    pub override_deny: Option<bool>,
    /// Calls that prove the rule, run by `palisade policy validate` and `doctor`.
    pub examples: Option<ExamplesConfig>,
    /// The rule matches the calls of its tools that change something (read-only for them).
    pub read_only: Option<bool>,
}

/// `examples:` of a rule: calls the policy must refuse and calls it must let through.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExamplesConfig {
    #[serde(default)]
    pub refused: Vec<ExampleCall>,
    #[serde(default)]
    pub allowed: Vec<ExampleCall>,
}

/// One example call: a Bash command line, or a tool and its input.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ExampleCall {
    Command(String),
    Call {
        tool: String,
        input: serde_json::Value,
    },
}

/// A missing value (`rules:` alone) as the empty list.
fn null_as_empty<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

/// The constraints on one argument.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ConstraintConfig {
    pub equals: Option<Scalar>,
    pub starts_with: Option<OneOrMany>,
    pub ends_with: Option<OneOrMany>,
    pub matches: Option<String>,
    pub excludes: Option<OneOrMany>,
    pub one_of: Option<Vec<Scalar>>,
    pub url_hosts: Option<OneOrMany>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub optional: Option<bool>,
}

/// The shell-aware matcher of a `Bash`/`PowerShell`/`Monitor` rule.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandConfig {
    pub program: Option<OneOrMany>,
    pub subcommand: Option<OneOrMany>,
    pub flags: Option<OneOrMany>,
    pub args: Option<OneOrMany>,
    pub targets: Option<OneOrMany>,
}

/// A mapping whose keys must be unique: YAML parsers keep the last of two equal keys, which
/// would silently drop the first constraint of a `when` block and widen the rule.
#[derive(Debug, Clone)]
pub struct UniqueMap<V>(pub BTreeMap<String, V>);

impl<V> Default for UniqueMap<V> {
    fn default() -> Self {
        UniqueMap(BTreeMap::new())
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for UniqueMap<V> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Visit<V> {
            type Value = UniqueMap<V>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping with unique keys")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut access: A,
            ) -> Result<Self::Value, A::Error> {
                let mut map = BTreeMap::new();
                while let Some(key) = access.next_key::<String>()? {
                    if map.contains_key(&key) {
                        return Err(serde::de::Error::custom(format!("duplicate key '{key}'")));
                    }
                    let value = access.next_value::<V>()?;
                    map.insert(key, value);
                }
                Ok(UniqueMap(map))
            }
        }
        d.deserialize_map(Visit(std::marker::PhantomData))
    }
}

impl<V> IntoIterator for UniqueMap<V> {
    type Item = (String, V);
    type IntoIter = std::collections::btree_map::IntoIter<String, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// Parses a duration as policies and `--since` write it: `90s`, `30m`, `24h`, `7d`, `2w`.
pub fn parse_duration_ms(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = s.split_at(split);
    let n: u64 = num.parse().ok()?;
    let mult = match unit {
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        "w" => 7 * 86_400_000,
        _ => return None,
    };
    n.checked_mul(mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("24h"), Some(86_400_000));
        assert_eq!(parse_duration_ms("30m"), Some(1_800_000));
        assert_eq!(parse_duration_ms("7d"), Some(604_800_000));
        assert_eq!(parse_duration_ms("7"), None);
        assert_eq!(parse_duration_ms("h"), None);
        assert_eq!(parse_duration_ms("3y"), None);
    }
}
