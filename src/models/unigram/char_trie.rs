//! The Unigram model's piece trie over chars, a double array: each char of
//! the vocabulary gets a dense id (a two-level table by code point), and a
//! step of the walk is one char, one 12-byte cell load (`base + char id`,
//! owned when its `check` is the node). The byte trie it replaces (the
//! sentencepiece path's `PieceTrie`, kept there) took three steps per CJK
//! char, each a child search and a node load: on Japanese text the walk was
//! most of the call. A char outside the vocabulary's alphabet has id 0,
//! which no node has a child for (children are at `base + id`, id >= 1), so
//! the walk stops there without a test of its own.

const NONE: u32 = u32::MAX;
/// Code points per page of the char-id table.
const PAGE: usize = 256;
/// Pages of the code space (U+0000..U+10FFFF).
const PAGES: usize = 0x11_0000 / PAGE;

/// A double-array cell: the node it is (owned by node `check`), where its
/// children start (`base + char id`) and the piece ending there (`NONE`: none).
#[derive(Clone, Copy, Debug)]
struct Cell {
    base: u32,
    check: u32,
    id: u32,
}

const FREE: Cell = Cell { base: 0, check: NONE, id: NONE };

#[derive(Clone, Debug)]
pub(crate) struct CharTrie {
    /// Page of each 256 code points in `char_ids` (0: the page of no char, all zeros).
    pages: Vec<u16>,
    char_ids: Vec<u32>,
    /// Cell 0 is the root.
    cells: Vec<Cell>,
}

impl CharTrie {
    /// The trie of `pieces` (distinct strings with their ids; an empty one is never matched).
    pub(crate) fn new<'a>(pieces: impl IntoIterator<Item = (&'a str, u32)>) -> CharTrie {
        let pieces: Vec<(&str, u32)> = pieces.into_iter().filter(|(p, _)| !p.is_empty()).collect();
        // Chars numbered as they first come in the vocabulary (sentencepiece
        // files list the likeliest pieces first): the frequent chars' cells
        // (the root's children, at their ids) share cache lines.
        let mut alphabet: Vec<char> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for c in pieces.iter().flat_map(|(p, _)| p.chars()) {
            if seen.insert(c) {
                alphabet.push(c);
            }
        }
        let mut t = CharTrie { pages: vec![0; PAGES], char_ids: vec![0; PAGE], cells: vec![Cell { check: NONE - 1, ..FREE }] };
        for (i, &c) in alphabet.iter().enumerate() {
            let page = c as usize / PAGE;
            if t.pages[page] == 0 {
                // at most PAGES (4352) pages: a u16
                t.pages[page] = (t.char_ids.len() / PAGE) as u16;
                t.char_ids.resize(t.char_ids.len() + PAGE, 0);
            }
            t.char_ids[t.pages[page] as usize * PAGE + c as usize % PAGE] = i as u32 + 1;
        }
        let mut keyed: Vec<(Vec<u32>, u32)> = pieces.iter().map(|&(p, id)| (p.chars().map(|c| t.char_id(c)).collect(), id)).collect();
        keyed.sort_unstable();
        t.place(&keyed);
        t
    }

    /// Places the nodes breadth first: each node's children at the first
    /// base whose cells for their ids are all free.
    fn place(&mut self, keyed: &[(Vec<u32>, u32)]) {
        let mut used = vec![true];
        // The first cell that may be free (every cell before it is used).
        let mut first_free = 1usize;
        let mut queue = std::collections::VecDeque::from([(0usize, 0usize, keyed.len(), 0usize)]);
        let mut labels = Vec::new();
        while let Some((cell, mut lo, hi, depth)) = queue.pop_front() {
            // Sorted: the piece that ends at this node (if any) comes first among those sharing it.
            if lo < hi && keyed[lo].0.len() == depth {
                self.cells[cell].id = keyed[lo].1;
                lo += 1;
            }
            labels.clear();
            let mut ranges = Vec::new();
            let mut i = lo;
            while i < hi {
                let c = keyed[i].0[depth];
                let mut j = i + 1;
                while j < hi && keyed[j].0[depth] == c {
                    j += 1;
                }
                labels.push(c as usize);
                ranges.push((i, j));
                i = j;
            }
            let Some(&lowest) = labels.first() else { continue };
            while used.get(first_free) == Some(&true) {
                first_free += 1;
            }
            let free = |at: usize| used.get(at) != Some(&true);
            let mut at = first_free.max(lowest);
            let base = loop {
                let base = at - lowest;
                if labels.iter().all(|&l| free(base + l)) {
                    break base;
                }
                at += 1;
                while !free(at) {
                    at += 1;
                }
            };
            self.cells[cell].base = base as u32;
            let end = base + labels.last().copied().unwrap_or(0) + 1;
            if end > used.len() {
                used.resize(end, false);
                self.cells.resize(end, FREE);
            }
            for (&l, &(i, j)) in labels.iter().zip(&ranges) {
                used[base + l] = true;
                self.cells[base + l].check = cell as u32;
                queue.push_back((base + l, i, j, depth + 1));
            }
        }
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

    /// Pushes the id of each char of `text` onto `out` (which has room for
    /// them), the UTF-8 decoded by hand (`chars()` and a push per char cost
    /// a tenth of a Japanese line's Viterbi).
    #[inline]
    pub(crate) fn push_char_ids(&self, text: &str, out: &mut Vec<u32>) {
        let bytes = text.as_bytes();
        let tail = |i: usize| bytes.get(i).map_or(0, |&b| u32::from(b) & 0x3F);
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            let (cp, len) = match b {
                0x00..=0x7F => (u32::from(b), 1),
                0x80..=0xDF => ((u32::from(b) & 0x1F) << 6 | tail(i + 1), 2),
                0xE0..=0xEF => ((u32::from(b) & 0x0F) << 12 | tail(i + 1) << 6 | tail(i + 2), 3),
                _ => ((u32::from(b) & 0x07) << 18 | tail(i + 1) << 12 | tail(i + 2) << 6 | tail(i + 3), 4),
            };
            out.push(self.id_of(cp));
            i += len;
        }
    }

    /// Calls `f(chars, id)` for every piece that is a prefix of the text
    /// whose char ids are `ids`, shortest first.
    #[inline(always)]
    pub(crate) fn prefixes(&self, ids: &[u32], mut f: impl FnMut(usize, u32)) {
        let mut node = 0u32;
        let Some(mut base) = self.cells.first().map(|c| c.base) else { return };
        for (i, &c) in ids.iter().enumerate() {
            let at = base.wrapping_add(c);
            match self.cells.get(at as usize) {
                Some(cell) if cell.check == node => {
                    if cell.id != NONE {
                        f(i + 1, cell.id);
                    }
                    node = at;
                    base = cell.base;
                }
                _ => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(t: &CharTrie, text: &str) -> Vec<(usize, u32)> {
        let ids: Vec<u32> = text.chars().map(|c| t.char_id(c)).collect();
        let mut pushed = Vec::new();
        t.push_char_ids(text, &mut pushed);
        assert_eq!(pushed, ids);
        let mut h = Vec::new();
        t.prefixes(&ids, |n, id| h.push((n, id)));
        h
    }

    /// Every piece that is a prefix of the text, shortest first, as a scan of the pieces finds them.
    #[test]
    fn prefixes_are_the_pieces_that_start_the_text() {
        let mut pieces: Vec<String> = ["a", "ab", "abc", "b", "", "日", "日本", "日本語", "本", "▁", "▁日", "é", "😀x"].map(String::from).to_vec();
        // a node with hundreds of children
        pieces.extend((0x3041..0x3097).filter_map(char::from_u32).map(|c| format!("▁{c}")));
        let t = CharTrie::new(pieces.iter().enumerate().map(|(i, p)| (p.as_str(), i as u32)));
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
