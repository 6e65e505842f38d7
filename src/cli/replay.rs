//! `palisade replay`: runs frozen challenge sets (JSONL cases, single events or chains of
//! steps) through the real pipeline, each case with its own in-memory record (ledger and audit
//! numbering, shared by a chain's steps) and HOME=/home/dev. No state directory is made.

use crate::event::HookEvent;
use crate::hook::{self, Pipeline};
use crate::locations::Locations;
use crate::policy::{self, Policy};
use crate::verdict::Verdict;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The home directory every case runs under.
pub const REPLAY_HOME: &str = "/home/dev";

/// How the risk layer runs during replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RiskReplay {
    /// Use each case's recorded `risk_answers`; cases without them skip the layer.
    Frozen,
    /// Skip the risk layer.
    Off,
    /// Call the backend configured in the policy.
    Live,
}

/// One case of a challenge set.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    pub id: String,
    #[serde(default)]
    pub category: String,
    #[serde(default)]
    pub expect: Option<String>,
    #[serde(default)]
    pub event: Option<Value>,
    #[serde(default)]
    pub steps: Vec<Step>,
    #[serde(default)]
    pub risk_answers: Option<Value>,
    /// The user policy the case runs under instead of the run's: YAML text, or the same as a
    /// JSON object (limits and read-only cases carry theirs, so they are self-contained).
    #[serde(default)]
    pub policy: Option<Value>,
}

/// One step of a chain case.
#[derive(Debug, Clone, Deserialize)]
pub struct Step {
    pub event: Value,
    #[serde(default)]
    pub expect: Option<String>,
    #[serde(default)]
    pub risk_answers: Option<Value>,
}

/// A case that did not get what it expected.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub id: String,
    pub step: Option<usize>,
    pub expected: String,
    pub got: String,
    pub rule: Option<String>,
    pub reason: String,
}

/// The result of a replay run.
#[derive(Debug, Default)]
pub struct Report {
    pub total: usize,
    pub passed: usize,
    pub by_category: BTreeMap<String, (usize, usize)>,
    pub failures: Vec<Failure>,
    /// Per category, the ordinary cases (every expectation `pass`/`allow`) and how many of
    /// them were blocked: the false positives.
    pub ordinary: BTreeMap<String, (usize, usize)>,
    /// Live answers per case id, for `--record`.
    pub recorded: Vec<Value>,
}

impl Report {
    /// The `--json` form: `total`, `passed`, `failed`, `by_category`, `failures`.
    pub fn to_json(&self) -> Value {
        let by_category: serde_json::Map<String, Value> = self
            .by_category
            .iter()
            .map(|(k, (t, p))| (k.clone(), json!({"total": t, "passed": p})))
            .collect();
        json!({
            "total": self.total,
            "passed": self.passed,
            "failed": self.total - self.passed,
            "by_category": by_category,
            "false_positives": self.ordinary.iter().map(|(k, (t, b))| (k.clone(), json!({
                "ordinary": t, "blocked": b, "rate": if *t == 0 { 0.0 } else { *b as f64 / *t as f64 },
            }))).collect::<serde_json::Map<String, Value>>(),
            "failures": self.failures.iter().map(|f| json!({
                "id": f.id, "step": f.step, "expected": f.expected, "got": f.got, "rule": f.rule, "reason": f.reason,
            })).collect::<Vec<_>>(),
        })
    }
}

/// True when a verdict satisfies an expectation word.
pub fn satisfies(expect: &str, verdict: &Verdict) -> bool {
    let got = verdict.outcome();
    match expect {
        "block" => matches!(got, "ask" | "deny"),
        "pass" => matches!(got, "pass" | "allow"),
        other => other == got,
    }
}

/// Collects `.jsonl` files from files and folders (recursively, sorted).
pub fn case_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut stack = vec![p.clone()];
            while let Some(dir) = stack.pop() {
                let entries = std::fs::read_dir(&dir)
                    .map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
                for entry in entries.flatten() {
                    let path = entry.path();
                    if path.is_dir() {
                        stack.push(path);
                    } else if path.extension().is_some_and(|e| e == "jsonl") {
                        out.push(path);
                    }
                }
            }
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(format!("{} does not exist", p.display()));
        }
    }
    out.sort();
    Ok(out)
}

/// Parses every case of the given files; a malformed line is an error naming file and line.
pub fn load_cases(files: &[PathBuf]) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for f in files {
        let text =
            std::fs::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let case: Case = serde_json::from_str(line)
                .map_err(|e| format!("{}:{}: not a case: {e}", f.display(), i + 1))?;
            if case.event.is_none() && case.steps.is_empty() {
                return Err(format!(
                    "{}:{}: case {} has neither `event` nor `steps`",
                    f.display(),
                    i + 1,
                    case.id
                ));
            }
            cases.push(case);
        }
    }
    Ok(cases)
}

/// Loads the policy a replay runs under: the built-in default, or `policy_file` as user policy.
pub fn replay_policy(policy_file: Option<&Path>) -> Result<Policy, String> {
    let Some(file) = policy_file else {
        return Ok(Policy::default());
    };
    let loc = Locations::from_vars(|k| match k {
        "HOME" => Some(REPLAY_HOME.into()),
        "PALISADE_CONFIG" => Some(file.to_path_buf()),
        _ => None,
    });
    let policy =
        policy::load(&loc, Path::new("/nonexistent-project")).map_err(|e| e.to_string())?;
    Ok(policy)
}

/// The policy a case carries (`"policy"`: YAML text or a JSON object), loaded as the user
/// policy of the replay's home, with no project policy. A policy that does not load is an
/// error naming the problem.
pub fn case_policy(value: &Value) -> Result<Policy, String> {
    let text = match value {
        Value::String(s) => s.clone(),
        // JSON is YAML: the object's text is a policy file as it stands.
        Value::Object(_) => value.to_string(),
        _ => return Err("`policy` must be YAML text or a JSON object".into()),
    };
    let loc = Locations::from_vars(|k| match k {
        "HOME" => Some(REPLAY_HOME.into()),
        _ => None,
    });
    policy::load_text(
        &text,
        Path::new("<case policy>"),
        &loc,
        Path::new("/nonexistent-project"),
    )
    .map_err(|e| e.to_string())
}

/// Replays cases, each with a fresh in-memory record: nothing is written to disk (`--risk
/// live` keeps no answer cache), and the paths a case names are judged as the hook would
/// judge them under HOME=/home/dev, its state directory there too.
pub fn replay(cases: &[Case], policy: &Policy, risk: RiskReplay) -> Report {
    let mut report = Report::default();
    let loc = Locations::from_vars(|k| match k {
        "HOME" => Some(REPLAY_HOME.into()),
        _ => None,
    });
    for case in cases {
        let record = hook::Record::in_memory();
        let own = match case.policy.as_ref().map(case_policy) {
            Some(Err(e)) => {
                report.failures.push(Failure {
                    id: case.id.clone(),
                    step: None,
                    expected: "a policy that loads".into(),
                    got: "error".into(),
                    rule: Some("error/policy".into()),
                    reason: format!("the case's policy does not load: {e}"),
                });
                report.total += 1;
                report
                    .by_category
                    .entry(case.category.clone())
                    .or_insert((0, 0))
                    .0 += 1;
                continue;
            }
            Some(Ok(p)) => Some(p),
            None => None,
        };
        let policy = own.as_ref().unwrap_or(policy);
        let steps: Vec<(Value, Option<String>, Option<Value>)> = if case.steps.is_empty() {
            vec![(
                case.event.clone().unwrap_or(Value::Null),
                case.expect.clone(),
                case.risk_answers.clone(),
            )]
        } else {
            case.steps
                .iter()
                .map(|s| (s.event.clone(), s.expect.clone(), s.risk_answers.clone()))
                .collect()
        };
        let mut ok = true;
        // With `--risk live`: the answers the backend gave, per step, for `--record`.
        let mut live_answers: Vec<Option<Value>> = Vec::new();
        for (i, (event, expect, answers)) in steps.iter().enumerate() {
            let verdict = match serde_json::from_value::<HookEvent>(event.clone()) {
                Ok(ev) => {
                    let pipeline = Pipeline {
                        policy,
                        locations: &loc,
                        project_dir: None,
                        follow_symlinks: false,
                        frozen_risk: if risk == RiskReplay::Frozen {
                            answers.as_ref()
                        } else {
                            None
                        },
                        risk_off: risk == RiskReplay::Off
                            || (risk == RiskReplay::Frozen && answers.is_none()),
                        deadline: None,
                        record: record.clone(),
                    };
                    hook::process(&pipeline, &ev)
                }
                Err(e) => Verdict::failure(
                    "error/bad-input",
                    format!("refused: the event is not a hook event ({e})"),
                ),
            };
            if risk == RiskReplay::Live {
                live_answers.push(
                    verdict
                        .risk
                        .as_ref()
                        .map(|r| r["answers"].clone())
                        .filter(Value::is_object),
                );
            }
            if let Some(expect) = expect
                && !satisfies(expect, &verdict)
            {
                ok = false;
                report.failures.push(Failure {
                    id: case.id.clone(),
                    step: (!case.steps.is_empty()).then_some(i),
                    expected: expect.clone(),
                    got: verdict.outcome().to_string(),
                    rule: verdict.rule.clone(),
                    reason: verdict.reason.clone(),
                });
            }
        }
        if risk == RiskReplay::Live {
            report
                .recorded
                .push(recorded_case(case, &steps, &live_answers));
        }
        report.total += 1;
        let cat = report
            .by_category
            .entry(case.category.clone())
            .or_insert((0, 0));
        cat.0 += 1;
        if ok {
            report.passed += 1;
            cat.1 += 1;
        }
        let ordinary = steps.iter().any(|s| s.1.is_some())
            && steps
                .iter()
                .all(|s| matches!(s.1.as_deref(), None | Some("pass" | "allow")));
        if ordinary {
            let fp = report
                .ordinary
                .entry(case.category.clone())
                .or_insert((0, 0));
            fp.0 += 1;
            fp.1 += usize::from(!ok);
        }
    }
    report
}

/// A case as a new frozen set line: the same events and expectations, with the live answers
/// as `risk_answers` (left out where the backend was not asked or failed).
fn recorded_case(
    case: &Case,
    steps: &[(Value, Option<String>, Option<Value>)],
    answers: &[Option<Value>],
) -> Value {
    let with_answers = |mut v: serde_json::Map<String, Value>, a: Option<&Option<Value>>| {
        if let Some(Some(a)) = a {
            v.insert("risk_answers".into(), a.clone());
        }
        Value::Object(v)
    };
    let mut out = serde_json::Map::new();
    out.insert("id".into(), json!(case.id));
    out.insert("category".into(), json!(case.category));
    if case.steps.is_empty() {
        if let Some(e) = &case.expect {
            out.insert("expect".into(), json!(e));
        }
        out.insert("event".into(), steps[0].0.clone());
        return with_answers(out, answers.first());
    }
    let recorded: Vec<Value> = steps
        .iter()
        .enumerate()
        .map(|(i, (event, expect, _))| {
            let mut step = serde_json::Map::new();
            step.insert("event".into(), event.clone());
            if let Some(e) = expect {
                step.insert("expect".into(), json!(e));
            }
            with_answers(step, answers.get(i))
        })
        .collect();
    out.insert("steps".into(), Value::Array(recorded));
    Value::Object(out)
}

/// A human-readable summary: per category, then each failure.
pub fn render(report: &Report) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "{:<24} {:>6} {:>6}\n",
        "category", "passed", "total"
    ));
    for (cat, (t, p)) in &report.by_category {
        s.push_str(&format!("{:<24} {:>6} {:>6}\n", cat, p, t));
    }
    if !report.ordinary.is_empty() {
        s.push_str(&format!(
            "{:<24} {:>8} {:>7} {:>6}\n",
            "false positives", "ordinary", "blocked", "rate"
        ));
        for (cat, (t, b)) in &report.ordinary {
            let rate = if *t == 0 {
                0.0
            } else {
                100.0 * *b as f64 / *t as f64
            };
            s.push_str(&format!("{cat:<24} {t:>8} {b:>7} {rate:>5.1}%\n"));
        }
    }
    for f in &report.failures {
        let step = f.step.map(|s| format!(" step {s}")).unwrap_or_default();
        s.push_str(&format!(
            "FAIL {}{}: expected {}, got {} [{}] {}\n",
            f.id,
            step,
            f.expected,
            f.got,
            f.rule.as_deref().unwrap_or("-"),
            f.reason
        ));
    }
    s.push_str(&format!(
        "{} passed, {} failed\n",
        report.passed,
        report.total - report.passed
    ));
    s
}
