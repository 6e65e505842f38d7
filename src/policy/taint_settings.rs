//! `taint:` settings: as written in a policy file (`TaintConfig`) and in effect
//! (`TaintSettings`). They live with the policy, which loads them; `crate::taint` judges with them.

use serde::Deserialize;

/// `taint:` as written in a policy file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaintConfig {
    pub mode: Option<TaintMode>,
    /// Hosts (`docs.rs`, `*.internal.example`) and MCP servers (`mcp__docs`) whose content is
    /// not untrusted and to which a send is not a way out.
    pub trusted: Option<Vec<String>>,
    /// How long an exposure counts (`30m`, `8h`); absent: the whole session.
    pub ttl: Option<String>,
}

/// What a trifecta send gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaintMode {
    Off,
    Ask,
    Deny,
}

/// The effective taint settings after layering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaintSettings {
    pub mode: TaintMode,
    pub trusted: Vec<String>,
    pub ttl_ms: Option<u64>,
}

impl Default for TaintSettings {
    fn default() -> Self {
        TaintSettings {
            mode: TaintMode::Ask,
            trusted: Vec::new(),
            ttl_ms: None,
        }
    }
}

fn parse_ttl(s: &str) -> Result<u64, String> {
    match super::schema::parse_duration_ms(s) {
        Some(ms) if ms > 0 => Ok(ms),
        _ => Err(format!(
            "taint.ttl: '{s}' is not a duration (a number and s, m, h, d or w: 30m, 8h)"
        )),
    }
}

fn check_trusted(entry: &str) -> Result<(), String> {
    let host = entry.strip_prefix("*.").unwrap_or(entry);
    let ok = if let Some(server) = entry.strip_prefix("mcp__") {
        !server.is_empty() && !server.contains("__") && !server.contains('*')
    } else {
        !host.is_empty()
            && !host.contains('*')
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'))
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "taint.trusted: '{entry}' is neither a host (docs.rs, *.corp.example) nor an MCP \
             server (mcp__<server>)"
        ))
    }
}

impl TaintSettings {
    /// The user layer: sets what it names, strictly validated.
    pub fn apply_user(&mut self, c: &TaintConfig) -> Result<(), String> {
        if let Some(m) = c.mode {
            self.mode = m;
        }
        if let Some(t) = &c.trusted {
            for e in t {
                check_trusted(e)?;
            }
            self.trusted = t.iter().map(|e| e.to_ascii_lowercase()).collect();
        }
        if let Some(ttl) = &c.ttl {
            self.ttl_ms = Some(parse_ttl(ttl)?);
        }
        Ok(())
    }

    /// The project layer may only tighten: a stricter mode, a longer TTL; it cannot trust
    /// anything. What it tried to loosen goes to `ignored`.
    pub fn apply_project(
        &mut self,
        c: &TaintConfig,
        ignored: &mut Vec<String>,
    ) -> Result<(), String> {
        if let Some(m) = c.mode {
            if m >= self.mode {
                self.mode = m;
            } else {
                ignored.push(format!(
                    "taint.mode: {m:?} (a project may only make it stricter)"
                ));
            }
        }
        if let Some(t) = &c.trusted {
            for e in t {
                check_trusted(e)?;
            }
            if !t.is_empty() {
                ignored.push("taint.trusted (only the user policy trusts a host or server)".into());
            }
        }
        if let Some(ttl) = &c.ttl {
            let v = parse_ttl(ttl)?;
            match self.ttl_ms {
                Some(cur) if v > cur => self.ttl_ms = Some(v),
                _ => ignored.push(format!(
                    "taint.ttl: {ttl} (a project may only make exposure last longer)"
                )),
            }
        }
        Ok(())
    }

    /// True when `host` is trusted (exactly, or under a `*.` entry).
    pub fn trusts_host(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        self.trusted.iter().any(|t| match t.strip_prefix("*.") {
            Some(suffix) => host == suffix || host.ends_with(&format!(".{suffix}")),
            None => !t.starts_with("mcp__") && *t == host,
        })
    }

    /// True when the MCP tool belongs to a trusted server (`mcp__docs__search` ← `mcp__docs`).
    pub fn trusts_tool(&self, tool: &str) -> bool {
        mcp_server(tool).is_some_and(|s| {
            self.trusted.iter().any(|t| {
                t.strip_prefix("mcp__")
                    .is_some_and(|t| t.eq_ignore_ascii_case(s))
            })
        })
    }
}

fn mcp_server(tool: &str) -> Option<&str> {
    crate::event::mcp_parts(tool).map(|(server, _)| server)
}
