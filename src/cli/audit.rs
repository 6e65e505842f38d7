//! `palisade audit`: verify, anchor, stats and tail over the hash-chained audit log.

use crate::audit::{self, stats, tail};
use crate::locations::Locations;
use crate::policy::Policy;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

/// Inspect the audit log: statistics, chain verification, anchors, recent entries.
///
/// Examples:
///   palisade audit --stats --since 24h
///   palisade audit --stats --by tool
///   palisade audit --stats --by server --json
///   palisade audit stats --json
///   palisade audit verify
///   palisade audit anchor --to ~/backup/palisade-anchors.jsonl
///   palisade audit receipt
///   palisade audit verify --against ~/backup/palisade-anchors.jsonl
///   palisade audit tail -n 50 --follow
#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true, verbatim_doc_comment)]
pub struct AuditArgs {
    #[command(subcommand)]
    pub command: Option<AuditCommand>,
    /// Print decision statistics (same as `palisade audit stats`).
    #[arg(long)]
    pub stats: bool,
    #[command(flatten)]
    pub stats_opts: StatsOpts,
}

/// Options of `audit stats`.
#[derive(Debug, Clone, Default, Args)]
pub struct StatsOpts {
    /// Print one JSON object instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Only entries newer than this: `90s`, `30m`, `24h`, `7d`, `2w`.
    #[arg(long, value_name = "DURATION")]
    pub since: Option<String>,
    /// The audit log (default: the configured one, `<state dir>/audit.jsonl`).
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Per tool (or MCP server): calls, verdicts, median hook latency and calls the hook never
    /// saw; no argument values.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub by: Option<audit::usage::By>,
}

/// `palisade audit` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum AuditCommand {
    /// Check the chain: exit 0 intact, 1 broken (first broken entry and cause), 2 unreadable.
    ///
    /// Examples:
    ///   palisade audit verify
    ///   palisade audit verify /backup/audit.jsonl --against anchors.jsonl
    #[command(verbatim_doc_comment)]
    Verify {
        /// The audit log (default: the configured one).
        file: Option<PathBuf>,
        /// Also check the head against the last receipt anchored for this log (catches a
        /// truncated or rewritten tail).
        #[arg(long, value_name = "ANCHORS")]
        against: Option<PathBuf>,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Append a receipt for the current head to an append-only anchors file (keep it elsewhere:
    /// another disk, a repository, a ticket). Refuses a chain that does not verify.
    ///
    /// Example:
    ///   palisade audit anchor --to ~/backup/palisade-anchors.jsonl
    #[command(verbatim_doc_comment)]
    Anchor {
        /// The audit log (default: the configured one).
        file: Option<PathBuf>,
        /// The anchors file to append the receipt to.
        #[arg(long, value_name = "ANCHORS")]
        to: PathBuf,
    },
    /// Print a receipt for the current head (JSON, as `anchor` would append it) without
    /// writing anything; for pasting into a ticket or a commit. Refuses a broken chain.
    Receipt {
        /// The audit log (default: the configured one).
        file: Option<PathBuf>,
    },
    /// Decisions by effect, tool, rule, category and source; top denied commands; chains
    /// caught; hook latency percentiles; risk backend calls, failures and latency.
    Stats {
        #[command(flatten)]
        opts: StatsOpts,
    },
    /// Write the log as one self-contained HTML page (no network resources): decisions over
    /// time, top rules, top refused calls, chains caught, sessions, risk-layer latency.
    ///
    /// Examples:
    ///   palisade audit report
    ///   palisade audit report --since 7d --out week.html
    #[command(verbatim_doc_comment)]
    Report {
        /// Where to write the page.
        #[arg(long, default_value = "palisade-report.html")]
        out: PathBuf,
        /// Only entries newer than this: `90s`, `30m`, `24h`, `7d`, `2w`.
        #[arg(long, value_name = "DURATION")]
        since: Option<String>,
        /// The audit log (default: the configured one).
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
    },
    /// The last calls, one line each (at most 100 columns); `--follow` keeps printing new ones
    /// (Ctrl-C stops). An ask shows the user's answer: `ask:yes` (the tool ran: its
    /// PostToolUse followed) or `ask:no` (it did not, or not yet).
    ///
    /// Examples:
    ///   palisade audit tail -n 50 --follow
    ///   palisade audit tail --effect deny --since 24h
    ///   palisade audit tail --rule destructive-fs --json
    #[command(verbatim_doc_comment)]
    Tail {
        /// How many calls.
        #[arg(short = 'n', long = "lines", default_value_t = 20)]
        n: usize,
        /// Keep watching the log for new entries.
        #[arg(short, long)]
        follow: bool,
        /// Only this decision.
        #[arg(long, value_parser = ["allow", "ask", "deny", "pass"])]
        effect: Option<String>,
        /// Only this session id.
        #[arg(long)]
        session: Option<String>,
        /// Only decisions whose rule id contains this text.
        #[arg(long)]
        rule: Option<String>,
        /// Only entries newer than this: `90s`, `30m`, `24h`, `7d`, `2w`.
        #[arg(long, value_name = "DURATION")]
        since: Option<String>,
        /// One JSON object per line (the entry; asks carry `answer`).
        #[arg(long)]
        json: bool,
        /// The audit log (default: the configured one).
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
    },
}

/// Runs `palisade audit …` and returns the exit code.
pub fn run(args: AuditArgs, locations: &Locations, policy: &Policy) -> i32 {
    let default_file = || crate::policy::audit_settings::audit_file(&policy.audit, locations);
    let pick = |f: Option<PathBuf>| f.unwrap_or_else(default_file);
    match args.command {
        Some(AuditCommand::Verify {
            file,
            against,
            json,
        }) => verify(&pick(file), against.as_deref(), json),
        Some(AuditCommand::Anchor { file, to }) => anchor(&pick(file), &to),
        Some(AuditCommand::Receipt { file }) => {
            let file = pick(file);
            match audit::receipt(&file) {
                Ok(r) => {
                    println!("{}", serde_json::to_string(&r).unwrap_or_default());
                    0
                }
                Err(e) => {
                    eprintln!("palisade: no receipt: {}: {e}", file.display());
                    if e.kind == audit::BreakKind::Unreadable {
                        2
                    } else {
                        1
                    }
                }
            }
        }
        Some(AuditCommand::Stats { opts }) => {
            let file = pick(opts.file.clone());
            run_stats(&file, &opts, (policy, locations))
        }
        Some(AuditCommand::Tail {
            n,
            follow,
            effect,
            session,
            rule,
            since,
            json,
            file,
        }) => {
            let file = pick(file);
            let since_ms = match since
                .as_deref()
                .map(crate::policy::schema::parse_duration_ms)
            {
                None => None,
                Some(Some(ms)) => Some(audit::append::now_ms().saturating_sub(ms)),
                Some(None) => {
                    eprintln!(
                        "palisade: --since: expected a number and a unit (s, m, h, d, w), like 24h"
                    );
                    return 2;
                }
            };
            use std::io::IsTerminal;
            let opts = tail::TailOptions {
                n,
                follow,
                effect,
                session,
                rule,
                since_ms,
                json,
                colour: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
            };
            let mut out = std::io::stdout().lock();
            match tail::tail(&file, &opts, &mut out) {
                Ok(()) => 0,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
                Err(e) => {
                    eprintln!("palisade: cannot read {}: {e}", file.display());
                    2
                }
            }
        }
        Some(AuditCommand::Report { out, since, file }) => {
            let file = pick(file);
            let since_ms = match since
                .as_deref()
                .map(crate::policy::schema::parse_duration_ms)
            {
                None => None,
                Some(Some(ms)) => Some(audit::append::now_ms().saturating_sub(ms)),
                Some(None) => {
                    eprintln!(
                        "palisade: --since: expected a number and a unit (s, m, h, d, w), like 24h"
                    );
                    return 2;
                }
            };
            match audit::report::report(&file, since_ms) {
                Ok(page) => match std::fs::write(&out, page) {
                    Ok(()) => {
                        println!("wrote {} (from {})", out.display(), file.display());
                        0
                    }
                    Err(e) => {
                        eprintln!("palisade: cannot write {}: {e}", out.display());
                        2
                    }
                },
                Err(e) => {
                    eprintln!("palisade: cannot read {}: {e}", file.display());
                    2
                }
            }
        }
        None if args.stats => {
            let file = pick(args.stats_opts.file.clone());
            run_stats(&file, &args.stats_opts, (policy, locations))
        }
        None => {
            eprintln!(
                "palisade audit: say what to do: --stats, stats, verify, anchor, receipt, tail or report \
                 (see `palisade audit --help`)"
            );
            2
        }
    }
}

fn verify(file: &Path, against: Option<&Path>, json: bool) -> i32 {
    let result = match against {
        Some(anchors) => audit::verify_against(file, anchors).map(|(s, a)| (s, Some(a))),
        None => audit::verify(file).map(|s| (s, None)),
    };
    match result {
        Ok((summary, anchor)) => {
            if json {
                let v = serde_json::json!({
                    "ok": true, "file": file, "summary": summary, "anchor": anchor,
                });
                println!("{v}");
            } else {
                println!(
                    "{}: intact, {} entries, head {}",
                    file.display(),
                    summary.entries,
                    summary.head_hash
                );
                if let (Some(a), Some(b)) = (summary.first_at, summary.last_at) {
                    println!(
                        "  from {} to {}",
                        tail::format_time(a),
                        tail::format_time(b)
                    );
                }
                if let Some(a) = anchor {
                    println!(
                        "  holds the anchored head: seq {} ({}), anchored {}",
                        a.entries,
                        a.head_hash,
                        tail::format_time(a.anchored_at)
                    );
                }
            }
            0
        }
        Err(e) => {
            let code = if e.kind == audit::BreakKind::Unreadable {
                2
            } else {
                1
            };
            if json {
                let v = serde_json::json!({"ok": false, "file": file, "error": e});
                println!("{v}");
            } else if code == 1 {
                println!("{}: BROKEN at {e}", file.display());
            }
            if code == 2 || !json {
                eprintln!("palisade: {}: {e}", file.display());
            }
            code
        }
    }
}

fn anchor(file: &Path, to: &Path) -> i32 {
    match audit::anchor(file, to) {
        Ok(a) => {
            println!(
                "anchored {}: {} entries, head {} → {}",
                a.file,
                a.entries,
                a.head_hash,
                to.display()
            );
            0
        }
        Err(e) => {
            eprintln!("palisade: not anchored: {}: {e}", file.display());
            if e.kind == audit::BreakKind::Unreadable {
                2
            } else {
                1
            }
        }
    }
}

fn run_stats(file: &Path, opts: &StatsOpts, (policy, locations): (&Policy, &Locations)) -> i32 {
    let since = match opts.since.as_deref() {
        None => None,
        Some(d) => match crate::policy::schema::parse_duration_ms(d) {
            Some(ms) => Some(audit::append::now_ms().saturating_sub(ms)),
            None => {
                eprintln!(
                    "palisade: --since {d}: expected a number and a unit (s, m, h, d, w), like 24h"
                );
                return 2;
            }
        },
    };
    if let Some(by) = opts.by {
        return run_usage(file, since, by, opts.json);
    }
    let now = audit::append::now_ms();
    let limits = crate::limits::stats::usage(policy, file, &locations.data_dir, since, now)
        .unwrap_or_default();
    match stats::stats(file, since) {
        Ok(report) => {
            if opts.json {
                let mut report = serde_json::to_value(&report).unwrap_or_default();
                if !limits.is_empty() {
                    report["limits"] = serde_json::to_value(&limits).unwrap_or_default();
                }
                match serde_json::to_string_pretty(&report) {
                    Ok(s) => println!("{s}"),
                    Err(e) => {
                        eprintln!("palisade: {e}");
                        return 2;
                    }
                }
            } else {
                print!("{}", stats::render(&report));
                print!("{}", crate::limits::stats::render(&limits));
            }
            0
        }
        Err(e) => {
            eprintln!("palisade: cannot read {}: {e}", file.display());
            2
        }
    }
}

/// `audit --stats --by tool|server`: the usage view, which never reads argument values.
fn run_usage(file: &Path, since: Option<u64>, by: audit::usage::By, json: bool) -> i32 {
    match audit::usage::usage(file, since, by) {
        Ok(report) => {
            if json {
                match serde_json::to_string_pretty(&report) {
                    Ok(s) => println!("{s}"),
                    Err(e) => {
                        eprintln!("palisade: {e}");
                        return 2;
                    }
                }
            } else {
                print!("{}", audit::usage::render_usage(&report));
            }
            0
        }
        Err(e) => {
            eprintln!("palisade: cannot read {}: {e}", file.display());
            2
        }
    }
}
