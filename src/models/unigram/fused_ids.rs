//! The ids-only entry of the fused Metaspace + Unigram path, for the bulk
//! path: one whole text (no added token in it, no special tokens) to ids and,
//! when asked, offsets in chars of the text. Without a normalizer the words
//! are cut straight from the text's bytes (no `NormalizedString`, no char
//! decoding, no token strings); with one, the text is normalized as the
//! general path normalizes it and the fused word loop runs on it — unless the
//! normalizer provably leaves this text as it is, or (ids only: no spans
//! needed) is made of `Precompiled`, `Strip` and `Replace` (XLM-R's and T5's
//! shape): then the words are cut from the text's bytes, or from its
//! normalized copy (the charsmap applied as text, no `NormalizedString`),
//! a last `Replace(" {2,}", "▁")` done by the word cutter itself (a run of
//! spaces counts as one). Both share
//! the per-thread word cache (word_cache.rs), so a word costs one hash lookup.

use super::fused::{offset_u32, push_prefixed_ids, with_pieces, Emit, MetaspaceUnigram, Sink, ThreadState};
use super::fused_cut::Tails;
use super::word_cache::Key;
use super::plain_form::plain_form;
use super::ws_split::joined_tokens;
use super::Unigram;
use crate::normalized_string::NormalizedString;
use crate::normalizers::Normalizer;
use crate::pre_tokenizer::is_hf_space;
use crate::pre_tokenizers::metaspace::PrependScheme;
use crate::Result;
use crate::room::{ensure_room, ensure_text_room, make_room};
use std::borrow::Cow;

/// A fused Metaspace + Unigram file's parts, borrowed from its `Tokenizer`.
pub struct FusedUnigram<'a> {
    pub shape: &'a MetaspaceUnigram,
    pub model: &'a Unigram,
    pub normalizer: Option<&'a Normalizer>,
}

impl FusedUnigram<'_> {
    /// The ids `Tokenizer::encode(text, add_special_tokens=false)` gives, with
    /// its offsets (chars of `text`) when `offsets` is given. `text` is a whole
    /// input (Metaspace's `first` scheme prepends) holding no added token: the
    /// caller splits those out and adds special tokens.
    pub fn encode_ids(&self, text: &str, ids: &mut Vec<u32>, offsets: Option<&mut Vec<[u32; 2]>>) -> Result<()> {
        // A normalizer that leaves this text as it is leaves every char its own span; without
        // offsets, a text it only strips or replaces in needs no spans either.
        let meta = &self.shape.meta;
        // ids only, words split at spaces: a last Replace(" {2,}", replacement) is done while cutting words
        let collapse_into = (offsets.is_none() && meta.split).then_some(meta.replacement);
        let plain = match (self.shape.whitespace_split, self.normalizer) {
            // WhitespaceSplit first (ids only, `always`, split): its tokens joined as the cutter reads them
            (true, n) if collapse_into.is_some() && meta.prepend_scheme == PrependScheme::Always && !is_hf_space(meta.replacement as u32) => {
                match n.map_or(Some((Cow::Borrowed(text), false)), |n| plain_form(n, text, true, None)) {
                    Some((normalized, _)) => Some((joined_tokens(normalized, meta.replacement)?, true)),
                    None => None,
                }
            }
            (true, _) => None,
            (false, None) => Some((Cow::Borrowed(text), false)),
            (false, Some(n)) => plain_form(n, text, offsets.is_none(), collapse_into),
        };
        match plain {
            Some((plain, collapse)) => self.shape.with_state(|st| self.raw_words(st, &plain, collapse, &mut Emit::Ids(ids, offsets))),
            None => {
                let mut piece = NormalizedString::new(text, 0)?;
                if let Some(n) = self.normalizer {
                    n.normalize(&mut piece)?;
                }
                self.shape.encode_normalized(self.model, piece, &mut Emit::Ids(ids, offsets))
            }
        }
    }

    /// `Tokenizer::encode_text` of a whole text holding no added token, into `sink`: the words cut
    /// from the text's bytes as [`FusedUnigram::encode_ids`] cuts them with offsets, where the
    /// normalizer provably leaves the text as it is (no `NormalizedString`, no char walk); false,
    /// with nothing pushed, otherwise (the caller's general walk then encodes it).
    pub fn encode_plain(&self, text: &str, sink: &mut Sink) -> Result<bool> {
        let plain = match (self.shape.whitespace_split, self.normalizer) {
            (true, _) => return Ok(false),
            (false, None) => Cow::Borrowed(text),
            // with spans wanted, only `Same` (a borrowed text) comes back
            (false, Some(n)) => match plain_form(n, text, false, None) {
                Some((Cow::Borrowed(plain), _)) => Cow::Borrowed(plain),
                _ => return Ok(false),
            },
        };
        self.shape.with_state(|st| self.raw_words(st, &plain, false, &mut Emit::Encoding(sink)))?;
        Ok(true)
    }

    /// Metaspace's words of an unnormalized text, cut from its bytes: a word
    /// starts at every space or replacement char but the first char (with
    /// `split`), spaces become the replacement, the first word may get one
    /// prepended (which then has the first char's span, as HF gives it).
    /// `collapse` (ids only, with `split`): each run of spaces counts as one,
    /// as `Replace(" {2,}", replacement)` before Metaspace makes it (a run
    /// and a single space both start the next word with one replacement char,
    /// and neither prepends at the start).
    /// To an encoding (`Emit::Encoding`), each word gets the sink's next word index.
    pub(super) fn raw_words(&self, st: &mut ThreadState, text: &str, collapse: bool, emit: &mut Emit) -> Result<()> {
        let meta = &self.shape.meta;
        let mut buf = [0u8; 4];
        let r: &str = meta.replacement.encode_utf8(&mut buf);
        let Some(first) = text.chars().next() else { return Ok(()) };
        let prepend = meta.prepend_scheme != PrependScheme::Never && first != ' ' && first != meta.replacement;
        if let (Emit::Ids(ids, None), true) = (&mut *emit, meta.split && (prepend || first == ' ' || first == meta.replacement)) {
            return self.prefixed_ids(st, text, prepend, collapse, ids);
        }
        let bytes = text.as_bytes();
        let (mut start, mut start_char) = (0usize, 0usize);
        while start < bytes.len() {
            if collapse {
                // the run's last space starts the word
                while bytes.get(start) == Some(&b' ') && bytes.get(start + 1) == Some(&b' ') {
                    start += 1;
                }
            }
            let end = if meta.split { next_boundary(bytes, start, r.as_bytes()) } else { bytes.len() };
            let segment = text.get(start..end).unwrap_or_default();
            let shift = usize::from(prepend && start == 0);
            st.word.clear();
            // the word and (with offsets) a u32 per byte of it, made fallibly:
            // a text with no space is one word of its size
            let room = segment.len() * if meta.split { 1 } else { r.len() } + 2 * r.len();
            ensure_text_room(&mut st.word, room, "Unigram word")?;
            if !matches!(emit, Emit::Ids(_, None)) {
                st.char_of.clear();
                make_room(&mut st.char_of, room, "Unigram word's char indices")?;
            }
            if shift == 1 {
                st.word.push_str(r);
            }
            match segment.strip_prefix(' ') {
                // A split word holds no space but maybe its first char.
                Some(rest) if meta.split => {
                    st.word.push_str(r);
                    st.word.push_str(rest);
                }
                _ if meta.split => st.word.push_str(segment),
                _ => push_replacing_spaces(&mut st.word, segment, r),
            }
            if !matches!(emit, Emit::Ids(_, None)) {
                st.char_of.clear();
                let mut v = 0u32;
                if shift == 1 {
                    st.char_of.extend(std::iter::repeat_n(0, r.len()));
                    v = 1;
                }
                for c in segment.chars() {
                    let n = if c == ' ' { r.len() } else { c.len_utf8() };
                    st.char_of.extend(std::iter::repeat_n(v, n));
                    v += 1;
                }
            }
            let chars = with_pieces(self.model, st, meta.replacement, |pieces, word, char_of| -> Result<usize> {
                // Virtual char v: the prepended replacement (v < shift, the first char's span) or char v - shift of the segment.
                let orig = |v: usize| start_char + v.saturating_sub(shift);
                let span = |bs: usize, be: usize| {
                    let first = char_of.get(bs).map_or(0, |&c| c as usize);
                    (orig(first), orig(char_of.get(be.wrapping_sub(1)).map_or(first, |&c| c as usize)) + 1)
                };
                // the word's tokens' room, made fallibly (a text with no space is one word)
                let n = pieces.ids.len();
                match emit {
                    Emit::Ids(ids, None) => {
                        ensure_room(ids, n, "Unigram ids")?;
                        ids.extend_from_slice(pieces.ids);
                        return Ok(0);
                    }
                    Emit::Ids(ids, Some(out)) => {
                        ensure_room(ids, n, "Unigram ids")?;
                        ensure_room(out, n, "Unigram offsets")?;
                        ids.extend_from_slice(pieces.ids);
                        for (_, bs, be) in pieces.iter() {
                            let (s, e) = span(bs, be);
                            out.push([offset_u32(s)?, offset_u32(e)?]);
                        }
                    }
                    Emit::Encoding(sink) => {
                        let w = Some(sink.word.unwrap_or(*sink.next_word));
                        *sink.next_word += 1;
                        sink.out.ensure(n)?;
                        for t in pieces.iter() {
                            // only an unknown piece keeps its text, as `encode_word` pushes it
                            let unknown = if Some(t.0) == self.model.unk_id { self.model.unknown_text(word, &t) } else { None };
                            sink.out.push(t.0, unknown.map(Into::into), span(t.1, t.2), w, sink.type_id);
                        }
                    }
                }
                Ok(char_of.last().map_or(0, |&c| c as usize + 1) - shift)
            })??;
            start_char += chars;
            start = end;
        }
        Ok(())
    }
}

impl FusedUnigram<'_> {
    /// Ids only, words split, every word the replacement then a tail (the
    /// first prepended or starting at a space or replacement char, as every
    /// later one does): the tails come from the block cutter (fused_cut.rs),
    /// each is keyed and looked up straight from the text, and the cache
    /// slot of the word [`AHEAD`] words on is prefetched before this word is
    /// looked up (a slot the CPU's caches miss then loads while the words
    /// between are handled).
    fn prefixed_ids(&self, st: &mut ThreadState, text: &str, prepend: bool, collapse: bool, ids: &mut Vec<u32>) -> Result<()> {
        let r = self.shape.meta.replacement;
        let mut buf = [0u8; 4];
        let rs: &str = r.encode_utf8(&mut buf);
        let bytes = text.as_bytes();
        let mut tails = Tails::new(bytes, rs.as_bytes(), prepend, collapse);
        let keyed = |st: &ThreadState, (a, b): (usize, usize)| {
            let key = Key::of(bytes, a, b - a);
            let tag = st.cache.prefetch(true, bytes.get(a..b).unwrap_or_default(), &key);
            // both tables' slots (asking for the shared one's only left the own cache's
            // lookups, the words after the shared ones, waiting: the warm pass ~7% slower)
            if let Some(shared) = &st.use_shared {
                shared.prefetch_tag(tag);
            }
            (key, tag)
        };
        // The next AHEAD words, keyed and their slots prefetched, in a ring: word k is looked up
        // AHEAD words after its slot was asked for (one word ahead hid too little of a miss).
        let mut ring = [((0, 0), Key::default(), 0u32); AHEAD];
        let mut pending = 0;
        for entry in ring.iter_mut() {
            let Some(w) = tails.next() else { break };
            let (key, tag) = keyed(st, w);
            *entry = (w, key, tag);
            pending += 1;
        }
        let mut head = 0;
        while pending > 0 {
            let Some(&((a, b), key, tag)) = ring.get(head) else { break };
            match tails.next() {
                Some(w) => {
                    let (k, t) = keyed(st, w);
                    if let Some(entry) = ring.get_mut(head) {
                        *entry = (w, k, t);
                    }
                }
                None => pending -= 1,
            }
            push_prefixed_ids(self.model, st, r, text.get(a..b).unwrap_or_default(), tag, &key, ids)?;
            head = (head + 1) % AHEAD;
        }
        Ok(())
    }
}

/// How many words ahead the prefixed path asks for a word's cache slot.
const AHEAD: usize = 8;

/// Where the word after the one starting at `start` starts: the next space or
/// replacement char after `start`, or the end.
fn next_boundary(bytes: &[u8], start: usize, r: &[u8]) -> usize {
    let first_byte = r.first().copied().unwrap_or(b' ');
    let mut from = start + 1;
    while let Some(i) = memchr::memchr2(b' ', first_byte, bytes.get(from..).unwrap_or_default()) {
        let at = from + i;
        if bytes.get(at) == Some(&b' ') || bytes.get(at..).is_some_and(|rest| rest.starts_with(r)) {
            return at;
        }
        from = at + 1;
    }
    bytes.len()
}

fn push_replacing_spaces(out: &mut String, segment: &str, r: &str) {
    let mut rest = segment;
    while let Some(i) = memchr::memchr(b' ', rest.as_bytes()) {
        out.push_str(rest.get(..i).unwrap_or_default());
        out.push_str(r);
        rest = rest.get(i + 1..).unwrap_or_default();
    }
    out.push_str(rest);
}

#[cfg(test)]
#[path = "fused_ids_tests.rs"]
mod tests;
