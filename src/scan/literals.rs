//! Which of the gate table's literals a long text holds, found in one pass (`pattern`'s long
//! texts).
//!
//! The table has some 460 literals, from one byte (`.`, `=`) to whole names. An Aho-Corasick
//! automaton reporting every occurrence of each was a third of a 1 MB Python `Write`, and its
//! build was paid by every process that scanned a long text (docs/PERFORMANCE.md, "A long
//! text's literals by a three-byte filter"). Most positions of source code start no literal,
//! though: 3–4% of them start one of the literals' first three bytes. So each position's three
//! bytes are hashed and tested against a bitmap of 8 KB, which stays in the first-level cache,
//! and only a position that passes is compared with the literals that start so. A one-byte
//! literal is a `memchr` for it, which stops at its first occurrence.

/// The literals, by their index in the table, arranged to be found in one pass.
pub(super) struct LiteralSet {
    count: usize,
    /// One-byte literals and their indexes.
    singles: Vec<(u8, usize)>,
    /// Two-byte literals (as read little-endian) and their indexes.
    pairs: Vec<(u16, usize)>,
    /// A bit per hash of three bytes that start a literal: a longer literal's first three, a
    /// two-byte literal's two and any third.
    head_bits: Box<[u64; WORDS]>,
    /// Open-addressed by the hash of the first three bytes: the three bytes and the range of
    /// `by_head` listing the literals that start with them.
    heads: Vec<Option<(u32, u32, u32)>>,
    /// Indexes of the literals of three bytes or more, grouped by their first three bytes.
    by_head: Vec<usize>,
    literals: Vec<Box<[u8]>>,
}

/// 65,536 bits.
const WORDS: usize = 1024;

fn hash16(head: u32) -> usize {
    (head.wrapping_mul(0x9E37_79B1) >> 16) as usize
}

fn set(bits: &mut [u64; WORDS], at: usize) {
    bits[at / 64] |= 1 << (at % 64);
}

fn get(bits: &[u64; WORDS], at: usize) -> bool {
    bits[at / 64] & (1 << (at % 64)) != 0
}

impl LiteralSet {
    /// The set of `literals`; the empty literal, which every text holds, is found in each.
    pub(super) fn new(literals: &[&str]) -> LiteralSet {
        let mut set_ = LiteralSet {
            count: literals.len(),
            singles: Vec::new(),
            pairs: Vec::new(),
            head_bits: Box::new([0; WORDS]),
            heads: Vec::new(),
            by_head: Vec::new(),
            literals: literals.iter().map(|l| l.as_bytes().into()).collect(),
        };
        let mut longer: Vec<(u32, usize)> = Vec::new();
        for (i, l) in literals.iter().map(|l| l.as_bytes()).enumerate() {
            match *l {
                [] => {}
                [b] => set_.singles.push((b, i)),
                [a, b] => {
                    let key = u16::from_le_bytes([a, b]);
                    set_.pairs.push((key, i));
                    for c in 0..=255u8 {
                        let head = u32::from_le_bytes([a, b, c, 0]);
                        set(&mut set_.head_bits, hash16(head));
                    }
                }
                [a, b, c, ..] => {
                    let head = u32::from_le_bytes([a, b, c, 0]);
                    longer.push((head, i));
                    set(&mut set_.head_bits, hash16(head));
                }
            }
        }
        longer.sort_unstable();
        let slots = (2 * longer.len()).next_power_of_two().max(2);
        set_.heads = vec![None; slots];
        let mut start = 0;
        while start < longer.len() {
            let head = longer[start].0;
            let end = start
                + longer[start..]
                    .iter()
                    .take_while(|(h, _)| *h == head)
                    .count();
            let mut slot = hash16(head) & (slots - 1);
            while set_.heads[slot].is_some() {
                slot = (slot + 1) & (slots - 1);
            }
            set_.heads[slot] = Some((head, start as u32, end as u32));
            start = end;
        }
        set_.by_head = longer.into_iter().map(|(_, i)| i).collect();
        set_
    }

    /// Which literals `text` holds, by index.
    pub(super) fn found_in(&self, text: &[u8]) -> Vec<bool> {
        let mut found = vec![false; self.count];
        for (i, l) in self.literals.iter().enumerate() {
            if l.is_empty() {
                found[i] = true;
            }
        }
        for &(b, i) in &self.singles {
            found[i] = memchr::memchr(b, text).is_some();
        }
        let n = text.len();
        let head_bits = &*self.head_bits;
        // Positions with four bytes from them read a word of the text; the last three read
        // a copy padded with zeros (no literal holds a NUL byte where padding would be, and a
        // literal longer than what is left fails its comparison with the text).
        let whole = n.saturating_sub(3);
        for at in 0..whole {
            let word = u32::from_le_bytes(text[at..at + 4].try_into().unwrap_or_default());
            if get(head_bits, hash16(word & 0x00FF_FFFF)) {
                self.test(text, at, word, &mut found);
            }
        }
        let mut tail = [0u8; 6];
        tail[..n - whole].copy_from_slice(&text[whole..]);
        for at in whole..n {
            let k = at - whole;
            let word = u32::from_le_bytes([tail[k], tail[k + 1], tail[k + 2], tail[k + 3]]);
            self.test(text, at, word, &mut found);
        }
        found
    }

    /// Marks the literals of two bytes or more that start at `at`, whose first four bytes
    /// (zero past the end) are `word`.
    #[cold]
    #[inline(never)]
    fn test(&self, text: &[u8], at: usize, word: u32, found: &mut [bool]) {
        let pair = (word & 0xFFFF) as u16;
        for &(key, i) in &self.pairs {
            if key == pair && text.len() >= at + 2 {
                found[i] = true;
            }
        }
        self.test_head(text, at, word, found);
    }

    /// The literals of three bytes or more starting with the first three bytes of `word`,
    /// compared with the text at `at` (the fourth byte first: most fail there).
    fn test_head(&self, text: &[u8], at: usize, word: u32, found: &mut [bool]) {
        let head = word & 0x00FF_FFFF;
        let fourth = (word >> 24) as u8;
        let slots = self.heads.len();
        let mut slot = hash16(head) & (slots - 1);
        while let Some((h, start, end)) = self.heads[slot] {
            if h == head {
                for &i in &self.by_head[start as usize..end as usize] {
                    let literal = &self.literals[i];
                    if !found[i]
                        && literal.get(3).is_none_or(|&b| b == fourth)
                        && text[at..].starts_with(literal)
                    {
                        found[i] = true;
                    }
                }
                return;
            }
            slot = (slot + 1) & (slots - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aho_corasick::AhoCorasick;
    use proptest::prelude::*;

    /// What an Aho-Corasick search for every occurrence finds: the reference.
    fn reference(literals: &[&str], text: &[u8]) -> Vec<bool> {
        let mut found = vec![false; literals.len()];
        let ac = AhoCorasick::new(literals).unwrap();
        for m in ac.find_overlapping_iter(text) {
            found[m.pattern().as_usize()] = true;
        }
        for (i, l) in literals.iter().enumerate() {
            found[i] |= l.is_empty();
        }
        found
    }

    #[test]
    fn finds_literals_of_every_length_anywhere_including_the_ends() {
        let lits = ["!", "rm", "rmtree", "rmdir", "ab", "abc", "abcd", "xyz"];
        let set = LiteralSet::new(&lits);
        for text in [
            "",
            "!",
            "r",
            "rm",
            "xrm",
            "abc",
            "ab",
            "xyz",
            "rmtre",
            "rmtree",
            "shutil.rmtree(p)",
            "a b c",
            "xxabcd",
            "rmdi",
            "!rmdir",
        ] {
            assert_eq!(
                set.found_in(text.as_bytes()),
                reference(&lits, text.as_bytes()),
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_scanners_table_agrees_with_the_reference_on_a_real_file() {
        let all = &super::super::pattern::table_literals();
        let set = LiteralSet::new(all);
        let text = include_str!("script.rs").as_bytes();
        let found = set.found_in(text);
        assert_eq!(found, reference(all, text));
        assert!(found.iter().filter(|f| **f).count() > 20);
    }

    proptest! {
        #[test]
        fn agrees_with_an_overlapping_aho_corasick_search(
            lits in proptest::collection::vec("[abc.]{0,5}", 1..12),
            text in "[abc.x]{0,40}",
        ) {
            let mut lits: Vec<&str> = lits.iter().map(String::as_str).collect();
            lits.sort_unstable();
            lits.dedup();
            let set = LiteralSet::new(&lits);
            prop_assert_eq!(set.found_in(text.as_bytes()), reference(&lits, text.as_bytes()));
        }
    }
}
