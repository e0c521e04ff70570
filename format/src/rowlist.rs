//! Row lists: the ascending rows of a block where one value occurs, coded as
//! runs of consecutive rows.
//!
//! A list is a sequence of runs `[start, start + len)`. Each run is written as
//! `varint(gap << 1 | (len > 1))`, followed by `varint(len - 2)` when
//! `len > 1`. For every run but the first, `gap` is `start` minus the end of
//! the previous run. For the first run, `gap` is `zigzag(start - base)`, where
//! `base` is the first row of the previous list in the same group of 64 lists
//! (0 for the first list of a group): in clustered data consecutive values
//! start at nearby rows, so the first run costs one byte instead of three.
//! The number of rows in the list is known from the value's count, so a list
//! has no terminator.

use crate::layout::ROW_INDEX_STRIDE;
use crate::varint;

/// Zigzag coding: small magnitudes of either sign become small numbers.
#[inline]
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline]
fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Appends the row list for `rows` (strictly ascending) to `out`; `base` is
/// the first row of the previous list of its group (0 for the first).
pub fn encode(rows: &[u32], base: u32, out: &mut Vec<u8>) {
    // Runs go to a stack buffer flushed in pieces: one capacity check per
    // piece instead of one per byte (most runs of scattered values are one
    // row and one byte).
    const BUF: usize = 256;
    const MAX_RUN: usize = 20; // two varints of at most 10 bytes
    let mut buf = [0u8; BUF];
    let mut n = 0;
    let mut prev_end: u32 = 0;
    let mut i = 0;
    while i < rows.len() {
        let start = rows[i];
        let mut len = 1usize;
        while i + len < rows.len() && rows[i + len] == start + len as u32 {
            len += 1;
        }
        let gap = if i == 0 {
            zigzag(i64::from(start) - i64::from(base))
        } else {
            u64::from(start - prev_end)
        };
        if n > BUF - MAX_RUN {
            out.extend_from_slice(&buf[..n]);
            n = 0;
        }
        if len == 1 {
            n = varint::put_at(&mut buf, n, gap << 1);
        } else {
            n = varint::put_at(&mut buf, n, (gap << 1) | 1);
            n = varint::put_at(&mut buf, n, (len - 2) as u64);
        }
        prev_end = start + len as u32;
        i += len;
    }
    out.extend_from_slice(&buf[..n]);
}

/// Appends the row list of every value to `lists`, and the row index (the
/// byte offset in `lists` of the list of every 64th value, as a `u32`) to
/// `index`. Value `v`'s rows are `rows[starts[v]..starts[v + 1]]`, ascending.
pub fn encode_lists(rows: &[u32], starts: &[u32], lists: &mut Vec<u8>, index: &mut Vec<u8>) {
    let mut base = 0;
    for (i, w) in starts.windows(2).enumerate() {
        if i % ROW_INDEX_STRIDE == 0 {
            index.extend_from_slice(&(lists.len() as u32).to_le_bytes());
            base = 0;
        }
        let rows = &rows[w[0] as usize..w[1] as usize];
        encode(rows, base, lists);
        base = rows.first().copied().unwrap_or(base);
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
/// `base` is as for [`encode`]. Advances `*pos` past the list and returns its
/// first row (the next list's base), or `base` for an empty list.
#[inline]
pub fn decode_runs(
    bytes: &[u8],
    pos: &mut usize,
    count: u32,
    block_rows: u32,
    base: u32,
    mut run: impl FnMut(u32, u32),
) -> Result<u32, RowListError> {
    let mut left = u64::from(count);
    let mut prev_end: u64 = 0;
    let mut first = None;
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
        let start = if first.is_none() {
            let s = i64::from(base) + unzigzag(head >> 1);
            u64::try_from(s).map_err(|_| RowListError::OutOfRange)?
        } else {
            prev_end
                .checked_add(head >> 1)
                .ok_or(RowListError::OutOfRange)?
        };
        let end = start.checked_add(len).ok_or(RowListError::OutOfRange)?;
        if end > u64::from(block_rows) || len > left {
            return Err(RowListError::OutOfRange);
        }
        run(start as u32, len as u32);
        first.get_or_insert(start as u32);
        left -= len;
        prev_end = end;
    }
    Ok(first.unwrap_or(base))
}

/// Skips one list of `count` rows starting at `*pos` (validating it);
/// returns its first row as [`decode_runs`] does.
pub fn skip(
    bytes: &[u8],
    pos: &mut usize,
    count: u32,
    block_rows: u32,
    base: u32,
) -> Result<u32, RowListError> {
    decode_runs(bytes, pos, count, block_rows, base, |_, _| {})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(rows: &[u32], block_rows: u32) -> Vec<u32> {
        let mut out = Vec::new();
        for base in [0, 7, block_rows - 1] {
            let mut buf = Vec::new();
            encode(rows, base, &mut buf);
            out.clear();
            let mut pos = 0;
            let first = decode_runs(
                &buf,
                &mut pos,
                rows.len() as u32,
                block_rows,
                base,
                |s, l| out.extend(s..s + l),
            )
            .unwrap();
            assert_eq!(first, rows.first().copied().unwrap_or(base));
            assert_eq!(pos, buf.len());
        }
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
            // Multi-byte gaps and run lengths across the writer's flushes.
            (0..100u32)
                .flat_map(|i| i * 5000..i * 5000 + 1 + (i % 5) * 400)
                .collect(),
        ];
        for c in cases {
            assert_eq!(round_trip(&c, 1 << 19), c);
        }
    }

    #[test]
    fn clustered_first_rows_cost_one_byte() {
        // Value v occupies rows 3v..3v+3: each list's first run is 3 rows
        // after the previous list's.
        let mut buf = Vec::new();
        let mut base = 0;
        for v in 0..64u32 {
            let rows: Vec<u32> = (3 * v..3 * v + 3).collect();
            encode(&rows, base, &mut buf);
            base = rows[0];
        }
        assert_eq!(buf.len(), 64 * 2);
    }

    #[test]
    fn runs_are_compact() {
        let mut buf = Vec::new();
        encode(&(0..(1 << 19)).collect::<Vec<_>>(), 0, &mut buf);
        assert!(buf.len() <= 4, "{}", buf.len());
    }

    #[test]
    fn corrupt_lists_are_errors() {
        let mut buf = Vec::new();
        encode(&[10, 11, 12], 0, &mut buf);
        let mut pos = 0;
        // Claims more rows than are coded.
        assert_eq!(
            decode_runs(&buf, &mut pos, 4, 100, 0, |_, _| {}),
            Err(RowListError::Truncated)
        );
        // Rows beyond the block.
        let mut pos = 0;
        assert_eq!(
            decode_runs(&buf, &mut pos, 3, 12, 0, |_, _| {}),
            Err(RowListError::OutOfRange)
        );
        // A run longer than the count.
        let mut pos = 0;
        assert_eq!(
            decode_runs(&buf, &mut pos, 2, 100, 0, |_, _| {}),
            Err(RowListError::OutOfRange)
        );
    }
}
