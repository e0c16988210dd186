//! The Unigram model's piece trie over chars, a double array: each char of
//! the vocabulary gets a dense id (a two-level table by code point), and a
//! step of the walk is one char, one 16-byte cell load (`base + char id`,
//! owned when its `check` is the node) that also holds the score of the
//! piece ending there, so the Viterbi reads no second table per piece. The
//! byte trie it replaces (the sentencepiece path's `PieceTrie`, kept there)
//! took three steps per CJK char, each a child search and a node load: on
//! Japanese text the walk was most of the call. A char outside the
//! vocabulary's alphabet has id 0, which no node has a child for (children
//! are at `base + id`, id >= 1), so the walk stops there without a test of
//! its own.

use crate::{Error, Result};
use super::trie::label_runs;

const NONE: u32 = u32::MAX;
/// Code points per page of the char-id table.
const PAGE: usize = 256;
/// Pages of the code space (U+0000..U+10FFFF).
const PAGES: usize = 0x11_0000 / PAGE;
/// The bit of `check` set when a piece ends at the cell; the rest is the owner.
const PIECE: u32 = 1 << 31;
/// The owner of free cells and of the root: no node's number.
const NOBODY: u32 = PIECE - 1;
/// Cells at most (node numbers fit beside the piece bit, below `NOBODY`).
const MAX_CELLS: usize = NOBODY as usize;

/// A double-array cell: the node it is (owned by node `check & !PIECE`,
/// `PIECE` set when a piece ends there), where its children start
/// (`base + char id`) and the score of the piece ending there.
#[derive(Clone, Copy, Debug)]
struct Cell {
    base: u32,
    check: u32,
    score: f64,
}

const FREE: Cell = Cell { base: 0, check: NOBODY, score: 0.0 };

/// Free cells tried as a node's first child before the search moves to the array's end.
const TRIES: usize = 256;

#[derive(Clone, Debug)]
pub(crate) struct CharTrie {
    /// Page of each 256 code points in `char_ids` (0: the page of no char, all zeros).
    pages: Vec<u16>,
    char_ids: Vec<u32>,
    /// Cell 0 is the root; past the last node, room for a child of every
    /// char id (a step from any cell never falls off the array).
    cells: Vec<Cell>,
    /// The id of the piece ending at each cell (`NONE`: none).
    piece_ids: Vec<u32>,
}

impl CharTrie {
    /// The trie of `pieces` (distinct strings with their ids and scores; an
    /// empty one is never matched). Past 2^31 cells, an error.
    pub(crate) fn new<'a>(pieces: impl IntoIterator<Item = (&'a str, u32, f64)>) -> Result<CharTrie> {
        let pieces: Vec<(&str, u32, f64)> = pieces.into_iter().filter(|(p, _, _)| !p.is_empty()).collect();
        // Chars numbered as they first come in the vocabulary (sentencepiece
        // files list the likeliest pieces first): the frequent chars' cells
        // (the root's children, at their ids) share cache lines.
        let mut alphabet: Vec<char> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for c in pieces.iter().flat_map(|(p, _, _)| p.chars()) {
            if seen.insert(c) {
                alphabet.push(c);
            }
        }
        let mut t = CharTrie { pages: vec![0; PAGES], char_ids: vec![0; PAGE], cells: vec![FREE], piece_ids: vec![NONE] };
        for (i, &c) in alphabet.iter().enumerate() {
            let page = c as usize / PAGE;
            if t.pages[page] == 0 {
                // at most PAGES (4352) pages: a u16
                t.pages[page] = (t.char_ids.len() / PAGE) as u16;
                t.char_ids.resize(t.char_ids.len() + PAGE, 0);
            }
            t.char_ids[t.pages[page] as usize * PAGE + c as usize % PAGE] = i as u32 + 1;
        }
        let mut keyed: Vec<(Vec<u32>, u32, f64)> = pieces.iter().map(|&(p, id, score)| (p.chars().map(|c| t.char_id(c)).collect(), id, score)).collect();
        keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        t.place(&keyed)?;
        // a step from any node lands in the array: `base + id` is at most the last base plus the alphabet
        let end = t.cells.iter().map(|c| c.base as usize).max().unwrap_or(0) + alphabet.len() + 1;
        if end > MAX_CELLS {
            return Err(Error::Config(format!("model.vocab: {} pieces make a trie of over {MAX_CELLS} nodes", pieces.len())));
        }
        if end > t.cells.len() {
            t.cells.resize(end, FREE);
            t.piece_ids.resize(end, NONE);
        }
        Ok(t)
    }

    /// Places the nodes breadth first: each node's children at the first
    /// base whose cells for their ids are all free.
    fn place(&mut self, keyed: &[(Vec<u32>, u32, f64)]) -> Result<()> {
        // `used[p]`: cell p is taken; then `skip[p]` is a cell after it to look on from for a
        // free one (shortened as it is followed), so a search never steps over taken cells one
        // by one (that made a 250,000-piece vocabulary take seconds to load).
        let mut free = FreeCells { used: vec![true], skip: vec![1] };
        let mut queue = std::collections::VecDeque::from([(0usize, 0usize, keyed.len(), 0usize)]);
        let (mut labels, mut ranges) = (Vec::new(), Vec::new());
        while let Some((cell, mut lo, hi, depth)) = queue.pop_front() {
            // Sorted: the piece that ends at this node (if any) comes first among those sharing it.
            if lo < hi && keyed[lo].0.len() == depth {
                self.cells[cell].check |= PIECE;
                self.cells[cell].score = keyed[lo].2;
                self.piece_ids[cell] = keyed[lo].1;
                lo += 1;
            }
            labels.clear();
            ranges.clear();
            for (c, i, j) in label_runs(lo, hi, |k| keyed[k].0[depth]) {
                labels.push(c as usize);
                ranges.push((i, j));
            }
            let Some(&lowest) = labels.first() else { continue };
            // The first free cell at or after `lowest` whose base fits every label, among the
            // first TRIES free cells; then the same from near the array's end. (Labels are char
            // ids, spread over the alphabet: with a vocabulary of thousands of chars, a search
            // from the start went through most free cells for each node with several children.)
            let mut at = free.next(lowest);
            let mut tries = 0;
            let base = loop {
                let base = at - lowest;
                if labels.iter().all(|&l| !free.taken(base + l)) {
                    break base;
                }
                tries += 1;
                at = match tries {
                    // then from where the children's span would end at the last cell: the
                    // sparse end of the array (past it every base fits)
                    TRIES => free.next(free.used.len().saturating_sub(labels.last().copied().unwrap_or(0) - lowest).max(lowest)),
                    _ => free.next(at + 1),
                };
            };
            self.cells[cell].base = base as u32;
            let end = base + labels.last().copied().unwrap_or(0) + 1;
            if end > MAX_CELLS {
                return Err(Error::Config(format!("model.vocab: {} pieces make a trie of over {MAX_CELLS} nodes", keyed.len())));
            }
            if end > self.cells.len() {
                self.cells.resize(end, FREE);
                self.piece_ids.resize(end, NONE);
            }
            for (&l, &(i, j)) in labels.iter().zip(&ranges) {
                free.take(base + l);
                self.cells[base + l].check = cell as u32;
                queue.push_back((base + l, i, j, depth + 1));
            }
        }
        Ok(())
    }

    /// `c`'s id (0: no piece holds it).
    #[inline(always)]
    pub(crate) fn char_id(&self, c: char) -> u32 {
        self.id_of(c as u32)
    }

    #[inline(always)]
    fn id_of(&self, cp: u32) -> u32 {
        let cp = cp as usize;
        let page = self.pages.get(cp / PAGE).copied().unwrap_or(0) as usize;
        self.char_ids.get(page * PAGE + cp % PAGE).copied().unwrap_or(0)
    }

    /// Pushes the id of each char of `text` onto `ids` and its byte offset
    /// onto `at` (both have room for them), the UTF-8 decoded without
    /// validation (`unicode::decode_valid_at`: `chars()` and a push per char
    /// cost a tenth of a Japanese line's Viterbi). The offsets turn the
    /// best path's char indices into byte spans without a second decode.
    #[inline]
    pub(crate) fn push_char_ids(&self, text: &str, ids: &mut Vec<u32>, at: &mut Vec<u32>) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while let Some((cp, len)) = crate::unicode::decode_valid_at(bytes, i) {
            ids.push(self.id_of(cp));
            // the caller's words are under 4 GB
            at.push(i as u32);
            i += len;
        }
    }

    /// Calls `f(chars, node, score)` for every piece that is a prefix of the
    /// text whose char ids are `ids`, shortest first (`node`: its cell, for
    /// [`CharTrie::piece_id`]).
    #[inline(always)]
    pub(crate) fn prefixes(&self, ids: &[u32], mut f: impl FnMut(usize, u32, f64)) {
        let mut node = 0u32;
        let Some(mut base) = self.cells.first().map(|c| c.base) else { return };
        for (i, &c) in ids.iter().enumerate() {
            let at = base.wrapping_add(c);
            match self.cells.get(at as usize) {
                Some(cell) if cell.check & !PIECE == node => {
                    if cell.check & PIECE != 0 {
                        f(i + 1, at, cell.score);
                    }
                    node = at;
                    base = cell.base;
                }
                _ => return,
            }
        }
    }

    /// The id of the piece ending at cell `node` (as [`CharTrie::prefixes`] gives it).
    #[inline]
    pub(crate) fn piece_id(&self, node: u32) -> u32 {
        self.piece_ids.get(node as usize).copied().unwrap_or(NONE)
    }
}

/// The taken cells of a double array under construction, with skip links past runs of them.
struct FreeCells {
    used: Vec<bool>,
    skip: Vec<usize>,
}

impl FreeCells {
    fn taken(&self, p: usize) -> bool {
        self.used.get(p) == Some(&true)
    }

    /// The first free cell at or after `p` (cells past the end are free).
    fn next(&mut self, p: usize) -> usize {
        let mut q = p;
        while self.taken(q) {
            q = self.skip.get(q).copied().unwrap_or(q + 1);
        }
        // every taken cell on the way now skips straight to `q`
        let mut r = p;
        while r < q && self.taken(r) {
            let n = self.skip.get(r).copied().unwrap_or(q);
            if let Some(s) = self.skip.get_mut(r) {
                *s = q;
            }
            r = n;
        }
        q
    }

    fn take(&mut self, p: usize) {
        if p >= self.used.len() {
            self.used.resize(p + 1, false);
            self.skip.resize(p + 1, 0);
        }
        self.used[p] = true;
        self.skip[p] = p + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(t: &CharTrie, text: &str) -> Vec<(usize, u32)> {
        let ids: Vec<u32> = text.chars().map(|c| t.char_id(c)).collect();
        let (mut pushed, mut at) = (Vec::new(), Vec::new());
        t.push_char_ids(text, &mut pushed, &mut at);
        assert_eq!(pushed, ids);
        assert_eq!(at, text.char_indices().map(|(i, _)| i as u32).collect::<Vec<_>>());
        let mut h = Vec::new();
        t.prefixes(&ids, |n, node, score| {
            let id = t.piece_id(node);
            assert_eq!(score, id as f64 / 8.0, "the score of piece {id}");
            h.push((n, id))
        });
        h
    }

    /// A vocabulary over thousands of chars (nodes whose children's ids are far apart: the
    /// placement's search moves to the array's end): every prefix found, as a set of the pieces
    /// says, and the array not much larger than the nodes.
    #[test]
    fn large_alphabets_place_every_node() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) % n
        };
        // a char: most among 300, some among 6,000
        let char_of = |next: &mut dyn FnMut(u64) -> u64, wide: u64| {
            let range = if next(5) == 0 { wide } else { 300 };
            char::from_u32(0x4E00 + next(range) as u32)
        };
        let mut pieces = std::collections::HashSet::new();
        while pieces.len() < 20_000 {
            let len = next(4) + 1;
            let p: String = (0..len).filter_map(|_| char_of(&mut next, 6000)).collect();
            pieces.insert(p);
        }
        let pieces: Vec<String> = pieces.into_iter().collect();
        let t = CharTrie::new(pieces.iter().enumerate().map(|(i, p)| (p.as_str(), i as u32, i as f64 / 8.0))).unwrap();
        let nodes: std::collections::HashSet<&str> = pieces.iter().flat_map(|p| p.char_indices().map(move |(i, c)| &p[..i + c.len_utf8()])).collect();
        assert!(t.cells.len() < 3 * nodes.len() + 6300, "{} cells for {} nodes", t.cells.len(), nodes.len());
        for _ in 0..2000 {
            let text: String = (0..6).filter_map(|_| char_of(&mut next, 6100)).collect();
            let mut want: Vec<(usize, u32)> = pieces.iter().enumerate().filter(|(_, p)| text.starts_with(p.as_str())).map(|(i, p)| (p.chars().count(), i as u32)).collect();
            want.sort_unstable();
            assert_eq!(hits(&t, &text), want, "{text:?}");
        }
    }

    /// Every piece that is a prefix of the text, shortest first, as a scan of the pieces finds them.
    #[test]
    fn prefixes_are_the_pieces_that_start_the_text() {
        let mut pieces: Vec<String> = ["a", "ab", "abc", "b", "", "日", "日本", "日本語", "本", "▁", "▁日", "é", "😀x"].map(String::from).to_vec();
        // a node with hundreds of children
        pieces.extend((0x3041..0x3097).filter_map(char::from_u32).map(|c| format!("▁{c}")));
        let t = CharTrie::new(pieces.iter().enumerate().map(|(i, p)| (p.as_str(), i as u32, i as f64 / 8.0))).unwrap();
        for text in ["abd", "abcz", "", "xa", "日本語だ", "▁日本", "▁ぁ", "▁ゖx", "é", "😀x", "😀", "本日"] {
            let mut want: Vec<(usize, u32)> = pieces
                .iter()
                .enumerate()
                .filter(|(_, p)| !p.is_empty() && text.starts_with(p.as_str()))
                .map(|(i, p)| (p.chars().count(), i as u32))
                .collect();
            want.sort_unstable();
            assert_eq!(hits(&t, text), want, "{text:?}");
        }
        assert_eq!(t.char_id('z'), 0);
        assert_eq!(t.char_id('\u{10FFFF}'), 0);
    }
}
