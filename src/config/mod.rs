//! tokenizer.json (HF tokenizers' serialization, version "1.0") -> typed
//! components. Every malformed field is an [`Error::Config`] naming the field
//! and value; every component this version does not implement is an
//! [`Error::Unsupported`] naming it. Nothing is approximated.

mod decoders;
mod json;
mod model;
mod normalizers;
mod pre_tokenizers;
mod settings;

use crate::added_tokens::AddedToken;
use crate::decoders::Decoder;
use crate::models::Model;
use crate::normalizers::Normalizer;
use crate::pre_tokenizers::{ByteLevel, PreTokenizer};
use pre_tokenizers::pre_tokenizer;
use crate::processors::{Piece, PostProcessor, TemplateToken};
use crate::{Error, Result};
pub use settings::Settings;
use json::{as_str, as_u32, bad, too_deep, unsupported, Obj, MAX_DEPTH};
use serde_json::Value;
use std::collections::BTreeMap;

/// Largest tokenizer.json accepted (the biggest real ones are ~30 MB).
pub const MAX_JSON_BYTES: usize = 1 << 30;

#[derive(Clone, Debug)]
pub struct TokenizerConfig {
    /// (stored id, token), in file order.
    pub added_tokens: Vec<(u32, AddedToken)>,
    pub normalizer: Option<Normalizer>,
    pub pre_tokenizer: Option<PreTokenizer>,
    pub model: Model,
    pub post_processor: Option<PostProcessor>,
    pub decoder: Option<Decoder>,
    /// The stored `truncation` and `padding`.
    pub settings: Settings,
}

pub fn parse(text: &str) -> Result<TokenizerConfig> {
    if text.len() > MAX_JSON_BYTES {
        return Err(Error::Config(format!("tokenizer.json: {} bytes is over the {MAX_JSON_BYTES}-byte limit", text.len())));
    }
    // serde_json bounds nesting itself (128 levels) and reports it as an error.
    let root: Value = serde_json::from_str(text).map_err(|e| Error::Config(format!("tokenizer.json: invalid JSON: {e}")))?;
    let root = Obj::new("tokenizer.json", &root)?;
    let root = Obj { path: String::new(), map: root.map };
    if let Some(v) = root.get("version") {
        if v.as_str() != Some("1.0") {
            return Err(bad("version", "\"1.0\"", v));
        }
    }
    Ok(TokenizerConfig {
        added_tokens: root.get("added_tokens").map(added_tokens).transpose()?.unwrap_or_default(),
        normalizer: root.get("normalizer").map(|v| normalizers::normalizer("normalizer", v, 0)).transpose()?,
        pre_tokenizer: root.get("pre_tokenizer").map(|v| pre_tokenizer("pre_tokenizer", v, 0)).transpose()?,
        model: model::model(&root.obj("model")?)?,
        post_processor: root.get("post_processor").map(|v| post_processor("post_processor", v, 0)).transpose()?,
        decoder: root.get("decoder").map(|v| decoders::decoder("decoder", v, 0)).transpose()?,
        settings: settings::settings(&root)?,
    })
}

fn added_tokens(v: &Value) -> Result<Vec<(u32, AddedToken)>> {
    let items = v.as_array().ok_or_else(|| bad("added_tokens", "an array", v))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let o = Obj::new(&format!("added_tokens[{i}]"), item)?;
            let token = AddedToken {
                content: o.str("content")?.to_string(),
                single_word: o.bool("single_word")?,
                lstrip: o.bool("lstrip")?,
                rstrip: o.bool("rstrip")?,
                normalized: o.bool("normalized")?,
                special: o.bool("special")?,
            };
            Ok((o.u32("id")?, token))
        })
        .collect()
}

fn sequence<'a>(o: &Obj<'a>, key: &str, depth: usize) -> Result<Vec<(String, &'a Value)>> {
    if depth >= MAX_DEPTH {
        return Err(too_deep(&o.path));
    }
    Ok(o.array(key)?.iter().enumerate().map(|(i, v)| (format!("{}[{i}]", o.field(key)), v)).collect())
}

fn byte_level(o: &Obj) -> Result<ByteLevel> {
    Ok(ByteLevel {
        add_prefix_space: o.bool("add_prefix_space")?,
        trim_offsets: o.bool("trim_offsets")?,
        use_regex: o.bool_or("use_regex", true)?,
    })
}

fn token_and_id(path: &str, v: &Value) -> Result<(String, u32)> {
    match v.as_array().map(Vec::as_slice) {
        Some([t, id]) => Ok((as_str(&format!("{path}[0]"), t)?.to_string(), as_u32(&format!("{path}[1]"), id)?)),
        _ => Err(bad(path, "[token, id]", v)),
    }
}

fn post_processor(path: &str, v: &Value, depth: usize) -> Result<PostProcessor> {
    let o = Obj::new(path, v)?;
    match o.type_tag()? {
        "ByteLevel" => {
            let b = byte_level(&o)?;
            Ok(PostProcessor::ByteLevel { add_prefix_space: b.add_prefix_space, trim_offsets: b.trim_offsets })
        }
        "RobertaProcessing" => Ok(PostProcessor::Roberta {
            sep: token_and_id(&o.field("sep"), o.require("sep")?)?,
            cls: token_and_id(&o.field("cls"), o.require("cls")?)?,
            trim_offsets: o.bool_or("trim_offsets", true)?,
            add_prefix_space: o.bool_or("add_prefix_space", true)?,
        }),
        "BertProcessing" => Ok(PostProcessor::Bert {
            sep: token_and_id(&o.field("sep"), o.require("sep")?)?,
            cls: token_and_id(&o.field("cls"), o.require("cls")?)?,
        }),
        "TemplateProcessing" => template(&o),
        "Sequence" => sequence(&o, "processors", depth)?
            .into_iter()
            .map(|(p, v)| post_processor(&p, v, depth + 1))
            .collect::<Result<_>>()
            .map(PostProcessor::Sequence),
        other => Err(unsupported(&o.field("type"), &format!("{other:?}"))),
    }
}

fn template(o: &Obj) -> Result<PostProcessor> {
    let mut special_tokens = BTreeMap::new();
    let st = o.obj("special_tokens")?;
    for (name, v) in st.map {
        let t = Obj::new(&st.field(name), v)?;
        let ids = t.array("ids")?.iter().enumerate().map(|(i, v)| as_u32(&format!("{}[{i}]", t.field("ids")), v));
        let ids = ids.collect::<Result<Vec<u32>>>()?;
        let tokens = t.array("tokens")?.iter().enumerate().map(|(i, v)| {
            as_str(&format!("{}[{i}]", t.field("tokens")), v).map(str::to_string)
        });
        let tokens = tokens.collect::<Result<Vec<String>>>()?;
        if ids.len() != tokens.len() {
            return Err(Error::Config(format!("{}: {} ids but {} tokens", t.path, ids.len(), tokens.len())));
        }
        special_tokens.insert(t.str("id")?.to_string(), TemplateToken { ids, tokens });
    }
    let pieces = |key: &str| -> Result<Vec<Piece>> {
        o.array(key)?.iter().enumerate().map(|(i, v)| piece(&format!("{}[{i}]", o.field(key)), v, &special_tokens)).collect()
    };
    Ok(PostProcessor::Template { single: pieces("single")?, pair: pieces("pair")?, special_tokens: special_tokens.clone() })
}

fn piece(path: &str, v: &Value, special: &BTreeMap<String, TemplateToken>) -> Result<Piece> {
    let o = Obj::new(path, v)?;
    let (kind, body) = match o.map.iter().next() {
        Some((k, b)) if o.map.len() == 1 => (k.as_str(), Obj::new(&o.field(k), b)?),
        _ => return Err(bad(path, "{\"Sequence\": {...}} or {\"SpecialToken\": {...}}", v)),
    };
    let type_id = body.u32("type_id")?;
    match kind {
        "Sequence" => match body.str("id")? {
            "A" => Ok(Piece::Sequence { pair: false, type_id }),
            "B" => Ok(Piece::Sequence { pair: true, type_id }),
            other => Err(bad(&body.field("id"), "\"A\" or \"B\"", &Value::from(other))),
        },
        "SpecialToken" => {
            let id = body.str("id")?;
            let Some(token) = special.get(id) else {
                return Err(Error::Config(format!("{}: {id:?} is not in special_tokens", body.field("id"))));
            };
            Ok(Piece::SpecialToken { id: id.to_string(), type_id, ids: token.ids.clone() })
        }
        other => Err(bad(path, "Sequence or SpecialToken", &Value::from(other))),
    }
}
