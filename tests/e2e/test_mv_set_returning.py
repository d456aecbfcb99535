"""Materialized views with set-returning functions (in the select list, over constants in FROM,
and over earlier FROM items' columns through LATERAL) equal their queries run as batch SELECTs after every FLUSH, under random inserts, updates
and deletes: the differential test of the stream ProjectSet and table-function operators.
The same views also restart: their rows come back and keep up with the writes after it."""

from __future__ import annotations

import random
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import psycopg

from harness import SluiceServer

SEED = 20261124
ROUNDS = 40

VIEWS = {
    "v_unnest": "SELECT id, unnest(tags) AS tag FROM s",
    "v_lockstep": "SELECT id, unnest(tags) AS tag, generate_series(1, n) AS g, n * 2 AS n2 FROM s",
    "v_series_count": "SELECT g, count(s.id) AS c FROM generate_series(0, 5) g LEFT JOIN s ON s.n = g GROUP BY g",
    "v_tag_totals": "SELECT tag, count(*) AS c, sum(id) AS ids FROM (SELECT id, unnest(tags) AS tag FROM s) t GROUP BY tag",
    # Functions in FROM over earlier items' columns (implicitly LATERAL), and a LATERAL select.
    "v_lateral_unnest": "SELECT s.id, x FROM s, unnest(s.tags) x",
    "v_lateral_series": "SELECT s.id, g FROM s CROSS JOIN LATERAL generate_series(1, s.n) g",
    "v_lateral_select": "SELECT s.id, l.m FROM s CROSS JOIN LATERAL (SELECT s.n * 2 AS m, s.id + 1 AS i) l",
}


def multiset(rows) -> Counter:
    return Counter(tuple(row) for row in rows)


def random_row(r: random.Random, key: int) -> str:
    tags = "NULL" if r.random() < 0.1 else "ARRAY[" + ", ".join(str(r.randrange(6)) for _ in range(r.randrange(4))) + "]::int[]"
    n = "NULL" if r.random() < 0.1 else str(r.randrange(5))
    return f"({key}, {tags}, {n})"


def check(conn: psycopg.Connection) -> None:
    conn.execute("FLUSH")
    for name, query in VIEWS.items():
        view = multiset(conn.execute(f"SELECT * FROM {name}").fetchall())
        batch = multiset(conn.execute(query).fetchall())
        assert view == batch, f"{name}: only in the view {list((view - batch).items())[:5]}, only in the query {list((batch - view).items())[:5]}"


def test_set_returning_views_equal_their_queries_under_random_writes() -> None:
    r = random.Random(SEED)
    keys: list[int] = []
    next_key = 0
    data_dir = Path(tempfile.mkdtemp(prefix="sluice-srf-views-"))
    try:
        with SluiceServer(data_dir=data_dir) as server, psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            conn.execute("CREATE TABLE s (id int PRIMARY KEY, tags int[], n int)")
            for name, query in VIEWS.items():
                conn.execute(f"CREATE MATERIALIZED VIEW {name} AS {query}")
            for round_ in range(ROUNDS):
                rows = []
                for _ in range(30):
                    rows.append(random_row(r, next_key))
                    keys.append(next_key)
                    next_key += 1
                conn.execute("INSERT INTO s VALUES " + ", ".join(rows))
                # Upserts and updates change the arrays and the series lengths of old rows.
                conn.execute("INSERT INTO s VALUES " + ", ".join(random_row(r, k) for k in r.sample(keys, min(10, len(keys)))))
                chosen = r.sample(keys, min(10, len(keys)))
                conn.execute(f"UPDATE s SET n = (coalesce(n, 0) + 1) % 5 WHERE id IN ({', '.join(map(str, chosen))})")
                gone = set(r.sample(keys, min(8, len(keys))))
                keys = [k for k in keys if k not in gone]
                conn.execute(f"DELETE FROM s WHERE id IN ({', '.join(map(str, gone))})")
                if round_ % 5 == 4:
                    check(conn)
            check(conn)
            assert conn.execute("SELECT count(*) FROM v_unnest").fetchone()[0] > 100
        # After a restart the views hold the same rows and keep up with new writes.
        with SluiceServer(data_dir=data_dir) as server, psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            check(conn)
            conn.execute("INSERT INTO s VALUES " + ", ".join(random_row(r, next_key + i) for i in range(20)))
            conn.execute("DELETE FROM s WHERE id % 3 = 0")
            check(conn)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
