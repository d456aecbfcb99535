"""Tables and their rows survive a clean restart of `sluice serve` on the same --data-dir."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import psycopg

from harness import SluiceServer


def test_tables_survive_a_clean_restart() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="sluice-restart-"))
    try:
        with SluiceServer(data_dir=data_dir) as server:
            with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
                conn.execute("CREATE TABLE kept (id int PRIMARY KEY, name varchar, amount numeric(10,2), at timestamptz)")
                conn.execute("INSERT INTO kept VALUES (1, 'a', 1.50, '2024-01-01 10:00:00+00'), (2, NULL, NULL, NULL)")
                conn.execute("CREATE TABLE dropped (x int)")
                conn.execute("DROP TABLE dropped")
        with SluiceServer(data_dir=data_dir) as server:
            with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
                rows = conn.execute("SELECT id, name, amount::text, at::text FROM kept ORDER BY id").fetchall()
                assert rows == [(1, "a", "1.50", "2024-01-01 10:00:00+00"), (2, None, None, None)]
                # The primary key still upserts after the restart.
                conn.execute("INSERT INTO kept VALUES (1, 'b', 2, NULL)")
                assert conn.execute("SELECT name FROM kept WHERE id = 1").fetchone() == ("b",)
                tables = [row[0] for row in conn.execute("SHOW TABLES").fetchall()]
                assert tables == ["kept"]
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def test_materialized_views_are_rebuilt_after_a_restart() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="sluice-restart-mv-"))
    try:
        with SluiceServer(data_dir=data_dir) as server:
            with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
                conn.execute("CREATE TABLE sales (region varchar, amount int)")
                conn.execute("INSERT INTO sales VALUES ('n', 1), ('n', 2), ('s', 5)")
                conn.execute("CREATE MATERIALIZED VIEW by_region AS SELECT region, sum(amount) AS total FROM sales GROUP BY region")
                conn.execute("CREATE MATERIALIZED VIEW overall AS SELECT sum(total) AS total FROM by_region")
        with SluiceServer(data_dir=data_dir) as server:
            with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
                # Views are rebuilt from the tables at start, and are kept up to date again.
                conn.execute("FLUSH")
                assert conn.execute("SELECT region, total FROM by_region ORDER BY region").fetchall() == [("n", 3), ("s", 5)]
                assert conn.execute("SELECT total FROM overall").fetchone() == (8,)
                conn.execute("INSERT INTO sales VALUES ('s', 10)")
                conn.execute("FLUSH")
                assert conn.execute("SELECT total FROM overall").fetchone() == (18,)
                views = [row[0] for row in conn.execute("SHOW MATERIALIZED VIEWS").fetchall()]
                assert views == ["by_region", "overall"]
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def test_a_tables_on_conflict_behaviour_survives_a_kill(tmp_path: Path) -> None:
    """The ON CONFLICT clause is in the catalog, and the log's inserts replay with it."""
    data_dir = tmp_path / "data"
    with SluiceServer(data_dir=data_dir) as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            conn.execute("CREATE TABLE first_seen (id int PRIMARY KEY, v int) ON CONFLICT DO NOTHING")
            conn.execute("CREATE TABLE patched (id int PRIMARY KEY, v int, w varchar) ON CONFLICT DO UPDATE IF NOT NULL")
            conn.execute("INSERT INTO first_seen VALUES (1, 1), (1, 2), (2, 1)")
            conn.execute("INSERT INTO patched VALUES (1, 1, 'a')")
            conn.execute("INSERT INTO patched VALUES (1, NULL, 'b')")
        server.kill()
    with SluiceServer(data_dir=data_dir) as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            assert conn.execute("SELECT * FROM first_seen ORDER BY id").fetchall() == [(1, 1), (2, 1)]
            assert conn.execute("SELECT * FROM patched").fetchall() == [(1, 1, "b")]
            conn.execute("INSERT INTO first_seen VALUES (2, 9), (3, 3)")
            conn.execute("INSERT INTO patched VALUES (1, 5, NULL)")
            assert conn.execute("SELECT * FROM first_seen ORDER BY id").fetchall() == [(1, 1), (2, 1), (3, 3)]
            assert conn.execute("SELECT * FROM patched").fetchall() == [(1, 5, "b")]
