//! Hash join: every [`JoinKind`] over two batches.
//!
//! The side with fewer rows is hashed (both inputs are materialised, so the
//! counts are exact); the other probes it. Rows whose key holds a NULL match
//! nothing (SQL's `=`). Pairs whose keys match are then tested against the
//! residual filter, in chunks. Without keys every pair is a candidate (a
//! nested loop, for cross joins and conditions that are not equalities).

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};

use super::{Batch, ExecCtx, Operator};
use crate::agg::accumulate::{atom, Atom};
use crate::budget::Held;
use crate::error::{EngineError, Result};
use crate::expr::{eval, TExpr};
use crate::plan::JoinKind;
use crate::scan::filter::truth_of;
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
}

/// Per left row, its matching right rows (after the residual filter).
struct Matches {
    /// Pairs (left, right), in left order.
    pairs: Vec<(u32, u32)>,
    /// Their memory, charged while they live.
    _held: Vec<Held>,
}

/// One side's key values and, per row, a hash of them (`None`: a NULL key
/// part, which matches nothing).
struct Keys {
    cols: Vec<Vector>,
    hashes: Vec<Option<u64>>,
}

fn keys_of(exprs: &[&TExpr], b: &Batch) -> Result<Keys> {
    let mut cols = Vec::with_capacity(exprs.len());
    for e in exprs {
        cols.push(eval(e, b.rows, b)?.into_owned());
    }
    let state = foldhash::fast::FixedState::with_seed(0x5eed);
    let hashes = (0..b.rows)
        .map(|i| {
            let mut h = state.build_hasher();
            for c in &cols {
                let a = atom(c, i);
                if a == Atom::Null {
                    return None;
                }
                a.hash(&mut h);
            }
            Some(h.finish())
        })
        .collect();
    Ok(Keys { cols, hashes })
}

/// Whether row `i` of `a` and row `j` of `b` have equal keys.
fn same_key(a: &Keys, i: usize, b: &Keys, j: usize) -> bool {
    a.cols
        .iter()
        .zip(&b.cols)
        .all(|(x, y)| atom(x, i) == atom(y, j))
}

/// A hash table over one side's rows: rows sorted by key hash, and each
/// hash's range.
struct Table {
    rows: Vec<u32>,
    ranges: HashMap<u64, (u32, u32), foldhash::fast::FixedState>,
}

impl Table {
    fn build(k: &Keys) -> Table {
        let mut rows: Vec<u32> = (0..k.hashes.len() as u32)
            .filter(|&i| k.hashes[i as usize].is_some())
            .collect();
        rows.sort_unstable_by_key(|&i| k.hashes[i as usize]);
        let mut ranges = HashMap::with_capacity_and_hasher(rows.len(), Default::default());
        let mut s = 0;
        while s < rows.len() {
            let h = k.hashes[rows[s] as usize];
            let mut e = s + 1;
            while e < rows.len() && k.hashes[rows[e] as usize] == h {
                e += 1;
            }
            if let Some(h) = h {
                ranges.insert(h, (s as u32, e as u32));
            }
            s = e;
        }
        Table { rows, ranges }
    }

    /// The rows of the hashed side whose keys equal row `i` of `probe`.
    fn lookup<'a>(
        &'a self,
        built: &'a Keys,
        probe: &'a Keys,
        i: usize,
    ) -> impl Iterator<Item = u32> + 'a {
        let range = probe.hashes[i]
            .and_then(|h| self.ranges.get(&h))
            .map_or(0..0, |&(s, e)| s as usize..e as usize);
        self.rows[range]
            .iter()
            .copied()
            .filter(move |&j| same_key(probe, i, built, j as usize))
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
                        .hold(8 * kept.len() as u64, "the pairs of a join")?,
                );
                pairs.extend(kept);
                start = end;
            }
            return Ok(Matches { pairs, _held: held });
        } else {
            let lk = keys_of(&lexprs, l)?;
            let rk = keys_of(&rexprs, r)?;
            // Hash the smaller side; keep pairs in left order.
            if r.rows <= l.rows {
                let t = Table::build(&rk);
                for i in 0..l.rows {
                    pairs.extend(t.lookup(&rk, &lk, i).map(|j| (i as u32, j)));
                }
            } else {
                let t = Table::build(&lk);
                for j in 0..r.rows {
                    pairs.extend(t.lookup(&lk, &rk, j).map(|i| (i, j as u32)));
                }
                pairs.sort_unstable();
            }
        }
        ctx.watch.check()?;
        held.push(
            ctx.budget
                .hold(8 * pairs.len() as u64, "the pairs of a join")?,
        );
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
        let lk = keys_of(&other_l, l)?;
        let rk = keys_of(&other_r, r)?;
        let t = Table::build(&rk);
        let mut has_null = vec![false; l.rows];
        let mut any = vec![false; l.rows];
        for i in 0..l.rows {
            if other_l.is_empty() {
                any[i] = r.rows > 0;
                has_null[i] = (0..r.rows).any(|j| last_r.is_null(j));
                continue;
            }
            for j in t.lookup(&rk, &lk, i) {
                any[i] = true;
                has_null[i] |= last_r.is_null(j as usize);
            }
        }
        Ok((has_null, any))
    }
}

/// `v` gathered at `idx`, where `u32::MAX` is a NULL row.
fn gather(v: &Vector, idx: &[u32]) -> Vector {
    v.gather(idx)
}

impl Operator for HashJoin {
    fn describe(&self) -> String {
        if self.keys.is_empty() {
            format!("NestedLoopJoin {}", self.kind.name())
        } else {
            format!("HashJoin {} (builds the smaller side)", self.kind.name())
        }
    }

    fn children(&self) -> Vec<&dyn Operator> {
        vec![self.left.as_ref(), self.right.as_ref()]
    }

    fn id(&self) -> usize {
        self.id
    }

    fn execute(&self, ctx: &ExecCtx) -> Result<Batch> {
        let l = ctx.run(self.left.as_ref())?;
        let r = ctx.run(self.right.as_ref())?;
        let m = self.matches(ctx, &l, &r)?;
        let matched_left = || {
            let mut seen = vec![false; l.rows];
            for p in &m.pairs {
                seen[p.0 as usize] = true;
            }
            seen
        };
        let both = |li: &[u32], ri: &[u32]| -> Batch {
            let mut cols: Vec<Vector> = l.columns.iter().map(|c| gather(c, li)).collect();
            cols.extend(r.columns.iter().map(|c| gather(c, ri)));
            Batch::new(cols, li.len())
        };
        let left_only = |keep: &[u32]| -> Batch { l.gather(keep) };
        Ok(match &self.kind {
            JoinKind::Inner => {
                let (li, ri): (Vec<u32>, Vec<u32>) = m.pairs.iter().copied().unzip();
                both(&li, &ri)
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
                both(&li, &ri)
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
                both(&li, &ri)
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
                        if !matches!(d, Value::Null) {
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

/// Sets row `i` of `v` to `value` (of `v`'s type).
fn set_value(v: &mut Vector, i: usize, value: &Value) {
    match (&mut v.data, value) {
        (Data::Bool(d), Value::Bool(x)) => d[i] = *x,
        (Data::I64(d), Value::Int(x)) => d[i] = *x,
        (Data::U64(d), Value::UInt(x)) => d[i] = *x,
        (Data::I128(d), Value::Huge(x)) => d[i] = *x,
        (Data::I128(d), Value::Int(x)) => d[i] = i128::from(*x),
        (Data::F64(d), Value::Float(x)) => d[i] = *x,
        (Data::Str(d), Value::Str(x)) => d[i] = x.clone(),
        _ => return,
    }
    if let Some(n) = &mut v.nulls {
        n[i] = false;
    }
}
