//! `explain` shows a reviewer every piece of the effective policy, as text and as JSON.

use palisade::locations::Locations;
use palisade::policy::{self, explain, explain_json};

#[test]
fn explain_shows_every_piece() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let user = dir.path().join("user.yaml");
    std::fs::write(
        &user,
        "version: 1\nheadless: true\npacks:\n  disable: [publishing]\n  overrides: {destructive-git/force-push: ask}\nroots: [~/scratch]\noutside_roots: deny\nrules:\n  - id: gh-own-org\n    tools: ['mcp__github__*']\n    effect: allow\n    reason: Our org only.\n    when:\n      owner: {oneOf: [acme]}\n      labels.0: {optional: true, oneOf: [bug]}\n  - id: no-prod-psql\n    tools: [Bash]\n    effect: deny\n    command: {program: [psql], args: ['*prod*']}\n",
    )
    .unwrap();
    std::fs::write(
        project.join(".palisade.yaml"),
        "version: 1\npacks:\n  disable: [secrets]\nrules:\n  - id: proj-no-fetch\n    tools: [WebFetch]\n    effect: ask\n  - id: proj-allow-all\n    tools: ['**']\n    effect: allow\n",
    )
    .unwrap();
    let loc = Locations {
        home: home.clone(),
        user_policy: user.clone(),
        user_policy_explicit: true,
        data_dir: dir.path().join("data"),
        claude_dir: home.join(".claude"),
    };
    let p = policy::load(&loc, &project).unwrap();
    let text = explain(&p);
    let project_file = project.join(".palisade.yaml").display().to_string();
    for piece in [
        "<built-in>".to_string(),
        format!("user      {}", user.display()),
        format!("project   {project_file}"),
        "headless: yes".into(),
        "outside_roots: deny".into(),
        home.join("scratch").display().to_string(),
        "disabled: publishing".into(),
        "destructive-git/force-push → ask".into(),
        format!("gh-own-org [allow] user policy, {}", user.display()),
        "tools: mcp__github__*".into(),
        "when: owner is one of [acme]".into(),
        "when: labels.0 is one of [bug] (when present)".into(),
        "reason: Our org only.".into(),
        "command: has program 'psql' and has an argument matching '*prod*'".into(),
        format!("proj-no-fetch [ask] project policy, {project_file}"),
        "Built-in rules".into(),
        "Risk backend:".into(),
        "Audit:".into(),
        "Ignored (2):".into(),
        format!("{project_file}: packs.disable: secrets"),
        format!("{project_file}: rule 'proj-allow-all' (effect allow)"),
    ] {
        assert!(text.contains(&piece), "missing {piece:?} in:\n{text}");
    }
    assert!(text.contains("enabled:  destructive-fs"), "{text}");
    assert!(!text.contains("proj-allow-all [allow]"), "{text}");

    let j = explain_json(&p);
    assert_eq!(j["headless"], true);
    assert_eq!(j["outside_roots"], "deny");
    assert_eq!(j["sources"].as_array().unwrap().len(), 3);
    assert_eq!(j["sources"][2]["layer"], "project");
    assert_eq!(j["overrides"]["destructive-git/force-push"], "ask");
    let packs = j["packs"].as_array().unwrap();
    assert!(
        packs
            .iter()
            .any(|p| p["name"] == "publishing" && p["enabled"] == false)
    );
    assert!(
        packs
            .iter()
            .any(|p| p["name"] == "secrets" && p["enabled"] == true)
    );
    let rules = j["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 3);
    assert_eq!(rules[0]["id"], "gh-own-org");
    assert_eq!(rules[0]["layer"], "user");
    assert_eq!(rules[2]["file"], project_file);
    assert_eq!(j["ignored"].as_array().unwrap().len(), 2);
    assert!(j["builtin_rules"].is_array());
    assert_eq!(j["risk"]["enabled"], false);
    assert_eq!(j["audit"]["on_error"], "deny");
}

#[test]
fn explain_of_the_default_policy() {
    let p = policy::Policy::default();
    let text = explain(&p);
    assert!(text.contains("Policy rules (0)"), "{text}");
    assert!(text.contains("disabled: (none)"), "{text}");
    assert!(text.contains("Ignored (0)"), "{text}");
}
