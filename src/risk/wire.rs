//! The decision-model wire format (REFERENCE-jev §1–2): the request `{model, state, questions}`,
//! the response `{model, answers, usage}`, and the three error envelopes.
//!
//! Two families share the request body and a Bearer key:
//! - **native** `…/systemone` (TypeSafe, OpenRouter `/api/v1/systemone`, LiteLLM, Bifrost
//!   `/typesafe/…`, local servers);
//! - **decisions**: OpenRouter's `…/alpha/decisions`, chosen when the URL path ends in
//!   `/alpha/decisions`. Its response adds a top-level `id` (the request id), `usage.cost`, and
//!   probabilities rounded to two decimals, which are rescaled to sum to 1.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Largest number of levels a score question may have (documented 2–10).
pub const MAX_SCORE_LEVELS: usize = 10;
/// Largest number of options a choice question may have.
pub const MAX_CHOICE_OPTIONS: usize = 255;

/// Which response family an endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireFamily {
    Native,
    Decisions,
}

impl WireFamily {
    /// Picks the family from the endpoint URL's path.
    pub fn for_url(url: &str) -> WireFamily {
        let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
        let path = rest
            .find('/')
            .map(|i| &rest[i..])
            .unwrap_or("")
            .split(['?', '#'])
            .next()
            .unwrap_or("");
        if path.trim_end_matches('/').ends_with("/alpha/decisions") {
            WireFamily::Decisions
        } else {
            WireFamily::Native
        }
    }
}

/// `criteria` of a noul: what true and false mean.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoulCriteria {
    #[serde(rename = "true")]
    pub yes: String,
    #[serde(rename = "false")]
    pub no: String,
}

/// One typed question. Typed structs mean no unknown key can reach the server (which would
/// silently accept it and degrade the answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum Question {
    Noul {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        instructions: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        criteria: Option<NoulCriteria>,
    },
    Score {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        instructions: Option<String>,
        /// Ordered levels; the index is the level.
        criteria: Vec<String>,
    },
    Choice {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        instructions: Option<String>,
        criteria: BTreeMap<String, Option<String>>,
    },
}

impl Question {
    /// The documented limits the server does not always enforce itself.
    pub fn validate(&self, id: &str) -> Result<(), String> {
        match self {
            Question::Noul {
                instructions,
                criteria,
            } => {
                if instructions.as_deref().is_none_or(|s| s.trim().is_empty()) && criteria.is_none()
                {
                    return Err(format!(
                        "noul question `{id}` needs instructions or criteria"
                    ));
                }
            }
            Question::Score { criteria, .. } => {
                if !(2..=MAX_SCORE_LEVELS).contains(&criteria.len()) {
                    return Err(format!(
                        "score question `{id}` has {} levels; 2 to {MAX_SCORE_LEVELS} are allowed",
                        criteria.len()
                    ));
                }
            }
            Question::Choice { criteria, .. } => {
                if criteria.is_empty() || criteria.len() > MAX_CHOICE_OPTIONS {
                    return Err(format!(
                        "choice question `{id}` has {} options; 1 to {MAX_CHOICE_OPTIONS} are allowed",
                        criteria.len()
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The request body. `questions` is a `BTreeMap` so the serialisation (and the cache key)
/// is canonical.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionRequest {
    pub model: String,
    pub state: Value,
    pub questions: BTreeMap<String, Question>,
}

impl DecisionRequest {
    /// Checks every question and the state's type before anything is sent.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.state.is_object() || self.state.is_array() || self.state.is_string()) {
            return Err("the state must be a JSON string, object or array".into());
        }
        if self.questions.is_empty() {
            return Err("a request needs at least one question".into());
        }
        for (id, q) in &self.questions {
            q.validate(id)?;
        }
        Ok(())
    }

    /// The canonical body bytes: what is sent and what the cache key hashes.
    pub fn body(&self) -> Vec<u8> {
        // Serialising plain structs, strings and maps cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }
}

/// One answer, as on the wire and in frozen `risk_answers`. An unknown `type` is an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Answer {
    Noul {
        /// P(yes) in [0, 1]; a noul has no confidence.
        noul: f64,
    },
    Score {
        /// Probability-weighted mean level; can fall between levels.
        score: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        confidence: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        probabilities: Option<BTreeMap<String, f64>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        legend: Option<BTreeMap<String, Value>>,
    },
    Choice {
        choice: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        confidence: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        probabilities: Option<BTreeMap<String, f64>>,
    },
}

impl Answer {
    /// The answer's type name.
    pub fn kind(&self) -> &'static str {
        match self {
            Answer::Noul { .. } => "noul",
            Answer::Score { .. } => "score",
            Answer::Choice { .. } => "choice",
        }
    }
}

/// Token counts and, on OpenRouter, the cost in USD.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: Option<u64>,
    #[serde(default)]
    pub output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
}

/// A successful response. Unknown fields (provider metadata) are ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionResponse {
    /// The versioned model that answered (`jev-1.13.0` even when an alias was sent).
    #[serde(default)]
    pub model: Option<String>,
    pub answers: BTreeMap<String, Answer>,
    #[serde(default)]
    pub usage: Option<Usage>,
    /// Decisions family: the request id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

impl DecisionResponse {
    /// Parses a 2xx body of the given family. A missing `answers`, an unknown answer type or a
    /// missing value is an error (a partial answer never becomes a decision).
    pub fn parse(body: &[u8], family: WireFamily) -> Result<DecisionResponse, String> {
        let mut resp: DecisionResponse = serde_json::from_slice(body)
            .map_err(|e| format!("malformed response from the backend ({e})"))?;
        if family == WireFamily::Decisions {
            for answer in resp.answers.values_mut() {
                match answer {
                    Answer::Score { probabilities, .. } | Answer::Choice { probabilities, .. } => {
                        if let Some(p) = probabilities {
                            rescale(p);
                        }
                    }
                    Answer::Noul { .. } => {}
                }
            }
        }
        Ok(resp)
    }
}

/// Rounded probabilities drift from 1; rescale them when the sum is plausibly a rounding drift.
fn rescale(p: &mut BTreeMap<String, f64>) {
    let sum: f64 = p.values().sum();
    if sum.is_finite() && sum > 0.0 && (sum - 1.0).abs() < 0.1 {
        for v in p.values_mut() {
            *v /= sum;
        }
    }
}

/// A one-line summary of an error body, safe to log: the `detail` string or object, the
/// `error.message` of OpenRouter and Bifrost, or the locations and messages of a FastAPI 422
/// list, never the body verbatim (a 422 echoes the request's `state`).
pub fn error_summary(body: &[u8]) -> String {
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return format!("unparsed error body of {} bytes", body.len());
    };
    let s = |v: &Value| v.as_str().map(|x| clip(x, 200));
    if let Some(detail) = v.get("detail") {
        match detail {
            Value::String(text) => return clip(text, 200),
            Value::Object(o) => {
                let kind = o.get("error_type").and_then(s);
                let msg = o.get("message").and_then(s);
                return match (kind, msg) {
                    (Some(k), Some(m)) => format!("{k}: {m}"),
                    (None, Some(m)) => m,
                    (Some(k), None) => k,
                    (None, None) => "error detail without a message".into(),
                };
            }
            Value::Array(items) => {
                let parts: Vec<String> = items
                    .iter()
                    .take(3)
                    .map(|item| {
                        let loc = item
                            .get("loc")
                            .and_then(Value::as_array)
                            .map(|l| {
                                l.iter()
                                    .map(|p| match p {
                                        Value::String(x) => clip(x, 40),
                                        other => clip(&other.to_string(), 40),
                                    })
                                    .collect::<Vec<_>>()
                                    .join(".")
                            })
                            .unwrap_or_default();
                        let msg = item.get("msg").and_then(s).unwrap_or_default();
                        format!("{loc}: {msg}")
                    })
                    .collect();
                return format!(
                    "validation error ({} item(s)): {}",
                    items.len(),
                    parts.join("; ")
                );
            }
            _ => {}
        }
    }
    if let Some(err) = v.get("error") {
        let msg = err.get("message").and_then(s);
        let code = err.get("code").map(|c| match c {
            Value::String(x) => clip(x, 40),
            other => clip(&other.to_string(), 40),
        });
        let kind = err.get("type").and_then(s);
        let mut out = msg.unwrap_or_else(|| "error without a message".into());
        if let Some(k) = kind {
            out = format!("{k}: {out}");
        }
        if let Some(c) = code {
            out = format!("{out} (code {c})");
        }
        return out;
    }
    format!("error body of {} bytes in an unknown shape", body.len())
}

/// At most `max` characters, on a char boundary.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max).collect();
        out.push('…');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn family_by_path() {
        assert_eq!(
            WireFamily::for_url("https://openrouter.ai/api/alpha/decisions"),
            WireFamily::Decisions
        );
        assert_eq!(
            WireFamily::for_url("https://openrouter.ai/api/alpha/decisions/?x=1"),
            WireFamily::Decisions
        );
        assert_eq!(
            WireFamily::for_url("https://api.typesafe.ai/v1/systemone"),
            WireFamily::Native
        );
        assert_eq!(
            WireFamily::for_url("https://x.example/v1/systemone?next=/alpha/decisions"),
            WireFamily::Native
        );
    }

    #[test]
    fn validates_questions() {
        let noul = Question::Noul {
            instructions: None,
            criteria: None,
        };
        assert!(noul.validate("x").is_err());
        let score = |n: usize| Question::Score {
            instructions: Some("how bad".into()),
            criteria: (0..n).map(|i| i.to_string()).collect(),
        };
        assert!(score(1).validate("s").is_err());
        assert!(score(2).validate("s").is_ok());
        assert!(score(10).validate("s").is_ok());
        assert!(score(11).validate("s").is_err());
        let choice = |n: usize| Question::Choice {
            instructions: None,
            criteria: (0..n).map(|i| (i.to_string(), None)).collect(),
        };
        assert!(choice(255).validate("c").is_ok());
        assert!(choice(256).validate("c").is_err());
        // Unknown keys inside a question cannot be deserialised, let alone sent.
        assert!(
            serde_json::from_value::<Question>(
                json!({"type":"noul","instructions":"x","threshold":0.5})
            )
            .is_err()
        );
    }

    #[test]
    fn parses_both_families() {
        let body = json!({"model":"jev-1.13.0","answers":{
            "a":{"type":"noul","noul":0.99},
            "b":{"type":"choice","choice":"high","confidence":1.0,"probabilities":{"low":0.0,"high":1.0}},
            "c":{"type":"score","score":1.4,"confidence":0.8,"legend":{"0":"calm","1":{"x":1},"2":"angry"},"probabilities":{"0":0.1,"1":0.4,"2":0.5}}},
            "usage":{"input_tokens":25,"output_tokens":8}});
        let r = DecisionResponse::parse(body.to_string().as_bytes(), WireFamily::Native).unwrap();
        assert_eq!(r.model.as_deref(), Some("jev-1.13.0"));
        assert_eq!(r.answers.len(), 3);
        let body = json!({"id":"gen-1","model":"typesafe/jev-1.13","answers":{
            "c":{"type":"score","score":1.4,"confidence":0.8,"probabilities":{"0":0.33,"1":0.33,"2":0.33}}},
            "usage":{"input_tokens":25,"output_tokens":8,"cost":0.0000189},"provider":"TypeSafe"});
        let r =
            DecisionResponse::parse(body.to_string().as_bytes(), WireFamily::Decisions).unwrap();
        assert_eq!(r.id.as_deref(), Some("gen-1"));
        assert_eq!(r.usage.as_ref().unwrap().cost, Some(0.0000189));
        let Answer::Score { probabilities, .. } = &r.answers["c"] else {
            panic!()
        };
        let sum: f64 = probabilities.as_ref().unwrap().values().sum();
        assert!((sum - 1.0).abs() < 1e-9);
        for bad in [
            json!({"model":"m","answers":{"a":{"type":"magic","value":1}}}),
            json!({"model":"m","answers":{"a":{"type":"noul"}}}),
            json!({"model":"m"}),
        ] {
            assert!(
                DecisionResponse::parse(bad.to_string().as_bytes(), WireFamily::Native).is_err()
            );
        }
        assert!(DecisionResponse::parse(b"{\"answers\":", WireFamily::Native).is_err());
    }

    #[test]
    fn error_envelopes_never_echo_the_state() {
        assert_eq!(
            error_summary(br#"{"detail":"Too many score levels. Must have at most 10 levels."}"#),
            "Too many score levels. Must have at most 10 levels."
        );
        assert_eq!(
            error_summary(
                br#"{"detail":{"error_type":"api_usage_error","message":"Invalid request."}}"#
            ),
            "api_usage_error: Invalid request."
        );
        let s = error_summary(
            br#"{"detail":[{"type":"missing","loc":["body","state"],"msg":"Field required","input":{"secret_state":"TOPSECRET"}}]}"#,
        );
        assert!(s.contains("body.state: Field required"), "{s}");
        assert!(!s.contains("TOPSECRET"));
        assert_eq!(
            error_summary(br#"{"error":{"message":"decisions model","code":400}}"#),
            "decisions model (code 400)"
        );
        let s = error_summary(
            br#"{"event_id":"e","type":"x","is_bifrost_error":true,"status_code":429,"error":{"type":"rate_limit","code":"429","message":"slow down","param":null},"extra_fields":{"provider":"typesafe"}}"#,
        );
        assert_eq!(s, "rate_limit: slow down (code 429)");
        assert_eq!(
            error_summary(b"<html>state: TOPSECRET</html>"),
            "unparsed error body of 29 bytes"
        );
    }
}
