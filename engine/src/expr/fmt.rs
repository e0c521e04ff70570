//! `format(fmt, ...)` (the `{}` syntax of the fmt library, as DuckDB) and
//! `printf(fmt, ...)` (C's `%` syntax). Values are integers, floats
//! (DECIMALs are formatted as DOUBLEs, as DuckDB does) or text (strings,
//! booleans, dates and the rest, as their VARCHAR casts).

use crate::error::{EngineError, Result};

/// One argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// An integer.
    Int(i128),
    /// A float.
    Float(f64),
    /// Text.
    Text(String),
}

impl Arg {
    fn type_name(&self) -> &'static str {
        match self {
            Arg::Int(_) => "int",
            Arg::Float(_) => "float",
            Arg::Text(_) => "string",
        }
    }
}

fn err(msg: String) -> EngineError {
    EngineError::Runtime(format!("Invalid Input Error: {msg}"))
}

fn bad_type(t: char, a: &Arg) -> EngineError {
    err(format!(
        "Invalid type specifier \"{t}\" for formatting a value of type {}",
        a.type_name()
    ))
}

/// A parsed format specification.
#[derive(Debug, Default, Clone)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    group: Option<char>,
    ty: Option<char>,
}

/// Text formatted to `{:e}` with C's exponent (`1.5e+03`).
fn exp_text(x: f64, prec: usize, upper: bool) -> String {
    let s = format!("{x:.prec$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let out = format!(
        "{m}e{}{:02}",
        if e < 0 { '-' } else { '+' },
        e.unsigned_abs()
    );
    if upper {
        out.to_uppercase()
    } else {
        out
    }
}

/// C's `%g`.
fn general_text(x: f64, prec: Option<usize>, alt: bool, upper: bool) -> String {
    let p = prec.unwrap_or(6).max(1);
    if x == 0.0 {
        let z = if alt {
            format!("{:.*}", p - 1, 0.0)
        } else {
            "0".into()
        };
        return if x.is_sign_negative() {
            format!("-{z}")
        } else {
            z
        };
    }
    let e = format!("{:.*e}", p - 1, x);
    let exp: i32 = e
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let mut s = if exp < -4 || exp >= p as i32 {
        exp_text(x, p - 1, upper)
    } else {
        format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, x)
    };
    if !alt {
        // Trailing zeros of the fraction go.
        let (m, rest) = match s.find(['e', 'E']) {
            Some(i) => (s[..i].to_string(), s[i..].to_string()),
            None => (s.clone(), String::new()),
        };
        let m = if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            m
        };
        s = m + &rest;
    }
    s
}

fn special(x: f64, upper: bool) -> Option<String> {
    let s = if x.is_nan() {
        "nan"
    } else if x.is_infinite() {
        if x > 0.0 {
            "inf"
        } else {
            "-inf"
        }
    } else {
        return None;
    };
    Some(if upper { s.to_uppercase() } else { s.into() })
}

/// Groups the integer digits of `digits` (optionally signed, possibly with
/// a fraction) by threes with `sep`.
fn group_digits(digits: &str, sep: char) -> String {
    let (sign, rest) = match digits.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", digits),
    };
    let (int, frac) = match rest.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(sep);
        }
        out.push(c);
    }
    format!("{sign}{out}{frac}")
}

/// The body of one value under `spec` (before padding), and whether it is
/// numeric (zero padding and right alignment apply).
fn body(spec: &Spec, a: &Arg, printf: bool) -> Result<(String, bool)> {
    let t = spec.ty;
    let sign = |neg: bool| {
        if neg {
            "-"
        } else if spec.plus {
            "+"
        } else if spec.space {
            " "
        } else {
            ""
        }
    };
    Ok(match a {
        Arg::Int(x) => {
            let mag = x.unsigned_abs();
            let digits = match t {
                None | Some('d' | 'i' | 'u') => {
                    let d = mag.to_string();
                    match spec.group {
                        Some(g) => group_digits(&d, g),
                        None => d,
                    }
                }
                Some('x') => {
                    let v = if printf && *x < 0 {
                        (*x as i64 as u64) as u128
                    } else {
                        mag
                    };
                    format!("{}{v:x}", if spec.alt { "0x" } else { "" })
                }
                Some('X') => {
                    let v = if printf && *x < 0 {
                        (*x as i64 as u64) as u128
                    } else {
                        mag
                    };
                    format!("{}{v:X}", if spec.alt { "0X" } else { "" })
                }
                Some('o') => format!("{}{mag:o}", if spec.alt { "0" } else { "" }),
                Some('b') if !printf => format!("{}{mag:b}", if spec.alt { "0b" } else { "" }),
                Some('c') => {
                    let c = u32::try_from(*x)
                        .ok()
                        .and_then(char::from_u32)
                        .unwrap_or('\u{fffd}');
                    return Ok((c.to_string(), false));
                }
                Some(c) => return Err(bad_type(c, a)),
            };
            let neg = *x < 0 && !(printf && matches!(t, Some('x' | 'X')));
            (format!("{}{digits}", sign(neg)), true)
        }
        Arg::Float(x) => {
            let upper = matches!(t, Some('E' | 'F' | 'G'));
            let neg = x.is_sign_negative() && !x.is_nan();
            let mag = x.abs();
            let digits = match special(mag, upper) {
                Some(s) => s,
                None => match t {
                    None if spec.precision.is_none() => crate::value::format_float_text(mag, false),
                    None => general_text(mag, spec.precision, spec.alt, false),
                    Some('f' | 'F') => format!("{:.*}", spec.precision.unwrap_or(6), mag),
                    Some('e' | 'E') => exp_text(mag, spec.precision.unwrap_or(6), upper),
                    Some('g' | 'G') => general_text(mag, spec.precision, spec.alt, upper),
                    Some(c) => return Err(bad_type(c, a)),
                },
            };
            let digits = match spec.group {
                Some(g) => group_digits(&digits, g),
                None => digits,
            };
            (format!("{}{digits}", sign(neg)), true)
        }
        Arg::Text(s) => {
            match t {
                None | Some('s') => {}
                Some(c) => return Err(bad_type(c, a)),
            }
            let s = match spec.precision {
                Some(p) => s.chars().take(p).collect(),
                None => s.clone(),
            };
            (s, false)
        }
    })
}

/// Pads a formatted value to the spec's width.
fn pad(spec: &Spec, body: String, numeric: bool) -> String {
    let len = body.chars().count();
    if len >= spec.width {
        return body;
    }
    let n = spec.width - len;
    if spec.zero && spec.align.is_none() && numeric {
        let (sign, rest) = match body.chars().next() {
            Some(c @ ('-' | '+' | ' ')) => (c.to_string(), body[1..].to_string()),
            _ => (String::new(), body),
        };
        let (prefix, rest) = match rest.get(..2) {
            Some(p @ ("0x" | "0X" | "0b")) => (p.to_string(), rest[2..].to_string()),
            _ => (String::new(), rest),
        };
        return format!("{sign}{prefix}{}{rest}", "0".repeat(n));
    }
    let fill = spec.fill.unwrap_or(' ').to_string();
    let align = spec.align.unwrap_or(if numeric { '>' } else { '<' });
    match align {
        '>' => format!("{}{body}", fill.repeat(n)),
        '^' => format!("{}{body}{}", fill.repeat(n / 2), fill.repeat(n - n / 2)),
        _ => format!("{body}{}", fill.repeat(n)),
    }
}

fn arg_at(args: &[Arg], i: usize) -> Result<&Arg> {
    args.get(i)
        .ok_or_else(|| err(format!("Argument index \"{i}\" out of range")))
}

fn parse_num(cs: &[char], i: &mut usize) -> Option<usize> {
    let start = *i;
    while *i < cs.len() && cs[*i].is_ascii_digit() {
        *i += 1;
    }
    (start < *i).then(|| cs[start..*i].iter().collect::<String>().parse().ok())?
}

/// `format(fmt, args...)`.
pub fn format(fmt: &str, args: &[Arg]) -> Result<String> {
    let cs: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut next = 0;
    let mut i = 0;
    let bad = || err(format!("Invalid format string {fmt:?}"));
    while i < cs.len() {
        match cs[i] {
            '{' if cs.get(i + 1) == Some(&'{') => {
                out.push('{');
                i += 2;
            }
            '}' if cs.get(i + 1) == Some(&'}') => {
                out.push('}');
                i += 2;
            }
            '}' => return Err(bad()),
            '{' => {
                i += 1;
                let idx = match parse_num(&cs, &mut i) {
                    Some(k) => k,
                    None => {
                        next += 1;
                        next - 1
                    }
                };
                let mut spec = Spec::default();
                if cs.get(i) == Some(&':') {
                    i += 1;
                    let is_align = |c: Option<&char>| matches!(c, Some('<' | '>' | '^'));
                    if is_align(cs.get(i + 1)) && cs.get(i) != Some(&'}') {
                        spec.fill = cs.get(i).copied();
                        spec.align = cs.get(i + 1).copied();
                        i += 2;
                    } else if is_align(cs.get(i)) {
                        spec.align = cs.get(i).copied();
                        i += 1;
                    }
                    match cs.get(i) {
                        Some('+') => {
                            spec.plus = true;
                            i += 1;
                        }
                        Some(' ') => {
                            spec.space = true;
                            i += 1;
                        }
                        Some('-') => i += 1,
                        _ => {}
                    }
                    if cs.get(i) == Some(&'#') {
                        spec.alt = true;
                        i += 1;
                    }
                    if cs.get(i) == Some(&'0') {
                        spec.zero = true;
                        i += 1;
                    }
                    spec.width = parse_num(&cs, &mut i).unwrap_or(0);
                    if let Some(&g @ (',' | '_')) = cs.get(i) {
                        spec.group = Some(g);
                        i += 1;
                    }
                    if cs.get(i) == Some(&'.') {
                        i += 1;
                        spec.precision = Some(parse_num(&cs, &mut i).ok_or_else(bad)?);
                    }
                    if let Some(&c) = cs.get(i).filter(|c| c.is_ascii_alphabetic()) {
                        spec.ty = Some(c);
                        i += 1;
                    }
                }
                if cs.get(i) != Some(&'}') {
                    return Err(bad());
                }
                i += 1;
                let a = arg_at(args, idx)?;
                if spec.precision.is_some() && matches!(a, Arg::Int(_)) {
                    return Err(err("precision not allowed for this argument type".into()));
                }
                let (b, numeric) = body(&spec, a, false)?;
                out.push_str(&pad(&spec, b, numeric));
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// `printf(fmt, args...)`.
pub fn printf(fmt: &str, args: &[Arg]) -> Result<String> {
    let cs: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut next = 0;
    let mut i = 0;
    while i < cs.len() {
        if cs[i] != '%' {
            out.push(cs[i]);
            i += 1;
            continue;
        }
        i += 1;
        if cs.get(i) == Some(&'%') {
            out.push('%');
            i += 1;
            continue;
        }
        let mut spec = Spec::default();
        let mut left = false;
        while let Some(&c) = cs.get(i) {
            match c {
                '-' => left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '#' => spec.alt = true,
                '0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if left {
            spec.align = Some('<');
            spec.zero = false;
        }
        spec.width = parse_num(&cs, &mut i).unwrap_or(0);
        if cs.get(i) == Some(&'.') {
            i += 1;
            spec.precision = Some(parse_num(&cs, &mut i).unwrap_or(0));
        }
        // Length modifiers mean nothing here.
        while matches!(cs.get(i), Some('l' | 'h' | 'z' | 'j' | 't' | 'L')) {
            i += 1;
        }
        let a = arg_at(args, next)?;
        next += 1;
        let Some(&t) = cs.get(i) else {
            return Err(err(format!("Invalid format string {fmt:?}")));
        };
        i += 1;
        spec.ty = Some(t);
        let (b, numeric) = match (t, a) {
            ('d' | 'i' | 'u' | 'x' | 'X' | 'o' | 'c', Arg::Int(_))
            | ('f' | 'F' | 'e' | 'E' | 'g' | 'G', Arg::Float(_))
            | ('s', Arg::Text(_)) => body(&spec, a, true)?,
            _ => return Err(bad_type(t, a)),
        };
        if !numeric {
            spec.zero = false;
            // C right-aligns text too.
            spec.align.get_or_insert('>');
        }
        out.push_str(&pad(&spec, b, numeric));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Arg {
        Arg::Text(s.into())
    }

    // Expected strings from DuckDB.
    #[test]
    fn format_as_duckdb() {
        let f = |s: &str, a: &[Arg]| format(s, a).unwrap();
        assert_eq!(
            f("{} + {} = {}", &[Arg::Int(1), Arg::Int(2), t("x")]),
            "1 + 2 = x"
        );
        assert_eq!(f("{:.2f}", &[Arg::Float(3.14158)]), "3.14");
        assert_eq!(f("{:>5}", &[t("ab")]), "   ab");
        assert_eq!(f("{:05d}", &[Arg::Int(42)]), "00042");
        assert_eq!(f("{0} {0}", &[t("a")]), "a a");
        assert_eq!(f("{:,}", &[Arg::Int(1234567)]), "1,234,567");
        assert_eq!(f("{:x}", &[Arg::Int(255)]), "ff");
        assert_eq!(f("{:e}", &[Arg::Float(1234.5)]), "1.234500e+03");
        assert_eq!(f("{}", &[Arg::Float(100.0)]), "100.0");
        assert_eq!(f("{}", &[Arg::Float(1e16)]), "1e+16");
        assert_eq!(
            f(
                "{:10}|{:<10}|{:^10}|{:*>6}",
                &[t("ab"), Arg::Int(5), t("x"), Arg::Int(7)]
            ),
            "ab        |5         |    x     |*****7"
        );
        assert_eq!(f("{:+}", &[Arg::Int(5)]), "+5");
        assert_eq!(f("{:#x}", &[Arg::Int(255)]), "0xff");
        assert_eq!(f("{:b}", &[Arg::Int(5)]), "101");
        assert_eq!(f("{:10.3f}", &[Arg::Float(3.14158)]), "     3.142");
        assert_eq!(f("{:e}", &[Arg::Float(0.0)]), "0.000000e+00");
        assert_eq!(f("{:g}", &[Arg::Float(1234567.0)]), "1.23457e+06");
        assert_eq!(f("{:.2}", &[t("abcdef")]), "ab");
        assert_eq!(f("{{}}", &[]), "{}");
        assert_eq!(f("{:08.3f}", &[Arg::Float(-3.14158)]), "-003.142");
        assert_eq!(f("{:,}", &[Arg::Float(-1234567.5)]), "-1,234,567.5");
        assert_eq!(f("{:_}", &[Arg::Int(1234567)]), "1_234_567");
        assert!(format("{:d}", &[Arg::Float(2.5)]).is_err());
        assert!(format("{} {}", &[Arg::Int(1)]).is_err());
    }

    #[test]
    fn printf_as_duckdb() {
        let p = |s: &str, a: &[Arg]| printf(s, a).unwrap();
        assert_eq!(
            p("%d %s %.2f", &[Arg::Int(1), t("x"), Arg::Float(3.14158)]),
            "1 x 3.14"
        );
        assert_eq!(p("%5d|%-5s|", &[Arg::Int(42), t("ab")]), "   42|ab   |");
        assert_eq!(p("%%", &[]), "%");
        assert_eq!(
            p(
                "%x %X %o %e",
                &[
                    Arg::Int(255),
                    Arg::Int(255),
                    Arg::Int(8),
                    Arg::Float(12345.678)
                ]
            ),
            "ff FF 10 1.234568e+04"
        );
        assert_eq!(p("%c", &[Arg::Int(65)]), "A");
        assert_eq!(p("%05.1f", &[Arg::Float(3.14158)]), "003.1");
        assert_eq!(p("%+d", &[Arg::Int(5)]), "+5");
        assert_eq!(p("%5s", &[t("true")]), " true");
        assert_eq!(p("%g", &[Arg::Float(0.0001)]), "0.0001");
        assert_eq!(p("%G", &[Arg::Float(1e20)]), "1E+20");
        assert!(printf("%s", &[Arg::Int(5)]).is_err());
        assert!(printf("%d", &[]).is_err());
    }
}
