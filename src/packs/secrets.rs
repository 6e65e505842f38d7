//! secrets: reading private keys, credential stores, `.env` files and secret variables.

use super::common::{command_reads_secret, secret_class, secret_var_in};
use super::{Check, Example, Rule};
use crate::normalize::{Call, CallKind, Scope};
use crate::shell::Command;
use crate::verdict::Effect::{self, Ask, Deny};

const PACK: &str = "secrets";

fn shell_reads(c: &Command, scope: &Scope, want: Effect) -> Option<String> {
    let (class, path) = command_reads_secret(c, scope)?;
    (class.effect == want)
        .then(|| format!("`{}` reads {} ({})", c.program, path.display(), class.what))
}

/// Reads by any tool but a shell (whose commands `shell_reads` judges): `Read`, `Grep`, an MCP
/// server's `read_text_file`… Listings (`Glob`, `LS`, `list_directory`) read names only.
fn tool_reads(call: &Call, scope: &Scope, want: Effect) -> Option<String> {
    if matches!(call.kind, CallKind::Shell { .. }) {
        return None;
    }
    let mut paths: Vec<&std::path::PathBuf> = call
        .effects
        .iter()
        .filter_map(|e| match e {
            crate::effects::Effect::Read { path } => Some(path),
            _ => None,
        })
        .collect();
    if let CallKind::Read { paths: read } = &call.kind
        && call.effects.is_empty()
        && call.tool != "Glob"
        && call.tool != "LS"
    {
        paths.extend(read);
    }
    paths.into_iter().find_map(|p| {
        let class = secret_class(p, scope)?;
        (class.effect == want).then(|| format!("{} of {} ({})", call.tool, p.display(), class.what))
    })
}

fn key_read_shell(c: &Command, s: &Scope) -> Option<String> {
    shell_reads(c, s, Deny)
}
fn key_read_tool(c: &Call, s: &Scope) -> Option<String> {
    tool_reads(c, s, Deny)
}
fn token_read_shell(c: &Command, s: &Scope) -> Option<String> {
    shell_reads(c, s, Ask)
}
fn token_read_tool(c: &Call, s: &Scope) -> Option<String> {
    tool_reads(c, s, Ask)
}

fn secret_var(c: &Command, _: &Scope) -> Option<String> {
    match c.program.as_str() {
        "echo" | "printf" | "print" => c
            .args
            .iter()
            .find_map(|a| secret_var_in(&a.text))
            .map(|v| format!("it prints ${v}")),
        "printenv" => c
            .operands()
            .iter()
            .find_map(|a| secret_var_in(&format!("${}", a.text)))
            .map(|v| format!("it prints ${v}")),
        _ => None,
    }
}

fn keychain(c: &Command, _: &Scope) -> Option<String> {
    let first = c.subcommand().unwrap_or("");
    match c.program.as_str() {
        "security"
            if matches!(
                first,
                "find-generic-password" | "find-internet-password" | "dump-keychain" | "export"
            ) =>
        {
            Some(format!("`security {first}` reads the keychain"))
        }
        "gpg" | "gpg2" if c.has_flag(None, &["export-secret-keys", "export-secret-subkeys"]) => {
            Some("it exports private GPG keys".into())
        }
        "secret-tool" if first == "lookup" => Some("it reads the desktop keyring".into()),
        _ => None,
    }
}

/// CLIs that print a live credential: `gh auth token`, `gcloud auth print-access-token`…
pub(crate) fn credential_cli(c: &Command, _: &Scope) -> Option<String> {
    let ops: Vec<&str> = c.operands().iter().map(|w| w.text.as_str()).collect();
    let at = |i: usize| ops.get(i).copied().unwrap_or("");
    let hit = match c.program.as_str() {
        "gh" => at(0) == "auth" && (at(1) == "token" || c.has_flag(Some('t'), &["show-token"])),
        "gcloud" => ops
            .iter()
            .any(|o| matches!(*o, "print-access-token" | "print-identity-token")),
        "az" => at(0) == "account" && at(1) == "get-access-token",
        "aws" => {
            (at(0) == "configure"
                && (at(1) == "export-credentials"
                    || (at(1) == "get" && (at(2).contains("secret") || at(2).contains("token")))))
                || (at(0) == "ecr" && at(1) == "get-login-password")
        }
        "kubectl" | "oc" => at(0) == "config" && at(1) == "view" && c.has_flag(None, &["raw"]),
        "git" => at(0) == "credential" && matches!(at(1), "fill" | "get"),
        "heroku" => at(0) == "auth:token",
        "op" => matches!(at(0), "read") || (at(0) == "item" && at(1) == "get"),
        "bw" => at(0) == "get",
        "pass" | "gopass" => matches!(at(0), "show" | "") && !ops.is_empty(),
        "vault" => matches!(at(0), "read") || (at(0) == "kv" && at(1) == "get"),
        p => p.starts_with("docker-credential-") && at(0) == "get",
    };
    hit.then(|| {
        format!(
            "`{}` prints a live credential",
            c.line().chars().take(60).collect::<String>()
        )
    })
}

pub static RULES: &[Rule] = &[
    Rule {
        id: "credential-cli",
        pack: PACK,
        effect: Ask,
        reason: "This command prints a live credential into the conversation; confirm it",
        programs: &[],
        check: Check::Command(credential_cli),
        refused: &[
            Example::bash("gh auth token"),
            Example::bash("gcloud auth print-access-token"),
            Example::bash("aws configure get aws_secret_access_key"),
            Example::bash("kubectl config view --raw"),
            Example::bash("az account get-access-token"),
        ],
        allowed: &[
            Example::bash("gh auth status"),
            Example::bash("kubectl config view"),
            Example::bash("aws configure get region"),
            Example::bash("gcloud config list"),
        ],
    },
    Rule {
        id: "private-key-read",
        pack: PACK,
        effect: Deny,
        reason: "Reading private keys or cloud credentials is refused: their content would leave the machine with the conversation",
        programs: &[],
        check: Check::Command(key_read_shell),
        refused: &[
            Example::bash("cat ~/.ssh/id_rsa"),
            Example::bash("head -n 5 /home/dev/.ssh/id_ed25519"),
            Example::bash("base64 < ~/.aws/credentials"),
            Example::bash("cp ~/.ssh/id_rsa /tmp/k"),
            Example::bash("tar czf /tmp/x.tgz ~/.ssh"),
            Example::bash("grep -r key $HOME/.aws/credentials"),
            Example::bash("sudo cat /etc/shadow"),
            Example::bash("cat ~/.netrc"),
        ],
        allowed: &[
            Example::bash("cat ~/.ssh/id_rsa.pub"),
            Example::bash("ls -la ~/.ssh"),
            Example::bash("ssh -i ~/.ssh/id_ed25519 git@github.com"),
            Example::bash("chmod 600 ~/.ssh/id_rsa"),
            Example::bash("cat ~/.ssh/known_hosts"),
        ],
    },
    Rule {
        id: "private-key-read-tool",
        pack: PACK,
        effect: Deny,
        reason: "Reading private keys or cloud credentials is refused: their content would leave the machine with the conversation",
        programs: &[],
        check: Check::Call(key_read_tool),
        refused: &[
            Example::tool("Read", r#"{"file_path":"/home/dev/.ssh/id_rsa"}"#),
            Example::tool("Read", r#"{"file_path":"/home/dev/.aws/credentials"}"#),
            Example::tool("Grep", r#"{"pattern":"BEGIN","path":"/home/dev/.ssh"}"#),
        ],
        allowed: &[
            Example::tool("Read", r#"{"file_path":"/home/dev/.ssh/id_rsa.pub"}"#),
            Example::tool("Glob", r#"{"pattern":"*","path":"/home/dev/.ssh"}"#),
        ],
    },
    Rule {
        id: "token-file-read",
        pack: PACK,
        effect: Ask,
        reason: "This file usually holds secrets (tokens, passwords); reading it needs confirmation",
        programs: &[],
        check: Check::Command(token_read_shell),
        refused: &[
            Example::bash("cat .env"),
            Example::bash("cat ~/.npmrc"),
            Example::bash("less config/.env.production"),
        ],
        allowed: &[
            Example::bash("cat .env.example"),
            Example::bash("cp .env.example .env.sample"),
            Example::bash(
                "openssl req -x509 -newkey rsa:2048 -keyout key.pem -out cert.pem -nodes -subj /CN=x",
            ),
        ],
    },
    Rule {
        id: "token-file-read-tool",
        pack: PACK,
        effect: Ask,
        reason: "This file usually holds secrets (tokens, passwords); reading it needs confirmation",
        programs: &[],
        check: Check::Call(token_read_tool),
        refused: &[Example::tool(
            "Read",
            r#"{"file_path":"/home/dev/project/.env"}"#,
        )],
        allowed: &[Example::tool(
            "Read",
            r#"{"file_path":"/home/dev/project/.env.example"}"#,
        )],
    },
    Rule {
        id: "secret-variable",
        pack: PACK,
        effect: Ask,
        reason: "Printing a secret environment variable puts it into the conversation",
        programs: &["echo", "printf", "print", "printenv"],
        check: Check::Command(secret_var),
        refused: &[
            Example::bash("echo $AWS_SECRET_ACCESS_KEY"),
            Example::bash("printenv GITHUB_TOKEN"),
        ],
        allowed: &[Example::bash("echo $PATH"), Example::bash("printenv HOME")],
    },
    Rule {
        id: "keychain-read",
        pack: PACK,
        effect: Ask,
        reason: "Reading the system keychain or exporting private keys needs confirmation",
        programs: &["security", "gpg", "gpg2", "secret-tool"],
        check: Check::Command(keychain),
        refused: &[
            Example::bash("security find-generic-password -s github -w"),
            Example::bash("gpg --export-secret-keys -a"),
        ],
        allowed: &[
            Example::bash("gpg --list-keys"),
            Example::bash("security list-keychains"),
        ],
    },
];
