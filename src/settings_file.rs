//! Claude Code settings files (`settings.json`): which ones apply, reading them strictly, adding
//! or removing palisade's hook groups without disturbing anything else, and writing them back
//! atomically with a backup.
//!
//! palisade's handlers are recognised by shape, not by a marker key (Claude Code validates its
//! settings, and an unknown key could one day be rejected): a `command` handler whose `command`
//! is a file named `palisade` (or `palisade.exe`) and whose `args` are exactly `["hook"]`. That is
//! what `palisade init` writes, and what `palisade init --uninstall` removes.

use serde_json::{Map, Value};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The `timeout` (seconds) `init` gives each handler: well above the hook's own deadline, so
/// palisade always answers (and denies on its deadline) before Claude Code gives up on it.
pub const HOOK_TIMEOUT_S: u64 = 30;

/// The hook events palisade is installed on: `PreToolUse` decides, `PostToolUse` feeds the ledger.
pub const HOOK_EVENTS: [&str; 2] = ["PreToolUse", "PostToolUse"];

/// Which settings file, in Claude Code's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SettingsScope {
    /// `~/.claude/settings.json` (or under `CLAUDE_CONFIG_DIR`).
    User,
    /// `<project>/.claude/settings.json`.
    Project,
    /// `<project>/.claude/settings.local.json`.
    Local,
    /// `managed-settings.json` and `managed-settings.d/*.json` (set by an administrator).
    Managed,
}

impl SettingsScope {
    /// A short lowercase name for messages and JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            SettingsScope::User => "user",
            SettingsScope::Project => "project",
            SettingsScope::Local => "local",
            SettingsScope::Managed => "managed",
        }
    }
}

/// One settings file that applies, with its scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsPath {
    pub scope: SettingsScope,
    pub path: PathBuf,
}

/// Where managed (administrator) settings live on this platform.
pub fn managed_dir() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode")
    } else if cfg!(windows) {
        PathBuf::from(r"C:\Program Files\ClaudeCode")
    } else {
        PathBuf::from("/etc/claude-code")
    }
}

/// The user settings file under Claude Code's config dir.
pub fn user_settings(claude_dir: &Path) -> PathBuf {
    claude_dir.join("settings.json")
}

/// The project settings file (`local` selects `settings.local.json`).
pub fn project_settings(project_dir: &Path, local: bool) -> PathBuf {
    let name = if local {
        "settings.local.json"
    } else {
        "settings.json"
    };
    project_dir.join(".claude").join(name)
}

/// Every settings file that applies to a session started in `project_dir`, in the order
/// user, project, local, managed (the managed drop-in files sorted by name, as Claude Code
/// merges them). Files that do not exist are listed too; callers skip them.
pub fn applicable(claude_dir: &Path, project_dir: &Path, managed_dir: &Path) -> Vec<SettingsPath> {
    let mut out = vec![
        SettingsPath {
            scope: SettingsScope::User,
            path: user_settings(claude_dir),
        },
        SettingsPath {
            scope: SettingsScope::Project,
            path: project_settings(project_dir, false),
        },
        SettingsPath {
            scope: SettingsScope::Local,
            path: project_settings(project_dir, true),
        },
        SettingsPath {
            scope: SettingsScope::Managed,
            path: managed_dir.join("managed-settings.json"),
        },
    ];
    if let Ok(entries) = std::fs::read_dir(managed_dir.join("managed-settings.d")) {
        let mut dropins: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        dropins.sort();
        out.extend(dropins.into_iter().map(|path| SettingsPath {
            scope: SettingsScope::Managed,
            path,
        }));
    }
    out
}

/// Why a settings file could not be read or written.
#[derive(Debug)]
pub enum SettingsError {
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// Not JSON: the file is left untouched.
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// JSON, but not the shape Claude Code expects (`hooks` not an object, …).
    Shape { path: PathBuf, message: String },
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingsError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            SettingsError::Syntax {
                path,
                line,
                column,
                message,
            } => write!(
                f,
                "{}:{line}:{column}: not valid JSON ({message}); fix the file by hand, \
                 palisade never rewrites a settings file it cannot parse",
                path.display()
            ),
            SettingsError::Shape { path, message } => write!(
                f,
                "{}: {message}; fix the file by hand, palisade never rewrites a settings file \
                 it does not understand",
                path.display()
            ),
        }
    }
}

impl std::error::Error for SettingsError {}

/// A settings file read into memory, remembering how it looked so it can be written back in
/// the same style (indentation, final newline) and diffed.
#[derive(Debug, Clone)]
pub struct SettingsDoc {
    pub path: PathBuf,
    /// False when the file did not exist (it is then created on write).
    pub existed: bool,
    /// The text as read (empty for a missing file).
    pub original: String,
    /// The document; always a JSON object.
    pub value: Value,
    original_value: Value,
    indent: String,
    trailing_newline: bool,
}

impl SettingsDoc {
    /// Reads and parses a settings file. A missing or empty file is an empty object; anything
    /// that is not a JSON object (or has a `hooks` of the wrong shape) is an error naming the
    /// place.
    pub fn read(path: &Path) -> Result<SettingsDoc, SettingsError> {
        let (existed, original) = match std::fs::read(path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(s) => (true, s),
                Err(_) => {
                    return Err(SettingsError::Shape {
                        path: path.to_path_buf(),
                        message: "the file is not valid UTF-8".into(),
                    });
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (false, String::new()),
            Err(error) => {
                return Err(SettingsError::Io {
                    path: path.to_path_buf(),
                    error,
                });
            }
        };
        tracing::debug!(path = %path.display(), existed, bytes = original.len(), "read settings");
        let value = SettingsDoc::parse(path, &original)?;
        Ok(SettingsDoc {
            path: path.to_path_buf(),
            existed,
            indent: detect_indent(&original),
            trailing_newline: original.is_empty() || original.ends_with('\n'),
            original,
            original_value: value.clone(),
            value,
        })
    }

    /// Parses settings text; `path` is only used in errors.
    pub fn parse(path: &Path, text: &str) -> Result<Value, SettingsError> {
        // A byte-order mark is legal in files written by some Windows editors.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.trim().is_empty() {
            return Ok(Value::Object(Map::new()));
        }
        let value: Value = serde_json::from_str(text).map_err(|e| SettingsError::Syntax {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        })?;
        let shape = |message: String| SettingsError::Shape {
            path: path.to_path_buf(),
            message,
        };
        let Value::Object(map) = &value else {
            return Err(shape("the top level is not a JSON object".into()));
        };
        if let Some(hooks) = map.get("hooks") {
            let Value::Object(events) = hooks else {
                return Err(shape("`hooks` is not an object".into()));
            };
            for event in HOOK_EVENTS {
                if let Some(groups) = events.get(event)
                    && !groups.is_array()
                {
                    return Err(shape(format!("`hooks.{event}` is not an array")));
                }
            }
        }
        Ok(value)
    }

    /// True when the document differs (in meaning) from what was read.
    pub fn changed(&self) -> bool {
        self.value != self.original_value
    }

    /// The document as it would be written: the original indentation and final newline kept.
    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(self.indent.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
        // Serialising a Value into memory cannot fail.
        let _ = serde::Serialize::serialize(&self.value, &mut ser);
        let mut text = String::from_utf8(buf).unwrap_or_default();
        if self.trailing_newline {
            text.push('\n');
        }
        text
    }

    /// A unified diff from the file as read to the file as it would be written.
    pub fn diff(&self) -> String {
        let new = self.render();
        let old_name = if self.existed {
            format!("{} (current)", self.path.display())
        } else {
            "/dev/null".to_string()
        };
        let new_name = format!("{} (after)", self.path.display());
        similar::TextDiff::from_lines(&self.original, &new)
            .unified_diff()
            .context_radius(3)
            .header(&old_name, &new_name)
            .to_string()
    }

    /// Writes the document: a backup of the existing file first, then the new text atomically
    /// (temp file + rename) with the old file mode. Returns the backup's path. A symlinked
    /// settings file (dotfile managers do this) is written through, so the link survives.
    pub fn write(&self) -> Result<Option<PathBuf>, SettingsError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |error| SettingsError::Io { path, error }
        };
        let target = match std::fs::symlink_metadata(&self.path) {
            Ok(m) if m.file_type().is_symlink() => {
                std::fs::canonicalize(&self.path).map_err(io(&self.path))?
            }
            _ => self.path.clone(),
        };
        // Re-read right before writing: a file that changed since it was read (Claude Code
        // writes settings too) is not overwritten with a stale merge.
        let now = match std::fs::read(&target) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io(&target)(e)),
        };
        if now != self.original {
            return Err(SettingsError::Io {
                path: target,
                error: std::io::Error::other(
                    "the file changed while palisade was editing it; run the command again",
                ),
            });
        }
        let backup = if self.existed {
            let bak = backup_path(&target);
            std::fs::copy(&target, &bak).map_err(io(&bak))?;
            Some(bak)
        } else {
            None
        };
        tracing::info!(path = %target.display(), backup = ?backup, "writing settings");
        write_atomic(&target, self.render().as_bytes()).map_err(io(&target))?;
        Ok(backup)
    }
}

/// serde_json appends " at line L column C"; the error already carries them as fields.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// The indentation unit of a pretty-printed JSON text (two spaces when there is none).
fn detect_indent(text: &str) -> String {
    text.lines()
        .skip(1)
        .find_map(|line| {
            let ws: String = line
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect();
            (!ws.is_empty() && line.len() > ws.len()).then_some(ws)
        })
        .unwrap_or_else(|| "  ".to_string())
}

/// `settings.json.bak`, or `settings.json.bak.<UTC timestamp>` when that exists already.
pub fn backup_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "settings.json".into());
    let plain = path.with_file_name(format!("{name}.bak"));
    if !plain.exists() {
        return plain;
    }
    let stamp = utc_timestamp();
    let mut candidate = path.with_file_name(format!("{name}.bak.{stamp}"));
    let mut n = 1;
    while candidate.exists() {
        candidate = path.with_file_name(format!("{name}.bak.{stamp}-{n}"));
        n += 1;
    }
    candidate
}

/// `YYYYMMDDTHHMMSSZ` for now (no date crate needed for one format).
fn utc_timestamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Writes `bytes` to `path` through a temp file in the same directory and a rename, so a
/// crash never leaves a half-written settings file; keeps the existing file's permissions.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir)?;
    let perms = std::fs::metadata(path).ok().map(|m| m.permissions());
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.palisade-{}.tmp", std::process::id()));
    let result = (|| {
        let _ = std::fs::remove_file(&tmp);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        if let Some(p) = perms {
            std::fs::set_permissions(&tmp, p)?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The handler `init` installs for `binary` (exec form: no shell, no quoting to get wrong).
pub fn handler_for(binary: &Path) -> Value {
    serde_json::json!({
        "type": "command",
        "command": binary.to_string_lossy(),
        "args": ["hook"],
        "timeout": HOOK_TIMEOUT_S,
    })
}

/// True for a handler `init` wrote (for any palisade binary): `command` handler, exec form,
/// a `command` file named `palisade`, `args` exactly `["hook"]`.
pub fn is_palisade_handler(handler: &Value) -> bool {
    handler.get("type").and_then(Value::as_str) == Some("command")
        && handler
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(names_palisade)
        && handler
            .get("args")
            .and_then(Value::as_array)
            .is_some_and(|a| a.len() == 1 && a.first().and_then(Value::as_str) == Some("hook"))
}

fn names_palisade(command: &str) -> bool {
    Path::new(command)
        .file_name()
        .is_some_and(|n| n == "palisade" || n == "palisade.exe")
}

/// True when a group's matcher lets every tool through (absent, empty or `*`).
pub fn matches_all(group: &Value) -> bool {
    match group.get("matcher") {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty() || s == "*",
        Some(_) => false,
    }
}

/// One hook handler that runs palisade, as found in a settings file.
#[derive(Debug, Clone, PartialEq)]
pub struct PalisadeHandler {
    pub event: String,
    /// The group's matcher (`None` = every tool).
    pub matcher: Option<String>,
    /// The executable (exec form) or the whole command line (shell form).
    pub command: String,
    pub args: Vec<String>,
    pub timeout_s: Option<f64>,
    /// Shell form (`"command": "/path/palisade hook"`, no `args`): found, but not what `init`
    /// writes and not removed by `--uninstall`.
    pub shell_form: bool,
}

impl PalisadeHandler {
    /// The executable this handler starts.
    pub fn program(&self) -> PathBuf {
        if self.shell_form {
            PathBuf::from(
                shell_words(&self.command)
                    .into_iter()
                    .next()
                    .unwrap_or_default(),
            )
        } else {
            PathBuf::from(&self.command)
        }
    }
}

/// Splits a simple shell-form command on whitespace, honouring plain quotes (enough to find
/// the program of `"/path with space/palisade" hook`).
fn shell_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Every handler in `settings` that runs palisade's hook, on any event: exec form as `init`
/// writes it, and shell form (`palisade hook` as one command line) written by hand.
pub fn palisade_handlers(settings: &Value) -> Vec<PalisadeHandler> {
    let mut out = Vec::new();
    let Some(events) = settings.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in events {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group
                .get("matcher")
                .and_then(Value::as_str)
                .filter(|_| !matches_all(group))
                .map(str::to_string);
            for h in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let Some(command) = h.get("command").and_then(Value::as_str) else {
                    continue;
                };
                let timeout_s = h.get("timeout").and_then(Value::as_f64);
                let args: Option<Vec<String>> = h.get("args").and_then(Value::as_array).map(|a| {
                    a.iter()
                        .map(|v| v.as_str().unwrap_or_default().to_string())
                        .collect()
                });
                let exec = is_palisade_handler(h);
                let shell = args.is_none() && {
                    let w = shell_words(command);
                    w.len() == 2 && names_palisade(&w[0]) && w[1] == "hook"
                };
                if exec || shell {
                    out.push(PalisadeHandler {
                        event: event.clone(),
                        matcher: matcher.clone(),
                        command: command.to_string(),
                        args: args.unwrap_or_default(),
                        timeout_s,
                        shell_form: shell,
                    });
                }
            }
        }
    }
    out
}

/// True when the file switches every hook off.
pub fn disables_all_hooks(settings: &Value) -> bool {
    settings.get("disableAllHooks").and_then(Value::as_bool) == Some(true)
}

/// Plugins named `palisade@<marketplace>` enabled in this file.
pub fn enabled_palisade_plugins(settings: &Value) -> Vec<String> {
    settings
        .get("enabledPlugins")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter(|(k, v)| k.starts_with("palisade@") && v.as_bool() == Some(true))
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// What `install` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallOutcome {
    /// Both events already run this binary from a match-all group: nothing changed.
    AlreadyInstalled,
    /// Groups were added for these events.
    Added(Vec<&'static str>),
}

fn same_binary(a: &str, b: &Path) -> bool {
    let a = Path::new(a);
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

/// Adds one match-all group per hook event running `binary hook`, unless such a group is
/// there already. Everything else in the document is left as it is.
pub fn install(settings: &mut Value, binary: &Path) -> InstallOutcome {
    let mut added = Vec::new();
    let Some(root) = settings.as_object_mut() else {
        return InstallOutcome::Added(added);
    };
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(events) = hooks.as_object_mut() else {
        return InstallOutcome::Added(added);
    };
    for event in HOOK_EVENTS {
        let groups = events
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        let present = groups.iter().any(|g| {
            matches_all(g)
                && g.get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .any(|h| {
                        is_palisade_handler(h)
                            && h.get("command")
                                .and_then(Value::as_str)
                                .is_some_and(|c| same_binary(c, binary))
                    })
        });
        if !present {
            groups.push(serde_json::json!({ "hooks": [handler_for(binary)] }));
            added.push(event);
        }
    }
    if added.is_empty() {
        InstallOutcome::AlreadyInstalled
    } else {
        InstallOutcome::Added(added)
    }
}

/// Removes every handler `init` could have written (any palisade binary, exec form), then the
/// groups, event lists and `hooks` object that this left empty — and only those. Returns how
/// many handlers were removed.
pub fn uninstall(settings: &mut Value) -> usize {
    let mut removed = 0;
    let Some(root) = settings.as_object_mut() else {
        return 0;
    };
    let Some(events) = root.get_mut("hooks").and_then(Value::as_object_mut) else {
        return 0;
    };
    let mut emptied_events = Vec::new();
    for (event, groups) in events.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        let before_groups = groups.len();
        groups.retain_mut(|group| {
            let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let before = handlers.len();
            handlers.retain(|h| !is_palisade_handler(h));
            let gone = before - handlers.len();
            removed += gone;
            !(gone > 0 && handlers.is_empty())
        });
        if groups.is_empty() && before_groups > 0 {
            emptied_events.push(event.clone());
        }
    }
    for event in emptied_events {
        events.shift_remove(&event);
    }
    if removed > 0 && events.is_empty() {
        root.shift_remove("hooks");
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn install_then_uninstall_restores_meaning() {
        let original = json!({
            "model": "opus",
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]},
            "permissions": {"allow": ["Bash(ls)"]}
        });
        let mut v = original.clone();
        let bin = Path::new("/opt/bin/palisade");
        assert_eq!(
            install(&mut v, bin),
            InstallOutcome::Added(vec!["PreToolUse", "PostToolUse"])
        );
        assert_eq!(install(&mut v, bin), InstallOutcome::AlreadyInstalled);
        assert_eq!(palisade_handlers(&v).len(), 2);
        assert_eq!(uninstall(&mut v), 2);
        assert_eq!(v, original);
        let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["model", "hooks", "permissions"]);
    }

    #[test]
    fn uninstall_keeps_foreign_handlers_in_a_shared_group() {
        let mut v = json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "/a/palisade", "args": ["hook"]},
            {"type": "command", "command": "/a/other-hook"}
        ]}]}});
        assert_eq!(uninstall(&mut v), 1);
        assert_eq!(
            v,
            json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "/a/other-hook"}]}]}})
        );
    }

    #[test]
    fn uninstall_leaves_empty_structures_it_did_not_empty() {
        let mut v = json!({"hooks": {"Stop": []}});
        assert_eq!(uninstall(&mut v), 0);
        assert_eq!(v, json!({"hooks": {"Stop": []}}));
    }

    #[test]
    fn recognises_shell_form_but_only_removes_exec_form() {
        let mut v = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "\"/my dir/palisade\" hook"}
        ]}]}});
        let found = palisade_handlers(&v);
        assert_eq!(found.len(), 1);
        assert!(found[0].shell_form);
        assert_eq!(found[0].program(), PathBuf::from("/my dir/palisade"));
        assert_eq!(found[0].matcher.as_deref(), Some("Bash"));
        assert_eq!(uninstall(&mut v), 0);
    }

    #[test]
    fn a_palisade_group_behind_a_matcher_is_not_an_install() {
        let mut v = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "/b/palisade", "args": ["hook"]}
        ]}]}});
        assert_eq!(
            install(&mut v, Path::new("/b/palisade")),
            InstallOutcome::Added(vec!["PreToolUse", "PostToolUse"])
        );
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let err =
            SettingsDoc::parse(Path::new("/s.json"), "{\n  \"a\": 1,\n  oops\n}").unwrap_err();
        match err {
            SettingsError::Syntax { line, column, .. } => assert_eq!((line, column), (3, 3)),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            SettingsDoc::parse(Path::new("/s.json"), "[]"),
            Err(SettingsError::Shape { .. })
        ));
        assert!(matches!(
            SettingsDoc::parse(Path::new("/s.json"), r#"{"hooks": {"PreToolUse": {}}}"#),
            Err(SettingsError::Shape { .. })
        ));
    }

    #[test]
    fn keeps_indentation_style() {
        assert_eq!(detect_indent("{\n    \"a\": 1\n}\n"), "    ");
        assert_eq!(detect_indent("{\n\t\"a\": 1\n}"), "\t");
        assert_eq!(detect_indent("{}"), "  ");
    }

    #[test]
    fn a_file_changed_since_it_was_read_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{}\n").unwrap();
        let mut doc = SettingsDoc::read(&path).unwrap();
        install(&mut doc.value, Path::new("/x/palisade"));
        std::fs::write(&path, "{\"model\": \"opus\"}\n").unwrap();
        assert!(doc.write().is_err());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"model\": \"opus\"}\n"
        );
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers, ["settings.json"], "no backup, no temp file");
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_454), (2026, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }
}
