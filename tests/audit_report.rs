//! `audit report`: one self-contained HTML page from the log of real hook calls, loaded in
//! headless Chromium (skipped, with a message, where Chromium is not installed).

mod audit_support;

use audit_support::Sandbox;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn hook(sb: &Sandbox, event: String) {
    let out = sb.run(&["hook"], &event);
    assert!(matches!(out.status.code(), Some(0 | 2)), "{out:?}");
}

fn event(session: &str, tool: &str, input: Value, post: bool) -> String {
    // The same id for a call's PreToolUse and PostToolUse, as Claude Code sends them.
    let id = format!("toolu_{:x}", {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (session, tool, input.to_string()).hash(&mut h);
        h.finish()
    });
    serde_json::json!({
        "tool_use_id": id,
        "session_id": session,
        "cwd": "/tmp",
        "hook_event_name": if post { "PostToolUse" } else { "PreToolUse" },
        "tool_name": tool,
        "tool_input": input,
    })
    .to_string()
}

/// A log with denies, an approved ask, a write-then-run chain, two sessions.
fn log(sb: &Sandbox) -> PathBuf {
    let bash = |c: &str| serde_json::json!({ "command": c });
    for _ in 0..3 {
        hook(sb, event("s1", "Bash", bash("rm -rf /"), false));
    }
    hook(
        sb,
        event("s1", "Bash", bash("git push --force origin main"), false),
    );
    hook(
        sb,
        event("s1", "Bash", bash("git push --force origin main"), true),
    );
    let script = sb.root().join("clean.sh");
    let write =
        serde_json::json!({"file_path": script, "content": "#!/bin/sh\nrm -rf \"$HOME\"\n"});
    hook(sb, event("s2", "Write", write.clone(), false));
    // The tool runs between its PreToolUse and PostToolUse.
    std::fs::write(&script, "#!/bin/sh\nrm -rf \"$HOME\"\n").unwrap();
    hook(sb, event("s2", "Write", write, true));
    hook(
        sb,
        event(
            "s2",
            "Bash",
            bash(&format!("sh {}", script.display())),
            false,
        ),
    );
    hook(
        sb,
        event(
            "s2",
            "Bash",
            bash("rm -rf '/srv/<script>alert(1)</script>'"),
            false,
        ),
    );
    let out = sb.root().join("report.html");
    let run = sb.run(&["audit", "report", "--out", out.to_str().unwrap()], "");
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    out
}

#[test]
fn the_page_is_self_contained_and_holds_the_figures() {
    let sb = Sandbox::new();
    let page = std::fs::read_to_string(log(&sb)).unwrap();
    // Nothing is fetched: no script, stylesheet link, image, frame, font or CSS url().
    for banned in [
        "<script", "<link", "<img", "<iframe", "src=", "href=", "url(", "@import",
    ] {
        assert!(!page.contains(banned), "{banned} in the page");
    }
    // Text from the log is escaped, not markup.
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(
        page.contains("<td>destructive-fs/rm-critical</td><td>3</td>"),
        "{page}"
    );
    assert!(page.contains("asked (1 approved, 1 not)"), "{page}");
    assert!(page.contains("1 chains caught"), "{page}");
    assert!(page.contains("<rect"), "the chart has bars");
    let out = sb.run(&["audit", "report", "--since", "soon"], "");
    assert_eq!(out.status.code(), Some(2));
}

fn chromium() -> Option<PathBuf> {
    [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
}

#[test]
fn headless_chromium_renders_it() {
    let Some(browser) = chromium() else {
        eprintln!(
            "skipped: no Chromium at /usr/bin/chromium (apt-get install chromium) to load the report"
        );
        return;
    };
    let sb = Sandbox::new();
    let page = log(&sb);
    let profile = sb.root().join("chromium");
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            // Any network request would fail: the page must not need one.
            "--host-resolver-rules=MAP * ~NOTFOUND",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(url(&page))
        .env("HOME", sb.root())
        .env("XDG_CONFIG_HOME", sb.root().join("config"))
        .env("XDG_CACHE_HOME", sb.root().join("cache"))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(
        dom.contains("<h1>palisade audit report</h1>"),
        "{dom}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dom.contains("id=\"top-rules\""), "{dom}");
    assert!(dom.contains("destructive-fs/rm-critical"), "{dom}");
    assert!(dom.contains("id=\"chains\""), "{dom}");
    assert!(dom.contains("<rect"), "{dom}");
    assert!(!dom.contains("<script>alert"), "{dom}");
}

fn url(p: &Path) -> String {
    format!("file://{}", p.display())
}

/// The README's `audit report` line runs as written.
#[test]
fn the_readme_command_runs() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(readme.contains("palisade audit report --since 7d --out week.html"));
    let sb = Sandbox::new();
    hook(
        &sb,
        event(
            "s",
            "Bash",
            serde_json::json!({"command": "rm -rf /"}),
            false,
        ),
    );
    let out = sb
        .cmd(&["audit", "report", "--since", "7d", "--out", "week.html"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let page = std::fs::read_to_string(sb.root().join("week.html")).unwrap();
    assert!(page.contains("1 denied"), "{page}");
}
