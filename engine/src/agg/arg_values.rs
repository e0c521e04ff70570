//! An aggregate's argument values in the form its sorted-vector state
//! consumes, and the updates of each state kind by one value (per row) or
//! one value `n` times (per distinct value with its count).

use crate::agg::layout::{
    float_sum, get_i128, kahan, moments, set_float_sum, set_i128, set_kahan, set_moments,
    set_welford, welford, StateKind,
};
use crate::value::{Data, Value, Vector};

/// The byte-order ranks of a vector of strings (as [`ArgValues::Key`]) and
/// its sorted distinct strings, which the ranks index.
pub fn str_ranks(v: &Vector) -> (ArgValues, Vec<Vec<u8>>) {
    let valid: Vec<bool> = (0..v.len()).map(|i| !v.is_null(i)).collect();
    let Data::Str(d) = &v.data else {
        return (
            ArgValues::Key(vec![0; v.len()], vec![false; v.len()]),
            Vec::new(),
        );
    };
    let mut idx: Vec<usize> = (0..d.len()).filter(|&i| valid[i]).collect();
    idx.sort_unstable_by(|&a, &b| d[a].cmp(&d[b]));
    let mut ranks = vec![0u64; d.len()];
    let mut sorted: Vec<Vec<u8>> = Vec::new();
    for i in idx {
        if sorted.last().map(Vec::as_slice) != Some(&d[i]) {
            sorted.push(d[i].to_vec());
        }
        ranks[i] = (sorted.len() - 1) as u64;
    }
    (ArgValues::Key(ranks, valid), sorted)
}

/// An aggregate's argument values in the form its state consumes, indexed
/// by distinct value (or row), with the value for a NULL input last.
#[derive(Debug, Clone)]
pub enum ArgValues {
    /// No argument (COUNT(*)), or a state filled from distinct values.
    None,
    /// Validity only (COUNT).
    Valid(Vec<bool>),
    /// Integer values (booleans as 0 and 1) and validity.
    Int(Vec<i128>, Vec<bool>),
    /// 64-bit integer values of a SUM (a DECIMAL(18) or narrower, an
    /// integer) and validity: half the bytes of [`ArgValues::Int`] per row.
    SumI64(Vec<i64>, Vec<bool>),
    /// Float values and validity.
    Float(Vec<f64>, Vec<bool>),
    /// Order-preserving keys and validity.
    Key(Vec<u64>, Vec<bool>),
}

fn ints(v: &Vector) -> Vec<i128> {
    match &v.data {
        Data::I64(d) => d.iter().map(|&x| i128::from(x)).collect(),
        Data::U64(d) => d.iter().map(|&x| i128::from(x)).collect(),
        Data::I128(d) => d.clone(),
        Data::Bool(d) => d.iter().map(|&x| i128::from(x)).collect(),
        _ => vec![0; v.len()],
    }
}

/// Adds the float `x` `n` times to a state of a float kind at `s[o..]`.
#[inline]
pub fn add_float(kind: StateKind, s: &mut [u64], o: usize, x: f64, n: u64) {
    match kind {
        StateKind::SumFloat => {
            s[o] += n;
            let mut sum = float_sum(s, o);
            sum.add_n(x, n);
            set_float_sum(s, o, &sum);
        }
        StateKind::Welford => {
            let mut w = welford(s, o);
            w.add_n(x, n);
            set_welford(s, o, &w);
        }
        StateKind::Moments => {
            let mut m = moments(s, o);
            m.add_n(x, n);
            set_moments(s, o, &m);
        }
        StateKind::Kahan => {
            let mut k = kahan(s, o);
            k.add_n(x, n);
            set_kahan(s, o, &k);
        }
        StateKind::Product => {
            let p = if s[o] == 0 {
                1.0
            } else {
                f64::from_bits(s[o + 1])
            };
            let times = if n == 1 {
                x
            } else {
                x.powi(i32::try_from(n).unwrap_or(i32::MAX))
            };
            s[o + 1] = (p * times).to_bits();
            s[o] += n;
        }
        _ => {}
    }
}

/// Adds the integer `x` `n` times to a state of an integer kind at `s[o..]`.
#[inline]
pub fn add_int(kind: StateKind, s: &mut [u64], o: usize, x: i128, n: u64) {
    match kind {
        StateKind::SumInt => {
            s[o] += n;
            let add = if n == 1 {
                x
            } else {
                x.wrapping_mul(i128::from(n))
            };
            let sum = get_i128(s, o + 1).wrapping_add(add);
            set_i128(s, o + 1, sum);
        }
        StateKind::BoolAnd | StateKind::BoolOr | StateKind::CountIf => {
            let b = x as u64;
            s[o + 1] = match kind {
                _ if s[o] == 0 && kind != StateKind::CountIf => b,
                StateKind::BoolAnd => s[o + 1] & b,
                StateKind::BoolOr => s[o + 1] | b,
                _ => s[o + 1] + b * n,
            };
            s[o] += n;
        }
        StateKind::BitAnd | StateKind::BitOr | StateKind::BitXor => {
            let cur = get_i128(s, o + 1);
            let v = match kind {
                // Pairs of equal values cancel.
                StateKind::BitXor => cur ^ if n % 2 == 1 { x } else { 0 },
                _ if s[o] == 0 => x,
                StateKind::BitAnd => cur & x,
                _ => cur | x,
            };
            set_i128(s, o + 1, v);
            s[o] += n;
        }
        _ => {}
    }
}

/// Adds `v` (non-NULL, of the argument's type) `n` times to a state of
/// kind `kind` at `s[o..]`: what [`ArgValues::update`] does for one value.
pub fn add_value(kind: StateKind, s: &mut [u64], o: usize, v: &Value, n: u64) {
    match (kind, v) {
        (_, Value::Null) => {}
        (StateKind::Count, _) => s[o] += n,
        (StateKind::SumFloat | StateKind::Welford | StateKind::Moments, Value::Float(x))
        | (StateKind::Kahan | StateKind::Product, Value::Float(x)) => add_float(kind, s, o, *x, n),
        (_, Value::Int(x)) => add_int(kind, s, o, i128::from(*x), n),
        (_, Value::UInt(x)) => add_int(kind, s, o, i128::from(*x), n),
        (_, Value::Huge(x)) => add_int(kind, s, o, *x, n),
        (_, Value::Bool(x)) => add_int(kind, s, o, i128::from(*x), n),
        _ => {}
    }
}

/// Adds `(group, value)` pairs to the SUM states at word `g * sw + o` of
/// `states`: each group's count and sum gather in a local pair first, so no
/// 128-bit state is read and written back per row.
fn sum_rows(states: &mut [u64], sw: usize, o: usize, rows: impl Iterator<Item = (usize, i128)>) {
    let mut acc = vec![(0u64, 0i128); states.len() / sw];
    for (g, x) in rows {
        let a = &mut acc[g];
        a.0 += 1;
        a.1 = a.1.wrapping_add(x);
    }
    for (g, &(n, sum)) in acc.iter().enumerate() {
        if n > 0 {
            let b = g * sw + o;
            states[b] += n;
            set_i128(states, b + 1, get_i128(states, b + 1).wrapping_add(sum));
        }
    }
}

impl ArgValues {
    /// Converts evaluated argument values for a state of `kind`.
    pub fn new(kind: StateKind, v: &Vector) -> ArgValues {
        let valid: Vec<bool> = match &v.nulls {
            Some(nulls) => nulls.iter().map(|&n| !n).collect(),
            None => vec![true; v.len()],
        };
        if let (StateKind::SumInt, Data::I64(d)) = (kind, &v.data) {
            return ArgValues::SumI64(d.clone(), valid);
        }
        match kind {
            StateKind::CountStar | StateKind::Result => ArgValues::None,
            StateKind::Count => ArgValues::Valid(valid),
            StateKind::SumInt
            | StateKind::BoolAnd
            | StateKind::BoolOr
            | StateKind::BitAnd
            | StateKind::BitOr
            | StateKind::BitXor
            | StateKind::CountIf => ArgValues::Int(ints(v), valid),
            StateKind::SumFloat
            | StateKind::Welford
            | StateKind::Moments
            | StateKind::Kahan
            | StateKind::Product => ArgValues::Float(
                match &v.data {
                    Data::F64(d) => d.clone(),
                    _ => vec![0.0; v.len()],
                },
                valid,
            ),
            StateKind::MinStr | StateKind::MaxStr => str_ranks(v).0,
            // Keys in which a computed -0.0 sorts just below +0.0, so that
            // the minimum of zeros that are all -0.0 is -0.0.
            StateKind::Min | StateKind::Max => ArgValues::Key(
                (0..v.len())
                    .map(|i| v.key_keeping_zero_sign(i).map_or(0, |k| k as u64))
                    .collect(),
                valid,
            ),
        }
    }

    /// Adds one row per `(group, value index)` pair: the state of group `g`
    /// starts at word `g * sw` of `states`, this aggregate's at offset `o`.
    /// The same as [`ArgValues::update`] with `n = 1` per row, with the
    /// dispatch on the value kind hoisted out of the row loop.
    pub fn update_rows(
        &self,
        kind: StateKind,
        states: &mut [u64],
        sw: usize,
        o: usize,
        rows: impl Iterator<Item = (usize, usize)>,
    ) {
        match self {
            ArgValues::None => {}
            ArgValues::Valid(valid) => {
                for (g, i) in rows {
                    if valid[i] {
                        states[g * sw + o] += 1;
                    }
                }
            }
            ArgValues::Int(vals, valid) if kind == StateKind::SumInt => sum_rows(
                states,
                sw,
                o,
                rows.filter(|&(_, i)| valid[i]).map(|(g, i)| (g, vals[i])),
            ),
            ArgValues::Int(vals, valid) => {
                for (g, i) in rows {
                    if valid[i] {
                        add_int(kind, states, g * sw + o, vals[i], 1);
                    }
                }
            }
            ArgValues::SumI64(vals, valid) => sum_rows(
                states,
                sw,
                o,
                rows.filter(|&(_, i)| valid[i])
                    .map(|(g, i)| (g, i128::from(vals[i]))),
            ),
            ArgValues::Float(vals, valid) if kind == StateKind::SumFloat => {
                for (g, i) in rows {
                    if valid[i] {
                        let b = g * sw + o;
                        states[b] += 1;
                        let mut sum = float_sum(states, b);
                        sum.add(vals[i]);
                        set_float_sum(states, b, &sum);
                    }
                }
            }
            ArgValues::Float(vals, valid) => {
                for (g, i) in rows {
                    if valid[i] {
                        add_float(kind, states, g * sw + o, vals[i], 1);
                    }
                }
            }
            ArgValues::Key(keys, valid) => {
                let min = matches!(kind, StateKind::Min | StateKind::MinStr);
                for (g, i) in rows {
                    if valid[i] {
                        let b = g * sw + o;
                        let k = keys[i];
                        if states[b] == 0
                            || (min && k < states[b + 1])
                            || (!min && k > states[b + 1])
                        {
                            states[b + 1] = k;
                        }
                        states[b] += 1;
                    }
                }
            }
        }
    }

    /// Adds every value `i` `counts[i]` times to the state at `s`
    /// (aggregate offset `o`), as [`ArgValues::update`] does for each.
    pub fn update_counts(&self, kind: StateKind, s: &mut [u64], o: usize, counts: &[u32]) {
        match self {
            // The sum of a column's distinct values times their counts, in
            // one loop (AVG(UserID): a block's worth of distinct values).
            ArgValues::SumI64(vals, valid) => {
                let (mut n, mut sum) = (s[o], get_i128(s, o + 1));
                for ((&c, &x), &ok) in counts.iter().zip(vals.iter()).zip(valid.iter()) {
                    if c > 0 && ok {
                        n += u64::from(c);
                        sum = sum.wrapping_add(i128::from(x).wrapping_mul(i128::from(c)));
                    }
                }
                s[o] = n;
                set_i128(s, o + 1, sum);
            }
            ArgValues::Int(vals, valid) if kind == StateKind::SumInt => {
                let (mut n, mut sum) = (s[o], get_i128(s, o + 1));
                for ((&c, &x), &ok) in counts.iter().zip(vals.iter()).zip(valid.iter()) {
                    if c > 0 && ok {
                        n += u64::from(c);
                        sum = sum.wrapping_add(x.wrapping_mul(i128::from(c)));
                    }
                }
                s[o] = n;
                set_i128(s, o + 1, sum);
            }
            _ => {
                for (i, &c) in counts.iter().enumerate() {
                    self.update(kind, s, o, i, u64::from(c));
                }
            }
        }
    }

    /// Adds value `i`, `n` times, to the state at `s` (aggregate offset `o`).
    pub fn update(&self, kind: StateKind, s: &mut [u64], o: usize, i: usize, n: u64) {
        if n == 0 {
            return;
        }
        match self {
            ArgValues::None => {}
            ArgValues::Valid(valid) => {
                if valid[i] {
                    s[o] += n;
                }
            }
            ArgValues::Int(vals, valid) => {
                if valid[i] {
                    add_int(kind, s, o, vals[i], n);
                }
            }
            ArgValues::SumI64(vals, valid) => {
                if valid[i] {
                    add_int(kind, s, o, i128::from(vals[i]), n);
                }
            }
            ArgValues::Float(vals, valid) => {
                if valid[i] {
                    add_float(kind, s, o, vals[i], n);
                }
            }
            ArgValues::Key(keys, valid) => {
                if valid[i] {
                    let k = keys[i];
                    let better = s[o] == 0
                        || if matches!(kind, StateKind::Min | StateKind::MinStr) {
                            k < s[o + 1]
                        } else {
                            k > s[o + 1]
                        };
                    if better {
                        s[o + 1] = k;
                    }
                    s[o] += n;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agg::func::{AggCall, AggFunc};
    use crate::agg::layout::StateLayout;
    use crate::expr::{ExprKind, TExpr};
    use crate::value::LType;

    fn call(func: AggFunc, ty: LType, aty: LType) -> AggCall {
        AggCall::new(
            func,
            vec![TExpr {
                kind: ExprKind::Col(0),
                ty: aty,
            }],
            ty,
        )
    }

    #[test]
    fn states_combine() {
        let aggs = vec![
            call(AggFunc::Sum, LType::HugeInt, LType::Int64),
            call(AggFunc::Min, LType::Int64, LType::Int64),
            call(AggFunc::Avg, LType::Double, LType::Double),
            call(AggFunc::BitXor, LType::Int64, LType::Int64),
            call(AggFunc::VarPop, LType::Double, LType::Double),
        ];
        let l = StateLayout::new(&aggs, 0).unwrap_or_else(|_| unreachable!());
        let v = Vector {
            ty: LType::Int64,
            data: Data::I64(vec![i64::MAX, -3]),
            nulls: None,
        };
        let f = Vector {
            ty: LType::Double,
            data: Data::F64(vec![1.5, 2.5]),
            nulls: None,
        };
        let (mut a, mut b) = (vec![0u64; l.words], vec![0u64; l.words]);
        l.init(&mut a);
        l.init(&mut b);
        let args = [
            ArgValues::new(l.slots[0].kind, &v),
            ArgValues::new(l.slots[1].kind, &v),
            ArgValues::new(l.slots[2].kind, &f),
            ArgValues::new(l.slots[3].kind, &v),
            ArgValues::new(l.slots[4].kind, &f),
        ];
        for (k, s) in l.slots.iter().enumerate() {
            args[k].update(s.kind, &mut a, s.off, 0, 2);
            args[k].update(s.kind, &mut b, s.off, 1, 1);
        }
        a[0] = 2;
        b[0] = 1;
        l.combine(&mut a, &b);
        let rows = [a.as_slice()];
        let get = |i: usize| l.finish(i, &rows, 0).map(|v| v.get(0)).ok();
        assert_eq!(get(0), Some(Value::Huge(2 * i128::from(i64::MAX) - 3)));
        assert_eq!(get(1), Some(Value::Int(-3)));
        assert_eq!(get(2), Some(Value::Float(5.5 / 3.0)));
        // x ^ x ^ -3
        assert_eq!(get(3), Some(Value::Int(-3)));
        // 1.5, 1.5, 2.5: mean 5.5/3, population variance 2/9.
        let var = get(4).and_then(|v| match v {
            Value::Float(x) => Some(x),
            _ => None,
        });
        assert!(var.is_some_and(|x| (x - 2.0 / 9.0).abs() < 1e-12));
    }
}
