//! Project: one output column per expression, evaluated over a batch.

use super::{Batch, ExecCtx, Operator};
use crate::error::Result;
use crate::expr::{eval, TExpr};

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
        let input = ctx.run(self.input.as_ref())?;
        let mut columns = Vec::with_capacity(self.exprs.len());
        for e in &self.exprs {
            columns.push(eval(e, input.rows, &input)?.into_owned());
        }
        Ok(Batch::new(columns, input.rows))
    }
}
