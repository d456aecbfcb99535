"""State three times `--memory-limit` keeps running with exact results.

One server runs with a 4 MiB limit and 200 ms barriers. A datagen source of 150,000 rows feeds a
view that keeps every row (an id and a 16-character name) and a GROUP BY of 50,000 groups that
every group reaches three times, so the integer aggregate moves groups out of memory and reads
them back. Together their state is more than three times the limit. The views must equal
DuckDB's answer over the same ids, the state store must have evicted and read back pages, its
resident bytes must end near the limit, and the process's peak resident set is reported. After
`kill -9`, and again after a clean stop (which writes a table checkpoint past the views' last
state checkpoint), the views come back from their checkpoint (their pages left in the run files
until read) with the same answers.
"""

from __future__ import annotations

import duckdb

from harness import SluiceServer
from source_support import connect, wait_until

LIMIT = 4 << 20
ROWS = 150_000
GROUPS = 50_000


def _create(conn) -> None:
    conn.execute(
        "CREATE SOURCE s (id bigint, name varchar) WITH (connector = 'datagen', fields.id.kind = 'sequence', "
        f"fields.id.end = '{ROWS - 1}', fields.name.length = '16', datagen.rows.per.second = '300000')")
    conn.execute("CREATE MATERIALIZED VIEW every_row AS SELECT * FROM s")
    conn.execute(f"CREATE MATERIALIZED VIEW groups AS SELECT id % {GROUPS} AS k, count(*) AS n, sum(id) AS total FROM s GROUP BY id % {GROUPS}")


def _caught_up(conn) -> bool:
    rows = conn.execute("SELECT name, rows_in FROM rw_catalog.rw_fragments").fetchall()
    return len(rows) == 2 and all(count == ROWS for _, count in rows)


def _memory(conn) -> dict[str, int]:
    cursor = conn.execute("SELECT * FROM sluice_memory")
    names = [column.name for column in cursor.description]
    return dict(zip(names, cursor.fetchone()))


def _check_answers(conn) -> None:
    """Both views against DuckDB over the same ids."""
    oracle = duckdb.connect()
    expected = set(oracle.execute(f"SELECT i % {GROUPS}, count(*), sum(i) FROM range({ROWS}) t(i) GROUP BY 1").fetchall())
    actual = {(k, n, int(total)) for k, n, total in conn.execute("SELECT k, n, total FROM groups").fetchall()}
    assert len(actual) == GROUPS
    assert actual == expected
    summary = conn.execute(
        "SELECT count(*), count(DISTINCT id), min(id), max(id), sum(id), count(*) FILTER (WHERE length(name) = 16) FROM every_row").fetchone()
    want = oracle.execute(f"SELECT count(*), count(DISTINCT i), min(i), max(i), sum(i), count(*) FROM range({ROWS}) t(i)").fetchone()
    assert tuple(int(value) for value in summary) == tuple(int(value) for value in want)


def test_state_three_times_the_limit_gives_exact_results(tmp_path, record_property):
    args = ["--memory-limit", "4MB", "--barrier-interval-ms", "200"]
    with SluiceServer(data_dir=tmp_path / "data", extra_args=args) as server:
        with connect(server) as conn:
            _create(conn)
            wait_until(lambda: _caught_up(conn), 180, "both views to read every row")
            # Everything read is published once the epoch that read it commits.
            wait_until(lambda: conn.execute("SELECT sum(n) FROM groups").fetchone()[0] == ROWS
                       and conn.execute("SELECT count(*) FROM every_row").fetchone()[0] == ROWS, 30, "every row in both views")
            state = conn.execute("SELECT sum(state_bytes) FROM rw_catalog.rw_fragments").fetchone()[0]
            memory = _memory(conn)
            assert memory["limit_bytes"] == LIMIT
            assert state >= 3 * LIMIT, f"state {state} bytes is not three times the limit"
            assert memory["pages_evicted"] > 0 and memory["state_spilled_bytes"] > 0
            # Groups and pages came back (each group is reached three times).
            assert memory["pages_loaded"] > 0
            # What stays in memory: near the limit (over it by what the last epoch touched, or
            # changed groups waiting for a checkpoint), far under the state's size.
            assert memory["state_resident_bytes"] <= 2 * LIMIT, memory
            record_property("state_bytes", state)
            record_property("state_peak_resident_bytes", memory["state_peak_resident_bytes"])
            record_property("process_peak_rss_bytes", memory["process_peak_rss_bytes"])
            print(f"state {state / 2**20:.1f} MiB at a limit of {LIMIT / 2**20:.0f} MiB: state resident at most "
                  f"{memory['state_peak_resident_bytes'] / 2**20:.1f} MiB, process peak RSS {memory['process_peak_rss_bytes'] / 2**20:.1f} MiB")
            _check_answers(conn)
        server.kill()
        server.start()
        assert "views restored from state checkpoint" in server.log()
        with connect(server) as conn:
            # A restored view shows its rows from its first barrier on.
            wait_until(lambda: conn.execute("SELECT sum(n) FROM groups").fetchone()[0] == ROWS
                       and conn.execute("SELECT count(*) FROM every_row").fetchone()[0] == ROWS, 60, "the restored views")
            _check_answers(conn)
            # The queries read evicted pages without keeping them past the limit.
            assert _memory(conn)["state_resident_bytes"] <= 2 * LIMIT + (8 << 20)
        # A clean stop writes a table checkpoint past the views' last state checkpoint: the
        # views still come back from it, not rebuilt from their inputs.
        server.stop()
        server.start()
        assert "views restored from state checkpoint" in server.log(), server.log()
        with connect(server) as conn:
            wait_until(lambda: conn.execute("SELECT sum(n) FROM groups").fetchone()[0] == ROWS
                       and conn.execute("SELECT count(*) FROM every_row").fetchone()[0] == ROWS, 60, "the views after a clean stop")
            _check_answers(conn)
