"""Ingest from Python and files queried in place, against DuckDB."""

import os

import duckdb
import pytest
from conftest import ROWS, assert_rows_equal

import strata

SCHEMA = {
    "id": "BIGINT",
    "tiny": "TINYINT",
    "small": "SMALLINT",
    "num": "INTEGER",
    "big": "BIGINT",
    "price": "DECIMAL(10, 2)",
    "ratio": "DOUBLE",
    "name": "VARCHAR",
    "day": "DATE",
    "ts": "TIMESTAMP",
    "flag": "BOOLEAN",
}


def test_ingest_csv_with_schema_and_sort(tmp_path, files, duck):
    con = strata.connect(str(tmp_path), cache_dir=str(tmp_path / ".cache"))
    summary = con.ingest([files["csv"]], table="c", schema=SCHEMA, sort_by="day, id", block_rows=4096)
    assert summary["rows"] == ROWS
    assert summary["sorted_by"] == ["day", "id"]
    assert con.tables() == ["c"]
    query = "SELECT * FROM {} ORDER BY id"
    assert_rows_equal(con.sql(query.format("c")).fetchall(), duck.sql(query.format("t")).fetchall())
    # Appending doubles every row.
    con.ingest(files["csv"], table="c", schema=SCHEMA, append=True)
    want = duck.sql("SELECT name, 2 * count(*) FROM t GROUP BY name ORDER BY name").fetchall()
    got = con.sql("SELECT name, count(*) FROM c GROUP BY name ORDER BY name").fetchall()
    assert_rows_equal(got, want)


def test_ingest_schema_statement_and_file(tmp_path, files, duck):
    con = strata.connect(str(tmp_path))
    cols = ", ".join(f"{k} {v}" for k, v in SCHEMA.items())
    con.ingest(files["csv"], table="a", schema=f"CREATE TABLE a ({cols})", format="csv")
    path = tmp_path / "schema.sql"
    path.write_text(f"CREATE TABLE b ({cols}) ORDER BY (name)")
    con.ingest(files["csv"], table=str(tmp_path / "b"), schema=str(path))
    assert con.tables() == ["a", "b"]
    query = "SELECT count(*), count(name), sum(price), min(ts) FROM {}"
    for name in ("a", "b"):
        assert_rows_equal(con.sql(query.format(name)).fetchall(), duck.sql(query.format("t")).fetchall())


def test_ingest_errors(tmp_path, files):
    con = strata.connect(str(tmp_path))
    with pytest.raises(strata.NotFoundError):
        con.ingest(str(tmp_path / "missing.csv"), table="x")
    with pytest.raises(strata.InvalidInputError, match="format"):
        con.ingest(files["csv"], table="x", format="xml")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\nx,3\n")
    with pytest.raises(strata.DataError):
        con.ingest(str(bad), table="x", schema={"a": "INTEGER", "b": "INTEGER"})
    with pytest.raises(strata.InvalidInputError):
        con.ingest(str(bad), table="x", schema="CREATE TABLE x (a NOTATYPE)")
    assert con.tables() == []


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_files_in_place(tmp_path, files, kind):
    con = strata.connect(str(tmp_path), cache_dir=str(tmp_path / ".cache"))
    path = files[kind]
    query = f"SELECT name, count(*), sum(num), min(day) FROM '{path}' GROUP BY name ORDER BY name"
    want = duckdb.sql(query).fetchall()
    assert_rows_equal(con.sql(query).fetchall(), want)
    # Again, from the cache.
    assert_rows_equal(con.sql(query).fetchall(), want)
    assert os.listdir(tmp_path / ".cache")


def test_read_csv_in_place(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("1;a\n2;b\n3;\n")
    con = strata.connect(str(tmp_path), cache_dir=str(tmp_path / ".cache"))
    query = f"SELECT sum(a), count(b) FROM read_csv('{path}', delim=';', header=false, columns={{'a': 'INTEGER', 'b': 'VARCHAR'}})"
    assert_rows_equal(con.sql(query).fetchall(), duckdb.sql(query).fetchall())
