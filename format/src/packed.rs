//! Little-endian unsigned integers stored in the narrowest of 1, 2, 3, 4 or
//! 8 bytes, read in place from mapped bytes. (Format version 1 has no 3-byte
//! width; [`width_for_v1`] gives its choice.)

use zerocopy::FromBytes;

/// The smallest width (1, 2, 3, 4 or 8 bytes) that holds `max`.
pub fn width_for(max: u64) -> u8 {
    if max < 1 << 24 {
        width_for_v1(max).min(3)
    } else {
        width_for_v1(max)
    }
}

/// The smallest width of format version 1 (1, 2, 4 or 8 bytes) that holds
/// `max`.
pub fn width_for_v1(max: u64) -> u8 {
    if max <= u64::from(u8::MAX) {
        1
    } else if max <= u64::from(u16::MAX) {
        2
    } else if max <= u64::from(u32::MAX) {
        4
    } else {
        8
    }
}

/// Appends `v` in `width` little-endian bytes (`v` must fit).
#[inline]
pub fn put(out: &mut Vec<u8>, v: u64, width: u8) {
    out.extend_from_slice(&v.to_le_bytes()[..width as usize]);
}

/// A read-only view of packed integers of one width.
#[derive(Debug, Clone, Copy)]
pub enum Packed<'a> {
    /// One byte each.
    W1(&'a [u8]),
    /// Two bytes each.
    W2(&'a [u16]),
    /// Three bytes each (no 3-byte integer type, so plain bytes).
    W3(&'a [u8]),
    /// Four bytes each.
    W4(&'a [u32]),
    /// Eight bytes each.
    W8(&'a [u64]),
}

impl<'a> Packed<'a> {
    /// Views `bytes` as `len` integers of `width` bytes; `None` if the length
    /// or alignment does not match.
    pub fn new(bytes: &'a [u8], width: u8, len: usize) -> Option<Packed<'a>> {
        if bytes.len() != len.checked_mul(width as usize)? {
            return None;
        }
        Some(match width {
            1 => Packed::W1(bytes),
            2 => Packed::W2(<[u16]>::ref_from_bytes(bytes).ok()?),
            3 => Packed::W3(bytes),
            4 => Packed::W4(<[u32]>::ref_from_bytes(bytes).ok()?),
            8 => Packed::W8(<[u64]>::ref_from_bytes(bytes).ok()?),
            _ => return None,
        })
    }

    /// Number of integers.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            Packed::W1(s) => s.len(),
            Packed::W2(s) => s.len(),
            Packed::W3(s) => s.len() / 3,
            Packed::W4(s) => s.len(),
            Packed::W8(s) => s.len(),
        }
    }

    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`th integer; `i` must be `< len()`.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        match self {
            Packed::W1(s) => u64::from(s[i]),
            Packed::W2(s) => u64::from(s[i]),
            Packed::W3(s) => u64::from(u24(&s[3 * i..3 * i + 3])),
            Packed::W4(s) => u64::from(s[i]),
            Packed::W8(s) => s[i],
        }
    }

    /// Appends every integer, widened, to `out`.
    pub fn extend_into(&self, out: &mut Vec<u64>) {
        self.extend_range_into(0, self.len(), out);
    }

    /// Appends the integers `start..end` (within `len()`), widened, to `out`.
    pub fn extend_range_into(&self, start: usize, end: usize, out: &mut Vec<u64>) {
        match self {
            Packed::W1(s) => out.extend(s[start..end].iter().map(|&v| u64::from(v))),
            Packed::W2(s) => out.extend(s[start..end].iter().map(|&v| u64::from(v))),
            Packed::W3(s) => out.extend(
                s[3 * start..3 * end]
                    .chunks_exact(3)
                    .map(|b| u64::from(u24(b))),
            ),
            Packed::W4(s) => out.extend(s[start..end].iter().map(|&v| u64::from(v))),
            Packed::W8(s) => out.extend_from_slice(&s[start..end]),
        }
    }

    /// The index of the first integer `>= v` (the integers must be sorted).
    pub fn lower_bound(&self, v: u64) -> usize {
        match self {
            Packed::W1(s) => s.partition_point(|&x| u64::from(x) < v),
            Packed::W2(s) => s.partition_point(|&x| u64::from(x) < v),
            Packed::W3(_) => {
                // Binary search over indexes: the first `i` with `get(i) >= v`.
                let (mut lo, mut hi) = (0, self.len());
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if self.get(mid) < v {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                lo
            }
            Packed::W4(s) => s.partition_point(|&x| u64::from(x) < v),
            Packed::W8(s) => s.partition_point(|&x| x < v),
        }
    }
}

/// The little-endian integer in the 3 bytes `b`.
#[inline]
fn u24(b: &[u8]) -> u32 {
    u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths() {
        assert_eq!(width_for(0), 1);
        assert_eq!(width_for(255), 1);
        assert_eq!(width_for(256), 2);
        assert_eq!(width_for(65536), 3);
        assert_eq!(width_for((1 << 24) - 1), 3);
        assert_eq!(width_for(1 << 24), 4);
        assert_eq!(width_for(u64::MAX), 8);
        assert_eq!(width_for_v1(65536), 4);
    }

    #[test]
    fn views_read_back() {
        for width in [1u8, 2, 3, 4, 8] {
            let vals: Vec<u64> = (0..50u64)
                .map(|i| i * 5 % (1 << (8 * width.min(4) - 1)))
                .collect();
            let mut sorted = vals.clone();
            sorted.sort();
            let mut buf: Vec<u64> = Vec::new();
            let mut bytes = Vec::new();
            for v in &sorted {
                put(&mut bytes, *v, width);
            }
            // Copy into 8-byte aligned storage.
            buf.resize(bytes.len().div_ceil(8), 0);
            let aligned: &mut [u8] = zerocopy::IntoBytes::as_mut_bytes(buf.as_mut_slice());
            aligned[..bytes.len()].copy_from_slice(&bytes);
            let p = Packed::new(&aligned[..bytes.len()], width, sorted.len()).unwrap();
            let mut out = Vec::new();
            p.extend_into(&mut out);
            assert_eq!(out, sorted);
            let mut part = vec![7];
            p.extend_range_into(5, 12, &mut part);
            assert_eq!(part[1..], sorted[5..12]);
            assert_eq!(
                p.lower_bound(sorted[10]),
                sorted.partition_point(|&x| x < sorted[10])
            );
        }
        assert!(Packed::new(&[0u8; 3], 2, 2).is_none());
        assert!(Packed::new(&[0u8; 3], 3, 2).is_none());
        assert!(Packed::new(&[0u8; 5], 5, 1).is_none());
        let p = Packed::new(&[1, 2, 3, 0xff, 0xff, 0xff], 3, 2).unwrap();
        assert_eq!((p.get(0), p.get(1)), (0x03_0201, 0xff_ffff));
    }
}
