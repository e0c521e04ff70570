//! The committed tables in `tests/golden/v<N>` were written by format version
//! N. Every later build must read them back exactly. Write the current
//! version's table only when starting a new format version (keep the old
//! directories): `STRATA_WRITE_GOLDEN=1 cargo test -p strata-format --test golden`.
//!
//! Version 2 adds column `u`, long strings of a small vocabulary: enough
//! string bytes in a chunk for zstd string blocks with a dictionary. Version 3
//! adds column `w`, keys whose differences compress. Version 4 writes the
//! same table; its new forms of row codes have a table of their own.
//! Version 5 stores TIMESTAMP values as microseconds (tables before it hold
//! whole seconds, read back as microseconds) and adds column `tu`, timestamps
//! in milliseconds, microseconds and seconds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use strata_format::types::{bool_key, float_key, signed_key};
use strata_format::{
    ColumnData, DataType, Field, RowValues, Schema, Section, Table, TableWriter, WriteOptions,
};

const ROWS: usize = 40;

/// A value as the tests describe it: a key, a string, or NULL (`None`).
type Cell = Option<Result<u64, Vec<u8>>>;

fn schema() -> Schema {
    Schema::new(vec![
        Field::new("b", DataType::Bool, false),
        Field::new("i8", DataType::Int8, false),
        Field::new("i16", DataType::Int16, false),
        Field::new("i32", DataType::Int32, true),
        Field::new("i64", DataType::Int64, false),
        Field::new("u8", DataType::UInt8, false),
        Field::new("u16", DataType::UInt16, false),
        Field::new("u32", DataType::UInt32, false),
        Field::new("u64", DataType::UInt64, false),
        Field::new("f32", DataType::Float32, false),
        Field::new("f64", DataType::Float64, true),
        Field::new("d", DataType::Date, false),
        Field::new("ts", DataType::Timestamp, false),
        Field::new(
            "dec",
            DataType::Decimal {
                precision: 10,
                scale: 2,
            },
            false,
        ),
        Field::new("s", DataType::String, true),
    ])
    .unwrap()
}

/// Version 2's schema: version 1's and `u`.
fn schema_v2() -> Schema {
    let mut fields = schema().fields;
    fields.push(Field::new("u", DataType::String, false));
    Schema::new(fields).unwrap()
}

/// Version 3's schema: version 2's and `w`.
fn schema_v3() -> Schema {
    let mut fields = schema_v2().fields;
    fields.push(Field::new("w", DataType::UInt64, false));
    Schema::new(fields).unwrap()
}

/// Column `u` at row `r`: about 9 KB of words from a small vocabulary.
fn long_string(r: usize) -> Vec<u8> {
    const WORDS: [&str; 8] = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "поиск",
        "https://",
        "x",
        "\n",
    ];
    let mut state = r as u64 + 1;
    let mut out = format!("{r:04}:").into_bytes();
    while out.len() < 9000 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        out.extend_from_slice(WORDS[(state >> 61) as usize].as_bytes());
    }
    out
}

/// The expected value of column `c` at row `r`: a key, a string, or NULL.
fn value(c: usize, r: usize) -> Option<Result<u64, Vec<u8>>> {
    let i = r as i64;
    Some(Ok(match c {
        0 => bool_key(r.is_multiple_of(3)),
        1 => signed_key(i * 7 % 256 - 128),
        2 => signed_key(i * 997 - 20_000),
        3 if r.is_multiple_of(5) => return None,
        3 => signed_key(i * 100_000_007 % 2_000_000_000 - 1_000_000_000),
        4 => signed_key(if r.is_multiple_of(2) {
            i64::MIN + i
        } else {
            i64::MAX - i
        }),
        5 => (r % 4) as u64,
        6 => (r * 1000 % 65536) as u64,
        7 => (r as u64) << 20,
        8 => u64::MAX - r as u64 % 3,
        9 => float_key(f64::from(r as f32 * 0.25 - 3.0)),
        10 if r.is_multiple_of(7) => return None,
        10 => float_key([f64::NAN, f64::NEG_INFINITY, -0.0, 1.5e300, -2.25][r % 5]),
        11 => signed_key(15_887 + i % 31),
        // Microseconds; versions before 5 stored these as seconds.
        12 => signed_key((1_372_636_800 + i * 86_399) * 1_000_000),
        13 => signed_key(i * 12_345 - 99_999),
        14 if r.is_multiple_of(6) => return None,
        14 => {
            return Some(Err(match r % 4 {
                0 => Vec::new(),
                1 => "Привет, мир\nвторая строка".as_bytes().to_vec(),
                2 => vec![0xff, 0xfe, b'x', 0xc3],
                _ => format!("https://example.com/page?id={}", r % 11).into_bytes(),
            }))
        }
        15 => return Some(Err(long_string(r))),
        // Keys far apart but evenly spaced: their differences compress.
        16 => ((r as u64) << 40) | (r * r % 1000) as u64,
        // TIMESTAMP microseconds: whole milliseconds before 1970 in the
        // first block, microseconds about 1970 in the second, whole seconds
        // about the year 1 in the third.
        17 if r == 20 => return None,
        17 => signed_key(match r / 16 {
            0 => -1_500_000_000_000 + i * 1_001_000,
            1 => i * 1_234_567 - 30_000_000,
            _ => -62_135_596_800_000_000 + i * 1_000_000,
        }),
        _ => unreachable!(),
    }))
}

fn golden_dir(version: u32) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/v{version}"))
}

#[test]
fn golden_v1_reads_back_exactly() {
    check(&golden_dir(1), &schema());
}

#[test]
fn golden_v2_reads_back_exactly() {
    let dir = golden_dir(2);
    check(&dir, &schema_v2());
    // The long strings are zstd blocks with a dictionary, some keys are 3
    // bytes wide and some sections zstd frames: all new in version 2.
    let t = Table::open(&dir).unwrap();
    let meta = t.manifest().chunk(0, 15);
    assert_eq!((meta.str_codec, meta.str_dict_len.get() > 0), (1, true));
    assert!(t.manifest().chunks.iter().any(|c| c.value_width == 3));
    assert!(t.manifest().chunks.iter().any(|c| c.zstd_sections != 0));
}

#[test]
fn golden_v3_reads_back_exactly() {
    let dir = golden_dir(3);
    check(&dir, &schema_v3());
    // New in version 3: compressed values, and no string-to-hash maps.
    let t = Table::open(&dir).unwrap();
    let values = |c: &strata_format::layout::ChunkMeta| c.sections[Section::Values as usize];
    assert!(t
        .manifest()
        .chunks
        .iter()
        .any(|c| values(c).stored_len.get() < values(c).raw_len.get()));
    for b in 0..t.num_blocks() {
        for c in [14, 15] {
            let meta = t.manifest().chunk(b, c);
            assert!(meta.distinct.get() > 0);
            assert_eq!(
                meta.sections[Section::StrToHash as usize].stored_len.get(),
                0
            );
        }
    }
}

/// Version 4 changes only how row codes may be stored (the table of
/// [`golden_v4_row_code_differences_read_back_exactly`]); this is version 3's
/// table as version 4 writes it.
#[test]
fn golden_v4_reads_back_exactly() {
    check(&golden_dir(4), &schema_v3());
}

/// Version 5's schema: version 3's and `tu`.
fn schema_v5() -> Schema {
    let mut fields = schema_v3().fields;
    fields.push(Field::new("tu", DataType::Timestamp, true));
    Schema::new(fields).unwrap()
}

/// Version 5 stores each TIMESTAMP chunk in the coarsest unit that holds
/// its values: seconds, milliseconds or microseconds.
#[test]
fn golden_v5_reads_back_exactly() {
    let dir = golden_dir(5);
    check(&dir, &schema_v5());
    let t = Table::open(&dir).unwrap();
    let unit = |b: usize, c: usize| t.manifest().chunk(b, c).str_codec;
    use strata_format::layout::{TIME_UNIT_MICROS, TIME_UNIT_MILLIS, TIME_UNIT_SECONDS};
    assert_eq!(unit(0, 12), TIME_UNIT_SECONDS);
    assert_eq!(
        (unit(0, 17), unit(1, 17), unit(2, 17)),
        (TIME_UNIT_MILLIS, TIME_UNIT_MICROS, TIME_UNIT_SECONDS)
    );
}

/// Whether chunk `c` of block `b` stores bit-packed row codes (version 6).
fn packed(t: &Table, b: usize, c: usize) -> bool {
    let meta = t.manifest().chunk(b, c);
    let rows = meta.sections[Section::Rows as usize];
    meta.zstd_sections & strata_format::layout::ROW_CODES != 0
        && rows.stored_len.get() == rows.raw_len.get()
}

/// Version 6 may store row codes bit-packed, read in place: version 5's
/// table as version 6 writes it.
#[test]
fn golden_v6_reads_back_exactly() {
    assert_eq!(
        strata_format::FORMAT_VERSION,
        6,
        "write a golden table for the new version"
    );
    let dir = golden_dir(6);
    if std::env::var_os("STRATA_WRITE_GOLDEN").is_some() {
        write(&dir, &schema_v5());
    }
    check(&dir, &schema_v5());
    let t = Table::open(&dir).unwrap();
    let chunks = (0..t.num_blocks()).flat_map(|b| (0..t.schema().len()).map(move |c| (b, c)));
    assert!(chunks.clone().any(|(b, c)| packed(&t, b, c)));
    assert!(chunks.clone().any(|(b, c)| !packed(&t, b, c)));
}

/// The version 4 row-codes table as version 6 writes it: codes two bytes
/// wide and scattered strings bit-packed, rising timestamps still zstd
/// differences.
#[test]
fn golden_v6_row_codes_read_back_exactly() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/v6-row-codes");
    let schema = schema_coded_v4();
    write_coded_v4_if_asked(&dir, &schema);
    check_coded(&dir, &schema, CODED_V4_ROWS, coded_v4_value);
    let t = Table::open(&dir).unwrap();
    assert!(!packed(&t, 0, 0), "the rising timestamps are differences");
    assert!(packed(&t, 0, 1), "the identifiers are packed codes");
    let chunk = t.chunk(0, 1).unwrap();
    let codes = chunk.packed_codes().unwrap().unwrap();
    let all = chunk.row_codes().unwrap();
    assert!((0..CODED_V4_ROWS).all(|r| codes.get(r) == all[r]));
}

/// Rewrites the row-codes golden table at `dir` with this build's writer
/// when `STRATA_WRITE_GOLDEN` is set.
fn write_coded_v4_if_asked(dir: &std::path::Path, schema: &Schema) {
    if std::env::var_os("STRATA_WRITE_GOLDEN").is_some() {
        let _ = std::fs::remove_dir_all(dir);
        let mut w = TableWriter::create(dir, schema.clone(), WriteOptions::default()).unwrap();
        w.write_block(columns(schema, 0..CODED_V4_ROWS, coded_v4_value))
            .unwrap();
        w.finish().unwrap();
    }
}

/// Rows of the version 4 row-codes golden table.
const CODED_V4_ROWS: usize = 4000;

/// Version 4's row-codes table: a timestamp rising within runs of rows (one
/// user's events in a table sorted by user), unique identifiers (codes two
/// bytes wide) and a nullable string of many values.
fn schema_coded_v4() -> Schema {
    Schema::new(vec![
        Field::new("t", DataType::Timestamp, false),
        Field::new("id", DataType::UInt64, false),
        Field::new("s", DataType::String, true),
    ])
    .unwrap()
}

/// Column `c` of the version 4 row-codes table at row `r`.
fn coded_v4_value(c: usize, r: usize) -> Cell {
    // splitmix64's finalizer: consecutive inputs give unrelated outputs.
    let mix = |x: u64| {
        let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    // Users' times overlap, so other users' times fall between the times of
    // one user's consecutive rows.
    let user = (r / 37) as u64;
    match c {
        // Microseconds; version 4 stored these as seconds.
        0 => Some(Ok(signed_key(
            (1_700_000_000 + (mix(user) % 2_000) as i64 + (r % 37) as i64 * 7) * 1_000_000,
        ))),
        1 => Some(Ok(mix(r as u64))),
        _ if mix(r as u64) % 17 == 0 => None,
        _ => Some(Err(format!("u{}", mix(r as u64 + 9) % 1500).into_bytes())),
    }
}

/// Version 4 may store row codes as differences between rows, and writes
/// codes wider than a byte: both read back exactly.
#[test]
fn golden_v4_row_code_differences_read_back_exactly() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/v4-row-codes");
    let schema = schema_coded_v4();
    write_coded_v4_if_asked(&dir, &schema);
    check_coded(&dir, &schema, CODED_V4_ROWS, coded_v4_value);
    let t = Table::open(&dir).unwrap();
    let deltas = |c: usize| {
        t.manifest().chunk(0, c).zstd_sections & strata_format::layout::ROW_CODE_DELTAS != 0
    };
    assert!(deltas(0), "the rising timestamps are differences");
    assert!(!deltas(1), "the identifiers are plain codes");
}

/// Rows of the row-codes golden table: one block, enough rows for row codes.
const CODED_ROWS: usize = 3000;

/// The row-codes table's schema: few values scattered over the rows, with
/// and without NULLs, as keys and as strings.
fn schema_coded() -> Schema {
    Schema::new(vec![
        Field::new("k", DataType::UInt16, false),
        Field::new("n", DataType::Int32, true),
        Field::new("s", DataType::String, true),
    ])
    .unwrap()
}

/// Column `c` of the row-codes table at row `r`.
fn coded_value(c: usize, r: usize) -> Option<Result<u64, Vec<u8>>> {
    let x = (r as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let v = (x ^ (x >> 29)) % 13;
    match c {
        0 => Some(Ok(v * 100)),
        1 if v == 4 => None,
        1 => Some(Ok(signed_key(v as i64 - 6))),
        _ if v == 7 => None,
        _ => Some(Err(format!("s{v}").into_bytes())),
    }
}

/// Version 3 stores row lists as row codes where that is much smaller: a
/// second golden table of one larger block covers that form.
#[test]
fn golden_v3_row_codes_read_back_exactly() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/v3-row-codes");
    check_coded(&dir, &schema_coded(), CODED_ROWS, coded_value);
}

/// Reads back the one-block table of `rows` rows in `dir`, whose every
/// column stores row codes, compares every value with `value`, then
/// verifies it.
fn check_coded(dir: &Path, schema: &Schema, rows: usize, value: fn(usize, usize) -> Cell) {
    let t = Table::open(dir).unwrap();
    assert_eq!(t.schema(), schema);
    for c in 0..schema.len() {
        let chunk = t.chunk(0, c).unwrap();
        assert!(chunk.stores_row_codes(), "column {c}");
        let got: Vec<_> = match chunk.row_values().unwrap() {
            RowValues::Keys(keys) => keys.into_iter().map(|k| k.map(Ok)).collect(),
            RowValues::Strings(strs) => strs.into_iter().map(|s| s.map(Err)).collect(),
        };
        let want: Vec<_> = (0..rows).map(|r| value(c, r)).collect();
        assert_eq!(got, want, "column {c}");
    }
    let report = strata_format::verify_table(dir).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}

/// Writes the golden table of `schema` into `dir` (replacing it).
fn write(dir: &Path, schema: &Schema) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    let mut w = TableWriter::create(
        dir,
        schema.clone(),
        WriteOptions {
            block_rows: 16,
            sync: true,
        },
    )
    .unwrap();
    write_rows(&mut w, schema);
    w.finish().unwrap();
}

/// Writes the `ROWS` rows of `schema`'s columns, 16 to a block.
fn write_rows(w: &mut TableWriter, schema: &Schema) {
    for start in (0..ROWS).step_by(16) {
        let end = (start + 16).min(ROWS);
        w.write_block(columns(schema, start..end, value)).unwrap();
    }
}

/// The columns of `schema` for `rows`, column `c` at row `r` being
/// `value(c, r)`.
fn columns(
    schema: &Schema,
    rows: std::ops::Range<usize>,
    value: fn(usize, usize) -> Cell,
) -> Vec<ColumnData> {
    (0..schema.len())
        .map(|c| {
            let mut col = ColumnData::new_for(schema.fields[c].data_type);
            for r in rows.clone() {
                match value(c, r) {
                    None => col.push_null(),
                    Some(Ok(k)) => col.push_key(k).unwrap(),
                    Some(Err(s)) => col.push_str(&s).unwrap(),
                }
            }
            col
        })
        .collect()
}

/// Reads the table in `dir` back and compares every value, then verifies it.
fn check(dir: &Path, schema: &Schema) {
    let t = Table::open(dir).unwrap();
    assert_eq!(t.schema(), schema);
    assert_eq!(t.num_rows(), ROWS as u64);
    assert_eq!(t.num_blocks(), 3);
    for c in 0..t.schema().len() {
        let mut r = 0;
        for b in 0..t.num_blocks() {
            match t.chunk(b, c).unwrap().row_values().unwrap() {
                RowValues::Keys(keys) => {
                    for k in keys {
                        assert_eq!(k.map(Ok), value(c, r), "column {c} row {r}");
                        r += 1;
                    }
                }
                RowValues::Strings(strs) => {
                    for s in strs {
                        assert_eq!(s.map(Err), value(c, r), "column {c} row {r}");
                        r += 1;
                    }
                }
            }
        }
        assert_eq!(r, ROWS);
    }
    // Verification reports every block file's bytes once, whatever thread
    // checks it.
    let checked = std::sync::atomic::AtomicU64::new(0);
    let files: u64 = t.manifest().blocks.iter().map(|b| b.file_len.get()).sum();
    let report = strata_format::verify_table_with_progress(dir, |bytes, total| {
        assert_eq!(total, files);
        checked.fetch_add(bytes, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(checked.into_inner(), files);
}

/// A writer of the current version appending to a version 1 table leaves a table whose
/// old blocks stay version 1 files and whose every value reads back.
#[test]
fn appending_to_a_v1_table_reads_back_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("t");
    std::fs::create_dir(&dir).unwrap();
    for f in std::fs::read_dir(golden_dir(1)).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), dir.join(f.file_name())).unwrap();
    }
    let schema = schema();
    let mut w = TableWriter::append(
        &dir,
        WriteOptions {
            block_rows: 16,
            sync: false,
        },
    )
    .unwrap();
    // The same 40 rows again, so row r + 40 holds row r's values.
    write_rows(&mut w, &schema);
    w.finish().unwrap();
    let version = |file: &str| {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        u32::from_le_bytes(bytes[8..12].try_into().unwrap())
    };
    assert_eq!(version("b00000000.blk"), 1);
    assert_eq!(version("b00000003.blk"), strata_format::FORMAT_VERSION);
    assert_eq!(version("MANIFEST"), strata_format::FORMAT_VERSION);
    let t = Table::open(&dir).unwrap();
    assert_eq!(t.num_rows(), 2 * ROWS as u64);
    for c in 0..schema.len() {
        let mut r = 0;
        for b in 0..t.num_blocks() {
            let values: Vec<Option<Result<u64, Vec<u8>>>> =
                match t.chunk(b, c).unwrap().row_values().unwrap() {
                    RowValues::Keys(keys) => keys.into_iter().map(|k| k.map(Ok)).collect(),
                    RowValues::Strings(strs) => strs.into_iter().map(|s| s.map(Err)).collect(),
                };
            for v in values {
                assert_eq!(v, value(c, r % ROWS), "column {c} row {r}");
                r += 1;
            }
        }
        assert_eq!(r, 2 * ROWS);
    }
    let report = strata_format::verify_table(&dir).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}
