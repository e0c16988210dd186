//! The length in code points of each vocabulary entry by id, which
//! `offsets.rs` turns token ids into spans with.

use crate::vocab::Vocab;

/// The length in code points of the vocabulary entry with each id, so that
/// piece spans follow from ids alone (which is all the word memo keeps).
#[derive(Clone, Debug)]
pub struct PieceChars(Box<[u8]>);

const UNSET: u8 = u8::MAX;

impl PieceChars {
    /// `None` when ids do not give one length (two entries share an id but
    /// not a length), an entry has 255 or more code points, or ids are far
    /// sparser than the entries: then offsets take the general path.
    pub fn new(vocab: &Vocab) -> Option<Self> {
        let entries = vocab.entries();
        let max = entries.iter().map(|e| e.1 as usize).max().unwrap_or(0);
        if max > entries.len().saturating_mul(4).saturating_add(1024) {
            return None;
        }
        let mut chars = vec![UNSET; max + 1];
        for (token, id) in entries {
            let n = token.iter().filter(|&&b| b & 0xC0 != 0x80).count();
            let n = u8::try_from(n).ok().filter(|&n| n != UNSET)?;
            let slot = &mut chars[*id as usize];
            if *slot != UNSET && *slot != n {
                return None;
            }
            *slot = n;
        }
        Some(PieceChars(chars.into()))
    }

    #[inline(always)]
    pub(crate) fn of(&self, id: u32) -> u32 {
        self.0.get(id as usize).map_or(0, |&n| n as u32)
    }
}
