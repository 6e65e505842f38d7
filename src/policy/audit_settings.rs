//! The `audit:` block of a policy: how the audit log (`crate::audit`) is kept — what happens
//! when an entry cannot be written, what is redacted, where the file is.

use crate::locations::Locations;
use serde::Deserialize;
use std::path::PathBuf;

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

fn parse_on_error(v: &str) -> Result<bool, String> {
    match v {
        "deny" => Ok(false),
        "ask" => Ok(true),
        other => Err(format!(
            "audit.on_error must be `deny` or `ask`, not `{other}`"
        )),
    }
}

fn check_redact_path(p: &str) -> Result<(), String> {
    if p.is_empty() || p.split('.').any(str::is_empty) {
        return Err(format!(
            "audit.redact: `{p}` is not a dotted path (like `env.API_TOKEN` or `headers.*`)"
        ));
    }
    Ok(())
}

impl AuditSettings {
    /// Applies a user policy's block: every key given replaces the default (`redact` adds).
    pub fn apply_user(&mut self, c: &AuditConfig) -> Result<(), String> {
        if let Some(v) = &c.on_error {
            self.on_error_ask = parse_on_error(v)?;
        }
        if let Some(paths) = &c.redact {
            for p in paths {
                check_redact_path(p)?;
                if !self.redact.contains(p) {
                    self.redact.push(p.clone());
                }
            }
        }
        if let Some(f) = &c.file {
            if f.trim().is_empty() {
                return Err("audit.file is empty".into());
            }
            self.file = Some(PathBuf::from(f));
        }
        Ok(())
    }

    /// Applies a project policy's block: it may turn `ask` into `deny`, nothing else (what the
    /// log records and where is the user's choice).
    pub fn apply_project(
        &mut self,
        c: &AuditConfig,
        ignored: &mut Vec<String>,
    ) -> Result<(), String> {
        if let Some(v) = &c.on_error {
            if parse_on_error(v)? {
                ignored
                    .push("audit.on_error: ask — a project policy may only set `deny`".to_string());
            } else {
                self.on_error_ask = false;
            }
        }
        // Redaction hides fields from the record: a repository must not be able to blind
        // the log to what the agent does in it. Only the user policy redacts.
        if let Some(paths) = &c.redact {
            for p in paths {
                check_redact_path(p)?;
                ignored.push(format!(
                    "audit.redact: {p} — only the user policy chooses what the audit log hides"
                ));
            }
        }
        if let Some(f) = &c.file {
            ignored.push(format!(
                "audit.file: {f} — only the user policy chooses where the audit log is written"
            ));
        }
        Ok(())
    }
}

/// The audit file in effect: the configured `file` (`~/` is the home directory, a relative path
/// is under the state directory), else `<state dir>/audit.jsonl`.
pub fn audit_file(settings: &AuditSettings, locations: &Locations) -> PathBuf {
    match &settings.file {
        None => locations.data_dir.join("audit.jsonl"),
        Some(f) => {
            let text = f.to_string_lossy();
            if let Some(rest) = text.strip_prefix("~/") {
                locations.home.join(rest)
            } else if f.is_absolute() {
                f.clone()
            } else {
                locations.data_dir.join(f)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(on_error: Option<&str>, redact: &[&str], file: Option<&str>) -> AuditConfig {
        AuditConfig {
            on_error: on_error.map(str::to_string),
            redact: Some(redact.iter().map(|s| s.to_string()).collect()),
            file: file.map(str::to_string),
        }
    }

    #[test]
    fn user_sets_everything_project_only_tightens() {
        let mut s = AuditSettings::default();
        s.apply_user(&cfg(Some("ask"), &["env.A"], Some("~/a.jsonl")))
            .unwrap();
        assert!(s.on_error_ask);
        let mut ignored = Vec::new();
        s.apply_project(
            &cfg(Some("ask"), &["headers.*"], Some("/tmp/x")),
            &mut ignored,
        )
        .unwrap();
        assert!(s.on_error_ask, "a project cannot choose ask");
        assert_eq!(
            s.redact,
            vec!["env.A".to_string()],
            "a project cannot blind the log"
        );
        assert_eq!(ignored.len(), 3);
        assert!(
            ignored
                .iter()
                .any(|i| i.starts_with("audit.redact: headers.*"))
        );
        s.apply_project(&cfg(Some("deny"), &[], None), &mut ignored)
            .unwrap();
        assert!(!s.on_error_ask);
        let loc = Locations::from_vars(|k| match k {
            "HOME" => Some("/h".into()),
            "PALISADE_DATA_DIR" => Some("/state".into()),
            _ => None,
        });
        assert_eq!(audit_file(&s, &loc), PathBuf::from("/h/a.jsonl"));
        assert_eq!(
            audit_file(&AuditSettings::default(), &loc),
            PathBuf::from("/state/audit.jsonl")
        );
    }

    #[test]
    fn rejects_bad_values() {
        let mut s = AuditSettings::default();
        assert!(s.apply_user(&cfg(Some("allow"), &[], None)).is_err());
        assert!(s.apply_user(&cfg(None, &["a..b"], None)).is_err());
        assert!(
            s.apply_project(&cfg(Some("maybe"), &[], None), &mut Vec::new())
                .is_err()
        );
    }
}
