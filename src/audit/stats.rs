//! `audit --stats`: one streaming pass over the log with bounded memory — capped count maps,
//! a space-saving top-k for denied commands, and log-spaced latency histograms.

use serde::{Deserialize, Serialize, de::IgnoredAny};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Distinct keys kept per breakdown; the rest are counted under [`OTHER`].
const MAX_KEYS: usize = 10_000;
/// Bucket name for keys beyond [`MAX_KEYS`].
const OTHER: &str = "(other)";
/// Counters of the space-saving top-k of denied commands.
const TOP_CAPACITY: usize = 512;
/// How many denied commands are reported.
const TOP_N: usize = 10;
/// Histogram buckets per power of two (≈9 % relative error).
const BUCKETS_PER_OCTAVE: f64 = 8.0;
/// Longest denied-command key kept (characters).
const MAX_TARGET_CHARS: usize = 200;

/// A fixed histogram of log-spaced buckets: constant memory, percentiles within ≈9 %.
#[derive(Debug, Clone)]
pub struct LogHistogram {
    buckets: Vec<u64>,
    count: u64,
    max: u64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        LogHistogram {
            buckets: vec![0; 64 * BUCKETS_PER_OCTAVE as usize + 2],
            count: 0,
            max: 0,
        }
    }
}

impl LogHistogram {
    fn index(v: u64) -> usize {
        if v == 0 {
            0
        } else {
            1 + ((v as f64).log2() * BUCKETS_PER_OCTAVE) as usize
        }
    }

    /// Records one value.
    pub fn record(&mut self, v: u64) {
        let i = Self::index(v).min(self.buckets.len() - 1);
        self.buckets[i] += 1;
        self.count += 1;
        self.max = self.max.max(v);
    }

    /// The value below which a fraction `q` of the records fall (the bucket's upper bound,
    /// never above the largest value seen); `None` when empty.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (i, &n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                let upper = if i == 0 {
                    0
                } else {
                    (2f64.powf(i as f64 / BUCKETS_PER_OCTAVE)).floor() as u64
                };
                return Some(upper.min(self.max));
            }
        }
        Some(self.max)
    }

    fn summary(&self) -> Percentiles {
        Percentiles {
            count: self.count,
            p50: self.quantile(0.50),
            p95: self.quantile(0.95),
            p99: self.quantile(0.99),
            max: (self.count > 0).then_some(self.max),
        }
    }
}

/// Percentiles of one histogram.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Percentiles {
    pub count: u64,
    pub p50: Option<u64>,
    pub p95: Option<u64>,
    pub p99: Option<u64>,
    pub max: Option<u64>,
}

/// Space-saving top-k (Metwally et al.): at most `TOP_CAPACITY` counters; counts of keys that
/// were evicted and came back are overestimated by at most the evicted count.
#[derive(Debug, Default)]
struct TopK {
    counts: HashMap<String, u64>,
}

impl TopK {
    fn add(&mut self, key: &str) {
        if let Some(c) = self.counts.get_mut(key) {
            *c += 1;
            return;
        }
        if self.counts.len() < TOP_CAPACITY {
            self.counts.insert(key.to_string(), 1);
            return;
        }
        // Evict the smallest counter; the newcomer inherits its count + 1.
        let (min_key, min) = match self.counts.iter().min_by_key(|(_, c)| **c) {
            Some((k, c)) => (k.clone(), *c),
            None => return,
        };
        self.counts.remove(&min_key);
        self.counts.insert(key.to_string(), min + 1);
    }

    fn top(&self, n: usize) -> Vec<Counted> {
        let mut v: Vec<Counted> = self
            .counts
            .iter()
            .map(|(k, c)| Counted {
                target: k.clone(),
                count: *c,
            })
            .collect();
        v.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.target.cmp(&b.target)));
        v.truncate(n);
        v
    }
}

/// A denied command (or file) and how often it was denied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Counted {
    pub target: String,
    pub count: u64,
}

/// Risk backend figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BackendStats {
    /// Entries whose `risk` record is not a cache hit.
    pub calls: u64,
    /// Of those, records with an `error`.
    pub failures: u64,
    pub cached: u64,
    pub latency_ms: Percentiles,
}

/// Everything `audit --stats` reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatsReport {
    /// Entries counted (after `--since`).
    pub entries: u64,
    /// PreToolUse entries: the decisions the breakdowns count.
    pub decisions: u64,
    /// Lines that were not readable entries (skipped).
    pub malformed: u64,
    pub since_ms: Option<u64>,
    pub first_at: Option<u64>,
    pub last_at: Option<u64>,
    pub by_event: BTreeMap<String, u64>,
    pub by_effect: BTreeMap<String, u64>,
    pub by_tool: BTreeMap<String, u64>,
    pub by_rule: BTreeMap<String, u64>,
    pub by_category: BTreeMap<String, u64>,
    pub by_source: BTreeMap<String, u64>,
    pub top_denied: Vec<Counted>,
    /// Decisions with a write-then-run chain that were asked or denied.
    pub chains_caught: u64,
    /// Hook latency over every entry, microseconds.
    pub latency_us: Percentiles,
    pub backend: BackendStats,
    /// Policy drift and bypass alerts (`audit::usage`).
    pub alerts: super::usage::AlertStats,
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(default)]
    at: u64,
    #[serde(borrow, default)]
    event: Cow<'a, str>,
    #[serde(borrow, default)]
    tool: Cow<'a, str>,
    #[serde(borrow, default)]
    input: Option<Input<'a>>,
    #[serde(borrow)]
    decision: Decision<'a>,
    #[serde(default)]
    chain: Option<Vec<IgnoredAny>>,
    #[serde(default)]
    risk: Option<Risk>,
    #[serde(default)]
    latency_us: u64,
    #[serde(borrow, default)]
    session: Cow<'a, str>,
    #[serde(borrow, default)]
    alerts: Vec<super::usage::AlertLine<'a>>,
}

#[derive(Deserialize)]
struct Input<'a> {
    #[serde(borrow, default)]
    command: Option<Text<'a>>,
    #[serde(borrow, default)]
    file_path: Option<Text<'a>>,
}

/// A field that is usually a string but may be anything in a hostile input.
#[derive(Deserialize)]
#[serde(untagged)]
enum Text<'a> {
    Str(#[serde(borrow)] Cow<'a, str>),
    Other(IgnoredAny),
}

impl Text<'_> {
    fn as_str(&self) -> Option<&str> {
        match self {
            Text::Str(s) => Some(s),
            Text::Other(_) => None,
        }
    }
}

#[derive(Deserialize)]
struct Decision<'a> {
    #[serde(borrow)]
    effect: Cow<'a, str>,
    #[serde(borrow, default)]
    rule: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    category: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    source: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Risk {
    #[serde(default)]
    error: Option<IgnoredAny>,
    #[serde(default)]
    latency_ms: Option<f64>,
    #[serde(default)]
    cached: Option<bool>,
}

fn bump(map: &mut BTreeMap<String, u64>, key: &str) {
    if let Some(c) = map.get_mut(key) {
        *c += 1;
    } else if map.len() < MAX_KEYS {
        map.insert(key.to_string(), 1);
    } else {
        *map.entry(OTHER.to_string()).or_insert(0) += 1;
    }
}

/// Streams the log at `path` and aggregates the entries at or after `since_ms`.
pub fn stats(path: &Path, since_ms: Option<u64>) -> std::io::Result<StatsReport> {
    let file = std::fs::File::open(path)?;
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let mut report = StatsReport {
        entries: 0,
        decisions: 0,
        malformed: 0,
        since_ms,
        first_at: None,
        last_at: None,
        by_event: BTreeMap::new(),
        by_effect: BTreeMap::new(),
        by_tool: BTreeMap::new(),
        by_rule: BTreeMap::new(),
        by_category: BTreeMap::new(),
        by_source: BTreeMap::new(),
        top_denied: Vec::new(),
        chains_caught: 0,
        latency_us: LogHistogram::default().summary(),
        backend: BackendStats {
            calls: 0,
            failures: 0,
            cached: 0,
            latency_ms: LogHistogram::default().summary(),
        },
        alerts: Default::default(),
    };
    let mut alerts = super::usage::AlertTally::default();
    let mut latency = LogHistogram::default();
    let mut backend_latency = LogHistogram::default();
    let mut top = TopK::default();
    let mut buf = Vec::with_capacity(4096);
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 || buf.last() != Some(&b'\n') {
            // An unterminated last line is an append in progress (or torn: `verify` reports it).
            break;
        }
        let Ok(line) = serde_json::from_slice::<Line<'_>>(&buf) else {
            report.malformed += 1;
            continue;
        };
        if since_ms.is_some_and(|s| line.at < s) {
            continue;
        }
        report.entries += 1;
        report.first_at.get_or_insert(line.at);
        report.last_at = Some(line.at);
        bump(&mut report.by_event, &line.event);
        alerts.observe(&line.session, &line.tool, line.at, &line.alerts);
        latency.record(line.latency_us);
        if let Some(risk) = &line.risk {
            if risk.cached == Some(true) {
                report.backend.cached += 1;
            } else {
                report.backend.calls += 1;
                if risk.error.is_some() {
                    report.backend.failures += 1;
                }
                if let Some(ms) = risk.latency_ms.filter(|m| m.is_finite() && *m >= 0.0) {
                    backend_latency.record(ms.round() as u64);
                }
            }
        }
        if line.event == "PostToolUse" {
            continue;
        }
        report.decisions += 1;
        let d = &line.decision;
        bump(&mut report.by_effect, &d.effect);
        bump(&mut report.by_tool, &line.tool);
        bump(&mut report.by_rule, d.rule.as_deref().unwrap_or("(none)"));
        bump(
            &mut report.by_category,
            d.category.as_deref().unwrap_or("(none)"),
        );
        bump(
            &mut report.by_source,
            d.source.as_deref().unwrap_or("(none)"),
        );
        let blocked = d.effect == "deny" || d.effect == "ask";
        if blocked && line.chain.as_ref().is_some_and(|c| !c.is_empty()) {
            report.chains_caught += 1;
        }
        if d.effect == "deny" {
            let target = line
                .input
                .as_ref()
                .and_then(|i| {
                    i.command
                        .as_ref()
                        .and_then(Text::as_str)
                        .or_else(|| i.file_path.as_ref().and_then(Text::as_str))
                })
                .unwrap_or(&line.tool);
            let short: String = target.chars().take(MAX_TARGET_CHARS).collect();
            top.add(&short);
        }
    }
    report.top_denied = top.top(TOP_N);
    report.latency_us = latency.summary();
    report.backend.latency_ms = backend_latency.summary();
    report.alerts = alerts.finish();
    Ok(report)
}

fn fmt_opt(v: Option<u64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// The human-readable report.
pub fn render(r: &StatsReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "entries: {}  decisions (PreToolUse): {}  malformed lines skipped: {}",
        r.entries, r.decisions, r.malformed
    );
    if let (Some(a), Some(b)) = (r.first_at, r.last_at) {
        let _ = writeln!(
            out,
            "from {} to {}",
            super::tail::format_time(a),
            super::tail::format_time(b)
        );
    }
    let table = |out: &mut String, title: &str, map: &BTreeMap<String, u64>, limit: usize| {
        let _ = writeln!(out, "\n{title}:");
        let mut rows: Vec<(&String, &u64)> = map.iter().collect();
        rows.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        for (k, v) in rows.iter().take(limit) {
            let _ = writeln!(out, "  {v:>10}  {k}");
        }
        if rows.len() > limit {
            let _ = writeln!(out, "  {:>10}  … {} more", "", rows.len() - limit);
        }
    };
    table(&mut out, "by event", &r.by_event, 20);
    table(&mut out, "by effect", &r.by_effect, 20);
    table(&mut out, "by source", &r.by_source, 20);
    table(&mut out, "by tool", &r.by_tool, 20);
    table(&mut out, "by rule", &r.by_rule, 20);
    table(&mut out, "by category", &r.by_category, 20);
    let _ = writeln!(out, "\ntop denied:");
    for c in &r.top_denied {
        let _ = writeln!(out, "  {:>10}  {}", c.count, one_line(&c.target));
    }
    let _ = writeln!(
        out,
        "\nchains caught (write-then-run, asked or denied): {}",
        r.chains_caught
    );
    let l = &r.latency_us;
    let _ = writeln!(
        out,
        "hook latency (µs): p50 {}  p95 {}  p99 {}  max {}",
        fmt_opt(l.p50),
        fmt_opt(l.p95),
        fmt_opt(l.p99),
        fmt_opt(l.max)
    );
    let b = &r.backend;
    let _ = writeln!(
        out,
        "risk backend: {} calls, {} failures, {} cache hits; latency (ms): p50 {}  p95 {}  p99 {}",
        b.calls,
        b.failures,
        b.cached,
        fmt_opt(b.latency_ms.p50),
        fmt_opt(b.latency_ms.p95),
        fmt_opt(b.latency_ms.p99)
    );
    out.push_str(&super::usage::render_alerts(&r.alerts));
    out
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r', '\t'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_are_close() {
        let mut h = LogHistogram::default();
        for v in 1..=1000u64 {
            h.record(v);
        }
        let p50 = h.quantile(0.5).unwrap();
        assert!((460..=560).contains(&p50), "p50 {p50}");
        let p99 = h.quantile(0.99).unwrap();
        assert!((930..=1000).contains(&p99), "p99 {p99}");
        assert_eq!(LogHistogram::default().quantile(0.5), None);
    }

    #[test]
    fn top_k_keeps_the_heavy_hitters() {
        let mut t = TopK::default();
        for i in 0..10_000 {
            t.add(&format!("noise-{i}"));
            if i % 10 == 0 {
                t.add("rm -rf /");
            }
        }
        let top = t.top(1);
        assert_eq!(top[0].target, "rm -rf /");
        assert!(t.counts.len() <= TOP_CAPACITY);
    }
}
