//! Values between Python and strata: query parameters in, result rows out.
//!
//! Out, types map as DuckDB's Python client maps them: integers (HUGEINT
//! included) to `int`, DECIMAL to `decimal.Decimal`, FLOAT/DOUBLE to
//! `float`, DATE to `datetime.date`, TIMESTAMP to a naive
//! `datetime.datetime`, VARCHAR to `str` (`bytes` when not UTF-8), NULL to
//! `None`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyFloat, PyInt, PyString, PyTuple};
use strata::engine::value::civil_from_days;
use strata::{Column, ColumnValues, DataType, QueryResult, Value};

/// A Python value as a query parameter. `int`, `float`, `str`, `bytes`,
/// `bool` and `None` map to the SQL literal of the same kind; `Decimal`,
/// `date`, `datetime` and anything else with a string form the engine can
/// cast (their ISO text) become a string literal.
pub fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::Int(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::UInt(u));
        }
        return obj
            .extract::<i128>()
            .map(Value::Huge)
            .map_err(|_| PyTypeError::new_err("integer parameter out of the 128-bit range"));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::Str(s.to_cow()?.as_bytes().to_vec()));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Value::Str(b.as_bytes().to_vec()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Value::Str(b.to_vec()));
    }
    let py = obj.py();
    let datetime = py.import("datetime")?;
    let decimal = py.import("decimal")?;
    // datetime.datetime is a subclass of datetime.date: both print ISO text.
    if obj.is_instance(&datetime.getattr("date")?)?
        || obj.is_instance(&decimal.getattr("Decimal")?)?
    {
        return Ok(Value::Str(obj.str()?.to_cow()?.as_bytes().to_vec()));
    }
    Err(PyTypeError::new_err(format!(
        "unsupported parameter type {}",
        obj.get_type().name()?
    )))
}

/// Python constructors the conversion calls, looked up once per fetch.
struct Ctors<'py> {
    date: Bound<'py, PyAny>,
    datetime: Bound<'py, PyAny>,
    decimal: Bound<'py, PyAny>,
}

impl<'py> Ctors<'py> {
    fn new(py: Python<'py>) -> PyResult<Ctors<'py>> {
        let datetime = py.import("datetime")?;
        Ok(Ctors {
            date: datetime.getattr("date")?,
            datetime: datetime.getattr("datetime")?,
            decimal: py.import("decimal")?.getattr("Decimal")?,
        })
    }
}

/// Row `i` of `col` as a Python object.
fn cell<'py>(
    py: Python<'py>,
    ctors: &Ctors<'py>,
    col: &Column<'_>,
    i: usize,
) -> PyResult<Bound<'py, PyAny>> {
    if col.is_null(i) {
        return Ok(py.None().into_bound(py));
    }
    let ty = col.data_type();
    Ok(match (col.values(), ty) {
        (ColumnValues::Bool(v), _) => PyBool::new(py, v[i]).to_owned().into_any(),
        (ColumnValues::Int64(v), DataType::Date) => {
            let (y, m, d) = civil_from_days(v[i]);
            match ctors.date.call1((y, m, d)) {
                Ok(date) => date,
                // Outside Python's years 1..=9999: the SQL text instead.
                Err(_) => PyString::new(py, &col.format(i)).into_any(),
            }
        }
        (ColumnValues::Int64(v), DataType::Timestamp) => {
            // Microseconds since the epoch.
            const DAY: i64 = 86_400 * 1_000_000;
            let micros = v[i];
            let (y, m, d) = civil_from_days(micros.div_euclid(DAY));
            let us = micros.rem_euclid(DAY);
            let s = us / 1_000_000;
            match ctors
                .datetime
                .call1((y, m, d, s / 3600, (s / 60) % 60, s % 60, us % 1_000_000))
            {
                Ok(ts) => ts,
                Err(_) => PyString::new(py, &col.format(i)).into_any(),
            }
        }
        (ColumnValues::Int64(_) | ColumnValues::Int128(_), DataType::Decimal(..)) => {
            ctors.decimal.call1((col.format(i),))?
        }
        (ColumnValues::Int64(v), _) => v[i].into_pyobject(py)?.into_any(),
        (ColumnValues::UInt64(v), _) => v[i].into_pyobject(py)?.into_any(),
        (ColumnValues::Int128(v), _) => v[i].into_pyobject(py)?.into_any(),
        (ColumnValues::Float64(v), _) => PyFloat::new(py, v[i]).into_any(),
        (ColumnValues::Bytes(v), DataType::List(elem)) => list_to_py(py, ctors, *elem, &v[i])?
            .unwrap_or_else(|| PyString::new(py, &col.format(i)).into_any()),
        (ColumnValues::Bytes(v), _) => match std::str::from_utf8(&v[i]) {
            Ok(s) => PyString::new(py, s).into_any(),
            Err(_) => PyBytes::new(py, &v[i]).into_any(),
        },
        // A representation this version does not know: its SQL text.
        #[allow(unreachable_patterns)]
        _ => PyString::new(py, &col.format(i)).into_any(),
    })
}

/// An encoded LIST of `elem`s as a Python `list` (`None` if it does not
/// decode), its elements mapped as columns of their type are.
fn list_to_py<'py>(
    py: Python<'py>,
    ctors: &Ctors<'py>,
    elem: DataType,
    bytes: &[u8],
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Some(items) = strata::engine::list::decode(elem, bytes) else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(items.len());
    for v in &items {
        let text = || strata::engine::value::format_value(elem, v);
        let obj = match (v, elem) {
            (Value::Null, _) => py.None().into_bound(py),
            (Value::Str(b), DataType::List(inner)) => {
                list_to_py(py, ctors, *inner, b)?.unwrap_or_else(|| py.None().into_bound(py))
            }
            (_, DataType::Decimal(..)) => ctors.decimal.call1((text(),))?,
            (Value::Int(d), DataType::Date) => {
                let (y, m, day) = civil_from_days(*d);
                ctors
                    .date
                    .call1((y, m, day))
                    .unwrap_or_else(|_| PyString::new(py, &text()).into_any())
            }
            (_, DataType::Timestamp | DataType::Interval) => PyString::new(py, &text()).into_any(),
            (Value::Bool(b), _) => PyBool::new(py, *b).to_owned().into_any(),
            (Value::Int(x), _) => x.into_pyobject(py)?.into_any(),
            (Value::UInt(x), _) => x.into_pyobject(py)?.into_any(),
            (Value::Huge(x), _) => x.into_pyobject(py)?.into_any(),
            (Value::Float(f), _) => PyFloat::new(py, *f).into_any(),
            (Value::Str(b), _) => match std::str::from_utf8(b) {
                Ok(s) => PyString::new(py, s).into_any(),
                Err(_) => PyBytes::new(py, b).into_any(),
            },
        };
        out.push(obj);
    }
    Ok(Some(pyo3::types::PyList::new(py, out)?.into_any()))
}

/// Rows `start..end` of `result` as a list of tuples.
pub fn rows<'py>(
    py: Python<'py>,
    result: &QueryResult,
    start: usize,
    end: usize,
) -> PyResult<Vec<Bound<'py, PyTuple>>> {
    let end = end.min(result.num_rows());
    let start = start.min(end);
    let ctors = Ctors::new(py)?;
    let columns: Vec<Column<'_>> = result.columns().collect();
    let mut out = Vec::with_capacity(end - start);
    let mut row = Vec::with_capacity(columns.len());
    for i in start..end {
        row.clear();
        for c in &columns {
            row.push(cell(py, &ctors, c, i)?);
        }
        out.push(PyTuple::new(py, &row)?);
    }
    Ok(out)
}
