//! The statistical model behind `gen hits`: counters (sites), users, regions, days.
//!
//! The numbers come from `shared/research/hits-dataset.md` (published facts about the
//! 99,997,497-row table). Pool sizes scale with the requested row count so that
//! distinct counts stay in proportion to N; the heaviest values (top counters, top
//! users, top regions) have fixed row shares.

use super::rng::{cumulative, hash2, hash3, mix64, DetRng, PowerLaw, Zipf};

/// Days since 1970-01-01 of 2013-07-01.
pub const JULY_1: u16 = 15887;
/// Seconds the dates are ahead of UTC (Moscow time in 2013, UTC+4).
pub const TZ_SHIFT: i64 = 4 * 3600;
/// First valid EventTime (2013-07-02 00:00:00 UTC+4).
pub const MIN_TIME: i64 = 1_372_708_800;
/// Last valid EventTime (2013-07-31 23:59:59 UTC+4).
pub const MAX_TIME: i64 = 1_375_300_799;

/// The counter that ClickBench Q37–Q43 filter on.
pub const COUNTER_62: u32 = 62;
/// Day of month that holds all of counter 62's rows.
pub const COUNTER_62_DAY: u16 = 15;
/// `URLHash` of counter 62's main page (ClickBench Q42).
pub const URL_HASH_62: i64 = 2_868_770_270_353_813_622;
/// `RefererHash` of visits to counter 62 coming from its main page (ClickBench Q41).
pub const REFERER_HASH_62: i64 = 3_594_120_000_172_545_465;
/// The user ClickBench Q20 looks up.
pub const PLANTED_USER: i64 = 435_090_932_899_640_449;
/// `URLHash` of the empty URL in the real data.
pub const EMPTY_URL_HASH: i64 = -8_417_682_003_818_480_435;
/// `RefererHash` of the empty Referer in the real data.
pub const EMPTY_REFERER_HASH: i64 = -296_158_784_638_538_920;

/// Days of July 2013 that hold almost all rows (a 1% sample of the real table sees 17
/// of the 30 dates), with relative weights. The 15th, the day of the file's first rows
/// and of counter 62, is the heaviest.
const MAIN_DAYS: &[(u16, f64)] = &[
    (2, 1.0),
    (3, 1.0),
    (4, 1.0),
    (5, 0.9),
    (8, 1.0),
    (9, 1.0),
    (10, 1.0),
    (11, 1.0),
    (12, 0.9),
    (15, 2.0),
    (16, 1.0),
    (17, 1.0),
    (18, 1.0),
    (19, 0.9),
    (22, 1.0),
    (23, 1.0),
    (31, 0.8),
];
/// The other 13 days appear with a tiny share.
const MINOR_DAYS: &[u16] = &[6, 7, 13, 14, 20, 21, 24, 25, 26, 27, 28, 29, 30];
/// Probability that a visit falls on a minor day.
const MINOR_DAY_SHARE: f64 = 2e-5;

/// Visits by hour of day (UTC+4), relative.
pub const HOUR_WEIGHTS: [f64; 24] = [
    2.2, 1.4, 0.9, 0.6, 0.5, 0.6, 1.0, 1.9, 3.2, 4.3, 4.9, 5.2, 5.3, 5.3, 5.2, 5.1, 5.0, 5.0, 5.0,
    5.1, 5.4, 5.5, 4.6, 3.3,
];

/// The large counters: (CounterID, share of rows, share of its rows on its main page).
/// Shares of the first seven are the real ones; counter 62 is boosted from 0.74% so
/// that ClickBench Q37–Q43 have non-empty answers at 10M rows.
const TOP_COUNTERS: &[(u32, f64, f64)] = &[
    (3922, 0.0853, 0.386),
    (199_550, 0.0712, 0.229),
    (122_612, 0.0357, 0.222),
    (233_773, 0.0294, 0.198),
    (245_438, 0.0251, 0.205),
    (COUNTER_62, 0.0150, 0.200),
    (256_004, 0.0086, 0.10),
    (186_300, 0.0080, 0.10),
];
/// Counters after the top ones with explicit shares (the real table has at least 25
/// counters above 0.1% of rows).
const MID_COUNTERS: usize = 30;
/// Counters in the Zipf tail (6,506 distinct counters in the real table).
const TAIL_COUNTERS: u64 = 6_460;
/// Pages in a counter's pool per row of that counter.
const PAGE_POOL: f64 = 0.058;
/// Zipf exponent of the counter tail.
const TAIL_COUNTER_S: f64 = 1.15;

/// Real top users (UserID, rows per 99,997,497 rows); the first is real, the others
/// are invented ids with the real row counts.
const TOP_USERS: &[(i64, f64)] = &[
    (1_313_338_681_122_956_954, 29_097.0),
    (3_714_843_517_822_510_735, 25_333.0),
    (-2_461_439_046_089_301_801, 10_597.0),
    (7_418_527_520_126_366_595, 7_584.0),
    (519_640_690_937_130_534, 6_678.0),
    (427_738_049_800_818_189, 6_411.0),
    (376_160_620_089_546_609, 6_197.0),
    (4_894_690_465_724_379_622, 6_019.0),
    (6_864_353_419_233_967_042, 5_211.0),
    (2_330_620_493_870_673_240, 4_906.0),
];
const REAL_ROWS: f64 = 99_997_497.0;
/// Phrase keys below this are `text::TOP_PHRASES`.
const TOP_PHRASE_KEYS: u64 = 16;
/// The real top IP, shared by the first and third top users (as their row counts
/// suggest: 29,097 + 10,597 of its 47,008 rows).
const TOP_IP: i32 = -39_921_974;
/// Active users after the top ones (robots, heavy readers): a fixed-size Zipf tier
/// with a fixed share of rows, so their row counts grow with N like the real top
/// users'. The 11th real user has ~4,900 rows per 100M.
const ACTIVE_USERS: u64 = 20_000;
const ACTIVE_USER_SHARE: f64 = 0.013;
const ACTIVE_USER_S: f64 = 0.5;
/// The body of users: a scale-free power law over `USER_POOL * N` ids, calibrated so
/// that distinct users ≈ 0.176 N (17.6M per 100M rows).
const USER_POOL: f64 = 0.8;
const USER_X0: f64 = 0.05;
const USER_S: f64 = 1.6;

/// Top regions by rows (RegionID, share); the rest is a Zipf tail.
const TOP_REGIONS: &[(i32, f64)] = &[
    (229, 0.1830),
    (2, 0.0669),
    (208, 0.0426),
    (169, 0.0332),
    (32, 0.0184),
    (34, 0.0179),
    (184, 0.0176),
    (42, 0.0154),
    (107, 0.0152),
    (51, 0.0144),
];
const TAIL_REGIONS: u64 = 3_000;

/// Non-zero AdvEngineID values and their real row counts.
pub const ADV_ENGINES: &[(i16, f64)] = &[
    (2, 404_602.0),
    (27, 113_167.0),
    (13, 45_631.0),
    (45, 38_960.0),
    (44, 9_730.0),
    (3, 6_896.0),
    (62, 5_266.0),
    (52, 3_554.0),
    (50, 938.0),
    (28, 836.0),
    (53, 350.0),
    (25, 343.0),
    (61, 158.0),
    (21, 38.0),
    (42, 20.0),
    (16, 7.0),
    (7, 3.0),
    (22, 1.0),
];

/// Screen resolutions (width, height, weight); the weighted mean width is ~1513 like
/// the real AVG(ResolutionWidth).
pub const RESOLUTIONS: &[(i16, i16, f64)] = &[
    (1920, 1080, 22.0),
    (1366, 768, 22.0),
    (1280, 1024, 10.0),
    (1600, 900, 7.0),
    (1440, 900, 6.0),
    (1680, 1050, 6.0),
    (1280, 800, 5.0),
    (1024, 768, 5.0),
    (1360, 768, 3.0),
    (2560, 1440, 2.0),
    (1920, 1200, 3.0),
    (1536, 864, 2.0),
    (1280, 720, 1.5),
    (2048, 1536, 1.0),
    (1024, 600, 1.0),
    (800, 600, 0.5),
    (320, 480, 0.5),
    (0, 0, 1.0),
];

/// Per-counter facts.
#[derive(Clone, Debug)]
pub struct Counter {
    /// The CounterID.
    pub id: u32,
    /// Share of its rows on the main page (page 0).
    pub home_share: f64,
    /// Zipf law over the pool.
    pub page_zipf: Zipf,
    /// Index into the main days of the day most of its visits fall on.
    pub home_day: usize,
    /// True for the large counters, whose visits spread over all main days.
    pub spread_days: bool,
}

/// Everything shared by all chunks of one run (read-only).
#[derive(Debug)]
pub struct Model {
    /// The user's seed, mixed into every hash.
    pub salt: u64,
    /// Number of rows requested.
    pub rows: u64,
    /// Emit raw invalid UTF-8 bytes where the real data has broken characters
    /// (default: U+FFFD, as the published Parquet file holds them).
    pub invalid_utf8: bool,
    top_counters_cum: Vec<f64>,
    top_total: f64,
    counters: Vec<Counter>,
    tail_zipf: Zipf,
    day_cum: Vec<f64>,
    /// Cumulative weights of [`HOUR_WEIGHTS`].
    pub hour_cum: Vec<f64>,
    top_user_cum: Vec<f64>,
    top_user_total: f64,
    active_users: Zipf,
    user_body: PowerLaw,
    ip_pool: u64,
    region_cum: Vec<f64>,
    region_tail: Zipf,
    /// Cumulative weights of [`ADV_ENGINES`].
    pub adv_cum: Vec<f64>,
    /// Cumulative weights of [`RESOLUTIONS`].
    pub res_cum: Vec<f64>,
    /// Pool of popular search phrases.
    pub phrase_pool: PowerLaw,
}

/// A user and the attributes that stay fixed across its visits.
#[derive(Clone, Debug)]
pub struct User {
    /// The UserID.
    pub id: i64,
    /// Hash key for per-user derived values.
    pub key: u64,
    /// Home region.
    pub region: i32,
    /// Usual client IP.
    pub ip: i32,
    /// True for the heavy (robot-like) users.
    pub heavy: bool,
}

impl Model {
    /// The model for a run of `rows` rows with seed `seed`.
    pub fn new(rows: u64, seed: u64) -> Self {
        let salt = mix64(seed ^ 0x005E_ED0F_C11C_BE4C);
        let n = rows.max(1) as f64;

        // Counters: explicit top and mid tiers, then a Zipf tail.
        let mut shares: Vec<(u32, f64, f64, bool)> = TOP_COUNTERS
            .iter()
            .map(|&(id, s, h)| (id, s, h, true))
            .collect();
        let mut used: Vec<u32> = shares.iter().map(|c| c.0).collect();
        // Ids are hashed; re-hash on a clash with an explicit counter (62 included) so
        // the explicit counters keep exactly their shares and days.
        let fresh_id = |mut h: u64, used: &[u32]| -> u32 {
            loop {
                let id = 1 + (h % 280_000) as u32;
                if !used.contains(&id) {
                    return id;
                }
                h = mix64(h);
            }
        };
        for k in 0..MID_COUNTERS {
            let id = fresh_id(hash2(salt, 0xC0_0000 + k as u64), &used);
            used.push(id);
            let share = 0.006 * 0.93f64.powi(k as i32);
            let home = 0.1 + 0.2 * (mix64(u64::from(id) ^ salt) % 100) as f64 / 100.0;
            shares.push((id, share, home, false));
        }
        let top_total: f64 = shares.iter().map(|c| c.1).sum();
        let tail_total = (1.0 - top_total).max(0.0);
        let tail_zipf = Zipf::new(TAIL_COUNTERS, TAIL_COUNTER_S);
        let h_tail: f64 = (1..=TAIL_COUNTERS)
            .map(|r| (r as f64).powf(-TAIL_COUNTER_S))
            .sum();
        let mut counters: Vec<Counter> = Vec::with_capacity(shares.len() + TAIL_COUNTERS as usize);
        let page_pool =
            |share: f64| -> u32 { (PAGE_POOL * n * share).ceil().clamp(1.0, 4e9) as u32 };
        for (i, &(id, share, home, top)) in shares.iter().enumerate() {
            counters.push(Counter {
                id,
                home_share: home,
                page_zipf: Zipf::new(u64::from(page_pool(share)), 0.85),
                home_day: (mix64(hash2(salt, u64::from(id))) % MAIN_DAYS.len() as u64) as usize,
                spread_days: top && i < TOP_COUNTERS.len(),
            });
        }
        for r in 0..TAIL_COUNTERS {
            let h = hash2(salt, 0x7A11_0000 + r);
            let id = fresh_id(h, &used);
            let share = tail_total * ((r + 1) as f64).powf(-TAIL_COUNTER_S) / h_tail;
            let pages = page_pool(share);
            counters.push(Counter {
                id,
                home_share: 0.1 + 0.25 * ((h >> 20) % 100) as f64 / 100.0,
                page_zipf: Zipf::new(u64::from(pages), 0.85),
                home_day: ((h >> 40) % MAIN_DAYS.len() as u64) as usize,
                spread_days: false,
            });
        }
        let top_weights: Vec<f64> = shares.iter().map(|c| c.1).collect();

        // Users: heavy hitters with fixed shares, then a Zipf body over a pool
        // proportional to N.
        let top_user_w: Vec<f64> = TOP_USERS.iter().map(|u| u.1 / REAL_ROWS).collect();
        let top_user_total: f64 = top_user_w.iter().sum();
        let user_pool = (USER_POOL * n).max(16.0) as u64;

        let mut region_w: Vec<f64> = TOP_REGIONS.iter().map(|r| r.1).collect();
        let region_top: f64 = region_w.iter().sum();
        region_w.push(1.0 - region_top);

        Self {
            salt,
            rows,
            invalid_utf8: false,
            top_counters_cum: cumulative(&top_weights),
            top_total,
            counters,
            tail_zipf,
            day_cum: cumulative(&MAIN_DAYS.iter().map(|d| d.1).collect::<Vec<_>>()),
            hour_cum: cumulative(&HOUR_WEIGHTS),
            top_user_cum: cumulative(&top_user_w),
            top_user_total,
            active_users: Zipf::new(ACTIVE_USERS, ACTIVE_USER_S),
            user_body: PowerLaw::new(user_pool, USER_X0, USER_S),
            ip_pool: (0.115 * n).max(8.0) as u64,
            region_cum: cumulative(&region_w),
            region_tail: Zipf::new(TAIL_REGIONS, 1.0),
            adv_cum: cumulative(&ADV_ENGINES.iter().map(|a| a.1).collect::<Vec<_>>()),
            res_cum: cumulative(&RESOLUTIONS.iter().map(|r| r.2).collect::<Vec<_>>()),
            phrase_pool: PowerLaw::new((0.02 * n).max(64.0) as u64, 0.05, 1.5),
        }
    }

    /// Draws the counter of a visit (row-share weighted).
    pub fn pick_counter(&self, rng: &mut DetRng) -> &Counter {
        let u = rng.unit();
        let idx = if u < self.top_total {
            let x = u;
            self.top_counters_cum
                .partition_point(|&c| c <= x)
                .min(self.top_counters_cum.len() - 1)
        } else {
            self.top_counters_cum.len() + self.tail_zipf.sample(rng) as usize
        };
        &self.counters[idx.min(self.counters.len() - 1)]
    }

    /// The counter with id `id`, if it is one of the explicit ones.
    #[cfg(test)]
    pub fn counter_by_id(&self, id: u32) -> Option<&Counter> {
        self.counters.iter().take(64).find(|c| c.id == id)
    }

    /// Draws the day (days since the epoch) of a visit to `counter`.
    pub fn pick_day(&self, rng: &mut DetRng, counter: &Counter) -> u16 {
        if counter.id == COUNTER_62 {
            return JULY_1 - 1 + COUNTER_62_DAY;
        }
        if rng.chance(MINOR_DAY_SHARE) {
            let d = rng.pick(MINOR_DAYS).copied().unwrap_or(15);
            return JULY_1 - 1 + d;
        }
        let idx = if counter.spread_days || rng.chance(0.15) {
            rng.pick_cum(&self.day_cum)
        } else {
            counter.home_day
        };
        JULY_1 - 1 + MAIN_DAYS.get(idx).map_or(15, |d| d.0)
    }

    /// Draws the user of a visit.
    pub fn pick_user(&self, rng: &mut DetRng) -> User {
        let u = rng.unit();
        if u < self.top_user_total {
            let i = self.top_user_cum.partition_point(|&c| c <= u);
            let i = i.min(TOP_USERS.len() - 1);
            return self.user(i as u64, Some(TOP_USERS[i].0));
        }
        if u < self.top_user_total + ACTIVE_USER_SHARE {
            return self.user(64 + self.active_users.sample(rng), None);
        }
        let rank = self.user_body.sample(rng);
        self.user(64 + ACTIVE_USERS + rank, None)
    }

    /// The planted user that ClickBench Q20 looks up.
    pub fn planted_user(&self) -> User {
        self.user(63, Some(PLANTED_USER))
    }

    fn user(&self, rank: u64, id: Option<i64>) -> User {
        let key = hash2(self.salt, 0x05E2_0000_0000 + rank);
        // 77% of ids positive: the real AVG(UserID) is ~2.53e18.
        let raw = mix64(key);
        let heavy = id.is_some() && rank < TOP_USERS.len() as u64;
        let id = id.unwrap_or_else(|| {
            let v = (raw >> 1) as i64;
            if raw % 1000 < 226 {
                -v
            } else {
                v
            }
        });
        let mut rng = DetRng::from_key(key ^ 0xA77);
        let region = {
            let i = rng.pick_cum(&self.region_cum);
            match TOP_REGIONS.get(i) {
                Some(r) => r.0,
                None => {
                    let r = self.region_tail.sample(&mut rng);
                    (1000 + mix64(r ^ 0x4E61) % 20_000) as i32
                }
            }
        };
        let ip_idx = mix64(key ^ self.salt ^ 0x1F) % self.ip_pool;
        User {
            id,
            key,
            region,
            ip: match rank {
                0 | 2 if heavy => TOP_IP,
                _ => mix64(hash2(self.salt, ip_idx)) as i32,
            },
            heavy,
        }
    }

    /// Draws a region for a visit away from home.
    pub fn travel_region(&self, rng: &mut DetRng) -> i32 {
        let r = self.region_tail.sample(rng);
        (1000 + mix64(r ^ 0x4E61) % 20_000) as i32
    }

    /// The start of `day` (days since epoch) in Unix seconds.
    pub fn day_start(day: u16) -> i64 {
        i64::from(day) * 86_400 - TZ_SHIFT
    }

    /// A popular-or-unique search phrase key (see `text::phrase`).
    pub fn pick_phrase(&self, rng: &mut DetRng) -> u64 {
        let u = rng.unit();
        // Real top phrases: карелки 0.53% of phrase rows, албатрутдин 0.26%, ...
        const TOP: [f64; 5] = [0.0053, 0.0079, 0.0098, 0.0114, 0.0129];
        if let Some(i) = TOP.iter().position(|&c| u < c) {
            return i as u64;
        }
        if u < 0.20 {
            TOP_PHRASE_KEYS + self.phrase_pool.sample(rng)
        } else {
            // Practically unique phrase.
            (1u64 << 40) | (rng.next_u64() >> 24)
        }
    }

    /// A stable hash of `(what, key)` under this run's seed.
    pub fn h(&self, what: u64, key: u64) -> u64 {
        hash3(self.salt, what, key)
    }
}

/// Decimal dates: `(year, month, day)` of a day number since the epoch.
pub use strata_engine::value::civil_from_days;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(15888), (2013, 7, 2));
        assert_eq!(civil_from_days(15917), (2013, 7, 31));
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(Model::day_start(15888), MIN_TIME);
        assert_eq!(Model::day_start(15918) - 1, MAX_TIME);
    }

    #[test]
    fn counter_shares_sum_below_one() {
        let m = Model::new(1_000_000, 1);
        assert!(m.top_total < 0.5);
        assert!(m.counter_by_id(COUNTER_62).is_some());
    }
}
