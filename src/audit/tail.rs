//! `audit tail`: the last calls, one line of at most 100 columns each (or JSON), filtered,
//! with the user's answer to each ask, optionally following the log.

use serde_json::Value;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::Duration;

/// Longest summary of a call shown on a line (characters).
const SUMMARY_CHARS: usize = 80;
/// How often `--follow` looks for new lines.
const POLL: Duration = Duration::from_millis(300);

/// `YYYY-MM-DD HH:MM:SS.mmmZ` for milliseconds since the epoch (UTC).
pub fn format_time(ms: u64) -> String {
    let secs = ms / 1000;
    let (h, m, s) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
    // Civil-from-days (Howard Hinnant), valid for every u64 day count we can meet.
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!(
        "{y:04}-{mo:02}-{d:02} {h:02}:{m:02}:{s:02}.{:03}Z",
        ms % 1000
    )
}

/// `s` on one line, cut to `n` characters with an ellipsis.
pub(crate) fn clip(s: &str, n: usize) -> String {
    let flat = s.replace(['\n', '\r', '\t'], " ");
    if flat.chars().count() <= n {
        flat
    } else {
        let mut out: String = flat.chars().take(n.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// The field of a tool input that says what the call was about: command, path, URL or pattern.
pub(crate) fn subject(input: &Value) -> Option<&str> {
    [
        "command",
        "file_path",
        "notebook_path",
        "url",
        "pattern",
        "path",
        "query",
    ]
    .into_iter()
    .find_map(|key| input.get(key).and_then(Value::as_str))
}

/// What a call was about, in a few words: its command, path, URL or pattern.
fn summary(input: &Value) -> String {
    if let Some(s) = subject(input) {
        return clip(s, SUMMARY_CHARS);
    }
    clip(&input.to_string(), SUMMARY_CHARS)
}

/// Width of a tail line, in columns.
pub const LINE_WIDTH: usize = 100;

/// What `audit tail` shows and how.
#[derive(Debug, Clone, Default)]
pub struct TailOptions {
    /// How many calls (the last ones that pass the filters).
    pub n: usize,
    pub follow: bool,
    /// Only this decision: `allow`, `ask`, `deny`, `pass`.
    pub effect: Option<String>,
    pub session: Option<String>,
    /// Only decisions whose rule id contains this (`destructive-fs`, `rm-critical`).
    pub rule: Option<String>,
    /// Only entries at or after this time (ms since the epoch).
    pub since_ms: Option<u64>,
    /// One JSON object per line (the entry, with `answer` on asks) instead of text.
    pub json: bool,
    /// ANSI colour for the decision (the caller decides: a terminal, and no `NO_COLOR`).
    pub colour: bool,
}

impl TailOptions {
    fn keeps(&self, v: &Value) -> bool {
        let s = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or("");
        // A PostToolUse is not a call of its own, unless the hook never saw its call.
        if s("/event") == "PostToolUse" && !has_alert(v, "bypass") {
            return false;
        }
        self.effect
            .as_deref()
            .is_none_or(|e| s("/decision/effect") == e)
            && self.session.as_deref().is_none_or(|x| s("/session") == x)
            && self
                .rule
                .as_deref()
                .is_none_or(|r| s("/decision/rule").contains(r))
            && self
                .since_ms
                .is_none_or(|t| v.get("at").and_then(Value::as_u64).unwrap_or(0) >= t)
    }
}

/// The user's answers to asks, read from the log: Claude Code sends a PostToolUse only for a
/// tool that ran, so an ask followed by the PostToolUse of the same call (session, tool and
/// input) was approved; one without was not (declined, or not answered yet).
#[derive(Debug, Default)]
pub struct Answers {
    /// Asks still waiting for their PostToolUse: call key → seqs, oldest first.
    pending: std::collections::HashMap<String, Vec<u64>>,
    approved: std::collections::HashSet<u64>,
}

impl Answers {
    fn key(v: &Value) -> String {
        let s = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or("");
        format!(
            "{}\u{0}{}\u{0}{}",
            s("/session"),
            s("/tool"),
            v.get("input").map(Value::to_string).unwrap_or_default()
        )
    }

    /// Takes one entry in log order; returns the seq of the ask a PostToolUse approves.
    pub fn observe(&mut self, v: &Value) -> Option<u64> {
        let seq = v.get("seq").and_then(Value::as_u64).unwrap_or(0);
        let event = v.get("event").and_then(Value::as_str).unwrap_or("");
        let effect = v.pointer("/decision/effect").and_then(Value::as_str);
        if event == "PostToolUse" {
            let asks = self.pending.get_mut(&Self::key(v))?;
            let ask = asks.remove(0);
            if asks.is_empty() {
                self.pending.remove(&Self::key(v));
            }
            self.approved.insert(ask);
            return Some(ask);
        }
        if effect == Some("ask") {
            self.pending.entry(Self::key(v)).or_default().push(seq);
        }
        None
    }

    /// True when the ask with this seq was approved.
    pub fn approved(&self, seq: u64) -> bool {
        self.approved.contains(&seq)
    }
}

fn paint(text: &str, effect: &str, colour: bool) -> String {
    let code = match effect {
        "deny" => "31",
        "ask" => "33",
        "allow" => "32",
        _ => return text.to_string(),
    };
    if colour {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// One call as one line of at most [`LINE_WIDTH`] columns: time (UTC), `#seq`, the decision
/// (`ask:yes` approved, `ask:no` not approved, `ask` while following and not answered yet),
/// tool, what the call was about, `[rule]`, and `chain` for a write-then-run link.
pub fn format_line(v: &Value, answer: Option<bool>, colour: bool) -> String {
    let s = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or("");
    let at = v.get("at").and_then(Value::as_u64).unwrap_or(0);
    let seq = v.get("seq").and_then(Value::as_u64).unwrap_or(0);
    let effect = s("/decision/effect");
    let shown = match (effect, answer) {
        // The tool ran with no PreToolUse decision: the hook did not see the call.
        _ if has_alert(v, "bypass") => "bypass".to_string(),
        ("ask", Some(true)) => "ask:yes".to_string(),
        ("ask", Some(false)) => "ask:no".to_string(),
        (e, _) => e.to_string(),
    };
    // `MM-DD HH:MM:SS` of the UTC time.
    let time = &format_time(at)[5..19];
    let head = format!("{time} #{seq:<5} {shown:<7} {:<12} ", clip(s("/tool"), 12));
    let mut tail = String::new();
    let rule = s("/decision/rule");
    if !rule.is_empty() {
        tail = format!(" [{}]", clip(rule, 40));
    }
    if v.get("chain")
        .and_then(Value::as_array)
        .is_some_and(|c| !c.is_empty())
    {
        tail.push_str(" chain");
    }
    if has_alert(v, "policy-drift") {
        tail.push_str(" drift");
    }
    let room = LINE_WIDTH.saturating_sub(head.chars().count() + tail.chars().count());
    let what = summary(v.get("input").unwrap_or(&Value::Null));
    let line_len_ok = format!("{head}{}{tail}", clip(&what, room.max(8)));
    // Colour only around the decision, so the width stays the visible width.
    // A bypass is painted like a deny: it is what the user must look at.
    let colour_of = if shown == "bypass" { "deny" } else { effect };
    line_len_ok.replacen(&shown, &paint(&shown, colour_of, colour), 1)
}

/// True when the entry carries an alert of `kind` (`bypass`, `policy-drift`).
fn has_alert(v: &Value, kind: &str) -> bool {
    v.get("alerts")
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|x| x["kind"] == kind))
}

fn emit(
    v: &Value,
    answer: Option<bool>,
    opts: &TailOptions,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if opts.json {
        let mut v = v.clone();
        if let (Some(a), Some(o)) = (answer, v.as_object_mut()) {
            o.insert(
                "answer".into(),
                Value::from(if a { "approved" } else { "not approved" }),
            );
        }
        writeln!(out, "{v}")
    } else {
        writeln!(out, "{}", format_line(v, answer, opts.colour))
    }
}

/// Prints the last `opts.n` calls of `path` that pass the filters; with `follow`, keeps
/// printing new ones (and the approval of an ask when its PostToolUse arrives) until killed.
pub fn tail(path: &Path, opts: &TailOptions, out: &mut dyn Write) -> std::io::Result<()> {
    let bytes = std::fs::read(path)?;
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut answers = Answers::default();
    let mut kept: Vec<Value> = Vec::new();
    let mut malformed = 0usize;
    for line in bytes[..complete].split(|&b| b == b'\n') {
        if line.is_empty() {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            malformed += 1;
            continue;
        };
        answers.observe(&v);
        if opts.keeps(&v) {
            kept.push(v);
        }
    }
    let from = kept.len().saturating_sub(opts.n);
    let mut shown: std::collections::HashSet<u64> = std::collections::HashSet::new();
    for v in &kept[from..] {
        let seq = v.get("seq").and_then(Value::as_u64).unwrap_or(0);
        let is_ask = v.pointer("/decision/effect").and_then(Value::as_str) == Some("ask");
        shown.insert(seq);
        emit(v, is_ask.then(|| answers.approved(seq)), opts, out)?;
    }
    if malformed > 0 && !opts.json {
        writeln!(
            out,
            "({malformed} malformed lines skipped; `palisade audit verify` checks the log)"
        )?;
    }
    if complete < bytes.len() && !opts.follow && !opts.json {
        writeln!(out, "(the last line is torn: no trailing newline)")?;
    }
    out.flush()?;
    if !opts.follow {
        return Ok(());
    }
    let mut file = std::fs::File::open(path)?;
    // Start after the last complete line, so a line being written is printed once complete.
    let mut pos = complete as u64;
    let mut partial: Vec<u8> = Vec::new();
    loop {
        std::thread::sleep(POLL);
        let len = file.metadata()?.len();
        if len < pos {
            writeln!(
                out,
                "(the log shrank from {pos} to {len} bytes: truncated or rotated)"
            )?;
            pos = len;
            partial.clear();
            continue;
        }
        if len == pos {
            continue;
        }
        file.seek(SeekFrom::Start(pos))?;
        let mut chunk = Vec::new();
        (&mut file).take(len - pos).read_to_end(&mut chunk)?;
        pos = len;
        partial.extend_from_slice(&chunk);
        while let Some(i) = partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = partial.drain(..=i).collect();
            let Ok(v) = serde_json::from_slice::<Value>(&line[..line.len() - 1]) else {
                continue;
            };
            if let Some(ask) = answers.observe(&v) {
                if shown.contains(&ask) && !opts.json {
                    writeln!(out, "{:>20} #{ask} approved: the tool ran", "")?;
                } else if shown.contains(&ask) {
                    writeln!(
                        out,
                        "{}",
                        serde_json::json!({"seq": ask, "answer": "approved"})
                    )?;
                }
            } else if opts.keeps(&v) {
                if let Some(seq) = v.get("seq").and_then(Value::as_u64) {
                    shown.insert(seq);
                }
                emit(&v, None, opts, out)?;
            }
        }
        out.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_times() {
        assert_eq!(format_time(0), "1970-01-01 00:00:00.000Z");
        assert_eq!(format_time(1_709_210_096_789), "2024-02-29 12:34:56.789Z");
    }
}
