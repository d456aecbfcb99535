"""Queries in bounded memory (issue 40, item 3), scaled down.

The issue's case is a 300 MB `--memory-limit` and a table `big (id bigint PRIMARY KEY, k bigint,
v bigint, s varchar)` of 6 million rows; here the same ratio of data to limit: 600,000 rows under
30 MB (the table alone, about 40 MB, passes the limit: the state store evicts part of it, and the
scans read it back a page at a time). One server holds the table, loaded in six statements. Before
each query its peak resident set is reset (`5` written to `/proc/PID/clear_refs`), so that the
peak after it (`VmHWM`) is the query's: it must stay within 1.5 × the limit plus a fixed
overhead, 64 MiB, the issue's. The debug binary's own resident set, idle with its broker, catalog
and dashboard, measured 51 to 56 MiB on the machine this was written on;
`test_idle_server_fits_the_overhead` measures and prints it. Every answer is checked against
DuckDB over the same generated rows.

- `count(DISTINCT s)` (300,000 distinct 32-byte strings): a grouping by `s` that spills.
- `GROUP BY k ORDER BY n DESC, k LIMIT 1` (500,001 groups): the groups take the queries' whole
  budget, and the top-N above them keeps one row; before, the sort failed with 53200 ("the sort
  needs more memory than the server's queries have left").
- `ORDER BY s DESC, id LIMIT 10 OFFSET 1000` over the table: a top-N of 1,010 rows; and
  `LIMIT 5 OFFSET 599990`, whose rows do not fit: the whole sort, spilling.
- `ORDER BY v DESC, id` of every row, streamed to the client and compared row by row.
- `string_agg(left(s, 1), '' ORDER BY s, id)` over every row: the ordered aggregate's input
  staged on disk and sorted by the spilling sort.
- window functions over partitions of the whole table or half of it: each partition written to
  disk and evaluated a chunk at a time from there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from duckdb_support import duckdb_with
from harness import SluiceServer
from source_support import connect

ROWS = 600_000
LIMIT_MB = 30
LIMIT = LIMIT_MB << 20
OVERHEAD = 64 << 20
BOUND = 1.5 * LIMIT + OVERHEAD

# The rows of `big`, in Sluice's SQL and DuckDB's over the same g: k squares g modulo a prime
# (counts of 1 and 2 per k, so the top group is decided by the tie on k), v repeats every
# 100,003 rows (ties decided by id), s is one of 300,000 hex digests, each twice.
ROW_SQL = "g, (g::bigint * g) % 1000003, (g * 31) % 100003, md5((g % 300000)::varchar)"
CREATE_BIG = "CREATE TABLE big (id bigint PRIMARY KEY, k bigint, v bigint, s varchar)"

TOP_GROUP = "SELECT k, count(*) AS n FROM big GROUP BY k ORDER BY n DESC, k LIMIT 1"


@pytest.fixture(scope="module")
def oracle():
    oracle = duckdb_with()
    oracle.execute(CREATE_BIG)
    oracle.execute(f"INSERT INTO big SELECT {ROW_SQL} FROM range(1, {ROWS + 1}) t(g)")
    return oracle


@pytest.fixture(scope="module")
def server():
    """A server holding `big`, loaded in six statements."""
    with SluiceServer(extra_args=_args()) as server:
        with connect(server) as conn:
            conn.execute(CREATE_BIG)
            step = ROWS // 6
            for low in range(1, ROWS + 1, step):
                conn.execute(f"INSERT INTO big SELECT {ROW_SQL} FROM generate_series({low}, {min(low + step - 1, ROWS)}) g")
            assert conn.execute("SELECT count(*) FROM big").fetchone() == (ROWS,)
        _within_bound(server, "loading the table")
        yield server


def _args() -> list[str]:
    return ["--memory-limit", f"{LIMIT_MB}MB"]


def _status(server: SluiceServer, field: str) -> int:
    for line in Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} in /proc status")


def _reset_peak(server: SluiceServer) -> None:
    """Makes the peak resident set the current one (Linux's clear_refs, value 5)."""
    Path(f"/proc/{server.process.pid}/clear_refs").write_text("5")
    assert _status(server, "VmHWM") <= _status(server, "VmRSS") + (1 << 20)


def _within_bound(server: SluiceServer, what: str) -> None:
    peak = _status(server, "VmHWM")
    print(f"{what}: peak RSS {peak / 2**20:.0f} MiB at a {LIMIT_MB} MB limit (bound {BOUND / 2**20:.0f} MiB)")
    assert peak <= BOUND, f"{what}: peak RSS {peak / 2**20:.0f} MiB over {BOUND / 2**20:.0f} MiB\n{server.log()[-3000:]}"


def _query(server: SluiceServer, sql: str, what: str) -> list[tuple]:
    """The rows of `sql`; the server's peak resident set while it ran must stay within the bound."""
    with connect(server) as conn:
        _reset_peak(server)
        rows = conn.execute(sql).fetchall()
        _within_bound(server, what)
    return rows


def test_idle_server_fits_the_overhead(tmp_path):
    """The fixed overhead: an idle server's peak resident set (printed) is within it."""
    with SluiceServer(data_dir=tmp_path / "data", extra_args=_args()) as server:
        with connect(server) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        peak = _status(server, "VmHWM")
        print(f"idle server: peak RSS {peak / 2**20:.0f} MiB")
        assert peak <= OVERHEAD


def test_count_distinct_spills(server, oracle):
    sql = "SELECT count(DISTINCT s), count(DISTINCT v), count(*) FROM big"
    assert _query(server, sql, "count(DISTINCT s)") == oracle.execute(sql).fetchall()


def test_count_distinct_per_group_spills(server, oracle):
    """DISTINCT calls over two arguments beside a plain one stay one grouping: the pairs spill."""
    sql = "SELECT v % 7 AS r, count(DISTINCT s), count(DISTINCT k), sum(v) FROM big GROUP BY v % 7 ORDER BY r"
    assert _query(server, sql, "count(DISTINCT s), count(DISTINCT k) per group") == oracle.execute(sql).fetchall()


def test_top_group_above_a_spilling_aggregate(server, oracle):
    with connect(server) as conn:
        plan = "\n".join(row[0] for row in conn.execute(f"EXPLAIN {TOP_GROUP}").fetchall())
        assert "BatchTopN { order: [$1 DESC, $0 ASC], limit: 1, offset: 0 }" in plan, plan
    assert _query(server, TOP_GROUP, "GROUP BY k ORDER BY n DESC, k LIMIT 1") == oracle.execute(TOP_GROUP).fetchall()


def test_ordered_aggregate_input_spills(server, oracle):
    """An aggregate with ORDER BY keeps its whole input to sort it (600,000 rows with 32-byte
    strings, more than the queries' half of the limit): the input is staged on disk and put in
    order by the spilling sort, and only the values the aggregate keeps (a character a row) stay
    in memory. Before, it failed with 53200 ("the ordered aggregate's input")."""
    sql = "SELECT md5(string_agg(left(s, 1), '' ORDER BY s, id)) FROM big"
    assert _query(server, sql, "string_agg(… ORDER BY s, id)") == oracle.execute(sql).fetchall()


# Window functions whose partitions (the whole table, or half of it: 20 to 40 MB of rows) are
# larger than the queries' half of the limit: each partition is written to disk and read back
# by the evaluator's readers. Weighted sums make every value count where it stands.
WINDOW_QUERIES = {
    "frames over one partition": """
        SELECT sum(w * (id % 7)), sum(l * (id % 5)), sum(length(f) * (id % 3)), sum(m * (id % 11)), sum(n)
        FROM (SELECT id,
                     sum(v) OVER (ORDER BY id ROWS BETWEEN 10 PRECEDING AND 5 FOLLOWING) AS w,
                     lag(v, 3, -1) OVER (ORDER BY id) AS l,
                     first_value(s) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS f,
                     max(v) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND 3 FOLLOWING) AS m,
                     count(*) OVER (ORDER BY id ROWS BETWEEN 4 FOLLOWING AND 600 FOLLOWING) AS n
              FROM big) t""",
    "whole partitions and ranges": """
        SELECT sum(t * (id % 7)), sum(c), sum(r * (id % 13)), sum(p), sum(e * (id % 3))
        FROM (SELECT id,
                     sum(v) OVER (PARTITION BY k % 2) AS t,
                     count(*) OVER () AS c,
                     sum(v) OVER (PARTITION BY k % 2 ORDER BY v RANGE BETWEEN 100 PRECEDING AND CURRENT ROW) AS r,
                     last_value(v) OVER (ORDER BY v DESC RANGE BETWEEN CURRENT ROW AND 5 FOLLOWING) AS p,
                     avg(v) OVER (PARTITION BY k % 2 ORDER BY v) AS e
              FROM big) t""",
}


@pytest.mark.parametrize("what", list(WINDOW_QUERIES))
def test_window_partitions_larger_than_the_memory_spill(server, oracle, what):
    """Before, a partition past the queries' memory failed with 53200 ("a window function's partition")."""
    sql = WINDOW_QUERIES[what]
    got = _query(server, sql, what)
    expected = oracle.execute(sql).fetchall()
    assert [tuple(round(float(x), 3) for x in row) for row in got] == [tuple(round(float(x), 3) for x in row) for row in expected]


@pytest.mark.parametrize("limit, offset", [(10, 1000), (5, ROWS - 10)])
def test_order_by_with_limit_and_offset(server, oracle, limit, offset):
    sql = f"SELECT id, s FROM big ORDER BY s DESC, id LIMIT {limit} OFFSET {offset}"
    got = _query(server, sql, f"ORDER BY s DESC, id LIMIT {limit} OFFSET {offset}")
    assert len(got) == limit
    assert got == oracle.execute(sql).fetchall()


def test_whole_order_by_streams_to_the_client(server, oracle):
    sql = "SELECT id, k, v, s FROM big ORDER BY v DESC, id"
    expected = oracle.execute(sql)
    count = 0
    with connect(server) as conn:
        _reset_peak(server)
        # Row by row as the server sends them (libpq's single-row mode), against DuckDB's.
        want: list[tuple] = []
        for row in conn.cursor().stream(sql):
            if not want:
                want = list(reversed(expected.fetchmany(10_000)))
                assert want, f"more rows than DuckDB's {count}"
            assert row == want.pop(), f"row {count}"
            count += 1
        _within_bound(server, "ORDER BY v DESC, id of every row")
    assert count == ROWS and not want and not expected.fetchmany(1)


def _memory(conn) -> dict[str, int]:
    cursor = conn.execute("SELECT * FROM sluice_memory")
    return dict(zip([column.name for column in cursor.description], cursor.fetchone()))


def test_sluice_memory_shows_the_queries_budget(server):
    """`sluice_memory` has the queries' budget (half of the limit) and what they hold: nothing
    once every query has ended, the spilling ones too."""
    with connect(server) as conn:
        assert conn.execute(TOP_GROUP).fetchone() is not None
        memory = _memory(conn)
        assert memory["query_limit_bytes"] == LIMIT // 2
        assert memory["query_reserved_bytes"] == 0, memory
