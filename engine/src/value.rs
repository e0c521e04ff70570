//! Logical types, scalar values and typed vectors (the unit every expression
//! evaluates over), with the order-preserving 64-bit keys shared with the
//! storage format.

use strata_format::types::{float_from_key, float_key, signed_from_key, signed_key};
use strata_format::DataType;

use crate::error::{EngineError, Result};
use crate::strs::Strs;

/// A SQL type as the engine sees it (DuckDB's names and result types).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LType {
    /// The type of an untyped `NULL` literal.
    Null,
    /// BOOLEAN.
    Bool,
    /// TINYINT.
    Int8,
    /// SMALLINT.
    Int16,
    /// INTEGER.
    Int32,
    /// BIGINT.
    Int64,
    /// UTINYINT.
    UInt8,
    /// USMALLINT.
    UInt16,
    /// UINTEGER.
    UInt32,
    /// UBIGINT.
    UInt64,
    /// HUGEINT (128-bit), the result of integer sums.
    HugeInt,
    /// FLOAT.
    Float,
    /// DOUBLE.
    Double,
    /// DATE (days since 1970-01-01).
    Date,
    /// TIMESTAMP (microseconds since 1970-01-01 00:00:00).
    Timestamp,
    /// DECIMAL(precision, scale), stored scaled.
    Decimal(u8, u8),
    /// VARCHAR (bytes).
    Varchar,
    /// INTERVAL: months, days and microseconds (see [`crate::interval`]).
    Interval,
    /// A LIST of the element type (`INTEGER[]`), held as encoded bytes
    /// (see [`crate::list`]); make one with [`crate::list::list_of`].
    List(&'static LType),
}

/// How values of a type are held in a [`Vector`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phys {
    /// `bool`.
    Bool,
    /// `i64`: signed integers up to 64 bits, unsigned up to 32 bits, dates,
    /// timestamps, decimals of up to 18 digits.
    I64,
    /// `u64`: UBIGINT.
    U64,
    /// `i128`: HUGEINT and wide decimals.
    I128,
    /// `f64`: FLOAT and DOUBLE.
    F64,
    /// Bytes.
    Str,
}

impl LType {
    /// The engine type of a stored column type.
    pub fn from_storage(t: DataType) -> LType {
        match t {
            DataType::Bool => LType::Bool,
            DataType::Int8 => LType::Int8,
            DataType::Int16 => LType::Int16,
            DataType::Int32 => LType::Int32,
            DataType::Int64 => LType::Int64,
            DataType::UInt8 => LType::UInt8,
            DataType::UInt16 => LType::UInt16,
            DataType::UInt32 => LType::UInt32,
            DataType::UInt64 => LType::UInt64,
            DataType::Float32 => LType::Float,
            DataType::Float64 => LType::Double,
            DataType::Date => LType::Date,
            DataType::Timestamp => LType::Timestamp,
            DataType::Decimal { precision, scale } => LType::Decimal(precision, scale),
            DataType::String => LType::Varchar,
        }
    }

    /// The physical representation.
    pub fn phys(self) -> Phys {
        match self {
            LType::Bool => Phys::Bool,
            LType::Null
            | LType::Int8
            | LType::Int16
            | LType::Int32
            | LType::Int64
            | LType::UInt8
            | LType::UInt16
            | LType::UInt32
            | LType::Date
            | LType::Timestamp => Phys::I64,
            LType::Decimal(p, _) if p <= 18 => Phys::I64,
            LType::Decimal(..) | LType::HugeInt | LType::Interval => Phys::I128,
            LType::UInt64 => Phys::U64,
            LType::Float | LType::Double => Phys::F64,
            LType::Varchar | LType::List(_) => Phys::Str,
        }
    }

    /// True for the integer types (including HUGEINT).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            LType::Int8
                | LType::Int16
                | LType::Int32
                | LType::Int64
                | LType::UInt8
                | LType::UInt16
                | LType::UInt32
                | LType::UInt64
                | LType::HugeInt
        )
    }

    /// True for integers, floats and decimals.
    pub fn is_numeric(self) -> bool {
        self.is_integer() || matches!(self, LType::Float | LType::Double | LType::Decimal(..))
    }

    /// The inclusive range of an integer type.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            LType::Int8 => (i8::MIN.into(), i8::MAX.into()),
            LType::Int16 => (i16::MIN.into(), i16::MAX.into()),
            LType::Int32 => (i32::MIN.into(), i32::MAX.into()),
            LType::Int64 => (i64::MIN.into(), i64::MAX.into()),
            LType::UInt8 => (0, u8::MAX.into()),
            LType::UInt16 => (0, u16::MAX.into()),
            LType::UInt32 => (0, u32::MAX.into()),
            LType::UInt64 => (0, u64::MAX.into()),
            LType::HugeInt => (i128::MIN, i128::MAX),
            _ => return None,
        })
    }

    /// DuckDB's name of the type.
    pub fn name(self) -> String {
        match self {
            LType::Null => "NULL".into(),
            LType::Bool => "BOOLEAN".into(),
            LType::Int8 => "TINYINT".into(),
            LType::Int16 => "SMALLINT".into(),
            LType::Int32 => "INTEGER".into(),
            LType::Int64 => "BIGINT".into(),
            LType::UInt8 => "UTINYINT".into(),
            LType::UInt16 => "USMALLINT".into(),
            LType::UInt32 => "UINTEGER".into(),
            LType::UInt64 => "UBIGINT".into(),
            LType::HugeInt => "HUGEINT".into(),
            LType::Float => "FLOAT".into(),
            LType::Double => "DOUBLE".into(),
            LType::Date => "DATE".into(),
            LType::Timestamp => "TIMESTAMP".into(),
            LType::Decimal(p, s) => format!("DECIMAL({p},{s})"),
            LType::Varchar => "VARCHAR".into(),
            LType::Interval => "INTERVAL".into(),
            LType::List(e) => format!("{}[]", e.name()),
        }
    }

    /// Name used in integer overflow messages (DuckDB's physical names).
    pub(crate) fn int_name(self) -> &'static str {
        match self {
            LType::Int8 => "INT8",
            LType::Int16 => "INT16",
            LType::Int32 => "INT32",
            LType::Int64 => "INT64",
            LType::UInt8 => "UINT8",
            LType::UInt16 => "UINT16",
            LType::UInt32 => "UINT32",
            LType::UInt64 => "UINT64",
            _ => "INT128",
        }
    }

    /// Number of 64-bit words of this type's order-preserving key.
    pub fn key_words(self) -> usize {
        match self.phys() {
            Phys::I128 | Phys::Str => 2,
            _ => 1,
        }
    }
}

impl std::fmt::Display for LType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// Compares doubles as SQL does (DuckDB's order): `-0.0` equals `0.0`,
/// every NaN equals every other NaN and sorts after all numbers.
#[inline]
pub fn cmp_f64(a: f64, b: f64) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// One scalar value. Equality is structural (two expressions with equal
/// constants are the same expression): floats are equal when their bits
/// are, or when both are NaN; SQL's `=` is [`cmp_f64`]'s.
#[derive(Debug, Clone)]
pub enum Value {
    /// NULL.
    Null,
    /// A boolean.
    Bool(bool),
    /// Any value held as `i64` (see [`Phys::I64`]).
    Int(i64),
    /// A UBIGINT.
    UInt(u64),
    /// A HUGEINT or wide decimal.
    Huge(i128),
    /// A FLOAT or DOUBLE.
    Float(f64),
    /// A string.
    Str(Vec<u8>),
}

/// The values of a vector, by physical type.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// Booleans.
    Bool(Vec<bool>),
    /// `i64`s.
    I64(Vec<i64>),
    /// `u64`s.
    U64(Vec<u64>),
    /// `i128`s.
    I128(Vec<i128>),
    /// `f64`s.
    F64(Vec<f64>),
    /// Strings (and lists, as their encoded bytes).
    Str(Strs),
}

/// A typed column of values with optional NULLs.
#[derive(Debug, Clone, PartialEq)]
pub struct Vector {
    /// The logical type.
    pub ty: LType,
    /// The values (a NULL's slot holds an arbitrary value).
    pub data: Data,
    /// `Some(flags)` where `flags[i]` marks row `i` as NULL.
    pub nulls: Option<Vec<bool>>,
}

impl Data {
    /// An empty data vector for physical type `p`.
    pub fn empty(p: Phys, cap: usize) -> Data {
        match p {
            Phys::Bool => Data::Bool(Vec::with_capacity(cap)),
            Phys::I64 => Data::I64(Vec::with_capacity(cap)),
            Phys::U64 => Data::U64(Vec::with_capacity(cap)),
            Phys::I128 => Data::I128(Vec::with_capacity(cap)),
            Phys::F64 => Data::F64(Vec::with_capacity(cap)),
            Phys::Str => Data::Str(Strs::with_capacity(cap)),
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Data::Bool(v) => v.len(),
            Data::I64(v) => v.len(),
            Data::U64(v) => v.len(),
            Data::I128(v) => v.len(),
            Data::F64(v) => v.len(),
            Data::Str(v) => v.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Vector {
    /// An empty vector of type `ty`.
    pub fn empty(ty: LType, cap: usize) -> Vector {
        Vector {
            ty,
            data: Data::empty(ty.phys(), cap),
            nulls: None,
        }
    }

    /// `len` NULLs of type `ty`.
    pub fn nulls(ty: LType, len: usize) -> Vector {
        let mut v = Vector::empty(ty, len);
        for _ in 0..len {
            v.push(&Value::Null);
        }
        v
    }

    /// A vector of `len` copies of `value`.
    pub fn constant(ty: LType, value: &Value, len: usize) -> Vector {
        let mut v = Vector::empty(ty, len);
        for _ in 0..len {
            v.push(value);
        }
        v
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Whether row `i` is NULL.
    #[inline]
    pub fn is_null(&self, i: usize) -> bool {
        self.nulls.as_ref().is_some_and(|n| n[i])
    }

    /// Appends a value (NULL or of this vector's physical type; other values
    /// are converted where lossless, else stored as NULL).
    pub fn push(&mut self, v: &Value) {
        let len = self.len();
        let is_null = matches!(v, Value::Null);
        match (&mut self.data, v) {
            (Data::Bool(d), Value::Bool(x)) => d.push(*x),
            (Data::I64(d), Value::Int(x)) => d.push(*x),
            (Data::U64(d), Value::UInt(x)) => d.push(*x),
            (Data::U64(d), Value::Int(x)) => d.push(*x as u64),
            (Data::I128(d), Value::Huge(x)) => d.push(*x),
            (Data::I128(d), Value::Int(x)) => d.push(i128::from(*x)),
            (Data::F64(d), Value::Float(x)) => d.push(*x),
            (Data::Str(d), Value::Str(x)) => d.push(x),
            (Data::Bool(d), _) => d.push(false),
            (Data::I64(d), _) => d.push(0),
            (Data::U64(d), _) => d.push(0),
            (Data::I128(d), _) => d.push(0),
            (Data::F64(d), _) => d.push(0.0),
            (Data::Str(d), _) => d.push_empty(),
        }
        let type_ok = is_null
            || matches!(
                (&self.data, v),
                (Data::Bool(_), Value::Bool(_))
                    | (Data::I64(_), Value::Int(_))
                    | (Data::U64(_), Value::UInt(_) | Value::Int(_))
                    | (Data::I128(_), Value::Huge(_) | Value::Int(_))
                    | (Data::F64(_), Value::Float(_))
                    | (Data::Str(_), Value::Str(_))
            );
        if !type_ok || is_null {
            self.nulls
                .get_or_insert_with(|| vec![false; len])
                .push(true);
        } else if let Some(n) = &mut self.nulls {
            n.push(false);
        }
    }

    /// Appends a string (to a string vector; to another, a NULL).
    pub fn push_bytes(&mut self, s: &[u8]) {
        match &mut self.data {
            Data::Str(d) => {
                d.push(s);
                if let Some(n) = &mut self.nulls {
                    n.push(false);
                }
            }
            _ => self.push(&Value::Null),
        }
    }

    /// The value of row `i`.
    pub fn get(&self, i: usize) -> Value {
        if self.is_null(i) {
            return Value::Null;
        }
        match &self.data {
            Data::Bool(d) => Value::Bool(d[i]),
            Data::I64(d) => Value::Int(d[i]),
            Data::U64(d) => Value::UInt(d[i]),
            Data::I128(d) => Value::Huge(d[i]),
            Data::F64(d) => Value::Float(d[i]),
            Data::Str(d) => Value::Str(d[i].to_vec()),
        }
    }

    /// The rows `idx` of this vector; `u32::MAX` gives NULL.
    pub fn gather(&self, idx: &[u32]) -> Vector {
        fn g<T: Clone + Default>(d: &[T], idx: &[u32]) -> Vec<T> {
            idx.iter()
                .map(|&i| d.get(i as usize).cloned().unwrap_or_default())
                .collect()
        }
        let data = match &self.data {
            Data::Bool(d) => Data::Bool(g(d, idx)),
            Data::I64(d) => Data::I64(g(d, idx)),
            Data::U64(d) => Data::U64(g(d, idx)),
            Data::I128(d) => Data::I128(g(d, idx)),
            Data::F64(d) => Data::F64(g(d, idx)),
            Data::Str(d) => Data::Str(d.gather(idx)),
        };
        let any_missing = idx.iter().any(|&i| i as usize >= self.len());
        let nulls = if self.nulls.is_some() || any_missing {
            Some(
                idx.iter()
                    .map(|&i| i as usize >= self.len() || self.is_null(i as usize))
                    .collect(),
            )
        } else {
            None
        };
        Vector {
            ty: self.ty,
            data,
            nulls,
        }
    }

    /// [`Vector::gather`] consuming the vector (the gathered strings are
    /// one copy, and the input's buffer is freed as the result is returned).
    pub fn into_gathered(self, idx: &[u32]) -> Vector {
        self.gather(idx)
    }

    /// Sets row `i` to NULL.
    pub fn set_null(&mut self, i: usize) {
        let len = self.len();
        self.nulls.get_or_insert_with(|| vec![false; len])[i] = true;
    }

    /// The NULL flags, materialised.
    pub fn null_flags(&self) -> Vec<bool> {
        self.nulls
            .clone()
            .unwrap_or_else(|| vec![false; self.len()])
    }

    /// Appends all rows of `other` (same type).
    pub fn append(&mut self, other: &Vector) {
        let len = self.len();
        match (&mut self.data, &other.data) {
            (Data::Bool(a), Data::Bool(b)) => a.extend_from_slice(b),
            (Data::I64(a), Data::I64(b)) => a.extend_from_slice(b),
            (Data::U64(a), Data::U64(b)) => a.extend_from_slice(b),
            (Data::I128(a), Data::I128(b)) => a.extend_from_slice(b),
            (Data::F64(a), Data::F64(b)) => a.extend_from_slice(b),
            (Data::Str(a), Data::Str(b)) => a.extend_from(b),
            _ => {
                for i in 0..other.len() {
                    self.push(&other.get(i));
                }
                return;
            }
        }
        if self.nulls.is_some() || other.nulls.is_some() {
            let mut n = self.nulls.take().unwrap_or_else(|| vec![false; len]);
            n.extend(other.null_flags());
            self.nulls = Some(n);
        }
    }

    /// The vectors of `parts`, one after another (each of this type), in
    /// one allocation per buffer: the first part moved, room made for the
    /// others at once (a vector grown part by part doubles into fresh
    /// memory each time it fills).
    pub fn concat(ty: LType, parts: Vec<Vector>) -> Vector {
        let rows: usize = parts.iter().map(Vector::len).sum();
        let bytes: usize = parts
            .iter()
            .map(|v| match &v.data {
                Data::Str(s) => s.total_bytes(),
                _ => 0,
            })
            .sum();
        let mut out = Vector::empty(ty, 0);
        for (k, v) in parts.into_iter().enumerate() {
            out.append_owned(v);
            if k == 0 {
                out.reserve(rows - out.len(), bytes);
            }
        }
        out
    }

    /// Room for `rows` more rows (holding up to `str_bytes` more bytes of
    /// strings, for a string vector).
    fn reserve(&mut self, rows: usize, str_bytes: usize) {
        match &mut self.data {
            Data::Bool(d) => d.reserve_exact(rows),
            Data::I64(d) => d.reserve_exact(rows),
            Data::U64(d) => d.reserve_exact(rows),
            Data::I128(d) => d.reserve_exact(rows),
            Data::F64(d) => d.reserve_exact(rows),
            Data::Str(d) => d.reserve(rows, str_bytes.saturating_sub(d.total_bytes())),
        }
        if let Some(n) = &mut self.nulls {
            n.reserve_exact(rows);
        }
    }

    /// Appends all rows of `other` (same type), moving its strings instead
    /// of copying them: a large string result is never held twice.
    pub fn append_owned(&mut self, other: Vector) {
        if self.is_empty() && self.nulls.is_none() {
            let ty = self.ty;
            *self = other;
            self.ty = ty;
            return;
        }
        match (&mut self.data, other.data) {
            (Data::Str(a), Data::Str(b)) => {
                let len = a.len();
                a.extend_from(&b);
                if self.nulls.is_some() || other.nulls.is_some() {
                    let added = a.len() - len;
                    let mut n = self.nulls.take().unwrap_or_else(|| vec![false; len]);
                    match other.nulls {
                        Some(o) => n.extend(o),
                        None => n.resize(len + added, false),
                    }
                    self.nulls = Some(n);
                }
            }
            (_, data) => self.append(&Vector {
                data,
                nulls: other.nulls,
                ty: other.ty,
            }),
        }
    }

    /// [`Vector::key`], but a `-0.0` keeps its sign: its key is
    /// [`NEG_ZERO_KEY`], just below `+0.0`'s.
    pub fn key_keeping_zero_sign(&self, i: usize) -> Option<u128> {
        match &self.data {
            Data::F64(d) if d[i] == 0.0 && d[i].is_sign_negative() && !self.is_null(i) => {
                Some(NEG_ZERO_KEY)
            }
            _ => self.key(i),
        }
    }

    /// The order-preserving key of row `i` (the storage key for fixed-width
    /// types, the string hash for strings); NULL gives `None`.
    pub fn key(&self, i: usize) -> Option<u128> {
        if self.is_null(i) {
            return None;
        }
        Some(match &self.data {
            Data::Bool(d) => u128::from(d[i]),
            Data::I64(d) => match self.ty {
                LType::UInt8 | LType::UInt16 | LType::UInt32 => u128::from(d[i] as u64),
                _ => u128::from(signed_key(d[i])),
            },
            Data::U64(d) => u128::from(d[i]),
            Data::I128(d) if self.ty == LType::Interval => {
                (crate::interval::total(d[i]) as u128) ^ (1u128 << 127)
            }
            Data::I128(d) => (d[i] as u128) ^ (1u128 << 127),
            Data::F64(d) => u128::from(float_key(d[i])),
            Data::Str(d) => strata_format::string_hash(&d[i]),
        })
    }
}

/// The key of a `-0.0` where a key keeps the sign of zero (the argument of
/// grouped quantiles, MIN and MAX states): the float key of its bits
/// without canonicalisation, which is the key just below `+0.0`'s, and
/// decodes back to `-0.0`.
pub const NEG_ZERO_KEY: u128 = POS_ZERO_KEY - 1;

/// The key of `+0.0` (and, canonical, of `-0.0`).
pub const POS_ZERO_KEY: u128 = 1 << 63;

/// Decodes a key (see [`Vector::key`]) of a non-string type back to a value.
pub fn value_of_key(ty: LType, key: u128) -> Value {
    match ty.phys() {
        Phys::Bool => Value::Bool(key != 0),
        Phys::I64 => Value::Int(storage_i64(ty, key as u64)),
        Phys::U64 => Value::UInt(key as u64),
        Phys::I128 => Value::Huge((key ^ (1u128 << 127)) as i128),
        Phys::F64 => {
            let f = float_from_key(key as u64);
            Value::Float(if ty == LType::Float {
                f64::from(f as f32)
            } else {
                f
            })
        }
        Phys::Str => Value::Null,
    }
}

/// Decodes storage keys of a fixed-width column into a vector of its engine
/// type.
pub fn vector_of_keys(ty: LType, keys: &[u64]) -> Vector {
    let data = match ty.phys() {
        Phys::Bool => Data::Bool(keys.iter().map(|&k| k != 0).collect()),
        Phys::I64 => Data::I64(keys.iter().map(|&k| storage_i64(ty, k)).collect()),
        Phys::U64 => Data::U64(keys.to_vec()),
        Phys::I128 => Data::I128(
            keys.iter()
                .map(|&k| i128::from(signed_from_key(k)))
                .collect(),
        ),
        Phys::F64 => Data::F64(keys.iter().map(|&k| float_from_key(k)).collect()),
        Phys::Str => Data::Str(Strs::empties(keys.len())),
    };
    Vector {
        ty,
        data,
        nulls: None,
    }
}

/// The `i64` of a storage key of a type held as `i64`.
#[inline]
pub fn storage_i64(ty: LType, key: u64) -> i64 {
    match ty {
        LType::UInt8 | LType::UInt16 | LType::UInt32 | LType::Bool => key as i64,
        _ => signed_from_key(key),
    }
}

/// The storage key of a value of type `ty` (fixed-width types), the inverse
/// of how the format stores them.
pub fn storage_key(ty: LType, v: &Value) -> Option<u64> {
    Some(match (ty.phys(), v) {
        (Phys::Bool, Value::Bool(b)) => u64::from(*b),
        (Phys::I64, Value::Int(x)) => match ty {
            LType::UInt8 | LType::UInt16 | LType::UInt32 => *x as u64,
            _ => signed_key(*x),
        },
        (Phys::U64, Value::UInt(x)) => *x,
        (Phys::F64, Value::Float(x)) => float_key(*x),
        _ => return None,
    })
}

// ---------------------------------------------------------------------------
// Dates and times.

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// The civil date (year, month, day) of a day number.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Parses `YYYY-MM-DD` into a day number.
pub fn parse_date(s: &str) -> Result<i64> {
    let bad = || EngineError::Runtime(format!("invalid date {s:?}: expected YYYY-MM-DD"));
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let mut it = body.splitn(3, '-');
    let y: i64 = it.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
    let m: u32 = it.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
    let d: u32 = it.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
    let y = if neg { -y } else { y };
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return Err(bad());
    }
    Ok(days_from_civil(y, m, d))
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// Microseconds per second: TIMESTAMP values are microseconds since
/// 1970-01-01 00:00:00 (as DuckDB's).
pub const MICROS_PER_SEC: i64 = 1_000_000;
/// Microseconds per day.
pub const MICROS_PER_DAY: i64 = 86_400 * MICROS_PER_SEC;

/// Parses `YYYY-MM-DD[ HH:MM[:SS[.f...]]]` into microseconds. Digits of the
/// fraction beyond the sixth are dropped (DuckDB truncates them too); a
/// trailing `Z` or `+HH[:MM]` offset is ignored.
pub fn parse_timestamp(s: &str) -> Result<i64> {
    let s = s.trim();
    let (date, time) = match s.find([' ', 'T']) {
        Some(p) => (&s[..p], s[p + 1..].trim()),
        None => (s, ""),
    };
    let days = parse_date(date)?;
    let bad = || EngineError::Runtime(format!("invalid timestamp {s:?}"));
    let mut micros = 0i64;
    if !time.is_empty() {
        let time = time.split(['+', 'Z']).next().unwrap_or(time).trim_end();
        let mut it = time.split(':');
        let num = |x: Option<&str>| -> Option<i64> {
            let x = x?;
            (!x.is_empty() && x.len() <= 2 && x.bytes().all(|b| b.is_ascii_digit()))
                .then(|| x.parse().ok())
                .flatten()
        };
        let h = num(it.next()).ok_or_else(bad)?;
        let m = num(it.next()).ok_or_else(bad)?;
        let (sec, frac) = match it.next() {
            None => (0, 0),
            Some(x) => {
                let (whole, frac) = x.split_once('.').unwrap_or((x, ""));
                if !frac.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad());
                }
                (num(Some(whole)).ok_or_else(bad)?, fraction_micros(frac))
            }
        };
        if it.next().is_some() || !(0..24).contains(&h) || !(0..60).contains(&m) || sec >= 60 {
            return Err(bad());
        }
        micros = (h * 3600 + m * 60 + sec) * MICROS_PER_SEC + frac;
    }
    days.checked_mul(MICROS_PER_DAY)
        .and_then(|d| d.checked_add(micros))
        .ok_or_else(bad)
}

/// The microseconds of the digits after a decimal point (at most the first
/// six count).
pub fn fraction_micros(digits: &str) -> i64 {
    let mut v = 0i64;
    for (i, b) in digits.bytes().take(6).enumerate() {
        v += i64::from(b - b'0') * 10i64.pow(5 - i as u32);
    }
    v
}

/// Formats a day number as `YYYY-MM-DD`.
pub fn format_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    // Year 0 is 1 BC.
    if y <= 0 {
        format!("{:04}-{m:02}-{d:02} (BC)", 1 - y)
    } else {
        format!("{y:04}-{m:02}-{d:02}")
    }
}

/// Formats microseconds as `YYYY-MM-DD HH:MM:SS[.f...]`, the fraction
/// without trailing zeros (as DuckDB prints it).
pub fn format_timestamp(micros: i64) -> String {
    let days = micros.div_euclid(MICROS_PER_DAY);
    let rem = micros.rem_euclid(MICROS_PER_DAY);
    let secs = rem / MICROS_PER_SEC;
    let mut out = format!(
        "{} {:02}:{:02}:{:02}",
        format_date(days),
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    let frac = rem % MICROS_PER_SEC;
    if frac != 0 {
        let digits = format!(".{frac:06}");
        out.push_str(digits.trim_end_matches('0'));
    }
    out
}

/// The double nearest a scaled decimal `v / 10^scale`, as DuckDB casts a
/// DECIMAL to DOUBLE. Below 2^53 with at most 22 places both the integer
/// and the power of ten are exact doubles, so one IEEE division rounds once.
/// Past that, dividing would round twice (0.9999999999999999, 16 places,
/// would become 1.0), so the digits are parsed, which rounds correctly.
pub fn decimal_to_f64(v: i128, scale: u8) -> f64 {
    const EXACT: u128 = 1 << 53;
    if scale == 0 {
        return v as f64;
    }
    if v.unsigned_abs() <= EXACT && scale <= 22 {
        return v as f64 / 10f64.powi(i32::from(scale));
    }
    format!("{v}e-{scale}").parse().unwrap_or(f64::NAN)
}

/// Formats a scaled decimal.
pub fn format_decimal(v: i128, scale: u8) -> String {
    if scale == 0 {
        return v.to_string();
    }
    let p = 10i128.pow(u32::from(scale));
    let sign = if v < 0 { "-" } else { "" };
    let a = v.unsigned_abs();
    let p = p as u128;
    format!("{sign}{}.{:0width$}", a / p, a % p, width = scale as usize)
}

/// Formats a value of type `ty` the way DuckDB prints it (doubles with
/// Rust's shortest round-trip representation).
pub fn format_value(ty: LType, v: &Value) -> String {
    match (ty, v) {
        (_, Value::Null) => "NULL".into(),
        (LType::Date, Value::Int(d)) => format_date(*d),
        (LType::Timestamp, Value::Int(s)) => format_timestamp(*s),
        (LType::Decimal(_, s), Value::Int(x)) => format_decimal(i128::from(*x), s),
        (LType::Decimal(_, s), Value::Huge(x)) => format_decimal(*x, s),
        (LType::Interval, Value::Huge(x)) => crate::interval::format(crate::interval::unpack(*x)),
        (LType::List(e), Value::Str(b)) => crate::list::format(*e, b),
        (_, Value::Bool(b)) => b.to_string(),
        (_, Value::Int(x)) => x.to_string(),
        (_, Value::UInt(x)) => x.to_string(),
        (_, Value::Huge(x)) => x.to_string(),
        (_, Value::Float(f)) => {
            if f.is_nan() {
                "nan".into()
            } else if f.is_infinite() {
                if *f > 0.0 { "inf" } else { "-inf" }.into()
            } else if ty == LType::Float {
                // The shortest digits that read back as the same FLOAT.
                (*f as f32).to_string()
            } else {
                f.to_string()
            }
        }
        (_, Value::Str(s)) => String::from_utf8_lossy(s).into_owned(),
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::UInt(a), Value::UInt(b)) => a == b,
            (Value::Huge(a), Value::Huge(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => {
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
            }
            (Value::Str(a), Value::Str(b)) => a == b,
            _ => false,
        }
    }
}

/// Formats a DOUBLE (or, with `single`, a FLOAT) as DuckDB's cast to
/// VARCHAR does: the shortest digits that read back as the same value, in
/// positional notation (with `.0` when whole) for decimal exponents from
/// -4 to 15, else as `d.ddde+XX` with at least two exponent digits.
pub fn format_float_text(f: f64, single: bool) -> String {
    if f.is_nan() {
        // The sign of a NaN shows, as in DuckDB: `0.0 / 0.0` is `-nan` on
        // x86, whose arithmetic NaN has the sign bit set.
        return if f.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    // `{:e}` writes the shortest round-trip digits as `d.ddde<exp>`.
    let sci = if single {
        format!("{:e}", f as f32)
    } else {
        format!("{f:e}")
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        if exp < 0 {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        } else if exp + 1 >= n {
            let zeros = "0".repeat((exp + 1 - n) as usize);
            format!("{sign}{digits}{zeros}.0")
        } else {
            let (int, frac) = digits.split_at((exp + 1) as usize);
            format!("{sign}{int}.{frac}")
        }
    } else {
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{esign}{:02}", exp.unsigned_abs())
    }
}

/// Formats a DECIMAL(`width`, `scale`) as DuckDB's cast to VARCHAR does:
/// as [`format_decimal`], without the leading zero when every digit is a
/// fraction digit (`width == scale`).
pub fn format_decimal_text(v: i128, width: u8, scale: u8) -> String {
    let s = format_decimal(v, scale);
    if width == scale && scale > 0 {
        s.replacen("0.", ".", 1)
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owning_gather_equals_a_copying_one() {
        let mut v = Vector::empty(LType::Varchar, 4);
        for x in [Some("a"), None, Some("ccc"), Some("")] {
            v.push(&x.map_or(Value::Null, |s| Value::Str(s.into())));
        }
        for idx in [
            vec![2, 0, 3, 1],
            vec![1, u32::MAX, 2],
            vec![2, 2, 0],
            vec![],
        ] {
            assert_eq!(v.clone().into_gathered(&idx), v.gather(&idx), "{idx:?}");
        }
        let ints = vector_of_keys(LType::Int64, &[1, 2, 3]);
        assert_eq!(ints.clone().into_gathered(&[2, 1]), ints.gather(&[2, 1]));
    }

    #[test]
    fn decimals_convert_to_the_nearest_double() {
        assert_eq!(
            decimal_to_f64(-9_999_999_999_999_999, 16),
            -0.9999999999999999
        );
        assert_eq!(decimal_to_f64(12_345, 2), 123.45);
        assert_eq!(decimal_to_f64(-7, 0), -7.0);
        assert_eq!(decimal_to_f64(i128::MAX, 38), 1.7014118346046923);
        assert_eq!(decimal_to_f64(1, 38), 1e-38);
    }

    #[test]
    fn floats_print_as_duckdb_casts_them() {
        // Expected strings from DuckDB's CAST(x AS VARCHAR).
        let cases: [(f64, bool, &str); 14] = [
            (1.0, false, "1.0"),
            (-0.0, false, "-0.0"),
            (1e15, false, "1000000000000000.0"),
            (1e16, false, "1e+16"),
            (1.5e16, false, "1.5e+16"),
            (0.0001, false, "0.0001"),
            (0.00001, false, "1e-05"),
            (0.000012345, false, "1.2345e-05"),
            (123456789012345678.0, false, "1.2345678901234568e+17"),
            (5e-324, false, "5e-324"),
            (9999999999999998.0, false, "9999999999999998.0"),
            (123456789012345678.0, true, "1.2345679e+17"),
            (0.1, true, "0.1"),
            (1e-40, true, "1e-40"),
        ];
        for (f, single, want) in cases {
            assert_eq!(format_float_text(f, single), want, "{f}");
        }
    }

    #[test]
    fn dates_round_trip() {
        for d in [-800_000i64, -1, 0, 1, 15_887, 2_932_896] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
        assert_eq!(parse_date("2013-07-01").ok(), Some(15_887));
        assert_eq!(format_date(15_887), "2013-07-01");
        assert!(parse_date("2013-02-30").is_err());
        let t = parse_timestamp("2013-07-01 10:05:07").ok();
        let secs = 15_887 * 86400 + 36_307;
        assert_eq!(t, Some(secs * MICROS_PER_SEC));
        assert_eq!(
            format_timestamp(secs * MICROS_PER_SEC),
            "2013-07-01 10:05:07"
        );
        assert_eq!(format_timestamp(-MICROS_PER_SEC), "1969-12-31 23:59:59");
        assert_eq!(format_timestamp(-1), "1969-12-31 23:59:59.999999");
        assert_eq!(format_timestamp(-500_000), "1969-12-31 23:59:59.5");
        let us = |s: &str| parse_timestamp(s).ok().map(|t| t - secs * MICROS_PER_SEC);
        assert_eq!(us("2013-07-01 10:05:07.12"), Some(120_000));
        assert_eq!(us("2013-07-01T10:05:07.1234569"), Some(123_456));
        assert_eq!(us("2013-07-01 10:05:07.000001Z"), Some(1));
        assert_eq!(
            format_timestamp(secs * MICROS_PER_SEC + 120_000),
            "2013-07-01 10:05:07.12"
        );
        assert!(parse_timestamp("2013-07-01 10:05:60").is_err());
        assert!(parse_timestamp("2013-07-01 10:05:07.1x").is_err());
        assert_eq!(format_decimal(-1230, 2), "-12.30");
        assert_eq!(format_decimal(5, 3), "0.005");
        assert_eq!(format_decimal_text(-2, 1, 1), "-.2");
        assert_eq!(format_decimal_text(5, 3, 2), "0.05");
    }

    #[test]
    fn vector_push_and_gather() {
        let mut v = Vector::empty(LType::Int32, 4);
        v.push(&Value::Int(3));
        v.push(&Value::Null);
        v.push(&Value::Int(-5));
        let g = v.gather(&[2, 1, u32::MAX, 0]);
        assert_eq!(g.get(0), Value::Int(-5));
        assert_eq!(g.get(1), Value::Null);
        assert_eq!(g.get(2), Value::Null);
        assert_eq!(g.get(3), Value::Int(3));
        assert!(v.key(0) < v.key(2).map(|_| u128::MAX));
    }
}
