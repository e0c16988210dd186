//! The word cache's inline tables: open addressing with linear probing over
//! slots grouped in buckets. A word's home is a bucket (the 1–8-byte
//! table's: two 16-byte slots, 32 bytes aligned to 32, so one load reads
//! both and never straddles a cache line; the 9–16-byte table's: one
//! 24-byte slot); a word in either slot of its home bucket is found by the
//! inline lookups ([`Table::get_home`], the AVX-512 loop's), others by
//! probing on. With one slot a home, two frequent words sharing it swapped
//! places at every alternation (`move_home`): ~36,000 swaps in every bulk
//! call of 8 MB of English with GPT-2's ranks, all words long cached.

/// A key inline in a slot: one or two u64 of the word's bytes, zero past its end.
pub(super) trait Key: Copy + Default + PartialEq {
    /// Slots a bucket (a power of two).
    const WAYS: usize;
    /// `WAYS` slots, laid out as the AVX-512 loop reads them.
    type Bucket: Copy + Default + AsRef<[Slot<Self>]> + AsMut<[Slot<Self>]>;
    /// The table doubles when more than `FULL.0 / FULL.1` of its slots would
    /// be taken: half for the 1–8-byte words (more of them home, found
    /// inline), three quarters for the 9–16-byte ones, whose 24-byte slots at
    /// half full made the table 1.5 MiB on 8 MB of English the word lists
    /// were not made from, and the AVX-512 loop's gathers waited on it
    /// (docs/benchmarks/bpe-bulk-45.md).
    const FULL: (usize, usize);
    fn hash(self, len: u32) -> u64;
}

impl Key for u64 {
    const WAYS: usize = 2;
    type Bucket = Pair;
    const FULL: (usize, usize) = (1, 2);
    #[inline]
    fn hash(self, len: u32) -> u64 {
        (self ^ u64::from(len)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

impl Key for [u64; 2] {
    const WAYS: usize = 1;
    type Bucket = One;
    const FULL: (usize, usize) = (3, 4);
    #[inline]
    fn hash(self, len: u32) -> u64 {
        (self[0].wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self[1] ^ u64::from(len)).wrapping_mul(0xD6E8_FEB8_6659_FD93)
    }
}

/// `repr(C)`: the AVX-512 loop ([`super::gather`]) reads the key at offset 0
/// and `value | meta << 32` right after it.
#[derive(Clone, Copy, Default)]
#[repr(C)]
pub(super) struct Slot<K> {
    key: K,
    /// What the caller stored with the word (a start in `pieces`, or a token id).
    value: u32,
    /// pieces << 8 | word length; 0 marks an empty slot (words are never empty).
    meta: u32,
}

/// The 1–8-byte table's bucket: two slots in 32 bytes, inside one 64-byte line.
#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
pub(super) struct Pair([Slot<u64>; 2]);

/// The 9–16-byte table's bucket: one 24-byte slot.
#[derive(Clone, Copy, Default)]
#[repr(C)]
pub(super) struct One([Slot<[u64; 2]>; 1]);

macro_rules! slots_of {
    ($b:ty, $k:ty) => {
        impl AsRef<[Slot<$k>]> for $b {
            #[inline(always)]
            fn as_ref(&self) -> &[Slot<$k>] {
                &self.0
            }
        }
        impl AsMut<[Slot<$k>]> for $b {
            #[inline(always)]
            fn as_mut(&mut self) -> &mut [Slot<$k>] {
                &mut self.0
            }
        }
    };
}
slots_of!(Pair, u64);
slots_of!(One, [u64; 2]);

// the AVX-512 loop's offsets: key, then value, then meta; a bucket's slots back to back
const _: () = assert!(std::mem::size_of::<Slot<u64>>() == 16 && std::mem::size_of::<Pair>() == 32);
const _: () = assert!(std::mem::align_of::<Pair>() == 32 && std::mem::size_of::<One>() == 24);

impl<K: Key> Slot<K> {
    /// (value, count of pieces) if this slot holds the word `key` of `len` bytes.
    #[inline(always)]
    fn holds(&self, key: K, len: u32) -> Option<(u32, u32)> {
        (self.key == key && self.meta & 0xFF == len).then_some((self.value, self.meta >> 8))
    }
}

/// A table's buckets for the AVX-512 loop's loads: the first bucket's
/// address and the bucket count less one (a power of two).
#[derive(Clone, Copy)]
pub(in crate::fast_bytelevel) struct RawTable {
    pub slots: *const u8,
    pub mask: u64,
}

/// Open addressing with linear probing over the slots (bucket by bucket,
/// from the first slot of the word's home bucket), up to `K::FULL` full.
pub(super) struct Table<K: Key> {
    buckets: Vec<K::Bucket>,
    pub words: usize,
}

impl<K: Key> Table<K> {
    pub fn new() -> Table<K> {
        Table { buckets: Vec::new(), words: 0 }
    }

    /// The word's home bucket.
    #[inline(always)]
    fn home(&self, key: K, len: u32) -> usize {
        (key.hash(len) >> 32) as usize & (self.buckets.len().wrapping_sub(1))
    }

    fn slot(&self, i: usize) -> Option<&Slot<K>> {
        self.buckets.get(i / K::WAYS)?.as_ref().get(i % K::WAYS)
    }

    /// (value, count of pieces) of the word when it is in its home bucket
    /// (the few instructions the scanner's loop inlines; None: look further).
    #[inline(always)]
    pub fn get_home(&self, key: K, len: u32) -> Option<(u32, u32)> {
        let bucket = self.buckets.get(self.home(key, len))?.as_ref();
        bucket.iter().fold(None, |found, s| found.or(s.holds(key, len)))
    }

    /// The home bucket inline, the probe on out of line (so that
    /// [`super::WordCache::get`]'s callers, the offsets loop's, stay small
    /// enough to inline: with the probe inline, 0.86× on the offsets call).
    #[inline(always)]
    pub fn get(&self, key: K, len: u32) -> Option<(u32, u32)> {
        self.get_home(key, len).or_else(|| self.get_past_home(key, len))
    }

    #[inline(never)]
    fn get_past_home(&self, key: K, len: u32) -> Option<(u32, u32)> {
        let i = self.find(key, len)?;
        self.slot(i)?.holds(key, len)
    }

    /// The slot holding the word (slots counted across the buckets).
    #[inline]
    fn find(&self, key: K, len: u32) -> Option<usize> {
        let mask = (self.buckets.len() * K::WAYS).checked_sub(1)?;
        let mut i = self.home(key, len) * K::WAYS;
        loop {
            let s = self.slot(i)?;
            if s.meta == 0 {
                return None;
            }
            if s.holds(key, len).is_some() {
                return Some(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// A word found past its home bucket moves into its first slot, so that
    /// a word looked up often ends up where the inline lookups find it
    /// (growing re-places the words in slot order, not in the order they
    /// came). The bucket's words before the victim shift one slot on; the
    /// victim (a word not in its own home bucket if the bucket has one:
    /// moving it on costs no inline lookup; else the last slot's, the one
    /// moved in longest ago) takes the word's old slot. So two words of one
    /// bucket looked up in turn each keep a slot of it (with the last slot
    /// the victim always, the second of them and a third word that was in
    /// the bucket first would swap at every turn). The probe runs stay
    /// valid: every word moves further along its own run, all of whose
    /// slots up to the word's old one are taken.
    pub fn move_home(&mut self, key: K, len: u32) {
        let Some(i) = self.find(key, len) else { return };
        let home = self.home(key, len);
        if i / K::WAYS == home {
            return;
        }
        let first = home * K::WAYS;
        let Some(bucket) = self.buckets.get(home) else { return };
        let away = bucket.as_ref().iter().position(|s| self.home(s.key, s.meta & 0xFF) != home);
        let victim = away.unwrap_or(K::WAYS - 1);
        let (Some(&word), Some(&out)) = (self.slot(i), self.slot(first + victim)) else { return };
        for k in (first..first + victim).rev() {
            if let Some(&s) = self.slot(k) {
                self.set(k + 1, s);
            }
        }
        self.set(first, word);
        self.set(i, out);
    }

    fn set(&mut self, i: usize, slot: Slot<K>) {
        if let Some(s) = self.buckets.get_mut(i / K::WAYS).and_then(|b| b.as_mut().get_mut(i % K::WAYS)) {
            *s = slot;
        }
    }

    pub fn insert(&mut self, key: K, len: u32, value: u32, n: u32) {
        let slots = self.buckets.len() * K::WAYS;
        // without the memory to grow, the word is not cached (its tokens are made again), never an abort
        if K::FULL.1 * (self.words + 1) > K::FULL.0 * slots && !self.grow_to((slots * 2).max(super::FIRST_SLOTS)) {
            return;
        }
        self.place(Slot { key, value, meta: (n << 8) | len });
        self.words += 1;
    }

    /// Into the first free slot from the word's home bucket on.
    fn place(&mut self, slot: Slot<K>) {
        let mask = self.buckets.len() * K::WAYS - 1;
        let mut i = self.home(slot.key, slot.meta & 0xFF) * K::WAYS;
        while self.slot(i).is_some_and(|s| s.meta != 0) {
            i = (i + 1) & mask;
        }
        self.set(i, slot);
    }

    /// Re-places the words in `size` (a power of two, at least `WAYS`)
    /// slots; false, the table as it was, when that memory cannot be had.
    pub fn grow_to(&mut self, size: usize) -> bool {
        let mut buckets = Vec::new();
        if buckets.try_reserve_exact(size / K::WAYS).is_err() {
            return false;
        }
        buckets.resize(size / K::WAYS, K::Bucket::default());
        let old = std::mem::replace(&mut self.buckets, buckets);
        for s in old.iter().flat_map(|b| b.as_ref()).filter(|s| s.meta != 0) {
            self.place(*s);
        }
        true
    }

    pub fn clear(&mut self) {
        self.buckets.clear();
        self.words = 0;
    }

    /// None when the table has no slots.
    pub fn raw(&self) -> Option<RawTable> {
        (!self.buckets.is_empty()).then(|| RawTable { slots: self.buckets.as_ptr().cast(), mask: self.buckets.len() as u64 - 1 })
    }

    /// The word's home bucket (for the tests).
    #[cfg(test)]
    pub fn home_of(&self, key: K, len: u32) -> usize {
        self.home(key, len)
    }

    /// How many words are past their home bucket (for the tests).
    #[cfg(test)]
    pub fn away(&self) -> usize {
        (0..self.buckets.len() * K::WAYS)
            .filter_map(|i| Some((i, self.slot(i)?)))
            .filter(|(i, s)| s.meta != 0 && self.home(s.key, s.meta & 0xFF) != i / K::WAYS)
            .count()
    }
}
