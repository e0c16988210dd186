//! Word counting as HF's `Metaspace()` pre-tokenizer splits (prepend scheme
//! "always", split): spaces become `▁`, one `▁` goes in front of a text not
//! starting with one, and each `▁` starts a word. Texts are counted in
//! parallel on the thread pool, a batch at a time; only the counts are kept.

use crate::fxhash::FxHashMap;
use crate::train::feed::{bump, feed_counts};
use crate::{Error, Result};

const REPLACEMENT: u32 = '\u{2581}' as u32;

type Counts = FxHashMap<Box<[u32]>, u64>;

/// Calls `word` with each Metaspace pre-token of `text` (empty text: none).
pub fn metaspace_words(text: &str, buf: &mut Vec<u32>, mut word: impl FnMut(&[u32])) {
    buf.clear();
    if text.is_empty() {
        return;
    }
    if !text.starts_with([' ', '\u{2581}']) {
        buf.push(REPLACEMENT);
    }
    buf.extend(text.chars().map(|c| if c == ' ' { REPLACEMENT } else { c as u32 }));
    let mut start = 0;
    for i in 1..buf.len() {
        if buf[i] == REPLACEMENT {
            word(&buf[start..i]);
            start = i;
        }
    }
    word(&buf[start..]);
}

/// Streaming counter of Metaspace words: `feed` batches, then `into_counts`.
#[derive(Default)]
pub struct MetaspaceCounter {
    counts: Counts,
    pub words: u64,
}

impl MetaspaceCounter {
    /// Counts the words of `texts` (UTF-8) on `num_threads` threads.
    pub fn feed(&mut self, texts: &[&[u8]], num_threads: Option<usize>) -> Result<()> {
        feed_counts(&mut self.counts, &mut self.words, texts, num_threads, count_chunk)
    }

    pub fn unique_words(&self) -> usize {
        self.counts.len()
    }

    /// The words as code points with their counts, sorted.
    pub fn into_counts(self) -> Vec<(Vec<u32>, u64)> {
        let mut all: Vec<(Vec<u32>, u64)> = self.counts.into_iter().map(|(w, n)| (w.into_vec(), n)).collect();
        all.sort_unstable();
        all
    }
}

fn count_chunk(texts: &[&[u8]]) -> Result<(Counts, u64)> {
    let mut local = Counts::default();
    let mut seen = 0u64;
    let mut buf = Vec::new();
    for bytes in texts {
        let text = std::str::from_utf8(bytes).map_err(|_| Error::InvalidText)?;
        metaspace_words(text, &mut buf, |w| {
            seen += 1;
            bump(&mut local, w);
        });
    }
    Ok((local, seen))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        metaspace_words(text, &mut Vec::new(), |w| out.push(w.iter().filter_map(|&c| char::from_u32(c)).collect()));
        out
    }

    #[test]
    fn splits_as_hf_metaspace() {
        // measured: tokenizers 0.23 Metaspace().pre_tokenize_str
        assert_eq!(split("  a  b \n c"), ["▁", "▁a", "▁", "▁b", "▁\n", "▁c"]);
        assert!(split("").is_empty());
        assert_eq!(split("hi"), ["▁hi"]);
    }
}
