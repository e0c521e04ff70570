//! Column types, schemas and the order-preserving 64-bit keys that fixed-width
//! values are stored as.
//!
//! Every fixed-width value (booleans, integers, floats, dates, timestamps,
//! decimals) is stored as a `u64` *key* whose unsigned order is the value's
//! order. Sorting, deduplicating, frame-of-reference packing and min/max
//! statistics then work the same way for every type.

use crate::error::FormatError;

/// The logical type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    /// `true` or `false`.
    Bool,
    /// Signed 8-bit integer.
    Int8,
    /// Signed 16-bit integer.
    Int16,
    /// Signed 32-bit integer.
    Int32,
    /// Signed 64-bit integer.
    Int64,
    /// Unsigned 8-bit integer.
    UInt8,
    /// Unsigned 16-bit integer.
    UInt16,
    /// Unsigned 32-bit integer.
    UInt32,
    /// Unsigned 64-bit integer.
    UInt64,
    /// IEEE 754 single precision; stored canonicalised (see [`float_key`]).
    Float32,
    /// IEEE 754 double precision; stored canonicalised (see [`float_key`]).
    Float64,
    /// Days since 1970-01-01, as a signed 32-bit number.
    Date,
    /// Microseconds since 1970-01-01 00:00:00 UTC, as a signed 64-bit number
    /// (stored per chunk in seconds, milliseconds or microseconds: SPEC.md 2).
    Timestamp,
    /// A fixed-point decimal: a signed 64-bit integer scaled by `10^scale`.
    Decimal {
        /// Total number of decimal digits, 1..=18.
        precision: u8,
        /// Digits after the decimal point, 0..=precision.
        scale: u8,
    },
    /// Arbitrary bytes (usually, but not necessarily, UTF-8).
    String,
}

impl DataType {
    /// The type's code in the manifest (SPEC.md, "Type codes").
    pub fn code(self) -> u8 {
        match self {
            DataType::Bool => 1,
            DataType::Int8 => 2,
            DataType::Int16 => 3,
            DataType::Int32 => 4,
            DataType::Int64 => 5,
            DataType::UInt8 => 6,
            DataType::UInt16 => 7,
            DataType::UInt32 => 8,
            DataType::UInt64 => 9,
            DataType::Float32 => 10,
            DataType::Float64 => 11,
            DataType::Date => 12,
            DataType::Timestamp => 13,
            DataType::Decimal { .. } => 14,
            DataType::String => 15,
        }
    }

    /// Decodes a type from its manifest code and its two parameter bytes.
    pub fn from_code(code: u8, p1: u8, p2: u8) -> Result<DataType, FormatError> {
        Ok(match code {
            1 => DataType::Bool,
            2 => DataType::Int8,
            3 => DataType::Int16,
            4 => DataType::Int32,
            5 => DataType::Int64,
            6 => DataType::UInt8,
            7 => DataType::UInt16,
            8 => DataType::UInt32,
            9 => DataType::UInt64,
            10 => DataType::Float32,
            11 => DataType::Float64,
            12 => DataType::Date,
            13 => DataType::Timestamp,
            14 => {
                if p1 == 0 || p1 > 18 || p2 > p1 {
                    return Err(FormatError::InvalidSchema(format!(
                        "DECIMAL({p1},{p2}) is out of range (precision 1..=18, scale <= precision)"
                    )));
                }
                DataType::Decimal {
                    precision: p1,
                    scale: p2,
                }
            }
            15 => DataType::String,
            other => {
                return Err(FormatError::InvalidSchema(format!(
                    "unknown type code {other}"
                )))
            }
        })
    }

    /// The two parameter bytes stored next to the type code.
    pub fn params(self) -> (u8, u8) {
        match self {
            DataType::Decimal { precision, scale } => (precision, scale),
            _ => (0, 0),
        }
    }

    /// True for [`DataType::String`], whose values are stored as hashes plus
    /// a string dictionary rather than as 64-bit keys.
    pub fn is_string(self) -> bool {
        matches!(self, DataType::String)
    }

    /// True for the signed and unsigned integer types.
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::Int64
                | DataType::UInt8
                | DataType::UInt16
                | DataType::UInt32
                | DataType::UInt64
        )
    }

    /// True for the signed integer types, dates, timestamps and decimals:
    /// the types whose key is [`signed_key`] of an `i64`.
    pub fn is_signed_like(self) -> bool {
        matches!(
            self,
            DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::Int64
                | DataType::Date
                | DataType::Timestamp
                | DataType::Decimal { .. }
        )
    }

    /// The SQL name strata prints for this type.
    pub fn sql_name(self) -> String {
        match self {
            DataType::Bool => "BOOLEAN".into(),
            DataType::Int8 => "TINYINT".into(),
            DataType::Int16 => "SMALLINT".into(),
            DataType::Int32 => "INTEGER".into(),
            DataType::Int64 => "BIGINT".into(),
            DataType::UInt8 => "UTINYINT".into(),
            DataType::UInt16 => "USMALLINT".into(),
            DataType::UInt32 => "UINTEGER".into(),
            DataType::UInt64 => "UBIGINT".into(),
            DataType::Float32 => "FLOAT".into(),
            DataType::Float64 => "DOUBLE".into(),
            DataType::Date => "DATE".into(),
            DataType::Timestamp => "TIMESTAMP".into(),
            DataType::Decimal { precision, scale } => format!("DECIMAL({precision},{scale})"),
            DataType::String => "VARCHAR".into(),
        }
    }
}

impl std::fmt::Display for DataType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.sql_name())
    }
}

/// One column of a schema.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    /// Column name, unique within the schema (compared exactly; UTF-8).
    pub name: String,
    /// Logical type.
    pub data_type: DataType,
    /// Whether the column may hold NULLs.
    pub nullable: bool,
}

impl Field {
    /// A new field.
    pub fn new(name: impl Into<String>, data_type: DataType, nullable: bool) -> Field {
        Field {
            name: name.into(),
            data_type,
            nullable,
        }
    }
}

/// The ordered columns of a table.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Schema {
    /// The columns, in table order.
    pub fields: Vec<Field>,
}

impl Schema {
    /// A schema from fields; column names must be unique and non-empty.
    pub fn new(fields: Vec<Field>) -> Result<Schema, FormatError> {
        let mut seen = std::collections::HashSet::new();
        for f in &fields {
            if f.name.is_empty() {
                return Err(FormatError::InvalidSchema("empty column name".into()));
            }
            if f.name.len() > u16::MAX as usize {
                return Err(FormatError::InvalidSchema(format!(
                    "column name of {} bytes is too long",
                    f.name.len()
                )));
            }
            if !seen.insert(f.name.as_str()) {
                return Err(FormatError::InvalidSchema(format!(
                    "duplicate column name {:?}",
                    f.name
                )));
            }
        }
        if fields.len() > u16::MAX as usize {
            return Err(FormatError::InvalidSchema(format!(
                "{} columns is more than the maximum of {}",
                fields.len(),
                u16::MAX
            )));
        }
        Ok(Schema { fields })
    }

    /// Number of columns.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// True when the schema has no columns.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Index of the column with exactly this name.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}

/// Key of a signed integer (also dates, timestamps, decimals): flips the sign
/// bit so that unsigned key order equals signed value order.
#[inline]
pub fn signed_key(v: i64) -> u64 {
    (v as u64) ^ (1 << 63)
}

/// Inverse of [`signed_key`].
#[inline]
pub fn signed_from_key(k: u64) -> i64 {
    (k ^ (1 << 63)) as i64
}

/// Key of a `f64`, after canonicalisation: `-0.0` becomes `+0.0` and every NaN
/// becomes the positive quiet NaN `0x7ff8_0000_0000_0000`, so the total order is
/// `-inf < negatives < 0.0 < positives < +inf < NaN` (NaN sorts last, as in
/// DuckDB). Equal keys mean equal values.
#[inline]
pub fn float_key(v: f64) -> u64 {
    let v = canonical_f64(v);
    let bits = v.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// Inverse of [`float_key`].
#[inline]
pub fn float_from_key(k: u64) -> f64 {
    let bits = if k >> 63 == 1 { k & !(1 << 63) } else { !k };
    f64::from_bits(bits)
}

/// The canonical form in which floats are stored: `-0.0` as `+0.0`, any NaN
/// as the positive quiet NaN.
#[inline]
pub fn canonical_f64(v: f64) -> f64 {
    if v.is_nan() {
        f64::from_bits(0x7ff8_0000_0000_0000)
    } else if v == 0.0 {
        0.0
    } else {
        v
    }
}

/// Key of a boolean: 0 for false, 1 for true.
#[inline]
pub fn bool_key(v: bool) -> u64 {
    v as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_keys_keep_order() {
        let vals = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
        for w in vals.windows(2) {
            assert!(signed_key(w[0]) < signed_key(w[1]));
        }
        for v in vals {
            assert_eq!(signed_from_key(signed_key(v)), v);
        }
    }

    #[test]
    fn float_keys_keep_total_order() {
        let vals = [
            f64::NEG_INFINITY,
            -1e300,
            -1.5,
            -f64::MIN_POSITIVE,
            0.0,
            f64::MIN_POSITIVE,
            2.5,
            f64::INFINITY,
            f64::NAN,
        ];
        for w in vals.windows(2) {
            assert!(float_key(w[0]) < float_key(w[1]), "{} {}", w[0], w[1]);
        }
        assert_eq!(float_key(-0.0), float_key(0.0));
        assert_eq!(float_key(f64::NAN), float_key(-f64::NAN));
        for v in &vals[..8] {
            assert_eq!(float_from_key(float_key(*v)), *v);
        }
        assert!(float_from_key(float_key(f64::NAN)).is_nan());
    }

    #[test]
    fn type_codes_round_trip() {
        let all = [
            DataType::Bool,
            DataType::Int8,
            DataType::Int16,
            DataType::Int32,
            DataType::Int64,
            DataType::UInt8,
            DataType::UInt16,
            DataType::UInt32,
            DataType::UInt64,
            DataType::Float32,
            DataType::Float64,
            DataType::Date,
            DataType::Timestamp,
            DataType::Decimal {
                precision: 10,
                scale: 2,
            },
            DataType::String,
        ];
        for t in all {
            let (a, b) = t.params();
            assert_eq!(DataType::from_code(t.code(), a, b).unwrap(), t);
        }
        assert!(DataType::from_code(0, 0, 0).is_err());
        assert!(DataType::from_code(14, 19, 0).is_err());
    }
}
