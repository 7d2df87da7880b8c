//! Helpers shared by the criterion benches (`mod common;` in each bench file).

/// Deterministic values in [-1, 1) (an xorshift stream; no RNG dependency).
#[allow(dead_code)] // not every bench draws raw data
pub fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

/// Thread settings to compare: 1 and the machine's default.
pub fn thread_counts() -> Vec<usize> {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    if all > 1 {
        vec![1, all]
    } else {
        vec![1]
    }
}
