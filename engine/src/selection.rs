//! One block's WHERE clause, evaluated only as far as its user needs. When
//! the filter tests a single column value by value (`s <> ''`, `x BETWEEN
//! 1 AND 9`, `u LIKE '%a%'`) and the user wants that column's per-value
//! counts (a GROUP BY or COUNT DISTINCT of the filtered column), the counts
//! come from the value mask and the stored counts: no row list is read and
//! no row is selected.

use std::cell::OnceCell;

use crate::block::{BlockCtx, Sel};
use crate::error::Result;
use crate::filter::{select, single_column, value_mask, Pred, ValueMask};

/// A block's filter, its rows selected on first need.
pub struct BlockFilter<'p> {
    pred: &'p Pred,
    /// The column every leaf of `pred` tests value by value, if one.
    col: Option<usize>,
    sel: OnceCell<Sel>,
    mask: OnceCell<Option<ValueMask>>,
}

impl<'p> BlockFilter<'p> {
    /// The filter `pred`, nothing evaluated yet.
    pub fn new(pred: &'p Pred) -> BlockFilter<'p> {
        BlockFilter {
            pred,
            col: single_column(pred),
            sel: OnceCell::new(),
            mask: OnceCell::new(),
        }
    }

    /// The selected rows of the block.
    pub fn sel(&self, ctx: &BlockCtx) -> Result<&Sel> {
        if let Some(s) = self.sel.get() {
            return Ok(s);
        }
        let s = select(self.pred, ctx)?;
        Ok(self.sel.get_or_init(|| s))
    }

    /// The value mask of the filter's column, when the filter tests one
    /// column value by value and its rows are not selected already.
    fn mask(&self, ctx: &BlockCtx) -> Result<Option<(usize, &ValueMask)>> {
        let Some(col) = self.col else {
            return Ok(None);
        };
        if self.sel.get().is_some() {
            return Ok(None);
        }
        if self.mask.get().is_none() {
            let m = value_mask(self.pred, ctx, col)?;
            let _ = self.mask.set(m);
        }
        Ok(self.mask.get().and_then(|m| m.as_ref()).map(|m| (col, m)))
    }

    /// Per distinct value of column `col`, its selected rows; and the
    /// selected NULL rows.
    pub fn counts(&self, ctx: &BlockCtx, col: usize) -> Result<(Vec<u32>, u32)> {
        if let Some((c, m)) = self.mask(ctx)? {
            if c == col {
                return masked_counts(ctx, col, m);
            }
        }
        ctx.filtered_counts(col, self.sel(ctx)?)
    }

    /// The number of selected rows.
    pub fn count(&self, ctx: &BlockCtx) -> Result<usize> {
        if let Some((c, m)) = self.mask(ctx)? {
            let (counts, nulls) = masked_counts(ctx, c, m)?;
            return Ok(counts.iter().map(|&n| n as usize).sum::<usize>() + nulls as usize);
        }
        Ok(self.sel(ctx)?.count(ctx.rows))
    }

    /// Whether the filter is `TRUE`: every row selected, nothing to test.
    pub fn is_true(&self) -> bool {
        *self.pred == Pred::True
    }
}

/// The stored counts of `col`'s values, zero where `m` rejects the value.
fn masked_counts(ctx: &BlockCtx, col: usize, m: &ValueMask) -> Result<(Vec<u32>, u32)> {
    let chunk = ctx.chunk(col)?;
    let counts = chunk.counts()?;
    let v = counts.view();
    let out = m
        .values
        .iter()
        .enumerate()
        .map(|(i, &keep)| if keep { v.get(i) as u32 } else { 0 })
        .collect();
    let nulls = if m.nulls { chunk.null_count() } else { 0 };
    Ok((out, nulls))
}
