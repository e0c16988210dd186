//! The word cache's compact entries: a word of at most 15 bytes split into at
//! most 3 pieces (most words of a text) takes 32 bytes with its key, so a
//! lookup touches one cache line instead of the two or three of a general
//! entry (88 bytes): the lookups of a warm cache mostly wait on memory.

/// The longest word with a compact entry.
pub const MAX_SMALL_WORD: usize = 15;
const PIECES: usize = 3;
/// A piece is `id << LEN_BITS | byte length` (lengths are 1..=15).
const LEN_BITS: u32 = 4;

/// A word of at most 15 bytes, inline: its bytes, zero-padded, and its length in the last byte.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SmallKey([u64; 2]);

impl SmallKey {
    pub fn new(word: &[u8]) -> Option<SmallKey> {
        let mut bytes = [0u8; 16];
        bytes.get_mut(..word.len()).filter(|_| word.len() <= MAX_SMALL_WORD)?.copy_from_slice(word);
        bytes[15] = word.len() as u8;
        let half = |k: usize| u64::from_le_bytes(std::array::from_fn(|i| bytes[8 * k + i]));
        Some(SmallKey([half(0), half(1)]))
    }
}

pub struct SmallEntry {
    /// The general entry's slack rounded down to f32 (so a word it accepts, the exact slack accepts too).
    slack: f32,
    /// The pieces in order; an empty slot (0) ends them.
    pieces: [u32; PIECES],
}

impl SmallEntry {
    /// The entry for a word's `slack` and its `(byte length, id)` pieces, or
    /// None where they do not fit (more than 3 pieces, an id of 2^28 or more).
    pub fn new(slack: f64, pieces: impl ExactSizeIterator<Item = (u32, u32)>) -> Option<SmallEntry> {
        if pieces.len() > PIECES {
            return None;
        }
        let mut packed = [0u32; PIECES];
        for (slot, (len, id)) in packed.iter_mut().zip(pieces) {
            let fits = (1..1 << LEN_BITS).contains(&len) && id < 1 << (32 - LEN_BITS);
            *slot = fits.then_some(id << LEN_BITS | len)?;
        }
        // NaN stays NaN (no check accepts it); a rounding up is undone.
        let mut low = slack as f32;
        if low as f64 > slack {
            low = low.next_down();
        }
        Some(SmallEntry { slack: low, pieces: packed })
    }

    pub fn slack(&self) -> f64 {
        self.slack as f64
    }

    /// `(byte length, id)` of each piece.
    pub fn pieces(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.pieces.iter().take_while(|&&p| p != 0).map(|&p| (p & ((1 << LEN_BITS) - 1), p >> LEN_BITS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_keep_their_pieces_or_refuse() {
        let pieces = [(3, 7), (1, (1 << 28) - 1), (15, 0)];
        let e = SmallEntry::new(1.5, pieces.into_iter()).unwrap();
        assert_eq!(e.pieces().collect::<Vec<_>>(), pieces);
        assert!(SmallEntry::new(0.0, [(1, 1); 4].into_iter()).is_none());
        assert!(SmallEntry::new(0.0, [(1, 1 << 28)].into_iter()).is_none());
        assert!(SmallEntry::new(0.0, [(16, 1)].into_iter()).is_none());
        assert_eq!(SmallEntry::new(0.0, std::iter::empty()).unwrap().pieces().count(), 0);
    }

    #[test]
    fn slack_is_rounded_down() {
        for s in [0.1f64, -0.1, 1e39, -1e39, 3.0, f64::INFINITY, f64::NEG_INFINITY, 16777217.0] {
            let low = SmallEntry::new(s, std::iter::empty()).unwrap().slack();
            assert!(low <= s, "{s}");
        }
        assert!(SmallEntry::new(f64::NAN, std::iter::empty()).unwrap().slack().is_nan());
    }

    #[test]
    fn keys_differ_by_length_and_bytes() {
        assert!(SmallKey::new(b"ab") != SmallKey::new(b"ab\0"));
        assert!(SmallKey::new(b"") != SmallKey::new(b"\0"));
        assert!(SmallKey::new(&[7; MAX_SMALL_WORD]).is_some());
        assert!(SmallKey::new(&[7; MAX_SMALL_WORD + 1]).is_none());
    }
}
