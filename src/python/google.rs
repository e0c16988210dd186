//! Google's `BasicTokenizer`, `WordpieceTokenizer` and module functions
//! (`load_vocab`, `whitespace_tokenize`), plus test/bench hooks.

use super::args::*;
use crate::normalizer::Reference;
use crate::pre_tokenizer::split_whitespace;
use crate::room::segments;
use crate::tokenizer::{BasicTokenizer, TokenSet};
use crate::unicode;
use crate::vocab::Vocab;
use crate::wordpiece::WordPiece;
use crate::Error;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::path::PathBuf;
use std::sync::Arc;

/// Google's `BasicTokenizer` with transformers' options.
#[pyclass(frozen, module = "bertpiece._core", name = "BasicTokenizer")]
pub(super) struct PyBasicTokenizer {
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
            let mut out = Tokens::default();
            // A segment at a time: the general path's buffers stay small.
            for text in segments(bytes) {
                inner.tokenize(&code_points(text)?, extra.as_ref(), |t, _, _| out.push_cps(t));
            }
            Ok(out)
        })?;
        out.into_list(py)
    }
}

/// Google's `WordpieceTokenizer` over a set of tokens.
#[pyclass(frozen, module = "bertpiece._core", name = "WordpieceTokenizer")]
pub(super) struct PyWordpieceTokenizer {
    tokens: Arc<Vec<Vec<u8>>>,
    wordpiece: Arc<WordPiece>,
    unk_token: Vec<u8>,
}

#[pymethods]
impl PyWordpieceTokenizer {
    #[new]
    #[pyo3(signature = (tokens, unk_token, max_input_chars_per_word))]
    fn new(py: Python<'_>, tokens: Vec<Bound<'_, PyAny>>, unk_token: &Bound<'_, PyAny>, max_input_chars_per_word: &Bound<'_, PyAny>) -> PyResult<Self> {
        // Google's class: None is not a default here (its `len(chars) > None` fails).
        if max_input_chars_per_word.is_none() {
            return Err(PyTypeError::new_err("max_input_chars_per_word must be an int, not None"));
        }
        let max_input_chars_per_word = max_chars_arg(Some(max_input_chars_per_word), Reference::Google)?.unwrap_or(i64::MAX);
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
            let mut out = Tokens::default();
            let mut pieces = Vec::new();
            for text in segments(bytes) {
                let cps = code_points(text)?;
                for w in split_whitespace(&cps) {
                    if self.wordpiece.tokenize_word(&cps[w], &mut pieces) {
                        for (i, _) in pieces.drain(..) {
                            out.push(&self.tokens[i as usize]);
                        }
                    } else {
                        out.push(&self.unk_token);
                    }
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
pub(super) fn load_vocab<'py>(py: Python<'py>, vocab_file: PathBuf, reference: &str) -> PyResult<Bound<'py, PyList>> {
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
pub(super) fn whitespace_tokenize<'py>(py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
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
pub(super) fn _normalize<'py>(py: Python<'py>, form: &str, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
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
pub(super) fn _forget_words() {
    crate::word_cache::forget_all();
}
