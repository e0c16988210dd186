//! sentencepiece's BPE encode (bpe_model.cc): the text starts as chars (a
//! user-defined symbol is one frozen symbol); the adjacent pair whose
//! concatenation is a piece with the highest SCORE merges first, the leftmost
//! on ties; an UNUSED piece that was merged is split back into the pieces it
//! was merged from. There are no merge ranks: the score is the rank.

use super::model_proto::PieceType;
use super::unigram::one_char_len;
use super::Processor;
use crate::fxhash::FxHashMap;
use crate::room::{out_of_memory, try_push};
use crate::Result;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Symbol {
    prev: Option<usize>,
    next: Option<usize>,
    freeze: bool,
    start: usize,
    len: usize,
}

/// A candidate merge; the heap's max is the highest score, then the leftmost.
struct Pair {
    score: f32,
    left: usize,
    right: usize,
    size: usize,
}

impl PartialEq for Pair {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Pair {}
impl PartialOrd for Pair {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pair {
    fn cmp(&self, o: &Self) -> Ordering {
        // A NaN score (a hostile file) compares as equal: no panic, some order.
        let by_score = self.score.partial_cmp(&o.score).unwrap_or(Ordering::Equal);
        by_score.then(o.left.cmp(&self.left)).then(o.right.cmp(&self.right))
    }
}

pub fn encode(p: &Processor, normalized: &str) -> Result<Vec<(usize, usize, u32)>> {
    let text = normalized.as_bytes();
    let mut symbols: Vec<Symbol> = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let mut user = 0;
        if let Some(trie) = &p.user_defined {
            trie.prefixes(&text[pos..], |len, _, _| user = len);
        }
        let len = if user > 0 { user } else { one_char_len(text[pos]).min(text.len() - pos) };
        let index = symbols.len();
        try_push(&mut symbols, Symbol { prev: index.checked_sub(1), next: Some(index + 1), freeze: user > 0, start: pos, len }, WHAT)?;
        pos += len;
    }
    let Some(last) = symbols.last_mut() else { return Ok(Vec::new()) };
    last.next = None;

    let mut agenda = BinaryHeap::new();
    // Keyed by the piece's text, the last merge written wins, as in the library.
    let mut rev_merge: FxHashMap<&str, (&str, &str)> = FxHashMap::default();
    let mut offer = |symbols: &[Symbol], agenda: &mut BinaryHeap<Pair>, left: Option<usize>, right: Option<usize>| -> Result<()> {
        let (Some(l), Some(r)) = (left, right) else { return Ok(()) };
        let (a, b) = (&symbols[l], &symbols[r]);
        if a.freeze || b.freeze {
            return Ok(());
        }
        let piece = &normalized[a.start..a.start + a.len + b.len];
        let Some(&id) = p.pieces.get(piece) else { return Ok(()) };
        agenda.try_reserve(1).map_err(|_| out_of_memory::<Pair>(agenda.len() + 1, WHAT))?;
        agenda.push(Pair { score: p.proto.pieces[id as usize].score, left: l, right: r, size: piece.len() });
        if p.kind(id) == Some(PieceType::Unused) {
            rev_merge.try_reserve(1).map_err(|_| out_of_memory::<(&str, &str)>(rev_merge.len() + 1, WHAT))?;
            rev_merge.insert(piece, (&normalized[a.start..a.start + a.len], &normalized[b.start..b.start + b.len]));
        }
        Ok(())
    };
    for i in 1..symbols.len() {
        offer(&symbols, &mut agenda, Some(i - 1), Some(i))?;
    }
    while let Some(top) = agenda.pop() {
        let (l, r) = (top.left, top.right);
        if symbols[l].len == 0 || symbols[r].len == 0 || symbols[l].len + symbols[r].len != top.size {
            continue;
        }
        symbols[l].len += symbols[r].len;
        symbols[l].next = symbols[r].next;
        if let Some(n) = symbols[r].next {
            symbols[n].prev = Some(l);
        }
        symbols[r].len = 0;
        offer(&symbols, &mut agenda, symbols[l].prev, Some(l))?;
        offer(&symbols, &mut agenda, Some(l), symbols[l].next)?;
    }
    let mut out = Vec::new();
    let mut index = Some(0);
    while let Some(i) = index {
        let s = &symbols[i];
        resegment(p, &rev_merge, s.start, &normalized[s.start..s.start + s.len], &mut out)?;
        index = symbols[i].next;
    }
    Ok(out)
}

/// What a failed allocation names.
const WHAT: &str = "sentencepiece BPE symbols";

/// Splits a merged UNUSED piece back into the two it was merged from (`resegment`).
fn resegment(p: &Processor, rev_merge: &FxHashMap<&str, (&str, &str)>, start: usize, piece: &str, out: &mut Vec<(usize, usize, u32)>) -> Result<()> {
    let id = p.piece_to_id(piece);
    match (p.kind(id) == Some(PieceType::Unused)).then(|| rev_merge.get(piece)).flatten() {
        Some(&(a, b)) => {
            resegment(p, rev_merge, start, a, out)?;
            resegment(p, rev_merge, start + a.len(), b, out)
        }
        None => try_push(out, (start, start + piece.len(), id), WHAT),
    }
}
