"""Helpers for the source tests: a session on the server under test, polling for a condition,
and a source's counters and status from `sluice_sources`."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import psycopg
import pytest

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


def micros(text: str) -> int:
    """An ISO timestamp with a zone as microseconds since 1970."""
    return (datetime.fromisoformat(text) - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(microseconds=1)


def kept_by_watermark(events: list[dict], lag: int) -> tuple[list[dict], int, int]:
    """The events (with an ISO `ts`) a source's `WATERMARK FOR ts AS ts - lag` keeps, in order, row
    by row: an event is late when its time is below the largest `ts - lag` of the events kept
    before it. Also how many are late, and the watermark after them (microseconds)."""
    watermark = -(2**63)
    kept = []
    for event in events:
        at = micros(event["ts"])
        if at < watermark:
            continue
        kept.append(event)
        watermark = max(watermark, at - lag)
    return kept, len(events) - len(kept), watermark


def comparable_rows(rows, digits: int = 6) -> list[tuple]:
    """Rows in a form two engines' answers can be compared in, as multisets: a timestamp with a
    zone as microseconds since 1970 (DuckDB's `epoch_us`), one without as its ISO text, numbers
    as floats rounded to `digits`, sorted (numbers by value, NULLs last)."""
    def value(v):
        if isinstance(v, datetime):
            if not v.tzinfo:
                return v.isoformat(sep=" ")
            v = (v - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(microseconds=1)
        if isinstance(v, (Decimal, float)) or (isinstance(v, int) and not isinstance(v, bool)):
            return round(float(v), digits)
        return v

    def order(x):
        if x is None:
            return (2, 0.0, "")
        if isinstance(x, float):
            return (0, x, "")
        return (1, 0.0, str(x))
    return sorted((tuple(value(v) for v in row) for row in rows), key=lambda row: tuple(order(x) for x in row))


def statement_error(conn: psycopg.Connection, statement: str) -> psycopg.Error:
    """The error `statement` fails with (the test fails if it succeeds)."""
    with pytest.raises(psycopg.Error) as failure:
        conn.execute(statement)
    return failure.value
