//! Hash aggregation over a batch: groups by the key values (see
//! [`crate::agg::accumulate`]), then each aggregate per group. Outputs the
//! keys, then the aggregates; a global aggregation (no keys) returns one
//! row even without input.

use std::borrow::Cow;

use super::{Batch, ExecCtx, Operator};
use crate::agg::accumulate::{aggregate, group_rows, CallInputs, Grouping, GROUP_BYTES_PER_ROW};
use crate::agg::func::AggCall;
use crate::budget::vector_bytes;
use crate::error::Result;
use crate::expr::{eval, TExpr};
use crate::value::Vector;

/// Groups and aggregates.
#[derive(Debug)]
pub struct HashAggregate {
    /// Its number in the tree.
    pub id: usize,
    /// The input.
    pub input: Box<dyn Operator>,
    /// Group keys over the input's columns.
    pub keys: Vec<TExpr>,
    /// The aggregates.
    pub aggs: Vec<AggCall>,
}

impl Operator for HashAggregate {
    fn describe(&self) -> String {
        "HashAggregate".into()
    }

    fn children(&self) -> Vec<&dyn Operator> {
        vec![self.input.as_ref()]
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, ctx: &ExecCtx) -> Result<Batch> {
        let input = ctx.run(self.input.as_ref())?;
        let mut held = vec![ctx.budget.hold(
            GROUP_BYTES_PER_ROW * input.rows as u64,
            "a GROUP BY's group ids",
        )?];
        // A key that is an input column is read in place; computed keys
        // are charged.
        let mut keys: Vec<Cow<'_, Vector>> = Vec::with_capacity(self.keys.len());
        for k in &self.keys {
            let v = eval(k, input.rows, &input)?;
            if let Cow::Owned(v) = &v {
                held.push(ctx.budget.hold(vector_bytes(v), "a GROUP BY's keys")?);
            }
            keys.push(v);
        }
        let refs: Vec<&Vector> = keys.iter().map(|k| &**k).collect();
        let mut g = group_rows(&refs, input.rows)?;
        if self.keys.is_empty() && g.is_empty() {
            // A global aggregate of no rows: one group, empty.
            g = Grouping {
                ids: Vec::new(),
                first: vec![0],
            };
        }
        ctx.watch.check()?;
        let mut columns: Vec<Vector> = keys.iter().map(|k| k.gather(&g.first)).collect();
        let ev = |e: &TExpr| eval(e, input.rows, &input);
        for a in &self.aggs {
            let inputs = CallInputs {
                args: a.args.iter().map(ev).collect::<Result<_>>()?,
                filter: a.filter.as_ref().map(ev).transpose()?,
                order: a.order.iter().map(|o| ev(&o.expr)).collect::<Result<_>>()?,
            };
            // Computed arguments are charged; input columns are read in
            // place.
            let _args = ctx.budget.hold(
                inputs
                    .args
                    .iter()
                    .chain(&inputs.filter)
                    .chain(&inputs.order)
                    .filter(|v| matches!(v, Cow::Owned(_)))
                    .map(|v| vector_bytes(v))
                    .sum(),
                "an aggregate's arguments",
            )?;
            columns.push(aggregate(a, &inputs, &g)?);
            ctx.watch.check()?;
        }
        Ok(Batch::new(columns, g.len()))
    }
}
