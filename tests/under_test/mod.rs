//! Which `palisade` binary the spawning tests run.

use std::path::PathBuf;

/// `PALISADE_TEST_BIN` when set, else cargo's build of this crate. `.ci/run` sets it to the
/// installed build (`scripts/build.sh`: statically linked, with musl and its allocator when
/// it can be), so the tests that spawn hook processes, the 500 at once among them, also prove
/// the binary users run, not only the debug one.
pub fn palisade_bin() -> PathBuf {
    std::env::var_os("PALISADE_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_palisade")))
}
