"""DB-API 2.0 surface: module globals, cursors, description, rowcount."""

import pytest
from conftest import assert_rows_equal

import strata


def test_module_globals():
    assert strata.apilevel == "2.0"
    assert strata.paramstyle == "qmark"
    assert strata.threadsafety in (1, 2)
    assert isinstance(strata.__version__, str)


def test_cursor(con, duck):
    cur = con.cursor()
    assert cur.description is None
    assert cur.rowcount == -1
    query = "SELECT tiny, count(*) AS c FROM t WHERE tiny < ? GROUP BY tiny ORDER BY tiny"
    assert cur.execute(query, [-45]) is cur
    want = duck.execute(query, [-45]).fetchall()
    assert [d[0] for d in cur.description] == ["tiny", "c"]
    assert [d[1] for d in cur.description] == ["TINYINT", "BIGINT"]
    assert all(len(d) == 7 for d in cur.description)
    assert cur.rowcount == len(want)
    cur.arraysize = 2
    got = [cur.fetchone()] + cur.fetchmany() + cur.fetchall()
    assert_rows_equal(got, want)
    assert cur.fetchone() is None
    cur.close()
    with pytest.raises(strata.InterfaceError):
        cur.fetchall()


def test_connection_is_a_cursor(con, duck):
    query = "SELECT count(*) FROM t WHERE num > $1"
    assert con.execute(query, [5000]).fetchone() == duck.execute(query, [5000]).fetchone()
    assert con.execute(query, [5000]).fetch_arrow_table().num_rows == 1


def test_executemany_keeps_the_last(con, duck):
    query = "SELECT count(*) FROM t WHERE tiny = ?"
    con.executemany(query, [[1], [2], [3]])
    assert con.fetchall() == duck.execute(query, [3]).fetchall()


def test_context_managers(db_dir):
    with strata.connect(db_dir) as con:
        with con.cursor() as cur:
            assert cur.execute("SELECT 42").fetchall() == [(42,)]
        con.commit()
        with pytest.raises(strata.NotSupportedError):
            con.rollback()
    with pytest.raises(strata.InterfaceError):
        con.execute("SELECT 1")


def test_fetch_before_execute(con):
    with pytest.raises(strata.InterfaceError):
        con.cursor().fetchall()
