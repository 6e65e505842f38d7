//! Loading and layering of policy files: strict schema errors name file and line; a project
//! policy can only tighten, and what it tried to loosen is listed, not applied.

use palisade::locations::Locations;
use palisade::policy::{self, Layer, Policy, PolicyError};
use palisade::verdict::Effect;
use std::path::{Path, PathBuf};

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        Env { dir }
    }
    fn root(&self) -> &Path {
        self.dir.path()
    }
    fn home(&self) -> PathBuf {
        self.root().join("home")
    }
    fn project(&self) -> PathBuf {
        self.root().join("project")
    }
    fn user_file(&self) -> PathBuf {
        self.root().join("user.yaml")
    }
    fn project_file(&self) -> PathBuf {
        self.project().join(".palisade.yaml")
    }
    fn locations(&self, explicit: bool) -> Locations {
        Locations {
            home: self.home(),
            user_policy: self.user_file(),
            user_policy_explicit: explicit,
            data_dir: self.root().join("data"),
            claude_dir: self.home().join(".claude"),
        }
    }
    fn user(&self, yaml: &str) -> &Env {
        std::fs::write(self.user_file(), yaml).unwrap();
        self
    }
    fn proj(&self, yaml: &str) -> &Env {
        std::fs::write(self.project_file(), yaml).unwrap();
        self
    }
    fn load(&self) -> Result<Policy, PolicyError> {
        policy::load(&self.locations(false), &self.project())
    }
}

fn user_error(yaml: &str) -> PolicyError {
    let env = Env::new();
    env.user(yaml);
    let err = env.load().expect_err("the policy must not load");
    assert_eq!(err.path, env.user_file(), "error names the file: {err}");
    err
}

#[test]
fn no_files_is_the_default_policy() {
    let env = Env::new();
    let p = env.load().unwrap();
    assert_eq!(p.sources.len(), 1);
    assert_eq!(p.sources[0].layer, Layer::BuiltIn);
    assert!(p.rules.is_empty() && p.disabled_packs.is_empty() && p.ignored.is_empty());
    assert_eq!(p.outside_roots, Effect::Ask);
    assert!(!p.headless);
}

#[test]
fn explicit_user_policy_must_exist() {
    let env = Env::new();
    let err = policy::load(&env.locations(true), &env.project()).unwrap_err();
    assert_eq!(err.path, env.user_file());
    assert!(err.message.contains("does not exist"), "{err}");
}

#[test]
fn unreadable_or_empty_files_are_errors() {
    let env = Env::new();
    env.user("");
    assert!(env.load().unwrap_err().message.contains("empty"));
    env.user("# only a comment\n");
    assert!(env.load().is_err());
    env.user("version: 1\n---\nversion: 1\n");
    assert!(env.load().is_err(), "two documents");
    std::fs::remove_file(env.user_file()).unwrap();
    std::fs::create_dir(env.user_file()).unwrap();
    assert!(env.load().unwrap_err().message.contains("directory"));

    let env = Env::new();
    std::fs::write(env.user_file(), [0xff, 0xfe, b'\n']).unwrap();
    assert!(env.load().unwrap_err().message.contains("UTF-8"));

    let env = Env::new();
    env.proj("not: [valid\n");
    let err = env.load().unwrap_err();
    assert_eq!(err.path, env.project_file());

    // A symbolic link to nothing, at either layer, is a policy that cannot be read: its deny
    // rules must not vanish as if no file were there.
    let env = Env::new();
    std::os::unix::fs::symlink(env.root().join("gone.yaml"), env.user_file()).unwrap();
    assert!(env.load().unwrap_err().message.contains("link to nothing"));
    let env = Env::new();
    std::os::unix::fs::symlink(env.root().join("gone.yaml"), env.project_file()).unwrap();
    let err = env.load().unwrap_err();
    assert_eq!(err.path, env.project_file());
    assert!(err.message.contains("link to nothing"), "{}", err.message);
}

#[test]
fn unknown_top_level_key_names_file_and_line() {
    let err = user_error("version: 1\nheadles: true\n");
    assert_eq!(err.line, Some(2), "{err}");
    assert!(err.message.contains("headles"), "{err}");
}

#[test]
fn unknown_rule_key_is_an_error() {
    let err = user_error(
        "version: 1\nrules:\n  - id: r\n    tools: [Bash]\n    effect: deny\n    resaon: typo\n",
    );
    assert_eq!(err.line, Some(6), "{err}");
    assert!(err.message.contains("resaon"), "{err}");
}

#[test]
fn misspelt_constraint_is_an_error() {
    let err = user_error(
        "version: 1\nrules:\n  - id: r\n    tools: [Read]\n    effect: allow\n    when:\n      file_path: {startswith: /x}\n",
    );
    assert_eq!(err.line, Some(7), "{err}");
    assert!(err.message.contains("startswith"), "{err}");
}

#[test]
fn bad_effect_is_an_error() {
    let err = user_error("version: 1\nrules:\n  - id: r\n    tools: [Bash]\n    effect: block\n");
    assert_eq!(err.line, Some(5), "{err}");
    assert!(err.message.contains("block"), "{err}");
    let err = user_error("version: 1\noutside_roots: allow\n");
    assert_eq!(err.line, Some(2), "{err}");
}

#[test]
fn bad_regex_names_the_rule_and_line() {
    let err = user_error(
        "version: 1\nrules:\n  - id: first\n    tools: [Bash]\n    effect: deny\n  - id: bad-re\n    tools: [Grep]\n    effect: deny\n    when:\n      pattern: {matches: \"([a-z\"}\n",
    );
    assert_eq!(err.line, Some(6), "{err}");
    assert!(err.message.contains("bad-re"), "{err}");
    assert!(err.message.contains("regex"), "{err}");
}

#[test]
fn version_must_be_one() {
    let err = user_error("# header\nversion: 2\n");
    assert_eq!(err.line, Some(2), "{err}");
    assert!(err.message.contains("version 2"), "{err}");
    let err = user_error("headless: true\n");
    assert!(err.message.contains("version"), "{err}");
    assert!(err.line.is_some(), "{err}");
}

#[test]
fn missing_id_or_tools_is_an_error() {
    let err = user_error("version: 1\nrules:\n  - tools: [Bash]\n    effect: deny\n");
    assert!(err.message.contains("id"), "{err}");
    assert_eq!(err.line, Some(3), "{err}");
    let err = user_error("version: 1\nrules:\n  - id: x\n    tools: 5\n    effect: deny\n");
    assert_eq!(err.line, Some(4), "{err}");
    assert!(
        err.message.contains("a string or a list of strings"),
        "{err}"
    );
    let err = user_error("version: 1\nrules:\n  - id: x\n    effect: deny\n");
    assert!(err.message.contains("tools"), "{err}");
    assert!(err.line.is_some(), "{err}");
}

#[test]
fn duplicate_ids_are_errors_within_and_across_layers() {
    let rule = "  - id: same\n    tools: [Bash]\n    effect: deny\n";
    let err = user_error(&format!("version: 1\nrules:\n{rule}{rule}"));
    assert!(err.message.contains("twice"), "{err}");
    assert_eq!(err.line, Some(3), "{err}");

    let env = Env::new();
    env.user(&format!("version: 1\nrules:\n{rule}"));
    env.proj(&format!("version: 1\nrules:\n{rule}"));
    let err = env.load().unwrap_err();
    assert_eq!(err.path, env.project_file());
    assert!(err.message.contains("twice"), "{err}");
}

#[test]
fn other_semantic_errors() {
    for (yaml, needle) in [
        (
            "version: 1\npacks:\n  disable: [publishin]\n",
            "unknown pack",
        ),
        (
            "version: 1\npacks:\n  overrides: {nope/x: deny}\n",
            "unknown pack",
        ),
        (
            "version: 1\npacks:\n  overrides: {force-push: deny}\n",
            "<pack>/<rule-id>",
        ),
        ("version: 1\nroots: [relative/dir]\n", "absolute"),
        ("version: 1\nroots: [~other/dir]\n", "absolute"),
        (
            "version: 1\nrules:\n  - id: r\n    tools: [Bash]\n    effect: deny\n    command: {targets: [etc/x]}\n",
            "must be absolute",
        ),
        (
            "version: 1\nrules:\n  - id: r\n    tools: [Read]\n    effect: deny\n    command: {program: rm}\n",
            "shell tools",
        ),
        (
            "version: 1\nrules:\n  - id: r\n    tools: []\n    effect: deny\n",
            "empty",
        ),
        (
            "version: 1\nrules:\n  - id: r\n    tools: [Bash]\n    effect: deny\n    command: {}\n",
            "at least one",
        ),
        (
            "version: 1\nrules:\n  - id: r\n    tools: [Bash]\n    effect: deny\n    command: {flags: [force]}\n",
            "not a flag",
        ),
        (
            "version: 1\nrules:\n  - id: r\n    tools: [X]\n    effect: deny\n    when: {n: {min: 5, max: 1}}\n",
            "greater",
        ),
        (
            "version: 1\nrules:\n  - id: r\n    tools: [X]\n    effect: deny\n    when: {n: {oneOf: []}}\n",
            "empty",
        ),
        (
            "version: 1\nrules:\n  - id: r\n    tools: [X]\n    effect: deny\n    when: {a..b: {equals: 1}}\n",
            "dotted path",
        ),
        ("version: 1\nrisk: {enabeld: true}\n", "enabeld"),
        ("version: 1\naudit: {onerror: ask}\n", "onerror"),
    ] {
        let err = user_error(yaml);
        assert!(err.message.contains(needle), "{yaml}: {err}");
        assert!(err.line.is_some(), "{yaml}: {err}");
    }
}

#[test]
fn duplicate_when_keys_are_an_error() {
    let err = user_error(
        "version: 1\nrules:\n  - id: r\n    tools: [X]\n    effect: allow\n    when:\n      a: {equals: 1}\n      a: {optional: true}\n",
    );
    assert!(err.line.is_some(), "{err}");
}

#[test]
fn user_layer_applies_everything() {
    let env = Env::new();
    env.user(
        "version: 1\nheadless: true\npacks:\n  disable: [publishing]\n  overrides: {destructive-git/force-push: ask}\nroots: [~/scratch, $HOME/other, /data/x]\noutside_roots: deny\nrules:\n  - id: gh\n    tools: [mcp__github__*]\n    effect: allow\n",
    );
    let p = env.load().unwrap();
    assert_eq!(p.sources.len(), 2);
    assert_eq!(p.sources[1].layer, Layer::User);
    assert!(p.headless);
    assert!(p.disabled_packs.contains("publishing"));
    assert_eq!(
        p.rule_overrides.get("destructive-git/force-push"),
        Some(&Effect::Ask)
    );
    assert_eq!(
        p.roots,
        vec![
            env.home().join("scratch"),
            env.home().join("other"),
            PathBuf::from("/data/x")
        ]
    );
    assert_eq!(p.outside_roots, Effect::Deny);
    assert_eq!(p.rules.len(), 1);
    assert_eq!(p.rules[0].layer, Layer::User);
    assert_eq!(p.rules[0].file, env.user_file());
}

#[test]
fn project_tightening_is_applied() {
    let env = Env::new();
    env.user(
        "version: 1\nroots: [~/scratch]\nrules:\n  - id: u\n    tools: [Bash]\n    effect: ask\n",
    );
    env.proj(
        "version: 1\nheadless: true\noutside_roots: deny\npacks:\n  overrides: {database/destructive-sql: deny}\nroots: [~/scratch/sub]\nrules:\n  - id: p-deny\n    tools: [WebFetch]\n    effect: deny\n  - id: p-ask\n    tools: [Write]\n    effect: ask\n",
    );
    let p = env.load().unwrap();
    assert_eq!(p.sources.last().unwrap().layer, Layer::Project);
    assert!(p.headless);
    assert_eq!(p.outside_roots, Effect::Deny);
    assert_eq!(
        p.rule_overrides.get("database/destructive-sql"),
        Some(&Effect::Deny)
    );
    assert_eq!(p.roots, vec![env.home().join("scratch/sub")]);
    let ids: Vec<_> = p.rules.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["u", "p-deny", "p-ask"]);
    assert_eq!(p.rules[1].layer, Layer::Project);
    assert!(p.ignored.is_empty(), "{:?}", p.ignored);
}

#[test]
fn project_loosening_is_ignored_and_listed() {
    let env = Env::new();
    env.user(
        "version: 1\nheadless: true\noutside_roots: deny\nroots: [~/scratch]\npacks:\n  overrides: {destructive-git/force-push: deny}\n",
    );
    env.proj(
        "version: 1\nheadless: false\noutside_roots: ask\npacks:\n  disable: [secrets]\n  overrides: {destructive-git/force-push: ask, destructive-fs/rm-critical: allow}\nroots: [/, ~/scratch/ok]\nrules:\n  - id: sneaky\n    tools: ['**']\n    effect: allow\n  - id: fine\n    tools: [Bash]\n    effect: deny\n",
    );
    let p = env.load().unwrap();
    assert!(p.headless);
    assert_eq!(p.outside_roots, Effect::Deny);
    assert!(p.disabled_packs.is_empty());
    assert_eq!(
        p.rule_overrides.get("destructive-git/force-push"),
        Some(&Effect::Deny)
    );
    assert!(!p.rule_overrides.contains_key("destructive-fs/rm-critical"));
    assert_eq!(p.roots, vec![env.home().join("scratch/ok")]);
    let ids: Vec<_> = p.rules.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["fine"]);

    let file = env.project_file().display().to_string();
    for needle in [
        "headless: false",
        "outside_roots: ask",
        "packs.disable: secrets",
        "destructive-git/force-push: ask",
        "destructive-fs/rm-critical: allow",
        "roots: /",
        "rule 'sneaky'",
    ] {
        let hit = p.ignored.iter().find(|i| i.contains(needle));
        let hit = hit.unwrap_or_else(|| panic!("{needle} not in {:?}", p.ignored));
        assert!(hit.starts_with(&file), "{hit}");
    }
    assert_eq!(p.ignored.len(), 7, "{:?}", p.ignored);
}

#[test]
fn project_roots_cannot_escape_through_a_symlink() {
    let env = Env::new();
    std::fs::create_dir_all(env.home().join("scratch")).unwrap();
    std::os::unix::fs::symlink("/etc", env.home().join("scratch/etc-link")).unwrap();
    env.user("version: 1\nroots: [~/scratch]\n");
    env.proj("version: 1\nroots: [~/scratch/etc-link]\n");
    let p = env.load().unwrap();
    assert!(p.roots.is_empty(), "{:?}", p.roots);
    assert_eq!(p.ignored.len(), 1, "{:?}", p.ignored);
}

#[test]
fn project_roots_inside_the_project_are_kept() {
    let env = Env::new();
    env.proj("version: 1\nroots: [build]\n");
    let p = env.load().unwrap();
    assert_eq!(p.roots, vec![env.project().join("build")]);
    assert!(p.ignored.is_empty());
}

#[test]
fn project_no_op_settings_are_not_reported() {
    let env = Env::new();
    env.proj("version: 1\nheadless: false\noutside_roots: ask\n");
    let p = env.load().unwrap();
    assert!(p.ignored.is_empty(), "{:?}", p.ignored);
}

/// The examples in docs/POLICY.md load as written, and the project one only tightens.
#[test]
fn documented_examples_load() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/POLICY.md")).unwrap();
    let examples = &doc[doc.find("## Examples").unwrap()..];
    let examples = &examples[..examples[3..]
        .find("\n## ")
        .map_or(examples.len(), |i| i + 3)];
    let blocks: Vec<&str> = examples
        .split("```yaml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    assert_eq!(blocks.len(), 2);
    let env = Env::new();
    env.user(blocks[0]).proj(blocks[1]);
    let p = env.load().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.rules.len(), 8);
    assert!(p.headless);
    assert_eq!(p.roots, vec![env.home().join("scratch/this-repo")]);
    assert!(p.ignored.is_empty(), "{:?}", p.ignored);
}
