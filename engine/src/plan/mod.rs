//! The logical plan: a tree of relational operators the binder builds from
//! one parse of the SQL text, the rewrite rules transform, and the executor
//! runs.
//!
//! Every node produces rows with the columns [`LogicalPlan::columns`] names.
//! Expressions ([`TExpr`]) in a node refer to its input's columns by
//! position (`Col(i)`); the one exception is the fused [`TableQuery`] leaf,
//! whose expressions after aggregation refer to its own group slots
//! (`Ref(i)`), as the sorted-vector engine evaluates them.
//!
//! ```text
//! Limit ── Project ── Sort ── Filter (HAVING) ── Aggregate ── Filter (WHERE) ── TableQuery
//! ```
//! is the shape a plain `SELECT` binds to; the rules then fold as much of it
//! as they can into the [`TableQuery`], which the format answers directly.

pub mod display;
pub mod split;
pub mod stats;
pub mod table_query;
pub mod window;

use crate::agg::func::AggCall;
use crate::expr::TExpr;
use crate::value::LType;

pub use table_query::{Strategies, TableQuery};
pub use window::WindowCall;

/// One output column of a plan node.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The relation alias it may be qualified with (`t` in `t.a`).
    pub qualifier: Option<String>,
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: LType,
}

impl Column {
    /// An unqualified column.
    pub fn new(name: impl Into<String>, ty: LType) -> Column {
        Column {
            qualifier: None,
            name: name.into(),
            ty,
        }
    }
}

/// One ORDER BY key.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderKey {
    /// The expression (over the input's columns; over slots inside a
    /// [`TableQuery`] with aggregation).
    pub expr: TExpr,
    /// Descending.
    pub desc: bool,
    /// NULLs first (DuckDB's default is NULLS LAST in both directions).
    pub nulls_first: bool,
}

/// Set operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOpKind {
    /// `UNION`
    Union,
    /// `INTERSECT`
    Intersect,
    /// `EXCEPT`
    Except,
}

impl SetOpKind {
    /// The SQL keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            SetOpKind::Union => "UNION",
            SetOpKind::Intersect => "INTERSECT",
            SetOpKind::Except => "EXCEPT",
        }
    }
}

/// How a join combines its inputs' rows. The keys compare with SQL's `=`
/// (a NULL key matches nothing) unless the join says otherwise.
#[derive(Debug, Clone, PartialEq)]
pub enum JoinKind {
    /// Pairs that match.
    Inner,
    /// Pairs that match, and each unmatched left row with NULLs.
    Left,
    /// Pairs that match, and each unmatched right row with NULLs.
    Right,
    /// Pairs that match, and every unmatched row of either side.
    Full,
    /// Left rows with a match (left columns only).
    Semi,
    /// Left rows without a match (left columns only).
    Anti,
    /// `NOT IN`'s left rows: those whose last key matches no right row,
    /// where neither that key nor any right row's (among those matching
    /// the other keys) is NULL; all left rows when the right is empty.
    AntiNullAware,
    /// Every left row, with a BOOLEAN column: whether it has a match
    /// (`EXISTS`); with `null_aware` (`IN`), NULL instead of false when the
    /// last key is NULL on the left, or on a right row matching the others.
    Mark {
        /// `IN`'s NULL rules for the last key.
        null_aware: bool,
    },
    /// Every left row with the columns of its one match (a scalar
    /// subquery): more than one match is an error; without a match, the
    /// right columns are `default` (NULLs when `None`).
    Single {
        /// The right columns of an unmatched left row.
        default: Option<Vec<crate::value::Value>>,
    },
}

impl JoinKind {
    /// Whether the output has the right input's columns (else only the
    /// left's, plus a mark column for [`JoinKind::Mark`]).
    pub fn has_right_columns(&self) -> bool {
        matches!(
            self,
            JoinKind::Inner
                | JoinKind::Left
                | JoinKind::Right
                | JoinKind::Full
                | JoinKind::Single { .. }
        )
    }

    /// Its name in EXPLAIN.
    pub fn name(&self) -> &'static str {
        match self {
            JoinKind::Inner => "INNER",
            JoinKind::Left => "LEFT",
            JoinKind::Right => "RIGHT",
            JoinKind::Full => "FULL",
            JoinKind::Semi => "SEMI",
            JoinKind::Anti => "ANTI",
            JoinKind::AntiNullAware => "ANTI (NOT IN)",
            JoinKind::Mark { null_aware: false } => "MARK (EXISTS)",
            JoinKind::Mark { null_aware: true } => "MARK (IN)",
            JoinKind::Single { .. } => "SINGLE (scalar subquery)",
        }
    }
}

/// A common table expression's body, computed once however often the
/// query refers to it.
#[derive(Debug, Clone)]
pub struct Cte {
    /// Its number within the query (what [`LogicalPlan::CteRef`] names).
    pub id: usize,
    /// Its name as written.
    pub name: String,
    /// Its plan.
    pub plan: LogicalPlan,
}

/// A bound query: the root plan and the CTEs it refers to.
#[derive(Debug, Clone)]
pub struct Query {
    /// The plan producing the result.
    pub root: LogicalPlan,
    /// Every CTE of the query (including those of nested `WITH`s), by id.
    pub ctes: Vec<Cte>,
}

/// A node of the logical plan.
#[derive(Debug, Clone)]
pub enum LogicalPlan {
    /// What the sorted-vector table engine answers in one pass over a
    /// stored table: a scan, with whatever filter, aggregation, order,
    /// limit and projection the rules pushed into it.
    TableQuery(Box<TableQuery>),
    /// Rows for which `predicate` is true.
    Filter {
        /// The input.
        input: Box<LogicalPlan>,
        /// A BOOLEAN expression over the input's columns.
        predicate: TExpr,
    },
    /// One output column per expression.
    Project {
        /// The input.
        input: Box<LogicalPlan>,
        /// The expressions, over the input's columns.
        exprs: Vec<TExpr>,
        /// The output columns (names and types).
        columns: Vec<Column>,
    },
    /// Groups by `keys`; outputs the keys, then the aggregates.
    Aggregate {
        /// The input.
        input: Box<LogicalPlan>,
        /// Group keys over the input's columns (none: one group).
        keys: Vec<TExpr>,
        /// Aggregate calls with arguments over the input's columns.
        aggs: Vec<AggCall>,
        /// The output columns: keys, then aggregates.
        columns: Vec<Column>,
    },
    /// The input's distinct rows (`SELECT DISTINCT`), NULLs equal to each
    /// other.
    Distinct {
        /// The input.
        input: Box<LogicalPlan>,
    },
    /// The first row of each group of equal `on` values, in `order`
    /// (`SELECT DISTINCT ON`); the input's columns.
    DistinctOn {
        /// The input.
        input: Box<LogicalPlan>,
        /// The columns whose values form a group.
        on: Vec<TExpr>,
        /// Which row of a group is first.
        order: Vec<OrderKey>,
    },
    /// Rows in order (ties in any order).
    Sort {
        /// The input.
        input: Box<LogicalPlan>,
        /// The keys, over the input's columns.
        keys: Vec<OrderKey>,
    },
    /// At most `limit` rows after skipping `offset`.
    Limit {
        /// The input.
        input: Box<LogicalPlan>,
        /// `None`: no limit.
        limit: Option<u64>,
        /// Rows skipped.
        offset: u64,
    },
    /// `UNION`, `INTERSECT` or `EXCEPT`, with or without `ALL`; both inputs
    /// already have the output's column types.
    SetOp {
        /// Which operation.
        kind: SetOpKind,
        /// `ALL`: keep duplicates (bag semantics).
        all: bool,
        /// The left input.
        left: Box<LogicalPlan>,
        /// The right input.
        right: Box<LogicalPlan>,
        /// The output columns (the left input's names, unified types).
        columns: Vec<Column>,
    },
    /// Constant rows (`VALUES`, and `SELECT` without `FROM`, which reads
    /// one row of no columns).
    Values {
        /// The rows; each has one constant expression per column.
        rows: Vec<Vec<TExpr>>,
        /// The columns.
        columns: Vec<Column>,
    },
    /// Rows of both inputs combined: pairs whose `keys` are equal and for
    /// which `filter` holds, as `kind` says. Its columns are the left's,
    /// then the right's (see [`JoinKind::has_right_columns`]).
    Join {
        /// How rows combine.
        kind: JoinKind,
        /// The left input.
        left: Box<LogicalPlan>,
        /// The right input.
        right: Box<LogicalPlan>,
        /// Equality keys: an expression over the left's columns and one
        /// over the right's.
        keys: Vec<(TExpr, TExpr)>,
        /// A condition over the left's columns followed by the right's,
        /// tested on pairs whose keys match (ON's other conjuncts).
        filter: Option<TExpr>,
    },
    /// The partial results of the tasks a query was split into,
    /// concatenated (the leaf of a final or combine plan; see [`split`]).
    Partials {
        /// Their columns.
        columns: Vec<Column>,
        /// The rows.
        rows: std::sync::Arc<split::PartialRows>,
    },
    /// The input's rows and columns, plus one column per window function
    /// call (in order).
    Window {
        /// The input.
        input: Box<LogicalPlan>,
        /// The calls, over the input's columns.
        calls: Vec<WindowCall>,
    },
    /// The rows of CTE `id`.
    CteRef {
        /// The CTE's number in [`Query::ctes`].
        id: usize,
        /// Its name.
        name: String,
        /// Its columns as this reference names them.
        columns: Vec<Column>,
    },
}

impl LogicalPlan {
    /// The node's output columns.
    pub fn columns(&self) -> Vec<Column> {
        match self {
            LogicalPlan::TableQuery(t) => t.columns(),
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Sort { input, .. }
            | LogicalPlan::Limit { input, .. }
            | LogicalPlan::Distinct { input }
            | LogicalPlan::DistinctOn { input, .. } => input.columns(),
            LogicalPlan::Join {
                kind, left, right, ..
            } => {
                let mut c = left.columns();
                if kind.has_right_columns() {
                    c.extend(right.columns());
                } else if let JoinKind::Mark { .. } = kind {
                    c.push(Column::new("#mark", LType::Bool));
                }
                c
            }
            LogicalPlan::Window { input, calls } => {
                let mut c = input.columns();
                c.extend(calls.iter().map(|w| Column::new(w.name.clone(), w.ty)));
                c
            }
            LogicalPlan::Project { columns, .. }
            | LogicalPlan::Aggregate { columns, .. }
            | LogicalPlan::SetOp { columns, .. }
            | LogicalPlan::Values { columns, .. }
            | LogicalPlan::Partials { columns, .. }
            | LogicalPlan::CteRef { columns, .. } => columns.clone(),
        }
    }

    /// The output column types.
    pub fn types(&self) -> Vec<LType> {
        self.columns().into_iter().map(|c| c.ty).collect()
    }

    /// Whether an inner join is anywhere in the tree.
    #[recursive::recursive]
    pub fn contains_inner_join(&self) -> bool {
        matches!(
            self,
            LogicalPlan::Join {
                kind: JoinKind::Inner,
                ..
            }
        ) || self.inputs().iter().any(|p| p.contains_inner_join())
    }

    /// The node's inputs.
    pub fn inputs(&self) -> Vec<&LogicalPlan> {
        match self {
            LogicalPlan::TableQuery(_)
            | LogicalPlan::Values { .. }
            | LogicalPlan::Partials { .. }
            | LogicalPlan::CteRef { .. } => vec![],
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Project { input, .. }
            | LogicalPlan::Aggregate { input, .. }
            | LogicalPlan::Distinct { input }
            | LogicalPlan::DistinctOn { input, .. }
            | LogicalPlan::Sort { input, .. }
            | LogicalPlan::Window { input, .. }
            | LogicalPlan::Limit { input, .. } => vec![input],
            LogicalPlan::SetOp { left, right, .. } | LogicalPlan::Join { left, right, .. } => {
                vec![left, right]
            }
        }
    }

    /// The node's inputs, mutably.
    pub fn inputs_mut(&mut self) -> Vec<&mut LogicalPlan> {
        match self {
            LogicalPlan::TableQuery(_)
            | LogicalPlan::Values { .. }
            | LogicalPlan::Partials { .. }
            | LogicalPlan::CteRef { .. } => vec![],
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Project { input, .. }
            | LogicalPlan::Aggregate { input, .. }
            | LogicalPlan::Distinct { input }
            | LogicalPlan::DistinctOn { input, .. }
            | LogicalPlan::Sort { input, .. }
            | LogicalPlan::Window { input, .. }
            | LogicalPlan::Limit { input, .. } => vec![input],
            LogicalPlan::SetOp { left, right, .. } | LogicalPlan::Join { left, right, .. } => {
                vec![left, right]
            }
        }
    }

    /// The node's kind, as EXPLAIN names it.
    pub fn kind(&self) -> &'static str {
        match self {
            LogicalPlan::TableQuery(_) => "TableQuery",
            LogicalPlan::Filter { .. } => "Filter",
            LogicalPlan::Project { .. } => "Project",
            LogicalPlan::Aggregate { .. } => "Aggregate",
            LogicalPlan::Distinct { .. } => "Distinct",
            LogicalPlan::DistinctOn { .. } => "DistinctOn",
            LogicalPlan::Sort { .. } => "Sort",
            LogicalPlan::Limit { .. } => "Limit",
            LogicalPlan::SetOp { .. } => "SetOp",
            LogicalPlan::Join { .. } => "Join",
            LogicalPlan::Values { .. } => "Values",
            LogicalPlan::Partials { .. } => "Partials",
            LogicalPlan::Window { .. } => "Window",
            LogicalPlan::CteRef { .. } => "CteRef",
        }
    }

    /// The node in a box (for building parents).
    pub fn boxed(self) -> Box<LogicalPlan> {
        Box::new(self)
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
        .map(|(i, c)| TExpr {
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

/// Whether `e` reads columns only below `n` (`Some(true)`), only from `n`
/// on (`Some(false)`), or both or none (`None`).
fn side(e: &TExpr, n: usize) -> Option<bool> {
    let cols = e.columns();
    if cols.is_empty() {
        return None;
    }
    if cols.iter().all(|&c| c < n) {
        Some(true)
    } else if cols.iter().all(|&c| c >= n) {
        Some(false)
    } else {
        None
    }
}

/// Of conditions over a join's left columns (the first `nl`) then its
/// right ones: the equalities between a left expression and a right one,
/// as join keys (the right expression rebased on the right input), and the
/// rest. The binder typed both sides of an equality alike.
pub fn split_equi_keys(conds: Vec<TExpr>, nl: usize) -> (Vec<(TExpr, TExpr)>, Vec<TExpr>) {
    let mut keys = Vec::new();
    let mut rest = Vec::new();
    for c in conds {
        if let crate::expr::ExprKind::Cmp(crate::expr::CmpOp::Eq, a, b) = &c.kind {
            let pair = match (side(a, nl), side(b, nl)) {
                (Some(true), Some(false)) => Some(((**a).clone(), (**b).clone())),
                (Some(false), Some(true)) => Some(((**b).clone(), (**a).clone())),
                _ => None,
            };
            if let Some((l, r)) = pair {
                keys.push((l, r.map_columns(&|i| i - nl)));
                continue;
            }
        }
        rest.push(c);
    }
    (keys, rest)
}
