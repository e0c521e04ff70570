//! Parquet's RLE / bit-packing hybrid encoding, which holds definition
//! levels and dictionary indices (the `parquet` crate keeps its decoder
//! private). From the Parquet specification (`Encodings.md`):
//!
//! ```text
//! runs           := run*
//! run            := rle-run | bit-packed-run
//! rle-run        := varint(count << 1)     value in ceil(width / 8) bytes, little-endian
//! bit-packed-run := varint(groups << 1 | 1) groups * width bytes: 8 * groups values,
//!                                           packed from the least significant bit
//! ```
//!
//! The last bit-packed run may be padded past the values wanted. The
//! deprecated `BIT_PACKED` level encoding (values packed from the most
//! significant bit, no run headers) is [`decode_bit_packed_msb`].

/// Decodes `count` values of `width` bits (0 to 32) from `buf`, appending
/// them to `out`. Bytes after the last run needed are ignored.
pub(crate) fn decode(
    buf: &[u8],
    width: u32,
    count: usize,
    out: &mut Vec<u32>,
) -> Result<(), String> {
    if width > 32 {
        return Err(format!("a bit width of {width} (at most 32 is allowed)"));
    }
    let value_bytes = width.div_ceil(8) as usize;
    let mask = if width == 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    };
    let mut pos = 0;
    let mut left = count;
    out.reserve(count);
    while left > 0 {
        let header = varint(buf, &mut pos)?;
        if header & 1 == 0 {
            let run = usize::try_from(header >> 1).unwrap_or(usize::MAX);
            let bytes = buf
                .get(pos..pos + value_bytes)
                .ok_or("an RLE run is cut off")?;
            pos += value_bytes;
            let mut v = 0u32;
            for (i, &b) in bytes.iter().enumerate() {
                v |= u32::from(b) << (8 * i);
            }
            if v & !mask != 0 {
                return Err(format!("an RLE value {v} wider than {width} bits"));
            }
            if run == 0 {
                return Err("an empty RLE run".into());
            }
            let n = run.min(left);
            out.extend(std::iter::repeat_n(v, n));
            left -= n;
        } else {
            let groups = usize::try_from(header >> 1).unwrap_or(usize::MAX);
            let len = groups
                .checked_mul(width as usize)
                .filter(|&l| l <= buf.len() - pos)
                .ok_or("a bit-packed run is cut off")?;
            if groups == 0 {
                return Err("an empty bit-packed run".into());
            }
            let n = (groups * 8).min(left);
            unpack_lsb(&buf[pos..pos + len], width, n, out);
            pos += len;
            left -= n;
        }
    }
    Ok(())
}

/// Appends `n` values of `width` bits (1 to 32) packed from the least
/// significant bit of `data`, which holds at least `n * width` bits.
fn unpack_lsb(data: &[u8], width: u32, n: usize, out: &mut Vec<u32>) {
    if width == 0 {
        out.extend(std::iter::repeat_n(0, n));
        return;
    }
    let mask = if width == 32 {
        u64::from(u32::MAX)
    } else {
        (1u64 << width) - 1
    };
    let w = width as usize;
    out.extend((0..n).map(|i| {
        let bit = i * w;
        let byte = bit / 8;
        // An 8-byte window holds the value: shift (< 8) + width (<= 32) bits.
        let word = match data.get(byte..byte + 8) {
            Some(s) => {
                let mut a = [0u8; 8];
                a.copy_from_slice(s);
                u64::from_le_bytes(a)
            }
            None => {
                let mut a = [0u8; 8];
                let tail = data.get(byte..).unwrap_or(&[]);
                a[..tail.len()].copy_from_slice(tail);
                u64::from_le_bytes(a)
            }
        };
        ((word >> (bit % 8)) & mask) as u32
    }));
}

/// Decodes `count` values of `width` bits (0 to 32) packed from the most
/// significant bit (the deprecated `BIT_PACKED` level encoding); returns the
/// bytes used.
pub(crate) fn decode_bit_packed_msb(
    buf: &[u8],
    width: u32,
    count: usize,
    out: &mut Vec<u32>,
) -> Result<usize, String> {
    if width > 32 {
        return Err(format!("a bit width of {width} (at most 32 is allowed)"));
    }
    let bytes = (count * width as usize).div_ceil(8);
    let data = buf.get(..bytes).ok_or("bit-packed levels are cut off")?;
    out.reserve(count);
    let mut bit = 0usize;
    for _ in 0..count {
        let mut v = 0u32;
        for _ in 0..width {
            let b = (data[bit / 8] >> (7 - bit % 8)) & 1;
            v = (v << 1) | u32::from(b);
            bit += 1;
        }
        out.push(v);
    }
    Ok(bytes)
}

/// An unsigned LEB128 value of at most 64 bits at `*pos`, advancing it.
fn varint(buf: &[u8], pos: &mut usize) -> Result<u64, String> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos).ok_or("a run header is cut off")?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err("a run header longer than 10 bytes".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A straightforward encoder: `runs` of (repeat, values), `repeat` runs
    /// holding one value.
    fn encode(width: u32, runs: &[(bool, Vec<u32>)]) -> Vec<u8> {
        let mut out = Vec::new();
        let put = |out: &mut Vec<u8>, mut v: u64| loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                break;
            }
            out.push(b | 0x80);
        };
        for (repeat, values) in runs {
            if *repeat {
                put(&mut out, (values.len() as u64) << 1);
                let v = values[0].to_le_bytes();
                out.extend_from_slice(&v[..width.div_ceil(8) as usize]);
            } else {
                let groups = values.len().div_ceil(8);
                put(&mut out, ((groups as u64) << 1) | 1);
                let mut bits = vec![0u8; groups * width as usize];
                for (i, &v) in values.iter().enumerate() {
                    for b in 0..width as usize {
                        if v >> b & 1 == 1 {
                            let at = i * width as usize + b;
                            bits[at / 8] |= 1 << (at % 8);
                        }
                    }
                }
                out.extend_from_slice(&bits);
            }
        }
        out
    }

    #[test]
    fn decodes_runs_of_every_width() {
        for width in 0..=32u32 {
            let max = if width == 32 {
                u32::MAX
            } else {
                (1u32 << width) - 1
            };
            // Only the last bit-packed run may be padded: the others hold
            // whole groups of 8.
            let literal: Vec<u32> = (0..24u32)
                .map(|i| i.wrapping_mul(2654435761) & max)
                .collect();
            let runs = vec![
                (true, vec![max; 300]),
                (false, literal.clone()),
                (true, vec![0; 2]),
                (false, literal[..5].to_vec()),
            ];
            let buf = encode(width, &runs);
            let want: Vec<u32> = runs.iter().flat_map(|(_, v)| v.clone()).collect();
            // The padding of the last group (3 values) is not asked for.
            let mut got = Vec::new();
            decode(&buf, width, want.len(), &mut got).unwrap();
            assert_eq!(got, want, "width {width}");
            // Fewer values than encoded stop early, mid-run.
            let mut some = Vec::new();
            decode(&buf, width, 310, &mut some).unwrap();
            assert_eq!(some, want[..310], "width {width}");
        }
    }

    #[test]
    fn truncated_or_malformed_runs_are_errors() {
        let buf = encode(5, &[(false, (0..16).collect())]);
        let mut out = Vec::new();
        assert!(decode(&buf[..buf.len() - 1], 5, 16, &mut out).is_err());
        assert!(decode(&buf, 5, 17, &mut out).is_err());
        assert!(decode(&[0x00], 5, 1, &mut out).is_err()); // empty RLE run
        assert!(decode(&[0x01], 5, 1, &mut out).is_err()); // empty bit-packed run
        assert!(decode(&[0x04, 0x40], 5, 2, &mut out).is_err()); // value too wide
        assert!(decode(&[0xff; 12], 5, 1, &mut out).is_err());
        assert!(decode(&[0x02], 33, 1, &mut out).is_err());
    }

    #[test]
    fn bit_packed_msb_levels() {
        // 1, 0, 1, 1, 0, 0, 0, 1, 1 at one bit: 0b1011_0001, 0b1000_0000.
        let mut out = Vec::new();
        let used =
            decode_bit_packed_msb(&[0b1011_0001, 0b1000_0000, 0xff], 1, 9, &mut out).unwrap();
        assert_eq!(used, 2);
        assert_eq!(out, [1, 0, 1, 1, 0, 0, 0, 1, 1]);
        // Two bits: 0, 1, 2, 3 -> 0b0001_1011.
        out.clear();
        decode_bit_packed_msb(&[0b0001_1011], 2, 4, &mut out).unwrap();
        assert_eq!(out, [0, 1, 2, 3]);
        assert!(decode_bit_packed_msb(&[0], 1, 9, &mut out).is_err());
    }
}
