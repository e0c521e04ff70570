#!/usr/bin/env python3
"""Statistics of a generated ClickBench `hits` Parquet file, next to the published
figures of the real 99,997,497-row table (shared/research/hits-dataset.md), and the
row counts of the 43 ClickBench queries run by DuckDB over it.

Usage:
    pip install duckdb
    python3 bench/scripts/check_hits.py FILE.parquet [--queries PATH] [--no-queries]

The file is read the way ClickBench's DuckDB-over-Parquet setup reads hits.parquet:
strings with binary_as_string, EventTime (and the other timestamps) converted from
Unix seconds, EventDate from days since 1970-01-01.
"""

import argparse
import os
import sys
import time

import duckdb

REAL_ROWS = 99_997_497
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_QUERIES = os.path.normpath(
    os.path.join(HERE, "..", "..", "..", "shared", "clickbench", "queries-duckdb.sql")
)


def per_row(x):
    return x / REAL_ROWS


# (label, SQL giving one number, published value per row or absolute, kind)
# kind: "ratio" = compare against the published count divided by the real row count,
#       "abs"   = compare as is.
STATS = [
    ("rows", "SELECT COUNT(*) FROM hits", None, "abs"),
    ("WatchID distinct / rows", "SELECT COUNT(DISTINCT WatchID) / COUNT(*) FROM hits", per_row(99_997_493), "abs"),
    ("UserID distinct / rows", "SELECT COUNT(DISTINCT UserID) / COUNT(*) FROM hits", per_row(17_630_976), "abs"),
    ("top UserID share", "SELECT MAX(c) / (SELECT COUNT(*) FROM hits) FROM (SELECT COUNT(*) c FROM hits GROUP BY UserID)", per_row(29_097), "abs"),
    ("UserID 435090932899640449 rows", "SELECT COUNT(*) FROM hits WHERE UserID = 435090932899640449", 4, "abs"),
    ("AVG(UserID)", "SELECT AVG(UserID) FROM hits", 2.528953e18, "abs"),
    ("(RegionID, UserID) / UserID", "SELECT (SELECT COUNT(*) FROM (SELECT DISTINCT RegionID, UserID FROM hits)) / COUNT(DISTINCT UserID) FROM hits", 17_996_642 / 17_630_976, "abs"),
    ("ClientIP distinct / rows", "SELECT COUNT(DISTINCT ClientIP) / COUNT(*) FROM hits", per_row(9_762_046), "abs"),
    ("top ClientIP share", "SELECT MAX(c) / (SELECT COUNT(*) FROM hits) FROM (SELECT COUNT(*) c FROM hits GROUP BY ClientIP)", per_row(47_008), "abs"),
    ("CounterID distinct", "SELECT COUNT(DISTINCT CounterID) FROM hits", 6_506, "abs"),
    ("top CounterID share (URL<>'')", "SELECT MAX(c) / (SELECT COUNT(*) FROM hits) FROM (SELECT COUNT(*) c FROM hits WHERE URL <> '' GROUP BY CounterID)", per_row(8_527_069), "abs"),
    ("CounterID 199550 share (URL<>'')", "SELECT COUNT(*) / (SELECT COUNT(*) FROM hits) FROM hits WHERE CounterID = 199550 AND URL <> ''", per_row(7_115_413), "abs"),
    ("CounterID 62 share (URL<>'')", "SELECT COUNT(*) / (SELECT COUNT(*) FROM hits) FROM hits WHERE CounterID = 62 AND URL <> ''", per_row(738_150), "abs"),
    ("RegionID 229 share", "SELECT COUNT(*) / (SELECT COUNT(*) FROM hits) FROM hits WHERE RegionID = 229", per_row(18_295_832), "abs"),
    ("RegionID distinct", "SELECT COUNT(DISTINCT RegionID) FROM hits", None, "abs"),
    ("URL distinct / rows", "SELECT COUNT(DISTINCT URL) / COUNT(*) FROM hits", per_row(18_342_019), "abs"),
    ("URL empty share", "SELECT AVG((URL = '')::INT) FROM hits", per_row(67_763), "abs"),
    ("URL avg bytes", "SELECT AVG(STRLEN(URL)) FROM hits", 87.9, "abs"),
    ("top URL share", "SELECT MAX(c) / (SELECT COUNT(*) FROM hits) FROM (SELECT COUNT(*) c FROM hits GROUP BY URL)", per_row(3_288_173), "abs"),
    ("URL LIKE '%google%' share", "SELECT AVG((URL LIKE '%google%')::INT) FROM hits", per_row(15_911), "abs"),
    ("URL with newline share", "SELECT AVG((URL LIKE '%' || chr(10) || '%')::INT) FROM hits", per_row(3_740), "abs"),
    ("Title distinct / rows", "SELECT COUNT(DISTINCT Title) / COUNT(*) FROM hits", per_row(9_425_424), "abs"),
    ("Title empty share", "SELECT AVG((Title = '')::INT) FROM hits", per_row(14_910_417), "abs"),
    ("Title avg bytes", "SELECT AVG(STRLEN(Title)) FROM hits", 56.7, "abs"),
    ("Title LIKE '%Google%' share", "SELECT AVG((Title LIKE '%Google%')::INT) FROM hits", None, "abs"),
    ("Referer distinct / rows", "SELECT COUNT(DISTINCT Referer) / COUNT(*) FROM hits", per_row(19_720_797), "abs"),
    ("Referer empty share", "SELECT AVG((Referer = '')::INT) FROM hits", per_row(18_964_761), "abs"),
    ("Referer avg bytes", "SELECT AVG(STRLEN(Referer)) FROM hits", 63.4, "abs"),
    ("OriginalURL distinct / rows", "SELECT COUNT(DISTINCT OriginalURL) / COUNT(*) FROM hits", per_row(8_510_123), "abs"),
    ("OriginalURL empty share", "SELECT AVG((OriginalURL = '')::INT) FROM hits", per_row(82_975_640), "abs"),
    ("OriginalURL avg bytes", "SELECT AVG(STRLEN(OriginalURL)) FROM hits", 53.1, "abs"),
    ("SearchPhrase distinct / rows", "SELECT COUNT(DISTINCT SearchPhrase) / COUNT(*) FROM hits", per_row(6_019_103), "abs"),
    ("SearchPhrase empty share", "SELECT AVG((SearchPhrase = '')::INT) FROM hits", per_row(86_825_105), "abs"),
    ("SearchPhrase avg bytes", "SELECT AVG(STRLEN(SearchPhrase)) FROM hits", 4.1, "abs"),
    ("top SearchPhrase share", "SELECT MAX(c) / (SELECT COUNT(*) FROM hits) FROM (SELECT COUNT(*) c FROM hits WHERE SearchPhrase <> '' GROUP BY SearchPhrase)", per_row(70_263), "abs"),
    ("(SearchEngineID, SearchPhrase) / phrases", "SELECT (SELECT COUNT(*) FROM (SELECT DISTINCT SearchEngineID, SearchPhrase FROM hits WHERE SearchPhrase <> '')) / COUNT(DISTINCT SearchPhrase) FROM hits WHERE SearchPhrase <> ''", 6_474_212 / 6_019_102, "abs"),
    ("AdvEngineID <> 0 share", "SELECT AVG((AdvEngineID <> 0)::INT) FROM hits", per_row(630_500), "abs"),
    ("AdvEngineID distinct non-zero", "SELECT COUNT(DISTINCT AdvEngineID) FROM hits WHERE AdvEngineID <> 0", 18, "abs"),
    ("MobilePhoneModel <> '' share", "SELECT AVG((MobilePhoneModel <> '')::INT) FROM hits", 0.03, "abs"),
    ("AVG(ResolutionWidth)", "SELECT AVG(ResolutionWidth) FROM hits", 1513.488, "abs"),
    ("EventTime distinct / rows", "SELECT COUNT(DISTINCT EventTime) / COUNT(*) FROM hits", per_row(1_432_857), "abs"),
    ("EventTime min (unix)", "SELECT MIN(epoch(EventTime)) FROM hits", 1372708800, "abs"),
    ("EventTime max (unix)", "SELECT MAX(epoch(EventTime)) FROM hits", 1375300799, "abs"),
    ("EventDate distinct", "SELECT COUNT(DISTINCT EventDate) FROM hits", 30, "abs"),
    ("EventDate <> UTC+4 date of EventTime", "SELECT COUNT(*) FROM hits WHERE EventDate <> CAST(EventTime + INTERVAL 4 HOUR AS DATE)", 0, "abs"),
    ("max |LocalEventTime - EventTime| s", "SELECT MAX(ABS(epoch(LocalEventTime) - epoch(EventTime))) FROM hits", 172_508, "abs"),
    ("IsRefresh share", "SELECT AVG(IsRefresh) FROM hits", None, "abs"),
    ("IsLink share", "SELECT AVG(IsLink) FROM hits", None, "abs"),
]


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, (int,)) or (isinstance(v, float) and v.is_integer() and abs(v) >= 100):
        return f"{int(v):,}"
    if isinstance(v, float):
        if v != 0 and (abs(v) < 0.01 or abs(v) >= 1e6):
            return f"{v:.3e}"
        return f"{v:.4f}"
    return str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--queries", default=DEFAULT_QUERIES)
    ap.add_argument("--no-queries", action="store_true")
    ap.add_argument("--no-stats", action="store_true")
    args = ap.parse_args()

    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    path = args.file.replace("'", "''")
    con.execute(
        f"""CREATE VIEW hits AS SELECT * REPLACE (
                epoch_ms(EventTime * 1000) AS EventTime,
                epoch_ms(ClientEventTime * 1000) AS ClientEventTime,
                epoch_ms(LocalEventTime * 1000) AS LocalEventTime,
                DATE '1970-01-01' + CAST(EventDate AS INTEGER) AS EventDate)
            FROM read_parquet('{path}', binary_as_string = true)"""
    )

    if not args.no_stats:
        print(f"| statistic | generated | real (per row, or absolute) |")
        print(f"|---|---|---|")
        for label, sql, real, _ in STATS:
            v = con.execute(sql).fetchone()[0]
            if isinstance(v, (int, float)) is False and v is not None:
                v = float(v)
            print(f"| {label} | {fmt(v)} | {fmt(real)} |", flush=True)

    if not args.no_queries:
        with open(args.queries) as f:
            queries = [q.strip() for q in f if q.strip()]
        print()
        print("| Q | rows | seconds | first row |")
        print("|---|---|---|---|")
        empty = []
        for i, q in enumerate(queries, 1):
            t = time.time()
            rows = con.execute(q).fetchall()
            dt = time.time() - t
            first = "" if not rows else repr(rows[0])
            if len(first) > 90:
                first = first[:87] + "..."
            first = first.replace("|", "\\|").replace("\n", "\\n")
            if not rows:
                empty.append(i)
            print(f"| {i} | {len(rows)} | {dt:.2f} | {first} |", flush=True)
        print()
        print("empty queries:", ", ".join(f"Q{i}" for i in empty) if empty else "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
