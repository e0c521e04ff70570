//! Factored sums: `SUM(x * f(a) * g(b))` where `a` and `b` have few
//! distinct values in a block is `Σ f(a) g(b) · SUM(x)` over the
//! combinations of `a`'s and `b`'s values. The rows then only add `x` into
//! a slot per (group, combination), shared by every such sum of the same
//! `x` (TPC-H Q1's `sum(price)`, `sum(price * (1 - disc))` and
//! `sum(price * (1 - disc) * (1 + tax))` are one pass), and each slot is
//! multiplied by its factors once.
//!
//! Exactness: the factors are integers or decimals multiplied without
//! rescaling (a product's scale is the sum of its operands'), so the
//! factored sum equals the row-by-row one, modulo 2^128 as the states
//! accumulate. A row-by-row product can overflow its type, an error the
//! factored sum would not raise: a block is factored only when the largest
//! magnitudes of its values prove that no product of any row overflows.

use std::borrow::Cow;

use crate::agg::layout::{get_i128, set_i128, StateKind, StateLayout};
use crate::agg::per_value::{codes_at, eval_at_codes, eval_per_value, sparse_values, used_values};
use crate::error::Result;
use crate::expr::{ArithOp, ExprKind, TExpr};
use crate::scan::block::BlockCtx;
use crate::value::{Data, LType, Vector};

/// Most distinct values a factor's column has in a block.
const FEW_VALUES: usize = 256;

/// Most (group, combination) slots a block accumulates: a count and a
/// 128-bit sum each, 768 KiB in all, within L2 while the rows are added.
const SLOT_LIMIT: usize = 1 << 15;

/// A block's factored sums, ready to add its rows.
pub struct Factored<'a> {
    /// Per factored aggregate: its state offset and its product of factors
    /// per combination (`None` where a factor is NULL).
    sums: Vec<(usize, Vec<Option<i128>>)>,
    /// The layout slots summed here.
    slots: Vec<usize>,
    /// `x` per distinct value of its column, or, for few rows, per value
    /// the rows hold (NULL last either way).
    x: IntValues,
    /// The rows' codes into `x`.
    x_codes: Cow<'a, [u32]>,
    /// Per factor column: the rows' codes, its NULL code and its stride in
    /// a combination's number.
    factor_codes: Vec<(Cow<'a, [u32]>, usize, usize)>,
    /// Combinations of the factor columns' values (NULL included).
    combos: usize,
}

/// An expression's values per distinct value of its column (0 where
/// NULL), held as evaluated, with their validity and largest magnitude.
struct IntValues {
    vals: Ints,
    valid: Vec<bool>,
    bound: u128,
}

enum Ints {
    I64(Vec<i64>),
    I128(Vec<i128>),
}

impl IntValues {
    /// The values of a vector held as integers.
    fn new(v: Vector) -> Option<IntValues> {
        let valid: Vec<bool> = (0..v.len()).map(|i| !v.is_null(i)).collect();
        let mut bound = 0u128;
        let vals = match v.data {
            Data::I64(mut d) => {
                for (x, &ok) in d.iter_mut().zip(&valid) {
                    if ok {
                        bound = bound.max(u128::from(x.unsigned_abs()));
                    } else {
                        *x = 0;
                    }
                }
                Ints::I64(d)
            }
            Data::I128(mut d) => {
                for (x, &ok) in d.iter_mut().zip(&valid) {
                    if ok {
                        bound = bound.max(x.unsigned_abs());
                    } else {
                        *x = 0;
                    }
                }
                Ints::I128(d)
            }
            _ => return None,
        };
        Some(IntValues { vals, valid, bound })
    }

    /// Value `i`, `None` where NULL.
    fn get(&self, i: usize) -> Option<i128> {
        self.valid[i].then(|| match &self.vals {
            Ints::I64(d) => i128::from(d[i]),
            Ints::I128(d) => d[i],
        })
    }
}

/// One candidate aggregate: its slot, `x` and its factors.
struct Candidate<'e> {
    slot: usize,
    x: &'e TExpr,
    factors: Vec<&'e TExpr>,
}

impl<'a> Factored<'a> {
    /// The factored sums of a block's `rows`, among the aggregates that
    /// would be evaluated at the rows (`at_rows`), or `None` where no sum
    /// with a factor qualifies or a product could overflow.
    pub fn find(
        layout: &StateLayout,
        ctx: &'a BlockCtx,
        rows: &[u32],
        at_rows: &[bool],
        n_groups: usize,
    ) -> Result<Option<Factored<'a>>> {
        let few = |c: usize| -> Result<bool> { Ok(ctx.chunk(c)?.distinct() <= FEW_VALUES) };
        let cands = candidates(layout, at_rows, &few)?;
        // Aggregates of the first factored candidate's `x`, while the
        // combinations of their factor columns fit.
        let Some(x) = first_x(&cands) else {
            return Ok(None);
        };
        let mut cols: Vec<usize> = Vec::new();
        let mut picked: Vec<&Candidate> = Vec::new();
        for cand in cands.iter().filter(|c| c.x == x) {
            let mut with = cols.clone();
            for f in &cand.factors {
                with.extend(f.columns());
            }
            with.sort_unstable();
            with.dedup();
            let mut combos = n_groups.max(1);
            for &c in &with {
                combos = combos.saturating_mul(ctx.chunk(c)?.distinct() + 1);
            }
            if combos <= SLOT_LIMIT {
                cols = with;
                picked.push(cand);
            }
        }
        if !picked.iter().any(|c| !c.factors.is_empty()) {
            return Ok(None);
        }
        let [xcol] = x.columns()[..] else {
            return Ok(None);
        };
        let x_codes = codes_at(ctx, xcol, rows)?;
        // Few rows of a many-valued column: `x` at the values they hold.
        let (x_vals, x_codes) = if sparse_values(ctx, xcol, rows.len())? {
            let (vals, renumbered) = eval_at_codes(x, ctx, xcol, &x_codes)?;
            (vals, Cow::Owned(renumbered))
        } else {
            let nx = ctx.chunk(xcol)?.distinct();
            let vals = eval_per_value(x, ctx, xcol, &|| Ok(used_values(&x_codes, nx)))?;
            (vals, x_codes)
        };
        let Some(xs) = IntValues::new(x_vals) else {
            return Ok(None);
        };

        let mut factor_codes = Vec::with_capacity(cols.len());
        let mut stride = 1usize;
        for &c in &cols {
            let n = ctx.chunk(c)?.distinct();
            factor_codes.push((codes_at(ctx, c, rows)?, n, stride));
            stride *= n + 1;
        }
        let combos = stride;
        let mut sums = Vec::with_capacity(picked.len());
        for cand in &picked {
            // Each factor at its column's values, and its largest magnitude.
            let mut factors = Vec::with_capacity(cand.factors.len());
            let mut bounds: Vec<(&TExpr, u128)> = vec![(cand.x, xs.bound)];
            for f in &cand.factors {
                let [c] = f.columns()[..] else {
                    return Ok(None);
                };
                let at = cols.iter().position(|&k| k == c).unwrap_or(0);
                let (codes, n, stride) = &factor_codes[at];
                let Some(vals) =
                    IntValues::new(eval_per_value(f, ctx, c, &|| Ok(used_values(codes, *n)))?)
                else {
                    return Ok(None);
                };
                bounds.push((f, vals.bound));
                factors.push((vals, *n, *stride));
            }
            let arg = layout.slots[cand.slot].pass_arg();
            if arg.and_then(|a| product_bound(a, &bounds)).is_none() {
                return Ok(None);
            }
            let per_combo = (0..combos)
                .map(|k| {
                    let mut y = 1i128;
                    for (vals, n, stride) in &factors {
                        y = y.wrapping_mul(vals.get(k / stride % (n + 1))?);
                    }
                    Some(y)
                })
                .collect();
            sums.push((layout.slots[cand.slot].off, per_combo));
        }
        Ok(Some(Factored {
            sums,
            slots: picked.iter().map(|c| c.slot).collect(),
            x: xs,
            x_codes,
            factor_codes,
            combos,
        }))
    }

    /// Whether layout slot `k` is summed here.
    pub fn has(&self, k: usize) -> bool {
        self.slots.contains(&k)
    }

    /// Adds the rows (group ids `gids`, by position in the selected rows) to
    /// the SUM states of the factored aggregates.
    pub fn add_rows(&self, gids: &[u32], n_groups: usize, states: &mut [u64], sw: usize) {
        let combos = self.combos;
        // Each row's (group, combination) slot, a column at a time.
        let mut slots: Vec<u32> = gids.iter().map(|&g| g * combos as u32).collect();
        for (codes, null, stride) in &self.factor_codes {
            let (null, stride) = (*null as u32, *stride as u32);
            for (s, &c) in slots.iter_mut().zip(codes.iter()) {
                *s += c.min(null) * stride;
            }
        }
        let x_codes: &[u32] = &self.x_codes;
        let null = (self.x.valid.len() - 1) as u32;
        let mut sums = vec![0i128; n_groups * combos];
        match &self.x.vals {
            Ints::I64(x) => {
                for (&s, &c) in slots.iter().zip(x_codes) {
                    let a = &mut sums[s as usize];
                    *a = a.wrapping_add(i128::from(x[c.min(null) as usize]));
                }
            }
            Ints::I128(x) => {
                for (&s, &c) in slots.iter().zip(x_codes) {
                    let a = &mut sums[s as usize];
                    *a = a.wrapping_add(x[c.min(null) as usize]);
                }
            }
        }
        let mut counts = vec![0u64; n_groups * combos];
        if self.x.valid.iter().all(|&v| v) {
            for &s in &slots {
                counts[s as usize] += 1;
            }
        } else {
            for (&s, &c) in slots.iter().zip(x_codes) {
                counts[s as usize] += u64::from(self.x.valid[c.min(null) as usize]);
            }
        }
        let per_group = counts.chunks_exact(combos).zip(sums.chunks_exact(combos));
        for (g, (counts, sums)) in per_group.enumerate() {
            for (off, ys) in &self.sums {
                let (mut n, mut sum) = (0u64, 0i128);
                for ((&count, &sx), y) in counts.iter().zip(sums).zip(ys) {
                    if let (true, Some(y)) = (count > 0, y) {
                        n += count;
                        sum = sum.wrapping_add(y.wrapping_mul(sx));
                    }
                }
                if n > 0 {
                    let b = g * sw + off;
                    states[b] += n;
                    set_i128(states, b + 1, get_i128(states, b + 1).wrapping_add(sum));
                }
            }
        }
    }
}

/// How many aggregates of `layout` a block with these distinct counts per
/// column would factor (before the overflow check), for EXPLAIN.
pub fn explain_count(layout: &StateLayout, distinct: &dyn Fn(usize) -> usize) -> usize {
    let at_rows: Vec<bool> = layout
        .slots
        .iter()
        .map(|s| s.pass_arg().is_some_and(|a| a.columns().len() > 1))
        .collect();
    let few = |c: usize| -> Result<bool> { Ok(distinct(c) <= FEW_VALUES) };
    candidates(layout, &at_rows, &few).map_or(0, |cands| {
        let x = first_x(&cands);
        cands
            .iter()
            .filter(|c| Some(c.x) == x && !c.factors.is_empty())
            .count()
    })
}

/// The `x` of the first candidate with a factor: the one a block factors.
fn first_x<'e>(cands: &[Candidate<'e>]) -> Option<&'e TExpr> {
    cands.iter().find(|c| !c.factors.is_empty()).map(|c| c.x)
}

/// The SUM aggregates evaluated at the rows whose argument is one
/// expression `x` of one column times factors of one column each with few
/// values (`few`), in layout order; the first slot of each argument only
/// (later ones are copies of it).
fn candidates<'e>(
    layout: &'e StateLayout,
    at_rows: &[bool],
    few: &dyn Fn(usize) -> Result<bool>,
) -> Result<Vec<Candidate<'e>>> {
    let mut out = Vec::new();
    for (k, s) in layout.slots.iter().enumerate() {
        let Some(arg) = s.pass_arg() else { continue };
        let repeated = layout.slots[..k].iter().any(|t| {
            t.kind == s.kind && t.pass_arg() == Some(arg) && t.call.filter == s.call.filter
        });
        if !at_rows[k] || s.kind != StateKind::SumInt || s.call.filter.is_some() || repeated {
            continue;
        }
        let mut leaves = Vec::new();
        mul_leaves(arg, &mut leaves);
        let mut x = None;
        let mut factors = Vec::new();
        let mut ok = true;
        for leaf in leaves {
            let exact = exact_int(leaf.ty);
            match leaf.columns()[..] {
                [c] if exact && few(c)? => factors.push(leaf),
                [_] if exact && x.is_none() => x = Some(same_raw(leaf)),
                _ => ok = false,
            }
        }
        // A product of few-valued columns only: the last factor is `x`.
        if x.is_none() {
            x = factors.pop().map(same_raw);
        }
        if let (true, Some(x)) = (ok, x) {
            out.push(Candidate {
                slot: k,
                x,
                factors,
            });
        }
    }
    Ok(out)
}

/// `e` without the casts that keep every raw (scaled integer) value as
/// it is: to a wider integer, or to a DECIMAL of the same scale and at
/// least the digits. `sum(price)` and `sum(CAST(price AS DECIMAL(18,2)) *
/// f(d))` then share one `x`.
fn same_raw(e: &TExpr) -> &TExpr {
    match &e.kind {
        ExprKind::Cast(inner) if widens(inner.ty, e.ty) => same_raw(inner),
        _ => e,
    }
}

/// Whether a cast from `from` to `to` keeps every raw value unchanged.
fn widens(from: LType, to: LType) -> bool {
    let digits = |ty: LType| -> Option<u32> {
        Some(match ty {
            LType::Int8 => 3,
            LType::Int16 => 5,
            LType::Int32 => 10,
            LType::Int64 => 19,
            LType::HugeInt => 39,
            LType::Decimal(p, _) => u32::from(p),
            _ => return None,
        })
    };
    let fits = match (from.int_range(), to.int_range()) {
        (Some((lo, hi)), Some((lo2, hi2))) => lo2 <= lo && hi <= hi2,
        (_, Some(_)) => false,
        _ => digits(from) <= digits(to) && digits(from).is_some(),
    };
    exact_int(from) && exact_int(to) && scale(from) == scale(to) && fits
}

/// The operands of `e` as a product without rescaling (`e` itself when it
/// is not one).
fn mul_leaves<'e>(e: &'e TExpr, out: &mut Vec<&'e TExpr>) {
    match &e.kind {
        ExprKind::Arith(ArithOp::Mul, a, b) if exact_mul(e, a, b) => {
            mul_leaves(a, out);
            mul_leaves(b, out);
        }
        _ => out.push(e),
    }
}

/// Whether `e = a * b` multiplies signed integers or decimals exactly: the
/// result's scale is the operands' scales added.
fn exact_mul(e: &TExpr, a: &TExpr, b: &TExpr) -> bool {
    exact_int(e.ty)
        && exact_int(a.ty)
        && exact_int(b.ty)
        && scale(e.ty) == scale(a.ty) + scale(b.ty)
}

/// Signed integers and decimals: values held as scaled integers.
fn exact_int(ty: LType) -> bool {
    matches!(
        ty,
        LType::Int8
            | LType::Int16
            | LType::Int32
            | LType::Int64
            | LType::HugeInt
            | LType::Decimal(..)
    )
}

fn scale(ty: LType) -> u32 {
    match ty {
        LType::Decimal(_, s) => u32::from(s),
        _ => 0,
    }
}

/// The largest magnitude a product node of `e` can reach, given bounds of
/// its leaves; `None` where some node's result could leave its type.
fn product_bound(e: &TExpr, leaves: &[(&TExpr, u128)]) -> Option<u128> {
    if let Some(&(_, b)) = leaves.iter().find(|(l, _)| std::ptr::eq(*l, e)) {
        return Some(b);
    }
    let (a, b) = match &e.kind {
        ExprKind::Cast(inner) if widens(inner.ty, e.ty) => return product_bound(inner, leaves),
        ExprKind::Arith(ArithOp::Mul, a, b) => (a, b),
        _ => return None,
    };
    let bound = product_bound(a, leaves)?.checked_mul(product_bound(b, leaves)?)?;
    let limit: u128 = match e.ty {
        LType::Decimal(p, _) if p <= 18 => 10u128.pow(u32::from(p)).min(1 << 63),
        LType::Decimal(p, _) => 10u128.pow(u32::from(p.min(38))),
        ty => ty
            .int_range()
            .map_or(0, |(_, hi)| hi.unsigned_abs().saturating_add(1)),
    };
    (bound < limit).then_some(bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(c: usize, ty: LType) -> TExpr {
        TExpr {
            kind: ExprKind::Col(c),
            ty,
        }
    }

    fn mul(a: TExpr, b: TExpr, ty: LType) -> TExpr {
        TExpr {
            kind: ExprKind::Arith(ArithOp::Mul, Box::new(a), Box::new(b)),
            ty,
        }
    }

    fn cast(e: TExpr, ty: LType) -> TExpr {
        TExpr {
            kind: ExprKind::Cast(Box::new(e)),
            ty,
        }
    }

    #[test]
    fn widening_casts_keep_raw_values() {
        assert!(widens(LType::Decimal(15, 2), LType::Decimal(18, 2)));
        assert!(widens(LType::Int16, LType::Int64));
        assert!(widens(LType::Int32, LType::Decimal(10, 0)));
        assert!(!widens(LType::Int64, LType::Decimal(18, 0)));
        assert!(!widens(LType::Decimal(15, 2), LType::Decimal(18, 3)));
        assert!(!widens(LType::Decimal(18, 2), LType::Decimal(15, 2)));
        assert!(!widens(LType::Int64, LType::Int32));
        assert!(!widens(LType::Double, LType::Double));
        let price = cast(col(0, LType::Decimal(15, 2)), LType::Decimal(18, 2));
        assert_eq!(same_raw(&price), &col(0, LType::Decimal(15, 2)));
    }

    #[test]
    fn only_products_without_rescaling_are_split() {
        let d = LType::Decimal(18, 2);
        let e = mul(col(0, d), col(1, d), LType::Decimal(18, 4));
        let mut leaves = Vec::new();
        mul_leaves(&e, &mut leaves);
        assert_eq!(leaves.len(), 2);
        // A product typed with another scale is one leaf.
        let rescaled = mul(col(0, d), col(1, d), LType::Decimal(18, 2));
        let mut leaves = Vec::new();
        mul_leaves(&rescaled, &mut leaves);
        assert_eq!(leaves.len(), 1);
        let float = mul(col(0, LType::Double), col(1, LType::Double), LType::Double);
        let mut leaves = Vec::new();
        mul_leaves(&float, &mut leaves);
        assert_eq!(leaves.len(), 1);
    }

    #[test]
    fn bounds_reject_products_that_could_overflow() {
        let d = LType::Decimal(18, 2);
        let e = mul(col(0, d), col(1, d), LType::Decimal(18, 4));
        let ExprKind::Arith(_, a, b) = &e.kind else {
            unreachable!()
        };
        let fits = [(&**a, 10u128.pow(9)), (&**b, 10u128.pow(8))];
        assert_eq!(product_bound(&e, &fits), Some(10u128.pow(17)));
        let over = [(&**a, 10u128.pow(9)), (&**b, 10u128.pow(9))];
        assert_eq!(product_bound(&e, &over), None);
        let i = mul(col(0, LType::Int64), col(1, LType::Int64), LType::Int64);
        let ExprKind::Arith(_, a, b) = &i.kind else {
            unreachable!()
        };
        assert_eq!(product_bound(&i, &[(&**a, 1 << 40), (&**b, 1 << 23)]), None);
        assert_eq!(
            product_bound(&i, &[(&**a, 1 << 40), (&**b, 1 << 22)]),
            Some(1 << 62)
        );
    }
}
