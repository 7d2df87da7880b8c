//! ferric's own worker pool.
//!
//! Kernels that split work across threads run it on this pool, never on rayon's global
//! one, so `set_num_threads` governs ferric alone and an application's own rayon use is
//! left undisturbed. The size comes from `FERRIC_NUM_THREADS` when set (a positive
//! integer), otherwise from the number of CPUs available to the process.
//!
//! Splitting is decided per call from the amount of work (see [`worth_splitting`]): a
//! hand-off to the pool costs a few microseconds, which small tensors must not pay. With
//! one thread nothing is ever handed off; the caller's thread does all the work.

use crate::error::{Error, Result};
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::{Arc, Mutex, OnceLock};

struct Pool {
    threads: usize,
    /// Built on first use: a process that stays on one thread never spawns workers.
    pool: Option<Arc<ThreadPool>>,
}

fn state() -> &'static Mutex<Pool> {
    static STATE: OnceLock<Mutex<Pool>> = OnceLock::new();
    STATE.get_or_init(|| {
        Mutex::new(Pool {
            threads: default_threads(),
            pool: None,
        })
    })
}

/// `FERRIC_NUM_THREADS` if it holds a positive integer, else the available CPUs.
fn default_threads() -> usize {
    let from_env = std::env::var("FERRIC_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0);
    from_env.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

fn lock() -> std::sync::MutexGuard<'static, Pool> {
    // a poisoned lock only means another thread panicked while holding it; the state
    // (a count and an optional pool) is always consistent, so keep using it
    state().lock().unwrap_or_else(|e| e.into_inner())
}

/// The number of threads ferric's kernels may use.
pub fn num_threads() -> usize {
    lock().threads
}

/// Sets the number of threads ferric's kernels may use (PyTorch's `set_num_threads`).
pub fn set_num_threads(n: usize) -> Result<()> {
    if n == 0 {
        // PyTorch's message already names the op
        return Err(Error::runtime(
            "",
            "set_num_threads expects a positive integer",
        ));
    }
    let mut s = lock();
    if s.threads != n {
        s.threads = n;
        s.pool = None;
    }
    Ok(())
}

/// The pool to run on, or None when ferric is set to one thread.
fn pool() -> Option<Arc<ThreadPool>> {
    let mut s = lock();
    if s.threads <= 1 {
        return None;
    }
    if s.pool.is_none() {
        let threads = s.threads;
        let built = ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("ferric-{i}"))
            .build();
        // if the OS refuses threads, run serially rather than fail the op
        s.pool = built.ok().map(Arc::new);
    }
    s.pool.clone()
}

/// Below this many element-operations a kernel stays on the calling thread. Measured on
/// a 2-core VM: splitting an `a + b` over two workers pays off from about 64k float32
/// elements (the hand-off costs ~5-10 us, a core streams ~2-4 elements per ns).
pub const MIN_PARALLEL_WORK: usize = 1 << 16;

/// True when `work` (roughly, element-operations) is worth spreading over the pool.
pub fn worth_splitting(work: usize) -> bool {
    work >= MIN_PARALLEL_WORK && num_threads() > 1
}

/// Runs `f` inside ferric's pool (so rayon's parallel iterators and `gemm`'s rayon
/// parallelism inside it use ferric's workers), or directly on one thread.
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(p) if rayon::current_thread_index().is_none() => p.install(f),
        // already on a worker (nested parallel code) or single-threaded
        _ => f(),
    }
}

/// Runs `f(i)` for every `i < parts`: the calling thread does part 0 itself while
/// ferric's pool takes the others, so a split into as many parts as threads wakes one
/// worker fewer than handing everything to the pool (on a VM a wake-up costs ~10 us).
/// On a pool worker or with one thread, all parts run here in order.
pub fn for_each_part(parts: usize, f: impl Fn(usize) + Sync) {
    match pool() {
        Some(p) if parts > 1 && rayon::current_thread_index().is_none() => {
            let f = &f;
            p.in_place_scope(|s| {
                for i in 1..parts {
                    s.spawn(move |_| f(i));
                }
                f(0);
            });
        }
        _ => (0..parts).for_each(f),
    }
}

/// The number of threads parallel code running now can use: the pool's size inside
/// [`install`], otherwise ferric's setting.
pub fn current_threads() -> usize {
    if rayon::current_thread_index().is_some() {
        rayon::current_num_threads()
    } else {
        num_threads()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_follows_the_setting() {
        let before = num_threads();
        assert!(set_num_threads(0).is_err());
        set_num_threads(3).unwrap();
        assert_eq!(num_threads(), 3);
        assert_eq!(install(rayon::current_num_threads), 3);
        assert_eq!(install(current_threads), 3);
        let hits: Vec<_> = (0..5)
            .map(|_| std::sync::atomic::AtomicUsize::new(0))
            .collect();
        for_each_part(5, |i| {
            hits[i].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        assert!(hits
            .iter()
            .all(|h| h.load(std::sync::atomic::Ordering::Relaxed) == 1));
        set_num_threads(1).unwrap();
        assert_eq!(install(rayon::current_thread_index), None);
        assert!(!worth_splitting(usize::MAX));
        set_num_threads(before).unwrap();
    }
}
