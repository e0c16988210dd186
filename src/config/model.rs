//! The `model` section of tokenizer.json: BPE (the only model of this slice).

use super::json::{as_str, as_u32, bad, unsupported, Obj};
use crate::models::bpe::Bpe;
use crate::{Error, Result};
use std::collections::HashMap;

pub fn bpe(o: &Obj) -> Result<Bpe> {
    match o.get("type").map(|v| as_str(&o.field("type"), v)).transpose()? {
        None | Some("BPE") => {}
        Some(other) => return Err(unsupported(&o.field("type"), &format!("{other:?}"))),
    }
    if let Some(v) = o.get("dropout") {
        let p = v.as_f64().ok_or_else(|| bad(&o.field("dropout"), "a number or null", v))?;
        if !(0.0..=1.0).contains(&p) {
            return Err(bad(&o.field("dropout"), "a number in [0, 1]", v));
        }
        if p != 0.0 {
            return Err(unsupported(&o.field("dropout"), &format!("{p} (only null or 0: dropout is random)")));
        }
    }
    let vocab_obj = o.obj("vocab")?;
    let mut vocab = HashMap::with_capacity(vocab_obj.map.len());
    for (token, id) in vocab_obj.map {
        vocab.insert(token.clone(), as_u32(&vocab_obj.field(&format!("{token:?}")), id)?);
    }
    let merges_path = o.field("merges");
    let merges = o
        .array("merges")?
        .iter()
        .enumerate()
        .map(|(i, m)| merge(&format!("{merges_path}[{i}]"), m))
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
fn merge(path: &str, v: &serde_json::Value) -> Result<(String, String)> {
    if let Some(s) = v.as_str() {
        let mut parts = s.split(' ');
        return match (parts.next(), parts.next(), parts.next()) {
            (Some(a), Some(b), None) => Ok((a.to_string(), b.to_string())),
            _ => Err(Error::Config(format!("{path}: expected \"left right\" with one space, got {v}"))),
        };
    }
    match v.as_array().map(Vec::as_slice) {
        Some([a, b]) => Ok((as_str(&format!("{path}[0]"), a)?.to_string(), as_str(&format!("{path}[1]"), b)?.to_string())),
        _ => Err(bad(path, "[left, right] or \"left right\"", v)),
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
        assert!(err(&format!(r#"{{{m},"normalizer":{{"type":"Precompiled"}}}}"#)).contains("normalizer.type: unsupported \"Precompiled\""));
        assert!(err(&format!(r#"{{{m},"pre_tokenizer":{{"type":"ByteLevel","trim_offsets":true}}}}"#)).contains("pre_tokenizer.add_prefix_space"));
        assert!(err(r#"{"model":{"type":"Unigram","vocab":[]}}"#).contains("model.type"));
        assert!(err("[1]").contains("tokenizer.json"));
        let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
        assert!(err(&deep).contains("invalid JSON"));
    }
}
