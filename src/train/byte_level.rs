//! Word counting for byte-level BPE, as HF's `ByteLevel` pre-tokenizer
//! splits (GPT-2's pattern) and maps bytes to characters (GPT-2's
//! `bytes_to_unicode`): both from `pre_tokenizers::byte_level`, which encodes with them. Texts are counted in parallel on the thread pool,
//! a batch at a time; only the counts are kept.

use super::feed::{bump, feed_counts};
use crate::fxhash::FxHashMap;
use crate::pre_tokenizers::byte_level::{byte_char, split_gpt2_str};
use crate::{Error, Result};

/// Pre-tokens (their UTF-8 bytes) and their counts.
type Counts = FxHashMap<Box<[u8]>, u64>;

/// Streaming counter of byte-level words: `feed` batches, then `into_counts`.
pub struct ByteLevelCounter {
    add_prefix_space: bool,
    counts: Counts,
    pub words: u64,
}

impl ByteLevelCounter {
    pub fn new(add_prefix_space: bool) -> Result<Self> {
        Ok(ByteLevelCounter { add_prefix_space, counts: FxHashMap::default(), words: 0 })
    }

    /// Counts the pre-tokens of `texts` (UTF-8) on `num_threads` threads.
    pub fn feed(&mut self, texts: &[&[u8]], num_threads: Option<usize>) -> Result<()> {
        let add_prefix_space = self.add_prefix_space;
        feed_counts(&mut self.counts, &mut self.words, texts, num_threads, |chunk| count_chunk(add_prefix_space, chunk))
    }

    pub fn unique_words(&self) -> usize {
        self.counts.len()
    }

    /// The words as byte characters with their counts, sorted by code points.
    pub fn into_counts(self) -> Vec<(Vec<u32>, u64)> {
        let mut all: Vec<(Vec<u32>, u64)> =
            self.counts.into_iter().map(|(w, n)| (w.iter().map(|&b| byte_char(b)).collect(), n)).collect();
        all.sort_unstable();
        all
    }
}

/// One chunk's byte-level words and the words seen.
fn count_chunk(add_prefix_space: bool, texts: &[&[u8]]) -> Result<(Counts, u64)> {
    let mut local = Counts::default();
    let mut seen = 0u64;
    let mut prefixed = String::new();
    for bytes in texts {
        let mut text = std::str::from_utf8(bytes).map_err(|_| Error::InvalidText)?;
        // HF's ByteLevel(add_prefix_space=True): a space before a text not starting with one.
        if add_prefix_space && !text.is_empty() && !text.starts_with(' ') {
            prefixed.clear();
            prefixed.push(' ');
            prefixed.push_str(text);
            text = &prefixed;
        }
        split_gpt2_str(text, |w| {
            seen += 1;
            bump(&mut local, w.as_bytes());
        });
    }
    Ok((local, seen))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        split_gpt2_str(text, |p| out.push(p.to_string()));
        out
    }

    #[test]
    fn gpt2_bytes_to_unicode() {
        assert_eq!(byte_char(b'!'), '!' as u32);
        assert_eq!(byte_char(0), 256);
        assert_eq!(byte_char(b' '), 'Ġ' as u32);
        assert_eq!(byte_char(b'\n'), 'Ċ' as u32);
        assert_eq!(byte_char(0xAD), 'Ń' as u32);
        let a = crate::pre_tokenizers::byte_level::alphabet();
        assert_eq!(a.len(), 256);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 256);
    }

    #[test]
    fn whitespace_runs_leave_one_space_to_the_next_word() {
        assert_eq!(pieces("Hello  world's 12 !!\n\n x  "), ["Hello", " ", " world", "'s", " 12", " !!", "\n\n", " x", "  "]);
        assert_eq!(pieces("a\n\tb"), ["a", "\n", "\t", "b"]);
        assert_eq!(pieces(" "), [" "]);
    }

    #[test]
    fn counts_mapped_words() {
        let mut c = ByteLevelCounter::new(false).unwrap();
        c.feed(&[b"ab ab", b"ab"], Some(2)).unwrap();
        assert_eq!(c.words, 3);
        let g: Vec<(String, u64)> =
            c.into_counts().into_iter().map(|(w, n)| (w.iter().map(|&c| char::from_u32(c).unwrap()).collect(), n)).collect();
        assert_eq!(g, [("ab".to_string(), 2), ("Ġab".to_string(), 1)]);
    }
}
