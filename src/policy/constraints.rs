//! `when` constraints: checks on `tool_input` values addressed by dotted path, compiled at load.
//!
//! Values are compared as text, except `min`/`max` (numbers) and the length bounds:
//! - a string is itself; a number is its JSON text (`5`, `1.5`); a boolean is `true`/`false`;
//! - an array or object is its compact JSON text (so `excludes` also looks inside it);
//! - `null` counts as absent.
//!
//! `min`/`max` take a number or a string that parses as a finite number; `minLength`/`maxLength`
//! count the characters of a string, the elements of an array or the keys of an object.

use super::glob::{Glob, GlobKind};
use super::schema::ConstraintConfig;
use regex::Regex;
use serde_json::Value;

/// Longest value quoted in a near-miss sentence.
const MAX_QUOTED: usize = 80;

/// One check on one argument.
#[derive(Debug, Clone)]
pub enum Check {
    Equals(String),
    StartsWith(Vec<String>),
    EndsWith(Vec<String>),
    Matches(Regex),
    Excludes(Vec<String>),
    OneOf(Vec<String>),
    UrlHosts(Vec<Glob>),
    Min(f64),
    Max(f64),
    MinLength(usize),
    MaxLength(usize),
}

/// The constraints on one dotted path.
#[derive(Debug, Clone)]
pub struct Constraint {
    /// The dotted path as written (`edits.0.new_string`).
    pub path: String,
    segments: Vec<String>,
    /// An absent value passes; otherwise an absent value fails.
    pub optional: bool,
    pub checks: Vec<Check>,
}

/// Why a constraint rejected a call.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The dotted path.
    pub path: String,
    /// What was required, as a phrase (`is one of [acme]`).
    pub wanted: String,
    /// What was found, as a phrase (`got 'evil'`, `it is missing`).
    pub found: String,
}

impl Constraint {
    /// Compiles the constraints of one path; errors are phrased for the policy author.
    pub fn compile(path: &str, c: ConstraintConfig) -> Result<Constraint, String> {
        if path.is_empty() || path.split('.').any(str::is_empty) {
            return Err(format!(
                "'{path}' is not a valid dotted path (empty segment)"
            ));
        }
        let segments = path.split('.').map(str::to_string).collect();
        let mut checks = Vec::new();
        let list = |name: &str, v: Vec<String>| -> Result<Vec<String>, String> {
            if v.is_empty() {
                Err(format!(
                    "'{path}': {name} is an empty list and would never match"
                ))
            } else {
                Ok(v)
            }
        };
        if let Some(v) = c.equals {
            checks.push(Check::Equals(v.into_text()));
        }
        if let Some(v) = c.starts_with {
            checks.push(Check::StartsWith(list("startsWith", v.into_vec())?));
        }
        if let Some(v) = c.ends_with {
            checks.push(Check::EndsWith(list("endsWith", v.into_vec())?));
        }
        if let Some(re) = c.matches {
            let compiled = regex::RegexBuilder::new(&re)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| format!("'{path}': matches is not a valid regex: {e}"))?;
            checks.push(Check::Matches(compiled));
        }
        if let Some(v) = c.excludes {
            let v = list("excludes", v.into_vec())?;
            if v.iter().any(String::is_empty) {
                return Err(format!(
                    "'{path}': excludes contains an empty string, which every value contains"
                ));
            }
            checks.push(Check::Excludes(v));
        }
        if let Some(v) = c.one_of {
            let v = v.into_iter().map(|s| s.into_text()).collect();
            checks.push(Check::OneOf(list("oneOf", v)?));
        }
        if let Some(v) = c.url_hosts {
            let globs = list("urlHosts", v.into_vec())?
                .iter()
                .map(|g| Glob::new(g, GlobKind::Host))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("'{path}': urlHosts: {e}"))?;
            checks.push(Check::UrlHosts(globs));
        }
        for (name, v) in [("min", c.min), ("max", c.max)] {
            if v.is_some_and(|x| !x.is_finite()) {
                return Err(format!("'{path}': {name} must be a finite number"));
            }
        }
        if let (Some(lo), Some(hi)) = (c.min, c.max)
            && lo > hi
        {
            return Err(format!("'{path}': min {lo} is greater than max {hi}"));
        }
        if let (Some(lo), Some(hi)) = (c.min_length, c.max_length)
            && lo > hi
        {
            return Err(format!(
                "'{path}': minLength {lo} is greater than maxLength {hi}"
            ));
        }
        if let Some(v) = c.min {
            checks.push(Check::Min(v));
        }
        if let Some(v) = c.max {
            checks.push(Check::Max(v));
        }
        if let Some(v) = c.min_length {
            checks.push(Check::MinLength(v));
        }
        if let Some(v) = c.max_length {
            checks.push(Check::MaxLength(v));
        }
        Ok(Constraint {
            path: path.to_string(),
            segments,
            optional: c.optional.unwrap_or(false),
            checks,
        })
    }

    /// Checks the call's input; the first broken check is returned.
    pub fn check(&self, input: &Value) -> Result<(), Failure> {
        let value = match lookup(input, &self.segments) {
            Some(v) => v,
            None if self.optional => return Ok(()),
            None => {
                return Err(Failure {
                    path: self.path.clone(),
                    wanted: if self.checks.is_empty() {
                        "is present".into()
                    } else {
                        describe_checks(&self.checks)
                    },
                    found: "it is missing".into(),
                });
            }
        };
        let text = as_text(value);
        for check in &self.checks {
            if !passes(check, value, &text) {
                return Err(Failure {
                    path: self.path.clone(),
                    wanted: describe(check),
                    found: format!("got {}", quote(&text)),
                });
            }
        }
        Ok(())
    }

    /// The constraint as a phrase for `explain`.
    pub fn describe(&self) -> String {
        let mut s = format!("{} ", self.path);
        if self.checks.is_empty() {
            s.push_str("is present");
        } else {
            s.push_str(&describe_checks(&self.checks));
        }
        if self.optional {
            s.push_str(" (when present)");
        }
        s
    }
}

fn describe_checks(checks: &[Check]) -> String {
    checks
        .iter()
        .map(describe)
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Follows a dotted path through objects (by key) and arrays (by index). `null` is absent.
pub fn lookup<'a>(root: &'a Value, segments: &[String]) -> Option<&'a Value> {
    let mut cur = root;
    for seg in segments {
        cur = match cur {
            Value::Object(map) => map.get(seg)?,
            Value::Array(items) => items.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    (!cur.is_null()).then_some(cur)
}

/// The text a value is compared as.
pub fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(_) | Value::Object(_) => v.to_string(),
    }
}

fn as_number(v: &Value) -> Option<f64> {
    let n = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    n.is_finite().then_some(n)
}

fn length(v: &Value, text: &str) -> usize {
    match v {
        Value::Array(a) => a.len(),
        Value::Object(o) => o.len(),
        _ => text.chars().count(),
    }
}

fn passes(check: &Check, value: &Value, text: &str) -> bool {
    match check {
        Check::Equals(s) => text == s,
        Check::StartsWith(p) => p.iter().any(|p| text.starts_with(p.as_str())),
        Check::EndsWith(p) => p.iter().any(|p| text.ends_with(p.as_str())),
        Check::Matches(re) => re.is_match(text),
        Check::Excludes(subs) => !subs.iter().any(|s| text.contains(s.as_str())),
        Check::OneOf(options) => options.iter().any(|o| o == text),
        Check::UrlHosts(globs) => match crate::normalize::url_host(text) {
            // A trailing dot names the same host (`github.com.`); compare without it.
            Some(host) => {
                let host = host.trim_end_matches('.');
                globs.iter().any(|g| g.matches(host))
            }
            None => false,
        },
        Check::Min(lo) => as_number(value).is_some_and(|n| n >= *lo),
        Check::Max(hi) => as_number(value).is_some_and(|n| n <= *hi),
        Check::MinLength(lo) => length(value, text) >= *lo,
        Check::MaxLength(hi) => length(value, text) <= *hi,
    }
}

fn list(items: &[String]) -> String {
    format!("[{}]", items.join(", "))
}

fn one_or_list(verb: &str, items: &[String]) -> String {
    match items {
        [one] => format!("{verb} {}", quote(one)),
        _ => format!("{verb} one of {}", list(items)),
    }
}

/// A check as a phrase following the argument name.
pub fn describe(check: &Check) -> String {
    match check {
        Check::Equals(s) => format!("equals {}", quote(s)),
        Check::StartsWith(p) => one_or_list("starts with", p),
        Check::EndsWith(p) => one_or_list("ends with", p),
        Check::Matches(re) => format!("matches /{}/", re.as_str()),
        Check::Excludes(s) => match s.as_slice() {
            [one] => format!("does not contain {}", quote(one)),
            _ => format!("contains none of {}", list(s)),
        },
        Check::OneOf(o) => format!("is one of {}", list(o)),
        Check::UrlHosts(g) => {
            let g: Vec<String> = g.iter().map(|g| g.to_string()).collect();
            format!("is a URL whose host matches {}", list(&g))
        }
        Check::Min(v) => format!("is at least {v}"),
        Check::Max(v) => format!("is at most {v}"),
        Check::MinLength(v) => format!("has a length of at least {v}"),
        Check::MaxLength(v) => format!("has a length of at most {v}"),
    }
}

/// Quotes a value for a sentence, truncated so a huge argument cannot flood a reason.
pub fn quote(s: &str) -> String {
    let mut out = String::from("'");
    for (count, ch) in s.chars().enumerate() {
        if count == MAX_QUOTED {
            out.push('…');
            break;
        }
        // Keep the sentence on one line.
        out.push(if ch.is_control() { ' ' } else { ch });
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn c(path: &str, yaml: &str) -> Constraint {
        Constraint::compile(path, serde_yaml::from_str(yaml).unwrap()).unwrap()
    }

    #[test]
    fn lookup_walks_objects_and_arrays() {
        let v = json!({"edits": [{"new_string": "x"}], "n": null});
        let seg = |p: &str| p.split('.').map(str::to_string).collect::<Vec<_>>();
        assert_eq!(lookup(&v, &seg("edits.0.new_string")), Some(&json!("x")));
        assert_eq!(lookup(&v, &seg("edits.1.new_string")), None);
        assert_eq!(lookup(&v, &seg("edits.x")), None);
        assert_eq!(lookup(&v, &seg("n")), None);
    }

    #[test]
    fn numbers_and_lengths() {
        let k = c("limit", "{min: 1, max: 100}");
        assert!(k.check(&json!({"limit": 5})).is_ok());
        assert!(k.check(&json!({"limit": "5"})).is_ok());
        assert!(k.check(&json!({"limit": 500})).is_err());
        assert!(k.check(&json!({"limit": "many"})).is_err());
        let l = c("labels", "{maxLength: 2}");
        assert!(l.check(&json!({"labels": ["a", "b"]})).is_ok());
        assert!(l.check(&json!({"labels": ["a", "b", "c"]})).is_err());
    }

    #[test]
    fn quoting_truncates() {
        let q = quote(&"x".repeat(500));
        assert!(q.chars().count() < 90 && q.ends_with("…'"));
    }
}
