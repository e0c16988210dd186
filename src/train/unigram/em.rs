//! The EM rounds: the E-step (expected counts, on the thread pool), the
//! Bayesian M-step (digamma) and the pruning by likelihood loss. Each
//! piece's total is summed in word order, as the oracle sums it, so every
//! thread count gives the same bits: the words go to the threads in blocks,
//! and after each block every thread adds the block's contributions to its
//! own range of pieces, in word order.

use super::lattice::{expected_cached, viterbi_cached, viterbi_skipping, Lattice, SpanCache, NONE};
use crate::threads::{for_each_slice, run_jobs};
use crate::Result;

/// Words per job, and jobs per block (bounds the contributions held at once).
const WORDS_PER_JOB: usize = 256;
const JOBS_PER_BLOCK: usize = 16;
pub(super) const EXPECTED_FREQUENCY_THRESHOLD: f64 = 0.5;

type Words = [(Vec<u32>, u64)];
/// Pieces as (chars, score).
type Pieces = Vec<(Vec<u32>, f64)>;

/// Runs `job(word index, count, lattice, out)` on every word, where
/// `out` gets `(piece id, value)` items, and adds each item to
/// `totals[piece id]` with `add`: for every piece in word order, on any
/// thread count. One thread adds each word's items as they come; more
/// threads run blocks of words as jobs, then split the adding by piece.
fn add_in_word_order<V: Copy + Send + Sync, A: Send>(
    threads: usize,
    words: &Words,
    totals: &mut [A],
    job: impl Fn(usize, u64, &mut Lattice, &mut Vec<(u32, V)>) + Sync,
    add: impl Fn(&mut A, V) + Sync,
) -> Result<()> {
    if threads <= 1 {
        let (mut lattice, mut out) = (Lattice::default(), Vec::new());
        for (w, (_, n)) in words.iter().enumerate() {
            job(w, *n, &mut lattice, &mut out);
            for &(k, v) in &out {
                add(&mut totals[k as usize], v);
            }
            out.clear();
        }
        return Ok(());
    }
    let per_block = WORDS_PER_JOB * JOBS_PER_BLOCK;
    let range = totals.len().div_ceil(threads).max(1);
    for first in (0..words.len()).step_by(per_block) {
        let block_end = (first + per_block).min(words.len());
        let jobs = (block_end - first).div_ceil(WORDS_PER_JOB);
        let done = run_jobs(threads, jobs, |k| {
            let (mut lattice, mut out) = (Lattice::default(), Vec::new());
            let start = first + k * WORDS_PER_JOB;
            let end = (start + WORDS_PER_JOB).min(block_end);
            for (w, word) in words[start..end].iter().enumerate() {
                job(start + w, word.1, &mut lattice, &mut out);
            }
            out
        })?;
        let parts: Vec<&mut [A]> = totals.chunks_mut(range).collect();
        for_each_slice(threads, parts, |t, part| {
            let base = t * range;
            for out in &done {
                for &(k, v) in out {
                    if let Some(slot) = (k as usize).checked_sub(base).and_then(|i| part.get_mut(i)) {
                        add(slot, v);
                    }
                }
            }
        })?;
    }
    Ok(())
}

/// Each piece's expected count (`scores`: the pieces' current scores; `cache`: their spans in every word).
pub(super) fn e_step(words: &Words, cache: &SpanCache, scores: &[f64], threads: usize) -> Result<Vec<f64>> {
    let mut totals = vec![0.0; scores.len()];
    if threads <= 1 {
        // straight into the totals (the same order, without the items)
        let mut l = Lattice::default();
        for (w, (_, n)) in words.iter().enumerate() {
            expected_cached(cache, w, *n, scores, &mut l, |k, v| totals[k as usize] += v);
        }
        return Ok(totals);
    }
    add_in_word_order(
        threads,
        words,
        &mut totals,
        |w, n, l, out| expected_cached(cache, w, n, scores, l, |k, v| out.push((k, v))),
        |total, v| *total += v,
    )?;
    Ok(totals)
}

/// HF's (and spm's) digamma: recurrence to x >= 7, then the asymptotic series.
pub(super) fn digamma(mut x: f64) -> f64 {
    let mut result = 0.0;
    while x < 7.0 {
        result -= 1.0 / x;
        x += 1.0;
    }
    x -= 1.0 / 2.0;
    let xx = 1.0 / x;
    let xx2 = xx * xx;
    let xx4 = xx2 * xx2;
    result += x.ln() + (1.0 / 24.0) * xx2 - 7.0 / 960.0 * xx4 + (31.0 / 8064.0) * xx4 * xx2 - (127.0 / 30720.0) * xx4 * xx4;
    result
}

/// Drops the pieces expected under 0.5 times (never a character: its count is
/// raised to 0.5) and scores the rest digamma(count) - digamma(total).
/// Also returns each old piece's new id (`NONE`: dropped), for `SpanCache::renumber`.
pub(super) fn m_step(pieces: Vec<(Vec<u32>, f64)>, expected: &[f64]) -> (Vec<(Vec<u32>, f64)>, Vec<u32>) {
    let mut kept = Vec::with_capacity(pieces.len());
    let mut new_id = vec![NONE; pieces.len()];
    let mut total = 0.0;
    for (k, ((piece, _), &freq)) in pieces.into_iter().zip(expected).enumerate() {
        let freq = if piece.len() == 1 {
            freq.max(EXPECTED_FREQUENCY_THRESHOLD)
        } else if freq < EXPECTED_FREQUENCY_THRESHOLD {
            continue;
        } else {
            freq
        };
        total += freq;
        new_id[k] = kept.len() as u32;
        kept.push((piece, freq));
    }
    let log_total = digamma(total);
    (kept.into_iter().map(|(p, f)| (p, digamma(f) - log_total)).collect(), new_id)
}

/// Keeps the pieces whose removal would lose the most likelihood, down to
/// max(1.1 x vocab_size, shrinking_factor x size); characters and pieces with
/// no alternative stay. The kept pieces keep their order.
pub(super) fn prune(
    words: &Words,
    cache: &SpanCache,
    pieces: Pieces,
    own: &SpanCache,
    vocab_size: usize,
    shrinking_factor: f64,
    threads: usize,
) -> Result<(Pieces, Vec<u32>)> {
    let size = pieces.len();
    let scores: Vec<f64> = pieces.iter().map(|(_, s)| *s).collect();
    // Each piece's best segmentation without itself (`own`: the pieces' spans in each piece), where the piece beats it.
    let jobs: Vec<&[(Vec<u32>, f64)]> = pieces.chunks(WORDS_PER_JOB).collect();
    let alternatives: Vec<(bool, Vec<u32>)> = run_jobs(threads, jobs.len(), |j| {
        let mut lattice = Lattice::default();
        jobs[j]
            .iter()
            .enumerate()
            .map(|(o, (piece, score))| {
                if piece.len() == 1 {
                    return (true, Vec::new());
                }
                let mut alt = Vec::new();
                let k = j * WORDS_PER_JOB + o;
                viterbi_skipping(own, k, &scores, k as u32, &mut lattice, &mut alt);
                let mut alt_score = 0.0;
                for &a in &alt {
                    alt_score += scores[a as usize];
                }
                if *score >= alt_score {
                    (true, alt)
                } else {
                    (false, Vec::new())
                }
            })
            .collect::<Vec<_>>()
    })?
    .into_iter()
    .flatten()
    .collect();
    let mut freq = vec![0.0f64; size];
    let mut vsum = 0.0f64;
    for (_, n) in words {
        vsum += *n as f64;
    }
    add_in_word_order(
        threads,
        words,
        &mut freq,
        |w, n, l, out: &mut Vec<(u32, u64)>| viterbi_cached(cache, w, &scores, l, |k| out.push((k, n))),
        |f, n| *f += n as f64,
    )?;
    let mut total = 0.0;
    for f in &freq {
        total += f;
    }
    let log_total = total.ln();
    let mut keep = vec![false; size];
    let mut candidates: Vec<(f64, usize)> = Vec::new();
    for (k, (piece, _)) in pieces.iter().enumerate() {
        let (own_best, alt) = &alternatives[k];
        if piece.len() == 1 {
            keep[k] = true;
        } else if freq[k] == 0.0 && !own_best {
            continue;
        } else if alt.is_empty() {
            keep[k] = true;
        } else if freq[k] > 0.0 {
            let logprob_piece = freq[k].ln() - log_total;
            // HF's total after the removal (see the oracle).
            let log_total_alt = (total + freq[k] * (size - 1) as f64).ln();
            let mut logprob_alt = 0.0;
            for &a in alt {
                logprob_alt += (freq[a as usize] + freq[k]).ln() - log_total_alt;
            }
            candidates.push((freq[k] / vsum * (logprob_piece - logprob_alt), k));
        }
    }
    let target = (vocab_size * 11 / 10).max((size as f64 * shrinking_factor) as usize);
    let kept = keep.iter().filter(|&&k| k).count();
    candidates.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal).then(a.1.cmp(&b.1)));
    for &(_, k) in candidates.iter().take(target.saturating_sub(kept)) {
        keep[k] = true;
    }
    let mut new_id = vec![NONE; size];
    let mut next = 0u32;
    for (k, &kept) in keep.iter().enumerate() {
        if kept {
            new_id[k] = next;
            next += 1;
        }
    }
    Ok((pieces.into_iter().zip(keep).filter_map(|(p, k)| k.then_some(p)).collect(), new_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digamma_near_known_values() {
        // psi(1) = -Euler-Mascheroni; psi(10) = H_9 - gamma
        assert!((digamma(1.0) + 0.5772156649015329).abs() < 1e-9);
        assert!((digamma(10.0) - 2.251752589066721).abs() < 1e-9);
    }

    #[test]
    fn m_step_keeps_characters_and_drops_rare_pieces() {
        let p = |s: &str| s.chars().map(|c| c as u32).collect::<Vec<_>>();
        let (out, new_id) = m_step(vec![(p("a"), 0.0), (p("ab"), 0.0), (p("bc"), 0.0)], &[0.0, 0.4, 3.0]);
        assert_eq!(new_id, [0, NONE, 1]);
        let names: Vec<Vec<u32>> = out.iter().map(|(p, _)| p.clone()).collect();
        assert_eq!(names, [p("a"), p("bc")]);
    }
}
