//! Reading tables: the manifest is read on open; block files are memory-mapped
//! on first use, and every section is checked against its checksum before its
//! bytes are used.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, OnceLock};

use memmap2::Mmap;
use zerocopy::{FromBytes, IntoBytes};

use rayon::prelude::*;

use crate::bitpack;
use crate::cache::{self, Decoded};
use crate::decode_stats;
use crate::error::{FormatError, Result};
use crate::layout::{
    checksum, readable_version, time_unit_micros, ChunkMeta, Section, BLOCK_FOOTER_LEN,
    BLOCK_HEADER_LEN, BLOCK_MAGIC, FORMAT_VERSION, MANIFEST_FILE, ROW_CODES, ROW_CODE_DELTAS,
    ROW_INDEX_STRIDE, SECTION_COUNT, STRINGS_PER_BLOCK,
};
use crate::manifest::Manifest;
use crate::packed::Packed;
use crate::row_codes::CodeForm;
use crate::strings;
use crate::types::{signed_from_key, signed_key, DataType, Schema};
use crate::{delta_planes, row_codes, rowlist, zstd_frames};

/// An open table: its manifest plus lazily mapped block files. Cheap to clone
/// and safe to share between threads.
#[derive(Clone, Debug)]
pub struct Table {
    inner: Arc<TableInner>,
}

#[derive(Debug)]
struct TableInner {
    path: PathBuf,
    manifest: Manifest,
    maps: Vec<OnceLock<Arc<BlockMap>>>,
    /// Block files mapped by [`Table::pin_files`], not yet checked.
    pinned: Vec<OnceLock<Arc<Mmap>>>,
    /// Per chunk, a bit per section whose checksum has been verified.
    verified: Vec<AtomicU16>,
    /// This handle's identity in the decoded-data [`cache`] (a view's is
    /// its table's: they share decoded sections).
    cache_id: u64,
    /// For a view of some blocks ([`Table::with_blocks`]): their numbers in
    /// the whole table, and its block count.
    subset: Option<(Vec<usize>, usize)>,
}

impl Drop for TableInner {
    fn drop(&mut self) {
        // A view leaves its table's entries to the table.
        if self.subset.is_none() {
            cache::forget_table(self.cache_id);
        }
    }
}

/// One mapped block file.
#[derive(Debug)]
struct BlockMap {
    path: PathBuf,
    map: Arc<Mmap>,
}

/// Statistics of one column in one block, from the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnStats {
    /// Rows in the block.
    pub rows: u32,
    /// Distinct non-NULL values.
    pub distinct: u32,
    /// NULL rows.
    pub null_count: u32,
    /// Smallest key (fixed-width types, when `distinct > 0`; TIMESTAMP keys
    /// in microseconds, whatever unit the chunk stores).
    pub min: u64,
    /// Largest key (as `min`).
    pub max: u64,
    /// Bytes stored for this column in this block.
    pub bytes: u64,
}

impl Table {
    /// Opens the table in directory `path`, reading and validating only its
    /// manifest.
    pub fn open(path: impl AsRef<Path>) -> Result<Table> {
        let path = path.as_ref();
        let bytes = crate::files::read_manifest(path)?;
        let manifest = Manifest::decode(&path.join(MANIFEST_FILE), &bytes)?;
        let maps = (0..manifest.blocks.len())
            .map(|_| OnceLock::new())
            .collect();
        let pinned = (0..manifest.blocks.len())
            .map(|_| OnceLock::new())
            .collect();
        let verified = (0..manifest.chunks.len())
            .map(|_| AtomicU16::new(0))
            .collect();
        Ok(Table {
            inner: Arc::new(TableInner {
                path: path.to_path_buf(),
                manifest,
                maps,
                pinned,
                verified,
                cache_id: cache::new_table_id(),
                subset: None,
            }),
        })
    }

    /// A view of this table holding only blocks `blocks` (numbers in this
    /// table, each at most once, in the order given): a table of its own
    /// whose block `i` is this table's block `blocks[i]`, with their rows and
    /// statistics. The block files are shared (the view maps them anew), and
    /// so is what queries decode from them: the decoded-data cache knows a
    /// view's blocks by their numbers in the table.
    /// This is how a query runs over a part of a table (one task of a query
    /// split across processes).
    pub fn with_blocks(&self, blocks: &[usize]) -> Result<Table> {
        let whole = self
            .inner
            .subset
            .as_ref()
            .map_or(self.num_blocks(), |s| s.1);
        let m = &self.inner.manifest;
        let columns = m.schema.len();
        let mut seen = vec![false; self.num_blocks()];
        let mut manifest = Manifest {
            schema: m.schema.clone(),
            block_rows: m.block_rows,
            rows: 0,
            generation: m.generation,
            blocks: Vec::with_capacity(blocks.len()),
            chunks: Vec::with_capacity(blocks.len() * columns),
        };
        for &b in blocks {
            match seen.get_mut(b) {
                None => {
                    return Err(FormatError::InvalidInput(format!(
                        "no block {b}: the table has {} blocks",
                        self.num_blocks()
                    )))
                }
                Some(true) => {
                    return Err(FormatError::InvalidInput(format!(
                        "block {b} is listed twice"
                    )))
                }
                Some(s) => *s = true,
            }
            manifest.blocks.push(m.blocks[b]);
            manifest.rows += u64::from(m.blocks[b].rows.get());
            manifest
                .chunks
                .extend_from_slice(&m.chunks[b * columns..(b + 1) * columns]);
        }
        let ids = match &self.inner.subset {
            Some((ids, _)) => blocks.iter().map(|&b| ids[b]).collect(),
            None => blocks.to_vec(),
        };
        let n = manifest.blocks.len();
        let verified = (0..manifest.chunks.len())
            .map(|_| AtomicU16::new(0))
            .collect();
        Ok(Table {
            inner: Arc::new(TableInner {
                path: self.inner.path.clone(),
                manifest,
                maps: (0..n).map(|_| OnceLock::new()).collect(),
                pinned: (0..n).map(|_| OnceLock::new()).collect(),
                verified,
                cache_id: self.inner.cache_id,
                subset: Some((ids, whole)),
            }),
        })
    }

    /// For a view made by [`Table::with_blocks`]: the numbers of its blocks
    /// in the whole table, and how many blocks that has.
    pub fn subset(&self) -> Option<(&[usize], usize)> {
        self.inner
            .subset
            .as_ref()
            .map(|(ids, whole)| (ids.as_slice(), *whole))
    }

    /// Whether `self` and `other` are clones of one handle (one opening of
    /// the table, sharing its mappings and verified checksums).
    pub fn same_handle(&self, other: &Table) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The table's directory.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The decoded manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.inner.manifest
    }

    /// The columns.
    pub fn schema(&self) -> &Schema {
        &self.inner.manifest.schema
    }

    /// An identity of this handle, stable while it lives (a view of some
    /// blocks has its own): the address of its shared state.
    pub fn handle_id(&self) -> usize {
        Arc::as_ptr(&self.inner) as usize
    }

    /// Total rows.
    pub fn num_rows(&self) -> u64 {
        self.inner.manifest.rows
    }

    /// Number of blocks.
    pub fn num_blocks(&self) -> usize {
        self.inner.manifest.blocks.len()
    }

    /// Rows in block `block`.
    pub fn block_rows(&self, block: usize) -> u32 {
        self.inner.manifest.blocks[block].rows.get()
    }

    /// Path of block `block`'s file.
    pub fn block_path(&self, block: usize) -> PathBuf {
        let id = self.inner.manifest.blocks[block].file_id.get();
        self.inner.path.join(crate::layout::block_file_name(id))
    }

    /// Statistics of column `col` in block `block` (no I/O).
    pub fn stats(&self, block: usize, col: usize) -> ColumnStats {
        let m = self.inner.manifest.chunk(block, col);
        let scale = key_scale(m, self.schema().fields[col].data_type);
        ColumnStats {
            rows: self.block_rows(block),
            distinct: m.distinct.get(),
            null_count: m.null_count.get(),
            min: scale_key(m.min.get(), scale),
            max: scale_key(m.max.get(), scale),
            bytes: m
                .sections
                .iter()
                .map(|s| u64::from(s.stored_len.get()))
                .sum(),
        }
    }

    /// Maps every block file now rather than on first use, checking that
    /// each is a regular file of the manifest's length: from then on the
    /// table reads these files even once they are removed or renamed (a
    /// cache entry cleared while a query reads it). Their contents are
    /// checked on first use, as always. Costs one `open` and `mmap` per
    /// block file, and no reads.
    pub fn pin_files(&self) -> Result<()> {
        for (b, slot) in self.inner.pinned.iter().enumerate() {
            if slot.get().is_some() || self.inner.maps[b].get().is_some() {
                continue;
            }
            let len = self.inner.manifest.blocks[b].file_len.get();
            let map = crate::files::map_block_file(&self.block_path(b), len)?;
            let _ = slot.set(Arc::new(map));
        }
        Ok(())
    }

    /// Column `col` of block `block`, mapping the block file if needed.
    pub fn chunk(&self, block: usize, col: usize) -> Result<ColumnChunk> {
        if block >= self.num_blocks() || col >= self.schema().len() {
            return Err(FormatError::InvalidInput(format!(
                "no column {col} in block {block}"
            )));
        }
        let map = self.map_block(block)?;
        Ok(ColumnChunk {
            table: self.clone(),
            block,
            col,
            map,
            meta: *self.inner.manifest.chunk(block, col),
            rows: self.block_rows(block),
            unpacked: Default::default(),
            lists_len: OnceLock::new(),
            codes: OnceLock::new(),
            str_blocks: OnceLock::new(),
        })
    }

    fn map_block(&self, block: usize) -> Result<Arc<BlockMap>> {
        let slot = &self.inner.maps[block];
        if let Some(m) = slot.get() {
            return Ok(m.clone());
        }
        let mapped = Arc::new(self.open_block(block)?);
        // Another thread may have mapped it meanwhile; either copy will do.
        Ok(slot.get_or_init(|| mapped).clone())
    }

    fn open_block(&self, block: usize) -> Result<BlockMap> {
        let entry = &self.inner.manifest.blocks[block];
        let path = self.block_path(block);
        let map = match self.inner.pinned[block].get() {
            Some(map) => map.clone(),
            None => Arc::new(crate::files::map_block_file(&path, entry.file_len.get())?),
        };
        let bytes = &map[..];
        let footer = &bytes[bytes.len() - BLOCK_FOOTER_LEN..];
        if bytes[..8] != BLOCK_MAGIC || footer[8..] != BLOCK_MAGIC {
            return Err(FormatError::corrupt(
                &path,
                "file",
                "not a strata block file (bad magic)",
            ));
        }
        let mut ends = Vec::with_capacity(BLOCK_HEADER_LEN + BLOCK_FOOTER_LEN);
        ends.extend_from_slice(&bytes[..BLOCK_HEADER_LEN]);
        ends.extend_from_slice(footer);
        if checksum(&ends) != entry.ends_checksum.get() {
            let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
            if !readable_version(version) {
                return Err(FormatError::UnsupportedVersion {
                    path,
                    found: version,
                    supported: FORMAT_VERSION,
                });
            }
            return Err(FormatError::corrupt(
                &path,
                "header or footer",
                "checksum mismatch",
            ));
        }
        Ok(BlockMap { path, map })
    }
}

/// Bytes of one section: in place in the mapped file, or decompressed into a
/// 16-byte aligned buffer.
#[derive(Debug)]
pub enum SectionBytes<'a> {
    /// The mapped bytes of a section stored raw, or the chunk's decompressed
    /// copy of a compressed one (16-byte aligned).
    Mapped(&'a [u8]),
}

impl Deref for SectionBytes<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            SectionBytes::Mapped(b) => b,
        }
    }
}

/// Integers packed in one width, in a section.
#[derive(Debug)]
pub struct PackedSection<'a> {
    bytes: SectionBytes<'a>,
    width: u8,
    len: usize,
}

impl PackedSection<'_> {
    /// A view of the integers.
    pub fn view(&self) -> Packed<'_> {
        // Checked in `ColumnChunk::packed`; an empty view cannot be wrong.
        Packed::new(&self.bytes, self.width, self.len).unwrap_or(Packed::W1(&[]))
    }
}

/// One column of one block: its sections, checked on first use.
/// Compressed sections are decompressed once per chunk handle and kept with
/// it (a query holds one handle per block and column it reads), and offered
/// to the process-wide [`cache`] for later handles of the same table.
#[derive(Debug)]
pub struct ColumnChunk {
    table: Table,
    block: usize,
    col: usize,
    map: Arc<BlockMap>,
    meta: ChunkMeta,
    rows: u32,
    /// Decoded sections (decompressed, expanded or derived), 16-byte aligned,
    /// by section slot.
    unpacked: [OnceLock<Arc<Vec<u128>>>; SECTION_COUNT],
    /// The length of the row lists expanded from bit-packed row codes,
    /// which the manifest does not record.
    lists_len: OnceLock<usize>,
    /// Row-ordered value indexes, once decoded.
    codes: OnceLock<Arc<Vec<u32>>>,
    /// Every string block decompressed (16-byte aligned), and where each
    /// block starts in it (one more entry: the end), once kept (see
    /// [`Dictionary::keep_decompressed`]).
    str_blocks: OnceLock<(Arc<Vec<u128>>, Vec<usize>)>,
}

impl ColumnChunk {
    /// The column's type.
    pub fn data_type(&self) -> DataType {
        self.table.schema().fields[self.col].data_type
    }

    /// Rows in the block.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Distinct non-NULL values.
    pub fn distinct(&self) -> usize {
        self.meta.distinct.get() as usize
    }

    /// NULL rows.
    pub fn null_count(&self) -> u32 {
        self.meta.null_count.get()
    }

    /// The manifest record of this chunk.
    pub fn meta(&self) -> &ChunkMeta {
        &self.meta
    }

    /// Path of the block file, for messages.
    pub fn path(&self) -> &Path {
        &self.map.path
    }

    fn corrupt(&self, section: Section, detail: impl Into<String>) -> FormatError {
        FormatError::corrupt(
            &self.map.path,
            format!(
                "column {}, {}",
                self.table.schema().fields[self.col].name,
                section.name()
            ),
            detail,
        )
    }

    /// The bytes of `section`, checksum-verified (once per table handle) and
    /// decompressed if stored compressed. A string chunk's string-to-hash
    /// map, which version 3 does not store, is derived from hash-to-string,
    /// and row lists stored as row codes are expanded.
    pub fn section(&self, section: Section) -> Result<SectionBytes<'_>> {
        let m = &self.meta.sections[section as usize];
        let (stored, raw) = (m.stored_len.get() as usize, m.raw_len.get() as usize);
        if section == Section::StrToHash && stored == 0 && self.distinct() > 0 {
            let len = self.distinct() * usize::from(self.meta.map_width);
            return self.decoded(section, len, |out| self.invert_hash_to_str(out));
        }
        if section == Section::Rows && self.rows_packed() {
            return self.expanded_packed_codes();
        }
        if section == Section::Rows && self.rows_as_codes() {
            return self.decoded(section, raw, |out| self.expand_row_codes(out));
        }
        let bytes = self.stored(section)?;
        if stored == raw {
            return Ok(SectionBytes::Mapped(bytes));
        }
        self.decoded(section, raw, |out| {
            let zstd = section
                .zstd_bit()
                .is_some_and(|bit| self.meta.zstd_sections & bit != 0);
            let done = if section == Section::Values {
                delta_planes::decompress_into(bytes, usize::from(self.meta.value_width), out)
                    .map(|()| raw)
            } else if zstd {
                zstd_frames::decompress_into(bytes, out).map_err(|e| format!("zstd: {e}"))
            } else {
                lz4_flex::block::decompress_into(bytes, out).map_err(|e| format!("LZ4: {e}"))
            };
            match done {
                Ok(n) if n == raw => Ok(()),
                Ok(n) => Err(self.corrupt(
                    section,
                    format!("decompressed to {n} bytes, expected {raw}"),
                )),
                Err(e) => Err(self.corrupt(section, e)),
            }
        })
    }

    /// The bytes of `section` as stored, checksum-verified (once per table
    /// handle).
    fn stored(&self, section: Section) -> Result<&[u8]> {
        let m = &self.meta.sections[section as usize];
        let (off, stored) = (m.offset.get() as usize, m.stored_len.get() as usize);
        // The manifest validated the range against the file length.
        let bytes = self
            .map
            .map
            .get(off..off + stored)
            .ok_or_else(|| self.corrupt(section, "out of bounds"))?;
        let flag = 1u16 << (section as u16);
        let verified =
            &self.table.inner.verified[self.block * self.table.schema().len() + self.col];
        if verified.load(Ordering::Relaxed) & flag == 0 {
            if checksum(bytes) != m.checksum.get() {
                return Err(self.corrupt(section, "checksum mismatch"));
            }
            verified.fetch_or(flag, Ordering::Relaxed);
        }
        Ok(bytes)
    }

    /// Whether the row lists are stored as row codes (version 3).
    fn rows_as_codes(&self) -> bool {
        self.meta.zstd_sections & ROW_CODES != 0
    }

    /// Whether the row lists section holds bit-packed row codes (version 6):
    /// row codes stored raw.
    fn rows_packed(&self) -> bool {
        let m = &self.meta.sections[Section::Rows as usize];
        self.rows_as_codes() && m.stored_len.get() == m.raw_len.get()
    }

    /// The bit-packed row codes, read in place (their checksum verified once
    /// per table handle), if the chunk stores its rows so (SPEC.md 5.6).
    /// Each code is at most `distinct` (which stands for NULL), but only a
    /// full decode ([`ColumnChunk::row_codes`]) checks them against the
    /// counts: users of single codes must bound-check them.
    pub fn packed_codes(&self) -> Result<Option<bitpack::Packed<'_>>> {
        if !self.rows_packed() {
            return Ok(None);
        }
        let stored = self.stored(Section::Rows)?;
        let bits = bitpack::bits(self.distinct(), self.null_count() > 0);
        bitpack::Packed::new(stored, bits, self.rows as usize)
            .map(Some)
            .map_err(|e| self.corrupt(Section::Rows, e))
    }

    /// Decodes the row codes stored in the row lists section (`stored`) into
    /// `out`: each row's value index, or `distinct` for a NULL row, checked
    /// to agree with the counts and the NULL count.
    fn decode_row_codes(&self, stored: &[u8], out: &mut Vec<u32>) -> Result<()> {
        let d = self.distinct();
        let nulls = self.null_count() as usize;
        if let Some(packed) = self.packed_codes()? {
            packed.unpack_into(out);
        } else {
            let width = row_codes::width(d, nulls > 0);
            let form = if self.meta.zstd_sections & ROW_CODE_DELTAS != 0 {
                CodeForm::Deltas
            } else {
                CodeForm::Plain
            };
            row_codes::decompress(stored, width, self.rows as usize, form, out)
                .map_err(|e| self.corrupt(Section::Rows, e))?;
        }
        // Every code indexes a value or is the NULL code `d`, on exactly
        // the chunk's NULL rows. (The counts are checked against the codes
        // where row lists are built from them, `lists_of_codes`.)
        if out.is_empty() {
            return Ok(());
        }
        let max = out.iter().fold(0u32, |m, &c| m.max(c));
        let null_rows = if nulls > 0 {
            out.iter().filter(|&&c| c as usize == d).count()
        } else {
            0
        };
        if max as usize > d || (max as usize == d && nulls == 0) {
            return Err(self.corrupt(Section::Rows, format!("row code {max} of {d} values")));
        }
        if null_rows != nulls {
            return Err(self.corrupt(
                Section::Rows,
                format!("{null_rows} NULL row codes where the chunk has {nulls} NULLs"),
            ));
        }
        Ok(())
    }

    /// The row lists that bit-packed row codes stand for, made once per
    /// chunk handle and shared through the [`cache`].
    fn expanded_packed_codes(&self) -> Result<SectionBytes<'_>> {
        let cell = &self.unpacked[Section::Rows as usize];
        if let (Some(words), Some(&len)) = (cell.get(), self.lists_len.get()) {
            return Ok(SectionBytes::Mapped(&words.as_bytes()[..len]));
        }
        let key = self.cache_key(Section::Rows as u8);
        let (words, len) = match cache::get(key) {
            Some(Decoded::Sized(words, len)) if words.len() * 16 >= len => (words, len),
            _ => {
                let (words, len) =
                    decode_stats::timed(decode_stats::Work::Section(Section::Rows), || {
                        let lists = self.lists_of_codes()?;
                        let mut words = vec![0u128; lists.len().div_ceil(16)];
                        words.as_mut_bytes()[..lists.len()].copy_from_slice(&lists);
                        Ok::<_, FormatError>(((words, lists.len()), lists.len()))
                    })?;
                let words = Arc::new(words);
                cache::insert(key, Decoded::Sized(words.clone(), len));
                (words, len)
            }
        };
        let words = cell.get_or_init(|| words);
        let len = *self.lists_len.get_or_init(|| len);
        match words.as_bytes().get(..len) {
            Some(bytes) => Ok(SectionBytes::Mapped(bytes)),
            None => Err(self.corrupt(Section::Rows, "expanded row lists changed length")),
        }
    }

    /// Writes into `out` the row lists that the stored row codes stand for,
    /// from the (checked and kept) row codes.
    fn expand_row_codes(&self, out: &mut [u8]) -> Result<()> {
        let lists = self.lists_of_codes()?;
        if lists.len() != out.len() {
            return Err(self.corrupt(
                Section::Rows,
                format!(
                    "row codes make {} bytes of row lists, not {}",
                    lists.len(),
                    out.len()
                ),
            ));
        }
        out.copy_from_slice(&lists);
        Ok(())
    }

    /// The row lists (SPEC.md 5.1) that the (checked and kept) row codes
    /// stand for.
    fn lists_of_codes(&self) -> Result<Vec<u8>> {
        let codes = self.row_codes()?;
        // Rows grouped by code with a counting sort (NULL rows, `u32::MAX`,
        // last).
        let d = self.distinct();
        let bucket = |c: u32| (c as usize).min(d);
        let mut starts = vec![0u32; d + 2];
        for &c in codes {
            starts[bucket(c) + 1] += 1;
        }
        let counts = self.counts()?;
        let counts = counts.view();
        if (0..d).any(|v| u64::from(starts[v + 1]) != counts.get(v)) {
            return Err(self.corrupt(Section::Rows, "row codes disagree with the counts"));
        }
        for i in 0..=d {
            starts[i + 1] += starts[i];
        }
        let mut fill = starts.clone();
        let mut rows = vec![0u32; codes.len()];
        for (r, &c) in codes.iter().enumerate() {
            let b = bucket(c);
            rows[fill[b] as usize] = r as u32;
            fill[b] += 1;
        }
        let mut lists = Vec::with_capacity(codes.len());
        rowlist::encode_lists(&rows, &starts[..=d], &mut lists, &mut Vec::new());
        Ok(lists)
    }

    /// The `len` bytes of `section` as `decode` writes them, made once per
    /// chunk handle and shared through the [`cache`].
    fn decoded(
        &self,
        section: Section,
        len: usize,
        decode: impl FnOnce(&mut [u8]) -> Result<()>,
    ) -> Result<SectionBytes<'_>> {
        let cell = &self.unpacked[section as usize];
        if let Some(words) = cell.get() {
            return Ok(SectionBytes::Mapped(&words.as_bytes()[..len]));
        }
        let key = self.cache_key(section as u8);
        let words = match cache::get(key) {
            Some(Decoded::Section(words)) if words.len() * 16 >= len => words,
            _ => {
                let words = decode_stats::timed(decode_stats::Work::Section(section), || {
                    let mut words = vec![0u128; len.div_ceil(16)];
                    decode(&mut words.as_mut_bytes()[..len])?;
                    Ok::<_, FormatError>((words, len))
                })?;
                let words = Arc::new(words);
                cache::insert(key, Decoded::Section(words.clone()));
                words
            }
        };
        let words = cell.get_or_init(|| words);
        Ok(SectionBytes::Mapped(&words.as_bytes()[..len]))
    }

    /// Writes the inverse of the hash-to-string map into `out`, packed with
    /// the map width: for each string position, its value index.
    fn invert_hash_to_str(&self, out: &mut [u8]) -> Result<()> {
        let d = self.distinct();
        let width = usize::from(self.meta.map_width);
        let h2s = self.packed(Section::HashToStr, self.meta.map_width, d)?;
        let mut inverse = vec![u32::MAX; d];
        let view = h2s.view();
        for v in 0..d {
            let s = view.get(v) as usize;
            match inverse.get_mut(s) {
                Some(slot) if *slot == u32::MAX => *slot = v as u32,
                _ => {
                    return Err(self.corrupt(
                        Section::HashToStr,
                        format!("position {s} of value {v} is out of range or repeated"),
                    ))
                }
            }
        }
        for (dst, &v) in out.chunks_exact_mut(width).zip(&inverse) {
            dst.copy_from_slice(&v.to_le_bytes()[..width]);
        }
        Ok(())
    }

    /// This chunk's key in the decoded-data cache, for `slot` (in a view,
    /// by the block's number in the table).
    fn cache_key(&self, slot: u8) -> cache::Key {
        let block = match &self.table.inner.subset {
            Some((ids, _)) => ids.get(self.block).copied().unwrap_or(usize::MAX),
            None => self.block,
        };
        cache::Key {
            table: self.table.inner.cache_id,
            chunk: (block * self.table.schema().len() + self.col) as u32,
            slot,
        }
    }

    fn packed(&self, section: Section, width: u8, len: usize) -> Result<PackedSection<'_>> {
        let bytes = self.section(section)?;
        if Packed::new(&bytes, width, len).is_none() && len > 0 {
            return Err(self.corrupt(
                section,
                format!(
                    "{} bytes cannot hold {len} values of {width} bytes",
                    bytes.len()
                ),
            ));
        }
        Ok(PackedSection { bytes, width, len })
    }

    /// The sorted distinct keys of a fixed-width column, as offsets from
    /// [`ChunkMeta::min`]; use [`Keys::get`] for the keys themselves.
    pub fn keys(&self) -> Result<Keys<'_>> {
        if self.data_type().is_string() {
            return Err(FormatError::InvalidInput(
                "keys() of a string column".into(),
            ));
        }
        let packed = self.packed(Section::Values, self.meta.value_width, self.distinct())?;
        Ok(Keys {
            min: self.meta.min.get(),
            scale: key_scale(&self.meta, self.data_type()),
            packed,
        })
    }

    /// The sorted distinct 128-bit hashes of a string column.
    pub fn hashes(&self) -> Result<Hashes<'_>> {
        if !self.data_type().is_string() {
            return Err(FormatError::InvalidInput(
                "hashes() of a non-string column".into(),
            ));
        }
        let bytes = self.section(Section::Values)?;
        if bytes.len() != self.distinct() * 16
            || <[u128]>::ref_from_bytes(&bytes).is_err() && self.distinct() > 0
        {
            return Err(self.corrupt(Section::Values, "wrong length or alignment for the hashes"));
        }
        Ok(Hashes { bytes })
    }

    /// The number of rows of each distinct value.
    pub fn counts(&self) -> Result<PackedSection<'_>> {
        self.packed(Section::Counts, self.meta.count_width, self.distinct())
    }

    /// The row lists of all values.
    pub fn row_lists(&self) -> Result<RowLists<'_>> {
        let d = self.distinct();
        Ok(RowLists {
            chunk: self,
            rows: self.section(Section::Rows)?,
            counts: self.counts()?,
            index: self.packed(Section::RowIndex, 4, d.div_ceil(ROW_INDEX_STRIDE))?,
        })
    }

    /// The NULL rows, as `(start, len)` runs.
    pub fn null_runs(&self) -> Result<Vec<(u32, u32)>> {
        let bytes = self.section(Section::NullRows)?;
        let mut runs = Vec::new();
        let mut pos = 0;
        rowlist::decode_runs(&bytes, &mut pos, self.null_count(), self.rows, 0, |s, l| {
            runs.push((s, l))
        })
        .map_err(|e| self.corrupt(Section::NullRows, e.to_string()))?;
        if pos != bytes.len() {
            return Err(self.corrupt(Section::NullRows, "trailing bytes"));
        }
        Ok(runs)
    }

    /// Row-ordered value indexes: `[row]` is the index of the row's value
    /// among the sorted distinct values, or `u32::MAX` for NULL. Decoded
    /// from the row lists on first use (every row checked to be covered
    /// exactly once), then kept with the chunk and offered to the [`cache`]
    /// (bit-packed codes on their second request).
    pub fn row_codes(&self) -> Result<&[u32]> {
        if let Some(codes) = self.codes.get() {
            return Ok(codes);
        }
        let key = self.cache_key(cache::CODES_SLOT);
        let codes = match cache::get(key) {
            Some(Decoded::Codes(codes)) if codes.len() == self.rows as usize => codes,
            _ => {
                let v = decode_stats::timed(decode_stats::Work::RowCodes, || {
                    let mut v = Vec::new();
                    self.codes(&mut v)?;
                    let bytes = v.len() * 4;
                    Ok::<_, FormatError>((v, bytes))
                })?;
                let codes = Arc::new(v);
                // Bit-packed codes unpack at memory speed: they are kept
                // for later queries only once asked for again, so that a
                // process running one query does not hold (and fault in)
                // 4 bytes per row of every column it reads.
                if self.packed_codes()?.is_none() || cache::second_request(key) {
                    cache::insert(key, Decoded::Codes(codes.clone()));
                }
                codes
            }
        };
        Ok(self.codes.get_or_init(|| codes))
    }

    /// Whether [`ColumnChunk::row_codes`] is worth calling for a few rows:
    /// the codes are decoded already (here or in the cache), or were asked
    /// for before (by an earlier query on this table handle), so that
    /// decoding and caching them pays off if they are asked for again. A
    /// query reading a few rows of many columns once (`SELECT * ... LIMIT`)
    /// thus does not fill the cache.
    pub fn row_codes_wanted(&self) -> bool {
        // A cached entry also counts as asked for before.
        self.codes.get().is_some() || cache::second_request(self.cache_key(cache::CODES_SLOT))
    }

    /// Whether [`ColumnChunk::row_lists`] is at hand without being built:
    /// stored as row lists, or expanded from the row codes already (by this
    /// handle or into the [`cache`]).
    pub fn row_lists_ready(&self) -> bool {
        !self.rows_as_codes()
            || self.unpacked[Section::Rows as usize].get().is_some()
            || cache::contains(self.cache_key(Section::Rows as u8))
    }

    /// Whether the chunk stores its row lists as row codes (format version
    /// 3). The row codes then decode faster than the row lists, which are
    /// expanded from them: a reader should prefer
    /// [`ColumnChunk::row_codes`].
    pub fn stores_row_codes(&self) -> bool {
        self.rows_as_codes()
    }

    /// Whether [`ColumnChunk::row_codes`] answers without decoding (the codes
    /// are kept here or in the cache).
    pub fn row_codes_ready(&self) -> bool {
        self.codes.get().is_some() || cache::contains(self.cache_key(cache::CODES_SLOT))
    }

    /// Decodes the row-ordered value indexes into `out` (see
    /// [`ColumnChunk::row_codes`], which keeps them).
    pub fn codes(&self, out: &mut Vec<u32>) -> Result<()> {
        if self.rows_as_codes() {
            let stored = self.stored(Section::Rows)?;
            self.decode_row_codes(stored, out)?;
            if self.null_count() > 0 {
                let null = self.distinct() as u32;
                for c in out.iter_mut().filter(|c| **c == null) {
                    *c = u32::MAX;
                }
            }
            return Ok(());
        }
        out.clear();
        out.resize(self.rows as usize, u32::MAX);
        let mut filled = 0u64;
        self.row_lists()?.for_each(|v, start, len| {
            out[start as usize..(start + len) as usize].fill(v as u32);
            filled += u64::from(len);
        })?;
        for (s, l) in self.null_runs()? {
            filled += u64::from(l);
            let _ = s;
        }
        if filled != u64::from(self.rows) {
            return Err(self.corrupt(
                Section::Rows,
                format!("row lists cover {filled} rows of {}", self.rows),
            ));
        }
        Ok(())
    }

    /// The string dictionary of a string column.
    pub fn dictionary(&self) -> Result<Dictionary<'_>> {
        if !self.data_type().is_string() {
            return Err(FormatError::InvalidInput(
                "dictionary() of a non-string column".into(),
            ));
        }
        let d = self.distinct();
        let blocks = self.meta.str_blocks.get() as usize;
        if blocks != d.div_ceil(STRINGS_PER_BLOCK) {
            return Err(self.corrupt(Section::StrDir, format!("{blocks} blocks for {d} strings")));
        }
        let dir = self.packed(Section::StrDir, 8, blocks * 2)?;
        let trigrams = self.meta.trigrams.get() as usize;
        let tri_len = if trigrams == 0 { 0 } else { (trigrams + 1) * 2 };
        Ok(Dictionary {
            chunk: self,
            dir,
            data: self.section(Section::StrData)?,
            lens: self.packed(Section::StrLens, self.meta.len_width, d)?,
            hash_to_str: self.packed(Section::HashToStr, self.meta.map_width, d)?,
            str_to_hash: OnceLock::new(),
            trigram_keys: self.packed(Section::TrigramKeys, 4, tri_len)?,
            postings: self.section(Section::TrigramPostings)?,
        })
    }
}

/// Microseconds per unit of a chunk's keys: 1 but for TIMESTAMP chunks
/// stored in seconds or milliseconds (SPEC.md 2).
fn key_scale(meta: &ChunkMeta, ty: DataType) -> i64 {
    if ty == DataType::Timestamp {
        // The manifest's validation admits only known units.
        time_unit_micros(meta.str_codec).unwrap_or(1)
    } else {
        1
    }
}

/// A stored key in the value's unit: a TIMESTAMP key of `scale`
/// microseconds per unit as a key of microseconds. The manifest's validation
/// keeps the product in range (it saturates otherwise).
#[inline]
fn scale_key(key: u64, scale: i64) -> u64 {
    if scale == 1 {
        key
    } else {
        signed_key(signed_from_key(key).saturating_mul(scale))
    }
}

/// The sorted distinct keys of a fixed-width column chunk. TIMESTAMP keys
/// are microseconds, also where the chunk stores coarser units.
#[derive(Debug)]
pub struct Keys<'a> {
    /// The smallest stored key.
    min: u64,
    /// Microseconds per unit of stored TIMESTAMP keys; else 1.
    scale: i64,
    packed: PackedSection<'a>,
}

impl Keys<'_> {
    /// The smallest key.
    pub fn min(&self) -> u64 {
        scale_key(self.min, self.scale)
    }

    /// The packed `key - min` offsets as stored: of the stored keys, in the
    /// chunk's unit where [`Keys::unit_micros`] is not 1.
    pub fn offsets(&self) -> Packed<'_> {
        self.packed.view()
    }

    /// Microseconds per unit of the stored keys of a TIMESTAMP chunk (1, 1000
    /// or 1,000,000); 1 for other types.
    pub fn unit_micros(&self) -> i64 {
        self.scale
    }

    /// Number of distinct keys.
    pub fn len(&self) -> usize {
        self.packed.len
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.packed.len == 0
    }

    /// The `i`th key.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        scale_key(self.min.wrapping_add(self.packed.view().get(i)), self.scale)
    }

    /// All keys, widened.
    pub fn to_vec(&self) -> Vec<u64> {
        let mut v = Vec::with_capacity(self.len());
        self.extend_range_into(0, self.len(), &mut v);
        v
    }

    /// Appends the keys `start..end` (within `len()`), widened, to `out`:
    /// a few at a time where all of them would be a large allocation.
    pub fn extend_range_into(&self, start: usize, end: usize, out: &mut Vec<u64>) {
        let from = out.len();
        self.packed.view().extend_range_into(start, end, out);
        let added = &mut out[from..];
        if self.scale == 1 {
            for k in added {
                *k = k.wrapping_add(self.min);
            }
        } else {
            for k in added {
                *k = scale_key(k.wrapping_add(self.min), self.scale);
            }
        }
    }

    /// Index of the first key `>= key`.
    pub fn lower_bound(&self, key: u64) -> usize {
        // In the stored unit: the first stored key whose value, scaled, is
        // at least `key`'s, is the first at least `key`'s value divided by the
        // scale, rounded up.
        let key = if self.scale == 1 {
            key
        } else {
            let v = signed_from_key(key);
            let q = v.div_euclid(self.scale) + i64::from(v.rem_euclid(self.scale) != 0);
            signed_key(q)
        };
        if key <= self.min {
            return 0;
        }
        self.packed.view().lower_bound(key - self.min)
    }
}

/// The sorted distinct string hashes of a chunk.
#[derive(Debug)]
pub struct Hashes<'a> {
    bytes: SectionBytes<'a>,
}

impl Hashes<'_> {
    /// The hashes.
    pub fn as_slice(&self) -> &[u128] {
        <[u128]>::ref_from_bytes(&self.bytes).unwrap_or(&[])
    }
}

/// The row lists of a chunk's values, decoded on demand.
#[derive(Debug)]
pub struct RowLists<'a> {
    chunk: &'a ColumnChunk,
    rows: SectionBytes<'a>,
    counts: PackedSection<'a>,
    index: PackedSection<'a>,
}

impl RowLists<'_> {
    /// Calls `f(value, start, len)` for every run of every value, in value
    /// order.
    pub fn for_each(&self, mut f: impl FnMut(usize, u32, u32)) -> Result<()> {
        self.for_each_while(|v, s, l| {
            f(v, s, l);
            true
        })
    }

    /// Like [`RowLists::for_each`], but stops after the value during which
    /// `f` returned false (the trailing bytes are then not checked).
    pub fn for_each_while(&self, mut f: impl FnMut(usize, u32, u32) -> bool) -> Result<()> {
        let counts = self.counts.view();
        let index = self.index.view();
        let mut pos = 0;
        let mut base = 0;
        for v in 0..counts.len() {
            if v % ROW_INDEX_STRIDE == 0 {
                if index.get(v / ROW_INDEX_STRIDE) != pos as u64 {
                    return Err(self.chunk.corrupt(
                        Section::RowIndex,
                        format!(
                            "entry {} disagrees with the row lists",
                            v / ROW_INDEX_STRIDE
                        ),
                    ));
                }
                base = 0;
            }
            let mut go_on = true;
            base = rowlist::decode_runs(
                &self.rows,
                &mut pos,
                counts.get(v) as u32,
                self.chunk.rows,
                base,
                |s, l| go_on &= f(v, s, l),
            )
            .map_err(|e| self.chunk.corrupt(Section::Rows, format!("value {v}: {e}")))?;
            if !go_on {
                return Ok(());
            }
        }
        if pos != self.rows.len() {
            return Err(self.chunk.corrupt(Section::Rows, "trailing bytes"));
        }
        Ok(())
    }

    /// Calls `f(value, start, len)` for every run of the values in `values`.
    pub fn for_range(
        &self,
        values: std::ops::Range<usize>,
        f: impl FnMut(usize, u32, u32),
    ) -> Result<()> {
        if values.end > self.counts.view().len() {
            return Ok(());
        }
        self.for_values(values, f)
    }

    /// Calls `f(value, start, len)` for every run of the values `values`,
    /// which ascend. One walk through the row lists: a value in the group
    /// (of [`ROW_INDEX_STRIDE`] values) after the previous one's continues
    /// from where that ended instead of skipping from the group's start, so
    /// many values cost what one range over them costs.
    pub fn for_values(
        &self,
        values: impl IntoIterator<Item = usize>,
        mut f: impl FnMut(usize, u32, u32),
    ) -> Result<()> {
        let counts = self.counts.view();
        let index = self.index.view();
        // The value whose list starts at `pos` (`base` the last row before
        // it); `None` before the first value.
        let mut next: Option<usize> = None;
        let (mut pos, mut base) = (0usize, 0u32);
        for v in values {
            if v >= counts.len() {
                break;
            }
            let group = v / ROW_INDEX_STRIDE;
            let walk = next.is_some_and(|n| {
                n <= v && n % ROW_INDEX_STRIDE != 0 && n / ROW_INDEX_STRIDE == group
            });
            let mut at = if walk {
                next.unwrap_or_default()
            } else {
                pos = index.get(group) as usize;
                group * ROW_INDEX_STRIDE
            };
            while at <= v {
                if at % ROW_INDEX_STRIDE == 0 {
                    base = 0;
                }
                let count = counts.get(at) as u32;
                let res = if at < v {
                    rowlist::skip(&self.rows, &mut pos, count, self.chunk.rows, base)
                } else {
                    rowlist::decode_runs(
                        &self.rows,
                        &mut pos,
                        count,
                        self.chunk.rows,
                        base,
                        |s, l| f(v, s, l),
                    )
                };
                base = res.map_err(|e| {
                    self.chunk
                        .corrupt(Section::Rows, format!("value {at}: {e}"))
                })?;
                at += 1;
            }
            next = Some(at);
        }
        Ok(())
    }
}

/// The strings of a string chunk, in byte order, with the maps between string
/// order and hash (value) order and the trigram index.
#[derive(Debug)]
pub struct Dictionary<'a> {
    chunk: &'a ColumnChunk,
    dir: PackedSection<'a>,
    data: SectionBytes<'a>,
    lens: PackedSection<'a>,
    hash_to_str: PackedSection<'a>,
    /// Read (or, from version 3, derived) on first use: only `LIKE` needs it.
    str_to_hash: OnceLock<PackedSection<'a>>,
    trigram_keys: PackedSection<'a>,
    postings: SectionBytes<'a>,
}

impl Dictionary<'_> {
    /// Number of strings (= distinct values).
    pub fn len(&self) -> usize {
        self.lens.len
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.lens.len == 0
    }

    /// Number of string blocks.
    pub fn block_count(&self) -> usize {
        self.dir.len / 2
    }

    /// Byte length of the string at string position `pos`.
    pub fn len_of(&self, pos: usize) -> usize {
        self.lens.view().get(pos) as usize
    }

    /// String position of value (hash order) `value`.
    pub fn str_of_value(&self, value: usize) -> Result<usize> {
        let s = self.hash_to_str.view().get(value) as usize;
        if s >= self.len() {
            return Err(self
                .chunk
                .corrupt(Section::HashToStr, format!("position {s} out of range")));
        }
        Ok(s)
    }

    /// The string position of every value (hash order), in value order: a
    /// string's position is its byte-order rank in the chunk.
    pub fn str_positions(&self) -> Result<Vec<u64>> {
        let mut out = Vec::with_capacity(self.len() + 1);
        self.hash_to_str.view().extend_into(&mut out);
        if let Some(s) = out.iter().find(|&&s| s >= self.len() as u64) {
            return Err(self
                .chunk
                .corrupt(Section::HashToStr, format!("position {s} out of range")));
        }
        Ok(out)
    }

    /// Value index (hash order) of the string at position `pos`.
    pub fn value_of_str(&self, pos: usize) -> Result<usize> {
        let s2h = match self.str_to_hash.get() {
            Some(s2h) => s2h,
            None => {
                let s2h =
                    self.chunk
                        .packed(Section::StrToHash, self.chunk.meta.map_width, self.len())?;
                self.str_to_hash.get_or_init(|| s2h)
            }
        };
        let v = s2h.view().get(pos) as usize;
        if v >= self.len() {
            return Err(self
                .chunk
                .corrupt(Section::StrToHash, format!("value {v} out of range")));
        }
        Ok(v)
    }

    /// The chunk's zstd dictionary of raw content (empty for none).
    fn zstd_dict(&self) -> Result<&[u8]> {
        let dict_len = usize::from(self.chunk.meta.str_dict_len.get());
        let dict = self.data.get(..dict_len).ok_or_else(|| {
            self.chunk
                .corrupt(Section::StrData, "dictionary out of bounds")
        })?;
        if dict.first().is_some_and(|&b| b != 0) {
            // A dictionary starts with a raw block's first byte, 0; zstd
            // would take anything starting with its magic for a structured
            // dictionary.
            return Err(self
                .chunk
                .corrupt(Section::StrData, "dictionary does not start with 0"));
        }
        Ok(dict)
    }

    /// Decodes string block `block` into `bytes` (concatenated strings) and
    /// `ends` (end offset of each). Its strings are positions
    /// `block * 128 ..`.
    pub fn decode_block(
        &self,
        block: usize,
        bytes: &mut Vec<u8>,
        ends: &mut Vec<usize>,
    ) -> Result<()> {
        let count = (self.len() - block * STRINGS_PER_BLOCK).min(STRINGS_PER_BLOCK);
        let mut decompressed = Vec::new();
        let kept = self.chunk.str_blocks.get().and_then(|(words, starts)| {
            words
                .as_bytes()
                .get(*starts.get(block)?..*starts.get(block + 1)?)
        });
        let raw_bytes: &[u8] = match kept {
            Some(kept) => kept,
            None => {
                let (src, raw) = self.stored_block(block)?;
                if src.len() == raw {
                    src
                } else {
                    decompressed.resize(raw, 0);
                    self.decompress_into(block, src, &mut decompressed)?;
                    &decompressed
                }
            }
        };
        strings::decode_block(raw_bytes, count, bytes, ends).map_err(|e| {
            self.chunk
                .corrupt(Section::StrData, format!("block {block}: {}", e.0))
        })?;
        let first = block * STRINGS_PER_BLOCK;
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            if end - start != self.len_of(first + i) {
                return Err(self.chunk.corrupt(
                    Section::StrLens,
                    format!(
                        "string {} has {} bytes, its length says {}",
                        first + i,
                        end - start,
                        self.len_of(first + i)
                    ),
                ));
            }
            start = end;
        }
        Ok(())
    }

    /// Decompresses every string block at once and keeps them, in this
    /// chunk handle and in the process [`cache`], for a caller about to
    /// decode most of them: later decodes of this query and of the next ones
    /// only undo the prefix coding. It does so when they are cached already
    /// or when this is the second time the process asks for them (a process
    /// running one query pays nothing beyond the blocks it decodes); never
    /// past the cache's limit. Returns whether they are kept.
    pub fn keep_decompressed(&self) -> Result<bool> {
        if self.chunk.str_blocks.get().is_some() {
            return Ok(true);
        }
        let blocks = self.block_count();
        let mut starts = Vec::with_capacity(blocks + 1);
        let mut total = 0usize;
        starts.push(0);
        // Raw lengths as the directory says: each is checked against its
        // strings where the block is decompressed (`stored_block`).
        let dir = self.dir.view();
        for b in 0..blocks {
            total += (dir.get(b * 2 + 1) >> 32) as usize;
            if total > cache::limit() {
                return Ok(false);
            }
            starts.push(total);
        }
        let key = self.chunk.cache_key(cache::STR_BLOCKS_SLOT);
        let words = match cache::get(key) {
            Some(Decoded::Sized(words, len)) if len == total && words.len() * 16 >= len => words,
            _ if !cache::second_request(key) => return Ok(false),
            _ => {
                let mut words = vec![0u128; total.div_ceil(16)];
                let mut rest = &mut words.as_mut_bytes()[..total];
                let mut parts = Vec::with_capacity(blocks);
                for b in 0..blocks {
                    let (part, tail) = rest.split_at_mut(starts[b + 1] - starts[b]);
                    parts.push((b, part));
                    rest = tail;
                }
                parts
                    .into_par_iter()
                    .with_min_len(32)
                    .try_for_each(|(b, out)| {
                        let (src, _) = self.stored_block(b)?;
                        self.decompress_into(b, src, out)
                    })?;
                let words = Arc::new(words);
                cache::insert(key, Decoded::Sized(words.clone(), total));
                words
            }
        };
        self.chunk.str_blocks.get_or_init(|| (words, starts));
        Ok(true)
    }

    /// Decompresses string block `block`, stored as `src`, into `out`,
    /// which holds exactly its raw length.
    fn decompress_into(&self, block: usize, src: &[u8], out: &mut [u8]) -> Result<()> {
        if src.len() == out.len() {
            out.copy_from_slice(src);
            return Ok(());
        }
        let dict = self.zstd_dict()?;
        decode_stats::timed(decode_stats::Work::StringBlock, || {
            strings::decompress_block_into(self.chunk.meta.str_codec, dict, src, out)
                .map(|()| ((), out.len()))
        })
        .map_err(|e| {
            self.chunk
                .corrupt(Section::StrData, format!("block {block}: {}", e.0))
        })
    }

    /// String block `block` as stored, and its raw (decompressed) length,
    /// which can be no more than its strings' bytes and their two length
    /// varints each: a corrupt directory cannot make a reader allocate more.
    fn stored_block(&self, block: usize) -> Result<(&[u8], usize)> {
        if block >= self.block_count() {
            return Err(FormatError::InvalidInput(format!(
                "no string block {block}"
            )));
        }
        let dir = self.dir.view();
        let lens = dir.get(block * 2 + 1);
        let (stored, raw) = ((lens & 0xffff_ffff) as usize, (lens >> 32) as usize);
        let src = usize::try_from(dir.get(block * 2))
            .ok()
            .and_then(|o| self.data.get(o..o.checked_add(stored)?))
            .ok_or_else(|| {
                self.chunk
                    .corrupt(Section::StrDir, format!("block {block} out of bounds"))
            })?;
        let first = block * STRINGS_PER_BLOCK;
        let count = (self.len() - first).min(STRINGS_PER_BLOCK);
        let most: usize = (first..first + count)
            .map(|i| self.len_of(i).saturating_add(2 * crate::varint::MAX_LEN))
            .fold(0, usize::saturating_add);
        if raw > most {
            return Err(self.chunk.corrupt(
                Section::StrDir,
                format!("block {block} claims {raw} raw bytes for {count} strings of fewer"),
            ));
        }
        Ok((src, raw))
    }

    /// The string at string position `pos` (decodes its whole block).
    pub fn string_at(&self, pos: usize) -> Result<Vec<u8>> {
        let (mut bytes, mut ends) = (Vec::new(), Vec::new());
        let block = pos / STRINGS_PER_BLOCK;
        self.decode_block(block, &mut bytes, &mut ends)?;
        let i = pos % STRINGS_PER_BLOCK;
        let start = if i == 0 { 0 } else { ends[i - 1] };
        Ok(bytes[start..ends[i]].to_vec())
    }

    /// The string blocks containing trigram `key` (see
    /// [`crate::strings::trigram_key`]), ascending; empty if none.
    pub fn blocks_with_trigram(&self, key: u32) -> Result<Vec<u32>> {
        let keys = self.trigram_keys.view();
        let n = keys.len() / 2;
        if n == 0 {
            return Ok(Vec::new());
        }
        let trigrams = n - 1;
        // Binary search over the (key, offset) pairs.
        let (mut lo, mut hi) = (0, trigrams);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if (keys.get(mid * 2) as u32) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo == trigrams || keys.get(lo * 2) as u32 != key {
            return Ok(Vec::new());
        }
        let (start, end) = (keys.get(lo * 2 + 1) as usize, keys.get(lo * 2 + 3) as usize);
        let list = self
            .postings
            .get(start..end)
            .filter(|_| start <= end)
            .ok_or_else(|| {
                self.chunk
                    .corrupt(Section::TrigramKeys, "postings out of bounds")
            })?;
        let mut out = Vec::new();
        let (mut pos, mut block) = (0, 0u64);
        while pos < list.len() {
            let delta = crate::varint::get(list, &mut pos)
                .ok_or_else(|| self.chunk.corrupt(Section::TrigramPostings, "truncated"))?;
            block = block.saturating_add(delta);
            if block >= self.block_count() as u64 || (!out.is_empty() && delta == 0) {
                return Err(self
                    .chunk
                    .corrupt(Section::TrigramPostings, "block number out of range"));
            }
            out.push(block as u32);
        }
        Ok(out)
    }
}

/// A chunk's values in row order (for materialising results and for tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowValues {
    /// Keys of a fixed-width column; `None` for NULL.
    Keys(Vec<Option<u64>>),
    /// Strings; `None` for NULL.
    Strings(Vec<Option<Vec<u8>>>),
}

impl ColumnChunk {
    /// Decodes every row's value, in row order.
    pub fn row_values(&self) -> Result<RowValues> {
        let mut codes = Vec::new();
        self.codes(&mut codes)?;
        if self.data_type().is_string() {
            let dict = self.dictionary()?;
            let mut by_value: Vec<Vec<u8>> = vec![Vec::new(); self.distinct()];
            let (mut bytes, mut ends) = (Vec::new(), Vec::new());
            for b in 0..dict.block_count() {
                dict.decode_block(b, &mut bytes, &mut ends)?;
                let mut start = 0;
                for (i, &end) in ends.iter().enumerate() {
                    let v = dict.value_of_str(b * STRINGS_PER_BLOCK + i)?;
                    by_value[v] = bytes[start..end].to_vec();
                    start = end;
                }
            }
            Ok(RowValues::Strings(
                codes
                    .iter()
                    .map(|&c| (c != u32::MAX).then(|| by_value[c as usize].clone()))
                    .collect(),
            ))
        } else {
            let keys = self.keys()?.to_vec();
            Ok(RowValues::Keys(
                codes
                    .iter()
                    .map(|&c| (c != u32::MAX).then(|| keys[c as usize]))
                    .collect(),
            ))
        }
    }
}
