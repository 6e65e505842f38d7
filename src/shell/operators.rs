//! What a parameter expansion's operator makes of a value the line gave: `${x%/*}`,
//! `${x#pre}`, `${x/a/b}`, `${x:1:2}`, `${x^^}`. Each answers `None` where bash's answer
//! would take more than this knows (a bracket or extended pattern, an arithmetic offset), so
//! the word stays not known, never wrongly known.

use brush_parser::word::SubstringMatchKind;

/// Values longer than this are not worked on.
const MAX_VALUE_BYTES: usize = 4096;
/// Most character comparisons one operator may take, as estimated before it starts: a
/// pattern with `*` may be tried at every start and end of the value.
const MAX_WORK: usize = 1 << 22;

/// Where `pattern` may end a match begun at `start`: at one end when it has no `*` (each
/// other character matches one), else at any; `None` when trying them all is over budget.
fn ends(pattern: &[char], len: usize, starts: usize) -> Option<Option<usize>> {
    if !pattern.contains(&'*') {
        return Some(Some(pattern.len()));
    }
    let work = starts
        .saturating_mul(len + 1)
        .saturating_mul(len + 1)
        .saturating_mul(pattern.len().max(1));
    (work <= MAX_WORK).then_some(None)
}

/// A pattern of `*`, `?` and literal characters, when `raw` is one: quotes, escapes,
/// brackets, expansions and extended patterns are not read here.
pub(super) fn simple_pattern(raw: &str) -> Option<Vec<char>> {
    let special = |c: char| matches!(c, '[' | ']' | '\\' | '\'' | '"' | '$' | '`' | '(' | ')');
    (!raw.contains(special)).then(|| raw.chars().collect())
}

/// Whether `text` matches the whole of `pattern` (`*` any run, `?` any one character).
fn matches(pattern: &[char], text: &[char]) -> bool {
    let (mut p, mut t) = (0, 0);
    // Where the last `*` was, and the text position it has taken up to: on a mismatch the
    // star takes one more character (the classic linear-space backtracking).
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == '?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

fn chars_of(value: &str) -> Option<Vec<char>> {
    (value.len() <= MAX_VALUE_BYTES).then(|| value.chars().collect())
}

/// `${x#p}` (`largest`: `${x##p}`): `value` without the shortest (longest) start `p` matches.
pub(super) fn remove_prefix(value: &str, pattern: &[char], largest: bool) -> Option<String> {
    let v = chars_of(value)?;
    if let Some(fixed) = ends(pattern, v.len(), 1)? {
        let cut = if fixed <= v.len() && matches(pattern, &v[..fixed]) {
            fixed
        } else {
            0
        };
        return Some(v[cut..].iter().collect());
    }
    let mut ends: Box<dyn Iterator<Item = usize>> = if largest {
        Box::new((0..=v.len()).rev())
    } else {
        Box::new(0..=v.len())
    };
    let cut = ends.find(|&k| matches(pattern, &v[..k])).unwrap_or(0);
    Some(v[cut..].iter().collect())
}

/// `${x%p}` (`largest`: `${x%%p}`): `value` without the shortest (longest) end `p` matches.
pub(super) fn remove_suffix(value: &str, pattern: &[char], largest: bool) -> Option<String> {
    let v = chars_of(value)?;
    if let Some(fixed) = ends(pattern, v.len(), 1)? {
        let start = v.len().checked_sub(fixed);
        let cut = start
            .filter(|&k| matches(pattern, &v[k..]))
            .unwrap_or(v.len());
        return Some(v[..cut].iter().collect());
    }
    let mut starts: Box<dyn Iterator<Item = usize>> = if largest {
        Box::new(0..=v.len())
    } else {
        Box::new((0..=v.len()).rev())
    };
    let cut = starts
        .find(|&k| matches(pattern, &v[k..]))
        .unwrap_or(v.len());
    Some(v[..cut].iter().collect())
}

/// The longest match of `pattern` starting at `start`, as its end; `fixed`, the one length
/// a pattern without `*` matches (`ends`).
fn longest_from(pattern: &[char], fixed: Option<usize>, v: &[char], start: usize) -> Option<usize> {
    match fixed {
        Some(len) => {
            Some(start + len).filter(|&end| end <= v.len() && matches(pattern, &v[start..end]))
        }
        None => (start..=v.len())
            .rev()
            .find(|&end| matches(pattern, &v[start..end])),
    }
}

/// `${x/p/r}` and its kinds (`//` every match, `/#` at the start, `/%` at the end): each
/// match the longest, as bash takes it. An empty pattern changes nothing.
pub(super) fn replace(
    value: &str,
    pattern: &[char],
    with: &str,
    kind: &SubstringMatchKind,
) -> Option<String> {
    let v = chars_of(value)?;
    if pattern.is_empty() {
        return Some(value.to_string());
    }
    let starts = match kind {
        SubstringMatchKind::Prefix | SubstringMatchKind::Suffix => 1,
        _ => v.len() + 1,
    };
    let fixed = ends(pattern, v.len(), starts)?;
    let splice = |start: usize, end: usize| {
        let mut out: String = v[..start].iter().collect();
        out.push_str(with);
        out.extend(&v[end..]);
        out
    };
    Some(match kind {
        SubstringMatchKind::Prefix => match longest_from(pattern, fixed, &v, 0) {
            Some(end) => splice(0, end),
            None => value.to_string(),
        },
        SubstringMatchKind::Suffix => {
            match (0..=v.len()).find(|&start| matches(pattern, &v[start..])) {
                Some(start) => splice(start, v.len()),
                None => value.to_string(),
            }
        }
        SubstringMatchKind::FirstOccurrence | SubstringMatchKind::Anywhere => {
            let every = matches!(kind, SubstringMatchKind::Anywhere);
            let mut out = String::new();
            let mut at = 0;
            let mut replaced = false;
            while at < v.len() {
                // An empty match replaces nothing and moves on, as bash does.
                match longest_from(pattern, fixed, &v, at).filter(|&end| end > at) {
                    Some(end) if every || !replaced => {
                        out.push_str(with);
                        at = end;
                        replaced = true;
                    }
                    _ => {
                        out.push(v[at]);
                        at += 1;
                    }
                }
            }
            out
        }
    })
}

/// `${x:offset}` and `${x:offset:length}`, when both are integers as written. A negative
/// offset counts from the end; a negative length is an end counted from the end.
pub(super) fn substring(value: &str, offset: &str, length: Option<&str>) -> Option<String> {
    let v = chars_of(value)?;
    let n = v.len() as i64;
    let int = |t: &str| t.trim().parse::<i64>().ok();
    let mut start = int(offset)?;
    if start < 0 {
        start += n;
    }
    if start < 0 || start > n {
        return Some(String::new());
    }
    let end = match length {
        None => n,
        Some(t) => {
            let len = int(t)?;
            if len < 0 {
                n + len
            } else {
                start.saturating_add(len)
            }
            .min(n)
        }
    };
    if end < start {
        // bash refuses a negative length that ends before the offset: the command does not
        // run, and what it would have held is not known here.
        return None;
    }
    Some(v[start as usize..end as usize].iter().collect())
}

/// `${x^^}`, `${x,,}`, `${x^}`, `${x,}`: every character (or the first) to upper or lower
/// case.
pub(super) fn change_case(value: &str, upper: bool, all: bool) -> String {
    let change = |c: char| -> String {
        if upper {
            c.to_uppercase().collect()
        } else {
            c.to_lowercase().collect()
        }
    };
    if all {
        return value.chars().map(change).collect();
    }
    let mut chars = value.chars();
    match chars.next() {
        Some(first) => change(first) + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Vec<char> {
        simple_pattern(s).unwrap()
    }

    #[test]
    fn patterns_match_the_whole_text() {
        for (pattern, text, hit) in [
            ("*", "", true),
            ("*", "abc", true),
            ("a*c", "abbbc", true),
            ("a*c", "abcd", false),
            ("?", "", false),
            ("a?c", "abc", true),
            ("*.txt", "x.txt.bak", false),
            ("*/*", "a/b/c", true),
            ("**x", "ax", true),
            ("", "", true),
            ("", "a", false),
        ] {
            assert_eq!(
                matches(&p(pattern), &text.chars().collect::<Vec<_>>()),
                hit,
                "{pattern} {text}"
            );
        }
        for raw in ["[ab]", "a\\*", "'x'", "$y", "@(a|b)", "\"x\""] {
            assert!(simple_pattern(raw).is_none(), "{raw}");
        }
    }

    #[test]
    fn prefixes_and_suffixes_are_removed_shortest_or_longest() {
        assert_eq!(
            remove_suffix("/home/dev/x", &p("/*"), false).unwrap(),
            "/home/dev"
        );
        assert_eq!(remove_suffix("/home/dev/x", &p("/*"), true).unwrap(), "");
        assert_eq!(
            remove_prefix("/home/dev/x", &p("*/"), false).unwrap(),
            "home/dev/x"
        );
        assert_eq!(remove_prefix("/home/dev/x", &p("*/"), true).unwrap(), "x");
        assert_eq!(remove_suffix("/etcx", &p("x"), false).unwrap(), "/etc");
        assert_eq!(remove_prefix("build", &p("z"), false).unwrap(), "build");
        assert_eq!(remove_suffix("a.tar.gz", &p(".*"), false).unwrap(), "a.tar");
        assert_eq!(remove_suffix("a.tar.gz", &p(".*"), true).unwrap(), "a");
    }

    #[test]
    fn replacements_take_the_longest_match() {
        let r = |v, pat, with, kind| replace(v, &p(pat), with, &kind).unwrap();
        use SubstringMatchKind as K;
        assert_eq!(r("/usr/lib", "lib", "", K::FirstOccurrence), "/usr/");
        assert_eq!(r("a-b-c", "-", "/", K::FirstOccurrence), "a/b-c");
        assert_eq!(r("a-b-c", "-", "/", K::Anywhere), "a/b/c");
        assert_eq!(r("xhome", "x", "/", K::Prefix), "/home");
        assert_eq!(r("homex", "x", "", K::Prefix), "homex");
        assert_eq!(r("/etc.bak", ".bak", "", K::Suffix), "/etc");
        assert_eq!(r("aXbXc", "X*", "", K::FirstOccurrence), "a");
        assert_eq!(r("abc", "", "z", K::Anywhere), "abc");
        assert_eq!(r("abc", "*", "/", K::Anywhere), "/");
    }

    /// A pattern with `*` over a long value is refused before the work, not tried.
    #[test]
    fn work_past_the_budget_is_refused() {
        let long = "a".repeat(4000);
        assert!(replace(&long, &p("*b"), "", &SubstringMatchKind::Anywhere).is_none());
        assert!(remove_prefix(&long, &p("*b"), true).is_none());
        // Without `*` every match has one length: linear, so worked on.
        assert_eq!(
            replace(&long, &p("a?"), "", &SubstringMatchKind::Anywhere).unwrap(),
            ""
        );
        assert_eq!(remove_suffix(&long, &p("?a"), true).unwrap().len(), 3998);
        assert!(
            replace(
                &"a".repeat(5000),
                &p("a"),
                "",
                &SubstringMatchKind::Anywhere
            )
            .is_none()
        );
    }

    #[test]
    fn substrings_count_characters_from_either_end() {
        assert_eq!(substring("abcdef", "2", None).unwrap(), "cdef");
        assert_eq!(substring("abcdef", "1", Some("2")).unwrap(), "bc");
        assert_eq!(substring("abcdef", " -2", None).unwrap(), "ef");
        assert_eq!(substring("abcdef", "1", Some("-2")).unwrap(), "bcd");
        assert_eq!(substring("abc", "3", None).unwrap(), "");
        assert_eq!(substring("abc", "9", None).unwrap(), "");
        assert_eq!(substring("abc", "0", Some("99")).unwrap(), "abc");
        assert!(substring("abc", "i+1", None).is_none());
        assert_eq!(
            substring("abc", "1", Some("9223372036854775807")).unwrap(),
            "bc"
        );
        assert_eq!(
            substring("abc", "-9223372036854775808", Some("1")).unwrap(),
            ""
        );
        assert!(substring("abc", "1", Some("-9223372036854775808")).is_none());
        assert!(substring("abcdef", "4", Some("-3")).is_none());
    }

    #[test]
    fn case_changes_all_or_the_first() {
        assert_eq!(change_case("rm", true, true), "RM");
        assert_eq!(change_case("/ETC", false, true), "/etc");
        assert_eq!(change_case("etc", true, false), "Etc");
        assert_eq!(change_case("", true, false), "");
    }
}
