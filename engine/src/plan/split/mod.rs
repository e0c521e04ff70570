//! Splitting a query across tasks that each read some blocks of one table:
//! a plan transformation of the bound query into
//!
//! - a **partial plan**, which every task runs over its blocks (the table's
//!   [`TableQuery`] leaf reads a [`Table::with_blocks`] view), giving a
//!   mergeable partial result;
//! - a **combine plan**, which merges partial results into one partial
//!   result of the same columns (a level of a merge tree);
//! - a **final plan**, which reads the partial results of all tasks
//!   ([`LogicalPlan::Partials`]) and answers the query.
//!
//! The split table is the largest stored table the query reads. From its
//! leaf up, the nodes a task may run on its own rows are those that treat
//! each row by itself (`Filter`, `Project`, and a join of the table's rows
//! with a small table every task reads whole); the first node above them
//! that needs all rows (an aggregation, DISTINCT, ORDER BY, LIMIT) is where
//! the plan is cut ([`Combine`] says how), and everything above it runs in
//! the final plan unchanged.
//!
//! Sound because the table's rows are the disjoint union of its blocks'
//! rows, and each per-task node distributes over that union: a filter or
//! projection of a union is the union of the filtered parts; a join whose
//! other input every task reads whole pairs each row of the table with the
//! same rows in every task (for the join kinds that keep or drop a row of
//! the table by its own matches: inner, left, semi, anti, mark, scalar;
//! right and full joins would emit the other input's unmatched rows once
//! per task and are refused). At the cut: the aggregation merges per-task
//! states ([`aggregate`]), DISTINCT and DISTINCT ON keep each task's
//! distinct rows (or first row per group) and apply again, ORDER BY ...
//! LIMIT `k` keeps each task's first `k` (+ OFFSET) rows, since any row of
//! the global first `k` is among its own task's first `k`, and a LIMIT
//! without ORDER BY any `k` rows of each task.
//!
//! The bound plan is first pruned of the columns nothing reads
//! (`prune_columns`), so partial results carry only what the final plan
//! needs (`ORDER BY ... LIMIT` partials hold the selected columns, not the
//! table's).
//!
//! What cannot be split says so ([`EngineError::NotSplittable`]): the table
//! read twice (a self-join, or a subquery over it, which needs the whole
//! table in every task), a join with another large table, a set operation
//! over it, an aggregate without a mergeable state.

pub mod aggregate;

use std::sync::{Arc, Mutex};

use strata_format::Table;

use crate::error::{EngineError, Result};
use crate::plan::{requalify, Column, JoinKind, LogicalPlan, OrderKey, Query};
use crate::value::{LType, Vector};

use self::aggregate::AggSplit;

/// The most rows a table other than the split one may have for a task to
/// read it whole (the small side of a join, a dimension table): one
/// default-sized block.
pub const SMALL_TABLE_ROWS: u64 = 1 << 20;

/// How partial results combine, at the node where the plan is cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Combine {
    /// Rows, concatenated (filters and projections).
    Rows,
    /// Each task's first `n` rows in the query's order (`ORDER BY ...
    /// LIMIT`); the final plan orders and cuts again.
    TopRows(u64),
    /// Any `n` rows of each task (`LIMIT` without `ORDER BY`).
    FirstRows(u64),
    /// Each task's distinct rows; the final plan removes duplicates again.
    Distinct,
    /// Each task's first row per group (`DISTINCT ON`).
    DistinctOn,
    /// Aggregate states per group, merged by the final plan.
    AggregateStates,
}

impl Combine {
    /// Its name, for EXPLAIN.
    pub fn describe(&self) -> String {
        match self {
            Combine::Rows => "rows, concatenated".into(),
            Combine::TopRows(n) => format!("each task's first {n} rows in order"),
            Combine::FirstRows(n) => format!("{n} rows of each task"),
            Combine::Distinct => "each task's distinct rows".into(),
            Combine::DistinctOn => "each task's first row per DISTINCT ON group".into(),
            Combine::AggregateStates => "aggregate states per group, merged".into(),
        }
    }
}

/// The partial results a final (or combine) plan reads: the rows of all
/// tasks, concatenated. Taken by the one execution of the plan.
#[derive(Debug, Default)]
pub struct PartialRows {
    /// The columns (taken when the plan runs).
    data: Mutex<Option<Vec<Vector>>>,
    /// Rows in all.
    pub rows: usize,
    /// How many partial results they came from.
    pub parts: usize,
}

impl PartialRows {
    /// The rows of `parts` partial results, each a list of columns of the
    /// given `columns`' types (a column of all NULLs may have type NULL; a
    /// HUGEINT may come as DECIMAL(38,0), as Arrow carries both).
    pub fn concat(columns: &[Column], parts: Vec<Vec<Vector>>) -> Result<PartialRows> {
        let mut out: Vec<Vector> = columns.iter().map(|c| Vector::empty(c.ty, 0)).collect();
        let n = parts.len();
        let mut rows = 0;
        for (p, part) in parts.into_iter().enumerate() {
            if part.len() != columns.len() {
                return Err(EngineError::Invalid(format!(
                    "partial result {p} has {} columns, this query's have {}",
                    part.len(),
                    columns.len()
                )));
            }
            let len = part.first().map_or(0, Vector::len);
            for (i, (mut v, c)) in part.into_iter().zip(columns).enumerate() {
                if v.len() != len {
                    return Err(EngineError::Invalid(format!(
                        "partial result {p}: column {i} has {} rows, column 0 {len}",
                        v.len()
                    )));
                }
                v = conform(v, c, p)?;
                out[i].append(&v);
            }
            rows += len;
        }
        Ok(PartialRows {
            data: Mutex::new(Some(out)),
            rows,
            parts: n,
        })
    }

    /// No rows yet (a plan only explained).
    fn placeholder() -> PartialRows {
        PartialRows::default()
    }

    /// The columns, taken out: a plan reading partial results runs once.
    pub fn take(&self) -> Result<Vec<Vector>> {
        self.data
            .lock()
            .ok()
            .and_then(|mut d| d.take())
            .ok_or_else(|| EngineError::Internal("partial results read twice".into()))
    }
}

/// `v` as a column of `c`'s type, if it holds such values.
fn conform(v: Vector, c: &Column, part: usize) -> Result<Vector> {
    if v.ty == c.ty {
        return Ok(v);
    }
    let same_values = matches!(
        (v.ty, c.ty),
        (LType::Decimal(38, 0), LType::HugeInt) | (LType::HugeInt, LType::Decimal(38, 0))
    ) || v.ty.phys() == c.ty.phys() && matches!(c.ty, LType::Varchar);
    if same_values {
        return Ok(Vector { ty: c.ty, ..v });
    }
    if v.ty == LType::Null && (0..v.len()).all(|i| v.is_null(i)) {
        return Ok(Vector::nulls(c.ty, v.len()));
    }
    Err(EngineError::Invalid(format!(
        "partial result {part}: column {:?} is {}, this query's is {} (a partial result of another query?)",
        c.name,
        v.ty.name(),
        c.ty.name()
    )))
}

/// A query split for tasks that each read some blocks of one table.
#[derive(Debug, Clone)]
pub struct Split {
    /// The table whose blocks are divided among the tasks.
    pub table: Table,
    /// Its name as the query writes it.
    pub name: String,
    /// How partial results combine.
    pub combine: Combine,
    /// The plan of a task, over the whole table (see [`Split::partial_over`]).
    partial: Query,
    /// Partial results to one partial result.
    combine_plan: Query,
    /// Partial results to the answer.
    final_plan: Query,
    /// The columns of a partial result.
    pub columns: Vec<Column>,
}

impl Split {
    /// The plan of a task reading blocks `blocks` of the table.
    pub fn partial_over(&self, blocks: &[usize]) -> Result<Query> {
        let view = self.table.with_blocks(blocks)?;
        let mut q = self.partial.clone();
        let path = self.table.path().to_path_buf();
        map_plan(&mut q.root, &mut |p| {
            if let LogicalPlan::TableQuery(t) = p {
                if t.table.path() == path {
                    t.table = view.clone();
                }
            }
        });
        Ok(q)
    }

    /// The partial plan over every block (EXPLAIN).
    pub fn partial(&self) -> &Query {
        &self.partial
    }

    /// The plan merging `rows` into one partial result.
    pub fn combine_over(&self, rows: PartialRows) -> Query {
        with_rows(&self.combine_plan, Arc::new(rows))
    }

    /// The plan answering the query from `rows`.
    pub fn final_over(&self, rows: PartialRows) -> Query {
        with_rows(&self.final_plan, Arc::new(rows))
    }

    /// The final plan without rows (EXPLAIN).
    pub fn final_plan(&self) -> &Query {
        &self.final_plan
    }
}

/// `q` with its [`LogicalPlan::Partials`] leaf reading `rows`.
fn with_rows(q: &Query, rows: Arc<PartialRows>) -> Query {
    let mut q = q.clone();
    map_plan(&mut q.root, &mut |p| {
        if let LogicalPlan::Partials { rows: r, .. } = p {
            *r = Arc::clone(&rows);
        }
    });
    q
}

/// Calls `f` on every node of `p`, parents first.
#[recursive::recursive]
fn map_plan(p: &mut LogicalPlan, f: &mut dyn FnMut(&mut LogicalPlan)) {
    f(p);
    for i in p.inputs_mut() {
        map_plan(i, f);
    }
}

/// Splits a bound query (before the rewrite rules run).
pub fn split(query: Query) -> Result<Split> {
    let mut query = query;
    let (table, name) = split_table(&query)?;
    inline_ctes_reading(&mut query, &table)?;
    // Partial results then carry only the columns the final plan reads.
    query.root = crate::rewrite::prune_columns::run(query.root);
    let mut path = Vec::new();
    if !find(&query.root, &table, &mut path) {
        return Err(EngineError::Internal(
            "the split table left the plan".into(),
        ));
    }
    // From the leaf up: the nodes each task runs on its own rows. The
    // subtree at `depth` is the per-task part; its parent (if any) needs
    // all rows and is where the plan is cut.
    let mut depth = path.len();
    while depth > 0 {
        let parent = node_at(&query.root, &path[..depth - 1]);
        if !per_row(parent, path[depth - 1], &name)? {
            break;
        }
        depth -= 1;
    }
    let at = (depth > 0).then(|| path[..depth - 1].to_vec());
    let lower = node_at(&query.root, &path[..depth]).clone();
    only_small_tables_besides(&lower, &table, &name)?;
    let Cut {
        partial,
        combine,
        finish,
        columns,
        how,
    } = match &at {
        None => Cut::rows(lower),
        Some(at) => cut_at(
            node_at(&query.root, at),
            lower,
            limit_above(&query.root, at),
        )?,
    };
    let final_root = match &at {
        None => finish,
        Some(at) => {
            let mut root = query.root.clone();
            *node_at_mut(&mut root, at)
                .ok_or_else(|| EngineError::Internal("lost the split node".into()))? = finish;
            root
        }
    };
    let with_root = |root: LogicalPlan| Query {
        root,
        ctes: query.ctes.clone(),
    };
    Ok(Split {
        table,
        name,
        combine: how,
        partial: with_root(partial),
        combine_plan: with_root(combine),
        final_plan: with_root(final_root),
        columns,
    })
}

/// The leaf reading the partial results of columns `columns`.
fn partials(columns: &[Column]) -> LogicalPlan {
    LogicalPlan::Partials {
        columns: columns.to_vec(),
        rows: Arc::new(PartialRows::placeholder()),
    }
}

/// The plan cut at one node.
struct Cut {
    /// A task's plan.
    partial: LogicalPlan,
    /// Partial results to one.
    combine: LogicalPlan,
    /// What replaces the node in the final plan.
    finish: LogicalPlan,
    /// The partial result's columns.
    columns: Vec<Column>,
    /// How partial results combine.
    how: Combine,
}

impl Cut {
    /// No node needs all rows: each task's rows are part of the answer.
    fn rows(lower: LogicalPlan) -> Cut {
        let columns = lower.columns();
        Cut {
            partial: lower,
            combine: partials(&columns),
            finish: partials(&columns),
            columns,
            how: Combine::Rows,
        }
    }
}

/// Cuts the plan at `node` (which needs all rows), `lower` being its input
/// (the per-task rows) and `limit` the rows a LIMIT above it keeps.
fn cut_at(node: &LogicalPlan, lower: LogicalPlan, limit: Option<u64>) -> Result<Cut> {
    let rows_cols = lower.columns();
    let with_input = |n: &LogicalPlan, input: LogicalPlan| -> LogicalPlan {
        let mut n = n.clone();
        if let Some(slot) = n.inputs_mut().into_iter().next() {
            *slot = input;
        }
        n
    };
    let leaf = partials(&rows_cols);
    let same = |partial: LogicalPlan, how: Combine, combine: LogicalPlan| Cut {
        partial,
        combine,
        finish: with_input(node, partials(&rows_cols)),
        columns: rows_cols.clone(),
        how,
    };
    Ok(match node {
        LogicalPlan::Aggregate {
            keys,
            aggs,
            columns,
            ..
        } => {
            let a = AggSplit::new(keys.len(), aggs, columns.clone())?;
            let cols = a.partial_columns();
            Cut {
                partial: a.partial(lower, keys),
                combine: a.combine(partials(&cols))?,
                finish: a.finish(partials(&cols))?,
                columns: cols,
                how: Combine::AggregateStates,
            }
        }
        LogicalPlan::Distinct { .. } => same(
            with_input(node, lower),
            Combine::Distinct,
            with_input(node, leaf),
        ),
        LogicalPlan::DistinctOn { order, .. } if order.is_empty() => {
            return Err(EngineError::NotSplittable(
                "the first row of each group in input order needs the groups' rows in order".into(),
            ))
        }
        LogicalPlan::DistinctOn { .. } => same(
            with_input(node, lower),
            Combine::DistinctOn,
            with_input(node, leaf),
        ),
        LogicalPlan::Sort { keys, .. } => match limit {
            Some(n) => same(top(lower, keys, n), Combine::TopRows(n), top(leaf, keys, n)),
            None => same(lower, Combine::Rows, leaf),
        },
        LogicalPlan::Limit { limit: l, .. } => match limit.or(*l) {
            Some(n) => same(first(lower, n), Combine::FirstRows(n), first(leaf, n)),
            None => same(lower, Combine::Rows, leaf),
        },
        other => {
            return Err(EngineError::Internal(format!(
                "no split at a {} node",
                other.kind()
            )))
        }
    })
}

/// The first `n` rows of `input` in the order of `keys`.
fn top(input: LogicalPlan, keys: &[OrderKey], n: u64) -> LogicalPlan {
    first(
        LogicalPlan::Sort {
            input: input.boxed(),
            keys: keys.to_vec(),
        },
        n,
    )
}

/// The first `n` rows of `input`.
fn first(input: LogicalPlan, n: u64) -> LogicalPlan {
    LogicalPlan::Limit {
        input: input.boxed(),
        limit: Some(n),
        offset: 0,
    }
}

/// For the node at `at`: the rows a LIMIT keeps of its output (LIMIT plus
/// OFFSET), when that LIMIT is the node itself or above it with only
/// projections between.
fn limit_above(root: &LogicalPlan, at: &[usize]) -> Option<u64> {
    let limit = |p: &LogicalPlan| match p {
        LogicalPlan::Limit { limit, offset, .. } => {
            Some(limit.and_then(|l| l.checked_add(*offset)))
        }
        _ => None,
    };
    if let Some(l) = limit(node_at(root, at)) {
        return l;
    }
    for depth in (0..at.len()).rev() {
        let p = node_at(root, &at[..depth]);
        if let Some(l) = limit(p) {
            return l;
        }
        if !matches!(p, LogicalPlan::Project { .. }) {
            return None;
        }
    }
    None
}

/// Whether `parent` treats each row of its input `child` (the one holding
/// the split table) by itself, so each task may run it on its rows; an
/// error when it never can.
fn per_row(parent: &LogicalPlan, child: usize, table: &str) -> Result<bool> {
    Ok(match parent {
        LogicalPlan::Filter { .. } | LogicalPlan::Project { .. } => true,
        LogicalPlan::Join { kind, .. } => {
            let ok = match (child, kind) {
                (0, JoinKind::Right | JoinKind::Full) => false,
                (0, _) => true,
                (_, JoinKind::Inner | JoinKind::Right) => true,
                _ => false,
            };
            if !ok {
                let why = if child == 0 {
                    "would repeat the other side's unmatched rows in every task"
                } else {
                    "needs the matches of each of its other side's rows in all blocks"
                };
                return Err(EngineError::NotSplittable(format!(
                    "a {} join with {table} on the {} side {why}",
                    kind.name(),
                    if child == 0 { "left" } else { "right" }
                )));
            }
            true
        }
        LogicalPlan::SetOp { kind, .. } => {
            return Err(EngineError::NotSplittable(format!(
                "{} over {table}: the other side would be repeated by every task",
                kind.keyword()
            )))
        }
        LogicalPlan::Window { .. } => {
            return Err(EngineError::NotSplittable(format!(
                "window functions over {table} need every row of a partition in one task"
            )))
        }
        _ => false,
    })
}

/// The largest stored table the query reads (ties: the first by name), and
/// its name; an error when it is read more than once.
fn split_table(q: &Query) -> Result<(Table, String)> {
    let mut leaves: Vec<(Table, String)> = Vec::new();
    let mut collect = |p: &LogicalPlan| {
        crate::rewrite::visit(p, &mut |n| {
            if let LogicalPlan::TableQuery(t) = n {
                leaves.push((t.table.clone(), t.name.clone()));
            }
        })
    };
    collect(&q.root);
    for c in &q.ctes {
        collect(&c.plan);
    }
    let Some((table, name)) = leaves
        .iter()
        .max_by(|a, b| {
            a.0.num_rows()
                .cmp(&b.0.num_rows())
                .then_with(|| b.1.cmp(&a.1))
        })
        .cloned()
    else {
        return Err(EngineError::NotSplittable(
            "the query reads no stored table".into(),
        ));
    };
    let reads = leaves
        .iter()
        .filter(|(t, _)| t.path() == table.path())
        .count();
    if reads > 1 {
        return Err(EngineError::NotSplittable(format!(
            "{name} is read {reads} times (a self-join, or a subquery over it, needs the \
             whole table in every task)"
        )));
    }
    Ok((table, name))
}

/// Refuses a per-task plan `lower` that reads a large table besides the
/// split one `name`: every task would read all of it.
fn only_small_tables_besides(lower: &LogicalPlan, table: &Table, name: &str) -> Result<()> {
    let mut large: Option<(String, u64)> = None;
    crate::rewrite::visit(lower, &mut |n| {
        if let LogicalPlan::TableQuery(t) = n {
            let rows = t.table.num_rows();
            if t.table.path() != table.path() && rows > SMALL_TABLE_ROWS && large.is_none() {
                large = Some((t.name.clone(), rows));
            }
        }
    });
    match large {
        None => Ok(()),
        Some((other, rows)) => Err(EngineError::NotSplittable(format!(
            "{name} is joined with {other} ({rows} rows): every task would read all of \
             {other}; only tables of up to {SMALL_TABLE_ROWS} rows are read whole by each task"
        ))),
    }
}

/// Puts in place of their reference the CTEs that read `table` (each
/// referred to once; one referred to more often cannot be split).
fn inline_ctes_reading(q: &mut Query, table: &Table) -> Result<()> {
    let reads = |p: &LogicalPlan| {
        let mut found = false;
        crate::rewrite::visit(p, &mut |n| {
            found |= matches!(n, LogicalPlan::TableQuery(t) if t.table.path() == table.path());
        });
        found
    };
    for _ in 0..=q.ctes.len() {
        let Some(cte) = q.ctes.iter().find(|c| reads(&c.plan)).cloned() else {
            return Ok(());
        };
        let mut uses = 0;
        let mut replace = |p: &mut LogicalPlan| {
            if let LogicalPlan::CteRef { id, columns, .. } = p {
                if *id == cte.id {
                    uses += 1;
                    let qualifier = columns.first().and_then(|c| c.qualifier.clone());
                    *p = requalify(cte.plan.clone(), columns.clone(), qualifier);
                }
            }
        };
        map_plan(&mut q.root, &mut replace);
        for c in &mut q.ctes {
            if c.id != cte.id {
                map_plan(&mut c.plan, &mut replace);
            }
        }
        if uses > 1 {
            return Err(EngineError::NotSplittable(format!(
                "WITH {} reads the split table and is used {uses} times",
                cte.name
            )));
        }
        // The body now lives where it was used.
        if let Some(c) = q.ctes.iter_mut().find(|c| c.id == cte.id) {
            c.plan = crate::rewrite::empty();
        }
    }
    Err(EngineError::Internal(
        "CTEs refer to each other in a loop".into(),
    ))
}

/// Finds the path (input numbers from the root) to the leaf reading `table`.
#[recursive::recursive]
fn find(p: &LogicalPlan, table: &Table, path: &mut Vec<usize>) -> bool {
    if let LogicalPlan::TableQuery(t) = p {
        return t.table.path() == table.path();
    }
    for (i, input) in p.inputs().into_iter().enumerate() {
        path.push(i);
        if find(input, table, path) {
            return true;
        }
        path.pop();
    }
    false
}

fn node_at<'p>(p: &'p LogicalPlan, path: &[usize]) -> &'p LogicalPlan {
    let mut p = p;
    for &i in path {
        match p.inputs().get(i) {
            Some(c) => p = c,
            None => break,
        }
    }
    p
}

fn node_at_mut<'p>(p: &'p mut LogicalPlan, path: &[usize]) -> Option<&'p mut LogicalPlan> {
    match path.split_first() {
        None => Some(p),
        Some((&i, rest)) => p
            .inputs_mut()
            .into_iter()
            .nth(i)
            .and_then(|c| node_at_mut(c, rest)),
    }
}
