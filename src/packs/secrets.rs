//! secrets: reading private keys, credential stores, `.env` files and secret variables.

use super::common::{self, commands_reading_secrets, secret_class, secret_var_in};
use super::{Check, Example, Rule};
use crate::normalize::{Call, CallKind, Scope};
use crate::shell::{Command, ShellAnalysis};
use crate::verdict::Effect::{self, Ask, Deny};

const PACK: &str = "secrets";

/// Secret reads by a shell line, judged on its `Read` effects: each command's strictest read,
/// the first command whose strictest is `want`.
fn shell_reads(call: &Call, scope: &Scope, want: Effect) -> Option<String> {
    let CallKind::Shell { analysis, .. } = &call.kind else {
        return None;
    };
    let secrets = commands_reading_secrets(call, scope);
    analysis.commands.iter().enumerate().find_map(|(i, c)| {
        let (class, path) = secrets.get(i)?.as_ref()?;
        // A command with no program reads only in `$(<file)`.
        let who = if c.program.is_empty() {
            "$(<…)"
        } else {
            &c.program
        };
        (class.effect == want).then(|| format!("`{who}` reads {} ({})", path.display(), class.what))
    })
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
            crate::effects::Effect::Read { path, .. } => Some(path),
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
    // Claude Code's Grep searches hidden files too: printing every line (`content`) of
    // every file under a directory, with no glob or type narrowing it, reads the tree.
    let input = |k: &str| call.input.get(k).and_then(serde_json::Value::as_str);
    let whole_tree = call.tool == "Grep"
        && input("output_mode") == Some("content")
        && input("pattern").is_some_and(crate::effects::matches_every_line)
        && input("glob").is_none()
        && input("type").is_none();
    let tree = whole_tree.then_some(crate::call::Tree::LinksKept);
    paths.into_iter().find_map(|p| {
        let (class, p) = common::read_secret(p, tree, scope)?;
        (class.effect == want).then(|| format!("{} of {} ({})", call.tool, p.display(), class.what))
    })
}

fn key_read_shell(c: &Call, s: &Scope) -> Option<String> {
    shell_reads(c, s, Deny)
}
fn key_read_tool(c: &Call, s: &Scope) -> Option<String> {
    tool_reads(c, s, Deny)
}
fn token_read_shell(c: &Call, s: &Scope) -> Option<String> {
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

/// A debugger or tracer attached to a running process, or its memory dumped: what it reads
/// is that process's memory, keys and tokens included (`gdb -p PID`, `gcore PID`, `lldb
/// --attach-pid`, `strace -p`, `py-spy dump --pid`, `criu dump -t`). Running a program under
/// one (`gdb ./a.out`, `strace -f make`) reads nothing of another's.
fn process_attach(c: &Command, _: &Scope) -> Option<String> {
    let texts: Vec<&str> = c.args.iter().map(|a| a.text.as_str()).collect();
    let has = |x: &str| texts.contains(&x);
    let pid_flag = |short: char, long: &[&str]| {
        c.option_value(Some(short), long).is_some()
            || texts
                .iter()
                .any(|t| long.iter().any(|l| t.strip_prefix('-') == Some(*l)))
    };
    let hit = match c.program.as_str() {
        "gdb" | "gdb-multiarch" | "cgdb" => {
            // What follows `--args` is the debugged program's own command line.
            let own = &texts[..texts
                .iter()
                .position(|t| *t == "--args")
                .unwrap_or(texts.len())];
            let pid = |t: &str| !t.is_empty() && t.chars().all(|ch| ch.is_ascii_digit());
            own.iter().any(|t| {
                matches!(*t, "-p" | "--pid" | "-pid")
                    || t.starts_with("--pid=")
                    || t.strip_prefix("-p").is_some_and(pid)
                    || t.trim_start().starts_with("attach ")
            })
                // `gdb PROGRAM PID`
                || (own.len() == texts.len()
                    && c.operands().get(1).is_some_and(|w| pid(&w.text)))
        }
        "gcore" => !c.operands().is_empty(),
        "lldb" => {
            pid_flag('p', &["attach-pid"])
                || c.option_value(Some('n'), &["attach-name"]).is_some()
                || texts.iter().any(|t| t.contains("process attach"))
        }
        "strace" | "ltrace" => pid_flag('p', &["attach"]),
        "py-spy" => has("dump") && pid_flag('p', &["pid"]),
        "criu" => has("dump"),
        "procdump" => pid_flag('p', &[]),
        _ => false,
    };
    hit.then(|| {
        format!(
            "`{}` reads the memory of a running process",
            c.line().chars().take(70).collect::<String>()
        )
    })
}

/// Cloud secret managers and cluster secrets that print the secret value itself.
fn secret_manager(c: &Command, ops: &[&str]) -> bool {
    let at = |i: usize| ops.get(i).copied().unwrap_or("");
    match c.program.as_str() {
        "kubectl" | "oc"
            if ops
                .windows(2)
                .any(|w| w[0] == "get" && w[1].starts_with("secret")) =>
        {
            c.has_flag(Some('o'), &["output", "template"])
        }
        // Global options (`--region x`) may come first: find the service word.
        "aws" => ops.windows(2).any(|w| {
            (w[0] == "secretsmanager"
                && matches!(w[1], "get-secret-value" | "batch-get-secret-value"))
                || (w[0] == "ssm"
                    && w[1].starts_with("get-parameter")
                    && c.has_flag(None, &["with-decryption"]))
        }),
        "gcloud" if ops.contains(&"secrets") && ops.contains(&"access") => true,
        "az" => at(0) == "keyvault" && at(1) == "secret" && matches!(at(2), "show" | "download"),
        "doppler" | "infisical" => at(0) == "secrets" && matches!(at(1), "" | "get" | "download"),
        "heroku" if at(0) == "config" => true,
        // Infrastructure state holds every resource's secrets in clear (a database's password,
        // a generated private key); `-raw` and `-json` print a sensitive output unredacted.
        "terraform" | "tofu" | "terragrunt" => {
            let whole = texts_have(c, &["-json", "--json"]);
            (at(0) == "state" && at(1) == "pull")
                || (at(0) == "show" && whole)
                || (at(0) == "output"
                    && (whole || texts_have(c, &["-raw", "--raw"]))
                    && names_secret(at(1)))
        }
        "pulumi" => {
            (matches!(at(0), "stack" | "config") && c.has_flag(None, &["show-secrets"]))
                || (at(0) == "config" && at(1) == "get" && names_secret(at(2)))
        }
        "lpass" => at(0) == "show",
        "keepassxc-cli" => {
            at(0) == "show"
                && (c.has_flag(Some('s'), &["show-protected"])
                    || c.option_value(Some('a'), &["attributes"])
                        .is_some_and(|a| a.eq_ignore_ascii_case("password")))
        }
        "chamber" => matches!(at(0), "read" | "export" | "env"),
        "aws-vault" => at(0) == "export",
        "consul" => at(0) == "kv" && at(1) == "get" && names_secret(at(2)),
        "etcdctl" => at(0) == "get" && names_secret(at(1)),
        _ => false,
    }
}

/// Whether the command has one of `words` among its arguments, as written (`terraform`'s
/// single-dash long options).
fn texts_have(c: &Command, words: &[&str]) -> bool {
    c.args.iter().any(|w| words.contains(&w.text.as_str()))
}

/// Whether a key, path or store entry names a secret by one of its parts (`prod/db_password`,
/// `/secrets/db`, `apiToken`).
fn names_secret(key: &str) -> bool {
    key.split(['/', ':', '.']).any(|part| {
        let lower = part.to_ascii_lowercase();
        crate::redact::is_secret_key(part)
            || ["secret", "credential", "password", "passwd"]
                .iter()
                .any(|w| lower.contains(w))
    })
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
                // Temporary credentials: a key id, its secret and a session token.
                || (at(0) == "sts"
                    && matches!(
                        at(1),
                        "get-session-token"
                            | "assume-role"
                            | "assume-role-with-web-identity"
                            | "assume-role-with-saml"
                            | "get-federation-token"
                    ))
                || (at(0) == "codeartifact" && at(1) == "get-authorization-token")
                || (at(0) == "ecr-public" && at(1) == "get-login-password")
        }
        "kubectl" | "oc" => at(0) == "config" && at(1) == "view" && c.has_flag(None, &["raw"]),
        "git" => at(0) == "credential" && matches!(at(1), "fill" | "get"),
        "heroku" => at(0) == "auth:token",
        "op" => matches!(at(0), "read") || (at(0) == "item" && at(1) == "get"),
        "bw" => at(0) == "get",
        "pass" | "gopass" => matches!(at(0), "show" | "") && !ops.is_empty(),
        "vault" => {
            matches!(at(0), "read")
                || (at(0) == "kv" && at(1) == "get")
                || (at(0) == "print" && at(1) == "token")
        }
        "fly" | "flyctl" => at(0) == "auth" && at(1) == "token",
        "cf" => at(0) == "oauth-token",
        p => p.starts_with("docker-credential-") && at(0) == "get",
    } || secret_manager(c, &ops);
    hit.then(|| {
        format!(
            "`{}` prints a live credential",
            c.line().chars().take(60).collect::<String>()
        )
    })
}

/// A credential CLI whose output reaches the conversation. Not when a login reads it on its
/// input (`aws ecr get-login-password | docker login --password-stdin …`), nor when it is
/// substituted into an export, a variable of a command (`GH_TOKEN=$(gh auth token) gh api
/// user`) or a network client's request (`curl -H "Authorization: Bearer $(gcloud auth
/// print-access-token)" …`, judged by `exfiltration/secret-to-network`), unless that client
/// prints its request (`curl -v`).
fn credential_shown(a: &ShellAnalysis, scope: &Scope) -> Option<String> {
    a.commands.iter().enumerate().find_map(|(i, c)| {
        let what = credential_cli(c, scope)?;
        shown(a, i, 0).then_some(what)
    })
}

/// Programs whose output is their arguments: a credential substituted into them is printed.
const ECHOES: &[&str] = &["echo", "printf", "print", "cat", "tee", "say", "logger"];

/// Whether command `i`'s output can reach the conversation (bounded by `depth`: a chain of
/// substitutions and pipes of unknown length is taken to print).
fn shown(a: &ShellAnalysis, i: usize, depth: usize) -> bool {
    let Some(c) = a.commands.get(i) else {
        return true;
    };
    if depth > 8 {
        return true;
    }
    if c.in_substitution {
        // The command the substitution belongs to comes after it; a bare assignment
        // (`T=$(gh auth token)`) leaves none that carries it, and the variable may be
        // printed later: shown.
        let Some(k) = (i + 1..a.commands.len()).find(|&k| !a.commands[k].in_substitution) else {
            return true;
        };
        let parent = &a.commands[k];
        let carries = |w: &crate::shell::Word| common::substitutes_output_of(&w.text, &c.program);
        if parent.env.iter().any(|(_, w)| carries(w)) {
            return false;
        }
        if !parent.args.iter().any(carries) && parent.stdin_text.is_none() {
            return true;
        }
        return match parent.program.as_str() {
            "export" | "declare" | "typeset" | "local" | "readonly" => false,
            p if ECHOES.contains(&p) => shown(a, k, depth + 1),
            p if is_network_client(p) => prints_request(parent),
            _ => true,
        };
    }
    if let Some(k) = a.commands.iter().position(|n| n.stdin_from == Some(i)) {
        let next = &a.commands[k];
        // `--password-stdin`, `--token-stdin`, `gh auth login --with-token`: a login that
        // takes the secret on its input and prints none of it.
        let login = next.args.iter().any(|w| {
            w.text.starts_with("--") && (w.text.contains("stdin") || w.text == "--with-token")
        });
        if login
            || (is_network_client(&next.program) && !prints_request(next))
            || applies_stdin(next)
        {
            return false;
        }
        // A filter (`base64`, `jq`) prints what it makes of it; `cat`/`tee` pass it on.
        return !ECHOES.contains(&next.program.as_str()) || shown(a, k, depth + 1);
    }
    true
}

/// A cluster client that applies its input as a manifest (`kubectl apply -f -`): it prints
/// what it changed, not what it read.
fn applies_stdin(c: &Command) -> bool {
    matches!(c.program.as_str(), "kubectl" | "oc")
        && matches!(c.subcommand(), Some("apply" | "create" | "replace"))
        && c.option_value(Some('f'), &["filename"]).as_deref() == Some("-")
}

/// Clients that send what they are given to a host (judged by the exfiltration pack) rather
/// than print it.
fn is_network_client(p: &str) -> bool {
    crate::vocab::RAW_SENDERS.contains(&p) || crate::vocab::SERVICE_CLIENTS.contains(&p)
}

/// A client that prints the request it sends, headers included (`curl -v`, `wget -d`,
/// `http -v`).
fn prints_request(c: &Command) -> bool {
    c.has_flag(
        Some('v'),
        &["verbose", "trace", "trace-ascii", "print", "debug"],
    ) || (c.program == "wget" && c.has_flag(Some('d'), &["debug"]))
}

/// `env`, `printenv`, `export -p`, `declare -x`, `set`, `cat /proc/*/environ`: every variable,
/// secrets included, is printed, unless a filter for a plainly non-secret name follows.
fn environment_dump(a: &ShellAnalysis, _: &Scope) -> Option<String> {
    a.commands.iter().enumerate().find_map(|(i, c)| {
        // `declare -x NAME=v` exports NAME; only names alone (or none) are printed.
        let prints_names = || {
            c.args
                .iter()
                .any(|w| w.text.starts_with('-') && w.text.contains(['x', 'p']))
                && !c.args.iter().any(|w| w.text.contains('='))
        };
        let dump = common::dumps_environment(c)
            || (c.program == "declare" && prints_names())
            || (c.program == "typeset" && (c.args.is_empty() || prints_names()));
        let environ = c
            .operands()
            .into_iter()
            .chain(c.redirects.iter().map(|r| &r.target))
            .any(|w| w.text.starts_with("/proc/") && w.text.ends_with("/environ"));
        if !dump && !environ {
            return None;
        }
        // `env | grep NODE_`: only the matching names reach the output.
        let filtered = a.commands.iter().any(|n| {
            n.stdin_from == Some(i)
                && matches!(n.program.as_str(), "grep" | "rg" | "egrep")
                && n.operands().first().is_some_and(|pat| {
                    let up = pat.text.to_ascii_uppercase();
                    !pat.dynamic
                        && !["KEY", "TOKEN", "SECRET", "PASS", "AWS", "CRED", "AUTH", "."]
                            .iter()
                            .any(|s| up.contains(s))
                        && !up.is_empty()
                })
        });
        (!filtered).then(|| {
            if environ {
                "a process environment is read from /proc".to_string()
            } else {
                format!("`{}` prints every environment variable", c.line())
            }
        })
    })
}

/// What a search for key material looks for by name: `PRIVATE KEY`, `AKIA`, `password`…
fn names_key_material(pattern: &str) -> bool {
    const MARKERS: &[&str] = &[
        "PRIVATE KEY",
        "BEGIN RSA",
        "BEGIN OPENSSH",
        "BEGIN EC",
        "AKIA",
        "AWS_SECRET",
        "SECRET_ACCESS_KEY",
        "API_KEY",
        "APIKEY",
        "PASSWORD",
        "PASSWD",
        "TOKEN",
        "GHP_",
        "XOXB-",
    ];
    let up = pattern.to_ascii_uppercase();
    MARKERS.iter().any(|m| up.contains(m))
}

/// Whether `pattern`, read as a regular expression with case ignored, finds three characters
/// or more of a secret's usual lines and nothing of ordinary text: `api[_-]?key`,
/// `pass(word|wd)`, `BEGIN [A-Z]+ PRIVATE`, which name no marker literally. A pattern that
/// also finds ordinary words (`.`, `e`, `the`) searches for everything, not for secrets.
fn finds_key_material(pattern: &str) -> bool {
    const SECRET_LINES: &[&str] = &[
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "API_KEY=sk-abc123 apikey: x api-key access_token refresh_token",
        "password: hunter2 passwd PASS=",
        "-----BEGIN RSA PRIVATE KEY----- -----BEGIN OPENSSH PRIVATE KEY-----",
        "-----BEGIN EC PRIVATE KEY----- -----BEGIN PGP PRIVATE KEY BLOCK-----",
        "//registry.npmjs.org/:_authToken=npm_abc ghp_abc xoxb-123 client_secret",
    ];
    const ORDINARY: &str = "the quick brown fox jumps over the lazy dog; fn main() { let x = 1; } \
        TODO FIXME import os def class return if else for while 0123456789 README.md src/lib.rs";
    if pattern.chars().count() < 3 || pattern.len() > 200 {
        return false;
    }
    let Ok(re) = regex_lite::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .size_limit(1 << 16)
        .build()
    else {
        return false;
    };
    !re.is_match(ORDINARY)
        && SECRET_LINES
            .iter()
            .any(|line| re.find_iter(line).any(|m| m.len() >= 3))
}

/// The home directory, the root, or a directory above the home: a search there reaches
/// every secret file the user has.
fn holds_the_home(p: &std::path::Path, scope: &Scope) -> bool {
    p == scope.home() || p == std::path::Path::new("/") || scope.home().starts_with(p)
}

/// `grep -r 'PRIVATE KEY' ~`: a search for key material over the home or the whole disk.
fn key_material_search(c: &Command, scope: &Scope) -> Option<String> {
    let pattern = c.args.iter().find(|w| {
        // `--regexp=P`, `-eP`: the pattern glued to its option.
        let pattern = w
            .text
            .strip_prefix("--regexp=")
            .or_else(|| w.text.strip_prefix("-e").filter(|p| !p.is_empty()))
            .unwrap_or(&w.text);
        names_key_material(&w.text)
            || (!pattern.starts_with('-') && !w.dynamic && finds_key_material(pattern))
    })?;
    let wide = c
        .operands()
        .iter()
        .any(|w| common::word_path(w, c, scope).is_some_and(|(p, _)| holds_the_home(&p, scope)));
    wide.then(|| {
        format!(
            "it searches for `{}` across the home or the disk",
            pattern.text
        )
    })
}

/// The same search by a tool (Claude Code's `Grep`, an MCP server's `search_files`): its
/// `pattern` names key material and what it searches holds the home.
fn key_material_search_tool(call: &Call, scope: &Scope) -> Option<String> {
    if matches!(call.kind, CallKind::Shell { .. }) {
        return None;
    }
    let pattern = call.input.get("pattern")?.as_str()?;
    if !names_key_material(pattern) && !finds_key_material(pattern) {
        return None;
    }
    let mut searched = call.effects.iter().filter_map(|e| match e {
        crate::effects::Effect::Read { path, .. } | crate::effects::Effect::List { path } => {
            Some(path)
        }
        _ => None,
    });
    let wide = match &call.kind {
        CallKind::Read { paths } => paths
            .iter()
            .chain(searched)
            .any(|p| holds_the_home(p, scope)),
        _ => searched.any(|p| holds_the_home(p, scope)),
    };
    wide.then(|| {
        format!(
            "{} searches for `{pattern}` across the home or the disk",
            call.tool
        )
    })
}

/// A program the vocabulary does not know, given a secret file: it may print it. Each word
/// that is no option is taken as a file it may read (its options' values are not known), as
/// `cat` would read it: a public key or `known_hosts` passes as with `cat`. The value of an
/// option the program uses without showing it (`age -i KEY`, `vocab::opaque_option_value`) is
/// no such file.
fn unknown_reader(c: &Command, scope: &Scope) -> Option<String> {
    if crate::vocab::knows_program(&c.program) {
        return None;
    }
    c.args
        .iter()
        .enumerate()
        .filter(|(i, w)| !w.text.starts_with('-') && !crate::vocab::opaque_option_value(c, *i))
        .flat_map(|(_, w)| crate::fileops::word_read_paths(w, c, scope))
        .find_map(|p| {
            let class = secret_class(&p, scope)?;
            Some(format!(
                "`{}` is not a program palisade knows, and it is given {} ({})",
                c.program,
                p.display(),
                class.what
            ))
        })
}

pub static RULES: &[Rule] = &[
    Rule {
        id: "key-material-search",
        pack: PACK,
        effect: Ask,
        reason: "Searching the home directory or the disk for keys and passwords harvests secrets",
        programs: &["grep", "egrep", "rg", "ag", "ack", "git"],
        check: Check::Command(key_material_search),
        refused: &[
            Example::bash("grep -r 'BEGIN RSA PRIVATE KEY' ~"),
            Example::bash("rg -i 'aws_secret_access_key' /home/dev"),
            Example::bash("grep -rIl password /"),
            // Patterns that find secrets without naming a marker.
            Example::bash("grep -rE 'api[_-]?key' ~"),
            Example::bash("rg -l 'BEGIN [A-Z]+ PRIVATE' /home/dev"),
            Example::bash("grep -rniE 'pass(word|wd)' /"),
            Example::bash("grep --regexp=PASSWORD -r /"),
            Example::bash("rg --regexp='api[_-]?key' ~"),
        ],
        allowed: &[
            Example::bash("grep -r password src/"),
            Example::bash("rg TOKEN ."),
            Example::bash("grep -r TODO ~"),
            Example::bash("grep -rn 'def main' ~"),
            Example::bash("rg -n 'import (os|sys)' /home/dev"),
            Example::bash("grep -rn 'e' ~"),
        ],
    },
    Rule {
        id: "key-material-search-tool",
        pack: PACK,
        effect: Ask,
        reason: "Searching the home directory or the disk for keys and passwords harvests secrets",
        programs: &[],
        check: Check::Call(key_material_search_tool),
        refused: &[
            Example::tool(
                "Grep",
                r#"{"pattern":"aws_secret_access_key","path":"/home/dev"}"#,
            ),
            Example::tool(
                "Grep",
                r#"{"pattern":"BEGIN (RSA|OPENSSH) PRIVATE KEY","path":"/","output_mode":"content"}"#,
            ),
            Example::tool("Grep", r#"{"pattern":"password\\s*=","path":"/home"}"#),
            Example::tool("Grep", r#"{"pattern":"(?i)api[_-]?key","path":"~"}"#),
        ],
        allowed: &[
            Example::tool(
                "Grep",
                r#"{"pattern":"password","path":"/home/dev/project/src"}"#,
            ),
            Example::tool("Grep", r#"{"pattern":"TOKEN"}"#),
            Example::tool("Grep", r#"{"pattern":"TODO","path":"/home/dev"}"#),
            Example::tool("Grep", r#"{"pattern":"fn \\w+\\(","path":"/home/dev"}"#),
        ],
    },
    Rule {
        id: "environment-dump",
        pack: PACK,
        effect: Ask,
        reason: "Dumping the environment prints every secret variable into the conversation",
        programs: &[],
        check: Check::Line(environment_dump),
        refused: &[
            Example::bash("env"),
            Example::bash("printenv"),
            Example::bash("export -p"),
            Example::bash("declare -x"),
            Example::bash("cat /proc/1/environ"),
            Example::bash("tr '\\0' '\\n' < /proc/self/environ"),
            Example::bash("env | grep -i key"),
            Example::bash("typeset -p"),
            Example::bash("jq -n env"),
            Example::bash("jq -n '$ENV'"),
            Example::bash("awk 'BEGIN { for (k in ENVIRON) print k \"=\" ENVIRON[k] }'"),
            Example::bash("ps eww -p 1234"),
            Example::bash("ps auxe"),
            Example::bash("sudo env"),
        ],
        allowed: &[
            Example::bash("env | grep NODE_"),
            Example::bash("printenv PATH"),
            Example::bash("env NODE_ENV=test npm test"),
            Example::bash("declare -x NODE_ENV=production"),
            Example::bash("typeset -x LANG=C.UTF-8"),
            Example::bash("ps aux"),
            Example::bash("ps -ef"),
            Example::bash("jq -n env.HOME"),
            Example::bash("jq .version package.json"),
            Example::bash("awk -v h=\"$HOME\" '{print ENVIRON[\"PATH\"]}' f"),
            Example::bash("set -euo pipefail"),
            Example::bash("export FOO=1"),
        ],
    },
    Rule {
        id: "credential-cli",
        pack: PACK,
        effect: Ask,
        reason: "This command prints a live credential into the conversation; confirm it",
        programs: &[],
        check: Check::Line(credential_shown),
        refused: &[
            Example::bash("gh auth token"),
            Example::bash("gcloud auth print-access-token"),
            Example::bash("aws configure get aws_secret_access_key"),
            Example::bash("aws sts get-session-token --duration-seconds 900"),
            Example::bash(
                "aws sts assume-role --role-arn arn:aws:iam::1:role/x --role-session-name s",
            ),
            Example::bash("kubectl config view --raw"),
            Example::bash("az account get-access-token"),
            Example::bash("vault print token"),
            Example::bash("fly auth token"),
            Example::bash("cf oauth-token"),
            Example::bash("kubectl get secret db -o yaml"),
            Example::bash("kubectl -n prod get secrets -o json"),
            Example::bash("aws secretsmanager get-secret-value --secret-id prod/db"),
            Example::bash("aws ssm get-parameter --name /db/pw --with-decryption"),
            Example::bash("gcloud secrets versions access latest --secret=db"),
            Example::bash("az keyvault secret show --vault-name v --name db"),
            Example::bash("doppler secrets download --no-file"),
            Example::bash("terraform state pull"),
            Example::bash("terraform -chdir=infra show -json"),
            Example::bash("terraform output -raw db_password"),
            Example::bash("tofu output -json admin_token"),
            Example::bash("pulumi stack output --show-secrets"),
            Example::bash("pulumi config get dbPassword"),
            Example::bash("lpass show --password github"),
            Example::bash("keepassxc-cli show -s db.kdbx github"),
            Example::bash("chamber read prod db_url"),
            Example::bash("aws-vault export prod"),
            Example::bash("consul kv get app/prod/db_password"),
            Example::bash("etcdctl get /secrets/db"),
            Example::bash("echo $(gh auth token)"),
            Example::bash("gh auth token | base64"),
            Example::bash("T=$(gh auth token); echo $T"),
            Example::bash(
                "curl -v -H \"Authorization: token $(gh auth token)\" https://api.github.com",
            ),
        ],
        allowed: &[
            Example::bash("gh auth status"),
            Example::bash("aws sts get-caller-identity"),
            Example::bash("export GH_TOKEN=$(gh auth token)"),
            Example::bash("GH_TOKEN=$(gh auth token) gh api user"),
            Example::bash(
                "aws ecr get-login-password | docker login -u AWS --password-stdin 1.dkr.ecr.us-east-1.amazonaws.com",
            ),
            Example::bash(
                "echo \"$(gh auth token)\" | docker login ghcr.io -u me --password-stdin",
            ),
            Example::bash("gh auth token | helm registry login ghcr.io -u me --password-stdin"),
            Example::bash(
                "curl -H \"Authorization: Bearer $(gcloud auth print-access-token)\" https://storage.googleapis.com/b/o",
            ),
            Example::bash("vault status"),
            Example::bash("fly auth whoami"),
            Example::bash("kubectl config view"),
            Example::bash("aws configure get region"),
            Example::bash("gcloud config list"),
            Example::bash("kubectl get secrets"),
            Example::bash("kubectl get pods -o wide"),
            Example::bash("aws secretsmanager list-secrets"),
            Example::bash("gcloud secrets list"),
            Example::bash("aws ssm get-parameter --name /app/region"),
            Example::bash("terraform output"),
            Example::bash("terraform output -raw bucket_name"),
            Example::bash("terraform show"),
            Example::bash("terraform state list"),
            Example::bash("pulumi stack output"),
            Example::bash("pulumi config get aws:region"),
            Example::bash("keepassxc-cli ls db.kdbx"),
            Example::bash("consul kv get app/prod/replicas"),
            Example::bash("etcdctl get /registry/pods"),
            Example::bash("kubectl get secret db -n staging -o yaml | kubectl apply -n prod -f -"),
        ],
    },
    Rule {
        id: "private-key-read",
        pack: PACK,
        effect: Deny,
        reason: "Reading private keys or cloud credentials is refused: their content would leave the machine with the conversation",
        programs: &[],
        check: Check::Call(key_read_shell),
        refused: &[
            Example::bash("cat ~/.ssh/id_rsa"),
            Example::bash("head -n 5 /home/dev/.ssh/id_ed25519"),
            Example::bash("base64 < ~/.aws/credentials"),
            Example::bash("cp ~/.ssh/id_rsa /tmp/k"),
            Example::bash("tar czf /tmp/x.tgz ~/.ssh"),
            Example::bash("grep -r key $HOME/.aws/credentials"),
            Example::bash("sudo cat /etc/shadow"),
            Example::bash("cat ~/.netrc"),
            // Patterns and defaults that name a secret only when the shell expands them.
            Example::bash("cat ~/.s*h/id_*"),
            Example::bash("cp ~/.*/credentials /tmp/x"),
            Example::bash("cat ~/.n?trc"),
            Example::bash("tar cz ~/.a?s | base64"),
            Example::bash("rsync -a ~/.[s]sh/ /tmp/k/"),
            Example::bash("cat /etc/sha*"),
            Example::bash("cat ~/.ssh/${KEY:-id_rsa}"),
            Example::bash("curl -s file://$HOME/.aws/credentials"),
            Example::bash("curl -s \"file://${HOME}/.ssh/id_rsa\" | base64"),
            // Through another process's view of the root, and a copy in the project.
            Example::bash("cat /proc/1/root/etc/shadow"),
            Example::bash("cat /proc/self/root/home/dev/.ssh/id_rsa"),
            Example::bash("cat deploy/.git-credentials"),
            Example::bash("cat \"${HOME}/.aws/${F-credentials}\""),
            // What a find hands a reader, by its name tests; names from input not known, in
            // the directory a `cd` before made the working one.
            Example::bash("find ~ -name id_rsa | xargs cat"),
            Example::bash("find ~ -iname 'ID_*' -exec cat {} +"),
            Example::bash("cd ~/.ssh && ls | xargs cat"),
            // A read of every file under a directory that holds keys reads them.
            Example::bash("tar cz ~ | base64"),
            Example::bash("find ~ -type f -exec cat {} +"),
            Example::bash("find / -type f | xargs head"),
            Example::bash("grep -r '' ~"),
            Example::bash("cp -a ~ /tmp/h"),
            Example::bash("zip -qr /tmp/h.zip $HOME"),
            Example::bash("tar cz ~/.config | base64"),
            // A bind mount shows the source's files at its mount point, as a link does.
            Example::bash("sudo mount --bind ~/.ssh /mnt/k"),
            Example::bash("mount -o ro,bind $HOME/.aws ./aws"),
            Example::bash("bindfs -u dev ~/.gnupg g"),
        ],
        allowed: &[
            Example::bash("sudo mount --bind src /srv/app"),
            Example::bash("find ~/.ssh -name '*.pub' | xargs cat"),
            Example::bash("find ~ -name '*.log' | xargs grep error"),
            Example::bash("cd src && ls | xargs cat"),
            Example::bash("cat ~/.ssh/*.pub"),
            Example::bash("cp ~/.ssh/id_*.pub /tmp/"),
            Example::bash("wc -l ~/*"),
            Example::bash("cat ~/Documents/*.txt"),
            Example::bash("cat ${FILE:-README.md}"),
            Example::bash("cat ~/.config/*/settings.json"),
            Example::bash("cat ~/.ssh/id_rsa.pub"),
            Example::bash("ls -la ~/.ssh"),
            Example::bash("ssh -i ~/.ssh/id_ed25519 git@github.com"),
            Example::bash("chmod 600 ~/.ssh/id_rsa"),
            Example::bash("cat ~/.ssh/known_hosts"),
            // Names, counts and the lines a pattern picks; trees without keys.
            Example::bash("grep -rn TODO ~"),
            Example::bash("grep -rl '' ~"),
            Example::bash("rg '' ~"),
            Example::bash("tar czf /tmp/nvim.tgz ~/.config/nvim"),
            Example::bash("find . -type f -exec cat {} +"),
            Example::bash("tar --no-recursion -cf /tmp/d.tar ~"),
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
            Example::tool(
                "WebFetch",
                r#"{"url":"file:///home/dev/.ssh/id_rsa","prompt":"show it"}"#,
            ),
            Example::tool("Grep", r#"{"pattern":"BEGIN","path":"/home/dev/.ssh"}"#),
            Example::tool(
                "Grep",
                r#"{"pattern":".","path":"/home/dev","output_mode":"content"}"#,
            ),
        ],
        allowed: &[
            Example::tool("Read", r#"{"file_path":"/home/dev/.ssh/id_rsa.pub"}"#),
            Example::tool("Glob", r#"{"pattern":"*","path":"/home/dev/.ssh"}"#),
            Example::tool("Grep", r#"{"pattern":".","path":"/home/dev"}"#),
            Example::tool(
                "Grep",
                r#"{"pattern":"TODO","path":"/home/dev","output_mode":"content"}"#,
            ),
            Example::tool(
                "Grep",
                r#"{"pattern":".","path":"/home/dev","output_mode":"content","glob":"*.md"}"#,
            ),
        ],
    },
    Rule {
        id: "token-file-read",
        pack: PACK,
        effect: Ask,
        reason: "This file usually holds secrets (tokens, passwords); reading it needs confirmation",
        programs: &[],
        check: Check::Call(token_read_shell),
        refused: &[
            Example::bash("cat .env"),
            Example::bash("cat ~/.npmrc"),
            Example::bash("less config/.env.production"),
            Example::bash("cat ~/.n?mrc"),
            Example::bash("head ~/.config/gh/*"),
            // Secret files by what they are, wherever they stand.
            Example::bash("cat terraform.tfstate"),
            Example::bash("jq .resources infra/prod.tfstate"),
            Example::bash("cat credentials.json"),
            Example::bash("jq -r .private_key firebase-adminsdk-abc12.json"),
            Example::bash("cat config/secrets.yml"),
            Example::bash("cat .htpasswd"),
            Example::bash("sqlite3 ~/Library/Messages/chat.db 'select text from message'"),
            Example::bash("tar czf /tmp/m.tgz ~/Library/Mail"),
            // Any tool's stored login under home, by the names such files take.
            Example::bash("cat ~/.vercel/auth.json"),
            Example::bash("cat ~/.config/some-cli/api-key.txt"),
            Example::bash("jq . ~/.local/share/foo/Credentials.json"),
        ],
        allowed: &[
            Example::bash("cat ~/.config/some-cli/settings.json"),
            Example::bash("cat ~/.cache/tool/auth.py"),
            Example::bash("cat src/secrets.ts"),
            Example::bash("cat secret_santa.py"),
            Example::bash("terraform show -json plan.out"),
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
        id: "unknown-program-secret",
        pack: PACK,
        effect: Ask,
        reason: "A program palisade does not know is given a secret file and may print it; confirm it",
        programs: &[],
        check: Check::Command(unknown_reader),
        refused: &[
            Example::bash("someprog ~/.ssh/id_rsa"),
            Example::bash("./tools/dump.sh ~/.aws/credentials"),
            Example::bash("keyinfo --verbose ~/.ssh/id_ed25519"),
            Example::bash("age -r age1example -a ~/.ssh/id_rsa"),
        ],
        allowed: &[
            Example::bash("someprog ~/.ssh/id_rsa.pub"),
            Example::bash("someprog ~/.ssh/known_hosts"),
            Example::bash("someprog src/main.rs"),
            Example::bash("ssh-add ~/.ssh/id_rsa"),
            Example::bash("chmod 600 ~/.ssh/id_rsa"),
            Example::bash("code ~/.ssh/id_rsa"),
            Example::bash("age -d -i ~/.ssh/id_ed25519 secrets.age"),
        ],
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
    Rule {
        id: "process-memory",
        pack: PACK,
        effect: Ask,
        reason: "Attaching to a running process or dumping its memory reads every secret it holds",
        programs: &[
            "gdb",
            "gdb-multiarch",
            "cgdb",
            "gcore",
            "lldb",
            "strace",
            "ltrace",
            "py-spy",
            "criu",
            "procdump",
        ],
        check: Check::Command(process_attach),
        refused: &[
            Example::bash("gdb -p $(pgrep ssh-agent) -batch -ex 'dump memory /tmp/m 0x0 0x1000'"),
            Example::bash("gdb --batch --pid=1234 -ex 'generate-core-file /tmp/c'"),
            Example::bash("gdb -batch -ex 'attach 1234' -ex 'info registers'"),
            Example::bash("gdb /usr/bin/python3 4321"),
            Example::bash("gcore -o /tmp/core $(pidof gpg-agent)"),
            Example::bash("lldb --attach-pid 1234"),
            Example::bash("strace -p 1234 -e trace=read -s 4096"),
            Example::bash("sudo py-spy dump --pid 1234 --locals"),
            Example::bash("criu dump -t 1234 -D /tmp/ckpt"),
        ],
        allowed: &[
            Example::bash("gdb ./a.out"),
            Example::bash("gdb -batch -ex run -ex bt --args ./server --port 8080"),
            Example::bash("gdb -ex run --args ./server -p 8080"),
            Example::bash("strace -f -e trace=file make"),
            Example::bash("lldb ./target/debug/app"),
            Example::bash("py-spy record -o profile.svg -- python3 app.py"),
            Example::bash("gcore --version"),
        ],
    },
];

#[cfg(test)]
mod tests {
    use super::finds_key_material;

    #[test]
    fn a_pattern_finds_key_material_when_it_finds_secrets_and_not_ordinary_text() {
        for p in [
            "api[_-]?key",
            "pass(word|wd)",
            "BEGIN [A-Z]+ PRIVATE",
            "AKIA[0-9A-Z]{16}",
            "secret",
            "_authToken",
            "ghp_[a-zA-Z0-9]+",
        ] {
            assert!(finds_key_material(p), "{p}");
        }
        // Everything, too little, ordinary words, what no regex reads.
        for p in [
            ".", "", "e", "ke", "the", ".*", "fn main", "import", "TODO", "(", "[a-z]+",
        ] {
            assert!(!finds_key_material(p), "{p}");
        }
    }
}
