//! The whole environment in a program: one expression for every variable at once
//! (`os.environ`, `process.env`, `ENV.to_h`, `%ENV`, `System.getenv()`), which holds every
//! token and key the user's shell exported. Printed, it is `env`; sent, it is `env | curl`.
//! One variable (`os.environ['HOME']`, `process.env.PORT`) is not the whole, nor is the
//! environment handed to a child process (`env=os.environ.copy()`, `{...process.env, X: 1}`),
//! which is how programs run others.

use super::Language;

/// Most expressions looked at in one program.
const MAX_FOUND: usize = 16;

/// How an expression for the environment is spelled in a language, and what turns it into
/// one variable.
struct Spelling {
    /// The expression as written.
    token: &'static str,
    /// Methods after it that take one variable, or copy it for a child (`.get`, `.copy`).
    one: &'static [&'static str],
    /// True when the token must stand alone as a word (`ENV`, not `MY_ENV`).
    word: bool,
}

const fn spelling(token: &'static str, one: &'static [&'static str], word: bool) -> Spelling {
    Spelling { token, one, word }
}

const PYTHON: &[Spelling] = &[spelling(
    "os.environ",
    &[
        "get",
        "setdefault",
        "pop",
        "update",
        "keys",
        "copy",
        "clear",
        "__getitem__",
        "__setitem__",
        "__contains__",
        "__delitem__",
    ],
    false,
)];
const NODE: &[Spelling] = &[
    // `.PORT`, `?.PORT`: one variable; every method of the object names one too.
    spelling("process.env", &[""], false),
    spelling("Deno.env.toObject()", &[], false),
];
const RUBY: &[Spelling] = &[spelling(
    "ENV",
    &[
        "fetch", "key?", "has_key?", "include?", "delete", "store", "keys", "dup", "clone",
        "merge", "update", "[]",
    ],
    true,
)];
const PERL: &[Spelling] = &[spelling("%ENV", &[], false)];
const PHP: &[Spelling] = &[
    spelling("getenv()", &[], false),
    spelling("$_ENV", &[], false),
];
const JVM: &[Spelling] = &[spelling("System.getenv()", &[""], false)];
const R: &[Spelling] = &[spelling("Sys.getenv()", &[], false)];
const ELIXIR: &[Spelling] = &[spelling("System.get_env()", &[], false)];

fn spellings(language: Language) -> &'static [Spelling] {
    match language {
        Language::Python => PYTHON,
        Language::Node => NODE,
        Language::Ruby | Language::Julia => RUBY,
        Language::Perl => PERL,
        Language::Php => PHP,
        Language::Groovy | Language::Java | Language::Scala | Language::Kotlin => JVM,
        Language::R => R,
        Language::Elixir => ELIXIR,
        _ => &[],
    }
}

/// The spans in `text` (a program in `language`) of the expressions that take the whole
/// environment, at most `MAX_FOUND`.
pub(super) fn whole(language: Language, text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for s in spellings(language) {
        for (at, _) in text.match_indices(s.token) {
            if out.len() >= MAX_FOUND {
                return out;
            }
            let before = &text[..at];
            let after = &text[at + s.token.len()..];
            let word_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
            if s.word
                && (before.ends_with(|c: char| word_char(c) || matches!(c, '$' | '%' | '@' | '.'))
                    || after.starts_with(word_char))
            {
                continue;
            }
            // `os.environb` is the same mapping in bytes.
            let after = after.strip_prefix('b').unwrap_or(after);
            if is_one(after, s.one) || for_a_child(before, after) || names_only(before, after) {
                continue;
            }
            out.push((at, at + s.token.len()));
        }
    }
    out.sort_unstable();
    out
}

/// True when the expression at `span` is walked over, one variable at a time (`for k, v in
/// os.environ.items()`, `Object.entries(process.env)`, `ENV.each`): how a program picks its
/// own settings out of the environment, as often as it dumps it.
pub(super) fn walked(text: &str, span: (usize, usize)) -> bool {
    const WALKS: &[&str] = &[
        ".items", ".values", ".each", ".map", ".select", ".filter", ".to_a", ".forEach",
    ];
    let after = text[span.1..].trim_start_matches('b');
    let before = text[..span.0].trim_end();
    WALKS.iter().any(|w| after.starts_with(w))
        || ["Object.entries(", "Object.keys(", "Object.values("]
            .iter()
            .any(|w| before.ends_with(w))
}

/// True when what follows the expression picks one variable from it (`[…]`, `.get(…)`), or a
/// method in `one` copies it (an empty name: any method or property).
fn is_one(after: &str, one: &[&str]) -> bool {
    let after = after.trim_start_matches([' ', '\t']);
    if after.starts_with('[') || after.starts_with("?.") || after.starts_with("?.[") {
        return true;
    }
    let Some(method) = after.strip_prefix('.') else {
        return false;
    };
    let name: &str = &method[..method
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '?' | '!')))
        .unwrap_or(method.len())];
    one.iter().any(|m| m.is_empty() || *m == name)
}

/// True when only the variables' names or their count are taken (`Object.keys(process.env)`,
/// `len(os.environ)`, `sorted(os.environ)`, `'CI' in os.environ`), not their values.
fn names_only(before: &str, after: &str) -> bool {
    let b = before.trim_end_matches([' ', '\t']);
    ["Object.keys(", "len(", "list(", "sorted(", "set("]
        .iter()
        .any(|w| b.ends_with(w))
        || (before.ends_with(" in ") && !after.starts_with('.'))
}

/// True when the environment is handed to a child process or extended for one: an `env`
/// argument or property (`env=os.environ`, `{env: process.env}`), a spread into a new map
/// (`{**os.environ, …}`, `{...process.env, …}`), or a copy with changes (`dict(os.environ,
/// X='1')`, `Object.assign({}, process.env, …)`).
fn for_a_child(before: &str, after: &str) -> bool {
    let b = before.trim_end_matches([' ', '\t']);
    let a = after.trim_start_matches([' ', '\t']);
    b.ends_with("**")
        || b.ends_with("...")
        || b.ends_with("env=")
        || b.ends_with("env =")
        || b.ends_with("env:")
        || b.ends_with("env :")
        || b.ends_with("Object.assign({},")
        || (b.ends_with("dict(") && a.starts_with(','))
}

/// Words that print what follows them on a line (`print(os.environ)`, `console.log(…)`).
const PRINTERS: &[&str] = &[
    "print",
    "pprint",
    "console.",
    "puts",
    "pp ",
    "p(",
    "p ",
    "say",
    "echo",
    "var_dump",
    "print_r",
    "var_export",
    "println",
    "IO.inspect",
    "IO.puts",
    "System.out",
    "stdout",
    "write(",
    "cat(",
    "show(",
    "display(",
];

/// The statement of `text` around offset `at`: from the last `;` or newline before it to the
/// next after it.
pub(super) fn statement(text: &str, at: usize) -> (&str, &str) {
    let start = text[..at].rfind([';', '\n']).map_or(0, |i| i + 1);
    let end = text[at..].find([';', '\n']).map_or(text.len(), |i| at + i);
    (&text[start..at], &text[at..end])
}

/// True when the statement's text before the expression prints it.
pub(super) fn printed(before: &str) -> bool {
    PRINTERS.iter().any(|p| {
        before.match_indices(p).any(|(i, _)| {
            // A word of its own: `print`, not `blueprint` or `sprintf`.
            !before[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_whole_environment_is_told_from_one_variable_and_a_childs() {
        let whole_in = |l: Language, code: &str| !whole(l, code).is_empty();
        let walked_in = |l: Language, code: &str| walked(code, whole(l, code)[0]);
        assert!(walked_in(
            Language::Python,
            "{k: v for k, v in os.environ.items()}"
        ));
        assert!(walked_in(Language::Node, "Object.entries(process.env)"));
        assert!(!walked_in(Language::Python, "json.dumps(dict(os.environ))"));
        for (l, code) in [
            (Language::Python, "import os; print(os.environ)"),
            (Language::Python, "print(dict(os.environ))"),
            (Language::Python, "json.dumps(dict(os.environb))"),
            (
                Language::Python,
                "for k, v in os.environ.items(): print(k, v)",
            ),
            (Language::Node, "console.log(process.env)"),
            (Language::Node, "JSON.stringify(process.env)"),
            (Language::Node, "Object.entries(process.env)"),
            (Language::Node, "console.log(Deno.env.toObject())"),
            (Language::Ruby, "p ENV.to_h"),
            (Language::Ruby, "puts ENV.inspect"),
            (Language::Ruby, "ENV.each { |k, v| puts k }"),
            (Language::Perl, "print \"$_=$ENV{$_}\\n\" for keys %ENV"),
            (Language::Php, "print_r(getenv());"),
            (Language::Php, "var_dump($_ENV);"),
            (Language::Java, "System.out.println(System.getenv());"),
            (Language::R, "print(Sys.getenv())"),
            (Language::Elixir, "IO.inspect(System.get_env())"),
        ] {
            assert!(whole_in(l, code), "{code}");
        }
        for (l, code) in [
            (Language::Python, "print(os.environ['HOME'])"),
            (Language::Python, "os.environ.get('PORT', '8000')"),
            (Language::Python, "env = os.environ.copy(); env['X'] = '1'"),
            (
                Language::Python,
                "subprocess.run(c, env={**os.environ, 'X': '1'})",
            ),
            (
                Language::Python,
                "subprocess.run(c, env=dict(os.environ, X='1'))",
            ),
            (Language::Python, "subprocess.run(c, env=os.environ)"),
            (Language::Node, "console.log(process.env.PORT)"),
            (Language::Node, "process.env['NODE_ENV']"),
            (Language::Node, "process.env?.CI"),
            (Language::Node, "spawn(c, {env: {...process.env, X: '1'}})"),
            (Language::Node, "spawn(c, {env: process.env})"),
            (Language::Node, "Object.assign({}, process.env, {X: 1})"),
            (Language::Ruby, "puts ENV['HOME']"),
            (Language::Ruby, "ENV.fetch('PORT', 3000)"),
            (Language::Ruby, "MY_ENV = 1; p MY_ENV"),
            (Language::Perl, "print $ENV{HOME}"),
            (Language::Java, "System.getenv(\"HOME\")"),
            (Language::Php, "getenv('HOME')"),
            (
                Language::Node,
                "console.log(Object.keys(process.env).length)",
            ),
            (
                Language::Python,
                "print(len(os.environ), sorted(os.environ))",
            ),
            (Language::Python, "print('CI' in os.environ)"),
        ] {
            assert!(!whole_in(l, code), "{code}");
        }
    }

    #[test]
    fn a_statement_prints_what_a_printer_before_it_takes() {
        let printed_at = |code: &str, token: &str| {
            let at = code.find(token).unwrap();
            printed(statement(code, at).0)
        };
        assert!(printed_at("import os; print(os.environ)", "os.environ"));
        assert!(printed_at(
            "console.log(JSON.stringify(process.env))",
            "process.env"
        ));
        assert!(printed_at("p ENV.to_h", "ENV"));
        assert!(!printed_at(
            "print('x'); d = dict(os.environ)",
            "os.environ"
        ));
        assert!(!printed_at("blueprint(os.environ)", "os.environ"));
    }
}
