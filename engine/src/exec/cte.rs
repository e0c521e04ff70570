//! A CTE's rows: computed at the first reference, shared by the others.

use std::sync::Arc;

use super::{Batch, ExecCtx, Operator};
use crate::error::{EngineError, Result};

/// Reads CTE `cte`.
#[derive(Debug)]
pub struct CteScan {
    /// Its number in the tree.
    pub id: usize,
    /// The CTE's number.
    pub cte: usize,
    /// Its name.
    pub name: String,
}

impl Operator for CteScan {
    fn describe(&self) -> String {
        "CteScan (computed once, shared)".into()
    }

    fn children(&self) -> Vec<&dyn Operator> {
        Vec::new()
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, ctx: &ExecCtx) -> Result<Batch> {
        let (op, slot) = ctx
            .ctes
            .get(self.cte)
            .ok_or_else(|| EngineError::Internal(format!("no CTE {}", self.cte)))?;
        let mut slot = slot
            .lock()
            .map_err(|_| EngineError::Internal("a CTE's computation failed".into()))?;
        let rows: Arc<Batch> = match &*slot {
            Some(b) => b.clone(),
            None => {
                let b = Arc::new(ctx.run(op.as_ref())?);
                *slot = Some(b.clone());
                b
            }
        };
        Ok(Batch::new(rows.columns.clone(), rows.rows))
    }
}
