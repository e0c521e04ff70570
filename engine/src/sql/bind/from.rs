//! FROM items: stored tables and files (through the catalog), table
//! functions, CTE references, subqueries and VALUES lists, each with an
//! optional alias `AS t(a, b)` naming the relation and its columns.

use sqlparser::ast as sql;

use super::coerce::{cast_to, common_type};
use super::expr::ExprBinder;
use super::query::{dedup_names, rename_columns};
use super::scope::Scope;
use super::Binder;
use crate::error::{unsupported, Result};
use crate::expr::scalar::Func;
use crate::expr::{conjunction, conjuncts, ExprKind, TExpr};
use crate::plan::{requalify, split_equi_keys, Column, JoinKind, LogicalPlan, TableQuery};
use crate::sql::table_ref::{self, TableRef};

impl Binder<'_> {
    /// The relation of a FROM clause and the scope of its columns: its
    /// items cross-joined, each with its joins. No FROM reads one row of no
    /// columns (`SELECT 1 + 1`).
    pub(crate) fn bind_from(&self, from: &[sql::TableWithJoins]) -> Result<(LogicalPlan, Scope)> {
        let mut out: Option<(LogicalPlan, Scope)> = None;
        for item in from {
            let mut cur = self.relation(&item.relation)?;
            for j in &item.joins {
                let right = self.relation(&j.relation)?;
                cur = self.join(cur, right, &j.join_operator)?;
            }
            out = Some(match out {
                None => cur,
                Some(prev) => cross(prev, cur),
            });
        }
        Ok(out.unwrap_or_else(|| {
            (
                LogicalPlan::Values {
                    rows: vec![Vec::new()],
                    columns: Vec::new(),
                },
                Scope::default(),
            )
        }))
    }

    /// `left JOIN right` with its constraint.
    fn join(
        &self,
        left: (LogicalPlan, Scope),
        right: (LogicalPlan, Scope),
        op: &sql::JoinOperator,
    ) -> Result<(LogicalPlan, Scope)> {
        use sql::JoinOperator as J;
        let (kind, constraint) = match op {
            J::Join(c) | J::Inner(c) => (JoinKind::Inner, c),
            J::Left(c) | J::LeftOuter(c) => (JoinKind::Left, c),
            J::Right(c) | J::RightOuter(c) => (JoinKind::Right, c),
            J::FullOuter(c) => (JoinKind::Full, c),
            J::CrossJoin(c) => (JoinKind::Inner, c),
            J::Semi(c) | J::LeftSemi(c) => (JoinKind::Semi, c),
            J::Anti(c) | J::LeftAnti(c) => (JoinKind::Anti, c),
            other => return unsupported(format!("{} joins", other_join_name(other))),
        };
        let (lplan, lscope) = left;
        let (rplan, rscope) = right;
        let nl = lscope.columns.len();
        let scope = Scope::concat(lscope.clone(), rscope.clone());
        let mut keys: Vec<(TExpr, TExpr)> = Vec::new();
        let mut filter = None;
        // Columns merged by USING / NATURAL: (left position, right position).
        let mut merged: Vec<(usize, usize)> = Vec::new();
        match constraint {
            sql::JoinConstraint::None => {}
            sql::JoinConstraint::On(e) => {
                let mut b = ExprBinder::new(&scope);
                let on = b.expr(e)?;
                let on = b.expect_bool(on, "ON")?;
                let (k, rest) = split_equi_keys(conjuncts(on), nl);
                keys = k;
                filter = conjunction(rest);
            }
            sql::JoinConstraint::Using(names) => {
                for n in names {
                    let name = n.0.last().map(|p| p.to_string()).unwrap_or_default();
                    let name = name.trim_matches('"').to_string();
                    let l = lscope
                        .find(None, &name)?
                        .ok_or_else(|| lscope.not_found(None, &name))?;
                    let r = rscope
                        .find(None, &name)?
                        .ok_or_else(|| rscope.not_found(None, &name))?;
                    merged.push((l, r));
                }
            }
            sql::JoinConstraint::Natural => {
                for &l in &lscope.star {
                    let name = &lscope.columns[l].name;
                    if let Some(r) = rscope.find(None, name)? {
                        merged.push((l, r));
                    }
                }
            }
        }
        for &(l, r) in &merged {
            let (a, b) = (
                col(l, scope.columns[l].ty),
                col(nl + r, scope.columns[nl + r].ty),
            );
            keys.push(typed_key(a, b, nl)?);
        }
        let plan = LogicalPlan::Join {
            kind: kind.clone(),
            left: lplan.boxed(),
            right: rplan.boxed(),
            keys,
            filter,
        };
        if !kind.has_right_columns() {
            return Ok((plan, lscope));
        }
        if merged.is_empty() {
            return Ok((plan, scope));
        }
        merge_using(plan, scope, &kind, nl, &merged)
    }

    /// One FROM item and the scope of its columns.
    fn relation(&self, factor: &sql::TableFactor) -> Result<(LogicalPlan, Scope)> {
        if let sql::TableFactor::NestedJoin {
            table_with_joins,
            alias,
        } = factor
        {
            if alias.is_some() {
                return unsupported("an alias on a parenthesized join");
            }
            return self.bind_from(std::slice::from_ref(table_with_joins));
        }
        let plan = self.relation_plan(factor)?;
        let scope = Scope::new(plan.columns());
        Ok((plan, scope))
    }

    fn relation_plan(&self, factor: &sql::TableFactor) -> Result<LogicalPlan> {
        match factor {
            sql::TableFactor::Table {
                name, alias, args, ..
            } => {
                // An unquoted one-part name may be a CTE.
                if let ([part], None) = (name.0.as_slice(), args) {
                    if let Some(ident) = part.as_ident() {
                        if let Some((id, mut columns)) = self.cte(&ident.value) {
                            let mut q = ident.value.clone();
                            if let Some(a) = alias {
                                rename_columns(&mut columns, &a.columns, &q)?;
                                q = a.name.value.clone();
                            }
                            for c in &mut columns {
                                c.qualifier = Some(q.clone());
                            }
                            return Ok(LogicalPlan::CteRef {
                                id,
                                name: ident.value.clone(),
                                columns,
                            });
                        }
                    }
                }
                if let [schema, table] = name.0.as_slice() {
                    let schema = schema.to_string();
                    if schema.eq_ignore_ascii_case("information_schema") && args.is_none() {
                        let q = alias.as_ref().map(|a| a.name.value.clone());
                        return self.information_schema(&table.to_string(), q);
                    }
                }
                let tref = table_ref::from_factor(factor)?;
                let table = self.open(&tref, self.head.get())?;
                let name = tref.to_string();
                let qualifier = match alias {
                    Some(a) => Some(a.name.value.clone()),
                    None => Some(default_qualifier(&tref)),
                };
                let mut tq = TableQuery::scan(table, name, qualifier);
                if let Some(a) = alias {
                    let mut columns = tq.columns();
                    rename_columns(&mut columns, &a.columns, &a.name.value)?;
                    for (s, c) in tq.select.iter_mut().zip(columns) {
                        s.0 = c.name;
                    }
                }
                Ok(LogicalPlan::TableQuery(Box::new(tq)))
            }
            sql::TableFactor::Derived {
                lateral,
                subquery,
                alias,
                sample,
            } => {
                if sample.is_some() {
                    return unsupported("TABLESAMPLE");
                }
                if *lateral {
                    return unsupported("LATERAL subqueries");
                }
                let plan = self.nested(|b| b.bind_query(subquery))?;
                let mut columns = plan.columns();
                dedup_names(&mut columns);
                let qualifier = alias.as_ref().map(|a| a.name.value.clone());
                if let Some(a) = alias {
                    rename_columns(&mut columns, &a.columns, &a.name.value)?;
                }
                Ok(requalify(plan, columns, qualifier))
            }
            sql::TableFactor::UNNEST { .. } => unsupported("UNNEST"),
            sql::TableFactor::Pivot { .. } | sql::TableFactor::Unpivot { .. } => {
                unsupported("PIVOT / UNPIVOT")
            }
            other => unsupported(format!("FROM item {other}")),
        }
    }
}

/// Two relations side by side: every pair of their rows.
fn cross(left: (LogicalPlan, Scope), right: (LogicalPlan, Scope)) -> (LogicalPlan, Scope) {
    let scope = Scope::concat(left.1, right.1);
    (
        LogicalPlan::Join {
            kind: JoinKind::Inner,
            left: left.0.boxed(),
            right: right.0.boxed(),
            keys: Vec::new(),
            filter: None,
        },
        scope,
    )
}

fn col(i: usize, ty: crate::value::LType) -> TExpr {
    TExpr {
        kind: ExprKind::Col(i),
        ty,
    }
}

fn other_join_name(op: &sql::JoinOperator) -> &'static str {
    use sql::JoinOperator as J;
    match op {
        J::RightSemi(_) | J::RightAnti(_) => "RIGHT SEMI / RIGHT ANTI",
        J::CrossApply | J::OuterApply => "APPLY",
        J::AsOf { .. } => "ASOF",
        _ => "these",
    }
}

/// An equality key of a join: the left expression and the right one
/// (rebased on the right input's columns), cast to their common type.
fn typed_key(l: TExpr, r: TExpr, nl: usize) -> Result<(TExpr, TExpr)> {
    let ty = common_type(&l, &r)?;
    let r = r.map_columns(&|c| c - nl);
    Ok((cast_to(l, ty)?, cast_to(r, ty)?))
}

/// A join's output with the columns merged by USING: one column each, at
/// the left's place in `*` and reached by its unqualified name, holding the
/// left value (INNER, LEFT), the right value (RIGHT) or the first non-NULL
/// of the two (FULL); the sides' own columns stay reachable qualified.
fn merge_using(
    plan: LogicalPlan,
    mut scope: Scope,
    kind: &JoinKind,
    nl: usize,
    merged: &[(usize, usize)],
) -> Result<(LogicalPlan, Scope)> {
    let columns = plan.columns();
    let mut exprs: Vec<TExpr> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| col(i, c.ty))
        .collect();
    let mut out_cols = columns.clone();
    for &(l, r) in merged {
        let r = nl + r;
        scope.visible[l] = false;
        scope.visible[r] = false;
        scope.star.retain(|&i| i != r);
        let value = match kind {
            JoinKind::Inner | JoinKind::Left => col(l, columns[l].ty),
            JoinKind::Right => col(r, columns[r].ty),
            _ => {
                let ty = common_type(&col(l, columns[l].ty), &col(r, columns[r].ty))?;
                TExpr {
                    kind: ExprKind::Func(
                        Box::new(Func::Coalesce),
                        vec![
                            cast_to(col(l, columns[l].ty), ty)?,
                            cast_to(col(r, columns[r].ty), ty)?,
                        ],
                    ),
                    ty,
                }
            }
        };
        let at = exprs.len();
        out_cols.push(Column::new(columns[l].name.clone(), value.ty));
        exprs.push(value);
        scope.columns.push(out_cols[at].clone());
        scope.visible.push(true);
        if let Some(p) = scope.star.iter().position(|&i| i == l) {
            scope.star[p] = at;
        }
    }
    Ok((
        LogicalPlan::Project {
            input: plan.boxed(),
            exprs,
            columns: out_cols,
        },
        scope,
    ))
}

/// The qualifier of a table without alias: its name (a path's file name
/// without extension, as DuckDB names `'data/x.csv'` `x`), or the table
/// function's name.
fn default_qualifier(t: &TableRef) -> String {
    match t {
        TableRef::Named(n) => {
            let file = n.rsplit(['/', '\\']).next().unwrap_or(n);
            let stem = file.split('.').next().unwrap_or(file);
            if stem.is_empty() {
                n.clone()
            } else {
                stem.to_string()
            }
        }
        TableRef::Function { name, .. } => name.clone(),
    }
}
