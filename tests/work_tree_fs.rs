//! A `cd` to the top of the git work tree (`cd "$(git rev-parse --show-toplevel)"`, how agents
//! start many lines) lands where git's is, through the hook binary on a real filesystem: in
//! the project's work tree what follows is judged there; with no work tree up from the
//! call's directory the directory is not known, and a delete relative to it asks.

mod common;

use common::Sandbox;

#[track_caller]
fn expect(sb: &Sandbox, command: &str, want: &str) {
    let a = sb.bash(command);
    assert_eq!(a.decision(), want, "{command}: {}", a.reason());
}

#[test]
fn a_cd_to_the_work_trees_top_is_followed_there() {
    let sb = Sandbox::new();
    let in_tree = [
        "cd \"$(git rev-parse --show-toplevel)\" && rm -rf build dist",
        "cd `git rev-parse --show-toplevel`/web && rm -rf node_modules",
    ];
    // No `.git` up from the project (a temporary folder): git prints nothing, so where the
    // line goes is not known.
    if !sb.project().ancestors().any(|d| d.join(".git").exists()) {
        for command in in_tree {
            expect(&sb, command, "ask");
        }
    }
    std::fs::create_dir(sb.project().join(".git")).unwrap();
    for command in in_tree {
        expect(&sb, command, "pass");
    }
    // Its top is the project root: everything in it asks; its parent is the home directory.
    expect(
        &sb,
        "cd \"$(git rev-parse --show-toplevel)\" && rm -rf *",
        "ask",
    );
    expect(
        &sb,
        "cd \"$(git rev-parse --show-toplevel)/..\" && rm -rf *",
        "deny",
    );
    // From another directory it is another tree's top.
    expect(
        &sb,
        "cd / && cd \"$(git rev-parse --show-toplevel)\" && rm -rf build",
        "ask",
    );
}
