//! `ORDER BY col LIMIT k` without sorting a block: a fixed-width column's
//! values are stored sorted, so the rows that can reach the top `k` are
//! those of its first values (from the top for DESC), read off their row
//! lists until `k` selected rows are found. Only those rows are loaded and
//! sorted; the rest of the block is never touched. A string column's values
//! are hashes, but its dictionary maps alphabetical positions to them, so
//! the same walk works in string order.

use crate::error::Result;
use crate::scan::block::{BlockCtx, Sel};

/// Values decoded per step of a descending walk.
const STEP: usize = 64;

/// Strings a string walk visits before giving up. Each costs a row-list
/// lookup that may skip up to 63 other lists, so a walk that a selective
/// WHERE keeps from filling `k` rows soon is cheaper as a plain sort.
const MAX_STRING_WALK: usize = 4096;

/// The selected rows of the block whose value of column `col` is among the
/// first values in order (`desc` walks from the largest) that together
/// hold at least `k` selected rows, ties with the last one included; in
/// ascending row order, with the storage key of that last value. `None`
/// when the shortcut does not apply: NULLs that would sort first, or fewer
/// than `k` selected non-NULL rows (the caller then sorts the whole
/// selection).
pub fn leading_rows(
    ctx: &BlockCtx,
    sel: &Sel,
    col: usize,
    desc: bool,
    nulls_first: bool,
    k: usize,
) -> Result<Option<(Vec<u32>, u64)>> {
    let chunk = ctx.chunk(col)?;
    if nulls_first && chunk.null_count() > 0 {
        return Ok(None);
    }
    let lists = chunk.row_lists()?;
    let n = chunk.distinct();
    let mut out: Vec<u32> = Vec::new();
    let mut last = 0usize;
    let take = |s: u32, l: u32, out: &mut Vec<u32>| take_selected(sel, s, l, out);
    if desc {
        let mut end = n;
        let mut runs: Vec<(usize, u32, u32)> = Vec::new();
        while end > 0 && out.len() < k {
            let start = end.saturating_sub(STEP);
            runs.clear();
            lists.for_range(start..end, |v, s, l| runs.push((v, s, l)))?;
            // Values from the largest down; each value's runs in row order.
            let mut i = runs.len();
            while i > 0 && out.len() < k {
                let v = runs[i - 1].0;
                let mut j = i;
                while j > 0 && runs[j - 1].0 == v {
                    j -= 1;
                }
                for &(_, s, l) in &runs[j..i] {
                    take(s, l, &mut out);
                }
                last = v;
                i = j;
            }
            end = start;
        }
    } else {
        let mut start = 0;
        while start < n && out.len() < k {
            let end = (start + STEP).min(n);
            let mut cur = usize::MAX;
            let mut done = false;
            lists.for_range(start..end, |v, s, l| {
                if done {
                    return;
                }
                if v != cur {
                    if out.len() >= k {
                        done = true;
                        return;
                    }
                    cur = v;
                    last = v;
                }
                take(s, l, &mut out);
            })?;
            start = end;
        }
    }
    if out.len() < k {
        return Ok(None);
    }
    out.sort_unstable();
    let key = ctx.keys(col)?.get(last).copied().unwrap_or_default();
    Ok(Some((out, key)))
}

/// [`leading_rows`] for a string column (byte order): the selected rows of
/// its alphabetically first (last with `desc`) strings holding at least `k`
/// of them, in ascending row order. `None` as for [`leading_rows`], and when
/// the first [`MAX_STRING_WALK`] strings do not hold `k` selected rows.
pub fn leading_string_rows(
    ctx: &BlockCtx,
    sel: &Sel,
    col: usize,
    desc: bool,
    nulls_first: bool,
    k: usize,
) -> Result<Option<Vec<u32>>> {
    let chunk = ctx.chunk(col)?;
    if nulls_first && chunk.null_count() > 0 {
        return Ok(None);
    }
    let dict = chunk.dictionary()?;
    let lists = chunk.row_lists()?;
    let n = chunk.distinct();
    let mut out: Vec<u32> = Vec::new();
    for i in 0..n {
        if out.len() >= k {
            break;
        }
        if i == MAX_STRING_WALK {
            return Ok(None);
        }
        let v = dict.value_of_str(if desc { n - 1 - i } else { i })?;
        lists.for_range(v..v + 1, |_, s, l| take_selected(sel, s, l, &mut out))?;
    }
    if out.len() < k {
        return Ok(None);
    }
    out.sort_unstable();
    Ok(Some(out))
}

/// Appends the selected rows of the run of `l` rows from `s`.
fn take_selected(sel: &Sel, s: u32, l: u32, out: &mut Vec<u32>) {
    match sel {
        Sel::All => out.extend(s..s + l),
        Sel::Empty => {}
        Sel::Bits(b) => {
            if b.count_range(s, l) > 0 {
                out.extend((s..s + l).filter(|&r| b.get(r as usize)));
            }
        }
    }
}
