//! [`QueryResult`]: a query's columns with typed, columnar access and row
//! iteration.

use std::io::{self, Write};

use strata_engine::strs::Strs;
use strata_engine::value::{format_value, Data, Vector};
use strata_engine::{ResultColumn, Value};

use crate::output::{self, Format};
use crate::DataType;

/// The result of a query: named, typed columns of equal length.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QueryResult {
    inner: strata_engine::QueryResult,
}

impl QueryResult {
    /// Wraps an engine result.
    pub fn new(inner: strata_engine::QueryResult) -> QueryResult {
        QueryResult { inner }
    }

    /// Number of rows.
    pub fn num_rows(&self) -> usize {
        self.inner.num_rows()
    }

    /// Number of columns.
    pub fn num_columns(&self) -> usize {
        self.inner.columns.len()
    }

    /// Column names and types, in select-list order.
    pub fn schema(&self) -> Vec<(&str, DataType)> {
        self.inner
            .columns
            .iter()
            .map(|c| (c.name.as_str(), c.ty))
            .collect()
    }

    /// Column `i`.
    ///
    /// # Panics
    /// When `i >= num_columns()`; see [`QueryResult::get_column`].
    pub fn column(&self, i: usize) -> Column<'_> {
        Column(&self.inner.columns[i])
    }

    /// Column `i`, or `None` when out of range.
    pub fn get_column(&self, i: usize) -> Option<Column<'_>> {
        self.inner.columns.get(i).map(Column)
    }

    /// The first column named `name`.
    pub fn column_by_name(&self, name: &str) -> Option<Column<'_>> {
        self.inner
            .columns
            .iter()
            .find(|c| c.name == name)
            .map(Column)
    }

    /// All columns.
    pub fn columns(&self) -> impl ExactSizeIterator<Item = Column<'_>> {
        self.inner.columns.iter().map(Column)
    }

    /// The value in row `row` of column `col`.
    ///
    /// # Panics
    /// When either index is out of range.
    pub fn value(&self, row: usize, col: usize) -> Value {
        self.inner.value(row, col)
    }

    /// The rows, in order.
    pub fn rows(&self) -> Rows<'_> {
        Rows {
            result: self,
            next: 0,
        }
    }

    /// Writes the result in `format` (the `strata query --format` output).
    pub fn write(&self, format: Format, out: &mut dyn Write) -> io::Result<()> {
        output::write(&self.inner, format, out)
    }

    /// Writes the result as CSV with a header line (RFC 4180 quoting).
    pub fn write_csv(&self, out: &mut dyn Write) -> io::Result<()> {
        self.write(Format::Csv, out)
    }

    /// The engine's result.
    pub fn as_engine(&self) -> &strata_engine::QueryResult {
        &self.inner
    }

    /// Unwraps into the engine's result.
    pub fn into_engine(self) -> strata_engine::QueryResult {
        self.inner
    }
}

impl std::fmt::Display for QueryResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

/// One column of a [`QueryResult`].
#[derive(Debug, Clone, Copy)]
pub struct Column<'a>(&'a ResultColumn);

/// A column's values as a typed slice (by physical representation). A NULL's
/// slot holds an arbitrary value: check [`Column::is_null`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum ColumnValues<'a> {
    /// BOOLEAN.
    Bool(&'a [bool]),
    /// Signed integers up to BIGINT, unsigned up to UINTEGER, DATE (days
    /// since 1970-01-01), TIMESTAMP (microseconds since 1970-01-01 00:00:00) and
    /// DECIMALs of up to 18 digits (scaled).
    Int64(&'a [i64]),
    /// UBIGINT.
    UInt64(&'a [u64]),
    /// HUGEINT and wider DECIMALs (scaled).
    Int128(&'a [i128]),
    /// FLOAT and DOUBLE.
    Float64(&'a [f64]),
    /// VARCHAR, as bytes (normally UTF-8), stored back to back (`strs[i]` is
    /// row `i`'s).
    Bytes(&'a Strs),
}

impl<'a> Column<'a> {
    fn vector(&self) -> &'a Vector {
        &self.0.values
    }

    /// The column's name (its alias or expression text).
    pub fn name(&self) -> &'a str {
        &self.0.name
    }

    /// The column's type.
    pub fn data_type(&self) -> DataType {
        self.0.ty
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.vector().len()
    }

    /// True when the column has no rows.
    pub fn is_empty(&self) -> bool {
        self.vector().is_empty()
    }

    /// Whether row `i` is NULL.
    pub fn is_null(&self, i: usize) -> bool {
        self.vector().is_null(i)
    }

    /// The NULL flags (`true`: NULL), or `None` when no row is NULL.
    pub fn nulls(&self) -> Option<&'a [bool]> {
        self.vector().nulls.as_deref()
    }

    /// Number of NULLs.
    pub fn null_count(&self) -> usize {
        self.nulls().map_or(0, |n| n.iter().filter(|&&b| b).count())
    }

    /// All values as a typed slice.
    pub fn values(&self) -> ColumnValues<'a> {
        match &self.vector().data {
            Data::Bool(v) => ColumnValues::Bool(v),
            Data::I64(v) => ColumnValues::Int64(v),
            Data::U64(v) => ColumnValues::UInt64(v),
            Data::I128(v) => ColumnValues::Int128(v),
            Data::F64(v) => ColumnValues::Float64(v),
            Data::Str(v) => ColumnValues::Bytes(v),
        }
    }

    /// The values as `i64`s, if held so (see [`ColumnValues::Int64`]).
    pub fn as_i64(&self) -> Option<&'a [i64]> {
        match self.values() {
            ColumnValues::Int64(v) => Some(v),
            _ => None,
        }
    }

    /// The values as `u64`s, if the column is UBIGINT.
    pub fn as_u64(&self) -> Option<&'a [u64]> {
        match self.values() {
            ColumnValues::UInt64(v) => Some(v),
            _ => None,
        }
    }

    /// The values as `i128`s, if held so (HUGEINT, wide DECIMAL).
    pub fn as_i128(&self) -> Option<&'a [i128]> {
        match self.values() {
            ColumnValues::Int128(v) => Some(v),
            _ => None,
        }
    }

    /// The values as `f64`s, if the column is FLOAT or DOUBLE.
    pub fn as_f64(&self) -> Option<&'a [f64]> {
        match self.values() {
            ColumnValues::Float64(v) => Some(v),
            _ => None,
        }
    }

    /// The values as `bool`s, if the column is BOOLEAN.
    pub fn as_bool(&self) -> Option<&'a [bool]> {
        match self.values() {
            ColumnValues::Bool(v) => Some(v),
            _ => None,
        }
    }

    /// The values as byte strings, if the column is VARCHAR.
    pub fn as_bytes(&self) -> Option<&'a Strs> {
        match self.values() {
            ColumnValues::Bytes(v) => Some(v),
            _ => None,
        }
    }

    /// Row `i` of a VARCHAR column as text; `None` when NULL, not UTF-8 or
    /// not a VARCHAR column.
    pub fn str(&self, i: usize) -> Option<&'a str> {
        if self.is_null(i) {
            return None;
        }
        self.as_bytes()
            .and_then(|v| v.get(i))
            .and_then(|b| std::str::from_utf8(b).ok())
    }

    /// The value of row `i`.
    ///
    /// # Panics
    /// When `i >= len()`.
    pub fn get(&self, i: usize) -> Value {
        self.vector().get(i)
    }

    /// Row `i` formatted as the CLI prints it (`NULL` for NULL).
    pub fn format(&self, i: usize) -> String {
        format_value(self.0.ty, &self.get(i))
    }
}

/// An iterator over the rows of a [`QueryResult`].
#[derive(Debug, Clone)]
pub struct Rows<'a> {
    result: &'a QueryResult,
    next: usize,
}

impl<'a> Iterator for Rows<'a> {
    type Item = Row<'a>;

    fn next(&mut self) -> Option<Row<'a>> {
        (self.next < self.result.num_rows()).then(|| {
            self.next += 1;
            Row {
                result: self.result,
                index: self.next - 1,
            }
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.result.num_rows() - self.next;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Rows<'_> {}

/// One row of a [`QueryResult`].
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    result: &'a QueryResult,
    index: usize,
}

impl Row<'_> {
    /// The row's index in the result.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Number of values (columns).
    pub fn len(&self) -> usize {
        self.result.num_columns()
    }

    /// True when the result has no columns.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value in column `col`, or `None` when out of range.
    pub fn get(&self, col: usize) -> Option<Value> {
        self.result.get_column(col).map(|c| c.get(self.index))
    }

    /// All values, in column order.
    pub fn values(&self) -> Vec<Value> {
        self.result.columns().map(|c| c.get(self.index)).collect()
    }

    /// All values formatted as the CLI prints them.
    pub fn strings(&self) -> Vec<String> {
        self.result.inner.row_strings(self.index)
    }
}
