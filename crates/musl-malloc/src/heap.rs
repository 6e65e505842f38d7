//! Rust's global allocator in the musl build: TLSF (`rlsf`) over one region of address space
//! reserved at the first allocation, committed as the heap grows, behind a spin lock.
//!
//! `rlsf`'s own global allocator maps a new 64 KB pool for each growth: three system calls a
//! time (a `MAP_FIXED_NOREPLACE` mapping next to the last pool, which fails when a thread
//! stack or another pool is there, an `munmap` of the failed address, then a fresh mapping),
//! about a dozen times in a here-doc call. Its lock is a `pthread_mutex`, and the call's
//! threads (the redaction of a long input, the store opened ahead) meet on it: each meeting
//! is a `futex` sleep and wake-up, for a critical section of a few dozen nanoseconds. Here the
//! pool is one region, grown by an `mprotect` of the next megabyte, and a thread that finds
//! the lock taken spins on it, yielding the CPU only after a while. Past its first
//! [`HUGE_FROM`] bytes the region asks for huge pages, and is committed to a huge page's
//! boundary, so a call with a large heap (a 20,000-stage pipeline) takes a fault per 2 MB, not
//! per 4 KB. The thread that allocates first (the hook's main thread) keeps its own freed
//! small blocks, and takes them back, without the lock.

use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::ptr::{NonNull, null_mut};
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use rlsf::{FlexSource, FlexTlsf};

/// Address space asked for at the first allocation: reserved, not memory (`PROT_NONE`, no
/// commit charge); halved until the system grants it (an address-space limit), down to
/// [`SMALLEST_RESERVE`].
const RESERVE: usize = 1 << 36;
/// The least reservation asked for; below it, pools are mapped on their own from the start.
const SMALLEST_RESERVE: usize = 1 << 24;
/// The region is committed (made writable) a megabyte at a time: one `mprotect` each.
const COMMIT_STEP: usize = 1 << 20;
/// The region past this many bytes is backed by huge pages where the kernel has them. A
/// 20,000-stage pipeline touches 45 MB: 11,000 faults, 27 of its 172 ms CPU on these VMs. A
/// huge page is 2 MB zeroed at once, too much for a short call, whose heap stays under a few
/// megabytes.
const HUGE_FROM: usize = 4 << 20;
/// The size of a huge page on the targets built for.
const HUGE_PAGE: usize = 2 << 20;
/// Pools mapped on their own, once the region is full or could not be reserved.
const MAP_UNIT: usize = 1 << 16;
/// The least page size of the targets built for.
const PAGE: usize = 4096;
/// Spins on a taken lock before yielding the CPU to the thread that holds it.
const SPINS: u32 = 128;

/// Where the pools come from: the region while it has room, separate mappings after.
struct Region {
    /// Address space to ask for.
    want: usize,
    base: *mut u8,
    reserved: usize,
    /// Writable bytes from `base`; all of them belong to the region's pool once it exists.
    committed: usize,
    /// The region's pool was handed to TLSF (it is handed once, then only grown).
    handed: bool,
    /// Reservation tried (it is tried once).
    tried: bool,
}

impl Region {
    const fn new(want: usize) -> Region {
        Region {
            want,
            base: null_mut(),
            reserved: 0,
            committed: 0,
            handed: false,
            tried: false,
        }
    }

    /// Reserves the region, the first time only.
    fn reserve(&mut self) {
        if self.tried {
            return;
        }
        self.tried = true;
        let mut size = self.want;
        while size >= SMALLEST_RESERVE.min(self.want) && size > 0 {
            // SAFETY: a fresh anonymous mapping, at an address the kernel chooses.
            let p = unsafe {
                libc::mmap(
                    null_mut(),
                    size,
                    libc::PROT_NONE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if p != libc::MAP_FAILED {
                self.base = p.cast();
                self.reserved = size;
                return;
            }
            size /= 2;
        }
    }

    /// Makes the region writable up to at least `len` bytes; false when it cannot grow.
    fn commit(&mut self, len: usize) -> bool {
        if len <= self.committed {
            return true;
        }
        let Some(want) = len.checked_next_multiple_of(COMMIT_STEP) else {
            return false;
        };
        // Past HUGE_FROM the region ends on a huge page's boundary, so that every huge page
        // below its end lies whole in it (a huge page is used only where it does).
        let want = if want > HUGE_FROM {
            let end = (self.base as usize).saturating_add(want);
            let Some(aligned) = end.checked_next_multiple_of(HUGE_PAGE) else {
                return false;
            };
            want + (aligned - end)
        } else {
            want
        };
        let want = want.min(self.reserved);
        if want < len {
            return false;
        }
        // SAFETY: the range lies within the region this allocator reserved and owns.
        let done = unsafe {
            libc::mprotect(
                self.base.add(self.committed).cast(),
                want - self.committed,
                libc::PROT_READ | libc::PROT_WRITE,
            )
        };
        if done != 0 {
            return false;
        }
        let from = self.committed.max(HUGE_FROM);
        if want > from {
            // Advice only: where the kernel has no huge pages, the pages stay small.
            // SAFETY: as above; advice changes no contents.
            unsafe { libc::madvise(self.base.add(from).cast(), want - from, libc::MADV_HUGEPAGE) };
        }
        self.committed = want;
        true
    }

    fn pool(&self) -> Option<NonNull<[u8]>> {
        NonNull::new(core::ptr::slice_from_raw_parts_mut(
            self.base,
            self.committed,
        ))
    }
}

// SAFETY: `alloc` hands out memory this source owns and never hands out twice (the region once,
// each mapping once); `realloc_inplace_grow` grows only the region's pool, in place.
unsafe impl FlexSource for Region {
    unsafe fn alloc(&mut self, min_size: usize) -> Option<NonNull<[u8]>> {
        self.reserve();
        if !self.handed && !self.base.is_null() && self.commit(min_size) {
            self.handed = true;
            return self.pool();
        }
        let len = min_size.checked_next_multiple_of(MAP_UNIT)?;
        // SAFETY: a fresh anonymous mapping, at an address the kernel chooses.
        let p = unsafe {
            libc::mmap(
                null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        NonNull::new(core::ptr::slice_from_raw_parts_mut(p.cast(), len))
    }

    unsafe fn realloc_inplace_grow(
        &mut self,
        ptr: NonNull<[u8]>,
        min_new_len: usize,
    ) -> Option<usize> {
        if !self.handed || ptr.cast::<u8>().as_ptr() != self.base {
            return None;
        }
        self.commit(min_new_len).then_some(self.committed)
    }

    fn supports_realloc_inplace_grow(&self) -> bool {
        true
    }

    fn min_align(&self) -> usize {
        // Every pool starts on a page (the region and each mapping).
        PAGE
    }
}

/// TLSF over the region, with `rlsf`'s global allocator's bitmaps.
type Tlsf = FlexTlsf<Region, usize, usize, { usize::BITS as usize }, { usize::BITS as usize }>;

/// Small blocks are kept for reuse by size, in classes this many bytes apart.
const CLASS_BYTES: usize = 16;
/// Blocks of up to `CLASSES * CLASS_BYTES` bytes, aligned to at most `CLASS_BYTES`, are kept.
const CLASSES: usize = 32;

/// The class of blocks of `layout`, `None` for a block TLSF takes back.
fn class_of(layout: Layout) -> Option<usize> {
    (layout.align() <= CLASS_BYTES && layout.size() <= CLASSES * CLASS_BYTES)
        .then(|| layout.size().saturating_sub(1) / CLASS_BYTES)
}

/// The layout TLSF is asked for: a small block gets its class's whole size, so every block
/// kept in a class serves any size of it.
fn served(layout: Layout) -> Layout {
    match class_of(layout) {
        // SAFETY: a class's size is a multiple of the alignment, which is at most it.
        Some(c) => unsafe {
            Layout::from_size_align_unchecked((c + 1) * CLASS_BYTES, layout.align())
        },
        None => layout,
    }
}

/// Takes the first block of a class's list of kept blocks; null when the list is empty.
///
/// # Safety
/// The list is the caller's alone for the call (the lock held, or the owner's lists), and
/// every block on it was put there by `keep`.
#[inline(always)]
unsafe fn take_kept(list: &mut *mut u8) -> *mut u8 {
    let head = *list;
    if !head.is_null() {
        // SAFETY: a kept block is free, at least a word long and word-aligned (TLSF aligns
        // every block to 16), and its first word links the next (`keep`).
        *list = unsafe { head.cast::<*mut u8>().read() };
    }
    head
}

/// Puts a freed block at the head of a class's list, linked through its first word.
///
/// # Safety
/// As for `take_kept`; `ptr` is a free block of the list's class (`served`: at least a word,
/// word-aligned) that no one else holds.
#[inline(always)]
unsafe fn keep(list: &mut *mut u8, ptr: *mut u8) {
    // SAFETY: the caller's contract.
    unsafe { ptr.cast::<*mut u8>().write(*list) };
    *list = ptr;
}

/// What the lock guards: TLSF, and the small blocks freed, by class, for the next allocation
/// of their class (a parser's tokens and strings come and go by the million; TLSF's search
/// and coalescing were a tenth of a 20,000-stage pipeline).
struct State {
    tlsf: Tlsf,
    /// Each class's freed blocks, a list linked through their first word.
    kept: [*mut u8; CLASSES],
}

/// A TLSF heap over a reserved region: `#[global_allocator]` of palisade's musl build.
pub struct Heap {
    locked: AtomicBool,
    state: UnsafeCell<State>,
    /// The thread that allocated first (its thread pointer; 0 until then, and always 0 where
    /// `thread_pointer` is not known): in the hook, the main thread.
    owner: AtomicUsize,
    /// The owner's own freed small blocks, by class, taken and given back without the lock:
    /// the lock's atomic exchange was three quarters of an allocation's own time, a tenth of
    /// a 20,000-stage pipeline's call. Other threads' blocks go to `State::kept`.
    owned: UnsafeCell<[*mut u8; CLASSES]>,
}

// SAFETY: every access to `state` is made holding `locked`; `owned` is touched only by the
// thread whose thread pointer is `owner`, which is set once.
unsafe impl Sync for Heap {}

/// This thread's thread pointer (on x86_64, the first word of its control block, which
/// points to itself): a number no other live thread has. 0 where it is not known.
#[inline(always)]
fn thread_pointer() -> usize {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        let tp: usize;
        // SAFETY: on Linux x86_64 (musl and glibc alike) %fs holds the thread's control block
        // from before the first allocation, and its first word is the block's own address.
        unsafe {
            core::arch::asm!("mov {}, fs:0", out(reg) tp, options(nostack, readonly, preserves_flags));
        }
        tp
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    {
        0
    }
}

impl Default for Heap {
    fn default() -> Heap {
        Heap::new()
    }
}

impl Heap {
    /// An empty heap; nothing is reserved until the first allocation.
    pub const fn new() -> Heap {
        Heap::reserving(RESERVE)
    }

    /// An empty heap whose region is `bytes` of address space (at most); past it, pools are
    /// mapped on their own.
    pub const fn reserving(bytes: usize) -> Heap {
        Heap {
            locked: AtomicBool::new(false),
            state: UnsafeCell::new(State {
                tlsf: FlexTlsf::new(Region::new(bytes)),
                kept: [null_mut(); CLASSES],
            }),
            owner: AtomicUsize::new(0),
            owned: UnsafeCell::new([null_mut(); CLASSES]),
        }
    }

    /// How many freed small blocks the heap keeps for reuse: the shared lists', and the
    /// owner's when the caller is the owner.
    pub fn kept(&self) -> usize {
        let count = |lists: &[*mut u8; CLASSES]| -> usize {
            lists
                .iter()
                .map(|&head| {
                    let (mut n, mut at) = (0, head);
                    while !at.is_null() {
                        n += 1;
                        // SAFETY: a kept block's first word links the next (`keep`).
                        at = unsafe { at.cast::<*mut u8>().read() };
                    }
                    n
                })
                .sum()
        };
        // SAFETY: only the owner reads its lists.
        let owned = self.owned().map_or(0, |o| count(unsafe { &*o }));
        owned + self.with(|s| count(&s.kept))
    }

    /// The owner's lists, when the calling thread is the heap's owner; the first thread to ask
    /// becomes it.
    #[inline(always)]
    fn owned(&self) -> Option<*mut [*mut u8; CLASSES]> {
        let tp = thread_pointer();
        if tp == 0 {
            return None;
        }
        let owner = self.owner.load(Ordering::Relaxed);
        if owner == tp
            || (owner == 0
                && self
                    .owner
                    .compare_exchange(0, tp, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok())
        {
            Some(self.owned.get())
        } else {
            None
        }
    }

    /// Runs `f` on the heap, holding its lock.
    #[inline]
    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        if self
            .locked
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            self.wait_for_lock();
        }
        /// Releases the lock however `f` ends.
        struct Unlock<'h>(&'h AtomicBool);
        impl Drop for Unlock<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Release);
            }
        }
        let _unlock = Unlock(&self.locked);
        // SAFETY: the lock is held until `_unlock` drops, after `f`.
        f(unsafe { &mut *self.state.get() })
    }

    /// Takes the lock another thread holds, once it lets go.
    #[cold]
    #[inline(never)]
    fn wait_for_lock(&self) {
        let mut spins = 0u32;
        loop {
            while self.locked.load(Ordering::Relaxed) {
                if spins < SPINS {
                    spins += 1;
                    core::hint::spin_loop();
                } else {
                    // The holder may be off the CPU (two cores, three threads): let it run.
                    // SAFETY: no arguments, no memory.
                    unsafe { libc::sched_yield() };
                }
            }
            if self
                .locked
                .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                return;
            }
        }
    }
}

// SAFETY: TLSF hands out blocks of at least the layout's size and alignment, each once, until
// freed; the lock serialises every use of it.
unsafe impl GlobalAlloc for Heap {
    // Out of line: inlined, the lock and TLSF's fast path were copied into each of the
    // program's eighteen thousand allocation sites, 1.1 MB of code.
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let class = class_of(layout);
        if let Some(c) = class
            && let Some(owned) = self.owned()
        {
            // SAFETY: only the owner thread touches its lists.
            let head = unsafe { take_kept(&mut (*owned)[c]) };
            if !head.is_null() {
                return head;
            }
        }
        self.with(|s| {
            if let Some(c) = class {
                // SAFETY: the lock is held.
                let head = unsafe { take_kept(&mut s.kept[c]) };
                if !head.is_null() {
                    return head;
                }
            }
            s.tlsf
                .allocate(served(layout))
                .map_or(null_mut(), NonNull::as_ptr)
        })
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY (for `keep`): `ptr` came from `alloc` or `realloc` with this layout
        // (GlobalAlloc's contract), so it is not null, and it holds its class's whole size
        // (`served`): at least a word, word-aligned, for the link.
        let class = class_of(layout);
        if let Some(c) = class
            && let Some(owned) = self.owned()
        {
            // SAFETY: as above; only the owner thread touches its lists.
            unsafe { keep(&mut (*owned)[c], ptr) };
            return;
        }
        self.with(|s| unsafe {
            match class {
                Some(c) => keep(&mut s.kept[c], ptr),
                None => s
                    .tlsf
                    .deallocate(NonNull::new_unchecked(ptr), layout.align()),
            }
        })
    }

    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`; the new size, with the old alignment, is a valid layout
        // (GlobalAlloc's contract).
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        let class = class_of(layout);
        if class.is_some() && class == class_of(new) {
            // The block already holds its class's whole size.
            return ptr;
        }
        self.with(|s| unsafe {
            s.tlsf
                .reallocate(NonNull::new_unchecked(ptr), served(new))
                .map_or(null_mut(), NonNull::as_ptr)
        })
    }
}
