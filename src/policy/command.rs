//! The shell-aware `command:` matcher of a rule, over the simple commands of a `ShellAnalysis`.
//!
//! A simple command matches when it satisfies every field given. A deny or ask rule matches
//! the call when ANY simple command matches; an allow rule only when EVERY simple command
//! matches and the analysis has no findings — otherwise `git status; curl … | sh` would be
//! allowed by a rule written for `git status`.
//!
//! What the analysis cannot know (a `$VAR` operand, arguments from `xargs`) never loosens: for a
//! deny/ask rule an unknown target counts as matching `targets`, for an allow rule as not.

use super::constraints::quote;
use super::glob::{Glob, GlobKind};
use super::schema::CommandConfig;
use crate::normalize::Scope;
use crate::paths::PathResolver;
use crate::shell::{Command, RedirectKind, ShellAnalysis, Word};
use crate::vocab;
use std::path::PathBuf;

/// One flag to look for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Flag {
    /// `-f`: alone or inside a cluster (`-rf`).
    Short(char),
    /// `--force`: also `--force=…`.
    Long(String),
    /// `-delete` and other single-dash words: the argument exactly.
    Word(String),
}

/// A compiled `command:` block.
#[derive(Debug, Clone)]
pub struct CommandMatcher {
    program: Vec<Glob>,
    subcommand: Vec<Glob>,
    flags: Vec<Flag>,
    flag_text: Vec<String>,
    args: Vec<Glob>,
    targets: Vec<Glob>,
}

/// Which way a matcher is read (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Allow rules: every command must match; unknowns fail.
    Every,
    /// Deny and ask rules: one command suffices; unknowns match.
    Any,
}

impl CommandMatcher {
    /// Compiles a `command:` block; `home` expands `~` and `$HOME` in `targets`.
    pub fn compile(mut c: CommandConfig, home: &std::path::Path) -> Result<CommandMatcher, String> {
        if let Some(targets) = c.targets.as_mut() {
            for t in targets.0.iter_mut() {
                *t = expand_target(t, home)?;
            }
        }
        fn globs(
            name: &str,
            v: Option<super::schema::OneOrMany>,
            kind: GlobKind,
        ) -> Result<Vec<Glob>, String> {
            let v = v.map(|v| v.into_vec()).unwrap_or_default();
            v.iter()
                .map(|g| Glob::new(g, kind).map_err(|e| format!("command.{name}: {e}")))
                .collect()
        }
        let empty =
            |o: &Option<super::schema::OneOrMany>| o.as_ref().is_some_and(|v| v.0.is_empty());
        for (name, field) in [
            ("program", &c.program),
            ("subcommand", &c.subcommand),
            ("flags", &c.flags),
            ("args", &c.args),
            ("targets", &c.targets),
        ] {
            if empty(field) {
                return Err(format!(
                    "command.{name} is an empty list and would never match"
                ));
            }
        }
        let flag_text: Vec<String> = c.flags.clone().map(|f| f.into_vec()).unwrap_or_default();
        let mut flags = Vec::new();
        for f in &flag_text {
            let flag = if let Some(long) = f.strip_prefix("--").filter(|l| !l.is_empty()) {
                Flag::Long(long.to_string())
            } else if let Some(short) = f.strip_prefix('-') {
                let mut chars = short.chars();
                match (chars.next(), chars.next()) {
                    (Some(ch), None) => Flag::Short(ch),
                    (Some(_), Some(_)) => Flag::Word(f.clone()),
                    _ => return Err(format!("command.flags: '{f}' is not a flag")),
                }
            } else {
                return Err(format!(
                    "command.flags: '{f}' is not a flag (flags start with '-')"
                ));
            };
            flags.push(flag);
        }
        let m = CommandMatcher {
            program: globs("program", c.program, GlobKind::Text)?,
            subcommand: globs("subcommand", c.subcommand, GlobKind::Text)?,
            flags,
            flag_text,
            args: globs("args", c.args, GlobKind::Text)?,
            targets: globs("targets", c.targets, GlobKind::Path)?,
        };
        if m.program.is_empty()
            && m.subcommand.is_empty()
            && m.flags.is_empty()
            && m.args.is_empty()
            && m.targets.is_empty()
        {
            return Err(
                "command: give at least one of program, subcommand, flags, args, targets".into(),
            );
        }
        Ok(m)
    }

    /// True when the call is about what the matcher names: with a `program:` field, some
    /// simple command runs one of those programs. A near miss is only worth telling for such
    /// a call; `ls` is no near miss of a rule written for `git`.
    pub fn concerns(&self, analysis: &ShellAnalysis) -> bool {
        self.program.is_empty()
            || analysis
                .commands
                .iter()
                .any(|c| self.program.iter().any(|g| g.matches(&c.program)))
    }

    /// Checks a whole command line. On failure, a phrase saying what was wanted and what was found.
    pub fn check(
        &self,
        analysis: &ShellAnalysis,
        scope: &Scope,
        reading: Reading,
    ) -> Result<(), (String, String)> {
        match reading {
            Reading::Any => {
                let mut first_miss = None;
                for c in &analysis.commands {
                    match self.check_one(c, scope, reading) {
                        Ok(()) => return Ok(()),
                        Err(e) => {
                            first_miss.get_or_insert(e);
                        }
                    }
                }
                Err(first_miss
                    .unwrap_or_else(|| (self.describe(), "no command was recognised".into())))
            }
            Reading::Every => {
                if let Some(f) = analysis.findings.first() {
                    return Err((
                        format!("every command {}", self.describe()),
                        format!("the command line cannot be fully analysed ({f:?})"),
                    ));
                }
                if analysis.commands.is_empty() {
                    return Err((
                        format!("every command {}", self.describe()),
                        "no command was recognised".into(),
                    ));
                }
                for c in &analysis.commands {
                    if let Err((wanted, found)) = self.check_one(c, scope, reading) {
                        return Err((format!("every command {wanted}"), found));
                    }
                }
                Ok(())
            }
        }
    }

    fn check_one(
        &self,
        c: &Command,
        scope: &Scope,
        reading: Reading,
    ) -> Result<(), (String, String)> {
        if !self.program.is_empty() && !self.program.iter().any(|g| g.matches(&c.program)) {
            return Err((
                format!("has program {}", globs_phrase(&self.program)),
                format!("got {}", quote(&c.program)),
            ));
        }
        if !self.subcommand.is_empty() {
            // The vocabulary skips the values of global options (`kubectl -n prod delete`)
            // and knows how many words name the operation (`aws s3 rm`).
            let paths = vocab::subcommand_paths(c);
            let sub = paths.first();
            if !paths
                .iter()
                .any(|s| self.subcommand.iter().any(|g| g.matches(s)))
            {
                return Err((
                    format!("has subcommand {}", globs_phrase(&self.subcommand)),
                    match sub {
                        Some(s) => format!("got {}", quote(s)),
                        None => format!("'{}' has no subcommand", c.program),
                    },
                ));
            }
        }
        if !self.flags.is_empty() && !self.flags.iter().any(|f| has_flag(c, f)) {
            return Err((
                format!("has one of the flags [{}]", self.flag_text.join(", ")),
                format!("got {}", quote(&c.line())),
            ));
        }
        if !self.args.is_empty()
            && !c
                .args
                .iter()
                .any(|a| self.args.iter().any(|g| g.matches(&a.text)))
        {
            return Err((
                format!("has an argument matching {}", globs_phrase(&self.args)),
                format!("got {}", quote(&c.line())),
            ));
        }
        if !self.targets.is_empty() {
            self.check_targets(c, scope, reading)?;
        }
        Ok(())
    }

    fn check_targets(
        &self,
        c: &Command,
        scope: &Scope,
        reading: Reading,
    ) -> Result<(), (String, String)> {
        let wanted = format!("has a target matching {}", globs_phrase(&self.targets));
        let resolver = resolver_for(c, scope);
        let mut unknown = c.args_from_stdin;
        let mut hit = false;
        let redirect_targets = c
            .redirects
            .iter()
            .filter(|r| r.kind != RedirectKind::Dup)
            .map(|r| &r.target);
        for word in c.operands().into_iter().chain(redirect_targets) {
            match resolve(word, resolver.as_ref().unwrap_or(&scope.paths)) {
                Some(path) => {
                    let text = path.to_string_lossy();
                    if self.targets.iter().any(|g| g.matches(&text)) {
                        hit = true;
                    }
                }
                None => unknown = true,
            }
        }
        if resolver.is_none() {
            unknown = true;
        }
        match reading {
            Reading::Any if hit || unknown => Ok(()),
            Reading::Every if hit && !unknown => Ok(()),
            Reading::Every if unknown => Err((
                wanted,
                format!(
                    "the targets of {} cannot be known statically",
                    quote(&c.line())
                ),
            )),
            _ => Err((wanted, format!("got {}", quote(&c.line())))),
        }
    }

    /// The matcher as a phrase (`has program psql and has one of the flags [-c]`).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.program.is_empty() {
            parts.push(format!("has program {}", globs_phrase(&self.program)));
        }
        if !self.subcommand.is_empty() {
            parts.push(format!("has subcommand {}", globs_phrase(&self.subcommand)));
        }
        if !self.flags.is_empty() {
            parts.push(format!(
                "has one of the flags [{}]",
                self.flag_text.join(", ")
            ));
        }
        if !self.args.is_empty() {
            parts.push(format!(
                "has an argument matching {}",
                globs_phrase(&self.args)
            ));
        }
        if !self.targets.is_empty() {
            parts.push(format!(
                "has a target matching {}",
                globs_phrase(&self.targets)
            ));
        }
        parts.join(" and ")
    }
}

/// Target globs are matched against absolute resolved paths, so they must be absolute too:
/// `~/…` and `$HOME/…` are expanded, `**/…` matches anywhere, anything else is an error
/// rather than a glob that silently never matches.
pub(crate) fn expand_target(t: &str, home: &std::path::Path) -> Result<String, String> {
    let home = home.to_string_lossy();
    let home = home.trim_end_matches('/');
    for prefix in ["~/", "$HOME/", "${HOME}/"] {
        if let Some(rest) = t.strip_prefix(prefix) {
            return Ok(format!("{home}/{rest}"));
        }
    }
    if t.starts_with('/') || t.starts_with("**") {
        Ok(t.to_string())
    } else {
        Err(format!(
            "command.targets: '{t}' must be absolute, start with ~/ or $HOME/, or start with **"
        ))
    }
}

fn globs_phrase(globs: &[Glob]) -> String {
    match globs {
        [one] => format!("'{one}'"),
        _ => format!(
            "one of [{}]",
            globs
                .iter()
                .map(|g| g.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn has_flag(c: &Command, f: &Flag) -> bool {
    match f {
        Flag::Short(ch) => c.has_flag(Some(*ch), &[]),
        Flag::Long(l) => c.has_flag(None, &[l.as_str()]),
        Flag::Word(w) => c
            .args
            .iter()
            .take_while(|a| a.text != "--")
            .any(|a| &a.text == w),
    }
}

/// Every path the simple commands of a command line name — operands and redirection targets,
/// resolved against the command's own directory — or `None` when one of them cannot be known
/// statically (an expansion, a glob, arguments from stdin, an unanalysable line). A `paths:`
/// scope of an allow rule holds only when this is known and every path is inside it.
pub fn shell_paths(analysis: &ShellAnalysis, scope: &Scope) -> Option<Vec<PathBuf>> {
    if !analysis.findings.is_empty() || analysis.commands.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for c in &analysis.commands {
        if c.args_from_stdin {
            return None;
        }
        let resolver = resolver_for(c, scope)?;
        let redirect_targets = c
            .redirects
            .iter()
            .filter(|r| r.kind != RedirectKind::Dup)
            .map(|r| &r.target);
        for word in c.operands().into_iter().chain(redirect_targets) {
            if word.glob {
                return None;
            }
            out.push(resolve(word, &resolver)?);
        }
    }
    Some(out)
}

/// The resolver for a command's own directory (`cd dir && …`); `None` when that directory is
/// not known statically.
fn resolver_for(c: &Command, scope: &Scope) -> Option<PathResolver> {
    match &c.cwd {
        None => Some(scope.paths.clone()),
        // The top of the work tree (`cd "$(git rev-parse --show-toplevel)"`), where known.
        Some(dir) if dir.starts_with(crate::shell::GIT_TOPLEVEL) => {
            scope.git_toplevel()?;
            Some(PathResolver {
                cwd: scope.resolve(dir),
                ..scope.paths.clone()
            })
        }
        Some(dir) => {
            let word = Word {
                text: dir.clone(),
                dynamic: dir.contains('$') || dir.contains('`'),
                glob: false,
            };
            let cwd = resolve(&word, &scope.paths)?;
            Some(PathResolver {
                cwd,
                ..scope.paths.clone()
            })
        }
    }
}

/// A word as a resolved path; `None` when an expansion other than `$HOME`/`~` is left in it.
fn resolve(word: &Word, paths: &PathResolver) -> Option<PathBuf> {
    let path = paths.resolve(&word.text);
    if word.dynamic {
        let text = path.to_string_lossy();
        if text.contains('$') || text.contains('`') {
            return None;
        }
    }
    Some(path)
}
