"""Helpers for the source tests: a session on the server under test, polling for a condition,
and a source's counters and status from `sluice_sources`."""

from __future__ import annotations

import time

import psycopg

from harness import SluiceServer


def connect(server: SluiceServer) -> psycopg.Connection:
    """An autocommit session on `server`."""
    return psycopg.connect(server.endpoint().conninfo, autocommit=True)


def wait_until(condition, timeout: float, what: str):
    """Polls `condition` every 50 ms until it returns something true, and returns that; fails the
    test after `timeout` seconds, naming `what` it waited for."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}"
        time.sleep(0.05)


def source_status(conn: psycopg.Connection, name: str) -> tuple[int, int, str]:
    """`(rows_read, rows_rejected, status)` of the connector of source or table `name`."""
    row = conn.execute("SELECT rows_read, rows_rejected, status FROM sluice_sources WHERE name = %s", (name,)).fetchone()
    assert row is not None, f"no connector for {name} in sluice_sources"
    return row
