//! Row lists: the ascending rows of a block where one value occurs, coded as
//! runs of consecutive rows.
//!
//! A list is a sequence of runs `[start, start + len)`. Each run is written as
//! `varint(gap << 1 | (len > 1))`, followed by `varint(len - 2)` when
//! `len > 1`, where `gap` is `start` minus the end of the previous run (0 for
//! the first run). The number of rows in the list is known from the value's
//! count, so a list has no terminator.

use crate::varint;

/// Appends the row list for `rows` (strictly ascending) to `out`.
pub fn encode(rows: &[u32], out: &mut Vec<u8>) {
    let mut prev_end: u32 = 0;
    let mut i = 0;
    while i < rows.len() {
        let start = rows[i];
        let mut len = 1usize;
        while i + len < rows.len() && rows[i + len] == start + len as u32 {
            len += 1;
        }
        let gap = u64::from(start - prev_end);
        if len == 1 {
            varint::put(out, gap << 1);
        } else {
            varint::put(out, (gap << 1) | 1);
            varint::put(out, (len - 2) as u64);
        }
        prev_end = start + len as u32;
        i += len;
    }
}

/// Why a row list could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowListError {
    /// The bytes ended inside the list.
    Truncated,
    /// A run goes past the block's last row or past the value's count.
    OutOfRange,
}

impl std::fmt::Display for RowListError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowListError::Truncated => f.write_str("row list truncated"),
            RowListError::OutOfRange => f.write_str("row list runs past the block or its count"),
        }
    }
}

/// Decodes one list of exactly `count` rows starting at `*pos`, calling
/// `run(start, len)` for each run; rows are validated to be `< block_rows`.
/// Advances `*pos` past the list.
#[inline]
pub fn decode_runs(
    bytes: &[u8],
    pos: &mut usize,
    count: u32,
    block_rows: u32,
    mut run: impl FnMut(u32, u32),
) -> Result<(), RowListError> {
    let mut left = u64::from(count);
    let mut prev_end: u64 = 0;
    while left > 0 {
        let head = varint::get(bytes, pos).ok_or(RowListError::Truncated)?;
        let len = if head & 1 == 1 {
            varint::get(bytes, pos)
                .ok_or(RowListError::Truncated)?
                .checked_add(2)
                .ok_or(RowListError::OutOfRange)?
        } else {
            1
        };
        let start = prev_end
            .checked_add(head >> 1)
            .ok_or(RowListError::OutOfRange)?;
        let end = start.checked_add(len).ok_or(RowListError::OutOfRange)?;
        if end > u64::from(block_rows) || len > left {
            return Err(RowListError::OutOfRange);
        }
        run(start as u32, len as u32);
        left -= len;
        prev_end = end;
    }
    Ok(())
}

/// Skips one list of `count` rows starting at `*pos` (validating it).
pub fn skip(
    bytes: &[u8],
    pos: &mut usize,
    count: u32,
    block_rows: u32,
) -> Result<(), RowListError> {
    decode_runs(bytes, pos, count, block_rows, |_, _| {})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(rows: &[u32], block_rows: u32) -> Vec<u32> {
        let mut buf = Vec::new();
        encode(rows, &mut buf);
        let mut out = Vec::new();
        let mut pos = 0;
        decode_runs(&buf, &mut pos, rows.len() as u32, block_rows, |s, l| {
            out.extend(s..s + l)
        })
        .unwrap();
        assert_eq!(pos, buf.len());
        out
    }

    #[test]
    fn lists_round_trip() {
        let cases: Vec<Vec<u32>> = vec![
            vec![],
            vec![0],
            vec![5],
            vec![0, 1, 2, 3],
            vec![1, 3, 5, 6, 7, 100, 101, 524287],
            (0..1000).collect(),
            (0..1000).map(|i| i * 3).collect(),
        ];
        for c in cases {
            assert_eq!(round_trip(&c, 1 << 19), c);
        }
    }

    #[test]
    fn runs_are_compact() {
        let mut buf = Vec::new();
        encode(&(0..(1 << 19)).collect::<Vec<_>>(), &mut buf);
        assert!(buf.len() <= 4, "{}", buf.len());
    }

    #[test]
    fn corrupt_lists_are_errors() {
        let mut buf = Vec::new();
        encode(&[10, 11, 12], &mut buf);
        let mut pos = 0;
        // Claims more rows than are coded.
        assert_eq!(
            decode_runs(&buf, &mut pos, 4, 100, |_, _| {}),
            Err(RowListError::Truncated)
        );
        // Rows beyond the block.
        let mut pos = 0;
        assert_eq!(
            decode_runs(&buf, &mut pos, 3, 12, |_, _| {}),
            Err(RowListError::OutOfRange)
        );
        // A run longer than the count.
        let mut pos = 0;
        assert_eq!(
            decode_runs(&buf, &mut pos, 2, 100, |_, _| {}),
            Err(RowListError::OutOfRange)
        );
    }
}
