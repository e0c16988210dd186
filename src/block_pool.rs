//! Padded blocks given back by their last user, kept for the next padded
//! call. A serving block (256 rows padded to 128: 786 kB of int64) is past
//! glibc's mmap and trim thresholds: when a server holds a few results before
//! dropping them, glibc returns their memory to the OS, and the next calls'
//! blocks come as fresh pages, faulted in as they are written (60–100 µs at
//! 256 rows, more than the call itself). A block kept here is zeroed again
//! instead (a `memset`, what `calloc` does to a reused heap block anyway).
//!
//! A few slots, each an atomic pointer: taking and giving back are one swap
//! or compare-and-swap each, no lock. Only blocks between [`MIN_BYTES`] and
//! [`MAX_BYTES`] are kept, [`MAX_KEPT`] bytes of them at most; a block is
//! taken only by a need of at least half its size. A block is kept only when
//! freed, so the blocks kept and in use were all in use at once before: the
//! pool keeps the process's memory at a level it has reached, never past it.

use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// Eight: a server holding the results of a few batches of 256 rows (786 kB each).
const SLOTS: usize = 8;
/// Bytes kept at most (blocks' capacities).
const MAX_KEPT: usize = 8 << 20;
/// Below this, glibc serves blocks from its heap without page faults worth saving.
const MIN_BYTES: usize = 128 << 10;
/// Above this, a block is freed (the pool's memory stays bounded).
const MAX_BYTES: usize = 2 << 20;

/// Kept blocks (empty `Vec`s with their capacity), one per non-null slot.
pub struct Pool {
    slots: [AtomicPtr<Vec<i64>>; SLOTS],
    /// Bytes of the blocks in the slots (reserved before a block goes in).
    kept: AtomicUsize,
}

/// The process's pool of padded blocks (`Batch::pad_stacked`'s, given back by the arrays' owner).
pub static BLOCKS: Pool = Pool::new();

impl Pool {
    pub const fn new() -> Pool {
        Pool { slots: [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS], kept: AtomicUsize::new(0) }
    }

    /// A kept block with room for `n` values and at most twice that (empty), if one is kept.
    pub fn take(&self, n: usize) -> Option<Vec<i64>> {
        let bytes = n.checked_mul(8)?;
        if !(MIN_BYTES..=MAX_BYTES).contains(&bytes) {
            return None;
        }
        for slot in &self.slots {
            if slot.load(Ordering::Relaxed).is_null() {
                continue;
            }
            let p = slot.swap(std::ptr::null_mut(), Ordering::Acquire);
            if p.is_null() {
                continue; // (taken by another thread meanwhile)
            }
            // SAFETY: a non-null slot holds a pointer from `Box::into_raw` in `give_back`,
            // and the swap made this thread its only holder.
            let block = unsafe { Box::from_raw(p) };
            self.kept.fetch_sub(block.capacity() * 8, Ordering::Relaxed);
            if (n..=n.saturating_mul(2)).contains(&block.capacity()) {
                return Some(*block);
            }
            self.keep(block); // (another size: back, or freed)
        }
        None
    }

    /// Keeps `block` for a later [`take`](Self::take) if its size is one the pool keeps and a slot is free; else frees it.
    pub fn give_back(&self, mut block: Vec<i64>) {
        let bytes = block.capacity().saturating_mul(8);
        if (MIN_BYTES..=MAX_BYTES).contains(&bytes) {
            block.clear();
            self.keep(Box::new(block));
        }
    }

    // Boxed so the slot can hold a thin raw pointer (an AtomicPtr cannot hold a Vec).
    #[allow(clippy::box_collection)]
    fn keep(&self, block: Box<Vec<i64>>) {
        let bytes = block.capacity() * 8;
        if self.kept.fetch_add(bytes, Ordering::Relaxed) + bytes > MAX_KEPT {
            self.kept.fetch_sub(bytes, Ordering::Relaxed);
            return; // (freed)
        }
        let p = Box::into_raw(block);
        for slot in &self.slots {
            if slot.compare_exchange(std::ptr::null_mut(), p, Ordering::Release, Ordering::Relaxed).is_ok() {
                return;
            }
        }
        self.kept.fetch_sub(bytes, Ordering::Relaxed);
        // SAFETY: `p` came from `Box::into_raw` above and no slot took it.
        drop(unsafe { Box::from_raw(p) });
    }
}

impl Default for Pool {
    fn default() -> Self {
        Pool::new()
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        for slot in &mut self.slots {
            let p = std::mem::replace(slot.get_mut(), std::ptr::null_mut());
            if !p.is_null() {
                // SAFETY: as in `take`; `&mut self`: no other holder.
                drop(unsafe { Box::from_raw(p) });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_kept_within_bounds_and_taken_by_needs_of_their_size() {
        let pool = Pool::new();
        let cells = MIN_BYTES / 8;
        assert!(pool.take(cells).is_none());
        let block = vec![7i64; cells * 3 / 2];
        let address = block.as_ptr();
        pool.give_back(block);
        assert!(pool.take(cells * 4).is_none()); // too small for it
        assert!(pool.take(cells / 2).is_none()); // below MIN_BYTES
        let again = pool.take(cells).expect("kept");
        assert_eq!((again.as_ptr(), again.len()), (address, 0));
        assert!(pool.take(cells).is_none()); // taken once
        // too small or too large to keep; at most SLOTS kept
        pool.give_back(vec![0; 16]);
        pool.give_back(vec![0; MAX_BYTES / 8 + 1]);
        assert!(pool.take(cells).is_none());
        for _ in 0..SLOTS + 2 {
            pool.give_back(Vec::with_capacity(cells));
        }
        let taken: Vec<_> = std::iter::from_fn(|| pool.take(cells)).collect();
        assert_eq!(taken.len(), SLOTS);
        // at most MAX_KEPT bytes
        let big = MAX_BYTES / 8;
        for _ in 0..SLOTS {
            pool.give_back(Vec::with_capacity(big));
        }
        let taken: Vec<_> = std::iter::from_fn(|| pool.take(big)).collect();
        assert_eq!(taken.len(), MAX_KEPT / MAX_BYTES);
        assert_eq!(pool.kept.load(Ordering::Relaxed), 0);
        // a need of less than half a kept block's size does not take it
        pool.give_back(Vec::with_capacity(cells * 4));
        assert!(pool.take(cells).is_none());
        assert!(pool.take(cells * 3).is_some());
    }
}
