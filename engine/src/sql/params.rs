//! Query parameters: `?` (numbered in order of appearance) and `$1`, `$2`
//! placeholders replaced by constant values before binding.

use std::ops::ControlFlow;

use sqlparser::ast::{self as sql, Expr as SqlExpr};

use crate::error::{invalid, EngineError, Result};
use crate::value::Value;

/// Replaces the placeholders of `q` by `params`. Every parameter must be
/// used and every placeholder given.
pub fn substitute(q: &mut sql::Query, params: &[Value]) -> Result<()> {
    let mut next = 0usize;
    let mut numbered = false;
    let mut used = vec![false; params.len()];
    let mut error: Option<EngineError> = None;
    let _ = sql::visit_expressions_mut(q, |e: &mut SqlExpr| {
        let SqlExpr::Value(v) = e else {
            return ControlFlow::Continue(());
        };
        let sql::Value::Placeholder(p) = &v.value else {
            return ControlFlow::Continue(());
        };
        let index = if p == "?" {
            next += 1;
            Ok(next - 1)
        } else if let Some(n) = p.strip_prefix('$').and_then(|n| n.parse::<usize>().ok()) {
            numbered = true;
            if n == 0 {
                Err(EngineError::Invalid(
                    "parameters are numbered from $1".into(),
                ))
            } else {
                Ok(n - 1)
            }
        } else {
            Err(EngineError::Unsupported(format!("parameter {p}")))
        };
        match index.and_then(|i| {
            let value = params.get(i).ok_or_else(|| {
                EngineError::Invalid(format!(
                    "the query has a parameter {} but {} were given",
                    i + 1,
                    params.len()
                ))
            })?;
            used[i] = true;
            Ok(literal(value))
        }) {
            Ok(lit) => {
                *e = lit;
                ControlFlow::Continue(())
            }
            Err(err) => {
                error = Some(err);
                ControlFlow::Break(())
            }
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    if numbered && next > 0 {
        return invalid("a query cannot mix ? and $n parameters");
    }
    if let Some(i) = used.iter().position(|u| !u) {
        return invalid(format!(
            "{} parameters were given but the query does not use parameter {}",
            params.len(),
            i + 1
        ));
    }
    Ok(())
}

/// A parameter value as SQL: integers and strings as literals, doubles as a
/// cast of their exact text.
fn literal(v: &Value) -> SqlExpr {
    let val = |x: sql::Value| SqlExpr::Value(x.into());
    match v {
        Value::Null => val(sql::Value::Null),
        Value::Bool(b) => val(sql::Value::Boolean(*b)),
        Value::Int(i) => val(sql::Value::Number(i.to_string(), false)),
        Value::UInt(u) => val(sql::Value::Number(u.to_string(), false)),
        Value::Huge(h) => val(sql::Value::Number(h.to_string(), false)),
        Value::Float(f) => SqlExpr::Cast {
            kind: sql::CastKind::Cast,
            expr: Box::new(val(sql::Value::SingleQuotedString(format!("{f:?}")))),
            data_type: sql::DataType::Double(sql::ExactNumberInfo::None),
            format: None,
        },
        Value::Str(s) => val(sql::Value::SingleQuotedString(
            String::from_utf8_lossy(s).into_owned(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::parse::parse_query;

    fn with(sql: &str, params: &[Value]) -> Result<String> {
        let mut q = parse_query(sql)?;
        substitute(&mut q, params)?;
        Ok(q.to_string())
    }

    #[test]
    fn placeholders_take_values_in_order() {
        assert_eq!(
            with(
                "SELECT ? + 1 FROM t WHERE s = ? AND f < ?",
                &[
                    Value::Int(2),
                    Value::Str(b"it's".to_vec()),
                    Value::Float(0.5)
                ]
            )
            .ok()
            .as_deref(),
            Some("SELECT 2 + 1 FROM t WHERE s = 'it''s' AND f < CAST('0.5' AS DOUBLE)")
        );
        assert_eq!(
            with("SELECT $2, $1, $2", &[Value::Int(1), Value::Null])
                .ok()
                .as_deref(),
            Some("SELECT NULL, 1, NULL")
        );
        assert!(with("SELECT ?, ?", &[Value::Int(1)]).is_err());
        assert!(with("SELECT ?", &[Value::Int(1), Value::Int(2)]).is_err());
        assert!(with("SELECT $1, ?", &[Value::Int(1)]).is_err());
    }
}
