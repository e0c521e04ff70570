//! strata: a serverless columnar analytics engine.
//!
//! The library opens tables written by `strata ingest` and answers SQL over them
//! straight from memory-mapped files.

pub use strata_format as format;
