//! The hash-chained audit log: one JSON line per decision, `prev` linking to the previous
//! entry's `hash`, secrets redacted before hashing, appended under an exclusive file lock.
//! The format and its canonicalisation are specified in `docs/AUDIT.md`.

pub mod append;
pub mod canonical;
pub mod entry;
pub mod report;
pub mod stats;
pub mod tail;
pub mod usage;
pub mod verify;

pub use append::{AppendReceipt, AuditError, append};
pub use entry::{AuditDecision, AuditEntry, GENESIS, NewEntry};
pub use verify::{
    Anchor, BreakKind, VerifyError, VerifySummary, anchor, receipt, verify, verify_against,
};

use std::sync::LazyLock;
use std::time::Instant;

/// When this process started (first touched by `main`): `latency_us` is measured from here.
pub static PROCESS_START: LazyLock<Instant> = LazyLock::new(Instant::now);

/// Microseconds since [`PROCESS_START`].
pub fn elapsed_us() -> u64 {
    PROCESS_START.elapsed().as_micros() as u64
}
