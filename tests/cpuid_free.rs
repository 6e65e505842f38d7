//! A hook call whose text needs no compiled pattern runs no `cpuid`. On a VM each one traps to
//! the hypervisor (about 7 µs on the machines of docs/PERFORMANCE.md, "What `cpuid` costs"),
//! and the first call of a runtime CPU-feature detection (`std_detect`, behind the dispatch of
//! `memchr`, `memmem` and the regex engines' prefilters) runs up to ten of them: a tenth of a
//! Write, paid again by every process, found twice in this code after it had crept in.
//!
//! How: Linux's CPUID faulting (`arch_prctl(ARCH_SET_CPUID, 0)`) makes the instruction raise
//! SIGSEGV in the calling thread and the threads it starts. The test runs itself again as a
//! child that turns it on and then runs the hook's pipeline in process (the flag does not
//! survive `exec`, so the installed binary cannot be run under it) on a call of every tool
//! kind; a `cpuid` kills the child, and the parent says which call was running. Where the CPU
//! or kernel has no CPUID faulting the child says so and the test passes without checking.

mod common;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Set in the child: the project folder of the parent's sandbox.
const CHILD: &str = "PALISADE_TEST_CPUID_PROJECT";
/// What the child prints when the machine cannot make `cpuid` fault.
const UNSUPPORTED: &str = "cpuid faulting unavailable";
/// `ARCH_SET_CPUID` of `<asm/prctl.h>`.
const ARCH_SET_CPUID: libc::c_long = 0x1012;

/// The calls, one per tool kind, none with a text that opens a scanner pattern's gate.
fn calls(project: &Path) -> Vec<(&'static str, Value)> {
    let p = |name: &str| project.join(name);
    let event = |tool: &str, input: Value| {
        json!({
            "session_id": "s1",
            "transcript_path": project.join("transcript.jsonl"),
            "cwd": project,
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": input,
            "tool_use_id": format!("toolu_{tool}"),
        })
    };
    let handlers: String = (0..20)
        .map(|i| format!("def handler_{i}(request):\n    return render(request, 'p{i}.html')\n"))
        .collect();
    vec![
        (
            "Bash git status",
            event("Bash", json!({"command": "git status"})),
        ),
        (
            "Bash rm -rf ~",
            event("Bash", json!({"command": "rm -rf ~"})),
        ),
        (
            "Bash cargo",
            event(
                "Bash",
                json!({"command": "cargo build --release && cargo test"}),
            ),
        ),
        (
            "Write app.py",
            event(
                "Write",
                json!({"file_path": p("src/app.py"), "content": handlers}),
            ),
        ),
        (
            "Write notes.md",
            event(
                "Write",
                json!({"file_path": p("notes.md"), "content": "# Notes\n\ntext\n"}),
            ),
        ),
        (
            "Write run.sh",
            event(
                "Write",
                json!({"file_path": p("run.sh"), "content": "#!/bin/sh\necho building\nmake all\n"}),
            ),
        ),
        (
            "Edit app.py",
            event(
                "Edit",
                json!({"file_path": p("src/app.py"), "old_string": "handler_1(", "new_string": "handler_one("}),
            ),
        ),
        (
            "MultiEdit app.py",
            event(
                "MultiEdit",
                json!({"file_path": p("src/app.py"), "edits": [
                    {"old_string": "handler_2(", "new_string": "handler_two("}]}),
            ),
        ),
        ("Read", event("Read", json!({"file_path": p("src/app.py")}))),
        (
            "WebFetch",
            event(
                "WebFetch",
                json!({"url": "https://docs.rs/serde", "prompt": "summarise"}),
            ),
        ),
        (
            "MCP",
            event(
                "mcp__github__create_issue",
                json!({"owner": "o", "repo": "r", "title": "bug"}),
            ),
        ),
        (
            "Bash bash run.sh",
            event("Bash", json!({"command": "bash run.sh"})),
        ),
    ]
}

/// The child: `cpuid` made to fault, then every call through the pipeline, each named on
/// stderr before it runs.
fn child() {
    // What every call does once and is accepted: `sha2` detects SHA instructions (two `cpuid`)
    // for the audit entry's hash. Done before faulting is on; its answer is kept.
    use sha2::Digest;
    std::hint::black_box(sha2::Sha256::digest(b"warm"));
    // SAFETY: a syscall with integer arguments; it changes only this thread's CPUID faulting.
    let set = unsafe { libc::syscall(libc::SYS_arch_prctl, ARCH_SET_CPUID, 0 as libc::c_long) };
    if set != 0 {
        eprintln!("{UNSUPPORTED}: {}", std::io::Error::last_os_error());
        return;
    }
    let project = PathBuf::from(std::env::var_os(CHILD).unwrap_or_default());
    let locations = palisade::locations::Locations::from_env();
    for (name, event) in calls(&project) {
        eprintln!("running: {name}");
        let answer = palisade::hook::run(event.to_string().as_bytes(), &locations, None);
        assert!(matches!(answer.code, 0 | 2), "{name}: exit {}", answer.code);
    }
    eprintln!("all calls ran");
}

#[test]
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn calls_without_patterns_run_no_cpuid() {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    let sb = common::Sandbox::new();
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    for (k, v) in sb.command().get_envs() {
        if let Some(v) = v {
            cmd.env(k, v);
        }
    }
    let out = cmd
        .env(CHILD, sb.project())
        .args([
            "calls_without_patterns_run_no_cpuid",
            "--exact",
            "--nocapture",
        ])
        .current_dir(sb.project())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains(UNSUPPORTED) {
        eprintln!("not checked: {}", stderr.trim());
        return;
    }
    let running = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("running: "))
        .next_back()
        .unwrap_or("(before the first call)");
    assert!(
        out.status.success() && stderr.contains("all calls ran"),
        "a cpuid ran (or the child failed) during {running:?}: {:?}\n{stderr}",
        out.status
    );
}
