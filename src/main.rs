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
        if std::env::var_os("RUST_LOG").is_some() {
            init_tracing(0);
        }
        return run_hook();
    }
    let cli = Cli::parse();
    init_tracing(cli.verbose);
    match cli.command {
        Command::Hook => run_hook(),
        Command::Init(args) => palisade::cli::init::run(&args),
        Command::Doctor(args) => palisade::cli::doctor::run(&args),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "palisade", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}

/// Logs go to stderr, coloured only on a terminal; `-v` raises the level, `RUST_LOG` wins.
/// The hook logs only when `RUST_LOG` asks for it: its stdout carries the protocol answer.
fn init_tracing(verbose: u8) {
    use std::io::IsTerminal;
    use tracing_subscriber::EnvFilter;
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
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
