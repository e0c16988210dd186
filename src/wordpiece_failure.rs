//! LinMaxMatch's failure links and pops over the trie.

use super::trie::{Trie, NO_NODE, NO_TOKEN};

/// LinMaxMatch tables. Following a failure link is one load: per trie
/// node, one `u64` holds the link (low half) and what to emit on the way
/// (high half) — nothing (NO_POP), one token index (most nodes), or, with
/// the MANY bit, where a longer list starts in `lists` (its length, then its
/// token indexes).
#[derive(Clone, Debug)]
pub(super) struct Failure {
    pub(super) steps: Vec<u64>,
    lists: Vec<u32>,
}

const NO_POP: u32 = u32::MAX;
const MANY: u32 = 1 << 31;

impl Failure {
    /// Breadth-first over the trie (the paper's Algorithm 1): a token node
    /// fails to the continuation root after emitting itself; any other node
    /// fails where its parent's failure chain can take the same byte,
    /// emitting what that chain emitted on the way.
    pub(super) fn build(trie: &Trie, continuation_root: u32) -> Self {
        let n = trie.len();
        let mut link = vec![NO_NODE; n];
        let mut pops = vec![(0u32, 0u32); n];
        let mut pop_tokens: Vec<u32> = Vec::new();
        let mut queue = std::collections::VecDeque::from([0u32]);
        let mut acc: Vec<u32> = Vec::new();
        while let Some(u) = queue.pop_front() {
            for (byte, v) in trie.children(u) {
                queue.push_back(v);
                if v == continuation_root {
                    continue; // the paper's r#: no failure link, nothing to pop
                }
                let t = trie.token(v);
                let start = pop_tokens.len() as u32;
                if t != NO_TOKEN {
                    link[v as usize] = continuation_root;
                    pop_tokens.push(t);
                } else {
                    let (a, b) = pops[u as usize];
                    acc.clear();
                    acc.extend_from_slice(&pop_tokens[a as usize..b as usize]);
                    let mut z = link[u as usize];
                    while z != NO_NODE && trie.child(z, byte).is_none() {
                        let (a, b) = pops[z as usize];
                        acc.extend_from_slice(&pop_tokens[a as usize..b as usize]);
                        z = link[z as usize];
                    }
                    if z != NO_NODE {
                        link[v as usize] = trie.child(z, byte).unwrap_or(NO_NODE);
                        pop_tokens.extend_from_slice(&acc);
                    }
                }
                pops[v as usize] = (start, pop_tokens.len() as u32);
            }
        }
        let mut lists = Vec::new();
        let steps = link
            .iter()
            .zip(&pops)
            .map(|(&l, &(a, b))| {
                let popped = &pop_tokens[a as usize..b as usize];
                let pop = match *popped {
                    [] => NO_POP,
                    [t] if t & MANY == 0 => t,
                    _ => {
                        let at = lists.len() as u32;
                        lists.push(popped.len() as u32);
                        lists.extend_from_slice(popped);
                        MANY | at
                    }
                };
                (pop as u64) << 32 | l as u64
            })
            .collect();
        Failure { steps, lists }
    }

    /// Follows `node`'s failure link, emitting its pops; None when it has no link.
    #[inline(always)]
    pub(super) fn follow(&self, node: u32, emit: &mut impl FnMut(u32)) -> Option<u32> {
        let step = self.steps[node as usize];
        let (link, pop) = (step as u32, (step >> 32) as u32);
        if link == NO_NODE {
            return None;
        }
        if pop & MANY == 0 {
            emit(pop);
        } else if pop != NO_POP {
            let at = (pop & !MANY) as usize;
            let len = self.lists.get(at).copied().unwrap_or(0) as usize;
            self.lists.get(at + 1..at + 1 + len).unwrap_or(&[]).iter().for_each(|&t| emit(t));
        }
        Some(link)
    }
}
