"""Many sessions at once: 20 threads, each with its own connection, insert and query concurrently."""

from __future__ import annotations

import concurrent.futures

import psycopg

from harness import Endpoint

THREADS = 20
ROWS_PER_THREAD = 25


def _session(target: Endpoint, table: str, worker: int) -> tuple[int, int]:
    with psycopg.connect(target.conninfo, autocommit=True) as conn:
        for number in range(ROWS_PER_THREAD):
            conn.execute(f"INSERT INTO {table} VALUES (%s, %s, %s)", (worker, number, f"w{worker}-{number}"))
            if number % 5 == 4:
                # Read-your-writes within the session while others write.
                count = conn.execute(f"SELECT count(*) FROM {table} WHERE worker = %s", (worker,)).fetchone()[0]
                assert count == number + 1, (worker, number, count)
        row = conn.execute(f"SELECT count(*), sum(n) FROM {table} WHERE worker = %s", (worker,)).fetchone()
        return row[0], row[1]


def test_concurrent_sessions(target: Endpoint, table_name: str) -> None:
    with psycopg.connect(target.conninfo, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {table_name} (worker int, n int, label varchar)")
    with concurrent.futures.ThreadPoolExecutor(max_workers=THREADS) as pool:
        futures = [pool.submit(_session, target, table_name, worker) for worker in range(THREADS)]
        results = [future.result(timeout=120) for future in futures]
    assert results == [(ROWS_PER_THREAD, sum(range(ROWS_PER_THREAD)))] * THREADS
    with psycopg.connect(target.conninfo, autocommit=True) as conn:
        assert conn.execute(f"SELECT count(*), count(DISTINCT worker), count(DISTINCT label) FROM {table_name}").fetchone() == (
            THREADS * ROWS_PER_THREAD, THREADS, THREADS * ROWS_PER_THREAD,
        )


def test_many_idle_connections(target: Endpoint) -> None:
    connections = [psycopg.connect(target.conninfo, autocommit=True) for _ in range(50)]
    try:
        assert [conn.execute("SELECT %s::int", (index,)).fetchone()[0] for index, conn in enumerate(connections)] == list(range(50))
    finally:
        for conn in connections:
            conn.close()
