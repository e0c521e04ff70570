//! Tab-separated text in the ClickHouse `TabSeparated` / PostgreSQL `COPY`
//! convention: fields are separated by a tab (or another delimiter), records
//! by a newline, and the special characters inside a value are escaped with a
//! backslash: `\t` tab, `\n` newline, `\r` carriage return, `\\` backslash,
//! `\0` NUL, `\b` `\f` `\v` `\a`, `\'` `\"` `\/`, `\xHH` a byte in hex, and a
//! backslash before a literal newline stands for that newline. Any other
//! escaped character stands for itself (`\q` is `q`). A field that is exactly
//! `\N` is NULL.
//!
//! No crate implements this unescaping for bytes (the `csv` crate has no
//! escape mode of this kind), so it is written here: fields without a
//! backslash are copied whole, found with `memchr2`.

use crate::text::Fields;

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Splits one TSV record into `out` (cleared by the caller). A raw field equal
/// to `null` (by default `\N`) is marked NULL.
pub fn split(record: &[u8], delimiter: u8, null: &[u8], out: &mut Fields) -> Result<(), String> {
    let mut pos = 0;
    loop {
        let start = out.buf.len();
        let field_start = pos;
        // The raw field ends at the next unescaped delimiter.
        loop {
            let rest = &record[pos..];
            match memchr::memchr2(delimiter, b'\\', rest) {
                None => {
                    out.buf.extend_from_slice(rest);
                    pos = record.len();
                    break;
                }
                Some(i) if rest[i] == delimiter => {
                    out.buf.extend_from_slice(&rest[..i]);
                    pos += i;
                    break;
                }
                Some(i) => {
                    out.buf.extend_from_slice(&rest[..i]);
                    let Some(&c) = rest.get(i + 1) else {
                        return Err(format!(
                            "backslash at the end of field {} escapes nothing",
                            out.len() + 1
                        ));
                    };
                    pos += i + 2;
                    let b = match c {
                        b't' => b'\t',
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b'0' => 0,
                        b'b' => 0x08,
                        b'f' => 0x0c,
                        b'v' => 0x0b,
                        b'a' => 0x07,
                        b'x' => {
                            let hi = record.get(pos).copied().and_then(hex);
                            let lo = record.get(pos + 1).copied().and_then(hex);
                            match (hi, lo) {
                                (Some(h), Some(l)) => {
                                    pos += 2;
                                    h * 16 + l
                                }
                                _ => b'x',
                            }
                        }
                        other => other,
                    };
                    out.buf.push(b);
                }
            }
        }
        out.push(start, &record[field_start..pos] == null);
        if pos == record.len() {
            return Ok(());
        }
        pos += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(record: &[u8]) -> Result<Vec<Option<Vec<u8>>>, String> {
        let mut f = Fields::default();
        split(record, b'\t', b"\\N", &mut f)?;
        Ok((0..f.len()).map(|i| f.get(i).map(<[u8]>::to_vec)).collect())
    }

    fn v(s: &[u8]) -> Option<Vec<u8>> {
        Some(s.to_vec())
    }

    #[test]
    fn plain_fields() {
        assert_eq!(
            fields(b"1\thello\t2013-07-15"),
            Ok(vec![v(b"1"), v(b"hello"), v(b"2013-07-15")])
        );
        assert_eq!(fields(b"a\t\tb"), Ok(vec![v(b"a"), v(b""), v(b"b")]));
        assert_eq!(fields(b""), Ok(vec![v(b"")]));
        assert_eq!(fields(b"x\t"), Ok(vec![v(b"x"), v(b"")]));
    }

    #[test]
    fn escapes() {
        assert_eq!(
            fields(b"a\\tb\tc\\nd\\\\e\\r\\0\\'\\\"\\/"),
            Ok(vec![v(b"a\tb"), v(b"c\nd\\e\r\0'\"/")])
        );
        assert_eq!(fields(b"\\x41\\x4a\\xzz"), Ok(vec![v(b"AJxzz")]));
        assert_eq!(
            fields(b"\\b\\f\\v\\a\\q"),
            Ok(vec![v(b"\x08\x0c\x0b\x07q")])
        );
        // A backslash before a literal newline is that newline.
        assert_eq!(fields(b"a\\\nb\tc"), Ok(vec![v(b"a\nb"), v(b"c")]));
        // An escaped delimiter does not split.
        assert_eq!(fields(b"a\\\tb"), Ok(vec![v(b"a\tb")]));
        // Invalid UTF-8 passes through.
        assert_eq!(fields(b"\xff\xfe"), Ok(vec![v(b"\xff\xfe")]));
    }

    #[test]
    fn nulls() {
        assert_eq!(
            fields(b"\\N\tN\t\\\\N\t\\N\\N"),
            Ok(vec![None, v(b"N"), v(b"\\N"), v(b"NN")])
        );
        let mut f = Fields::default();
        split(b"NULL\t\\N", b'\t', b"NULL", &mut f).unwrap();
        assert_eq!(f.get(0), None);
        assert_eq!(f.get(1), Some(&b"N"[..]));
    }

    #[test]
    fn dangling_backslash_is_an_error() {
        assert!(fields(b"a\tb\\").unwrap_err().contains("field 2"));
    }
}
