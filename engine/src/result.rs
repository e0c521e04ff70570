//! Query results: named, typed columns with NULLs.

use crate::value::{format_value, LType, Value, Vector};

/// One result column.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultColumn {
    /// The column's name (its alias or expression text).
    pub name: String,
    /// Its type (DuckDB's result types).
    pub ty: LType,
    /// Its values.
    pub values: Vector,
}

/// The result of a query.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QueryResult {
    /// The columns, in select-list order.
    pub columns: Vec<ResultColumn>,
}

impl QueryResult {
    /// Number of rows.
    pub fn num_rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.values.len())
    }

    /// The value in row `row` of column `col`.
    pub fn value(&self, row: usize, col: usize) -> Value {
        self.columns[col].values.get(row)
    }

    /// Row `row`'s values formatted as DuckDB prints them.
    pub fn row_strings(&self, row: usize) -> Vec<String> {
        self.columns
            .iter()
            .map(|c| format_value(c.ty, &c.values.get(row)))
            .collect()
    }
}

impl std::fmt::Display for QueryResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.columns.iter().map(|c| c.name.as_str()).collect();
        writeln!(f, "{}", names.join("\t"))?;
        for r in 0..self.num_rows() {
            writeln!(f, "{}", self.row_strings(r).join("\t"))?;
        }
        Ok(())
    }
}
