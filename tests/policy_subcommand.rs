//! The policy `command:` matcher reads subcommands through the program vocabulary: options
//! that take a value before the subcommand (`kubectl -n prod delete`) are skipped, so a user's
//! own rule does not silently stop matching. Checked through the real hook binary.

mod common;

use common::Sandbox;

/// A policy with the built-in packs off, so only the user's rules decide.
const POLICY: &str = "version: 1
packs:
  disable: [destructive-fs, destructive-git, secrets, exfiltration, remote-code, persistence-privilege, database, cloud-infra, publishing, path-escape, shell-analysis]
rules:
  - id: no-kube-delete
    tools: [Bash]
    effect: deny
    command: {program: [kubectl, oc], subcommand: delete}
  - id: no-git-push
    tools: [Bash]
    effect: deny
    command: {program: git, subcommand: push}
  - id: no-docker-rm
    tools: [Bash]
    effect: deny
    command: {program: [docker, podman], subcommand: rm}
  - id: no-destroy
    tools: [Bash]
    effect: deny
    command: {program: [terraform, tofu], subcommand: destroy}
  - id: no-uninstall
    tools: [Bash]
    effect: deny
    command: {program: helm, subcommand: uninstall}
  - id: no-s3-rm
    tools: [Bash]
    effect: deny
    command: {program: aws, subcommand: 's3 rm'}
  - id: kube-get
    tools: [Bash]
    effect: allow
    command: {program: kubectl, subcommand: get}
";

#[test]
fn subcommands_after_value_taking_options_match() {
    let sb = Sandbox::new();
    sb.user_policy(POLICY);
    for (line, rule) in [
        ("kubectl delete pod x", "no-kube-delete"),
        ("kubectl -n prod delete pod x", "no-kube-delete"),
        ("kubectl --namespace prod delete pod x", "no-kube-delete"),
        (
            "kubectl --context c -n x delete deploy web",
            "no-kube-delete",
        ),
        ("oc -n x delete project p", "no-kube-delete"),
        ("git -C dir push origin main", "no-git-push"),
        ("git -c user.name=x push", "no-git-push"),
        ("docker --context c rm -f web", "no-docker-rm"),
        ("docker -H tcp://10.0.0.1:2375 rm web", "no-docker-rm"),
        ("podman --url unix:///run/p.sock rm web", "no-docker-rm"),
        ("terraform -chdir=infra destroy -auto-approve", "no-destroy"),
        ("terraform -chdir infra destroy", "no-destroy"),
        ("helm -n x uninstall web", "no-uninstall"),
        ("helm --kube-context k uninstall web", "no-uninstall"),
        ("aws --profile p s3 rm s3://bucket/key", "no-s3-rm"),
        (
            "aws --region eu-west-1 --profile p s3 rm s3://b --recursive",
            "no-s3-rm",
        ),
        ("sudo kubectl -n prod delete pod x", "no-kube-delete"),
    ] {
        let a = sb.bash(line);
        assert_eq!(a.decision(), "deny", "{line}: {a:?}");
        assert!(a.reason().contains(rule), "{line}: {}", a.reason());
    }
}

#[test]
fn other_subcommands_do_not_match() {
    let sb = Sandbox::new();
    sb.user_policy(POLICY);
    for line in [
        "kubectl -n delete get pods",
        "kubectl -n prod get pods",
        "git -C push status",
        "docker --context rm ps",
        "terraform -chdir=destroy plan",
        "helm -n uninstall list",
        "aws --profile rm s3 ls s3://bucket",
        "aws --profile p s3 cp a s3://b/a",
    ] {
        let a = sb.bash(line);
        assert_ne!(a.decision(), "deny", "{line}: {a:?}");
    }
}

#[test]
fn an_allow_rule_is_not_fooled_by_an_option_value() {
    let sb = Sandbox::new();
    sb.user_policy(POLICY);
    // The value `get` of `-n` is not the subcommand: the allow rule for `get` must not apply.
    let a = sb.bash("kubectl -n get delete pod x");
    assert_eq!(a.decision(), "deny", "{a:?}");
    assert_eq!(sb.bash("kubectl -n prod get pods").decision(), "allow");
}
