//! What `echo`, `printf` and `cat <<EOF` print when their words are literal: the text a
//! pipeline feeds the next command, a redirect writes, or an interpreter reads as its program.

use super::escapes::{Dialect, escape, unescape};
use super::{Command, Word};

/// Output longer than this is not computed: a reused `printf` format can multiply its input.
const MAX_PRINTED_BYTES: usize = 1024 * 1024;

/// The text a command prints when it is known statically: `echo`, `printf`, `cat <<EOF`.
pub fn printed_text(cmd: &Command) -> Option<String> {
    if cmd.args.iter().any(|a| a.dynamic) {
        return None;
    }
    match cmd.program.as_str() {
        "echo" => Some(echo_text(&cmd.args)),
        "printf" => printf_text(&cmd.args),
        "cat" => {
            let ops: Vec<&Word> = cmd.operands();
            if (ops.is_empty() || ops.iter().all(|w| w.text == "-")) && cmd.args.len() == ops.len()
            {
                cmd.stdin_text.clone()
            } else {
                None
            }
        }
        _ => None,
    }
}

/// What a word that is one substitution decoding a literal prints (`$(echo
/// LnNzaC9pZF9yc2E= | base64 -d)`): the path a reader, a copy or a delete is given hidden so.
/// `None` for any other word. The word stays unknown to the shell analysis (a program hidden
/// so is still one only known when it runs); only path readers look through it.
pub fn decoded_path(word: &str) -> Option<String> {
    if !word.contains("base64") {
        return None;
    }
    let inner = word
        .strip_prefix("$(")
        .and_then(|w| w.strip_suffix(')'))
        .or_else(|| word.strip_prefix('`').and_then(|w| w.strip_suffix('`')))?;
    let analysis = super::analyse(inner);
    let [printer, decoder] = analysis.commands.as_slice() else {
        return None;
    };
    let decodes = decoder.program == "base64"
        && decoder.stdin_from == Some(0)
        && !decoder.args.is_empty()
        && decoder
            .args
            .iter()
            .all(|a| matches!(a.text.as_str(), "-d" | "-D" | "--decode"));
    if !decodes || printer.stdin_from.is_some() {
        return None;
    }
    let bytes = super::unwrap::base64_bytes(&printed_text(printer)?)?;
    let text = String::from_utf8(bytes).ok()?;
    Some(text.trim_end_matches('\n').to_string())
}

/// `echo [-n] [-e] words…`: words joined by spaces, newline unless `-n`.
fn echo_text(args: &[Word]) -> String {
    let mut newline = true;
    let mut escapes = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if t.len() > 1 && t.starts_with('-') && t[1..].chars().all(|c| "neE".contains(c)) {
            newline &= !t.contains('n');
            escapes |= t.contains('e');
            i += 1;
        } else {
            break;
        }
    }
    let joined = args[i..]
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = if escapes {
        unescape(&joined, Dialect::Echo)
    } else {
        joined
    };
    if newline {
        out.push('\n');
    }
    out
}

/// `printf FORMAT [ARGS…]`: escapes interpreted; `%s`/`%b`/`%d` take the arguments in order,
/// the format is reused while arguments remain (as the shell does).
fn printf_text(args: &[Word]) -> Option<String> {
    let mut rest = args;
    let dashes = rest.first().is_some_and(|a| a.text == "--");
    if dashes {
        rest = &rest[1..];
    }
    let (fmt, mut params) = rest.split_first()?;
    // After `--` a format may start with `-` (`printf -- '--- a/x\n'`, a diff's header).
    if fmt.text.starts_with('-') && !dashes {
        return None; // `printf -v var`: assigns, prints nothing.
    }
    let mut out = String::new();
    // Bounded: each round consumes at least one argument or stops.
    for _ in 0..=args.len() {
        let mut used = false;
        let mut chars = fmt.text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '%' => match chars.next() {
                    Some('%') => out.push('%'),
                    Some(conv) => {
                        // Skip flags/width/precision up to the conversion letter.
                        let mut conv = conv;
                        while !conv.is_ascii_alphabetic() {
                            match chars.next() {
                                Some(n) => conv = n,
                                None => break,
                            }
                        }
                        let arg = params.first().map(|w| w.text.clone()).unwrap_or_default();
                        if !params.is_empty() {
                            params = &params[1..];
                            used = true;
                        }
                        if conv == 'b' {
                            out.push_str(&unescape(&arg, Dialect::Echo));
                        } else {
                            out.push_str(&arg);
                        }
                    }
                    None => out.push('%'),
                },
                '\\' => escape(&mut chars, &mut out, Dialect::Format),
                other => out.push(other),
            }
        }
        if !used || params.is_empty() {
            break;
        }
        if out.len() > MAX_PRINTED_BYTES {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_reuses_format_and_stays_bounded() {
        let args: Vec<Word> = ["%s\\n", "a", "b", "c"]
            .iter()
            .map(|s| Word::literal(*s))
            .collect();
        assert_eq!(printf_text(&args).as_deref(), Some("a\nb\nc\n"));
        let args: Vec<Word> = ["no conversions\\n", "x"]
            .iter()
            .map(|s| Word::literal(*s))
            .collect();
        assert_eq!(printf_text(&args).as_deref(), Some("no conversions\n"));
        assert_eq!(
            echo_text(&[Word::literal("-e"), Word::literal("a\\nb")]),
            "a\nb\n"
        );
        assert_eq!(echo_text(&[Word::literal("-n"), Word::literal("a")]), "a");
        assert_eq!(
            echo_text(&[Word::literal("-ne"), Word::literal("\\0101\\t")]),
            "A\t"
        );
        // Hexadecimal, Unicode and printf's own octal escapes, in the format and in `%b`.
        let args: Vec<Word> = ["\\x72\\x6d \\101\\u00e9%b", "\\x2d\\0162"]
            .iter()
            .map(|s| Word::literal(*s))
            .collect();
        assert_eq!(printf_text(&args).as_deref(), Some("rm A\u{e9}-r"));
        assert_eq!(
            echo_text(&[Word::literal("-e"), Word::literal("\\x72m\\q")]),
            "rm\\q\n"
        );
        // A format reused for each of many arguments is not expanded past the bound.
        let mut args = vec![Word::literal("x".repeat(4096) + "%s")];
        args.extend((0..1024).map(|_| Word::literal("y")));
        assert_eq!(printf_text(&args), None);
    }

    #[test]
    fn a_format_after_dashes_may_start_with_a_dash() {
        let w = |xs: &[&str]| xs.iter().map(|s| Word::literal(*s)).collect::<Vec<_>>();
        assert_eq!(
            printf_text(&w(&["--", "--- a/x\\n"])).as_deref(),
            Some("--- a/x\n")
        );
        // Without `--` it is an option (`printf -v var`): nothing printed.
        assert_eq!(printf_text(&w(&["-v", "x", "y"])), None);
    }
}
