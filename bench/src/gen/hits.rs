//! Generation of one chunk of `hits` rows.
//!
//! A chunk is built from *visits*: a visit is one user on one counter (site) on one
//! day, a few page views long, with increasing EventTime; its first hit carries the
//! traffic source (search phrase, ad, link, ...) and later hits have the previous
//! page as Referer. The hits of a chunk are then sorted by the ClickBench primary key
//! `(CounterID, EventDate, UserID, EventTime, WatchID)` and rendered into columns, so
//! the output is a sequence of sorted runs like the published files.
//!
//! A chunk is a pure function of `(seed, chunk index, chunk length)`.

use super::model::{
    Counter, Model, User, ADV_ENGINES, COUNTER_62, EMPTY_REFERER_HASH, EMPTY_URL_HASH, MAX_TIME,
    MIN_TIME, REFERER_HASH_62, RESOLUTIONS, TZ_SHIFT, URL_HASH_62,
};
use super::rng::{hash2, hash_bytes, mix64, DetRng};
use super::schema::{HitsBatch, StrCol};
use super::text::{self, MOBILE_MODELS};

/// Rows per chunk. Each chunk has its own RNG stream and is one sorted run.
pub const CHUNK_ROWS: usize = 1 << 16;

/// A page a URL or Referer points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    /// The empty string.
    Empty,
    /// Page `page` of site `site` (0 = main page); a non-zero `nonce` adds a unique
    /// query string.
    Site {
        /// CounterID of the site.
        site: u32,
        /// Page within the site.
        page: u32,
        /// Query-string key, 0 for none.
        nonce: u64,
        /// Whether the query string holds a line feed.
        newline: bool,
    },
    /// A URL containing `google`.
    Google {
        /// CounterID of the site.
        site: u32,
        /// Unique key.
        nonce: u64,
    },
    /// An outbound link target.
    Link {
        /// Unique key.
        nonce: u64,
    },
    /// A downloaded file.
    Download {
        /// CounterID of the site.
        site: u32,
        /// Unique key.
        nonce: u64,
    },
    /// A search engine results page.
    Search {
        /// SearchEngineID.
        engine: i16,
        /// Search phrase key.
        phrase: u64,
    },
    /// An ad click redirect.
    Ad {
        /// Unique key.
        nonce: u64,
    },
    /// A social network page.
    Social {
        /// Unique key.
        nonce: u64,
    },
}

impl Page {
    /// Appends the URL text of the page.
    pub fn render(&self, out: &mut Vec<u8>, salt: u64) {
        match *self {
            Page::Empty => {}
            Page::Site {
                site,
                page,
                nonce,
                newline,
            } => text::site_url(out, salt, site, page, nonce, newline),
            Page::Google { site, nonce } => text::google_url(out, salt, site, nonce),
            Page::Link { nonce } => text::link_url(out, salt, nonce),
            Page::Download { site, nonce } => text::download_url(out, salt, site, nonce),
            Page::Search { engine, phrase } => text::search_referer(out, engine, phrase),
            Page::Ad { nonce } => text::ad_referer(out, nonce),
            Page::Social { nonce } => text::social_referer(out, nonce),
        }
    }
}

/// Per-visit facts.
struct Visit<'m> {
    user: User,
    counter: &'m Counter,
    len: u16,
    source: i16,
    engine: i16,
    phrase: Option<u64>,
    adv: i16,
    region: i32,
    ip: i32,
    window: (i16, i16),
    key: u64,
    utm: bool,
    local_offset: i64,
}

/// Hit flags.
const F_REFRESH: u16 = 1;
const F_LINK: u16 = 2;
const F_DOWNLOAD: u16 = 4;
const F_DONT_COUNT: u16 = 8;
const F_NO_TITLE: u16 = 16;
const F_INTERNAL: u16 = 32;

/// One planned row, before sorting and rendering.
struct Hit {
    counter: i32,
    day: u16,
    user: i64,
    time: i64,
    watch: i64,
    visit: u32,
    k: u16,
    flags: u16,
    url: Page,
    title_page: Page,
    referer: Page,
    orig: Page,
    phrase: Option<u64>,
    seed: u64,
}

/// Probabilities per row.
const P_EMPTY_URL: f64 = 0.0007;
const P_GOOGLE_URL: f64 = 0.00016;
const P_UNIQUE_URL: f64 = 0.115;
const P_URL_NEWLINE: f64 = 0.0003;
const P_REFRESH: f64 = 0.06;
const P_LINK: f64 = 0.015;
const P_DOWNLOAD: f64 = 0.004;
const P_DONT_COUNT: f64 = 0.05;
const P_NO_TITLE: f64 = 0.149;
const P_INTERNAL_NO_REFERER: f64 = 0.12;
const P_UTM_VISIT: f64 = 0.17;
/// In a search visit, chance that a page view comes from a new search (new phrase).
const P_NEW_SEARCH: f64 = 0.55;

/// Generates chunk `chunk` (of `rows` rows) of the table described by `model`.
pub fn generate_chunk(model: &Model, chunk: u64, rows: usize) -> HitsBatch {
    let mut rng = DetRng::from_key(hash2(model.salt, chunk));
    let mut visits: Vec<Visit<'_>> = Vec::with_capacity(rows / 3 + 4);
    let mut hits: Vec<Hit> = Vec::with_capacity(rows + 64);
    while hits.len() < rows {
        let planted = chunk == 0 && visits.is_empty();
        let visit = new_visit(model, &mut rng, planted);
        plan_visit(model, &mut rng, &visit, visits.len() as u32, &mut hits);
        visits.push(visit);
    }
    hits.truncate(rows);
    hits.sort_unstable_by(|a, b| {
        (a.counter, a.day, a.user, a.time, a.watch)
            .cmp(&(b.counter, b.day, b.user, b.time, b.watch))
    });
    let mut batch = HitsBatch::with_capacity(rows);
    for hit in &hits {
        render_hit(model, &visits[hit.visit as usize], hit, &mut batch);
    }
    batch
}

fn new_visit<'m>(model: &'m Model, rng: &mut DetRng, planted: bool) -> Visit<'m> {
    let user = if planted {
        model.planted_user()
    } else {
        model.pick_user(rng)
    };
    let counter = model.pick_counter(rng);
    let len = if planted { 4 } else { visit_len(rng) };
    let (source, engine, adv) = {
        let u = rng.unit();
        if u < 0.128 {
            let e = match rng.below(100) {
                0..=59 => 2,
                60..=91 => 3,
                92..=95 => 4,
                96..=97 => 5,
                _ => 1,
            };
            (2, e, 0)
        } else if u < 0.128 + 0.0066 {
            let i = rng.pick_cum(&model.adv_cum);
            (3, 0, ADV_ENGINES.get(i).map_or(2, |a| a.0))
        } else if u < 0.47 {
            (0, 0, 0)
        } else if u < 0.87 {
            (1, 0, 0)
        } else if u < 0.91 {
            (8, 0, 0)
        } else if u < 0.94 {
            (6, 0, 0)
        } else if u < 0.97 {
            (4, 0, 0)
        } else {
            (*rng.pick(&[5i16, 7, 9, 10]).unwrap_or(&5), 0, 0)
        }
    };
    let phrase = (source == 2).then(|| model.pick_phrase(rng));
    let region = if rng.chance(0.02) {
        model.travel_region(rng)
    } else {
        user.region
    };
    let ip = if rng.chance(0.03) {
        mix64(rng.next_u64() % (model.rows / 8 + 8)) as i32
    } else {
        user.ip
    };
    let key = rng.next_u64();
    let res = RESOLUTIONS
        .get(DetRng::from_key(user.key ^ 0x2E5).pick_cum(&model.res_cum))
        .map_or((1366, 768), |r| (r.0, r.1));
    let window = if res.0 == 0 {
        (0, 0)
    } else {
        let w = res.0 - rng.below(res.0 as u64 / 3) as i16;
        let h = (res.1 - 60 - rng.below(res.1 as u64 / 3) as i16).max(0);
        (w, h)
    };
    let local_offset = if rng.chance(0.5) {
        (rng.range_i64(-3, 8)) * 3600 + rng.range_i64(-900, 900)
    } else {
        rng.range_i64(-172_000, 172_000)
    };
    Visit {
        user,
        counter,
        len,
        source,
        engine,
        phrase,
        adv,
        region,
        ip,
        window,
        key,
        utm: rng.chance(P_UTM_VISIT),
        local_offset,
    }
}

fn visit_len(rng: &mut DetRng) -> u16 {
    let u = rng.unit();
    let l = if u < 0.40 {
        1.0
    } else if u < 0.95 {
        2.0 + rng.exp(2.0)
    } else {
        2.0 + rng.exp(15.0)
    };
    l.min(200.0) as u16
}

/// Picks a page of the visit's site.
fn pick_page(model: &Model, rng: &mut DetRng, c: &Counter) -> Page {
    let u = rng.unit();
    if u < P_EMPTY_URL {
        return Page::Empty;
    }
    if u < P_EMPTY_URL + P_GOOGLE_URL {
        return Page::Google {
            site: c.id,
            nonce: rng.next_u64(),
        };
    }
    if rng.chance(c.home_share) {
        return Page::Site {
            site: c.id,
            page: 0,
            nonce: 0,
            newline: false,
        };
    }
    let page = 1 + c.page_zipf.sample(rng) as u32;
    let (nonce, newline) = if rng.chance(P_UNIQUE_URL / (1.0 - c.home_share)) {
        (rng.next_u64() | 1, rng.chance(P_URL_NEWLINE))
    } else {
        (0, false)
    };
    let _ = model;
    Page::Site {
        site: c.id,
        page,
        nonce,
        newline,
    }
}

/// The Referer of a visit's first hit.
fn entry_referer(model: &Model, rng: &mut DetRng, v: &Visit<'_>) -> Page {
    match v.source {
        2 => Page::Search {
            engine: v.engine,
            phrase: v.phrase.unwrap_or(0),
        },
        3 => Page::Ad {
            nonce: rng.next_u64(),
        },
        8 => Page::Social {
            nonce: rng.next_u64(),
        },
        0 | 4 => Page::Empty,
        _ => {
            let other = model.pick_counter(rng);
            let page = 1 + other.page_zipf.sample(rng) as u32;
            Page::Site {
                site: other.id,
                page,
                nonce: 0,
                newline: false,
            }
        }
    }
}

fn plan_visit(model: &Model, rng: &mut DetRng, v: &Visit<'_>, idx: u32, hits: &mut Vec<Hit>) {
    let c = v.counter;
    let day = model.pick_day(rng, c);
    let day_start = Model::day_start(day);
    let hour = rng.pick_cum(&model.hour_cum) as i64;
    let mut t = day_start + hour * 3600 + rng.below(3600) as i64;
    let day_end = if c.id == COUNTER_62 {
        day_start + 86_399
    } else {
        MAX_TIME
    };
    let mut cur = Page::Empty;
    let mut cur_ref = entry_referer(model, rng, v);
    let mut orig = Page::Empty;
    let mut phrase = v.phrase;
    for k in 0..v.len {
        if k > 0 {
            t += if rng.chance(0.08) {
                0
            } else {
                rng.exp(45.0) as i64 + 1
            };
        }
        let time = t.clamp(MIN_TIME, day_end);
        let mut flags = 0;
        let (url, title_page, referer);
        let navigating = k == 0 || cur == Page::Empty;
        if !navigating && rng.chance(P_REFRESH) {
            flags |= F_REFRESH;
            url = cur;
            title_page = cur;
            referer = cur_ref;
        } else if !navigating && rng.chance(P_LINK) {
            flags |= F_LINK;
            url = Page::Link {
                nonce: rng.next_u64(),
            };
            title_page = cur;
            referer = cur;
        } else if !navigating && rng.chance(P_DOWNLOAD) {
            flags |= F_DOWNLOAD;
            url = Page::Download {
                site: c.id,
                nonce: rng.next_u64(),
            };
            title_page = cur;
            referer = cur;
        } else {
            let next = pick_page(model, rng, c);
            let r = if k == 0 {
                cur_ref
            } else if phrase.is_some() && rng.chance(P_NEW_SEARCH) {
                let p = model.pick_phrase(rng);
                phrase = Some(p);
                Page::Search {
                    engine: v.engine,
                    phrase: p,
                }
            } else if rng.chance(P_INTERNAL_NO_REFERER) {
                Page::Empty
            } else {
                flags |= F_INTERNAL;
                cur
            };
            url = next;
            title_page = next;
            referer = r;
            cur = next;
            cur_ref = r;
        }
        if v.utm && (k == 0 || rng.chance(0.35)) {
            orig = url;
        }
        if rng.chance(P_DONT_COUNT) {
            flags |= F_DONT_COUNT;
        }
        if rng.chance(P_NO_TITLE) {
            flags |= F_NO_TITLE;
        }
        hits.push(Hit {
            counter: c.id as i32,
            day: ((time + TZ_SHIFT) / 86_400) as u16,
            user: v.user.id,
            time,
            watch: (rng.next_u64() >> 1) as i64,
            visit: idx,
            k,
            flags,
            url,
            title_page,
            referer,
            orig: if v.utm { orig } else { Page::Empty },
            phrase,
            seed: rng.next_u64(),
        });
    }
}

/// Small per-user attribute tables.
const OS: &[(i16, f64)] = &[
    (44, 20.0),
    (2, 15.0),
    (39, 12.0),
    (0, 5.0),
    (56, 8.0),
    (3, 6.0),
    (32, 5.0),
    (57, 4.0),
    (74, 3.0),
    (96, 3.0),
    (111, 2.0),
    (35, 2.0),
];
const USER_AGENTS: &[(i16, i16, i16)] = &[
    // (UserAgent, min major, max major)
    (7, 10, 28),
    (3, 9, 22),
    (5, 3, 9),
    (2, 6, 12),
    (6, 4, 7),
    (9, 11, 12),
    (38, 5, 6),
    (0, 0, 0),
];
// The obfuscated short strings of the real data: U+FFFD where the source had a broken
// byte (as the published files show it), or raw invalid bytes with --invalid-utf8.
const UA_MINOR: [&[&[u8]]; 2] = [
    &[
        b"D\xef\xbf\xbd",
        b"\xef\xbf\xbdO",
        b"nA",
        b"0",
        b"1",
        b"5",
        b"6",
        b"2",
        b"13",
        b"",
    ],
    &[
        b"D\xf0", b"\xf0O", b"nA", b"0", b"1", b"5", b"6", b"2", b"13", b"",
    ],
];
const LANGS: [&[&[u8]]; 2] = [
    &[
        b"\xef\xbf\xbd",
        b"S0",
        b"ru",
        b"\xef\xbf\xbd",
        b"en",
        b"uk",
        b"\xef\xbf\xbd",
    ],
    &[b"\xd1", b"S0", b"ru", b"\xd1", b"en", b"uk", b"\xd0"],
];
const COUNTRIES: [&[&[u8]]; 2] = [
    &[
        b"\xef\xbf\xbd\x0c",
        b"\xef\xbf\xbd\x0c",
        b"E\x0c",
        b"\xef\xbf\xbd\x0c",
        b"ru",
        b"\x1c",
    ],
    &[
        b"\xd1\x0c",
        b"\xce\x0c",
        b"E\x0c",
        b"\xd1\x0c",
        b"ru",
        b"\x1c",
    ],
];
const FLASH_MINOR2: &[&[u8]] = &[b"", b"", b"", b"700", b"150", b"228", b"152", b"202"];
const CHARSETS: &[&[u8]] = &[b"windows", b"utf-8", b"utf-8", b"koi8-r", b""];
const HIT_COLORS: &[&[u8]] = &[b"5", b"5", b"5", b"5", b"E", b"E", b"F", b"F", b"D", b"C"];
const CODE_VERSIONS: &[i32] = &[0, 1601, 481, 500, 1036, 800, 1412, 1594];
const TIMEZONES: &[i16] = &[
    240, 240, 240, 240, 180, 120, 300, 360, 420, 480, 540, 600, 135,
];

fn pick_weighted<T: Copy>(rng: &mut DetRng, items: &[(T, f64)]) -> Option<T> {
    let total: f64 = items.iter().map(|i| i.1).sum();
    let mut x = rng.unit() * total;
    for &(v, w) in items {
        if x < w {
            return Some(v);
        }
        x -= w;
    }
    items.last().map(|i| i.0)
}

fn pick_bytes(rng: &mut DetRng, items: &[&'static [u8]]) -> &'static [u8] {
    rng.pick(items).copied().unwrap_or(b"")
}

/// Renders one hit into `b`.
fn render_hit(model: &Model, v: &Visit<'_>, hit: &Hit, b: &mut HitsBatch) {
    let salt = model.salt;
    let raw = usize::from(model.invalid_utf8);
    let c = v.counter;
    let mut r = DetRng::from_key(hit.seed);
    let mut ur = DetRng::from_key(v.user.key ^ 0xB10);
    let mut sr = DetRng::from_key(v.key);
    let mut cr = DetRng::from_key(model.h(0xC7, u64::from(c.id)));

    let no_js = ur.chance(0.1);
    b.WatchID.push(hit.watch);
    b.JavaEnable.push(i16::from(!no_js && ur.chance(0.7)));

    // Title.
    if hit.flags & F_NO_TITLE != 0 {
        b.Title.seal();
    } else {
        match hit.title_page {
            Page::Site {
                site, page, nonce, ..
            } => {
                let google =
                    page > 0 && model.h(0x600, u64::from(site) << 32 | u64::from(page)) % 1000 < 3;
                text::title(
                    &mut b.Title.data,
                    salt,
                    site,
                    page,
                    google,
                    model.invalid_utf8,
                );
                // Half of the long-tail pages (search results, listings) carry their
                // query in the title.
                if nonce != 0 && nonce % 100 < 35 {
                    b.Title.data.extend_from_slice(" — страница ".as_bytes());
                    text::push_u64(&mut b.Title.data, (nonce >> 8) % 1_000_000);
                }
            }
            Page::Google { site, nonce } => text::title(
                &mut b.Title.data,
                salt,
                site,
                1 + (nonce % 1000) as u32,
                true,
                model.invalid_utf8,
            ),
            _ => {}
        }
        b.Title.seal();
    }
    b.GoodEvent.push(1);
    b.EventTime.push(hit.time);
    b.EventDate.push(hit.day);
    b.CounterID.push(hit.counter);
    b.ClientIP.push(v.ip);
    b.RegionID.push(v.region);
    b.UserID.push(hit.user);
    b.CounterClass.push(match cr.below(20) {
        0 => 1,
        1 => 2,
        _ => 0,
    });
    b.OS.push(pick_weighted(&mut ur, OS).unwrap_or(0));
    let ua = ur.pick(USER_AGENTS).copied().unwrap_or((0, 0, 0));
    b.UserAgent.push(ua.0);

    // URL and Referer (with their hashes).
    hit.url.render(&mut b.URL.data, salt);
    let url_hash = url_hash(b.URL.open_value(), hit.counter, &hit.url);
    b.URL.seal();
    hit.referer.render(&mut b.Referer.data, salt);
    let referer_hash = referer_hash(b.Referer.open_value(), hit, v);
    b.Referer.seal();

    b.IsRefresh.push(i16::from(hit.flags & F_REFRESH != 0));
    let (ref_cat, ref_region) = page_category(model, &hit.referer);
    b.RefererCategoryID.push(ref_cat);
    b.RefererRegionID.push(ref_region);
    let (url_cat, url_region) = page_category(model, &hit.url);
    b.URLCategoryID.push(url_cat);
    b.URLRegionID.push(url_region);

    let res = RESOLUTIONS
        .get(DetRng::from_key(v.user.key ^ 0x2E5).pick_cum(&model.res_cum))
        .map_or((1366, 768), |x| (x.0, x.1));
    b.ResolutionWidth.push(res.0);
    b.ResolutionHeight.push(res.1);
    b.ResolutionDepth.push(if res.0 == 0 {
        0
    } else {
        *ur.pick(&[24i16, 24, 32, 32, 32, 16]).unwrap_or(&24)
    });
    let flash = ur.chance(0.75);
    b.FlashMajor
        .push(if flash { 10 + ur.below(2) as i16 } else { 0 });
    b.FlashMinor
        .push(if flash { ur.below(9) as i16 } else { 0 });
    b.FlashMinor2.push(if flash {
        pick_bytes(&mut ur, FLASH_MINOR2)
    } else {
        b""
    });
    let net = ur.chance(0.2);
    b.NetMajor
        .push(if net { 2 + ur.below(3) as i16 } else { 0 });
    b.NetMinor.push(if net { ur.below(8) as i16 } else { 0 });
    b.UserAgentMajor.push(if ua.2 > 0 {
        ua.1 + ur.below((ua.2 - ua.1 + 1) as u64) as i16
    } else {
        0
    });
    b.UserAgentMinor.push(pick_bytes(&mut ur, UA_MINOR[raw]));
    b.CookieEnable.push(i16::from(ur.chance(0.95)));
    b.JavascriptEnable.push(i16::from(!no_js));

    // Mobile devices: ~3% of users.
    let mobile = if ur.chance(0.03) {
        pick_weighted(
            &mut ur,
            &MOBILE_MODELS
                .iter()
                .map(|m| ((m.0, m.1), m.2))
                .collect::<Vec<_>>(),
        )
    } else {
        None
    };
    b.IsMobile.push(i16::from(mobile.is_some()));
    b.MobilePhone.push(mobile.map_or(0, |m| m.1));
    b.MobilePhoneModel
        .push(mobile.map_or(&b""[..], |m| m.0.as_bytes()));
    let is_param = r.chance(0.01);
    if is_param {
        b.Params
            .data
            .extend_from_slice(b"{\"button\":\"buy\",\"price\":");
        text::push_u64(&mut b.Params.data, r.below(100_000));
        b.Params.data.push(b'}');
    }
    b.Params.seal();
    b.IPNetworkID.push((mix64(v.ip as u64) % 4_200_000) as i32);
    let internal = hit.flags & F_INTERNAL != 0;
    b.TraficSourceID.push(if internal { -1 } else { v.source });
    b.SearchEngineID.push(v.engine);
    if let Some(p) = hit.phrase {
        text::phrase(&mut b.SearchPhrase.data, p);
    }
    b.SearchPhrase.seal();
    b.AdvEngineID.push(v.adv);
    b.IsArtifical.push(i16::from(r.chance(0.005)));
    b.WindowClientWidth.push(v.window.0);
    b.WindowClientHeight.push(v.window.1);
    let tz = if no_js {
        -1
    } else {
        ur.pick(TIMEZONES).copied().unwrap_or(240)
    };
    b.ClientTimeZone.push(tz);
    // Client clocks: mostly right, some off by minutes to years; no-JS clients report
    // a fixed 1971 value (as in the real sample).
    let skew = match ur.below(100) {
        0..=79 => ur.range_i64(-20, 20),
        80..=94 => ur.range_i64(-7200, 7200),
        95..=98 => ur.range_i64(-3 * 86_400, 3 * 86_400),
        _ => ur.range_i64(-1_300_000_000, 700_000_000),
    };
    b.ClientEventTime.push(if no_js {
        31_587_366
    } else {
        (hit.time + skew).max(0)
    });
    let silver = ur.chance(0.2);
    b.SilverlightVersion1.push(if silver { 5 } else { 0 });
    b.SilverlightVersion2.push(if silver { 1 } else { 0 });
    b.SilverlightVersion3.push(if silver {
        20_513 + ur.below(3) as i32 * 100
    } else {
        0
    });
    b.SilverlightVersion4.push(0);
    b.PageCharset.push(pick_bytes(&mut cr, CHARSETS));
    b.CodeVersion
        .push(cr.pick(CODE_VERSIONS).copied().unwrap_or(0));
    b.IsLink.push(i16::from(hit.flags & F_LINK != 0));
    b.IsDownload.push(i16::from(hit.flags & F_DOWNLOAD != 0));
    b.IsNotBounce.push(i16::from(v.len > 1));
    b.FUniqID.push(if ur.chance(0.4) {
        (ur.next_u64() >> 1) as i64
    } else {
        0
    });
    // OriginalURL: the landing URL with its tracking parameters.
    if hit.orig != Page::Empty {
        hit.orig.render(&mut b.OriginalURL.data, salt);
        utm_tail(&mut b.OriginalURL.data, v.key);
    }
    b.OriginalURL.seal();
    b.HID.push((r.next_u64() >> 33) as i32);
    b.IsOldCounter.push(i16::from(cr.below(50) == 0));
    b.IsEvent.push(i16::from(r.chance(0.01)));
    b.IsParameter.push(i16::from(is_param));
    b.DontCountHits
        .push(i16::from(hit.flags & F_DONT_COUNT != 0));
    b.WithHash.push(i16::from(r.chance(0.03)));
    b.HitColor.push(pick_bytes(&mut r, HIT_COLORS));
    b.LocalEventTime.push(hit.time + v.local_offset);
    let known = ur.chance(0.4);
    b.Age.push(if known { 18 + ur.below(40) as i16 } else { 0 });
    b.Sex.push(if known { 1 + ur.below(2) as i16 } else { 0 });
    b.Income.push(if known { ur.below(5) as i16 } else { 0 });
    b.Interests.push(if known && ur.chance(0.5) {
        ur.below(16_384) as i16
    } else {
        0
    });
    b.Robotness.push(if v.user.heavy { 2 } else { 0 });
    b.RemoteIP.push(mix64(v.ip as u64 ^ 0x4E) as i32);
    let named = sr.chance(0.2);
    b.WindowName.push(if named {
        (sr.next_u64() >> 48) as i32
    } else {
        -1
    });
    b.OpenerName.push(if named && sr.chance(0.5) {
        (sr.next_u64() >> 48) as i32
    } else {
        -1
    });
    b.HistoryLength
        .push(if no_js { -1 } else { 1 + hit.k.min(50) as i16 });
    b.BrowserLanguage.push(pick_bytes(&mut ur, LANGS[raw]));
    b.BrowserCountry.push(pick_bytes(&mut ur, COUNTRIES[raw]));
    let social = r.chance(0.005);
    b.SocialNetwork.push(if social {
        pick_bytes(&mut r, &[b"vkontakte", b"facebook", b"twitter"])
    } else {
        b""
    });
    b.SocialAction.push(if social {
        pick_bytes(&mut r, &[b"share", b"like", b"tweet"])
    } else {
        b""
    });
    b.HTTPError.push(if r.chance(0.003) { 404 } else { 0 });
    let timed = sr.chance(0.3);
    let t = |r: &mut DetRng, hi: u64| if timed { r.below(hi) as i32 } else { 0 };
    b.SendTiming.push(t(&mut r, 100));
    b.DNSTiming.push(t(&mut r, 200));
    b.ConnectTiming.push(t(&mut r, 300));
    b.ResponseStartTiming.push(t(&mut r, 2000));
    b.ResponseEndTiming.push(t(&mut r, 3000));
    b.FetchTiming.push(t(&mut r, 500));
    let from_social = v.source == 8;
    b.SocialSourceNetworkID.push(if from_social {
        1 + (v.key % 6) as i16
    } else {
        0
    });
    if from_social && hit.k == 0 {
        hit.referer.render(&mut b.SocialSourcePage.data, salt);
    }
    b.SocialSourcePage.seal();
    let order = r.chance(0.003);
    b.ParamPrice.push(if order {
        r.below(100_000) as i64 * 100
    } else {
        0
    });
    if order {
        text::push_u64(&mut b.ParamOrderID.data, r.below(10_000_000));
    }
    b.ParamOrderID.seal();
    b.ParamCurrency.push(pick_bytes(
        &mut cr,
        &[b"NH\x1c", b"NH\x1c", b"NH\x1c", b"NH", b"RUB"],
    ));
    b.ParamCurrencyID.push(if order { 643 } else { 0 });
    let openstat = v.utm && sr.chance(0.1);
    b.OpenstatServiceName.push(if openstat {
        &b"direct.yandex.ru"[..]
    } else {
        b""
    });
    push_opt_num(&mut b.OpenstatCampaignID, openstat, sr.below(1_000_000));
    push_opt_num(&mut b.OpenstatAdID, openstat, sr.below(100_000_000));
    b.OpenstatSourceID.push(if openstat {
        pick_bytes(&mut sr, &[b"search", b"context", b"yandex.ru"])
    } else {
        b""
    });
    let utm = v.utm && sr.chance(0.6);
    b.UTMSource.push(if utm {
        pick_bytes(&mut sr, &[b"yandex", b"google", b"direct", b"vk", b"begun"])
    } else {
        b""
    });
    b.UTMMedium.push(if utm {
        pick_bytes(&mut sr, &[b"cpc", b"banner", b"email", b"cpm"])
    } else {
        b""
    });
    push_opt_num(&mut b.UTMCampaign, utm, sr.below(10_000));
    push_opt_num(
        &mut b.UTMContent,
        utm && sr.chance(0.5),
        sr.below(1_000_000),
    );
    if utm {
        if let Some(p) = hit.phrase {
            text::phrase(&mut b.UTMTerm.data, p);
        }
    }
    b.UTMTerm.seal();
    b.FromTag.push(if r.chance(0.005) {
        pick_bytes(&mut r, &[b"1", b"rss", b"main"])
    } else {
        b""
    });
    b.HasGCLID
        .push(i16::from(v.engine == 3 && v.utm && sr.chance(0.2)));
    b.RefererHash.push(referer_hash);
    b.URLHash.push(url_hash);
    b.CLID.push(if ur.chance(0.02) {
        1_900_000 + ur.below(200_000) as i32
    } else {
        0
    });
}

fn push_opt_num(col: &mut StrCol, on: bool, n: u64) {
    if on {
        text::push_u64(&mut col.data, n);
    }
    col.seal();
}

/// Appends the tracking parameters that make an OriginalURL (~300 bytes).
fn utm_tail(out: &mut Vec<u8>, key: u64) {
    let mut r = DetRng::from_key(key ^ 0x07_1A1);
    out.extend_from_slice(b"?utm_source=yandex&utm_medium=cpc&utm_campaign=");
    text::push_u64(out, r.below(100_000));
    out.extend_from_slice(b"&utm_content=");
    text::push_u64(out, r.next_u64());
    out.extend_from_slice(b"&utm_term=");
    for _ in 0..2 {
        if let Some(w) = r.pick(text::RU_WORDS) {
            for &c in w.as_bytes() {
                out.extend_from_slice(b"%");
                out.push(b"0123456789ABCDEF"[(c >> 4) as usize]);
                out.push(b"0123456789ABCDEF"[(c & 15) as usize]);
            }
        }
        out.push(b'+');
    }
    out.extend_from_slice(b"&yclid=");
    text::push_u64(out, r.next_u64());
    out.extend_from_slice(b"&_openstat=");
    text::push_u64(out, key >> 20);
}

fn url_hash(bytes: &[u8], counter: i32, page: &Page) -> i64 {
    if bytes.is_empty() {
        return EMPTY_URL_HASH;
    }
    if counter == COUNTER_62 as i32
        && matches!(
            page,
            Page::Site {
                site: COUNTER_62,
                page: 0,
                nonce: 0,
                ..
            }
        )
    {
        return URL_HASH_62;
    }
    hash_bytes(bytes) as i64
}

fn referer_hash(bytes: &[u8], hit: &Hit, v: &Visit<'_>) -> i64 {
    if hit.counter == COUNTER_62 as i32 {
        let from_home = matches!(
            hit.referer,
            Page::Site {
                site: COUNTER_62,
                page: 0,
                nonce: 0,
                ..
            }
        );
        if from_home || (v.source == 6 && hit.k == 0) {
            return REFERER_HASH_62;
        }
    }
    if bytes.is_empty() {
        return EMPTY_REFERER_HASH;
    }
    hash_bytes(bytes) as i64
}

/// URLCategoryID/RefererCategoryID and the region ids of a page's site.
fn page_category(model: &Model, page: &Page) -> (i16, i32) {
    let site = match *page {
        Page::Empty => return (0, 0),
        Page::Site { site, .. } | Page::Google { site, .. } | Page::Download { site, .. } => {
            u64::from(site)
        }
        Page::Link { nonce } => 300_000 + nonce % 50_000,
        Page::Search { engine, .. } => 1_000_000 + engine as u64,
        Page::Ad { .. } => 1_000_100,
        Page::Social { .. } => 1_000_200,
    };
    let h = model.h(0xCA7, site);
    let cat = if h % 10 < 4 {
        0
    } else {
        ((h >> 8) % 16_000) as i16
    };
    let region = match (h >> 32) % 6 {
        0 => 0,
        1 => 216,
        2 => 158,
        3 => 22,
        4 => 177,
        _ => ((h >> 40) % 250) as i32,
    };
    (cat, region)
}
