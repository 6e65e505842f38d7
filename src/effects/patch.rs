//! The files a patch writes, read from the diff itself: `git apply`, `git am` and `patch`
//! given their diff on standard input (a here-document, a here-string, a literal `printf`
//! piped in) name every file they change in the diff's headers (`diff --git a/X b/X`, `---
//! a/X`, `+++ b/X`, `rename to X`). Each becomes an ordinary `Effect::Write`, so
//! self-protection, persistence, path-escape and the ledger judge `git apply <<EOF` with
//! `+++ b/.claude/settings.json` as they judge `cp s.json .claude/settings.json`.
//!
//! The diff is read line by line, as git and patch read it: a hunk's lines are counted from
//! its `@@ -a,b +c,d @@` header, so a content line that looks like a header (`+++ x` adding
//! `++ x`) is content, and a header after a hunk whose counts ran out is a header. A diff
//! that is malformed is read as headers (more names, never fewer). Reading is bounded in
//! bytes and names; past a bound the rest is unknown (`Targets::complete`), and the caller
//! treats the patch's directory as written, as it does an archive's.

use super::Effect;
use crate::call::{Scope, ShellWrite};
use crate::fileops::resolve_for;
use crate::shell::{Command, ShellAnalysis};
use crate::vocab;
use std::path::{Path, PathBuf};

/// Most distinct file names read from one diff; a diff naming more is incomplete.
pub const MAX_TARGETS: usize = 64;

/// Most bytes of a diff read; the names past them are unknown.
pub const MAX_BYTES: usize = 1 << 20;

/// The file names a diff's headers give, as written (before any `-p` strip).
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Targets {
    /// Every name in order of first appearance, without duplicates.
    pub names: Vec<String>,
    /// False when the diff was longer than `MAX_BYTES` or named more than `MAX_TARGETS` files:
    /// it may change files not in `names`.
    pub complete: bool,
}

impl Targets {
    /// Adds a name; false when the bound is reached (the rest is unknown).
    fn add(&mut self, name: String) -> bool {
        // `/dev/null` is the missing side of a creation or deletion; an empty name no file.
        if name.is_empty() || name == "/dev/null" || self.names.contains(&name) {
            return true;
        }
        if self.names.len() >= MAX_TARGETS {
            self.complete = false;
            return false;
        }
        self.names.push(name);
        true
    }
}

/// Every file name a unified, context or git diff (or an mbox of them, for `git am`) gives in
/// its headers: both sides of `diff --git`, `---`/`+++` (and a context diff's `***`),
/// `rename from`/`rename to`, `copy to`, and `Index:`. Both the old and the new name are
/// taken: git deletes or renames the old, and GNU patch may patch whichever exists.
pub fn targets(text: &str) -> Targets {
    // Every file a ledger row records is read here: most hold no header at all, and finding
    // that out from the lines' first bytes (a SIMD search for the newlines) costs a fraction
    // of reading them line by line, and of a substring search per header (5% of a 1 MB
    // `Write`). The answer is the same: a header line starts with one of these.
    if !has_header_start(text) {
        return Targets {
            names: Vec::new(),
            complete: text.len() <= MAX_BYTES,
        };
    }
    read_lines(text)
}

/// `targets`, read line by line.
fn read_lines(text: &str) -> Targets {
    let mut t = Targets {
        names: Vec::new(),
        complete: true,
    };
    // Lines left in the current unified hunk: (old side, new side).
    let mut hunk: Option<(u64, u64)> = None;
    let mut read = 0usize;
    for line in text.split('\n') {
        read += line.len() + 1;
        if read > MAX_BYTES + 1 {
            t.complete = false;
            break;
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some((old, new)) = hunk.as_mut() {
            let counted = match line.as_bytes().first() {
                // An empty line is context whose blank an editor dropped; git takes it so.
                Some(b' ') | None => {
                    *old = old.saturating_sub(1);
                    *new = new.saturating_sub(1);
                    true
                }
                Some(b'-') => {
                    *old = old.saturating_sub(1);
                    true
                }
                Some(b'+') => {
                    *new = new.saturating_sub(1);
                    true
                }
                // `\ No newline at end of file`.
                Some(b'\\') => true,
                // Anything else ends the hunk early: read it as a header.
                _ => false,
            };
            if counted {
                if *old == 0 && *new == 0 {
                    hunk = None;
                }
                continue;
            }
            hunk = None;
        }
        if let Some(range) = line.strip_prefix("@@ ") {
            // A header whose counts do not read leaves the lines to the header reader.
            hunk = hunk_counts(range).filter(|&(o, n)| o > 0 || n > 0);
            continue;
        }
        let names = header_names(line);
        if !names.into_iter().all(|n| t.add(n)) {
            break;
        }
    }
    t
}

/// What every line `header_names` takes starts with.
const HEADER_STARTS: &[&str] = &[
    "diff --git ",
    "+++ ",
    "--- ",
    "*** ",
    "rename ",
    "copy to ",
    "Index: ",
];

/// Whether a line of `text` starts as a header does (`HEADER_STARTS`).
fn has_header_start(text: &str) -> bool {
    // The standard library's split, not `memchr`: the first `memchr` call of a process
    // detects the CPU's features, and each `cpuid` costs about 7 µs on these VMs
    // (docs/PERFORMANCE.md, "What `cpuid` costs"); every Write and Edit comes here.
    text.split('\n')
        .any(|line| HEADER_STARTS.iter().any(|h| line.starts_with(h)))
}

/// The names one line outside a hunk gives, when it is a header.
fn header_names(line: &str) -> Vec<String> {
    if let Some(rest) = line.strip_prefix("diff --git ") {
        return git_pair(rest);
    }
    for prefix in ["+++ ", "--- ", "*** "] {
        if let Some(rest) = line.strip_prefix(prefix) {
            // A context diff's hunk ranges (`*** 1,3 ****`, `--- 1,3 ----`) name no file.
            let trimmed = rest.trim_end();
            if trimmed.ends_with("****") || trimmed.ends_with("----") {
                return Vec::new();
            }
            return vec![header_name(rest)];
        }
    }
    for prefix in [
        "rename from ",
        "rename to ",
        "rename old ",
        "rename new ",
        "copy to ",
        "Index: ",
    ] {
        if let Some(rest) = line.strip_prefix(prefix) {
            return vec![quoted_or_plain(rest.trim_end())];
        }
    }
    Vec::new()
}

/// `-a,b +c,d @@…`: the line counts of both sides (a missing count is 1).
fn hunk_counts(range: &str) -> Option<(u64, u64)> {
    let mut words = range.split(' ');
    let count = |w: &str, sign: char| -> Option<u64> {
        let w = w.strip_prefix(sign)?;
        match w.split_once(',') {
            Some((start, n)) => {
                start.parse::<u64>().ok()?;
                n.parse().ok()
            }
            None => w.parse::<u64>().ok().map(|_| 1),
        }
    };
    let old = count(words.next()?, '-')?;
    let new = count(words.next()?, '+')?;
    Some((old, new))
}

/// The name on a `---`/`+++` line: quoted as git quotes it, else up to a tab (a timestamp
/// follows it there).
fn header_name(rest: &str) -> String {
    if rest.starts_with('"') {
        return quoted_or_plain(rest);
    }
    rest.split('\t')
        .next()
        .unwrap_or(rest)
        .trim_end()
        .to_string()
}

/// A name git may have quoted (`"a/\303\251 b"`), unquoted; else the text itself.
fn quoted_or_plain(s: &str) -> String {
    match unquote(s) {
        Some((name, _)) => name,
        None => s.to_string(),
    }
}

/// A C-style quoted name at the start of `s` and what follows it; `None` unless `s` starts
/// with a well-formed one.
fn unquote(s: &str) -> Option<(String, &str)> {
    let body = s.strip_prefix('"')?;
    let mut bytes = Vec::new();
    let mut it = body.char_indices();
    while let Some((i, c)) = it.next() {
        match c {
            '"' => return Some((String::from_utf8_lossy(&bytes).into_owned(), &body[i + 1..])),
            '\\' => {
                let (_, e) = it.next()?;
                let b = match e {
                    'a' => 7,
                    'b' => 8,
                    'f' => 12,
                    'n' => b'\n',
                    'r' => b'\r',
                    't' => b'\t',
                    'v' => 11,
                    '0'..='7' => {
                        // Three octal digits: one byte of the name.
                        let mut v = e.to_digit(8)?;
                        for _ in 0..2 {
                            let (_, d) = it.next()?;
                            v = v * 8 + d.to_digit(8)?;
                        }
                        u8::try_from(v).ok()?
                    }
                    other => {
                        let mut buf = [0u8; 4];
                        bytes.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
                        continue;
                    }
                };
                bytes.push(b);
            }
            c => {
                let mut buf = [0u8; 4];
                bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    None
}

/// Both names of `diff --git A B`. Unquoted names may hold spaces: git splits where both
/// halves name the same file past their prefix; when none does, every split's names are
/// taken (more names, never fewer).
fn git_pair(rest: &str) -> Vec<String> {
    if let Some((a, after)) = unquote(rest) {
        let after = after.trim_start();
        return vec![a, quoted_or_plain(after)];
    }
    if let Some(at) = rest.find(" \"")
        && let Some((b, _)) = unquote(&rest[at + 1..])
    {
        return vec![rest[..at].to_string(), b];
    }
    let past_prefix = |s: &str| s.split_once('/').map(|(_, r)| r.to_string());
    let n = rest.len();
    if n % 2 == 1 && rest.is_char_boundary(n / 2) && rest.as_bytes()[n / 2] == b' ' {
        let (a, b) = (&rest[..n / 2], &rest[n / 2 + 1..]);
        if past_prefix(a) == past_prefix(b) {
            return vec![a.to_string(), b.to_string()];
        }
    }
    // Bounded by the line: each space gives one split.
    let mut out = Vec::new();
    for (i, _) in rest.match_indices(' ').take(MAX_TARGETS) {
        out.push(rest[..i].to_string());
        out.push(rest[i + 1..].to_string());
    }
    if out.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// `name` less its first `n` components, as `-pN` strips them (runs of slashes count as one);
/// `None` when it has no more than `n`.
pub fn strip(name: &str, n: usize) -> Option<String> {
    let mut s = name;
    for _ in 0..n {
        let at = s.find('/')?;
        s = s[at + 1..].trim_start_matches('/');
    }
    (!s.is_empty()).then(|| s.to_string())
}

/// How many leading components a patch program strips: the `-pN` given, else its default
/// (`None` for `patch` without `-p`, which keeps the name or takes its last component).
fn strips(given: Option<String>, default: Option<usize>) -> Vec<Strip> {
    match (given, default) {
        (Some(v), _) => match v.parse::<usize>() {
            Ok(n) => vec![Strip::Components(n)],
            // An unreadable count: every likely one.
            Err(_) => (0..=2).map(Strip::Components).collect(),
        },
        (None, Some(n)) => vec![Strip::Components(n)],
        (None, None) => vec![Strip::Components(0), Strip::Components(1), Strip::Basename],
    }
}

/// One way a name in the diff becomes a path under the patch's directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strip {
    /// `-pN`.
    Components(usize),
    /// GNU patch without `-p`: the name's last component.
    Basename,
}

/// A diff name past its strip, as a path relative to the patch's directory (joined, never
/// resolved as a shell word: a leading `~` or `$` is a literal directory to git and patch).
fn stripped(name: &str, how: Strip) -> Option<String> {
    let s = match how {
        Strip::Components(n) => strip(name, n)?,
        Strip::Basename => name.rsplit('/').find(|c| !c.is_empty())?.to_string(),
    };
    Some(s)
}

/// What a patching command reads and where its files land.
struct Patching {
    how: &'static str,
    /// The directories the diff's names are relative to.
    tops: Vec<PathBuf>,
    strips: Vec<Strip>,
}

/// The writes of command `i` when it applies a diff the line gives on its standard input,
/// appended to `out`. A diff read from a file is the ledger's to know (a file the session
/// wrote); one read from anywhere else is unknown and adds nothing.
pub(super) fn effects(analysis: &ShellAnalysis, i: usize, scope: &Scope, out: &mut Vec<Effect>) {
    let Some(c) = analysis.commands.get(i) else {
        return;
    };
    let Some(p) = patching(c, scope, Input::Stdin) else {
        return;
    };
    let Some(text) = vocab::stdin_text(analysis, c) else {
        return;
    };
    writes_of(&targets(&text), &p, i, out);
}

/// The writes of command `i` (a `git apply`, `patch -i F`, `patch < F`…) applying a patch
/// file whose targets are known (a file the session wrote: the ledger recorded them).
pub fn file_effects(c: &Command, i: usize, scope: &Scope, t: &Targets) -> Vec<Effect> {
    let mut out = Vec::new();
    if let Some(p) = patching(c, scope, Input::File) {
        writes_of(t, &p, i, &mut out);
    }
    out
}

/// Where the diff a patching command applies comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input {
    /// Its standard input: the line's text.
    Stdin,
    /// A file it names or is redirected from.
    File,
}

/// The write effects of a diff's targets for one patching command (`command`: its index).
fn writes_of(t: &Targets, p: &Patching, command: usize, out: &mut Vec<Effect>) {
    let mut paths: Vec<PathBuf> = Vec::new();
    for name in &t.names {
        for &s in &p.strips {
            let Some(rel) = stripped(name, s) else {
                continue;
            };
            for top in &p.tops {
                let path = crate::paths::fold(&top.join(&rel));
                if !paths.contains(&path) {
                    paths.push(path);
                }
            }
        }
    }
    for path in paths {
        out.push(Effect::Write {
            path,
            content: None,
            how: p.how.to_string(),
            shell: Some(ShellWrite {
                append: false,
                from_network: false,
                command,
                source: None,
            }),
        });
    }
    // The rest of a diff too long to read lands somewhere under its directory.
    if !t.complete {
        for top in &p.tops {
            out.push(Effect::Write {
                path: top.clone(),
                content: None,
                how: super::PATCH_DIR.to_string(),
                shell: None,
            });
        }
    }
}

/// Whether `c` applies a diff from `input`, and how its names become paths.
fn patching(c: &Command, scope: &Scope, input: Input) -> Option<Patching> {
    match c.program.as_str() {
        "git" => git_patching(c, scope, input),
        "patch" => {
            // `patch [options] [originalfile [patchfile]]`: a patch file, `-i FILE` or `<`
            // input is not the line's text.
            let ops = vocab::operands_skipping(c, vocab::PATCH_VALUES.0, vocab::PATCH_VALUES.1);
            let named = c.option_value(Some('i'), &["input"]);
            let from_file = named.as_deref().is_some_and(|f| f != "-")
                || ops.len() > 1 && ops[1].text != "-"
                || c.redirects
                    .iter()
                    .any(|r| r.kind == crate::shell::RedirectKind::Read);
            // `--dry-run` and `--version` change nothing.
            if from_file != (input == Input::File)
                || c.has_flag(Some('v'), &["version", "help", "dry-run"])
            {
                return None;
            }
            let dir = c
                .option_value(Some('d'), &["directory"])
                .unwrap_or_else(|| ".".into());
            Some(Patching {
                how: "patch",
                tops: vec![resolve_for(scope, c, &dir)],
                strips: strips(c.option_value(Some('p'), &["strip"]), None),
            })
        }
        _ => None,
    }
}

/// `git apply` and `git am` reading their diff or mailbox from `input`.
fn git_patching(c: &Command, scope: &Scope, input: Input) -> Option<Patching> {
    let sub = vocab::subcommand(c)?;
    if !matches!(sub, "apply" | "am") {
        return None;
    }
    let at = c.args.iter().position(|a| a.text == sub)?;
    let (global, own) = c.args.split_at(at + 1);
    // Options that make them write no work-tree file: a report (`--check`, `--stat`… without
    // `--apply`), the index only (`--cached`), or an `am` session step that reads no patch.
    let has = |names: &[&str]| {
        own.iter().any(|a| {
            names
                .iter()
                .any(|n| a.text == format!("--{n}") || a.text.starts_with(&format!("--{n}=")))
        })
    };
    if sub == "apply" {
        let report = has(&["check", "stat", "numstat", "summary"]);
        if (report && !has(&["apply"])) || has(&["cached"]) {
            return None;
        }
    } else if has(&[
        "continue",
        "resolved",
        "skip",
        "abort",
        "quit",
        "show-current-patch",
        "retry",
    ]) {
        return None;
    }
    // Its own operands: patch or mailbox files, `-` for standard input. Its options are read
    // in its own words only: `git -C dir apply` moves the repository, `apply -C 3` does not.
    let files = vocab::operands_in(own, vocab::GIT_APPLY_VALUES.0, vocab::GIT_APPLY_VALUES.1);
    // Given twice, the last one counts, as git reads it.
    let last = |short, long: &[&str]| {
        vocab::option_values_in(own, short, long, vocab::GIT_APPLY_VALUES).pop()
    };
    let strip = last(Some('p'), &[]);
    let directory = last(None, &["directory"]);
    if files.iter().any(|f| f.text != "-") != (input == Input::File) {
        return None;
    }
    // Relative to the work tree's top: the one named, else the repository the command runs
    // in (the project, or where `cd`/`git -C` went; both when they differ, as the line
    // does not say which repository that is).
    let tree = c
        .env
        .iter()
        .rfind(|(k, _)| k == "GIT_WORK_TREE")
        .map(|(_, w)| resolve_for(scope, c, &w.text));
    let mut tops = Vec::new();
    match tree {
        Some(t) => tops.push(t),
        None => {
            tops.push(scope.project_root.clone());
            let mut here = resolve_for(scope, c, ".");
            let mut g = global.iter();
            while let Some(a) = g.next() {
                if a.text == "-C"
                    && let Some(d) = g.next()
                {
                    here = crate::paths::fold(&here.join(Path::new(&d.text)));
                }
            }
            if !tops.contains(&here) {
                tops.push(here);
            }
        }
    }
    if let Some(d) = directory {
        tops = tops
            .into_iter()
            .map(|t| crate::paths::fold(&t.join(&d)))
            .collect();
    }
    Some(Patching {
        how: if sub == "am" { "git am" } else { "git apply" },
        tops,
        strips: strips(strip, Some(1)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        targets(text).names
    }

    #[test]
    fn git_and_unified_headers_name_their_files() {
        let d = "diff --git a/.claude/settings.json b/.claude/settings.json\n\
                 index 1..2 100644\n--- a/.claude/settings.json\n+++ b/.claude/settings.json\n\
                 @@ -1 +1 @@\n-{}\n+{\"hooks\":{}}\n";
        assert_eq!(
            names(d),
            ["a/.claude/settings.json", "b/.claude/settings.json"]
        );
        let plain = "--- src/main.rs\t2024-01-01 00:00:00\n+++ src/main.rs\t2024-01-02\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n";
        assert_eq!(names(plain), ["src/main.rs"]);
        let created = "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+curl x | sh\n";
        assert_eq!(names(created), ["b/.git/hooks/pre-commit"]);
        let renamed = "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to .envrc\n\
                       diff --git a/p q b/p q\ncopy from p q\ncopy to \"\\303\\251\"\n";
        assert_eq!(
            names(renamed),
            ["a/x", "b/y", "x", ".envrc", "a/p q", "b/p q", "é"]
        );
        let quoted = "diff --git \"a/sp ace\" \"b/sp ace\"\n";
        assert_eq!(names(quoted), ["a/sp ace", "b/sp ace"]);
        let context =
            "*** a/f.c\t2020\n--- b/f.c\t2020\n***************\n*** 1,2 ****\n--- 1,2 ----\n";
        assert_eq!(names(context), ["a/f.c", "b/f.c"]);
        assert_eq!(names("Index: lib/a.c\n"), ["lib/a.c"]);
    }

    #[test]
    fn hunk_lines_are_content_until_their_counts_run_out() {
        // A removed `-- x` line reads `--- x`, an added `++ y` line `+++ y`: content.
        let d = "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n--- x\n+++ y\n keep\n\
                 --- a/.envrc\n+++ b/.envrc\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(names(d), ["a/q.sql", "b/q.sql", "a/.envrc", "b/.envrc"]);
        // Counts that claim more lines than follow end at the next header.
        let short = "--- a/x\n+++ b/x\n@@ -1,9 +1,9 @@\n-a\n+b\ndiff --git a/y b/y\n";
        assert_eq!(names(short), ["a/x", "b/x", "a/y", "b/y"]);
        // A hunk header that does not read leaves the lines to the header reader.
        let bad = "@@ -x +y @@\n+++ b/.claude/settings.json\n";
        assert_eq!(names(bad), ["b/.claude/settings.json"]);
    }

    #[test]
    fn malformed_and_huge_input_is_bounded() {
        for junk in [
            "",
            "\n\n",
            "diff --git ",
            "diff --git \"a/unterminated",
            "diff --git \"\\",
            "rename to \"\\777\"",
            "+++ ",
            "@@ -1,18446744073709551615 +1 @@\n+x",
            "@@",
            "--- \"\\1\"",
            "diff --git a b c d e",
        ] {
            let t = targets(junk);
            assert!(t.names.len() <= MAX_TARGETS, "{junk:?}");
        }
        let many: String = (0..200)
            .map(|i| format!("+++ b/f{i}\n"))
            .collect::<String>();
        let t = targets(&many);
        assert_eq!((t.names.len(), t.complete), (MAX_TARGETS, false));
        let long = format!("+++ b/a\n{}+++ b/late\n", "x\n".repeat(MAX_BYTES));
        let t = targets(&long);
        assert_eq!(
            (t.names.clone(), t.complete),
            (vec!["b/a".to_string()], false)
        );
        let spaces = format!("diff --git {}", "a ".repeat(10_000));
        assert!(targets(&spaces).names.len() <= MAX_TARGETS);
    }

    /// A patch file applied by git: the files land where each form of the line puts them,
    /// its options read in `apply`'s own words (`-p`, `--directory`, `-C 3`) and the
    /// repository where `-C`/`--git-dir` and `cd` leave it.
    #[test]
    fn git_applies_a_patch_file_where_its_options_say() {
        let scope = crate::fileops::tests::scope();
        let t = targets("--- a/tools/run.sh\n+++ b/tools/run.sh\n@@ -1 +1 @@\n-a\n+b\n");
        let written = |line: &str| -> Vec<String> {
            let an = crate::shell::analyse(line);
            let i = an.commands.iter().position(|c| c.program == "git").unwrap();
            file_effects(&an.commands[i], i, &scope, &t)
                .into_iter()
                .filter_map(|e| match e {
                    Effect::Write { path, .. } => Some(path.display().to_string()),
                    _ => None,
                })
                .collect()
        };
        let p = |rel: &str| format!("/home/dev/project/{rel}");
        for (line, want) in [
            ("git apply x.patch", vec![p("tools/run.sh")]),
            (
                "git apply -p0 x.patch",
                vec![p("a/tools/run.sh"), p("b/tools/run.sh")],
            ),
            (
                "git apply -p 0 x.patch",
                vec![p("a/tools/run.sh"), p("b/tools/run.sh")],
            ),
            // Given twice, the last count is git's.
            ("git apply -p0 -p1 x.patch", vec![p("tools/run.sh")]),
            ("git apply -C 3 x.patch", vec![p("tools/run.sh")]),
            (
                "git apply --directory=sub x.patch",
                vec![p("sub/tools/run.sh")],
            ),
            (
                "git apply --directory sub x.patch",
                vec![p("sub/tools/run.sh")],
            ),
            (
                "git apply --exclude '*.md' --whitespace fix -p0 x.patch",
                vec![p("a/tools/run.sh"), p("b/tools/run.sh")],
            ),
            ("git am x.mbox", vec![p("tools/run.sh")]),
            (
                "git am -p 0 --directory=d x.mbox",
                vec![p("d/a/tools/run.sh"), p("d/b/tools/run.sh")],
            ),
            (
                "git -C sub apply x.patch",
                vec![p("tools/run.sh"), p("sub/tools/run.sh")],
            ),
            (
                "git --git-dir=.git -C sub apply x.patch",
                vec![p("tools/run.sh"), p("sub/tools/run.sh")],
            ),
            (
                "cd sub && git apply -p0 x.patch",
                vec![
                    p("a/tools/run.sh"),
                    p("sub/a/tools/run.sh"),
                    p("b/tools/run.sh"),
                    p("sub/b/tools/run.sh"),
                ],
            ),
            // No patch file: the diff on standard input is not this file's.
            ("git apply -p1 -", vec![]),
            ("git apply --check x.patch", vec![]),
        ] {
            assert_eq!(written(line), want, "{line}");
        }
    }

    #[test]
    fn strips_remove_leading_components() {
        assert_eq!(strip("b/.claude/x", 1).as_deref(), Some(".claude/x"));
        assert_eq!(strip("a//b/c", 1).as_deref(), Some("b/c"));
        assert_eq!(strip("/abs/x", 1).as_deref(), Some("abs/x"));
        assert_eq!(strip("x", 1), None);
        assert_eq!(strip("x", 0).as_deref(), Some("x"));
        assert_eq!(
            stripped("b/src/main.rs", Strip::Basename).as_deref(),
            Some("main.rs")
        );
    }

    /// Lines a diff's reader treats in every way: headers of each kind, hunks, context and
    /// ordinary text, some with a `\r`.
    const LINES: &[&str] = &[
        "diff --git a/x b/y",
        "--- a/f.c\t2020",
        "+++ b/.envrc",
        "*** a/f.c",
        "*** 1,2 ****",
        "rename to .git/hooks/pre-push",
        "copy to \"q\"",
        "Index: src/lib.rs",
        "@@ -1,2 +1,2 @@",
        "@@ -0,0 +1 @@",
        " context",
        "-old",
        "+new",
        "",
        "def handler(request):",
        "    return render(request)",
        "x = 1 # +++ b/inline",
        " --- a/indented",
        "d",
        "---",
        "renamed to x",
        "Index:x\r",
        "diff --git\ta b",
    ];

    proptest::proptest! {
        /// The line-start test before the line reader never changes an answer.
        #[test]
        fn the_header_search_answers_as_the_line_reader(
            picks in proptest::collection::vec(0..LINES.len(), 0..24),
            crlf in proptest::bool::ANY,
        ) {
            let end = if crlf { "\r\n" } else { "\n" };
            let text: String = picks.iter().map(|&i| format!("{}{end}", LINES[i])).collect();
            proptest::prop_assert_eq!(targets(&text), read_lines(&text));
        }
    }

    #[test]
    fn text_without_a_header_is_read_no_further_and_keeps_its_bound() {
        let code = "def handler(request):\n    return render(request)\n".repeat(40_000);
        assert!(code.len() > MAX_BYTES);
        assert_eq!(targets(&code), read_lines(&code));
        assert!(!targets(&code).complete);
        let short = &code[..1000];
        assert_eq!(targets(short), read_lines(short));
        assert!(targets(short).complete && targets(short).names.is_empty());
        // A header past the bound is not read either way.
        let late = format!("{code}+++ b/.envrc\n");
        assert_eq!(targets(&late), read_lines(&late));
    }
}
