//! strata's errors as Python exceptions: every error is raised as a subclass
//! of `strata.Error` (defined in `strata/_exceptions.py`, the DB-API 2.0
//! hierarchy plus one class per kind of strata error), carrying strata's
//! message.

use std::io;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyType;
use strata::engine::EngineError;
use strata::format::FormatError;
use strata::SourceError;
use strata_ingest::IngestError;

/// An exception of class `class` (a name in `strata._exceptions`) with
/// message `message`.
pub fn raise(py: Python<'_>, class: &str, message: String) -> PyErr {
    let class = py
        .import("strata._exceptions")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.cast_into::<PyType>().map_err(PyErr::from));
    match class {
        Ok(class) => PyErr::from_type(class, message),
        // The package is installed without its Python half: still an error.
        Err(_) => PyRuntimeError::new_err(message),
    }
}

/// The exception class of a query error.
fn query_class(e: &strata::Error) -> &'static str {
    match e {
        strata::Error::Syntax { .. } => "ParserError",
        strata::Error::Query(q) => engine_class(q),
        strata::Error::Data(f) => format_class(f),
        strata::Error::Interrupted => "InterruptError",
        strata::Error::Source(s) => source_class(s),
        strata::Error::Io { source, .. } => io_class(source),
        strata::Error::Partial(_) => "InvalidInputError",
        _ => "DatabaseError",
    }
}

fn engine_class(e: &EngineError) -> &'static str {
    match e {
        EngineError::Syntax(_) => "ParserError",
        EngineError::NotFound { .. } => "NotFoundError",
        EngineError::Invalid(_) => "InvalidInputError",
        EngineError::Runtime(_) => "DataError",
        EngineError::Unsupported(_) => "NotSupportedError",
        EngineError::NotSplittable(_) => "CannotSplitError",
        EngineError::TooLarge(_) => "OutOfMemoryError",
        EngineError::Format(f) => format_class(f),
        EngineError::Interrupted => "InterruptError",
        EngineError::Source(_) => "StorageError",
        EngineError::Internal(_) => "InternalError",
        #[allow(unreachable_patterns)]
        _ => "DatabaseError",
    }
}

fn format_class(e: &FormatError) -> &'static str {
    match e {
        FormatError::Io { source, .. } => io_class(source),
        FormatError::Corrupt { .. } => "CorruptDataError",
        FormatError::UnsupportedVersion { .. } => "NotSupportedError",
        FormatError::InvalidSchema(_) | FormatError::InvalidInput(_) => "InvalidInputError",
        FormatError::NotATable(_) => "NotFoundError",
        FormatError::AlreadyExists(_) => "InvalidInputError",
        #[allow(unreachable_patterns)]
        _ => "DatabaseError",
    }
}

fn source_class(e: &SourceError) -> &'static str {
    match e {
        SourceError::Io { source, .. } => io_class(source),
        SourceError::Ingest { source, .. } => ingest_class(source),
        _ => "StorageError",
    }
}

/// The exception class of an ingest error.
pub fn ingest_class(e: &IngestError) -> &'static str {
    match e {
        IngestError::BadRow(_) | IngestError::TooManyBadRows { .. } => "DataError",
        IngestError::Schema(_) | IngestError::Usage(_) => "InvalidInputError",
        IngestError::Unsupported(_) => "NotSupportedError",
        IngestError::Io { source, .. } => io_class(source),
        IngestError::Spill { .. } => "StorageError",
        IngestError::Parquet { .. } => "CorruptDataError",
        IngestError::Format(f) => format_class(f),
        IngestError::Interrupted => "InterruptError",
        IngestError::Internal(_) => "InternalError",
        #[allow(unreachable_patterns)]
        _ => "DatabaseError",
    }
}

fn io_class(e: &io::Error) -> &'static str {
    match e.kind() {
        io::ErrorKind::NotFound => "NotFoundError",
        _ => "StorageError",
    }
}

/// A library error as a Python exception; syntax errors point at the
/// offending place in `sql`.
pub fn query_error(py: Python<'_>, e: &strata::Error, sql: &str) -> PyErr {
    raise(py, query_class(e), e.render(sql))
}

/// An ingest error as a Python exception.
pub fn ingest_error(py: Python<'_>, e: &IngestError) -> PyErr {
    raise(py, ingest_class(e), e.to_string())
}
