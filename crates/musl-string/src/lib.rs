//! `memcpy`, `memmove`, `memset`, `memcmp` and `bcmp` for palisade's musl build.
//!
//! Rust moves every value of more than a few words with `memcpy`, so a hook call makes tens of
//! thousands of small copies. musl's x86_64 `memcpy` starts a `rep movsq` for each and copies
//! its tail a byte at a time, and its `memcmp` compares a byte at a time: in a 100 KB
//! here-doc's call the copies alone took 7% of the time, against 2% for glibc's
//! (docs/PERFORMANCE.md, "A musl build"). These move up to 64 bytes with two overlapping loads
//! and stores, longer runs 32 bytes a step (with `rep movsb` from 2 KiB, which the CPU runs in
//! microcode at cache-line width), and compare 8 bytes a step.
//!
//! They replace musl's only in the musl build on x86_64: defined there under the C names, the
//! linker takes them from palisade and leaves libc.a's out. Elsewhere they are ordinary
//! functions, which `tests/musl_overrides.rs` checks against the standard library's.
//!
//! `no_builtins`: the compiler must not turn these loops back into calls to `memcpy` or
//! `memset`, which here would be calls to themselves. (It also keeps the crate out of
//! link-time optimisation, so it can call nothing that LTO hides, such as Rust's allocator:
//! the C allocator is the `musl-malloc` crate's.)
#![no_std]
#![no_builtins]

use core::ptr::{read_unaligned as load, write_unaligned as store};

/// What a loop moves in one step.
type Chunk = [u64; 4];
const CHUNK: usize = core::mem::size_of::<Chunk>();

/// From this length a copy or fill is one `rep movsb` or `rep stosb` (glibc's threshold too).
#[cfg(target_arch = "x86_64")]
const REP_FROM: usize = 2048;

/// Copies `n` bytes from `src` to `dst`; returns `dst`.
///
/// # Safety
/// As C's `memcpy`: `src` readable and `dst` writable for `n` bytes. Overlapping ranges are
/// moved as by `memmove`.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), unsafe(no_mangle))]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's.
    unsafe { move_bytes(dst, src, n) };
    dst
}

/// Copies `n` bytes from `src` to `dst`, which may overlap; returns `dst`.
///
/// # Safety
/// As C's `memmove`: `src` readable and `dst` writable for `n` bytes.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), unsafe(no_mangle))]
pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's.
    unsafe { move_bytes(dst, src, n) };
    dst
}

/// Sets `n` bytes at `dst` to `c` as a byte; returns `dst`.
///
/// # Safety
/// As C's `memset`: `dst` writable for `n` bytes.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), unsafe(no_mangle))]
pub unsafe extern "C" fn memset(dst: *mut u8, c: i32, n: usize) -> *mut u8 {
    let b = c as u8;
    let w = u64::from_ne_bytes([b; 8]);
    // SAFETY: every store is within `dst..dst + n`.
    unsafe {
        if n >= CHUNK {
            #[cfg(target_arch = "x86_64")]
            if n >= REP_FROM {
                // The direction flag is clear on entry to any function (the ABI's rule).
                core::arch::asm!("rep stosb", inout("rcx") n => _, inout("rdi") dst => _,
                    in("al") b, options(nostack, preserves_flags));
                return dst;
            }
            let chunk: Chunk = [w; 4];
            let mut i = 0;
            while i < n - CHUNK {
                store(dst.add(i).cast::<Chunk>(), chunk);
                i += CHUNK;
            }
            store(dst.add(n - CHUNK).cast::<Chunk>(), chunk);
        } else if n >= 16 {
            fill_ends(dst, n, u128::from_ne_bytes([b; 16]));
        } else if n >= 8 {
            fill_ends(dst, n, w);
        } else if n >= 4 {
            fill_ends(dst, n, w as u32);
        } else if n >= 2 {
            fill_ends(dst, n, w as u16);
        } else if n == 1 {
            *dst = b;
        }
    }
    dst
}

/// Fills `n` bytes with two words `v`, one at each end (overlapping in the middle when `n` is
/// under two words).
///
/// # Safety
/// `size_of::<T>() <= n`; `dst` writable for `n` bytes.
#[inline(always)]
unsafe fn fill_ends<T: Copy>(dst: *mut u8, n: usize, v: T) {
    // SAFETY: the caller's.
    unsafe {
        store(dst.cast::<T>(), v);
        store(dst.add(n - core::mem::size_of::<T>()).cast::<T>(), v);
    }
}

/// Compares `n` bytes at `a` and `b` as unsigned bytes: negative, zero or positive as `a`'s
/// are below, equal to or above `b`'s.
///
/// # Safety
/// As C's `memcmp`: both readable for `n` bytes.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), unsafe(no_mangle))]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: every load is within the first `n` bytes of each.
    unsafe {
        let mut i = 0;
        while i + 8 <= n {
            // Read big-endian, the first byte is the most significant: the words order as the
            // bytes do.
            let (x, y) = (word(a, i), word(b, i));
            if x != y {
                return x.cmp(&y) as i32;
            }
            i += 8;
        }
        if i < n && n >= 8 {
            // The last 8 bytes, overlapping some found equal: the first difference in them
            // is the first of all.
            return word(a, n - 8).cmp(&word(b, n - 8)) as i32;
        }
        while i < n {
            let (x, y) = (*a.add(i), *b.add(i));
            if x != y {
                return i32::from(x) - i32::from(y);
            }
            i += 1;
        }
        0
    }
}

/// Zero when the `n` bytes at `a` and `b` are equal, else not zero.
///
/// # Safety
/// As `memcmp`.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), unsafe(no_mangle))]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller's.
    unsafe { memcmp(a, b, n) }
}

/// The 8 bytes at `p + i`, the first the most significant.
#[inline(always)]
unsafe fn word(p: *const u8, i: usize) -> u64 {
    // SAFETY: the caller's.
    u64::from_be(unsafe { load(p.add(i).cast::<u64>()) })
}

/// Moves `n` bytes from `src` to `dst`, whether or not they overlap.
#[inline(always)]
unsafe fn move_bytes(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's.
    unsafe {
        if n <= 2 * CHUNK {
            move_short(dst, src, n);
        } else if (dst as usize).wrapping_sub(src as usize) >= n {
            // `dst` below `src`, or the ranges apart: each step reads bytes no earlier step
            // wrote.
            forward(dst, src, n);
        } else {
            backward(dst, src, n);
        }
    }
}

/// Moves up to 64 bytes: every load before any store, so overlapping ranges move right.
#[inline(always)]
unsafe fn move_short(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: each branch's width is at most `n`, so both ends lie within `0..n`.
    unsafe {
        if n >= CHUNK {
            both_ends::<Chunk>(dst, src, n);
        } else if n >= 16 {
            both_ends::<u128>(dst, src, n);
        } else if n >= 8 {
            both_ends::<u64>(dst, src, n);
        } else if n >= 4 {
            both_ends::<u32>(dst, src, n);
        } else if n >= 2 {
            both_ends::<u16>(dst, src, n);
        } else if n == 1 {
            *dst = *src;
        }
    }
}

/// Moves `n` bytes as two words of `T`, one at each end (overlapping in the middle when `n` is
/// under two words), both loaded before either is stored.
///
/// # Safety
/// `size_of::<T>() <= n`; the ranges as `memmove`'s.
#[inline(always)]
unsafe fn both_ends<T>(dst: *mut u8, src: *const u8, n: usize) {
    let w = core::mem::size_of::<T>();
    // SAFETY: the caller's.
    unsafe {
        let (x, y) = (load(src.cast::<T>()), load(src.add(n - w).cast::<T>()));
        store(dst.cast::<T>(), x);
        store(dst.add(n - w).cast::<T>(), y);
    }
}

/// Moves more than 64 bytes front to back; right when `dst` is below `src` or apart from it.
#[inline(always)]
unsafe fn forward(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: every access is within `0..n` of both; the caller's order makes each load read
    // bytes not yet overwritten.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        if n >= REP_FROM {
            // `rep movsb` moves as a byte loop would, front to back (the direction flag is
            // clear on entry, the ABI's rule).
            core::arch::asm!("rep movsb", inout("rcx") n => _, inout("rdi") dst => _,
                inout("rsi") src => _, options(nostack, preserves_flags));
            return;
        }
        // The last chunk is read first, before any store can reach it.
        let last = load(src.add(n - CHUNK).cast::<Chunk>());
        let mut i = 0;
        while i < n - CHUNK {
            store(dst.add(i).cast::<Chunk>(), load(src.add(i).cast::<Chunk>()));
            i += CHUNK;
        }
        store(dst.add(n - CHUNK).cast::<Chunk>(), last);
    }
}

/// Moves more than 64 bytes back to front; right when `dst` is above `src`.
#[inline(always)]
unsafe fn backward(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: as `forward`, mirrored.
    unsafe {
        let first = load(src.cast::<Chunk>());
        let mut end = n;
        while end > CHUNK {
            end -= CHUNK;
            store(
                dst.add(end).cast::<Chunk>(),
                load(src.add(end).cast::<Chunk>()),
            );
        }
        store(dst.cast::<Chunk>(), first);
    }
}
