//! Reading a parsed JSON value field by field, every error naming the field's
//! path (`model.merges[3]`) and what was found there.

use crate::{Error, Result};
use serde_json::{Map, Value};

/// Deepest nesting of component Sequences accepted (real files use 1-2).
pub const MAX_DEPTH: usize = 16;

fn describe(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 { format!("{}...", s.chars().take(60).collect::<String>()) } else { s }
}

pub fn bad(path: &str, expected: &str, v: &Value) -> Error {
    Error::Config(format!("{path}: expected {expected}, got {}", describe(v)))
}

/// An object being read, with its path.
pub struct Obj<'a> {
    pub path: String,
    pub map: &'a Map<String, Value>,
}

impl<'a> Obj<'a> {
    pub fn new(path: &str, v: &'a Value) -> Result<Obj<'a>> {
        match v {
            Value::Object(map) => Ok(Obj { path: path.to_string(), map }),
            _ => Err(bad(path, "an object", v)),
        }
    }

    pub fn field(&self, key: &str) -> String {
        if self.path.is_empty() { key.to_string() } else { format!("{}.{key}", self.path) }
    }

    /// The value at `key`, absent and null alike as None.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    pub fn require(&self, key: &str) -> Result<&'a Value> {
        self.get(key).ok_or_else(|| Error::Config(format!("{}: missing field", self.field(key))))
    }

    pub fn obj(&self, key: &str) -> Result<Obj<'a>> {
        Obj::new(&self.field(key), self.require(key)?)
    }

    pub fn str(&self, key: &str) -> Result<&'a str> {
        let v = self.require(key)?;
        v.as_str().ok_or_else(|| bad(&self.field(key), "a string", v))
    }

    pub fn opt_str(&self, key: &str) -> Result<Option<String>> {
        self.get(key).map(|v| v.as_str().map(str::to_string).ok_or_else(|| bad(&self.field(key), "a string or null", v))).transpose()
    }

    pub fn bool(&self, key: &str) -> Result<bool> {
        let v = self.require(key)?;
        v.as_bool().ok_or_else(|| bad(&self.field(key), "true or false", v))
    }

    pub fn bool_or(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.as_bool().ok_or_else(|| bad(&self.field(key), "true, false or null", v)),
        }
    }

    pub fn u32(&self, key: &str) -> Result<u32> {
        as_u32(&self.field(key), self.require(key)?)
    }

    pub fn array(&self, key: &str) -> Result<&'a Vec<Value>> {
        let v = self.require(key)?;
        v.as_array().ok_or_else(|| bad(&self.field(key), "an array", v))
    }

    /// The component's `type` tag.
    pub fn type_tag(&self) -> Result<&'a str> {
        self.str("type")
    }
}

pub fn as_u32(path: &str, v: &Value) -> Result<u32> {
    v.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| bad(path, "an integer in 0..=4294967295", v))
}

pub fn as_str<'a>(path: &str, v: &'a Value) -> Result<&'a str> {
    v.as_str().ok_or_else(|| bad(path, "a string", v))
}

pub fn unsupported(path: &str, what: &str) -> Error {
    Error::Unsupported(format!("{path}: unsupported {what} (see docs/pipeline.md for the components bertpiece.Tokenizer implements)"))
}

pub fn too_deep(path: &str) -> Error {
    Error::Config(format!("{path}: Sequences nested deeper than {MAX_DEPTH}"))
}
