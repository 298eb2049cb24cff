//! The program's allocator: the system's, with every block of 4 MiB or more aligned to 2 MiB
//! and offered to the kernel for transparent huge pages (madvise MADV_HUGEPAGE, Linux).
//!
//! A million-grain run holds about a gigabyte of arrays that every step streams through;
//! in 4 KiB pages the processor's address cache (TLB) covers a few megabytes of it, in 2 MiB
//! pages all of it. Where the kernel gives huge pages only on request (`madvise` in
//! /sys/kernel/mm/transparent_hugepage/enabled, a common default) this is the request;
//! where it gives them always or never, it changes nothing. Small blocks are the system's.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks from this size on are aligned and advised.
const LARGE: usize = 4 << 20;
/// The size of a huge page on x86-64 and most aarch64 kernels.
const HUGE: usize = 2 << 20;

pub struct HugePages;

/// The program's allocator.
#[global_allocator]
static ALLOCATOR: HugePages = HugePages;

/// The layout a large block is allocated with: aligned to a huge page.
fn large(layout: Layout) -> Option<Layout> {
    (layout.size() >= LARGE)
        .then(|| Layout::from_size_align(layout.size(), layout.align().max(HUGE)).ok())
        .flatten()
}

/// Asks the kernel for huge pages under the block at `p` of `size` bytes; a refusal (an old
/// kernel, huge pages off) leaves ordinary pages, so its result is not needed.
#[cfg(target_os = "linux")]
fn advise(p: *mut u8, size: usize) {
    // SAFETY: `p` starts a block of `size` bytes this allocator owns, aligned to a huge page
    // (so to a page, as madvise requires); the advice changes no byte of it.
    unsafe {
        libc::madvise(p.cast(), size, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_: *mut u8, _: usize) {}

/// A block for `layout` from `allocate`: with the large layout and advised when it is large,
/// else with `layout` itself.
fn advised(layout: Layout, allocate: impl FnOnce(Layout) -> *mut u8) -> *mut u8 {
    match large(layout) {
        Some(l) => {
            let p = allocate(l);
            if !p.is_null() {
                advise(p, l.size());
            }
            p
        }
        None => allocate(layout),
    }
}

// SAFETY: every block is the system allocator's, allocated and freed with the same layout
// (`large` gives the same answer for the same layout).
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, or the large one (non-zero size, valid alignment).
        advised(layout, |l| unsafe { System.alloc(l) })
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: `p` was allocated by `alloc` with the layout `large` gives again.
        unsafe { System.dealloc(p, large(layout).unwrap_or(layout)) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        advised(layout, |l| unsafe { System.alloc_zeroed(l) })
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's layout and size, valid for the block at `p`.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if large(layout).is_none() && large(new).is_none() {
            // SAFETY: a small block stays small: the system's own realloc.
            return unsafe { System.realloc(p, layout, new_size) };
        }
        // SAFETY: a fresh block of the new layout, the old one copied up to the shorter
        // length and freed with its own layout.
        unsafe {
            let q = self.alloc(new);
            if !q.is_null() {
                std::ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                self.dealloc(p, layout);
            }
            q
        }
    }
}
