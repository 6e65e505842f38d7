//! Every `palisade …` command shown in README.md and docs/*.md runs as written: spawned through
//! `sh -c` in an isolated home (so `~`, pipes and redirections work as for a reader), it may
//! succeed or refuse, but clap must accept it. What each command does is tested where the
//! command is (tests/<command>_*.rs); this catches a doc that drifted from the flags.

mod common;
use common::Sandbox;
use std::path::Path;

/// The `palisade …` lines of the sh code blocks of a Markdown file (comments stripped).
fn commands(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut open = false;
    let mut in_block = false;
    for line in md.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            open = !open;
            in_block = open && matches!(t, "```sh" | "```" | "```console" | "```bash");
            continue;
        }
        if !in_block {
            continue;
        }
        let t = t.strip_prefix("$ ").unwrap_or(t);
        let t = t.split(" #").next().unwrap().trim();
        // A command of its own, or the second half of `git pull && palisade …`.
        for part in t.split("&&").map(str::trim) {
            if part.starts_with("palisade ") || part == "palisade" {
                out.push(part.to_string());
            }
        }
    }
    out
}

#[test]
fn every_documented_command_parses_and_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p);
        }
    }
    let bin_dir = common::palisade_bin().parent().unwrap().to_path_buf();
    let mut ran = 0;
    for f in files {
        let md = std::fs::read_to_string(&f).unwrap();
        for cmd in commands(&md) {
            // Following a log never ends; `hook` waits for Claude Code's event on stdin.
            if cmd.contains("--follow") || cmd.contains('<') || cmd.contains('…') {
                continue;
            }
            let sb = Sandbox::new();
            let path = format!(
                "{}:{}",
                bin_dir.display(),
                std::env::var("PATH").unwrap_or_default()
            );
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(&cmd)
                .envs(
                    sb.command()
                        .get_envs()
                        .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))),
                )
                .env("PATH", path)
                .env("MANPAGER", "cat")
                .current_dir(sb.project())
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            for usage in [
                "error: unexpected argument",
                "error: unrecognized subcommand",
                "error: invalid value",
                "the following required arguments were not provided",
                "command not found",
            ] {
                assert!(
                    !err.contains(usage),
                    "{}: `{cmd}` is not a valid command: {err}",
                    f.display()
                );
            }
            ran += 1;
        }
    }
    assert!(ran >= 30, "only {ran} documented commands found");
}
