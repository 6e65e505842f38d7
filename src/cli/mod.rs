//! The command-line interface: one struct per command, doc comments as help text.

use clap::{Parser, Subcommand};

/// A firewall for the tool calls of AI coding agents (a Claude Code PreToolUse hook).
#[derive(Debug, Parser)]
#[command(name = "palisade", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// palisade's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The hook entry point: reads one PreToolUse/PostToolUse event on stdin (run by Claude Code).
    Hook,
}
