//! Secret redaction for everything palisade records or sends away: values that look like
//! credentials become `"[redacted]"` before they are hashed into the audit chain.
//!
//! Three mechanisms: patterns over every string (keys, tokens, private key blocks,
//! `Authorization` headers, URL passwords — only the secret part is replaced, so a command
//! line keeps its shape); object keys named like secrets (`password`, `api_key`, …), whose whole
//! value is replaced; and configured dotted paths (`env.API_TOKEN`, `headers.*`).

use regex::Regex;
use serde_json::Value;
use std::sync::OnceLock;

/// What a redacted secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Deepest nesting redaction walks; deeper values are replaced whole (fail closed).
const MAX_DEPTH: usize = 128;

/// Each pattern has three groups: kept prefix, secret, kept suffix. It comes with the
/// lowercase literals one of which any match must contain: a pattern is compiled and run only
/// when one appears, so an ordinary command costs a few substring searches instead of the
/// milliseconds compiling all of them takes in a process that lives for one hook call.
const PATTERNS: &[(&[&str], &str)] = &[
    // PEM private key blocks (RSA, EC, OPENSSH, ENCRYPTED…), also when the END line is missing.
    (
        &["private key-----"],
        r"()(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z))()",
    ),
    // Authorization / Proxy-Authorization headers, any scheme.
    (
        &["authorization"],
        r"(?i)(\b(?:proxy-)?authorization\s*[:=]\s*(?:(?:bearer|basic|token|digest|negotiate)\s+)?)([^\s'\x22,;]+)()",
    ),
    // A bare bearer token (`-H "Bearer …"` split from its header name).
    (
        &["bearer"],
        r"(?i)(\bbearer\s+)([A-Za-z0-9._~+/\-]{8,}=*)()",
    ),
    // Header-style API keys: `X-Api-Key: …`, `api-key: …`.
    (
        &["api"],
        r"(?i)(\b(?:x-)?api[-_]?key\s*:\s*)([^\s'\x22,;]+)()",
    ),
    // Anthropic / OpenAI keys.
    (&["sk-"], r"()(\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,})()"),
    // GitHub tokens: classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained.
    (
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        r"()(\bgh[pousr]_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{22,})()",
    ),
    // Slack tokens.
    (&["xox"], r"()(\bxox[bpaors]-[A-Za-z0-9\-]{10,})()"),
    // AWS access key ids.
    (&["akia", "asia"], r"()(\b(?:AKIA|ASIA)[0-9A-Z]{16}\b)()"),
    // Google API keys.
    (&["aiza"], r"()(\bAIza[0-9A-Za-z_\-]{35})()"),
    // JSON Web Tokens.
    (
        &["eyj"],
        r"()(\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})()",
    ),
    // `password=…` in any form: query strings, env assignments, flags, `password: "…"` in
    // YAML/JSON/code.
    (
        &["passw"],
        r"(?i)(\b[\w\-]*(?:password|passwd)['\x22]?\s*[=:]\s*['\x22]?)([^\s&'\x22;,]+)()",
    ),
    // Long hex/base64 after `token=`, `key:`, `secret=` (`api_key=`, `GITHUB_TOKEN=`,
    // `"client_secret": "…"`).
    (
        &["token", "key", "secret"],
        r"(?i)(\b[\w\-]*(?:token|key|secret)['\x22]?\s*[=:]\s*['\x22]?)([A-Za-z0-9+/_\-\.]{16,}={0,2})()",
    ),
    // Passwords in URLs: `https://user:pw@host`.
    (
        &["://"],
        r"(?i)(\b[a-z][a-z0-9+.\-]*://[^/\s:@]+:)([^/\s@]+)(@)",
    ),
];

/// Each pattern, compiled on first need.
static COMPILED: [OnceLock<Regex>; PATTERNS.len()] = [const { OnceLock::new() }; PATTERNS.len()];

fn compiled(i: usize) -> &'static Regex {
    // The patterns are constants checked by the tests; an invalid one is a build-time bug.
    COMPILED[i].get_or_init(|| Regex::new(PATTERNS[i].1).expect("redaction pattern compiles"))
}

/// Object keys whose values are secrets whatever they look like: matched on the key lowercased
/// with every non-alphanumeric removed, by suffix (`client_secret`, `GITHUB_TOKEN`, `X-Api-Key`).
const SECRET_KEY_SUFFIXES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "authorization",
    "privatekey",
    "accesskey",
    "secretkey",
    "credentials",
    "credential",
    "cookie",
];

/// True when an object key names a secret.
pub fn is_secret_key(key: &str) -> bool {
    let norm: String = key
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    !norm.is_empty() && SECRET_KEY_SUFFIXES.iter().any(|s| norm.ends_with(s))
}

/// Replaces the secret parts of a string with `[redacted]`, keeping the rest.
pub fn redact_text(s: &str) -> String {
    let mut out = s.to_string();
    let mut lower = s.to_ascii_lowercase();
    for (i, (needles, _)) in PATTERNS.iter().enumerate() {
        if !needles.iter().any(|n| lower.contains(n)) {
            continue;
        }
        let replaced = compiled(i).replace_all(&out, |c: &regex::Captures<'_>| {
            let pre = c.get(1).map_or("", |m| m.as_str());
            let post = c.get(3).map_or("", |m| m.as_str());
            format!("{pre}{REDACTED}{post}")
        });
        if let std::borrow::Cow::Owned(o) = replaced {
            out = o;
            lower = out.to_ascii_lowercase();
        }
    }
    out
}

/// A copy of `v` with secrets redacted: strings by pattern, values under secret-named keys, and
/// values at `extra_paths` (dotted, relative to `v`; `*` matches any key or array index).
pub fn redact_value(v: &Value, extra_paths: &[String]) -> Value {
    let paths: Vec<Vec<&str>> = extra_paths
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| p.split('.').collect())
        .collect();
    let active: Vec<(usize, usize)> = (0..paths.len()).map(|i| (i, 0)).collect();
    walk(v, &paths, &active, 0)
}

/// `active` holds (path index, how many segments of it are already matched).
fn walk(v: &Value, paths: &[Vec<&str>], active: &[(usize, usize)], depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::String(REDACTED.into());
    }
    match v {
        Value::String(s) => Value::String(redact_text(s)),
        Value::Object(map) => {
            let mut out = serde_json::Map::with_capacity(map.len());
            for (k, child) in map {
                let value = redact_child(k, child, paths, active, depth, is_secret_key(k));
                out.insert(redact_text(k), value);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, child)| redact_child(&i.to_string(), child, paths, active, depth, false))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn redact_child(
    key: &str,
    child: &Value,
    paths: &[Vec<&str>],
    active: &[(usize, usize)],
    depth: usize,
    secret_key: bool,
) -> Value {
    let mut next = Vec::new();
    let mut whole = secret_key && !child.is_null();
    for &(pi, matched) in active {
        let path = &paths[pi];
        let seg = path[matched];
        if seg == "*" || seg == key {
            if matched + 1 == path.len() {
                whole = true;
            } else {
                next.push((pi, matched + 1));
            }
        }
    }
    if whole {
        Value::String(REDACTED.into())
    } else {
        walk(child, paths, &next, depth + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn r(s: &str) -> String {
        redact_text(s)
    }

    #[test]
    fn redacts_each_secret_kind_and_keeps_the_shape() {
        let cases = [
            (
                "curl -H \"Authorization: Bearer abc123def456\" https://x",
                "curl -H \"Authorization: Bearer [redacted]\" https://x",
            ),
            (
                "curl -H 'Authorization: Basic dXNlcjpwYXNz' x",
                "curl -H 'Authorization: Basic [redacted]' x",
            ),
            (
                "export ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx",
                "export ANTHROPIC_API_KEY=[redacted]",
            ),
            (
                "echo sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123",
                "echo [redacted]",
            ),
            (
                "git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/a/b",
                "git clone https://[redacted]@github.com/a/b",
            ),
            (
                "gh auth login --with-token github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
                "gh auth login --with-token [redacted]",
            ),
            ("SLACK=xoxb-1234567890-abcdefghij", "SLACK=[redacted]"),
            ("aws id AKIAIOSFODNN7EXAMPLE now", "aws id [redacted] now"),
            (
                "k=AIzaSyA-1234567890abcdefghijklmnopqrstu!",
                "k=[redacted]!",
            ),
            (
                "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end",
                "jwt [redacted] end",
            ),
            (
                "curl 'https://api.x.com/v1?token=0123456789abcdef0123&q=1'",
                "curl 'https://api.x.com/v1?token=[redacted]&q=1'",
            ),
            (
                "mysql --password=hunter2 db",
                "mysql --password=[redacted] db",
            ),
            (
                "psql postgres://admin:s3cret@db.local/x",
                "psql postgres://admin:[redacted]@db.local/x",
            ),
            (
                "cat <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nEOF",
                "cat <<EOF\n[redacted]\nEOF",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(r(input), want, "input: {input}");
        }
    }

    #[test]
    fn every_pattern_compiles_and_its_needles_are_lowercase() {
        for (i, (needles, _)) in PATTERNS.iter().enumerate() {
            let _ = compiled(i);
            assert!(
                needles.iter().all(|n| *n == n.to_ascii_lowercase()),
                "{needles:?}"
            );
        }
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        for s in [
            "cargo build --release",
            "pip install scikit-learn",
            "git push origin main",
            "https://github.com/rust-lang/rust",
            "key=short",
            "max_tokens: 100",
            "ask-before-running",
            "env PWD=/home/dev/project OLDPWD=/tmp make",
            "cache-key: v1",
        ] {
            assert_eq!(r(s), s);
        }
    }

    #[test]
    fn redacts_secret_keys_and_configured_paths() {
        let v = json!({
            "command": "ls",
            "password": "hunter2",
            "env": {"API_TOKEN": "x", "HOME": "/h", "DB": "plain"},
            "headers": {"X-Custom": "a", "Accept": "b"},
            "items": [{"v": "keep"}, {"v": "keep"}],
            "max_tokens": 5,
            "nothing": null
        });
        let out = redact_value(
            &v,
            &["env.DB".into(), "headers.*".into(), "items.1.v".into()],
        );
        assert_eq!(
            out,
            json!({
                "command": "ls",
                "password": "[redacted]",
                "env": {"API_TOKEN": "[redacted]", "HOME": "/h", "DB": "[redacted]"},
                "headers": {"X-Custom": "[redacted]", "Accept": "[redacted]"},
                "items": [{"v": "keep"}, {"v": "[redacted]"}],
                "max_tokens": 5,
                "nothing": null
            })
        );
    }

    #[test]
    fn redaction_is_idempotent() {
        let s = "curl -u admin:pw https://u:p@h -H 'Authorization: Bearer tok123456'";
        assert_eq!(r(&r(s)), r(s));
    }
}
