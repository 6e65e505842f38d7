//! `palisade serve`: the broker's side of `super::broker`. It listens on a user-only socket,
//! takes one request per connection from a process of the same user, acknowledges it at once,
//! and runs it on a kept HTTP client (one per extra CA), whose pool keeps the backend
//! connections warm between hook processes. It relays the raw answer; the hook parses and
//! judges it. It holds no policy, cache or state of its own.

use super::broker::{ACK, MAX_FRAME, Reply, Request, SOCKET_NAME, socket_dir};
use super::client::{RiskError, bearer, exchange_raw, new_client};
use super::settings::MAX_TIMEOUT_MS;
use std::collections::HashMap;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How long a connected client has to send its request.
const REQUEST_READ: Duration = Duration::from_secs(2);
/// Most distinct CA sets kept (each with its own connection pool).
const MAX_CLIENTS: usize = 8;

type Clients = Arc<Mutex<HashMap<Option<String>, reqwest::Client>>>;

/// Runs the broker for the state directory `data_dir` until SIGINT, SIGTERM or SIGHUP, then
/// removes its socket. Fails when another broker already listens there.
pub fn run(data_dir: &Path) -> Result<(), String> {
    let dir = socket_dir(data_dir);
    prepare_dir(data_dir, &dir)?;
    let path = dir.join(SOCKET_NAME);
    let listener = bind(&path)?;
    let ino = std::fs::symlink_metadata(&path).map(|m| m.ino()).ok();
    eprintln!(
        "palisade serve: listening on {} (pid {}); stop with Ctrl-C or SIGTERM",
        path.display(),
        std::process::id()
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("the runtime could not start: {e}"))?;
    let result = runtime.block_on(accept_loop(listener));
    // Remove the socket only if it is still ours (not one a later broker bound).
    if std::fs::symlink_metadata(&path).map(|m| m.ino()).ok() == ino {
        let _ = std::fs::remove_file(&path);
    }
    result
}

/// Creates the socket directory user-only (0700), or checks and tightens an existing one.
fn prepare_dir(data_dir: &Path, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(data_dir)
        .map_err(|e| format!("cannot create {}: {e}", data_dir.display()))?;
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
    }
    let m = std::fs::symlink_metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if !m.file_type().is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    // SAFETY: geteuid has no preconditions.
    if m.uid() != unsafe { libc::geteuid() } {
        return Err(format!("{} belongs to another user", dir.display()));
    }
    if m.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("cannot make {} user-only: {e}", dir.display()))?;
    }
    Ok(())
}

/// Binds the socket 0600 (created under a umask, so never wider), replacing a stale one.
fn bind(path: &Path) -> Result<std::os::unix::net::UnixListener, String> {
    if let Ok(m) = std::fs::symlink_metadata(path) {
        use std::os::unix::fs::FileTypeExt;
        if !m.file_type().is_socket() {
            return Err(format!("{} exists and is not a socket", path.display()));
        }
        if std::os::unix::net::UnixStream::connect(path).is_ok() {
            return Err(format!("a broker already listens on {}", path.display()));
        }
        std::fs::remove_file(path).map_err(|e| format!("cannot remove a stale socket: {e}"))?;
    }
    // SAFETY: umask has no preconditions; no other thread runs yet.
    let old = unsafe { libc::umask(0o177) };
    let bound = std::os::unix::net::UnixListener::bind(path);
    unsafe { libc::umask(old) };
    let listener = bound.map_err(|e| format!("cannot listen on {}: {e}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| format!("cannot make the socket user-only: {e}"))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot set up the socket: {e}"))?;
    Ok(listener)
}

async fn accept_loop(listener: std::os::unix::net::UnixListener) -> Result<(), String> {
    use tokio::signal::unix::{SignalKind, signal};
    let listener = tokio::net::UnixListener::from_std(listener)
        .map_err(|e| format!("cannot set up the socket: {e}"))?;
    let sig = |k| signal(k).map_err(|e| format!("cannot watch signals: {e}"));
    let (mut term, mut int, mut hup) = (
        sig(SignalKind::terminate())?,
        sig(SignalKind::interrupt())?,
        sig(SignalKind::hangup())?,
    );
    let clients: Clients = Arc::default();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(handle(stream, clients.clone()));
                }
                // Out of descriptors and the like: wait instead of spinning.
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            },
            _ = term.recv() => return Ok(()),
            _ = int.recv() => return Ok(()),
            _ = hup.recv() => return Ok(()),
        }
    }
}

/// One connection: a same-user peer, one request, the acknowledgement, the answer.
async fn handle(mut stream: tokio::net::UnixStream, clients: Clients) {
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    if !matches!(stream.peer_cred(), Ok(c) if c.uid() == uid) {
        return;
    }
    let Ok(Ok(frame)) = tokio::time::timeout(REQUEST_READ, read_frame(&mut stream)).await else {
        return;
    };
    let Ok(req) = serde_json::from_slice::<Request>(&frame) else {
        return;
    };
    if stream.write_all(&[ACK]).await.is_err() {
        return;
    }
    let start = Instant::now();
    let budget = Duration::from_millis(req.budget_ms.min(MAX_TIMEOUT_MS));
    let counter = std::sync::atomic::AtomicU32::new(0);
    let result = async {
        let client = client_for(&clients, req.ca_pem)?;
        let auth = bearer(&req.key)?;
        let send = exchange_raw(
            &client,
            &req.url,
            &auth,
            req.body.as_bytes(),
            start,
            budget,
            &counter,
        );
        match tokio::time::timeout(budget, send).await {
            Ok(r) => r,
            Err(_) => Err(RiskError::Timeout {
                ms: budget.as_millis() as u64,
            }),
        }
    }
    .await;
    let attempts = counter.load(std::sync::atomic::Ordering::Relaxed);
    let reply = match result {
        Ok(raw) => Reply {
            attempts,
            status: Some(raw.status),
            request_id: raw.request_id,
            body_hex: Some(hex::encode(raw.body)),
            error: None,
        },
        Err(e) => Reply {
            attempts,
            status: None,
            request_id: None,
            body_hex: None,
            error: Some(e),
        },
    };
    if let Ok(bytes) = serde_json::to_vec(&reply) {
        let _ = write_frame(&mut stream, &bytes).await;
    }
}

/// The kept client for a CA set: its pool is what stays warm.
fn client_for(clients: &Clients, ca_pem: Option<String>) -> Result<reqwest::Client, RiskError> {
    let mut map = clients.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = map.get(&ca_pem) {
        return Ok(c.clone());
    }
    let client = new_client(
        ca_pem.as_deref().map(str::as_bytes),
        Duration::from_millis(MAX_TIMEOUT_MS),
    )?;
    if map.len() >= MAX_CLIENTS {
        map.clear();
    }
    map.insert(ca_pem, client.clone());
    Ok(client)
}

async fn read_frame(s: &mut tokio::net::UnixStream) -> std::io::Result<Vec<u8>> {
    let len = s.read_u32().await?;
    if len > MAX_FRAME {
        return Err(std::io::Error::other("frame too large"));
    }
    let mut buf = vec![0u8; len as usize];
    s.read_exact(&mut buf).await?;
    Ok(buf)
}

async fn write_frame(s: &mut tokio::net::UnixStream, bytes: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(bytes.len())
        .ok()
        .filter(|l| *l <= MAX_FRAME)
        .ok_or_else(|| std::io::Error::other("frame too large"))?;
    s.write_all(&len.to_be_bytes()).await?;
    s.write_all(bytes).await?;
    s.flush().await
}
