"""CancelRequest: psycopg's conn.cancel() stops a long query with SQLSTATE 57014 and the
connection stays usable."""

from __future__ import annotations

import threading
import time

import psycopg

from harness import Endpoint

ROWS = 2000  # a three-way cross join of 2000 rows is 8e9 combinations: minutes of work


def test_cancel_long_query(target: Endpoint, table_name: str) -> None:
    with psycopg.connect(target.conninfo, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {table_name} (v int)")
        conn.execute(f"INSERT INTO {table_name} VALUES " + ", ".join(f"({n})" for n in range(ROWS)))
        outcome: dict[str, object] = {}

        def long_query() -> None:
            try:
                outcome["rows"] = conn.execute(f"SELECT count(*) FROM {table_name} a, {table_name} b, {table_name} c WHERE a.v + b.v + c.v < 0").fetchall()
            except psycopg.Error as error:
                outcome["error"] = error

        worker = threading.Thread(target=long_query, daemon=True)
        started = time.monotonic()
        worker.start()
        # A cancel that arrives before the query starts is ignored, so keep cancelling until the
        # query ends (polling the worker, no fixed sleep).
        while worker.is_alive() and time.monotonic() - started < 60:
            conn.cancel()
            worker.join(timeout=0.25)
        if worker.is_alive():
            target.interrupt()
            raise AssertionError("the query was not cancelled within 60 s")
        error = outcome.get("error")
        assert isinstance(error, psycopg.errors.QueryCanceled), outcome
        assert error.sqlstate == "57014"
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_cancel_with_nothing_running(conn: psycopg.Connection) -> None:
    conn.cancel()
    assert conn.execute("SELECT 2").fetchone() == (2,)
