//! LEB128 variable-length unsigned integers, as used by row lists and trigram
//! postings: 7 bits per byte, least significant group first, high bit set on
//! every byte but the last.

/// The most bytes one LEB128 `u64` takes.
pub const MAX_LEN: usize = 10;

/// Appends `v` as LEB128.
#[inline]
pub fn put(out: &mut Vec<u8>, v: u64) {
    let mut buf = [0u8; MAX_LEN];
    let n = put_at(&mut buf, 0, v);
    out.extend_from_slice(&buf[..n]);
}

/// Writes `v` as LEB128 into `buf` at `pos`, returning the position after
/// it; `buf` must have room for 10 bytes from `pos`.
#[inline]
pub fn put_at(buf: &mut [u8], mut pos: usize, mut v: u64) -> usize {
    while v >= 0x80 {
        buf[pos] = (v as u8) | 0x80;
        pos += 1;
        v >>= 7;
    }
    buf[pos] = v as u8;
    pos + 1
}

/// Reads a LEB128 value at `*pos`, advancing it. `None` if the bytes end first
/// or the value does not fit in 64 bits.
#[inline]
pub fn get(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v: u64 = 0;
    let mut shift = 0u32;
    loop {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        if shift == 63 && b > 1 {
            return None;
        }
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_boundaries() {
        let vals = [0, 1, 127, 128, 16383, 16384, u32::MAX as u64, u64::MAX];
        let mut buf = Vec::new();
        for v in vals {
            put(&mut buf, v);
        }
        let mut pos = 0;
        for v in vals {
            assert_eq!(get(&buf, &mut pos), Some(v));
        }
        assert_eq!(pos, buf.len());
        assert_eq!(get(&buf, &mut pos), None);
    }

    #[test]
    fn rejects_overlong_and_truncated() {
        let mut pos = 0;
        assert_eq!(get(&[0x80, 0x80], &mut pos), None);
        let mut pos = 0;
        let eleven = [0xff; 11];
        assert_eq!(get(&eleven, &mut pos), None);
        let mut pos = 0;
        let too_big = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(get(&too_big, &mut pos), None);
    }
}
