//! The redaction patterns' gates over a long text, all found in one pass.
//!
//! A short text is gated by one substring search per literal over it and its lowercased copy
//! (`gate_open`). Over a long text (a written file, a here-doc) those searches, the copy and
//! the `://` and assignment scans were most of its redaction: 80 of the 1 MB `Write`'s 285
//! million instructions, five times the filing-day build's redaction, which had a third of the
//! patterns. Here one Aho-Corasick automaton, ASCII case ignored, finds every literal of every
//! gate, and each occurrence is checked as `gate_open` checks it. The scanner's automaton
//! (`scan::pattern`) is built for hundreds of literals and is a different trade-off; these are
//! a few dozen, for which a DFA is cheap to build and the fastest to run.

use super::{PATTERNS, URL_USERINFO, assignment, assignment_follows, userinfo_follows};
use aho_corasick::{AhoCorasick, AhoCorasickKind};
use std::sync::LazyLock;

/// Texts from this many bytes are gated by one pass.
const FROM_BYTES: usize = 16 * 1024;

/// One condition a gate part sets: its literal (matched exactly when it has an upper-case
/// letter, else with ASCII case ignored) and what must follow it.
#[derive(PartialEq, Eq)]
struct Part {
    word: &'static str,
    exact: bool,
    follows: Follows,
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Follows {
    Anything,
    /// What an assignment needs; `true` lets name characters come first (`KEY* =`).
    Assignment(bool),
    /// A `user:password@` authority (the `://` of [`URL_USERINFO`]).
    Userinfo,
}

struct Table {
    parts: Vec<Part>,
    /// Pattern by pattern, needle by needle: the parts that needle needs, all of them.
    needles: Vec<Vec<Vec<usize>>>,
    /// Each literal of the automaton: the parts it is the word of.
    parts_of_word: Vec<Vec<usize>>,
    /// `None` when the automaton could not be built: every gate is then open.
    search: Option<AhoCorasick>,
}

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    let mut parts: Vec<Part> = Vec::new();
    let mut part_id = |part: Part| match parts.iter().position(|p| *p == part) {
        Some(i) => i,
        None => {
            parts.push(part);
            parts.len() - 1
        }
    };
    let needles: Vec<Vec<Vec<usize>>> = PATTERNS
        .iter()
        .map(|(needles, _)| {
            needles
                .iter()
                .map(|n| {
                    if *n == URL_USERINFO {
                        return vec![part_id(Part {
                            word: "://",
                            exact: false,
                            follows: Follows::Userinfo,
                        })];
                    }
                    n.split('&')
                        .map(|p| {
                            let (word, after) = assignment(p);
                            part_id(Part {
                                word,
                                exact: word.bytes().any(|b| b.is_ascii_uppercase()),
                                follows: after.map_or(Follows::Anything, Follows::Assignment),
                            })
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    let mut words: Vec<String> = Vec::new();
    let mut parts_of_word: Vec<Vec<usize>> = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        let w = p.word.to_ascii_lowercase();
        match words.iter().position(|x| *x == w) {
            Some(k) => parts_of_word[k].push(i),
            None => {
                words.push(w);
                parts_of_word.push(vec![i]);
            }
        }
    }
    let search = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .kind(Some(AhoCorasickKind::DFA))
        .build(&words)
        .ok();
    Table {
        parts,
        needles,
        parts_of_word,
        search,
    }
});

/// Which gate parts a long text satisfies.
pub(super) struct Found {
    met: Vec<bool>,
}

impl Found {
    /// The parts `text` satisfies, when it is long enough to be gated in one pass.
    pub(super) fn in_long_text(text: &str) -> Option<Found> {
        (text.len() >= FROM_BYTES).then(|| Found::in_text(text))
    }

    fn in_text(text: &str) -> Found {
        let t = &*TABLE;
        let Some(search) = &t.search else {
            return Found {
                met: vec![true; t.parts.len()],
            };
        };
        let mut met = vec![false; t.parts.len()];
        let mut left = t.parts.len();
        for m in search.find_overlapping_iter(text) {
            for &i in &t.parts_of_word[m.pattern().as_usize()] {
                if met[i] {
                    continue;
                }
                let part = &t.parts[i];
                // Every word is ASCII, so a match ends on a character boundary; were it not, the
                // part counts as met, which only runs a pattern.
                let rest = text.get(m.end()..);
                let holds = (!part.exact || &text.as_bytes()[m.range()] == part.word.as_bytes())
                    && rest.is_none_or(|rest| match part.follows {
                        Follows::Anything => true,
                        Follows::Assignment(name_tail) => {
                            assignment_follows(rest, name_tail, !part.exact)
                        }
                        Follows::Userinfo => userinfo_follows(rest),
                    });
                if holds {
                    met[i] = true;
                    left -= 1;
                }
            }
            if left == 0 {
                break;
            }
        }
        Found { met }
    }

    /// Whether pattern `i`'s gate is open: one of its needles has all its parts met.
    pub(super) fn open(&self, i: usize) -> bool {
        TABLE.needles[i]
            .iter()
            .any(|parts| parts.iter().all(|&p| self.met[p]))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{PATTERNS, gate_open};
    use super::*;
    use proptest::prelude::*;

    /// Pattern by pattern, the one-pass gate against the per-literal one.
    fn same_gates(text: &str) {
        let found = Found::in_text(text);
        let lower = text.to_ascii_lowercase();
        for (i, (needles, _)) in PATTERNS.iter().enumerate() {
            assert_eq!(
                found.open(i),
                gate_open(needles, text, &lower),
                "pattern {i} ({needles:?}) on {text:?}"
            );
        }
    }

    #[test]
    fn every_gate_word_is_ascii() {
        assert!(TABLE.search.is_some());
        for p in &TABLE.parts {
            assert!(p.word.is_ascii() && !p.word.is_empty(), "{:?}", p.word);
        }
    }

    #[test]
    fn one_pass_opens_the_gates_the_searches_open() {
        for text in [
            "",
            "API_KEY_ID = abcdefghijklmnop1234",
            "api_key: 'abcdefghijklmnopqrst'",
            "Api-Key: x and API&KEY",
            "my_token\u{a0}=\u{a0}abcdefghijklmnopqr",
            "TOKEN bucket = 3; Token: 4; token\t=5",
            "export GITHUB_TOKEN=ghx_notaprefix_but_long_value",
            "GITHUB_token=x db_PASSWORD = y Pass_word: z",
            "KEY_LIST:",
            "KEY list: and key_list = and KEYS=",
            "the keys: a, b; private keys",
            "git clone https://deploy:hunter2pass@git.example.com/r.git",
            "HTTPS://U:P@HOST",
            "https://github.com/a/b@v1 and me@example.com ssh://git@x",
            "https://x\u{2003}user:pw@h",
            "curl -u a:b https://x.io/p@q ftp://h:21@ --user=c:d -U e:f",
            "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
            "-----begin rsa private key-----",
            "Authorization: Bearer abcdefgh; AUTHORIZATION=x",
            "sshpass -p pw ssh h; SSHPASS=1; docker LOGIN -p x; MySQL -pX",
            "SG.abc sg.abc glpat-x GLPAT-y npm_x NPM_y hf_z key-0 KEY-1 sig=x SIG=y",
            "sk_live_x SK_LIVE_y rk_test_z --pass x --PASSWORD y configure set",
            "my password is hunter2; PASSWORD WAS x; passphrase is y; password:z",
            "é KEY\u{301}= x ÀPASS=1 token\u{feff}= 2",
        ] {
            same_gates(text);
            // The same words far into a long text, and split across nothing else.
            same_gates(&format!(
                "{}{text}{}",
                "x".repeat(FROM_BYTES),
                " y".repeat(10)
            ));
        }
    }

    proptest! {
        /// Texts of gate words, their case changed, and what may follow them: the one pass
        /// opens exactly the gates the per-literal searches open.
        #[test]
        fn one_pass_agrees_with_the_searches(
            pieces in prop::collection::vec(
                (0usize..64, prop::sample::select(vec![
                    "", " ", "=", ":", " = ", "\t:", "'", "\"", "_ID", "S", "@", ":x@", "/",
                    "://", "a:b@", "é", "\u{a0}", "-", "_", ".", "&", "X", "1", "\n",
                ]), any::<bool>()),
                0..12,
            )
        ) {
            let words: Vec<&str> = TABLE.parts.iter().map(|p| p.word).collect();
            let mut text = String::new();
            for (w, sep, upper) in pieces {
                let w = words[w % words.len()];
                text.push_str(&if upper { w.to_ascii_uppercase() } else { w.to_string() });
                text.push_str(sep);
            }
            same_gates(&text);
        }
    }
}
