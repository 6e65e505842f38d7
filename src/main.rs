//! The `palisade` binary: dispatches to the library. The `hook` path is guarded so that no
//! panic, deadline, signal or crash ends in an exit code other than 0 or 2; deep input should
//! not overflow the stack (the shell analysis bounds size and nesting before it parses), and
//! if anything does, the crash guard (`crash`) still answers deny.

use clap::Parser;
use palisade::cli::{Cli, Command};
use palisade::hook::{self, HookAnswer};
use palisade::locations::Locations;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    // The hook's recorded latency counts from here.
    let _ = *palisade::audit::PROCESS_START;
    // args_os: a non-UTF-8 argument must not panic before the hook's panic guard is set.
    // `palisade hook --help` is a person reading the help: clap prints it, nothing is read
    // from stdin or recorded.
    let is_hook = std::env::args_os().nth(1).is_some_and(|a| a == "hook")
        && !std::env::args_os()
            .nth(2)
            .is_some_and(|a| a == "--help" || a == "-h");
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == crash::RECORD_ARG)
    {
        crash::record();
    }
    if is_hook {
        // One call per process: what path resolution finds on disk is looked up once.
        palisade::paths::remember_lookups();
        palisade::shell::keep_syntax_trees();
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
        Command::Audit(args) => {
            let policy = load_policy_for_cli(&locations);
            palisade::cli::audit::run(args, &locations, &policy)
        }
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
        Command::Serve => match palisade::risk::serve::run(&locations.data_dir) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("palisade serve: {e}");
                1
            }
        },
        Command::Check(args) => palisade::cli::check::run(&args, &locations),
        Command::Allow(args) => palisade::cli::allow::run(&args, &locations),
        Command::Policy(args) => palisade::cli::policy::run(&args, &locations),
        Command::Scan(args) => palisade::cli::scan::run(&args, &locations),
        Command::Man { dir } => man(dir.as_deref()),
        Command::Explain(args) if args.has_call() => palisade::cli::explain::run(&args, &locations),
        Command::Explain(args) => explain(&locations, args.json, args.project),
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

/// The policy in effect for the current directory; on a load error, the defaults with a
/// warning (commands that inspect state should still work).
fn load_policy_for_cli(locations: &Locations) -> palisade::policy::Policy {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let project = std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let root = Locations::project_root(&cwd, project.as_deref());
    match palisade::policy::load(locations, &root) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("palisade: warning: {e}; using the default settings");
            palisade::policy::Policy::default()
        }
    }
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

fn man(dir: Option<&std::path::Path>) -> i32 {
    let pages = match palisade::cli::man_pages() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("palisade man: {e}");
            return 1;
        }
    };
    match dir {
        None => {
            let _ = std::io::stdout().write_all(&pages[0].1);
            0
        }
        Some(dir) => {
            if let Err(e) = std::fs::create_dir_all(dir) {
                eprintln!("palisade man: cannot create {}: {e}", dir.display());
                return 1;
            }
            for (name, page) in &pages {
                if let Err(e) = std::fs::write(dir.join(name), page) {
                    eprintln!(
                        "palisade man: cannot write {}: {e}",
                        dir.join(name).display()
                    );
                    return 1;
                }
            }
            println!("wrote {} pages into {}", pages.len(), dir.display());
            0
        }
    }
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
    let report = r::replay(&cases, &policy, risk);
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

fn run_hook() -> ExitCode {
    // A panic anywhere (any thread) becomes a deny: recorded when the log can be written,
    // printed, and exit 2 before unwinding can reach a 101 exit.
    std::panic::set_hook(Box::new(|info| {
        refuse(
            "error/internal",
            &format!("internal error, call refused: {info}"),
        );
    }));
    // SIGTERM, SIGINT or SIGHUP while deciding (Claude Code cancelling, a terminal closing, a
    // kill) and the deadline both end in the deny answer and exit 2, never in death by signal,
    // which Claude Code would read as a non-blocking error and run the tool. The work runs on
    // this thread at once (no waiting for a worker to be scheduled); one watcher thread waits
    // for the first of a signal and the deadline, and whichever answers first is the answer.
    // A fatal signal (a fault, an abort, a stack overflow) ends in a recorded deny too.
    crash::arm();
    if let Err(e) = watch(hook::deadline()) {
        emit_once(&HookAnswer::failure(&format!(
            "could not start the hook's signal and deadline watcher: {e}"
        )));
        return ExitCode::from(2);
    }
    let mut input = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(palisade::event::MAX_EVENT_BYTES as u64 + 1)
        .read_to_end(&mut input);
    let input = INPUT.get_or_init(|| input);
    crash::test_crash();
    let answer = match read {
        Ok(_) => {
            let project = std::env::var_os("CLAUDE_PROJECT_DIR")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from);
            hook::run(input, &Locations::from_env(), project.as_deref())
        }
        Err(e) => HookAnswer::failure(&format!("could not read the hook input: {e}")),
    };
    if !claim() {
        // The deadline, a signal or a panic answered first and is ending the process with exit 2.
        loop {
            std::thread::park();
        }
    }
    match write_answer(&answer) {
        Ok(()) => ExitCode::from(answer.code as u8),
        Err(e) => {
            // An ask or allow that Claude Code never reads would be a silent pass: deny instead.
            let _ = writeln!(
                std::io::stderr(),
                "palisade: the answer could not be written to stdout ({e}), so the call is refused"
            );
            ExitCode::from(2)
        }
    }
}

/// The signals that end a call in a deny instead of killing the process.
const REFUSING_SIGNALS: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

/// Blocks `REFUSING_SIGNALS` in this thread (and so in every thread started after it, the
/// risk layer's included: a pending signal waits for the watcher, it cannot kill the process)
/// and starts the one thread that refuses the call on the first of them or at `deadline`.
/// One thread where there were two (a signal iterator's and a sleeping watchdog's): each
/// thread a hook starts costs it a stack, a guard page and its system calls.
fn watch(deadline: std::time::Duration) -> std::io::Result<()> {
    // SAFETY: `set` is initialised by sigemptyset before use; the calls only read and write it.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in REFUSING_SIGNALS {
            libc::sigaddset(&mut set, sig);
        }
        set
    };
    // SAFETY: a valid signal set; the old mask is not asked for.
    let blocked = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if blocked != 0 {
        return Err(std::io::Error::from_raw_os_error(blocked));
    }
    let end = std::time::Instant::now() + deadline;
    std::thread::Builder::new()
        .spawn(move || {
            loop {
                let left = end.saturating_duration_since(std::time::Instant::now());
                let timeout = libc::timespec {
                    tv_sec: left.as_secs().min(libc::time_t::MAX as u64) as libc::time_t,
                    tv_nsec: left.subsec_nanos() as libc::c_long,
                };
                // SAFETY: a valid set and timeout; no siginfo is asked for.
                let sig = unsafe { libc::sigtimedwait(&set, std::ptr::null_mut(), &timeout) };
                if sig > 0 {
                    refuse(
                        "error/signal",
                        &format!(
                            "palisade received signal {sig} before it decided, so the call is refused"
                        ),
                    );
                }
                // EAGAIN: the deadline; EINTR (another signal's handler ran): wait again for
                // what is left. Any other error cannot be waited out: the deadline's answer.
                let interrupted = std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR);
                if !interrupted || left.is_zero() {
                    refuse(
                        "error/deadline",
                        &format!(
                            "palisade did not decide within its {} ms deadline, so the call is refused",
                            deadline.as_millis()
                        ),
                    );
                }
            }
        })
        .map(|_| ())
}

/// The raw event, once read: refusals decided outside the pipeline record it.
static INPUT: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();

/// Longest wait for a refusal's audit entry: the answer must not wait on a stuck log.
const REFUSAL_RECORD_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// Ends the process with a deny (exit 2) for a refusal decided outside the pipeline, after
/// recording it when the log can be written in time. A path that did not claim the answer
/// waits for the one that did, which is already exiting.
fn refuse(rule: &str, reason: &str) -> ! {
    if !claim() {
        loop {
            std::thread::park();
        }
    }
    let verdict = palisade::verdict::Verdict::failure(rule, reason);
    let (tx, rx) = std::sync::mpsc::channel();
    let recorder = verdict.clone();
    let spawned = std::thread::Builder::new().spawn(move || {
        hook::record_refusal(
            INPUT.get().map(Vec::as_slice),
            &Locations::from_env(),
            &recorder,
        );
        let _ = tx.send(());
    });
    if spawned.is_ok() {
        let _ = rx.recv_timeout(REFUSAL_RECORD_WAIT);
    }
    let _ = write_answer(&HookAnswer::for_verdict(&verdict));
    std::process::exit(2);
}

/// Set by the first path that answers: the work, the deadline, a signal or a panic.
static ANSWERED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// True for the one path that may answer.
fn claim() -> bool {
    !ANSWERED.swap(true, std::sync::atomic::Ordering::SeqCst)
}

/// Writes `answer` unless another path already answered; true when this call wrote it.
fn emit_once(answer: &HookAnswer) -> bool {
    if !claim() {
        return false;
    }
    let _ = write_answer(answer);
    true
}

/// Prints the answer: JSON on stdout, the reason on stderr.
fn write_answer(answer: &HookAnswer) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let written = out
        .write_all(answer.stdout.as_bytes())
        .and_then(|_| out.flush());
    if !answer.stderr.is_empty() {
        let _ = writeln!(std::io::stderr(), "{}", answer.stderr);
    }
    written
}

/// Fatal signals in the hook. A process killed by a signal exits with neither 0 nor 2, which
/// Claude Code takes for a non-blocking error: the tool would run. So a fault, an abort (a
/// double panic, an allocation failure) or a stack overflow hands the event to a fresh image
/// of this binary (`execve`, which a signal handler may call), which records the refusal and
/// answers deny with exit 2, as a panic does. When that cannot be done, the handler still
/// answers deny and exits 2, unrecorded.
mod crash {
    use super::{ANSWERED, INPUT};
    use std::sync::OnceLock;

    /// The hidden first argument of the fresh image that records a crashed call.
    pub const RECORD_ARG: &str = "__record-crash";

    /// The signals that mean the process cannot go on, with their names for the refusal.
    const FATAL: [(libc::c_int, &str); 7] = [
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGTRAP, "SIGTRAP"),
        (libc::SIGSYS, "SIGSYS"),
    ];

    /// The deny answer and its reason, made before anything can crash: a signal handler
    /// cannot format or allocate.
    static FALLBACK: OnceLock<(String, String)> = OnceLock::new();

    /// Installs the handler for every fatal signal.
    pub fn arm() {
        arm_with(on_fatal);
    }

    fn arm_with(handler: extern "C" fn(libc::c_int)) {
        let answer = palisade::hook::HookAnswer::for_verdict(&palisade::verdict::Verdict::failure(
            "error/crash",
            "the hook crashed before it decided, so the call is refused",
        ));
        FALLBACK.get_or_init(|| (answer.stdout, format!("{}\n", answer.stderr)));
        for (sig, _) in FATAL {
            // SAFETY: a zeroed sigaction with a handler of the right signature; SA_ONSTACK runs
            // it on the alternate stack std sets up for each thread, so a stack overflow can be
            // handled; SA_RESETHAND makes a fault inside the handler fatal, not a loop.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = handler as usize;
                action.sa_flags = libc::SA_ONSTACK | libc::SA_RESETHAND;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(sig, &action, std::ptr::null_mut());
            }
        }
    }

    /// Writes all of `bytes` to `fd`, as far as it goes: only async-signal-safe calls.
    fn write_fd(fd: libc::c_int, mut bytes: &[u8]) -> bool {
        while !bytes.is_empty() {
            // SAFETY: a valid buffer of that length.
            let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
            if n <= 0 {
                return false;
            }
            bytes = &bytes[n as usize..];
        }
        true
    }

    /// The decimal digits of a signal number, without allocating.
    fn digits(sig: libc::c_int, buf: &mut [u8; 12]) -> &[u8] {
        let mut n = sig.unsigned_abs();
        let mut at = buf.len() - 1;
        buf[at] = b'\n';
        loop {
            at -= 1;
            buf[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 || at == 0 {
                return &buf[at..];
            }
        }
    }

    /// Only async-signal-safe calls from here on: atomics, write, memfd_create, lseek, dup2,
    /// execve, _exit.
    extern "C" fn on_fatal(sig: libc::c_int) {
        if !ANSWERED.swap(true, std::sync::atomic::Ordering::SeqCst) {
            // SAFETY: raw system calls on descriptors this function owns; the argument and
            // environment arrays are NUL-terminated and live for the process.
            unsafe {
                let fd = libc::memfd_create(c"palisade-crash".as_ptr(), 0);
                let mut buf = [0u8; 12];
                if fd >= 0
                    && write_fd(fd, digits(sig, &mut buf))
                    && INPUT.get().is_none_or(|input| write_fd(fd, input))
                    && libc::lseek(fd, 0, libc::SEEK_SET) == 0
                    && libc::dup2(fd, 0) == 0
                {
                    let argv = [
                        c"palisade".as_ptr(),
                        c"__record-crash".as_ptr(),
                        std::ptr::null(),
                    ];
                    unsafe extern "C" {
                        static environ: *const *const libc::c_char;
                    }
                    libc::execve(c"/proc/self/exe".as_ptr(), argv.as_ptr(), environ);
                }
            }
        }
        // Another path answered already, or the fresh image could not start: deny, unrecorded.
        deny_only(sig)
    }

    /// The fresh image's work: standard input holds the signal's number on a line, then the
    /// event. Records the refusal (waiting at most as long as any refusal waits for its record)
    /// and answers deny, exit 2; a second crash here only denies.
    pub fn record() -> ! {
        arm_with(deny_only);
        // This image answers for the hook too: a panic here (any thread) is the deny prepared
        // at start-up, never an exit 101.
        std::panic::set_hook(Box::new(|_| deny_only(0)));
        if std::env::var_os("PALISADE_TEST_PANIC").is_some() {
            // Lets the tests prove it; setting it can only make palisade refuse.
            panic!("PALISADE_TEST_PANIC is set");
        }
        let mut input = Vec::new();
        let _ = std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut input);
        let (sig, event) = match input.iter().position(|b| *b == b'\n') {
            Some(at) => (
                String::from_utf8_lossy(&input[..at]).into_owned(),
                input[at + 1..].to_vec(),
            ),
            None => (String::new(), input),
        };
        if !event.is_empty() {
            INPUT.get_or_init(|| event);
        }
        let name = FATAL
            .iter()
            .find(|(s, _)| sig.parse() == Ok(*s))
            .map(|(_, n)| format!(" ({n})"))
            .unwrap_or_default();
        super::refuse(
            "error/crash",
            &format!(
                "the hook crashed on signal {sig}{name} before it decided, so the call is refused"
            ),
        )
    }

    /// Writes the deny prepared at start-up and ends the process with exit 2, unrecorded.
    extern "C" fn deny_only(_sig: libc::c_int) {
        if let Some((stdout, stderr)) = FALLBACK.get() {
            write_fd(1, stdout.as_bytes());
            write_fd(2, stderr.as_bytes());
        }
        // SAFETY: _exit ends the process at once, as a signal handler may.
        unsafe { libc::_exit(2) }
    }

    /// Lets the tests crash the hook after it read its input (`segv`, `abort`, `stack`).
    /// Setting it can only make palisade refuse.
    pub fn test_crash() {
        let Some(how) = std::env::var_os("PALISADE_TEST_CRASH") else {
            return;
        };
        match how.to_str() {
            Some("abort") => std::process::abort(),
            Some("stack") => {
                #[allow(unconditional_recursion)]
                fn deeper(n: u64) -> u64 {
                    let pad = std::hint::black_box([n; 64]);
                    deeper(pad[0] + 1) + pad[63]
                }
                std::hint::black_box(deeper(0));
            }
            // SAFETY: not safe, on purpose: the fault the test wants.
            _ => unsafe { std::ptr::null_mut::<u8>().write_volatile(1) },
        }
    }
}
