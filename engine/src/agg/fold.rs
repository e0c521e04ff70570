//! Every aggregate function over fed rows: the hash aggregate's (and the
//! window operator's) accumulation. A [`Feed`] lists `(row, group)` pairs in
//! the order the rows reach their groups (FILTER, DISTINCT and ORDER BY are
//! applied when it is built, see [`crate::agg::accumulate::feed`]); a row
//! may feed several groups (window frames).

use std::collections::HashMap;

use foldhash::fast::FixedState;

use crate::agg::accumulate::{atom, Atom};
use crate::agg::float_sum::{exact_avg, FloatSum};
use crate::agg::func::{AggCall, AggFunc, AggParam, Quantile};
use crate::agg::hll;
use crate::agg::holistic::{entropy, quantile, Runs};
use crate::agg::moments::{Bivariate, Kahan, Moments, Welford};
use crate::error::{internal, EngineError, Result};
use crate::expr::order::cmp_values;
use crate::list::ListBuilder;
use crate::strs::Strs;
use crate::value::{Data, LType, Value, Vector};

/// Rows in the order they reach their groups.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Feed {
    /// Row numbers (into the argument vectors).
    pub rows: Vec<u32>,
    /// The group of each fed row.
    pub groups: Vec<u32>,
}

impl Feed {
    /// Every row of `ids` (a group per row), in order.
    pub fn all(ids: &[u32]) -> Feed {
        Feed {
            rows: (0..ids.len() as u32).collect(),
            groups: ids.to_vec(),
        }
    }

    /// `(row, group)` pairs.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.rows
            .iter()
            .zip(&self.groups)
            .map(|(&r, &g)| (r as usize, g as usize))
    }
}

/// Per group, a state `S` folded over the fed rows no argument of which is
/// NULL (all rows for functions that keep NULLs).
fn states<S: Default + Clone>(
    call: &AggCall,
    args: &[&Vector],
    feed: &Feed,
    n: usize,
    mut add: impl FnMut(&mut S, usize),
) -> Vec<S> {
    let mut out = vec![S::default(); n];
    let skip = call.func.skips_nulls();
    for (r, g) in feed.pairs() {
        if skip && args.iter().any(|a| a.is_null(r)) {
            continue;
        }
        add(&mut out[g], r);
    }
    out
}

fn vector(ty: LType, vals: impl Iterator<Item = Value>) -> Vector {
    let mut v = Vector::empty(ty, 0);
    for x in vals {
        v.push(&x);
    }
    v
}

fn floats(ty: LType, vals: impl Iterator<Item = Option<f64>>) -> Vector {
    vector(ty, vals.map(|x| x.map_or(Value::Null, Value::Float)))
}

fn f64_at(v: &Vector, i: usize) -> f64 {
    match &v.data {
        Data::F64(d) => d[i],
        Data::I64(d) => d[i] as f64,
        Data::U64(d) => d[i] as f64,
        Data::I128(d) => d[i] as f64,
        Data::Bool(d) => f64::from(u8::from(d[i])),
        Data::Str(_) => f64::NAN,
    }
}

fn i128_at(v: &Vector, i: usize) -> i128 {
    match &v.data {
        Data::I64(d) => i128::from(d[i]),
        Data::U64(d) => i128::from(d[i]),
        Data::I128(d) => d[i],
        Data::Bool(d) => i128::from(d[i]),
        _ => 0,
    }
}

/// The key `approx_count_distinct` hashes: floats' zeros and NaNs made one.
pub fn hll_key(v: &Vector, i: usize) -> Option<u128> {
    if let (Data::F64(d), false) = (&v.data, v.is_null(i)) {
        let x = d[i];
        let x = if x == 0.0 {
            0.0
        } else if x.is_nan() {
            f64::NAN
        } else {
            x
        };
        return Some(u128::from(strata_format::types::float_key(x)));
    }
    v.key(i)
}

/// `call` over the rows of `feed` into `n` groups; `args` are the call's
/// evaluated arguments.
pub fn fold(call: &AggCall, args: &[&Vector], feed: &Feed, n: usize) -> Result<Vector> {
    use AggFunc::*;
    let ty = call.ty;
    let arg = args.first().copied();
    let Some(x) = arg else {
        // COUNT(*)
        let mut counts = vec![0i64; n];
        for &g in &feed.groups {
            counts[g as usize] += 1;
        }
        return Ok(ints(ty, counts));
    };
    Ok(match call.func {
        CountStar | Count => {
            let s = states(call, args, feed, n, |c: &mut i64, _| *c += 1);
            ints(ty, s)
        }
        Sum | Avg => sum_or_avg(call, x, feed, n)?,
        Min | Max => best_rows(call, args, feed, n, x, x, call.func == Max),
        Median | QuantileCont | QuantileDisc => {
            let q = match &call.param {
                AggParam::Quantile(q) => q.clone(),
                _ => Quantile::median(),
            };
            holistic(call, x, feed, n, |runs| quantile(runs, call.func, x.ty, &q))
        }
        Entropy => {
            let counts = value_counts(call, args, feed, n);
            floats(
                ty,
                counts.into_iter().map(|m| {
                    let c: Vec<u64> = m.values().map(|v| v.0).collect();
                    Some(entropy(&c))
                }),
            )
        }
        Mode => mode(call, args, feed, n),
        VarSamp | VarPop | StddevSamp | StddevPop => {
            let s = states(call, args, feed, n, |w: &mut Welford, r| {
                w.add(f64_at(x, r))
            });
            floats(ty, s.iter().map(|w| w.finish(call.func)))
        }
        Kurtosis | KurtosisPop | Skewness => {
            let s = states(call, args, feed, n, |m: &mut Moments, r| {
                m.add(f64_at(x, r))
            });
            let vals: Vec<Option<f64>> = s
                .iter()
                .map(|m| m.finish(call.func))
                .collect::<Result<_>>()?;
            floats(ty, vals.into_iter())
        }
        Corr | CovarSamp | CovarPop | RegrSlope | RegrIntercept | RegrR2 | RegrAvgX | RegrAvgY
        | RegrSxx | RegrSyy | RegrSxy | RegrCount => {
            let Some(xs) = args.get(1).copied() else {
                return internal(format!(
                    "{}() without its second argument",
                    call.func.name()
                ));
            };
            let s = states(call, args, feed, n, |b: &mut Bivariate, r| {
                b.add(f64_at(x, r), f64_at(xs, r))
            });
            if call.func == RegrCount {
                vector(ty, s.iter().map(|b| Value::Int(b.cov.count as i64)))
            } else {
                floats(ty, s.iter().map(|b| b.finish(call.func)))
            }
        }
        FSum | FAvg => {
            let s = states(call, args, feed, n, |k: &mut Kahan, r| {
                k.add_n(f64_at(x, r), 1)
            });
            floats(ty, s.iter().map(|k| k.finish(call.func)))
        }
        Product => {
            let s = states(call, args, feed, n, |p: &mut Option<f64>, r| {
                *p = Some(p.unwrap_or(1.0) * f64_at(x, r))
            });
            floats(ty, s.into_iter())
        }
        StringAgg => string_agg(call, x, feed, n),
        ArrayAgg => {
            let s = states(call, args, feed, n, |b: &mut Option<ListBuilder>, r| {
                b.get_or_insert_with(ListBuilder::new).push(&x.get(r))
            });
            vector(
                ty,
                s.into_iter()
                    .map(|b| b.map_or(Value::Null, |b| Value::Str(b.finish()))),
            )
        }
        ArgMax | ArgMin => {
            let Some(by) = args.get(1).copied() else {
                return internal("arg_max() without its second argument");
            };
            best_rows(call, args, feed, n, x, by, call.func == ArgMax)
        }
        AnyValue | First => {
            let s = states(call, args, feed, n, |b: &mut Option<usize>, r| {
                if b.is_none() {
                    *b = Some(r)
                }
            });
            vector(
                ty,
                s.into_iter().map(|b| b.map_or(Value::Null, |r| x.get(r))),
            )
        }
        Last => {
            let s = states(call, args, feed, n, |b: &mut Option<usize>, r| *b = Some(r));
            vector(
                ty,
                s.into_iter().map(|b| b.map_or(Value::Null, |r| x.get(r))),
            )
        }
        ApproxCountDistinct => {
            let mut s = states(call, args, feed, n, |h: &mut Vec<u64>, r| {
                if let Some(k) = hll_key(x, r) {
                    h.push(hll::hash(k));
                }
            });
            ints(ty, s.iter_mut().map(|h| hll::count_of(h) as i64).collect())
        }
        BoolAnd | BoolOr => {
            let and = call.func == BoolAnd;
            let s = states(call, args, feed, n, |b: &mut Option<bool>, r| {
                let v = matches!(&x.data, Data::Bool(d) if d[r]);
                *b = Some(match *b {
                    None => v,
                    Some(acc) if and => acc && v,
                    Some(acc) => acc || v,
                });
            });
            vector(
                ty,
                s.into_iter().map(|b| b.map_or(Value::Null, Value::Bool)),
            )
        }
        BitAnd | BitOr | BitXor => {
            let s = states(call, args, feed, n, |b: &mut Option<i128>, r| {
                let v = i128_at(x, r);
                *b = Some(match (*b, call.func) {
                    (None, _) => v,
                    (Some(a), BitAnd) => a & v,
                    (Some(a), BitOr) => a | v,
                    (Some(a), _) => a ^ v,
                });
            });
            vector(
                ty,
                s.into_iter()
                    .map(|b| b.map_or(Value::Null, |v| int_value(ty, v))),
            )
        }
        CountIf => {
            let s = states(call, args, feed, n, |c: &mut Option<i128>, r| {
                let t = matches!(&x.data, Data::Bool(d) if d[r]);
                *c = Some(c.unwrap_or(0) + i128::from(t));
            });
            vector(
                ty,
                s.into_iter().map(|c| c.map_or(Value::Null, Value::Huge)),
            )
        }
        Grouping => return internal("grouping() outside a grouping-set plan"),
    })
}

/// Per group, `x` at the row with the largest (`max`) or smallest `by`
/// (the first such row on ties).
fn best_rows(
    call: &AggCall,
    args: &[&Vector],
    feed: &Feed,
    n: usize,
    x: &Vector,
    by: &Vector,
    max: bool,
) -> Vector {
    let best = states(call, args, feed, n, |b: &mut Option<usize>, r| {
        let better = match *b {
            None => true,
            Some(j) => {
                let o = cmp_values(by, r, j);
                if max {
                    o.is_gt()
                } else {
                    o.is_lt()
                }
            }
        };
        if better {
            *b = Some(r);
        }
    });
    vector(
        call.ty,
        best.into_iter()
            .map(|b| b.map_or(Value::Null, |r| x.get(r))),
    )
}

/// An integer of type `ty` as a value.
pub fn int_value(ty: LType, v: i128) -> Value {
    match ty.phys() {
        crate::value::Phys::I128 => Value::Huge(v),
        crate::value::Phys::U64 => Value::UInt(v as u64),
        _ => Value::Int(v as i64),
    }
}

fn ints(ty: LType, v: Vec<i64>) -> Vector {
    if ty == LType::Int64 {
        return Vector {
            ty,
            data: Data::I64(v),
            nulls: None,
        };
    }
    vector(ty, v.into_iter().map(Value::Int))
}

/// SUM and AVG: exact on integers and decimals (scaled `i128`), `f64` on
/// floats; NULL for a group without non-NULL values.
fn sum_or_avg(call: &AggCall, arg: &Vector, feed: &Feed, n: usize) -> Result<Vector> {
    let avg = call.func == AggFunc::Avg;
    if let Data::F64(d) = &arg.data {
        let s = states(call, &[arg], feed, n, |s: &mut (u64, FloatSum), r| {
            s.0 += 1;
            s.1.add(d[r]);
        });
        return Ok(floats(
            call.ty,
            s.into_iter().map(|(c, sum)| match c {
                0 => None,
                _ if avg => Some(sum.total() / c as f64),
                _ => Some(sum.total()),
            }),
        ));
    }
    let scale = match arg.ty {
        LType::Decimal(_, s) => 10f64.powi(i32::from(s)),
        _ => 1.0,
    };
    let mut overflow = false;
    let s = states(call, &[arg], feed, n, |s: &mut (u64, i128), r| {
        s.0 += 1;
        match s.1.checked_add(i128_at(arg, r)) {
            Some(x) => s.1 = x,
            None => overflow = true,
        }
    });
    if overflow {
        return Err(EngineError::Runtime(format!(
            "Overflow in {}() of {}",
            call.func.name(),
            arg.ty
        )));
    }
    Ok(vector(
        call.ty,
        s.into_iter().map(|(c, sum)| match c {
            0 => Value::Null,
            _ if avg => Value::Float(exact_avg(sum, c, scale)),
            _ => Value::Huge(sum),
        }),
    ))
}

/// A group's non-NULL rows sorted by value, as runs of equal values, to
/// `f`.
fn holistic(
    call: &AggCall,
    x: &Vector,
    feed: &Feed,
    n: usize,
    f: impl Fn(&Runs) -> Value,
) -> Vector {
    let mut rows = states(call, &[x], feed, n, |v: &mut Vec<usize>, r| v.push(r));
    let mut out = Vector::empty(call.ty, n);
    for g in &mut rows {
        g.sort_by(|&a, &b| cmp_values(x, a, b));
        let mut counts: Vec<u64> = Vec::new();
        let mut reps: Vec<usize> = Vec::new();
        for &r in g.iter() {
            match reps.last() {
                Some(&p) if cmp_values(x, p, r).is_eq() => {
                    if let Some(c) = counts.last_mut() {
                        *c += 1;
                    }
                }
                _ => {
                    reps.push(r);
                    counts.push(1);
                }
            }
        }
        let value = |i: usize| x.get(reps[i]);
        out.push(&f(&Runs {
            counts: &counts,
            value: &value,
        }));
    }
    out
}

/// Per group, each distinct non-NULL value's count and first fed row.
fn value_counts<'a>(
    call: &AggCall,
    args: &[&'a Vector],
    feed: &Feed,
    n: usize,
) -> Vec<HashMap<Atom<'a>, (u64, usize), FixedState>> {
    let x = args[0];
    states(
        call,
        args,
        feed,
        n,
        |m: &mut HashMap<Atom, (u64, usize), FixedState>, r| {
            m.entry(atom(x, r)).or_insert((0, r)).0 += 1;
        },
    )
}

/// `mode`: the most frequent value; ties go to the first value fed when
/// the call orders its rows, else to the smallest value.
fn mode(call: &AggCall, args: &[&Vector], feed: &Feed, n: usize) -> Vector {
    let x = args[0];
    let ordered = !call.order.is_empty();
    // Where each row was fed, to compare first appearances.
    let pos: HashMap<usize, usize, FixedState> = if ordered {
        feed.rows
            .iter()
            .enumerate()
            .map(|(p, &r)| (r as usize, p))
            .rev()
            .collect()
    } else {
        HashMap::default()
    };
    let counts = value_counts(call, args, feed, n);
    let mut out = Vector::empty(call.ty, n);
    for m in counts {
        let mut best: Option<(u64, usize)> = None;
        for &(c, r) in m.values() {
            let better = match best {
                None => true,
                Some((bc, br)) => {
                    c > bc
                        || (c == bc
                            && if ordered {
                                pos.get(&r) < pos.get(&br)
                            } else {
                                cmp_values(x, r, br).is_lt()
                            })
                }
            };
            if better {
                best = Some((c, r));
            }
        }
        out.push(&best.map_or(Value::Null, |(_, r)| x.get(r)));
    }
    out
}

fn string_agg(call: &AggCall, x: &Vector, feed: &Feed, n: usize) -> Vector {
    let sep: Option<&[u8]> = match &call.param {
        AggParam::Separator(s) => s.as_deref(),
        _ => Some(b","),
    };
    let Some(sep) = sep else {
        return Vector::nulls(call.ty, n);
    };
    let Data::Str(d) = &x.data else {
        return Vector::nulls(call.ty, n);
    };
    // Each group's length first, then its bytes written in place: one
    // buffer of exactly the answer's size (a running string_agg over long
    // frames makes hundreds of MB; growing each string would hold up to
    // twice that).
    let fed = |r: usize| !x.is_null(r);
    let mut len: Vec<Option<usize>> = vec![None; n];
    for (r, g) in feed.pairs().filter(|&(r, _)| fed(r)) {
        let l = &mut len[g];
        *l = Some(l.map_or(0, |l| l + sep.len()) + d[r].len());
    }
    let mut ends = Vec::with_capacity(n);
    let mut total = 0usize;
    for l in &len {
        total += l.unwrap_or(0);
        ends.push(total);
    }
    let mut bytes = vec![0u8; total];
    // Where each group's next bytes go.
    let mut at: Vec<usize> = ends
        .iter()
        .zip(&len)
        .map(|(e, l)| e - l.unwrap_or(0))
        .collect();
    let mut started = vec![false; n];
    for (r, g) in feed.pairs().filter(|&(r, _)| fed(r)) {
        let mut put = |b: &[u8]| {
            bytes[at[g]..at[g] + b.len()].copy_from_slice(b);
            at[g] += b.len();
        };
        if std::mem::replace(&mut started[g], true) {
            put(sep);
        }
        put(&d[r]);
    }
    let nulls: Vec<bool> = len.iter().map(Option::is_none).collect();
    Vector {
        ty: call.ty,
        data: Data::Str(Strs::from_parts(bytes, ends)),
        nulls: nulls.contains(&true).then_some(nulls),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::TExpr;

    fn ints_of(vals: &[Option<i64>]) -> Vector {
        vector(
            LType::Int32,
            vals.iter().map(|x| x.map_or(Value::Null, Value::Int)),
        )
    }

    fn call(func: AggFunc, ty: LType) -> AggCall {
        AggCall::new(func, vec![TExpr::lit(Value::Null, LType::Int32)], ty)
    }

    #[test]
    fn first_keeps_nulls_any_value_skips_them() {
        let x = ints_of(&[None, Some(3), Some(4)]);
        let feed = Feed::all(&[0, 0, 0]);
        let f = fold(&call(AggFunc::First, LType::Int32), &[&x], &feed, 1);
        assert_eq!(f.ok().map(|v| v.get(0)), Some(Value::Null));
        let a = fold(&call(AggFunc::AnyValue, LType::Int32), &[&x], &feed, 1);
        assert_eq!(a.ok().map(|v| v.get(0)), Some(Value::Int(3)));
        let l = fold(&call(AggFunc::Last, LType::Int32), &[&x], &feed, 1);
        assert_eq!(l.ok().map(|v| v.get(0)), Some(Value::Int(4)));
    }

    #[test]
    fn mode_ties_go_to_the_smallest_value() {
        let x = ints_of(&[Some(7), Some(3), Some(7), Some(3), None, None]);
        let feed = Feed::all(&[0; 6]);
        let m = fold(&call(AggFunc::Mode, LType::Int32), &[&x], &feed, 1);
        assert_eq!(m.ok().map(|v| v.get(0)), Some(Value::Int(3)));
    }

    #[test]
    fn empty_groups() {
        let x = ints_of(&[]);
        let feed = Feed::default();
        for (f, want) in [
            (AggFunc::Entropy, Value::Float(0.0)),
            (AggFunc::BitXor, Value::Null),
            (AggFunc::Median, Value::Null),
            (AggFunc::ApproxCountDistinct, Value::Int(0)),
        ] {
            let ty = match f {
                AggFunc::Entropy => LType::Double,
                AggFunc::ApproxCountDistinct => LType::Int64,
                AggFunc::Median => LType::Double,
                _ => LType::Int32,
            };
            let v = fold(&call(f, ty), &[&x], &feed, 1);
            assert_eq!(v.ok().map(|v| v.get(0)), Some(want), "{f:?}");
        }
    }
}
