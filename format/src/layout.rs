//! Byte layout constants and the fixed-size records of the manifest
//! (SPEC.md is the reference; names here match its field tables).
//!
//! All integers are little-endian. Records use zerocopy's unaligned
//! little-endian integer types so they can be read in place from any offset.

use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// The format version this build writes; it reads this one and every
/// earlier one from [`OLDEST_READABLE_VERSION`] on.
pub const FORMAT_VERSION: u32 = 6;
/// The oldest format version this build reads.
pub const OLDEST_READABLE_VERSION: u32 = 1;

/// Whether this build reads files of format version `v`.
pub fn readable_version(v: u32) -> bool {
    (OLDEST_READABLE_VERSION..=FORMAT_VERSION).contains(&v)
}

/// Magic at both ends of a block file.
pub const BLOCK_MAGIC: [u8; 8] = *b"STRATAB\0";
/// Magic at both ends of a manifest file.
pub const MANIFEST_MAGIC: [u8; 8] = *b"STRATAM\0";

/// Name of the manifest file inside a table directory.
pub const MANIFEST_FILE: &str = "MANIFEST";
/// Lock file held by an appending writer.
pub const APPEND_LOCK_FILE: &str = "APPEND.lock";

/// Size of a block file's header: magic (8), version (4), reserved (4).
pub const BLOCK_HEADER_LEN: usize = 16;
/// Size of a block file's footer: version (4), reserved (4), magic (8).
pub const BLOCK_FOOTER_LEN: usize = 16;
/// Sections inside a block file start at multiples of this.
pub const SECTION_ALIGN: usize = 16;

/// Size of the manifest header: magic (8), version (4), reserved (4).
pub const MANIFEST_HEADER_LEN: usize = 16;
/// Size of the manifest footer: body length (8), body checksum (8), version
/// (4), reserved (4), magic (8).
pub const MANIFEST_FOOTER_LEN: usize = 32;

/// Strings per string block.
pub const STRINGS_PER_BLOCK: usize = 128;
/// A row-index entry is kept for every this many distinct values.
pub const ROW_INDEX_STRIDE: usize = 64;
/// Largest supported rows per block (row numbers must fit 24 bits).
pub const MAX_BLOCK_ROWS: usize = 1 << 24;

/// The file name of block file number `id`.
pub fn block_file_name(id: u64) -> String {
    format!("b{id:08}.blk")
}

/// The sections of a column chunk, in the order of [`ChunkMeta::sections`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Section {
    /// Sorted distinct values: packed `key - min`, or 16-byte string hashes.
    Values = 0,
    /// Rows per distinct value, packed.
    Counts = 1,
    /// Byte offset into the decoded row lists of every 64th value (u32 each).
    RowIndex = 2,
    /// The row lists of all values, in value order.
    Rows = 3,
    /// The row list of the NULL rows.
    NullRows = 4,
    /// Per string block: offset (u64), stored length (u32), raw length (u32).
    StrDir = 5,
    /// The string blocks, prefix-coded and possibly LZ4-compressed.
    StrData = 6,
    /// Byte length of each string, in string order, packed.
    StrLens = 7,
    /// For each value (hash order), its position in string order, packed.
    HashToStr = 8,
    /// For each string position, its value index (hash order), packed.
    StrToHash = 9,
    /// Sorted trigram keys, each with the offset of its postings (u32, u32).
    TrigramKeys = 10,
    /// Postings: delta-coded string-block numbers per trigram.
    TrigramPostings = 11,
}

/// Number of section slots per column chunk.
pub const SECTION_COUNT: usize = 12;

impl Section {
    /// All sections, in slot order.
    pub const ALL: [Section; SECTION_COUNT] = [
        Section::Values,
        Section::Counts,
        Section::RowIndex,
        Section::Rows,
        Section::NullRows,
        Section::StrDir,
        Section::StrData,
        Section::StrLens,
        Section::HashToStr,
        Section::StrToHash,
        Section::TrigramKeys,
        Section::TrigramPostings,
    ];

    /// Lower-case name used in messages and `strata info`.
    pub fn name(self) -> &'static str {
        match self {
            Section::Values => "values",
            Section::Counts => "counts",
            Section::RowIndex => "row index",
            Section::Rows => "row lists",
            Section::NullRows => "null rows",
            Section::StrDir => "string directory",
            Section::StrData => "strings",
            Section::StrLens => "string lengths",
            Section::HashToStr => "hash-to-string map",
            Section::StrToHash => "string-to-hash map",
            Section::TrigramKeys => "trigram keys",
            Section::TrigramPostings => "trigram postings",
        }
    }

    /// The bit of [`ChunkMeta::zstd_sections`] that marks this section as
    /// zstd-compressed: its rank among the sections that may be compressed.
    pub fn zstd_bit(self) -> Option<u8> {
        Section::ALL
            .iter()
            .filter(|s| s.may_compress())
            .position(|&s| s == self)
            .map(|i| 1 << i)
    }

    /// Whether the writer may compress this section with LZ4 or zstd
    /// (zstd from version 2 on). Sections read by binary search or random
    /// access stay raw so they can be used in place, except the values,
    /// which version 3 may store in their own form (see
    /// [`Section::may_compress_in`]).
    pub fn may_compress(self) -> bool {
        matches!(
            self,
            Section::Counts
                | Section::Rows
                | Section::NullRows
                | Section::StrLens
                | Section::HashToStr
                | Section::StrToHash
                | Section::TrigramPostings
        )
    }

    /// Whether a file of format `version` may store this section compressed:
    /// the sections of [`Section::may_compress`], and from version 3 on the
    /// values, as differences in byte planes in a zstd frame.
    pub fn may_compress_in(self, version: u32) -> bool {
        self.may_compress() || (self == Section::Values && version >= 3)
    }
}

/// Bit 7 of [`ChunkMeta::zstd_sections`] (version 3): the row lists section
/// holds row codes, which readers expand into the row lists (SPEC.md 5.5).
pub const ROW_CODES: u8 = 0x80;

/// Bit 1 of [`ChunkMeta::zstd_sections`] together with [`ROW_CODES`]
/// (version 4): the row codes are stored as differences between
/// consecutive rows' codes (SPEC.md 5.5). Alone, bit 1 marks zstd row lists.
pub const ROW_CODE_DELTAS: u8 = 0x02;

/// [`ChunkMeta::str_codec`] of a TIMESTAMP chunk: its keys count whole
/// seconds. Writers before version 5 wrote 0 into that byte of every
/// non-string chunk, so their TIMESTAMP chunks read as seconds.
pub const TIME_UNIT_SECONDS: u8 = 0;
/// [`ChunkMeta::str_codec`] of a TIMESTAMP chunk (version 5): its keys count
/// milliseconds.
pub const TIME_UNIT_MILLIS: u8 = 1;
/// [`ChunkMeta::str_codec`] of a TIMESTAMP chunk (version 5): its keys count
/// microseconds, the unit of TIMESTAMP values.
pub const TIME_UNIT_MICROS: u8 = 2;

/// Microseconds per unit of a TIMESTAMP chunk's keys, by its time unit byte
/// (`None` for a byte that is no unit).
pub fn time_unit_micros(unit: u8) -> Option<i64> {
    match unit {
        TIME_UNIT_SECONDS => Some(1_000_000),
        TIME_UNIT_MILLIS => Some(1_000),
        TIME_UNIT_MICROS => Some(1),
        _ => None,
    }
}

/// Where one section of a column chunk lies in its block file (24 bytes).
#[derive(Debug, Clone, Copy, Default, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct SectionMeta {
    /// Absolute byte offset in the block file (a multiple of 16; 0 if empty).
    pub offset: U64,
    /// Bytes stored in the file.
    pub stored_len: U32,
    /// Bytes after decompression; equal to `stored_len` when stored raw,
    /// otherwise the section is one LZ4 block.
    pub raw_len: U32,
    /// XXH3-64 of the stored bytes.
    pub checksum: U64,
}

/// Everything the manifest records about one column in one block (328 bytes).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct ChunkMeta {
    /// Number of distinct non-NULL values.
    pub distinct: U32,
    /// Number of NULL rows.
    pub null_count: U32,
    /// Smallest key (fixed-width types; 0 for strings or when all NULL).
    pub min: U64,
    /// Largest key (fixed-width types; 0 for strings or when all NULL).
    pub max: U64,
    /// Bytes per packed value (1, 2, 3, 4, 8; 16 for string hashes; 0 if none).
    pub value_width: u8,
    /// Bytes per packed count (1, 2, 3 or 4; 0 if no values).
    pub count_width: u8,
    /// Bytes per packed string length (1, 2, 3 or 4; 0 for non-strings).
    pub len_width: u8,
    /// Bytes per entry of the two string maps (1, 2, 3 or 4; 0 for non-strings).
    pub map_width: u8,
    /// Number of string blocks (strings only).
    pub str_blocks: U32,
    /// Number of distinct trigrams (strings only).
    pub trigrams: U32,
    /// String chunks: how compressed string blocks are compressed: 0 = LZ4,
    /// 1 = zstd (version 2; always 0 in version 1, where these 4 bytes were
    /// reserved). TIMESTAMP chunks: the unit of the keys (version 5;
    /// [`TIME_UNIT_SECONDS`], [`TIME_UNIT_MILLIS`] or [`TIME_UNIT_MICROS`]).
    pub str_codec: u8,
    /// Which compressed sections are zstd frames rather than LZ4 blocks: bit
    /// `i` for the `i`th section that may be compressed, in slot order (see
    /// [`Section::zstd_bit`]). Version 2; zero (reserved) in version 1. Bit 7
    /// is [`ROW_CODES`] (version 3); with it, bit 1 is [`ROW_CODE_DELTAS`]
    /// (version 4).
    pub zstd_sections: u8,
    /// Bytes of zstd dictionary at the start of the string data (version 2,
    /// zstd only; 0 for none).
    pub str_dict_len: U16,
    /// The sections, indexed by [`Section`].
    pub sections: [SectionMeta; SECTION_COUNT],
}

/// One block of the table in the manifest (32 bytes).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct BlockEntry {
    /// Block file number: the file is `b{id:08}.blk`.
    pub file_id: U64,
    /// Rows in the block.
    pub rows: U32,
    /// Reserved, zero.
    pub reserved: U32,
    /// Exact length of the block file in bytes.
    pub file_len: U64,
    /// XXH3-64 of the block file's 16-byte header and 16-byte footer.
    pub ends_checksum: U64,
}

/// The fixed part at the start of the manifest body (32 bytes).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct ManifestHead {
    /// Number of columns.
    pub columns: U32,
    /// Number of blocks.
    pub blocks: U32,
    /// The block size the table was written with.
    pub block_rows: U32,
    /// Bytes of the schema part that follows (a multiple of 8).
    pub schema_len: U32,
    /// Total rows.
    pub rows: U64,
    /// Incremented by every append; 1 for a new table.
    pub generation: U64,
}

/// XXH3-64, the checksum used everywhere in the format.
#[inline]
pub fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// These constants are the format: changing one breaks every table
    /// already written. Bump FORMAT_VERSION and keep reading old versions.
    #[test]
    fn never_change_these_constants() {
        assert_eq!(FORMAT_VERSION, 6);
        assert_eq!(
            (TIME_UNIT_SECONDS, TIME_UNIT_MILLIS, TIME_UNIT_MICROS),
            (0, 1, 2)
        );
        assert_eq!(ROW_CODES, 0x80);
        assert_eq!(ROW_CODE_DELTAS, 0x02);
        assert_eq!(Section::Rows.zstd_bit(), Some(ROW_CODE_DELTAS));
        assert_eq!(OLDEST_READABLE_VERSION, 1);
        assert_eq!(&BLOCK_MAGIC, b"STRATAB\0");
        assert_eq!(&MANIFEST_MAGIC, b"STRATAM\0");
        assert_eq!(std::mem::size_of::<SectionMeta>(), 24);
        assert_eq!(std::mem::size_of::<ChunkMeta>(), 328);
        assert_eq!(std::mem::size_of::<BlockEntry>(), 32);
        assert_eq!(std::mem::size_of::<ManifestHead>(), 32);
        assert_eq!(STRINGS_PER_BLOCK, 128);
        assert_eq!(ROW_INDEX_STRIDE, 64);
        assert_eq!(checksum(b"strata"), xxhash_rust::xxh3::xxh3_64(b"strata"));
        assert_eq!(checksum(b""), 0x2d06800538d394c2);
        for (i, s) in Section::ALL.iter().enumerate() {
            assert_eq!(*s as usize, i);
        }
    }
}
