//! Roots that only narrow, through the real hook binary: a project's `roots:` replace the
//! user's where they lie inside them, and every attempt to widen (a root outside, a symlink or
//! `..` that leaves, a policy in the home directory) is ignored and listed by `policy
//! validate` and `explain`. The sandbox lives outside the system temp dirs (which are write
//! roots of their own) and names its project with CLAUDE_PROJECT_DIR.

#[path = "e2e/sandbox.rs"]
mod sandbox;

use sandbox::{Sandbox, stderr, stdout};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The decision for a Write of `path` from `cwd` in project `project`: allow/ask/deny/pass.
fn write_in(sb: &Sandbox, project: &Path, path: &Path) -> (String, String) {
    let event = json!({
        "session_id": "roots",
        "cwd": project,
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": path, "content": "notes\n"},
        "tool_use_id": "toolu_w",
    });
    let out = sb.hook_in(project, event.to_string().as_bytes());
    let text = stdout(&out);
    if text.trim().is_empty() {
        assert_eq!(out.status.code(), Some(0));
        return ("pass".into(), String::new());
    }
    let v: Value = serde_json::from_str(&text).unwrap();
    let d = &v["hookSpecificOutput"];
    (
        d["permissionDecision"].as_str().unwrap().to_string(),
        d["permissionDecisionReason"].as_str().unwrap().to_string(),
    )
}

/// The sandbox of these tests, outside the temp roots; `None` (after saying so) when the
/// machine has no such place.
fn outside() -> Option<Sandbox> {
    let sb = Sandbox::outside_temp_roots();
    if sb.is_none() {
        eprintln!("SKIPPED: no scratch dir outside the system temp dirs");
    }
    sb
}

fn write(sb: &Sandbox, path: &Path) -> String {
    write_in(sb, &sb.project, path).0
}

fn project_policy(sb: &Sandbox, yaml: &str) {
    sb.write(&sb.project.join(".palisade.yaml"), yaml);
}

fn scratch(sb: &Sandbox) -> PathBuf {
    sb.home.join("scratch")
}

/// `policy validate` (the policy in effect in the project) and `explain`, as text.
fn validate_and_explain(sb: &Sandbox) -> (String, String) {
    let v = sb.run(&["policy", "validate"]);
    let e = sb
        .cmd(&["explain"])
        .env("CLAUDE_PROJECT_DIR", &sb.project)
        .output()
        .unwrap();
    assert!(e.status.success(), "{}", stderr(&e));
    (stdout(&v) + &stderr(&v), stdout(&e))
}

#[test]
fn a_project_root_inside_a_user_root_replaces_it() {
    let Some(sb) = outside() else { return };
    sb.write(&sb.user_policy(), "version: 1\nroots: [~/scratch]\n");
    let mine = scratch(&sb).join("this-repo/out.txt");
    let other = scratch(&sb).join("other-repo/out.txt");
    assert_eq!(write(&sb, &other), "pass", "the user's root");
    project_policy(&sb, "version: 1\nroots: [~/scratch/this-repo]\n");
    assert_eq!(write(&sb, &mine), "pass");
    let (d, reason) = write_in(&sb, &sb.project, &other);
    assert_eq!(d, "ask", "narrowed away: {reason}");
    assert!(reason.contains("outside"), "{reason}");
    // The project itself and the temp dir stay roots.
    assert_eq!(write(&sb, &sb.project.join("src/lib.rs")), "pass");
    assert_eq!(
        write(&sb, Path::new("/tmp/palisade-roots-test.txt")),
        "pass"
    );
    let (v, e) = validate_and_explain(&sb);
    assert!(v.contains("valid:") && !v.contains("warning"), "{v}");
    assert!(
        e.contains(&scratch(&sb).join("this-repo").display().to_string()),
        "{e}"
    );
    // Another project of the same user is not narrowed.
    let elsewhere = sb.home.join("other-project");
    std::fs::create_dir_all(&elsewhere).unwrap();
    assert_eq!(write_in(&sb, &elsewhere, &other).0, "pass");
}

#[test]
fn an_empty_list_leaves_the_project_and_temp_dirs_only() {
    let Some(sb) = outside() else { return };
    sb.write(&sb.user_policy(), "version: 1\nroots: [~/scratch]\n");
    project_policy(&sb, "version: 1\nroots: []\n");
    assert_eq!(write(&sb, &scratch(&sb).join("a.txt")), "ask");
    assert_eq!(write(&sb, &sb.project.join("a.txt")), "pass");
}

#[test]
fn a_project_cannot_widen_and_says_so() {
    let Some(sb) = outside() else { return };
    sb.write(&sb.user_policy(), "version: 1\nroots: [~/scratch]\n");
    // A symlink inside the user's root that leads out of it, and a `..` that climbs out.
    std::fs::create_dir_all(sb.home.join("secret")).unwrap();
    std::fs::create_dir_all(scratch(&sb)).unwrap();
    std::os::unix::fs::symlink(sb.home.join("secret"), scratch(&sb).join("link")).unwrap();
    project_policy(
        &sb,
        "version: 1\nroots: [~/elsewhere, /, ~/scratch/link, ~/scratch/../secret, ../sibling]\n",
    );
    for target in [
        sb.home.join("elsewhere/a.txt"),
        sb.home.join("secret/a.txt"),
        scratch(&sb).join("link/a.txt"),
        sb.home.join("sibling/a.txt"),
        // The user's root was replaced by an empty list of kept roots.
        scratch(&sb).join("a.txt"),
    ] {
        let (d, reason) = write_in(&sb, &sb.project, &target);
        assert_eq!(d, "ask", "{}: {reason}", target.display());
    }
    let (v, e) = validate_and_explain(&sb);
    for raw in [
        "~/elsewhere",
        "roots: /",
        "~/scratch/link",
        "~/scratch/../secret",
        "../sibling",
    ] {
        assert!(v.contains(raw), "validate does not list {raw}: {v}");
        assert!(e.contains(raw), "explain does not list {raw}: {e}");
    }
    assert!(v.contains("can only narrow"), "{v}");
}

#[test]
fn a_policy_in_the_home_directory_cannot_make_home_a_root() {
    let Some(sb) = outside() else { return };
    // Claude Code started in ~ (a dotfiles repository): home is the project, but never a
    // write root, and its `.palisade.yaml` cannot make a part of it one.
    let notes = sb.home.join("notes/todo.txt");
    assert_eq!(write_in(&sb, &sb.home, &notes).0, "ask");
    sb.write(
        &sb.home.join(".palisade.yaml"),
        "version: 1\nroots: [~/notes]\n",
    );
    let (d, reason) = write_in(&sb, &sb.home, &notes);
    assert_eq!(d, "ask", "{reason}");
}

#[test]
fn the_narrow_roots_example_narrows_the_solo_developer_policy() {
    let Some(sb) = outside() else { return };
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/policies");
    sb.write(
        &sb.user_policy(),
        &std::fs::read_to_string(examples.join("solo-developer.yaml")).unwrap(),
    );
    let other = scratch(&sb).join("other-project/a.txt");
    assert_eq!(write(&sb, &other), "pass");
    let example = examples.join("narrow-roots.palisade.yaml");
    project_policy(&sb, &std::fs::read_to_string(&example).unwrap());
    assert_eq!(write(&sb, &scratch(&sb).join("payments-api/a.txt")), "pass");
    let (d, reason) = write_in(&sb, &sb.project, &other);
    assert_eq!(d, "deny", "outside_roots: deny: {reason}");
    // `policy validate <file>` takes a project file as a project layer over the user's policy.
    let out = sb.run(&["policy", "validate", example.to_str().unwrap()]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(!stdout(&out).contains("warning"), "{}", stdout(&out));
}

#[test]
fn validating_a_project_file_lists_what_it_may_not_widen() {
    let Some(sb) = outside() else { return };
    sb.write(&sb.user_policy(), "version: 1\nroots: [~/scratch]\n");
    let file = sb.dir.path().join("candidate/.palisade.yaml");
    sb.write(&file, "version: 1\nroots: [build, /etc]\n");
    let out = sb.run(&["policy", "validate", file.to_str().unwrap()]);
    let text = stdout(&out);
    // A relative root is relative to the project (the file's directory), not an error.
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(text.contains("warning") && text.contains("/etc"), "{text}");
    assert!(!text.contains("build ("), "{text}");
}
