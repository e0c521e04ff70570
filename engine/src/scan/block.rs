//! Per-block access to column chunks, with the derived arrays (row codes,
//! decoded distinct values, filtered counts) computed at most once.

use std::cell::OnceCell;

use strata_format::{ColumnChunk, Table};

use crate::error::Result;
use crate::expr::{eval, Columns, TExpr};
use crate::strs::Strs;
use crate::value::{vector_of_keys, Data, LType, Vector};

/// A row selection inside one block.
#[derive(Debug, Clone, PartialEq)]
pub enum Sel {
    /// Every row.
    All,
    /// No row.
    Empty,
    /// The rows whose bits are set.
    Bits(Bitmap),
}

/// A fixed-size bitmap over a block's rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Bitmap {
    words: Vec<u64>,
    len: usize,
}

impl Bitmap {
    /// All bits clear.
    pub fn zeros(len: usize) -> Bitmap {
        Bitmap {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// All bits set.
    pub fn ones(len: usize) -> Bitmap {
        let mut b = Bitmap::zeros(len);
        b.set_range(0, len as u32);
        b
    }

    /// Number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether bit `i` is set.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.words[i >> 6] >> (i & 63) & 1 == 1
    }

    /// Sets bit `i`.
    #[inline]
    pub fn set(&mut self, i: usize) {
        self.words[i >> 6] |= 1 << (i & 63);
    }

    fn apply_range(&mut self, start: u32, len: u32, set: bool) {
        let (mut s, e) = (start as usize, start as usize + len as usize);
        while s < e {
            let w = s >> 6;
            let lo = s & 63;
            let hi = if (w + 1) << 6 <= e { 64 } else { e & 63 };
            let mask = if hi - lo == 64 {
                u64::MAX
            } else {
                ((1u64 << (hi - lo)) - 1) << lo
            };
            if set {
                self.words[w] |= mask;
            } else {
                self.words[w] &= !mask;
            }
            s = (w + 1) << 6;
        }
    }

    /// Sets bits `start .. start + len`.
    pub fn set_range(&mut self, start: u32, len: u32) {
        self.apply_range(start, len, true);
    }

    /// Clears bits `start .. start + len`.
    pub fn clear_range(&mut self, start: u32, len: u32) {
        self.apply_range(start, len, false);
    }

    /// Number of set bits in `start .. start + len`.
    pub fn count_range(&self, start: u32, len: u32) -> u32 {
        let (mut s, e) = (start as usize, start as usize + len as usize);
        let mut n = 0;
        while s < e {
            let w = s >> 6;
            let lo = s & 63;
            let hi = if (w + 1) << 6 <= e { 64 } else { e & 63 };
            let word = self.words[w] >> lo;
            let word = if hi - lo == 64 {
                word
            } else {
                word & ((1u64 << (hi - lo)) - 1)
            };
            n += word.count_ones();
            s = (w + 1) << 6;
        }
        n
    }

    /// Number of set bits.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Intersects with `other`.
    pub fn and(&mut self, other: &Bitmap) {
        self.words
            .iter_mut()
            .zip(&other.words)
            .for_each(|(a, b)| *a &= b);
    }

    /// Unites with `other`.
    pub fn or(&mut self, other: &Bitmap) {
        self.words
            .iter_mut()
            .zip(&other.words)
            .for_each(|(a, b)| *a |= b);
    }

    /// The set bits, ascending.
    pub fn rows(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.count());
        for (w, &word) in self.words.iter().enumerate() {
            let mut x = word;
            while x != 0 {
                let t = x.trailing_zeros();
                out.push((w as u32) << 6 | t);
                x &= x - 1;
            }
        }
        out
    }
}

impl Sel {
    /// Normalises a bitmap: all set becomes `All`, none set `Empty`.
    pub fn from_bits(b: Bitmap) -> Sel {
        let c = b.count();
        if c == 0 {
            Sel::Empty
        } else if c == b.len() {
            Sel::All
        } else {
            Sel::Bits(b)
        }
    }

    /// The selected rows of a block of `rows` rows.
    pub fn rows(&self, rows: u32) -> Vec<u32> {
        match self {
            Sel::All => (0..rows).collect(),
            Sel::Empty => Vec::new(),
            Sel::Bits(b) => b.rows(),
        }
    }

    /// Number of selected rows.
    pub fn count(&self, rows: u32) -> usize {
        match self {
            Sel::All => rows as usize,
            Sel::Empty => 0,
            Sel::Bits(b) => b.count(),
        }
    }

    /// Number of selected rows in `start .. start + len`.
    #[inline]
    pub fn count_range(&self, start: u32, len: u32) -> u32 {
        match self {
            Sel::All => len,
            Sel::Empty => 0,
            Sel::Bits(b) => b.count_range(start, len),
        }
    }
}

/// Lazily loaded columns of one block.
pub struct BlockCtx<'t> {
    /// The table.
    pub table: &'t Table,
    /// The block number.
    pub block: usize,
    /// Rows in the block.
    pub rows: u32,
    chunks: Vec<OnceCell<ColumnChunk>>,
    values: Vec<OnceCell<Vector>>,
    keys: Vec<OnceCell<Vec<u64>>>,
}

macro_rules! cached {
    ($cell:expr, $init:expr) => {{
        let cell = $cell;
        if cell.get().is_none() {
            let v = $init;
            let _ = cell.set(v);
        }
        match cell.get() {
            Some(v) => Ok(v),
            None => crate::error::internal("cache cell empty after set"),
        }
    }};
}

impl<'t> BlockCtx<'t> {
    /// A context for block `block`.
    pub fn new(table: &'t Table, block: usize) -> BlockCtx<'t> {
        let n = table.schema().len();
        BlockCtx {
            table,
            block,
            rows: table.block_rows(block),
            chunks: (0..n).map(|_| OnceCell::new()).collect(),
            values: (0..n).map(|_| OnceCell::new()).collect(),
            keys: (0..n).map(|_| OnceCell::new()).collect(),
        }
    }

    /// The engine type of column `col`.
    pub fn ty(&self, col: usize) -> LType {
        LType::from_storage(self.table.schema().fields[col].data_type)
    }

    /// The chunk of column `col`.
    pub fn chunk(&self, col: usize) -> Result<&ColumnChunk> {
        cached!(&self.chunks[col], self.table.chunk(self.block, col)?)
    }

    /// Row-ordered value indexes of column `col` (`u32::MAX` for NULL).
    pub fn codes(&self, col: usize) -> Result<&[u32]> {
        Ok(self.chunk(col)?.row_codes()?)
    }

    /// For a column that stores row codes (see
    /// [`ColumnChunk::stores_row_codes`]; `None` otherwise): the rows whose
    /// value index `v` has `truth(v)`, and the NULL rows if `nulls`. Reading
    /// the codes is cheaper there than expanding the row lists.
    pub fn rows_by_codes(
        &self,
        col: usize,
        truth: impl Fn(usize) -> bool,
        nulls: bool,
    ) -> Result<Option<Bitmap>> {
        let chunk = self.chunk(col)?;
        if !chunk.stores_row_codes() {
            return Ok(None);
        }
        // One bit per value index, then the NULL code's (any code past the
        // values): a bit table stays in cache where a byte per value of a
        // column with a value per row would not. The rows' bits are
        // assembled a word at a time.
        let distinct = chunk.distinct();
        let mut table = Bitmap::zeros(distinct + 1);
        for v in (0..distinct).filter(|&v| truth(v)) {
            table.set(v);
        }
        if nulls {
            table.set(distinct);
        }
        let mut b = Bitmap::zeros(self.rows as usize);
        for (word, codes) in b.words.iter_mut().zip(self.codes(col)?.chunks(64)) {
            let mut w = 0u64;
            for (i, &c) in codes.iter().enumerate() {
                w |= u64::from(table.get((c as usize).min(distinct))) << i;
            }
            *word = w;
        }
        Ok(Some(b))
    }

    /// The sorted distinct storage keys of fixed-width column `col`.
    pub fn keys(&self, col: usize) -> Result<&[u64]> {
        cached!(&self.keys[col], self.chunk(col)?.keys()?.to_vec()).map(|v| v.as_slice())
    }

    /// The sorted distinct values of column `col` as 128-bit keys: string
    /// hashes, or fixed-width storage keys widened.
    pub fn wide_keys(&self, col: usize) -> Result<Vec<u128>> {
        if self.table.schema().fields[col].data_type.is_string() {
            Ok(self.chunk(col)?.hashes()?.as_slice().to_vec())
        } else {
            Ok(self.keys(col)?.iter().map(|&k| u128::from(k)).collect())
        }
    }

    /// The distinct values of column `col`, in value (key or hash) order.
    pub fn values(&self, col: usize) -> Result<&Vector> {
        cached!(&self.values[col], {
            let ty = self.ty(col);
            if ty == LType::Varchar {
                let chunk = self.chunk(col)?;
                let dict = chunk.dictionary()?;
                let d = chunk.distinct();
                // The strings in string order, one buffer, then in value
                // (hash) order: value v is string str_of_value(v).
                let mut sorted = Strs::with_capacity(d);
                let (mut bytes, mut ends) = (Vec::new(), Vec::new());
                dict.keep_decompressed()?;
                for b in 0..dict.block_count() {
                    dict.decode_block(b, &mut bytes, &mut ends)?;
                    let mut start = 0;
                    for &end in &ends {
                        sorted.push(&bytes[start..end]);
                        start = end;
                    }
                }
                if sorted.len() != d {
                    return Err(crate::error::EngineError::Format(
                        strata_format::FormatError::corrupt(
                            chunk.path(),
                            "string data",
                            format!("{} strings for {d} values", sorted.len()),
                        ),
                    ));
                }
                let order = (0..d)
                    .map(|v| dict.str_of_value(v).map(|p| p as u32))
                    .collect::<std::result::Result<Vec<u32>, _>>()?;
                Vector {
                    ty,
                    data: Data::Str(sorted.gather(&order)),
                    nulls: None,
                }
            } else {
                vector_of_keys(ty, self.keys(col)?)
            }
        })
    }

    /// The distinct values of column `col` if they were already decoded.
    pub fn cached_values(&self, col: usize) -> Option<&Vector> {
        self.values[col].get()
    }

    /// The strings of the given value indexes of string column `col`,
    /// decoding only the string blocks needed.
    pub fn strings_of(&self, col: usize, values: &[u32]) -> Result<Vec<Option<Vec<u8>>>> {
        if let Some(v) = self.values[col].get() {
            return Ok(values
                .iter()
                .map(|&i| match (&v.data, i) {
                    (_, u32::MAX) => None,
                    (Data::Str(s), i) => s.get(i as usize).map(<[u8]>::to_vec),
                    _ => None,
                })
                .collect());
        }
        let chunk = self.chunk(col)?;
        let dict = chunk.dictionary()?;
        let mut pos: Vec<(usize, usize)> = Vec::new(); // (string position, output index)
        for (o, &v) in values.iter().enumerate() {
            if v != u32::MAX {
                pos.push((dict.str_of_value(v as usize)?, o));
            }
        }
        pos.sort_unstable();
        let sorted: Vec<u64> = pos.iter().map(|&(p, _)| p as u64).collect();
        let mut out = vec![None; values.len()];
        for ((_, o), s) in pos.into_iter().zip(self.strings_at(col, &sorted)?) {
            out[o] = Some(s);
        }
        Ok(out)
    }

    /// The strings of value indexes `codes` (`u32::MAX`: NULL) of string
    /// column `col`, in that order, as a VARCHAR vector; each string block
    /// holding one of them is decoded once, and no other.
    fn strings_of_codes(&self, col: usize, codes: &[u32]) -> Result<Vector> {
        const PER_BLOCK: usize = strata_format::layout::STRINGS_PER_BLOCK;
        let chunk = self.chunk(col)?;
        let dict = chunk.dictionary()?;
        let mut positions = Vec::with_capacity(codes.len());
        let mut needed = vec![false; dict.block_count()];
        for &c in codes {
            if c == u32::MAX {
                positions.push(None);
            } else {
                let p = dict.str_of_value(c as usize)?;
                needed[p / PER_BLOCK] = true;
                positions.push(Some(p));
            }
        }
        // The needed blocks back to back, as one `Strs`: `first[b]` is the
        // index of block b's first string (a block decodes to exactly its
        // strings, so string p is `first[p / 128] + p % 128`).
        // Room for them at once, from the length table (a buffer grown
        // block by block doubles into fresh memory each time it fills). A
        // length the blocks contradict fails as they decode; the room is only
        // asked for, and a corrupt table claiming too much is not an error.
        let (mut strings, mut total) = (0usize, 0usize);
        for (b, _) in needed.iter().enumerate().filter(|(_, &n)| n) {
            let end = ((b + 1) * PER_BLOCK).min(dict.len());
            strings += end - b * PER_BLOCK;
            total = (b * PER_BLOCK..end).fold(total, |t, p| t.saturating_add(dict.len_of(p)));
        }
        let (mut bytes, mut ends) = (Vec::new(), Vec::new());
        let _ = bytes.try_reserve_exact(total);
        let _ = ends.try_reserve_exact(strings);
        let (mut block_bytes, mut block_ends) = (Vec::new(), Vec::new());
        let mut first = vec![0u32; needed.len()];
        for (b, _) in needed.iter().enumerate().filter(|(_, &n)| n) {
            dict.decode_block(b, &mut block_bytes, &mut block_ends)?;
            first[b] = ends.len() as u32;
            let base = bytes.len();
            bytes.extend_from_slice(&block_bytes);
            ends.extend(block_ends.iter().map(|&e| base + e));
        }
        let decoded = Strs::from_parts(bytes, ends);
        // NULL rows take an index past the strings: an empty string.
        let idx: Vec<u32> = positions
            .iter()
            .map(|p| p.map_or(u32::MAX, |p| first[p / PER_BLOCK] + (p % PER_BLOCK) as u32))
            .collect();
        let nulls = positions
            .iter()
            .any(Option::is_none)
            .then(|| positions.iter().map(Option::is_none).collect());
        Ok(Vector {
            ty: LType::Varchar,
            data: Data::Str(decoded.gather(&idx)),
            nulls,
        })
    }

    /// The strings at the given ascending string (byte order) positions of
    /// string column `col`, decoding only the string blocks needed.
    pub fn strings_at(&self, col: usize, positions: &[u64]) -> Result<Vec<Vec<u8>>> {
        let chunk = self.chunk(col)?;
        let dict = chunk.dictionary()?;
        let (mut bytes, mut ends) = (Vec::new(), Vec::new());
        let mut loaded = usize::MAX;
        let mut out = Vec::with_capacity(positions.len());
        for &p in positions {
            let p = p as usize;
            let b = p / 128;
            if b != loaded {
                dict.decode_block(b, &mut bytes, &mut ends)?;
                loaded = b;
            }
            let i = p % 128;
            let start = if i == 0 { 0 } else { ends[i - 1] };
            out.push(bytes[start..ends[i]].to_vec());
        }
        Ok(out)
    }

    /// Per distinct value, the number of selected rows holding it; and the
    /// number of selected NULL rows.
    pub fn filtered_counts(&self, col: usize, sel: &Sel) -> Result<(Vec<u32>, u32)> {
        let chunk = self.chunk(col)?;
        match sel {
            Sel::All => {
                let c = chunk.counts()?;
                let v = c.view();
                Ok((
                    (0..v.len()).map(|i| v.get(i) as u32).collect(),
                    chunk.null_count(),
                ))
            }
            Sel::Empty => Ok((vec![0; chunk.distinct()], 0)),
            Sel::Bits(b) => {
                let mut out = vec![0u32; chunk.distinct()];
                // A sparse selection counts through the row codes when they
                // are decoded, or worth decoding (asked for before).
                let selected = b.count();
                if (selected < self.rows as usize / 4 && chunk.row_codes_wanted())
                    || chunk.stores_row_codes()
                {
                    let codes = self.codes(col)?;
                    let mut nulls = 0;
                    for r in b.rows() {
                        match out.get_mut(codes[r as usize] as usize) {
                            Some(n) => *n += 1,
                            None => nulls += 1,
                        }
                    }
                    return Ok((out, nulls));
                }
                chunk
                    .row_lists()?
                    .for_each(|v, s, l| out[v] += b.count_range(s, l))?;
                let mut nulls = 0;
                if chunk.null_count() > 0 {
                    for (s, l) in chunk.null_runs()? {
                        nulls += b.count_range(s, l);
                    }
                }
                Ok((out, nulls))
            }
        }
    }

    /// The value indexes of column `col` at `rows` (`u32::MAX` for NULL).
    /// For few rows of a column whose row codes are not decoded yet (and
    /// were not asked for by an earlier query: see
    /// [`ColumnChunk::row_codes_wanted`]), walks the row lists and keeps just
    /// those rows instead of decoding every row's code.
    pub fn codes_at(&self, col: usize, rows: &[u32]) -> Result<Vec<u32>> {
        self.codes_at_rows(col, rows, true)
    }

    /// [`BlockCtx::codes_at`]; `may_cache: false` never decodes (and so
    /// never caches) every row's code for few rows, for reads not expected
    /// to repeat, like the output columns of `SELECT * ... LIMIT`; except
    /// where the chunk stores row codes, which decode faster than the row
    /// lists they would be expanded into.
    fn codes_at_rows(&self, col: usize, rows: &[u32], may_cache: bool) -> Result<Vec<u32>> {
        let chunk = self.chunk(col)?;
        let many = rows.len() >= (self.rows as usize) / 16;
        // Bit-packed codes are read in place, row by row.
        if !many && !chunk.row_codes_ready() {
            if let Some(packed) = chunk.packed_codes()? {
                return codes_from_packed(&packed, chunk, rows);
            }
        }
        if many
            || chunk.row_codes_ready()
            || chunk.stores_row_codes()
            || (may_cache && chunk.row_codes_wanted())
        {
            let codes = self.codes(col)?;
            return Ok(rows.iter().map(|&r| codes[r as usize]).collect());
        }
        let mut want: Vec<(u32, u32)> = rows
            .iter()
            .enumerate()
            .map(|(i, &r)| (r, i as u32))
            .collect();
        want.sort_unstable();
        let mut out = vec![u32::MAX; rows.len()];
        if want.is_empty() {
            return Ok(out);
        }
        // Most runs hold no wanted row: a bitmap rejects them in O(1).
        let mut wanted = Bitmap::zeros(self.rows as usize);
        for &(r, _) in &want {
            if (r as usize) < wanted.len() {
                wanted.set(r as usize);
            }
        }
        // The walk stops once every wanted non-NULL row is found.
        let mut missing = wanted.count() as u32;
        if chunk.null_count() > 0 {
            for (s, l) in chunk.null_runs()? {
                missing = missing.saturating_sub(wanted.count_range(s, l));
            }
        }
        if missing == 0 {
            return Ok(out);
        }
        chunk.row_lists()?.for_each_while(|v, s, l| {
            let hits = if l == 1 {
                u32::from((s as usize) < wanted.len() && wanted.get(s as usize))
            } else {
                wanted.count_range(s, l)
            };
            if hits == 0 {
                return true;
            }
            missing = missing.saturating_sub(hits);
            let mut i = want.partition_point(|x| x.0 < s);
            while let Some(&(r, o)) = want.get(i) {
                if r >= s + l {
                    break;
                }
                out[o as usize] = v as u32;
                i += 1;
            }
            missing > 0
        })?;
        Ok(out)
    }

    /// Evaluates `exprs` at `rows`, reading each column they use once; the
    /// parts reading one column are evaluated at its distinct values where
    /// that is less work (see [`crate::scan::lift`]).
    pub fn eval_at(&self, rows: &[u32], exprs: &[&TExpr]) -> Result<Vec<Vector>> {
        self.eval_at_charged(rows, exprs, &|_| Ok(()))
    }

    /// [`BlockCtx::eval_at`], calling `charge` with the bytes of each column
    /// as it is loaded: a query over its memory limit stops after one
    /// column too many, not after all of them.
    pub fn eval_at_charged(
        &self,
        rows: &[u32],
        exprs: &[&TExpr],
        charge: &dyn Fn(u64) -> Result<()>,
    ) -> Result<Vec<Vector>> {
        let lifted = crate::scan::lift::lift(self, rows, exprs)?;
        let exprs: Vec<&TExpr> = lifted.exprs.iter().collect();
        let base = self.column_count();
        let mut loaded = columns_of(&exprs)
            .into_iter()
            .filter(|&c| c < base)
            .map(|c| {
                let v = self.column_at(c, rows)?;
                charge(crate::budget::vector_bytes(&v))?;
                Ok((c, v))
            })
            .collect::<Result<Vec<_>>>()?;
        loaded.extend(lifted.columns);
        eval_over(&exprs, rows.len(), loaded)
    }

    /// The number of columns of the table.
    pub fn column_count(&self) -> usize {
        self.chunks.len()
    }

    /// Evaluates `expr` at `rows`.
    pub fn eval_one_at(&self, rows: &[u32], expr: &TExpr) -> Result<Vector> {
        self.eval_at(rows, &[expr])?
            .pop()
            .ok_or_else(|| crate::error::EngineError::Internal("no value evaluated".into()))
    }

    /// The values of column `col` at `rows`.
    pub fn column_at(&self, col: usize, rows: &[u32]) -> Result<Vector> {
        self.column_at_rows(col, rows, true)
    }

    /// [`BlockCtx::column_at`] for output rows read once (`SELECT * ...
    /// LIMIT`): leaves the decoded-data cache alone (see
    /// [`BlockCtx::codes_at`]).
    pub fn output_column_at(&self, col: usize, rows: &[u32]) -> Result<Vector> {
        self.column_at_rows(col, rows, false)
    }

    fn column_at_rows(&self, col: usize, rows: &[u32], may_cache: bool) -> Result<Vector> {
        let idx = self.codes_at_rows(col, rows, may_cache)?;
        let ty = self.ty(col);
        // No more rows than distinct strings: decode only the string blocks
        // the rows' values are in, and copy only their strings (all the
        // values in hash order would be decoded and copied twice).
        if ty == LType::Varchar
            && self.values[col].get().is_none()
            && rows.len() <= self.chunk(col)?.distinct()
        {
            return self.strings_of_codes(col, &idx);
        }
        // Few rows of a fixed-width column whose values are not converted
        // yet: convert just those rows' keys, not every distinct value.
        if ty != LType::Varchar && self.values[col].get().is_none() {
            let chunk = self.chunk(col)?;
            if rows.len() < chunk.distinct() / 4 {
                let keys = chunk.keys()?;
                // Each row's key, and its position (NULL rows: none).
                let (picked, present): (Vec<u64>, Vec<u32>) = idx
                    .iter()
                    .enumerate()
                    .map(|(j, &i)| match (i as usize) < keys.len() {
                        true => (keys.get(i as usize), j as u32),
                        false => (0, u32::MAX),
                    })
                    .unzip();
                return Ok(vector_of_keys(ty, &picked).gather(&present));
            }
        }
        Ok(self.values(col)?.gather(&idx))
    }
}

/// The codes of `rows` (each below the chunk's rows) read from bit-packed
/// row codes: `u32::MAX` for NULL, a code past the values an error.
fn codes_from_packed(
    packed: &strata_format::bitpack::Packed<'_>,
    chunk: &ColumnChunk,
    rows: &[u32],
) -> Result<Vec<u32>> {
    let d = chunk.distinct() as u32;
    let null = (chunk.null_count() > 0).then_some(d);
    rows.iter()
        .map(|&r| match packed.get(r as usize) {
            c if c < d => Ok(c),
            c if Some(c) == null => Ok(u32::MAX),
            c => Err(crate::error::EngineError::Format(
                strata_format::FormatError::corrupt(
                    chunk.path(),
                    "row codes",
                    format!("row {r} has code {c} of {d} values"),
                ),
            )),
        })
        .collect()
}

/// The columns `exprs` read, each once.
pub(crate) fn columns_of(exprs: &[&TExpr]) -> Vec<usize> {
    let mut cols: Vec<usize> = exprs.iter().flat_map(|e| e.columns()).collect();
    cols.sort_unstable();
    cols.dedup();
    cols
}

/// Evaluates `exprs` over `n` rows of the `loaded` columns.
pub(crate) fn eval_over(
    exprs: &[&TExpr],
    n: usize,
    mut loaded: Vec<(usize, Vector)>,
) -> Result<Vec<Vector>> {
    // The last expression reading each loaded column: a bare column read
    // by no later expression moves into the output instead of being copied
    // (a selected string column can be most of the query's memory).
    let mut last_use = vec![usize::MAX; loaded.len()];
    for (i, e) in exprs.iter().enumerate() {
        for c in e.columns() {
            if let Some(p) = loaded.iter().position(|(x, _)| *x == c) {
                last_use[p] = i;
            }
        }
    }
    let mut out = Vec::with_capacity(exprs.len());
    for (i, e) in exprs.iter().enumerate() {
        let moved = e.as_col().and_then(|c| {
            let pos = loaded.iter().position(|(x, _)| *x == c)?;
            (last_use[pos] == i).then(|| {
                last_use.swap_remove(pos);
                loaded.swap_remove(pos).1
            })
        });
        match moved {
            Some(v) => out.push(v),
            None => {
                let inputs = Columns(loaded.iter().map(|(c, v)| (*c, v)).collect());
                out.push(eval(e, n, &inputs)?.into_owned());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitmap_ranges() {
        let mut b = Bitmap::zeros(200);
        b.set_range(3, 70);
        assert_eq!(b.count(), 70);
        assert_eq!(b.count_range(0, 200), 70);
        assert_eq!(b.count_range(60, 20), 13);
        b.clear_range(64, 1);
        assert!(!b.get(64));
        assert!(b.get(63));
        assert_eq!(b.rows().len(), 69);
        b.set_range(128, 64);
        assert_eq!(b.count_range(128, 64), 64);
        let o = Bitmap::ones(130);
        assert_eq!(o.count(), 130);
        assert_eq!(Sel::from_bits(o), Sel::All);
    }
}
