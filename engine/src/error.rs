//! The engine's error type: the user's mistakes, unsupported constructs,
//! corrupt or unreadable data and internal bugs are kept apart.

use strata_format::FormatError;

/// Everything that can go wrong planning or running a query.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The SQL text does not parse.
    #[error("syntax error: {0}")]
    Syntax(String),
    /// A name that does not exist, with the closest existing one if any.
    #[error("{kind} {name:?} not found{}", suggestion_text(.suggestion))]
    NotFound {
        /// What was looked up ("column", "table").
        kind: &'static str,
        /// The name as written.
        name: String,
        /// The closest existing name.
        suggestion: Option<String>,
    },
    /// A type error or another mistake in an otherwise supported query.
    #[error("{0}")]
    Invalid(String),
    /// A runtime error defined by SQL semantics (overflow, division by zero,
    /// a bad cast).
    #[error("{0}")]
    Runtime(String),
    /// A construct strata does not support (yet); names the construct.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// The query cannot be split across tasks that each read some of a
    /// table's blocks (see [`crate::plan::split`]); says why.
    #[error("cannot be split: {0}")]
    NotSplittable(String),
    /// The result would exceed the memory limit.
    #[error("result too large: {0}")]
    TooLarge(String),
    /// Reading the table failed: I/O error or corrupt data.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The query was interrupted (Ctrl-C, [`crate::Interrupter`]).
    #[error("query interrupted")]
    Interrupted,
    /// The catalog could not provide the table: for example an input file
    /// named in FROM could not be read or loaded.
    #[error(transparent)]
    Source(Box<dyn std::error::Error + Send + Sync>),
    /// A bug in strata.
    #[error("internal error: {0}")]
    Internal(String),
}

fn suggestion_text(s: &Option<String>) -> String {
    match s {
        Some(s) => format!(" (did you mean {s:?}?)"),
        None => String::new(),
    }
}

/// Shorthand for results in this crate.
pub type Result<T, E = EngineError> = std::result::Result<T, E>;

/// Shorthand for an [`EngineError::Unsupported`].
pub(crate) fn unsupported<T>(what: impl Into<String>) -> Result<T> {
    Err(EngineError::Unsupported(what.into()))
}

/// Shorthand for an [`EngineError::Invalid`].
pub(crate) fn invalid<T>(what: impl Into<String>) -> Result<T> {
    Err(EngineError::Invalid(what.into()))
}

/// Shorthand for an [`EngineError::Internal`].
pub(crate) fn internal<T>(what: impl Into<String>) -> Result<T> {
    Err(EngineError::Internal(what.into()))
}

/// The candidate closest to `name` by edit distance (case-insensitive), if
/// it is close enough to be a plausible typo.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let lower = name.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(&lower, &c.to_lowercase());
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.filter(|(d, c)| *d <= (c.len().max(name.len()) / 2).max(2))
        .map(|(_, c)| c.to_string())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(
            closest("UserId", ["UserID", "URL", "Title"]).as_deref(),
            Some("UserID")
        );
        assert_eq!(
            closest("RegoinID", ["RegionID", "URL"]).as_deref(),
            Some("RegionID")
        );
        assert_eq!(closest("zzzzzzzz", ["a", "b"]), None);
        let e = EngineError::NotFound {
            kind: "column",
            name: "UserId".into(),
            suggestion: Some("UserID".into()),
        };
        assert_eq!(
            e.to_string(),
            "column \"UserId\" not found (did you mean \"UserID\"?)"
        );
    }
}
