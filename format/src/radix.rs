//! A stable LSD radix sort of `u64`s by a range of their bits, for the
//! encoder's `(key << 24) | row` pairs: they arrive in row order, so sorting
//! only the key bits stably leaves each key's rows ascending, which is the
//! order a full comparison sort would give, in a few linear passes.

use std::cell::RefCell;

/// Bits per digit: 2^11 counters (16 KiB) stay in the L1 cache.
const DIGIT_BITS: u32 = 11;
/// Below this many elements a comparison sort is used instead: the radix
/// passes' fixed cost (clearing and scanning 2^11 counters a digit) would
/// outweigh their gain. A guess, not measured: the encoder's columns have
/// 2^19 rows.
const MIN_LEN: usize = 2048;

thread_local! {
    /// Each thread's second buffer, kept between sorts so that a block's
    /// many columns do not each fault in fresh memory.
    static SCRATCH: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Sorts `v` by bits `shift..shift + bits` of each element (`shift + bits`
/// at most 64); elements equal in those bits keep their order.
pub(crate) fn sort_by_bits(v: &mut [u64], shift: u32, bits: u32) {
    debug_assert!(shift + bits <= 64);
    if bits == 0 || v.len() < 2 {
        return;
    }
    if v.len() < MIN_LEN {
        // Stable, by the selected bits only.
        let mask = mask(bits);
        v.sort_by_key(|&x| (x >> shift) & mask);
        return;
    }
    // Each digit's shift and mask, low digit first.
    let digits: Vec<(u32, u64)> = (0..bits.div_ceil(DIGIT_BITS))
        .map(|d| {
            let low = d * DIGIT_BITS;
            (shift + low, mask(DIGIT_BITS.min(bits - low)))
        })
        .collect();
    // Every digit's counts from one pass over the input.
    let mut counts = vec![[0u32; 1 << DIGIT_BITS]; digits.len()];
    for &x in v.iter() {
        for (&(at, m), c) in digits.iter().zip(counts.iter_mut()) {
            c[((x >> at) & m) as usize] += 1;
        }
    }
    SCRATCH.with_borrow_mut(|other| {
        other.clear();
        other.resize(v.len(), 0);
        let mut in_v = true;
        for (&(at, m), c) in digits.iter().zip(counts.iter_mut()) {
            // A digit shared by every element moves nothing.
            if c.contains(&(v.len() as u32)) {
                continue;
            }
            let mut total = 0u32;
            for n in c.iter_mut() {
                let count = *n;
                *n = total;
                total += count;
            }
            let (from, to): (&[u64], &mut [u64]) = if in_v {
                (v, other.as_mut_slice())
            } else {
                (other.as_slice(), v)
            };
            for &x in from {
                let slot = &mut c[((x >> at) & m) as usize];
                to[*slot as usize] = x;
                *slot += 1;
            }
            in_v = !in_v;
        }
        if !in_v {
            v.copy_from_slice(other);
        }
    });
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(v: Vec<u64>, shift: u32, bits: u32) {
        let mut expected = v.clone();
        expected.sort_by_key(|&x| (x >> shift) & mask(bits));
        let mut got = v;
        sort_by_bits(&mut got, shift, bits);
        assert_eq!(got, expected);
    }

    /// Pairs as the encoder builds them, long enough for the radix passes:
    /// the result is what sorting the whole `u64`s gives.
    #[test]
    fn sorts_key_row_pairs_like_a_full_sort() {
        for (n, range) in [(5000u64, 3u64), (100_000, 1 << 20), (70_000, (1 << 40) - 1)] {
            let mut next = crate::test_rng::xorshift64(0x9e37_79b9_7f4a_7c15);
            let v: Vec<u64> = (0..n).map(|r| ((next() % (range + 1)) << 24) | r).collect();
            let mut full = v.clone();
            full.sort_unstable();
            let mut got = v;
            sort_by_bits(&mut got, 24, 64 - range.leading_zeros());
            assert_eq!(got, full);
        }
    }

    #[test]
    fn a_digit_every_element_shares_is_skipped_correctly() {
        // Bits 11..22 are the same everywhere; the other two digits differ.
        let v: Vec<u64> = (0..10_000u64)
            .map(|i| ((i * 7919 % 2048) << 22) | (5 << 11) | (i * 31 % 2048))
            .collect();
        check(v, 0, 33);
    }

    proptest! {
        /// Stable by the selected bits, for any shift and width, short and
        /// long inputs.
        #[test]
        fn stable_by_the_selected_bits(
            v in prop::collection::vec(any::<u64>(), 0..5000),
            shift in 0u32..64,
            bits in 0u32..64,
        ) {
            let bits = bits.min(64 - shift);
            check(v, shift, bits);
        }
    }
}
