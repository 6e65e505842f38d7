//! Content analysis: what a file the agent wrote would do when run. Shell scripts, Makefile
//! recipes and `package.json` scripts go through the same static engine as a Bash command;
//! Python, Node, Ruby, Perl, PHP and Rust build scripts are scanned for dangerous operations,
//! whose shell-like parts (the command of `os.system`, the path of `shutil.rmtree`) are again
//! judged by the engine, so one rule set decides everywhere.

mod commands;
mod config;
mod editor_settings;
mod environment;
mod gates;
mod literals;
mod modules;
mod pattern;
mod script;

use crate::verdict::{Effect, Verdict};
use serde::{Deserialize, Serialize};
use std::path::Path;

pub use commands::{INSTALL_SCRIPTS, REMOTE_DEPENDENCIES, command_lines, make_targets};
pub use config::{pytest_option_commands, sql_shell_commands};
pub use modules::local_modules;
pub use script::{CodeChange, with_inputs};

/// Longest line kept in a finding (the reason quotes it).
const MAX_QUOTED_LINE: usize = 160;
/// Files larger than this are analysed on their first `MAX_SCANNED_BYTES` only, and the
/// analysis says so with an ask.
pub const MAX_SCANNED_BYTES: usize = 1024 * 1024;

pub use crate::vocab::Language;

/// The language of a file from its name, its extension and its shebang. A file without any
/// of these is shell: the kernel runs a script without `#!` with `/bin/sh`.
pub fn detect(path: &Path, text: &str) -> Language {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match name {
        "Makefile" | "makefile" | "GNUmakefile" => return Language::Make,
        "package.json" => return Language::PackageJson,
        "build.rs" => return Language::Rust,
        _ => {}
    }
    if let Some(l) = config_language(path, name) {
        return l;
    }
    if let Some(first) = text.lines().next()
        && let Some(bang) = first.strip_prefix("#!")
    {
        return from_shebang(bang);
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "sh" | "bash" | "zsh" | "ksh" | "command" => Language::Shell,
        "py" | "pyw" => Language::Python,
        "js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "jsx" | "tsx" => Language::Node,
        "rb" | "rake" => Language::Ruby,
        "pl" | "pm" | "t" => Language::Perl,
        "php" => Language::Php,
        "lua" => Language::Lua,
        "R" | "r" => Language::R,
        "jl" => Language::Julia,
        "ex" | "exs" => Language::Elixir,
        "groovy" | "gvy" | "gradle" => Language::Groovy,
        "java" | "jsh" => Language::Java,
        "scala" | "sc" => Language::Scala,
        "kt" | "kts" => Language::Kotlin,
        "rs" => Language::Rust,
        _ if C_EXTENSIONS.contains(&ext) => Language::C,
        "mk" | "mak" => Language::Make,
        "" => Language::Shell,
        _ if path.components().any(|c| c.as_os_str() == "hooks") => Language::Shell,
        _ => Language::Other,
    }
}

/// The names `task` looks for, in its order of preference.
pub const TASKFILES: &[&str] = &[
    "Taskfile.yml",
    "taskfile.yml",
    "Taskfile.yaml",
    "taskfile.yaml",
    "Taskfile.dist.yml",
    "taskfile.dist.yml",
    "Taskfile.dist.yaml",
    "taskfile.dist.yaml",
];

/// The names `just` looks for in a directory (it takes any case of them).
pub const JUSTFILES: &[&str] = &["justfile", "Justfile", ".justfile", "JUSTFILE"];

/// Extensions of C and C++ sources and headers, which C compilers build from.
pub const C_EXTENSIONS: &[&str] = &["c", "h", "cc", "cpp", "cxx", "c++", "C", "hpp", "hh", "hxx"];

/// A Markdown file Claude Code reads as a custom command (anywhere below `.claude/commands/`)
/// or a skill (`SKILL.md` below `.claude/skills/`).
fn agent_command(path: &Path) -> bool {
    let parts: Vec<&str> = path
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .collect();
    let below = |dir: &str| parts.windows(2).any(|w| w == [".claude", dir]);
    below("commands") || (below("skills") && parts.last() == Some(&"SKILL.md"))
}

/// Configuration files that make a tool run commands, by name and place.
fn config_language(path: &Path, name: &str) -> Option<Language> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let yaml = matches!(ext, "yml" | "yaml");
    let parent = path
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let grandparent = path
        .parent()
        .and_then(Path::parent)
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("");
    Some(match name {
        ".pre-commit-config.yaml" | ".pre-commit-config.yml" => Language::HookConfig,
        n if yaml
            && (n.starts_with("lefthook") || n.starts_with(".lefthook"))
            && !n.contains('/') =>
        {
            Language::HookConfig
        }
        ".gitlab-ci.yml" | ".travis.yml" | "bitbucket-pipelines.yml" | "azure-pipelines.yml" => {
            Language::CiWorkflow
        }
        _ if yaml && parent == "workflows" && grandparent == ".github" => Language::CiWorkflow,
        _ if yaml && parent == ".circleci" => Language::CiWorkflow,
        n if yaml && (n.starts_with("docker-compose") || n.starts_with("compose")) => {
            Language::Compose
        }
        ".gitconfig" => Language::GitConfig,
        "gitconfig" if parent == "etc" => Language::GitConfig,
        "config" if parent == ".git" || (parent == "git" && grandparent == ".config") => {
            Language::GitConfig
        }
        "pytest.ini" | ".pytest.ini" | "tox.ini" | "setup.cfg" | "pyproject.toml" => {
            Language::PytestConfig
        }
        _ if ext == "sql" => Language::Sql,
        _ if ext == "ipynb" => Language::Notebook,
        ".mcp.json" | ".claude.json" => Language::McpConfig,
        "settings.json" if parent == ".vscode" => Language::EditorSettings,
        _ if ext == "code-workspace" => Language::EditorSettings,
        ".devcontainer.json" => Language::DevContainer,
        "devcontainer.json" if parent == ".devcontainer" || grandparent == ".devcontainer" => {
            Language::DevContainer
        }
        _ if ext == "md" && agent_command(path) => Language::AgentCommand,
        "config.toml" | "config" if parent == ".cargo" => Language::CargoConfig,
        // The agents' and editors' own files of MCP servers (Cursor, VS Code, Gemini CLI, Roo,
        // Amazon Q, Kiro, Windsurf, Claude Desktop, Cline, Zed, Continue, Codex).
        "mcp.json"
            if matches!(
                parent,
                ".cursor" | ".vscode" | ".gemini" | ".roo" | ".amazonq"
            ) || (parent == "settings" && grandparent == ".kiro")
                || (parent == "amazonq" && grandparent == ".aws") =>
        {
            Language::McpConfig
        }
        "settings.json" if matches!(parent, ".gemini" | ".zed" | "zed") => Language::McpConfig,
        "mcp_config.json" | "claude_desktop_config.json" | "cline_mcp_settings.json" => {
            Language::McpConfig
        }
        "config.yaml" | "config.yml" if parent == ".continue" => Language::McpConfig,
        _ if yaml && parent == "mcpServers" && grandparent == ".continue" => Language::McpConfig,
        "config.toml" if parent == ".codex" => Language::McpConfig,
        n if TASKFILES.contains(&n) => Language::Taskfile,
        n if n.eq_ignore_ascii_case("justfile") || n.eq_ignore_ascii_case(".justfile") => {
            Language::Justfile
        }
        _ if ext == "just" => Language::Justfile,
        "composer.json" | "deno.json" | "deno.jsonc" => Language::TaskManifest,
        n if n == "Procfile" || n.starts_with("Procfile.") => Language::Procfile,
        n if (n.starts_with("requirements") || n.starts_with("constraints"))
            && (n.ends_with(".txt") || n.ends_with(".in")) =>
        {
            Language::Requirements
        }
        "CMakeLists.txt" => Language::CMake,
        _ if ext == "cmake" => Language::CMake,
        "pom.xml" => Language::Maven,
        _ if matches!(
            ext,
            "csproj" | "fsproj" | "vbproj" | "proj" | "targets" | "props"
        ) =>
        {
            Language::MsBuild
        }
        n if n.ends_with(".gradle") || n.ends_with(".gradle.kts") => Language::Gradle,
        _ if ext == "go" => Language::Go,
        _ => return None,
    })
}

fn from_shebang(bang: &str) -> Language {
    let mut words = bang.split_whitespace();
    let mut prog = words.next().unwrap_or("");
    if prog.ends_with("/env") {
        prog = words.find(|w| !w.starts_with('-')).unwrap_or("");
    }
    language_of_program(prog.rsplit('/').next().unwrap_or(prog))
}

pub use crate::vocab::language_of_program;

/// One dangerous operation in a file's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub effect: Effect,
    /// The rule that decided: an engine rule (`destructive-fs/rm-home`) or a scanner rule
    /// (`scan/exfiltration`).
    pub rule: String,
    pub reason: String,
    /// 1-based line of the file, when one line is to blame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// That line (or the command it runs), shortened.
    #[serde(default)]
    pub text: String,
    /// The part of the file it belongs to: a Makefile target, a `package.json` script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
}

/// What a file's content would do when run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContentAnalysis {
    pub language: Language,
    /// Ask and deny findings only; an empty list is "nothing dangerous found".
    pub findings: Vec<Finding>,
}

impl ContentAnalysis {
    /// The strictest finding among those in `sections` (all when `sections` is empty); the
    /// first one in file order among equals.
    pub fn worst(&self, sections: &[String]) -> Option<&Finding> {
        let mut best: Option<&Finding> = None;
        for f in &self.findings {
            let applies = sections.is_empty()
                || f.section.is_none()
                || f.section.as_ref().is_some_and(|s| sections.contains(s));
            if applies && best.is_none_or(|b| f.effect > b.effect) {
                best = Some(f);
            }
        }
        best
    }
}

/// The static engine for one shell command line.
pub trait ShellEngine {
    /// The verdict the static rules give `command` as a Bash call.
    fn judge(&self, command: &str) -> Verdict;
}

/// Analyses `text` as `language`. Never panics; bounded in time by the size cap.
pub fn analyse(language: Language, text: &str, engine: &dyn ShellEngine) -> ContentAnalysis {
    analyse_run(language, text, &[], engine)
}

/// Like `analyse`, for one invocation that defines variables (`make PY=python3 test`).
pub fn analyse_run(
    language: Language,
    text: &str,
    defines: &[(String, String)],
    engine: &dyn ShellEngine,
) -> ContentAnalysis {
    let (text, truncated) = if text.len() > MAX_SCANNED_BYTES {
        let mut end = MAX_SCANNED_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        (&text[..end], true)
    } else {
        (text, false)
    };
    let mut findings = match language {
        Language::Shell => commands::shell_script(text, engine),
        Language::Make => commands::makefile(text, defines, engine),
        Language::PackageJson => commands::package_json(text, engine),
        Language::Python
        | Language::Node
        | Language::Ruby
        | Language::Perl
        | Language::Php
        | Language::Lua
        | Language::R
        | Language::Julia
        | Language::Elixir
        | Language::Groovy
        | Language::Java
        | Language::Scala
        | Language::Kotlin
        | Language::Rust
        | Language::Gradle
        | Language::Go
        | Language::C => script::scan(language, text, engine),
        Language::HookConfig
        | Language::Taskfile
        | Language::Justfile
        | Language::TaskManifest
        | Language::Procfile
        | Language::Requirements
        | Language::CMake
        | Language::Maven
        | Language::MsBuild
        | Language::CiWorkflow
        | Language::Compose
        | Language::GitConfig
        | Language::PytestConfig
        | Language::Sql
        | Language::Notebook
        | Language::CargoConfig
        | Language::McpConfig
        | Language::EditorSettings
        | Language::DevContainer
        | Language::Ansible
        | Language::AgentCommand => config::findings(language, text, engine),
        Language::Other => Vec::new(),
    };
    if truncated {
        findings.push(Finding {
            effect: Effect::Ask,
            rule: "scan/too-large".into(),
            reason: format!(
                "the file is larger than {} KiB; only its beginning was analysed",
                MAX_SCANNED_BYTES / 1024
            ),
            line: None,
            text: String::new(),
            section: None,
        });
    }
    ContentAnalysis { language, findings }
}

/// The shell command lines a program of `language` runs, where they are literal.
pub fn commands_run(language: Language, text: &str) -> Vec<String> {
    if !script::reads(language) {
        return Vec::new();
    }
    script::commands_run(language, text)
}

/// True when inline code opens something for writing, or deletes, moves, copies, links or
/// re-permissions it.
pub fn code_writes(code: &str) -> bool {
    // Fixed strings, found in one pass: a pattern's compilation cost a hook process more than
    // the search.
    const CALLS: &[&str] = &[
        ".write(",
        ".write_text(",
        ".write_bytes(",
        "writeFile",
        "appendFile",
        "unlink",
        "rmSync",
        "remove(",
        "rmtree",
        "rename(",
        "shutil.",
        "truncate",
        "File.write",
        "File.delete",
        "File.symlink",
        "File.link",
        "IO.write",
        "FileUtils.",
        "fs.rm",
        "fs.copyFile",
        "fs.cp",
        "fs.symlink",
        "fs.link",
        "os.replace",
        "symlink(",
        "os.link",
        "copy(",
        "chmod",
        "chown",
        "file_put_contents",
    ];
    static CALL: std::sync::LazyLock<aho_corasick::AhoCorasick> =
        std::sync::LazyLock::new(|| aho_corasick::AhoCorasick::new(CALLS).expect("fixed strings"));
    CALL.is_match(code) || opens_for_writing(code)
}

/// `open(p, 'w')`, `fopen($p, "a+")`: a call to open whose second argument is a writing mode.
fn opens_for_writing(code: &str) -> bool {
    code.match_indices("open(").any(|(at, _)| {
        let args = &code[at + "open(".len()..];
        let args = &args[..args.find(')').unwrap_or(args.len())];
        args.split(',').skip(1).any(|a| {
            let a = a.trim_start();
            // `open(p, mode='w')`
            let a = a
                .strip_prefix("mode")
                .and_then(|m| m.trim_start().strip_prefix('='))
                .map_or(a, str::trim_start);
            a.strip_prefix(['\'', '"'])
                .is_some_and(|m| m.starts_with(['w', 'a', 'x', '+']))
        })
    })
}

/// True when a program in `language` prints the whole environment (`print(os.environ)`), as
/// `env` does: what a pipe or a substitution from it carries into a send.
pub fn prints_environment(language: Language, text: &str) -> bool {
    environment::whole(language, text)
        .into_iter()
        .any(|(at, _)| environment::printed(environment::statement(text, at).0))
}

/// The shell commands with the same changes to files as a program's calls on literal paths
/// (`os.remove(p)` is `rm -f p`), then the command lines it runs: the effects of inline code.
pub fn changes(language: Language, text: &str) -> Vec<CodeChange> {
    if !script::reads(language) {
        return Vec::new();
    }
    script::changes(language, text)
}

/// A finding from the engine's verdict on one command, when it asks or denies.
fn from_verdict(
    v: &Verdict,
    line: Option<usize>,
    text: &str,
    section: Option<&str>,
) -> Option<Finding> {
    let effect = v.effect.filter(|e| *e > Effect::Allow)?;
    Some(Finding {
        effect,
        rule: v.rule.clone().unwrap_or_else(|| "static".into()),
        reason: v.reason.clone(),
        line,
        text: shorten(text),
        section: section.map(str::to_string),
    })
}

/// One line, trimmed and bounded, for a reason.
pub fn shorten(text: &str) -> String {
    let t = text.trim();
    if t.chars().nth(MAX_QUOTED_LINE).is_none() {
        t.to_string()
    } else {
        let mut s: String = t.chars().take(MAX_QUOTED_LINE).collect();
        s.push('…');
        s
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! A stand-in for the static engine, so scanner tests do not depend on the rule packs.
    use super::ShellEngine;
    use crate::verdict::{Effect, Source, Verdict};

    /// Denies deleting home or root and piping to a shell, asks for `git push`.
    pub struct FakeEngine;

    impl ShellEngine for FakeEngine {
        fn judge(&self, command: &str) -> Verdict {
            let c = command;
            let home = [
                "rm -rf ~",
                "rm -rf /home/dev",
                "rm -rf \"$HOME\"",
                "rm -rf $HOME",
                "rm -rf / ",
                "rm -rf /\n",
            ];
            if home.iter().any(|h| c.contains(h)) || c.trim_end().ends_with("rm -rf /") {
                return Verdict::decided(
                    Effect::Deny,
                    "destructive-fs/rm-home",
                    "destructive-fs",
                    "deletes the home directory or the root",
                    Source::Static,
                );
            }
            if c.contains("| sh") || c.contains("| bash") {
                return Verdict::decided(
                    Effect::Deny,
                    "remote-code/pipe-shell",
                    "remote-code",
                    "pipes into a shell",
                    Source::Static,
                );
            }
            if c.contains("git push") {
                return Verdict::decided(
                    Effect::Ask,
                    "publishing/git-push",
                    "publishing",
                    "pushes to a remote",
                    Source::Static,
                );
            }
            if c.contains(".ssh/id_") || c.contains(".aws/credentials") {
                return Verdict::decided(
                    Effect::Ask,
                    "secrets/read-key",
                    "secrets",
                    "reads a credential",
                    Source::Static,
                );
            }
            Verdict::no_opinion()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A long text is gated by one pass for all literals: a call far down it is still found.
    #[test]
    fn a_call_far_down_a_long_file_is_found() {
        let long = "x = 1\n".repeat(20_000);
        let text = format!("import os\n{long}os.system('rm -rf ~')\n");
        assert!(pattern::gated_as_long(&text));
        let found = analyse(Language::Python, &text, &testing::FakeEngine);
        assert!(
            found.findings.iter().any(|f| f.effect == Effect::Deny),
            "{:?}",
            found.findings
        );
    }

    #[test]
    fn code_writes_knows_every_changing_call_and_no_read() {
        for code in [
            "open('a', 'w')",
            "fopen($p, \"a+\")",
            "open(p, mode='x')",
            "p.write_text('x')",
            "fs.writeFileSync(p, x)",
            "os.remove(p)",
            "File.delete(f)",
            "FileUtils.rm_rf(d)",
            "fs.rmSync(d)",
            "os.replace(a, b)",
            "shutil.copy(a, b)",
            "os.chmod(p, 0)",
            "os.symlink(a, b)",
            "file_put_contents($p, $x)",
        ] {
            assert!(code_writes(code), "{code}");
        }
        for code in [
            "open('a').read()",
            "open(p, 'r')",
            "print(json.load(open(p)))",
            "fs.readFileSync(p)",
        ] {
            assert!(!code_writes(code), "{code}");
        }
    }

    #[test]
    fn detects_languages() {
        let d = |p: &str, t: &str| detect(Path::new(p), t);
        assert_eq!(d("/p/x.sh", ""), Language::Shell);
        assert_eq!(d("/p/run", "#!/usr/bin/env python3\n"), Language::Python);
        assert_eq!(
            d("/p/run.sh", "#!/usr/bin/env -S node --x\n"),
            Language::Node
        );
        assert_eq!(d("/p/tool", "echo hi\n"), Language::Shell);
        assert_eq!(d("/p/Makefile", "all:\n"), Language::Make);
        assert_eq!(d("/p/package.json", "{}"), Language::PackageJson);
        assert_eq!(d("/p/a.py", ""), Language::Python);
        assert_eq!(d("/p/README.md", "# hi"), Language::Other);
        assert_eq!(d("/p/.git/hooks/pre-commit", ""), Language::Shell);
        assert_eq!(d("/p/.github/workflows/ci.yml", ""), Language::CiWorkflow);
        assert_eq!(d("/p/.pre-commit-config.yaml", ""), Language::HookConfig);
        assert_eq!(d("/p/lefthook.yml", ""), Language::HookConfig);
        assert_eq!(d("/p/compose.override.yaml", ""), Language::Compose);
        assert_eq!(d("/p/docker-compose.yml", ""), Language::Compose);
        assert_eq!(d("/p/.git/config", ""), Language::GitConfig);
        assert_eq!(d("/h/.gitconfig", ""), Language::GitConfig);
        assert_eq!(d("/p/pyproject.toml", ""), Language::PytestConfig);
        assert_eq!(d("/p/db/001.sql", ""), Language::Sql);
        assert_eq!(d("/p/nb.ipynb", "{}"), Language::Notebook);
        assert_eq!(d("/p/config.yml", ""), Language::Other);
        assert_eq!(d("/p/.mcp.json", "{}"), Language::McpConfig);
        assert_eq!(d("/p/.claude/commands/x.md", ""), Language::AgentCommand);
        assert_eq!(
            d("/h/.claude/commands/ops/deploy.md", ""),
            Language::AgentCommand
        );
        assert_eq!(
            d("/p/.claude/skills/s/SKILL.md", ""),
            Language::AgentCommand
        );
        assert_ne!(
            d("/p/.claude/skills/s/notes.md", ""),
            Language::AgentCommand
        );
        assert_ne!(d("/p/docs/commands/x.md", ""), Language::AgentCommand);
        assert_eq!(d("/p/.cargo/config.toml", ""), Language::CargoConfig);
        assert_eq!(d("/p/.cursor/mcp.json", "{}"), Language::McpConfig);
        assert_eq!(
            d("/p/.vscode/settings.json", "{}"),
            Language::EditorSettings
        );
        assert_eq!(d("/p/app.code-workspace", "{}"), Language::EditorSettings);
        assert_ne!(
            d("/p/.claude/settings.json", "{}"),
            Language::EditorSettings
        );
        for dc in [
            "/p/.devcontainer/devcontainer.json",
            "/p/.devcontainer/gpu/devcontainer.json",
            "/p/.devcontainer.json",
        ] {
            assert_eq!(d(dc, "{}"), Language::DevContainer, "{dc}");
        }
        assert_ne!(d("/p/docs/devcontainer.json", "{}"), Language::DevContainer);
        assert_eq!(d("/p/mcp.json", "{}"), Language::Other);
        assert_eq!(d("/p/Taskfile.yml", ""), Language::Taskfile);
        assert_eq!(d("/p/CMakeLists.txt", ""), Language::CMake);
        assert_eq!(d("/p/cmake/deps.cmake", ""), Language::CMake);
        assert_eq!(d("/p/pom.xml", ""), Language::Maven);
        for f in [
            "/p/App/App.csproj",
            "/p/Directory.Build.targets",
            "/p/lib.fsproj",
        ] {
            assert_eq!(d(f, ""), Language::MsBuild, "{f}");
        }
        assert_eq!(d("/p/build.gradle", ""), Language::Gradle);
        assert_eq!(d("/p/settings.gradle.kts", ""), Language::Gradle);
        assert_eq!(d("/p/main_test.go", ""), Language::Go);
    }

    #[test]
    fn worst_respects_sections() {
        let f = |e, s: Option<&str>| Finding {
            effect: e,
            rule: "r".into(),
            reason: String::new(),
            line: None,
            text: String::new(),
            section: s.map(str::to_string),
        };
        let a = ContentAnalysis {
            language: Language::PackageJson,
            findings: vec![
                f(Effect::Ask, Some("test")),
                f(Effect::Deny, Some("deploy")),
            ],
        };
        assert_eq!(a.worst(&[]).unwrap().effect, Effect::Deny);
        assert_eq!(a.worst(&["test".into()]).unwrap().effect, Effect::Ask);
        assert!(a.worst(&["build".into()]).is_none());
    }
}

#[cfg(test)]
mod robustness {
    //! Scanners read untrusted text: no input may panic them.
    use super::testing::FakeEngine;
    use super::*;

    const TOKENS: &[&str] = &[
        "os.system(",
        "subprocess.run([",
        ".execute()",
        "new File(",
        ".deleteDir()",
        ".!",
        "~c\"",
        "é",
        "'",
        "\"",
        "`",
        "\\",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "${{ secrets.X }}",
        "run: ",
        "repos:\n- repo: local\n  hooks:\n  - entry: ",
        "services:\n  a:\n    privileged: true\n",
        "[alias]\n\tx = !",
        "[pytest]\naddopts = -p ",
        "\\! ",
        "COPY t TO PROGRAM '",
        "{\"cells\":[{\"cell_type\":\"code\",\"source\":\"",
        "${",
        "#{",
        "$ENV{HOME}",
        "os.path.expanduser('~')",
        "\u{a0}",
        "é",
        "日本",
        "\n",
        "\t",
        "<<",
        "<<-'EOF'",
        "EOF",
        "rm -rf ~",
        " + ",
        " . ",
        ",",
        "exec(",
        "eval(",
        "b64decode",
        "shutil.rmtree(",
        "fs.rmSync(",
        "Command::new(\"sh\")",
        ".arg(",
        "%x(",
        "qx{",
        "$(",
        "$(shell ",
        ":",
        "=",
        ":=",
        "\t@",
        "#",
        "//",
        "\"scripts\"",
        "r'",
        "f\"",
        "\"\"\"",
        "open(",
        "'w'",
        "require('child_process')",
        "execSync(",
        "spawn(",
        "\u{2028}",
        "{",
        "}",
        "[",
        "]",
        "/*",
        "*/",
        "\\",
        "\"${localEnv:",
        "<Exec Command=\"",
        "%2",
        "[mcp_servers.",
        "command = ",
        "\"terminal.integrated.profiles.linux\": {\"x\": ",
        "\"mcpServers\": ",
    ];

    #[test]
    fn no_input_panics() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..1500 {
            let mut text = String::new();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = (seed >> 58) as usize + 1;
            for _ in 0..len {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(TOKENS[(seed >> 33) as usize % TOKENS.len()]);
            }
            for lang in [
                Language::Shell,
                Language::Python,
                Language::Node,
                Language::Ruby,
                Language::Perl,
                Language::Php,
                Language::Lua,
                Language::R,
                Language::Julia,
                Language::Elixir,
                Language::Groovy,
                Language::Java,
                Language::Scala,
                Language::Kotlin,
                Language::Rust,
                Language::Make,
                Language::PackageJson,
                Language::HookConfig,
                Language::CiWorkflow,
                Language::Compose,
                Language::GitConfig,
                Language::PytestConfig,
                Language::Sql,
                Language::Notebook,
                Language::McpConfig,
                Language::EditorSettings,
                Language::DevContainer,
                Language::CargoConfig,
                Language::Taskfile,
                Language::CMake,
                Language::Maven,
                Language::MsBuild,
                Language::Gradle,
                Language::Go,
            ] {
                let _ = analyse(lang, &text, &FakeEngine);
                let _ = changes(lang, &text);
                let _ = command_lines(lang, &text, &[], &[]);
            }
        }
    }
}
