//! The answer cache: `<data_dir>/risk-cache/<sha256>.json`, keyed by the endpoint and the
//! canonical request body (state and questions), with a TTL. Written atomically (temp file +
//! rename); a corrupt, expired or future-dated entry is a miss. Only checked answers are stored,
//! and never the backend key.
//!
//! Every entry is authenticated: an HMAC-SHA256, under a per-install key kept beside the cache
//! (`<data_dir>/risk-cache.key`, 0600, never inside the cache dir), over the entry's name and its
//! bytes. An entry planted or edited by anything that can write files but cannot read the key
//! (an agent whose tool calls palisade refuses on that path) fails the check and is a miss,
//! recorded as such. A key that exists but cannot be read makes every entry a miss; a missing
//! key is created only together with discarding the entries made under the old one.

use super::ladder::RiskAnswers;
use super::wire::Usage;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Largest cache entry read back.
const MAX_ENTRY_BYTES: u64 = 256 * 1024;
/// Bytes of the per-install MAC key.
const KEY_BYTES: usize = 32;
/// Most entries kept after a prune (oldest go first).
const MAX_ENTRIES: usize = 2_000;
/// Entries older than this are pruned whatever the TTL (the largest `cache_ttl_s`).
const MAX_AGE_S: u64 = 86_400;
/// A prune runs at most this often, and only after a fresh answer was stored: an ordinary call
/// never lists the directory.
const PRUNE_EVERY_S: u64 = 3_600;

type HmacSha256 = Hmac<Sha256>;

/// One cached backend answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheEntry {
    /// Unix seconds when the answer was received.
    pub stored_at: u64,
    pub model: Option<String>,
    pub request_id: Option<String>,
    pub answers: RiskAnswers,
    #[serde(default)]
    pub usage: Option<Usage>,
}

/// What a lookup found.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// A fresh, authentic entry.
    Hit(CacheEntry),
    /// Nothing usable: no entry, expired, or the cache is off.
    Miss,
    /// An entry that failed authentication (planted, edited, or made under another key), or a
    /// key that cannot be read: a miss, recorded with its reason.
    Rejected(String),
}

/// The per-install MAC key, or why there is none (then nothing is read or written).
#[derive(Clone)]
pub enum MacKey {
    Ready([u8; KEY_BYTES]),
    Unusable(String),
}

impl std::fmt::Debug for MacKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MacKey::Ready(_) => f.write_str("MacKey::Ready(..)"),
            MacKey::Unusable(why) => write!(f, "MacKey::Unusable({why})"),
        }
    }
}

/// The cache key: sha256 over the endpoint URL and the canonical body, so two backends never
/// share answers.
pub fn key(url: &str, body: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(url.as_bytes());
    h.update(b"\n");
    h.update(body);
    hex::encode(h.finalize())
}

fn dir(data_dir: &Path) -> PathBuf {
    data_dir.join("risk-cache")
}

/// Where the MAC key lives: in the state dir, never inside the cache dir it protects.
pub fn key_path(data_dir: &Path) -> PathBuf {
    data_dir.join("risk-cache.key")
}

fn entry_path(data_dir: &Path, key: &str) -> PathBuf {
    dir(data_dir).join(format!("{key}.json"))
}

/// Loads the MAC key, creating it (after discarding every entry made under an older key) when
/// there is none. A key file that exists but cannot be read, or has the wrong size, is never
/// replaced here: its entries might still be trusted by another palisade, and an agent that can
/// make the file unreadable must not thereby get to choose a new key.
pub fn mac_key(data_dir: &Path) -> MacKey {
    let path = key_path(data_dir);
    match read_key(&path) {
        Ok(k) => return MacKey::Ready(k),
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return MacKey::Unusable(format!("the cache key cannot be read ({e})"));
        }
        Err(_) => {}
    }
    // No key: entries made under a previous one can no longer be checked, so they go.
    let cache = dir(data_dir);
    if cache.exists()
        && let Err(e) = std::fs::remove_dir_all(&cache)
    {
        return MacKey::Unusable(format!(
            "the cache key is missing and the old entries could not be discarded ({e})"
        ));
    }
    match create_key(data_dir, &path) {
        Ok(k) => MacKey::Ready(k),
        Err(e) => MacKey::Unusable(format!("the cache key could not be created ({e})")),
    }
}

fn read_key(path: &Path) -> std::io::Result<[u8; KEY_BYTES]> {
    let meta = std::fs::symlink_metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut f = std::fs::File::open(path)?;
    let mut buf = Vec::with_capacity(KEY_BYTES + 1);
    Read::take(&mut f, KEY_BYTES as u64 + 1).read_to_end(&mut buf)?;
    buf.try_into()
        .map_err(|_| std::io::Error::other("wrong size"))
}

/// Writes a fresh random key to a private temp file and links it into place: `hard_link` fails
/// if a key appeared meanwhile (another hook call), in which case that one is used.
fn create_key(data_dir: &Path, path: &Path) -> std::io::Result<[u8; KEY_BYTES]> {
    create_private_dir(data_dir)?;
    let mut k = [0u8; KEY_BYTES];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut k)?;
    let tmp = data_dir.join(format!(".risk-cache.key.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let result = (|| {
        let mut f = private_file(&tmp)?;
        f.write_all(&k)?;
        f.sync_all()?;
        std::fs::hard_link(&tmp, path)
    })();
    let _ = std::fs::remove_file(&tmp);
    match result {
        Ok(()) => Ok(k),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => read_key(path),
        Err(e) => Err(e),
    }
}

fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(path)
}

fn mac(key: &[u8; KEY_BYTES], name: &str, body: &[u8]) -> HmacSha256 {
    // `new_from_slice` accepts any key length for HMAC; 32 bytes cannot fail.
    let mut m = <HmacSha256 as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    m.update(name.as_bytes());
    m.update(b"\n");
    m.update(body);
    m
}

/// The entry for `key` if it is authentic and fresh (`now - stored_at < ttl_s`).
pub fn get(data_dir: &Path, mac_key: &MacKey, key: &str, ttl_s: u64, now: u64) -> Lookup {
    if ttl_s == 0 {
        return Lookup::Miss;
    }
    let path = entry_path(data_dir, key);
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        return Lookup::Miss;
    };
    let k = match mac_key {
        MacKey::Ready(k) => k,
        MacKey::Unusable(why) => return Lookup::Rejected(why.clone()),
    };
    if !meta.is_file() || meta.len() > MAX_ENTRY_BYTES {
        return Lookup::Rejected("the entry is not a small regular file".into());
    }
    let Ok(bytes) = std::fs::read(&path) else {
        return Lookup::Miss;
    };
    // `<hex mac>\n<entry json>`
    let Some(nl) = bytes.iter().position(|b| *b == b'\n') else {
        return Lookup::Rejected("the entry carries no authentication tag".into());
    };
    let (tag, body) = (&bytes[..nl], &bytes[nl + 1..]);
    let Ok(tag) = hex::decode(tag) else {
        return Lookup::Rejected("the entry's authentication tag is malformed".into());
    };
    if mac(k, key, body).verify_slice(&tag).is_err() {
        return Lookup::Rejected("the entry failed authentication (planted or edited)".into());
    }
    let Ok(entry) = serde_json::from_slice::<CacheEntry>(body) else {
        return Lookup::Rejected("an authentic entry does not parse".into());
    };
    if entry.stored_at <= now && now - entry.stored_at < ttl_s {
        Lookup::Hit(entry)
    } else {
        Lookup::Miss
    }
}

/// Stores an entry atomically, with its tag. Failures are reported but never change a decision.
pub fn put(
    data_dir: &Path,
    mac_key: &MacKey,
    key: &str,
    entry: &CacheEntry,
) -> std::io::Result<()> {
    let MacKey::Ready(k) = mac_key else {
        return Ok(());
    };
    let dir = dir(data_dir);
    create_private_dir(&dir)?;
    let body = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
    let tag = hex::encode(mac(k, key, &body).finalize().into_bytes());
    let tmp = dir.join(format!(".{key}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let result = (|| {
        let mut f = private_file(&tmp)?;
        f.write_all(tag.as_bytes())?;
        f.write_all(b"\n")?;
        f.write_all(&body)?;
        f.sync_all()?;
        std::fs::rename(&tmp, entry_path(data_dir, key))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result?;
    prune_if_due(&dir, entry.stored_at);
    Ok(())
}

/// Removes entries past `MAX_AGE_S` and the oldest beyond `MAX_ENTRIES`, at most once per
/// `PRUNE_EVERY_S` (a marker file's mtime says when it last ran).
fn prune_if_due(dir: &Path, now: u64) {
    let marker = dir.join(".pruned");
    let last = std::fs::metadata(&marker)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs());
    if last.is_some_and(|l| l <= now && now - l < PRUNE_EVERY_S) {
        return;
    }
    let _ = std::fs::write(&marker, b"");
    prune(dir, now, MAX_AGE_S, MAX_ENTRIES);
}

/// Removes `*.json` entries older than `max_age_s` (by mtime), then the oldest beyond `max`.
pub fn prune(dir: &Path, now: u64, max_age_s: u64, max: usize) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut kept: Vec<(u64, PathBuf)> = Vec::new();
    for e in rd.flatten() {
        let path = e.path();
        if path.extension().and_then(|x| x.to_str()) != Some("json") {
            continue;
        }
        let mtime = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs());
        if now.saturating_sub(mtime) >= max_age_s {
            let _ = std::fs::remove_file(&path);
        } else {
            kept.push((mtime, path));
        }
    }
    if kept.len() > max {
        kept.sort();
        for (_, p) in &kept[..kept.len() - max] {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(at: u64) -> CacheEntry {
        CacheEntry {
            stored_at: at,
            model: Some("jev-1.13.0".into()),
            request_id: Some("r1".into()),
            answers: RiskAnswers::default(),
            usage: None,
        }
    }

    #[test]
    fn round_trip_ttl_and_corruption() {
        let d = tempfile::tempdir().unwrap();
        let mk = mac_key(d.path());
        assert!(matches!(mk, MacKey::Ready(_)));
        let k = key("http://x/v1/systemone", b"{}");
        assert_eq!(k.len(), 64);
        assert_ne!(k, key("http://y/v1/systemone", b"{}"));
        assert_eq!(get(d.path(), &mk, &k, 600, 1000), Lookup::Miss);
        put(d.path(), &mk, &k, &entry(1000)).unwrap();
        assert_eq!(get(d.path(), &mk, &k, 600, 1599), Lookup::Hit(entry(1000)));
        assert_eq!(get(d.path(), &mk, &k, 600, 1600), Lookup::Miss);
        assert_eq!(get(d.path(), &mk, &k, 600, 999), Lookup::Miss);
        assert_eq!(get(d.path(), &mk, &k, 0, 1000), Lookup::Miss);
        std::fs::write(entry_path(d.path(), &k), b"{\"stored_at\":").unwrap();
        assert!(matches!(
            get(d.path(), &mk, &k, 600, 1000),
            Lookup::Rejected(_)
        ));
        // No temp files left behind (the prune marker is the only other name).
        let names: Vec<_> = std::fs::read_dir(dir(d.path()))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != ".pruned")
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn the_key_is_private_outside_the_cache_and_stable() {
        let d = tempfile::tempdir().unwrap();
        let MacKey::Ready(a) = mac_key(d.path()) else {
            panic!("no key")
        };
        let MacKey::Ready(b) = mac_key(d.path()) else {
            panic!("no key")
        };
        assert_eq!(a, b, "the key is created once");
        let p = key_path(d.path());
        assert!(!p.starts_with(dir(d.path())));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&p).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn forged_edited_and_moved_entries_are_rejected() {
        let d = tempfile::tempdir().unwrap();
        let mk = mac_key(d.path());
        let k1 = key("u", b"one");
        let k2 = key("u", b"two");
        put(d.path(), &mk, &k1, &entry(1000)).unwrap();
        // Edited: the answers changed, the tag kept.
        let text = std::fs::read_to_string(entry_path(d.path(), &k1)).unwrap();
        let edited = text.replace("\"r1\"", "\"r2\"");
        assert_ne!(edited, text);
        std::fs::write(entry_path(d.path(), &k1), &edited).unwrap();
        assert!(matches!(
            get(d.path(), &mk, &k1, 600, 1001),
            Lookup::Rejected(_)
        ));
        // Moved: a valid entry under another request's name.
        put(d.path(), &mk, &k1, &entry(1000)).unwrap();
        std::fs::copy(entry_path(d.path(), &k1), entry_path(d.path(), &k2)).unwrap();
        assert!(matches!(
            get(d.path(), &mk, &k2, 600, 1001),
            Lookup::Rejected(_)
        ));
        // Planted without a tag (the old format).
        std::fs::write(
            entry_path(d.path(), &k2),
            serde_json::to_vec(&entry(1000)).unwrap(),
        )
        .unwrap();
        assert!(matches!(
            get(d.path(), &mk, &k2, 600, 1001),
            Lookup::Rejected(_)
        ));
        // Under another install's key.
        let other = MacKey::Ready([7u8; KEY_BYTES]);
        assert!(matches!(
            get(d.path(), &other, &k1, 600, 1001),
            Lookup::Rejected(_)
        ));
    }

    #[test]
    fn a_lost_key_discards_the_cache_and_an_unreadable_one_rejects_all() {
        let d = tempfile::tempdir().unwrap();
        let mk = mac_key(d.path());
        let k = key("u", b"x");
        put(d.path(), &mk, &k, &entry(1000)).unwrap();
        std::fs::remove_file(key_path(d.path())).unwrap();
        let fresh = mac_key(d.path());
        assert!(matches!(fresh, MacKey::Ready(_)));
        assert!(!entry_path(d.path(), &k).exists(), "old entries discarded");
        // A key of the wrong size (or unreadable) is not replaced, and every entry is a miss.
        put(d.path(), &fresh, &k, &entry(1000)).unwrap();
        std::fs::write(key_path(d.path()), b"short").unwrap();
        let bad = mac_key(d.path());
        assert!(matches!(bad, MacKey::Unusable(_)));
        assert_eq!(std::fs::read(key_path(d.path())).unwrap(), b"short");
        assert!(matches!(
            get(d.path(), &bad, &k, 600, 1001),
            Lookup::Rejected(_)
        ));
        assert!(
            entry_path(d.path(), &k).exists(),
            "kept: nothing was decided"
        );
    }

    #[test]
    fn prune_bounds_age_and_count() {
        let d = tempfile::tempdir().unwrap();
        let mk = mac_key(d.path());
        for i in 0..5u8 {
            put(d.path(), &mk, &key("u", &[i]), &entry(1000)).unwrap();
        }
        let count = || {
            std::fs::read_dir(dir(d.path()))
                .unwrap()
                .filter(|e| {
                    e.as_ref()
                        .unwrap()
                        .path()
                        .extension()
                        .and_then(|x| x.to_str())
                        == Some("json")
                })
                .count()
        };
        assert_eq!(count(), 5);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        prune(&dir(d.path()), now, MAX_AGE_S, 3);
        assert_eq!(count(), 3);
        prune(&dir(d.path()), now + MAX_AGE_S + 10, MAX_AGE_S, 100);
        assert_eq!(count(), 0);
    }
}
