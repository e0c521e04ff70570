//! The manifest: a table's schema, its blocks and, per block and column, the
//! statistics and the location and checksum of every section.

use std::path::Path;

use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, IntoBytes};

use crate::bitpack;
use crate::error::{FormatError, Result};
use crate::layout::time_unit_micros;
use crate::layout::{
    checksum, readable_version, BlockEntry, ChunkMeta, ManifestHead, Section, BLOCK_FOOTER_LEN,
    BLOCK_HEADER_LEN, FORMAT_VERSION, MANIFEST_FOOTER_LEN, MANIFEST_HEADER_LEN, MANIFEST_MAGIC,
    MAX_BLOCK_ROWS, ROW_CODES, ROW_CODE_DELTAS, SECTION_ALIGN, TIME_UNIT_SECONDS,
};
use crate::strings::{STR_CODEC_LZ4, STR_CODEC_ZSTD};
use crate::types::{signed_from_key, DataType, Field, Schema};

/// A table's manifest, decoded.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The columns.
    pub schema: Schema,
    /// The block size the table was written with.
    pub block_rows: u32,
    /// Total rows.
    pub rows: u64,
    /// 1 for a new table, incremented by each append.
    pub generation: u64,
    /// The blocks, in row order.
    pub blocks: Vec<BlockEntry>,
    /// Block-major: the chunk of column `c` in block `b` is at `b * columns + c`.
    pub chunks: Vec<ChunkMeta>,
}

impl Manifest {
    /// The metadata of column `col` in block `block`.
    pub fn chunk(&self, block: usize, col: usize) -> &ChunkMeta {
        &self.chunks[block * self.schema.len() + col]
    }

    /// Serialises the manifest (header, body, footer).
    pub fn encode(&self) -> Vec<u8> {
        let mut schema = Vec::new();
        for f in &self.schema.fields {
            let (p1, p2) = f.data_type.params();
            schema.extend_from_slice(&[f.data_type.code(), p1, p2, u8::from(f.nullable)]);
            schema.extend_from_slice(&(f.name.len() as u16).to_le_bytes());
            schema.extend_from_slice(f.name.as_bytes());
        }
        schema.resize(schema.len().next_multiple_of(8), 0);
        let head = ManifestHead {
            columns: U32::new(self.schema.len() as u32),
            blocks: U32::new(self.blocks.len() as u32),
            block_rows: U32::new(self.block_rows),
            schema_len: U32::new(schema.len() as u32),
            rows: U64::new(self.rows),
            generation: U64::new(self.generation),
        };
        let mut body = Vec::new();
        body.extend_from_slice(head.as_bytes());
        body.extend_from_slice(&schema);
        body.extend_from_slice(self.blocks.as_bytes());
        body.extend_from_slice(self.chunks.as_bytes());
        let mut out = Vec::with_capacity(body.len() + MANIFEST_HEADER_LEN + MANIFEST_FOOTER_LEN);
        out.extend_from_slice(&MANIFEST_MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&body);
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(&checksum(&body).to_le_bytes());
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&MANIFEST_MAGIC);
        out
    }

    /// Decodes and validates a manifest read from `path`.
    pub fn decode(path: &Path, bytes: &[u8]) -> Result<Manifest> {
        let bad = |section: &str, detail: String| FormatError::corrupt(path, section, detail);
        let min_len = MANIFEST_HEADER_LEN + MANIFEST_FOOTER_LEN;
        if bytes.len() < min_len {
            return Err(bad(
                "manifest",
                format!(
                    "{} bytes is shorter than the {min_len}-byte minimum",
                    bytes.len()
                ),
            ));
        }
        let (header, rest) = bytes.split_at(MANIFEST_HEADER_LEN);
        let (body, footer) = rest.split_at(rest.len() - MANIFEST_FOOTER_LEN);
        if header[..8] != MANIFEST_MAGIC || footer[24..] != MANIFEST_MAGIC {
            return Err(bad("manifest", "not a strata manifest (bad magic)".into()));
        }
        let version = le_u32(&header[8..12]);
        let footer_version = le_u32(&footer[16..20]);
        if version != footer_version {
            return Err(bad(
                "manifest",
                format!("header says version {version}, footer {footer_version}"),
            ));
        }
        if !readable_version(version) {
            return Err(FormatError::UnsupportedVersion {
                path: path.to_path_buf(),
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        if le_u32(&header[12..16]) != 0 || le_u32(&footer[20..24]) != 0 {
            return Err(bad("manifest", "reserved bytes are not zero".into()));
        }
        let body_len = le_u64(&footer[..8]);
        if body_len != body.len() as u64 {
            return Err(bad(
                "manifest",
                format!(
                    "footer records a {body_len}-byte body but the file holds {}",
                    body.len()
                ),
            ));
        }
        if le_u64(&footer[8..16]) != checksum(body) {
            return Err(bad("manifest", "checksum mismatch".into()));
        }
        let head_len = std::mem::size_of::<ManifestHead>();
        let head = ManifestHead::read_from_prefix(body)
            .map_err(|_| bad("manifest head", "truncated".into()))?
            .0;
        let columns = head.columns.get() as usize;
        let nblocks = head.blocks.get() as usize;
        let schema_len = head.schema_len.get() as usize;
        let schema_bytes = body
            .get(head_len..head_len.saturating_add(schema_len))
            .ok_or_else(|| bad("schema", "runs past the manifest".into()))?;
        let schema = decode_schema(schema_bytes, columns).map_err(|d| bad("schema", d))?;
        let mut pos = head_len + schema_len;
        let blocks_len = nblocks * std::mem::size_of::<BlockEntry>();
        let block_bytes = body
            .get(pos..pos + blocks_len)
            .ok_or_else(|| bad("block list", "runs past the manifest".into()))?;
        let blocks = <[BlockEntry]>::ref_from_bytes(block_bytes)
            .map_err(|_| bad("block list", "misshapen".into()))?
            .to_vec();
        pos += blocks_len;
        let chunks_len = nblocks * columns * std::mem::size_of::<ChunkMeta>();
        if body.len() != pos + chunks_len {
            return Err(bad(
                "column chunks",
                format!(
                    "expected {chunks_len} bytes for {nblocks} blocks x {columns} columns, found {}",
                    body.len().saturating_sub(pos)
                ),
            ));
        }
        let chunks = <[ChunkMeta]>::ref_from_bytes(&body[pos..])
            .map_err(|_| bad("column chunks", "misshapen".into()))?
            .to_vec();
        let manifest = Manifest {
            schema,
            block_rows: head.block_rows.get(),
            rows: head.rows.get(),
            generation: head.generation.get(),
            blocks,
            chunks,
        };
        manifest.validate(version).map_err(|(s, d)| bad(&s, d))?;
        Ok(manifest)
    }

    /// Structural checks that make every later access in bounds; `version`
    /// is the manifest's format version.
    fn validate(&self, version: u32) -> std::result::Result<(), (String, String)> {
        let mut total = 0u64;
        let mut prev_id = None;
        for (b, block) in self.blocks.iter().enumerate() {
            let rows = block.rows.get() as usize;
            let at = || format!("block {b}");
            if rows == 0 || rows > MAX_BLOCK_ROWS {
                return Err((at(), format!("{rows} rows")));
            }
            if prev_id.is_some_and(|p| p >= block.file_id.get()) {
                return Err((at(), "block file numbers are not increasing".into()));
            }
            prev_id = Some(block.file_id.get());
            total += rows as u64;
            let file_len = block.file_len.get();
            if file_len < (BLOCK_HEADER_LEN + BLOCK_FOOTER_LEN) as u64 {
                return Err((at(), format!("file length {file_len}")));
            }
            let data_end = file_len - BLOCK_FOOTER_LEN as u64;
            for (c, field) in self.schema.fields.iter().enumerate() {
                let chunk = self.chunk(b, c);
                let at = || format!("block {b}, column {}", field.name);
                check_chunk(chunk, field, rows as u64, data_end, version).map_err(|d| (at(), d))?;
            }
        }
        if total != self.rows {
            return Err((
                "manifest".into(),
                format!("blocks hold {total} rows, the head says {}", self.rows),
            ));
        }
        Ok(())
    }
}

fn check_chunk(
    chunk: &ChunkMeta,
    field: &Field,
    rows: u64,
    data_end: u64,
    version: u32,
) -> std::result::Result<(), String> {
    let distinct = u64::from(chunk.distinct.get());
    let nulls = u64::from(chunk.null_count.get());
    if distinct + nulls > rows || (distinct == 0 && nulls != rows) {
        return Err(format!(
            "{distinct} distinct values and {nulls} NULLs in {rows} rows"
        ));
    }
    if nulls > 0 && !field.nullable {
        return Err("NULLs in a NOT NULL column".into());
    }
    let is_string = field.data_type.is_string();
    // Version 2 added the 3-byte width.
    let small = |w: u8| matches!(w, 1 | 2 | 4) || (w == 3 && version >= 2);
    let value_ok = match (distinct, is_string) {
        (0, _) => chunk.value_width == 0,
        (_, true) => chunk.value_width == 16,
        (_, false) => small(chunk.value_width) || chunk.value_width == 8,
    };
    let count_ok = if distinct == 0 {
        chunk.count_width == 0
    } else {
        small(chunk.count_width)
    };
    let string_ok = if is_string && distinct > 0 {
        small(chunk.len_width) && small(chunk.map_width)
    } else {
        chunk.len_width == 0 && chunk.map_width == 0
    };
    if !(value_ok && count_ok && string_ok) {
        return Err("invalid value, count, length or map width".into());
    }
    // Version 3 writers leave the string-to-hash map out: readers derive it.
    if is_string
        && distinct > 0
        && version < 3
        && chunk.sections[Section::StrToHash as usize].stored_len.get() == 0
    {
        return Err("no string-to-hash map".into());
    }
    let dict_len = u64::from(chunk.str_dict_len.get());
    if field.data_type == DataType::Timestamp {
        check_time_unit(chunk, distinct, version)?;
    }
    let codec_ok = match (version, chunk.str_codec) {
        // A TIMESTAMP chunk's byte holds its time unit, checked above.
        _ if field.data_type == DataType::Timestamp => dict_len == 0,
        (_, STR_CODEC_LZ4) => dict_len == 0,
        (2.., STR_CODEC_ZSTD) => {
            dict_len == 0
                || (is_string
                    && distinct > 0
                    && dict_len
                        <= u64::from(chunk.sections[Section::StrData as usize].stored_len.get()))
        }
        _ => false,
    };
    if !codec_ok {
        return Err(format!(
            "string codec {}, dictionary of {dict_len} bytes",
            chunk.str_codec
        ));
    }
    // Each bit of `zstd_sections` marks a compressed section (version 2).
    let mut zstd_bits = 0u8;
    for s in Section::ALL {
        let m = &chunk.sections[s as usize];
        if let Some(bit) = s.zstd_bit() {
            if m.stored_len.get() != m.raw_len.get() {
                zstd_bits |= bit;
            }
        }
    }
    // Row codes (version 3) are a compressed row lists section of their own
    // form, not a zstd frame of the lists; from version 4 the row lists' zstd
    // bit marks codes stored as differences; from version 6 a section stored
    // raw holds bit-packed codes of exactly their length.
    let rows_section = &chunk.sections[Section::Rows as usize];
    let (stored, raw) = (rows_section.stored_len.get(), rows_section.raw_len.get());
    if chunk.zstd_sections & ROW_CODES != 0 {
        let ok = if stored == raw {
            let bits = bitpack::bits(distinct as usize, nulls > 0);
            version >= 6
                && distinct > 0
                && chunk.zstd_sections & ROW_CODE_DELTAS == 0
                && u64::from(stored) == bitpack::packed_len(rows as usize, bits) as u64
        } else {
            version >= 3
                && stored != 0
                && stored < raw
                && (version >= 4 || chunk.zstd_sections & ROW_CODE_DELTAS == 0)
        };
        if !ok {
            return Err("row codes where they cannot be".into());
        }
    }
    let zstd_bits = zstd_bits | ROW_CODES;
    if chunk.zstd_sections & !zstd_bits != 0 || (version < 2 && chunk.zstd_sections != 0) {
        return Err(format!(
            "zstd section bits {:#04x} where the compressed sections are {zstd_bits:#04x}",
            chunk.zstd_sections
        ));
    }
    if !is_string && chunk.min.get() > chunk.max.get() {
        return Err("min is greater than max".into());
    }
    for s in Section::ALL {
        let m = &chunk.sections[s as usize];
        let (off, stored, raw) = (
            m.offset.get(),
            u64::from(m.stored_len.get()),
            m.raw_len.get(),
        );
        if stored == 0 {
            if off != 0 || raw != 0 {
                return Err(format!(
                    "empty {} section with an offset or length",
                    s.name()
                ));
            }
            continue;
        }
        if off < BLOCK_HEADER_LEN as u64
            || off % SECTION_ALIGN as u64 != 0
            || off.checked_add(stored).is_none_or(|e| e > data_end)
        {
            return Err(format!(
                "{} section at {off}+{stored} is out of bounds",
                s.name()
            ));
        }
        if u64::from(raw) != stored && !s.may_compress_in(version) {
            return Err(format!("{} section may not be compressed", s.name()));
        }
    }
    Ok(())
}

/// A TIMESTAMP chunk's time unit (version 5; 0, seconds, before) and its
/// keys' range: every value must be a TIMESTAMP of whole microseconds in an
/// `i64`.
fn check_time_unit(
    chunk: &ChunkMeta,
    distinct: u64,
    version: u32,
) -> std::result::Result<(), String> {
    let unit = chunk.str_codec;
    let scale = match time_unit_micros(unit) {
        Some(s) if version >= 5 || unit == TIME_UNIT_SECONDS => s,
        _ => return Err(format!("time unit {unit} in a version {version} manifest")),
    };
    if distinct > 0 {
        for key in [chunk.min.get(), chunk.max.get()] {
            let v = signed_from_key(key);
            if v.checked_mul(scale).is_none() {
                return Err(format!(
                    "TIMESTAMP value {v} x {scale} microseconds is out of range"
                ));
            }
        }
    }
    Ok(())
}

fn decode_schema(bytes: &[u8], columns: usize) -> std::result::Result<Schema, String> {
    let mut fields = Vec::with_capacity(columns);
    let mut pos = 0;
    for i in 0..columns {
        let head = bytes
            .get(pos..pos + 6)
            .ok_or_else(|| format!("column {i} truncated"))?;
        let data_type =
            DataType::from_code(head[0], head[1], head[2]).map_err(|e| e.to_string())?;
        let nullable = match head[3] {
            0 => false,
            1 => true,
            n => return Err(format!("column {i}: nullable flag {n}")),
        };
        let name_len = usize::from(u16::from_le_bytes([head[4], head[5]]));
        pos += 6;
        let name = bytes
            .get(pos..pos + name_len)
            .ok_or_else(|| format!("column {i} name truncated"))?;
        let name = String::from_utf8(name.to_vec())
            .map_err(|_| format!("column {i} name is not UTF-8"))?;
        pos += name_len;
        fields.push(Field::new(name, data_type, nullable));
    }
    if bytes[pos..].iter().any(|&b| b != 0) {
        return Err("non-zero padding after the columns".into());
    }
    Schema::new(fields).map_err(|e| e.to_string())
}

fn le_u32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[..4]);
    u32::from_le_bytes(a)
}

fn le_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}
