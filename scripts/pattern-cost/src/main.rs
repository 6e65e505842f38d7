//! Times compiling (and matching once) the scanner patterns that four modules as an agent
//! writes them make palisade compile (`patterns.txt`, one per line, as `Pattern::regex` hands
//! them to the regex crate), against the regex engine's lighter configurations and
//! `regex-lite`. Best of 20 rounds in one warm process: a hook process pays more (cold
//! caches, first-touch faults), so read the ratios.

use regex_automata::meta;
use regex_automata::nfa::thompson;
use std::hint::black_box;
use std::time::Instant;

/// The patterns, and a module they are matched against.
const PATTERNS: &str = include_str!("../patterns.txt");
const MODULE: &str = include_str!("../module.py");

/// Prints the best of 20 runs of `f` over all the patterns, and per pattern.
fn time(name: &str, patterns: &[&str], mut f: impl FnMut(&str)) {
    let mut best = f64::MAX;
    for _ in 0..20 {
        let t = Instant::now();
        patterns.iter().for_each(|p| f(p));
        best = best.min(t.elapsed().as_secs_f64());
    }
    let per = best * 1e6 / patterns.len() as f64;
    println!("{name:44} {per:7.1} µs a pattern");
}

fn main() {
    let patterns: Vec<&str> = PATTERNS.lines().filter(|l| !l.is_empty()).collect();
    let sized = |kb: usize| MODULE.repeat(kb * 1024 / MODULE.len() + 1)[..kb * 1024].to_string();
    let (two_kb, three_kb, ten_kb) = (sized(2), sized(3), sized(10));
    let long = MODULE.repeat(200 * 1024 / MODULE.len() + 1);
    println!(
        "{} patterns; module {} bytes; rustc's release profile\n",
        patterns.len(),
        MODULE.len()
    );
    time("regex: compile and match the module", &patterns, |p| {
        black_box(regex::Regex::new(p).unwrap().is_match(MODULE));
    });
    time("regex: compile only", &patterns, |p| {
        black_box(regex::Regex::new(p).unwrap());
    });
    time("regex-syntax: parse only", &patterns, |p| {
        black_box(regex_syntax::Parser::new().parse(p).unwrap());
    });
    time("thompson: the forward NFA only", &patterns, |p| {
        black_box(thompson::Compiler::new().build(p).unwrap());
    });
    for (name, config) in [
        ("meta: as regex builds it", meta::Config::new()),
        (
            "meta: without the lazy DFA",
            meta::Config::new().hybrid(false),
        ),
        (
            "meta: without the prefilter",
            meta::Config::new().auto_prefilter(false),
        ),
    ] {
        time(&format!("{name}, and match"), &patterns, |p| {
            let r = meta::Builder::new()
                .configure(config.clone())
                .build(p)
                .unwrap();
            black_box(r.is_match(MODULE));
        });
    }
    time("meta: bytes, no Unicode, and match", &patterns, |p| {
        let syntax = regex_automata::util::syntax::Config::new()
            .unicode(false)
            .utf8(false);
        if let Ok(r) = meta::Builder::new().syntax(syntax).build(p) {
            black_box(r.is_match(MODULE));
        }
    });
    let lite: Vec<&str> = patterns
        .iter()
        .copied()
        .filter(|p| regex_lite::Regex::new(p).is_ok())
        .collect();
    println!(
        "\nregex-lite rejects {} of {} in this form (classes nested by `\\w`'s expansion; palisade\n\
         gives it the pattern as written, whose `\\w` and `\\b` it reads on ASCII); the rest, both engines:",
        patterns.len() - lite.len(),
        patterns.len()
    );
    for (label, text) in [
        ("the module", MODULE),
        ("2 KB", &two_kb),
        ("3 KB", &three_kb),
        ("10 KB", &ten_kb),
        ("200 KB", &long),
    ] {
        time(
            &format!("regex-lite: compile, find all in {label}"),
            &lite,
            |p| {
                black_box(regex_lite::Regex::new(p).unwrap().find_iter(text).count());
            },
        );
        time(
            &format!("regex: compile, find all in {label}"),
            &lite,
            |p| {
                black_box(regex::Regex::new(p).unwrap().find_iter(text).count());
            },
        );
    }
}
