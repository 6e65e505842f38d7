//! The counters of the policy's `limits:`, in the session's ledger store: `limit_totals` (one
//! row per session-wide limit) and `limit_uses` (one row per use of an hourly limit, indexed by
//! limit and time, the rows older than the window removed as new ones come).
//!
//! A call's check and its increment happen in one `BEGIN IMMEDIATE` transaction (in the hook,
//! the one the call's recording is written in: `take` and `add` run on it). Hook processes of
//! one session run in parallel, and SQLite lets one writer at a time through, so none reads a
//! count another is about to change. Nothing is written when one limit is over: a refused call
//! consumes nothing. A store that cannot be read or written is an error (the hook refuses).

use super::{LedgerError, LedgerStore};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// The limit tables (part of the store's schema since version 2).
pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS limit_totals(
    limit_id TEXT PRIMARY KEY NOT NULL,
    n INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS limit_uses(
    id INTEGER PRIMARY KEY,
    limit_id TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    amount INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS limit_uses_by_time ON limit_uses(limit_id, at_ms);
";

/// One limit a call counts against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitUse {
    pub id: String,
    /// `None`: the whole session; `Some(ms)`: the rolling window of that length.
    pub window_ms: Option<u64>,
    pub max: u64,
}

/// What the check found: each limit's count before this call, and whether the call was
/// counted (every limit had room).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitCounts {
    pub before: Vec<u64>,
    pub counted: bool,
}

fn err(path: &std::path::Path, e: impl std::fmt::Display) -> LedgerError {
    LedgerError {
        path: path.to_path_buf(),
        message: format!("could not be used for the policy's limits ({e})"),
    }
}

fn count(conn: &Connection, u: &LimitUse, now_ms: u64) -> rusqlite::Result<u64> {
    let n: i64 = match u.window_ms {
        None => conn
            .prepare_cached("SELECT n FROM limit_totals WHERE limit_id = ?1")?
            .query_row([&u.id], |r| r.get(0))
            .optional()?
            .unwrap_or(0),
        Some(w) => conn
            .prepare_cached(
                "SELECT COALESCE(SUM(amount), 0) FROM limit_uses WHERE limit_id = ?1 AND at_ms > ?2",
            )?
            .query_row(params![u.id, now_ms.saturating_sub(w) as i64], |r| r.get(0))?,
    };
    Ok(n.max(0) as u64)
}

/// The error of a limit statement on `conn`, naming its store.
fn conn_err(conn: &Connection, e: impl std::fmt::Display) -> LedgerError {
    err(std::path::Path::new(conn.path().unwrap_or("")), e)
}

/// Checks the call against `uses` on `conn`, inside a transaction the caller holds (the call's
/// write transaction, `SessionStore::commit`), and when every one has room (`count + 1 <=
/// max`) counts it; otherwise writes nothing. The caller's IMMEDIATE transaction is what
/// makes the check and the increment atomic across processes.
pub fn take(conn: &Connection, uses: &[LimitUse], now_ms: u64) -> Result<LimitCounts, LedgerError> {
    let run = || -> rusqlite::Result<LimitCounts> {
        let before = uses
            .iter()
            .map(|u| count(conn, u, now_ms))
            .collect::<rusqlite::Result<Vec<u64>>>()?;
        if !uses.iter().zip(&before).all(|(u, n)| *n < u.max) {
            // Refused: nothing is written.
            return Ok(LimitCounts {
                before,
                counted: false,
            });
        }
        for u in uses {
            add_one(conn, u, 1, now_ms)?;
        }
        Ok(LimitCounts {
            before,
            counted: true,
        })
    };
    run().map_err(|e| conn_err(conn, e))
}

/// Adds `amount` to every limit of `uses` on `conn`, whatever their max (a spend already
/// made, such as the risk layer's tokens), inside a transaction the caller holds.
pub fn add(
    conn: &Connection,
    uses: &[LimitUse],
    amount: u64,
    now_ms: u64,
) -> Result<(), LedgerError> {
    if amount == 0 {
        return Ok(());
    }
    uses.iter()
        .try_for_each(|u| add_one(conn, u, amount, now_ms))
        .map_err(|e| conn_err(conn, e))
}

/// The current counts of `uses` on `conn`.
pub fn counts(conn: &Connection, uses: &[LimitUse], now_ms: u64) -> Result<Vec<u64>, LedgerError> {
    uses.iter()
        .map(|u| count(conn, u, now_ms).map_err(|e| conn_err(conn, e)))
        .collect()
}

fn add_one(conn: &Connection, u: &LimitUse, amount: u64, now_ms: u64) -> rusqlite::Result<()> {
    match u.window_ms {
        None => {
            conn.prepare_cached(
                "INSERT INTO limit_totals(limit_id, n) VALUES (?1, ?2) \
                 ON CONFLICT(limit_id) DO UPDATE SET n = n + ?2",
            )?
            .execute(params![u.id, amount as i64])?;
        }
        Some(w) => {
            conn.prepare_cached("DELETE FROM limit_uses WHERE limit_id = ?1 AND at_ms <= ?2")?
                .execute(params![u.id, now_ms.saturating_sub(w) as i64])?;
            conn.prepare_cached(
                "INSERT INTO limit_uses(limit_id, at_ms, amount) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![u.id, now_ms as i64, amount as i64])?;
        }
    }
    Ok(())
}

impl LedgerStore {
    /// `take` in a transaction of its own, opening the store: a session with no store yet
    /// counts from zero (the store is made only when something is counted).
    pub fn take_limits(
        &self,
        session_id: &str,
        uses: &[LimitUse],
        now_ms: u64,
    ) -> Result<LimitCounts, LedgerError> {
        if uses.iter().any(|u| u.max == 0) || uses.is_empty() {
            // Nothing can be counted; the counts are still read for the reason.
            let before = self.limit_counts(session_id, uses, now_ms)?;
            return Ok(LimitCounts {
                counted: uses.is_empty(),
                before,
            });
        }
        self.in_transaction(session_id, |tx| take(tx, uses, now_ms))
    }

    /// `add` in a transaction of its own, opening the store.
    pub fn add_to_limits(
        &self,
        session_id: &str,
        uses: &[LimitUse],
        amount: u64,
        now_ms: u64,
    ) -> Result<(), LedgerError> {
        if uses.is_empty() || amount == 0 {
            return Ok(());
        }
        self.in_transaction(session_id, |tx| add(tx, uses, amount, now_ms))
    }

    /// The current counts of `uses`, read only (0 for a session with no store).
    pub fn limit_counts(
        &self,
        session_id: &str,
        uses: &[LimitUse],
        now_ms: u64,
    ) -> Result<Vec<u64>, LedgerError> {
        let Some(conn) = self.open(session_id, false)? else {
            return Ok(vec![0; uses.len()]);
        };
        counts(&conn, uses, now_ms)
    }

    /// `stage` in one IMMEDIATE transaction of its own (creating the store), committed when
    /// it succeeds.
    fn in_transaction<T>(
        &self,
        session_id: &str,
        stage: impl FnOnce(&Connection) -> Result<T, LedgerError>,
    ) -> Result<T, LedgerError> {
        let path = self.file_for(session_id);
        let mut conn = self
            .open(session_id, true)?
            .ok_or_else(|| err(&path, "the store could not be created"))?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| err(&path, e))?;
        let out = stage(&tx)?;
        tx.commit().map_err(|e| err(&path, e))?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(max: u64) -> LimitUse {
        LimitUse {
            id: "net".into(),
            window_ms: None,
            max,
        }
    }

    #[test]
    fn counts_up_to_max_and_a_refusal_consumes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let uses = [session(2)];
        for expected in [0, 1] {
            let c = store.take_limits("s", &uses, 1_000).unwrap();
            assert_eq!((c.before, c.counted), (vec![expected], true));
        }
        for _ in 0..3 {
            let c = store.take_limits("s", &uses, 1_000).unwrap();
            assert_eq!((c.before, c.counted), (vec![2], false));
        }
        // Another session has its own counts.
        assert_eq!(store.limit_counts("t", &uses, 1_000).unwrap(), [0]);
    }

    #[test]
    fn spends_add_their_amount_in_both_windows() {
        let store = LedgerStore::in_memory();
        let total = session(100);
        let hourly = LimitUse {
            id: "tok-h".into(),
            window_ms: Some(1_000),
            max: 100,
        };
        let both = [total.clone(), hourly.clone()];
        store.add_to_limits("s", &both, 40, 10).unwrap();
        store.add_to_limits("s", &both, 70, 500).unwrap();
        assert_eq!(store.limit_counts("s", &both, 600).unwrap(), [110, 110]);
        // The first spend leaves the hour window; the session total keeps it.
        assert_eq!(store.limit_counts("s", &both, 1_200).unwrap(), [110, 70]);
        store.add_to_limits("s", &both, 0, 1_200).unwrap();
        assert_eq!(store.limit_counts("s", &both, 1_200).unwrap(), [110, 70]);
    }

    #[test]
    fn one_limit_over_means_none_is_counted() {
        let store = LedgerStore::in_memory();
        let a = session(5);
        let b = LimitUse {
            id: "gh".into(),
            window_ms: None,
            max: 1,
        };
        assert!(
            store
                .take_limits("s", &[a.clone(), b.clone()], 1)
                .unwrap()
                .counted
        );
        let c = store.take_limits("s", &[a.clone(), b.clone()], 1).unwrap();
        assert_eq!((c.before, c.counted), (vec![1, 1], false));
        assert_eq!(store.limit_counts("s", &[a, b], 1).unwrap(), [1, 1]);
    }

    #[test]
    fn an_hour_window_forgets_old_uses() {
        let store = LedgerStore::in_memory();
        let u = [LimitUse {
            id: "h".into(),
            window_ms: Some(3_600_000),
            max: 2,
        }];
        let t0 = 10_000_000;
        assert!(store.take_limits("s", &u, t0).unwrap().counted);
        assert!(store.take_limits("s", &u, t0 + 1_000).unwrap().counted);
        assert!(!store.take_limits("s", &u, t0 + 2_000).unwrap().counted);
        // An hour after the first use, one slot is free again.
        let c = store.take_limits("s", &u, t0 + 3_600_000).unwrap();
        assert_eq!((c.before, c.counted), (vec![1], true));
        assert!(!store.take_limits("s", &u, t0 + 3_600_001).unwrap().counted);
    }

    #[test]
    fn a_version_1_store_is_migrated_and_keeps_its_entries() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        store
            .update("s", |l| {
                l.entries.insert(
                    "/a".into(),
                    crate::ledger::LedgerEntry::written("/a", None, ""),
                );
            })
            .unwrap();
        // Made as version 1 made it: no limit tables (and no extension column, from 3, nor
        // receipts table, from 7).
        let c = Connection::open(store.file_for("s")).unwrap();
        c.execute_batch(
            "DROP TABLE limit_totals; DROP TABLE limit_uses; DROP INDEX entries_by_ext;
             ALTER TABLE entries DROP COLUMN ext; DROP TABLE receipts;
             PRAGMA user_version = 1;",
        )
        .unwrap();
        drop(c);
        assert!(store.take_limits("s", &[session(1)], 1).unwrap().counted);
        assert!(!store.take_limits("s", &[session(1)], 1).unwrap().counted);
        assert!(store.load("s").unwrap().entries.contains_key("/a"));
        let c = Connection::open(store.file_for("s")).unwrap();
        let v: i64 = c
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(v, super::super::store::SCHEMA_VERSION);
    }

    #[test]
    fn max_zero_refuses_without_making_a_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let c = store.take_limits("s", &[session(0)], 1).unwrap();
        assert_eq!((c.before, c.counted), (vec![0], false));
        assert!(!store.exists("s"));
    }
}
