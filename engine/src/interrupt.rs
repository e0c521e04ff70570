//! Interrupting running queries, in the manner of `sqlite3_interrupt`.
//!
//! An engine owns an interrupt epoch. Each query remembers the epoch it
//! started in; [`Interrupter::interrupt`] moves the epoch on, and every
//! query started before stops at its next block boundary with
//! [`EngineError::Interrupted`]. Queries started afterwards run normally, so
//! nothing needs resetting and a late interrupt cannot hit the next query.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{EngineError, Result};

/// A handle that interrupts the queries running on one engine. Cheap to
/// clone and safe to use from a signal-handling thread.
#[derive(Debug, Clone, Default)]
pub struct Interrupter {
    epoch: Arc<AtomicU64>,
}

impl Interrupter {
    /// Stops every query running now at its next block boundary.
    pub fn interrupt(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// A watch for a query starting now.
    pub fn watch(&self) -> Watch {
        Watch {
            epoch: Some(self.epoch.clone()),
            start: self.epoch.load(Ordering::SeqCst),
        }
    }
}

/// What a running query checks to learn that it was interrupted. The
/// default watch is never interrupted.
#[derive(Debug, Clone, Default)]
pub struct Watch {
    epoch: Option<Arc<AtomicU64>>,
    start: u64,
}

impl Watch {
    /// `Err(Interrupted)` once the query has been interrupted.
    pub fn check(&self) -> Result<()> {
        match &self.epoch {
            Some(e) if e.load(Ordering::Relaxed) != self.start => Err(EngineError::Interrupted),
            _ => Ok(()),
        }
    }
}

impl PartialEq for Watch {
    /// Watches do not take part in comparing plans.
    fn eq(&self, _: &Watch) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupt_hits_running_queries_only() {
        let i = Interrupter::default();
        let before = i.watch();
        assert!(before.check().is_ok());
        i.interrupt();
        assert!(matches!(before.check(), Err(EngineError::Interrupted)));
        let after = i.watch();
        assert!(after.check().is_ok());
        assert!(Watch::default().check().is_ok());
    }
}
