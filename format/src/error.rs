//! The format crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong writing or reading a strata table.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// An operating-system I/O error, with the path it concerned.
    #[error("{op} {path}: {source}")]
    Io {
        /// What was being done (for example "writing").
        op: &'static str,
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A file's bytes are not what the format allows: damaged, truncated or
    /// not a strata file.
    #[error("corrupt table file {path}, {section}: {detail}")]
    Corrupt {
        /// The damaged file.
        path: PathBuf,
        /// The section of the file (for example "block 3, column URL, rows").
        section: String,
        /// What was wrong.
        detail: String,
    },
    /// The file was written by a format version this reader does not know.
    #[error(
        "{path} has format version {found}; this build reads versions {} to {supported}",
        crate::layout::OLDEST_READABLE_VERSION
    )]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version found in the file.
        found: u32,
        /// The newest version this build reads (it reads every version from
        /// [`crate::layout::OLDEST_READABLE_VERSION`] on).
        supported: u32,
    },
    /// A schema that cannot be stored (duplicate names, bad parameters).
    #[error("invalid schema: {0}")]
    InvalidSchema(String),
    /// Data handed to the writer does not fit the schema or the format's limits.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// The table directory does not exist or holds no manifest.
    #[error("{0} is not a strata table (no MANIFEST file)")]
    NotATable(PathBuf),
    /// The writer was asked to create a table where something already exists.
    #[error("{0} already exists")]
    AlreadyExists(PathBuf),
}

/// Shorthand for results in this crate.
pub type Result<T, E = FormatError> = std::result::Result<T, E>;

impl FormatError {
    /// An I/O error about `path`.
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> FormatError {
        FormatError::Io {
            op,
            path: path.into(),
            source,
        }
    }

    /// A corruption error.
    pub fn corrupt(
        path: impl Into<PathBuf>,
        section: impl Into<String>,
        detail: impl Into<String>,
    ) -> FormatError {
        FormatError::Corrupt {
            path: path.into(),
            section: section.into(),
            detail: detail.into(),
        }
    }
}
