//! `palisade policy validate [FILE]` as a script runs it: exit 0 valid, 1 invalid or an example
//! failing; errors a user can act on, at the right line; rule `examples:` run by validate and
//! doctor; the starter policy's commented examples uncomment into a valid policy.

mod common;
use common::Sandbox;

fn validate(sb: &Sandbox, args: &[&str]) -> (i32, String) {
    let out = sb
        .command()
        .args(["policy", "validate"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

fn file(sb: &Sandbox, text: &str) -> String {
    let p = sb.dir.path().join("p.yaml");
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn a_valid_policy_and_the_effective_one() {
    let sb = Sandbox::new();
    let (code, out) = validate(&sb, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("valid: no policy file"), "{out}");
    let f = file(
        &sb,
        "version: 1\nrules:\n  - id: a\n    tools: [Read]\n    effect: deny\n",
    );
    let (code, out) = validate(&sb, &[&f]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("valid: ") && out.contains("(1 rules, 0 examples pass)"),
        "{out}"
    );
}

#[test]
fn errors_name_the_line_and_what_to_write() {
    let sb = Sandbox::new();
    let cases: &[(&str, &str, &str)] = &[
        (
            "version: 1\nrules:\n\t- id: a\n",
            ":3:",
            "a tab indents this line",
        ),
        (
            "version: \"1\"\n",
            ":1:",
            "version must be the number 1, not a string",
        ),
        (
            "version: 1\nheadless: true\nroots: []\nheadless: false\n",
            ":4:",
            "'headless' is given twice (first on line 2)",
        ),
        (
            "version: 1\nrules:\n  - id: a\n    tools: [Bash]\n    effect: deny\n    when:\n      x: {equals: 1}\n      x: {equals: 2}\n",
            ":8:",
            "'x' is given twice (first on line 7)",
        ),
        (
            "version: 1\nroots: ~/scratch\n",
            ":2:",
            "roots must be a list, even of one item: write `roots: [value]`",
        ),
        (
            "version: 1\npacks:\n  overrides: {destructive-git/force-pussh: deny}\n",
            ":3:",
            "did you mean 'force-push'?",
        ),
        (
            "version: 1\nrules:\n  - id: a\n    tools: [Bash]\n    effect: allow\n    overrides: [destructive-git/forcepush]\n    command: {program: git}\n",
            ":3:",
            "did you mean 'destructive-git/force-push'?",
        ),
        (
            "version: 1\nrules:\n  - id: a\n    tools: [Bash]\n    effect: deny\n    comand: {program: x}\n",
            ":6:",
            "unknown field `comand`",
        ),
    ];
    for (text, line, want) in cases {
        let f = file(&sb, text);
        let (code, out) = validate(&sb, &[&f]);
        assert_eq!(code, 1, "{text}: {out}");
        assert!(
            out.contains(&format!("p.yaml{line}")) && out.contains(want),
            "{text}: want {line} {want:?}, got {out}"
        );
    }
}

const WITH_EXAMPLES: &str = "version: 1
rules:
  - id: no-prod-db
    tools: [Bash]
    effect: deny
    command: {program: psql, args: ['*prod*']}
    examples:
      refused: ['psql -h prod-db -c \"select 1\"']
      allowed: ['psql -h staging-db -c \"select 1\"']
  - id: docs
    tools: [WebFetch]
    effect: allow
    when: {url: {urlHosts: [docs.rs]}}
    examples:
      allowed: [{tool: WebFetch, input: {url: 'https://docs.rs/serde', prompt: x}}]
      refused: []
";

#[test]
fn rule_examples_are_run() {
    let sb = Sandbox::new();
    let f = file(&sb, WITH_EXAMPLES);
    let (code, out) = validate(&sb, &[&f]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("(2 rules, 3 examples pass)"), "{out}");
    // An example the rule does not prove fails, with the rule and the call named.
    let broken = WITH_EXAMPLES.replace("psql -h prod-db", "psql -h qa-db");
    let f = file(&sb, &broken);
    let (code, out) = validate(&sb, &[&f]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "rule 'no-prod-db': `psql -h qa-db -c \"select 1\"` should be refused, got pass"
        ),
        "{out}"
    );
    let broken = WITH_EXAMPLES.replace("https://docs.rs/serde", "https://evil.example/x");
    let (code, out) = validate(&sb, &[&file(&sb, &broken)]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("should be allowed by this rule"), "{out}");

    // doctor runs them too.
    sb.user_policy(&WITH_EXAMPLES.replace("psql -h prod-db", "psql -h qa-db"));
    let out = sb.command().arg("doctor").output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        text.contains("policy examples") && text.contains("should be refused"),
        "{text}"
    );
}

/// Uncomments the commented YAML of the starter policy: `#` followed by two spaces or by a key
/// is code; `# ` followed by prose is a comment.
fn uncomment(text: &str) -> String {
    text.lines()
        .map(|l| match l.strip_prefix('#') {
            Some(rest)
                if rest.starts_with("  ")
                    || rest.starts_with(|c: char| c.is_ascii_alphabetic()) =>
            {
                rest.to_string()
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn the_starter_policy_uncomments_into_a_valid_policy() {
    let sb = Sandbox::new();
    let starter = palisade::cli::init::starter_policy();
    let (code, out) = validate(&sb, &[&file(&sb, &starter)]);
    assert_eq!(code, 0, "{out}");
    let open = uncomment(&starter);
    assert_ne!(open, starter);
    assert!(open.contains("\nrules:\n  - id: no-prod-db"), "{open}");
    assert!(open.contains("\naudit:\n  on_error: deny"), "{open}");
    let (code, out) = validate(&sb, &[&file(&sb, &open)]);
    assert_eq!(code, 0, "{open}\n{out}");
    assert!(out.contains("(2 rules, 2 examples pass)"), "{out}");
}

/// The `examples:` block of docs/POLICY.md is valid and its examples pass.
#[test]
fn the_documented_examples_pass() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/POLICY.md")).unwrap();
    let section = &doc[doc.find("## Checking a policy").unwrap()..];
    let block = section
        .split("```yaml\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let sb = Sandbox::new();
    let f = file(&sb, &format!("version: 1\nrules:\n{block}"));
    let (code, out) = validate(&sb, &[&f]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("(2 rules, 3 examples pass)"), "{out}");
}
