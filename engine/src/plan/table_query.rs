//! The plan's leaf: what the sorted-vector table engine answers in one pass
//! over a stored table's blocks.
//!
//! A `TableQuery` starts as a plain scan (every column, no filter) and the
//! rules of [`crate::rewrite`] push into it the filter, aggregation, HAVING,
//! ORDER BY, LIMIT and projection above it, then pick its [`Strategies`].
//! Its expressions refer to the table's columns (`Col`), and after
//! aggregation to its group slots (`Ref`: the keys, then the aggregates).

use strata_format::Table;

use crate::agg::func::Aggregation;
use crate::expr::{ExprKind, TExpr};
use crate::plan::{Column, OrderKey};
use crate::value::LType;

/// How the table engine narrows an aggregation with a LIMIT to the groups
/// it can return (a filter on key values, so kept groups are whole).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restriction {
    /// `GROUP BY ... LIMIT k` without ORDER BY: the groups of the first
    /// rows (rule `any_groups`).
    AnyGroups,
    /// `COUNT(DISTINCT)` only for the groups a first pass without it
    /// ranks in the top `k` (rule `distinct_survivors`).
    Survivors,
    /// `ORDER BY COUNT(*) DESC LIMIT k`: only key values whose counts can
    /// reach the `k`-th largest (rule `top_count`).
    TopCount,
}

impl Restriction {
    /// The rule's name.
    pub fn name(self) -> &'static str {
        match self {
            Restriction::AnyGroups => "any_groups",
            Restriction::Survivors => "distinct_survivors",
            Restriction::TopCount => "top_count",
        }
    }
}

/// The strategies the rules chose for a [`TableQuery`]. With none set, the
/// engine reads every block and runs the general path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Strategies {
    /// Skip blocks whose statistics rule the filter out.
    pub block_pruning: bool,
    /// `COUNT(DISTINCT c)` as the union of each block's sorted values.
    pub count_distinct_union: bool,
    /// Narrow the aggregation to the groups the LIMIT can return.
    pub restriction: Option<Restriction>,
    /// With several ORDER BY keys and a LIMIT over groups: the first key
    /// cuts the groups before the others are computed.
    pub staged_order_cut: bool,
    /// `ORDER BY ... LIMIT` over rows: order keys first, output columns of
    /// the returned rows only.
    pub late_materialization: bool,
    /// `ORDER BY <stored column> LIMIT k`: only the rows of each block's
    /// leading sorted values are read.
    pub topk_sorted_values: bool,
    /// `ORDER BY <fixed-width column> LIMIT k`: blocks visited best first
    /// by their statistics, stopping once none can reach the top.
    pub topk_best_first: bool,
}

impl Strategies {
    /// The names of the strategies set, for EXPLAIN.
    pub fn names(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        let flags = [
            (self.block_pruning, "block_pruning"),
            (self.count_distinct_union, "count_distinct_union"),
            (self.staged_order_cut, "staged_order_cut"),
            (self.late_materialization, "late_materialization"),
            (self.topk_sorted_values, "topk_sorted_values"),
            (self.topk_best_first, "topk_best_first"),
        ];
        for (on, name) in flags {
            if on {
                out.push(name);
            }
        }
        if let Some(r) = self.restriction {
            out.push(r.name());
        }
        out
    }
}

/// A query the table engine answers over one stored table.
#[derive(Debug, Clone)]
pub struct TableQuery {
    /// The table.
    pub table: Table,
    /// Its name as written in FROM.
    pub name: String,
    /// The qualifier its columns carry (the alias, or the table's name).
    pub qualifier: Option<String>,
    /// WHERE, over table columns.
    pub filter: Option<TExpr>,
    /// Grouping and aggregates; `None` for a row query.
    pub aggregation: Option<Aggregation>,
    /// HAVING, over slots.
    pub having: Option<TExpr>,
    /// Output columns: name and expression (over slots with aggregation,
    /// else over table columns).
    pub select: Vec<(String, TExpr)>,
    /// ORDER BY (over slots with aggregation, else over table columns).
    pub order: Vec<OrderKey>,
    /// LIMIT.
    pub limit: Option<u64>,
    /// OFFSET.
    pub offset: u64,
    /// What the rules chose.
    pub strategies: Strategies,
}

impl TableQuery {
    /// A scan of every column of `table`.
    pub fn scan(table: Table, name: String, qualifier: Option<String>) -> TableQuery {
        let select = table
            .schema()
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let e = TExpr {
                    kind: ExprKind::Col(i),
                    ty: LType::from_storage(f.data_type),
                };
                (f.name.clone(), e)
            })
            .collect();
        TableQuery {
            table,
            name,
            qualifier,
            filter: None,
            aggregation: None,
            having: None,
            select,
            order: Vec::new(),
            limit: None,
            offset: 0,
            strategies: Strategies::default(),
        }
    }

    /// The output columns.
    pub fn columns(&self) -> Vec<Column> {
        self.select
            .iter()
            .map(|(name, e)| Column {
                qualifier: self.qualifier.clone(),
                name: name.clone(),
                ty: e.ty,
            })
            .collect()
    }

    /// Whether nothing but a projection was pushed in yet.
    pub fn is_plain_scan(&self) -> bool {
        self.filter.is_none()
            && self.aggregation.is_none()
            && self.having.is_none()
            && self.order.is_empty()
            && self.limit.is_none()
            && self.offset == 0
    }

    /// Whether the rows it returns depend on nothing but the filter (no
    /// aggregation, order or limit), so more may be pushed below them.
    pub fn is_row_scan(&self) -> bool {
        self.aggregation.is_none()
            && self.order.is_empty()
            && self.limit.is_none()
            && self.offset == 0
    }
}
