//! The optional local broker, `palisade serve`: a long-lived process of the same binary that
//! holds warm keep-alive connections to the risk backend, so a hook process pays one round trip
//! to the backend instead of a TCP and a TLS handshake first.
//!
//! The hook hands it the URL, key, extra CA and body per request and gets the HTTP answer back
//! unparsed: the broker holds no policy and decides nothing. The hook trusts a broker only if
//! its socket directory and socket are the user's own and user-only, and the peer on the
//! socket runs as the same user from the very same executable. Anything else — no socket, a
//! refused or busy connection, a failed check, no acknowledgement within a slice of the budget,
//! a broken answer — is `Unavailable`, and the hook calls the backend directly with what is
//! left of its budget: the verdict is the one the direct path gives. Linux only (the peer's
//! executable is read from `/proc`); elsewhere the hook always calls directly.

use super::client::{Endpoint, RawResponse, RiskError};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The socket's directory name under the state directory.
pub(crate) const DIR_NAME: &str = "broker";
/// The socket's file name.
pub(crate) const SOCKET_NAME: &str = "broker.sock";
/// The byte the broker sends as soon as it has read a request.
pub(crate) const ACK: u8 = 0x06;
/// Largest frame either side reads.
pub(crate) const MAX_FRAME: u32 = 8 * 1024 * 1024;
/// Time the hook keeps back from its budget so the broker's own timeout answer arrives first.
const ANSWER_MARGIN: Duration = Duration::from_millis(15);

/// The directory holding the broker's socket: `<data dir>/broker`, inside the state directory
/// that self-protection already guards.
pub fn socket_dir(data_dir: &Path) -> PathBuf {
    data_dir.join(DIR_NAME)
}

/// The broker's socket.
pub fn socket_path(data_dir: &Path) -> PathBuf {
    socket_dir(data_dir).join(SOCKET_NAME)
}

/// How long the hook waits for the broker to take a request before it calls directly: a
/// slice of the budget, never the whole. Generous enough for a loaded machine (a healthy
/// broker answers in well under a millisecond), where bypassing costs a whole direct call.
pub fn ack_budget(budget: Duration) -> Duration {
    (budget / 10).clamp(Duration::from_millis(50), Duration::from_millis(250))
}

/// What the hook got from the broker.
#[derive(Debug)]
pub enum Outcome {
    /// The broker took the request: the backend's raw answer or why there is none.
    Answered {
        result: Result<RawResponse, RiskError>,
        attempts: u32,
    },
    /// Not used, and why (`bypassed: …`): the hook calls directly.
    Unavailable(String),
}

/// One request on the socket.
#[derive(Serialize, Deserialize)]
pub(crate) struct Request {
    pub(crate) url: String,
    pub(crate) key: String,
    pub(crate) ca_pem: Option<String>,
    /// The canonical request body (JSON, so UTF-8).
    pub(crate) body: String,
    pub(crate) budget_ms: u64,
}

/// The broker's answer: the backend's raw answer (body hex-encoded so no byte changes) or
/// the error, and the attempts made either way.
#[derive(Serialize, Deserialize)]
pub(crate) struct Reply {
    pub(crate) attempts: u32,
    pub(crate) status: Option<u16>,
    pub(crate) request_id: Option<String>,
    pub(crate) body_hex: Option<String>,
    pub(crate) error: Option<RiskError>,
}

/// Sends one request through the broker in `dir`, within `budget`.
pub fn request(dir: &Path, endpoint: &Endpoint, body: &[u8], budget: Duration) -> Outcome {
    let start = Instant::now();
    let bypass = |why: String| Outcome::Unavailable(format!("bypassed: {why}"));
    // The body is canonical JSON and a CA file is PEM: both text, carried as JSON strings.
    let ca_pem = match endpoint.ca_pem.map(|p| String::from_utf8(p.to_vec())) {
        Some(Err(_)) => return bypass("the CA file is not UTF-8 text".into()),
        Some(Ok(p)) => Some(p),
        None => None,
    };
    let Ok(body) = std::str::from_utf8(body) else {
        return bypass("the request is not UTF-8".into());
    };
    let mut stream = match connect_checked(dir) {
        Ok(s) => s,
        Err(why) => return bypass(why),
    };
    let slice = ack_budget(budget);
    let req = Request {
        url: endpoint.url.into(),
        key: endpoint.key.into(),
        ca_pem,
        body: body.into(),
        // The broker's own timeout answer must arrive before this side gives up.
        budget_ms: budget
            .saturating_sub(start.elapsed() + ANSWER_MARGIN)
            .as_millis() as u64,
    };
    let Ok(frame) = serde_json::to_vec(&req) else {
        return bypass("the request did not encode".into());
    };
    let acked = stream.set_write_timeout(Some(slice)).is_ok()
        && write_frame(&mut stream, &frame).is_ok()
        && match slice.checked_sub(start.elapsed()) {
            Some(left) if !left.is_zero() => {
                let mut b = [0u8; 1];
                stream.set_read_timeout(Some(left)).is_ok()
                    && stream.read_exact(&mut b).is_ok()
                    && b[0] == ACK
            }
            _ => false,
        };
    if !acked {
        return bypass(format!(
            "no acknowledgement within {} ms",
            slice.as_millis()
        ));
    }
    let left = budget.saturating_sub(start.elapsed());
    if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
        return timed_out(budget);
    }
    match read_frame(&mut stream) {
        Ok(bytes) => match serde_json::from_slice::<Reply>(&bytes).map(decode) {
            Ok(Some(outcome)) => outcome,
            _ => bypass("the answer did not decode".into()),
        },
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            timed_out(budget)
        }
        Err(_) => bypass("the connection closed before the answer".into()),
    }
}

fn timed_out(budget: Duration) -> Outcome {
    Outcome::Answered {
        result: Err(RiskError::Timeout {
            ms: budget.as_millis() as u64,
        }),
        attempts: 1,
    }
}

fn decode(r: Reply) -> Option<Outcome> {
    let result = match (r.error, r.status, r.body_hex) {
        (Some(e), None, None) => Err(e),
        (None, Some(status), Some(hex_body)) => Ok(RawResponse {
            status,
            request_id: r.request_id,
            body: hex::decode(hex_body).ok()?,
        }),
        _ => return None,
    };
    Some(Outcome::Answered {
        result,
        attempts: r.attempts,
    })
}

/// Connects to the broker in `dir` after checking the directory and socket, then checks the
/// peer. Every refusal says why.
pub fn connect_checked(dir: &Path) -> Result<UnixStream, String> {
    let uid = unsafe { libc::geteuid() };
    let path = dir.join(SOCKET_NAME);
    let d = std::fs::symlink_metadata(dir).map_err(|_| "no broker socket".to_string())?;
    user_only(&d, uid, true).map_err(|w| format!("the socket directory {w}"))?;
    let m = std::fs::symlink_metadata(&path).map_err(|_| "no broker socket".to_string())?;
    user_only(&m, uid, false).map_err(|w| format!("the socket {w}"))?;
    let stream = connect_nonblocking(&path)?;
    check_peer(&stream, uid)?;
    Ok(stream)
}

/// A directory (or socket) that is what it claims, the user's own, and closed to others.
fn user_only(m: &std::fs::Metadata, uid: u32, dir: bool) -> Result<(), String> {
    use std::os::unix::fs::FileTypeExt;
    let kind_ok = if dir {
        m.file_type().is_dir()
    } else {
        m.file_type().is_socket()
    };
    if !kind_ok {
        return Err(format!(
            "is not a {}",
            if dir { "directory" } else { "socket" }
        ));
    }
    if m.uid() != uid {
        return Err(format!("belongs to uid {}, not {uid}", m.uid()));
    }
    if m.permissions().mode() & 0o077 != 0 {
        return Err(format!(
            "has mode {:o}: others may use it",
            m.permissions().mode() & 0o777
        ));
    }
    Ok(())
}

/// Connects without blocking: a broker that stopped accepting (a full backlog) is reported at
/// once instead of holding the hook.
fn connect_nonblocking(path: &Path) -> Result<UnixStream, String> {
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    if bytes.len() >= addr.sun_path.len() {
        return Err("the socket path is too long".into());
    }
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    for (d, s) in addr.sun_path.iter_mut().zip(bytes) {
        *d = *s as libc::c_char;
    }
    // SAFETY: a fresh descriptor, owned by the UnixStream right away; `addr` outlives the call.
    let stream = unsafe {
        let fd = libc::socket(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
            0,
        );
        if fd < 0 {
            return Err("no socket could be created".into());
        }
        let stream = UnixStream::from_raw_fd(fd);
        let len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
        if libc::connect(fd, &addr as *const _ as *const libc::sockaddr, len) != 0 {
            let e = std::io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::ECONNREFUSED) => "the broker is not running (stale socket)".into(),
                Some(libc::EAGAIN) => "the broker is not accepting connections".into(),
                _ => format!("the socket refused the connection ({e})"),
            });
        }
        stream
    };
    stream
        .set_nonblocking(false)
        .map_err(|e| format!("the connection could not be set up ({e})"))?;
    Ok(stream)
}

/// The process on the other end: same user, and running the very executable this process
/// runs (an agent-started program answering on the socket is not a palisade broker).
#[cfg(target_os = "linux")]
fn check_peer(stream: &UnixStream, uid: u32) -> Result<(), String> {
    use std::os::fd::AsRawFd;
    let mut cred: libc::ucred = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are valid for writes of the sizes given.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            &mut cred as *mut _ as *mut libc::c_void,
            &mut len,
        )
    };
    if rc != 0 {
        return Err("the peer's credentials are unreadable".into());
    }
    if cred.uid != uid {
        return Err(format!("the broker runs as uid {}, not {uid}", cred.uid));
    }
    let peer = std::fs::metadata(format!("/proc/{}/exe", cred.pid))
        .map_err(|_| "the broker's executable is unreadable".to_string())?;
    let own = std::fs::metadata("/proc/self/exe")
        .map_err(|_| "this process's executable is unreadable".to_string())?;
    if (peer.dev(), peer.ino()) != (own.dev(), own.ino()) {
        return Err(format!(
            "the process on the socket (pid {}) does not run this palisade binary",
            cred.pid
        ));
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn check_peer(_: &UnixStream, _: u32) -> Result<(), String> {
    Err("the broker is used on Linux only".into())
}

fn write_frame(w: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(bytes.len())
        .ok()
        .filter(|l| *l <= MAX_FRAME)
        .ok_or_else(|| std::io::Error::other("frame too large"))?;
    w.write_all(&len.to_be_bytes())?;
    w.write_all(bytes)?;
    w.flush()
}

fn read_frame(r: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_be_bytes(len);
    if len > MAX_FRAME {
        return Err(std::io::Error::other("frame too large"));
    }
    let mut buf = vec![0u8; len as usize];
    r.read_exact(&mut buf)?;
    Ok(buf)
}

/// `palisade doctor`'s line: whether a broker answers on the socket and passes the hook's
/// checks. `Ok(Some(pid))` running, `Ok(None)` not running, `Err` present but not trusted.
pub fn status(data_dir: &Path) -> Result<Option<String>, String> {
    let dir = socket_dir(data_dir);
    if std::fs::symlink_metadata(dir.join(SOCKET_NAME)).is_err() {
        return Ok(None);
    }
    match connect_checked(&dir) {
        Ok(_) => Ok(Some(dir.join(SOCKET_NAME).display().to_string())),
        Err(why) if why.contains("not running") => Ok(None),
        Err(why) => Err(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_acknowledgement_wait_is_a_slice_of_the_budget() {
        let ms = |n| ack_budget(Duration::from_millis(n)).as_millis();
        assert_eq!(ms(2500), 250);
        assert_eq!(ms(1000), 100);
        assert_eq!(ms(100), 50);
        assert_eq!(ms(8000), 250);
    }

    #[test]
    fn frames_round_trip_and_oversized_ones_are_refused() {
        let mut buf = Vec::new();
        write_frame(&mut buf, b"{\"a\":1}").unwrap();
        assert_eq!(read_frame(&mut buf.as_slice()).unwrap(), b"{\"a\":1}");
        let mut huge = (MAX_FRAME + 1).to_be_bytes().to_vec();
        huge.extend_from_slice(b"x");
        assert!(read_frame(&mut huge.as_slice()).is_err());
    }

    #[test]
    fn a_reply_is_an_answer_or_an_error_never_both() {
        let answer = Reply {
            attempts: 2,
            status: Some(200),
            request_id: None,
            body_hex: Some(hex::encode(b"{}")),
            error: None,
        };
        assert!(matches!(
            decode(answer),
            Some(Outcome::Answered { result: Ok(ref r), attempts: 2 }) if r.body == b"{}"
        ));
        let both = Reply {
            attempts: 1,
            status: Some(200),
            request_id: None,
            body_hex: Some(String::new()),
            error: Some(RiskError::Connect("x".into())),
        };
        assert!(decode(both).is_none());
        let bad_hex = Reply {
            attempts: 1,
            status: Some(200),
            request_id: None,
            body_hex: Some("zz".into()),
            error: None,
        };
        assert!(decode(bad_hex).is_none());
    }
}
