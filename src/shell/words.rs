//! Word expansion: quote removal, ANSI-C decoding, variables assigned earlier in the line, and
//! the command substitutions a word runs (which are analysed as commands of their own).

use super::Word;
use super::escapes::{Dialect, unescape};
use super::parse::{Analyser, Ctx, Ifs};
use brush_parser::ParserOptions;
use brush_parser::word::{
    self, BraceExpressionMember, BraceExpressionOrText, Parameter, ParameterExpr, SpecialParameter,
    WordPiece,
};
use std::sync::LazyLock;

/// IFS when the line has not set it: space, tab and newline.
pub(super) const DEFAULT_IFS: &str = " \t\n";

/// Values longer than this are not remembered, so `a=$a$a` chains cannot grow without bound.
const MAX_VARIABLE_BYTES: usize = 16 * 1024;

/// Tilde expansion is off so that `~` stays `~` (path resolution expands it), and so the word
/// parser never reaches its `~<digits>` branch, which panics on overflow.
static WORD_OPTIONS: LazyLock<ParserOptions> = LazyLock::new(|| ParserOptions {
    tilde_expansion_at_word_start: false,
    tilde_expansion_after_colon: false,
    ..ParserOptions::default()
});

/// A word after expansion, with what its substitutions ran.
#[derive(Debug, Clone, Default)]
pub(super) struct Expanded {
    pub word: Word,
    /// Programs run by the command or process substitutions of the word, in order; `None` when
    /// the word has no substitution.
    pub substitutions: Option<Vec<String>>,
}

impl Expanded {
    /// A literal word with no substitution.
    pub fn literal(text: impl Into<String>) -> Expanded {
        Expanded {
            word: Word::literal(text),
            substitutions: None,
        }
    }

    pub fn text(&self) -> &str {
        &self.word.text
    }

    /// True when the word is exactly known.
    pub fn is_static(&self) -> bool {
        !self.word.dynamic
    }
}

/// Accumulates one word (or several, when an unquoted variable value splits).
#[derive(Default)]
struct Builder {
    text: String,
    dynamic: bool,
    glob: bool,
    substitutions: Option<Vec<String>>,
    /// Fields completed by word splitting before the current one.
    fields: Vec<Word>,
}

impl Builder {
    fn add_substitution(&mut self, programs: Vec<String>) {
        self.substitutions
            .get_or_insert_with(Vec::new)
            .extend(programs);
    }

    /// Appends an unquoted variable value, splitting it on IFS's characters (`separators`) as
    /// the shell does; an empty field between two separators is dropped (as between blanks).
    fn push_split(&mut self, value: &str, separators: &str) {
        let mut parts = value.split(|c: char| separators.contains(c));
        if let Some(first) = parts.next() {
            self.text.push_str(first);
        }
        for part in parts {
            if !self.text.is_empty() {
                self.fields.push(Word {
                    text: std::mem::take(&mut self.text),
                    dynamic: self.dynamic,
                    glob: self.glob,
                });
                self.glob = false;
            }
            self.text.push_str(part);
        }
    }

    fn finish(self) -> Vec<Expanded> {
        let substitutions = self.substitutions;
        let mut words = self.fields;
        if !self.text.is_empty() || words.is_empty() {
            words.push(Word {
                text: self.text,
                dynamic: self.dynamic,
                glob: self.glob,
            });
        }
        words
            .into_iter()
            .map(|word| Expanded {
                word,
                substitutions: substitutions.clone(),
            })
            .collect()
    }
}

impl Analyser<'_> {
    /// Expands one raw word as the tokenizer returned it (`"a b"`, `r''m`, `$(x)`…), without
    /// word splitting (assignments, redirection targets).
    pub(super) fn expand_word(&mut self, raw: &str, ctx: &Ctx) -> Expanded {
        let mut fields = self.expand_fields(raw, ctx);
        if fields.len() == 1 {
            return fields.pop().unwrap_or_default();
        }
        let mut out = Expanded::default();
        for (i, f) in fields.into_iter().enumerate() {
            if i > 0 {
                out.word.text.push(' ');
            }
            out.word.text.push_str(&f.word.text);
            out.word.dynamic |= f.word.dynamic;
            out.word.glob |= f.word.glob;
            out.substitutions = f.substitutions;
        }
        out
    }

    /// Expands one command word into the fields it becomes: more than one for brace
    /// expansion (`{rm,-rf,/}`) and when an unquoted variable with a literal value holds blanks
    /// (`x="rm -rf /"; $x`).
    pub(super) fn expand_fields(&mut self, raw: &str, ctx: &Ctx) -> Vec<Expanded> {
        if raw.contains('{') && (raw.contains(',') || raw.contains("..")) {
            match brace_expand(raw) {
                Some(alternatives) if alternatives.len() > 1 => {
                    let mut out = Vec::new();
                    // An empty alternative (`{/,}`) is no word at all.
                    for alt in alternatives.iter().filter(|a| !a.is_empty()) {
                        out.extend(self.expand_unbraced(alt, ctx));
                    }
                    return out;
                }
                Some(_) => {}
                None => {
                    // Too many words to list: keep the word, marked as not known.
                    let mut fields = self.expand_unbraced(raw, ctx);
                    for f in &mut fields {
                        f.word.dynamic = true;
                    }
                    return fields;
                }
            }
        }
        self.expand_unbraced(raw, ctx)
    }

    fn expand_unbraced(&mut self, raw: &str, ctx: &Ctx) -> Vec<Expanded> {
        // Fast path: most words have nothing to remove or expand.
        if !raw.contains(['\'', '"', '\\', '$', '`']) {
            return vec![Expanded {
                word: Word {
                    text: raw.to_string(),
                    dynamic: false,
                    glob: has_glob(raw),
                },
                substitutions: None,
            }];
        }
        let pieces = match guarded(|| word::parse(raw, &WORD_OPTIONS)) {
            Some(Ok(pieces)) => pieces,
            Some(Err(e)) => {
                self.parse_error(format!("cannot parse word {raw:?}: {e}"));
                return vec![dynamic_as_written(raw)];
            }
            None => {
                self.parse_error(format!("the word parser failed on {raw:?}"));
                return vec![dynamic_as_written(raw)];
            }
        };
        let mut b = Builder::default();
        self.expand_pieces(raw, &pieces, false, &mut b, ctx);
        b.finish()
    }

    /// Expands the body of an unquoted-delimiter here-document (`$x`, `$(…)` expand, quotes
    /// are literal).
    pub(super) fn expand_heredoc(&mut self, raw: &str, ctx: &Ctx) -> Expanded {
        if !raw.contains(['\\', '$', '`']) {
            return Expanded::literal(raw);
        }
        let pieces = match guarded(|| word::parse_heredoc(raw, &WORD_OPTIONS)) {
            Some(Ok(pieces)) => pieces,
            _ => {
                self.parse_error("cannot parse the here-document body".to_string());
                return dynamic_as_written(raw);
            }
        };
        let mut b = Builder::default();
        self.expand_pieces(raw, &pieces, true, &mut b, ctx);
        Expanded {
            word: Word {
                text: b.text,
                dynamic: b.dynamic,
                glob: false,
            },
            substitutions: b.substitutions,
        }
    }

    fn expand_pieces(
        &mut self,
        raw: &str,
        pieces: &[word::WordPieceWithSource],
        quoted: bool,
        b: &mut Builder,
        ctx: &Ctx,
    ) {
        for p in pieces {
            let source = raw.get(p.start_index..p.end_index).unwrap_or("");
            match &p.piece {
                WordPiece::Text(s) => {
                    if !quoted && has_glob(s) {
                        b.glob = true;
                    }
                    b.text.push_str(s);
                }
                WordPiece::SingleQuotedText(s) => b.text.push_str(s),
                WordPiece::AnsiCQuotedText(s) => b.text.push_str(&unescape(s, Dialect::AnsiC)),
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.expand_pieces(raw, inner, true, b, ctx);
                }
                WordPiece::TildeExpansion(_) => b.text.push_str(source),
                WordPiece::EscapeSequence(s) => {
                    let c = s.strip_prefix('\\').unwrap_or(s);
                    if c != "\n" {
                        b.text.push_str(c);
                    }
                }
                WordPiece::ParameterExpansion(expr) => {
                    // Once IFS is set to a value not known, how an unquoted value splits is not.
                    let resolved = if quoted || self.ifs != Ifs::Unknown {
                        self.resolve_expansion(expr, quoted, ctx)
                    } else {
                        None
                    };
                    if let ParameterExpr::AssignDefaultValues {
                        parameter,
                        indirect,
                        ..
                    } = expr
                    {
                        // `${x:=v}` may set x: to the value found, or to one not known; an
                        // indirect one's name is not known either.
                        match parameter {
                            Parameter::Named(name) if !indirect && resolved.is_some() => {
                                let value = Expanded::literal(resolved.clone().unwrap_or_default());
                                self.assign(name, Some(&value));
                            }
                            Parameter::Named(name)
                            | Parameter::NamedWithIndex { name, .. }
                            | Parameter::NamedWithAllIndices { name, .. }
                                if !indirect =>
                            {
                                self.vars.remove(name);
                            }
                            _ => self.vars.clear(),
                        }
                    }
                    // Quoted `"$@"` and `"${a[@]}"` are a word for each parameter or element:
                    // known when none holds a blank (nor, for an array, is empty), then split
                    // as the unquoted one is.
                    let (each, parts) = match expr {
                        ParameterExpr::Parameter {
                            parameter:
                                Parameter::Special(SpecialParameter::AllPositionalParameters {
                                    concatenate: false,
                                }),
                            ..
                        } => (
                            true,
                            ctx.positional
                                .iter()
                                .skip(1)
                                .flatten()
                                .map(String::as_str)
                                .collect(),
                        ),
                        ParameterExpr::Parameter {
                            parameter:
                                Parameter::NamedWithAllIndices {
                                    name,
                                    concatenate: false,
                                },
                            ..
                        } => {
                            let elements = self.vars.elements(name).unwrap_or_default();
                            let empty = elements.iter().any(|e| e.is_empty());
                            (true, if empty { vec![" "] } else { elements })
                        }
                        _ => (false, Vec::new()),
                    };
                    let blank = |p: &&str| p.contains([' ', '\t', '\n']);
                    let resolved =
                        resolved.filter(|_| !(quoted && each && parts.iter().any(blank)));
                    if let Some(value) = resolved {
                        if quoted && each {
                            // The parameters, joined by spaces above: a word each.
                            b.push_split(&value, DEFAULT_IFS);
                        } else if quoted {
                            b.text.push_str(&value);
                        } else {
                            b.glob |= has_glob(&value);
                            b.push_split(&value, self.ifs.separators().unwrap_or(DEFAULT_IFS));
                        }
                    } else {
                        b.text.push_str(source);
                        b.dynamic = true;
                        for nested in parameter_words(expr) {
                            self.expand_nested_text(nested, b, ctx);
                        }
                    }
                }
                WordPiece::CommandSubstitution(inner)
                | WordPiece::BackquotedCommandSubstitution(inner) => {
                    let start = self.out.commands.len();
                    let programs = self.analyse_substitution(inner, ctx);
                    let lone = self.out.commands.len() == start + 1
                        && self.out.commands[start].stdin_from.is_none();
                    // `$(pwd)` is `$PWD`: path resolution reads both as the command's own
                    // directory (`fileops::static_text`).
                    if lone && prints_directory(&self.out.commands[start]) {
                        b.text.push_str("$PWD");
                        b.dynamic = true;
                        continue;
                    }
                    // `$(realpath f)`, `$(ls ~/.ssh/id_*)`: the paths a lone command prints of
                    // its literal operands are those operands (`printed_paths`; a relative one
                    // as `$PWD/f`, which path resolution reads as it reads `$(pwd)`). `$(echo
                    // build)`: a lone `echo`/`printf` of literals prints a known text.
                    let listed = selected_from_first(&self.out.commands, start);
                    let known = if !lone && !listed {
                        None
                    } else if let Some(paths) = printed_paths(&self.out.commands[start]) {
                        let value = paths.join(" ");
                        Some((value.contains("$PWD"), value))
                    } else {
                        self.fed_text(Some(start))
                            .map(|v| (false, v.trim_end_matches('\n').to_string()))
                    };
                    match known {
                        Some((relative, value)) => {
                            b.dynamic |= relative;
                            if quoted {
                                b.text.push_str(&value);
                            } else {
                                b.glob |= has_glob(&value);
                                let separators = self.ifs.separators().unwrap_or(DEFAULT_IFS);
                                b.push_split(&value, separators);
                            }
                        }
                        None => {
                            b.text.push_str(source);
                            b.dynamic = true;
                            b.add_substitution(programs);
                        }
                    }
                }
                WordPiece::ArithmeticExpression(expr) => {
                    b.text.push_str(source);
                    b.dynamic = true;
                    self.expand_nested_text(&expr.value, b, ctx);
                }
            }
        }
    }

    /// Finds the substitutions inside text that is itself expanded later (arithmetic, the
    /// default of `${x:-…}`): they run, so their commands are analysed.
    fn expand_nested_text(&mut self, text: &str, b: &mut Builder, ctx: &Ctx) {
        if !text.contains("$(") && !text.contains('`') {
            return;
        }
        if ctx.depth >= super::MAX_NESTING {
            self.too_complex("expansions nested too deeply".to_string());
            return;
        }
        let mut inner_ctx = ctx.clone();
        inner_ctx.depth += 1;
        let e = self.expand_word(text, &inner_ctx);
        if let Some(programs) = e.substitutions {
            b.add_substitution(programs);
        }
    }

    /// The value of a parameter expansion, with its operator (`${x:-v}`, `${x%/*}`, …),
    /// when the line gave what it works on: `${x:-/}` after `x=` is `/`, `${1:-build}` in a
    /// function called with no argument is `build`.
    fn resolve_expansion(
        &mut self,
        expr: &ParameterExpr,
        quoted: bool,
        ctx: &Ctx,
    ) -> Option<String> {
        use super::operators as op;
        use ParameterExpr as E;
        use word::ParameterTestType;
        // Whether `${x:-…}`'s test finds x set (and, with the colon, not empty).
        let set = |v: &Option<String>, test: &ParameterTestType| match v {
            None => false,
            Some(v) => matches!(test, ParameterTestType::Unset) || !v.is_empty(),
        };
        let pattern = |p: &Option<String>| op::simple_pattern(p.as_deref().unwrap_or(""));
        match expr {
            E::Parameter { .. } => self.resolve_parameter(expr, ctx),
            E::UseDefaultValues {
                parameter,
                indirect,
                test_type,
                default_value: other,
            }
            | E::AssignDefaultValues {
                parameter,
                indirect,
                test_type,
                default_value: other,
            } => {
                let v = self.parameter_state(parameter, *indirect, ctx)?;
                if set(&v, test_type) {
                    v
                } else {
                    self.nested_value(other.as_deref(), quoted, ctx)
                }
            }
            E::UseAlternativeValue {
                parameter,
                indirect,
                test_type,
                alternative_value,
            } => {
                let v = self.parameter_state(parameter, *indirect, ctx)?;
                if set(&v, test_type) {
                    self.nested_value(alternative_value.as_deref(), quoted, ctx)
                } else {
                    Some(String::new())
                }
            }
            // Not set, the command fails before it runs.
            E::IndicateErrorIfNullOrUnset {
                parameter,
                indirect,
                test_type,
                ..
            } => {
                let v = self.parameter_state(parameter, *indirect, ctx)?;
                if set(&v, test_type) { v } else { None }
            }
            // `${#a[@]}`: how many elements.
            E::ParameterLength {
                parameter: Parameter::NamedWithAllIndices { name, .. },
                indirect: false,
            } => self.vars.elements(name).map(|e| e.len().to_string()),
            E::ParameterLength {
                parameter,
                indirect,
            } => self
                .parameter_state(parameter, *indirect, ctx)
                .map(|v| v.unwrap_or_default().chars().count().to_string()),
            E::RemoveSmallestPrefixPattern {
                parameter,
                indirect,
                pattern: p,
            }
            | E::RemoveLargestPrefixPattern {
                parameter,
                indirect,
                pattern: p,
            }
            | E::RemoveSmallestSuffixPattern {
                parameter,
                indirect,
                pattern: p,
            }
            | E::RemoveLargestSuffixPattern {
                parameter,
                indirect,
                pattern: p,
            } => {
                let largest = matches!(
                    expr,
                    E::RemoveLargestPrefixPattern { .. } | E::RemoveLargestSuffixPattern { .. }
                );
                let prefix = matches!(
                    expr,
                    E::RemoveSmallestPrefixPattern { .. } | E::RemoveLargestPrefixPattern { .. }
                );
                let v = self.parameter_state(parameter, *indirect, ctx)?;
                let (v, p) = (v.unwrap_or_default(), pattern(p)?);
                if prefix {
                    op::remove_prefix(&v, &p, largest)
                } else {
                    op::remove_suffix(&v, &p, largest)
                }
            }
            E::ReplaceSubstring {
                parameter,
                indirect,
                pattern: p,
                replacement,
                match_kind,
            } => {
                let v = self.parameter_state(parameter, *indirect, ctx)?;
                let p = op::simple_pattern(p)?;
                let with = self.nested_value(replacement.as_deref(), true, ctx)?;
                op::replace(&v.unwrap_or_default(), &p, &with, match_kind)
            }
            E::Substring {
                parameter,
                indirect,
                offset,
                length,
            } => {
                let v = self.parameter_state(parameter, *indirect, ctx)?;
                op::substring(
                    &v.unwrap_or_default(),
                    &offset.value,
                    length.as_ref().map(|l| l.value.as_str()),
                )
            }
            E::UppercasePattern {
                parameter,
                indirect,
                pattern: case_pattern,
            }
            | E::LowercasePattern {
                parameter,
                indirect,
                pattern: case_pattern,
            }
            | E::UppercaseFirstChar {
                parameter,
                indirect,
                pattern: case_pattern,
            }
            | E::LowercaseFirstChar {
                parameter,
                indirect,
                pattern: case_pattern,
            } if case_pattern.as_deref().is_none_or(str::is_empty) => {
                let upper = matches!(
                    expr,
                    E::UppercasePattern { .. } | E::UppercaseFirstChar { .. }
                );
                let all = matches!(
                    expr,
                    E::UppercasePattern { .. } | E::LowercasePattern { .. }
                );
                let v = self.parameter_state(parameter, *indirect, ctx)?;
                Some(op::change_case(&v.unwrap_or_default(), upper, all))
            }
            _ => None,
        }
    }

    /// What the line tells of a parameter an operator works on: `Some(Some(v))` set to `v`,
    /// `Some(None)` not set, `None` not known. A variable is known only as assigned in the
    /// line (one not assigned may come from the environment); a function's or script's
    /// parameters past the last one given are known not to be set.
    fn parameter_state(
        &self,
        parameter: &Parameter,
        indirect: bool,
        ctx: &Ctx,
    ) -> Option<Option<String>> {
        if indirect {
            return None;
        }
        match parameter {
            // `$HOME` stays as written for path resolution, and IFS is not worked on.
            Parameter::Named(name) | Parameter::NamedWithIndex { name, .. }
                if name == "HOME" || name == "IFS" =>
            {
                None
            }
            Parameter::Named(name) => self.vars.get(name).cloned().map(Some),
            Parameter::NamedWithIndex { name, index } => self.vars.element(name, index),
            Parameter::Positional(n) => {
                let n = usize::try_from(*n).ok()?;
                match ctx.positional.get(n) {
                    Some(v) => v.clone().map(Some),
                    // Past the last: not set, when the parameters were given (`$0` first)
                    // and each was known (a word not known, `None`, may have been any number
                    // of them).
                    None => (n > 0
                        && !ctx.positional.is_empty()
                        && ctx.positional[1..].iter().all(Option::is_some))
                    .then_some(None),
                }
            }
            _ => None,
        }
    }

    /// The value of a word nested in an expansion (`${x:-WORD}`), when it is known (`$HOME/…`
    /// kept as written counts: path resolution knows it). One that runs a substitution is
    /// left to the caller, which analyses what it runs. Unquoted, a value with a blank that
    /// came from quotes inside the word would split otherwise than it does in bash: not known.
    fn nested_value(&mut self, raw: Option<&str>, quoted: bool, ctx: &Ctx) -> Option<String> {
        let raw = raw.unwrap_or("");
        if raw.contains("$(") || raw.contains('`') || raw.contains("<(") || raw.contains(">(") {
            return None;
        }
        let e = self.expand_word(raw, ctx);
        let text = e.text();
        let quotes_inside = raw.contains(['\'', '"', '\\']);
        // `$HOME/…` stays as written, as a variable holding it does (`home_rooted`).
        let known = e.is_static() || home_rooted(&e);
        (known && (quoted || !quotes_inside || !text.contains([' ', '\t', '\n'])))
            .then(|| text.to_string())
    }

    /// The literal value of a parameter when it was assigned a literal earlier in the line.
    fn resolve_parameter(&self, expr: &ParameterExpr, ctx: &Ctx) -> Option<String> {
        let ParameterExpr::Parameter {
            parameter,
            indirect: false,
        } = expr
        else {
            return None;
        };
        match parameter {
            // `$HOME` stays as written: path resolution knows the real home.
            Parameter::Named(name) if name == "HOME" => None,
            // `rm${IFS}-rf${IFS}/`: the default IFS is known, and one set to a literal.
            Parameter::Named(name) if name == "IFS" => self.ifs.separators().map(str::to_string),
            Parameter::Named(name) => self.vars.get(name).cloned(),
            // An element not set is empty.
            Parameter::NamedWithIndex { .. } => self
                .parameter_state(parameter, false, ctx)
                .map(Option::unwrap_or_default),
            Parameter::NamedWithAllIndices { name, .. } => {
                self.vars.elements(name).map(|e| e.join(" "))
            }
            Parameter::Positional(n) => ctx
                .positional
                .get(usize::try_from(*n).ok()?)
                .cloned()
                .flatten(),
            Parameter::Special(SpecialParameter::ShellName) => {
                ctx.positional.first().cloned().flatten()
            }
            // `$@` and `$*`, once `sh -c … NAME ARG…` or `set --` gave them all.
            Parameter::Special(SpecialParameter::AllPositionalParameters { .. }) => ctx
                .positional
                .get(1..)?
                .iter()
                .cloned()
                .collect::<Option<Vec<_>>>()
                .map(|args| args.join(" ")),
            _ => None,
        }
    }

    /// The value `name+=value` gives: the variable's known value with `value` after it, or,
    /// when its value is not known (set outside the line, or forgotten), a dynamic word.
    pub(super) fn appended(&self, name: &str, value: Expanded) -> Expanded {
        let (text, known) = match self.vars.get(name) {
            Some(old) => (format!("{old}{}", value.word.text), true),
            None => (format!("${{{name}}}{}", value.word.text), false),
        };
        Expanded {
            word: Word {
                text,
                dynamic: value.word.dynamic || !known,
                glob: value.word.glob,
            },
            substitutions: value.substitutions,
        }
    }

    /// Records `name=value` from a bare assignment: literal values are remembered, anything
    /// else forgets an earlier value.
    pub(super) fn assign(&mut self, name: &str, value: Option<&Expanded>) {
        match self.value_kept(name, value) {
            Some(v) => self.vars.insert(name.to_string(), v),
            None => self.vars.remove(name),
        }
    }

    /// The value `name=value` is remembered with: a literal (or `$HOME/…`) one, short enough,
    /// while no name reference may redirect it. Notes IFS's change.
    pub(super) fn value_kept(&mut self, name: &str, value: Option<&Expanded>) -> Option<String> {
        if name == "IFS" {
            self.ifs = match value {
                Some(v) if v.is_static() && !self.namerefs => Ifs::Set(v.text().to_string()),
                _ => Ifs::Unknown,
            };
        }
        value
            .filter(|v| {
                !self.namerefs
                    && (v.is_static() || home_rooted(v))
                    && v.text().len() <= MAX_VARIABLE_BYTES
                    && name != "HOME"
            })
            .map(|v| v.text().to_string())
    }
}

/// `pwd`, `pwd -L`, `pwd -P`: a command that prints the directory it runs in.
/// The paths a command prints of its literal operands, as words that name the same files:
/// `realpath f` and `readlink [-f] f` print where `f` leads, which a read of `f` reaches as
/// well (a relative `f` as `$PWD/f`, since the path printed is absolute); `ls f…` prints the
/// files given (a directory given lists names below it, taken as the directory). `None` for
/// any other command, no operand (`ls` alone prints nothing in an empty directory, where `*`
/// would stay `*`), an operand not known, or an option that prints something else
/// (`realpath --relative-to`). `dirname f` prints the directory holding `f` (`$PWD/..` for
/// `$PWD`, `~/..` for `~`); `basename` prints a bare name, which names no place by itself.
fn printed_paths(c: &super::Command) -> Option<Vec<String>> {
    // `$PWD` and `$HOME` are known where paths are resolved: `dirname "$PWD"` is `$PWD/..`.
    let known = |a: &Word| {
        !a.dynamic
            || c.program == "dirname"
                && ["$PWD", "${PWD}", "$HOME", "${HOME}"].iter().any(|v| {
                    a.text.strip_prefix(v).is_some_and(|r| {
                        (r.is_empty() || r.starts_with('/')) && !r.contains(['$', '`'])
                    })
                })
    };
    if !c.redirects.is_empty() || !c.args.iter().all(known) {
        return None;
    }
    let (options, operands): (Vec<&str>, Vec<&str>) = c
        .args
        .iter()
        .map(|a| a.text.as_str())
        .partition(|t| t.starts_with('-') && *t != "-");
    if operands.is_empty() {
        return None;
    }
    match c.program.as_str() {
        "realpath" | "readlink" if !options.iter().any(|o| o.starts_with("--relative")) => {
            let absolute = |s: &&str| {
                if s.starts_with(['/', '~']) {
                    s.to_string()
                } else {
                    format!("$PWD/{s}")
                }
            };
            Some(operands.iter().map(absolute).collect())
        }
        "ls" => Some(operands.iter().map(|s| s.to_string()).collect()),
        "dirname" if options.iter().all(|o| matches!(*o, "-z" | "--zero" | "--")) => {
            Some(operands.iter().map(|s| parent_of(s)).collect())
        }
        _ => None,
    }
}

/// What `dirname` prints for `s`: the path without its last component, `.` for a bare name,
/// `/` for the root; a bare `~` or `$NAME` is a directory whose parent is `…/..`.
pub(super) fn parent_of(s: &str) -> String {
    let trimmed = s.trim_end_matches('/');
    if trimmed.is_empty() {
        return if s.is_empty() { ".".into() } else { "/".into() };
    }
    match trimmed.rfind('/') {
        Some(at) => match trimmed[..at].trim_end_matches('/') {
            "" => "/".into(),
            dir => dir.to_string(),
        },
        None if trimmed.starts_with(['~', '$']) => format!("{trimmed}/.."),
        None => ".".into(),
    }
}

/// Whether the commands from `start` on, a pipeline, print some of the lines its first
/// command prints: each later command reads the one before it and selects lines (`ls
/// ~/.ssh/id_* | head -1`, `| sort | grep -v pub`), so the paths it prints are among the first
/// command's.
fn selected_from_first(commands: &[super::Command], start: usize) -> bool {
    commands.len() > start + 1
        && commands[start].stdin_from.is_none()
        && commands[start + 1..].iter().enumerate().all(|(i, c)| {
            c.stdin_from == Some(start + i) && c.redirects.is_empty() && selects_lines(c)
        })
}

/// A filter that prints some of its input's lines as they are, from standard input.
fn selects_lines(c: &super::Command) -> bool {
    let texts: Vec<&str> = c.args.iter().map(|a| a.text.as_str()).collect();
    let counts_only = |t: &&str| t.starts_with('-') || t.chars().all(|ch| ch.is_ascii_digit());
    match c.program.as_str() {
        "head" | "tail" | "sort" | "uniq" | "shuf" | "tac" => texts.iter().all(counts_only),
        "grep" | "egrep" | "fgrep" => {
            // Options that print counts, names, numbers or parts of lines instead.
            let reshapes = texts.iter().any(|t| {
                t.starts_with("--")
                    && [
                        "--only-matching",
                        "--count",
                        "--files-with",
                        "--line-number",
                        "--byte-offset",
                        "--with-filename",
                    ]
                    .iter()
                    .any(|o| t.starts_with(o))
                    || (t.starts_with('-')
                        && !t.starts_with("--")
                        && t[1..].contains(['o', 'c', 'l', 'L', 'n', 'b', 'H']))
            });
            // The pattern, as an operand or `-e`'s value; another operand is a file read.
            !reshapes && texts.iter().filter(|t| !t.starts_with('-')).count() <= 1
        }
        _ => false,
    }
}

fn prints_directory(c: &super::Command) -> bool {
    c.program == "pwd"
        && c.redirects.is_empty()
        && c.args
            .iter()
            .all(|a| matches!(a.text.as_str(), "-L" | "-P"))
}

/// `$HOME/…` with nothing else dynamic: kept as written, path resolution expands it, so a
/// variable holding it (`T=$HOME; rm -rf "$T"`) is as known as `$HOME` itself.
fn home_rooted(v: &Expanded) -> bool {
    let t = v.text();
    let rest = t
        .strip_prefix("${HOME}")
        .or_else(|| t.strip_prefix("$HOME"));
    v.substitutions.is_none()
        && rest.is_some_and(|r| (r.is_empty() || r.starts_with('/')) && !r.contains(['$', '`']))
}

fn dynamic_as_written(raw: &str) -> Expanded {
    Expanded {
        word: Word {
            text: raw.to_string(),
            dynamic: true,
            glob: false,
        },
        substitutions: None,
    }
}

/// Runs a brush-parser call, turning a panic into `None` (the crate has `unwrap`s on input).
pub(super) fn guarded<T>(f: impl FnOnce() -> T) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok()
}

/// The nested words of a parameter expansion that are expanded in turn.
fn parameter_words(expr: &ParameterExpr) -> Vec<&str> {
    fn opt(o: &Option<String>) -> Vec<&str> {
        o.as_deref().into_iter().collect()
    }
    match expr {
        ParameterExpr::UseDefaultValues { default_value, .. }
        | ParameterExpr::AssignDefaultValues { default_value, .. } => opt(default_value),
        ParameterExpr::IndicateErrorIfNullOrUnset { error_message, .. } => opt(error_message),
        ParameterExpr::UseAlternativeValue {
            alternative_value, ..
        } => opt(alternative_value),
        ParameterExpr::RemoveSmallestSuffixPattern { pattern, .. }
        | ParameterExpr::RemoveLargestSuffixPattern { pattern, .. }
        | ParameterExpr::RemoveSmallestPrefixPattern { pattern, .. }
        | ParameterExpr::RemoveLargestPrefixPattern { pattern, .. }
        | ParameterExpr::UppercaseFirstChar { pattern, .. }
        | ParameterExpr::UppercasePattern { pattern, .. }
        | ParameterExpr::LowercaseFirstChar { pattern, .. }
        | ParameterExpr::LowercasePattern { pattern, .. } => opt(pattern),
        ParameterExpr::ReplaceSubstring {
            pattern,
            replacement,
            ..
        } => {
            let mut v = vec![pattern.as_str()];
            v.extend(replacement.as_deref());
            v
        }
        ParameterExpr::Substring { offset, length, .. } => {
            let mut v = vec![offset.value.as_str()];
            v.extend(length.as_ref().map(|l| l.value.as_str()));
            v
        }
        _ => Vec::new(),
    }
}

/// Most words one brace expansion may produce before the word counts as unknown.
const MAX_BRACE_WORDS: usize = 256;

/// Brace expansion of a raw word: the raw alternatives (still quoted), `Some(vec![raw])` when
/// there is nothing to expand, `None` when there would be too many.
/// Deepest nesting of `{` a word may have for its brace expansion to be parsed.
const MAX_BRACE_DEPTH: usize = 8;

fn brace_expand(raw: &str) -> Option<Vec<String>> {
    // brush-parser unwraps the numbers of `{1..N}` as i64: refuse what would overflow.
    let longest_digits = raw
        .split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0);
    if longest_digits > 17 {
        return None;
    }
    // brush-parser's brace grammar backtracks over every open `{` still unclosed, in time
    // exponential in their depth (a fuzz-found 86-byte word took over 15 s): refuse a word
    // whose braces nest deeper than any brace expansion written by hand.
    let mut depth = 0usize;
    let mut deepest = 0usize;
    for c in raw.chars() {
        match c {
            '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest > MAX_BRACE_DEPTH {
        return None;
    }
    match guarded(|| word::parse_brace_expansions(raw, &WORD_OPTIONS)) {
        Some(Ok(Some(items))) => brace_items(&items, 0),
        _ => Some(vec![raw.to_string()]),
    }
}

fn brace_items(items: &[BraceExpressionOrText], depth: usize) -> Option<Vec<String>> {
    if depth > super::MAX_NESTING {
        return None;
    }
    let mut acc = vec![String::new()];
    for item in items {
        let alternatives = match item {
            BraceExpressionOrText::Text(t) => vec![t.clone()],
            BraceExpressionOrText::Expr(members) => {
                let mut v = Vec::new();
                for m in members {
                    v.extend(brace_member(m, depth + 1)?);
                    if v.len() > MAX_BRACE_WORDS {
                        return None;
                    }
                }
                v
            }
        };
        if acc.len().saturating_mul(alternatives.len()) > MAX_BRACE_WORDS {
            return None;
        }
        acc = acc
            .iter()
            .flat_map(|a| alternatives.iter().map(move |b| format!("{a}{b}")))
            .collect();
    }
    Some(acc)
}

fn brace_member(m: &BraceExpressionMember, depth: usize) -> Option<Vec<String>> {
    let (start, end, increment) = match m {
        BraceExpressionMember::Child(items) => return brace_items(items, depth),
        BraceExpressionMember::NumberSequence {
            start,
            end,
            increment,
        } => (*start, *end, *increment),
        BraceExpressionMember::CharSequence {
            start,
            end,
            increment,
        } => (
            i64::from(u32::from(*start)),
            i64::from(u32::from(*end)),
            *increment,
        ),
    };
    let step = increment.unsigned_abs().max(1);
    let count = start.abs_diff(end) / step + 1;
    if count > MAX_BRACE_WORDS as u64 {
        return None;
    }
    let is_char = matches!(m, BraceExpressionMember::CharSequence { .. });
    let mut out = Vec::new();
    let mut v = start;
    for _ in 0..count {
        out.push(if is_char {
            u32::try_from(v)
                .ok()
                .and_then(char::from_u32)
                .map(String::from)
                .unwrap_or_default()
        } else {
            v.to_string()
        });
        v = if start <= end {
            v.saturating_add_unsigned(step)
        } else {
            v.saturating_sub_unsigned(step)
        };
    }
    Some(out)
}

/// True when unquoted text would be subject to pathname expansion.
pub(super) fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// The last path component of a program word: `/usr/bin/env` → `env`. A Windows program's
/// `.exe` is dropped (`powershell.exe`, `curl.exe`): under WSL a Linux shell runs them by that
/// name, and they do what the program of the same name does.
pub(super) fn basename(path: &str) -> &str {
    let base = match path.trim_end_matches('/').rsplit('/').next() {
        Some(b) if !b.is_empty() => b,
        _ => path,
    };
    match base.len().checked_sub(4) {
        Some(cut) if cut > 0 && base.is_char_boundary(cut) => {
            if base[cut..].eq_ignore_ascii_case(".exe") {
                &base[..cut]
            } else {
                base
            }
        }
        _ => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braces_nested_past_the_bound_are_refused_before_the_parse() {
        // The fuzz-found word (`fuzz/seeds/shell_analyser/deep-unclosed-braces-timeout`).
        let deep = format!("fo{}${{HOME{}name c,b }}", "{".repeat(25), "{".repeat(31));
        assert_eq!(brace_expand(&deep), None);
        assert_eq!(
            brace_expand("a{b,c}").unwrap(),
            ["ab".to_string(), "ac".to_string()]
        );
        let nested = format!(
            "{}x,y{}",
            "{".repeat(MAX_BRACE_DEPTH),
            "}".repeat(MAX_BRACE_DEPTH)
        );
        assert!(brace_expand(&nested).is_some());
    }

    #[test]
    fn basenames() {
        assert_eq!(basename("/bin/rm"), "rm");
        assert_eq!(basename("rm"), "rm");
        assert_eq!(basename("./x/"), "x");
        assert_eq!(basename("/"), "/");
        assert_eq!(basename("/mnt/c/Windows/powershell.exe"), "powershell");
        assert_eq!(basename("CURL.EXE"), "CURL");
        assert_eq!(basename(".exe"), ".exe");
    }
}
