//! A window frame's `EXCLUDE` clause, which sqlparser 0.63 does not
//! parse (its `WindowFrame` has no field for it).
//!
//! Before parsing, [`rewrite`] finds each `EXCLUDE CURRENT ROW | GROUP |
//! TIES | NO OTHERS` that closes a window's parentheses, removes it, and
//! carries it in the window's name instead: the first word after the
//! opening parenthesis becomes a quoted identifier [`encode`]d from the
//! clause and the named window the specification extends (if any). The
//! binder [`decode`]s window names. Texts without the word EXCLUDE are
//! parsed as they are.

use sqlparser::dialect::Dialect;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, Word};

use crate::plan::window::Exclude;

/// Starts every name carrying an EXCLUDE clause (no SQL text names a
/// window so).
const MARK: &str = "\u{1}exclude:";

/// The window name carrying `exclude` for a window extending `base`
/// (empty: none).
pub fn encode(base: &str, exclude: Exclude) -> String {
    let kind = match exclude {
        Exclude::NoOthers => "no_others",
        Exclude::CurrentRow => "current_row",
        Exclude::Group => "group",
        Exclude::Ties => "ties",
    };
    format!("{MARK}{kind}:{base}")
}

/// The base window's name (empty: none) and the EXCLUDE clause a window
/// name carries, if it carries one.
pub fn decode(name: &str) -> Option<(&str, Exclude)> {
    let rest = name.strip_prefix(MARK)?;
    let (kind, base) = rest.split_once(':')?;
    let ex = match kind {
        "no_others" => Exclude::NoOthers,
        "current_row" => Exclude::CurrentRow,
        "group" => Exclude::Group,
        "ties" => Exclude::Ties,
        _ => return None,
    };
    Some((base, ex))
}

/// Whether `t` is the keyword `k`.
fn is(t: &Token, k: Keyword) -> bool {
    matches!(t, Token::Word(w) if w.keyword == k && w.quote_style.is_none())
}

/// Whether `t` is the unquoted word `text` (any case).
fn is_word(t: &Token, text: &str) -> bool {
    matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(text))
}

/// The tokens of `text` with each window's EXCLUDE clause moved into its
/// name; `None` when there is none (or the text does not tokenize: the
/// parser reports that).
pub fn rewrite(dialect: &dyn Dialect, text: &str) -> Option<Vec<TokenWithSpan>> {
    if !text.to_ascii_lowercase().contains("exclude") {
        return None;
    }
    let tokens = Tokenizer::new(dialect, text)
        .with_unescape(true)
        .tokenize_with_location()
        .ok()?;
    // Positions of the significant tokens.
    let sig: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let word = |k: usize| sig.get(k).map(|&i| &tokens[i].token);
    let mut open: Vec<usize> = Vec::new();
    let mut drop = vec![false; tokens.len()];
    let mut names: Vec<(usize, Exclude)> = Vec::new();
    let mut k = 0;
    while k < sig.len() {
        let t = &tokens[sig[k]].token;
        match t {
            Token::LParen => open.push(k),
            Token::RParen => {
                open.pop();
            }
            _ if is(t, Keyword::EXCLUDE) => {
                let next = |j: usize| word(k + j);
                let (ex, len) = match (next(1), next(2)) {
                    (Some(a), Some(b)) if is(a, Keyword::CURRENT) && is(b, Keyword::ROW) => {
                        (Some(Exclude::CurrentRow), 3)
                    }
                    (Some(a), Some(b)) if is(a, Keyword::NO) && is_word(b, "others") => {
                        (Some(Exclude::NoOthers), 3)
                    }
                    (Some(a), _) if is(a, Keyword::GROUP) => (Some(Exclude::Group), 2),
                    (Some(a), _) if is(a, Keyword::TIES) => (Some(Exclude::Ties), 2),
                    _ => (None, 0),
                };
                let closes = matches!(next(len), Some(Token::RParen));
                if let (Some(ex), true, Some(&o)) = (ex, closes, open.last()) {
                    for j in 0..len {
                        drop[sig[k + j]] = true;
                    }
                    names.push((o, ex));
                    k += len;
                    continue;
                }
            }
            _ => {}
        }
        k += 1;
    }
    if names.is_empty() {
        return None;
    }
    // After each window's opening parenthesis: its name, carrying the
    // clause (and the named window it extends, which it replaces).
    let mut insert: Vec<(usize, String)> = Vec::new();
    for (o, ex) in names {
        let after = sig.get(o + 1).copied();
        let base = match after.map(|i| &tokens[i].token) {
            Some(Token::Word(w)) if w.keyword == Keyword::NoKeyword || w.quote_style.is_some() => {
                if let Some(i) = after {
                    drop[i] = true;
                }
                w.value.clone()
            }
            _ => String::new(),
        };
        insert.push((sig[o], encode(&base, ex)));
    }
    let mut out = Vec::with_capacity(tokens.len() + insert.len());
    for (i, t) in tokens.into_iter().enumerate() {
        let span = t.span;
        if !drop[i] {
            out.push(t);
        }
        for (_, name) in insert.iter().filter(|(at, _)| *at == i) {
            out.push(TokenWithSpan {
                token: Token::Word(Word {
                    value: name.clone(),
                    quote_style: Some('"'),
                    keyword: Keyword::NoKeyword,
                }),
                span,
            });
            out.push(TokenWithSpan {
                token: Token::Whitespace(sqlparser::tokenizer::Whitespace::Space),
                span,
            });
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_clause() {
        let n = encode("w", Exclude::Ties);
        assert_eq!(decode(&n), Some(("w", Exclude::Ties)));
        assert_eq!(
            decode(&encode("", Exclude::Group)),
            Some(("", Exclude::Group))
        );
        assert_eq!(decode("w"), None);
    }

    #[test]
    fn clauses_move_into_the_window_name() {
        let d = sqlparser::dialect::DuckDbDialect {};
        let sql = "SELECT sum(x) OVER (w ORDER BY y ROWS 2 PRECEDING EXCLUDE CURRENT ROW), \
                   * EXCLUDE (x) FROM t";
        let tokens = rewrite(&d, sql).unwrap_or_default();
        let text: String = tokens.iter().map(|t| t.token.to_string()).collect();
        assert!(!text.contains("EXCLUDE CURRENT"), "{text}");
        assert!(text.contains("EXCLUDE (x)"), "{text}");
        assert!(text.contains(&format!("\"{}\"", encode("w", Exclude::CurrentRow))));
        assert!(rewrite(&d, "SELECT * EXCLUDE (a) FROM t").is_none());
    }
}
