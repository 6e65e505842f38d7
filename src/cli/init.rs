//! `palisade init`: installs (or with `--uninstall` removes) palisade's hooks in a Claude Code
//! settings file, and writes a starter user policy when there is none.

use crate::locations::Locations;
use crate::settings_file::{self, InstallOutcome, SettingsDoc, SettingsScope};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Install palisade as a Claude Code hook (PreToolUse + PostToolUse, every tool).
#[derive(Debug, Clone, Default, clap::Args)]
#[command(after_help = "\
Examples:
  palisade init                      install for every project (~/.claude/settings.json)
  palisade init --project --dry-run  show what installing into .claude/settings.json would change
  palisade init --uninstall          remove palisade's hooks again (nothing else)
  palisade init --read-only          also make this project read-only (.palisade.yaml)

A backup of the settings file is written first (settings.json.bak). Running init twice changes
nothing. CLAUDE_CONFIG_DIR moves the user settings, as it does for Claude Code.")]
pub struct InitArgs {
    /// Install into this project's `.claude/settings.json` (committed, shared with the team).
    #[arg(long, conflicts_with = "local")]
    pub project: bool,
    /// Install into this project's `.claude/settings.local.json` (just you, this project).
    #[arg(long)]
    pub local: bool,
    /// Print the change as a unified diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove the hook entries init added (any palisade binary) and nothing else.
    #[arg(long)]
    pub uninstall: bool,
    /// The palisade binary the hooks run, by absolute path (default: this binary).
    #[arg(long, value_name = "PATH")]
    pub binary: Option<PathBuf>,
    /// Also write a project policy (`<project>/.palisade.yaml`) with `mode: read-only`: every
    /// call that changes something is asked. An existing project policy is never overwritten.
    #[arg(long, conflicts_with = "uninstall")]
    pub read_only: bool,
}

/// The environment `init` works in (separate from the process so tests can drive it).
#[derive(Debug, Clone)]
pub struct InitEnv {
    pub locations: Locations,
    /// The project directory for `--project` / `--local` (the current directory).
    pub project_dir: PathBuf,
    /// Where managed settings are read from (only read, for warnings).
    pub managed_dir: PathBuf,
}

impl InitEnv {
    /// From the process environment and current directory.
    pub fn from_process() -> std::io::Result<InitEnv> {
        Ok(InitEnv {
            locations: Locations::from_env(),
            project_dir: std::env::current_dir()?,
            managed_dir: settings_file::managed_dir(),
        })
    }
}

/// Runs `palisade init` for the process: messages on stdout, warnings and errors on stderr.
pub fn run(args: &InitArgs) -> ExitCode {
    let env = match InitEnv::from_process() {
        Ok(env) => env,
        Err(e) => {
            eprintln!("palisade init: cannot read the current directory: {e}");
            return ExitCode::from(1);
        }
    };
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    match init(args, &env, &mut out, &mut err) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            let _ = writeln!(err, "palisade init: {msg}");
            ExitCode::from(1)
        }
    }
}

/// Installs or uninstalls; `Err` is one sentence saying what went wrong and what to do.
pub fn init(
    args: &InitArgs,
    env: &InitEnv,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), String> {
    let target = if args.project {
        settings_file::project_settings(&env.project_dir, false)
    } else if args.local {
        settings_file::project_settings(&env.project_dir, true)
    } else {
        settings_file::user_settings(&env.locations.claude_dir)
    };
    let mut doc = SettingsDoc::read(&target).map_err(|e| e.to_string())?;
    if args.uninstall {
        return uninstall(args, env, &mut doc, out);
    }
    let binary = resolve_binary(args.binary.as_deref(), &env.project_dir)?;
    // Checked before anything is installed: a policy that cannot be made read-only stops init.
    let read_only = if args.read_only {
        Some(read_only_plan(&env.project_dir)?)
    } else {
        None
    };
    for warning in warnings(env, &binary) {
        let _ = writeln!(err, "warning: {warning}");
    }
    let outcome = settings_file::install(&mut doc.value, &binary);
    let shown = target.display();
    match outcome {
        InstallOutcome::AlreadyInstalled => {
            let _ = writeln!(
                out,
                "palisade is already installed in {shown} (PreToolUse and PostToolUse run {} hook); nothing changed.",
                binary.display()
            );
        }
        InstallOutcome::Added(_) if args.dry_run => {
            let _ = write!(out, "{}", doc.diff());
            let _ = writeln!(out, "dry run: {shown} was not changed.");
        }
        InstallOutcome::Added(events) => {
            let backup = doc.write().map_err(|e| e.to_string())?;
            let _ = writeln!(
                out,
                "installed palisade in {shown}: {} run {} hook (timeout {} s).",
                events.join(" and "),
                binary.display(),
                settings_file::HOOK_TIMEOUT_S
            );
            if let Some(b) = backup {
                let _ = writeln!(out, "backup of the previous file: {}", b.display());
            }
        }
    }
    write_starter_policy(&env.locations.user_policy, args.dry_run, out)?;
    if let Some(plan) = read_only {
        write_read_only_policy(plan, args.dry_run, out)?;
    }
    if !args.dry_run {
        let _ = writeln!(
            out,
            "next: `palisade doctor` checks the installation; Claude Code picks the hooks up in new \
             sessions (and usually in running ones)."
        );
    }
    Ok(())
}

fn uninstall(
    args: &InitArgs,
    env: &InitEnv,
    doc: &mut SettingsDoc,
    out: &mut dyn Write,
) -> Result<(), String> {
    let shown = doc.path.display().to_string();
    if !doc.existed {
        let _ = writeln!(out, "no settings file at {shown}; nothing to remove.");
        return Ok(());
    }
    let removed = settings_file::uninstall(&mut doc.value);
    let hand_written = settings_file::palisade_handlers(&doc.value).len();
    if hand_written > 0 {
        let _ = writeln!(
            out,
            "note: {shown} still runs palisade from {hand_written} hand-written shell-form \
             entr{}; init does not remove those, edit the file to drop them.",
            if hand_written == 1 { "y" } else { "ies" }
        );
    }
    if removed == 0 {
        let _ = writeln!(
            out,
            "no palisade hooks added by init in {shown}; nothing changed."
        );
        return Ok(());
    }
    if args.dry_run {
        let _ = write!(out, "{}", doc.diff());
        let _ = writeln!(out, "dry run: {shown} was not changed.");
        return Ok(());
    }
    // Nothing but palisade's hooks was in the file: init created it on a home that had none,
    // so uninstalling removes it rather than leaving an empty `{}` behind.
    if doc.value.as_object().is_some_and(|o| o.is_empty()) {
        std::fs::remove_file(&doc.path).map_err(|e| format!("cannot remove {shown}: {e}"))?;
        let _ = writeln!(
            out,
            "removed {removed} palisade hook handler(s) and {shown} itself, which held nothing else."
        );
        return Ok(());
    }
    let backup = doc.write().map_err(|e| e.to_string())?;
    let _ = writeln!(
        out,
        "removed {removed} palisade hook handler(s) from {shown}."
    );
    if let Some(b) = backup {
        let _ = writeln!(out, "backup of the previous file: {}", b.display());
    }
    let _ = writeln!(
        out,
        "left in place: your policy ({}) and palisade's state directory ({}).",
        env.locations.user_policy.display(),
        env.locations.data_dir.display()
    );
    Ok(())
}

/// The project policy `init --read-only` writes.
pub const READ_ONLY_POLICY: &str = "\
# palisade project policy, written by `palisade init --read-only`: this project is read-only
# for the agent. Every call that writes, deletes, moves, links or chmods a file, runs a file or
# a program that can change things, sends data out or changes configuration is asked; reads,
# searches and read-only commands (ls, cat, grep, git status/log/diff) pass. See docs/POLICY.md.
# A project policy can only tighten: delete this file to end read-only mode.
version: 1
mode: read-only
# read_only_effect: deny   # refuse changes instead of asking
";

/// What `init --read-only` will do to the project policy.
enum ReadOnlyPlan {
    /// Write `READ_ONLY_POLICY` to this (absent) file.
    Write(PathBuf),
    /// The file already makes the project read-only.
    Already(PathBuf),
}

/// Where the project policy is and whether it can be made read-only: absent (written), or
/// already read-only (left alone). Any other existing policy is an error: it is never
/// overwritten.
fn read_only_plan(dir: &Path) -> Result<ReadOnlyPlan, String> {
    let root = Locations::project_root(dir, None);
    let path = root.join(".palisade.yaml");
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ReadOnlyPlan::Write(path)),
        Err(e) => Err(format!("cannot read {} ({e})", path.display())),
        Ok(_) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {} ({e})", path.display()))?;
            let file: crate::policy::schema::PolicyFile = serde_yaml::from_str(&text)
                .map_err(|e| {
                    format!(
                        "{} exists and is not a valid policy ({e}); fix it, then add `mode: read-only`",
                        path.display()
                    )
                })?;
            if file.mode == Some(crate::policy::schema::Mode::ReadOnly) {
                Ok(ReadOnlyPlan::Already(path))
            } else {
                Err(format!(
                    "{} already exists and is not read-only; init does not overwrite it: add                      `mode: read-only` to it yourself (nothing was changed)",
                    path.display()
                ))
            }
        }
    }
}

fn write_read_only_policy(
    plan: ReadOnlyPlan,
    dry_run: bool,
    out: &mut dyn Write,
) -> Result<(), String> {
    match plan {
        ReadOnlyPlan::Already(path) => {
            let _ = writeln!(
                out,
                "{} already makes this project read-only; nothing changed.",
                path.display()
            );
        }
        ReadOnlyPlan::Write(path) if dry_run => {
            let _ = writeln!(out, "dry run: would write {}:", path.display());
            let _ = write!(out, "{READ_ONLY_POLICY}");
        }
        ReadOnlyPlan::Write(path) => {
            // `create_new`: a file that appeared since the check is not overwritten either.
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(|e| format!("cannot write {} ({e})", path.display()))?;
            f.write_all(READ_ONLY_POLICY.as_bytes())
                .map_err(|e| format!("cannot write {} ({e})", path.display()))?;
            let _ = writeln!(
                out,
                "wrote {}: this project is read-only for the agent (mode: read-only).",
                path.display()
            );
        }
    }
    Ok(())
}

/// The binary the hooks will run: absolute, an executable file named `palisade` (the name is
/// how init recognises its own entries later).
fn resolve_binary(arg: Option<&Path>, cwd: &Path) -> Result<PathBuf, String> {
    let path = match arg {
        Some(p) if p.is_absolute() => p.to_path_buf(),
        Some(p) => cwd.join(p),
        None => std::env::current_exe()
            .map_err(|e| format!("cannot find this binary's path ({e}); pass --binary PATH"))?,
    };
    let path = fold_dots(&path);
    let meta = std::fs::metadata(&path).map_err(|e| {
        format!(
            "{} cannot be used as the hook ({e}); pass --binary with the installed palisade",
            path.display()
        )
    })?;
    if !meta.is_file() || !is_executable(&meta) {
        return Err(format!(
            "{} is not an executable file; pass --binary with the installed palisade",
            path.display()
        ));
    }
    let named = path
        .file_name()
        .is_some_and(|n| n == "palisade" || n == "palisade.exe");
    if !named {
        return Err(format!(
            "{} is not named `palisade`; init recognises its hook entries by that name, so \
             install or link the binary as `palisade`",
            path.display()
        ));
    }
    Ok(path)
}

/// Folds `.` and `..` lexically (the path must stay the one the user named, symlinks and all).
fn fold_dots(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &std::fs::Metadata) -> bool {
    true
}

/// True when `binary` lies in a cargo `target/` directory, which `cargo clean` deletes.
pub fn in_cargo_target(binary: &Path) -> bool {
    let comps: Vec<_> = binary.components().collect();
    comps.iter().enumerate().any(|(i, c)| {
        c.as_os_str() == "target" && {
            let dir: PathBuf = comps[..=i].iter().collect();
            let profile =
                |n: &std::path::Component| n.as_os_str() == "debug" || n.as_os_str() == "release";
            // `target/<profile>/` or, when cross-compiling, `target/<triple>/<profile>/`.
            dir.join("CACHEDIR.TAG").exists()
                || comps.get(i + 1).is_some_and(profile)
                || comps.get(i + 2).is_some_and(profile)
        }
    })
}

/// What would silently switch the firewall off, across every settings file that applies.
fn warnings(env: &InitEnv, binary: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if in_cargo_target(binary) {
        out.push(format!(
            "{} is inside a cargo target/ directory: after `cargo clean` the hook cannot start \
             and Claude Code lets every call through; install it with `cargo install --path .` \
             and run `~/.cargo/bin/palisade init` instead",
            binary.display()
        ));
    }
    let files = settings_file::applicable(
        &env.locations.claude_dir,
        &env.project_dir,
        &env.managed_dir,
    );
    for file in files {
        let doc = match SettingsDoc::read(&file.path) {
            Ok(d) if d.existed => d,
            Ok(_) => continue,
            Err(e) => {
                out.push(format!("cannot read {} settings: {e}", file.scope.as_str()));
                continue;
            }
        };
        let shown = file.path.display();
        if settings_file::disables_all_hooks(&doc.value) {
            out.push(format!(
                "{shown} sets \"disableAllHooks\": true, so Claude Code runs no hooks and \
                 palisade is off; remove that key"
            ));
        }
        for plugin in settings_file::enabled_palisade_plugins(&doc.value) {
            out.push(format!(
                "{shown} enables the palisade plugin ({plugin}) and init installs the hooks \
                 too: every call would be decided and logged twice. Keep one: the plugin (then \
                 run `palisade init --uninstall`), or these hooks (then `claude plugin \
                 uninstall {plugin}`)"
            ));
        }
        if file.scope == SettingsScope::Managed
            && doc
                .value
                .get("allowManagedHooksOnly")
                .and_then(|v| v.as_bool())
                == Some(true)
        {
            out.push(format!(
                "{shown} sets \"allowManagedHooksOnly\": true, so only hooks in managed \
                 settings run; ask your administrator to install palisade there"
            ));
        }
        for h in settings_file::palisade_handlers(&doc.value) {
            let program = h.program();
            let same = program == binary
                || matches!(
                    (std::fs::canonicalize(&program), std::fs::canonicalize(binary)),
                    (Ok(a), Ok(b)) if a == b
                );
            if h.shell_form {
                out.push(format!(
                    "{shown} runs palisade in shell form on {} (`{}`), which init neither \
                     counts nor removes; delete that entry by hand so palisade runs once",
                    h.event, h.command
                ));
            } else if !same {
                out.push(format!(
                    "{shown} also runs palisade from {} on {}; two installations decide and \
                     record twice: remove the stale one (`palisade init --uninstall` in that \
                     scope removes every palisade entry there)",
                    program.display(),
                    h.event
                ));
            }
        }
    }
    out
}

/// The commented starter policy: every top-level section with safe values, the rest shown
/// in comments. Valid as it stands (strict loader), so `palisade doctor` is green after init.
pub fn starter_policy() -> String {
    let packs = crate::packs::PACKS.join(", ");
    format!(
        r#"# palisade user policy, written by `palisade init` (palisade never overwrites it).
# It applies to every project. A project can add a `.palisade.yaml` of its own, which can only
# tighten this policy. `palisade doctor` checks it; `palisade explain` shows the result.
version: 1

# true for agents nobody watches (CI, cron): every "ask" becomes a "deny".
headless: false

# The built-in rule packs are all on: {packs}.
# Switch a whole pack off, or change one rule's effect (`<pack>/<rule-id>: allow|ask|deny`).
packs:
  disable: []
  overrides: {{}}

# Files may be written inside the project, the temp dir, and these extra roots.
roots:
#  - ~/scratch
# A write outside every root: ask (default) or deny.
outside_roots: ask

# Your own rules. Deny beats ask beats allow; rule order never matters. Remove the `#` in
# front of an example to use it; `palisade policy validate` checks the file and runs the
# examples of each rule.
rules:
#  - id: no-prod-db
#    tools: Bash
#    effect: deny
#    reason: the production database is off limits; use the staging one
#    command:
#      program: psql
#      args: "*prod*"
#    examples:
#      refused: ["psql -h prod-db.internal -c 'select 1'"]
#      allowed: ["psql -h staging-db.internal -c 'select 1'"]
#  - id: github-own-org
#    tools: "mcp__github__*"
#    effect: allow
#    when:
#      owner: {{ oneOf: [acme] }}

# The optional risk backend: a decision model asked about the calls the rules left undecided.
risk:
  enabled: false
#  url: https://api.typesafe.ai/v1/systemone
#  model: jev-1.13.0
#  api_key_env: TYPESAFE_API_KEY   # the variable holding the key (never the key itself)
#  timeout_ms: 2500
#  on_error: ask                   # or deny: what a timeout or a bad answer becomes
#  mode: enforce                   # or observe: ask the model, record, do not act
#  auto_allow: false
#  scope: undecided                # or all-but-denied
#  cache_ttl_s: 600

# The audit chain (one hash-linked JSON line per decision).
#audit:
#  on_error: deny                  # or ask: when an entry cannot be written
#  redact: [tool_input.headers.Authorization]
#  file: ~/.local/share/palisade/audit.jsonl
"#
    )
}

fn write_starter_policy(path: &Path, dry_run: bool, out: &mut dyn Write) -> Result<(), String> {
    if path.exists() {
        let _ = writeln!(out, "using your policy at {}.", path.display());
        return Ok(());
    }
    if dry_run {
        let _ = writeln!(
            out,
            "dry run: would write a starter policy at {}.",
            path.display()
        );
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| {
            format!(
                "cannot create {} for the starter policy: {e}",
                dir.display()
            )
        })?;
    }
    // create_new: a policy that appeared in the meantime is never overwritten.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path);
    match file {
        Ok(mut f) => {
            f.write_all(starter_policy().as_bytes())
                .map_err(|e| format!("cannot write the starter policy {}: {e}", path.display()))?;
            let _ = writeln!(
                out,
                "wrote a starter policy at {} (edit it to suit you).",
                path.display()
            );
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let _ = writeln!(out, "using your policy at {}.", path.display());
        }
        Err(e) => {
            return Err(format!(
                "cannot write the starter policy {}: {e}",
                path.display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starter_policy_is_yaml_with_every_section() {
        let v: serde_yaml::Value = serde_yaml::from_str(&starter_policy()).unwrap();
        for key in [
            "version",
            "headless",
            "packs",
            "roots",
            "outside_roots",
            "rules",
            "risk",
        ] {
            assert!(v.get(key).is_some(), "{key} missing");
        }
        assert_eq!(
            v.get("risk").and_then(|r| r.get("enabled")),
            Some(&serde_yaml::Value::Bool(false))
        );
    }

    #[test]
    fn cargo_target_paths() {
        assert!(in_cargo_target(Path::new("/src/p/target/debug/palisade")));
        assert!(in_cargo_target(Path::new(
            "/src/p/target/x86_64-unknown-linux-gnu/release/palisade"
        )));
        assert!(!in_cargo_target(Path::new("/home/u/.cargo/bin/palisade")));
    }
}
