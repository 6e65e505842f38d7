//! The audit verifier on an arbitrary log file: a summary or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    std::fs::write(&log, data).unwrap();
    let _ = palisade::audit::verify::verify(&log);
    let _ = palisade::audit::verify::receipt(&log);
});
