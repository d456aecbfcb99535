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
