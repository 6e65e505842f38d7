//! Self-protection on a real filesystem: symlinked, hard-linked, dangling and glob aliases of
//! protected files, the directories that hold them, session transcripts, the binary, process
//! and agent integrity, and state that fails closed — each through the hook binary as Claude
//! Code runs it, in a temporary HOME.

mod common;

use common::Sandbox;
use serde_json::json;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// A sandbox with Claude Code settings and palisade state in place.
fn installed() -> Sandbox {
    let sb = Sandbox::new();
    let claude = sb.home().join(".claude");
    std::fs::create_dir_all(claude.join("commands")).unwrap();
    std::fs::write(claude.join("settings.json"), "{\"hooks\":{}}\n").unwrap();
    std::fs::create_dir_all(claude.join("projects/-p")).unwrap();
    std::fs::write(claude.join("projects/-p/s1.jsonl"), "{}\n").unwrap();
    std::fs::create_dir_all(sb.data_dir()).unwrap();
    std::fs::create_dir_all(sb.project().join("src")).unwrap();
    sb
}

fn settings(sb: &Sandbox) -> PathBuf {
    sb.home().join(".claude/settings.json")
}

fn write(sb: &Sandbox, path: &Path) -> String {
    sb.hook("Write", json!({"file_path": path, "content": "{}"}))
        .decision()
}

#[track_caller]
fn expect(sb: &Sandbox, command: &str, want: &str) {
    let a = sb.bash(command);
    assert_eq!(a.decision(), want, "{command}: {}", a.reason());
}

#[track_caller]
fn not_deny(sb: &Sandbox, command: &str) {
    let a = sb.bash(command);
    assert_ne!(a.decision(), "deny", "{command}: {}", a.reason());
}

#[test]
fn symlink_aliases_of_protected_files_are_the_files() {
    let sb = installed();
    let alias = sb.project().join("alias.json");
    symlink(settings(&sb), &alias).unwrap();
    assert_eq!(write(&sb, &alias), "deny");
    let edit = sb.hook(
        "Edit",
        json!({"file_path": alias, "old_string": "{", "new_string": "["}),
    );
    assert_eq!(edit.decision(), "deny", "{}", edit.reason());
    expect(&sb, "echo '{}' > alias.json", "deny");
    expect(&sb, "sed -i s/hooks/x/ alias.json", "deny");
    expect(&sb, "sponge alias.json < /dev/null", "deny");
    expect(&sb, "vim -es -c '%d' -c wq alias.json", "deny");
    // Reading through the alias is fine.
    not_deny(&sb, "cat alias.json");
}

#[test]
fn deleting_or_moving_a_link_touches_the_link_not_what_it_points_to() {
    let sb = installed();
    let p = sb.project();
    symlink(sb.home(), p.join("home-link")).unwrap();
    symlink(sb.home().join(".bashrc"), p.join("rc")).unwrap();
    symlink(settings(&sb), p.join("alias.json")).unwrap();
    for command in [
        "rm -rf home-link",
        "rm home-link",
        "unlink rc",
        "rm -f alias.json",
        "mv home-link old-link",
        "cd src && rm ../home-link",
    ] {
        expect(&sb, command, "pass");
    }
    // Through the link, or with the link's own name ending in a slash, it is the target.
    expect(&sb, "rm -rf home-link/", "deny");
    expect(&sb, "rm -rf home-link/.claude", "deny");
    expect(&sb, "mv home-link/ /tmp/h", "deny");
    // Claude Code's settings that are themselves links (a dotfiles manager's): removing the
    // link removes the settings.
    let sb = installed();
    let dotfiles = sb.dir.path().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::rename(settings(&sb), dotfiles.join("settings.json")).unwrap();
    symlink(dotfiles.join("settings.json"), settings(&sb)).unwrap();
    expect(&sb, "rm ~/.claude/settings.json", "deny");
    expect(&sb, "unlink ~/.claude/settings.json", "deny");
    expect(&sb, "mv ~/.claude/settings.json /tmp/s.json", "deny");
    let sb = installed();
    let claude = sb.home().join(".claude");
    let real = sb.dir.path().join("dotfiles-claude");
    std::fs::rename(&claude, &real).unwrap();
    symlink(&real, &claude).unwrap();
    expect(&sb, "rm ~/.claude", "deny");
    expect(&sb, "mv ~/.claude /tmp/c", "deny");
}

#[test]
fn dangling_symlinks_resolve_to_the_protected_file_they_would_create() {
    let sb = installed();
    let pending = sb.project().join("pending.json");
    symlink(sb.home().join(".claude/settings.local.json"), &pending).unwrap();
    assert!(!pending.exists(), "the link dangles");
    assert_eq!(write(&sb, &pending), "deny");
    expect(&sb, "cp /dev/null pending.json", "deny");
    // A dangling link to the policy, two hops away.
    let hop = sb.project().join("hop");
    symlink("pol", &hop).unwrap();
    symlink(
        sb.config_dir().join("palisade/policy.yaml"),
        sb.project().join("pol"),
    )
    .unwrap();
    expect(&sb, "echo 'version: 1' > hop", "deny");
}

#[test]
fn symlinked_claude_dirs_are_protected_where_they_point() {
    let sb = installed();
    let elsewhere = sb.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    symlink(&elsewhere, sb.project().join(".claude")).unwrap();
    assert_eq!(
        write(&sb, &sb.project().join(".claude/settings.json")),
        "deny"
    );
    // The real place the project settings land is protected too.
    assert_eq!(write(&sb, &elsewhere.join("settings.json")), "deny");
    // A symlinked .palisade.yaml.
    let real_policy = sb.dir.path().join("real-policy.yaml");
    std::fs::write(&real_policy, "version: 1\n").unwrap();
    symlink(&real_policy, sb.project().join(".palisade.yaml")).unwrap();
    assert_eq!(write(&sb, &real_policy), "deny");
}

#[test]
fn dot_dot_and_absolute_spellings() {
    let sb = installed();
    let spelled = sb.project().join("../.claude/./settings.json");
    assert_eq!(write(&sb, &spelled), "deny");
    expect(&sb, "echo x > ../.claude/settings.json", "deny");
    expect(
        &sb,
        "cd src && echo x > ../../.claude/settings.json",
        "deny",
    );
}

#[test]
fn dot_dot_after_a_symlink_leaves_the_links_target() {
    // The kernel walks `link/..` from where the link points: with `link` → ~/.claude/commands,
    // `link/../settings.json` is ~/.claude/settings.json, not a project file.
    let sb = installed();
    symlink(
        sb.home().join(".claude/commands"),
        sb.project().join("link"),
    )
    .unwrap();
    let through = sb.project().join("link/../settings.json");
    assert_eq!(write(&sb, &through), "deny");
    expect(&sb, "echo x > link/../settings.json", "deny");
    expect(&sb, "cp /dev/null ./link/../settings.json", "deny");
    expect(&sb, "rm -f src/../link/../settings.json", "deny");
    let mcp = sb.hook(
        "mcp__filesystem__write_file",
        json!({"path": through, "content": "{}"}),
    );
    assert_eq!(mcp.decision(), "deny", "{}", mcp.reason());
    // The same spelling through a plain project folder stays in the project.
    std::fs::create_dir_all(sb.project().join("docs")).unwrap();
    not_deny(&sb, "echo x > docs/../settings.json");
    not_deny(&sb, "cat link/../settings.json");
}

#[test]
fn hard_links_share_the_protected_inode() {
    let sb = installed();
    let h = sb.project().join("h.json");
    std::fs::hard_link(settings(&sb), &h).unwrap();
    assert_eq!(write(&sb, &h), "deny");
    expect(&sb, "echo x >> h.json", "deny");
    expect(&sb, "chmod 000 h.json", "deny");
    // Making the hard link is refused in the first place.
    expect(&sb, "ln ~/.claude/settings.json h2.json", "deny");
    // A hard link to a transcript in a protected tree.
    let t = sb.project().join("t.jsonl");
    std::fs::hard_link(sb.home().join(".claude/projects/-p/s1.jsonl"), &t).unwrap();
    assert_eq!(write(&sb, &t), "deny");
    // A link whose inode no protected file has is the user's own (pnpm's store, `cp -al`
    // trees): every protected file was looked at, so it is written without a question.
    std::fs::write(sb.project().join("a.txt"), "a").unwrap();
    std::fs::hard_link(sb.project().join("a.txt"), sb.project().join("b.txt")).unwrap();
    assert_eq!(write(&sb, &sb.project().join("a.txt")), "pass");
    expect(&sb, "echo x >> b.txt", "pass");
    // An ordinary file is written without a question.
    std::fs::write(sb.project().join("plain.txt"), "x").unwrap();
    assert_eq!(write(&sb, &sb.project().join("plain.txt")), "pass");
}

#[test]
fn globs_that_expand_to_protected_files() {
    let sb = installed();
    expect(&sb, "echo x > ~/.claude/s*.json", "deny");
    expect(&sb, "rm ~/.claude/*.json", "deny");
    expect(&sb, "cp /dev/null ~/.claude/settings.js?n", "deny");
    expect(&sb, "truncate -s0 ~/.claude/projects/*/*.jsonl", "deny");
    not_deny(&sb, "cat ~/.claude/*.json");
    not_deny(&sb, "rm -f ~/.claude/commands/*.md");
}

#[test]
fn directories_holding_protected_files() {
    let sb = installed();
    let evil = sb.project().join("evil");
    std::fs::create_dir_all(&evil).unwrap();
    std::fs::write(evil.join("settings.json"), "{}").unwrap();
    for cmd in [
        "rm -rf ~/.claude",
        "mv ~/.claude ~/.claude.old",
        "chmod 000 ~/.claude",
        "chown -R nobody ~/.claude",
        "cp -r evil/. ~/.claude/",
        "rsync -a evil/ ~/.claude/",
        "tar -xf evil.tar -C ~/.claude",
        "unzip -o evil.zip -d ~/.claude",
        "patch -d ~/.claude -p1 < x.patch",
        "rm -rf .claude",
        "mv evil .claude",
        "git apply --directory=.claude x.patch",
        "find ~/.claude -delete",
        "git --work-tree=$HOME/.claude checkout main -- .",
        "GIT_WORK_TREE=~/.claude git reset --hard",
    ] {
        expect(&sb, cmd, "deny");
    }
    // palisade's state directory and its parents.
    let state_parent = sb.data_dir().parent().unwrap().to_path_buf();
    expect(
        &sb,
        &format!("mv {} /tmp/gone", state_parent.display()),
        "deny",
    );
    expect(&sb, &format!("rm -rf {}", sb.data_dir().display()), "deny");
    // Ordinary work next to them.
    not_deny(&sb, "ls -la ~/.claude");
    not_deny(&sb, "rm -rf build");
    not_deny(&sb, "tar -xf vendor.tar -C src");
    not_deny(&sb, "find . -name '*.pyc' -delete");
    not_deny(&sb, "mkdir -p ~/.claude/commands");
}

#[test]
fn session_transcripts_are_read_only() {
    let sb = installed();
    let t = sb.home().join(".claude/projects/-p/s1.jsonl");
    assert_eq!(write(&sb, &t), "deny");
    assert_eq!(
        write(&sb, &sb.home().join(".claude/projects/-p/new.jsonl")),
        "deny"
    );
    // The event's own transcript_path, wherever it is.
    assert_eq!(write(&sb, &sb.dir.path().join("transcript.jsonl")), "deny");
    expect(&sb, "echo '{}' >> ~/.claude/projects/-p/s1.jsonl", "deny");
    expect(&sb, "rm -rf ~/.claude/projects/-p", "deny");
    let read = sb.hook("Read", json!({"file_path": t}));
    assert_eq!(read.decision(), "pass");
    // Memory notes beside the transcripts stay writable (asked as outside the project).
    let memory = sb.home().join(".claude/projects/-p/memory/MEMORY.md");
    assert_ne!(write(&sb, &memory), "deny");
}

#[test]
fn mcp_filesystem_tools_by_path() {
    let sb = installed();
    let alias = sb.project().join("alias.json");
    symlink(settings(&sb), &alias).unwrap();
    let cases = [
        (
            "mcp__filesystem__write_file",
            json!({"path": alias, "content": "{}"}),
        ),
        (
            "mcp__filesystem__edit_file",
            json!({"path": settings(&sb), "edits": []}),
        ),
        (
            "mcp__filesystem__move_file",
            json!({"source": settings(&sb), "destination": "/tmp/x.json"}),
        ),
        (
            "mcp__fs__delete_directory",
            json!({"path": sb.home().join(".claude")}),
        ),
        (
            "mcp__filesystem__write_file",
            json!({"path": sb.home().join(".claude/projects/-p/s1.jsonl"), "content": ""}),
        ),
    ];
    for (tool, input) in cases {
        let a = sb.hook(tool, input.clone());
        assert_eq!(a.decision(), "deny", "{tool} {input}: {}", a.reason());
    }
    let read = sb.hook("mcp__filesystem__read_file", json!({"path": settings(&sb)}));
    assert_ne!(read.decision(), "deny");
    let own = sb.hook(
        "mcp__filesystem__write_file",
        json!({"path": sb.project().join("notes.md"), "content": "x"}),
    );
    assert_ne!(own.decision(), "deny");
}

#[test]
fn inline_interpreter_code() {
    let sb = installed();
    let alias = sb.project().join("alias.json");
    symlink(settings(&sb), &alias).unwrap();
    expect(
        &sb,
        "python3 -c \"import pathlib; (pathlib.Path.home() / '.claude' / 'settings.json').write_text('{}')\"",
        "deny",
    );
    expect(
        &sb,
        "python3 -c \"open('alias.json', 'w').write('{}')\"",
        "deny",
    );
    expect(
        &sb,
        "node -e \"require('fs').writeFileSync(require('os').homedir() + '/.claude/settings.json', '{}')\"",
        "deny",
    );
    expect(
        &sb,
        "python3 -c \"import os; os.remove(os.path.expanduser('~/.claude/settings.json'))\"",
        "deny",
    );
    // Built at run time from something else: asked.
    expect(
        &sb,
        "python3 -c \"import os,pathlib; pathlib.Path(os.environ['D'], '.claude', 'settings.json').write_text('{}')\"",
        "ask",
    );
    // A literal echo in a substitution is evaluated statically: the target is known, so denied.
    expect(
        &sb,
        "echo '{}' > \"$(echo ~/.claude/settings.json)\"",
        "deny",
    );
    expect(
        &sb,
        "echo '{}' > \"$(cat where)/.claude/settings.json\"",
        "ask",
    );
    not_deny(&sb, "python3 -c \"open('out.txt','w').write('x')\"");
}

#[test]
fn the_binary_and_its_folder() {
    let sb = installed();
    let bin = sb.home().join(".cargo/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("palisade"), "#!/bin/sh\n").unwrap();
    expect(&sb, "chmod -x ~/.cargo/bin/palisade", "deny");
    expect(&sb, "chmod 000 ~/.cargo/bin", "deny");
    expect(&sb, "cp /bin/true ~/.cargo/bin/palisade", "deny");
    expect(&sb, "cargo install --force palisade", "deny");
    let pkg = sb.project().join("fork");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        pkg.join("Cargo.toml"),
        "[package]\nname = \"palisade\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    expect(&sb, "cargo install --path fork --force", "deny");
    let other = sb.project().join("tool");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("Cargo.toml"),
        "[package]\nname = \"tool\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    not_deny(&sb, "cargo install --path tool --force");
    // The binary running this very hook.
    let exe = common::palisade_bin();
    expect(&sb, &format!("chmod -x {}", exe.display()), "deny");
}

#[test]
fn process_and_agent_integrity() {
    let sb = installed();
    for cmd in [
        "kill $(pgrep palisade)",
        "kill -9 `pidof palisade`",
        "pkill pal",
        "pkill -f 'palisade hook'",
        "killall -r 'pal.*'",
        "pgrep -f hook | xargs kill",
        "claude --bare -p hi",
        "claude --settings /tmp/s.json -p hi",
        "claude --dangerously-skip-permissions -p hi",
        "HOME=/tmp/h claude -p hi",
        "CLAUDE_CONFIG_DIR=/tmp/c claude -p hi",
        "PALISADE_DATA_DIR=/tmp/d claude -p hi",
        "BASH_ENV=./f bash -c true",
        "ENV=./f sh -i",
        "bash --rcfile ./f -i",
        "PROMPT_COMMAND='sh ./f' bash -i",
    ] {
        expect(&sb, cmd, "deny");
    }
    for cmd in [
        "kill %1",
        "kill 4242",
        "pkill -f 'vite dev'",
        "killall node",
        "claude -p 'explain this diff'",
        "ENV=production npm start",
    ] {
        not_deny(&sb, cmd);
    }
}

#[test]
fn near_misses_pass() {
    let sb = installed();
    assert_eq!(
        write(&sb, &sb.project().join(".claude/commands/review.md")),
        "pass"
    );
    assert_eq!(
        write(&sb, &sb.project().join("config/settings.json")),
        "pass"
    );
    let read = sb.hook("Read", json!({"file_path": settings(&sb)}));
    assert_eq!(read.decision(), "pass");
    expect(&sb, "ls -la ~/.claude", "pass");
    expect(&sb, "cat ~/.claude/settings.json", "pass");
    expect(&sb, "kill %1", "pass");
}

// ---- state that fails closed ------------------------------------------------------------

fn audit_file(sb: &Sandbox) -> PathBuf {
    sb.data_dir().join("audit.jsonl")
}

#[test]
fn an_audit_log_that_is_a_symlink_or_fifo_is_refused() {
    let sb = installed();
    symlink("/dev/null", audit_file(&sb)).unwrap();
    let a = sb.bash("ls");
    assert_eq!(a.decision(), "deny");
    assert!(a.reason().contains("symbolic link"), "{}", a.reason());
    std::fs::remove_file(audit_file(&sb)).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(audit_file(&sb))
        .status()
        .unwrap();
    assert!(status.success());
    let a = sb.bash("ls");
    assert_eq!(a.decision(), "deny");
    assert!(a.reason().contains("not a regular file"), "{}", a.reason());
    std::fs::remove_file(audit_file(&sb)).unwrap();
    assert_eq!(sb.bash("ls").decision(), "pass");
}

#[test]
fn a_project_policy_cannot_blind_the_record() {
    let sb = installed();
    std::fs::create_dir_all(sb.project().join(".git")).unwrap();
    sb.project_policy("version: 1\naudit:\n  redact: [command]\n  file: /tmp/elsewhere.jsonl\n");
    assert_eq!(sb.bash("echo visible-marker").decision(), "pass");
    let log = std::fs::read_to_string(audit_file(&sb)).unwrap();
    assert!(log.contains("visible-marker"), "{log}");
    let out = sb
        .command()
        .args(["explain"])
        .output()
        .expect("run explain");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("audit.redact"), "{text}");
    assert!(text.contains("audit.file"), "{text}");
}

#[test]
fn an_unreadable_user_policy_is_an_error_not_an_absence() {
    let sb = installed();
    let p = sb.config_dir().join("palisade/policy.yaml");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    symlink(sb.dir.path().join("gone.yaml"), &p).unwrap();
    let a = sb.bash("ls");
    assert_eq!(a.decision(), "deny");
    assert!(a.reason().contains("policy"), "{}", a.reason());
}

#[test]
fn an_ask_that_cannot_be_written_is_a_deny() {
    let sb = installed();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let event = sb.event("Bash", json!({"command": "git push --force origin main"}));
    // The same call with a working stdout asks.
    assert_eq!(sb.hook_raw(event.to_string().as_bytes()).decision(), "ask");
    let a = sb.hook_with(event.to_string().as_bytes(), |c| {
        c.stdout(full);
    });
    assert_eq!(a.code, 2, "{a:?}");
    assert!(a.stderr.contains("could not be written"), "{a:?}");
}

#[test]
fn the_project_root_is_never_root_or_home() {
    // Outside /tmp and /var/tmp, which are write roots of their own: /dev/shm where there is
    // one, else cargo's target tmp dir (which lies under /tmp when the checkout does).
    let base = ["/dev/shm", env!("CARGO_TARGET_TMPDIR")]
        .into_iter()
        .map(PathBuf::from)
        .find(|d| tempfile::tempdir_in(d).is_ok())
        .unwrap();
    if ["/tmp", "/var/tmp"].iter().any(|t| base.starts_with(t)) {
        eprintln!(
            "SKIPPED the_project_root_is_never_root_or_home: no scratch dir outside the temp roots"
        );
        return;
    }
    let dir = tempfile::tempdir_in(&base).unwrap();
    std::fs::create_dir_all(dir.path().join("home/project")).unwrap();
    let sb = Sandbox { dir };
    // cwd `/` with no CLAUDE_PROJECT_DIR; the home directory named as the project.
    for (cwd, target, project) in [
        (
            PathBuf::from("/"),
            PathBuf::from("/opt/palisade-test/x.txt"),
            None,
        ),
        (sb.home(), sb.home().join("notes/x.txt"), Some(sb.home())),
    ] {
        let event = json!({
            "session_id": "s1",
            "cwd": cwd,
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": target, "content": "x"},
        });
        let a = sb.hook_with(event.to_string().as_bytes(), |c| {
            c.current_dir(&cwd);
            if let Some(p) = &project {
                c.env("CLAUDE_PROJECT_DIR", p);
            }
        });
        assert_eq!(a.decision(), "ask", "cwd {}: {}", cwd.display(), a.reason());
    }
}

#[test]
fn refusals_for_a_panic_are_recorded() {
    let sb = installed();
    let a = sb.hook_with(
        sb.event("Bash", json!({"command": "ls"}))
            .to_string()
            .as_bytes(),
        |c| {
            c.env("PALISADE_TEST_PANIC", "1");
        },
    );
    assert_eq!(a.decision(), "deny");
    let log = std::fs::read_to_string(audit_file(&sb)).unwrap();
    assert!(log.contains("error/internal"), "{log}");
}

/// Deletes, moves, mode changes and hard links are judged from the line's effects, so a
/// wrapper, a pipe from `find`, or a link made earlier on the line does not hide the path.
#[test]
fn changes_are_judged_from_effects_through_wrappers() {
    let sb = installed();
    expect(&sb, "find ~/.claude -exec rm -rf {} +", "deny");
    expect(&sb, "find ~/.claude/settings.json | xargs rm -f", "deny");
    expect(&sb, "sudo chmod 000 ~/.claude/settings.json", "deny");
    expect(&sb, "bash -c 'mv ~/.claude /tmp/old'", "deny");
    expect(&sb, "env ln ~/.claude/settings.json s.json", "deny");
    expect(&sb, "rm -rf ~/.claude/*", "deny");
    expect(&sb, "ln -s ~/.claude c && rm -rf c/", "deny");
    expect(
        &sb,
        "ln -s ~/.claude c && chmod 000 c/settings.json",
        "deny",
    );
    expect(&sb, "mv ~/.claude/settings* /tmp/", "deny");
    // Targets still read from argv follow the line's links too.
    expect(&sb, "ln -s ~/.claude c && mv c/settings* /tmp/", "deny");
    expect(
        &sb,
        "ln -s ~/.claude c && rename s/s/t/ c/settings.json",
        "deny",
    );
    expect(
        &sb,
        "sudo rename .json .off ~/.claude/settings.json",
        "deny",
    );
    expect(&sb, "rename 's/json/off/' ~/.claude/settings.json", "deny");
    expect(
        &sb,
        "rename -e 's/json/off/' ~/.claude/settings.json",
        "deny",
    );
    expect(&sb, "mmv ~/.claude/settings.json /tmp/s.json", "deny");
    expect(&sb, "mmv \"$HOME/.claude/settings*\" '/tmp/#1'", "deny");
    // Ordinary work with the same shapes passes.
    not_deny(&sb, "rename 's/.txt/.md/' src/*.txt");
    not_deny(&sb, "mmv 'src/*.txt' 'src/#1.md'");
    not_deny(&sb, "find . -name '*.pyc' | xargs rm -f");
    not_deny(&sb, "find . -name '*.pyc' -exec rm {} +");
    not_deny(&sb, "find src -type f -empty -delete");
    not_deny(&sb, "rm -f ~/.claude/*.bak");
    not_deny(&sb, "mv src/*.log /tmp/");
    not_deny(&sb, "sudo chmod +x src/run.sh");
    not_deny(&sb, "ln src/a.txt src/b.txt");
}

/// In-place editors are writes of the effect layer: wrappers and links made earlier on the
/// line reach them as they reach `sed -i`.
#[test]
fn in_place_editors_are_writes() {
    let sb = installed();
    expect(
        &sb,
        "ln -s ~/.claude c && vim -es -c wq c/settings.json",
        "deny",
    );
    expect(&sb, "sudo ruby -i -pe 1 ~/.claude/settings.json", "deny");
    expect(&sb, "gawk -i inplace 1 ~/.claude/settings.json", "deny");
    expect(
        &sb,
        "echo '{}' | env sponge ~/.claude/settings.json",
        "deny",
    );
    expect(&sb, "ed -s ~/.claude/settings.json < /dev/null", "deny");
    not_deny(&sb, "vim -es -c wq src/a.txt");
    not_deny(&sb, "gawk -i inplace 1 src/a.txt");
}

/// Self-protection judges effects: what `find` deletes by its name tests, a moved glob's
/// pattern, and what git and patch write (checkouts, work trees, patch directories, `touch`)
/// are on the call's effects, so every wrapper, quoting, `cd` and link made on the line is
/// seen through — and ordinary work on the same commands passes.
#[test]
fn deletes_moves_and_git_and_patch_writes_are_judged_as_effects() {
    let sb = installed();
    std::fs::write(sb.project().join(".palisade.yaml"), "version: 1\n").unwrap();
    std::fs::create_dir_all(sb.data_dir().join("ledger")).unwrap();
    std::fs::write(sb.data_dir().join("ledger/0123.db"), "").unwrap();
    std::fs::write(sb.project().join("a.log"), "").unwrap();
    let state = sb.data_dir().parent().unwrap().display().to_string();
    let policy = sb.config_dir().join("palisade/policy.yaml");
    for cmd in [
        // `find` deletes by name, whichever way it deletes.
        "find . -name .palisade.yaml -delete".to_string(),
        "cd src && find .. -name '.palisade.*' -delete".to_string(),
        "find ~/.claude ! -name '*.md' -delete".to_string(),
        "find ~/.claude -name '*.md' -o -type f -delete".to_string(),
        "find ~/.claude -delete -name '*.md'".to_string(),
        "sudo find ~/.claude -iname SETTINGS.JSON -delete".to_string(),
        "find \"$HOME/.claude\" -name 's*.json' -exec rm {} +".to_string(),
        "find ~/.claude -name 'settings\\.js[o]n' -exec rm -f {} \\;".to_string(),
        "find ~/.claude -path '*/.claude/settings*' -delete".to_string(),
        "find ~/.claude -regex '.*\\(settings\\|x\\)\\.json' -delete".to_string(),
        "find ~/.claude -regextype posix-extended -regex '.*(settings|x)\\.json' -delete"
            .to_string(),
        "find ~/.claude -name .claude -exec rm -rf {} +".to_string(),
        "find ~/.claude -type f -print0 | xargs -0 rm -f".to_string(),
        format!("find {state} -name '*.db' -delete"),
        format!("bash -c \"find {state} -name audit.jsonl -delete\""),
        // A moved glob's pattern.
        "mv ~/.claude/s*.json /tmp/".to_string(),
        "cd ~/.claude && mv settings* /tmp/".to_string(),
        "mmv '.claude/settings*' 'old#1'".to_string(),
        // What git and patch write.
        "patch -d ~/.claude -p1 < x.patch".to_string(),
        "cd .. && patch -d .claude -p1 -i /tmp/x.patch".to_string(),
        "git checkout HEAD~5 -- .palisade.yaml".to_string(),
        "git checkout main .palisade.yaml".to_string(),
        "env -i git restore .claude/settings.json".to_string(),
        "git -C ~/.claude checkout -- settings.json".to_string(),
        "ln -s ~/.claude c && git checkout -- c/settings.json".to_string(),
        "GIT_WORK_TREE=\"$HOME/.claude\" git checkout -f main".to_string(),
        "bash -c 'git apply --directory=.claude x.patch'".to_string(),
        // `touch` and `mkdir` on protected paths.
        "touch ~/.claude/settings.json".to_string(),
        // The same find as ordinary work below, where the file it would delete is.
        "cd ~ && find .claude -name '*.json' -delete".to_string(),
        "ln -s ~/.claude c; touch c/settings.local.json".to_string(),
        format!("touch {}", policy.display()),
    ] {
        let a = sb.bash(&cmd);
        assert_eq!(a.decision(), "deny", "{cmd}: {}", a.reason());
        assert!(a.reason().contains("off-limits"), "{cmd}: {}", a.reason());
    }
    // Ordinary work with the same commands: not refused, and not by self-protection.
    for cmd in [
        "find . -name '*.pyc' -delete",
        "find src -name '*.o' -exec rm -f {} +",
        "find . -name '*.tmp' | xargs rm -f",
        "find ~/.claude/commands -name '*.md' -delete",
        // The project has no `.claude/settings.json` for it to delete.
        "find . -name '*.json' -delete",
        "mv *.log logs/",
        "patch -p1 < fix.diff",
        "patch -d src -p1 < fix.diff",
        "git apply fix.patch",
        "git checkout -- src/main.rs",
        "git checkout -b topic",
        "git restore --staged .palisade.yaml",
        "GIT_WORK_TREE=. git status",
        "touch build/stamp",
        "mkdir -p build && touch build/stamp",
    ] {
        let a = sb.bash(cmd);
        assert_ne!(a.decision(), "deny", "{cmd}: {}", a.reason());
        assert!(!a.reason().contains("off-limits"), "{cmd}: {}", a.reason());
    }
    assert_eq!(sb.bash("touch build/stamp").decision(), "pass");
    assert_eq!(sb.bash("patch -p1 < fix.diff").decision(), "pass");
    assert_eq!(sb.bash("find . -name '*.pyc' -delete").decision(), "pass");
}

/// MCP tools no model names are read by their effects (`effects::mcp::infer`): the verb in
/// the tool's name and the arguments that hold paths, not a list of path keys beside them.
#[test]
fn unmodelled_mcp_tools_are_judged_by_their_effects() {
    let sb = installed();
    let claude = sb.home().join(".claude");
    let refused = [
        (
            "mcp__ops__chmod_path",
            json!({"target": claude, "mode": "0777"}),
        ),
        (
            "mcp__ops__change_file_owner",
            json!({"file_path": settings(&sb), "owner": "nobody"}),
        ),
        (
            "mcp__archive__extract_archive",
            json!({"archive": "/tmp/a.zip", "destination": claude}),
        ),
        (
            "mcp__archive__unpack",
            json!({"input": "/tmp/a.tgz", "outputDir": claude}),
        ),
        (
            "mcp__ops__sync_folder",
            json!({"source": "/tmp/x", "target": claude}),
        ),
        (
            "mcp__ops__rename_entry",
            json!({"path": settings(&sb), "new_name": "old.json"}),
        ),
        (
            "mcp__ops__move_entry",
            json!({"from": settings(&sb), "to": "/tmp/y.json"}),
        ),
        (
            "mcp__ops__copy_entry",
            json!({"source": "/tmp/evil.json", "destination": settings(&sb)}),
        ),
        (
            "mcp__notes__save_note",
            json!({"note_path": settings(&sb), "text": "{}"}),
        ),
        (
            "mcp__ops__write_file",
            json!({"params": {"path": settings(&sb), "content": "{}"}}),
        ),
    ];
    for (tool, input) in refused {
        let a = sb.hook(tool, input.clone());
        assert_eq!(a.decision(), "deny", "{tool} {input}: {}", a.reason());
    }
    let ordinary = [
        ("mcp__ops__get_permissions", json!({"path": settings(&sb)})),
        (
            "mcp__archive__extract_archive",
            json!({"archive": "/tmp/a.zip", "destination": sb.project().join("vendor")}),
        ),
        (
            "mcp__ops__chmod_path",
            json!({"target": sb.project().join("run.sh"), "mode": "755"}),
        ),
        (
            "mcp__ops__move_entry",
            json!({"from": sb.project().join("a.md"), "to": sb.project().join("b.md")}),
        ),
        (
            "mcp__mail__send_email",
            json!({"to": "bob@example.com", "subject": "hi", "body": "the build is green"}),
        ),
        (
            "mcp__models__create_model",
            json!({"path": sb.project().join("models/a.bin")}),
        ),
        // A forge's file is not the local one: its content is sent to the forge.
        (
            "mcp__github__create_or_update_file",
            json!({"owner": "o", "repo": "r", "path": ".claude/settings.json",
                   "content": "{}", "message": "m", "branch": "main"}),
        ),
    ];
    for (tool, input) in ordinary {
        let a = sb.hook(tool, input.clone());
        assert_ne!(a.decision(), "deny", "{tool} {input}: {}", a.reason());
    }
}

/// A writer `find -exec` runs on `{}` changes what find selects under its start: judged by
/// find's name tests (`protect::selected_by_name`), as find's deletes are.
#[test]
fn writers_run_by_find_exec_change_what_find_selects() {
    let sb = installed();
    std::fs::write(sb.project().join(".palisade.yaml"), "version: 1\n").unwrap();
    for command in [
        "find ~/.claude -name settings.json -exec truncate -s0 {} \\;",
        "find ~/.claude -type f -exec sed -i 's/PreToolUse/x/' {} +",
        "find ~/.claude -iname 'SETTINGS*' -exec cp /tmp/evil.json {} \\;",
        "find . -name .palisade.yaml -exec truncate -s0 {} \\;",
        "sudo find \"$HOME/.claude\" -maxdepth 1 -name 'settings.*' -exec tee {} \\; < /dev/null",
    ] {
        expect(&sb, command, "deny");
    }
    for command in [
        "find . -name '*.rs' -exec sed -i 's/foo/bar/' {} +",
        "find . -type f -name '*.sh' -exec chmod +x {} \\;",
        "find src -name '*.py' -exec touch {} +",
    ] {
        not_deny(&sb, command);
    }
}
