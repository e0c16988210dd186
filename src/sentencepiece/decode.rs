//! sentencepiece's Decode (sentencepiece_processor.cc): control pieces vanish,
//! `<unk>` itself becomes the unk surface (` ⁇ `) while another unknown piece
//! stays as written, runs of byte pieces become their UTF-8 text (U+FFFD per
//! invalid byte), `▁` becomes a space, and the first piece loses its leading
//! `▁` when add_dummy_prefix or remove_extra_whitespaces is on. The
//! denormalizer, if the model has one, runs last.

use super::model_proto::PieceType;
use super::normalizer::SPACE_SYMBOL;
use super::{piece_to_byte, Processor};
use crate::room::{make_room, push_text, try_push};
use crate::Result;

const WHAT: &str = "decoded text";

/// The text of a run of byte pieces: one char per valid UTF-8 sequence, U+FFFD per stray byte.
fn push_bytes(text: &mut String, bytes: &mut Vec<u8>) -> Result<()> {
    let mut rest = &bytes[..];
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                push_text(text, s, WHAT)?;
                break;
            }
            Err(e) if e.valid_up_to() > 0 => {
                // Safe: the prefix was just validated.
                push_text(text, std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or_default(), WHAT)?;
                rest = &rest[e.valid_up_to()..];
            }
            Err(_) => {
                push_text(text, "\u{FFFD}", WHAT)?;
                rest = &rest[1..];
            }
        }
    }
    bytes.clear();
    Ok(())
}

impl Processor {
    /// The text of `pieces` (each looked up with PieceToId).
    pub fn decode_pieces<S: AsRef<str>>(&self, pieces: &[S]) -> Result<String> {
        let spec = &self.proto.normalizer_spec;
        let strip_first = spec.add_dummy_prefix || spec.remove_extra_whitespaces;
        let mut text = String::new();
        let mut bytes = Vec::new();
        let (mut is_bos_ws, mut bos_ws_seen) = (true, false);
        for piece in pieces {
            let piece = piece.as_ref();
            let id = self.piece_to_id(piece);
            let kind = self.kind(id);
            if kind == Some(PieceType::Byte) {
                if let Some(b) = piece_to_byte(piece) {
                    try_push(&mut bytes, b, WHAT)?;
                }
                continue;
            }
            push_bytes(&mut text, &mut bytes)?;
            if bos_ws_seen || !text.is_empty() {
                is_bos_ws = false;
            }
            bos_ws_seen = false;
            match kind {
                Some(PieceType::Control) => {}
                Some(PieceType::Unknown) if self.proto.pieces[id as usize].piece == piece => {
                    push_text(&mut text, &self.proto.trainer_spec.unk_surface, WHAT)?
                }
                Some(PieceType::Unknown) => push_text(&mut text, piece, WHAT)?,
                _ => {
                    let mut piece = piece;
                    if is_bos_ws && strip_first {
                        if let Some(rest) = piece.strip_prefix(SPACE_SYMBOL) {
                            piece = rest;
                            bos_ws_seen = !spec.remove_extra_whitespaces;
                        }
                    }
                    for (k, part) in piece.split(SPACE_SYMBOL).enumerate() {
                        if k > 0 {
                            push_text(&mut text, " ", WHAT)?;
                        }
                        push_text(&mut text, part, WHAT)?;
                    }
                }
            }
        }
        push_bytes(&mut text, &mut bytes)?;
        match &self.denormalizer {
            Some(d) => d.normalize(&text, None),
            None => Ok(text),
        }
    }

    /// The text of `ids`; None if an id is out of range.
    pub fn decode_ids(&self, ids: &[i64]) -> Option<Result<String>> {
        let mut pieces = Vec::new();
        if let Err(e) = make_room(&mut pieces, ids.len(), WHAT) {
            return Some(Err(e));
        }
        for &id in ids {
            pieces.push(usize::try_from(id).ok().and_then(|i| self.proto.pieces.get(i)).map(|p| p.piece.as_str())?);
        }
        Some(self.decode_pieces(&pieces))
    }
}
