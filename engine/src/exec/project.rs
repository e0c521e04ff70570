//! Project: one output column per expression, evaluated over a batch.

use super::{Batch, ExecCtx, Operator};
use crate::error::Result;
use crate::expr::{eval, ExprKind, TExpr};
use crate::value::Vector;

/// Computes `exprs` over the input's rows.
#[derive(Debug)]
pub struct Project {
    /// Its number in the tree.
    pub id: usize,
    /// The input.
    pub input: Box<dyn Operator>,
    /// The expressions over the input's columns.
    pub exprs: Vec<TExpr>,
}

impl Operator for Project {
    fn describe(&self) -> String {
        "Project".into()
    }

    fn children(&self) -> Vec<&dyn Operator> {
        vec![self.input.as_ref()]
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, ctx: &ExecCtx) -> Result<Batch> {
        let mut input = ctx.run(self.input.as_ref())?;
        // Computed expressions first, while every input column is there;
        // then bare columns are moved out of the input (the last use of
        // each), not copied: a column of large strings is never held twice.
        let mut columns: Vec<Option<Vector>> = Vec::with_capacity(self.exprs.len());
        for e in &self.exprs {
            columns.push(match bare_column(e, &input) {
                Some(_) => None,
                None => Some(eval(e, input.rows, &input)?.into_owned()),
            });
        }
        for (k, e) in self.exprs.iter().enumerate().rev() {
            if let Some(j) = bare_column(e, &input) {
                let later = self.exprs[..k]
                    .iter()
                    .any(|x| bare_column(x, &input) == Some(j));
                columns[k] = Some(if later {
                    input.columns[j].clone()
                } else {
                    std::mem::replace(&mut input.columns[j], Vector::empty(e.ty, 0))
                });
            }
        }
        let columns = columns.into_iter().flatten().collect();
        Ok(Batch::new(columns, input.rows))
    }
}

/// The input column `e` is, unchanged (its own type), if it is one.
fn bare_column(e: &TExpr, input: &Batch) -> Option<usize> {
    match e.kind {
        ExprKind::Col(j) if input.columns.get(j).is_some_and(|c| c.ty == e.ty) => Some(j),
        _ => None,
    }
}
