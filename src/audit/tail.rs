//! `audit tail`: the last entries, one human-readable line each, optionally following the log.

use super::append::tail_lines;
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

fn clip(s: &str, n: usize) -> String {
    let flat = s.replace(['\n', '\r', '\t'], " ");
    if flat.chars().count() <= n {
        flat
    } else {
        let mut out: String = flat.chars().take(n.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// What a call was about, in a few words: its command, path, URL or pattern.
fn summary(input: &Value) -> String {
    for key in [
        "command",
        "file_path",
        "notebook_path",
        "url",
        "pattern",
        "path",
        "query",
    ] {
        if let Some(s) = input.get(key).and_then(Value::as_str) {
            return clip(s, SUMMARY_CHARS);
        }
    }
    clip(&input.to_string(), SUMMARY_CHARS)
}

/// One entry as a line: time, seq, effect, event, tool, summary, rule and reason.
pub fn format_entry(line: &[u8]) -> String {
    let Ok(v) = serde_json::from_slice::<Value>(line) else {
        return format!(
            "(malformed line) {}",
            clip(&String::from_utf8_lossy(line), 120)
        );
    };
    let s = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or("");
    let at = v.get("at").and_then(Value::as_u64).unwrap_or(0);
    let seq = v.get("seq").and_then(Value::as_u64).unwrap_or(0);
    let event = if s("/event") == "PostToolUse" {
        "post"
    } else {
        "pre"
    };
    let mut out = format!(
        "{} #{seq} {:<5} {:<4} {} {}",
        format_time(at),
        s("/decision/effect"),
        event,
        s("/tool"),
        summary(v.get("input").unwrap_or(&Value::Null)),
    );
    let rule = s("/decision/rule");
    if !rule.is_empty() {
        out.push_str(&format!(" [{rule}]"));
    }
    let reason = s("/decision/reason");
    if !reason.is_empty() {
        out.push_str(" — ");
        out.push_str(&clip(reason, 160));
    }
    if v.get("chain")
        .and_then(Value::as_array)
        .is_some_and(|c| !c.is_empty())
    {
        out.push_str(" (chain)");
    }
    out
}

/// Prints the last `n` entries of `path`; with `follow`, keeps printing new ones until killed.
pub fn tail(path: &Path, n: usize, follow: bool, out: &mut dyn Write) -> std::io::Result<()> {
    let super::append::Tail { lines, torn } = tail_lines(path, n)?;
    for line in &lines {
        writeln!(out, "{}", format_entry(line))?;
    }
    if torn.is_some() && !follow {
        writeln!(out, "(the last line is torn: no trailing newline)")?;
    }
    out.flush()?;
    if !follow {
        return Ok(());
    }
    let mut file = std::fs::File::open(path)?;
    // Start after the last complete line, so a line being written is printed once complete.
    let mut pos = file.metadata()?.len() - torn.map_or(0, |t| t.len() as u64);
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
            writeln!(out, "{}", format_entry(&line[..line.len() - 1]))?;
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
