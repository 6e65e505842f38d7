//! The hook input: one Claude Code event as JSON on stdin, read with a size cap.

use serde::Deserialize;
use serde_json::Value;
use std::io::Read;
use std::sync::Arc;

/// Largest event palisade reads; anything bigger is refused (a Write of a huge file included).
pub const MAX_EVENT_BYTES: usize = 4 * 1024 * 1024;

/// One hook event as Claude Code sends it. Unknown fields are ignored on purpose:
/// Claude Code keeps adding them.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct HookEvent {
    #[serde(default)]
    pub session_id: String,
    #[serde(default)]
    pub transcript_path: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub permission_mode: Option<String>,
    #[serde(default)]
    pub hook_event_name: String,
    pub tool_name: String,
    /// Shared, not copied, by the call it becomes (`Call::input`): a 1 MB Write's input was
    /// copied once more for that.
    pub tool_input: Arc<Value>,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    /// PostToolUse only: what the tool returned.
    #[serde(default)]
    pub tool_response: Option<Value>,
    #[serde(default)]
    pub agent_id: Option<String>,
}

/// Why an event could not be read. Each becomes a deny naming the cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventError {
    Empty,
    TooLarge { limit: usize },
    NotUtf8,
    NotJson(String),
    MissingField(&'static str),
    Io(String),
}

impl std::fmt::Display for EventError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EventError::Empty => write!(f, "the hook received no input on stdin"),
            EventError::TooLarge { limit } => {
                write!(f, "the hook input is larger than the {limit}-byte cap")
            }
            EventError::NotUtf8 => write!(f, "the hook input is not valid UTF-8"),
            EventError::NotJson(e) => write!(f, "the hook input is not valid JSON ({e})"),
            EventError::MissingField(name) => {
                write!(f, "the hook input has no usable `{name}` field")
            }
            EventError::Io(e) => write!(f, "could not read the hook input ({e})"),
        }
    }
}

impl std::error::Error for EventError {}

/// Reads at most `MAX_EVENT_BYTES` (+1 to detect overflow) from `reader` and parses the event.
pub fn read_event(reader: impl Read) -> Result<HookEvent, EventError> {
    let mut buf = Vec::new();
    reader
        .take(MAX_EVENT_BYTES as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| EventError::Io(e.to_string()))?;
    parse_event(&buf)
}

/// Parses an event from raw bytes, enforcing the cap, UTF-8 and the required fields.
pub fn parse_event(bytes: &[u8]) -> Result<HookEvent, EventError> {
    if bytes.len() > MAX_EVENT_BYTES {
        return Err(EventError::TooLarge {
            limit: MAX_EVENT_BYTES,
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|_| EventError::NotUtf8)?;
    if text.trim().is_empty() {
        return Err(EventError::Empty);
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| EventError::NotJson(e.to_string()))?;
    let obj = value
        .as_object()
        .ok_or_else(|| EventError::NotJson("expected an object".into()))?;
    match obj.get("tool_name") {
        Some(Value::String(s)) if !s.is_empty() => {}
        _ => return Err(EventError::MissingField("tool_name")),
    }
    match obj.get("tool_input") {
        Some(Value::Object(_)) => {}
        _ => return Err(EventError::MissingField("tool_input")),
    }
    serde_json::from_value(value).map_err(|e| EventError::NotJson(e.to_string()))
}

/// The server and tool of an MCP tool name, `mcp__<server>__<tool>`; a name with no second
/// `__` is the server alone (tool `""`). `None` for a tool that is not an MCP tool.
pub fn mcp_parts(tool: &str) -> Option<(&str, &str)> {
    let rest = tool.strip_prefix("mcp__")?;
    Some(rest.split_once("__").unwrap_or((rest, "")))
}

impl HookEvent {
    /// A PreToolUse for a hypothetical call (`check`, `explain`, `allow`, `policy validate`).
    pub fn hypothetical(
        session_id: &str,
        cwd: &std::path::Path,
        tool: String,
        input: Value,
    ) -> HookEvent {
        HookEvent {
            session_id: session_id.into(),
            cwd: Some(cwd.to_string_lossy().into_owned()),
            tool_name: tool,
            tool_input: Arc::new(input),
            ..HookEvent::unreadable()
        }
    }

    /// Stands in for an event that could not be read, so its refusal can still be recorded.
    pub fn unreadable() -> HookEvent {
        HookEvent {
            session_id: String::new(),
            transcript_path: None,
            cwd: None,
            permission_mode: None,
            hook_event_name: "PreToolUse".into(),
            tool_name: "(unreadable)".into(),
            tool_input: Arc::new(Value::Null),
            tool_use_id: None,
            tool_response: None,
            agent_id: None,
        }
    }

    /// True for an event after the tool ran (`PostToolUse`, or `PostToolUseFailure` when a
    /// user installs palisade there too): recorded only, never judged as a request.
    pub fn is_post(&self) -> bool {
        matches!(
            self.hook_event_name.as_str(),
            "PostToolUse" | "PostToolUseFailure"
        )
    }

    /// A string field of `tool_input`, if present.
    pub fn input_str(&self, key: &str) -> Option<&str> {
        self.tool_input.get(key).and_then(Value::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_documented_example() {
        let ev = parse_event(br#"{"session_id":"abc","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_use_id":"t1","new_field":1}"#).unwrap();
        assert_eq!(ev.tool_name, "Bash");
        assert_eq!(ev.input_str("command"), Some("npm test"));
    }

    #[test]
    fn after_the_tool_events_are_posts() {
        let ev = |name: &str| {
            parse_event(
                format!(r#"{{"hook_event_name":"{name}","tool_name":"Bash","tool_input":{{}}}}"#)
                    .as_bytes(),
            )
            .unwrap()
        };
        assert!(ev("PostToolUse").is_post());
        assert!(ev("PostToolUseFailure").is_post());
        assert!(!ev("PreToolUse").is_post());
    }

    #[test]
    fn refuses_bad_input() {
        assert_eq!(parse_event(b""), Err(EventError::Empty));
        assert_eq!(parse_event(b"  \n"), Err(EventError::Empty));
        assert_eq!(parse_event(&[0xff, 0xfe]), Err(EventError::NotUtf8));
        assert!(matches!(parse_event(b"{"), Err(EventError::NotJson(_))));
        assert!(matches!(parse_event(b"[1]"), Err(EventError::NotJson(_))));
        assert_eq!(
            parse_event(br#"{"tool_input":{}}"#),
            Err(EventError::MissingField("tool_name"))
        );
        assert_eq!(
            parse_event(br#"{"tool_name":"Bash","tool_input":"rm -rf /"}"#),
            Err(EventError::MissingField("tool_input"))
        );
        let big = vec![b' '; MAX_EVENT_BYTES + 1];
        assert!(matches!(
            parse_event(&big),
            Err(EventError::TooLarge { .. })
        ));
    }
}
