//! tokenizer.json text rewritten without a parse into Python objects: the two
//! passes `bertpiece.Tokenizer` makes over a whole file (a 250k-piece Unigram
//! is 16 MB), done here for speed, each the exact equivalent of the Python it
//! replaces in python/bertpiece/tokenizers_api/serialization.py (which keeps
//! that Python as the fallback for anything these passes refuse).
//!
//! - `exact_float_literals` (loading from HF's in-memory tokenizer, whose
//!   floats are exact Python floats): every float literal that serde_json
//!   would read an ulp off is replaced by one it reads exactly.
//! - `top_level_values` (`to_str`/`save`): the values of some top-level keys
//!   written as Python's `json.dumps` writes them (compact, or `indent=2` at
//!   nesting level 1, non-ASCII as is), every float as serde_json reads it and
//!   in serde_json's notation (tokenizers 0.23.3's bytes).

use crate::{Error, Result};

/// serde_json's own nesting limit: deeper text never got past the core's parse.
const MAX_DEPTH: usize = 128;

pub(crate) fn malformed(what: &str, at: usize) -> Error {
    Error::Config(format!("tokenizer.json: {what} at byte {at}"))
}

/// The f64 serde_json (without `float_roundtrip`, as the core and tokenizers
/// build it) reads from a JSON number: not always the nearest to the text.
fn serde_read(literal: &str) -> Option<f64> {
    crate::json_number::serde_f64(literal.as_bytes()).or_else(|| serde_json::from_str::<f64>(literal).ok())
}

/// The end of the JSON string starting at `start` (a `"`): the byte after its closing quote.
fn string_end(b: &[u8], start: usize) -> Result<usize> {
    string_end_and_escapes(b, start).map(|(end, _)| end)
}

/// `string_end`, and whether the string holds an escape.
fn string_end_and_escapes(b: &[u8], start: usize) -> Result<(usize, bool)> {
    let mut i = start + 1;
    let mut escapes = false;
    loop {
        match memchr::memchr2(b'"', b'\\', b.get(i..).unwrap_or_default()) {
            None => return Err(malformed("unterminated string", start)),
            Some(k) if b[i + k] == b'"' => return Ok((i + k + 1, escapes)),
            Some(k) => {
                i += k + 2; // the escaped byte is never the closing quote
                escapes = true;
            }
        }
    }
}

fn number_end(b: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
        i += 1;
    }
    i
}

fn is_float(literal: &str) -> bool {
    literal.bytes().any(|c| matches!(c, b'.' | b'e' | b'E'))
}

/// `text` with each float literal serde_json would not read as the nearest
/// f64 to it (Python's `float()`, which `str::parse` matches: both correctly
/// rounded) replaced by one it reads exactly (`json_exact_float`), or where
/// that search cannot run in u128, by `fallback(literal)` (Python's
/// `serde_exact_literal`); everything else byte for byte as given.
pub fn exact_float_literals(text: &str, fallback: &mut dyn FnMut(&str) -> Result<String>) -> Result<String> {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 64);
    let (mut copied, mut i) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'"' => i = string_end(b, i)?,
            b'-' | b'0'..=b'9' => {
                let end = number_end(b, i);
                let literal = &text[i..end];
                if is_float(literal) {
                    let nearest = literal.parse::<f64>().map_err(|_| malformed("invalid number", i))?;
                    let read = serde_read(literal);
                    if !(nearest.is_finite() && read.map(f64::to_bits) == Some(nearest.to_bits())) {
                        out.push_str(&text[copied..i]);
                        match crate::json_exact_float::exact_literal(nearest) {
                            Some(Some(exact)) => out.push_str(&exact),
                            Some(None) => write_float(&mut out, nearest), // none exists: repr's digits, as Python
                            None => out.push_str(&fallback(literal)?),
                        }
                        copied = end;
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    Ok(out)
}

/// `x` as Python's `repr` writes it, then serde_json's notation where the two
/// differ (serialization.py's `_serde_exponent`): `0.00001..` plainly, no
/// exponent padding (`1e-7`, `1e+16`). `repr`'s digits: as few as round-trip
/// (the count Rust's `{:e}` gives), the nearest of that many to `x`, a tie to
/// the even digit -- Rust's exact `{:.N$e}`; its shortest mode breaks such a
/// tie upward (1743154999700591.25: `repr` ...591.2, `{:e}` ...591.3).
fn write_float(out: &mut String, x: f64) {
    let shortest = format!("{:e}", x.abs());
    let count = shortest.split('e').next().unwrap_or("").bytes().filter(u8::is_ascii_digit).count();
    // A tie needs the double spacing at x to reach the count-th digit's unit: count >= 16 (10**count > 2**52).
    let sci = if count >= 16 { format!("{:.*e}", count - 1, x.abs()) } else { shortest };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let decpt = exp + 1; // x = 0.digits * 10**decpt
    if x.is_sign_negative() {
        out.push('-');
    }
    if (-3..=16).contains(&decpt) {
        if decpt <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-decpt) as usize));
            out.push_str(&digits);
        } else if decpt as usize >= digits.len() {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', decpt as usize - digits.len()));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..decpt as usize]);
            out.push('.');
            out.push_str(&digits[decpt as usize..]);
        }
    } else if decpt == -4 {
        out.push_str("0.0000"); // serde_json writes 1e-5..1e-4 plainly
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push_str(if exp < 0 { "e-" } else { "e+" });
        out.push_str(&exp.unsigned_abs().to_string());
    }
}

/// `x` (finite) as serde_json writes it, which is how tokenizers writes its
/// floats: the shortest digits that read back as `x`, a tie to the even digit,
/// the same notation as `write_float` (tests/test_serialize_core_pass.py holds
/// the two equal on random f64 and on ties, and both equal to tokenizers').
/// Its formatter is a few times faster than `write_float`'s exact formatting.
fn write_serde_float(out: &mut String, x: f64) {
    use serde_json::ser::Formatter;
    let mut buf = [0u8; 40]; // the longest f64 it writes is 24 bytes
    let mut rest = &mut buf[..];
    let written = serde_json::ser::CompactFormatter.write_f64(&mut rest, x).map(|_| 40 - rest.len());
    match written.map(|n| std::str::from_utf8(&buf[..n])) {
        Ok(Ok(s)) => out.push_str(s),
        _ => write_float(out, x),
    }
}

/// Python's `json.dumps(..., ensure_ascii=False)` escapes of a string's content.
pub(crate) fn write_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
}

pub(crate) struct Writer<'a> {
    pub(crate) text: &'a str,
    pub(crate) out: String,
    pub(crate) pretty: bool,
}

impl Writer<'_> {
    pub(crate) fn skip_ws(&self, mut i: usize) -> usize {
        let b = self.text.as_bytes();
        // a pretty file's indentation, 8 spaces at a time
        while let Some(chunk) = b.get(i..i + 8) {
            if chunk != b"        " {
                break;
            }
            i += 8;
        }
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        i
    }

    fn newline(&mut self, level: usize) {
        const INDENT: &str = "\n                                                                ";
        match INDENT.get(..1 + 2 * level) {
            Some(indent) => self.out.push_str(indent),
            None => {
                self.out.push('\n');
                self.out.extend(std::iter::repeat_n(' ', 2 * level));
            }
        }
    }

    pub(crate) fn string(&mut self, i: usize) -> Result<usize> {
        let (end, escapes) = string_end_and_escapes(self.text.as_bytes(), i)?;
        let raw = &self.text[i..end];
        if escapes {
            // Escapes are written anew as Python writes them (serde_json decodes, refusing a lone surrogate).
            let s: String = serde_json::from_str(raw).map_err(|e| malformed(&format!("invalid string ({e})"), i))?;
            self.out.push('"');
            write_escaped(&mut self.out, &s);
            self.out.push('"');
        } else {
            self.out.push_str(raw); // nothing for Python to escape: serde_json accepted no raw control char
        }
        Ok(end)
    }

    fn number(&mut self, i: usize) -> Result<usize> {
        let b = self.text.as_bytes();
        let (mut end, mut float) = (i, false);
        while end < b.len() {
            match b[end] {
                b'0'..=b'9' | b'-' | b'+' => {}
                b'.' | b'e' | b'E' => float = true,
                _ => break,
            }
            end += 1;
        }
        let literal = &self.text[i..end];
        if float {
            match serde_read(literal) {
                Some(x) if x.is_finite() => write_serde_float(&mut self.out, x),
                _ => return Err(malformed("number out of range", i)),
            }
        } else if literal == "-0" {
            self.out.push('0'); // a Python int
        } else if literal.bytes().skip(usize::from(literal.starts_with('-'))).all(|c| c.is_ascii_digit()) && end > i {
            self.out.push_str(literal);
        } else {
            return Err(malformed("invalid number", i));
        }
        Ok(end)
    }

    /// Writes the value at `i` (nesting `level`), returning the byte after it.
    pub(crate) fn value(&mut self, i: usize, level: usize) -> Result<usize> {
        if level > MAX_DEPTH {
            return Err(malformed("nesting too deep", i));
        }
        let b = self.text.as_bytes();
        let i = self.skip_ws(i);
        match b.get(i) {
            Some(b'"') => self.string(i),
            Some(b'-' | b'0'..=b'9') => self.number(i),
            Some(b'[') | Some(b'{') => self.container(i, level),
            _ => {
                for word in ["true", "false", "null"] {
                    if self.text[i..].starts_with(word) {
                        self.out.push_str(word);
                        return Ok(i + word.len());
                    }
                }
                Err(malformed("invalid value", i))
            }
        }
    }

    fn container(&mut self, start: usize, level: usize) -> Result<usize> {
        let b = self.text.as_bytes();
        let (open, close, is_object) = if b[start] == b'{' { ('{', b'}', true) } else { ('[', b']', false) };
        self.out.push(open);
        let mut i = self.skip_ws(start + 1);
        // Python's json.loads keeps one entry per key: a repeated key is left to it (the caller's fallback).
        let mut keys = if is_object { Some(std::collections::HashSet::new()) } else { None };
        if b.get(i) == Some(&close) {
            self.out.push(close as char);
            return Ok(i + 1);
        }
        loop {
            if self.pretty {
                self.newline(level + 1);
            }
            if is_object {
                if b.get(i) != Some(&b'"') {
                    return Err(malformed("expected a key", i));
                }
                let key_start = self.out.len();
                let end = self.string(i)?;
                if !keys.as_mut().is_some_and(|keys| keys.insert(self.out[key_start..].to_string())) {
                    return Err(malformed("repeated key", i));
                }
                i = self.skip_ws(end);
                if b.get(i) != Some(&b':') {
                    return Err(malformed("expected ':'", i));
                }
                self.out.push_str(if self.pretty { ": " } else { ":" });
                i += 1;
            }
            let end = self.value(i, level + 1)?;
            i = self.skip_ws(end);
            match b.get(i) {
                Some(b',') => {
                    self.out.push(',');
                    i = self.skip_ws(i + 1);
                }
                Some(&c) if c == close => break,
                _ => return Err(malformed("expected ',' or a closing bracket", i)),
            }
        }
        if self.pretty {
            self.newline(level);
        }
        self.out.push(close as char);
        Ok(i + 1)
    }
}

/// The values of `keys` in the top-level object of `text` (the last one
/// where a key repeats, as Python's `json.loads`), each written as
/// `json.dumps` writes it at nesting level 1 (compact, or `indent=2` when
/// `pretty`) with serde_json's floats; None for a key absent.
pub fn top_level_values(text: &str, keys: &[&str], pretty: bool) -> Result<Vec<Option<String>>> {
    let b = text.as_bytes();
    let mut found: Vec<Option<String>> = vec![None; keys.len()];
    let mut w = Writer { text, out: String::new(), pretty };
    let mut i = w.skip_ws(0);
    if b.get(i) != Some(&b'{') {
        return Err(malformed("expected an object", i));
    }
    i = w.skip_ws(i + 1);
    if b.get(i) == Some(&b'}') {
        return Ok(found);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return Err(malformed("expected a key", i));
        }
        w.out.clear();
        let after_key = w.string(i)?;
        let key: String = serde_json::from_str(&w.out).map_err(|e| malformed(&format!("invalid key ({e})"), i))?;
        i = w.skip_ws(after_key);
        if b.get(i) != Some(&b':') {
            return Err(malformed("expected ':'", i));
        }
        w.out.clear();
        let end = w.value(i + 1, 1)?;
        if let Some(k) = keys.iter().position(|k| *k == key) {
            found[k] = Some(std::mem::take(&mut w.out));
        }
        i = w.skip_ws(end);
        match b.get(i) {
            Some(b',') => i = w.skip_ws(i + 1),
            Some(b'}') => break,
            _ => return Err(malformed("expected ',' or '}'", i)),
        }
    }
    Ok(found)
}

#[cfg(test)]
#[path = "json_text_tests.rs"]
mod tests;
