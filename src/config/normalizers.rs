//! The `normalizer` section of a tokenizer.json -> [`Normalizer`], fields
//! read as HF's serde reads them (required unless HF has a default).

use super::json::{bad, unsupported, Obj};
use super::sequence;
use crate::normalizers::{BertNormalizer, Normalizer, Precompiled, Replace};
use crate::{Error, Result};
use serde_json::Value;

pub fn normalizer(path: &str, v: &Value, depth: usize) -> Result<Normalizer> {
    let o = Obj::new(path, v)?;
    match o.type_tag()? {
        "NFC" => Ok(Normalizer::Nfc),
        "NFD" => Ok(Normalizer::Nfd),
        "NFKC" => Ok(Normalizer::Nfkc),
        "NFKD" => Ok(Normalizer::Nfkd),
        "Nmt" => Ok(Normalizer::Nmt),
        "Lowercase" => Ok(Normalizer::Lowercase),
        "StripAccents" => Ok(Normalizer::StripAccents),
        "ByteLevel" => Ok(Normalizer::ByteLevel),
        "BertNormalizer" => Ok(Normalizer::Bert(BertNormalizer {
            clean_text: o.bool("clean_text")?,
            handle_chinese_chars: o.bool("handle_chinese_chars")?,
            strip_accents: o.get("strip_accents").map(|v| v.as_bool().ok_or_else(|| bad(&o.field("strip_accents"), "true, false or null", v))).transpose()?,
            lowercase: o.bool("lowercase")?,
        })),
        "Strip" => Ok(Normalizer::Strip { left: o.bool("strip_left")?, right: o.bool("strip_right")? }),
        // tokenizers 0.23.3 panics on any edit after an empty Prepend: refused rather than guessed.
        "Prepend" => match o.str("prepend")? {
            "" => Err(Error::Unsupported(format!("{}: unsupported empty prepend (tokenizers 0.23.3 panics on it)", o.field("prepend")))),
            p => Ok(Normalizer::Prepend(p.to_string())),
        },
        "Replace" => replace(&o),
        "Precompiled" => precompiled(&o),
        "Sequence" => sequence(&o, "normalizers", depth)?
            .into_iter()
            .map(|(p, v)| normalizer(&p, v, depth + 1))
            .collect::<Result<_>>()
            .map(Normalizer::Sequence),
        other => Err(unsupported(&o.field("type"), &format!("{other:?}"))),
    }
}

fn replace(o: &Obj) -> Result<Normalizer> {
    let content = o.str("content")?;
    let pattern = o.obj("pattern")?;
    let (kind, value) = match pattern.map.iter().next() {
        Some((k, v)) if pattern.map.len() == 1 => (k.as_str(), v),
        _ => return Err(bad(&pattern.path, "{\"String\": ...} or {\"Regex\": ...}", &Value::Object(pattern.map.clone()))),
    };
    let field = pattern.field(kind);
    let text = value.as_str().ok_or_else(|| bad(&field, "a string", value))?;
    let built = match kind {
        "String" => Replace::literal(text, content),
        "Regex" => Replace::regex(text, content),
        _ => return Err(bad(&pattern.path, "{\"String\": ...} or {\"Regex\": ...}", &Value::Object(pattern.map.clone()))),
    };
    built.map(Normalizer::Replace).map_err(|why| {
        Error::Unsupported(format!("{field}: unsupported pattern {text:?}: {why} (see docs/pipeline.md)"))
    })
}

/// The base64 charsmap, decoded as spm_precompiled 0.1.4 decodes it (base64 0.13's
/// `decode`), then checked: one HF would fail to parse, or panic on, is malformed.
fn precompiled(o: &Obj) -> Result<Normalizer> {
    let field = o.field("precompiled_charsmap");
    let bytes = base64::decode(o.str("precompiled_charsmap")?).map_err(|e| Error::Config(format!("{field}: not base64: {e}")))?;
    Precompiled::from_bytes(&bytes)
        .map(|p| Normalizer::Precompiled(Box::new(p)))
        .map_err(|why| Error::Config(format!("{field}: malformed sentencepiece charsmap: {why}")))
}
