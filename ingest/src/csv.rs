//! CSV fields per RFC 4180: a field is either unquoted (no quotes, no
//! delimiters, no newlines) or wrapped in double quotes, inside which the
//! delimiter and newlines are literal and `""` stands for one quote.
//!
//! Why not the `csv` crate: it is fast and well kept, but it is lenient by
//! design (text after a closing quote, an unterminated quote at the end of the
//! input and bare quotes inside unquoted fields all pass silently) and it does
//! not say whether a field was quoted. Ingest needs both: malformed quoting
//! must be an error naming the line, and `""` (an empty string) must differ
//! from an empty unquoted field (NULL, as in PostgreSQL and DuckDB). The
//! state machine below is short; records are found with `memchr`
//! ([`crate::text::RecordReader`]) and fields with `memchr2`, so it is
//! about as fast.

use crate::text::Fields;

/// Splits one CSV record into `out` (cleared by the caller). An unquoted field
/// equal to `null` is marked NULL; a quoted one never is.
pub fn split(record: &[u8], delimiter: u8, null: &[u8], out: &mut Fields) -> Result<(), String> {
    let mut pos = 0;
    loop {
        let start = out.buf.len();
        if record.get(pos) == Some(&b'"') {
            pos += 1;
            loop {
                let Some(q) = memchr::memchr(b'"', &record[pos..]) else {
                    return Err(format!(
                        "unterminated quoted field (field {})",
                        out.len() + 1
                    ));
                };
                out.buf.extend_from_slice(&record[pos..pos + q]);
                pos += q + 1;
                if record.get(pos) == Some(&b'"') {
                    out.buf.push(b'"');
                    pos += 1;
                } else {
                    break;
                }
            }
            out.push(start, false);
            out.mark_quoted();
            match record.get(pos) {
                None => return Ok(()),
                Some(&b) if b == delimiter => pos += 1,
                Some(_) => {
                    return Err(format!(
                        "unexpected text after the closing quote of field {}",
                        out.len()
                    ))
                }
            }
        } else {
            let rest = &record[pos..];
            let end = memchr::memchr2(delimiter, b'"', rest).unwrap_or(rest.len());
            if rest.get(end) == Some(&b'"') {
                return Err(format!(
                    "quote inside unquoted field {} (quote the whole field and double the quote)",
                    out.len() + 1
                ));
            }
            let value = &rest[..end];
            out.buf.extend_from_slice(value);
            out.push(start, value == null);
            pos += end;
            if pos == record.len() {
                return Ok(());
            }
            pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::TextDialect;

    fn fields(record: &str) -> Result<Vec<Option<String>>, String> {
        let mut f = Fields::default();
        TextDialect::Csv { delimiter: b',' }.split(record.as_bytes(), b"", &mut f)?;
        Ok((0..f.len())
            .map(|i| f.get(i).map(|v| String::from_utf8(v.to_vec()).unwrap()))
            .collect())
    }

    fn s(v: &str) -> Option<String> {
        Some(v.to_string())
    }

    #[test]
    fn plain_and_quoted_fields() {
        assert_eq!(fields("a,b,c"), Ok(vec![s("a"), s("b"), s("c")]));
        assert_eq!(
            fields("\"a,b\",\"say \"\"hi\"\"\",\"x\ny\""),
            Ok(vec![s("a,b"), s("say \"hi\""), s("x\ny")])
        );
        assert_eq!(fields("1,,3"), Ok(vec![s("1"), None, s("3")]));
        assert_eq!(fields("1,\"\",3"), Ok(vec![s("1"), s(""), s("3")]));
        assert_eq!(fields("1,2,"), Ok(vec![s("1"), s("2"), None]));
        assert_eq!(fields(""), Ok(vec![None]));
        assert_eq!(fields("\"\""), Ok(vec![s("")]));
        assert_eq!(fields("\"\"\"\""), Ok(vec![s("\"")]));
        let mut f = Fields::default();
        split(b"\xce\xbb,\xff\xfe", b',', b"", &mut f).unwrap();
        assert_eq!(f.get(1), Some(&b"\xff\xfe"[..]));
    }

    #[test]
    fn other_delimiters() {
        let mut f = Fields::default();
        TextDialect::Csv { delimiter: b'|' }
            .split(b"a|\"b|c\"|d,e", b"", &mut f)
            .unwrap();
        assert_eq!(f.get(1), Some(&b"b|c"[..]));
        assert_eq!(f.get(2), Some(&b"d,e"[..]));
    }

    #[test]
    fn null_string() {
        let mut f = Fields::default();
        TextDialect::Csv { delimiter: b',' }
            .split(b"NULL,\"NULL\",,x", b"NULL", &mut f)
            .unwrap();
        assert_eq!(f.get(0), None);
        assert_eq!(f.get(1), Some(&b"NULL"[..]));
        assert_eq!(f.get(2), Some(&b""[..]));
        assert_eq!(f.get(3), Some(&b"x"[..]));
    }

    #[test]
    fn broken_quoting_is_an_error() {
        assert!(fields("\"abc").unwrap_err().contains("unterminated"));
        assert!(fields("1,\"abc").unwrap_err().contains("field 2"));
        assert!(fields("\"abc\"def,1")
            .unwrap_err()
            .contains("after the closing quote"));
        assert!(fields("ab\"c,1").unwrap_err().contains("quote inside"));
    }
}
