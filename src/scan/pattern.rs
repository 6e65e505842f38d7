//! The scanners' regular expressions, compiled on first use and only for a text they can
//! match. A hook process scans one written file: compiling every pattern of its language
//! (Unicode `\w`, `\s` and `\b` make each a large automaton) was 17 M of the 20 M instructions
//! of a whole `Write` of a Rust file, for patterns that mostly had nothing to find.
//!
//! The gate is the one the regex engine's own prefilter relies on: the literals every match
//! must start with (regex-syntax's prefix extraction, when it is finite). A text holding none
//! of them cannot match, so the answer is the same as the compiled pattern's, without
//! compiling it. Long texts skip the gate: looking for each literal would cost more than the
//! compilation saves.

use regex::{Captures, Match, Regex, Replacer};
use std::borrow::Cow;
use std::sync::OnceLock;

/// Texts longer than this are matched without the gate.
const GATE_MAX_BYTES: usize = 64 * 1024;

/// A pattern, compiled when a text first needs it.
pub(super) struct Pattern {
    source: String,
    /// The literals every match starts with and those it ends with; `None` when they are not
    /// a finite set.
    gate: OnceLock<Gate>,
    compiled: OnceLock<Regex>,
}

impl Pattern {
    /// A pattern from its source; it is parsed and compiled only when used.
    pub(super) fn new(source: &str) -> Pattern {
        Pattern {
            source: source.to_string(),
            gate: OnceLock::new(),
            compiled: OnceLock::new(),
        }
    }

    /// The pattern's source text.
    pub(super) fn as_str(&self) -> &str {
        &self.source
    }

    /// The compiled pattern. The patterns are constants checked by the tests: a bad one is a
    /// build defect.
    pub(super) fn regex(&self) -> &Regex {
        self.compiled.get_or_init(|| {
            Regex::new(&self.source)
                .unwrap_or_else(|e| panic!("scanner pattern {:?}: {e}", self.source))
        })
    }

    /// The compiled pattern when `text` may hold a match; `None` when it cannot.
    fn for_text(&self, text: &str) -> Option<&Regex> {
        if text.len() <= GATE_MAX_BYTES {
            let gate = self.gate.get_or_init(|| Gate::of(&self.source));
            let absent = |set: &Option<Vec<String>>| {
                set.as_ref()
                    .is_some_and(|l| !l.iter().any(|s| text.contains(s.as_str())))
            };
            if absent(&gate.starts) || absent(&gate.ends) {
                return None;
            }
        }
        Some(self.regex())
    }

    pub(super) fn is_match(&self, text: &str) -> bool {
        self.for_text(text).is_some_and(|r| r.is_match(text))
    }

    pub(super) fn find<'h>(&self, text: &'h str) -> Option<Match<'h>> {
        self.for_text(text).and_then(|r| r.find(text))
    }

    pub(super) fn captures<'h>(&self, text: &'h str) -> Option<Captures<'h>> {
        self.for_text(text).and_then(|r| r.captures(text))
    }

    pub(super) fn find_iter<'r, 'h>(&'r self, text: &'h str) -> impl Iterator<Item = Match<'h>> {
        self.for_text(text)
            .into_iter()
            .flat_map(move |r: &'r Regex| r.find_iter(text))
    }

    pub(super) fn captures_iter<'r, 'h>(
        &'r self,
        text: &'h str,
    ) -> impl Iterator<Item = Captures<'h>> {
        self.for_text(text)
            .into_iter()
            .flat_map(move |r: &'r Regex| r.captures_iter(text))
    }

    pub(super) fn replace_all<'h, R: Replacer>(&self, text: &'h str, rep: R) -> Cow<'h, str> {
        match self.for_text(text) {
            Some(r) => r.replace_all(text, rep),
            None => Cow::Borrowed(text),
        }
    }
}

/// What a text must hold for a pattern to match in it.
struct Gate {
    /// One of the literals every match starts with.
    starts: Option<Vec<String>>,
    /// One of the literals every match ends with.
    ends: Option<Vec<String>>,
}

impl Gate {
    fn of(source: &str) -> Gate {
        use regex_syntax::hir::literal::ExtractKind;
        match regex_syntax::parse(source) {
            Ok(hir) => Gate {
                starts: literals(&hir, ExtractKind::Prefix),
                ends: literals(&hir, ExtractKind::Suffix),
            },
            Err(_) => Gate {
                starts: None,
                ends: None,
            },
        }
    }
}

#[cfg(test)]
fn prefixes(source: &str) -> Option<Vec<String>> {
    Gate::of(source).starts
}

/// The literals every match of `hir` starts (or ends) with, when they are a finite set of
/// non-empty strings; `None` otherwise (then they gate nothing).
fn literals(
    hir: &regex_syntax::hir::Hir,
    kind: regex_syntax::hir::literal::ExtractKind,
) -> Option<Vec<String>> {
    use regex_syntax::hir::literal::Extractor;
    let seq = Extractor::new().kind(kind).extract(hir);
    let literals = seq.literals()?;
    let starts: Vec<String> = literals
        .iter()
        .map(|l| String::from_utf8(l.as_bytes().to_vec()).ok())
        .collect::<Option<_>>()?;
    if starts.is_empty() || starts.iter().any(String::is_empty) {
        return None;
    }
    Some(starts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_answers_as_the_pattern_does() {
        let cases = [
            r"(?:\bCommand::new)\s*\(\s*",
            r"\breqwest\b|\bureq\b|\bTcpStream\b|\bhyper\b|\bcurl::",
            r"(?m)^[ \t]*let[ \t]+(?:mut[ \t]+)?([a-z_]\w*)(?:[ \t]*:[^=]+)?[ \t]*=[ \t]*",
            r"(?i)curl",
            r"(?m)^[ \t]*([A-Za-z_]\w*)[ \t]*=[ \t]*",
            r"\bos\.(?:system|popen)|\bsubprocess\.(?:run|call)",
        ];
        let texts = [
            "",
            "fn main() { let x = 1; }",
            "std::process::Command::new(\"rm\")",
            "use reqwest; TcpStream::connect",
            "CURL -s x",
            "os.system('ls'); subprocess.run(['a'])",
            "ossystem subprocess.",
            "  let x",
            "let mut y: u8 = 2;",
            "x = 1",
        ];
        for p in cases {
            let gated = Pattern::new(p);
            let plain = Regex::new(p).unwrap();
            for t in texts {
                assert_eq!(gated.is_match(t), plain.is_match(t), "{p} on {t:?}");
                assert_eq!(
                    gated.find_iter(t).map(|m| m.range()).collect::<Vec<_>>(),
                    plain.find_iter(t).map(|m| m.range()).collect::<Vec<_>>()
                );
            }
        }
        // A literal prefix set gates; a pattern that may start anywhere is never gated.
        assert_eq!(
            prefixes(r"\bCommand::new\s*\("),
            Some(vec!["Command::new".to_string()])
        );
        assert_eq!(prefixes(r"[^.\w](?:exec|spawn)"), None);
        assert_eq!(prefixes(r"(?:x)?y*"), None);
    }
}
