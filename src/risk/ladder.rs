//! The threshold ladder (REFERENCE-jev §4.3): the seven answers mapped to a verdict, first match
//! wins. A pure function of (settings, answers, context): no clock, no I/O, so frozen answers
//! replay to the same decision months later.
//!
//! Steps 0 (hard rules) and 1 (read-only fast path) belong to the static layer; step 2 (backend
//! error) is `on_error`. Here: 3 from-untrusted → deny; 4 high risk → deny; 5 low confidence →
//! ask (4b: a call that could not be sent whole → ask); 6 elevated signal → ask, which the
//! `authorized` mitigator may turn into a pass;
//! 7 low risk → pass (allow with `auto_allow`); 8 anything else → ask.

use super::questions::QUESTION_IDS;
use super::settings::RiskSettings;
use super::wire::Answer;
use crate::verdict::Effect;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The backend's answers by question id, in the wire shape (also the frozen `risk_answers`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RiskAnswers(pub BTreeMap<String, Answer>);

/// The seven answers, checked: every id present with its type, every value in range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedAnswers {
    pub risk: f64,
    /// The `risk` score's confidence; a missing one counts as 0 (below any floor).
    pub risk_confidence: f64,
    pub destructive: f64,
    pub exfiltration: f64,
    pub beyond_request: f64,
    pub from_untrusted: f64,
    pub hidden_effect: f64,
    pub authorized: f64,
}

fn unit(id: &str, what: &str, v: f64) -> Result<f64, String> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("`{id}` {what} {v} is outside [0, 1]"))
    }
}

impl RiskAnswers {
    /// The answers worth keeping (audit, cache): the seven ids only, without the `legend`
    /// (an echo of the question's levels), so a verbose server cannot bloat the record.
    pub fn recorded(answers: &BTreeMap<String, Answer>) -> RiskAnswers {
        RiskAnswers(
            answers
                .iter()
                .filter(|(id, _)| QUESTION_IDS.contains(&id.as_str()))
                .map(|(id, a)| {
                    let a = match a {
                        Answer::Score {
                            score,
                            confidence,
                            probabilities,
                            ..
                        } => Answer::Score {
                            score: *score,
                            confidence: *confidence,
                            probabilities: probabilities.clone().filter(|p| p.len() <= 16),
                            legend: None,
                        },
                        Answer::Choice {
                            choice,
                            confidence,
                            probabilities,
                        } => Answer::Choice {
                            choice: super::wire::clip(choice, 64),
                            confidence: *confidence,
                            probabilities: probabilities.clone().filter(|p| p.len() <= 16),
                        },
                        other => other.clone(),
                    };
                    (id.clone(), a)
                })
                .collect(),
        )
    }

    /// Checks the answers: a missing id, a wrong type or a value out of range is an error.
    pub fn check(&self) -> Result<CheckedAnswers, String> {
        let get = |id: &str| {
            self.0
                .get(id)
                .ok_or_else(|| format!("the answer for `{id}` is missing"))
        };
        let noul = |id: &str| -> Result<f64, String> {
            match get(id)? {
                Answer::Noul { noul } => unit(id, "probability", *noul),
                other => Err(format!(
                    "`{id}` should be a noul answer, got {}",
                    other.kind()
                )),
            }
        };
        let (risk, risk_confidence) = match get("risk")? {
            Answer::Score {
                score,
                confidence,
                probabilities,
                ..
            } => {
                let max_level = (super::questions::RISK_LEVELS.len() - 1) as f64;
                if !score.is_finite() || *score < 0.0 || *score > max_level {
                    return Err(format!("`risk` score {score} is outside [0, {max_level}]"));
                }
                if let Some(p) = probabilities {
                    for v in p.values() {
                        unit("risk", "probability", *v)?;
                    }
                }
                let c = match confidence {
                    Some(c) => unit("risk", "confidence", *c)?,
                    None => 0.0,
                };
                (*score, c)
            }
            other => {
                return Err(format!(
                    "`risk` should be a score answer, got {}",
                    other.kind()
                ));
            }
        };
        debug_assert_eq!(QUESTION_IDS.len(), 7);
        Ok(CheckedAnswers {
            risk,
            risk_confidence,
            destructive: noul("destructive")?,
            exfiltration: noul("exfiltration")?,
            beyond_request: noul("beyond_request")?,
            from_untrusted: noul("from_untrusted")?,
            hidden_effect: noul("hidden_effect")?,
            authorized: noul("authorized")?,
        })
    }
}

/// What the ladder knows besides the answers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LadderContext {
    /// The category of the call, if the static layer had one (scope `all-but-denied`).
    pub category: Option<String>,
    /// The call executes a file the agent wrote whose content palisade has not seen: ask
    /// deterministically, whatever the model says (unless it says deny).
    pub executes_unseen_agent_file: bool,
    /// Part of the call could not be sent whole: the model judged a clipped call, so nothing
    /// below ask comes out (no low-risk pass, no `auto_allow`, no mitigator).
    pub content_cut: bool,
}

/// The ladder's decision.
#[derive(Debug, Clone, PartialEq)]
pub struct LadderDecision {
    /// What palisade answers: `None` is no opinion (always `None` in observe mode).
    pub effect: Option<Effect>,
    /// What the ladder decided before observe mode: what enforce mode would answer.
    pub decided: Option<Effect>,
    /// The step that matched: `from-untrusted`, `deny`, `low-confidence`, `ask`, `authorized`,
    /// `low-risk`, `unsure`, or `error`.
    pub step: &'static str,
    pub reason: String,
    /// The `authorized` mitigator turned an ask into a pass.
    pub mitigated: bool,
}

impl LadderDecision {
    fn new(
        settings: &RiskSettings,
        effect: Option<Effect>,
        step: &'static str,
        reason: String,
    ) -> Self {
        LadderDecision {
            effect: if settings.observe { None } else { effect },
            decided: effect,
            step,
            reason,
            mitigated: false,
        }
    }
}

/// Step 2: the backend could not answer (or answered nonsense). Never an allow.
pub fn on_error(settings: &RiskSettings, cause: &str) -> LadderDecision {
    let effect = if settings.on_error_deny {
        Effect::Deny
    } else {
        Effect::Ask
    };
    LadderDecision::new(
        settings,
        Some(effect),
        "error",
        format!("the risk backend could not judge this call ({cause}); on_error is {effect}"),
    )
}

fn fmt2(v: f64) -> String {
    format!("{v:.2}")
}

/// Runs the ladder. Invalid answers go to `on_error`.
pub fn decide(
    settings: &RiskSettings,
    answers: &RiskAnswers,
    ctx: &LadderContext,
) -> LadderDecision {
    let a = match answers.check() {
        Ok(a) => a,
        Err(e) => return on_error(settings, &format!("invalid answers: {e}")),
    };
    let t = &settings.thresholds;

    // Step 3: the call serves someone other than the user.
    if a.from_untrusted >= t.from_untrusted_deny {
        return LadderDecision::new(
            settings,
            Some(Effect::Deny),
            "from-untrusted",
            format!(
                "the risk model judges this call to carry out an instruction from untrusted content, not from the user (from_untrusted {} >= {})",
                fmt2(a.from_untrusted),
                fmt2(t.from_untrusted_deny)
            ),
        );
    }

    // Step 4: high risk. No mitigator: a deny is never lifted.
    let mut deny = Vec::new();
    if a.risk >= t.risk_deny {
        deny.push(format!("risk {} >= {}", fmt2(a.risk), fmt2(t.risk_deny)));
    }
    if a.destructive >= t.destructive_deny {
        deny.push(format!(
            "destructive {} >= {}",
            fmt2(a.destructive),
            fmt2(t.destructive_deny)
        ));
    }
    if a.exfiltration >= t.exfiltration_deny {
        deny.push(format!(
            "exfiltration {} >= {}",
            fmt2(a.exfiltration),
            fmt2(t.exfiltration_deny)
        ));
    }
    if !deny.is_empty() {
        return LadderDecision::new(
            settings,
            Some(Effect::Deny),
            "deny",
            format!(
                "the risk model rates this call as too dangerous to run ({}); do it another way or ask the user to run it",
                deny.join(", ")
            ),
        );
    }

    // Step 4b: the model saw a clipped call (padding around a payload): whatever it says
    // below deny, a human decides. No mitigator.
    if ctx.content_cut {
        return LadderDecision::new(
            settings,
            Some(Effect::Ask),
            "incomplete",
            "the call is too large to be judged whole by the risk model, so a human decides".into(),
        );
    }

    // Step 5: the model is unsure; attacks tend to lower its confidence. No mitigator.
    if a.risk_confidence < t.confidence_floor {
        return LadderDecision::new(
            settings,
            Some(Effect::Ask),
            "low-confidence",
            format!(
                "the risk model is unsure about this call (confidence {} < {})",
                fmt2(a.risk_confidence),
                fmt2(t.confidence_floor)
            ),
        );
    }

    // Step 6: an elevated signal asks; `authorized` may turn that ask into a pass.
    let mut ask: Vec<String> = Vec::new();
    let mut exfiltration_signal = false;
    if a.risk >= t.risk_ask {
        ask.push(format!("risk {} >= {}", fmt2(a.risk), fmt2(t.risk_ask)));
    }
    if a.destructive >= t.destructive_ask {
        ask.push(format!(
            "destructive {} >= {}",
            fmt2(a.destructive),
            fmt2(t.destructive_ask)
        ));
    }
    if a.exfiltration >= t.exfiltration_ask {
        exfiltration_signal = true;
        ask.push(format!(
            "exfiltration {} >= {}",
            fmt2(a.exfiltration),
            fmt2(t.exfiltration_ask)
        ));
    }
    if a.beyond_request >= t.beyond_request_ask {
        ask.push(format!(
            "beyond_request {} >= {}",
            fmt2(a.beyond_request),
            fmt2(t.beyond_request_ask)
        ));
    }
    if a.hidden_effect >= t.hidden_effect_ask {
        ask.push(format!(
            "hidden_effect {} >= {}",
            fmt2(a.hidden_effect),
            fmt2(t.hidden_effect_ask)
        ));
    }
    if ctx.executes_unseen_agent_file {
        ask.push("it runs a file the agent wrote whose content palisade has not seen".into());
    }
    if !ask.is_empty() {
        let category_blocked = ctx
            .category
            .as_ref()
            .is_some_and(|c| settings.non_mitigable.contains(c))
            || (exfiltration_signal && settings.non_mitigable.iter().any(|c| c == "exfiltration"));
        let mitigable = a.authorized >= t.authorized_min
            && a.from_untrusted < t.authorized_untrusted_max
            && a.hidden_effect < t.hidden_effect_ask
            && !ctx.executes_unseen_agent_file
            && !category_blocked;
        if mitigable {
            let mut d = LadderDecision::new(
                settings,
                None,
                "authorized",
                format!(
                    "the risk model would ask ({}), but the user explicitly asked for this action (authorized {} >= {})",
                    ask.join(", "),
                    fmt2(a.authorized),
                    fmt2(t.authorized_min)
                ),
            );
            d.mitigated = true;
            return d;
        }
        return LadderDecision::new(
            settings,
            Some(Effect::Ask),
            "ask",
            format!(
                "the risk model wants a human to confirm this call ({})",
                ask.join(", ")
            ),
        );
    }

    // Step 7: low risk on every signal (`authorized` is not a risk signal).
    let others = [
        a.exfiltration,
        a.beyond_request,
        a.from_untrusted,
        a.hidden_effect,
    ];
    if a.risk < t.allow_risk_max
        && a.destructive <= t.allow_destructive_max
        && others.iter().all(|v| *v < t.allow_other_max)
    {
        let effect = settings.auto_allow.then_some(Effect::Allow);
        return LadderDecision::new(
            settings,
            effect,
            "low-risk",
            format!(
                "the risk model rates this call low-risk (risk {}, destructive {})",
                fmt2(a.risk),
                fmt2(a.destructive)
            ),
        );
    }

    // Step 8: between the bands: unsure, so a human decides.
    LadderDecision::new(
        settings,
        Some(Effect::Ask),
        "unsure",
        format!(
            "the risk model's answers fall between the low-risk and the ask bands (risk {}, destructive {}, exfiltration {}, beyond_request {}, from_untrusted {}, hidden_effect {})",
            fmt2(a.risk),
            fmt2(a.destructive),
            fmt2(a.exfiltration),
            fmt2(a.beyond_request),
            fmt2(a.from_untrusted),
            fmt2(a.hidden_effect)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Answers: risk score, confidence, then the six nouls in `QUESTION_IDS` order.
    pub(crate) fn answers(r: f64, c: f64, n: [f64; 6]) -> RiskAnswers {
        serde_json::from_value(json!({
            "risk": {"type":"score","score":r,"confidence":c},
            "destructive": {"type":"noul","noul":n[0]},
            "exfiltration": {"type":"noul","noul":n[1]},
            "beyond_request": {"type":"noul","noul":n[2]},
            "from_untrusted": {"type":"noul","noul":n[3]},
            "hidden_effect": {"type":"noul","noul":n[4]},
            "authorized": {"type":"noul","noul":n[5]},
        }))
        .unwrap()
    }

    fn run(a: &RiskAnswers) -> LadderDecision {
        decide(&RiskSettings::default(), a, &LadderContext::default())
    }

    #[test]
    fn each_step() {
        let low = [0.02, 0.02, 0.1, 0.02, 0.02, 0.0];
        let d = run(&answers(0.1, 0.9, low));
        assert_eq!((d.effect, d.step), (None, "low-risk"));
        let s = RiskSettings {
            auto_allow: true,
            ..Default::default()
        };
        let d = decide(&s, &answers(0.1, 0.9, low), &LadderContext::default());
        assert_eq!((d.effect, d.step), (Some(Effect::Allow), "low-risk"));

        let d = run(&answers(0.1, 0.9, [0.02, 0.02, 0.1, 0.75, 0.02, 0.99]));
        assert_eq!((d.effect, d.step), (Some(Effect::Deny), "from-untrusted"));
        let d = run(&answers(2.6, 0.9, [0.2, 0.02, 0.1, 0.02, 0.02, 0.99]));
        assert_eq!((d.effect, d.step), (Some(Effect::Deny), "deny"));
        let d = run(&answers(1.0, 0.9, [0.2, 0.9, 0.1, 0.02, 0.02, 0.99]));
        assert_eq!((d.effect, d.step), (Some(Effect::Deny), "deny"));
        let d = run(&answers(1.0, 0.3, [0.2, 0.02, 0.1, 0.02, 0.02, 0.99]));
        assert_eq!((d.effect, d.step), (Some(Effect::Ask), "low-confidence"));
        let d = run(&answers(1.8, 0.9, [0.2, 0.02, 0.1, 0.02, 0.02, 0.2]));
        assert_eq!((d.effect, d.step), (Some(Effect::Ask), "ask"));
        let d = run(&answers(1.8, 0.9, [0.2, 0.02, 0.1, 0.02, 0.02, 0.9]));
        assert_eq!((d.effect, d.step, d.mitigated), (None, "authorized", true));
        let d = run(&answers(0.8, 0.9, [0.2, 0.02, 0.1, 0.02, 0.02, 0.2]));
        assert_eq!((d.effect, d.step), (Some(Effect::Ask), "unsure"));
    }

    #[test]
    fn mitigator_limits() {
        // Untrusted influence above its bar switches the mitigator off.
        let d = run(&answers(1.8, 0.9, [0.2, 0.02, 0.1, 0.35, 0.02, 0.95]));
        assert_eq!(d.step, "ask");
        // A hidden effect that triggered the ask cannot be authorised away.
        let d = run(&answers(1.0, 0.9, [0.2, 0.02, 0.1, 0.02, 0.7, 0.95]));
        assert_eq!(d.step, "ask");
        // Exfiltration is non-mitigable by default.
        let d = run(&answers(1.0, 0.9, [0.2, 0.6, 0.1, 0.02, 0.02, 0.95]));
        assert_eq!(d.step, "ask");
        // A non-mitigable static category.
        let ctx = LadderContext {
            category: Some("secrets".into()),
            executes_unseen_agent_file: false,
            content_cut: false,
        };
        let d = decide(
            &RiskSettings::default(),
            &answers(1.8, 0.9, [0.2, 0.02, 0.1, 0.02, 0.02, 0.95]),
            &ctx,
        );
        assert_eq!(d.step, "ask");
        // An unseen agent-written file always asks, even when low-risk and authorised.
        let ctx = LadderContext {
            category: None,
            executes_unseen_agent_file: true,
            content_cut: false,
        };
        let d = decide(
            &RiskSettings::default(),
            &answers(0.1, 0.9, [0.02, 0.02, 0.1, 0.02, 0.02, 0.99]),
            &ctx,
        );
        assert_eq!((d.effect, d.step), (Some(Effect::Ask), "ask"));
        // Never lifts a deny.
        let d = run(&answers(2.9, 0.9, [0.95, 0.02, 0.1, 0.02, 0.02, 1.0]));
        assert_eq!(d.effect, Some(Effect::Deny));
    }

    #[test]
    fn invalid_answers_and_observe() {
        let mut a = answers(0.1, 0.9, [0.02; 6]);
        a.0.remove("authorized");
        assert_eq!(run(&a).step, "error");
        assert_eq!(run(&a).effect, Some(Effect::Ask));
        let a = answers(0.1, 0.9, [0.02, 1.7, 0.0, 0.0, 0.0, 0.0]);
        assert!(run(&a).reason.contains("1.7"));
        assert_eq!(run(&a).step, "error");
        let mut a = answers(0.1, 0.9, [0.02; 6]);
        a.0.insert("risk".into(), Answer::Noul { noul: 0.1 });
        assert_eq!(run(&a).step, "error");
        let a = answers(3.5, 0.9, [0.02; 6]);
        assert_eq!(run(&a).step, "error");

        let mut s = RiskSettings {
            on_error_deny: true,
            ..Default::default()
        };
        assert_eq!(on_error(&s, "x").effect, Some(Effect::Deny));
        s.observe = true;
        let d = decide(&s, &answers(2.9, 0.9, [0.95; 6]), &LadderContext::default());
        assert_eq!(
            (d.effect, d.decided, d.step),
            (None, Some(Effect::Deny), "from-untrusted")
        );
        assert_eq!(on_error(&s, "x").effect, None);
    }

    #[test]
    fn a_cut_call_is_never_passed_or_allowed() {
        let s = RiskSettings {
            auto_allow: true,
            ..Default::default()
        };
        let ctx = LadderContext {
            content_cut: true,
            ..Default::default()
        };
        // Low risk, and an authorised ask: both become asks.
        for a in [
            answers(0.1, 0.9, [0.02, 0.02, 0.1, 0.02, 0.02, 0.0]),
            answers(1.8, 0.9, [0.2, 0.02, 0.1, 0.02, 0.02, 0.99]),
        ] {
            let d = decide(&s, &a, &ctx);
            assert_eq!((d.effect, d.step), (Some(Effect::Ask), "incomplete"));
        }
        // A deny stays a deny.
        let d = decide(&s, &answers(2.9, 0.9, [0.95; 6]), &ctx);
        assert_eq!(d.effect, Some(Effect::Deny));
    }

    #[test]
    fn thresholds_are_honoured() {
        let mut s = RiskSettings::default();
        s.thresholds.risk_deny = 1.0;
        let d = decide(
            &s,
            &answers(1.2, 0.9, [0.02, 0.02, 0.1, 0.02, 0.02, 0.0]),
            &LadderContext::default(),
        );
        assert_eq!(d.step, "deny");
    }
}
