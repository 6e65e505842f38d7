//! Normalisation: one hook event turned into a `Call` the rules can reason about — a parsed
//! shell command, resolved file paths, a URL and host, or an MCP server and tool.

use crate::effects::{self, mcp::ToolModel};
use crate::event::HookEvent;
use crate::shell;
use serde_json::Value;
use std::sync::Arc;

pub use crate::call::{Call, CallKind, FileView, ProtectedPath, Scope};

impl Call {
    /// A call of `kind`, with its effects computed.
    pub fn new(
        tool: impl Into<String>,
        input: impl Into<Arc<Value>>,
        kind: CallKind,
        scope: &Scope,
    ) -> Call {
        let tool = tool.into();
        let input = input.into();
        let effects = effects::of_call(&tool, &input, &kind, scope);
        Call {
            tool,
            input,
            kind,
            effects,
        }
    }
}

/// Turns an event into a call with the built-in MCP tool models only.
pub fn normalize(event: &HookEvent, scope: &Scope) -> Call {
    normalize_with(event, scope, &[])
}

/// Turns an event into a call, its effects computed once; `models` are the policy's MCP tool
/// models, tried before the built-in ones. Pure apart from symlink resolution in `scope`.
pub fn normalize_with(event: &HookEvent, scope: &Scope, models: &[ToolModel]) -> Call {
    let input = &event.tool_input;
    if event.tool_name.starts_with("mcp__") {
        let mut m = effects::mcp::model(&event.tool_name, input, models, scope);
        effects::deferred_runs(&mut m.effects);
        return Call {
            tool: event.tool_name.clone(),
            input: event.tool_input.clone(),
            kind: m.kind,
            effects: m.effects,
        };
    }
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let kind = match event.tool_name.as_str() {
        "Bash" | "PowerShell" | "Monitor" => match s("command") {
            Some(command) => CallKind::Shell {
                command: command.to_string(),
                analysis: if event.tool_name == "PowerShell" {
                    shell::analyse_powershell(command)
                } else {
                    shell::analyse(command)
                },
            },
            None => CallKind::Other,
        },
        "Read" => read_of(s("file_path"), scope),
        "Glob" | "Grep" | "LS" => match s("path") {
            Some(p) => read_of(Some(p), scope),
            None => CallKind::Read {
                paths: vec![scope.paths.cwd.clone()],
            },
        },
        name if let Some((path, text)) = new_text_of(name, input) => {
            write_of(path, text.map(str::to_string), scope)
        }
        "MultiEdit" => {
            let content = input.get("edits").and_then(Value::as_array).map(|edits| {
                edits
                    .iter()
                    .filter_map(|e| e.get("new_string").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n")
            });
            write_of(s("file_path"), content, scope)
        }
        "WebFetch" => match s("url") {
            Some(url) => CallKind::Fetch {
                url: url.to_string(),
                host: url_host(url),
            },
            None => CallKind::Other,
        },
        name if let Some((server, tool)) = crate::event::mcp_parts(name) => CallKind::Mcp {
            server: server.to_string(),
            tool: tool.to_string(),
        },
        _ => CallKind::Other,
    };
    Call::new(
        event.tool_name.clone(),
        event.tool_input.clone(),
        kind,
        scope,
    )
}

/// The path and the new text a file tool's input names, for the tools that give the new text
/// in one field (Write, Edit, NotebookEdit); `None` for any other tool.
fn new_text_of<'i>(tool: &str, input: &'i Value) -> Option<(Option<&'i str>, Option<&'i str>)> {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    match tool {
        "Write" => Some((s("file_path"), s("content"))),
        "Edit" => Some((s("file_path"), s("new_string"))),
        "NotebookEdit" => Some((s("notebook_path"), s("new_source"))),
        _ => None,
    }
}

fn read_of(path: Option<&str>, scope: &Scope) -> CallKind {
    match path {
        Some(p) => CallKind::Read {
            paths: vec![scope.resolve(p)],
        },
        None => CallKind::Other,
    }
}

fn write_of(path: Option<&str>, content: Option<String>, scope: &Scope) -> CallKind {
    match path {
        Some(p) => CallKind::Write {
            path: scope.resolve(p),
            content,
        },
        None => CallKind::Other,
    }
}

pub use crate::vocab::url_host;
