//! Links the `palisade` binary as a position-dependent executable on Linux with glibc.
//!
//! A hook process lives for one call, and the dynamic loader's work is a large part of it:
//! measured with callgrind on `palisade --version`, relocating the position-independent
//! binary (about 19,000 relative relocations, and the pages they write) was 245,000 of its
//! 924,000 instructions, and a `git status` hook call took 90 fewer page faults (369 → 279)
//! without it (docs/PERFORMANCE.md). The cost is address-space randomisation of the binary's
//! own image (libraries, heap and stack stay randomised); full RELRO stays. The statically
//! linked build of `scripts/build.sh` goes further: no shared library and no loader at all.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    // Sanitizer builds (cargo-fuzz) need their own layout: leave them as they are.
    let sanitized = std::env::var("CARGO_ENCODED_RUSTFLAGS").is_ok_and(|f| f.contains("sanitizer"));
    // A statically linked build (`scripts/build.sh`: `+crt-static` with
    // `-C relocation-model=static`) has no loader and is position-dependent already;
    // `-no-pie` on top of it makes a binary that asks for a loader and has no dynamic section.
    let static_crt = std::env::var("CARGO_CFG_TARGET_FEATURE")
        .is_ok_and(|f| f.split(',').any(|f| f == "crt-static"));
    if linux_gnu && !sanitized && !static_crt {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
