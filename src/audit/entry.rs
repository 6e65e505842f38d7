//! One audit entry: what was decided about one call, linked to the entry before it.

use super::canonical::write_canonical;
use crate::event::HookEvent;
use crate::redact::{redact_text, redact_tool_input, redact_value};
use crate::verdict::{Alert, ChainLink, Verdict};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Longest string value kept whole in `input`; longer ones (a Write of a big file) keep their
/// head and a note with their size and sha256, so the log stays small and appends stay fast.
pub const MAX_INPUT_STRING: usize = 16 * 1024;

/// Deepest nesting kept in `input`; deeper values are replaced by a note.
const MAX_INPUT_DEPTH: usize = 128;

/// `prev` of the first entry of a chain.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The decision part of an entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditDecision {
    /// `allow`, `ask`, `deny`, or `pass` (no opinion; every PostToolUse entry).
    pub effect: String,
    pub rule: Option<String>,
    pub reason: String,
    /// `static`, `ledger`, `risk` or `error`.
    pub source: String,
    pub category: Option<String>,
}

/// One line of the audit log. Every field is always present (`chain` is `[]` and `risk` is
/// `null` when there are none), so that every entry has the same shape for verifiers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// 1 for the first entry, then +1 per entry, no gaps.
    pub seq: u64,
    /// Milliseconds since the Unix epoch, taken under the append lock.
    pub at: u64,
    pub session: String,
    /// `PreToolUse` or `PostToolUse`.
    pub event: String,
    pub tool: String,
    /// The redacted `tool_input`.
    pub input: Value,
    pub decision: AuditDecision,
    pub chain: Vec<ChainLink>,
    pub risk: Option<Value>,
    /// Microseconds from process start to just before the append.
    pub latency_us: u64,
    /// What the hook flagged about the call (policy drift, a call the PreToolUse hook never
    /// saw). The one field written only when it has something to say, so entries without
    /// alerts keep the shape (and hashes) of earlier versions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alerts: Vec<Alert>,
    /// `hash` of the previous entry, or [`GENESIS`].
    pub prev: String,
    /// Hex sha256 of the canonical JSON of this entry without `hash`.
    pub hash: String,
}

/// An entry before it is chained: everything but `seq`, `at`, `prev` and `hash`, already
/// redacted (build it with [`NewEntry::from_verdict`] to get that for free).
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    pub session: String,
    pub event: String,
    pub tool: String,
    pub input: Value,
    pub decision: AuditDecision,
    pub chain: Vec<ChainLink>,
    pub risk: Option<Value>,
    pub latency_us: u64,
    pub alerts: Vec<Alert>,
}

impl NewEntry {
    /// The entry for a verdict on an event, with secrets redacted from the input, the risk
    /// record and the reason (a reason may quote the command).
    pub fn from_verdict(
        event: &HookEvent,
        verdict: &Verdict,
        redact_paths: &[String],
        latency_us: u64,
    ) -> NewEntry {
        let input = recorded_input(&event.tool_input, redact_paths);
        NewEntry::with_input(event, verdict, input, latency_us)
    }

    /// The entry for a verdict on an event whose input the caller made ready for the record
    /// ([`recorded_input`]), with secrets redacted from the risk record and the reason.
    pub fn with_input(
        event: &HookEvent,
        verdict: &Verdict,
        input: Value,
        latency_us: u64,
    ) -> NewEntry {
        let event_name = if event.is_post() {
            "PostToolUse"
        } else {
            "PreToolUse"
        };
        NewEntry {
            session: event.session_id.clone(),
            event: event_name.to_string(),
            tool: event.tool_name.clone(),
            input,
            decision: AuditDecision::default(),
            chain: Vec::new(),
            risk: None,
            latency_us: 0,
            alerts: Vec::new(),
        }
        .decided(verdict, latency_us)
    }

    /// The record of the same call with its final verdict and latency: what the stages
    /// after the core (risk, the store's commit, the audit of the call itself) decided.
    pub fn decided(self, verdict: &Verdict, latency_us: u64) -> NewEntry {
        NewEntry {
            decision: AuditDecision {
                effect: verdict.outcome().to_string(),
                rule: verdict.rule.clone(),
                reason: redact_text(&verdict.reason),
                source: verdict.source.as_str().to_string(),
                category: verdict.category.clone(),
            },
            chain: verdict.chain.clone(),
            risk: verdict.risk.as_ref().map(|r| redact_value(r, &[])),
            latency_us,
            alerts: verdict.alerts.clone(),
            ..self
        }
    }

    /// Chains the entry after `prev` (seq `seq`), computing its hash.
    pub fn seal(self, seq: u64, at: u64, prev: String) -> AuditEntry {
        let mut entry = AuditEntry {
            seq,
            at,
            session: self.session,
            event: self.event,
            tool: self.tool,
            input: self.input,
            decision: self.decision,
            chain: self.chain,
            risk: self.risk,
            latency_us: self.latency_us,
            alerts: self.alerts,
            prev,
            hash: String::new(),
        };
        entry.hash = entry.compute_hash();
        entry
    }
}

impl AuditEntry {
    /// The entry as a JSON value, `hash` included.
    pub fn to_value(&self) -> Value {
        // Serialising plain strings, integers and Values cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The hash this entry should carry: sha256 over its canonical JSON without `hash`.
    pub fn compute_hash(&self) -> String {
        let mut v = self.to_value();
        if let Value::Object(map) = &mut v {
            map.shift_remove("hash");
        }
        hash_value(&v, &mut Vec::new())
    }

    /// The line written to the log: the canonical JSON of the whole entry, hash included.
    pub fn to_line(&self) -> String {
        let mut out = Vec::with_capacity(512);
        write_canonical(&self.to_value(), &mut out);
        out.push(b'\n');
        String::from_utf8(out).unwrap_or_default()
    }
}

/// A tool input as the audit log records it: redacted, long strings cut ([`cap_strings`]).
pub fn recorded_input(input: &Value, redact_paths: &[String]) -> Value {
    cap_strings(redact_tool_input(input, redact_paths), 0)
}

/// Text in a tool input from which the hook redacts it for the record on a second thread
/// while the call is judged: a 1 MB Write's redaction was a quarter of its time, on a path
/// where the second core is idle. Below this, a thread costs more than it saves.
pub const LONG_INPUT: usize = 64 * 1024;

/// Whether the strings of `v` (keys and values) hold at least [`LONG_INPUT`] bytes.
pub fn is_long_input(v: &Value) -> bool {
    input_holds(v, LONG_INPUT)
}

/// Whether the strings of `v` (keys and values) hold at least `bytes` bytes.
pub fn input_holds(v: &Value, bytes: usize) -> bool {
    fn add(v: &Value, total: &mut usize, depth: usize, bytes: usize) {
        if *total >= bytes || depth > MAX_INPUT_DEPTH {
            return;
        }
        match v {
            Value::String(s) => *total += s.len(),
            Value::Array(items) => items.iter().for_each(|i| add(i, total, depth + 1, bytes)),
            Value::Object(map) => map.iter().for_each(|(k, i)| {
                *total += k.len();
                add(i, total, depth + 1, bytes)
            }),
            _ => {}
        }
    }
    let mut total = 0;
    add(v, &mut total, 0, bytes);
    total >= bytes
}

/// Shortens string values longer than [`MAX_INPUT_STRING`] bytes (at a char boundary) to
/// `<head>…[truncated: <n> bytes, sha256 <hex>]`, the hash being that of the whole (redacted)
/// string.
pub fn cap_strings(v: Value, depth: usize) -> Value {
    if depth > MAX_INPUT_DEPTH {
        return Value::String("[too deeply nested]".into());
    }
    match v {
        Value::String(s) if s.len() > MAX_INPUT_STRING => {
            let mut cut = MAX_INPUT_STRING;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            let digest = hex::encode(Sha256::digest(s.as_bytes()));
            Value::String(format!(
                "{}…[truncated: {} bytes, sha256 {digest}]",
                &s[..cut],
                s.len()
            ))
        }
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|i| cap_strings(i, depth + 1))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, i)| (k, cap_strings(i, depth + 1)))
                .collect(),
        ),
        other => other,
    }
}

/// Hex sha256 of the canonical JSON of `v`; `buf` is scratch space reused across calls.
pub fn hash_value(v: &Value, buf: &mut Vec<u8>) -> String {
    buf.clear();
    write_canonical(v, buf);
    hex::encode(Sha256::digest(&buf[..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_strings_are_capped_with_their_size_and_hash() {
        let big = "é".repeat(MAX_INPUT_STRING);
        let v = cap_strings(json!({"content": big, "file_path": "/p/x"}), 0);
        let s = v["content"].as_str().unwrap();
        assert!(s.len() < MAX_INPUT_STRING + 120);
        assert!(s.contains(&format!(
            "truncated: {} bytes, sha256 ",
            2 * MAX_INPUT_STRING
        )));
        assert!(s.ends_with(&format!("{}]", hex::encode(Sha256::digest(big.as_bytes())))));
        assert_eq!(v["file_path"], "/p/x");
    }
}
