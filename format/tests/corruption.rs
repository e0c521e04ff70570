//! Damaged tables: every flipped byte and every truncation is detected, and
//! reading damaged files returns errors, never panics or wrong answers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};

use strata_format::{
    verify_table, ColumnData, DataType, Field, Schema, Section, Table, TableWriter, WriteOptions,
    FORMAT_VERSION,
};

fn small_table(dir: &Path) -> PathBuf {
    let path = dir.join("t");
    let schema = Schema::new(vec![
        Field::new("n", DataType::Int64, true),
        Field::new("s", DataType::String, false),
        // Keys far apart but evenly spaced: stored as compressed values.
        Field::new("k", DataType::UInt64, false),
    ])
    .unwrap();
    let mut w = TableWriter::create(
        &path,
        schema,
        WriteOptions {
            block_rows: 50,
            sync: false,
        },
    )
    .unwrap();
    for b in 0..2 {
        let mut n = ColumnData::new_fixed();
        let mut s = ColumnData::new_strings();
        let mut k = ColumnData::new_fixed();
        for i in 0..50u64 {
            k.push_key(((i + b) << 40) | (i % 5)).unwrap();
            if i % 7 == 3 {
                n.push_null();
            } else {
                n.push_key(i * 13 % 17 + b).unwrap();
            }
            s.push_str(format!("https://example.com/{}", i % 9).as_bytes())
                .unwrap();
        }
        w.write_block(vec![n, s, k]).unwrap();
    }
    w.finish().unwrap();
    path
}

/// Reads every value of every chunk; Ok only if everything decoded.
fn read_all(path: &Path) -> Result<Vec<strata_format::RowValues>, strata_format::FormatError> {
    let t = Table::open(path)?;
    let mut out = Vec::new();
    for b in 0..t.num_blocks() {
        for c in 0..t.schema().len() {
            out.push(t.chunk(b, c)?.row_values()?);
        }
    }
    Ok(out)
}

fn files_of(path: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(path)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn every_flipped_byte_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_table(dir.path());
    let good = read_all(&path).unwrap();
    let t = Table::open(&path).unwrap();
    let values = t.manifest().chunk(0, 2).sections[Section::Values as usize];
    assert!(values.stored_len.get() < values.raw_len.get());
    for file in files_of(&path) {
        let original = fs::read(&file).unwrap();
        for pos in 0..original.len() {
            let mut damaged = original.clone();
            damaged[pos] ^= 0x5a;
            fs::write(&file, &damaged).unwrap();
            // Reading never panics, and never returns different values.
            if let Ok(values) = read_all(&path) {
                assert_eq!(values, good, "{} byte {pos}: wrong answer", file.display());
            }
            let report = verify_table(&path);
            let detected = match report {
                Err(_) => true,
                Ok(r) => !r.problems.is_empty(),
            };
            assert!(detected, "{} byte {pos}: flip not detected", file.display());
        }
        fs::write(&file, &original).unwrap();
    }
    let clean = verify_table(&path).unwrap();
    assert!(clean.problems.is_empty() && clean.stray_files.is_empty());
}

#[test]
fn truncated_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_table(dir.path());
    for file in files_of(&path) {
        let original = fs::read(&file).unwrap();
        for len in [0, 1, 15, 16, original.len() / 2, original.len() - 1] {
            fs::write(&file, &original[..len]).unwrap();
            assert!(
                read_all(&path).is_err(),
                "{} truncated to {len}",
                file.display()
            );
            let detected = verify_table(&path).map_or(true, |r| !r.problems.is_empty());
            assert!(detected);
        }
        fs::write(&file, &original).unwrap();
    }
}

#[test]
fn missing_block_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_table(dir.path());
    fs::remove_file(path.join("b00000001.blk")).unwrap();
    let err = read_all(&path).unwrap_err().to_string();
    assert!(err.contains("b00000001.blk"), "{err}");
}

/// A manifest whose checksums hold but whose string codec fields, packed
/// widths, compressed sections or missing maps do not fit its version or its
/// chunks is refused.
#[test]
fn fields_new_in_a_version_are_errors_in_earlier_ones() {
    use strata_format::manifest::Manifest;
    let dir = tempfile::tempdir().unwrap();
    let path = small_table(dir.path());
    let written = Table::open(&path).unwrap().manifest().clone();
    assert_eq!(written.chunks[1].str_codec, 1, "zstd by default");
    let decode = |m: &Manifest, version: u32| {
        let mut bytes = m.encode();
        let n = bytes.len();
        bytes[8..12].copy_from_slice(&version.to_le_bytes());
        bytes[n - 16..n - 12].copy_from_slice(&version.to_le_bytes());
        Manifest::decode(&path.join("MANIFEST"), &bytes)
    };
    // Version 6 may store row codes bit-packed: the row lists section
    // raw, of exactly the packed length, not marked as differences.
    use strata_format::layout::{ChunkMeta, ROW_CODES};
    let is_packed = |c: &ChunkMeta| {
        let r = c.sections[Section::Rows as usize];
        c.zstd_sections & ROW_CODES != 0 && r.stored_len.get() == r.raw_len.get()
    };
    let p = written
        .chunks
        .iter()
        .position(is_packed)
        .expect("packed codes");
    assert!(decode(&written, 6).is_ok());
    assert!(decode(&written, 5).is_err());
    let mut m = written.clone();
    m.chunks[p].zstd_sections |= Section::Rows.zstd_bit().unwrap();
    assert!(decode(&m, 6).is_err(), "packed codes as differences");
    let mut m = written.clone();
    let r = &mut m.chunks[p].sections[Section::Rows as usize];
    r.stored_len = (r.stored_len.get() + 8).into();
    r.raw_len = r.stored_len;
    assert!(decode(&m, 6).is_err(), "packed codes of the wrong length");
    // The rows as an older writer would store them (only the manifest is
    // decoded here).
    let mut written = written;
    for c in written.chunks.iter_mut().filter(|c| is_packed(c)) {
        c.zstd_sections &= !ROW_CODES;
    }
    // Version 3 leaves the string-to-hash map out and may compress values;
    // versions 1 and 2 need the map and raw values.
    assert!(decode(&written, 3).is_ok());
    assert!(decode(&written, 2).is_err());
    for (i, c) in written.chunks.iter_mut().enumerate() {
        match i % 3 {
            1 => c.sections[Section::StrToHash as usize] = c.sections[Section::HashToStr as usize],
            2 => {
                let values = &mut c.sections[Section::Values as usize];
                values.raw_len = values.stored_len;
            }
            _ => {}
        }
    }
    assert!(decode(&written, 2).is_ok());
    assert!(decode(&written, 1).is_err(), "version 1 knows only LZ4");
    // The codec byte as version 1 has it (only the manifest is decoded here).
    let mut good = written.clone();
    for c in &mut good.chunks {
        c.str_codec = 0;
    }
    assert!(decode(&good, 1).is_ok());
    let string_chunk = 1;
    type Change = fn(&mut strata_format::layout::ChunkMeta);
    let changes: [(Change, bool); 6] = [
        (|c| c.count_width = 3, true),
        (|c| c.str_codec = 1, true),
        (|c| c.str_codec = 2, false),
        (|c| c.zstd_sections = 1, false),
        (|c| c.str_dict_len = 1.into(), false),
        (
            |c| {
                c.str_codec = 1;
                c.str_dict_len = u16::MAX.into();
            },
            false,
        ),
    ];
    for (i, (change, valid_in_v2)) in changes.into_iter().enumerate() {
        let mut m = good.clone();
        change(&mut m.chunks[string_chunk]);
        assert_eq!(decode(&m, 2).is_ok(), valid_in_v2, "change {i}");
        assert!(decode(&m, 1).is_err(), "change {i} in version 1");
    }
    // A dictionary only for strings.
    let mut m = good.clone();
    m.chunks[0].str_codec = 1;
    m.chunks[0].str_dict_len = 16.into();
    assert!(decode(&m, 2).is_err());
    // Row codes are new in version 3, and only for compressed row lists;
    // marked zstd too, they are differences, new in version 4.
    let rows = |m: &Manifest| m.chunks[0].sections[Section::Rows as usize];
    let mut m = good.clone();
    m.chunks[0].zstd_sections |= strata_format::layout::ROW_CODES;
    let meta = rows(&m);
    assert!(meta.stored_len.get() > 0);
    let codes_ok = meta.stored_len.get() < meta.raw_len.get();
    assert_eq!(decode(&m, 3).is_ok(), codes_ok);
    assert!(decode(&m, 2).is_err());
    let zstd_bit = Section::Rows.zstd_bit().unwrap();
    m.chunks[0].zstd_sections |= zstd_bit;
    assert!(decode(&m, 3).is_err(), "row codes marked zstd");
    assert_eq!(decode(&m, 4).is_ok(), codes_ok, "row code differences");
    // Compressed values are new in version 3; other raw sections stay raw.
    for (section, valid_in_v3) in [(Section::Values, true), (Section::RowIndex, false)] {
        let mut m = good.clone();
        let meta = &mut m.chunks[0].sections[section as usize];
        meta.raw_len = (meta.raw_len.get() + 8).into();
        assert_eq!(decode(&m, 3).is_ok(), valid_in_v3, "{}", section.name());
        assert!(decode(&m, 2).is_err(), "{} in version 2", section.name());
    }
}

/// Files of a format version newer than this build's are refused with a
/// message saying which versions it reads.
#[test]
fn unknown_versions_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_table(dir.path());
    let set_version = |file: &Path, at: &[usize]| {
        let mut bytes = fs::read(file).unwrap();
        for &i in at {
            bytes[i..i + 4].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        }
        fs::write(file, bytes).unwrap();
    };
    let block = path.join("b00000000.blk");
    let len = fs::metadata(&block).unwrap().len() as usize;
    let original = fs::read(&block).unwrap();
    set_version(&block, &[8, len - 16]);
    let err = read_all(&path).unwrap_err();
    assert!(
        matches!(
            err,
            strata_format::FormatError::UnsupportedVersion { found, .. } if found == FORMAT_VERSION + 1
        ),
        "{err}"
    );
    fs::write(&block, original).unwrap();
    let manifest = path.join("MANIFEST");
    let len = fs::metadata(&manifest).unwrap().len() as usize;
    set_version(&manifest, &[8, len - 16]);
    let err = Table::open(&path).unwrap_err().to_string();
    assert!(
        err.contains(&format!(
            "has format version {}; this build reads versions 1 to {FORMAT_VERSION}",
            FORMAT_VERSION + 1
        )),
        "{err}"
    );
}
