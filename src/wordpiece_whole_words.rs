//! Exact-match tables of the vocabulary's tokens: the word-initial ones (one
//! hash probe for a word that is a token) and the continuation ones (keyed
//! by what follows their "##"), which the cold-word path probes by prefixes
//! (`wordpiece_prefixes.rs`).

/// Exact-match table of one kind of token: most words are one token, and
/// one hash probe finds them faster than a walk down the trie. Open
/// addressing over a power-of-two table of 16-byte slots holding the key's
/// first eight bytes, its length and id: a key of up to eight bytes is
/// checked in the slot's one load; the rest of a longer key is in an arena.
#[derive(Clone, Debug)]
pub(super) struct WholeWords {
    pub(super) slots: Vec<Slot>,
    /// Bytes 8.. of the keys longer than eight bytes.
    arena: Vec<u8>,
    /// One bit per hash (high half, low bits), set for the keys' hashes, at
    /// least eight bits a key (about one non-key in ten passes): the prefix
    /// probes read this small table first and the slots only where it is set.
    /// (A table too large for the probes has 64 bits, all set.)
    filter: Vec<u64>,
    /// The longest key, in bytes: no longer prefix of a word can be one.
    pub(super) max_len: usize,
    /// Every token of the table's kind is in it (none longer than 255
    /// bytes, no id of 2^24 or more): the prefix probes may rely on it.
    pub(super) complete: bool,
}

#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(16))]
pub(super) struct Slot {
    /// The key's first eight bytes, little-endian, zero past its end.
    key: u64,
    /// Length << 24 | id; 0: empty (keys are not empty).
    head: u32,
    /// Where bytes 8.. of a longer key start in the arena.
    rest: u32,
}

/// The first eight bytes of `key`, little-endian, zero past its end.
#[inline(always)]
pub(super) fn first8(key: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let n = key.len().min(8);
    w[..n].copy_from_slice(&key[..n]);
    u64::from_le_bytes(w)
}

/// Which tokens a table holds, keyed by what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Keys {
    /// Tokens not starting with "##" (a word spelled like one of those goes
    /// through the greedy loop, which handles it), keyed by themselves.
    Initial,
    /// Tokens "##" + key, key not empty, keyed by the key.
    Continuation,
}

/// The largest whole-word table probed for words the memo has not seen
/// when the prefix probes cannot be used: 512 KiB of slots. The 30K-token
/// vocabularies need 256 KiB, multilingual-cased 1 MiB.
pub(super) const SMALL_WHOLE_SLOTS: usize = 1 << 16;

const K: u64 = 0x517C_C1B7_2722_0A95;

/// One eight-byte word into the running state (FxHash's multiply-rotate).
#[inline(always)]
pub(super) fn mix(h: u64, w: u64) -> u64 {
    (h.rotate_left(5) ^ w).wrapping_mul(K)
}

/// The hash of a key of `len` bytes from the state after its whole
/// eight-byte words and its last < 8 bytes (`tail`, little-endian, zero
/// above): every prefix of a word is hashed from one running state, by
/// [`hash`]'s definition. MurmurHash3's finalizer, as tables index by the low bits.
#[inline(always)]
pub(super) fn finish(state: u64, tail: u64, len: usize) -> u64 {
    let mut h = mix(state, tail) ^ len as u64;
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

/// The hash of a key.
pub(super) fn hash(key: &[u8]) -> u64 {
    let le = |c: &[u8]| c.iter().rev().fold(0u64, |w, &b| (w << 8) | b as u64);
    let mut chunks = key.chunks_exact(8);
    let state = (&mut chunks).fold(0, |s, c| mix(s, le(c)));
    finish(state, le(chunks.remainder()), key.len())
}

impl Keys {
    /// The key of `token` in a table of this kind, if it has one.
    pub(super) fn key(self, token: &[u8]) -> Option<&[u8]> {
        match self {
            Keys::Initial => (!token.starts_with(b"##") && !token.is_empty()).then_some(token),
            Keys::Continuation => token.strip_prefix(b"##").filter(|k| !k.is_empty()),
        }
    }
}

impl WholeWords {
    pub(super) fn build(tokens: &[&[u8]], ids: &[u32], keys: Keys) -> Self {
        let key = |t| keys.key(t);
        let n = tokens.iter().filter(|t| key(t).is_some()).count();
        let size = (n + n / 4).next_power_of_two().max(16);
        // Only the prefix probes read the filter, and only in a small table: a
        // large one gets a filter of 64 bits all set, which passes every hash.
        let small = size <= SMALL_WHOLE_SLOTS;
        let bits = if small { (8 * n).next_power_of_two().max(64) } else { 64 };
        let filter = vec![if small { 0 } else { !0 }; bits / 64];
        let mut w = WholeWords { slots: vec![Slot::default(); size], arena: Vec::new(), filter, max_len: 0, complete: true };
        for (i, t) in tokens.iter().enumerate() {
            let Some(k) = key(t) else { continue };
            // Long tokens and huge vocabularies do not fit the slot's head; the trie has them.
            if k.len() > 255 || ids[i] >= 1 << 24 || w.arena.len() > u32::MAX as usize - k.len() {
                w.complete = false;
                continue;
            }
            let h = hash(k);
            let mut at = h as usize & (size - 1);
            while w.slots[at].head != 0 {
                if w.entry_at(w.slots[at], first8(k), k).is_some() {
                    break; // a repeated token keeps its first index
                }
                at = (at + 1) & (size - 1);
            }
            if w.slots[at].head != 0 {
                continue;
            }
            w.slots[at] = Slot { key: first8(k), head: (k.len() as u32) << 24 | ids[i], rest: w.arena.len() as u32 };
            w.arena.extend_from_slice(k.get(8..).unwrap_or(&[]));
            let bit = (h >> 32) as usize & (bits - 1);
            w.filter[bit / 64] |= 1 << (bit % 64);
            w.max_len = w.max_len.max(k.len());
        }
        w
    }

    #[inline]
    pub(super) fn get(&self, word: &[u8]) -> Option<u32> {
        self.get_hashed(hash(word), first8(word), word)
    }

    /// Whether the key of hash `h` may be in the table (false: it is not).
    #[inline(always)]
    pub(super) fn may_hold(&self, h: u64) -> bool {
        let bit = (h >> 32) as usize & (64 * self.filter.len() - 1);
        self.filter.get(bit / 64).is_some_and(|w| w >> (bit % 64) & 1 != 0)
    }

    /// Starts loading the slot where the key of hash `h` would be.
    #[inline(always)]
    pub(super) fn prefetch(&self, h: u64) {
        if let Some(slot) = self.slots.get(h as usize & (self.slots.len() - 1)) {
            crate::prefetch::prefetch(slot);
        }
    }

    /// [`get`](Self::get) of `word`, whose [`hash`] is `h` and [`first8`] `key`.
    #[inline]
    pub(super) fn get_hashed(&self, h: u64, key: u64, word: &[u8]) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut k = h as usize & mask;
        loop {
            let slot = self.slots[k];
            if slot.head == 0 {
                return None;
            }
            if let Some(id) = self.entry_at(slot, key, word) {
                return Some(id);
            }
            k = (k + 1) & mask;
        }
    }

    /// The id in the occupied `slot` if its key is `word` (whose [`first8`] is `key`).
    #[inline(always)]
    fn entry_at(&self, slot: Slot, key: u64, word: &[u8]) -> Option<u32> {
        let len = (slot.head >> 24) as usize;
        if slot.key != key || len != word.len() {
            return None;
        }
        let at = slot.rest as usize;
        (len <= 8 || self.arena.get(at..at + len - 8) == word.get(8..)).then_some(slot.head & 0xFF_FFFF)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind of table against a map of its kept keys (first index wins), for
    /// vocabularies from a few tokens to 200,000, with repeated, "##",
    /// empty, over-long tokens and ids too large for the entry header among them.
    #[test]
    fn probes_find_exactly_the_tokens_of_each_kind() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut rng = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for size in [3usize, 40, 1000, 30_000, 200_000] {
            let mut tokens: Vec<Vec<u8>> = (0..size)
                .map(|_| {
                    let len = match rng() % 50 {
                        0 => 0,
                        1 => 256 + (rng() % 10) as usize,
                        _ => 1 + (rng() % 12) as usize,
                    };
                    let mut t: Vec<u8> = (0..len).map(|_| b"abcdefghij##\xC3\xA9"[(rng() % 14) as usize]).collect();
                    if rng() % 5 == 0 && t.len() >= 2 {
                        t[..2].copy_from_slice(b"##");
                    }
                    t
                })
                .collect();
            tokens.push(tokens[0].clone()); // a repeated token
            let ids: Vec<u32> = (0..tokens.len() as u32).map(|i| if i % 97 == 5 { (1 << 24) + i } else { i * 3 }).collect();
            let refs: Vec<&[u8]> = tokens.iter().map(|t| t.as_slice()).collect();
            for keys in [Keys::Initial, Keys::Continuation] {
                let w = WholeWords::build(&refs, &ids, keys);
                let mut want = std::collections::HashMap::new();
                let mut complete = true;
                for (t, &id) in refs.iter().zip(&ids) {
                    let Some(k) = keys.key(t) else { continue };
                    if k.len() <= 255 && id < 1 << 24 {
                        want.entry(k).or_insert(id);
                    } else {
                        complete = false;
                    }
                }
                assert_eq!(w.complete, complete, "{size} tokens, {keys:?}");
                assert_eq!(w.max_len, want.keys().map(|k| k.len()).max().unwrap_or(0), "{size} tokens, {keys:?}");
                for k in want.keys() {
                    assert!(w.may_hold(hash(k)), "{size} tokens, {keys:?}, {k:?} filtered out");
                }
                assert!(w.slots.len() <= SMALL_WHOLE_SLOTS || w.filter == [!0], "a large table's filter passes all");
                for t in &refs {
                    for k in [*t, t.get(2..).unwrap_or(b"")] {
                        assert_eq!(w.get(k), want.get(k).copied(), "{size} tokens, {keys:?}, {k:?}");
                    }
                }
                for _ in 0..2000 {
                    let t: Vec<u8> = (0..1 + rng() % 12).map(|_| b"abcdefghijk"[(rng() % 11) as usize]).collect();
                    assert_eq!(w.get(&t), want.get(t.as_slice()).copied(), "{size} tokens, {keys:?}, {t:?}");
                }
            }
        }
    }

    /// Keys longer than eight bytes sharing their first eight bytes and
    /// length, in a table small enough that their probe chains cross: only
    /// the rest of the key tells them apart.
    #[test]
    fn long_keys_are_told_apart_by_their_rest() {
        let tokens: Vec<Vec<u8>> = (0..10u8).map(|i| [&b"abcdefgh"[..], &[b'a' + i, b'z']].concat()).collect();
        let refs: Vec<&[u8]> = tokens.iter().map(|t| t.as_slice()).collect();
        let ids: Vec<u32> = (0..10).collect();
        let w = WholeWords::build(&refs, &ids, Keys::Initial);
        for x in b'a'..=b'z' {
            for y in [b'y', b'z'] {
                let key = [&b"abcdefgh"[..], &[x, y]].concat();
                let want = (y == b'z' && x < b'a' + 10).then_some((x - b'a') as u32);
                assert_eq!(w.get(&key), want, "{key:?}");
            }
        }
    }
}