//! A stand-in decision-model server on 127.0.0.1 for the risk tests: a real TCP listener
//! speaking raw HTTP/1.1, one thread per connection, scripted replies, every request recorded.
//! Included by the other `risk_*` test files with `#[path]`; on its own it holds no tests.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Recorded {
    /// A header value by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// One scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub delay: Duration,
}

impl Reply {
    /// 200 with a JSON body.
    pub fn ok(body: Value) -> Reply {
        Reply::status(200, body.to_string())
    }

    /// Any status with a raw body.
    pub fn status(status: u16, body: impl Into<String>) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.into(),
            delay: Duration::ZERO,
        }
    }

    /// Adds a header.
    pub fn with_header(mut self, k: &str, v: &str) -> Reply {
        self.headers.push((k.into(), v.into()));
        self
    }

    /// Waits before answering.
    pub fn delayed(mut self, d: Duration) -> Reply {
        self.delay = d;
        self
    }
}

type Script = dyn Fn(&Recorded, usize) -> Reply + Send + Sync;

/// The running server.
pub struct Server {
    pub port: u16,
    pub requests: Arc<Mutex<Vec<Recorded>>>,
    /// TCP connections accepted so far.
    pub connections: Arc<std::sync::atomic::AtomicUsize>,
}

impl Server {
    /// Serves `replies` in order; the last one repeats.
    pub fn start(replies: Vec<Reply>) -> Server {
        assert!(!replies.is_empty());
        Server::with(move |_, n| replies[n.min(replies.len() - 1)].clone())
    }

    /// Serves whatever `script(request, index)` returns.
    pub fn with(script: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static) -> Server {
        Server::serving(script, false)
    }

    /// `with`, keeping each connection open for further requests (HTTP/1.1 keep-alive).
    pub fn keep_alive(
        script: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static,
    ) -> Server {
        Server::serving(script, true)
    }

    fn serving(
        script: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static,
        keep_alive: bool,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests: Arc<Mutex<Vec<Recorded>>> = Arc::default();
        let script: Arc<Script> = Arc::new(script);
        let reqs = requests.clone();
        let connections: Arc<std::sync::atomic::AtomicUsize> = Arc::default();
        let count = connections.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let reqs = reqs.clone();
                let script = script.clone();
                std::thread::spawn(move || {
                    let mut stream = stream;
                    while serve(&mut stream, &reqs, &script, keep_alive) && keep_alive {}
                });
            }
        });
        Server {
            port,
            requests,
            connections,
        }
    }

    /// The native endpoint URL.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1/systemone", self.port)
    }

    /// How many requests arrived.
    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }

    /// The requests so far.
    pub fn seen(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

/// Answers one request; false when the connection ended first.
fn serve(
    stream: &mut TcpStream,
    reqs: &Arc<Mutex<Vec<Recorded>>>,
    script: &Arc<Script>,
    keep_alive: bool,
) -> bool {
    let timeout = if keep_alive { 120 } else { 10 };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(timeout)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return false,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => body.extend_from_slice(&chunk[..n]),
        }
    }
    let rec = Recorded {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let index = {
        let mut r = reqs.lock().unwrap();
        r.push(rec.clone());
        r.len() - 1
    };
    let reply = script(&rec, index);
    std::thread::sleep(reply.delay);
    let mut out = format!("HTTP/1.1 {} X\r\n", reply.status);
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str(&format!(
        "Content-Length: {}\r\nConnection: {}\r\n\r\n{}",
        reply.body.len(),
        if keep_alive { "keep-alive" } else { "close" },
        reply.body
    ));
    stream.write_all(out.as_bytes()).is_ok() && stream.flush().is_ok()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The seven answers in the wire shape: risk score, its confidence, then `destructive`,
/// `exfiltration`, `beyond_request`, `from_untrusted`, `hidden_effect`, `authorized`.
pub fn answers(risk: f64, confidence: f64, n: [f64; 6]) -> Value {
    json!({
        "risk": {"type":"score","score":risk,"confidence":confidence,
                 "legend":{"0":"read-only","1":"easy to undo","2":"hard to undo","3":"destructive"}},
        "destructive": {"type":"noul","noul":n[0]},
        "exfiltration": {"type":"noul","noul":n[1]},
        "beyond_request": {"type":"noul","noul":n[2]},
        "from_untrusted": {"type":"noul","noul":n[3]},
        "hidden_effect": {"type":"noul","noul":n[4]},
        "authorized": {"type":"noul","noul":n[5]},
    })
}

/// A full native response around `answers`.
pub fn response(answers: Value) -> Value {
    json!({"model":"jev-1.13.0","answers":answers,"usage":{"input_tokens":449,"output_tokens":7}})
}
