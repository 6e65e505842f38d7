//! One call's use of its session's store, on one connection: a read of the rows the call
//! needs into a `SessionView` (one read transaction, every pass over the same snapshot), one
//! write transaction for everything the call records (ledger rows and exposure rows, with the
//! limits' counts checked and taken first in it), and one more, after the audit append, that
//! links those rows to the call's audit entry. The risk budgets, checked before the risk
//! request, take one more transaction on the same connection (`immediate`).
//!
//! The judgement itself (`crate::decide`) never touches the store: it sees the view, and says
//! which rows it missed; the view is filled until it misses none (chains followed into files
//! the call does not name), then what it decided is written here.

use super::store::{
    MAX_PASSES, attach_pending, enforce_bounds, error, fetch, run_change, sql_error,
    too_many_passes, write_back,
};
use super::taint::{
    err as exposure_error, insert_exposures, other_keys, query_keys, read_exposure,
    set_exposure_seq,
};
use super::{Ledger, LedgerError, LedgerStore, Receipt};
use crate::taint::{Exposure, SessionExposure};
use rusqlite::{Connection, TransactionBehavior};
use std::collections::BTreeSet;

/// What one call sees of its session's store: the ledger rows it asked for and the session's
/// exposure. Built by `SessionStore::load`, or by hand (tests, a session with no store).
#[derive(Debug, Clone, Default)]
pub struct SessionView {
    /// The rows read (a partial view in the hook: a row asked for and not held is noted, so
    /// the loader can fetch it); complete when built by hand.
    pub ledger: Ledger,
    /// The latest untrusted and private exposure, and the rows of the paths and remotes the
    /// call sends to (`ExposureQuery`).
    pub exposure: SessionExposure,
    /// The session had a store when it was read.
    pub stored: bool,
    /// Keys looked up (found or not): what the write re-reads under its lock.
    fetched: BTreeSet<String>,
}

impl SessionView {
    /// The view of a store that is there but could not be read: no rows, no exposure. The
    /// stages that need it fail closed on the error the loader reports beside it.
    pub fn unreadable() -> SessionView {
        SessionView {
            stored: true,
            ..Default::default()
        }
    }

    /// A view built by hand: these rows and this exposure, complete (nothing is fetched later).
    pub fn of(ledger: Ledger, exposure: SessionExposure) -> SessionView {
        SessionView {
            ledger,
            exposure,
            stored: true,
            fetched: BTreeSet::new(),
        }
    }
}

/// The exposure rows a call's judgement needs besides the latest untrusted and private ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExposureQuery {
    /// Paths the call sends out (derived-data rows).
    pub paths: Vec<String>,
    /// Remotes the call pushes to (changed-remote rows).
    pub remotes: Vec<String>,
    /// Rows older than this (ms since the epoch) are not seen (the taint TTL).
    pub since_ms: u64,
    /// The latest untrusted row matters even when the session holds no private data: the
    /// risk layer's context reads it, and so does a call that itself reads private data.
    pub untrusted: bool,
}

/// What a call records, written in one transaction.
#[derive(Debug, Clone, Default)]
pub struct SessionChanges {
    /// The ledger rows as the call leaves them (the view's rows with the call's writes), when
    /// it wrote any.
    pub ledger: Option<Ledger>,
    /// Exposure rows to add.
    pub exposures: Vec<Exposure>,
    /// The time written into the exposure rows (ms since the epoch).
    pub now_ms: u64,
}

impl SessionChanges {
    /// Nothing to write.
    pub fn is_empty(&self) -> bool {
        self.ledger.is_none() && self.exposures.is_empty()
    }
}

/// A call's handle on its session's store: opened at most once, on first use.
pub struct SessionStore<'s> {
    store: &'s LedgerStore,
    id: String,
    conn: Option<Connection>,
    /// The store being opened on another thread (`LedgerStore::open_ahead`), not yet taken.
    opening: Option<Opening>,
}

/// A session's store being opened on another thread while the call is parsed and judged.
pub struct Opening(std::thread::JoinHandle<Result<Option<Connection>, LedgerError>>);

impl LedgerStore {
    /// The handle one call uses for its session (opens nothing yet).
    pub fn session(&self, session_id: &str) -> SessionStore<'_> {
        self.session_with(session_id, None)
    }

    /// The handle one call uses for its session, taking the store `opening` opens.
    pub fn session_with(&self, session_id: &str, opening: Option<Opening>) -> SessionStore<'_> {
        SessionStore {
            store: self,
            id: session_id.to_string(),
            conn: None,
            opening,
        }
    }

    /// Starts opening the session's store on another thread, when it is on disk and there:
    /// opening it (three files, the WAL index rebuilt from the WAL, the schema read) takes
    /// 0.3-0.6 ms, and a call needs it only once it is parsed and judged. Creates nothing: a
    /// store still to be made is made by the call.
    pub fn open_ahead(&self, session_id: &str) -> Option<Opening> {
        if self.is_memory() || !self.exists(session_id) {
            return None;
        }
        let store = self.clone();
        let id = session_id.to_string();
        std::thread::Builder::new()
            .name("palisade-open".into())
            .spawn(move || {
                let opened = store.open(&id, false);
                if let Ok(Some(conn)) = &opened {
                    compile_ahead(conn);
                }
                opened
            })
            .ok()
            .map(Opening)
    }
}

/// The statements a call that records a file's write runs on its store: reading the row and
/// the latest exposure, writing the row, its exposure and the totals, then linking the row to
/// its receipt. Compiling them was 6-8% of a 100 KB here-doc's main thread; the thread that
/// opens the store ahead has the time, while the call is parsed.
const WRITE_CALL_STATEMENTS: [&str; 12] = [
    super::taint::LATEST_OF_KEY,
    super::store::FETCH_ROW,
    super::store::EXCERPT_BYTES,
    super::store::UPSERT,
    super::store::FORGET_RECEIPT,
    super::store::ADD_TO_TOTALS,
    super::store::READ_TOTALS,
    super::taint::INSERT_EXPOSURE,
    super::taint::TRIM_KEY,
    super::store::PENDING_RECEIPT,
    super::store::KEEP_RECEIPT,
    super::store::RECEIPT_GIVEN,
];

/// Compiles `WRITE_CALL_STATEMENTS` into the connection's statement cache. One that does not
/// compile is left out: where it is run it fails again, and that error is the call's.
fn compile_ahead(conn: &Connection) {
    conn.set_prepared_statement_cache_capacity(2 * WRITE_CALL_STATEMENTS.len());
    for sql in WRITE_CALL_STATEMENTS {
        let _ = conn.prepare_cached(sql);
    }
}

impl Drop for SessionStore<'_> {
    fn drop(&mut self) {
        // Not left running when the process exits: an open may migrate or checkpoint. A call
        // that never needed the store waits here at most for the open (its busy timeout when
        // another process holds the store locked), never longer than a call that opens it.
        if let Some(Opening(handle)) = self.opening.take() {
            let _ = handle.join();
        }
    }
}

impl SessionStore<'_> {
    /// The store this handle's session is kept in.
    pub fn store(&self) -> &LedgerStore {
        self.store
    }

    /// Whether the session has a store (cheap: a stat, or the open connection).
    pub fn exists(&self) -> bool {
        self.conn.is_some() || self.store.exists(&self.id)
    }

    fn connection(&mut self, create: bool) -> Result<Option<&mut Connection>, LedgerError> {
        if self.conn.is_none()
            && let Some(Opening(handle)) = self.opening.take()
            && let Ok(Ok(Some(conn))) = handle.join()
        {
            self.conn = Some(conn);
        }
        // Opened here when it was not opened ahead, or that open failed (or found no store):
        // then this open's answer, an error or a store made meanwhile, is the call's.
        if self.conn.is_none() {
            self.conn = self.store.open(&self.id, create)?;
        }
        Ok(self.conn.as_mut())
    }

    /// Reads the rows of `keys` and (with `exposure`) the session's exposure in one read
    /// transaction, and runs `step` on the view; `step` returns its answer and the rows it
    /// wanted beyond the view, which are fetched (same snapshot) before it runs again. A
    /// session with no store gives an empty, complete view. Returns the last answer and view.
    pub fn load<T>(
        &mut self,
        keys: &[String],
        exposure: Option<&ExposureQuery>,
        mut step: impl FnMut(&SessionView) -> (T, BTreeSet<String>),
    ) -> Result<(T, SessionView), LedgerError> {
        let path = self.store.file_for(&self.id);
        // Rows of paths the store certainly does not hold are read without opening it (the
        // key filter, `super::keyset`): the view is what the store would have given, the rows
        // asked for noted as fetched and absent. Anything more the step wants (a chain, a
        // run's files) opens the store as before.
        // The exposure rows the judgement reads are in the same filter (`taint::query_keys`):
        // when none is, the exposure is empty, as the store would have read it.
        // A send in a session that read private data finds the latest untrusted and private
        // rows in the file beside the store (`super::latest`) when the filter holds none of
        // the other rows it reads (its paths' derived rows, its remotes).
        let without_store = || -> Option<SessionExposure> {
            if self.conn.is_some()
                || self.store.is_memory()
                || keys.iter().any(|k| k.contains('\0'))
            {
                return None;
            }
            let filter = super::keyset::Filter::read(&path)?;
            if !filter.all_absent(keys) {
                return None;
            }
            let Some(q) = exposure else {
                return Some(SessionExposure::default());
            };
            if filter.all_absent(&query_keys(q)) {
                return Some(SessionExposure::default());
            }
            if !filter.all_absent(&other_keys(q)) {
                return None;
            }
            let (untrusted, private) = super::latest::read(&path, q.since_ms)?;
            Some(SessionExposure {
                untrusted,
                private,
                ..Default::default()
            })
        };
        if let Some(exposure) = without_store() {
            let view = SessionView {
                ledger: Ledger::partial(),
                stored: true,
                fetched: keys.iter().cloned().collect(),
                exposure,
            };
            let (out, mut wanted) = step(&view);
            wanted.extend(view.ledger.take_misses());
            if wanted.iter().all(|k| view.fetched.contains(k)) {
                return Ok((out, view));
            }
        }
        let Some(conn) = self.connection(false)? else {
            let view = SessionView::default();
            return Ok((step(&view).0, view));
        };
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Deferred)
            .map_err(|e| sql_error(&path, e))?;
        let mut view = SessionView {
            ledger: Ledger::partial(),
            stored: true,
            ..Default::default()
        };
        if let Some(q) = exposure {
            view.exposure = read_exposure(&tx, &q.paths, &q.remotes, q.since_ms)
                .map_err(|e| exposure_error(&path, e))?;
        }
        fetch(
            &tx,
            &path,
            &mut view.ledger,
            &mut view.fetched,
            keys.iter().cloned(),
        )?;
        for _ in 0..MAX_PASSES {
            let (out, mut wanted) = step(&view);
            wanted.extend(view.ledger.take_misses());
            wanted.retain(|k| !view.fetched.contains(k));
            if wanted.is_empty() {
                return Ok((out, view));
            }
            fetch(
                &tx,
                &path,
                &mut view.ledger,
                &mut view.fetched,
                wanted.into_iter(),
            )?;
        }
        Err(too_many_passes(&path))
    }

    /// Writes what a call records in one write transaction (creating the store when the
    /// session has none). The ledger rows were planned on `view`; when a row the plan read
    /// changed meanwhile (another process), `redo` plans them again on the rows as they are
    /// now, under the lock. `also` runs first in the same transaction: a stage that must count
    /// or record atomically with the call (the limits). It returns its answer and whether the
    /// call's `changes` are written (not for a call it refused: what `also` itself wrote is
    /// still committed); an error from it rolls everything back. Returns the ids of the
    /// exposure rows added (none when `changes` were not written), and what `also` returned.
    pub fn commit<T>(
        &mut self,
        view: &SessionView,
        changes: &SessionChanges,
        mut redo: impl FnMut(&mut Ledger) -> bool,
        also: impl FnOnce(&Connection) -> Result<(T, bool), LedgerError>,
    ) -> Result<(Vec<i64>, T), LedgerError> {
        let path = self.store.file_for(&self.id);
        let (conn, fresh) = self.writable()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| sql_error(&path, e))?;
        let (extra, write) = also(&tx)?;
        let changes = if write {
            changes
        } else {
            &SessionChanges::default()
        };
        if let Some(work) = &changes.ledger {
            let mut base = Ledger::partial();
            let mut fetched = BTreeSet::new();
            // A view read before the store existed holds no rows: read the rows the plan
            // writes, so a store another process made meanwhile is planned on, not overwritten.
            let mut keys = view.fetched.clone();
            if !view.stored {
                keys.extend(work.entries.keys().cloned());
            }
            fetch(&tx, &path, &mut base, &mut fetched, keys.into_iter())?;
            // The rows the plan was made on are the rows there now (for a view read before the
            // store existed: still none): the plan stands, and the call's text is not analysed
            // a second time (a 1 MB Write's scan is most of its cost).
            if base.entries == view.ledger.entries {
                write_back(&tx, &path, &base, work)?;
            } else {
                let (work, (), changed) =
                    run_change(&tx, &path, &mut base, &mut fetched, &mut |l| ((), redo(l)))?;
                if changed {
                    write_back(&tx, &path, &base, &work)?;
                }
            }
            enforce_bounds(&tx, &path)?;
        }
        let ids = insert_exposures(&tx, &path, &changes.exposures, changes.now_ms)?;
        tx.commit().map_err(|e| sql_error(&path, e))?;
        if fresh {
            self.store.prune_stale(&path);
        }
        Ok((ids, extra))
    }

    /// Runs `stage` in one IMMEDIATE transaction on the call's connection and commits what
    /// it wrote (an error rolls it back): for a stage that must count before the call's
    /// recording (the risk budget, checked before a request is sent). Without `create`, a
    /// session with no store gives `None` and makes none.
    pub fn immediate<T>(
        &mut self,
        create: bool,
        stage: impl FnOnce(&Connection) -> Result<T, LedgerError>,
    ) -> Result<Option<T>, LedgerError> {
        let path = self.store.file_for(&self.id);
        if !create && !self.exists() {
            return Ok(None);
        }
        let (conn, fresh) = self.writable()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| sql_error(&path, e))?;
        let out = stage(&tx)?;
        tx.commit().map_err(|e| sql_error(&path, e))?;
        if fresh {
            self.store.prune_stale(&path);
        }
        Ok(Some(out))
    }

    /// The connection, creating the store when the session has none; `true` when this made
    /// a new store on disk (then stale stores of other sessions are pruned after the write).
    fn writable(&mut self) -> Result<(&mut Connection, bool), LedgerError> {
        let path = self.store.file_for(&self.id);
        let fresh = self.conn.is_none() && !self.store.is_memory() && !self.store.exists(&self.id);
        let conn = self
            .connection(true)?
            .ok_or_else(|| error(&path, "could not be created".into()))?;
        Ok((conn, fresh))
    }

    /// After the call's audit entry is appended: the ledger rows the call recorded (by
    /// `tool_use_id`, still without a receipt) get its receipt, and its exposure rows its seq,
    /// in one write transaction. Nothing to link opens nothing.
    pub fn attach(
        &mut self,
        tool_use_id: Option<&str>,
        exposure_ids: &[i64],
        receipt: &Receipt,
    ) -> Result<(), LedgerError> {
        if tool_use_id.is_none() && exposure_ids.is_empty() {
            return Ok(());
        }
        let path = self.store.file_for(&self.id);
        let Some(conn) = self.connection(false)? else {
            return Ok(());
        };
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| sql_error(&path, e))?;
        if let Some(id) = tool_use_id {
            attach_pending(&tx, &path, id, receipt)?;
        }
        set_exposure_seq(&tx, &path, exposure_ids, receipt.seq)?;
        tx.commit().map_err(|e| sql_error(&path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::LedgerEntry;
    use crate::taint::ExposureKind;
    use std::path::Path;

    fn entry(path: &str, summary: &str) -> LedgerEntry {
        LedgerEntry::written(path, Some("t1"), summary)
    }

    /// A store under `dir` whose session "s" holds one row, `path`, of `summary`.
    fn stored(dir: &Path, path: &str, summary: &str) -> LedgerStore {
        let store = LedgerStore::new(dir);
        store
            .update("s", |l| l.entries.insert(path.into(), entry(path, summary)))
            .map(|_| ())
            .unwrap();
        store
    }

    fn exposure(kind: ExposureKind, key: &str) -> Exposure {
        Exposure {
            kind,
            key: key.into(),
            origin: format!("{} {key}", kind.as_str()),
        }
    }

    /// Whether session `s`'s load for the send behind `q` opened the store, and the exposure
    /// it read.
    fn load_exposure(store: &LedgerStore, q: &ExposureQuery) -> (bool, SessionExposure) {
        let before = crate::ledger::store_opens();
        let (seen, _) = store
            .session("s")
            .load(&[], Some(q), |v| (v.exposure.clone(), BTreeSet::new()))
            .unwrap();
        (crate::ledger::store_opens() > before, seen)
    }

    /// A send's exposure read opens the store only when the key filter holds a row the send
    /// could meet: a private row (a trifecta needs one), the derived row of a path it sends,
    /// the changed remote it pushes to, or (where the query says so) an untrusted row. Any
    /// other send reads an empty exposure without opening it, as the store would give.
    #[test]
    fn a_send_opens_the_store_only_for_exposure_rows_it_could_meet() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let query = |paths: &[&str], remotes: &[&str], untrusted: bool| ExposureQuery {
            paths: paths.iter().map(|p| p.to_string()).collect(),
            remotes: remotes.iter().map(|r| r.to_string()).collect(),
            since_ms: 0,
            untrusted,
        };
        let read = |q: &ExposureQuery| load_exposure(&store, q);
        let record = |rows: &[Exposure]| {
            let ids = store.record_exposures("s", rows, 7).unwrap();
            store.attach_exposure_seq("s", &ids, 1).unwrap();
        };
        record(&[exposure(ExposureKind::Untrusted, "")]);
        let send = query(&["/p/out.txt"], &[], false);
        assert_eq!(read(&send), (false, SessionExposure::default()));
        let (opened, seen) = read(&query(&["/p/out.txt"], &[], true));
        assert!(
            !opened && seen.untrusted.is_some(),
            "the risk layer reads it (beside the store, `super::latest`)"
        );
        record(&[exposure(ExposureKind::Derived, "/p/d.txt")]);
        assert!(!read(&send).0);
        let (opened, seen) = read(&query(&["/p/d.txt"], &[], false));
        assert!(opened && seen.derived.len() == 1, "a derived file sent");
        record(&[exposure(ExposureKind::Remote, "mirror")]);
        assert!(!read(&query(&[], &["origin"], false)).0);
        let (opened, seen) = read(&query(&[], &["origin", "mirror"], false));
        assert!(opened && seen.remotes.len() == 1, "a changed remote");
        record(&[exposure(ExposureKind::Private, "")]);
        // The latest private and untrusted rows are beside the store (`super::latest`).
        let (opened, seen) = read(&send);
        assert!(!opened && seen.private.is_some() && seen.untrusted.is_some());
        let (opened, seen) = read(&query(&["/p/d.txt"], &[], false));
        assert!(opened && seen.private.is_some() && seen.derived.len() == 1);
        // A filter rebuilt from the store (lost, then the next write) holds the exposure rows.
        let file = store.file_for("s");
        super::super::keyset::forget(&file);
        assert!(read(&send).0, "no filter: the store is opened");
        store
            .update("s", |l| l.entries.insert("/p/a".into(), entry("/p/a", "t")))
            .map(|_| ())
            .unwrap();
        let (opened, seen) = read(&query(&["/p/d.txt"], &[], false));
        assert!(
            opened && seen.private.is_some() && seen.derived.len() == 1,
            "the rebuilt filter holds them"
        );
        assert!(!super::super::keyset::all_absent(
            &file,
            &[super::super::taint::filter_key("derived", "/p/d.txt")]
        ));
    }

    /// A send in a session that read private data reads the latest untrusted and private rows
    /// from the file beside the store, exactly as the store gives them (seq attached later,
    /// the TTL applied); a file that gives no answer (missing, damaged, a symlink, another
    /// format, a copy of another store's) sends it to the store, with the same exposure read.
    #[test]
    fn a_send_reads_the_latest_private_rows_beside_the_store_or_from_it() {
        use super::super::latest;
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let db = store.file_for("s");
        let send = |since_ms| ExposureQuery {
            paths: vec!["/p/out.txt".into()],
            remotes: vec!["origin".into()],
            since_ms,
            untrusted: true,
        };
        let read = |q: &ExposureQuery| {
            let (opened, seen) = load_exposure(&store, q);
            let stored = store
                .session_exposure("s", &q.paths, &q.remotes, q.since_ms)
                .unwrap();
            assert_eq!(seen, stored, "as the store gives it");
            (opened, seen)
        };
        store
            .record_exposures("s", &[exposure(ExposureKind::Untrusted, "")], 5)
            .unwrap();
        let ids = store
            .record_exposures("s", &[exposure(ExposureKind::Private, "")], 7)
            .unwrap();
        // Until the row has its seq, the store is read.
        let (opened, seen) = read(&send(0));
        assert!(opened, "no file before the seq");
        assert_eq!(seen.private.as_ref().map(|r| r.seq), Some(None));
        store.attach_exposure_seq("s", &ids, 12).unwrap();
        let (opened, seen) = read(&send(0));
        assert!(!opened, "beside the store");
        assert_eq!(seen.private.map(|r| r.seq), Some(Some(12)));
        let (opened, seen) = read(&send(6));
        assert!(!opened && seen.private.is_some() && seen.untrusted.is_none());
        // A derived row or a remote it sends to is in the store only.
        store
            .record_exposures("s", &[exposure(ExposureKind::Remote, "origin")], 8)
            .unwrap();
        let (opened, seen) = read(&send(0));
        assert!(opened && seen.remotes.len() == 1 && seen.private.is_some());
        let send = |since_ms| ExposureQuery {
            remotes: vec![],
            ..send(since_ms)
        };
        assert!(!read(&send(0)).0);
        // Files that give no answer.
        let file = latest::file_of(&db);
        let good = std::fs::read(&file).unwrap();
        let other = dir.path().join("other");
        std::fs::write(&other, &good).unwrap();
        let damaged: [(&str, &dyn Fn()); 5] = [
            ("missing", &|| std::fs::remove_file(&file).unwrap()),
            ("cut", &|| {
                std::fs::write(&file, &good[..good.len() / 2]).unwrap()
            }),
            ("symlink", &|| {
                std::fs::remove_file(&file).unwrap();
                std::os::unix::fs::symlink(&other, &file).unwrap();
            }),
            ("format", &|| {
                let text = String::from_utf8(good.clone()).unwrap();
                std::fs::write(&file, text.replace("\"format\":1", "\"format\":2")).unwrap()
            }),
            ("another store", &|| {
                // The store replaced (the old one kept, so its inode is not reused).
                std::fs::rename(&db, dir.path().join("old.db")).unwrap();
                std::fs::copy(dir.path().join("old.db"), &db).unwrap();
            }),
        ];
        for (what, damage) in damaged {
            damage();
            let (opened, seen) = read(&send(0));
            assert!(opened, "{what}: the store is opened");
            assert_eq!(seen.private.map(|r| r.seq), Some(Some(12)), "{what}");
            let _ = std::fs::remove_file(&file);
            std::fs::write(&file, &good).unwrap();
        }
        // The next private row removes the file; its seq writes it for the store as it is.
        let ids = store
            .record_exposures("s", &[exposure(ExposureKind::Private, "")], 9)
            .unwrap();
        assert!(!file.exists());
        store.attach_exposure_seq("s", &ids, 13).unwrap();
        let (opened, seen) = read(&send(0));
        assert!(!opened, "rewritten for this store");
        assert_eq!(seen.private.map(|r| r.at_ms), Some(9));
    }

    fn plan(view: &SessionView, e: LedgerEntry) -> Ledger {
        let mut work = view.ledger.clone();
        work.entries.insert(e.path.clone(), e);
        work
    }

    #[test]
    fn one_open_reads_writes_and_links_a_call() {
        let dir = tempfile::tempdir().unwrap();
        let store = stored(dir.path(), "/a", "old");
        let before = crate::ledger::store_opens();
        let mut s = store.session("s");
        let keys = ["/a".to_string(), "/b".to_string()];
        let (held, view) = s
            .load(&keys, None, |v| {
                (v.ledger.entries.len(), Default::default())
            })
            .unwrap();
        assert_eq!(held, 1);
        assert!(view.stored);
        let changes = SessionChanges {
            ledger: Some(plan(&view, entry("/b", "new"))),
            exposures: vec![Exposure {
                kind: ExposureKind::Untrusted,
                key: String::new(),
                origin: "WebFetch x".into(),
            }],
            now_ms: 5,
        };
        let (ids, counted) = s
            .commit(
                &view,
                &changes,
                |_| panic!("no re-plan"),
                |tx| {
                    tx.execute_batch("CREATE TABLE IF NOT EXISTS counts(n INTEGER)")
                        .and_then(|_| tx.execute("INSERT INTO counts VALUES (1)", []))
                        .map(|n| (n, true))
                        .map_err(|e| sql_error(Path::new("x"), e))
                },
            )
            .unwrap();
        assert_eq!((ids.len(), counted), (1, 1));
        let r = Receipt {
            seq: 9,
            hash: "h".into(),
        };
        s.attach(Some("t1"), &ids, &r).unwrap();
        assert_eq!(crate::ledger::store_opens() - before, 1);
        drop(s);
        let all = store.load("s").unwrap();
        assert_eq!(all.entries["/b"].summary, "new");
        assert_eq!(all.entries["/b"].receipt, Some(r.clone()));
        let seen = store.session_exposure("s", &[], &[], 0).unwrap();
        assert_eq!(seen.untrusted.unwrap().seq, Some(9));
    }

    #[test]
    fn a_failing_extra_stage_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = stored(dir.path(), "/a", "old");
        let mut s = store.session("s");
        let (_, view) = s
            .load(&["/a".to_string()], None, |_| ((), Default::default()))
            .unwrap();
        let changes = SessionChanges {
            ledger: Some(plan(&view, entry("/a", "new"))),
            ..Default::default()
        };
        let e = s
            .commit(
                &view,
                &changes,
                |_| true,
                |_| -> Result<((), bool), _> {
                    Err(error(Path::new("/limits"), "is over its limit".into()))
                },
            )
            .unwrap_err();
        assert!(e.to_string().contains("over its limit"));
        assert_eq!(store.load("s").unwrap().entries["/a"].summary, "old");
    }

    #[test]
    fn a_call_the_extra_stage_refuses_writes_only_what_the_stage_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let mut s = store.session("s");
        let (_, view) = s
            .load(&["/a".to_string()], None, |_| ((), Default::default()))
            .unwrap();
        let changes = SessionChanges {
            ledger: Some(plan(&view, entry("/a", "new"))),
            exposures: vec![Exposure {
                kind: ExposureKind::Untrusted,
                key: String::new(),
                origin: "WebFetch x".into(),
            }],
            now_ms: 5,
        };
        let spend = [crate::ledger::limits::LimitUse {
            id: "tokens".into(),
            window_ms: None,
            max: 10,
        }];
        let (ids, ()) = s
            .commit(
                &view,
                &changes,
                |_| panic!("nothing to re-plan"),
                |tx| crate::ledger::limits::add(tx, &spend, 7, 5).map(|()| ((), false)),
            )
            .unwrap();
        assert!(ids.is_empty(), "no exposure row was written");
        drop(s);
        assert!(store.load("s").unwrap().entries.is_empty());
        assert!(
            store
                .session_exposure("s", &[], &[], 0)
                .unwrap()
                .untrusted
                .is_none()
        );
        assert_eq!(store.limit_counts("s", &spend, 5).unwrap(), [7]);
    }

    #[test]
    fn immediate_runs_a_stage_on_the_call_connection_and_makes_no_store_unasked() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let uses = [crate::ledger::limits::LimitUse {
            id: "req".into(),
            window_ms: None,
            max: 1,
        }];
        let before = crate::ledger::store_opens();
        let mut s = store.session("s");
        assert!(s.immediate(false, |_| Ok(())).unwrap().is_none());
        assert!(!store.exists("s"));
        let took = |s: &mut SessionStore| {
            s.immediate(true, |tx| crate::ledger::limits::take(tx, &uses, 1))
                .unwrap()
                .unwrap()
                .counted
        };
        assert!(took(&mut s));
        assert!(!took(&mut s), "the second request is over the max of 1");
        assert_eq!(crate::ledger::store_opens() - before, 1);
        assert_eq!(store.limit_counts("s", &uses, 1).unwrap(), [1]);
    }

    #[test]
    fn a_row_changed_by_another_process_is_planned_again_under_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let store = stored(dir.path(), "/a", "v1");
        let mut s = store.session("s");
        let (_, view) = s
            .load(&["/a".to_string()], None, |_| ((), Default::default()))
            .unwrap();
        // Another process writes the row this call's plan read.
        store
            .update("s", |l| l.entries.insert("/a".into(), entry("/a", "v2")))
            .map(|_| ())
            .unwrap();
        let changes = SessionChanges {
            ledger: Some(plan(&view, entry("/a", "from v1"))),
            ..Default::default()
        };
        let mut replanned_on = Vec::new();
        s.commit(
            &view,
            &changes,
            |l| {
                let base = l.get(Path::new("/a")).unwrap().summary.clone();
                replanned_on.push(base.clone());
                l.entries
                    .insert("/a".into(), entry("/a", &format!("from {base}")));
                true
            },
            |_| Ok(((), true)),
        )
        .unwrap();
        assert_eq!(replanned_on, ["v2"]);
        assert_eq!(store.load("s").unwrap().entries["/a"].summary, "from v2");
    }

    /// A store opened ahead on another thread is the one the call reads and writes (this
    /// thread opens none), and a session without a store, or a store in memory, is opened
    /// ahead by no one.
    #[test]
    fn a_store_opened_ahead_is_the_one_the_call_uses() {
        let dir = tempfile::tempdir().unwrap();
        let none_yet = LedgerStore::new(dir.path()).open_ahead("s");
        assert!(none_yet.is_none(), "no store yet");
        assert!(LedgerStore::in_memory().open_ahead("s").is_none());
        let store = stored(dir.path(), "/p/a", "first");
        let before = crate::ledger::store_opens();
        let mut session = store.session_with("s", store.open_ahead("s"));
        let (summary, view) = session
            .load(&["/p/a".to_string()], None, |v| {
                (v.ledger.entries["/p/a"].summary.clone(), BTreeSet::new())
            })
            .unwrap();
        assert_eq!(summary, "first");
        let mut work = view.ledger.clone();
        work.entries.insert("/p/b".into(), entry("/p/b", "second"));
        let changes = SessionChanges {
            ledger: Some(work),
            ..Default::default()
        };
        session
            .commit(&view, &changes, |_| false, |_| Ok(((), true)))
            .unwrap();
        drop(session);
        assert_eq!(
            crate::ledger::store_opens(),
            before,
            "opened on the other thread"
        );
        assert_eq!(store.load("s").unwrap().entries["/p/b"].summary, "second");
        // Opened ahead and not needed: dropped whole, the store as it was.
        drop(store.session_with("s", store.open_ahead("s")));
        assert_eq!(store.load("s").unwrap().entries.len(), 2);
    }

    /// Counts what SQLite's authorizer is asked about reading or changing rows: it is asked
    /// while a statement compiles, never while a compiled one runs.
    extern "C" fn count_compiles(
        count: *mut std::ffi::c_void,
        action: std::ffi::c_int,
        _: *const std::ffi::c_char,
        _: *const std::ffi::c_char,
        _: *const std::ffi::c_char,
        _: *const std::ffi::c_char,
    ) -> std::ffi::c_int {
        use rusqlite::ffi;
        if matches!(
            action,
            ffi::SQLITE_SELECT | ffi::SQLITE_INSERT | ffi::SQLITE_UPDATE | ffi::SQLITE_DELETE
        ) {
            // SAFETY: the pointer the test passed, to a counter that outlives the connection.
            let count = unsafe { &*(count as *const std::sync::atomic::AtomicUsize) };
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        rusqlite::ffi::SQLITE_OK
    }

    /// What the thread that opens a store ahead compiles is what a call that writes a file
    /// runs: reading its row and a keyed exposure, rewriting the row, adding a new one and an
    /// exposure row, then linking both rows to the receipt compiles no statement of its own
    /// (each statement left out of `WRITE_CALL_STATEMENTS` fails this). On a connection that
    /// compiled nothing ahead, the same call compiles them itself.
    #[test]
    fn a_store_opened_ahead_has_a_write_calls_statements_compiled() {
        let compiled_by_the_call = |ahead: bool| {
            let dir = tempfile::tempdir().unwrap();
            let store = stored(dir.path(), "/p/a", "first");
            // A session that has recorded an exposure before: its table is there (making it
            // changes the schema, which makes every statement compile again).
            store
                .record_exposures("s", &[exposure(ExposureKind::Untrusted, "")], 1)
                .unwrap();
            let count = std::sync::atomic::AtomicUsize::new(0);
            let conn = store.open("s", false).unwrap().unwrap();
            // Set before the statements are compiled: setting it expires those compiled before.
            // SAFETY: the connection is open; `count` outlives it (dropped below, with `s`).
            unsafe {
                rusqlite::ffi::sqlite3_set_authorizer(
                    conn.handle(),
                    Some(count_compiles),
                    &count as *const _ as *mut std::ffi::c_void,
                );
            }
            if ahead {
                compile_ahead(&conn);
            }
            count.store(0, std::sync::atomic::Ordering::Relaxed);
            let mut s = store.session("s");
            s.conn = Some(conn);
            let query = ExposureQuery {
                paths: vec!["/p/a".into()],
                remotes: Vec::new(),
                since_ms: 0,
                untrusted: false,
            };
            let keys = ["/p/a".to_string(), "/p/b".to_string()];
            let (_, view) = s
                .load(&keys, Some(&query), |_| ((), BTreeSet::new()))
                .unwrap();
            let mut work = plan(&view, entry("/p/a", "second"));
            work.entries.insert("/p/b".into(), entry("/p/b", "new"));
            let changes = SessionChanges {
                ledger: Some(work),
                exposures: vec![exposure(ExposureKind::Derived, "/p/a")],
                now_ms: 5,
            };
            s.commit(&view, &changes, |_| false, |_| Ok(((), true)))
                .unwrap();
            let receipt = Receipt {
                seq: 3,
                hash: "h".into(),
            };
            s.attach(Some("t1"), &[], &receipt).unwrap();
            drop(s);
            assert_eq!(
                store.load("s").unwrap().entries["/p/b"].receipt,
                Some(receipt),
                "the call was recorded"
            );
            count.into_inner()
        };
        assert!(compiled_by_the_call(false) > 0);
        assert_eq!(compiled_by_the_call(true), 0, "compiled ahead");
    }

    /// An open ahead that fails is made again by the call, whose answer is that open's: a
    /// store that is not a regular file of this user is an error, never an empty ledger.
    #[test]
    fn a_failed_open_ahead_fails_the_call_as_its_own_open_would() {
        let dir = tempfile::tempdir().unwrap();
        let store = stored(dir.path(), "/p/a", "t");
        let db = store.file_for("s");
        let elsewhere = dir.path().join("elsewhere.db");
        std::fs::rename(&db, &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &db).unwrap();
        let opening = store.open_ahead("s");
        assert!(
            opening.is_some(),
            "the link is there: opened ahead, and refused"
        );
        let mut session = store.session_with("s", opening);
        let err = session
            .load(&["/p/a".to_string()], None, |v| {
                (v.ledger.entries.len(), BTreeSet::new())
            })
            .unwrap_err();
        assert_eq!(err.path, db, "{err}");
        let direct = store
            .session("s")
            .load(&["/p/a".to_string()], None, |_| ((), BTreeSet::new()))
            .unwrap_err();
        assert_eq!(err.message, direct.message);
    }
}
