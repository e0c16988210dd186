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
mod tests {
    use crate::pipeline::{Input, Settings, Tokenizer};

    /// A vocabulary of every 1- to 3-char substring of `lines` (plus the
    /// replacement char before each word), scores from a fixed hash.
    fn unigram_json(lines: &[&str], pre_tokenizer: &str, normalizer: &str, byte_fallback: bool) -> String {
        let mut pieces: Vec<String> = vec!["<unk>".into()];
        let mut seen = std::collections::HashSet::new();
        for line in lines {
            let text: Vec<char> = line.replace(' ', "▁").chars().collect();
            for n in 1..=3 {
                for w in text.windows(n) {
                    let p: String = w.iter().collect();
                    if (p.len() % 5 != 3 || n == 1) && seen.insert(p.clone()) {
                        pieces.push(p);
                    }
                }
            }
        }
        if byte_fallback {
            pieces.extend((0..=255u8).map(|b| format!("<0x{b:02X}>")));
        }
        let vocab: Vec<serde_json::Value> = pieces
            .iter()
            .enumerate()
            .filter(|(i, p)| !byte_fallback || p.chars().count() > 1 || i % 7 != 0 || p.starts_with('<'))
            .map(|(i, p)| serde_json::json!([p, -(((i * 2_654_435_761) % 1000) as f64) / 97.0 - 1.0]))
            .collect();
        format!(
            r#"{{"normalizer": {normalizer}, "pre_tokenizer": {pre_tokenizer},
                "model": {{"type": "Unigram", "unk_id": 0, "byte_fallback": {byte_fallback}, "vocab": {}}}}}"#,
            serde_json::Value::Array(vocab)
        )
    }

    fn ud_lines() -> Vec<String> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
        let mut lines = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with("ud-") && name.ends_with(".txt") {
                let text = std::fs::read_to_string(entry.path()).unwrap();
                lines.extend(text.lines().step_by(40).map(str::to_string));
            }
        }
        lines.sort();
        lines.extend(["", " ", "  a  b  ", "▁x", "a▁▁b", "x\u{301}y", "\u{0}z", "😀 emoji 👍🏽", "\t\n tab", "  ", "é", "Ab\u{301}A\u{301} \tA", "x  ", "a  b",
            "“A” said ‘b’ – café £5  ok ", "x\u{2019}\u{301} y", "\u{a0}a\u{2026} A\u{203c}", "  “ ”  ", "\u{2028}z\u{ad}",
            "a  ▁b", "   ▁  x", "▁  ▁", " ▁ ", "a   ", "A\t\tb", "\t  A", "b \t x", "AA  A",
            // WhitespaceSplit's other whitespace, a space before `▁`, whitespace at the ends
            "x ▁a", "\u{3000}a\u{85}b\u{2028}", "a \u{a0}▁b ▁", "▁ a\u{1680}", " \t"].map(String::from));
        lines
    }

    const RUNS: &str = r#"{"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "▁"}"#;
    const STRIP_REPLACE: &str = r#"{"type": "Strip", "strip_left": false, "strip_right": true}, {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "▁"}"#;

    /// A darts charsmap (base64) mapping "A" to "a" and a tab to a space: the
    /// root's children at 256 ^ byte, each leaf's value next to it.
    fn tiny_charsmap() -> String {
        let mut units = vec![0u32; 512];
        units[0] = 256 << 10;
        for (byte, blob_offset) in [(b'A' as usize, 0u32), (b'\t' as usize, 2)] {
            let pos = 256 ^ byte;
            units[pos] = byte as u32 | 1 << 8 | 1 << 10;
            units[pos ^ 1] = blob_offset;
        }
        let mut bytes = ((units.len() * 4) as u32).to_le_bytes().to_vec();
        units.iter().for_each(|u| bytes.extend(u.to_le_bytes()));
        bytes.extend(b"a\0 \0");
        base64::encode(bytes)
    }

    /// `encode_ids` gives the ids and offsets of `encode` on the general path, for every shape.
    #[test]
    fn encode_ids_equals_the_general_path() {
        let lines = ud_lines();
        let sample: Vec<&str> = lines.iter().step_by(2).map(String::as_str).collect();
        let meta = |scheme: &str, split: bool| format!(r#"{{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "{scheme}", "split": {split}}}"#);
        let shapes = [
            (meta("always", true), "null".to_string(), false),
            (meta("first", true), "null".to_string(), true),
            (meta("never", false), "null".to_string(), false),
            (format!(r#"{{"type": "Sequence", "pretokenizers": [{{"type": "WhitespaceSplit"}}, {}]}}"#, meta("always", true)), "null".into(), false),
            // WhitespaceSplit after a charsmap that makes a tab a space (transformers 5's XLM-R / T5 shape); `first` and
            // unsplit (the general path's)
            (format!(r#"{{"type": "Sequence", "pretokenizers": [{{"type": "WhitespaceSplit"}}, {}]}}"#, meta("always", true)),
             format!(r#"{{"type": "Precompiled", "precompiled_charsmap": "{}"}}"#, tiny_charsmap()), true),
            (format!(r#"{{"type": "Sequence", "pretokenizers": [{{"type": "WhitespaceSplit"}}, {}]}}"#, meta("first", true)), "null".into(), false),
            (format!(r#"{{"type": "Sequence", "pretokenizers": [{{"type": "WhitespaceSplit"}}, {}]}}"#, meta("always", false)), "null".into(), false),
            (meta("always", true), r#"{"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Strip", "strip_left": false, "strip_right": true}, {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "▁"}]}"#.into(), false),
            (meta("always", true), format!(r#"{{"type": "Sequence", "normalizers": [{{"type": "Precompiled", "precompiled_charsmap": "{}"}}, {}]}}"#, tiny_charsmap(), STRIP_REPLACE), false),
            (meta("always", true), format!(r#"{{"type": "Sequence", "normalizers": [{}]}}"#, STRIP_REPLACE), true),
            // the space-run Replace last without a Strip, not last, or into a space (not the replacement)
            (meta("first", true), format!(r#"{{"type": "Sequence", "normalizers": [{{"type": "Precompiled", "precompiled_charsmap": "{}"}}, {RUNS}]}}"#, tiny_charsmap()), false),
            (meta("always", true), format!(r#"{{"type": "Sequence", "normalizers": [{RUNS}, {{"type": "Precompiled", "precompiled_charsmap": "{}"}}]}}"#, tiny_charsmap()), false),
            (meta("always", true), format!(r#"{{"type": "Sequence", "normalizers": [{}]}}"#, RUNS.replace('▁', " ")), false),
            (meta("always", false), format!(r#"{{"type": "Sequence", "normalizers": [{RUNS}]}}"#), false),
            // NFKC alone (the bench's shape): ASCII texts are kept as they are
            (meta("first", true), r#"{"type": "NFKC"}"#.into(), false),
        ];
        for (pre, normalizer, byte_fallback) in shapes {
            let json = unigram_json(&sample, &pre, &normalizer, byte_fallback);
            let fused = Tokenizer::from_json(&json).unwrap();
            let general = Tokenizer::from_json(&json).unwrap().without_fast_paths();
            let view = fused.fused_unigram().unwrap();
            let (mut ids, mut offsets, mut ids_only) = (Vec::new(), Vec::new(), Vec::new());
            for text in &lines {
                let g = general.encode(&Input::Raw(text), None, false, &Settings::default()).unwrap();
                ids.clear();
                offsets.clear();
                ids_only.clear();
                view.encode_ids(text, &mut ids, Some(&mut offsets)).unwrap();
                view.encode_ids(text, &mut ids_only, None).unwrap();
                let spans: Vec<[u32; 2]> = g.offsets.iter().map(|&(s, e)| [s as u32, e as u32]).collect();
                assert_eq!((&ids, &offsets), (&g.ids, &spans), "{pre} {normalizer} {text:?}");
                assert_eq!(ids_only, g.ids);
                // the per-text encoding (cut from the text's bytes where the normalizer keeps it), as a pair's second too
                let f = fused.encode(&Input::Raw(text), None, false, &Settings::default()).unwrap();
                assert_eq!((&f.ids, &f.tokens, &f.offsets, &f.words), (&g.ids, &g.tokens, &g.offsets, &g.words), "{pre} {normalizer} {text:?}");
                let [f, g] = [&fused, &general].map(|t| t.encode(&Input::Raw("a b"), Some(&Input::Raw(text)), true, &Settings::default()).unwrap());
                assert_eq!((&f.ids, &f.tokens, &f.offsets, &f.words, &f.type_ids), (&g.ids, &g.tokens, &g.offsets, &g.words, &g.type_ids), "pair {text:?}");
            }
        }
    }
}
