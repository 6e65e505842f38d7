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

// musl's string functions and C allocator replaced (crates/musl-string and crates/musl-malloc
// say why); named here so the crates are linked, their definitions found before libc.a's.
#[cfg(all(target_env = "musl", target_arch = "x86_64"))]
extern crate musl_malloc;
#[cfg(all(target_env = "musl", target_arch = "x86_64"))]
extern crate musl_string;

/// On musl, TLSF over one reserved region (`musl_malloc::Heap`) instead of musl's allocator,
/// which maps and unmaps every large block: with it a 100 KB here-doc took 3 ms more
/// (docs/PERFORMANCE.md, "A musl build"). glibc's allocator is kept where it is the libc.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: musl_malloc::Heap = musl_malloc::Heap::new();

fn main() -> ExitCode {
    // Before anything allocates: see `crash::arm_first`.
    crash::arm_first();
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
    if std::env::args_os().nth(1).is_some_and(|a| a == SETTLE_ARG) {
        return settle(std::env::args_os().nth(2).map(PathBuf::from));
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

/// Logs go to stderr only, at `-v` (info) / `-vv` (debug) or per `RUST_LOG`
/// (`level` or `target=level,…`).
fn init_logging(verbose: u8) {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let default = match verbose {
        0 => LevelFilter::WARN,
        1 => LevelFilter::INFO,
        _ => LevelFilter::DEBUG,
    };
    // `Targets`, not `EnvFilter`: the same directives without span and field matching, and
    // without the regex engine's dense DFA that `EnvFilter` brings into every build, where
    // the scanners' patterns then built one each (Cargo.toml, regex-automata).
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|v| v.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(default));
    // The builder's own level (INFO unless set) would filter before `filter` sees an event.
    let _ = tracing_subscriber::fmt()
        .with_max_level(LevelFilter::TRACE)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .finish()
        .with(filter)
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
    // this thread; the first of a signal and the deadline (a timer's SIGALRM) hands the call to
    // a fresh image that records the refusal, as a fatal signal (a fault, an abort, a stack
    // overflow) does.
    crash::arm();
    if let Err(e) = crash::arm_stops(hook::deadline()) {
        emit_once(&HookAnswer::failure(&format!(
            "could not arm the hook's signal handlers and deadline: {e}"
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
    // Before the answer is claimed, so a failure here still ends in the deny path; Claude Code
    // waits for the process to exit either way, so the answer is not later for it.
    settle_later();
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

/// The hidden first argument of the process that checkpoints a store for a hook call.
const SETTLE_ARG: &str = "__settle-ledger";

/// Hands the checkpoints this call's commits made due (`ledger::take_due_checkpoints`) to a
/// process of their own, once the answer is decided: the call ends without waiting for the
/// syncs. The process gets no stdin, stdout or stderr (Claude Code waits for those to close)
/// and a process group of its own (a signal to the hook's group does not stop it half-way,
/// though that would lose nothing). If it cannot be started, the checkpoint runs here.
fn settle_later() {
    for store in palisade::ledger::take_due_checkpoints() {
        use std::os::unix::process::CommandExt;
        use std::process::{Command, Stdio};
        let started = std::env::current_exe().and_then(|exe| {
            on_this_cpu(|| {
                Command::new(exe)
                    .arg(SETTLE_ARG)
                    .arg(&store)
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .process_group(0)
                    .spawn()
            })
        });
        if started.is_err() {
            let _ = palisade::ledger::checkpoint(&store);
        }
    }
}

/// Runs `spawn` with the calling thread held to the CPU it is on, then lets it go again.
///
/// A spawn blocks its caller until the child has started the new program, and the kernel
/// moves a starting program to an idle CPU when there is one. On these VMs an idle virtual
/// CPU takes about a millisecond to wake, so one spawn in two cost the hook call about 1 ms
/// instead of 0.1 ms (docs/PERFORMANCE.md). The child inherits the one CPU, so it starts
/// where it was made and runs there once the hook has exited.
fn on_this_cpu<T>(spawn: impl FnOnce() -> T) -> T {
    let before = hold_to_this_cpu();
    let out = spawn();
    if let Some(before) = before {
        // SAFETY: a pointer to a set of the size given; pid 0 is the calling thread.
        unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&before), &before) };
    }
    out
}

/// Holds the calling thread to the CPU it runs on; the CPUs it was allowed before, when it
/// could be held (else it is left as it was).
fn hold_to_this_cpu() -> Option<libc::cpu_set_t> {
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: no argument.
    let cpu = usize::try_from(unsafe { libc::sched_getcpu() }).ok()?;
    // A CPU past the set's bits cannot be named in it (`CPU_SET` would index out of bounds).
    if cpu >= 8 * size {
        return None;
    }
    // SAFETY: `cpu_set_t` is plain data, for which all zeroes is the empty set.
    let (mut before, mut one): (libc::cpu_set_t, libc::cpu_set_t) =
        unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
    // SAFETY: pointers to sets of the size given (`cpu` is within it, above); pid 0 is the
    // calling thread.
    let held = unsafe {
        libc::CPU_SET(cpu, &mut one);
        libc::sched_getaffinity(0, size, &mut before) == 0
            && libc::sched_setaffinity(0, size, &one) == 0
    };
    held.then_some(before)
}

/// `palisade __settle-ledger STORE`: checkpoints one session's store (`settle_later`). Exit 1,
/// saying why on stderr, when the store cannot be opened.
fn settle(store: Option<PathBuf>) -> ExitCode {
    let Some(store) = store else {
        eprintln!("palisade {SETTLE_ARG}: a store's path is needed");
        return ExitCode::from(1);
    };
    // Only a store of this state directory: the command is palisade's own, not a way to
    // write to other databases.
    let ledgers = Locations::from_env().data_dir.join("ledger");
    let inside = std::fs::canonicalize(&ledgers).is_ok_and(|dir| {
        std::fs::canonicalize(&store).is_ok_and(|s| s.parent() == Some(dir.as_path()))
    });
    if !inside {
        eprintln!(
            "palisade {SETTLE_ARG}: {} is not a session's store in {}",
            store.display(),
            ledgers.display()
        );
        return ExitCode::from(1);
    }
    match palisade::ledger::checkpoint(&store) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("palisade {SETTLE_ARG}: {e}");
            ExitCode::from(1)
        }
    }
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

/// Signals in the hook. A process killed by a signal exits with neither 0 nor 2, which Claude
/// Code takes for a non-blocking error: the tool would run. So a fault, an abort (a double
/// panic, an allocation failure), a stack overflow, a stop request (SIGTERM, SIGINT, SIGHUP)
/// and the deadline (SIGALRM from a timer) hand the event to a fresh image of this binary
/// (`execve`, which a signal handler may call), which records the refusal and answers deny
/// with exit 2, as a panic does. When that cannot be done, the handler still answers deny and
/// exits 2, unrecorded.
///
/// Handlers and a timer, not a watcher thread: a second thread made every call pay for its
/// creation and, at exit, for the kernel waking it to end it, which on a busy machine waited
/// for a CPU (docs/PERFORMANCE.md, "One thread per call, then none").
mod crash {
    use super::{ANSWERED, INPUT};

    /// The hidden first argument of the fresh image that records a refused call.
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

    /// Requests to stop, which end a call in a deny instead of killing the process.
    const STOPS: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

    /// The deadline's signal, sent by the timer `arm_stops` sets.
    const DEADLINE: libc::c_int = libc::SIGALRM;

    /// A deny answer fixed at compile time: its rule and reason, then what `deny_only`
    /// writes, stdout and stderr, as `HookAnswer::for_verdict` makes them for
    /// `Verdict::failure(rule, reason)` (`tests::the_fixed_denies_are_the_hooks_own`).
    macro_rules! fixed_deny {
        ($rule:literal, $reason:literal) => {
            (
                $rule,
                $reason,
                concat!(
                    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","#,
                    r#""permissionDecision":"deny","permissionDecisionReason":"palisade: "#,
                    $reason,
                    " [",
                    $rule,
                    r#"]"}}"#
                ),
                concat!("palisade: ", $reason, " [", $rule, "]\n"),
            )
        };
    }

    /// The deny answers of a crash and of a stop, fixed text: a signal handler cannot format
    /// or allocate. Made at start-up with the JSON writer instead, they were 5-8% of a short
    /// call: the writer's code paged in for a call that prints nothing.
    const FALLBACK: [(&str, &str, &str, &str); 2] = [
        fixed_deny!(
            "error/crash",
            "the hook crashed before it decided, so the call is refused"
        ),
        fixed_deny!(
            "error/signal",
            "palisade was stopped or ran out of time before it decided, so the call is refused"
        ),
    ];

    /// Arms the handlers before anything allocates. An allocation that failed this early (the
    /// argument list, under an address-space limit just above the binary's size) aborted
    /// before `run_hook` or `record` armed theirs, and SIGABRT ended the process unanswered
    /// (`scripts/memlimit.sh` at 13,000 KB). A fresh image (`hand_over`) gets `deny_only` and
    /// its fatal signals delivered, as `record` gives them; a hook call gets `on_fatal`. The
    /// first argument is read from `/proc/self/cmdline` into a stack buffer; any other process,
    /// or one whose arguments cannot be read so, is left as it was.
    pub fn arm_first() {
        let mut buf = [0u8; 4096];
        match first_argument(&mut buf) {
            Some(a) if a == RECORD_ARG.as_bytes() => {
                arm_with(deny_only);
                deliver_faults();
            }
            Some(b"hook") => arm(),
            _ => {}
        }
    }

    /// The process's first argument after the program, read once from `/proc/self/cmdline`
    /// into `buf`, without allocating; `None` when it cannot be read whole.
    fn first_argument(buf: &mut [u8; 4096]) -> Option<&[u8]> {
        // SAFETY: a NUL-terminated path, a buffer of its length, the descriptor closed here.
        let n = unsafe {
            let fd = libc::open(
                c"/proc/self/cmdline".as_ptr(),
                libc::O_RDONLY | libc::O_CLOEXEC,
            );
            if fd < 0 {
                return None;
            }
            let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
            libc::close(fd);
            n
        };
        let read = &buf[..usize::try_from(n).ok()?];
        // A program name longer than the buffer leaves no whole second argument.
        let program_end = read.iter().position(|b| *b == 0)?;
        let rest = &read[program_end + 1..];
        let end = rest.iter().position(|b| *b == 0)?;
        Some(&rest[..end])
    }

    /// Whether the process's first argument after the program is `want`.
    #[cfg(test)]
    pub(super) fn first_argument_is(want: &[u8]) -> bool {
        let mut buf = [0u8; 4096];
        first_argument(&mut buf) == Some(want)
    }

    /// Installs the handler for every fatal signal.
    pub fn arm() {
        arm_with(on_fatal);
    }

    fn arm_with(handler: extern "C" fn(libc::c_int)) {
        for (sig, _) in FATAL {
            // Not SA_RESETHAND: a second thread that faults or aborts while the first one's
            // handler runs (two allocations failing at once, under an address-space limit)
            // must reach the handler too, which denies, not the default action, which ended
            // the process with no answer. A fault inside the handler is still fatal, not a
            // loop: its signal is blocked there, and the kernel delivers a blocked fault with
            // the default action.
            install(sig, handler, 0);
        }
    }

    /// Installs `handler` for `sig`. SA_ONSTACK runs it on the alternate stack std sets up for
    /// each thread, so a stack overflow can be handled. While it runs, the stops and the
    /// deadline are blocked, and `execve` keeps them blocked in the fresh image: a second
    /// SIGTERM, or the timer, cannot kill the process that is recording the refusal.
    fn install(sig: libc::c_int, handler: extern "C" fn(libc::c_int), flags: libc::c_int) {
        // SAFETY: a zeroed sigaction with a handler of the right signature and an initialised
        // mask.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as usize;
            action.sa_flags = libc::SA_ONSTACK | flags;
            action.sa_mask = held();
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }

    /// The stops and the deadline's signal.
    fn held() -> libc::sigset_t {
        set_of(STOPS.into_iter().chain([DEADLINE]))
    }

    /// The set of `sigs`.
    fn set_of(sigs: impl IntoIterator<Item = libc::c_int>) -> libc::sigset_t {
        // SAFETY: a zeroed sigset_t, which sigemptyset initialises before it is added to.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for sig in sigs {
                libc::sigaddset(&mut set, sig);
            }
            set
        }
    }

    /// Installs the handler for the stops and the deadline, and starts the deadline's timer.
    pub fn arm_stops(deadline: std::time::Duration) -> std::io::Result<()> {
        for sig in STOPS.into_iter().chain([DEADLINE]) {
            // SA_RESTART: when the handler returns (the call was already answered), the work
            // it interrupted goes on as if nothing happened.
            install(sig, on_stop, libc::SA_RESTART);
        }
        // A zero timer would be no timer: the shortest deadline is one microsecond.
        let left = deadline.max(std::time::Duration::from_micros(1));
        let timer = libc::itimerval {
            it_interval: libc::timeval {
                tv_sec: 0,
                tv_usec: 0,
            },
            it_value: libc::timeval {
                // Not named as `libc::time_t`: on musl that alias is deprecated (its width
                // changes in a later libc), and the clamp fits every width.
                tv_sec: left.as_secs().try_into().unwrap_or(i32::MAX.into()),
                tv_usec: left.subsec_micros().into(),
            },
        };
        // SAFETY: a valid timer value; the old one is not asked for.
        if unsafe { libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
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
            hand_over(sig);
        }
        // Another path answered already, or the fresh image could not start: deny, unrecorded.
        deny_only(sig)
    }

    /// A stop or the deadline. When another path has answered (the work, a panic, a crash),
    /// that answer stands and this returns: the process is already ending with it.
    extern "C" fn on_stop(sig: libc::c_int) {
        if !ANSWERED.swap(true, std::sync::atomic::Ordering::SeqCst) {
            hand_over(sig);
            deny_only(sig)
        }
    }

    /// Replaces this process with a fresh image that records the refusal: its standard input
    /// holds the signal's number on a line, then the event. Returns only if that failed.
    fn hand_over(sig: libc::c_int) {
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

    /// The fresh image's work: standard input holds the signal's number on a line, then the
    /// event. Records the refusal (waiting at most as long as any refusal waits for its record)
    /// and answers deny, exit 2; a crash here only denies.
    pub fn record() -> ! {
        // The handler that started this image kept the stops and the deadline blocked; so
        // does this image, whatever started it: nothing may kill it before it answers.
        // SAFETY: a valid set; the old mask is not asked for.
        unsafe {
            libc::pthread_sigmask(libc::SIG_BLOCK, &held(), std::ptr::null_mut());
        }
        arm_with(deny_only);
        deliver_faults();
        // This image answers for the hook too: a panic here (any thread) is the deny prepared
        // at start-up, never an exit 101.
        std::panic::set_hook(Box::new(|_| deny_only(0)));
        if std::env::var_os("PALISADE_TEST_PANIC").is_some() {
            // Lets the tests prove it; setting it can only make palisade refuse.
            panic!("PALISADE_TEST_PANIC is set");
        }
        if let Some(how) = std::env::var_os("PALISADE_TEST_RECORD_CRASH") {
            // Lets the tests crash this image too; setting it can only make palisade refuse.
            crash_as(how.to_str());
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
        let (rule, reason) = match sig.parse::<libc::c_int>() {
            Ok(DEADLINE) => (
                "error/deadline",
                format!(
                    "palisade did not decide within its {} ms deadline, so the call is refused",
                    palisade::hook::deadline().as_millis()
                ),
            ),
            Ok(n) if STOPS.contains(&n) => (
                "error/signal",
                format!("palisade received signal {n} before it decided, so the call is refused"),
            ),
            _ => {
                let name = FATAL
                    .iter()
                    .find(|(s, _)| sig.parse() == Ok(*s))
                    .map(|(_, n)| format!(" ({n})"))
                    .unwrap_or_default();
                (
                    "error/crash",
                    format!(
                        "the hook crashed on signal {sig}{name} before it decided, so the call is refused"
                    ),
                )
            }
        };
        super::refuse(rule, &reason)
    }

    /// Lets the fatal signals reach `deny_only` in the fresh image. The handler that started
    /// it ran with its own signal blocked, and `execve` keeps the mask: a fault there, or an
    /// abort (an allocation that fails again, as under an address-space limit), ended the
    /// process by that signal, with no answer, which lets the call run. One pending from the
    /// image before (the crash being recorded now) is taken first, not answered twice.
    fn deliver_faults() {
        let fatal = set_of(FATAL.map(|(sig, _)| sig));
        // SAFETY: a valid, initialised signal set; a zero timeout only polls.
        unsafe {
            let now = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            while libc::sigtimedwait(&fatal, std::ptr::null_mut(), &now) > 0 {}
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &fatal, std::ptr::null_mut());
        }
    }

    /// Writes the deny prepared at start-up and ends the process with exit 2, unrecorded.
    extern "C" fn deny_only(sig: libc::c_int) {
        let stopped = STOPS.contains(&sig) || sig == DEADLINE;
        let [crashed, stop] = FALLBACK;
        let (_, _, stdout, stderr) = if stopped { stop } else { crashed };
        write_fd(1, stdout.as_bytes());
        write_fd(2, stderr.as_bytes());
        // SAFETY: _exit ends the process at once, as a signal handler may.
        unsafe { libc::_exit(2) }
    }

    /// Lets the tests crash the hook after it read its input (`segv`, `abort`, `stack`).
    /// Setting it can only make palisade refuse.
    pub fn test_crash() {
        if let Some(how) = std::env::var_os("PALISADE_TEST_CRASH") {
            crash_as(how.to_str());
        }
    }

    /// Crashes the process: `abort`, `stack` (an overflow), or else a fault.
    fn crash_as(how: Option<&str>) {
        match how {
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

    #[cfg(test)]
    mod tests {
        /// What a crash or a stop writes is what the hook writes for the same refusal.
        #[test]
        fn the_fixed_denies_are_the_hooks_own() {
            for (rule, reason, stdout, stderr) in super::FALLBACK {
                let answer = palisade::hook::HookAnswer::for_verdict(
                    &palisade::verdict::Verdict::failure(rule, reason),
                );
                assert_eq!(stdout, answer.stdout);
                assert_eq!(stderr, format!("{}\n", answer.stderr));
                assert_eq!(answer.code, 2);
            }
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_first_argument_is_read_from_proc_as_std_reads_it() {
        // The harness's own first argument (a filter when one is given), or none.
        if let Some(first) = std::env::args_os().nth(1) {
            assert!(super::crash::first_argument_is(first.as_encoded_bytes()));
        }
        assert!(!super::crash::first_argument_is(b"hook"));
        assert!(!super::crash::first_argument_is(b"__record-crash"));
    }
    use super::on_this_cpu;

    /// The CPUs a process's status file lists as allowed (`/proc/thread-self/status` for the
    /// calling thread).
    fn allowed(status: &str) -> String {
        status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .expect("the status names the allowed CPUs")
            .trim()
            .to_string()
    }

    /// A spawn made by `on_this_cpu` starts on one CPU, the caller's, and the caller is
    /// allowed its CPUs again afterwards.
    #[test]
    fn a_spawn_is_held_to_the_cpu_it_is_made_on() {
        let mine = || allowed(&std::fs::read_to_string("/proc/thread-self/status").unwrap());
        let before = mine();
        let (held, child) = on_this_cpu(|| {
            let out = std::process::Command::new("cat")
                .arg("/proc/self/status")
                .output()
                .unwrap();
            (mine(), allowed(&String::from_utf8(out.stdout).unwrap()))
        });
        assert!(
            held.parse::<usize>().is_ok(),
            "one CPU while spawning: {held}"
        );
        assert_eq!(child, held, "the child starts on the caller's CPU");
        assert_eq!(mine(), before, "the caller is let go");
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cpus > 1 {
            assert_ne!(held, before, "held to fewer CPUs than it had");
        }
    }
}
