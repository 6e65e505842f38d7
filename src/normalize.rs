//! Normalisation: one hook event turned into a `Call` the rules can reason about — a parsed
//! shell command, resolved file paths, a URL and host, or an MCP server and tool.

use crate::effects::{self, Effect, mcp::ToolModel};
use crate::event::HookEvent;
use crate::paths::PathResolver;
use crate::shell::{self, ShellAnalysis};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What a call does, in the terms the rules use.
#[derive(Debug, Clone, PartialEq)]
pub enum CallKind {
    /// `Bash`, `PowerShell`, `Monitor`: a command line and its analysis.
    Shell {
        command: String,
        analysis: ShellAnalysis,
    },
    /// `Read`, `Glob`, `Grep`, `LS`: paths read, resolved.
    Read { paths: Vec<PathBuf> },
    /// `Write`, `Edit`, `MultiEdit`, `NotebookEdit`: the resolved path and the new text.
    Write {
        path: PathBuf,
        content: Option<String>,
    },
    /// `WebFetch`: the URL and its host.
    Fetch { url: String, host: Option<String> },
    /// `mcp__server__tool`.
    Mcp { server: String, tool: String },
    /// Any other tool: judged by policy rules on its name and input only.
    Other,
}

/// One tool call, normalised.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub tool: String,
    pub input: Value,
    pub kind: CallKind,
    /// What the call does, computed once here (see `effects`). Empty for calls built by hand
    /// with no effects in mind; `Call::new` computes them.
    pub effects: Vec<Effect>,
}

impl Call {
    /// A call of `kind`, with its effects computed.
    pub fn new(tool: impl Into<String>, input: Value, kind: CallKind, scope: &Scope) -> Call {
        let tool = tool.into();
        let effects = effects::of_call(&tool, &input, &kind, scope);
        Call {
            tool,
            input,
            kind,
            effects,
        }
    }
}

/// Where the call runs and what must be protected: everything a rule needs besides the call.
#[derive(Debug, Clone, PartialEq)]
pub struct Scope {
    pub paths: PathResolver,
    /// The project root (`CLAUDE_PROJECT_DIR`, else the nearest ancestor of `cwd` with `.git`
    /// or `.palisade.yaml`, else `cwd`), resolved.
    pub project_root: PathBuf,
    /// Directories writes may go to without asking: project root, temp dirs, policy roots.
    pub roots: Vec<PathBuf>,
    /// palisade's own files and Claude Code's hook settings: no agent may write to them.
    pub protected: Vec<ProtectedPath>,
}

/// A path that self-protection guards, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedPath {
    pub path: PathBuf,
    /// Human name for reasons: "palisade's policy", "Claude Code settings"…
    pub what: String,
    /// Protects everything below `path` too. With a last component `*.ext` (transcripts:
    /// `projects/*.jsonl`), only files with that extension anywhere below its parent.
    pub subtree: bool,
    /// `path` is a relative tail (`.claude/settings.json`): any path ending in it is protected.
    pub suffix: bool,
}

impl Scope {
    /// The protected entry covering `path`, if any.
    pub fn protected(&self, path: &Path) -> Option<&ProtectedPath> {
        self.protected
            .iter()
            .find(|p| crate::protect::covers(p, path))
    }

    /// True when `path` lies inside one of the write roots.
    pub fn within_roots(&self, path: &Path) -> bool {
        self.roots.iter().any(|r| path.starts_with(r))
    }

    /// Resolves a path as written in a tool input or a command argument.
    pub fn resolve(&self, raw: &str) -> PathBuf {
        self.paths.resolve(raw)
    }

    /// The user's home directory.
    pub fn home(&self) -> &Path {
        &self.paths.home
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
        let m = effects::mcp::model(&event.tool_name, input, models, scope);
        return Call {
            tool: event.tool_name.clone(),
            input: input.clone(),
            kind: m.kind,
            effects: m.effects,
        };
    }
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let kind = match event.tool_name.as_str() {
        "Bash" | "PowerShell" | "Monitor" => match s("command") {
            Some(command) => CallKind::Shell {
                command: command.to_string(),
                analysis: shell::analyse(command),
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
        "Write" => write_of(s("file_path"), s("content").map(str::to_string), scope),
        "Edit" => write_of(s("file_path"), s("new_string").map(str::to_string), scope),
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
        "NotebookEdit" => write_of(
            s("notebook_path"),
            s("new_source").map(str::to_string),
            scope,
        ),
        "WebFetch" => match s("url") {
            Some(url) => CallKind::Fetch {
                url: url.to_string(),
                host: url_host(url),
            },
            None => CallKind::Other,
        },
        name if name.starts_with("mcp__") => {
            let rest = &name["mcp__".len()..];
            let (server, tool) = rest.split_once("__").unwrap_or((rest, ""));
            CallKind::Mcp {
                server: server.to_string(),
                tool: tool.to_string(),
            }
        }
        _ => CallKind::Other,
    };
    Call::new(event.tool_name.clone(), input.clone(), kind, scope)
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
