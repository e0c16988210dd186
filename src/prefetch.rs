//! A cache-line prefetch hint, shared by the word caches (WordPiece's memo, Unigram's word cache).

/// Starts loading `slot`'s cache line: a hint, with no effect on any result.
#[inline(always)]
pub(crate) fn prefetch<T>(slot: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing into the program and never faults; `slot` is a live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch(slot as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}
