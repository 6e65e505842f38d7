//! The command-line interface: one struct per command, doc comments as help text.

pub mod doctor;
pub mod init;

use clap::{Parser, Subcommand};

/// A firewall for the tool calls of AI coding agents (a Claude Code PreToolUse hook).
#[derive(Debug, Parser)]
#[command(name = "palisade", version, about, long_about = None)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
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
    /// Install palisade's hooks into Claude Code's settings (or remove them with --uninstall).
    Init(init::InitArgs),
    /// Check the installation, policy, state and a live hook call; exit 1 on any failure.
    Doctor(doctor::DoctorArgs),
    /// Print a shell completion script (`palisade completions bash > /etc/bash_completion.d/palisade`).
    Completions {
        /// The shell to generate completions for.
        shell: clap_complete::Shell,
    },
}
