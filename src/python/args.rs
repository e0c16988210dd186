//! Argument conversion shared by the binding's classes: texts, batches,
//! Arrow arrays, arrays handed to NumPy, thread counts, options.

use crate::normalizer::Reference;
use crate::tokenizer::BasicOptions;
use crate::unicode;
use crate::room::make_room;
use crate::Error;
use pyo3::exceptions::{PyOverflowError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

/// A text argument as generalized UTF-8: `str` (lone surrogates kept, as
/// Python's "surrogatepass" encodes them) or `bytes` (decoded as UTF-8
/// ignoring invalid bytes, like Google's `convert_to_unicode`).
pub(super) enum TextArg<'py> {
    Str(Bound<'py, PyString>),
    Owned(Vec<u8>),
}

impl<'py> TextArg<'py> {
    pub(super) fn extract(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
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
    pub(super) fn for_reference(obj: &Bound<'py, PyAny>, reference: Reference) -> PyResult<Self> {
        if reference == Reference::Tokenizers {
            if let Ok(s) = obj.cast::<PyString>() {
                s.to_str()?;
            }
        }
        Self::extract(obj, "text")
    }

    pub(super) fn bytes(&self) -> PyResult<&[u8]> {
        match self {
            TextArg::Str(s) => Ok(s.to_str()?.as_bytes()),
            TextArg::Owned(b) => Ok(b),
        }
    }
}

/// `encode_batch`'s result: ids, row splits, offsets, rows holding added
/// tokens, token type ids (pairs), whether a pair could not be cut.
pub(super) type BatchArrays = (Array, Array, Option<Array>, Vec<u64>, Option<Array>, bool);

/// `encode_padded`'s result: width, ids, attention mask, offsets, lengths,
/// rows holding added tokens, token type ids (pairs), whether a pair could not be cut.
pub(super) type PaddedArrays = (usize, Array, Array, Option<Array>, Array, Vec<u64>, Option<Array>, bool);

#[path = "args_batch.rs"]
mod batch;
pub(super) use batch::{prefetch_object, BatchTexts};

/// Memory owned by Rust that NumPy adopts without a copy: `numpy.asarray`
/// reads `__array_interface__` and keeps this object alive as the array's
/// base. (A buffer-protocol class is not in Python 3.10's stable ABI.)
#[pyclass(frozen, module = "bertpiece._core", name = "Array")]
pub(super) struct Array {
    /// The `Vec` the address points into; never read again, only dropped.
    _data: Box<dyn std::any::Any + Send + Sync>,
    address: usize,
    typestr: &'static str,
    shape: Vec<usize>,
}

/// A block handed to the pool of blocks when dropped ([`Array::pooled`]).
struct Pooled(Vec<i64>);

impl Drop for Pooled {
    fn drop(&mut self) {
        crate::block_pool::BLOCKS.give_back(std::mem::take(&mut self.0));
    }
}

/// Element types of [`Array`]s, as NumPy type strings.
pub(super) trait Element: Send + Sync + 'static {
    /// Scalars per element (a `[T; 2]` adds a last dimension of 2).
    const WIDTH: usize = 1;
    const TYPESTR: &'static str;
}
pub(super) const LE: bool = cfg!(target_endian = "little");
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
    pub(super) fn new<T: Element>(mut data: Vec<T>, mut shape: Vec<usize>) -> PyResult<Self> {
        if shape.iter().product::<usize>() != data.len() {
            return Err(PyRuntimeError::new_err(format!("internal error: {} elements for shape {shape:?}", data.len())));
        }
        if T::WIDTH > 1 {
            shape.push(T::WIDTH);
        }
        Ok(Array { address: data.as_mut_ptr() as usize, _data: Box::new(data), typestr: T::TYPESTR, shape })
    }

    /// A padded block (`Batch::pad_stacked`'s) as an array of `shape`, given back to the
    /// pool of blocks (block_pool.rs) when the array and everything viewing it are gone.
    pub(super) fn pooled(mut block: Vec<i64>, shape: Vec<usize>) -> PyResult<Self> {
        if shape.iter().product::<usize>() != block.len() {
            return Err(PyRuntimeError::new_err(format!("internal error: {} elements for shape {shape:?}", block.len())));
        }
        Ok(Array { address: block.as_mut_ptr() as usize, _data: Box::new(Pooled(block)), typestr: i64::TYPESTR, shape })
    }

    /// Where the data starts.
    pub(super) fn address(&self) -> usize {
        self.address
    }
}

#[pymethods]
impl Array {
    /// NumPy's C-level interface (array_struct.rs), read first by `numpy.asarray`.
    #[getter]
    fn __array_struct__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        super::array_struct::capsule(py, self.address, self.typestr, &self.shape)
    }

    #[getter]
    pub(super) fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("shape", PyTuple::new(py, &self.shape)?)?;
        d.set_item("typestr", self.typestr)?;
        d.set_item("data", (self.address, false))?;
        d.set_item("version", 3)?;
        Ok(d)
    }
}

/// `num_threads` as given from Python: positive, or None for all usable
/// CPUs. More than the CPUs this process may use is capped there by the
/// core (with a RuntimeWarning): extra threads would only take turns.
pub(super) fn thread_count(py: Python<'_>, num_threads: Option<i64>) -> PyResult<Option<usize>> {
    match num_threads {
        Some(n) if n <= 0 => Err(Error::BadThreadCount(n).into()),
        Some(n) => {
            let cpus = crate::threads::usable_cpus();
            if n as u64 > cpus as u64 {
                let msg = format!("num_threads={n} is more than the {cpus} CPUs this process may use; using {cpus}");
                let msg = std::ffi::CString::new(msg).unwrap_or_default();
                PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyRuntimeWarning>(), &msg, 1)?;
            }
            Ok(Some(usize::try_from(n).unwrap_or(usize::MAX)))
        }
        None => Ok(None),
    }
}

/// A size argument (`max_length`, `pad_to_multiple_of`): None, or an int
/// from 0 to 2**64 - 1; anything else is an error that names the argument
/// as the caller knows it (`name`).
pub(super) fn size_arg(value: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<usize>> {
    let Some(v) = value.filter(|v| !v.is_none()) else { return Ok(None) };
    match v.extract::<usize>() {
        Ok(n) => Ok(Some(n)),
        Err(_) if v.extract::<i64>().is_ok_and(|n| n < 0) => Err(PyValueError::new_err(format!("{name} must be >= 0, got {v}"))),
        Err(_) if v.is_instance_of::<pyo3::types::PyInt>() => {
            Err(PyOverflowError::new_err(format!("{name}={v} is too large (at most {})", usize::MAX)))
        }
        Err(_) => Err(PyTypeError::new_err(format!("{name} must be an int or None, not {}", v.get_type().name()?))),
    }
}

/// `max_input_chars_per_word` as the references take it: any int. 0 and
/// below make every word the unknown token (as Google's and transformers'
/// `len(chars) > max` does); a value past i64 is no limit in effect (no word
/// is that long), as in both. HF tokenizers' WordPiece takes an unsigned
/// count, so with `reference="tokenizers"` a negative one is refused.
pub(super) fn max_chars_arg(value: Option<&Bound<'_, PyAny>>, reference: Reference) -> PyResult<Option<i64>> {
    const NAME: &str = "max_input_chars_per_word";
    let Some(v) = value.filter(|v| !v.is_none()) else { return Ok(None) };
    if !v.is_instance_of::<pyo3::types::PyInt>() {
        return Err(PyTypeError::new_err(format!("{NAME} must be an int or None, not {}", v.get_type().name()?)));
    }
    let n = match v.extract::<i64>() {
        Ok(n) => n,
        Err(_) if v.gt(0)? => i64::MAX,
        Err(_) => i64::MIN,
    };
    if n < 0 && reference == Reference::Tokenizers {
        return Err(PyValueError::new_err(format!(
            "{NAME} must be >= 0 with reference=\"tokenizers\" (HF tokenizers' WordPiece takes an unsigned count), got {v}"
        )));
    }
    Ok(Some(n))
}

pub(super) fn code_points(bytes: &[u8]) -> PyResult<Vec<u32>> {
    Ok(crate::room::code_points(bytes)?)
}

pub(super) fn token_set(items: Option<Vec<Bound<'_, PyAny>>>, what: &str) -> PyResult<Vec<Vec<u32>>> {
    items
        .unwrap_or_default()
        .iter()
        .map(|o| code_points(TextArg::extract(o, what)?.bytes()?))
        .collect()
}

/// Tokens produced off the GIL: one byte buffer plus the end of each token.
/// The buffers grow fallibly: the first allocation that fails is kept (and
/// later tokens dropped) for `into_list` to raise as MemoryError.
#[derive(Default)]
pub(super) struct Tokens {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    failed: Option<Error>,
}

impl Tokens {
    /// Room for a token of at most `bytes` bytes; false once out of memory.
    fn room(&mut self, bytes: usize) -> bool {
        if self.failed.is_none() {
            let made = make_room(&mut self.bytes, bytes, "tokens").and_then(|()| make_room(&mut self.ends, 1, "tokens"));
            self.failed = made.err();
        }
        self.failed.is_none()
    }

    pub(super) fn push_cps(&mut self, cps: &[u32]) {
        if self.room(cps.len() * 4) {
            unicode::encode_into(cps, &mut self.bytes);
            self.ends.push(self.bytes.len());
        }
    }

    pub(super) fn push(&mut self, token: &[u8]) {
        if self.room(token.len()) {
            self.bytes.extend_from_slice(token);
            self.ends.push(self.bytes.len());
        }
    }

    pub(super) fn into_list<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if let Some(e) = self.failed {
            return Err(e.into());
        }
        let mut start = 0;
        super::lists::new_list(py, self.ends.iter().map(|&end| {
            let token = &self.bytes[start..end];
            start = end;
            py_str(py, token)
        }))
    }
}

/// A Python str from generalized UTF-8 (surrogates only come from surrogate input).
pub(super) fn py_str<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(PyString::from_bytes(py, s.as_bytes())?.into_any()),
        Err(_) => PyBytes::new(py, bytes).call_method1("decode", ("utf-8", "surrogatepass")),
    }
}

pub(super) fn reference(name: &str) -> PyResult<Reference> {
    Ok(Reference::parse(name)?)
}

pub(super) fn basic_options(
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
