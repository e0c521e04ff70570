//! The library's error type.

use strata_engine::EngineError;
use strata_format::FormatError;

use crate::file_cache::SourceError;

/// Everything that can go wrong opening or querying tables.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The SQL text does not parse; `line` and `column` (1-based) locate the
    /// problem when the parser reports a position.
    #[error("syntax error: {message}")]
    Syntax {
        /// The parser's message (without the position suffix).
        message: String,
        /// 1-based line of the problem in the SQL text, if known.
        line: Option<usize>,
        /// 1-based column of the problem in the SQL text, if known.
        column: Option<usize>,
    },
    /// A mistake in the query: an unknown table or column, a type error, an
    /// unsupported construct, a runtime error such as division by zero.
    #[error(transparent)]
    Query(EngineError),
    /// The table's files could not be read: missing, unreadable or damaged.
    #[error(transparent)]
    Data(#[from] FormatError),
    /// The query was interrupted through an [`Interrupter`](crate::Interrupter)
    /// (Ctrl-C in the CLI).
    #[error("query interrupted")]
    Interrupted,
    /// Input files named in FROM could not be loaded: missing, unreadable,
    /// or with rows that do not fit the columns.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// A partial result of a split query could not be encoded or decoded
    /// (Arrow IPC).
    #[error("partial result: {0}")]
    Partial(String),
    /// An I/O error outside the table files (for example a missing database
    /// directory).
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The engine error behind a query error, if this is one.
    pub fn engine_error(&self) -> Option<&EngineError> {
        match self {
            Error::Query(e) => Some(e),
            _ => None,
        }
    }

    /// The 1-based (line, column) of a syntax error, when known.
    pub fn position(&self) -> Option<(usize, usize)> {
        match self {
            Error::Syntax {
                line: Some(l),
                column: Some(c),
                ..
            } => Some((*l, *c)),
            _ => None,
        }
    }

    /// The message, and for a syntax error with a known position the SQL
    /// line with a caret under the offending column:
    ///
    /// ```text
    /// syntax error: Expected: end of statement, found: FRM
    ///   line 1: SELECT a FRM t
    ///                    ^
    /// ```
    pub fn render(&self, sql: &str) -> String {
        let mut text = self.to_string();
        if let Some((line, column)) = self.position() {
            if let Some(src) = sql.lines().nth(line.saturating_sub(1)) {
                let prefix = format!("  line {line}: ");
                let pad: String = src
                    .chars()
                    .take(column.saturating_sub(1))
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                text.push_str(&format!(
                    "\n{prefix}{src}\n{}{pad}^",
                    " ".repeat(prefix.len())
                ));
            }
        }
        text
    }
}

impl From<EngineError> for Error {
    fn from(e: EngineError) -> Error {
        match e {
            EngineError::Syntax(msg) => {
                let (message, line, column) = split_position(&msg);
                Error::Syntax {
                    message,
                    line,
                    column,
                }
            }
            EngineError::Format(f) => Error::Data(f),
            EngineError::Interrupted => Error::Interrupted,
            EngineError::Source(e) => match e.downcast::<SourceError>() {
                Ok(e) => Error::Source(*e),
                Err(e) => Error::Query(EngineError::Source(e)),
            },
            other => Error::Query(other),
        }
    }
}

/// Splits sqlparser's `"... at Line: L, Column: C"` suffix off a message and
/// drops its `"sql parser error: "` prefix.
fn split_position(msg: &str) -> (String, Option<usize>, Option<usize>) {
    let msg = msg.strip_prefix("sql parser error: ").unwrap_or(msg);
    if let Some(at) = msg.rfind(" at Line: ") {
        let rest = &msg[at + " at Line: ".len()..];
        if let Some((l, c)) = rest.split_once(", Column: ") {
            let c = c.trim_end_matches(|ch: char| !ch.is_ascii_digit());
            if let (Ok(l), Ok(c)) = (l.trim().parse(), c.trim().parse()) {
                return (msg[..at].to_string(), Some(l), Some(c));
            }
        }
    }
    (msg.to_string(), None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_position() {
        let e = Error::from(EngineError::Syntax(
            "sql parser error: Expected: end of statement, found: FRM at Line: 2, Column: 3".into(),
        ));
        assert_eq!(e.position(), Some((2, 3)));
        assert_eq!(
            e.render("SELECT a\n  FRM t"),
            "syntax error: Expected: end of statement, found: FRM\n  line 2:   FRM t\n            ^"
        );
        let e = Error::from(EngineError::Syntax("bad number 1e".into()));
        assert_eq!(e.position(), None);
        assert_eq!(e.render("x"), "syntax error: bad number 1e");
    }
}
