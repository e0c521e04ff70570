//! Aggregate states: a fixed number of 64-bit words per group, updated per
//! row or per distinct value with a multiplicity, and combined when sorted
//! vectors of groups are merged.

use crate::agg::func::{AggCall, AggFunc};
use crate::error::{unsupported, Result};
use crate::value::{Data, LType, Phys, Value, Vector};

/// How one aggregate keeps its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateKind {
    /// Uses the group's row count (word 0).
    CountStar,
    /// `[non-NULL count]`.
    Count,
    /// `[count, sum lo, sum hi]`: exact 128-bit integer sum.
    SumInt,
    /// `[count, f64 bits]`.
    SumFloat,
    /// `[count, key]`: smallest order-preserving key.
    Min,
    /// `[count, key]`: largest order-preserving key.
    Max,
    /// `[distinct count]`, filled when the distinct values are collapsed.
    CountDistinct,
    /// `[count, key, id]`: smallest string. Within a block `key` is the
    /// string's rank in the block; once the block's groups are built it is
    /// the string's first 8 bytes (big-endian) and `id` its place in the
    /// layout's [`StrArena`].
    MinStr,
    /// `[count, key, id]`: largest string, as [`StateKind::MinStr`].
    MaxStr,
}

impl StateKind {
    /// Words of state.
    pub fn words(self) -> usize {
        match self {
            StateKind::CountStar => 0,
            StateKind::Count | StateKind::CountDistinct => 1,
            StateKind::SumInt | StateKind::MinStr | StateKind::MaxStr => 3,
            StateKind::SumFloat | StateKind::Min | StateKind::Max => 2,
        }
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
        if sorted.last() != Some(&d[i]) {
            sorted.push(d[i].clone());
        }
        ranks[i] = (sorted.len() - 1) as u64;
    }
    (ArgValues::Key(ranks, valid), sorted)
}

/// The first 8 bytes of `s`, big-endian and zero-padded: comparing them
/// orders strings unless they are equal.
pub fn str_prefix(s: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = s.len().min(8);
    b[..n].copy_from_slice(&s[..n]);
    u64::from_be_bytes(b)
}

impl StateLayout {
    /// Lays out states for `aggs`, plus `witnesses` witness words.
    pub fn new(aggs: &[AggCall], witnesses: usize) -> Result<StateLayout> {
        let mut off = 1;
        let mut slots = Vec::new();
        for a in aggs {
            let aty = a.arg.as_ref().map_or(LType::Null, |e| e.ty);
            let kind = match a.func {
                AggFunc::CountStar => StateKind::CountStar,
                AggFunc::Count if a.distinct => StateKind::CountDistinct,
                AggFunc::Count => StateKind::Count,
                AggFunc::Sum | AggFunc::Avg => match aty.phys() {
                    Phys::F64 => StateKind::SumFloat,
                    Phys::I64 | Phys::U64 | Phys::I128 | Phys::Bool => StateKind::SumInt,
                    Phys::Str => return unsupported("SUM/AVG of strings"),
                },
                AggFunc::Min | AggFunc::Max => {
                    if aty.phys() == Phys::I128 {
                        return unsupported(format!("MIN/MAX of {aty}"));
                    }
                    if aty.phys() == Phys::Str {
                        if a.func == AggFunc::Min {
                            StateKind::MinStr
                        } else {
                            StateKind::MaxStr
                        }
                    } else if a.func == AggFunc::Min {
                        StateKind::Min
                    } else {
                        StateKind::Max
                    }
                }
            };
            slots.push(AggSlot {
                call: a.clone(),
                kind,
                off,
            });
            off += kind.words();
        }
        let witness_offs: Vec<usize> = (off..off + witnesses).collect();
        Ok(StateLayout {
            slots,
            words: off + witnesses_len(witness_offs.len()),
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
            let o = s.off;
            match s.kind {
                StateKind::CountStar => {}
                StateKind::Count | StateKind::CountDistinct => a[o] += b[o],
                StateKind::SumInt => {
                    a[o] += b[o];
                    let x = get_i128(a, o + 1).wrapping_add(get_i128(b, o + 1));
                    set_i128(a, o + 1, x);
                }
                StateKind::SumFloat => {
                    a[o] += b[o];
                    a[o + 1] = (f64::from_bits(a[o + 1]) + f64::from_bits(b[o + 1])).to_bits();
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
                            let ord = self.arena.cmp((b[o + 1], b[o + 2]), (a[o + 1], a[o + 2]));
                            if s.kind == StateKind::MinStr {
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
            }
        }
    }

    /// The finished values of aggregate `i` over states (stride `stride`,
    /// states starting at word `base` of each row).
    pub fn finish(&self, i: usize, rows: &[&[u64]], base: usize) -> Vector {
        let s = &self.slots[i];
        let o = base + s.off;
        let ty = s.call.ty;
        let mut out = Vector::empty(ty, rows.len());
        let aty = s.call.arg.as_ref().map_or(LType::Null, |e| e.ty);
        let scale = match aty {
            LType::Decimal(_, sc) => 10f64.powi(i32::from(sc)),
            _ => 1.0,
        };
        let avg = s.call.func == AggFunc::Avg;
        for r in rows {
            let v = match s.kind {
                StateKind::CountStar => Value::Int(r[base] as i64),
                StateKind::Count | StateKind::CountDistinct => Value::Int(r[o] as i64),
                _ if r[o] == 0 => Value::Null,
                StateKind::SumInt => {
                    let sum = get_i128(r, o + 1);
                    if avg {
                        Value::Float(sum as f64 / r[o] as f64 / scale)
                    } else if ty.phys() == Phys::I128 {
                        Value::Huge(sum)
                    } else {
                        Value::Int(sum as i64)
                    }
                }
                StateKind::SumFloat => {
                    let sum = f64::from_bits(r[o + 1]);
                    Value::Float(if avg { sum / r[o] as f64 } else { sum })
                }
                StateKind::Min | StateKind::Max => {
                    crate::value::value_of_key(ty, u128::from(r[o + 1]))
                }
                StateKind::MinStr | StateKind::MaxStr => Value::Str(self.arena.get(r[o + 2])),
            };
            out.push(&v);
        }
        out
    }
}

fn witnesses_len(n: usize) -> usize {
    n
}

#[inline]
fn get_i128(w: &[u64], o: usize) -> i128 {
    (u128::from(w[o]) | u128::from(w[o + 1]) << 64) as i128
}

#[inline]
fn set_i128(w: &mut [u64], o: usize, v: i128) {
    w[o] = v as u64;
    w[o + 1] = ((v as u128) >> 64) as u64;
}

/// An aggregate's argument values in the form its state consumes, indexed
/// by distinct value (or row), with the value for a NULL input last.
#[derive(Debug, Clone)]
pub enum ArgValues {
    /// No argument (COUNT(*)).
    None,
    /// Validity only (COUNT).
    Valid(Vec<bool>),
    /// Integer values and validity.
    Int(Vec<i128>, Vec<bool>),
    /// Float values and validity.
    Float(Vec<f64>, Vec<bool>),
    /// Order-preserving keys and validity.
    Key(Vec<u64>, Vec<bool>),
}

impl ArgValues {
    /// Converts evaluated argument values for a state of `kind`.
    pub fn new(kind: StateKind, v: &Vector) -> ArgValues {
        let valid: Vec<bool> = (0..v.len()).map(|i| !v.is_null(i)).collect();
        match kind {
            StateKind::CountStar | StateKind::CountDistinct => ArgValues::None,
            StateKind::Count => ArgValues::Valid(valid),
            StateKind::SumInt => ArgValues::Int(
                match &v.data {
                    Data::I64(d) => d.iter().map(|&x| i128::from(x)).collect(),
                    Data::U64(d) => d.iter().map(|&x| i128::from(x)).collect(),
                    Data::I128(d) => d.clone(),
                    Data::Bool(d) => d.iter().map(|&x| i128::from(x)).collect(),
                    _ => vec![0; v.len()],
                },
                valid,
            ),
            StateKind::SumFloat => ArgValues::Float(
                match &v.data {
                    Data::F64(d) => d.clone(),
                    _ => vec![0.0; v.len()],
                },
                valid,
            ),
            StateKind::MinStr | StateKind::MaxStr => str_ranks(v).0,
            StateKind::Min | StateKind::Max => ArgValues::Key(
                (0..v.len())
                    .map(|i| v.key(i).map_or(0, |k| k as u64))
                    .collect(),
                valid,
            ),
        }
    }

    /// Adds value `i`, `n` times, to the state at `s` (aggregate offset `o`).
    #[inline]
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
            ArgValues::Int(vals, valid) => {
                for (g, i) in rows {
                    if valid[i] {
                        let b = g * sw + o;
                        states[b] += 1;
                        let x = get_i128(states, b + 1).wrapping_add(vals[i]);
                        set_i128(states, b + 1, x);
                    }
                }
            }
            ArgValues::Float(vals, valid) => {
                for (g, i) in rows {
                    if valid[i] {
                        let b = g * sw + o;
                        states[b] += 1;
                        states[b + 1] = (f64::from_bits(states[b + 1]) + vals[i]).to_bits();
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

    /// Adds value `i`, `n` times, to the state at `s` (aggregate offset `o`).
    pub fn update(&self, kind: StateKind, s: &mut [u64], o: usize, i: usize, n: u64) {
        match self {
            ArgValues::None => {}
            ArgValues::Valid(valid) => {
                if valid[i] {
                    s[o] += n;
                }
            }
            ArgValues::Int(vals, valid) => {
                if valid[i] {
                    s[o] += n;
                    let x = get_i128(s, o + 1).wrapping_add(vals[i].wrapping_mul(n as i128));
                    set_i128(s, o + 1, x);
                }
            }
            ArgValues::Float(vals, valid) => {
                if valid[i] {
                    s[o] += n;
                    let add = if n == 1 { vals[i] } else { vals[i] * n as f64 };
                    s[o + 1] = (f64::from_bits(s[o + 1]) + add).to_bits();
                }
            }
            ArgValues::Key(keys, valid) => {
                if valid[i] && n > 0 {
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
    use crate::expr::{ExprKind, TExpr};

    fn call(func: AggFunc, ty: LType, aty: LType) -> AggCall {
        AggCall {
            func,
            arg: Some(TExpr {
                kind: ExprKind::Col(0),
                ty: aty,
            }),
            distinct: false,
            ty,
        }
    }

    #[test]
    fn states_combine() {
        let aggs = vec![
            call(AggFunc::Sum, LType::HugeInt, LType::Int64),
            call(AggFunc::Min, LType::Int64, LType::Int64),
            call(AggFunc::Avg, LType::Double, LType::Double),
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
        ];
        for (k, s) in l.slots.iter().enumerate() {
            args[k].update(s.kind, &mut a, s.off, 0, 2);
            args[k].update(s.kind, &mut b, s.off, 1, 1);
        }
        a[0] = 2;
        b[0] = 1;
        l.combine(&mut a, &b);
        let rows = [a.as_slice()];
        assert_eq!(
            l.finish(0, &rows, 0).get(0),
            Value::Huge(2 * i128::from(i64::MAX) - 3)
        );
        assert_eq!(l.finish(1, &rows, 0).get(0), Value::Int(-3));
        assert_eq!(l.finish(2, &rows, 0).get(0), Value::Float(5.5 / 3.0));
    }
}
