//! Code a command line runs besides its own program, in the vocabulary of programs
//! (re-exported by `crate::vocab`) and kept here so the unwrapper reads it without an import
//! cycle: variables whose value a program runs or loads, package specs a runner fetches, the
//! command an MCP server's entry starts, and the programs that print their own setup code.

/// Variables whose value is a command line the program runs (git's, pagers, editors,
/// password prompts, remote shells).
const COMMAND_VARIABLES: &[&str] = &[
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
    "PAGER",
    "MANPAGER",
    "SYSTEMD_PAGER",
    "PSQL_PAGER",
    "EDITOR",
    "VISUAL",
    "SUDO_EDITOR",
    "KUBE_EDITOR",
    "FCEDIT",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "BROWSER",
    "RSYNC_RSH",
    "CVS_RSH",
    "npm_config_script_shell",
    "NPM_CONFIG_SCRIPT_SHELL",
];

/// The command line a variable set for a command amounts to, when its value is one the
/// program runs (`COMMAND_VARIABLES`; `LESSOPEN`'s after its `|`) or loads as code:
/// `LD_PRELOAD=x.so` runs x.so's code, `NODE_OPTIONS='--require x.js'` runs `node x.js`.
pub fn variable_command(name: &str, value: &str) -> Option<String> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    if COMMAND_VARIABLES.contains(&name) {
        return Some(value.to_string());
    }
    match name {
        // `|cmd %s` pipes, `||cmd %s` too, `-` prefixes ask less to use it on pipes.
        "LESSOPEN" | "LESSCLOSE" => Some(value.trim_start_matches(['|', '-']).to_string()),
        // An interactive Python runs this file first.
        "PYTHONSTARTUP" => Some(format!("python3 {value}")),
        "LD_PRELOAD" | "DYLD_INSERT_LIBRARIES" => {
            let libs: Vec<&str> = value
                .split([':', ' '])
                .filter(|l| l.contains('/'))
                .collect();
            (!libs.is_empty()).then(|| libs.join("; "))
        }
        "NODE_OPTIONS" => {
            let words: Vec<&str> = value.split_whitespace().collect();
            let files: Vec<String> = words
                .iter()
                .enumerate()
                .filter_map(|(i, w)| match *w {
                    "--require" | "-r" | "--import" | "--loader" | "--experimental-loader" => {
                        words.get(i + 1).map(|f| f.to_string())
                    }
                    _ => ["--require=", "--import=", "--loader="]
                        .iter()
                        .find_map(|p| w.strip_prefix(p))
                        .map(str::to_string),
                })
                .filter(|f| f.starts_with(['.', '/', '~']))
                .map(|f| format!("node {f}"))
                .collect();
            (!files.is_empty()).then(|| files.join("; "))
        }
        _ => None,
    }
}

/// A package spec that names a URL or a repository instead of a registry package
/// (`git+https://…`, `github:u/r`, `https://x/p.tgz`, `git@host:u/r`); with `npm`, also npm's
/// GitHub shorthand `user/repo` (a scope is `@scope/name`, a path starts with `.` or `/`).
pub fn remote_package_spec(t: &str, npm: bool) -> bool {
    t.contains("://")
        || t.contains("git+")
        || t.starts_with("github:")
        || t.starts_with("gitlab:")
        || t.starts_with("bitbucket:")
        || t.starts_with("git@")
        || (npm
            && !t.starts_with(['@', '.', '/', '-', '~'])
            && t.matches('/').count() == 1
            && !t.ends_with(".tgz"))
}

/// A Nix flake reference that Nix fetches from a repository or a URL (`github:o/r`,
/// `git+https://…`, `sourcehut:~u/r`, `tarball+https://…`), not from its registry or here.
pub fn remote_flake(t: &str) -> bool {
    remote_package_spec(t, false) || t.starts_with("sourcehut:") || t.starts_with("tarball+")
}

/// The command line an MCP server's entry starts (`{"command": "npx", "args": ["-y", "x"]}`;
/// Zed's older `{"command": {"path": …, "args": […]}}`), each word quoted for the shell;
/// `None` for a server at a URL (no `command`). Read by the MCP config scanner and by
/// `claude mcp add-json`.
pub fn mcp_server_command(server: &serde_json::Value) -> Option<String> {
    let (command, args) = match server.get("command")? {
        serde_json::Value::Object(c) => (c.get("path")?.as_str()?, c.get("args")),
        c => (c.as_str()?, server.get("args")),
    };
    let args = args.and_then(|a| a.as_array());
    let words: Vec<String> = std::iter::once(command)
        .chain(args.into_iter().flatten().filter_map(|a| a.as_str()))
        .map(shell_word)
        .collect();
    Some(words.join(" "))
}

/// A word as the shell reads it back: as it is when nothing in it is special, else in single
/// quotes.
pub fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+~".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Programs whose output is shell code of their own, which the shell is meant to run: `eval
/// "$(ssh-agent -s)"`, `eval "$(pyenv init -)"`, `eval "$(brew shellenv)"`. Only programs that
/// run nothing else, or whose runners are unwrapped (`pyenv exec`, `mise exec`, `opam exec
/// --`), so the substitution's programs are theirs; tools that print a project's or a
/// cluster's data (`npm run`, `kubectl get`) are not here.
pub const SHELL_SETUP_PRINTERS: &[&str] = &[
    "ssh-agent",
    "gpg-agent",
    "keychain",
    "direnv",
    "pyenv",
    "rbenv",
    "nodenv",
    "goenv",
    "jenv",
    "plenv",
    "phpenv",
    "brew",
    "conda",
    "mamba",
    "micromamba",
    "starship",
    "zoxide",
    "fnm",
    "mise",
    "rtx",
    "opam",
    "dircolors",
    "luarocks",
    "atuin",
    "mcfly",
    "oh-my-posh",
    "minikube",
    "docker-machine",
];

/// Whether the programs of a substitution are all `SHELL_SETUP_PRINTERS` (and there are some):
/// what it prints is their setup code.
pub fn prints_shell_setup(programs: &[String]) -> bool {
    !programs.is_empty()
        && programs
            .iter()
            .all(|p| SHELL_SETUP_PRINTERS.contains(&p.rsplit('/').next().unwrap_or(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_that_run_or_load_code_are_command_lines() {
        assert_eq!(
            variable_command("PAGER", "rm -rf ~").as_deref(),
            Some("rm -rf ~")
        );
        assert_eq!(
            variable_command("LESSOPEN", "||lesspipe %s").as_deref(),
            Some("lesspipe %s")
        );
        assert_eq!(
            variable_command("NODE_OPTIONS", "--max-old-space-size=4096 --require ./p.js"),
            Some("node ./p.js".into())
        );
        assert_eq!(
            variable_command("NODE_OPTIONS", "--require dotenv/config"),
            None
        );
        assert_eq!(
            variable_command("LD_PRELOAD", "/tmp/a.so:/tmp/b.so").as_deref(),
            Some("/tmp/a.so; /tmp/b.so")
        );
        assert_eq!(variable_command("HOME", "/tmp"), None);
        assert_eq!(variable_command("EDITOR", " "), None);
    }

    #[test]
    fn package_specs_from_urls_and_repositories() {
        assert!(remote_package_spec("git+https://github.com/u/r", false));
        assert!(remote_package_spec("github:u/r", false));
        assert!(remote_package_spec("u/r", true) && !remote_package_spec("u/r", false));
        assert!(!remote_package_spec("@scope/pkg", true));
        assert!(!remote_package_spec("./local", true) && !remote_package_spec("prettier", true));
    }
}
