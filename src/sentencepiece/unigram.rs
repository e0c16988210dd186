//! sentencepiece's Unigram Viterbi (unigram_model.cc, `EncodeOptimized`): for
//! each char position, every piece starting there (shortest first) offers
//! best(start) + score; a later offer wins only if strictly better, so ties go
//! to the piece that starts earliest. The sums are f32, as the installed
//! library computes them (measured: summing in f64, as the C++ source reads,
//! breaks ties differently on 26 UD lines, e.g. `.` `...` vs `...` `.`). A
//! user-defined piece scores `len * max_score - 0.1` (max_score over NORMAL
//! pieces, never below FLT_MIN: about -0.1 for trained models). A char that no
//! piece of exactly its length covers gets the unknown offer `min_score - 10`.
//!
//! [`viterbi`] also reports the smallest decision margin (best offer minus the
//! runner-up, over every node), which the word cache of [`super::words`] uses
//! to prove a word's result does not depend on the score before it.

use super::Processor;
use crate::room::make_room;
use crate::Result;

/// What a failed allocation names.
const WHAT: &str = "sentencepiece lattice";

#[derive(Clone, Copy)]
pub struct Node {
    id: u32,
    score: f32,
    /// The best losing offer (-inf while there is none).
    second: f32,
    start: usize,
}

/// sentencepiece's OneCharLen: the UTF-8 length its lead byte announces.
pub fn one_char_len(b: u8) -> usize {
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4][(b >> 4) as usize]
}

/// The score of a piece the Viterbi chose (`unk_id` is only ever the unknown offer).
#[inline]
pub fn piece_score(p: &Processor, id: u32) -> f32 {
    if id == p.unk_id {
        p.min_score - 10.0f32
    } else {
        p.viterbi_scores[id as usize]
    }
}

#[inline]
fn offer(target: &mut Node, id: u32, score: f32, start: usize) {
    if target.start == usize::MAX {
        *target = Node { id, score, second: f32::NEG_INFINITY, start };
    } else if score > target.score {
        *target = Node { id, score, second: target.score, start };
    } else if score > target.second {
        target.second = score;
    }
}

/// The Viterbi over `text` (the whole normalized text, or one word of it that
/// every path passes through) starting from the score `base`. Pushes the
/// (start + shift, end + shift, id) spans to `out` and returns the score at the
/// end and the smallest margin (f64::INFINITY where no node had two offers;
/// NaN scores make it NaN, which no check accepts). `nodes` is scratch.
pub fn viterbi(p: &Processor, text: &[u8], base: f32, shift: usize, out: &mut Vec<(usize, usize, u32)>, nodes: &mut Vec<Node>) -> Result<(f32, f64)> {
    let size = text.len();
    if size == 0 {
        return Ok((base, f64::INFINITY));
    }
    let unk_score = p.min_score - 10.0f32;
    nodes.clear();
    // 24 bytes a byte of the text: a long word's lattice is made fallibly
    make_room(nodes, size + 1, WHAT)?;
    nodes.resize(size + 1, Node { id: u32::MAX, score: 0.0, second: f32::NEG_INFINITY, start: usize::MAX });
    nodes[0].start = 0;
    nodes[0].score = base;
    let mut start = 0;
    while start < size {
        let here = nodes[start].score;
        let mblen = one_char_len(text[start]).min(size - start);
        let mut single = false;
        p.trie.prefixes(&text[start..], |len, id| {
            offer(&mut nodes[start + len], id, p.viterbi_scores[id as usize] + here, start);
            single |= len == mblen;
        });
        if !single {
            offer(&mut nodes[start + mblen], p.unk_id, unk_score + here, start);
        }
        start += mblen;
    }
    let mut margin = f64::INFINITY;
    for n in &nodes[1..] {
        if n.start != usize::MAX && n.second != f32::NEG_INFINITY {
            let m = n.score as f64 - n.second as f64;
            // `min` would drop a NaN; keep it so the margin check fails.
            margin = if m.is_nan() || margin.is_nan() { f64::NAN } else { margin.min(m) };
        }
    }
    // room for the path first: a piece per char at most
    let (mut pieces, mut end) = (0, size);
    while end > 0 {
        pieces += 1;
        end = nodes[end].start;
    }
    make_room(out, pieces, WHAT)?;
    let first = out.len();
    let mut end = size;
    while end > 0 {
        let node = nodes[end];
        out.push((node.start + shift, end + shift, node.id));
        end = node.start;
    }
    out[first..].reverse();
    Ok((nodes[size].score, margin))
}

pub fn encode(p: &Processor, normalized: &str) -> Result<Vec<(usize, usize, u32)>> {
    let mut out = Vec::new();
    viterbi(p, normalized.as_bytes(), 0.0, 0, &mut out, &mut Vec::new())?;
    Ok(out)
}
