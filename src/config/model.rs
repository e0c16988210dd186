//! The `model` section of tokenizer.json: BPE, WordPiece, WordLevel, Unigram.

use super::json::{as_str, as_u32, bad, unsupported, Obj};
use crate::models::bpe::Bpe;
use crate::models::unigram::Unigram;
use crate::models::wordlevel::WordLevel;
use crate::models::wordpiece::WordPiece;
use crate::models::Model;
use crate::{Error, Result};
use std::collections::HashMap;

/// The model named by `type` (a file without it is BPE, as the first slice read it).
pub fn model(o: &Obj) -> Result<Model> {
    match o.get("type").map(|v| as_str(&o.field("type"), v)).transpose()? {
        None | Some("BPE") => bpe(o).map(Model::Bpe),
        Some("WordPiece") => wordpiece(o).map(Model::WordPiece),
        Some("WordLevel") => WordLevel::new(vocab(o)?, o.str("unk_token")?.to_string()).map(Model::WordLevel),
        Some("Unigram") => unigram(o).map(Model::Unigram),
        Some(other) => Err(unsupported(&o.field("type"), &format!("{other:?}"))),
    }
}

/// `vocab`: an object of token -> id.
fn vocab(o: &Obj) -> Result<HashMap<String, u32>> {
    let vocab_obj = o.obj("vocab")?;
    let mut vocab = HashMap::with_capacity(vocab_obj.map.len());
    for (token, id) in vocab_obj.map {
        // the error's path is made only for an error (a format per entry was a tenth of a 50k BPE's load)
        let id = match id.as_u64().and_then(|n| u32::try_from(n).ok()) {
            Some(id) => id,
            None => as_u32(&vocab_obj.field(&format!("{token:?}")), id)?,
        };
        vocab.insert(token.clone(), id);
    }
    Ok(vocab)
}

fn wordpiece(o: &Obj) -> Result<WordPiece> {
    let v = o.require("max_input_chars_per_word")?;
    let max_chars = v.as_u64().and_then(|n| usize::try_from(n).ok());
    let max_chars = max_chars.ok_or_else(|| bad(&o.field("max_input_chars_per_word"), "a non-negative integer", v))?;
    let (unk, prefix) = (o.str("unk_token")?.to_string(), o.str("continuing_subword_prefix")?.to_string());
    WordPiece::new(vocab(o)?, unk, prefix, max_chars)
}

/// `vocab`: an array of `[piece, score]`; `unk_id` an index into it or null.
fn unigram(o: &Obj) -> Result<Unigram> {
    let path = o.field("vocab");
    let items = o.array("vocab")?;
    let mut pieces = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let p = || format!("{path}[{i}]"); // the error's path, made only for an error
        match item.as_array().map(Vec::as_slice) {
            Some([piece, score]) => {
                let piece = piece.as_str().map_or_else(|| as_str(&format!("{}[0]", p()), piece), Ok)?.to_string();
                let score = score.as_f64().ok_or_else(|| bad(&format!("{}[1]", p()), "a number (the score)", score))?;
                pieces.push((piece, score));
            }
            _ => return Err(bad(&p(), "[piece, score]", item)),
        }
    }
    let unk_id = o.get("unk_id").map(|v| as_u32(&o.field("unk_id"), v)).transpose()?;
    Unigram::new(pieces, unk_id, o.bool_or("byte_fallback", false)?)
}

fn bpe(o: &Obj) -> Result<Bpe> {
    if let Some(v) = o.get("dropout") {
        let p = v.as_f64().ok_or_else(|| bad(&o.field("dropout"), "a number or null", v))?;
        if !(0.0..=1.0).contains(&p) {
            return Err(bad(&o.field("dropout"), "a number in [0, 1]", v));
        }
        if p != 0.0 {
            return Err(unsupported(&o.field("dropout"), &format!("{p} (only null or 0: dropout is random)")));
        }
    }
    let vocab = vocab(o)?;
    let merges_path = o.field("merges");
    let merges = o
        .array("merges")?
        .iter()
        .enumerate()
        .map(|(i, m)| merge(&|| format!("{merges_path}[{i}]"), m))
        .collect::<Result<Vec<_>>>()?;
    let opts = Bpe {
        unk_token: o.opt_str("unk_token")?,
        continuing_subword_prefix: o.opt_str("continuing_subword_prefix")?,
        end_of_word_suffix: o.opt_str("end_of_word_suffix")?,
        fuse_unk: o.bool_or("fuse_unk", false)?,
        byte_fallback: o.bool_or("byte_fallback", false)?,
        ignore_merges: o.bool_or("ignore_merges", false)?,
        ..Bpe::default()
    };
    Bpe::new(vocab, &merges, opts)
}

/// A merge: `["a", "b"]`, or the legacy `"a b"` (exactly one space).
/// (`path` makes the error's path, only for an error.)
fn merge(path: &dyn Fn() -> String, v: &serde_json::Value) -> Result<(String, String)> {
    if let Some(s) = v.as_str() {
        let mut parts = s.split(' ');
        return match (parts.next(), parts.next(), parts.next()) {
            (Some(a), Some(b), None) => Ok((a.to_string(), b.to_string())),
            _ => Err(Error::Config(format!("{}: expected \"left right\" with one space, got {v}", path()))),
        };
    }
    match v.as_array().map(Vec::as_slice) {
        Some([a, b]) => match (a.as_str(), b.as_str()) {
            (Some(a), Some(b)) => Ok((a.to_string(), b.to_string())),
            _ => Ok((as_str(&format!("{}[0]", path()), a)?.to_string(), as_str(&format!("{}[1]", path()), b)?.to_string())),
        },
        _ => Err(bad(&path(), "[left, right] or \"left right\"", v)),
    }
}

#[cfg(test)]
mod tests {
    use crate::config::parse;

    fn err(json: &str) -> String {
        parse(json).map(|_| ()).unwrap_err().to_string()
    }

    #[test]
    fn malformed_fields_are_named() {
        let m = r#""model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":[["a","b"]]}"#;
        assert!(parse(&format!("{{{m}}}")).is_ok());
        assert!(err(r#"{"model":{"vocab":{"a":-1},"merges":[]}}"#).contains("model.vocab.\"a\""));
        assert!(err(r#"{"model":{"vocab":{"a":0},"merges":[["a"]]}}"#).contains("model.merges[0]"));
        assert!(err(r#"{"model":{"vocab":{"a":0,"b":0},"merges":[]}}"#).contains("id 0"));
        assert!(err(&format!(r#"{{{m},"normalizer":{{"type":"Precompiled"}}}}"#)).contains("normalizer.precompiled_charsmap: missing field"));
        assert!(err(&format!(r#"{{{m},"normalizer":{{"type":"Precompiled","precompiled_charsmap":"AAAAAA=="}}}}"#)).contains("normalizer.precompiled_charsmap: malformed sentencepiece charsmap: its trie is empty"));
        assert!(err(&format!(r#"{{{m},"pre_tokenizer":{{"type":"ByteLevel","trim_offsets":true}}}}"#)).contains("pre_tokenizer.add_prefix_space"));
        assert!(err(r#"{"model":{"type":"Unigram","vocab":[]}}"#).contains("model.vocab: empty"));
        assert!(err(r#"{"model":{"type":"Unigram","vocab":[["a","x"]]}}"#).contains("model.vocab[0][1]"));
        // the paths made only on error (not per entry) name the same fields
        assert!(err(r#"{"model":{"type":"Unigram","vocab":[["a",0.0],[1,0.0]]}}"#).contains("model.vocab[1][0]: expected a string"));
        assert!(err(r#"{"model":{"type":"Unigram","vocab":[["a",0.0],["b"]]}}"#).contains("model.vocab[1]: expected [piece, score]"));
        assert!(err(r#"{"model":{"vocab":{"a":0,"b":1},"merges":[["a","b"],["a",2]]}}"#).contains("model.merges[1][1]: expected a string"));
        assert!(err(r#"{"model":{"vocab":{"a":0,"b":1},"merges":["a b","a  b"]}}"#).contains("model.merges[1]: expected \"left right\""));
        assert!(err(r#"{"model":{"vocab":{"a":0,"b\"c":1.5},"merges":[]}}"#).contains("model.vocab.\"b\\\"c\": expected an integer"));
        assert!(err(r##"{"model":{"type":"WordPiece","vocab":{},"unk_token":"u","continuing_subword_prefix":"#"}}"##).contains("model.max_input_chars_per_word"));
        assert!(err(r#"{"model":{"type":"Tiktoken"}}"#).contains("model.type"));
        assert!(err("[1]").contains("tokenizer.json"));
        let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
        assert!(err(&deep).contains("invalid JSON"));
    }
}
