//! Random queries over strata's grammar: filters (AND/OR/NOT, comparisons, BETWEEN, IN,
//! LIKE/ILIKE, IS [NOT] NULL), arithmetic, string and date functions, rounding,
//! COALESCE/GREATEST/LEAST/NULLIF/IFNULL, CASE, CAST, TRY_CAST, math functions
//! (`sqrt`, `ln`, `pow`, `gcd`, `isnan`, ...), string functions (`replace`, `split_part`,
//! `lpad`, `regexp_extract`, `format`, ...), regular expression operators (`~`, `SIMILAR
//! TO`), IS [NOT] DISTINCT FROM, INTERVAL arithmetic (`date_sub`, `age`, `ts - ts`,
//! `INTERVAL (x) DAY`), GROUP BY expressions (and ROLLUP, CUBE, GROUPING SETS with
//! grouping()), HAVING, aggregates (COUNT/SUM/AVG/MIN/MAX, the statistics, quantiles,
//! string_agg, bit and bool aggregates, ...: [`Gen::aggregate`]) with DISTINCT, FILTER and
//! ORDER BY, ORDER BY with ASC/DESC and NULLS
//! FIRST/LAST, LIMIT/OFFSET, decimal literals. Constructs strata does not have yet
//! (subqueries in FROM, CTEs, set operations, SELECT DISTINCT, joins, window functions)
//! are generated only when their [`Features`] flag is on.
//!
//! Literals are mostly drawn from the table's own values (so that predicates select
//! something), sometimes written as arithmetic of two literals (`0.06 + 0.01`).

use anyhow::{bail, Result};

mod window;

use super::ast::{AggCall, Body, Expr, From, Item, OrderItem, Query, Select, Target};
use super::cell::{civil_from_days, format_decimal, format_float, kind_of, Cell, ColType, Kind};
use super::rng::Rng;
use super::table::TableData;

/// Constructs generated only when switched on (`--features`): the fixed-seed CI
/// run keeps to single SELECTs, longer runs switch them all on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    /// `FROM (SELECT ...) AS s`.
    pub subqueries: bool,
    /// `WITH s AS (...) SELECT ... FROM s`.
    pub ctes: bool,
    /// `UNION [ALL]`, `INTERSECT`, `EXCEPT`.
    pub set_ops: bool,
    /// `SELECT DISTINCT`.
    pub distinct: bool,
    /// Self-joins (`t AS a JOIN t AS b ON ...`), on small tables.
    pub joins: bool,
    /// Window functions (`sum(x) OVER (PARTITION BY k)`, `rank() OVER (...)`).
    pub windows: bool,
}

/// The names [`Features::parse`] accepts.
pub const FEATURE_NAMES: [&str; 6] = [
    "subqueries",
    "ctes",
    "set-ops",
    "distinct",
    "joins",
    "windows",
];

impl Features {
    /// Features from a comma-separated list of [`FEATURE_NAMES`] (or `all`).
    pub fn parse(list: &str) -> Result<Features> {
        let mut f = Features::default();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "all" => {
                    f = Features {
                        subqueries: true,
                        ctes: true,
                        set_ops: true,
                        distinct: true,
                        joins: true,
                        windows: true,
                    }
                }
                "subqueries" => f.subqueries = true,
                "ctes" => f.ctes = true,
                "set-ops" => f.set_ops = true,
                "distinct" => f.distinct = true,
                "joins" => f.joins = true,
                "windows" => f.windows = true,
                other => bail!(
                    "unknown feature {other:?} (known: {}, all)",
                    FEATURE_NAMES.join(", ")
                ),
            }
        }
        Ok(f)
    }
}

/// A column a query may read: its name as written, kind, type and some of its values.
#[derive(Debug, Clone)]
struct ScopeCol {
    name: String,
    kind: Kind,
    ty: Option<ColType>,
    samples: Vec<Cell>,
}

/// Where an expression is generated: over table rows, or over groups (leaves are the
/// group keys and aggregates over rows).
#[derive(Clone)]
enum Ctx {
    Row,
    Groups(Vec<(Expr, Kind)>),
}

/// The query generator for one table.
pub struct Gen<'a> {
    rng: &'a mut Rng,
    features: Features,
    table: String,
    cols: Vec<ScopeCol>,
    rows: usize,
    max_depth: u32,
    /// The SELECT being generated has a window whose value depends on the order of
    /// peers (see `gen/window.rs`).
    tied_window: bool,
    /// The grouped SELECT being generated groups by ROLLUP, CUBE or GROUPING SETS: a
    /// window over its groups breaks ties by `grouping()` of the keys too (a key NULL
    /// in the data and one its set leaves out are equal values).
    grouping_sets: bool,
    /// A join query whose grouping reads one side and whose aggregates the
    /// other: the group keys' columns, then the aggregates' (the shape
    /// `aggregate_below_join` rewrites).
    sides: Option<(Vec<ScopeCol>, Vec<ScopeCol>)>,
}

const ALL_KINDS: [Kind; 7] = [
    Kind::Bool,
    Kind::Int,
    Kind::Float,
    Kind::Dec,
    Kind::Str,
    Kind::Date,
    Kind::Ts,
];

fn col(name: &str) -> Expr {
    Expr::Col(name.to_string())
}

fn lit(text: impl Into<String>) -> Expr {
    Expr::Lit(text.into())
}

fn bin(op: &'static str, a: Expr, b: Expr) -> Expr {
    Expr::Bin(op, a.boxed(), b.boxed())
}

fn func(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Func(name.to_string(), args)
}

/// A string literal (quotes doubled).
pub fn str_lit(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

impl<'a> Gen<'a> {
    /// A generator over `table` (named `name` in FROM), whose non-UTF-8 columns are
    /// left out unless `raw` (queries for the oracles alone may read them).
    pub fn new(
        rng: &'a mut Rng,
        features: Features,
        name: &str,
        table: &TableData,
        raw: bool,
    ) -> Gen<'a> {
        let mut cols = Vec::new();
        for c in &table.columns {
            if c.raw_bytes && !raw {
                continue;
            }
            let mut samples: Vec<Cell> = Vec::new();
            let n = c.values.len();
            for k in 0..64.min(n * 2) {
                let v = &c.values[(mix(k as u64 ^ n as u64) % n as u64) as usize];
                if !v.is_null() && !samples.contains(v) {
                    samples.push(v.clone());
                }
            }
            cols.push(ScopeCol {
                name: c.name.clone(),
                kind: kind_of(c.ty),
                ty: Some(c.ty),
                samples,
            });
        }
        let max_depth = 3;
        Gen {
            rng,
            features,
            table: name.to_string(),
            cols,
            rows: table.rows(),
            max_depth,
            tied_window: false,
            grouping_sets: false,
            sides: None,
        }
    }

    /// Whether there is any column to query.
    pub fn has_columns(&self) -> bool {
        !self.cols.is_empty()
    }

    /// A random query.
    pub fn query(&mut self) -> Query {
        let f = self.features;
        if f.set_ops && self.rng.chance(12) {
            return self.set_op_query();
        }
        if f.ctes && self.rng.chance(10) {
            return self.derived_query(true);
        }
        if f.subqueries && self.rng.chance(10) {
            return self.derived_query(false);
        }
        if f.joins && self.rows <= 300 && self.rng.chance(12) {
            return self.join_query();
        }
        self.base_query()
    }

    /// A plain or grouped query over the current scope.
    fn base_query(&mut self) -> Query {
        match self.rng.weighted(&[45, 15, 40]) {
            0 => self.plain_query(),
            1 => self.aggregate_query(false),
            _ => self.aggregate_query(true),
        }
    }

    /// A random boolean expression over rows (for the oracles).
    pub fn predicate(&mut self) -> Expr {
        self.expr(Kind::Bool, 0, &Ctx::Row)
    }

    /// A random expression of `kind` over rows, with `max` nesting at most.
    pub fn row_expr(&mut self, kind: Kind, max: u32) -> Expr {
        let d = self.max_depth.saturating_sub(max);
        self.expr(kind, d, &Ctx::Row)
    }

    /// A column of any kind (or a literal if there is none).
    pub fn column(&mut self) -> Expr {
        if self.cols.is_empty() {
            return lit("1");
        }
        let i = self.rng.index(self.cols.len());
        col(&self.cols[i].name)
    }

    /// The kinds of the scope's columns (never empty).
    fn kinds(&self) -> Vec<Kind> {
        let mut k: Vec<Kind> = Vec::new();
        for c in &self.cols {
            if !k.contains(&c.kind) {
                k.push(c.kind);
            }
        }
        if k.is_empty() {
            k.push(Kind::Int);
        }
        k
    }

    /// A kind to build an expression of: mostly the kinds of columns.
    fn some_kind(&mut self) -> Kind {
        if self.rng.chance(80) {
            let k = self.kinds();
            *self.rng.pick(&k)
        } else {
            *self.rng.pick(&ALL_KINDS)
        }
    }

    fn plain_query(&mut self) -> Query {
        self.tied_window = false;
        let mut items = Vec::new();
        let star = self.rng.chance(8);
        if star {
            items.push(Item::Star);
        } else {
            let n = 1 + self.rng.weighted(&[30, 30, 20, 12, 8]);
            for i in 0..n {
                let e = if self.rng.chance(45) {
                    self.column()
                } else {
                    let k = self.some_kind();
                    let d = self.rng.range(0, 2) as u32;
                    self.row_expr(k, d)
                };
                let alias = self.rng.chance(30).then(|| format!("a{i}"));
                items.push(Item::Expr(e, alias));
            }
            if self.features.windows && self.rng.chance(35) {
                for i in 0..1 + self.rng.weighted(&[70, 20, 10]) {
                    let w = self.window_item(&Ctx::Row);
                    items.push(Item::Expr(w, Some(format!("w{i}"))));
                }
            }
        }
        let qualify =
            (self.features.windows && !star && self.rng.chance(8)).then(|| self.qualify(&Ctx::Row));
        let filter = self.rng.chance(70).then(|| self.predicate());
        let select = Select {
            distinct: self.features.distinct && !star && self.rng.chance(15),
            items,
            from: From::Table(self.table.clone()),
            filter,
            group_by: Vec::new(),
            having: None,
            qualify,
        };
        let mut q = Query::simple(select);
        self.order_and_limit(&mut q, true);
        q
    }

    fn aggregate_query(&mut self, grouped: bool) -> Query {
        let mut keys: Vec<(Expr, Kind)> = Vec::new();
        let sides = self.sides.take();
        let all_cols = sides
            .as_ref()
            .map(|(keys_side, _)| std::mem::replace(&mut self.cols, keys_side.clone()));
        if grouped {
            let n = 1 + self.rng.weighted(&[55, 30, 15]);
            for _ in 0..n {
                let (e, k) = if self.rng.chance(70) || self.cols.is_empty() {
                    match self.cols.len() {
                        0 => (lit("1"), Kind::Int),
                        len => {
                            let c = &self.cols[self.rng.index(len)];
                            (col(&c.name), c.kind)
                        }
                    }
                } else {
                    let k = self.some_kind();
                    (self.row_expr(k, 1), k)
                };
                if !keys.iter().any(|(x, _)| *x == e) {
                    keys.push((e, k));
                }
            }
        }
        let ctx = Ctx::Groups(keys.clone());
        let mut items = Vec::new();
        let mut group_by = Vec::new();
        for (i, (k, _)) in keys.iter().enumerate() {
            if self.rng.chance(85) {
                let alias = format!("k{i}");
                items.push(Item::Expr(k.clone(), Some(alias.clone())));
                let pos = items.len();
                group_by.push(match self.rng.weighted(&[50, 30, 20]) {
                    0 => Target::Expr(k.clone()),
                    1 => Target::Ordinal(pos),
                    _ => Target::Alias(alias),
                });
            } else {
                group_by.push(Target::Expr(k.clone()));
            }
        }
        // Constant keys stay out of grouping sets: DuckDB makes a constant equal to a
        // key NULL where the set leaves the key out, but only before it folds constants
        // (`765 + 9` with the key 765), which strata has done by then.
        let constant_key = keys.iter().any(|(e, _)| {
            let mut cols = Vec::new();
            e.columns(&mut cols);
            cols.is_empty()
        });
        self.grouping_sets = false;
        if grouped && !constant_key && self.rng.chance(20) {
            group_by = self.grouping_sets(group_by);
            self.grouping_sets = true;
            if self.rng.chance(50) {
                let n = 1 + self.rng.index(keys.len().min(3));
                let args: Vec<Expr> = (0..n).map(|_| self.rng.pick(&keys).0.clone()).collect();
                items.push(Item::Expr(func("grouping", args), Some("gid".into())));
            }
        }
        if let Some((_, aggs_side)) = &sides {
            self.cols = aggs_side.clone();
        }
        let naggs = 1 + self.rng.weighted(&[35, 35, 20, 10]);
        for i in 0..naggs {
            let k = self.some_kind();
            let e = if self.rng.chance(70) {
                self.aggregate(k)
            } else {
                let d = self.rng.range(1, 2) as u32;
                self.expr(k, self.max_depth.saturating_sub(d), &ctx)
            };
            let alias = self.rng.chance(40).then(|| format!("g{i}"));
            items.push(Item::Expr(e, alias));
        }
        if let Some(cols) = all_cols {
            self.cols = cols;
        }
        if grouped && self.features.windows && self.rng.chance(25) {
            let w = self.window_item(&ctx);
            items.push(Item::Expr(w, Some("w0".into())));
        }
        let filter = self.rng.chance(60).then(|| self.predicate());
        let having = (grouped && self.rng.chance(30)).then(|| self.expr(Kind::Bool, 1, &ctx));
        let select = Select {
            distinct: false,
            items,
            from: From::Table(self.table.clone()),
            filter,
            group_by,
            having,
            qualify: None,
        };
        let mut q = Query::simple(select);
        if grouped {
            self.order_and_limit(&mut q, false);
        }
        q
    }

    /// ORDER BY some select items (by position, alias or expression) and LIMIT/OFFSET.
    fn order_and_limit(&mut self, q: &mut Query, plain: bool) {
        let Some(sel) = q.select() else { return };
        let items = sel.items.clone();
        if self.rng.chance(50) {
            let n = 1 + self.rng.weighted(&[60, 30, 10]);
            for _ in 0..n {
                let target = match items.first() {
                    Some(Item::Star) => match self.cols.len() {
                        0 => Target::Ordinal(1),
                        len => {
                            let i = self.rng.index(len);
                            if self.rng.chance(50) {
                                Target::Expr(col(&self.cols[i].name))
                            } else {
                                Target::Ordinal(i + 1)
                            }
                        }
                    },
                    _ => {
                        let i = self.rng.index(items.len());
                        match &items[i] {
                            Item::Expr(e, alias) => match self.rng.weighted(&[35, 30, 35]) {
                                0 => Target::Ordinal(i + 1),
                                1 if alias.is_some() => {
                                    Target::Alias(alias.clone().unwrap_or_default())
                                }
                                _ => Target::Expr(e.clone()),
                            },
                            Item::Star => Target::Ordinal(1),
                        }
                    }
                };
                if q.order_by.iter().any(|o| o.target == target) {
                    continue;
                }
                q.order_by.push(OrderItem {
                    target,
                    desc: self.rng.chance(40),
                    nulls_first: match self.rng.below(3) {
                        0 => None,
                        1 => Some(true),
                        _ => Some(false),
                    },
                });
            }
        }
        if self.rng.chance(if plain { 35 } else { 30 }) {
            q.limit = Some(match self.rng.weighted(&[10, 60, 20, 10]) {
                0 => 0,
                1 => self.rng.range(1, 10) as u64,
                2 => self.rng.range(11, 100) as u64,
                _ => 1000,
            });
            if self.rng.chance(30) {
                q.offset = Some(self.rng.range(0, 20) as u64);
            }
        } else if self.rng.chance(3) {
            q.offset = Some(self.rng.range(1, 5) as u64);
        }
    }

    /// GROUP BY items turned into ROLLUP, CUBE or GROUPING SETS (sometimes after a
    /// plain first item).
    fn grouping_sets(&mut self, mut group_by: Vec<Target>) -> Vec<Target> {
        let plain = if group_by.len() > 1 && self.rng.chance(30) {
            vec![group_by.remove(0)]
        } else {
            Vec::new()
        };
        let n = group_by.len();
        let sets = match self.rng.below(3) {
            0 => Target::Rollup(group_by),
            1 if n <= 3 => Target::Cube(group_by),
            _ => {
                let count = 1 + self.rng.index(4);
                let sets = (0..count)
                    .map(|_| {
                        group_by
                            .iter()
                            .filter(|_| self.rng.chance(50))
                            .cloned()
                            .collect()
                    })
                    .collect();
                Target::Sets(sets)
            }
        };
        let mut out = plain;
        out.push(sets);
        out
    }

    /// An argument of `kind` for an aggregate: mostly a column.
    fn agg_arg(&mut self, kind: Kind) -> Expr {
        if self.rng.chance(60) {
            if let Some(c) = self.column_of(kind) {
                return c;
            }
        }
        self.row_expr(kind, 1)
    }

    /// A quantile fraction literal.
    fn fraction(&mut self) -> Expr {
        lit(*self.rng.pick(&[
            "0", "0.1", "0.25", "0.5", "0.75", "0.9", "1", "-0.3", "0.33",
        ]))
    }

    /// One of the aggregates beyond COUNT/SUM/AVG/MIN/MAX producing `kind`, with
    /// DISTINCT, ORDER BY (ending with the argument, so ties cannot change the
    /// answer) and FILTER where they apply; `None` to use a classic one.
    fn rich_aggregate(&mut self, kind: Kind) -> Option<Expr> {
        let numeric = [Kind::Int, Kind::Float, Kind::Dec];
        let mut c = AggCall {
            func: "count",
            distinct: false,
            args: Vec::new(),
            order: Vec::new(),
            within: false,
            filter: None,
        };
        // Ordered by `x` (after another key, sometimes): ties hold equal values.
        let ordered = |g: &mut Gen<'_>, x: &Expr| -> Vec<(Expr, bool)> {
            let mut o = Vec::new();
            if g.rng.chance(40) {
                let k = g.some_kind();
                o.push((g.agg_arg(k), g.rng.chance(50)));
            }
            o.push((x.clone(), g.rng.chance(50)));
            o
        };
        match kind {
            Kind::Int => match self.rng.below(9) {
                0 => c.func = "count",
                1 => {
                    c.func = "count_if";
                    c.args = vec![self.predicate()];
                }
                2 => {
                    c.func = *self.rng.pick(&["bit_and", "bit_or", "bit_xor"]);
                    c.args = vec![self.agg_arg(Kind::Int)];
                    c.distinct = self.rng.chance(15);
                }
                3 => {
                    // Few distinct values: strata counts them exactly; where DuckDB's
                    // estimate differs, its exact count(DISTINCT) is the check.
                    c.func = "approx_count_distinct";
                    let x = self.agg_arg(Kind::Int);
                    c.args = vec![bin("%", x, lit("7"))];
                }
                4 => {
                    c.func = "mode";
                    let x = self.agg_arg(Kind::Int);
                    c.order = vec![(x.clone(), self.rng.chance(50))];
                    c.args = vec![x];
                }
                5 => {
                    c.func = "quantile_disc";
                    c.args = vec![self.agg_arg(Kind::Int), self.fraction()];
                    c.distinct = self.rng.chance(15);
                }
                6 => {
                    c.func = *self.rng.pick(&["first", "last"]);
                    let x = self.agg_arg(Kind::Int);
                    c.order = ordered(self, &x);
                    c.args = vec![x];
                }
                7 => {
                    c.func = *self.rng.pick(&["arg_max", "arg_min", "max_by", "min_by"]);
                    let x = self.agg_arg(Kind::Int);
                    let k = *self.rng.pick(&ALL_KINDS);
                    c.args = vec![x.clone(), self.agg_arg(k)];
                    c.order = vec![(x, self.rng.chance(50))];
                }
                _ => {
                    c.func = "regr_count";
                    let (a, b) = (*self.rng.pick(&numeric), *self.rng.pick(&numeric));
                    c.args = vec![self.agg_arg(a), self.agg_arg(b)];
                }
            },
            Kind::Float => match self.rng.below(8) {
                0 => {
                    c.func = *self.rng.pick(&[
                        "var_samp",
                        "var_pop",
                        "stddev_samp",
                        "stddev_pop",
                        "variance",
                        "stddev",
                    ]);
                    let k = *self.rng.pick(&numeric);
                    c.args = vec![self.agg_arg(k)];
                    c.distinct = self.rng.chance(15);
                }
                1 => {
                    c.func = *self.rng.pick(&[
                        "corr",
                        "covar_samp",
                        "covar_pop",
                        "regr_slope",
                        "regr_intercept",
                        "regr_r2",
                        "regr_avgx",
                        "regr_avgy",
                        "regr_sxx",
                        "regr_syy",
                        "regr_sxy",
                    ]);
                    let (a, b) = (*self.rng.pick(&numeric), *self.rng.pick(&numeric));
                    c.args = vec![self.agg_arg(a), self.agg_arg(b)];
                }
                2 => {
                    c.func = *self.rng.pick(&["median", "quantile_cont"]);
                    let k = *self.rng.pick(&[Kind::Int, Kind::Float]);
                    c.args = vec![self.agg_arg(k)];
                    if c.func == "quantile_cont" {
                        c.args.push(self.fraction());
                    }
                    c.distinct = self.rng.chance(15);
                }
                3 => {
                    c.func = "percentile_cont";
                    let k = *self.rng.pick(&[Kind::Int, Kind::Float]);
                    let x = self.agg_arg(k);
                    c.args = vec![self.fraction()];
                    c.order = vec![(x, self.rng.chance(30))];
                    c.within = true;
                }
                4 => {
                    // Not `product`: where its value overflows depends on the order rows
                    // are multiplied in (then `inf * 0` is NaN), which no engine fixes.
                    c.func = *self.rng.pick(&["fsum", "favg"]);
                    c.args = vec![self.agg_arg(Kind::Float)];
                }
                5 => {
                    c.func = "entropy";
                    let k = self.some_kind();
                    c.args = vec![self.agg_arg(k)];
                    c.distinct = self.rng.chance(10);
                }
                6 => {
                    c.func = *self.rng.pick(&["favg", "fsum"]);
                    c.args = vec![self.agg_arg(Kind::Float)];
                }
                _ => {
                    c.func = *self.rng.pick(&["kurtosis", "kurtosis_pop", "skewness"]);
                    let k = *self.rng.pick(&numeric);
                    c.args = vec![self.agg_arg(k)];
                }
            },
            Kind::Dec => {
                c.func = *self
                    .rng
                    .pick(&["median", "quantile_cont", "quantile_disc", "mode"]);
                let x = self.agg_arg(Kind::Dec);
                if c.func == "mode" {
                    c.order = vec![(x.clone(), self.rng.chance(50))];
                } else {
                    c.distinct = self.rng.chance(15);
                }
                c.args = vec![x];
                if c.func.starts_with("quantile") {
                    c.args.push(self.fraction());
                }
            }
            Kind::Str => match self.rng.below(4) {
                0 | 1 => {
                    c.func = *self.rng.pick(&["string_agg", "listagg", "group_concat"]);
                    let x = self.agg_arg(Kind::Str);
                    c.distinct = self.rng.chance(15);
                    c.order = if c.distinct {
                        vec![(x.clone(), self.rng.chance(50))]
                    } else {
                        ordered(self, &x)
                    };
                    c.args = vec![x];
                    if self.rng.chance(60) {
                        c.args.push(lit(*self.rng.pick(&["', '", "'|'", "''"])));
                    }
                }
                2 => {
                    c.func = *self.rng.pick(&["quantile_disc", "mode"]);
                    let x = self.agg_arg(Kind::Str);
                    if c.func == "mode" {
                        c.order = vec![(x.clone(), self.rng.chance(50))];
                        c.args = vec![x];
                    } else {
                        c.args = vec![x, self.fraction()];
                    }
                }
                _ => {
                    c.func = "percentile_disc";
                    let x = self.agg_arg(Kind::Str);
                    c.args = vec![self.fraction()];
                    c.order = vec![(x, self.rng.chance(30))];
                    c.within = true;
                }
            },
            Kind::Bool => {
                c.func = *self.rng.pick(&["bool_and", "bool_or"]);
                c.args = vec![self.predicate()];
            }
            Kind::Date => {
                c.func = *self.rng.pick(&["quantile_disc", "mode", "first"]);
                let x = self.agg_arg(Kind::Date);
                if c.func == "quantile_disc" {
                    c.args = vec![x, self.fraction()];
                } else {
                    c.order = vec![(x.clone(), self.rng.chance(50))];
                    c.args = vec![x];
                }
            }
            Kind::Ts => {
                c.func = *self.rng.pick(&["median", "quantile_cont"]);
                let k = *self.rng.pick(&[Kind::Date, Kind::Ts]);
                c.args = vec![self.agg_arg(k)];
                if c.func == "quantile_cont" {
                    c.args.push(self.fraction());
                }
            }
        }
        if self.rng.chance(25) {
            c.filter = Some(self.predicate());
        }
        Some(Expr::AggCall(Box::new(c)))
    }

    /// An aggregate call producing `kind`.
    fn aggregate(&mut self, kind: Kind) -> Expr {
        if self.rng.chance(45) {
            if let Some(e) = self.rich_aggregate(kind) {
                return e;
            }
        }
        let arg = |g: &mut Gen<'_>, k: Kind| -> Box<Expr> {
            if g.rng.chance(60) {
                if let Some(c) = g.column_of(k) {
                    return c.boxed();
                }
            }
            g.row_expr(k, 1).boxed()
        };
        match kind {
            Kind::Int => match self.rng.below(6) {
                0 => Expr::Agg("count", false, None),
                1 => {
                    let k = self.some_kind();
                    Expr::Agg("count", false, Some(arg(self, k)))
                }
                2 => {
                    let k = self.some_kind();
                    Expr::Agg("count", true, Some(arg(self, k)))
                }
                3 => Expr::Agg("sum", false, Some(arg(self, Kind::Int))),
                4 => Expr::Agg("min", false, Some(arg(self, Kind::Int))),
                _ => Expr::Agg("max", false, Some(arg(self, Kind::Int))),
            },
            Kind::Float => match self.rng.below(4) {
                0 => {
                    let k = *self.rng.pick(&[Kind::Int, Kind::Float, Kind::Dec]);
                    Expr::Agg("avg", false, Some(arg(self, k)))
                }
                1 => Expr::Agg("sum", false, Some(arg(self, Kind::Float))),
                2 => Expr::Agg("min", false, Some(arg(self, Kind::Float))),
                _ => Expr::Agg("max", false, Some(arg(self, Kind::Float))),
            },
            Kind::Dec => {
                let f = *self.rng.pick(&["sum", "min", "max"]);
                Expr::Agg(f, false, Some(arg(self, Kind::Dec)))
            }
            k => {
                let f = *self.rng.pick(&["min", "max"]);
                Expr::Agg(f, false, Some(arg(self, k)))
            }
        }
    }

    /// A column of `kind`, if the scope has one.
    fn column_of(&mut self, kind: Kind) -> Option<Expr> {
        let of: Vec<usize> = (0..self.cols.len())
            .filter(|&i| self.cols[i].kind == kind)
            .collect();
        if of.is_empty() {
            return None;
        }
        let i = *self.rng.pick(&of);
        Some(col(&self.cols[i].name))
    }

    /// Some values of the column `e` reads, if it is a plain column.
    fn samples_of(&self, e: &Expr) -> Option<(&[Cell], Option<ColType>)> {
        let Expr::Col(name) = e else { return None };
        self.cols
            .iter()
            .find(|c| c.name == *name)
            .map(|c| (c.samples.as_slice(), c.ty))
    }

    fn leaf(&mut self, kind: Kind, ctx: &Ctx) -> Expr {
        if let Ctx::Groups(keys) = ctx {
            let of: Vec<&Expr> = keys
                .iter()
                .filter(|(_, k)| *k == kind)
                .map(|(e, _)| e)
                .collect();
            match self.rng.weighted(&[35, 50, 15]) {
                0 if !of.is_empty() => return (*self.rng.pick(&of)).clone(),
                0 | 1 => return self.aggregate(kind),
                _ => return self.literal(kind, None),
            }
        }
        if self.rng.chance(75) {
            if let Some(c) = self.column_of(kind) {
                return c;
            }
        }
        self.literal(kind, None)
    }

    fn expr(&mut self, kind: Kind, depth: u32, ctx: &Ctx) -> Expr {
        if depth >= self.max_depth || self.rng.chance(30 + 10 * u64::from(depth)) {
            return self.leaf(kind, ctx);
        }
        let d = depth + 1;
        match kind {
            Kind::Bool => self.bool_expr(d, ctx),
            Kind::Int => self.int_expr(d, ctx),
            Kind::Float => self.float_expr(d, ctx),
            Kind::Dec => self.dec_expr(d, ctx),
            Kind::Str => self.str_expr(d, ctx),
            Kind::Date => self.date_expr(d, ctx),
            Kind::Ts => self.ts_expr(d, ctx),
        }
    }

    /// `CASE`, `COALESCE`, `GREATEST`/`LEAST` or `NULLIF` of `kind`.
    fn conditional(&mut self, kind: Kind, d: u32, ctx: &Ctx) -> Expr {
        match self.rng.below(5) {
            0 | 1 => {
                let n = 1 + self.rng.index(3);
                let mut whens = Vec::new();
                let simple = self.rng.chance(25);
                let operand = simple.then(|| {
                    let k = self.some_kind();
                    (self.expr(k, d, ctx), k)
                });
                for _ in 0..n {
                    let w = match &operand {
                        Some((_, k)) => self.literal(*k, None),
                        None => self.expr(Kind::Bool, d, ctx),
                    };
                    whens.push((w, self.expr(kind, d, ctx)));
                }
                let els = self.rng.chance(70).then(|| self.expr(kind, d, ctx).boxed());
                Expr::Case(operand.map(|(e, _)| e.boxed()), whens, els)
            }
            2 => {
                let n = 2 + self.rng.index(2);
                let args = (0..n).map(|_| self.expr(kind, d, ctx)).collect();
                func("coalesce", args)
            }
            3 => {
                let n = 2 + self.rng.index(2);
                let args = (0..n).map(|_| self.expr(kind, d, ctx)).collect();
                func(
                    if self.rng.chance(50) {
                        "greatest"
                    } else {
                        "least"
                    },
                    args,
                )
            }
            _ => {
                let a = self.expr(kind, d, ctx);
                let b = self.expr(kind, d, ctx);
                func(
                    if self.rng.chance(70) {
                        "nullif"
                    } else {
                        "ifnull"
                    },
                    vec![a, b],
                )
            }
        }
    }

    fn bool_expr(&mut self, d: u32, ctx: &Ctx) -> Expr {
        match self
            .rng
            .weighted(&[30, 14, 6, 8, 8, 8, 10, 5, 3, 4, 3, 4, 3])
        {
            10 => {
                let x = self.expr(Kind::Float, d, ctx);
                let name = *self.rng.pick(&["isnan", "isinf", "isfinite"]);
                func(name, vec![x])
            }
            11 => {
                let k = self.some_kind();
                let a = self.expr(k, d, ctx);
                let b = if self.rng.chance(50) {
                    self.literal_near(&a, k)
                } else {
                    self.expr(k, d, ctx)
                };
                let op = if self.rng.chance(50) {
                    "IS DISTINCT FROM"
                } else {
                    "IS NOT DISTINCT FROM"
                };
                bin(op, a, b)
            }
            12 => {
                let s = self.expr(Kind::Str, d, ctx);
                let re = *self.rng.pick(&[
                    "^a",
                    "o.",
                    "[0-9]+",
                    "(foo|bar)",
                    "^$",
                    "[A-Z]",
                    ".*é.*",
                    "a|b",
                ]);
                match self.rng.below(4) {
                    0 => {
                        let op = *self.rng.pick(&["~", "!~", "~*", "!~*"]);
                        bin(op, s, lit(str_lit(re)))
                    }
                    1 => bin("SIMILAR TO", s, lit(str_lit(re))),
                    2 => func("regexp_full_match", vec![s, lit(str_lit(re))]),
                    _ => func(
                        "regexp_matches",
                        vec![
                            s,
                            lit(str_lit(re)),
                            lit(str_lit(self.one(&["i", "c", "s"]))),
                        ],
                    ),
                }
            }
            0 => self.comparison(d, ctx),
            1 => {
                let n = 2 + self.rng.index(2);
                let v = (0..n).map(|_| self.expr(Kind::Bool, d, ctx)).collect();
                Expr::Logic(self.rng.chance(55), v)
            }
            2 => Expr::Not(self.expr(Kind::Bool, d, ctx).boxed()),
            3 => {
                let k = self.some_kind();
                Expr::IsNull(self.expr(k, d, ctx).boxed(), self.rng.chance(50))
            }
            4 => self.between(d, ctx),
            5 => self.in_list(d, ctx),
            6 => self.like(d, ctx),
            7 => {
                let s = self.expr(Kind::Str, d, ctx);
                let name =
                    *self
                        .rng
                        .pick(&["starts_with", "ends_with", "contains", "prefix", "suffix"]);
                let needle = self.pattern_text(&s, false);
                func(name, vec![s, lit(str_lit(&needle))])
            }
            8 => {
                let s = self.expr(Kind::Str, d, ctx);
                let re = *self.rng.pick(&[
                    "^a",
                    "b$",
                    "[0-9]+",
                    "o.",
                    "(foo|bar)",
                    "^$",
                    "\\s",
                    "[A-Z]",
                ]);
                func("regexp_matches", vec![s, lit(str_lit(re))])
            }
            _ => self.conditional(Kind::Bool, d, ctx),
        }
    }

    /// `a op b` of one kind (or two kinds that compare: numbers, dates and timestamps,
    /// a string literal against a date).
    fn comparison(&mut self, d: u32, ctx: &Ctx) -> Expr {
        let op = *self.rng.pick(&["=", "<>", "<", "<=", ">", ">=", "!="]);
        let k = self.some_kind();
        let a = self.expr(k, d, ctx);
        let b = match self.rng.below(10) {
            0..=5 => self.literal_near(&a, k),
            6 if k.is_numeric() => {
                let other = *self.rng.pick(&[Kind::Int, Kind::Float, Kind::Dec]);
                self.literal(other, None)
            }
            6 if k == Kind::Date => self.literal(Kind::Ts, None),
            6 if k == Kind::Ts => self.literal(Kind::Date, None),
            7 if matches!(k, Kind::Date | Kind::Ts) => {
                let (y, m, dd) = civil_from_days(self.rng.range(7_000, 25_000));
                lit(str_lit(&format!("{y:04}-{m:02}-{dd:02}")))
            }
            _ => self.expr(k, d, ctx),
        };
        if self.rng.chance(50) {
            bin(op, a, b)
        } else {
            bin(op, b, a)
        }
    }

    fn between(&mut self, d: u32, ctx: &Ctx) -> Expr {
        let k = *self.rng.pick(&[
            Kind::Int,
            Kind::Float,
            Kind::Dec,
            Kind::Str,
            Kind::Date,
            Kind::Ts,
        ]);
        let k = if self.kinds().contains(&k) {
            k
        } else {
            self.some_kind()
        };
        let x = self.expr(k, d, ctx);
        if self.rng.chance(30) {
            if let Some((lo, hi)) = self.range_around(&x) {
                return Expr::Between(x.boxed(), lo.boxed(), hi.boxed(), self.rng.chance(25));
            }
        }
        let (mut lo, mut hi) = (self.literal_near(&x, k), self.literal_near(&x, k));
        if self.rng.chance(50) {
            std::mem::swap(&mut lo, &mut hi);
        }
        Expr::Between(x.boxed(), lo.boxed(), hi.boxed(), self.rng.chance(25))
    }

    /// `(v - d, v + d)` written as literal arithmetic around a value `v` of `x`'s
    /// column, with `d` a unit of its last decimal place or a round step
    /// (`BETWEEN 0.06 - 0.01 AND 0.06 + 0.01`).
    fn range_around(&mut self, x: &Expr) -> Option<(Expr, Expr)> {
        let n = self.samples_of(x)?.0.len();
        let i = self.rng.index(n.max(1));
        let v = self.samples_of(x)?.0.get(i)?.clone();
        let (center, step) = match v {
            Cell::Dec(v, s) if s > 0 => {
                let unit = *self.rng.pick(&[1i128, 1, 5, 10, 25]);
                (format_decimal(v, s), format_decimal(unit, s))
            }
            Cell::Dec(v, _) | Cell::Int(v) => (v.to_string(), self.rng.range(1, 10).to_string()),
            Cell::Float(f) if f.is_finite() => {
                let c = format!("{f:?}");
                let c = if c.contains('e') { c } else { format!("{c}e0") };
                (c, (*self.rng.pick(&["0.25e0", "1e0", "0.1e0"])).to_string())
            }
            _ => return None,
        };
        Some((
            bin("-", lit(center.clone()), lit(step.clone())),
            bin("+", lit(center), lit(step)),
        ))
    }

    fn in_list(&mut self, d: u32, ctx: &Ctx) -> Expr {
        let k = self.some_kind();
        let x = self.expr(k, d, ctx);
        let n = 1 + self.rng.index(5);
        let mut list: Vec<Expr> = (0..n).map(|_| self.literal_near(&x, k)).collect();
        if self.rng.chance(10) {
            list.push(lit("NULL"));
        }
        Expr::InList(x.boxed(), list, self.rng.chance(30))
    }

    fn like(&mut self, d: u32, ctx: &Ctx) -> Expr {
        let s = self.expr(Kind::Str, d, ctx);
        let mut pattern = self.pattern_text(&s, true);
        let mut escape = None;
        if self.rng.chance(10) {
            pattern = format!("%!{}%", *self.rng.pick(&["%", "_", "!"]));
            escape = Some(str_lit("!"));
        }
        Expr::Like {
            expr: s.boxed(),
            pattern: str_lit(&pattern),
            ilike: self.rng.chance(30),
            negated: self.rng.chance(25),
            escape,
        }
    }

    /// A LIKE pattern (with `%` and `_`) or a plain needle, from the strings of `s`'s
    /// column when it is one.
    fn pattern_text(&mut self, s: &Expr, wildcards: bool) -> String {
        let strs: Vec<String> = self
            .samples_of(s)
            .map(|(v, _)| {
                v.iter()
                    .filter_map(|c| match c {
                        Cell::Str(b) => std::str::from_utf8(b).ok().map(str::to_string),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let sample = (!strs.is_empty()).then(|| strs[self.rng.index(strs.len())].clone());
        let base = sample.unwrap_or_else(|| {
            (*self
                .rng
                .pick(&["a", "ab", "foo", "o", "é", "item_0", "A", " ", "long-1"]))
            .to_string()
        });
        let chars: Vec<char> = base.chars().collect();
        let (from, to) = if chars.is_empty() {
            (0, 0)
        } else {
            let a = self.rng.index(chars.len());
            let b = a + self.rng.index(chars.len() - a + 1);
            (a, b.min(chars.len()).min(a + 6))
        };
        let mut core: String = chars[from..to].iter().collect();
        if !wildcards {
            return core;
        }
        if !core.is_empty() && self.rng.chance(30) {
            let mut cs: Vec<char> = core.chars().collect();
            let i = self.rng.index(cs.len());
            cs[i] = '_';
            core = cs.into_iter().collect();
        }
        match self.rng.below(5) {
            0 => base,
            1 => format!("{core}%"),
            2 => format!("%{core}"),
            3 => format!("%{core}%"),
            _ => format!("%{core}%_"),
        }
    }

    fn int_expr(&mut self, d: u32, ctx: &Ctx) -> Expr {
        match self.rng.weighted(&[25, 4, 10, 14, 3, 8, 10, 4, 4, 3, 3]) {
            7 => {
                let x = self.expr(Kind::Int, d, ctx);
                match self.rng.below(5) {
                    0 => func("abs", vec![x]),
                    1 => func("sign", vec![x]),
                    2 => {
                        let y = self.small_int();
                        func(self.one(&["gcd", "lcm"]), vec![x, y])
                    }
                    3 => func("mod", vec![x, self.small_int()]),
                    _ => {
                        let ty = *self
                            .rng
                            .pick(&["TINYINT", "SMALLINT", "INTEGER", "UTINYINT"]);
                        Expr::TryCast(x.boxed(), ty.to_string())
                    }
                }
            }
            8 => {
                let s = self.expr(Kind::Str, d, ctx);
                match self.rng.below(3) {
                    0 => {
                        let needle = self.pattern_text(&s, false);
                        func(
                            self.one(&["strpos", "instr"]),
                            vec![s, lit(str_lit(&needle))],
                        )
                    }
                    1 => func("ascii", vec![s]),
                    _ => Expr::TryCast(s.boxed(), "INTEGER".into()),
                }
            }
            9 => {
                let a = self.expr(Kind::Ts, d, ctx);
                let b = self.expr(Kind::Date, d, ctx);
                let part = *self
                    .rng
                    .pick(&["year", "quarter", "month", "week", "day", "hour", "minute"]);
                match self.rng.below(3) {
                    0 => func("date_sub", vec![lit(str_lit(part)), a, b]),
                    1 => Expr::Extract(
                        (*self.rng.pick(&["day", "hour", "minute", "second"])).into(),
                        bin("-", a, b).boxed(),
                    ),
                    _ => Expr::Extract(
                        (*self.rng.pick(&["year", "month", "day", "hour"])).into(),
                        func("age", vec![a, b]).boxed(),
                    ),
                }
            }
            10 => {
                let x = self.expr(Kind::Float, d, ctx);
                func("sign", vec![x])
            }
            0 => {
                let op = *self.rng.pick(&["+", "-", "*", "//", "%"]);
                let a = self.expr(Kind::Int, d, ctx);
                let b = if self.rng.chance(50) {
                    self.small_int()
                } else {
                    self.expr(Kind::Int, d, ctx)
                };
                bin(op, a, b)
            }
            1 => Expr::Neg(self.expr(Kind::Int, d, ctx).boxed()),
            2 => {
                let s = self.expr(Kind::Str, d, ctx);
                let name = *self.rng.pick(&["length", "strlen", "char_length"]);
                func(name, vec![s])
            }
            3 => self.date_part(d, ctx),
            4 => {
                let a = self.expr(Kind::Date, d, ctx);
                let b = self.expr(Kind::Date, d, ctx);
                bin("-", a, b)
            }
            5 => {
                let from =
                    *self
                        .rng
                        .pick(&[Kind::Int, Kind::Float, Kind::Dec, Kind::Bool, Kind::Int]);
                let x = self.expr(from, d, ctx);
                let ty = *self.rng.pick(&[
                    "TINYINT",
                    "SMALLINT",
                    "INTEGER",
                    "BIGINT",
                    "UTINYINT",
                    "USMALLINT",
                    "UINTEGER",
                    "UBIGINT",
                    "HUGEINT",
                ]);
                Expr::Cast(x.boxed(), ty.to_string())
            }
            _ => self.conditional(Kind::Int, d, ctx),
        }
    }

    fn date_part(&mut self, d: u32, ctx: &Ctx) -> Expr {
        let ts = self.rng.chance(50);
        let x = self.expr(if ts { Kind::Ts } else { Kind::Date }, d, ctx);
        let mut parts = vec![
            "year",
            "month",
            "day",
            "dayofweek",
            "dayofyear",
            "quarter",
            "week",
            "isodow",
            "isoyear",
        ];
        if ts {
            parts.extend(["hour", "minute", "second"]);
        }
        let part = *self.rng.pick(&parts);
        match self.rng.below(3) {
            0 => func(part, vec![x]),
            1 => {
                let p = match part {
                    "dayofweek" => "dow",
                    "dayofyear" => "doy",
                    p => p,
                };
                Expr::Extract(p.to_string(), x.boxed())
            }
            _ => func("date_part", vec![lit(str_lit(part)), x]),
        }
    }

    fn float_expr(&mut self, d: u32, ctx: &Ctx) -> Expr {
        match self.rng.weighted(&[22, 12, 3, 14, 6, 8, 10, 8, 3, 2]) {
            7 => {
                let k = *self.rng.pick(&[Kind::Float, Kind::Int, Kind::Dec]);
                let x = self.expr(k, d, ctx);
                let name = *self.rng.pick(&[
                    "sqrt", "cbrt", "exp", "ln", "log", "log2", "log10", "sin", "cos", "tan",
                    "asin", "acos", "atan", "degrees", "radians", "even", "abs",
                ]);
                if name == "abs" {
                    func(name, vec![Expr::Cast(x.boxed(), "DOUBLE".into())])
                } else {
                    func(name, vec![x])
                }
            }
            8 => {
                let a = self.expr(Kind::Float, d, ctx);
                let k = *self.rng.pick(&[Kind::Float, Kind::Int]);
                let b = self.expr(k, d, ctx);
                let name = *self.rng.pick(&["pow", "power", "atan2", "log"]);
                func(name, vec![a, b])
            }
            9 => {
                let a = self.expr(Kind::Ts, d, ctx);
                let b = self.expr(Kind::Ts, d, ctx);
                func("date_part", vec![lit(str_lit("epoch")), bin("-", a, b)])
            }
            0 => {
                let op = *self.rng.pick(&["+", "-", "*", "/", "%"]);
                let a = self.expr(Kind::Float, d, ctx);
                let k = *self.rng.pick(&[Kind::Float, Kind::Int, Kind::Float]);
                let b = self.expr(k, d, ctx);
                bin(op, a, b)
            }
            1 => {
                let k = *self.rng.pick(&[Kind::Int, Kind::Dec]);
                let a = self.expr(k, d, ctx);
                let b = self.expr(k, d, ctx);
                bin("/", a, b)
            }
            2 => Expr::Neg(self.expr(Kind::Float, d, ctx).boxed()),
            3 => {
                let x = self.expr(Kind::Float, d, ctx);
                self.rounding(x)
            }
            4 => {
                let x = self.expr(Kind::Ts, d, ctx);
                if self.rng.chance(50) {
                    func("epoch", vec![x])
                } else {
                    Expr::Extract("epoch".into(), x.boxed())
                }
            }
            5 => {
                let k = *self.rng.pick(&[Kind::Int, Kind::Dec, Kind::Float]);
                let x = self.expr(k, d, ctx);
                let ty = *self
                    .rng
                    .pick(&["DOUBLE", "REAL", "FLOAT", "FLOAT4", "FLOAT8"]);
                Expr::Cast(x.boxed(), ty.to_string())
            }
            _ => self.conditional(Kind::Float, d, ctx),
        }
    }

    fn dec_expr(&mut self, d: u32, ctx: &Ctx) -> Expr {
        match self.rng.weighted(&[22, 10, 3, 12, 10, 8, 10]) {
            0 => {
                let op = *self.rng.pick(&["+", "-"]);
                let a = self.expr(Kind::Dec, d, ctx);
                let k = *self.rng.pick(&[Kind::Dec, Kind::Int]);
                let b = self.expr(k, d, ctx);
                bin(op, a, b)
            }
            1 => {
                let a = self.expr(Kind::Dec, d, ctx);
                let b = if self.rng.chance(50) {
                    self.literal(Kind::Dec, None)
                } else {
                    self.expr(Kind::Int, d, ctx)
                };
                bin("*", a, b)
            }
            2 => Expr::Neg(self.expr(Kind::Dec, d, ctx).boxed()),
            3 => {
                let x = self.expr(Kind::Dec, d, ctx);
                self.rounding(x)
            }
            4 => {
                let k = *self.rng.pick(&[Kind::Int, Kind::Dec, Kind::Float]);
                let x = self.expr(k, d, ctx);
                let p = self.rng.range(1, 38);
                let s = self.rng.range(0, p.min(6));
                Expr::Cast(x.boxed(), format!("DECIMAL({p},{s})"))
            }
            5 => {
                // Arithmetic of decimal literals.
                let a = self.literal(Kind::Dec, None);
                let b = self.literal(Kind::Dec, None);
                let op = *self.rng.pick(&["+", "-", "*"]);
                bin(op, a, b)
            }
            _ => self.conditional(Kind::Dec, d, ctx),
        }
    }

    fn str_expr(&mut self, d: u32, ctx: &Ctx) -> Expr {
        match self
            .rng
            .weighted(&[12, 12, 10, 8, 4, 10, 10, 4, 5, 10, 10, 4, 3])
        {
            10 => {
                let x = self.expr(Kind::Str, d, ctx);
                let needle = self.pattern_text(&x, false);
                let n = lit(self.rng.range(-4, 7).to_string());
                match self.rng.below(9) {
                    0 => func(
                        "replace",
                        vec![x, lit(str_lit(&needle)), lit(str_lit("<>"))],
                    ),
                    1 => func(
                        "split_part",
                        vec![x, lit(str_lit(self.one(&[",", "o", "", "é", "_"]))), n],
                    ),
                    2 => func(self.one(&["left", "right"]), vec![x, n]),
                    3 => func("reverse", vec![x]),
                    4 => func(
                        self.one(&["lpad", "rpad"]),
                        vec![
                            x,
                            lit(self.rng.range(0, 8).to_string()),
                            lit(str_lit(self.one(&["*", "ab", "é"]))),
                        ],
                    ),
                    5 => func("repeat", vec![x, lit(self.rng.range(-1, 3).to_string())]),
                    6 => func(
                        "translate",
                        vec![x, lit(str_lit(&needle)), lit(str_lit("xY"))],
                    ),
                    7 => {
                        let re = *self
                            .rng
                            .pick(&["[0-9]+", "(o+)", "^(.)", "([a-z])([a-z])", "é"]);
                        let g = lit(self.rng.range(0, 2).to_string());
                        func("regexp_extract", vec![x, lit(str_lit(re)), g])
                    }
                    _ => func("md5", vec![x]),
                }
            }
            11 => {
                let n = 2 + self.rng.index(2);
                let mut args = vec![lit(str_lit(self.one(&[",", "", " - "])))];
                for _ in 0..n {
                    let k = self.some_kind();
                    args.push(self.expr(k, d, ctx));
                }
                func("concat_ws", args)
            }
            12 => {
                let a = self.expr(Kind::Str, d, ctx);
                let b = self.expr(Kind::Int, d, ctx);
                if self.rng.chance(50) {
                    func("format", vec![lit(str_lit("{}|{:>4}")), a, b])
                } else {
                    func("printf", vec![lit(str_lit("%s|%5d")), a, b])
                }
            }
            0 => {
                let x = self.expr(Kind::Str, d, ctx);
                let name = *self.rng.pick(&["lower", "upper", "lcase", "ucase"]);
                func(name, vec![x])
            }
            1 => {
                let x = self.expr(Kind::Str, d, ctx);
                let from = lit(self.rng.range(-3, 6).to_string());
                let name = *self.rng.pick(&["substring", "substr"]);
                if self.rng.chance(50) {
                    func(name, vec![x, from, lit(self.rng.range(0, 5).to_string())])
                } else {
                    func(name, vec![x, from])
                }
            }
            2 => {
                let x = self.expr(Kind::Str, d, ctx);
                let name = *self.rng.pick(&["trim", "ltrim", "rtrim"]);
                if self.rng.chance(40) {
                    let chars = *self.rng.pick(&["a", " ", "ab", "x y", "_%"]);
                    func(name, vec![x, lit(str_lit(chars))])
                } else {
                    func(name, vec![x])
                }
            }
            3 => {
                let n = 1 + self.rng.index(3);
                let args = (0..n)
                    .map(|_| {
                        let k = self.some_kind();
                        self.expr(k, d, ctx)
                    })
                    .collect();
                func("concat", args)
            }
            4 => {
                let x = self.expr(Kind::Str, d, ctx);
                if self.rng.chance(50) {
                    let len = self
                        .rng
                        .chance(50)
                        .then(|| lit(self.rng.range(0, 4).to_string()).boxed());
                    Expr::SubstringFrom(
                        x.boxed(),
                        lit(self.rng.range(1, 4).to_string()).boxed(),
                        len,
                    )
                } else {
                    let side = *self.rng.pick(&["LEADING", "TRAILING", "BOTH"]);
                    let chars = *self.rng.pick(&["'a'", "' '", "'xy'"]);
                    Expr::TrimFrom(side, lit(chars).boxed(), x.boxed())
                }
            }
            5 => {
                let a = self.expr(Kind::Str, d, ctx);
                let b = self.expr(Kind::Str, d, ctx);
                bin("||", a, b)
            }
            6 => {
                let k = self.some_kind();
                let x = self.expr(k, d, ctx);
                Expr::Cast(
                    x.boxed(),
                    (*self.rng.pick(&["VARCHAR", "TEXT", "STRING"])).to_string(),
                )
            }
            7 => {
                let x = self.expr(Kind::Str, d, ctx);
                let (p, r) = *self.rng.pick(&[
                    ("a", "X"),
                    ("[0-9]", "#"),
                    ("^.", ""),
                    ("(o+)", "<\\1>"),
                    (" ", "_"),
                ]);
                let mut args = vec![x, lit(str_lit(p)), lit(str_lit(r))];
                if self.rng.chance(50) {
                    args.push(lit("'g'"));
                }
                func("regexp_replace", args)
            }
            8 => {
                let k = if self.rng.chance(50) {
                    Kind::Date
                } else {
                    Kind::Ts
                };
                let x = self.expr(k, d, ctx);
                let f = *self
                    .rng
                    .pick(&["%Y-%m-%d", "%H:%M:%S", "%Y", "%d/%m/%Y %H", "%j", "%m"]);
                func("strftime", vec![x, lit(str_lit(f))])
            }
            _ => self.conditional(Kind::Str, d, ctx),
        }
    }

    fn date_expr(&mut self, d: u32, ctx: &Ctx) -> Expr {
        match self.rng.weighted(&[30, 10, 10, 15]) {
            0 => {
                let x = self.expr(Kind::Date, d, ctx);
                let n = lit(self.rng.range(-400, 400).to_string());
                if self.rng.chance(60) {
                    bin(if self.rng.chance(50) { "+" } else { "-" }, x, n)
                } else {
                    bin("+", n, x)
                }
            }
            1 => Expr::Cast(self.expr(Kind::Ts, d, ctx).boxed(), "DATE".into()),
            2 => {
                let (y, m, dd) = civil_from_days(self.rng.range(0, 30_000));
                Expr::Cast(
                    lit(str_lit(&format!("{y:04}-{m:02}-{dd:02}"))).boxed(),
                    "DATE".into(),
                )
            }
            _ => self.conditional(Kind::Date, d, ctx),
        }
    }

    fn ts_expr(&mut self, d: u32, ctx: &Ctx) -> Expr {
        match self.rng.weighted(&[20, 20, 10, 15, 6]) {
            4 => {
                let k = if self.rng.chance(50) {
                    Kind::Date
                } else {
                    Kind::Ts
                };
                let x = self.expr(k, d, ctx);
                let n = bin("%", self.expr(Kind::Int, d, ctx), lit("1000"));
                let unit = *self
                    .rng
                    .pick(&["to_days", "to_hours", "to_minutes", "to_months"]);
                let op = if self.rng.chance(60) { "+" } else { "-" };
                bin(op, x, func(unit, vec![n]))
            }
            0 => {
                let k = if self.rng.chance(50) {
                    Kind::Date
                } else {
                    Kind::Ts
                };
                let x = self.expr(k, d, ctx);
                let part = *self.rng.pick(&[
                    "year", "quarter", "month", "week", "day", "hour", "minute", "second",
                ]);
                func(
                    if self.rng.chance(80) {
                        "date_trunc"
                    } else {
                        "datetrunc"
                    },
                    vec![lit(str_lit(part)), x],
                )
            }
            1 => {
                let k = if self.rng.chance(50) {
                    Kind::Date
                } else {
                    Kind::Ts
                };
                let x = self.expr(k, d, ctx);
                let text = *self.rng.pick(&[
                    "1 day",
                    "3 days",
                    "2 hours",
                    "1 month",
                    "1 year",
                    "30 minutes",
                    "10 seconds",
                    "1 week",
                ]);
                Expr::Interval(
                    x.boxed(),
                    if self.rng.chance(60) { "+" } else { "-" },
                    text.to_string(),
                )
            }
            2 => Expr::Cast(self.expr(Kind::Date, d, ctx).boxed(), "TIMESTAMP".into()),
            _ => self.conditional(Kind::Ts, d, ctx),
        }
    }

    /// `round(x[, n])`, `floor(x)`, `ceil(x)` or `ceiling(x)`.
    fn rounding(&mut self, x: Expr) -> Expr {
        match self.rng.below(5) {
            0 => func("round", vec![x, self.small_int()]),
            1 => func("round", vec![x]),
            2 => func("floor", vec![x]),
            3 => func("ceil", vec![x]),
            _ => func("ceiling", vec![x]),
        }
    }

    /// One of `items`.
    fn one(&mut self, items: &[&'static str]) -> &'static str {
        items[self.rng.index(items.len())]
    }

    fn small_int(&mut self) -> Expr {
        lit(self.rng.range(-3, 12).to_string())
    }

    /// A literal of `kind`, mostly one of the values of `near`'s column.
    fn literal_near(&mut self, near: &Expr, kind: Kind) -> Expr {
        let sample = self
            .samples_of(near)
            .filter(|(v, _)| !v.is_empty())
            .map(|(v, ty)| (v.to_vec(), ty));
        match sample {
            Some((v, ty)) if self.rng.chance(80) => {
                let pick = v[self.rng.index(v.len())].clone();
                self.literal_of(&pick, ty)
            }
            _ => self.literal(kind, None),
        }
    }

    /// A random literal of `kind`.
    pub fn literal(&mut self, kind: Kind, _hint: Option<&Cell>) -> Expr {
        if self.rng.chance(4) {
            return lit("NULL");
        }
        // Values of a column of this kind, if any.
        if self.rng.chance(50) {
            let of: Vec<usize> = (0..self.cols.len())
                .filter(|&i| self.cols[i].kind == kind && !self.cols[i].samples.is_empty())
                .collect();
            if !of.is_empty() {
                let c = &self.cols[*self.rng.pick(&of)];
                let (v, ty) = (c.samples[self.rng.index(c.samples.len())].clone(), c.ty);
                return self.literal_of(&v, ty);
            }
        }
        let v = match kind {
            Kind::Bool => Cell::Bool(self.rng.chance(50)),
            Kind::Int => Cell::Int(match self.rng.below(4) {
                0 => i128::from(self.rng.range(-10, 10)),
                1 => i128::from(self.rng.range(-100_000, 100_000)),
                2 => *self.rng.pick(&[
                    i128::from(i8::MAX),
                    i128::from(i16::MIN),
                    i128::from(i32::MAX),
                    i128::from(i64::MIN),
                    i128::from(u64::MAX),
                    i128::from(u8::MAX) + 1,
                ]),
                _ => i128::from(self.rng.range(0, 1000)),
            }),
            Kind::Float => Cell::Float(match self.rng.below(6) {
                0 => f64::NAN,
                1 => f64::INFINITY,
                2 => -0.0,
                _ => self.rng.range(-4000, 4000) as f64 / 8.0,
            }),
            Kind::Dec => {
                let s = self.rng.range(0, 4) as u8;
                Cell::Dec(i128::from(self.rng.range(-99_999, 99_999)), s)
            }
            Kind::Str => Cell::Str(
                self.rng
                    .pick(&["", "a", "foo", "A", "é", "item_000123", "%", "abc"])
                    .as_bytes()
                    .to_vec(),
            ),
            Kind::Date => Cell::Date(self.rng.range(-1000, 30_000)),
            Kind::Ts => Cell::Ts(self.rng.range(-1_000_000_000, 2_000_000_000) * 1_000_000),
        };
        self.literal_of(&v, None)
    }

    /// The SQL literal of value `v` (from a column of type `ty`), sometimes written as
    /// arithmetic of two literals.
    fn literal_of(&mut self, v: &Cell, ty: Option<ColType>) -> Expr {
        let split = self.rng.chance(15);
        match v {
            Cell::Null => lit("NULL"),
            Cell::Bool(b) => lit(if *b { "TRUE" } else { "FALSE" }),
            Cell::Int(x) => {
                if split && x.unsigned_abs() < 1 << 60 {
                    let d = i128::from(self.rng.range(1, 9));
                    return bin("+", lit((x - d).to_string()), lit(d.to_string()));
                }
                if *x < 0 && self.rng.chance(30) {
                    return Expr::Neg(lit((-x).to_string()).boxed());
                }
                lit(x.to_string())
            }
            Cell::Float(f) => {
                let single = ty == Some(ColType::Float32);
                let cast = if single { "REAL" } else { "DOUBLE" };
                if !f.is_finite() || self.rng.chance(40) {
                    return Expr::Cast(lit(str_lit(&format_float(*f))).boxed(), cast.into());
                }
                if split {
                    return bin("+", lit(format!("{:?}e0", f - 0.5)), lit("0.5e0"));
                }
                let text = format!("{f:?}");
                if text.contains('e') {
                    lit(text)
                } else {
                    lit(format!("{text}e0"))
                }
            }
            Cell::Dec(x, s) => {
                let text = format_decimal(*x, *s);
                if let (
                    Some(ColType::Decimal {
                        precision: p,
                        scale: sc,
                    }),
                    true,
                ) = (ty, self.rng.chance(25))
                {
                    return Expr::Cast(lit(str_lit(&text)).boxed(), format!("DECIMAL({p},{sc})"));
                }
                if split && *s > 0 {
                    // v = (v - u) + u with u one unit of the last place (`0.06 + 0.01`).
                    let unit = 1i128;
                    let a = format_decimal(x - unit, *s);
                    let b = format_decimal(unit, *s);
                    return bin("+", lit(a), lit(b));
                }
                lit(text)
            }
            Cell::Date(days) => {
                let (y, m, d) = civil_from_days(*days);
                if (1..=9999).contains(&y) {
                    lit(format!("DATE '{y:04}-{m:02}-{d:02}'"))
                } else {
                    bin("+", lit("DATE '1970-01-01'"), lit(days.to_string()))
                }
            }
            Cell::Ts(us) => {
                let secs = us.div_euclid(1_000_000);
                let days = secs.div_euclid(86_400);
                let rem = secs.rem_euclid(86_400);
                let (y, m, d) = civil_from_days(days);
                if (1..=9999).contains(&y) {
                    lit(format!(
                        "TIMESTAMP '{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}'",
                        rem / 3600,
                        rem / 60 % 60,
                        rem % 60
                    ))
                } else {
                    Expr::Cast(
                        bin("+", lit("DATE '1970-01-01'"), lit(days.to_string())).boxed(),
                        "TIMESTAMP".into(),
                    )
                }
            }
            Cell::Str(b) => match std::str::from_utf8(b) {
                Ok(s) => lit(str_lit(s)),
                Err(_) => lit("'?'"),
            },
            Cell::Other(s) => lit(str_lit(s)),
        }
    }

    /// A query over `(SELECT ...) AS s` (or `WITH s AS (...)` when `cte`).
    fn derived_query(&mut self, cte: bool) -> Query {
        let n = 1 + self.rng.index(4);
        let mut items = Vec::new();
        let mut inner_cols = Vec::new();
        for i in 0..n {
            let k = self.some_kind();
            let e = if self.rng.chance(60) {
                self.column_of(k).unwrap_or_else(|| self.row_expr(k, 1))
            } else {
                self.row_expr(k, 1)
            };
            let name = format!("d{i}");
            let samples = self
                .samples_of(&e)
                .map(|(s, _)| s.to_vec())
                .unwrap_or_default();
            let ty = self.samples_of(&e).and_then(|(_, t)| t);
            items.push(Item::Expr(e, Some(name.clone())));
            inner_cols.push(ScopeCol {
                name,
                kind: k,
                ty,
                samples,
            });
        }
        let filter = self.rng.chance(50).then(|| self.predicate());
        let inner = Query::simple(Select {
            distinct: false,
            items,
            from: From::Table(self.table.clone()),
            filter,
            group_by: Vec::new(),
            having: None,
            qualify: None,
        });
        let saved = (
            std::mem::replace(&mut self.cols, inner_cols),
            self.table.clone(),
        );
        self.table = if cte { "s".into() } else { String::new() };
        let mut outer = self.base_query();
        (self.cols, self.table) = saved;
        if let Some(sel) = outer.select_mut() {
            sel.from = if cte {
                From::Table("s".into())
            } else {
                From::Subquery(Box::new(inner.clone()), "s".into())
            };
        }
        if cte {
            outer.with.push(("s".into(), inner));
        }
        outer
    }

    /// `SELECT .. UNION [ALL] | INTERSECT | EXCEPT SELECT ..` of the same kinds, ordered
    /// by position.
    fn set_op_query(&mut self) -> Query {
        let n = 1 + self.rng.index(3);
        let kinds: Vec<Kind> = (0..n).map(|_| self.some_kind()).collect();
        let side = |g: &mut Gen<'_>| -> Body {
            let items = kinds
                .iter()
                .map(|&k| {
                    let e = g
                        .column_of(k)
                        .filter(|_| g.rng.chance(60))
                        .unwrap_or_else(|| g.row_expr(k, 1));
                    Item::Expr(e, None)
                })
                .collect();
            let filter = g.rng.chance(60).then(|| g.predicate());
            Body::Select(Select {
                distinct: false,
                items,
                from: From::Table(g.table.clone()),
                filter,
                group_by: Vec::new(),
                having: None,
                qualify: None,
            })
        };
        let (l, r) = (side(self), side(self));
        let op = *self.rng.pick(&[
            "UNION",
            "UNION ALL",
            "INTERSECT",
            "EXCEPT",
            "INTERSECT ALL",
            "EXCEPT ALL",
        ]);
        let mut q = Query {
            with: Vec::new(),
            body: Body::SetOp(op, Box::new(l), Box::new(r)),
            order_by: Vec::new(),
            limit: None,
            offset: None,
        };
        if self.rng.chance(50) {
            q.order_by.push(OrderItem {
                target: Target::Ordinal(1 + self.rng.index(n)),
                desc: self.rng.chance(50),
                nulls_first: None,
            });
            if self.rng.chance(50) {
                q.limit = Some(self.rng.range(1, 10) as u64);
            }
        }
        q
    }

    /// A self-join `t AS a [LEFT] JOIN t AS b ON a.x = b.y` with columns of both sides.
    fn join_query(&mut self) -> Query {
        let base = self.cols.clone();
        let mut scope = Vec::new();
        for side in ["a", "b"] {
            for c in &base {
                scope.push(ScopeCol {
                    name: format!("{side}.{}", c.name),
                    ..c.clone()
                });
            }
        }
        let k = {
            let kinds = self.kinds();
            *self.rng.pick(&kinds)
        };
        let pick = |g: &mut Gen<'_>, side: &str| -> Expr {
            let of: Vec<&ScopeCol> = base.iter().filter(|c| c.kind == k).collect();
            match of.len() {
                0 => lit("1"),
                n => col(&format!("{side}.{}", of[g.rng.index(n)].name)),
            }
        };
        let on = bin("=", pick(self, "a"), pick(self, "b"));
        if self.rng.chance(40) {
            let side = |s: &str| -> Vec<ScopeCol> {
                let prefix = format!("{s}.");
                scope
                    .iter()
                    .filter(|c| c.name.starts_with(&prefix))
                    .cloned()
                    .collect()
            };
            self.sides = Some((side("a"), side("b")));
        }
        let saved = std::mem::replace(&mut self.cols, scope);
        let mut q = self.base_query();
        self.sides = None;
        self.cols = saved;
        if let Some(sel) = q.select_mut() {
            if sel.items.iter().any(|i| matches!(i, Item::Star)) {
                sel.items = vec![Item::Expr(col("a.c0"), None)];
            }
            sel.from = From::Join {
                left: (self.table.clone(), "a".into()),
                right: (self.table.clone(), "b".into()),
                left_outer: self.rng.chance(30),
                on: on.boxed(),
            };
        }
        q
    }
}

fn mix(x: u64) -> u64 {
    super::rng::mix64(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::table::{generate, TableLimits};

    #[test]
    fn queries_are_deterministic_and_render() {
        let limits = TableLimits {
            max_rows: 200,
            max_columns: 6,
            raw_bytes: false,
        };
        for seed in 0..30 {
            let t = generate(&mut Rng::new(seed, 0), &limits);
            let mut r1 = Rng::new(seed, 1);
            let mut r2 = Rng::new(seed, 1);
            let a: Vec<String> = {
                let mut g = Gen::new(&mut r1, Features::default(), "t", &t, false);
                (0..20).map(|_| g.query().sql()).collect()
            };
            let b: Vec<String> = {
                let mut g = Gen::new(&mut r2, Features::default(), "t", &t, false);
                (0..20).map(|_| g.query().sql()).collect()
            };
            assert_eq!(a, b);
            for q in &a {
                assert!(q.starts_with("SELECT ") && q.contains(" FROM t"), "{q}");
            }
        }
    }

    #[test]
    fn features_parse() {
        assert_eq!(Features::parse("").ok(), Some(Features::default()));
        let f = Features::parse("ctes, windows").ok();
        assert!(f.is_some_and(|f| f.ctes && f.windows && !f.joins));
        assert!(Features::parse("all").is_ok_and(|f| f.joins && f.set_ops));
        assert!(Features::parse("nope").is_err());
    }
}
