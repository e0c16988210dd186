//! The cold-word path: greedy longest-match-first by hash probes, with the
//! loads overlapping.
//!
//! LinMaxMatch walks the trie one dependent load per byte (two per letter
//! in Cyrillic, three in Devanagari), and on a word the memo has not seen
//! those nodes are mostly out of cache. Here each piece is one round: the
//! hashes of every prefix of the rest of the word that ends on a code point
//! boundary (and is no longer than the longest key) are made from one
//! running state; those the table's filter does not rule out have their
//! slots in the table of word-initial (first piece) or continuation (later
//! pieces) tokens requested at once, then checked longest first. The first prefix that is a token is the piece —
//! the reference's definition, so the result is the plain greedy loop's
//! (`WordPiece::greedy`, which the tests hold it to).
//!
//! Only for words of 1..=MAX_WORD bytes not starting with "##", and
//! vocabularies whose tables hold every token and whose tokens are UTF-8
//! (a UTF-8 token matching at a code point boundary of a UTF-8 word ends on
//! one, so no other prefix can match); the caller checks.

use super::whole_words::{finish, hash, mix, WholeWords};

/// The longest word (bytes) taken here: the code point ends fit a `u64`.
pub(super) const MAX_WORD: usize = 64;

/// Eight bytes of `buf` from `at`, little-endian.
#[inline(always)]
fn load(buf: &[u8; MAX_WORD + 8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    if let Some(b) = buf.get(at..at + 8) {
        w.copy_from_slice(b);
    }
    u64::from_le_bytes(w)
}

/// The bits of the first `n` bytes of a little-endian word.
#[inline(always)]
fn low_bytes(n: usize) -> u64 {
    if n >= 8 {
        !0
    } else {
        (1u64 << (8 * n)) - 1
    }
}

/// The ids of the pieces of `word` (UTF-8, 1..=MAX_WORD bytes, not starting
/// with "##"), passed to `emit`; false when some rest of it has no prefix
/// in the vocabulary (ids emitted before that are the caller's to discard).
#[inline]
pub(super) fn pieces(initial: &WholeWords, continuation: &WholeWords, word: &[u8], mut emit: impl FnMut(u32)) -> bool {
    let n = word.len();
    debug_assert!((1..=MAX_WORD).contains(&n), "a word of {n} bytes");
    let mut buf = [0u8; MAX_WORD + 8];
    // (An empty word has no pieces, as in the greedy loop; a longer one is the caller's to avoid.)
    let Some(head) = buf.get_mut(..n).filter(|_| n > 0) else { return n == 0 };
    head.copy_from_slice(word);
    // Bit e - 1: a piece may end at byte e (a code point starts there, or e == n).
    let mut ends = 1u64 << (n - 1);
    for (k, &b) in word.iter().enumerate().skip(1) {
        ends |= ((b & 0xC0 != 0x80) as u64) << (k - 1);
    }
    // Most words the memo misses are tokens: the whole word first, one hash
    // and probe, before the hashes of all its prefixes.
    if n <= initial.max_len {
        let h = hash(word);
        if initial.may_hold(h) {
            if let Some(id) = initial.get_hashed(h, load(&buf, 0) & low_bytes(n), word) {
                emit(id);
                return true;
            }
        }
        ends &= !(1u64 << (n - 1));
    }
    let (mut hashes, mut lens) = ([0u64; MAX_WORD], [0u8; MAX_WORD]);
    let mut start = 0;
    let mut table = initial;
    while start < n {
        let limit = (n - start).min(table.max_len);
        let mut candidates = (ends >> start) & if limit >= 64 { !0 } else { (1u64 << limit) - 1 };
        ends |= 1u64 << (n - 1); // later rounds may end at the word's end
        // The hashes of the candidate prefixes, shortest first, and their slots requested.
        let (mut count, mut state, mut whole) = (0, 0u64, 0);
        while candidates != 0 {
            let e = candidates.trailing_zeros() as usize + 1;
            candidates &= candidates - 1;
            while whole + 8 <= e {
                state = mix(state, load(&buf, start + whole));
                whole += 8;
            }
            let tail = load(&buf, start + whole) & ((1u64 << (8 * (e - whole))) - 1);
            let h = finish(state, tail, e);
            // Most prefixes are not tokens: the filter (a few KiB to 128 KiB) drops most of them.
            if table.may_hold(h) {
                table.prefetch(h);
                hashes[count] = h;
                lens[count] = e as u8;
                count += 1;
            }
        }
        // Longest first: the first that is a token is the piece.
        let mut found = None;
        while count > 0 {
            count -= 1;
            let e = lens[count] as usize;
            if let Some(id) = table.get_hashed(hashes[count], load(&buf, start) & low_bytes(e), &buf[start..start + e]) {
                found = Some((id, e));
                break;
            }
        }
        let Some((id, e)) = found else { return false };
        emit(id);
        start += e;
        table = continuation;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The running-state hashes of every prefix of every offset equal the
    /// keys' own hash (so the probes find what the table holds).
    #[test]
    fn prefix_hashes_equal_the_keys_hashes() {
        let word: Vec<u8> = (0..MAX_WORD as u8).map(|i| i.wrapping_mul(37).wrapping_add(11)).collect();
        let mut buf = [0u8; MAX_WORD + 8];
        buf[..word.len()].copy_from_slice(&word);
        for start in 0..word.len() {
            let (mut state, mut whole) = (0u64, 0);
            for e in 1..=word.len() - start {
                while whole + 8 <= e {
                    state = mix(state, load(&buf, start + whole));
                    whole += 8;
                }
                let tail = load(&buf, start + whole) & ((1u64 << (8 * (e - whole))) - 1);
                assert_eq!(finish(state, tail, e), hash(&word[start..start + e]), "{start}..{}", start + e);
            }
        }
    }
}
