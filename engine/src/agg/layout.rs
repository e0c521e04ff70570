//! Aggregate states of the sorted-vector engine: a fixed number of 64-bit
//! words per group, updated per row or per distinct value with a
//! multiplicity ([`crate::agg::arg_values`]), combined when sorted vectors
//! of groups are merged, and finished into result values. Calls computed
//! from each group's distinct values ([`AggCall::from_values`]) are filled
//! when a pass's groups are collapsed ([`crate::agg::from_values`]).

use crate::agg::float_sum::{exact_avg, FloatSum};
use crate::agg::func::{AggCall, AggFunc};
use crate::agg::moments::{Kahan, Moments, Welford};
use crate::error::Result;
use crate::value::{LType, Phys, Value, Vector};

/// How one aggregate keeps its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateKind {
    /// Uses the group's row count (word 0).
    CountStar,
    /// `[non-NULL count]`.
    Count,
    /// `[count, sum lo, sum hi]`: exact 128-bit integer sum.
    SumInt,
    /// `[count, finite sum (f64 bits), infinities seen]`
    /// ([`FloatSum`]).
    SumFloat,
    /// `[count, key]`: smallest order-preserving key.
    Min,
    /// `[count, key]`: largest order-preserving key.
    Max,
    /// `[count, key, id]`: smallest string. Within a block `key` is the
    /// string's rank in the block; once the block's groups are built it is
    /// the string's first 8 bytes (big-endian) and `id` its place in the
    /// layout's [`StrArena`].
    MinStr,
    /// `[count, key, id]`: largest string, as [`StateKind::MinStr`].
    MaxStr,
    /// `[count, mean, sum of squared differences]` (Welford, f64 bits).
    Welford,
    /// `[count, mean, M2, M3, M4]` (central moments).
    Moments,
    /// `[count, sum, compensation, infinities seen]` (Kahan).
    Kahan,
    /// `[count, product]`.
    Product,
    /// `[count, all true]`.
    BoolAnd,
    /// `[count, any true]`.
    BoolOr,
    /// `[count, lo, hi]`: AND of 128-bit integers.
    BitAnd,
    /// `[count, lo, hi]`: OR.
    BitOr,
    /// `[count, lo, hi]`: XOR.
    BitXor,
    /// `[count, true count]`.
    CountIf,
    /// `[present, lo, hi]`: a result computed from the group's distinct
    /// values when the pass is collapsed (quantiles, mode, entropy,
    /// approx_count_distinct).
    Result,
}

impl StateKind {
    /// Words of state.
    pub fn words(self) -> usize {
        use StateKind::*;
        match self {
            CountStar => 0,
            Count => 1,
            Min | Max | Product | BoolAnd | BoolOr | CountIf => 2,
            SumFloat | SumInt | MinStr | MaxStr | Welford | BitAnd | BitOr | BitXor | Result => 3,
            Kahan => 4,
            Moments => 5,
        }
    }

    /// The state the sorted-vector engine keeps for `call`, or why it has
    /// none (the hash aggregate then answers the call).
    pub fn of(call: &AggCall) -> std::result::Result<StateKind, String> {
        use AggFunc::*;
        let aty = call.arg().map_or(LType::Null, |e| e.ty);
        let no = |why: &str| Err(format!("{}(): {why}", call.func.name()));
        if !call.order.is_empty() {
            return no("ORDER BY inside the call");
        }
        Ok(match call.func {
            CountStar => StateKind::CountStar,
            Count => StateKind::Count,
            Sum | Avg => match aty.phys() {
                Phys::F64 => StateKind::SumFloat,
                Phys::I64 | Phys::U64 | Phys::I128 | Phys::Bool => StateKind::SumInt,
                Phys::Str => return no("of strings"),
            },
            Min | Max => match aty.phys() {
                Phys::I128 => return no(&format!("of {aty}")),
                Phys::Str if call.func == Min => StateKind::MinStr,
                Phys::Str => StateKind::MaxStr,
                _ if call.func == Min => StateKind::Min,
                _ => StateKind::Max,
            },
            VarSamp | VarPop | StddevSamp | StddevPop => StateKind::Welford,
            Kurtosis | KurtosisPop | Skewness => StateKind::Moments,
            FSum | FAvg => StateKind::Kahan,
            Product => StateKind::Product,
            BoolAnd => StateKind::BoolAnd,
            BoolOr => StateKind::BoolOr,
            BitAnd => StateKind::BitAnd,
            BitOr => StateKind::BitOr,
            BitXor => StateKind::BitXor,
            CountIf => StateKind::CountIf,
            Median | QuantileCont | QuantileDisc | Mode if aty.phys() == Phys::Str => {
                return no("of strings (stored as hashes, not in order)")
            }
            Median | QuantileCont | QuantileDisc | Mode | Entropy | ApproxCountDistinct => {
                StateKind::Result
            }
            _ => return no("needs its rows in order or several arguments"),
        })
    }
}

/// One aggregate's place in the state words.
#[derive(Debug, Clone, PartialEq)]
pub struct AggSlot {
    /// The call.
    pub call: AggCall,
    /// Its state kind.
    pub kind: StateKind,
    /// Offset of its first word within the state words.
    pub off: usize,
    /// Left alone by this pass (which serves other calls).
    pub inert: bool,
}

impl AggSlot {
    /// The argument a pass feeds into the state: none for calls filled
    /// from the group's distinct values, or that another pass serves.
    pub fn pass_arg(&self) -> Option<&crate::expr::TExpr> {
        if self.inert || self.call.from_values() {
            None
        } else {
            self.call.arg()
        }
    }
}

/// The state words of a group: word 0 is the row count, then each
/// aggregate's words, then one witness word per string key part.
#[derive(Debug, Clone, PartialEq)]
pub struct StateLayout {
    /// The aggregates.
    pub slots: Vec<AggSlot>,
    /// Offsets of witness words (kept from either side on merge).
    pub witnesses: Vec<usize>,
    /// Total words.
    pub words: usize,
    /// The strings of string MIN/MAX states.
    pub arena: StrArena,
}

/// The strings held by string MIN/MAX states of one query, shared by all
/// blocks and merges (append only).
#[derive(Clone, Default)]
pub struct StrArena(std::sync::Arc<std::sync::RwLock<Vec<Box<[u8]>>>>);

impl std::fmt::Debug for StrArena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StrArena")
    }
}

impl PartialEq for StrArena {
    fn eq(&self, _: &StrArena) -> bool {
        true
    }
}

impl StrArena {
    /// Stores `bytes`, returning their id.
    pub fn intern(&self, bytes: &[u8]) -> u64 {
        match self.0.write() {
            Ok(mut v) => {
                v.push(bytes.into());
                (v.len() - 1) as u64
            }
            Err(_) => u64::MAX,
        }
    }

    /// The string with id `id` (empty if unknown).
    pub fn get(&self, id: u64) -> Vec<u8> {
        self.0
            .read()
            .ok()
            .and_then(|v| v.get(id as usize).map(|b| b.to_vec()))
            .unwrap_or_default()
    }

    /// Compares strings by `(prefix, id)` references.
    fn cmp(&self, a: (u64, u64), b: (u64, u64)) -> std::cmp::Ordering {
        a.0.cmp(&b.0).then_with(|| {
            if a.1 == b.1 {
                return std::cmp::Ordering::Equal;
            }
            match self.0.read() {
                Ok(v) => {
                    let x = v.get(a.1 as usize).map(|b| &b[..]);
                    let y = v.get(b.1 as usize).map(|b| &b[..]);
                    x.cmp(&y)
                }
                Err(_) => std::cmp::Ordering::Equal,
            }
        })
    }
}

impl StrArena {
    /// Stores all of `strs`, returning their ids.
    pub fn intern_all(&self, strs: &[Vec<u8>]) -> Vec<u64> {
        match self.0.write() {
            Ok(mut v) => strs
                .iter()
                .map(|s| {
                    v.push(s.as_slice().into());
                    (v.len() - 1) as u64
                })
                .collect(),
            Err(_) => vec![u64::MAX; strs.len()],
        }
    }
}

/// The first 8 bytes of `s`, big-endian and zero-padded: comparing them
/// orders strings unless they are equal.
pub fn str_prefix(s: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = s.len().min(8);
    b[..n].copy_from_slice(&s[..n]);
    u64::from_be_bytes(b)
}

/// Reads an f64 state word.
#[inline]
pub fn f(w: &[u64], o: usize) -> f64 {
    f64::from_bits(w[o])
}

/// Writes an f64 state word.
#[inline]
pub fn set_f(w: &mut [u64], o: usize, x: f64) {
    w[o] = x.to_bits();
}

/// The Welford state at words `o..o + 3`.
pub fn welford(w: &[u64], o: usize) -> Welford {
    Welford {
        count: w[o],
        mean: f(w, o + 1),
        dsquared: f(w, o + 2),
    }
}

/// Stores a Welford state at words `o..o + 3`.
pub fn set_welford(w: &mut [u64], o: usize, s: &Welford) {
    w[o] = s.count;
    set_f(w, o + 1, s.mean);
    set_f(w, o + 2, s.dsquared);
}

/// The central moments at words `o..o + 5`.
pub fn moments(w: &[u64], o: usize) -> Moments {
    Moments {
        n: w[o],
        m1: f(w, o + 1),
        m2: f(w, o + 2),
        m3: f(w, o + 3),
        m4: f(w, o + 4),
    }
}

/// Stores central moments at words `o..o + 5`.
pub fn set_moments(w: &mut [u64], o: usize, m: &Moments) {
    w[o] = m.n;
    set_f(w, o + 1, m.m1);
    set_f(w, o + 2, m.m2);
    set_f(w, o + 3, m.m3);
    set_f(w, o + 4, m.m4);
}

/// The Kahan sum at words `o..o + 4`.
pub fn kahan(w: &[u64], o: usize) -> Kahan {
    Kahan {
        count: w[o],
        sum: f(w, o + 1),
        err: f(w, o + 2),
        infs: w[o + 3],
    }
}

/// The float sum at words `o + 1..o + 3`.
#[inline]
pub fn float_sum(w: &[u64], o: usize) -> FloatSum {
    FloatSum {
        finite: f(w, o + 1),
        infs: w[o + 2],
    }
}

/// Stores a float sum at words `o + 1..o + 3`.
#[inline]
pub fn set_float_sum(w: &mut [u64], o: usize, s: &FloatSum) {
    set_f(w, o + 1, s.finite);
    w[o + 2] = s.infs;
}

/// Stores a Kahan sum at words `o..o + 4`.
pub fn set_kahan(w: &mut [u64], o: usize, k: &Kahan) {
    w[o] = k.count;
    set_f(w, o + 1, k.sum);
    set_f(w, o + 2, k.err);
    w[o + 3] = k.infs;
}

/// A value as the two words of a [`StateKind::Result`].
pub fn result_words(v: &Value) -> (u64, u64) {
    match v {
        Value::Int(i) => (*i as u64, 0),
        Value::UInt(u) => (*u, 0),
        Value::Huge(h) => (*h as u64, ((*h as u128) >> 64) as u64),
        Value::Float(x) => (x.to_bits(), 0),
        Value::Bool(b) => (u64::from(*b), 0),
        Value::Null | Value::Str(_) => (0, 0),
    }
}

fn result_value(ty: LType, lo: u64, hi: u64) -> Value {
    match ty.phys() {
        Phys::I64 => Value::Int(lo as i64),
        Phys::U64 => Value::UInt(lo),
        Phys::I128 => Value::Huge((u128::from(lo) | u128::from(hi) << 64) as i128),
        Phys::F64 => Value::Float(f64::from_bits(lo)),
        Phys::Bool => Value::Bool(lo != 0),
        Phys::Str => Value::Null,
    }
}

impl StateLayout {
    /// Lays out states for `aggs`, plus `witnesses` witness words; calls
    /// the engine has no state for are an error (the rule checks first).
    pub fn new(aggs: &[AggCall], witnesses: usize) -> Result<StateLayout> {
        let mut off = 1;
        let mut slots = Vec::new();
        for a in aggs {
            let kind = StateKind::of(a).map_err(crate::error::EngineError::Unsupported)?;
            slots.push(AggSlot {
                call: a.clone(),
                kind,
                off,
                inert: false,
            });
            off += kind.words();
        }
        let witness_offs: Vec<usize> = (off..off + witnesses).collect();
        Ok(StateLayout {
            slots,
            words: off + witness_offs.len(),
            witnesses: witness_offs,
            arena: StrArena::default(),
        })
    }

    /// A fresh state.
    pub fn init(&self, out: &mut [u64]) {
        out.fill(0);
        for s in &self.slots {
            if matches!(s.kind, StateKind::Min | StateKind::MinStr) {
                out[s.off + 1] = u64::MAX;
            }
        }
    }

    /// Combines state `b` into state `a`.
    #[inline]
    pub fn combine(&self, a: &mut [u64], b: &[u64]) {
        a[0] += b[0];
        for s in &self.slots {
            combine_slot(s.kind, &self.arena, a, b, s.off);
        }
    }

    /// The finished values of aggregate `i` over states (stride `stride`,
    /// states starting at word `base` of each row).
    pub fn finish(&self, i: usize, rows: &[&[u64]], base: usize) -> Result<Vector> {
        let s = &self.slots[i];
        let o = base + s.off;
        let ty = s.call.ty;
        let func = s.call.func;
        let mut out = Vector::empty(ty, rows.len());
        let aty = s.call.arg().map_or(LType::Null, |e| e.ty);
        let scale = match aty {
            LType::Decimal(_, sc) => 10f64.powi(i32::from(sc)),
            _ => 1.0,
        };
        let avg = func == AggFunc::Avg;
        let float = |x: Option<f64>| x.map_or(Value::Null, Value::Float);
        for r in rows {
            let v = match s.kind {
                StateKind::CountStar => Value::Int(r[base] as i64),
                StateKind::Count => Value::Int(r[o] as i64),
                StateKind::Result if r[o] == 0 => func.empty_value(),
                StateKind::Result => result_value(ty, r[o + 1], r[o + 2]),
                _ if r[o] == 0 => Value::Null,
                StateKind::SumInt => {
                    let sum = get_i128(r, o + 1);
                    if avg {
                        Value::Float(exact_avg(sum, r[o], scale))
                    } else if ty.phys() == Phys::I128 {
                        Value::Huge(sum)
                    } else {
                        Value::Int(sum as i64)
                    }
                }
                StateKind::SumFloat => {
                    let sum = float_sum(r, o).total();
                    Value::Float(if avg { sum / r[o] as f64 } else { sum })
                }
                StateKind::Min | StateKind::Max => {
                    crate::value::value_of_key(ty, u128::from(r[o + 1]))
                }
                StateKind::MinStr | StateKind::MaxStr => Value::Str(self.arena.get(r[o + 2])),
                StateKind::Welford => float(welford(r, o).finish(func)),
                StateKind::Moments => float(moments(r, o).finish(func)?),
                StateKind::Kahan => float(kahan(r, o).finish(func)),
                StateKind::Product => Value::Float(f(r, o + 1)),
                StateKind::BoolAnd | StateKind::BoolOr => Value::Bool(r[o + 1] != 0),
                StateKind::BitAnd | StateKind::BitOr | StateKind::BitXor => {
                    crate::agg::fold::int_value(ty, get_i128(r, o + 1))
                }
                StateKind::CountIf => Value::Huge(i128::from(r[o + 1])),
            };
            out.push(&v);
        }
        Ok(out)
    }
}

/// Combines the state of one aggregate (kind `kind`, at offset `o`) of `b`
/// into `a`.
#[inline]
fn combine_slot(kind: StateKind, arena: &StrArena, a: &mut [u64], b: &[u64], o: usize) {
    match kind {
        StateKind::CountStar | StateKind::Result => {}
        StateKind::Count => a[o] += b[o],
        StateKind::SumInt => {
            a[o] += b[o];
            let x = get_i128(a, o + 1).wrapping_add(get_i128(b, o + 1));
            set_i128(a, o + 1, x);
        }
        StateKind::SumFloat => {
            a[o] += b[o];
            let mut s = float_sum(a, o);
            s.merge(&float_sum(b, o));
            set_float_sum(a, o, &s);
        }
        StateKind::Min => {
            if b[o] > 0 && (a[o] == 0 || b[o + 1] < a[o + 1]) {
                a[o + 1] = b[o + 1];
            }
            a[o] += b[o];
        }
        StateKind::Max => {
            if b[o] > 0 && (a[o] == 0 || b[o + 1] > a[o + 1]) {
                a[o + 1] = b[o + 1];
            }
            a[o] += b[o];
        }
        StateKind::MinStr | StateKind::MaxStr => {
            if b[o] > 0 {
                let better = a[o] == 0 || {
                    let ord = arena.cmp((b[o + 1], b[o + 2]), (a[o + 1], a[o + 2]));
                    if kind == StateKind::MinStr {
                        ord.is_lt()
                    } else {
                        ord.is_gt()
                    }
                };
                if better {
                    a[o + 1] = b[o + 1];
                    a[o + 2] = b[o + 2];
                }
            }
            a[o] += b[o];
        }
        StateKind::Welford => {
            let mut x = welford(a, o);
            x.combine(&welford(b, o));
            set_welford(a, o, &x);
        }
        StateKind::Moments => {
            let mut x = moments(a, o);
            x.combine(&moments(b, o));
            set_moments(a, o, &x);
        }
        StateKind::Kahan => {
            if b[o] > 0 {
                let mut x = kahan(a, o);
                x.combine(&kahan(b, o));
                set_kahan(a, o, &x);
            }
        }
        StateKind::Product => {
            if b[o] > 0 {
                let p = if a[o] == 0 { 1.0 } else { f(a, o + 1) };
                set_f(a, o + 1, p * f(b, o + 1));
                a[o] += b[o];
            }
        }
        StateKind::BoolAnd | StateKind::BoolOr | StateKind::CountIf => {
            if b[o] > 0 {
                a[o + 1] = match kind {
                    _ if a[o] == 0 => b[o + 1],
                    StateKind::BoolAnd => a[o + 1] & b[o + 1],
                    StateKind::BoolOr => a[o + 1] | b[o + 1],
                    _ => a[o + 1] + b[o + 1],
                };
                a[o] += b[o];
            }
        }
        StateKind::BitAnd | StateKind::BitOr | StateKind::BitXor => {
            if b[o] > 0 {
                let (x, y) = (get_i128(a, o + 1), get_i128(b, o + 1));
                let v = match kind {
                    _ if a[o] == 0 => y,
                    StateKind::BitAnd => x & y,
                    StateKind::BitOr => x | y,
                    _ => x ^ y,
                };
                set_i128(a, o + 1, v);
                a[o] += b[o];
            }
        }
    }
}

/// Reads an i128 from two state words.
#[inline]
pub fn get_i128(w: &[u64], o: usize) -> i128 {
    (u128::from(w[o]) | u128::from(w[o + 1]) << 64) as i128
}

/// Writes an i128 into two state words.
#[inline]
pub fn set_i128(w: &mut [u64], o: usize, v: i128) {
    w[o] = v as u64;
    w[o + 1] = ((v as u128) >> 64) as u64;
}
