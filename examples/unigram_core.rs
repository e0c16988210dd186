//! The Rust core alone on a tokenizer.json and a text (no Python objects):
//! `Tokenizer::encode` per line, fused path and general path, one thread,
//! and the ids-only entry, in CPU time.
//!
//!     cargo run --release --example unigram_core -- TOKENIZER_JSON CORPUS [MB]

use bertpiece::pipeline::{Input, Settings, Tokenizer};
use std::time::Instant;

/// This thread's CPU time in seconds (/proc/self/schedstat's first field, ns):
/// wall time is meaningless on the shared, overloaded machine.
fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0) / 1e9
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (json, corpus) = (std::fs::read_to_string(&args[1])?, std::fs::read(&args[2])?);
    let mb: f64 = args.get(3).map_or(Ok(2.0), |s| s.parse())?;
    let text = String::from_utf8_lossy(&corpus[..((mb * 1e6) as usize).min(corpus.len())]).into_owned();
    let lines: Vec<&str> = text.split('\n').filter(|l| !l.is_empty()).collect();
    let bytes: usize = lines.iter().map(|l| l.len()).sum();
    let t = Instant::now();
    let fused = Tokenizer::from_json(&json)?;
    println!("load {:.0} ms; fused path: {:?}", t.elapsed().as_secs_f64() * 1e3, fused.fast_path());
    let mut out = Vec::new();
    // IDS_ONLY=N: time (and profile) encode_ids alone, N passes.
    let ids_passes: usize = std::env::var("IDS_ONLY").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let words: &[&str] = if ids_passes > 0 { &[] } else { &["▁the", "▁international", "▁Zürich"] };
    for &w in words {
        let t = cpu();
        for _ in 0..100_000 {
            out.clear();
            fused.config.model.tokenize(w, &mut out)?;
        }
        println!("model.tokenize({w:?}): {:.0} ns, {} pieces", (cpu() - t) * 1e4, out.len());
    }
    let general = Tokenizer::from_json(&json)?.without_fast_paths();
    let settings = Settings::default();
    let encoders: &[(&str, &Tokenizer)] = if ids_passes > 0 { &[] } else { &[("fused", &fused), ("general", &general), ("fused", &fused)] };
    for &(name, tok) in encoders {
        let t = cpu();
        let mut tokens = 0;
        for l in &lines {
            tokens += tok.encode(&Input::Raw(l), None, false, &settings)?.len();
        }
        let s = cpu() - t;
        println!("{name}: {:.1} MB/s ({tokens} tokens, {:.0} ns/token)", bytes as f64 / s / 1e6, s * 1e9 / tokens as f64);
    }
    // The ids-only entry of the bulk path (FusedUnigram::encode_ids), without and with offsets.
    if let Some(view) = fused.fused_unigram() {
        let (mut ids, mut offsets) = (Vec::new(), Vec::new());
        let passes = if ids_passes > 0 { vec![false; ids_passes] } else { vec![false, true, false] };
        for with_offsets in passes {
            let t = cpu();
            for l in &lines {
                ids.clear();
                offsets.clear();
                view.encode_ids(l, &mut ids, with_offsets.then_some(&mut offsets))?;
            }
            let s = cpu() - t;
            println!("encode_ids (offsets: {with_offsets}): {:.1} MB/s", bytes as f64 / s / 1e6);
        }
    }
    Ok(())
}
