//! sentencepiece's own processor (`sentencepiece_processor.cc`): a `.model`
//! file read by [`model_proto`], its [`normalizer`], the Unigram ([`unigram`])
//! or BPE ([`bpe`]) encoder and the [`decode`] rules, each as the library does
//! it (not as HF tokenizers' conversion of the same model does).

pub mod batch;
pub mod bpe;
pub mod decode;
pub mod model_proto;
pub mod normalizer;
pub mod small_words;
pub mod trie;
pub mod unigram;
pub mod words;

use crate::fxhash::FxHashMap;
use crate::models::unigram::trie::Trie;
use crate::{Error, Result};
use model_proto::{ModelProto, PieceType};
use normalizer::Normalizer;
use small_words::SmallTable;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use words::WordCut;

/// Numbers each loaded model for the per-thread word caches (never reused).
static NEXT_CACHE_ID: AtomicU64 = AtomicU64::new(0);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelType {
    Unigram,
    Bpe,
}

/// One loaded model, immutable and shared across threads.
pub struct Processor {
    pub proto: ModelProto,
    model_type: ModelType,
    /// NORMAL, USER_DEFINED and UNUSED pieces (`pieces_`).
    pieces: FxHashMap<String, u32>,
    /// UNKNOWN, CONTROL and BYTE pieces (`reserved_id_map_`), looked up first.
    reserved: FxHashMap<String, u32>,
    unk_id: u32,
    /// The id of each byte's `<0xXX>` piece when byte_fallback is on.
    byte_ids: Option<Vec<u32>>,
    /// User-defined symbols: passed through by the normalizer, frozen by BPE.
    user_defined: Option<Trie>,
    normalizer: Normalizer,
    denormalizer: Option<Normalizer>,
    /// Unigram: the trie of the pieces Viterbi may use (NORMAL and
    /// USER_DEFINED; UNUSED ones are skipped there anyway), each piece's
    /// Viterbi score by id (a user-defined piece's bonus precomputed), and the
    /// lowest NORMAL score (for the unknown penalty).
    trie: trie::PieceTrie,
    viterbi_scores: Vec<f32>,
    min_score: f32,
    /// Where words can be encoded one by one (see [`words`]), and the largest
    /// |score| the Viterbi can add (its error bound's M).
    words: Option<WordCut>,
    max_abs_score: f64,
    cache_id: u64,
    /// The compact word entries of the first thread whose cache grew large
    /// enough, moved here once and read by every thread (see [`words::share`]).
    shared_words: OnceLock<SmallTable>,
}

/// The normalized text and the model's spans of one text, kept between the
/// texts of a batch so each text does not allocate its own.
#[derive(Default)]
pub struct EncodeBuffers {
    normalized: String,
    spans: Vec<(usize, usize, u32)>,
}

impl EncodeBuffers {
    /// The most pieces [`Processor::emit`] gives: each covers a byte of the
    /// normalized text at least (an unknown piece's bytes one each).
    pub fn most_pieces(&self) -> usize {
        self.normalized.len()
    }
}

fn invalid(why: String) -> Error {
    Error::Config(format!("invalid sentencepiece model: {why}"))
}

/// `<0xXX>` -> XX (sentencepiece's PieceToByte accepts exactly this spelling).
pub fn piece_to_byte(piece: &str) -> Option<u8> {
    let hex = piece.strip_prefix("<0x")?.strip_suffix('>')?;
    if hex.len() != 2 || !hex.bytes().all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b)) {
        return None;
    }
    u8::from_str_radix(hex, 16).ok()
}

/// The model's [`WordCut`] (checked over the pieces the encoder uses) and the
/// largest |score| the Viterbi adds. None where a score is not finite (the
/// cache's bound needs finite sums) or, for BPE, an UNUSED piece exists (its
/// split back is keyed by the piece over the whole text).
fn word_cut(proto: &ModelProto, model_type: ModelType, pieces: &FxHashMap<String, u32>, scores: &[f32], min_score: f32) -> (Option<WordCut>, f64) {
    let usable = |id: u32| proto.pieces[id as usize].kind != PieceType::Unused;
    if model_type == ModelType::Bpe {
        let cut = pieces.values().all(|&id| usable(id)).then(|| WordCut::of(pieces.keys().map(|p| p.as_str()))).flatten();
        return (cut, 0.0);
    }
    let used = || pieces.iter().filter(|(_, &id)| usable(id));
    let unk = min_score - 10.0f32;
    let max_abs = used().map(|(_, &id)| scores[id as usize]).chain([unk]).map(|s| (s as f64).abs()).fold(0.0, f64::max);
    let finite = used().all(|(_, &id)| scores[id as usize].is_finite()) && unk.is_finite() && max_abs.is_finite();
    (finite.then(|| WordCut::of(used().map(|(p, _)| p.as_str()))).flatten(), max_abs)
}

impl Processor {
    /// Loads a serialized ModelProto with the checks of sentencepiece's InitializePieces.
    pub fn from_bytes(bytes: &[u8]) -> Result<Processor> {
        let proto = ModelProto::parse(bytes)?;
        let model_type = match proto.trainer_spec.model_type {
            1 => ModelType::Unigram,
            2 => ModelType::Bpe,
            3 | 4 => {
                return Err(Error::Unsupported(format!(
                    "sentencepiece model_type {} ({}) is not implemented: only UNIGRAM and BPE models",
                    proto.trainer_spec.model_type,
                    if proto.trainer_spec.model_type == 3 { "WORD" } else { "CHAR" }
                )))
            }
            t => return Err(invalid(format!("trainer_spec.model_type {t} is not a model type"))),
        };
        if proto.pieces.len() >= u32::MAX as usize {
            return Err(invalid(format!("{} pieces", proto.pieces.len())));
        }
        let (mut pieces, mut reserved) = (FxHashMap::default(), FxHashMap::default());
        let (mut unk_id, mut byte_ids) = (None, vec![u32::MAX; 256]);
        let byte_fallback = proto.trainer_spec.byte_fallback;
        let (mut min_score, mut max_score) = (f32::MAX, f32::MIN_POSITIVE);
        for (i, p) in proto.pieces.iter().enumerate() {
            let id = i as u32;
            if p.piece.is_empty() {
                return Err(invalid(format!("pieces[{i}].piece is empty")));
            }
            let normal = matches!(p.kind, PieceType::Normal | PieceType::UserDefined | PieceType::Unused);
            let map = if normal { &mut pieces } else { &mut reserved };
            if map.insert(p.piece.clone(), id).is_some() {
                return Err(invalid(format!("pieces[{i}].piece {:?} is already defined", p.piece)));
            }
            match p.kind {
                PieceType::Unknown if unk_id.is_some() => return Err(invalid(format!("pieces[{i}]: unk is already defined"))),
                PieceType::Unknown => unk_id = Some(id),
                PieceType::Byte => {
                    if !byte_fallback {
                        return Err(invalid(format!("byte piece {:?} is found although byte_fallback is false", p.piece)));
                    }
                    let b = piece_to_byte(&p.piece).ok_or_else(|| invalid(format!("byte piece {:?} is invalid", p.piece)))?;
                    byte_ids[b as usize] = id;
                }
                PieceType::Normal => {
                    min_score = min_score.min(p.score);
                    max_score = max_score.max(p.score);
                }
                _ => {}
            }
        }
        let unk_id = unk_id.ok_or_else(|| invalid("unk is not defined".into()))?;
        if byte_fallback && byte_ids.contains(&u32::MAX) {
            return Err(invalid("there are not 256 byte pieces although byte_fallback is true".into()));
        }
        // The trie's per-piece score is the HF Unigram's; only matching is used here.
        let user: Vec<(&[u8], u32, f64)> = (proto.pieces.iter().enumerate())
            .filter(|(_, p)| p.kind == PieceType::UserDefined)
            .map(|(i, p)| (p.piece.as_bytes(), i as u32, 0.0))
            .collect();
        let user_defined = (!user.is_empty()).then(|| Trie::new(user));
        let usable = |id: u32| proto.pieces[id as usize].kind != PieceType::Unused;
        let trie = trie::PieceTrie::new(pieces.iter().filter(|(_, &id)| usable(id)).map(|(p, &id)| (p.as_bytes(), id)));
        let viterbi_scores: Vec<f32> = (proto.pieces.iter())
            .map(|p| match p.kind {
                // `length * max_score_ - 0.1`: about -0.1 for trained models (max_score is at least FLT_MIN).
                PieceType::UserDefined => ((p.piece.len() as f32 * max_score) as f64 - 0.1) as f32,
                _ => p.score,
            })
            .collect();
        let (words, max_abs_score) = word_cut(&proto, model_type, &pieces, &viterbi_scores, min_score);
        let suffix = proto.trainer_spec.treat_whitespace_as_suffix;
        let mut normalizer = Normalizer::new(&proto.normalizer_spec, "normalizer_spec", suffix)?;
        let user_first = proto.pieces.iter().filter(|p| p.kind == PieceType::UserDefined).filter_map(|p| p.piece.bytes().next());
        normalizer.exclude_first_bytes(user_first);
        let denormalizer = match &proto.denormalizer_spec {
            Some(spec) if !spec.precompiled_charsmap.is_empty() => Some(Normalizer::new(spec, "denormalizer_spec", false)?),
            _ => None,
        };
        Ok(Processor {
            model_type,
            pieces,
            reserved,
            unk_id,
            byte_ids: byte_fallback.then_some(byte_ids),
            user_defined,
            normalizer,
            denormalizer,
            trie,
            viterbi_scores,
            min_score,
            words,
            max_abs_score,
            cache_id: NEXT_CACHE_ID.fetch_add(1, Ordering::Relaxed),
            shared_words: OnceLock::new(),
            proto,
        })
    }

    pub fn model_type(&self) -> ModelType {
        self.model_type
    }

    pub fn len(&self) -> usize {
        self.proto.pieces.len()
    }

    pub fn is_empty(&self) -> bool {
        self.proto.pieces.is_empty()
    }

    /// PieceToId: reserved pieces first, then the others, else unk.
    pub fn piece_to_id(&self, piece: &str) -> u32 {
        (self.reserved.get(piece).or_else(|| self.pieces.get(piece))).copied().unwrap_or(self.unk_id)
    }

    pub fn kind(&self, id: u32) -> Option<PieceType> {
        self.proto.pieces.get(id as usize).map(|p| p.kind)
    }

    pub fn normalize(&self, text: &str) -> Result<String> {
        self.normalizer.normalize(text, self.user_defined.as_ref())
    }

    /// Appends the (start, end, id) spans of the normalized text as the model splits it.
    fn model_encode(&self, normalized: &str, spans: &mut Vec<(usize, usize, u32)>) -> Result<()> {
        match (self.words, self.model_type) {
            (Some(cut), _) => words::encode(self, cut, normalized, spans),
            (None, ModelType::Unigram) => {
                *spans = unigram::encode(self, normalized)?;
                Ok(())
            }
            (None, ModelType::Bpe) => {
                *spans = bpe::encode(self, normalized)?;
                Ok(())
            }
        }
    }

    /// `text` normalized and split into `buffers` (made fallibly; a batch
    /// encodes many texts with one), for [`Self::emit`] to hand out: the
    /// caller makes the room of its output in between, knowing its bound.
    pub fn encode_spans(&self, text: &str, buffers: &mut EncodeBuffers) -> Result<()> {
        let EncodeBuffers { normalized, spans } = buffers;
        self.normalizer.normalize_into(text, self.user_defined.as_ref(), normalized)?;
        spans.clear();
        self.model_encode(normalized, spans)
    }

    /// The encoded pieces of `buffers` (PopulateSentencePieceText): runs of unknown
    /// pieces merge into one; with byte_fallback an unknown piece becomes its bytes.
    /// Calls `out(piece, id)` for each: at most [`EncodeBuffers::most_pieces`] calls.
    pub fn emit(&self, buffers: &EncodeBuffers, mut out: impl FnMut(&str, u32)) {
        let EncodeBuffers { normalized, spans } = buffers;
        let mut unk_run: Option<(usize, usize)> = None;
        for &(start, end, id) in spans.iter() {
            let is_unk = id == self.unk_id;
            if is_unk && self.byte_ids.is_none() {
                unk_run = Some(unk_run.map_or((start, end), |(s, _)| (s, end)));
                continue;
            }
            if let Some((s, e)) = unk_run.take() {
                out(&normalized[s..e], self.unk_id);
            }
            match (&self.byte_ids, is_unk) {
                (Some(bytes), true) => {
                    for &b in &normalized.as_bytes()[start..end] {
                        let piece = format!("<0x{b:02X}>");
                        out(&piece, bytes[b as usize]);
                    }
                }
                _ => out(&normalized[start..end], id),
            }
        }
        if let Some((s, e)) = unk_run {
            out(&normalized[s..e], self.unk_id);
        }
    }

    pub fn encode_ids(&self, text: &str) -> Result<Vec<u32>> {
        let mut buffers = EncodeBuffers::default();
        self.encode_spans(text, &mut buffers)?;
        let mut ids = Vec::new();
        crate::room::make_room(&mut ids, buffers.most_pieces(), "sentencepiece ids")?;
        self.emit(&buffers, |_, id| ids.push(id));
        Ok(ids)
    }

    pub fn encode_pieces(&self, text: &str) -> Result<Vec<String>> {
        let mut buffers = EncodeBuffers::default();
        self.encode_spans(text, &mut buffers)?;
        let mut pieces = Vec::new();
        crate::room::make_room(&mut pieces, buffers.spans.len(), "sentencepiece pieces")?;
        self.emit(&buffers, |p, _| pieces.push(p.to_string()));
        Ok(pieces)
    }
}
