//! Usage and alerts from the audit log, without argument values: per tool (or MCP server) the
//! calls, their verdicts and median hook latency (`audit --stats --by tool|server`), and the
//! alerts the hook recorded: sessions that ran under more than one policy, and calls whose
//! PreToolUse decision was never recorded (the hook did not run before the tool).
//!
//! The lines are read through structs that have no field for `input`, so no argument value can
//! reach these reports, whatever a later change prints.

use super::stats::LogHistogram;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Distinct tools (or servers) kept; the rest are counted under [`OTHER`]. Each keeps a
/// latency histogram (4 KiB), so this bounds the memory of a pass.
const MAX_KEYS: usize = 1000;
/// Distinct sessions kept per alert kind; the rest are counted, not listed.
const MAX_SESSIONS: usize = 1000;
/// Distinct policy digests kept per drifting session.
const MAX_DIGESTS: usize = 16;
const OTHER: &str = "(other)";

/// What `--by` groups calls by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum By {
    /// The tool name (`Bash`, `Write`, `mcp__github__create_issue`).
    Tool,
    /// The MCP server of `mcp__<server>__<tool>` calls (other tools are left out).
    Server,
}

/// One row of the usage view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct UsageRow {
    /// The tool or server name.
    pub name: String,
    /// PreToolUse decisions.
    pub calls: u64,
    pub allow: u64,
    pub ask: u64,
    pub deny: u64,
    /// No opinion (Claude Code's own permission flow applied).
    pub pass: u64,
    /// Median hook latency of those decisions, microseconds.
    pub median_latency_us: Option<u64>,
    /// Calls that ran with no PreToolUse decision recorded (bypass alerts).
    pub unchecked: u64,
}

/// `audit --stats --by …`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UsageReport {
    pub by: By,
    pub since_ms: Option<u64>,
    /// Most calls first.
    pub rows: Vec<UsageRow>,
}

/// A session decided under more than one policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DriftSession {
    pub session: String,
    /// The policy digests seen: the session's first, then the others (sorted).
    pub policies: Vec<String>,
    /// Decisions made under a policy other than the session's first.
    pub drifted_calls: u64,
}

/// Calls of one session that ran without a PreToolUse decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BypassSession {
    pub session: String,
    pub calls: u64,
    /// The tools of those calls.
    pub tools: Vec<String>,
    pub last_at: u64,
}

/// The alerts of the log (a section of `audit --stats`, and `doctor`'s bypass check).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AlertStats {
    pub policy_drift: Vec<DriftSession>,
    /// Drifting sessions beyond the listed ones.
    pub policy_drift_unlisted: u64,
    /// Bypass alerts: PostToolUse events with no PreToolUse decision recorded.
    pub bypassed_calls: u64,
    pub bypass: Vec<BypassSession>,
    pub bypass_unlisted: u64,
    /// When the last bypass alert was recorded.
    pub last_bypass_at: Option<u64>,
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(default)]
    at: u64,
    #[serde(borrow, default)]
    session: Cow<'a, str>,
    #[serde(borrow, default)]
    event: Cow<'a, str>,
    #[serde(borrow, default)]
    tool: Cow<'a, str>,
    #[serde(borrow)]
    decision: Decision<'a>,
    #[serde(default)]
    latency_us: u64,
    #[serde(borrow, default)]
    alerts: Vec<AlertLine<'a>>,
}

#[derive(Deserialize)]
struct Decision<'a> {
    #[serde(borrow)]
    effect: Cow<'a, str>,
}

/// One alert of an entry, as the reports read it.
#[derive(Debug, Deserialize)]
pub(super) struct AlertLine<'a> {
    #[serde(borrow, default)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    first: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    now: Option<Cow<'a, str>>,
}

/// Calls every complete, readable line at or after `since_ms`; malformed lines are skipped
/// (`verify` reports them).
fn each_line(
    path: &Path,
    since_ms: Option<u64>,
    mut f: impl FnMut(&Line<'_>),
) -> std::io::Result<()> {
    let file = std::fs::File::open(path)?;
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let mut buf = Vec::with_capacity(4096);
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 || buf.last() != Some(&b'\n') {
            return Ok(());
        }
        let Ok(line) = serde_json::from_slice::<Line<'_>>(&buf) else {
            continue;
        };
        if since_ms.is_none_or(|s| line.at >= s) {
            f(&line);
        }
    }
}

/// The MCP server of a tool name: `mcp__<server>__<tool>` → `<server>`.
pub fn mcp_server(tool: &str) -> Option<&str> {
    let rest = tool.strip_prefix("mcp__")?;
    rest.split_once("__")
        .map(|(s, _)| s)
        .filter(|s| !s.is_empty())
}

/// Streams the log and groups PreToolUse decisions by tool or MCP server.
pub fn usage(path: &Path, since_ms: Option<u64>, by: By) -> std::io::Result<UsageReport> {
    let mut rows: BTreeMap<String, (UsageRow, LogHistogram)> = BTreeMap::new();
    each_line(path, since_ms, |line| {
        let name = match by {
            By::Tool => &*line.tool,
            By::Server => match mcp_server(&line.tool) {
                Some(s) => s,
                None => return,
            },
        };
        let key = if rows.contains_key(name) || rows.len() < MAX_KEYS {
            name
        } else {
            OTHER
        };
        let (row, latency) = rows.entry(key.to_string()).or_insert_with(|| {
            (
                UsageRow {
                    name: key.to_string(),
                    ..Default::default()
                },
                LogHistogram::default(),
            )
        });
        if line.event == "PostToolUse" {
            row.unchecked += line.alerts.iter().filter(|a| a.kind == "bypass").count() as u64;
            return;
        }
        row.calls += 1;
        match &*line.decision.effect {
            "allow" => row.allow += 1,
            "ask" => row.ask += 1,
            "deny" => row.deny += 1,
            _ => row.pass += 1,
        }
        latency.record(line.latency_us);
    })?;
    let mut rows: Vec<UsageRow> = rows
        .into_values()
        .map(|(mut row, latency)| {
            row.median_latency_us = latency.quantile(0.5);
            row
        })
        .collect();
    rows.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.name.cmp(&b.name)));
    Ok(UsageReport { by, since_ms, rows })
}

/// Streams the log and gathers its alerts.
pub fn alerts(path: &Path, since_ms: Option<u64>) -> std::io::Result<AlertStats> {
    let mut tally = AlertTally::default();
    each_line(path, since_ms, |line| {
        tally.observe(&line.session, &line.tool, line.at, &line.alerts)
    })?;
    Ok(tally.finish())
}

/// Gathers alerts entry by entry, in bounded memory (`audit --stats` feeds it from its own
/// pass).
#[derive(Debug, Default)]
pub(super) struct AlertTally {
    /// session → (digests in the order seen, the session's first first; drifted calls)
    drift: BTreeMap<String, (Vec<String>, u64)>,
    drift_unlisted: BTreeSet<u64>,
    bypass: BTreeMap<String, BypassSession>,
    out: AlertStats,
}

impl AlertTally {
    /// Counts the alerts of one entry.
    pub(super) fn observe(&mut self, session: &str, tool: &str, at: u64, alerts: &[AlertLine]) {
        for a in alerts {
            match &*a.kind {
                "policy-drift" => {
                    let (Some(first), Some(now)) = (&a.first, &a.now) else {
                        continue;
                    };
                    if !self.drift.contains_key(session) && self.drift.len() >= MAX_SESSIONS {
                        self.drift_unlisted.insert(fingerprint(session));
                        continue;
                    }
                    let (seen, n) = self.drift.entry(session.to_string()).or_default();
                    for d in [first, now] {
                        if seen.len() < MAX_DIGESTS && !seen.iter().any(|s| s == d) {
                            seen.push(d.to_string());
                        }
                    }
                    *n += 1;
                }
                "bypass" => {
                    self.out.bypassed_calls += 1;
                    self.out.last_bypass_at = self.out.last_bypass_at.max(Some(at));
                    if !self.bypass.contains_key(session) && self.bypass.len() >= MAX_SESSIONS {
                        self.out.bypass_unlisted += 1;
                        continue;
                    }
                    let s =
                        self.bypass
                            .entry(session.to_string())
                            .or_insert_with(|| BypassSession {
                                session: session.to_string(),
                                calls: 0,
                                tools: Vec::new(),
                                last_at: 0,
                            });
                    s.calls += 1;
                    s.last_at = s.last_at.max(at);
                    if s.tools.len() < MAX_KEYS && !s.tools.iter().any(|t| t == tool) {
                        s.tools.push(tool.to_string());
                    }
                }
                _ => {}
            }
        }
    }

    /// The gathered alerts.
    pub(super) fn finish(self) -> AlertStats {
        let mut out = self.out;
        out.policy_drift = self
            .drift
            .into_iter()
            .map(|(session, (mut policies, drifted_calls))| {
                if policies.len() > 1 {
                    policies[1..].sort();
                }
                DriftSession {
                    session,
                    policies,
                    drifted_calls,
                }
            })
            .collect();
        out.policy_drift_unlisted = self.drift_unlisted.len() as u64;
        out.bypass = self.bypass.into_values().collect();
        for s in &mut out.bypass {
            s.tools.sort();
        }
        out
    }
}

/// A small stand-in for a session id beyond the listed ones (only counted).
fn fingerprint(s: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// The usage view as a table.
pub fn render_usage(r: &UsageReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let title = match r.by {
        By::Tool => "tool",
        By::Server => "MCP server",
    };
    let width = r
        .rows
        .iter()
        .map(|row| row.name.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(title.len(), 60);
    let _ = writeln!(
        out,
        "{title:<width$}  {:>8}  {:>8}  {:>8}  {:>8}  {:>8}  {:>12}  {:>9}",
        "calls", "allow", "ask", "deny", "pass", "median µs", "unchecked"
    );
    for row in &r.rows {
        let name: String = row.name.chars().take(60).collect();
        let _ = writeln!(
            out,
            "{name:<width$}  {:>8}  {:>8}  {:>8}  {:>8}  {:>8}  {:>12}  {:>9}",
            row.calls,
            row.allow,
            row.ask,
            row.deny,
            row.pass,
            row.median_latency_us
                .map_or_else(|| "-".to_string(), |v| v.to_string()),
            row.unchecked
        );
    }
    if r.rows.is_empty() {
        let _ = writeln!(out, "(no calls)");
    }
    out
}

/// The alerts section of `audit --stats`.
pub fn render_alerts(a: &AlertStats) -> String {
    use std::fmt::Write;
    let short = |d: &str| d.chars().take(12).collect::<String>();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nsessions under more than one policy: {}",
        a.policy_drift.len() as u64 + a.policy_drift_unlisted
    );
    for s in a.policy_drift.iter().take(20) {
        let policies: Vec<String> = s.policies.iter().map(|d| short(d)).collect();
        let _ = writeln!(
            out,
            "  {}  policies {}  ({} calls after the change)",
            s.session,
            policies.join(" → "),
            s.drifted_calls
        );
    }
    if a.policy_drift.len() > 20 {
        let _ = writeln!(out, "  … {} more", a.policy_drift.len() - 20);
    }
    let _ = writeln!(
        out,
        "calls with no PreToolUse decision (the hook did not run): {}",
        a.bypassed_calls
    );
    for s in a.bypass.iter().take(20) {
        let _ = writeln!(
            out,
            "  {}  {} calls ({}), last {}",
            s.session,
            s.calls,
            s.tools.join(", "),
            super::tail::format_time(s.last_at)
        );
    }
    if a.bypass.len() > 20 {
        let _ = writeln!(out, "  … {} more sessions", a.bypass.len() - 20);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_come_from_mcp_tool_names() {
        assert_eq!(mcp_server("mcp__github__create_issue"), Some("github"));
        assert_eq!(
            mcp_server("mcp__plugin_acme_db__query"),
            Some("plugin_acme_db")
        );
        assert_eq!(mcp_server("mcp__github"), None);
        assert_eq!(mcp_server("mcp____x"), None);
        assert_eq!(mcp_server("Bash"), None);
    }
}
