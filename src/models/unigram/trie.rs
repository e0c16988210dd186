//! A byte trie of the Unigram pieces for common-prefix search: every piece
//! that starts a text, shortest first (HF's `Trie::common_prefix_search`).

#[derive(Clone, Debug, Default)]
struct Node {
    /// (byte, child index), sorted by byte.
    children: Vec<(u8, u32)>,
    piece: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Trie {
    nodes: Vec<Node>,
}

impl Trie {
    pub fn new() -> Trie {
        Trie { nodes: vec![Node::default()] }
    }

    /// Adds `piece` with its id (an empty piece is never matched, as in HF).
    pub fn insert(&mut self, piece: &[u8], id: u32) {
        let mut node = 0usize;
        for &b in piece {
            let next = self.nodes.len() as u32;
            let children = &mut self.nodes[node].children;
            node = match children.binary_search_by_key(&b, |&(l, _)| l) {
                Ok(i) => children[i].1 as usize,
                Err(i) => {
                    children.insert(i, (b, next));
                    self.nodes.push(Node::default());
                    next as usize
                }
            };
        }
        if !piece.is_empty() {
            self.nodes[node].piece = Some(id);
        }
    }

    /// Calls `f(length, id)` for every piece that is a prefix of `text`, shortest first.
    pub fn prefixes(&self, text: &[u8], mut f: impl FnMut(usize, u32)) {
        let mut node = 0usize;
        for (i, &b) in text.iter().enumerate() {
            let children = &self.nodes[node].children;
            match children.binary_search_by_key(&b, |&(l, _)| l) {
                Ok(k) => node = children[k].1 as usize,
                Err(_) => return,
            }
            if let Some(id) = self.nodes[node].piece {
                f(i + 1, id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_shortest_first() {
        let mut t = Trie::new();
        for (i, p) in ["a", "ab", "abc", "b", ""].iter().enumerate() {
            t.insert(p.as_bytes(), i as u32);
        }
        let mut hits = Vec::new();
        t.prefixes(b"abd", |n, id| hits.push((n, id)));
        assert_eq!(hits, vec![(1, 0), (2, 1)]);
    }
}
