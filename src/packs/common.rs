//! Shared vocabulary of the packs: which paths are critical or secret, which programs send
//! data over the network, read files, or interpret code.

use crate::normalize::{Call, Scope};
use crate::shell::{Command, RedirectKind, ShellAnalysis};
use crate::verdict::Effect;
use std::path::{Path, PathBuf};

pub use crate::call::Span;
pub use crate::fileops::{inline_code_paths, word_path};
pub use crate::vocab::{
    DECODERS, DOWNLOADERS, NETWORK_SENDERS, dumps_environment, inline_code, is_local_host,
    is_remote_spec, positionals, secret_var_in,
};

/// Top-level system directories whose loss breaks the machine.
pub const SYSTEM_DIRS: &[&str] = &[
    "/etc",
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/var",
    "/boot",
    "/opt",
    "/root",
    "/sys",
    "/proc",
    "/dev",
    "/srv",
    "/home",
    "/Users",
    "/System",
    "/Library",
    "/Applications",
    "/private",
    "/snap",
    "/usr/bin",
    "/usr/lib",
    "/usr/local",
    "/usr/sbin",
    "/var/lib",
    "/var/log",
];

/// Whether a secret is one whose reading is refused outright, or one a human should confirm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecretClass {
    pub effect: Effect,
    pub what: &'static str,
}

/// Credential files and directories at fixed places under home, for the directories above
/// them (`secret_class` says what each one is).
const CREDENTIAL_LOCATIONS: &[&str] = &[
    ".ssh/id_rsa",
    ".aws/credentials",
    ".gnupg/private-keys-v1.d",
    ".config/gcloud/credentials.db",
    ".azure/accessTokens.json",
    ".config/git/credentials",
    ".password-store",
    ".local/share/keyrings",
    ".docker/config.json",
    ".kube/config",
    ".config/gh/hosts.yml",
    ".gem/credentials",
    ".cargo/credentials.toml",
    ".config/hub",
    ".terraform.d/credentials.tfrc.json",
    ".config/sops/age/keys.txt",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".config/rclone/rclone.conf",
    ".config/doctl/config.yaml",
    ".config/hcloud/cli.toml",
    ".fly/config.yml",
    ".oci/config",
    ".config/configstore/firebase-tools.json",
    ".config/ngrok/ngrok.yml",
    ".ngrok2/ngrok.yml",
    ".wakatime.cfg",
    ".pulumi/credentials.json",
    ".config/glab-cli/config.yml",
    ".sentryclirc",
    ".circleci/cli.yml",
    ".dbt/profiles.yml",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".railway/config.json",
    ".supabase/access-token",
    ".config/netlify/config.json",
    ".local/share/com.vercel.cli/auth.json",
    ".config/.wrangler/config/default.toml",
    ".wrangler/config/default.toml",
    ".terraformrc",
    ".snowflake/connections.toml",
    ".mozilla/firefox",
    ".config/google-chrome",
    ".config/chromium",
    "Library/Keychains",
    "Library/Application Support/Google/Chrome",
];

const PRIVATE_KEY_NAMES: &[&str] = &[
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
    "id_ed25519_sk",
];

/// Classifies a resolved path as a secret: private keys and credential stores are `Deny`,
/// `.env` files and tool tokens are `Ask`.
pub fn secret_class(path: &Path, scope: &Scope) -> Option<SecretClass> {
    let named = named_secret(path, &file_name(path), scope);
    let p = path.to_string_lossy();
    if !p.contains(['*', '?', '[']) {
        return named.or_else(|| linked_secret(path, scope));
    }
    match (named, pattern_secret(&p, scope)) {
        (Some(a), Some(b)) if b.effect > a.effect => Some(b),
        (a, b) => a.or(b),
    }
}

/// Secrets at fixed places that a pattern is matched against (`cat ~/.s*h/id_*`, `cp
/// ~/.*/credentials`, `cat /etc/sha*`): the credential locations under home, each private key
/// name in `.ssh`, the single files `named_secret` names there, and those outside home.
const HOME_SECRET_FILES: &[&str] = &[
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".mylogin.cnf",
    ".claude/.credentials.json",
    ".vault-token",
    ".npmrc",
    ".pypirc",
    ".my.cnf",
    ".boto",
    ".s3cfg",
    ".databrickscfg",
    ".dockercfg",
    ".cargo/credentials",
    ".aws/sso/cache/token.json",
    ".config/age/keys.txt",
    ".gnupg/secring.gpg",
    ".bash_history",
    ".zsh_history",
];
const SYSTEM_SECRET_FILES: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/ssh/ssh_host_rsa_key",
    "/etc/ssh/ssh_host_ecdsa_key",
    "/etc/ssh/ssh_host_ed25519_key",
    "/proc/self/environ",
    "/proc/1/environ",
];

/// The secrets at fixed places: the credential locations and single files under home (the
/// macOS ones only in a macOS home), each private key name in `~/.ssh`, and those outside it.
fn fixed_secrets(scope: &Scope) -> impl Iterator<Item = PathBuf> + '_ {
    let home = scope.home();
    // `Library` holds the keychain only in a macOS home.
    let macos = home.starts_with("/Users");
    CREDENTIAL_LOCATIONS
        .iter()
        .chain(HOME_SECRET_FILES)
        .filter(move |rel| macos || !rel.starts_with("Library/"))
        .map(move |rel| home.join(rel))
        .chain(
            PRIVATE_KEY_NAMES
                .iter()
                .map(move |k| home.join(".ssh").join(k)),
        )
        .chain(SYSTEM_SECRET_FILES.iter().map(PathBuf::from))
}

/// The strictest secret a shell pattern can name, matched as the shell would (a wildcard does
/// not match a leading dot) against every secret at a fixed place and the directories above it.
fn pattern_secret(pattern: &str, scope: &Scope) -> Option<SecretClass> {
    let home = scope.home();
    let compiled = crate::protect::PathPattern::new(pattern);
    let mut best: Option<SecretClass> = None;
    // `~/*` matches `Library` wherever it is a plain directory: `fixed_secrets` names it
    // only in a macOS home.
    for secret in fixed_secrets(scope) {
        for place in secret
            .ancestors()
            .take_while(|a| *a != home && a.as_os_str().len() > 1)
        {
            if compiled.matches(place)
                && let Some(class) = named_secret(place, &file_name(place), scope)
                && best.as_ref().is_none_or(|b| class.effect > b.effect)
            {
                best = Some(class);
            }
        }
    }
    best
}

/// Names that are secrets wherever they stand, for what a `find` may select by name anywhere
/// under its start: the private keys (`PRIVATE_KEY_NAMES`), and these environment files and
/// key stores.
const SECRET_NAMES: &[&str] = &[
    ".env",
    ".env.local",
    ".env.production",
    "prod.env",
    "server.pem",
    "server.key",
    "store.p12",
    "store.pfx",
    "store.jks",
    "release.keystore",
];

/// The strictest secret a `find` hands a reader under `start` (resolved), among the entries
/// that pass every name test of `found`: the secrets at fixed places below the start and the
/// directories between, a name that is a secret wherever it stands (`SECRET_NAMES`) and an
/// instance of each `-name` pattern (`id_*` as `id_x`) right under it, and, under a start
/// that is itself a secret place, what the file view lists there. A start is not read
/// whole: `find ~ -name '*.log' | xargs grep error` passes, `find ~ -name id_rsa | xargs cat`
/// reads a key, and `find ~/.ssh -name '*.pub'` only public keys.
pub fn found_secret(
    start: &Path,
    found: &crate::call::Found,
    scope: &Scope,
) -> Option<(SecretClass, PathBuf)> {
    let mut entries: Vec<PathBuf> = fixed_places_below(scope, start, true).collect();
    let instances = found
        .names
        .iter()
        .filter(|t| t.on == crate::call::NameMatch::Name)
        .map(|t| pattern_instance(&t.pattern));
    entries.extend(
        PRIVATE_KEY_NAMES
            .iter()
            .chain(SECRET_NAMES)
            .map(|n| n.to_string())
            .chain(instances)
            .map(|n| start.join(n)),
    );
    entries.extend(listed_if_secret(scope, start));
    let shown_at = |path: &Path, root: &Path, shown_root: &str| {
        path.strip_prefix(root)
            .ok()
            .map(|rest| format!("{}/{}", shown_root.trim_end_matches('/'), rest.display()))
    };
    let passes = |path: &Path, shown: Option<String>| {
        shown.is_some_and(|shown| {
            found
                .names
                .iter()
                .all(|t| crate::protect::name_test_passes(t, path, &shown))
        })
    };
    let mut selected: Vec<PathBuf> = entries
        .into_iter()
        .filter(|e| passes(e, shown_at(e, start, &found.start)))
        .collect();
    // On disk, the links find hands over: one whose own name passes is read as what it points
    // to (`find . -name '*.txt' -exec cat {} +` with `creds.txt` → ~/.aws/credentials); with
    // `-L`, find goes on into a linked directory, whose secrets are judged under the link's
    // name (`find -L . -name 'id_*'` through `keys` → ~/.ssh).
    if found.links {
        for link in crate::protect::links_below(scope, start) {
            let Some(shown) = shown_at(&link, start, &found.start) else {
                continue;
            };
            let Ok(target) = std::fs::canonicalize(&link) else {
                continue;
            };
            if target.is_dir() {
                if found.follows {
                    let below = fixed_places_below(scope, &target, true)
                        .chain(listed_if_secret(scope, &target));
                    for e in below {
                        if passes(&e, shown_at(&e, &target, &shown)) {
                            selected.push(e);
                        }
                    }
                }
            } else if passes(&link, Some(shown)) {
                selected.push(target);
            }
        }
    }
    strictest(selected.into_iter(), scope)
}

/// What the file view lists below `dir` when `dir` is itself a secret place (`~/.ssh`): a
/// key there may have any name. Nothing for any other directory.
fn listed_if_secret(scope: &Scope, dir: &Path) -> Vec<PathBuf> {
    if named_secret(dir, &file_name(dir), scope).is_some() {
        crate::protect::listed_below(scope, dir)
    } else {
        Vec::new()
    }
}

/// The secrets at fixed places strictly below `dir` and the directories between (`~/.ssh`
/// for `~/.ssh/id_rsa` below `~`); with `existing`, only those whose secret the file view
/// may hold.
fn fixed_places_below<'a>(
    scope: &'a Scope,
    dir: &'a Path,
    existing: bool,
) -> impl Iterator<Item = PathBuf> + 'a {
    fixed_secrets(scope)
        .filter(move |s| s.starts_with(dir) && s != dir)
        .filter(move |s| !existing || scope.files.may_exist(s))
        .flat_map(move |secret| {
            secret
                .ancestors()
                .take_while(|a| *a != dir)
                .map(Path::to_path_buf)
                .collect::<Vec<_>>()
        })
}

/// The strictest secret among `places`, with where it lies.
fn strictest(
    places: impl Iterator<Item = PathBuf>,
    scope: &Scope,
) -> Option<(SecretClass, PathBuf)> {
    let mut best: Option<(SecretClass, PathBuf)> = None;
    for place in places {
        if let Some(class) = named_secret(&place, &file_name(&place), scope)
            && best.as_ref().is_none_or(|(b, _)| class.effect > b.effect)
        {
            best = Some((class, place));
        }
    }
    best
}

/// The strictest of what a read of `path` itself takes and, for a read of a whole tree, what
/// the tree holds (`held_secret`): `~/.config` asks as a whole and holds `~/.config/gcloud`,
/// which is refused.
pub fn read_secret(
    path: &Path,
    tree: Option<crate::call::Tree>,
    scope: &Scope,
) -> Option<(SecretClass, PathBuf)> {
    let own = secret_class(path, scope).map(|c| (c, path.to_path_buf()));
    let held = tree.and_then(|t| held_secret(path, t, scope));
    match (own, held) {
        (Some(own), Some(held)) if held.0.effect > own.0.effect => Some(held),
        (own, held) => own.or(held),
    }
}

/// The strictest secret a read of every file under `dir` (resolved) takes, with where it
/// lies: a secret at a fixed place below it (`tar cz ~`, `find ~ -type f -exec cat {} +`
/// read `~/.ssh/id_rsa`), and when the read follows links, what a link in the tree points to
/// or holds (`grep -R '' .` in a project holding a link to `~/.aws`); the links only in the
/// disk's view, by a bounded walk. A name that is a secret wherever it stands (`.env`) is not
/// counted: a copy or archive of a project holds its own.
fn held_secret(
    dir: &Path,
    tree: crate::call::Tree,
    scope: &Scope,
) -> Option<(SecretClass, PathBuf)> {
    // A secret place's directories count as it does (`~/.ssh` holds keys of any name). They
    // are not looked up: nearly every developer's home holds keys, and a lexical world
    // (`replay`) has no files to look at.
    let fixed_below = |dir: &Path| strictest(fixed_places_below(scope, dir, false), scope);
    let mut best = fixed_below(dir);
    if tree == crate::call::Tree::LinksKept
        || best.as_ref().is_some_and(|(b, _)| b.effect == Effect::Deny)
    {
        return best;
    }
    for link in crate::protect::links_below(scope, dir) {
        let target = crate::paths::resolve_existing_prefix(&link);
        if target.starts_with(dir) {
            continue;
        }
        let found = secret_class(&target, scope)
            .map(|c| (c, target.clone()))
            .or_else(|| fixed_below(&target));
        if let Some((class, path)) = found
            && best.as_ref().is_none_or(|(b, _)| class.effect > b.effect)
        {
            best = Some((class, path));
        }
    }
    best
}

/// One name a find `-name` pattern matches: each wildcard as `x` (`id_*` as `id_x`), a bracket
/// expression as its first character, `\c` as `c`.
fn pattern_instance(pattern: &str) -> String {
    let mut out = String::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' | '?' => out.push('x'),
            '\\' => out.extend(chars.next()),
            '[' => {
                let mut first = None;
                for d in chars.by_ref() {
                    if d == ']' && first.is_some() {
                        break;
                    }
                    if first.is_none() && !matches!(d, '!' | '^') {
                        first = Some(d);
                    }
                }
                out.push(first.unwrap_or('x'));
            }
            c => out.push(c),
        }
    }
    out
}

/// A regular file with other hard links is the secret whose (device, inode) it shares
/// (`ln ~/.ssh/id_rsa notes.txt; cat notes.txt`). One `stat` of the read file; the secrets
/// at fixed places (and every file in `~/.ssh`) are looked up only when it has other links.
/// Only the disk view has inodes: in a lexical world (`check`, `replay`) no file is linked.
fn linked_secret(path: &Path, scope: &Scope) -> Option<SecretClass> {
    let files = &scope.files;
    let file = files.identity(path)?;
    if !file.is_file || file.links < 2 {
        return None;
    }
    let ssh = scope.home().join(".ssh");
    let in_ssh: Vec<PathBuf> = files
        .names(&ssh)
        .unwrap_or_default()
        .into_iter()
        .map(|n| ssh.join(n))
        .collect();
    fixed_secrets(scope)
        .chain(in_ssh)
        .filter(|secret| secret != path)
        .find(|secret| {
            files
                .identity(secret)
                .is_some_and(|m| m.is_file && m.id == file.id)
        })
        .and_then(|secret| named_secret(&secret, &file_name(&secret), scope))
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default()
}

/// Whether a file's name is one tools give their stored logins: `auth.json`, `credentials`,
/// `token`, `api_key.txt`… (a data format's extension or none).
fn login_file_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let stem = match lower.rsplit_once('.') {
        Some((stem, "json" | "yaml" | "yml" | "toml" | "txt" | "cfg" | "conf" | "ini")) => stem,
        Some(_) => return false,
        None => lower.as_str(),
    };
    let stem = stem.replace('-', "_");
    matches!(
        stem.as_str(),
        "auth"
            | "credentials"
            | "credential"
            | "creds"
            | "oauth_creds"
            | "token"
            | "tokens"
            | "access_token"
            | "accesstoken"
            | "auth_token"
            | "refresh_token"
            | "api_key"
            | "apikey"
            | "api_token"
            | "secret"
            | "secrets"
    )
}

/// `secret_class` of a path read as named (a pattern's characters taken literally).
fn named_secret(path: &Path, name: &str, scope: &Scope) -> Option<SecretClass> {
    let home = scope.home();
    let deny = |what| {
        Some(SecretClass {
            effect: Effect::Deny,
            what,
        })
    };
    let ask = |what| {
        Some(SecretClass {
            effect: Effect::Ask,
            what,
        })
    };
    if PRIVATE_KEY_NAMES.contains(&name) {
        return deny("a private SSH key");
    }
    if let Ok(rel) = path.strip_prefix(home) {
        let rel = rel.to_string_lossy();
        let rel = rel.as_ref();
        if rel == ".ssh"
            || rel == ".aws"
            || rel == ".gnupg"
            || rel == ".config/gcloud"
            || rel == ".azure"
        {
            return deny("a credential directory");
        }
        if let Some(file) = rel.strip_prefix(".ssh/") {
            let public = file.ends_with(".pub")
                || matches!(
                    file,
                    "known_hosts"
                        | "known_hosts.old"
                        | "config"
                        | "authorized_keys"
                        | "authorized_keys2"
                );
            if !public {
                return deny("a private SSH key");
            }
            return None;
        }
        if rel == ".aws/credentials"
            || rel.starts_with(".aws/sso/cache")
            || rel.starts_with(".aws/cli/cache")
        {
            return deny("AWS credentials");
        }
        if rel.starts_with(".config/gcloud/")
            && (rel.contains("credentials")
                || rel.ends_with("access_tokens.db")
                || rel.contains("legacy_credentials"))
        {
            return deny("Google Cloud credentials");
        }
        if rel.starts_with(".azure/") {
            return deny("Azure credentials");
        }
        if matches!(
            rel,
            ".netrc" | ".git-credentials" | ".config/git/credentials" | ".pgpass" | ".mylogin.cnf"
        ) {
            return deny("stored login credentials");
        }
        if rel == ".claude/.credentials.json" {
            return deny("Claude Code's own login token");
        }
        if rel == ".vault-token" {
            return deny("a Vault token (it opens every secret the vault holds)");
        }
        if rel == ".config/sops/age/keys.txt" || rel.starts_with(".config/age/") {
            return deny("a private age key");
        }
        if rel.starts_with(".gnupg/private-keys") || rel == ".gnupg/secring.gpg" {
            return deny("a private GPG key");
        }
        if rel.starts_with(".password-store/") || rel.starts_with(".local/share/keyrings/") {
            return deny("a password store");
        }
        if matches!(
            rel,
            ".bash_history"
                | ".zsh_history"
                | ".history"
                | ".sh_history"
                | ".python_history"
                | ".node_repl_history"
                | ".psql_history"
                | ".mysql_history"
                | ".sqlite_history"
                | ".rediscli_history"
                | ".irb_history"
                | ".lesshst"
                | ".local/share/fish/fish_history"
                | ".config/fish/fish_history"
        ) {
            return ask("a shell history, which holds typed secrets");
        }
        if rel.starts_with("Library/Keychains") {
            return deny("the macOS keychain");
        }
        // Other people's words and the user's: message and mail stores.
        if [
            "Library/Messages/",
            "Library/Mail/",
            ".thunderbird/",
            ".local/share/evolution/mail/",
        ]
        .iter()
        .any(|d| rel.starts_with(d) || rel == d.trim_end_matches('/'))
        {
            return ask(
                "a message or mail store, with private conversations and the codes sent in them",
            );
        }
        let browser = [
            "Library/Application Support/Google/Chrome",
            "Library/Application Support/Chromium",
            "Library/Application Support/BraveSoftware",
            "Library/Application Support/Microsoft Edge",
            "Library/Application Support/Firefox",
            "Library/Safari",
            "Library/Cookies",
            ".config/google-chrome",
            ".config/chromium",
            ".config/BraveSoftware",
            ".config/microsoft-edge",
            ".mozilla/firefox",
        ]
        .iter()
        .any(|b| rel.starts_with(b));
        if browser
            && [
                "Login Data",
                "Cookies",
                "Web Data",
                "logins.json",
                "key4.db",
                "key3.db",
                "cookies.sqlite",
                "Cookies.binarycookies",
                "Local State",
            ]
            .contains(&name)
        {
            return deny("a browser's saved logins or cookies");
        }
        match rel {
            ".npmrc"
            | ".pypirc"
            | ".docker/config.json"
            | ".kube/config"
            | ".config/gh/hosts.yml"
            | ".gem/credentials"
            | ".cargo/credentials"
            | ".cargo/credentials.toml"
            | ".config/hub"
            | ".terraform.d/credentials.tfrc.json"
            | ".my.cnf"
            | ".boto"
            | ".s3cfg"
            | ".databrickscfg"
            | ".dockercfg"
            | ".yarnrc.yml"
            | ".m2/settings.xml"
            | ".gradle/gradle.properties"
            | ".composer/auth.json"
            | ".config/composer/auth.json"
            | ".config/rclone/rclone.conf"
            | ".config/doctl/config.yaml"
            | ".config/hcloud/cli.toml"
            | ".fly/config.yml"
            | ".oci/config"
            | ".config/configstore/firebase-tools.json"
            | ".config/ngrok/ngrok.yml"
            | ".ngrok2/ngrok.yml"
            | ".wakatime.cfg"
            | ".pulumi/credentials.json"
            | ".config/glab-cli/config.yml"
            | ".sentryclirc"
            | ".circleci/cli.yml"
            | ".dbt/profiles.yml"
            | ".codex/auth.json"
            | ".gemini/oauth_creds.json"
            | ".railway/config.json"
            | ".supabase/access-token"
            | ".config/netlify/config.json"
            | ".local/share/com.vercel.cli/auth.json"
            | ".config/.wrangler/config/default.toml"
            | ".wrangler/config/default.toml"
            | ".terraformrc"
            | ".snowflake/connections.toml" => {
                return ask("a file holding access tokens");
            }
            _ => {}
        }
        // Any other tool's stored login in its own directory under home, by the names such
        // files take (`~/.vercel/auth.json`, `~/.heroku/credentials`, `~/.config/x/api_key`).
        if rel.starts_with('.') && rel.contains('/') && login_file_name(name) {
            return ask("a tool's stored login or access token");
        }
        // A directory above credentials (`grep -r token ~/.config`, `tar cz ~/.kube`): what
        // reads it whole reads them. The home directory itself is `key-material-search`'s.
        if !rel.is_empty()
            && let Some(held) = CREDENTIAL_LOCATIONS
                .iter()
                .find(|c| Path::new(c).starts_with(rel) && **c != rel)
        {
            return ask(if held.starts_with("Library/Keychains") {
                "a directory holding the macOS keychain"
            } else {
                "a directory holding credentials or access tokens"
            });
        }
    }
    let p = path.to_string_lossy();
    let of_process = |leaf: &str| {
        p.strip_prefix("/proc/")
            .and_then(|r| r.strip_suffix(leaf))
            .is_some_and(|pid| !pid.is_empty() && !pid.contains('/'))
    };
    // A process's environment: its tokens and keys (`/proc/self/environ`, `/proc/1/environ`).
    if of_process("/environ") {
        return ask("a process's environment, which holds its tokens and keys");
    }
    // A process's memory (`/proc/PID/mem`) or the kernel's: every key an agent has loaded.
    if of_process("/mem") || matches!(p.as_ref(), "/proc/kcore" | "/dev/mem" | "/dev/kmem") {
        return deny("a process's or the kernel's memory, with every secret loaded in it");
    }
    if p == "/etc/shadow"
        || p == "/etc/gshadow"
        || p.starts_with("/etc/ssh/ssh_host_") && !p.ends_with(".pub")
    {
        return deny("system password hashes or host keys");
    }
    if name == ".env"
        || (name.starts_with(".env.") && !is_env_template(name))
        || name.ends_with(".env") && name.len() > 4
    {
        return ask("an environment file that usually holds secrets");
    }
    if [".pem", ".key", ".p12", ".pfx", ".jks", ".keystore"]
        .iter()
        .any(|ext| name.ends_with(ext))
        && !public_certificate(path, scope)
    {
        return ask("a key or certificate store");
    }
    // Stored logins wherever they are (a project's copy of `~/.git-credentials`).
    if matches!(name, ".git-credentials" | ".netrc" | ".pgpass") {
        return deny("stored login credentials");
    }
    named_anywhere(name).map(|what| SecretClass {
        effect: Effect::Ask,
        what,
    })
}

/// Files that hold secrets by what they are, wherever they stand: Terraform's state (every
/// resource's attributes, passwords and keys among them, in plain text), cloud
/// service-account and OAuth client keys, password hash files, Ansible vault passwords,
/// and secrets files of the frameworks and Kubernetes.
fn named_anywhere(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    if lower == "terraform.tfstate"
        || lower.ends_with(".tfstate")
        || lower.ends_with(".tfstate.backup")
    {
        return Some("Terraform state, which holds every resource's secrets in plain text");
    }
    let json = lower.ends_with(".json");
    if json
        && (lower == "credentials.json"
            || lower.starts_with("service-account")
            || lower.starts_with("service_account")
            || lower.starts_with("client_secret")
            || lower.contains("-adminsdk-")
            || lower.contains("firebase-adminsdk"))
    {
        return Some("a cloud service-account or OAuth client key");
    }
    if matches!(
        lower.as_str(),
        ".htpasswd"
            | ".vault_pass"
            | ".vault-pass"
            | ".vault_password"
            | ".vault-password"
            | "vault_pass.txt"
            | "vault-password.txt"
    ) {
        return Some("a password file");
    }
    let (stem, ext) = lower.rsplit_once('.').unwrap_or((&lower, ""));
    (matches!(stem, "secrets" | "secret")
        && matches!(ext, "yml" | "yaml" | "json" | "toml" | "ini" | "env"))
    .then_some("a secrets file")
}

/// A `.pem`/`.key` that exists and holds certificates but no private key: public, not a secret.
/// Read through the scope's file view (the disk in the hook; no file in the lexical world of
/// `check` and `replay`), first 64 KiB only; a file the view lacks counts as possibly secret.
fn public_certificate(path: &Path, scope: &Scope) -> bool {
    scope.files.head(path, 64 * 1024).is_some_and(|text| {
        text.contains("-----BEGIN CERTIFICATE-----") && !text.contains("PRIVATE KEY")
    })
}

/// A `.env.*` name that is no environment file: a template, or source, a schema or a
/// document about one (`.env.example`, `.env.ts`, `.env.d.ts`, `.env.schema.json`, `.env.md`).
fn is_env_template(name: &str) -> bool {
    const SOURCE: &[&str] = &[
        "ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "py", "rb", "go", "rs", "java", "kt",
        "swift", "php", "md", "mdx", "rst", "html", "css", "scss", "vue", "svelte",
    ];
    ["example", "sample", "template", "dist", "defaults"]
        .iter()
        .any(|t| name.ends_with(t))
        || name.contains(".schema")
        || name
            .rsplit_once('.')
            .is_some_and(|(_, ext)| SOURCE.contains(&ext))
}

/// The critical directory a resolved path is, if any: `/`, the home directory, an ancestor of
/// home, another user's home (`/home/bob`), or a top-level system directory. `contents` marks a glob over its children (`/*`).
pub fn critical(path: &Path, scope: &Scope) -> Option<String> {
    let home = scope.home();
    if path == Path::new("/") {
        return Some("the root directory".into());
    }
    if path == home {
        return Some("your home directory".into());
    }
    if home.starts_with(path) {
        return Some(format!(
            "{}, which contains your home directory",
            path.display()
        ));
    }
    // Another user's home: as much lost as one's own.
    if path.parent().is_some_and(|p| {
        ["/home", "/Users", "/var/home"]
            .iter()
            .any(|h| p == Path::new(h))
    }) {
        return Some(format!("{}, a user's home directory", path.display()));
    }
    // macOS: the per-user Library holds keychains, app data and preferences.
    if path == home.join("Library")
        || path == home.join("Library/Keychains")
        || path == home.join("Library/Application Support")
    {
        return Some(format!("{}, the user's Library", path.display()));
    }
    let s = path.to_string_lossy();
    if SYSTEM_DIRS.contains(&s.as_ref()) {
        return Some(format!("the system directory {s}"));
    }
    windows_critical(&s).map(|what| format!("{what} {s}"))
}

/// A Windows drive's root or system folder (`C:/`, `C:/Windows`, `C:/Program Files`…), in any
/// letter case: what a PowerShell line names on Windows.
fn windows_critical(s: &str) -> Option<&'static str> {
    let b = s.as_bytes();
    if b.len() < 2 || !b[0].is_ascii_alphabetic() || b[1] != b':' {
        return None;
    }
    let rest = s[2..].trim_end_matches('/').to_ascii_lowercase();
    match rest.as_str() {
        "" => Some("the drive root"),
        "/windows"
        | "/windows/system32"
        | "/program files"
        | "/program files (x86)"
        | "/programdata"
        | "/users" => Some("the system folder"),
        // `C:/Users/<name>`: a user's home folder, as `/home/<name>` is.
        r if r
            .strip_prefix("/users/")
            .is_some_and(|name| !name.is_empty() && !name.contains('/')) =>
        {
            Some("a user's home folder")
        }
        _ => None,
    }
}

/// The strictest secret each shell command reads, by command index, judged on the call's
/// `Read` effects (a reader's operands, `@file` forms, `<` input, paths in inline code). Built
/// once per call: asking command by command would go over every effect for each command.
pub fn commands_reading_secrets(call: &Call, scope: &Scope) -> Vec<Option<(SecretClass, PathBuf)>> {
    let mut best: Vec<Option<(SecretClass, PathBuf)>> = Vec::new();
    for e in &call.effects {
        let crate::call::Effect::Read { path, by: Some(r) } = e else {
            continue;
        };
        let secret = match &r.found {
            Some(found) => found_secret(path, found, scope),
            None => read_secret(path, r.tree, scope),
        };
        if let Some((class, path)) = secret {
            if best.len() <= r.command {
                best.resize_with(r.command + 1, || None);
            }
            let slot = &mut best[r.command];
            if slot.as_ref().is_none_or(|(b, _)| class.effect > b.effect) {
                *slot = Some((class, path));
            }
        }
    }
    best
}

/// True when the command only inspects (`ls`, `git status`, `systemctl status`, `docker ps`…)
/// and writes no file: running it with privileges changes nothing. What only reads is the
/// vocabulary's (`vocab::reads_only`); a redirection to a file is a write here, as root.
pub fn read_only(cmd: &Command) -> bool {
    let writes = cmd.redirects.iter().any(|r| {
        matches!(
            r.kind,
            RedirectKind::Write | RedirectKind::Append | RedirectKind::ReadWrite
        ) && r.target.text != "/dev/null"
    });
    !writes && crate::vocab::reads_only(cmd)
}

/// True when a network sender in the line talks only to this machine.
pub fn local_only(cmd: &Command) -> bool {
    let hosts: Vec<String> = cmd
        .args
        .iter()
        .filter(|a| a.text.contains("://"))
        .filter_map(|a| crate::vocab::url_host(&a.text))
        .collect();
    !hosts.is_empty() && hosts.iter().all(|h| is_local_host(h))
}

/// The commands of a line that send to the network (excluding loopback-only ones).
pub fn network_senders(a: &ShellAnalysis) -> impl Iterator<Item = &Command> {
    a.commands.iter().filter(|c| {
        NETWORK_SENDERS.contains(&c.program.as_str())
            && !local_only(c)
            && match c.program.as_str() {
                // `aws`/`az`/`gsutil` only leak when copying local data out.
                "aws" | "gsutil" | "az" => c
                    .args
                    .iter()
                    .any(|a| a.text == "cp" || a.text == "sync" || a.text == "upload"),
                "ssh" => true,
                "rsync" => c.args.iter().any(|a| is_remote_spec(&a.text)),
                _ => true,
            }
    })
}

/// Every path a call writes, creates or changes, with how, from its effects: for a shell line
/// its writes (`fileops::writes`: redirections, `tee`, `cp`/`mv`/`ln` destinations, `chmod +x`),
/// for any other tool every change but a delete. Deletes are the destructive packs'.
pub fn written_paths(call: &crate::normalize::Call) -> Vec<(PathBuf, String)> {
    use crate::effects::Effect as Fx;
    use crate::normalize::CallKind;
    if let CallKind::Write { path, .. } = &call.kind
        && call.effects.is_empty()
    {
        return vec![(path.clone(), call.tool.clone())];
    }
    let shell = matches!(call.kind, CallKind::Shell { .. });
    // A hard link is a second name for the target's content: whatever is written through it
    // later is written to the target (`ln ~/.bashrc notes.txt`, then an Edit of notes.txt).
    let hard_linked = call.effects.iter().filter_map(|e| match e {
        Fx::Link {
            target,
            symbolic: false,
            ..
        } if !is_pseudo_device(target) => Some((target.clone(), "a hard link to it".to_string())),
        _ => None,
    });
    call.effects
        .iter()
        .filter(|e| match e {
            Fx::Delete { .. } => false,
            // A line's `mv`/`ln` are writes of their destination already; its `chmod 600`,
            // `mkdir` and `touch` change no content (path-escape judges creations itself).
            _ if shell => {
                matches!(e, Fx::Write { .. })
                    || matches!(e, Fx::Chmod { how, .. } if how == "chmod +x")
            }
            _ => true,
        })
        .filter_map(|e| e.changed_path())
        .filter(|(p, _)| !is_pseudo_device(p))
        .map(|(p, how)| (p.clone(), how.to_string()))
        .chain(hard_linked)
        .collect()
}

/// `/dev/null`, `/dev/stdout`, `/dev/stderr`, `/dev/tty`, `/dev/fd/N`: not files.
pub fn is_pseudo_device(p: &Path) -> bool {
    let s = p.to_string_lossy();
    matches!(
        s.as_ref(),
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/zero"
    ) || s.starts_with("/dev/fd/")
}

/// Whether a word, kept as written, substitutes the output of `program` (`"t=$(gh auth
/// token)"`): words keep an unresolved substitution's text, so this is how a command that
/// carries another's output is found.
pub fn substitutes_output_of(text: &str, program: &str) -> bool {
    (text.contains("$(") || text.contains('`')) && text.contains(program)
}
