//! The session's latest untrusted and private exposure rows, copied into a small file beside
//! its store (`<store>.db-latest`), so that a send in a session that read private data (a
//! `.env`, a key) learns what a trifecta needs without opening the store.
//!
//! Why: once a session holds a private row, the key filter (`super::keyset`) answers "maybe"
//! for every send, and each send opened the store for two rows: SQLite's open and schema were
//! a quarter of an MCP send (docs/PERFORMANCE.md).
//!
//! Why it cannot hide a row:
//! - the write transaction that inserts an untrusted or private row removes the file before
//!   its commit (`forget`): until then readers open the store. The one that gives those rows
//!   their seq (after the audit append) writes it again, before its commit, from what that
//!   transaction reads (`keep`). Writers hold the store's write lock, so they do not race each
//!   other. A transaction that then rolls back leaves a file naming a seq the store does not
//!   hold (a reason's label), or no file, until the next writer;
//! - it is replaced whole (a temp file renamed over it): a reader sees the old file or the new;
//! - it names the store it copies (device and inode): a store removed and made afresh does not
//!   inherit the old store's rows through it;
//! - a missing, unreadable or unknown file, or one that is not a regular file of this user,
//!   is no answer: the store is opened as before;
//! - the store's schema version 6 came with this file: a binary that does not keep it refuses
//!   the store rather than add rows the file would not show.

use super::store::check_owned_file;
use crate::taint::{ExposureKind, ExposureRow};
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};
use std::fs::{self, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The file's format; another value is no answer.
const FORMAT: u32 = 1;
/// A file longer than this is not one this code wrote (an origin is a few hundred bytes).
const MAX_LEN: u64 = 64 * 1024;

/// The file beside the store at `db`.
pub fn file_of(db: &Path) -> PathBuf {
    PathBuf::from(format!("{}-latest", db.display()))
}

#[derive(Debug, Serialize, Deserialize)]
struct Latest {
    format: u32,
    /// The store's device and inode.
    store: (u64, u64),
    untrusted: Option<Row>,
    private: Option<Row>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Row {
    key: String,
    origin: String,
    seq: Option<u64>,
    at_ms: u64,
}

impl From<ExposureRow> for Row {
    fn from(r: ExposureRow) -> Row {
        Row {
            key: r.key,
            origin: r.origin,
            seq: r.seq,
            at_ms: r.at_ms,
        }
    }
}

impl From<Row> for ExposureRow {
    fn from(r: Row) -> ExposureRow {
        ExposureRow {
            key: r.key,
            origin: r.origin,
            seq: r.seq,
            at_ms: r.at_ms,
        }
    }
}

/// The identity of the store at `db`, when it is a regular file of this user.
fn identity(db: &Path) -> Option<(u64, u64)> {
    let m = fs::symlink_metadata(db).ok()?;
    check_owned_file(db, &m).ok().map(|()| (m.dev(), m.ino()))
}

/// The latest untrusted and private rows (their key is empty) as `tx` sees the store: the
/// rows `super::taint::read_exposure` reads. One statement: each compiled is a cost per call.
fn latest(tx: &Connection) -> rusqlite::Result<(Option<Row>, Option<Row>)> {
    let mut out = (None, None);
    let mut stmt = tx.prepare_cached(
        "SELECT kind, key, origin, seq, at_ms FROM exposures WHERE id IN ( \
         SELECT max(id) FROM exposures WHERE kind = ?1 AND key = '' UNION ALL \
         SELECT max(id) FROM exposures WHERE kind = ?2 AND key = '')",
    )?;
    let mut rows = stmt.query(params![
        ExposureKind::Untrusted.as_str(),
        ExposureKind::Private.as_str()
    ])?;
    while let Some(r) = rows.next()? {
        let row = Row {
            key: r.get(1)?,
            origin: r.get(2)?,
            seq: r.get::<_, Option<i64>>(3)?.map(|s| s as u64),
            at_ms: r.get::<_, i64>(4)? as u64,
        };
        if r.get::<_, String>(0)? == ExposureKind::Untrusted.as_str() {
            out.0 = Some(row);
        } else {
            out.1 = Some(row);
        }
    }
    Ok(out)
}

/// Writes the file from the latest untrusted and private rows `tx` sees (inside the write
/// transaction that changed them, before its commit). A store in memory has no file.
pub(super) fn write(tx: &Connection, db: &Path) -> std::io::Result<()> {
    if tx.path().is_none_or(str::is_empty) {
        return Ok(());
    }
    let store = identity(db).ok_or_else(|| std::io::Error::other("the store is not there"))?;
    let (untrusted, private) = latest(tx).map_err(std::io::Error::other)?;
    let latest = Latest {
        format: FORMAT,
        store,
        untrusted,
        private,
    };
    let bytes = serde_json::to_vec(&latest).map_err(std::io::Error::other)?;
    let file = file_of(db);
    let tmp = PathBuf::from(format!("{}.tmp.{}", file.display(), std::process::id()));
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)
        .and_then(|mut f| f.write_all(&bytes))
        .and_then(|()| fs::rename(&tmp, &file));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// [`write`], or when the file cannot be written, its removal (then readers open the store);
/// an error only when neither could be done: a file left as it was could hide a row.
pub(super) fn keep(tx: &Connection, db: &Path) -> Result<(), super::LedgerError> {
    let Err(e) = write(tx, db) else {
        return Ok(());
    };
    remove(db).map_err(|r| {
        super::store::error(
            db,
            format!(
                "could not record its latest exposure beside it ({e}), nor remove the old record ({r})"
            ),
        )
    })
}

/// Removes the file; one that is not there is removed.
fn remove(db: &Path) -> std::io::Result<()> {
    match fs::remove_file(file_of(db)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// The latest untrusted and private rows newer than `since_ms`, as the store would give them;
/// `None` when the file gives no answer (then the store is read).
pub(super) fn read(db: &Path, since_ms: u64) -> Option<(Option<ExposureRow>, Option<ExposureRow>)> {
    let file = file_of(db);
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&file)
        .ok()?;
    let m = f.metadata().ok()?;
    if check_owned_file(&file, &m).is_err() || m.len() > MAX_LEN {
        return None;
    }
    let mut bytes = Vec::new();
    f.take(MAX_LEN).read_to_end(&mut bytes).ok()?;
    let latest: Latest = serde_json::from_slice(&bytes).ok()?;
    if latest.format != FORMAT || Some(latest.store) != identity(db) {
        return None;
    }
    let newer = |r: Option<Row>| r.map(ExposureRow::from).filter(|r| r.at_ms >= since_ms);
    Some((newer(latest.untrusted), newer(latest.private)))
}

/// Removes the file inside the write transaction that adds an untrusted or private row (before
/// its commit): until the row has its seq and [`keep`] writes the file again, readers open the
/// store. Writing the file twice per such call (the row, then its seq) made a WebFetch slower
/// than it was before the file existed. An error only when the file is there and stays.
pub(super) fn forget(tx: &Connection, db: &Path) -> Result<(), super::LedgerError> {
    if tx.path().is_none_or(str::is_empty) {
        return Ok(());
    }
    remove(db).map_err(|e| {
        super::store::error(
            db,
            format!("could not remove its latest exposure beside it ({e})"),
        )
    })
}

/// Whether a call that adds rows of these kinds changes the file.
pub(super) fn changes_with(kinds: impl IntoIterator<Item = ExposureKind>) -> bool {
    kinds
        .into_iter()
        .any(|k| matches!(k, ExposureKind::Untrusted | ExposureKind::Private))
}
