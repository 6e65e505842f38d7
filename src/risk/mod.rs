//! The optional decision-model risk backend: seven typed questions in one request, answers
//! mapped to a verdict through a threshold ladder, with `authorized` as a mitigator only.
//!
//! One way through: state (call, user messages, ledger) → request → cache or backend →
//! checked answers → ladder → verdict and audit record. Every failure follows `on_error`
//! (ask or deny), never allow; the runtime and the HTTP client start only when a call actually
//! goes to the backend.

pub mod broker;
pub mod cache;
pub mod client;
pub mod fastpath;
pub mod ladder;
pub mod questions;
pub mod serve;
pub mod settings;
pub mod state;
pub mod wire;

pub use client::RiskError;
pub use ladder::{LadderContext, LadderDecision, RiskAnswers};
pub use settings::{RiskConfig, RiskScope, RiskSettings};
pub use state::LedgerExcerpt;

use crate::event::HookEvent;
use crate::normalize::{Call, Scope};
use crate::verdict::{Effect, Source, Verdict};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The risk layer's verdict for one call and its audit record.
#[derive(Debug, Clone, PartialEq)]
pub struct RiskOutcome {
    /// Source `Risk`, rule `risk/<step>`. `effect: None` for a pass, and always in observe mode.
    pub verdict: Verdict,
    /// The audit `risk` object: model, question_set, answers by id, step, decided, latency_ms,
    /// tokens, cost, request_id, cached, error, mode, state (redacted).
    pub record: Value,
}

/// What one backend exchange (or cache hit) produced, for the record.
#[derive(Debug, Clone, Default)]
struct Provenance {
    model: Option<String>,
    request_id: Option<String>,
    latency_ms: u64,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cost: Option<f64>,
    cached: bool,
    attempts: u32,
}

/// True when this call goes to the backend: the layer is on, the static layer did not deny,
/// and the call is within `scope`.
pub fn in_scope(settings: &RiskSettings, static_verdict: &Verdict) -> bool {
    if !settings.enabled {
        return false;
    }
    match static_verdict.effect {
        Some(Effect::Deny) => false,
        None => true,
        Some(_) => settings.scope == RiskScope::AllButDenied,
    }
}

/// Asks the backend about one call. `None` when the layer is off or the call is out of scope
/// (a static deny never goes to the model). Failures come back as an `on_error` outcome.
pub fn assess(
    settings: &RiskSettings,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
    static_verdict: &Verdict,
    ledger_context: &[LedgerExcerpt],
    data_dir: &Path,
) -> Option<RiskOutcome> {
    if !in_scope(settings, static_verdict) {
        return None;
    }
    let key = std::env::var(&settings.api_key_env)
        .ok()
        .filter(|k| !k.trim().is_empty());
    assess_with_key(
        settings,
        key,
        event,
        call,
        scope,
        static_verdict,
        ledger_context,
        data_dir,
    )
}

/// `assess` with the key given instead of read from `api_key_env` (tests, embedding).
#[allow(clippy::too_many_arguments)]
pub fn assess_with_key(
    settings: &RiskSettings,
    key: Option<String>,
    event: &HookEvent,
    call: &Call,
    scope: &Scope,
    static_verdict: &Verdict,
    ledger_context: &[LedgerExcerpt],
    data_dir: &Path,
) -> Option<RiskOutcome> {
    if !in_scope(settings, static_verdict) {
        return None;
    }
    // Step 1: a call that only reads inside the roots is not sent (unless `scope: all`), and
    // neither is one the static layer already had an opinion on that reads only.
    if settings.scope != RiskScope::All && fastpath::read_only(call, scope) {
        return None;
    }
    let started = Instant::now();
    if let Some(k) = &key {
        crate::redact::register_secret(k);
    }
    let cwd = event
        .cwd
        .clone()
        .unwrap_or_else(|| scope.paths.cwd.to_string_lossy().into_owned());
    let messages = state::user_messages(event.transcript_path.as_deref().map(Path::new));
    let room = state::MAX_REQUEST_BYTES.saturating_sub(
        questions::request(&settings.model, Value::Null)
            .body()
            .len(),
    );
    let built = state::build(call, &cwd, messages, ledger_context, key.as_deref(), room);
    let mut ctx = context(static_verdict, ledger_context);
    ctx.content_cut = !built.cut.is_empty();
    let state_value = built.state;
    let request = questions::request(&settings.model, state_value.clone());
    let with_cut = |mut out: RiskOutcome| {
        if !built.cut.is_empty()
            && let Some(obj) = out.record.as_object_mut()
        {
            obj.insert("cut".into(), json!(built.cut));
        }
        out
    };
    if let Err(e) = request.validate() {
        return Some(with_cut(failed(
            settings,
            RiskError::Invalid(e),
            &state_value,
            started,
            0,
        )));
    }
    // The key first: without it nothing is decided from stored answers either.
    let Some(key) = key else {
        let e = RiskError::NoKey {
            var: settings.api_key_env.clone(),
        };
        return Some(with_cut(failed(settings, e, &state_value, started, 0)));
    };
    let body = request.body();
    let cache_key = cache::key(&settings.url, &body);
    let now = unix_now();
    let mut cache_rejected = None;
    let mac_key = (settings.cache_ttl_s > 0).then(|| cache::mac_key(data_dir));
    if let Some(mk) = &mac_key {
        match cache::get(data_dir, mk, &cache_key, settings.cache_ttl_s, now) {
            cache::Lookup::Hit(hit) => {
                let prov = Provenance {
                    model: hit.model,
                    request_id: hit.request_id,
                    latency_ms: started.elapsed().as_millis() as u64,
                    input_tokens: hit.usage.as_ref().and_then(|u| u.input_tokens),
                    output_tokens: hit.usage.as_ref().and_then(|u| u.output_tokens),
                    cost: None,
                    cached: true,
                    attempts: 0,
                };
                return Some(with_cut(outcome(
                    settings,
                    &hit.answers,
                    &ctx,
                    prov,
                    &state_value,
                )));
            }
            cache::Lookup::Rejected(why) => cache_rejected = Some(why),
            cache::Lookup::Miss => {}
        }
    }
    let note_cache = |mut out: RiskOutcome| {
        if let (Some(why), Some(obj)) = (&cache_rejected, out.record.as_object_mut()) {
            obj.insert("cache_rejected".into(), json!(why));
        }
        with_cut(out)
    };
    let budget = Duration::from_millis(settings.timeout_ms).saturating_sub(started.elapsed());
    let ca_pem = match settings.ca_file.as_deref().map(std::fs::read) {
        Some(Err(e)) => {
            let e = RiskError::Internal(format!("cannot read risk.ca_file ({e})"));
            return Some(note_cache(failed(settings, e, &state_value, started, 0)));
        }
        Some(Ok(pem)) => Some(pem),
        None => None,
    };
    let broker_dir = broker::socket_dir(data_dir);
    let endpoint = client::Endpoint {
        url: &settings.url,
        key: &key,
        ca_pem: ca_pem.as_deref(),
        broker_dir: Some(&broker_dir),
    };
    let mut trace = client::Trace::default();
    let result = client::post_traced(&endpoint, body, budget, &mut trace);
    let attempts = trace.attempts;
    // Which way the request went, on every record that sent one.
    let note_cache = |out: RiskOutcome| {
        let mut out = note_cache(out);
        for r in [Some(&mut out.record), out.verdict.risk.as_mut()]
            .into_iter()
            .flatten()
        {
            if let Some(obj) = r.as_object_mut() {
                obj.insert("broker".into(), json!(trace.broker));
            }
        }
        out
    };
    let exchange = match result {
        Ok(x) => x,
        Err(RiskError::Timeout { .. }) => {
            let e = RiskError::Timeout {
                ms: settings.timeout_ms,
            };
            return Some(note_cache(failed(
                settings,
                e,
                &state_value,
                started,
                attempts,
            )));
        }
        Err(e) => {
            return Some(note_cache(failed(
                settings,
                e,
                &state_value,
                started,
                attempts,
            )));
        }
    };
    let answers = RiskAnswers::recorded(&exchange.response.answers);
    if let Err(e) = answers.check() {
        let mut out = failed(
            settings,
            RiskError::BadAnswers(e),
            &state_value,
            started,
            exchange.attempts,
        );
        if let Some(obj) = out.record.as_object_mut() {
            obj.insert("model".into(), json!(exchange.response.model));
            obj.insert("request_id".into(), json!(exchange.request_id));
        }
        return Some(note_cache(out));
    }
    let usage = exchange.response.usage.clone();
    let entry = cache::CacheEntry {
        stored_at: now,
        model: exchange.response.model.clone(),
        request_id: exchange.request_id.clone(),
        answers: answers.clone(),
        usage: usage.clone(),
    };
    let cache_error = match &mac_key {
        Some(mk) => cache::put(data_dir, mk, &cache_key, &entry).err(),
        None => None,
    };
    let prov = Provenance {
        model: exchange.response.model.clone(),
        request_id: exchange.request_id.clone(),
        latency_ms: started.elapsed().as_millis() as u64,
        input_tokens: usage.as_ref().and_then(|u| u.input_tokens),
        output_tokens: usage.as_ref().and_then(|u| u.output_tokens),
        cost: usage.as_ref().and_then(|u| u.cost),
        cached: false,
        attempts: exchange.attempts,
    };
    let mut out = outcome(settings, &answers, &ctx, prov, &state_value);
    if let (Some(e), Some(obj)) = (cache_error, out.record.as_object_mut()) {
        obj.insert("cache_error".into(), json!(e.to_string()));
    }
    Some(note_cache(out))
}

/// The ladder on recorded answers, offline and deterministic (replay `--risk frozen`).
pub fn assess_frozen(
    settings: &RiskSettings,
    answers: &RiskAnswers,
    ctx: &LadderContext,
) -> RiskOutcome {
    let prov = Provenance {
        model: Some("frozen".into()),
        ..Provenance::default()
    };
    outcome(settings, answers, ctx, prov, &Value::Null)
}

/// `assess_frozen` on answers as recorded JSON (a case's `risk_answers`): answers that do not
/// even parse (an unknown answer type) follow `on_error`, like a malformed live response.
pub fn assess_frozen_value(
    settings: &RiskSettings,
    answers: &Value,
    ctx: &LadderContext,
) -> RiskOutcome {
    match serde_json::from_value::<RiskAnswers>(answers.clone()) {
        Ok(a) => assess_frozen(settings, &a, ctx),
        Err(e) => {
            let mut out = failed(
                settings,
                RiskError::BadAnswers(format!("the recorded answers do not parse ({e})")),
                &Value::Null,
                Instant::now(),
                0,
            );
            if let Some(obj) = out.record.as_object_mut() {
                obj.insert("model".into(), json!("frozen"));
            }
            out
        }
    }
}

/// The ladder context of a call: the static category (when the static layer had an opinion)
/// and whether it runs an agent-written file palisade never saw.
pub fn context(static_verdict: &Verdict, ledger_context: &[LedgerExcerpt]) -> LadderContext {
    LadderContext {
        category: static_verdict.effect.and(static_verdict.category.clone()),
        executes_unseen_agent_file: ledger_context
            .iter()
            .any(|e| e.untrusted_source.is_none() && e.written_by_agent && e.excerpt.is_none()),
        content_cut: false,
    }
}

/// Combines the static verdict with the risk outcome: the stricter effect wins; the risk
/// record is kept either way so the audit shows what the model said. The mitigator's pass can
/// never lower a static ask, because a pass is not stricter than anything.
pub fn combine(static_verdict: Verdict, outcome: RiskOutcome) -> Verdict {
    let RiskOutcome { verdict, record } = outcome;
    // A pass (observe mode, low risk, mitigated) over a static "no opinion" still names the
    // risk step that decided it, so `audit --stats` counts observe mode's would-be verdicts by
    // rule.
    let named = static_verdict.effect.is_none() && static_verdict.rule.is_none();
    let risk_rule = verdict.rule.clone();
    let mut out = if verdict.effect > static_verdict.effect {
        verdict
    } else {
        static_verdict
    };
    if named && out.rule.is_none() {
        out.rule = risk_rule;
    }
    out.risk = Some(record);
    out
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn mode(settings: &RiskSettings) -> &'static str {
    if settings.observe {
        "observe"
    } else {
        "enforce"
    }
}

fn verdict_of(decision: &LadderDecision, settings: &RiskSettings) -> Verdict {
    let reason = if settings.observe {
        format!(
            "observe mode, not enforced: the risk layer would answer {} ({})",
            decision.decided.map(Effect::as_str).unwrap_or("pass"),
            decision.reason
        )
    } else {
        decision.reason.clone()
    };
    Verdict {
        effect: decision.effect,
        rule: Some(format!("risk/{}", decision.step)),
        category: Some("risk".into()),
        reason,
        source: Source::Risk,
        chain: Vec::new(),
        risk: None,
        alerts: Vec::new(),
    }
}

fn outcome(
    settings: &RiskSettings,
    answers: &RiskAnswers,
    ctx: &LadderContext,
    prov: Provenance,
    state: &Value,
) -> RiskOutcome {
    let decision = ladder::decide(settings, answers, ctx);
    let mut verdict = verdict_of(&decision, settings);
    let record = json!({
        "model": prov.model,
        "question_set": questions::QUESTION_SET,
        "answers": answers,
        "step": decision.step,
        "decided": decision.decided.map(Effect::as_str).unwrap_or("pass"),
        "mitigated": decision.mitigated,
        "mode": mode(settings),
        "thresholds_changed": settings.thresholds.changed(),
        "latency_ms": prov.latency_ms,
        "tokens": {"input": prov.input_tokens, "output": prov.output_tokens},
        "cost": prov.cost,
        "request_id": prov.request_id,
        "cached": prov.cached,
        "attempts": prov.attempts,
        "error": if decision.step == "error" { Value::String(decision.reason.clone()) } else { Value::Null },
        "state": state,
    });
    verdict.risk = Some(record.clone());
    RiskOutcome { verdict, record }
}

fn failed(
    settings: &RiskSettings,
    error: RiskError,
    state: &Value,
    started: Instant,
    attempts: u32,
) -> RiskOutcome {
    // The reason the agent reads holds palisade's words only; the record keeps the summary.
    let decision = ladder::on_error(settings, &error.public());
    let mut verdict = verdict_of(&decision, settings);
    let record = json!({
        "model": Value::Null,
        "question_set": questions::QUESTION_SET,
        "answers": Value::Null,
        "step": decision.step,
        "decided": decision.decided.map(Effect::as_str).unwrap_or("pass"),
        "mitigated": false,
        "mode": mode(settings),
        "thresholds_changed": settings.thresholds.changed(),
        "latency_ms": started.elapsed().as_millis() as u64,
        "tokens": Value::Null,
        "cost": Value::Null,
        "request_id": Value::Null,
        "cached": false,
        "attempts": attempts,
        "error": {"code": error.code(), "message": error.to_string()},
        "state": state,
    });
    verdict.risk = Some(record.clone());
    RiskOutcome { verdict, record }
}

/// The outcome of one `doctor` check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckStatus {
    Ok,
    Warn,
    Fail,
}

/// `palisade doctor`'s risk checks: the key is present, the endpoint answers a minimal request,
/// and how long it took. Each message says what to fix.
pub fn doctor_check(settings: &RiskSettings) -> Vec<(CheckStatus, String)> {
    let mut out = Vec::new();
    if !settings.enabled {
        out.push((
            CheckStatus::Ok,
            "risk backend: off (set `risk: {enabled: true}` in the user policy to use it)".into(),
        ));
        return out;
    }
    let key = std::env::var(&settings.api_key_env)
        .ok()
        .filter(|k| !k.trim().is_empty());
    let Some(key) = key else {
        out.push((
            CheckStatus::Fail,
            format!(
                "risk backend: the environment variable {} is not set; export your TypeSafe or OpenRouter key under that name (every backend call follows on_error until then)",
                settings.api_key_env
            ),
        ));
        return out;
    };
    out.push((
        CheckStatus::Ok,
        format!("risk backend: key present in {}", settings.api_key_env),
    ));
    let mut q = std::collections::BTreeMap::new();
    q.insert(
        "ping".to_string(),
        wire::Question::Noul {
            instructions: Some("The `text` is a greeting.".into()),
            criteria: None,
        },
    );
    let request = wire::DecisionRequest {
        model: settings.model.clone(),
        state: json!({"text": "hello from palisade doctor"}),
        questions: q,
    };
    let budget = Duration::from_millis(settings.timeout_ms);
    match client::post(&settings.url, &key, request.body(), budget) {
        Ok(x) if x.response.answers.contains_key("ping") => {
            let status = if x.latency_ms * 2 > settings.timeout_ms {
                CheckStatus::Warn
            } else {
                CheckStatus::Ok
            };
            out.push((
                status,
                format!(
                    "risk backend: {} answered in {} ms (model {}, budget {} ms{})",
                    settings.url,
                    x.latency_ms,
                    x.response.model.as_deref().unwrap_or("?"),
                    settings.timeout_ms,
                    if status == CheckStatus::Warn {
                        "; raise risk.timeout_ms or expect on_error outcomes"
                    } else {
                        ""
                    }
                ),
            ));
        }
        Ok(_) => out.push((
            CheckStatus::Fail,
            format!(
                "risk backend: {} answered without the asked question; check that risk.url is a /systemone or /alpha/decisions endpoint",
                settings.url
            ),
        )),
        Err(e) => out.push((
            CheckStatus::Fail,
            format!(
                "risk backend: {} did not answer ({e}); check risk.url, the key in {} and the network",
                settings.url, settings.api_key_env
            ),
        )),
    }
    out
}
