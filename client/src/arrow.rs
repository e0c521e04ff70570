//! Arrow export (feature `arrow`): a [`QueryResult`] as an Arrow
//! [`RecordBatch`], to hand results to DataFusion, Polars or pandas.
//!
//! Types map as DuckDB exports them: integers to the Arrow integer of the
//! same width, HUGEINT to `Decimal128(38, 0)`, DECIMAL(p, s) to
//! `Decimal128(p, s)`, DATE to `Date32`, TIMESTAMP to
//! `Timestamp(Microsecond)`, FLOAT/DOUBLE to `Float32`/`Float64`. VARCHAR
//! becomes `Utf8`, or `Binary` when a value is not valid UTF-8 (strata keeps
//! bytes as they were loaded and never rewrites them). Every field is
//! nullable, as SQL result columns are.

use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Date32Builder, Decimal128Builder, Float32Builder,
    Float64Builder, Int16Builder, Int32Builder, Int64Builder, Int8Builder,
    TimestampMicrosecondBuilder, UInt16Builder, UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::{ArrayRef, NullArray, RecordBatch, RecordBatchOptions, StringArray};
use arrow_schema::{ArrowError, Field, Schema};
use strata_engine::strs::Strs;
use strata_engine::value::{Data, Vector};
use strata_engine::LType;

use crate::QueryResult;

impl QueryResult {
    /// The result as one Arrow [`RecordBatch`] (see the module docs for the
    /// type mapping).
    pub fn to_record_batch(&self) -> Result<RecordBatch, ArrowError> {
        let engine = self.as_engine();
        let mut fields = Vec::new();
        let mut arrays = Vec::new();
        for c in &engine.columns {
            let array = to_array(&c.values)?;
            // Nullable, as every SQL result column is.
            fields.push(Field::new(c.name.clone(), array.data_type().clone(), true));
            arrays.push(array);
        }
        let options = RecordBatchOptions::new().with_row_count(Some(self.num_rows()));
        RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options)
    }
}

/// Appends each value of `$vals` (converted by `$conv`) or a NULL.
macro_rules! build {
    ($builder:expr, $v:expr, $vals:expr, $conv:expr) => {{
        let mut b = $builder;
        for (i, x) in $vals.iter().enumerate() {
            if $v.is_null(i) {
                b.append_null();
            } else {
                b.append_value($conv(*x)?);
            }
        }
        Arc::new(b.finish()) as ArrayRef
    }};
}

fn narrow<T: TryFrom<i64>>(x: i64) -> Result<T, ArrowError> {
    T::try_from(x).map_err(|_| ArrowError::ComputeError(format!("{x} out of range")))
}

fn ok<T>(x: T) -> Result<T, ArrowError> {
    Ok(x)
}

fn mismatch(v: &Vector) -> ArrowError {
    ArrowError::InvalidArgumentError(format!("{} column with unexpected data", v.ty.name()))
}

fn to_array(v: &Vector) -> Result<ArrayRef, ArrowError> {
    let n = v.len();
    Ok(match (&v.data, v.ty) {
        (_, LType::Null) => Arc::new(NullArray::new(n)),
        (Data::Bool(x), LType::Bool) => build!(BooleanBuilder::with_capacity(n), v, x, ok),
        (Data::I64(x), LType::Int8) => build!(Int8Builder::with_capacity(n), v, x, narrow),
        (Data::I64(x), LType::Int16) => build!(Int16Builder::with_capacity(n), v, x, narrow),
        (Data::I64(x), LType::Int32) => build!(Int32Builder::with_capacity(n), v, x, narrow),
        (Data::I64(x), LType::Int64) => build!(Int64Builder::with_capacity(n), v, x, ok),
        (Data::I64(x), LType::UInt8) => build!(UInt8Builder::with_capacity(n), v, x, narrow),
        (Data::I64(x), LType::UInt16) => build!(UInt16Builder::with_capacity(n), v, x, narrow),
        (Data::I64(x), LType::UInt32) => build!(UInt32Builder::with_capacity(n), v, x, narrow),
        (Data::U64(x), LType::UInt64) => build!(UInt64Builder::with_capacity(n), v, x, ok),
        (Data::I128(x), LType::HugeInt) => {
            build!(decimal(n, 38, 0)?, v, x, ok)
        }
        (Data::I64(x), LType::Decimal(p, s)) => {
            build!(decimal(n, p, s)?, v, x, |d: i64| ok(i128::from(d)))
        }
        (Data::I128(x), LType::Decimal(p, s)) => build!(decimal(n, p, s)?, v, x, ok),
        (Data::F64(x), LType::Float) => {
            build!(
                Float32Builder::with_capacity(n),
                v,
                x,
                |f: f64| ok(f as f32)
            )
        }
        (Data::F64(x), LType::Double) => build!(Float64Builder::with_capacity(n), v, x, ok),
        (Data::I64(x), LType::Date) => build!(Date32Builder::with_capacity(n), v, x, narrow),
        // TIMESTAMP values are microseconds, as Arrow's.
        (Data::I64(x), LType::Timestamp) => {
            build!(TimestampMicrosecondBuilder::with_capacity(n), v, x, ok)
        }
        (Data::Str(x), LType::Varchar) => strings(v, x),
        _ => return Err(mismatch(v)),
    })
}

fn decimal(n: usize, p: u8, s: u8) -> Result<Decimal128Builder, ArrowError> {
    Decimal128Builder::with_capacity(n).with_precision_and_scale(p, s as i8)
}

/// `Utf8` when every value is valid UTF-8, else `Binary`.
fn strings(v: &Vector, x: &Strs) -> ArrayRef {
    let texts: Option<Vec<Option<&str>>> = x
        .iter()
        .enumerate()
        .map(|(i, b)| {
            if v.is_null(i) {
                Some(None)
            } else {
                std::str::from_utf8(b).ok().map(Some)
            }
        })
        .collect();
    match texts {
        Some(t) => Arc::new(StringArray::from(t)),
        None => {
            let mut b = BinaryBuilder::with_capacity(x.len(), x.total_bytes());
            for (i, s) in x.iter().enumerate() {
                if v.is_null(i) {
                    b.append_null();
                } else {
                    b.append_value(s);
                }
            }
            Arc::new(b.finish())
        }
    }
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Date32Type, Decimal128Type, Int16Type, TimestampMicrosecondType};
    use arrow_array::Array;
    use arrow_schema::DataType as ArrowType;
    use strata_engine::{ResultColumn, Value};

    use super::*;

    fn column(name: &str, ty: LType, values: &[Value]) -> ResultColumn {
        let mut v = Vector::empty(ty, values.len());
        for x in values {
            v.push(x);
        }
        ResultColumn {
            name: name.into(),
            ty,
            values: v,
        }
    }

    #[test]
    fn types_nulls_and_values_map_as_duckdb_exports_them() {
        let result = QueryResult::new(strata_engine::QueryResult {
            columns: vec![
                column("s", LType::Int16, &[Value::Int(-3), Value::Null]),
                column("d", LType::Date, &[Value::Int(19000), Value::Int(0)]),
                column("t", LType::Timestamp, &[Value::Int(1), Value::Null]),
                column(
                    "m",
                    LType::Decimal(3, 1),
                    &[Value::Int(-999), Value::Int(5)],
                ),
                column(
                    "h",
                    LType::HugeInt,
                    &[Value::Huge(1 << 70), Value::Huge(-1)],
                ),
                column(
                    "u",
                    LType::Varchar,
                    &[Value::Str(b"caf\xc3\xa9".to_vec()), Value::Null],
                ),
                column(
                    "b",
                    LType::Varchar,
                    &[Value::Str(vec![0xff]), Value::Str(b"x".to_vec())],
                ),
            ],
        });
        let batch = result.to_record_batch().unwrap();
        assert_eq!(batch.num_rows(), 2);
        let s = batch.column(0).as_primitive::<Int16Type>();
        assert_eq!((s.value(0), s.is_null(1)), (-3, true));
        let d = batch.column(1).as_primitive::<Date32Type>();
        assert_eq!((d.value(0), d.value(1)), (19000, 0));
        let t = batch.column(2).as_primitive::<TimestampMicrosecondType>();
        assert_eq!((t.value(0), t.is_null(1)), (1, true));
        assert_eq!(
            batch.schema().field(3).data_type(),
            &ArrowType::Decimal128(3, 1)
        );
        let m = batch.column(3).as_primitive::<Decimal128Type>();
        assert_eq!((m.value(0), m.value(1)), (-999, 5));
        let h = batch.column(4).as_primitive::<Decimal128Type>();
        assert_eq!((h.value(0), h.value(1)), (1 << 70, -1));
        let u = batch.column(5).as_string::<i32>();
        assert_eq!((u.value(0), u.is_null(1)), ("café", true));
        assert_eq!(batch.schema().field(6).data_type(), &ArrowType::Binary);
        let b = batch.column(6).as_binary::<i32>();
        assert_eq!((b.value(0), b.value(1)), (&[0xffu8][..], &b"x"[..]));
    }

    #[test]
    fn an_empty_result_keeps_its_schema() {
        let result = QueryResult::new(strata_engine::QueryResult {
            columns: vec![column("x", LType::Double, &[])],
        });
        let batch = result.to_record_batch().unwrap();
        assert_eq!(batch.num_rows(), 0);
        assert_eq!(batch.schema().field(0).data_type(), &ArrowType::Float64);
    }
}
