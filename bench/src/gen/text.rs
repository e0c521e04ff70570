//! Synthesis of the text columns: domains, URLs, titles, search phrases.
//!
//! Every function appends to an output buffer and is a pure function of its integer
//! arguments, so the same page renders identically in every chunk and thread. The
//! vocabulary is mostly Cyrillic, like the (obfuscated) Yandex.Metrica data.

use super::rng::{hash2, hash3, DetRng};

/// Cyrillic words used for titles, phrases and some URL segments.
pub const RU_WORDS: &[&str] = &[
    "смотреть",
    "онлайн",
    "бесплатно",
    "фильм",
    "фильмы",
    "сериал",
    "скачать",
    "купить",
    "цена",
    "отзывы",
    "фото",
    "видео",
    "новости",
    "погода",
    "москва",
    "москве",
    "россии",
    "работа",
    "вакансии",
    "квартиры",
    "квартиру",
    "снять",
    "продажа",
    "авто",
    "машины",
    "игры",
    "игра",
    "музыка",
    "песни",
    "слушать",
    "книги",
    "читать",
    "рецепты",
    "рецепт",
    "как",
    "сделать",
    "своими",
    "руками",
    "детей",
    "для",
    "детские",
    "женские",
    "мужские",
    "платья",
    "обувь",
    "одежда",
    "интернет",
    "магазин",
    "каталог",
    "официальный",
    "сайт",
    "форум",
    "бесплатные",
    "объявления",
    "районе",
    "цветные",
    "главная",
    "страница",
    "карта",
    "метро",
    "ремонт",
    "холодильник",
    "телефон",
    "телефоны",
    "планшет",
    "ноутбук",
    "школа",
    "учебник",
    "ответы",
    "гдз",
    "класс",
    "русский",
    "язык",
    "английский",
    "перевод",
    "словарь",
    "погоды",
    "прогноз",
    "неделю",
    "санкт",
    "петербург",
    "екатеринбург",
    "новосибирск",
    "казань",
    "самара",
    "белгород",
    "воронеж",
    "омск",
    "туры",
    "отдых",
    "турция",
    "египет",
    "горящие",
    "путевки",
    "билеты",
    "поезд",
    "самолет",
    "расписание",
    "кино",
    "афиша",
    "театр",
    "концерт",
    "знакомства",
    "сайт",
    "одноклассники",
    "вконтакте",
    "почта",
    "регистрация",
    "вход",
    "страницу",
    "мой",
    "моя",
    "мир",
    "дом",
    "сад",
    "огород",
    "дача",
    "баня",
    "строительство",
    "дизайн",
    "интерьер",
    "мебель",
    "кухни",
    "шкаф",
    "диван",
    "кровать",
    "свадьба",
    "платье",
    "подарки",
    "праздник",
    "день",
    "рождения",
    "поздравления",
    "стихи",
    "картинки",
    "прикольные",
    "смешные",
    "анекдоты",
    "приколы",
    "гороскоп",
    "сонник",
    "значение",
    "имени",
    "лечение",
    "симптомы",
    "болезни",
    "врач",
    "больница",
    "аптека",
    "таблетки",
    "диета",
    "похудеть",
    "быстро",
    "упражнения",
    "спорт",
    "футбол",
    "хоккей",
    "чемпионат",
    "результаты",
    "матч",
    "трансляция",
    "прямая",
    "серия",
    "сезон",
    "все",
    "серии",
    "подряд",
    "новые",
    "лучшие",
    "топ",
    "рейтинг",
    "обзор",
    "характеристики",
    "инструкция",
    "доставка",
    "недорого",
    "дешево",
    "оптом",
    "распродажа",
    "скидки",
    "акции",
    "кредит",
    "банк",
    "ипотека",
    "курс",
    "доллара",
    "евро",
    "валют",
    "банки",
    "вклады",
    "бухгалтерия",
    "налоги",
    "закон",
    "кодекс",
    "статья",
    "право",
];

/// Latin path segments.
pub const EN_SEGMENTS: &[&str] = &[
    "index", "news", "catalog", "page", "item", "product", "products", "search", "forum", "topic",
    "thread", "view", "show", "list", "category", "cat", "tag", "tags", "user", "users", "profile",
    "photo", "photos", "video", "videos", "music", "film", "films", "serial", "online", "watch",
    "download", "files", "file", "doc", "docs", "article", "articles", "blog", "post", "posts",
    "comments", "reviews", "shop", "cart", "order", "russia", "moscow", "region", "city", "auto",
    "cars", "realty", "flat", "rent", "sale", "jobs", "vacancy", "resume", "games", "game", "play",
    "app", "apps", "mobile", "m", "main", "home", "about", "contacts", "help", "faq", "rules",
    "map", "weather", "tv", "cinema", "art", "afisha", "events", "sport", "football", "hockey",
    "kids", "women", "men", "fashion", "beauty", "health", "food", "recipes", "travel", "tours",
    "hotels",
];

/// Syllables for synthetic domain names.
const SYLLABLES: &[&str] = &[
    "ka", "ro", "mi", "na", "to", "li", "ve", "sa", "po", "de", "bo", "ni", "go", "ra", "me", "lo",
    "ta", "vi", "ko", "za", "pe", "du", "mo", "ri", "an", "el", "or", "in", "ex", "on", "pro",
    "net", "web", "info", "max", "star", "city", "club", "shop", "land", "market", "zone", "media",
    "soft", "land", "best", "top", "mega", "super", "avto",
];

const TLDS: &[&str] = &[
    ".ru", ".ru", ".ru", ".ru", ".ru", ".ru", ".com", ".com", ".net", ".ua", ".org", ".su",
    ".info", ".by", ".kz", ".рф",
];

/// The most frequent search phrases of the real data, in order.
pub const TOP_PHRASES: &[&str] = &[
    "карелки",
    "албатрутдин",
    "смотреть онлайн",
    "смотреть онлайн бесплатно",
    "смотреть",
    "мангу в хорошем качестве",
    "экзоидные",
    "в контакте",
    "сериал",
    "ведомосквы",
    "фильмы",
    "игры",
    "одноклассники",
    "погода",
];

/// Mobile phone models; `MOBILE_MODELS[0]` (`iPad`) dominates as in the real data.
pub const MOBILE_MODELS: &[(&str, i16, f64)] = &[
    ("iPad", 1, 60.0),
    ("iPad", 5, 3.0),
    ("iPad", 6, 2.0),
    ("iPad", 7, 2.0),
    ("iPhone", 2, 6.0),
    ("A500", 118, 2.0),
    ("N8-00", 38, 0.8),
    ("iPho", 2, 0.5),
    ("ONE TOUCH 6030A", 72, 0.4),
    ("GT-I9300", 44, 0.6),
    ("GT-N7100", 44, 0.4),
    ("Lumia 920", 25, 0.3),
    ("HTC Sensation", 31, 0.2),
    ("MB526", 12, 0.2),
    ("Galaxy Tab 2", 44, 0.4),
];

/// Appends a word list joined by `sep` of `n` words drawn by `rng`.
fn words(out: &mut Vec<u8>, rng: &mut DetRng, n: usize, sep: &[u8]) {
    for i in 0..n {
        if i > 0 {
            out.extend_from_slice(sep);
        }
        if let Some(w) = rng.pick(RU_WORDS) {
            out.extend_from_slice(w.as_bytes());
        }
    }
}

/// Cyrillic syllables for the made-up words of the obfuscated data ("карелки",
/// "албатрутдин"): they keep long-tail phrases and titles distinct at any scale.
const RU_SYLLABLES: &[&str] = &[
    "ка", "ро", "ми", "на", "то", "ли", "ве", "са", "по", "де", "бо", "ни", "го", "ра", "ме", "ло",
    "та", "ви", "ко", "за", "пе", "ду", "мо", "ри", "ан", "ел", "ор", "ин", "ус", "ат", "ки", "лы",
    "жа", "ше", "чу", "ба", "ту", "зи", "ре", "ку", "ст", "пр", "тр", "бр", "ал", "ет", "ый", "ая",
];

/// Like [`words`], but each word is made up from syllables with probability `p`.
fn mixed_words(out: &mut Vec<u8>, rng: &mut DetRng, n: usize, sep: &[u8], p: f64) {
    for i in 0..n {
        if i > 0 {
            out.extend_from_slice(sep);
        }
        if rng.chance(p) {
            for _ in 0..2 + rng.below(3) {
                if let Some(s) = rng.pick(RU_SYLLABLES) {
                    out.extend_from_slice(s.as_bytes());
                }
            }
        } else if let Some(w) = rng.pick(RU_WORDS) {
            out.extend_from_slice(w.as_bytes());
        }
    }
}

/// Appends `n` in decimal.
pub fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// Appends `n` in decimal (signed).
pub fn push_i64(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    push_u64(out, n.unsigned_abs());
}

/// Appends the domain of a synthetic site (`site` is the counter id).
pub fn domain(out: &mut Vec<u8>, salt: u64, site: u32) {
    if let Some(d) = fixed_domain(site) {
        out.extend_from_slice(d.as_bytes());
        return;
    }
    let mut rng = DetRng::from_key(hash3(salt, 0xD0, u64::from(site)));
    if rng.chance(0.12) {
        out.extend_from_slice(b"www.");
    }
    let n = 2 + rng.below(2) as usize;
    for _ in 0..n {
        if let Some(s) = rng.pick(SYLLABLES) {
            out.extend_from_slice(s.as_bytes());
        }
    }
    if rng.chance(0.2) {
        push_u64(out, rng.below(100));
    }
    if let Some(t) = rng.pick(TLDS) {
        out.extend_from_slice(t.as_bytes());
    }
}

/// Domains of the large counters, after the real top URLs.
fn fixed_domain(site: u32) -> Option<&'static str> {
    Some(match site {
        3922 => "liver.ru",
        199550 => "kinopoisk.ru",
        122612 => "bdsm_po_yers",
        233773 => "video.yandex",
        245438 => "smeshariki.ru",
        256004 => "avito.ru",
        186300 => "auto.ru",
        62 => "yandex.ru",
        _ => return None,
    })
}

/// The full URL of a site's home page (page 0); for the large counters this is the
/// real top URL.
fn home_url(out: &mut Vec<u8>, salt: u64, site: u32) {
    match site {
        3922 => {
            out.extend_from_slice("http://liver.ru/belgorod/page/1006.jки/доп_приборы".as_bytes())
        }
        199550 => out.extend_from_slice(b"http://kinopoisk.ru"),
        122612 => out.extend_from_slice(b"http://bdsm_po_yers=0&with_video"),
        233773 => out.extend_from_slice(b"http://video.yandex"),
        245438 => out.extend_from_slice(b"http://smeshariki.ru/region"),
        _ => {
            out.extend_from_slice(b"http://");
            domain(out, salt, site);
            out.push(b'/');
        }
    }
}

/// Appends the URL of page `page` of site `site`; `page == 0` is the home page. A
/// non-zero `nonce` adds a (practically unique) query string, the long tail of URLs.
/// `newline` puts a literal line feed into the query string, as some real URLs have.
pub fn site_url(out: &mut Vec<u8>, salt: u64, site: u32, page: u32, nonce: u64, newline: bool) {
    if page == 0 {
        home_url(out, salt, site);
    } else {
        out.extend_from_slice(b"http://");
        domain(out, salt, site);
        let mut rng = DetRng::from_key(hash3(salt, u64::from(site), u64::from(page)));
        let segs = 2 + rng.below(3);
        for _ in 0..segs {
            out.push(b'/');
            if rng.chance(0.25) {
                words(out, &mut rng, 1, b"");
            } else if let Some(s) = rng.pick(EN_SEGMENTS) {
                out.extend_from_slice(s.as_bytes());
            }
        }
        out.push(b'/');
        match rng.below(4) {
            0 => {
                let n = 2 + rng.below(3) as usize;
                words(out, &mut rng, n, b"_");
                out.extend_from_slice(b".html");
            }
            1 => {
                push_u64(out, rng.below(10_000_000));
                out.extend_from_slice(b".html");
            }
            2 => {
                out.extend_from_slice(b"?id=");
                push_u64(out, rng.below(10_000_000));
                out.extend_from_slice(b"&page=");
                push_u64(out, rng.below(100));
            }
            _ => {
                if let Some(s) = rng.pick(EN_SEGMENTS) {
                    out.extend_from_slice(s.as_bytes());
                }
                out.push(b'-');
                push_u64(out, rng.below(100_000));
                out.push(b'/');
            }
        }
        if rng.chance(0.6) {
            out.extend_from_slice(b"?from=");
            let n = 1 + rng.below(2) as usize;
            words(out, &mut rng, n, b"+");
        }
    }
    if nonce != 0 {
        query_tail(out, nonce, newline);
    }
}

/// A long, practically unique query string keyed by `nonce` (~110 bytes).
fn query_tail(out: &mut Vec<u8>, nonce: u64, newline: bool) {
    let mut rng = DetRng::from_key(hash2(nonce, 0x7A11));
    out.extend_from_slice(if rng.chance(0.5) { b"?" } else { b"&" });
    let params = 3 + rng.below(6);
    for i in 0..params {
        if i > 0 {
            out.push(b'&');
        }
        if let Some(s) = rng.pick(EN_SEGMENTS) {
            out.extend_from_slice(s.as_bytes());
        }
        out.push(b'=');
        match rng.below(4) {
            0 => {
                let n = 1 + rng.below(3) as usize;
                words(out, &mut rng, n, b"+")
            }
            1 => {
                out.extend_from_slice(b"%D0%BA%D0%B0%D1%80%D1%82");
                push_u64(out, rng.below(100_000));
            }
            _ => push_u64(out, rng.next_u64() >> (8 + rng.below(40))),
        }
        if newline && i == 0 {
            out.push(b'\n');
        }
    }
    out.extend_from_slice(b"&rnd=");
    push_u64(out, nonce % 1_000_000_007);
}

/// A URL containing `google` (a few contain `.google.`), keyed by `nonce`.
pub fn google_url(out: &mut Vec<u8>, salt: u64, site: u32, nonce: u64) {
    let mut rng = DetRng::from_key(hash2(nonce, 0x600613));
    match rng.below(3) {
        0 => {
            out.extend_from_slice(b"http://www.google.ru/url?sa=t&rct=j&q=");
            words(out, &mut rng, 2, b"+");
            out.extend_from_slice(b"&source=web&cd=");
            push_u64(out, 1 + rng.below(20));
        }
        _ => {
            out.extend_from_slice(b"http://");
            domain(out, salt, site);
            out.extend_from_slice(b"/search/page.googleTBR%26ad%3D0%26rnd%3D");
            push_u64(out, rng.below(1_000_000));
        }
    }
    out.extend_from_slice(b"&ei=");
    push_u64(out, nonce % 1_000_000_007);
}

/// The target of an outbound link click (`IsLink = 1`), keyed by `nonce`.
pub fn link_url(out: &mut Vec<u8>, salt: u64, nonce: u64) {
    let target = (nonce % 50_000) as u32 + 300_000;
    let page = 1 + ((nonce >> 20) % 5_000_000) as u32;
    site_url(out, salt, target, page, 0, false);
}

/// The URL of a downloaded file (`IsDownload = 1`).
pub fn download_url(out: &mut Vec<u8>, salt: u64, site: u32, nonce: u64) {
    out.extend_from_slice(b"http://");
    domain(out, salt, site);
    out.extend_from_slice(b"/files/");
    push_u64(out, nonce % 10_000_000);
    let ext: &[&[u8]] = &[
        b".zip",
        b".exe",
        b".pdf",
        b".doc",
        b".rar",
        b".mp3",
        b".torrent",
    ];
    out.extend_from_slice(ext[(nonce >> 40) as usize % ext.len()]);
}

/// The title of page `page` of site `site`. Page titles end with the site name. With
/// `google`, the title mentions Google. With `raw`, titles cut by the source end in a
/// broken UTF-8 sequence; otherwise in U+FFFD.
pub fn title(out: &mut Vec<u8>, salt: u64, site: u32, page: u32, google: bool, raw: bool) {
    let mut rng = DetRng::from_key(hash3(salt ^ 0x717, u64::from(site), u64::from(page)));
    if google {
        let g: &[&str] = &[
            "Google Chrome - скачать бесплатно",
            "Google Карты",
            "Google Переводчик",
            "Поиск Google",
            "Google Play",
        ];
        if let Some(s) = rng.pick(g) {
            out.extend_from_slice(s.as_bytes());
        }
        out.extend_from_slice(" - ".as_bytes());
    }
    let n = if page == 0 {
        1 + rng.below(2) as usize
    } else {
        2 + rng.below(5) as usize
    };
    let start = out.len();
    mixed_words(out, &mut rng, n, b" ", 0.25);
    // Capitalise nothing (byte-level case changes would break UTF-8), but mix in the
    // Latin transliterations the obfuscated data has.
    if rng.chance(0.1) {
        out.extend_from_slice(b" Glavnaya gorand.");
    }
    if out.len() > start {
        out.extend_from_slice(" — ".as_bytes());
    }
    let mut srng = DetRng::from_key(hash2(salt ^ 0x51E, u64::from(site)));
    words(out, &mut srng, 1, b" ");
    if srng.chance(0.5) {
        out.extend_from_slice(b".ru");
    }
    // A few titles were cut mid-character by the source.
    if rng.chance(0.01) {
        out.extend_from_slice(if raw { b"\xd0" } else { "\u{FFFD}".as_bytes() });
    }
}

/// Appends search phrase `key`: keys below [`TOP_PHRASES`]`.len()` are the real top
/// phrases; other keys render 1–6 words (popular keys short, long-tail keys long).
pub fn phrase(out: &mut Vec<u8>, key: u64) {
    if let Some(p) = TOP_PHRASES.get(key as usize) {
        out.extend_from_slice(p.as_bytes());
        return;
    }
    let mut rng = DetRng::from_key(hash2(key, 0xF4A5E));
    if rng.chance(0.002) {
        // ClickBench Q26's first answers start with a space.
        out.push(b' ');
    }
    let n = 1 + rng.below(if key < 100_000 { 3 } else { 4 }) as usize;
    mixed_words(out, &mut rng, n, b" ", 0.4);
    if rng.chance(0.15) {
        out.push(b' ');
        push_u64(out, rng.below(2020));
    }
}

/// A search engine results URL for `phrase` (the Referer of a search visit).
pub fn search_referer(out: &mut Vec<u8>, engine: i16, phrase_key: u64) {
    let (prefix, param): (&[u8], &[u8]) = match engine {
        3 => (b"http://www.google.ru/search?", b"q="),
        4 => (b"http://go.mail.ru/search?", b"q="),
        5 => (b"http://nova.rambler.ru/search?", b"query="),
        _ => (b"http://yandex.ru/yandsearch?", b"text="),
    };
    out.extend_from_slice(prefix);
    out.extend_from_slice(param);
    let start = out.len();
    phrase(out, phrase_key);
    // Spaces as '+' like a browser would send them.
    for b in &mut out[start..] {
        if *b == b' ' {
            *b = b'+';
        }
    }
    out.extend_from_slice(b"&lr=");
    push_u64(out, 1 + phrase_key % 250);
}

/// An ad network click URL (the Referer of an ad visit).
pub fn ad_referer(out: &mut Vec<u8>, nonce: u64) {
    out.extend_from_slice(b"http://an.yandex.ru/count/");
    let mut rng = DetRng::from_key(hash2(nonce, 0xAD));
    for _ in 0..3 {
        push_u64(out, rng.next_u64());
    }
}

/// A social network page (the Referer of a social visit).
pub fn social_referer(out: &mut Vec<u8>, nonce: u64) {
    let nets: &[&[u8]] = &[
        b"http://vk.com/",
        b"http://odnoklassniki.ru/",
        b"http://facebook.com/",
        b"http://twitter.com/",
    ];
    out.extend_from_slice(nets[(nonce % nets.len() as u64) as usize]);
    out.extend_from_slice(b"feed?z=");
    push_u64(out, nonce >> 16);
}

/// The text of search phrase `key` (tests only).
#[cfg(test)]
pub fn phrase_string(key: u64) -> Vec<u8> {
    let mut v = Vec::new();
    phrase(&mut v, key);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_are_pure() {
        let mut a = Vec::new();
        let mut b = Vec::new();
        site_url(&mut a, 9, 1234, 17, 99, false);
        site_url(&mut b, 9, 1234, 17, 99, false);
        assert_eq!(a, b);
        assert!(a.starts_with(b"http://"));
        assert_eq!(phrase_string(0), "карелки".as_bytes());
    }

    #[test]
    fn numbers_format() {
        let mut v = Vec::new();
        push_i64(&mut v, -1200);
        push_u64(&mut v, 0);
        push_i64(&mut v, i64::MIN);
        assert_eq!(v, b"-12000-9223372036854775808");
    }
}
