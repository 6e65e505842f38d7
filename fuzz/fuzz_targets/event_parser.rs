//! The hook's input: arbitrary bytes as a hook event, then the static pipeline over it.
#![no_main]
use libfuzzer_sys::fuzz_target;
mod common;

fuzz_target!(|data: &[u8]| {
    if let Ok(event) = serde_json::from_slice::<palisade::event::HookEvent>(data) {
        common::judge(&event);
    }
});
