//! Where a session's ledger lives and how it is read and updated: one SQLite database per
//! session (`<state dir>/ledger/<hash>.db`), named by a hash of the session id (session ids are
//! untrusted and never reach a path), one row per written path.
//!
//! Why SQLite: a call reads and writes only the rows it needs (the primary key is the path,
//! indexes cover the file name, its extension and the calls still waiting for their audit
//! receipt; a directory run reads the rows of the files it takes, `super::dirrun`), so a call
//! costs the same on the 10,000th call of a session as on the first; and cross-process
//! concurrency is built in (WAL, one writer at a time, readers never blocked).
//!
//! Durability: WAL with `synchronous=NORMAL` and no checkpoint when a connection closes, so a
//! hook process never waits for `fsync`; the commit that brings the WAL to `WAL_AUTOCHECKPOINT`
//! pages checkpoints it (and syncs) and then empties it (`settle_wal`), or in the hook notes it
//! for a process of its own to do after the answer (`checkpoints_deferred`). A crash of the process
//! loses nothing committed; a power loss or kernel crash can lose the last commits since the
//! last checkpoint (never corrupts the store). See docs/AUDIT.md.
//!
//! Failure rules: a store that exists but cannot be opened or read, has a shape this version
//! did not write, or is not a regular file of this user (a symlink, a FIFO) is an error, never
//! an empty ledger: forgetting what the agent wrote would let a write-then-run chain through.
//! A store is created whole in a temp file and renamed into place, so a crash while creating
//! one leaves no half-made store. A JSON ledger of an earlier version is migrated into the new
//! store on first use and then removed (a corrupt one is an error, kept for inspection).

use super::dirrun::{DirRun, extension};
use super::{EXCERPT_BUDGET, Ledger, LedgerEntry, MAX_ENTRIES};
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Ledgers of sessions untouched this long are removed when a new session starts one.
pub const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);
/// Most stale files removed at once, so starting a session stays quick.
pub(super) const MAX_PRUNED: usize = 256;

/// Largest legacy JSON ledger read for migration; a bigger one is reported, not trusted.
pub const MAX_LEDGER_BYTES: u64 = 64 * 1024 * 1024;

/// How long a call waits for another process's write to finish: well under the hook's 10 s
/// deadline, so a stuck writer turns into a reported ledger error, not a deadline kill.
const BUSY_TIMEOUT: Duration = Duration::from_secs(4);
/// WAL pages before a commit checkpoints them, syncing, or in the hook makes that checkpoint
/// due for a process of its own (`LedgerStore::checkpoints_deferred`).
const WAL_AUTOCHECKPOINT: i32 = 64;
/// A WAL larger than this is checkpointed and truncated by the next call that opens the store.
const MAX_WAL_BYTES: u64 = 1024 * 1024;
/// The shape of the store this version writes (SQLite `user_version`). 2 added the limit
/// counters (`super::limits`), 3 the extension column and its index (`migrate_to_3`), 4 the
/// key filter beside the store (`super::keyset`, `migrate_to_4`), 5 the exposure keys in it
/// (`migrate_to_5`), 6 the latest exposure beside the store (`super::latest`, `migrate_to_6`),
/// 7 the receipts apart from their rows (`RECEIPTS`, `migrate_to_7`), 8 the running totals
/// kept by the code that changes rows, not by triggers (`migrate_to_8`), 9 the rows in a rowid
/// table with the body last (`ENTRIES`, `migrate_to_9`); a store of an earlier version is
/// migrated when it is opened.
pub(super) const SCHEMA_VERSION: i64 = 9;
/// Most passes of one step over a partial view (each pass fetches the rows the last one
/// missed; chains are followed 4 deep, so a handful suffice).
pub(super) const MAX_PASSES: usize = 8;

#[cfg(test)]
thread_local! {
    /// How many times this thread opened a session's store (tests count the opens of a call).
    pub(crate) static OPENS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The ledger's tables: its entries and the limit counters.
const LEDGER_SCHEMA: &[&str] = &[ENTRIES, TOTALS, RECEIPTS, super::limits::SCHEMA];

/// The rows, one per written path, and their indexes (version 9, `migrate_to_9`).
///
/// A rowid table with the body last, not a `WITHOUT ROWID` table keyed by path: there, every
/// seek by path compared the key with whole rows, and SQLite reads a row's whole payload,
/// overflow pages and all, to compare it with a key. A body holds up to 32 KiB of excerpt, so
/// each lookup read (and each write read again) the bodies its search passed. Here a seek by
/// path goes through the key's own index; a body is read only by the query that asks for it.
/// Each index ends with `path` so the queries that list paths read the index alone.
const ENTRIES: &str = "
CREATE TABLE entries(
    path TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    tool_use_id TEXT,
    pending_receipt INTEGER NOT NULL,
    written_at INTEGER NOT NULL,
    excerpt_bytes INTEGER NOT NULL,
    ext TEXT NOT NULL DEFAULT '',
    body TEXT NOT NULL
);
CREATE INDEX entries_by_name ON entries(name, path);
CREATE INDEX entries_by_ext ON entries(ext, path);
CREATE INDEX entries_pending ON entries(tool_use_id, path) WHERE pending_receipt = 1;
CREATE INDEX entries_by_age ON entries(written_at, path);
";

/// The running totals `enforce_bounds` reads, kept by the code that changes rows.
const TOTALS: &str = "
CREATE TABLE totals(
    id INTEGER PRIMARY KEY CHECK (id = 0),
    entries INTEGER NOT NULL,
    excerpt_bytes INTEGER NOT NULL
);
INSERT INTO totals VALUES (0, 0, 0);
";

/// Version 7's table: the receipt of a row written before its call's audit entry existed, kept
/// apart from the row (see `set_receipt`).
const RECEIPTS: &str = "
CREATE TABLE receipts(
    path TEXT PRIMARY KEY NOT NULL,
    receipt TEXT NOT NULL
) WITHOUT ROWID;
";

/// The triggers versions 1 to 7 kept `totals` and `receipts` with; version 8 keeps them in
/// code (`upsert`, `remove`), see `migrate_to_8`.
const OLD_TRIGGERS: &str = "
DROP TRIGGER IF EXISTS entries_added;
DROP TRIGGER IF EXISTS entries_removed;
DROP TRIGGER IF EXISTS entries_changed;
DROP TRIGGER IF EXISTS entries_receipt_removed;
";

/// Why the ledger could not be read or written. The hook turns it into a deny (or an ask,
/// with `audit.on_error: ask`) naming the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerError {
    pub path: PathBuf,
    pub message: String,
}

impl std::fmt::Display for LedgerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the action ledger {} {}",
            self.path.display(),
            self.message
        )
    }
}

impl std::error::Error for LedgerError {}

/// The ledgers of all sessions under one state directory, or in memory only.
#[derive(Debug, Clone)]
pub struct LedgerStore {
    dir: PathBuf,
    /// Set for a store that lives in memory only (`check`, `replay`): nothing touches disk.
    memory: Option<std::sync::Arc<Memory>>,
    /// Whether a commit that fills the WAL leaves its checkpoint to the caller
    /// (`checkpoints_deferred`).
    defer_checkpoints: bool,
}

/// The in-memory databases of a memory-only store: one shared-cache SQLite database per
/// session, kept alive by one open connection each while the store lives. The same schema
/// and the same code paths as on disk; only where the bytes live differs.
#[derive(Debug)]
struct Memory {
    /// Distinguishes the stores of one process (shared-cache names are process-wide).
    id: u64,
    keepers: std::sync::Mutex<std::collections::HashMap<String, Connection>>,
}

impl LedgerStore {
    /// The store under `<data_dir>/ledger`.
    pub fn new(data_dir: &Path) -> LedgerStore {
        LedgerStore {
            dir: data_dir.join("ledger"),
            memory: None,
            defer_checkpoints: false,
        }
    }

    /// This store, whose commits that fill a WAL do not checkpoint it: they note the store in
    /// `take_due_checkpoints`, for the caller to checkpoint once it has answered (the hook hands
    /// it to a process of its own). Why: a checkpoint syncs the WAL and the database, 1-2 ms on
    /// these machines, in one write call of four or five; the call that paid it was the slowest
    /// of its kind (docs/PERFORMANCE.md).
    pub fn checkpoints_deferred(mut self) -> LedgerStore {
        self.defer_checkpoints = true;
        self
    }

    /// A store that lives in memory only, empty, gone when the last clone is dropped: what
    /// `check` and `replay` run the pipeline with, so they need no state directory.
    pub fn in_memory() -> LedgerStore {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        LedgerStore {
            dir: PathBuf::from("(memory)"),
            memory: Some(std::sync::Arc::new(Memory {
                id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                keepers: Default::default(),
            })),
            defer_checkpoints: false,
        }
    }

    /// The shared-cache URI of a session's in-memory database.
    fn memory_uri(&self, m: &Memory, session_id: &str) -> String {
        // By the store's file name, so a sibling store's database is another one.
        let file = self.file_for(session_id);
        let digest = hex::encode(Sha256::digest(file.to_string_lossy().as_bytes()));
        format!(
            "file:palisade-{}-{}-{}?mode=memory&cache=shared",
            std::process::id(),
            m.id,
            &digest[..16]
        )
    }

    /// `open` for a memory-only store: the database is made (schema, version) on first
    /// `create`, and a new connection to it is returned.
    fn open_memory(
        &self,
        m: &Memory,
        session_id: &str,
        create: bool,
    ) -> Result<Option<Connection>, LedgerError> {
        let path = self.file_for(session_id);
        let uri = self.memory_uri(m, session_id);
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_SHARED_CACHE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut keepers = m
            .keepers
            .lock()
            .map_err(|_| error(&path, "could not be used (a thread panicked)".into()))?;
        if let std::collections::hash_map::Entry::Vacant(slot) =
            keepers.entry(path.to_string_lossy().into_owned())
        {
            if !create {
                return Ok(None);
            }
            let conn = Connection::open_with_flags(&uri, flags).map_err(|e| sql_error(&path, e))?;
            LEDGER_SCHEMA
                .iter()
                .try_for_each(|part| conn.execute_batch(part))
                .and_then(|_| conn.pragma_update(None, "user_version", SCHEMA_VERSION))
                .map_err(|e| sql_error(&path, e))?;
            slot.insert(conn);
        }
        let conn = Connection::open_with_flags(&uri, flags).map_err(|e| sql_error(&path, e))?;
        Ok(Some(conn))
    }

    /// Another per-session record's folder beside the ledger's (`<state dir>/<name>/`).
    pub(super) fn sibling_dir(&self, name: &str) -> PathBuf {
        self.dir.parent().unwrap_or(Path::new("")).join(name)
    }

    /// Whether this store lives in memory only.
    pub(super) fn is_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// The store of a session: `<dir>/<first 16 hex digits of sha256(session_id)>.db`.
    pub fn file_for(&self, session_id: &str) -> PathBuf {
        Self::session_file(&self.dir, session_id)
    }

    /// `<dir>/<first 16 hex digits of sha256(session_id)>.db`: a session's files in any of the
    /// state directory's folders are named by the same hash.
    pub(super) fn session_file(dir: &Path, session_id: &str) -> PathBuf {
        let digest = hex::encode(Sha256::digest(session_id.as_bytes()));
        dir.join(format!("{}.db", &digest[..16]))
    }

    /// The JSON ledger an earlier version kept for the session (migrated on first use).
    fn legacy_for(&self, session_id: &str) -> PathBuf {
        self.file_for(session_id).with_extension("json")
    }

    fn lock_for(&self, session_id: &str) -> PathBuf {
        self.file_for(session_id).with_extension("lock")
    }

    /// Whether the session has a ledger (a store, or a JSON ledger still to migrate). Cheap:
    /// calls of sessions that never wrote a file open nothing.
    pub fn exists(&self, session_id: &str) -> bool {
        if let Some(m) = &self.memory {
            let key = self.file_for(session_id).to_string_lossy().into_owned();
            return m.keepers.lock().is_ok_and(|k| k.contains_key(&key));
        }
        fs::symlink_metadata(self.file_for(session_id)).is_ok()
            || fs::symlink_metadata(self.legacy_for(session_id)).is_ok()
    }

    /// Reads a session's whole ledger (empty when none was written yet), for inspection and
    /// tests; the hook reads only the rows a call needs (`read`). A store that exists but
    /// cannot be read is an error, never an empty ledger.
    pub fn load(&self, session_id: &str) -> Result<Ledger, LedgerError> {
        match self.open(session_id, false)? {
            None => Ok(Ledger::default()),
            Some(conn) if self.memory.is_some() => read_all(&conn, &self.file_for(session_id)),
            Some(_) => read_file(&self.file_for(session_id)),
        }
    }

    /// Runs a read-only step over the rows it needs: first the rows of `keys`, then, pass by
    /// pass, any row the step asked for and did not have (a chain followed into another file).
    pub fn read<T>(
        &self,
        session_id: &str,
        keys: &[String],
        mut step: impl FnMut(&Ledger) -> T,
    ) -> Result<T, LedgerError> {
        let Some(mut conn) = self.open(session_id, false)? else {
            return Ok(step(&Ledger::default()));
        };
        let path = self.file_for(session_id);
        // One read transaction: every pass sees the same snapshot.
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Deferred)
            .map_err(|e| sql_error(&path, e))?;
        let mut view = Ledger::partial();
        let mut fetched = BTreeSet::new();
        fetch(&tx, &path, &mut view, &mut fetched, keys.iter().cloned())?;
        for _ in 0..MAX_PASSES {
            let out = step(&view);
            let missing: Vec<String> = view
                .take_misses()
                .into_iter()
                .filter(|k| !fetched.contains(k))
                .collect();
            if missing.is_empty() {
                return Ok(out);
            }
            fetch(&tx, &path, &mut view, &mut fetched, missing.into_iter())?;
        }
        Err(too_many_passes(&path))
    }

    /// Reads, changes and writes back a session's ledger in one write transaction.
    pub fn update<T>(
        &self,
        session_id: &str,
        mut change: impl FnMut(&mut Ledger) -> T,
    ) -> Result<T, LedgerError> {
        self.update_keys(session_id, &[], |l| (change(l), true))
    }

    /// Like `update`, but writes back only when `change` says it changed something.
    pub fn update_when<T>(
        &self,
        session_id: &str,
        change: impl FnMut(&mut Ledger) -> (T, bool),
    ) -> Result<T, LedgerError> {
        self.update_keys(session_id, &[], change)
    }

    /// `update_when` over the rows of `keys` first (see `read`). `change` may run more than
    /// once (on a fresh copy each time): it runs on a snapshot without holding the write
    /// lock (it analyses content, which may take a while), and again under the lock only if
    /// a row it read changed meanwhile. Only its last run is written back: the rows it
    /// changed, added or removed.
    pub fn update_keys<T>(
        &self,
        session_id: &str,
        keys: &[String],
        mut change: impl FnMut(&mut Ledger) -> (T, bool),
    ) -> Result<T, LedgerError> {
        let path = self.file_for(session_id);
        let fresh = !self.exists(session_id);
        let mut conn = if fresh {
            // Nothing ledgered yet: a change that records nothing creates no store.
            let (out, changed) = change(&mut Ledger::default());
            if !changed {
                return Ok(out);
            }
            self.open(session_id, true)?
        } else {
            self.open(session_id, false)?
        }
        .ok_or_else(|| error(&path, "could not be created".into()))?;
        // First run on a snapshot, outside the write lock.
        let planned = {
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Deferred)
                .map_err(|e| sql_error(&path, e))?;
            let mut base = Ledger::partial();
            let mut fetched = BTreeSet::new();
            fetch(&tx, &path, &mut base, &mut fetched, keys.iter().cloned())?;
            let planned = run_change(&tx, &path, &mut base, &mut fetched, &mut change)?;
            (base, fetched, planned)
        };
        let (snapshot, read_keys, (work, out, changed)) = planned;
        if !changed {
            return Ok(out);
        }
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| sql_error(&path, e))?;
        let mut base = Ledger::partial();
        let mut fetched = BTreeSet::new();
        fetch(
            &tx,
            &path,
            &mut base,
            &mut fetched,
            read_keys.iter().cloned(),
        )?;
        let (work, out, changed) = if base.entries == snapshot.entries {
            (work, out, changed)
        } else {
            // Another process changed a row this change read: run it again under the lock.
            run_change(&tx, &path, &mut base, &mut fetched, &mut change)?
        };
        if changed {
            write_back(&tx, &path, &base, &work)?;
            enforce_bounds(&tx, &path)?;
        }
        tx.commit().map_err(|e| sql_error(&path, e))?;
        drop(conn);
        if fresh && self.memory.is_none() {
            self.prune_stale(&path);
        }
        Ok(out)
    }

    /// Gives the entries a call recorded (by `tool_use_id`, still without a receipt) the
    /// receipt of the audit entry appended for that call. Returns how many changed; a session
    /// without a ledger has none.
    pub fn attach_receipt(
        &self,
        session_id: &str,
        tool_use_id: &str,
        receipt: &super::Receipt,
    ) -> Result<usize, LedgerError> {
        let Some(mut conn) = self.open(session_id, false)? else {
            return Ok(0);
        };
        let path = self.file_for(session_id);
        // Most calls recorded nothing: look first, take the write lock only when needed.
        if pending_paths(&conn, &path, tool_use_id)?.is_empty() {
            return Ok(0);
        }
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| sql_error(&path, e))?;
        let n = attach_pending(&tx, &path, tool_use_id, receipt)?;
        tx.commit().map_err(|e| sql_error(&path, e))?;
        Ok(n)
    }

    /// The entries of a session whose file name is `name` (`Makefile`, `.envrc`, `conftest.py`:
    /// files tools load by convention), by index.
    pub fn by_name(&self, session_id: &str, name: &str) -> Result<Vec<LedgerEntry>, LedgerError> {
        let Some(conn) = self.open(session_id, false)? else {
            return Ok(Vec::new());
        };
        let path = self.file_for(session_id);
        select_bodies(
            &conn,
            &path,
            concat!("SELECT ", row_columns!(), " FROM entries WHERE name = ?1"),
            name,
        )
    }

    /// Opens the session's store; `None` when it has none and `create` is false. Creates it
    /// (migrating a JSON ledger of an earlier version) when `create` is true, or when a JSON
    /// ledger is waiting to be migrated.
    pub(super) fn open(
        &self,
        session_id: &str,
        create: bool,
    ) -> Result<Option<Connection>, LedgerError> {
        #[cfg(test)]
        OPENS.with(|n| n.set(n.get() + 1));
        if let Some(m) = &self.memory {
            return self.open_memory(m, session_id, create);
        }
        let path = self.file_for(session_id);
        match fs::symlink_metadata(&path) {
            Ok(m) => {
                check_owned_file(&path, &m)?;
                return connect(&path, self.defer_checkpoints).map(Some);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(error(&path, format!("could not be read ({e})"))),
        }
        let legacy = self.legacy_for(session_id);
        let has_legacy = fs::symlink_metadata(&legacy).is_ok();
        if !create && !has_legacy {
            return Ok(None);
        }
        fs::create_dir_all(&self.dir)
            .map_err(|e| error(&path, format!("could not be created ({e})")))?;
        // Creation is serialized per session; the loser of a race finds the store made.
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.lock_for(session_id))
            .map_err(|e| error(&path, format!("could not be locked ({e})")))?;
        lock.lock()
            .map_err(|e| error(&path, format!("could not be locked ({e})")))?;
        if fs::symlink_metadata(&path).is_err() {
            let migrated = if has_legacy {
                Some(read_legacy(&legacy)?)
            } else {
                None
            };
            create_store(&path, migrated.as_ref())?;
            if has_legacy {
                // Migrated: the store holds every entry, the JSON file is no longer read.
                let _ = fs::remove_file(&legacy);
                tracing::info!(
                    "migrated the JSON ledger {} into {}",
                    legacy.display(),
                    path.display()
                );
            }
        }
        drop(lock);
        check_owned_path(&path)?;
        connect(&path, self.defer_checkpoints).map(Some)
    }

    /// Removes ledgers (and their side files) of sessions not written for `STALE_AFTER`.
    /// Best effort: a file that cannot be removed stays, nothing fails.
    pub(super) fn prune_stale(&self, keep: &Path) {
        if self.memory.is_some() {
            return;
        }
        let Ok(dir) = fs::read_dir(&self.dir) else {
            return;
        };
        let now = std::time::SystemTime::now();
        let age = |p: &Path| age_of(p, now);
        let mut removed = 0;
        for entry in dir.flatten() {
            if removed >= MAX_PRUNED {
                break;
            }
            let path = entry.path();
            let main = path.extension().is_some_and(|x| x == "db" || x == "json");
            if path == keep || !main {
                continue;
            }
            // A WAL holds the latest writes; the session is stale only if both are old.
            let wal = wal_of(&path);
            let stale = age(&path).is_some_and(|a| a > STALE_AFTER)
                && age(&wal).is_none_or(|a| a > STALE_AFTER);
            if stale && fs::remove_file(&path).is_ok() {
                for side in ["-wal", "-shm", "-journal", "-keys", "-latest"] {
                    let _ = fs::remove_file(format!("{}{side}", path.display()));
                }
                let _ = fs::remove_file(path.with_extension("lock"));
                removed += 1;
            }
        }
    }
}

/// How long ago `path` was last written, at `now`; `None` when that cannot be told (no file,
/// a time in the future). A symlink is judged itself, not what it points to.
pub(super) fn age_of(path: &Path, now: std::time::SystemTime) -> Option<std::time::Duration> {
    fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| now.duration_since(t).ok())
}

/// Reads a whole store file (for `palisade doctor` and inspection), every row parsed.
pub fn read_file(path: &Path) -> Result<Ledger, LedgerError> {
    check_owned_path(path)?;
    read_all(&connect(path, false)?, path)
}

/// Every row of an open store, parsed.
fn read_all(conn: &Connection, path: &Path) -> Result<Ledger, LedgerError> {
    let rows = (|| {
        let mut stmt = conn.prepare(concat!("SELECT ", row_columns!(), " FROM entries"))?;
        stmt.query_map([], row)?.collect::<Result<Vec<Row>, _>>()
    })()
    .map_err(|e| sql_error(path, e))?;
    let mut ledger = Ledger::default();
    for r in &rows {
        let e = parse_row(path, r)?;
        ledger.entries.insert(e.path.clone(), e);
    }
    Ok(ledger)
}

pub(super) fn error(path: &Path, message: String) -> LedgerError {
    LedgerError {
        path: path.to_path_buf(),
        message,
    }
}

pub(super) fn sql_error(path: &Path, e: rusqlite::Error) -> LedgerError {
    use rusqlite::ErrorCode::*;
    let code = e.sqlite_error_code();
    let message = match code {
        Some(NotADatabase | DatabaseCorrupt) => {
            format!("is corrupt ({e}); remove it to start this session's ledger afresh")
        }
        Some(DatabaseBusy | DatabaseLocked) => {
            format!("stayed locked by another process ({e})")
        }
        _ if matches!(e, rusqlite::Error::SqliteFailure(_, _)) => {
            format!("could not be used ({e})")
        }
        // A column of the wrong type or a missing table: not a store this version wrote.
        _ => format!("is corrupt ({e}); remove it to start this session's ledger afresh"),
    };
    error(path, message)
}

pub(super) fn too_many_passes(path: &Path) -> LedgerError {
    error(
        path,
        format!("was asked for rows more than {MAX_PASSES} times by one call"),
    )
}

/// `check_owned_file` on the file at `path` as it is now (a link not followed).
fn check_owned_path(path: &Path) -> Result<(), LedgerError> {
    let m =
        fs::symlink_metadata(path).map_err(|e| error(path, format!("could not be read ({e})")))?;
    check_owned_file(path, &m)
}

/// A store must be a regular file of this user: a symlink or FIFO planted in the state
/// directory would redirect or block the ledger.
pub(super) fn check_owned_file(path: &Path, m: &fs::Metadata) -> Result<(), LedgerError> {
    use std::os::unix::fs::MetadataExt;
    if !m.file_type().is_file() {
        return Err(error(
            path,
            "is not a regular file (a symlink, FIFO or directory); remove it".into(),
        ));
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if m.uid() != me {
        return Err(error(
            path,
            format!(
                "is owned by uid {}, not by you (uid {me}); remove it",
                m.uid()
            ),
        ));
    }
    Ok(())
}

/// The WAL file beside the store `db` (SQLite names it so).
fn wal_of(db: &Path) -> PathBuf {
    PathBuf::from(format!("{}-wal", db.display()))
}

/// Opens an existing store as it is (no link followed, none created), waiting for another
/// process's write up to `BUSY_TIMEOUT`.
fn open_existing(path: &Path) -> Result<Connection, LedgerError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW,
    )
    .map_err(|e| sql_error(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| sql_error(path, e))?;
    Ok(conn)
}

/// Opens a store, migrating one of an earlier version; `defer`: see `checkpoints_deferred`.
fn connect(path: &Path, defer: bool) -> Result<Connection, LedgerError> {
    let conn = open_existing(path)?;
    let mut version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| sql_error(path, e))?;
    if version == 1 {
        version = migrate_to_2(&conn).map_err(|e| sql_error(path, e))?;
    }
    if version == 2 {
        version = migrate_to_3(&conn).map_err(|e| sql_error(path, e))?;
    }
    if version == 3 {
        version = migrate_to_4(&conn).map_err(|e| sql_error(path, e))?;
    }
    if version == 4 {
        version = migrate_to_5(&conn).map_err(|e| sql_error(path, e))?;
    }
    if version == 5 {
        version = migrate_to_6(&conn).map_err(|e| sql_error(path, e))?;
    }
    if version == 6 {
        version = migrate_to_7(&conn).map_err(|e| sql_error(path, e))?;
    }
    if version == 7 {
        version = migrate_to_8(&conn).map_err(|e| sql_error(path, e))?;
    }
    if version == 8 {
        version = migrate_to_9(&conn).map_err(|e| sql_error(path, e))?;
    }
    // A later version's store is refused like a corrupt one (this version cannot keep what
    // the later one keeps), but said as what it is: after a downgrade, the fix is the newer
    // binary, or a fresh ledger.
    if version > SCHEMA_VERSION {
        return Err(error(
            path,
            format!(
                "was written by a newer palisade (schema version {version}; this one reads \
                 {SCHEMA_VERSION}); run that version, or remove it to start this session's \
                 ledger afresh"
            ),
        ));
    }
    if version != SCHEMA_VERSION {
        return Err(error(
            path,
            format!(
                "is corrupt (schema version {version}, expected {SCHEMA_VERSION}); remove it \
                 to start this session's ledger afresh"
            ),
        ));
    }
    tune(&conn, defer).map_err(|e| sql_error(path, e))?;
    // The bench's 10,000-call session showed a WAL that grew past 100 MB (auto-checkpoints
    // never brought it back) and calls that slowed with it. A WAL over 1 MiB is checkpointed
    // and truncated here, best effort (a failure leaves the WAL as it is, which loses nothing).
    let wal = wal_of(path);
    if fs::metadata(&wal).is_ok_and(|m| m.len() > MAX_WAL_BYTES) {
        let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }
    Ok(conn)
}

/// Runs `work` and sets the version to `to` when the store is at version `to - 1`: one
/// `BEGIN IMMEDIATE` transaction, the version read again under the write lock, so of two
/// processes migrating at once the second finds the work done, and a store is wholly one
/// version or the next, never half-migrated. Returns the version after it.
fn migrate(
    conn: &Connection,
    to: i64,
    work: impl FnOnce(&Connection) -> rusqlite::Result<()>,
) -> rusqlite::Result<i64> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let done = (|| {
        let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if v == to - 1 {
            work(conn)?;
            conn.pragma_update(None, "user_version", to)?;
        }
        conn.pragma_query_value(None, "user_version", |r| r.get(0))
    })();
    match done {
        Ok(v) => conn.execute_batch("COMMIT").map(|_| v),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// Version 1 → 2: adds the limit counters.
fn migrate_to_2(conn: &Connection) -> rusqlite::Result<i64> {
    migrate(conn, 2, |c| c.execute_batch(super::limits::SCHEMA))
}

/// Version 2 → 3: the extension column (`dirrun::extension` of each row's name) and its index,
/// through which a run of a directory finds the files it takes: a store is either version 2
/// or wholly version 3, never a half-filled column read as missing rows.
fn migrate_to_3(conn: &Connection) -> rusqlite::Result<i64> {
    migrate(conn, 3, |c| {
        c.execute_batch(
            "ALTER TABLE entries ADD COLUMN ext TEXT NOT NULL DEFAULT '';
             CREATE INDEX entries_by_ext ON entries(ext, path);",
        )?;
        let rows: Vec<(String, String)> = c
            .prepare("SELECT path, name FROM entries")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut set = c.prepare("UPDATE entries SET ext = ?1 WHERE path = ?2")?;
        for (p, name) in &rows {
            let x = extension(name);
            if !x.is_empty() {
                set.execute([x, p])?;
            }
        }
        Ok(())
    })
}

/// Version 3 → 4: the version only. Version 4 stores keep the key filter (`super::keyset`)
/// beside them, which the first row written builds from every row; the version bump is what
/// keeps a binary that does not know the filter from adding rows it would not hold.
fn migrate_to_4(conn: &Connection) -> rusqlite::Result<i64> {
    migrate(conn, 4, |_| Ok(()))
}

/// Version 4 → 5: the version only. The key filter now holds the exposure rows' keys too (a
/// send in a session with no private data does not open the store); a version-4 binary,
/// which writes exposure rows without noting them, must not write to a store read that way.
/// The filter's format changed with it, so a version-4 filter is rebuilt at the next write.
fn migrate_to_5(conn: &Connection) -> rusqlite::Result<i64> {
    migrate(conn, 5, |_| Ok(()))
}

/// Version 5 → 6: nothing in the store changes; the version keeps a binary that does not
/// write the latest exposure beside the store (`super::latest`) from adding rows to it. A
/// store migrated has no such file yet: readers open the store until a writer makes one.
fn migrate_to_6(conn: &Connection) -> rusqlite::Result<i64> {
    migrate(conn, 6, |_| Ok(()))
}

/// Version 6 → 7: the receipts table. The receipts already in rows stay there (a row's own
/// receipt is read first); a version-6 binary, which would not read this table, is kept out.
fn migrate_to_7(conn: &Connection) -> rusqlite::Result<i64> {
    migrate(conn, 7, |c| c.execute_batch(RECEIPTS))
}

/// Version 7 → 8: the triggers go; the totals they kept stay as they are, right. Why: SQLite
/// parses every trigger with the schema when a process opens the store, and codes them into
/// every statement that changes a row, which a hook process prepares afresh: 0.1 M
/// instructions of a chain's run step, 0.2-0.3 M of a Write (docs/PERFORMANCE.md). A
/// version-7 binary, whose rows' removal relied on them, is kept out.
fn migrate_to_8(conn: &Connection) -> rusqlite::Result<i64> {
    migrate(conn, 8, |c| c.execute_batch(OLD_TRIGGERS))
}

/// Version 8 → 9: the rows move to the table `ENTRIES` makes (why: there). The old table is
/// renamed and its indexes dropped so the new ones take their names; the rows are copied
/// as they are, so the totals and the receipts kept apart stay right. A version-8 binary,
/// which would read the old indexes' plans, is kept out by the version.
fn migrate_to_9(conn: &Connection) -> rusqlite::Result<i64> {
    migrate(conn, 9, |c| {
        c.execute_batch(
            "ALTER TABLE entries RENAME TO entries_v8;
             DROP INDEX entries_by_name;
             DROP INDEX entries_by_ext;
             DROP INDEX entries_pending;
             DROP INDEX entries_by_age;",
        )?;
        c.execute_batch(ENTRIES)?;
        c.execute_batch(
            "INSERT INTO entries(path, name, tool_use_id, pending_receipt, written_at, excerpt_bytes, ext, body)
             SELECT path, name, tool_use_id, pending_receipt, written_at, excerpt_bytes, ext, body
             FROM entries_v8;
             DROP TABLE entries_v8;",
        )
    })
}

/// Per-connection settings: no fsync per commit, no checkpoint when the process exits, and
/// `settle_wal` after each commit in place of SQLite's own autocheckpoint (with `defer`, its
/// note that a checkpoint is due).
fn tune(conn: &Connection, defer: bool) -> rusqlite::Result<()> {
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    // The hook's argument says which of the two it does: any non-null pointer defers (it is
    // never read through).
    let mode = if defer {
        std::ptr::NonNull::<std::ffi::c_void>::dangling().as_ptr()
    } else {
        std::ptr::null_mut()
    };
    // SAFETY: the handle is this open connection's; the callback keeps no pointer beyond its
    // call and is replaced or dropped with the connection (SQLite owns the registration).
    unsafe {
        rusqlite::ffi::sqlite3_wal_hook(conn.handle(), Some(settle_wal), mode);
    }
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )?;
    Ok(())
}

/// The stores whose WAL a commit of this process filled while checkpoints were deferred
/// (`checkpoints_deferred`), each once.
static DUE_CHECKPOINTS: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Takes the stores a deferred checkpoint is due for (see `checkpoints_deferred`).
pub fn take_due_checkpoints() -> Vec<PathBuf> {
    std::mem::take(&mut *DUE_CHECKPOINTS.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Checkpoints the store at `path` and empties its WAL, as a commit that fills the WAL does
/// when checkpoints are not deferred (`settle_wal`); what the hook's deferred checkpoints run.
/// Only a regular file of this user's named like a store is opened, never created or
/// migrated; a store another process is writing is left for a later commit (that loses
/// nothing: the WAL is part of the store).
pub fn checkpoint(path: &Path) -> Result<(), LedgerError> {
    check_owned_path(path)?;
    if path.extension().is_none_or(|x| x != "db") {
        return Err(error(path, "is not a session's store".into()));
    }
    let conn = open_existing(path)?;
    // A hook's own settings: closing then leaves the emptied WAL file (and the WAL index) in
    // place for the next call instead of removing them for it to make again, and the one page
    // written below is far under the checkpoint's threshold.
    tune(&conn, false).map_err(|e| sql_error(path, e))?;
    // SAFETY: the handle is this open connection's, "main" a NUL-terminated schema name.
    unsafe { settle(conn.handle(), c"main".as_ptr()) };
    let wal = wal_of(path);
    if fs::metadata(&wal).is_ok_and(|m| m.len() == 0) {
        // The first frame written to an empty WAL syncs the WAL's header: written here, that
        // sync is this process's, not the next hook call's. The smallest change that writes a
        // frame: the version set to what it is, read and written under the write lock (a
        // migration meanwhile is not undone). Best effort: without it, the next commit syncs.
        let _ = (|| -> rusqlite::Result<()> {
            conn.execute_batch("BEGIN IMMEDIATE")?;
            let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
            conn.pragma_update(None, "user_version", v)?;
            conn.execute_batch("COMMIT")
        })();
    }
    Ok(())
}

/// Runs after every commit to a WAL (SQLite's wal hook): once the WAL holds
/// `WAL_AUTOCHECKPOINT` pages, `settle`s it, or with checkpoints deferred (a non-null `mode`,
/// `tune`) notes the store in `DUE_CHECKPOINTS`. Always `SQLITE_OK`: the commit has happened
/// whatever this does.
unsafe extern "C" fn settle_wal(
    mode: *mut std::ffi::c_void,
    db: *mut rusqlite::ffi::sqlite3,
    name: *const std::ffi::c_char,
    pages: std::ffi::c_int,
) -> std::ffi::c_int {
    use rusqlite::ffi;
    if pages < WAL_AUTOCHECKPOINT {
        return ffi::SQLITE_OK;
    }
    if mode.is_null() {
        // SAFETY: `db` and `name` are what SQLite passed to its wal hook, valid for this call.
        unsafe { settle(db, name) };
        return ffi::SQLITE_OK;
    }
    // SAFETY: as above; SQLite's file name of an attached database is NUL-terminated text
    // that lives as long as the connection, copied here before the call returns.
    let file = unsafe { ffi::sqlite3_db_filename(db, name) };
    if !file.is_null() {
        use std::os::unix::ffi::OsStrExt;
        // SAFETY: non-null, NUL-terminated (above).
        let bytes = unsafe { std::ffi::CStr::from_ptr(file) }.to_bytes();
        let path = PathBuf::from(std::ffi::OsStr::from_bytes(bytes));
        let mut due = DUE_CHECKPOINTS.lock().unwrap_or_else(|e| e.into_inner());
        if !due.contains(&path) {
            due.push(path);
        }
    }
    ffi::SQLITE_OK
}

/// Copies the WAL into the database, syncing both, as SQLite's own autocheckpoint does (never
/// waiting: a checkpoint that finds a writer or an old reader leaves the rest to a later
/// commit); and when all of it is in the database, empties the WAL file.
///
/// Why empty it: every hook process is the first connection of its store, so SQLite rebuilds
/// the WAL index from every frame in the WAL file, checkpointed or not. A WAL left full after
/// its checkpoint was read back and checksummed by every later call until the next write
/// reset it (up to 1 MiB a call). Emptying a WAL whose frames are all in the database syncs
/// nothing and loses nothing.
///
/// # Safety
/// `db` is an open connection and `name` one of its schema names, NUL-terminated.
unsafe fn settle(db: *mut rusqlite::ffi::sqlite3, name: *const std::ffi::c_char) {
    use rusqlite::ffi;
    let (mut log, mut done) = (0, 0);
    // SAFETY: the caller's promise.
    unsafe {
        let copied = ffi::sqlite3_wal_checkpoint_v2(
            db,
            name,
            ffi::SQLITE_CHECKPOINT_PASSIVE,
            &mut log,
            &mut done,
        );
        if copied == ffi::SQLITE_OK && log >= 0 && done == log {
            // Emptying waits for no reader: one still reading the old frames makes it busy,
            // and the next writer restarts the WAL from its start anyway.
            ffi::sqlite3_busy_timeout(db, 0);
            ffi::sqlite3_wal_checkpoint_v2(
                db,
                name,
                ffi::SQLITE_CHECKPOINT_TRUNCATE,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            ffi::sqlite3_busy_timeout(db, BUSY_TIMEOUT.as_millis() as std::ffi::c_int);
        }
    }
}

/// The page size of a new store. A write call changes a row, its five index entries, the
/// totals and the exposure rows: a dozen pages, each written whole to the WAL, and every later
/// process reads and checksums the WAL's frames to rebuild its index (no connection outlives a
/// call). With 4 KiB pages that was 48 KiB of WAL a Write; with 1 KiB pages a quarter of it.
/// Stores made before keep their page size.
const STORE_PAGE_SIZE: i64 = 1024;

/// Makes a store whole in a temp file (schema, migrated entries, WAL mode), synced once, then
/// renames it into place: a crash leaves either no store or a complete one.
fn create_store(path: &Path, migrated: Option<&Ledger>) -> Result<(), LedgerError> {
    use std::os::unix::fs::PermissionsExt;
    let tmp = path.with_extension(format!("db.tmp.{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    let made = (|| -> Result<(), LedgerError> {
        File::create(&tmp)
            .and_then(|f| f.set_permissions(fs::Permissions::from_mode(0o600)))
            .map_err(|e| error(path, format!("could not be created ({e})")))?;
        let mut conn = Connection::open_with_flags(
            &tmp,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
                | OpenFlags::SQLITE_OPEN_NOFOLLOW,
        )
        .map_err(|e| sql_error(path, e))?;
        // Set before the first table makes the file (`STORE_PAGE_SIZE`).
        conn.pragma_update(None, "page_size", STORE_PAGE_SIZE)
            .map_err(|e| sql_error(path, e))?;
        let tx = conn.transaction().map_err(|e| sql_error(path, e))?;
        LEDGER_SCHEMA
            .iter()
            .try_for_each(|part| tx.execute_batch(part))
            .map_err(|e| sql_error(path, e))?;
        if let Some(l) = migrated {
            for e in l.entries.values() {
                upsert(&tx, path, e)?;
            }
            enforce_bounds(&tx, path)?;
        }
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(|e| sql_error(path, e))?;
        tx.commit().map_err(|e| sql_error(path, e))?;
        // WAL mode is recorded in the file: every later connection uses it.
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))
            .map_err(|e| sql_error(path, e))?;
        drop(conn);
        File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(|e| error(path, format!("could not be written ({e})")))?;
        fs::rename(&tmp, path).map_err(|e| error(path, format!("could not be created ({e})")))
    })();
    if made.is_err() {
        let _ = fs::remove_file(&tmp);
        for side in ["-wal", "-shm", "-journal", "-keys"] {
            let _ = fs::remove_file(format!("{}{side}", tmp.display()));
        }
    }
    made
}

/// The columns a row is read from: its body, then the receipt kept apart from it (`RECEIPTS`).
macro_rules! row_columns {
    () => {
        "entries.body, (SELECT receipts.receipt FROM receipts WHERE receipts.path = entries.path)"
    };
}
use row_columns;

/// A row read through [`row_columns`]: its body and its receipt when that is kept apart.
type Row = (String, Option<String>);

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok((r.get(0)?, r.get(1)?))
}

/// The entry of a row: its body, with the receipt kept apart when the body has none.
fn parse_row(path: &Path, (body, receipt): &Row) -> Result<LedgerEntry, LedgerError> {
    let mut e = parse_body(path, body)?;
    if let Some(r) = receipt
        && e.receipt.is_none()
    {
        e.receipt = Some(serde_json::from_str(r).map_err(|x| {
            error(
                path,
                format!("is corrupt (a receipt does not parse: {x}); remove it to start afresh"),
            )
        })?);
    }
    Ok(e)
}

fn parse_body(path: &Path, body: &str) -> Result<LedgerEntry, LedgerError> {
    serde_json::from_str(body).map_err(|e| {
        error(
            path,
            format!("is corrupt (an entry does not parse: {e}); remove it to start afresh"),
        )
    })
}

pub(super) fn select_bodies(
    conn: &Connection,
    path: &Path,
    sql: &str,
    arg: &str,
) -> Result<Vec<LedgerEntry>, LedgerError> {
    let rows = (|| {
        let mut stmt = conn.prepare_cached(sql)?;
        stmt.query_map([arg], row)?.collect::<Result<Vec<Row>, _>>()
    })()
    .map_err(|e| sql_error(path, e))?;
    rows.iter().map(|r| parse_row(path, r)).collect()
}

/// Runs `change` on copies of `base`, fetching the rows it asks for and lacks, until it asks
/// for nothing new. Returns its last copy and answer.
pub(super) fn run_change<T>(
    conn: &Connection,
    path: &Path,
    base: &mut Ledger,
    fetched: &mut BTreeSet<String>,
    change: &mut impl FnMut(&mut Ledger) -> (T, bool),
) -> Result<(Ledger, T, bool), LedgerError> {
    for _ in 0..MAX_PASSES {
        let mut work = base.clone();
        let (out, changed) = change(&mut work);
        let missing: Vec<String> = work
            .take_misses()
            .into_iter()
            .filter(|k| !fetched.contains(k))
            .collect();
        if missing.is_empty() {
            return Ok((work, out, changed));
        }
        fetch(conn, path, base, fetched, missing.into_iter())?;
    }
    Err(too_many_passes(path))
}

/// One row by its path (`fetch`).
pub(super) const FETCH_ROW: &str =
    concat!("SELECT ", row_columns!(), " FROM entries WHERE path = ?1");

/// Puts the rows of `keys` (those that exist) into `view`; every key is noted as fetched.
pub(super) fn fetch(
    conn: &Connection,
    path: &Path,
    view: &mut Ledger,
    fetched: &mut BTreeSet<String>,
    keys: impl Iterator<Item = String>,
) -> Result<(), LedgerError> {
    let mut stmt = conn
        .prepare_cached(FETCH_ROW)
        .map_err(|e| sql_error(path, e))?;
    for key in keys {
        if !fetched.insert(key.clone()) {
            continue;
        }
        if let Some((prefix, run)) = DirRun::parse(&key) {
            for p in files_under(conn, path, prefix, &run)? {
                if fetched.insert(p.clone()) {
                    fetch_row(&mut stmt, path, view, p)?;
                }
            }
            continue;
        }
        if key.contains('\0') {
            // A run's key this version cannot read: fetching nothing for it would judge the
            // run without its files.
            return Err(error(
                path,
                format!("was asked for rows by an unreadable key {key:?}"),
            ));
        }
        fetch_row(&mut stmt, path, view, key)?;
    }
    Ok(())
}

/// Puts the row of `key`, when there is one, into `view`.
fn fetch_row(
    stmt: &mut rusqlite::CachedStatement<'_>,
    path: &Path,
    view: &mut Ledger,
    key: String,
) -> Result<(), LedgerError> {
    let found: Option<Row> = stmt
        .query_row([&key], row)
        .optional()
        .map_err(|e| sql_error(path, e))?;
    if let Some(r) = found {
        let e = parse_row(path, &r)?;
        if e.path != key {
            return Err(error(
                path,
                format!("is corrupt (row {key} holds the entry of {})", e.path),
            ));
        }
        view.entries.insert(key, e);
    }
    Ok(())
}

/// The paths of the rows a run of the directory `prefix` takes, found through the indexes
/// (`name, path` and `ext, path`: only index entries of the names and extensions the run
/// takes, under the directory, are read) and checked by the run itself. No body is read here.
fn files_under(
    conn: &Connection,
    path: &Path,
    prefix: &str,
    run: &DirRun,
) -> Result<BTreeSet<String>, LedgerError> {
    // Paths from `prefix` up to, not including, the next string after it (`/` + 1 is `0`).
    let mut end = prefix[..prefix.len() - 1].to_string();
    end.push('0');
    let mut found = BTreeSet::new();
    let mut select = |sql: &str, arg: Option<&str>| -> Result<(), LedgerError> {
        let rows = (|| {
            let mut stmt = conn.prepare_cached(sql)?;
            let get = |r: &rusqlite::Row<'_>| r.get::<_, String>(0);
            match arg {
                Some(a) => stmt
                    .query_map([a, prefix, &end], get)?
                    .collect::<Result<Vec<String>, _>>(),
                None => stmt
                    .query_map([prefix, &end], get)?
                    .collect::<Result<Vec<String>, _>>(),
            }
        })()
        .map_err(|e: rusqlite::Error| sql_error(path, e))?;
        found.extend(rows.into_iter().filter(|p| run.takes(prefix, p)));
        Ok(())
    };
    for n in &run.names {
        select(
            "SELECT path FROM entries WHERE name = ?1 AND path > ?2 AND path < ?3",
            Some(n),
        )?;
    }
    let ends = run
        .suffixes
        .iter()
        .chain(run.affixes.iter().map(|(_, s)| s));
    let exts: BTreeSet<&str> = ends.clone().map(|s| extension(s)).collect();
    if ends.clone().any(|s| !s.contains('.')) {
        // An ending without an extension to seek by: every row under the directory (each
        // `DirRun::of` ending has one; this keeps a run of any other shape whole).
        select(
            "SELECT path FROM entries WHERE path > ?1 AND path < ?2",
            None,
        )?;
    } else {
        for x in exts {
            select(
                "SELECT path FROM entries WHERE ext = ?1 AND path > ?2 AND path < ?3",
                Some(x),
            )?;
        }
    }
    Ok(found)
}

/// The excerpt bytes of a row, if it is there (`upsert`).
pub(super) const EXCERPT_BYTES: &str = "SELECT excerpt_bytes FROM entries WHERE path = ?1";

/// Writes a row whole, made or replaced (`upsert`).
pub(super) const UPSERT: &str = "INSERT INTO entries(path, name, tool_use_id, pending_receipt, \
     written_at, excerpt_bytes, body, ext) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
     ON CONFLICT(path) DO UPDATE SET name = excluded.name, tool_use_id = excluded.tool_use_id, \
     pending_receipt = excluded.pending_receipt, written_at = excluded.written_at, \
     excerpt_bytes = excluded.excerpt_bytes, body = excluded.body, ext = excluded.ext";

pub(super) fn upsert(conn: &Connection, path: &Path, e: &LedgerEntry) -> Result<(), LedgerError> {
    let body =
        serde_json::to_string(e).map_err(|x| error(path, format!("could not be written ({x})")))?;
    let name = Path::new(&e.path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = extension(&name);
    // A row already there had its bits set when it was first written (in its transaction):
    // an update (a receipt, a trimmed excerpt) has nothing new to note, and the filter's 16 KiB
    // need not be read. Asked under the write lock the caller holds, so it cannot go meanwhile.
    let before: Option<i64> = conn
        .prepare_cached(EXCERPT_BYTES)
        .and_then(|mut s| s.query_row(params![e.path], |r| r.get(0)).optional())
        .map_err(|x| sql_error(path, x))?;
    let exists = before.is_some();
    if !exists {
        note_key(conn, path, &e.path)?;
    }
    let pending = e.tool_use_id.is_some() && e.receipt.is_none();
    let excerpt = e.excerpt.as_ref().map_or(0, String::len) as i64;
    conn.prepare_cached(UPSERT)
        .and_then(|mut s| {
            s.execute(params![
                e.path,
                name,
                e.tool_use_id,
                pending,
                e.written_at as i64,
                excerpt,
                body,
                ext
            ])
        })
        .map_err(|x| sql_error(path, x))?;
    add_to_totals(
        conn,
        path,
        i64::from(!exists),
        excerpt - before.unwrap_or(0),
    )?;
    // The row now holds its entry whole (its receipt in the body, or none yet): a receipt
    // kept apart was an earlier write's. A new row has none (a removed row takes its receipt
    // along, `remove`).
    if exists {
        forget_receipt(conn, path, &e.path)?;
    }
    Ok(())
}

/// Drops a row's receipt kept apart (`forget_receipt`).
pub(super) const FORGET_RECEIPT: &str = "DELETE FROM receipts WHERE path = ?1";

/// Drops the receipt kept apart for the row of `entry_path`, if any (`RECEIPTS`).
fn forget_receipt(conn: &Connection, path: &Path, entry_path: &str) -> Result<(), LedgerError> {
    conn.prepare_cached(FORGET_RECEIPT)
        .and_then(|mut s| s.execute([entry_path]))
        .map_err(|x| sql_error(path, x))?;
    Ok(())
}

/// Adds to the running totals (`add_to_totals`).
pub(super) const ADD_TO_TOTALS: &str =
    "UPDATE totals SET entries = entries + ?1, excerpt_bytes = excerpt_bytes + ?2 WHERE id = 0";

/// Keeps `totals` (what `enforce_bounds` reads) in step with a change of `entries` rows and
/// excerpt bytes, in the caller's transaction; a change of neither writes nothing.
fn add_to_totals(conn: &Connection, path: &Path, rows: i64, bytes: i64) -> Result<(), LedgerError> {
    if rows == 0 && bytes == 0 {
        return Ok(());
    }
    conn.prepare_cached(ADD_TO_TOTALS)
        .and_then(|mut s| s.execute(params![rows, bytes]))
        .map_err(|x| sql_error(path, x))?;
    Ok(())
}

/// Removes the row of `entry_path` and the receipt kept apart for it, and takes it out of
/// the totals, in the caller's transaction. A path with no row changes nothing.
fn remove(conn: &Connection, path: &Path, entry_path: &str) -> Result<(), LedgerError> {
    let bytes: Option<i64> = conn
        .prepare_cached("DELETE FROM entries WHERE path = ?1 RETURNING excerpt_bytes")
        .and_then(|mut s| s.query_row([entry_path], |r| r.get(0)).optional())
        .map_err(|x| sql_error(path, x))?;
    let Some(bytes) = bytes else {
        return Ok(());
    };
    forget_receipt(conn, path, entry_path)?;
    add_to_totals(conn, path, -1, -bytes)
}

/// The paths of the rows a call recorded that still wait for its receipt (by `tool_use_id`):
/// the flag and the id are columns, so no body (up to 32 KiB of excerpt) is read or parsed.
pub(super) const PENDING_RECEIPT: &str =
    "SELECT path FROM entries WHERE pending_receipt = 1 AND tool_use_id = ?1";

/// The paths of the rows call `tool_use_id` recorded that still wait for its receipt.
fn pending_paths(
    conn: &Connection,
    path: &Path,
    tool_use_id: &str,
) -> Result<Vec<String>, LedgerError> {
    (|| {
        let mut stmt = conn.prepare_cached(PENDING_RECEIPT)?;
        stmt.query_map([tool_use_id], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<String>, _>>()
    })()
    .map_err(|e| sql_error(path, e))
}

/// Gives every row call `tool_use_id` recorded, still without a receipt, `receipt`, in the
/// caller's write transaction. Returns how many rows got it.
pub(super) fn attach_pending(
    conn: &Connection,
    path: &Path,
    tool_use_id: &str,
    receipt: &super::Receipt,
) -> Result<usize, LedgerError> {
    let pending = pending_paths(conn, path, tool_use_id)?;
    for entry_path in &pending {
        set_receipt(conn, path, entry_path, receipt)?;
    }
    Ok(pending.len())
}

/// Keeps a row's receipt apart from its body (`set_receipt`).
pub(super) const KEEP_RECEIPT: &str = "INSERT INTO receipts(path, receipt) VALUES (?1, ?2) \
     ON CONFLICT(path) DO UPDATE SET receipt = excluded.receipt";

/// Notes that a row has its receipt (`set_receipt`).
pub(super) const RECEIPT_GIVEN: &str = "UPDATE entries SET pending_receipt = 0 WHERE path = ?1";

/// Gives the row of `entry_path` its call's receipt without writing the row again: the receipt
/// goes to its own table and the row's pending flag is cleared, a change of the same size,
/// which SQLite makes in place, so the row's body (up to 32 KiB of excerpt, in overflow pages)
/// is neither rewritten nor logged a second time. Writing the body again was a third of the
/// WAL of a call that wrote a file and 1.6 ms of a 100 KB here-doc's 12.
fn set_receipt(
    conn: &Connection,
    path: &Path,
    entry_path: &str,
    receipt: &super::Receipt,
) -> Result<(), LedgerError> {
    let json = serde_json::to_string(receipt)
        .map_err(|x| error(path, format!("could not be written ({x})")))?;
    conn.prepare_cached(KEEP_RECEIPT)
        .and_then(|mut s| s.execute(params![entry_path, json]))
        .and_then(|_| {
            conn.prepare_cached(RECEIPT_GIVEN)
                .and_then(|mut s| s.execute([entry_path]))
        })
        .map_err(|x| sql_error(path, x))?;
    Ok(())
}

/// Notes `key` in the store's key filter before its row is written (`super::keyset`). A
/// filter that could not be written whole is removed, so readers open the store; a filter
/// that can be neither written nor removed fails the write (and the call with it).
pub(super) fn note_key(conn: &Connection, path: &Path, key: &str) -> Result<(), LedgerError> {
    // A store in memory (`check`, `replay`, tests) has no file beside it.
    if conn.path().is_none_or(str::is_empty) {
        return Ok(());
    }
    // Every key the store holds: its ledger rows' paths and its exposure rows' keys.
    let existing = || {
        conn.prepare_cached("SELECT path FROM entries")
            .and_then(|mut s| {
                s.query_map([], |r| r.get::<_, String>(0))?
                    .collect::<Result<Vec<String>, _>>()
            })
            .and_then(|mut keys| {
                keys.extend(super::taint::filter_keys(conn)?);
                Ok(keys)
            })
            .map_err(std::io::Error::other)
    };
    let Err(e) = super::keyset::note(path, key, existing) else {
        return Ok(());
    };
    match fs::remove_file(super::keyset::file_of(path)) {
        Ok(()) => Ok(()),
        Err(r) if r.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(r) => Err(error(
            path,
            format!("has a key filter that could not be written ({e}) nor removed ({r})"),
        )),
    }
}

/// Writes what `work` changed relative to `base`: changed and new rows, and rows removed.
pub(super) fn write_back(
    conn: &Connection,
    path: &Path,
    base: &Ledger,
    work: &Ledger,
) -> Result<(), LedgerError> {
    for (k, e) in &work.entries {
        if base.entries.get(k) != Some(e) {
            upsert(conn, path, e)?;
        }
    }
    for k in base.entries.keys() {
        if !work.entries.contains_key(k) {
            remove(conn, path, k)?;
        }
    }
    Ok(())
}

/// The running totals (`enforce_bounds`).
pub(super) const READ_TOTALS: &str = "SELECT entries, excerpt_bytes FROM totals WHERE id = 0";

/// Keeps a session within `MAX_ENTRIES` entries (oldest out) and `EXCERPT_BUDGET` excerpt
/// bytes (oldest excerpts dropped first, the entry keeps its hash and analysis). Reads the
/// running totals, so a session within bounds costs one row.
pub(super) fn enforce_bounds(conn: &Connection, path: &Path) -> Result<(), LedgerError> {
    let totals = || {
        conn.prepare_cached(READ_TOTALS)
            .and_then(|mut s| s.query_row([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))))
            .map_err(|e| sql_error(path, e))
    };
    let (n, mut total) = totals()?;
    if n > MAX_ENTRIES as i64 {
        let oldest: Vec<String> = (|| {
            conn.prepare("SELECT path FROM entries ORDER BY written_at, path LIMIT ?1")?
                .query_map([n - MAX_ENTRIES as i64], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()
        })()
        .map_err(|e| sql_error(path, e))?;
        for p in &oldest {
            remove(conn, path, p)?;
        }
        total = totals()?.1;
    }
    if total <= EXCERPT_BUDGET as i64 {
        return Ok(());
    }
    let oldest: Vec<Row> = (|| {
        let mut stmt = conn.prepare(concat!(
            "SELECT ",
            row_columns!(),
            " FROM entries WHERE excerpt_bytes > 0 ORDER BY written_at, path"
        ))?;
        stmt.query_map([], row)?.collect::<Result<Vec<Row>, _>>()
    })()
    .map_err(|e| sql_error(path, e))?;
    for r in oldest {
        if total <= EXCERPT_BUDGET as i64 {
            break;
        }
        let mut e = parse_row(path, &r)?;
        if let Some(x) = e.excerpt.take() {
            total -= x.len() as i64;
            e.excerpt_complete = false;
            upsert(conn, path, &e)?;
        }
    }
    Ok(())
}

fn read_legacy(path: &Path) -> Result<Ledger, LedgerError> {
    let err = |message: String| error(path, message);
    let file = File::open(path).map_err(|e| err(format!("could not be read ({e})")))?;
    let mut bytes = Vec::new();
    file.take(MAX_LEDGER_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| err(format!("could not be read ({e})")))?;
    if bytes.len() as u64 > MAX_LEDGER_BYTES {
        return Err(err(format!(
            "is larger than {} MiB",
            MAX_LEDGER_BYTES / 1024 / 1024
        )));
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        err(format!(
            "is corrupt ({e}); remove it to start this session's ledger afresh"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{LedgerEntry, Receipt};

    fn entry(path: &str, id: &str) -> LedgerEntry {
        LedgerEntry::written(path, Some(id), "")
    }

    #[test]
    fn a_memory_store_keeps_sessions_apart_and_touches_no_disk() {
        let store = LedgerStore::in_memory();
        let other = LedgerStore::in_memory();
        assert!(!store.exists("s"));
        // A change that records nothing makes no database.
        store.update_when("s", |_| ((), false)).unwrap();
        assert!(!store.exists("s"));
        store
            .update("s", |l| {
                l.entries.insert("/a".into(), entry("/a", "t1"));
            })
            .unwrap();
        assert!(store.exists("s"));
        // A clone shares the databases; another store and another session do not.
        let shared = store.clone();
        let seen = shared
            .read("s", &["/a".to_string()], |l| {
                l.get(Path::new("/a")).is_some()
            })
            .unwrap();
        assert!(seen);
        assert!(!store.exists("t"));
        assert!(!other.exists("s"));
        assert!(other.load("s").unwrap().entries.is_empty());
        let r = Receipt {
            seq: 1,
            hash: String::new(),
        };
        assert_eq!(store.attach_receipt("s", "t1", &r).unwrap(), 1);
        assert_eq!(store.load("s").unwrap().entries["/a"].receipt, Some(r));
        assert!(!Path::new("(memory)").exists());
    }

    /// Writes the row of `path` to session "s" in a commit of its own.
    fn commit_row(store: &LedgerStore, path: &str, summary: &str) {
        store
            .update("s", |l| {
                l.entries.insert(path.to_string(), entry(path, summary));
            })
            .unwrap();
    }

    /// The frames in the WAL file `wal` (none when it is missing): its 32-byte header, then
    /// one 24-byte header and one 4 KiB page a frame.
    fn wal_frames(wal: &Path) -> u64 {
        fs::metadata(wal).map_or(0, |m| {
            m.len().saturating_sub(32) / (STORE_PAGE_SIZE as u64 + 24)
        })
    }

    #[test]
    fn a_checkpointed_wal_is_emptied_and_keeps_every_row() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let wal = wal_of(&store.file_for("s"));
        let (mut most, mut emptied) = (0, false);
        for i in 0..400 {
            commit_row(&store, &format!("/w/{i}"), &format!("t{i}"));
            let len = fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
            most = most.max(wal_frames(&wal));
            emptied |= i > 0 && len == 0;
        }
        // The WAL never grows much past the checkpoint's size, and a checkpoint empties it:
        // the next process's open reads no frame already in the database.
        assert!(emptied, "the WAL was never emptied");
        assert!(most < WAL_AUTOCHECKPOINT as u64 + 64, "{most} frames");
        let l = store.load("s").unwrap();
        assert_eq!(l.entries.len(), 400);
    }

    /// A new store has small pages (`STORE_PAGE_SIZE`): a write call's WAL frames are a
    /// quarter of 4 KiB pages' bytes.
    #[test]
    fn a_new_store_has_small_pages() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        commit_row(&store, "/w/a", "t");
        let c = Connection::open(store.file_for("s")).unwrap();
        let size: i64 = c
            .pragma_query_value(None, "page_size", |r| r.get(0))
            .unwrap();
        assert_eq!(size, STORE_PAGE_SIZE);
        assert!(wal_frames(&wal_of(&store.file_for("s"))) > 0);
    }

    /// With checkpoints deferred, the commit that fills the WAL checkpoints nothing and notes
    /// its store, once; `checkpoint` then empties the WAL and every row stays. `checkpoint`
    /// opens only a store: not a symlink to one, nor a file not named like one.
    #[test]
    fn a_deferred_checkpoint_is_noted_and_run_later() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path()).checkpoints_deferred();
        let file = store.file_for("s");
        let wal = wal_of(&file);
        let frames = || wal_frames(&wal);
        let mine = || {
            take_due_checkpoints()
                .into_iter()
                .filter(|p| p.starts_with(dir.path()))
                .collect::<Vec<_>>()
        };
        for i in 0..200 {
            commit_row(&store, &format!("/w/{i}"), &format!("t{i}"));
            if frames() >= WAL_AUTOCHECKPOINT as u64 + 8 {
                break;
            }
        }
        assert!(frames() >= WAL_AUTOCHECKPOINT as u64, "{} frames", frames());
        // Noted once, by its real name, though several commits found the WAL full.
        let due = mine();
        assert_eq!(due, vec![fs::canonicalize(&file).unwrap()]);
        checkpoint(&due[0]).unwrap();
        // Emptied, then started afresh with the one page that syncs its header.
        assert_eq!(frames(), 1, "the WAL is emptied and restarted");
        let c = Connection::open(&file).unwrap();
        assert_eq!(stored_version(&c), SCHEMA_VERSION);
        drop(c);
        let rows = store.load("s").unwrap().entries.len();
        assert!(rows > 8, "{rows}");
        // Not deferred: the commit that fills the WAL settles it itself and notes nothing.
        let plain = LedgerStore::new(dir.path());
        for i in 0..200 {
            commit_row(&plain, &format!("/x/{i}"), "t");
        }
        assert!(mine().is_empty());
        assert!(frames() < WAL_AUTOCHECKPOINT as u64 + 64);
        // Only a store is opened.
        let link = dir.path().join("link.db");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(checkpoint(&link).is_err());
        let other = dir.path().join("notes.txt");
        fs::write(&other, "x").unwrap();
        let e = checkpoint(&other).unwrap_err();
        assert!(e.to_string().contains("not a session's store"), "{e}");
        assert_eq!(fs::read(&other).unwrap(), b"x");
    }

    /// The key filter is read only for a row the store does not hold yet: a receipt attached
    /// to a row already written leaves it alone, and a new row still notes its path.
    #[test]
    fn only_a_new_row_reads_the_key_filter() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let file = store.file_for("s");
        let reads = || super::super::keyset::READS.with(|n| n.get());
        store
            .update("s", |l| {
                l.entries.insert("/a".into(), entry("/a", "t1"));
            })
            .unwrap();
        let before = reads();
        let r = Receipt {
            seq: 1,
            hash: "h".into(),
        };
        assert_eq!(store.attach_receipt("s", "t1", &r).unwrap(), 1);
        assert_eq!(reads(), before, "an update read the filter");
        store
            .update("s", |l| {
                l.entries.insert("/b".into(), entry("/b", "t2"));
            })
            .unwrap();
        assert_eq!(reads(), before + 1, "a new row did not note its path");
        assert!(!super::super::keyset::all_absent(
            &file,
            &["/b".to_string()]
        ));
        assert!(!super::super::keyset::all_absent(
            &file,
            &["/a".to_string()]
        ));
    }

    #[test]
    fn receipts_attach_to_the_writes_of_their_call() {
        let (_dir, store) = two_writes();
        let r = receipt(4);
        assert_eq!(store.attach_receipt("s", "t9", &r).unwrap(), 0);
        assert_eq!(store.attach_receipt("s", "t1", &r).unwrap(), 1);
        // Attached once: the entry no longer waits for a receipt.
        assert_eq!(store.attach_receipt("s", "t1", &r).unwrap(), 0);
        let l = store.load("s").unwrap();
        assert_eq!(l.entries["/a"].receipt, Some(r));
        assert_eq!(l.entries["/b"].receipt, None);
        assert_eq!(
            store
                .attach_receipt(
                    "no-such-session",
                    "t1",
                    &Receipt {
                        seq: 1,
                        hash: "x".into()
                    }
                )
                .unwrap(),
            0
        );
        assert!(!store.exists("no-such-session"));
    }

    /// A receipt leaves its row as written: the WAL frames it adds are a few whatever the
    /// row's excerpt (writing the row again logged all its overflow pages a second time). It
    /// is read by every way rows are read; a later write of the path starts without it; it
    /// goes with its row.
    #[test]
    fn a_receipt_is_kept_apart_and_leaves_its_row_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let wal = wal_of(&store.file_for("s"));
        let frames = || wal_frames(&wal);
        let big = |id: &str| {
            let mut e = entry("/w/big.sh", id);
            e.excerpt = Some("echo x\n".repeat(4 * 1024));
            e.excerpt_complete = true;
            e
        };
        let write = |e: LedgerEntry| {
            store
                .update("s", |l| {
                    l.entries.insert(e.path.clone(), e.clone());
                })
                .unwrap()
        };
        let read = || {
            let whole = store.load("s").unwrap().entries["/w/big.sh"]
                .receipt
                .clone();
            let fetched = store
                .read("s", &["/w/big.sh".to_string()], |l| {
                    l.get(Path::new("/w/big.sh"))
                        .and_then(|e| e.receipt.clone())
                })
                .unwrap();
            let named = store.by_name("s", "big.sh").unwrap()[0].receipt.clone();
            assert_eq!(whole, fetched);
            assert_eq!(whole, named);
            whole
        };
        write(big("t1"));
        let before = frames();
        assert!(
            before > 8,
            "the row takes {before} frames: too small to tell"
        );
        assert_eq!(store.attach_receipt("s", "t1", &receipt(1)).unwrap(), 1);
        let added = frames() - before;
        assert!(added <= 4, "the receipt added {added} frames");
        assert_eq!(read(), Some(receipt(1)));
        // The path written again by another call: its receipt is that call's.
        write(big("t2"));
        assert_eq!(read(), None);
        assert_eq!(store.attach_receipt("s", "t2", &receipt(2)).unwrap(), 1);
        assert_eq!(read(), Some(receipt(2)));
        // Removed (by a call, or the session's bounds, `enforce_bounds`): its receipt goes
        // with it.
        store
            .update_keys("s", &["/w/big.sh".into()], |l| {
                (l.entries.remove("/w/big.sh"), true)
            })
            .unwrap();
        let c = Connection::open(store.file_for("s")).unwrap();
        assert_eq!(rows_in(&c, "entries"), 0);
        assert_eq!(rows_in(&c, "receipts"), 0);
    }

    /// A version-6 store keeps the receipts its rows hold, and takes new ones apart.
    #[test]
    fn a_version_6_store_keeps_the_receipts_in_its_rows() {
        let (_dir, store) = two_writes();
        let old = receipt(3);
        let mut a = entry("/a", "t1");
        a.receipt = Some(old.clone());
        // As version 6 left it: the receipt in the row, no receipts table.
        let c = Connection::open(store.file_for("s")).unwrap();
        c.execute(
            "UPDATE entries SET body = ?1, pending_receipt = 0 WHERE path = '/a'",
            [serde_json::to_string(&a).unwrap()],
        )
        .unwrap();
        c.execute_batch("DROP TABLE receipts; PRAGMA user_version = 6;")
            .unwrap();
        drop(c);
        assert_eq!(store.load("s").unwrap().entries["/a"].receipt, Some(old));
        let new = receipt(4);
        assert_eq!(store.attach_receipt("s", "t2", &new).unwrap(), 1);
        assert_eq!(store.load("s").unwrap().entries["/b"].receipt, Some(new));
        assert_eq!(
            stored_version(&Connection::open(store.file_for("s")).unwrap()),
            SCHEMA_VERSION
        );
    }

    #[test]
    fn a_step_reads_only_the_rows_it_asks_for() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        store
            .update("s", |l| {
                for i in 0..50 {
                    let p = format!("/p/{i}");
                    l.entries.insert(p.clone(), entry(&p, "t"));
                }
            })
            .unwrap();
        // Given one key, the view holds that row only.
        let held = store
            .read("s", &["/p/7".into()], |l| l.entries.len())
            .unwrap();
        assert_eq!(held, 1);
        // A row the step asks for beyond its keys is fetched on a second pass.
        let mut passes = 0;
        let found = store
            .read("s", &[], |l| {
                passes += 1;
                (
                    l.get(Path::new("/p/3")).map(|e| e.path.clone()),
                    l.get(Path::new("/nowhere")).is_none(),
                    l.entries.len(),
                )
            })
            .unwrap();
        assert_eq!(found, (Some("/p/3".into()), true, 1));
        assert_eq!(passes, 2);
        // An update touching one row leaves the others as they were.
        store
            .update_keys("s", &["/p/1".into()], |l| {
                let mut e = l.get(Path::new("/p/1")).cloned().unwrap();
                e.summary = "changed".into();
                l.entries.insert(e.path.clone(), e);
                ((), true)
            })
            .unwrap();
        let all = store.load("s").unwrap();
        assert_eq!(all.entries.len(), 50);
        assert_eq!(all.entries["/p/1"].summary, "changed");
        assert_eq!(all.entries["/p/2"].summary, "");
        assert_eq!(store.by_name("s", "1").unwrap().len(), 1);
        assert!(store.by_name("s", "x").unwrap().is_empty());
        // A run of a directory asked for (`Ledger::files_under`) brings the rows it takes
        // under it, and only those: a workflow directory's own YAML files.
        store
            .update("s", |l| {
                for p in [
                    "/q/w/a.yml",
                    "/q/w/sub/b.yml",
                    "/q/w0",
                    "/q/wa/c.yml",
                    "/q/w/x.txt",
                ] {
                    l.entries.insert(p.into(), entry(p, "t"));
                }
            })
            .unwrap();
        let ci = DirRun::of(Some(crate::scan::Language::CiWorkflow)).unwrap();
        let under = store
            .read("s", &[], |l| {
                let v: Vec<String> = l
                    .files_under(Path::new("/q/w"), &ci)
                    .iter()
                    .map(|e| e.path.clone())
                    .collect();
                (v, l.entries.len())
            })
            .unwrap();
        assert_eq!(under, (vec!["/q/w/a.yml".to_string()], 1));
    }

    /// The rows a step over a fresh view ends with (each one a body read and parsed: a row
    /// enters a view only through `fetch_row`) and what `files_under` answered.
    fn run_over(store: &LedgerStore, dir: &str, language: Language) -> (Vec<String>, usize) {
        let run = DirRun::of(Some(language)).unwrap();
        store
            .read("s", &[], |l| {
                let v: Vec<String> = l
                    .files_under(Path::new(dir), &run)
                    .iter()
                    .map(|e| e.path.clone())
                    .collect();
                (v, l.entries.len())
            })
            .unwrap()
    }

    use crate::scan::Language;

    #[test]
    fn a_directory_run_reads_only_the_files_it_takes() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let taken = [
            "/p/main.go",
            "/p/pkg/util.go",
            "/p/pom.xml",
            "/p/sub/pom.xml",
            "/p/tests/conftest.py",
            "/p/tests/test_app.py",
            "/p/tests/app_test.py",
            "/p/build.gradle.kts",
            "/p/Taskfile.yml",
        ];
        let left = [
            "/p/pkg/testdata/fixture.go",
            "/p/main.gox",
            "/p/xpom.xml",
            "/p/tests/helper.py",
            "/p/settings.kts",
            "/other/x.go",
            "/p0/y.go",
        ];
        store
            .update("s", |l| {
                // A long session: many files under the directory that no run takes.
                for i in 0..2000 {
                    let p = format!("/p/gen/mod_{i}.py");
                    l.entries.insert(p.clone(), entry(&p, "t"));
                }
                for p in taken.iter().chain(&left) {
                    l.entries.insert(p.to_string(), entry(p, "t"));
                }
            })
            .unwrap();
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            run_over(&store, "/p", Language::Go),
            (owned(&["/p/main.go", "/p/pkg/util.go"]), 2)
        );
        assert_eq!(
            run_over(&store, "/p/", Language::Maven),
            (owned(&["/p/pom.xml", "/p/sub/pom.xml"]), 2)
        );
        assert_eq!(
            run_over(&store, "/p/tests", Language::Python),
            (
                owned(&[
                    "/p/tests/app_test.py",
                    "/p/tests/conftest.py",
                    "/p/tests/test_app.py"
                ]),
                3
            )
        );
        // pytest over the whole project: the 2000 modules' index entries are read (they are
        // `.py`), none of their bodies.
        assert_eq!(run_over(&store, "/p", Language::Python).1, 3);
        assert_eq!(
            run_over(&store, "/p", Language::Gradle),
            (owned(&["/p/build.gradle.kts"]), 1)
        );
        assert_eq!(
            run_over(&store, "/p", Language::Taskfile),
            (owned(&["/p/Taskfile.yml"]), 1)
        );
        assert_eq!(run_over(&store, "/nowhere", Language::Go), (vec![], 0));
        // A key of a run this version cannot read is an error, never a run without files.
        let e = store.read("s", &["/p/\0qx".into()], |_| ()).unwrap_err();
        assert!(e.to_string().contains("unreadable key"), "{e}");
        // And through the indexes, not a scan of the rows under the directory.
        let conn = store.open("s", false).unwrap().unwrap();
        let plan = |sql: &str| -> String {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let rows = stmt
                .query_map(["a", "b", "c"], |r| r.get::<_, String>(3))
                .unwrap();
            rows.map(|r| r.unwrap()).collect::<Vec<_>>().join("; ")
        };
        let by_ext = plan("SELECT path FROM entries WHERE ext = ?1 AND path > ?2 AND path < ?3");
        assert!(
            by_ext.contains("COVERING INDEX entries_by_ext (ext=? AND path>? AND path<?)"),
            "{by_ext}"
        );
        let by_name = plan("SELECT path FROM entries WHERE name = ?1 AND path > ?2 AND path < ?3");
        assert!(
            by_name.contains("COVERING INDEX entries_by_name (name=? AND path>? AND path<?)"),
            "{by_name}"
        );
    }

    /// The entries table and its indexes as version 2 made them.
    const V2_ENTRIES: &str = "
        CREATE TABLE entries(
            path TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            tool_use_id TEXT,
            pending_receipt INTEGER NOT NULL,
            written_at INTEGER NOT NULL,
            excerpt_bytes INTEGER NOT NULL,
            body TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX entries_by_name ON entries(name);
        CREATE INDEX entries_pending ON entries(tool_use_id) WHERE pending_receipt = 1;
        CREATE INDEX entries_by_age ON entries(written_at, path);
        CREATE TABLE totals(
            id INTEGER PRIMARY KEY CHECK (id = 0),
            entries INTEGER NOT NULL,
            excerpt_bytes INTEGER NOT NULL
        );
        INSERT INTO totals VALUES (0, 0, 0);
    ";

    /// The triggers versions 1 to 7 kept the totals with (`OLD_TRIGGERS` drops them).
    const TOTALS_TRIGGERS: &str = "
        CREATE TRIGGER entries_added AFTER INSERT ON entries BEGIN
            UPDATE totals SET entries = entries + 1, excerpt_bytes = excerpt_bytes + new.excerpt_bytes;
        END;
        CREATE TRIGGER entries_removed AFTER DELETE ON entries BEGIN
            UPDATE totals SET entries = entries - 1, excerpt_bytes = excerpt_bytes - old.excerpt_bytes;
        END;
        CREATE TRIGGER entries_changed AFTER UPDATE ON entries BEGIN
            UPDATE totals SET excerpt_bytes = excerpt_bytes - old.excerpt_bytes + new.excerpt_bytes;
        END;
    ";

    /// Makes the session's store as an earlier version did: `version` 2 (entries and limit
    /// counters) or 1 (entries only), holding `paths`, written as that version wrote rows.
    fn old_store(store: &LedgerStore, version: i64, paths: &[&str]) {
        let file = store.file_for("s");
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        let c = Connection::open(&file).unwrap();
        c.execute_batch(V2_ENTRIES).unwrap();
        c.execute_batch(TOTALS_TRIGGERS).unwrap();
        if version == 2 {
            c.execute_batch(super::super::limits::SCHEMA).unwrap();
        }
        for p in paths {
            let e = entry(p, "t");
            let name = Path::new(p).file_name().unwrap().to_str().unwrap();
            c.execute(
                "INSERT INTO entries(path, name, tool_use_id, pending_receipt, written_at, excerpt_bytes, body)
                 VALUES (?1, ?2, 't', 1, 1, 0, ?3)",
                params![p, name, serde_json::to_string(&e).unwrap()],
            )
            .unwrap();
        }
        c.pragma_update(None, "user_version", version).unwrap();
        c.execute_batch("PRAGMA journal_mode = WAL").unwrap();
    }

    /// The key filter of a store from before it: absent until the first row written builds
    /// it from every row the store holds, so no earlier row reads as absent; then a path with
    /// no row is read without opening the store, and one with a row opens it and is found.
    #[test]
    fn an_older_store_gets_a_key_filter_holding_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let paths = ["/p/run.sh", "/p/Makefile"];
        old_store(&store, 2, &paths);
        let file = store.file_for("s");
        let old = vec!["/p/run.sh".to_string()];
        let never = vec!["/p/never.txt".to_string()];
        assert!(
            !super::super::keyset::all_absent(&file, &never),
            "no filter yet"
        );
        store
            .update("s", |l| {
                l.entries
                    .insert("/p/new.py".into(), entry("/p/new.py", "t"));
            })
            .unwrap();
        assert!(!super::super::keyset::all_absent(&file, &old));
        assert!(!super::super::keyset::all_absent(
            &file,
            &["/p/Makefile".into()]
        ));
        assert!(!super::super::keyset::all_absent(
            &file,
            &["/p/new.py".into()]
        ));
        assert!(super::super::keyset::all_absent(&file, &never));
        let opens = || OPENS.with(|n| n.get());
        let before = opens();
        let mut session = store.session("s");
        let (rows, _) = session
            .load(&never, None, |v| (v.ledger.entries.len(), BTreeSet::new()))
            .unwrap();
        assert_eq!((rows, opens()), (0, before), "an absent path opens nothing");
        let (found, _) = session
            .load(&old, None, |v| {
                (
                    v.ledger.get(Path::new("/p/run.sh")).is_some(),
                    BTreeSet::new(),
                )
            })
            .unwrap();
        assert!(found);
        assert_eq!(opens(), before + 1);
        // A damaged filter is not trusted: the store is opened.
        super::super::keyset::write_raw(&file, b"PALKEY01");
        let before = opens();
        let mut session = store.session("s");
        session
            .load(&never, None, |_| ((), BTreeSet::new()))
            .unwrap();
        assert_eq!(opens(), before + 1);
    }

    /// A store whose session wrote `/a` (call `t1`) and `/b` (call `t2`).
    fn two_writes() -> (tempfile::TempDir, LedgerStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        store
            .update("s", |l| {
                l.entries.insert("/a".into(), entry("/a", "t1"));
                l.entries.insert("/b".into(), entry("/b", "t2"));
            })
            .unwrap();
        (dir, store)
    }

    fn receipt(seq: u64) -> Receipt {
        Receipt {
            seq,
            hash: format!("h{seq}"),
        }
    }

    /// The schema version a store holds.
    fn stored_version(c: &Connection) -> i64 {
        c.pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap()
    }

    /// How many rows `table` holds.
    fn rows_in(c: &Connection, table: &str) -> i64 {
        c.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    }

    /// How the entries table and its indexes were made, as SQLite keeps it.
    fn entries_sql(file: &Path) -> Vec<String> {
        let c = Connection::open(file).unwrap();
        c.prepare(
            "SELECT ifnull(sql, name) FROM sqlite_master WHERE tbl_name = 'entries' ORDER BY name",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
    }

    fn columns_and_indexes(file: &Path) -> (Vec<String>, Vec<String>) {
        let c = Connection::open(file).unwrap();
        let cols = c
            .prepare("SELECT name || ' ' || type || ' ' || \"notnull\" || ' ' || ifnull(dflt_value, '') FROM pragma_table_info('entries')")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        let idx = c
            .prepare("SELECT type || ' ' || name FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        (cols, idx)
    }

    #[test]
    fn a_version_2_or_1_store_is_migrated_keeping_every_row() {
        let paths = [
            "/p/a.go",
            "/p/x/b.go",
            "/p/pom.xml",
            "/p/Makefile",
            "/p/.envrc",
            "/p/m.py",
        ];
        let fresh = tempfile::tempdir().unwrap();
        let made = LedgerStore::new(fresh.path());
        made.update("s", |l| {
            l.entries.insert("/a".into(), entry("/a", "t"));
        })
        .unwrap();
        for version in [2, 1] {
            let dir = tempfile::tempdir().unwrap();
            let store = LedgerStore::new(dir.path());
            old_store(&store, version, &paths);
            let file = store.file_for("s");
            // The first read migrates, and the run finds its files through the new column.
            assert_eq!(
                run_over(&store, "/p", Language::Go),
                (vec!["/p/a.go".to_string(), "/p/x/b.go".to_string()], 2)
            );
            let c = Connection::open(&file).unwrap();
            assert_eq!(stored_version(&c), SCHEMA_VERSION);
            let exts: Vec<(String, String)> = c
                .prepare("SELECT path, ext FROM entries ORDER BY path")
                .unwrap()
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
            let want: Vec<(String, String)> = [
                ("/p/.envrc", "envrc"),
                ("/p/Makefile", ""),
                ("/p/a.go", "go"),
                ("/p/m.py", "py"),
                ("/p/pom.xml", "xml"),
                ("/p/x/b.go", "go"),
            ]
            .iter()
            .map(|(p, x)| (p.to_string(), x.to_string()))
            .collect();
            assert_eq!(exts, want, "version {version}");
            drop(c);
            // Every row kept, the running totals with them, and the shape of a new store.
            let all = store.load("s").unwrap();
            assert_eq!(all.entries.len(), paths.len());
            assert_eq!(all.entries["/p/pom.xml"], entry("/p/pom.xml", "t"));
            assert_eq!(
                columns_and_indexes(&file),
                columns_and_indexes(&made.file_for("s"))
            );
            assert_eq!(entries_sql(&file), entries_sql(&made.file_for("s")));
            let (kept, rows, orphans) = totals_against_rows(&file);
            assert_eq!((kept, orphans), (rows, 0));
            assert_eq!(kept.0, paths.len() as i64);
            // Written rows fill the column; the store keeps working as a new one does.
            store
                .update("s", |l| {
                    l.entries.insert("/p/c.go".into(), entry("/p/c.go", "t"));
                })
                .unwrap();
            assert_eq!(run_over(&store, "/p", Language::Go).1, 3);
            assert!(store.take_limits("s", &[], 1).is_ok());
        }
        // A store of a version this one does not know stays an error.
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        old_store(&store, 2, &paths);
        let c = Connection::open(store.file_for("s")).unwrap();
        c.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        drop(c);
        let e = store.read("s", &[], |_| ()).unwrap_err();
        let unknown = format!("schema version {}", SCHEMA_VERSION + 1);
        assert!(e.to_string().contains(&unknown), "{e}");
        assert!(e.to_string().contains("newer palisade"), "{e}");
        // One no version wrote is corrupt.
        let c = Connection::open(store.file_for("s")).unwrap();
        c.pragma_update(None, "user_version", 0).unwrap();
        drop(c);
        let e = store.read("s", &[], |_| ()).unwrap_err();
        assert!(
            e.to_string().contains("is corrupt (schema version 0"),
            "{e}"
        );
    }

    #[test]
    fn a_migration_that_fails_leaves_the_store_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        old_store(&store, 2, &["/p/a.go", "/p/b.go"]);
        let file = store.file_for("s");
        // A row whose name is not text: the migration stops on it, and all of it is undone.
        let c = Connection::open(&file).unwrap();
        c.execute(
            "INSERT INTO entries(path, name, tool_use_id, pending_receipt, written_at, excerpt_bytes, body)
             VALUES ('/p/z', x'00ff', NULL, 0, 1, 0, '{}')",
            [],
        )
        .unwrap();
        drop(c);
        assert!(store.read("s", &[], |_| ()).is_err());
        assert!(store.update("s", |_| ()).is_err());
        let (cols, idx) = columns_and_indexes(&file);
        assert!(!cols.iter().any(|c| c.starts_with("ext ")), "{cols:?}");
        assert!(
            !idx.contains(&"index entries_by_ext".to_string()),
            "{idx:?}"
        );
        let c = Connection::open(&file).unwrap();
        assert_eq!(stored_version(&c), 2);
        assert_eq!(rows_in(&c, "entries"), 3);
    }

    #[test]
    fn bounds_drop_the_oldest_entries() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        store
            .update("s", |l| {
                for i in 0..(crate::ledger::MAX_ENTRIES + 10) {
                    let p = format!("/f/{i:05}");
                    let mut e = entry(&p, "t");
                    e.written_at = i as u64;
                    l.entries.insert(p, e);
                }
            })
            .unwrap();
        let all = store.load("s").unwrap();
        assert_eq!(all.entries.len(), crate::ledger::MAX_ENTRIES);
        assert!(!all.entries.contains_key("/f/00009"));
        assert!(all.entries.contains_key("/f/00010"));
    }

    /// The totals in the store (what `enforce_bounds` reads) and whether every receipt kept
    /// apart has its row, against the rows themselves.
    fn totals_against_rows(file: &Path) -> ((i64, i64), (i64, i64), i64) {
        let c = Connection::open(file).unwrap();
        let pair = |sql: &str| {
            c.query_row(sql, [], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
        };
        let kept = pair("SELECT entries, excerpt_bytes FROM totals WHERE id = 0");
        let rows = pair("SELECT count(*), ifnull(sum(excerpt_bytes), 0) FROM entries");
        let orphans = c
            .query_row(
                "SELECT count(*) FROM receipts WHERE path NOT IN (SELECT path FROM entries)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        (kept, rows, orphans)
    }

    /// The totals stay equal to the rows through every kind of change: new rows, rows written
    /// again, receipts, a removal, and both bounds.
    #[test]
    fn the_running_totals_follow_every_change_of_the_rows() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let file = store.file_for("s");
        let check = |step: &str| {
            let (kept, rows, orphans) = totals_against_rows(&file);
            assert_eq!(kept, rows, "{step}");
            assert_eq!(orphans, 0, "{step}");
        };
        let with_excerpt = |p: &str, id: &str, bytes: usize, at: u64| {
            let mut e = entry(p, id);
            e.excerpt = Some("x".repeat(bytes));
            e.written_at = at;
            e
        };
        let add = |l: &mut Ledger, e: LedgerEntry| {
            l.entries.insert(e.path.clone(), e);
        };
        store
            .update("s", |l| {
                for i in 0..3 {
                    add(
                        l,
                        with_excerpt(&format!("/k/{i}"), "t1", 100 * (i + 1), i as u64),
                    );
                }
            })
            .unwrap();
        check("new rows");
        assert_eq!(totals_against_rows(&file).0, (3, 600));
        store
            .update("s", |l| add(l, with_excerpt("/k/0", "t2", 7, 10)))
            .unwrap();
        check("a row written again");
        assert_eq!(store.attach_receipt("s", "t1", &receipt(1)).unwrap(), 2);
        check("receipts");
        store
            .update_keys("s", &["/k/1".into()], |l| (l.entries.remove("/k/1"), true))
            .unwrap();
        check("a row removed with its receipt");
        // Over the excerpt budget: the oldest excerpts go, their rows stay.
        let (n, bytes) = (110, 40_000);
        assert!(n * bytes > EXCERPT_BUDGET);
        store
            .update("s", |l| {
                for i in 0..n {
                    add(
                        l,
                        with_excerpt(&format!("/big/{i:03}"), "t3", bytes, 100 + i as u64),
                    );
                }
            })
            .unwrap();
        check("over the excerpt budget");
        let all = store.load("s").unwrap();
        assert!(all.entries["/big/000"].excerpt.is_none());
        assert!(all.entries["/big/109"].excerpt.is_some());
        // Over the row bound: the oldest rows go, `/k/2`'s receipt with it.
        store
            .update("s", |l| {
                for i in 0..MAX_ENTRIES {
                    add(
                        l,
                        with_excerpt(&format!("/n/{i:05}"), "t4", 0, 1000 + i as u64),
                    );
                }
            })
            .unwrap();
        check("over the row bound");
        let all = store.load("s").unwrap();
        assert_eq!(all.entries.len(), MAX_ENTRIES);
        assert!(!all.entries.contains_key("/k/2"));
    }

    /// A version-7 store loses the triggers that kept its totals, keeps the totals, and they
    /// follow the rows from then on (triggers left in place would count every change twice).
    #[test]
    fn a_version_7_store_keeps_its_totals_in_code() {
        let (_dir, store) = two_writes();
        let file = store.file_for("s");
        let c = Connection::open(&file).unwrap();
        c.execute_batch(TOTALS_TRIGGERS).unwrap();
        c.execute_batch(
            "CREATE TRIGGER entries_receipt_removed AFTER DELETE ON entries BEGIN
                 DELETE FROM receipts WHERE path = old.path;
             END;
             PRAGMA user_version = 7;",
        )
        .unwrap();
        drop(c);
        store
            .update_keys("s", &["/a".into()], |l| {
                assert!(l.entries.remove("/a").is_some());
                l.entries.insert("/c".into(), entry("/c", "t3"));
                l.entries.insert("/d".into(), entry("/d", "t3"));
                ((), true)
            })
            .unwrap();
        let (kept, rows, orphans) = totals_against_rows(&file);
        assert_eq!((kept, orphans), (rows, 0));
        assert_eq!(kept.0, 3);
        let c = Connection::open(&file).unwrap();
        assert_eq!(stored_version(&c), SCHEMA_VERSION);
        let triggers: i64 = c
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(triggers, 0);
    }

    /// A seek by path reads the path's index and the row's own page, not the bodies of the
    /// rows it passes. In version 8's `WITHOUT ROWID` table SQLite read each row it compared
    /// with the key whole, up to 32 KiB of excerpt in overflow pages read past its cache, so
    /// every lookup read again the bodies on its way (`ENTRIES`).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_lookup_by_path_reads_no_body() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let big = "x = 1\n".repeat(5_000);
        let paths: Vec<String> = (0..16).map(|i| format!("/p/f{i:02}.py")).collect();
        store
            .update("s", |l| {
                for p in &paths {
                    let mut e = LedgerEntry::written(p, Some("t"), "");
                    e.excerpt = Some(big.clone());
                    l.entries.insert(p.clone(), e);
                }
            })
            .unwrap();
        let c = Connection::open(store.file_for("s")).unwrap();
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        let mut seek = c
            .prepare("SELECT excerpt_bytes FROM entries WHERE path = ?1")
            .unwrap();
        let mut lookups = || {
            for p in &paths {
                let n: i64 = seek.query_row([p], |r| r.get(0)).unwrap();
                assert!(n > 20_000, "{p}: {n}");
            }
        };
        // The first round reads the pages a seek needs into the connection's cache.
        lookups();
        let before = bytes_read_by_this_thread();
        lookups();
        let read = bytes_read_by_this_thread() - before;
        assert!(read < 4096, "{read} bytes read by 16 lookups");
    }

    /// What this thread has read through system calls (`rchar`, Linux).
    #[cfg(target_os = "linux")]
    fn bytes_read_by_this_thread() -> u64 {
        let io = fs::read_to_string("/proc/thread-self/io").unwrap();
        io.lines()
            .find_map(|l| l.strip_prefix("rchar: "))
            .unwrap()
            .parse()
            .unwrap()
    }

    /// The bundled SQLite is built without the extensions palisade does not use
    /// (.cargo/config.toml): each registered itself with every connection a hook opened.
    #[test]
    fn the_bundled_sqlite_leaves_out_the_extensions_palisade_does_not_use() {
        let c = Connection::open_in_memory().unwrap();
        let used = |option: &str| -> bool {
            c.query_row("SELECT sqlite_compileoption_used(?1)", [option], |r| {
                r.get(0)
            })
            .unwrap()
        };
        for option in [
            "ENABLE_FTS3",
            "ENABLE_FTS5",
            "ENABLE_RTREE",
            "ENABLE_DBSTAT_VTAB",
        ] {
            assert!(!used(option), "{option}");
        }
        assert!(used("DEFAULT_MEMSTATUS=0"));
    }

    #[test]
    fn session_ids_never_reach_the_path() {
        let store = LedgerStore::new(Path::new("/state"));
        let p = store.file_for("../../etc/passwd");
        assert_eq!(p.parent(), Some(Path::new("/state/ledger")));
        let name = p.file_name().unwrap().to_str().unwrap();
        assert_eq!(name.len(), 16 + ".db".len());
        assert!(name[..16].chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(store.file_for("a"), store.file_for("b"));
    }

    #[test]
    fn a_change_that_records_nothing_creates_no_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        store.update_when("s", |_| ((), false)).unwrap();
        assert!(!store.exists("s"));
        assert!(!dir.path().join("ledger").exists());
    }

    #[test]
    fn stale_ledgers_are_pruned_when_a_session_starts() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        store
            .update("old", |l| l.entries.insert("/a".into(), entry("/a", "t")))
            .unwrap();
        store
            .update("recent", |l| {
                l.entries.insert("/b".into(), entry("/b", "t"))
            })
            .unwrap();
        let old = store.file_for("old");
        let long_ago =
            std::time::SystemTime::now() - STALE_AFTER - std::time::Duration::from_secs(60);
        for f in [old.clone(), wal_of(&old)] {
            if f.exists() {
                File::options()
                    .write(true)
                    .open(&f)
                    .unwrap()
                    .set_modified(long_ago)
                    .unwrap();
            }
        }
        // Writing to an existing session prunes nothing.
        store.update("recent", |_| ()).unwrap();
        assert!(old.exists());
        store
            .update("new", |l| l.entries.insert("/c".into(), entry("/c", "t")))
            .unwrap();
        assert!(!old.exists());
        assert!(!old.with_extension("lock").exists());
        assert!(store.file_for("recent").exists());
        assert!(store.file_for("new").exists());
    }

    #[test]
    fn corrupt_ledger_is_an_error_not_empty() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        assert!(store.load("s").unwrap().entries.is_empty());
        let file = store.file_for("s");
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        for junk in [&b"{\"entries\": [tru"[..], b"", &[0u8; 4096][..]] {
            fs::write(&file, junk).unwrap();
            let e = store.load("s").unwrap_err();
            assert!(e.to_string().contains("corrupt"), "{e}");
            assert!(store.read("s", &[], |_| ()).is_err());
            assert!(store.update("s", |_| ()).is_err());
            assert!(store.update_when("s", |_| ((), false)).is_err());
            // The corrupt file is left for inspection, not overwritten.
            assert_eq!(fs::read(&file).unwrap(), junk);
        }
    }

    #[test]
    fn a_store_of_another_shape_is_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let file = store.file_for("s");
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        // A valid SQLite database, but not one this version wrote.
        let c = Connection::open(&file).unwrap();
        c.execute_batch("CREATE TABLE entries(x); PRAGMA user_version = 1;")
            .unwrap();
        drop(c);
        let e = store.read("s", &["/a".into()], |_| ()).unwrap_err();
        assert!(e.to_string().contains("corrupt"), "{e}");
        fs::remove_file(&file).unwrap();
        let c = Connection::open(&file).unwrap();
        c.execute_batch("CREATE TABLE t(x);").unwrap();
        drop(c);
        let e = store.load("s").unwrap_err();
        assert!(e.to_string().contains("schema version 0"), "{e}");
    }

    #[test]
    fn a_symlink_or_fifo_is_not_a_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        store
            .update("s", |l| l.entries.insert("/a".into(), entry("/a", "t")))
            .unwrap();
        let real = store.file_for("s");
        let other = store.file_for("t");
        std::os::unix::fs::symlink(&real, &other).unwrap();
        let e = store.load("t").unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        assert!(store.update("t", |_| ()).is_err());
        let fifo = store.file_for("u");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let e = store.read("u", &[], |_| ()).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }

    #[test]
    fn a_json_ledger_is_migrated_and_a_corrupt_one_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let mut old = Ledger::default();
        old.entries.insert("/a".into(), entry("/a", "t1"));
        old.entries.insert("/b".into(), entry("/b", "t2"));
        let json = store.legacy_for("s");
        fs::create_dir_all(json.parent().unwrap()).unwrap();
        fs::write(&json, serde_json::to_vec(&old).unwrap()).unwrap();
        assert!(store.exists("s"));
        // A read migrates: the store holds every entry, the JSON file is gone.
        let got = store
            .read("s", &["/b".into()], |l| l.get(Path::new("/b")).cloned())
            .unwrap();
        assert_eq!(got, Some(entry("/b", "t2")));
        assert!(!json.exists());
        assert_eq!(store.load("s").unwrap().entries, old.entries);

        let bad = store.legacy_for("c");
        fs::write(&bad, b"{\"entries\": {\"/x\":").unwrap();
        let e = store.read("c", &[], |_| ()).unwrap_err();
        assert!(e.to_string().contains("corrupt"), "{e}");
        assert!(store.update("c", |_| ()).is_err());
        assert_eq!(fs::read(&bad).unwrap(), b"{\"entries\": {\"/x\":");
        assert!(!store.file_for("c").exists());
    }
}
