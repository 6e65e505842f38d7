// Shared by the targets: a fixed scope and the whole static pipeline of one event.
use palisade::event::HookEvent;
use palisade::locations::Locations;
use palisade::policy::Policy;
use std::path::Path;
use std::sync::LazyLock;

pub static POLICY: LazyLock<Policy> = LazyLock::new(Policy::default);

/// Normalizes an event and runs the static rules over it, as the hook does; must not panic.
pub fn judge(event: &HookEvent) {
    let loc = Locations::from_vars(|k| (k == "HOME").then(|| "/home/dev".into()));
    let dir = Path::new("/home/dev/project");
    let scope = palisade::hook::scope_for(&POLICY, &loc, dir, dir, false);
    let call = palisade::normalize::normalize(event, &scope);
    let _ = palisade::evaluate::evaluate(&POLICY, &call, &scope);
}
