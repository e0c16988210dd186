//! The in-place layout against HF's steps (`process_merged`) on every processor kind.

use super::super::{Piece, PostProcessor, TemplateToken};
use super::InPlace;
use crate::encoding::{Encoding, TokenVocab};
use std::collections::BTreeMap;

/// Ids 0..6 are these texts; others have none (their texts are stored).
struct Vocab;
const TEXTS: [&str; 6] = ["<s>", "</s>", "Ġa", "b Ġ", "Ġ", "cd"];

impl TokenVocab for Vocab {
    fn text(&self, id: u32) -> Option<&str> {
        TEXTS.get(id as usize).copied()
    }
}

fn seq(ids: &[u32], from: usize) -> Encoding {
    let mut e = Encoding::default();
    for (k, &id) in ids.iter().enumerate() {
        let text = Vocab.text(id).map_or_else(|| format!("x{id}"), str::to_string);
        e.push(id, Vocab.own(id, &text), (from + 2 * k, from + 2 * k + 2), Some(k as u32), 0);
    }
    e
}

fn template(single: &str, pair: &str) -> PostProcessor {
    let ids_of = |id: &str| match id {
        "<s>" => vec![0],
        "</s>" => vec![1],
        _ => vec![9, 5],
    };
    let pieces = |t: &str| -> Vec<Piece> {
        t.split(' ')
            .map(|p| {
                let (name, type_id) = p.split_once(':').map_or((p, 0), |(n, t)| (n, t.parse().unwrap()));
                match name {
                    "$A" => Piece::Sequence { pair: false, type_id },
                    "$B" => Piece::Sequence { pair: true, type_id },
                    id => Piece::SpecialToken { id: id.into(), type_id, ids: ids_of(id) },
                }
            })
            .collect()
    };
    let mut special_tokens = BTreeMap::new();
    special_tokens.insert("<s>".into(), TemplateToken { ids: vec![0], tokens: vec!["<s>".into()] });
    special_tokens.insert("</s>".into(), TemplateToken { ids: vec![1], tokens: vec!["</s>".into()] });
    // two ids, the second's text not the vocabulary's
    special_tokens.insert("[X]".into(), TemplateToken { ids: vec![9, 5], tokens: vec!["[X]".into(), "other".into()] });
    PostProcessor::Template { single: pieces(single), pair: pieces(pair), special_tokens }
}

fn processors() -> Vec<PostProcessor> {
    let sep = ("</s>".to_string(), 1);
    let cls = ("<s>".to_string(), 0);
    let mut out = vec![
        PostProcessor::ByteLevel { add_prefix_space: true, trim_offsets: true },
        PostProcessor::ByteLevel { add_prefix_space: false, trim_offsets: false },
        PostProcessor::Roberta { sep: sep.clone(), cls: cls.clone(), trim_offsets: true, add_prefix_space: false },
        PostProcessor::Roberta { sep: sep.clone(), cls: cls.clone(), trim_offsets: false, add_prefix_space: true },
        PostProcessor::Bert { sep: ("[SEP]".into(), 7), cls: cls.clone() },
        template("<s> $A </s>", "<s> $A </s> </s> $B </s>"),
        template("[X] $A:2 </s>:1", "$A [X] $B:1 </s>:1"),
        template("$A", "$A"),
        template("$B $A", "$B:1 <s> $A"),
        template("$A </s> $A", "$A $B $A"),
        template("<s> [Y]", "<s> $B"),
    ];
    out.push(PostProcessor::Sequence(vec![out[0].clone(), out[5].clone()]));
    out.push(PostProcessor::Sequence(vec![out[1].clone(), out[2].clone()]));
    out.push(PostProcessor::Sequence(vec![out[5].clone(), out[0].clone()]));
    out
}

#[test]
fn in_place_equals_hf_steps() {
    let inputs: Vec<Vec<Encoding>> = vec![
        vec![seq(&[2, 3, 5], 0)],
        vec![seq(&[], 0)],
        vec![seq(&[4, 11, 2, 3], 1)],
        vec![seq(&[2, 5], 0), seq(&[3, 4, 12], 0)],
        vec![seq(&[], 0), seq(&[2], 0)],
    ];
    let mut in_place = 0;
    for p in processors() {
        for parts in &inputs {
            for add in [true, false] {
                let merged = p.process_merged(parts.clone(), add, &Vocab).unwrap();
                let (a, b) = (parts[0].clone(), parts.get(1).cloned());
                match p.process_in_place(a.clone(), b.clone(), add, &Vocab).unwrap() {
                    InPlace::Done(fast) => {
                        in_place += 1;
                        assert_eq!(fast, merged, "{p:?} add={add} {parts:?}");
                    }
                    InPlace::Declined(back) => assert_eq!(&back, parts, "declined but changed: {p:?}"),
                }
                assert_eq!(p.process(a, b, add, &Vocab).unwrap(), merged);
            }
        }
    }
    // every shape but the declined templates and the Sequence ending in a trim took the fast path
    assert!(in_place >= 90, "{in_place}");
}

#[test]
fn overflowing_pieces_take_hf_steps() {
    let mut a = seq(&[2, 3], 0);
    a.overflowing.push(seq(&[5], 4));
    let p = template("<s> $A </s>", "<s> $A </s> $B </s>");
    assert!(matches!(p.process_in_place(a.clone(), None, true, &Vocab).unwrap(), InPlace::Declined(_)));
    let e = p.process(a, None, true, &Vocab).unwrap();
    assert_eq!(e.overflowing.len(), 1);
    assert_eq!(e.overflowing[0].ids, vec![0, 5, 1]);
}
