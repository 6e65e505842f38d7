//! The policy's read-only settings (`mode: read-only`, `read_only_effect:`): whether the
//! session is read-only and what a change gets. What a change is: `crate::readonly`.

use crate::verdict::Effect;

/// The policy's read-only settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOnly {
    /// `mode: read-only`: every tool is read-only.
    pub on: bool,
    /// What a change gets: ask (the default) or deny. Also the effect of the tools a
    /// `read_only: true` rule names when that rule says no stricter effect.
    pub effect: Effect,
}

impl Default for ReadOnly {
    fn default() -> Self {
        ReadOnly {
            on: false,
            effect: Effect::Ask,
        }
    }
}
