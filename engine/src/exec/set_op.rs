//! UNION, INTERSECT and EXCEPT, with or without ALL, over two batches of
//! the same column types. Rows compare as in grouping (NULLs equal).

use super::{Batch, ExecCtx, Operator};
use crate::agg::accumulate::group_rows;
use crate::error::Result;
use crate::plan::SetOpKind;
use crate::value::Vector;

/// A set operation.
#[derive(Debug)]
pub struct SetOp {
    /// Its number in the tree.
    pub id: usize,
    /// Which.
    pub kind: SetOpKind,
    /// Keep duplicates.
    pub all: bool,
    /// The left input.
    pub left: Box<dyn Operator>,
    /// The right input.
    pub right: Box<dyn Operator>,
}

impl Operator for SetOp {
    fn describe(&self) -> String {
        if self.kind == SetOpKind::Union && self.all {
            "UnionAll (concatenation)".into()
        } else {
            "SetOp (hash of rows)".into()
        }
    }

    fn children(&self) -> Vec<&dyn Operator> {
        vec![self.left.as_ref(), self.right.as_ref()]
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, ctx: &ExecCtx) -> Result<Batch> {
        // INTERSECT of an empty right side is empty: the left side is not
        // run (nor its errors raised), as DuckDB, which builds on the right.
        let (l, r) = if self.kind == SetOpKind::Intersect {
            let r = ctx.run(self.right.as_ref())?;
            if r.rows == 0 {
                return Ok(r);
            }
            (ctx.run(self.left.as_ref())?, r)
        } else {
            (ctx.run(self.left.as_ref())?, ctx.run(self.right.as_ref())?)
        };
        let nl = l.rows;
        // Both sides as one batch: left rows first.
        let mut columns: Vec<Vector> = l.columns;
        for (a, b) in columns.iter_mut().zip(&r.columns) {
            a.append(b);
        }
        let all = Batch::new(columns, nl + r.rows);
        if self.kind == SetOpKind::Union && self.all {
            return Ok(all);
        }
        let refs: Vec<&Vector> = all.columns.iter().collect();
        let g = group_rows(&refs, all.rows)?;
        let mut counts = vec![(0u64, 0u64); g.len()];
        for (i, &id) in g.ids.iter().enumerate() {
            let c = &mut counts[id as usize];
            if i < nl {
                c.0 += 1;
            } else {
                c.1 += 1;
            }
        }
        let mut out: Vec<u32> = Vec::new();
        for (&first, &(cl, cr)) in g.first.iter().zip(&counts) {
            let copies = match (self.kind, self.all) {
                (SetOpKind::Union, _) => 1,
                (SetOpKind::Intersect, false) => u64::from(cl > 0 && cr > 0),
                (SetOpKind::Intersect, true) => cl.min(cr),
                (SetOpKind::Except, false) => u64::from(cl > 0 && cr == 0),
                (SetOpKind::Except, true) => cl.saturating_sub(cr),
            };
            for _ in 0..copies {
                out.push(first);
            }
        }
        Ok(all.gather(&out))
    }
}
