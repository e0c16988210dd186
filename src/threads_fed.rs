//! [`run_runs_with_state`](crate::threads::run_runs_with_state) for jobs whose
//! input arrives while they run: the calling thread first makes the input
//! (a bulk call reads its Python texts, which only it can do, holding the
//! GIL) while the pool's workers already run the jobs whose input is there,
//! then joins them. The jobs and their results are the same as there; only
//! when each job can start differs.

use crate::threads::{pool, Runs, Take};
use crate::Result;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Where the jobs' input stands, as the workers see it.
pub trait Feed: Sync {
    /// Whether job `k`'s input is there (it stays there once it is).
    fn ready(&self, k: usize) -> bool;
    /// How many jobs' inputs are there (a worker waiting watches it move).
    fn arrived(&self) -> usize;
    /// Whether no more input will come (the producer failed).
    fn stopped(&self) -> bool;
}

/// How long a pool worker waits for the next input without any arriving
/// before it leaves the rest to the calling thread. The producer holds the
/// GIL and runs no Python code in the usual case (a list of str), so inputs
/// arrive every few µs; if it lost the GIL (a str subclass's Python method,
/// a finalizer run by the collector) to a thread that waits for this pool,
/// waiting on would never end: the calling thread then does the jobs left.
const PATIENCE: Duration = Duration::from_millis(2);

/// Runs `job(&mut state, k)` for every `k` in `0..jobs` as
/// `run_runs_with_state` does, on at most `threads` threads, a job only once
/// `feed.ready(k)`. `caller(work)` runs on the calling thread while the pool's
/// workers start: it makes the input, then runs `work` (the calling thread's
/// own share, and every job the workers left) exactly once, or not at all if
/// it failed (having stopped the feed). Returns the states of the workers that
/// ran and the results of the jobs that ran, each with its job.
#[allow(clippy::type_complexity)]
pub fn run_runs_fed<S: Send, T: Send>(
    threads: usize,
    jobs: usize,
    feed: &dyn Feed,
    state: impl Fn(usize) -> S + Sync,
    job: impl Fn(&mut S, usize) -> T + Sync,
    caller: impl FnOnce(&(dyn Fn() + Sync)),
) -> Result<(Vec<S>, Vec<(usize, T)>)> {
    let workers = threads.min(jobs).clamp(1, u32::MAX as usize);
    let jobs = jobs.min(u32::MAX as usize);
    let pool = if workers > 1 { Some(pool()?) } else { None };
    let (runs, done, states) = (&Runs::new(jobs, workers), &Mutex::new(Vec::with_capacity(jobs)), &Mutex::new(Vec::with_capacity(workers)));
    let (job, state) = (&job, &state);
    let work = move |w: usize| {
        let mut s = state(w);
        let mut mine = Vec::new();
        let mut wait = Wait::new();
        loop {
            match runs.take_ready(w, &|k| feed.ready(k)) {
                Take::Job(k) => {
                    mine.push((k, job(&mut s, k)));
                    wait = Wait::new();
                }
                Take::Empty => break,
                Take::NotReady if wait.goes_on(feed) => {}
                Take::NotReady => break,
            }
        }
        done.lock().unwrap_or_else(|p| p.into_inner()).extend(mine);
        states.lock().unwrap_or_else(|p| p.into_inner()).push((w, s));
    };
    match &pool {
        Some(pool) => pool.in_place_scope(|s| {
            for w in 1..workers {
                s.spawn(move |_| work(w));
            }
            caller(&|| work(0));
        }),
        None => caller(&|| work(0)),
    }
    let mut done = std::mem::take(&mut *done.lock().unwrap_or_else(|p| p.into_inner()));
    done.sort_unstable_by_key(|(k, _)| *k);
    let mut states = std::mem::take(&mut *states.lock().unwrap_or_else(|p| p.into_inner()));
    states.sort_unstable_by_key(|(w, _)| *w);
    Ok((states.into_iter().map(|(_, s)| s).collect(), done))
}

/// A worker's wait for the next input: spins a little, then yields, and
/// gives up after [`PATIENCE`] with no input arriving (or once the feed stopped).
struct Wait {
    spins: u32,
    seen: usize,
    since: Option<Instant>,
}

impl Wait {
    fn new() -> Self {
        Wait { spins: 0, seen: usize::MAX, since: None }
    }

    fn goes_on(&mut self, feed: &dyn Feed) -> bool {
        if feed.stopped() {
            return false;
        }
        let arrived = feed.arrived();
        if arrived != self.seen {
            (self.seen, self.since, self.spins) = (arrived, Some(Instant::now()), 0);
        }
        self.spins += 1;
        if self.spins < 64 {
            std::hint::spin_loop();
            return true;
        }
        std::thread::yield_now();
        self.since.is_none_or(|t| t.elapsed() < PATIENCE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// Inputs arriving in a given order, one at a time.
    struct Order {
        there: Vec<AtomicBool>,
        arrived: AtomicUsize,
        stopped: AtomicBool,
    }

    impl Feed for Order {
        fn ready(&self, k: usize) -> bool {
            self.there[k].load(Ordering::Acquire)
        }
        fn arrived(&self) -> usize {
            self.arrived.load(Ordering::Acquire)
        }
        fn stopped(&self) -> bool {
            self.stopped.load(Ordering::Acquire)
        }
    }

    fn order(jobs: usize) -> Order {
        Order { there: (0..jobs).map(|_| AtomicBool::new(false)).collect(), arrived: AtomicUsize::new(0), stopped: AtomicBool::new(false) }
    }

    #[test]
    fn every_job_runs_once_whatever_order_its_input_comes_in() {
        for threads in [1, 2, 3, 8] {
            for jobs in [0, 1, 2, 7, 64] {
                for (name, pause) in [("fast", 0), ("slow", 300), ("stalled", 5_000)] {
                    let feed = order(jobs);
                    let ran = AtomicUsize::new(0);
                    let (_, out) = run_runs_fed(threads, jobs, &feed, |_| (), |(), k| {
                        assert!(feed.ready(k), "job {k} ran before its input");
                        ran.fetch_add(1, Ordering::SeqCst);
                        k * 3
                    }, |work| {
                        // backwards, with pauses (a stall longer than the workers' patience: they leave)
                        for k in (0..jobs).rev() {
                            std::thread::sleep(Duration::from_micros(if k == jobs / 2 { pause } else { pause / 10 }));
                            feed.there[k].store(true, Ordering::Release);
                            feed.arrived.fetch_add(1, Ordering::Release);
                        }
                        work();
                    })
                    .unwrap();
                    assert_eq!(out, (0..jobs).map(|k| (k, k * 3)).collect::<Vec<_>>(), "{threads} threads, {jobs} jobs, {name}");
                    assert_eq!(ran.load(Ordering::SeqCst), jobs);
                }
            }
        }
    }

    #[test]
    fn a_stopped_feed_ends_the_call_with_the_jobs_whose_input_came() {
        let feed = order(10);
        let (_, out) = run_runs_fed(2, 10, &feed, |_| (), |(), k| k, |_work| {
            for k in [5, 6] {
                feed.there[k].store(true, Ordering::Release);
            }
            feed.stopped.store(true, Ordering::Release); // failed: `work` not run
        })
        .unwrap();
        assert!(out.iter().all(|&(k, _)| k == 5 || k == 6));
    }
}
