//! The one thread pool batches run on. It is sized to the CPUs this process
//! may use (`available_parallelism`: affinity mask and cgroup quota), made on
//! first use and kept for the life of the process; a batch asked to run on
//! fewer threads runs that many workers in it, and a request for more threads
//! than there are usable CPUs is capped (more threads than CPUs only adds
//! switching, and thousands of them took seconds to start). One thread, or
//! little work, runs on the calling thread: no hand-off at all.

use crate::{Error, Result};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The CPUs this process may use, looked up once per process (the lookup
/// reads cgroup files: too slow for every call). A child of `fork()` looks
/// again.
pub fn usable_cpus() -> usize {
    static CPUS: Mutex<Option<(u32, usize)>> = Mutex::new(None);
    let pid = std::process::id();
    let mut cpus = CPUS.lock().unwrap_or_else(|p| p.into_inner());
    match *cpus {
        Some((owner, n)) if owner == pid => n,
        _ => {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get());
            *cpus = Some((pid, n));
            n
        }
    }
}

/// The threads a batch runs on when asked for `requested` (`None`: all
/// usable CPUs): at most the usable CPUs; 0 is an error.
pub fn thread_count(requested: Option<usize>) -> Result<usize> {
    match requested {
        Some(0) => Err(Error::BadThreadCount(0)),
        // (one thread needs no lookup: it costs a lock and a `getpid` system call, ~0.25 µs here,
        // a tenth of a padded call of one text)
        Some(1) => Ok(1),
        Some(n) => Ok(n.min(usable_cpus())),
        None => Ok(usable_cpus()),
    }
}

/// The process's pool. A pool made before a `fork()` has no threads in the
/// child, so it is remembered with the pid that made it; the child makes
/// its own (the parent's is leaked, never joined).
pub(crate) fn pool() -> Result<Arc<rayon::ThreadPool>> {
    static POOL: Mutex<Option<(u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);
    let pid = std::process::id();
    let mut slot = POOL.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((owner, pool)) = &*slot {
        if *owner == pid {
            return Ok(pool.clone());
        }
    }
    if let Some(inherited) = slot.take() {
        std::mem::forget(inherited);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(usable_cpus())
        .thread_name(|i| format!("bertpiece-{i}"))
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))?;
    let pool = Arc::new(pool);
    *slot = Some((pid, pool.clone()));
    Ok(pool)
}

/// Runs `job(k)` for every `k` in `0..jobs` on at most `threads` threads and
/// returns the results in order. With one thread (or one job) the jobs run
/// on the calling thread; otherwise the calling thread and `threads - 1`
/// workers in the pool take the next job in turn (so uneven jobs balance).
pub fn run_jobs<T: Send>(threads: usize, jobs: usize, job: impl Fn(usize) -> T + Sync) -> Result<Vec<T>> {
    let workers = threads.min(jobs);
    if workers <= 1 {
        return Ok((0..jobs).map(job).collect());
    }
    let pool = pool()?;
    let (next, done, job) = (&AtomicUsize::new(0), &Mutex::new(Vec::with_capacity(jobs)), &job);
    let work = move || {
        let mut mine = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= jobs {
                break;
            }
            mine.push((k, job(k)));
        }
        done.lock().unwrap_or_else(|p| p.into_inner()).extend(mine);
    };
    // The calling thread is one of the workers (it would only wait otherwise).
    pool.in_place_scope(|s| {
        for _ in 1..workers {
            s.spawn(move |_| work());
        }
        work();
    });
    let mut done = std::mem::take(&mut *done.lock().unwrap_or_else(|p| p.into_inner()));
    done.sort_unstable_by_key(|(k, _)| *k);
    Ok(done.into_iter().map(|(_, t)| t).collect())
}

/// [`run_jobs`] with the jobs dealt as contiguous runs, one per worker:
/// each worker takes its own run front to back, then the others' last jobs
/// from the back (so uneven jobs still balance). The jobs a worker runs are
/// mostly neighbours: rows near each other share words (a document, a
/// language), and each worker's word memo then learns them once instead of
/// every worker learning every word, as with jobs taken in turn.
pub fn run_jobs_in_runs<T: Send>(threads: usize, jobs: usize, job: impl Fn(usize) -> T + Sync) -> Result<Vec<T>> {
    if jobs > u32::MAX as usize {
        return run_jobs(threads, jobs, job);
    }
    Ok(run_runs_with_state(threads, jobs, |_| (), |(), k| job(k))?.1)
}

/// [`run_jobs_in_runs`] with a state per worker: `state(w)` makes worker
/// `w`'s, and each job it runs gets it (`job(&mut state, k)`), e.g. one
/// output buffer that the worker's jobs taken in order append to. Returns
/// the states of the workers that ran, by worker (the calling thread's
/// first), and the results in job order. One worker (or more than
/// `u32::MAX` jobs) runs every job in order on the calling thread.
pub fn run_runs_with_state<S: Send, T: Send>(
    threads: usize,
    jobs: usize,
    state: impl Fn(usize) -> S + Sync,
    job: impl Fn(&mut S, usize) -> T + Sync,
) -> Result<(Vec<S>, Vec<T>)> {
    let workers = threads.min(jobs);
    if workers <= 1 || jobs > u32::MAX as usize {
        let mut s = state(0);
        let out = (0..jobs).map(|k| job(&mut s, k)).collect();
        return Ok((vec![s], out));
    }
    let pool = pool()?;
    let (runs, done, states) = (&Runs::new(jobs, workers), &Mutex::new(Vec::with_capacity(jobs)), &Mutex::new(Vec::with_capacity(workers)));
    let (job, state) = (&job, &state);
    let work = move |w: usize| {
        let mut s = state(w);
        let mut mine = Vec::new();
        while let Some(k) = runs.take(w) {
            mine.push((k, job(&mut s, k)));
        }
        done.lock().unwrap_or_else(|p| p.into_inner()).extend(mine);
        states.lock().unwrap_or_else(|p| p.into_inner()).push((w, s));
    };
    pool.in_place_scope(|s| {
        for w in 1..workers {
            s.spawn(move |_| work(w));
        }
        work(0);
    });
    let mut done = std::mem::take(&mut *done.lock().unwrap_or_else(|p| p.into_inner()));
    done.sort_unstable_by_key(|(k, _)| *k);
    let mut states = std::mem::take(&mut *states.lock().unwrap_or_else(|p| p.into_inner()));
    states.sort_unstable_by_key(|(w, _)| *w);
    Ok((states.into_iter().map(|(_, s)| s).collect(), done.into_iter().map(|(_, t)| t).collect()))
}

/// The run holding job `k` when [`run_runs_with_state`] deals `jobs` jobs
/// to `workers` workers (the jobs its worker takes first, in order).
pub fn run_holding(jobs: usize, workers: usize, k: usize) -> std::ops::Range<usize> {
    let workers = workers.clamp(1, jobs.max(1));
    let bound = |w: usize| (jobs as u64 * w as u64 / workers as u64) as usize;
    (0..workers).map(|w| bound(w)..bound(w + 1)).find(|r| r.contains(&k)).unwrap_or(k..k + 1)
}

/// The jobs not yet taken of each worker's run: `front << 32 | back` (the
/// jobs `front..back`), changed by compare-and-swap, so each job is taken
/// exactly once.
pub(crate) struct Runs {
    left: Vec<AtomicU64>,
}

/// What [`Runs::take_ready`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Take {
    Job(usize),
    /// Jobs are left, but none whose input is there yet.
    NotReady,
    Empty,
}

impl Runs {
    /// `jobs` (at most `u32::MAX`) in `workers` runs of equal length (± 1).
    pub(crate) fn new(jobs: usize, workers: usize) -> Self {
        let bound = |w: usize| jobs as u64 * w as u64 / workers as u64; // no overflow where usize is 32 bits
        Runs { left: (0..workers).map(|w| AtomicU64::new(bound(w) << 32 | bound(w + 1))).collect() }
    }

    /// The next job of worker `w`: the front of its own run, else the back
    /// of the next run that has jobs left.
    fn take(&self, w: usize) -> Option<usize> {
        match self.take_ready(w, &|_| true) {
            Take::Job(k) => Some(k),
            _ => None,
        }
    }

    /// [`take`](Self::take) among the jobs for which `ready(k)`: a run whose
    /// next job (front of its own, back of another's) is not ready is passed.
    pub(crate) fn take_ready(&self, w: usize, ready: &dyn Fn(usize) -> bool) -> Take {
        let n = self.left.len();
        let mut waiting = false;
        for d in 0..n {
            match self.pop(&self.left[(w + d) % n], d == 0, ready) {
                Take::Job(k) => return Take::Job(k),
                Take::NotReady => waiting = true,
                Take::Empty => {}
            }
        }
        if waiting { Take::NotReady } else { Take::Empty }
    }

    fn pop(&self, run: &AtomicU64, front: bool, ready: &dyn Fn(usize) -> bool) -> Take {
        let mut now = run.load(Ordering::Relaxed);
        loop {
            let (lo, hi) = (now >> 32, now & u64::from(u32::MAX));
            if lo >= hi {
                return Take::Empty;
            }
            let (k, next) = if front { (lo, (lo + 1) << 32 | hi) } else { (hi - 1, lo << 32 | (hi - 1)) };
            if !ready(k as usize) {
                return Take::NotReady;
            }
            match run.compare_exchange_weak(now, next, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Take::Job(k as usize),
                Err(seen) => now = seen,
            }
        }
    }
}

/// [`run_jobs`] that hands each result to `ready(k, result)` on the calling
/// thread in order. The calling thread stops taking jobs once no more than
/// `reserve` are left untaken, and hands over the results done so far (e.g.
/// makes Python objects of them, which only it can do) while the other
/// threads run those last jobs; with nothing done to hand over it takes a
/// job again, so a reserve too large for the others (a thread slowed by
/// other work) costs no waiting. A panicking job panics the caller, as in
/// [`run_jobs`].
pub fn run_jobs_in_order<T: Send>(threads: usize, jobs: usize, reserve: usize, job: impl Fn(usize) -> T + Sync, mut ready: impl FnMut(usize, T)) -> Result<()> {
    let workers = threads.min(jobs);
    if workers <= 1 {
        // Nothing runs meanwhile: all jobs first, as `run_jobs`. Handing each
        // over in between was measured slower (making the Python lists of one
        // slice after the next found the ints they use evicted by the encoding).
        let results: Vec<T> = (0..jobs).map(job).collect();
        results.into_iter().enumerate().for_each(|(k, t)| ready(k, t));
        return Ok(());
    }
    let pool = pool()?;
    type Slot<T> = Option<std::thread::Result<T>>;
    let slots: Vec<Slot<T>> = (0..jobs).map(|_| None).collect();
    let (next, done, job) = (&AtomicUsize::new(0), &(Mutex::new(slots), Condvar::new()), &job);
    let take = move || Some(next.fetch_add(1, Ordering::Relaxed)).filter(|&k| k < jobs);
    // A job's panic is kept as its result, so the caller waiting for it is woken and panics with it.
    let run = move |k: usize| {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(k)));
        done.0.lock().unwrap_or_else(|p| p.into_inner())[k] = Some(result);
        done.1.notify_all();
    };
    let hand_over = |result: std::thread::Result<T>| result.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    pool.in_place_scope(|s| {
        for _ in 1..workers {
            s.spawn(move |_| (0..).map_while(|_| take()).for_each(run));
        }
        // Not between its own jobs: that made each slice's Python lists find
        // their int objects evicted by the encoding (~10 % more CPU, 2 threads).
        while jobs.saturating_sub(next.load(Ordering::Relaxed)) > reserve {
            match take() {
                Some(k) => run(k),
                None => break,
            }
        }
        // The results in order: each one done is handed over; while the next
        // is not done, a job left untaken is run, else the caller waits for it.
        for first in 0..jobs {
            let lock = || done.0.lock().unwrap_or_else(|p| p.into_inner());
            let result = 'found: loop {
                if let Some(result) = lock()[first].take() {
                    break result;
                }
                if let Some(k) = take() {
                    run(k);
                    continue;
                }
                let mut slots = lock();
                loop {
                    match slots[first].take() {
                        Some(result) => break 'found result,
                        None => slots = done.1.wait(slots).unwrap_or_else(|p| p.into_inner()),
                    }
                }
            };
            ready(first, hand_over(result));
        }
    });
    Ok(())
}

/// Runs `f(k, slices[k])` for every slice on at most `threads` threads (as
/// [`run_jobs`]): for filling disjoint parts of one buffer in parallel.
pub fn for_each_slice<T: Send>(threads: usize, slices: Vec<&mut [T]>, f: impl Fn(usize, &mut [T]) + Sync) -> Result<()> {
    let slots: Vec<Mutex<Option<&mut [T]>>> = slices.into_iter().map(|s| Mutex::new(Some(s))).collect();
    run_jobs(threads, slots.len(), |k| {
        if let Some(s) = slots[k].lock().unwrap_or_else(|p| p.into_inner()).take() {
            f(k, s);
        }
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_come_back_in_order_on_any_thread_count() {
        for threads in [1, 2, 3, 64] {
            let out = run_jobs(threads, 100, |k| k * k).unwrap();
            assert_eq!(out, (0..100).map(|k| k * k).collect::<Vec<_>>());
        }
    }

    #[test]
    fn results_are_handed_over_in_order_on_any_thread_count() {
        // Any reserve: none, some, every job (the caller then runs only what it finds undone).
        for (threads, reserve) in [(1, 0), (2, 0), (2, 3), (2, 100), (3, 7), (64, 1000)] {
            let mut out = Vec::new();
            run_jobs_in_order(threads, 100, reserve, |k| {
                // Later jobs finish first where threads run them at once.
                std::thread::sleep(std::time::Duration::from_micros(((100 - k) * 10) as u64));
                k * k
            }, |k, v| out.push((k, v)))
            .unwrap();
            assert_eq!(out, (0..100).map(|k| (k, k * k)).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_panicking_job_panics_the_caller() {
        for reserve in [0, 2, 8] {
            let caught = std::panic::catch_unwind(|| run_jobs_in_order(2, 8, reserve, |k| assert!(k != 5, "job 5"), |_, _| ()));
            assert!(caught.is_err());
        }
    }

    #[test]
    fn at_most_the_asked_threads_work_at_once() {
        let busy = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        run_jobs(2, 64, |_| {
            let now = busy.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(1));
            busy.fetch_sub(1, Ordering::SeqCst);
        })
        .unwrap();
        assert!(most.load(Ordering::SeqCst) <= 2);
    }

    #[test]
    fn jobs_in_runs_come_back_in_order_each_run_once() {
        for threads in [1, 2, 3, 64] {
            for jobs in [0, 1, 2, 5, 100] {
                let runs = AtomicUsize::new(0);
                let out = run_jobs_in_runs(threads, jobs, |k| {
                    runs.fetch_add(1, Ordering::SeqCst);
                    k * k
                })
                .unwrap();
                assert_eq!(out, (0..jobs).map(|k| k * k).collect::<Vec<_>>());
                assert_eq!(runs.load(Ordering::SeqCst), jobs);
            }
        }
    }

    #[test]
    fn the_run_holding_a_job_is_the_one_its_worker_takes_first() {
        assert_eq!([0, 2, 3, 9].map(|k| run_holding(10, 3, k)), [0..3, 0..3, 3..6, 6..10]);
        assert_eq!(run_holding(1, 2, 0), 0..1);
        assert_eq!(run_holding(5, 1, 4), 0..5);
    }

    #[test]
    fn a_worker_takes_its_own_run_then_the_others_from_the_back() {
        let runs = Runs::new(10, 3); // runs 0..3, 3..6, 6..10
        let order: Vec<usize> = std::iter::from_fn(|| runs.take(1)).collect();
        assert_eq!(order, [3, 4, 5, 9, 8, 7, 6, 2, 1, 0]);
        let runs = Runs::new(10, 3);
        assert_eq!((runs.take(0), runs.take(2), runs.take(2)), (Some(0), Some(6), Some(7)));
    }

    #[test]
    fn thread_counts_are_capped_at_the_usable_cpus() {
        assert_eq!(thread_count(Some(1_000_000)).unwrap(), usable_cpus());
        assert_eq!(thread_count(Some(1)).unwrap(), 1);
        assert!(matches!(thread_count(Some(0)), Err(Error::BadThreadCount(0))));
    }
}
