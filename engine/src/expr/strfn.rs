//! Scalar string functions, evaluated element by element (over a column's
//! distinct values when they are the only input, so once per distinct
//! string). Invalid UTF-8 never fails: it is handled byte-wise.

use rayon::prelude::*;

use crate::error::{invalid, EngineError, Result};
use crate::expr::text;
use crate::value::{decimal_to_f64, Data, LType, Value, Vector};

/// Strings per parallel task of a regular expression over many strings.
const REGEX_PART: usize = 1024;

/// A compiled regular expression (compared by its pattern).
#[derive(Debug, Clone)]
pub struct Re {
    /// The pattern as written.
    pub pattern: String,
    re: regex::bytes::Regex,
}

impl PartialEq for Re {
    fn eq(&self, other: &Re) -> bool {
        self.pattern == other.pattern
    }
}

impl Re {
    /// Compiles a pattern with RE2 semantics (`.` does not match `\n`).
    pub fn new(pattern: &str) -> Result<Re> {
        Re::with_options(pattern, &ReOptions::default())
    }

    /// Compiles a pattern with DuckDB's options (see [`ReOptions`]).
    pub fn with_options(pattern: &str, o: &ReOptions) -> Result<Re> {
        let text = if o.literal {
            regex::escape(pattern)
        } else {
            pattern.to_string()
        };
        let text = if o.full {
            format!(r"\A(?:{text})\z")
        } else {
            text
        };
        let re = regex::bytes::RegexBuilder::new(&text)
            .case_insensitive(o.case_insensitive)
            .dot_matches_new_line(o.dot_all)
            .build()
            .map_err(|e| EngineError::Invalid(format!("invalid regular expression: {e}")))?;
        Ok(Re { pattern: text, re })
    }
}

impl Re {
    /// The pieces of `text` between matches, as RE2 splits for DuckDB:
    /// an empty match splits between characters, but not at either end.
    pub fn split<'a>(&self, text: &'a [u8]) -> Vec<&'a [u8]> {
        let mut out = Vec::new();
        let mut start = 0;
        for m in self.re.find_iter(text) {
            if m.is_empty() && (m.start() == 0 || m.start() == text.len()) {
                continue;
            }
            out.push(&text[start..m.start()]);
            start = m.end();
        }
        out.push(&text[start..]);
        out
    }
}

/// The options of DuckDB's regular expression functions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReOptions {
    /// `'i'`: case-insensitive (`'c'` turns it off).
    pub case_insensitive: bool,
    /// `'s'`: `.` matches a newline too.
    pub dot_all: bool,
    /// `'l'`: the pattern is literal text.
    pub literal: bool,
    /// `'g'`: replace every match (`regexp_replace`).
    pub global: bool,
    /// The whole string must match (`regexp_full_match`, `SIMILAR TO`).
    pub full: bool,
}

impl ReOptions {
    /// Parses DuckDB's option letters.
    pub fn parse(text: &[u8]) -> Result<ReOptions> {
        let mut o = ReOptions::default();
        for &c in text {
            match c {
                b'i' => o.case_insensitive = true,
                b'c' => o.case_insensitive = false,
                b's' => o.dot_all = true,
                b'm' | b'n' | b'p' => o.dot_all = false,
                b'l' => o.literal = true,
                b'g' => o.global = true,
                b' ' => {}
                other => {
                    return invalid(format!("Unrecognized Regex option {}", char::from(other)))
                }
            }
        }
        Ok(o)
    }
}

/// The string functions.
#[derive(Debug, Clone, PartialEq)]
pub enum StrFn {
    /// `length`: characters.
    Length,
    /// `lower`.
    Lower,
    /// `upper`.
    Upper,
    /// `substring(s, start[, len])` (characters, 1-based).
    Substring,
    /// `concat(...)`: NULL arguments are skipped.
    Concat,
    /// `a || b`: NULL if either is.
    ConcatOp,
    /// `trim` / `ltrim` / `rtrim` (left, right), of spaces or of the
    /// characters of a second argument.
    Trim(bool, bool),
    /// `starts_with(s, prefix)`.
    StartsWith,
    /// `ends_with(s, suffix)`.
    EndsWith,
    /// `contains(s, needle)`.
    Contains,
    /// `regexp_replace(s, pattern, replacement[, 'g'])` with the
    /// replacement in the regex crate's syntax; `true` replaces all.
    RegexpReplace(Box<Re>, Vec<u8>, bool),
    /// `regexp_matches(s, pattern)` (and `regexp_full_match`, `~`,
    /// `SIMILAR TO`, with the pattern anchored).
    RegexpMatches(Box<Re>),
    /// `regexp_extract(s, pattern[, group])`: the group of the first match,
    /// or the empty string.
    RegexpExtract(Box<Re>, usize),
    /// `replace(s, from, to)`.
    Replace,
    /// `split_part(s, delimiter, index)`.
    SplitPart,
    /// `strpos(s, needle)` / `instr` / `position(needle IN s)`.
    Strpos,
    /// `left(s, n)`.
    Left,
    /// `right(s, n)`.
    Right,
    /// `reverse(s)`.
    Reverse,
    /// `lpad(s, n, pad)` (`true`) or `rpad`.
    Pad(bool),
    /// `repeat(s, n)`.
    Repeat,
    /// `translate(s, from, to)`.
    Translate,
    /// `concat_ws(separator, ...)`: NULL arguments are skipped.
    ConcatWs,
    /// `format(fmt, ...)`.
    Format,
    /// `printf(fmt, ...)`.
    Printf,
    /// `md5(s)` in hexadecimal.
    Md5,
    /// `sha256(s)` in hexadecimal.
    Sha256,
    /// `ascii(s)`: the first character's code point.
    Ascii,
    /// `chr(n)`: the character of code point `n`.
    Chr,
}

impl StrFn {
    /// Whether the function is NULL whenever an argument is, as in DuckDB:
    /// all but `concat` and `concat_ws`, which skip NULL arguments.
    pub fn propagates_null(&self) -> bool {
        !matches!(self, StrFn::Concat | StrFn::ConcatWs)
    }

    /// The SQL name.
    pub fn name(&self) -> &'static str {
        match self {
            StrFn::Length => "length",
            StrFn::Lower => "lower",
            StrFn::Upper => "upper",
            StrFn::Substring => "substring",
            StrFn::Concat => "concat",
            StrFn::ConcatOp => "||",
            StrFn::Trim(true, true) => "trim",
            StrFn::Trim(true, false) => "ltrim",
            StrFn::Trim(..) => "rtrim",
            StrFn::StartsWith => "starts_with",
            StrFn::EndsWith => "ends_with",
            StrFn::Contains => "contains",
            StrFn::RegexpReplace(..) => "regexp_replace",
            StrFn::RegexpMatches(_) => "regexp_matches",
            StrFn::RegexpExtract(..) => "regexp_extract",
            StrFn::Replace => "replace",
            StrFn::SplitPart => "split_part",
            StrFn::Strpos => "strpos",
            StrFn::Left => "left",
            StrFn::Right => "right",
            StrFn::Reverse => "reverse",
            StrFn::Pad(true) => "lpad",
            StrFn::Pad(false) => "rpad",
            StrFn::Repeat => "repeat",
            StrFn::Translate => "translate",
            StrFn::ConcatWs => "concat_ws",
            StrFn::Format => "format",
            StrFn::Printf => "printf",
            StrFn::Md5 => "md5",
            StrFn::Sha256 => "sha256",
            StrFn::Ascii => "ascii",
            StrFn::Chr => "chr",
        }
    }

    /// The type argument `i` is cast to (`None`: any type, kept).
    pub fn arg_type(&self, i: usize) -> Option<LType> {
        match (self, i) {
            (StrFn::Format | StrFn::Printf, 1..) => None,
            (StrFn::Substring, 1..)
            | (StrFn::SplitPart, 2)
            | (StrFn::Left | StrFn::Right | StrFn::Repeat | StrFn::Pad(_), 1)
            | (StrFn::Chr, 0) => Some(LType::Int64),
            _ => Some(LType::Varchar),
        }
    }

    /// Whether any argument type is cast to VARCHAR (not only strings).
    pub fn casts_anything(&self) -> bool {
        matches!(self, StrFn::Concat | StrFn::ConcatOp | StrFn::ConcatWs)
    }
}

/// `hay` with the first match of `re` replaced by `rep` (as
/// [`translate_replacement`] writes it), like `Regex::replace` but reusing
/// the capture locations `locs` instead of allocating captures per string.
fn replace_first(
    re: &regex::bytes::Regex,
    locs: &mut regex::bytes::CaptureLocations,
    hay: &[u8],
    rep: &[u8],
) -> Vec<u8> {
    let Some(m) = re.captures_read(locs, hay) else {
        return hay.to_vec();
    };
    let mut out = Vec::with_capacity(hay.len());
    out.extend_from_slice(&hay[..m.start()]);
    let mut i = 0;
    while i < rep.len() {
        if rep[i] == b'$' {
            match rep.get(i + 1) {
                Some(b'$') => {
                    out.push(b'$');
                    i += 2;
                    continue;
                }
                Some(b'{') => {
                    let name = &rep[i + 2..];
                    if let Some(end) = name.iter().position(|&c| c == b'}') {
                        let group = std::str::from_utf8(&name[..end])
                            .ok()
                            .and_then(|t| t.parse::<usize>().ok());
                        if let Some(g) = group {
                            if let Some((a, b)) = locs.get(g) {
                                out.extend_from_slice(&hay[a..b]);
                            }
                            i += 3 + end;
                            continue;
                        }
                    }
                }
                _ => {}
            }
        }
        out.push(rep[i]);
        i += 1;
    }
    out.extend_from_slice(&hay[m.end()..]);
    out
}

/// Translates a DuckDB (RE2) replacement string to the regex crate's:
/// `\1` becomes `${1}`, `\\` a backslash, `$` a literal dollar.
pub fn translate_replacement(r: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(r.len() + 4);
    let mut i = 0;
    while i < r.len() {
        match r[i] {
            b'\\' if i + 1 < r.len() && r[i + 1].is_ascii_digit() => {
                out.extend_from_slice(format!("${{{}}}", r[i + 1] - b'0').as_bytes());
                i += 2;
            }
            b'\\' if i + 1 < r.len() && r[i + 1] == b'\\' => {
                out.push(b'\\');
                i += 2;
            }
            b'$' => {
                out.extend_from_slice(b"$$");
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The result type of `f` (arguments already checked by the binder).
pub fn result_type(f: &StrFn) -> LType {
    match f {
        StrFn::Length | StrFn::Strpos => LType::Int64,
        StrFn::Ascii => LType::Int32,
        StrFn::StartsWith | StrFn::EndsWith | StrFn::Contains | StrFn::RegexpMatches(_) => {
            LType::Bool
        }
        _ => LType::Varchar,
    }
}

/// Checks the argument count of `f`.
pub fn check_arity(f: &StrFn, n: usize) -> Result<()> {
    let ok = match f {
        StrFn::Length
        | StrFn::Lower
        | StrFn::Upper
        | StrFn::RegexpMatches(_)
        | StrFn::RegexpReplace(..)
        | StrFn::RegexpExtract(..)
        | StrFn::Reverse
        | StrFn::Md5
        | StrFn::Sha256
        | StrFn::Ascii
        | StrFn::Chr => n == 1,
        StrFn::Substring => n == 2 || n == 3,
        StrFn::Concat | StrFn::Format | StrFn::Printf => n >= 1,
        StrFn::ConcatOp | StrFn::ConcatWs => n >= 2,
        StrFn::StartsWith
        | StrFn::EndsWith
        | StrFn::Contains
        | StrFn::Strpos
        | StrFn::Left
        | StrFn::Right
        | StrFn::Repeat => n == 2,
        StrFn::Replace | StrFn::SplitPart | StrFn::Pad(_) | StrFn::Translate => n == 3,
        StrFn::Trim(..) => n == 1 || n == 2,
    };
    if ok {
        Ok(())
    } else {
        invalid(format!("wrong number of arguments to {}()", f.name()))
    }
}

fn map_chars(s: &[u8], upper: bool) -> Vec<u8> {
    if s.is_ascii() {
        return if upper {
            s.to_ascii_uppercase()
        } else {
            s.to_ascii_lowercase()
        };
    }
    let Ok(t) = std::str::from_utf8(s) else {
        return if upper {
            s.to_ascii_uppercase()
        } else {
            s.to_ascii_lowercase()
        };
    };
    // Character by character with Unicode's simple (one-to-one) case
    // mapping, as DuckDB (utf8proc). Rust gives the full mapping, which
    // differs only where it is several characters: there the simple
    // mapping is one of a few below, or the character itself.
    fn single(mut it: impl Iterator<Item = char>, c: char) -> char {
        match (it.next(), it.next()) {
            (Some(m), None) => m,
            _ => c,
        }
    }
    fn simple_upper(c: char) -> char {
        let cp = c as u32;
        let mapped = match cp {
            0xDF => 0x1E9E,
            // Greek with ypogegrammeni: to the prosgegrammeni capital.
            0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => cp + 8,
            0x1FB3 | 0x1FC3 | 0x1FF3 => cp + 9,
            _ => return single(c.to_uppercase(), c),
        };
        char::from_u32(mapped).unwrap_or(c)
    }
    fn simple_lower(c: char) -> char {
        match c {
            '\u{130}' => 'i',
            _ => single(c.to_lowercase(), c),
        }
    }
    let mut out = String::with_capacity(t.len());
    for c in t.chars() {
        out.push(match c {
            _ if c.is_ascii() && upper => c.to_ascii_uppercase(),
            _ if c.is_ascii() => c.to_ascii_lowercase(),
            _ if upper => simple_upper(c),
            _ => simple_lower(c),
        });
    }
    out.into_bytes()
}

/// The number of characters of `s` (UTF-8; stray bytes count as one): its
/// bytes that do not continue a character.
fn char_count(s: &[u8]) -> usize {
    s.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

fn substring(s: &[u8], start: i64, len: Option<i64>) -> &[u8] {
    // Characters start where a byte is not a UTF-8 continuation byte; in
    // ASCII at every byte.
    let ascii = s.is_ascii();
    let n = if ascii {
        s.len() as i64
    } else {
        s.iter().filter(|&&b| b & 0xC0 != 0x80).count() as i64
    };
    let start = if start < 0 { n + start + 1 } else { start };
    let end = match len {
        Some(l) => start.saturating_add(l),
        None => n + 1,
    };
    let (lo, hi) = if end < start {
        (end, start)
    } else {
        (start, end)
    };
    let (lo, hi) = (lo.max(1), hi.min(n + 1));
    if lo >= hi {
        return &[];
    }
    // The byte of character k (0-based, below n).
    let at = |k: usize| {
        if ascii {
            k
        } else {
            (0..s.len())
                .filter(|&i| s[i] & 0xC0 != 0x80)
                .nth(k)
                .unwrap_or(s.len())
        }
    };
    let b = at((lo - 1) as usize);
    let e = if hi > n {
        s.len()
    } else {
        at((hi - 1) as usize)
    };
    &s[b..e]
}

fn trim(s: &[u8], chars: Option<&[u8]>, left: bool, right: bool) -> Vec<u8> {
    let set: Vec<char> = match chars {
        Some(c) => String::from_utf8_lossy(c).chars().collect(),
        None => vec![' '],
    };
    match std::str::from_utf8(s) {
        Ok(t) => {
            let mut t = t;
            if left {
                t = t.trim_start_matches(set.as_slice());
            }
            if right {
                t = t.trim_end_matches(set.as_slice());
            }
            t.as_bytes().to_vec()
        }
        Err(_) => {
            let ascii: Vec<u8> = set.iter().filter_map(|c| u8::try_from(*c).ok()).collect();
            let mut a = 0;
            let mut b = s.len();
            if left {
                while a < b && ascii.contains(&s[a]) {
                    a += 1;
                }
            }
            if right {
                while b > a && ascii.contains(&s[b - 1]) {
                    b -= 1;
                }
            }
            s[a..b].to_vec()
        }
    }
}

/// A value of type `ty` as an argument of `format`/`printf`: DuckDB
/// formats DECIMALs and FLOATs as DOUBLEs, everything that is not a number
/// as its text.
fn fmt_arg(ty: LType, v: &Value) -> crate::expr::fmt::Arg {
    use crate::expr::fmt::Arg;
    match (ty, v) {
        (LType::Decimal(_, s), Value::Int(x)) => Arg::Float(decimal_to_f64(i128::from(*x), s)),
        (LType::Decimal(_, s), Value::Huge(x)) => Arg::Float(decimal_to_f64(*x, s)),
        (t, Value::Int(x)) if t.is_integer() => Arg::Int(i128::from(*x)),
        (_, Value::UInt(x)) => Arg::Int(i128::from(*x)),
        (LType::HugeInt, Value::Huge(x)) => Arg::Int(*x),
        (_, Value::Float(x)) => Arg::Float(*x),
        (t, v) => Arg::Text(match crate::expr::cast_value(v, t, LType::Varchar) {
            Ok(Value::Str(s)) => String::from_utf8_lossy(&s).into_owned(),
            _ => crate::value::format_value(t, v),
        }),
    }
}

/// Evaluates `f` over argument vectors of `len` rows.
pub fn eval_strfn(f: &StrFn, args: &[&Vector], len: usize) -> Result<Vector> {
    let ty = result_type(f);
    // Fast paths over one string vector.
    if let [a] = args {
        if let Data::Str(s) = &a.data {
            let data = match f {
                StrFn::Length => Some(Data::I64(s.iter().map(|x| char_count(x) as i64).collect())),
                StrFn::Lower | StrFn::Upper => Some(Data::Str(
                    s.iter().map(|x| map_chars(x, *f == StrFn::Upper)).collect(),
                )),
                // Regular expressions cost about a microsecond per string:
                // a block's values are split over the threads, so that the
                // last blocks of a query do not leave cores idle.
                StrFn::RegexpMatches(re) => Some(Data::Bool(
                    (0..s.len())
                        .into_par_iter()
                        .map(|i| &s[i])
                        .with_min_len(REGEX_PART)
                        .map(|x| re.re.is_match(x))
                        .collect(),
                )),
                StrFn::RegexpExtract(re, group) => Some(Data::Str(
                    (0..s.len())
                        .into_par_iter()
                        .map(|i| &s[i])
                        .with_min_len(REGEX_PART)
                        .map_init(
                            || re.re.capture_locations(),
                            |locs, x| match re.re.captures_read(locs, x) {
                                Some(_) => locs
                                    .get(*group)
                                    .map_or_else(Vec::new, |(a, b)| x[a..b].to_vec()),
                                None => Vec::new(),
                            },
                        )
                        .collect::<Vec<Vec<u8>>>()
                        .into(),
                )),
                StrFn::Reverse => Some(Data::Str(s.iter().map(text::reverse).collect())),
                StrFn::Md5 => Some(Data::Str(
                    s.iter()
                        .map(|x| {
                            use md5::Digest;
                            text::hex(&md5::Md5::digest(x))
                        })
                        .collect(),
                )),
                StrFn::Sha256 => Some(Data::Str(
                    s.iter()
                        .map(|x| {
                            use sha2::Digest;
                            text::hex(&sha2::Sha256::digest(x))
                        })
                        .collect(),
                )),
                StrFn::Ascii => Some(Data::I64(s.iter().map(text::ascii).collect())),
                StrFn::RegexpReplace(re, rep, true) => Some(Data::Str(
                    (0..s.len())
                        .into_par_iter()
                        .map(|i| &s[i])
                        .with_min_len(REGEX_PART)
                        .map(|x| re.re.replace_all(x, rep.as_slice()).into_owned())
                        .collect::<Vec<Vec<u8>>>()
                        .into(),
                )),
                StrFn::RegexpReplace(re, rep, false) => Some(Data::Str(
                    (0..s.len())
                        .into_par_iter()
                        .map(|i| &s[i])
                        .with_min_len(REGEX_PART)
                        .map_init(
                            || re.re.capture_locations(),
                            |locs, x| replace_first(&re.re, locs, x, rep),
                        )
                        .collect::<Vec<Vec<u8>>>()
                        .into(),
                )),
                _ => None,
            };
            if let Some(data) = data {
                return Ok(Vector {
                    ty,
                    data,
                    nulls: a.nulls.clone(),
                });
            }
        }
    }
    let mut out = Vector::empty(ty, len);
    let mut buf: Vec<u8> = Vec::new();
    for i in 0..len {
        // Arguments read in place (no value copied per row).
        let s = |k: usize| -> Option<&[u8]> {
            let a = args.get(k)?;
            match &a.data {
                Data::Str(d) if !a.is_null(i) => Some(&d[i]),
                _ => None,
            }
        };
        let int = |k: usize| -> Option<i64> {
            let a = args.get(k)?;
            if a.is_null(i) {
                return None;
            }
            match &a.data {
                Data::I64(d) => Some(d[i]),
                Data::U64(d) => i64::try_from(d[i]).ok(),
                Data::I128(d) => i64::try_from(d[i]).ok(),
                _ => None,
            }
        };
        // A string result is a slice of an argument or built in `buf`.
        let mut text: Option<&[u8]> = None;
        let mut built = false;
        let mut other = Value::Null;
        buf.clear();
        match f {
            StrFn::Concat => {
                for k in 0..args.len() {
                    buf.extend_from_slice(s(k).unwrap_or_default());
                }
                built = true;
            }
            StrFn::ConcatWs => {
                if let Some(sep) = s(0) {
                    let mut first = true;
                    for k in 1..args.len() {
                        if let Some(x) = s(k) {
                            if !first {
                                buf.extend_from_slice(sep);
                            }
                            buf.extend_from_slice(x);
                            first = false;
                        }
                    }
                    built = true;
                }
            }
            _ if args.iter().any(|a| a.is_null(i)) => {}
            StrFn::Format | StrFn::Printf => {
                let fmt = String::from_utf8_lossy(s(0).unwrap_or_default());
                let mut fargs = Vec::with_capacity(args.len());
                for a in &args[1..] {
                    fargs.push(fmt_arg(a.ty, &a.get(i)));
                }
                let formatted = if *f == StrFn::Format {
                    crate::expr::fmt::format(&fmt, &fargs)?
                } else {
                    crate::expr::fmt::printf(&fmt, &fargs)?
                };
                buf = formatted.into_bytes();
                built = true;
            }
            StrFn::Replace | StrFn::Translate => {
                if let (Some(a), Some(b), Some(c)) = (s(0), s(1), s(2)) {
                    buf = if *f == StrFn::Replace {
                        text::replace(a, b, c)
                    } else {
                        text::translate(a, b, c)
                    };
                    built = true;
                }
            }
            StrFn::SplitPart => {
                if let (Some(a), Some(d), Some(k)) = (s(0), s(1), int(2)) {
                    buf = text::split_part(a, d, k);
                    built = true;
                }
            }
            StrFn::Strpos => {
                if let (Some(a), Some(b)) = (s(0), s(1)) {
                    other = Value::Int(text::strpos(a, b));
                }
            }
            StrFn::Left | StrFn::Right | StrFn::Repeat => {
                if let (Some(a), Some(n)) = (s(0), int(1)) {
                    buf = match f {
                        StrFn::Left => text::left(a, n)?,
                        StrFn::Right => text::right(a, n)?,
                        _ => text::repeat(a, n)?,
                    };
                    built = true;
                }
            }
            StrFn::Pad(l) => {
                if let (Some(a), Some(n), Some(p)) = (s(0), int(1), s(2)) {
                    buf = text::pad(a, n, p, *l)?;
                    built = true;
                }
            }
            StrFn::Chr => {
                if let Some(n) = int(0) {
                    buf = text::chr(n)?;
                    built = true;
                }
            }
            // `a || b || ...`: NULL when any operand is (checked above).
            StrFn::ConcatOp => {
                for k in 0..args.len() {
                    buf.extend_from_slice(s(k).unwrap_or_default());
                }
                built = true;
            }
            StrFn::Substring => {
                if let Some(x) = s(0) {
                    text = Some(substring(x, int(1).unwrap_or(1), int(2)));
                }
            }
            StrFn::Trim(l, r) => {
                if let Some(x) = s(0) {
                    buf = trim(x, s(1), *l, *r);
                    built = true;
                }
            }
            StrFn::StartsWith | StrFn::EndsWith | StrFn::Contains => {
                if let (Some(a), Some(b)) = (s(0), s(1)) {
                    other = Value::Bool(match f {
                        StrFn::StartsWith => a.starts_with(b),
                        StrFn::EndsWith => a.ends_with(b),
                        _ => b.is_empty() || a.windows(b.len()).any(|w| w == b),
                    });
                }
            }
            _ => {
                return Err(EngineError::Internal(format!(
                    "{}() on non-string input",
                    f.name()
                )));
            }
        }
        if built {
            text = Some(&buf);
        }
        match text {
            Some(t) => out.push_bytes(t),
            None => out.push(&other),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(translate_replacement(br"\1"), b"${1}".to_vec());
        assert_eq!(translate_replacement(b"a$b"), b"a$$b".to_vec());
        assert_eq!(substring(b"hello", 0, Some(2)), b"h");
        assert_eq!(substring(b"hello", 2, Some(3)), b"ell");
        assert_eq!(substring(b"hello", -3, None), b"llo");
        assert_eq!(substring("ёлка".as_bytes(), 2, Some(2)), "лк".as_bytes());
        assert_eq!(substring(b"a\xffb", 2, Some(1)), b"\xff");
        assert_eq!(
            substring("\u{430}\u{431}".as_bytes()[1..].as_ref(), 1, Some(1)),
            "\u{431}".as_bytes()
        );
        assert_eq!(
            map_chars("Straße".as_bytes(), true),
            "STRAẞE".as_bytes().to_vec()
        );
        assert_eq!(map_chars(b"A\xffB", false), b"a\xffb".to_vec());
        // DuckDB's answers (upper/lower of each string).
        assert_eq!(
            map_chars("Ёлка ǅ İstanbul ŉ ᾳ ᾀ ﬀ ǰ".as_bytes(), true),
            "ЁЛКА Ǆ İSTANBUL ŉ ᾼ ᾈ ﬀ ǰ".as_bytes().to_vec()
        );
        assert_eq!(
            map_chars("ЁЛКА ǅ İSTANBUL ẞ ᾼ ᾈ".as_bytes(), false),
            "ёлка ǆ istanbul ß ᾳ ᾀ".as_bytes().to_vec()
        );
        assert_eq!(trim(b"  x  ", None, true, false), b"x  ".to_vec());
        assert_eq!(text::char_starts("ёx".as_bytes()).len(), 2);
        for s in ["", "ёx", "日本語 text", "\u{1F600}!"] {
            assert_eq!(
                char_count(s.as_bytes()),
                text::char_starts(s.as_bytes()).len(),
                "{s}"
            );
        }
        assert_eq!(char_count(b"a\xff\x80b"), 3);
        assert_eq!(text::char_starts(b"a\xff\x80b").len(), 3);
    }

    #[test]
    fn replace_first_agrees_with_the_regex_crate() {
        let pats = [
            r"^https?://(?:www\.)?([^/]+)/.*$",
            r"(a)|(b)",
            r"x*",
            r"(\d+)-(\d+)?",
            r"$",
        ];
        let reps: [&[u8]; 6] = [br"\1", br"<\2|\1>", b"$", br"\\", b"", br"\9"];
        let hays: [&[u8]; 8] = [
            b"https://www.example.com/path?q",
            b"http://a.b/",
            b"no match here",
            b"",
            b"ab ba",
            b"12-34 5-",
            b"\xff\xfe/\xc3",
            "\u{e9}t\u{e9}/x".as_bytes(),
        ];
        for p in pats {
            let re = regex::bytes::Regex::new(p).unwrap();
            let mut locs = re.capture_locations();
            for r in reps {
                let rep = translate_replacement(r);
                for h in hays {
                    let want = re.replace(h, rep.as_slice()).into_owned();
                    assert_eq!(
                        replace_first(&re, &mut locs, h, &rep),
                        want,
                        "{p} {r:?} {h:?}"
                    );
                }
            }
        }
    }
}
