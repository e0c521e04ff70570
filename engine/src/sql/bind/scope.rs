//! Name resolution: the columns a FROM clause makes visible, found by
//! (optionally qualified) name the way DuckDB finds them: exact spelling
//! first, then ignoring case; an ambiguous name is an error.

use crate::error::{closest, EngineError, Result};
use crate::plan::Column;

/// The columns visible to the expressions of one SELECT.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// The FROM relation's output columns, in order.
    pub columns: Vec<Column>,
}

impl Scope {
    /// A scope over `columns`.
    pub fn new(columns: Vec<Column>) -> Scope {
        Scope { columns }
    }

    /// The position of the column `qualifier.name` (`qualifier` `None`: any
    /// relation), `Ok(None)` when there is none.
    pub fn find(&self, qualifier: Option<&str>, name: &str) -> Result<Option<usize>> {
        let matches_qualifier = |c: &Column, exact: bool| match (qualifier, &c.qualifier) {
            (None, _) => true,
            (Some(q), Some(cq)) => {
                if exact {
                    q == cq
                } else {
                    q.eq_ignore_ascii_case(cq)
                }
            }
            (Some(_), None) => false,
        };
        for exact in [true, false] {
            let hits: Vec<usize> = self
                .columns
                .iter()
                .enumerate()
                .filter(|(_, c)| {
                    matches_qualifier(c, exact)
                        && if exact {
                            c.name == name
                        } else {
                            c.name.eq_ignore_ascii_case(name)
                        }
                })
                .map(|(i, _)| i)
                .collect();
            match hits.as_slice() {
                [] => continue,
                [i] => return Ok(Some(*i)),
                _ => {
                    return Err(EngineError::Invalid(format!(
                        "column reference {:?} is ambiguous (it names {} columns)",
                        qualified(qualifier, name),
                        hits.len()
                    )))
                }
            }
        }
        Ok(None)
    }

    /// Whether any column carries `qualifier`.
    pub fn has_qualifier(&self, qualifier: &str) -> bool {
        self.columns.iter().any(|c| {
            c.qualifier
                .as_deref()
                .is_some_and(|q| q.eq_ignore_ascii_case(qualifier))
        })
    }

    /// The error for a name no column has, suggesting the closest one.
    pub fn not_found(&self, qualifier: Option<&str>, name: &str) -> EngineError {
        if let Some(q) = qualifier {
            if !self.has_qualifier(q) {
                return EngineError::NotFound {
                    kind: "table",
                    name: q.to_string(),
                    suggestion: closest(
                        q,
                        self.columns.iter().filter_map(|c| c.qualifier.as_deref()),
                    ),
                };
            }
        }
        EngineError::NotFound {
            kind: "column",
            name: qualified(qualifier, name),
            suggestion: closest(name, self.columns.iter().map(|c| c.name.as_str())),
        }
    }
}

fn qualified(qualifier: Option<&str>, name: &str) -> String {
    match qualifier {
        Some(q) => format!("{q}.{name}"),
        None => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::LType;

    fn col(q: &str, n: &str) -> Column {
        Column {
            qualifier: Some(q.into()),
            name: n.into(),
            ty: LType::Int32,
        }
    }

    #[test]
    fn finds_exact_then_case_insensitive_and_rejects_ambiguity() {
        let s = Scope::new(vec![col("t", "a"), col("t", "B"), col("u", "a")]);
        assert_eq!(s.find(Some("t"), "a").ok(), Some(Some(0)));
        assert_eq!(s.find(Some("U"), "A").ok(), Some(Some(2)));
        assert_eq!(s.find(None, "b").ok(), Some(Some(1)));
        assert!(s.find(None, "a").is_err());
        assert_eq!(s.find(None, "c").ok(), Some(None));
        assert!(matches!(
            s.not_found(Some("v"), "a"),
            EngineError::NotFound { kind: "table", .. }
        ));
    }
}
