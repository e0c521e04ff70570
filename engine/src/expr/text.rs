//! Kernels of the string functions of [`crate::expr::strfn`] that work on
//! one string at a time: positions and lengths count characters (UTF-8;
//! a stray byte counts as one character), as DuckDB counts them.

use crate::error::{EngineError, Result};

/// DuckDB's largest string.
const MAX_LEN: u64 = 4_294_967_295;

/// Start offsets of the characters of `s` (UTF-8; stray bytes count as one).
pub fn char_starts(s: &[u8]) -> Vec<usize> {
    (0..s.len()).filter(|&i| s[i] & 0xC0 != 0x80).collect()
}

/// The characters of `s` as byte slices.
fn chars(s: &[u8]) -> Vec<&[u8]> {
    let starts = char_starts(s);
    let mut out = Vec::with_capacity(starts.len());
    for (k, &b) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(s.len());
        out.push(&s[b..e]);
    }
    out
}

/// `replace(s, from, to)`: every occurrence, left to right (an empty
/// `from` changes nothing).
pub fn replace(s: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() {
        return s.to_vec();
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while let Some(p) = memchr::memmem::find(&s[i..], from) {
        out.extend_from_slice(&s[i..i + p]);
        out.extend_from_slice(to);
        i += p + from.len();
    }
    out.extend_from_slice(&s[i..]);
    out
}

/// `split_part(s, delim, index)`: the `index`-th field (1-based; negative
/// counts from the end; an empty delimiter splits into characters), or
/// the empty string.
pub fn split_part(s: &[u8], delim: &[u8], index: i64) -> Vec<u8> {
    let parts: Vec<&[u8]> = if delim.is_empty() {
        chars(s)
    } else {
        let mut v = Vec::new();
        let mut i = 0;
        while let Some(p) = memchr::memmem::find(&s[i..], delim) {
            v.push(&s[i..i + p]);
            i += p + delim.len();
        }
        v.push(&s[i..]);
        v
    };
    let n = parts.len() as i64;
    let k = if index < 0 { n + index } else { index - 1 };
    if index == 0 || k < 0 || k >= n {
        return Vec::new();
    }
    parts[k as usize].to_vec()
}

/// `strpos(s, needle)`: the character position of the first occurrence
/// (1-based), 0 if none; an empty needle is at 1.
pub fn strpos(s: &[u8], needle: &[u8]) -> i64 {
    match memchr::memmem::find(s, needle) {
        Some(p) => s[..p].iter().filter(|&&b| b & 0xC0 != 0x80).count() as i64 + 1,
        None => 0,
    }
}

fn check_len(n: i64) -> Result<()> {
    if n > MAX_LEN as i64 {
        return Err(EngineError::Runtime(format!(
            "Out of Range Error: Substring length outside of supported range (> {MAX_LEN})"
        )));
    }
    Ok(())
}

/// `left(s, n)`: the first `n` characters (negative: all but the last
/// `-n`).
pub fn left(s: &[u8], n: i64) -> Result<Vec<u8>> {
    check_len(n)?;
    let starts = char_starts(s);
    let len = starts.len() as i64;
    let k = if n >= 0 { n.min(len) } else { (len + n).max(0) };
    Ok(match starts.get(k as usize) {
        Some(&e) => s[..e].to_vec(),
        None => s.to_vec(),
    })
}

/// `right(s, n)`: the last `n` characters (negative: all but the first
/// `-n`).
pub fn right(s: &[u8], n: i64) -> Result<Vec<u8>> {
    check_len(n)?;
    let starts = char_starts(s);
    let len = starts.len() as i64;
    let k = if n >= 0 { n.min(len) } else { (len + n).max(0) };
    let from = (len - k) as usize;
    Ok(match starts.get(from) {
        Some(&b) => s[b..].to_vec(),
        None => Vec::new(),
    })
}

/// `reverse(s)`, character by character.
pub fn reverse(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for c in chars(s).into_iter().rev() {
        out.extend_from_slice(c);
    }
    out
}

/// `lpad(s, n, pad)` (`left`) or `rpad`: `s` cut or padded with `pad`
/// repeated to `n` characters.
pub fn pad(s: &[u8], n: i64, pad: &[u8], left: bool) -> Result<Vec<u8>> {
    check_len(n)?;
    let n = n.max(0) as usize;
    let starts = char_starts(s);
    if starts.len() >= n {
        return Ok(match starts.get(n) {
            Some(&e) => s[..e].to_vec(),
            None => s.to_vec(),
        });
    }
    let pad_chars = chars(pad);
    if pad_chars.is_empty() {
        return Err(EngineError::Runtime(format!(
            "Invalid Input Error: Insufficient padding in {}.",
            if left { "LPAD" } else { "RPAD" }
        )));
    }
    let mut fill = Vec::new();
    for k in 0..n - starts.len() {
        fill.extend_from_slice(pad_chars[k % pad_chars.len()]);
    }
    Ok(if left {
        [fill.as_slice(), s].concat()
    } else {
        [s, fill.as_slice()].concat()
    })
}

/// `repeat(s, n)` (nothing for `n <= 0`).
pub fn repeat(s: &[u8], n: i64) -> Result<Vec<u8>> {
    if n <= 0 || s.is_empty() {
        return Ok(Vec::new());
    }
    let size = (s.len() as u64).saturating_mul(n as u64);
    if size > MAX_LEN {
        return Err(EngineError::Runtime(format!(
            "Out of Range Error: Cannot create a string of size: '{size}', the maximum \
             supported string size is: '{MAX_LEN}'"
        )));
    }
    Ok(s.repeat(n as usize))
}

/// `translate(s, from, to)`: each character of `from` replaced by the
/// character at the same place in `to`, or removed when `to` is shorter
/// (the first occurrence in `from` decides).
pub fn translate(s: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let (from, to) = (chars(from), chars(to));
    let mut out = Vec::with_capacity(s.len());
    for c in chars(s) {
        match from.iter().position(|f| *f == c) {
            Some(k) => {
                if let Some(t) = to.get(k) {
                    out.extend_from_slice(t);
                }
            }
            None => out.extend_from_slice(c),
        }
    }
    out
}

/// `ascii(s)`: the code point of the first character (0 for the empty
/// string; a stray byte is its own value).
pub fn ascii(s: &[u8]) -> i64 {
    let Some(first) = chars(s).into_iter().next() else {
        return 0;
    };
    match std::str::from_utf8(first)
        .ok()
        .and_then(|t| t.chars().next())
    {
        Some(c) => i64::from(u32::from(c)),
        None => i64::from(first[0]),
    }
}

/// `chr(n)`: the character with code point `n`.
pub fn chr(n: i64) -> Result<Vec<u8>> {
    u32::try_from(n)
        .ok()
        .and_then(char::from_u32)
        .map(|c| c.to_string().into_bytes())
        .ok_or_else(|| {
            EngineError::Runtime(format!("Invalid Input Error: Invalid UTF8 Codepoint {n}"))
        })
}

/// Lower-case hexadecimal of bytes.
pub fn hex(bytes: &[u8]) -> Vec<u8> {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)]);
        out.push(DIGITS[usize::from(b & 15)]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values from DuckDB.
    #[test]
    fn kernels() {
        assert_eq!(replace(b"abcabc", b"b", b"XY"), b"aXYcaXYc");
        assert_eq!(replace(b"aaa", b"aa", b"b"), b"ba");
        assert_eq!(replace(b"abc", b"", b"x"), b"abc");
        assert_eq!(split_part(b"a,b,,c", b",", 3), b"");
        assert_eq!(split_part(b"a,b,c", b",", -1), b"c");
        assert_eq!(split_part(b"a,b,c", b",", 0), b"");
        assert_eq!(split_part(b"abc", b"", 2), b"b");
        assert_eq!(split_part(b"a,b", b",", -3), b"");
        assert_eq!(split_part("ёлка".as_bytes(), b"", 2), "л".as_bytes());
        assert_eq!(strpos(b"hello", b"lo"), 4);
        assert_eq!(strpos("ёлка".as_bytes(), "к".as_bytes()), 3);
        assert_eq!(strpos(b"", b""), 1);
        assert_eq!(left(b"hello", -2).unwrap(), b"hel");
        assert_eq!(right(b"hello", -2).unwrap(), b"llo");
        assert_eq!(right(b"abc", -5).unwrap(), b"");
        assert_eq!(left(b"abc", i64::MIN).unwrap(), b"");
        assert!(left(b"abc", i64::MAX).is_err());
        assert_eq!(reverse("ёлка".as_bytes()), "аклё".as_bytes());
        assert_eq!(pad(b"abc", 5, b"xy", true).unwrap(), b"xyabc");
        assert_eq!(pad(b"abc", 6, b"xy", false).unwrap(), b"abcxyx");
        assert_eq!(pad(b"abc", 2, b"", true).unwrap(), b"ab");
        assert!(pad(b"abc", 5, b"", true).is_err());
        assert_eq!(
            pad("ё".as_bytes(), 3, "л".as_bytes(), true).unwrap(),
            "ллё".as_bytes()
        );
        assert_eq!(translate(b"hello", b"el", b"ip"), b"hippo");
        assert_eq!(translate(b"hello", b"el", b"i"), b"hio");
        assert_eq!(translate(b"aaa", b"aa", b"xy"), b"xxx");
        assert_eq!(ascii("ё".as_bytes()), 1105);
        assert_eq!(ascii(b""), 0);
        assert_eq!(chr(1105).unwrap(), "ё".as_bytes());
        assert!(chr(55296).is_err());
        assert_eq!(repeat(b"ab", -1).unwrap(), b"");
        assert_eq!(hex(&[0, 255, 16]), b"00ff10");
    }
}
