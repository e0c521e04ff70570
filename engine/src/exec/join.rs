//! Hash join: every [`JoinKind`] over two batches.
//!
//! The side with fewer rows is hashed (both inputs are materialised, so the
//! counts are exact); the other probes it. Rows whose key holds a NULL match
//! nothing (SQL's `=`). Pairs whose keys match are then tested against the
//! residual filter, in chunks. Without keys every pair is a candidate (a
//! nested loop, for cross joins and conditions that are not equalities).

use std::hash::BuildHasher;

use rayon::prelude::*;

use super::runtime_filter::{distinct_values, most_selective, KeyFilter, Side};
use super::{Batch, ExecCtx, Operator};
use crate::agg::accumulate::atom;
use crate::budget::{Budget, Held};
use crate::error::{EngineError, Result};
use crate::expr::{eval, TExpr};
use crate::plan::JoinKind;
use crate::scan::filter::truth_of;
use crate::strs::Strs;
use crate::value::{Data, LType, Value, Vector};

/// Candidate pairs tested against the residual filter at once.
const PAIR_CHUNK: usize = 1 << 20;

/// Joins two inputs.
#[derive(Debug)]
pub struct HashJoin {
    /// Its number in the tree.
    pub id: usize,
    /// How rows combine.
    pub kind: JoinKind,
    /// The left input.
    pub left: Box<dyn Operator>,
    /// The right input.
    pub right: Box<dyn Operator>,
    /// Equality keys (left expression, right expression).
    pub keys: Vec<(TExpr, TExpr)>,
    /// The residual condition over left columns then right columns.
    pub filter: Option<TExpr>,
    /// The right input's column types (for NULL rows).
    pub right_types: Vec<LType>,
    /// Semi-join reduction: the input whose scans the other input's key
    /// values filter, and the keys that may filter them; the one that
    /// cuts most is set once the other input has run.
    pub reduce: Option<(Side, Vec<KeyFilter>)>,
    /// Run both inputs at once (neither filters the other's scans).
    pub parallel_inputs: bool,
}

/// Per left row, its matching right rows (after the residual filter).
struct Matches {
    /// Pairs (left, right), in left order.
    pairs: Vec<(u32, u32)>,
    /// Their memory, charged while they live.
    _held: Vec<Held>,
}

/// Probe rows handed to one worker at a time.
const PROBE_CHUNK: usize = 1 << 16;

/// Bytes of one (left row, right row) pair.
const PAIR_BYTES: u64 = std::mem::size_of::<(u32, u32)>() as u64;

/// One side's key values and, per row, a hash of them.
struct Keys {
    cols: Vec<Vector>,
    hashes: Vec<u64>,
    /// Per row, whether a key part is NULL (such a row matches nothing);
    /// empty when no row's is.
    null: Vec<bool>,
}

impl Keys {
    fn is_null(&self, i: usize) -> bool {
        !self.null.is_empty() && self.null[i]
    }
}

/// A 64-bit integer's hash (a multiply and a fold: keys that are dense
/// integers spread over the table's buckets).
#[inline]
fn mix(x: u64) -> u64 {
    let m = u128::from(x ^ 0x9e37_79b9_7f4a_7c15) * 0xa076_1d64_78bd_642f_u128;
    (m as u64) ^ ((m >> 64) as u64)
}

/// The key columns of both sides, evaluated, and each row's hash. A key
/// part that is a 64-bit integer on both sides is hashed as one; others
/// by their values' atoms (equal values, equal hashes, across the sides).
fn keys_of_both(
    lexprs: &[&TExpr],
    l: &Batch,
    rexprs: &[&TExpr],
    r: &Batch,
) -> Result<(Keys, Keys)> {
    let eval_all = |exprs: &[&TExpr], b: &Batch| -> Result<Vec<Vector>> {
        exprs
            .iter()
            .map(|e| Ok(eval(e, b.rows, b)?.into_owned()))
            .collect()
    };
    let (lc, rc) = (eval_all(lexprs, l)?, eval_all(rexprs, r)?);
    let ints: Vec<bool> = lc
        .iter()
        .zip(&rc)
        .map(|(a, b)| matches!((&a.data, &b.data), (Data::I64(_), Data::I64(_))))
        .collect();
    Ok((hash_rows(lc, &ints), hash_rows(rc, &ints)))
}

fn hash_rows(cols: Vec<Vector>, ints: &[bool]) -> Keys {
    let n = cols.first().map_or(0, Vector::len);
    let state = foldhash::fast::FixedState::with_seed(0x5eed);
    let mut hashes = vec![0u64; n];
    let mut null = Vec::new();
    if cols.iter().any(|c| c.nulls.is_some()) {
        null = (0..n).map(|i| cols.iter().any(|c| c.is_null(i))).collect();
    }
    hashes
        .par_chunks_mut(PROBE_CHUNK)
        .enumerate()
        .for_each(|(k, chunk)| {
            let base = k * PROBE_CHUNK;
            for (part, c) in cols.iter().enumerate() {
                match (&c.data, ints[part]) {
                    (Data::I64(d), true) => {
                        for (h, &x) in chunk.iter_mut().zip(&d[base..]) {
                            *h = mix(*h ^ x as u64);
                        }
                    }
                    _ => {
                        for (o, h) in chunk.iter_mut().enumerate() {
                            *h = mix(*h ^ state.hash_one(atom(c, base + o)));
                        }
                    }
                }
            }
        });
    Keys { cols, hashes, null }
}

/// Whether row `i` of `a` and row `j` of `b` have equal keys.
#[inline]
fn same_key(a: &Keys, i: usize, b: &Keys, j: usize) -> bool {
    a.cols
        .iter()
        .zip(&b.cols)
        .all(|(x, y)| match (&x.data, &y.data) {
            (Data::I64(p), Data::I64(q)) => p[i] == q[j],
            _ => atom(x, i) == atom(y, j),
        })
}

/// A chained hash table over one side's rows: per bucket its first row,
/// per row the next row of its bucket, in ascending row order.
struct Table {
    mask: u64,
    heads: Vec<u32>,
    next: Vec<u32>,
}

/// No row.
const NONE: u32 = u32::MAX;

impl Table {
    fn build(k: &Keys) -> Table {
        let n = k.hashes.len();
        let buckets = (n.max(1) * 2).next_power_of_two();
        let mut heads = vec![NONE; buckets];
        let mut next = vec![NONE; n];
        let mask = (buckets - 1) as u64;
        for i in (0..n).rev() {
            if k.is_null(i) {
                continue;
            }
            let b = (k.hashes[i] & mask) as usize;
            next[i] = heads[b];
            heads[b] = i as u32;
        }
        Table { mask, heads, next }
    }

    /// Memory the table holds.
    fn bytes(&self) -> u64 {
        4 * (self.heads.len() + self.next.len()) as u64
    }

    /// Calls `f` with each row of the hashed side whose keys equal row `i`
    /// of `probe`, in ascending order.
    #[inline]
    fn each_match(&self, built: &Keys, probe: &Keys, i: usize, mut f: impl FnMut(u32)) {
        if probe.is_null(i) {
            return;
        }
        let h = probe.hashes[i];
        let mut j = self.heads[(h & self.mask) as usize];
        while j != NONE {
            let ju = j as usize;
            if built.hashes[ju] == h && same_key(probe, i, built, ju) {
                f(j);
            }
            j = self.next[ju];
        }
    }

    /// Every matching pair (probe row, built row), probe rows in order,
    /// probed in parallel chunks, each charged to `budget` as it is made
    /// (the pairs are held for as long as the returned guard lives).
    fn probe_all(
        &self,
        built: &Keys,
        probe: &Keys,
        budget: &Budget,
    ) -> Result<(Vec<(u32, u32)>, Held)> {
        const WHAT: &str = "the pairs of a join";
        let n = probe.hashes.len();
        let parts: Vec<Vec<(u32, u32)>> = (0..n.div_ceil(PROBE_CHUNK))
            .into_par_iter()
            .map(|k| {
                let mut out = Vec::new();
                for i in k * PROBE_CHUNK..((k + 1) * PROBE_CHUNK).min(n) {
                    self.each_match(built, probe, i, |j| out.push((i as u32, j)));
                }
                budget.charge(PAIR_BYTES * out.len() as u64, WHAT)?;
                Ok(out)
            })
            .collect::<Result<_>>()?;
        let total: usize = parts.iter().map(Vec::len).sum();
        // One vector, each part freed once moved.
        let mut pairs = Vec::with_capacity(total);
        for p in parts {
            pairs.extend(p);
        }
        Ok((pairs, budget.held(PAIR_BYTES * total as u64)))
    }
}

impl HashJoin {
    /// The pairs whose keys match, then pass the residual filter.
    fn matches(&self, ctx: &ExecCtx, l: &Batch, r: &Batch) -> Result<Matches> {
        let lexprs: Vec<&TExpr> = self.keys.iter().map(|k| &k.0).collect();
        let rexprs: Vec<&TExpr> = self.keys.iter().map(|k| &k.1).collect();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut held = Vec::new();
        if self.keys.is_empty() {
            // Every pair, a chunk of left rows at a time, filtered as made.
            if r.rows == 0 {
                return Ok(Matches { pairs, _held: held });
            }
            let step = (PAIR_CHUNK / r.rows).max(1);
            let mut start = 0;
            // Kept pairs per chunk, joined into one vector at the end: a
            // vector grown pair by pair would hold up to twice its pairs.
            let mut parts: Vec<Vec<(u32, u32)>> = Vec::new();
            while start < l.rows {
                ctx.watch.check()?;
                let end = (start + step).min(l.rows);
                let mut chunk = Vec::with_capacity((end - start) * r.rows);
                for i in start as u32..end as u32 {
                    chunk.extend((0..r.rows as u32).map(|j| (i, j)));
                }
                let kept = match &self.filter {
                    Some(f) => self.filtered(ctx, f, l, r, chunk)?,
                    None => chunk,
                };
                held.push(
                    ctx.budget
                        .hold(PAIR_BYTES * kept.len() as u64, "the pairs of a join")?,
                );
                parts.push(kept);
                start = end;
            }
            pairs.reserve_exact(parts.iter().map(Vec::len).sum());
            for p in parts {
                pairs.extend(p);
            }
            return Ok(Matches { pairs, _held: held });
        } else {
            let (lk, rk) = keys_of_both(&lexprs, l, &rexprs, r)?;
            // Hash the smaller side. LEFT and FULL joins walk the pairs in
            // left order.
            if r.rows <= l.rows {
                let t = Table::build(&rk);
                held.push(ctx.budget.hold(t.bytes(), "a join's hash table entries")?);
                let (p, h) = t.probe_all(&rk, &lk, &ctx.budget)?;
                pairs = p;
                held.push(h);
            } else {
                let t = Table::build(&lk);
                held.push(ctx.budget.hold(t.bytes(), "a join's hash table entries")?);
                let (p, h) = t.probe_all(&lk, &rk, &ctx.budget)?;
                pairs = p;
                held.push(h);
                pairs.iter_mut().for_each(|p| *p = (p.1, p.0));
                if matches!(self.kind, JoinKind::Left | JoinKind::Full) {
                    sort_by_left(&mut pairs, l.rows);
                }
            }
        }
        ctx.watch.check()?;
        if let Some(f) = &self.filter {
            pairs = self.filtered(ctx, f, l, r, pairs)?;
        }
        Ok(Matches { pairs, _held: held })
    }

    /// The pairs for which `f` (over left columns then right columns) is
    /// true, tested a chunk at a time.
    fn filtered(
        &self,
        ctx: &ExecCtx,
        f: &TExpr,
        l: &Batch,
        r: &Batch,
        pairs: Vec<(u32, u32)>,
    ) -> Result<Vec<(u32, u32)>> {
        let mut out = Vec::new();
        for chunk in pairs.chunks(PAIR_CHUNK) {
            ctx.watch.check()?;
            let li: Vec<u32> = chunk.iter().map(|p| p.0).collect();
            let ri: Vec<u32> = chunk.iter().map(|p| p.1).collect();
            let mut cols: Vec<Vector> = l.columns.iter().map(|c| c.gather(&li)).collect();
            cols.extend(r.columns.iter().map(|c| c.gather(&ri)));
            let b = Batch::new(cols, chunk.len());
            let t = truth_of(&*eval(f, b.rows, &b)?);
            out.extend(chunk.iter().zip(t).filter(|(_, k)| *k).map(|(p, _)| *p));
        }
        Ok(out)
    }

    /// For `IN`'s NULL rules: per left row, whether some right row that
    /// matches it on every key but the last has a NULL last key, and
    /// whether some right row matches it on those keys at all.
    fn null_groups(&self, l: &Batch, r: &Batch) -> Result<(Vec<bool>, Vec<bool>)> {
        let n = self.keys.len();
        let other_l: Vec<&TExpr> = self.keys[..n - 1].iter().map(|k| &k.0).collect();
        let other_r: Vec<&TExpr> = self.keys[..n - 1].iter().map(|k| &k.1).collect();
        let last_r = eval(&self.keys[n - 1].1, r.rows, r)?.into_owned();
        let (lk, rk) = keys_of_both(&other_l, l, &other_r, r)?;
        let t = Table::build(&rk);
        let mut has_null = vec![false; l.rows];
        let mut any = vec![false; l.rows];
        for i in 0..l.rows {
            if other_l.is_empty() {
                any[i] = r.rows > 0;
                has_null[i] = (0..r.rows).any(|j| last_r.is_null(j));
                continue;
            }
            t.each_match(&rk, &lk, i, |j| {
                any[i] = true;
                has_null[i] |= last_r.is_null(j as usize);
            });
        }
        Ok((has_null, any))
    }
}

/// Orders pairs by their left row (a counting sort; pairs of one left row
/// keep their order).
fn sort_by_left(pairs: &mut Vec<(u32, u32)>, left_rows: usize) {
    let mut start = vec![0u32; left_rows + 1];
    for p in pairs.iter() {
        start[p.0 as usize + 1] += 1;
    }
    for i in 0..left_rows {
        start[i + 1] += start[i];
    }
    let mut out = vec![(0u32, 0u32); pairs.len()];
    for &p in pairs.iter() {
        let at = &mut start[p.0 as usize];
        out[*at as usize] = p;
        *at += 1;
    }
    *pairs = out;
}

/// `v` gathered at `idx`, where `u32::MAX` is a NULL row.
fn gather(v: &Vector, idx: &[u32]) -> Vector {
    v.gather(idx)
}

impl HashJoin {
    /// Sets, of `filters`, the one whose key values in `input` (the side
    /// that ran first; `side` picks the key's expression over it) keep the
    /// smallest share of the filtered column's values.
    fn set_filters(
        &self,
        filters: &[KeyFilter],
        input: &Batch,
        side: impl Fn(&(TExpr, TExpr)) -> &TExpr,
    ) -> Result<()> {
        let mut values = Vec::with_capacity(filters.len());
        for f in filters {
            values.push(distinct_values(&*eval(
                side(&self.keys[f.key]),
                input.rows,
                input,
            )?));
        }
        let best = most_selective(filters, &values);
        for (i, (f, v)) in filters.iter().zip(values).enumerate() {
            f.filter.set(if Some(i) == best { v } else { None });
        }
        Ok(())
    }
}

impl Operator for HashJoin {
    fn describe(&self) -> String {
        let at_once = if self.parallel_inputs {
            " (inputs run at once)"
        } else {
            ""
        };
        if self.keys.is_empty() {
            format!("NestedLoopJoin {}{at_once}", self.kind.name())
        } else {
            let reduce = match &self.reduce {
                Some((Side::Right, f)) if f.len() > 1 => {
                    ", the left key that cuts most filters the right scan"
                }
                Some((Side::Left, f)) if f.len() > 1 => {
                    ", the right key that cuts most filters the left scan"
                }
                Some((Side::Right, ..)) => ", left keys filter the right scan",
                Some((Side::Left, ..)) => ", right keys filter the left scan",
                None if self.parallel_inputs => ", inputs run at once",
                None => "",
            };
            format!(
                "HashJoin {} (builds the smaller side{reduce})",
                self.kind.name()
            )
        }
    }

    fn children(&self) -> Vec<&dyn Operator> {
        vec![self.left.as_ref(), self.right.as_ref()]
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, ctx: &ExecCtx) -> Result<Batch> {
        let (l, r) = match &self.reduce {
            Some((Side::Right, filters)) => {
                let l = ctx.run(self.left.as_ref())?;
                self.set_filters(filters, &l, |k| &k.0)?;
                (l, ctx.run(self.right.as_ref())?)
            }
            Some((Side::Left, filters)) => {
                let r = ctx.run(self.right.as_ref())?;
                self.set_filters(filters, &r, |k| &k.1)?;
                (ctx.run(self.left.as_ref())?, r)
            }
            None if self.parallel_inputs => {
                let (l, r) = rayon::join(
                    || ctx.run(self.left.as_ref()),
                    || ctx.run(self.right.as_ref()),
                );
                (l?, r?)
            }
            None => (ctx.run(self.left.as_ref())?, ctx.run(self.right.as_ref())?),
        };
        let m = self.matches(ctx, &l, &r)?;
        let matched_left = || {
            let mut seen = vec![false; l.rows];
            for p in &m.pairs {
                seen[p.0 as usize] = true;
            }
            seen
        };
        let left_only = |keep: &[u32]| -> Batch { l.gather(keep) };
        Ok(match &self.kind {
            JoinKind::Inner => {
                let (li, ri): (Vec<u32>, Vec<u32>) = m.pairs.iter().copied().unzip();
                drop(m);
                both_sides(ctx, l, &li, r, &ri)?
            }
            JoinKind::Left | JoinKind::Full => {
                let mut li = Vec::with_capacity(m.pairs.len());
                let mut ri = Vec::with_capacity(m.pairs.len());
                let mut k = 0;
                for i in 0..l.rows as u32 {
                    let start = k;
                    while k < m.pairs.len() && m.pairs[k].0 == i {
                        li.push(i);
                        ri.push(m.pairs[k].1);
                        k += 1;
                    }
                    if k == start {
                        li.push(i);
                        ri.push(u32::MAX);
                    }
                }
                if self.kind == JoinKind::Full {
                    let mut seen = vec![false; r.rows];
                    for p in &m.pairs {
                        seen[p.1 as usize] = true;
                    }
                    for (j, s) in seen.iter().enumerate() {
                        if !s {
                            li.push(u32::MAX);
                            ri.push(j as u32);
                        }
                    }
                }
                drop(m);
                both_sides(ctx, l, &li, r, &ri)?
            }
            JoinKind::Right => {
                let mut seen = vec![false; r.rows];
                let (mut li, mut ri): (Vec<u32>, Vec<u32>) = m
                    .pairs
                    .iter()
                    .map(|&(i, j)| {
                        seen[j as usize] = true;
                        (i, j)
                    })
                    .unzip();
                for (j, s) in seen.iter().enumerate() {
                    if !s {
                        li.push(u32::MAX);
                        ri.push(j as u32);
                    }
                }
                drop(m);
                both_sides(ctx, l, &li, r, &ri)?
            }
            JoinKind::Semi => {
                let seen = matched_left();
                let keep: Vec<u32> = (0..l.rows as u32).filter(|&i| seen[i as usize]).collect();
                left_only(&keep)
            }
            JoinKind::Anti => {
                let seen = matched_left();
                let keep: Vec<u32> = (0..l.rows as u32).filter(|&i| !seen[i as usize]).collect();
                left_only(&keep)
            }
            JoinKind::AntiNullAware => {
                let seen = matched_left();
                let last_l = match self.keys.last() {
                    Some(k) => eval(&k.0, l.rows, &l)?.into_owned(),
                    None => Vector::empty(LType::Null, 0),
                };
                let (has_null, any) = if self.keys.is_empty() {
                    (vec![false; l.rows], vec![r.rows > 0; l.rows])
                } else {
                    self.null_groups(&l, &r)?
                };
                let keep: Vec<u32> = (0..l.rows)
                    .filter(|&i| {
                        // x NOT IN (empty) is true, even for a NULL x.
                        let null_key = i < last_l.len() && last_l.is_null(i);
                        !any[i] || !(seen[i] || has_null[i] || null_key)
                    })
                    .map(|i| i as u32)
                    .collect();
                left_only(&keep)
            }
            JoinKind::Mark { null_aware } => {
                let seen = matched_left();
                let mut mark = Vector {
                    ty: LType::Bool,
                    data: Data::Bool(seen.clone()),
                    nulls: None,
                };
                if *null_aware && !self.keys.is_empty() {
                    let last_l = eval(&self.keys[self.keys.len() - 1].0, l.rows, &l)?.into_owned();
                    let (has_null, any) = self.null_groups(&l, &r)?;
                    for i in 0..l.rows {
                        if !seen[i] && any[i] && (last_l.is_null(i) || has_null[i]) {
                            mark.set_null(i);
                        }
                    }
                }
                let mut cols = l.columns;
                cols.push(mark);
                Batch::new(cols, l.rows)
            }
            JoinKind::Single { default } => {
                let mut ri = vec![u32::MAX; l.rows];
                for &(i, j) in &m.pairs {
                    if ri[i as usize] != u32::MAX {
                        return Err(EngineError::Runtime(
                            "More than one row returned by a subquery used as an expression \
                             - scalar subqueries can only return a single row."
                                .into(),
                        ));
                    }
                    ri[i as usize] = j;
                }
                let mut cols = l.columns;
                for (c, v) in r.columns.iter().enumerate() {
                    let mut g = gather(v, &ri);
                    if let Some(d) = default.as_ref().and_then(|d| d.get(c)) {
                        if let (Value::Str(x), Data::Str(strs)) = (d, &g.data) {
                            // Strings rebuilt in one pass (a string set in
                            // place would move every later one).
                            let mut out = Strs::with_capacity(strs.len());
                            for (i, &j) in ri.iter().enumerate() {
                                out.push(if j == u32::MAX { x } else { &strs[i] });
                            }
                            g.data = Data::Str(out);
                            if let Some(n) = &mut g.nulls {
                                for (i, &j) in ri.iter().enumerate() {
                                    n[i] &= j != u32::MAX;
                                }
                            }
                        } else if !matches!(d, Value::Null) {
                            for (i, &j) in ri.iter().enumerate() {
                                if j == u32::MAX {
                                    set_value(&mut g, i, d);
                                }
                            }
                        }
                    }
                    cols.push(g);
                }
                Batch::new(cols, l.rows)
            }
        })
    }
}

/// The rows `li` of `l` beside the rows `ri` of `r` (`u32::MAX`: NULL),
/// charged before they are gathered (`ExecCtx::run` charges the batch once
/// it is returned): a join's rows can take far more memory than its inputs
/// or its pairs. A side whose rows all come once, in order, is moved.
fn both_sides(ctx: &ExecCtx, l: Batch, li: &[u32], r: Batch, ri: &[u32]) -> Result<Batch> {
    let per_row = |b: &Batch| b.bytes().checked_div(b.rows as u64).unwrap_or(0) + 1;
    let bytes = li.len() as u64 * (per_row(&l) + per_row(&r));
    let _out = ctx.budget.hold(bytes, "a join's output rows")?;
    let mut cols = l.into_columns_at(li);
    cols.extend(r.into_columns_at(ri));
    Ok(Batch::new(cols, li.len()))
}

/// Sets row `i` of `v` to `value` (of `v`'s type).
fn set_value(v: &mut Vector, i: usize, value: &Value) {
    match (&mut v.data, value) {
        (Data::Bool(d), Value::Bool(x)) => d[i] = *x,
        (Data::I64(d), Value::Int(x)) => d[i] = *x,
        (Data::U64(d), Value::UInt(x)) => d[i] = *x,
        (Data::I128(d), Value::Huge(x)) => d[i] = *x,
        (Data::I128(d), Value::Int(x)) => d[i] = i128::from(*x),
        (Data::F64(d), Value::Float(x)) => d[i] = *x,
        _ => return,
    }
    if let Some(n) = &mut v.nulls {
        n[i] = false;
    }
}
