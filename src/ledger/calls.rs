//! What the hook saw of a session's calls: the `tool_use_id` of every PreToolUse decision (so
//! a PostToolUse can tell whether the hook ran before its tool: bypass detection) and the
//! policy digest of the session's first decision (so a later call decided under another policy
//! is flagged: policy drift). Neither changes a verdict; both become audit `alerts`.
//!
//! Where: three small files per session in `<state dir>/calls/`, named by the ledger's hash of
//! the session id: `<hash>.ids`, one line per decided id, appended; `<hash>.policy`, the first
//! digest, made once (linked into place, so it is whole or absent); `<hash>.unkeyed`, made
//! when a PreToolUse came without an id (an old Claude Code: an unknown id proves nothing).
//!
//! Why files, not the SQLite store this was before: every PreToolUse writes here, and opening
//! a database and journaling one insert was about 0.2 M instructions and 60 system calls of a
//! call (docs/PERFORMANCE.md, "Decided calls"). An append of one line with `O_APPEND` is one
//! `write`, which the kernel serializes against every other append to the file, so concurrent
//! hooks neither lose nor interleave ids. A PostToolUse reads the file's tail backwards (4 KiB
//! first, doubling to `WINDOW`): its PreToolUse is almost always among the last few lines, so
//! the read does not grow with the session; an id older than the window is "cannot tell".
//!
//! Failure rules: a file that cannot be written or read here costs only the alert (a warning
//! is logged), never the call: what it guards is evidence, not a decision. Nothing is synced:
//! a crash of the process loses nothing, a power loss may lose the last lines (alerts only).
//! In memory (`check`, `replay`) nothing is recorded and nothing can be told.

use super::{LedgerError, LedgerStore};
use crate::event::HookEvent;
use crate::verdict::{Alert, Verdict};
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The most of a session's id file a PostToolUse reads: about 8,000 ids at 32 bytes a line. A
/// PostToolUse follows its PreToolUse within the same turn; this many later decisions (a long
/// subagent run in parallel) before it would be needed to push an id out of reach.
const WINDOW: u64 = 256 * 1024;
/// The first read of the tail.
const FIRST_READ: u64 = 4096;
/// Ids kept as they are up to this length (printable, no spaces); longer or stranger ones are
/// kept as `#` and their hash, so a line is always one id.
const MAX_PLAIN_ID: usize = 200;

/// What the session's record says about a PostToolUse's call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreSeen {
    /// Its PreToolUse decision is recorded.
    Decided,
    /// No PreToolUse decision is recorded for it: the hook did not run before the tool.
    Missing,
    /// The session cannot tell (PreToolUse events without ids, an id older than the window,
    /// a record from an earlier version, or no record kept: `check` and `replay`).
    Unknown,
}

/// The decided calls of every session (`LedgerStore::decided_calls`).
#[derive(Debug, Clone)]
pub struct DecidedCalls {
    /// `<state dir>/calls`; `None` in memory.
    dir: Option<PathBuf>,
}

fn err(path: &Path, e: impl std::fmt::Display) -> LedgerError {
    LedgerError {
        path: path.to_path_buf(),
        message: format!("could not be used for the session's decided calls ({e})"),
    }
}

/// The line an id is kept as (without its newline).
fn line_of(id: &str) -> String {
    let plain = id.len() <= MAX_PLAIN_ID
        && !id.starts_with('#')
        && id.bytes().all(|b| b.is_ascii_graphic());
    if plain {
        id.to_string()
    } else {
        format!("#{:016x}", super::keyset::hash(id))
    }
}

/// Opens a file of the record without following a symlink or waiting on a FIFO planted in its
/// place, and refuses anything but a regular file of this user.
fn open(path: &Path, options: &mut OpenOptions) -> std::io::Result<File> {
    let f = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .mode(0o600)
        .open(path)?;
    let m = f.metadata()?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if !m.file_type().is_file() || m.uid() != me {
        return Err(std::io::Error::other(
            "not a regular file of this user; remove it",
        ));
    }
    Ok(f)
}

impl LedgerStore {
    /// The sessions' decided calls, beside this ledger store (nothing kept in memory).
    pub fn decided_calls(&self) -> DecidedCalls {
        DecidedCalls {
            dir: (!self.is_memory()).then(|| self.sibling_dir("calls")),
        }
    }
}

impl DecidedCalls {
    /// A session's file with `ext`: `<dir>/<hash>.<ext>`, the hash the ledger names it by.
    fn file(dir: &Path, session_id: &str, ext: &str) -> PathBuf {
        LedgerStore::session_file(dir, session_id).with_extension(ext)
    }

    /// Records a PreToolUse decision: its `tool_use_id` (when it has one), and `digest` as the
    /// session's policy when it is the first. Returns the session's first digest (this one for
    /// the first call).
    pub fn record_decision(
        &self,
        session_id: &str,
        tool_use_id: Option<&str>,
        digest: &str,
    ) -> Result<String, LedgerError> {
        let Some(dir) = &self.dir else {
            return Ok(digest.to_string());
        };
        let ids = Self::file(dir, session_id, "ids");
        let append = |path: &Path, text: &[u8]| {
            open(path, OpenOptions::new().append(true).create(true))
                .and_then(|mut f| f.write_all(text))
        };
        let write = || match tool_use_id.filter(|id| !id.is_empty()) {
            Some(id) => append(&ids, format!("{}\n", line_of(id)).as_bytes()),
            None => append(&Self::file(dir, session_id, "unkeyed"), b""),
        };
        match write() {
            // The state directory's first session: make the folder, then write once more.
            Err(e) if e.kind() == ErrorKind::NotFound => {
                fs::create_dir_all(dir).map_err(|e| err(dir, e))?;
                write()
            }
            r => r,
        }
        .map_err(|e| err(&ids, e))?;
        self.first_policy(dir, session_id, digest)
    }

    /// The session's first digest, made `digest` when there is none yet: written to a file of
    /// its own, then linked into place, so a reader finds it whole or not at all.
    fn first_policy(
        &self,
        dir: &Path,
        session_id: &str,
        digest: &str,
    ) -> Result<String, LedgerError> {
        let path = Self::file(dir, session_id, "policy");
        let read = |path: &Path| {
            open(path, OpenOptions::new().read(true)).and_then(|mut f| {
                let mut s = String::new();
                Read::by_ref(&mut f)
                    .take(1024)
                    .read_to_string(&mut s)
                    .map(|_| s)
            })
        };
        match read(&path) {
            Ok(first) => return Ok(first),
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(err(&path, e)),
        }
        // Unique to this process and this attempt: threads of one process (the tests', a
        // server's) share the pid, and one's clean-up removed another's file before its link.
        static ATTEMPT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let attempt = ATTEMPT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = path.with_extension(format!("policy.tmp.{}.{attempt}", std::process::id()));
        let _ = fs::remove_file(&tmp);
        let made = open(&tmp, OpenOptions::new().write(true).create_new(true))
            .and_then(|mut f| f.write_all(digest.as_bytes()))
            .and_then(|()| fs::hard_link(&tmp, &path));
        let _ = fs::remove_file(&tmp);
        match made {
            Ok(()) => {
                // The session's first decision: a good time to remove stale sessions' files.
                prune_stale(dir, &path);
                Ok(digest.to_string())
            }
            // Another process linked its digest first: that one is the first.
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                read(&path).map_err(|e| err(&path, e))
            }
            Err(e) => Err(err(&path, e)),
        }
    }

    /// Whether the PreToolUse decision of call `tool_use_id` is recorded in the session.
    pub fn pre_seen(&self, session_id: &str, tool_use_id: &str) -> Result<PreSeen, LedgerError> {
        let Some(dir) = &self.dir else {
            return Ok(PreSeen::Unknown);
        };
        let ids = Self::file(dir, session_id, "ids");
        let exists = |ext: &str| fs::symlink_metadata(Self::file(dir, session_id, ext)).is_ok();
        let f = match open(&ids, OpenOptions::new().read(true)) {
            Ok(f) => f,
            // No id recorded: a session whose PreToolUse calls all came without ids, or whose
            // record an earlier version kept (`<hash>.db`), cannot tell; otherwise no
            // PreToolUse of this session was ever decided here.
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Ok(if exists("unkeyed") || exists("db") {
                    PreSeen::Unknown
                } else {
                    PreSeen::Missing
                });
            }
            Err(e) => return Err(err(&ids, e)),
        };
        let size = f.metadata().map_err(|e| err(&ids, e))?.len();
        let want = line_of(tool_use_id);
        let mut n = FIRST_READ.min(size);
        loop {
            let mut tail = vec![0u8; n as usize];
            f.read_exact_at(&mut tail, size - n)
                .map_err(|e| err(&ids, e))?;
            // A tail that starts mid-file may start mid-line: that piece is not an id.
            let whole = if n < size {
                tail.iter()
                    .position(|b| *b == b'\n')
                    .map_or(&tail[..0], |i| &tail[i + 1..])
            } else {
                &tail[..]
            };
            if whole.split(|b| *b == b'\n').any(|l| l == want.as_bytes()) {
                return Ok(PreSeen::Decided);
            }
            if n == size || n >= WINDOW {
                break;
            }
            n = (n * 2).min(WINDOW).min(size);
        }
        Ok(if n < size || exists("unkeyed") || exists("db") {
            PreSeen::Unknown
        } else {
            PreSeen::Missing
        })
    }
}

/// Removes the record files of sessions not decided in for `STALE_AFTER` (best effort, at most
/// `MAX_PRUNED` sessions a time), and the stores an earlier version kept here.
fn prune_stale(dir: &Path, keep: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = std::time::SystemTime::now();
    let stale =
        |p: &Path| super::store::age_of(p, now).is_some_and(|a| a > super::store::STALE_AFTER);
    let mut removed = 0;
    for entry in entries.flatten() {
        if removed >= super::store::MAX_PRUNED {
            break;
        }
        let path = entry.path();
        let first = path.extension().is_some_and(|x| x == "policy" || x == "db");
        if !first || path.with_extension("policy") == keep {
            continue;
        }
        let ids = path.with_extension("ids");
        if stale(&path) && (stale(&ids) || fs::symlink_metadata(&ids).is_err()) {
            for ext in [
                "ids",
                "unkeyed",
                "policy",
                "db",
                "db-journal",
                "db-wal",
                "db-shm",
                "lock",
            ] {
                let _ = fs::remove_file(path.with_extension(ext));
            }
            removed += 1;
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
    mut verdict: Verdict,
) -> Verdict {
    match store.decided_calls().record_decision(
        &event.session_id,
        event.tool_use_id.as_deref(),
        digest,
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

    fn calls() -> (tempfile::TempDir, DecidedCalls) {
        let dir = tempfile::tempdir().unwrap();
        let calls = LedgerStore::new(dir.path()).decided_calls();
        (dir, calls)
    }

    fn ids_file(dir: &tempfile::TempDir, session: &str) -> PathBuf {
        DecidedCalls::file(&dir.path().join("calls"), session, "ids")
    }

    #[test]
    fn decisions_are_found_and_the_first_policy_is_kept() {
        let (_dir, store) = calls();
        assert_eq!(store.pre_seen("s", "t1").unwrap(), PreSeen::Missing);
        assert_eq!(store.record_decision("s", Some("t1"), "a").unwrap(), "a");
        // Recorded twice (two installs of the hook): found, no error.
        assert_eq!(store.record_decision("s", Some("t1"), "a").unwrap(), "a");
        assert_eq!(store.record_decision("s", Some("t2"), "b").unwrap(), "a");
        assert_eq!(store.pre_seen("s", "t1").unwrap(), PreSeen::Decided);
        assert_eq!(store.pre_seen("s", "t2").unwrap(), PreSeen::Decided);
        assert_eq!(store.pre_seen("s", "t3").unwrap(), PreSeen::Missing);
        // A prefix or a suffix of a recorded id is another id.
        assert_eq!(store.pre_seen("s", "t").unwrap(), PreSeen::Missing);
        assert_eq!(store.pre_seen("s", "1").unwrap(), PreSeen::Missing);
        // Sessions are apart.
        assert_eq!(store.pre_seen("other", "t1").unwrap(), PreSeen::Missing);
        // A PreToolUse without an id makes an unknown id unprovable.
        store.record_decision("s", None, "a").unwrap();
        assert_eq!(store.pre_seen("s", "t3").unwrap(), PreSeen::Unknown);
        assert_eq!(store.pre_seen("s", "t1").unwrap(), PreSeen::Decided);
        store.record_decision("u", None, "a").unwrap();
        assert_eq!(store.pre_seen("u", "t1").unwrap(), PreSeen::Unknown);
    }

    /// An id with a newline, spaces or great length is one line, its hash: it cannot add a
    /// line that reads as another call's id.
    #[test]
    fn an_id_is_always_one_line() {
        let (dir, store) = calls();
        let long = "x".repeat(MAX_PLAIN_ID + 1);
        for id in ["toolu_a\ntoolu_b", "with space", "#0123", long.as_str()] {
            store.record_decision("s", Some(id), "a").unwrap();
            assert_eq!(store.pre_seen("s", id).unwrap(), PreSeen::Decided, "{id}");
        }
        for other in ["toolu_a", "toolu_b", "with", "#0123 "] {
            assert_eq!(
                store.pre_seen("s", other).unwrap(),
                PreSeen::Missing,
                "{other}"
            );
        }
        let text = fs::read_to_string(ids_file(&dir, "s")).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
    }

    /// The tail is read backwards, 4 KiB then doubling: an id across a read's edge is found,
    /// one older than the window cannot be told, and a file read whole answers "missing".
    #[test]
    fn the_tail_is_read_up_to_the_window() {
        let (dir, store) = calls();
        store.record_decision("s", Some("oldest"), "a").unwrap();
        let mut f = OpenOptions::new()
            .append(true)
            .open(ids_file(&dir, "s"))
            .unwrap();
        let filler = |f: &mut File, bytes: u64, tag: &str| {
            let mut n = 0;
            let mut i = 0;
            while n < bytes {
                let line = format!("toolu_{tag}_{i:08}\n");
                f.write_all(line.as_bytes()).unwrap();
                n += line.len() as u64;
                i += 1;
            }
        };
        filler(&mut f, 5000, "a");
        store.record_decision("s", Some("middle"), "a").unwrap();
        filler(&mut f, FIRST_READ * 3, "b");
        assert_eq!(store.pre_seen("s", "middle").unwrap(), PreSeen::Decided);
        assert_eq!(store.pre_seen("s", "oldest").unwrap(), PreSeen::Decided);
        assert_eq!(store.pre_seen("s", "never").unwrap(), PreSeen::Missing);
        filler(&mut f, WINDOW, "c");
        assert_eq!(store.pre_seen("s", "oldest").unwrap(), PreSeen::Unknown);
        assert_eq!(store.pre_seen("s", "never").unwrap(), PreSeen::Unknown);
        store.record_decision("s", Some("newest"), "a").unwrap();
        assert_eq!(store.pre_seen("s", "newest").unwrap(), PreSeen::Decided);
    }

    /// Hooks of one session appending at once lose and interleave nothing: every id is one
    /// whole line, found afterwards.
    #[test]
    fn concurrent_appends_keep_every_id_whole() {
        let (dir, store) = calls();
        std::thread::scope(|s| {
            for t in 0..8 {
                let store = store.clone();
                s.spawn(move || {
                    for i in 0..200 {
                        store
                            .record_decision("s", Some(&format!("toolu_{t}_{i}")), "a")
                            .unwrap();
                    }
                });
            }
        });
        let text = fs::read_to_string(ids_file(&dir, "s")).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1600);
        lines.sort();
        lines.dedup();
        assert_eq!(lines.len(), 1600);
        assert!(lines.iter().all(|l| l.starts_with("toolu_")));
        assert_eq!(store.pre_seen("s", "toolu_3_7").unwrap(), PreSeen::Decided);
    }

    /// A session whose PreToolUse calls an earlier version recorded (its SQLite store,
    /// `<hash>.db`) cannot tell a missing id from one recorded there.
    #[test]
    fn a_record_of_an_earlier_version_cannot_tell() {
        let (dir, store) = calls();
        let db = ids_file(&dir, "s").with_extension("db");
        fs::create_dir_all(db.parent().unwrap()).unwrap();
        fs::write(&db, b"SQLite format 3\0").unwrap();
        assert_eq!(store.pre_seen("s", "t1").unwrap(), PreSeen::Unknown);
        store.record_decision("s", Some("t2"), "a").unwrap();
        assert_eq!(store.pre_seen("s", "t1").unwrap(), PreSeen::Unknown);
        assert_eq!(store.pre_seen("s", "t2").unwrap(), PreSeen::Decided);
    }

    /// A symlink or FIFO planted at the record's files is neither followed nor waited on: an
    /// error (the alert is lost, with a warning), promptly.
    #[test]
    fn planted_files_are_refused_promptly() {
        let (dir, store) = calls();
        let ids = ids_file(&dir, "s");
        fs::create_dir_all(ids.parent().unwrap()).unwrap();
        let elsewhere = dir.path().join("elsewhere");
        fs::write(&elsewhere, "t1\n").unwrap();
        std::os::unix::fs::symlink(&elsewhere, &ids).unwrap();
        assert!(store.record_decision("s", Some("t2"), "a").is_err());
        assert!(store.pre_seen("s", "t1").is_err());
        assert_eq!(fs::read_to_string(&elsewhere).unwrap(), "t1\n");
        fs::remove_file(&ids).unwrap();
        let c = std::ffi::CString::new(ids.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let started = std::time::Instant::now();
        assert!(store.record_decision("s", Some("t2"), "a").is_err());
        assert!(store.pre_seen("s", "t1").is_err());
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    /// A session's first decision removes the files of sessions untouched for `STALE_AFTER`,
    /// and the SQLite stores an earlier version kept, when as old; a live session's stay.
    #[test]
    fn stale_sessions_are_pruned_by_a_new_one() {
        let (dir, store) = calls();
        store.record_decision("old", Some("t1"), "a").unwrap();
        store.record_decision("live", Some("t1"), "a").unwrap();
        let calls = dir.path().join("calls");
        let old_db = DecidedCalls::file(&calls, "older", "db");
        fs::write(&old_db, b"x").unwrap();
        let past = std::time::SystemTime::now() - super::super::store::STALE_AFTER * 2;
        let age = |p: &Path| {
            File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(past)
                .unwrap()
        };
        for ext in ["ids", "policy"] {
            age(&DecidedCalls::file(&calls, "old", ext));
        }
        age(&DecidedCalls::file(&calls, "live", "policy"));
        age(&old_db);
        store.record_decision("new", Some("t1"), "a").unwrap();
        assert!(!DecidedCalls::file(&calls, "old", "ids").exists());
        assert!(!DecidedCalls::file(&calls, "old", "policy").exists());
        assert!(!old_db.exists());
        assert!(DecidedCalls::file(&calls, "live", "ids").exists());
        assert_eq!(store.pre_seen("live", "t1").unwrap(), PreSeen::Decided);
    }

    #[test]
    fn the_stages_flag_drift_and_bypass() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        let mut ev = HookEvent::hypothetical(
            "s",
            Path::new("/p"),
            "Bash".into(),
            serde_json::json!({"command": "ls"}),
        );
        ev.tool_use_id = Some("t1".into());
        let v = observe_pre(&store, "a", &ev, Verdict::no_opinion());
        assert!(v.alerts.is_empty());
        ev.tool_use_id = Some("t2".into());
        let v = observe_pre(&store, "b", &ev, Verdict::no_opinion());
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
        // In memory (`check`, `replay`) nothing is kept and nothing flagged.
        let memory = LedgerStore::in_memory();
        ev.tool_use_id = Some("t9".into());
        assert!(
            observe_post(&memory, &ev, Verdict::no_opinion())
                .alerts
                .is_empty()
        );
    }
}
