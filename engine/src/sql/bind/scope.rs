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
    /// Per column: whether an unqualified name reaches it (a column merged
    /// by `USING` is reached as its merged value; the sides' own columns
    /// only qualified).
    pub visible: Vec<bool>,
    /// The columns `*` lists, in order.
    pub star: Vec<usize>,
}

impl Scope {
    /// A scope over `columns`, every one visible, `*` in order.
    pub fn new(columns: Vec<Column>) -> Scope {
        let n = columns.len();
        Scope {
            columns,
            visible: vec![true; n],
            star: (0..n).collect(),
        }
    }

    /// The scope of `left`'s columns followed by `right`'s.
    pub fn concat(left: Scope, right: Scope) -> Scope {
        let n = left.columns.len();
        let mut s = left;
        s.columns.extend(right.columns);
        s.visible.extend(right.visible);
        s.star.extend(right.star.into_iter().map(|i| i + n));
        s
    }

    /// The position of the column `qualifier.name` (`qualifier` `None`: any
    /// relation, among the columns an unqualified name reaches), `Ok(None)`
    /// when there is none.
    pub fn find(&self, qualifier: Option<&str>, name: &str) -> Result<Option<usize>> {
        let eq = |a: &str, b: &str, exact: bool| {
            if exact {
                a == b
            } else {
                a.eq_ignore_ascii_case(b)
            }
        };
        for exact in [true, false] {
            let hits: Vec<usize> = (0..self.columns.len())
                .filter(|&i| {
                    let c = &self.columns[i];
                    let q_ok = match (qualifier, &c.qualifier) {
                        (None, _) => self.visible[i],
                        (Some(q), Some(cq)) => eq(q, cq, exact),
                        (Some(_), None) => false,
                    };
                    q_ok && eq(&c.name, name, exact)
                })
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
