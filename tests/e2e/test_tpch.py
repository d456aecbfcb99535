"""TPC-H's 22 queries at scale factor 0.1, each result equal to DuckDB's on the same data.

DuckDB's `tpch` extension (from the PyPI package duckdb-ext-tpch, pinned with duckdb; nothing is
downloaded) generates the data and gives the queries' text. The data goes into Sluice through the
wire, as multi-row INSERTs, and each query runs unchanged on both. DuckDB is the oracle: a result
matches when it has the same rows in the same order (the queries' ORDER BY keys are unique),
numbers equal to a relative 1e-9 (DuckDB's averages are doubles, Sluice's are numerics)."""

from __future__ import annotations

import datetime
import decimal
import math
import os
from pathlib import Path
from typing import Iterator

import duckdb
from duckdb_support import duckdb_with
import psycopg
import pytest

from harness import SluiceServer

SCALE = float(os.environ.get("SLUICE_TPCH_SF", "0.1"))


def tpch_duckdb(scale: float) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB holding TPC-H's tables at `scale`, from the installed extension."""
    con = duckdb_with("tpch")
    con.execute(f"CALL dbgen(sf={scale})")
    return con


def _literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, datetime.date):
        return f"DATE '{value.isoformat()}'"
    return str(value)


def load_tpch(oracle: duckdb.DuckDBPyConnection, conn: psycopg.Connection, batch: int = 2000) -> dict[str, int]:
    """Creates TPC-H's tables in Sluice with DuckDB's column types and copies the rows over."""
    counts: dict[str, int] = {}
    tables = [name for (name,) in oracle.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()]
    for table in tables:
        columns = oracle.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position", [table]).fetchall()
        conn.execute(f"CREATE TABLE {table} (" + ", ".join(f"{name} {kind.replace('DECIMAL', 'NUMERIC')}" for name, kind in columns) + ")")
        cursor = oracle.execute(f"SELECT * FROM {table}")
        total = 0
        while rows := cursor.fetchmany(batch):
            conn.execute(f"INSERT INTO {table} VALUES " + ",".join("(" + ",".join(_literal(v) for v in row) + ")" for row in rows))
            total += len(rows)
        counts[table] = total
    return counts


def _same(a: object, b: object) -> bool:
    if isinstance(a, (int, float, decimal.Decimal)) and isinstance(b, (int, float, decimal.Decimal)):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)
    return a == b


@pytest.fixture(scope="module")
def tpch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[duckdb.DuckDBPyConnection, psycopg.Connection]]:
    oracle = tpch_duckdb(SCALE)
    data = tmp_path_factory.mktemp("tpch") / "data"
    with SluiceServer(data_dir=data, extra_args=["--no-broker"]) as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            conn.execute("SET synchronous_commit = off")
            counts = load_tpch(oracle, conn)
            for table, count in counts.items():
                assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (count,)
            yield oracle, conn


QUERIES = range(1, 23)


@pytest.mark.parametrize("number", QUERIES, ids=[f"q{n}" for n in QUERIES])
def test_query_equals_duckdb(tpch: tuple[duckdb.DuckDBPyConnection, psycopg.Connection], number: int) -> None:
    oracle, conn = tpch
    (text,) = oracle.execute("SELECT query FROM tpch_queries() WHERE query_nr = ?", [number]).fetchone()
    expected = oracle.execute(text).fetchall()
    got = conn.execute(text).fetchall()
    assert expected, f"q{number}: DuckDB returned no rows, so the comparison would prove nothing"
    assert len(got) == len(expected), f"q{number}: {len(got)} rows, DuckDB {len(expected)}"
    for index, (row, want) in enumerate(zip(got, expected)):
        assert len(row) == len(want) and all(_same(a, b) for a, b in zip(row, want)), f"q{number} row {index}: {row} != {want}"


def _sorted_rows(rows: list[tuple]) -> list[tuple]:
    """Rows in one order whatever the engine's, numbers rounded for the comparison."""
    def key(value: object) -> tuple:
        if value is None:
            return (0, "")
        if isinstance(value, (int, float, decimal.Decimal)):
            return (1, f"{float(value):.6e}")
        return (2, str(value))
    return sorted(rows, key=lambda row: tuple(key(v) for v in row))


def _views_equal(oracle: duckdb.DuckDBPyConnection, conn: psycopg.Connection, texts: dict[int, str]) -> None:
    conn.execute("FLUSH")
    for number, text in texts.items():
        expected = _sorted_rows(oracle.execute(text).fetchall())
        got = _sorted_rows(conn.execute(f"SELECT * FROM tpch_q{number}").fetchall())
        assert len(got) == len(expected), f"view q{number}: {len(got)} rows, DuckDB {len(expected)}"
        for index, (row, want) in enumerate(zip(got, expected)):
            assert all(_same(a, b) for a, b in zip(row, want)), f"view q{number} row {index}: {row} != {want}"


def test_queries_as_views_follow_refreshes(tpch: tuple[duckdb.DuckDBPyConnection, psycopg.Connection]) -> None:
    """Each query as a materialized view (multi-way joins, subqueries, aggregates and top-N kept
    up to date) equals DuckDB's answer after it is made, and again after TPC-H's refresh
    functions change the data: RF2 deletes a set of orders with their lineitems, RF1 inserts new
    orders and lineitems (here: the deleted ones back under new keys, with changed quantities)."""
    oracle, conn = tpch
    texts = {number: oracle.execute("SELECT query FROM tpch_queries() WHERE query_nr = ?", [number]).fetchone()[0] for number in QUERIES}
    for number, text in texts.items():
        conn.execute(f"CREATE MATERIALIZED VIEW tpch_q{number} AS {text}")
    _views_equal(oracle, conn, texts)

    # RF2, then RF1: every 97th order goes, and comes back under a key past the last one.
    (top,) = oracle.execute("SELECT max(o_orderkey) FROM orders").fetchone()
    picked = "o_orderkey % 97 = 3"
    moved = oracle.execute(f"SELECT * FROM orders WHERE {picked}").fetchall()
    moved_items = oracle.execute(f"SELECT * FROM lineitem WHERE l_orderkey IN (SELECT o_orderkey FROM orders WHERE {picked})").fetchall()
    assert len(moved) > 100 and len(moved_items) > 400
    for statement in (f"DELETE FROM lineitem WHERE l_orderkey IN (SELECT o_orderkey FROM orders WHERE {picked})",
                      f"DELETE FROM orders WHERE {picked}"):
        oracle.execute(statement)
        conn.execute(statement.replace("IN (SELECT o_orderkey FROM orders WHERE o_orderkey % 97 = 3)", "% 97 = 3"))
    orders = [(key + top, *rest) for key, *rest in moved]
    items = [(key + top, part, supplier, line, quantity + 1, *rest) for key, part, supplier, line, quantity, *rest in moved_items]
    for table, rows in (("orders", orders), ("lineitem", items)):
        values = ",".join("(" + ",".join(_literal(v) for v in row) + ")" for row in rows)
        oracle.execute(f"INSERT INTO {table} VALUES {values}")
        conn.execute(f"INSERT INTO {table} VALUES {values}")
    _views_equal(oracle, conn, texts)
