//! The AVX-512 loop against the SSE2 one and the scalar split on the same
//! texts, with a vocabulary in which whole words are one token (so most
//! lanes are answered by the gathers) and others several: a vocabulary of
//! 1 to 24 bytes a word, enough words that the tables grow and the cache
//! fills and starts over in the middle of a block, each text encoded on a
//! cold cache and again on a warm one, ending at every offset of a block.

use super::*;
use crate::fast_bytelevel::blocks::Sse2;
use crate::fast_bytelevel::merge::ByteBpe;
use crate::models::bpe::Bpe;
use crate::pre_tokenizers::byte_level::BYTES_CHAR;
use std::collections::HashMap;

struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// Byte-level merges that make each of `words` one token (each prefix merged with its next byte).
fn model(words: &[String]) -> ByteBpe {
    let mut vocab: HashMap<String, u32> = BYTES_CHAR.iter().enumerate().map(|(i, c)| (c.to_string(), i as u32)).collect();
    let mut merges = Vec::new();
    for w in words {
        let chars: Vec<String> = w.bytes().map(|b| BYTES_CHAR[b as usize].to_string()).collect();
        let mut prefix = chars[0].clone();
        for c in &chars[1..] {
            let merged = format!("{prefix}{c}");
            if !vocab.contains_key(&merged) {
                let n = vocab.len() as u32;
                vocab.insert(merged.clone(), n);
                merges.push((prefix.clone(), c.clone()));
            }
            prefix = merged;
        }
    }
    ByteBpe::new(&Bpe::new(vocab, &merges, Bpe::default()).unwrap()).unwrap()
}

fn word(rng: &mut Lcg, len: usize) -> String {
    (0..len).map(|_| (b'a' + rng.next(26) as u8) as char).collect()
}

/// How many buckets of the 1–8-byte table hold a word in their second slot.
fn second_slots_taken(words: &Words<'_>) -> usize {
    let Some(t) = words.raw_tables().0 else { return 0 };
    // SAFETY: the table has `mask + 1` buckets of 32 bytes; a slot's meta (non-zero: taken) is its last 4 bytes
    (0..=t.mask as usize).filter(|b| unsafe { t.slots.add(32 * b + 28).cast::<u32>().read_unaligned() } != 0).count()
}

#[test]
fn gathers_give_the_scalar_ids() {
    let Some(avx512) = Avx512::detect() else { return };
    let mut rng = Lcg(33);
    // words of 1 to 24 bytes (with their space), half of them one token
    let words: Vec<String> = (0..90_000).map(|k| word(&mut rng, 1 + k % 23)).collect();
    let one_token: Vec<String> = words.iter().step_by(2).map(|w| format!(" {w}")).collect();
    let bpe = model(&one_token[..2000]);
    let plain = AsciiClasses::plain();
    let punct = [",", ".", "!", " ,", "“", ".”", "'s", "  ", "7", " 42", "\n", "é"];
    // texts of 0 to ~400 bytes: common words (one token), rare ones (the cache grows, then fills and
    // starts over), punctuation and one-byte pieces
    let texts: Vec<String> = (0..6000)
        .map(|_| {
            let mut t = String::new();
            for _ in 0..rng.next(60) {
                match rng.next(10) {
                    0..=4 => t.push_str(&one_token[rng.next(2000)]),
                    5..=7 => t.push_str(&format!(" {}", words[rng.next(words.len())])),
                    _ => t.push_str(punct[rng.next(punct.len())]),
                }
            }
            t
        })
        .collect();
    let (mut lanes, mut second) = (0, 0);
    for pass in 0..3 {
        for text in &texts {
            let want = bpe.scalar_text_ids(text);
            bpe.with_cache(|words| {
                let mut got = Vec::new();
                // SAFETY: `avx512` proves the CPU has the features
                assert!(unsafe { words.text_ids_gather(avx512, text, plain, &mut got) });
                assert_eq!(got, want, "pass {pass}: {text:?}");
                got.clear();
                assert!(words.text_ids_with(Sse2, text, plain, &mut got));
                assert_eq!(got, want, "SSE2, pass {pass}: {text:?}");
                second = second.max(second_slots_taken(words));
            }).unwrap();
            lanes += want.len();
        }
    }
    // words in a bucket's second slot were looked up (the 32-byte loads' second key)
    assert!(lanes > 500_000 && second > 100, "{lanes} lanes, {second} words in second slots");
}

/// A text cut at every length from 0 to 200 bytes (so a block ends at
/// every offset from the text's end), on a warm cache.
#[test]
fn every_text_end_gives_the_scalar_ids() {
    let Some(avx512) = Avx512::detect() else { return };
    let words = [" the", " quick", " brown", " fox", " jumps", " over", " lazy", " dogs", " a", " extraordinarily"];
    let bpe = model(&words.map(String::from));
    let text = "The quick brown fox, “jumps” over the lazy dogs' backs... a extraordinarily 12 quick a a fox 9 the the lazy over brown the quick jumps. Over the lazy dogs a a a extraordinarily long words a brown fox!";
    for pass in 0..2 {
        for end in (0..=text.len()).filter(|&e| text.is_char_boundary(e)) {
            let t = &text[..end];
            let want = bpe.scalar_text_ids(t);
            bpe.with_cache(|words| {
                let mut got = Vec::new();
                // SAFETY: `avx512` proves the CPU has the features
                assert!(unsafe { words.text_ids_gather(avx512, t, AsciiClasses::plain(), &mut got) });
                assert_eq!(got, want, "pass {pass}: {t:?}");
            }).unwrap();
        }
    }
}

/// Windows of two blocks: a byte the block scanner leaves (non-ASCII, a
/// quote, a newline) at every place of ~300 bytes, so that it falls in the
/// first block, the second or past the window, each text cut at every end;
/// dense pieces (one or two bytes) so that a window holds up to ~80 of them,
/// sparse ones so that a window holds fewer than eight.
#[test]
fn windows_of_two_blocks_give_the_scalar_ids() {
    let Some(avx512) = Avx512::detect() else { return };
    let words = [" the", " quick", " brown", " fox", ",", ".", " a", "a", " extraordinarily", "  "];
    let bpe = model(&words.map(String::from));
    let dense = "a,b.c!d?e;a a,a.a b c d e f g h i j k l m n o p q r s t u v w x y z 1 2 3.4,5;6:7";
    let sparse = " extraordinarily        extraordinarily                the quick brown fox";
    let base: Vec<String> = [dense, sparse, " the quick brown fox, a a. the fox"].iter().map(|s| s.repeat(12)[..300].to_string()).collect();
    for text in &base {
        for odd in ["é", "'s", "\n", "“"] {
            for at in (0..text.len()).step_by(3) {
                let t = format!("{}{odd}{}", &text[..at], &text[at..]);
                for end in (at..=t.len()).step_by(7).chain([t.len()]).filter(|&e| t.is_char_boundary(e)) {
                    let t = &t[..end];
                    let want = bpe.scalar_text_ids(t);
                    bpe.with_cache(|words| {
                        let mut got = Vec::new();
                        // SAFETY: `avx512` proves the CPU has the features
                        assert!(unsafe { words.text_ids_gather(avx512, t, AsciiClasses::plain(), &mut got) });
                        assert_eq!(got, want, "{t:?}");
                    }).unwrap();
                }
            }
        }
    }
}

/// Words of two tokens (both ids below `merge::PAIR_IDS`: answered from the
/// slot with the one-token ones, or one at or above it: from `pieces`) and
/// of three, against the general model word by word: merged tokens' ids
/// from 56,000 (about a third past 65,536), ~83,000 distinct words in
/// 120,000 (the cache starts over, inside a group), twice.
#[test]
fn words_of_two_tokens_give_the_general_models_ids() {
    let Some(avx512) = Avx512::detect() else { return };
    let mut rng = Lcg(46);
    // halves of 1 to 8 bytes, each made one token; a word is one half, two or three
    let halves: Vec<String> = (0..3000).map(|k| word(&mut rng, 1 + k % 8)).collect();
    let mut vocab: HashMap<String, u32> = BYTES_CHAR.iter().enumerate().map(|(i, c)| (c.to_string(), i as u32)).collect();
    let mut merges = Vec::new();
    for h in halves.iter().map(|h| format!(" {h}")).chain(halves.iter().cloned()) {
        let chars: Vec<String> = h.bytes().map(|b| BYTES_CHAR[b as usize].to_string()).collect();
        let mut prefix = chars[0].clone();
        for c in &chars[1..] {
            let merged = format!("{prefix}{c}");
            if !vocab.contains_key(&merged) {
                vocab.insert(merged.clone(), 56_000 + merges.len() as u32);
                merges.push((prefix.clone(), c.clone()));
            }
            prefix = merged;
        }
    }
    let general = Bpe::new(vocab, &merges, Bpe::default()).unwrap();
    let bpe = ByteBpe::new(&general).unwrap();
    let want_of = |text: &str| {
        let mut ids = Vec::new();
        crate::fast_bytelevel::scan::split_gpt2(text, |a, b| {
            let s: String = text.as_bytes()[a..b].iter().map(|&c| BYTES_CHAR[c as usize]).collect();
            let mut out = Vec::new();
            general.tokenize(&s, &mut out).unwrap();
            ids.extend(out.iter().map(|t| t.0));
        });
        ids
    };
    let words: Vec<String> = (0..120_000)
        .map(|k| (0..1 + k % 3).map(|_| halves[rng.next(halves.len())].as_str()).collect())
        .collect();
    let plain = AsciiClasses::plain();
    // how many words are two tokens both below 65,536 (kept in the slot), and two with one past it
    let (mut slot_pairs, mut piece_pairs) = (0, 0);
    for w in &words {
        let t = want_of(&format!(" {w}"));
        slot_pairs += usize::from(t.len() == 2 && w.len() < 16 && t.iter().all(|&id| id < 65_536));
        piece_pairs += usize::from(t.len() == 2 && w.len() < 16 && t.iter().any(|&id| id >= 65_536));
    }
    let (mut lanes, mut restarts) = (0, 0);
    for pass in 0..2 {
        for chunk in words.chunks(40) {
            let text: String = chunk.iter().map(|w| format!(" {w}")).collect();
            let want = want_of(&text);
            bpe.with_cache(|words| {
                let (mut got, clears) = (Vec::new(), words.clears());
                // SAFETY: `avx512` proves the CPU has the features
                assert!(unsafe { words.text_ids_gather(avx512, &text, plain, &mut got) });
                assert_eq!(got, want, "pass {pass}: {text:?}");
                restarts += usize::from(words.clears() != clears);
            })
            .unwrap();
            lanes += want.len();
        }
    }
    assert!(lanes > 200_000 && restarts >= 2, "{lanes} ids, the cache started over {restarts} times");
    assert!(slot_pairs > 3_000 && piece_pairs > 3_000, "pairs: {slot_pairs} in the slot, {piece_pairs} in pieces");
}

/// The cache starting over at the last lane of a window's last group, with
/// the next window's first group looked up before (the lookahead across
/// windows): no merges (a word of four bytes is four tokens, kept in
/// `pieces`); the cache filled to the brim by a first text, its first word
/// `F` at the start of `pieces`; then a text of four-byte pieces, 23 `F`s,
/// a new word (piece 23, the last of the first window's whole groups:
/// 24 of its 30), more `F`s. The new word's miss starts the cache over and
/// puts its pieces where `F`'s were: the next window's first group's
/// lookups, made before, are stale and must be made again.
#[test]
fn cache_starting_over_at_a_windows_last_group() {
    let Some(avx512) = Avx512::detect() else { return };
    let bpe = model(&[]);
    // distinct four-byte words " Xyz" (GPT-2's pieces: a space, letters)
    let letters: Vec<u8> = (b'A'..=b'Z').chain(b'a'..=b'z').collect();
    let word = |k: usize| format!(" {}{}{}", letters[k % 52] as char, letters[k / 52 % 52] as char, letters[k / 2704 % 52] as char);
    let f = word(0);
    let fill: String = (0..super::super::cache::CACHE_WORDS).map(word).collect();
    let text = format!("{}{}{}", f.repeat(23), word(100_000), f.repeat(40));
    // no merges: every byte its own token, the byte's id
    let want: Vec<u32> = text.bytes().map(u32::from).collect();
    bpe.with_cache(|words| {
        let mut got = Vec::new();
        // SAFETY: `avx512` proves the CPU has the features
        assert!(unsafe { words.text_ids_gather(avx512, &fill, AsciiClasses::plain(), &mut got) });
        assert_eq!(got, fill.bytes().map(u32::from).collect::<Vec<_>>());
        let clears = words.clears();
        got.clear();
        // SAFETY: as above
        assert!(unsafe { words.text_ids_gather(avx512, &text, AsciiClasses::plain(), &mut got) });
        assert_eq!(words.clears(), clears + 1, "the cache started over once");
        assert_eq!(got, want);
    })
    .unwrap();
}
