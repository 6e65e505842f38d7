//! The walk over brush-parser's AST: every simple command the line can run, in order, with the
//! pipes, redirections and substitutions around it.

use super::bounds::{self, Rejection};
use super::variables::Variables;
use super::words::{Expanded, basename, guarded};
use super::{Command, MAX_NESTING, Redirect, RedirectKind, ShellAnalysis, ShellFinding, Word};
use brush_parser::ast;
use brush_parser::{Parser, ParserOptions};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::LazyLock;

/// More commands than this in one line is not a command a person reviews: stop there (a
/// `TooComplex` finding). Analysis is linear in the commands, so the bound is about memory;
/// the 256 KiB line bound allows about 128k one-letter stages.
const MAX_COMMANDS: usize = 50_000;

/// Compound commands nested in one another, across all nested scripts: the pre-scan bounds
/// each text, this bounds their sum.
const MAX_WALK_DEPTH: usize = 4 * MAX_NESTING;

static PARSER_OPTIONS: LazyLock<ParserOptions> = LazyLock::new(ParserOptions::default);

/// Where the commands being walked stand: inherited by everything nested inside.
#[derive(Debug, Clone, Default)]
pub(super) struct Ctx {
    /// Nested parses and unwraps so far; bounded by `MAX_NESTING`.
    pub depth: usize,
    pub wrappers: Vec<String>,
    pub privileged: bool,
    pub in_substitution: bool,
    pub args_from_stdin: bool,
    pub cwd: Option<String>,
    /// Where `cd -` goes: the directory before the line's last `cd` (`Some(None)`: the
    /// line's own), `None` before any.
    pub old_cwd: Option<Option<String>>,
    /// The directories `pushd` left, for `popd`.
    pub dir_stack: Vec<Option<String>>,
    /// Command whose output feeds the stdin of the commands at this level.
    pub stdin_from: Option<usize>,
    /// Programs of the pipeline stages feeding this level, nearest first, each once, at most
    /// `MAX_UPSTREAM` of them. Shared, not copied, by the contexts of a pipeline's stages.
    pub upstream: Rc<[Rc<str>]>,
    /// Redirections of an enclosing compound command or wrapper, applied to every command.
    pub redirects: Vec<Redirect>,
    /// `$0`, `$1`… of a `sh -c SCRIPT NAME ARGS` script; `None` where not literal.
    pub positional: Vec<Option<String>>,
    /// The assignments the command that runs this script carries (`x=v bash -c …`,
    /// `x=v eval …`): variables of the script, not of the line after it.
    pub script_env: Vec<(String, Word)>,
    /// Variables a `while read VAR` loop fills from its input, in the loop's body: a command
    /// given one takes its arguments from that input, as under `xargs`.
    pub read_vars: Vec<String>,
}

/// One simple command before unwrapping.
#[derive(Debug, Clone, Default)]
pub(super) struct Invocation {
    pub program: Expanded,
    pub args: Vec<Expanded>,
    pub env: Vec<(String, Word)>,
    pub redirects: Vec<Redirect>,
    pub stdin_from: Option<usize>,
    /// Here-document or here-string fed to stdin.
    pub stdin_text: Option<Expanded>,
    /// Programs of a process substitution read on stdin (`< <(curl …)`).
    pub stdin_substitution: Option<Vec<String>>,
}

/// Most distinct programs kept in `Ctx::upstream` (the nearest ones).
const MAX_UPSTREAM: usize = 64;

/// Loop lists up to this long are walked once per value; longer ones once, values unknown.
const MAX_LOOP_VALUES: usize = 8;

/// The analysis state of one line.
#[derive(Default, Clone)]
pub(super) struct Analyser<'s> {
    /// The text of the whole line: a body taken out of it (`cut`) is read back from it.
    source: &'s str,
    pub out: ShellAnalysis,
    /// Variables assigned a literal value earlier in the line.
    pub vars: Variables,
    stopped: bool,
    /// Current depth of the AST walk, bounded independently of the pre-scan.
    walk_depth: usize,
    /// What the line has set IFS to: how an unquoted value splits.
    pub ifs: Ifs,
    /// A name reference was declared in the line (`declare -n r=x`): an assignment to one
    /// name may then change another, so no variable's value is known after it.
    pub namerefs: bool,
    /// Aliases defined earlier in the line (`alias x='rm -rf'`), by name, with each value they
    /// may have (more than one when defined otherwise on another way through the line).
    pub aliases: Rc<HashMap<String, Vec<String>>>,
    /// The here-document body taken out of the text being parsed (`bounds::check_cut`), and
    /// whether the walk has read it back in.
    cut: Option<(bounds::Cut, bool)>,
    /// Parse every text whole, never taking a body out (the tests that compare the two).
    whole: bool,
    /// Functions defined earlier in the line and their bodies (small ones), by name: a call
    /// walks its function's body again with the call's arguments as `$1`… (`called`).
    defined: Rc<Vec<(String, Rc<ast::CompoundCommand>)>>,
    /// Calls walked so far, and how many are being walked now (calls within calls).
    calls_walked: usize,
    calling: usize,
    /// What each walk of a function's body where it was defined added, and the functions
    /// whose calls were walked with their arguments (`drop_definition_walks`).
    definition_walks: Vec<DefinitionWalk>,
    called_names: Vec<String>,
    /// The definition walks being walked now (ids into `definition_walks`), and for each
    /// finding the walks it was found in each time (an empty list: outside all of them).
    /// A finding is kept once (`finding`), so one found again at a call is only noted here.
    open_definitions: Vec<usize>,
    finding_sites: Vec<Vec<Vec<usize>>>,
    /// For each call being walked, the names its body made local (`local x`): the caller's
    /// values are put back when the call ends.
    locals: Vec<Vec<String>>,
    /// Loops being walked a second time (`walk_loop`), bounded so nested loops are not
    /// walked exponentially often.
    loop_passes: usize,
    /// A call of a function defined in the line was not walked (`MAX_CALL_DEPTH`,
    /// `MAX_CALLS_WALKED`): no definition's walk is then dropped.
    calls_cut_short: bool,
    /// Variables the line put in the environment of the commands after it (`export X=v`,
    /// `declare -x X=v`, or an assignment to a variable every environment holds: `HOME=…;`),
    /// by name, each with its value: later commands get them as if written before them.
    exported: Rc<Vec<(String, Word)>>,
}

/// Variables every process environment holds: a plain assignment to one (`HOME=/tmp/h;`)
/// changes what later commands get, as `export` would.
const ALWAYS_EXPORTED: &[&str] = &["HOME", "PATH", "USER", "SHELL", "TMPDIR"];

/// What a subshell changes only for itself (`Analyser::shell_state`): cheap to copy, its maps
/// shared until one side changes them.
#[derive(Clone)]
pub(super) struct ShellState {
    vars: Variables,
    aliases: Rc<HashMap<String, Vec<String>>>,
    defined: Rc<Vec<(String, Rc<ast::CompoundCommand>)>>,
    ifs: Ifs,
    namerefs: bool,
    exported: Rc<Vec<(String, Word)>>,
}

/// IFS as the line has set it, which is how an unquoted value's expansion splits into words.
#[derive(Default, Clone, PartialEq, Eq, Debug)]
pub(super) enum Ifs {
    /// Not assigned: space, tab and newline.
    #[default]
    Default,
    /// Assigned a literal value (`IFS=,`): `x=rm,-rf,/; $x` is `rm -rf /`.
    Set(String),
    /// Assigned a value not known, or possibly through a name reference.
    Unknown,
}

impl Ifs {
    /// The characters that split an unquoted value, when known.
    pub(super) fn separators(&self) -> Option<&str> {
        match self {
            Ifs::Default => Some(super::words::DEFAULT_IFS),
            Ifs::Set(s) => Some(s),
            Ifs::Unknown => None,
        }
    }
}

/// The state a way through a conditional ends in (`Analyser::merged`): the shell's, and where
/// its commands run and with which parameters.
#[derive(Clone)]
struct PathState {
    shell: ShellState,
    cwd: Option<String>,
    old_cwd: Option<Option<String>>,
    dir_stack: Vec<Option<String>>,
    positional: Vec<Option<String>>,
}

/// What holds after one of two ways through a conditional, not knowing which: what both agree
/// on; an alias or function either defines (each of an alias's values); a directory or
/// parameters they disagree on, not known.
fn merged(a: PathState, b: &PathState) -> PathState {
    let mut a = PathState {
        shell: merged_shell(a.shell, &b.shell),
        ..a
    };
    if a.cwd != b.cwd {
        a.cwd = Some(unknown_dir("cd on one way through the line"));
    }
    if a.old_cwd != b.old_cwd || a.dir_stack != b.dir_stack {
        a.old_cwd = None;
        a.dir_stack.clear();
    }
    if a.positional != b.positional {
        a.positional = if a.positional.is_empty() || b.positional.is_empty() {
            Vec::new()
        } else {
            let name = a.positional[0]
                .clone()
                .filter(|n| b.positional[0].as_ref() == Some(n));
            vec![name, None]
        };
    }
    a
}

/// Whether a declaring builtin puts what it assigns in the environment: `export`, or
/// `declare`/`typeset` with `-x` (and not `+x`).
fn exports(inv: &Invocation) -> bool {
    match inv.program.text() {
        "export" => !inv.args.iter().any(|a| a.text() == "-n"),
        "declare" | "typeset" => inv
            .args
            .iter()
            .any(|a| a.text().starts_with('-') && a.text().contains('x')),
        _ => false,
    }
}

/// `merged` for the shell's own state: the variables both agree on, each alias value and
/// function either defines, the IFS and nameref flags if either set them.
pub(super) fn merged_shell(mut a: ShellState, b: &ShellState) -> ShellState {
    a.vars.keep_unchanged_since(&b.vars);
    if !Rc::ptr_eq(&a.aliases, &b.aliases) {
        let aliases = Rc::make_mut(&mut a.aliases);
        for (name, values) in b.aliases.iter() {
            let mine = aliases.entry(name.clone()).or_default();
            for v in values {
                if !mine.contains(v) {
                    mine.push(v.clone());
                }
            }
        }
    }
    if !Rc::ptr_eq(&a.defined, &b.defined) {
        let defined = Rc::make_mut(&mut a.defined);
        for (name, body) in b.defined.iter() {
            if !defined.iter().any(|(n, _)| n == name) {
                defined.push((name.clone(), Rc::clone(body)));
            }
        }
    }
    if a.ifs != b.ifs {
        a.ifs = Ifs::Unknown;
    }
    a.namerefs |= b.namerefs;
    // A variable exported on either way is in the environment after (its value that way's).
    if !Rc::ptr_eq(&a.exported, &b.exported) {
        let exported = Rc::make_mut(&mut a.exported);
        for (name, value) in b.exported.iter() {
            if !exported.iter().any(|(n, _)| n == name) {
                exported.push((name.clone(), value.clone()));
            }
        }
    }
    a
}

/// The commands a walk of a function's body at its definition added.
#[derive(Clone)]
struct DefinitionWalk {
    name: String,
    commands: std::ops::Range<usize>,
}

/// Nested loops walked twice over at most; inside more, a body is walked once with no
/// variable known (`Analyser::walk_loop`).
const MAX_LOOP_PASSES: usize = 2;

/// Whether two states are one (the same shared maps, directory and parameters): merging them
/// changes nothing.
fn same_place(a: &PathState, b: &PathState) -> bool {
    a.shell.vars.is(&b.shell.vars)
        && Rc::ptr_eq(&a.shell.aliases, &b.shell.aliases)
        && Rc::ptr_eq(&a.shell.defined, &b.shell.defined)
        && a.shell.ifs == b.shell.ifs
        && a.shell.namerefs == b.shell.namerefs
        && a.cwd == b.cwd
        && a.old_cwd == b.old_cwd
        && a.dir_stack == b.dir_stack
        && a.positional == b.positional
}

/// Whether two states hold the same variables, directory and parameters (what a loop's
/// second pass would change).
fn same_state(a: &PathState, b: &PathState) -> bool {
    a.shell.vars.same_as(&b.shell.vars)
        && a.cwd == b.cwd
        && a.positional == b.positional
        && a.shell.ifs == b.shell.ifs
        && a.shell.namerefs == b.shell.namerefs
}

/// Most distinct places one finding is noted at (`Analyser::note_site`); past it the finding
/// counts as found outside every definition walk, so it is kept.
const MAX_FINDING_SITES: usize = 16;

/// Functions bash calls without their name being written at the call.
const CALLED_IMPLICITLY: &[&str] = &["command_not_found_handle"];

/// The positional parameters `$0`, `$1`… given by `words` (`None` where not known). A word
/// not known may be any number of fields, so every parameter from it on is not known, nor
/// how many there are (one `None` stands for them).
pub(super) fn positional_from<'w>(
    name: Option<String>,
    words: impl Iterator<Item = Option<&'w str>>,
) -> Vec<Option<String>> {
    let mut out = vec![name];
    for w in words {
        match w {
            Some(text) => out.push(Some(text.to_string())),
            None => {
                out.push(None);
                break;
            }
        }
    }
    out
}

/// A function body of more commands than this is not walked again at its calls.
const MAX_CALLED_BODY: usize = 256;
/// Calls within calls walked at most this deep, and at most this many in a line: a body
/// that calls functions twice over would otherwise be walked exponentially often.
const MAX_CALL_DEPTH: usize = 3;
pub(super) const MAX_CALLS_WALKED: usize = 32;

/// Entry point behind `shell::analyse`.
pub(super) fn analyse(command: &str) -> ShellAnalysis {
    analyse_with(command, false)
}

/// One script's analysis as `Analyser::analyse_script` gives it (no repair), with every text
/// parsed whole when `whole`.
#[cfg(test)]
pub(super) fn script_with(command: &str, whole: bool) -> ShellAnalysis {
    let mut a = Analyser {
        source: command,
        whole,
        ..Default::default()
    };
    a.analyse_script(command, &mut Ctx::default());
    a.out
}

/// `analyse`, with every text parsed whole when `whole` (see `Analyser::cut`).
pub(super) fn analyse_with(command: &str, whole: bool) -> ShellAnalysis {
    let mut a = Analyser {
        source: command,
        whole,
        ..Default::default()
    };
    let mut ctx = Ctx::default();
    a.analyse_script(command, &mut ctx);
    a.drop_definition_walks();
    // Rejected as a whole: judge what a tolerant reading shows (`echo "unclosed` is an echo).
    // Bash runs nothing of a line it cannot parse, so reading the broken tail as quoted text
    // never hides a command it would run; what stays unparseable after repair is still asked.
    if a.out.commands.is_empty()
        && !a.out.findings.is_empty()
        && a.out
            .findings
            .iter()
            .all(|f| matches!(f, ShellFinding::ParseError { .. }))
        && let Some(repaired) = repair(command)
    {
        let mut b = Analyser {
            source: &repaired,
            whole,
            ..Default::default()
        };
        let mut ctx = Ctx::default();
        b.analyse_script(&repaired, &mut ctx);
        b.drop_definition_walks();
        if !b
            .out
            .findings
            .iter()
            .any(|f| matches!(f, ShellFinding::ParseError { .. }))
        {
            return b.out;
        }
    }
    a.out
}

/// The line with unterminated quotes, backticks and `$(` closed at its end and unbalanced
/// `)` dropped; `None` when there is nothing to repair.
fn repair(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 4);
    // Open quotes and parentheses, with where they start in `out`.
    let mut open: Vec<char> = Vec::new();
    let mut at: Vec<usize> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let top = open.last().copied();
        if top == Some('\'') {
            if c == '\'' {
                open.pop();
                at.pop();
            }
            out.push(c);
            continue;
        }
        if c == '\\' {
            out.push(c);
            if let Some(n) = chars.next() {
                out.push(n);
            }
            continue;
        }
        let opens = match c {
            '"' if top == Some('"') => false,
            '`' if top == Some('`') => false,
            ')' if top == Some('(') => false,
            ')' if top.is_none() => continue,
            '"' | '`' => true,
            '\'' => top != Some('"'),
            '(' => top != Some('"') || out.ends_with('$'),
            _ => {
                out.push(c);
                continue;
            }
        };
        if opens {
            open.push(c);
            at.push(out.len());
        } else if matches!(c, '"' | '`' | ')') {
            open.pop();
            at.pop();
        }
        out.push(c);
    }
    // Closing many nested `(` makes a text brush-parser backtracks over for seconds: such a
    // line stays unparseable (and is asked) instead.
    if open.iter().filter(|c| **c == '(').count() > super::bounds::MAX_UNCLOSED_PARENS {
        return None;
    }
    while let (Some(c), Some(start)) = (open.pop(), at.pop()) {
        if c != '(' && out[start + 1..].trim().is_empty() {
            // A stray quote with nothing after it quotes nothing: drop it.
            out.truncate(start);
        } else {
            out.push(if c == '(' { ')' } else { c });
        }
    }
    (out != text).then_some(out)
}

impl Analyser<'_> {
    pub(super) fn parse_error(&mut self, message: String) {
        self.out.findings.push(ShellFinding::ParseError { message });
        self.finding_sites.push(vec![self.open_definitions.clone()]);
    }

    pub(super) fn too_complex(&mut self, reason: String) {
        self.finding(ShellFinding::TooComplex { reason });
    }

    /// The variables, aliases and functions the shell has now, to put back after a subshell.
    pub(super) fn shell_state(&self) -> ShellState {
        ShellState {
            vars: self.vars.clone(),
            aliases: Rc::clone(&self.aliases),
            defined: Rc::clone(&self.defined),
            ifs: self.ifs.clone(),
            namerefs: self.namerefs,
            exported: Rc::clone(&self.exported),
        }
    }

    /// Back to `before` after a subshell: what it assigned, aliased or defined was its own
    /// (`x=/; (x=build); rm -rf $x` deletes `/`).
    pub(super) fn leave_subshell(&mut self, before: ShellState) {
        self.vars = before.vars;
        self.aliases = before.aliases;
        self.defined = before.defined;
        self.ifs = before.ifs;
        self.namerefs = before.namerefs;
        self.exported = before.exported;
    }

    /// Puts `name` in the environment of the commands after this one, with `value`.
    fn export(&mut self, name: &str, value: Word) {
        let exported = Rc::make_mut(&mut self.exported);
        exported.retain(|(n, _)| n != name);
        exported.push((name.to_string(), value));
    }

    fn path_state(&self, ctx: &Ctx) -> PathState {
        PathState {
            shell: self.shell_state(),
            cwd: ctx.cwd.clone(),
            old_cwd: ctx.old_cwd.clone(),
            dir_stack: ctx.dir_stack.clone(),
            positional: ctx.positional.clone(),
        }
    }

    /// Continues from `s`: the start of one way through a conditional, or where they all end.
    fn set_path_state(&mut self, ctx: &mut Ctx, s: PathState) {
        self.leave_subshell(s.shell);
        ctx.cwd = s.cwd;
        ctx.old_cwd = s.old_cwd;
        ctx.dir_stack = s.dir_stack;
        ctx.positional = s.positional;
    }

    /// Walks `f` as a subshell: the shell's state is put back after it.
    fn in_subshell<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let before = self.shell_state();
        let out = f(self);
        self.leave_subshell(before);
        out
    }

    /// Adds `f` once; found again, notes where (`finding_sites`).
    pub(super) fn finding(&mut self, f: ShellFinding) {
        match self.out.findings.iter().position(|x| *x == f) {
            Some(at) => self.note_site(at),
            None => {
                self.out.findings.push(f);
                self.finding_sites.push(vec![self.open_definitions.clone()]);
            }
        }
    }

    fn note_site(&mut self, at: usize) {
        let here = &self.open_definitions;
        let Some(sites) = self.finding_sites.get_mut(at) else {
            return;
        };
        if sites.contains(here) || sites.iter().any(Vec::is_empty) {
            return;
        }
        sites.push(if sites.len() < MAX_FINDING_SITES {
            here.clone()
        } else {
            Vec::new()
        });
    }

    /// Parses `text` as a script and walks it in `ctx` (whose `cwd` it may change). Returns
    /// the last command run at the top level of the script.
    pub(super) fn analyse_script(&mut self, text: &str, ctx: &mut Ctx) -> Option<usize> {
        if self.stopped {
            return None;
        }
        if ctx.depth > MAX_NESTING {
            self.too_complex(format!(
                "more than {MAX_NESTING} nested substitutions or wrapped shells"
            ));
            return None;
        }
        // At the top of a fresh analysis, a here-document body read raw is taken out of the
        // text before the parse and read back in by the walk (`bounds::check_cut`). The walk
        // is kept only when the parser read the stand-in line as that body, which it reads
        // as it reads the text whole (the text before the body is the same, and so is its
        // end); else everything is done again on the whole text.
        let fresh = !self.whole
            && std::ptr::eq(text, self.source)
            && self.cut.is_none()
            && ctx.depth == 0
            && self.out.commands.is_empty()
            && self.out.findings.is_empty();
        let checked = if fresh {
            bounds::check_cut(text)
        } else {
            bounds::check(text).map(|t| (t, None))
        };
        let (checked, cut) = self.admitted(checked)?;
        let Some(cut) = cut else {
            return self.parse_and_walk(&checked, ctx).flatten();
        };
        let saved = (self.clone(), ctx.clone());
        self.cut = Some((cut, false));
        let walked = self.parse_and_walk(&checked, ctx);
        if self.cut.take().is_some_and(|(_, read)| read)
            && let Some(last) = walked
        {
            return last;
        }
        (*self, *ctx) = saved;
        let whole = self.admitted(bounds::check(text))?;
        self.parse_and_walk(&whole, ctx).flatten()
    }

    /// The text the bounds admit to the parser, or `None` with the finding that says why not.
    fn admitted<T>(&mut self, checked: Result<T, Rejection>) -> Option<T> {
        match checked {
            Ok(t) => Some(t),
            Err(Rejection::TooComplex(reason)) => {
                self.too_complex(reason);
                None
            }
            Err(Rejection::Invalid(message)) => {
                self.parse_error(message);
                None
            }
        }
    }

    /// Parses a checked text and walks it; `None` when it does not parse (a finding says
    /// why), else the last command run at its top level.
    fn parse_and_walk(&mut self, text: &str, ctx: &mut Ctx) -> Option<Option<usize>> {
        let parsed = guarded(|| {
            Parser::new(std::io::Cursor::new(text.as_bytes()), &PARSER_OPTIONS).parse_program()
        });
        match parsed {
            Some(Ok(program)) => {
                let mut last = None;
                for list in &program.complete_commands {
                    last = self.walk_list(list, ctx).or(last);
                }
                if super::trees_kept() {
                    // A hook process ends after this one call: the allocator's work of
                    // freeing a long line's syntax tree (a tenth of a 20,000-stage
                    // pipeline's time) is done by the exit instead.
                    std::mem::forget(program);
                }
                Some(last)
            }
            Some(Err(e)) => {
                self.parse_error(e.to_string());
                None
            }
            None => {
                self.parse_error("the shell parser failed on this input".to_string());
                None
            }
        }
    }

    /// The body of a here-document as the parser gave it, or the body it stands in for.
    fn heredoc_body(&mut self, value: &str) -> String {
        let source = self.source;
        match &mut self.cut {
            Some((cut, read)) if cut.stand_in == value => {
                *read = true;
                source[cut.body.clone()].to_string()
            }
            _ => value.to_string(),
        }
    }

    /// Analyses the text of `$(…)` or backticks; returns the programs it runs.
    pub(super) fn analyse_substitution(&mut self, text: &str, ctx: &Ctx) -> Vec<String> {
        let start = self.out.commands.len();
        let mut inner = ctx.clone();
        inner.depth += 1;
        inner.in_substitution = true;
        // Its output is captured, not sent where the enclosing command's goes.
        inner.redirects.clear();
        self.in_subshell(|a| a.analyse_script(text, &mut inner));
        self.programs_since(start)
    }

    fn programs_since(&self, start: usize) -> Vec<String> {
        self.out.commands[start.min(self.out.commands.len())..]
            .iter()
            .filter(|c| !c.program.is_empty())
            .map(|c| c.program.clone())
            .collect()
    }

    /// Walks a process substitution `<(…)`/`>(…)`; returns the programs it runs.
    fn walk_process_substitution(&mut self, sub: &ast::SubshellCommand, ctx: &Ctx) -> Vec<String> {
        let start = self.out.commands.len();
        if ctx.depth >= MAX_NESTING {
            self.too_complex("process substitutions nested too deeply".to_string());
            return Vec::new();
        }
        let mut inner = ctx.clone();
        inner.depth += 1;
        inner.in_substitution = true;
        inner.stdin_from = None;
        inner.upstream = Rc::default();
        inner.redirects.clear();
        self.in_subshell(|a| a.walk_list(&sub.list, &mut inner));
        self.programs_since(start)
    }

    /// Walks `a; b && c & …`. Returns the last command run at this level.
    fn walk_list(&mut self, list: &ast::CompoundList, ctx: &mut Ctx) -> Option<usize> {
        let mut last = None;
        for item in &list.0 {
            let and_or = &item.0;
            // `… &` runs in a subshell of its own.
            let background = matches!(item.1, ast::SeparatorOperator::Async);
            let before = background.then(|| self.shell_state());
            last = self.walk_pipeline(&and_or.first, ctx);
            // `a && b || c`: what follows `&&` runs from the ways that end in success, what
            // follows `||` from those that end in failure; any command may end either way.
            // The list ends in what all ways agree on.
            // Most lists change nothing: a state the same as another is neither set nor
            // merged (a 20,000-command `&&` list).
            if !and_or.additional.is_empty() {
                let after = self.path_state(ctx);
                let (mut ok, mut failed) = (after.clone(), after);
                // Which of the two the walk stands in now (`true`: `ok`); both at first.
                let mut standing: Option<bool> = None;
                for next in &and_or.additional {
                    let (from, and) = match next {
                        ast::AndOr::And(p) => (p, true),
                        ast::AndOr::Or(p) => (p, false),
                    };
                    if standing.is_some_and(|s| s != and) && !same_place(&ok, &failed) {
                        self.set_path_state(ctx, if and { ok.clone() } else { failed.clone() });
                    }
                    last = self.walk_pipeline(from, ctx).or(last);
                    let ran = self.path_state(ctx);
                    let (stays, goes) = if and {
                        (&mut failed, &mut ok)
                    } else {
                        (&mut ok, &mut failed)
                    };
                    if !same_place(stays, &ran) {
                        *stays = merged(stays.clone(), &ran);
                    }
                    *goes = ran;
                    standing = Some(and);
                }
                if !same_place(&ok, &failed) {
                    self.set_path_state(ctx, merged(ok, &failed));
                }
            }
            if let Some(before) = before {
                self.leave_subshell(before);
            }
        }
        last
    }

    /// Walks one pipeline; returns the command whose output leaves it.
    fn walk_pipeline(&mut self, pipeline: &ast::Pipeline, ctx: &mut Ctx) -> Option<usize> {
        if pipeline.seq.len() == 1 {
            let main = self.walk_command(&pipeline.seq[0], ctx);
            // A compound command followed its own `cd`s as it was walked; the last command of
            // a subshell (`(cd /)`) is not this shell's.
            if let Some(i) = main
                && matches!(pipeline.seq[0], ast::Command::Simple(_))
            {
                self.follow_cd(i, ctx);
                self.follow_set(i, ctx);
            }
            return main;
        }
        // Room for a command a stage: a long pipeline's commands were copied at each doubling,
        // into memory touched for the first time (a fifth of a 20,000-stage line's faults).
        self.out.commands.reserve(pipeline.seq.len());
        let mut prev = ctx.stdin_from;
        let mut upstream = Rc::clone(&ctx.upstream);
        let stages = pipeline.seq.len();
        for (n, stage) in pipeline.seq.iter().enumerate() {
            // Each stage runs in its own subshell: a `cd` or an assignment there does not
            // leak. The last one may run in the shell itself (zsh, bash's `lastpipe`): what
            // it changes is then not known either way.
            let before = self.shell_state();
            let mut stage_ctx = ctx.clone();
            stage_ctx.stdin_from = prev;
            stage_ctx.upstream = Rc::clone(&upstream);
            let walked = self.walk_command(stage, &mut stage_ctx);
            if n + 1 < stages {
                self.leave_subshell(before);
            } else {
                self.vars.keep_unchanged_since(&before.vars);
            }
            if let Some(i) = walked {
                let program = self.out.commands[i].program.as_str();
                // Nearest first, each program once, at most MAX_UPSTREAM: a stage costs the
                // same in a 20,000-stage pipeline as in a 2-stage one, and a stage that repeats
                // the nearest program copies nothing.
                if upstream.first().map(|p| &**p) != Some(program) {
                    let next: Rc<[Rc<str>]> = std::iter::once(Rc::from(program))
                        .chain(upstream.iter().filter(|p| &***p != program).cloned())
                        .take(MAX_UPSTREAM)
                        .collect();
                    upstream = next;
                }
                prev = Some(i);
            }
        }
        prev
    }

    /// `cd DIR` changes the directory of the commands after it in the same shell. A directory
    /// not known (`cd "$X"`, `cd -`, `popd`) is a path of its own outside any project
    /// (`unknown_dir`): a relative path after it is then outside the project, not in it.
    fn follow_cd(&mut self, index: usize, ctx: &mut Ctx) {
        let c = &self.out.commands[index];
        if c.in_substitution {
            return;
        }
        match c.program.as_str() {
            "cd" | "pushd" => {}
            // Back to where the line's `pushd` was, or to a directory from before the line.
            "popd" => {}
            _ => return,
        }
        let join = |target: &str| Some(join_dir(ctx.cwd.as_deref(), target));
        let to = match c.operands().first() {
            // Back to where the line's `pushd` was, or to a directory from before the line;
            // `popd +N`/`-N` drops another entry: where it leaves the line is not followed.
            _ if c.program == "popd" => {
                let back = ctx.dir_stack.pop().filter(|_| c.args.is_empty());
                back.unwrap_or_else(|| Some(unknown_dir("popd")))
            }
            // The directory before: the line's, or one from before the line.
            Some(w) if w.text == "-" => ctx
                .old_cwd
                .clone()
                .unwrap_or_else(|| Some(unknown_dir(&format!("{} -", c.program)))),
            Some(w) if w.dynamic => match known_dynamic_dir(&w.text, ctx.cwd.is_none()) {
                Some(t) => join(&t),
                None => Some(unknown_dir(&format!("{} {}", c.program, w.text))),
            },
            Some(w) if !(c.program == "pushd" && w.text.starts_with('+')) => join(&w.text),
            // `pushd` alone swaps the top two of the stack, `pushd +N` rotates it.
            Some(_) | None if c.program == "pushd" => Some(unknown_dir("pushd")),
            // `cd` alone goes home (the guards above leave no other case).
            _ => join("~"),
        };
        if c.program == "pushd" {
            ctx.dir_stack.push(ctx.cwd.clone());
        }
        ctx.old_cwd = Some(std::mem::replace(&mut ctx.cwd, to));
    }

    /// `set -- A B` (or `set A B`) makes A and B `$1` and `$2` of the commands after it in the
    /// same shell; a value not known leaves them all unknown. `shift N` moves them down.
    fn follow_set(&mut self, index: usize, ctx: &mut Ctx) {
        let c = &self.out.commands[index];
        if c.in_substitution {
            return;
        }
        // Parameters not known before `shift` (the line's own) are not known after it either.
        if c.program == "shift" && !ctx.positional.is_empty() {
            let name = ctx.positional.first().cloned().flatten();
            let by = match c.args.first() {
                None => Some(1),
                Some(w) if !w.dynamic => w.text.parse::<usize>().ok(),
                Some(_) => None,
            };
            match by {
                // Past the last parameter `shift` fails and moves none.
                Some(n) if n < ctx.positional.len() => {
                    ctx.positional.drain(1..=n);
                }
                Some(_) => {}
                // By a count not known: no parameter is known, nor how many there are.
                None => ctx.positional = vec![name, None],
            }
            return;
        }
        if c.program != "set" {
            return;
        }
        // Options up to `--` or the first word that is none; `-o`/`+o` (also ending a
        // cluster, `-euo pipefail`) takes the next word as an option's name.
        let mut at = 0;
        while let Some(w) = c.args.get(at) {
            let t = w.text.as_str();
            if t == "--" || !t.starts_with(['-', '+']) || t.len() < 2 {
                break;
            }
            at += if t.ends_with('o') { 2 } else { 1 };
        }
        let rest = match c.args.get(at) {
            Some(w) if w.text == "--" => &c.args[at + 1..],
            Some(_) => &c.args[at..],
            // `set -e`, `set -o pipefail`: the parameters stay.
            None => return,
        };
        let name = ctx.positional.first().cloned().flatten();
        ctx.positional =
            positional_from(name, rest.iter().map(|w| (!w.dynamic).then_some(&*w.text)));
    }

    fn walk_command(&mut self, command: &ast::Command, ctx: &mut Ctx) -> Option<usize> {
        if self.walk_depth > MAX_WALK_DEPTH {
            self.too_complex("compound commands nested too deeply".to_string());
            return None;
        }
        self.walk_depth += 1;
        let result = self.walk_command_inner(command, ctx);
        self.walk_depth -= 1;
        result
    }

    fn walk_command_inner(&mut self, command: &ast::Command, ctx: &mut Ctx) -> Option<usize> {
        match command {
            ast::Command::Simple(sc) => self.walk_simple(sc, ctx),
            ast::Command::Compound(cc, redirects) => match redirects {
                Some(list) if !list.0.is_empty() => {
                    let mut inner = ctx.clone();
                    let mut inv = Invocation::default();
                    for r in &list.0 {
                        self.add_redirect(&mut inv, r, ctx);
                    }
                    inner.redirects.extend(inv.redirects);
                    self.walk_compound(cc, &mut inner)
                }
                _ => self.walk_compound(cc, ctx),
            },
            ast::Command::Function(def) => {
                // The body runs wherever the function is called: analyse it as if run here.
                let mut inner = ctx.clone();
                let start = self.out.commands.len();
                let id = self.definition_walks.len();
                self.definition_walks.push(DefinitionWalk {
                    name: def.fname.value.clone(),
                    commands: start..start,
                });
                self.open_definitions.push(id);
                // What the body assigns happens at its calls (walked there), not here.
                self.in_subshell(|a| a.walk_compound(&def.body.0, &mut inner));
                self.open_definitions.pop();
                let end = self.out.commands.len();
                self.definition_walks[id].commands = start..end;
                self.out.functions.push(super::Function {
                    name: def.fname.value.clone(),
                    body: start..end,
                });
                // A later definition replaces an earlier one; a large body is walked here only.
                let defined = Rc::make_mut(&mut self.defined);
                defined.retain(|(name, _)| *name != def.fname.value);
                if end - start <= MAX_CALLED_BODY {
                    defined.push((def.fname.value.clone(), Rc::new(def.body.0.clone())));
                }
                None
            }
            ast::Command::ExtendedTest(test, _) => {
                self.walk_test(&test.expr, ctx, 0);
                None
            }
        }
    }

    fn walk_compound(&mut self, cc: &ast::CompoundCommand, ctx: &mut Ctx) -> Option<usize> {
        use ast::CompoundCommand as C;
        match cc {
            C::BraceGroup(g) => self.walk_list(&g.list, ctx),
            C::Subshell(s) => {
                let mut inner = ctx.clone();
                self.in_subshell(|a| a.walk_list(&s.list, &mut inner))
            }
            C::ForClause(f) => {
                let values: Vec<Expanded> = f
                    .values
                    .iter()
                    .flatten()
                    .flat_map(|w| self.expand_fields(&w.value, ctx))
                    .collect();
                // `for d in / ~; do rm -rf $d; done`: a short list of known values is walked once
                // per value, so the body's commands show their real targets.
                let known = !values.is_empty()
                    && values.len() <= MAX_LOOP_VALUES
                    && values
                        .iter()
                        .all(|v| v.is_static() || v.text().starts_with("$HOME"));
                if known {
                    // Each value in turn; `break` may end the loop after any of them.
                    let mut last = None;
                    let mut end: Option<PathState> = None;
                    for v in &values {
                        self.assign(&f.variable_name, Some(v));
                        last = self.walk_list(&f.body.list, ctx).or(last);
                        let here = self.path_state(ctx);
                        end = Some(match end {
                            Some(e) => merged(e, &here),
                            None => here,
                        });
                    }
                    if let Some(end) = end {
                        self.set_path_state(ctx, end);
                    }
                    last
                } else {
                    self.vars.remove(&f.variable_name);
                    self.walk_loop(ctx, |a, ctx| a.walk_list(&f.body.list, ctx))
                }
            }
            C::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.expand_arithmetic(&e.value, ctx);
                }
                self.walk_loop(ctx, |a, ctx| a.walk_list(&f.body.list, ctx))
            }
            C::CaseClause(c) => {
                self.expand_word(&c.value.value, ctx);
                for item in &c.cases {
                    for p in &item.patterns {
                        self.expand_word(&p.value, ctx);
                    }
                }
                // One arm runs, or none; after `;&` or `;;&` the next may run too, with what
                // the arm before it left.
                let start = self.path_state(ctx);
                let mut end = start.clone();
                let mut carried: Option<PathState> = None;
                let mut last = None;
                for item in &c.cases {
                    let from = match carried.take() {
                        Some(before) => merged(start.clone(), &before),
                        None => start.clone(),
                    };
                    self.set_path_state(ctx, from);
                    last = item
                        .cmd
                        .as_ref()
                        .and_then(|body| self.walk_list(body, ctx))
                        .or(last);
                    let here = self.path_state(ctx);
                    if !matches!(item.post_action, ast::CaseItemPostAction::ExitCase) {
                        carried = Some(here.clone());
                    }
                    end = merged(end, &here);
                }
                self.set_path_state(ctx, end);
                last
            }
            C::IfClause(i) => {
                // Each condition runs after the ones before it failed; then its body, or the
                // next. Without an `else`, the last condition's failure is a way too.
                self.walk_list(&i.condition, ctx);
                let mut after_cond = self.path_state(ctx);
                let mut last = self.walk_list(&i.then, ctx);
                let mut end = self.path_state(ctx);
                let mut has_else = false;
                for e in i.elses.iter().flatten() {
                    self.set_path_state(ctx, after_cond.clone());
                    match &e.condition {
                        Some(cond) => {
                            self.walk_list(cond, ctx);
                            after_cond = self.path_state(ctx);
                        }
                        None => has_else = true,
                    }
                    last = self.walk_list(&e.body, ctx).or(last);
                    end = merged(end, &self.path_state(ctx));
                }
                if !has_else {
                    end = merged(end, &after_cond);
                }
                self.set_path_state(ctx, end);
                last
            }
            C::WhileClause(w) | C::UntilClause(w) => self.walk_loop(ctx, |a, ctx| {
                let before = a.out.commands.len();
                a.walk_list(&w.0, ctx);
                let read = a.out.commands[before..]
                    .iter()
                    .position(|c| c.program == "read")
                    .map(|k| before + k);
                let vars = read.map(|r| a.read_vars(r)).unwrap_or_default();
                let (Some(read), false) = (read, vars.is_empty()) else {
                    return a.walk_list(&w.1.list, ctx);
                };
                let values = match vars.as_slice() {
                    [_] => a.read_lines(read),
                    _ => Vec::new(),
                };
                let outer = std::mem::replace(&mut ctx.read_vars, vars);
                let mut last = None;
                if values.is_empty() {
                    last = a.walk_list(&w.1.list, ctx);
                }
                // `echo ~/.ssh/id_rsa | while read f`, `while read f; …; done <<< LIST`: the
                // lines are known, and the body is walked with each, as a `for` loop's.
                for v in &values {
                    a.assign(
                        &ctx.read_vars[0].clone(),
                        Some(&Expanded::literal(v.clone())),
                    );
                    last = a.walk_list(&w.1.list, ctx).or(last);
                }
                ctx.read_vars = outer;
                last
            }),
            // A coprocess runs in a subshell of its own, alongside the line.
            C::Coprocess(c) => {
                let mut inner = ctx.clone();
                self.in_subshell(|a| a.walk_command(&c.body, &mut inner))
            }
            C::Arithmetic(a) => {
                self.expand_arithmetic(&a.expr.value, ctx);
                None
            }
        }
    }

    /// Walks a loop whose passes (`pass`: a `while`'s condition and body) may run no times or
    /// many: once from the state before it; when that pass changed the state, again from what
    /// both agree on (what one pass sets is what the next starts with:
    /// `x=build; while c; do rm -rf $x; x=/; done`). The loop ends in what all agree on.
    /// Inside `MAX_LOOP_PASSES` loops already walked twice, a pass is walked once with no
    /// variable known.
    fn walk_loop(
        &mut self,
        ctx: &mut Ctx,
        mut pass: impl FnMut(&mut Self, &mut Ctx) -> Option<usize>,
    ) -> Option<usize> {
        let start = self.path_state(ctx);
        if self.loop_passes >= MAX_LOOP_PASSES {
            self.vars.clear();
            let last = pass(self, ctx);
            let end = merged(start, &self.path_state(ctx));
            self.set_path_state(ctx, end);
            return last;
        }
        let mut last = pass(self, ctx);
        let end = merged(start.clone(), &self.path_state(ctx));
        if same_state(&end, &start) {
            self.set_path_state(ctx, end);
            return last;
        }
        self.loop_passes += 1;
        self.set_path_state(ctx, end.clone());
        last = pass(self, ctx).or(last);
        self.loop_passes -= 1;
        let twice = merged(end, &self.path_state(ctx));
        self.set_path_state(ctx, twice);
        last
    }

    /// The variables `read` (command `at`) fills from a pipe, a file or a
    /// here-string (`… | while read -r f`, `while read f; do …; done < list`): its operands,
    /// past the options that take a value.
    fn read_vars(&self, at: usize) -> Vec<String> {
        let read = &self.out.commands[at];
        let fed = read.stdin_from.is_some()
            || read.stdin_text.is_some()
            || read
                .redirects
                .iter()
                .any(|r| r.kind == super::RedirectKind::Read && matches!(r.fd, None | Some(0)));
        if !fed {
            return Vec::new();
        }
        let mut vars = Vec::new();
        let mut words = read.args.iter();
        while let Some(w) = words.next() {
            let t = w.text.as_str();
            if let Some(flags) = t.strip_prefix('-') {
                // `-d DELIM`, `-n N`, `-p PROMPT`…: the last letter of a cluster takes the next
                // word unless glued to it; `-a NAME` fills an array, a variable all the same.
                if let Some(at) = flags.find(['d', 'n', 'N', 'p', 't', 'u', 'a', 'i']) {
                    let value_glued = at + 1 < flags.len();
                    let name = if value_glued { None } else { words.next() };
                    if flags[at..].starts_with('a')
                        && let Some(n) = name
                    {
                        vars.push(n.text.clone());
                    }
                }
            } else if !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                vars.push(t.to_string());
            }
        }
        vars.truncate(8);
        vars
    }

    /// The lines `read` (command `at`) is given, when they are literal: a
    /// here-string or here-document, or what a literal `echo`/`printf` feeding it prints
    /// (`printed_text`); at most
    /// `MAX_LOOP_VALUES`, trimmed as `read` trims them. Empty when not known.
    fn read_lines(&self, at: usize) -> Vec<String> {
        let read = &self.out.commands[at];
        let text = match (&read.stdin_text, read.stdin_from) {
            (Some(t), _) => Some(t.clone()),
            (None, Some(from)) => self.out.commands.get(from).and_then(super::printed_text),
            (None, None) => None,
        };
        let Some(text) = text else {
            return Vec::new();
        };
        let lines: Vec<String> = text
            .lines()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect();
        if lines.len() > MAX_LOOP_VALUES {
            return Vec::new();
        }
        lines
    }

    /// Arithmetic text can hold command substitutions, which run.
    fn expand_arithmetic(&mut self, text: &str, ctx: &Ctx) {
        if text.contains("$(") || text.contains('`') {
            self.expand_word(text, ctx);
        }
    }

    /// `[[ … ]]` only matters for the substitutions in its words.
    fn walk_test(&mut self, expr: &ast::ExtendedTestExpr, ctx: &Ctx, depth: usize) {
        use ast::ExtendedTestExpr as T;
        if depth > MAX_NESTING * 16 {
            self.too_complex("[[ ]] expression too long".to_string());
            return;
        }
        match expr {
            T::And(a, b) | T::Or(a, b) => {
                self.walk_test(a, ctx, depth + 1);
                self.walk_test(b, ctx, depth + 1);
            }
            T::Not(a) | T::Parenthesized(a) => self.walk_test(a, ctx, depth + 1),
            T::UnaryTest(_, w) => {
                self.expand_word(&w.value, ctx);
            }
            T::BinaryTest(_, a, b) => {
                self.expand_word(&a.value, ctx);
                self.expand_word(&b.value, ctx);
            }
        }
    }

    fn walk_simple(&mut self, sc: &ast::SimpleCommand, ctx: &mut Ctx) -> Option<usize> {
        let mut inv = Invocation {
            stdin_from: ctx.stdin_from,
            ..Invocation::default()
        };
        let mut assignments: Vec<(&ast::Assignment, Assigned)> = Vec::new();
        for item in sc.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, _) => {
                    let name = assignment_name(&a.name);
                    let value = self.expand_assignment(a, &name, ctx);
                    if let Assigned::Scalar(v) = &value {
                        inv.env.push((name.clone(), v.word.clone()));
                    }
                    assignments.push((a, value));
                }
                other => self.add_item(&mut inv, other, ctx),
            }
        }
        let Some(program) = &sc.word_or_name else {
            for (a, value) in &assignments {
                self.store(a, value);
                let name = assignment_name(&a.name);
                if let Assigned::Scalar(v) = value
                    && (ALWAYS_EXPORTED.contains(&name.as_str())
                        || self.exported.iter().any(|(n, _)| *n == name))
                {
                    self.export(&name, v.word.clone());
                }
            }
            if inv.redirects.is_empty() {
                return None;
            }
            // `> file` alone still truncates the file: keep it visible, with no program.
            inv.env.clear();
            return Some(self.emit(inv, ctx));
        };
        let mut fields = self.expand_fields(&program.value, ctx).into_iter();
        inv.program = fields.next().unwrap_or_default();
        inv.args.extend(fields);
        let declares = matches!(
            inv.program.text(),
            "export" | "declare" | "typeset" | "local" | "readonly"
        );
        for item in sc.suffix.iter().flat_map(|s| s.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) => {
                    let word = self.expand_word(&w.value, ctx);
                    if declares {
                        if declares_associative(&inv.args) {
                            self.vars.forget_arrays();
                        }
                        let name = assignment_name(&a.name);
                        let value = self.expand_assignment(a, &name, ctx);
                        self.store(a, &value);
                        if let Assigned::Scalar(v) = &value
                            && exports(&inv)
                        {
                            self.export(&name, v.word.clone());
                            // A program that later commands run or load through the variable
                            // is judged once, here (`PAGER`, `LD_PRELOAD`, `GIT_SSH_COMMAND`).
                            let set = Invocation {
                                env: vec![(name.clone(), v.word.clone())],
                                ..Invocation::default()
                            };
                            self.env_commands(&set, 0, ctx);
                        }
                    }
                    inv.args.push(word);
                }
                other => self.add_item(&mut inv, other, ctx),
            }
        }
        if declares && declares_associative(&inv.args) {
            self.vars.forget_arrays();
        }
        // `local x`, `declare x=v` in a function's body: x is the call's own, and the
        // caller's x is back when it returns (`declare -g` is the caller's).
        if matches!(inv.program.text(), "local" | "declare" | "typeset")
            && let Some(locals) = self.locals.last_mut()
            && !inv
                .args
                .iter()
                .any(|a| a.text().starts_with('-') && a.text().contains('g'))
        {
            for a in &inv.args {
                let text = a.text();
                let end = text.find(['=', '[', '+']).unwrap_or(text.len());
                let name = &text[..end];
                if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    locals.push(name.to_string());
                }
            }
        }
        if inv.program.text() == "unset" && !self.exported.is_empty() {
            let names: Vec<String> = inv.args.iter().map(|a| a.text().to_string()).collect();
            Rc::make_mut(&mut self.exported).retain(|(n, _)| !names.contains(n));
        }
        // Builtins that set the variables they name (`read x`, `printf -v x`, `let x=1`):
        // each name an argument starts with is forgotten (more than are set: never fewer).
        if matches!(
            inv.program.text(),
            "read" | "unset" | "mapfile" | "readarray" | "printf" | "getopts" | "let" | "wait"
        ) {
            for a in &inv.args {
                let text = a.text();
                let name_end = text
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(text.len());
                self.vars.remove(text);
                self.vars.remove(&text[..name_end]);
            }
        }
        if declares
            && inv.args.iter().any(|a| {
                let t = a.text();
                // An option not known (`declare $opt r=x`) may be `-n`.
                (!a.is_static() && !t.contains('='))
                    || (t.starts_with('-') && t != "--" && t.contains('n'))
            })
        {
            self.namerefs = true;
            self.ifs = Ifs::Unknown;
            self.vars.clear();
        }
        let called = self.called(&inv, ctx);
        if called.is_some() {
            self.called_names.push(inv.program.text().to_string());
        }
        let index = self.run(inv, ctx);
        if let Some((body, mut inner)) = called {
            self.calls_walked += 1;
            self.calling += 1;
            let before = self.vars.clone();
            self.locals.push(Vec::new());
            self.walk_compound(&body, &mut inner);
            for name in self.locals.pop().unwrap_or_default() {
                self.vars.restore_from(&name, &before);
            }
            // The body runs in this shell: where it `cd`s, the commands after the call run.
            ctx.cwd = inner.cwd;
            ctx.old_cwd = inner.old_cwd;
            ctx.dir_stack = inner.dir_stack;
            self.calling -= 1;
        }
        index
    }

    /// When `inv` calls a function defined earlier in the line: its body, and the context
    /// to walk it in, the call's arguments its `$1`… (`f() { rm -rf "$1"; }; f /` deletes
    /// `/`). At its definition the body was walked with the parameters of the line, which
    /// are mostly unknown; walked again at a call, what it does with its arguments is known.
    /// An argument not known is an unknown parameter. Bounded (`MAX_CALL_DEPTH`,
    /// `MAX_CALLS_WALKED`): past the bounds the definition's walk stands alone.
    fn called(&mut self, inv: &Invocation, ctx: &Ctx) -> Option<(Rc<ast::CompoundCommand>, Ctx)> {
        if !inv.program.is_static() {
            return None;
        }
        let (_, body) = self
            .defined
            .iter()
            .rev()
            .find(|(name, _)| name == inv.program.text())?;
        if self.calling >= MAX_CALL_DEPTH || self.calls_walked >= MAX_CALLS_WALKED {
            self.calls_cut_short = true;
            return None;
        }
        let mut inner = ctx.clone();
        let name = ctx.positional.first().cloned().flatten();
        inner.positional = positional_from(
            name,
            inv.args.iter().map(|a| a.is_static().then(|| a.text())),
        );
        Some((Rc::clone(body), inner))
    }

    /// Drops what a function's body added where it was defined, when the line's one call of
    /// it was walked again with that call's arguments: the walk at the definition, with the
    /// line's parameters, is then a second reading of the same commands, with less known
    /// (`clean() { rm -rf "$1"; }; clean build` deletes `build`, not a target not known).
    /// Kept when the name is written anywhere else (another call, `trap NAME`, `export -f`,
    /// a script that may run it), when bash may call it unnamed, and when any call in the
    /// line went unwalked past the bounds.
    fn drop_definition_walks(&mut self) {
        if self.calls_cut_short || self.definition_walks.is_empty() {
            return;
        }
        // Each name counted once (at most `MAX_CALLS_WALKED` of them): a line may define one
        // function thousands of times.
        let mut names: Vec<&String> = self.called_names.iter().collect();
        names.sort_unstable();
        names.dedup();
        names.retain(|name| {
            !CALLED_IMPLICITLY.contains(&name.as_str()) && written_times(self.source, name) == 2
        });
        let dropped: Vec<bool> = self
            .definition_walks
            .iter()
            .map(|w| names.contains(&&w.name))
            .collect();
        if !dropped.contains(&true) {
            return;
        }
        let mut commands = vec![false; self.out.commands.len()];
        for (w, _) in self
            .definition_walks
            .iter()
            .zip(&dropped)
            .filter(|(_, d)| **d)
        {
            commands[w.commands.clone()].fill(true);
        }
        for (c, drop) in self.out.commands.iter_mut().zip(commands) {
            if drop {
                *c = super::Command::default();
            }
        }
        // A finding goes only when each time it was found was inside a dropped walk: found
        // at the call too, it stays (it was kept once, where first found).
        let only_in_dropped = |sites: &Vec<Vec<usize>>| {
            sites
                .iter()
                .all(|stack| stack.iter().any(|&id| dropped[id]))
        };
        let drop: Vec<bool> = self.finding_sites.iter().map(only_in_dropped).collect();
        let mut drop = drop.into_iter();
        self.out.findings.retain(|_| !drop.next().unwrap_or(false));
    }

    /// The value assignment `a` gives `name`: a scalar's word, after the variable's value for
    /// `name+=value`; `None` for an array.
    fn expand_assignment(&mut self, a: &ast::Assignment, name: &str, ctx: &Ctx) -> Assigned {
        match &a.value {
            ast::AssignmentValue::Scalar(w) => {
                let value = self.expand_word(&w.value, ctx);
                // `a[1]+=v` appends to an element, not to `$a`.
                let element = matches!(a.name, ast::AssignmentName::ArrayElementName(..));
                Assigned::Scalar(if a.append && !element {
                    self.appended(name, value)
                } else {
                    value
                })
            }
            ast::AssignmentValue::Array(items) => {
                // Each value's fields are elements (`a=($x)` splits); a key (`[3]=x`), a glob
                // or a value not known leaves the array not known.
                let mut elements = Some(Vec::new());
                for (k, v) in items {
                    if let Some(k) = k {
                        self.expand_word(&k.value, ctx);
                        elements = None;
                    }
                    for field in self.expand_fields(&v.value, ctx) {
                        match &mut elements {
                            Some(e) if field.is_static() && !field.word.glob => {
                                e.push(field.word.text)
                            }
                            _ => elements = None,
                        }
                    }
                }
                Assigned::Array(elements)
            }
        }
    }

    /// Remembers what an assignment gives its name: a value, an array's elements, or one
    /// element (`a[1]=v`); what is not known is forgotten.
    fn store(&mut self, a: &ast::Assignment, value: &Assigned) {
        use ast::AssignmentName as N;
        match (&a.name, value) {
            (N::VariableName(name), Assigned::Scalar(v)) => self.assign(name, Some(v)),
            (N::VariableName(name), Assigned::Array(elements)) => {
                let elements = elements.clone().filter(|_| !self.namerefs);
                self.vars.set_array(name, elements, a.append);
            }
            (N::ArrayElementName(name, index), Assigned::Scalar(v)) => {
                let kept = self.value_kept(name, Some(v));
                if a.append {
                    self.vars.set_element(name, index, None);
                } else {
                    self.vars.set_element(name, index, kept);
                }
            }
            (N::ArrayElementName(name, _), Assigned::Array(_)) => self.vars.remove(name),
        }
    }

    fn add_item(&mut self, inv: &mut Invocation, item: &ast::CommandPrefixOrSuffixItem, ctx: &Ctx) {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(r) => self.add_redirect(inv, r, ctx),
            ast::CommandPrefixOrSuffixItem::Word(w) => {
                let fields = self.expand_fields(&w.value, ctx);
                inv.args.extend(fields);
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                let e = self.expand_word(&w.value, ctx);
                inv.args.push(e);
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                let programs = self.walk_process_substitution(sub, ctx);
                inv.args.push(Expanded {
                    word: Word {
                        text: format!("{kind}({})", sub.list),
                        dynamic: true,
                        glob: false,
                    },
                    substitutions: Some(programs),
                });
            }
        }
    }

    fn add_redirect(&mut self, inv: &mut Invocation, r: &ast::IoRedirect, ctx: &Ctx) {
        let fd = |n: &Option<i32>| n.and_then(|n| u32::try_from(n).ok());
        match r {
            ast::IoRedirect::File(n, kind, target) => {
                use ast::IoFileRedirectKind as K;
                let mut rk = match kind {
                    K::Read => RedirectKind::Read,
                    K::Write | K::Clobber => RedirectKind::Write,
                    K::Append => RedirectKind::Append,
                    K::ReadAndWrite => RedirectKind::ReadWrite,
                    K::DuplicateInput | K::DuplicateOutput => RedirectKind::Dup,
                };
                let target = match target {
                    ast::IoFileRedirectTarget::Filename(w) => self.expand_word(&w.value, ctx).word,
                    ast::IoFileRedirectTarget::Fd(n) => Word::literal(n.to_string()),
                    ast::IoFileRedirectTarget::Duplicate(w) => {
                        let e = self.expand_word(&w.value, ctx).word;
                        // `>&file` (not a number, not `-`) writes stdout and stderr to a file.
                        if matches!(kind, K::DuplicateOutput)
                            && !e.dynamic
                            && e.text != "-"
                            && !e
                                .text
                                .trim_end_matches('-')
                                .chars()
                                .all(|c| c.is_ascii_digit())
                        {
                            rk = RedirectKind::Write;
                        }
                        e
                    }
                    ast::IoFileRedirectTarget::ProcessSubstitution(pk, sub) => {
                        let programs = self.walk_process_substitution(sub, ctx);
                        if matches!(kind, K::Read) && matches!(n, None | Some(0)) {
                            inv.stdin_substitution = Some(programs);
                        }
                        Word {
                            text: format!("{pk}({})", sub.list),
                            dynamic: true,
                            glob: false,
                        }
                    }
                };
                inv.redirects.push(Redirect {
                    fd: fd(n),
                    kind: rk,
                    target,
                });
            }
            ast::IoRedirect::OutputAndError(w, append) => {
                let target = self.expand_word(&w.value, ctx).word;
                inv.redirects.push(Redirect {
                    fd: None,
                    kind: if *append {
                        RedirectKind::Append
                    } else {
                        RedirectKind::Write
                    },
                    target,
                });
            }
            ast::IoRedirect::HereDocument(n, doc) => {
                let body = self.heredoc_body(&doc.doc.value);
                let mut e = if doc.requires_expansion {
                    self.expand_heredoc(&body, ctx)
                } else {
                    Expanded::literal(body)
                };
                if doc.remove_tabs {
                    e.word.text = e
                        .word
                        .text
                        .split_inclusive('\n')
                        .map(|l| l.trim_start_matches('\t'))
                        .collect();
                }
                if matches!(n, None | Some(0)) {
                    inv.stdin_text = Some(e);
                }
            }
            ast::IoRedirect::HereString(n, w) => {
                let e = self.expand_word(&w.value, ctx);
                if matches!(n, None | Some(0)) {
                    inv.stdin_text = Some(e);
                }
            }
        }
    }

    /// Records one command as the analysis result; returns its index.
    pub(super) fn emit(&mut self, inv: Invocation, ctx: &Ctx) -> usize {
        if self.out.commands.len() >= MAX_COMMANDS {
            self.stopped = true;
            self.too_complex(format!("more than {MAX_COMMANDS} commands"));
            // Point at the last command so callers still have a valid index.
            return self.out.commands.len() - 1;
        }
        let program_word = inv.program.word;
        // A glob picks the program when it runs (`/???/r? -rf ~`, `/bin/r[m]`); `[` alone is
        // the test command.
        let globbed = program_word.glob && {
            let t = &program_word.text;
            t.contains(['*', '?']) || t.find('[').is_some_and(|at| t[at..].contains(']'))
        };
        if program_word.dynamic || globbed {
            self.finding(ShellFinding::DynamicProgram {
                text: program_word.text.clone(),
            });
        }
        let program = if program_word.dynamic {
            program_word.text.clone()
        } else {
            basename(&program_word.text).to_string()
        };
        let mut redirects = inv.redirects;
        redirects.extend(ctx.redirects.iter().cloned());
        dedup_redirects(&mut redirects);
        // What the line exported earlier comes first: the command's own assignments win.
        let env = if self.exported.is_empty() {
            inv.env
        } else {
            let mut env: Vec<(String, Word)> = self
                .exported
                .iter()
                .filter(|(n, _)| !inv.env.iter().any(|(m, _)| m == n))
                .cloned()
                .collect();
            env.extend(inv.env);
            env
        };
        let args_from_stdin = ctx.args_from_stdin || uses_any(&inv.args, &ctx.read_vars);
        self.out.commands.push(Command {
            program,
            program_path: program_word.text,
            args: inv.args.into_iter().map(|a| a.word).collect(),
            env,
            redirects,
            stdin_from: inv.stdin_from,
            stdin_text: inv.stdin_text.map(|t| t.word.text),
            wrappers: ctx.wrappers.clone(),
            privileged: ctx.privileged,
            args_from_stdin,
            in_substitution: ctx.in_substitution,
            cwd: ctx.cwd.clone(),
        });
        self.out.commands.len() - 1
    }
}

/// What an assignment gives its name (`Analyser::expand_assignment`).
pub(super) enum Assigned {
    /// A word: `a=v`, `a[1]=v`.
    Scalar(Expanded),
    /// An array's elements, `None` when one is not known: `a=(…)`.
    Array(Option<Vec<String>>),
}

/// Whether a `declare`'s options so far (`args`) may declare an associative array: `-A`, or
/// an option not known.
fn declares_associative(args: &[Expanded]) -> bool {
    args.iter()
        .any(|a| !a.is_static() || (a.text().starts_with('-') && a.text().contains('A')))
}

fn assignment_name(name: &ast::AssignmentName) -> String {
    match name {
        ast::AssignmentName::VariableName(n) => n.clone(),
        ast::AssignmentName::ArrayElementName(n, _) => n.clone(),
    }
}

/// `cd` target relative to the current directory of the line, when known.
/// Drops repeated redirections, so each later step (path resolution per write) runs once per
/// target, however often a line repeats it (`>f >g >f >g…`). Without descriptor duplications
/// only the last occurrence of each matters (where each descriptor ends up, and which files
/// are opened); with them (`2>&1` reads where stdout points at that moment) only repeats in a
/// row are dropped.
fn dedup_redirects(redirects: &mut Vec<Redirect>) {
    if redirects.len() < 2 {
        return;
    }
    if redirects.iter().any(|r| r.kind == RedirectKind::Dup) {
        redirects.dedup();
        return;
    }
    // Marked from the end, by reference: no target is copied, however many there are.
    let mut keep = vec![false; redirects.len()];
    let mut seen = std::collections::HashSet::with_capacity(redirects.len());
    for (i, r) in redirects.iter().enumerate().rev() {
        keep[i] = seen.insert((
            r.fd,
            r.kind as u8,
            r.target.text.as_str(),
            r.target.dynamic,
            r.target.glob,
        ));
    }
    drop(seen);
    let mut keep = keep.into_iter();
    redirects.retain(|_| keep.next().unwrap_or(true));
}

/// A directory `cd` went to whose path is not known, as a path no project holds: `/(cd $X)`.
/// Path resolution then places what is relative to it outside the project (a delete there
/// asks), and its reason shows where the line went.
fn unknown_dir(how: &str) -> String {
    format!("/({how})")
}

/// A `cd` target not literal but known all the same: `$HOME/…` (kept as written; path
/// resolution expands it), `$PWD/…` (the directory the command is in, as `./…`) and, from
/// the line's own directory (`at_start`), the top of its git work tree (`$(git rev-parse
/// --show-toplevel)/…`, written as `GIT_TOPLEVEL` says; the scope knows where it is).
fn known_dynamic_dir(text: &str, at_start: bool) -> Option<String> {
    let plain =
        |rest: &str| (rest.is_empty() || rest.starts_with('/')) && !rest.contains(['$', '`']);
    if let Some(rest) = ["${HOME}", "$HOME"]
        .iter()
        .find_map(|v| text.strip_prefix(v))
        && plain(rest)
    {
        return Some(text.to_string());
    }
    if at_start
        && let Some(rest) = git_toplevel(text)
        && plain(rest)
    {
        return Some(format!("{}{rest}", super::GIT_TOPLEVEL));
    }
    ["${PWD}", "$PWD"]
        .iter()
        .find_map(|v| text.strip_prefix(v))
        .filter(|rest| plain(rest))
        .map(|rest| format!(".{rest}"))
}

/// What follows a leading `$(git rev-parse --show-toplevel)` (or its backquoted form) in
/// `text`, however the inner command is spaced.
pub fn git_toplevel(text: &str) -> Option<&str> {
    let (inner, rest) = if let Some(t) = text.strip_prefix("$(") {
        let end = t.find(')')?;
        (&t[..end], &t[end + 1..])
    } else {
        let t = text.strip_prefix('`')?;
        let end = t.find('`')?;
        (&t[..end], &t[end + 1..])
    };
    let mut words: Vec<&str> = inner.split_whitespace().collect();
    if words.last() == Some(&"2>/dev/null") {
        words.pop();
    }
    (words == ["git", "rev-parse", "--show-toplevel"]).then_some(rest)
}

pub(super) fn join_dir(cwd: Option<&str>, target: &str) -> String {
    match cwd {
        Some(base) if !target.starts_with(['/', '~', '$']) => {
            format!("{}/{}", base.trim_end_matches('/'), target)
        }
        _ => target.to_string(),
    }
}

/// How often `name` is written in `text` as a word of its own: not inside a longer name
/// (`clean` in `cleanup`), anywhere else (in quotes, after `=`, in a script's text) it counts.
fn written_times(text: &str, name: &str) -> usize {
    let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(name)
        .filter(|(at, _)| {
            !part(text[..*at].chars().next_back()) && !part(text[at + name.len()..].chars().next())
        })
        .count()
}

/// Whether one of `args` expands one of `vars` (`"$f"`, `${f}`, `$f/x`).
fn uses_any(args: &[Expanded], vars: &[String]) -> bool {
    !vars.is_empty()
        && args.iter().any(|a| {
            let t = a.word.text.as_str();
            vars.iter().any(|v| {
                t.match_indices('$').any(|(at, _)| {
                    let rest = &t[at + 1..];
                    let name = rest.strip_prefix('{').unwrap_or(rest);
                    name.strip_prefix(v.as_str()).is_some_and(|after| {
                        !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                    })
                })
            })
        })
}
