//! Appending to the chain: under an exclusive lock on the log file, read the last entry from
//! the end of the file (never the whole file), chain the new entry to it and write one line.

use super::entry::{GENESIS, NewEntry};
use serde::Deserialize;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Where the new entry went: the ledger links writes to it (and stores it, hence serde).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AppendReceipt {
    pub seq: u64,
    pub hash: String,
}

/// Why an entry could not be appended. Each becomes a deny (or ask) naming the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditError {
    /// A filesystem operation failed (`action` says which).
    Io {
        path: PathBuf,
        action: &'static str,
        error: String,
    },
    /// The last line is incomplete or unreadable (a crash mid-write, or an edit): chaining over
    /// it would hide the damage, so nothing is appended until a human looks.
    Torn { path: PathBuf, detail: String },
}

impl std::fmt::Display for AuditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuditError::Io {
                path,
                action,
                error,
            } => write!(
                f,
                "could not {action} the audit log {}: {error}",
                path.display()
            ),
            AuditError::Torn { path, detail } => write!(
                f,
                "the audit log {} ends in a torn entry ({detail}); run `palisade audit verify` \
                 and move the damaged tail aside",
                path.display()
            ),
        }
    }
}

impl std::error::Error for AuditError {}

/// First and largest chunk for reading a file backwards. An entry is about half a KiB, so the
/// first read almost always holds the last line: an append reads 4 KiB, not 64, of a long log.
const TAIL_FIRST_CHUNK: u64 = 4 * 1024;
const TAIL_CHUNK: u64 = 64 * 1024;

/// The fields of the last entry that the next one needs.
#[derive(Deserialize)]
struct ChainHead {
    seq: u64,
    hash: String,
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Creates the directory of the log (and its parents) readable by the owner only.
fn create_parent(path: &Path) -> Result<(), AuditError> {
    let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(());
    };
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|e| AuditError::Io {
        path: path.to_path_buf(),
        action: "create the directory of",
        error: e.to_string(),
    })
}

/// Opens the log for reading and appending, creating it (mode 0600) if needed.
fn open_for_append(path: &Path) -> Result<File, AuditError> {
    create_parent(path)?;
    let mut opts = OpenOptions::new();
    opts.read(true).append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
        // A symlink (to /dev/null, to another file) is refused by the open itself; a FIFO must
        // not block the open, and is then refused by the check below.
        opts.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = opts.open(path).map_err(|e| AuditError::Io {
        path: path.to_path_buf(),
        action: "open",
        error: if e.raw_os_error() == Some(libc::ELOOP) {
            "it is a symbolic link, not the log file".to_string()
        } else {
            e.to_string()
        },
    })?;
    check_log_file(path, &file)?;
    Ok(file)
}

/// The log must be a regular file owned by the user running palisade: a FIFO, a device or
/// another user's file would swallow or expose the record.
fn check_log_file(path: &Path, file: &File) -> Result<(), AuditError> {
    let refuse = |error: String| AuditError::Io {
        path: path.to_path_buf(),
        action: "open",
        error,
    };
    let meta = file.metadata().map_err(|e| refuse(e.to_string()))?;
    if !meta.is_file() {
        return Err(refuse(format!(
            "it is not a regular file ({:?})",
            meta.file_type()
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            return Err(refuse(format!(
                "it is owned by uid {}, not by the user running palisade (uid {me})",
                meta.uid()
            )));
        }
    }
    Ok(())
}

/// Maps an I/O error of `action` on the log at `path`.
fn io_error<'a>(
    path: &'a Path,
    action: &'static str,
) -> impl Fn(std::io::Error) -> AuditError + 'a {
    move |e| AuditError::Io {
        path: path.to_path_buf(),
        action,
        error: e.to_string(),
    }
}

/// Appends one entry to the log at `path` and returns its seq and hash.
///
/// Durability: the line is written with one `write_all` and not fsynced — the page cache
/// survives a crash of the process; after a power loss a torn last line is possible and is
/// detected (by the next append and by `verify`), never chained over.
pub fn append(path: &Path, new: NewEntry) -> Result<AppendReceipt, AuditError> {
    let io = |action| io_error(path, action);
    let mut file = open_for_append(path)?;
    file.lock().map_err(io("lock"))?;
    let result = append_locked(path, &mut file, new);
    // Closing the file releases the lock too; unlocking first keeps the critical section short.
    let _ = file.unlock();
    result
}

fn append_locked(path: &Path, file: &mut File, new: NewEntry) -> Result<AppendReceipt, AuditError> {
    let io = |action| io_error(path, action);
    let len = file.metadata().map_err(io("inspect"))?.len();
    let (last_seq, prev) = if len == 0 {
        (0, GENESIS.to_string())
    } else {
        let line = match last_line(file, len).map_err(io("read"))? {
            LastLine::Complete(line) => line,
            LastLine::Unterminated => {
                return Err(AuditError::Torn {
                    path: path.to_path_buf(),
                    detail: "the last line has no trailing newline".into(),
                });
            }
        };
        let head: ChainHead = serde_json::from_slice(&line).map_err(|e| AuditError::Torn {
            path: path.to_path_buf(),
            detail: format!("the last line is not an audit entry: {e}"),
        })?;
        if head.hash.len() != 64 || !head.hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(AuditError::Torn {
                path: path.to_path_buf(),
                detail: "the last line has no valid hash".into(),
            });
        }
        (head.seq, head.hash)
    };
    let Some(seq) = last_seq.checked_add(1) else {
        return Err(AuditError::Torn {
            path: path.to_path_buf(),
            detail: "the last entry's seq cannot be followed".into(),
        });
    };
    let entry = new.seal(seq, now_ms(), prev);
    let line = entry.to_line();
    if let Err(e) = file.write_all(line.as_bytes()) {
        // Leave no half line behind: we still hold the lock, nobody appended after us.
        let _ = file.set_len(len);
        return Err(io("write")(e));
    }
    Ok(AppendReceipt {
        seq: entry.seq,
        hash: entry.hash,
    })
}

/// The last line of a file of `len > 0` bytes.
enum LastLine {
    /// Its bytes without the newline.
    Complete(Vec<u8>),
    /// The file does not end in a newline.
    Unterminated,
}

fn last_line(file: &mut File, len: u64) -> std::io::Result<LastLine> {
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    if last[0] != b'\n' {
        return Ok(LastLine::Unterminated);
    }
    let lines = read_lines_backwards(file, len - 1, 1)?;
    Ok(LastLine::Complete(
        lines.into_iter().next().unwrap_or_default(),
    ))
}

/// Up to `n` complete lines ending at byte `end` (exclusive, just before a newline or at EOF
/// of a newline-terminated file), oldest first, read backwards in chunks.
pub(crate) fn read_lines_backwards(
    file: &mut File,
    end: u64,
    n: usize,
) -> std::io::Result<Vec<Vec<u8>>> {
    let mut lines: Vec<Vec<u8>> = Vec::new();
    // The end of the line being assembled: the bytes after the chunks read so far. A line is
    // found with one backward search and copied whole (a Write's entry is kilobytes long, and
    // the byte-at-a-time walk this was cost a third of a million instructions after a long
    // one). Not `memchr::memrchr`: its first call detects the CPU's features, and each
    // `cpuid` costs about 7 µs on these VMs (docs/PERFORMANCE.md, "What `cpuid` costs").
    let mut tail: Vec<u8> = Vec::new();
    let mut pos = end;
    let mut size = TAIL_FIRST_CHUNK;
    let mut buf = Vec::new();
    while pos > 0 && lines.len() < n {
        let start = pos.saturating_sub(size);
        buf.resize((pos - start) as usize, 0);
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut buf)?;
        let mut upto = buf.len();
        while lines.len() < n {
            match buf[..upto].iter().rposition(|&b| b == b'\n') {
                Some(i) => {
                    let mut line = buf[i + 1..upto].to_vec();
                    line.append(&mut tail);
                    lines.push(line);
                    upto = i;
                }
                None => {
                    let mut line = buf[..upto].to_vec();
                    line.append(&mut tail);
                    tail = line;
                    break;
                }
            }
        }
        pos = start;
        size = (size * 2).min(TAIL_CHUNK);
    }
    if pos == 0 && lines.len() < n && !tail.is_empty() {
        lines.push(tail);
    }
    lines.reverse();
    Ok(lines)
}

/// The end of a log file.
#[derive(Debug, Default)]
pub struct Tail {
    /// The last complete lines, oldest first, without their newlines.
    pub lines: Vec<Vec<u8>>,
    /// An unterminated last line, if the file ends in one.
    pub torn: Option<Vec<u8>>,
}

/// The last `n` complete lines of the file at `path` and the torn line after them, if any.
pub fn tail_lines(path: &Path, n: usize) -> std::io::Result<Tail> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    if len == 0 || n == 0 {
        return Ok(Tail::default());
    }
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    if last[0] == b'\n' {
        Ok(Tail {
            lines: read_lines_backwards(&mut file, len - 1, n)?,
            torn: None,
        })
    } else {
        let mut lines = read_lines_backwards(&mut file, len, n + 1)?;
        let torn = lines.pop();
        Ok(Tail { lines, torn })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of every length around the chunk sizes come back whole, oldest first.
    #[test]
    fn lines_are_read_backwards_across_chunks() {
        let dir = tempfile::tempdir().unwrap();
        for long in [1, 4095, 4096, 4097, 9000, 64 * 1024 + 3, 200_000] {
            let lines: Vec<Vec<u8>> = vec![
                b"first".to_vec(),
                vec![b'x'; long],
                b"".to_vec(),
                vec![b'y'; long / 2 + 1],
                b"last".to_vec(),
            ];
            let path = dir.path().join(format!("log{long}"));
            let mut text = lines.join(&b'\n');
            text.push(b'\n');
            std::fs::write(&path, &text).unwrap();
            let mut file = File::open(&path).unwrap();
            let len = text.len() as u64;
            for n in 1..=lines.len() {
                let got = read_lines_backwards(&mut file, len - 1, n).unwrap();
                assert_eq!(got, lines[lines.len() - n..], "length {long}, {n} lines");
            }
            let all = read_lines_backwards(&mut file, len - 1, 99).unwrap();
            assert_eq!(all, lines, "length {long}, all lines");
            match last_line(&mut file, len).unwrap() {
                LastLine::Complete(l) => assert_eq!(l, b"last"),
                LastLine::Unterminated => panic!("the file ends in a newline"),
            }
        }
    }
}
