//! Cheap checks run before any text reaches brush-parser. The parser recurses once per nesting
//! level (`$(`, `(`, `{`, `if`/`while`/`for`/`case`…) and overflows a thread stack long before
//! the size bound is reached, and it panics on some inputs; both are rejected here.

use super::{MAX_COMMAND_BYTES, MAX_NESTING};

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
    Brace,
    Backtick,
}

/// Checks size and nesting of one script text.
pub(super) fn check(text: &str) -> Result<(), Rejection> {
    if text.len() > MAX_COMMAND_BYTES {
        return Err(Rejection::TooComplex(format!(
            "command is {} bytes, over the {MAX_COMMAND_BYTES}-byte bound",
            text.len()
        )));
    }
    let depth = nesting_depth(text);
    if depth > MAX_NESTING {
        return Err(Rejection::TooComplex(format!(
            "nesting depth {depth} is over the bound of {MAX_NESTING}"
        )));
    }
    if has_oversized_io_number(text) {
        return Err(Rejection::Invalid(
            "file descriptor number out of range in a redirection".into(),
        ));
    }
    Ok(())
}

/// Deepest nesting of quotes-aware `(`, `{`, `$(`, `${`, backticks and compound-command
/// keywords. Over-counts rather than under-counts where the syntax is ambiguous (a `)` only
/// closes a `(`, keywords are counted wherever they stand as a whole unquoted word).
fn nesting_depth(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut keywords: usize = 0;
    let mut max = 0usize;
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
            b'$' if matches!(bytes.get(i + 1), Some(b'(' | b'{')) => {
                stack.push(if bytes[i + 1] == b'(' {
                    Frame::Paren
                } else {
                    Frame::Brace
                });
                i += 1;
            }
            b'(' if !quoted => stack.push(Frame::Paren),
            b'{' if !quoted => stack.push(Frame::Brace),
            b')' if stack.last() == Some(&Frame::Paren) => {
                stack.pop();
            }
            b'}' if stack.last() == Some(&Frame::Brace) => {
                stack.pop();
            }
            b'#' if !quoted && (i == 0 || is_separator(bytes[i - 1])) => {
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
                max = max.max(stack.len() + keywords);
                continue;
            }
            _ => {}
        }
        max = max.max(stack.len() + keywords);
        i += 1;
    }
    max
}

fn is_separator(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'{' | b'}' | b'`'
    )
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
            assert_eq!(check(t), Ok(()), "{t}");
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
        assert_eq!(check(&ok), Ok(()));
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
    fn oversized_input_and_io_numbers() {
        let big = "a".repeat(MAX_COMMAND_BYTES + 1);
        assert!(matches!(check(&big), Err(Rejection::TooComplex(_))));
        assert!(matches!(
            check("echo 99999999999>f"),
            Err(Rejection::Invalid(_))
        ));
        assert_eq!(check("echo 2>f 12345678901 x"), Ok(()));
    }
}
