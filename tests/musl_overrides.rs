//! crates/musl-string's and crates/musl-malloc's functions, which replace musl's in the musl
//! build, against the standard library's. The string functions: every length to 300 and every
//! overlap of a short move exhaustively, then long runs (the 32-byte loops and `rep movsb`/`rep
//! stosb` from 2 KiB) at random offsets. C's allocator: contents kept through every resize,
//! alignment, zeroing, and C's answers to sizes and alignments it cannot serve. Rust's (the
//! `Heap`): blocks aligned, apart and kept through resizes, with its region roomy, filling up,
//! or absent, and under threads that allocate at once.

use musl_malloc::{
    Heap, aligned_alloc, calloc, free, malloc, malloc_usable_size, memalign, posix_memalign,
    realloc,
};
use musl_string::{bcmp, memcmp, memcpy, memmove, memset};
use proptest::prelude::*;
use std::alloc::{GlobalAlloc, Layout};
use std::cmp::Ordering;
use std::ffi::c_void;

/// A buffer whose bytes differ from one another and from their neighbours' in most places.
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn copy_case(n: usize, at_src: usize, at_dst: usize) {
    let src = pattern(n + 64, 7);
    let mut dst = vec![0xAA; n + 64];
    let mut expected = dst.clone();
    expected[at_dst..at_dst + n].copy_from_slice(&src[at_src..at_src + n]);
    // SAFETY: both ranges within their buffers, which are distinct.
    let r = unsafe { memcpy(dst.as_mut_ptr().add(at_dst), src.as_ptr().add(at_src), n) };
    assert_eq!(r, dst.as_mut_ptr().wrapping_add(at_dst));
    assert!(dst == expected, "memcpy n={n} src+{at_src} dst+{at_dst}");
}

fn move_case(n: usize, from: usize, to: usize) {
    let len = n + from.max(to) + 8;
    let mut buf = pattern(len, 3);
    let mut expected = buf.clone();
    expected.copy_within(from..from + n, to);
    let p = buf.as_mut_ptr();
    // SAFETY: both ranges within the one buffer.
    let r = unsafe { memmove(p.add(to), p.add(from), n) };
    assert_eq!(r, p.wrapping_add(to));
    assert!(buf == expected, "memmove n={n} from {from} to {to}");
}

fn fill_case(n: usize, at: usize, c: i32) {
    let mut buf = pattern(n + 64, 5);
    let mut expected = buf.clone();
    expected[at..at + n].fill(c as u8);
    // SAFETY: the range within the buffer.
    unsafe { memset(buf.as_mut_ptr().add(at), c, n) };
    assert!(buf == expected, "memset n={n} at {at} c={c}");
}

fn compare_case(a: &[u8], b: &[u8]) {
    assert_eq!(a.len(), b.len());
    // SAFETY: both readable for their length.
    let (m, e) = unsafe {
        (
            memcmp(a.as_ptr(), b.as_ptr(), a.len()),
            bcmp(a.as_ptr(), b.as_ptr(), a.len()),
        )
    };
    assert_eq!(m.cmp(&0), a.cmp(b), "memcmp of {a:?} and {b:?}");
    assert_eq!(e == 0, a == b, "bcmp of {a:?} and {b:?}");
}

#[test]
fn copies_every_short_length_at_every_alignment() {
    for n in 0..=300 {
        for at_src in [0, 1, 3, 7, 8, 15, 16, 31, 33] {
            for at_dst in [0, 1, 5, 8, 17, 32] {
                copy_case(n, at_src, at_dst);
            }
        }
    }
}

#[test]
fn moves_every_overlap_of_short_and_loop_lengths() {
    // Every distance up to 70 bytes either way, for lengths on both sides of each path's
    // edge: the two-ended short move (to 64) and the 32-byte loops, forward and backward.
    for n in (0..=140).chain([191, 192, 193, 255, 256, 257, 300]) {
        for from in 0..=70 {
            for to in [0, 1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 70] {
                move_case(n, from, to);
                move_case(n, to, from);
            }
        }
    }
}

#[test]
fn fills_every_short_length() {
    for n in 0..=300 {
        for at in [0, 1, 7, 16, 33] {
            fill_case(n, at, 0);
            fill_case(n, at, 0xFF);
            // Only the low byte counts, as in C.
            fill_case(n, at, 0x1_2345);
        }
    }
}

#[test]
fn compares_with_the_first_difference_anywhere() {
    for n in 0..=80 {
        let a = pattern(n, 9);
        compare_case(&a, &a.clone());
        for at in 0..n {
            for delta in [1u8, 0x7F, 0x80, 0xFF] {
                let mut b = a.clone();
                b[at] = b[at].wrapping_add(delta);
                compare_case(&a, &b);
                compare_case(&b, &a);
                // A later difference never outweighs an earlier one.
                if at + 1 < n {
                    let mut c = b.clone();
                    c[n - 1] = c[n - 1].wrapping_sub(delta);
                    compare_case(&a, &c);
                }
            }
        }
    }
}

proptest! {
    #[test]
    fn long_copies_match(n in 0usize..6000, at_src in 0usize..64, at_dst in 0usize..64) {
        copy_case(n, at_src, at_dst);
    }

    #[test]
    fn long_moves_match(n in 0usize..6000, from in 0usize..3000, to in 0usize..3000) {
        move_case(n, from, to);
    }

    #[test]
    fn long_fills_match(n in 0usize..6000, at in 0usize..64, c in any::<i32>()) {
        fill_case(n, at, c);
    }

    #[test]
    fn long_compares_match(a in proptest::collection::vec(any::<u8>(), 0..3000),
                           at in any::<prop::sample::Index>(), delta in 1u8..=255) {
        compare_case(&a, &a.clone());
        if !a.is_empty() {
            let mut b = a.clone();
            let i = at.index(a.len());
            b[i] = b[i].wrapping_add(delta);
            compare_case(&a, &b);
            prop_assert_ne!(a.as_slice().cmp(&b), Ordering::Equal);
        }
    }
}

/// The calling thread's errno, set to 0 before a call that may set it.
fn errno() -> &'static mut i32 {
    // SAFETY: this thread's errno, valid for the thread's life.
    unsafe { &mut *libc::__errno_location() }
}

/// Fills a block with a pattern keyed to `seed`, so a resize that lost bytes shows.
fn fill(p: *mut c_void, n: usize, seed: u8) {
    // SAFETY: `p` is a live block of at least `n` bytes.
    unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), n) }.copy_from_slice(&pattern(n, seed));
}

fn holds(p: *mut c_void, n: usize, seed: u8) -> bool {
    // SAFETY: as `fill`.
    let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), n) };
    bytes == pattern(n, seed).as_slice()
}

#[test]
fn malloc_gives_aligned_blocks_of_their_size_and_realloc_keeps_contents() {
    for n in [0usize, 1, 7, 15, 16, 17, 100, 4095, 4096, 65_536, 300_000] {
        // SAFETY: every block is used within its size and freed once.
        unsafe {
            let p = malloc(n);
            assert!(!p.is_null());
            assert_eq!(p as usize % 16, 0, "malloc({n}) not aligned to 16");
            assert_eq!(malloc_usable_size(p), n);
            fill(p, n, 1);
            for m in [n / 2, n, n + 1, n * 3 + 40] {
                let r = malloc(n);
                fill(r, n, 3);
                let q = realloc(r, m);
                assert!(!q.is_null());
                assert_eq!(q as usize % 16, 0);
                assert_eq!(malloc_usable_size(q), m);
                assert!(holds(q, n.min(m), 3), "realloc({n} -> {m}) lost bytes");
                free(q);
            }
            assert!(
                holds(p, n, 1),
                "a block changed under other blocks' resizes"
            );
            free(p);
        }
    }
    // SAFETY: null is allowed in all three.
    unsafe {
        free(std::ptr::null_mut());
        assert_eq!(malloc_usable_size(std::ptr::null_mut()), 0);
        let p = realloc(std::ptr::null_mut(), 40);
        assert!(!p.is_null());
        free(p);
    }
}

#[test]
fn calloc_zeroes_and_refuses_an_overflowing_product() {
    // SAFETY: blocks read within their size, freed once.
    unsafe {
        for (count, size) in [(0, 0), (1, 1), (3, 17), (1000, 64), (1, 1 << 20)] {
            // Dirty the allocator's free blocks first, so zeroes are not luck.
            let d = malloc(count * size + 64);
            fill(d, count * size + 64, 9);
            free(d);
            let p = calloc(count, size);
            assert!(!p.is_null());
            let bytes = std::slice::from_raw_parts(p.cast::<u8>(), count * size);
            assert!(
                bytes.iter().all(|&b| b == 0),
                "calloc({count}, {size}) not zeroed"
            );
            free(p);
        }
        *errno() = 0;
        assert!(calloc(usize::MAX / 2, 3).is_null());
        assert_eq!(*errno(), libc::ENOMEM);
    }
}

#[test]
fn sizes_past_the_address_space_are_refused_with_enomem() {
    // SAFETY: the failed calls allocate nothing; the block given to realloc is freed.
    unsafe {
        for n in [usize::MAX, usize::MAX - 8, isize::MAX as usize] {
            *errno() = 0;
            assert!(malloc(n).is_null(), "malloc({n})");
            assert_eq!(*errno(), libc::ENOMEM);
            let p = malloc(32);
            fill(p, 32, 4);
            *errno() = 0;
            assert!(realloc(p, n).is_null(), "realloc to {n}");
            assert_eq!(*errno(), libc::ENOMEM);
            // The block is untouched, as C says.
            assert!(holds(p, 32, 4));
            free(p);
        }
    }
}

#[test]
fn aligned_blocks_honour_their_alignment_through_free_and_realloc() {
    for align in [8usize, 16, 32, 64, 4096, 1 << 16] {
        for n in [0usize, 1, 100, 5000] {
            // SAFETY: blocks used within their size, freed once.
            unsafe {
                let mut p = std::ptr::null_mut();
                assert_eq!(posix_memalign(&mut p, align, n), 0);
                assert_eq!(p as usize % align, 0, "posix_memalign({align}, {n})");
                assert_eq!(malloc_usable_size(p), n);
                fill(p, n, 2);
                let q = realloc(p, n + 10);
                assert!(holds(q, n, 2), "realloc of an aligned block lost bytes");
                free(q);
                let a = aligned_alloc(align, n);
                assert_eq!(a as usize % align, 0, "aligned_alloc({align}, {n})");
                free(a);
                let m = memalign(align, n);
                assert_eq!(m as usize % align, 0, "memalign({align}, {n})");
                free(m);
            }
        }
    }
    // SAFETY: refused calls allocate nothing.
    unsafe {
        let mut p = std::ptr::null_mut();
        assert_eq!(posix_memalign(&mut p, 24, 10), libc::EINVAL);
        assert_eq!(posix_memalign(&mut p, 4, 10), libc::EINVAL);
        *errno() = 0;
        assert!(aligned_alloc(48, 10).is_null());
        assert_eq!(*errno(), libc::EINVAL);
    }
}

proptest! {
    /// A run of allocations, resizes and frees in any order keeps every live block's bytes.
    #[test]
    fn interleaved_blocks_keep_their_contents(ops in proptest::collection::vec((0usize..3, 0usize..20_000, any::<u8>()), 1..60)) {
        let mut live: Vec<(*mut c_void, usize, u8)> = Vec::new();
        for (op, n, seed) in ops {
            // SAFETY: only live blocks are resized or freed, each once.
            unsafe {
                match op {
                    0 => {
                        let p = malloc(n);
                        fill(p, n, seed);
                        live.push((p, n, seed));
                    }
                    1 if !live.is_empty() => {
                        let (p, old, s) = live.remove(n % live.len());
                        let q = realloc(p, n);
                        prop_assert!(holds(q, old.min(n), s));
                        fill(q, n, seed);
                        live.push((q, n, seed));
                    }
                    _ if !live.is_empty() => {
                        let (p, old, s) = live.remove(n % live.len());
                        prop_assert!(holds(p, old, s));
                        free(p);
                    }
                    _ => {}
                }
            }
            for &(p, len, s) in &live {
                prop_assert!(holds(p, len, s));
            }
        }
        for (p, _, _) in live {
            // SAFETY: each live block freed once.
            unsafe { free(p) };
        }
    }
}

/// A live block of a `Heap`: where, its layout, and the seed of its bytes.
struct Block {
    at: *mut u8,
    layout: Layout,
    seed: u8,
}

/// Byte `i` of a block filled with `seed`.
fn byte_at(i: usize, seed: u8) -> u8 {
    (i as u8).wrapping_mul(31) ^ (i >> 8) as u8 ^ (i >> 16) as u8 ^ seed
}

fn fill_block(b: &Block) {
    // SAFETY: the block is live, `layout.size()` bytes long.
    let bytes = unsafe { std::slice::from_raw_parts_mut(b.at, b.layout.size()) };
    for (i, x) in bytes.iter_mut().enumerate() {
        *x = byte_at(i, b.seed);
    }
}

/// Whether the first `n` bytes of a block are as filled: every byte of the first and last
/// kilobyte, one in 61 between (a prime stride, so no pattern of the allocator's hides).
fn block_holds(b: &Block, n: usize) -> bool {
    // SAFETY: the block is live and at least `n` bytes long.
    let bytes = unsafe { std::slice::from_raw_parts(b.at, n) };
    let ends = (0..n.min(1024)).chain(n.saturating_sub(1024)..n);
    ends.chain((0..n).step_by(61))
        .all(|i| bytes[i] == byte_at(i, b.seed))
}

/// Allocates, grows, shrinks and frees blocks from 1 byte to 3 MiB (past the megabyte the
/// region is committed in) at alignments from 1 to 64 KiB, checking each block's alignment,
/// that no two live blocks overlap, and that every live block keeps its bytes.
fn exercise(heap: &Heap, rounds: usize, seed: u64) {
    let mut rng = seed | 1;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut live: Vec<Block> = Vec::new();
    for round in 0..rounds {
        let r = next();
        let size = match r % 10 {
            0 if r % 100 < 3 => 1 + (r >> 8) as usize % (3 << 20),
            0..=3 => 1 + (r >> 8) as usize % 70_000,
            _ => 1 + (r >> 8) as usize % 600,
        };
        let align = 1usize << ((r >> 40) % 17);
        match (r >> 50) % 4 {
            0 | 1 => {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: the layout's size is not zero.
                let at = unsafe { heap.alloc(layout) };
                assert!(!at.is_null(), "round {round}: {layout:?} refused");
                assert_eq!(
                    at as usize % align,
                    0,
                    "round {round}: {layout:?} misaligned"
                );
                let b = Block {
                    at,
                    layout,
                    seed: round as u8,
                };
                fill_block(&b);
                live.push(b);
            }
            2 if !live.is_empty() => {
                let i = size % live.len();
                let old = live.swap_remove(i);
                assert!(block_holds(&old, old.layout.size()), "round {round}");
                // SAFETY: the block is live, allocated with this layout; the new size is not zero.
                let at = unsafe { heap.realloc(old.at, old.layout, size) };
                assert!(!at.is_null(), "round {round}: resize to {size} refused");
                let b = Block {
                    at,
                    layout: Layout::from_size_align(size, old.layout.align()).unwrap(),
                    seed: old.seed,
                };
                assert!(
                    block_holds(&b, old.layout.size().min(size)),
                    "round {round}"
                );
                let b = Block {
                    seed: round as u8,
                    ..b
                };
                fill_block(&b);
                live.push(b);
            }
            _ if !live.is_empty() => {
                let b = live.swap_remove(size % live.len());
                assert!(block_holds(&b, b.layout.size()), "round {round}");
                // SAFETY: the block is live, allocated with this layout, freed once.
                unsafe { heap.dealloc(b.at, b.layout) };
            }
            _ => {}
        }
        if round % 64 == 0 {
            let mut spans: Vec<(usize, usize)> = live
                .iter()
                .map(|b| (b.at as usize, b.at as usize + b.layout.size()))
                .collect();
            spans.sort_unstable();
            assert!(
                spans.windows(2).all(|w| w[0].1 <= w[1].0),
                "round {round}: blocks overlap"
            );
            assert!(
                live.iter().all(|b| block_holds(b, b.layout.size())),
                "round {round}"
            );
        }
    }
    for b in live {
        assert!(block_holds(&b, b.layout.size()));
        // SAFETY: each live block freed once.
        unsafe { heap.dealloc(b.at, b.layout) };
    }
}

#[test]
fn the_heap_serves_from_its_region() {
    exercise(&Heap::new(), 3000, 7);
}

#[test]
fn the_heap_maps_pools_of_its_own_once_its_region_is_full() {
    // 16 MiB of region against tens of megabytes live at the peak.
    exercise(&Heap::reserving(16 << 20), 3000, 11);
}

#[test]
fn the_heap_works_without_a_region() {
    exercise(&Heap::reserving(0), 1500, 13);
}

#[test]
fn threads_allocating_at_once_keep_their_blocks() {
    static SHARED: Heap = Heap::reserving(64 << 20);
    std::thread::scope(|s| {
        for t in 0..4u64 {
            s.spawn(move || exercise(&SHARED, 1500, 100 + t));
        }
    });
}

/// The `VmFlags` of the mapping of this process that holds `at`, from `/proc/self/smaps`.
fn vm_flags_at(at: usize) -> Option<String> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let mut inside = false;
    for line in smaps.lines() {
        let range = line.split(' ').next().unwrap_or("");
        if let Some((lo, hi)) = range.split_once('-')
            && let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
        {
            inside = (lo..hi).contains(&at);
        } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
            return Some(flags.trim().to_string());
        }
    }
    None
}

#[test]
fn a_large_heap_asks_for_huge_pages_past_its_first_megabytes() {
    if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists() {
        eprintln!("this kernel has no transparent huge pages: nothing to check");
        return;
    }
    let heap = Heap::reserving(64 << 20);
    let small = Layout::from_size_align(64, 8).unwrap();
    let large = Layout::from_size_align(12 << 20, 8).unwrap();
    // SAFETY: both layouts have a size; each block is freed once, with its layout.
    unsafe {
        let first = heap.alloc(small);
        let big = heap.alloc(large);
        assert!(!first.is_null() && !big.is_null());
        // The first block is at the region's start, the large one's end past 4 MB of it.
        let start = vm_flags_at(first as usize).expect("the region is mapped");
        let end = vm_flags_at(big as usize + large.size() - 1).expect("the block is mapped");
        assert!(!start.split(' ').any(|f| f == "hg"), "start: {start}");
        assert!(end.split(' ').any(|f| f == "hg"), "past 4 MB: {end}");
        big.write_bytes(7, large.size());
        assert_eq!(*big.add(large.size() - 1), 7);
        heap.dealloc(big, large);
        heap.dealloc(first, small);
    }
}

#[test]
fn the_owner_threads_freed_blocks_are_its_own_and_other_threads_share_theirs() {
    let heap = Heap::reserving(16 << 20);
    let small = Layout::from_size_align(40, 8).unwrap();
    // SAFETY: the layout has a size; each block is freed once, with its layout.
    unsafe {
        // This thread allocates first: the owner.
        let a = heap.alloc(small);
        heap.dealloc(a, small);
        assert_eq!(heap.kept(), 1);
        let (b, c) = std::thread::scope(|s| {
            s.spawn(|| {
                // Another thread does not take the owner's block, and shares its own.
                let b = heap.alloc(small) as usize;
                let c = heap.alloc(small) as usize;
                heap.dealloc(b as *mut u8, small);
                heap.dealloc(c as *mut u8, small);
                assert_eq!(
                    heap.kept(),
                    2,
                    "the shared lists hold the other thread's two"
                );
                (b, c)
            })
            .join()
            .unwrap()
        });
        assert!(b != a as usize && c != a as usize && b != c);
        assert_eq!(heap.kept(), 3);
        // The owner takes its own block first, then the shared ones.
        assert_eq!(heap.alloc(small), a);
        let next = [heap.alloc(small) as usize, heap.alloc(small) as usize];
        assert!(next.contains(&b) && next.contains(&c), "{next:?}");
        assert_eq!(heap.kept(), 0);
        for p in [a as usize, b, c] {
            heap.dealloc(p as *mut u8, small);
        }
    }
}

#[test]
fn small_blocks_freed_are_kept_for_their_class_and_others_go_back() {
    let heap = Heap::reserving(16 << 20);
    let at = |size: usize, align: usize| Layout::from_size_align(size, align).unwrap();
    // SAFETY: every layout has a size; each block is freed once, with the layout it has.
    unsafe {
        let a = heap.alloc(at(40, 8));
        assert_eq!(heap.kept(), 0);
        heap.dealloc(a, at(40, 8));
        assert_eq!(heap.kept(), 1);
        // 33 to 48 bytes are one class: the block comes back, and holds 48 bytes.
        let b = heap.alloc(at(33, 8));
        assert_eq!((b, heap.kept()), (a, 0));
        let b = heap.realloc(b, at(33, 8), 48);
        assert_eq!(b, a, "a resize within the class stays in place");
        b.write_bytes(9, 48);
        // Another class, an alignment over 16 and a large block are not served from it.
        heap.dealloc(b, at(48, 8));
        let c = heap.alloc(at(49, 8));
        let d = heap.alloc(at(40, 64));
        assert!(c != a && d != a && (d as usize).is_multiple_of(64));
        assert_eq!(heap.kept(), 1);
        heap.dealloc(d, at(40, 64));
        let e = heap.alloc(at(4096, 8));
        heap.dealloc(e, at(4096, 8));
        assert_eq!(
            heap.kept(),
            1,
            "only small blocks aligned to at most 16 are kept"
        );
        heap.dealloc(c, at(49, 8));
        assert_eq!(heap.kept(), 2);
        // Growing out of the class moves the block's bytes to a larger one.
        let f = heap.alloc(at(20, 8));
        f.write_bytes(5, 20);
        let g = heap.realloc(f, at(20, 8), 5000);
        assert_eq!(std::slice::from_raw_parts(g, 20), &[5; 20]);
        heap.dealloc(g, at(5000, 8));
    }
}
