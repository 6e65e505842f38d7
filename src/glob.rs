//! Globs for tool names, URL hosts, paths and free text, compiled once at load and matched
//! without regexes or recursion.
//!
//! - `?` matches one character that is not a separator.
//! - `*` matches any run of characters that contains no separator.
//! - `**` matches anything, separators included.
//! - Every other character matches itself (case-sensitive, except hosts, which are lowercased).
//!
//! The separators depend on what is matched (`GlobKind`). For tool names they are `.`, `/` and
//! any run of two or more underscores, because MCP tools are named `mcp__<server>__<tool>`:
//! `mcp__github__*` matches `mcp__github__create_issue` but not `mcp__github__x__y` (use
//! `mcp__github__**` for every tool of a server, which is what a deny rule usually wants).

/// What a glob is matched against, which decides its separators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GlobKind {
    /// Tool names: `*` stops at `.`, `/` and at `__` (the MCP separator).
    Tool,
    /// URL hosts: `*` stops at `.`; a leading `*.` matches one or more labels (any subdomain,
    /// not the domain itself). Matched case-insensitively.
    Host,
    /// Resolved paths: `*` stops at `/`; a trailing `/**` also matches the directory itself.
    Path,
    /// Program names and arguments: no separators, `*` matches anything.
    Text,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Lit(char),
    One,
    Star,
    AnyRun,
}

/// One compiled glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    pattern: String,
    kind: GlobKind,
    tokens: Vec<Token>,
    /// The path glob ends in `/**`: the directory itself matches too.
    dir_itself: bool,
}

impl Glob {
    /// Compiles a glob. Fails on an empty pattern, which would only ever match nothing.
    pub fn new(pattern: &str, kind: GlobKind) -> Result<Glob, String> {
        if pattern.is_empty() {
            return Err("an empty glob matches nothing".into());
        }
        let text = if kind == GlobKind::Host {
            pattern.to_ascii_lowercase()
        } else {
            pattern.to_string()
        };
        let mut tokens = Vec::new();
        let mut rest = text.as_str();
        if kind == GlobKind::Host
            && let Some(after) = rest.strip_prefix("*.")
        {
            // `*.example.com`: any subdomain at any depth, the way CSP and most allow-lists read it.
            tokens.push(Token::AnyRun);
            tokens.push(Token::Lit('.'));
            rest = after;
        }
        let chars: Vec<char> = rest.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '*' if chars.get(i + 1) == Some(&'*') => {
                    while chars.get(i) == Some(&'*') {
                        i += 1;
                    }
                    tokens.push(Token::AnyRun);
                    continue;
                }
                '*' => tokens.push(Token::Star),
                '?' => tokens.push(Token::One),
                c => tokens.push(Token::Lit(c)),
            }
            i += 1;
        }
        let dir_itself = kind == GlobKind::Path && text.ends_with("/**") && text.len() > 3;
        Ok(Glob {
            pattern: pattern.to_string(),
            kind,
            tokens,
            dir_itself,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// True when the glob matches the whole of `text`.
    pub fn matches(&self, text: &str) -> bool {
        let chars: Vec<char> = if self.kind == GlobKind::Host {
            text.to_ascii_lowercase().chars().collect()
        } else {
            text.chars().collect()
        };
        if self.run(&chars) {
            return true;
        }
        if self.dir_itself {
            let mut with_slash = chars;
            with_slash.push('/');
            return self.run(&with_slash);
        }
        false
    }

    /// Dynamic programming over (token, position): linear in memory, no backtracking blow-up.
    fn run(&self, text: &[char]) -> bool {
        let n = text.len();
        let blocked: Vec<bool> = (0..n).map(|j| self.is_separator(text, j)).collect();
        let mut cur = vec![false; n + 1];
        cur[0] = true;
        let mut next = vec![false; n + 1];
        for token in &self.tokens {
            next.iter_mut().for_each(|b| *b = false);
            match *token {
                Token::Lit(c) => {
                    for j in 0..n {
                        next[j + 1] = cur[j] && text[j] == c;
                    }
                }
                Token::One => {
                    for j in 0..n {
                        next[j + 1] = cur[j] && !blocked[j];
                    }
                }
                Token::Star => {
                    next[0] = cur[0];
                    for j in 0..n {
                        next[j + 1] = cur[j + 1] || (next[j] && !blocked[j]);
                    }
                }
                Token::AnyRun => {
                    next[0] = cur[0];
                    for j in 0..n {
                        next[j + 1] = cur[j + 1] || next[j];
                    }
                }
            }
            std::mem::swap(&mut cur, &mut next);
            if !cur.iter().any(|b| *b) {
                return false;
            }
        }
        cur[n]
    }

    fn is_separator(&self, text: &[char], j: usize) -> bool {
        let c = text[j];
        match self.kind {
            GlobKind::Tool => {
                c == '.'
                    || c == '/'
                    || (c == '_'
                        && ((j > 0 && text[j - 1] == '_') || text.get(j + 1) == Some(&'_')))
            }
            GlobKind::Host => c == '.',
            GlobKind::Path => c == '/',
            GlobKind::Text => false,
        }
    }
}

impl std::fmt::Display for Glob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.pattern)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, kind: GlobKind, t: &str) -> bool {
        Glob::new(p, kind).unwrap().matches(t)
    }

    #[test]
    fn tool_globs() {
        use GlobKind::Tool;
        assert!(m("Bash", Tool, "Bash"));
        assert!(!m("Bash", Tool, "bash"));
        assert!(!m("Bash", Tool, "BashX"));
        assert!(m("mcp__github__*", Tool, "mcp__github__create_issue"));
        assert!(!m("mcp__github__*", Tool, "mcp__github__x__y"));
        assert!(!m("mcp__github__*", Tool, "mcp__githubber__x"));
        assert!(m("mcp__github__**", Tool, "mcp__github__x__y"));
        assert!(m("mcp__*__create_issue", Tool, "mcp__gh__create_issue"));
        assert!(!m("mcp__*__create_issue", Tool, "mcp__a__b__create_issue"));
        // `*` cannot eat half of the `__` separator.
        assert!(!m("mcp__*_x", Tool, "mcp__a__x"));
        assert!(m("*", Tool, "Write"));
        assert!(!m("*", Tool, "mcp__a__b"));
        assert!(m("**", Tool, "mcp__a__b"));
        assert!(m("Web?etch", Tool, "WebFetch"));
        assert!(m("*Edit", Tool, "MultiEdit"));
    }

    #[test]
    fn host_globs() {
        use GlobKind::Host;
        assert!(m("*.github.com", Host, "api.github.com"));
        assert!(m("*.github.com", Host, "a.b.GitHub.com"));
        assert!(!m("*.github.com", Host, "github.com"));
        assert!(!m("*.github.com", Host, "evilgithub.com"));
        assert!(!m("*.github.com", Host, "github.com.evil.net"));
        assert!(m("github.com", Host, "GITHUB.COM"));
        assert!(m("api.*.com", Host, "api.x.com"));
        assert!(!m("api.*.com", Host, "api.x.y.com"));
    }

    #[test]
    fn path_and_text_globs() {
        use GlobKind::{Path, Text};
        assert!(m("/etc/**", Path, "/etc/passwd"));
        assert!(m("/etc/**", Path, "/etc"));
        assert!(m("/etc/**", Path, "/etc/a/b"));
        assert!(!m("/etc/**", Path, "/etcetera"));
        assert!(m("/etc/*", Path, "/etc/passwd"));
        assert!(!m("/etc/*", Path, "/etc/a/b"));
        assert!(m("*prod*", Text, "postgres://prod.db/x"));
        assert!(!m("*prod*", Text, "staging"));
        assert!(Glob::new("", Text).is_err());
    }

    #[test]
    fn long_inputs_stay_linear() {
        let g = Glob::new("*a*a*a*a*a*b", GlobKind::Text).unwrap();
        assert!(!g.matches(&"a".repeat(20_000)));
    }
}
