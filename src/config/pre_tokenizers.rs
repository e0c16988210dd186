//! The `pre_tokenizer` section of a tokenizer.json -> [`PreTokenizer`].
//! Required fields are required as HF requires them (Punctuation's
//! `behavior` defaults to Isolated, as in HF); `Split`
//! regexes outside the subset [`RegexSplit`] guarantees are refused.

use super::json::{bad, unsupported, Obj};
use super::{byte_level, sequence};
use crate::pre_tokenizers::{Behavior, LiteralSplit, PreTokenizer, RegexSplit};
use crate::Result;
use serde_json::Value;

pub(super) fn pre_tokenizer(path: &str, v: &Value, depth: usize) -> Result<PreTokenizer> {
    let o = Obj::new(path, v)?;
    match o.type_tag()? {
        "ByteLevel" => Ok(PreTokenizer::ByteLevel(byte_level(&o)?)),
        "Metaspace" => Ok(PreTokenizer::Metaspace(super::decoders::metaspace(&o)?)),
        "BertPreTokenizer" => Ok(PreTokenizer::Bert),
        "Whitespace" => Ok(PreTokenizer::Whitespace),
        "WhitespaceSplit" => Ok(PreTokenizer::WhitespaceSplit),
        "UnicodeScripts" => Ok(PreTokenizer::UnicodeScripts),
        "Punctuation" => Ok(PreTokenizer::Punctuation(match o.get("behavior") {
            None => Behavior::Isolated,
            Some(_) => behavior(&o)?,
        })),
        "Digits" => Ok(PreTokenizer::Digits { individual_digits: o.bool("individual_digits")? }),
        "CharDelimiterSplit" => {
            let d = o.str("delimiter")?;
            let mut chars = d.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Ok(PreTokenizer::CharDelimiterSplit(c)),
                _ => Err(bad(&o.field("delimiter"), "a string of one char", o.require("delimiter")?)),
            }
        }
        "Split" => split(&o),
        "Sequence" => sequence(&o, "pretokenizers", depth)?
            .into_iter()
            .map(|(p, v)| pre_tokenizer(&p, v, depth + 1))
            .collect::<Result<_>>()
            .map(PreTokenizer::Sequence),
        other => Err(unsupported(&o.field("type"), &format!("{other:?}"))),
    }
}

fn behavior(o: &Obj) -> Result<Behavior> {
    let v = o.require("behavior")?;
    match v.as_str() {
        Some("Removed") => Ok(Behavior::Removed),
        Some("Isolated") => Ok(Behavior::Isolated),
        Some("MergedWithPrevious") => Ok(Behavior::MergedWithPrevious),
        Some("MergedWithNext") => Ok(Behavior::MergedWithNext),
        Some("Contiguous") => Ok(Behavior::Contiguous),
        _ => Err(bad(&o.field("behavior"), "one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous", v)),
    }
}

fn split(o: &Obj) -> Result<PreTokenizer> {
    let pattern = o.obj("pattern")?;
    let (behavior, invert) = (behavior(o)?, o.bool("invert")?);
    match pattern.map.iter().next() {
        Some((kind, v)) if pattern.map.len() == 1 && kind == "String" => {
            let literal = v.as_str().ok_or_else(|| bad(&pattern.field("String"), "a string", v))?;
            Ok(PreTokenizer::LiteralSplit(LiteralSplit::new(literal, behavior, invert)?))
        }
        Some((kind, v)) if pattern.map.len() == 1 && kind == "Regex" => {
            let path = pattern.field("Regex");
            let regex = v.as_str().ok_or_else(|| bad(&path, "a string", v))?;
            Ok(PreTokenizer::RegexSplit(RegexSplit::new(&path, regex, behavior, invert)?))
        }
        _ => Err(bad(&pattern.path, "{\"String\": ...} or {\"Regex\": ...}", o.require("pattern")?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    fn parse(json: &str) -> Result<PreTokenizer> {
        let v: Value = serde_json::from_str(json).map_err(|e| Error::Config(e.to_string()))?;
        pre_tokenizer("pre_tokenizer", &v, 0)
    }

    #[test]
    fn parses_every_supported_pre_tokenizer() {
        let seq = parse(
            r#"{"type":"Sequence","pretokenizers":[{"type":"Digits","individual_digits":true},
            {"type":"Punctuation"},{"type":"CharDelimiterSplit","delimiter":"-"},{"type":"Whitespace"},
            {"type":"WhitespaceSplit"},{"type":"BertPreTokenizer"},
            {"type":"Split","pattern":{"String":"x"},"behavior":"MergedWithNext","invert":true}]}"#,
        );
        let PreTokenizer::Sequence(items) = seq.unwrap() else { panic!("not a Sequence") };
        assert_eq!(items.len(), 7);
        assert_eq!(items[1], PreTokenizer::Punctuation(Behavior::Isolated));
        assert_eq!(items[2], PreTokenizer::CharDelimiterSplit('-'));
    }

    #[test]
    fn malformed_and_unsupported_fields_are_named() {
        let err = |j: &str| match parse(j) {
            Err(Error::Config(m)) => format!("config: {m}"),
            Err(Error::Unsupported(m)) => format!("unsupported: {m}"),
            Err(e) => format!("other: {e}"),
            Ok(p) => format!("ok: {p:?}"),
        };
        assert!(err(r#"{"type":"Digits"}"#).starts_with("config: pre_tokenizer.individual_digits: missing field"));
        assert!(err(r#"{"type":"CharDelimiterSplit","delimiter":"ab"}"#).starts_with("config: pre_tokenizer.delimiter:"));
        assert!(err(r#"{"type":"Punctuation","behavior":"removed"}"#).starts_with("config: pre_tokenizer.behavior:"));
        let split = r#"{"type":"Split","pattern":{"Regex":"a|(?!b)"},"behavior":"Removed","invert":false}"#;
        assert!(err(split).starts_with("unsupported: pre_tokenizer.pattern.Regex: unsupported regex \"a|(?!b)\""));
        let split = r#"{"type":"Split","pattern":{"Regex":"a+"},"behavior":"Removed","invert":false}"#;
        assert!(err(split).starts_with("ok: RegexSplit"));
        let split = r#"{"type":"Split","pattern":"x","behavior":"Removed","invert":false}"#;
        assert!(err(split).starts_with("config: pre_tokenizer.pattern:"));
        assert!(err(r#"{"type":"UnicodeScripts"}"#).starts_with("ok: UnicodeScripts"));
        assert!(err(r#"{"type":"Scripts"}"#).starts_with("unsupported: pre_tokenizer.type:"));
    }
}
