//! A deterministic pseudo-random source for tests: xorshift64.

/// Successive xorshift64 values from `seed` (which must not be 0).
pub(crate) fn xorshift64(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
