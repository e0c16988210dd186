//! The Rust core alone on the bulk call `benches/peers.py bert` times
//! (`encode_batch`: flat ids and row splits, special tokens added), in CPU
//! time of all threads, every word memo emptied before each pass:
//!
//!     cargo run --release --example bert_bulk -- VOCAB CORPUS... [--cased] [--mb N] [--passes N] [--threads N] [--deal] [--batch N --warm] [--max-length N]
//!
//! `--deal` instead runs, on this thread, the work two threads' memos do:
//! the batch's 32 blocks (as `batch.rs` cuts them for two threads) dealt in
//! turn (even blocks to one memo, odd to the other) against dealt as two
//! runs of neighbours, each memo emptied before its blocks; taking turns.
//!
//! `--batch N --warm` times serving-sized calls instead: the lines in
//! batches of N, the memos kept from pass to pass (warm after the first).
//! `--max-length N`: rows cut to N ids, [CLS] and [SEP] included (right
//! truncation, as a padded serving call with `truncation=True` asks).
//!
//! Several CORPUS files are joined (the multilingual set is the UD files but
//! English and Chinese). Prints each pass's MB/s of CPU time, their median,
//! and a checksum of the ids (equal builds give equal checksums).

use bertpiece::batch::{encode_batch, BatchOptions};
use bertpiece::{BasicOptions, FullOptions, FullTokenizer, Reference};

/// The process's CPU time in seconds (all its threads: the pool's count
/// too), from `clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`: exact, where
/// /proc's schedstat of a running thread lags by up to a scheduler tick.
/// (Wall time is meaningless on the shared machine.)
fn cpu() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, t: *mut Timespec) -> i32;
    }
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec for the call's duration.
    unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.sec as f64 + t.nsec as f64 / 1e9
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let vocab = args.next().ok_or("usage: bert_bulk VOCAB CORPUS... [--cased] [--mb N] [--passes N]")?;
    let (mut files, mut cased, mut mb, mut passes, mut threads, mut deal) = (Vec::new(), false, f64::INFINITY, 9usize, 1usize, false);
    let (mut batch_rows, mut warm, mut max_length) = (usize::MAX, false, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cased" => cased = true,
            "--deal" => deal = true,
            "--warm" => warm = true,
            "--max-length" => max_length = Some(args.next().ok_or("--max-length N")?.parse()?),
            "--batch" => batch_rows = args.next().ok_or("--batch N")?.parse()?,
            "--mb" => mb = args.next().ok_or("--mb N")?.parse()?,
            "--passes" => passes = args.next().ok_or("--passes N")?.parse()?,
            "--threads" => threads = args.next().ok_or("--threads N")?.parse()?,
            _ => files.push(a),
        }
    }
    let mut text = String::new();
    for f in &files {
        text.push_str(&std::fs::read_to_string(f)?);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    if (text.len() as f64) > mb * 1e6 {
        let cut = text[..(mb * 1e6) as usize].rfind('\n').map_or(0, |k| k + 1);
        text.truncate(cut);
    }
    let lines: Vec<&[u8]> = text.split('\n').filter(|l| !l.is_empty()).map(str::as_bytes).collect();
    let bytes: usize = lines.iter().map(|l| l.len()).sum();
    let basic = BasicOptions { do_lower_case: !cased, reference: Reference::Tokenizers, ..BasicOptions::default() };
    let tok = FullTokenizer::from_file(vocab.as_ref(), FullOptions { basic, ..FullOptions::default() })?;
    let id = |t: &str| tok.vocab().id(t.as_bytes()).ok_or("no [CLS]/[SEP]");
    let opts = BatchOptions { special: Some((id("[CLS]")?, id("[SEP]")?)), max_length, ..BatchOptions::default() };
    if deal {
        let block = lines.len().div_ceil(2 * 16).max(1);
        let blocks: Vec<&[&[u8]]> = lines.chunks(block).collect();
        let half = blocks.len() / 2;
        let turns: [Vec<usize>; 2] = [(0..blocks.len()).step_by(2).collect(), (1..blocks.len()).step_by(2).collect()];
        let runs: [Vec<usize>; 2] = [(0..half).collect(), (half..blocks.len()).collect()];
        let mut rates = [Vec::new(), Vec::new()];
        for _ in 0..passes {
            for (v, dealt) in [&turns, &runs].into_iter().enumerate() {
                let t = cpu();
                for memo in dealt {
                    bertpiece::word_cache::forget_all();
                    for &b in memo {
                        encode_batch(&tok, blocks[b], opts.clone(), &[], Some(1))?;
                    }
                }
                rates[v].push(bytes as f64 / (cpu() - t) / 1e6);
            }
        }
        let ratios: Vec<f64> = rates[0].iter().zip(&rates[1]).map(|(a, b)| b / a).collect();
        let median = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        println!("dealt in turn {:.1} MB/s CPU, as runs {:.1}; runs/turns per pass: median {:.3}, {}",
            median(&rates[0]), median(&rates[1]), median(&ratios),
            ratios.iter().map(|r| format!("{r:.3}")).collect::<Vec<_>>().join(" "));
        return Ok(());
    }
    let mut rates = Vec::new();
    let mut walls = Vec::new();
    let mut sum = 0u64;
    for _ in 0..passes {
        if !warm {
            bertpiece::word_cache::forget_all();
        }
        let (t, wall) = (cpu(), std::time::Instant::now());
        sum = 0;
        for rows in lines.chunks(batch_rows) {
            let batch = encode_batch(&tok, rows, opts.clone(), &[], Some(threads))?;
            sum = batch.ids.iter().fold(sum ^ batch.ids.len() as u64, |h, &i| h.wrapping_mul(0x100_0000_01B3).wrapping_add(i as u64));
        }
        rates.push(bytes as f64 / (cpu() - t) / 1e6);
        walls.push(bytes as f64 / wall.elapsed().as_secs_f64() / 1e6);
    }
    let rounded: Vec<String> = rates.iter().map(|r| format!("{r:.1}")).collect();
    rates.sort_by(f64::total_cmp);
    walls.sort_by(f64::total_cmp);
    println!("{:.1} MB/s CPU, {:.1} wall, medians of {passes} ({threads} threads, {} MB, {} lines; CPU passes {}); ids checksum {sum:016x}",
        rates[rates.len() / 2], walls[walls.len() / 2], bytes as f64 / 1e6, lines.len(), rounded.join(" "));
    Ok(())
}
