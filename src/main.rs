//! The `palisade` binary: dispatches to the library. The `hook` path is guarded so that no
//! panic, stack overflow of a worker, or deadline ends in an exit code other than 0 or 2.

use clap::Parser;
use palisade::cli::{Cli, Command};
use palisade::hook::{self, HookAnswer};
use palisade::locations::Locations;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;

/// Stack for the hook worker: deep enough that the bounded parser never comes near it.
const HOOK_STACK_BYTES: usize = 256 * 1024 * 1024;

fn main() -> ExitCode {
    let is_hook = std::env::args().nth(1).as_deref() == Some("hook");
    if is_hook {
        // The hook logs only when RUST_LOG asks for it, and only to stderr: stdout carries the
        // protocol answer.
        if std::env::var_os("RUST_LOG").is_some() {
            init_logging(0);
        }
        return run_hook();
    }
    let cli = Cli::parse();
    init_logging(cli.verbose);
    let locations = Locations::from_env();
    let code = match cli.command {
        Command::Hook => return run_hook(),
        Command::Init(args) => return palisade::cli::init::run(&args),
        Command::Doctor(args) => return palisade::cli::doctor::run(&args),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut cmd = Cli::command();
            // Into memory first: clap_complete panics on a closed pipe (`… | head`).
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, "palisade", &mut script);
            let _ = std::io::Write::write_all(&mut std::io::stdout(), &script);
            0
        }
        Command::Check(args) => palisade::cli::check::run(&args, &locations),
        Command::Explain { json, project } => explain(&locations, json, project),
        Command::Replay {
            paths,
            json,
            risk,
            policy,
            record,
        } => replay(&paths, json, risk, policy.as_deref(), record.as_deref()),
    };
    ExitCode::from(code.clamp(0, 255) as u8)
}

/// Logs go to stderr only, at `-v` (info) / `-vv` (debug) or per `RUST_LOG`.
fn init_logging(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

fn explain(locations: &Locations, json: bool, project: Option<PathBuf>) -> i32 {
    let project =
        project.unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")));
    let root = Locations::project_root(&project, None);
    match palisade::policy::load(locations, &root) {
        Ok(policy) => {
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&palisade::policy::explain_json(&policy))
                        .unwrap_or_default()
                );
            } else {
                print!("{}", palisade::policy::explain(&policy));
            }
            0
        }
        Err(e) => {
            eprintln!("palisade explain: the policy does not load: {e}");
            1
        }
    }
}

fn replay(
    paths: &[PathBuf],
    json: bool,
    risk: palisade::cli::replay::RiskReplay,
    policy: Option<&std::path::Path>,
    record: Option<&std::path::Path>,
) -> i32 {
    use palisade::cli::replay as r;
    let cases = match r::case_files(paths).and_then(|f| r::load_cases(&f)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("palisade replay: {e}");
            return 2;
        }
    };
    let policy = match r::replay_policy(policy) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("palisade replay: the policy does not load: {e}");
            return 2;
        }
    };
    let scratch = std::env::temp_dir().join(format!("palisade-replay-{}", std::process::id()));
    let report = r::replay(&cases, &policy, risk, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    if let Some(path) = record {
        let lines: String = report.recorded.iter().map(|v| format!("{v}\n")).collect();
        if let Err(e) = std::fs::write(path, lines) {
            eprintln!("palisade replay: cannot write {}: {e}", path.display());
            return 2;
        }
    }
    if json {
        println!("{}", report.to_json());
    } else {
        print!("{}", r::render(&report));
    }
    if report.passed == report.total { 0 } else { 1 }
}

fn emit(answer: &HookAnswer) -> ExitCode {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(answer.stdout.as_bytes());
    let _ = out.flush();
    if !answer.stderr.is_empty() {
        let _ = writeln!(std::io::stderr(), "{}", answer.stderr);
    }
    ExitCode::from(answer.code as u8)
}

fn run_hook() -> ExitCode {
    // A panic anywhere (any thread) becomes a deny: print it and exit 2 before unwinding can
    // reach a 101 exit.
    std::panic::set_hook(Box::new(|info| {
        let answer = HookAnswer::failure(&format!("internal error, call refused: {info}"));
        let _ = std::io::stdout().lock().write_all(answer.stdout.as_bytes());
        let _ = writeln!(std::io::stderr(), "{}", answer.stderr);
        std::process::exit(2);
    }));
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .stack_size(HOOK_STACK_BYTES)
        .spawn(move || {
            let mut input = Vec::new();
            let read = std::io::stdin()
                .lock()
                .take(palisade::event::MAX_EVENT_BYTES as u64 + 1)
                .read_to_end(&mut input);
            let answer = match read {
                Ok(_) => {
                    let project = std::env::var_os("CLAUDE_PROJECT_DIR")
                        .filter(|v| !v.is_empty())
                        .map(PathBuf::from);
                    hook::run(&input, &Locations::from_env(), project.as_deref())
                }
                Err(e) => HookAnswer::failure(&format!("could not read the hook input: {e}")),
            };
            let _ = tx.send(answer);
        });
    if let Err(e) = spawned {
        return emit(&HookAnswer::failure(&format!(
            "could not start the hook worker: {e}"
        )));
    }
    let answer = match rx.recv_timeout(hook::DEADLINE) {
        Ok(answer) => answer,
        Err(_) => HookAnswer::failure(&format!(
            "palisade did not decide within its {} s deadline, so the call is refused",
            hook::DEADLINE.as_secs()
        )),
    };
    emit(&answer)
}
