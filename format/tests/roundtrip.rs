//! Write-then-read round trips of every type, at the block-size boundaries.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use strata_format::types::{float_key, signed_key};
use strata_format::{
    encode_block_rows, encode_block_with, string_hash, ColumnData, Compression, DataType,
    EncodeOptions, Field, RowAccess, RowValues, Schema, Table, TableWriter, WriteOptions,
};

/// A column's values in row order, as the test generates them.
#[derive(Debug, Clone)]
enum Col {
    Keys(Vec<Option<u64>>),
    Strs(Vec<Option<Vec<u8>>>),
}

impl Col {
    fn len(&self) -> usize {
        match self {
            Col::Keys(v) => v.len(),
            Col::Strs(v) => v.len(),
        }
    }

    fn slice(&self, r: std::ops::Range<usize>) -> ColumnData {
        match self {
            Col::Keys(v) => {
                let mut c = ColumnData::new_fixed();
                for k in &v[r] {
                    match k {
                        Some(k) => c.push_key(*k).unwrap(),
                        None => c.push_null(),
                    }
                }
                c
            }
            Col::Strs(v) => {
                let mut c = ColumnData::new_strings();
                for s in &v[r] {
                    match s {
                        Some(s) => c.push_str(s).unwrap(),
                        None => c.push_null(),
                    }
                }
                c
            }
        }
    }
}

/// Writes `cols` in blocks of `block_rows`, reads every value back and
/// checks it; returns how many sections were zstd-compressed.
fn write_and_read(fields: Vec<Field>, cols: &[Col], block_rows: usize) -> u32 {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    let schema = Schema::new(fields).unwrap();
    let rows = cols[0].len();
    let mut w = TableWriter::create(
        &path,
        schema.clone(),
        WriteOptions {
            block_rows,
            sync: false,
        },
    )
    .unwrap();
    let mut start = 0;
    while start < rows {
        let end = (start + block_rows).min(rows);
        let columns = cols.iter().map(|c| c.slice(start..end)).collect();
        // Blocks take turns with the string codecs.
        let codecs = [Compression::Zstd, Compression::Raw, Compression::Lz4];
        // ... and with the row forms: every third block stores its rows
        // as compactly as it can.
        let access = [RowAccess::Fast, RowAccess::Fast, RowAccess::Compact];
        let turn = start / block_rows;
        let options = EncodeOptions {
            compression: codecs[turn % codecs.len()],
            row_access: access[(turn / codecs.len()) % access.len()],
        };
        w.write_encoded(encode_block_with(&schema, end - start, columns, options).unwrap())
            .unwrap();
        start = end;
    }
    let summary = w.finish().unwrap();
    assert_eq!(summary.rows, rows as u64);
    let t = Table::open(&path).unwrap();
    assert_eq!(t.schema(), &schema);
    assert_eq!(t.num_rows(), rows as u64);
    assert_eq!(t.num_blocks(), rows.div_ceil(block_rows));
    for (c, col) in cols.iter().enumerate() {
        let mut got_keys = Vec::new();
        let mut got_strs = Vec::new();
        for b in 0..t.num_blocks() {
            let chunk = t.chunk(b, c).unwrap();
            match chunk.row_values().unwrap() {
                RowValues::Keys(k) => got_keys.extend(k),
                RowValues::Strings(s) => got_strs.extend(s),
            }
            check_chunk_invariants(&t, b, c);
        }
        match col {
            Col::Keys(want) => assert_eq!(&got_keys, want, "column {c}"),
            Col::Strs(want) => assert_eq!(&got_strs, want, "column {c}"),
        }
    }
    t.manifest()
        .chunks
        .iter()
        .map(|c| c.zstd_sections.count_ones())
        .sum()
}

/// Statistics and sorted sections agree with the data.
fn check_chunk_invariants(t: &Table, b: usize, c: usize) {
    let chunk = t.chunk(b, c).unwrap();
    let stats = t.stats(b, c);
    // Row codes: decoded, kept by the handle, and found by a later handle of
    // the same table in the decoded-data cache (bit-packed codes once asked
    // for a second time).
    let mut decoded = Vec::new();
    chunk.codes(&mut decoded).unwrap();
    assert_eq!(chunk.row_codes().unwrap(), &decoded[..]);
    let again = t.chunk(b, c).unwrap();
    assert_eq!(again.row_codes().unwrap(), &decoded[..]);
    let third = t.chunk(b, c).unwrap();
    assert!(third.row_codes_ready(), "cached for later handles");
    assert_eq!(third.row_codes().unwrap(), &decoded[..]);
    // The row lists (expanded from row codes where stored so) agree.
    let mut from_lists = vec![u32::MAX; decoded.len()];
    chunk
        .row_lists()
        .unwrap()
        .for_each(|v, s, l| from_lists[s as usize..(s + l) as usize].fill(v as u32))
        .unwrap();
    assert_eq!(from_lists, decoded);
    // Any ascending subset of the values, walked at once, gives the runs
    // the whole walk gives those values.
    let lists = chunk.row_lists().unwrap();
    let mut all = Vec::new();
    lists.for_each(|v, s, l| all.push((v, s, l))).unwrap();
    let d = chunk.distinct();
    for step in [1, 2, 3, 7, 64, 65] {
        let values: Vec<usize> = (step / 2..d).step_by(step).chain([d + 5]).collect();
        let mut walked = Vec::new();
        lists
            .for_values(values.iter().copied(), |v, s, l| walked.push((v, s, l)))
            .unwrap();
        let expected: Vec<_> = all
            .iter()
            .copied()
            .filter(|(v, _, _)| values.binary_search(v).is_ok())
            .collect();
        assert_eq!(walked, expected, "values every {step}");
    }
    let counts = chunk.counts().unwrap();
    let total: u64 = (0..chunk.distinct()).map(|i| counts.view().get(i)).sum();
    assert_eq!(total + u64::from(stats.null_count), u64::from(stats.rows));
    if chunk.data_type().is_string() {
        let hashes = chunk.hashes().unwrap();
        let h = hashes.as_slice();
        assert!(h.windows(2).all(|w| w[0] < w[1]));
        let dict = chunk.dictionary().unwrap();
        let positions = dict.str_positions().unwrap();
        assert_eq!(positions.len(), h.len());
        for (v, hash) in h.iter().enumerate() {
            let pos = dict.str_of_value(v).unwrap();
            assert_eq!(positions[v], pos as u64);
            let s = dict.string_at(pos).unwrap();
            assert_eq!(string_hash(&s), *hash);
        }
    } else {
        let keys = chunk.keys().unwrap().to_vec();
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
        if let (Some(first), Some(last)) = (keys.first(), keys.last()) {
            assert_eq!((*first, *last), (stats.min, stats.max));
        }
    }
}

fn key_strategy() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![
        1 => Just(None),
        3 => (0u64..5).prop_map(Some),
        3 => any::<u64>().prop_map(Some),
        1 => Just(Some(u64::MAX)),
        1 => Just(Some(0)),
    ]
}

fn string_strategy() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop_oneof![
        1 => Just(None),
        2 => Just(Some(Vec::new())),
        3 => prop::collection::vec(any::<u8>(), 0..40).prop_map(Some),
        3 => "[a-c]{0,6}".prop_map(|s| Some(s.into_bytes())),
        1 => "(https://[a-z]{1,8}\\.ru/)?[\\PC]{0,12}".prop_map(|s| Some(s.into_bytes())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_tables_round_trip(
        rows in prop::collection::vec((key_strategy(), string_strategy()), 1..300),
        block_rows in prop_oneof![Just(1usize), Just(3), Just(7), Just(64), Just(1000)],
    ) {
        let keys = Col::Keys(rows.iter().map(|r| r.0).collect());
        let strs = Col::Strs(rows.iter().map(|r| r.1.clone()).collect());
        write_and_read(
            vec![
                Field::new("k", DataType::UInt64, true),
                Field::new("s", DataType::String, true),
            ],
            &[keys, strs],
            block_rows,
        );
    }
}

/// Few values scattered over many rows: stored as row codes, with and
/// without NULLs, for keys and strings.
#[test]
fn scattered_columns_round_trip_as_row_codes() {
    let n = 6000;
    // A pseudo-random value of 0..11 per row.
    let mix = |i: usize| {
        let x = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        ((x ^ (x >> 29)) % 11) as usize
    };
    let keys = Col::Keys((0..n).map(|i| Some(mix(i) as u64 * 1000)).collect());
    let nullable = Col::Keys(
        (0..n)
            .map(|i| (mix(i) != 3).then_some(mix(i) as u64))
            .collect(),
    );
    let strs = Col::Strs(
        (0..n)
            .map(|i| (mix(i) != 5).then(|| format!("value {}", mix(i)).into_bytes()))
            .collect(),
    );
    let fields = vec![
        Field::new("k", DataType::UInt32, false),
        Field::new("n", DataType::UInt16, true),
        Field::new("s", DataType::String, true),
    ];
    write_and_read(
        fields.clone(),
        &[keys.clone(), nullable.clone(), strs.clone()],
        n,
    );
    let (_dir, t) = one_block_table(fields, &[keys, nullable, strs]);
    for c in 0..3 {
        assert_ne!(
            t.manifest().chunk(0, c).zstd_sections & strata_format::layout::ROW_CODES,
            0,
            "column {c}"
        );
    }
}

/// `cols` written as one block with the default options (zstd), verified,
/// and opened; the directory lives as long as the returned guard.
fn one_block_table(fields: Vec<Field>, cols: &[Col]) -> (tempfile::TempDir, Table) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    let rows = cols[0].len();
    let schema = Schema::new(fields).unwrap();
    let mut w = TableWriter::create(&path, schema, WriteOptions::default()).unwrap();
    w.write_block(cols.iter().map(|c| c.slice(0..rows)).collect())
        .unwrap();
    w.finish().unwrap();
    let report = strata_format::verify_table(&path).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let t = Table::open(&path).unwrap();
    (dir, t)
}

/// Many-valued columns: codes two or three bytes wide, plain or as
/// differences between rows, with and without NULLs (the NULL code `d` is
/// what makes the nullable column's codes wider).
#[test]
fn many_valued_columns_round_trip_as_wide_row_codes() {
    let n = 70_000;
    let mix = |x: u64| {
        let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    // Unique identifiers: 70,000 values need three-byte codes.
    let ids = Col::Keys((0..n).map(|r| Some(mix(r as u64))).collect());
    // Times rising within each user's 50 rows, users overlapping in time.
    let times = Col::Keys(
        (0..n)
            .map(|r| Some(mix((r / 50) as u64) % 5_000 + (r % 50) as u64 * 3))
            .collect(),
    );
    // Up to 65,536 values scattered, and NULLs: with NULL's code, the codes
    // may need three bytes.
    let nullable = Col::Keys(
        (0..n)
            .map(|r| (mix(r as u64 + 7) % 9 != 0).then_some(mix(r as u64) % 65_536))
            .collect(),
    );
    let fields = vec![
        Field::new("id", DataType::UInt64, false),
        Field::new("t", DataType::UInt32, false),
        Field::new("n", DataType::UInt32, true),
    ];
    write_and_read(
        fields.clone(),
        &[ids.clone(), times.clone(), nullable.clone()],
        n,
    );
    let (_dir, t) = one_block_table(fields, &[ids, times, nullable]);
    let bits = |c: usize| t.manifest().chunk(0, c).zstd_sections;
    use strata_format::layout::{ROW_CODES, ROW_CODE_DELTAS};
    assert_eq!(bits(0) & (ROW_CODES | ROW_CODE_DELTAS), ROW_CODES);
    assert_eq!(
        bits(1) & (ROW_CODES | ROW_CODE_DELTAS),
        ROW_CODES | ROW_CODE_DELTAS
    );
    assert_ne!(bits(2) & ROW_CODES, 0);
}

#[test]
fn every_type_round_trips() {
    let n = 1000;
    let types = [
        (
            DataType::Bool,
            (0..n).map(|i| Some((i % 2) as u64)).collect::<Vec<_>>(),
        ),
        (
            DataType::Int8,
            (0..n)
                .map(|i| Some(signed_key((i % 256) as i64 - 128)))
                .collect(),
        ),
        (
            DataType::Int16,
            (0..n)
                .map(|i| Some(signed_key(i as i64 * 31 - 15000)))
                .collect(),
        ),
        (
            DataType::Int32,
            (0..n)
                .map(|i| Some(signed_key(i as i64 * 1_000_003 - (1 << 30))))
                .collect(),
        ),
        (
            DataType::Int64,
            (0..n)
                .map(|i| Some(signed_key(if i % 2 == 0 { i64::MIN } else { i64::MAX })))
                .collect(),
        ),
        (
            DataType::UInt8,
            (0..n).map(|i| Some((i % 256) as u64)).collect(),
        ),
        (
            DataType::UInt16,
            (0..n).map(|i| Some((i * 65) as u64 % 65536)).collect(),
        ),
        (
            DataType::UInt32,
            (0..n)
                .map(|i| Some(i as u64 * 4_000_000 % (1 << 32)))
                .collect(),
        ),
        (
            DataType::UInt64,
            (0..n).map(|i| Some(u64::MAX - i as u64)).collect(),
        ),
        (
            DataType::Float32,
            (0..n)
                .map(|i| Some(float_key(i as f32 as f64 / 3.0)))
                .collect(),
        ),
        (
            DataType::Float64,
            (0..n)
                .map(|i| {
                    Some(float_key(
                        [f64::NAN, -0.0, f64::INFINITY, -1e300, 0.5][i % 5],
                    ))
                })
                .collect(),
        ),
        (
            DataType::Date,
            (0..n)
                .map(|i| Some(signed_key(15_000 + (i % 31) as i64)))
                .collect(),
        ),
        (
            DataType::Timestamp,
            (0..n)
                .map(|i| Some(signed_key(1_372_636_800 + i as i64 * 7)))
                .collect(),
        ),
        (
            DataType::Decimal {
                precision: 18,
                scale: 4,
            },
            (0..n)
                .map(|i| {
                    if i % 10 == 0 {
                        None
                    } else {
                        Some(signed_key(i as i64 * 12345))
                    }
                })
                .collect(),
        ),
    ];
    let fields = types
        .iter()
        .enumerate()
        .map(|(i, (t, v))| Field::new(format!("c{i}"), *t, v.iter().any(Option::is_none)))
        .collect();
    let cols: Vec<Col> = types.iter().map(|(_, v)| Col::Keys(v.clone())).collect();
    assert!(write_and_read(fields, &cols, 333) > 0, "some zstd sections");
}

#[test]
fn block_size_boundaries() {
    let block = 1 << 19;
    for rows in [1usize, block - 1, block, block + 1] {
        let keys = Col::Keys(
            (0..rows)
                .map(|i| Some((i as u64 * 2_654_435_761) % 1_000_003))
                .collect(),
        );
        let strs = Col::Strs(
            (0..rows)
                .map(|i| Some(format!("v{}", i % 777).into_bytes()))
                .collect(),
        );
        write_and_read(
            vec![
                Field::new("k", DataType::UInt64, false),
                Field::new("s", DataType::String, false),
            ],
            &[keys, strs],
            block,
        );
    }
}

#[test]
fn all_equal_all_distinct_long_and_invalid_strings() {
    let rows = 2000;
    let long: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
    let strs = Col::Strs(
        (0..rows)
            .map(|i| match i % 5 {
                0 => Some(long.clone()),
                1 => Some(vec![0xff, 0xc3, 0x28, b'\n', b'\t']),
                2 => Some("Пример строки\nс переводом".as_bytes().to_vec()),
                3 => Some(format!("unique-{i}").into_bytes()),
                _ => Some(Vec::new()),
            })
            .collect(),
    );
    let equal = Col::Keys(vec![Some(42); rows]);
    let distinct = Col::Keys((0..rows).map(|i| Some(i as u64 * 7919)).collect());
    let all_null = Col::Strs(vec![None; rows]);
    write_and_read(
        vec![
            Field::new("s", DataType::String, false),
            Field::new("eq", DataType::Int64, false),
            Field::new("d", DataType::Int64, false),
            Field::new("n", DataType::String, true),
        ],
        &[strs, equal, distinct, all_null],
        700,
    );
}

#[test]
fn a_table_without_columns_keeps_its_row_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    let schema = Schema::new(Vec::new()).unwrap();
    let options = WriteOptions {
        block_rows: 1000,
        sync: false,
    };
    let mut w = TableWriter::create(&path, schema.clone(), options).unwrap();
    for rows in [1000, 1000, 1] {
        w.write_encoded(encode_block_rows(&schema, rows, Vec::new()).unwrap())
            .unwrap();
    }
    // A block needs at least one row, with or without columns.
    assert!(encode_block_rows(&schema, 0, Vec::new()).is_err());
    // The row count must match the columns given.
    let one = Schema::new(vec![Field::new("k", DataType::UInt8, false)]).unwrap();
    let mut c = ColumnData::new_fixed();
    c.push_key(1).unwrap();
    assert!(encode_block_rows(&one, 2, vec![c]).is_err());
    w.finish().unwrap();
    let t = Table::open(&path).unwrap();
    assert_eq!(t.num_rows(), 2001);
    assert_eq!(t.num_blocks(), 3);
    assert_eq!(t.block_rows(2), 1);
    assert!(t.schema().is_empty());
    strata_format::verify_table(&path).unwrap();
}

#[test]
fn temp_dirs_of_dead_writers_are_swept_and_live_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    // A pid far above any real one (Linux caps pids at 2^22).
    let dead = dir.path().join(".t.tmp-99999999-1");
    let live = dir.path().join(format!(".t.tmp-{}-2", std::process::id()));
    // Any table's leftovers go, sort spills included.
    let other = dir.path().join(".u.tmp-99999999-3-sort");
    // A writer whose pid looks dead (another PID namespace) but holds its
    // directory's lock.
    let locked = dir.path().join(".v.tmp-99999998-4");
    // Not a writer's: kept.
    let mine = dir.path().join(".w.tmp-notes");
    for d in [&dead, &live, &other, &locked, &mine] {
        std::fs::create_dir(d).unwrap();
    }
    std::fs::write(dead.join("b00000000.blk"), "half").unwrap();
    let lock = strata_format::writer::WorkDirLock::take(&locked).unwrap();
    assert_eq!(
        strata_format::writer::abandoned_temp_dirs(dir.path()),
        [dead.clone(), other.clone()]
    );
    let schema = Schema::new(vec![Field::new("k", DataType::UInt8, false)]).unwrap();
    let mut w =
        TableWriter::create(&dir.path().join("t"), schema, WriteOptions::default()).unwrap();
    let mut c = ColumnData::new_fixed();
    c.push_key(1).unwrap();
    w.write_block(vec![c]).unwrap();
    w.finish().unwrap();
    assert!(!dead.exists(), "a dead writer's directory is removed");
    assert!(
        !other.exists(),
        "another table's abandoned spill is removed"
    );
    assert!(live.exists(), "a live writer's directory is kept");
    assert!(locked.exists(), "a locked directory is kept");
    assert!(mine.exists());
    drop(lock);
}

#[test]
fn temp_paths_sit_beside_the_table_under_the_writers_pattern() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t");
    let p = strata_format::writer::temp_path(&table, "-sort").unwrap();
    assert_eq!(p.parent(), Some(dir.path()));
    let name = p.file_name().unwrap().to_str().unwrap();
    let prefix = format!(".t.tmp-{}-", std::process::id());
    assert!(
        name.starts_with(&prefix) && name.ends_with("-sort"),
        "{name}"
    );
    // A table given as `..` (or `.`) is named by its real path.
    std::fs::create_dir_all(table.join("sub")).unwrap();
    let p = strata_format::writer::temp_path(&table.join("sub").join(".."), "").unwrap();
    assert_eq!(
        p.parent(),
        Some(dir.path().canonicalize().unwrap().as_path())
    );
    assert!(p
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with(".t.tmp-"));
    assert!(strata_format::writer::temp_path(std::path::Path::new("/"), "").is_err());
}

#[test]
fn pinned_tables_read_their_files_after_removal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    let schema = Schema::new(vec![Field::new("k", DataType::UInt32, false)]).unwrap();
    let options = WriteOptions {
        block_rows: 100,
        sync: false,
    };
    let mut w = TableWriter::create(&path, schema, options).unwrap();
    for b in 0..3u64 {
        let mut c = ColumnData::new_fixed();
        for i in 0..100 {
            c.push_key(b * 1000 + i).unwrap();
        }
        w.write_block(vec![c]).unwrap();
    }
    w.finish().unwrap();
    let read = |t: &Table| -> Vec<RowValues> {
        (0..t.num_blocks())
            .map(|b| t.chunk(b, 0).unwrap().row_values().unwrap())
            .collect()
    };
    let expected = read(&Table::open(&path).unwrap());
    let pinned = Table::open(&path).unwrap();
    pinned.pin_files().unwrap();
    let unpinned = Table::open(&path).unwrap();
    std::fs::remove_dir_all(&path).unwrap();
    assert_eq!(read(&pinned), expected);
    assert!(unpinned.chunk(0, 0).is_err());
}

/// A chunk's string blocks kept decompressed decode to the same strings as
/// blocks decompressed one at a time; they are kept from the second time a
/// process asks, and then found in the cache by later chunk handles.
#[test]
fn string_blocks_kept_decompressed_decode_the_same() {
    let strs: Vec<Option<Vec<u8>>> = (0..5000)
        .map(|i| Some(format!("comment {} about request {}", i % 97, i).into_bytes()))
        .collect();
    let fields = vec![Field::new("s", DataType::String, false)];
    let (_dir, t) = one_block_table(fields, &[Col::Strs(strs)]);
    let decode_all = |dict: &strata_format::reader::Dictionary| {
        let (mut bytes, mut ends) = (Vec::new(), Vec::new());
        (0..dict.block_count())
            .map(|b| {
                dict.decode_block(b, &mut bytes, &mut ends).unwrap();
                (bytes.clone(), ends.clone())
            })
            .collect::<Vec<_>>()
    };
    let first = t.chunk(0, 0).unwrap();
    let dict = first.dictionary().unwrap();
    assert!(dict.block_count() > 1);
    assert!(
        !dict.keep_decompressed().unwrap(),
        "kept on the first request"
    );
    let one_at_a_time = decode_all(&dict);
    let second = t.chunk(0, 0).unwrap();
    let dict = second.dictionary().unwrap();
    assert!(
        dict.keep_decompressed().unwrap(),
        "not kept on the second request"
    );
    assert_eq!(decode_all(&dict), one_at_a_time);
    let third = t.chunk(0, 0).unwrap();
    let dict = third.dictionary().unwrap();
    assert!(dict.keep_decompressed().unwrap(), "not found in the cache");
    assert_eq!(decode_all(&dict), one_at_a_time);
}
