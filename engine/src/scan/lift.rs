//! Row-aligned evaluation that works on distinct values where it can.
//!
//! In `l_extendedprice * (1 - l_discount) * (1 + l_tax)` the parts
//! `1 - l_discount` and `1 + l_tax` each read one column. A block stores
//! each column's distinct values once, so such a part is evaluated at the
//! chunk's distinct values (11 for `l_discount`, not 500,000 rows) and its
//! results are gathered to the rows by their value indexes; only the
//! operators that join several columns run once per row.
//!
//! Evaluating at every distinct value may fail (a cast out of range, a
//! division by zero) on a value that no selected row holds, where the rows'
//! evaluation would not. Such a part is left to the rows: errors are raised
//! exactly when the rows' evaluation raises them.

use crate::error::Result;
use crate::expr::{eval, ExprKind, OneColumn, TExpr};
use crate::scan::block::BlockCtx;
use crate::value::Vector;

/// Expressions whose one-column parts were replaced by references to
/// row-aligned columns numbered from the table's column count up.
pub(crate) struct Lifted {
    /// The expressions, rewritten.
    pub exprs: Vec<TExpr>,
    /// The evaluated parts at the rows, by their column numbers.
    pub columns: Vec<(usize, Vector)>,
}

/// Lifts the one-column parts of `exprs` worth evaluating at distinct
/// values (those of columns with at most half as many distinct values in
/// the block as `rows` selects) out of the row-aligned evaluation.
pub(crate) fn lift(ctx: &BlockCtx, rows: &[u32], exprs: &[&TExpr]) -> Result<Lifted> {
    let mut l = Lifter {
        ctx,
        rows,
        base: ctx.column_count(),
        parts: Vec::new(),
        columns: Vec::new(),
    };
    let exprs = exprs
        .iter()
        .map(|e| {
            let mut e = (*e).clone();
            l.visit(&mut e)?;
            Ok(e)
        })
        .collect::<Result<_>>()?;
    Ok(Lifted {
        exprs,
        columns: l.columns,
    })
}

struct Lifter<'a, 't> {
    ctx: &'a BlockCtx<'t>,
    rows: &'a [u32],
    /// The first number given to a lifted part.
    base: usize,
    /// Parts lifted so far (the same part in two places is evaluated once).
    parts: Vec<TExpr>,
    columns: Vec<(usize, Vector)>,
}

impl Lifter<'_, '_> {
    fn visit(&mut self, e: &mut TExpr) -> Result<()> {
        if matches!(e.kind, ExprKind::Col(_) | ExprKind::Lit(_)) {
            return Ok(());
        }
        if let [c] = e.columns().as_slice() {
            if let Some(id) = self.lifted(e, *c)? {
                *e = TExpr {
                    kind: ExprKind::Col(id),
                    ty: e.ty,
                };
                return Ok(());
            }
        }
        let mut res = Ok(());
        e.for_each_child_mut(&mut |child| {
            if res.is_ok() {
                res = self.visit(child);
            }
        });
        res
    }

    /// The column number of part `e` (of column `c` only) evaluated at the
    /// rows, or `None` where the rows should evaluate it.
    fn lifted(&mut self, e: &TExpr, c: usize) -> Result<Option<usize>> {
        if let Some(i) = self.parts.iter().position(|p| p == e) {
            return Ok(Some(self.base + i));
        }
        let chunk = self.ctx.chunk(c)?;
        let distinct = chunk.distinct();
        if distinct.saturating_mul(2) > self.rows.len() {
            return Ok(None);
        }
        let values = self.ctx.values(c)?;
        let inputs = OneColumn(values);
        let Ok(at_values) = eval(e, values.len(), &inputs) else {
            return Ok(None);
        };
        let null_in = Vector::nulls(values.ty, 1);
        let null_inputs = OneColumn(&null_in);
        let Ok(at_null) = eval(e, 1, &null_inputs) else {
            return Ok(None);
        };
        let mut per_value = at_values.into_owned();
        per_value.append(&at_null);
        // NULL rows (code u32::MAX) take the value at NULL, after the others.
        let null_code = distinct as u32;
        let codes: Vec<u32> = self
            .ctx
            .codes_at(c, self.rows)?
            .into_iter()
            .map(|x| x.min(null_code))
            .collect();
        let id = self.base + self.parts.len();
        self.parts.push(e.clone());
        self.columns.push((id, per_value.gather(&codes)));
        Ok(Some(id))
    }
}
