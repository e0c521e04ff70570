//! Aggregates fed one row at a time: the interface window functions
//! compute framed aggregates through (running totals, sliding frames,
//! segment trees; see `exec::window::framed`).
//!
//! An [`Accumulator`] is an aggregate call bound to its argument's values;
//! its `State` is the running value of some set of rows. Adding an
//! aggregate function to windows: a type implementing [`Accumulator`]
//! (`init`, `add`, `merge`, `finish`, and `remove` when it can be undone
//! exactly) and its arm in [`with_accumulator`]. A function without one
//! still works over windows: the window operator then hands each distinct
//! frame's rows to the grouping aggregation ([`crate::agg::accumulate`]).

use std::collections::HashMap;

use crate::agg::accumulate::{atom, Atom};
use crate::agg::float_sum::{exact_avg, FloatSum};
use crate::agg::func::{AggCall, AggFunc};
use crate::error::{EngineError, Result};
use crate::expr::order::cmp_values;
use crate::value::{Data, LType, Value, Vector};

/// An aggregate call over one argument vector, fed row by row.
pub trait Accumulator: Sync {
    /// The aggregate of some set of rows.
    type State: Clone + Send + Sync;
    /// Whether [`Accumulator::remove`] undoes [`Accumulator::add`] exactly
    /// (a sliding frame then adds and removes rows as it moves).
    const INVERTIBLE: bool;
    /// Whether [`Accumulator::merge`] is cheap (states of a segment tree's
    /// nodes are merged).
    const MERGEABLE: bool;
    /// The state of no rows.
    fn init(&self) -> Self::State;
    /// Adds row `row` of the argument.
    fn add(&self, s: &mut Self::State, row: usize) -> Result<()>;
    /// Takes row `row` (added before) out again; only where
    /// [`Accumulator::INVERTIBLE`].
    fn remove(&self, s: &mut Self::State, row: usize) -> Result<()>;
    /// Adds the rows of `other` (disjoint from the state's).
    fn merge(&self, s: &mut Self::State, other: &Self::State) -> Result<()>;
    /// Appends the aggregate's value to `out`.
    fn finish(&self, s: &Self::State, out: &mut Vector) -> Result<()>;
}

/// Something to do with an accumulator, whatever its type.
pub trait WithAccumulator {
    /// The result.
    type Out;
    /// Does it with `acc`.
    fn run<A: Accumulator>(self, acc: &A) -> Self::Out;
}

/// Runs `f` with the accumulator of `call` over `arg` (its argument's
/// values; `None` for `COUNT(*)`), or returns `None` when the function has
/// none.
pub fn with_accumulator<F: WithAccumulator>(
    call: &AggCall,
    arg: Option<&Vector>,
    f: F,
) -> Option<F::Out> {
    let Some(arg) = arg else {
        return Some(f.run(&Count { arg: None }));
    };
    if call.distinct {
        return match call.func {
            AggFunc::Count => Some(f.run(&CountDistinct { arg })),
            _ => None,
        };
    }
    Some(match call.func {
        AggFunc::CountStar => f.run(&Count { arg: None }),
        AggFunc::Count => f.run(&Count { arg: Some(arg) }),
        AggFunc::Sum | AggFunc::Avg => {
            let avg = call.func == AggFunc::Avg;
            match &arg.data {
                Data::F64(values) => f.run(&FloatSumOf { values, arg, avg }),
                Data::I64(_) | Data::U64(_) | Data::I128(_) => {
                    let scale = match arg.ty {
                        LType::Decimal(_, s) => 10f64.powi(i32::from(s)),
                        _ => 1.0,
                    };
                    f.run(&ExactSum { arg, avg, scale })
                }
                _ => return None,
            }
        }
        AggFunc::Min | AggFunc::Max => f.run(&MinMax {
            arg,
            max: call.func == AggFunc::Max,
        }),
        _ => return None,
    })
}

/// `COUNT(x)`: the non-NULL values (`COUNT(*)`, without an argument:
/// the rows).
struct Count<'a> {
    arg: Option<&'a Vector>,
}

impl Count<'_> {
    #[inline]
    fn counts(&self, row: usize) -> i64 {
        i64::from(self.arg.is_none_or(|a| !a.is_null(row)))
    }
}

impl Accumulator for Count<'_> {
    type State = i64;
    const INVERTIBLE: bool = true;
    const MERGEABLE: bool = true;
    fn init(&self) -> i64 {
        0
    }
    fn add(&self, s: &mut i64, row: usize) -> Result<()> {
        *s += self.counts(row);
        Ok(())
    }
    fn remove(&self, s: &mut i64, row: usize) -> Result<()> {
        *s -= self.counts(row);
        Ok(())
    }
    fn merge(&self, s: &mut i64, o: &i64) -> Result<()> {
        *s += o;
        Ok(())
    }
    fn finish(&self, s: &i64, out: &mut Vector) -> Result<()> {
        out.push(&Value::Int(*s));
        Ok(())
    }
}

/// `SUM` and `AVG` of integers and decimals: an exact `i128` total (as
/// the grouping aggregation computes it) and the count of values.
struct ExactSum<'a> {
    arg: &'a Vector,
    avg: bool,
    /// `10^scale` of a decimal argument (AVG divides by it).
    scale: f64,
}

impl ExactSum<'_> {
    #[inline]
    fn value(&self, row: usize) -> Option<i128> {
        if self.arg.is_null(row) {
            return None;
        }
        match &self.arg.data {
            Data::I64(d) => Some(i128::from(d[row])),
            Data::U64(d) => Some(i128::from(d[row])),
            Data::I128(d) => Some(d[row]),
            _ => None,
        }
    }

    fn overflow(&self) -> EngineError {
        let name = if self.avg { "avg" } else { "sum" };
        EngineError::Runtime(format!("Overflow in {name}() of {}", self.arg.ty))
    }
}

impl Accumulator for ExactSum<'_> {
    type State = (i128, i64);
    const INVERTIBLE: bool = true;
    const MERGEABLE: bool = true;
    fn init(&self) -> (i128, i64) {
        (0, 0)
    }
    #[inline]
    fn add(&self, s: &mut (i128, i64), row: usize) -> Result<()> {
        if let Some(x) = self.value(row) {
            s.0 = s.0.checked_add(x).ok_or_else(|| self.overflow())?;
            s.1 += 1;
        }
        Ok(())
    }
    #[inline]
    fn remove(&self, s: &mut (i128, i64), row: usize) -> Result<()> {
        if let Some(x) = self.value(row) {
            s.0 = s.0.checked_sub(x).ok_or_else(|| self.overflow())?;
            s.1 -= 1;
        }
        Ok(())
    }
    fn merge(&self, s: &mut (i128, i64), o: &(i128, i64)) -> Result<()> {
        s.0 = s.0.checked_add(o.0).ok_or_else(|| self.overflow())?;
        s.1 += o.1;
        Ok(())
    }
    fn finish(&self, s: &(i128, i64), out: &mut Vector) -> Result<()> {
        out.push(&match (s.1, self.avg) {
            (0, _) => Value::Null,
            (c, true) => Value::Float(exact_avg(s.0, c as u64, self.scale)),
            (_, false) => Value::Huge(s.0),
        });
        Ok(())
    }
}

/// `SUM` and `AVG` of floats (not undone exactly: rounding).
struct FloatSumOf<'a> {
    values: &'a [f64],
    arg: &'a Vector,
    avg: bool,
}

impl Accumulator for FloatSumOf<'_> {
    type State = (FloatSum, i64);
    const INVERTIBLE: bool = false;
    const MERGEABLE: bool = true;
    fn init(&self) -> (FloatSum, i64) {
        (FloatSum::default(), 0)
    }
    #[inline]
    fn add(&self, s: &mut (FloatSum, i64), row: usize) -> Result<()> {
        if !self.arg.is_null(row) {
            s.0.add(self.values[row]);
            s.1 += 1;
        }
        Ok(())
    }
    fn remove(&self, _: &mut (FloatSum, i64), _: usize) -> Result<()> {
        Err(EngineError::Internal("removing from a float sum".into()))
    }
    fn merge(&self, s: &mut (FloatSum, i64), o: &(FloatSum, i64)) -> Result<()> {
        s.0.merge(&o.0);
        s.1 += o.1;
        Ok(())
    }
    fn finish(&self, s: &(FloatSum, i64), out: &mut Vector) -> Result<()> {
        out.push(&match (s.1, self.avg) {
            (0, _) => Value::Null,
            (c, true) => Value::Float(s.0.total() / c as f64),
            (_, false) => Value::Float(s.0.total()),
        });
        Ok(())
    }
}

/// `MIN` and `MAX`: the row holding the best value so far.
struct MinMax<'a> {
    arg: &'a Vector,
    max: bool,
}

impl MinMax<'_> {
    #[inline]
    fn better(&self, a: usize, b: usize) -> bool {
        let o = cmp_values(self.arg, a, b);
        if self.max {
            o.is_gt()
        } else {
            o.is_lt()
        }
    }
}

impl Accumulator for MinMax<'_> {
    type State = Option<usize>;
    const INVERTIBLE: bool = false;
    const MERGEABLE: bool = true;
    fn init(&self) -> Option<usize> {
        None
    }
    #[inline]
    fn add(&self, s: &mut Option<usize>, row: usize) -> Result<()> {
        if !self.arg.is_null(row) && s.is_none_or(|b| self.better(row, b)) {
            *s = Some(row);
        }
        Ok(())
    }
    fn remove(&self, _: &mut Option<usize>, _: usize) -> Result<()> {
        Err(EngineError::Internal("removing from a minimum".into()))
    }
    fn merge(&self, s: &mut Option<usize>, o: &Option<usize>) -> Result<()> {
        if let Some(r) = *o {
            if s.is_none_or(|b| self.better(r, b)) {
                *s = Some(r);
            }
        }
        Ok(())
    }
    fn finish(&self, s: &Option<usize>, out: &mut Vector) -> Result<()> {
        out.push(&s.map_or(Value::Null, |r| self.arg.get(r)));
        Ok(())
    }
}

/// `COUNT(DISTINCT x)`: how often each value occurs (so rows can be taken
/// out again); merging is a union, too costly for segment trees.
struct CountDistinct<'a> {
    arg: &'a Vector,
}

impl<'a> Accumulator for CountDistinct<'a> {
    type State = HashMap<Atom<'a>, u32, foldhash::fast::FixedState>;
    const INVERTIBLE: bool = true;
    const MERGEABLE: bool = false;
    fn init(&self) -> Self::State {
        HashMap::default()
    }
    fn add(&self, s: &mut Self::State, row: usize) -> Result<()> {
        let a = atom(self.arg, row);
        if a != Atom::Null {
            *s.entry(a).or_insert(0) += 1;
        }
        Ok(())
    }
    fn remove(&self, s: &mut Self::State, row: usize) -> Result<()> {
        let a = atom(self.arg, row);
        if a != Atom::Null {
            if let Some(c) = s.get_mut(&a) {
                *c -= 1;
                if *c == 0 {
                    s.remove(&a);
                }
            }
        }
        Ok(())
    }
    fn merge(&self, s: &mut Self::State, o: &Self::State) -> Result<()> {
        for (k, c) in o {
            *s.entry(*k).or_insert(0) += c;
        }
        Ok(())
    }
    fn finish(&self, s: &Self::State, out: &mut Vector) -> Result<()> {
        out.push(&Value::Int(s.len() as i64));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Folds every row into one state, takes the first out again, and
    /// returns both values.
    struct AddAll(usize, LType);

    impl WithAccumulator for AddAll {
        type Out = (Value, Option<Value>);
        fn run<A: Accumulator>(self, acc: &A) -> Self::Out {
            let mut s = acc.init();
            let mut half = acc.init();
            for r in 0..self.0 {
                acc.add(&mut s, r).unwrap_or(());
                if r % 2 == 0 {
                    acc.add(&mut half, r).unwrap_or(());
                }
            }
            let mut other = acc.init();
            for r in (1..self.0).step_by(2) {
                acc.add(&mut other, r).unwrap_or(());
            }
            acc.merge(&mut half, &other).unwrap_or(());
            let mut a = Vector::empty(self.1, 1);
            let mut b = Vector::empty(self.1, 1);
            let _ = acc.finish(&s, &mut a);
            let _ = acc.finish(&half, &mut b);
            assert_eq!(a.get(0), b.get(0), "merge agrees with adding");
            let ty = self.1;
            let removed = A::INVERTIBLE.then(|| {
                acc.remove(&mut s, 0).unwrap_or(());
                let mut c = Vector::empty(ty, 1);
                let _ = acc.finish(&s, &mut c);
                c.get(0)
            });
            (a.get(0), removed)
        }
    }

    fn ints(vals: &[Option<i64>]) -> Vector {
        let mut v = Vector::empty(LType::Int64, vals.len());
        for x in vals {
            v.push(&x.map_or(Value::Null, Value::Int));
        }
        v
    }

    fn call(func: AggFunc, distinct: bool) -> AggCall {
        let mut c = AggCall::new(func, Vec::new(), LType::Int64);
        c.distinct = distinct;
        c
    }

    #[test]
    fn states_add_merge_and_remove() {
        let v = ints(&[Some(5), None, Some(7), Some(5), Some(-2)]);
        let run = |f: AggFunc, d: bool| {
            let ty = match f {
                AggFunc::Sum => LType::HugeInt,
                _ => LType::Int64,
            };
            with_accumulator(&call(f, d), Some(&v), AddAll(5, ty))
        };
        assert_eq!(
            run(AggFunc::Count, false),
            Some((Value::Int(4), Some(Value::Int(3))))
        );
        assert_eq!(
            run(AggFunc::Sum, false),
            Some((Value::Huge(15), Some(Value::Huge(10))))
        );
        assert_eq!(
            run(AggFunc::Count, true),
            Some((Value::Int(3), Some(Value::Int(3))))
        );
        assert_eq!(run(AggFunc::Max, false), Some((Value::Int(7), None)));
        assert_eq!(run(AggFunc::Min, false), Some((Value::Int(-2), None)));
        assert!(run(AggFunc::Sum, true).is_none());
    }
}
