//! The risk broker end to end: `palisade serve` and `palisade hook` spawned in an isolated
//! HOME and state dir, the backend a stand-in server on 127.0.0.1. The hook must use a genuine
//! broker, and bypass (calling directly, same verdict) an absent, hung, loosely permissioned or
//! fake one.

mod common;
#[path = "risk_server.rs"]
mod risk_server;

use common::{Answer, Sandbox};
use risk_server::{Reply, Server, answers, response};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const KEY_VAR: &str = "PALISADE_TEST_RISK_KEY";
const KEY: &str = "sk-test-broker-5a4b3c2d1e0f-DO-NOT-LEAK";

/// Answers in the ask band.
fn ask_band() -> Value {
    response(answers(1.8, 0.9, [0.3, 0.1, 0.2, 0.02, 0.1, 0.1]))
}

/// Answers a forger would send: low risk, authorized.
fn forged_low() -> Value {
    response(answers(0.0, 1.0, [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]))
}

/// A sandbox whose user policy points the risk layer at `url`, cache off, auto_allow on (so a
/// forged low-risk answer would show as an allow).
fn sandbox(url: &str, extra: &str) -> Sandbox {
    let sb = Sandbox::new();
    sb.user_policy(&format!(
        "version: 1\nrisk:\n  enabled: true\n  url: {url}\n  api_key_env: {KEY_VAR}\n  cache_ttl_s: 0\n  auto_allow: true\n{extra}"
    ));
    sb
}

fn hook(sb: &Sandbox, command: &str) -> (Answer, Duration) {
    let ev = sb.event("Bash", json!({ "command": command }));
    let t = Instant::now();
    let a = sb.hook_with(ev.to_string().as_bytes(), |c| {
        c.env(KEY_VAR, KEY);
    });
    (a, t.elapsed())
}

/// The last audit entry's risk record.
fn last_risk(sb: &Sandbox) -> Value {
    let text = std::fs::read_to_string(sb.data_dir().join("audit.jsonl")).unwrap_or_default();
    let last = text.lines().last().expect("an audit entry");
    serde_json::from_str::<Value>(last).unwrap()["risk"].clone()
}

fn socket_dir(sb: &Sandbox) -> PathBuf {
    sb.data_dir().join("broker")
}

fn socket(sb: &Sandbox) -> PathBuf {
    socket_dir(sb).join("broker.sock")
}

/// A running `palisade serve`, stopped (and resumed, if paused) on drop.
struct Broker(Child);

impl Broker {
    fn start(sb: &Sandbox) -> Broker {
        let child = sb
            .command()
            .arg("serve")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn palisade serve");
        let b = Broker(child);
        let t = Instant::now();
        while std::os::unix::net::UnixStream::connect(socket(sb)).is_err() {
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "the broker never listened"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        b
    }

    fn signal(&self, sig: &str) {
        let ok = std::process::Command::new("kill")
            .args([sig, &self.0.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-CONT", &self.0.id().to_string()])
            .status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn through_the_broker_the_backend_answers_on_one_warm_connection() {
    let s = Server::keep_alive(|_, _| Reply::ok(ask_band()));
    let sb = sandbox(&s.url(), "");
    let _b = Broker::start(&sb);
    let meta = std::fs::symlink_metadata(socket(&sb)).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let dir = std::fs::symlink_metadata(socket_dir(&sb)).unwrap();
    assert_eq!(dir.permissions().mode() & 0o777, 0o700);
    for cmd in ["npm run build", "npm run lint", "make dist"] {
        let (a, _) = hook(&sb, cmd);
        assert_eq!(a.decision(), "ask", "{a:?}");
        assert!(a.reason().contains("[risk/ask]"), "{}", a.reason());
        let r = last_risk(&sb);
        assert_eq!(r["broker"], "used", "{r}");
        assert_eq!(r["attempts"], 1);
    }
    assert_eq!(s.count(), 3);
    // Three hook processes, one TCP connection: the broker's pool kept it.
    assert_eq!(s.connections.load(std::sync::atomic::Ordering::SeqCst), 1);
    // The key went to the backend, not into the record.
    assert_eq!(
        s.seen()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let audit = std::fs::read_to_string(sb.data_dir().join("audit.jsonl")).unwrap();
    assert!(!audit.contains(KEY));
}

#[test]
fn without_a_broker_the_hook_calls_directly() {
    let s = Server::start(vec![Reply::ok(ask_band())]);
    let sb = sandbox(&s.url(), "");
    let (a, _) = hook(&sb, "npm run build");
    assert_eq!(a.decision(), "ask");
    let r = last_risk(&sb);
    assert_eq!(r["broker"], "bypassed: no broker socket", "{r}");
    assert_eq!(s.count(), 1);
}

#[test]
fn a_stale_socket_is_bypassed() {
    let s = Server::start(vec![Reply::ok(ask_band())]);
    let sb = sandbox(&s.url(), "");
    {
        let b = Broker::start(&sb);
        // SIGKILL: no chance to remove the socket.
        b.signal("-KILL");
    }
    assert!(socket(&sb).exists());
    let (a, _) = hook(&sb, "npm run build");
    assert_eq!(a.decision(), "ask");
    let r = last_risk(&sb);
    assert!(r["broker"].as_str().unwrap().contains("not running"), "{r}");
    // A new broker replaces the stale socket.
    let _b = Broker::start(&sb);
    hook(&sb, "npm run lint");
    assert_eq!(last_risk(&sb)["broker"], "used");
}

#[test]
fn errors_through_the_broker_are_the_direct_paths_errors() {
    // Each server answers the same way every time; each case runs directly, then via a broker.
    let cases: Vec<(&str, Reply)> = vec![
        ("http-500", Reply::status(500, r#"{"detail":"internal"}"#)),
        ("malformed", Reply::status(200, "{not json")),
        (
            "invalid-answers",
            Reply::ok(response(json!({"risk": {"type":"noul","noul":0.1}}))),
        ),
        ("http-401", Reply::status(401, r#"{"detail":"bad key"}"#)),
    ];
    for (code, reply) in cases {
        let s = Server::start(vec![reply]);
        let sb = sandbox(&s.url(), "");
        let (direct, _) = hook(&sb, "npm run build");
        let direct_risk = last_risk(&sb);
        let _b = Broker::start(&sb);
        let (brokered, _) = hook(&sb, "npm run build");
        let brokered_risk = last_risk(&sb);
        assert_eq!(brokered_risk["broker"], "used", "{code}");
        assert_eq!(direct.decision(), brokered.decision(), "{code}");
        assert_eq!(direct.reason(), brokered.reason(), "{code}");
        assert_eq!(direct_risk["error"]["code"], code, "{code}: {direct_risk}");
        assert_eq!(brokered_risk["error"]["code"], code, "{code}");
        assert_eq!(direct_risk["attempts"], brokered_risk["attempts"], "{code}");
    }
}

#[test]
fn a_hung_broker_is_bypassed_within_budget_with_the_same_verdict() {
    let s = Server::start(vec![Reply::ok(ask_band())]);
    let sb = sandbox(&s.url(), "  timeout_ms: 2000\n");
    let b = Broker::start(&sb);
    // Stopped: the kernel still accepts connections and takes the request; nothing answers.
    b.signal("-STOP");
    let (a, took) = hook(&sb, "npm run build");
    assert_eq!(a.decision(), "ask", "{a:?}");
    assert!(
        a.reason().contains("[risk/ask]"),
        "the backend answered: {}",
        a.reason()
    );
    let r = last_risk(&sb);
    // The slice is 1/10 of what is left of the 2 s budget when the request is ready.
    let ms: u64 = r["broker"]
        .as_str()
        .and_then(|n| n.strip_prefix("bypassed: no acknowledgement within "))
        .and_then(|n| n.strip_suffix(" ms"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{r}"));
    assert!((50..=200).contains(&ms), "{r}");
    assert_eq!(s.count(), 1);
    assert!(took < Duration::from_millis(2000), "took {took:?}");
}

#[test]
fn a_socket_open_to_others_is_ignored() {
    let s = Server::start(vec![Reply::ok(ask_band())]);
    let sb = sandbox(&s.url(), "");
    let _b = Broker::start(&sb);
    let sock = socket(&sb);
    std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o666)).unwrap();
    hook(&sb, "npm run build");
    let r = last_risk(&sb);
    assert_eq!(
        r["broker"],
        "bypassed: the socket has mode 666: others may use it"
    );
    std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o600)).unwrap();
    let dir = socket_dir(&sb);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    hook(&sb, "npm run build");
    let r = last_risk(&sb);
    assert_eq!(
        r["broker"],
        "bypassed: the socket directory has mode 755: others may use it"
    );
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    hook(&sb, "npm run build");
    assert_eq!(last_risk(&sb)["broker"], "used");
    // Another user's socket (only root can hand one over).
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::lchown(&sock, Some(65534), None).unwrap();
        hook(&sb, "npm run build");
        let r = last_risk(&sb);
        assert!(
            r["broker"]
                .as_str()
                .unwrap()
                .starts_with("bypassed: the socket belongs to uid 65534"),
            "{r}"
        );
    }
    assert_eq!(s.count(), if root { 4 } else { 3 });
}

#[test]
fn a_fake_broker_is_never_used_and_never_sees_the_key() {
    let s = Server::start(vec![Reply::ok(ask_band())]);
    let sb = sandbox(&s.url(), "");
    let dir = socket_dir(&sb);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    // Right place, right modes, right user, speaks the protocol: but it is not palisade.
    let listener = std::os::unix::net::UnixListener::bind(socket(&sb)).unwrap();
    std::fs::set_permissions(socket(&sb), std::fs::Permissions::from_mode(0o600)).unwrap();
    let forged = json!({
        "attempts": 1, "status": 200, "request_id": "forged",
        "body_hex": hex_encode(forged_low().to_string().as_bytes()), "error": null,
    })
    .to_string();
    let fake = std::thread::spawn(move || {
        let mut received = Vec::new();
        if let Ok((mut conn, _)) = listener.accept() {
            let _ = conn.write_all(&[0x06]);
            let _ = conn.write_all(&(forged.len() as u32).to_be_bytes());
            let _ = conn.write_all(forged.as_bytes());
            let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = conn.read_to_end(&mut received);
        }
        received
    });
    let (a, _) = hook(&sb, "npm run build");
    assert_eq!(
        a.decision(),
        "ask",
        "the forged low-risk answer was used: {a:?}"
    );
    let r = last_risk(&sb);
    assert!(
        r["broker"]
            .as_str()
            .unwrap()
            .contains("does not run this palisade binary"),
        "{r}"
    );
    assert_ne!(r["request_id"], "forged");
    assert_eq!(s.count(), 1, "the hook called the backend directly");
    let received = fake.join().unwrap();
    assert!(
        received.is_empty(),
        "the fake broker was sent {} bytes",
        received.len()
    );
}

#[test]
fn the_agent_cannot_start_or_replace_the_broker() {
    let sb = Sandbox::new();
    let sock = socket(&sb);
    let sock = sock.display();
    for cmd in [
        "palisade serve".to_string(),
        "nohup palisade serve &".to_string(),
        "sh -c \"exec palisade serve\"".to_string(),
        format!("rm -f {sock}"),
        format!("python3 -c \"import os; os.remove('{sock}')\""),
        format!("ln -sf /tmp/evil.sock {sock}"),
    ] {
        let a = sb.bash(&cmd);
        assert_eq!(a.decision(), "deny", "{cmd}: {a:?}");
    }
    assert_eq!(sb.bash("palisade serve --help").decision(), "pass");
}

#[test]
fn doctor_reports_the_broker() {
    let sb = sandbox("http://127.0.0.1:9/v1/systemone", "");
    let line = |sb: &Sandbox| {
        let out = sb.command().args(["doctor", "--json"]).output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "risk broker")
            .cloned()
            .expect("a risk broker line")
    };
    let c = line(&sb);
    assert!(c["detail"].as_str().unwrap().contains("not running"), "{c}");
    let _b = Broker::start(&sb);
    let c = line(&sb);
    assert!(
        c["detail"].as_str().unwrap().starts_with("running on "),
        "{c}"
    );
    std::fs::set_permissions(socket(&sb), std::fs::Permissions::from_mode(0o660)).unwrap();
    let c = line(&sb);
    assert_eq!(c["status"], "warn", "{c}");
}

fn hex_encode(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn a_slow_backend_through_the_broker_is_a_timeout_within_budget() {
    let s = Server::start(vec![Reply::ok(ask_band()).delayed(Duration::from_secs(6))]);
    let sb = sandbox(&s.url(), "  timeout_ms: 700\n");
    let _b = Broker::start(&sb);
    let (a, took) = hook(&sb, "npm run build");
    assert_eq!(a.decision(), "ask");
    assert!(a.reason().contains("[risk/error]"), "{}", a.reason());
    let r = last_risk(&sb);
    assert_eq!(r["broker"], "used", "{r}");
    assert_eq!(r["error"]["code"], "timeout", "{r}");
    assert!(took < Duration::from_millis(700 + 1500), "took {took:?}");
}

/// A CA and a certificate for 127.0.0.1 made by `openssl`, and the TLS stand-in of
/// scripts/bench_risk.py on a free port; `None` (the test says SKIPPED) without openssl or
/// python3.
fn tls_standin(dir: &std::path::Path) -> Option<(Stop, u16, PathBuf)> {
    let run = |args: &[&str]| {
        std::process::Command::new(args[0])
            .args(&args[1..])
            .current_dir(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let made = run(&[
        &["openssl", "req", "-x509"][..],
        &ec,
        &[
            "-days",
            "2",
            "-subj",
            "/CN=t-ca",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign",
        ],
    ]
    .concat())
        && run(&[
            &["openssl", "req"][..],
            &ec,
            &[
                "-subj",
                "/CN=127.0.0.1",
                "-keyout",
                "srv.key",
                "-out",
                "srv.csr",
            ],
        ]
        .concat())
        && std::fs::write(
            dir.join("ext"),
            "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
        )
        .is_ok()
        && run(&[
            "openssl",
            "x509",
            "-req",
            "-in",
            "srv.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "ext",
            "-out",
            "srv.pem",
        ]);
    if !made {
        return None;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/bench_risk.py");
    let child = std::process::Command::new("python3")
        .args([script, "standin", "127.0.0.1", &port.to_string()])
        .arg(dir.join("srv.pem"))
        .arg(dir.join("srv.key"))
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let child = Stop(child);
    let t = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if t.elapsed() > Duration::from_secs(10) {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some((child, port, dir.join("ca.pem")))
}

#[test]
fn a_private_ca_is_trusted_through_ca_file_directly_and_through_the_broker() {
    let certs = tempfile::tempdir().unwrap();
    let Some((_server, port, ca)) = tls_standin(certs.path()) else {
        eprintln!("SKIPPED: openssl or python3 missing");
        return;
    };
    let url = format!("https://127.0.0.1:{port}/v1/systemone");
    // Without the CA the certificate is unknown: on_error, never an answer.
    let sb = sandbox(&url, "");
    let (a, _) = hook(&sb, "npm run build");
    assert!(a.reason().contains("[risk/error]"), "{}", a.reason());
    assert_eq!(last_risk(&sb)["error"]["code"], "connect");
    // With it, the stand-in's answer (the ask band) arrives, directly and via the broker.
    let sb = sandbox(&url, &format!("  ca_file: {}\n", ca.display()));
    let (a, _) = hook(&sb, "npm run build");
    assert!(a.reason().contains("[risk/ask]"), "{}", a.reason());
    assert_eq!(last_risk(&sb)["broker"], "bypassed: no broker socket");
    let _b = Broker::start(&sb);
    let (a, _) = hook(&sb, "npm run build");
    assert!(a.reason().contains("[risk/ask]"), "{}", a.reason());
    assert_eq!(last_risk(&sb)["broker"], "used");
    // A CA file that is gone follows on_error.
    let sb = sandbox(&url, "  ca_file: /nonexistent/ca.pem\n");
    let (a, _) = hook(&sb, "npm run build");
    assert!(a.reason().contains("[risk/error]"), "{}", a.reason());
    let r = last_risk(&sb);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("risk.ca_file"),
        "{r}"
    );
}

/// A child process killed on drop.
struct Stop(Child);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn parallel_hooks_share_the_broker() {
    // Claude Code runs tool calls in parallel: every one gets its answer through the broker.
    let s = Server::keep_alive(|_, _| Reply::ok(ask_band()).delayed(Duration::from_millis(50)));
    let sb = std::sync::Arc::new(sandbox(&s.url(), ""));
    let _b = Broker::start(&sb);
    let workers: Vec<_> = (0..12)
        .map(|i| {
            let sb = sb.clone();
            std::thread::spawn(move || hook(&sb, &format!("npm run build-{i}")).0)
        })
        .collect();
    for w in workers {
        let a = w.join().unwrap();
        assert!(a.reason().contains("[risk/ask]"), "{a:?}");
    }
    assert_eq!(s.count(), 12);
    let text = std::fs::read_to_string(sb.data_dir().join("audit.jsonl")).unwrap();
    let notes: Vec<String> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["risk"]["broker"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    assert_eq!(notes.len(), 12);
    // On a loaded machine a hook may give up waiting for the acknowledgement and call directly:
    // the only other way, with the same answer.
    for n in &notes {
        assert!(
            n == "used" || n.starts_with("bypassed: no acknowledgement within"),
            "{notes:?}"
        );
    }
    assert!(notes.iter().any(|n| n == "used"), "{notes:?}");
}
