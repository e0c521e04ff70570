//! Sort: a batch's rows in the order of its keys (a top-`k` selection when
//! a LIMIT above it takes only `k`).

use super::{Batch, ExecCtx, Operator};
use crate::budget::{vector_bytes, Budget};
use crate::error::Result;
use crate::expr::eval;
use crate::expr::order::{sort_indices, SortKey};
use crate::plan::OrderKey;
use crate::value::Vector;

/// Orders the input's rows.
#[derive(Debug)]
pub struct Sort {
    /// Its number in the tree.
    pub id: usize,
    /// The input.
    pub input: Box<dyn Operator>,
    /// The keys over the input's columns.
    pub keys: Vec<OrderKey>,
    /// Only the first this many rows are needed (a LIMIT above).
    pub keep: Option<usize>,
}

/// The positions of `batch`'s rows in the order of `keys` (the first
/// `keep`, if given; ties keep their input order). The key values and the
/// positions are charged to `budget` while the sort runs.
pub fn sort_rows(
    batch: &Batch,
    keys: &[OrderKey],
    keep: Option<usize>,
    budget: &Budget,
) -> Result<Vec<u32>> {
    let positions = budget.hold(8 * batch.rows as u64, "an ORDER BY's row positions")?;
    let mut values: Vec<Vector> = Vec::with_capacity(keys.len());
    let mut held = vec![positions];
    for k in keys {
        let v = eval(&k.expr, batch.rows, batch)?.into_owned();
        held.push(budget.hold(vector_bytes(&v), "an ORDER BY's sort keys")?);
        values.push(v);
    }
    let sk: Vec<SortKey> = keys
        .iter()
        .zip(&values)
        .map(|(k, v)| SortKey {
            values: v,
            desc: k.desc,
            nulls_first: k.nulls_first,
        })
        .collect();
    let idx = sort_indices(&sk, (0..batch.rows).collect(), keep);
    Ok(idx.into_iter().map(|i| i as u32).collect())
}

impl Operator for Sort {
    fn describe(&self) -> String {
        match self.keep {
            Some(n) => format!("Sort (top-{n} selection)"),
            None => "Sort".into(),
        }
    }

    fn children(&self) -> Vec<&dyn Operator> {
        vec![self.input.as_ref()]
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, ctx: &ExecCtx) -> Result<Batch> {
        let input = ctx.run(self.input.as_ref())?;
        let order = sort_rows(&input, &self.keys, self.keep, &ctx.budget)?;
        Ok(input.gather(&order))
    }
}
