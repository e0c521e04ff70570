//! Binding: one parsed query (sqlparser's AST) to a typed logical plan.
//!
//! Names resolve against the columns of each SELECT's FROM clause (tables
//! opened through the [`Catalog`], subqueries, CTEs, VALUES), types are
//! checked and coerced the way DuckDB does, constants are folded. The
//! binder builds the plain shape of each clause (see [`crate::plan`]); the
//! rules of [`crate::rewrite`] decide what the table engine answers.
//!
//! - [`query`]: WITH, set operations, VALUES, the query-level ORDER BY
//!   and LIMIT;
//! - [`select`]: one SELECT: WHERE, GROUP BY, HAVING, the select list,
//!   DISTINCT, ORDER BY;
//! - [`from`]: FROM items; [`star`]: `*`, `EXCLUDE`, `REPLACE`, `COLUMNS`;
//! - [`window`]: window function calls, named windows, frames;
//! - [`expr`], [`function`], [`aggregate`]: expressions; [`coerce`] and
//!   [`literal`]: types; [`scope`]: name resolution.

pub mod agg_call;
pub mod aggregate;
pub mod coerce;
pub mod expr;
pub mod from;
pub mod function;
pub mod grouping_sets;
pub mod literal;
pub mod never_true;
pub mod null_test;
pub mod query;
pub mod scalar_fns;
pub mod schema_tables;
pub mod scope;
pub mod select;
pub mod star;
pub mod subquery;
pub mod window;

use std::cell::{Cell, RefCell};

use sqlparser::ast as sql;
use strata_format::Table;

use crate::catalog::Catalog;
use crate::error::{invalid, Result};
use crate::plan::{Column, Cte, LogicalPlan, Query};
use crate::sql::table_ref::{ColumnWords, TableRef};
use scope::Scope;

pub use coerce::cast_to;
pub use expr::MAX_EXPR_DEPTH;

/// Subqueries nested deeper than this are refused.
pub const MAX_QUERY_DEPTH: usize = 64;

/// A CTE name visible to the query being bound.
#[derive(Debug, Clone)]
struct CteBinding {
    name: String,
    id: usize,
    columns: Vec<Column>,
}

/// An enclosing query's scope, seen by a subquery being bound, and the
/// columns of it the subquery refers to.
#[derive(Debug, Clone)]
pub(crate) struct OuterFrame {
    /// The enclosing query's columns.
    pub scope: Scope,
    /// The positions in `scope` referred to, in order of first reference
    /// (`ExprKind::Outer(i)` is the `i`-th).
    pub refs: Vec<usize>,
}

/// What binding a query changes as it goes.
#[derive(Default)]
struct State {
    ctes: Vec<Cte>,
    visible: Vec<CteBinding>,
    opened: Vec<(TableRef, Option<u64>, Table)>,
    heads_used: Vec<(Table, u64)>,
}

/// How the binder opens tables: through a catalog, with the words that may
/// name columns (so a catalog loading files on demand loads only those),
/// and optionally just the first rows of the top-level query's table.
pub struct Binder<'c> {
    catalog: &'c dyn Catalog,
    words: ColumnWords<'c>,
    head: Cell<Option<u64>>,
    state: RefCell<State>,
    depth: Cell<usize>,
    /// The scopes of the queries enclosing the one being bound, innermost
    /// last.
    pub(crate) outer: RefCell<Vec<OuterFrame>>,
}

impl<'c> Binder<'c> {
    /// A binder opening tables through `catalog`. `words` are the words of
    /// the query that may name columns.
    pub fn new(catalog: &'c dyn Catalog, words: ColumnWords<'c>) -> Binder<'c> {
        Binder {
            catalog,
            words,
            head: Cell::new(None),
            state: RefCell::default(),
            depth: Cell::new(0),
            outer: RefCell::default(),
        }
    }

    /// Opens the top-level query's table with only its first `rows` rows
    /// where the catalog can (see [`Catalog::open_head`]).
    pub fn with_head(self, rows: Option<u64>) -> Binder<'c> {
        self.head.set(rows);
        self
    }

    /// Binds a whole query; also returns the tables opened with only their
    /// first rows, and how many rows were asked for.
    pub fn bind(self, q: &sql::Query) -> Result<(Query, Vec<(Table, u64)>)> {
        let root = self.bind_query(q)?;
        let state = self.state.into_inner();
        Ok((
            Query {
                root,
                ctes: state.ctes,
            },
            state.heads_used,
        ))
    }

    /// Adds a CTE to the query, returning its number.
    fn add_cte(&self, name: &str, plan: LogicalPlan) -> usize {
        let mut st = self.state.borrow_mut();
        let id = st.ctes.len();
        st.ctes.push(Cte {
            id,
            name: name.to_string(),
            plan,
        });
        id
    }

    /// Registers `plan` as a CTE of the query (computed once however
    /// often it is referred to) and returns a reference to it.
    pub(crate) fn share(&self, plan: LogicalPlan, name: &str) -> LogicalPlan {
        let columns = plan.columns();
        let id = self.add_cte(name, plan);
        LogicalPlan::CteRef {
            id,
            name: name.to_string(),
            columns,
        }
    }

    /// Opens a table (once per query for each reference and head size).
    fn open(&self, table: &TableRef, head: Option<u64>) -> Result<Table> {
        if let Some((_, _, t)) = self
            .state
            .borrow()
            .opened
            .iter()
            .find(|(r, h, _)| r == table && *h == head)
        {
            return Ok(t.clone());
        }
        let words = &self.words;
        let t = match head {
            Some(rows) => match self.catalog.open_head(table, words, rows)? {
                Some(t) => {
                    self.state.borrow_mut().heads_used.push((t.clone(), rows));
                    t
                }
                None => self.catalog.open_for(table, words)?,
            },
            None => self.catalog.open_for(table, words)?,
        };
        self.state
            .borrow_mut()
            .opened
            .push((table.clone(), head, t.clone()));
        Ok(t)
    }

    /// Runs `f` one subquery level deeper.
    fn nested<T>(&self, f: impl FnOnce(&Self) -> Result<T>) -> Result<T> {
        if self.depth.get() >= MAX_QUERY_DEPTH {
            return invalid(format!(
                "subqueries nested too deeply (more than {MAX_QUERY_DEPTH} levels)"
            ));
        }
        self.depth.set(self.depth.get() + 1);
        let head = self.head.take();
        let r = f(self);
        self.depth.set(self.depth.get() - 1);
        self.head.set(head);
        r
    }
}
