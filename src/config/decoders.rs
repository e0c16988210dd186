//! The `decoder` section of tokenizer.json, and the Metaspace settings that
//! the Metaspace pre-tokenizer and decoder share.

use super::json::{bad, too_deep, unsupported, Obj, MAX_DEPTH};
use crate::decoders::{Decoder, RegexReplace};
use crate::pre_tokenizers::metaspace::{Metaspace, PrependScheme};
use crate::{Error, Result};
use serde_json::Value;

fn one_char(o: &Obj, key: &str) -> Result<char> {
    let s = o.str(key)?;
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(bad(&o.field(key), "a string of one char", &Value::from(s))),
    }
}

fn usize_field(o: &Obj, key: &str) -> Result<usize> {
    let v = o.require(key)?;
    v.as_u64().and_then(|n| usize::try_from(n).ok()).ok_or_else(|| bad(&o.field(key), "a non-negative integer", v))
}

/// `replacement`, `prepend_scheme` (default "always"), `split` (default true)
/// and the legacy `add_prefix_space` (false means "never"; it may not
/// contradict a stated scheme, as HF checks).
pub fn metaspace(o: &Obj) -> Result<Metaspace> {
    let prepend_scheme = match o.get("prepend_scheme") {
        None => PrependScheme::Always,
        Some(v) => match v.as_str() {
            Some("first") => PrependScheme::First,
            Some("never") => PrependScheme::Never,
            Some("always") => PrependScheme::Always,
            _ => return Err(bad(&o.field("prepend_scheme"), "\"first\", \"never\" or \"always\"", v)),
        },
    };
    let add_prefix_space = o.get("add_prefix_space").map(|v| v.as_bool().ok_or_else(|| bad(&o.field("add_prefix_space"), "true, false or null", v))).transpose()?;
    let prepend_scheme = match add_prefix_space {
        Some(false) if prepend_scheme != PrependScheme::Never => {
            return Err(Error::Config(format!("{}: false does not match prepend_scheme", o.field("add_prefix_space"))));
        }
        Some(false) => PrependScheme::Never,
        _ => prepend_scheme,
    };
    Ok(Metaspace { replacement: one_char(o, "replacement")?, prepend_scheme, split: o.bool_or("split", true)? })
}

pub fn decoder(path: &str, v: &Value, depth: usize) -> Result<Decoder> {
    let o = Obj::new(path, v)?;
    Ok(match o.type_tag()? {
        "ByteLevel" => Decoder::ByteLevel,
        "WordPiece" => Decoder::WordPiece { prefix: o.str("prefix")?.to_string(), cleanup: o.bool("cleanup")? },
        "Metaspace" => Decoder::Metaspace(metaspace(&o)?),
        "BPEDecoder" => Decoder::Bpe { suffix: o.str("suffix")?.to_string() },
        "ByteFallback" => Decoder::ByteFallback,
        "Fuse" => Decoder::Fuse,
        "Strip" => Decoder::Strip { content: one_char(&o, "content")?, start: usize_field(&o, "start")?, stop: usize_field(&o, "stop")? },
        "Replace" => {
            let pattern = o.obj("pattern")?;
            let content = o.str("content")?.to_string();
            match (pattern.get("String"), pattern.get("Regex")) {
                (Some(s), None) if pattern.map.len() == 1 => {
                    let s = s.as_str().ok_or_else(|| bad(&pattern.field("String"), "a string", s))?;
                    Decoder::Replace { pattern: s.to_string(), content }
                }
                (None, Some(r)) if pattern.map.len() == 1 => {
                    let field = pattern.field("Regex");
                    let r = r.as_str().ok_or_else(|| bad(&field, "a string", r))?;
                    let built = RegexReplace::new(r, &content).map_err(|why| {
                        Error::Unsupported(format!("{field}: unsupported pattern {r:?}: {why} (see docs/pipeline.md)"))
                    })?;
                    Decoder::ReplaceRegex(built)
                }
                _ => return Err(bad(&o.field("pattern"), "{\"String\": ...} or {\"Regex\": ...}", o.require("pattern")?)),
            }
        }
        "CTC" => Decoder::Ctc {
            pad_token: o.str("pad_token")?.to_string(),
            word_delimiter_token: o.str("word_delimiter_token")?.to_string(),
            cleanup: o.bool("cleanup")?,
        },
        "Sequence" => {
            if depth >= MAX_DEPTH {
                return Err(too_deep(&o.path));
            }
            let items = o.array("decoders")?.iter().enumerate();
            let items = items.map(|(i, v)| decoder(&format!("{}[{i}]", o.field("decoders")), v, depth + 1));
            Decoder::Sequence(items.collect::<Result<_>>()?)
        }
        other => return Err(unsupported(&o.field("type"), &format!("{other:?}"))),
    })
}
