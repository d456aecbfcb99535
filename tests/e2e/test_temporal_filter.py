"""Temporal filters in views (`WHERE ts > now() - INTERVAL …`, `ts <= now()`): rows go when the
lower bound passes them and show when the upper bound reaches them, as the server's clock moves
and with no change to the table, across a kill -9 and restart too.

The oracle is the filter's own definition over the rows' times: every state a view is seen in
must be its rows at some time between the rows' insertion and the read, and each view must reach
its state at a time past every row's crossing."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from pathlib import Path

import psycopg

from harness import SluiceServer
from source_support import connect

LAG = timedelta(seconds=5)
VIEWS = {
    "recent": "ts > now() - INTERVAL '5 seconds'",
    "due": "ts <= now()",
    "live": "ts > now() - INTERVAL '5 seconds' AND ts <= now()",
}


def _expected(rows: dict[int, datetime], at: datetime) -> dict[str, set[int]]:
    return {
        "recent": {key for key, ts in rows.items() if ts > at - LAG},
        "due": {key for key, ts in rows.items() if ts <= at},
        "live": {key for key, ts in rows.items() if at - LAG < ts <= at},
    }


def _observe(conn: psycopg.Connection) -> tuple[dict[str, set[int]], datetime]:
    union = " UNION ALL ".join(f"SELECT '{name}', id FROM {name}" for name in VIEWS)
    seen: dict[str, set[int]] = {name: set() for name in VIEWS}
    for name, key in conn.execute(union).fetchall():
        seen[name].add(key)
    return seen, conn.execute("SELECT now()").fetchone()[0]


def _watch(conn: psycopg.Connection, rows: dict[int, datetime], since: datetime, until: datetime, timeout: float) -> list[dict]:
    """Reads the views until they show their rows at `until`; checks that each state seen is
    their rows at some time between `since` and the read. Returns the distinct states seen."""
    final = _expected(rows, until)
    states: list[dict] = []
    deadline = time.monotonic() + timeout
    while True:
        seen, read_at = _observe(conn)
        candidates = [_expected(rows, since + timedelta(milliseconds=step))
                      for step in range(0, int((read_at - since).total_seconds() * 1000) + 1, 20)]
        assert seen in candidates, f"the views showed {seen}, which they hold at no time between {since} and {read_at}"
        if not states or states[-1] != seen:
            states.append(seen)
        if seen == final:
            return states
        assert time.monotonic() < deadline, f"the views never reached {final}; states seen: {states}"
        time.sleep(0.1)


def test_rows_expire_and_appear_as_time_passes_and_after_a_restart(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with SluiceServer(data_dir=data_dir) as server:
        with connect(server) as conn:
            conn.execute("CREATE TABLE events (id int, ts timestamptz)")
            for name, condition in VIEWS.items():
                conn.execute(f"CREATE MATERIALIZED VIEW {name} AS SELECT id FROM events WHERE {condition}")
            start = conn.execute("SELECT now()").fetchone()[0]
            rows = {1: start - timedelta(hours=1), 2: start + timedelta(seconds=2), 3: start + timedelta(hours=1)}
            with conn.cursor() as cursor:
                cursor.executemany("INSERT INTO events VALUES (%s, %s)", list(rows.items()))
            conn.execute("FLUSH")
            # Row 2 shows in `live` two seconds on, and leaves it five seconds later.
            states = _watch(conn, rows, start - timedelta(seconds=1), start + timedelta(seconds=8), timeout=30)
            assert any(state["live"] == {2} for state in states), states
            assert states[-1] == {"recent": {3}, "due": {1, 2}, "live": set()}

            # Changes to rows inside a window show at once; a row deleted while waiting never shows.
            now = conn.execute("SELECT now()").fetchone()[0]
            conn.execute("UPDATE events SET ts = %s WHERE id = 1", [now])
            conn.execute("DELETE FROM events WHERE id = 3")
            conn.execute("INSERT INTO events VALUES (4, %s), (5, %s)", [now + timedelta(seconds=3), now + timedelta(seconds=3)])
            conn.execute("DELETE FROM events WHERE id = 5")
            conn.execute("FLUSH")
            rows = {1: now, 2: rows[2], 4: now + timedelta(seconds=3)}
            seen, _ = _observe(conn)
            assert seen["recent"] == {1, 4}
            assert seen["due"] == {1, 2}
            before_kill = conn.execute("SELECT now()").fetchone()[0]
        server.kill()

    # The rows kept by the views' state go on crossing their bounds after a kill -9.
    with SluiceServer(data_dir=data_dir) as server:
        with connect(server) as conn:
            states = _watch(conn, rows, before_kill, now + timedelta(seconds=9), timeout=30)
            assert states[-1] == {"recent": set(), "due": {1, 2, 4}, "live": set()}
            assert conn.execute("SELECT count(*) FROM events").fetchone() == (3,)
