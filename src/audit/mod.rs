//! The hash-chained audit log: one JSON line per decision, `prev` linking to the previous
//! entry's `hash`, secrets redacted before hashing, appended under an exclusive file lock.

pub mod settings;

pub use settings::{AuditConfig, AuditSettings};
