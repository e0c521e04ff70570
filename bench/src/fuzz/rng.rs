//! The fuzzer's random stream: PCG with small helpers, deterministic per seed.

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;

/// SplitMix64's finaliser: a well-mixed 64-bit hash of `x`.
pub fn mix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A deterministic random stream.
#[derive(Clone, Debug)]
pub struct Rng {
    inner: Pcg64Mcg,
}

impl Rng {
    /// The stream of `seed` and `stream` (e.g. a worker's case number).
    pub fn new(seed: u64, stream: u64) -> Rng {
        let hi = mix64(seed ^ 0x5DEE_CE66_D1CE_4E5B);
        let lo = mix64(stream.wrapping_add(hi));
        Rng {
            inner: Pcg64Mcg::new((u128::from(hi) << 64 | u128::from(lo)) | 1),
        }
    }

    /// 64 random bits.
    pub fn u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((u128::from(self.u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform index into a collection of `n` elements.
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128 + 1) as u128;
        if span > u128::from(u64::MAX) {
            return self.u64() as i64;
        }
        (lo as i128 + i128::from(self.below(span as u64))) as i64
    }

    /// True with probability `p` percent.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// A uniform float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// One element of a non-empty slice (the first of an empty one is not asked for).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len()).min(items.len().saturating_sub(1))]
    }

    /// An index picked with the given weights (all zero: 0).
    pub fn weighted(&mut self, weights: &[u64]) -> usize {
        let total: u64 = weights.iter().sum();
        let mut x = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if x < w {
                return i;
            }
            x -= w;
        }
        0
    }
}
