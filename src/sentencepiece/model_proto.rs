//! A small protobuf decoder for sentencepiece's `ModelProto`
//! (sentencepiece_model.proto): only the fields encoding and decoding read.
//! Unknown fields are skipped as protobuf does; a known field with the wrong
//! wire type, a truncated varint, a length past the end, a non-UTF-8 string
//! or an unknown piece type is an error naming the field and byte offset.
//! Nothing is allocated beyond what the bytes hold.

use crate::{Error, Result};

/// `ModelProto.SentencePiece.Type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceType {
    Normal,
    Unknown,
    Control,
    UserDefined,
    Unused,
    Byte,
}

#[derive(Clone, Debug)]
pub struct ProtoPiece {
    pub piece: String,
    pub score: f32,
    pub kind: PieceType,
}

/// The `TrainerSpec` fields the processor reads (proto defaults).
#[derive(Clone, Debug)]
pub struct TrainerSpec {
    pub model_type: i32,
    pub byte_fallback: bool,
    pub treat_whitespace_as_suffix: bool,
    pub unk_piece: String,
    pub bos_piece: String,
    pub eos_piece: String,
    pub pad_piece: String,
    pub unk_surface: String,
}

#[derive(Clone, Debug)]
pub struct NormalizerSpec {
    pub name: String,
    pub precompiled_charsmap: Vec<u8>,
    pub add_dummy_prefix: bool,
    pub remove_extra_whitespaces: bool,
    pub escape_whitespaces: bool,
}

#[derive(Clone, Debug)]
pub struct ModelProto {
    pub pieces: Vec<ProtoPiece>,
    pub trainer_spec: TrainerSpec,
    pub normalizer_spec: NormalizerSpec,
    pub denormalizer_spec: Option<NormalizerSpec>,
}

impl Default for TrainerSpec {
    fn default() -> Self {
        TrainerSpec {
            model_type: 1,
            byte_fallback: false,
            treat_whitespace_as_suffix: false,
            unk_piece: "<unk>".into(),
            bos_piece: "<s>".into(),
            eos_piece: "</s>".into(),
            pad_piece: "<pad>".into(),
            unk_surface: " \u{2047} ".into(),
        }
    }
}

impl Default for NormalizerSpec {
    fn default() -> Self {
        NormalizerSpec {
            name: String::new(),
            precompiled_charsmap: Vec::new(),
            add_dummy_prefix: true,
            remove_extra_whitespaces: true,
            escape_whitespaces: true,
        }
    }
}

/// One field's value as it appears on the wire.
enum Value<'a> {
    Varint(u64),
    Fixed64,
    Bytes(&'a [u8]),
    Fixed32(u32),
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Offset of `buf[0]` in the whole file, for error messages.
    base: usize,
    what: &'static str,
}

fn bad(what: &str, at: usize, why: impl std::fmt::Display) -> Error {
    Error::Config(format!("invalid sentencepiece model: {what} at byte {at}: {why}"))
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8], base: usize, what: &'static str) -> Self {
        Reader { buf, pos: 0, base, what }
    }

    fn varint(&mut self) -> Result<u64> {
        let start = self.base + self.pos;
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = *self.buf.get(self.pos).ok_or_else(|| bad(self.what, start, "truncated varint"))?;
            self.pos += 1;
            if shift < 64 {
                v |= ((b & 0x7F) as u64) << shift;
            }
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(bad(self.what, start, "varint longer than 10 bytes"))
    }

    fn take(&mut self, n: u64) -> Result<&'a [u8]> {
        let start = self.base + self.pos;
        let rest = self.buf.len() - self.pos;
        if n > rest as u64 {
            return Err(bad(self.what, start, format!("length {n} runs past the end ({rest} bytes left)")));
        }
        let s = &self.buf[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }

    /// The next (field number, value, offset of the value), or None at the end.
    fn field(&mut self) -> Result<Option<(u64, Value<'a>, usize)>> {
        if self.pos >= self.buf.len() {
            return Ok(None);
        }
        let at = self.base + self.pos;
        let key = self.varint()?;
        let (number, wire) = (key >> 3, key & 7);
        if number == 0 {
            return Err(bad(self.what, at, "field number 0"));
        }
        let mut value_at = self.base + self.pos;
        let value = match wire {
            0 => Value::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Value::Fixed64
            }
            2 => {
                let n = self.varint()?;
                // Sub-messages report offsets from their first payload byte.
                value_at = self.base + self.pos;
                Value::Bytes(self.take(n)?)
            }
            5 => {
                let b = self.take(4)?;
                Value::Fixed32(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            w => return Err(bad(self.what, at, format!("field {number} has unsupported wire type {w}"))),
        };
        Ok(Some((number, value, value_at)))
    }
}

fn wrong(what: &str, field: &str, at: usize) -> Error {
    bad(what, at, format!("field {field} has the wrong wire type"))
}

fn string(v: &Value, what: &str, field: &str, at: usize) -> Result<String> {
    match v {
        Value::Bytes(b) => String::from_utf8(b.to_vec()).map_err(|_| bad(what, at, format!("{field} is not valid UTF-8"))),
        _ => Err(wrong(what, field, at)),
    }
}

fn varint(v: &Value, what: &str, field: &str, at: usize) -> Result<u64> {
    match v {
        Value::Varint(n) => Ok(*n),
        _ => Err(wrong(what, field, at)),
    }
}

fn piece(buf: &[u8], base: usize, index: usize) -> Result<ProtoPiece> {
    let mut r = Reader::new(buf, base, "pieces");
    let mut p = ProtoPiece { piece: String::new(), score: 0.0, kind: PieceType::Normal };
    while let Some((n, v, at)) = r.field()? {
        match n {
            1 => p.piece = string(&v, "pieces", &format!("pieces[{index}].piece"), at)?,
            2 => match v {
                Value::Fixed32(bits) => p.score = f32::from_bits(bits),
                _ => return Err(wrong("pieces", &format!("pieces[{index}].score"), at)),
            },
            3 => {
                p.kind = match varint(&v, "pieces", &format!("pieces[{index}].type"), at)? {
                    1 => PieceType::Normal,
                    2 => PieceType::Unknown,
                    3 => PieceType::Control,
                    4 => PieceType::UserDefined,
                    5 => PieceType::Unused,
                    6 => PieceType::Byte,
                    t => return Err(bad("pieces", at, format!("pieces[{index}].type {t} is not a piece type"))),
                }
            }
            _ => {}
        }
    }
    Ok(p)
}

fn trainer_spec(buf: &[u8], base: usize, t: &mut TrainerSpec) -> Result<()> {
    const W: &str = "trainer_spec";
    let mut r = Reader::new(buf, base, W);
    while let Some((n, v, at)) = r.field()? {
        match n {
            3 => t.model_type = varint(&v, W, "trainer_spec.model_type", at)? as i32,
            24 => t.treat_whitespace_as_suffix = varint(&v, W, "trainer_spec.treat_whitespace_as_suffix", at)? != 0,
            35 => t.byte_fallback = varint(&v, W, "trainer_spec.byte_fallback", at)? != 0,
            44 => t.unk_surface = string(&v, W, "trainer_spec.unk_surface", at)?,
            45 => t.unk_piece = string(&v, W, "trainer_spec.unk_piece", at)?,
            46 => t.bos_piece = string(&v, W, "trainer_spec.bos_piece", at)?,
            47 => t.eos_piece = string(&v, W, "trainer_spec.eos_piece", at)?,
            48 => t.pad_piece = string(&v, W, "trainer_spec.pad_piece", at)?,
            _ => {}
        }
    }
    Ok(())
}

fn normalizer_spec(buf: &[u8], base: usize, what: &'static str, s: &mut NormalizerSpec) -> Result<()> {
    let mut r = Reader::new(buf, base, what);
    while let Some((n, v, at)) = r.field()? {
        match n {
            1 => s.name = string(&v, what, &format!("{what}.name"), at)?,
            2 => match v {
                Value::Bytes(b) => s.precompiled_charsmap = b.to_vec(),
                _ => return Err(wrong(what, &format!("{what}.precompiled_charsmap"), at)),
            },
            3 => s.add_dummy_prefix = varint(&v, what, &format!("{what}.add_dummy_prefix"), at)? != 0,
            4 => s.remove_extra_whitespaces = varint(&v, what, &format!("{what}.remove_extra_whitespaces"), at)? != 0,
            5 => s.escape_whitespaces = varint(&v, what, &format!("{what}.escape_whitespaces"), at)? != 0,
            _ => {}
        }
    }
    Ok(())
}

impl ModelProto {
    /// Decodes a serialized `ModelProto` (repeated sub-messages merge, as in protobuf).
    pub fn parse(bytes: &[u8]) -> Result<ModelProto> {
        let mut m = ModelProto {
            pieces: Vec::new(),
            trainer_spec: TrainerSpec::default(),
            normalizer_spec: NormalizerSpec::default(),
            denormalizer_spec: None,
        };
        let mut r = Reader::new(bytes, 0, "ModelProto");
        while let Some((n, v, at)) = r.field()? {
            let sub = |field: &str| match v {
                Value::Bytes(b) => Ok(b),
                _ => Err(wrong("ModelProto", field, at)),
            };
            match n {
                1 => {
                    let index = m.pieces.len();
                    m.pieces.push(piece(sub("pieces")?, at, index)?);
                }
                2 => trainer_spec(sub("trainer_spec")?, at, &mut m.trainer_spec)?,
                3 => normalizer_spec(sub("normalizer_spec")?, at, "normalizer_spec", &mut m.normalizer_spec)?,
                5 => {
                    let spec = m.denormalizer_spec.get_or_insert_with(NormalizerSpec::default);
                    normalizer_spec(sub("denormalizer_spec")?, at, "denormalizer_spec", spec)?
                }
                _ => {}
            }
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(bytes: &[u8]) -> String {
        ModelProto::parse(bytes).map(|_| ()).unwrap_err().to_string()
    }

    #[test]
    fn malformed_protobuf_is_an_error_naming_the_byte() {
        assert!(error(b"\x0a\x80").contains("ModelProto at byte 1: truncated varint"));
        assert!(error(b"\x08\x01").contains("field pieces has the wrong wire type"));
        assert!(error(b"\x0a\x10abc").contains("length 16 runs past the end"));
        assert!(error(b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\x7fx").contains("runs past the end"));
        assert!(error(b"\x0a\x03\x0a\x01\xff").contains("pieces[0].piece is not valid UTF-8"));
        assert!(error(b"\x0b").contains("wire type 3"));
    }

    #[test]
    fn defaults_and_merged_sub_messages() {
        // trainer_spec given twice: the fields of both apply, as protobuf merges them.
        let m = ModelProto::parse(b"\x12\x02\x18\x02\x12\x03\x98\x02\x01\x0a\x05\x0a\x01a\x18\x02").unwrap();
        assert_eq!((m.trainer_spec.model_type, m.trainer_spec.byte_fallback), (2, true));
        assert_eq!((m.pieces.len(), m.pieces[0].kind, m.pieces[0].score), (1, PieceType::Unknown, 0.0));
        assert!(m.normalizer_spec.add_dummy_prefix && m.denormalizer_spec.is_none());
    }
}
