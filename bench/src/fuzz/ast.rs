//! The queries the fuzzer writes: a small SQL syntax tree, rendered fully parenthesised
//! in DuckDB's dialect, with the one-step simplifications the minimiser tries.

use std::fmt::Write as _;

/// An expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A column, optionally qualified (`a.c0`).
    Col(String),
    /// A literal, as SQL text (`12.30`, `'x'`, `DATE '2020-01-01'`, `NULL`).
    Lit(String),
    /// `-x`.
    Neg(Box<Expr>),
    /// `NOT x`.
    Not(Box<Expr>),
    /// `a op b` for arithmetic, comparison and `||`.
    Bin(&'static str, Box<Expr>, Box<Expr>),
    /// `a AND b AND ...` (true) or `a OR b OR ...` (false).
    Logic(bool, Vec<Expr>),
    /// `x IS NULL` or, when negated, `x IS NOT NULL`.
    IsNull(Box<Expr>, bool),
    /// `x [NOT] BETWEEN lo AND hi`.
    Between(Box<Expr>, Box<Expr>, Box<Expr>, bool),
    /// `x [NOT] IN (list)`.
    InList(Box<Expr>, Vec<Expr>, bool),
    /// `x [NOT] LIKE|ILIKE pattern [ESCAPE c]`.
    Like {
        /// The string.
        expr: Box<Expr>,
        /// The pattern, a literal.
        pattern: String,
        /// ILIKE.
        ilike: bool,
        /// NOT.
        negated: bool,
        /// The escape character literal.
        escape: Option<String>,
    },
    /// A function call `name(args)`.
    Func(String, Vec<Expr>),
    /// `CAST(x AS type)`.
    Cast(Box<Expr>, String),
    /// `TRY_CAST(x AS type)`.
    TryCast(Box<Expr>, String),
    /// `CASE [operand] WHEN .. THEN .. [ELSE ..] END`.
    Case(Option<Box<Expr>>, Vec<(Expr, Expr)>, Option<Box<Expr>>),
    /// `EXTRACT(part FROM x)`.
    Extract(String, Box<Expr>),
    /// `SUBSTRING(x FROM a [FOR b])`.
    SubstringFrom(Box<Expr>, Box<Expr>, Option<Box<Expr>>),
    /// `TRIM([LEADING|TRAILING|BOTH] chars FROM x)`.
    TrimFrom(&'static str, Box<Expr>, Box<Expr>),
    /// `x + INTERVAL 'text'` (or `-`).
    Interval(Box<Expr>, &'static str, String),
    /// An aggregate: `func([DISTINCT] arg)`, `COUNT(*)` without an argument.
    Agg(&'static str, bool, Option<Box<Expr>>),
    /// An aggregate call with clauses (see [`AggCall`]).
    AggCall(Box<AggCall>),
    /// A window function: `func([DISTINCT] args [IGNORE NULLS]) OVER (PARTITION BY ..
    /// ORDER BY .. frame)`.
    Window {
        /// The function (`sum`, `rank`, ...).
        func: &'static str,
        /// Its arguments.
        args: Vec<Expr>,
        /// `DISTINCT` (aggregates).
        distinct: bool,
        /// ORDER BY inside the call (aggregates; expression, descending).
        arg_order: Vec<(Expr, bool)>,
        /// FILTER (WHERE ..) (aggregates).
        filter: Option<Box<Expr>>,
        /// `IGNORE NULLS` (value functions).
        ignore_nulls: bool,
        /// PARTITION BY.
        partition: Vec<Expr>,
        /// ORDER BY (expression, descending).
        order: Vec<(Expr, bool)>,
        /// The frame as SQL (`ROWS BETWEEN 1 PRECEDING AND CURRENT ROW ...`).
        frame: Option<String>,
    },
}

/// An aggregate call with the clauses DuckDB allows:
/// `func([DISTINCT] args [ORDER BY ..]) [FILTER (WHERE ..)]`, or with `within`
/// `func(args) WITHIN GROUP (ORDER BY ..)` (`percentile_cont(0.5) WITHIN GROUP (ORDER BY x)`).
#[derive(Debug, Clone, PartialEq)]
pub struct AggCall {
    /// The function.
    pub func: &'static str,
    /// DISTINCT.
    pub distinct: bool,
    /// The arguments (`count(*)`: none).
    pub args: Vec<Expr>,
    /// ORDER BY inside the call (expression, descending).
    pub order: Vec<(Expr, bool)>,
    /// The ORDER BY is a WITHIN GROUP clause.
    pub within: bool,
    /// FILTER (WHERE ..).
    pub filter: Option<Expr>,
}

/// A GROUP BY or ORDER BY item: a select-list position, an alias or an expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// 1-based position in the select list.
    Ordinal(usize),
    /// A select item's alias.
    Alias(String),
    /// An expression.
    Expr(Expr),
    /// GROUP BY `ROLLUP (..)`.
    Rollup(Vec<Target>),
    /// GROUP BY `CUBE (..)`.
    Cube(Vec<Target>),
    /// GROUP BY `GROUPING SETS ((..), ..)`.
    Sets(Vec<Vec<Target>>),
}

impl Target {
    /// The plain targets (GROUP BY items) inside, itself if plain.
    pub fn plain(&self) -> Vec<&Target> {
        match self {
            Target::Rollup(v) | Target::Cube(v) => v.iter().flat_map(Target::plain).collect(),
            Target::Sets(sets) => sets.iter().flatten().flat_map(Target::plain).collect(),
            t => vec![t],
        }
    }

    /// [`Target::plain`], mutably.
    pub fn plain_mut(&mut self) -> Vec<&mut Target> {
        match self {
            Target::Rollup(v) | Target::Cube(v) => {
                v.iter_mut().flat_map(Target::plain_mut).collect()
            }
            Target::Sets(sets) => sets
                .iter_mut()
                .flatten()
                .flat_map(Target::plain_mut)
                .collect(),
            t => vec![t],
        }
    }
}

/// An ORDER BY item.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderItem {
    /// What it orders by.
    pub target: Target,
    /// DESC.
    pub desc: bool,
    /// NULLS FIRST (`Some(true)`), NULLS LAST (`Some(false)`) or the default.
    pub nulls_first: Option<bool>,
}

/// A select-list item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// `*`.
    Star,
    /// An expression with an optional alias.
    Expr(Expr, Option<String>),
}

/// What a SELECT reads.
#[derive(Debug, Clone, PartialEq)]
pub enum From {
    /// A table (or CTE) by name.
    Table(String),
    /// `(subquery) AS alias`.
    Subquery(Box<Query>, String),
    /// `left AS a [LEFT] JOIN right AS b ON cond`.
    Join {
        /// The left table's name and alias.
        left: (String, String),
        /// The right table's name and alias.
        right: (String, String),
        /// LEFT JOIN rather than inner.
        left_outer: bool,
        /// The join condition.
        on: Box<Expr>,
    },
}

/// One SELECT block.
#[derive(Debug, Clone, PartialEq)]
pub struct Select {
    /// SELECT DISTINCT.
    pub distinct: bool,
    /// The select list.
    pub items: Vec<Item>,
    /// FROM.
    pub from: From,
    /// WHERE.
    pub filter: Option<Expr>,
    /// GROUP BY.
    pub group_by: Vec<Target>,
    /// HAVING.
    pub having: Option<Expr>,
    /// QUALIFY.
    pub qualify: Option<Expr>,
}

/// A query body: a SELECT or a set operation of two bodies.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // A few per query: boxing would only add noise.
pub enum Body {
    /// A SELECT.
    Select(Select),
    /// `left op right` (`UNION ALL`, `INTERSECT`, ...).
    SetOp(&'static str, Box<Body>, Box<Body>),
}

/// A whole query.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// WITH: name and query.
    pub with: Vec<(String, Query)>,
    /// The body.
    pub body: Body,
    /// ORDER BY.
    pub order_by: Vec<OrderItem>,
    /// LIMIT.
    pub limit: Option<u64>,
    /// OFFSET.
    pub offset: Option<u64>,
}

impl Query {
    /// A query of one SELECT without ORDER BY or LIMIT.
    pub fn simple(select: Select) -> Query {
        Query {
            with: Vec::new(),
            body: Body::Select(select),
            order_by: Vec::new(),
            limit: None,
            offset: None,
        }
    }

    /// The SQL text.
    pub fn sql(&self) -> String {
        let mut s = String::new();
        self.render(&mut s);
        s
    }

    /// The SQL text without LIMIT and OFFSET (the full answer a LIMIT picks from).
    pub fn sql_without_limit(&self) -> String {
        Query {
            limit: None,
            offset: None,
            ..self.clone()
        }
        .sql()
    }

    /// The top SELECT, when the body is one.
    pub fn select(&self) -> Option<&Select> {
        match &self.body {
            Body::Select(s) => Some(s),
            Body::SetOp(..) => None,
        }
    }

    /// The top SELECT, mutably.
    pub fn select_mut(&mut self) -> Option<&mut Select> {
        match &mut self.body {
            Body::Select(s) => Some(s),
            Body::SetOp(..) => None,
        }
    }

    fn render(&self, s: &mut String) {
        if !self.with.is_empty() {
            s.push_str("WITH ");
            for (i, (name, q)) in self.with.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                let _ = write!(s, "{name} AS (");
                q.render(s);
                s.push(')');
            }
            s.push(' ');
        }
        render_body(&self.body, s);
        if !self.order_by.is_empty() {
            s.push_str(" ORDER BY ");
            for (i, o) in self.order_by.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                render_target(&o.target, s);
                if o.desc {
                    s.push_str(" DESC");
                }
                match o.nulls_first {
                    Some(true) => s.push_str(" NULLS FIRST"),
                    Some(false) => s.push_str(" NULLS LAST"),
                    None => {}
                }
            }
        }
        if let Some(l) = self.limit {
            let _ = write!(s, " LIMIT {l}");
        }
        if let Some(o) = self.offset {
            let _ = write!(s, " OFFSET {o}");
        }
    }
}

fn render_body(b: &Body, s: &mut String) {
    match b {
        Body::Select(sel) => render_select(sel, s),
        Body::SetOp(op, l, r) => {
            s.push('(');
            render_body(l, s);
            let _ = write!(s, ") {op} (");
            render_body(r, s);
            s.push(')');
        }
    }
}

fn render_target(t: &Target, s: &mut String) {
    let list = |v: &[Target], s: &mut String| {
        for (i, t) in v.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            render_target(t, s);
        }
    };
    match t {
        Target::Ordinal(i) => {
            let _ = write!(s, "{i}");
        }
        Target::Alias(a) => s.push_str(a),
        Target::Expr(e) => render(e, s),
        Target::Rollup(v) | Target::Cube(v) => {
            s.push_str(if matches!(t, Target::Rollup(_)) {
                "ROLLUP ("
            } else {
                "CUBE ("
            });
            list(v, s);
            s.push(')');
        }
        Target::Sets(sets) => {
            s.push_str("GROUPING SETS (");
            for (i, set) in sets.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                s.push('(');
                list(set, s);
                s.push(')');
            }
            s.push(')');
        }
    }
}

fn render_select(sel: &Select, s: &mut String) {
    s.push_str("SELECT ");
    if sel.distinct {
        s.push_str("DISTINCT ");
    }
    for (i, it) in sel.items.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        match it {
            Item::Star => s.push('*'),
            Item::Expr(e, alias) => {
                render(e, s);
                if let Some(a) = alias {
                    let _ = write!(s, " AS {a}");
                }
            }
        }
    }
    s.push_str(" FROM ");
    match &sel.from {
        From::Table(t) => s.push_str(t),
        From::Subquery(q, alias) => {
            s.push('(');
            q.render(s);
            let _ = write!(s, ") AS {alias}");
        }
        From::Join {
            left,
            right,
            left_outer,
            on,
        } => {
            let _ = write!(
                s,
                "{} AS {} {}JOIN {} AS {} ON ",
                left.0,
                left.1,
                if *left_outer { "LEFT " } else { "" },
                right.0,
                right.1
            );
            render(on, s);
        }
    }
    if let Some(w) = &sel.filter {
        s.push_str(" WHERE ");
        render(w, s);
    }
    if !sel.group_by.is_empty() {
        s.push_str(" GROUP BY ");
        for (i, g) in sel.group_by.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            render_target(g, s);
        }
    }
    if let Some(h) = &sel.having {
        s.push_str(" HAVING ");
        render(h, s);
    }
    if let Some(q) = &sel.qualify {
        s.push_str(" QUALIFY ");
        render(q, s);
    }
}

fn render_list(v: &[Expr], s: &mut String) {
    for (i, e) in v.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        render(e, s);
    }
}

/// Writes `e`'s SQL text to `s`.
pub fn render(e: &Expr, s: &mut String) {
    match e {
        Expr::Col(c) | Expr::Lit(c) => s.push_str(c),
        Expr::Neg(x) => {
            s.push_str("(- ");
            render(x, s);
            s.push(')');
        }
        Expr::Not(x) => {
            s.push_str("(NOT ");
            render(x, s);
            s.push(')');
        }
        Expr::Bin(op, a, b) => {
            s.push('(');
            render(a, s);
            let _ = write!(s, " {op} ");
            render(b, s);
            s.push(')');
        }
        Expr::Logic(and, v) => {
            s.push('(');
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    s.push_str(if *and { " AND " } else { " OR " });
                }
                render(x, s);
            }
            s.push(')');
        }
        Expr::IsNull(x, not) => {
            s.push('(');
            render(x, s);
            s.push_str(if *not { " IS NOT NULL)" } else { " IS NULL)" });
        }
        Expr::Between(x, lo, hi, not) => {
            s.push('(');
            render(x, s);
            s.push_str(if *not { " NOT BETWEEN " } else { " BETWEEN " });
            render(lo, s);
            s.push_str(" AND ");
            render(hi, s);
            s.push(')');
        }
        Expr::InList(x, list, not) => {
            s.push('(');
            render(x, s);
            s.push_str(if *not { " NOT IN (" } else { " IN (" });
            render_list(list, s);
            s.push_str("))");
        }
        Expr::Like {
            expr,
            pattern,
            ilike,
            negated,
            escape,
        } => {
            s.push('(');
            render(expr, s);
            let _ = write!(
                s,
                " {}{} {pattern}",
                if *negated { "NOT " } else { "" },
                if *ilike { "ILIKE" } else { "LIKE" }
            );
            if let Some(c) = escape {
                let _ = write!(s, " ESCAPE {c}");
            }
            s.push(')');
        }
        Expr::Func(name, args) => {
            let _ = write!(s, "{name}(");
            render_list(args, s);
            s.push(')');
        }
        Expr::Cast(x, ty) => {
            s.push_str("CAST(");
            render(x, s);
            let _ = write!(s, " AS {ty})");
        }
        Expr::TryCast(x, ty) => {
            s.push_str("TRY_CAST(");
            render(x, s);
            let _ = write!(s, " AS {ty})");
        }
        Expr::Case(op, whens, els) => {
            s.push_str("(CASE");
            if let Some(o) = op {
                s.push(' ');
                render(o, s);
            }
            for (w, t) in whens {
                s.push_str(" WHEN ");
                render(w, s);
                s.push_str(" THEN ");
                render(t, s);
            }
            if let Some(e) = els {
                s.push_str(" ELSE ");
                render(e, s);
            }
            s.push_str(" END)");
        }
        Expr::Extract(part, x) => {
            let _ = write!(s, "EXTRACT({part} FROM ");
            render(x, s);
            s.push(')');
        }
        Expr::SubstringFrom(x, from, len) => {
            s.push_str("SUBSTRING(");
            render(x, s);
            s.push_str(" FROM ");
            render(from, s);
            if let Some(l) = len {
                s.push_str(" FOR ");
                render(l, s);
            }
            s.push(')');
        }
        Expr::TrimFrom(side, chars, x) => {
            let _ = write!(s, "TRIM({side} ");
            render(chars, s);
            s.push_str(" FROM ");
            render(x, s);
            s.push(')');
        }
        Expr::Interval(x, sign, text) => {
            s.push('(');
            render(x, s);
            let _ = write!(s, " {sign} INTERVAL '{text}')");
        }
        Expr::Agg(f, distinct, arg) => {
            let _ = write!(s, "{f}(");
            match arg {
                None => s.push('*'),
                Some(a) => {
                    if *distinct {
                        s.push_str("DISTINCT ");
                    }
                    render(a, s);
                }
            }
            s.push(')');
        }
        Expr::AggCall(c) => {
            let _ = write!(s, "{}(", c.func);
            if c.distinct {
                s.push_str("DISTINCT ");
            }
            if c.args.is_empty() {
                s.push('*');
            }
            render_list(&c.args, s);
            let order = |s: &mut String| {
                s.push_str("ORDER BY ");
                render_keys(&c.order, s);
            };
            if !c.order.is_empty() && !c.within {
                s.push(' ');
                order(s);
            }
            s.push(')');
            if c.within {
                s.push_str(" WITHIN GROUP (");
                order(s);
                s.push(')');
            }
            if let Some(f) = &c.filter {
                s.push_str(" FILTER (WHERE ");
                render(f, s);
                s.push(')');
            }
        }
        Expr::Window {
            func,
            args,
            distinct,
            arg_order,
            filter,
            ignore_nulls,
            partition,
            order,
            frame,
        } => {
            let _ = write!(s, "{func}(");
            if args.is_empty() && *func == "count" {
                s.push('*');
            }
            if *distinct {
                s.push_str("DISTINCT ");
            }
            render_list(args, s);
            if !arg_order.is_empty() {
                s.push_str(" ORDER BY ");
                render_keys(arg_order, s);
            }
            if *ignore_nulls {
                s.push_str(" IGNORE NULLS");
            }
            s.push(')');
            if let Some(f) = filter {
                s.push_str(" FILTER (WHERE ");
                render(f, s);
                s.push(')');
            }
            s.push_str(" OVER (");
            if !partition.is_empty() {
                s.push_str("PARTITION BY ");
                render_list(partition, s);
            }
            if !order.is_empty() {
                if !partition.is_empty() {
                    s.push(' ');
                }
                s.push_str("ORDER BY ");
                render_keys(order, s);
            }
            if let Some(f) = frame {
                if !partition.is_empty() || !order.is_empty() {
                    s.push(' ');
                }
                s.push_str(f);
            }
            s.push(')');
        }
    }
}

/// ORDER BY keys (expression, descending), comma-separated.
fn render_keys(keys: &[(Expr, bool)], s: &mut String) {
    for (i, (e, desc)) in keys.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        render(e, s);
        if *desc {
            s.push_str(" DESC");
        }
    }
}

impl Expr {
    /// The SQL text.
    pub fn sql(&self) -> String {
        let mut s = String::new();
        render(self, &mut s);
        s
    }

    /// Boxes the expression.
    pub fn boxed(self) -> Box<Expr> {
        Box::new(self)
    }

    /// The direct subexpressions.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Col(_) | Expr::Lit(_) | Expr::Agg(_, _, None) => Vec::new(),
            Expr::Neg(x)
            | Expr::Not(x)
            | Expr::IsNull(x, _)
            | Expr::Cast(x, _)
            | Expr::TryCast(x, _)
            | Expr::Extract(_, x)
            | Expr::Interval(x, _, _)
            | Expr::Agg(_, _, Some(x)) => vec![x],
            Expr::Like { expr, .. } => vec![expr],
            Expr::Bin(_, a, b) | Expr::TrimFrom(_, a, b) => vec![a, b],
            Expr::Between(a, b, c, _) => vec![a, b, c],
            Expr::Logic(_, v) | Expr::Func(_, v) => v.iter().collect(),
            Expr::AggCall(c) => c
                .args
                .iter()
                .chain(c.order.iter().map(|(e, _)| e))
                .chain(c.filter.iter())
                .collect(),
            Expr::InList(x, v, _) => std::iter::once(&**x).chain(v).collect(),
            Expr::SubstringFrom(x, a, b) => {
                let mut v: Vec<&Expr> = vec![x, a];
                v.extend(b.as_deref());
                v
            }
            Expr::Case(op, whens, els) => {
                let mut v: Vec<&Expr> = op.as_deref().into_iter().collect();
                for (w, t) in whens {
                    v.push(w);
                    v.push(t);
                }
                v.extend(els.as_deref());
                v
            }
            Expr::Window {
                args,
                arg_order,
                filter,
                partition,
                order,
                ..
            } => args
                .iter()
                .chain(arg_order.iter().map(|(e, _)| e))
                .chain(filter.as_deref())
                .chain(partition)
                .chain(order.iter().map(|(e, _)| e))
                .collect(),
        }
    }

    /// The column names it reads.
    pub fn columns(&self, out: &mut Vec<String>) {
        if let Expr::Col(c) = self {
            let name = c.rsplit('.').next().unwrap_or(c).to_string();
            if !out.contains(&name) {
                out.push(name);
            }
        }
        for c in self.children() {
            c.columns(out);
        }
    }

    /// Every expression one simplification away: a node replaced by one of its
    /// children, an operand of AND/OR, a member of an IN list or a CASE branch removed,
    /// a literal replaced by a plainer one.
    pub fn simplifications(&self) -> Vec<Expr> {
        let mut out: Vec<Expr> = Vec::new();
        // This node replaced by a child.
        if !matches!(self, Expr::Agg(..) | Expr::AggCall(_) | Expr::Window { .. }) {
            for c in self.children() {
                out.push(c.clone());
            }
        }
        if let Expr::AggCall(c) = self {
            if c.filter.is_some() {
                let mut d = c.clone();
                d.filter = None;
                out.push(Expr::AggCall(d));
            }
            if c.distinct {
                let mut d = c.clone();
                d.distinct = false;
                out.push(Expr::AggCall(d));
            }
        }
        match self {
            Expr::Logic(and, v) if v.len() > 2 => {
                for i in 0..v.len() {
                    let mut w = v.clone();
                    w.remove(i);
                    out.push(Expr::Logic(*and, w));
                }
            }
            Expr::InList(x, v, not) if v.len() > 1 => {
                for i in 0..v.len() {
                    let mut w = v.clone();
                    w.remove(i);
                    out.push(Expr::InList(x.clone(), w, *not));
                }
            }
            Expr::Case(op, whens, els) => {
                if whens.len() > 1 {
                    for i in 0..whens.len() {
                        let mut w = whens.clone();
                        w.remove(i);
                        out.push(Expr::Case(op.clone(), w, els.clone()));
                    }
                }
                if els.is_some() {
                    out.push(Expr::Case(op.clone(), whens.clone(), None));
                }
            }
            Expr::Not(x) => {
                if let Expr::Not(inner) = &**x {
                    out.push((**inner).clone());
                }
            }
            Expr::Window {
                frame,
                ignore_nulls,
                partition,
                filter,
                ..
            } => {
                let with = |f: &dyn Fn(&mut Expr)| {
                    let mut c = self.clone();
                    f(&mut c);
                    c
                };
                if filter.is_some() {
                    out.push(with(&|c| {
                        if let Expr::Window { filter, .. } = c {
                            *filter = None;
                        }
                    }));
                }
                if frame.is_some() {
                    out.push(with(&|c| {
                        if let Expr::Window { frame, .. } = c {
                            *frame = None;
                        }
                    }));
                }
                if *ignore_nulls {
                    out.push(with(&|c| {
                        if let Expr::Window { ignore_nulls, .. } = c {
                            *ignore_nulls = false;
                        }
                    }));
                }
                for i in 0..partition.len() {
                    out.push(with(&|c| {
                        if let Expr::Window { partition, .. } = c {
                            partition.remove(i);
                        }
                    }));
                }
            }
            Expr::Lit(text) => {
                for plain in ["0", "1", "NULL", "''"] {
                    if text != plain {
                        out.push(Expr::Lit(plain.to_string()));
                    }
                }
            }
            _ => {}
        }
        // One child simplified.
        let n = self.children().len();
        for i in 0..n {
            let Some(child) = self.children().get(i).map(|c| (*c).clone()) else {
                continue;
            };
            for simpler in child.simplifications() {
                let mut copy = self.clone();
                if let Some(slot) = copy.children_mut().into_iter().nth(i) {
                    *slot = simpler;
                    out.push(copy);
                }
            }
        }
        out
    }

    /// The direct subexpressions, mutably (in [`Expr::children`]'s order).
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Col(_) | Expr::Lit(_) | Expr::Agg(_, _, None) => Vec::new(),
            Expr::Neg(x)
            | Expr::Not(x)
            | Expr::IsNull(x, _)
            | Expr::Cast(x, _)
            | Expr::TryCast(x, _)
            | Expr::Extract(_, x)
            | Expr::Interval(x, _, _)
            | Expr::Agg(_, _, Some(x)) => vec![&mut **x],
            Expr::Like { expr, .. } => vec![&mut **expr],
            Expr::Bin(_, a, b) | Expr::TrimFrom(_, a, b) => vec![&mut **a, &mut **b],
            Expr::Between(a, b, c, _) => vec![&mut **a, &mut **b, &mut **c],
            Expr::Logic(_, v) | Expr::Func(_, v) => v.iter_mut().collect(),
            Expr::AggCall(c) => {
                let c = &mut **c;
                c.args
                    .iter_mut()
                    .chain(c.order.iter_mut().map(|(e, _)| e))
                    .chain(c.filter.iter_mut())
                    .collect()
            }
            Expr::InList(x, v, _) => std::iter::once(&mut **x).chain(v.iter_mut()).collect(),
            Expr::SubstringFrom(x, a, b) => {
                let mut v: Vec<&mut Expr> = vec![&mut **x, &mut **a];
                v.extend(b.as_deref_mut());
                v
            }
            Expr::Case(op, whens, els) => {
                let mut v: Vec<&mut Expr> = op.as_deref_mut().into_iter().collect();
                for (w, t) in whens.iter_mut() {
                    v.push(w);
                    v.push(t);
                }
                v.extend(els.as_deref_mut());
                v
            }
            Expr::Window {
                args,
                arg_order,
                filter,
                partition,
                order,
                ..
            } => args
                .iter_mut()
                .chain(arg_order.iter_mut().map(|(e, _)| e))
                .chain(filter.as_deref_mut())
                .chain(partition.iter_mut())
                .chain(order.iter_mut().map(|(e, _)| e))
                .collect(),
        }
    }
}

impl Query {
    /// The column names the query reads from its table(s).
    pub fn columns(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.visit_exprs(&mut |e| e.columns(&mut out));
        out
    }

    /// Calls `f` on every top-level expression of the query (select items, WHERE,
    /// GROUP BY, HAVING, ORDER BY, joins, subqueries).
    pub fn visit_exprs(&self, f: &mut dyn FnMut(&Expr)) {
        for (_, q) in &self.with {
            q.visit_exprs(f);
        }
        visit_body(&self.body, f);
        for o in &self.order_by {
            if let Target::Expr(e) = &o.target {
                f(e);
            }
        }
    }

    /// Whether the query has a star item anywhere.
    pub fn has_star(&self) -> bool {
        fn body(b: &Body) -> bool {
            match b {
                Body::Select(s) => s.items.iter().any(|i| matches!(i, Item::Star)),
                Body::SetOp(_, l, r) => body(l) || body(r),
            }
        }
        body(&self.body)
    }

    /// Every query one simplification away (see the minimiser): clauses, select items,
    /// ORDER BY items dropped, and each expression simplified by one step.
    pub fn simplifications(&self) -> Vec<Query> {
        let mut out = Vec::new();
        if self.limit.is_some() || self.offset.is_some() {
            out.push(Query {
                limit: None,
                offset: None,
                ..self.clone()
            });
        }
        if self.offset.is_some() {
            out.push(Query {
                offset: None,
                ..self.clone()
            });
        }
        for i in 0..self.order_by.len() {
            let mut q = self.clone();
            q.order_by.remove(i);
            out.push(q);
        }
        if let Some(sel) = self.select() {
            if sel.filter.is_some() {
                let mut q = self.clone();
                if let Some(s) = q.select_mut() {
                    s.filter = None;
                }
                out.push(q);
            }
            if sel.having.is_some() {
                let mut q = self.clone();
                if let Some(s) = q.select_mut() {
                    s.having = None;
                }
                out.push(q);
            }
            if sel.qualify.is_some() {
                let mut q = self.clone();
                if let Some(s) = q.select_mut() {
                    s.qualify = None;
                }
                out.push(q);
            }
            if sel.distinct {
                let mut q = self.clone();
                if let Some(s) = q.select_mut() {
                    s.distinct = false;
                }
                out.push(q);
            }
            for i in 0..sel.items.len() {
                if let Some(q) = self.without_item(i) {
                    out.push(q);
                }
            }
            // GROUP BY positions and aliases written as the expressions they name.
            for (gi, g) in sel.group_by.iter().enumerate() {
                let named = match g {
                    Target::Ordinal(i) => sel.items.get(i.wrapping_sub(1)),
                    Target::Alias(a) => sel
                        .items
                        .iter()
                        .find(|it| matches!(it, Item::Expr(_, Some(x)) if x == a)),
                    _ => None,
                };
                if let Some(Item::Expr(e, _)) = named {
                    let mut q = self.clone();
                    if let Some(s) = q.select_mut() {
                        s.group_by[gi] = Target::Expr(e.clone());
                    }
                    out.push(q);
                }
            }
        }
        // Each expression one step simpler.
        let slots = self.expr_slots();
        for k in 0..slots {
            let Some(e) = self.clone().expr_slot_mut(k).map(|e| e.clone()) else {
                continue;
            };
            for simpler in e.simplifications() {
                let mut q = self.clone();
                if let Some(slot) = q.expr_slot_mut(k) {
                    *slot = simpler;
                    out.push(q);
                }
            }
        }
        out
    }

    /// The query without select item `i`, when nothing refers to the item by position
    /// or alias (later positions are renumbered).
    fn without_item(&self, i: usize) -> Option<Query> {
        let sel = self.select()?;
        if sel.items.len() < 2 {
            return None;
        }
        let alias = match &sel.items[i] {
            Item::Expr(_, a) => a.clone(),
            Item::Star => None,
        };
        let refers = |t: &Target| {
            t.plain().into_iter().any(|t| match t {
                Target::Ordinal(p) => *p == i + 1,
                Target::Alias(a) => alias.as_deref() == Some(a.as_str()),
                _ => false,
            })
        };
        if sel.group_by.iter().any(refers) || self.order_by.iter().any(|o| refers(&o.target)) {
            return None;
        }
        let renumber = |t: &mut Target| {
            for t in t.plain_mut() {
                if let Target::Ordinal(p) = t {
                    if *p > i + 1 {
                        *p -= 1;
                    }
                }
            }
        };
        let mut q = self.clone();
        let s = q.select_mut()?;
        s.items.remove(i);
        s.group_by.iter_mut().for_each(renumber);
        q.order_by.iter_mut().for_each(|o| renumber(&mut o.target));
        Some(q)
    }

    /// Number of top-level expression slots of the top SELECT and ORDER BY.
    fn expr_slots(&self) -> usize {
        let mut n = 0;
        let mut q = self.clone();
        while q.expr_slot_mut(n).is_some() {
            n += 1;
        }
        n
    }

    /// Top-level expression slot `k`: select items, WHERE, GROUP BY expressions,
    /// HAVING, QUALIFY, ORDER BY expressions, in that order.
    fn expr_slot_mut(&mut self, mut k: usize) -> Option<&mut Expr> {
        let mut slots: Vec<&mut Expr> = Vec::new();
        if let Body::Select(s) = &mut self.body {
            for it in &mut s.items {
                if let Item::Expr(e, _) = it {
                    slots.push(e);
                }
            }
            if let Some(w) = &mut s.filter {
                slots.push(w);
            }
            for g in &mut s.group_by {
                for t in g.plain_mut() {
                    if let Target::Expr(e) = t {
                        slots.push(e);
                    }
                }
            }
            if let Some(h) = &mut s.having {
                slots.push(h);
            }
            if let Some(q) = &mut s.qualify {
                slots.push(q);
            }
        }
        for o in &mut self.order_by {
            if let Target::Expr(e) = &mut o.target {
                slots.push(e);
            }
        }
        if k >= slots.len() {
            return None;
        }
        let mut it = slots.into_iter();
        while k > 0 {
            it.next();
            k -= 1;
        }
        it.next()
    }
}

fn visit_body(b: &Body, f: &mut dyn FnMut(&Expr)) {
    match b {
        Body::Select(s) => {
            for it in &s.items {
                if let Item::Expr(e, _) = it {
                    f(e);
                }
            }
            match &s.from {
                From::Table(_) => {}
                From::Subquery(q, _) => q.visit_exprs(f),
                From::Join { on, .. } => f(on),
            }
            if let Some(w) = &s.filter {
                f(w);
            }
            for g in &s.group_by {
                for t in g.plain() {
                    if let Target::Expr(e) = t {
                        f(e);
                    }
                }
            }
            if let Some(h) = &s.having {
                f(h);
            }
            if let Some(q) = &s.qualify {
                f(q);
            }
        }
        Body::SetOp(_, l, r) => {
            visit_body(l, f);
            visit_body(r, f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(c: &str) -> Expr {
        Expr::Col(c.into())
    }

    fn lit(l: &str) -> Expr {
        Expr::Lit(l.into())
    }

    #[test]
    fn renders_parenthesised_sql() {
        let sel = Select {
            distinct: false,
            items: vec![
                Item::Expr(col("c0"), Some("k0".into())),
                Item::Expr(Expr::Agg("count", false, None), None),
            ],
            from: From::Table("t".into()),
            filter: Some(Expr::Between(
                col("c1").boxed(),
                Expr::Bin("-", lit("0.06").boxed(), lit("0.01").boxed()).boxed(),
                Expr::Bin("+", lit("0.06").boxed(), lit("0.01").boxed()).boxed(),
                false,
            )),
            group_by: vec![Target::Ordinal(1)],
            having: None,
            qualify: None,
        };
        let mut q = Query::simple(sel);
        q.order_by.push(OrderItem {
            target: Target::Alias("k0".into()),
            desc: true,
            nulls_first: Some(false),
        });
        q.limit = Some(3);
        assert_eq!(
            q.sql(),
            "SELECT c0 AS k0, count(*) FROM t WHERE (c1 BETWEEN (0.06 - 0.01) AND (0.06 + 0.01)) \
             GROUP BY 1 ORDER BY k0 DESC NULLS LAST LIMIT 3"
        );
        assert!(!q.sql_without_limit().contains("LIMIT"));
        assert_eq!(q.columns(), vec!["c0".to_string(), "c1".to_string()]);
        let simpler = q.simplifications();
        assert!(simpler.iter().any(|s| s.limit.is_none()));
        assert!(simpler
            .iter()
            .any(|s| s.select().is_some_and(|x| x.filter.is_none())));
        // The grouped item is referred to by position: it stays.
        assert!(simpler.iter().all(|s| s
            .select()
            .is_some_and(|x| matches!(x.items[0], Item::Expr(Expr::Col(_), _)))
            || s.select().is_some_and(|x| x.items.len() == 2)));
    }
}
