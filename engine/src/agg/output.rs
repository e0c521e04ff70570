//! The last stage of an aggregation: merged groups to result rows.
//!
//! A result slot (a group key, then an aggregate) is computed only at the
//! groups that need it: HAVING and ORDER BY inputs at every group, the rest
//! only at the groups returned. With millions of groups and a `LIMIT 10`
//! that turns most of the output work into ten rows' worth; strings are
//! fetched from their blocks for the returned groups alone.

use rayon::prelude::*;
use strata_format::Table;

use crate::agg::func::Aggregation;
use crate::agg::group::{GroupSpec, KeyPart, PartKind};
use crate::agg::plan::{AggPlan, KeySource};
use crate::budget::Budget;
use crate::error::{internal, EngineError, Result};
use crate::expr::{eval, Columns, Inputs, TExpr};
use crate::scan::block::BlockCtx;
use crate::value::{value_of_key, Data, LType, Value, Vector};

/// Merged groups (rows of key words then states) ready to be turned into
/// result slots.
pub struct GroupRows<'a> {
    /// One row per group.
    pub rows: Vec<&'a [u64]>,
    /// The layout of the rows.
    pub spec: &'a GroupSpec,
    /// The aggregation plan.
    pub plan: &'a AggPlan,
    /// The bound aggregation.
    pub agg: &'a Aggregation,
    /// The table, for strings.
    pub table: &'a Table,
    /// Offset of the first state word in a row.
    pub kb: usize,
    /// The query's memory budget, charged for strings while they are
    /// fetched (before the caller holds the finished slots).
    pub budget: &'a Budget,
}

impl GroupRows<'_> {
    /// Number of groups.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are no groups.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The slots (bound keys, then aggregates) at groups `idx`; a slot not
    /// `want`ed is left empty.
    pub fn slots(&self, idx: &[usize], want: &dyn Fn(usize) -> bool) -> Result<Vec<Vector>> {
        let nkeys = self.agg.keys.len();
        let mut parts: Vec<Option<Vector>> = vec![None; self.plan.base_parts];
        let mut slots = Vec::with_capacity(nkeys + self.agg.aggs.len());
        // The last wanted key reading each part: there the part is moved
        // into the slot instead of copied.
        let mut last_reader: Vec<Option<usize>> = vec![None; self.plan.base_parts];
        for (k, src) in self.plan.keys.iter().enumerate().filter(|(k, _)| want(*k)) {
            let reads: Vec<usize> = match src {
                KeySource::Part(i) => vec![*i],
                KeySource::Dependent(e) => e
                    .columns()
                    .into_iter()
                    .filter_map(|c| self.part_of_column(c))
                    .collect(),
            };
            for i in reads {
                if let Some(r) = last_reader.get_mut(i) {
                    *r = Some(k);
                }
            }
        }
        for (k, src) in self.plan.keys.iter().enumerate() {
            let ty = self.agg.keys[k].ty;
            if !want(k) {
                slots.push(Vector::empty(ty, 0));
                continue;
            }
            slots.push(match src {
                KeySource::Part(i) if last_reader.get(*i) == Some(&Some(k)) => {
                    self.part(&mut parts, *i, idx)?;
                    parts[*i].take().unwrap_or_else(|| Vector::empty(ty, 0))
                }
                KeySource::Part(i) => self.part(&mut parts, *i, idx)?.clone(),
                KeySource::Dependent(e) => {
                    // The expression's columns are raw key parts.
                    let mut need = Vec::new();
                    for c in e.columns() {
                        match self.part_of_column(c) {
                            Some(i) => need.push((c, i)),
                            None => return internal("dependent key without its column"),
                        }
                    }
                    for &(_, i) in &need {
                        self.part(&mut parts, i, idx)?;
                    }
                    let mut cols = Vec::new();
                    for (c, i) in need {
                        match &parts[i] {
                            Some(v) => cols.push((c, v)),
                            None => return internal("key part not computed"),
                        }
                    }
                    eval(e, idx.len(), &Columns(cols))?.into_owned()
                }
            });
        }
        let at: Vec<&[u64]> = idx.iter().map(|&i| self.rows[i]).collect();
        for (i, call) in self.agg.aggs.iter().enumerate() {
            slots.push(if want(nkeys + i) {
                self.spec.layout.finish(i, &at, self.kb)?
            } else {
                Vector::empty(call.ty, 0)
            });
        }
        Ok(slots)
    }

    /// The key part holding column `c` as a raw key (what a dependent
    /// key's columns are).
    fn part_of_column(&self, c: usize) -> Option<usize> {
        self.plan
            .keys
            .iter()
            .zip(&self.agg.keys)
            .find_map(|(s, key)| match s {
                KeySource::Part(i) if key.as_col() == Some(c) => Some(*i),
                _ => None,
            })
    }

    /// Key part `i` at groups `idx`, computed once into `cache`.
    fn part<'c>(
        &self,
        cache: &'c mut [Option<Vector>],
        i: usize,
        idx: &[usize],
    ) -> Result<&'c Vector> {
        let Some(slot) = cache.get_mut(i) else {
            return internal(format!("no key part {i}"));
        };
        if slot.is_none() {
            let p = &self.spec.parts[i];
            *slot = Some(self.part_values(p, idx)?);
        }
        slot.as_ref()
            .ok_or_else(|| EngineError::Internal("key part not computed".into()))
    }

    fn part_values(&self, p: &KeyPart, idx: &[usize]) -> Result<Vector> {
        let rows = idx.iter().map(|&i| self.rows[i]);
        let is_null = |r: &[u64]| p.nullable && r[p.off] == 1;
        let witnesses = || -> Vec<Option<u64>> {
            let w = self.kb + p.witness.unwrap_or(0);
            rows.clone().map(|r| (!is_null(r)).then(|| r[w])).collect()
        };
        Ok(match p.kind {
            PartKind::RawStr(col) => fetch_strings(self.table, col, &witnesses(), self.budget)?,
            _ if p.expr.ty == LType::Varchar => {
                fetch_expr_strings(self.table, &p.expr, &witnesses())?
            }
            _ => {
                let vo = p.off + usize::from(p.nullable);
                let mut v = Vector::empty(p.expr.ty, idx.len());
                for r in rows {
                    if is_null(r) {
                        v.push(&Value::Null);
                    } else {
                        let key = if p.value_words() == 2 {
                            u128::from(r[vo]) << 64 | u128::from(r[vo + 1])
                        } else {
                            u128::from(r[vo])
                        };
                        v.push(&value_of_key(p.expr.ty, key));
                    }
                }
                v
            }
        })
    }
}

/// Result slots as expression inputs (`ExprKind::Ref`).
pub struct SlotInputs<'a>(pub &'a [Vector]);

impl Inputs for SlotInputs<'_> {
    fn column(&self, col: usize) -> Result<&Vector> {
        internal(format!("column {col} referenced after aggregation"))
    }
    fn slot(&self, slot: usize) -> Result<&Vector> {
        self.0
            .get(slot)
            .ok_or_else(|| EngineError::Internal(format!("no slot {slot}")))
    }
}

/// Groups witnesses `(block << 32) | item` by block, remembering each
/// one's position.
fn by_block(witnesses: &[Option<u64>]) -> std::collections::BTreeMap<usize, Vec<(usize, u32)>> {
    let mut out: std::collections::BTreeMap<usize, Vec<(usize, u32)>> = Default::default();
    for (i, w) in witnesses.iter().enumerate() {
        if let Some(w) = w {
            out.entry((w >> 32) as usize)
                .or_default()
                .push((i, *w as u32));
        }
    }
    out
}

/// The strings of column `col` at the (block, value) `witnesses`.
///
/// Each block's strings are charged to `budget` as they arrive, so a result
/// too large for the limit stops before all of it is in memory; they move
/// into the vector uncopied, and the charge is given back once it is built
/// (the caller holds the slots it returns).
fn fetch_strings(
    table: &Table,
    col: usize,
    witnesses: &[Option<u64>],
    budget: &Budget,
) -> Result<Vector> {
    let charged = std::sync::atomic::AtomicU64::new(0);
    let fetched: Result<Vec<Vec<Fetched>>> = by_block(witnesses)
        .into_par_iter()
        .map(|(b, items)| {
            let ctx = BlockCtx::new(table, b);
            let mut out = Vec::with_capacity(items.len());
            for batch in items.chunks(FETCH_BATCH) {
                let vals: Vec<u32> = batch.iter().map(|x| x.1).collect();
                let strs = ctx.strings_of(col, &vals)?;
                let bytes: u64 = strs
                    .iter()
                    .map(|s| s.as_ref().map_or(0, |s| s.len() as u64) + STRING_OVERHEAD)
                    .sum();
                charged.fetch_add(bytes, std::sync::atomic::Ordering::Relaxed);
                budget.charge(bytes, "the result strings")?;
                out.extend(batch.iter().map(|x| x.0).zip(strs));
            }
            Ok(out)
        })
        .collect();
    let built = fetched.map(|fetched| {
        let mut strs: Vec<Vec<u8>> = vec![Vec::new(); witnesses.len()];
        let mut nulls = vec![true; witnesses.len()];
        for list in fetched {
            for (i, s) in list {
                if let Some(s) = s {
                    strs[i] = s;
                    nulls[i] = false;
                }
            }
        }
        Vector {
            ty: LType::Varchar,
            data: Data::Str(strs.into()),
            nulls: nulls.contains(&true).then_some(nulls),
        }
    });
    budget.release(charged.into_inner());
    built
}

/// A fetched string (NULL: `None`) and the output position it goes to.
type Fetched = (usize, Option<Vec<u8>>);

/// Strings fetched between two charges to the budget: what a refused query
/// may hold past its limit, per thread.
const FETCH_BATCH: usize = 1024;

/// What a string costs beside its bytes (its `Vec` header).
const STRING_OVERHEAD: u64 = std::mem::size_of::<Vec<u8>>() as u64;

/// The values of `expr` at the (block, row) `witnesses` (NULL where none).
fn fetch_expr_strings(table: &Table, expr: &TExpr, witnesses: &[Option<u64>]) -> Result<Vector> {
    let fetched: Vec<(Vec<usize>, Vector)> = by_block(witnesses)
        .into_par_iter()
        .map(|(b, items)| {
            let ctx = BlockCtx::new(table, b);
            let rows: Vec<u32> = items.iter().map(|x| x.1).collect();
            let v = ctx.eval_one_at(&rows, expr)?;
            Ok((items.iter().map(|x| x.0).collect(), v))
        })
        .collect::<Result<_>>()?;
    let mut out: Vec<Value> = vec![Value::Null; witnesses.len()];
    for (idx, v) in fetched {
        for (j, i) in idx.into_iter().enumerate() {
            out[i] = v.get(j);
        }
    }
    let mut v = Vector::empty(expr.ty, out.len());
    for x in &out {
        v.push(x);
    }
    Ok(v)
}
