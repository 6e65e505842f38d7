//! The musl build's allocators: Rust's global allocator ([`Heap`], in `heap`), and `malloc`,
//! `calloc`, `realloc`, `free` and their kin on it.
//!
//! SQLite, the one C library of note in palisade, allocates through these. musl's allocator
//! maps and unmaps small groups of pages as they fill and empty: a Write call made 42 `mmap`s
//! and 37 `munmap`s, each with the page faults that follow it (docs/PERFORMANCE.md, "A musl
//! build"). On Rust's allocator (TLSF in the musl build, over pages mapped once and kept)
//! SQLite's blocks come from the same pages as palisade's own.
//!
//! Each block carries two words just below the pointer handed out: the size asked for, and how
//! far below the pointer the underlying allocation starts (16 bytes, or the alignment when that
//! is larger). `free` and `realloc` rebuild the allocation's layout from them. There are no
//! fork handlers: palisade's children run `exec` straight after `fork`, with no allocation.
//!
//! As with `musl-string`, they replace musl's only in the musl build on x86_64 (the linker
//! takes palisade's definitions and leaves libc.a's out); elsewhere they are ordinary
//! functions, tested in `tests/musl_overrides.rs`.
#![no_std]

extern crate alloc;

mod heap;
pub use heap::Heap;

use alloc::alloc::{Layout, alloc, alloc_zeroed, dealloc, realloc as resize};
use core::ffi::{c_int, c_void};
use core::ptr::null_mut;

/// The space below each pointer: its two words, and the alignment every block gets.
const HEADER: usize = 16;

/// Allocates `n` bytes aligned to `align` (a power of two), zeroed or not; null with `errno`
/// ENOMEM when the allocator has none.
unsafe fn allocate(n: usize, align: usize, zeroed: bool) -> *mut c_void {
    let below = align.max(HEADER);
    let Some(layout) = layout_for(n, below) else {
        return out_of_memory();
    };
    // SAFETY: the layout's size is at least HEADER, never zero; the header's two words lie in
    // the `below` bytes before the pointer, within the allocation and aligned to 8.
    unsafe {
        let base = if zeroed {
            alloc_zeroed(layout)
        } else {
            alloc(layout)
        };
        if base.is_null() {
            return out_of_memory();
        }
        let p = base.add(below);
        write_header(p, n, below);
        p.cast()
    }
}

/// The layout of a block of `n` bytes allocated `below` its pointer (a power of two, at least
/// HEADER); `None` past the address space.
fn layout_for(n: usize, below: usize) -> Option<Layout> {
    n.checked_add(below)
        .and_then(|total| Layout::from_size_align(total, below).ok())
}

/// Writes a block's header: its size and the offset of its allocation below `p`.
///
/// # Safety
/// The two words below `p` lie within the block's allocation.
unsafe fn write_header(p: *mut u8, n: usize, below: usize) {
    // SAFETY: the caller's; `p` is aligned to at least 16, so both words are aligned.
    unsafe {
        p.cast::<usize>().sub(2).write(n);
        p.cast::<usize>().sub(1).write(below);
    }
}

/// The size asked for and the offset of the allocation below `p`, from its header.
///
/// # Safety
/// `p` came from one of this module's allocating functions and was not freed.
unsafe fn header(p: *mut c_void) -> (usize, usize) {
    // SAFETY: the caller's; `allocate` wrote both words.
    unsafe {
        let words = p.cast::<usize>();
        (words.sub(2).read(), words.sub(1).read())
    }
}

/// The layout `allocate` gave a block of `n` bytes allocated `below` its pointer.
fn layout_of(n: usize, below: usize) -> Layout {
    // SAFETY: `allocate` made this very layout, so it is valid.
    unsafe { Layout::from_size_align_unchecked(n + below, below) }
}

fn out_of_memory() -> *mut c_void {
    set_errno(libc::ENOMEM);
    null_mut()
}

fn set_errno(code: c_int) {
    // SAFETY: the calling thread's errno, always valid.
    unsafe { *libc::__errno_location() = code };
}

/// C's `malloc`: `n` bytes aligned to 16.
///
/// # Safety
/// As C's: the block is freed once, with `free` or `realloc` from this module.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), unsafe(no_mangle))]
pub unsafe extern "C" fn malloc(n: usize) -> *mut c_void {
    // SAFETY: 16 is a power of two.
    unsafe { allocate(n, HEADER, false) }
}

/// C's `calloc`: `count` elements of `size` bytes, zeroed; null with ENOMEM on overflow.
///
/// # Safety
/// As `malloc`.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), unsafe(no_mangle))]
pub unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
    match count.checked_mul(size) {
        // SAFETY: 16 is a power of two.
        Some(n) => unsafe { allocate(n, HEADER, true) },
        None => out_of_memory(),
    }
}

/// C's `free`: null is nothing to do.
///
/// # Safety
/// `p` is null or a live block from this module.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), unsafe(no_mangle))]
pub unsafe extern "C" fn free(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    // SAFETY: the caller's; the header gives back the allocation and its layout.
    unsafe {
        let (n, below) = header(p);
        dealloc(p.cast::<u8>().sub(below), layout_of(n, below));
    }
}

/// C's `realloc`: the block resized to `n` bytes, its contents kept up to the smaller size;
/// null with ENOMEM, the block untouched, when there is no room.
///
/// # Safety
/// As `free`.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), unsafe(no_mangle))]
pub unsafe extern "C" fn realloc(p: *mut c_void, n: usize) -> *mut c_void {
    // SAFETY: the caller's; every pointer below is the block's or a new one's.
    unsafe {
        if p.is_null() {
            return malloc(n);
        }
        let (old, below) = header(p);
        if below != HEADER {
            // A block aligned beyond 16 (`posix_memalign`): C's `realloc` keeps only the
            // ordinary alignment, so a fresh block does.
            let q = malloc(n);
            if !q.is_null() {
                core::ptr::copy_nonoverlapping(p.cast::<u8>(), q.cast::<u8>(), old.min(n));
                free(p);
            }
            return q;
        }
        let Some(layout) = layout_for(n, HEADER) else {
            return out_of_memory();
        };
        let base = resize(
            p.cast::<u8>().sub(HEADER),
            layout_of(old, HEADER),
            layout.size(),
        );
        if base.is_null() {
            return out_of_memory();
        }
        let q = base.add(HEADER);
        write_header(q, n, HEADER);
        q.cast()
    }
}

/// C's `posix_memalign`: `n` bytes aligned to `align` in `*out`; EINVAL unless `align` is a
/// power of two and a multiple of a pointer's size, ENOMEM when there is no room.
///
/// # Safety
/// `out` is writable; the block as `malloc`'s.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), unsafe(no_mangle))]
pub unsafe extern "C" fn posix_memalign(out: *mut *mut c_void, align: usize, n: usize) -> c_int {
    if !align.is_power_of_two() || !align.is_multiple_of(core::mem::size_of::<usize>()) {
        return libc::EINVAL;
    }
    // SAFETY: a power of two; `out` the caller's.
    unsafe {
        let p = allocate(n, align, false);
        if p.is_null() {
            return libc::ENOMEM;
        }
        *out = p;
    }
    0
}

/// C's `aligned_alloc`: `n` bytes aligned to `align`; null with EINVAL unless `align` is a
/// power of two.
///
/// # Safety
/// As `malloc`.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), unsafe(no_mangle))]
pub unsafe extern "C" fn aligned_alloc(align: usize, n: usize) -> *mut c_void {
    if !align.is_power_of_two() {
        set_errno(libc::EINVAL);
        return null_mut();
    }
    // SAFETY: a power of two.
    unsafe { allocate(n, align, false) }
}

/// The obsolete `memalign`, as `aligned_alloc`.
///
/// # Safety
/// As `malloc`.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), unsafe(no_mangle))]
pub unsafe extern "C" fn memalign(align: usize, n: usize) -> *mut c_void {
    // SAFETY: the caller's.
    unsafe { aligned_alloc(align, n) }
}

/// The size a live block was allocated with; 0 for null.
///
/// # Safety
/// As `free`.
#[cfg_attr(all(target_env = "musl", target_arch = "x86_64"), unsafe(no_mangle))]
pub unsafe extern "C" fn malloc_usable_size(p: *mut c_void) -> usize {
    if p.is_null() {
        return 0;
    }
    // SAFETY: the caller's.
    unsafe { header(p).0 }
}
