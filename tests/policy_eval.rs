//! Matching policy rules against calls: tool globs, `when` constraints with their near-miss
//! sentences, and the shell-aware `command` matcher (analyses built by hand).

use palisade::normalize::{Call, CallKind, Scope};
use palisade::paths::PathResolver;
use palisade::policy::{self, Policy, PolicyOutcome};
use palisade::shell::{Command, Redirect, RedirectKind, ShellAnalysis, ShellFinding, Word};
use palisade::verdict::Effect;
use serde_json::{Value, json};
use std::path::PathBuf;

fn policy(rules: &str) -> Policy {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("user.yaml");
    std::fs::write(&user, format!("version: 1\nrules:\n{rules}")).unwrap();
    let loc = palisade::locations::Locations {
        home: "/home/dev".into(),
        user_policy: user,
        user_policy_explicit: true,
        data_dir: dir.path().join("data"),
        claude_dir: dir.path().join(".claude"),
    };
    policy::load(&loc, &dir.path().join("project")).unwrap_or_else(|e| panic!("{e}"))
}

fn scope() -> Scope {
    Scope {
        paths: PathResolver {
            cwd: "/home/dev/project".into(),
            home: "/home/dev".into(),
            follow_symlinks: false,
        },
        project_root: "/home/dev/project".into(),
        roots: vec!["/home/dev/project".into()],
        protected: Default::default(),
        files: Default::default(),
        lines: Default::default(),
    }
}

fn call(tool: &str, input: Value) -> Call {
    Call {
        tool: tool.into(),
        input: input.into(),
        kind: CallKind::Other,
        effects: Vec::new(),
    }
}

fn words(args: &[&str]) -> Vec<Word> {
    args.iter()
        .map(|a| Word {
            text: a.to_string(),
            dynamic: a.contains('$'),
            glob: a.contains('*'),
        })
        .collect()
}

fn cmd(program: &str, args: &[&str]) -> Command {
    Command {
        program: program.into(),
        program_path: program.into(),
        args: words(args),
        ..Default::default()
    }
}

fn shell(commands: Vec<Command>) -> Call {
    shell_with(commands, vec![])
}

fn shell_with(commands: Vec<Command>, findings: Vec<ShellFinding>) -> Call {
    Call {
        tool: "Bash".into(),
        input: json!({"command": "(built by hand)"}).into(),
        kind: CallKind::Shell {
            command: "(built by hand)".into(),
            analysis: ShellAnalysis {
                commands,
                findings,
                ..Default::default()
            },
        },
        effects: Vec::new(),
    }
}

fn eval(p: &Policy, c: &Call) -> PolicyOutcome {
    p.evaluate(c, &scope())
}

fn hit_ids(o: &PolicyOutcome) -> Vec<&str> {
    o.hits.iter().map(|h| h.rule_id.as_str()).collect()
}

#[test]
fn tool_globs_select_rules() {
    let p = policy(
        "  - id: gh\n    tools: [mcp__github__*]\n    effect: allow\n  - id: gh-all\n    tools: ['mcp__github__**']\n    effect: ask\n  - id: edits\n    tools: ['*Edit', Write]\n    effect: ask\n",
    );
    let o = eval(&p, &call("mcp__github__create_issue", json!({})));
    assert_eq!(hit_ids(&o), ["policy:gh", "policy:gh-all"]);
    let o = eval(&p, &call("mcp__github__x__y", json!({})));
    assert_eq!(hit_ids(&o), ["policy:gh-all"]);
    let o = eval(&p, &call("mcp__githubx__y", json!({})));
    assert!(o.hits.is_empty());
    let o = eval(&p, &call("MultiEdit", json!({})));
    assert_eq!(hit_ids(&o), ["policy:edits"]);
    assert_eq!(o.hits[0].effect, Effect::Ask);
    assert!(o.hits[0].reason.contains("'edits'"), "{}", o.hits[0].reason);
    assert!(eval(&p, &call("Bash", json!({}))).hits.is_empty());
}

#[test]
fn reasons_are_the_rules_or_generated() {
    let p = policy(
        "  - id: a\n    tools: [X]\n    effect: deny\n    reason: Never X.\n  - id: b\n    tools: [X]\n    effect: deny\n",
    );
    let o = eval(&p, &call("X", json!({})));
    assert_eq!(o.hits[0].reason, "Never X.");
    assert_eq!(
        o.hits[1].reason,
        "the user policy rule 'b' denies this call"
    );
}

/// One allow rule with one constraint: (input that passes, input that fails, near-miss pieces).
fn constraint_case(when: &str, pass: Value, fail: Value, pieces: &[&str]) {
    let p = policy(&format!(
        "  - id: c\n    tools: [T]\n    effect: allow\n    when:\n      {when}\n"
    ));
    let o = eval(&p, &call("T", pass.clone()));
    assert_eq!(
        hit_ids(&o),
        ["policy:c"],
        "{when} should pass {pass}: {o:?}"
    );
    assert!(o.near_misses.is_empty());
    let o = eval(&p, &call("T", fail.clone()));
    assert!(o.hits.is_empty(), "{when} should fail {fail}");
    assert_eq!(o.near_misses.len(), 1, "{when}");
    let nm = &o.near_misses[0];
    assert!(nm.starts_with("rule 'c' allows T only when "), "{nm}");
    for piece in pieces {
        assert!(nm.contains(piece), "{when}: '{piece}' not in: {nm}");
    }
}

#[test]
fn every_constraint_with_its_near_miss() {
    constraint_case(
        "owner: {equals: acme}",
        json!({"owner": "acme"}),
        json!({"owner": "evil"}),
        &["owner equals 'acme'", "got 'evil'"],
    );
    constraint_case(
        "file_path: {startsWith: [/home/dev/project/, /tmp/]}",
        json!({"file_path": "/tmp/x"}),
        json!({"file_path": "/etc/passwd"}),
        &[
            "file_path starts with one of [/home/dev/project/, /tmp/]",
            "got '/etc/passwd'",
        ],
    );
    constraint_case(
        "file_path: {endsWith: .md}",
        json!({"file_path": "a.md"}),
        json!({"file_path": "a.sh"}),
        &["file_path ends with '.md'", "got 'a.sh'"],
    );
    constraint_case(
        "query: {matches: '^[a-z ]+$'}",
        json!({"query": "hello world"}),
        json!({"query": "DROP TABLE"}),
        &["query matches /^[a-z ]+$/", "got 'DROP TABLE'"],
    );
    constraint_case(
        "file_path: {excludes: ['..']}",
        json!({"file_path": "/home/dev/project/a"}),
        json!({"file_path": "/home/dev/project/../x"}),
        &[
            "file_path does not contain '..'",
            "got '/home/dev/project/../x'",
        ],
    );
    constraint_case(
        "owner: {oneOf: [acme, widgets]}",
        json!({"owner": "widgets"}),
        json!({"owner": "evil"}),
        &["owner is one of [acme, widgets]", "got 'evil'"],
    );
    constraint_case(
        "url: {urlHosts: ['*.github.com', github.com]}",
        json!({"url": "https://api.github.com/repos"}),
        json!({"url": "https://github.com.evil.net/x"}),
        &[
            "url is a URL whose host matches [*.github.com, github.com]",
            "got 'https://github.com.evil.net/x'",
        ],
    );
    constraint_case(
        "limit: {min: 1}",
        json!({"limit": 1}),
        json!({"limit": 0}),
        &["limit is at least 1", "got '0'"],
    );
    constraint_case(
        "limit: {max: 100}",
        json!({"limit": 100.0}),
        json!({"limit": 101}),
        &["limit is at most 100", "got '101'"],
    );
    constraint_case(
        "query: {minLength: 2}",
        json!({"query": "ab"}),
        json!({"query": "a"}),
        &["query has a length of at least 2", "got 'a'"],
    );
    constraint_case(
        "query: {maxLength: 3}",
        json!({"query": "äöü"}),
        json!({"query": "abcd"}),
        &["query has a length of at most 3", "got 'abcd'"],
    );
    constraint_case(
        "edits.0.new_string: {excludes: [eval]}",
        json!({"edits": [{"new_string": "ok"}]}),
        json!({"edits": [{"new_string": "eval(x)"}]}),
        &["edits.0.new_string does not contain 'eval'"],
    );
    constraint_case(
        "flag: {equals: true}",
        json!({"flag": true}),
        json!({"flag": false}),
        &["flag equals 'true'", "got 'false'"],
    );
}

#[test]
fn absent_and_optional_paths() {
    constraint_case(
        "owner: {oneOf: [acme]}",
        json!({"owner": "acme"}),
        json!({"repo": "x"}),
        &["owner is one of [acme]", "it is missing"],
    );
    constraint_case(
        "labels.0: {optional: true, oneOf: [bug]}",
        json!({"labels": []}),
        json!({"labels": ["feature"]}),
        &["labels.0 is one of [bug]", "got 'feature'"],
    );
    // `null` counts as absent.
    constraint_case(
        "owner: {optional: true, equals: acme}",
        json!({"owner": null}),
        json!({"owner": "x"}),
        &["got 'x'"],
    );
}

#[test]
fn all_constraints_must_hold_and_the_first_broken_is_named() {
    let p = policy(
        "  - id: gh-own-org\n    tools: [mcp__github__*]\n    effect: allow\n    when:\n      owner: {oneOf: [acme]}\n      title: {maxLength: 10}\n",
    );
    let ok = call(
        "mcp__github__create_issue",
        json!({"owner": "acme", "title": "t"}),
    );
    assert_eq!(hit_ids(&eval(&p, &ok)), ["policy:gh-own-org"]);
    let bad = call(
        "mcp__github__create_issue",
        json!({"owner": "evil", "title": "t"}),
    );
    let o = eval(&p, &bad);
    assert!(o.hits.is_empty());
    assert_eq!(
        o.near_misses,
        ["rule 'gh-own-org' allows mcp__github__* only when owner is one of [acme]; got 'evil'"]
    );
    let long = call(
        "mcp__github__create_issue",
        json!({"owner": "acme", "title": "x".repeat(1000)}),
    );
    let nm = &eval(&p, &long).near_misses[0];
    assert!(nm.contains("title has a length of at most 10"), "{nm}");
    assert!(nm.len() < 250, "long values are truncated: {nm}");
}

#[test]
fn deny_rules_scope_by_constraints_without_near_misses() {
    let p = policy(
        "  - id: no-prod\n    tools: [WebFetch]\n    effect: deny\n    when:\n      url: {urlHosts: ['*.prod.example.com']}\n",
    );
    let o = eval(
        &p,
        &call("WebFetch", json!({"url": "https://db.prod.example.com/x"})),
    );
    assert_eq!(hit_ids(&o), ["policy:no-prod"]);
    let o = eval(&p, &call("WebFetch", json!({"url": "https://docs.rs/x"})));
    assert!(o.hits.is_empty() && o.near_misses.is_empty());
}

#[test]
fn host_matching_survives_tricks() {
    let p = policy(
        "  - id: gh\n    tools: [WebFetch]\n    effect: allow\n    when:\n      url: {urlHosts: [github.com]}\n",
    );
    for (url, ok) in [
        ("https://github.com/x", true),
        ("https://GitHub.com./x", true),
        ("https://github.com@evil.net/x", false),
        ("https://evil.net/github.com", false),
        ("https://github.com.evil.net", false),
        ("not a url at all", false),
    ] {
        let o = eval(&p, &call("WebFetch", json!({"url": url})));
        assert_eq!(o.hits.len() == 1, ok, "{url}");
    }
}

#[test]
fn command_program_subcommand_flags_args() {
    let p = policy(
        "  - id: no-prod-psql\n    tools: [Bash]\n    effect: deny\n    command:\n      program: [psql, mysql]\n      args: ['*prod*']\n  - id: no-force-push\n    tools: [Bash]\n    effect: deny\n    command:\n      program: git\n      subcommand: push\n      flags: [--force, -f]\n  - id: no-rf\n    tools: [Bash]\n    effect: ask\n    command:\n      program: rm\n      flags: [-r]\n  - id: no-find-delete\n    tools: [Bash]\n    effect: ask\n    command:\n      program: find\n      flags: [-delete]\n",
    );
    let ids =
        |c: Call| -> Vec<String> { eval(&p, &c).hits.into_iter().map(|h| h.rule_id).collect() };
    assert_eq!(
        ids(shell(vec![cmd("psql", &["postgres://prod.db/x"])])),
        ["policy:no-prod-psql"]
    );
    assert!(ids(shell(vec![cmd("psql", &["postgres://staging/x"])])).is_empty());
    assert!(ids(shell(vec![cmd("pg_dump", &["prod"])])).is_empty());
    // Any simple command of the line suffices for a deny rule.
    assert_eq!(
        ids(shell(vec![
            cmd("echo", &["hi"]),
            cmd("mysql", &["-h", "prod-db"])
        ])),
        ["policy:no-prod-psql"]
    );
    assert_eq!(
        ids(shell(vec![cmd("git", &["push", "--force", "origin"])])),
        ["policy:no-force-push"]
    );
    assert_eq!(
        ids(shell(vec![cmd("git", &["push", "--force=yes"])])),
        ["policy:no-force-push"]
    );
    assert_eq!(
        ids(shell(vec![cmd("git", &["push", "-uf", "origin"])])),
        ["policy:no-force-push"]
    );
    assert!(ids(shell(vec![cmd("git", &["push", "origin", "--", "-f"])])).is_empty());
    assert!(ids(shell(vec![cmd("git", &["pull", "--force"])])).is_empty());
    assert!(ids(shell(vec![cmd("git", &["push", "origin"])])).is_empty());
    assert_eq!(
        ids(shell(vec![cmd("rm", &["-rf", "build"])])),
        ["policy:no-rf"]
    );
    assert_eq!(
        ids(shell(vec![cmd("rm", &["-fR", "-r", "x"])])),
        ["policy:no-rf"]
    );
    assert!(ids(shell(vec![cmd("rm", &["-f", "x"])])).is_empty());
    assert_eq!(
        ids(shell(vec![cmd("find", &[".", "-name", "x", "-delete"])])),
        ["policy:no-find-delete"]
    );
    assert!(ids(shell(vec![cmd("find", &[".", "-name", "-deleted"])])).is_empty());
    // A command matcher never matches a non-shell call.
    assert!(ids(call("Bash", json!({"command": "psql prod"}))).is_empty());
}

#[test]
fn command_targets_resolve_paths() {
    let p = policy(
        "  - id: etc\n    tools: [Bash]\n    effect: deny\n    command:\n      targets: ['/etc/**']\n",
    );
    let hits = |c: Call| eval(&p, &c).hits.len();
    assert_eq!(hits(shell(vec![cmd("rm", &["/etc/passwd"])])), 1);
    assert_eq!(hits(shell(vec![cmd("rm", &["-rf", "/etc"])])), 1);
    assert_eq!(hits(shell(vec![cmd("cat", &["../../../etc/shadow"])])), 1);
    assert_eq!(hits(shell(vec![cmd("rm", &["/etcetera"])])), 0);
    assert_eq!(hits(shell(vec![cmd("rm", &["./etc/x"])])), 0);
    let mut in_etc = cmd("rm", &["passwd"]);
    in_etc.cwd = Some("/etc".into());
    assert_eq!(hits(shell(vec![in_etc])), 1);
    let mut redirect = cmd("echo", &["x"]);
    redirect.redirects.push(Redirect {
        fd: None,
        kind: RedirectKind::Write,
        target: Word::literal("/etc/hosts"),
    });
    assert_eq!(hits(shell(vec![redirect])), 1);
    let mut dup = cmd("echo", &["x"]);
    dup.redirects.push(Redirect {
        fd: Some(2),
        kind: RedirectKind::Dup,
        target: Word::literal("1"),
    });
    assert_eq!(hits(shell(vec![dup])), 0);
    // What cannot be known counts as matching for a deny rule.
    assert_eq!(hits(shell(vec![cmd("rm", &["$TARGET"])])), 1);
    let mut from_stdin = cmd("rm", &["-f"]);
    from_stdin.args_from_stdin = true;
    assert_eq!(hits(shell(vec![from_stdin])), 1);
    // `$HOME` is known.
    assert_eq!(hits(shell(vec![cmd("rm", &["$HOME/x"])])), 0);
}

#[test]
fn allow_command_rules_need_every_command_to_match() {
    let p = policy(
        "  - id: git-read\n    tools: [Bash]\n    effect: allow\n    command:\n      program: git\n      subcommand: [status, log, diff]\n  - id: project-writes\n    tools: [Bash]\n    effect: allow\n    command:\n      program: touch\n      targets: ['/home/dev/project/**']\n",
    );
    let o = eval(
        &p,
        &shell(vec![cmd("git", &["status"]), cmd("git", &["log", "-1"])]),
    );
    assert_eq!(hit_ids(&o), ["policy:git-read"]);
    let o = eval(
        &p,
        &shell(vec![cmd("git", &["status"]), cmd("curl", &["evil.sh"])]),
    );
    assert!(o.hits.is_empty());
    assert!(
        o.near_misses.iter().any(|n| n
            == "rule 'git-read' allows Bash only when every command has program 'git'; got 'curl'"),
        "{:?}",
        o.near_misses
    );
    let o = eval(&p, &shell(vec![cmd("git", &["push"])]));
    assert!(
        o.near_misses[0].contains("has subcommand one of [status, log, diff]; got 'push'"),
        "{:?}",
        o.near_misses
    );
    // Findings (unresolvable parts of the line) block an allow.
    let o = eval(
        &p,
        &shell_with(
            vec![cmd("git", &["status"])],
            vec![ShellFinding::DynamicProgram { text: "$x".into() }],
        ),
    );
    assert!(o.hits.is_empty());
    assert!(
        o.near_misses[0].contains("cannot be fully analysed"),
        "{:?}",
        o.near_misses
    );
    // No commands at all is not "every command matched".
    assert!(eval(&p, &shell(vec![])).hits.is_empty());

    let o = eval(&p, &shell(vec![cmd("touch", &["a.txt"])]));
    assert_eq!(hit_ids(&o), ["policy:project-writes"]);
    let o = eval(&p, &shell(vec![cmd("touch", &["/tmp/a"])]));
    assert!(o.hits.is_empty());
    // An unknown target never satisfies an allow.
    let o = eval(&p, &shell(vec![cmd("touch", &["$DIR/a"])]));
    assert!(o.hits.is_empty());
    assert!(
        o.near_misses
            .iter()
            .any(|n| n.contains("cannot be known statically")),
        "{:?}",
        o.near_misses
    );
}

#[test]
fn policy_hits_feed_the_static_verdict() {
    let p = policy(
        "  - id: gh\n    tools: ['mcp__github__*']\n    effect: allow\n    when:\n      owner: {oneOf: [acme]}\n  - id: no-delete\n    tools: [mcp__github__delete_repo]\n    effect: deny\n",
    );
    let s = scope();
    let v = palisade::evaluate::evaluate(
        &p,
        &call("mcp__github__create_issue", json!({"owner": "acme"})),
        &s,
    );
    assert_eq!(v.effect, Some(Effect::Allow));
    assert_eq!(v.rule.as_deref(), Some("policy:gh"));
    let v = palisade::evaluate::evaluate(
        &p,
        &call("mcp__github__delete_repo", json!({"owner": "acme"})),
        &s,
    );
    assert_eq!(v.effect, Some(Effect::Deny));
    let v = palisade::evaluate::evaluate(
        &p,
        &call("mcp__github__create_issue", json!({"owner": "evil"})),
        &s,
    );
    // An allow rule only widens: outside it, the call is judged as if it did not exist; the
    // near miss is in the outcome for `check`/`explain`, not in the verdict.
    assert_eq!(v.effect, None, "{}", v.reason);
    let o = eval(
        &p,
        &call("mcp__github__create_issue", json!({"owner": "evil"})),
    );
    assert!(o.near_misses[0].contains("owner is one of [acme]; got 'evil'"));
}

#[test]
fn default_policy_has_no_opinion_of_its_own() {
    let p = Policy::default();
    let o = eval(&p, &call("Bash", json!({"command": "ls"})));
    assert_eq!(o, PolicyOutcome::default());
    let _ = PathBuf::new();
}

#[test]
fn command_rules_ignore_other_tools() {
    let p = policy(
        "  - id: git-any\n    tools: ['*']\n    effect: allow\n    command: {program: git}\n",
    );
    let o = eval(&p, &call("Write", json!({"file_path": "/x"})));
    assert_eq!(o, PolicyOutcome::default());
    let o = eval(&p, &shell(vec![cmd("git", &["status"])]));
    assert_eq!(hit_ids(&o), ["policy:git-any"]);
}

#[test]
fn target_globs_expand_home_and_match_anywhere() {
    let p = policy(
        "  - id: ssh\n    tools: [Bash]\n    effect: deny\n    command:\n      targets: ['~/.ssh/**', '**/.env']\n",
    );
    let hits = |c: Call| eval(&p, &c).hits.len();
    assert_eq!(hits(shell(vec![cmd("cat", &["/home/dev/.ssh/id_rsa"])])), 1);
    assert_eq!(hits(shell(vec![cmd("cat", &["~/.ssh/config"])])), 1);
    assert_eq!(hits(shell(vec![cmd("cat", &[".env"])])), 1);
    assert_eq!(hits(shell(vec![cmd("cat", &["sub/dir/.env"])])), 1);
    assert_eq!(hits(shell(vec![cmd("cat", &[".envrc"])])), 0);
    assert_eq!(hits(shell(vec![cmd("cat", &["/home/dev/.sshx"])])), 0);
}

/// The call as the hook sees it: normalised, its effects computed.
fn normalized(tool: &str, input: Value) -> Call {
    let event = palisade::event::HookEvent::hypothetical(
        "s",
        std::path::Path::new("/home/dev/project"),
        tool.into(),
        input,
    );
    palisade::normalize::normalize(&event, &scope())
}

/// `paths:` judges the paths a call touches, from its effects, whatever the tool: a deny rule
/// catches an MCP read, a read through a link the line makes and an archive member under
/// `-C`, and no longer matches every call that names no path (an MCP issue, a WebFetch).
#[test]
fn paths_are_the_paths_the_call_touches() {
    let p = policy(
        "  - id: no-vault\n    effect: deny\n    tools: ['**']\n    paths: ['/home/dev/vault/**']\n",
    );
    let denied = |tool: &str, input: Value| {
        hit_ids(&eval(&p, &normalized(tool, input))) == ["policy:no-vault"]
    };
    for (tool, input) in [
        ("Bash", json!({"command": "cat /home/dev/vault/a.txt"})),
        ("Bash", json!({"command": "ln -s ~/vault v && cat v/a.txt"})),
        (
            "Bash",
            json!({"command": "tar czf /tmp/x.tgz -C ~ vault/a.txt"}),
        ),
        (
            "Bash",
            json!({"command": "python3 -c \"open('/home/dev/vault/a.txt').read()\""}),
        ),
        ("Bash", json!({"command": "cat $SOMEWHERE"})),
        (
            "mcp__filesystem__read_text_file",
            json!({"path": "/home/dev/vault/a.txt"}),
        ),
        (
            "mcp__shell__run_command",
            json!({"command": "cat ~/vault/a.txt"}),
        ),
        ("Grep", json!({"pattern": "key", "path": "/home/dev/vault"})),
    ] {
        assert!(denied(tool, input.clone()), "{tool} {input}");
    }
    for (tool, input) in [
        (
            "mcp__github__create_issue",
            json!({"owner": "o", "repo": "r", "title": "t"}),
        ),
        (
            "WebFetch",
            json!({"url": "https://example.com", "prompt": "x"}),
        ),
        (
            "mcp__filesystem__read_text_file",
            json!({"path": "/home/dev/project/a.txt"}),
        ),
        ("Bash", json!({"command": "cat README.md"})),
    ] {
        assert!(!denied(tool, input.clone()), "{tool} {input}");
    }
    // An allow rule still wants every path inside its globs: a program's own settings
    // (`git status` loads ~/.gitconfig) are not paths it touches.
    let allow = policy(
        "  - id: project-only\n    effect: allow\n    tools: [Bash]\n    paths: ['/home/dev/project/**']\n",
    );
    let allowed = |c: &str| {
        hit_ids(&eval(&allow, &normalized("Bash", json!({"command": c}))))
            == ["policy:project-only"]
    };
    assert!(allowed("git status"));
    assert!(allowed("cat src/main.rs"));
    assert!(!allowed("ln -s /etc e && cat e/passwd"));
}
