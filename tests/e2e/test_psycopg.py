"""psycopg 3 against the server: simple and extended queries, parameters of many types in text
and binary, server-side prepared statements, executemany (pipelined), fetching in pieces, and
transactions as psycopg's default (non-autocommit) mode issues them."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import psycopg
import pytest

from harness import Endpoint
from harness.endpoint import command_tag

UTC = dt.timezone.utc

ROWS = [
    (1, "ann", Decimal("10.50"), 1.5, True, dt.date(2024, 1, 15), dt.datetime(2024, 1, 15, 10, 30), dt.datetime(2024, 1, 15, 10, 30, tzinfo=UTC), 9_000_000_000),
    (2, "bob", Decimal("-0.25"), -2.0, False, dt.date(1999, 12, 31), dt.datetime(2000, 1, 1, 0, 0, 0, 500000), dt.datetime(2000, 1, 1, 5, 30, tzinfo=UTC), -1),
    (3, "", Decimal("0.00"), 0.0, None, None, None, None, None),
]
COLUMNS = "id int, name varchar, amount numeric(10,2), score double precision, ok boolean, born date, seen timestamp, zoned timestamptz, big bigint"


@pytest.fixture
def typed_table(conn: psycopg.Connection, table_name: str) -> str:
    conn.execute(f"CREATE TABLE {table_name} ({COLUMNS})")
    return table_name


def test_simple_query(conn: psycopg.Connection) -> None:
    assert conn.execute("SELECT 1, 'a', NULL, 2.5, true").fetchone() == (1, "a", None, Decimal("2.5"), True)


def test_multiple_statements_in_one_simple_query(conn: psycopg.Connection, table_name: str, target: Endpoint) -> None:
    cur = conn.execute(f"CREATE TABLE {table_name} (v int); INSERT INTO {table_name} VALUES (1), (2); SELECT sum(v) FROM {table_name}")
    assert cur.statusmessage == command_tag(target, "CREATE TABLE")
    assert cur.nextset() and cur.statusmessage == "INSERT 0 2" and cur.rowcount == 2
    assert cur.nextset() and cur.fetchall() == [(3,)]
    assert cur.nextset() is None


def test_text_parameters_round_trip(conn: psycopg.Connection, typed_table: str) -> None:
    with conn.cursor() as cur:
        for row in ROWS:
            cur.execute(f"INSERT INTO {typed_table} VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)", row)
            assert cur.rowcount == 1
        cur.execute(f"SELECT * FROM {typed_table} ORDER BY id")
        assert cur.fetchall() == ROWS
        assert [column.name for column in cur.description] == ["id", "name", "amount", "score", "ok", "born", "seen", "zoned", "big"]


def test_parameters_in_where_and_expressions(conn: psycopg.Connection, typed_table: str) -> None:
    conn.cursor().executemany(f"INSERT INTO {typed_table} VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)", ROWS)
    cur = conn.execute(f"SELECT name FROM {typed_table} WHERE id > %s AND born < %s ORDER BY id", (0, dt.date(2000, 1, 1)))
    assert cur.fetchall() == [("bob",)]
    cur = conn.execute("SELECT %s::int + %s::int, %s || %s, %s::numeric * 2", (40, 2, "ab", "cd", Decimal("1.25")))
    assert cur.fetchone() == (42, "abcd", Decimal("2.50"))
    assert conn.execute("SELECT %s::int IS NULL", (None,)).fetchone() == (True,)


def test_binary_results(target: Endpoint, typed_table: str) -> None:
    with psycopg.connect(target.conninfo, autocommit=True) as conn:
        conn.cursor().executemany(f"INSERT INTO {typed_table} VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)", ROWS)
        with conn.cursor(binary=True) as cur:
            cur.execute(f"SELECT * FROM {typed_table} ORDER BY id")
            assert cur.pgresult.fformat(0) == 1  # the server really answered in binary
            assert cur.fetchall() == ROWS


def test_binary_parameters(conn: psycopg.Connection, typed_table: str) -> None:
    with conn.cursor() as cur:
        for row in ROWS:
            cur.execute(f"INSERT INTO {typed_table} VALUES (%b, %b, %b, %b, %b, %b, %b, %b, %b)", row)
        cur.execute(f"SELECT count(*) FROM {typed_table} WHERE name = %b AND amount = %b", ("ann", Decimal("10.50")))
        assert cur.fetchone() == (1,)
        cur.execute(f"SELECT * FROM {typed_table} ORDER BY id")
        assert cur.fetchall() == ROWS


def test_server_side_prepared_statements(conn: psycopg.Connection, typed_table: str) -> None:
    insert = f"INSERT INTO {typed_table} (id, name, score) VALUES (%s, %s, %s)"
    for number in range(1, 6):
        conn.execute(insert, (number, f"n{number}", number / 2), prepare=True)
    query = f"SELECT name, score FROM {typed_table} WHERE id = %s"
    for number in range(1, 6):
        assert conn.execute(query, (number,), prepare=True).fetchone() == (f"n{number}", number / 2)
    assert conn.execute(f"SELECT count(*) FROM {typed_table}", prepare=True).fetchone() == (5,)


def test_executemany(conn: psycopg.Connection, typed_table: str) -> None:
    rows = [(number, f"name{number}", Decimal(number) / 4, float(number), number % 2 == 0) for number in range(200)]
    with conn.cursor() as cur:
        cur.executemany(f"INSERT INTO {typed_table} (id, name, amount, score, ok) VALUES (%s, %s, %s, %s, %s)", rows)
        cur.execute(f"SELECT count(*), sum(id), sum(amount), count(*) FILTER (WHERE ok) FROM {typed_table}")
        assert cur.fetchone() == (200, sum(range(200)), Decimal("4975.00"), 100)


def test_fetch_in_pieces(conn: psycopg.Connection, table_name: str) -> None:
    conn.execute(f"CREATE TABLE {table_name} (v int)")
    conn.cursor().executemany(f"INSERT INTO {table_name} VALUES (%s)", [(number,) for number in range(1000)])
    with conn.cursor() as cur:
        cur.execute(f"SELECT v FROM {table_name} ORDER BY v")
        seen = []
        while batch := cur.fetchmany(128):
            assert len(batch) <= 128
            seen.extend(value for (value,) in batch)
        assert seen == list(range(1000))
    with conn.cursor() as cur:
        streamed = [value for (value,) in cur.stream(f"SELECT v FROM {table_name} WHERE v % 7 = 0 ORDER BY v")]
        assert streamed == list(range(0, 1000, 7))


def test_default_transaction_mode(target: Endpoint, table_name: str) -> None:
    """psycopg's default mode wraps statements in BEGIN ... COMMIT, as most applications run."""
    with psycopg.connect(target.conninfo) as conn:
        conn.execute(f"CREATE TABLE {table_name} (v int)")
        conn.commit()
        with conn.transaction():
            conn.execute(f"INSERT INTO {table_name} VALUES (%s), (%s)", (1, 2))
        assert conn.execute(f"SELECT sum(v) FROM {table_name}").fetchone() == (3,)
        conn.commit()
    with psycopg.connect(target.conninfo, autocommit=True) as other:
        assert other.execute(f"SELECT count(*) FROM {table_name}").fetchone() == (2,)


def test_column_metadata(conn: psycopg.Connection) -> None:
    cur = conn.execute("SELECT 1::smallint AS a, 2::int AS b, 3::bigint AS c, 1.5::real AS d, 2.5::float8 AS e, 1.0::numeric AS f, true AS g, DATE '2024-01-01' AS h, TIMESTAMP '2024-01-01 00:00' AS i, TIMESTAMPTZ '2024-01-01 00:00+00' AS j, INTERVAL '1 day' AS k, '{}'::jsonb AS l")
    assert [(column.name, column.type_code) for column in cur.description] == [
        ("a", 21), ("b", 23), ("c", 20), ("d", 700), ("e", 701), ("f", 1700), ("g", 16),
        ("h", 1082), ("i", 1114), ("j", 1184), ("k", 1186), ("l", 3802),
    ]
    assert cur.fetchone() == (1, 2, 3, 1.5, 2.5, Decimal("1.0"), True, dt.date(2024, 1, 1), dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 1, tzinfo=UTC), dt.timedelta(days=1), {})


def test_returning_with_parameters(conn: psycopg.Connection, table_name: str) -> None:
    """RETURNING over the extended protocol: Describe gives the returned columns, Execute the rows."""
    conn.execute(f"CREATE TABLE {table_name} (id int, s varchar)")
    cursor = conn.execute(f"INSERT INTO {table_name} VALUES (%s, %s), (%s, %s) RETURNING id, s", (1, "x", 2, "y"))
    assert [column.name for column in cursor.description] == ["id", "s"]
    assert sorted(cursor.fetchall()) == [(1, "x"), (2, "y")]
    assert cursor.rowcount == 2
    assert conn.execute(f"UPDATE {table_name} SET s = %s WHERE id = %s RETURNING *", ("z", 2)).fetchall() == [(2, "z")]
    cursor = conn.execute(f"DELETE FROM {table_name} WHERE id = %s RETURNING s", (7,))
    assert (cursor.rowcount, cursor.fetchall()) == (0, [])
    assert conn.execute(f"DELETE FROM {table_name} WHERE id = %s RETURNING s || '!'", (1,)).fetchall() == [("x!",)]
