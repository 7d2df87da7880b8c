//! The backward half of `ferric.profiler`: while a profile is active on a thread, the
//! engine notes when each node of that thread's backward passes ran, as PyTorch's
//! profiler shows them (`autograd::engine::evaluate_function: MulBackward0` around the
//! node's own `MulBackward0`). Python reads the notes when the profile stops and puts
//! them beside the ops it timed itself.

use std::cell::RefCell;
use std::time::Instant;

/// One timed span: its name and its start and end in nanoseconds since the profile began.
pub type Span = (String, u64, u64);

struct Recorder {
    origin: Instant,
    spans: Vec<Span>,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// Starts noting spans on this thread (dropping any not yet taken); the clock starts now.
pub fn start() {
    RECORDER.with(|r| {
        *r.borrow_mut() = Some(Recorder {
            origin: Instant::now(),
            spans: Vec::new(),
        })
    });
}

/// Stops noting spans on this thread and returns those noted since [`start`].
pub fn stop() -> Vec<Span> {
    RECORDER.with(|r| {
        r.borrow_mut()
            .take()
            .map(|rec| rec.spans)
            .unwrap_or_default()
    })
}

/// The time since the profile began, when one is active on this thread.
pub fn now() -> Option<u64> {
    RECORDER.with(|r| {
        r.borrow()
            .as_ref()
            .map(|rec| u64::try_from(rec.origin.elapsed().as_nanos()).unwrap_or(u64::MAX))
    })
}

/// Notes the span `name` from `start` (a value of [`now`]) until now.
pub fn note(name: impl Into<String>, start: u64) {
    RECORDER.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            let end = u64::try_from(rec.origin.elapsed().as_nanos()).unwrap_or(u64::MAX);
            rec.spans.push((name.into(), start, end));
        }
    });
}
