//! Row lists stored as row codes (format version 3): every row's value
//! index, in row order, packed in the narrowest width, as they are or (from
//! version 4) as differences between consecutive rows, split into byte
//! planes and compressed as one zstd frame.
//!
//! Row lists spend at least a byte on every run of rows, so a column of a
//! few dozen values scattered over the rows costs about a byte a row, where
//! the values' entropy is two or three bits, and a nearly unique scattered
//! column three bytes a row, where the row order holds about 2.2. In row
//! order zstd codes each row close to its entropy, and finds the runs and
//! repeats that row order has; differences make a column that rises within
//! runs of rows (timestamps in a table sorted by user) a stream of small
//! numbers. On ClickBench's 10M rows sorted by the ClickHouse key, 992 of
//! 2,100 chunks store codes and the row lists shrink from 452 to 386 MB.
//! Readers that want row lists get them expanded from the codes (SPEC.md
//! 5.5); the row-ordered value indexes that multi-column queries and
//! filters want come straight from the codes.

use zstd::zstd_safe::CCtx;

use crate::{packed, zstd_frames};

/// The width of the codes of a chunk: value indexes `0..distinct`, and
/// `distinct` itself for NULL rows when there are any.
pub fn width(distinct: usize, has_nulls: bool) -> usize {
    let max = (distinct + usize::from(has_nulls)).saturating_sub(1);
    usize::from(packed::width_for(max as u64))
}

/// How a chunk's row codes are stored (SPEC.md 5.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeForm {
    /// Each row's code as it is.
    Plain,
    /// Each row's code minus the previous row's, modulo `2^(8 x width)`
    /// (version 4): small where a column rises with the rows, as a
    /// timestamp does inside each user's rows of a table sorted by user.
    Deltas,
}

/// The mask of codes `width` bytes wide.
fn mask(width: usize) -> u32 {
    if width >= 4 {
        u32::MAX
    } else {
        (1 << (8 * width)) - 1
    }
}

/// The integer row `r` contributes to the planes in `form`.
fn term(codes: &[u32], r: usize, form: CodeForm, mask: u32) -> u32 {
    match form {
        CodeForm::Plain => codes[r],
        CodeForm::Deltas if r == 0 => codes[0],
        CodeForm::Deltas => codes[r].wrapping_sub(codes[r - 1]) & mask,
    }
}

/// `codes` (each below `2^(8 x width)`) in `form`, as byte planes in one
/// zstd frame at level 1: on ClickBench's columns as small as level 3, and
/// faster.
pub(crate) fn compress(
    cctx: &mut CCtx<'static>,
    codes: &[u32],
    width: usize,
    form: CodeForm,
) -> Option<Vec<u8>> {
    let n = codes.len();
    let mask = mask(width);
    let mut planes = vec![0u8; n * width];
    for r in 0..n {
        let x = term(codes, r, form, mask);
        for j in 0..width {
            planes[j * n + r] = (x >> (8 * j)) as u8;
        }
    }
    zstd_frames::compress_at(cctx, &planes, zstd_frames::PLANES_LEVEL)
}

/// Rows sampled per window by [`estimate`], and the windows.
const SAMPLE_WINDOW: usize = 2048;
const SAMPLE_WINDOWS: usize = 16;

/// Roughly the bytes [`compress`] makes of `codes` in `form`: the order-0
/// entropy of each byte plane, measured on evenly spread windows of rows
/// (every row of a small chunk). A fraction of a compression's cost, it
/// picks the form to compress and skips compressing codes that cannot beat
/// the row lists; zstd's matches can only do better than this on runs.
pub(crate) fn estimate(codes: &[u32], width: usize, form: CodeForm) -> usize {
    let n = codes.len();
    if n == 0 {
        return 0;
    }
    let mask = mask(width);
    let mut hist = vec![[0u32; 256]; width];
    let mut sampled = 0usize;
    let mut count = |start: usize, end: usize| {
        for r in start..end {
            let x = term(codes, r, form, mask);
            for (j, h) in hist.iter_mut().enumerate() {
                h[((x >> (8 * j)) & 0xff) as usize] += 1;
            }
        }
        sampled += end - start;
    };
    if n <= SAMPLE_WINDOW * SAMPLE_WINDOWS * 2 {
        count(0, n);
    } else {
        let stride = n / SAMPLE_WINDOWS;
        for w in 0..SAMPLE_WINDOWS {
            count(w * stride, w * stride + SAMPLE_WINDOW);
        }
    }
    let total = sampled as f64;
    let bits: f64 = hist
        .iter()
        .flat_map(|h| h.iter())
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / total;
            -p * p.log2()
        })
        .sum();
    (bits / 8.0 * n as f64) as usize
}

/// Decompresses `stored` (as the writer makes it: SPEC.md 5.5) into `out`: exactly `rows`
/// codes of `width` bytes (1 to 4) in `form`, or an error.
pub fn decompress(
    stored: &[u8],
    width: usize,
    rows: usize,
    form: CodeForm,
    out: &mut Vec<u32>,
) -> Result<(), String> {
    if !(1..=4).contains(&width) {
        return Err(format!("row codes of {width} bytes"));
    }
    zstd_frames::with_decompressed(stored, rows * width, |planes| {
        out.clear();
        out.extend(planes[..rows].iter().map(|&b| u32::from(b)));
        for j in 1..width {
            let plane = &planes[j * rows..(j + 1) * rows];
            for (c, &b) in out.iter_mut().zip(plane) {
                *c |= u32::from(b) << (8 * j);
            }
        }
        if form == CodeForm::Deltas {
            let mask = mask(width);
            let mut prev = 0u32;
            for c in out.iter_mut() {
                prev = prev.wrapping_add(*c) & mask;
                *c = prev;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn widths_cover_the_null_code() {
        assert_eq!(width(1, false), 1);
        assert_eq!(width(256, false), 1);
        assert_eq!(width(256, true), 2);
        assert_eq!(width(1 << 16, false), 2);
        assert_eq!(width(1 << 19, false), 3);
        assert_eq!(width(0, true), 1);
    }

    #[test]
    fn damaged_frames_are_errors() {
        let mut cctx = CCtx::create();
        let stored = compress(&mut cctx, &[1, 2, 3, 300], 2, CodeForm::Plain).unwrap();
        let mut out = Vec::new();
        decompress(&stored, 2, 4, CodeForm::Plain, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 300]);
        assert!(decompress(&stored, 2, 5, CodeForm::Plain, &mut out).is_err());
        assert!(decompress(&stored, 1, 4, CodeForm::Plain, &mut out).is_err());
        assert!(decompress(&stored, 5, 4, CodeForm::Plain, &mut out).is_err());
        assert!(decompress(&stored[..stored.len() - 2], 2, 4, CodeForm::Plain, &mut out).is_err());
    }

    #[test]
    fn deltas_wrap_around_the_width() {
        let codes = [200, 3, 255, 0, 0, 17];
        let mut cctx = CCtx::create();
        let stored = compress(&mut cctx, &codes, 1, CodeForm::Deltas).unwrap();
        let mut out = Vec::new();
        decompress(&stored, 1, codes.len(), CodeForm::Deltas, &mut out).unwrap();
        assert_eq!(out, codes);
    }

    #[test]
    fn estimates_prefer_deltas_for_rising_codes_and_plain_for_scattered_ones() {
        // Codes rising by small steps: a timestamp in rows sorted by time.
        let rising: Vec<u32> = (0..100_000u32).map(|r| r * 3 + r % 2).collect();
        assert!(estimate(&rising, 3, CodeForm::Deltas) * 4 < estimate(&rising, 3, CodeForm::Plain));
        // A few values scattered at random: deltas only add entropy.
        let mut x = 1u32;
        let scattered: Vec<u32> = (0..100_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x % 3
            })
            .collect();
        assert!(
            estimate(&scattered, 1, CodeForm::Plain) < estimate(&scattered, 1, CodeForm::Deltas)
        );
        // Random 16-bit codes: about two bytes a row either way.
        let random: Vec<u32> = (0..100_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x & 0xffff
            })
            .collect();
        let e = estimate(&random, 2, CodeForm::Plain);
        assert!((195_000..=200_000).contains(&e), "{e}");
    }

    proptest! {
        #[test]
        fn codes_round_trip(
            width in 1usize..=4,
            deltas in any::<bool>(),
            codes in prop::collection::vec(any::<u32>(), 0..500),
        ) {
            let mask = if width == 4 { u32::MAX } else { (1 << (8 * width)) - 1 };
            let codes: Vec<u32> = codes.into_iter().map(|c| c & mask).collect();
            let form = if deltas { CodeForm::Deltas } else { CodeForm::Plain };
            let mut cctx = CCtx::create();
            let stored = compress(&mut cctx, &codes, width, form).unwrap();
            let mut out = Vec::new();
            decompress(&stored, width, codes.len(), form, &mut out).unwrap();
            prop_assert_eq!(out, codes);
        }
    }
}
