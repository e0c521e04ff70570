//! The ingest crate's error type.
//!
//! [`IngestError`] keeps apart the user's mistakes in the *input data* (a bad
//! row: [`RowError`], with file, line, column and value), mistakes in the
//! *request* (a bad `CREATE TABLE`, bad options), *unsupported* input,
//! I/O failures, and errors from the table writer.

use std::fmt;
use std::path::PathBuf;

use strata_format::FormatError;

/// Where a bad row was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// 1-based line of a text file where the record starts.
    Line(u64),
    /// 1-based row of a Parquet file.
    Row(u64),
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Line(n) => write!(f, "line {n}"),
            Position::Row(n) => write!(f, "row {n}"),
        }
    }
}

/// One malformed input row: a wrong field count, broken quoting, a value that
/// does not parse as its column's type, or a NULL in a NOT NULL column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    /// The input file (`<stdin>` for standard input).
    pub file: String,
    /// Line (text) or row (Parquet) of the bad record.
    pub position: Position,
    /// The column concerned, when the error is about one value.
    pub column: Option<String>,
    /// The offending value (lossily decoded, shortened to 120 bytes), if any.
    pub value: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// Longest value shown in an error message, in bytes.
const MAX_SHOWN_VALUE: usize = 120;

impl RowError {
    /// Shows raw input bytes in an error message: lossy UTF-8, shortened.
    pub fn show_value(raw: &[u8]) -> String {
        if raw.len() > MAX_SHOWN_VALUE {
            format!(
                "{}... ({} bytes)",
                String::from_utf8_lossy(&raw[..MAX_SHOWN_VALUE]),
                raw.len()
            )
        } else {
            String::from_utf8_lossy(raw).into_owned()
        }
    }
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, {}", self.file, self.position)?;
        if let Some(c) = &self.column {
            write!(f, ", column {c}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(v) = &self.value {
            write!(f, " (value {v:?})")?;
        }
        Ok(())
    }
}

/// Everything that can make an ingest fail.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// A malformed input row (and `--max-errors` was 0).
    #[error("bad input: {0}")]
    BadRow(Box<RowError>),
    /// More malformed rows than `--max-errors` allows.
    #[error("{count} bad rows, more than --max-errors {max}; the first: {}", list_errors(.first))]
    TooManyBadRows {
        /// The allowed number of bad rows.
        max: u64,
        /// Bad rows seen before stopping (`max + 1`).
        count: u64,
        /// The first few of them.
        first: Vec<RowError>,
    },
    /// The `CREATE TABLE` statement is invalid or uses a type strata lacks.
    #[error("schema: {0}")]
    Schema(String),
    /// The input uses something this reader does not support (named).
    #[error("unsupported input: {0}")]
    Unsupported(String),
    /// The request itself is wrong (options, no inputs, a glob matching nothing).
    #[error("{0}")]
    Usage(String),
    /// Reading an input failed.
    #[error("reading {}: {source}", .path.display())]
    Io {
        /// The input (`-` for standard input).
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The sort's temporary runs could not be written or read back (a full
    /// disk, ...).
    #[error("sorting the rows: {action} {}: {error}; the sort needs free space beside the table for about the data's size", .path.display())]
    Spill {
        /// What failed: `creating`, `writing` or `reading`.
        action: &'static str,
        /// The run file or directory.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// A Parquet file could not be decoded.
    #[error("reading Parquet file {}: {message}", .path.display())]
    Parquet {
        /// The file.
        path: PathBuf,
        /// What the Parquet reader reported.
        message: String,
    },
    /// The table writer failed (disk full, table already exists, ...).
    #[error(transparent)]
    Format(#[from] FormatError),
    /// [`crate::IngestOptions::cancel`] was set: the ingest stopped and
    /// removed what it wrote.
    #[error("interrupted")]
    Interrupted,
    /// A bug in this crate.
    #[error("internal error: {0}")]
    Internal(String),
}

fn list_errors(errors: &[RowError]) -> String {
    errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

impl IngestError {
    /// An I/O error about `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> IngestError {
        IngestError::Io {
            path: path.into(),
            source,
        }
    }

    /// True for errors caused by the input data or the request (as opposed to
    /// I/O failures, the writer or bugs).
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            IngestError::BadRow(_)
                | IngestError::TooManyBadRows { .. }
                | IngestError::Schema(_)
                | IngestError::Unsupported(_)
                | IngestError::Usage(_)
        )
    }
}

/// Shorthand for results in this crate.
pub type Result<T, E = IngestError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_error_names_file_line_column_and_value() {
        let e = RowError {
            file: "a.csv".into(),
            position: Position::Line(7),
            column: Some("age".into()),
            value: Some("x1".into()),
            message: "not a valid SMALLINT".into(),
        };
        assert_eq!(
            e.to_string(),
            "a.csv, line 7, column age: not a valid SMALLINT (value \"x1\")"
        );
    }

    #[test]
    fn long_values_are_shortened() {
        let v = RowError::show_value(&[b'a'; 500]);
        assert!(v.len() < 200, "{v}");
        assert!(v.ends_with("(500 bytes)"));
    }
}
