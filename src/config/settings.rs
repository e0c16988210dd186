//! A tokenizer.json's stored `truncation` and `padding` (HF's serde shapes:
//! `{"direction": "Right", "max_length": n, "strategy": "LongestFirst", "stride": n}`,
//! `{"strategy": {"Fixed": n} | "BatchLongest", "direction", "pad_to_multiple_of",
//! "pad_id", "pad_type_id", "pad_token"}`).

use super::json::{bad, Obj};
use crate::processors::padding::PaddingParams;
use crate::processors::truncation::{Direction, Strategy, TruncationParams};
use crate::Result;
use serde_json::Value;

/// Truncation and padding (a tokenizer.json's stored ones, or set at run time).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    pub truncation: Option<TruncationParams>,
    pub padding: Option<PaddingParams>,
}

fn usize_at(o: &Obj, key: &str) -> Result<usize> {
    let v = o.require(key)?;
    v.as_u64().and_then(|n| usize::try_from(n).ok()).ok_or_else(|| bad(&o.field(key), "a non-negative integer", v))
}

/// `direction`: optional in `truncation` (Right), required in `padding`, as HF's serde reads them.
fn direction(o: &Obj, required: bool) -> Result<Direction> {
    match o.get("direction") {
        None if required => Err(crate::Error::Config(format!("{}: missing field", o.field("direction")))),
        None => Ok(Direction::Right),
        Some(v) => match v.as_str() {
            Some("Right") => Ok(Direction::Right),
            Some("Left") => Ok(Direction::Left),
            _ => Err(bad(&o.field("direction"), "\"Right\" or \"Left\"", v)),
        },
    }
}

fn truncation(v: &Value) -> Result<TruncationParams> {
    let o = Obj::new("truncation", v)?;
    let strategy = match o.str("strategy")? {
        "LongestFirst" => Strategy::LongestFirst,
        "OnlyFirst" => Strategy::OnlyFirst,
        "OnlySecond" => Strategy::OnlySecond,
        _ => return Err(bad(&o.field("strategy"), "\"LongestFirst\", \"OnlyFirst\" or \"OnlySecond\"", o.require("strategy")?)),
    };
    Ok(TruncationParams { max_length: usize_at(&o, "max_length")?, stride: usize_at(&o, "stride")?, strategy, direction: direction(&o, false)? })
}

fn padding(v: &Value) -> Result<PaddingParams> {
    let o = Obj::new("padding", v)?;
    let s = o.require("strategy")?;
    let length = match s {
        Value::String(name) if name == "BatchLongest" => None,
        Value::Object(m) if m.len() == 1 && m.contains_key("Fixed") => Some(usize_at(&Obj::new("padding.strategy", s)?, "Fixed")?),
        _ => return Err(bad(&o.field("strategy"), "\"BatchLongest\" or {\"Fixed\": n}", s)),
    };
    let pad_to_multiple_of = match o.get("pad_to_multiple_of") {
        None => None,
        Some(_) => Some(usize_at(&o, "pad_to_multiple_of")?),
    };
    Ok(PaddingParams {
        length,
        direction: direction(&o, true)?,
        pad_to_multiple_of,
        pad_id: o.u32("pad_id")?,
        pad_type_id: o.u32("pad_type_id")?,
        pad_token: o.str("pad_token")?.to_string(),
    })
}

pub fn settings(root: &Obj) -> Result<Settings> {
    Ok(Settings {
        truncation: root.get("truncation").map(truncation).transpose()?,
        padding: root.get("padding").map(padding).transpose()?,
    })
}
