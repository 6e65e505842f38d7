//! The scanners' regular expressions, compiled on first use and only for a text they can
//! match. A hook process scans one written file: compiling every pattern of its language
//! (Unicode `\w`, `\s` and `\b` make each a large automaton) was 17 M of the 20 M instructions
//! of a whole `Write` of a Rust file, for patterns that mostly had nothing to find.
//!
//! The gate: the literals of which every match must contain one, read from the pattern's
//! syntax tree (regex-syntax, the parser the regex crate itself uses). A text holding none of
//! them cannot match, so the answer is the same as the compiled pattern's, without compiling
//! it. Long texts (past [`GATE_MAX_BYTES`]) are gated by one pass that finds every literal of
//! the table at once (`literals`, [`LongTexts`]): a search per literal would cost more than
//! compiling, and compiling every pattern was most of a 1 MB `Write`.
//!
//! Parsing the patterns to find their literals was itself half of a small `Write` (two million
//! instructions for the patterns one file needs), so the gates of the scanners' patterns are
//! read from a table generated from the same syntax trees (`gates.rs`), which a test keeps
//! current; a pattern not in it is parsed as before.

use super::literals::LiteralSet;
use regex::{Captures, Match, Regex, Replacer};
use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

/// The pattern with its word classes and boundaries on ASCII (`\w` as `[0-9A-Za-z_]`, `\b`
/// as `(?-u:\b)`): Unicode's are automata of hundreds of ranges, whose compilation was most of
/// a call with inline code, and the code these patterns read names its calls and variables in
/// ASCII. A letter outside ASCII is then no word character: next to a name it makes a
/// boundary (a call is still found), and a variable named with one is not followed (what it
/// holds is unknown, as any computed value is).
pub(super) fn ascii_words(source: &str) -> String {
    let mut out = String::with_capacity(source.len() + 16);
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('b') => out.push_str("(?-u:\\b)"),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Texts longer than this are gated by one pass for all literals ([`LongTexts`]).
const GATE_MAX_BYTES: usize = 64 * 1024;

/// A pattern, compiled when a text first needs it.
pub(super) struct Pattern {
    source: String,
    /// The literals a match must contain one of (`required`), found on first use.
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
            Regex::new(&ascii_words(&self.source))
                .unwrap_or_else(|e| panic!("scanner pattern {:?}: {e}", self.source))
        })
    }

    /// The compiled pattern when `text` may hold a match; `None` when it cannot.
    fn for_text(&self, text: &str) -> Option<&Regex> {
        if let Some(needles) = self.gate.get_or_init(|| gate_of(&self.source)) {
            let open = if text.len() <= GATE_MAX_BYTES {
                needles.iter().any(|n| text.contains(n.as_str()))
            } else {
                LongTexts::any_in(text, needles)
            };
            if !open {
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

/// The table's literals found in the last few long texts, so the many patterns matched
/// against one text share one pass over it. A text is looked up by its whole content (a
/// comparison is a fraction of a pass), so a found set is never taken for another text's.
struct LongTexts {
    texts: Vec<(String, Arc<Vec<bool>>)>,
}

/// How many long texts are remembered (the original, its home-substituted form and a spare).
const LONG_TEXTS_KEPT: usize = 3;

/// Every literal of the gate table, in a fixed order, and the set that finds them all at once.
static LITERALS: LazyLock<(Vec<&'static str>, LiteralSet)> = LazyLock::new(|| {
    let mut all: Vec<&str> = super::gates::GATES
        .iter()
        .filter_map(|(_, g)| *g)
        .flatten()
        .copied()
        .collect();
    all.sort_unstable();
    all.dedup();
    let search = LiteralSet::new(&all);
    (all, search)
});

/// The gate table's literals, in the order of `literals_in`'s answer.
#[cfg(test)]
pub(super) fn table_literals() -> Vec<&'static str> {
    LITERALS.0.clone()
}

static LONG_TEXTS: Mutex<LongTexts> = Mutex::new(LongTexts { texts: Vec::new() });

/// A long text being scanned (`with_long_text`): its address and length, and its literals.
struct Scanned {
    at: (usize, usize),
    found: Arc<Vec<bool>>,
}

thread_local! {
    /// The long texts this thread is scanning.
    static SCANNING: RefCell<Vec<Scanned>> = const { RefCell::new(Vec::new()) };
}

/// Runs `scan` with `text`'s literals found before it, so each pattern matched against `text`
/// meanwhile finds them by the text's address and length, not by comparing a long text with
/// the remembered ones once a pattern (for a 1 MB `Write`, a twentieth of its time), nor by
/// remembering a copy of it. That is exact while `text` is borrowed: no other text can then be
/// at its address.
pub(super) fn with_long_text<R>(text: &str, scan: impl FnOnce() -> R) -> R {
    if text.len() <= GATE_MAX_BYTES || scanning(text).is_some() {
        return scan();
    }
    // Not remembered among the long texts: the scan is the one pass that needs them, and
    // remembering would copy the text and compare it with the next long one.
    let found = literals_in(text);
    /// Takes the text off the list however `scan` ends, unwinding included.
    struct Done;
    impl Drop for Done {
        fn drop(&mut self) {
            SCANNING.with(|s| s.borrow_mut().pop());
        }
    }
    SCANNING.with(|s| {
        s.borrow_mut().push(Scanned {
            at: (text.as_ptr() as usize, text.len()),
            found,
        })
    });
    let _done = Done;
    scan()
}

/// The literals of `text` when this thread is scanning it (`with_long_text`).
fn scanning(text: &str) -> Option<Arc<Vec<bool>>> {
    let at = (text.as_ptr() as usize, text.len());
    SCANNING.with(|s| {
        s.borrow()
            .iter()
            .find(|s| s.at == at)
            .map(|s| Arc::clone(&s.found))
    })
}

impl LongTexts {
    /// Whether `text` holds one of `needles`; true when that cannot be told cheaply (a
    /// literal not in the table), which compiles the pattern: never a miss.
    fn any_in(text: &str, needles: &[String]) -> bool {
        let all = &LITERALS.0;
        let mut ids = Vec::with_capacity(needles.len());
        for n in needles {
            match all.binary_search(&n.as_str()) {
                Ok(i) => ids.push(i),
                Err(_) => return true,
            }
        }
        let found = scanning(text).unwrap_or_else(|| LongTexts::found(text));
        ids.iter().any(|&i| found[i])
    }

    /// Which of the table's literals `text` holds, from the remembered texts or one pass.
    fn found(text: &str) -> Arc<Vec<bool>> {
        #[cfg(test)]
        tests::LOOKUPS.with(|n| n.set(n.get() + 1));
        let mut cache = LONG_TEXTS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, found)) = cache.texts.iter().find(|(t, _)| t == text) {
            return Arc::clone(found);
        }
        let found = literals_in(text);
        if cache.texts.len() == LONG_TEXTS_KEPT {
            cache.texts.remove(0);
        }
        cache.texts.push((text.to_string(), Arc::clone(&found)));
        found
    }
}

/// Whether scanning `text` gates its patterns by one pass for all literals (`with_long_text`).
#[cfg(test)]
pub(super) fn gated_as_long(text: &str) -> bool {
    text.len() > GATE_MAX_BYTES
}

/// Which of the table's literals `text` holds, found in one pass.
fn literals_in(text: &str) -> Arc<Vec<bool>> {
    #[cfg(test)]
    tests::PASSES.with(|n| n.set(n.get() + 1));
    Arc::new(LITERALS.1.found_in(text.as_bytes()))
}

/// The literals a match must contain one of, `None` when the pattern has no such set (then
/// nothing is gated).
type Gate = Option<Vec<String>>;

fn gate_of(source: &str) -> Gate {
    match super::gates::GATES.binary_search_by(|(s, _)| (*s).cmp(source)) {
        Ok(i) => super::gates::GATES[i]
            .1
            .map(|set| set.iter().map(|l| l.to_string()).collect()),
        Err(_) => parsed_gate(source),
    }
}

/// The gate read from the pattern's syntax tree.
fn parsed_gate(source: &str) -> Gate {
    let hir = regex_syntax::parse(source).ok()?;
    let set = required(&hir)?;
    let set: Vec<String> = set
        .into_iter()
        .map(|l| String::from_utf8(l).ok())
        .collect::<Option<_>>()?;
    (!set.is_empty() && !set.iter().any(String::is_empty)).then_some(set)
}

#[cfg(test)]
fn prefixes(source: &str) -> Gate {
    parsed_gate(source)
}

/// Literals of which every match of `hir` contains at least one, when the syntax tree says so:
/// a literal is itself; a sequence needs what any one of its parts needs (the most selective
/// part is kept); an alternation needs one of what each branch needs (all branches must need
/// something); a repetition at least once needs what its body needs. Classes, assertions and
/// optional parts need nothing.
fn required(hir: &regex_syntax::hir::Hir) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Literal(l) => Some(vec![l.0.to_vec()]),
        HirKind::Capture(c) => required(&c.sub),
        HirKind::Repetition(r) if r.min >= 1 => required(&r.sub),
        HirKind::Concat(parts) => parts.iter().filter_map(required).max_by_key(|set| {
            let shortest = set.iter().map(Vec::len).min().unwrap_or(0);
            (shortest, std::cmp::Reverse(set.len()))
        }),
        HirKind::Alternation(branches) => {
            let mut all = Vec::new();
            for b in branches {
                all.extend(required(b)?);
            }
            Some(all)
        }
        _ => None,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::sync::Mutex;

    /// Every scanner pattern source this test process has built (`script::re`).
    pub(in crate::scan) static SEEN: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

    thread_local! {
        /// How many times this thread looked a long text up among the remembered ones.
        pub(super) static LOOKUPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        /// How many passes over a long text this thread made to find its literals.
        pub(super) static PASSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// While a long text is scanned (`with_long_text`), the patterns matched against it find
    /// its literals by its address: one pass for the scan, no lookup among the remembered
    /// texts; they answer as they do outside it; and the text is off the list however the scan
    /// ends.
    #[test]
    fn a_long_text_being_scanned_is_found_by_its_address() {
        // Two patterns of the scanners' table: one whose literal the text holds, one whose
        // literals it does not.
        let gated = || {
            super::super::gates::GATES
                .iter()
                .filter_map(|(source, gate)| gate.map(|g| (*source, g)))
        };
        let (source, literals) = gated().next().expect("a gated pattern");
        let text = format!(
            "{}{}\n",
            "x = 1\n".repeat(GATE_MAX_BYTES / 6 + 1),
            literals[0]
        );
        let (other, _) = gated()
            .find(|(_, g)| g.iter().all(|l| !text.contains(l)))
            .expect("a pattern the text cannot match");
        let (one, other) = (Pattern::new(source), Pattern::new(other));
        let answers = || (one.is_match(&text), other.is_match(&text));
        let counts = || (LOOKUPS.with(|n| n.get()), PASSES.with(|n| n.get()));
        let before = counts();
        let outside = answers();
        assert!(!outside.1);
        assert_eq!(
            counts().0 - before.0,
            2,
            "outside a scan, one lookup a pattern"
        );
        let before = counts();
        let inside = with_long_text(&text, || with_long_text(&text, answers));
        assert_eq!(inside, outside);
        let after = counts();
        assert_eq!(
            (after.0 - before.0, after.1 - before.1),
            (0, 1),
            "one pass for the whole scan, and no lookup"
        );
        let short = "a short text";
        assert!(!with_long_text(short, || other.is_match(short)));
        assert!(SCANNING.with(|s| s.borrow().is_empty()));
        let unwound = std::panic::catch_unwind(|| with_long_text(&text, || panic!("a scan fails")));
        assert!(unwound.is_err());
        assert!(
            SCANNING.with(|s| s.borrow().is_empty()),
            "a scan that panicked leaves no address behind"
        );
    }

    /// Word classes and boundaries compile on ASCII: escapes other than `\w` and `\b` (a
    /// literal backslash among them) stay, a class keeps its other members, and a call next to
    /// a letter outside ASCII is still found (a boundary), where Unicode's `\b` found none.
    #[test]
    fn ascii_words_keep_every_other_escape() {
        assert_eq!(
            ascii_words(r"(?:^|[^\w>$])unlink\b\s*\(\\w\.\d"),
            r"(?:^|[^[0-9A-Za-z_]>$])unlink(?-u:\b)\s*\(\\w\.\d"
        );
        let p = Pattern::new(r"\bos\.system\s*\(");
        assert!(p.is_match("os.system('x')"));
        assert!(p.is_match("éos.system('x')"));
        assert!(!p.is_match("pos.system('x')"));
        let assign = Pattern::new(r"(?m)^[ \t]*([a-z_]\w*)[ \t]*=");
        assert!(assign.is_match("home_dir = 1"));
        assert!(!assign.is_match("é = 1"));
    }

    /// `gates.rs` as it should be for `sources`.
    pub(in crate::scan) fn gate_table(sources: &BTreeSet<String>) -> String {
        let mut out = String::from(
            "//! Generated by `PALISADE_WRITE_GATES=1 cargo test --lib gate_table`: the literals one of\n\
             //! which every match of a scanner pattern contains (`pattern.rs`), by pattern source,\n\
             //! sorted; `None` for a pattern with no such set.\n\n\
             #[rustfmt::skip]\n\
             pub(super) static GATES: &[(&str, Option<&[&str]>)] = &[\n",
        );
        for source in sources {
            let gate = match parsed_gate(source) {
                None => "None".to_string(),
                Some(set) => format!(
                    "Some(&[{}])",
                    set.iter()
                        .map(|l| format!("{l:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            out.push_str(&format!("    ({source:?}, {gate}),\n"));
        }
        out.push_str("];\n");
        out
    }

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
        // What every match contains gates; a pattern that needs no literal is never gated.
        let gate = |p: &str| {
            prefixes(p).map(|mut v| {
                v.sort();
                v
            })
        };
        assert_eq!(
            gate(r"\bCommand::new\s*\("),
            Some(vec!["Command::new".into()])
        );
        assert_eq!(
            gate(r"[^.\w](?:exec|spawn)"),
            Some(vec!["exec".into(), "spawn".into()])
        );
        assert_eq!(
            gate(r"(?m)^[ \t]*([A-Za-z_]\w*)[ \t]*=[ \t]*"),
            Some(vec!["=".into()])
        );
        assert_eq!(gate(r"a|\w+"), None);
        assert_eq!(gate(r"(?:x)?y*"), None);
        assert_eq!(gate(r"(?:ab)+c?"), Some(vec!["ab".into()]));
    }
}
