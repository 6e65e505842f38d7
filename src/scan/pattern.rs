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
use regex::Regex;
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

/// Unicode's white space (`\s` of the regex crate: the `White_Space` property), as members
/// of a class. `regex-lite` reads `\s` as ASCII's six; a script may separate a call from its
/// parenthesis with any of these (JavaScript takes U+00A0), so both engines must.
const WHITE_SPACE: &str =
    r"\t\n\x0B\x0C\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}";

/// The pattern for `regex-lite`, which matches as the regex crate does on [`ascii_words`]'s
/// form (leftmost-first, `\w` and `\b` on ASCII, a class outside ASCII by code point) except
/// for `\s`, spelled out here. `None` for a construct whose meaning could differ (`\S`, `\d`,
/// `\D`, `\W`, `\B`, `\p`, a case-insensitive part): the regex crate then matches.
fn lite_source(source: &str) -> Option<String> {
    if source.contains("(?i") || source.contains("(?-u") {
        return None;
    }
    let mut out = String::with_capacity(source.len() + 64);
    let mut chars = source.chars();
    // How deep in `[…]` the pattern is (a class may hold classes).
    let mut depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next()? {
                's' if depth > 0 => out.push_str(WHITE_SPACE),
                's' => {
                    out.push('[');
                    out.push_str(WHITE_SPACE);
                    out.push(']');
                }
                'S' | 'd' | 'D' | 'W' | 'B' | 'p' | 'P' => return None,
                other => {
                    out.push('\\');
                    out.push(other);
                }
            },
            '[' => {
                out.push('[');
                depth += 1;
                // A `]` first in a class, or first after its `^`, is a member, not its end.
                for member in ['^', ']'] {
                    if chars.clone().next() == Some(member) {
                        out.push(member);
                        chars.next();
                    }
                }
            }
            ']' if depth > 0 => {
                out.push(']');
                depth -= 1;
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// Texts longer than this are gated by one pass for all literals ([`LongTexts`]).
const GATE_MAX_BYTES: usize = 64 * 1024;

/// Texts up to this long are matched by `regex-lite`. It compiles a scanner pattern in about
/// a quarter of the regex crate's time (28 µs against 100 µs, `scripts/pattern-cost`), which
/// is most of what a short `Write` or `Edit` of code costs, but searches with a PikeVM only,
/// at about 37 ns a byte: past 2 KiB, compiling the regex crate's lazy DFA is cheaper.
const LITE_MAX_BYTES: usize = 2 * 1024;

/// A pattern, compiled when a text first needs it.
pub(super) struct Pattern {
    source: String,
    /// The literals a match must contain one of (`required`), found on first use.
    gate: OnceLock<Gate>,
    compiled: OnceLock<Regex>,
    /// The pattern for short texts; `None` when `regex-lite` cannot read it as the regex crate
    /// does (`lite_source`).
    lite: OnceLock<Option<regex_lite::Regex>>,
}

/// The engine that matches a pattern against one text.
#[derive(Clone, Copy)]
enum Engine<'r> {
    Full(&'r Regex),
    Lite(&'r regex_lite::Regex),
}

impl Pattern {
    /// A pattern from its source; it is parsed and compiled only when used.
    pub(super) fn new(source: &str) -> Pattern {
        Pattern {
            source: source.to_string(),
            gate: OnceLock::new(),
            compiled: OnceLock::new(),
            lite: OnceLock::new(),
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

    /// The pattern as `regex-lite` compiles it, when it can.
    fn lite(&self) -> Option<&regex_lite::Regex> {
        self.lite
            .get_or_init(|| regex_lite::Regex::new(&lite_source(&self.source)?).ok())
            .as_ref()
    }

    /// The engine for `text` when it may hold a match; `None` when it cannot. A short text is
    /// matched by `regex-lite`, whatever was compiled before: the engine depends on the text
    /// alone, so a scan answers the same in any process.
    fn for_text(&self, text: &str) -> Option<Engine<'_>> {
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
        if text.len() <= LITE_MAX_BYTES
            && let Some(lite) = self.lite()
        {
            return Some(Engine::Lite(lite));
        }
        Some(Engine::Full(self.regex()))
    }

    pub(super) fn is_match(&self, text: &str) -> bool {
        match self.for_text(text) {
            Some(Engine::Full(r)) => r.is_match(text),
            Some(Engine::Lite(r)) => r.is_match(text),
            None => false,
        }
    }

    pub(super) fn find<'h>(&self, text: &'h str) -> Option<Match<'h>> {
        match self.for_text(text)? {
            Engine::Full(r) => r.find(text).map(Match::from),
            Engine::Lite(r) => r.find(text).map(Match::from),
        }
    }

    pub(super) fn captures<'h>(&self, text: &'h str) -> Option<Captures<'h>> {
        match self.for_text(text)? {
            Engine::Full(r) => r.captures(text).map(Captures::Full),
            Engine::Lite(r) => r.captures(text).map(Captures::Lite),
        }
    }

    pub(super) fn find_iter<'h>(&self, text: &'h str) -> impl Iterator<Item = Match<'h>> {
        let (full, lite) = match self.for_text(text) {
            Some(Engine::Full(r)) => (Some(r.find_iter(text)), None),
            Some(Engine::Lite(r)) => (None, Some(r.find_iter(text))),
            None => (None, None),
        };
        let full = full.into_iter().flatten().map(Match::from);
        full.chain(lite.into_iter().flatten().map(Match::from))
    }

    pub(super) fn captures_iter<'h>(&self, text: &'h str) -> impl Iterator<Item = Captures<'h>> {
        let (full, lite) = match self.for_text(text) {
            Some(Engine::Full(r)) => (Some(r.captures_iter(text)), None),
            Some(Engine::Lite(r)) => (None, Some(r.captures_iter(text))),
            None => (None, None),
        };
        let full = full.into_iter().flatten().map(Captures::Full);
        full.chain(lite.into_iter().flatten().map(Captures::Lite))
    }

    /// `text` with every match replaced by `rep`'s text for it (a `$1` template, or a
    /// function of the match's groups); borrowed when nothing matched.
    pub(super) fn replace_all<'h, R: Replace>(&self, text: &'h str, mut rep: R) -> Cow<'h, str> {
        let mut out = Splice::new(text);
        if let Some(literal) = rep.literal() {
            // No group to expand: the matches' bounds are all it needs, which the engines
            // find without tracking groups.
            for m in self.find_iter(text) {
                out.replace(m.start(), m.end(), literal);
            }
        } else {
            let mut with = String::new();
            for caps in self.captures_iter(text) {
                let whole = caps.get(0).expect("group 0 is the match");
                with.clear();
                rep.append(&caps, &mut with);
                out.replace(whole.start(), whole.end(), &with);
            }
        }
        out.finish()
    }
}

/// A text with some of its spans replaced, built as the replacements are found, left to
/// right; borrowed when none was made (`Pattern::replace_all`, and the scanner's rewrites).
pub(super) struct Splice<'t> {
    text: &'t str,
    out: String,
    /// The end of the text already in `out`.
    copied: usize,
    changed: bool,
}

impl<'t> Splice<'t> {
    pub(super) fn new(text: &'t str) -> Splice<'t> {
        Splice {
            text,
            out: String::new(),
            copied: 0,
            changed: false,
        }
    }

    /// Replaces `text[start..end]` by `with`; `start` is at or past the last span's end.
    pub(super) fn replace(&mut self, start: usize, end: usize, with: &str) {
        self.out.push_str(&self.text[self.copied..start]);
        self.out.push_str(with);
        self.copied = end;
        self.changed = true;
    }

    pub(super) fn finish(mut self) -> Cow<'t, str> {
        if !self.changed {
            return Cow::Borrowed(self.text);
        }
        self.out.push_str(&self.text[self.copied..]);
        Cow::Owned(self.out)
    }
}

/// Where a pattern matched in a text, whichever engine found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Match<'h> {
    start: usize,
    matched: &'h str,
}

impl<'h> Match<'h> {
    pub(super) fn start(&self) -> usize {
        self.start
    }

    pub(super) fn end(&self) -> usize {
        self.start + self.matched.len()
    }

    #[cfg(test)]
    pub(super) fn range(&self) -> std::ops::Range<usize> {
        self.start..self.end()
    }

    pub(super) fn as_str(&self) -> &'h str {
        self.matched
    }
}

impl<'h> From<regex::Match<'h>> for Match<'h> {
    fn from(m: regex::Match<'h>) -> Match<'h> {
        Match {
            start: m.start(),
            matched: m.as_str(),
        }
    }
}

impl<'h> From<regex_lite::Match<'h>> for Match<'h> {
    fn from(m: regex_lite::Match<'h>) -> Match<'h> {
        Match {
            start: m.start(),
            matched: m.as_str(),
        }
    }
}

/// A match's groups, from whichever engine found it.
pub(super) enum Captures<'h> {
    Full(regex::Captures<'h>),
    Lite(regex_lite::Captures<'h>),
}

impl<'h> Captures<'h> {
    /// Group `i` (0 is the whole match), when it took part in the match.
    pub(super) fn get(&self, i: usize) -> Option<Match<'h>> {
        match self {
            Captures::Full(c) => c.get(i).map(Match::from),
            Captures::Lite(c) => c.get(i).map(Match::from),
        }
    }

    /// How many groups the pattern has, the whole match included.
    pub(super) fn len(&self) -> usize {
        match self {
            Captures::Full(c) => c.len(),
            Captures::Lite(c) => c.len(),
        }
    }

    /// Every group in order, the whole match first; `None` for one that took no part.
    pub(super) fn iter(&self) -> impl Iterator<Item = Option<Match<'h>>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// `template` with `$1`, `${name}` and `$$` expanded, appended to `dst`.
    pub(super) fn expand(&self, template: &str, dst: &mut String) {
        match self {
            Captures::Full(c) => c.expand(template, dst),
            Captures::Lite(c) => c.expand(template, dst),
        }
    }
}

impl std::ops::Index<usize> for Captures<'_> {
    type Output = str;

    /// Group `i`'s text; panics when the group did not take part, as the regex crate's does.
    fn index(&self, i: usize) -> &str {
        match self {
            Captures::Full(c) => &c[i],
            Captures::Lite(c) => &c[i],
        }
    }
}

/// What a match is replaced with (`Pattern::replace_all`).
pub(super) trait Replace {
    /// Appends the replacement of the match `caps` to `dst`.
    fn append(&mut self, caps: &Captures<'_>, dst: &mut String);

    /// The replacement when it is the same text for every match.
    fn literal(&self) -> Option<&str> {
        None
    }
}

/// A template: `$1`, `${1}`, `${name}` stand for groups, `$$` for a dollar sign.
impl Replace for &str {
    fn append(&mut self, caps: &Captures<'_>, dst: &mut String) {
        caps.expand(self, dst);
    }

    fn literal(&self) -> Option<&str> {
        (!self.contains('$')).then_some(*self)
    }
}

impl<F, T> Replace for F
where
    F: FnMut(&Captures<'_>) -> T,
    T: AsRef<str>,
{
    fn append(&mut self, caps: &Captures<'_>, dst: &mut String) {
        dst.push_str(self(caps).as_ref());
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

    /// `regex-lite` reads `\s` as ASCII's six; its form of a pattern spells out Unicode's
    /// white space, inside a class and out, and leaves alone what only looks like `\s`.
    #[test]
    fn lite_reads_white_space_as_the_regex_crate_does() {
        let ws = format!("[{WHITE_SPACE}]");
        assert_eq!(lite_source(r"a\s*b").unwrap(), format!("a{ws}*b"));
        assert_eq!(
            lite_source(r#"[^"\s]+"#).unwrap(),
            format!(r#"[^"{WHITE_SPACE}]+"#)
        );
        assert_eq!(lite_source(r"\\s").unwrap(), r"\\s");
        assert_eq!(lite_source(r"[]\s]").unwrap(), format!("[]{WHITE_SPACE}]"));
        assert_eq!(
            lite_source(r"[^]\s]").unwrap(),
            format!("[^]{WHITE_SPACE}]")
        );
        assert_eq!(
            lite_source(r"[[a-z]\s]x\s").unwrap(),
            format!("[[a-z]{WHITE_SPACE}]x{ws}")
        );
        for other in [
            r"(?i)rm",
            r"a(?i:b)",
            r"\S",
            r"\d",
            r"\W",
            r"\B",
            r"\pL",
            r"(?-u:\b)",
        ] {
            assert_eq!(lite_source(other), None, "{other}");
        }
        let p = r#"\brequire\s*\(\s*["']child_process["']\s*\)"#;
        let lite = regex_lite::Regex::new(&lite_source(p).unwrap()).unwrap();
        let full = Regex::new(&ascii_words(p)).unwrap();
        for space in [
            " ", "\t", "\n", "\u{a0}", "\u{2028}", "\u{3000}", "\u{feff}", "\u{200b}",
        ] {
            let text = format!("require{space}('child_process')");
            assert_eq!(lite.is_match(&text), full.is_match(&text), "{space:?}");
        }
        assert!(lite.is_match("require\u{a0}('child_process')"));
        assert!(!lite.is_match("require\u{200b}('child_process')"));
    }

    /// The engines agree on every scanner pattern: the same matches and groups, over every
    /// text of the challenge sets the pattern's gate lets through, and over the same texts
    /// with their spaces and letters moved outside ASCII.
    #[test]
    fn both_engines_find_the_same_matches() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("challenge-sets");
        let mut texts: BTreeSet<String> = BTreeSet::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            for line in std::fs::read_to_string(&path).unwrap().lines() {
                let case: serde_json::Value = serde_json::from_str(line).unwrap();
                let input = &case["event"]["tool_input"];
                for key in ["command", "content", "new_string"] {
                    if let Some(t) = input[key].as_str().filter(|t| t.len() <= 4096) {
                        texts.insert(t.to_string());
                        texts.insert(t.replace(' ', "\u{a0}").replace('e', "é"));
                        texts.insert(t.replace('(', "\u{3000}(").replace('\n', "\r\n"));
                    }
                }
            }
        }
        assert!(
            texts.len() > 3000,
            "the challenge sets' texts: {}",
            texts.len()
        );
        let groups = |c: &Captures| c.iter().map(|m| m.map(|m| m.range())).collect::<Vec<_>>();
        let mut compared = 0;
        for (source, gate) in super::super::gates::GATES {
            let full = Regex::new(&ascii_words(source)).unwrap();
            let Some(lite) = lite_source(source) else {
                assert!(
                    source.contains("(?i"),
                    "only a case-insensitive pattern stays: {source}"
                );
                continue;
            };
            let lite = regex_lite::Regex::new(&lite)
                .unwrap_or_else(|e| panic!("regex-lite rejects {source:?}: {e}"));
            for t in &texts {
                if gate.is_some_and(|g| !g.iter().any(|l| t.contains(l))) {
                    continue;
                }
                compared += 1;
                let a: Vec<_> = full.captures_iter(t).map(Captures::Full).collect();
                let b: Vec<_> = lite.captures_iter(t).map(Captures::Lite).collect();
                assert_eq!(
                    a.iter().map(groups).collect::<Vec<_>>(),
                    b.iter().map(groups).collect::<Vec<_>>(),
                    "{source} on {t:?}"
                );
            }
        }
        assert!(compared > 10_000, "pairs compared: {compared}");
    }

    /// Every gated scanner pattern in both engines, for the property below.
    static BOTH: LazyLock<Vec<(Regex, Option<regex_lite::Regex>)>> = LazyLock::new(|| {
        super::super::gates::GATES
            .iter()
            .map(|(source, _)| {
                let full = Regex::new(&ascii_words(source)).unwrap();
                let lite = lite_source(source).map(|l| regex_lite::Regex::new(&l).unwrap());
                (full, lite)
            })
            .collect()
    });

    /// What goes between the literals in the property's texts: code's punctuation, and
    /// white space and letters outside ASCII next to it.
    const SEPARATORS: &[&str] = &[
        "",
        " ",
        "(",
        "('",
        "(\"",
        " = ",
        "\n",
        "\r\n",
        "\t(",
        ".",
        "/",
        "~/",
        ", ",
        ")",
        "$",
        "\u{a0}",
        "\u{a0}(",
        "(\u{a0}\"",
        "\u{2028}",
        "\u{3000}(",
        "\u{200b}(",
        "é",
        "ß(",
        "\\",
        "{",
        "}",
        ";",
        "`",
        "\"~/.ssh\"",
        "'/etc/passwd')",
    ];

    proptest::proptest! {
        /// The engines agree on texts made of the patterns' own literals in any order, with
        /// code's punctuation between them: every pattern, on each text.
        #[test]
        fn both_engines_agree_on_any_arrangement_of_the_patterns_literals(
            picks in proptest::collection::vec(
                (proptest::prelude::any::<proptest::sample::Index>(), proptest::sample::select(SEPARATORS)),
                0..12,
            ),
        ) {
            let literals = table_literals();
            let text: String = picks.iter().flat_map(|(l, sep)| [*l.get(&literals), *sep]).collect();
            let groups = |c: &Captures| c.iter().map(|m| m.map(|m| m.range())).collect::<Vec<_>>();
            for (which, (full, lite)) in BOTH.iter().enumerate() {
                let Some(lite) = lite else { continue };
                let a: Vec<_> = full.captures_iter(&text).map(|c| groups(&Captures::Full(c))).collect();
                let b: Vec<_> = lite.captures_iter(&text).map(|c| groups(&Captures::Lite(c))).collect();
                proptest::prop_assert_eq!(a, b, "{} on {:?}", super::super::gates::GATES[which].0, text);
            }
        }
    }

    /// A short text goes to `regex-lite`, a long one to the regex crate, and `replace_all`
    /// answers alike from both: templates, functions, and nothing replaced.
    #[test]
    fn short_and_long_texts_replace_alike() {
        let p = Pattern::new(r#"\bos\.path\.join\(\s*"([^"]*)"\s*,\s*"([^"]*)"\s*\)"#);
        let call = r#"f(os.path.join("~", ".ssh")) + os.path.join( "a","b" )"#;
        let short = format!("x = {call}\n");
        let long = format!("{short}{}", "#\n".repeat(LITE_MAX_BYTES));
        assert!(matches!(p.for_text(&short), Some(Engine::Lite(_))));
        assert!(matches!(p.for_text(&long), Some(Engine::Full(_))));
        for text in [&short, &long] {
            let by_template = p.replace_all(text, "$1/$2");
            assert!(
                by_template.starts_with("x = f(~/.ssh) + a/b\n"),
                "{by_template}"
            );
            let by_function = p.replace_all(text, |c: &Captures| format!("<{}>", &c[2]));
            assert!(
                by_function.starts_with("x = f(<.ssh>) + <b>\n"),
                "{by_function}"
            );
            assert!(matches!(
                p.replace_all("nothing here", "$1"),
                Cow::Borrowed(_)
            ));
            let by_literal = p.replace_all(text, "J(");
            assert!(by_literal.starts_with("x = f(J() + J(\n"), "{by_literal}");
            assert!(matches!(
                p.replace_all("nothing here", "J"),
                Cow::Borrowed(_)
            ));
            assert_eq!(p.find_iter(text).count(), 2);
            assert_eq!(p.captures(text).unwrap().get(1).unwrap().as_str(), "~");
        }
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
