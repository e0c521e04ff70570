//! Statistical and determinism tests of `gen hits` on a 200k-row in-memory sample.
//!
//! Tolerances are wide enough for a 200k-row sample (the real figures are for 100M
//! rows) but tight enough to catch a broken distribution. The real value is given
//! beside each bound.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::hits::CHUNK_ROWS;
use super::model::{Model, COUNTER_62, PLANTED_USER, REFERER_HASH_62, TZ_SHIFT, URL_HASH_62};
use super::schema::{HitsBatch, StrCol, COLUMNS};
use super::writer_parquet::Codec;
use super::writer_text::TextFormat;
use super::{generate_chunks, write_hits, Format, HitsConfig};

const ROWS: u64 = 200_000;

fn sample() -> &'static Vec<HitsBatch> {
    static SAMPLE: OnceLock<Vec<HitsBatch>> = OnceLock::new();
    SAMPLE.get_or_init(|| {
        let model = Model::new(ROWS, 7);
        generate_chunks(&model, 0, ROWS.div_ceil(CHUNK_ROWS as u64))
    })
}

fn n() -> f64 {
    ROWS as f64
}

fn strs(f: impl Fn(&'static HitsBatch) -> &'static StrCol) -> impl Iterator<Item = &'static [u8]> {
    sample().iter().flat_map(move |b| {
        let c = f(b);
        (0..c.ends.len()).map(move |i| c.get(i))
    })
}

fn ints<T: Copy + 'static>(
    f: impl Fn(&'static HitsBatch) -> &'static Vec<T>,
) -> impl Iterator<Item = T> {
    sample().iter().flat_map(move |b| f(b).iter().copied())
}

fn share(count: usize) -> f64 {
    count as f64 / n()
}

fn distinct_ratio<T: std::hash::Hash + Eq>(it: impl Iterator<Item = T>) -> f64 {
    share(it.collect::<HashSet<_>>().len())
}

fn top_share<T: std::hash::Hash + Eq>(it: impl Iterator<Item = T>) -> f64 {
    let mut m: HashMap<T, usize> = HashMap::new();
    for v in it {
        *m.entry(v).or_default() += 1;
    }
    share(m.values().copied().max().unwrap_or(0))
}

fn check(name: &str, v: f64, lo: f64, hi: f64, real: f64) {
    assert!(
        (lo..=hi).contains(&v),
        "{name} = {v:.5} outside [{lo}, {hi}] (real table: {real})"
    );
}

#[test]
fn row_count_and_unique_watch_ids() {
    assert_eq!(
        sample().iter().map(HitsBatch::len).sum::<usize>() as u64,
        ROWS
    );
    for b in sample() {
        for c in b.columns() {
            let len = match c {
                super::schema::ColRef::I16(v) => v.len(),
                super::schema::ColRef::I32(v) => v.len(),
                super::schema::ColRef::I64(v) | super::schema::ColRef::Time(v) => v.len(),
                super::schema::ColRef::Date(v) => v.len(),
                super::schema::ColRef::Str(s) => s.ends.len(),
            };
            assert_eq!(len, b.len());
        }
    }
    check(
        "WatchID distinct",
        distinct_ratio(ints(|b| &b.WatchID)),
        1.0,
        1.0,
        1.0,
    );
}

#[test]
fn user_and_ip_cardinalities() {
    check(
        "UserID distinct/rows",
        distinct_ratio(ints(|b| &b.UserID)),
        0.14,
        0.21,
        0.1763,
    );
    check(
        "ClientIP distinct/rows",
        distinct_ratio(ints(|b| &b.ClientIP)),
        0.07,
        0.13,
        0.0976,
    );
    let planted = ints(|b| &b.UserID).filter(|&u| u == PLANTED_USER).count();
    assert_eq!(planted, 4, "UserID 435090932899640449 must have 4 rows");
    // The heaviest user is a small share at any scale (0.029% in the real table; a
    // single long visit can reach ~0.1% of a 200k sample).
    check(
        "top UserID share",
        top_share(ints(|b| &b.UserID)),
        0.0,
        0.002,
        0.00029,
    );
}

#[test]
fn counters_and_regions_are_skewed() {
    let counters: Vec<i32> = ints(|b| &b.CounterID).collect();
    let count = |id: i32| counters.iter().filter(|&&c| c == id).count();
    check(
        "CounterID 3922 share",
        share(count(3922)),
        0.07,
        0.10,
        0.0853,
    );
    check(
        "CounterID 199550 share",
        share(count(199_550)),
        0.055,
        0.085,
        0.0712,
    );
    check("CounterID 62 share", share(count(62)), 0.01, 0.02, 0.0074);
    let distinct = counters.iter().collect::<HashSet<_>>().len();
    assert!(
        (2000..=6600).contains(&distinct),
        "{distinct} counters (real: 6,506 per 100M)"
    );
    let regions: Vec<i32> = ints(|b| &b.RegionID).collect();
    check(
        "RegionID 229 share",
        share(regions.iter().filter(|&&r| r == 229).count()),
        0.15,
        0.21,
        0.183,
    );
}

#[test]
fn string_columns_have_real_empty_shares_and_sizes() {
    let empty = |it: &mut dyn Iterator<Item = &[u8]>| share(it.filter(|s| s.is_empty()).count());
    check(
        "URL empty",
        empty(&mut strs(|b| &b.URL)),
        0.0002,
        0.0015,
        0.00068,
    );
    check(
        "Title empty",
        empty(&mut strs(|b| &b.Title)),
        0.13,
        0.17,
        0.1491,
    );
    check(
        "Referer empty",
        empty(&mut strs(|b| &b.Referer)),
        0.16,
        0.22,
        0.1897,
    );
    check(
        "OriginalURL empty",
        empty(&mut strs(|b| &b.OriginalURL)),
        0.79,
        0.87,
        0.8298,
    );
    check(
        "SearchPhrase empty",
        empty(&mut strs(|b| &b.SearchPhrase)),
        0.85,
        0.89,
        0.8683,
    );
    let mobile = share(
        strs(|b| &b.MobilePhoneModel)
            .filter(|s| !s.is_empty())
            .count(),
    );
    check("MobilePhoneModel non-empty", mobile, 0.01, 0.06, 0.03);

    let avg = |it: &mut dyn Iterator<Item = &[u8]>| it.map(<[u8]>::len).sum::<usize>() as f64 / n();
    check(
        "URL avg bytes",
        avg(&mut strs(|b| &b.URL)),
        70.0,
        105.0,
        87.9,
    );
    check(
        "Title avg bytes",
        avg(&mut strs(|b| &b.Title)),
        40.0,
        75.0,
        56.7,
    );
    check(
        "Referer avg bytes",
        avg(&mut strs(|b| &b.Referer)),
        45.0,
        80.0,
        63.4,
    );

    check(
        "URL distinct/rows",
        distinct_ratio(strs(|b| &b.URL)),
        0.13,
        0.24,
        0.1834,
    );
    check(
        "Title distinct/rows",
        distinct_ratio(strs(|b| &b.Title)),
        0.06,
        0.13,
        0.0943,
    );
    check(
        "Referer distinct/rows",
        distinct_ratio(strs(|b| &b.Referer)),
        0.14,
        0.26,
        0.1972,
    );
    check(
        "SearchPhrase distinct/rows",
        distinct_ratio(strs(|b| &b.SearchPhrase)),
        0.035,
        0.08,
        0.0602,
    );
    check(
        "top URL share",
        top_share(strs(|b| &b.URL)),
        0.025,
        0.042,
        0.0329,
    );
}

#[test]
fn query_constants_and_patterns_are_present() {
    let contains = |s: &[u8], pat: &[u8]| s.windows(pat.len()).any(|w| w == pat);
    let google = strs(|b| &b.URL).filter(|u| contains(u, b"google")).count();
    check(
        "URL LIKE %google% share",
        share(google),
        0.00003,
        0.0005,
        0.00016,
    );
    let titled = strs(|b| &b.Title)
        .filter(|t| contains(t, b"Google"))
        .count();
    assert!(titled > 50, "{titled} titles contain Google");
    let newlines = strs(|b| &b.URL).filter(|u| u.contains(&b'\n')).count();
    assert!(newlines > 0, "some URLs contain a line feed");

    assert!(ints(|b| &b.URLHash).any(|h| h == URL_HASH_62));
    assert!(ints(|b| &b.RefererHash).any(|h| h == REFERER_HASH_62));
    let sources: HashSet<i16> = ints(|b| &b.TraficSourceID).collect();
    assert!(sources.contains(&-1) && sources.contains(&6), "{sources:?}");

    let adv: Vec<i16> = ints(|b| &b.AdvEngineID).filter(|&a| a != 0).collect();
    check(
        "AdvEngineID <> 0 share",
        share(adv.len()),
        0.003,
        0.01,
        0.0063,
    );
    let twos = adv.iter().filter(|&&a| a == 2).count() as f64 / adv.len().max(1) as f64;
    check("AdvEngineID = 2 among non-zero", twos, 0.45, 0.85, 0.64);

    let widths: Vec<i16> = ints(|b| &b.ResolutionWidth).collect();
    let avg_w = widths.iter().map(|&w| f64::from(w)).sum::<f64>() / n();
    check("AVG(ResolutionWidth)", avg_w, 1400.0, 1650.0, 1513.5);
}

#[test]
fn times_are_in_july_and_consistent() {
    for b in sample() {
        for i in 0..b.len() {
            let t = b.EventTime[i];
            assert!(
                (1_372_708_800..=1_375_300_799).contains(&t),
                "EventTime {t}"
            );
            assert_eq!(i64::from(b.EventDate[i]), (t + TZ_SHIFT) / 86_400);
            assert!((b.LocalEventTime[i] - t).abs() <= 172_800);
            assert!(b.ClientEventTime[i] >= 0);
            if b.CounterID[i] == COUNTER_62 as i32 {
                assert_eq!(b.EventDate[i], 15_901, "counter 62 lives on 2013-07-15");
            }
        }
    }
    let dates: HashSet<u16> = ints(|b| &b.EventDate).collect();
    assert!(dates.len() >= 17, "{} distinct dates", dates.len());
}

#[test]
fn chunks_are_sorted_by_the_primary_key() {
    for b in sample() {
        for i in 1..b.len() {
            let k = |j: usize| {
                (
                    b.CounterID[j],
                    b.EventDate[j],
                    b.UserID[j],
                    b.EventTime[j],
                    b.WatchID[j],
                )
            };
            assert!(k(i - 1) <= k(i), "row {i} out of order");
        }
    }
}

#[test]
fn strings_are_valid_utf8_by_default() {
    for b in sample() {
        for c in b.columns() {
            if let super::schema::ColRef::Str(s) = c {
                for i in 0..s.ends.len() {
                    assert!(std::str::from_utf8(s.get(i)).is_ok());
                }
            }
        }
    }
}

fn write_with_threads(threads: usize, format: Format, path: &std::path::Path) -> Vec<u8> {
    let config = HitsConfig {
        rows: 140_000,
        seed: 42,
        codec: Codec::Snappy,
        invalid_utf8: true,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| write_hits(&config, format, path)).unwrap();
    std::fs::read(path).unwrap()
}

#[test]
fn output_is_identical_for_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    for (format, ext) in [
        (Format::Parquet, "parquet"),
        (Format::Text(TextFormat::Tsv), "tsv"),
        (Format::Text(TextFormat::Csv), "csv"),
    ] {
        let a = write_with_threads(1, format, &dir.path().join(format!("a.{ext}")));
        let b = write_with_threads(2, format, &dir.path().join(format!("b.{ext}")));
        assert!(!a.is_empty());
        assert!(a == b, "{ext} output differs between 1 and 2 threads");
        if ext == "parquet" {
            assert_eq!(&a[..4], b"PAR1");
            assert_eq!(&a[a.len() - 4..], b"PAR1");
        } else {
            let lines = a.iter().filter(|&&c| c == b'\n').count();
            if ext == "tsv" {
                // Line feeds inside values are escaped in TSV.
                assert_eq!(lines, 140_000);
            } else {
                assert!(lines >= 140_000);
            }
        }
    }
}

#[test]
fn format_follows_the_extension() {
    use std::path::Path;
    assert_eq!(
        Format::from_path(Path::new("x.parquet")).unwrap(),
        Format::Parquet
    );
    assert_eq!(
        Format::from_path(Path::new("x.TSV")).unwrap(),
        Format::Text(TextFormat::Tsv)
    );
    assert!(Format::from_path(Path::new("x.json")).is_err());
    assert!(Format::from_path(Path::new("x")).is_err());
}

#[test]
fn columns_match_the_clickbench_ddl() {
    // The DDL lives in the shared folder next to the checkout; skip when absent.
    let ddl = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/clickbench/create-clickhouse.sql"
    );
    let Ok(text) = std::fs::read_to_string(ddl) else {
        return;
    };
    let names: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.ends_with("NOT NULL,") || l.ends_with("NOT NULL"))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let ours: Vec<&str> = COLUMNS.iter().map(|c| c.0).collect();
    assert_eq!(names, ours);
}
