//! The Rust core alone on the per-text call (issue 25): `Tokenizer::encode` of
//! one text into an `Encoding`, special tokens added and not, for an empty text
//! (the call's fixed cost) and for the 2,000 UD English sentences of
//! benches/bench_encode_one.py, in CPU µs per text (best of `ROUNDS` passes).
//! What Python adds on top is the difference with that bench's figures.
//!
//!     cargo run --release --example encode_one_core -- TOKENIZER_JSON [ROUNDS]

use bertpiece::pipeline::{Input, Settings, Tokenizer};

/// This thread's CPU time in seconds (/proc/thread-self/schedstat's first field, ns).
fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0) / 1e9
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let t = Tokenizer::from_json(&std::fs::read_to_string(args.get(1).ok_or("usage: encode_one_core TOKENIZER_JSON [ROUNDS]")?)?)?;
    let rounds: usize = args.get(2).map_or(Ok(15), |s| s.parse())?;
    let text = std::fs::read_to_string("/work/shared/data/corpus/ud-en.txt")?;
    let lines: Vec<&str> = text.split('\n').filter(|s| !s.is_empty()).take(3852).collect();
    let lines = &lines[lines.len().saturating_sub(2000)..];
    let s = Settings::default();
    for (name, xs) in [("empty text", vec![""; 2000]), ("UD sentences", lines.to_vec())] {
        for add in [true, false] {
            let mut best = f64::MAX;
            for _ in 0..rounds {
                let t0 = cpu();
                for x in &xs {
                    std::hint::black_box(t.encode(&Input::Raw(x), None, add, &s)?);
                }
                best = best.min((cpu() - t0) / xs.len() as f64 * 1e6);
            }
            println!("{name:>12}  add_special_tokens={add:<5}  {best:.3} µs");
        }
    }
    Ok(())
}
