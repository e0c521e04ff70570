//! Ctrl-C in the CLI: interrupts the running query instead of killing the
//! process, so the shell returns to its prompt and a one-shot `strata query`
//! exits cleanly with status 130; an ingest stops at its next block and
//! removes what it wrote. With nothing running, a one-shot command exits at
//! once; the shell ignores it (rustyline reads Ctrl-C itself while a line is
//! being edited).

use std::sync::{Mutex, PoisonError};

use strata::Interrupter;

/// What Ctrl-C does to the work running now, if any.
type OnInterrupt = Box<dyn Fn() + Send>;

/// The interruption of the work running now, if any.
static RUNNING: Mutex<Option<OnInterrupt>> = Mutex::new(None);

/// Exit status of a command stopped by Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Installs the Ctrl-C handler; `shell` keeps the process alive when no
/// query is running.
pub fn install(shell: bool) {
    let installed = ctrlc::set_handler(move || {
        let running = RUNNING.lock().unwrap_or_else(PoisonError::into_inner);
        match running.as_ref() {
            Some(interrupt) => interrupt(),
            None if shell => {}
            None => std::process::exit(i32::from(EXIT_INTERRUPTED)),
        }
    });
    if let Err(e) = installed {
        // Without a handler Ctrl-C keeps its default effect: ending the process.
        eprintln!("warning: Ctrl-C will not cancel queries: {e}");
    }
}

/// Marks a query as running for as long as the guard lives, so that Ctrl-C
/// interrupts it.
pub struct Running(());

impl Running {
    /// Ctrl-C now interrupts the queries of `interrupter`.
    pub fn start(interrupter: Interrupter) -> Running {
        Running::on_interrupt(move || interrupter.interrupt())
    }

    /// Ctrl-C now calls `interrupt`.
    pub fn on_interrupt(interrupt: impl Fn() + Send + 'static) -> Running {
        *RUNNING.lock().unwrap_or_else(PoisonError::into_inner) = Some(Box::new(interrupt));
        Running(())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        *RUNNING.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }
}

/// The error a one-shot command stops with after Ctrl-C (naming what was
/// interrupted); `main` turns it into exit status [`EXIT_INTERRUPTED`].
#[derive(Debug, thiserror::Error)]
#[error("{0} interrupted")]
pub struct Interrupted(pub &'static str);
