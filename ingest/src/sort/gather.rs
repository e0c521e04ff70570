//! Building a merged chunk's columns from the pages its rows come from.
//!
//! Merged runs interleave finely: with ClickBench's key a 512K-row block
//! is about 157K segments of 3 rows on average, taken from some 150 pages.
//! So each column first looks up its part of every page once, and keys are
//! unpacked straight from the pages' packed bytes into the output.

use std::sync::Arc;

use rayon::prelude::*;
use strata_format::ColumnData;

use super::page::{Page, PageColumn};

/// Consecutive rows `start..end` of one page (by its slot in the chunk's
/// page list) in the merged order.
#[derive(Debug, Clone, Copy)]
pub(super) struct Segment {
    pub(super) slot: usize,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// Builds the columns (strings where `string_columns` says so, else plain
/// keys) of the `rows` rows `order` picks from the pages in `slots`, a
/// column per task on `pool`.
pub(super) fn gather(
    slots: &[Arc<Page>],
    order: &[Segment],
    rows: usize,
    string_columns: &[bool],
    pool: &rayon::ThreadPool,
) -> Vec<ColumnData> {
    pool.install(|| {
        (0..string_columns.len())
            .into_par_iter()
            .map(|c| {
                let parts: Vec<Option<&PageColumn>> =
                    slots.iter().map(|p| p.columns.get(c)).collect();
                let nulls = gather_nulls(&parts, order, rows);
                if string_columns[c] {
                    gather_strings(&parts, order, rows, nulls)
                } else {
                    gather_keys(&parts, order, rows, nulls)
                }
            })
            .collect()
    })
}

/// The picked rows' NULL flags, or `None` if no page has any.
fn gather_nulls(
    parts: &[Option<&PageColumn>],
    order: &[Segment],
    rows: usize,
) -> Option<Vec<bool>> {
    let flags: Vec<Option<&[bool]>> = parts
        .iter()
        .map(|p| p.and_then(|c| c.null_flags()))
        .collect();
    if flags.iter().all(Option::is_none) {
        return None;
    }
    let mut nulls = Vec::with_capacity(rows);
    for seg in order {
        match flags.get(seg.slot).copied().flatten() {
            Some(n) => nulls.extend_from_slice(n.get(seg.start..seg.end).unwrap_or_default()),
            None => nulls.resize(nulls.len() + (seg.end - seg.start), false),
        }
    }
    Some(nulls)
}

/// The picked rows of a fixed-width column.
fn gather_keys(
    parts: &[Option<&PageColumn>],
    order: &[Segment],
    rows: usize,
    nulls: Option<Vec<bool>>,
) -> ColumnData {
    let mut keys = Vec::with_capacity(rows);
    for seg in order {
        let part = parts.get(seg.slot).copied().flatten();
        if part
            .and_then(|p| p.extend_keys(seg.start, seg.end, &mut keys))
            .is_none()
        {
            // Not a page of keys: cannot happen, as pages are read
            // against the schema; padded so the rows stay aligned.
            keys.resize(keys.len() + (seg.end - seg.start), 0);
        }
    }
    ColumnData::Fixed { keys, nulls }
}

/// The picked rows of a string column.
fn gather_strings(
    parts: &[Option<&PageColumn>],
    order: &[Segment],
    rows: usize,
    nulls: Option<Vec<bool>>,
) -> ColumnData {
    let sources: Vec<(&[u8], &[u64])> = parts
        .iter()
        .map(|p| match p {
            Some(PageColumn::Strings { bytes, offsets, .. }) => {
                (bytes.as_slice(), offsets.as_slice())
            }
            _ => (&[][..], &[][..]),
        })
        .collect();
    // A segment's offsets, `start..=end`, if its page has them.
    let offsets_of = |seg: &Segment| {
        let (bytes, offsets) = sources.get(seg.slot).copied()?;
        Some((bytes, offsets.get(seg.start..=seg.end)?))
    };
    let size: u64 = order
        .iter()
        .filter_map(|seg| {
            let (_, o) = offsets_of(seg)?;
            o.last()?.checked_sub(o[0])
        })
        .sum();
    let mut bytes = Vec::with_capacity(size as usize);
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0);
    for seg in order {
        let Some((b, o)) = offsets_of(seg) else {
            continue;
        };
        let (first, last) = (o[0], o[o.len() - 1]);
        let base = bytes.len() as u64;
        bytes.extend_from_slice(b.get(first as usize..last as usize).unwrap_or_default());
        for &x in &o[1..] {
            offsets.push(x - first + base);
        }
    }
    ColumnData::Strings {
        bytes,
        offsets,
        nulls,
    }
}
