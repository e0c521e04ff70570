//! `strata-bench gen 1brc`: a One Billion Row Challenge `measurements.txt`.
//!
//! The official generator's model: each row names a station drawn uniformly from
//! the key set and a temperature drawn from a normal distribution around the
//! station's mean, rounded half up to one decimal and clamped to [-99.9, 99.9];
//! lines are `<name>;<temperature>\n`. Two key sets:
//!
//! - 413: the official stations and mean temperatures (embedded from
//!   `data/1brc-stations.csv`), standard deviation 10.
//! - 10000: the "10K" bonus set, built as the bonus generator does: names of 1 to
//!   100 UTF-8 bytes sliced out of the concatenated city names of
//!   `weather_stations.csv` (mostly short, a few long), mean `30 cos(latitude) - 10`
//!   of the city the slice starts in, standard deviation 7.
//!
//! Rows come in chunks of [`CHUNK_ROWS`], each from its own stream keyed by the
//! seed and chunk index, so the file does not depend on the thread count.

use std::collections::HashSet;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use super::rng::{hash2, DetRng};
use crate::brc::answer::push_tenths;

/// The official 413 stations: `station,mean_temperature` (RFC 4180 quoting).
const OFFICIAL_STATIONS: &str = include_str!("../../data/1brc-stations.csv");

/// Rows per independently seeded chunk.
pub const CHUNK_ROWS: u64 = 1 << 20;

/// Where `--weather-stations` looks by default (the shared research data).
const DEFAULT_WEATHER_STATIONS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/1brc/weather_stations.csv"
);

/// Arguments of `strata-bench gen 1brc`.
#[derive(Clone, Debug, clap::Args)]
pub struct BrcArgs {
    /// Number of rows to generate.
    #[arg(long)]
    pub rows: u64,
    /// Output file.
    #[arg(long, default_value = "measurements.txt")]
    pub out: PathBuf,
    /// Key set: the official 413 stations or the 10,000-station bonus set.
    #[arg(long, default_value_t = 413, value_parser = parse_key_set)]
    pub stations: u32,
    /// The bonus generator's city list (`name;latitude` lines), for `--stations 10000`.
    #[arg(long, default_value = DEFAULT_WEATHER_STATIONS)]
    pub weather_stations: PathBuf,
    /// Seed; the same seed always gives the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores). Does not change the output.
    #[arg(long)]
    pub threads: Option<usize>,
}

fn parse_key_set(s: &str) -> std::result::Result<u32, String> {
    match s {
        "413" => Ok(413),
        "10000" => Ok(10_000),
        _ => Err("the key sets are 413 and 10000".into()),
    }
}

/// A station: its name and the mean and standard deviation of its temperatures.
#[derive(Clone, Debug, PartialEq)]
pub struct Station {
    /// UTF-8 name, 1 to 100 bytes, without `;` or `\n`.
    pub name: String,
    /// Mean temperature in °C.
    pub mean: f64,
    /// Standard deviation in °C.
    pub sd: f64,
}

/// Splits one CSV line into fields (RFC 4180 double quotes).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                if let Some(f) = out.last_mut() {
                    f.push('"');
                }
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => {
                if let Some(f) = out.last_mut() {
                    f.push(c);
                }
            }
        }
    }
    out
}

/// The official key set.
pub fn official_stations() -> Result<Vec<Station>> {
    let mut v = Vec::new();
    for line in OFFICIAL_STATIONS.lines().skip(1).filter(|l| !l.is_empty()) {
        let f = csv_fields(line);
        let [name, mean] = f.as_slice() else {
            bail!("bad station line {line:?}");
        };
        let mean: f64 = mean
            .parse()
            .with_context(|| format!("bad mean in {line:?}"))?;
        v.push(Station {
            name: name.clone(),
            mean,
            sd: 10.0,
        });
    }
    Ok(v)
}

/// The 10,000-station bonus key set, from `weather_stations.csv`'s text.
pub fn bonus_stations(weather_csv: &str, count: usize, seed: u64) -> Result<Vec<Station>> {
    // The concatenated city names, and for each char the latitude of its city.
    let mut text: Vec<char> = Vec::new();
    let mut lat: Vec<f64> = Vec::new();
    for line in weather_csv.lines().filter(|l| !l.starts_with('#')) {
        let Some((name, la)) = line.rsplit_once(';') else {
            continue;
        };
        let Ok(la) = la.trim().parse::<f64>() else {
            continue;
        };
        for c in name.chars().filter(|&c| c != ';' && c != '\n' && c != '\r') {
            text.push(c);
            lat.push(la);
        }
    }
    if text.len() < 1000 {
        bail!("the weather stations file holds too few names");
    }
    let mut rng = DetRng::from_key(hash2(seed, 0x1B5C_0000_0001));
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(count);
    let mut attempts = 0u64;
    while out.len() < count {
        attempts += 1;
        if attempts > 100 * count as u64 {
            bail!("could not build {count} distinct station names");
        }
        // Mostly short names, a few up to 100 bytes; the first two are the extremes.
        let max_bytes = match out.len() {
            0 => 100,
            1 => 1,
            _ => 1 + (99.0 * rng.unit().powi(7)) as usize,
        };
        let start = rng.below(text.len() as u64) as usize;
        let mut name = String::new();
        for &c in text.iter().cycle().skip(start) {
            if name.len() + c.len_utf8() > max_bytes {
                break;
            }
            name.push(c);
        }
        if name.is_empty() || !seen.insert(name.clone()) {
            continue;
        }
        let mean = 30.0 * lat[start].to_radians().cos() - 10.0;
        out.push(Station {
            name,
            mean,
            sd: 7.0,
        });
    }
    Ok(out)
}

/// A temperature in tenths: normal around the station's mean, rounded half up,
/// clamped to [-99.9, 99.9].
fn draw_tenths(rng: &mut DetRng, s: &Station) -> i64 {
    let x = rng.normal(s.mean, s.sd);
    ((x * 10.0 + 0.5).floor() as i64).clamp(-999, 999)
}

/// The text of chunk `chunk` of a `rows`-row file.
pub fn chunk_text(stations: &[Station], seed: u64, rows: u64, chunk: u64) -> Vec<u8> {
    let begin = chunk * CHUNK_ROWS;
    let n = rows.saturating_sub(begin).min(CHUNK_ROWS);
    let mut rng = DetRng::from_key(hash2(seed, chunk));
    let mut buf = Vec::with_capacity(n as usize * 16);
    for _ in 0..n {
        let s = &stations[rng.below(stations.len() as u64) as usize];
        buf.extend_from_slice(s.name.as_bytes());
        buf.push(b';');
        push_tenths(&mut buf, i128::from(draw_tenths(&mut rng, s)));
        buf.push(b'\n');
    }
    buf
}

/// Runs `gen 1brc`.
pub fn run(args: &BrcArgs) -> Result<()> {
    let stations = if args.stations == 10_000 {
        let text = std::fs::read_to_string(&args.weather_stations).with_context(|| {
            format!(
                "reading {} (pass --weather-stations)",
                args.weather_stations.display()
            )
        })?;
        bonus_stations(&text, 10_000, args.seed)?
    } else {
        official_stations()?
    };
    if stations.is_empty() {
        bail!("no stations");
    }
    let rows = args.rows;
    super::generate_text(
        &args.out,
        args.threads,
        &format!("{rows} rows over {} stations", stations.len()),
        rows.div_ceil(CHUNK_ROWS),
        |k| chunk_text(&stations, args.seed, rows, k),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_official_key_set_has_413_stations() {
        let s = official_stations().unwrap();
        assert_eq!(s.len(), 413);
        assert_eq!(s[0].name, "Abha");
        assert_eq!(s[0].mean, 18.0);
        assert!(s.iter().any(|x| x.name == "Washington, D.C."));
        assert!(s.iter().any(|x| x.name == "Flores,  Petén"));
    }

    #[test]
    fn chunks_are_deterministic_and_well_formed() {
        let s = official_stations().unwrap();
        let a = chunk_text(&s, 7, 1000, 0);
        assert_eq!(a, chunk_text(&s, 7, 1000, 0));
        assert_ne!(a, chunk_text(&s, 8, 1000, 0));
        let text = String::from_utf8(a).unwrap();
        assert_eq!(text.lines().count(), 1000);
        for line in text.lines() {
            let (name, t) = line.rsplit_once(';').unwrap();
            assert!(s.iter().any(|x| x.name == name));
            let v: f64 = t.parse().unwrap();
            assert!((-99.9..=99.9).contains(&v));
            assert_eq!(t.split_once('.').unwrap().1.len(), 1);
        }
    }

    #[test]
    fn bonus_names_are_distinct_and_at_most_100_bytes() {
        let mut csv = String::from("# comment\n");
        for i in 0..500 {
            csv.push_str(&format!("Städt{i} am Fluß;{}\n", i % 90));
        }
        let s = bonus_stations(&csv, 2000, 1).unwrap();
        assert_eq!(s.len(), 2000);
        let names: HashSet<&str> = s.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names.len(), 2000);
        assert!(s.iter().all(|x| (1..=100).contains(&x.name.len())));
        assert!(s.iter().any(|x| x.name.len() >= 99));
        assert!(s.iter().any(|x| x.name.len() == 1));
        assert!(s
            .iter()
            .all(|x| !x.name.contains(';') && !x.name.contains('\n')));
    }
}
