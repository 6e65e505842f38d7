//! The session's exposure rows (`crate::taint`), in the session's ledger store: one table,
//! `exposures`, made on first use, indexed by (kind, key) so a call reads the latest row of a
//! kind, or the rows of the paths and remotes it names — a constant number of rows however
//! long the session.
//!
//! Failure rules match the ledger's: a store that exists but cannot be read is an error (the
//! hook fails closed), never "no exposure".

use super::session::ExposureQuery;
use super::{LedgerError, LedgerStore};
use crate::taint::{Exposure, ExposureKind, ExposureRow, SessionExposure};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::path::Path;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS exposures(
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    seq INTEGER,
    origin TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS exposures_by_key ON exposures(kind, key);
CREATE INDEX IF NOT EXISTS exposures_by_kind ON exposures(kind);
";

/// Rows kept per (kind, key): the latest few are all a reason needs.
const KEEP_PER_KEY: i64 = 4;
/// Rows kept per kind (distinct derived paths, distinct remotes): the oldest go first. Checked
/// every `CAP_EVERY` inserts, so a write pays for it rarely.
const MAX_PER_KIND: i64 = 4096;
const CAP_EVERY: i64 = 256;
/// Paths and remotes of one send whose rows are read: a constant bound per call.
const MAX_PATHS: usize = 64;
const MAX_REMOTES: usize = 16;

pub(super) fn err(path: &Path, e: impl std::fmt::Display) -> LedgerError {
    LedgerError {
        path: path.to_path_buf(),
        message: format!("could not be used for session exposure ({e})"),
    }
}

/// Whether the store has made its exposure table: looked up in the schema the connection has
/// read (`sqlite3_table_column_metadata`), not by compiling a query of `sqlite_master`.
fn has_table(conn: &Connection) -> rusqlite::Result<bool> {
    conn.table_exists(None, "exposures")
}

/// The latest exposure row of a kind and key (`latest`).
pub(super) const LATEST_OF_KEY: &str = "SELECT key, origin, seq, at_ms FROM exposures \
     WHERE kind = ?1 AND key = ?2 ORDER BY id DESC LIMIT 1";

fn latest(
    conn: &Connection,
    kind: ExposureKind,
    key: &str,
    since_ms: u64,
) -> rusqlite::Result<Option<ExposureRow>> {
    conn.prepare_cached(LATEST_OF_KEY)?
        .query_row(params![kind.as_str(), key], |r| {
            Ok(ExposureRow {
                key: r.get(0)?,
                origin: r.get(1)?,
                seq: r.get::<_, Option<i64>>(2)?.map(|s| s as u64),
                at_ms: r.get::<_, i64>(3)? as u64,
            })
        })
        .optional()
        .map(|r| r.filter(|r| r.at_ms >= since_ms))
}

/// The session's exposure for one judgement over an open connection (see
/// `LedgerStore::session_exposure`); a store without the table has none.
pub(super) fn read_exposure(
    conn: &Connection,
    paths: &[String],
    remotes: &[String],
    since_ms: u64,
) -> rusqlite::Result<SessionExposure> {
    if !has_table(conn)? {
        return Ok(SessionExposure::default());
    }
    let mut out = SessionExposure {
        untrusted: latest(conn, ExposureKind::Untrusted, "", since_ms)?,
        private: latest(conn, ExposureKind::Private, "", since_ms)?,
        ..Default::default()
    };
    for p in paths.iter().take(MAX_PATHS) {
        if let Some(r) = latest(conn, ExposureKind::Derived, p, since_ms)? {
            out.derived.push(r);
        }
    }
    for r in remotes.iter().take(MAX_REMOTES) {
        if let Some(r) = latest(conn, ExposureKind::Remote, r, since_ms)? {
            out.remotes.push(r);
        }
    }
    Ok(out)
}

/// The key-filter key of the exposure rows of (`kind`, `key`) (`super::keyset`): a NUL, which
/// no path holds, keeps it apart from the paths of ledger rows.
pub(super) fn filter_key(kind: &str, key: &str) -> String {
    format!("\0exposure\0{kind}\0{key}")
}

/// The filter keys of every exposure row the store holds (for a filter rebuilt from the store).
pub(super) fn filter_keys(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    if !has_table(conn)? {
        return Ok(Vec::new());
    }
    conn.prepare_cached("SELECT DISTINCT kind, key FROM exposures")?
        .query_map([], |r| {
            Ok(filter_key(&r.get::<_, String>(0)?, &r.get::<_, String>(1)?))
        })?
        .collect()
}

/// The filter keys whose rows the judgement behind `q` reads: a send reads the private rows
/// (with the untrusted ones, a trifecta), the derived rows of the paths it sends, the changed
/// remotes it pushes to. When none is in the filter, the exposure is empty without opening
/// the store. The untrusted row alone matters where `q` says so (the risk layer's context,
/// a call that itself reads private data); otherwise it counts only beside a private row,
/// whose absence already answers.
pub(super) fn query_keys(q: &ExposureQuery) -> Vec<String> {
    let mut keys = vec![filter_key(ExposureKind::Private.as_str(), "")];
    if q.untrusted {
        keys.push(filter_key(ExposureKind::Untrusted.as_str(), ""));
    }
    keys.extend(
        q.paths
            .iter()
            .take(MAX_PATHS)
            .map(|p| filter_key(ExposureKind::Derived.as_str(), p)),
    );
    keys.extend(
        q.remotes
            .iter()
            .take(MAX_REMOTES)
            .map(|r| filter_key(ExposureKind::Remote.as_str(), r)),
    );
    keys
}

/// The filter keys of [`query_keys`] but the latest untrusted and private rows: what a send
/// reads besides what `super::latest` holds.
pub(super) fn other_keys(q: &ExposureQuery) -> Vec<String> {
    let mut keys = query_keys(q);
    let latest = [
        filter_key(ExposureKind::Private.as_str(), ""),
        filter_key(ExposureKind::Untrusted.as_str(), ""),
    ];
    keys.retain(|k| !latest.contains(k));
    keys
}

/// Inserts exposure rows inside the caller's write transaction (making the table on first
/// use) and keeps the table bounded; returns the row ids. Each row's key is in the key filter
/// before the row is written (`super::keyset`).
pub(super) fn insert_exposures(
    tx: &Connection,
    path: &Path,
    rows: &[Exposure],
    now_ms: u64,
) -> Result<Vec<i64>, LedgerError> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    for r in rows {
        super::store::note_key(tx, path, &filter_key(r.kind.as_str(), &r.key))?;
    }
    let ids = insert_rows(tx, rows, now_ms).map_err(|e| err(path, e))?;
    if super::latest::changes_with(rows.iter().map(|r| r.kind)) {
        super::latest::forget(tx, path)?;
    }
    Ok(ids)
}

/// Adds an exposure row (`insert_rows`).
pub(super) const INSERT_EXPOSURE: &str =
    "INSERT INTO exposures(kind, key, at_ms, seq, origin) VALUES (?1, ?2, ?3, NULL, ?4)";

/// Drops the rows of a kind and key beyond the latest `?3` (`insert_rows`).
pub(super) const TRIM_KEY: &str = "DELETE FROM exposures WHERE kind = ?1 AND key = ?2 AND \
     id < (SELECT id FROM exposures WHERE kind = ?1 AND key = ?2 ORDER BY id DESC LIMIT 1 OFFSET ?3)";

fn insert_rows(tx: &Connection, rows: &[Exposure], now_ms: u64) -> rusqlite::Result<Vec<i64>> {
    let mut ids = Vec::new();
    // Compiling the three `IF NOT EXISTS` statements on every insert was a sixth of what
    // recording a WebFetch's exposure cost.
    if !has_table(tx)? {
        tx.execute_batch(SCHEMA)?;
    }
    for r in rows {
        tx.prepare_cached(INSERT_EXPOSURE)?.execute(params![
            r.kind.as_str(),
            r.key,
            now_ms as i64,
            r.origin
        ])?;
        ids.push(tx.last_insert_rowid());
        // Keep the latest few rows of this (kind, key): the table stays bounded by
        // the number of distinct paths and remotes, not by the session's length.
        tx.prepare_cached(TRIM_KEY)?
            .execute(params![r.kind.as_str(), r.key, KEEP_PER_KEY - 1])?;
        if ids.last().is_some_and(|id| id % CAP_EVERY == 0) {
            tx.prepare_cached(
                "DELETE FROM exposures WHERE kind = ?1 AND id < (SELECT id FROM exposures \
                 WHERE kind = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)",
            )?
            .execute(params![r.kind.as_str(), MAX_PER_KIND - 1])?;
        }
    }
    Ok(ids)
}

/// Gives exposure rows the seq of the call's audit entry (inside a write transaction, which
/// keeps `super::latest` in step when one of them is an untrusted or private row).
pub(super) fn set_exposure_seq(
    tx: &Connection,
    path: &Path,
    ids: &[i64],
    seq: u64,
) -> Result<(), LedgerError> {
    let mut latest_changed = false;
    for id in ids {
        let kind: Option<String> = tx
            .prepare_cached("UPDATE exposures SET seq = ?1 WHERE id = ?2 RETURNING kind")
            .and_then(|mut s| {
                s.query_row(params![seq as i64, id], |r| r.get(0))
                    .optional()
            })
            .map_err(|e| err(path, e))?;
        latest_changed |= matches!(
            kind.as_deref(),
            Some(k) if k == ExposureKind::Untrusted.as_str() || k == ExposureKind::Private.as_str()
        );
    }
    if latest_changed {
        super::latest::keep(tx, path)?;
    }
    Ok(())
}

impl LedgerStore {
    /// The session's exposure for one judgement: the latest untrusted and private rows, and
    /// the rows of `paths` (derived data) and `remotes` (changed remotes), each newer than
    /// `since_ms`. A session with no store has none.
    pub fn session_exposure(
        &self,
        session_id: &str,
        paths: &[String],
        remotes: &[String],
        since_ms: u64,
    ) -> Result<SessionExposure, LedgerError> {
        let Some(conn) = self.open(session_id, false)? else {
            return Ok(SessionExposure::default());
        };
        let path = self.file_for(session_id);
        read_exposure(&conn, paths, remotes, since_ms).map_err(|e| err(&path, e))
    }

    /// Records exposures (creating the store when the session has none); returns the row ids,
    /// to be given the call's audit seq once it is appended.
    pub fn record_exposures(
        &self,
        session_id: &str,
        rows: &[Exposure],
        now_ms: u64,
    ) -> Result<Vec<i64>, LedgerError> {
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let path = self.file_for(session_id);
        let mut conn = self
            .open(session_id, true)?
            .ok_or_else(|| err(&path, "the store could not be created"))?;
        let mut write = || -> Result<Vec<i64>, LedgerError> {
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(|e| err(&path, e))?;
            let ids = insert_exposures(&tx, &path, rows, now_ms)?;
            tx.commit().map_err(|e| err(&path, e))?;
            Ok(ids)
        };
        write()
    }

    /// Gives the rows a call recorded the seq of its audit entry, so a later reason names it.
    pub fn attach_exposure_seq(
        &self,
        session_id: &str,
        ids: &[i64],
        seq: u64,
    ) -> Result<(), LedgerError> {
        if ids.is_empty() {
            return Ok(());
        }
        let Some(mut conn) = self.open(session_id, false)? else {
            return Ok(());
        };
        let path = self.file_for(session_id);
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| err(&path, e))?;
        set_exposure_seq(&tx, &path, ids, seq)?;
        tx.commit().map_err(|e| err(&path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kind: ExposureKind, key: &str, origin: &str) -> Exposure {
        Exposure {
            kind,
            key: key.into(),
            origin: origin.into(),
        }
    }

    #[test]
    fn records_reads_back_and_bounds_rows() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        assert_eq!(
            store.session_exposure("s", &[], &[], 0).unwrap(),
            SessionExposure::default()
        );
        let ids = store
            .record_exposures("s", &[row(ExposureKind::Untrusted, "", "WebFetch a")], 10)
            .unwrap();
        store.attach_exposure_seq("s", &ids, 7).unwrap();
        for i in 0..20 {
            store
                .record_exposures(
                    "s",
                    &[row(ExposureKind::Derived, "/p/notes.txt", &format!("w{i}"))],
                    20 + i,
                )
                .unwrap();
        }
        let e = store
            .session_exposure("s", &["/p/notes.txt".into(), "/p/x".into()], &[], 0)
            .unwrap();
        assert_eq!(
            e.untrusted.as_ref().unwrap().describe(),
            "WebFetch a (audit #7)"
        );
        assert!(e.private.is_none());
        assert_eq!(e.derived.len(), 1);
        assert_eq!(e.derived[0].origin, "w19");
        // Older than the TTL's cut: gone.
        assert!(
            store
                .session_exposure("s", &[], &[], 11)
                .unwrap()
                .untrusted
                .is_none()
        );
        let conn = store.open("s", false).unwrap().unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM exposures", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1 + KEEP_PER_KEY);
    }

    #[test]
    fn distinct_keys_are_capped_per_kind() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let rows: Vec<Exposure> = (0..MAX_PER_KIND + 2 * CAP_EVERY)
            .map(|i| row(ExposureKind::Derived, &format!("/p/{i}"), "r"))
            .collect();
        store.record_exposures("s", &rows, 1).unwrap();
        let conn = store.open("s", false).unwrap().unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM exposures", [], |r| r.get(0))
            .unwrap();
        assert!(n <= MAX_PER_KIND + CAP_EVERY, "{n}");
        // The newest are kept.
        let last = format!("/p/{}", MAX_PER_KIND + 2 * CAP_EVERY - 1);
        assert_eq!(
            store
                .session_exposure("s", &[last], &[], 0)
                .unwrap()
                .derived
                .len(),
            1
        );
    }
}
