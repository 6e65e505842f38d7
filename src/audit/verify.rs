//! Checking a chain: every hash recomputed, every link and sequence number followed, in one
//! streaming pass with constant memory; and anchors, receipts kept elsewhere that pin a head
//! so that a truncated or rewritten tail is caught too.

use super::entry::{GENESIS, hash_value};
use serde::{Deserialize, Serialize, de::IgnoredAny};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

/// An intact chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifySummary {
    pub entries: u64,
    /// Hash of the last entry ([`GENESIS`] for an empty log).
    pub head_hash: String,
    pub first_at: Option<u64>,
    pub last_at: Option<u64>,
    /// Hash of the first entry, the stable identity of the chain ([`GENESIS`] when empty).
    pub first_hash: String,
}

/// What is wrong with a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BreakKind {
    /// The entry's `hash` is not the hash of its content: it was edited.
    BadHash,
    /// `prev` is not the hash of the entry before it: an entry was removed, inserted or moved.
    BrokenLink,
    /// `seq` does not follow the previous entry's.
    BadSequence,
    /// The line is not an audit entry.
    Malformed,
    /// The last line has no newline: a crash mid-write (or a cut).
    Torn,
    /// The chain is shorter than an anchor says it was.
    Truncated,
    /// The entry at the anchored position is not the anchored one.
    AnchorMismatch,
    /// The log or the anchors could not be read (not a verdict on the chain).
    Unreadable,
}

impl BreakKind {
    /// The name used in messages and JSON (`bad-hash`, `broken-link`…).
    pub fn as_str(self) -> &'static str {
        match self {
            BreakKind::BadHash => "bad-hash",
            BreakKind::BrokenLink => "broken-link",
            BreakKind::BadSequence => "bad-sequence",
            BreakKind::Malformed => "malformed",
            BreakKind::Torn => "torn",
            BreakKind::Truncated => "truncated",
            BreakKind::AnchorMismatch => "anchor-mismatch",
            BreakKind::Unreadable => "unreadable",
        }
    }
}

/// The first place a chain is broken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifyError {
    /// 1-based line number in the file (0 when the error is not about one line).
    pub line: u64,
    /// The `seq` the entry claims, when it could be read.
    pub seq: Option<u64>,
    pub kind: BreakKind,
    pub detail: String,
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "line {}", self.line)?;
            if let Some(seq) = self.seq {
                write!(f, " (seq {seq})")?;
            }
            write!(f, ": ")?;
        }
        write!(f, "{}: {}", self.kind.as_str(), self.detail)
    }
}

impl std::error::Error for VerifyError {}

fn unreadable(detail: String) -> VerifyError {
    VerifyError {
        line: 0,
        seq: None,
        kind: BreakKind::Unreadable,
        detail,
    }
}

/// The fields verification needs; the others must be present (an entry has every field) but
/// are only covered by the hash.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Head<'a> {
    seq: u64,
    at: u64,
    #[serde(borrow)]
    prev: Cow<'a, str>,
    #[serde(borrow)]
    hash: Cow<'a, str>,
    session: IgnoredAny,
    event: IgnoredAny,
    tool: IgnoredAny,
    input: IgnoredAny,
    decision: IgnoredAny,
    chain: IgnoredAny,
    risk: IgnoredAny,
    latency_us: IgnoredAny,
}

/// Fast path: palisade writes each line as the canonical JSON of the whole entry, so the
/// canonical bytes without `hash` are the line minus its `,"hash":"…"` member. A match proves
/// the bytes are the ones that were hashed; anything else takes the slow path.
fn hashes_to(line: &[u8], hash: &str, scratch: &mut Vec<u8>) -> bool {
    if hash.len() != 64 {
        return false;
    }
    scratch.clear();
    scratch.extend_from_slice(b",\"hash\":\"");
    scratch.extend_from_slice(hash.as_bytes());
    scratch.push(b'"');
    // Jump from comma to comma (a few per line) rather than comparing at every byte.
    let mut from = 0;
    let pos = loop {
        let Some(rel) = line[from..].iter().position(|&b| b == b',') else {
            return false;
        };
        let at = from + rel;
        if line[at..].starts_with(scratch) {
            break at;
        }
        from = at + 1;
    };
    let mut h = Sha256::new();
    h.update(&line[..pos]);
    h.update(&line[pos + scratch.len()..]);
    hex::encode(h.finalize()) == hash
}

/// Slow path, the definition: parse, drop `hash`, canonicalise, sha256.
fn canonical_hash(line: &[u8], scratch: &mut Vec<u8>) -> Result<String, String> {
    let mut value: Value = serde_json::from_slice(line).map_err(|e| format!("not JSON: {e}"))?;
    let Some(obj) = value.as_object_mut() else {
        return Err("not a JSON object".into());
    };
    obj.shift_remove("hash");
    Ok(hash_value(&value, scratch))
}

/// The line starting at `offset`, read under a shared lock (so after any append in progress),
/// if it is now complete.
fn reread_locked(path: &Path, offset: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::{Seek, SeekFrom};
    let mut file = File::open(path)?;
    file.lock_shared()?;
    file.seek(SeekFrom::Start(offset))?;
    let mut line = Vec::new();
    BufReader::new(&file).read_until(b'\n', &mut line)?;
    let _ = file.unlock();
    Ok((line.last() == Some(&b'\n')).then_some(line))
}

/// Verifies the whole chain in `path`.
pub fn verify(path: &Path) -> Result<VerifySummary, VerifyError> {
    verify_with(path, None)
}

/// A position the chain must still hold: entry `seq` with hash `hash`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    pub seq: u64,
    pub hash: String,
}

fn verify_with(path: &Path, pin: Option<&Pin>) -> Result<VerifySummary, VerifyError> {
    let file =
        File::open(path).map_err(|e| unreadable(format!("cannot open {}: {e}", path.display())))?;
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    let mut scratch: Vec<u8> = Vec::with_capacity(4096);
    let mut summary = VerifySummary {
        entries: 0,
        head_hash: GENESIS.to_string(),
        first_at: None,
        last_at: None,
        first_hash: GENESIS.to_string(),
    };
    let mut line_no = 0u64;
    // Bytes before the current line, to re-read it if it looks torn.
    let mut offset = 0u64;
    let mut last = false;
    while !last {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| unreadable(format!("cannot read {}: {e}", path.display())))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let at_line = |kind, seq, detail: String| VerifyError {
            line: line_no,
            seq,
            kind,
            detail,
        };
        if buf.last() != Some(&b'\n') {
            // Perhaps an append in progress: wait for the writer's lock and look again. Entries
            // appended after this one are outside this verification.
            match reread_locked(path, offset) {
                Ok(Some(line)) => {
                    buf = line;
                    last = true;
                }
                _ => {
                    return Err(at_line(
                        BreakKind::Torn,
                        None,
                        format!(
                            "the last line has no newline ({n} bytes): a crash mid-write or a cut"
                        ),
                    ));
                }
            }
        }
        offset += n as u64;
        buf.pop();
        let head: Head<'_> = serde_json::from_slice(&buf).map_err(|e| {
            at_line(
                BreakKind::Malformed,
                None,
                format!("not an audit entry: {e}"),
            )
        })?;
        let seq = Some(head.seq);
        let hash = head.hash.into_owned();
        let prev = head.prev.into_owned();
        let (seq_v, at_v) = (head.seq, head.at);
        if !hashes_to(&buf, &hash, &mut scratch) {
            let computed = canonical_hash(&buf, &mut scratch)
                .map_err(|e| at_line(BreakKind::Malformed, seq, e))?;
            if computed != hash {
                return Err(at_line(
                    BreakKind::BadHash,
                    seq,
                    format!("content hashes to {computed}, the entry says {hash}: it was edited"),
                ));
            }
        }
        if prev != summary.head_hash {
            return Err(at_line(
                BreakKind::BrokenLink,
                seq,
                format!(
                    "prev is {prev}, but the entry before it hashes to {}: an entry was removed, \
                     inserted or moved",
                    summary.head_hash
                ),
            ));
        }
        if seq_v != summary.entries + 1 {
            return Err(at_line(
                BreakKind::BadSequence,
                seq,
                format!("expected seq {}", summary.entries + 1),
            ));
        }
        if let Some(pin) = pin
            && pin.seq == seq_v
            && pin.hash != hash
        {
            return Err(at_line(
                BreakKind::AnchorMismatch,
                seq,
                format!(
                    "the anchor pinned seq {} with hash {}, the chain now has {hash}: the log was \
                     rewritten after it was anchored",
                    pin.seq, pin.hash
                ),
            ));
        }
        if summary.entries == 0 {
            summary.first_hash = hash.clone();
            summary.first_at = Some(at_v);
        }
        summary.entries = seq_v;
        summary.last_at = Some(at_v);
        summary.head_hash = hash;
    }
    if let Some(pin) = pin
        && summary.entries < pin.seq
    {
        return Err(VerifyError {
            line: 0,
            seq: None,
            kind: BreakKind::Truncated,
            detail: format!(
                "the chain has {} entries, but {} were anchored: the tail was cut",
                summary.entries, pin.seq
            ),
        });
    }
    Ok(summary)
}

/// A receipt pinning the head of a chain, one JSON line in an append-only anchors file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anchor {
    /// Canonical path of the audit log when it was anchored.
    pub file: String,
    /// sha256 of the first entry's hash: identifies the chain even if the file moves.
    pub file_id: String,
    pub entries: u64,
    pub head_hash: String,
    pub first_at: Option<u64>,
    pub last_at: Option<u64>,
    /// Milliseconds since the epoch.
    pub anchored_at: u64,
}

/// The stable identity of a chain: hex sha256 of its first entry's hash.
pub fn chain_id(first_hash: &str) -> String {
    hex::encode(Sha256::digest(first_hash.as_bytes()))
}

fn canonical_name(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// A receipt for the head of the verified chain in `path` (nothing is written). Refuses a
/// chain that does not verify or is empty.
pub fn receipt(path: &Path) -> Result<Anchor, VerifyError> {
    let summary = verify(path)?;
    if summary.entries == 0 {
        return Err(unreadable(format!(
            "{} has no entries: there is nothing to anchor",
            path.display()
        )));
    }
    Ok(Anchor {
        file: canonical_name(path),
        file_id: chain_id(&summary.first_hash),
        entries: summary.entries,
        head_hash: summary.head_hash,
        first_at: summary.first_at,
        last_at: summary.last_at,
        anchored_at: super::append::now_ms(),
    })
}

/// Verifies the chain and appends a receipt for its head to `anchors`. Refuses a chain that
/// does not verify or is empty.
pub fn anchor(path: &Path, anchors: &Path) -> Result<Anchor, VerifyError> {
    let receipt = receipt(path)?;
    let io = |e: std::io::Error| unreadable(format!("cannot write {}: {e}", anchors.display()));
    if let Some(dir) = anchors.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(anchors)
        .map_err(io)?;
    file.lock().map_err(io)?;
    let mut line = serde_json::to_string(&receipt).map_err(|e| unreadable(e.to_string()))?;
    line.push('\n');
    let written = file.write_all(line.as_bytes()).map_err(io);
    let _ = file.unlock();
    written?;
    Ok(receipt)
}

/// The last receipt in `anchors` for the chain in `path` (matched by chain id, else by path).
pub fn find_anchor(path: &Path, anchors: &Path) -> Result<Option<Anchor>, VerifyError> {
    let text = std::fs::read_to_string(anchors)
        .map_err(|e| unreadable(format!("cannot read {}: {e}", anchors.display())))?;
    let first_hash = first_entry_hash(path)?;
    let id = first_hash.as_deref().map(chain_id);
    let name = canonical_name(path);
    let mut by_id = None;
    let mut by_path = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let a: Anchor = serde_json::from_str(line).map_err(|e| {
            unreadable(format!(
                "{}:{}: not an anchor receipt: {e}",
                anchors.display(),
                i + 1
            ))
        })?;
        if id.as_deref() == Some(a.file_id.as_str()) {
            by_id = Some(a);
        } else if a.file == name {
            by_path = Some(a);
        }
    }
    Ok(by_id.or(by_path))
}

fn first_entry_hash(path: &Path) -> Result<Option<String>, VerifyError> {
    #[derive(Deserialize)]
    struct First {
        hash: String,
    }
    let file =
        File::open(path).map_err(|e| unreadable(format!("cannot open {}: {e}", path.display())))?;
    let mut line = Vec::new();
    BufReader::new(file)
        .read_until(b'\n', &mut line)
        .map_err(|e| unreadable(format!("cannot read {}: {e}", path.display())))?;
    Ok(serde_json::from_slice::<First>(&line).ok().map(|f| f.hash))
}

/// Verifies the chain and checks it still holds the head of its last anchored receipt.
pub fn verify_against(path: &Path, anchors: &Path) -> Result<(VerifySummary, Anchor), VerifyError> {
    let Some(anchor) = find_anchor(path, anchors)? else {
        return Err(unreadable(format!(
            "{} holds no receipt for {}",
            anchors.display(),
            path.display()
        )));
    };
    let pin = Pin {
        seq: anchor.entries,
        hash: anchor.head_hash.clone(),
    };
    let summary = verify_with(path, Some(&pin))?;
    Ok((summary, anchor))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{AuditDecision, NewEntry};

    #[test]
    fn the_fast_path_recognises_lines_palisade_writes() {
        let e = NewEntry {
            session: "s".into(),
            event: "PreToolUse".into(),
            tool: "Bash".into(),
            input: serde_json::json!({"command": "ls", "hash": "x", "z": {"a": 1.5}}),
            decision: AuditDecision {
                effect: "pass".into(),
                rule: None,
                reason: String::new(),
                source: "static".into(),
                category: None,
            },
            chain: Vec::new(),
            risk: Some(serde_json::json!({"latency_ms": 3})),
            latency_us: 1,
            alerts: Vec::new(),
        }
        .seal(1, 2, GENESIS.into());
        let line = e.to_line();
        let line = line.trim_end().as_bytes();
        assert!(hashes_to(line, &e.hash, &mut Vec::new()));
        assert_eq!(canonical_hash(line, &mut Vec::new()).unwrap(), e.hash);
    }
}
