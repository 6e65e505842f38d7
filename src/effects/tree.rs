//! The files git and patch put in place without the line saying which: a checkout or restore
//! of named paths (`git checkout REV -- f`, `git restore f`), a work tree given elsewhere
//! (`GIT_WORK_TREE=DIR`, `git --work-tree DIR`), a patch applied in a directory (`patch -d
//! DIR`, `git apply --directory=DIR`). Each is an `Effect::Write` the ledger does not record
//! (the content comes from the repository or the patch), so the rules on written paths —
//! self-protection, path-escape, read-only mode — judge them like any other write.

use super::Effect;
use crate::call::Scope;
use crate::fileops::{resolve_for, word_target};
use crate::shell::{Command, Word};
use crate::vocab;
use std::path::PathBuf;

/// `how` of a write into a work tree another directory names (`GIT_WORK_TREE`, `git
/// --work-tree`).
pub const WORK_TREE: &str = "git work tree";
/// `how` of `patch -d DIR`: the patched files land under DIR.
pub const PATCH_DIR: &str = "patch -d";
/// `how` of `git apply --directory=DIR`: the patched files land under DIR in the work tree.
pub const APPLY_DIR: &str = "git apply --directory";

/// `how` of an MCP tool's `into` directory: an archive extracted or a tree synced there.
pub const TOOL_INTO: &str = "an MCP tool's extraction or sync";

/// `how` of a dotfile manager's apply (kept where the write is made, `fileops::DOTFILES`).
pub use crate::fileops::DOTFILES;

/// `how` of a mount: another file system, or another directory (`--bind`), shows in place of
/// the mount point's own files.
pub const MOUNT: &str = "mount";

/// `how` of `git clone URL [DIR]`: the repository's files land in DIR.
pub const CLONE: &str = "git clone";

/// `how` of `git worktree add DIR`: a checkout of the repository lands in DIR.
pub const WORKTREE_ADD: &str = "git worktree add";

/// The `how` of writes whose path is a directory files land in, which ones not known:
/// extraction (`tar -x`, `unzip`, an MCP tool's), a patch's directory, a work tree, a mount,
/// a clone, a new work tree.
pub const INTO_DIRECTORY: &[&str] = &[
    "tar -x",
    "unzip",
    PATCH_DIR,
    APPLY_DIR,
    WORK_TREE,
    TOOL_INTO,
    MOUNT,
    CLONE,
    WORKTREE_ADD,
    DOTFILES,
];

/// git subcommands that change files of the work tree.
const TREE_WRITERS: &[&str] = &[
    "checkout",
    "restore",
    "reset",
    "switch",
    "merge",
    "pull",
    "apply",
    "stash",
    "cherry-pick",
    "revert",
    "rebase",
    "am",
    "read-tree",
    "checkout-index",
    "clean",
];

/// The writes of command `c` of a line (a `git` or `patch` command), appended to `out`.
pub(super) fn effects(c: &Command, scope: &Scope, out: &mut Vec<Effect>) {
    match c.program.as_str() {
        "git" => git(c, scope, out),
        "patch" => {
            if let Some(dir) = c.option_value(Some('d'), &["directory"]) {
                out.push(write(resolve_for(scope, c, &dir), PATCH_DIR));
            }
        }
        // `mount [-t T] [-o O] [SOURCE] TARGET`, `mount --bind A B`: TARGET is covered.
        "mount" => {
            let ops = vocab::operands_skipping(
                c,
                "tovLUTNX",
                &[
                    "--types",
                    "--options",
                    "--label",
                    "--uuid",
                    "--fstab",
                    "--namespace",
                ],
            );
            if let Some(target) = ops.last() {
                out.push(write(path_of(target, c, scope), MOUNT));
            }
        }
        _ => {}
    }
}

fn write(path: PathBuf, how: &str) -> Effect {
    Effect::Write {
        path,
        content: None,
        how: how.to_string(),
        shell: None,
    }
}

/// A path word as written: resolved when known statically, else kept with its `$…` so the
/// rules judge what it names.
fn path_of(w: &Word, c: &Command, scope: &Scope) -> PathBuf {
    word_target(w, c, scope).unwrap_or_else(|| resolve_for(scope, c, &w.text))
}

fn git(c: &Command, scope: &Scope, out: &mut Vec<Effect>) {
    let Some(sub) = vocab::subcommand(c) else {
        return;
    };
    let ops = vocab::operands_skipping(c, "sbBU", &["source", "orphan", "pathspec-from-file"]);
    // `stash list` and `stash show` only read.
    let reads_stash =
        sub == "stash" && matches!(ops.get(1).map(|w| w.text.as_str()), Some("list" | "show"));
    // The shell analysis turns `--work-tree DIR` into `GIT_WORK_TREE=DIR`.
    let tree = c
        .env
        .iter()
        .rfind(|(k, _)| k == "GIT_WORK_TREE")
        .map(|(_, w)| path_of(w, c, scope));
    if let Some(tree) = &tree
        && TREE_WRITERS.contains(&sub)
        && !reads_stash
    {
        out.push(write(tree.clone(), WORK_TREE));
    }
    match sub {
        "apply" => {
            let Some(dir) = c.option_value(None, &["directory"]) else {
                return;
            };
            // Relative to the work tree's top: the one named, else the repository the
            // command runs in (the project, or where the line went with `cd`/`git -C`).
            let mut tops = match &tree {
                Some(t) => vec![t.clone()],
                None => vec![scope.project_root.clone()],
            };
            if tree.is_none() && c.cwd.is_some() {
                tops.push(resolve_for(scope, c, "."));
            }
            for top in tops {
                out.push(write(crate::paths::fold(&top.join(&dir)), APPLY_DIR));
            }
        }
        // `git clone [OPTIONS] URL [DIR]`: DIR, else the URL's last name without `.git`.
        "clone" => {
            let ops = vocab::operands_skipping(
                c,
                "boucj",
                &[
                    "branch",
                    "origin",
                    "upload-pack",
                    "template",
                    "reference",
                    "reference-if-able",
                    "depth",
                    "shallow-since",
                    "shallow-exclude",
                    "config",
                    "jobs",
                    "filter",
                    "separate-git-dir",
                    "server-option",
                    "bundle-uri",
                ],
            );
            match (ops.get(1), ops.get(2)) {
                (_, Some(dir)) => out.push(write(path_of(dir, c, scope), CLONE)),
                (Some(url), None) if !url.dynamic => {
                    let name = url
                        .text
                        .trim_end_matches('/')
                        .rsplit(['/', ':'])
                        .next()
                        .unwrap_or("");
                    let name = name.strip_suffix(".git").unwrap_or(name);
                    if !name.is_empty() && name != ".." && name != "." {
                        out.push(write(resolve_for(scope, c, name), CLONE));
                    }
                }
                _ => {}
            }
        }
        // `git worktree add [OPTIONS] PATH [COMMIT]`: a checkout of the repository lands in
        // PATH, as a clone's does.
        "worktree" if ops.get(1).is_some_and(|w| w.text == "add") => {
            let ops = vocab::operands_skipping(c, "bB", &["reason"]);
            if let Some(dir) = ops.get(2) {
                out.push(write(path_of(dir, c, scope), WORKTREE_ADD));
            }
        }
        "checkout" | "restore" => {
            let how = format!("git {sub}");
            // `git restore --staged f` changes the index only.
            let staged = c.has_flag(Some('S'), &["staged"]);
            if sub == "restore" && staged && !c.has_flag(Some('W'), &["worktree"]) {
                return;
            }
            let dashes = c.args.iter().position(|a| a.text == "--");
            let paths: Vec<&Word> = match dashes {
                // `git checkout [REV] -- PATH…`: what follows `--`.
                Some(at) => c.args[at + 1..].iter().collect(),
                // `git restore PATH…`: every operand.
                None if sub == "restore" => ops.iter().skip(1).copied().collect(),
                // `git checkout REV PATH…`: a second operand on is a path; one alone is a
                // branch or a path, as git finds it, and left to the branch.
                None => ops.iter().skip(2).copied().collect(),
            };
            for w in paths {
                out.push(write(path_of(w, c, scope), &how));
            }
        }
        _ => {}
    }
}
