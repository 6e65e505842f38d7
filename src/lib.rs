//! palisade: a firewall for the tool calls of AI coding agents, run by Claude Code as a
//! `PreToolUse`/`PostToolUse` hook.
//!
//! One way through: event → normalize (shell analysis, paths) → evaluate (packs, policy) →
//! ledger check → risk backend → verdict → record (ledger, audit) → answer.

pub mod audit;
pub mod call;
pub mod cli;
pub mod decide;
pub mod effects;
pub mod evaluate;
pub mod event;
pub mod fileops;
pub mod glob;
pub mod hook;
pub mod ledger;
pub mod limits;
pub mod locations;
pub mod normalize;
pub mod packs;
pub mod paths;
pub mod policy;
pub mod protect;
pub mod readonly;
pub mod redact;
pub mod risk;
pub mod scan;
pub mod settings_file;
pub mod shell;
pub mod taint;
pub mod verdict;
pub mod vocab;
pub mod world;
