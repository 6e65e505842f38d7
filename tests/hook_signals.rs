//! A hook that is deciding — here, waiting on a risk backend on loopback that never answers —
//! and receives SIGTERM, SIGINT or SIGHUP answers deny with exit 2 (not death by signal,
//! which Claude Code would treat as a non-blocking error), and records the refusal; so does
//! the deadline watchdog.

mod common;

use common::Sandbox;
use serde_json::json;
use std::io::Write;
use std::net::TcpListener;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A backend that accepts connections and never answers; each accepted connection is
/// reported on the channel (the hook is then deciding), and held open for the test's life.
fn stalled_backend() -> (String, std::sync::mpsc::Receiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1/assess", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in listener.incoming().flatten() {
            held.push(s);
            let _ = tx.send(());
        }
    });
    (url, rx)
}

fn risk_sandbox(url: &str) -> Sandbox {
    let sb = Sandbox::new();
    sb.user_policy(&format!(
        "version: 1\nrisk:\n  enabled: true\n  url: {url}\n  api_key_env: PALISADE_TEST_KEY\n  timeout_ms: 8000\n"
    ));
    sb
}

/// Spawns the hook on an undecided call and waits until it is deciding (its request reached
/// the backend).
fn deciding_hook(
    sb: &Sandbox,
    deciding: &std::sync::mpsc::Receiver<()>,
    deadline_ms: &str,
) -> std::process::Child {
    let mut cmd = sb.command();
    cmd.arg("hook")
        .env("PALISADE_TEST_KEY", "k")
        .env("PALISADE_DEADLINE_MS", deadline_ms)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Connections of an earlier hook do not count.
    while deciding.try_recv().is_ok() {}
    let mut child = cmd.spawn().unwrap();
    let event = sb.event("Bash", json!({"command": "npm run build"}));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(event.to_string().as_bytes())
        .unwrap();
    deciding
        .recv_timeout(Duration::from_secs(8))
        .expect("the hook asks the backend");
    child
}

/// Spawns the hook on an undecided call, waits until it is deciding, sends `signal`.
fn signalled(
    sb: &Sandbox,
    deciding: &std::sync::mpsc::Receiver<()>,
    signal: &str,
    deadline_ms: &str,
) -> (common::Answer, Duration) {
    let child = deciding_hook(sb, deciding, deadline_ms);
    let start = Instant::now();
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    (
        common::Answer {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap_or(-1),
        },
        start.elapsed(),
    )
}

#[test]
fn sigterm_while_deciding_answers_deny_with_exit_2() {
    let (url, deciding) = stalled_backend();
    for signal in ["TERM", "INT", "HUP"] {
        let sb = risk_sandbox(&url);
        let (a, took) = signalled(&sb, &deciding, signal, "9000");
        assert_eq!(a.code, 2, "SIG{signal}: {a:?}");
        assert_eq!(a.decision(), "deny", "SIG{signal}: {a:?}");
        assert!(a.reason().contains("signal"), "{}", a.reason());
        assert!(took < Duration::from_secs(3), "SIG{signal} took {took:?}");
        let log = std::fs::read_to_string(sb.data_dir().join("audit.jsonl")).unwrap();
        assert!(
            log.contains("error/signal"),
            "the refusal is recorded: {log}"
        );
    }
}

/// The deadline watchdog: another process holds the session's ledger for writing, so the
/// hook waits on it past a short deadline; the refusal is recorded and names the call.
#[test]
fn a_deadline_refusal_is_recorded() {
    let sb = Sandbox::new();
    let write = |path: &str| {
        sb.event(
            "Write",
            json!({"file_path": sb.project().join(path), "content": "echo hi\n"}),
        )
        .to_string()
    };
    // A first write creates the session's ledger store.
    assert_eq!(
        sb.hook_with(write("first.sh").as_bytes(), |_| {})
            .decision(),
        "pass"
    );
    let store = palisade::ledger::LedgerStore::new(&sb.data_dir()).file_for("s1");
    assert!(store.is_file(), "{}", store.display());
    let held = rusqlite::Connection::open(&store).unwrap();
    held.execute_batch("BEGIN EXCLUSIVE").unwrap();

    let a = sb.hook_with(write("second.sh").as_bytes(), |c| {
        c.env("PALISADE_DEADLINE_MS", "600");
    });
    drop(held);
    assert_eq!(a.decision(), "deny", "{a:?}");
    assert!(a.reason().contains("deadline"), "{}", a.reason());
    let log = std::fs::read_to_string(sb.data_dir().join("audit.jsonl")).unwrap();
    assert!(log.contains("error/deadline"), "{log}");
    assert!(
        log.contains("second.sh"),
        "the refused call is named: {log}"
    );
}

/// The process that records a stop cannot itself be stopped: a second SIGTERM, sent while it
/// waits on an audit log another process holds, still ends in deny with exit 2 (the same
/// process id: the handler replaces the image, it does not fork).
#[test]
fn a_second_sigterm_while_the_refusal_is_recorded_is_held() {
    let (url, deciding) = stalled_backend();
    let sb = risk_sandbox(&url);
    std::fs::create_dir_all(sb.data_dir()).unwrap();
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(sb.data_dir().join("audit.jsonl"))
        .unwrap();
    let child = deciding_hook(&sb, &deciding, "9000");
    // The refusal's record will wait for this lock (at most its bounded wait).
    log.lock().unwrap();
    let kill = |sig: &str| {
        let status = std::process::Command::new("kill")
            .args([sig, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    };
    kill("-TERM");
    std::thread::sleep(Duration::from_millis(150));
    kill("-TERM");
    kill("-ALRM");
    let out = child.wait_with_output().unwrap();
    log.unlock().unwrap();
    let a = common::Answer {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    };
    assert_eq!(a.code, 2, "{a:?}");
    assert_eq!(a.decision(), "deny", "{a:?}");
    assert!(a.reason().contains("signal 15"), "{}", a.reason());
}

/// A deadline of zero is the shortest one, not none: the call is refused at once.
#[test]
fn a_zero_deadline_refuses() {
    let sb = Sandbox::new();
    let event = sb.event("Bash", json!({"command": "ls"})).to_string();
    let a = sb.hook_with(event.as_bytes(), |c| {
        c.env("PALISADE_DEADLINE_MS", "0");
    });
    assert_eq!(a.decision(), "deny", "{a:?}");
    assert!(a.reason().contains("deadline"), "{}", a.reason());
}
