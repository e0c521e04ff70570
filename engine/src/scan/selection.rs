//! One block's WHERE clause, evaluated only as far as its user needs. When
//! the filter tests a single column value by value (`s <> ''`, `x BETWEEN
//! 1 AND 9`, `u LIKE '%a%'`) and the user wants that column's per-value
//! counts (a GROUP BY or COUNT DISTINCT of the filtered column), the counts
//! come from the value mask and the stored counts: no row list is read and
//! no row is selected.

use std::cell::OnceCell;

use crate::error::Result;
use crate::scan::block::{BlockCtx, Sel};
use crate::scan::filter::{select, single_column, value_mask, Pred, ValueMask};

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

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;
    use crate::expr::like::LikePattern;
    use strata_format::{
        string_hash, ColumnData, DataType, Field, Schema, Table, TableWriter, WriteOptions,
    };

    /// One block of 500 rows: `s`, nullable strings of 40 values (ASCII
    /// and not, the empty string), and `x`, nullable integers.
    fn table(dir: &std::path::Path) -> Table {
        let schema = Schema::new(vec![
            Field::new("s", DataType::String, true),
            Field::new("x", DataType::Int64, true),
        ])
        .expect("schema");
        let options = WriteOptions {
            sync: false,
            ..Default::default()
        };
        let mut w = TableWriter::create(dir, schema, options).expect("create");
        let mut s = ColumnData::new_strings();
        let mut x = ColumnData::new_fixed();
        for r in 0..500u64 {
            match r % 41 {
                0 => s.push_null(),
                1 => s.push_str(b"").expect("push"),
                v if v % 3 == 0 => s
                    .push_str(format!("k{v}-caf\u{e9}").as_bytes())
                    .expect("push"),
                v => s.push_str(format!("Key{v}").as_bytes()).expect("push"),
            }
            if r % 7 == 0 {
                x.push_null();
            } else {
                x.push_key((r * 37 % 101) ^ (1 << 63)).expect("push");
            }
        }
        w.write_block(vec![s, x]).expect("write");
        w.finish().expect("finish");
        Table::open(dir).expect("open")
    }

    /// The per-value counts from the value mask equal those of the selected
    /// rows, for predicates of one column of every kind.
    #[test]
    fn masked_counts_equal_counts_of_the_selected_rows() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let table = table(&tmp.path().join("t"));
        let ctx = BlockCtx::new(&table, 0);
        let like = |p: &str, negated| Pred::Like {
            col: 0,
            pattern: Box::new(LikePattern::new(p.as_bytes(), None, false).expect("pattern")),
            negated,
        };
        let strs = |v: &[&str], negated| Pred::StrSet {
            col: 0,
            hashes: {
                let mut h: Vec<u128> = v.iter().map(|s| string_hash(s.as_bytes())).collect();
                h.sort_unstable();
                h
            },
            negated,
        };
        let key = |v: u64| v ^ (1 << 63);
        let preds_s = vec![
            strs(&[""], true),
            strs(&["Key2", "k3-caf\u{e9}", "absent"], false),
            Pred::IsNull {
                col: 0,
                negated: false,
            },
            Pred::IsNull {
                col: 0,
                negated: true,
            },
            like("%ey1%", false),
            like("%caf%", true),
            Pred::Or(vec![
                Pred::IsNull {
                    col: 0,
                    negated: false,
                },
                like("Key%", false),
            ]),
            Pred::And(vec![
                strs(&[""], true),
                Pred::Or(vec![like("%1%", false), strs(&["Key5"], false)]),
            ]),
            Pred::True,
            Pred::False,
        ];
        let preds_x = vec![
            Pred::KeyRange {
                col: 1,
                lo: key(10),
                hi: key(60),
            },
            Pred::KeySet {
                col: 1,
                keys: vec![key(3), key(40), key(99)],
                negated: true,
            },
            Pred::Or(vec![
                Pred::KeyRange {
                    col: 1,
                    lo: key(90),
                    hi: u64::MAX,
                },
                Pred::IsNull {
                    col: 1,
                    negated: false,
                },
            ]),
        ];
        for (col, preds) in [(0, preds_s), (1, preds_x)] {
            for p in preds {
                let lazy = BlockFilter::new(&p);
                let got = lazy.counts(&ctx, col).expect("masked counts");
                let sel = select(&p, &ctx).expect("select");
                let want = ctx.filtered_counts(col, &sel).expect("row counts");
                assert_eq!(got, want, "{p}");
                assert_eq!(lazy.count(&ctx).expect("count"), sel.count(ctx.rows), "{p}");
            }
        }
        // A filter of another column goes through the rows.
        let other = Pred::IsNull {
            col: 1,
            negated: true,
        };
        let lazy = BlockFilter::new(&other);
        let sel = select(&other, &ctx).expect("select");
        assert_eq!(
            lazy.counts(&ctx, 0).expect("counts"),
            ctx.filtered_counts(0, &sel).expect("row counts")
        );
    }
}
