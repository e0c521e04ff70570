//! The table engine: a [`TableQuery`] answered from a stored table's
//! blocks. Blocks are pruned by their statistics, each remaining block
//! filtered and aggregated in parallel, the per-block sorted vectors
//! merged, then HAVING, ORDER BY / LIMIT and the select list evaluated over
//! the groups that can still be returned. The strategies the rules chose
//! ([`crate::plan::Strategies`]) pick the paths below.

pub mod any_groups;
pub mod count_distinct;
pub mod survivors;
pub mod top_count;

use rayon::prelude::*;
use strata_format::Table;

use crate::agg::from_values::{fill, KeyRuns};
use crate::agg::group::{build_block, GroupSpec};
use crate::agg::layout::AggSlot;
use crate::agg::merge::{merge_all, Groups, Pool};
use crate::agg::output::{GroupRows, SlotInputs};
use crate::agg::plan::{plan_agg, AggPlan};
use crate::budget::{vector_bytes, Budget};
use crate::error::{internal, EngineError, Result};
use crate::expr::order::{sort_indices, SortKey};
use crate::expr::{eval, ExprKind, TExpr};
use crate::interrupt::Watch;
use crate::plan::table_query::Restriction;
use crate::plan::{OrderKey, TableQuery};
use crate::result::{QueryResult, ResultColumn};
use crate::rewrite::topk_sorted_values::LeadingColumn;
use crate::scan::block::{BlockCtx, Sel};
use crate::scan::filter::{compile, may_match, select, truth_of, Pred};
use crate::scan::selection::BlockFilter;
use crate::scan::topk;
use crate::value::{LType, Vector, NEG_ZERO_KEY, POS_ZERO_KEY};

/// A table query prepared to run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The query.
    pub query: TableQuery,
    /// The compiled WHERE.
    pub pred: Pred,
    /// The aggregation, if any.
    pub agg: Option<AggPlan>,
    /// Checked at every block: whether the query was interrupted.
    pub watch: Watch,
    /// The memory the query's results may hold.
    pub budget: Budget,
}

/// Prepares a table query: its filter compiled, its aggregation laid out.
pub fn plan(query: TableQuery, table: &Table) -> Result<Plan> {
    let pred = query.filter.as_ref().map_or(Pred::True, compile);
    let agg = match &query.aggregation {
        None => None,
        Some(a) => Some(plan_agg(&a.keys, &a.aggs, table)?),
    };
    Ok(Plan {
        query,
        pred,
        agg,
        watch: Watch::default(),
        budget: Budget::default(),
    })
}

/// The blocks to read: those with rows whose statistics allow matches
/// (every block with rows unless `block_pruning` was chosen).
pub fn live_blocks(plan: &Plan, table: &Table) -> Vec<usize> {
    let prune = plan.query.strategies.block_pruning;
    (0..table.num_blocks())
        .filter(|&b| table.block_rows(b) > 0 && (!prune || may_match(&plan.pred, table, b)))
        .collect()
}

/// `f` over every live block (its context, which `f` may keep) and its
/// filter, blocks in parallel (each checking for interruption first).
pub(crate) fn map_filtered_blocks<'t, T: Send>(
    plan: &Plan,
    table: &'t Table,
    f: impl Fn(BlockCtx<'t>, &BlockFilter) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    live_blocks(plan, table)
        .par_iter()
        .map(|&b| {
            plan.watch.check()?;
            f(BlockCtx::new(table, b), &BlockFilter::new(&plan.pred))
        })
        .collect()
}

/// Runs a plan.
pub fn run(plan: &Plan, table: &Table) -> Result<QueryResult> {
    let st = &plan.query.strategies;
    if st.count_distinct_union {
        if let Some(r) = count_distinct::run(plan, table)? {
            return Ok(r);
        }
    }
    let Some(a) = &plan.agg else {
        return run_rows(plan, table);
    };
    // An aggregation with LIMIT may only need the groups it returns.
    let only = match st.restriction {
        None => None,
        Some(Restriction::AnyGroups) => any_groups::restriction(plan, table)?,
        Some(Restriction::Survivors) => survivors::restriction(plan, table)?,
        Some(Restriction::TopCount) => top_count::restriction(plan, table)?,
    };
    match only {
        Some(only) => {
            let mut narrowed = plan.clone();
            narrowed.pred = Pred::And(vec![plan.pred.clone(), only]);
            run_agg(&narrowed, a, table)
        }
        None => run_agg(plan, a, table),
    }
}

fn run_pass(spec: &GroupSpec, plan: &Plan, table: &Table, pool: &Pool) -> Result<Groups> {
    let blocks = live_blocks(plan, table);
    let (kw, stride) = (spec.kw, spec.stride());
    let parts: Vec<Groups> = blocks
        .par_iter()
        .map(|&b| {
            plan.watch.check()?;
            let ctx = BlockCtx::new(table, b);
            let filter = BlockFilter::new(&plan.pred);
            let groups = build_block(spec, &ctx, &filter, pool)?;
            let bytes = groups.pieces.iter().map(|p| 8 * p.capacity() as u64).sum();
            plan.budget.charge(bytes, "the groups")?;
            Ok(groups)
        })
        .collect::<Result<_>>()?;
    let merged = merge_all(parts, &spec.layout, pool, kw, stride);
    plan.watch.check()?;
    Ok(merged)
}

/// Collapses groups keyed by (base key, argument value) into base-key
/// groups, filling the states of the calls computed from the argument's
/// distinct values (see [`crate::agg::from_values`]).
fn collapse(
    groups: Groups,
    spec: &GroupSpec,
    base_parts: usize,
    arg: &TExpr,
    pool: &Pool,
) -> Groups {
    let kb = spec.parts.get(base_parts).map_or(spec.kw, |p| p.off);
    let last = spec.parts.get(base_parts);
    let nullable = last.is_some_and(|p| p.nullable);
    let two_words = last.is_some_and(|p| p.value_words() == 2);
    let signed_zero = last.is_some_and(|p| p.signed_zero);
    let vo = kb + usize::from(nullable);
    let targets: Vec<&AggSlot> = spec
        .layout
        .slots
        .iter()
        .filter(|s| s.call.from_values() && s.call.arg() == Some(arg))
        .collect();
    let stride_out = kb + spec.layout.words;
    let mut out = Groups::new(kb, stride_out);
    let mut cur: Vec<u64> = Vec::new();
    let mut runs = KeyRuns::default();
    let flush = |cur: &mut Vec<u64>, runs: &mut KeyRuns, out: &mut Groups| {
        if !cur.is_empty() {
            for t in &targets {
                fill(t, &mut cur[kb..], runs);
            }
            out.push(cur, pool);
        }
        runs.clear();
    };
    for r in groups.rows() {
        if cur.is_empty() || cur[..kb] != r[..kb] {
            flush(&mut cur, &mut runs, &mut out);
            cur.clear();
            cur.extend_from_slice(&r[..kb]);
            cur.extend_from_slice(&r[spec.kw..]);
        } else {
            spec.layout.combine(&mut cur[kb..], &r[spec.kw..]);
        }
        if !(nullable && r[kb] == 1) {
            let key = if two_words {
                u128::from(r[vo]) << 64 | u128::from(r[vo + 1])
            } else {
                u128::from(r[vo])
            };
            let n = r[spec.kw];
            // A `-0.0` key (kept for the sign of an all-negative zero) and
            // the `+0.0` after it are one value.
            match (runs.keys.last_mut(), runs.counts.last_mut()) {
                (Some(k), Some(c)) if signed_zero && *k == NEG_ZERO_KEY && key == POS_ZERO_KEY => {
                    *k = POS_ZERO_KEY;
                    *c += n;
                }
                _ => {
                    runs.keys.push(key);
                    runs.counts.push(n);
                }
            }
        }
    }
    flush(&mut cur, &mut runs, &mut out);
    pool.give(groups.pieces);
    out
}

/// Groups per part when the first ORDER BY key is computed at every group
/// in parallel.
const CANDIDATE_PART: usize = 1 << 15;

pub(crate) fn run_agg(plan: &Plan, ap: &AggPlan, table: &Table) -> Result<QueryResult> {
    let pool = Pool::default();
    let q = &plan.query;
    let agg = q
        .aggregation
        .as_ref()
        .ok_or_else(|| EngineError::Internal("aggregate plan without aggregation".into()))?;
    let spec0 = &ap.passes[0];
    let mut main = run_pass(spec0, plan, table, &pool)?;
    if let Some(arg) = &ap.distinct_args[0] {
        main = collapse(main, spec0, ap.base_parts, arg, &pool);
    }
    let kb = main.kw;
    // Other distinct arguments: their counts join the main groups in order.
    for (spec, arg) in ap.passes.iter().zip(&ap.distinct_args).skip(1) {
        let Some(arg) = arg else { continue };
        let g = collapse(
            run_pass(spec, plan, table, &pool)?,
            spec,
            ap.base_parts,
            arg,
            &pool,
        );
        if g.len() != main.len() {
            return internal("distinct passes disagree on the groups");
        }
        let offs: Vec<(usize, usize)> = spec
            .layout
            .slots
            .iter()
            .filter(|s| s.call.from_values() && s.call.arg() == Some(arg))
            .map(|s| (kb + s.off, kb + s.off + s.kind.words()))
            .collect();
        let stride = main.stride;
        let mut other = g.rows();
        for p in &mut main.pieces {
            for r in p.chunks_exact_mut(stride) {
                if let Some(o) = other.next() {
                    for &(from, to) in &offs {
                        r[from..to].copy_from_slice(&o[from..to]);
                    }
                }
            }
        }
    }
    let mut rows: Vec<&[u64]> = Vec::with_capacity(main.len());
    rows.extend(main.rows());
    let empty_state;
    if rows.is_empty() && agg.keys.is_empty() {
        let mut st = vec![0u64; spec0.layout.words];
        spec0.layout.init(&mut st);
        empty_state = st;
        rows.push(&empty_state);
    }
    let groups = GroupRows {
        rows,
        spec: spec0,
        plan: ap,
        agg,
        table,
        kb,
        budget: &plan.budget,
    };
    let n = groups.len();

    // HAVING, and ORDER BY's first key at every group; the later keys only
    // at the groups that can still make the cut by the first key when there
    // is a LIMIT (with `ORDER BY c DESC, name LIMIT 10` over a million
    // groups, ten names).
    let keep = q.limit.map(|l| (l + q.offset) as usize);
    let staged = plan.query.strategies.staged_order_cut && keep.is_some() && q.order.len() > 1;
    let width = agg.keys.len() + agg.aggs.len();
    let (mut needed_cut, mut needed_sort) = (vec![false; width], vec![false; width]);
    let mark = |e: &TExpr, needed: &mut [bool]| {
        e.walk(&mut |x| {
            if let ExprKind::Ref(r) = x.kind {
                if let Some(f) = needed.get_mut(r) {
                    *f = true;
                }
            }
        })
    };
    if let Some(h) = &q.having {
        mark(h, &mut needed_cut);
    }
    for (i, o) in q.order.iter().enumerate() {
        if i == 0 && staged {
            mark(&o.expr, &mut needed_cut);
        }
        mark(&o.expr, &mut needed_sort);
    }
    // The groups of `part` that pass HAVING and (staged) can make the cut.
    let cut = |part: &[usize]| -> Result<Vec<usize>> {
        let slots = groups.slots(part, &|k| needed_cut[k])?;
        let mut pos: Vec<usize> = (0..part.len()).collect();
        if let Some(h) = &q.having {
            let t = truth_of(&*eval(h, part.len(), &SlotInputs(&slots))?);
            pos.retain(|&i| t[i]);
        }
        if let (true, Some(k), Some(o)) = (staged, keep, q.order.first()) {
            let first = eval(&o.expr, part.len(), &SlotInputs(&slots))?.into_owned();
            let key = SortKey {
                values: &first,
                desc: o.desc,
                nulls_first: o.nulls_first,
            };
            pos = crate::expr::order::leading_candidates(&key, pos, k);
        }
        Ok(pos.into_iter().map(|p| part[p]).collect())
    };
    let mut idx: Vec<usize> = (0..n).collect();
    if staged {
        // In parts on all threads: the candidates of a part include every
        // candidate among all groups that falls in it, so the candidates of
        // their union are the candidates.
        let parts: Vec<Vec<usize>> = idx
            .par_chunks(CANDIDATE_PART)
            .map(cut)
            .collect::<Result<_>>()?;
        idx = cut(&parts.concat())?;
    } else if q.having.is_some() {
        idx = cut(&idx)?;
    }
    if !q.order.is_empty() {
        let m = idx.len();
        let slots = groups.slots(&idx, &|k| needed_sort[k])?;
        let mut ovals = Vec::new();
        for o in &q.order {
            ovals.push(eval(&o.expr, m, &SlotInputs(&slots))?.into_owned());
        }
        let pos = sort_in_order(&q.order, &ovals, (0..m).collect(), keep);
        idx = pos.into_iter().map(|p| idx[p]).collect();
    }
    let off = (q.offset as usize).min(idx.len());
    idx.drain(..off);
    if let Some(l) = q.limit {
        idx.truncate(l as usize);
    }
    // The last select item reading each slot. Only slots the select list
    // reads are computed (a key that only groups is not fetched: its
    // strings can be most of the work), and a slot selected as it is moves
    // into the result at its last use.
    let mut last_use = vec![usize::MAX; width];
    for (i, (_, e)) in q.select.iter().enumerate() {
        e.walk(&mut |x| {
            if let ExprKind::Ref(r) = x.kind {
                if let Some(l) = last_use.get_mut(r) {
                    *l = i;
                }
            }
        });
    }
    let mut slots = groups.slots(&idx, &|k| last_use[k] != usize::MAX)?;
    // Held while the select list is evaluated over them; the operator's
    // output is charged when it is returned.
    let _slots_held = plan
        .budget
        .hold(slots.iter().map(vector_bytes).sum(), "the result rows")?;
    let mut columns = Vec::new();
    for (i, (name, e)) in q.select.iter().enumerate() {
        let v = match e.kind {
            ExprKind::Ref(r) if last_use.get(r) == Some(&i) && r < slots.len() => {
                std::mem::replace(&mut slots[r], Vector::empty(e.ty, 0))
            }
            _ => eval(e, idx.len(), &SlotInputs(&slots))?.into_owned(),
        };
        columns.push(ResultColumn {
            name: name.clone(),
            ty: e.ty,
            values: v,
        });
    }
    Ok(QueryResult { columns })
}

/// A block's candidate rows: their numbers, order keys and output columns
/// (empty when not materialised).
struct RowsOut {
    rows: Vec<u32>,
    /// With the leading-values shortcut: the storage key of the last value
    /// taken (at least `keep` selected rows sort no later than it).
    bound: Option<u64>,
    order: Vec<Vector>,
    cols: Vec<Vector>,
}

/// [`BlockCtx::eval_at`] for a few rows of many columns (`SELECT * ... LIMIT`):
/// each column is read on its own thread, through its own block context.
fn exprs_at_parallel(
    table: &Table,
    block: usize,
    rows: &[u32],
    exprs: &[&TExpr],
) -> Result<Vec<Vector>> {
    let loaded: Vec<(usize, Vector)> = crate::scan::block::columns_of(exprs)
        .into_par_iter()
        .map(|c| Ok((c, BlockCtx::new(table, block).output_column_at(c, rows)?)))
        .collect::<Result<_>>()?;
    crate::scan::block::eval_over(exprs, rows.len(), loaded)
}

fn rows_of_block(
    plan: &Plan,
    table: &Table,
    b: usize,
    keep: Option<usize>,
    materialize: bool,
) -> Result<RowsOut> {
    plan.watch.check()?;
    let q = &plan.query;
    let ctx = BlockCtx::new(table, b);
    let sel = select(&plan.pred, &ctx)?;
    // ORDER BY a stored column: only the rows of its leading values.
    let mut bound = None;
    let leading = match (keep, leading_column(plan, table)) {
        (Some(k), Some(l)) if k < sel.count(ctx.rows) => {
            if l.string {
                topk::leading_string_rows(&ctx, &sel, l.col, l.desc, l.nulls_first, k)?
                    .map(|rows| (rows, None))
            } else {
                topk::leading_rows(&ctx, &sel, l.col, l.desc, l.nulls_first, k)?
                    .map(|(rows, key)| (rows, Some(key)))
            }
        }
        _ => None,
    };
    let mut rows = match leading {
        Some((rows, key)) => {
            bound = key;
            rows
        }
        None => sel.rows(ctx.rows),
    };
    if sel == Sel::Empty {
        rows.clear();
    }
    // Columns are charged as they load; the charge is settled against the
    // rows returned at the end.
    let charged = std::cell::Cell::new(0u64);
    let charge = |bytes: u64| {
        charged.set(charged.get() + bytes);
        plan.budget.charge(bytes, "the result rows")
    };
    let load = |rows: &[u32], exprs: &[&TExpr]| ctx.eval_at_charged(rows, exprs, &charge);
    let order_exprs: Vec<&TExpr> = q.order.iter().map(|o| &o.expr).collect();
    let mut order = None;
    if q.order.is_empty() {
        if let Some(k) = keep {
            rows.truncate(k);
        }
    } else if keep.is_some_and(|k| k < rows.len()) {
        let ovals = load(&rows, &order_exprs)?;
        let idx = sort_in_order(&q.order, &ovals, (0..rows.len()).collect(), keep);
        rows = idx.iter().map(|&i| rows[i]).collect();
        let idx32: Vec<u32> = idx.iter().map(|&i| i as u32).collect();
        order = Some(ovals.iter().map(|v| v.gather(&idx32)).collect());
    }
    let sel_exprs: Vec<&TExpr> = if materialize {
        q.select.iter().map(|(_, e)| e).collect()
    } else {
        Vec::new()
    };
    let order = match order {
        Some(o) => o,
        None => load(&rows, &order_exprs)?,
    };
    let cols = load(&rows, &sel_exprs)?;
    let bytes: u64 = order.iter().chain(&cols).map(vector_bytes).sum();
    match bytes.checked_sub(charged.get()) {
        Some(more) => plan.budget.charge(more, "the result rows")?,
        None => plan.budget.release(charged.get() - bytes),
    }
    Ok(RowsOut {
        order,
        cols,
        rows,
        bound,
    })
}

/// The best rows of each block for `ORDER BY <column c> LIMIT keep` (NULLS
/// LAST), visiting blocks from the one whose statistics promise the best
/// value, a wave of one block per thread at a time; a block whose best
/// value sorts after the `keep` rows already found (or, without WHERE, known
/// from the statistics to exist) is skipped. On nearly sorted data that
/// reads one block.
fn leading_blocks(
    plan: &Plan,
    table: &Table,
    blocks: Vec<usize>,
    keep: usize,
    c: usize,
    desc: bool,
) -> Result<Vec<(usize, RowsOut)>> {
    use std::cmp::Ordering;
    let better = |x: u64, y: u64| if desc { y.cmp(&x) } else { x.cmp(&y) };
    // Each block's best key; all-NULL blocks (None) sort last.
    let mut order: Vec<(Option<u64>, usize)> = blocks
        .iter()
        .map(|&b| {
            let s = table.stats(b, c);
            (
                (s.distinct > 0).then_some(if desc { s.max } else { s.min }),
                b,
            )
        })
        .collect();
    order.sort_by(|a, b| match (a.0, b.0) {
        (Some(x), Some(y)) => better(x, y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    });
    let wave = rayon::current_num_threads().max(1);
    // Without WHERE every non-NULL row counts: the best blocks holding `keep`
    // of them bound the k-th key by the worst of their keys before any read.
    let mut threshold: Option<u64> = None;
    if matches!(plan.pred, Pred::True) {
        let mut rows = 0u64;
        for &(_, b) in order.iter().take_while(|(best, _)| best.is_some()) {
            let s = table.stats(b, c);
            let worst = if desc { s.min } else { s.max };
            threshold = Some(match threshold {
                Some(t) if better(t, worst) == Ordering::Greater => t,
                _ => worst,
            });
            rows += u64::from(s.rows - s.null_count.min(s.rows));
            if rows >= keep as u64 {
                break;
            }
        }
        if rows < keep as u64 {
            threshold = None;
        }
    }
    let mut outs = Vec::new();
    for chunk in order.chunks(wave) {
        // Blocks are in order: once one cannot reach the top, none after can.
        let batch: Vec<usize> = chunk
            .iter()
            .take_while(|(best, _)| match (best, threshold) {
                (_, None) => true,
                (Some(x), Some(t)) => better(*x, t) != Ordering::Greater,
                (None, Some(_)) => false,
            })
            .map(|x| x.1)
            .collect();
        if batch.is_empty() {
            break;
        }
        let got: Vec<RowsOut> = batch
            .par_iter()
            .map(|&b| rows_of_block(plan, table, b, Some(keep), false))
            .collect::<Result<_>>()?;
        for (b, o) in batch.into_iter().zip(got) {
            if let Some(k) = o.bound {
                threshold = Some(match threshold {
                    Some(t) if better(t, k) == Ordering::Less => t,
                    _ => k,
                });
            }
            outs.push((b, o));
        }
    }
    Ok(outs)
}

/// Sorts `idx` (positions in `values`) by the ORDER BY keys whose values at
/// each position are `values`, keeping the first `keep`.
fn sort_in_order(
    order: &[OrderKey],
    values: &[Vector],
    idx: Vec<usize>,
    keep: Option<usize>,
) -> Vec<usize> {
    let keys: Vec<SortKey> = order
        .iter()
        .zip(values)
        .map(|(o, v)| SortKey {
            values: v,
            desc: o.desc,
            nulls_first: o.nulls_first,
        })
        .collect();
    sort_indices(&keys, idx, keep)
}

/// The first ORDER BY key as a stored column to walk in order, where
/// `topk_sorted_values` was chosen.
fn leading_column(plan: &Plan, _table: &Table) -> Option<LeadingColumn> {
    if !plan.query.strategies.topk_sorted_values {
        return None;
    }
    crate::rewrite::topk_sorted_values::leading_column(&plan.query)
}

/// ORDER BY ... LIMIT: each block's best rows by the order keys only, then
/// the output columns of just the rows returned.
fn run_top_rows(plan: &Plan, table: &Table, keep: usize) -> Result<QueryResult> {
    let q = &plan.query;
    let blocks = live_blocks(plan, table);
    // Best-first block order uses the blocks' key statistics: fixed-width
    // columns only (a string column's statistics are hashes).
    let best_first = plan
        .query
        .strategies
        .topk_best_first
        .then(|| crate::rewrite::topk_sorted_values::leading_column(&plan.query))
        .flatten();
    let outs: Vec<(usize, RowsOut)> = match best_first {
        Some(l) if !l.string && !l.nulls_first => {
            leading_blocks(plan, table, blocks, keep, l.col, l.desc)?
        }
        _ => {
            let outs: Vec<RowsOut> = blocks
                .par_iter()
                .map(|&b| rows_of_block(plan, table, b, Some(keep), false))
                .collect::<Result<_>>()?;
            blocks.into_iter().zip(outs).collect()
        }
    };
    let mut order: Vec<Vector> = q
        .order
        .iter()
        .map(|o| Vector::empty(o.expr.ty, 0))
        .collect();
    let mut at: Vec<(usize, u32)> = Vec::new();
    for (b, o) in &outs {
        let b = *b;
        for (a, v) in order.iter_mut().zip(&o.order) {
            a.append(v);
        }
        at.extend(o.rows.iter().map(|&r| (b, r)));
    }
    let mut idx = sort_in_order(&q.order, &order, (0..at.len()).collect(), Some(keep));
    let off = (q.offset as usize).min(idx.len());
    idx.drain(..off);
    if let Some(l) = q.limit {
        idx.truncate(l as usize);
    }
    // The returned rows by block, then their place in the output.
    let mut by_block: std::collections::BTreeMap<usize, Vec<(u32, usize)>> = Default::default();
    for (pos, &i) in idx.iter().enumerate() {
        let (b, r) = at[i];
        by_block.entry(b).or_default().push((r, pos));
    }
    let sel_exprs: Vec<&TExpr> = q.select.iter().map(|(_, e)| e).collect();
    let parts: Vec<(Vec<usize>, Vec<Vector>)> = by_block
        .into_par_iter()
        .map(|(b, mut items)| {
            items.sort_unstable();
            let rows: Vec<u32> = items.iter().map(|x| x.0).collect();
            let cols = exprs_at_parallel(table, b, &rows, &sel_exprs)?;
            Ok((items.iter().map(|x| x.1).collect(), cols))
        })
        .collect::<Result<_>>()?;
    let mut place = vec![0u32; idx.len()];
    let mut n = 0u32;
    let mut by_column: Vec<Vec<Vector>> = q.select.iter().map(|_| Vec::new()).collect();
    for (positions, vs) in parts {
        for (a, v) in by_column.iter_mut().zip(vs) {
            a.push(v);
        }
        for p in positions {
            place[p] = n;
            n += 1;
        }
    }
    let cols = concat_columns(q.select.iter().map(|(_, e)| e.ty), by_column);
    Ok(select_rows(q, cols, &place))
}

/// Each column's blocks' parts (of the types `types`) as one vector.
fn concat_columns(types: impl Iterator<Item = LType>, parts: Vec<Vec<Vector>>) -> Vec<Vector> {
    types
        .zip(parts)
        .map(|(ty, p)| Vector::concat(ty, p))
        .collect()
}

fn run_rows(plan: &Plan, table: &Table) -> Result<QueryResult> {
    let q = &plan.query;
    let keep = q.limit.map(|l| (l + q.offset) as usize);
    if let (false, Some(k), true) = (
        q.order.is_empty(),
        keep,
        plan.query.strategies.late_materialization,
    ) {
        return run_top_rows(plan, table, k);
    }
    let blocks = live_blocks(plan, table);
    let outs: Vec<RowsOut> = if q.order.is_empty() && keep.is_some() {
        let mut outs = Vec::new();
        let mut have = 0;
        for &b in &blocks {
            if keep.is_some_and(|k| have >= k) {
                break;
            }
            let o = rows_of_block(plan, table, b, keep.map(|k| k - have), true)?;
            have += o.cols.first().map_or(0, |c| c.len());
            outs.push(o);
        }
        outs
    } else {
        blocks
            .par_iter()
            .map(|&b| rows_of_block(plan, table, b, keep, true))
            .collect::<Result<_>>()?
    };
    let order_rows: usize = outs
        .iter()
        .map(|o| o.order.first().map_or(0, |v| v.len()))
        .sum();
    // Moved, not copied: each block's rows are held once.
    let mut order_parts: Vec<Vec<Vector>> = q.order.iter().map(|_| Vec::new()).collect();
    let mut col_parts: Vec<Vec<Vector>> = q.select.iter().map(|_| Vec::new()).collect();
    for o in outs {
        for (a, b) in order_parts.iter_mut().zip(o.order) {
            a.push(b);
        }
        for (a, b) in col_parts.iter_mut().zip(o.cols) {
            a.push(b);
        }
    }
    let order = concat_columns(q.order.iter().map(|o| o.expr.ty), order_parts);
    let cols = concat_columns(q.select.iter().map(|(_, e)| e.ty), col_parts);
    let n = cols.first().map_or(order_rows, |c| c.len());
    let mut idx = sort_in_order(&q.order, &order, (0..n).collect(), keep);
    let off = (q.offset as usize).min(idx.len());
    idx.drain(..off);
    if let Some(l) = q.limit {
        idx.truncate(l as usize);
    }
    let idx32: Vec<u32> = idx.iter().map(|&i| i as u32).collect();
    Ok(select_rows(q, cols, &idx32))
}

/// The result: each select-list column's values gathered at `rows`.
fn select_rows(q: &TableQuery, cols: Vec<Vector>, rows: &[u32]) -> QueryResult {
    QueryResult {
        columns: q
            .select
            .iter()
            .zip(cols)
            .map(|((name, e), v)| ResultColumn {
                name: name.clone(),
                ty: e.ty,
                values: v.into_gathered(rows),
            })
            .collect(),
    }
}
