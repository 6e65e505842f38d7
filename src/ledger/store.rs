//! Where a session's ledger lives and how it is read and updated: one JSON file per session,
//! named by a hash of the session id (session ids are untrusted and never reach a path),
//! updated under an exclusive lock and replaced atomically (temp file + rename), so parallel
//! hook processes lose nothing and a crash leaves the previous version intact.

use super::Ledger;
use sha2::{Digest, Sha256};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Ledgers of sessions untouched this long are removed when a new session starts one.
pub const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);
/// Most stale files removed at once, so starting a session stays quick.
const MAX_PRUNED: usize = 256;

/// Largest ledger file read; a bigger one is reported, not trusted.
pub const MAX_LEDGER_BYTES: u64 = 64 * 1024 * 1024;

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

/// The ledgers of all sessions under one state directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerStore {
    dir: PathBuf,
}

impl LedgerStore {
    /// The store under `<data_dir>/ledger`.
    pub fn new(data_dir: &Path) -> LedgerStore {
        LedgerStore {
            dir: data_dir.join("ledger"),
        }
    }

    /// The ledger file of a session: `<dir>/<first 16 hex digits of sha256(session_id)>.json`.
    pub fn file_for(&self, session_id: &str) -> PathBuf {
        let digest = hex::encode(Sha256::digest(session_id.as_bytes()));
        self.dir.join(format!("{}.json", &digest[..16]))
    }

    fn lock_for(&self, session_id: &str) -> PathBuf {
        self.file_for(session_id).with_extension("lock")
    }

    /// Reads a session's ledger (empty when none was written yet). A file that exists but
    /// cannot be read or parsed is an error, never an empty ledger: forgetting what the agent
    /// wrote would let a write-then-run chain through.
    pub fn load(&self, session_id: &str) -> Result<Ledger, LedgerError> {
        read_ledger(&self.file_for(session_id))
    }

    /// Reads, changes and writes back a session's ledger under its exclusive lock.
    pub fn update<T>(
        &self,
        session_id: &str,
        change: impl FnOnce(&mut Ledger) -> T,
    ) -> Result<T, LedgerError> {
        self.update_when(session_id, |l| (change(l), true))
    }

    /// Like `update`, but writes back only when `change` says it changed something.
    pub fn update_when<T>(
        &self,
        session_id: &str,
        change: impl FnOnce(&mut Ledger) -> (T, bool),
    ) -> Result<T, LedgerError> {
        let path = self.file_for(session_id);
        let err = |message: String| LedgerError {
            path: path.clone(),
            message,
        };
        fs::create_dir_all(&self.dir).map_err(|e| err(format!("could not be created ({e})")))?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.lock_for(session_id))
            .map_err(|e| err(format!("could not be locked ({e})")))?;
        lock.lock()
            .map_err(|e| err(format!("could not be locked ({e})")))?;
        let fresh = !path.exists();
        let mut ledger = read_ledger(&path)?;
        let (out, changed) = change(&mut ledger);
        if changed {
            ledger.enforce_bounds();
            write_atomically(&path, &ledger)
                .map_err(|e| err(format!("could not be written ({e})")))?;
        }
        // The lock is released when `lock` is dropped, after the rename.
        drop(lock);
        if fresh && changed {
            self.prune_stale(&path);
        }
        Ok(out)
    }

    /// Removes ledgers (and their lock files) of sessions not written for `STALE_AFTER`.
    /// Best effort: a file that cannot be removed stays, nothing fails.
    fn prune_stale(&self, keep: &Path) {
        let Ok(dir) = fs::read_dir(&self.dir) else {
            return;
        };
        let now = std::time::SystemTime::now();
        let mut removed = 0;
        for entry in dir.flatten() {
            if removed >= MAX_PRUNED {
                break;
            }
            let path = entry.path();
            if path == keep || path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let stale = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age > STALE_AFTER);
            if stale && fs::remove_file(&path).is_ok() {
                let _ = fs::remove_file(path.with_extension("lock"));
                removed += 1;
            }
        }
    }
}

fn read_ledger(path: &Path) -> Result<Ledger, LedgerError> {
    let err = |message: String| LedgerError {
        path: path.to_path_buf(),
        message,
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Ledger::default()),
        Err(e) => return Err(err(format!("could not be read ({e})"))),
    };
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

fn write_atomically(path: &Path, ledger: &Ledger) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(ledger).map_err(std::io::Error::other)?;
    let tmp = path.with_extension(format!("json.tmp.{}", std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{LedgerEntry, Receipt};

    fn entry(path: &str, id: &str) -> LedgerEntry {
        LedgerEntry {
            path: path.into(),
            sha256: None,
            size: None,
            tool: "Write".into(),
            tool_use_id: Some(id.into()),
            summary: String::new(),
            how: "Write".into(),
            from_network: false,
            executable: false,
            excerpt: None,
            excerpt_complete: false,
            analysis: None,
            receipt: None,
            written_at: 1,
            confirmed: false,
        }
    }

    #[test]
    fn receipts_attach_to_the_writes_of_their_call() {
        let dir = tempfile::tempdir().unwrap();
        let store = LedgerStore::new(dir.path());
        store
            .update("s", |l| {
                l.entries.insert("/a".into(), entry("/a", "t1"));
                l.entries.insert("/b".into(), entry("/b", "t2"));
            })
            .unwrap();
        let before = fs::metadata(store.file_for("s"))
            .unwrap()
            .modified()
            .unwrap();
        let r = Receipt {
            seq: 4,
            hash: "h".into(),
        };
        let n = store
            .update_when("s", |l| {
                let n = l.attach_receipt("t9", &r);
                (n, n > 0)
            })
            .unwrap();
        assert_eq!(n, 0);
        assert_eq!(
            fs::metadata(store.file_for("s"))
                .unwrap()
                .modified()
                .unwrap(),
            before
        );
        store.update("s", |l| l.attach_receipt("t1", &r)).unwrap();
        let l = store.load("s").unwrap();
        assert_eq!(l.entries["/a"].receipt, Some(r));
        assert_eq!(l.entries["/b"].receipt, None);
    }

    #[test]
    fn session_ids_never_reach_the_path() {
        let store = LedgerStore::new(Path::new("/state"));
        let p = store.file_for("../../etc/passwd");
        assert_eq!(p.parent(), Some(Path::new("/state/ledger")));
        let name = p.file_name().unwrap().to_str().unwrap();
        assert_eq!(name.len(), 16 + ".json".len());
        assert!(name[..16].chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(store.file_for("a"), store.file_for("b"));
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
        File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
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
        fs::write(&file, b"{\"entries\": [tru").unwrap();
        let e = store.load("s").unwrap_err();
        assert!(e.to_string().contains("corrupt"), "{e}");
        assert!(store.update("s", |_| ()).is_err());
        assert!(store.update_when("s", |_| ((), false)).is_err());
        // The corrupt file is left for inspection, not overwritten.
        assert_eq!(fs::read(&file).unwrap(), b"{\"entries\": [tru");
    }
}
