//! Unigram training (sentencepiece's `unigram_model_trainer.cc`, HF
//! tokenizers' `UnigramTrainer`): seed pieces, EM rounds with pruning, then
//! the vocabulary. `bertpiece.oracle_train_unigram` specifies the same in
//! Python and the results are bit-equal on any thread count; docs/train-unigram.md
//! says where this follows HF and where spm.

mod count;
mod em;
mod lattice;
mod seed;

pub use count::MetaspaceCounter;

use super::Progress;
use crate::threads::thread_count;
use crate::{Error, Result};
use lattice::{SpanCache, Table};
use std::collections::BTreeSet;

/// Unigram training settings (HF `UnigramTrainer`'s, by the same names).
#[derive(Clone, Debug)]
pub struct UnigramOptions {
    pub vocab_size: usize,
    pub special_tokens: Vec<String>,
    pub shrinking_factor: f64,
    pub unk_token: Option<String>,
    pub max_piece_length: usize,
    pub n_sub_iterations: usize,
    pub initial_alphabet: Vec<char>,
    pub seed_size: usize,
}

/// What Unigram training made: `(piece, score)` in id order and the unk id.
#[derive(Clone, Debug, Default)]
pub struct UnigramTrained {
    pub pieces: Vec<(String, f64)>,
    pub unk_id: Option<usize>,
    /// EM rounds run (each `n_sub_iterations` EM steps).
    pub rounds: usize,
}

fn string(p: &[u32]) -> String {
    p.iter().filter_map(|&c| char::from_u32(c)).collect()
}

/// The special tokens in id order and the unk id: an unk token that is not
/// one of them goes first (HF's `UnigramTrainer`).
fn special_list(opts: &UnigramOptions) -> (Vec<String>, Option<usize>) {
    let mut specials: Vec<String> = Vec::new();
    for t in &opts.special_tokens {
        if !specials.contains(t) {
            specials.push(t.clone());
        }
    }
    let Some(unk) = &opts.unk_token else { return (specials, None) };
    if !specials.contains(unk) {
        specials.insert(0, unk.clone());
    }
    let id = specials.iter().position(|t| t == unk);
    (specials, id)
}

fn check(opts: &UnigramOptions) -> Result<()> {
    let bad = |name: &str, rule: &str| Err(Error::TrainOption(format!("{name} must be {rule}")));
    if !(opts.shrinking_factor > 0.0 && opts.shrinking_factor < 1.0) {
        return bad("shrinking_factor", &format!("between 0 and 1 (exclusive), got {}", opts.shrinking_factor));
    }
    if opts.max_piece_length == 0 {
        return bad("max_piece_length", "at least 1, got 0");
    }
    if opts.n_sub_iterations == 0 {
        return bad("n_sub_iterations", "at least 1, got 0");
    }
    if opts.special_tokens.iter().any(|t| t.is_empty()) || opts.unk_token.as_deref() == Some("") {
        return bad("special_tokens and unk_token", "non-empty");
    }
    Ok(())
}

/// Trains on `counts` (words as code points with their counts). `progress(pieces, vocab_size)` after each EM step.
pub fn train_unigram(
    counts: &[(Vec<u32>, u64)],
    opts: &UnigramOptions,
    num_threads: Option<usize>,
    progress: Progress<'_>,
) -> Result<UnigramTrained> {
    check(opts)?;
    let threads = thread_count(num_threads)?;
    let (specials, unk_id) = special_list(opts);
    let mut words: Vec<(Vec<u32>, u64)> = counts.iter().filter(|(w, n)| !w.is_empty() && *n > 0).cloned().collect();
    words.sort_unstable();
    let required: BTreeSet<u32> =
        words.iter().flat_map(|(w, _)| w.iter().copied()).chain(opts.initial_alphabet.iter().map(|&c| c as u32)).collect();
    let needed = required.len() + specials.len();
    if needed > opts.vocab_size {
        return Err(Error::TrainVocabTooSmall { vocab_size: opts.vocab_size, needed });
    }
    let mut trained = UnigramTrained { pieces: specials.iter().map(|t| (t.clone(), 0.0)).collect(), unk_id, rounds: 0 };
    if words.is_empty() {
        trained.pieces.extend(required.iter().map(|&c| string(&[c])).filter(|c| !specials.contains(c)).map(|c| (c, 0.0)));
        return Ok(trained);
    }
    let max_len = opts.max_piece_length;
    let mut pieces = seed::seed_pieces(&words, max_len, opts.seed_size);
    // The seeds' spans in every word, found once; kept in step with the pieces.
    let mut cache = SpanCache::new(words.iter().map(|(w, _)| w.as_slice()), &Table::new(&pieces, max_len));
    // The pieces' spans in each piece (for the pruning's alternatives), made at the first pruning, kept the same way.
    let mut own: Option<SpanCache> = None;
    let desired = opts.vocab_size * 11 / 10;
    loop {
        trained.rounds += 1;
        for _ in 0..opts.n_sub_iterations {
            let scores: Vec<f64> = pieces.iter().map(|(_, s)| *s).collect();
            let expected = em::e_step(&words, &cache, &scores, threads)?;
            let new_id;
            (pieces, new_id) = em::m_step(pieces, &expected);
            renumber(&mut cache, own.as_mut(), &new_id);
            if !progress(pieces.len(), opts.vocab_size) {
                return Ok(trained);
            }
        }
        if pieces.len() <= desired {
            break;
        }
        let own = own.get_or_insert_with(|| SpanCache::new(pieces.iter().map(|(p, _)| p.as_slice()), &Table::new(&pieces, max_len)));
        let size = pieces.len();
        let new_id;
        (pieces, new_id) = em::prune(&words, &cache, pieces, own, opts.vocab_size, opts.shrinking_factor, threads)?;
        renumber(&mut cache, Some(own), &new_id);
        if pieces.len() == size {
            break; // nothing left that can go
        }
    }
    trained.pieces.extend(finalize(&pieces, &required, opts.vocab_size, &specials));
    Ok(trained)
}

/// Drops the pieces `new_id` drops from the words' spans and from the pieces' own.
fn renumber(cache: &mut SpanCache, own: Option<&mut SpanCache>, new_id: &[u32]) {
    cache.renumber(new_id, false);
    if let Some(own) = own {
        own.renumber(new_id, true);
    }
}

/// The characters and the best-scoring pieces, up to `vocab_size` with the
/// specials, by score (ties: code points).
fn finalize(pieces: &[(Vec<u32>, f64)], required: &BTreeSet<u32>, vocab_size: usize, specials: &[String]) -> Vec<(String, f64)> {
    let min_score = pieces.iter().map(|(_, s)| *s).fold(f64::INFINITY, f64::min);
    let special = |p: &[u32]| specials.iter().any(|t| t.chars().map(|c| c as u32).eq(p.iter().copied()));
    let mut chosen: Vec<(Vec<u32>, f64)> = required
        .iter()
        .map(|&c| vec![c])
        .filter(|c| !special(c))
        .map(|c| {
            let score = pieces.iter().find(|(p, _)| *p == c).map_or(min_score, |(_, s)| *s);
            (c, score)
        })
        .collect();
    let room = vocab_size.saturating_sub(specials.len() + chosen.len());
    let mut others: Vec<(usize, &Vec<u32>, f64)> =
        pieces.iter().enumerate().filter(|(_, (p, _))| p.len() > 1 && !special(p)).map(|(k, (p, s))| (k, p, *s)).collect();
    others.sort_by(|a, b| b.2.partial_cmp(&a.2).unwrap_or(std::cmp::Ordering::Equal).then(a.0.cmp(&b.0)));
    chosen.extend(others.into_iter().take(room).map(|(_, p, s)| (p.clone(), s)));
    chosen.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal).then_with(|| a.0.cmp(&b.0)));
    chosen.into_iter().map(|(p, s)| (string(&p), s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(vocab_size: usize) -> UnigramOptions {
        UnigramOptions {
            vocab_size,
            special_tokens: vec!["<unk>".into()],
            shrinking_factor: 0.75,
            unk_token: Some("<unk>".into()),
            max_piece_length: 16,
            n_sub_iterations: 2,
            initial_alphabet: Vec::new(),
            seed_size: 1_000_000,
        }
    }

    fn words(v: &[(&str, u64)]) -> Vec<(Vec<u32>, u64)> {
        v.iter().map(|(w, n)| (w.chars().map(|c| c as u32).collect(), *n)).collect()
    }

    #[test]
    fn same_result_on_every_thread_count() {
        let text = "▁the ▁cat ▁sat ▁on ▁the ▁mat ▁then ▁the ▁cats ▁sat ▁there ▁matter ▁hat ▁hats";
        let counts: Vec<(Vec<u32>, u64)> =
            text.split(' ').enumerate().map(|(k, w)| (w.chars().map(|c| c as u32).collect(), 1 + k as u64 % 3)).collect();
        let one = train_unigram(&counts, &opts(25), Some(1), &mut |_, _| true).unwrap();
        let two = train_unigram(&counts, &opts(25), Some(2), &mut |_, _| true).unwrap();
        assert!(one.pieces.len() > 14 && one.pieces.len() <= 25);
        assert_eq!(format!("{:?}", one.pieces), format!("{:?}", two.pieces));
        assert_eq!(one.pieces[0], ("<unk>".to_string(), 0.0));
    }

    #[test]
    fn too_small_and_bad_options_are_errors() {
        assert!(matches!(train_unigram(&words(&[("abc", 1)]), &opts(3), None, &mut |_, _| true),
                         Err(Error::TrainVocabTooSmall { needed: 4, .. })));
        let mut o = opts(10);
        o.shrinking_factor = 1.0;
        assert!(matches!(train_unigram(&words(&[("abc", 1)]), &o, None, &mut |_, _| true), Err(Error::TrainOption(_))));
    }
}
