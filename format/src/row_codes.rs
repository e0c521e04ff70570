//! Row lists stored as row codes (format version 3): every row's value
//! index, in row order, packed in the narrowest width, split into byte planes
//! and compressed as one zstd frame.
//!
//! Row lists spend at least a byte on every run of rows, so a column of a
//! few dozen values scattered over the rows costs about a byte a row, where
//! the values' entropy is two or three bits. In row order zstd codes each
//! row in about that, and finds the runs and repeats that row order has. On
//! ClickBench's 10M rows, 24 of 105 columns' row lists shrink from 121 to
//! 62 MB this way. Readers that want row lists get them expanded from the
//! codes (SPEC.md 5.5); the row-ordered value indexes that multi-column
//! queries and filters want come straight from the codes.

use zstd::zstd_safe::CCtx;

use crate::{packed, zstd_frames};

/// The width of the codes of a chunk: value indexes `0..distinct`, and
/// `distinct` itself for NULL rows when there are any.
pub fn width(distinct: usize, has_nulls: bool) -> usize {
    let max = (distinct + usize::from(has_nulls)).saturating_sub(1);
    usize::from(packed::width_for(max as u64))
}

/// `codes` (each below `2^(8 x width)`) as byte planes in one zstd frame,
/// at level 1: on ClickBench's columns as small as level 3, and faster.
pub(crate) fn compress(cctx: &mut CCtx<'static>, codes: &[u32], width: usize) -> Option<Vec<u8>> {
    let n = codes.len();
    let mut planes = vec![0u8; n * width];
    for (j, plane) in planes.chunks_exact_mut(n.max(1)).enumerate().take(width) {
        for (b, &c) in plane.iter_mut().zip(codes) {
            *b = (c >> (8 * j)) as u8;
        }
    }
    zstd_frames::compress_at(cctx, &planes, zstd_frames::PLANES_LEVEL)
}

/// Decompresses `stored` (as the writer makes it: SPEC.md 5.5) into `out`: exactly `rows`
/// codes of `width` bytes (1 to 4), or an error.
pub fn decompress(
    stored: &[u8],
    width: usize,
    rows: usize,
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
        let stored = compress(&mut cctx, &[1, 2, 3, 300], 2).unwrap();
        let mut out = Vec::new();
        decompress(&stored, 2, 4, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 300]);
        assert!(decompress(&stored, 2, 5, &mut out).is_err());
        assert!(decompress(&stored, 1, 4, &mut out).is_err());
        assert!(decompress(&stored, 5, 4, &mut out).is_err());
        assert!(decompress(&stored[..stored.len() - 2], 2, 4, &mut out).is_err());
    }

    proptest! {
        #[test]
        fn codes_round_trip(width in 1usize..=4, codes in prop::collection::vec(any::<u32>(), 0..500)) {
            let mask = if width == 4 { u32::MAX } else { (1 << (8 * width)) - 1 };
            let codes: Vec<u32> = codes.into_iter().map(|c| c & mask).collect();
            let mut cctx = CCtx::create();
            let stored = compress(&mut cctx, &codes, width).unwrap();
            let mut out = Vec::new();
            decompress(&stored, width, codes.len(), &mut out).unwrap();
            prop_assert_eq!(out, codes);
        }
    }
}
