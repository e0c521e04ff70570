//! `first_rows`: a query of a table's first rows (`SELECT <columns or *>
//! FROM <one table or file> [WHERE ...] LIMIT n [OFFSET m]`, no grouping,
//! ordering or DISTINCT) tries the table's first rows before the whole
//! table. A catalog that loads files on demand can then read just the
//! start of a file (see [`crate::Catalog::open_head`]).
//!
//! This rule runs before binding, on the query's syntax: it decides how the
//! table is opened.
//!
//! Sound: blocks are read in order and, without ORDER BY, the answer is
//! the first matching rows in table order. Without WHERE the first
//! `n + m` rows are the answer. With WHERE, when the first rows hold `n`
//! matches those are the answer; when they hold fewer and the file has
//! more rows, the query runs again over the whole table.

use sqlparser::ast as sql;

use super::Check;
use crate::sql::table_ref::first_rows;

/// The rule's name.
pub const NAME: &str = "first_rows";

/// Rows of a table's start a filtered query of its first rows tries
/// before the whole table: one default block.
pub const FIRST_ROWS_TRIED: u64 = strata_format::DEFAULT_BLOCK_ROWS as u64;

/// What the rule decided for a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstRowsPlan {
    /// Rows of the table to open.
    pub rows: u64,
    /// The LIMIT: with a filter, fewer matching rows than this (from a
    /// table that had more rows) means the whole table must be read.
    pub limit: u64,
    /// Whether a WHERE picks the rows (else the head is the answer).
    pub filtered: bool,
}

/// Whether the rule applies to the query, and how many rows it opens.
pub fn check(q: &sql::Query) -> (Check, Option<FirstRowsPlan>) {
    match first_rows(q) {
        None => (Check::NotApplicable, None),
        Some(f) => {
            let Some(wanted) = f.limit.checked_add(f.offset) else {
                return (Check::no("LIMIT + OFFSET overflows"), None);
            };
            let rows = if f.filtered {
                wanted.max(FIRST_ROWS_TRIED)
            } else {
                wanted
            };
            (
                Check::Applies,
                Some(FirstRowsPlan {
                    rows,
                    limit: f.limit,
                    filtered: f.filtered,
                }),
            )
        }
    }
}
