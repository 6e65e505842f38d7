//! shell-analysis: a command that cannot be analysed is never a pass.

use super::{Check, Example, Rule};
use crate::normalize::Scope;
use crate::shell::{ShellAnalysis, ShellFinding};
use crate::verdict::Effect::{Ask, Deny};

const PACK: &str = "shell-analysis";

/// 70 nested command substitutions: past the nesting bound (64).
const DEEP: &str = "echo $($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($($(echo))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))";

fn too_complex(a: &ShellAnalysis, _: &Scope) -> Option<String> {
    a.findings.iter().find_map(|f| match f {
        ShellFinding::TooComplex { reason } => Some(reason.clone()),
        _ => None,
    })
}

fn parse_error(a: &ShellAnalysis, _: &Scope) -> Option<String> {
    a.findings.iter().find_map(|f| match f {
        ShellFinding::ParseError { message } => Some(message.chars().take(200).collect()),
        _ => None,
    })
}

pub static RULES: &[Rule] = &[
    Rule {
        id: "too-complex",
        pack: PACK,
        effect: Deny,
        reason: "The command is too large or too deeply nested to analyse; split it into simpler commands",
        programs: &[],
        check: Check::Line(too_complex),
        refused: &[Example::bash(DEEP)],
        allowed: &[Example::bash("echo $(echo $(echo hi))")],
    },
    Rule {
        id: "unparseable",
        pack: PACK,
        effect: Ask,
        reason: "The command could not be parsed, so palisade cannot tell what it would do",
        programs: &[],
        check: Check::Line(parse_error),
        refused: &[
            Example::bash("if true; then"),
            Example::bash("bash -c 'echo \"'"),
        ],
        allowed: &[
            Example::bash("echo 'fine'"),
            Example::bash("echo \"unclosed"),
            Example::bash("git commit -m 'wip"),
        ],
    },
];
