//! The HTTP client: one POST of the canonical body with a Bearer key, on a current-thread tokio
//! runtime created only here (the static path never starts one), or handed to the local broker
//! (`super::broker`) when one runs. The whole step, at most one retry included, fits in the
//! budget; every failure is a `RiskError`, never an answer.

use super::wire::{DecisionResponse, WireFamily, error_summary};
use std::time::{Duration, Instant};

/// Largest response body read.
const MAX_RESPONSE_BYTES: usize = 1024 * 1024;
/// Pause before a retry when the server gave no `Retry-After`.
const RETRY_BACKOFF: Duration = Duration::from_millis(100);
/// Least time worth starting a retry with.
const MIN_ATTEMPT: Duration = Duration::from_millis(100);

/// Why the backend gave no usable answer. Messages never hold the key or a response body.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum RiskError {
    /// The environment variable named by `api_key_env` is unset or empty.
    NoKey { var: String },
    /// DNS failure, refused connection, TLS failure, connection reset.
    Connect(String),
    /// The budget ran out.
    Timeout { ms: u64 },
    /// A non-2xx status, with a safe summary of the error envelope.
    Http { status: u16, summary: String },
    /// A 2xx whose body is not a decision response.
    Malformed(String),
    /// The request failed client-side validation (never sent).
    Invalid(String),
    /// The answers came back but fail the checks (missing id, wrong type, out of range).
    BadAnswers(String),
    /// The runtime or client could not start.
    Internal(String),
}

impl RiskError {
    /// A short code for the audit record and `audit --stats`.
    pub fn code(&self) -> String {
        match self {
            RiskError::NoKey { .. } => "no-key".into(),
            RiskError::Connect(_) => "connect".into(),
            RiskError::Timeout { .. } => "timeout".into(),
            RiskError::Http { status, .. } => format!("http-{status}"),
            RiskError::Malformed(_) => "malformed".into(),
            RiskError::Invalid(_) => "invalid-request".into(),
            RiskError::BadAnswers(_) => "invalid-answers".into(),
            RiskError::Internal(_) => "internal".into(),
        }
    }

    /// Removes `secret` from the message, whatever path it took (a server echoing headers).
    pub fn scrubbed(self, secret: &str) -> RiskError {
        if secret.len() < 4 {
            return self;
        }
        let s = |m: String| m.replace(secret, "[REDACTED]");
        match self {
            RiskError::Connect(m) => RiskError::Connect(s(m)),
            RiskError::Http { status, summary } => RiskError::Http {
                status,
                summary: s(summary),
            },
            RiskError::Malformed(m) => RiskError::Malformed(s(m)),
            RiskError::Invalid(m) => RiskError::Invalid(s(m)),
            RiskError::BadAnswers(m) => RiskError::BadAnswers(s(m)),
            RiskError::Internal(m) => RiskError::Internal(s(m)),
            other => other,
        }
    }
}

impl RiskError {
    /// The cause in palisade's own words only, for a reason the agent reads: no text the
    /// server chose (an error `detail`, a parse error quoting the body) is relayed.
    pub fn public(&self) -> String {
        match self {
            RiskError::Connect(_) => "could not reach the backend".into(),
            RiskError::Http { status, summary } => {
                // The only palisade-made part of a summary: the Retry-After note it appends.
                let note = summary
                    .rfind(RETRY_NOTE)
                    .map(|i| &summary[i..])
                    .filter(|n| {
                        // Exactly palisade's wording, numbers included: nothing else passes.
                        let w: Vec<&str> = n[RETRY_NOTE.len()..].split(' ').collect();
                        w.len() == 9
                            && w[1..7] == ["ms", "does", "not", "fit", "the", "remaining"]
                            && w[8] == "ms"
                            && [w[0], w[7]]
                                .iter()
                                .all(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                    })
                    .map(|n| format!(";{}", &n[1..]))
                    .unwrap_or_default();
                format!("the backend answered HTTP {status}{note}")
            }
            RiskError::Malformed(_) => "the backend's response is malformed".into(),
            RiskError::Internal(_) => "the backend client could not start".into(),
            other => other.to_string(),
        }
    }
}

/// How the Retry-After note palisade appends to an HTTP failure starts.
const RETRY_NOTE: &str = "; Retry-After ";

impl std::fmt::Display for RiskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RiskError::NoKey { var } => {
                write!(f, "no API key: the environment variable {var} is not set")
            }
            RiskError::Connect(m) => write!(f, "could not reach the backend: {m}"),
            RiskError::Timeout { ms } => write!(f, "no answer within the {ms} ms budget"),
            RiskError::Http { status, summary } => {
                write!(f, "the backend answered HTTP {status}: {summary}")
            }
            RiskError::Malformed(m) => write!(f, "{m}"),
            RiskError::Invalid(m) => write!(f, "the request failed validation: {m}"),
            RiskError::BadAnswers(m) => write!(f, "invalid answers: {m}"),
            RiskError::Internal(m) => write!(f, "the backend client could not start: {m}"),
        }
    }
}

impl std::error::Error for RiskError {}

/// A successful exchange.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    pub response: DecisionResponse,
    /// `x-typesafe-request-id`, else the response's `id`.
    pub request_id: Option<String>,
    pub latency_ms: u64,
    pub attempts: u32,
}

/// Where one request goes and how: what the broker is handed per request, so it holds no
/// configuration of its own.
#[derive(Debug, Clone, Copy)]
pub struct Endpoint<'a> {
    pub url: &'a str,
    pub key: &'a str,
    /// PEM certificates trusted besides the built-in roots (`risk.ca_file`).
    pub ca_pem: Option<&'a [u8]>,
    /// The broker's socket directory when the hook may use one; `None` always calls directly.
    pub broker_dir: Option<&'a std::path::Path>,
}

/// What a call did on the way, also when it failed: attempts made and the broker's part.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    pub attempts: u32,
    /// `used`, or why the broker was bypassed; `None` when no broker was considered.
    pub broker: Option<String>,
}

/// One HTTP answer as it arrived, before any parsing: what the broker relays to the hook.
#[derive(Debug, Clone, PartialEq)]
pub struct RawResponse {
    pub status: u16,
    /// `x-typesafe-request-id`, clipped.
    pub request_id: Option<String>,
    pub body: Vec<u8>,
}

/// One attempt's failure: whether a retry may help, and how long the server asked to wait.
struct Failure {
    error: RiskError,
    retryable: bool,
    retry_after: Option<Duration>,
}

/// Posts `body` to `url` within `budget`, with at most one retry on 408/429/529/5xx and
/// connection errors, honouring `Retry-After` only if it fits what is left.
pub fn post(url: &str, key: &str, body: Vec<u8>, budget: Duration) -> Result<Exchange, RiskError> {
    let endpoint = Endpoint {
        url,
        key,
        ca_pem: None,
        broker_dir: None,
    };
    post_traced(&endpoint, body, budget, &mut Trace::default())
}

/// `post` through the broker when one answers in time (`super::broker`), else directly;
/// `trace` is filled in also when it fails.
pub fn post_traced(
    endpoint: &Endpoint,
    body: Vec<u8>,
    budget: Duration,
    trace: &mut Trace,
) -> Result<Exchange, RiskError> {
    let start = Instant::now();
    let family = WireFamily::for_url(endpoint.url);
    if let Some(dir) = endpoint.broker_dir {
        match super::broker::request(dir, endpoint, &body, budget) {
            super::broker::Outcome::Answered { result, attempts } => {
                trace.attempts = attempts;
                trace.broker = Some("used".into());
                return result
                    .and_then(|raw| finish(raw, family, start, attempts))
                    .map_err(|e| e.scrubbed(endpoint.key));
            }
            // Bypassed: the direct call below gets what is left of the budget.
            super::broker::Outcome::Unavailable(why) => trace.broker = Some(why),
        }
    }
    let left = budget.saturating_sub(start.elapsed());
    let result = direct(endpoint, body, start, left, trace);
    result.map_err(|e| e.scrubbed(endpoint.key))
}

/// The call made by this process, on a current-thread runtime started here.
fn direct(
    endpoint: &Endpoint,
    body: Vec<u8>,
    start: Instant,
    budget: Duration,
    trace: &mut Trace,
) -> Result<Exchange, RiskError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RiskError::Internal(e.to_string()))?;
    let counter = std::sync::atomic::AtomicU32::new(0);
    let family = WireFamily::for_url(endpoint.url);
    let result = runtime.block_on(async {
        let client = new_client(endpoint.ca_pem, budget)?;
        let auth = bearer(endpoint.key)?;
        let send = exchange_raw(&client, endpoint.url, &auth, &body, start, budget, &counter);
        match tokio::time::timeout(budget, send).await {
            Ok(r) => r,
            Err(_) => Err(RiskError::Timeout {
                ms: budget.as_millis() as u64,
            }),
        }
    });
    // Do not wait for lingering connection tasks: the decision is made.
    runtime.shutdown_background();
    trace.attempts = counter.load(std::sync::atomic::Ordering::Relaxed);
    result.and_then(|raw| finish(raw, family, start, trace.attempts))
}

/// The `Authorization` header, marked sensitive so that no debug output shows it.
pub(crate) fn bearer(key: &str) -> Result<reqwest::header::HeaderValue, RiskError> {
    let mut auth =
        reqwest::header::HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
            RiskError::NoKey {
                var: "(the key holds characters not allowed in a header)".into(),
            }
        })?;
    auth.set_sensitive(true);
    Ok(auth)
}

/// An HTTP client that follows no redirect and trusts `ca_pem` besides the built-in roots.
pub(crate) fn new_client(
    ca_pem: Option<&[u8]>,
    connect_timeout: Duration,
) -> Result<reqwest::Client, RiskError> {
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("palisade/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(connect_timeout);
    if let Some(pem) = ca_pem {
        let certs = reqwest::Certificate::from_pem_bundle(pem)
            .ok()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| RiskError::Internal("risk.ca_file holds no PEM certificate".into()))?;
        for cert in certs {
            builder = builder.add_root_certificate(cert);
        }
    }
    builder
        .build()
        .map_err(|e| RiskError::Internal(error_chain(&e)))
}

/// A 2xx answer parsed into a decision response; the model and request id clipped.
fn finish(
    raw: RawResponse,
    family: WireFamily,
    start: Instant,
    attempts: u32,
) -> Result<Exchange, RiskError> {
    let mut response = DecisionResponse::parse(&raw.body, family).map_err(RiskError::Malformed)?;
    // Server-chosen strings go into the audit: keep them short.
    response.model = response.model.map(|m| super::wire::clip(&m, 128));
    let request_id = raw
        .request_id
        .or_else(|| response.id.as_deref().map(|i| super::wire::clip(i, 128)));
    Ok(Exchange {
        response,
        request_id,
        latency_ms: start.elapsed().as_millis() as u64,
        attempts,
    })
}

/// Sends until a 2xx arrives, at most twice: the retry rules of `post`. A non-2xx final
/// answer is an `Http` error; a 2xx is returned unparsed (a body that does not parse is never
/// retried). The hook and the broker both run this, so both retry alike.
pub(crate) async fn exchange_raw(
    client: &reqwest::Client,
    url: &str,
    auth: &reqwest::header::HeaderValue,
    body: &[u8],
    start: Instant,
    budget: Duration,
    counter: &std::sync::atomic::AtomicU32,
) -> Result<RawResponse, RiskError> {
    let mut attempts = 0;
    loop {
        attempts += 1;
        counter.store(attempts, std::sync::atomic::Ordering::Relaxed);
        let f = match attempt(client, url, auth, body).await {
            Ok(raw) => return Ok(raw),
            Err(f) => f,
        };
        if attempts >= 2 || !f.retryable {
            return Err(f.error);
        }
        let left = budget.saturating_sub(start.elapsed());
        let wait = match f.retry_after {
            Some(w) => w,
            None => RETRY_BACKOFF,
        };
        if wait + MIN_ATTEMPT > left {
            return Err(match (f.error, f.retry_after) {
                (RiskError::Http { status, summary }, Some(w)) => RiskError::Http {
                    status,
                    summary: format!(
                        "{summary}{RETRY_NOTE}{} ms does not fit the remaining {} ms",
                        w.as_millis(),
                        left.as_millis()
                    ),
                },
                (e, _) => e,
            });
        }
        tokio::time::sleep(wait).await;
    }
}

/// One request: a 2xx body as it came, or why not (with whether a retry may help).
async fn attempt(
    client: &reqwest::Client,
    url: &str,
    auth: &reqwest::header::HeaderValue,
    body: &[u8],
) -> Result<RawResponse, Failure> {
    let sent = client
        .post(url)
        .header(reqwest::header::AUTHORIZATION, auth.clone())
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(reqwest::header::ACCEPT, "application/json")
        .body(body.to_vec())
        .send()
        .await;
    let mut resp = match sent {
        Ok(r) => r,
        Err(e) => {
            return Err(Failure {
                retryable: e.is_connect() || e.is_timeout() || e.is_request(),
                error: RiskError::Connect(error_chain(&e)),
                retry_after: None,
            });
        }
    };
    let status = resp.status().as_u16();
    let header = |name: &str| {
        resp.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|s| super::wire::clip(s.trim(), 128))
    };
    let request_id = header("x-typesafe-request-id");
    let retry_after = header("retry-after").and_then(|v| parse_retry_after(&v));
    let mut bytes = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                if bytes.len() + chunk.len() > MAX_RESPONSE_BYTES {
                    return Err(Failure {
                        error: RiskError::Malformed(format!(
                            "the backend's response is larger than {MAX_RESPONSE_BYTES} bytes"
                        )),
                        retryable: false,
                        retry_after: None,
                    });
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => {
                return Err(Failure {
                    error: RiskError::Malformed(format!(
                        "the backend's response was cut off ({})",
                        error_chain(&e)
                    )),
                    retryable: (500..600).contains(&status),
                    retry_after: None,
                });
            }
        }
    }
    if !(200..300).contains(&status) {
        let retryable = matches!(status, 408 | 429 | 529) || (500..600).contains(&status);
        return Err(Failure {
            error: RiskError::Http {
                status,
                summary: error_summary(&bytes),
            },
            retryable,
            retry_after,
        });
    }
    Ok(RawResponse {
        status,
        request_id,
        body: bytes,
    })
}

/// `Retry-After` in seconds (integer or decimal); an HTTP date is not honoured (treated as
/// absent, so the ordinary short backoff applies).
pub fn parse_retry_after(v: &str) -> Option<Duration> {
    let secs: f64 = v.trim().parse().ok()?;
    (secs.is_finite() && (0.0..86_400.0).contains(&secs)).then(|| Duration::from_secs_f64(secs))
}

/// The error and its causes, without the URL (which could carry credentials).
fn error_chain(e: &reqwest::Error) -> String {
    use std::error::Error;
    let mut out = String::new();
    let mut cur: Option<&dyn Error> = Some(e);
    let mut depth = 0;
    while let Some(err) = cur {
        let text = err.to_string();
        if !out.contains(&text) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&text);
        }
        cur = err.source();
        depth += 1;
        if depth > 6 {
            break;
        }
    }
    // reqwest names the URL in its top-level message; keep only the causes' wording.
    out = out.replace(e.url().map(|u| u.as_str()).unwrap_or("\u{0}"), "<url>");
    super::wire::clip(&out, 300)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("-1"), None);
    }

    #[test]
    fn refused_connection_is_an_error_within_budget() {
        // A port nothing listens on (bound then dropped).
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let t = Instant::now();
        let r = post(
            &format!("http://127.0.0.1:{port}/v1/systemone"),
            "sk-test-secret-key",
            b"{}".to_vec(),
            Duration::from_millis(800),
        );
        let e = r.unwrap_err();
        assert!(
            matches!(e, RiskError::Connect(_) | RiskError::Timeout { .. }),
            "{e:?}"
        );
        assert!(!e.to_string().contains("sk-test-secret-key"));
        assert!(t.elapsed() < Duration::from_millis(2000));
    }

    #[test]
    fn scrubs_the_key() {
        let e = RiskError::Http {
            status: 401,
            summary: "bad key Bearer sk-abcdef".into(),
        }
        .scrubbed("sk-abcdef");
        assert!(!e.to_string().contains("sk-abcdef"));
    }
}
