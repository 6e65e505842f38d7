//! Cheap checks run before any text reaches brush-parser. The parser recurses once per nesting
//! level (`$(`, `(`, `{`, `if`/`while`/`for`/`case`…) and overflows a thread stack long before
//! the size bound is reached, and it panics on some inputs; both are rejected here.

use super::{MAX_COMMAND_BYTES, MAX_NESTING};
use std::borrow::Cow;

/// Why a text is not handed to the parser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Rejection {
    /// Over a size or nesting bound.
    TooComplex(String),
    /// Input that is invalid for the shell and would make the parser panic.
    Invalid(String),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Frame {
    DoubleQuote,
    Paren,
    /// `((` or `$((`: `<<` is a shift there, not a here-document.
    Arith,
    Brace,
    /// `${`: a parameter expansion, where `#` is an operator (`${#x}`, `${x#p}`), not a comment.
    Param,
    Backtick,
}

/// Checks size and nesting of one script text; returns the text to hand to the parser, which
/// differs from the input only in blanks brush-parser mishandles (see `Scan::heredoc_blanks`).
pub(super) fn check(text: &str) -> Result<Cow<'_, str>, Rejection> {
    size_bound(text)?;
    finish(text, &scan(text, false))
}

/// A here-document body taken out of a text before the parse: a body whose delimiter is quoted
/// is read raw, never parsed, and brush-parser's tokenizer reads it a character at a time (a
/// 100 KB body was most of a call's time). The parser is handed a stand-in line in its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Cut {
    /// The line that stands in for the body, with its `\n`: what the parser gives as the
    /// here-document's body when it reads the text as this check did.
    pub stand_in: String,
    /// Where the body is in the text, with its last `\n`: what the parser gives for the
    /// whole text. A range, not a copy: the body is most of a long text.
    pub body: std::ops::Range<usize>,
}

/// `check`, with the body of the text's first top-level here-document whose delimiter is
/// quoted whole (`<<'EOF'`, `<<"EOF"`) taken out (`Cut`). The bounds are those of the text the
/// parser is handed; where that text is refused, or has no such body, the whole text is
/// checked as `check` does. The caller confirms that the parser read the stand-in as that
/// here-document's body, and parses the whole text otherwise.
pub(super) fn check_cut(text: &str) -> Result<(Cow<'_, str>, Option<Cut>), Rejection> {
    size_bound(text)?;
    let scan = scan(text, true);
    let Some((start, end)) = scan.body else {
        // No body was stepped over: the scan is the one `check` makes.
        return finish(text, &scan).map(|t| (t, None));
    };
    if !scan.heredoc_blanks.is_empty() {
        return check(text).map(|t| (t, None));
    }
    let Some(stand_in) = stand_in_for(text) else {
        return check(text).map(|t| (t, None));
    };
    let mut cut = String::with_capacity(text.len() - (end - start) + stand_in.len());
    cut.push_str(&text[..start]);
    cut.push_str(&stand_in);
    cut.push_str(&text[end..]);
    if finish(&cut, &scan).is_err() {
        return check(text).map(|t| (t, None));
    }
    Ok((
        Cow::Owned(cut),
        Some(Cut {
            stand_in,
            body: start..end,
        }),
    ))
}

fn size_bound(text: &str) -> Result<(), Rejection> {
    if text.len() > MAX_COMMAND_BYTES {
        return Err(Rejection::TooComplex(format!(
            "command is {} bytes, over the {MAX_COMMAND_BYTES}-byte bound",
            text.len()
        )));
    }
    Ok(())
}

/// The bounds of `scan`, the scan of `text`.
fn finish<'a>(text: &'a str, scan: &Scan) -> Result<Cow<'a, str>, Rejection> {
    if scan.depth > MAX_NESTING {
        return Err(Rejection::TooComplex(format!(
            "nesting depth {} is over the bound of {MAX_NESTING}",
            scan.depth
        )));
    }
    let text = if scan.heredoc_blanks.is_empty() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(squeeze(text, &scan.heredoc_blanks))
    };
    // brush-parser backtracks over every way of reading nested `(` it cannot close (subshell
    // or arithmetic), which doubles its time with each one: 27 of them take seconds. Such a
    // text is no valid command, so it is refused as unparseable before the parse.
    if scan.unclosed_parens > MAX_UNCLOSED_PARENS {
        return Err(Rejection::Invalid(format!(
            "{} unclosed `(`",
            scan.unclosed_parens
        )));
    }
    if scan.bad_heredoc {
        return Err(Rejection::Invalid(
            "here-document delimiter missing or not a plain word".into(),
        ));
    }
    if has_oversized_io_number(&text) {
        return Err(Rejection::Invalid(
            "file descriptor number out of range in a redirection".into(),
        ));
    }
    Ok(text)
}

/// A line found nowhere in `text`, with its `\n`: the stand-in prefix with a number past every
/// one the text puts after that prefix, found in one pass whatever the text holds (trying
/// numbers in turn, each a search of the text, is quadratic in a text made of the prefix).
/// `None` when the text's numbers leave none.
fn stand_in_for(text: &str) -> Option<String> {
    const PREFIX: &str = "PALISADE_HEREDOC_BODY_";
    let mut next = 0u64;
    for (at, _) in text.match_indices(PREFIX) {
        let after = &text[at + PREFIX.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            let n = after[..digits].parse::<u64>().ok()?;
            next = next.max(n.checked_add(1)?);
        }
    }
    let line = format!("{PREFIX}{next}");
    (!text.contains(&line)).then(|| line + "\n")
}

/// Where the body that starts at `start` ends: the start of its first line that is `tag`
/// whole (the line that closes it, as the shell and brush-parser read it); `None` when no
/// line closes it.
fn body_end(text: &str, start: usize, tag: &str) -> Option<usize> {
    let mut at = start;
    loop {
        let rest = &text[at..];
        let line_len = rest.find('\n');
        if rest[..line_len.unwrap_or(rest.len())] == *tag {
            return Some(at);
        }
        at += line_len? + 1;
    }
}

/// The delimiter word of a here-document when it is quoted whole and plain (`'EOF'`,
/// `"END"`): its body is then taken as written.
fn quoted_tag(rest: &str) -> Option<&str> {
    let bytes = rest.as_bytes();
    let quote = *bytes.first().filter(|&&b| b == b'\'' || b == b'"')?;
    let len = bytes[1..].iter().take_while(|&&b| plain(b)).count();
    let whole = len > 0 && bytes.get(len + 1) == Some(&quote) && ends_word(bytes.get(len + 2));
    whole.then(|| &rest[1..=len])
}

/// More `(` left open than this is refused unparsed (see `check`).
pub(super) const MAX_UNCLOSED_PARENS: usize = 8;

/// What one pass over a text found.
struct Scan {
    depth: usize,
    /// Byte ranges of two or more blanks after an unquoted `<<`/`<<-`: inside `$(…)`,
    /// brush-parser then records an empty delimiter and may loop forever. One blank means
    /// the same to the shell.
    heredoc_blanks: Vec<(usize, usize)>,
    /// A here-document delimiter that is not a plain word (see `plain_delimiter`).
    bad_heredoc: bool,
    /// `(` left open at the end of the text (an open `((` counts twice).
    unclosed_parens: usize,
    /// The here-document body stepped over (`check_cut`), as a byte range.
    body: Option<(usize, usize)>,
}

/// The text with each range replaced by one space.
fn squeeze(text: &str, ranges: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for &(start, end) in ranges {
        out.push_str(&text[at..start]);
        out.push(' ');
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// Deepest nesting of quotes-aware `(`, `{`, `$(`, `${`, backticks and compound-command
/// keywords. Over-counts rather than under-counts where the syntax is ambiguous (a `)` only
/// closes a `(`, keywords are counted wherever they stand as a whole unquoted word). With
/// `cut`, steps over the body of the first here-document that `quoted_tag` takes, when it is
/// the first here-document of its line at the top level (its body comes first).
fn scan(text: &str, cut: bool) -> Scan {
    let bytes = text.as_bytes();
    let mut heredoc_blanks = Vec::new();
    let mut bad_heredoc = false;
    // Open `((` frames count twice: each opens two levels in the parser.
    let mut arith = 0usize;
    let mut stack: Vec<Frame> = Vec::new();
    let mut keywords: usize = 0;
    let mut max = 0usize;
    // The first here-document of the line at the top level, and its tag when `quoted_tag`
    // takes it; its body starts after the line.
    let mut first_on_line: Option<Option<&str>> = None;
    let mut body = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let quoted = stack.last() == Some(&Frame::DoubleQuote);
        match b {
            b'\\' => {
                i += 2;
                continue;
            }
            b'\'' if !quoted => {
                // `$'…'` honours backslash escapes; plain `'…'` does not.
                let ansi = i > 0 && bytes[i - 1] == b'$';
                i += 1;
                while i < bytes.len() && bytes[i] != b'\'' {
                    if ansi && bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'"' => {
                if quoted {
                    stack.pop();
                } else {
                    stack.push(Frame::DoubleQuote);
                }
            }
            b'`' => {
                if stack.last() == Some(&Frame::Backtick) {
                    stack.pop();
                } else {
                    stack.push(Frame::Backtick);
                }
            }
            b'<' if bytes.get(i + 1) == Some(&b'<') && bytes.get(i + 2) == Some(&b'<') => {
                // `<<<`: a here-string, not a here-document.
                i += 3;
                continue;
            }
            b'$' if bytes.get(i + 1) == Some(&b'(') && bytes.get(i + 2) == Some(&b'(') => {
                stack.push(Frame::Arith);
                arith += 1;
                i += 2;
            }
            b'(' if !quoted && bytes.get(i + 1) == Some(&b'(') => {
                stack.push(Frame::Arith);
                arith += 1;
                i += 1;
            }
            b')' if stack.last() == Some(&Frame::Arith) && bytes.get(i + 1) == Some(&b')') => {
                stack.pop();
                arith -= 1;
                i += 1;
            }
            b'$' if matches!(bytes.get(i + 1), Some(b'(' | b'{')) => {
                stack.push(if bytes[i + 1] == b'(' {
                    Frame::Paren
                } else {
                    Frame::Param
                });
                i += 1;
            }
            b'<' if !quoted
                && stack.last() != Some(&Frame::Arith)
                && bytes.get(i + 1) == Some(&b'<')
                && bytes.get(i + 2) != Some(&b'<') =>
            {
                let mut j = i + 2;
                if bytes.get(j) == Some(&b'-') {
                    j += 1;
                }
                let start = j;
                while matches!(bytes.get(j), Some(b' ' | b'\t')) {
                    j += 1;
                }
                if j - start >= 2 {
                    heredoc_blanks.push((start, j));
                }
                if !plain_delimiter(&bytes[j..]) {
                    bad_heredoc = true;
                }
                if cut && stack.is_empty() && first_on_line.is_none() {
                    let dash = bytes.get(i + 2) == Some(&b'-');
                    first_on_line = Some(quoted_tag(&text[j..]).filter(|_| !dash));
                }
                i = j;
                continue;
            }
            b'\n' if stack.is_empty() && first_on_line.is_some() => {
                if let Some(Some(tag)) = first_on_line.take()
                    && body.is_none()
                    && let Some(end) = body_end(text, i + 1, tag)
                    && end > i + 1
                {
                    body = Some((i + 1, end));
                    i = end;
                    continue;
                }
            }
            b'(' if !quoted => stack.push(Frame::Paren),
            b'{' if !quoted => stack.push(Frame::Brace),
            b')' if stack.last() == Some(&Frame::Paren) => {
                stack.pop();
            }
            b'}' if matches!(stack.last(), Some(Frame::Brace | Frame::Param)) => {
                stack.pop();
            }
            b'#' if !quoted
                && !stack.contains(&Frame::Param)
                && (i == 0 || starts_word(bytes[i - 1])) =>
            {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            _ if !quoted && b.is_ascii_lowercase() && (i == 0 || is_separator(bytes[i - 1])) => {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                let end_ok = i == bytes.len() || is_separator(bytes[i]);
                if end_ok {
                    match &text[start..i] {
                        // `coproc` has no closing word, but its chains nest all the same.
                        "if" | "while" | "until" | "for" | "case" | "select" | "coproc" => {
                            keywords += 1
                        }
                        "fi" | "done" | "esac" => keywords = keywords.saturating_sub(1),
                        _ => {}
                    }
                }
                max = max.max(stack.len() + arith + keywords);
                continue;
            }
            _ => {}
        }
        max = max.max(stack.len() + arith + keywords);
        i += 1;
    }
    Scan {
        depth: max,
        heredoc_blanks,
        bad_heredoc,
        unclosed_parens: stack.iter().filter(|f| **f == Frame::Paren).count() + arith,
        body,
    }
}

#[cfg(test)]
fn nesting_depth(text: &str) -> usize {
    scan(text, false).depth
}

fn is_separator(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'{' | b'}' | b'`'
    )
}

/// True when a `#` after `b` starts a word, and so a comment: after a blank or an operator
/// character, not after `{` or `}`, which are words of their own only standing alone
/// (`:{#:` is one word, and brush-parser reads on past it).
fn starts_word(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>' | b'`'
    )
}

/// True when `rest` (what follows `<<` or `<<-` and its blanks) starts with a delimiter word
/// brush-parser handles: letters, digits and `_.-+:@%,=/`, optionally quoted whole or in part
/// with `'…'` or `"…"`, or led by `\`. brush-parser loops forever on some others (missing,
/// empty, or holding an unterminated `$(`), and bash would reject or mis-read most of them.
fn plain_delimiter(rest: &[u8]) -> bool {
    let mut k = usize::from(rest.first() == Some(&b'\\'));
    let mut content = 0;
    while let Some(&b) = rest.get(k) {
        if plain(b) {
            content += 1;
            k += 1;
        } else if b == b'\'' || b == b'"' {
            let close = rest[k + 1..].iter().position(|&c| c == b);
            let Some(len) = close else {
                return false;
            };
            let inner = &rest[k + 1..k + 1 + len];
            if !inner.iter().all(|&c| plain(c) || c == b' ') {
                return false;
            }
            content += len;
            k += len + 2;
        } else {
            break;
        }
    }
    content > 0 && ends_word(rest.get(k))
}

/// True when what follows a delimiter word (the end of the text, or this byte) ends it.
fn ends_word(next: Option<&u8>) -> bool {
    matches!(
        next,
        None | Some(b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b')' | b'<' | b'>')
    )
}

/// A byte of a plain delimiter word.
fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_.-+:@%,=/".contains(&b)
}

/// brush-parser panics converting an I/O number such as `99999999999>f` to `i32`.
fn has_oversized_io_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if matches!(bytes.get(i), Some(b'<' | b'>')) && text[start..i].parse::<i32>().is_err() {
                return true;
            }
        } else {
            i += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_text_passes() {
        for t in [
            "cargo build --release && cargo test",
            "echo $(date) ${HOME} `pwd`",
            "if true; then for f in *; do echo $f; done; fi",
            "awk '{ print $1 }' f",
            "echo 'unbalanced ( in quotes'",
            "# comment ((((",
        ] {
            assert_eq!(check(t).as_deref(), Ok(t), "{t}");
        }
    }

    #[test]
    fn deep_nesting_is_rejected_without_parsing() {
        for n in [MAX_NESTING + 1, 5_000, 100_000] {
            let t = format!("echo {}x{}", "$(".repeat(n), ")".repeat(n));
            assert!(matches!(check(&t), Err(Rejection::TooComplex(_))), "{n}");
            let t = format!("{}x", "if true; then ".repeat(n));
            assert!(matches!(check(&t), Err(Rejection::TooComplex(_))), "{n}");
        }
        let t = format!("echo {}", "((".repeat(MAX_NESTING));
        assert!(matches!(check(&t), Err(Rejection::TooComplex(_))));
        let ok = format!("echo {}x{}", "$(".repeat(10), ")".repeat(10));
        assert!(check(&ok).is_ok());
    }

    #[test]
    fn long_pipelines_are_analysed_whole_with_bounded_upstream() {
        let line = format!("curl -s u | {} | sh", vec!["tr a b"; 20_000].join(" | "));
        let a = crate::shell::analyse(&line);
        assert_eq!(a.commands.len(), 20_002);
        assert!(a.functions.is_empty());
        let upstream = a
            .findings
            .iter()
            .find_map(|f| match f {
                crate::shell::ShellFinding::InterpreterFromPipe { upstream, .. } => Some(upstream),
                _ => None,
            })
            .expect("sh reads the pipe");
        // Each program once, nearest first: the download far up the pipe is still there.
        assert_eq!(upstream, &["tr", "curl"]);
    }

    #[test]
    fn upstream_of_distinct_stages_keeps_the_nearest_64_once_each() {
        let upstream_of = |line: &str| {
            crate::shell::analyse(line)
                .findings
                .into_iter()
                .find_map(|f| match f {
                    crate::shell::ShellFinding::InterpreterFromPipe { upstream, .. } => {
                        Some(upstream)
                    }
                    _ => None,
                })
                .expect("sh reads the pipe")
        };
        let stages: Vec<String> = (0..20_000).map(|i| format!("p{i} x")).collect();
        let upstream = upstream_of(&format!("curl u | {} | sh", stages.join(" | ")));
        let nearest: Vec<String> = (0..64).map(|i| format!("p{}", 19_999 - i)).collect();
        assert_eq!(upstream, nearest);
        // A program seen again moves to the front, once.
        assert_eq!(
            upstream_of("curl u | a | b | a | a | sh"),
            ["a", "b", "curl"]
        );
        assert_eq!(upstream_of("curl u | b | a | b | sh"), ["b", "a", "curl"]);
    }

    #[test]
    fn repeated_redirections_are_kept_once_where_they_take_effect() {
        let targets = |line: &str| -> Vec<String> {
            crate::shell::analyse(line).commands[0]
                .redirects
                .iter()
                .map(|r| r.target.text.clone())
                .collect()
        };
        assert_eq!(
            targets(&format!("echo x{}", " >f >g".repeat(20_000))),
            ["f", "g"]
        );
        // The last one decides where stdout goes.
        assert_eq!(targets("echo x >f >g >f"), ["g", "f"]);
        // With a duplication, order matters: only repeats in a row go.
        assert_eq!(targets("echo x >f >f 2>&1 >g >f"), ["f", "1", "g", "f"]);
    }

    #[test]
    fn nesting_is_measured_not_counted() {
        // Many sequential groups are shallow.
        let t = "(a); ".repeat(1000);
        assert_eq!(nesting_depth(&t), 1);
        assert_eq!(nesting_depth("echo \"$(a \"$(b)\")\""), 4);
        assert_eq!(
            nesting_depth("for a in b; do x; done; for c in d; do y; done"),
            1
        );
    }

    #[test]
    fn blanks_after_heredoc_operators_are_squeezed() {
        assert_eq!(
            check("echo \"$(cat <<  EOF\nhi\nEOF\n)\" '<<  x'").as_deref(),
            Ok("echo \"$(cat << EOF\nhi\nEOF\n)\" '<<  x'")
        );
        assert_eq!(check("cat <<-\t\tEOF").as_deref(), Ok("cat <<- EOF"));
    }

    #[test]
    fn empty_heredoc_tags_are_refused() {
        for t in [
            "\"$(<<  ",
            "$(cat <<-  ",
            "$(cat << \"\" ",
            "cat <<",
            "cat << ;",
            "cat <<''",
        ] {
            assert!(matches!(check(t), Err(Rejection::Invalid(_))), "{t}");
        }
        for t in [
            "<<rm-s#$(  ",
            "python3-oflock&<<$( ((>(${",
            "cat <<$x",
            "cat <<'EOF",
        ] {
            assert!(matches!(check(t), Err(Rejection::Invalid(_))), "{t}");
        }
        for t in [
            "cat <<EOF\nx\nEOF",
            "cat <<- 'EOF'\nx\nEOF",
            "cat <<\"END TEXT\"\nx\nEND TEXT",
            "cat <<\\EOF\nx\nEOF",
            "git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"",
            "cat <<< x",
            "a<<b",
            "echo $((1 << $n)) $(( x<<2 ))",
            "(( y <<= $z ))",
            "echo '<<$(' \"<< $x\"",
        ] {
            assert_eq!(check(t).as_deref(), Ok(t), "{t}");
        }
    }

    #[test]
    fn oversized_input_and_io_numbers() {
        let big = "a".repeat(MAX_COMMAND_BYTES + 1);
        assert!(matches!(check(&big), Err(Rejection::TooComplex(_))));
        assert!(matches!(
            check("echo 99999999999>f"),
            Err(Rejection::Invalid(_))
        ));
        assert!(check("echo 2>f 12345678901 x").is_ok());
    }

    /// The cut text and body of `text`, when `check_cut` takes one.
    fn cut(text: &str) -> Option<(String, String)> {
        match check_cut(text) {
            Ok((t, Some(c))) => {
                let body = &text[c.body];
                assert_eq!(t.replace(&c.stand_in, body), text, "{t:?}");
                Some((t.into_owned(), body.to_string()))
            }
            _ => None,
        }
    }

    #[test]
    fn a_quoted_heredoc_body_at_the_top_level_is_taken_out_whole() {
        let (t, body) = cut("cat > f.py <<'EOF' | tee log\ndef f(:\n  (((( EOF\nEOF\nls").unwrap();
        assert_eq!(
            t,
            "cat > f.py <<'EOF' | tee log\nPALISADE_HEREDOC_BODY_0\nEOF\nls"
        );
        assert_eq!(body, "def f(:\n  (((( EOF\n");
        // Closed by the last line, with no newline after it; `"EOF"` is quoted too.
        let (_, body) = cut("cat <<\"END\" >f\nx\nEND").unwrap();
        assert_eq!(body, "x\n");
        // The stand-in is a line the text does not hold, found in one pass.
        let (t, _) = cut("cat <<'EOF'\nPALISADE_HEREDOC_BODY_0\nEOF").unwrap();
        assert!(t.contains("PALISADE_HEREDOC_BODY_1\n"), "{t}");
        let many = format!(
            "cat <<'EOF'\n{}PALISADE_HEREDOC_BODY_41x PALISADE_HEREDOC_BODY_\nEOF",
            "PALISADE_HEREDOC_BODY_".repeat(10_000)
        );
        assert_eq!(
            stand_in_for(&many).as_deref(),
            Some("PALISADE_HEREDOC_BODY_42\n")
        );
        assert!(cut(&many).is_some());
        // Numbers the stand-in cannot pass: the text is parsed whole.
        let full = format!("cat <<'EOF'\nPALISADE_HEREDOC_BODY_{}\nEOF", u64::MAX);
        assert_eq!(stand_in_for(&full), None);
        assert_eq!(cut(&full), None);
        // Only the body that comes first after its line: the one of the line's first operator.
        let (_, body) = cut("cat <<'A' <<B\na\nA\nb\nB").unwrap();
        assert_eq!(body, "a\n");
        // The unclosed `(` of a body read raw are no reason to refuse the text.
        assert!(check("cat <<'EOF'\n:( ( ( ( ( ( ( ( (\nEOF").is_err());
        assert!(check_cut("cat <<'EOF'\n:( ( ( ( ( ( ( ( (\nEOF").is_ok());
    }

    #[test]
    fn bodies_the_parser_reads_otherwise_stay_in_the_text() {
        for t in [
            // Expanded or tab-stripped bodies, which the walk reads through the parser.
            "cat <<EOF\nx\nEOF",
            "cat <<-'EOF'\nx\n\tEOF",
            "cat <<\\EOF\nx\nEOF",
            // The first operator of the line is not quoted: its body comes first.
            "cat <<A <<'B'\na\nA\nb\nB",
            // Not at the top level.
            "x=$(cat <<'EOF'\nbody\nEOF\n)",
            "echo \"<<'EOF'\"\nx\nEOF",
            "echo '<<'EOF'\nx\nEOF",
            // Never closed, empty, or closed only by a line that merely holds the tag.
            "cat <<'EOF'\nx\n EOF\nEOF \n",
            "cat <<'EOF'\nEOF\nls",
            // Blanks brush-parser mishandles are squeezed in the whole text instead.
            "cat <<  'EOF'\nx\nEOF",
            // A delimiter that is not plain or not quoted whole.
            "cat <<'E F'\nx\nE F",
            "cat <<'EOF'x\nx\nEOFx",
        ] {
            assert_eq!(cut(t), None, "{t:?}");
        }
        // The body starts after the line's end, not after a newline inside quotes on it.
        let (_, body) = cut("cat <<'EOF' \"a\nb\"\nx\nEOF").unwrap();
        assert_eq!(body, "x\n");
    }
}

#[cfg(test)]
mod unclosed_tests {
    /// A fuzz input (timeout-394a8974…): nested `(` brush-parser cannot close take it
    /// seconds; they are refused before the parse.
    #[test]
    fn many_unclosed_parens_are_refused_before_the_parse() {
        let fuzz = ":()({{)|:{:|{:|:&:& }};::|:&:&((((((((((((((((((((((((((( }};:";
        let s = super::scan(fuzz, false);
        assert!(
            s.unclosed_parens > super::MAX_UNCLOSED_PARENS,
            "{}",
            s.unclosed_parens
        );
        assert!(super::check(fuzz).is_err());
        // Nor does the tolerant re-reading close them: the line stays unparseable.
        let a = crate::shell::analyse(fuzz);
        assert!(
            a.findings
                .iter()
                .any(|f| matches!(f, crate::shell::ShellFinding::ParseError { .. })),
            "{a:?}"
        );
        assert!(super::check(&"( ".repeat(24)).is_err());
        // A fuzz input (timeout-010256e9…): `#` inside the word `:{#:` is no comment, so
        // the `(` after it are counted.
        let fuzz = ":()({{)|:{#:|{:|+:&:& }};::|:&:&(((((((A(((((((((((((((((((( }};:";
        assert!(super::check(fuzz).is_err());
        assert!(super::check("echo x {#y}; ls # (((((((((((((").is_ok());
        // A fuzz input (timeout-4b82ca9d…): inside `${…}` a `#` is an operator, not a
        // comment, so the `(` after `${(#}` are counted too.
        let fuzz = "(${HOMEA(#};:@:|:&:&(((((((A((((((((((((((((((((((((((( }};:";
        assert!(super::check(fuzz).is_err());
        assert!(super::check("${(#}&(((((((((((((((((((((((((((").is_err());
        assert!(super::check("echo ${#x} ${y#*/} # (((((((((((((").is_ok());
        for ok in [
            "echo $(( (1+2) * (3+4) ))",
            "( cd a && ( cd b && make ) )",
            "case $a in (x) echo;; esac",
            "echo '((((((((((((((('",
        ] {
            assert!(super::check(ok).is_ok(), "{ok}");
        }
    }
}
