//! The Rust core alone on a tokenizer.json and a text (no Python objects):
//! `Tokenizer::encode` per line, fused path and general path, one thread,
//! and the ids-only entry, in CPU time.
//!
//!     cargo run --release --example unigram_core -- TOKENIZER_JSON CORPUS [MB]
//!
//! `BULK=N THREADS=1,2`: instead, N rounds of the bulk call (`encode_flat`, ids
//! only) on each thread count in turn, with the process's CPU time (all threads).

use bertpiece::pipeline::{Input, Settings, Tokenizer};
use std::time::Instant;

/// This thread's CPU time in seconds (/proc/self/schedstat's first field, ns):
/// wall time is meaningless on the shared, overloaded machine.
fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0) / 1e9
}

/// The process's CPU time in seconds: every thread's /proc schedstat summed.
fn process_cpu() -> f64 {
    let tasks = std::fs::read_dir("/proc/self/task").map(|d| d.flatten().collect::<Vec<_>>()).unwrap_or_default();
    let ns = |e: &std::fs::DirEntry| {
        let s = std::fs::read_to_string(e.path().join("schedstat")).unwrap_or_default();
        s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0)
    };
    tasks.iter().map(ns).sum::<f64>() / 1e9
}

/// `BULK=N`: N rounds of `encode_flat` on each of `THREADS` (default 1,2) in turn.
fn bulk(tok: &Tokenizer, lines: &[&str], bytes: usize, rounds: usize) -> Result<(), Box<dyn std::error::Error>> {
    let counts: Vec<usize> = std::env::var("THREADS").unwrap_or_else(|_| "1,2".into()).split(',').map(|t| t.parse()).collect::<Result<_, _>>()?;
    // JOBS=1: the jobs of `encode_flat` run here, each timed in its thread's CPU time (where the rest goes)
    let jobs_only = std::env::var("JOBS").is_ok_and(|v| v == "1");
    for round in 0..rounds {
        for &threads in &counts {
            if jobs_only {
                let (t, c) = (Instant::now(), process_cpu());
                let per = if threads <= 1 { lines.len() } else { bertpiece::pipeline_batch::ROWS_PER_JOB };
                let spent = bertpiece::threads::run_jobs_in_runs(threads, lines.len().div_ceil(per), |k| {
                    let c = cpu();
                    let mut ids = Vec::new();
                    for l in &lines[k * per..((k + 1) * per).min(lines.len())] {
                        let _ = tok.encode_ids_into(l, false, None, &mut ids, None);
                    }
                    cpu() - c
                })?;
                let (wall, all) = (t.elapsed().as_secs_f64(), process_cpu() - c);
                let jobs: f64 = spent.iter().sum();
                println!("round {round} threads {threads} jobs: {:.1} MB/s wall, {:.1} MB per CPU s, {:.1} MB per job CPU s", bytes as f64 / wall / 1e6, bytes as f64 / all / 1e6, bytes as f64 / jobs / 1e6);
                continue;
            }
            let (t, c) = (Instant::now(), process_cpu());
            let out = bertpiece::pipeline_batch::encode_flat(tok, lines, false, None, false, threads)?;
            let (wall, cpu) = (t.elapsed().as_secs_f64(), process_cpu() - c);
            println!(
                "round {round} threads {threads}: {:.1} MB/s wall, {:.1} MB per CPU s ({} ids)",
                bytes as f64 / wall / 1e6,
                bytes as f64 / cpu / 1e6,
                out.ids.len()
            );
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let json = std::fs::read_to_string(&args[1])?;
    let mb: f64 = args.get(3).map_or(Ok(2.0), |s| s.parse())?;
    // only the MB asked (reading the whole corpus dominated a profile of the calls)
    let mut corpus = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(std::fs::File::open(&args[2])?, (mb * 1e6) as u64), &mut corpus)?;
    let text = String::from_utf8_lossy(&corpus).into_owned();
    let lines: Vec<&str> = text.split('\n').filter(|l| !l.is_empty()).collect();
    let bytes: usize = lines.iter().map(|l| l.len()).sum();
    let t = Instant::now();
    let fused = Tokenizer::from_json(&json)?;
    println!("load {:.0} ms; fused path: {:?}", t.elapsed().as_secs_f64() * 1e3, fused.fast_path());
    if let Some(rounds) = std::env::var("BULK").ok().and_then(|v| v.parse().ok()) {
        return bulk(&fused, &lines, bytes, rounds);
    }
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
