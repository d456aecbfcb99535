"""Metabase's connection and sync queries (tests/fixtures/metabase/sync.sql, as its PostgreSQL
driver sends them) over the extended protocol, as pgjdbc runs them: every statement succeeds,
and the answers equal PostgreSQL's for the same tables, view and materialized view (the
oracle). Seed 003 points Metabase at its warehouse; these are the queries that decide which
tables, columns, keys and indexes it shows."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import psycopg
import pytest

from harness import Endpoint

SYNC_SQL = Path(__file__).resolve().parents[1] / "fixtures" / "metabase" / "sync.sql"

# Text columns are `varchar` here: Sluice keeps `text` as `character varying`.
DDL = [
    "CREATE TABLE customers (id int PRIMARY KEY, name varchar NOT NULL, city varchar)",
    "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int NOT NULL, total numeric(10,2), placed timestamptz,"
    " paid boolean, score double precision, note varchar DEFAULT 'none')",
    "CREATE TABLE events (kind varchar, at timestamp, payload jsonb)",
    "CREATE INDEX orders_placed ON orders (placed)",
    "INSERT INTO customers VALUES (1, 'ada', 'paris'), (2, 'bob', NULL), (3, 'cyd', 'oslo')",
    "INSERT INTO orders VALUES (10, 1, 120.50, '2026-01-02 03:04:05+00', true, 0.5, 'x'),"
    " (11, 1, 80.00, NULL, false, NULL, NULL), (12, 3, 300.00, '2026-02-01 00:00:00+00', true, 2, 'y')",
    "INSERT INTO events VALUES ('click', '2026-01-01 00:00:00', '{\"a\": 1}')",
    "CREATE VIEW big_orders AS SELECT id, total FROM orders WHERE total > 100",
    "CREATE MATERIALIZED VIEW spend AS SELECT customer_id, sum(total) AS spent, count(*) AS n FROM orders GROUP BY customer_id",
]

# Statements whose rows have no order of their own: compared as sorted lists.
UNORDERED = {"table_privileges", "indexes"}


def sync_statements() -> list[tuple[str, str]]:
    text = SYNC_SQL.read_text()
    blocks = re.split(r"^-- name: (\w+)\n", text, flags=re.MULTILINE)[1:]
    return [(name, body.strip().rstrip(";")) for name, body in zip(blocks[::2], blocks[1::2])]


def run_sync(endpoint: Endpoint) -> dict[str, list[tuple]]:
    """Each statement's rows (an empty list for those without), run in one session in order,
    each prepared as pgjdbc prepares them."""
    results = {}
    with psycopg.connect(endpoint.conninfo, autocommit=True) as conn:
        for name, statement in sync_statements():
            cursor = conn.execute(statement, prepare=True)
            rows = cursor.fetchall() if cursor.description else []
            # (The two servers' databases have different names.)
            results[name] = [tuple("<db>" if value == endpoint.dbname else value for value in row) for row in rows]
    return results


@pytest.fixture(scope="module")
def answers(target: Endpoint, pg_oracle) -> Iterator[tuple[dict, dict]]:
    oracle = pg_oracle.create_database("metabase")
    try:
        for endpoint in (target, oracle):
            with psycopg.connect(endpoint.conninfo, autocommit=True) as conn:
                for statement in DDL:
                    conn.execute(statement)
                if endpoint is target:
                    conn.execute("FLUSH")
        yield run_sync(target), run_sync(oracle)
    finally:
        pg_oracle.drop_database(oracle)


def test_every_sync_statement_runs(answers) -> None:
    sluice, postgres = answers
    assert list(sluice) == [name for name, _ in sync_statements()]
    assert sluice["show_timezone"] == [("UTC",)]


@pytest.mark.parametrize("name", ["schemas", "table_privileges", "fields", "foreign_keys", "indexes", "enum_types"])
def test_sync_answers_equal_postgres(answers, name: str) -> None:
    sluice, postgres = answers
    actual, expected = sluice[name], postgres[name]
    if name in UNORDERED:
        actual, expected = sorted(actual, key=repr), sorted(expected, key=repr)
    assert actual == expected


def test_tables_equal_postgres_with_live_row_counts(answers) -> None:
    sluice, postgres = answers
    # (PostgreSQL's statistics arrive late: its row estimates are left out of the comparison.)
    assert [row[:4] for row in sluice["tables"]] == [row[:4] for row in postgres["tables"]]
    assert {row[1]: row[4] for row in sluice["tables"]} == {"customers": 3, "orders": 3, "events": 1, "spend": 2, "big_orders": None}


def test_fields_show_keys_and_types(answers) -> None:
    sluice, _ = answers
    fields = {(row[4], row[0]): row for row in sluice["fields"]}
    # name, database-type, position, schema, table, pk?, comment, required, auto-increment
    assert fields[("orders", "id")] == ("id", "int8", 0, "public", "orders", True, None, True, False)
    assert fields[("orders", "total")][1:3] == ("numeric", 2)
    assert fields[("orders", "note")][7] is False
    assert fields[("spend", "spent")][1] == "numeric"
    assert fields[("events", "payload")][1] == "jsonb"
