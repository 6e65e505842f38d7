//! The keys a session's store holds rows for (the paths of its ledger rows, and the kind and
//! key of its exposure rows, `taint::filter_key`), as a Bloom filter in a file beside it
//! (`<store>.db-keys`), so a call whose rows are certainly absent does not open the store.
//!
//! Why: opening the store is the largest part of a call that reads files (SQLite's open, its
//! schema, the shared-memory index of the WAL: about 0.5 ms of a 2.5 ms call, measured in
//! docs/PERFORMANCE.md, "A call that reads does not open the store"), and most calls read
//! files the session never wrote.
//!
//! Why it cannot hide a row (a hidden row would be a chain not followed, so this must only
//! ever answer "absent" for a path with no row):
//! - a path's bits are set *before* its row is written, inside the row's write transaction
//!   (`note`, called by `store::upsert` for a row the store does not hold yet; a row already
//!   there had its bits set when it was first written): a reader that finds them unset either
//!   read before the row's commit, as it would have read the store itself, or the row is not
//!   there;
//! - bits are only ever set, never cleared, and the file is rewritten in place: a reader that
//!   sees a write half done sees every bit set before it;
//! - a missing or unreadable file, one that is not a regular file (a FIFO is not waited on),
//!   a wrong size or an unknown format answers "maybe present", and the store is opened as
//!   before; the first new row written rebuilds the file from every row of the store (a store
//!   from before this file, or whose file was lost);
//! - the store's schema version 4 came with this file, and version 5 with the exposure keys
//!   in it: a binary that does not keep the file as this one does refuses the store rather
//!   than add rows the file would not know. The format's name (`MAGIC`) changed with them, so
//!   a file written before holds no answer.
//!
//! The hash is defined here (FNV-1a, then a 64-bit finaliser), not taken from `std`, whose
//! hasher may change between Rust releases while files written by another build stay.

use std::fs::OpenOptions;
use std::io::Read;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The file's first bytes: its format (the hash and the sizes below).
const MAGIC: &[u8; 8] = b"PALKEY02";
/// Bits in the filter: 16 KiB, a few percent of false "maybe" after 10,000 paths.
const BITS: usize = 1 << 17;
/// Probes per path.
const PROBES: u64 = 4;
/// The file's length.
const FILE_LEN: usize = MAGIC.len() + BITS / 8;

/// The filter file of the store at `db`.
pub fn file_of(db: &Path) -> PathBuf {
    PathBuf::from(format!("{}-keys", db.display()))
}

/// FNV-1a over `key`, finalised (splitmix64) so that every bit depends on every byte.
pub(super) fn hash(key: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    mix(h)
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The bit positions of `key`.
fn probes(key: &str) -> impl Iterator<Item = usize> {
    let h1 = hash(key);
    let h2 = mix(h1 ^ 0x9e37_79b9_7f4a_7c15) | 1;
    (0..PROBES).map(move |i| (h1.wrapping_add(i.wrapping_mul(h2)) % BITS as u64) as usize)
}

fn is_set(bits: &[u8], at: usize) -> bool {
    bits[at / 8] & (1 << (at % 8)) != 0
}

#[cfg(test)]
thread_local! {
    /// How many times this thread read a filter file (tests count the reads of a write).
    pub(super) static READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Opens the filter file, neither through a link nor waiting (a FIFO put at its path would
/// hold the call until its deadline), and only when it is a regular file.
fn open(file: &Path, options: &mut OpenOptions) -> std::io::Result<std::fs::File> {
    let f = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(file)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other(
            "the key filter is not a regular file",
        ));
    }
    Ok(f)
}

/// The filter's bits, when the file is there, regular and whole.
fn read(file: &Path) -> Option<Vec<u8>> {
    #[cfg(test)]
    READS.with(|n| n.set(n.get() + 1));
    let mut f = open(file, OpenOptions::new().read(true)).ok()?;
    let mut buf = Vec::with_capacity(FILE_LEN + 1);
    Read::by_ref(&mut f)
        .take(FILE_LEN as u64 + 1)
        .read_to_end(&mut buf)
        .ok()?;
    (buf.len() == FILE_LEN && buf.starts_with(MAGIC)).then(|| buf.split_off(MAGIC.len()))
}

/// True only when the store at `db` certainly holds no row for any of `keys`; false when it
/// may (a key's bits are set) or when the filter cannot be read.
pub fn all_absent(db: &Path, keys: &[String]) -> bool {
    Filter::read(db).is_some_and(|f| f.all_absent(keys))
}

/// The filter of a store, read once for several questions.
pub struct Filter {
    bits: Vec<u8>,
}

impl Filter {
    /// The filter of the store at `db`, when its file is there, regular and whole.
    pub fn read(db: &Path) -> Option<Filter> {
        read(&file_of(db)).map(|bits| Filter { bits })
    }

    /// True only when the store certainly holds no row for any of `keys`.
    pub fn all_absent(&self, keys: &[String]) -> bool {
        keys.iter()
            .all(|k| !probes(k).all(|at| is_set(&self.bits, at)))
    }
}

/// Sets the bits of `key` in the filter of the store at `db`, before its row is written. A
/// filter that is missing or not whole is rebuilt from `existing` (every path the store holds)
/// first. Called under the store's write lock, so writers do not race each other.
pub fn note(
    db: &Path,
    key: &str,
    existing: impl FnOnce() -> std::io::Result<Vec<String>>,
) -> std::io::Result<()> {
    let file = file_of(db);
    let (mut bits, whole) = match read(&file) {
        Some(b) => (b, true),
        None => (vec![0u8; BITS / 8], false),
    };
    let mut changed = !whole;
    let mut set = |k: &str| {
        for at in probes(k) {
            if !is_set(&bits, at) {
                bits[at / 8] |= 1 << (at % 8);
                changed = true;
            }
        }
    };
    if !whole {
        for k in existing()? {
            set(&k);
        }
    }
    set(key);
    if !changed {
        return Ok(());
    }
    let f = open(
        &file,
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600),
    )?;
    let mut whole_file = Vec::with_capacity(FILE_LEN);
    whole_file.extend_from_slice(MAGIC);
    whole_file.extend_from_slice(&bits);
    // In place, never truncated first: a reader meanwhile sees each byte old or new, and every
    // bit of an old byte is in the new one.
    f.write_all_at(&whole_file, 0)?;
    Ok(())
}

/// Removes the filter of the store at `db` (best effort): with no file, readers open the store.
pub fn forget(db: &Path) {
    let _ = std::fs::remove_file(file_of(db));
}

/// The filter file, for tests that damage it.
#[cfg(test)]
pub(super) fn write_raw(db: &Path, bytes: &[u8]) {
    std::fs::File::create(file_of(db))
        .and_then(|mut f| std::io::Write::write_all(&mut f, bytes))
        .unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash is part of the file format: a build that hashed differently would read another
    /// build's filter wrongly, so its values are pinned.
    #[test]
    fn the_hash_is_pinned() {
        assert_eq!(hash(""), mix(0xcbf2_9ce4_8422_2325));
        assert_eq!(hash("/home/dev/project/x.sh"), 0x9735_2926_78cf_02e2);
    }

    #[test]
    fn noted_keys_are_never_absent_and_others_mostly_are() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.db");
        let keys: Vec<String> = (0..2000).map(|i| format!("/p/file{i}.rs")).collect();
        for k in &keys {
            note(&db, k, || Ok(Vec::new())).unwrap();
        }
        for k in &keys {
            assert!(!all_absent(&db, std::slice::from_ref(k)), "{k}");
        }
        let others: Vec<String> = (0..2000).map(|i| format!("/q/other{i}.rs")).collect();
        let absent = others
            .iter()
            .filter(|k| all_absent(&db, std::slice::from_ref(k)))
            .count();
        assert!(absent > 1990, "only {absent} of 2000 read as absent");
        // One present key among absent ones: the call's rows may be there.
        let mixed = vec![others[0].clone(), keys[7].clone()];
        assert!(!all_absent(&db, &mixed));
    }

    #[test]
    fn a_missing_or_damaged_filter_answers_maybe_and_is_rebuilt_from_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.db");
        let k = vec!["/p/a".to_string()];
        assert!(!all_absent(&db, &k), "no file: maybe");
        // The earlier format (no exposure keys in it), whole, is not read either.
        let mut earlier = b"PALKEY01".to_vec();
        earlier.resize(FILE_LEN, 0);
        for bad in [
            &b""[..],
            &b"PALKEY01"[..],
            &[0u8; FILE_LEN][..],
            &earlier[..],
        ] {
            write_raw(&db, bad);
            assert!(!all_absent(&db, &k), "a damaged file is not read");
        }
        // Rebuilt: the rows the store already holds are noted with the new one.
        note(&db, "/p/new", || Ok(vec!["/p/old".into()])).unwrap();
        assert!(!all_absent(&db, &["/p/old".to_string()]));
        assert!(!all_absent(&db, &["/p/new".to_string()]));
        assert!(all_absent(&db, &["/p/never".to_string()]));
        // A whole filter is not rebuilt (the store is not read again).
        note(&db, "/p/third", || panic!("read the store again")).unwrap();
        forget(&db);
        assert!(!all_absent(&db, &["/p/never".to_string()]));
    }

    #[test]
    fn a_symlinked_filter_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.db");
        let elsewhere = dir.path().join("elsewhere");
        note(&dir.path().join("e.db"), "/p/a", || Ok(Vec::new())).unwrap();
        std::fs::rename(file_of(&dir.path().join("e.db")), &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, file_of(&db)).unwrap();
        assert!(!all_absent(&db, &["/p/zzz".to_string()]));
        assert!(note(&db, "/p/b", || Ok(Vec::new())).is_err());
    }

    /// A FIFO at the filter's path is neither waited on nor trusted: the answer comes at once
    /// and is "open the store", as for a damaged filter; a write fails rather than block.
    #[test]
    fn a_fifo_at_the_filter_is_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.db");
        let fifo =
            std::ffi::CString::new(file_of(&db).into_os_string().into_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        // On a thread of its own: a read that blocked would hang the test, not fail it.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let absent = all_absent(&db, &["/p/a".to_string()]);
            let noted = note(&db, "/p/a", || Ok(Vec::new())).is_ok();
            tx.send((absent, noted)).unwrap();
        });
        let answer = rx.recv_timeout(std::time::Duration::from_secs(10));
        assert_eq!(answer, Ok((false, false)), "maybe, and not written");
    }
}
