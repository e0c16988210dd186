//! Post-processors (HF tokenizers' `processors`): they trim byte-level
//! offsets, add special tokens and set type ids, then the encodings of a pair
//! are merged into one. Each follows HF's `process_encodings`; the common
//! case (no overflowing pieces) is laid out in place by `in_place.rs`.

pub use crate::encoding::space_counts;
use crate::encoding::{Encoding, TokenVocab};

mod in_place;
use in_place::InPlace;
pub mod padding;
pub mod truncation;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Sequence A (0) or B (1) with its type id.
    Sequence { pair: bool, type_id: u32 },
    /// `ids`: the token's ids in the template's `special_tokens`, resolved at load (the
    /// ids-only paths read them per row without a lookup by name).
    SpecialToken { id: String, type_id: u32, ids: Vec<u32> },
}

/// A special token of a template: its ids and tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateToken {
    pub ids: Vec<u32>,
    pub tokens: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PostProcessor {
    ByteLevel { add_prefix_space: bool, trim_offsets: bool },
    Roberta { sep: (String, u32), cls: (String, u32), trim_offsets: bool, add_prefix_space: bool },
    /// `[CLS] A [SEP]`, pair `[CLS] A [SEP] B [SEP]` (B's type id 1).
    Bert { sep: (String, u32), cls: (String, u32) },
    Template {
        single: Vec<Piece>,
        pair: Vec<Piece>,
        special_tokens: std::collections::BTreeMap<String, TemplateToken>,
    },
    Sequence(Vec<PostProcessor>),
}

/// HF's `byte_level::process_offsets`: a token's leading and trailing spaces
/// ('Ġ' or whitespace) leave its offsets, except the one space that
/// `add_prefix_space` put before the first token.
pub fn trim_offsets(e: &mut Encoding, add_prefix_space: bool, vocab: &(impl TokenVocab + ?Sized)) {
    let table = vocab.spaces_table();
    for (i, ((token, offsets), &id)) in e.tokens.iter().zip(e.offsets.iter_mut()).zip(&e.ids).enumerate() {
        let (leading, trailing) = match (token, table) {
            (Some(t), _) => space_counts(t),
            (None, Some(table)) => table.get(id as usize).map_or((0, 0), |&(a, b)| (a as usize, b as usize)),
            (None, None) => vocab.spaces(id),
        };
        *offsets = trim_span(*offsets, leading, trailing, i == 0, add_prefix_space);
    }
}

/// One token's span trimmed by [`trim_offsets`] (`first`: it is its encoding's first token).
#[inline]
pub fn trim_span(mut offsets: (usize, usize), mut leading: usize, trailing: usize, first: bool, add_prefix_space: bool) -> (usize, usize) {
    if leading > 0 {
        let is_first = first || offsets.0 == 0;
        if is_first && add_prefix_space && leading == 1 {
            leading = 0;
        }
        offsets.0 = (offsets.0 + leading).min(offsets.1);
    }
    if trailing > 0 && offsets.1 >= trailing {
        offsets.1 = (offsets.1 - trailing).max(offsets.0);
    }
    offsets
}

fn trim_with_overflowing(e: &mut Encoding, add_prefix_space: bool, vocab: &(impl TokenVocab + ?Sized)) {
    trim_offsets(e, add_prefix_space, vocab);
    e.overflowing.iter_mut().for_each(|o| trim_offsets(o, add_prefix_space, vocab));
}

impl PostProcessor {
    /// Special tokens this processor adds (HF's `added_tokens`).
    pub fn added_tokens(&self, is_pair: bool) -> usize {
        match self {
            PostProcessor::ByteLevel { .. } => 0,
            PostProcessor::Roberta { .. } => if is_pair { 4 } else { 2 },
            PostProcessor::Bert { .. } => if is_pair { 3 } else { 2 },
            PostProcessor::Template { single, pair, .. } => {
                let t = if is_pair { pair } else { single };
                t.iter()
                    .map(|p| match p {
                        Piece::SpecialToken { ids, .. } => ids.len(),
                        Piece::Sequence { .. } => 0,
                    })
                    .sum()
            }
            PostProcessor::Sequence(ps) => ps.iter().map(|p| p.added_tokens(is_pair)).sum(),
        }
    }

    /// HF's `PostProcessor::process`: sequence ids and type ids, then this
    /// processor, then one merged encoding. Without overflowing pieces, laid
    /// out in place ([`PostProcessor::process_in_place`], the fast path).
    pub fn process(&self, first: Encoding, second: Option<Encoding>, add_special_tokens: bool, vocab: &(impl TokenVocab + ?Sized)) -> crate::Result<Encoding> {
        match self.process_in_place(first, second, add_special_tokens, vocab)? {
            InPlace::Done(e) => Ok(e),
            InPlace::Declined(encodings) => self.process_merged(encodings, add_special_tokens, vocab),
        }
    }

    /// [`PostProcessor::process`] by HF's steps: each part an encoding, then merged (the general path).
    pub fn process_merged(&self, mut encodings: Vec<Encoding>, add_special_tokens: bool, vocab: &(impl TokenVocab + ?Sized)) -> crate::Result<Encoding> {
        for (i, e) in encodings.iter_mut().enumerate() {
            e.set_sequence_id(i);
            e.overflowing.iter_mut().for_each(|o| o.set_sequence_id(i));
            e.set_type_ids(i as u32);
        }
        Encoding::merge(self.process_encodings(encodings, add_special_tokens, vocab))
    }

    fn process_encodings(&self, mut encodings: Vec<Encoding>, add_special_tokens: bool, vocab: &(impl TokenVocab + ?Sized)) -> Vec<Encoding> {
        match self {
            PostProcessor::ByteLevel { add_prefix_space, trim_offsets: trim } => {
                for (i, e) in encodings.iter_mut().enumerate() {
                    if *trim {
                        trim_with_overflowing(e, *add_prefix_space, vocab);
                    }
                    e.set_sequence_id(i);
                }
                encodings
            }
            PostProcessor::Roberta { sep, cls, trim_offsets: trim, add_prefix_space } => {
                for e in encodings.iter_mut() {
                    if *trim {
                        trim_with_overflowing(e, *add_prefix_space, vocab);
                    }
                    e.set_type_ids(0);
                }
                if !add_special_tokens {
                    return encodings;
                }
                // HF gives the overflowing pieces type id 0 only when it adds the specials.
                encodings.iter_mut().flat_map(|e| e.overflowing.iter_mut()).for_each(|o| o.set_type_ids(0));
                let special = |(t, id): &(String, u32)| Encoding::special(&[*id], &[vocab.own(*id, t)], 0);
                let mut out = Vec::with_capacity(6);
                for (i, mut e) in encodings.into_iter().enumerate() {
                    e.sequence_ranges.clear();
                    e.set_sequence_id(i);
                    out.push(special(if i == 0 { cls } else { sep }));
                    out.push(e);
                    out.push(special(sep));
                }
                out
            }
            PostProcessor::Bert { sep, cls } => {
                if !add_special_tokens {
                    return encodings;
                }
                let special = |(t, id): &(String, u32), type_id| Encoding::special(&[*id], &[vocab.own(*id, t)], type_id);
                let mut out = Vec::with_capacity(5);
                for (i, mut e) in encodings.into_iter().enumerate() {
                    // HF's sequence ranges leave the special tokens out.
                    e.sequence_ranges.clear();
                    e.set_sequence_id(i);
                    e.special_tokens_mask.fill(0);
                    e.overflowing.iter_mut().for_each(|o| o.special_tokens_mask.fill(0));
                    if i == 0 {
                        out.push(special(cls, 0));
                    }
                    out.push(e);
                    out.push(special(sep, u32::from(i > 0)));
                }
                out
            }
            PostProcessor::Template { single, pair, special_tokens } => {
                let template = if encodings.len() == 2 { pair } else { single };
                let mut out = Vec::with_capacity(template.len());
                for piece in template {
                    match piece {
                        Piece::Sequence { pair, type_id } => {
                            let i = usize::from(*pair);
                            if let Some(e) = encodings.get_mut(i) {
                                e.set_type_ids(*type_id);
                                e.set_sequence_id(i);
                                out.push(e.clone());
                            }
                        }
                        Piece::SpecialToken { id, type_id, .. } => {
                            if let (true, Some(t)) = (add_special_tokens, special_tokens.get(id)) {
                                let texts: Vec<_> = t.ids.iter().zip(&t.tokens).map(|(&id, s)| vocab.own(id, s)).collect();
                                out.push(Encoding::special(&t.ids, &texts, *type_id));
                            }
                        }
                    }
                }
                out
            }
            PostProcessor::Sequence(ps) => {
                ps.iter().fold(encodings, |encs, p| p.process_encodings(encs, add_special_tokens, vocab))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vocabulary of the given texts (id k: the k-th).
    pub(crate) struct Texts<'a>(pub &'a [&'a str]);

    impl TokenVocab for Texts<'_> {
        fn text(&self, id: u32) -> Option<&str> {
            self.0.get(id as usize).copied()
        }
    }

    #[test]
    fn trims_spaces_but_keeps_the_added_prefix() {
        let mut e = Encoding::default();
        e.push(0, Some("Ġa".into()), (0, 1), Some(0), 0);
        e.push(1, None, (1, 3), Some(1), 0);
        trim_offsets(&mut e, true, &Texts(&["", "Ġb"]));
        assert_eq!(e.offsets, vec![(0, 1), (2, 3)]);
    }

    #[test]
    fn roberta_pair_layout() {
        let p = PostProcessor::Roberta { sep: ("</s>".into(), 2), cls: ("<s>".into(), 0), trim_offsets: false, add_prefix_space: true };
        let mut a = Encoding::default();
        a.push(5, Some("a".into()), (0, 1), Some(0), 0);
        let b = a.clone();
        let e = p.process(a, Some(b), true, &Texts(&[])).unwrap();
        assert_eq!(e.ids, vec![0, 5, 2, 2, 5, 2]);
        assert_eq!(e.sequence_ids(), vec![None, Some(0), None, None, Some(1), None]);
        assert_eq!(e.type_ids, vec![0; 6]);
    }
}
