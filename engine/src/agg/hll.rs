//! HyperLogLog for `approx_count_distinct`, in a fixed number of 64-bit
//! words so that the sorted-vector engine keeps it as a group state and
//! merges it across blocks and threads.
//!
//! Word 0 says which form the sketch has. Up to [`SPARSE_MAX`] distinct
//! hashes are kept exactly (sorted, in words 1..): the count is exact on
//! small inputs. Beyond, the sketch turns into 2^[`P`] one-byte registers
//! (words 1..) and the count is Otmar Ertl's improved estimator ("New
//! cardinality estimation algorithms for HyperLogLog sketches", 2017),
//! with a standard error of about 1.04 / sqrt(2^P) = 3.3%. The sketch
//! depends only on the set of hashes, never on the order they came in.

/// Register index bits.
pub const P: u32 = 10;
/// Registers.
const M: usize = 1 << P;
/// Bits left for the rank.
const Q: u32 = 64 - P;
/// Words of a sketch.
pub const WORDS: usize = 1 + M / 8;
/// Hashes kept exactly before the sketch turns dense.
pub const SPARSE_MAX: usize = WORDS - 1;
/// Word 0 of a dense sketch.
const DENSE: u64 = u64::MAX;

/// The 64-bit hash of a value's key (see [`crate::value::Vector::key`]).
/// The high half is mixed before it meets the low half: folding the two
/// halves with a plain XOR made keys collide (a HUGEINT's `-k` and `k - 1`
/// differ only by a constant in both halves).
#[inline]
pub fn hash(key: u128) -> u64 {
    let hi = fmix((key >> 64) as u64 ^ 0x9e37_79b9_7f4a_7c15);
    fmix(key as u64 ^ hi)
}

/// MurmurHash3's 64-bit finaliser: a bijection that mixes every bit.
#[inline]
fn fmix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// An empty sketch.
pub fn init(w: &mut [u64]) {
    w[..WORDS].fill(0);
}

fn register(w: &[u64], i: usize) -> u8 {
    (w[1 + i / 8] >> (8 * (i % 8))) as u8
}

fn set_register(w: &mut [u64], i: usize, v: u8) {
    let word = &mut w[1 + i / 8];
    let shift = 8 * (i % 8);
    *word = (*word & !(0xffu64 << shift)) | (u64::from(v) << shift);
}

fn insert_dense(w: &mut [u64], h: u64) {
    let i = (h & (M as u64 - 1)) as usize;
    let rest = (h >> P) | (1u64 << Q);
    let z = rest.trailing_zeros() as u8 + 1;
    if z > register(w, i) {
        set_register(w, i, z);
    }
}

/// Turns a sparse sketch dense.
fn densify(w: &mut [u64]) {
    let n = w[0] as usize;
    let hashes: Vec<u64> = w[1..1 + n].to_vec();
    w[1..WORDS].fill(0);
    w[0] = DENSE;
    for h in hashes {
        insert_dense(w, h);
    }
}

/// Adds a hash.
#[inline]
pub fn insert(w: &mut [u64], h: u64) {
    if w[0] == DENSE {
        insert_dense(w, h);
        return;
    }
    let n = w[0] as usize;
    let Err(at) = w[1..1 + n].binary_search(&h) else {
        return;
    };
    if n == SPARSE_MAX {
        densify(w);
        insert_dense(w, h);
        return;
    }
    w.copy_within(1 + at..1 + n, 2 + at);
    w[1 + at] = h;
    w[0] += 1;
}

/// Merges sketch `b` into `a`.
pub fn merge(a: &mut [u64], b: &[u64]) {
    if b[0] == DENSE {
        if a[0] != DENSE {
            densify(a);
        }
        for k in 1..WORDS {
            let (x, y) = (a[k], b[k]);
            let mut out = 0u64;
            for byte in 0..8 {
                let s = 8 * byte;
                out |= u64::from(((x >> s) as u8).max((y >> s) as u8)) << s;
            }
            a[k] = out;
        }
    } else {
        for k in 0..b[0] as usize {
            insert(a, b[1 + k]);
        }
    }
}

/// The (estimated) number of distinct hashes.
pub fn count(w: &[u64]) -> u64 {
    if w[0] != DENSE {
        return w[0];
    }
    let mut c = [0u32; Q as usize + 2];
    for i in 0..M {
        c[register(w, i) as usize] += 1;
    }
    estimate(&c)
}

/// The exact count of distinct `hashes` if there are few, else the
/// estimate of their dense sketch: what [`count`] gives for a sketch of the
/// same hashes.
pub fn count_of(hashes: &mut Vec<u64>) -> u64 {
    hashes.sort_unstable();
    hashes.dedup();
    if hashes.len() <= SPARSE_MAX {
        return hashes.len() as u64;
    }
    let mut w = vec![0u64; WORDS];
    w[0] = DENSE;
    for &h in hashes.iter() {
        insert_dense(&mut w, h);
    }
    count(&w)
}

fn sigma(mut x: f64) -> f64 {
    if x == 1.0 {
        return f64::INFINITY;
    }
    let mut y = 1.0;
    let mut z = x;
    loop {
        x *= x;
        let prev = z;
        z += x * y;
        y += y;
        if z == prev {
            return z;
        }
    }
}

fn tau(mut x: f64) -> f64 {
    if x == 0.0 || x == 1.0 {
        return 0.0;
    }
    let mut y = 1.0;
    let mut z = 1.0 - x;
    loop {
        x = x.sqrt();
        let prev = z;
        y *= 0.5;
        z -= (1.0 - x).powi(2) * y;
        if z == prev {
            return z / 3.0;
        }
    }
}

fn estimate(c: &[u32]) -> u64 {
    let m = M as f64;
    let q = Q as usize;
    let mut z = m * tau((m - f64::from(c[q + 1])) / m);
    for k in (1..=q).rev() {
        z += f64::from(c[k]);
        z *= 0.5;
    }
    z += m * sigma(f64::from(c[0]) / m);
    let alpha = 0.5 / std::f64::consts::LN_2;
    (alpha * m * m / z).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sketch(range: std::ops::Range<u64>) -> Vec<u64> {
        let mut w = vec![0u64; WORDS];
        init(&mut w);
        for i in range {
            insert(&mut w, hash(u128::from(i)));
        }
        w
    }

    #[test]
    fn wide_keys_differing_by_a_constant_in_both_halves_do_not_collide() {
        // HUGEINT keys of -k and k - 1 (sign bit flipped): lo and hi both
        // differ by the same all-ones pattern.
        let key = |v: i128| (v as u128) ^ (1u128 << 127);
        let mut hashes: Vec<u64> = (-64i128..64).map(|v| hash(key(v))).collect();
        assert_eq!(count_of(&mut hashes), 128);
    }

    #[test]
    fn exact_while_small_and_order_free() {
        for n in [0u64, 1, 5, 64, SPARSE_MAX as u64] {
            assert_eq!(count(&sketch(0..n)), n);
        }
        let mut a = sketch(0..100);
        let b = sketch(50..150);
        merge(&mut a, &b);
        let mut all: Vec<u64> = (0..150u64).map(|i| hash(u128::from(i))).collect();
        assert_eq!(count(&a), count_of(&mut all));
        assert_eq!(
            count(&sketch(0..3000)),
            count_of(&mut (0..3000).map(|i| hash(i as u128)).collect())
        );
    }

    /// The estimate stays within 4 standard errors (13%) of the truth.
    #[test]
    fn estimates_within_bound() {
        for n in [200u64, 1000, 10_000, 100_000, 1_000_000] {
            let c = count(&sketch(0..n)) as f64;
            let err = (c - n as f64).abs() / n as f64;
            assert!(err < 0.13, "{n}: {c}");
        }
    }

    #[test]
    fn merging_dense_sketches_is_the_union() {
        let mut a = sketch(0..5000);
        let b = sketch(2500..9000);
        merge(&mut a, &b);
        assert_eq!(a, sketch(0..9000));
    }
}
