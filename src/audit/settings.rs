//! The `audit:` block of a policy.

use serde::Deserialize;

/// The `audit:` block as written in one policy file. Unknown keys are load errors.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditConfig {
    /// `deny` (default) or `ask`: what happens to a call when its audit entry cannot be written.
    pub on_error: Option<String>,
    /// Extra dotted paths into `tool_input` whose values are always redacted.
    pub redact: Option<Vec<String>>,
    /// The audit file (default: `<state dir>/audit.jsonl`).
    pub file: Option<String>,
}

/// The effective audit settings.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AuditSettings {
    pub on_error_ask: bool,
    pub redact: Vec<String>,
    pub file: Option<std::path::PathBuf>,
}

impl AuditSettings {
    /// Applies a user policy's block.
    pub fn apply_user(&mut self, c: &AuditConfig) -> Result<(), String> {
        let _ = c;
        Ok(())
    }

    /// Applies a project policy's block: it may add redactions and turn `ask` into `deny`, nothing else.
    pub fn apply_project(
        &mut self,
        c: &AuditConfig,
        ignored: &mut Vec<String>,
    ) -> Result<(), String> {
        let _ = (c, ignored);
        Ok(())
    }
}
