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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

struct Pool {
    threads: usize,
    /// Built on first use: a process that stays on one thread never spawns workers.
    pool: Option<Arc<ThreadPool>>,
    /// The process that built `pool`. A forked child inherits the handle but not the
    /// worker threads (fork copies only the calling thread), so a child that used the
    /// parent's pool would wait forever; it builds its own instead.
    pid: u32,
}

fn state() -> &'static Mutex<Pool> {
    static STATE: OnceLock<Mutex<Pool>> = OnceLock::new();
    STATE.get_or_init(|| {
        Mutex::new(Pool {
            threads: default_threads(),
            pool: None,
            pid: std::process::id(),
        })
    })
}

/// What `FERRIC_NUM_THREADS` held when ferric first read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvThreads {
    /// Unset, or empty / only whitespace.
    Unset,
    /// A positive integer (`value`, as given): the default pool size.
    Count { threads: usize, value: String },
    /// Anything else (kept as given, for the warning); the CPU count is used instead.
    Invalid(String),
}

/// Parses a `FERRIC_NUM_THREADS` value (a positive integer, surrounding whitespace
/// ignored).
pub fn parse_env_threads(value: Option<&str>) -> EnvThreads {
    let Some(raw) = value else {
        return EnvThreads::Unset;
    };
    let v = raw.trim();
    if v.is_empty() {
        return EnvThreads::Unset;
    }
    match v.parse::<usize>() {
        Ok(threads) if threads > 0 => EnvThreads::Count {
            threads,
            value: raw.to_string(),
        },
        _ => EnvThreads::Invalid(raw.to_string()),
    }
}

/// `FERRIC_NUM_THREADS`, read once (the bindings warn about an invalid value).
pub fn env_threads() -> &'static EnvThreads {
    static ENV: OnceLock<EnvThreads> = OnceLock::new();
    ENV.get_or_init(|| parse_env_threads(std::env::var("FERRIC_NUM_THREADS").ok().as_deref()))
}

/// `FERRIC_NUM_THREADS` if it holds a positive integer, else the available CPUs.
fn default_threads() -> usize {
    match env_threads() {
        EnvThreads::Count { threads, .. } => *threads,
        EnvThreads::Unset | EnvThreads::Invalid(_) => std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
    }
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
    if s.pid != std::process::id() {
        // in a forked child: the parent's workers do not exist here. Dropping the handle
        // would try to wake and join them, so it is leaked (a few hundred bytes, once
        // per fork) and a new pool is built on demand.
        std::mem::forget(s.pool.take());
        s.pid = std::process::id();
    }
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
/// parallelism inside it use ferric's workers), or directly on one thread. Callers use
/// it for large work only, so the host's lock is let go meanwhile ([`unlocked`]).
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    unlocked(|| match pool() {
        Some(p) if rayon::current_thread_index().is_none() => p.install(f),
        // already on a worker (nested parallel code) or single-threaded
        _ => f(),
    })
}

// ---------------------------------------------------------------- the host's lock

/// How the embedding host lets other threads run while a long kernel computes: the
/// Python bindings install a hook that releases the GIL around the call (when the
/// calling thread holds it). The core itself knows nothing of Python; without a hook
/// (Rust tests, benches) the work simply runs.
static UNLOCK_HOOK: OnceLock<fn(&mut dyn FnMut())> = OnceLock::new();

thread_local! {
    /// How many [`unlocked`] calls are running on this thread (they nest).
    static LONG_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Installs the host's unlock hook (once; later calls are ignored).
pub fn set_unlock_hook(hook: fn(&mut dyn FnMut())) {
    let _ = UNLOCK_HOOK.set(hook);
}

/// Runs `f` with the host's lock released, for work long enough (tens of microseconds
/// and more) that other threads should not wait for it. `f` must not touch host
/// objects (Python objects, the autograd tape); kernels on slices never do.
pub fn unlocked<R>(f: impl FnOnce() -> R) -> R {
    // while the outermost long call of a caller's thread runs, a Ctrl-C is the kernels' to
    // see (between calls it is the interpreter's alone: see `request_interrupt`)
    let outermost = rayon::current_thread_index().is_none() && LONG_DEPTH.get() == 0;
    if outermost {
        LONG_CALLS.fetch_add(1, Ordering::SeqCst);
    }
    LONG_DEPTH.set(LONG_DEPTH.get() + 1);
    struct Leave(bool);
    impl Drop for Leave {
        fn drop(&mut self) {
            LONG_DEPTH.set(LONG_DEPTH.get() - 1);
            if self.0 {
                LONG_CALLS.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }
    let _leave = Leave(outermost);
    let Some(hook) = UNLOCK_HOOK.get() else {
        return f();
    };
    let mut f = Some(f);
    let mut out = None;
    hook(&mut || out = f.take().map(|f| f()));
    match out {
        Some(r) => r,
        // a hook that did not run its closure breaks its contract; run it here instead
        None => f.take().map(|f| f()).unwrap_or_else(|| unreachable!()),
    }
}

/// [`unlocked`] when `work` (element-operations) is at least [`MIN_PARALLEL_WORK`],
/// else a plain call: releasing and re-taking the lock costs about a microsecond.
pub fn unlocked_if_long<R>(work: usize, f: impl FnOnce() -> R) -> R {
    if work >= MIN_PARALLEL_WORK {
        unlocked(f)
    } else {
        f()
    }
}

// ---------------------------------------------------------------- interrupts

/// Set (from a signal handler: an atomic store is async-signal-safe) when the user asked
/// to interrupt, e.g. with Ctrl-C; long kernels poll it between chunks and stop early.
static INTERRUPT: AtomicBool = AtomicBool::new(false);

/// Outermost long calls running now (on any thread).
static LONG_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Records an interrupt request (called by the host's SIGINT handler; atomics only, so
/// async-signal-safe). Only a request that arrives while a long call runs is kept: one
/// between calls is the interpreter's to handle, and must not stop the next call. A kept
/// request stays until an op consumes it ([`check_interrupt`]), so every kernel of the
/// interrupted op stops early and nothing computed after it is used.
pub fn request_interrupt() {
    if LONG_CALLS.load(Ordering::SeqCst) > 0 {
        INTERRUPT.store(true, Ordering::Relaxed);
    }
}

/// True when an interrupt was requested: a long kernel should stop at its next chunk
/// boundary (its output is then discarded by [`check_interrupt`]).
pub fn interrupted() -> bool {
    INTERRUPT.load(Ordering::Relaxed)
}

/// After a long op: an error if an interrupt arrived meanwhile (the op's kernels may
/// have stopped early, so its result must not be used). The bindings turn the error
/// into the interpreter's own `KeyboardInterrupt`.
pub fn check_interrupt(op: &str) -> Result<()> {
    // a plain load first: this runs once per op, and a swap is a locked instruction
    if INTERRUPT.load(Ordering::Relaxed) && INTERRUPT.swap(false, Ordering::Relaxed) {
        return Err(Error::interrupted(op));
    }
    Ok(())
}

/// Runs `f(i)` for every `i < parts`: the calling thread does part 0 itself while
/// ferric's pool takes the others, so a split into as many parts as threads wakes one
/// worker fewer than handing everything to the pool (on a VM a wake-up costs ~10 us).
/// On a pool worker or with one thread, all parts run here in order.
pub fn for_each_part(parts: usize, f: impl Fn(usize) + Sync) {
    unlocked(|| for_each_part_locked(parts, f))
}

fn for_each_part_locked(parts: usize, f: impl Fn(usize) + Sync) {
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

    #[test]
    fn ferric_num_threads_values_parse() {
        assert_eq!(parse_env_threads(None), EnvThreads::Unset);
        assert_eq!(parse_env_threads(Some(" ")), EnvThreads::Unset);
        assert_eq!(
            parse_env_threads(Some(" 3 ")),
            EnvThreads::Count {
                threads: 3,
                value: " 3 ".into()
            }
        );
        for bad in ["0", "-2", "two", "2.0", "1e3"] {
            assert_eq!(
                parse_env_threads(Some(bad)),
                EnvThreads::Invalid(bad.into())
            );
        }
    }
}
