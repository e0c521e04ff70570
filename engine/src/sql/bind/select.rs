//! One SELECT, bound in SQL's logical order: FROM, WHERE, GROUP BY and the
//! aggregates, HAVING, the select list, DISTINCT, ORDER BY, LIMIT.
//!
//! ```text
//! Limit ── Project ── Sort ── Filter (HAVING) ── Aggregate ── Filter (WHERE) ── FROM
//! Limit ── Sort ── Distinct ── Project ── ...                        (SELECT DISTINCT)
//! ```
//! Names in WHERE, GROUP BY, HAVING and ORDER BY that are no column of the
//! FROM clause may be select-list aliases (as in DuckDB); ORDER BY looks
//! at aliases first and accepts positions (`ORDER BY 2`).

use sqlparser::ast::{self as sql, Expr as SqlExpr};

use super::aggregate::{contains_agg, contains_window, replace_keys, AggCtx};
use super::expr::ExprBinder;
use super::grouping_sets;
use super::never_true::never_true;
use super::query::{order_key, order_options, ordinal, Limits, OrderSpec};
use super::scope::Scope;
use super::star::{self, expr_name, Item, ItemExpr};
use super::subquery::{attach, replace_placeholders, BoundSubquery, SubqueryKind};
use super::window::{map_call_exprs, window_columns, window_node, WindowCtx};
use super::Binder;
use crate::agg::func::AggCall;
use crate::error::{invalid, unsupported, EngineError, Result};
use crate::expr::{ExprKind, TExpr};
use crate::plan::display::show;
use crate::plan::{Column, LogicalPlan, OrderKey};
use crate::value::{LType, Value};

/// Subqueries with their placeholder numbers.
type Numbered = Vec<(usize, BoundSubquery)>;

/// `SELECT DISTINCT` or `SELECT DISTINCT ON (...)`.
enum Distinct<'s> {
    No,
    All,
    On(&'s [SqlExpr]),
}

fn check_clauses(sel: &sql::Select) -> Result<()> {
    if sel.top.is_some() {
        return unsupported("TOP");
    }
    if sel.prewhere.is_some()
        || !sel.sort_by.is_empty()
        || !sel.cluster_by.is_empty()
        || !sel.distribute_by.is_empty()
    {
        return unsupported("PREWHERE / SORT BY / CLUSTER BY / DISTRIBUTE BY");
    }
    if sel.into.is_some() || !sel.lateral_views.is_empty() || !sel.connect_by.is_empty() {
        return unsupported("SELECT INTO / LATERAL VIEW / CONNECT BY");
    }
    Ok(())
}

/// Where window functions may not be: WHERE, GROUP BY, HAVING; and
/// QUALIFY needs one.
fn check_windows(sel: &sql::Select, items: &[Item]) -> Result<()> {
    if sel.selection.as_ref().is_some_and(contains_window) {
        return invalid("WHERE clause cannot contain window functions");
    }
    if sel.having.as_ref().is_some_and(contains_window) {
        return invalid("HAVING clause cannot contain window functions");
    }
    if let sql::GroupByExpr::Expressions(v, _) = &sel.group_by {
        if v.iter().any(contains_window) {
            return invalid("GROUP BY clause cannot contain window functions");
        }
    }
    if let Some(q) = &sel.qualify {
        let in_items = items.iter().any(|i| match &i.expr {
            ItemExpr::Sql(e) => contains_window(e),
            ItemExpr::Column(_) => false,
        });
        if !in_items && !contains_window(q) {
            return invalid(
                "at least one window function must appear in the SELECT column or QUALIFY clause",
            );
        }
    }
    Ok(())
}

/// The column a bound expression names, if it is exactly a column.
fn col(i: usize, ty: crate::value::LType) -> TExpr {
    TExpr {
        kind: ExprKind::Col(i),
        ty,
    }
}

impl Binder<'_> {
    /// Binds a SELECT with the ORDER BY and LIMIT of its query.
    pub(crate) fn bind_select(
        &self,
        sel: &sql::Select,
        order: &OrderSpec,
        limits: Limits,
    ) -> Result<LogicalPlan> {
        check_clauses(sel)?;
        let distinct = match &sel.distinct {
            None => Distinct::No,
            Some(sql::Distinct::Distinct) => Distinct::All,
            Some(sql::Distinct::On(exprs)) => Distinct::On(exprs),
            Some(other) => return unsupported(format!("SELECT {other}")),
        };
        let (input, scope) = self.bind_from(&sel.from)?;
        let items = star::expand(&sel.projection, &scope)?;
        let order_exprs: &[sql::OrderByExpr] = match order {
            OrderSpec::Exprs(v) => v,
            _ => &[],
        };
        let sql_of = |i: &Item| match &i.expr {
            ItemExpr::Sql(e) => Some((**e).clone()),
            ItemExpr::Column(_) => None,
        };
        check_windows(sel, &items)?;
        let aliases: Vec<(String, SqlExpr)> = items
            .iter()
            .filter(|i| i.aliased)
            .filter_map(|i| sql_of(i).map(|e| (i.name.clone(), e)))
            .collect();
        let (group_exprs, group_all): (&[SqlExpr], bool) = match &sel.group_by {
            sql::GroupByExpr::All(mods) => {
                if !mods.is_empty() {
                    return unsupported("GROUP BY ALL with modifiers");
                }
                (&[], true)
            }
            sql::GroupByExpr::Expressions(v, mods) => {
                if !mods.is_empty() {
                    return unsupported("GROUP BY ... WITH ROLLUP / CUBE / TOTALS");
                }
                (v, false)
            }
        };
        let (group_exprs, sets) = grouping_sets::expand(group_exprs)?;
        // `GROUP BY GROUPING SETS (())` has no key but groups: one row per set.
        let aggregates = sel.having.is_some()
            || items.iter().filter_map(sql_of).any(|e| contains_agg(&e))
            || order_exprs.iter().any(|o| contains_agg(&o.expr));
        let is_agg = !group_exprs.is_empty() || sets.is_some() || group_all || aggregates;
        // Only empty sets and no aggregate: one row, however many sets (as
        // DuckDB answers; with aggregates, one row per set).
        let sets = match sets {
            Some(s) if !aggregates && s.len() > 1 && s.iter().all(Vec::is_empty) => {
                Some(vec![Vec::new()])
            }
            s => s,
        };

        let mut plan = input;
        if let Some(w) = &sel.selection {
            if contains_agg(w) {
                return invalid("aggregate functions are not allowed in WHERE");
            }
            let mut b = ExprBinder::new(&scope)
                .with_aliases(&aliases)
                .with_binder(self);
            let e = b.expr(w)?;
            let predicate = b.expect_bool(e, "WHERE")?;
            let (p, repl) = attach(plan, std::mem::take(&mut b.subqueries))?;
            let predicate = replace_placeholders(predicate, &repl);
            plan = LogicalPlan::Filter {
                input: p.boxed(),
                predicate: if never_true(&predicate) {
                    TExpr::lit(Value::Bool(false), LType::Bool)
                } else {
                    predicate
                },
            };
        }

        // Select items, ORDER BY keys (over the same input as the items) and
        // the plan they apply to.
        let select: Vec<(String, TExpr)>;
        let mut order_keys: Vec<OrderKey> = Vec::new();
        // Why ORDER BY could not be bound over the select's input (an
        // error for all but a SELECT DISTINCT that orders by its items).
        let mut order_error: Option<EngineError> = None;
        if !is_agg {
            let mut b = ExprBinder::new(&scope)
                .with_aliases(&aliases)
                .with_binder(self);
            b.windows = Some(WindowCtx::new(&sel.named_window)?);
            let bound = bind_items(&items, &mut b)?;
            if !matches!(distinct, Distinct::On(_)) {
                order_keys = resolve_order(order, &items, &bound, &mut |e| b.expr(e))
                    .map_err(|e| order_error = Some(e))
                    .unwrap_or_default();
            }
            let qualify = match &sel.qualify {
                Some(q) => {
                    let e = b.expr(q)?;
                    Some(b.expect_bool(e, "QUALIFY")?)
                }
                None => None,
            };
            let mut calls = b.windows.take().map(|w| w.calls).unwrap_or_default();
            let (p, repl) = attach(plan, std::mem::take(&mut b.subqueries))?;
            map_call_exprs(&mut calls, &mut |e| Ok(replace_placeholders(e, &repl)))?;
            let (p, first) = window_node(p, calls);
            plan = p;
            let fix = |e: TExpr| window_columns(replace_placeholders(e, &repl), first);
            select = bound.into_iter().map(|(n, e)| (n, fix(e))).collect();
            for k in &mut order_keys {
                k.expr = fix(k.expr.clone());
            }
            if let Some(q) = qualify {
                plan = LogicalPlan::Filter {
                    input: plan.boxed(),
                    predicate: fix(q),
                };
            }
        } else {
            // Group keys over the FROM scope.
            let mut keys: Vec<TExpr> = Vec::new();
            let mut key_pos: Vec<usize> = Vec::new();
            // For each key, the source it was first bound from.
            let mut key_src: Vec<&KeySource> = Vec::new();
            let key_sources: Vec<KeySource> = if group_all {
                items
                    .iter()
                    .filter(|i| sql_of(i).is_none_or(|e| !contains_agg(&e)))
                    .map(KeySource::Item)
                    .collect()
            } else {
                let mut v = Vec::new();
                for &g in &group_exprs {
                    v.push(match ordinal(g, items.len(), "GROUP BY")? {
                        Some(i) => KeySource::Item(&items[i]),
                        None => match ident_of(g) {
                            Some(n) if scope.find(None, &n)?.is_none() => {
                                match items.iter().find(|i| i.aliased && i.name == n) {
                                    Some(i) => KeySource::Item(i),
                                    None => KeySource::Sql(g),
                                }
                            }
                            _ => KeySource::Sql(g),
                        },
                    });
                }
                v
            };
            for src in &key_sources {
                let mut b = ExprBinder::new(&scope);
                let k = match src {
                    KeySource::Item(i) => match &i.expr {
                        ItemExpr::Column(c) => col(*c, scope.columns[*c].ty),
                        ItemExpr::Sql(e) => {
                            if contains_agg(e) {
                                return invalid(format!(
                                    "aggregate functions are not allowed in GROUP BY ({})",
                                    i.name
                                ));
                            }
                            b.expr(e)?
                        }
                    },
                    KeySource::Sql(e) => {
                        if contains_agg(e) {
                            return invalid(format!(
                                "aggregate functions are not allowed in GROUP BY ({})",
                                expr_name(e)
                            ));
                        }
                        b.expr(e)?
                    }
                };
                match keys.iter().position(|x| *x == k) {
                    Some(i) => {
                        // DuckDB tells grouping-set keys apart by how they
                        // are written; strata by their bound value, where
                        // `CASE WHEN TRUE THEN a END` is `a`. A set leaving
                        // out one of two such keys would differ.
                        if sets.is_some() {
                            let first = key_src[i];
                            if first.sql() != src.sql() {
                                return unsupported(format!(
                                    "grouping sets over two different expressions of the same value ({} and {})",
                                    first.text(),
                                    src.text(),
                                ));
                            }
                        }
                        key_pos.push(i);
                    }
                    None => {
                        key_src.push(src);
                        key_pos.push(keys.len());
                        keys.push(k);
                    }
                }
            }
            let sets: Option<Vec<Vec<usize>>> = sets.map(|sets| {
                sets.into_iter()
                    .map(|s| s.into_iter().map(|i| key_pos[i]).collect())
                    .collect()
            });
            // Items, HAVING and ORDER BY over the aggregation's slots.
            let mut b = ExprBinder::new(&scope)
                .with_aliases(&aliases)
                .with_binder(self);
            b.aggs = Some(AggCtx {
                aggs: Vec::new(),
                nkeys: keys.len(),
                groups_have_rows: !keys.is_empty() && sets.is_none(),
            });
            (b.written_keys, b.whole_keys) = written_keys(&keys, &key_src);
            b.windows = Some(WindowCtx::new(&sel.named_window)?);
            let mut post_items = Vec::with_capacity(items.len());
            for it in &items {
                let e = match &it.expr {
                    ItemExpr::Column(c) => col(*c, scope.columns[*c].ty),
                    ItemExpr::Sql(e) => b.expr(e)?,
                };
                post_items.push((it.name.clone(), over_groups(e, &keys, &scope)?));
            }
            let having = match &sel.having {
                None => None,
                Some(h) => {
                    let e = b.expr(h)?;
                    let e = b.expect_bool(e, "HAVING")?;
                    Some(over_groups(e, &keys, &scope)?)
                }
            };
            if !matches!(distinct, Distinct::On(_)) {
                order_keys = resolve_order(order, &items, &post_items, &mut |e| {
                    let x = b.expr(e)?;
                    over_groups(x, &keys, &scope)
                })
                .map_err(|e| order_error = Some(e))
                .unwrap_or_default();
            }
            let qualify = match &sel.qualify {
                Some(q) => {
                    let e = b.expr(q)?;
                    let e = b.expect_bool(e, "QUALIFY")?;
                    Some(over_groups(e, &keys, &scope)?)
                }
                None => None,
            };
            let mut calls = b.windows.take().map(|w| w.calls).unwrap_or_default();
            map_call_exprs(&mut calls, &mut |e| over_groups(e, &keys, &scope))?;
            let aggs = b.aggs.take().map(|c| c.aggs).unwrap_or_default();
            // Subqueries inside aggregate arguments join the input rows;
            // the others (uncorrelated) join the groups.
            let subs = std::mem::take(&mut b.subqueries);
            let (pre, post): (Numbered, Numbered) =
                subs.into_iter().enumerate().partition(|(_, s)| !s.post);
            let mut repl: Vec<TExpr> =
                vec![
                    TExpr::lit(crate::value::Value::Null, crate::value::LType::Null);
                    pre.len() + post.len()
                ];
            let (pre_idx, pre_subs): (Vec<usize>, Vec<BoundSubquery>) = pre.into_iter().unzip();
            let (p, pre_repl) = attach(plan, pre_subs)?;
            plan = p;
            for (i, e) in pre_idx.into_iter().zip(pre_repl) {
                repl[i] = e;
            }
            let aggs: Vec<AggCall> = aggs
                .into_iter()
                .map(|a| a.map_exprs(&mut |x| replace_placeholders(x, &repl)))
                .collect();
            // Subqueries in aggregate arguments add input columns.
            let name = |i: usize| {
                scope
                    .columns
                    .get(i)
                    .map_or_else(|| format!("#{i}"), |c| c.name.clone())
            };
            let mut columns: Vec<Column> = keys
                .iter()
                .map(|k| Column::new(show(k, &name, &|s| format!("@{s}")), k.ty))
                .collect();
            columns.extend(aggs.iter().map(|a| {
                let text = a.show(&|x| show(x, &name, &|s| format!("@{s}")));
                Column::new(text, a.ty)
            }));
            if having.as_ref().is_some_and(never_true) {
                // No group passes: no input row is needed.
                plan = LogicalPlan::Filter {
                    input: plan.boxed(),
                    predicate: TExpr::lit(Value::Bool(false), LType::Bool),
                };
            }
            plan = grouping_sets::grouping_plan(plan, keys, aggs, columns, sets, &|p| {
                self.share(p, "grouping sets input")
            })?;
            let (post_idx, mut post_subs): (Vec<usize>, Vec<BoundSubquery>) =
                post.into_iter().unzip();
            if post_subs.iter().any(|s| !s.outer.is_empty()) {
                return unsupported(
                    "a correlated subquery in HAVING or the select list of a grouped query",
                );
            }
            for s in &mut post_subs {
                if let SubqueryKind::In { expr } = &mut s.kind {
                    *expr = replace_placeholders(expr.clone().refs_to_cols(), &repl);
                }
            }
            let (p, post_repl) = attach(plan, post_subs)?;
            plan = p;
            for (i, e) in post_idx.into_iter().zip(post_repl) {
                repl[i] = e;
            }
            let having = having.map(|h| replace_placeholders(h.refs_to_cols(), &repl));
            if let Some(h) = having {
                plan = LogicalPlan::Filter {
                    input: plan.boxed(),
                    predicate: h,
                };
            }
            map_call_exprs(&mut calls, &mut |e| {
                Ok(replace_placeholders(e.refs_to_cols(), &repl))
            })?;
            let (p, first) = window_node(plan, calls);
            plan = p;
            let fix =
                |e: TExpr| window_columns(replace_placeholders(e.refs_to_cols(), &repl), first);
            select = post_items.into_iter().map(|(n, e)| (n, fix(e))).collect();
            for k in &mut order_keys {
                k.expr = fix(k.expr.clone());
            }
            if let Some(q) = qualify {
                plan = LogicalPlan::Filter {
                    input: plan.boxed(),
                    predicate: fix(q),
                };
            }
        }

        match distinct {
            Distinct::No => {
                if let Some(e) = order_error {
                    return Err(e);
                }
                if !order_keys.is_empty() {
                    plan = LogicalPlan::Sort {
                        input: plan.boxed(),
                        keys: order_keys,
                    };
                }
                let plan = project(plan, select);
                Ok(limits.apply(plan))
            }
            Distinct::All => {
                let keys = match distinct_order(order, &items, &select, &scope, &aliases, is_agg)? {
                    Some(keys) => keys,
                    // DuckDB orders each distinct row by the keys' values in
                    // the first input row of its group.
                    None => {
                        if let Some(e) = order_error {
                            return Err(e);
                        }
                        let on = select.iter().map(|(_, e)| e.clone()).collect();
                        return Ok(first_of_groups(plan, select, on, order_keys, false, limits));
                    }
                };
                let plan = LogicalPlan::Distinct {
                    input: project(plan, select).boxed(),
                };
                let plan = if keys.is_empty() {
                    plan
                } else {
                    LogicalPlan::Sort {
                        input: plan.boxed(),
                        keys,
                    }
                };
                Ok(limits.apply(plan))
            }
            Distinct::On(on) => {
                if is_agg {
                    return unsupported("DISTINCT ON with GROUP BY or aggregates");
                }
                self.distinct_on(plan, select, on, order, &items, &scope, &aliases, limits)
            }
        }
    }

    /// `SELECT DISTINCT ON (on) ... ORDER BY ...`: the select list plus the
    /// ON expressions and ORDER BY keys as hidden columns, the first row of
    /// each ON group in ORDER BY's order, then the hidden columns dropped.
    #[allow(clippy::too_many_arguments)]
    fn distinct_on(
        &self,
        plan: LogicalPlan,
        select: Vec<(String, TExpr)>,
        on: &[SqlExpr],
        order: &OrderSpec,
        items: &[Item],
        scope: &Scope,
        aliases: &[(String, SqlExpr)],
        limits: Limits,
    ) -> Result<LogicalPlan> {
        let mut b = ExprBinder::new(scope).with_aliases(aliases);
        let mut on_exprs = Vec::new();
        for e in on {
            on_exprs.push(match ordinal(e, items.len(), "DISTINCT ON")? {
                Some(i) => select[i].1.clone(),
                None => b.expr(e)?,
            });
        }
        let order_keys = resolve_order(order, items, &select, &mut |e| b.expr(e))?;
        Ok(first_of_groups(
            plan, select, on_exprs, order_keys, true, limits,
        ))
    }
}

/// The first row of each group of equal `on` values, taken in the order of
/// `order_keys` when `by_order` (DISTINCT ON), else in input order, then
/// the groups sorted by `order_keys` (all expressions over `plan`): the
/// select list plus the ON expressions and ORDER BY keys as hidden
/// columns, dropped at the end.
fn first_of_groups(
    plan: LogicalPlan,
    select: Vec<(String, TExpr)>,
    on_exprs: Vec<TExpr>,
    order_keys: Vec<OrderKey>,
    by_order: bool,
    limits: Limits,
) -> LogicalPlan {
    let width = select.len();
    let mut all = select.clone();
    let mut on_cols = Vec::new();
    for (k, e) in on_exprs.into_iter().enumerate() {
        on_cols.push(col(all.len(), e.ty));
        all.push((format!("#on{k}"), e));
    }
    let mut keys = Vec::new();
    for (k, o) in order_keys.into_iter().enumerate() {
        keys.push(OrderKey {
            expr: col(all.len(), o.expr.ty),
            desc: o.desc,
            nulls_first: o.nulls_first,
        });
        all.push((format!("#order{k}"), o.expr));
    }
    let mut plan = project(plan, all);
    plan = LogicalPlan::DistinctOn {
        input: plan.boxed(),
        on: on_cols,
        order: if by_order { keys.clone() } else { Vec::new() },
    };
    if !keys.is_empty() {
        plan = LogicalPlan::Sort {
            input: plan.boxed(),
            keys,
        };
    }
    plan = limits.apply(plan);
    let visible: Vec<(String, TExpr)> = select
        .iter()
        .enumerate()
        .map(|(i, (n, e))| (n.clone(), col(i, e.ty)))
        .collect();
    debug_assert_eq!(visible.len(), width);
    project(plan, visible)
}

/// Where a group key comes from.
enum KeySource<'a> {
    /// A select item (by position or alias).
    Item(&'a Item),
    /// An expression written in GROUP BY.
    Sql(&'a SqlExpr),
}

impl KeySource<'_> {
    /// The key as written, `None` for a plain column reference (two
    /// references to one column are one key however they are written).
    fn sql(&self) -> Option<&SqlExpr> {
        fn written(e: &SqlExpr) -> Option<&SqlExpr> {
            match e {
                SqlExpr::Identifier(_) | SqlExpr::CompoundIdentifier(_) => None,
                SqlExpr::Nested(inner) => written(inner),
                e => Some(e),
            }
        }
        match self {
            KeySource::Item(i) => match &i.expr {
                ItemExpr::Column(_) => None,
                ItemExpr::Sql(e) => written(e),
            },
            KeySource::Sql(e) => written(e),
        }
    }

    /// The key as written, for messages.
    fn text(&self) -> String {
        match self {
            KeySource::Item(i) => match &i.expr {
                ItemExpr::Column(_) => i.name.clone(),
                ItemExpr::Sql(e) => e.to_string(),
            },
            KeySource::Sql(e) => e.to_string(),
        }
    }
}

fn ident_of(e: &SqlExpr) -> Option<String> {
    match e {
        SqlExpr::Identifier(i) => Some(i.value.clone()),
        _ => None,
    }
}

/// The select items bound by `b`.
fn bind_items(items: &[Item], b: &mut ExprBinder) -> Result<Vec<(String, TExpr)>> {
    let mut out = Vec::with_capacity(items.len());
    for it in items {
        let e = match &it.expr {
            ItemExpr::Column(c) => col(*c, b.scope.columns[*c].ty),
            ItemExpr::Sql(e) => b.expr(e)?,
        };
        out.push((it.name.clone(), e));
    }
    Ok(out)
}

/// The grouping keys by how they are written: those that fold to a
/// constant, each with its slot (an expression over such a key must still
/// find it, see [`ExprBinder::written_keys`]), and the others (see
/// [`ExprBinder::whole_keys`]).
fn written_keys(
    keys: &[TExpr],
    sources: &[&KeySource<'_>],
) -> (Vec<(SqlExpr, TExpr)>, Vec<SqlExpr>) {
    let (mut constants, mut others) = (Vec::new(), Vec::new());
    for (i, (k, src)) in keys.iter().zip(sources).enumerate() {
        let Some(sql) = src.sql() else { continue };
        if k.as_lit().is_some() {
            let slot = TExpr {
                kind: ExprKind::Ref(i),
                ty: k.ty,
            };
            constants.push((sql.clone(), slot));
        } else {
            others.push(sql.clone());
        }
    }
    (constants, others)
}

/// An expression bound over the FROM scope with aggregates as slots,
/// rewritten over the aggregation's output: group key subtrees become
/// slots too, and a column left over is an error.
fn over_groups(e: TExpr, keys: &[TExpr], scope: &Scope) -> Result<TExpr> {
    let t = replace_keys(e, keys);
    let mut bad = None;
    t.walk(&mut |x| {
        if let ExprKind::Col(c) = x.kind {
            bad.get_or_insert(c);
        }
    });
    match bad {
        Some(c) => invalid(format!(
            "column {:?} must appear in the GROUP BY clause or be used in an aggregate function",
            scope.columns.get(c).map_or("?", |c| c.name.as_str())
        )),
        None => Ok(t),
    }
}

/// ORDER BY keys over the same input as `select`: a position or an alias
/// takes the select item's expression; anything else is bound by `bind`.
fn resolve_order(
    order: &OrderSpec,
    items: &[Item],
    select: &[(String, TExpr)],
    bind: &mut dyn FnMut(&SqlExpr) -> Result<TExpr>,
) -> Result<Vec<OrderKey>> {
    match order {
        OrderSpec::None => Ok(Vec::new()),
        OrderSpec::All(opts) => {
            let (desc, nulls_first) = order_options(opts)?;
            Ok(select
                .iter()
                .map(|(_, e)| OrderKey {
                    expr: e.clone(),
                    desc,
                    nulls_first,
                })
                .collect())
        }
        OrderSpec::Exprs(exprs) => {
            let mut keys = Vec::with_capacity(exprs.len());
            for o in *exprs {
                let e = if let Some(i) = ordinal(&o.expr, items.len(), "ORDER BY")? {
                    select[i].1.clone()
                } else if let Some(i) = alias_position(&o.expr, items) {
                    select[i].1.clone()
                } else {
                    bind(&o.expr)?
                };
                keys.push(order_key(e, o)?);
            }
            Ok(keys)
        }
    }
}

/// The select item an unqualified name in ORDER BY refers to by its alias.
fn alias_position(e: &SqlExpr, items: &[Item]) -> Option<usize> {
    let n = ident_of(e)?;
    items
        .iter()
        .position(|i| i.aliased && i.name == n)
        .or_else(|| {
            items
                .iter()
                .position(|i| i.aliased && i.name.eq_ignore_ascii_case(&n))
        })
}

/// ORDER BY of a `SELECT DISTINCT` over the distinct rows, each key a
/// select item (by position, alias or equal expression); `None` if a key
/// is not.
fn distinct_order(
    order: &OrderSpec,
    items: &[Item],
    select: &[(String, TExpr)],
    scope: &Scope,
    aliases: &[(String, SqlExpr)],
    is_agg: bool,
) -> Result<Option<Vec<OrderKey>>> {
    let out_col = |i: usize| col(i, select[i].1.ty);
    match order {
        OrderSpec::None => Ok(Some(Vec::new())),
        OrderSpec::All(opts) => {
            let (desc, nulls_first) = order_options(opts)?;
            Ok(Some(
                (0..select.len())
                    .map(|i| OrderKey {
                        expr: out_col(i),
                        desc,
                        nulls_first,
                    })
                    .collect(),
            ))
        }
        OrderSpec::Exprs(exprs) => {
            let mut keys = Vec::new();
            for o in *exprs {
                let pos = match ordinal(&o.expr, items.len(), "ORDER BY")? {
                    Some(i) => Some(i),
                    None => match alias_position(&o.expr, items) {
                        Some(i) => Some(i),
                        // A select item written the same way (over groups,
                        // or a window function, which binds only there).
                        None if is_agg || contains_window(&o.expr) => {
                            items.iter().position(|i| match &i.expr {
                                ItemExpr::Sql(e) => **e == o.expr,
                                ItemExpr::Column(_) => {
                                    ident_of(&o.expr).is_some_and(|n| n == i.name)
                                }
                            })
                        }
                        None => {
                            let e = ExprBinder::new(scope).with_aliases(aliases).expr(&o.expr)?;
                            select.iter().position(|(_, s)| *s == e)
                        }
                    },
                };
                let Some(i) = pos else {
                    return Ok(None);
                };
                keys.push(order_key(out_col(i), o)?);
            }
            Ok(Some(keys))
        }
    }
}

/// A projection of `select` (name, expression over `plan`'s columns).
fn project(plan: LogicalPlan, select: Vec<(String, TExpr)>) -> LogicalPlan {
    let columns = select
        .iter()
        .map(|(n, e)| Column::new(n.clone(), e.ty))
        .collect();
    LogicalPlan::Project {
        input: plan.boxed(),
        exprs: select.into_iter().map(|(_, e)| e).collect(),
        columns,
    }
}
