"""Writes the small Parquet fixtures in this directory.

Run from this directory with pyarrow and duckdb installed
(`pip install pyarrow duckdb`): `python make_fixtures.py`.
The values are fixed, so the tests can check them.
(`chunk_past_end.parquet`, `page_past_end.parquet`, `negative_offset.parquet`
and `dictionary_missing.parquet` are not written here: they are damaged
fixtures found by fuzzing, whose footer puts chunks, or whose page sizes put
pages, past the end of the file, gives a chunk a negative offset, or which
has a dictionary-coded page without a dictionary.)
"""

import datetime as dt
import decimal

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

ROWS = 10


def types_table():
    d = decimal.Decimal
    return pa.table(
        {
            "i8": pa.array([-128, 127, 0, 1, -1, 5, 6, 7, 8, 9], pa.int8()),
            "i16": pa.array([-32768, 32767, 0, 1, -1, 5, 6, 7, 8, 9], pa.int16()),
            "i32": pa.array([-(2**31), 2**31 - 1, 0, 1, -1, 5, 6, 7, 8, 9], pa.int32()),
            "i64": pa.array([-(2**63), 2**63 - 1, 0, 1, -1, 5, 6, 7, 8, 9], pa.int64()),
            "u8": pa.array([0, 255, 1, 2, 3, 4, 5, 6, 7, 8], pa.uint8()),
            "u16": pa.array([0, 65535, 15901, 2, 3, 4, 5, 6, 7, 8], pa.uint16()),
            "u32": pa.array([0, 2**32 - 1, 1, 2, 3, 4, 5, 6, 7, 8], pa.uint32()),
            "u64": pa.array([0, 2**64 - 1, 1, 2, 3, 4, 5, 6, 7, 8], pa.uint64()),
            "f32": pa.array([1.5, -0.25, 0.1, None, 3, 4, 5, 6, 7, 8], pa.float32()),
            "f64": pa.array([1.5, -0.25, 0.1, 1e300, None, 4, 5, 6, 7, 8], pa.float64()),
            "b": pa.array([True, False, None, True, False, True, False, True, False, True]),
            "d": pa.array(
                [dt.date(2013, 7, 15), dt.date(1970, 1, 1), dt.date(1969, 12, 31), None]
                + [dt.date(2000, 1, i + 1) for i in range(6)],
                pa.date32(),
            ),
            "ts_ms": pa.array(
                [1373834327123, -1, 0, None, 1, 2, 3, 4, 5, 6], pa.timestamp("ms")
            ),
            "ts_us": pa.array(
                [1373834327123456, -1, 0, 1, None, 2, 3, 4, 5, 6], pa.timestamp("us", tz="UTC")
            ),
            "ts_ns": pa.array(
                [1373834327123456789, -1, 0, 1, 2, None, 3, 4, 5, 6], pa.timestamp("ns")
            ),
            "dec9": pa.array(
                [d("123.45"), d("-0.01"), None, d("0"), d("1"), d("2"), d("3"), d("4"), d("5"), d("6")],
                pa.decimal128(9, 2),
            ),
            "dec18": pa.array(
                [d("12345678901234.5678"), d("-1.0001")] + [d(i) for i in range(8)],
                pa.decimal128(18, 4),
            ),
            "s": pa.array(["hello", "", None, "λ unicode", "a\nb", "tab\there", "x", "y", "z", "w"]),
            "bin": pa.array(
                [b"\xff\xfe", b"", b"plain", None, b"\x00nul", b"q", b"r", b"s", b"t", b"u"],
                pa.binary(),
            ),
            "low_card": pa.array(["red", "green", "red", "red", "blue", "red", "green", "red", "red", "red"]),
        }
    )


def main():
    t = types_table()
    for codec in ["snappy", "zstd", "lz4", "gzip", "brotli", "none"]:
        pq.write_table(
            t, f"types_{codec}.parquet", compression=codec, row_group_size=4, store_schema=False
        )
    pq.write_table(
        t, "types_plain_v2.parquet", compression="snappy", use_dictionary=False,
        data_page_version="2.0", row_group_size=3, store_schema=False,
    )
    # Legacy INT96 timestamps (Spark/Impala).
    pq.write_table(
        pa.table({"ts": pa.array([1373834327000000, 0, None], pa.timestamp("us"))}),
        "int96.parquet", use_deprecated_int96_timestamps=True,
    )
    # A nested column, which strata does not take.
    pq.write_table(
        pa.table({"id": [1, 2], "tags": pa.array([[1, 2], []], pa.list_(pa.int32()))}),
        "nested.parquet",
    )
    # The ClickBench hits.parquet layout: int64 seconds, uint16 days, binary strings.
    pq.write_table(
        pa.table(
            {
                "WatchID": pa.array([4944118417295196513, -8421854722398150000, 7], pa.int64()),
                "EventTime": pa.array([1373834327, 1373834328, 0], pa.int64()),
                "EventDate": pa.array([15901, 15901, 0], pa.uint16()),
                "CounterID": pa.array([17, 17, 20], pa.int32()),
                "IsRefresh": pa.array([0, 1, 0], pa.int16()),
                "URL": pa.array([b"http://a.ru/\xd0\x9f", b"http://b/\nnewline", b"\xff bad utf8"], pa.binary()),
                "Title": pa.array([b"", b"t", b"\xe2\x82"], pa.binary()),
            }
        ),
        "hits_layout.parquet", compression="snappy",
    )
    # DuckDB's writer: zstd, several row groups, nullable columns, decimals.
    con = duckdb.connect()
    con.execute(
        """
        COPY (
            SELECT i::INTEGER AS id,
                   CASE WHEN i % 3 = 0 THEN NULL ELSE 'name' || i END AS name,
                   (i * 1.25)::DECIMAL(10, 2) AS price,
                   (i % 100 / 10)::DECIMAL(4, 1) AS small,
                   TIMESTAMP '2013-07-15 10:00:00' + INTERVAL (i) SECOND AS ts,
                   DATE '2013-07-15' + (i % 30)::INTEGER AS day,
                   i::UBIGINT * 1000000000000 AS big
            FROM range(0, 2100) t(i)
        ) TO 'duckdb.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1024)
        """
    )
    # Strings for the dictionary-keeping page reader: see strings_table().
    t = strings_table()
    common = dict(
        row_group_size=700, data_page_size=512, store_schema=False,
        use_dictionary=["city", "word", "tag", "sparse", "num", "small"],
        dictionary_pagesize_limit=1024,
        write_batch_size=64,
    )
    pq.write_table(t, "strings_dict.parquet", compression="snappy", **common)
    pq.write_table(t, "strings_dict_v2.parquet", compression="zstd", data_page_version="2.0", **common)
    con.execute(
        """
        COPY (
            SELECT CASE WHEN i % 7 = 0 THEN NULL ELSE 'c' || (i * 13 % 40) END AS city,
                   'w' || (i * 7919 % 2000) AS word
            FROM range(0, 3000) t(i)
        ) TO 'strings_duckdb.parquet' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 1024)
        """
    )


def strings_table():
    """3000 rows, written in row groups of 700 and pages of about 512 bytes.

    city: 40 values, every 7th row NULL; its dictionary fits the 1 KiB limit.
    word: 2000 values; its dictionary outgrows the limit within each row
          group, so the writer falls back to PLAIN pages midway; every 11th NULL.
    tag: 3 values, no NULL. sparse: NULL but for rows 1000-1099 and every
          500th. plain: no dictionary at all.
    num: 2000 int64 values from -1000, like word (PLAIN pages midway),
         every 11th NULL. small: 37 int32 values, no NULL. wide: uint32
         values up to 2^32 - 1, no dictionary.
    """
    n = 3000
    return pa.table(
        {
            "city": [None if i % 7 == 0 else f"c{i * 13 % 40}" for i in range(n)],
            "word": [None if i % 11 == 0 else f"w{i * 7919 % 2000}" for i in range(n)],
            "tag": [["x", "", "yy"][i % 3] for i in range(n)],
            "sparse": [f"s{i % 5}" if 1000 <= i < 1100 or i % 500 == 0 else None for i in range(n)],
            "plain": [f"p{i % 50}" for i in range(n)],
            "runs": [None if i % 13 == 0 else "" if i % 4 == 0 else f"r{i // 10}" for i in range(n)],
            "num": pa.array(
                [None if i % 11 == 0 else i * 7919 % 2000 - 1000 for i in range(n)], pa.int64()
            ),
            "small": pa.array([i % 37 for i in range(n)], pa.int32()),
            "wide": pa.array([i * 2654435761 % 2**32 for i in range(n)], pa.uint32()),
        }
    )


if __name__ == "__main__":
    main()
