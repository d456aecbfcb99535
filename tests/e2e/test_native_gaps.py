"""Gaps of the native dialect a RisingWave or PostgreSQL user meets, each checked against a real
PostgreSQL (the oracle): make_timestamp and make_timestamptz."""

from __future__ import annotations

import psycopg
import pytest

from harness import SluiceServer
from source_support import connect


@pytest.fixture(scope="module")
def server():
    with SluiceServer() as running:
        yield running


@pytest.fixture
def oracle(pg_oracle):
    endpoint = pg_oracle.create_database("gaps")
    try:
        yield endpoint
    finally:
        pg_oracle.drop_database(endpoint)


def _same(mine: psycopg.Connection, theirs: psycopg.Connection, sql: str) -> None:
    """The statement's rows, or its error's SQLSTATE, equal on both."""
    results = []
    for conn in (mine, theirs):
        try:
            results.append(("rows", conn.execute(sql).fetchall()))
        except psycopg.Error as error:
            results.append(("error", error.sqlstate))
    assert results[0] == results[1], sql


def test_make_timestamp_and_timestamptz_equal_postgresql(server: SluiceServer, oracle) -> None:
    with connect(server) as mine, psycopg.connect(oracle.conninfo, autocommit=True) as theirs:
        for conn in (mine, theirs):
            conn.execute("SET TIME ZONE 'Europe/Paris'")
        cases = [
            "SELECT make_timestamp(2026, 11, 29, 13, 45, 30.25)",
            "SELECT make_timestamp(2024, 2, 29, 0, 0, 0)",
            "SELECT make_timestamp(2026, 1, 1, 24, 0, 0)",
            "SELECT make_timestamp(-44, 3, 15, 12, 0, 0)",
            "SELECT make_timestamp(2026, 2, 29, 0, 0, 0)",
            "SELECT make_timestamp(2026, 13, 1, 0, 0, 0)",
            "SELECT make_timestamp(0, 1, 1, 0, 0, 0)",
            "SELECT make_timestamp(2026, 1, 1, 25, 0, 0)",
            "SELECT make_timestamp(2026, 1, 1, 1, 60, 0)",
            "SELECT make_timestamp(2026, 1, 1, 1, 1, -1)",
            "SELECT make_timestamp(2026, 1, 1, 1, 1, NULL)",
            "SELECT make_timestamptz(2026, 7, 14, 12, 0, 0)",
            "SELECT make_timestamptz(2026, 7, 14, 12, 0, 0, 'UTC')",
            "SELECT make_timestamptz(2026, 7, 14, 12, 0, 0, 'America/New_York')",
            "SELECT make_timestamptz(2026, 3, 29, 2, 30, 0)",
            "SELECT make_timestamptz(2026, 10, 25, 2, 30, 0, 'Europe/Paris')",
            "SELECT make_timestamptz(2026, 1, 1, 0, 0, 0, 'Nowhere/Else')",
            "SELECT make_timestamptz(y, 6, 1, 8, 15, 0.5) FROM (VALUES (2020), (2021), (NULL)) AS v(y) ORDER BY 1",
        ]
        for sql in cases:
            _same(mine, theirs, sql)
