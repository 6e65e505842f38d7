//! The `risk:` block of a policy: as written in YAML (`RiskConfig`, every key optional) and as
//! in effect after layering (`RiskSettings`).
//!
//! A user policy sets anything. A project policy (`.palisade.yaml`, which a cloned repository
//! controls) may only tighten: lower a deny/ask threshold, raise the `authorized` bar, turn
//! `on_error` to `deny`, `mode` to `enforce`, `auto_allow` off, add non-mitigable categories.
//! It can never point the backend elsewhere, name another key variable, or switch the layer on
//! or off: that would let a repository send the session to a server of its choosing.

use serde::Deserialize;
use std::collections::BTreeMap;

/// The `risk:` block as written in one policy file. Unknown keys are load errors.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiskConfig {
    pub enabled: Option<bool>,
    pub url: Option<String>,
    pub model: Option<String>,
    pub api_key_env: Option<String>,
    pub timeout_ms: Option<u64>,
    /// A PEM file of certificates trusted for `url` besides the built-in roots (a local or
    /// corporate endpoint with its own CA).
    pub ca_file: Option<String>,
    /// `ask` (default) or `deny`.
    pub on_error: Option<String>,
    /// `enforce` (default) or `observe`.
    pub mode: Option<String>,
    pub auto_allow: Option<bool>,
    /// `undecided` (default: calls the static layer left undecided) or `all-but-denied`.
    pub scope: Option<String>,
    pub cache_ttl_s: Option<u64>,
    /// Ladder thresholds by key (see `THRESHOLD_KEYS`); an unknown key is a load error.
    pub thresholds: Option<BTreeMap<String, f64>>,
    /// Categories the `authorized` mitigator never applies to.
    pub non_mitigable: Option<Vec<String>>,
}

/// Which calls go to the backend.
/// Ordered by how much is sent. Read-only calls inside the roots (`fastpath`) are sent only
/// with `All`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RiskScope {
    /// Only calls the static layer had no opinion on, read-only ones excepted.
    Undecided,
    /// Every call the static layer did not deny (its allows and asks too), read-only ones excepted.
    AllButDenied,
    /// Every call the static layer did not deny, read-only ones included.
    All,
}

impl RiskScope {
    /// The policy spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RiskScope::Undecided => "undecided",
            RiskScope::AllButDenied => "all-but-denied",
            RiskScope::All => "all",
        }
    }
}

impl std::fmt::Display for RiskScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for RiskScope {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Which way a threshold moves when it gets stricter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tighter {
    /// Lowering it makes the ladder stricter (deny/ask triggers, allow-band maxima).
    Lower,
    /// Raising it makes the ladder stricter (confidence floor, `authorized` bar).
    Higher,
}

/// One documented threshold key of the `thresholds:` map.
#[derive(Debug, Clone, Copy)]
pub struct ThresholdKey {
    pub name: &'static str,
    pub default: f64,
    /// Largest allowed value (the smallest is 0): 3 for `risk` score positions, 1 otherwise.
    pub max: f64,
    pub tighter: Tighter,
    pub doc: &'static str,
}

/// Every threshold key, its default (REFERENCE-jev §4.3) and what it does. Versioned together
/// with the questions (`questions::QUESTION_SET`).
pub const THRESHOLD_KEYS: &[ThresholdKey] = &[
    ThresholdKey {
        name: "from_untrusted_deny",
        default: 0.70,
        max: 1.0,
        tighter: Tighter::Lower,
        doc: "step 3: deny when `from_untrusted` >= this",
    },
    ThresholdKey {
        name: "risk_deny",
        default: 2.5,
        max: 3.0,
        tighter: Tighter::Lower,
        doc: "step 4: deny when the `risk` score >= this (levels 0-3)",
    },
    ThresholdKey {
        name: "destructive_deny",
        default: 0.90,
        max: 1.0,
        tighter: Tighter::Lower,
        doc: "step 4: deny when `destructive` >= this",
    },
    ThresholdKey {
        name: "exfiltration_deny",
        default: 0.85,
        max: 1.0,
        tighter: Tighter::Lower,
        doc: "step 4: deny when `exfiltration` >= this",
    },
    ThresholdKey {
        name: "confidence_floor",
        default: 0.45,
        max: 1.0,
        tighter: Tighter::Higher,
        doc: "step 5: ask (no mitigator) when the `risk` confidence < this",
    },
    ThresholdKey {
        name: "risk_ask",
        default: 1.5,
        max: 3.0,
        tighter: Tighter::Lower,
        doc: "step 6: ask when the `risk` score >= this",
    },
    ThresholdKey {
        name: "destructive_ask",
        default: 0.50,
        max: 1.0,
        tighter: Tighter::Lower,
        doc: "step 6: ask when `destructive` >= this",
    },
    ThresholdKey {
        name: "exfiltration_ask",
        default: 0.50,
        max: 1.0,
        tighter: Tighter::Lower,
        doc: "step 6: ask when `exfiltration` >= this",
    },
    ThresholdKey {
        name: "beyond_request_ask",
        default: 0.60,
        max: 1.0,
        tighter: Tighter::Lower,
        doc: "step 6: ask when `beyond_request` >= this",
    },
    ThresholdKey {
        name: "hidden_effect_ask",
        default: 0.60,
        max: 1.0,
        tighter: Tighter::Lower,
        doc: "step 6: ask when `hidden_effect` >= this; at or above it the mitigator is off",
    },
    ThresholdKey {
        name: "authorized_min",
        default: 0.85,
        max: 1.0,
        tighter: Tighter::Higher,
        doc: "step 6 mitigator: a step-6 ask becomes a pass when `authorized` >= this",
    },
    ThresholdKey {
        name: "authorized_untrusted_max",
        default: 0.30,
        max: 1.0,
        tighter: Tighter::Lower,
        doc: "step 6 mitigator: ignored unless `from_untrusted` < this",
    },
    ThresholdKey {
        name: "allow_risk_max",
        default: 0.5,
        max: 3.0,
        tighter: Tighter::Lower,
        doc: "step 7: low risk needs the `risk` score < this",
    },
    ThresholdKey {
        name: "allow_destructive_max",
        default: 0.10,
        max: 1.0,
        tighter: Tighter::Lower,
        doc: "step 7: low risk needs `destructive` <= this",
    },
    ThresholdKey {
        name: "allow_other_max",
        default: 0.30,
        max: 1.0,
        tighter: Tighter::Lower,
        doc: "step 7: low risk needs every other risk noul (all but `authorized`) < this",
    },
];

/// The ladder's thresholds, one field per `THRESHOLD_KEYS` entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub from_untrusted_deny: f64,
    pub risk_deny: f64,
    pub destructive_deny: f64,
    pub exfiltration_deny: f64,
    pub confidence_floor: f64,
    pub risk_ask: f64,
    pub destructive_ask: f64,
    pub exfiltration_ask: f64,
    pub beyond_request_ask: f64,
    pub hidden_effect_ask: f64,
    pub authorized_min: f64,
    pub authorized_untrusted_max: f64,
    pub allow_risk_max: f64,
    pub allow_destructive_max: f64,
    pub allow_other_max: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        let mut t = Thresholds {
            from_untrusted_deny: 0.0,
            risk_deny: 0.0,
            destructive_deny: 0.0,
            exfiltration_deny: 0.0,
            confidence_floor: 0.0,
            risk_ask: 0.0,
            destructive_ask: 0.0,
            exfiltration_ask: 0.0,
            beyond_request_ask: 0.0,
            hidden_effect_ask: 0.0,
            authorized_min: 0.0,
            authorized_untrusted_max: 0.0,
            allow_risk_max: 0.0,
            allow_destructive_max: 0.0,
            allow_other_max: 0.0,
        };
        for key in THRESHOLD_KEYS {
            if let Some(slot) = t.slot(key.name) {
                *slot = key.default;
            }
        }
        t
    }
}

impl Thresholds {
    /// The field a key names, if it is a documented key.
    pub fn slot(&mut self, name: &str) -> Option<&mut f64> {
        Some(match name {
            "from_untrusted_deny" => &mut self.from_untrusted_deny,
            "risk_deny" => &mut self.risk_deny,
            "destructive_deny" => &mut self.destructive_deny,
            "exfiltration_deny" => &mut self.exfiltration_deny,
            "confidence_floor" => &mut self.confidence_floor,
            "risk_ask" => &mut self.risk_ask,
            "destructive_ask" => &mut self.destructive_ask,
            "exfiltration_ask" => &mut self.exfiltration_ask,
            "beyond_request_ask" => &mut self.beyond_request_ask,
            "hidden_effect_ask" => &mut self.hidden_effect_ask,
            "authorized_min" => &mut self.authorized_min,
            "authorized_untrusted_max" => &mut self.authorized_untrusted_max,
            "allow_risk_max" => &mut self.allow_risk_max,
            "allow_destructive_max" => &mut self.allow_destructive_max,
            "allow_other_max" => &mut self.allow_other_max,
            _ => return None,
        })
    }

    /// The value of a key, if it is a documented key.
    pub fn get(&self, name: &str) -> Option<f64> {
        let mut copy = *self;
        copy.slot(name).map(|v| *v)
    }

    /// Keys whose value differs from the default, for the audit record.
    pub fn changed(&self) -> BTreeMap<&'static str, f64> {
        THRESHOLD_KEYS
            .iter()
            .filter_map(|k| {
                let v = self.get(k.name)?;
                (v != k.default).then_some((k.name, v))
            })
            .collect()
    }
}

/// Longest backend step a policy may ask for: the hook's own deadline is 10 s.
pub const MAX_TIMEOUT_MS: u64 = 8_000;
/// Shortest backend step a policy may ask for.
pub const MIN_TIMEOUT_MS: u64 = 100;
/// Longest cache lifetime (a day): answers drift between model builds.
pub const MAX_CACHE_TTL_S: u64 = 86_400;

/// The effective risk settings.
#[derive(Debug, Clone, PartialEq)]
pub struct RiskSettings {
    pub enabled: bool,
    /// The endpoint; a path ending in `/alpha/decisions` selects OpenRouter's Decisions family.
    pub url: String,
    pub model: String,
    /// Name of the environment variable holding the key (never the key).
    pub api_key_env: String,
    /// Budget of the whole backend step, the one retry included.
    pub timeout_ms: u64,
    /// Extra trusted certificates (PEM) for the endpoint.
    pub ca_file: Option<std::path::PathBuf>,
    pub on_error_deny: bool,
    pub observe: bool,
    pub auto_allow: bool,
    pub scope: RiskScope,
    /// Cache lifetime; 0 switches the cache off.
    pub cache_ttl_s: u64,
    pub thresholds: Thresholds,
    pub non_mitigable: Vec<String>,
}

impl Default for RiskSettings {
    fn default() -> Self {
        RiskSettings {
            enabled: false,
            url: "https://api.typesafe.ai/v1/systemone".into(),
            model: "jev-1.13.0".into(),
            api_key_env: "TYPESAFE_API_KEY".into(),
            timeout_ms: 2500,
            ca_file: None,
            on_error_deny: false,
            observe: false,
            auto_allow: false,
            scope: RiskScope::Undecided,
            cache_ttl_s: 600,
            thresholds: Thresholds::default(),
            non_mitigable: vec![
                "secrets".into(),
                "exfiltration".into(),
                "self-protection".into(),
            ],
        }
    }
}

fn parse_on_error(v: &str) -> Result<bool, String> {
    match v {
        "ask" => Ok(false),
        "deny" => Ok(true),
        _ => Err(format!("risk.on_error must be `ask` or `deny`, got `{v}`")),
    }
}

fn parse_mode(v: &str) -> Result<bool, String> {
    match v {
        "enforce" => Ok(false),
        "observe" => Ok(true),
        _ => Err(format!(
            "risk.mode must be `enforce` or `observe`, got `{v}`"
        )),
    }
}

fn parse_scope(v: &str) -> Result<RiskScope, String> {
    match v {
        "undecided" => Ok(RiskScope::Undecided),
        "all-but-denied" => Ok(RiskScope::AllButDenied),
        "all" => Ok(RiskScope::All),
        _ => Err(format!(
            "risk.scope must be `undecided`, `all-but-denied` or `all`, got `{v}`"
        )),
    }
}

fn check_timeout(ms: u64) -> Result<u64, String> {
    if (MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS).contains(&ms) {
        Ok(ms)
    } else {
        Err(format!(
            "risk.timeout_ms must be between {MIN_TIMEOUT_MS} and {MAX_TIMEOUT_MS} (the hook's own deadline is 10 s), got {ms}"
        ))
    }
}

fn check_ttl(s: u64) -> Result<u64, String> {
    if s <= MAX_CACHE_TTL_S {
        Ok(s)
    } else {
        Err(format!(
            "risk.cache_ttl_s must be at most {MAX_CACHE_TTL_S}, got {s}"
        ))
    }
}

fn check_url(url: &str) -> Result<(), String> {
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("https://") || lower.starts_with("http://")) {
        return Err("risk.url must be an http:// or https:// URL".into());
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("risk.url must not contain whitespace".into());
    }
    Ok(())
}

/// An absolute path: the hook runs in whatever directory the agent is in.
fn check_ca_file(v: &str) -> Result<std::path::PathBuf, String> {
    let p = std::path::PathBuf::from(v);
    if p.is_absolute() {
        Ok(p)
    } else {
        Err(format!("risk.ca_file must be an absolute path, got `{v}`"))
    }
}

/// An environment variable name. Refusing anything else also keeps a pasted key (`sk-…`) out.
fn check_env_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let ok = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 128;
    if ok {
        Ok(())
    } else {
        Err("risk.api_key_env must be the NAME of an environment variable (letters, digits, `_`), never the key itself".into())
    }
}

/// Validates a `thresholds:` map: documented keys only, finite values in range.
fn checked_thresholds(
    map: &BTreeMap<String, f64>,
) -> Result<Vec<(&'static ThresholdKey, f64)>, String> {
    let mut out = Vec::new();
    for (name, &value) in map {
        let Some(key) = THRESHOLD_KEYS.iter().find(|k| k.name == name) else {
            let known: Vec<&str> = THRESHOLD_KEYS.iter().map(|k| k.name).collect();
            return Err(format!(
                "unknown risk threshold `{name}` (known: {})",
                known.join(", ")
            ));
        };
        if !value.is_finite() || value < 0.0 || value > key.max {
            return Err(format!(
                "risk threshold `{name}` must be between 0 and {}, got {value}",
                key.max
            ));
        }
        out.push((key, value));
    }
    Ok(out)
}

impl RiskSettings {
    /// Applies a user policy's block: every key given replaces the default.
    pub fn apply_user(&mut self, c: &RiskConfig) -> Result<(), String> {
        // Validate everything first so a bad block changes nothing.
        let mut next = self.clone();
        if let Some(v) = c.enabled {
            next.enabled = v;
        }
        if let Some(v) = &c.url {
            check_url(v)?;
            next.url = v.clone();
        }
        if let Some(v) = &c.model {
            if v.trim().is_empty() {
                return Err("risk.model must not be empty".into());
            }
            next.model = v.clone();
        }
        if let Some(v) = &c.api_key_env {
            check_env_name(v)?;
            next.api_key_env = v.clone();
        }
        if let Some(v) = c.timeout_ms {
            next.timeout_ms = check_timeout(v)?;
        }
        if let Some(v) = &c.ca_file {
            next.ca_file = Some(check_ca_file(v)?);
        }
        if let Some(v) = &c.on_error {
            next.on_error_deny = parse_on_error(v)?;
        }
        if let Some(v) = &c.mode {
            next.observe = parse_mode(v)?;
        }
        if let Some(v) = c.auto_allow {
            next.auto_allow = v;
        }
        if let Some(v) = &c.scope {
            next.scope = parse_scope(v)?;
        }
        if let Some(v) = c.cache_ttl_s {
            next.cache_ttl_s = check_ttl(v)?;
        }
        if let Some(map) = &c.thresholds {
            for (key, value) in checked_thresholds(map)? {
                if let Some(slot) = next.thresholds.slot(key.name) {
                    *slot = value;
                }
            }
        }
        if let Some(v) = &c.non_mitigable {
            next.non_mitigable = v.clone();
        }
        *self = next;
        Ok(())
    }

    /// Applies a project policy's block: only what tightens is taken; the rest is reported in
    /// `ignored` (a cloned repository must not loosen the user's firewall).
    pub fn apply_project(
        &mut self,
        c: &RiskConfig,
        ignored: &mut Vec<String>,
    ) -> Result<(), String> {
        let mut next = self.clone();
        let mut skipped = Vec::new();
        // Where the session goes and with which key is the user's decision alone.
        if let Some(v) = c.enabled
            && v != next.enabled
        {
            skipped.push(format!(
                "risk.enabled: {v} (only the user policy switches the backend on or off)"
            ));
        }
        if let Some(v) = &c.url {
            check_url(v)?;
            if *v != next.url {
                skipped.push("risk.url (only the user policy chooses the backend)".into());
            }
        }
        if let Some(v) = &c.model
            && *v != next.model
        {
            skipped.push("risk.model (only the user policy chooses the model)".into());
        }
        if let Some(v) = &c.api_key_env {
            check_env_name(v)?;
            if *v != next.api_key_env {
                skipped.push("risk.api_key_env (only the user policy names the key)".into());
            }
        }
        if let Some(v) = &c.ca_file {
            let v = check_ca_file(v)?;
            if Some(&v) != next.ca_file.as_ref() {
                skipped.push("risk.ca_file (only the user policy chooses whom to trust)".into());
            }
        }
        if let Some(v) = c.timeout_ms {
            let v = check_timeout(v)?;
            // A shorter budget only means more `on_error` outcomes, never fewer checks.
            if v <= next.timeout_ms {
                next.timeout_ms = v;
            } else {
                skipped.push(format!(
                    "risk.timeout_ms: {v} (a project may only shorten it)"
                ));
            }
        }
        if let Some(v) = &c.on_error {
            if parse_on_error(v)? {
                next.on_error_deny = true;
            } else if next.on_error_deny {
                skipped.push("risk.on_error: ask (the user policy says deny)".into());
            }
        }
        if let Some(v) = &c.mode {
            if !parse_mode(v)? {
                next.observe = false;
            } else if !next.observe {
                skipped.push("risk.mode: observe (the user policy enforces)".into());
            }
        }
        if let Some(v) = c.auto_allow {
            if !v {
                next.auto_allow = false;
            } else if !next.auto_allow {
                skipped
                    .push("risk.auto_allow: true (a project may not make the model allow)".into());
            }
        }
        if let Some(v) = &c.scope {
            let s = parse_scope(v)?;
            if s > next.scope {
                next.scope = s;
            } else if next.scope != s {
                skipped.push(format!(
                    "risk.scope: {} (the user policy sends more calls to the model)",
                    s.as_str()
                ));
            }
        }
        if let Some(v) = c.cache_ttl_s {
            let v = check_ttl(v)?;
            if v <= next.cache_ttl_s {
                next.cache_ttl_s = v;
            } else {
                skipped.push(format!(
                    "risk.cache_ttl_s: {v} (a project may only shorten it)"
                ));
            }
        }
        if let Some(map) = &c.thresholds {
            for (key, value) in checked_thresholds(map)? {
                let Some(slot) = next.thresholds.slot(key.name) else {
                    continue;
                };
                let tightens = match key.tighter {
                    Tighter::Lower => value <= *slot,
                    Tighter::Higher => value >= *slot,
                };
                if tightens {
                    *slot = value;
                } else {
                    skipped.push(format!(
                        "risk.thresholds.{}: {value} (looser than {}; a project may only tighten)",
                        key.name, *slot
                    ));
                }
            }
        }
        if let Some(v) = &c.non_mitigable {
            for cat in v {
                if !next.non_mitigable.contains(cat) {
                    next.non_mitigable.push(cat.clone());
                }
            }
        }
        *self = next;
        ignored.extend(skipped);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(yaml: &str) -> RiskConfig {
        serde_yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn defaults_match_the_table() {
        let t = Thresholds::default();
        for key in THRESHOLD_KEYS {
            assert_eq!(t.get(key.name), Some(key.default), "{}", key.name);
        }
        assert_eq!(t.risk_deny, 2.5);
        assert_eq!(t.authorized_min, 0.85);
        assert!(t.changed().is_empty());
    }

    #[test]
    fn user_policy_sets_everything_and_validates() {
        let mut s = RiskSettings::default();
        s.apply_user(&config(
            "enabled: true\nurl: http://127.0.0.1:9/v1/systemone\nmodel: jev-latest\napi_key_env: MY_KEY\ntimeout_ms: 900\non_error: deny\nmode: observe\nauto_allow: true\nscope: all-but-denied\ncache_ttl_s: 0\nthresholds: {risk_deny: 2.0, authorized_min: 0.7}\nnon_mitigable: [secrets]\n",
        ))
        .unwrap();
        assert!(s.enabled && s.on_error_deny && s.observe && s.auto_allow);
        assert_eq!(s.scope, RiskScope::AllButDenied);
        assert_eq!(s.thresholds.risk_deny, 2.0);
        assert_eq!(s.thresholds.authorized_min, 0.7);
        assert_eq!(s.timeout_ms, 900);
        assert_eq!(s.non_mitigable, vec!["secrets".to_string()]);

        let before = RiskSettings::default();
        for bad in [
            "thresholds: {risk_dney: 2.0}",
            "thresholds: {risk_deny: 4.0}",
            "thresholds: {destructive_deny: -0.1}",
            "timeout_ms: 60000",
            "on_error: allow",
            "mode: shadow",
            "scope: everything",
            "api_key_env: sk-live-abcdef",
            "url: ftp://x",
        ] {
            let mut s = before.clone();
            assert!(s.apply_user(&config(bad)).is_err(), "{bad}");
            assert_eq!(s, before, "a bad block must change nothing: {bad}");
        }
        assert!(serde_yaml::from_str::<RiskConfig>("treshold: 1").is_err());
    }

    #[test]
    fn ca_file_is_the_users_alone_and_absolute() {
        let mut s = RiskSettings::default();
        s.apply_user(&config("ca_file: /etc/ssl/corp-ca.pem\n"))
            .unwrap();
        assert_eq!(
            s.ca_file.as_deref(),
            Some(std::path::Path::new("/etc/ssl/corp-ca.pem"))
        );
        assert!(s.clone().apply_user(&config("ca_file: ca.pem\n")).is_err());
        // A repository may not choose whom the key is sent to, by URL or by trust.
        let mut ignored = Vec::new();
        s.apply_project(&config("ca_file: /tmp/evil-ca.pem\n"), &mut ignored)
            .unwrap();
        assert_eq!(
            s.ca_file.as_deref(),
            Some(std::path::Path::new("/etc/ssl/corp-ca.pem"))
        );
        assert!(ignored.join("\n").contains("risk.ca_file"), "{ignored:?}");
        let mut none = RiskSettings::default();
        none.apply_project(&config("ca_file: /tmp/evil-ca.pem\n"), &mut ignored)
            .unwrap();
        assert_eq!(none.ca_file, None);
    }

    #[test]
    fn project_policy_only_tightens() {
        let mut s = RiskSettings::default();
        s.apply_user(&config("enabled: true\nurl: https://a.example/v1/systemone\non_error: deny\nauto_allow: false\n"))
            .unwrap();
        let mut ignored = Vec::new();
        s.apply_project(
            &config("enabled: false\nurl: https://evil.example/v1/systemone\napi_key_env: AWS_SECRET_ACCESS_KEY\non_error: ask\nmode: observe\nauto_allow: true\ntimeout_ms: 5000\nthresholds: {risk_deny: 2.0, destructive_deny: 0.95, authorized_min: 0.95, confidence_floor: 0.2}\nnon_mitigable: [database]\n"),
            &mut ignored,
        )
        .unwrap();
        assert!(s.enabled);
        assert_eq!(s.url, "https://a.example/v1/systemone");
        assert_eq!(s.api_key_env, "TYPESAFE_API_KEY");
        assert!(s.on_error_deny && !s.observe && !s.auto_allow);
        assert_eq!(s.timeout_ms, 2500);
        assert_eq!(s.thresholds.risk_deny, 2.0);
        assert_eq!(s.thresholds.destructive_deny, 0.90);
        assert_eq!(s.thresholds.authorized_min, 0.95);
        assert_eq!(s.thresholds.confidence_floor, 0.45);
        assert!(s.non_mitigable.contains(&"database".to_string()));
        assert!(s.non_mitigable.contains(&"secrets".to_string()));
        let text = ignored.join("\n");
        for what in [
            "risk.enabled",
            "risk.url",
            "risk.api_key_env",
            "risk.on_error",
            "risk.mode",
            "risk.auto_allow",
            "risk.timeout_ms",
            "destructive_deny",
            "confidence_floor",
        ] {
            assert!(text.contains(what), "{what} not reported in {text}");
        }
        let mut s2 = s.clone();
        assert!(
            s2.apply_project(&config("thresholds: {nope: 1}"), &mut ignored)
                .is_err()
        );
    }

    #[test]
    fn scope_all_sends_the_most_and_a_project_may_only_widen_it() {
        let mut s = RiskSettings::default();
        s.apply_user(&config(
            "scope: all
",
        ))
        .unwrap();
        assert_eq!(s.scope, RiskScope::All);
        let mut ignored = Vec::new();
        s.apply_project(
            &config(
                "scope: undecided
",
            ),
            &mut ignored,
        )
        .unwrap();
        assert_eq!(s.scope, RiskScope::All);
        assert!(ignored.join("\n").contains("risk.scope"));
        let mut s = RiskSettings::default();
        s.apply_project(
            &config(
                "scope: all
",
            ),
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(s.scope, RiskScope::All);
        assert!(RiskScope::Undecided < RiskScope::AllButDenied);
        assert!(RiskScope::AllButDenied < RiskScope::All);
    }
}
