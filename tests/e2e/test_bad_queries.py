"""Queries that took the server down (issue #12's first cases), run against a server in its own
process whose peak resident set is read from /proc afterwards:

- a cross join of three `generate_series` under `LIMIT 1` built the whole product (3 x 10^10
  rows) and was killed by the kernel at 24 GB; the LIMIT now stops the joins under it after
  their first chunk;
- a count over a cross join built the join's rows before counting them; the aggregate now takes
  them as they are made.

The expected answers are worked out here."""

from __future__ import annotations

from pathlib import Path

import psycopg

from harness import SluiceServer


def _peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc status")


def test_a_cross_join_under_a_limit_and_a_count_over_one_stay_small(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--no-broker"]) as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT * FROM generate_series(1, 3) g, generate_series(1, 100000) h, generate_series(1, 100000) i LIMIT 1").fetchall()
            assert len(rows) == 1 and 1 <= rows[0][0] <= 3 and all(1 <= v <= 100000 for v in rows[0][1:]), rows
            count, total = conn.execute(
                "SELECT count(*), sum(a + b) FROM generate_series(1, 1000) x(a), generate_series(1, 2000) y(b)").fetchone()
            assert (count, total) == (1000 * 2000, 2000 * sum(range(1, 1001)) + 1000 * sum(range(1, 2001)))
            # The server goes on answering.
            assert conn.execute("SELECT 1").fetchone() == (1,)
        peak = _peak_rss_kib(server.process.pid)
    # (The LIMIT's whole product would be terabytes.)
    assert peak < 256 * 1024, f"peak resident set {peak} KiB"
