"""Query results, row by row, against DuckDB on the same data."""

import pytest
from conftest import ROWS, assert_rows_equal

QUERIES = [
    # Every type, NULLs included, across all blocks.
    "SELECT * FROM t ORDER BY id",
    "SELECT id, name, day, ts FROM t WHERE id % 997 = 1 ORDER BY id",
    # Aggregates over many blocks.
    "SELECT count(*), count(num), sum(num), min(price), max(price), sum(price) FROM t",
    "SELECT avg(ratio), min(day), max(day), min(ts), max(ts) FROM t",
    "SELECT tiny, count(*) AS c, sum(big) AS s FROM t GROUP BY tiny ORDER BY tiny",
    "SELECT name, count(*) AS c FROM t WHERE name IS NOT NULL GROUP BY name ORDER BY c DESC, name LIMIT 10",
    "SELECT flag, count(DISTINCT small) FROM t GROUP BY flag ORDER BY flag",
    "SELECT day, count(*) FROM t WHERE day >= DATE '2010-01-01' GROUP BY day ORDER BY day LIMIT 5",
    "SELECT id, price FROM t WHERE price IS NULL ORDER BY id LIMIT 3",
    "SELECT id FROM t WHERE id < 0",
    "SELECT NULL AS nothing, 1 AS one",
    # LISTs come out as Python lists, their elements as columns of their type.
    "SELECT tiny, array_agg(id ORDER BY id) FROM t WHERE id < 50 GROUP BY tiny ORDER BY tiny",
    "SELECT array_agg(name ORDER BY id), list(day ORDER BY id), list(price ORDER BY id) FROM t WHERE id < 20",
]


@pytest.mark.parametrize("query", QUERIES)
def test_rows_as_duckdb(con, duck, query):
    assert_rows_equal(con.sql(query).fetchall(), duck.sql(query).fetchall())


@pytest.mark.parametrize("query", [QUERIES[i] for i in (0, 1, 4, 5)])
def test_columns_as_duckdb(con, duck, query):
    assert con.sql(query).columns == duck.sql(query).columns


def test_types(con, duck):
    rel = con.sql("SELECT * FROM t LIMIT 1")
    assert rel.types == [str(t) for t in duck.sql("SELECT * FROM t LIMIT 1").types]


def test_fetch_in_steps(con, duck):
    query = "SELECT id, name FROM t ORDER BY id"
    want = duck.sql(query).fetchall()
    rel = con.sql(query)
    assert len(rel) == ROWS
    assert rel.shape == (ROWS, 2)
    first = rel.fetchone()
    some = rel.fetchmany(5)
    rest = rel.fetchall()
    assert_rows_equal([first, *some, *rest], want)
    assert rel.fetchone() is None
    assert rel.fetchall() == []


def test_iteration(con, duck):
    query = "SELECT id FROM t WHERE id < 3000 ORDER BY id"
    assert_rows_equal(list(con.sql(query)), duck.sql(query).fetchall())


def test_show_and_explain(con, capsys):
    rel = con.sql("SELECT id, name FROM t ORDER BY id")
    rel.show(max_rows=3)
    out = capsys.readouterr().out
    assert "id" in out and "name" in out
    assert f"({ROWS} rows, 3 shown)" in out
    assert "SELECT" not in out
    assert str(rel) == repr(rel)
    plan = rel.explain()
    assert isinstance(plan, str) and plan.strip()
    assert con.explain("SELECT count(*) FROM t") == con.sql("SELECT count(*) FROM t").explain()


def test_table_and_tables(con, duck):
    assert con.tables() == ["t"]
    assert_rows_equal(
        sorted(con.table("t").fetchall()), duck.sql("SELECT * FROM t ORDER BY id").fetchall()
    )
