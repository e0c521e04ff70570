//! Aggregates the sorted-vector engine computes from each group's distinct
//! argument values: a pass groups by the keys and the argument, so the
//! groups of one key come in a run, ordered by the argument's key (value
//! order for every type but strings, whose keys are hashes), each with its
//! row count. Collapsing the run fills the states of the calls over that
//! argument: DISTINCT calls take each value once, quantiles, mode and
//! entropy take the values with their counts, approx_count_distinct their
//! hashes. No row is read again.

use crate::agg::arg_values::add_value;
use crate::agg::func::{AggFunc, AggParam, Quantile};
use crate::agg::hll;
use crate::agg::holistic::{entropy, mode_index, quantile, Runs};
use crate::agg::layout::{result_words, AggSlot, StateKind};
use crate::value::{value_of_key, LType, Phys, Value};

/// A group's distinct non-NULL argument keys in key order, with counts.
#[derive(Debug, Default)]
pub struct KeyRuns {
    /// The keys.
    pub keys: Vec<u128>,
    /// Rows holding each key.
    pub counts: Vec<u64>,
}

impl KeyRuns {
    /// Forgets the keys.
    pub fn clear(&mut self) {
        self.keys.clear();
        self.counts.clear();
    }
}

/// The hash `approx_count_distinct` takes for a key of type `ty`: floats'
/// zeros and NaNs are one value.
fn hll_hash(ty: LType, key: u128) -> u64 {
    if ty.phys() == Phys::F64 {
        let x = strata_format::types::float_from_key(key as u64);
        let x = if x == 0.0 {
            0.0
        } else if x.is_nan() {
            f64::NAN
        } else {
            x
        };
        return hll::hash(u128::from(strata_format::types::float_key(x)));
    }
    hll::hash(key)
}

/// Fills the state of `slot` (its words at `st[slot.off..]`) from the
/// group's `runs` of its argument.
pub fn fill(slot: &AggSlot, st: &mut [u64], runs: &KeyRuns) {
    let call = &slot.call;
    let o = slot.off;
    let aty = call.arg().map_or(LType::Null, |a| a.ty);
    let ones;
    let counts: &[u64] = if call.distinct {
        ones = vec![1u64; runs.keys.len()];
        &ones
    } else {
        &runs.counts
    };
    let value = |i: usize| value_of_key(aty, runs.keys[i]);
    st[o..o + slot.kind.words()].fill(0);
    match slot.kind {
        StateKind::Result => {
            let v = match call.func {
                AggFunc::Median | AggFunc::QuantileCont | AggFunc::QuantileDisc => {
                    let q = match &call.param {
                        AggParam::Quantile(q) => q.clone(),
                        _ => Quantile::median(),
                    };
                    quantile(
                        &Runs {
                            counts,
                            value: &value,
                        },
                        call.func,
                        aty,
                        &q,
                    )
                }
                AggFunc::Mode => mode_index(counts).map_or(Value::Null, value),
                AggFunc::Entropy => Value::Float(entropy(counts)),
                AggFunc::ApproxCountDistinct => {
                    let mut h: Vec<u64> = runs.keys.iter().map(|&k| hll_hash(aty, k)).collect();
                    Value::Int(hll::count_of(&mut h) as i64)
                }
                _ => Value::Null,
            };
            if !matches!(v, Value::Null) {
                let (lo, hi) = result_words(&v);
                st[o] = 1;
                st[o + 1] = lo;
                st[o + 2] = hi;
            }
        }
        StateKind::Count => st[o] = runs.keys.len() as u64,
        kind => {
            for (i, &n) in counts.iter().enumerate() {
                add_value(kind, st, o, &value(i), n);
            }
        }
    }
}
