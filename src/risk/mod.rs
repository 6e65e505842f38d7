//! The optional decision-model risk backend: seven typed questions in one request, answers
//! mapped to a verdict through a threshold ladder, with `authorized` as a mitigator only.

pub mod settings;

pub use settings::{RiskConfig, RiskSettings};
