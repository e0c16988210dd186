//! One word under BPE: a linked list of symbols merged by rank, lowest first
//! (leftmost on ties), exactly as HF tokenizers' `Word::merge_all` without
//! dropout: a popped candidate is skipped when its left symbol was absorbed,
//! has no right neighbour any more, or the pair now makes another token.

use crate::room::{make_room, out_of_memory};
use crate::Result;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// (left id, right id) -> (rank, merged id).
pub type Merges = HashMap<(u32, u32), (u32, u32)>;

#[derive(Clone, Copy, Debug)]
struct Symbol {
    id: u32,
    prev: Option<usize>,
    next: Option<usize>,
    /// Bytes of the word this symbol covers (HF computes offsets from these).
    len: usize,
    alive: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Word {
    symbols: Vec<Symbol>,
}

impl Word {
    /// Room for `n` symbols (one a byte of the word at most), made fallibly:
    /// a word can be a whole text with no space (48 bytes a symbol).
    pub fn with_capacity(n: usize) -> Result<Self> {
        let mut symbols = Vec::new();
        make_room(&mut symbols, n, "BPE word")?;
        Ok(Word { symbols })
    }

    /// Appends a symbol `len` bytes long.
    pub fn add(&mut self, id: u32, len: usize) {
        let k = self.symbols.len();
        if let Some(last) = self.symbols.last_mut() {
            last.next = Some(k);
        }
        let prev = k.checked_sub(1);
        self.symbols.push(Symbol { id, prev, next: None, len, alive: true });
    }

    pub fn merge_all(&mut self, merges: &Merges) -> Result<()> {
        self.merge_all_by(|a, b| merges.get(&(a, b)).copied())
    }

    /// [`Word::merge_all`] with the merge table behind `get(left, right) -> (rank, new id)`
    /// (the byte-level fast path keeps its table in another map).
    pub fn merge_all_by(&mut self, get: impl Fn(u32, u32) -> Option<(u32, u32)>) -> Result<()> {
        // the queue grows fallibly (a merge queues up to two pairs)
        let push = |queue: &mut BinaryHeap<Reverse<(u32, usize, u32)>>, item| {
            queue.try_reserve(1).map_err(|_| out_of_memory::<Reverse<(u32, usize, u32)>>(queue.len() + 1, "BPE merge queue"))?;
            queue.push(item);
            Ok::<(), crate::Error>(())
        };
        let mut queue = BinaryHeap::new();
        queue.try_reserve(self.symbols.len()).map_err(|_| out_of_memory::<Reverse<(u32, usize, u32)>>(self.symbols.len(), "BPE merge queue"))?;
        for (pos, w) in self.symbols.windows(2).enumerate() {
            if let Some((rank, new_id)) = get(w[0].id, w[1].id) {
                queue.push(Reverse((rank, pos, new_id)));
            }
        }
        while let Some(Reverse((_, pos, new_id))) = queue.pop() {
            let left = self.symbols[pos];
            let Some(next_pos) = left.next.filter(|_| left.alive) else { continue };
            let right = self.symbols[next_pos];
            if get(left.id, right.id).is_none_or(|m| m.1 != new_id) {
                continue;
            }
            let merged = &mut self.symbols[pos];
            merged.id = new_id;
            merged.len += right.len;
            merged.next = right.next;
            self.symbols[next_pos].alive = false;
            if let Some(n) = right.next {
                self.symbols[n].prev = Some(pos);
            }
            let current = self.symbols[pos];
            if let Some(p) = current.prev {
                if let Some((rank, id)) = get(self.symbols[p].id, current.id) {
                    push(&mut queue, Reverse((rank, p, id)))?;
                }
            }
            if let Some(n) = current.next {
                if let Some((rank, id)) = get(current.id, self.symbols[n].id) {
                    push(&mut queue, Reverse((rank, pos, id)))?;
                }
            }
        }
        Ok(())
    }

    /// The surviving symbols in order: (id, start byte, end byte), the
    /// offsets running on from symbol to symbol as in HF.
    pub fn tokens(&self) -> impl Iterator<Item = (u32, usize, usize)> + '_ {
        let mut at = 0;
        self.symbols.iter().filter(|s| s.alive).map(move |s| {
            at += s.len;
            (s.id, at - s.len, at)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowest_rank_then_leftmost() {
        // a=0 b=1 ab=2 bb=3; "abb": ab (rank 0) beats bb (rank 1).
        let merges: Merges = [((0, 1), (0, 2)), ((1, 1), (1, 3))].into_iter().collect();
        let mut w = Word::default();
        for id in [0, 1, 1] {
            w.add(id, 1);
        }
        w.merge_all(&merges).unwrap();
        assert_eq!(w.tokens().collect::<Vec<_>>(), vec![(2, 0, 2), (1, 2, 3)]);
        // "bbb": leftmost bb first.
        let mut w = Word::default();
        for _ in 0..3 {
            w.add(1, 1);
        }
        w.merge_all(&merges).unwrap();
        assert_eq!(w.tokens().collect::<Vec<_>>(), vec![(3, 0, 2), (1, 2, 3)]);
    }
}
