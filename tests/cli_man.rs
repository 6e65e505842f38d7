//! `palisade man`: the manual pages come from the clap definitions, so every command and flag
//! is in them; `--dir` writes one page per command. Rendered with man(1) where it is installed.

mod common;
use common::Sandbox;

#[test]
fn the_man_page_lists_every_command() {
    let sb = Sandbox::new();
    let out = sb.command().arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH palisade 1"), "{page}");
    for cmd in [
        "hook", "init", "doctor", "check", "explain", "allow", "policy", "scan", "audit", "replay",
        "man",
    ] {
        assert!(
            page.contains(&format!("palisade\\-{cmd}(1)")),
            "{cmd} missing"
        );
    }
}

#[test]
fn one_page_per_command_and_man_renders_them() {
    let sb = Sandbox::new();
    let dir = sb.dir.path().join("man1");
    let out = sb
        .command()
        .args(["man", "--dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let scan = dir.join("palisade-scan.1");
    let page = std::fs::read_to_string(&scan).unwrap();
    assert!(
        page.contains(".TH palisade-scan 1") && page.contains("sarif"),
        "{page}"
    );
    assert!(dir.join("palisade.1").exists() && dir.join("palisade-allow.1").exists());
    let Ok(rendered) = std::process::Command::new("man")
        .arg("-l")
        .arg(&scan)
        .env("MANWIDTH", "80")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
    else {
        eprintln!("skipped rendering: man(1) is not installed");
        return;
    };
    let text = String::from_utf8_lossy(&rendered.stdout);
    assert!(
        text.contains("--sarif") && text.contains("--fail-on"),
        "{text}"
    );
}
