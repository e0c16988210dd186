//! Criterion benches of the Rust core, in bytes of input per second:
//! each pipeline stage on its own, and the one-pass encoder that fuses them.
//!
//!     cargo bench -p bertpiece-bench-stages
//!
//! Input: the first 4 MB of `../shared/data/corpus/en-large.txt` and one
//! UD file per script (override with BERTPIECE_BENCH_CORPUS); vocabularies
//! are the bundled ones. The one-pass encoder's word memo is emptied before
//! each iteration, so no iteration is served words learnt in an earlier one.

use bertpiece::encoder::Scratch;
use bertpiece::normalizer::{normalize_text, Reference};
use bertpiece::pre_tokenizer::{split_punctuation, split_whitespace};
use bertpiece::word_cache::forget_all;
use bertpiece::{FullOptions, FullTokenizer, WordPiece};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::path::{Path, PathBuf};

const LIMIT: usize = 4 << 20;

/// The repository root (this crate lives in benches/stages).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn corpus(name: &str) -> Option<Vec<u8>> {
    let dir = std::env::var_os("BERTPIECE_BENCH_CORPUS").map_or_else(|| root().join("../shared/data/corpus"), PathBuf::from);
    let mut text = std::fs::read(dir.join(name)).ok()?;
    // Cut at a line end so the text stays valid UTF-8.
    if text.len() > LIMIT {
        let end = text[..LIMIT].iter().rposition(|&b| b == b'\n').unwrap_or(0);
        text.truncate(end);
    }
    Some(text)
}

fn tokenizer(model: &str, lower: bool) -> FullTokenizer {
    let vocab = root().join("python/bertpiece/vocab").join(format!("{model}.txt"));
    let mut opts = FullOptions::default();
    opts.basic.do_lower_case = lower;
    FullTokenizer::from_file(&vocab, opts).expect("bundled vocabulary")
}

fn stages(c: &mut Criterion) {
    let Some(text) = corpus("en-large.txt") else {
        eprintln!("en-large.txt not found: set BERTPIECE_BENCH_CORPUS");
        return;
    };
    let tok = tokenizer("bert-base-uncased", true);
    let cps: Vec<u32> = std::str::from_utf8(&text).expect("UTF-8").chars().map(|c| c as u32).collect();
    let mut g = c.benchmark_group("stages/en-large");
    g.sample_size(10).throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("decode", |b| b.iter(|| bertpiece::unicode::decode(&text).map(|v| v.len())));
    g.bench_function("normalizer", |b| b.iter(|| normalize_text(&cps, Reference::Google, true).len()));
    let normalized = normalize_text(&cps, Reference::Google, true).chars;
    g.bench_function("pre_tokenizer", |b| {
        b.iter(|| split_whitespace(&normalized).map(|w| split_punctuation(&normalized[w]).count()).sum::<usize>())
    });
    let words: Vec<Vec<u8>> = String::from_utf8_lossy(&text)
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.as_bytes().to_vec())
        .collect();
    let tokens: Vec<&[u8]> = tok.vocab().entries().iter().map(|e| &e.0[..]).collect();
    let wp = WordPiece::new(&tokens, 200);
    g.bench_function("wordpiece", |b| {
        b.iter(|| words.iter().map(|w| { let mut n = 0; wp.encode_word(w, w.len(), |_| n += 1); n }).sum::<usize>())
    });
    g.bench_function("tokenize (general path)", |b| b.iter(|| { let mut n = 0; tok.tokenize(&cps, |_| n += 1); n }));
    g.bench_function("encode_into (one pass)", |b| {
        let (mut out, mut s) = (Vec::new(), Scratch::default());
        b.iter(|| { forget_all(); out.clear(); tok.encode_into(&text, &mut out, &mut s).map(|()| out.len()) })
    });
    g.finish();
}

fn one_pass_per_language(c: &mut Criterion) {
    let mut g = c.benchmark_group("encode_into");
    g.sample_size(10);
    let cases = [("ud-en.txt", "bert-base-uncased", true), ("ud-de.txt", "bert-base-multilingual-cased", false),
                 ("ud-ru.txt", "bert-base-multilingual-cased", false), ("ud-zh.txt", "bert-base-chinese", true),
                 ("ud-ar.txt", "bert-base-multilingual-cased", false), ("ud-ko.txt", "bert-base-multilingual-cased", false)];
    for (file, model, lower) in cases {
        let Some(text) = corpus(file) else { continue };
        let tok = tokenizer(model, lower);
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_with_input(BenchmarkId::new(model, file), &text, |b, text| {
            let (mut out, mut s) = (Vec::new(), Scratch::default());
            b.iter(|| { forget_all(); out.clear(); tok.encode_into(text, &mut out, &mut s).map(|()| out.len()) })
        });
    }
    g.finish();
}

criterion_group!(benches, stages, one_pass_per_language);
criterion_main!(benches);
