//! The modules a script loads from the files beside it: Python's `import helper` and `from
//! pkg import util` (the script's directory is first on `sys.path`), Node's `require('./lib')`
//! and `import … from './lib.mjs'`, Ruby's `require_relative 'helper'`. A run of the script
//! runs them too, so the ledger judges those the session wrote as part of the run: a payload
//! moved into a helper module is still the script's.
//!
//! Read line by line, not by the scanner's patterns: only the module names are wanted, and
//! a name that is not a local file costs one lookup that finds nothing.

use super::Language;
use std::path::{Path, PathBuf};

/// Most candidate files one script is taken to load (a file of thousands of imports is read
/// up to here; the rest are not looked up).
const MAX_MODULES: usize = 96;

/// The files `script`, in `language`, may load from beside it, as candidate paths (a module
/// name has several: `helper.py` or `helper/__init__.py`), joined to its directory as written
/// (`..` left for the caller's resolution); the ledger looks each up.
pub fn local_modules(language: Language, script: &Path, text: &str) -> Vec<PathBuf> {
    let Some(dir) = script.parent() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in text.lines() {
        if out.len() >= MAX_MODULES {
            break;
        }
        let line = line.trim();
        match language {
            Language::Python => python(dir, line, &mut out),
            Language::Node => {
                for spec in node_specifiers(line) {
                    node(dir, spec, &mut out);
                }
            }
            Language::Ruby => ruby(dir, line, &mut out),
            _ => return Vec::new(),
        }
    }
    out.truncate(MAX_MODULES);
    out
}

/// `import a.b, c as d` and `from a.b import c, d` (and `from . import x`, `from .m import
/// y`): each dotted name as a module file or a package's `__init__.py`, and for `from`, each
/// imported name as a submodule of it.
fn python(dir: &Path, line: &str, out: &mut Vec<PathBuf>) {
    let module = |dotted: &str, out: &mut Vec<PathBuf>| {
        let rel = dotted.trim_start_matches('.').replace('.', "/");
        if rel.is_empty()
            || !rel
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '/')
        {
            return;
        }
        // Importing `a.b` runs `a/__init__.py` first.
        let mut package = dir.to_path_buf();
        let parts: Vec<&str> = rel.split('/').collect();
        for part in &parts[..parts.len() - 1] {
            package.push(part);
            out.push(package.join("__init__.py"));
        }
        out.push(dir.join(format!("{rel}.py")));
        out.push(dir.join(&rel).join("__init__.py"));
    };
    if let Some(rest) = line.strip_prefix("import ") {
        for part in rest.split(',') {
            let name = part.split_whitespace().next().unwrap_or("");
            module(name, out);
        }
    } else if let Some(rest) = line.strip_prefix("from ")
        && let Some((from, names)) = rest.split_once(" import ")
    {
        let from = from.trim();
        let base = from.trim_start_matches('.');
        if !base.is_empty() {
            module(base, out);
        }
        for name in names
            .trim_matches(|c| c == '(' || c == ')' || c == ' ')
            .split(',')
        {
            let name = name.split_whitespace().next().unwrap_or("");
            if name.is_empty() || name == "*" {
                continue;
            }
            let sub = if base.is_empty() {
                name.to_string()
            } else {
                format!("{base}.{name}")
            };
            module(&sub, out);
        }
    }
}

/// The relative specifiers of a line's `require('./x')`, `import … from './x'`, `import
/// './x'`, `import('./x')` and `export … from './x'`.
fn node_specifiers(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for quote in ['\'', '"', '`'] {
        let mut rest = line;
        while let Some(at) = rest.find(quote) {
            let after = &rest[at + 1..];
            let Some(end) = after.find(quote) else {
                break;
            };
            let spec = &after[..end];
            let before = rest[..at].trim_end();
            let loads = before.ends_with("require(")
                || before.ends_with("import(")
                || before.ends_with("from")
                || before.ends_with("import");
            if loads && (spec.starts_with("./") || spec.starts_with("../")) {
                out.push(spec);
            }
            rest = &after[end + 1..];
        }
    }
    out
}

/// A relative specifier as Node and bundlers resolve it: the file, with each extension, or
/// the directory's index.
fn node(dir: &Path, spec: &str, out: &mut Vec<PathBuf>) {
    const EXTENSIONS: [&str; 6] = ["js", "mjs", "cjs", "ts", "mts", "jsx"];
    let base = dir.join(spec.strip_prefix("./").unwrap_or(spec));
    out.push(base.clone());
    if base
        .extension()
        .is_some_and(|e| EXTENSIONS.iter().any(|x| e == *x) || e == "tsx" || e == "cts")
    {
        return;
    }
    for ext in EXTENSIONS {
        let mut p = base.clone().into_os_string();
        p.push(format!(".{ext}"));
        out.push(PathBuf::from(p));
    }
    out.push(base.join("index.js"));
    out.push(base.join("index.ts"));
}

/// `require_relative 'helper'` (beside the file) and `require './helper'`, `load
/// './helper.rb'`.
fn ruby(dir: &Path, line: &str, out: &mut Vec<PathBuf>) {
    let (relative, rest) = if let Some(r) = line.strip_prefix("require_relative") {
        (true, r)
    } else if let Some(r) = line
        .strip_prefix("require")
        .or_else(|| line.strip_prefix("load"))
    {
        (false, r)
    } else {
        return;
    };
    let name = rest
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim_matches(|c| c == '\'' || c == '"');
    if name.is_empty() || !(relative || name.starts_with("./") || name.starts_with("../")) {
        return;
    }
    let base = dir.join(name.strip_prefix("./").unwrap_or(name));
    if name.ends_with(".rb") {
        out.push(base);
    } else {
        let mut p = base.into_os_string();
        p.push(".rb");
        out.push(PathBuf::from(p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(language: Language, text: &str) -> Vec<String> {
        local_modules(language, Path::new("/p/main.x"), text)
            .into_iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn python_imports_name_module_files_and_packages_beside_the_script() {
        let got = of(
            Language::Python,
            "import os, helper as h\nfrom pkg.util import clean, (x)\nfrom . import sib\nfrom .rel import y\nx = 'import fake'\n",
        );
        for want in [
            "/p/helper.py",
            "/p/helper/__init__.py",
            "/p/os.py",
            "/p/pkg/util.py",
            "/p/pkg/util/clean.py",
            "/p/pkg/__init__.py",
            "/p/sib.py",
            "/p/rel.py",
            "/p/rel/y.py",
        ] {
            assert!(got.contains(&want.to_string()), "{want}: {got:?}");
        }
        assert!(!got.iter().any(|g| g.contains("fake")), "{got:?}");
    }

    #[test]
    fn node_relative_specifiers_only() {
        let got = of(
            Language::Node,
            "const clean = require('./lib');\nimport { c } from \"../shared/x.mjs\";\nimport './side';\nconst fs = require('fs');\nconst s = 'see ./docs';\nconst m = await import(`./dyn.js`);\n",
        );
        for want in [
            "/p/lib.js",
            "/p/lib/index.js",
            "/p/../shared/x.mjs",
            "/p/side.ts",
            "/p/dyn.js",
        ] {
            assert!(got.contains(&want.to_string()), "{want}: {got:?}");
        }
        assert!(
            !got.iter().any(|g| g.contains("fs") || g.contains("docs")),
            "{got:?}"
        );
    }

    #[test]
    fn ruby_relative_requires_only() {
        let got = of(
            Language::Ruby,
            "require 'fileutils'\nrequire_relative 'helper'\nrequire './lib/x.rb'\nload '../y.rb'\n",
        );
        assert_eq!(got, ["/p/helper.rb", "/p/lib/x.rb", "/p/../y.rb"]);
    }

    #[test]
    fn other_languages_and_bounds() {
        assert!(of(Language::Shell, "import x").is_empty());
        let many: String = (0..500).map(|i| format!("import m{i}\n")).collect();
        assert_eq!(of(Language::Python, &many).len(), MAX_MODULES);
    }
}
