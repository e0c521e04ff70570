//! Storage figures for the format: writes 10M-row (or `--rows N`) synthetic
//! columns of typical kinds, then reports bytes per row of each section, write
//! throughput, the time to open the table and to checksum and decode a column.
//! With `--tsv FILE` it also writes the same data as TSV so other engines can
//! store it for comparison (see `bench/scripts/format_sizes.py`).
//!
//! `cargo run --release -p strata-format --example sizes -- --rows 10000000 --dir /tmp/sizes`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::time::Instant;

use strata_format::layout::{Section, SECTION_COUNT};
use strata_format::types::signed_key;
use strata_format::{
    encode_block, ColumnData, DataType, Field, Schema, Table, TableWriter, WriteOptions,
    DEFAULT_BLOCK_ROWS,
};

/// A small deterministic generator (splitmix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .map(|i| args[i + 1].clone())
    };
    let rows: usize = arg("--rows").map_or(10_000_000, |r| r.parse().unwrap());
    let dir = std::path::PathBuf::from(arg("--dir").unwrap_or_else(|| "/tmp/strata-sizes".into()));
    let tsv = arg("--tsv");
    let _ = std::fs::remove_dir_all(&dir);
    let schema = Schema::new(vec![
        Field::new("low_card_int", DataType::Int32, false),
        Field::new("high_card_int", DataType::Int64, false),
        Field::new("timestamp", DataType::Timestamp, false),
        Field::new("short_string", DataType::String, false),
        Field::new("long_string", DataType::String, false),
    ])
    .unwrap();
    let mut tsv_out = tsv.map(|p| std::io::BufWriter::new(std::fs::File::create(p).unwrap()));
    let mut rng = Rng(42);
    let words = [
        "яндекс",
        "погода",
        "новости",
        "купить",
        "москва",
        "карта",
        "видео",
        "игры",
    ];
    let t0 = Instant::now();
    let mut writer = TableWriter::create(&dir, schema.clone(), WriteOptions::default()).unwrap();
    let mut raw_bytes = 0u64;
    let mut start = 0;
    let mut ts = 1_372_636_800i64;
    while start < rows {
        let n = DEFAULT_BLOCK_ROWS.min(rows - start);
        let mut cols: Vec<ColumnData> = vec![
            ColumnData::new_fixed(),
            ColumnData::new_fixed(),
            ColumnData::new_fixed(),
            ColumnData::new_strings(),
            ColumnData::new_strings(),
        ];
        for _ in 0..n {
            let r = rng.next();
            let low = (r % 230) as i64;
            let high = (rng.next() >> 1) as i64;
            ts += (r >> 40) as i64 % 3;
            let short = format!("{} {}", words[(r >> 8) as usize % 8], (r >> 16) % 5000);
            let long = format!(
                "https://example.ru/{}/{}/page?id={}&ref={}",
                words[(r >> 20) as usize % 8],
                (r >> 24) % 1000,
                (r >> 32) % 200_000,
                words[(r >> 50) as usize % 8]
            );
            cols[0].push_key(signed_key(low)).unwrap();
            cols[1].push_key(signed_key(high)).unwrap();
            cols[2].push_key(signed_key(ts)).unwrap();
            cols[3].push_str(short.as_bytes()).unwrap();
            cols[4].push_str(long.as_bytes()).unwrap();
            raw_bytes += 4 + 8 + 8 + short.len() as u64 + long.len() as u64;
            if let Some(out) = tsv_out.as_mut() {
                writeln!(out, "{low}\t{high}\t{ts}\t{short}\t{long}").unwrap();
            }
        }
        let block = encode_block(&schema, cols).unwrap();
        writer.write_encoded(block).unwrap();
        start += n;
    }
    let summary = writer.finish().unwrap();
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "wrote {rows} rows, {} bytes in {secs:.2}s: {:.2} M rows/s, {:.0} MB/s of raw values (one thread, including generation)",
        summary.bytes_written,
        rows as f64 / secs / 1e6,
        raw_bytes as f64 / secs / 1e6
    );

    let t = Instant::now();
    let table = Table::open(&dir).unwrap();
    println!(
        "open (read + validate manifest): {:.3} ms",
        t.elapsed().as_secs_f64() * 1e3
    );

    println!("\nbytes per row by column and section:");
    print!("{:<14}", "column");
    for s in Section::ALL {
        print!(" {:>9}", &s.name()[..s.name().len().min(9)]);
    }
    println!(" {:>9}", "total");
    for (c, f) in schema.fields.iter().enumerate() {
        let mut per = [0u64; SECTION_COUNT];
        for b in 0..table.num_blocks() {
            for (i, s) in table.manifest().chunk(b, c).sections.iter().enumerate() {
                per[i] += u64::from(s.stored_len.get());
            }
        }
        print!("{:<14}", f.name);
        for p in per {
            print!(" {:>9.3}", p as f64 / rows as f64);
        }
        println!(" {:>9.3}", per.iter().sum::<u64>() as f64 / rows as f64);
    }

    for (c, f) in schema.fields.iter().enumerate() {
        // Fresh handle so checksums are verified again.
        let table = Table::open(&dir).unwrap();
        let t = Instant::now();
        let mut bytes = 0usize;
        for b in 0..table.num_blocks() {
            let chunk = table.chunk(b, c).unwrap();
            for s in Section::ALL {
                bytes += chunk.section(s).unwrap().len();
            }
        }
        let verify = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut codes = Vec::new();
        for b in 0..table.num_blocks() {
            table.chunk(b, c).unwrap().codes(&mut codes).unwrap();
        }
        let decode = t.elapsed().as_secs_f64();
        println!(
            "{:<14} checksum+decompress all sections: {:7.1} ms ({:6.0} MB/s); decode row lists to row codes: {:7.1} ms ({:.0} M rows/s)",
            f.name,
            verify * 1e3,
            bytes as f64 / verify / 1e6,
            decode * 1e3,
            rows as f64 / decode / 1e6
        );
    }
}
