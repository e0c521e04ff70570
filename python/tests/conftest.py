"""Shared data for the tests: files written by DuckDB, loaded into strata
tables; every expected answer comes from DuckDB reading the same files."""

import math
import os

import duckdb
import pytest

import strata

# Rows of the main table; with BLOCK_ROWS rows per block it spans many blocks.
ROWS = 20_000
BLOCK_ROWS = 1_000

# Every column type the tests compare, NULLs included (every 7th row of most
# columns). Timestamps are whole seconds, as strata stores them.
DATA_SQL = f"""
SELECT
    i::BIGINT AS id,
    (i % 100 - 50)::TINYINT AS tiny,
    (i * 7 % 30000)::SMALLINT AS small,
    CASE WHEN i % 7 = 3 THEN NULL ELSE (i * 7919 % 100000)::INTEGER END AS num,
    (i::BIGINT * 1000003)::BIGINT AS big,
    CASE WHEN i % 7 = 4 THEN NULL ELSE ((i * 37 % 200000) / 100.0 - 1000)::DECIMAL(10, 2) END AS price,
    CASE WHEN i % 7 = 5 THEN NULL ELSE ((i % 997) * 0.25 + 0.125)::DOUBLE END AS ratio,
    CASE WHEN i % 7 = 6 THEN NULL
         WHEN i % 3 = 0 THEN 'caf' || chr(233) || ' ' || (i % 50)::VARCHAR
         ELSE 'item, "' || (i % 200)::VARCHAR || '"' END AS name,
    CASE WHEN i % 7 = 1 THEN NULL ELSE DATE '1999-12-25' + (i % 9000)::INTEGER END AS day,
    CASE WHEN i % 7 = 2 THEN NULL
         ELSE TIMESTAMP '2020-02-28 23:00:00' + to_seconds(i * 3607) END AS ts,
    (i % 5 = 0) AS flag
FROM range({ROWS}) r(i)
"""


@pytest.fixture(scope="session")
def files(tmp_path_factory):
    """The data as Parquet and as CSV, written by DuckDB."""
    d = tmp_path_factory.mktemp("files")
    parquet = str(d / "data.parquet")
    csv = str(d / "data.csv")
    duckdb.sql(f"COPY ({DATA_SQL}) TO '{parquet}' (FORMAT parquet)")
    duckdb.sql(f"COPY ({DATA_SQL}) TO '{csv}' (FORMAT csv, HEADER)")
    return {"parquet": parquet, "csv": csv, "dir": str(d)}


@pytest.fixture(scope="session")
def db_dir(tmp_path_factory, files):
    """A database directory with table `t` (the Parquet file, many blocks)."""
    d = tmp_path_factory.mktemp("db")
    con = strata.connect(str(d), cache_dir=str(d / ".cache"))
    summary = con.ingest(files["parquet"], table="t", block_rows=BLOCK_ROWS)
    assert summary["rows"] == ROWS
    assert summary["blocks"] == ROWS // BLOCK_ROWS
    return str(d)


@pytest.fixture()
def con(db_dir):
    c = strata.connect(db_dir, cache_dir=os.path.join(db_dir, ".cache"))
    yield c
    c.close()


@pytest.fixture(scope="session")
def duck(files):
    """DuckDB with view `t` over the same Parquet file."""
    c = duckdb.connect()
    c.execute(f"CREATE VIEW t AS SELECT * FROM read_parquet('{files['parquet']}')")
    return c


def same(a, b):
    """Values equal, floats to 1e-9 relative."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b and type(a) is type(b)


def assert_rows_equal(got, want):
    assert len(got) == len(want), f"{len(got)} rows, DuckDB has {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert len(g) == len(w), f"row {i}: {g} vs {w}"
        for gv, wv in zip(g, w):
            assert same(gv, wv), f"row {i}: strata {g!r}, DuckDB {w!r}"
