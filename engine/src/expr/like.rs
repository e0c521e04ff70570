//! `LIKE` / `ILIKE` patterns: `%` (any string), `_` (one character, UTF-8
//! aware), an optional escape character, and the ASCII trigrams every
//! matching string must contain (for the dictionary's trigram index).

use crate::error::{invalid, Result};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Lit(u8),
    One,
    Any,
}

/// A compiled `LIKE` pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LikePattern {
    /// The pattern as written.
    pub text: Vec<u8>,
    /// `ILIKE`: case-insensitive (both sides lower-cased).
    pub ci: bool,
    toks: Vec<Tok>,
    /// The literal runs between wildcards (lower-cased for `ILIKE`).
    runs: Vec<Vec<u8>>,
    /// For a pattern without `_`: its runs as substring searchers.
    segments: Option<Segments>,
}

/// A pattern of literal runs and `%` only (`%google%`, `http://%.ru`),
/// matched by finding each run at its leftmost place after the previous
/// one, with a vectorised substring search.
#[derive(Debug, Clone)]
struct Segments {
    /// The pattern does not start with `%`: the first run is a prefix.
    prefix: bool,
    /// The pattern does not end with `%`: the last run is a suffix.
    suffix: bool,
    /// The runs, in order.
    finders: Vec<memchr::memmem::Finder<'static>>,
}

impl PartialEq for Segments {
    /// Derived from the pattern's other fields, which the pattern compares.
    fn eq(&self, _: &Segments) -> bool {
        true
    }
}

impl Eq for Segments {}

impl Segments {
    fn new(toks: &[Tok], runs: &[Vec<u8>]) -> Option<Segments> {
        if toks.contains(&Tok::One) {
            return None;
        }
        Some(Segments {
            prefix: toks.first() != Some(&Tok::Any),
            suffix: toks.last() != Some(&Tok::Any),
            finders: runs
                .iter()
                .map(|r| memchr::memmem::Finder::new(r).into_owned())
                .collect(),
        })
    }

    fn matches(&self, s: &[u8]) -> bool {
        let f = &self.finders;
        let Some((last, _)) = f.split_last() else {
            // Only `%`s, or the empty pattern.
            return !(self.prefix && self.suffix) || s.is_empty();
        };
        if f.len() == 1 && self.prefix && self.suffix {
            return s == last.needle();
        }
        let (mut from, mut to) = (0, s.len());
        let mut middle = f.as_slice();
        if self.prefix {
            if !s.starts_with(f[0].needle()) {
                return false;
            }
            from = f[0].needle().len();
            middle = &middle[1..];
        }
        if self.suffix {
            let n = last.needle().len();
            if !s.ends_with(last.needle()) || to - n < from {
                return false;
            }
            to -= n;
            middle = &middle[..middle.len().saturating_sub(1)];
        }
        for finder in middle {
            match finder.find(&s[from..to]) {
                Some(i) => from += i + finder.needle().len(),
                None => return false,
            }
        }
        true
    }
}

/// Lower-cases a string as DuckDB's `lower` does (Unicode when it is valid
/// UTF-8, ASCII otherwise).
pub fn fold(s: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if s.is_ascii() {
        if s.iter().any(|b| b.is_ascii_uppercase()) {
            return s.to_ascii_lowercase().into();
        }
        return s.into();
    }
    match std::str::from_utf8(s) {
        Ok(t) => t.to_lowercase().into_bytes().into(),
        Err(_) => s.to_ascii_lowercase().into(),
    }
}

/// Byte length of the UTF-8 character starting at `s[i]` (1 for a stray
/// byte).
#[inline]
fn char_len(s: &[u8], i: usize) -> usize {
    if s[i] < 0xC0 {
        return 1;
    }
    let mut j = i + 1;
    while j < s.len() && j - i < 4 && s[j] & 0xC0 == 0x80 {
        j += 1;
    }
    j - i
}

impl LikePattern {
    /// Compiles `text` with an optional escape character.
    pub fn new(text: &[u8], escape: Option<u8>, ci: bool) -> Result<LikePattern> {
        let mut toks = Vec::new();
        let mut runs: Vec<Vec<u8>> = Vec::new();
        let mut run: Vec<u8> = Vec::new();
        let mut i = 0;
        let mut flush = |run: &mut Vec<u8>, toks: &mut Vec<Tok>| {
            if !run.is_empty() {
                let r = if ci {
                    fold(run).into_owned()
                } else {
                    run.clone()
                };
                toks.extend(r.iter().map(|&b| Tok::Lit(b)));
                runs.push(r);
                run.clear();
            }
        };
        while i < text.len() {
            let c = text[i];
            if Some(c) == escape {
                if i + 1 >= text.len() {
                    return invalid("Like pattern must not end with escape character!");
                }
                run.push(text[i + 1]);
                i += 2;
                continue;
            }
            match c {
                b'%' => {
                    flush(&mut run, &mut toks);
                    if toks.last() != Some(&Tok::Any) {
                        toks.push(Tok::Any);
                    }
                }
                b'_' => {
                    flush(&mut run, &mut toks);
                    toks.push(Tok::One);
                }
                _ => run.push(c),
            }
            i += 1;
        }
        flush(&mut run, &mut toks);
        let segments = Segments::new(&toks, &runs);
        Ok(LikePattern {
            text: text.to_vec(),
            ci,
            toks,
            runs,
            segments,
        })
    }

    /// Whether `s` matches.
    pub fn matches(&self, s: &[u8]) -> bool {
        let folded;
        let s = if self.ci {
            folded = fold(s);
            &folded
        } else {
            s
        };
        match &self.segments {
            Some(segments) => segments.matches(s),
            None => match_toks(&self.toks, s),
        }
    }

    /// The trigram keys (see [`strata_format::strings::trigram_key`]) every
    /// matching string contains, sorted and deduplicated. For `ILIKE`,
    /// trigrams with `i` or `k` are left out (non-ASCII characters lower to
    /// them).
    pub fn trigrams(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for r in &self.runs {
            for w in r.windows(3) {
                if self.ci && w.iter().any(|b| matches!(b, b'i' | b'k' | b'I' | b'K')) {
                    continue;
                }
                if let Some(k) = strata_format::strings::trigram_key([w[0], w[1], w[2]]) {
                    out.push(k);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Matching with backtracking to the last `%` (which is enough: every
/// segment between `%`s is matched at its leftmost position).
fn match_toks(p: &[Tok], s: &[u8]) -> bool {
    let (mut si, mut pi) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if pi < p.len() {
            match p[pi] {
                Tok::Any => {
                    star = Some((pi, si));
                    pi += 1;
                    continue;
                }
                Tok::One if si < s.len() => {
                    si += char_len(s, si);
                    pi += 1;
                    continue;
                }
                Tok::Lit(c) if si < s.len() && s[si] == c => {
                    si += 1;
                    pi += 1;
                    continue;
                }
                _ => {}
            }
        } else if si == s.len() {
            return true;
        }
        // Mismatch: let the last `%` swallow one more character.
        match star {
            Some((sp, ss)) if ss < s.len() => {
                let next = ss + char_len(s, ss);
                star = Some((sp, next));
                pi = sp + 1;
                si = next;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str, p: &str) -> bool {
        LikePattern::new(p.as_bytes(), None, false)
            .map(|p| p.matches(s.as_bytes()))
            .unwrap_or(false)
    }

    /// Every string over {a, b} up to length 6 and every pattern over
    /// {a, b, %} up to length 5: the substring search agrees with the
    /// backtracking matcher.
    #[test]
    fn substring_search_agrees_with_backtracking() {
        let words = |alphabet: &[u8], max: usize| {
            let mut out: Vec<Vec<u8>> = vec![Vec::new()];
            for len in 1..=max {
                let k = alphabet.len().pow(len as u32);
                for mut n in 0..k {
                    let mut w = Vec::with_capacity(len);
                    for _ in 0..len {
                        w.push(alphabet[n % alphabet.len()]);
                        n /= alphabet.len();
                    }
                    out.push(w);
                }
            }
            out
        };
        let strings = words(b"ab", 6);
        for pattern in words(b"ab%", 5) {
            let p = LikePattern::new(&pattern, None, false).unwrap();
            let segments = p.segments.as_ref().unwrap();
            for s in &strings {
                assert_eq!(
                    segments.matches(s),
                    match_toks(&p.toks, s),
                    "{:?} LIKE {:?}",
                    String::from_utf8_lossy(s),
                    String::from_utf8_lossy(&pattern)
                );
            }
        }
        assert!(LikePattern::new(b"a_b", None, false)
            .unwrap()
            .segments
            .is_none());
    }

    #[test]
    fn patterns() {
        assert!(m("google.com", "%google%"));
        assert!(m("google", "google"));
        assert!(!m("googl", "google%"));
        assert!(m("abc", "a_c"));
        assert!(m("", "%"));
        assert!(!m("", "_"));
        assert!(!m("xgoogle.ru", "%.google.%"));
        assert!(m("www.google.ru", "%.google.%"));
        assert!(m("aaab", "%a%b"));
        assert!(m("ёлка", "_лк_"));
        assert!(!m("ёлка", "_____"));
        assert!(m("ёлка", "%ка"));
        assert!(m("a\nb", "a_b"));
    }

    #[test]
    fn escape_and_case() {
        let p = LikePattern::new(b"%10!%%", Some(b'!'), false);
        assert!(p.as_ref().is_ok_and(|p| p.matches(b"up 10% now")));
        assert!(p.as_ref().is_ok_and(|p| !p.matches(b"up 10 now")));
        assert!(LikePattern::new(b"ab!", Some(b'!'), false).is_err());
        let p = LikePattern::new(b"%GOOGLE%", None, true);
        assert!(p.as_ref().is_ok_and(|p| p.matches(b"www.Google.com")));
        let p = LikePattern::new("%ЁЛ%".as_bytes(), None, true);
        assert!(p.as_ref().is_ok_and(|p| p.matches("ёлка".as_bytes())));
        // Invalid UTF-8 does not break matching.
        let p = LikePattern::new(b"a_b%", None, false);
        assert!(p.as_ref().is_ok_and(|p| p.matches(b"a\xffb\xfe")));
        let g = LikePattern::new(b"%google%", None, false);
        assert_eq!(g.map(|p| p.trigrams().len()).ok(), Some(4));
    }
}
