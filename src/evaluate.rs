//! The static verdict: built-in packs and policy rules over one normalised call, combined by
//! strictness (deny > ask > allow; rule order never matters). A pure function.

use crate::normalize::{Call, Scope};
use crate::packs;
use crate::policy::Policy;
use crate::verdict::{Effect, Source, Verdict};

/// Evaluates a call against the effective policy and the enabled built-in packs.
pub fn evaluate(policy: &Policy, call: &Call, scope: &Scope) -> Verdict {
    let mut best = Verdict::no_opinion();
    let mut best_rank: Option<Effect> = None;

    for hit in packs::hits(call, scope, |r| !policy.disabled_packs.contains(r.pack)) {
        let full_id = format!("{}/{}", hit.rule.pack, hit.rule.id);
        // Confinement's strength is a policy setting (`outside_roots`), not a fixed rule effect.
        let base = if hit.rule.pack == "path-escape" {
            policy.outside_roots
        } else {
            hit.rule.effect
        };
        let effect = policy.rule_overrides.get(&full_id).copied().unwrap_or(base);
        // A scoped user rule (`overrides: [<pack>/<rule-id>]`) beats this rule for the calls
        // it matches; it then allows through `policy.evaluate` below, like any allow rule.
        if policy
            .overriding_rule(&full_id, effect, call, scope)
            .is_some()
        {
            continue;
        }
        if Some(effect) > best_rank {
            best_rank = Some(effect);
            let reason = if hit.detail.is_empty() {
                hit.rule.reason.to_string()
            } else {
                format!("{}: {}.", hit.rule.reason, hit.detail)
            };
            best = Verdict::decided(effect, full_id, hit.rule.pack, reason, Source::Static);
        }
    }

    if let Some(inline) = inline_code_verdict(policy, call, scope)
        && inline.effect > best_rank
    {
        best_rank = inline.effect;
        best = inline;
    }
    if let Some(pushed) = pushed_workflow_verdict(policy, call, scope)
        && pushed.effect > best_rank
    {
        best_rank = pushed.effect;
        best = pushed;
    }

    let outcome = policy.evaluate(call, scope);
    for hit in &outcome.hits {
        if Some(hit.effect) > best_rank {
            best_rank = Some(hit.effect);
            best = Verdict::decided(
                hit.effect,
                hit.rule_id.clone(),
                "policy",
                hit.reason.clone(),
                Source::Static,
            );
        }
    }

    // Near misses (an allow rule that wanted the call but not these arguments) are not part
    // of the verdict: an allow rule only widens, so a call it does not match is judged as if
    // the rule did not exist. `check` and `explain` show them.

    headless(policy, best)
}

/// The read-only stage, after the static verdict (`crate::readonly` says what a call changes): in read-only mode, the stricter of `verdict`
/// and the mode's ask or deny for a call that changes something. Without the mode, `verdict`
/// unchanged. It judges the call itself, not the code inside it (inline code, a ledgered
/// script): running that code is already a change.
pub fn read_only(policy: &Policy, call: &Call, verdict: Verdict) -> Verdict {
    if !policy.read_only.on || verdict.effect == Some(Effect::Deny) {
        return verdict;
    }
    match crate::readonly::change(call) {
        None => verdict,
        Some(what) => verdict.stricter(headless(
            policy,
            Verdict::decided(
                policy.read_only.effect,
                "policy:read-only",
                "read-only",
                format!("this session is read-only (policy mode: read-only): the call {what}"),
                Source::Static,
            ),
        )),
    }
}

/// In a headless policy nobody answers a prompt, so an ask becomes a deny.
pub fn headless(policy: &Policy, mut verdict: Verdict) -> Verdict {
    if policy.headless && verdict.effect == Some(Effect::Ask) {
        verdict.effect = Some(Effect::Deny);
        verdict.reason = format!("{} (headless policy: asks are denied)", verdict.reason);
    }
    verdict
}

/// A file written straight into a hosted repository by an MCP forge tool
/// (`create_or_update_file`, `push_files`) that runs code without anyone naming it: a CI
/// workflow runs on the forge's runners, with the repository's secrets, as soon as it lands,
/// as a pushed one does, and its steps are judged as `git push` judges a workflow the session
/// wrote (what matters in CI); a `package.json`'s install scripts run on the next `npm install`
/// of whoever checks it out (CI included), an `.mcp.json`'s servers when the project is opened,
/// a `.cargo/config.toml`'s programs on the next build: judged as running them after a local
/// write is. Nothing later in this session sees that run, so the commit is where it is judged.
fn pushed_workflow_verdict(policy: &Policy, call: &Call, scope: &Scope) -> Option<Verdict> {
    use crate::scan::{self, Language};
    if !call.tool.starts_with("mcp__") {
        return None;
    }
    let input: &serde_json::Value = &call.input;
    // A hosted repository's, not a local file's (a local write runs nothing until it is
    // pushed, and the push is judged).
    let hosted = ["repo", "repository", "project_id", "projectId", "repo_name"]
        .iter()
        .any(|k| input.get(k).is_some());
    if !hosted {
        return None;
    }
    let files = ["files", "actions"]
        .iter()
        .filter_map(|k| input.get(*k).and_then(serde_json::Value::as_array))
        .flatten();
    let pairs = std::iter::once(input).chain(files).filter_map(|f| {
        let field = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| f.get(*k).and_then(serde_json::Value::as_str))
        };
        Some((
            field(&["path", "file_path", "filePath"])?,
            field(&["content", "contents"])?,
        ))
    });
    let mut worst: Option<Verdict> = None;
    for (path, content) in pairs {
        let language = scan::detect(std::path::Path::new(path), content);
        // What runs without being named: a package's install scripts, a config's every command.
        let sections: Vec<String> = match language {
            Language::CiWorkflow
            | Language::McpConfig
            | Language::EditorSettings
            | Language::DevContainer
            | Language::CargoConfig => Vec::new(),
            Language::PackageJson => crate::scan::INSTALL_SCRIPTS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            _ => continue,
        };
        let analysis = scan::analyse(language, content, &StaticEngine::new(policy, scope));
        if let Some(f) = analysis.worst(&sections) {
            let category = f.rule.split('/').next().unwrap_or("ci").to_string();
            let when = match language {
                Language::CiWorkflow => "where it runs with the repository's secrets",
                Language::PackageJson => "where its install scripts run on the next install",
                _ => "where what it starts runs for whoever opens or builds the project",
            };
            let v = Verdict::decided(
                f.effect,
                format!("pushed-workflow/{}", f.rule),
                category,
                format!(
                    "`{}` puts the {} {path} in the repository, {when}; its line {} `{}`: {}",
                    call.tool,
                    language.as_str(),
                    f.line.unwrap_or(0),
                    f.text,
                    f.reason
                ),
                Source::Static,
            );
            if worst.as_ref().is_none_or(|w| v.effect > w.effect) {
                worst = Some(v);
            }
        }
    }
    worst
}

/// How deep inline code may nest inline code (`python -c "os.system('node -e …')"`).
const MAX_INLINE_DEPTH: usize = 4;

thread_local! {
    static INLINE_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Code given to an interpreter on the command line (`python3 -c`, `node -e`, `perl -e`…) is
/// scanned like a file the agent wrote: the shell commands it runs go through these same
/// rules, and its deletes, reads of secrets and network sends through the language scanner.
fn inline_code_verdict(policy: &Policy, call: &Call, scope: &Scope) -> Option<Verdict> {
    use crate::scan::{self, Language};
    let crate::normalize::CallKind::Shell { analysis, .. } = &call.kind else {
        return None;
    };
    let depth = INLINE_DEPTH.with(|d| d.get());
    if depth >= MAX_INLINE_DEPTH {
        return None;
    }
    let mut worst: Option<Verdict> = None;
    for (i, cmd) in analysis.commands.iter().enumerate() {
        // A makefile read from standard input or given by `--eval`: its recipes are judged as a written
        // Makefile's are when `make` runs it.
        let makefile = crate::vocab::makefile_given(analysis, cmd);
        let program_code = match makefile {
            Some(_) => None,
            None => crate::vocab::program_code(analysis, i),
        };
        let escapes = crate::packs::database::shell_escapes(analysis, cmd);
        let (language, code, what) = if !escapes.is_empty() {
            let what = format!(
                "the SQL given to `{}` runs a shell command, or reads or writes a file as one would:",
                cmd.program
            );
            (
                Language::Shell,
                std::borrow::Cow::Owned(escapes.join("\n")),
                what,
            )
        } else if let Some((text, from)) = makefile {
            let what = match from {
                crate::vocab::MakefileFrom::Stdin => format!(
                    "a recipe of the makefile `{}` reads from its standard input:",
                    cmd.program
                ),
                crate::vocab::MakefileFrom::Eval => format!(
                    "a recipe of the makefile text `{}` is given to evaluate (--eval):",
                    cmd.program
                ),
            };
            (Language::Make, std::borrow::Cow::Owned(text), what)
        } else {
            let Some(program_code) = &program_code else {
                continue;
            };
            let program = cmd
                .program
                .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
            let language = scan::language_of_program(program);
            if !matches!(
                language,
                Language::Python
                    | Language::Node
                    | Language::Perl
                    | Language::Ruby
                    | Language::Php
                    | Language::Lua
                    | Language::R
                    | Language::Julia
                    | Language::Elixir
                    | Language::Groovy
                    | Language::Java
                    | Language::Scala
                    | Language::Kotlin
            ) {
                continue;
            }
            let code = scan::with_inputs(language, &program_code.code, &program_code.inputs());
            let what = format!("the inline {} code of `{}`", language.as_str(), cmd.program);
            (language, code, what)
        };
        INLINE_DEPTH.with(|d| d.set(depth + 1));
        let content = scan::analyse(language, &code, &StaticEngine::new(policy, scope));
        INLINE_DEPTH.with(|d| d.set(depth));
        if let Some(f) = content.worst(&[]) {
            let category = f
                .rule
                .split('/')
                .next()
                .unwrap_or("inline-code")
                .to_string();
            let v = Verdict::decided(
                f.effect,
                format!("inline/{}", f.rule),
                category,
                format!("{what} {}", f.reason),
                Source::Static,
            );
            if worst.as_ref().is_none_or(|w| v.effect > w.effect) {
                worst = Some(v);
            }
        }
    }
    worst
}

/// The real engine that judges the shell lines inside scripts (`scan`): `shell::analyse` and
/// `evaluate` under a policy and scope. It lives here so `scan` does not import `evaluate`.
pub struct StaticEngine<'a> {
    policy: &'a Policy,
    scope: &'a Scope,
    /// The verdicts given so far, by command line: a long script repeats its lines (a module
    /// that deletes the same build directory in each of a thousand functions), and the verdict
    /// depends on the line alone.
    judged: crate::call::Memo<String, Verdict, MAX_JUDGED>,
}

impl<'a> StaticEngine<'a> {
    /// The engine of `policy` in `scope`.
    pub fn new(policy: &'a Policy, scope: &'a Scope) -> StaticEngine<'a> {
        StaticEngine {
            policy,
            scope,
            judged: Default::default(),
        }
    }
}

/// Most command lines an engine keeps the verdict of.
const MAX_JUDGED: usize = 4096;

impl crate::scan::ShellEngine for StaticEngine<'_> {
    fn judge(&self, command: &str) -> Verdict {
        self.judged.get_or(command, || self.judge_anew(command))
    }
}

impl StaticEngine<'_> {
    fn judge_anew(&self, command: &str) -> Verdict {
        let call = Call::new(
            "Bash",
            serde_json::json!({ "command": command }),
            crate::normalize::CallKind::Shell {
                command: command.to_string(),
                analysis: crate::shell::analyse(command),
            },
            self.scope,
        );
        evaluate(self.policy, &call, self.scope)
    }
}
