//! The result of encoding one input, shaped as HF tokenizers' `Encoding`
//! (offsets in chars of the original text, as the Python API reports them).
//! Tokens are kept as ids: a token whose text is the model vocabulary's text of
//! its id stores no string (looked up when read); only the others (added tokens,
//! a Unigram unknown piece, special and padding tokens) keep theirs. Copying each
//! token's string into the encoding was the per-text call's largest cost.

pub use crate::encoding_ranges::SequenceRanges;
use crate::room::make_room;

/// A token's text: None when it is the model vocabulary's text of its id
/// ([`TokenVocab::text`]), else the text itself. Producers store None only for
/// that case, so two encodings of the same tokens compare equal.
pub type TokenText = Option<Box<str>>;

/// The vocabulary the [`TokenText`] None entries refer to (the model's `id_to_token`).
pub trait TokenVocab {
    fn text(&self, id: u32) -> Option<&str>;

    /// `text` as stored for `id`: None when it is the vocabulary's own text.
    fn own(&self, id: u32, text: &str) -> TokenText {
        (self.text(id) != Some(text)).then(|| text.into())
    }

    /// The leading and trailing spaces of `id`'s text, as byte-level offset trimming counts them.
    fn spaces(&self, id: u32) -> (usize, usize) {
        space_counts(self.text(id).unwrap_or_default())
    }

    /// [`TokenVocab::spaces`] of every id as a table (index: id), where there is one.
    fn spaces_table(&self) -> Option<&[(u32, u32)]> {
        None
    }
}

/// A token's leading and trailing spaces (`Ġ` or whitespace) as byte-level offset trimming
/// (`processors::trim_offsets`) counts them.
pub fn space_counts(token: &str) -> (usize, usize) {
    let is_space = |c: &char| *c == 'Ġ' || c.is_whitespace();
    (token.chars().take_while(is_space).count(), token.chars().rev().take_while(is_space).count())
}

impl TokenVocab for crate::models::Model {
    fn text(&self, id: u32) -> Option<&str> {
        self.id_to_token(id)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Encoding {
    pub ids: Vec<u32>,
    pub type_ids: Vec<u32>,
    /// Each token's text unless it is the vocabulary's text of its id ([`TokenText`]).
    pub tokens: Vec<TokenText>,
    pub words: Vec<Option<u32>>,
    pub offsets: Vec<(usize, usize)>,
    pub special_tokens_mask: Vec<u32>,
    pub attention_mask: Vec<u32>,
    /// Which tokens belong to which input sequence (HF's `sequence_ranges`).
    pub sequence_ranges: SequenceRanges,
    /// What truncation cut off (HF's `overflowing`), each piece shaped as this.
    pub overflowing: Vec<Encoding>,
}

impl Encoding {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Room for `n` more tokens in every column, made fallibly (56 bytes a
    /// token: a guess from a long text's size must be a MemoryError, not an abort).
    pub fn reserve(&mut self, n: usize) -> crate::Result<()> {
        let what = "encoding";
        make_room(&mut self.ids, n, what)?;
        make_room(&mut self.type_ids, n, what)?;
        make_room(&mut self.tokens, n, what)?;
        make_room(&mut self.words, n, what)?;
        make_room(&mut self.offsets, n, what)?;
        make_room(&mut self.special_tokens_mask, n, what)?;
        make_room(&mut self.attention_mask, n, what)
    }

    /// Room for `n` more tokens where the columns lack it (inline check, growth
    /// out of line, at least doubling): what a producer calls per word so that
    /// its pushes never grow a column infallibly.
    #[inline(always)]
    pub fn ensure(&mut self, n: usize) -> crate::Result<()> {
        fn spare<T>(v: &Vec<T>) -> usize {
            v.capacity() - v.len()
        }
        let least = spare(&self.ids).min(spare(&self.tokens)).min(spare(&self.offsets)).min(spare(&self.words));
        let least = least.min(spare(&self.type_ids)).min(spare(&self.special_tokens_mask)).min(spare(&self.attention_mask));
        if least >= n {
            return Ok(());
        }
        self.grow(n)
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, n: usize) -> crate::Result<()> {
        self.reserve(n.max(self.ids.len()))
    }

    /// Every column (and overflowing piece) cut to its length. Encoders reserve room for the
    /// most tokens a text may give (twice what English text gives); an encoding that outlives
    /// its call (a Python `Encoding`) keeps only what it uses (half the memory for English).
    pub fn shrink_to_fit(&mut self) {
        self.ids.shrink_to_fit();
        self.type_ids.shrink_to_fit();
        self.tokens.shrink_to_fit();
        self.words.shrink_to_fit();
        self.offsets.shrink_to_fit();
        self.special_tokens_mask.shrink_to_fit();
        self.attention_mask.shrink_to_fit();
        self.overflowing.iter_mut().for_each(Encoding::shrink_to_fit);
    }

    /// Token `i`'s text (`vocab`: the model these tokens came from).
    pub fn token<'a>(&'a self, i: usize, vocab: &'a (impl TokenVocab + ?Sized)) -> &'a str {
        match self.tokens.get(i) {
            Some(Some(t)) => t,
            Some(None) => self.ids.get(i).and_then(|&id| vocab.text(id)).unwrap_or_default(),
            None => "",
        }
    }

    /// Every token's text, as strings.
    pub fn token_strings(&self, vocab: &(impl TokenVocab + ?Sized)) -> Vec<String> {
        (0..self.len()).map(|i| self.token(i, vocab).to_string()).collect()
    }

    #[inline]
    pub fn push(&mut self, id: u32, token: TokenText, offsets: (usize, usize), word: Option<u32>, type_id: u32) {
        self.ids.push(id);
        self.tokens.push(token);
        self.offsets.push(offsets);
        self.words.push(word);
        self.type_ids.push(type_id);
        self.special_tokens_mask.push(0);
        self.attention_mask.push(1);
    }

    /// Special tokens: offsets (0, 0), no word, mask 1, no sequence.
    pub fn special(ids: &[u32], tokens: &[TokenText], type_id: u32) -> Encoding {
        let n = ids.len();
        Encoding {
            ids: ids.to_vec(),
            type_ids: vec![type_id; n],
            tokens: tokens.to_vec(),
            words: vec![None; n],
            offsets: vec![(0, 0); n],
            special_tokens_mask: vec![1; n],
            attention_mask: vec![1; n],
            sequence_ranges: SequenceRanges::default(),
            overflowing: Vec::new(),
        }
    }

    pub fn set_sequence_id(&mut self, id: usize) {
        self.sequence_ranges.insert(id, 0..self.len());
    }

    pub fn set_type_ids(&mut self, type_id: u32) {
        self.type_ids.clear();
        self.type_ids.resize(self.ids.len(), type_id);
    }

    /// Appends `other` (HF's `merge_with` without growing offsets). As HF,
    /// the overflowing pieces combine: each of ours with `other` and with each
    /// of its overflows, then we whole with each of its overflows.
    pub fn merge_with(&mut self, other: Encoding) -> crate::Result<()> {
        // (the overflowing pieces are each cut to the truncation's length: small clones)
        let mut overflowing = Vec::new();
        for mine in &self.overflowing {
            let mut n = mine.clone();
            n.merge_with(other.clone())?;
            overflowing.push(n);
            for theirs in &other.overflowing {
                let mut n = mine.clone();
                n.merge_with(theirs.clone())?;
                overflowing.push(n);
            }
        }
        for theirs in &other.overflowing {
            let mut n = self.clone();
            n.merge_with(theirs.clone())?;
            overflowing.push(n);
        }
        self.append_columns(other)?;
        self.overflowing = overflowing;
        Ok(())
    }

    /// Appends `other`'s tokens after ours: every column, and its sequence ranges shifted by
    /// our length (its overflowing pieces are dropped: callers decide about those).
    pub fn append_columns(&mut self, other: Encoding) -> crate::Result<()> {
        // a sequence can be as large as memory: the columns' room made fallibly first
        self.reserve(other.len())?;
        let shift = self.len();
        for (id, r) in other.sequence_ranges {
            self.sequence_ranges.insert(id, r.start + shift..r.end + shift);
        }
        self.ids.extend(other.ids);
        self.type_ids.extend(other.type_ids);
        self.tokens.extend(other.tokens);
        self.words.extend(other.words);
        self.offsets.extend(other.offsets);
        self.special_tokens_mask.extend(other.special_tokens_mask);
        self.attention_mask.extend(other.attention_mask);
        Ok(())
    }

    pub fn merge(parts: Vec<Encoding>) -> crate::Result<Encoding> {
        let mut out = Encoding::default();
        for p in parts {
            out.merge_with(p)?;
        }
        Ok(out)
    }

    /// The input sequence of each token (HF's `get_sequence_ids`): ids 0..n
    /// for n recorded ranges (at least one), an id without a range covering
    /// every token (as after truncation merged an emptied side).
    pub fn sequence_ids(&self) -> Vec<Option<usize>> {
        let len = self.len();
        let mut out = vec![None; len];
        for id in 0..self.sequence_ranges.len().max(1) {
            let r = self.sequence_ranges.get(&id).cloned().unwrap_or(0..len);
            out[r.start.min(len)..r.end.min(len)].fill(Some(id));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_ranges_shift() {
        let mut a = Encoding::default();
        a.push(1, Some("a".into()), (0, 1), Some(0), 0);
        a.set_sequence_id(0);
        let mut b = Encoding::default();
        b.push(2, Some("b".into()), (0, 1), Some(0), 1);
        b.set_sequence_id(1);
        let m = Encoding::merge(vec![Encoding::special(&[0], &[Some("<s>".into())], 0), a, b]).unwrap();
        assert_eq!(m.sequence_ids(), vec![None, Some(0), Some(1)]);
        assert_eq!(m.special_tokens_mask, vec![1, 0, 0]);
    }

    #[test]
    fn shrinking_keeps_every_value_and_cuts_the_room() {
        let mut e = Encoding::default();
        e.reserve(64).unwrap();
        e.push(7, None, (0, 3), Some(0), 0);
        e.push(8, Some("x".into()), (3, 4), Some(1), 0);
        e.set_sequence_id(0);
        let mut over = e.clone();
        over.reserve(64).unwrap();
        e.overflowing.push(over);
        let before = e.clone();
        e.shrink_to_fit();
        assert_eq!(e, before);
        for x in [&e, &e.overflowing[0]] {
            assert_eq!((x.ids.capacity(), x.tokens.capacity(), x.offsets.capacity(), x.words.capacity()), (2, 2, 2, 2));
            assert_eq!((x.type_ids.capacity(), x.special_tokens_mask.capacity(), x.attention_mask.capacity()), (2, 2, 2));
        }
    }

    #[test]
    fn a_missing_sequence_id_covers_everything_as_in_hf() {
        // truncation empties the pair side; merged, only sequence 1's empty range is recorded
        let mut a = Encoding::default();
        a.push(1, Some("a".into()), (0, 1), Some(0), 0);
        let mut b = Encoding::default();
        b.set_sequence_id(1);
        a.merge_with(b).unwrap();
        assert_eq!(a.sequence_ids(), vec![Some(0)]);
    }
}
