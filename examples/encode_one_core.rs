//! The Rust core alone on the per-text call (issue 25): `Tokenizer::encode` of
//! one text into an `Encoding`, special tokens added and not, for an empty text
//! (the call's fixed cost) and for the 2,000 UD English sentences of
//! benches/bench_encode_one.py, in µs per text: the fastest of `ROUNDS` passes
//! of wall time (the fastest pass is the one no other process interrupted; this
//! host's schedstat, the thread CPU clock the other examples read, is off).
//! What Python adds on top is the difference with that bench's figures.
//!
//!     cargo run --release --example encode_one_core -- TOKENIZER_JSON [ROUNDS]

use bertpiece::pipeline::{Input, Settings, Tokenizer};
use std::time::Instant;

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
                let t0 = Instant::now();
                for x in &xs {
                    std::hint::black_box(t.encode(&Input::Raw(x), None, add, &s)?);
                }
                best = best.min(t0.elapsed().as_secs_f64() / xs.len() as f64 * 1e6);
            }
            println!("{name:>12}  add_special_tokens={add:<5}  {best:.3} µs");
        }
    }
    Ok(())
}
