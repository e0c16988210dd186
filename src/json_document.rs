//! The whole tokenizer.json `Tokenizer.to_str`/`save` write (tokenizers
//! 0.23.3's bytes), in one pass over the loaded text: the caller's top-level
//! members (version, truncation, padding, added tokens) then the components
//! as `json_text::top_level_values` writes them, in one buffer, so a 250k-piece
//! vocabulary is never copied piece by piece into Python.

use crate::json_text::{malformed, top_level_values, write_escaped, Writer};
use crate::Result;

/// The whole text `to_str`/`save` write: `head` (the opening brace and the
/// members before the components, as the caller wrote them), then each of
/// `keys` with its value in `text` as `top_level_values` writes it (`null`
/// where absent), then the closing brace; compact, or in `json.dumps`'
/// `indent=2` layout when `pretty`.
pub fn document(text: &str, head: &str, keys: &[&str], pretty: bool) -> Result<String> {
    if let Some(out) = document_in_order(text, head, keys, pretty)? {
        return Ok(out);
    }
    let values = top_level_values(text, keys, pretty)?;
    let mut out = String::with_capacity(head.len() + values.iter().flatten().map(String::len).sum::<usize>() + 256);
    out.push_str(head);
    for (key, value) in keys.iter().zip(&values) {
        member(&mut out, key, pretty);
        out.push_str(value.as_deref().unwrap_or("null"));
    }
    out.push_str(if pretty { "\n}" } else { "}" });
    Ok(out)
}

fn member(out: &mut String, key: &str, pretty: bool) {
    out.push_str(if pretty { ",\n  \"" } else { ",\"" });
    write_escaped(out, key);
    out.push_str(if pretty { "\": " } else { "\":" });
}

/// `document` in one pass straight into its text, for a `text` whose `keys`
/// come in that order, each once (every file tokenizers writes); None for
/// another order or a repeated key, which `top_level_values` resolves.
fn document_in_order(text: &str, head: &str, keys: &[&str], pretty: bool) -> Result<Option<String>> {
    let b = text.as_bytes();
    let mut w = Writer { text, out: String::with_capacity(head.len() + text.len() + 256), pretty };
    w.out.push_str(head);
    let mut written = 0; // keys[..written] are in the text
    let mut i = w.skip_ws(0);
    if b.get(i) != Some(&b'{') {
        return Err(malformed("expected an object", i));
    }
    i = w.skip_ws(i + 1);
    while b.get(i) != Some(&b'}') {
        if b.get(i) != Some(&b'"') {
            return Err(malformed("expected a key", i));
        }
        let mark = w.out.len();
        let after_key = w.string(i)?;
        let key: String = serde_json::from_str(&w.out[mark..]).map_err(|e| malformed(&format!("invalid key ({e})"), i))?;
        w.out.truncate(mark);
        i = w.skip_ws(after_key);
        if b.get(i) != Some(&b':') {
            return Err(malformed("expected ':'", i));
        }
        let wanted = keys.iter().position(|k| *k == key);
        match wanted {
            Some(k) if k < written => return Ok(None),
            Some(k) => {
                for absent in &keys[written..k] {
                    member(&mut w.out, absent, pretty);
                    w.out.push_str("null");
                }
                member(&mut w.out, &key, pretty);
                written = k + 1;
            }
            None => {}
        }
        let mark = w.out.len();
        let end = w.value(i + 1, 1)?;
        if wanted.is_none() {
            w.out.truncate(mark); // a member the caller wrote (or one not written)
        }
        i = w.skip_ws(end);
        match b.get(i) {
            Some(b',') => {
                i = w.skip_ws(i + 1);
                if b.get(i) == Some(&b'}') {
                    return Err(malformed("expected a key", i)); // a trailing comma
                }
            }
            Some(b'}') => break,
            _ => return Err(malformed("expected ',' or '}'", i)),
        }
    }
    for absent in &keys[written..] {
        member(&mut w.out, absent, pretty);
        w.out.push_str("null");
    }
    w.out.push_str(if pretty { "\n}" } else { "}" });
    Ok(Some(w.out))
}
