//! destructive-git: history rewrites, force pushes and discarding uncommitted work.

use super::common::Span;
use super::{Check, Example, Rule};
use crate::call::NameMatch;
use crate::effects::{DeleteTarget, Effect as Fx};
use crate::normalize::{Call, Scope};
use crate::shell::Command;
use crate::verdict::Effect::Ask;
use std::path::Path;

const PACK: &str = "destructive-git";

const PROTECTED_BRANCHES: &[&str] = &[
    "main",
    "master",
    "trunk",
    "develop",
    "production",
    "prod",
    "release",
];

fn sub(c: &Command) -> Option<&str> {
    c.subcommand()
}

/// Refspec operands of `git push` after the remote.
fn push_refspecs(c: &Command) -> Vec<&str> {
    c.operands()
        .iter()
        .skip(2)
        .map(|w| w.text.as_str())
        .collect()
}

fn targets_protected(refspec: &str) -> bool {
    let dst = refspec
        .trim_start_matches('+')
        .rsplit(':')
        .next()
        .unwrap_or(refspec);
    let dst = dst.trim_start_matches("refs/heads/");
    PROTECTED_BRANCHES.contains(&dst)
}

fn force_push(c: &Command, _: &Scope) -> Option<String> {
    if sub(c) != Some("push") {
        return None;
    }
    if c.has_flag(Some('f'), &["force"]) {
        return Some("`--force` overwrites the remote branch".into());
    }
    let specs = push_refspecs(c);
    if let Some(s) = specs.iter().find(|s| s.starts_with('+')) {
        return Some(format!("the refspec `{s}` forces the update"));
    }
    if c.has_flag(None, &["force-with-lease", "force-if-includes"])
        && (specs.is_empty() || specs.iter().any(|s| targets_protected(s)))
    {
        return Some("a forced push to a protected branch".into());
    }
    if c.has_flag(None, &["mirror"]) {
        return Some("`--mirror` overwrites every remote ref".into());
    }
    None
}

fn push_delete(c: &Command, _: &Scope) -> Option<String> {
    if sub(c) != Some("push") {
        return None;
    }
    if c.has_flag(Some('d'), &["delete", "prune"]) {
        return Some("it deletes remote refs".into());
    }
    push_refspecs(c)
        .into_iter()
        .find(|s| s.starts_with(':') && s.len() > 1)
        .map(|s| format!("the refspec `{s}` deletes a remote branch"))
}

fn reset_hard(c: &Command, _: &Scope) -> Option<String> {
    (sub(c) == Some("reset") && c.args.iter().any(|a| a.text == "--hard"))
        .then(|| "`git reset --hard` discards uncommitted changes".into())
}

fn clean_force(c: &Command, _: &Scope) -> Option<String> {
    (sub(c) == Some("clean")
        && c.has_flag(Some('f'), &["force"])
        && !c.has_flag(Some('n'), &["dry-run"]))
    .then(|| "`git clean -f` deletes untracked files for good".into())
}

fn discard_all(c: &Command, _: &Scope) -> Option<String> {
    let s = sub(c)?;
    let after_dashdash = c.args.iter().position(|a| a.text == "--").map(|i| i + 1);
    match s {
        "checkout" => {
            if c.has_flag(Some('f'), &["force"]) {
                return Some("`git checkout --force` overwrites uncommitted changes".into());
            }
            // Operands after `--` are paths: their work-tree changes are replaced.
            if let Some(i) = after_dashdash
                && i < c.args.len()
            {
                return Some("`git checkout -- <paths>` discards their uncommitted changes".into());
            }
        }
        "restore" => {
            let staged_only =
                c.has_flag(Some('S'), &["staged"]) && !c.has_flag(Some('W'), &["worktree"]);
            if !staged_only && c.operands().len() > 1 {
                return Some("`git restore` discards uncommitted changes in the work tree".into());
            }
            return None;
        }
        "switch" => {
            return c
                .has_flag(Some('f'), &["force", "discard-changes"])
                .then(|| format!("`git {s} --discard-changes` throws away local changes"));
        }
        "reset" => {
            return c
                .args
                .iter()
                .any(|a| a.text == "--merge")
                .then(|| "`git reset --merge` can discard uncommitted changes".into());
        }
        // `git read-tree -u --reset|-m TREE` checks TREE out over the work tree.
        "read-tree" => {
            return (c.has_flag(Some('u'), &[])
                && (c.has_flag(None, &["reset"]) || c.has_flag(Some('m'), &[])))
            .then(|| "`git read-tree -u` overwrites the work tree with a tree".into());
        }
        "checkout-index" => {
            return (c.has_flag(Some('f'), &["force"])
                && (c.has_flag(Some('a'), &["all"]) || c.operands().len() > 1))
                .then(|| "`git checkout-index -f` overwrites work-tree files".into());
        }
        // `git submodule deinit -f`: each submodule's work tree is emptied, changes and all.
        "submodule" => {
            let deinit = c.operands().get(1).is_some_and(|w| w.text == "deinit");
            return (deinit && c.has_flag(Some('f'), &["force"])).then(|| {
                "`git submodule deinit --force` deletes submodules' work trees with their changes"
                    .into()
            });
        }
        "worktree" => {
            let remove = c.operands().get(1).is_some_and(|w| w.text == "remove");
            return (remove && c.has_flag(Some('f'), &["force"])).then(|| {
                "`git worktree remove --force` deletes a work tree with its changes".into()
            });
        }
        _ => return None,
    }
    let wide = c
        .operands()
        .iter()
        .skip(1)
        .any(|w| matches!(w.text.as_str(), "." | ":/" | "*" | ":(top)"));
    wide.then(|| format!("`git {s} .` discards every uncommitted change"))
}

fn stash_destroy(c: &Command, _: &Scope) -> Option<String> {
    if sub(c) != Some("stash") {
        return None;
    }
    let action = c.operands().get(1).map(|w| w.text.clone())?;
    matches!(action.as_str(), "clear" | "drop")
        .then(|| format!("`git stash {action}` deletes stashed work"))
}

fn branch_force_delete(c: &Command, _: &Scope) -> Option<String> {
    // `git checkout -B NAME START`, `git switch -C|--force-create NAME START`: a branch reset
    // to START as `git branch -f NAME START` does, then checked out.
    let reset = match sub(c) {
        Some("checkout") => c.option_value(Some('B'), &[]),
        Some("switch") => c.option_value(Some('C'), &["force-create"]),
        _ => None,
    };
    if let Some(name) = reset
        && let Some(start) = c.operands().iter().skip(1).find(|w| w.text != name)
    {
        return Some(format!(
            "it resets the branch {name} to {}, leaving its commits behind",
            start.text
        ));
    }
    if sub(c) != Some("branch") {
        return None;
    }
    let forced = c.has_flag(Some('D'), &[])
        || (c.has_flag(Some('d'), &["delete"]) && c.has_flag(Some('f'), &["force"]));
    if forced {
        return Some("`git branch -D` deletes a branch even if it is not merged".into());
    }
    // `git branch -f NAME START` points an existing branch elsewhere, as `reset` would; `-M`
    // and `-C` replace one by a rename or copy. Its old commits are reachable no more.
    let moved = (c.has_flag(Some('f'), &["force"]) && c.operands().len() >= 2)
        || c.has_flag(Some('M'), &[])
        || c.has_flag(Some('C'), &[]);
    moved.then(|| {
        "`git branch --force` moves or replaces a branch, leaving its commits behind".into()
    })
}

fn history_rewrite(c: &Command, _: &Scope) -> Option<String> {
    let s = sub(c)?;
    let second = c.operands().get(1).map(|w| w.text.as_str());
    match (s, second) {
        ("filter-branch" | "filter-repo", _) => Some(format!("`git {s}` rewrites history")),
        ("reflog", Some("expire" | "delete")) => {
            Some("it expires the reflog, the safety net for lost commits".into())
        }
        ("gc", _)
            if c.args
                .iter()
                .any(|a| a.text.starts_with("--prune=now") || a.text == "--prune=all") =>
        {
            Some("`git gc --prune=now` drops unreachable commits".into())
        }
        ("update-ref", _) if c.has_flag(Some('d'), &[]) => Some("it deletes a ref".into()),
        // `git update-ref refs/heads/main HEAD~5`: a branch or tag moved as `branch -f` moves
        // one, the commits after it left to the reflog.
        ("update-ref", Some(r))
            if (r.starts_with("refs/heads/") || r.starts_with("refs/tags/"))
                && !c.has_flag(None, &["stdin"]) =>
        {
            Some(format!("it moves the ref {r} to another commit"))
        }
        _ => None,
    }
}

/// A repository's `.git` deleted as a tree (by `rm -r`, `find … -exec rm -rf`, a script's
/// `shutil.rmtree`) or moved out of the directory it serves (`mv .git /tmp/g`, where what
/// follows can delete it unseen); renaming it beside itself (`mv .git .git.bak`) keeps it.
fn rm_git_dir(call: &Call, _: &Scope) -> Option<String> {
    let git = |p: &Path| p.file_name().is_some_and(|n| n == ".git");
    call.effects.iter().find_map(|e| match e {
        Fx::Delete {
            target:
                DeleteTarget::Named {
                    written,
                    path: Some(p),
                    span,
                },
            recursive: true,
            ..
        } if *span != Span::Pattern && git(p) => {
            Some(format!("`{written}` is a repository's history"))
        }
        // `find . -name .git -exec rm -rf {} +`: every entry it removes is a `.git`.
        Fx::Delete {
            target: DeleteTarget::Named { written, .. },
            recursive: true,
            names,
            ..
        } if names
            .iter()
            .any(|t| t.on == NameMatch::Name && t.pattern == ".git") =>
        {
            Some(format!("`find {written}` deletes each `.git` it finds"))
        }
        Fx::Move { from, to, span, .. }
            if *span != Span::Pattern
                && git(from)
                && from.parent().is_some_and(|d| !to.starts_with(d)) =>
        {
            Some(format!(
                "`mv` moves a repository's history ({}) to {}",
                from.display(),
                to.display()
            ))
        }
        _ => None,
    })
}

/// The same losses in Mercurial, Subversion and Fossil: work-tree changes discarded with no
/// backup (`hg update -C`, `hg revert --no-backup`, `svn revert`), untracked files deleted
/// (`hg purge`, `svn cleanup --remove-unversioned`, `fossil clean`), a forced push and
/// `hg rollback`. `hg revert` without `--no-backup` keeps `.orig` copies, and Jujutsu's
/// operation log undoes anything, so they pass.
fn other_vcs_discard(c: &Command, _: &Scope) -> Option<String> {
    let s = sub(c)?;
    let dry = c.has_flag(Some('n'), &["dry-run", "print"]);
    let what = match (c.program.as_str(), s) {
        ("hg", "update" | "up" | "checkout" | "co") if c.has_flag(Some('C'), &["clean"]) => {
            "`hg update --clean` discards uncommitted changes"
        }
        ("hg", "revert") if c.has_flag(Some('C'), &["no-backup"]) && !dry => {
            "`hg revert --no-backup` discards uncommitted changes without a copy"
        }
        ("hg", "purge" | "clean") if !dry => "`hg purge` deletes untracked files for good",
        ("hg", "rollback") if !dry => "`hg rollback` undoes the last commit or pull",
        ("hg", "push") if c.has_flag(Some('f'), &["force"]) => {
            "`hg push --force` pushes over the remote's heads"
        }
        ("svn", "revert") => "`svn revert` discards local changes without a copy",
        ("svn", "cleanup") if c.has_flag(None, &["remove-unversioned", "remove-ignored"]) => {
            "`svn cleanup --remove-unversioned` deletes untracked files for good"
        }
        ("fossil", "clean") if !dry => "`fossil clean` deletes untracked files for good",
        _ => return None,
    };
    Some(what.into())
}

pub static RULES: &[Rule] = &[
    Rule {
        id: "force-push",
        pack: PACK,
        effect: Ask,
        reason: "A forced push can overwrite commits others rely on; push normally or confirm",
        programs: &["git"],
        check: Check::Command(force_push),
        refused: &[
            Example::bash("git push --force"),
            Example::bash("git push -f origin main"),
            Example::bash("git push origin +main"),
            Example::bash("git push --force-with-lease origin master"),
            Example::bash("git -C /home/dev/project push --force origin feature"),
        ],
        allowed: &[
            Example::bash("git push origin feature-x"),
            Example::bash("git push -u origin HEAD"),
            Example::bash("git push --force-with-lease origin feature-x"),
        ],
    },
    Rule {
        id: "push-delete",
        pack: PACK,
        effect: Ask,
        reason: "Deleting remote branches or tags needs confirmation",
        programs: &["git"],
        check: Check::Command(push_delete),
        refused: &[
            Example::bash("git push origin --delete feature"),
            Example::bash("git push origin :release"),
        ],
        allowed: &[Example::bash("git push origin feature:feature")],
    },
    Rule {
        id: "reset-hard",
        pack: PACK,
        effect: Ask,
        reason: "`git reset --hard` throws away uncommitted work",
        programs: &["git"],
        check: Check::Command(reset_hard),
        refused: &[
            Example::bash("git reset --hard HEAD~3"),
            Example::bash("git reset --hard"),
        ],
        allowed: &[
            Example::bash("git reset --soft HEAD~1"),
            Example::bash("git reset HEAD file.txt"),
        ],
    },
    Rule {
        id: "clean-force",
        pack: PACK,
        effect: Ask,
        reason: "`git clean -f` deletes untracked files that no commit can restore",
        programs: &["git"],
        check: Check::Command(clean_force),
        refused: &[
            Example::bash("git clean -fdx"),
            Example::bash("git clean --force -d"),
        ],
        allowed: &[
            Example::bash("git clean -n"),
            Example::bash("git clean -nfd"),
        ],
    },
    Rule {
        id: "discard-changes",
        pack: PACK,
        effect: Ask,
        reason: "Discarding uncommitted changes cannot be undone",
        programs: &["git"],
        check: Check::Command(discard_all),
        refused: &[
            Example::bash("git checkout -- ."),
            Example::bash("git restore ."),
            Example::bash("git checkout ."),
            Example::bash("git checkout -- src/main.rs"),
            Example::bash("git checkout -f main"),
            Example::bash("git restore src/lib.rs"),
            Example::bash("git restore --staged --worktree ."),
            Example::bash("git switch --discard-changes main"),
            Example::bash("git switch -f main"),
            Example::bash("git reset --merge"),
            Example::bash("git worktree remove --force ../wt"),
            Example::bash("git submodule deinit -f --all"),
            Example::bash("git checkout-index -a -f"),
            Example::bash("git read-tree --reset -u HEAD"),
            Example::bash("git read-tree -m -u HEAD~1"),
        ],
        allowed: &[
            Example::bash("git submodule deinit vendor/lib"),
            Example::bash("git submodule update --init --recursive"),
            Example::bash("git read-tree HEAD"),
            Example::bash("git checkout -b feature"),
            Example::bash("git checkout main"),
            Example::bash("git switch -c topic"),
            Example::bash("git restore --staged src/lib.rs"),
            Example::bash("git worktree remove ../wt"),
            Example::bash("git reset --keep HEAD~1"),
            Example::bash("git restore --staged ."),
            Example::bash("git checkout src/main.rs"),
        ],
    },
    Rule {
        id: "stash-destroy",
        pack: PACK,
        effect: Ask,
        reason: "Dropping or clearing stashes deletes saved work",
        programs: &["git"],
        check: Check::Command(stash_destroy),
        refused: &[
            Example::bash("git stash clear"),
            Example::bash("git stash drop stash@{0}"),
        ],
        allowed: &[
            Example::bash("git stash"),
            Example::bash("git stash pop"),
            Example::bash("git stash list"),
        ],
    },
    Rule {
        id: "branch-force-delete",
        pack: PACK,
        effect: Ask,
        reason: "Force-deleting a branch can lose unmerged commits",
        programs: &["git"],
        check: Check::Command(branch_force_delete),
        refused: &[
            Example::bash("git branch -D feature"),
            Example::bash("git branch --delete --force old"),
            Example::bash("git branch -f main HEAD~3"),
            Example::bash("git branch -M old main"),
            Example::bash("git checkout -B main origin/main"),
            Example::bash("git switch --force-create=release v1.2.0"),
        ],
        allowed: &[
            Example::bash("git branch -d merged-feature"),
            Example::bash("git branch -a"),
            Example::bash("git branch feature origin/feature"),
            Example::bash("git branch -m old-name new-name"),
            Example::bash("git checkout -B feature/login"),
            Example::bash("git switch -c feature/x origin/main"),
        ],
    },
    Rule {
        id: "history-rewrite",
        pack: PACK,
        effect: Ask,
        reason: "Rewriting or pruning history can lose commits for good",
        programs: &["git"],
        check: Check::Command(history_rewrite),
        refused: &[
            Example::bash("git filter-branch --tree-filter 'rm -f x' HEAD"),
            Example::bash("git reflog expire --expire=now --all"),
            Example::bash("git gc --prune=now"),
            Example::bash("git update-ref refs/heads/main HEAD~5"),
        ],
        allowed: &[
            Example::bash("git gc"),
            Example::bash("git reflog"),
            Example::bash("git update-ref refs/remotes/origin/main abc123"),
        ],
    },
    Rule {
        id: "other-vcs-discard",
        pack: PACK,
        effect: Ask,
        reason: "Discarding uncommitted work or untracked files cannot be undone",
        programs: &["hg", "svn", "fossil"],
        check: Check::Command(other_vcs_discard),
        refused: &[
            Example::bash("hg update -C"),
            Example::bash("hg up --clean default"),
            Example::bash("hg revert --all --no-backup"),
            Example::bash("hg purge --all"),
            Example::bash("hg rollback"),
            Example::bash("hg push -f"),
            Example::bash("svn revert -R ."),
            Example::bash("svn revert src/main.c"),
            Example::bash("svn cleanup --remove-unversioned"),
            Example::bash("fossil clean --verily"),
        ],
        allowed: &[
            Example::bash("hg update default"),
            Example::bash("hg revert --all"),
            Example::bash("hg purge --print"),
            Example::bash("hg push"),
            Example::bash("svn update"),
            Example::bash("svn cleanup"),
            Example::bash("fossil clean -n"),
            Example::bash("hg status"),
        ],
    },
    Rule {
        id: "rm-git-dir",
        pack: PACK,
        effect: Ask,
        reason: "Deleting a `.git` directory deletes the repository's history",
        programs: &[],
        check: Check::Call(rm_git_dir),
        refused: &[
            Example::bash("rm -rf .git"),
            Example::bash("rm -rf /home/dev/project/.git"),
            Example::bash("mv .git /tmp/g && rm -rf /tmp/g"),
            Example::bash("mv -t /tmp .git"),
            Example::bash("find . -name .git -type d -exec rm -rf {} +"),
            Example::bash("python3 -c \"import shutil; shutil.rmtree('.git')\""),
        ],
        allowed: &[
            Example::bash("rm -rf .github/workflows/old.yml"),
            Example::bash("rm .gitignore"),
            Example::bash("mv .git .git.bak"),
            Example::bash("find . -name .gitkeep -delete"),
        ],
    },
];
