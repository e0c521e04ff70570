"""Parameters (`?` and `$1`), against DuckDB given the same values."""

import datetime
import decimal

import pytest
from conftest import assert_rows_equal

import strata

CASES = [
    ("SELECT id, name FROM t WHERE id < ? AND tiny = ? ORDER BY id", [500, -40]),
    ("SELECT id FROM t WHERE name = ? ORDER BY id", ['item, "17"']),
    ("SELECT id FROM t WHERE name = $1 OR name = $2 ORDER BY id", ["caf\u00e9 3", 'item, "5"']),
    ("SELECT $2 - $1, $1 * 2", [7, 100]),
    ("SELECT count(*) FROM t WHERE ratio > ?", [100.5]),
    ("SELECT count(*) FROM t WHERE flag = ?", [True]),
    ("SELECT ? IS NULL, count(*) FROM t WHERE num IS NOT NULL", [None]),
    ("SELECT count(*) FROM t WHERE big > ?", [2**62]),
    ("SELECT count(*) FROM t WHERE day < ?", [datetime.date(2005, 6, 1)]),
    ("SELECT count(*) FROM t WHERE ts >= ?", [datetime.datetime(2020, 6, 1, 12, 30, 0)]),
    ("SELECT count(*) FROM t WHERE price > ?", [decimal.Decimal("12.5")]),
    ("SELECT id FROM t WHERE id IN (?, ?, ?) ORDER BY id", (3, 1, 4)),
]


@pytest.mark.parametrize("query,params", CASES)
def test_params_as_duckdb(con, duck, query, params):
    want = duck.execute(query, list(params)).fetchall()
    assert_rows_equal(con.execute(query, params).fetchall(), want)
    assert_rows_equal(con.sql(query, params).fetchall(), want)


def test_quotes_in_string_parameters(con):
    assert con.execute("SELECT ?", ["it's"]).fetchall() == [("it's",)]


def test_wrong_parameter_count(con):
    with pytest.raises(strata.InvalidInputError, match="parameter"):
        con.execute("SELECT ?, ?", [1])
    with pytest.raises(strata.InvalidInputError):
        con.execute("SELECT ?", [1, 2])
    with pytest.raises(strata.InvalidInputError):
        con.execute("SELECT ?")


def test_unsupported_parameters(con):
    with pytest.raises(strata.NotSupportedError):
        con.execute("SELECT ?", {"a": 1})
    with pytest.raises(TypeError):
        con.execute("SELECT ?", [object()])
