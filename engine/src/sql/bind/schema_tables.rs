//! `information_schema.tables` and `information_schema.columns`: the
//! catalog's tables (see [`crate::catalog::Catalog::table_names`]) as
//! constant relations, queryable like any other (WHERE, joins, ...). The
//! columns are DuckDB's first ones, with its names and types; DuckDB's
//! catalog is `memory` and its schema `main`, as for an in-memory DuckDB.

use super::Binder;
use crate::error::{invalid, Result};
use crate::expr::TExpr;
use crate::plan::{Column, LogicalPlan};
use crate::sql::table_ref::TableRef;
use crate::value::{LType, Value};

fn text(s: impl Into<String>) -> TExpr {
    TExpr::lit(Value::Str(s.into().into_bytes()), LType::Varchar)
}

fn null_text() -> TExpr {
    TExpr::lit(Value::Null, LType::Varchar)
}

/// The columns of a table: (name, type, nullable), through the catalog.
pub(crate) fn table_columns(binder: &Binder<'_>, name: &str) -> Result<Vec<(String, LType, bool)>> {
    let t = binder.catalog.open(&TableRef::Named(name.to_string()))?;
    Ok(t.schema()
        .fields
        .iter()
        .map(|f| (f.name.clone(), LType::from_storage(f.data_type), f.nullable))
        .collect())
}

impl Binder<'_> {
    /// `information_schema.<name>` as a constant relation.
    pub(crate) fn information_schema(
        &self,
        name: &str,
        alias: Option<String>,
    ) -> Result<LogicalPlan> {
        let names = self.catalog.table_names()?;
        let (cols, rows): (Vec<(&str, LType)>, Vec<Vec<TExpr>>) = match name
            .to_ascii_lowercase()
            .as_str()
        {
            "tables" => (
                vec![
                    ("table_catalog", LType::Varchar),
                    ("table_schema", LType::Varchar),
                    ("table_name", LType::Varchar),
                    ("table_type", LType::Varchar),
                ],
                names
                    .iter()
                    .map(|n| {
                        vec![
                            text("memory"),
                            text("main"),
                            text(n.clone()),
                            text("BASE TABLE"),
                        ]
                    })
                    .collect(),
            ),
            "columns" => {
                let mut rows = Vec::new();
                for n in &names {
                    for (i, (c, ty, nullable)) in table_columns(self, n)?.into_iter().enumerate() {
                        rows.push(vec![
                            text("memory"),
                            text("main"),
                            text(n.clone()),
                            text(c),
                            TExpr::lit(Value::Int(i as i64 + 1), LType::Int32),
                            null_text(),
                            text(if nullable { "YES" } else { "NO" }),
                            text(ty.name()),
                        ]);
                    }
                }
                (
                    vec![
                        ("table_catalog", LType::Varchar),
                        ("table_schema", LType::Varchar),
                        ("table_name", LType::Varchar),
                        ("column_name", LType::Varchar),
                        ("ordinal_position", LType::Int32),
                        ("column_default", LType::Varchar),
                        ("is_nullable", LType::Varchar),
                        ("data_type", LType::Varchar),
                    ],
                    rows,
                )
            }
            other => {
                return invalid(format!(
                    "information_schema.{other} is not there (tables and columns are)"
                ))
            }
        };
        let q = alias.unwrap_or_else(|| name.to_ascii_lowercase());
        Ok(LogicalPlan::Values {
            rows,
            columns: cols
                .into_iter()
                .map(|(n, t)| Column {
                    qualifier: Some(q.clone()),
                    name: n.into(),
                    ty: t,
                })
                .collect(),
        })
    }
}
