//! What the hook saw of a session's calls: the `tool_use_id` of every PreToolUse decision (so
//! a PostToolUse can tell whether the hook ran before its tool: bypass detection) and the
//! policy digest of the session's first decision (so a later call decided under another policy
//! is flagged: policy drift). Neither changes a verdict; both become audit `alerts`.
//!
//! Where: a per-session SQLite store like the ledger's, with its hardening and failure rules,
//! but in its own files (`<state dir>/calls/<hash>.db`). Every PreToolUse writes here, and the
//! ledger fails closed when its lock stays taken: sharing its file would add a writer to every
//! call and make the ledger of a session that never wrote a file exist (so later steps would
//! open it). Its own two tables only, made with the store (a smaller schema for SQLite to load
//! on every open); an earlier version never reads it.
//!
//! Cost: one write transaction per PreToolUse (the first digest read and the id inserted
//! together) and one indexed read per PostToolUse. Unlike the ledger, the store is written with
//! `synchronous=OFF` and a rollback journal (`LedgerStore::without_wal`: no WAL index for each
//! process to rebuild; a store an earlier version made with a WAL has it emptied after each
//! write, `keep_wal_empty`), so opening it stays cheap however long the session: a crash of the
//! process loses nothing, a power loss may lose or damage this store, which costs alerts only.
//!
//! Failure rules: a store that cannot be written or read here costs only the alert (a warning
//! is logged), never the call: what it guards is evidence, not a decision.

use super::{LedgerError, LedgerStore};
use crate::event::HookEvent;
use crate::verdict::{Alert, Verdict};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::path::Path;

const SCHEMA: &str = "
CREATE TABLE decided_calls(
    id INTEGER PRIMARY KEY,
    tool_use_id TEXT NOT NULL UNIQUE,
    at_ms INTEGER NOT NULL
);
CREATE TABLE session_facts(
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) WITHOUT ROWID;
";

/// Decided ids kept per session: a PostToolUse normally follows its PreToolUse within the
/// same turn; this many later decisions (a long subagent run) before it would be needed to
/// push an id out. Checked every `PRUNE_EVERY` inserts.
const MAX_DECIDED: i64 = 65_536;
const PRUNE_EVERY: i64 = 1024;

/// `session_facts` key: the digest of the policy the session's first decision was made under.
const FIRST_POLICY: &str = "first_policy";
/// `session_facts` key: a PreToolUse without `tool_use_id` was seen (an old Claude Code), so a
/// PostToolUse whose id is unknown proves nothing.
const UNKEYED_PRE: &str = "unkeyed_pre";

/// What the session's store says about a PostToolUse's call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreSeen {
    /// Its PreToolUse decision is recorded.
    Decided,
    /// No PreToolUse decision is recorded for it: the hook did not run before the tool.
    Missing,
    /// The session cannot tell (PreToolUse events without ids, or a store from before this
    /// record existed).
    Unknown,
}

fn err(path: &Path, e: impl std::fmt::Display) -> LedgerError {
    LedgerError {
        path: path.to_path_buf(),
        message: format!("could not be used for the session's decided calls ({e})"),
    }
}

/// Moves the commit just made from the WAL into the database file and empties the WAL. A hook
/// process is the only connection when it opens the store, so SQLite rebuilds the WAL index
/// by reading the whole WAL on every open: a WAL left to grow (the ledger's lets it reach 1 MiB)
/// made each call pay for every earlier one (measured: +1.5 ms a call). With `synchronous=OFF`
/// the checkpoint syncs nothing. Best effort: a checkpoint that finds a reader leaves the WAL.
fn keep_wal_empty(conn: &Connection) {
    let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
}

impl LedgerStore {
    /// The sessions' decided-calls stores, beside this ledger store.
    pub fn decided_calls(&self) -> LedgerStore {
        self.sibling("calls", &[SCHEMA]).without_wal()
    }

    /// Records a PreToolUse decision: its `tool_use_id` (when it has one), and `digest` as the
    /// session's policy when it is the first. Returns the session's first digest (this one for
    /// the first call). Creates the store when the session has none.
    pub fn record_decision(
        &self,
        session_id: &str,
        tool_use_id: Option<&str>,
        digest: &str,
        now_ms: u64,
    ) -> Result<String, LedgerError> {
        let path = self.file_for(session_id);
        let fresh = !self.exists(session_id);
        let (mut conn, may_wal) = self
            .open_journaled(session_id, true)?
            .ok_or_else(|| err(&path, "the store could not be created"))?;
        let mut write = || -> rusqlite::Result<String> {
            // Evidence, not a decision: no sync (see the module doc, and `keep_wal_empty`).
            conn.pragma_update(None, "synchronous", "OFF")?;
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.prepare_cached("INSERT OR IGNORE INTO session_facts(key, value) VALUES (?1, ?2)")?
                .execute(params![FIRST_POLICY, digest])?;
            let first: String = tx
                .prepare_cached("SELECT value FROM session_facts WHERE key = ?1")?
                .query_row([FIRST_POLICY], |r| r.get(0))?;
            match tool_use_id.filter(|id| !id.is_empty()) {
                Some(id) => {
                    let added = tx
                        .prepare_cached(
                            "INSERT OR IGNORE INTO decided_calls(tool_use_id, at_ms) VALUES (?1, ?2)",
                        )?
                        .execute(params![id, now_ms as i64])?;
                    let last = tx.last_insert_rowid();
                    if added > 0 && last % PRUNE_EVERY == 0 {
                        tx.prepare_cached("DELETE FROM decided_calls WHERE id <= ?1")?
                            .execute([last - MAX_DECIDED])?;
                    }
                }
                None => {
                    tx.prepare_cached(
                        "INSERT OR IGNORE INTO session_facts(key, value) VALUES (?1, '1')",
                    )?
                    .execute([UNKEYED_PRE])?;
                }
            }
            tx.commit()?;
            // A rollback journal (every store this version makes) has no WAL to empty.
            if may_wal {
                keep_wal_empty(&conn);
            }
            Ok(first)
        };
        let first = write().map_err(|e| err(&path, e))?;
        drop(conn);
        if fresh {
            self.prune_stale(&path);
        }
        Ok(first)
    }

    /// Whether the PreToolUse decision of call `tool_use_id` is recorded in the session.
    pub fn pre_seen(&self, session_id: &str, tool_use_id: &str) -> Result<PreSeen, LedgerError> {
        let path = self.file_for(session_id);
        // No store: no PreToolUse of this session was ever decided here.
        let Some(conn) = self.open(session_id, false)? else {
            return Ok(PreSeen::Missing);
        };
        let read = || -> rusqlite::Result<PreSeen> {
            let found = conn
                .prepare_cached("SELECT 1 FROM decided_calls WHERE tool_use_id = ?1")?
                .query_row([tool_use_id], |_| Ok(()))
                .optional()?
                .is_some();
            if found {
                return Ok(PreSeen::Decided);
            }
            let unkeyed = conn
                .prepare_cached("SELECT 1 FROM session_facts WHERE key = ?1")?
                .query_row([UNKEYED_PRE], |_| Ok(()))
                .optional()?
                .is_some();
            Ok(if unkeyed {
                PreSeen::Unknown
            } else {
                PreSeen::Missing
            })
        };
        match read() {
            // A store without the tables (not made by this version): nothing to go by.
            Err(e) if e.to_string().contains("no such table") => Ok(PreSeen::Unknown),
            r => r.map_err(|e| err(&path, e)),
        }
    }
}

/// Record step of a PreToolUse: remembers the decision for bypass detection and flags policy
/// drift on the verdict. Never changes the decision: the new policy is what the user's files
/// say now (the agent cannot write them: self-protection), so drift is evidence, not a threat.
pub fn observe_pre(
    store: &LedgerStore,
    digest: &str,
    event: &HookEvent,
    now_ms: u64,
    mut verdict: Verdict,
) -> Verdict {
    match store.decided_calls().record_decision(
        &event.session_id,
        event.tool_use_id.as_deref(),
        digest,
        now_ms,
    ) {
        Ok(first) if first != digest => verdict.alerts.push(Alert::PolicyDrift {
            first,
            now: digest.to_string(),
        }),
        Ok(_) => {}
        Err(e) => tracing::warn!("could not record the decision for bypass detection: {e}"),
    }
    verdict
}

/// Record step of a PostToolUse: flags a call whose PreToolUse decision was never recorded.
/// A PostToolUse without `tool_use_id` cannot be matched and is not flagged.
pub fn observe_post(store: &LedgerStore, event: &HookEvent, mut verdict: Verdict) -> Verdict {
    let Some(id) = event.tool_use_id.as_deref().filter(|id| !id.is_empty()) else {
        return verdict;
    };
    match store.decided_calls().pre_seen(&event.session_id, id) {
        Ok(PreSeen::Missing) => verdict.alerts.push(Alert::Bypass {
            tool_use_id: id.to_string(),
        }),
        Ok(_) => {}
        Err(e) => tracing::warn!("could not check the call's PreToolUse decision: {e}"),
    }
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_are_found_and_the_first_policy_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path()).decided_calls();
        assert_eq!(store.pre_seen("s", "t1").unwrap(), PreSeen::Missing);
        assert_eq!(store.record_decision("s", Some("t1"), "a", 1).unwrap(), "a");
        // Recorded twice (two installs of the hook): still one row, no error.
        assert_eq!(store.record_decision("s", Some("t1"), "a", 2).unwrap(), "a");
        assert_eq!(store.record_decision("s", Some("t2"), "b", 3).unwrap(), "a");
        assert_eq!(store.pre_seen("s", "t1").unwrap(), PreSeen::Decided);
        assert_eq!(store.pre_seen("s", "t2").unwrap(), PreSeen::Decided);
        assert_eq!(store.pre_seen("s", "t3").unwrap(), PreSeen::Missing);
        // Sessions are apart.
        assert_eq!(store.pre_seen("other", "t1").unwrap(), PreSeen::Missing);
        // A PreToolUse without an id makes an unknown id unprovable.
        store.record_decision("s", None, "a", 4).unwrap();
        assert_eq!(store.pre_seen("s", "t3").unwrap(), PreSeen::Unknown);
        assert_eq!(store.pre_seen("s", "t1").unwrap(), PreSeen::Decided);
    }

    /// A store this version makes keeps a rollback journal, so no checkpoint is asked of it;
    /// one an earlier version made with a WAL stays a WAL store (and is checkpointed) while
    /// another connection has it open, and is switched once none does.
    #[test]
    fn only_a_store_still_in_wal_mode_is_checkpointed() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path()).decided_calls();
        store.record_decision("s", Some("t1"), "a", 1).unwrap();
        let file = store.file_for("s");
        let wal = std::path::PathBuf::from(format!("{}-wal", file.display()));
        let may_wal = || store.open_journaled("s", false).unwrap().unwrap().1;
        assert!(!may_wal());
        assert!(!wal.exists());
        let other = Connection::open(&file).unwrap();
        other.execute_batch("PRAGMA journal_mode = WAL").unwrap();
        other
            .execute_batch("BEGIN; SELECT count(*) FROM decided_calls;")
            .unwrap();
        assert!(may_wal(), "a reader keeps it a WAL store");
        store.record_decision("s", Some("t2"), "a", 2).unwrap();
        drop(other);
        assert_eq!(store.pre_seen("s", "t2").unwrap(), PreSeen::Decided);
        assert!(!may_wal(), "switched once no other connection has it open");
    }

    #[test]
    fn a_store_without_the_tables_cannot_tell() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        // A ledger write made the store; no decision was recorded in it.
        store
            .update("s", |l| {
                l.entries.insert(
                    "/a".into(),
                    serde_json::from_value(serde_json::json!({
                        "path": "/a", "tool": "Write", "summary": "", "how": "Write",
                        "from_network": false, "executable": false, "excerpt_complete": false,
                        "written_at": 1, "confirmed": false
                    }))
                    .unwrap(),
                )
            })
            .unwrap();
        assert_eq!(store.pre_seen("s", "t1").unwrap(), PreSeen::Unknown);
    }

    #[test]
    fn old_ids_are_pruned_past_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path()).decided_calls();
        let conn = {
            store.record_decision("s", Some("first"), "a", 1).unwrap();
            store.open("s", false).unwrap().unwrap()
        };
        // Jump the row ids forward instead of inserting 65,536 rows one by one.
        conn.execute(
            "INSERT INTO decided_calls(id, tool_use_id, at_ms) VALUES (?1, 'late', 2)",
            [MAX_DECIDED + PRUNE_EVERY - 1],
        )
        .unwrap();
        store.record_decision("s", Some("next"), "a", 3).unwrap();
        assert_eq!(store.pre_seen("s", "first").unwrap(), PreSeen::Missing);
        assert_eq!(store.pre_seen("s", "late").unwrap(), PreSeen::Decided);
        assert_eq!(store.pre_seen("s", "next").unwrap(), PreSeen::Decided);
    }

    #[test]
    fn the_stages_flag_drift_and_bypass() {
        let store = LedgerStore::in_memory();
        let mut ev = HookEvent::hypothetical(
            "s",
            Path::new("/p"),
            "Bash".into(),
            serde_json::json!({"command": "ls"}),
        );
        ev.tool_use_id = Some("t1".into());
        let v = observe_pre(&store, "a", &ev, 1, Verdict::no_opinion());
        assert!(v.alerts.is_empty());
        ev.tool_use_id = Some("t2".into());
        let v = observe_pre(&store, "b", &ev, 2, Verdict::no_opinion());
        assert_eq!(
            v.alerts,
            vec![Alert::PolicyDrift {
                first: "a".into(),
                now: "b".into()
            }]
        );
        assert_eq!(v.effect, None, "drift never changes the decision");
        ev.hook_event_name = "PostToolUse".into();
        assert!(
            observe_post(&store, &ev, Verdict::no_opinion())
                .alerts
                .is_empty()
        );
        ev.tool_use_id = Some("t9".into());
        assert_eq!(
            observe_post(&store, &ev, Verdict::no_opinion()).alerts,
            vec![Alert::Bypass {
                tool_use_id: "t9".into()
            }]
        );
        ev.tool_use_id = None;
        assert!(
            observe_post(&store, &ev, Verdict::no_opinion())
                .alerts
                .is_empty()
        );
    }
}
