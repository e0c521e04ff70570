//! Full verification of a table: every checksum and every structural
//! invariant, for `strata verify`.

use std::fs;
use std::path::Path;

use rayon::prelude::*;

use crate::error::{FormatError, Result};
use crate::layout::{
    checksum, Section, BLOCK_FOOTER_LEN, BLOCK_HEADER_LEN, MANIFEST_FILE, STRINGS_PER_BLOCK,
};
use crate::reader::{ColumnChunk, Table};
use crate::string_hash;
use crate::strings::for_each_trigram;

/// What [`verify_table`] found.
#[derive(Debug, Default)]
pub struct VerifyReport {
    /// Block files checked.
    pub files: usize,
    /// Bytes checked (manifest and block files).
    pub bytes: u64,
    /// Every problem found, each naming its file and section.
    pub problems: Vec<FormatError>,
    /// Files in the directory that the manifest does not refer to.
    pub stray_files: Vec<String>,
    /// Temporary directories beside the table that killed writers left
    /// (of any table in that directory; see
    /// [`crate::writer::abandoned_temp_dirs`]): the next ingest into the
    /// directory removes them.
    pub abandoned: Vec<std::path::PathBuf>,
}

/// Checks the table at `path` completely. Returns `Err` only if the manifest
/// itself cannot be read; damage inside block files is listed in the report.
pub fn verify_table(path: &Path) -> Result<VerifyReport> {
    verify_table_with_progress(path, |_, _| {})
}

/// [`verify_table`], calling `checked(bytes, total)` with the length of each
/// block file once it is checked and the length of all of them (from several
/// threads: blocks are checked in parallel).
pub fn verify_table_with_progress(
    path: &Path,
    checked: impl Fn(u64, u64) + Sync,
) -> Result<VerifyReport> {
    let table = Table::open(path)?;
    let mut report = VerifyReport {
        bytes: fs::metadata(path.join(MANIFEST_FILE)).map_or(0, |m| m.len()),
        ..VerifyReport::default()
    };
    let mut known = std::collections::HashSet::new();
    known.insert(MANIFEST_FILE.to_string());
    for b in 0..table.num_blocks() {
        let file = table.block_path(b);
        if let Some(name) = file.file_name() {
            known.insert(name.to_string_lossy().into_owned());
        }
        report.files += 1;
        report.bytes += table.manifest().blocks[b].file_len.get();
    }
    let total: u64 = table
        .manifest()
        .blocks
        .iter()
        .map(|b| b.file_len.get())
        .sum();
    // Blocks are checked in parallel (each reads its whole file); their
    // problems are reported in block order.
    let per_block: Vec<Vec<FormatError>> = (0..table.num_blocks())
        .into_par_iter()
        .map(|b| {
            let mut problems = Vec::new();
            if let Err(e) = verify_block(&table, b, &mut problems) {
                problems.push(e);
            }
            checked(table.manifest().blocks[b].file_len.get(), total);
            problems
        })
        .collect();
    report.problems.extend(per_block.into_iter().flatten());
    if let Ok(entries) = fs::read_dir(path) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !known.contains(&name) {
                report.stray_files.push(name);
            }
        }
    }
    report.stray_files.sort();
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    report.abandoned = crate::writer::abandoned_temp_dirs(&parent);
    Ok(report)
}

fn verify_block(table: &Table, b: usize, problems: &mut Vec<FormatError>) -> Result<()> {
    let path = table.block_path(b);
    let entry = &table.manifest().blocks[b];
    // A regular file of the manifest's length, mapped: checked page by page
    // without being read into memory.
    let map = crate::files::map_block_file(&path, entry.file_len.get())?;
    let bytes: &[u8] = &map;
    let before = problems.len();
    let mut ends = bytes[..BLOCK_HEADER_LEN].to_vec();
    ends.extend_from_slice(&bytes[bytes.len() - BLOCK_FOOTER_LEN..]);
    if checksum(&ends) != entry.ends_checksum.get() {
        problems.push(FormatError::corrupt(
            &path,
            "header or footer",
            "checksum mismatch",
        ));
    }
    // Every byte is in the header, the footer, a section or zero padding.
    let mut covered = vec![
        (0usize, BLOCK_HEADER_LEN),
        (bytes.len() - BLOCK_FOOTER_LEN, bytes.len()),
    ];
    for (c, field) in table.schema().fields.iter().enumerate() {
        let meta = table.manifest().chunk(b, c);
        for s in Section::ALL {
            let m = &meta.sections[s as usize];
            let (off, len) = (m.offset.get() as usize, m.stored_len.get() as usize);
            if len == 0 {
                continue;
            }
            covered.push((off, off + len));
            if checksum(&bytes[off..off + len]) != m.checksum.get() {
                problems.push(FormatError::corrupt(
                    &path,
                    format!("column {}, {}", field.name, s.name()),
                    "checksum mismatch",
                ));
            }
        }
    }
    covered.sort_unstable();
    let mut end = 0;
    for (s, e) in covered {
        if s < end {
            problems.push(FormatError::corrupt(
                &path,
                "layout",
                format!("sections overlap at byte {s}"),
            ));
        } else if bytes[end..s].iter().any(|&x| x != 0) {
            problems.push(FormatError::corrupt(
                &path,
                "layout",
                format!("non-zero padding at bytes {end}..{s}"),
            ));
        }
        end = end.max(e);
    }
    if problems.len() > before {
        return Ok(());
    }
    for c in 0..table.schema().len() {
        match table.chunk(b, c) {
            Ok(chunk) => {
                if let Err(e) = verify_chunk(table, b, c, &chunk) {
                    problems.push(e);
                }
            }
            Err(e) => problems.push(e),
        }
    }
    Ok(())
}

fn verify_chunk(table: &Table, b: usize, c: usize, chunk: &ColumnChunk) -> Result<()> {
    let name = &table.schema().fields[c].name;
    let bad = |what: &str, detail: String| {
        FormatError::corrupt(chunk.path(), format!("column {name}, {what}"), detail)
    };
    let rows = chunk.rows() as usize;
    let d = chunk.distinct();
    // Row lists cover every row exactly once.
    let mut seen = vec![false; rows];
    let mut twice = false;
    let mut mark = |s: u32, l: u32| {
        for r in &mut seen[s as usize..(s + l) as usize] {
            twice |= *r;
            *r = true;
        }
    };
    chunk.row_lists()?.for_each(|_, s, l| mark(s, l))?;
    for (s, l) in chunk.null_runs()? {
        mark(s, l);
    }
    if twice || seen.iter().any(|&x| !x) {
        return Err(bad("row lists", "rows are missing or listed twice".into()));
    }
    // Bit-packed row codes end in zero bits (the expansion above checked
    // each code against the counts).
    if let Some(packed) = chunk.packed_codes()? {
        if !packed.padding_is_zero() {
            return Err(bad("row codes", "non-zero bits after the last code".into()));
        }
    }
    let counts = chunk.counts()?;
    if (0..d).any(|i| counts.view().get(i) == 0) {
        return Err(bad("counts", "a value with no rows".into()));
    }
    if chunk.data_type().is_string() {
        let hashes = chunk.hashes()?;
        let h = hashes.as_slice();
        if h.windows(2).any(|w| w[0] >= w[1]) {
            return Err(bad("values", "hashes are not strictly increasing".into()));
        }
        let dict = chunk.dictionary()?;
        let (mut bytes, mut ends) = (Vec::new(), Vec::new());
        let mut prev: Option<Vec<u8>> = None;
        // (trigram, string block), each pair once.
        let mut trigrams: Vec<(u32, u32)> = Vec::new();
        let mut block_trigrams: Vec<u32> = Vec::new();
        for blk in 0..dict.block_count() {
            dict.decode_block(blk, &mut bytes, &mut ends)?;
            block_trigrams.clear();
            let mut start = 0;
            for (i, &end) in ends.iter().enumerate() {
                let s = &bytes[start..end];
                start = end;
                let pos = blk * STRINGS_PER_BLOCK + i;
                if prev.as_deref().is_some_and(|p| p >= s) {
                    return Err(bad("strings", format!("string {pos} is out of order")));
                }
                prev = Some(s.to_vec());
                let v = dict.value_of_str(pos)?;
                if dict.str_of_value(v)? != pos {
                    return Err(bad("string maps", format!("maps disagree at string {pos}")));
                }
                if string_hash(s) != h[v] {
                    return Err(bad(
                        "values",
                        format!("string {pos} does not hash to value {v}"),
                    ));
                }
                for_each_trigram(s, |t| block_trigrams.push(t));
            }
            block_trigrams.sort_unstable();
            block_trigrams.dedup();
            trigrams.extend(block_trigrams.iter().map(|&t| (t, blk as u32)));
        }
        trigrams.sort_unstable();
        // Each trigram's postings are decoded once for all its blocks.
        for group in trigrams.chunk_by(|a, b| a.0 == b.0) {
            let t = group[0].0;
            let listed = dict.blocks_with_trigram(t)?;
            if let Some(&(_, blk)) = group
                .iter()
                .find(|(_, blk)| listed.binary_search(blk).is_err())
            {
                return Err(bad(
                    "trigram index",
                    format!("trigram {t:#x} missing for string block {blk}"),
                ));
            }
        }
    } else if d > 0 {
        let keys = chunk.keys()?;
        let v = keys.to_vec();
        if v.windows(2).any(|w| w[0] >= w[1]) {
            return Err(bad("values", "keys are not strictly increasing".into()));
        }
        let stats = table.stats(b, c);
        if v.first() != Some(&stats.min) || v.last() != Some(&stats.max) {
            return Err(bad("statistics", "min/max disagree with the values".into()));
        }
    }
    Ok(())
}
