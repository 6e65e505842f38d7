//! Shell analysis: a Bash command line parsed with a real parser (brush-parser) into the simple
//! commands it runs, with wrappers unwrapped and names normalised, plus findings for what cannot
//! be resolved statically.
//!
//! The analysis reports facts; the rule packs decide what is dangerous.
//!
//! Conventions of the result:
//! - Commands are listed in the order they start: a substitution's commands come before the
//!   command whose word holds it (they run first), with `in_substitution: true`.
//! - A wrapper that only launches something (`sudo`, `timeout`, `bash -c`, `eval`, `xargs`…)
//!   is replaced by what it launches, recorded in `wrappers`; `find` and `git` stay as
//!   commands of their own next to what they run, and so does any wrapper with nothing inside
//!   (`sudo -i`, `env`, `command -v x`). See `unwrap.rs`.
//! - A line that only redirects (`> file`) yields a command with an empty `program`.
//! - Variables assigned a literal earlier in the line are substituted (`D=/; rm -rf $D`),
//!   except `HOME`; brace expansion is performed (`{rm,-rf,/}`), capped in size.

/// Largest command line analysed; longer ones are a `TooComplex` finding.
pub const MAX_COMMAND_BYTES: usize = 256 * 1024;

/// How a command's directory is written when a `cd` from the line's own directory went to
/// the top of its git work tree: the scope resolves it (`Scope::resolve`).
pub const GIT_TOPLEVEL: &str = "$(git rev-parse --show-toplevel)";
/// Deepest nesting of `$(`, `(`, `{`, backticks and `bash -c` levels analysed.
pub const MAX_NESTING: usize = 64;

/// One word after unquoting: `'r''m'` → `rm`, `"$HOME/x"` → `$HOME/x`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    /// The value with quotes and escapes removed. Expansions that could not be resolved are
    /// kept as written (`$HOME`, `${X}`, `$(…)`), `~` at the start is kept as `~`.
    pub text: String,
    /// Contains a parameter expansion, command or arithmetic substitution that was not resolved.
    pub dynamic: bool,
    /// Contains an unquoted glob (`*`, `?`, `[`).
    pub glob: bool,
}

impl Word {
    /// A plain literal word.
    pub fn literal(text: impl Into<String>) -> Word {
        Word {
            text: text.into(),
            dynamic: false,
            glob: false,
        }
    }
}

/// How a redirection uses its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectKind {
    /// `<`
    Read,
    /// `>`, `>|`, `&>`
    Write,
    /// `>>`, `&>>`
    Append,
    /// `<>`
    ReadWrite,
    /// `>&N`, `<&N`: duplicates a descriptor, no file.
    Dup,
}

/// One file redirection of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub fd: Option<u32>,
    pub kind: RedirectKind,
    pub target: Word,
}

/// One simple command the line would run, after unwrapping.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Command {
    /// Normalised program name: basename, unquoted (`/bin/rm`, `\rm`, `r''m` → `rm`).
    pub program: String,
    /// The program word as written, unquoted (`/bin/rm`).
    pub program_path: String,
    /// Arguments, unquoted. For `git`, global options (`-C dir`, `-c k=v`, `--no-pager`…) are
    /// removed so that `args[0]` is the subcommand.
    pub args: Vec<Word>,
    /// Variable assignments in effect for this command (`FOO=1 cmd`, `env FOO=1 cmd`).
    pub env: Vec<(String, Word)>,
    pub redirects: Vec<Redirect>,
    /// Index (in `ShellAnalysis::commands`) of the command whose stdout is piped into this one.
    pub stdin_from: Option<usize>,
    /// Here-document or here-string text fed to stdin.
    pub stdin_text: Option<String>,
    /// Wrappers that were unwrapped to reach this command, outermost first
    /// (`sudo`, `env`, `bash -c`, `eval`, `xargs`, `find -exec`, `git alias`…).
    pub wrappers: Vec<String>,
    /// Runs with elevated privileges (`sudo`, `doas`, `su -c`, `pkexec` among the wrappers).
    pub privileged: bool,
    /// Arguments also come from stdin (`xargs`): the real targets are unknown.
    pub args_from_stdin: bool,
    /// Inside `$(…)`, backticks or `<(…)`/`>(…)`.
    pub in_substitution: bool,
    /// Directory the command runs in when the line changes it (`cd dir && …`, `git -C dir`).
    pub cwd: Option<String>,
}

/// What the analysis could not resolve, or found suspicious in the structure itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellFinding {
    /// The parser rejected the line (unterminated quote, bad syntax…).
    ParseError { message: String },
    /// Over the size or nesting bounds: not analysed.
    TooComplex { reason: String },
    /// The program itself is not known statically (`$x -rf /`, `$(echo rm) …`).
    DynamicProgram { text: String },
    /// A script string that is not known statically reaches a shell (`bash -c "$x"`, `eval $x`).
    DynamicScript { wrapper: String, text: String },
    /// An interpreter reads code from a pipe: `curl … | sh`, `base64 -d | bash`.
    /// `upstream` lists the programs feeding it, nearest first.
    InterpreterFromPipe {
        interpreter: String,
        upstream: Vec<String>,
    },
    /// An interpreter runs code from a substitution: `bash <(curl …)`, `sh -c "$(wget -O- …)"`,
    /// `python -c "$(…)"`. `inner` lists the programs of the substitution.
    InterpreterFromSubstitution {
        interpreter: String,
        inner: Vec<String>,
    },
    /// A package runner fetches the package it runs (or one it adds) from a URL or a
    /// repository: `npx github:u/r`, `uvx --from git+https://…`, `pnpm dlx https://…/p.tgz`.
    PackageFromUrl { runner: String, spec: String },
}

/// Everything the analysis learned about one command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShellAnalysis {
    pub commands: Vec<Command>,
    pub findings: Vec<ShellFinding>,
    /// The shell functions the line defines (`f() { …; }`), in order.
    pub functions: Vec<Function>,
}

/// A shell function defined in the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// Indices (in `ShellAnalysis::commands`) of the commands of its body.
    pub body: std::ops::Range<usize>,
}

mod awk;
mod bounds;
mod cmd;
mod escapes;
mod flags;
pub mod indirect;
mod operators;
pub mod option_commands;
mod parse;
mod powershell;
mod printed;
pub mod switches;
#[cfg(test)]
mod tests;
mod unwrap;
mod variables;
mod words;

pub use parse::git_toplevel;
pub use printed::{decoded_path, printed_text};
pub use unwrap::SCHEDULED_UNIT;

/// Set by `keep_syntax_trees`: the process ends after one call, so syntax trees are not freed.
static KEEP_TREES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// For a process that analyses one call and exits (the hook): syntax trees are left to the
/// exit instead of being freed one node at a time. Off in long-lived processes (tests,
/// `replay`, the fuzz targets), which would otherwise grow.
pub fn keep_syntax_trees() {
    KEEP_TREES.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether this process leaves syntax trees to its exit (`keep_syntax_trees`).
pub fn trees_kept() -> bool {
    KEEP_TREES.load(std::sync::atomic::Ordering::Relaxed)
}

/// Parses and analyses one command line. Never panics and never recurses without bound.
pub fn analyse(command: &str) -> ShellAnalysis {
    if !powershell::looks_like_powershell(command) {
        return parse::analyse(command);
    }
    analyse_powershell(command)
}

/// `analyse` of a line known to be PowerShell (Claude Code's PowerShell tool), however much
/// it looks like Bash (`dir env:`, `ls ~ | cat`).
pub fn analyse_powershell(command: &str) -> ShellAnalysis {
    if command.len() > powershell::MAX_BYTES {
        return parse::analyse(command);
    }
    // Read as PowerShell (rewritten to Bash with the same effects) and as Bash, and keep both:
    // a line that only looks like PowerShell loses nothing its Bash reading shows.
    let mut out = parse::analyse(&powershell::rewrite(command));
    let bash = parse::analyse(command);
    let offset = out.commands.len();
    for mut c in bash.commands {
        if powershell::powershell_only(&c.program) {
            c.program.clear();
            c.args.clear();
        }
        c.stdin_from = c.stdin_from.map(|i| i + offset);
        out.commands.push(c);
    }
    out.findings.extend(bash.findings.into_iter().filter(|f| {
        !matches!(
            f,
            ShellFinding::ParseError { .. }
                | ShellFinding::DynamicProgram { .. }
                | ShellFinding::DynamicScript { .. }
        )
    }));
    out
}
