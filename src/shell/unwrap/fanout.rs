//! Fan-out runners: GNU `parallel`, `sem` and `xargs` run a command once per input item. The
//! command is analysed with the items it is given when they are literal (`::: a b`, `echo a |`,
//! `printf 'a\0'`), and with an unknown argument (and `args_from_stdin`) otherwise, so the rules
//! judge `rm -rf /` whether it is typed or fanned out.

use super::super::escapes::{Dialect, unescape};
use super::super::parse::{Analyser, Ctx, Invocation};
use super::super::words::Expanded;
use super::super::{ShellFinding, Word};
use super::{Flow, Wrap, promote, skip_options};

/// Most input items analysed one by one; past this they count as unknown.
const MAX_ITEMS: usize = 64;

/// Most bytes of literal input text split into items.
const MAX_FED_BYTES: usize = 64 * 1024;

/// Stands for an input item that is not known statically: an unset variable, so the word it
/// lands in is dynamic. Written bare within a word already split and unquoted (xargs' replace
/// string), double-quoted where it is a word of its own in composed shell text.
const UNKNOWN_WORD: &str = "$__palisade_input_item";

/// `parallel` options that take a value as the next word.
const PARALLEL_SHORT: &str = "jSaIdEnNLPsC";
const PARALLEL_LONG: &[&str] = &[
    "--jobs",
    "--sshlogin",
    "--arg-file",
    "--colsep",
    "--delimiter",
    "--max-args",
    "--max-lines",
    "--max-replace-args",
    "--timeout",
    "--joblog",
    "--results",
    "--res",
    "--workdir",
    "--wd",
    "--delay",
    "--halt",
    "--retries",
    "--basefile",
    "--bf",
    "--env",
    "--tmpdir",
    "--load",
    "--memfree",
    "--nice",
    "--sshloginfile",
    "--slf",
    "--transferfile",
    "--tf",
    "--return",
    "--tagstring",
    "--rpl",
    "--eof",
    "--id",
    "--semaphorename",
    "--semaphoretimeout",
    "--st",
    "--block",
    "--header",
    "--limit",
    "--termseq",
    "--shellquote",
];

/// One input item: its text, and whether it is known statically.
#[derive(Clone)]
struct Item {
    text: String,
    known: bool,
    glob: bool,
}

impl Item {
    fn literal(text: &str) -> Item {
        Item {
            text: text.to_string(),
            known: true,
            glob: false,
        }
    }

    fn of(w: &Expanded) -> Item {
        Item {
            text: w.text().to_string(),
            known: w.is_static() && w.substitutions.is_none(),
            glob: w.word.glob,
        }
    }

    /// The item as a shell word in the command `parallel` composes (it quotes what it inserts).
    fn as_word(&self) -> String {
        if !self.known {
            // Quoted as `parallel` quotes an item: one word, never split or globbed.
            format!("\"{UNKNOWN_WORD}\"")
        } else if self.glob || self.text.starts_with('~') && !self.text.contains(['\'', ' ']) {
            // Expanded by the outer shell before the runner sees it.
            self.text.clone()
        } else {
            quote(&self.text)
        }
    }
}

/// Single-quotes `s` for a shell.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// How `xargs` splits its input.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Split {
    Blanks,
    Lines,
    Delim(char),
}

fn split_items(text: &str, split: Split) -> Vec<String> {
    match split {
        Split::Delim(d) => {
            let mut v: Vec<String> = text.split(d).map(str::to_string).collect();
            if v.last().is_some_and(|s| s.is_empty()) {
                v.pop();
            }
            v
        }
        Split::Lines => text
            .lines()
            .map(|l| l.trim_start().to_string())
            .filter(|l| !l.is_empty())
            .collect(),
        Split::Blanks => {
            // `xargs` honours quotes and backslashes in its default mode.
            let mut out = Vec::new();
            let mut cur = String::new();
            let mut any = false;
            let mut quote: Option<char> = None;
            let mut chars = text.chars();
            while let Some(c) = chars.next() {
                match (quote, c) {
                    (Some(q), c) if c == q => quote = None,
                    (Some(_), c) => cur.push(c),
                    (None, '\'' | '"') => {
                        quote = Some(c);
                        any = true;
                    }
                    (None, '\\') => {
                        if let Some(n) = chars.next() {
                            cur.push(n);
                            any = true;
                        }
                    }
                    (None, c) if c.is_whitespace() => {
                        if any || !cur.is_empty() {
                            out.push(std::mem::take(&mut cur));
                        }
                        any = false;
                    }
                    (None, c) => cur.push(c),
                }
            }
            if any || !cur.is_empty() {
                out.push(cur);
            }
            out
        }
    }
}

/// The path `mktemp` creates, with its `X`s left as written: a fresh name under the temp
/// directory (`-t`, `-p DIR`, `--tmpdir[=DIR]`, or none), or the template as given.
fn mktemp_path(c: &crate::shell::Command) -> Option<String> {
    if c.args.iter().any(|a| a.dynamic) {
        return None;
    }
    let mut dir: Option<String> = None;
    let mut in_tmp = false;
    let mut template: Option<String> = None;
    let mut i = 0;
    while let Some(a) = c.args.get(i) {
        let t = a.text.as_str();
        if t == "-p" {
            dir = c.args.get(i + 1).map(|w| w.text.clone());
            i += 2;
            continue;
        }
        if let Some(d) = t.strip_prefix("--tmpdir") {
            dir = Some(d.strip_prefix('=').unwrap_or("/tmp").to_string());
        } else if t == "-t" {
            in_tmp = true;
        } else if t.starts_with('-') {
            if t.starts_with("--suffix")
                || t == "-d"
                || t == "-q"
                || t == "-u"
                || t == "--directory"
            {
                // Flags that do not move the file.
            } else if !t.starts_with("--") && t.contains('p') {
                return None;
            }
        } else {
            template = Some(t.to_string());
        }
        i += 1;
    }
    let template = template.unwrap_or_else(|| "tmp.XXXXXXXXXX".to_string());
    let base = match (dir, in_tmp || !template.contains('/')) {
        (Some(d), _) => format!("{}/{template}", d.trim_end_matches('/')),
        (None, _) if template.contains('/') => template,
        (None, true) if in_tmp || c.args.iter().all(|a| a.text.starts_with('-')) => {
            format!("/tmp/{template}")
        }
        // `mktemp foo.XXXX`: created in the current directory.
        (None, _) => template,
    };
    Some(base)
}

impl Analyser<'_> {
    /// The text a pipeline stage writes when it is literal: `echo`, `printf`, `cat <<EOF`.
    pub(in crate::shell) fn fed_text(&self, index: Option<usize>) -> Option<String> {
        let index = index?;
        let c = self.out.commands.get(index)?;
        if c.program == "mktemp" {
            return mktemp_path(c).map(|p| format!("{p}\n"));
        }
        self.piped_script(index)
            .filter(|t| t.len() <= MAX_FED_BYTES)
    }

    /// `xargs [options] CMD ARGS…`: CMD runs with the input items as extra arguments, or in
    /// place of the replace string (`-I {}`), once per item or per group of `-n N`.
    pub(super) fn run_xargs(&mut self, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let value_long = [
            "--arg-file",
            "--delimiter",
            "--eof",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ];
        let i = skip_options(&inv.args, 0, "adEILnPs", &value_long);
        let mut replace: Option<String> = None;
        let mut split = Split::Blanks;
        let mut per: Option<usize> = None;
        let mut from_file = false;
        for (k, a) in inv.args[..i.min(inv.args.len())].iter().enumerate() {
            let t = a.text();
            let next = inv.args.get(k + 1).map(|w| w.text().to_string());
            if t == "-I" {
                replace = next;
            } else if let Some(r) = t.strip_prefix("--replace") {
                replace = Some(r.strip_prefix('=').unwrap_or("{}").to_string());
            } else if let Some(r) = t.strip_prefix("-i") {
                replace = Some(if r.is_empty() { "{}" } else { r }.to_string());
            } else if let Some(r) = t.strip_prefix("-I") {
                replace = Some(r.to_string());
            } else if matches!(t, "-0" | "--null") {
                split = Split::Delim('\0');
            } else if t == "-d" || t.starts_with("--delimiter") || t.starts_with("-d") {
                let d = t
                    .strip_prefix("--delimiter=")
                    .or_else(|| t.strip_prefix("-d").filter(|s| !s.is_empty()))
                    .map(str::to_string)
                    .or(next);
                // xargs reads C's escapes (`\n`, `\t`, `\0`, octal, `\xHH`), as a format does.
                split = match d.as_deref().map(|d| unescape(d, Dialect::Format)) {
                    Some(d) if d.chars().count() == 1 => {
                        Split::Delim(d.chars().next().unwrap_or('\n'))
                    }
                    _ => split,
                };
            } else if t == "-n" || t.starts_with("--max-args") || t.starts_with("-n") {
                let n = t
                    .strip_prefix("--max-args=")
                    .or_else(|| t.strip_prefix("-n").filter(|s| !s.is_empty()))
                    .map(str::to_string)
                    .or(next);
                per = n.and_then(|n| n.parse().ok()).filter(|n| *n > 0);
            } else if t.starts_with("-L") || t.starts_with("-l") || t.starts_with("--max-lines") {
                split = if split == Split::Blanks {
                    Split::Lines
                } else {
                    split
                };
            } else if t == "-a" || t.starts_with("--arg-file") {
                from_file = true;
            }
        }
        let replace = replace.filter(|r| !r.is_empty());
        if replace.is_some() && split == Split::Blanks {
            split = Split::Lines;
        }
        if !promote(inv, i) {
            return Flow::Emit;
        }
        // `xargs rm -rf <<< '/'`: a literal here-string or here-document is the input too.
        let here = inv
            .stdin_text
            .as_ref()
            .filter(|t| t.is_static() && t.substitutions.is_none())
            .map(|t| t.text().to_string());
        let fed = if from_file {
            None
        } else {
            self.fed_text(inv.stdin_from)
                .or(here)
                .filter(|t| t.len() <= MAX_FED_BYTES)
                .map(|t| split_items(&t, split))
                .filter(|items| !items.is_empty() && items.len() <= MAX_ITEMS)
        };
        let Some(items) = fed else {
            // The replace string stands for a word read from the input, not known until it
            // runs: it is written as a variable not set, as `parallel`'s items are, so a path
            // around it is read as the glob with `*` in its place as `cat ~/.ssh/$K`
            // is (`xargs -I{} cat ~/.ssh/{}` reads `~/.ssh/*`), and a delete of it is a
            // target not known in advance.
            if let Some(r) = &replace {
                for a in inv.args.iter_mut().chain(std::iter::once(&mut inv.program)) {
                    if a.text().contains(r.as_str()) {
                        a.word.text = a.word.text.replace(r.as_str(), UNKNOWN_WORD);
                        a.word.dynamic = true;
                    }
                }
            }
            return Flow::Inner(Wrap {
                args_from_stdin: true,
                ..Wrap::new("xargs")
            });
        };
        let groups: Vec<Vec<String>> = match (&replace, per) {
            (Some(_), _) => items.into_iter().map(|i| vec![i]).collect(),
            (None, Some(n)) => items.chunks(n).map(<[String]>::to_vec).collect(),
            (None, None) => vec![items],
        };
        let mut c = ctx.clone();
        c.depth += 1;
        c.wrappers.push("xargs".to_string());
        let mut last = None;
        for group in groups {
            let mut child = inv.clone();
            // xargs consumed its stdin; the command's own stdin is not the pipe.
            child.stdin_from = None;
            match &replace {
                Some(r) => {
                    for a in child
                        .args
                        .iter_mut()
                        .chain(std::iter::once(&mut child.program))
                    {
                        if a.text().contains(r.as_str()) {
                            a.word.text = a.word.text.replace(r.as_str(), &group[0]);
                        }
                    }
                }
                None => child
                    .args
                    .extend(group.iter().map(|g| Expanded::literal(g.as_str()))),
            }
            last = self.run(child, &c).or(last);
        }
        Flow::Done(last)
    }

    /// `parallel [options] CMD… ::: items ::: items`, `:::: files`, `-a file` or stdin, and
    /// `sem [options] CMD…`: the command is composed as a shell line per item and analysed.
    pub(super) fn run_parallel(&mut self, name: &str, inv: &mut Invocation, ctx: &Ctx) -> Flow {
        let i = skip_options(&inv.args, 0, PARALLEL_SHORT, PARALLEL_LONG);
        let opts: Vec<String> = inv.args[..i.min(inv.args.len())]
            .iter()
            .map(|a| a.text().to_string())
            .collect();
        let has = |names: &[&str]| opts.iter().any(|o| names.contains(&o.as_str()));
        let sem = name == "sem" || has(&["--semaphore"]);
        let pipe = has(&["--pipe", "--pipepart", "--spreadstdin"]);
        let quote_words = has(&["-q", "--quote"]);
        let from_file = opts
            .iter()
            .any(|o| o == "-a" || o.starts_with("--arg-file") || o.starts_with("-a"));
        let null = has(&["-0", "--null"]);
        let replace = opts.iter().enumerate().find_map(|(k, o)| {
            if o == "-I" {
                opts.get(k + 1).cloned()
            } else {
                o.strip_prefix("--replace=")
                    .or_else(|| o.strip_prefix("-I").filter(|s| !s.is_empty()))
                    .map(str::to_string)
            }
        });
        let is_marker = |t: &str| matches!(t, ":::" | "::::" | ":::+" | "::::+");
        let end = inv.args[i.min(inv.args.len())..]
            .iter()
            .position(|a| is_marker(a.text()))
            .map_or(inv.args.len(), |p| p + i);
        let command: Vec<Expanded> = inv.args[i.min(end)..end].to_vec();
        // Each source: its items, or `None` when they are not known.
        let mut sources: Vec<Option<Vec<Item>>> = Vec::new();
        let mut k = end;
        while k < inv.args.len() {
            let marker = inv.args[k].text().to_string();
            let mut words = Vec::new();
            k += 1;
            while k < inv.args.len() && !is_marker(inv.args[k].text()) {
                words.push(Item::of(&inv.args[k]));
                k += 1;
            }
            if marker.starts_with("::::") {
                sources.extend(words.iter().map(|_| None));
            } else {
                sources.push(Some(words));
            }
        }
        if sources.is_empty() && !sem && !pipe {
            let fed = if from_file {
                None
            } else {
                let split = if null {
                    Split::Delim('\0')
                } else {
                    Split::Lines
                };
                self.fed_text(inv.stdin_from)
                    .filter(|t| t.len() <= MAX_FED_BYTES)
                    .map(|t| split_items(&t, split))
            };
            sources.push(fed.map(|items| items.iter().map(|s| Item::literal(s)).collect()));
        }
        let total: usize = sources.iter().flatten().map(Vec::len).sum();
        if total > MAX_ITEMS {
            sources = sources.iter().map(|_| None).collect();
        }
        // One row per item of each source, the other sources at their first item.
        let first: Vec<Item> = sources
            .iter()
            .map(|s| match s {
                Some(v) if !v.is_empty() => v[0].clone(),
                Some(_) => Item::literal(""),
                None => Item {
                    text: String::new(),
                    known: false,
                    glob: false,
                },
            })
            .collect();
        let mut rows: Vec<Vec<Item>> = Vec::new();
        for (s, src) in sources.iter().enumerate() {
            for item in src.iter().flatten() {
                let mut row = first.clone();
                row[s] = item.clone();
                rows.push(row);
            }
        }
        if rows.is_empty() {
            rows.push(first);
        }
        let unknown = rows.iter().flatten().any(|it| !it.known);
        let label = name.to_string();
        let mut last = None;
        if command.is_empty() {
            if sem || pipe {
                return Flow::Emit;
            }
            // `parallel ::: 'cmd1' 'cmd2'`, `cat jobs | parallel`: the items are command lines.
            if unknown {
                self.finding(ShellFinding::DynamicScript {
                    wrapper: label,
                    text: "(commands from its input)".to_string(),
                });
                return Flow::Emit;
            }
            for row in &rows {
                let line: Vec<&str> = row.iter().map(|it| it.text.as_str()).collect();
                let sctx = self.fanout_ctx(ctx, &label, inv, pipe, false);
                last = self
                    .run_script(name, &label, &Expanded::literal(line.join(" ")), sctx)
                    .or(last);
            }
            return Flow::Done(last);
        }
        let dynamic = command.iter().any(|w| w.word.dynamic);
        let mut subs: Option<Vec<String>> = None;
        for w in &command {
            if let Some(s) = &w.substitutions {
                subs.get_or_insert_with(Vec::new).extend(s.iter().cloned());
            }
        }
        let join = |quoted: bool| {
            let words: Vec<String> = command
                .iter()
                .map(|w| {
                    let t = match &replace {
                        Some(r) => w.text().replace(r.as_str(), "{}"),
                        None => w.text().to_string(),
                    };
                    if quoted { quote(&t) } else { t }
                })
                .collect();
            words.join(" ")
        };
        // `parallel` joins its words into one shell line; `-q` quotes each. A word with blanks
        // (`sh -c 'rm -rf {}'`) is read both ways, so either reading's effect is judged.
        let mut templates = vec![join(quote_words)];
        if !quote_words
            && command
                .iter()
                .any(|w| w.text().contains(char::is_whitespace))
        {
            templates.push(join(true));
        }
        for template in &templates {
            for row in rows.iter().take(if sem || pipe { 1 } else { rows.len() }) {
                let text = if sem || pipe {
                    template.clone()
                } else {
                    fill(template, row)
                };
                let script = Expanded {
                    word: Word {
                        text,
                        dynamic,
                        glob: false,
                    },
                    substitutions: subs.clone(),
                };
                let sctx = self.fanout_ctx(ctx, &label, inv, pipe, unknown && !sem && !pipe);
                last = self.run_script(name, &label, &script, sctx).or(last);
            }
        }
        Flow::Done(last)
    }

    fn fanout_ctx(
        &self,
        ctx: &Ctx,
        label: &str,
        inv: &Invocation,
        pipe: bool,
        unknown: bool,
    ) -> Ctx {
        let mut c = self.script_ctx(ctx, label, inv);
        if !pipe {
            // The input is consumed as items, not handed to the command.
            c.stdin_from = None;
        }
        c.args_from_stdin |= unknown;
        c
    }
}

/// Fills GNU parallel's replacement strings (`{}`, `{.}`, `{/}`, `{//}`, `{/.}`, `{#}`, `{%}`,
/// `{N}`…) with the row's items; appends them when the template has none.
fn fill(template: &str, row: &[Item]) -> String {
    let mut out = String::new();
    let mut used = false;
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let inner = &after[..close];
        let digits = inner.len() - inner.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let modifier = &inner[digits..];
        let index = inner[..digits].parse::<usize>().ok();
        if !matches!(modifier, "" | "." | "/" | "//" | "/." | "#" | "%") {
            out.push('{');
            rest = after;
            continue;
        }
        used = true;
        if matches!(modifier, "#" | "%") {
            out.push('1');
        } else {
            let items: Vec<&Item> = match index {
                Some(n) => row.get(n.saturating_sub(1)).into_iter().collect(),
                None => row.iter().collect(),
            };
            let words: Vec<String> = items
                .into_iter()
                .map(|it| {
                    Item {
                        text: modify(&it.text, modifier),
                        ..it.clone()
                    }
                    .as_word()
                })
                .collect();
            out.push_str(&words.join(" "));
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    if !used {
        for it in row {
            out.push(' ');
            out.push_str(&it.as_word());
        }
    }
    out
}

/// `{.}` strips the extension, `{/}` keeps the basename, `{//}` the directory, `{/.}` both.
fn modify(path: &str, modifier: &str) -> String {
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let noext = |p: &str| match p.rfind('.') {
        Some(i) if i > 0 && !p[i..].contains('/') => p[..i].to_string(),
        _ => p.to_string(),
    };
    match modifier {
        "." => noext(path),
        "/" => base(path),
        "//" => match path.rfind('/') {
            Some(0) => "/".to_string(),
            Some(i) => path[..i].to_string(),
            None => ".".to_string(),
        },
        "/." => noext(&base(path)),
        _ => path.to_string(),
    }
}
