//! `palisade doctor`: every check a user needs to trust that the firewall is really on, each
//! answered ok / warn / FAIL with the fix in one line. Most real-world hook failures are
//! installation failures that fail open, so this looks where they hide.

use crate::locations::Locations;
use crate::settings_file::{self, PalisadeHandler, SettingsDoc, SettingsScope};
use serde::Serialize;
use serde_json::json;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// Check the installation: hooks, policy, state, audit, risk backend, and a live self-test.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(after_help = "\
Examples:
  palisade doctor          human-readable report; exit 1 on any FAIL
  palisade doctor --json   the same as one JSON object, for scripts

The self-test runs the installed hook command on a sample deny and a sample pass, with a
temporary state directory, so it leaves nothing in your audit log.")]
pub struct DoctorArgs {
    /// Print one JSON object (`ok`, `summary`, `checks`) instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Warn,
    Fail,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
        }
    }

    fn colour(self) -> &'static str {
        match self {
            Status::Ok => "\x1b[32m",
            Status::Warn => "\x1b[33m",
            Status::Fail => "\x1b[1;31m",
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// What was checked (`binary`, `hooks`, `policy`, `self-test`…).
    pub name: String,
    pub status: Status,
    pub detail: String,
    /// The fix, in one line (absent for `ok`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    fn ok(name: &str, detail: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            status: Status::Ok,
            detail: detail.into(),
            fix: None,
        }
    }

    fn warn(name: &str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            status: Status::Warn,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }

    fn fail(name: &str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            status: Status::Fail,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }
}

/// Where doctor looks (separate from the process so tests can point it anywhere).
#[derive(Debug, Clone)]
pub struct DoctorEnv {
    pub locations: Locations,
    /// The directory a session would start in (project and local settings live under it).
    pub cwd: PathBuf,
    /// The project root for the project policy (`CLAUDE_PROJECT_DIR`, else found from `cwd`).
    pub project_root: PathBuf,
    pub managed_dir: PathBuf,
}

impl DoctorEnv {
    /// From the process environment and current directory.
    pub fn from_process() -> std::io::Result<DoctorEnv> {
        let cwd = std::env::current_dir()?;
        let claude_project = std::env::var_os("CLAUDE_PROJECT_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        Ok(DoctorEnv {
            locations: Locations::from_env(),
            project_root: Locations::project_root(&cwd, claude_project.as_deref()),
            cwd,
            managed_dir: settings_file::managed_dir(),
        })
    }
}

/// Runs doctor for the process; exit 1 on any FAIL.
pub fn run(args: &DoctorArgs) -> ExitCode {
    let env = match DoctorEnv::from_process() {
        Ok(env) => env,
        Err(e) => {
            eprintln!("palisade doctor: cannot read the current directory: {e}");
            return ExitCode::from(1);
        }
    };
    let checks = checks(&env);
    let mut out = std::io::stdout().lock();
    if args.json {
        let _ = writeln!(out, "{}", report_json(&checks));
    } else {
        let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let _ = write!(out, "{}", report_text(&checks, colour));
    }
    if checks.iter().any(|c| c.status == Status::Fail) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The report as one JSON object: `ok` (no FAIL), `summary` counts, `checks`.
pub fn report_json(checks: &[Check]) -> serde_json::Value {
    let count = |s: Status| checks.iter().filter(|c| c.status == s).count();
    json!({
        "ok": count(Status::Fail) == 0,
        "summary": {"ok": count(Status::Ok), "warn": count(Status::Warn), "fail": count(Status::Fail)},
        "checks": checks,
    })
}

/// The report as text: one line per check, the fix indented under it, a summary last.
pub fn report_text(checks: &[Check], colour: bool) -> String {
    let mut s = String::new();
    for c in checks {
        let label = if colour {
            format!("{}{:<4}\x1b[0m", c.status.colour(), c.status.label())
        } else {
            format!("{:<4}", c.status.label())
        };
        s.push_str(&format!("{label}  {}: {}\n", c.name, c.detail));
        if let Some(fix) = &c.fix {
            s.push_str(&format!("      fix: {fix}\n"));
        }
    }
    let count = |st: Status| checks.iter().filter(|c| c.status == st).count();
    s.push_str(&format!(
        "\n{} ok, {} warning(s), {} failure(s)\n",
        count(Status::Ok),
        count(Status::Warn),
        count(Status::Fail)
    ));
    s
}

/// Every check, in the order a user would fix them.
pub fn checks(env: &DoctorEnv) -> Vec<Check> {
    let mut out = Vec::new();
    let exe = std::env::current_exe().ok();
    out.extend(binary_checks(exe.as_deref()));
    let installed = hook_checks(env, &mut out);
    let policy = policy_check(env, &mut out);
    out.push(writable_check(
        "state dir",
        &env.locations.data_dir,
        "make it writable, or point PALISADE_DATA_DIR at a writable directory",
    ));
    let audit_file = audit_file(policy.as_ref(), &env.locations);
    match audit_file.parent() {
        Some(dir) => out.push(writable_check(
            "audit dir",
            dir,
            "make it writable, or set `audit.file` in your policy to a writable place",
        )),
        None => out.push(Check::fail(
            "audit dir",
            format!("{} has no directory", audit_file.display()),
            "set `audit.file` in your policy to a file path",
        )),
    }
    out.push(audit_chain_check(&audit_file));
    out.push(bypass_check(&audit_file));
    out.push(ledger_check(&env.locations.data_dir));
    out.extend(risk_check(policy.as_ref()));
    out.push(broker_check(&env.locations.data_dir));
    out.extend(self_test(
        installed.as_ref(),
        exe.as_deref(),
        policy.as_ref(),
        &env.locations,
    ));
    out
}

fn binary_checks(exe: Option<&Path>) -> Vec<Check> {
    let version = env!("CARGO_PKG_VERSION");
    let mut out = Vec::new();
    let Some(exe) = exe else {
        out.push(Check::warn(
            "binary",
            format!("palisade {version}, path unknown"),
            "run doctor as the installed binary (`~/.cargo/bin/palisade doctor`)",
        ));
        return out;
    };
    out.push(Check::ok(
        "binary",
        format!("palisade {version} at {}", exe.display()),
    ));
    match find_on_path("palisade") {
        None => out.push(Check::warn(
            "PATH",
            "`palisade` is not on PATH (the hooks use an absolute path, so only you miss it)",
            "`cargo install --path .` puts it in ~/.cargo/bin; add that to PATH",
        )),
        Some(p) if same_file(&p, exe) => {
            out.push(Check::ok("PATH", format!("`palisade` is {}", p.display())))
        }
        Some(p) => out.push(Check::warn(
            "PATH",
            format!(
                "`palisade` on PATH is {}, not this binary ({})",
                p.display(),
                exe.display()
            ),
            "remove the stale copy, or run the one the hooks use",
        )),
    }
    out
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file() && is_executable(p))
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// The init flag that targets a scope, for fixes.
fn scope_flag(scope: SettingsScope) -> &'static str {
    match scope {
        SettingsScope::Project => " --project",
        SettingsScope::Local => " --local",
        _ => "",
    }
}

/// The hook command the self-test runs: the first healthy PreToolUse handler found.
#[derive(Debug, Clone)]
struct InstalledHook {
    handler: PalisadeHandler,
    file: PathBuf,
}

/// Checks every settings file that applies; returns the installed PreToolUse hook, if any.
fn hook_checks(env: &DoctorEnv, out: &mut Vec<Check>) -> Option<InstalledHook> {
    let files = settings_file::applicable(&env.locations.claude_dir, &env.cwd, &env.managed_dir);
    let mut installed: Option<InstalledHook> = None;
    let mut any_pre = false;
    let mut any_post = false;
    let mut plugins = Vec::new();
    let mut managed_only = None;
    let mut managed_has_palisade = false;
    let mut programs: Vec<PathBuf> = Vec::new();
    let mut seen_any_file = false;
    for file in &files {
        let shown = file.path.display().to_string();
        let name = format!("{} settings", file.scope.as_str());
        let doc = match SettingsDoc::read(&file.path) {
            Ok(d) if d.existed => d,
            Ok(_) => continue,
            Err(e) => {
                out.push(Check::fail(
                    &name,
                    e.to_string(),
                    format!("repair {shown} (Claude Code cannot use a broken settings file)"),
                ));
                continue;
            }
        };
        seen_any_file = true;
        if settings_file::disables_all_hooks(&doc.value) {
            out.push(Check::fail(
                &name,
                format!("{shown} sets \"disableAllHooks\": true: no hook runs, palisade is off"),
                format!("remove \"disableAllHooks\" from {shown}"),
            ));
        }
        if file.scope == SettingsScope::Managed
            && doc
                .value
                .get("allowManagedHooksOnly")
                .and_then(|v| v.as_bool())
                == Some(true)
        {
            managed_only = Some(shown.clone());
        }
        for p in settings_file::enabled_palisade_plugins(&doc.value) {
            plugins.push(format!("{p} ({shown})"));
        }
        let handlers = settings_file::palisade_handlers(&doc.value);
        if handlers.is_empty() {
            continue;
        }
        if file.scope == SettingsScope::Managed {
            managed_has_palisade = true;
        }
        let fix_reinstall = format!(
            "`palisade init --uninstall{flag}` then `palisade init{flag}` with the installed binary",
            flag = scope_flag(file.scope)
        );
        for h in handlers {
            let program = h.program();
            let what = format!(
                "{shown}: {}{} → {}",
                h.event,
                h.matcher
                    .as_deref()
                    .map(|m| format!(" (matcher {m:?})"))
                    .unwrap_or_default(),
                if h.shell_form {
                    h.command.clone()
                } else {
                    format!("{} {}", h.command, h.args.join(" "))
                }
            );
            let pre = h.event == "PreToolUse";
            if !program.is_absolute() {
                out.push(Check::warn(
                    "hook",
                    format!("{what}: the command is not an absolute path, so it depends on PATH"),
                    fix_reinstall.clone(),
                ));
            } else if !program.exists() {
                out.push(Check::fail(
                    "hook",
                    format!(
                        "{what}: {} does not exist, so Claude Code cannot start the hook and \
                         lets every call through",
                        program.display()
                    ),
                    fix_reinstall.clone(),
                ));
                continue;
            } else if !is_executable(&program) {
                out.push(Check::fail(
                    "hook",
                    format!(
                        "{what}: {} is not executable, so the hook cannot start and every call \
                         goes through",
                        program.display()
                    ),
                    format!("chmod +x {}", program.display()),
                ));
                continue;
            }
            match h.timeout_s {
                None => out.push(Check::warn(
                    "hook",
                    format!("{what}: no timeout (Claude Code waits up to 600 s)"),
                    fix_reinstall.clone(),
                )),
                Some(t) if t <= crate::hook::DEADLINE.as_secs_f64() => out.push(Check::warn(
                    "hook",
                    format!(
                        "{what}: timeout {t} s is not above palisade's own {} s deadline; a \
                         killed hook lets the call through",
                        crate::hook::DEADLINE.as_secs()
                    ),
                    fix_reinstall.clone(),
                )),
                Some(t) => {
                    if pre && h.matcher.is_some() {
                        out.push(Check::warn(
                            "hook",
                            format!("{what}: only tools matching the matcher reach palisade"),
                            fix_reinstall.clone(),
                        ));
                    } else {
                        out.push(Check::ok("hook", format!("{what} (timeout {t} s)")));
                    }
                }
            }
            let first_time = !programs.iter().any(|p| same_file(p, &program));
            if first_time && crate::cli::init::in_cargo_target(&program) {
                out.push(Check::warn(
                    "hook",
                    format!(
                        "{} is in a cargo target/ directory: `cargo clean` deletes it and the \
                         firewall silently stops",
                        program.display()
                    ),
                    "`cargo install --path .` then `~/.cargo/bin/palisade init` (after --uninstall)",
                ));
            }
            if first_time {
                programs.push(program.clone());
            }
            if pre {
                any_pre = true;
                if installed.is_none() {
                    installed = Some(InstalledHook {
                        handler: h.clone(),
                        file: file.path.clone(),
                    });
                }
            } else if h.event == "PostToolUse" {
                any_post = true;
            }
        }
    }
    if !seen_any_file {
        out.push(Check::fail(
            "hooks",
            "no Claude Code settings file exists, so palisade is not installed",
            "palisade init",
        ));
        return installed;
    }
    if !any_pre && plugins.is_empty() {
        out.push(Check::fail(
            "hooks",
            "no settings file runs palisade on PreToolUse: the firewall is not installed",
            "palisade init",
        ));
    } else if !any_pre {
        out.push(Check::ok(
            "hooks",
            format!("installed as a plugin: {}", plugins.join(", ")),
        ));
    } else if !any_post && plugins.is_empty() {
        out.push(Check::warn(
            "hooks",
            "no PostToolUse hook: the ledger never learns what the tools actually did",
            "palisade init (adds the missing group)",
        ));
    }
    if any_pre && !plugins.is_empty() {
        out.push(Check::warn(
            "hooks",
            format!(
                "palisade runs twice: as the plugin {} and from hooks in the settings; every call \
                 is decided and logged twice",
                plugins.join(", ")
            ),
            "keep one: `palisade init --uninstall` (in the scope that has the hooks) to keep the \
             plugin, or `claude plugin uninstall palisade@<marketplace>` to keep the hooks",
        ));
    }
    if programs.len() > 1 {
        let list: Vec<String> = programs.iter().map(|p| p.display().to_string()).collect();
        out.push(Check::warn(
            "hooks",
            format!(
                "more than one palisade binary is installed ({}): each decides and records",
                list.join(", ")
            ),
            "keep one: `palisade init --uninstall` in the scope of the stale one",
        ));
    }
    if let Some(file) = managed_only
        && !managed_has_palisade
    {
        out.push(Check::fail(
            "hooks",
            format!(
                "{file} sets \"allowManagedHooksOnly\": true and runs no palisade hook, so yours \
                 are ignored"
            ),
            "ask your administrator to add palisade to the managed settings (see examples/)",
        ));
    }
    installed
}

/// Loads the layered policy the hook would load for this directory.
fn policy_check(env: &DoctorEnv, out: &mut Vec<Check>) -> Option<crate::policy::Policy> {
    match crate::policy::load(&env.locations, &env.project_root) {
        Ok(policy) => {
            let sources: Vec<String> = policy
                .sources
                .iter()
                .map(|s| s.path.display().to_string())
                .collect();
            let mut detail = format!("loads from {}", sources.join(" ← "));
            if !env.locations.user_policy.exists() {
                detail.push_str(&format!(
                    " (no user policy at {})",
                    env.locations.user_policy.display()
                ));
            }
            out.push(Check::ok("policy", detail));
            let (passed, failures) =
                super::policy::run_examples(&policy, &env.locations, &env.project_root);
            for f in &failures {
                out.push(Check::fail(
                    "policy examples",
                    f.clone(),
                    "fix the rule or its example; `palisade policy validate` runs them",
                ));
            }
            if failures.is_empty() && passed > 0 {
                out.push(Check::ok(
                    "policy examples",
                    format!("{passed} rule examples pass"),
                ));
            }
            for what in &policy.ignored {
                out.push(Check::warn(
                    "policy",
                    format!("the project policy tried to loosen the user policy (ignored): {what}"),
                    "remove it from the project's .palisade.yaml, or move it to your user policy",
                ));
            }
            Some(policy)
        }
        Err(e) => {
            out.push(Check::fail(
                "policy",
                format!("{e} — until it loads, every call is denied"),
                format!(
                    "fix {}{}",
                    e.path.display(),
                    e.line.map(|l| format!(" at line {l}")).unwrap_or_default()
                ),
            ));
            None
        }
    }
}

/// Creates the directory if needed, then creates and removes a probe file in it.
fn writable_check(name: &str, dir: &Path, fix: &str) -> Check {
    let probe = dir.join(format!(".palisade-doctor-{}", std::process::id()));
    let result = std::fs::create_dir_all(dir).and_then(|()| {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
            .and_then(|mut f| f.write_all(b"probe"))
            .and_then(|()| std::fs::remove_file(&probe))
    });
    match result {
        Ok(()) => Check::ok(name, format!("{} is writable", dir.display())),
        Err(e) => Check::fail(
            name,
            format!(
                "{} is not writable ({e}): every call would be refused",
                dir.display()
            ),
            fix,
        ),
    }
}

/// The audit file in effect (the policy's `audit.file`, else `<state dir>/audit.jsonl`).
fn audit_file(policy: Option<&crate::policy::Policy>, loc: &Locations) -> PathBuf {
    let defaults = crate::policy::audit_settings::AuditSettings::default();
    crate::policy::audit_settings::audit_file(policy.map(|p| &p.audit).unwrap_or(&defaults), loc)
}

fn audit_chain_check(file: &Path) -> Check {
    if !file.exists() {
        return Check::ok(
            "audit chain",
            format!(
                "{} does not exist yet (no decisions recorded)",
                file.display()
            ),
        );
    }
    match crate::audit::verify(file) {
        Ok(summary) => Check::ok(
            "audit chain",
            format!("{}: {} entries, intact", file.display(), summary.entries),
        ),
        Err(e) => Check::fail(
            "audit chain",
            format!("{}: {e}", file.display()),
            "keep the file as evidence; `palisade audit verify` shows where it breaks",
        ),
    }
}

/// Calls the PreToolUse hook never saw (audit bypass alerts: a PostToolUse with no decision
/// recorded) in the last 30 days: hooks disabled by a settings layer, a PreToolUse matcher
/// narrower than the PostToolUse one, a hook killed before it answered. A FAIL when the last
/// one is under a day old, a warning when older.
fn bypass_check(file: &Path) -> Check {
    const DAY_MS: u64 = 86_400_000;
    if !file.exists() {
        return Check::ok("bypass", "no audit log yet");
    }
    let now = crate::audit::append::now_ms();
    let alerts = match crate::audit::usage::alerts(file, Some(now.saturating_sub(30 * DAY_MS))) {
        Ok(a) => a,
        Err(e) => {
            return Check::warn(
                "bypass",
                format!("{} could not be read ({e})", file.display()),
                "make the audit log readable; `palisade audit --stats` lists bypassed calls",
            );
        }
    };
    let Some(last) = alerts.last_bypass_at else {
        return Check::ok(
            "bypass",
            "every call in the last 30 days had its PreToolUse decision recorded",
        );
    };
    let mut tools: Vec<&str> = alerts
        .bypass
        .iter()
        .flat_map(|s| s.tools.iter().map(String::as_str))
        .collect();
    tools.sort_unstable();
    tools.dedup();
    let detail = format!(
        "{} call(s) in the last 30 days ran with no PreToolUse decision recorded: the hook did \
         not run before the tool (tools: {}; last {})",
        alerts.bypassed_calls,
        tools.join(", "),
        crate::audit::tail::format_time(last)
    );
    let fix = "install the PreToolUse hook with no matcher in every settings layer (`palisade \
               init`), remove any disableAllHooks, and see `palisade audit --stats` for the sessions";
    if now.saturating_sub(last) < DAY_MS {
        Check::fail("bypass", detail, fix)
    } else {
        Check::warn("bypass", detail, fix)
    }
}

/// The ledger: one SQLite store per session under `<state dir>/ledger` (JSON files of an
/// earlier version until migrated). A ledger that cannot be
/// read or parsed makes the hook refuse that session's calls (forgetting what the agent wrote
/// would let a write-then-run chain through), so each file is read and parsed here.
fn ledger_check(data_dir: &Path) -> Check {
    const MAX_LEDGER_BYTES: u64 = 64 * 1024 * 1024;
    let dir = data_dir.join("ledger");
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Check::ok(
                "ledger",
                format!("{} does not exist yet (no session recorded)", dir.display()),
            );
        }
        Err(e) => {
            return Check::fail(
                "ledger",
                format!("{} is not readable ({e})", dir.display()),
                format!("make {} readable and writable by you", dir.display()),
            );
        }
    };
    let mut files = 0;
    let mut broken = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "db") {
            files += 1;
            if let Err(e) = crate::ledger::read_file(&path) {
                broken.push(e.to_string());
            }
            continue;
        }
        // A JSON ledger of an earlier version, migrated when its session next writes.
        if !path.is_file() || path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        files += 1;
        let problem = match std::fs::metadata(&path) {
            Ok(m) if m.len() > MAX_LEDGER_BYTES => Some("larger than 64 MiB".to_string()),
            Ok(_) => match std::fs::read(&path) {
                Err(e) => Some(e.to_string()),
                Ok(bytes) => serde_json::from_slice::<serde_json::Value>(&bytes)
                    .err()
                    .map(|e| format!("not valid JSON ({e})")),
            },
            Err(e) => Some(e.to_string()),
        };
        if let Some(p) = problem {
            broken.push(format!("{}: {p}", path.display()));
        }
    }
    if broken.is_empty() {
        Check::ok(
            "ledger",
            format!("{} readable ({files} session file(s))", dir.display()),
        )
    } else {
        Check::fail(
            "ledger",
            format!(
                "{} of {files} ledger file(s) cannot be used, and the hook refuses the calls of \
                 those sessions: {}",
                broken.len(),
                broken.join("; ")
            ),
            "remove the broken file(s) if their sessions are over; otherwise restore them",
        )
    }
}

fn risk_check(policy: Option<&crate::policy::Policy>) -> Vec<Check> {
    let Some(policy) = policy else {
        return vec![Check::warn(
            "risk backend",
            "not checked: the policy did not load",
            "fix the policy first",
        )];
    };
    // The risk module checks the key, sends a minimal request and times it.
    use crate::risk::CheckStatus;
    crate::risk::doctor_check(&policy.risk)
        .into_iter()
        .map(|(status, msg)| {
            let msg = msg
                .strip_prefix("risk backend: ")
                .unwrap_or(&msg)
                .to_string();
            let fix = "see the message (`palisade explain` shows the risk block)";
            match status {
                CheckStatus::Ok => Check::ok("risk backend", msg),
                CheckStatus::Warn => Check::warn("risk backend", msg, fix),
                CheckStatus::Fail => Check::fail("risk backend", msg, fix),
            }
        })
        .collect()
}

/// Whether a `palisade serve` broker runs and would be trusted by the hook.
fn broker_check(data_dir: &Path) -> Check {
    match crate::risk::broker::status(data_dir) {
        Ok(Some(socket)) => Check::ok("risk broker", format!("running on {socket}")),
        Ok(None) => Check::ok(
            "risk broker",
            "not running (optional: `palisade serve` keeps backend connections warm)",
        ),
        Err(why) => Check::warn(
            "risk broker",
            format!("a socket is present but the hook ignores it: {why}"),
            "stop whatever listens there, remove the socket, and start `palisade serve`",
        ),
    }
}

/// What a self-test run returned.
struct HookRun {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// Runs the installed hook command the way Claude Code does (same program and args, event on
/// stdin), with a throwaway state directory so nothing reaches the user's audit log.
fn run_hook(
    hook: &PalisadeHandler,
    fallback: Option<&Path>,
    sandbox: &Path,
    input: &[u8],
    limit: Duration,
) -> std::io::Result<HookRun> {
    let mut cmd = if hook.shell_form {
        let mut c = Command::new("sh");
        c.arg("-c").arg(&hook.command);
        c
    } else {
        let program = if hook.command.is_empty() {
            fallback.map(Path::to_path_buf).unwrap_or_default()
        } else {
            PathBuf::from(&hook.command)
        };
        let mut c = Command::new(program);
        c.args(&hook.args);
        c
    };
    let project = sandbox.join("project");
    std::fs::create_dir_all(&project)?;
    cmd.current_dir(&project)
        .env("PALISADE_DATA_DIR", sandbox.join("state"))
        .env("CLAUDE_PROJECT_DIR", &project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    tracing::debug!(command = ?cmd, "self-test: spawning the installed hook");
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        // A hook that exits without reading is its own answer; a broken pipe is not an error here.
        let _ = stdin.write_all(input);
    }
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(o) = stdout.as_mut() {
            let _ = o.take(1 << 20).read_to_string(&mut s);
        }
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(e) = stderr.as_mut() {
            let _ = e.take(1 << 20).read_to_string(&mut s);
        }
        s
    });
    let code = loop {
        if let Some(status) = child.try_wait()? {
            break status.code();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = start.elapsed();
    Ok(HookRun {
        code,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
        took,
    })
}

fn code_text(code: Option<i32>) -> String {
    code.map_or_else(|| "none (killed)".to_string(), |c| c.to_string())
}

fn decision(stdout: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).ok()?;
    v.pointer("/hookSpecificOutput/permissionDecision")?
        .as_str()
        .map(str::to_string)
}

fn sample_event(cwd: &Path, command: &str, n: u32) -> Vec<u8> {
    json!({
        "session_id": format!("palisade-doctor-{}", std::process::id()),
        "transcript_path": null,
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "palisade doctor self-test"},
        "tool_use_id": format!("toolu_palisade_doctor_{n}"),
    })
    .to_string()
    .into_bytes()
}

/// What this binary's own engine decides for a sample, under the user's policy and the
/// self-test's locations: the answer the installed hook should give too.
fn expected_effect(
    input: &[u8],
    policy: Option<&crate::policy::Policy>,
    loc: &Locations,
    project: &Path,
) -> Option<crate::verdict::Effect> {
    let Ok(event) = crate::event::parse_event(input) else {
        return Some(crate::verdict::Effect::Deny);
    };
    // Without a loadable policy, judge by the built-in defaults: the hook then refuses even
    // the ordinary sample, and that shows up as a failure.
    let fallback = crate::policy::Policy::default();
    let policy = policy.unwrap_or(&fallback);
    let cwd = crate::hook::event_cwd(&event);
    let scope = crate::hook::scope_for(policy, loc, &cwd, project, true);
    crate::hook::decide(policy, &event, &scope).effect
}

/// Spawns the installed hook on a malformed event, `rm -rf ~` and `ls`, timing each, and
/// compares its answers with what this binary's engine decides in-process: a malformed event
/// must be denied; the installed hook must deny what the engine denies and pass what it passes.
fn self_test(
    installed: Option<&InstalledHook>,
    exe: Option<&Path>,
    policy: Option<&crate::policy::Policy>,
    loc: &Locations,
) -> Vec<Check> {
    use crate::verdict::Effect;
    let mut out = Vec::new();
    let (hook, source) = match installed {
        Some(i) => (i.handler.clone(), i.file.display().to_string()),
        None => match exe {
            Some(exe) => (
                PalisadeHandler {
                    event: "PreToolUse".into(),
                    matcher: None,
                    command: exe.display().to_string(),
                    args: vec!["hook".into()],
                    timeout_s: Some(settings_file::HOOK_TIMEOUT_S as f64),
                    shell_form: false,
                },
                "this binary (no working hook installed)".to_string(),
            ),
            None => {
                out.push(Check::fail(
                    "self-test",
                    "no hook command to test",
                    "palisade init",
                ));
                return out;
            }
        },
    };
    let sandbox = std::env::temp_dir().join(format!(
        "palisade-doctor-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    let limit = Duration::from_secs_f64(
        hook.timeout_s
            .unwrap_or(settings_file::HOOK_TIMEOUT_S as f64)
            .clamp(1.0, 60.0),
    );
    let project = sandbox.join("project");
    let mut sandbox_loc = loc.clone();
    sandbox_loc.data_dir = sandbox.join("state");
    let cases: [(&str, Vec<u8>); 3] = [
        ("malformed event", b"{\"tool_name\": ".to_vec()),
        ("rm -rf ~", sample_event(&project, "rm -rf ~", 1)),
        ("ls", sample_event(&project, "ls", 2)),
    ];
    let name = "self-test";
    for (label, input) in cases {
        let expected = expected_effect(&input, policy, &sandbox_loc, &project);
        let run = match run_hook(&hook, exe, &sandbox, &input, limit) {
            Ok(r) => r,
            Err(e) => {
                out.push(Check::fail(
                    name,
                    format!("could not start the hook from {source}: {e}"),
                    "palisade init (the installed command must exist and be executable)",
                ));
                break;
            }
        };
        let ms = run.took.as_millis();
        let decided = decision(&run.stdout);
        let denied = run.code == Some(2) && decided.as_deref() == Some("deny");
        let blocked = run.code == Some(2) || decided.as_deref() == Some("deny");
        let got = format!(
            "exit {}, decision {}",
            code_text(run.code),
            decided.as_deref().unwrap_or("none")
        );
        let first_err = run.stderr.lines().next().unwrap_or("").to_string();
        let check = if run.code.is_none() {
            Check::fail(
                name,
                format!(
                    "{label}: the hook did not answer within {} s; Claude Code would let the \
                     call through",
                    limit.as_secs()
                ),
                "`palisade hook` must answer quickly: check the risk backend and the state dir",
            )
        } else if !matches!(run.code, Some(0) | Some(2)) {
            Check::fail(
                name,
                format!("{label}: the hook exited {got}, which Claude Code treats as a pass"),
                "reinstall palisade (`cargo install --path .`, then `palisade init`)",
            )
        } else if expected == Some(Effect::Deny) && !denied {
            Check::fail(
                name,
                format!(
                    "{label}: expected a deny (exit 2 + JSON), got {got}; the installed hook \
                     disagrees with this binary {first_err}"
                ),
                "reinstall the current palisade (`cargo install --path .`, `palisade init`)",
            )
        } else if expected != Some(Effect::Deny) && blocked {
            Check::fail(
                name,
                format!("{label}: an ordinary call was blocked ({got}): {first_err}"),
                "fix what the reason names (a broken policy denies everything)",
            )
        } else if label == "rm -rf ~" && expected != Some(Effect::Deny) {
            Check::warn(
                name,
                format!(
                    "{label}: not denied ({got}): this build, with your policy, has no rule \
                     that refuses it"
                ),
                "keep the destructive-fs pack on (`palisade explain` lists what is active)",
            )
        } else if run.took > Duration::from_secs(2) {
            Check::warn(
                name,
                format!("{label}: answered correctly but took {ms} ms"),
                "a slow hook slows every tool call: check the risk backend's timeout",
            )
        } else {
            Check::ok(
                name,
                format!(
                    "{label}: {} in {ms} ms (hook from {source})",
                    if denied { "denied" } else { "passed" }
                ),
            )
        };
        out.push(check);
    }
    let _ = std::fs::remove_dir_all(&sandbox);
    out
}
