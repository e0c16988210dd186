//! `_core.FullTokenizer`: the tokenizer behind `bertpiece.FullTokenizer` and
//! `bertpiece.BertTokenizer`, with its batch and padded-batch entry points.

use super::args::*;
use super::text_rows::{arrow_texts, ArrowChunk};
use super::lists::IntCache;
use crate::batch::{encode_batch, encode_pairs, Batch, BatchOptions, PairTruncation};
use crate::padding::{Padded, Padding};
use crate::room::{make_room, max_tokens, segments};
use crate::threads;
use crate::encoder::with_thread_scratch;
use crate::tokenizer::{FullOptions, FullTokenizer};
use crate::vocab::Vocab;
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use std::path::PathBuf;
use std::sync::Arc;

/// Google's `FullTokenizer` over a vocab.txt file.
#[pyclass(frozen, module = "bertpiece._core", name = "FullTokenizer")]
pub(super) struct PyFullTokenizer {
    pub(super) inner: Arc<FullTokenizer>,
    /// The Python ints of the ids, for lists (lists.rs).
    pub(super) ints: IntCache,
}

impl PyFullTokenizer {
    /// What the batch entry points share: the texts (or Arrow chunks, or
    /// pairs of texts) encoded without the GIL on `threads` (as
    /// `thread_count` gives it), padded when asked, and the rows that hold
    /// one of the `needles` (added tokens).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_batch(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        pairs: Option<&Bound<'_, PyAny>>,
        opts: BatchOptions,
        threads: Option<usize>,
        arrow: Option<Vec<ArrowChunk>>,
        needles: &[&[u8]],
        padding: Option<Padding>,
    ) -> PyResult<(Batch, Option<Padded>)> {
        if arrow.is_none() && pairs.is_none() {
            // A large batch of texts: read while the pool's workers encode (batch_fed.rs).
            if let Some(batch) = super::batch_fed::encode_batch_fed(py, &self.inner, texts, opts, needles, threads)? {
                return Ok(py.detach(|| with_padding(batch, padding, threads))?);
            }
            // On one thread: read a chunk at a time, each encoded at once.
            if let Some(batch) = super::batch_fed::encode_batch_streamed(py, &self.inner, texts, opts, needles, threads)? {
                return Ok(py.detach(|| with_padding(batch, padding, threads))?);
            }
        }
        let reference = self.inner.basic().options().reference;
        let read = match arrow {
            None => Some(BatchTexts::read(texts, reference, "texts")?),
            Some(_) => None,
        };
        let bytes = match (&arrow, &read) {
            (Some(chunks), _) => arrow_texts(chunks)?,
            (None, Some(read)) => read.slices(),
            (None, None) => Vec::new(),
        };
        if pairs.is_some() && opts.offsets {
            return Err(PyValueError::new_err("offsets of pairs are not computed by the batch path"));
        }
        let seconds = pairs.map(|p| BatchTexts::read(p, reference, "text_pair")).transpose()?;
        let second_bytes = seconds.as_ref().map(|s| s.slices());
        let inner = &self.inner;
        py.detach(|| -> PyResult<_> {
            let batch = match &second_bytes {
                None => encode_batch(inner, &bytes, opts, needles, threads)?,
                Some(b) => encode_pairs(inner, &bytes, b, opts, needles, threads)?,
            };
            Ok(with_padding(batch, padding, threads)?)
        })
    }
}

/// `batch` and, when asked, its padded block (whichever way its rows were read).
fn with_padding(batch: Batch, padding: Option<Padding>, threads: Option<usize>) -> crate::Result<(Batch, Option<Padded>)> {
    let padded = match padding {
        Some(p) => Some(batch.pad(&p, threads::thread_count(threads)?)?),
        None => None,
    };
    Ok((batch, padded))
}

/// A pair truncation strategy by transformers' name.
pub(super) fn pair_truncation(name: &str) -> PyResult<PairTruncation> {
    match name {
        "longest_first" => Ok(PairTruncation::LongestFirst),
        "only_first" => Ok(PairTruncation::OnlyFirst),
        "only_second" => Ok(PairTruncation::OnlySecond),
        other => Err(PyValueError::new_err(format!(
            "unknown truncation strategy {other:?}: expected \"longest_first\", \"only_first\" or \"only_second\""
        ))),
    }
}

#[pymethods]
impl PyFullTokenizer {
    #[new]
    #[pyo3(signature = (vocab_file, do_lower_case=true, *, reference="google", never_split=None,
        tokenize_chinese_chars=true, strip_accents=None, do_split_on_punc=true,
        preserve_unused_tokens=false, max_input_chars_per_word=None, unk_token="[UNK]"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        vocab_file: PathBuf,
        do_lower_case: bool,
        reference: &str,
        never_split: Option<Vec<Bound<'_, PyAny>>>,
        tokenize_chinese_chars: bool,
        strip_accents: Option<bool>,
        do_split_on_punc: bool,
        preserve_unused_tokens: bool,
        max_input_chars_per_word: Option<Bound<'_, PyAny>>,
        unk_token: &str,
    ) -> PyResult<Self> {
        let basic = basic_options(do_lower_case, never_split, tokenize_chinese_chars, strip_accents, do_split_on_punc, reference)?;
        let max_input_chars_per_word = max_chars_arg(max_input_chars_per_word.as_ref(), basic.reference)?;
        let opts = FullOptions { basic, unk_token: unk_token.to_owned(), max_input_chars_per_word, preserve_unused_tokens };
        let inner = py.detach(|| FullTokenizer::from_file(&vocab_file, opts))?;
        Ok(PyFullTokenizer { inner: Arc::new(inner), ints: IntCache::default() })
    }

    /// Tokens of `text` (str or UTF-8 bytes).
    fn tokenize<'py>(&self, py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let arg = TextArg::for_reference(text, self.inner.basic().options().reference)?;
        let bytes = arg.bytes()?;
        let inner = &self.inner;
        let out = py.detach(|| -> PyResult<Tokens> {
            let (mut out, mut piece) = (Tokens::default(), Vec::new());
            // A segment at a time: the general path's buffers stay small.
            for text in segments(bytes) {
                inner.tokenize(&code_points(text)?, |t| {
                    piece.clear();
                    inner.piece_bytes(t.piece, &mut piece);
                    out.push(&piece);
                });
            }
            Ok(out)
        })?;
        out.into_list(py)
    }

    /// Token ids of `text`; a `never_split` token missing from the vocabulary raises KeyError.
    fn encode<'py>(&self, py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let arg = TextArg::for_reference(text, self.inner.basic().options().reference)?;
        let bytes = arg.bytes()?;
        let inner = &self.inner;
        let result = py.detach(|| -> PyResult<Result<Vec<u32>, Vec<u8>>> {
            if inner.is_one_pass() {
                let mut ids = Vec::new(); // `encode_into` makes the room
                with_thread_scratch(|s| inner.encode_into(bytes, &mut ids, s))?;
                return Ok(Ok(ids));
            }
            let mut ids = Vec::new();
            let mut missing: Option<Vec<u8>> = None;
            let mut raw = Vec::new();
            for text in segments(bytes) {
                make_room(&mut ids, max_tokens(text), "token ids")?;
                inner.tokenize(&code_points(text)?, |t| match inner.piece_id(t.piece, &mut raw) {
                    Some(id) => ids.push(id),
                    None => {
                        missing.get_or_insert_with(|| raw.clone());
                    }
                });
            }
            Ok(missing.map_or(Ok(ids), Err))
        })?;
        match result {
            Ok(ids) => super::lists::int_list(py, self.ints.ints(py, self.inner.vocab()), &ids),
            Err(token) => Err(match py_str(py, &token) {
                Ok(t) => PyKeyError::new_err(t.unbind()),
                Err(e) => e,
            }),
        }
    }

    /// Ids, `(start, end)` code-point offsets into `text`, and the word index
    /// of each token. A token that is not in the vocabulary (a `never_split`
    /// entry) gets the unknown token's id, as transformers does.
    #[allow(clippy::type_complexity)]
    fn encode_offsets<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>, Bound<'py, PyList>)> {
        let arg = TextArg::for_reference(text, self.inner.basic().options().reference)?;
        let bytes = arg.bytes()?;
        let inner = &self.inner;
        let (ids, offsets, words) = py.detach(|| {
            let (mut ids, mut offsets, mut words) = (Vec::new(), Vec::new(), Vec::new());
            with_thread_scratch(|s| inner.encode_offsets_into(bytes, &mut ids, &mut offsets, Some(&mut words), s))?;
            PyResult::Ok((ids, offsets, words))
        })?;
        super::lists::offsets_lists(py, self.ints.ints(py, self.inner.vocab()), &ids, &offsets, &words)
    }

    /// Encodes a batch of texts on `num_threads` threads (default: all cores)
    /// without the GIL. `texts` is a sequence of str, or `arrow`: Arrow string
    /// chunks read in place (see `arrow_texts`); with `pairs` (a sequence of
    /// str as long as `texts`), row `k` is the pair `(texts[k], pairs[k])`,
    /// cut by `pair_truncation`. Returns `Array`s (NumPy adopts them without a
    /// copy): ids (int32), row splits (int64, one more than rows) and, if
    /// asked, offsets (int32, `ids x 2`); the rows that hold one of the
    /// `added` strings (added tokens: the caller encodes those rows itself);
    /// for pairs the token type ids (uint8) and whether some pair could not
    /// be cut to `max_length` by its strategy.
    #[pyo3(signature = (texts, *, special=None, max_length=None, return_offsets=false, num_threads=None, arrow=None,
        added=None, pairs=None, pair_truncation="longest_first"))]
    #[allow(clippy::too_many_arguments)]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        special: Option<(u32, u32)>,
        max_length: Option<Bound<'py, PyAny>>,
        return_offsets: bool,
        num_threads: Option<i64>,
        arrow: Option<Vec<ArrowChunk>>,
        added: Option<Vec<String>>,
        pairs: Option<Bound<'py, PyAny>>,
        pair_truncation: &str,
    ) -> PyResult<BatchArrays> {
        let max_length = size_arg(max_length.as_ref(), "max_length")?;
        let opts = BatchOptions { special, max_length, offsets: return_offsets, pair: self::pair_truncation(pair_truncation)?, ..Default::default() };
        let needles: Vec<&[u8]> = added.iter().flatten().map(|a| a.as_bytes()).collect();
        let (batch, _) = self.run_batch(py, texts, pairs.as_ref(), opts, thread_count(py, num_threads)?, arrow, &needles, None)?;
        let n = batch.ids.len();
        let offsets = match return_offsets {
            true => Some(Array::new(span_pairs(batch.offsets)?, vec![n])?),
            false => None,
        };
        let types = batch.type_ids.map(|t| Array::new(t, vec![n])).transpose()?;
        let rows = batch.row_splits.len();
        Ok((Array::new(batch.ids, vec![n])?, Array::new(batch.row_splits, vec![rows])?, offsets, batch.flagged, types, batch.too_short))
    }

    /// Like `encode_batch`, then padded into rectangles (transformers'
    /// `padding`): returns `(width, ids, attention_mask, offsets or None,
    /// lengths)`, each an int64 `Array` (`rows x width`, offsets `rows x
    /// width x 2`, lengths one per row, before padding), the rows that hold
    /// one of the `added` strings (for the caller to redo), and for pairs the
    /// token type ids (int64, `rows x width`, `pad_type_id` in the padding)
    /// and whether some pair could not be cut.
    #[pyo3(signature = (texts, *, special=None, max_length=None, pad_to=None, pad_to_multiple_of=None, pad_id=0,
        padding_left=false, return_offsets=false, num_threads=None, arrow=None, added=None, pairs=None,
        pair_truncation="longest_first", pad_type_id=0))]
    #[allow(clippy::too_many_arguments)]
    fn encode_padded<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        special: Option<(u32, u32)>,
        max_length: Option<Bound<'py, PyAny>>,
        pad_to: Option<Bound<'py, PyAny>>,
        pad_to_multiple_of: Option<Bound<'py, PyAny>>,
        pad_id: u32,
        padding_left: bool,
        return_offsets: bool,
        num_threads: Option<i64>,
        arrow: Option<Vec<ArrowChunk>>,
        added: Option<Vec<String>>,
        pairs: Option<Bound<'py, PyAny>>,
        pair_truncation: &str,
        pad_type_id: u32,
    ) -> PyResult<PaddedArrays> {
        let max_length = size_arg(max_length.as_ref(), "max_length")?;
        // `__call__` pads to its max_length: the errors name that.
        let (pad_to, pad_to_multiple_of) = (size_arg(pad_to.as_ref(), "max_length")?, size_arg(pad_to_multiple_of.as_ref(), "pad_to_multiple_of")?);
        let opts = BatchOptions { special, max_length, offsets: return_offsets, pair: self::pair_truncation(pair_truncation)?, ..Default::default() };
        let padding = Padding { to: pad_to, multiple_of: pad_to_multiple_of, pad_id, pad_type_id, left: padding_left };
        let needles: Vec<&[u8]> = added.iter().flatten().map(|a| a.as_bytes()).collect();
        let (batch, padded) = self.run_batch(py, texts, pairs.as_ref(), opts, thread_count(py, num_threads)?, arrow, &needles, Some(padding))?;
        let padded = padded.unwrap_or_default();
        let lengths: Vec<i64> = batch.row_splits.windows(2).map(|w| (w[1] - w[0]) as i64).collect();
        let (rows, width) = (lengths.len(), padded.width);
        let offsets = match return_offsets {
            true => Some(Array::new(padded.offsets, vec![rows, width])?),
            false => None,
        };
        let types = padded.type_ids.map(|t| Array::new(t, vec![rows, width])).transpose()?;
        Ok((
            width,
            Array::new(padded.ids, vec![rows, width])?,
            Array::new(padded.attention_mask, vec![rows, width])?,
            offsets,
            Array::new(lengths, vec![rows])?,
            batch.flagged,
            types,
            batch.too_short,
        ))
    }

    /// A tokenizer over an in-memory vocabulary of `(token, id)` pairs (for tokenizer.json).
    #[staticmethod]
    #[pyo3(signature = (entries, do_lower_case=true, *, reference="google", never_split=None,
        tokenize_chinese_chars=true, strip_accents=None, do_split_on_punc=true,
        preserve_unused_tokens=false, max_input_chars_per_word=None, unk_token="[UNK]"))]
    #[allow(clippy::too_many_arguments)]
    fn from_entries(
        py: Python<'_>,
        entries: Vec<(Bound<'_, PyAny>, u32)>,
        do_lower_case: bool,
        reference: &str,
        never_split: Option<Vec<Bound<'_, PyAny>>>,
        tokenize_chinese_chars: bool,
        strip_accents: Option<bool>,
        do_split_on_punc: bool,
        preserve_unused_tokens: bool,
        max_input_chars_per_word: Option<Bound<'_, PyAny>>,
        unk_token: &str,
    ) -> PyResult<Self> {
        let mut pairs = Vec::with_capacity(entries.len());
        for (token, id) in &entries {
            pairs.push((TextArg::extract(token, "vocabulary tokens")?.bytes()?.to_vec(), *id));
        }
        let basic = basic_options(do_lower_case, never_split, tokenize_chinese_chars, strip_accents, do_split_on_punc, reference)?;
        let max_input_chars_per_word = max_chars_arg(max_input_chars_per_word.as_ref(), basic.reference)?;
        let opts = FullOptions { basic, unk_token: unk_token.to_owned(), max_input_chars_per_word, preserve_unused_tokens };
        let inner = py.detach(|| FullTokenizer::new(Vocab::from_pairs(pairs), opts))?;
        Ok(PyFullTokenizer { inner: Arc::new(inner), ints: IntCache::default() })
    }

    /// `(token, id)` pairs in vocabulary order.
    fn vocab_entries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let entries = self.inner.vocab().entries();
        let mut items = Vec::with_capacity(entries.len());
        for (token, id) in entries {
            items.push((py_str(py, token)?, *id));
        }
        PyList::new(py, items)
    }

    #[getter]
    fn unk_token<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_str(py, self.inner.unk_token())
    }

    fn __len__(&self) -> usize {
        self.inner.vocab().len()
    }

    /// HF BertNormalizer's output for `text` (reference="tokenizers" only): the token
    /// string HF tokenizers gives a normalized added token whose content it changes.
    fn hf_normalize(&self, text: &Bound<'_, PyString>) -> PyResult<String> {
        let arg = TextArg::extract(text.as_any(), "text")?;
        let cps = code_points(arg.bytes()?)?;
        let out = self.inner.basic().hf_normalize(&cps)
            .ok_or_else(|| PyValueError::new_err("hf_normalize: only for reference='tokenizers'"))?;
        Ok(out.into_iter().filter_map(char::from_u32).collect())
    }

    /// The id of a vocabulary token (exact match), or None.
    fn token_to_id(&self, token: &Bound<'_, PyString>) -> PyResult<Option<u32>> {
        let arg = TextArg::extract(token.as_any(), "token")?;
        Ok(self.inner.vocab().id(arg.bytes()?))
    }
}

/// Spans as the `[start, end]` pairs the offsets array holds: the same
/// vector, reinterpreted, where `(u32, u32)` is laid out as `[u32; 2]` (as
/// on every target so far, but Rust does not promise it; checked), else a
/// copy. The copy of a large batch's offsets (8 bytes a token, fresh pages
/// faulted in) was ~3 % of a two-thread bulk call with offsets.
fn span_pairs(spans: Vec<(u32, u32)>) -> PyResult<Vec<[u32; 2]>> {
    use std::mem::{align_of, size_of, transmute_copy, ManuallyDrop};
    let same_size = size_of::<(u32, u32)>() == size_of::<[u32; 2]>() && align_of::<(u32, u32)>() == align_of::<[u32; 2]>();
    // SAFETY: only run when both types have the same size (`transmute_copy`'s requirement).
    if same_size && unsafe { transmute_copy::<(u32, u32), [u32; 2]>(&(1, 2)) } == [1, 2] {
        let mut spans = ManuallyDrop::new(spans);
        // SAFETY: same size and alignment, so the allocation's layout (size x capacity, alignment) is the one a
        // `Vec<[u32; 2]>` of that capacity frees; the check above found field 0 at [0] and field 1 at [1], so
        // each `(start, end)` reads as `[start, end]`; every bit pattern is a valid u32.
        return Ok(unsafe { Vec::from_raw_parts(spans.as_mut_ptr().cast::<[u32; 2]>(), spans.len(), spans.capacity()) });
    }
    let mut pairs: Vec<[u32; 2]> = Vec::new();
    make_room(&mut pairs, spans.len(), "token offsets")?;
    pairs.extend(spans.iter().map(|&(a, b)| [a, b]));
    Ok(pairs)
}
