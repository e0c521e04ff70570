#!/usr/bin/env python3
"""Stores the TSV written by `cargo run --release -p strata-format --example sizes -- --tsv F`
in ZSTD Parquet, a DuckDB table and a ClickHouse MergeTree table (chDB) and prints bytes per row
of each column, for comparison with strata's figures printed by the example.

usage: format_sizes.py SIZES.TSV WORKDIR
"""
import os
import shutil
import sys

import duckdb

COLS = ["low_card_int", "high_card_int", "timestamp", "short_string", "long_string"]
TYPES = ["INTEGER", "BIGINT", "BIGINT", "VARCHAR", "VARCHAR"]


def run(con, sql):
    """Runs `sql` and fetches every row (DuckDB 2 wants results consumed)."""
    return con.execute(sql).fetchall()


def main():
    tsv, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    con = duckdb.connect()
    cols = ", ".join(f"'{c}': '{t}'" for c, t in zip(COLS, TYPES))
    src = f"read_csv('{tsv}', delim='\\t', header=false, quote='', escape='', columns={{{cols}}})"
    rows = run(con, f"SELECT count(*) FROM {src}")[0][0]
    print(f"{rows} rows")
    # Parquet, ZSTD, one file per column so sizes are per column.
    print("\nZSTD Parquet (one file per column), bytes/row:")
    for c in COLS:
        p = os.path.join(work, f"{c}.parquet")
        run(con, f"COPY (SELECT {c} FROM {src}) TO '{p}' (FORMAT parquet, COMPRESSION zstd)")
        print(f"  {c:<14} {os.path.getsize(p) / rows:8.3f}")
    # DuckDB native storage, one database per column.
    print("\nDuckDB native table (one database file per column), bytes/row:")
    for c, t in zip(COLS, TYPES):
        db = os.path.join(work, f"{c}.duckdb")
        if os.path.exists(db):
            os.remove(db)
        d = duckdb.connect(db)
        run(d, f"CREATE TABLE t AS SELECT {c} FROM {src}")
        run(d, "CHECKPOINT")
        used = run(d, "SELECT used_blocks * block_size FROM pragma_database_size()")[0][0]
        d.close()
        print(f"  {c:<14} {used / rows:8.3f}")
    try:
        import chdb
    except ImportError:
        print("\nchDB not installed: pip install chdb")
        return
    print("\nClickHouse MergeTree via chDB (compressed bytes on disk per column), bytes/row:")
    path = os.path.join(work, "chdb")
    shutil.rmtree(path, ignore_errors=True)
    sess = chdb.session.Session(path)
    ch_types = ["Int32", "Int64", "Int64", "String", "String"]
    schema = ", ".join(f"{c} {t}" for c, t in zip(COLS, ch_types))
    sess.query(f"CREATE TABLE t ({schema}) ENGINE = MergeTree ORDER BY tuple()")
    sess.query(f"INSERT INTO t SELECT * FROM file('{tsv}', 'TSV', '{schema}')")
    sess.query("OPTIMIZE TABLE t FINAL")
    res = sess.query(
        "SELECT name, sum(data_compressed_bytes) FROM system.columns WHERE table = 't' GROUP BY name",
        "CSV",
    )
    sizes = dict(
        (line.split(",")[0].strip('"'), int(line.split(",")[1]))
        for line in str(res).strip().splitlines()
    )
    for c in COLS:
        print(f"  {c:<14} {sizes.get(c, 0) / rows:8.3f}")


if __name__ == "__main__":
    main()
