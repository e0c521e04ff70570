//! FROM items: stored tables and files (through the catalog), table
//! functions, CTE references, subqueries and VALUES lists, each with an
//! optional alias `AS t(a, b)` naming the relation and its columns.

use sqlparser::ast as sql;

use super::query::{dedup_names, rename_columns};
use super::Binder;
use crate::error::{unsupported, Result};
use crate::plan::{Column, LogicalPlan, TableQuery};
use crate::sql::table_ref::{self, TableRef};

impl Binder<'_> {
    /// The relation of a FROM clause and its columns. No FROM reads one row
    /// of no columns (`SELECT 1 + 1`).
    pub(crate) fn bind_from(&mut self, from: &[sql::TableWithJoins]) -> Result<LogicalPlan> {
        match from {
            [] => Ok(LogicalPlan::Values {
                rows: vec![Vec::new()],
                columns: Vec::new(),
            }),
            [t] => {
                if !t.joins.is_empty() {
                    return unsupported("joins");
                }
                self.relation(&t.relation)
            }
            _ => unsupported("joins (several FROM items)"),
        }
    }

    fn relation(&mut self, factor: &sql::TableFactor) -> Result<LogicalPlan> {
        match factor {
            sql::TableFactor::Table {
                name, alias, args, ..
            } => {
                // An unquoted one-part name may be a CTE.
                if let ([part], None) = (name.0.as_slice(), args) {
                    if let Some(ident) = part.as_ident() {
                        if let Some((id, mut columns)) = self.cte(&ident.value) {
                            let mut q = ident.value.clone();
                            if let Some(a) = alias {
                                rename_columns(&mut columns, &a.columns, &q)?;
                                q = a.name.value.clone();
                            }
                            for c in &mut columns {
                                c.qualifier = Some(q.clone());
                            }
                            return Ok(LogicalPlan::CteRef {
                                id,
                                name: ident.value.clone(),
                                columns,
                            });
                        }
                    }
                }
                let tref = table_ref::from_factor(factor)?;
                let head = self.head;
                let table = self.open(&tref, head)?;
                let name = tref.to_string();
                let qualifier = match alias {
                    Some(a) => Some(a.name.value.clone()),
                    None => Some(default_qualifier(&tref)),
                };
                let mut tq = TableQuery::scan(table, name, qualifier);
                if let Some(a) = alias {
                    let mut columns = tq.columns();
                    rename_columns(&mut columns, &a.columns, &a.name.value)?;
                    for (s, c) in tq.select.iter_mut().zip(columns) {
                        s.0 = c.name;
                    }
                }
                Ok(LogicalPlan::TableQuery(Box::new(tq)))
            }
            sql::TableFactor::Derived {
                lateral,
                subquery,
                alias,
                sample,
            } => {
                if sample.is_some() {
                    return unsupported("TABLESAMPLE");
                }
                if *lateral {
                    return unsupported("LATERAL subqueries");
                }
                let plan = self.nested(|b| b.bind_query(subquery))?;
                let mut columns = plan.columns();
                dedup_names(&mut columns);
                let qualifier = alias.as_ref().map(|a| a.name.value.clone());
                if let Some(a) = alias {
                    rename_columns(&mut columns, &a.columns, &a.name.value)?;
                }
                Ok(requalify(plan, columns, qualifier))
            }
            sql::TableFactor::NestedJoin { .. } => unsupported("joins"),
            sql::TableFactor::UNNEST { .. } => unsupported("UNNEST"),
            sql::TableFactor::Pivot { .. } | sql::TableFactor::Unpivot { .. } => {
                unsupported("PIVOT / UNPIVOT")
            }
            other => unsupported(format!("FROM item {other}")),
        }
    }
}

/// The qualifier of a table without alias: its name (a path's file name
/// without extension, as DuckDB names `'data/x.csv'` `x`), or the table
/// function's name.
fn default_qualifier(t: &TableRef) -> String {
    match t {
        TableRef::Named(n) => {
            let file = n.rsplit(['/', '\\']).next().unwrap_or(n);
            let stem = file.split('.').next().unwrap_or(file);
            if stem.is_empty() {
                n.clone()
            } else {
                stem.to_string()
            }
        }
        TableRef::Function { name, .. } => name.clone(),
    }
}

/// `plan` whose output is named `columns` under `qualifier`: a projection
/// of its columns under the new names.
pub(crate) fn requalify(
    plan: LogicalPlan,
    mut columns: Vec<Column>,
    qualifier: Option<String>,
) -> LogicalPlan {
    for c in &mut columns {
        c.qualifier = qualifier.clone();
    }
    let exprs = columns
        .iter()
        .enumerate()
        .map(|(i, c)| crate::expr::TExpr {
            kind: crate::expr::ExprKind::Col(i),
            ty: c.ty,
        })
        .collect();
    LogicalPlan::Project {
        input: plan.boxed(),
        exprs,
        columns,
    }
}
