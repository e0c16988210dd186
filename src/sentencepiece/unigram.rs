//! sentencepiece's Unigram Viterbi (unigram_model.cc, `EncodeOptimized`): for
//! each char position, every piece starting there (shortest first) offers
//! best(start) + score; a later offer wins only if strictly better, so ties go
//! to the piece that starts earliest. The sums are f32, as the installed
//! library computes them (measured: summing in f64, as the C++ source reads,
//! breaks ties differently on 26 UD lines, e.g. `.` `...` vs `...` `.`). A
//! user-defined piece scores `len * max_score - 0.1` (max_score over NORMAL
//! pieces, never below FLT_MIN: about -0.1 for trained models). A char that no
//! piece of exactly its length covers gets the unknown offer `min_score - 10`.

use super::Processor;

#[derive(Clone, Copy)]
struct Best {
    id: u32,
    score: f32,
    start: usize,
}

/// sentencepiece's OneCharLen: the UTF-8 length its lead byte announces.
pub fn one_char_len(b: u8) -> usize {
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4][(b >> 4) as usize]
}

pub fn encode(p: &Processor, normalized: &str) -> Vec<(usize, usize, u32)> {
    let text = normalized.as_bytes();
    let size = text.len();
    if size == 0 {
        return Vec::new();
    }
    let unk_score = p.min_score - 10.0f32;
    let unset = Best { id: u32::MAX, score: 0.0, start: usize::MAX };
    let mut best = vec![unset; size + 1];
    best[0].start = 0;
    let mut start = 0;
    while start < size {
        let here = best[start].score;
        let mblen = one_char_len(text[start]).min(size - start);
        let mut single = false;
        p.trie.prefixes(&text[start..], |len, id| {
            let candidate = p.viterbi_scores[id as usize] + here;
            let target = &mut best[start + len];
            if target.start == usize::MAX || candidate > target.score {
                *target = Best { id, score: candidate, start };
            }
            single |= len == mblen;
        });
        if !single {
            let candidate = unk_score + here;
            let target = &mut best[start + mblen];
            if target.start == usize::MAX || candidate > target.score {
                *target = Best { id: p.unk_id, score: candidate, start };
            }
        }
        start += mblen;
    }
    let mut out = Vec::new();
    let mut end = size;
    while end > 0 {
        let node = best[end];
        out.push((node.start, end, node.id));
        end = node.start;
    }
    out.reverse();
    out
}
