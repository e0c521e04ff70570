//! The reference tables behind the taxi generator's tract and weather columns,
//! compiled in from `bench/data/taxi/` (see `bench/data/SOURCE.txt`).

use anyhow::{bail, Context, Result};

use super::rng::cumulative;

/// NYC 2010 census tracts: tract → NTA → PUMA.
const TRACTS: &str = include_str!("../../data/taxi/nyct2010_tracts.csv");
/// Central Park daily weather, 2009-2015.
const WEATHER: &str = include_str!("../../data/taxi/central_park_weather_2009_2015.csv");

/// One census tract and the columns it fills (`pickup_*` / `dropoff_*`).
#[derive(Clone, Debug)]
pub struct Tract {
    /// `*_nyct2010_gid` (synthetic: the row number plus one, 2..=2167).
    pub gid: u32,
    /// `*_ctlabel`, e.g. `383.02`.
    pub ctlabel: String,
    /// `*_borocode`, 1..=5.
    pub borocode: u8,
    /// `*_boroname`.
    pub boroname: String,
    /// `*_ct2010`, six digits.
    pub ct2010: String,
    /// `*_boroct2010`, seven digits.
    pub boroct2010: String,
    /// `*_cdeligibil`: `E`, `I` or empty.
    pub cdeligibil: String,
    /// `*_ntacode`, e.g. `MN17`.
    pub ntacode: String,
    /// `*_ntaname`.
    pub ntaname: String,
    /// `*_puma`, e.g. `3807`.
    pub puma: String,
}

/// All tracts with cumulative pickup weights.
#[derive(Clone, Debug)]
pub struct Tracts {
    /// The tracts in file order.
    pub tracts: Vec<Tract>,
    /// Cumulative weights for [`super::rng::DetRng::pick_cum`].
    pub cum: Vec<f64>,
}

/// Share of pickups per borough code (Manhattan-heavy, as in the real data).
fn borough_weight(code: u8) -> f64 {
    match code {
        1 => 0.86,
        4 => 0.07,
        3 => 0.055,
        2 => 0.012,
        _ => 0.003,
    }
}

/// Parses the compiled-in tract table. Within a borough, tract weights fall off
/// as a power law over a fixed pseudo-random order, so a few tracts (and NTAs)
/// dominate as Midtown does; the Airport NTA gets a large share of Queens.
pub fn tracts() -> Result<Tracts> {
    let mut tracts = Vec::new();
    for (i, line) in TRACTS.lines().skip(1).enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        let [_, boroct, ctlabel, borocode, boroname, ct2010, cde, ntacode, ntaname, puma] =
            f.as_slice()
        else {
            bail!("nyct2010_tracts.csv line {}: {} fields", i + 2, f.len());
        };
        tracts.push(Tract {
            gid: i as u32 + 2,
            ctlabel: (*ctlabel).into(),
            borocode: borocode.parse().context("borocode")?,
            boroname: (*boroname).into(),
            ct2010: (*ct2010).into(),
            boroct2010: (*boroct).into(),
            cdeligibil: (*cde).into(),
            ntacode: (*ntacode).into(),
            ntaname: (*ntaname).into(),
            puma: (*puma).into(),
        });
    }
    let mut weights = Vec::with_capacity(tracts.len());
    let mut rank_in_borough = [0u32; 6];
    for (i, t) in tracts.iter().enumerate() {
        let b = usize::from(t.borocode.min(5));
        rank_in_borough[b] += 1;
        // A fixed scramble of the rank so neighbouring tracts differ.
        let r = (super::rng::mix64(i as u64) % 97) as f64 + f64::from(rank_in_borough[b]) / 50.0;
        let mut w = borough_weight(t.borocode) / (1.0 + r).powf(1.3);
        if t.ntaname == "Airport" {
            w *= 40.0;
        }
        weights.push(w);
    }
    Ok(Tracts {
        tracts,
        cum: cumulative(&weights),
    })
}

/// One day's weather columns, as written in the source (empty = NULL).
#[derive(Clone, Debug, Default)]
pub struct Weather {
    /// `precipitation` (PRCP, inches).
    pub prcp: String,
    /// `snow_depth` (SNWD, inches).
    pub snwd: String,
    /// `snowfall` (SNOW, inches).
    pub snow: String,
    /// `max_temperature` (TMAX, °F).
    pub tmax: String,
    /// `min_temperature` (TMIN, °F).
    pub tmin: String,
    /// `average_wind_speed` (AWND, mph).
    pub awnd: String,
}

/// Weather by day number since 1970-01-01, from `first_day`; days missing in the
/// source are all-NULL.
pub struct WeatherTable {
    /// Day number of index 0.
    pub first_day: i64,
    /// One entry per day.
    pub days: Vec<Weather>,
}

impl WeatherTable {
    /// The weather of day `day` (all NULL outside the table).
    pub fn get(&self, day: i64) -> Option<&Weather> {
        usize::try_from(day - self.first_day)
            .ok()
            .and_then(|i| self.days.get(i))
    }
}

fn day_number(date: &str) -> Result<i64> {
    let p: Vec<&str> = date.split('-').collect();
    let [y, m, d] = p.as_slice() else {
        bail!("bad date {date:?}");
    };
    let (y, m, d): (i64, i64, i64) = (y.parse()?, m.parse()?, d.parse()?);
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    Ok(era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468)
}

/// Parses the compiled-in weather table.
pub fn weather() -> Result<WeatherTable> {
    let first_day = day_number("2009-01-01")?;
    let mut days: Vec<Weather> = Vec::new();
    for line in WEATHER.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let [date, awnd, prcp, snow, snwd, tmax, tmin] = f.as_slice() else {
            bail!("weather line {line:?}");
        };
        let i = usize::try_from(day_number(date)? - first_day).context("weather date")?;
        if days.len() <= i {
            days.resize(i + 1, Weather::default());
        }
        days[i] = Weather {
            prcp: (*prcp).into(),
            snwd: (*snwd).into(),
            snow: (*snow).into(),
            tmax: (*tmax).into(),
            tmin: (*tmin).into(),
            awnd: (*awnd).into(),
        };
    }
    Ok(WeatherTable { first_day, days })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_tables_parse() {
        let t = tracts().unwrap();
        assert_eq!(t.tracts.len(), 2166);
        let ntas: std::collections::HashSet<&str> =
            t.tracts.iter().map(|x| x.ntaname.as_str()).collect();
        let pumas: std::collections::HashSet<&str> =
            t.tracts.iter().map(|x| x.puma.as_str()).collect();
        assert_eq!(ntas.len(), 195);
        assert_eq!(pumas.len(), 55);
        let w = weather().unwrap();
        assert_eq!(w.first_day, 14_245);
        let d = w.get(day_number("2013-08-01").unwrap()).unwrap();
        assert_eq!(
            (d.awnd.as_str(), d.prcp.as_str(), d.tmax.as_str()),
            ("2.91", "0.65", "76")
        );
    }
}
