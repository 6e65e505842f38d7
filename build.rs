//! Links the `palisade` binary as a position-dependent executable on Linux.
//!
//! A hook process lives for one call, and its start-up was mostly the dynamic loader: as a PIE
//! the binary carried ~18,700 relative relocations (448 KiB of `.rela.dyn`), applied on every
//! start by writing into 330 KiB of `.data.rel.ro`, one copied page each. Linked at a fixed
//! address those are resolved at link time. The cost is ASLR of the executable's own image
//! (libraries, heap and stack stay randomised); the numbers are in docs/PERFORMANCE.md.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
