//! `audit report`: the audit log as one self-contained HTML page (inline CSS and SVG, no
//! script, no network resource) — decisions over time, top rules, top refused commands,
//! sessions, chains caught, asks and their answers, and the risk layer's latency and answers.

use super::tail::{Answers, clip, format_time, subject};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Rows kept in each "top" table.
const TOP: usize = 15;
/// Bars in the decisions-over-time chart at most.
const MAX_BUCKETS: u64 = 48;

#[derive(Default)]
struct Session {
    calls: u64,
    asks: u64,
    denies: u64,
    first: u64,
    last: u64,
}

/// Everything the page shows, gathered in one pass over the log.
#[derive(Default)]
struct Gathered {
    entries: u64,
    calls: u64,
    first: Option<u64>,
    last: Option<u64>,
    by_effect: BTreeMap<String, u64>,
    /// (at, effect) of every call, for the chart.
    times: Vec<(u64, String)>,
    rules: BTreeMap<String, u64>,
    refused: BTreeMap<String, u64>,
    sessions: BTreeMap<String, Session>,
    /// (seq, at, summary, linked paths, effect).
    chains: Vec<(u64, u64, String, String, String)>,
    asks: Vec<u64>,
    risk_latency: Vec<u64>,
    risk_errors: u64,
    risk_cached: u64,
    risk_answers: BTreeMap<String, u64>,
    malformed: u64,
}

fn summary(v: &Value) -> String {
    let input = v.get("input").unwrap_or(&Value::Null);
    let what = subject(input)
        .or_else(|| v.get("tool").and_then(Value::as_str))
        .unwrap_or("(unknown tool)");
    clip(what, 120)
}

/// Escapes text for HTML content and attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn gather(text: &str, since_ms: Option<u64>) -> (Gathered, Answers) {
    let mut g = Gathered::default();
    let mut answers = Answers::default();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            g.malformed += 1;
            continue;
        };
        answers.observe(&v);
        let at = v.get("at").and_then(Value::as_u64).unwrap_or(0);
        if since_ms.is_some_and(|t| at < t) {
            continue;
        }
        g.entries += 1;
        g.first = Some(g.first.map_or(at, |f| f.min(at)));
        g.last = Some(g.last.map_or(at, |l| l.max(at)));
        let s = |p: &str| {
            v.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        if s("/event") == "PostToolUse" {
            continue;
        }
        g.calls += 1;
        let effect = s("/decision/effect");
        let seq = v.get("seq").and_then(Value::as_u64).unwrap_or(0);
        *g.by_effect.entry(effect.clone()).or_default() += 1;
        g.times.push((at, effect.clone()));
        let refused = effect == "ask" || effect == "deny";
        let rule = s("/decision/rule");
        if refused {
            if !rule.is_empty() {
                *g.rules.entry(rule.clone()).or_default() += 1;
            }
            *g.refused.entry(summary(&v)).or_default() += 1;
        }
        if effect == "ask" {
            g.asks.push(seq);
        }
        let sess = g.sessions.entry(s("/session")).or_insert(Session {
            first: at,
            ..Default::default()
        });
        sess.calls += 1;
        sess.asks += u64::from(effect == "ask");
        sess.denies += u64::from(effect == "deny");
        sess.last = sess.last.max(at);
        if let Some(chain) = v.get("chain").and_then(Value::as_array)
            && !chain.is_empty()
            && refused
        {
            let paths: Vec<String> = chain
                .iter()
                .map(|l| {
                    format!(
                        "{} (written at #{})",
                        l.get("path").and_then(Value::as_str).unwrap_or("?"),
                        l.get("seq").and_then(Value::as_u64).unwrap_or(0)
                    )
                })
                .collect();
            g.chains
                .push((seq, at, summary(&v), paths.join(", "), effect.clone()));
        }
        if let Some(risk) = v.get("risk").filter(|r| !r.is_null()) {
            if risk.get("cached").and_then(Value::as_bool) == Some(true) {
                g.risk_cached += 1;
            } else if let Some(ms) = risk.get("latency_ms").and_then(Value::as_u64) {
                g.risk_latency.push(ms);
            }
            if risk.get("error").is_some() {
                g.risk_errors += 1;
            }
            if s("/decision/source") == "risk" {
                *g.risk_answers.entry(effect.clone()).or_default() += 1;
            }
        }
    }
    (g, answers)
}

fn top(map: &BTreeMap<String, u64>) -> Vec<(&String, &u64)> {
    let mut v: Vec<_> = map.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    v.truncate(TOP);
    v
}

fn percentile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

const EFFECTS: [(&str, &str); 4] = [
    ("deny", "#c0392b"),
    ("ask", "#d68910"),
    ("allow", "#1e8449"),
    ("pass", "#95a5a6"),
];

/// The stacked bar chart of decisions over time, as inline SVG.
fn chart(g: &Gathered) -> String {
    let (Some(first), Some(last)) = (g.first, g.last) else {
        return "<p>No calls in this period.</p>".into();
    };
    let span = (last - first).max(1);
    let hour = 3_600_000u64;
    // Hours, or days when the log spans more than two days.
    let unit = if span > 2 * 24 * hour {
        24 * hour
    } else {
        hour
    };
    let start = first - first % unit;
    let mut n = (last - start) / unit + 1;
    let mut width_units = 1;
    while n > MAX_BUCKETS {
        width_units *= 2;
        n = (last - start) / (unit * width_units) + 1;
    }
    let bucket = unit * width_units;
    let mut counts = vec![[0u64; 4]; n as usize];
    for (at, effect) in &g.times {
        let i = ((at - start) / bucket) as usize;
        if let Some(k) = EFFECTS.iter().position(|(e, _)| e == effect) {
            let last = counts.len() - 1;
            counts[i.min(last)][k] += 1;
        }
    }
    let max = counts
        .iter()
        .map(|c| c.iter().sum::<u64>())
        .max()
        .unwrap_or(1)
        .max(1);
    let (w, h) = (720.0, 200.0);
    let bw = w / n as f64;
    let mut svg = format!(
        "<svg id=\"timeline\" role=\"img\" aria-label=\"decisions over time\" viewBox=\"0 0 {w} {}\" width=\"{w}\" height=\"{}\">",
        h + 20.0,
        h + 20.0
    );
    for (i, c) in counts.iter().enumerate() {
        let mut y = h;
        for (k, (effect, colour)) in EFFECTS.iter().enumerate() {
            if c[k] == 0 {
                continue;
            }
            let bh = c[k] as f64 / max as f64 * h;
            y -= bh;
            let _ = write!(
                svg,
                "<rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bh:.1}\" fill=\"{colour}\"><title>{}: {} {effect}</title></rect>",
                i as f64 * bw + 1.0,
                (bw - 2.0).max(1.0),
                esc(&format_time(start + i as u64 * bucket)[..16]),
                c[k]
            );
        }
    }
    let _ = write!(
        svg,
        "<text x=\"0\" y=\"{}\" font-size=\"11\">{}</text><text x=\"{w}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{}</text></svg>",
        h + 15.0,
        esc(&format_time(start)[..16]),
        h + 15.0,
        esc(&format_time(last)[..16])
    );
    let legend: Vec<String> = EFFECTS
        .iter()
        .map(|(e, c)| format!("<span class=\"key\" style=\"background:{c}\"></span>{e}"))
        .collect();
    format!(
        "{svg}<p class=\"legend\">{} — one bar per {}.</p>",
        legend.join(" "),
        if unit == hour {
            format!("{width_units} h")
        } else {
            format!("{width_units} d")
        }
    )
}

fn table(id: &str, head: &[&str], rows: Vec<Vec<String>>, empty: &str) -> String {
    if rows.is_empty() {
        return format!("<p id=\"{id}\" class=\"empty\">{}</p>", esc(empty));
    }
    let mut t = format!("<table id=\"{id}\"><thead><tr>");
    for h in head {
        let _ = write!(t, "<th>{}</th>", esc(h));
    }
    t.push_str("</tr></thead><tbody>");
    for r in rows {
        t.push_str("<tr>");
        for c in r {
            let _ = write!(t, "<td>{}</td>", esc(&c));
        }
        t.push_str("</tr>");
    }
    t.push_str("</tbody></table>");
    t
}

/// Renders the page for the log at `path` (entries at or after `since_ms` only).
pub fn report(path: &Path, since_ms: Option<u64>) -> std::io::Result<String> {
    let text = std::fs::read_to_string(path)?;
    let (g, answers) = gather(&text, since_ms);
    let mut h = String::new();
    h.push_str("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>palisade audit report</title><style>");
    h.push_str("body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:60em;color:#222}h1{font-size:1.6em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.2em .5em;border-bottom:1px solid #eee;vertical-align:top}td:first-child{font-family:ui-monospace,monospace;word-break:break-all}.num{text-align:right}.key{display:inline-block;width:.8em;height:.8em;margin:0 .3em 0 .8em}.empty{color:#777}.figures span{display:inline-block;margin-right:2em}");
    h.push_str("</style></head><body>");
    let period = match (g.first, g.last) {
        (Some(a), Some(b)) => format!("{} to {}", format_time(a), format_time(b)),
        _ => "no entries".into(),
    };
    let _ = write!(
        h,
        "<h1>palisade audit report</h1><p>{} — {}{}</p>",
        esc(&path.display().to_string()),
        esc(&period),
        if g.malformed > 0 {
            format!(" — {} malformed lines skipped", g.malformed)
        } else {
            String::new()
        }
    );
    let count = |e: &str| g.by_effect.get(e).copied().unwrap_or(0);
    let approved = g.asks.iter().filter(|s| answers.approved(**s)).count();
    let _ = write!(
        h,
        "<p class=\"figures\" id=\"figures\"><span>{} calls</span><span>{} denied</span><span>{} asked ({approved} approved, {} not)</span><span>{} allowed</span><span>{} no opinion</span><span>{} chains caught</span></p>",
        g.calls,
        count("deny"),
        count("ask"),
        g.asks.len() - approved,
        count("allow"),
        count("pass"),
        g.chains.len()
    );
    h.push_str("<h2>Decisions over time</h2>");
    h.push_str(&chart(&g));

    h.push_str("<h2>Top rules (asks and denies)</h2>");
    let rows = top(&g.rules)
        .into_iter()
        .map(|(r, n)| vec![r.clone(), n.to_string()])
        .collect();
    h.push_str(&table(
        "top-rules",
        &["rule", "refusals"],
        rows,
        "No refusals.",
    ));

    h.push_str("<h2>Top refused calls</h2>");
    let rows = top(&g.refused)
        .into_iter()
        .map(|(r, n)| vec![r.clone(), n.to_string()])
        .collect();
    h.push_str(&table(
        "top-refused",
        &["call", "times"],
        rows,
        "No refusals.",
    ));

    h.push_str("<h2>Chains caught (a file the agent wrote, then ran)</h2>");
    let rows = g
        .chains
        .iter()
        .map(|(seq, at, what, paths, effect)| {
            vec![
                what.clone(),
                format!("#{seq}"),
                format_time(*at),
                effect.clone(),
                paths.clone(),
            ]
        })
        .collect();
    h.push_str(&table(
        "chains",
        &["run", "entry", "time", "decision", "runs what was written"],
        rows,
        "No write-then-run chain was refused.",
    ));

    h.push_str("<h2>Sessions</h2>");
    let mut sessions: Vec<_> = g.sessions.iter().collect();
    sessions.sort_by_key(|s| std::cmp::Reverse(s.1.last));
    let rows = sessions
        .into_iter()
        .take(50)
        .map(|(id, s)| {
            vec![
                if id.is_empty() {
                    "(none)".into()
                } else {
                    id.clone()
                },
                s.calls.to_string(),
                s.asks.to_string(),
                s.denies.to_string(),
                format_time(s.first),
                format_time(s.last),
            ]
        })
        .collect();
    h.push_str(&table(
        "sessions",
        &["session", "calls", "asks", "denies", "first", "last"],
        rows,
        "No sessions.",
    ));

    h.push_str("<h2>Risk layer</h2>");
    let mut lat = g.risk_latency.clone();
    lat.sort_unstable();
    if lat.is_empty() && g.risk_cached == 0 && g.risk_errors == 0 {
        h.push_str(
            "<p id=\"risk\" class=\"empty\">The risk layer was not asked in this period.</p>",
        );
    } else {
        let answers: Vec<String> = g
            .risk_answers
            .iter()
            .map(|(e, n)| format!("{n} {e}"))
            .collect();
        let _ = write!(
            h,
            "<p id=\"risk\">{} calls to the backend, {} answered from the cache, {} failures. Latency p50 {} ms, p95 {} ms, max {} ms. Decided by the risk layer: {}.</p>",
            lat.len(),
            g.risk_cached,
            g.risk_errors,
            percentile(&lat, 0.5),
            percentile(&lat, 0.95),
            lat.last().copied().unwrap_or(0),
            if answers.is_empty() {
                "none".to_string()
            } else {
                answers.join(", ")
            }
        );
    }
    h.push_str("<p class=\"empty\">Written by <code>palisade audit report</code>. Entries are as recorded; <code>palisade audit verify</code> checks the chain.</p></body></html>\n");
    Ok(h)
}
