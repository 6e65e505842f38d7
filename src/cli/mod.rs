//! The command-line interface: one struct per command, doc comments as help text.

pub mod allow;
pub mod audit;
pub mod check;
pub mod doctor;
pub mod explain;
pub mod init;
pub mod policy;
pub mod replay;
pub mod scan;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// A firewall for the tool calls of AI coding agents (a Claude Code PreToolUse hook).
#[derive(Debug, Parser)]
#[command(name = "palisade", version, about, long_about = None)]
pub struct Cli {
    /// Log to stderr (repeat for more detail); RUST_LOG works too.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

/// palisade's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The hook entry point: reads one PreToolUse/PostToolUse event on stdin (run by Claude Code).
    Hook,
    /// Inspect the audit log: --stats, verify, anchor, receipt, tail.
    Audit(audit::AuditArgs),
    /// Install palisade's hooks into Claude Code's settings (or remove them with --uninstall).
    Init(init::InitArgs),
    /// Check the installation, policy, state and a live hook call; exit 1 on any failure.
    Doctor(doctor::DoctorArgs),
    /// Print a shell completion script (`palisade completions bash > ~/.local/share/bash-completion/completions/palisade`).
    Completions {
        /// The shell to generate completions for.
        shell: clap_complete::Shell,
    },
    /// Run the risk broker: a long-lived process that keeps warm connections to the risk
    /// backend for the hook (optional; the hook calls directly when it is not running).
    #[command(
        after_help = "The socket is <state dir>/broker/broker.sock (directory 0700, socket 0600). The hook uses it only if the process on it runs this same palisade binary as the same user, and calls the backend directly otherwise.\n\nExample:\n  palisade serve &"
    )]
    Serve,
    /// Evaluate one hypothetical call against the effective policy.
    Check(check::CheckArgs),
    /// Turn a refusal from the audit log into a scoped allow rule in your policy.
    Allow(allow::AllowArgs),
    /// Work with policy files: `policy validate [FILE]`.
    Policy(policy::PolicyArgs),
    /// Print the manual page (roff), or write one page per command into --dir.
    #[command(
        after_help = "Examples:\n  palisade man | man -l -\n  palisade man --dir ~/.local/share/man/man1"
    )]
    Man {
        /// Write palisade.1 and palisade-<command>.1 into this directory instead.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Scan a repository's scripts, Makefiles, CI, Dockerfiles, hooks and .claude/ for what
    /// palisade would refuse or ask if an agent ran them.
    Scan(scan::ScanArgs),
    /// Print the effective, layered policy, or the decision trace of one call.
    Explain(explain::ExplainArgs),
    /// Replay challenge sets (JSONL files or folders); exit 1 on any miss.
    #[command(
        after_help = "Examples:\n  palisade replay challenge-sets/\n  palisade replay challenge-sets/chains.jsonl --json\n  palisade replay --risk off challenge-sets/"
    )]
    Replay {
        /// Files or folders of .jsonl cases.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Print one JSON object: total, passed, failed, by_category, failures.
        #[arg(long)]
        json: bool,
        /// How the risk layer runs.
        #[arg(long, value_enum, default_value = "frozen")]
        risk: replay::RiskReplay,
        /// Use this file as the user policy instead of the built-in default.
        #[arg(long)]
        policy: Option<PathBuf>,
        /// With --risk live: write the live answers out as a new frozen set.
        #[arg(long)]
        record: Option<PathBuf>,
    },
}

/// The manual pages, generated from these definitions: `palisade.1`, then one
/// `palisade-<command>.1` per command, as (file name, roff).
pub fn man_pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    use clap::CommandFactory;
    let cmd = Cli::command();
    let mut out = Vec::new();
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut page)?;
    out.push(("palisade.1".to_string(), page));
    for sub in cmd.get_subcommands() {
        let name = format!("palisade-{}", sub.get_name());
        let mut page = Vec::new();
        // clap names are `&'static str` without its `string` feature; a few short names leak
        // once in a command that exits right after.
        let static_name: &'static str = Box::leak(name.clone().into_boxed_str());
        clap_mangen::Man::new(
            sub.clone()
                .name(static_name)
                .version(env!("CARGO_PKG_VERSION")),
        )
        .render(&mut page)?;
        out.push((format!("{name}.1"), page));
    }
    Ok(out)
}
