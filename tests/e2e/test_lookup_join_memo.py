"""A lookup join (FOR SYSTEM_TIME AS OF PROCTIME()) over a stream side whose rows change: each row
is joined with the table as it is when the row arrives, and its delete or update takes back what
it was joined into then, whatever the table holds now. A model of those rules (each row's joined
name recorded when it was inserted) is the oracle, through rounds of random changes to both
tables and across a kill -9 and restart (the memo of joined rows is in the view's checkpoints).

Each round changes the table looked up, then FLUSHes, before it writes the stream side: a lookup
sees the table as of the rows that arrived before it, and within one epoch the two inputs' order
is not fixed."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import psycopg

from harness import SluiceServer

KEYS = 12


def test_lookup_join_takes_back_what_each_row_was_joined_into(tmp_path: Path) -> None:
    rng = random.Random(3)
    data_dir = tmp_path / "data"
    names = {k: f"n{k}" for k in range(0, KEYS, 2)}
    rows: dict[int, int] = {}          # id -> k, the stream side
    joined: dict[int, str | None] = {}  # id -> the name it was joined with (None: no match)
    next_id = iter(range(1_000_000))

    def expected() -> tuple[Counter, Counter]:
        inner = Counter((i, joined[i]) for i in rows if joined[i] is not None)
        left = Counter((i, rows[i], joined[i]) for i in rows)
        return inner, left

    def actual(conn: psycopg.Connection) -> tuple[Counter, Counter]:
        conn.execute("FLUSH")
        return (Counter(conn.execute("SELECT id, name FROM tracked").fetchall()),
                Counter(conn.execute("SELECT id, k, name FROM tracked_left").fetchall()))

    def round_(conn: psycopg.Connection) -> None:
        # The table looked up changes first.
        for k in rng.sample(range(KEYS), 3):
            if k in names and rng.random() < 0.3:
                conn.execute("DELETE FROM dim WHERE k = %s", [k])
                del names[k]
            else:
                names[k] = f"n{k}.{rng.randrange(1000)}"
                conn.execute("INSERT INTO dim VALUES (%s, %s)", [k, names[k]])
        conn.execute("FLUSH")
        # Then the stream side: new rows, rows gone, rows moved to another key.
        for _ in range(8):
            i, k = next(next_id), rng.randrange(KEYS)
            conn.execute("INSERT INTO mutable VALUES (%s, %s)", [i, k])
            rows[i], joined[i] = k, names.get(k)
        for i in rng.sample(sorted(rows), min(3, len(rows))):
            conn.execute("DELETE FROM mutable WHERE id = %s", [i])
            del rows[i], joined[i]
        for i in rng.sample(sorted(rows), min(3, len(rows))):
            k = rng.randrange(KEYS)
            conn.execute("UPDATE mutable SET k = %s WHERE id = %s", [k, i])
            rows[i], joined[i] = k, names.get(k)

    with SluiceServer(data_dir=data_dir) as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            conn.execute("CREATE TABLE dim (k int PRIMARY KEY, name varchar)")
            conn.execute("CREATE TABLE mutable (id int PRIMARY KEY, k int)")
            for k, name in names.items():
                conn.execute("INSERT INTO dim VALUES (%s, %s)", [k, name])
            conn.execute("CREATE MATERIALIZED VIEW tracked AS SELECT m.id, d.name FROM mutable m "
                         "JOIN dim FOR SYSTEM_TIME AS OF PROCTIME() d ON m.k = d.k")
            conn.execute("CREATE MATERIALIZED VIEW tracked_left AS SELECT m.id, m.k, d.name FROM mutable m "
                         "LEFT JOIN dim FOR SYSTEM_TIME AS OF PROCTIME() d ON m.k = d.k")
            for _ in range(4):
                round_(conn)
                assert actual(conn) == expected()
            conn.execute("FLUSH")
        server.kill()
    with SluiceServer(data_dir=data_dir) as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            assert actual(conn) == expected()
            for _ in range(4):
                round_(conn)
                assert actual(conn) == expected()
