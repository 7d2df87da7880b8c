//! The CPU random generator: PyTorch's `at::mt19937` (32-bit Mersenne Twister) plus the
//! cached second Box–Muller sample, with the same seeding, draw order and serialized
//! state layout as `CPUGeneratorImpl`, so seeded ferric programs reproduce PyTorch's
//! numbers.
//!
//! A `Generator` is a handle (`Arc<Mutex<_>>`): `ferric.default_generator` and the one
//! used when no `generator=` is passed are the same process-wide object. The mutex is
//! held for a whole op so a tensor's draws are contiguous in the stream, like PyTorch's
//! `generator->mutex_`.

use crate::error::{Error, Result};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError};

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// The seed of a `torch.Generator()` that was never seeded explicitly.
pub const DEFAULT_RNG_SEED: u64 = 67280421310721;

/// Size of PyTorch's serialized `CPUGeneratorImplState` (`get_rng_state().numel()`).
pub const STATE_SIZE: usize = 5056;

/// Mersenne Twister with PyTorch's bookkeeping (`left`/`next`), which is part of the
/// serialized state.
#[derive(Clone)]
pub struct Mt19937 {
    seed: u64,
    left: i32,
    seeded: bool,
    next: u32,
    state: [u32; N],
}

impl Mt19937 {
    pub fn new(seed: u64) -> Self {
        let mut state = [0u32; N];
        state[0] = seed as u32;
        for j in 1..N {
            let prev = state[j - 1];
            state[j] = 1812433253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(j as u32);
        }
        Mt19937 {
            seed,
            left: 1,
            seeded: true,
            next: 0,
            state,
        }
    }

    fn twist(u: u32, v: u32) -> u32 {
        (((u & UPPER_MASK) | (v & LOWER_MASK)) >> 1) ^ if v & 1 != 0 { MATRIX_A } else { 0 }
    }

    fn next_state(&mut self) {
        self.left = N as i32;
        self.next = 0;
        let s = &mut self.state;
        for i in 0..N - M {
            s[i] = s[i + M] ^ Self::twist(s[i], s[i + 1]);
        }
        for i in N - M..N - 1 {
            s[i] = s[i + M - N] ^ Self::twist(s[i], s[i + 1]);
        }
        s[N - 1] = s[M - 1] ^ Self::twist(s[N - 1], s[0]);
    }

    /// One 32-bit draw.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        self.left -= 1;
        if self.left == 0 {
            self.next_state();
        }
        // `next` stays below N: it is reset whenever `left` runs out
        let mut y = self.state[self.next as usize % N];
        self.next += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }
}

/// Everything a generator carries between draws.
#[derive(Clone)]
pub struct GenState {
    mt: Mt19937,
    /// Second Box–Muller value of the last scalar normal draw (PyTorch caches it).
    pub next_double_normal: Option<f64>,
    pub next_float_normal: Option<f32>,
}

impl GenState {
    fn new(seed: u64) -> Self {
        GenState {
            mt: Mt19937::new(seed),
            next_double_normal: None,
            next_float_normal: None,
        }
    }

    /// `CPUGeneratorImpl::random()`: one 32-bit draw.
    #[inline]
    pub fn random(&mut self) -> u32 {
        self.mt.next_u32()
    }

    /// `random64()`: two draws, the first one in the high half.
    #[inline]
    pub fn random64(&mut self) -> u64 {
        let hi = self.random() as u64;
        let lo = self.random() as u64;
        (hi << 32) | lo
    }

    /// float32 uniform on [0, 1): 24 random bits scaled by 2^-24.
    #[inline]
    pub fn unit_f32(&mut self) -> f32 {
        (self.random() & 0x00ff_ffff) as f32 * (1.0 / 16_777_216.0)
    }

    /// float64 uniform on [0, 1): 53 random bits scaled by 2^-53.
    #[inline]
    pub fn unit_f64(&mut self) -> f64 {
        (self.random64() & 0x001f_ffff_ffff_ffff) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `at::normal_distribution<double>`: Box–Muller on two 53-bit uniforms, returning
    /// the cosine value and caching the sine value for the next call.
    pub fn normal_f64(&mut self, mean: f64, std: f64) -> f64 {
        if let Some(v) = self.next_double_normal.take() {
            return v.mul_add(std, mean);
        }
        let u1 = self.unit_f64();
        let u2 = self.unit_f64();
        let r = (-2.0 * (-u2).ln_1p()).sqrt();
        let theta = 2.0 * std::f64::consts::PI * u1;
        self.next_double_normal = Some(r * theta.sin());
        (r * theta.cos()).mul_add(std, mean)
    }
}

/// A random number generator handle (`ferric.Generator`). Clones share the state.
#[derive(Clone)]
pub struct Generator {
    inner: Arc<Mutex<GenState>>,
}

impl Default for Generator {
    fn default() -> Self {
        Self::new()
    }
}

/// Like PyTorch, the default generator starts from a nondeterministic seed.
static DEFAULT: LazyLock<Generator> = LazyLock::new(|| {
    let g = Generator::new();
    g.manual_seed(nondeterministic_seed());
    g
});

/// 64 bits from the OS (falling back to the clock and an address if that fails).
pub fn nondeterministic_seed() -> u64 {
    use std::io::Read;
    let mut buf = [0u8; 8];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        if f.read_exact(&mut buf).is_ok() {
            return u64::from_le_bytes(buf);
        }
    }
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    t ^ (&buf as *const _ as u64).rotate_left(32)
}

impl Generator {
    /// A new generator seeded with PyTorch's default seed.
    pub fn new() -> Self {
        Generator {
            inner: Arc::new(Mutex::new(GenState::new(DEFAULT_RNG_SEED))),
        }
    }

    /// The process-wide default generator.
    pub fn default_generator() -> &'static Generator {
        &DEFAULT
    }

    /// Locks the state for a sequence of draws. A panic elsewhere cannot leave the state
    /// torn (every update is a plain store), so a poisoned lock is simply reused.
    pub fn lock(&self) -> MutexGuard<'_, GenState> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn same_as(&self, other: &Generator) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// `manual_seed`: restarts the stream and drops cached normal samples.
    pub fn manual_seed(&self, seed: u64) {
        *self.lock() = GenState::new(seed);
    }

    /// `seed()`: reseeds nondeterministically and returns the new seed.
    pub fn seed(&self) -> u64 {
        let s = nondeterministic_seed();
        self.manual_seed(s);
        s
    }

    pub fn initial_seed(&self) -> u64 {
        self.lock().mt.seed
    }

    /// The state in PyTorch's `CPUGeneratorImplState` byte layout (little-endian, with
    /// C struct padding), so it round-trips and matches `torch.get_rng_state()`.
    pub fn get_state(&self) -> Vec<u8> {
        let g = self.lock();
        let mut b = vec![0u8; STATE_SIZE];
        b[0..8].copy_from_slice(&g.mt.seed.to_le_bytes());
        b[8..12].copy_from_slice(&g.mt.left.to_le_bytes());
        b[12..16].copy_from_slice(&(g.mt.seeded as i32).to_le_bytes());
        b[16..24].copy_from_slice(&(g.mt.next as u64).to_le_bytes());
        for (i, &s) in g.mt.state.iter().enumerate() {
            b[24 + 8 * i..32 + 8 * i].copy_from_slice(&(s as u64).to_le_bytes());
        }
        // normal_x (5016) and normal_rho (5032) are unused dummies, left at 0.0
        if let Some(v) = g.next_double_normal {
            b[5024..5032].copy_from_slice(&v.to_le_bytes());
            b[5040..5044].copy_from_slice(&1i32.to_le_bytes());
        }
        if let Some(v) = g.next_float_normal {
            b[5048..5052].copy_from_slice(&v.to_le_bytes());
            b[5052] = 1;
        }
        b
    }

    /// Restores a state produced by `get_state` (or by PyTorch).
    pub fn set_state(&self, b: &[u8]) -> Result<()> {
        if b.len() != STATE_SIZE {
            return Err(Error::runtime(
                "",
                format!(
                    "Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input \
                     RNG state size to be {}",
                    b.len()
                ),
            ));
        }
        let u64_at = |o: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[o..o + 8]);
            u64::from_le_bytes(a)
        };
        let i32_at = |o: usize| {
            let mut a = [0u8; 4];
            a.copy_from_slice(&b[o..o + 4]);
            i32::from_le_bytes(a)
        };
        let mut state = [0u32; N];
        for (i, s) in state.iter_mut().enumerate() {
            *s = u64_at(24 + 8 * i) as u32;
        }
        let mt = Mt19937 {
            seed: u64_at(0),
            left: i32_at(8),
            seeded: i32_at(12) != 0,
            next: u64_at(16) as u32,
            state,
        };
        if !(mt.seeded && mt.left > 0 && mt.left <= N as i32 && mt.next as usize <= N) {
            return Err(Error::runtime("", "Invalid mt19937 state"));
        }
        let double = (i32_at(5040) != 0).then(|| f64::from_bits(u64_at(5024)));
        let float = (b[5052] != 0).then(|| {
            let mut a = [0u8; 4];
            a.copy_from_slice(&b[5048..5052]);
            f32::from_le_bytes(a)
        });
        *self.lock() = GenState {
            mt,
            next_double_normal: double,
            next_float_normal: float,
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_reference_mt19937() {
        // The first outputs of the reference mt19937 seeded with 5489 (std::mt19937's
        // default), and the 10000th output, which the C++ standard pins down.
        let mut mt = Mt19937::new(5489);
        assert_eq!(mt.next_u32(), 3499211612);
        assert_eq!(mt.next_u32(), 581869302);
        let mut mt = Mt19937::new(5489);
        let mut last = 0;
        for _ in 0..10000 {
            last = mt.next_u32();
        }
        assert_eq!(last, 4123659995);
    }

    #[test]
    fn state_round_trips() {
        let g = Generator::new();
        g.manual_seed(42);
        let mut s = g.lock();
        for _ in 0..1000 {
            s.random();
        }
        s.normal_f64(0.0, 1.0);
        drop(s);
        let saved = g.get_state();
        let a: Vec<u32> = (0..5).map(|_| g.lock().random()).collect();
        let n1 = g.lock().normal_f64(0.0, 1.0);
        g.set_state(&saved).unwrap();
        let b: Vec<u32> = (0..5).map(|_| g.lock().random()).collect();
        let n2 = g.lock().normal_f64(0.0, 1.0);
        assert_eq!(a, b);
        assert_eq!(n1, n2);
        assert_eq!(g.initial_seed(), 42);
        assert!(g.set_state(&saved[..100]).is_err());
        let mut bad = saved.clone();
        bad[8..12].copy_from_slice(&0i32.to_le_bytes());
        assert!(g.set_state(&bad).is_err());
    }

    #[test]
    fn pytorch_uniform_values() {
        // torch.manual_seed(0); torch.rand(3)
        let g = Generator::new();
        g.manual_seed(0);
        let v: Vec<f32> = (0..3).map(|_| g.lock().unit_f32()).collect();
        assert_eq!(v, [0.4962566, 0.7682218, 0.08847743]);
    }
}
