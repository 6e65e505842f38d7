//! Built-in rule packs, as data: each rule has an id, a pack (its category), an effect, a
//! reason, the check that finds it, and the example calls that prove it (refused and allowed).
//!
//! Checks match on the program first (`programs`), so a call pays only for rules that can apply;
//! a rule that needs a regex compiles it on first use (`LazyLock`).

mod cloud;
pub mod common;
pub(crate) mod database;
mod destructive_fs;
mod destructive_git;
mod exfiltration;
#[cfg(test)]
mod network_tests;
mod path_escape;
mod persistence;
mod publishing;
mod remote_access;
mod remote_code;
mod secrets;
mod self_protection;
mod shell_analysis;
#[cfg(test)]
mod tests;

/// Program knowledge the session-taint step reuses (`crate::taint`).
pub(crate) use secrets::credential_cli;

use crate::normalize::{Call, Scope};
use crate::shell::{Command, ShellAnalysis};
use crate::verdict::Effect;

/// How a rule recognises its case. Each returns a short detail (the target, the flag…) on a hit.
#[derive(Clone, Copy)]
pub enum Check {
    /// Runs on every simple command of a shell call whose program is in `Rule::programs`
    /// (all commands when `programs` is empty).
    Command(fn(&Command, &Scope) -> Option<String>),
    /// Runs once on a whole shell command line (pipes, findings, several commands together).
    Line(fn(&ShellAnalysis, &Scope) -> Option<String>),
    /// Runs on any call (file tools, fetches, MCP, and shell calls too).
    Call(fn(&Call, &Scope) -> Option<String>),
}

/// An example call in a rule's table: a Bash command, or a tool with its JSON input.
#[derive(Debug, Clone, Copy)]
pub struct Example {
    pub tool: &'static str,
    /// The command for `Bash`, else the JSON `tool_input`.
    pub input: &'static str,
}

impl Example {
    /// A Bash command.
    pub const fn bash(command: &'static str) -> Example {
        Example {
            tool: "Bash",
            input: command,
        }
    }

    /// Any tool with a JSON input. Paths use `/home/dev` as home and `/home/dev/project` as cwd.
    pub const fn tool(tool: &'static str, input: &'static str) -> Example {
        Example { tool, input }
    }
}

/// One built-in rule.
pub struct Rule {
    /// Unique id, prefixed by its pack in verdicts: `destructive-fs/rm-root`.
    pub id: &'static str,
    /// The pack, which is also the category.
    pub pack: &'static str,
    pub effect: Effect,
    /// One sentence for the reader who must act; the hit's detail is appended.
    pub reason: &'static str,
    /// Programs a `Check::Command` applies to (normalised names); empty for all.
    pub programs: &'static [&'static str],
    pub check: Check,
    /// Calls this rule must refuse (with its effect or stricter).
    pub refused: &'static [Example],
    /// Calls this rule must not hit.
    pub allowed: &'static [Example],
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Rule({}/{})", self.pack, self.id)
    }
}

/// The pack names, which are also the categories of their rules.
pub const PACKS: &[&str] = &[
    "destructive-fs",
    "destructive-git",
    "secrets",
    "exfiltration",
    "remote-code",
    "persistence-privilege",
    "database",
    "cloud-infra",
    "publishing",
    "self-protection",
    "path-escape",
    "shell-analysis",
    "remote-access",
];

/// Every built-in rule.
pub fn all_rules() -> impl Iterator<Item = &'static Rule> {
    [
        destructive_fs::RULES,
        destructive_git::RULES,
        secrets::RULES,
        exfiltration::RULES,
        exfiltration::LINE_RULES,
        remote_code::RULES,
        persistence::RULES,
        database::RULES,
        cloud::RULES,
        publishing::RULES,
        self_protection::RULES,
        path_escape::RULES,
        shell_analysis::RULES,
        remote_access::RULES,
        remote_code::CONFIG_RULES,
    ]
    .into_iter()
    .flatten()
}

/// A rule that matched, with what it matched on.
#[derive(Debug, Clone)]
pub struct Hit {
    pub rule: &'static Rule,
    pub detail: String,
}

/// Runs every rule of the enabled packs on `call`.
pub fn hits(call: &Call, scope: &Scope, enabled: impl Fn(&Rule) -> bool) -> Vec<Hit> {
    let index = ProgramIndex::of(call);
    let mut out = Vec::new();
    for rule in all_rules().filter(|r| enabled(r)) {
        if let Some(detail) = run_check(rule, call, scope, &index) {
            out.push(Hit { rule, detail });
        }
    }
    out
}

/// A long line's commands by program, so a rule on some programs visits only their commands:
/// matching every rule's programs against every command made a 20,000-stage pipeline cost
/// millions of string comparisons. `None` for a short line, where the scan is cheaper.
struct ProgramIndex<'a>(Option<std::collections::HashMap<&'a str, Vec<usize>>>);

impl<'a> ProgramIndex<'a> {
    /// Lines with more commands than this are indexed.
    const FROM: usize = 16;

    fn of(call: &'a Call) -> ProgramIndex<'a> {
        let crate::normalize::CallKind::Shell { analysis, .. } = &call.kind else {
            return ProgramIndex(None);
        };
        if analysis.commands.len() <= Self::FROM {
            return ProgramIndex(None);
        }
        let mut map: std::collections::HashMap<&str, Vec<usize>> = Default::default();
        for (i, c) in analysis.commands.iter().enumerate() {
            map.entry(c.program.as_str()).or_default().push(i);
        }
        ProgramIndex(Some(map))
    }

    /// The indices of the commands running one of `programs`, in line order.
    fn commands_of(&self, programs: &[&str]) -> Option<Vec<usize>> {
        let map = self.0.as_ref()?;
        let mut at: Vec<usize> = programs
            .iter()
            .filter_map(|p| map.get(p))
            .flatten()
            .copied()
            .collect();
        at.sort_unstable();
        Some(at)
    }
}

fn run_check(rule: &Rule, call: &Call, scope: &Scope, index: &ProgramIndex) -> Option<String> {
    use crate::normalize::CallKind;
    match (rule.check, &call.kind) {
        (Check::Call(f), _) => f(call, scope),
        (Check::Line(f), CallKind::Shell { analysis, .. }) => f(analysis, scope),
        (Check::Command(f), CallKind::Shell { analysis, .. }) => {
            let indexed = (!rule.programs.is_empty())
                .then(|| index.commands_of(rule.programs))
                .flatten();
            match indexed {
                Some(at) => at
                    .into_iter()
                    .filter_map(|i| analysis.commands.get(i))
                    .find_map(|c| f(c, scope)),
                None => analysis
                    .commands
                    .iter()
                    .filter(|c| {
                        rule.programs.is_empty() || rule.programs.contains(&c.program.as_str())
                    })
                    .find_map(|c| f(c, scope)),
            }
        }
        _ => None,
    }
}

/// `a` then `b`, in a constant.
pub(crate) const fn concat<const A: usize, const B: usize, const C: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; C] {
    assert!(A + B == C);
    let mut out = [""; C];
    let mut i = 0;
    while i < C {
        out[i] = if i < A { a[i] } else { b[i - A] };
        i += 1;
    }
    out
}
