//! The ids-only path of [`Tokenizer::encode`] for one raw text, for the bulk
//! call (src/pipeline_batch.rs): where the file's shape has a fast path, the
//! ids (and offsets, when asked) go straight into the caller's vectors, with
//! truncation and the post-processor's special tokens and offset trimming
//! applied on ids. No `Encoding`, token string or `NormalizedString` (except
//! around added tokens in texts that may hold one). BPE files that no fast
//! path takes run the general path's stages without the `Encoding`, ids only
//! (pipeline_ids_bpe.rs). Whatever it cannot do
//! exactly as `encode` does, it declines, and the caller takes `encode`.

use super::Tokenizer;
use crate::added_tokens::Split;
use crate::fast_bytelevel::merge::Words;
use crate::fast_bytelevel::FastByteLevel;
use crate::processors::truncation::{Direction, Strategy, TruncationParams};
use crate::processors::{space_counts, trim_span, Piece, PostProcessor};
use crate::room::try_push;
use crate::Result;

#[path = "pipeline_ids_bpe.rs"]
mod bpe;

/// The fast path a text's sequence takes.
enum SequencePath<'a> {
    ByteLevel(&'a FastByteLevel),
    /// The general path's BPE, ids only (no offsets).
    Bpe(&'a crate::models::bpe::Bpe),
    Unigram(crate::models::unigram::FusedUnigram<'a>),
    Bert(&'a crate::tokenizer::FullTokenizer),
}

/// What [`Tokenizer::encode_ids_into`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdsOnly {
    /// Encoded; `truncated`: truncation cut the row (HF's `overflowing` not empty).
    Done { truncated: bool },
    /// No ids-only path for this shape, option or text: nothing was appended; use `encode`.
    Declined,
}

/// The post-processor on one sequence: its offset trims in order, then at
/// most one processor adding special tokens, last.
pub(super) struct PostPlan<'a> {
    /// `add_prefix_space` of each trim.
    trims: [bool; 4],
    pub(super) n_trims: usize,
    specials: Option<&'a PostProcessor>,
}

impl<'a> PostPlan<'a> {
    /// None where the composition is not a run of trims then one special-adder.
    pub(super) fn new(p: Option<&'a PostProcessor>) -> Option<PostPlan<'a>> {
        let mut plan = PostPlan { trims: [false; 4], n_trims: 0, specials: None };
        if let Some(p) = p {
            plan.add(p)?;
        }
        Some(plan)
    }

    fn trim(&mut self, add_prefix_space: bool) -> Option<()> {
        *self.trims.get_mut(self.n_trims)? = add_prefix_space;
        self.n_trims += 1;
        Some(())
    }

    fn add(&mut self, p: &'a PostProcessor) -> Option<()> {
        if self.specials.is_some() {
            return None; // anything after the specials would see them: the general path
        }
        match p {
            PostProcessor::ByteLevel { add_prefix_space, trim_offsets } => {
                if *trim_offsets {
                    self.trim(*add_prefix_space)?;
                }
            }
            PostProcessor::Roberta { trim_offsets, add_prefix_space, .. } => {
                if *trim_offsets {
                    self.trim(*add_prefix_space)?;
                }
                self.specials = Some(p);
            }
            PostProcessor::Bert { .. } => self.specials = Some(p),
            PostProcessor::Template { single, .. } => {
                // the sequence exactly once (a template naming it twice repeats it)
                if single.iter().filter(|x| matches!(x, Piece::Sequence { pair: false, .. })).count() != 1 {
                    return None;
                }
                self.specials = Some(p);
            }
            PostProcessor::Sequence(ps) => ps.iter().try_for_each(|q| self.add(q))?,
        }
        Some(())
    }

    /// Pushes the special tokens before (`before`) or after the sequence; their room made
    /// fallibly (a bulk call's ids fill the room guessed for them exactly often enough).
    pub(super) fn push_specials(&self, before: bool, ids: &mut Vec<u32>, offsets: &mut Option<&mut Vec<[u32; 2]>>) -> Result<()> {
        let mut push = |id: u32| -> Result<()> {
            try_push(ids, id, "token ids")?;
            if let Some(o) = offsets.as_deref_mut() {
                try_push(o, [0, 0], "token offsets")?;
            }
            Ok(())
        };
        match self.specials {
            Some(PostProcessor::Roberta { sep, cls, .. } | PostProcessor::Bert { sep, cls }) => push(if before { cls.1 } else { sep.1 }),
            Some(PostProcessor::Template { single, .. }) => {
                let at = single.iter().position(|x| matches!(x, Piece::Sequence { pair: false, .. })).unwrap_or(0);
                let side = if before { single.get(..at) } else { single.get(at + 1..) };
                let side = side.unwrap_or_default();
                for piece in side {
                    if let Piece::SpecialToken { ids, .. } = piece {
                        ids.iter().try_for_each(|&i| push(i))?;
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// Keeps `max` of the `max + cut` items from `from` on: the first ones (right truncation) or the last.
fn keep<T>(v: &mut Vec<T>, from: usize, max: usize, cut: usize, direction: Direction) {
    match direction {
        Direction::Right => v.truncate(from + max),
        Direction::Left => drop(v.drain(from..from + cut)),
    }
}

/// What [`Tokenizer::encode_ids_into`] finds out from the tokenizer and the
/// call's options alone, not from the text: found once for a batch's texts
/// ([`Tokenizer::ids_plan`]) instead of once per text.
pub struct IdsPlan<'a> {
    path: SequencePath<'a>,
    post: PostPlan<'a>,
    /// The post-processor's special tokens are added.
    specials: bool,
    truncation: Option<TruncationParams>,
    add_special_tokens: bool,
}

impl Tokenizer {
    /// `encode(Input::Raw(text), None, add_special_tokens, truncation)`'s ids
    /// (and offsets, when asked) appended to `ids` / `offsets`, without
    /// building the `Encoding`, on the byte-level or the fused Metaspace +
    /// Unigram fast path (texts holding no added token), BERT's encoder, or
    /// the general path's BPE (ids only). Declines (and
    /// appends nothing) for other shapes, post-processors it cannot apply on
    /// ids, and truncations that `encode` refuses with an error.
    pub fn encode_ids_into(
        &self,
        text: &str,
        add_special_tokens: bool,
        truncation: Option<&TruncationParams>,
        ids: &mut Vec<u32>,
        offsets: Option<&mut Vec<[u32; 2]>>,
    ) -> Result<IdsOnly> {
        match self.ids_plan(add_special_tokens, truncation.copied(), offsets.is_some()) {
            Some(plan) => self.encode_ids_planned(&plan, None, text, ids, offsets),
            None => Ok(IdsOnly::Declined),
        }
    }

    /// The plan of [`Tokenizer::encode_ids_into`] for these options (`offsets`:
    /// whether offsets are asked); None where it declines every text.
    pub fn ids_plan(&self, add_special_tokens: bool, truncation: Option<TruncationParams>, offsets: bool) -> Option<IdsPlan<'_>> {
        let path = match (&self.fast, self.fused_unigram()) {
            (Some(fast), _) => SequencePath::ByteLevel(fast),
            // added tokens: only a text that can hold none (as written, and no normalized ones the
            // normalizer could make appear; the text's own check in `encode_ids_planned`), the rest
            // through `encode`
            (None, Some(u)) if self.normalized_matcher.is_empty() => SequencePath::Unigram(u),
            (None, None) => match (self.bert_ids_path(), self.general_bpe_ids_path(offsets)) {
                (Some(b), _) => SequencePath::Bert(b),
                (None, Some(m)) => SequencePath::Bpe(m),
                (None, None) => return None,
            },
            _ => return None,
        };
        let post = PostPlan::new(self.config.post_processor.as_ref())?;
        // the trims read byte-level tokens' spaces; without offsets they change nothing (MPNet's
        // RobertaProcessing on a BERT-shaped file; the general path's BPE, which never has offsets here)
        let trims_apply = post.n_trims > 0 && (offsets || !matches!(path, SequencePath::Bert(_) | SequencePath::Bpe(_)));
        if trims_apply && !matches!(path, SequencePath::ByteLevel(_)) {
            return None;
        }
        let specials = add_special_tokens && post.specials.is_some();
        Some(IdsPlan { path, post, specials, truncation, add_special_tokens })
    }

    /// [`Tokenizer::encode_ids_into`] on `texts` in order with `plan`, the
    /// byte-level word cache borrowed once for all of them, up to the first
    /// text the plan declines: how many texts were encoded. After each,
    /// `done(ids it appended, whether truncation cut it)`.
    pub fn encode_ids_run(
        &self,
        plan: &IdsPlan<'_>,
        texts: &[&str],
        ids: &mut Vec<u32>,
        mut offsets: Option<&mut Vec<[u32; 2]>>,
        mut done: impl FnMut(usize, bool),
    ) -> Result<usize> {
        let mut run = |mut words: Option<&mut Words<'_>>| -> Result<usize> {
            for (k, text) in texts.iter().enumerate() {
                if let Some(next) = texts.get(k + 2) {
                    prefetch_text(next);
                }
                let before = ids.len();
                match self.encode_ids_planned(plan, words.as_deref_mut(), text, ids, offsets.as_deref_mut())? {
                    IdsOnly::Done { truncated } => done(ids.len() - before, truncated),
                    IdsOnly::Declined => return Ok(k),
                }
            }
            Ok(texts.len())
        };
        match &plan.path {
            SequencePath::ByteLevel(fast) => fast.with_words(|words| run(Some(words))),
            _ => run(None),
        }
    }

    /// [`Tokenizer::encode_ids_into`] with its `plan`; `words`: the byte-level
    /// word cache, when the caller has borrowed it (None: borrowed here).
    fn encode_ids_planned(
        &self,
        plan: &IdsPlan<'_>,
        words: Option<&mut Words<'_>>,
        text: &str,
        ids: &mut Vec<u32>,
        mut offsets: Option<&mut Vec<[u32; 2]>>,
    ) -> Result<IdsOnly> {
        let (path, truncation, add_special_tokens) = (&plan.path, plan.truncation.as_ref(), plan.add_special_tokens);
        if matches!(path, SequencePath::Unigram(_)) && self.added_first.may_occur_in(text) {
            return Ok(IdsOnly::Declined);
        }
        // offsets must fit the u32 (and the int32 array): a longer text takes the general path's error
        if text.len() > i32::MAX as usize {
            return Ok(IdsOnly::Declined);
        }
        let (ids_from, offsets_from) = (ids.len(), offsets.as_ref().map_or(0, |o| o.len()));
        let specials = plan.specials;
        if specials {
            plan.post.push_specials(true, ids, &mut offsets)?;
        }
        // the sequence's own tokens start here
        let (seq_from, seq_offsets_from) = (ids.len(), offsets.as_ref().map_or(0, |o| o.len()));
        // added-token splits: (index in the sequence, their spaces), for the trims
        let mut added_spaces: Vec<(usize, u32, u32)> = Vec::new();
        match path {
            SequencePath::ByteLevel(fast) => self.byte_level_ids(fast, words, text, ids, &mut offsets, &mut added_spaces, seq_from)?,
            SequencePath::Unigram(u) => u.encode_ids(text, ids, offsets.as_deref_mut())?,
            SequencePath::Bpe(m) => self.general_bpe_ids(m, text, ids)?,
            SequencePath::Bert(b) => {
                // right truncation needs the first `max + 1` ids only (one more tells it cut)
                let limit = truncation.filter(|t| t.direction == Direction::Right).map(|t| self.max_ids(t, add_special_tokens).saturating_add(1));
                self.encode_bert_ids(b, text, limit, ids, &mut offsets)?
            }
        }
        // truncation, as `encode` does it for a single sequence
        let mut truncated = false;
        if let Some(t) = truncation {
            let max = self.max_ids(t, add_special_tokens);
            let len = ids.len() - seq_from;
            if len > max {
                if max > 0 && (t.strategy == Strategy::OnlySecond || t.stride >= max) {
                    // `encode` refuses these with an error: let it
                    ids.truncate(ids_from);
                    if let Some(o) = offsets.as_deref_mut() {
                        o.truncate(offsets_from);
                    }
                    return Ok(IdsOnly::Declined);
                }
                truncated = true;
                let cut = len - max;
                keep(ids, seq_from, max, cut, t.direction);
                if let Some(o) = offsets.as_deref_mut() {
                    keep(o, seq_offsets_from, max, cut, t.direction);
                }
                if t.direction == Direction::Left {
                    added_spaces.retain(|s| s.0 >= cut);
                    added_spaces.iter_mut().for_each(|s| s.0 -= cut);
                }
            }
        }
        if let (Some(o), SequencePath::ByteLevel(fast)) = (offsets.as_deref_mut(), path) {
            if plan.post.n_trims > 0 {
                let spans = o.get_mut(seq_offsets_from..).unwrap_or_default();
                let mut extra = added_spaces.iter().peekable();
                for (i, (span, &id)) in spans.iter_mut().zip(ids.get(seq_from..).unwrap_or_default()).enumerate() {
                    let (lead, trail) = match extra.peek() {
                        Some(&&(at, a, b)) if at == i => {
                            extra.next();
                            (a, b)
                        }
                        _ => fast.spaces(id),
                    };
                    let mut s = (span[0] as usize, span[1] as usize);
                    for &add_prefix_space in plan.post.trims.get(..plan.post.n_trims).unwrap_or_default() {
                        s = trim_span(s, lead as usize, trail as usize, i == 0, add_prefix_space);
                    }
                    *span = [s.0 as u32, s.1 as u32];
                }
            }
        }
        if specials {
            plan.post.push_specials(false, ids, &mut offsets)?;
        }
        Ok(IdsOnly::Done { truncated })
    }

    /// The sequence's own ids `truncation` keeps: its `max_length` less the post-processor's
    /// specials (subtracted with wrap-around, as `encode` does).
    fn max_ids(&self, t: &TruncationParams, add_special_tokens: bool) -> usize {
        let added = self.num_special_tokens_to_add(false);
        if add_special_tokens && added > 0 { t.max_length.wrapping_sub(added) } else { t.max_length }
    }

    /// A byte-level text's sequence ids, on `words` (None: the cache borrowed
    /// here): the scan stops at a byte an added token may start with (where
    /// it can), and then the added tokens are split out first.
    #[allow(clippy::too_many_arguments)]
    fn byte_level_ids(
        &self,
        fast: &FastByteLevel,
        words: Option<&mut Words<'_>>,
        text: &str,
        ids: &mut Vec<u32>,
        offsets: &mut Option<&mut Vec<[u32; 2]>>,
        added_spaces: &mut Vec<(usize, u32, u32)>,
        ids_from: usize,
    ) -> Result<()> {
        let Some(words) = words else {
            return fast.with_words(|w| self.byte_level_ids(fast, Some(w), text, ids, offsets, added_spaces, ids_from));
        };
        if !fast.encode_text_ids_in(words, text, &self.added_first, ids, offsets.as_deref_mut())? {
            self.encode_added_ids(fast, words, text, ids, offsets, added_spaces, ids_from)?
        }
        Ok(())
    }

    /// A text that may hold added tokens: split out as `encode_text_fast`
    /// does ([`Tokenizer::added_splits_unnormalized`]), the text between
    /// them on the fast path.
    #[allow(clippy::too_many_arguments)]
    fn encode_added_ids(
        &self,
        fast: &FastByteLevel,
        words: &mut Words<'_>,
        text: &str,
        ids: &mut Vec<u32>,
        offsets: &mut Option<&mut Vec<[u32; 2]>>,
        added_spaces: &mut Vec<(usize, u32, u32)>,
        ids_from: usize,
    ) -> Result<()> {
        for split in self.added_splits_unnormalized(text)? {
            match split {
                Split::Token(piece, id) => {
                    let (a, b) = space_counts(&piece.text()?);
                    try_push(added_spaces, (ids.len() - ids_from, a as u32, b as u32), "added tokens' spaces")?;
                    try_push(ids, id, "token ids")?;
                    if let Some(o) = offsets.as_deref_mut() {
                        let span = piece.original_span(0..piece.len()).unwrap_or((piece.origin, piece.origin));
                        try_push(o, [span.0 as u32, span.1 as u32], "token offsets")?;
                    }
                }
                Split::Text(piece) => fast.encode_piece_ids_in(words, &piece.text()?, piece.origin, ids, offsets.as_deref_mut())?,
            }
        }
        Ok(())
    }
}

/// Requests the cache lines of `text`'s first `PREFETCH_BYTES` bytes: the
/// next text's, while this one is encoded (a batch's strs lie apart in
/// memory, each too short for the hardware prefetcher to get ahead of it).
#[inline]
fn prefetch_text(text: &str) {
    const PREFETCH_BYTES: usize = 2048;
    let bytes = text.as_bytes();
    bytes[..bytes.len().min(PREFETCH_BYTES)].iter().step_by(64).for_each(crate::prefetch::prefetch);
}
