//! Running queries on strata in-process through the library (`strata::Database`):
//! panics caught and counted, runaway queries interrupted, errors sorted into refusals
//! ("not supported") and the rest.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Mutex, Once};
use std::time::Duration;

use anyhow::Result;
use strata::engine::EngineError;
use strata::{DataType as LType, Database, Error, Options};

use super::cell::Cell;

/// strata's answer to a query.
#[derive(Debug, Clone, PartialEq)]
pub enum StrataAnswer {
    /// Rows, with the result's column names and types.
    Rows {
        /// Column names.
        columns: Vec<String>,
        /// Column types.
        types: Vec<LType>,
        /// The rows.
        rows: Vec<Vec<Cell>>,
    },
    /// A clean "not supported" error: the construct it names.
    Refused(String),
    /// Any other error: its kind (`syntax`, `invalid`, `runtime`, `internal`, ...) and
    /// message.
    Error(&'static str, String),
    /// A panic, with its message and location.
    Panic(String),
    /// Interrupted after the time limit.
    Timeout,
}

impl StrataAnswer {
    /// A one-line description.
    pub fn describe(&self) -> String {
        match self {
            StrataAnswer::Rows { rows, .. } => format!("{} rows", rows.len()),
            StrataAnswer::Refused(r) => format!("not supported: {r}"),
            StrataAnswer::Error(k, m) => format!("{k} error: {m}"),
            StrataAnswer::Panic(m) => format!("panic: {m}"),
            StrataAnswer::Timeout => "timed out".into(),
        }
    }
}

static QUERIES_IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());
static HOOK: Once = Once::new();

/// Routes panics during queries to a list (with their location) instead of stderr;
/// other panics still print.
fn install_hook() {
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUERIES_IN_FLIGHT.load(Ordering::SeqCst) > 0 {
                if let Ok(mut p) = PANICS.lock() {
                    if p.len() > 64 {
                        p.remove(0);
                    }
                    p.push(info.to_string());
                }
            } else {
                default(info);
            }
        }));
    });
}

/// The message of a caught panic, with its location when the hook saw it.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into());
    let seen = PANICS
        .lock()
        .ok()
        .and_then(|p| p.iter().rev().find(|m| m.contains(&msg)).cloned());
    seen.unwrap_or(msg).replace('\n', " ")
}

/// The first words of a refusal, without the values it quotes: `function lower(INTEGER)`
/// stays as is, `date part "x"` loses the part.
pub fn refusal_reason(msg: &str) -> String {
    let mut out = String::new();
    let mut quote = None;
    for c in msg.chars() {
        match quote {
            Some(q) if c == q => {
                quote = None;
                out.push_str("..");
                out.push(c);
            }
            Some(_) => {}
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                out.push(c);
            }
            None => out.push(c),
        }
    }
    let mut words: Vec<&str> = out.split_whitespace().collect();
    words.truncate(8);
    words.join(" ")
}

/// A database holding one generated table.
pub struct StrataDb {
    db: Database,
    timeout: Duration,
}

impl StrataDb {
    /// Opens the database directory `dir` on `threads` threads.
    pub fn open(dir: &Path, threads: usize, timeout: Duration) -> Result<StrataDb> {
        install_hook();
        let options = Options::new()
            .threads(threads)
            .temporary_cache()
            .memory_limit(4 << 30);
        Ok(StrataDb {
            db: Database::open_with(dir, options)?,
            timeout,
        })
    }

    /// Runs `sql`.
    pub fn query(&self, sql: &str) -> StrataAnswer {
        let stop = self.db.interrupter();
        let (tx, rx) = channel::<()>();
        let timeout = self.timeout;
        let watchdog = std::thread::spawn(move || {
            if let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(timeout) {
                stop.interrupt();
            }
        });
        QUERIES_IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
        let got = catch_unwind(AssertUnwindSafe(|| self.db.query(sql)));
        QUERIES_IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
        let _ = tx.send(());
        let _ = watchdog.join();
        match got {
            Err(payload) => StrataAnswer::Panic(panic_message(payload.as_ref())),
            Ok(Ok(result)) => {
                let schema = result.schema();
                let columns = schema.iter().map(|(n, _)| n.to_string()).collect();
                let types: Vec<LType> = schema.iter().map(|(_, t)| *t).collect();
                let rows = (0..result.num_rows())
                    .map(|r| {
                        types
                            .iter()
                            .enumerate()
                            .map(|(c, &ty)| Cell::from_strata(ty, &result.value(r, c)))
                            .collect()
                    })
                    .collect();
                StrataAnswer::Rows {
                    columns,
                    types,
                    rows,
                }
            }
            Ok(Err(e)) => classify(e),
        }
    }
}

fn classify(e: Error) -> StrataAnswer {
    let msg = e.to_string();
    match e {
        Error::Query(EngineError::Unsupported(what)) => {
            StrataAnswer::Refused(refusal_reason(&what))
        }
        Error::Interrupted => StrataAnswer::Timeout,
        Error::Syntax { .. } => StrataAnswer::Error("syntax", msg),
        Error::Query(EngineError::Invalid(_) | EngineError::NotFound { .. }) => {
            StrataAnswer::Error("invalid", msg)
        }
        Error::Query(EngineError::Runtime(_)) => StrataAnswer::Error("runtime", msg),
        Error::Query(EngineError::TooLarge(_)) => StrataAnswer::Error("too large", msg),
        Error::Query(EngineError::Internal(_)) => StrataAnswer::Error("internal", msg),
        _ => StrataAnswer::Error("other", msg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusal_reasons_drop_quoted_values() {
        assert_eq!(refusal_reason("date part \"xyz\""), "date part \"..\"");
        assert_eq!(
            refusal_reason("function lower(INTEGER)"),
            "function lower(INTEGER)"
        );
        assert_eq!(refusal_reason("SELECT DISTINCT"), "SELECT DISTINCT");
    }
}
