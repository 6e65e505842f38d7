//! `palisade explain`: with no call, the effective policy for a reviewer; with a call
//! (`explain '<command>'`, `--tool T --input JSON`) or an audit entry (`--seq N`), the trace of
//! its decision — the commands after unwrapping, what the call does, every built-in and policy
//! rule that matched or nearly matched, the layers, ledger links and risk answers, the verdict,
//! and how to override it.

use crate::audit::AuditEntry;
use crate::event::HookEvent;
use crate::hook;
use crate::locations::Locations;
use crate::normalize::{self, Call, CallKind, Scope};
use crate::packs;
use crate::policy::{self, Policy};
use crate::verdict::{Effect, Verdict};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Explain the policy, or why a call is decided the way it is.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  palisade explain                         # the effective policy
  palisade explain --json | jq .rules
  palisade explain 'rm -rf /opt/build'     # why this command is decided so
  palisade explain --tool Write --input '{\"file_path\":\"/etc/hosts\",\"content\":\"x\"}'
  palisade explain --seq 42                # an entry of the audit log")]
pub struct ExplainArgs {
    /// A Bash command to explain (without it, and without --tool/--seq: the policy).
    pub command: Option<String>,
    /// Tool name of the call to explain (with --input).
    #[arg(long, conflicts_with_all = ["command", "seq"])]
    pub tool: Option<String>,
    /// The tool input as JSON (with --tool).
    #[arg(long, requires = "tool")]
    pub input: Option<String>,
    /// The audit entry (its seq) to explain: what was recorded and how it is decided today.
    #[arg(long, conflicts_with = "command")]
    pub seq: Option<u64>,
    /// Working directory of the call (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Project directory whose .palisade.yaml applies (default: the current directory).
    #[arg(long)]
    pub project: Option<PathBuf>,
}

impl ExplainArgs {
    /// True when a call (not the policy) is to be explained.
    pub fn has_call(&self) -> bool {
        self.command.is_some() || self.tool.is_some() || self.seq.is_some()
    }
}

/// Runs `explain` for a call; returns the exit code (that of `check` for the verdict, 2 for a
/// usage error, 1 when the policy does not load).
pub fn run(args: &ExplainArgs, locations: &Locations) -> i32 {
    let cwd = args
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("/"));
    let project_root = Locations::project_root(args.project.as_deref().unwrap_or(&cwd), None);
    let policy = match policy::load(locations, &project_root) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("palisade explain: the policy does not load: {e}");
            return 1;
        }
    };
    let (event, recorded) = match args.seq {
        Some(seq) => match audit_entry(&policy, locations, seq) {
            Ok(entry) => {
                let event = HookEvent::hypothetical(
                    "explain",
                    &cwd,
                    entry.tool.clone(),
                    entry.input.clone(),
                );
                (event, Some(entry))
            }
            Err(e) => {
                eprintln!("palisade explain: {e}");
                return 2;
            }
        },
        None => match super::check::event_from_args(
            args.tool.as_deref(),
            args.input.as_deref(),
            args.command.as_deref(),
            &cwd,
        ) {
            Ok(e) => (e, None),
            Err(e) => {
                eprintln!("palisade explain: {e}");
                return 2;
            }
        },
    };
    let trace = trace(&policy, locations, &event, recorded.as_ref());
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&trace.json).unwrap_or_default()
        );
    } else {
        print!("{}", trace.text);
    }
    super::check::exit_code(&trace.verdict)
}

fn audit_entry(policy: &Policy, locations: &Locations, seq: u64) -> Result<AuditEntry, String> {
    let path = crate::policy::audit_settings::audit_file(&policy.audit, locations);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    text.lines()
        .filter_map(|l| serde_json::from_str::<AuditEntry>(l).ok())
        .find(|e| e.seq == seq)
        .ok_or_else(|| format!("{} has no entry {seq}", path.display()))
}

/// A decision trace, as text and as JSON.
pub struct Trace {
    pub text: String,
    pub json: Value,
    pub verdict: Verdict,
}

/// Traces the decision of one call under `policy` (static rules and the same-line ledger
/// check, recorded in memory only; the risk backend is not asked), with what an audit entry
/// recorded for it when there is one.
pub fn trace(
    policy: &Policy,
    locations: &Locations,
    event: &HookEvent,
    recorded: Option<&AuditEntry>,
) -> Trace {
    let verdict = super::check::hypothetical(policy, locations, event);
    let cwd = hook::event_cwd(event);
    let project_root = Locations::project_root(&cwd, None);
    let scope = hook::scope_for(policy, locations, &cwd, &project_root, true);
    let call = normalize::normalize(event, &scope);
    let mut t = String::new();
    let mut j = serde_json::Map::new();

    let _ = writeln!(t, "Call: {} {}", event.tool_name, event.tool_input);
    let _ = writeln!(
        t,
        "  in {} (project root {})",
        cwd.display(),
        scope.project_root.display()
    );
    j.insert("tool".into(), json!(event.tool_name));
    j.insert("input".into(), (*event.tool_input).clone());
    j.insert("cwd".into(), json!(cwd));
    j.insert("project_root".into(), json!(scope.project_root));

    if let CallKind::Shell { analysis, .. } = &call.kind {
        let _ = writeln!(t, "\nCommands (after unwrapping):");
        let mut cmds = Vec::new();
        for (i, c) in analysis.commands.iter().enumerate() {
            let mut line = c.line();
            if !c.wrappers.is_empty() {
                let _ = write!(line, "   [via {}]", c.wrappers.join(" → "));
            }
            if c.privileged {
                line.push_str("   [privileged]");
            }
            if let Some(d) = &c.cwd {
                let _ = write!(line, "   [in {d}]");
            }
            if c.in_substitution {
                line.push_str("   [inside a substitution]");
            }
            if let Some(from) = c.stdin_from {
                let _ = write!(line, "   [stdin from command {}]", from + 1);
            }
            let _ = writeln!(t, "  {}. {line}", i + 1);
            cmds.push(json!(line));
        }
        if analysis.commands.is_empty() {
            let _ = writeln!(t, "  (none recognised)");
        }
        let findings: Vec<String> = analysis.findings.iter().map(|f| format!("{f:?}")).collect();
        for f in &findings {
            let _ = writeln!(t, "  cannot be resolved statically: {f}");
        }
        j.insert("commands".into(), json!(cmds));
        j.insert("findings".into(), json!(findings));
    }

    let effects = effects(&call);
    let _ = writeln!(t, "\nWhat it does:");
    if effects.is_empty() {
        let _ = writeln!(t, "  nothing palisade tracks (no write, read or execution)");
    }
    for e in &effects {
        let _ = writeln!(t, "  {e}");
    }
    j.insert("effects".into(), json!(effects));

    let _ = writeln!(t, "\nRules:");
    let rules = rules(policy, &call, &scope);
    if rules.is_empty() {
        let _ = writeln!(t, "  no built-in or policy rule matched or nearly matched");
    }
    for r in &rules {
        let _ = writeln!(t, "  {r}");
    }
    j.insert("rules".into(), json!(rules));

    let _ = writeln!(t, "\nPolicy layers:");
    let mut layers = Vec::new();
    for s in &policy.sources {
        let _ = writeln!(t, "  {}: {}", s.layer.as_str(), s.path.display());
        layers.push(json!({"layer": s.layer.as_str(), "path": s.path}));
    }
    for i in &policy.ignored {
        let _ = writeln!(t, "  ignored: {i}");
    }
    if policy.headless {
        let _ = writeln!(t, "  headless: every ask is a deny");
    }
    j.insert("layers".into(), json!(layers));
    j.insert("ignored".into(), json!(policy.ignored));

    if let Some(e) = recorded {
        let _ = writeln!(t, "\nRecorded (audit entry {}):", e.seq);
        let _ = writeln!(
            t,
            "  {} by {} ({}): {}",
            e.decision.effect,
            e.decision.rule.as_deref().unwrap_or("-"),
            e.decision.source,
            e.decision.reason
        );
        for link in &e.chain {
            let _ = writeln!(
                t,
                "  ledger: runs {}, written at audit entry {}",
                link.path, link.seq
            );
        }
        if let Some(risk) = &e.risk {
            let _ = writeln!(t, "  risk layer: {risk}");
        }
        if !e.chain.is_empty() {
            let _ = writeln!(
                t,
                "  (the verdict below is today's static one, without the session's ledger)"
            );
        }
        j.insert(
            "recorded".into(),
            json!({"seq": e.seq, "decision": e.decision, "chain": e.chain, "risk": e.risk}),
        );
    }
    let chain: Vec<Value> = verdict
        .chain
        .iter()
        .map(|l| json!({"path": l.path, "seq": l.seq}))
        .collect();
    if !verdict.chain.is_empty() {
        let _ = writeln!(t, "\nLedger links:");
        for l in &verdict.chain {
            let _ = writeln!(t, "  runs {} (written at audit entry {})", l.path, l.seq);
        }
    }

    let label = if recorded.is_some() {
        "Verdict today"
    } else {
        "Verdict"
    };
    let _ = match &verdict.rule {
        Some(rule) => writeln!(
            t,
            "\n{label}: {} by {rule}: {}",
            verdict.outcome(),
            verdict.reason
        ),
        None => writeln!(
            t,
            "\n{label}: pass (no opinion; Claude Code's own permission flow applies)"
        ),
    };
    let how = how_to_override(&verdict, recorded.map(|e| e.seq));
    if let Some(h) = &how {
        let _ = writeln!(t, "\nTo override: {h}");
    }
    j.insert(
        "verdict".into(),
        json!({"decision": verdict.outcome(), "rule": verdict.rule, "reason": verdict.reason, "chain": chain}),
    );
    j.insert("override".into(), json!(how));
    Trace {
        text: t,
        json: Value::Object(j),
        verdict,
    }
}

/// What the call does, one line per effect, from the effects `normalize` computed once (the
/// same list the packs, the ledger and limits judge), whatever the tool: Bash, a file tool, a
/// fetch or an MCP tool's model. A shell line's programs are listed above as commands, so
/// their plain runs are not repeated here.
pub fn effects(call: &Call) -> Vec<String> {
    let shell = matches!(call.kind, CallKind::Shell { .. });
    let mut out = Vec::new();
    // A modelled MCP tool is judged as the command line its model gives; say which tool it is.
    if let Some((server, tool)) = crate::event::mcp_parts(&call.tool) {
        out.push(format!("calls tool '{tool}' of MCP server '{server}'"));
    }
    for e in &call.effects {
        if let Some(line) = describe(e, shell) {
            out.push(line);
        }
    }
    // One line per fact: `cat a; cat a` reads `a` twice.
    let mut seen = std::collections::HashSet::new();
    out.retain(|l| {
        let key = l.split(" (").next().unwrap_or(l).to_string();
        seen.insert(key)
    });
    out
}

/// One effect as a line of the trace; `None` for a shell line's plain program run.
fn describe(e: &crate::effects::Effect, shell: bool) -> Option<String> {
    use crate::call::{DeleteTarget, Span};
    use crate::effects::Effect as Fx;
    Some(match e {
        Fx::Read {
            path,
            by: Some(crate::call::Reader {
                found: Some(found), ..
            }),
        } => format!(
            "reads what find hands over under {} ({})",
            path.display(),
            found
                .names
                .iter()
                .map(|t| t.pattern.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Fx::Read {
            path,
            by: Some(crate::call::Reader { tree: Some(t), .. }),
        } => format!(
            "reads {} (all under it, if a directory{})",
            path.display(),
            match t {
                crate::call::Tree::LinksFollowed => "; links followed",
                crate::call::Tree::LinksKept => "",
            }
        ),
        Fx::Read { path, .. } => format!("reads {}", path.display()),
        Fx::List { path } => format!("lists {}", path.display()),
        Fx::Write {
            path, how, shell, ..
        } => {
            let mut line = format!("writes {} ({how})", path.display());
            if shell.as_ref().is_some_and(|w| w.from_network) {
                line.push_str(", content from the network");
            }
            line
        }
        Fx::Create { path } => format!("creates {}", path.display()),
        Fx::Delete {
            target,
            recursive,
            how,
            names,
        } => {
            let what = match target {
                DeleteTarget::Stdin { listed } if listed.is_empty() => {
                    "whatever its standard input names".to_string()
                }
                DeleteTarget::Stdin { listed } => {
                    let starts: Vec<String> =
                        listed.iter().map(|(w, _)| format!("`find {w}`")).collect();
                    format!("what {} lists", starts.join(" and "))
                }
                DeleteTarget::Named {
                    written,
                    path: None,
                    ..
                } => format!("`{written}`, not known until it runs"),
                DeleteTarget::Named {
                    written,
                    path: Some(p),
                    span,
                } => match span {
                    Span::Exact => p.display().to_string(),
                    Span::Contents => format!("everything in {}", p.display()),
                    Span::Pattern => format!("the entries of {} matching `{written}`", p.display()),
                    Span::Found { filtered: true } => {
                        format!("what `find` selects under {}", p.display())
                    }
                    Span::Found { filtered: false } => {
                        format!("everything `find` finds under {}", p.display())
                    }
                },
            };
            let tree = if *recursive { ", whole trees" } else { "" };
            let named: Vec<String> = names.iter().map(|t| format!("`{}`", t.pattern)).collect();
            let named = if named.is_empty() {
                String::new()
            } else {
                format!(" named {}", named.join(" and "))
            };
            format!("removes {what}{named} ({how}{tree})")
        }
        Fx::Move { from, to, glob, .. } => {
            let from = match glob {
                Some(g) => from.join(g),
                None => from.clone(),
            };
            format!("moves {} to {}", from.display(), to.display())
        }
        Fx::Link {
            link,
            target,
            symbolic,
        } => format!(
            "links {} to {} ({})",
            link.display(),
            target.display(),
            if *symbolic { "symbolic" } else { "hard" }
        ),
        Fx::Chmod { path, how, .. } => {
            format!("changes the mode or owner of {} ({how})", path.display())
        }
        Fx::Execute {
            program,
            path: Some(path),
            language,
            ..
        } => match language {
            // A settings file the program loads (git config): code it names runs.
            Some(l) if l.is_settings() => format!("loads {} ({program})", path.display()),
            Some(l) => format!("executes {} ({program}, {})", path.display(), l.as_str()),
            None => format!("executes {} ({program})", path.display()),
        },
        Fx::Execute { .. } if shell => return None,
        Fx::Execute { program, .. } => format!("runs {program}"),
        Fx::Query {
            engine, statement, ..
        } => format!("runs a database statement ({engine}): {}", clip(statement)),
        Fx::Send { host, data, sent } => {
            let to = host.as_deref().unwrap_or("a host not known until it runs");
            let mut line = match data {
                Some(d) if d.len() == 1 => format!("sends data to {to} (1 byte known)"),
                Some(d) => format!("sends data to {to} ({} bytes known)", d.len()),
                None => format!("sends to {to}"),
            };
            if let Some(upload) = sent.upload() {
                let _ = write!(line, ": {upload}");
            }
            for item in &sent.items {
                match item {
                    crate::call::Payload::Variable { name, .. } => {
                        let _ = write!(line, ", with ${name}");
                    }
                    crate::call::Payload::Name { name, .. } => {
                        let _ = write!(line, ": looks up `{name}`, a name built from data");
                    }
                    _ => {}
                }
            }
            line
        }
        Fx::Fetch { url, host } => format!(
            "fetches {url} (host {})",
            host.as_deref().unwrap_or("unknown")
        ),
        Fx::Signal { target } => format!("signals {target}"),
        Fx::Configure { what, .. } => {
            format!("changes configuration that later runs code: {}", clip(what))
        }
        Fx::StartAgent { program } => format!("starts another agent ({program})"),
        Fx::Destroy { what, tool } => format!("destroys a {what} a service keeps ({tool})"),
        Fx::Pay { what, tool } => format!("moves money: a {what} ({tool})"),
        Fx::Publish { what, tool } => format!("{what} ({tool})"),
        Fx::Serve { root, program } => {
            format!("serves {} over HTTP ({program})", root.display())
        }
    })
}

/// A long statement or command cut for one line of the trace.
fn clip(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(100) {
        Some((i, _)) => format!("{}…", &one_line[..i]),
        None => one_line,
    }
}

/// Every built-in rule that hit (with the effect it has under this policy and what changed it)
/// and every policy rule that matched or nearly matched.
fn rules(policy: &Policy, call: &Call, scope: &Scope) -> Vec<String> {
    let mut out = Vec::new();
    for hit in packs::hits(call, scope, |_| true) {
        let full_id = format!("{}/{}", hit.rule.pack, hit.rule.id);
        let base = if hit.rule.pack == "path-escape" {
            policy.outside_roots
        } else {
            hit.rule.effect
        };
        let effect = policy.rule_overrides.get(&full_id).copied().unwrap_or(base);
        let mut line = format!("{effect} built-in {full_id}: {}", hit.rule.reason);
        if !hit.detail.is_empty() {
            let _ = write!(line, ": {}", hit.detail);
        }
        if policy.disabled_packs.contains(hit.rule.pack) {
            let _ = write!(line, " — not applied: pack '{}' is disabled", hit.rule.pack);
        } else if effect != hit.rule.effect && hit.rule.pack != "path-escape" {
            let _ = write!(line, " — packs.overrides sets it to {effect}");
        }
        if let Some(r) = policy.overriding_rule(&full_id, effect, call, scope) {
            let _ = write!(
                line,
                " — overridden for this call by {} rule '{}' ({})",
                r.layer.as_str(),
                r.id,
                r.file.display()
            );
        }
        out.push(line);
    }
    let outcome = policy.evaluate(call, scope);
    for h in &outcome.hits {
        out.push(format!("{} {}: {}", h.effect, h.rule_id, h.reason));
    }
    for n in &outcome.near_misses {
        out.push(format!("near miss (not part of the verdict): {n}"));
    }
    out
}

/// How the user can get past this verdict, when it refuses.
fn how_to_override(v: &Verdict, seq: Option<u64>) -> Option<String> {
    if !matches!(v.effect, Some(Effect::Ask | Effect::Deny)) {
        return None;
    }
    let rule = v.rule.as_deref().unwrap_or("");
    let pack = rule.split('/').next().unwrap_or("");
    Some(if pack == "self-protection" {
        "this protects palisade itself from the agent; make the change yourself, outside the agent"
            .into()
    } else if let Some(id) = rule.strip_prefix("policy:") {
        format!("the policy rule '{id}' decided; edit or remove it in your policy file")
    } else if packs::PACKS.contains(&pack) {
        let allow = match seq {
            Some(s) => format!("`palisade allow --id {s}`"),
            None => "`palisade allow` (once the refusal is in the audit log)".into(),
        };
        format!(
            "{allow} writes a user-policy rule with `overrides: [{rule}]` scoped to calls like this one{}; see docs/POLICY.md, \"Scoped overrides\"",
            if v.effect == Some(Effect::Deny) {
                " (and `override_deny: true`, since it denies)"
            } else {
                ""
            }
        )
    } else if rule.starts_with("ledger") {
        "the agent wrote the file it runs earlier in this session; read the file, and run it yourself if it is what you want".into()
    } else if rule.starts_with("risk") {
        "the risk layer decided; see `risk:` in docs/POLICY.md (scope, thresholds, mode)".into()
    } else if rule.starts_with("inline") {
        "the inline code runs what a built-in rule refuses; put the code in a file, read it, and run it".into()
    } else {
        "see the reason above".into()
    })
}
