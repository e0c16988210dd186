//! Fallible allocation for buffers that grow with the input. Rust aborts the
//! process when an allocation fails; these make the room first (or build
//! the buffer) with `try_reserve` and return [`Error::OutOfMemory`] (a
//! Python `MemoryError`) instead. Buffers are sized to a bound of what the
//! input can give, so nothing reallocates after the check; a long text is
//! taken a [`segments`] at a time, so the room made follows the output
//! (a bound per segment) instead of a bound for the whole text up front.

use crate::{Error, Result};

/// The most tokens `text` (generalized UTF-8) can give, special tokens aside:
/// every token covers at least one code point, so at least one byte.
#[inline]
pub fn max_tokens(text: &[u8]) -> usize {
    text.len()
}

/// Bytes of text per segment (see [`segments`]).
#[cfg(not(test))]
pub const SEGMENT: usize = 1 << 20;
/// The unit tests' segments are small, so that texts of several segments are
/// cheap to compare with the unoptimized general path.
#[cfg(test)]
pub const SEGMENT: usize = 1 << 12;

/// `text` in pieces of at least [`SEGMENT`] bytes, each ending just before
/// an ASCII space or newline (the last one at the end of the text). No
/// reference's tokenization looks across an ASCII space or newline (both
/// end a word everywhere, and none is in a word), so a text's tokens are
/// its segments' tokens in order.
pub fn segments(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let cut = match rest.get(SEGMENT..).and_then(|tail| memchr::memchr2(b' ', b'\n', tail)) {
            Some(k) => SEGMENT + k,
            None => rest.len(),
        };
        let (seg, tail) = rest.split_at(cut);
        rest = tail;
        Some(seg)
    })
}

/// Room in `v` for `additional` more items without reallocating.
#[inline]
pub fn make_room<T>(v: &mut Vec<T>, additional: usize, what: &'static str) -> Result<()> {
    v.try_reserve(additional).map_err(|_| out_of_memory::<T>(additional, what))
}

/// `item` pushed onto `v`, grown fallibly (amortized, as `push` grows).
#[inline]
pub fn try_push<T>(v: &mut Vec<T>, item: T, what: &'static str) -> Result<()> {
    ensure_room(v, 1, what)?;
    v.push(item);
    Ok(())
}

/// A copy of `items` made fallibly, its capacity exactly their count (so
/// `into_boxed_slice` keeps the allocation).
pub fn try_copy<T: Copy>(items: &[T], what: &'static str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(items.len()).map_err(|_| out_of_memory::<T>(items.len(), what))?;
    v.extend_from_slice(items);
    Ok(v)
}

/// `items` collected into a vector grown fallibly (room for the iterator's
/// lower bound first, then doubling as needed).
pub fn try_collect<T>(items: impl IntoIterator<Item = T>, what: &'static str) -> Result<Vec<T>> {
    let items = items.into_iter();
    let mut v = Vec::new();
    make_room(&mut v, items.size_hint().0, what)?;
    for item in items {
        ensure_room(&mut v, 1, what)?; // amortized: doubles when full, as `push` does
        v.push(item);
    }
    Ok(v)
}

/// [`make_room`] for hot loops: the check inline, the growth out of line.
#[inline(always)]
pub fn ensure_room<T>(v: &mut Vec<T>, additional: usize, what: &'static str) -> Result<()> {
    if v.capacity() - v.len() >= additional {
        return Ok(());
    }
    grow_room(v, additional, what)
}

#[cold]
#[inline(never)]
fn grow_room<T>(v: &mut Vec<T>, additional: usize, what: &'static str) -> Result<()> {
    make_room(v, additional, what)
}

/// [`ensure_room`] for a string: room for `additional` more bytes.
#[inline(always)]
pub fn ensure_text_room(s: &mut String, additional: usize, what: &'static str) -> Result<()> {
    if s.capacity() - s.len() >= additional {
        return Ok(());
    }
    grow_text_room(s, additional, what)
}

#[cold]
#[inline(never)]
fn grow_text_room(s: &mut String, additional: usize, what: &'static str) -> Result<()> {
    s.try_reserve(additional).map_err(|_| out_of_memory::<u8>(additional, what))
}

/// `piece` appended to `s`, grown fallibly (amortized).
#[inline]
pub fn push_text(s: &mut String, piece: &str, what: &'static str) -> Result<()> {
    ensure_text_room(s, piece.len(), what)?;
    s.push_str(piece);
    Ok(())
}

/// `chars` as a string, its room made fallibly (a piece can be a whole text).
pub fn chars_text(chars: &[char], what: &'static str) -> Result<String> {
    let mut text = String::new();
    ensure_text_room(&mut text, chars.iter().map(|c| c.len_utf8()).sum(), what)?;
    text.extend(chars);
    Ok(text)
}

/// `n` zeroed items (fresh pages from the OS stay untouched until written).
pub fn zeroed<T: Zeroable>(n: usize, what: &'static str) -> Result<Vec<T>> {
    let layout = std::alloc::Layout::array::<T>(n).map_err(|_| out_of_memory::<T>(n, what))?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: a non-zero size; the null check below; all-zero bytes are a
    // valid `T` (Zeroable); a Vec of `n` items of this layout owns the block.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout).cast::<T>();
        if p.is_null() {
            return Err(out_of_memory::<T>(n, what));
        }
        Ok(Vec::from_raw_parts(p, n, n))
    }
}

/// The code points of generalized UTF-8 (`unicode::decode`, in a buffer
/// allocated fallibly); `InvalidText` when it is malformed.
pub fn code_points(text: &[u8]) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    make_room(&mut out, text.len(), "code points")?;
    let mut i = 0;
    while i < text.len() {
        let (cp, n) = crate::unicode::decode_one(&text[i..]).ok_or(Error::InvalidText)?;
        out.push(cp);
        i += n;
    }
    Ok(out)
}

/// Types for which all-zero bytes are a value (zero).
///
/// # Safety
/// All-zero bytes must be a valid value of the type.
pub unsafe trait Zeroable: Copy {}
unsafe impl Zeroable for u8 {}
unsafe impl Zeroable for u32 {}
unsafe impl Zeroable for u64 {}
unsafe impl Zeroable for usize {}
unsafe impl Zeroable for i64 {}

pub(crate) fn out_of_memory<T>(items: usize, what: &'static str) -> Error {
    Error::OutOfMemory { what, bytes: (items as u128) * std::mem::size_of::<T>() as u128 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_that_cannot_exist_is_an_error_not_an_abort() {
        let mut v: Vec<u64> = vec![1];
        let err = make_room(&mut v, usize::MAX / 4, "ids").unwrap_err();
        assert!(matches!(err, Error::OutOfMemory { what: "ids", .. }), "{err}");
        assert_eq!(v, [1]);
        assert!(matches!(zeroed::<u32>(usize::MAX / 2, "ids"), Err(Error::OutOfMemory { .. })));
        assert!(matches!(zeroed::<u32>(isize::MAX as usize / 4 - 8, "ids"), Err(Error::OutOfMemory { .. })));
    }

    #[test]
    fn segments_cut_before_a_space_or_newline_and_cover_the_text() {
        let mut text = Vec::new();
        while text.len() < 3 * SEGMENT {
            text.extend_from_slice("wörd Zeile\nx ".as_bytes());
        }
        let segs: Vec<&[u8]> = segments(&text).collect();
        assert!(segs.len() >= 3);
        assert_eq!(segs.concat(), text);
        for s in &segs[1..] {
            assert!(matches!(s[0], b' ' | b'\n'));
        }
        assert!(segs[..segs.len() - 1].iter().all(|s| s.len() >= SEGMENT));
        assert_eq!(segments(b"").count(), 0);
        let word = vec![b'a'; SEGMENT + 10];
        assert_eq!(segments(&word).collect::<Vec<_>>(), [&word[..]]);
    }

    #[test]
    fn room_that_exists_is_made_without_reallocation_later() {
        let mut v: Vec<u32> = Vec::new();
        make_room(&mut v, 1000, "ids").unwrap();
        let p = v.as_ptr();
        v.extend(0..1000);
        assert_eq!(v.as_ptr(), p);
        assert_eq!(zeroed::<u64>(5, "x").unwrap(), [0; 5]);
        assert!(zeroed::<u8>(0, "x").unwrap().is_empty());
        assert_eq!(code_points("aé中\u{1F600}".as_bytes()).unwrap(), crate::unicode::decode("aé中\u{1F600}".as_bytes()).unwrap());
        assert!(matches!(code_points(b"a\xFF"), Err(Error::InvalidText)));
    }
}
