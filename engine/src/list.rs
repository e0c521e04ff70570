//! LIST values (`INTEGER[]`): the element type, interned so that
//! [`LType`] stays `Copy`, and the byte encoding a list value is held in
//! (a [`Value::Str`] in a vector of [`Phys::Str`](crate::value::Phys)).
//!
//! Lists are results only (`array_agg`, `list`): they are built, measured,
//! sorted and printed, never stored in a table.
//!
//! Encoding: the element count as a little-endian `u32`, then per element
//! a tag byte (0 NULL, 1 a value) and, for a value, its physical form:
//! one byte for a BOOLEAN, 8 little-endian bytes for `i64` / `u64` / `f64`,
//! 16 for `i128`, and a `u32` length before the bytes of a string or a
//! nested list.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::value::{cmp_f64, format_value, LType, Phys, Value};

/// The LIST type of `elem`. Each element type is interned once per
/// process (there are only as many as the queries name).
pub fn list_of(elem: LType) -> LType {
    static TYPES: OnceLock<Mutex<HashMap<LType, &'static LType>>> = OnceLock::new();
    let mut types = TYPES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let e: &'static LType = types
        .entry(elem)
        .or_insert_with(|| Box::leak(Box::new(elem)));
    LType::List(e)
}

/// A list under construction, one element at a time.
#[derive(Debug, Clone, Default)]
pub struct ListBuilder {
    bytes: Vec<u8>,
    len: u32,
}

impl ListBuilder {
    /// An empty list.
    pub fn new() -> ListBuilder {
        ListBuilder::default()
    }

    /// Appends `v` (held as its type's physical form, or NULL).
    pub fn push(&mut self, v: &Value) {
        self.len += 1;
        let b = &mut self.bytes;
        match v {
            Value::Null => b.push(0),
            Value::Bool(x) => b.extend_from_slice(&[1, u8::from(*x)]),
            Value::Int(x) => {
                b.push(1);
                b.extend_from_slice(&x.to_le_bytes());
            }
            Value::UInt(x) => {
                b.push(1);
                b.extend_from_slice(&x.to_le_bytes());
            }
            Value::Float(x) => {
                b.push(1);
                b.extend_from_slice(&x.to_le_bytes());
            }
            Value::Huge(x) => {
                b.push(1);
                b.extend_from_slice(&x.to_le_bytes());
            }
            Value::Str(s) => {
                b.push(1);
                b.extend_from_slice(&(s.len() as u32).to_le_bytes());
                b.extend_from_slice(s);
            }
        }
    }

    /// Number of elements so far.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when no element was pushed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The encoded list.
    pub fn finish(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + self.bytes.len());
        out.extend_from_slice(&self.len.to_le_bytes());
        out.extend_from_slice(&self.bytes);
        out
    }
}

/// Encodes `values` as a list.
pub fn encode(values: &[Value]) -> Vec<u8> {
    let mut b = ListBuilder::new();
    for v in values {
        b.push(v);
    }
    b.finish()
}

/// The elements of an encoded list of `elem`s; `None` when the bytes are
/// not a list of that type (lists are built in-process, so only a bug
/// gives that).
pub fn decode(elem: LType, bytes: &[u8]) -> Option<Vec<Value>> {
    let take = |at: &mut usize, n: usize| -> Option<&[u8]> {
        let s = bytes.get(*at..at.checked_add(n)?)?;
        *at += n;
        Some(s)
    };
    let mut at = 0;
    let n = u32::from_le_bytes(take(&mut at, 4)?.try_into().ok()?) as usize;
    let mut out = Vec::with_capacity(n.min(bytes.len()));
    for _ in 0..n {
        if take(&mut at, 1)?[0] == 0 {
            out.push(Value::Null);
            continue;
        }
        let v = match elem.phys() {
            Phys::Bool => Value::Bool(take(&mut at, 1)?[0] != 0),
            Phys::I64 => Value::Int(i64::from_le_bytes(take(&mut at, 8)?.try_into().ok()?)),
            Phys::U64 => Value::UInt(u64::from_le_bytes(take(&mut at, 8)?.try_into().ok()?)),
            Phys::F64 => Value::Float(f64::from_le_bytes(take(&mut at, 8)?.try_into().ok()?)),
            Phys::I128 => Value::Huge(i128::from_le_bytes(take(&mut at, 16)?.try_into().ok()?)),
            Phys::Str => {
                let len = u32::from_le_bytes(take(&mut at, 4)?.try_into().ok()?) as usize;
                Value::Str(take(&mut at, len)?.to_vec())
            }
        };
        out.push(v);
    }
    (at == bytes.len()).then_some(out)
}

/// The number of elements of an encoded list.
pub fn len(bytes: &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?))
}

/// The order of two elements of type `elem` as DuckDB sorts them
/// (ascending, NULLs last).
pub fn cmp_elems(elem: LType, a: &Value, b: &Value) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Greater,
        (_, Value::Null) => Ordering::Less,
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::UInt(x), Value::UInt(y)) => x.cmp(y),
        (Value::Huge(x), Value::Huge(y)) => x.cmp(y),
        (Value::Float(x), Value::Float(y)) => cmp_f64(*x, *y),
        (Value::Str(x), Value::Str(y)) => match elem {
            LType::List(inner) => {
                let (xs, ys) = (decode(*inner, x), decode(*inner, y));
                match (xs, ys) {
                    (Some(xs), Some(ys)) => xs
                        .iter()
                        .zip(&ys)
                        .map(|(p, q)| cmp_elems(*inner, p, q))
                        .find(|o| o.is_ne())
                        .unwrap_or_else(|| xs.len().cmp(&ys.len())),
                    _ => x.cmp(y),
                }
            }
            _ => x.cmp(y),
        },
        _ => Ordering::Equal,
    }
}

/// A string element as DuckDB writes it inside a list: bare, or in single
/// quotes (with `\\` and `\'` escaped) when it is empty, starts or ends
/// with whitespace, reads as NULL, or holds a character of the list syntax.
fn quoted(s: &str) -> String {
    let special = |c: char| ",[]{}():'\"\\=".contains(c);
    let needs = s.is_empty()
        || s.starts_with(char::is_whitespace)
        || s.ends_with(char::is_whitespace)
        || s.eq_ignore_ascii_case("null")
        || s.contains(special);
    if !needs {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if c == '\\' || c == '\'' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// A list as DuckDB casts it to VARCHAR: `[1, NULL, 3]`, strings bare
/// unless they need quotes (see [`quoted`]), nested lists in brackets.
pub fn format(elem: LType, bytes: &[u8]) -> String {
    let Some(values) = decode(elem, bytes) else {
        return "<invalid list>".into();
    };
    let items: Vec<String> = values
        .iter()
        .map(|v| match (elem, v) {
            (_, Value::Null) => "NULL".into(),
            (LType::List(inner), Value::Str(s)) => format(*inner, s),
            (LType::Varchar, Value::Str(s)) => quoted(&String::from_utf8_lossy(s)),
            (LType::Float | LType::Double, Value::Float(f)) => {
                crate::value::format_float_text(*f, elem == LType::Float)
            }
            _ => format_value(elem, v),
        })
        .collect();
    format!("[{}]", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_round_trip_and_print_as_duckdb_casts_them() {
        let vals = [Value::Int(1), Value::Null, Value::Int(-3)];
        let b = encode(&vals);
        assert_eq!(decode(LType::Int32, &b), Some(vals.to_vec()));
        assert_eq!(len(&b), Some(3));
        assert_eq!(format(LType::Int32, &b), "[1, NULL, -3]");
        let s = encode(&[Value::Str(b"a b".to_vec()), Value::Str(Vec::new())]);
        assert_eq!(format(LType::Varchar, &s), "[a b, '']");
        let q = encode(&[" x", "NULL", "it's", "a\\b", "x-y", "a,b"].map(|t| Value::Str(t.into())));
        assert_eq!(
            format(LType::Varchar, &q),
            r"[' x', 'NULL', 'it\'s', 'a\\b', x-y, 'a,b']"
        );
        let nested = encode(&[Value::Str(b.clone())]);
        assert_eq!(format(list_of(LType::Int32), &nested), "[[1, NULL, -3]]");
        assert_eq!(decode(LType::Int64, &b[..b.len() - 1]), None);
    }

    #[test]
    fn list_types_are_interned() {
        assert_eq!(list_of(LType::Int32), list_of(LType::Int32));
        assert_ne!(list_of(LType::Int32), list_of(LType::Int64));
        assert_eq!(list_of(LType::Varchar).name(), "VARCHAR[]");
    }
}
