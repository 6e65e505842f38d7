//! The `risk:` block of a policy: as written in YAML (`RiskConfig`, every key optional) and as
//! in effect after layering (`RiskSettings`).

use serde::Deserialize;

/// The `risk:` block as written in one policy file. Unknown keys are load errors.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiskConfig {
    pub enabled: Option<bool>,
    pub url: Option<String>,
    pub model: Option<String>,
    pub api_key_env: Option<String>,
    pub timeout_ms: Option<u64>,
    /// `ask` (default) or `deny`.
    pub on_error: Option<String>,
    /// `enforce` (default) or `observe`.
    pub mode: Option<String>,
    pub auto_allow: Option<bool>,
    /// `undecided` (default: calls the static layer left undecided) or `all-but-denied`.
    pub scope: Option<String>,
    pub cache_ttl_s: Option<u64>,
    pub thresholds: Option<std::collections::BTreeMap<String, f64>>,
    /// Categories the `authorized` mitigator never applies to.
    pub non_mitigable: Option<Vec<String>>,
}

/// The effective risk settings.
#[derive(Debug, Clone, PartialEq)]
pub struct RiskSettings {
    pub enabled: bool,
    pub url: String,
    pub model: String,
    pub api_key_env: String,
    pub timeout_ms: u64,
    pub on_error_deny: bool,
    pub observe: bool,
    pub auto_allow: bool,
    pub scope: String,
    pub cache_ttl_s: u64,
    pub thresholds: std::collections::BTreeMap<String, f64>,
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
            on_error_deny: false,
            observe: false,
            auto_allow: false,
            scope: "undecided".into(),
            cache_ttl_s: 600,
            thresholds: Default::default(),
            non_mitigable: vec![
                "secrets".into(),
                "exfiltration".into(),
                "self-protection".into(),
            ],
        }
    }
}

impl RiskSettings {
    /// Applies a user policy's block: every key given replaces the default.
    pub fn apply_user(&mut self, c: &RiskConfig) -> Result<(), String> {
        let _ = c;
        Ok(())
    }

    /// Applies a project policy's block: only what tightens is taken; the rest is reported in
    /// `ignored` (a cloned repository must not loosen the user's firewall).
    pub fn apply_project(
        &mut self,
        c: &RiskConfig,
        ignored: &mut Vec<String>,
    ) -> Result<(), String> {
        let _ = (c, ignored);
        Ok(())
    }
}
