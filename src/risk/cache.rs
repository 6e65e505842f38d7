//! The answer cache: `<data_dir>/risk-cache/<sha256>.json`, keyed by the endpoint and the
//! canonical request body (state and questions), with a TTL. Written atomically (temp file +
//! rename); a corrupt, expired or future-dated entry is a miss. Only checked answers are stored,
//! and never the key.

use super::ladder::RiskAnswers;
use super::wire::Usage;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Largest cache entry read back.
const MAX_ENTRY_BYTES: u64 = 256 * 1024;

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

fn entry_path(data_dir: &Path, key: &str) -> PathBuf {
    dir(data_dir).join(format!("{key}.json"))
}

/// The entry for `key` if it is fresh (`now - stored_at < ttl_s`).
pub fn get(data_dir: &Path, key: &str, ttl_s: u64, now: u64) -> Option<CacheEntry> {
    if ttl_s == 0 {
        return None;
    }
    let path = entry_path(data_dir, key);
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > MAX_ENTRY_BYTES {
        return None;
    }
    let bytes = std::fs::read(&path).ok()?;
    let entry: CacheEntry = serde_json::from_slice(&bytes).ok()?;
    let fresh = entry.stored_at <= now && now - entry.stored_at < ttl_s;
    fresh.then_some(entry)
}

/// Stores an entry atomically. Failures are reported but never change a decision.
pub fn put(data_dir: &Path, key: &str, entry: &CacheEntry) -> std::io::Result<()> {
    let dir = dir(data_dir);
    create_private_dir(&dir)?;
    let body = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
    let tmp = dir.join(format!(".{key}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&body)?;
        f.sync_all()?;
        std::fs::rename(&tmp, entry_path(data_dir, key))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
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
        let k = key("http://x/v1/systemone", b"{}");
        assert_eq!(k.len(), 64);
        assert_ne!(k, key("http://y/v1/systemone", b"{}"));
        assert!(get(d.path(), &k, 600, 1000).is_none());
        put(d.path(), &k, &entry(1000)).unwrap();
        assert_eq!(get(d.path(), &k, 600, 1599), Some(entry(1000)));
        assert!(get(d.path(), &k, 600, 1600).is_none());
        assert!(get(d.path(), &k, 600, 999).is_none());
        assert!(get(d.path(), &k, 0, 1000).is_none());
        std::fs::write(entry_path(d.path(), &k), b"{\"stored_at\":").unwrap();
        assert!(get(d.path(), &k, 600, 1000).is_none());
        // No temp files left behind.
        let names: Vec<_> = std::fs::read_dir(dir(d.path()))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1);
    }
}
