//! Random tables: every column type strata stores, NULLs, the values engines get wrong
//! (NaN, infinities, `-0.0`, integer extremes, decimals at their precision, dates far
//! from now, empty, long and non-UTF-8 strings), columns from all-equal to all-distinct,
//! in random, sorted or clustered order, and block sizes from 1 to 2^19. The same values
//! go to a strata table (through the format's writer, plain or dictionary-coded) and to
//! DuckDB (through a CSV file every value of which DuckDB reads back exactly).

use std::io::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use strata::format::{ColumnData, Field, Schema, TableWriter, WriteOptions};

use super::cell::{days_from_civil, int_range, Cell, ColType, PLAIN_TYPES};
use super::rng::Rng;

/// One column of a generated table.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Its name (`c0`, `c1`, ...).
    pub name: String,
    /// Its type.
    pub ty: ColType,
    /// Whether strata's schema declares it nullable.
    pub nullable: bool,
    /// Whether it holds strings that are not UTF-8: DuckDB cannot hold those, so queries
    /// that read the column are checked by the oracles alone.
    pub raw_bytes: bool,
    /// One value per row.
    pub values: Vec<Cell>,
}

/// A generated table: its columns and the block size strata writes it with.
#[derive(Debug, Clone, PartialEq)]
pub struct TableData {
    /// The columns.
    pub columns: Vec<Column>,
    /// Rows per block.
    pub block_rows: usize,
    /// Dictionary-coded blocks (`ColumnData::FixedDict`/`StringDict`) where the seed of
    /// each (block, column) says so: 0 never, else a seed.
    pub dict_seed: u64,
}

/// Limits of table generation.
#[derive(Debug, Clone, Copy)]
pub struct TableLimits {
    /// Most rows a table gets.
    pub max_rows: usize,
    /// Most columns.
    pub max_columns: usize,
    /// Whether string columns may hold non-UTF-8 bytes.
    pub raw_bytes: bool,
}

impl TableData {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.values.len())
    }

    /// The column named `name`.
    #[cfg(test)]
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The table with only rows `keep` (in that order).
    pub fn with_rows(&self, keep: &[usize]) -> TableData {
        let mut t = self.clone();
        for c in &mut t.columns {
            c.values = keep.iter().map(|&r| c.values[r].clone()).collect();
        }
        t
    }

    /// The table with only the columns named in `keep` (in table order).
    pub fn with_columns(&self, keep: &[String]) -> TableData {
        let mut t = self.clone();
        t.columns.retain(|c| keep.contains(&c.name));
        t
    }

    /// Writes the strata table at `path` (which must not exist).
    pub fn write_strata(&self, path: &Path) -> Result<()> {
        let fields: Vec<Field> = self
            .columns
            .iter()
            .map(|c| Field::new(c.name.clone(), c.ty, c.nullable))
            .collect();
        let schema = Schema::new(fields)?;
        let block_rows = self.block_rows.max(1);
        let mut w = TableWriter::create(
            path,
            schema,
            WriteOptions {
                block_rows,
                sync: false,
            },
        )?;
        let rows = self.rows();
        let mut start = 0;
        let mut block = 0u64;
        while start < rows {
            let end = (start + block_rows).min(rows);
            let mut cols = Vec::with_capacity(self.columns.len());
            for (ci, c) in self.columns.iter().enumerate() {
                let dict = self.dict_seed != 0
                    && super::rng::mix64(self.dict_seed ^ (block << 16) ^ ci as u64)
                        .is_multiple_of(4);
                cols.push(column_data(c, &c.values[start..end], dict)?);
            }
            w.write_block(cols)?;
            start = end;
            block += 1;
        }
        w.finish()?;
        Ok(())
    }

    /// The columns DuckDB holds (every column but the non-UTF-8 ones): name and type.
    pub fn duckdb_columns(&self) -> Vec<(String, String)> {
        self.columns
            .iter()
            .filter(|c| !c.raw_bytes)
            .map(|c| (c.name.clone(), c.ty.sql_name()))
            .collect()
    }

    /// Writes the rows of DuckDB's columns as the bridge's CSV (see `fuzz_duckdb.py`):
    /// each line starts with the row's number, so that no line is empty (DuckDB skips
    /// empty lines, and one empty string in one column would be one).
    pub fn write_duckdb_csv(&self, path: &Path) -> Result<()> {
        let f =
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
        let mut out = std::io::BufWriter::new(f);
        let cols: Vec<&Column> = self.columns.iter().filter(|c| !c.raw_bytes).collect();
        let mut line = String::new();
        for r in 0..self.rows() {
            line.clear();
            line.push_str(&r.to_string());
            for c in &cols {
                line.push(',');
                line.push_str(&c.values[r].duckdb_text(c.ty));
            }
            line.push('\n');
            out.write_all(line.as_bytes())?;
        }
        out.flush()?;
        Ok(())
    }
}

/// One block's values of column `c` as the writer's input: plain, or dictionary-coded
/// with the entries in random order and one unused entry.
fn column_data(c: &Column, values: &[Cell], dict: bool) -> Result<ColumnData> {
    let is_str = c.ty == ColType::String;
    if dict && values.iter().any(|v| !v.is_null()) {
        let mut entries: Vec<&Cell> = Vec::new();
        let mut index: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
        let mut indices = Vec::with_capacity(values.len());
        let mut nulls = Vec::with_capacity(values.len());
        for v in values {
            nulls.push(v.is_null());
            if v.is_null() {
                indices.push(0);
                continue;
            }
            let key = v.text();
            let next = entries.len() as u32;
            let i = *index.entry(key).or_insert_with(|| {
                entries.push(v);
                next
            });
            indices.push(i);
        }
        // Entries reversed (not in first-use order), plus an entry no row uses.
        let n = entries.len() as u32;
        for i in &mut indices {
            *i = n
                .saturating_sub(1)
                .saturating_sub(*i)
                .min(n.saturating_sub(1));
        }
        entries.reverse();
        let spare = values.iter().find(|v| !v.is_null());
        let nulls = nulls.iter().any(|&b| b).then_some(nulls);
        if is_str {
            let mut bytes = Vec::new();
            let mut offsets = vec![0u64];
            for e in entries.iter().copied().chain(spare) {
                if let Cell::Str(b) = e {
                    bytes.extend_from_slice(b);
                }
                offsets.push(bytes.len() as u64);
            }
            return Ok(ColumnData::StringDict {
                bytes,
                offsets,
                indices,
                nulls,
            });
        }
        let entries: Vec<u64> = entries
            .iter()
            .copied()
            .chain(spare)
            .map(|e| e.key(c.ty).unwrap_or(0))
            .collect();
        return Ok(ColumnData::FixedDict {
            entries,
            indices,
            nulls,
        });
    }
    let mut data = ColumnData::new_for(c.ty);
    for v in values {
        match v {
            Cell::Null => data.push_null(),
            Cell::Str(b) => data.push_str(b)?,
            other => {
                data.push_key(other.key(c.ty).with_context(|| {
                    format!("{} is no {} value", other.text(), c.ty.sql_name())
                })?)?
            }
        }
    }
    Ok(data)
}

/// A random table within `limits`.
pub fn generate(rng: &mut Rng, limits: &TableLimits) -> TableData {
    let rows = pick_rows(rng, limits.max_rows);
    let ncols = 1 + rng
        .weighted(&[10, 20, 25, 20, 12, 8, 5])
        .min(limits.max_columns.max(1) - 1);
    let mut columns = Vec::with_capacity(ncols);
    for i in 0..ncols {
        let ty = pick_type(rng);
        let raw = ty == ColType::String && limits.raw_bytes && rng.chance(8);
        let values = column_values(rng, ty, rows, raw);
        let has_null = values.iter().any(Cell::is_null);
        columns.push(Column {
            name: format!("c{i}"),
            ty,
            nullable: has_null || rng.chance(50),
            raw_bytes: raw
                && values
                    .iter()
                    .any(|v| matches!(v, Cell::Str(b) if std::str::from_utf8(b).is_err())),
            values,
        });
    }
    TableData {
        columns,
        block_rows: pick_block_rows(rng, rows),
        dict_seed: if rng.chance(30) { rng.u64() | 1 } else { 0 },
    }
}

fn pick_rows(rng: &mut Rng, max: usize) -> usize {
    let r = match rng.weighted(&[3, 20, 30, 27, 14, 6]) {
        0 => 0,
        1 => rng.range(1, 10),
        2 => rng.range(11, 200),
        3 => rng.range(201, 5000),
        4 => rng.range(5001, 50_000),
        _ => rng.range(50_001, 300_000),
    };
    (r as usize).min(max)
}

/// Block sizes from 1 to 2^19, at most 2000 blocks.
fn pick_block_rows(rng: &mut Rng, rows: usize) -> usize {
    let b = match rng.weighted(&[8, 10, 15, 15, 15, 12, 10]) {
        0 => 1,
        1 => rng.range(2, 5) as usize,
        2 => rng.range(6, 100) as usize,
        3 => rng.range(101, 5000) as usize,
        4 => 1 << rng.range(10, 19),
        5 => rows.max(1),
        _ => (rows / 2 + rng.range(0, 1) as usize).max(1),
    };
    b.max(rows.div_ceil(2000)).clamp(1, 1 << 19)
}

fn pick_type(rng: &mut Rng) -> ColType {
    if rng.chance(18) {
        let p = match rng.weighted(&[3, 3, 4, 3, 3]) {
            0 => 18,
            1 => 15,
            2 => rng.range(1, 18) as u8,
            3 => rng.range(1, 4) as u8,
            _ => 9,
        };
        let s = match rng.weighted(&[3, 2, 4, 2]) {
            0 => 0,
            1 => p,
            2 => rng.range(0, i64::from(p)) as u8,
            _ => p.min(2),
        };
        return ColType::Decimal {
            precision: p,
            scale: s,
        };
    }
    // Strings, doubles and integers more often than the rest.
    let weights = [4, 3, 3, 5, 5, 2, 2, 2, 3, 4, 7, 5, 5, 12];
    PLAIN_TYPES[rng.weighted(&weights)]
}

/// How a column's values are laid out over its rows.
#[derive(Clone, Copy)]
enum Order {
    Random,
    Ascending,
    Descending,
    Clustered,
}

fn column_values(rng: &mut Rng, ty: ColType, rows: usize, raw: bool) -> Vec<Cell> {
    let null_pct = match rng.weighted(&[45, 25, 20, 5]) {
        0 => 0,
        1 => rng.range(1, 10) as u64,
        2 => rng.range(30, 70) as u64,
        _ => 100,
    };
    let distinct = match rng.weighted(&[10, 15, 25, 15, 35]) {
        0 => 1,
        1 => rng.range(2, 5) as usize,
        2 => rng.range(6, 50) as usize,
        3 => (rows / 10).max(1),
        _ => rows.max(1),
    };
    let order = match rng.weighted(&[60, 15, 5, 20]) {
        0 => Order::Random,
        1 => Order::Ascending,
        2 => Order::Descending,
        _ => Order::Clustered,
    };
    let profile = Profile::new(rng, ty);
    let pool: Vec<Cell> = (0..distinct.min(rows.max(1)))
        .map(|_| profile.value(rng, ty, raw))
        .collect();
    let skewed = rng.chance(40);
    let mut values: Vec<Cell> = (0..rows)
        .map(|i| {
            if distinct >= rows {
                pool[i % pool.len()].clone()
            } else if skewed {
                let u = rng.unit();
                pool[((u * u * u) * pool.len() as f64) as usize % pool.len()].clone()
            } else {
                pool[rng.index(pool.len())].clone()
            }
        })
        .collect();
    match order {
        Order::Random => shuffle(rng, &mut values),
        Order::Ascending => values.sort_by(super::cell::cmp_cells),
        Order::Descending => {
            values.sort_by(super::cell::cmp_cells);
            values.reverse();
        }
        Order::Clustered => {
            values.sort_by(super::cell::cmp_cells);
            let run = rng.range(1, 64) as usize;
            let mut runs: Vec<Vec<Cell>> = values.chunks(run).map(<[Cell]>::to_vec).collect();
            shuffle(rng, &mut runs);
            values = runs.concat();
        }
    }
    if null_pct > 0 {
        for v in &mut values {
            if rng.below(100) < null_pct {
                *v = Cell::Null;
            }
        }
    }
    values
}

fn shuffle<T>(rng: &mut Rng, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        let j = rng.index(i + 1);
        v.swap(i, j);
    }
}

/// A column's value profile: which kinds of values it draws from.
struct Profile {
    /// Percent of values drawn from the type's extremes and special values.
    special: u64,
    /// Float columns: the sign of their huge values (one sign per column, so that sums
    /// cannot cancel huge values and come out differently in another order).
    huge_sign: f64,
    /// Floats: multiples of 1/100 instead of 1/4 (not exact in binary, all positive).
    cents: bool,
    /// Dates and timestamps: how far from now values go (0 near, 1 wide, 2 far).
    reach: u8,
}

impl Profile {
    fn new(rng: &mut Rng, ty: ColType) -> Profile {
        Profile {
            special: *rng.pick(&[0, 5, 20, 50]),
            huge_sign: if rng.chance(50) { 1.0 } else { -1.0 },
            cents: matches!(ty, ColType::Float64) && rng.chance(20),
            reach: rng.weighted(&[50, 35, 15]) as u8,
        }
    }

    fn value(&self, rng: &mut Rng, ty: ColType, raw: bool) -> Cell {
        let special = rng.below(100) < self.special;
        match ty {
            ColType::Bool => Cell::Bool(rng.chance(50)),
            ColType::Float32 | ColType::Float64 => Cell::Float(self.float(rng, ty, special)),
            ColType::Decimal { precision, scale } => {
                Cell::Dec(decimal(rng, precision, scale, special), scale)
            }
            ColType::Date => Cell::Date(self.date(rng, special)),
            ColType::Timestamp => Cell::Ts(self.timestamp(rng, special) * 1_000_000),
            ColType::String => Cell::Str(string(rng, raw)),
            int => {
                let (lo, hi) = int_range(int).unwrap_or((0, 0));
                Cell::Int(integer(rng, lo, hi, special))
            }
        }
    }

    fn float(&self, rng: &mut Rng, ty: ColType, special: bool) -> f64 {
        let single = ty == ColType::Float32;
        if special {
            let huge = if single { 1e37 } else { 1e300 };
            let tiny = if single { 1e-40 } else { 5e-324 };
            let v = match rng.below(9) {
                0 => f64::NAN,
                1 => f64::INFINITY,
                2 => f64::NEG_INFINITY,
                // A stored float is canonical (SPEC.md, section 2: `-0.0` is stored as
                // `0.0`, as equal keys are one value of the sorted column), so the
                // table both engines read holds `0.0`; `-0.0` still arises in
                // expressions (`c * -1`).
                3 | 4 => 0.0,
                5 => self.huge_sign * huge * rng.range(1, 9) as f64,
                6 => tiny * rng.range(1, 3) as f64 * if rng.chance(50) { 1.0 } else { -1.0 },
                7 => self.huge_sign * if single { f64::from(f32::MAX) } else { 1.5e308 },
                _ => 0.5,
            };
            return if single { f64::from(v as f32) } else { v };
        }
        if self.cents {
            return rng.range(0, 1_000_000) as f64 / 100.0;
        }
        let k = match rng.below(3) {
            0 => rng.range(-40, 40),
            1 => rng.range(-4000, 4000),
            _ => rng.range(-(1 << 22), 1 << 22),
        };
        k as f64 / 4.0
    }

    fn date(&self, rng: &mut Rng, special: bool) -> i64 {
        if special {
            return match rng.below(8) {
                0 => 0,
                1 => -1,
                2 => days_from_civil(1, 1, 1),
                3 => days_from_civil(9999, 12, 31),
                4 => days_from_civil(2000, 2, 29),
                5 => days_from_civil(1900, 3, 1),
                6 => days_from_civil(0, 12, 31),
                _ => days_from_civil(-4713, 11, 24),
            };
        }
        let (lo, hi) = match self.reach {
            0 => (days_from_civil(1990, 1, 1), days_from_civil(2040, 12, 31)),
            1 => (days_from_civil(-4000, 1, 1), days_from_civil(9999, 12, 31)),
            _ => (-730_000_000, 730_000_000),
        };
        rng.range(lo, hi)
    }

    fn timestamp(&self, rng: &mut Rng, special: bool) -> i64 {
        let day = 86_400;
        if special {
            return match rng.below(7) {
                0 => 0,
                1 => -1,
                2 => days_from_civil(1, 1, 1) * day,
                3 => days_from_civil(9999, 12, 31) * day + day - 1,
                4 => days_from_civil(2000, 2, 29) * day + 43_200,
                5 => days_from_civil(2024, 1, 1) * day,
                _ => days_from_civil(1969, 12, 31) * day + 86_399,
            };
        }
        let (lo, hi) = match self.reach {
            0 => (days_from_civil(1990, 1, 1), days_from_civil(2040, 12, 31)),
            1 => (days_from_civil(1, 1, 1), days_from_civil(9999, 12, 31)),
            _ => (
                days_from_civil(-200_000, 1, 1),
                days_from_civil(200_000, 1, 1),
            ),
        };
        let d = rng.range(lo, hi);
        // Whole hours and midnights often, so that truncations and equalities meet.
        let secs = match rng.below(3) {
            0 => 0,
            1 => rng.range(0, 23) * 3600,
            _ => rng.range(0, day - 1),
        };
        d * day + secs
    }
}

fn integer(rng: &mut Rng, lo: i128, hi: i128, special: bool) -> i128 {
    if special {
        let picks = [lo, lo + 1, hi, hi - 1, 0, -1, 1, hi / 2, lo / 2];
        return (*rng.pick(&picks)).clamp(lo, hi);
    }
    let v: i128 = match rng.below(4) {
        0 => rng.range(-20, 20).into(),
        1 => rng.range(-10_000, 10_000).into(),
        2 => rng.range(0, 300).into(),
        _ => {
            let span = (hi - lo) as u128;
            let r = (u128::from(rng.u64()) << 64 | u128::from(rng.u64())) % (span + 1);
            lo + r as i128
        }
    };
    v.clamp(lo, hi)
}

fn decimal(rng: &mut Rng, p: u8, s: u8, special: bool) -> i128 {
    let max = 10i128.pow(u32::from(p)) - 1;
    let unit = 10i128.pow(u32::from(s));
    if special {
        let picks = [
            max,
            -max,
            0,
            1,
            -1,
            max - 1,
            unit.min(max),
            -unit.min(max),
            max / 2,
        ];
        return *rng.pick(&picks);
    }
    let v = match rng.below(4) {
        0 => i128::from(rng.range(-100, 100)),
        1 => i128::from(rng.range(-20, 20)) * unit,
        2 => {
            let digits = rng.range(1, i64::from(p)) as u32;
            let m = 10i128.pow(digits) - 1;
            (i128::from(rng.u64()) % (m + 1)) * if rng.chance(30) { -1 } else { 1 }
        }
        _ => (i128::from(rng.u64()) % (max + 1)) * if rng.chance(50) { -1 } else { 1 },
    };
    v.clamp(-max, max)
}

const WORDS: [&str; 40] = [
    "",
    "a",
    "ab",
    "abc",
    "A",
    "Abc",
    "ABC",
    "foo",
    "bar",
    "foobar",
    "Foo Bar",
    "%",
    "_",
    "a%b",
    "a_b",
    "x y",
    " lead",
    "trail ",
    "  ",
    "O'Brien",
    "quote\"d",
    "back\\slash",
    "new\nline",
    "tab\tx",
    "NULL",
    "null",
    "0",
    "1",
    "-1",
    "1.5",
    "2020-01-01",
    "true",
    "é",
    "É",
    "日本語",
    "straße",
    "İstanbul",
    "naïve",
    "😀 smile",
    "ﬁx",
];

fn string(rng: &mut Rng, raw: bool) -> Vec<u8> {
    if raw && rng.chance(30) {
        let bad: [&[u8]; 7] = [
            b"\xff",
            b"\xc3",
            b"abc\xff",
            b"\x80\x80",
            b"\xed\xa0\x80",
            b"\xc0\xaf",
            b"ok\xfe\xffok",
        ];
        return rng.pick(&bad).to_vec();
    }
    match rng.below(6) {
        0 | 1 => rng.pick(&WORDS).as_bytes().to_vec(),
        2 => {
            let alphabet = b"abcABC xyz%_-'.";
            let n = rng.range(1, 20) as usize;
            (0..n).map(|_| *rng.pick(alphabet)).collect()
        }
        3 => format!("item_{:06}", rng.range(0, 999_999)).into_bytes(),
        4 => {
            let w = rng.pick(&WORDS).to_string();
            let n = rng.range(2, 8) as usize;
            (0..n)
                .map(|_| w.as_str())
                .collect::<Vec<_>>()
                .join(" ")
                .into_bytes()
        }
        _ => {
            let n = rng.range(100, 2000) as usize;
            let base = format!("long-{}-", rng.range(0, 99));
            base.bytes().cycle().take(n).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_deterministic_and_typed() {
        let limits = TableLimits {
            max_rows: 3000,
            max_columns: 8,
            raw_bytes: true,
        };
        for seed in 0..40 {
            let a = generate(&mut Rng::new(seed, 1), &limits);
            let b = generate(&mut Rng::new(seed, 1), &limits);
            // (Debug text: NaN is not equal to itself.)
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
            assert!(a.rows() <= 3000);
            assert!(a.block_rows >= 1 && a.block_rows <= 1 << 19);
            for c in &a.columns {
                assert_eq!(c.values.len(), a.rows());
                for v in &c.values {
                    if !matches!(v, Cell::Null | Cell::Str(_)) {
                        assert!(v.key(c.ty).is_some(), "{} in {:?}", v.text(), c.ty);
                    }
                }
            }
        }
    }

    #[test]
    fn written_tables_read_back() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let limits = TableLimits {
            max_rows: 500,
            max_columns: 6,
            raw_bytes: true,
        };
        for seed in 0..10 {
            let t = generate(&mut Rng::new(seed, 2), &limits);
            let path = dir.path().join(format!("t{seed}"));
            assert!(t.write_strata(&path).is_ok());
            let table = strata::Table::open(&path);
            assert_eq!(table.map(|t| t.num_rows()).ok(), Some(t.rows() as u64));
        }
    }
}
