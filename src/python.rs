//! The PyO3 binding, `bertpiece._core`. Everything Python-specific lives here:
//! argument conversion, the GIL, and the mapping of core errors to exceptions.
//! Classes are frozen and hold an `Arc` of an immutable core object, so one
//! instance is shared across threads without locks.

use crate::batch::{encode_batch, encode_pairs, thread_pool_install, Batch, BatchOptions, Padded, PairTruncation, Padding};
use crate::encoder::with_thread_scratch;
use crate::normalizer::Reference;
use crate::pre_tokenizer::split_whitespace;
use crate::tokenizer::{BasicOptions, BasicTokenizer, FullOptions, FullTokenizer, TokenSet};
use crate::unicode;
use crate::vocab::Vocab;
use crate::wordpiece::WordPiece;
use crate::Error;
use pyo3::exceptions::{PyFileNotFoundError, PyKeyError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use std::path::PathBuf;
use std::sync::Arc;

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        let msg = e.to_string();
        match e {
            Error::VocabNotFound { path } => {
                PyFileNotFoundError::new_err((2, msg, path.to_string_lossy().into_owned()))
            }
            Error::VocabIo { .. } => PyOSError::new_err(msg),
            Error::VocabNotUtf8 { .. }
            | Error::MissingUnkToken { .. }
            | Error::InvalidText
            | Error::UnknownReference(_)
            | Error::UnsupportedOption(_)
            | Error::PairCount { .. }
            | Error::BadThreadCount(_) => PyValueError::new_err(msg),
            Error::ThreadPool(_) => PyRuntimeError::new_err(msg),
        }
    }
}

/// A text argument as generalized UTF-8: `str` (lone surrogates kept, as
/// Python's "surrogatepass" encodes them) or `bytes` (decoded as UTF-8
/// ignoring invalid bytes, like Google's `convert_to_unicode`).
enum TextArg<'py> {
    Str(Bound<'py, PyString>),
    Owned(Vec<u8>),
}

impl<'py> TextArg<'py> {
    fn extract(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
        if let Ok(s) = obj.cast::<PyString>() {
            if s.to_str().is_ok() {
                return Ok(TextArg::Str(s.clone()));
            }
            PyErr::take(obj.py()); // the UnicodeEncodeError from a lone surrogate
            let b = s.call_method1("encode", ("utf-8", "surrogatepass"))?;
            return Ok(TextArg::Owned(b.cast::<PyBytes>()?.as_bytes().to_vec()));
        }
        if let Ok(b) = obj.cast::<PyBytes>() {
            let s = b.call_method1("decode", ("utf-8", "ignore"))?;
            return Ok(TextArg::Owned(s.cast::<PyString>()?.to_str()?.as_bytes().to_vec()));
        }
        let ty = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        Err(PyTypeError::new_err(format!("{what} must be str or bytes, not {ty}")))
    }

    /// A text argument for a tokenizer of `reference`. HF tokenizers cannot
    /// take lone surrogates (its binding raises UnicodeEncodeError), so in
    /// that mode neither do we.
    fn for_reference(obj: &Bound<'py, PyAny>, reference: Reference) -> PyResult<Self> {
        if reference == Reference::Tokenizers {
            if let Ok(s) = obj.cast::<PyString>() {
                s.to_str()?;
            }
        }
        Self::extract(obj, "text")
    }

    fn bytes(&self) -> PyResult<&[u8]> {
        match self {
            TextArg::Str(s) => Ok(s.to_str()?.as_bytes()),
            TextArg::Owned(b) => Ok(b),
        }
    }
}

/// `encode_batch`'s result: ids, row splits, offsets, rows holding added
/// tokens, token type ids (pairs), whether a pair could not be cut.
type BatchArrays = (Array, Array, Option<Array>, Vec<u64>, Option<Array>, bool);

/// `encode_padded`'s result: width, ids, attention mask, offsets, lengths,
/// rows holding added tokens, token type ids (pairs), whether a pair could not be cut.
type PaddedArrays = (usize, Array, Array, Option<Array>, Array, Vec<u64>, Option<Array>, bool);

/// A batch's texts as UTF-8, each item read once. A str's UTF-8 is CPython's
/// own, cached inside the object (held in `items`; strs are immutable); a str
/// with lone surrogates is encoded into `owned` ("surrogatepass").
struct BatchTexts<'py> {
    items: Vec<Bound<'py, PyAny>>,
    owned: Vec<Vec<u8>>,
    spans: Vec<(*const u8, usize)>,
}

impl<'py> BatchTexts<'py> {
    /// Every item must be a str (`TypeError` naming the first that is not,
    /// as `what[k]`). HF tokenizers cannot take lone surrogates (its binding
    /// raises UnicodeEncodeError), so for that reference neither do we.
    fn read(texts: &Bound<'py, PyAny>, reference: Reference, what: &str) -> PyResult<Self> {
        let n = texts.len().unwrap_or(0);
        let mut out = BatchTexts { items: Vec::with_capacity(n), owned: Vec::new(), spans: Vec::with_capacity(n) };
        let mut add = |k: usize, item: Bound<'py, PyAny>| -> PyResult<()> {
            let Ok(s) = item.cast::<PyString>() else {
                let ty = item.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
                return Err(PyTypeError::new_err(format!("{what}[{k}] must be str, not {ty}")));
            };
            match s.to_str() {
                Ok(text) => out.spans.push((text.as_ptr(), text.len())),
                Err(e) if reference == Reference::Tokenizers => return Err(e),
                Err(_) => {
                    let b = s.call_method1("encode", ("utf-8", "surrogatepass"))?;
                    out.owned.push(b.cast::<PyBytes>()?.as_bytes().to_vec());
                    let b = &out.owned[out.owned.len() - 1];
                    out.spans.push((b.as_ptr(), b.len())); // a Vec's heap buffer stays put as `owned` grows
                }
            }
            out.items.push(item);
            Ok(())
        };
        if let Ok(list) = texts.cast::<PyList>() {
            for (k, item) in list.iter().enumerate() {
                add(k, item)?;
            }
        } else if let Ok(tuple) = texts.cast::<PyTuple>() {
            for (k, item) in tuple.iter().enumerate() {
                add(k, item)?;
            }
        } else {
            for (k, item) in texts.try_iter()?.enumerate() {
                add(k, item?)?;
            }
        }
        Ok(out)
    }

    fn slices(&self) -> Vec<&[u8]> {
        let _ = (&self.items, &self.owned); // what the spans point into
        // SAFETY: each span is a str's UTF-8 buffer or an `owned` buffer; both
        // live (and stay unchanged) as long as `self`, and so do the slices.
        self.spans.iter().map(|&(p, n)| if n == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(p, n) } }).collect()
    }
}

/// Memory owned by Rust that NumPy adopts without a copy: `numpy.asarray`
/// reads `__array_interface__` and keeps this object alive as the array's
/// base. (A buffer-protocol class is not in Python 3.10's stable ABI.)
#[pyclass(frozen, module = "bertpiece._core", name = "Array")]
struct Array {
    /// The `Vec` the address points into; never read again, only dropped.
    _data: Box<dyn std::any::Any + Send + Sync>,
    address: usize,
    typestr: &'static str,
    shape: Vec<usize>,
}

/// Element types of [`Array`]s, as NumPy type strings.
trait Element: Send + Sync + 'static {
    /// Scalars per element (a `[T; 2]` adds a last dimension of 2).
    const WIDTH: usize = 1;
    const TYPESTR: &'static str;
}
const LE: bool = cfg!(target_endian = "little");
impl Element for u8 {
    const TYPESTR: &'static str = "|u1";
}
impl Element for u32 {
    // ids: below 2^31 (vocabulary sizes), int32 as transformers' "np" tensors are not: see batch.py
    const TYPESTR: &'static str = if LE { "<i4" } else { ">i4" };
}
impl Element for u64 {
    const TYPESTR: &'static str = if LE { "<i8" } else { ">i8" };
}
impl Element for i64 {
    const TYPESTR: &'static str = if LE { "<i8" } else { ">i8" };
}
impl<T: Element> Element for [T; 2] {
    const WIDTH: usize = 2;
    const TYPESTR: &'static str = T::TYPESTR;
}

impl Array {
    /// `data` as an array of `shape`, which must hold `data.len()` elements
    /// (checked: NumPy would read past the data otherwise).
    fn new<T: Element>(mut data: Vec<T>, mut shape: Vec<usize>) -> PyResult<Self> {
        if shape.iter().product::<usize>() != data.len() {
            return Err(PyRuntimeError::new_err(format!("internal error: {} elements for shape {shape:?}", data.len())));
        }
        if T::WIDTH > 1 {
            shape.push(T::WIDTH);
        }
        Ok(Array { address: data.as_mut_ptr() as usize, _data: Box::new(data), typestr: T::TYPESTR, shape })
    }
}

#[pymethods]
impl Array {
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("shape", PyTuple::new(py, &self.shape)?)?;
        d.set_item("typestr", self.typestr)?;
        d.set_item("data", (self.address, false))?;
        d.set_item("version", 3)?;
        Ok(d)
    }
}

/// `num_threads` as given from Python: positive, or None for all cores.
fn thread_count(num_threads: Option<i64>) -> PyResult<Option<usize>> {
    match num_threads {
        Some(n) if n <= 0 => Err(Error::BadThreadCount(n).into()),
        Some(n) => Ok(Some(n as usize)),
        None => Ok(None),
    }
}

/// One chunk of an Arrow string array, as `bertpiece.batch` describes it
/// from pyarrow: `(data address, data length, offsets address, offset width
/// (4 or 8), first row, rows)`. The Python caller keeps the array alive for
/// the whole call; Arrow buffers are immutable.
type ArrowChunk = (usize, usize, usize, u8, usize, usize);

/// The texts of Arrow string chunks, read in place (zero-copy). Offsets are
/// checked (monotonic, inside the data) before any slice is made.
fn arrow_texts(chunks: &[ArrowChunk]) -> PyResult<Vec<&[u8]>> {
    let mut out = Vec::with_capacity(chunks.iter().map(|c| c.5).sum());
    for &(data, data_len, offsets, width, first, rows) in chunks {
        if rows == 0 {
            continue;
        }
        if data == 0 && data_len != 0 || offsets == 0 || !(width == 4 || width == 8) {
            return Err(PyValueError::new_err("malformed Arrow string array"));
        }
        // SAFETY: the addresses and lengths come from live pyarrow buffers (see ArrowChunk).
        let data: &[u8] = if data_len == 0 { &[] } else { unsafe { std::slice::from_raw_parts(data as *const u8, data_len) } };
        let at = |k: usize| -> i64 {
            let p = offsets + (first + k) * width as usize;
            // SAFETY: offsets buffers hold first + rows + 1 entries (checked by the caller against the buffer size).
            unsafe {
                if width == 4 {
                    (p as *const i32).read_unaligned() as i64
                } else {
                    (p as *const i64).read_unaligned()
                }
            }
        };
        let mut start = at(0);
        for k in 0..rows {
            let end = at(k + 1);
            if start < 0 || end < start || end as usize > data.len() {
                return Err(PyValueError::new_err(format!("malformed Arrow string array: bad offsets at row {k}")));
            }
            out.push(&data[start as usize..end as usize]);
            start = end;
        }
    }
    Ok(out)
}

fn code_points(bytes: &[u8]) -> PyResult<Vec<u32>> {
    unicode::decode(bytes).ok_or_else(|| Error::InvalidText.into())
}

fn token_set(items: Option<Vec<Bound<'_, PyAny>>>, what: &str) -> PyResult<Vec<Vec<u32>>> {
    items
        .unwrap_or_default()
        .iter()
        .map(|o| code_points(TextArg::extract(o, what)?.bytes()?))
        .collect()
}

/// Tokens produced off the GIL: one byte buffer plus the end of each token.
#[derive(Default)]
struct Tokens {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Tokens {
    fn push_cps(&mut self, cps: &[u32]) {
        unicode::encode_into(cps, &mut self.bytes);
        self.ends.push(self.bytes.len());
    }

    fn into_list<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut start = 0;
        let mut items = Vec::with_capacity(self.ends.len());
        for &end in &self.ends {
            items.push(py_str(py, &self.bytes[start..end])?);
            start = end;
        }
        PyList::new(py, items)
    }
}

/// A Python str from generalized UTF-8 (surrogates only come from surrogate input).
fn py_str<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(PyString::new(py, s).into_any()),
        Err(_) => PyBytes::new(py, bytes).call_method1("decode", ("utf-8", "surrogatepass")),
    }
}

fn reference(name: &str) -> PyResult<Reference> {
    Ok(Reference::parse(name)?)
}

fn basic_options(
    do_lower_case: bool,
    never_split: Option<Vec<Bound<'_, PyAny>>>,
    tokenize_chinese_chars: bool,
    strip_accents: Option<bool>,
    do_split_on_punc: bool,
    reference_name: &str,
) -> PyResult<BasicOptions> {
    Ok(BasicOptions {
        do_lower_case,
        strip_accents,
        tokenize_chinese_chars,
        do_split_on_punc,
        reference: reference(reference_name)?,
        never_split: token_set(never_split, "never_split entries")?,
    })
}

/// Google's `FullTokenizer` over a vocab.txt file.
#[pyclass(frozen, module = "bertpiece._core", name = "FullTokenizer")]
struct PyFullTokenizer {
    inner: Arc<FullTokenizer>,
}

impl PyFullTokenizer {
    /// What `encode_batch` and `encode_padded` share: the texts (or Arrow
    /// chunks, or pairs of texts) encoded without the GIL, padded when asked,
    /// and the rows that hold one of the `added` strings.
    #[allow(clippy::too_many_arguments)]
    fn run_batch(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        pairs: Option<&Bound<'_, PyAny>>,
        opts: BatchOptions,
        num_threads: Option<i64>,
        arrow: Option<Vec<ArrowChunk>>,
        added: Option<Vec<String>>,
        padding: Option<Padding>,
    ) -> PyResult<(Batch, Option<Padded>)> {
        let threads = thread_count(num_threads)?;
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
        let needles: Vec<&[u8]> = added.iter().flatten().map(|a| a.as_bytes()).collect();
        let inner = &self.inner;
        py.detach(|| -> PyResult<_> {
            let batch = match &second_bytes {
                None => encode_batch(inner, &bytes, opts, &needles, threads)?,
                Some(b) => encode_pairs(inner, &bytes, b, opts, &needles, threads)?,
            };
            let padded = match padding {
                Some(p) => Some(thread_pool_install(threads, || batch.pad(&p))?),
                None => None,
            };
            Ok((batch, padded))
        })
    }
}

/// A pair truncation strategy by transformers' name.
fn pair_truncation(name: &str) -> PyResult<PairTruncation> {
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
        max_input_chars_per_word: Option<i64>,
        unk_token: &str,
    ) -> PyResult<Self> {
        let basic = basic_options(do_lower_case, never_split, tokenize_chinese_chars, strip_accents, do_split_on_punc, reference)?;
        let opts = FullOptions { basic, unk_token: unk_token.to_owned(), max_input_chars_per_word, preserve_unused_tokens };
        let inner = py.detach(|| FullTokenizer::from_file(&vocab_file, opts))?;
        Ok(PyFullTokenizer { inner: Arc::new(inner) })
    }

    /// Tokens of `text` (str or UTF-8 bytes).
    fn tokenize<'py>(&self, py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let arg = TextArg::for_reference(text, self.inner.basic().options().reference)?;
        let bytes = arg.bytes()?;
        let inner = &self.inner;
        let out = py.detach(|| -> PyResult<Tokens> {
            let cps = code_points(bytes)?;
            let mut out = Tokens::default();
            inner.tokenize(&cps, |t| {
                inner.piece_bytes(t.piece, &mut out.bytes);
                out.ends.push(out.bytes.len());
            });
            Ok(out)
        })?;
        out.into_list(py)
    }

    /// Token ids of `text`; a `never_split` token missing from the vocabulary raises KeyError.
    fn encode(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
        let arg = TextArg::for_reference(text, self.inner.basic().options().reference)?;
        let bytes = arg.bytes()?;
        let inner = &self.inner;
        let result = py.detach(|| -> PyResult<Result<Vec<u32>, Vec<u8>>> {
            if inner.is_one_pass() {
                let mut ids = Vec::with_capacity(bytes.len() / 4 + 1);
                with_thread_scratch(|s| inner.encode_into(bytes, &mut ids, s))?;
                return Ok(Ok(ids));
            }
            let cps = code_points(bytes)?;
            let mut ids = Vec::new();
            let mut missing: Option<Vec<u8>> = None;
            let mut raw = Vec::new();
            inner.tokenize(&cps, |t| match inner.piece_id(t.piece, &mut raw) {
                Some(id) => ids.push(id),
                None => {
                    missing.get_or_insert_with(|| raw.clone());
                }
            });
            Ok(missing.map_or(Ok(ids), Err))
        })?;
        result.map_err(|token| match py_str(py, &token) {
            Ok(t) => PyKeyError::new_err(t.unbind()),
            Err(e) => e,
        })
    }

    /// Ids, `(start, end)` code-point offsets into `text`, and the word index
    /// of each token. A token that is not in the vocabulary (a `never_split`
    /// entry) gets the unknown token's id, as transformers does.
    #[allow(clippy::type_complexity)]
    fn encode_offsets(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<(Vec<u32>, Vec<(u32, u32)>, Vec<u32>)> {
        let arg = TextArg::for_reference(text, self.inner.basic().options().reference)?;
        let bytes = arg.bytes()?;
        let inner = &self.inner;
        py.detach(|| {
            let cps = code_points(bytes)?;
            let (mut ids, mut offsets, mut words) = (Vec::new(), Vec::new(), Vec::new());
            let mut raw = Vec::new();
            inner.tokenize(&cps, |t| {
                ids.push(inner.piece_id(t.piece, &mut raw).unwrap_or(inner.unk_id()));
                offsets.push(t.span);
                words.push(t.word);
            });
            Ok((ids, offsets, words))
        })
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
        max_length: Option<usize>,
        return_offsets: bool,
        num_threads: Option<i64>,
        arrow: Option<Vec<ArrowChunk>>,
        added: Option<Vec<String>>,
        pairs: Option<Bound<'py, PyAny>>,
        pair_truncation: &str,
    ) -> PyResult<BatchArrays> {
        let opts = BatchOptions { special, max_length, offsets: return_offsets, pair: self::pair_truncation(pair_truncation)? };
        let (batch, _) = self.run_batch(py, texts, pairs.as_ref(), opts, num_threads, arrow, added, None)?;
        let n = batch.ids.len();
        let offsets = match return_offsets {
            true => Some(Array::new(batch.offsets.iter().map(|&(a, b)| [a, b]).collect::<Vec<[u32; 2]>>(), vec![n])?),
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
        max_length: Option<usize>,
        pad_to: Option<usize>,
        pad_to_multiple_of: Option<usize>,
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
        let opts = BatchOptions { special, max_length, offsets: return_offsets, pair: self::pair_truncation(pair_truncation)? };
        let padding = Padding { to: pad_to, multiple_of: pad_to_multiple_of, pad_id, pad_type_id, left: padding_left };
        let (batch, padded) = self.run_batch(py, texts, pairs.as_ref(), opts, num_threads, arrow, added, Some(padding))?;
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
        max_input_chars_per_word: Option<i64>,
        unk_token: &str,
    ) -> PyResult<Self> {
        let mut pairs = Vec::with_capacity(entries.len());
        for (token, id) in &entries {
            pairs.push((TextArg::extract(token, "vocabulary tokens")?.bytes()?.to_vec(), *id));
        }
        let basic = basic_options(do_lower_case, never_split, tokenize_chinese_chars, strip_accents, do_split_on_punc, reference)?;
        let opts = FullOptions { basic, unk_token: unk_token.to_owned(), max_input_chars_per_word, preserve_unused_tokens };
        let inner = py.detach(|| FullTokenizer::new(Vocab::from_pairs(pairs), opts))?;
        Ok(PyFullTokenizer { inner: Arc::new(inner) })
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

    /// The id of a vocabulary token (exact match), or None.
    fn token_to_id(&self, token: &Bound<'_, PyString>) -> PyResult<Option<u32>> {
        let arg = TextArg::extract(token.as_any(), "token")?;
        Ok(self.inner.vocab().id(arg.bytes()?))
    }
}

/// Google's `BasicTokenizer` with transformers' options.
#[pyclass(frozen, module = "bertpiece._core", name = "BasicTokenizer")]
struct PyBasicTokenizer {
    inner: Arc<BasicTokenizer>,
}

#[pymethods]
impl PyBasicTokenizer {
    #[new]
    #[pyo3(signature = (do_lower_case=true, *, reference="google", never_split=None,
        tokenize_chinese_chars=true, strip_accents=None, do_split_on_punc=true, preserve_unused=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        do_lower_case: bool,
        reference: &str,
        never_split: Option<Vec<Bound<'_, PyAny>>>,
        tokenize_chinese_chars: bool,
        strip_accents: Option<bool>,
        do_split_on_punc: bool,
        preserve_unused: Option<Vec<Bound<'_, PyAny>>>,
    ) -> PyResult<Self> {
        let opts = basic_options(do_lower_case, never_split, tokenize_chinese_chars, strip_accents, do_split_on_punc, reference)?;
        let tokenizers = opts.reference == Reference::Tokenizers;
        let mut inner = BasicTokenizer::new(opts)?;
        if let Some(tokens) = preserve_unused {
            if tokenizers {
                return Err(Error::UnsupportedOption("preserve_unused_tokens").into());
            }
            let mut pairs = Vec::with_capacity(tokens.len());
            for (i, t) in tokens.iter().enumerate() {
                pairs.push((TextArg::extract(t, "vocabulary tokens")?.bytes()?.to_vec(), i as u32));
            }
            inner = inner.preserve_unused_tokens(&Vocab::from_pairs(pairs));
        }
        Ok(PyBasicTokenizer { inner: Arc::new(inner) })
    }

    #[pyo3(signature = (text, never_split=None))]
    fn tokenize<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
        never_split: Option<Vec<Bound<'py, PyAny>>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let arg = TextArg::for_reference(text, self.inner.options().reference)?;
        let bytes = arg.bytes()?;
        let extra: Option<TokenSet> = match never_split {
            Some(items) => Some(token_set(Some(items), "never_split entries")?.into_iter().collect()),
            None => None,
        };
        let inner = &self.inner;
        let out = py.detach(|| -> PyResult<Tokens> {
            let cps = code_points(bytes)?;
            let mut out = Tokens::default();
            inner.tokenize(&cps, extra.as_ref(), |t, _, _| out.push_cps(t));
            Ok(out)
        })?;
        out.into_list(py)
    }
}

/// Google's `WordpieceTokenizer` over a set of tokens.
#[pyclass(frozen, module = "bertpiece._core", name = "WordpieceTokenizer")]
struct PyWordpieceTokenizer {
    tokens: Arc<Vec<Vec<u8>>>,
    wordpiece: Arc<WordPiece>,
    unk_token: Vec<u8>,
}

#[pymethods]
impl PyWordpieceTokenizer {
    #[new]
    #[pyo3(signature = (tokens, unk_token, max_input_chars_per_word))]
    fn new(py: Python<'_>, tokens: Vec<Bound<'_, PyAny>>, unk_token: &Bound<'_, PyAny>, max_input_chars_per_word: i64) -> PyResult<Self> {
        let mut owned = Vec::with_capacity(tokens.len());
        for t in &tokens {
            owned.push(TextArg::extract(t, "vocabulary tokens")?.bytes()?.to_vec());
        }
        let unk_token = TextArg::extract(unk_token, "unk_token")?.bytes()?.to_vec();
        let wordpiece = py.detach(|| {
            let refs: Vec<&[u8]> = owned.iter().map(|t| t.as_slice()).collect();
            WordPiece::new(&refs, max_input_chars_per_word)
        });
        Ok(PyWordpieceTokenizer { tokens: Arc::new(owned), wordpiece: Arc::new(wordpiece), unk_token })
    }

    /// WordPiece of each `str.split()` token of `text`.
    fn tokenize<'py>(&self, py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let arg = TextArg::extract(text, "text")?;
        let bytes = arg.bytes()?;
        let out = py.detach(|| -> PyResult<Tokens> {
            let cps = code_points(bytes)?;
            let mut out = Tokens::default();
            let mut pieces = Vec::new();
            for w in split_whitespace(&cps) {
                if self.wordpiece.tokenize_word(&cps[w], &mut pieces) {
                    for (i, _) in pieces.drain(..) {
                        out.bytes.extend_from_slice(&self.tokens[i as usize]);
                        out.ends.push(out.bytes.len());
                    }
                } else {
                    out.bytes.extend_from_slice(&self.unk_token);
                    out.ends.push(out.bytes.len());
                }
            }
            Ok(out)
        })?;
        out.into_list(py)
    }
}

/// `load_vocab` as `(token, id)` pairs in order.
#[pyfunction]
#[pyo3(signature = (vocab_file, reference="google"))]
fn load_vocab<'py>(py: Python<'py>, vocab_file: PathBuf, reference: &str) -> PyResult<Bound<'py, PyList>> {
    let r = self::reference(reference)?;
    let vocab = py.detach(|| Vocab::from_file(&vocab_file, r))?;
    let mut items = Vec::with_capacity(vocab.len());
    for (token, id) in vocab.entries() {
        items.push((py_str(py, token)?, *id));
    }
    PyList::new(py, items)
}

/// `text.strip().split()` with the pinned `str.isspace()` table.
#[pyfunction]
fn whitespace_tokenize<'py>(py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let arg = TextArg::extract(text, "text")?;
    let cps = code_points(arg.bytes()?)?;
    let mut out = Tokens::default();
    for r in split_whitespace(&cps) {
        out.push_cps(&cps[r]);
    }
    out.into_list(py)
}

/// NFC / NFD with the core's own tables (exposed for the test suite).
#[pyfunction]
fn _normalize<'py>(py: Python<'py>, form: &str, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let arg = TextArg::extract(text, "text")?;
    let cps = code_points(arg.bytes()?)?;
    let out = match form {
        "NFC" => unicode::nfc(&cps),
        "NFD" => {
            let mut v = Vec::new();
            unicode::nfd_into(&cps, &mut v);
            v
        }
        _ => return Err(PyValueError::new_err(format!("unsupported form {form:?}: expected \"NFC\" or \"NFD\""))),
    };
    let mut bytes = Vec::new();
    unicode::encode_into(&out, &mut bytes);
    py_str(py, &bytes)
}

/// Every thread's word memo forgets its words (benchmarks time unseen text with it).
#[pyfunction]
fn _forget_words() {
    crate::word_cache::forget_all();
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("UNICODE_VERSION", unicode::UNICODE_VERSION)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<PyFullTokenizer>()?;
    m.add_class::<PyBasicTokenizer>()?;
    m.add_class::<PyWordpieceTokenizer>()?;
    m.add_class::<Array>()?;
    m.add_function(wrap_pyfunction!(load_vocab, m)?)?;
    m.add_function(wrap_pyfunction!(whitespace_tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(_normalize, m)?)?;
    m.add_function(wrap_pyfunction!(_forget_words, m)?)?;
    Ok(())
}
