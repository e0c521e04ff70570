"""strata.ray on a local Ray with two worker processes (started once for the
module): the 43 ClickBench queries and the TPC-H queries strata answers, on
small generated multi-block tables, give the single-process answers; bad
input raises clear exceptions and leaves nothing running."""

import os
import shutil
import subprocess
import threading
import time

import pytest

ray = pytest.importorskip("ray", reason="strata.ray needs Ray (pip install ray)")

import strata  # noqa: E402
import strata.ray  # noqa: E402

from answers import check  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
QUERIES = os.path.join(REPO, "bench", "queries")
HITS_ROWS = 30_000
HITS_BLOCK_ROWS = 2_000


def _bench():
    """The strata-bench binary (its data generators), if built."""
    candidates = [os.environ.get("STRATA_BENCH")]
    target = os.environ.get("CARGO_TARGET_DIR")
    if target:
        candidates.append(os.path.join(target, "debug", "strata-bench"))
    candidates.append(os.path.join(REPO, "target", "debug", "strata-bench"))
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


def _clickbench_queries():
    with open(os.path.join(QUERIES, "queries-duckdb.sql"), encoding="utf-8") as f:
        return [q.strip().rstrip(";") for q in f if q.strip()]


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """A local Ray with two CPUs: two worker processes run tasks at once."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def hits(tmp_path_factory):
    """A generated ClickBench `hits` table of 15 blocks."""
    bench = _bench()
    if bench is None:
        pytest.skip("strata-bench is not built (cargo build -p strata-bench), or set STRATA_BENCH")
    d = tmp_path_factory.mktemp("hits")
    parquet = str(d / "hits.parquet")
    subprocess.run([bench, "gen", "hits", "--rows", str(HITS_ROWS), "--out", parquet], check=True, capture_output=True)
    with open(os.path.join(QUERIES, "create-duckdb.sql"), encoding="utf-8") as f:
        schema = f.read()
    con = strata.connect(str(d))
    summary = con.ingest(parquet, table="hits", schema=schema, block_rows=HITS_BLOCK_ROWS)
    assert summary["blocks"] == HITS_ROWS // HITS_BLOCK_ROWS
    con.close()
    return {"dir": str(d), "table": str(d / "hits"), "parquet": parquet}


@pytest.fixture(scope="module")
def hits_con(hits):
    con = strata.connect(hits["dir"])
    yield con
    con.close()


@pytest.mark.parametrize("number", range(1, 44))
def test_clickbench_query_matches_the_single_process_answer(hits, hits_con, number):
    sql = _clickbench_queries()[number - 1]
    want = hits_con.sql(sql).arrow()
    # 5 tasks, merged in a tree of fan-in 2 (two levels of combine tasks).
    got = strata.ray.sql(sql, tables={"hits": hits["table"]}, num_tasks=5, fanin=2)
    why = check(sql, got, want, full=lambda: hits_con.sql(_without_limit(sql)).arrow())
    assert why is None, f"Q{number}: {why}"


def _without_limit(sql):
    from answers import Shape

    return Shape(sql).without_limit


def test_one_task_and_many_tasks(hits, hits_con):
    sql = "SELECT SearchPhrase, count(*) AS c FROM hits WHERE SearchPhrase <> '' GROUP BY 1 ORDER BY c DESC, 1 LIMIT 20"
    want = hits_con.sql(sql).arrow()
    for tasks in (1, 2, 15, 40):
        got = strata.ray.sql(sql, tables={"hits": hits["table"]}, num_tasks=tasks)
        assert check(sql, got, want) is None, tasks


def test_files_are_loaded_for_the_query(hits, hits_con):
    sql = "SELECT count(*), sum(AdvEngineID), count(DISTINCT UserID) FROM hits"
    got = strata.ray.sql(sql, tables={"hits": hits["parquet"]}, num_tasks=2)
    want = hits_con.sql(sql).arrow()
    assert got.to_pylist() == want.to_pylist()


def test_parameters(hits, hits_con):
    sql = "SELECT count(*) FROM hits WHERE RegionID = $1 AND UserID <> $2"
    got = strata.ray.sql(sql, tables={"hits": hits["table"]}, num_tasks=3, parameters=[229, 0])
    assert got.to_pylist() == hits_con.execute(sql, [229, 0]).arrow().to_pylist()


def test_read_table_gives_the_rows_of_every_block(hits, hits_con):
    ds = strata.ray.read_table(hits["table"], columns=["RegionID", "URL"])
    assert ds.count() == HITS_ROWS
    import pyarrow as pa

    table = pa.concat_tables(ray.get(ds.to_arrow_refs()))
    assert table.column_names == ["RegionID", "URL"]
    want = hits_con.sql("SELECT sum(RegionID), count(DISTINCT URL) FROM hits").fetchone()
    assert (sum(table.column("RegionID").to_pylist()), len(set(table.column("URL").to_pylist()))) == want
    with pytest.raises(strata.NotFoundError):
        strata.ray.read_table(os.path.join(hits["dir"], "nope"))


def test_explain_names_the_split(hits):
    text = strata.ray.explain(
        "SELECT UserID, count(*) FROM hits GROUP BY UserID ORDER BY 2 DESC LIMIT 10",
        tables={"hits": hits["table"]},
    )
    assert "Split: 15 blocks of hits among tasks; partial results: aggregate states" in text
    assert "Final plan (over the partial results):" in text


# Bad input: each a clear exception, raised before any task starts.


def test_a_missing_table_is_not_found(hits):
    with pytest.raises(strata.NotFoundError, match="no MANIFEST"):
        strata.ray.sql("SELECT count(*) FROM hits", tables={"hits": os.path.dirname(hits["table"])})
    with pytest.raises(strata.NotFoundError, match="nope"):
        strata.ray.sql("SELECT count(*) FROM nope", tables={"hits": hits["table"]})
    with pytest.raises(strata.NotFoundError):
        strata.ray.sql("SELECT count(*) FROM hits", tables={"hits": "/nonexistent/hits.parquet"})


def test_a_wrong_parameter_count_is_invalid_input(hits):
    with pytest.raises(strata.InvalidInputError, match="parameter"):
        strata.ray.sql("SELECT count(*) FROM hits WHERE RegionID = ?", tables={"hits": hits["table"]}, parameters=[1, 2])
    with pytest.raises(strata.InvalidInputError, match="parameter"):
        strata.ray.sql("SELECT count(*) FROM hits WHERE RegionID = ?", tables={"hits": hits["table"]})


def test_a_query_that_cannot_be_split_says_so(hits):
    with pytest.raises(strata.CannotSplitError, match="hits is read 2 times"):
        strata.ray.sql(
            "SELECT count(*) FROM hits WHERE UserID IN (SELECT UserID FROM hits WHERE RegionID = 1)",
            tables={"hits": hits["table"]},
        )
    assert issubclass(strata.CannotSplitError, strata.NotSupportedError)


def _task_processes():
    """Pids of Ray worker processes running a task of strata.ray."""
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    return [int(line.split()[0]) for line in out.splitlines() if "ray::_partial_task" in line or "ray::_combine_task" in line]


def test_a_worker_killed_mid_query_fails_the_query_and_leaves_nothing_running(hits, tmp_path):
    # A small table joined without keys: each task runs for seconds.
    con = strata.connect(str(tmp_path))
    csv = tmp_path / "dim.csv"
    csv.write_text("id\n" + "".join(f"{i}\n" for i in range(3000)))
    con.ingest(str(csv), table="dim")
    con.close()
    sql = "SELECT count(*) FROM hits JOIN dim ON hits.RegionID + hits.SearchEngineID < dim.id"
    killed = []

    def kill_one():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            pids = _task_processes()
            if pids:
                os.kill(pids[0], 9)
                killed.append(pids[0])
            time.sleep(0.05)

    killer = threading.Thread(target=kill_one)
    killer.start()
    try:
        with pytest.raises(strata.ray.TaskFailedError, match="task of the distributed query failed"):
            strata.ray.sql(sql, tables={"hits": hits["table"], "dim": str(tmp_path / "dim")}, num_tasks=4)
    finally:
        killer.join()
    assert killed, "no task was running to kill"
    assert issubclass(strata.ray.TaskFailedError, strata.OperationalError)
    # The other tasks were cancelled: none is left running.
    deadline = time.monotonic() + 30
    while _task_processes() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _task_processes() == []


# TPC-H, when tpchgen-cli is installed: every query strata splits matches.

TPCH_TABLES = ["nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]


@pytest.fixture(scope="module")
def tpch(tmp_path_factory):
    gen = shutil.which("tpchgen-cli")
    if gen is None:
        pytest.skip("tpchgen-cli is not installed (pip install tpchgen-cli)")
    d = tmp_path_factory.mktemp("tpch")
    subprocess.run([gen, "parquet", "-s", "0.01", "--output-dir", str(d / "parquet")], check=True, capture_output=True)
    with open(os.path.join(QUERIES, "tpch", "create.sql"), encoding="utf-8") as f:
        creates = [s[s.upper().index("CREATE TABLE") :] for s in f.read().split(";") if "CREATE TABLE" in s.upper()]
    (d / "db").mkdir()
    con = strata.connect(str(d / "db"))
    for name in TPCH_TABLES:
        create = next(c for c in creates if f"CREATE TABLE {name} " in c or f"CREATE TABLE {name}\n" in c)
        con.ingest(str(d / "parquet" / f"{name}.parquet"), table=name, schema=create, block_rows=5000)
    return con


def test_tpch_queries_that_split_match_the_single_process_answers(tpch):
    tables = {name: os.path.join(tpch.path, name) for name in TPCH_TABLES}
    split, refused = [], []
    for q in range(1, 23):
        with open(os.path.join(QUERIES, "tpch", f"q{q:02d}.sql"), encoding="utf-8") as f:
            sql = f.read().strip().rstrip(";")
        want = tpch.sql(sql).arrow()
        try:
            got = strata.ray.sql(sql, tables=tables, num_tasks=3, fanin=2)
        except strata.CannotSplitError as e:
            refused.append((q, str(e)))
            continue
        why = check(sql, got, want, full=lambda: tpch.sql(_without_limit(sql)).arrow())
        assert why is None, f"TPC-H Q{q}: {why}"
        split.append(q)
    print(f"TPC-H split and matched: {split}; cannot be split: {refused}")
    assert {1, 6} <= set(split)


def test_link_directories_of_ended_processes_are_swept():
    """A Ray worker is often killed without running its exit handlers: the
    directory of table links it made is removed by the next one made."""
    import tempfile

    ended = subprocess.Popen(["true"])
    ended.wait()
    tmp = tempfile.gettempdir()
    stale = os.path.join(tmp, f"strata-ray-links-{ended.pid}-x")
    live = os.path.join(tmp, f"strata-ray-links-{os.getpid()}-x")
    for d in (stale, live):
        os.makedirs(d, exist_ok=True)
    try:
        with strata.ray._catalog({}, 1):
            pass
        assert not os.path.exists(stale)
        assert os.path.isdir(live)
    finally:
        for d in (stale, live):
            shutil.rmtree(d, ignore_errors=True)
