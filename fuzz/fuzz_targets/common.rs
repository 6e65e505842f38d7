// Shared by the targets: a fixed scope and the whole static pipeline of one event.
use palisade::event::HookEvent;
use palisade::locations::Locations;
use palisade::policy::Policy;
use std::path::Path;
use std::sync::{LazyLock, Once};

pub static POLICY: LazyLock<Policy> = LazyLock::new(Policy::default);

/// Lets a panic that palisade catches stay caught. libfuzzer-sys aborts in its panic hook, before
/// any unwinding, so a brush-parser panic that `shell::words::guarded` turns into "cannot be
/// parsed" (fail closed) would count as a crash. With the default hook back, a panic that
/// escapes palisade still aborts: libfuzzer-sys runs each input under `catch_unwind` and
/// aborts when it unwinds out.
pub fn caught_panics_are_not_crashes() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = std::panic::take_hook();
    });
}

/// Normalizes an event and runs the static rules over it, as the hook does; must not panic.
pub fn judge(event: &HookEvent) {
    caught_panics_are_not_crashes();
    let loc = Locations::from_vars(|k| (k == "HOME").then(|| "/home/dev".into()));
    let dir = Path::new("/home/dev/project");
    let scope = palisade::hook::scope_for(&POLICY, &loc, dir, dir, false);
    let call = palisade::normalize::normalize(event, &scope);
    let _ = palisade::evaluate::evaluate(&POLICY, &call, &scope);
}
