//! Normalisation: one hook event turned into a `Call` the rules can reason about — a parsed
//! shell command, resolved file paths, a URL and host, or an MCP server and tool.

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

/// Turns an event into a call. Pure apart from symlink resolution in `scope`.
pub fn normalize(event: &HookEvent, scope: &Scope) -> Call {
    let input = &event.tool_input;
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
    Call {
        tool: event.tool_name.clone(),
        input: input.clone(),
        kind,
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

/// The host of an `http(s)://` URL, lowercased, without port or credentials.
pub fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        host_port.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        assert_eq!(
            url_host("https://user:pw@Example.com:8443/x?y").as_deref(),
            Some("example.com")
        );
        assert_eq!(url_host("http://[::1]:80/").as_deref(), Some("::1"));
        assert_eq!(url_host("evil.com/path").as_deref(), Some("evil.com"));
        assert_eq!(url_host("https:///x"), None);
    }
}
