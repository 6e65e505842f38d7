//! The `limits` section of `audit --stats`: for each limit of the policy in effect, how close
//! the recent sessions came to it (their counts, read from each session's ledger store) and
//! how many calls it refused (from the audit log's `policy:limit/<id>` decisions).

use crate::ledger::LedgerStore;
use crate::ledger::limits::LimitUse;
use crate::policy::Policy;
use crate::policy::schema::Per;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

/// Sessions whose counts are read from their stores: the most recently seen ones.
const MAX_SESSIONS: usize = 20;

/// One limit's line in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LimitUsage {
    pub id: String,
    /// `count: network-send` or `tool: mcp__github__*`.
    pub counts: String,
    pub per: &'static str,
    pub max: u64,
    pub effect: String,
    /// The highest count among the recent sessions, and that session.
    pub highest: u64,
    pub highest_session: Option<String>,
    /// Recent sessions whose count is at the max.
    pub sessions_at_max: u64,
    /// Calls the limit asked about or denied, in the log window, and in how many sessions.
    pub refused: u64,
    pub refused_sessions: u64,
}

#[derive(Deserialize)]
struct Line {
    #[serde(default)]
    at: u64,
    #[serde(default)]
    session: String,
    decision: Decision,
}

#[derive(Deserialize)]
struct Decision {
    #[serde(default)]
    rule: Option<String>,
}

/// The usage of every limit of `policy`, from the log at `audit` (entries at or after
/// `since_ms`) and the session stores under `data_dir`. A store that cannot be read counts
/// as 0 for that session (stats never fail on one bad session).
pub fn usage(
    policy: &Policy,
    audit: &Path,
    data_dir: &Path,
    since_ms: Option<u64>,
    now_ms: u64,
) -> std::io::Result<Vec<LimitUsage>> {
    if policy.limits.is_empty() {
        return Ok(Vec::new());
    }
    let mut last_seen: BTreeMap<String, u64> = BTreeMap::new();
    let mut refused: BTreeMap<String, (u64, std::collections::BTreeSet<String>)> = BTreeMap::new();
    let reader = std::io::BufReader::new(std::fs::File::open(audit)?);
    for line in reader.split(b'\n') {
        let Ok(l) = serde_json::from_slice::<Line>(&line?) else {
            continue;
        };
        if since_ms.is_some_and(|s| l.at < s) {
            continue;
        }
        last_seen.insert(l.session.clone(), l.at);
        if let Some(id) = l
            .decision
            .rule
            .as_deref()
            .and_then(|r| r.strip_prefix("policy:limit/"))
        {
            let e = refused.entry(id.to_string()).or_default();
            e.0 += 1;
            e.1.insert(l.session);
        }
    }
    let mut recent: Vec<(String, u64)> = last_seen.into_iter().collect();
    recent.sort_by_key(|r| std::cmp::Reverse(r.1));
    recent.truncate(MAX_SESSIONS);
    let uses: Vec<LimitUse> = policy
        .limits
        .iter()
        .map(|l| LimitUse {
            id: l.id.clone(),
            window_ms: (l.per == Per::Hour).then_some(crate::policy::limit_settings::HOUR_MS),
            max: l.max,
        })
        .collect();
    let store = LedgerStore::new(data_dir);
    let counts: Vec<(String, Vec<u64>)> = recent
        .iter()
        .map(|(s, _)| {
            let c = store
                .limit_counts(s, &uses, now_ms)
                .unwrap_or_else(|_| vec![0; uses.len()]);
            (s.clone(), c)
        })
        .collect();
    Ok(policy
        .limits
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let best = counts.iter().max_by_key(|(_, c)| c[i]);
            let (n, sessions) = refused.get(&l.id).cloned().unwrap_or_default();
            LimitUsage {
                id: l.id.clone(),
                counts: l.counted_as_written(),
                per: match l.per {
                    Per::Session => "session",
                    Per::Hour => "hour",
                },
                max: l.max,
                effect: l.effect.to_string(),
                highest: best.map_or(0, |(_, c)| c[i]),
                highest_session: best.filter(|(_, c)| c[i] > 0).map(|(s, _)| s.clone()),
                sessions_at_max: counts.iter().filter(|(_, c)| c[i] >= l.max).count() as u64,
                refused: n,
                refused_sessions: sessions.len() as u64,
            }
        })
        .collect())
}

/// The section as text, after the rest of `audit --stats`.
pub fn render(usage: &[LimitUsage]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    if usage.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "\nlimits (the policy in effect; counts of the {MAX_SESSIONS} most recent sessions):"
    );
    for u in usage {
        let window = if u.per == "hour" {
            "per rolling hour"
        } else {
            "per session"
        };
        let _ = writeln!(
            out,
            "  {} ({}, max {} {window}, then {}): highest {}/{}{}, {} session(s) at the max; \
             refused {} call(s) in {} session(s)",
            u.id,
            u.counts,
            u.max,
            u.effect,
            u.highest,
            u.max,
            u.highest_session
                .as_deref()
                .map(|s| format!(" (session {s})"))
                .unwrap_or_default(),
            u.sessions_at_max,
            u.refused,
            u.refused_sessions
        );
    }
    out
}
