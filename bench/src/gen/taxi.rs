//! `strata-bench gen taxi`: the denormalised NYC taxi `trips` table in Mark
//! Litwintschik's CSV layout (51 columns, no header, empty field = NULL,
//! `YYYY-MM-DD HH:MM:SS` datetimes, money and distances with two decimals,
//! coordinates with six), as used by LocustDB's benchmark.
//!
//! Rows are in pickup-time order over 2009-2015 (the export is by month, so the
//! table is nearly sorted by time and `trip_id` is sequential), with the shares of
//! `shared/research/taxi-dataset.md`: cab types 96.16% yellow, 3.49% green, 0.35%
//! Uber; passenger counts mostly 1 with rare junk values; rounded distances 0-10
//! miles weighted as the real table plus a long tail; tract/NTA/PUMA columns from
//! one census tract ([`super::taxi_lookup`]), so the triples are consistent;
//! weather columns from the pickup day. As for `gen hits`, chunks of
//! [`CHUNK_ROWS`] rows each have their own RNG stream.

use std::path::PathBuf;

use anyhow::Result;

use super::rng::{cumulative, hash2, DetRng};
use super::taxi_lookup::{Tract, Tracts, WeatherTable};
use super::text::{push_i64, push_u64};
use super::writer_text::push_datetime;

/// Rows per independently seeded chunk.
pub const CHUNK_ROWS: u64 = 1 << 16;

/// Arguments of `strata-bench gen taxi`.
#[derive(Clone, Debug, clap::Args)]
pub struct TaxiArgs {
    /// Number of rows to generate.
    #[arg(long)]
    pub rows: u64,
    /// Output CSV file.
    #[arg(long)]
    pub out: PathBuf,
    /// Seed; the same seed always gives the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores). Does not change the output.
    #[arg(long)]
    pub threads: Option<usize>,
}

/// Pickups per year 2009..=2015 (millions, from the full table).
const YEAR_WEIGHTS: [f64; 7] = [170.9, 168.9, 176.9, 178.6, 174.4, 185.5, 165.3];

/// Passenger counts and their shares (junk values kept rare but present).
const PASSENGERS: [(u8, f64); 11] = [
    (1, 69.60),
    (2, 14.41),
    (5, 6.77),
    (3, 4.28),
    (6, 2.22),
    (4, 2.06),
    (0, 0.65),
    (7, 0.002),
    (8, 0.002),
    (9, 0.001),
    (208, 0.0005),
];

/// Shares of `round(trip_distance)` = 0..=10; the rest is a tail above 10.5 miles.
const DISTANCE_BINS: [f64; 11] = [
    4.96, 36.68, 24.14, 12.11, 6.48, 3.87, 2.47, 1.61, 1.2, 1.15, 1.1,
];

/// Everything the rows are drawn from.
pub struct TaxiModel {
    rows: u64,
    seed: u64,
    tracts: Tracts,
    weather: WeatherTable,
    /// Unix seconds of 1 January of 2009..=2016.
    year_starts: [i64; 8],
    year_cum: Vec<f64>,
    passenger_cum: Vec<f64>,
    distance_cum: Vec<f64>,
}

impl TaxiModel {
    /// The model of a `rows`-row table.
    pub fn new(rows: u64, seed: u64) -> Result<TaxiModel> {
        let weather = super::taxi_lookup::weather()?;
        let mut year_starts = [0i64; 8];
        let mut day = weather.first_day;
        for (i, start) in year_starts.iter_mut().enumerate() {
            *start = day * 86_400;
            let y = 2009 + i as i64;
            day += if y % 4 == 0 { 366 } else { 365 };
        }
        let mut dist = DISTANCE_BINS.to_vec();
        dist.push(100.0 - DISTANCE_BINS.iter().sum::<f64>());
        Ok(TaxiModel {
            rows,
            seed,
            tracts: super::taxi_lookup::tracts()?,
            weather,
            year_starts,
            year_cum: cumulative(&YEAR_WEIGHTS),
            passenger_cum: cumulative(&PASSENGERS.map(|p| p.1)),
            distance_cum: cumulative(&dist),
        })
    }

    /// Pickup time of row `row`: its place in the table mapped onto 2009-2015 by
    /// the yearly volumes, plus up to an hour of jitter.
    fn pickup(&self, row: u64, rng: &mut DetRng) -> i64 {
        let f = (row as f64 + 0.5) / self.rows.max(1) as f64;
        let total = self.year_cum.last().copied().unwrap_or(1.0);
        let x = f * total;
        let y = self.year_cum.partition_point(|&c| c <= x).min(6);
        let below = if y == 0 { 0.0 } else { self.year_cum[y - 1] };
        let within = (x - below) / YEAR_WEIGHTS[y];
        let (a, b) = (self.year_starts[y], self.year_starts[y + 1]);
        let t = a + ((b - a) as f64 * within) as i64 + rng.range_i64(-1800, 1800);
        t.clamp(self.year_starts[0], self.year_starts[7] - 1)
    }
}

/// Appends `v / 10^decimals` with exactly `decimals` decimals.
fn push_fixed(out: &mut Vec<u8>, v: i64, decimals: u32) {
    let unit = 10u64.pow(decimals);
    if v < 0 {
        out.push(b'-');
    }
    let a = v.unsigned_abs();
    push_u64(out, a / unit);
    out.push(b'.');
    let frac = a % unit;
    let mut digits = [b'0'; 8];
    let mut f = frac;
    for i in (0..decimals as usize).rev() {
        digits[i] = b'0' + (f % 10) as u8;
        f /= 10;
    }
    out.extend_from_slice(&digits[..decimals as usize]);
}

/// Appends the hex EWKB of a WGS84 point (SRID 4326), as PostGIS prints it.
fn push_ewkb(out: &mut Vec<u8>, lon: f64, lat: f64) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.extend_from_slice(b"0101000020E6100000");
    for v in [lon, lat] {
        for b in v.to_le_bytes() {
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 15)]);
        }
    }
}

fn push_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(s.as_bytes());
}

/// The ten tract columns (all empty without a tract).
fn push_tract(out: &mut Vec<u8>, t: Option<&Tract>) {
    let Some(t) = t else {
        out.extend_from_slice(b",,,,,,,,,");
        return;
    };
    push_u64(out, u64::from(t.gid));
    out.push(b',');
    push_str(out, &t.ctlabel);
    out.push(b',');
    push_u64(out, u64::from(t.borocode));
    for s in [
        &t.boroname,
        &t.ct2010,
        &t.boroct2010,
        &t.cdeligibil,
        &t.ntacode,
        &t.ntaname,
        &t.puma,
    ] {
        out.push(b',');
        push_str(out, s);
    }
}

/// A point in or near New York City, in micro-degrees (lon, lat).
fn point(rng: &mut DetRng) -> (i64, i64) {
    (
        rng.range_i64(-74_050_000, -73_750_000),
        rng.range_i64(40_600_000, 40_900_000),
    )
}

/// Appends row `row` (0-based) as one CSV line.
fn push_row(m: &TaxiModel, row: u64, rng: &mut DetRng, out: &mut Vec<u8>) {
    let pickup = m.pickup(row, rng);
    let year = 2009 + m.year_starts.partition_point(|&s| s <= pickup) as i64 - 1;
    let cab = rng.unit();
    let (cab_type, uber, green) = if cab < 0.9616 {
        ("yellow", false, false)
    } else if cab < 0.9965 {
        ("green", false, true)
    } else {
        ("uber", true, false)
    };
    // 1 trip_id, 2 vendor_id, 3 pickup_datetime
    push_u64(out, row + 1);
    out.push(b',');
    let vendor = if uber {
        ["B02512", "B02598", "B02617", "B02682", "B02764"][rng.below(5) as usize]
    } else if green || year >= 2015 {
        ["1", "2"][usize::from(rng.chance(0.55))]
    } else {
        let v = rng.unit();
        if v < 0.48 {
            "CMT"
        } else if v < 0.98 {
            "VTS"
        } else {
            "DDS"
        }
    };
    push_str(out, vendor);
    out.push(b',');
    push_datetime(out, pickup);
    out.push(b',');
    // Distances in hundredths of a mile; durations from the distance.
    let bin = rng.pick_cum(&m.distance_cum);
    let hundredths: i64 = if rng.chance(1e-7) {
        -rng.range_i64(1, 300_000)
    } else if rng.chance(4e-6) {
        rng.range_i64(10_000, 50_000_000)
    } else if bin <= 10 {
        (bin as i64 * 100 + rng.range_i64(-50, 49)).max(0)
    } else {
        1050 + (rng.exp(5.0) * 100.0) as i64
    };
    let minutes = 2.0 + hundredths.max(0) as f64 / 100.0 * 3.2 + rng.exp(4.0);
    // 4 dropoff_datetime, 5 store_and_fwd_flag, 6 rate_code_id
    if !uber {
        push_datetime(out, pickup + (minutes * 60.0) as i64);
    }
    out.push(b',');
    if !uber && vendor != "VTS" {
        let flag = if year <= 2010 && vendor == "CMT" {
            ["0", "1"][usize::from(rng.chance(0.01))]
        } else {
            ["N", "Y"][usize::from(rng.chance(0.01))]
        };
        push_str(out, flag);
    }
    out.push(b',');
    if !uber {
        let r = rng.unit();
        let code = if r < 0.97 {
            1
        } else if r < 0.99 {
            2
        } else if r < 0.9999 {
            rng.range_i64(3, 6)
        } else {
            99
        };
        push_i64(out, code);
    }
    out.push(b',');
    // 7-10 coordinates (6% missing) and the tracts they fall in (3% outside NYC).
    let has_gps = !rng.chance(0.06);
    let (p, d) = (point(rng), point(rng));
    let has_drop_gps = has_gps && !uber;
    for (lon, lat, on) in [(p.0, p.1, has_gps), (d.0, d.1, has_drop_gps)] {
        if on {
            push_fixed(out, lon, 6);
        }
        out.push(b',');
        if on {
            push_fixed(out, lat, 6);
        }
        out.push(b',');
    }
    // 11 passenger_count, 12 trip_distance
    if !uber {
        push_u64(out, u64::from(PASSENGERS[rng.pick_cum(&m.passenger_cum)].0));
    }
    out.push(b',');
    if !uber {
        push_fixed(out, hundredths, 2);
    }
    out.push(b',');
    // 13-20 money in cents: fare, extra, mta_tax, tip, tolls, ehail_fee,
    // improvement_surcharge, total.
    let card = rng.chance(0.45);
    if uber {
        out.extend_from_slice(b",,,,,,,,");
    } else {
        let fare = 250 + hundredths.max(0) * 250 / 100 + (minutes * 20.0) as i64;
        let fare = fare / 50 * 50;
        let extra = [0, 50, 100][rng.below(3) as usize];
        let mta = if year >= 2010 { 50 } else { 0 };
        let tip = if card {
            fare * rng.range_i64(10, 25) / 100
        } else {
            0
        };
        let tolls = if rng.chance(0.05) { 533 } else { 0 };
        let surcharge = if year >= 2015 { 30 } else { 0 };
        for v in [fare, extra, mta, tip, tolls] {
            push_fixed(out, v, 2);
            out.push(b',');
        }
        if green && rng.chance(0.01) {
            push_fixed(out, 0, 2);
        }
        out.push(b',');
        if year >= 2015 || green {
            push_fixed(out, surcharge, 2);
        }
        out.push(b',');
        push_fixed(out, fare + extra + mta + tip + tolls + surcharge, 2);
        out.push(b',');
    }
    // 21 payment_type, 22 trip_type
    if !uber {
        let r = rng.unit();
        let k = if card {
            1
        } else if r < 0.96 {
            0
        } else if r < 0.99 {
            2
        } else {
            3
        };
        let names: [&str; 4] = if green || year >= 2015 {
            ["1", "2", "3", "4"]
        } else if year == 2009 {
            ["CASH", "Credit", "No Charge", "Dispute"]
        } else {
            ["CSH", "CRD", "NOC", "DIS"]
        };
        push_str(out, names[k]);
    }
    out.push(b',');
    if green {
        push_str(out, if rng.chance(0.97) { "1" } else { "2" });
    }
    out.push(b',');
    // 23-24 pickup, dropoff (EWKB), 25 cab_type
    for (pt, on) in [(p, has_gps), (d, has_drop_gps)] {
        if on {
            push_ewkb(out, pt.0 as f64 / 1e6, pt.1 as f64 / 1e6);
        }
        out.push(b',');
    }
    push_str(out, cab_type);
    out.push(b',');
    // 26-31 weather of the pickup day
    match m.weather.get(pickup.div_euclid(86_400)) {
        Some(w) => {
            for s in [&w.prcp, &w.snwd, &w.snow, &w.tmax, &w.tmin, &w.awnd] {
                push_str(out, s);
                out.push(b',');
            }
        }
        None => out.extend_from_slice(b",,,,,,"),
    }
    // 32-51 pickup and dropoff tracts
    let tract = |rng: &mut DetRng, on: bool| -> Option<&Tract> {
        (on && !rng.chance(0.03)).then(|| &m.tracts.tracts[rng.pick_cum(&m.tracts.cum)])
    };
    let pt = tract(rng, has_gps);
    let dt = tract(rng, has_drop_gps);
    push_tract(out, pt);
    out.push(b',');
    push_tract(out, dt);
    out.push(b'\n');
}

/// The text of chunk `chunk`.
pub fn chunk_text(m: &TaxiModel, chunk: u64) -> Vec<u8> {
    let begin = chunk * CHUNK_ROWS;
    let end = (begin + CHUNK_ROWS).min(m.rows);
    let mut rng = DetRng::from_key(hash2(m.seed ^ 0x7A41, chunk));
    let mut buf = Vec::with_capacity((end - begin) as usize * 420);
    for row in begin..end {
        push_row(m, row, &mut rng, &mut buf);
    }
    buf
}

/// Runs `gen taxi`.
pub fn run(args: &TaxiArgs) -> Result<()> {
    let model = TaxiModel::new(args.rows, args.seed)?;
    super::generate_text(
        &args.out,
        args.threads,
        &format!("{} rows", args.rows),
        args.rows.div_ceil(CHUNK_ROWS),
        |k| chunk_text(&model, k),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: u64) -> String {
        let m = TaxiModel::new(rows, 5).unwrap();
        let mut s = Vec::new();
        for c in 0..rows.div_ceil(CHUNK_ROWS) {
            s.extend(chunk_text(&m, c));
        }
        String::from_utf8(s).unwrap()
    }

    #[test]
    fn rows_have_51_fields_and_sequential_ids() {
        let t = table(70_000);
        let mut last_pickup = String::new();
        for (i, line) in t.lines().enumerate() {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 51, "{line}");
            assert_eq!(f[0], (i + 1).to_string());
            assert_eq!(f[2].len(), 19);
            if i % 1000 == 0 {
                assert!(f[2][..4] >= last_pickup[..last_pickup.len().min(4)]);
                last_pickup = f[2].to_string();
            }
            for money in [12, 19] {
                if !f[money].is_empty() {
                    assert_eq!(f[money].split_once('.').unwrap().1.len(), 2, "{line}");
                }
            }
        }
    }

    #[test]
    fn shares_and_consistent_tracts() {
        let t = table(200_000);
        let tracts = super::super::taxi_lookup::tracts().unwrap();
        let (mut yellow, mut one, mut n) = (0, 0, 0);
        let mut ntas = std::collections::HashSet::new();
        for line in t.lines() {
            let f: Vec<&str> = line.split(',').collect();
            n += 1;
            yellow += usize::from(f[24] == "yellow");
            one += usize::from(f[10] == "1");
            if !f[39].is_empty() {
                ntas.insert(f[39].to_string());
                // The tract's NTA and PUMA come with it.
                let tr = tracts
                    .tracts
                    .iter()
                    .find(|x| x.boroct2010 == f[36])
                    .unwrap();
                assert_eq!((tr.ntaname.as_str(), tr.puma.as_str()), (f[39], f[40]));
            }
        }
        let share = |k: usize| k as f64 / n as f64;
        assert!((share(yellow) - 0.9616).abs() < 0.01);
        assert!((share(one) - 0.696).abs() < 0.02);
        assert!(ntas.len() > 150);
    }

    #[test]
    fn deterministic_per_seed() {
        let m = TaxiModel::new(1000, 9).unwrap();
        assert_eq!(chunk_text(&m, 0), chunk_text(&m, 0));
        let other = TaxiModel::new(1000, 10).unwrap();
        assert_ne!(chunk_text(&m, 0), chunk_text(&other, 0));
    }

    #[test]
    fn fixed_point_and_ewkb() {
        let mut b = Vec::new();
        push_fixed(&mut b, -5, 2);
        b.push(b' ');
        push_fixed(&mut b, 123_456, 6);
        assert_eq!(b, b"-0.05 0.123456");
        let mut e = Vec::new();
        push_ewkb(&mut e, -73.99, 40.75);
        assert_eq!(e.len(), 50);
        assert!(e.starts_with(b"0101000020E6100000"));
    }
}
