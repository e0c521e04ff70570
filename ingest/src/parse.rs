//! Text values to the writer's order-preserving keys, one function per type.
//!
//! Every parser takes the field's bytes (already unquoted/unescaped) and
//! returns the key [`strata_format::ColumnData::push_key`] expects, or a short
//! message saying what is wrong; the caller adds file, line, column and value.
//!
//! Accepted forms:
//! - integers: optional sign and ASCII digits, range-checked for the type;
//! - floats: Rust's `f64`/`f32` syntax (`1.5`, `-2e10`, `inf`, `NaN`);
//! - booleans: `true`/`false`, `t`/`f`, `yes`/`no`, `1`/`0` (any case);
//! - dates: `YYYY-MM-DD`;
//! - timestamps: `YYYY-MM-DD[( |T)HH:MM[:SS[.fff...]]][Z|±HH[:MM]]`, or a bare
//!   date (midnight). Timestamps are microseconds: fraction digits beyond
//!   the sixth are dropped (as DuckDB does), an offset converts to UTC;
//! - decimals: optional sign, digits, optional `.` and digits; parsed exactly
//!   in integer arithmetic, extra fraction digits rounded half away from zero
//!   (as DuckDB does), more integer digits than `precision - scale` rejected.
//!
//! Surrounding ASCII spaces are ignored for every type but strings.

use strata_format::types::{bool_key, float_key, signed_key};
use strata_format::DataType;

/// Parses `text` as a value of the fixed-width type `t` and returns its key.
/// Strings are not fixed-width: calling this for [`DataType::String`] is an error.
pub fn parse_key(t: DataType, text: &[u8]) -> Result<u64, String> {
    let s = trim(text);
    match t {
        DataType::Bool => parse_bool(s).map(bool_key),
        DataType::Int8 => parse_signed(s, i8::MIN as i64, i8::MAX as i64, t).map(signed_key),
        DataType::Int16 => parse_signed(s, i16::MIN as i64, i16::MAX as i64, t).map(signed_key),
        DataType::Int32 => parse_signed(s, i32::MIN as i64, i32::MAX as i64, t).map(signed_key),
        DataType::Int64 => parse_signed(s, i64::MIN, i64::MAX, t).map(signed_key),
        DataType::UInt8 => parse_unsigned(s, u8::MAX as u64, t),
        DataType::UInt16 => parse_unsigned(s, u16::MAX as u64, t),
        DataType::UInt32 => parse_unsigned(s, u32::MAX as u64, t),
        DataType::UInt64 => parse_unsigned(s, u64::MAX, t),
        DataType::Float32 => parse_f32(s).map(|v| float_key(v as f64)),
        DataType::Float64 => parse_f64(s).map(float_key),
        DataType::Date => parse_date(s).map(|d| signed_key(d as i64)),
        DataType::Timestamp => parse_timestamp(s).map(signed_key),
        DataType::Decimal { precision, scale } => {
            parse_decimal(s, precision, scale).map(signed_key)
        }
        DataType::String => Err("internal: strings have no key".into()),
    }
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [b' ', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' '] = s {
        s = rest;
    }
    s
}

/// Optional sign and digits as an `i128` magnitude-checked value; `None` if
/// not an integer or longer than any 64-bit value.
fn parse_int(s: &[u8]) -> Option<i128> {
    let (neg, digits) = match s {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, s),
    };
    if digits.is_empty() || digits.len() > 39 {
        return None;
    }
    let mut v: i128 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((b - b'0') as i128)?;
    }
    Some(if neg { -v } else { v })
}

fn int_error(s: &[u8], t: DataType, range: String) -> String {
    if parse_int(s).is_some() {
        format!("out of range for {t} ({range})")
    } else {
        format!("not a valid {t}")
    }
}

/// A signed integer within `min..=max`.
pub fn parse_signed(s: &[u8], min: i64, max: i64, t: DataType) -> Result<i64, String> {
    match parse_int(s) {
        Some(v) if v >= min as i128 && v <= max as i128 => Ok(v as i64),
        _ => Err(int_error(s, t, format!("{min}..{max}"))),
    }
}

/// An unsigned integer up to `max`; the key is the value itself.
pub fn parse_unsigned(s: &[u8], max: u64, t: DataType) -> Result<u64, String> {
    match parse_int(s) {
        Some(v) if v >= 0 && v <= max as i128 => Ok(v as u64),
        _ => Err(int_error(s, t, format!("0..{max}"))),
    }
}

fn as_str(s: &[u8]) -> Option<&str> {
    std::str::from_utf8(s).ok()
}

fn says_infinite(s: &str) -> bool {
    let l = s.trim_start_matches(['+', '-']).to_ascii_lowercase();
    l == "inf" || l == "infinity"
}

/// A double; infinities only when spelled out, not from overflow.
pub fn parse_f64(s: &[u8]) -> Result<f64, String> {
    let text = as_str(s).ok_or("not a valid DOUBLE")?;
    match text.parse::<f64>() {
        Ok(v) if v.is_infinite() && !says_infinite(text) => {
            Err("out of range for DOUBLE".to_string())
        }
        Ok(v) => Ok(v),
        Err(_) => Err("not a valid DOUBLE".into()),
    }
}

/// A single-precision float, rounded once from the text.
pub fn parse_f32(s: &[u8]) -> Result<f32, String> {
    let text = as_str(s).ok_or("not a valid FLOAT")?;
    match text.parse::<f32>() {
        Ok(v) if v.is_infinite() && !says_infinite(text) => {
            Err("out of range for FLOAT".to_string())
        }
        Ok(v) => Ok(v),
        Err(_) => Err("not a valid FLOAT".into()),
    }
}

/// A boolean.
pub fn parse_bool(s: &[u8]) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_slice() {
        b"true" | b"t" | b"yes" | b"y" | b"1" => Ok(true),
        b"false" | b"f" | b"no" | b"n" | b"0" => Ok(false),
        _ => Err("not a valid BOOLEAN".into()),
    }
}

/// Days from 1970-01-01 to the given proleptic Gregorian date
/// (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

/// Exactly `n` ASCII digits at the start of `s`.
fn digits(s: &[u8], n: usize) -> Option<u32> {
    if s.len() < n {
        return None;
    }
    let mut v = 0u32;
    for &b in &s[..n] {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (b - b'0') as u32;
    }
    Some(v)
}

/// Parses `YYYY-MM-DD` at the start of `s`; returns days and the rest.
fn date_prefix(s: &[u8]) -> Option<(i64, &[u8])> {
    let y = digits(s, 4)?;
    if s.get(4) != Some(&b'-') {
        return None;
    }
    let m = digits(&s[5..], 2)?;
    if s.get(7) != Some(&b'-') {
        return None;
    }
    let d = digits(&s[8..], 2)?;
    let y = y as i64;
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    Some((days_from_civil(y, m, d), &s[10..]))
}

/// A `YYYY-MM-DD` date as days since 1970-01-01.
pub fn parse_date(s: &[u8]) -> Result<i32, String> {
    match date_prefix(s) {
        Some((days, [])) => Ok(days as i32),
        _ => Err("not a valid DATE (expected YYYY-MM-DD)".into()),
    }
}

/// A timestamp as microseconds since 1970-01-01 00:00:00 UTC.
pub fn parse_timestamp(s: &[u8]) -> Result<i64, String> {
    timestamp_inner(s)
        .ok_or_else(|| "not a valid TIMESTAMP (expected YYYY-MM-DD HH:MM:SS[.fff])".to_string())
}

fn timestamp_inner(s: &[u8]) -> Option<i64> {
    const MICROS_PER_SEC: i64 = 1_000_000;
    let (days, rest) = date_prefix(s)?;
    let mut micros = days.checked_mul(86_400 * MICROS_PER_SEC)?;
    let rest = match rest {
        [] => return Some(micros),
        [b' ' | b'T', rest @ ..] => rest,
        _ => return None,
    };
    let h = digits(rest, 2)?;
    if rest.get(2) != Some(&b':') {
        return None;
    }
    let mi = digits(&rest[3..], 2)?;
    let mut rest = &rest[5..];
    let mut sec = 0;
    let mut frac = 0i64;
    if let [b':', r @ ..] = rest {
        sec = digits(r, 2)?;
        rest = &r[2..];
        if let [b'.', r @ ..] = rest {
            let n = r.iter().take_while(|b| b.is_ascii_digit()).count();
            if n == 0 {
                return None;
            }
            for (i, &b) in r[..n.min(6)].iter().enumerate() {
                frac += i64::from(b - b'0') * 10i64.pow(5 - i as u32);
            }
            rest = &r[n..];
        }
    }
    if h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    micros = micros.checked_add((h * 3600 + mi * 60 + sec) as i64 * MICROS_PER_SEC + frac)?;
    let offset = match rest {
        [] | [b'Z'] | [b'z'] => 0,
        [sign @ (b'+' | b'-'), r @ ..] => {
            let oh = digits(r, 2)? as i64;
            let om = match &r[2..] {
                [] => 0,
                [b':', m @ ..] if m.len() == 2 => digits(m, 2)? as i64,
                m if m.len() == 2 => digits(m, 2)? as i64,
                _ => return None,
            };
            let o = (oh * 3600 + om * 60) * MICROS_PER_SEC;
            if *sign == b'-' {
                -o
            } else {
                o
            }
        }
        _ => return None,
    };
    micros.checked_sub(offset)
}

/// `10^n` for `n <= 38`.
pub fn pow10(n: u32) -> i128 {
    10i128.pow(n)
}

/// An exact decimal, scaled by `10^scale`, with at most `precision` digits.
pub fn parse_decimal(s: &[u8], precision: u8, scale: u8) -> Result<i64, String> {
    let t = DataType::Decimal { precision, scale };
    let bad = || format!("not a valid {t}");
    let (neg, body) = match s {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, s),
    };
    let (int_part, frac_part) = match memchr::memchr(b'.', body) {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, &body[body.len()..]),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return Err(bad());
    }
    if !int_part.iter().chain(frac_part).all(u8::is_ascii_digit) {
        return Err(bad());
    }
    let limit = pow10(precision as u32);
    let too_big = || format!("out of range for {t}");
    let mut v: i128 = 0;
    for &b in int_part {
        v = v * 10 + (b - b'0') as i128;
        if v >= limit {
            return Err(too_big());
        }
    }
    let scale = scale as usize;
    for i in 0..scale {
        let d = frac_part.get(i).map_or(0, |b| (b - b'0') as i128);
        v = v * 10 + d;
    }
    if frac_part.get(scale).is_some_and(|&b| b >= b'5') {
        v += 1;
    }
    if v >= limit {
        return Err(too_big());
    }
    Ok(if neg { -(v as i64) } else { v as i64 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_format::types::{float_from_key, signed_from_key};

    fn int(t: DataType, s: &str) -> Result<i64, String> {
        parse_key(t, s.as_bytes()).map(signed_from_key)
    }

    #[test]
    fn integers_are_range_checked() {
        assert_eq!(int(DataType::Int8, "-128"), Ok(-128));
        assert_eq!(int(DataType::Int8, "127"), Ok(127));
        assert!(int(DataType::Int8, "128")
            .unwrap_err()
            .contains("out of range"));
        assert_eq!(int(DataType::Int16, " +42 "), Ok(42));
        assert!(int(DataType::Int16, "40000").is_err());
        assert_eq!(int(DataType::Int32, "-2147483648"), Ok(i32::MIN as i64));
        assert_eq!(int(DataType::Int64, "9223372036854775807"), Ok(i64::MAX));
        assert!(int(DataType::Int64, "9223372036854775808").is_err());
        assert_eq!(
            parse_key(DataType::UInt64, b"18446744073709551615"),
            Ok(u64::MAX)
        );
        assert!(parse_key(DataType::UInt64, b"18446744073709551616")
            .unwrap_err()
            .contains("out of range"));
        assert!(parse_key(DataType::UInt8, b"-1").is_err());
        assert_eq!(parse_key(DataType::UInt16, b"65535"), Ok(65535));
        for bad in ["", "-", "1.0", "12a", "0x10", "1 2"] {
            assert!(
                int(DataType::Int32, bad)
                    .unwrap_err()
                    .contains("not a valid"),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn floats() {
        let f = |s: &str| parse_key(DataType::Float64, s.as_bytes()).map(float_from_key);
        assert_eq!(f("1.5"), Ok(1.5));
        assert_eq!(f("-2e3"), Ok(-2000.0));
        assert_eq!(f("inf"), Ok(f64::INFINITY));
        assert!(f("NaN").unwrap().is_nan());
        assert!(f("1e999").unwrap_err().contains("out of range"));
        assert!(f("abc").is_err());
        let f32v = parse_key(DataType::Float32, b"0.1").map(float_from_key);
        assert_eq!(f32v, Ok(0.1f32 as f64));
        assert!(parse_key(DataType::Float32, b"1e39").is_err());
    }

    #[test]
    fn bools() {
        assert_eq!(parse_key(DataType::Bool, b"TRUE"), Ok(1));
        assert_eq!(parse_key(DataType::Bool, b"f"), Ok(0));
        assert_eq!(parse_key(DataType::Bool, b"0"), Ok(0));
        assert!(parse_key(DataType::Bool, b"maybe").is_err());
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date(b"1970-01-01"), Ok(0));
        assert_eq!(parse_date(b"2013-07-15"), Ok(15901));
        assert_eq!(parse_date(b"1969-12-31"), Ok(-1));
        assert_eq!(parse_date(b"2000-02-29"), Ok(11016));
        assert_eq!(parse_date(b"0001-01-01"), Ok(-719162));
        for bad in [
            "2001-02-29",
            "2013-13-01",
            "2013-00-10",
            "2013-7-15",
            "2013-07-15x",
            "20130715",
            "",
        ] {
            assert!(parse_date(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn timestamps() {
        // Seconds, as the microseconds the parser returns.
        let t = |s: &str| parse_timestamp(s.as_bytes()).map(|us| us as f64 / 1e6);
        assert_eq!(t("1970-01-01 00:00:00"), Ok(0.0));
        assert_eq!(t("2013-07-14 20:38:47"), Ok(1373834327.0));
        assert_eq!(t("2013-07-14T20:38:47"), Ok(1373834327.0));
        assert_eq!(t("2013-07-14 20:38:47.999"), Ok(1373834327.999));
        assert_eq!(t("2013-07-14 20:38:47.12"), Ok(1373834327.12));
        assert_eq!(t("2013-07-14 20:38:47.1234569"), Ok(1373834327.123456));
        assert_eq!(t("2013-07-14 20:38"), Ok(1373834280.0));
        assert_eq!(t("2013-07-14"), Ok(1373760000.0));
        assert_eq!(t("2013-07-14T20:38:47Z"), Ok(1373834327.0));
        assert_eq!(t("2013-07-14T22:38:47.5+02:00"), Ok(1373834327.5));
        assert_eq!(t("2013-07-14T18:38:47-0200"), Ok(1373834327.0));
        assert_eq!(t("1969-12-31 23:59:59"), Ok(-1.0));
        assert_eq!(parse_timestamp(b"1969-12-31 23:59:59.999999"), Ok(-1));
        for bad in [
            "2013-07-14 24:00:00",
            "2013-07-14 20:61:00",
            "2013-07-14 20:38:47.",
            "2013-07-14 20:38:47 UTC",
            "2013-07-14X20:38:47",
            "1373834327",
        ] {
            assert!(t(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn decimals_are_exact() {
        let d = |s: &str| parse_decimal(s.as_bytes(), 10, 2);
        assert_eq!(d("123.45"), Ok(12345));
        assert_eq!(d("-0.1"), Ok(-10));
        assert_eq!(d("7"), Ok(700));
        assert_eq!(d(".5"), Ok(50));
        assert_eq!(d("5."), Ok(500));
        assert_eq!(d("1.005"), Ok(101));
        assert_eq!(d("1.004"), Ok(100));
        assert_eq!(d("-1.005"), Ok(-101));
        assert_eq!(d("99999999.99"), Ok(9999999999));
        assert!(d("100000000").unwrap_err().contains("out of range"));
        assert!(d("99999999.995").unwrap_err().contains("out of range"));
        for bad in ["", ".", "1.2.3", "1e5", "abc", "--1"] {
            assert!(d(bad).unwrap_err().contains("not a valid"), "{bad}");
        }
        // 0.1 + 0.2 style values stay exact at full precision.
        assert_eq!(
            parse_decimal(b"123456789012345678", 18, 0),
            Ok(123456789012345678)
        );
        assert_eq!(
            parse_decimal(b"0.300000000000000001", 18, 18),
            Ok(300000000000000001)
        );
    }

    #[test]
    fn days_from_civil_matches_known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11017);
        assert_eq!(days_from_civil(1900, 1, 1), -25567);
    }
}
