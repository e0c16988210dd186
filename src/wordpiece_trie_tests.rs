//! The trie's steps against a map of the tokens' prefixes, on vocabularies
//! whose nodes take every form: no child, up to eight (labels searched),
//! more (a dense row of 256 entries, or of 64 when every child is a UTF-8
//! continuation byte).

use super::*;
use std::collections::{BTreeMap, BTreeSet};

fn rng(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// Every node's child along every byte, and its token, equal to the prefixes' map.
fn check(tokens: &[Vec<u8>]) -> (usize, usize) {
    let refs: Vec<&[u8]> = tokens.iter().map(|t| t.as_slice()).collect();
    let trie = Trie::build(&refs);
    let mut first = BTreeMap::new();
    for (i, t) in tokens.iter().enumerate() {
        first.entry(t.clone()).or_insert(i as u32);
    }
    let prefixes: BTreeSet<Vec<u8>> = tokens.iter().flat_map(|t| (0..=t.len()).map(|k| t[..k].to_vec())).collect();
    let (mut short, mut full) = (0, 0);
    for p in &prefixes {
        let node = trie.walk(0, p).expect("a prefix of a token is a node");
        assert_eq!(trie.token(node), first.get(p).copied().unwrap_or(NO_TOKEN), "token at {p:?}");
        let meta = trie.nodes[node as usize].meta;
        short += (meta & (DENSE | SHORT) == DENSE | SHORT) as usize;
        full += (meta & (DENSE | SHORT) == DENSE) as usize;
        for b in 0..=255u8 {
            let mut q = p.clone();
            q.push(b);
            assert_eq!(trie.child(node, b).is_some(), prefixes.contains(&q), "child {b:#x} of {p:?}");
        }
        let kids: Vec<u8> = trie.children(node).map(|(b, _)| b).collect();
        let want: Vec<u8> = (0..=255u8).filter(|&b| prefixes.contains(&[p.as_slice(), &[b]].concat())).collect();
        assert_eq!(kids, want, "children of {p:?}");
    }
    (short, full)
}

#[test]
fn steps_equal_the_prefixes_on_every_kind_of_node() {
    // ASCII, Cyrillic (two lead bytes), Greek, Devanagari (three bytes), an emoji (four), '#'.
    let mut letters: Vec<char> = ('a'..='l').collect();
    letters.extend(('а'..='я').step_by(2));
    letters.extend(['α', 'β', 'γ', 'δ', 'ε', 'ζ', 'η', 'θ', 'ι', 'κ']);
    letters.extend(('क'..='ह').step_by(3));
    letters.extend(['😀', '#']);
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let (mut short, mut full) = (0, 0);
    for round in 0..60 {
        let n = [3, 40, 400, 2000][round % 4];
        let tokens: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                let len = 1 + rng(&mut seed) % 5;
                let t: String = (0..len).map(|_| letters[(rng(&mut seed) % letters.len() as u64) as usize]).collect();
                if rng(&mut seed) % 3 == 0 { format!("##{t}") } else { t }.into_bytes()
            })
            .collect();
        let (s, f) = check(&tokens);
        short += s;
        full += f;
    }
    // Raw bytes too: every value, continuation bytes without a lead, runs past eight children.
    let raw: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).chain((0x80..=0xBFu8).map(|b| vec![0xD0, b])).chain((0..12u8).map(|b| vec![0xD0, 0x41 + b])).collect();
    check(&raw);
    assert!(short > 0 && full > 0, "both kinds of dense row were built ({short} short, {full} full)");
}
