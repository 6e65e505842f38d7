//! Backslash escapes as bash reads them, in the three places it reads them: `$'…'` words,
//! printf formats, and `echo -e` with printf's `%b` arguments. One reader, so a word and the
//! text a command prints decode `\x72\x6d` alike.

use std::iter::Peekable;
use std::str::Chars;

/// Where an escape is read: the dialects differ in octal and in a few letters.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    /// `$'…'`: `\NNN`, `\'`, `\"`, `\?`, `\cX`.
    AnsiC,
    /// A printf format: `\NNN`, `\'`, `\"`, `\?`.
    Format,
    /// `echo -e` and `%b`: octal only as `\0NNN`.
    Echo,
}

/// `s` with its escapes decoded as `dialect` reads them.
pub(super) fn unescape(s: &str, dialect: Dialect) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            escape(&mut chars, &mut out, dialect);
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads one escape, its backslash already taken, into `out`: `\n`, `\t`…, `\xHH`,
/// `\uHHHH`, `\UHHHHHHHH` and octal; an escape the dialect does not know stays as written.
pub(super) fn escape(chars: &mut Peekable<Chars>, out: &mut String, dialect: Dialect) {
    let Some(c) = chars.next() else {
        out.push('\\');
        return;
    };
    let code = match c {
        'n' => Some('\n' as u32),
        't' => Some('\t' as u32),
        'r' => Some('\r' as u32),
        'v' => Some(0x0b),
        'f' => Some(0x0c),
        'b' => Some(0x08),
        '\\' => Some('\\' as u32),
        'a' => Some(0x07),
        'e' | 'E' => Some(0x1b),
        '\'' | '"' | '?' if dialect != Dialect::Echo => Some(c as u32),
        'c' if dialect == Dialect::AnsiC => chars.next().map(|x| u32::from(x) & 0x1f),
        // `\0NNN`: up to three digits after the zero.
        '0' if dialect == Dialect::Echo => Some(number(chars, 8, 3).map_or(0, |(n, _)| n & 0xff)),
        // `\NNN`: the first digit and up to two more, one byte (`\101` is `A`).
        '0'..='7' if dialect != Dialect::Echo => {
            let first = c.to_digit(8).unwrap_or(0);
            Some(match number(chars, 8, 2) {
                Some((rest, read)) => (first * 8u32.pow(read as u32) + rest) & 0xff,
                None => first,
            })
        }
        'x' => number(chars, 16, 2).map(|(n, _)| n),
        'u' => number(chars, 16, 4).map(|(n, _)| n),
        'U' => number(chars, 16, 8).map(|(n, _)| n),
        _ => None,
    };
    match code.and_then(char::from_u32) {
        Some(ch) => out.push(ch),
        None => {
            out.push('\\');
            out.push(c);
        }
    }
}

/// Up to `most` digits of `radix`, and how many were read; none when no digit follows.
fn number(chars: &mut Peekable<Chars>, radix: u32, most: usize) -> Option<(u32, usize)> {
    let mut n = 0u32;
    let mut read = 0;
    while read < most {
        match chars.peek().and_then(|d| d.to_digit(radix)) {
            Some(d) => {
                n = n * radix + d;
                chars.next();
                read += 1;
            }
            None => break,
        }
    }
    (read > 0).then_some((n, read))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dialect_reads_what_bash_reads() {
        for d in [Dialect::AnsiC, Dialect::Format, Dialect::Echo] {
            assert_eq!(unescape(r"\x72\x6d", d), "rm");
            assert_eq!(unescape(r"\u0072m", d), "rm");
            assert_eq!(unescape(r"a\tb\n", d), "a\tb\n");
            assert_eq!(unescape(r"\q", d), r"\q");
            assert_eq!(unescape(r"\x", d), r"\x");
            assert_eq!(unescape("\\", d), "\\");
        }
        assert_eq!(unescape(r"\162\155", Dialect::AnsiC), "rm");
        assert_eq!(unescape(r"\162\155", Dialect::Format), "rm");
        assert_eq!(unescape(r"\0162\0155", Dialect::Echo), "rm");
        // `echo -e '\162'` prints it as written: echo's octal starts with a zero.
        assert_eq!(unescape(r"\162", Dialect::Echo), r"\162");
        assert_eq!(unescape(r"it\'s", Dialect::AnsiC), "it's");
        assert_eq!(unescape(r"it\'s", Dialect::Echo), r"it\'s");
        assert_eq!(unescape(r"\cA", Dialect::AnsiC), "\u{1}");
        // Octal is one byte.
        assert_eq!(unescape(r"\777", Dialect::AnsiC), "\u{ff}");
    }
}
