"""Queries release the GIL; Ctrl-C and Connection.interrupt() stop them."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import duckdb
import pytest

import strata

# A self-join whose output grows with the bound: 100 rows per `a` row below it.
JOIN = "SELECT sum(a.id * b.id) FROM t a JOIN t b ON a.k = b.k WHERE a.id < {bound}"

# A scan of 50 blocks with string work on every row: seconds, and stopped at
# the next block when interrupted.
SLOW = "SELECT sum(length(" + " || ".join(["upper(s)", "lower(s)", "s"] * 3) + ")) FROM t"


@pytest.fixture(scope="module")
def join_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("join")
    duckdb.sql(
        "COPY (SELECT i AS id, i % 100 AS k, repeat(md5(i::VARCHAR), 8) AS s"
        f" FROM range(100000) r(i)) TO '{d}/d.parquet'"
    )
    strata.connect(str(d)).ingest(f"{d}/d.parquet", table="t", block_rows=2000)
    return str(d)


def busy_seconds(seconds):
    """CPU time this process uses in the next `seconds` of wall time."""
    before = time.process_time()
    time.sleep(seconds)
    return time.process_time() - before


def test_gil_is_released(join_dir):
    con = strata.connect(join_dir)
    query = JOIN.format(bound=400)
    want = duckdb.sql(query.replace(" t ", f" '{join_dir}/d.parquet' ")).fetchall()
    out = {}

    def run():
        out["rows"] = con.sql(query).fetchall()

    worker = threading.Thread(target=run)
    ticks = []
    started = time.monotonic()
    worker.start()
    while worker.is_alive():
        ticks.append(time.monotonic())
        time.sleep(0.001)
    elapsed = time.monotonic() - started
    worker.join()
    assert out["rows"] == want
    # This thread kept running all along: no pause near the query's length.
    gaps = [b - a for a, b in zip([started] + ticks, ticks + [started + elapsed])]
    assert len(ticks) > 10
    assert max(gaps) < max(0.05, elapsed / 4), (max(gaps), elapsed)


def test_interrupt_from_another_thread(join_dir):
    con = strata.connect(join_dir)
    timer = threading.Timer(0.2, con.interrupt)
    started = time.monotonic()
    timer.start()
    with pytest.raises(strata.InterruptError, match="interrupted"):
        con.sql(SLOW).fetchall()
    assert time.monotonic() - started < 5
    # The query stopped: nothing is left running.
    assert busy_seconds(0.5) < 0.2
    # Later queries run normally.
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(100000,)]


def test_ctrl_c_raises_keyboard_interrupt(join_dir):
    script = textwrap.dedent(
        f"""
        import sys, time
        import strata
        from test_interrupt import busy_seconds
        con = strata.connect({join_dir!r})
        print("running", flush=True)
        started = time.monotonic()
        try:
            con.sql({SLOW!r}).fetchall()
            print("finished")
        except KeyboardInterrupt:
            print(f"KeyboardInterrupt after {{time.monotonic() - started:.1f}} s")
            print(f"busy {{busy_seconds(0.5):.2f}} s")
            print(con.sql("SELECT count(*) FROM t").fetchall())
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=os.path.dirname(__file__),
    )
    try:
        assert child.stdout.readline().strip() == "running"
        time.sleep(0.2)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
        waited = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert "KeyboardInterrupt after" in out, (out, err)
    assert "[(100000,)]" in out
    assert waited < 5, waited
    busy = float(out.split("busy ")[1].split(" s")[0])
    assert busy < 0.2, out
