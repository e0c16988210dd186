//! Rows of text read in place: Arrow string chunks (zero-copy) and the UTF-8
//! check of rows that are not a str's own buffer.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// One chunk of an Arrow string array, as `bertpiece.batch` describes it
/// from pyarrow: `(data address, data length, offsets address, offset width
/// (4 or 8), first row, rows)`. The Python caller keeps the array alive for
/// the whole call; Arrow buffers are immutable.
pub(super) type ArrowChunk = (usize, usize, usize, u8, usize, usize);

/// The texts of Arrow string chunks, read in place (zero-copy). Offsets are
/// checked (monotonic, inside the data) before any slice is made.
pub(super) fn arrow_texts(chunks: &[ArrowChunk]) -> PyResult<Vec<&[u8]>> {
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

/// Each row checked as UTF-8 (rows that are not a str's own buffer: bytes, Arrow, "surrogatepass").
pub(super) fn utf8_rows<'a>(rows: &[&'a [u8]]) -> PyResult<Vec<&'a str>> {
    let check = |(k, b): (usize, &&'a [u8])| std::str::from_utf8(b).map_err(|e| PyValueError::new_err(format!("texts[{k}] is not valid UTF-8: {e}")));
    rows.iter().enumerate().map(check).collect()
}
