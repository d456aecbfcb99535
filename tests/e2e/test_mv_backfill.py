"""A view created while another session keeps writing starts from a consistent snapshot: after
FLUSH it equals its query, with no row lost or counted twice between backfill and changes."""

from __future__ import annotations

import threading
from collections import Counter

import psycopg

from harness import SluiceServer


def test_backfill_while_writes_continue() -> None:
    with SluiceServer() as server:
        conninfo = server.endpoint().conninfo
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute("CREATE TABLE events (id int PRIMARY KEY, k int, v int)")
            conn.execute("INSERT INTO events SELECT g, g % 7, g FROM generate_series(1, 2000) AS g")
            stop = threading.Event()
            written = []

            def writer() -> None:
                with psycopg.connect(conninfo, autocommit=True) as other:
                    next_id = 10_000
                    while not stop.is_set():
                        other.execute(f"INSERT INTO events VALUES ({next_id}, {next_id % 7}, 1), ({next_id + 1}, 3, 2)")
                        other.execute(f"DELETE FROM events WHERE id = {next_id - 2000}")
                        other.execute(f"UPDATE events SET v = v + 1 WHERE id = {next_id - 1000}")
                        written.append(next_id)
                        next_id += 2

            thread = threading.Thread(target=writer)
            thread.start()
            try:
                # Wait until the writer is running before creating the views.
                while len(written) < 20:
                    conn.execute("SELECT 1")
                conn.execute("CREATE MATERIALIZED VIEW per_k AS SELECT k, count(*) AS n, sum(v) AS s, max(v) AS m FROM events GROUP BY k")
                conn.execute("CREATE MATERIALIZED VIEW big AS SELECT id, v FROM events WHERE v > 100")
                created_at = len(written)
                while len(written) < created_at + 50:
                    conn.execute("SELECT 1")
            finally:
                stop.set()
                thread.join()
            conn.execute("FLUSH")
            for view, query in [
                ("per_k", "SELECT k, count(*), sum(v), max(v) FROM events GROUP BY k"),
                ("big", "SELECT id, v FROM events WHERE v > 100"),
            ]:
                expected = Counter(conn.execute(query).fetchall())
                actual = Counter(conn.execute(f"SELECT * FROM {view}").fetchall())
                assert actual == expected, f"{view}: {list((actual - expected).items())[:3]} vs {list((expected - actual).items())[:3]}"
