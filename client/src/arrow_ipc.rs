//! Partial results of split queries as Arrow IPC streams (feature `arrow`):
//! what tasks send to the process that merges, whatever moves the bytes
//! (Ray's object store, a file, a socket). Buffers are zstd-compressed.
//!
//! The columns are exported as [`QueryResult::to_record_batch`] does and
//! read back by the inverse mapping; the merge checks them against the
//! columns the query's partial plan produces (HUGEINT travels as
//! `Decimal128(38, 0)` and is read back as such).

use std::io::Cursor;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, TimestampMicrosecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrowPrimitiveType, RecordBatch};
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::{IpcWriteOptions, StreamWriter};
use arrow_ipc::CompressionType;
use arrow_schema::{ArrowError, DataType as ArrowType, TimeUnit};
use strata_engine::value::{Data, Phys};
use strata_engine::{LType, ResultColumn, Vector};

use crate::error::{Error, Result};
use crate::split::Partial;
use crate::QueryResult;

fn ipc_error(what: &str) -> impl Fn(ArrowError) -> Error + '_ {
    move |e| Error::Partial(format!("{what}: {e}"))
}

impl Partial {
    /// The partial result as an Arrow IPC stream (one schema message, one
    /// record batch, zstd-compressed buffers).
    pub fn to_ipc(&self) -> Result<Vec<u8>> {
        let batch = QueryResult::new(self.engine().clone())
            .to_record_batch()
            .map_err(ipc_error("converting a partial result to Arrow"))?;
        let options = IpcWriteOptions::default()
            .try_with_compression(Some(CompressionType::ZSTD))
            .map_err(ipc_error("writing a partial result"))?;
        let mut out = Vec::new();
        let mut w = StreamWriter::try_new_with_options(&mut out, &batch.schema(), options)
            .map_err(ipc_error("writing a partial result"))?;
        w.write(&batch)
            .map_err(ipc_error("writing a partial result"))?;
        w.finish().map_err(ipc_error("writing a partial result"))?;
        drop(w);
        Ok(out)
    }

    /// A partial result from an Arrow IPC stream written by
    /// [`Partial::to_ipc`] (or any writer of the same columns).
    pub fn from_ipc(bytes: &[u8]) -> Result<Partial> {
        let read = ipc_error("reading a partial result");
        let reader = StreamReader::try_new(Cursor::new(bytes), None).map_err(&read)?;
        let schema = reader.schema();
        let mut columns: Vec<ResultColumn> = Vec::new();
        for (i, f) in schema.fields().iter().enumerate() {
            let ty = ltype(f.data_type()).map_err(&read)?;
            columns.push(ResultColumn {
                name: f.name().clone(),
                ty,
                values: Vector::empty(ty, 0),
            });
            debug_assert_eq!(columns.len(), i + 1);
        }
        for batch in reader {
            let batch: RecordBatch = batch.map_err(&read)?;
            for (c, a) in columns.iter_mut().zip(batch.columns()) {
                c.values.append(&to_vector(a.as_ref()).map_err(&read)?);
            }
        }
        Ok(Partial::from_engine(strata_engine::QueryResult { columns }))
    }
}

/// The engine type an Arrow type is read as (the inverse of the export).
fn ltype(t: &ArrowType) -> Result<LType, ArrowError> {
    Ok(match t {
        ArrowType::Null => LType::Null,
        ArrowType::Boolean => LType::Bool,
        ArrowType::Int8 => LType::Int8,
        ArrowType::Int16 => LType::Int16,
        ArrowType::Int32 => LType::Int32,
        ArrowType::Int64 => LType::Int64,
        ArrowType::UInt8 => LType::UInt8,
        ArrowType::UInt16 => LType::UInt16,
        ArrowType::UInt32 => LType::UInt32,
        ArrowType::UInt64 => LType::UInt64,
        ArrowType::Float32 => LType::Float,
        ArrowType::Float64 => LType::Double,
        ArrowType::Date32 => LType::Date,
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => LType::Timestamp,
        ArrowType::Decimal128(p, s) if *s >= 0 && *p <= 38 => LType::Decimal(*p, *s as u8),
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Binary | ArrowType::LargeBinary => {
            LType::Varchar
        }
        other => {
            return Err(ArrowError::NotYetImplemented(format!(
                "a partial result column of Arrow type {other}"
            )))
        }
    })
}

/// An Arrow array as an engine vector.
fn to_vector(a: &dyn Array) -> Result<Vector, ArrowError> {
    let ty = ltype(a.data_type())?;
    let n = a.len();
    let nulls = a
        .logical_nulls()
        .filter(|b| b.null_count() > 0)
        .map(|b| (0..n).map(|i| b.is_null(i)).collect::<Vec<bool>>());
    fn ints<T: ArrowPrimitiveType>(a: &dyn Array) -> Data
    where
        T::Native: Into<i64>,
    {
        Data::I64(
            a.as_primitive::<T>()
                .values()
                .iter()
                .map(|&v| v.into())
                .collect(),
        )
    }
    fn strings<'a>(values: impl Iterator<Item = Option<&'a [u8]>>) -> Data {
        Data::Str(values.map(|v| v.unwrap_or_default().to_vec()).collect())
    }
    let data = match a.data_type() {
        ArrowType::Null => return Ok(Vector::nulls(LType::Null, n)),
        ArrowType::Boolean => Data::Bool(a.as_boolean().values().iter().collect()),
        ArrowType::Int8 => ints::<Int8Type>(a),
        ArrowType::Int16 => ints::<Int16Type>(a),
        ArrowType::Int32 => ints::<Int32Type>(a),
        ArrowType::Int64 => ints::<Int64Type>(a),
        ArrowType::UInt8 => ints::<UInt8Type>(a),
        ArrowType::UInt16 => ints::<UInt16Type>(a),
        ArrowType::UInt32 => ints::<UInt32Type>(a),
        ArrowType::UInt64 => Data::U64(a.as_primitive::<UInt64Type>().values().to_vec()),
        ArrowType::Float32 => Data::F64(
            a.as_primitive::<Float32Type>()
                .values()
                .iter()
                .map(|&v| f64::from(v))
                .collect(),
        ),
        ArrowType::Float64 => Data::F64(a.as_primitive::<Float64Type>().values().to_vec()),
        ArrowType::Date32 => ints::<Date32Type>(a),
        ArrowType::Timestamp(..) => ints::<TimestampMicrosecondType>(a),
        ArrowType::Decimal128(..) => {
            let v = a.as_primitive::<Decimal128Type>().values();
            if ty.phys() == Phys::I64 {
                let mut out = Vec::with_capacity(n);
                for &x in v.iter() {
                    out.push(i64::try_from(x).map_err(|_| {
                        ArrowError::InvalidArgumentError(format!("{x} out of range for {ty}"))
                    })?);
                }
                Data::I64(out)
            } else {
                Data::I128(v.to_vec())
            }
        }
        ArrowType::Utf8 => strings(a.as_string::<i32>().iter().map(|s| s.map(str::as_bytes))),
        ArrowType::LargeUtf8 => strings(a.as_string::<i64>().iter().map(|s| s.map(str::as_bytes))),
        ArrowType::Binary => strings(a.as_binary::<i32>().iter()),
        ArrowType::LargeBinary => strings(a.as_binary::<i64>().iter()),
        other => {
            return Err(ArrowError::NotYetImplemented(format!(
                "a partial result column of Arrow type {other}"
            )))
        }
    };
    Ok(Vector { ty, data, nulls })
}

#[cfg(test)]
mod tests {
    use strata_engine::Value;

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

    /// Every type a partial result holds survives the trip, NULLs included.
    #[test]
    fn partial_results_round_trip_through_ipc() {
        let cols = vec![
            column("b", LType::Bool, &[Value::Bool(true), Value::Null]),
            column("i8", LType::Int8, &[Value::Int(-3), Value::Null]),
            column(
                "u32",
                LType::UInt32,
                &[Value::Int(4_000_000_000), Value::Int(0)],
            ),
            column("u64", LType::UInt64, &[Value::UInt(u64::MAX), Value::Null]),
            column("i64", LType::Int64, &[Value::Int(i64::MIN), Value::Int(7)]),
            column("h", LType::HugeInt, &[Value::Huge(1 << 100), Value::Null]),
            column(
                "d",
                LType::Decimal(10, 2),
                &[Value::Int(-12345), Value::Int(0)],
            ),
            column(
                "w",
                LType::Decimal(38, 4),
                &[Value::Huge(-(1 << 90)), Value::Null],
            ),
            column(
                "f",
                LType::Double,
                &[Value::Float(0.1), Value::Float(f64::NAN)],
            ),
            column("r", LType::Float, &[Value::Float(1.5), Value::Null]),
            column("day", LType::Date, &[Value::Int(-1), Value::Int(19000)]),
            column("t", LType::Timestamp, &[Value::Int(1), Value::Null]),
            column(
                "s",
                LType::Varchar,
                &[Value::Str(b"caf\xc3\xa9".to_vec()), Value::Null],
            ),
            column(
                "x",
                LType::Varchar,
                &[Value::Str(vec![0xff]), Value::Str(vec![])],
            ),
            column("n", LType::Null, &[Value::Null, Value::Null]),
        ];
        let p = Partial::from_engine(strata_engine::QueryResult { columns: cols });
        let back = Partial::from_ipc(&p.to_ipc().unwrap()).unwrap();
        for (a, b) in p.engine().columns.iter().zip(&back.engine().columns) {
            assert_eq!(a.name, b.name);
            let want = if a.ty == LType::HugeInt {
                LType::Decimal(38, 0)
            } else {
                a.ty
            };
            assert_eq!(b.ty, want, "{}", a.name);
            for i in 0..2 {
                let (x, y) = (a.values.get(i), b.values.get(i));
                match (&x, &y) {
                    (Value::Float(x), Value::Float(y)) if x.is_nan() => assert!(y.is_nan()),
                    _ => assert_eq!(x, y, "{} row {i}", a.name),
                }
            }
        }
    }

    #[test]
    fn bytes_that_are_not_a_stream_are_an_error() {
        let e = Partial::from_ipc(b"not arrow").unwrap_err().to_string();
        assert!(e.contains("reading a partial result"), "{e}");
        let empty = Partial::from_engine(strata_engine::QueryResult {
            columns: vec![column("c", LType::Int64, &[])],
        });
        let back = Partial::from_ipc(&empty.to_ipc().unwrap()).unwrap();
        assert_eq!(back.num_rows(), 0);
    }
}
