//! The 105 columns of ClickBench's `hits` table and an in-memory columnar batch.
//!
//! The column list and order follow `create-clickhouse.sql`. The storage kinds follow
//! the published `hits.parquet`: timestamps are Unix seconds in an `i64`, `EventDate`
//! is days since 1970-01-01 as a `u16`, strings are raw bytes (not necessarily UTF-8).

/// How a column is stored and rendered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// SMALLINT: `i16`.
    I16,
    /// INTEGER: `i32`.
    I32,
    /// BIGINT: `i64`.
    I64,
    /// TIMESTAMP as Unix seconds in an `i64`.
    Time,
    /// DATE as days since 1970-01-01 in a `u16`.
    Date,
    /// TEXT / CHAR as raw bytes.
    Str,
}

/// A column of byte strings: concatenated bytes plus end offsets.
#[derive(Clone, Debug, Default)]
pub struct StrCol {
    /// All values back to back.
    pub data: Vec<u8>,
    /// `ends[i]` is the end of value `i` in `data`; value `i` starts at `ends[i-1]`.
    pub ends: Vec<u32>,
}

impl StrCol {
    /// An empty column with room for `rows` values of about `avg` bytes.
    pub fn with_capacity(rows: usize, avg: usize) -> Self {
        Self {
            data: Vec::with_capacity(rows * avg),
            ends: Vec::with_capacity(rows),
        }
    }

    /// Appends a value.
    #[inline]
    pub fn push(&mut self, v: &[u8]) {
        self.data.extend_from_slice(v);
        self.seal();
    }

    /// Ends the value being built directly in `data` (see [`StrCol::data`]).
    #[inline]
    pub fn seal(&mut self) {
        self.ends.push(self.data.len() as u32);
    }

    /// The bytes of the value being built (since the last [`StrCol::seal`]).
    #[inline]
    pub fn open_value(&self) -> &[u8] {
        let start = self.ends.last().copied().unwrap_or(0) as usize;
        &self.data[start..]
    }

    /// The byte range of value `i`.
    #[inline]
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        start..self.ends[i] as usize
    }

    /// Value `i`.
    #[inline]
    pub fn get(&self, i: usize) -> &[u8] {
        &self.data[self.range(i)]
    }
}

/// A borrowed view of one column of a [`HitsBatch`].
#[derive(Clone, Copy, Debug)]
pub enum ColRef<'a> {
    /// SMALLINT values.
    I16(&'a [i16]),
    /// INTEGER values.
    I32(&'a [i32]),
    /// BIGINT values.
    I64(&'a [i64]),
    /// Unix seconds.
    Time(&'a [i64]),
    /// Days since the epoch.
    Date(&'a [u16]),
    /// Byte strings.
    Str(&'a StrCol),
}

macro_rules! col_ty {
    (I16) => { Vec<i16> };
    (I32) => { Vec<i32> };
    (I64) => { Vec<i64> };
    (Time) => { Vec<i64> };
    (Date) => { Vec<u16> };
    (Str) => { StrCol };
}

macro_rules! col_new {
    (Str, $n:expr) => {
        StrCol::with_capacity($n, 8)
    };
    ($k:ident, $n:expr) => {
        Vec::with_capacity($n)
    };
}

macro_rules! col_ref {
    (I16, $v:expr) => {
        ColRef::I16(&$v)
    };
    (I32, $v:expr) => {
        ColRef::I32(&$v)
    };
    (I64, $v:expr) => {
        ColRef::I64(&$v)
    };
    (Time, $v:expr) => {
        ColRef::Time(&$v)
    };
    (Date, $v:expr) => {
        ColRef::Date(&$v)
    };
    (Str, $v:expr) => {
        ColRef::Str(&$v)
    };
}

macro_rules! hits_schema {
    ($($name:ident : $kind:ident),* $(,)?) => {
        /// Column names and kinds, in table order.
        pub const COLUMNS: &[(&str, Kind)] = &[$((stringify!($name), Kind::$kind)),*];

        /// One chunk of generated rows, stored column by column. Field names are the
        /// ClickBench column names.
        #[allow(non_snake_case, missing_docs)]
        #[derive(Debug)]
        pub struct HitsBatch {
            $(pub $name: col_ty!($kind),)*
        }

        impl HitsBatch {
            /// An empty batch with room for `rows` rows.
            pub fn with_capacity(rows: usize) -> Self {
                Self { $($name: col_new!($kind, rows),)* }
            }

            /// Views of all columns, in table order.
            pub fn columns(&self) -> Vec<ColRef<'_>> {
                vec![$(col_ref!($kind, self.$name)),*]
            }
        }
    };
}

hits_schema! {
    WatchID: I64,
    JavaEnable: I16,
    Title: Str,
    GoodEvent: I16,
    EventTime: Time,
    EventDate: Date,
    CounterID: I32,
    ClientIP: I32,
    RegionID: I32,
    UserID: I64,
    CounterClass: I16,
    OS: I16,
    UserAgent: I16,
    URL: Str,
    Referer: Str,
    IsRefresh: I16,
    RefererCategoryID: I16,
    RefererRegionID: I32,
    URLCategoryID: I16,
    URLRegionID: I32,
    ResolutionWidth: I16,
    ResolutionHeight: I16,
    ResolutionDepth: I16,
    FlashMajor: I16,
    FlashMinor: I16,
    FlashMinor2: Str,
    NetMajor: I16,
    NetMinor: I16,
    UserAgentMajor: I16,
    UserAgentMinor: Str,
    CookieEnable: I16,
    JavascriptEnable: I16,
    IsMobile: I16,
    MobilePhone: I16,
    MobilePhoneModel: Str,
    Params: Str,
    IPNetworkID: I32,
    TraficSourceID: I16,
    SearchEngineID: I16,
    SearchPhrase: Str,
    AdvEngineID: I16,
    IsArtifical: I16,
    WindowClientWidth: I16,
    WindowClientHeight: I16,
    ClientTimeZone: I16,
    ClientEventTime: Time,
    SilverlightVersion1: I16,
    SilverlightVersion2: I16,
    SilverlightVersion3: I32,
    SilverlightVersion4: I16,
    PageCharset: Str,
    CodeVersion: I32,
    IsLink: I16,
    IsDownload: I16,
    IsNotBounce: I16,
    FUniqID: I64,
    OriginalURL: Str,
    HID: I32,
    IsOldCounter: I16,
    IsEvent: I16,
    IsParameter: I16,
    DontCountHits: I16,
    WithHash: I16,
    HitColor: Str,
    LocalEventTime: Time,
    Age: I16,
    Sex: I16,
    Income: I16,
    Interests: I16,
    Robotness: I16,
    RemoteIP: I32,
    WindowName: I32,
    OpenerName: I32,
    HistoryLength: I16,
    BrowserLanguage: Str,
    BrowserCountry: Str,
    SocialNetwork: Str,
    SocialAction: Str,
    HTTPError: I16,
    SendTiming: I32,
    DNSTiming: I32,
    ConnectTiming: I32,
    ResponseStartTiming: I32,
    ResponseEndTiming: I32,
    FetchTiming: I32,
    SocialSourceNetworkID: I16,
    SocialSourcePage: Str,
    ParamPrice: I64,
    ParamOrderID: Str,
    ParamCurrency: Str,
    ParamCurrencyID: I16,
    OpenstatServiceName: Str,
    OpenstatCampaignID: Str,
    OpenstatAdID: Str,
    OpenstatSourceID: Str,
    UTMSource: Str,
    UTMMedium: Str,
    UTMCampaign: Str,
    UTMContent: Str,
    UTMTerm: Str,
    FromTag: Str,
    HasGCLID: I16,
    RefererHash: I64,
    URLHash: I64,
    CLID: I32,
}

impl HitsBatch {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.WatchID.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_matches_clickbench() {
        assert_eq!(COLUMNS.len(), 105);
        assert_eq!(COLUMNS[0].0, "WatchID");
        assert_eq!(COLUMNS[104].0, "CLID");
        assert_eq!(HitsBatch::with_capacity(0).columns().len(), 105);
    }

    #[test]
    fn str_col_round_trips() {
        let mut c = StrCol::default();
        c.push(b"ab");
        c.push(b"");
        c.data.extend_from_slice(b"xyz");
        assert_eq!(c.open_value(), b"xyz");
        c.seal();
        assert_eq!(c.ends.len(), 3);
        assert_eq!(c.get(0), b"ab");
        assert_eq!(c.get(1), b"");
        assert_eq!(c.get(2), b"xyz");
    }
}
