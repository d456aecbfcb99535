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


def test_first_and_last_value_with_distinct(server: SluiceServer) -> None:
    """RisingWave's first_value/last_value(DISTINCT x ORDER BY x): the first (last) of the distinct
    values, which is the first (last) value; worked out by hand, in a query and in a view."""
    with connect(server) as conn:
        conn.execute("CREATE TABLE fv (a int, b int)")
        conn.execute("INSERT INTO fv VALUES (1, 10), (1, 20), (1, 10), (2, 30), (2, 10), (2, NULL)")
        query = ("SELECT a, first_value(DISTINCT b ORDER BY b) AS f, last_value(DISTINCT b ORDER BY b) AS l, "
                 "first_value(DISTINCT b ORDER BY b DESC) AS fd FROM fv GROUP BY a ORDER BY a")
        expected = [(1, 10, 20, 20), (2, 10, None, None)]
        assert conn.execute(query).fetchall() == expected
        conn.execute("CREATE MATERIALIZED VIEW fv_view AS " + query.replace(" ORDER BY a", ""))
        conn.execute("FLUSH")
        assert conn.execute("SELECT * FROM fv_view ORDER BY a").fetchall() == expected
        with pytest.raises(psycopg.Error) as raised:
            conn.execute("SELECT first_value(DISTINCT b ORDER BY a) FROM fv")
        assert raised.value.sqlstate == "42P10"


def test_union_corresponding(server: SluiceServer) -> None:
    """UNION/INTERSECT/EXCEPT [ALL] CORRESPONDING [BY (…)]: columns matched by name in the left
    side's order (or the listed one); the expected rows are worked out by hand."""
    with connect(server) as conn:
        conn.execute("CREATE TABLE cl (a int, b varchar, c int)")
        conn.execute("CREATE TABLE cr (c int, x int, a int)")
        conn.execute("INSERT INTO cl VALUES (1, 'p', 10), (2, 'q', 20)")
        conn.execute("INSERT INTO cr VALUES (10, 0, 1), (30, 0, 3)")
        assert conn.execute("SELECT * FROM cl UNION ALL CORRESPONDING SELECT * FROM cr ORDER BY a").fetchall() == [
            (1, 10), (1, 10), (2, 20), (3, 30)]
        assert conn.execute("SELECT * FROM cl UNION CORRESPONDING SELECT * FROM cr ORDER BY a").fetchall() == [(1, 10), (2, 20), (3, 30)]
        assert conn.execute("SELECT * FROM cl UNION CORRESPONDING BY (c) SELECT * FROM cr ORDER BY c").fetchall() == [(10,), (20,), (30,)]
        assert conn.execute("SELECT * FROM cl INTERSECT CORRESPONDING BY (c, a) SELECT * FROM cr").fetchall() == [(10, 1)]
        assert conn.execute("SELECT * FROM cl EXCEPT CORRESPONDING SELECT * FROM cr").fetchall() == [(2, 20)]
        for bad, state in [("SELECT a FROM cl UNION CORRESPONDING SELECT x FROM cr", "42601"),
                           ("SELECT * FROM cl UNION CORRESPONDING BY (b) SELECT * FROM cr", "42703"),
                           ("SELECT a, a FROM cl UNION CORRESPONDING SELECT a FROM cr", "42701")]:
            with pytest.raises(psycopg.Error) as raised:
                conn.execute(bad)
            assert raised.value.sqlstate == state, bad


def test_numeric_keeps_its_scale_in_views_as_postgresql_shows_it(server: SluiceServer, oracle) -> None:
    """numeric's text, trailing zeros and all, is PostgreSQL's in a query and in a materialized
    view (the oracle runs the view's query)."""
    query = "SELECT a, sum(c) AS s, avg(c) AS m, max(c) AS x, sum(c * 2) AS d FROM nums GROUP BY a"
    rows = "(1, 1.50), (1, 2.5), (2, 3.000), (2, 0.10), (3, 100)"
    with connect(server) as mine, psycopg.connect(oracle.conninfo, autocommit=True) as theirs:
        for conn in (mine, theirs):
            conn.execute("CREATE TABLE nums (a int, c numeric)")
            conn.execute(f"INSERT INTO nums VALUES {rows}")
        mine.execute(f"CREATE MATERIALIZED VIEW nums_view AS {query}")
        mine.execute("FLUSH")
        text = "SELECT a, s::text, m::text, x::text, d::text FROM ({}) AS q ORDER BY a"
        want = theirs.execute(text.format(query)).fetchall()
        assert mine.execute(text.format(query)).fetchall() == want
        assert mine.execute(text.format("SELECT * FROM nums_view")).fetchall() == want


def test_aggregates_in_window_definitions_equal_postgresql(server: SluiceServer, oracle) -> None:
    """Window functions over a grouped query whose PARTITION BY and ORDER BY are aggregates, some
    of them nowhere else in the query."""
    with connect(server) as mine, psycopg.connect(oracle.conninfo, autocommit=True) as theirs:
        for conn in (mine, theirs):
            conn.execute("CREATE TABLE wa (g int, h int, v int)")
            conn.execute("INSERT INTO wa VALUES (1, 1, 10), (1, 2, 20), (2, 1, 30), (2, 2, 5), (3, 1, 7), (3, 1, 8), (4, 2, 15)")
        for sql in [
            "SELECT g, sum(v), rank() OVER (ORDER BY sum(v) DESC) FROM wa GROUP BY g ORDER BY g",
            "SELECT g, count(*), sum(sum(v)) OVER (ORDER BY count(*), g) FROM wa GROUP BY g ORDER BY g",
            "SELECT g, max(h), min(v), row_number() OVER (PARTITION BY max(h) ORDER BY min(v)) FROM wa GROUP BY g ORDER BY g",
            "SELECT h, avg(v)::numeric(10,2), lag(sum(v)) OVER w FROM wa GROUP BY h WINDOW w AS (ORDER BY sum(v)) ORDER BY h",
            "SELECT g, row_number() OVER (PARTITION BY max(h) ORDER BY min(v)) FROM wa GROUP BY g ORDER BY g",
            "SELECT g, rank() OVER w FROM wa GROUP BY g WINDOW w AS (ORDER BY count(*) DESC, max(v)) ORDER BY g",
            "SELECT row_number() OVER (ORDER BY max(v)) FROM wa",
            "SELECT g, v, rank() OVER (ORDER BY max(v)) FROM wa",
        ]:
            _same(mine, theirs, sql)


def test_the_hidden_row_id_of_a_table_without_a_primary_key(server: SluiceServer, oracle) -> None:
    """RisingWave's `_row_id`: hidden from `*`, increasing in insertion order, read by queries and
    by UPDATE's and DELETE's conditions (subqueries too). The dedup idiom's result equals
    PostgreSQL's over a bigserial column standing for it; a view cannot read it yet (0A000); a
    table with a primary key has none (42703)."""
    rows = [(1, "a"), (2, "b"), (1, "a"), (3, "c"), (2, "b"), (1, "a"), (4, "d")]
    with connect(server) as mine, psycopg.connect(oracle.conninfo, autocommit=True) as theirs:
        mine.execute("CREATE TABLE rid (a INT, b VARCHAR)")
        theirs.execute("CREATE TABLE rid (_row_id BIGSERIAL, a INT, b VARCHAR)")
        for a, b in rows:
            for conn in (mine, theirs):
                conn.execute("INSERT INTO rid (a, b) VALUES (%s, %s)", (a, b))
        mine.execute("FLUSH")

        cursor = mine.execute("SELECT * FROM rid")
        assert [column.name for column in cursor.description] == ["a", "b"]
        cursor = mine.execute("SELECT _row_id, a, b FROM rid ORDER BY _row_id")
        assert cursor.description[0].type_code == 20  # int8
        read = cursor.fetchall()
        ids = [row[0] for row in read]
        assert len(set(ids)) == len(rows) and ids == sorted(ids)
        assert [(row[1], row[2]) for row in read] == rows, "row ids follow the insertion order"
        assert mine.execute("SELECT rid._row_id FROM rid WHERE _row_id = %s", (ids[3],)).fetchall() == [(ids[3],)]

        # The dedup idiom: keep each (a, b)'s first row.
        dedup = "DELETE FROM rid WHERE _row_id NOT IN (SELECT min(_row_id) FROM rid GROUP BY a, b)"
        assert mine.execute(dedup).rowcount == theirs.execute(dedup).rowcount == 3
        assert mine.execute("SELECT a, b FROM rid ORDER BY _row_id").fetchall() == theirs.execute("SELECT a, b FROM rid ORDER BY _row_id").fetchall()
        update = "UPDATE rid SET b = b || '!' WHERE _row_id = (SELECT max(_row_id) FROM rid) RETURNING a, b"
        assert mine.execute(update).fetchall() == theirs.execute(update).fetchall() == [(4, "d!")]
        assert sorted(mine.execute("SELECT a, b FROM rid").fetchall()) == sorted(theirs.execute("SELECT a, b FROM rid").fetchall())

        with pytest.raises(psycopg.errors.FeatureNotSupported):
            mine.execute("CREATE MATERIALIZED VIEW rid_ids AS SELECT _row_id, a FROM rid")
        mine.execute("CREATE MATERIALIZED VIEW rid_all AS SELECT * FROM rid")
        mine.execute("CREATE TABLE keyed (k INT PRIMARY KEY, v INT)")
        with pytest.raises(psycopg.errors.UndefinedColumn):
            mine.execute("SELECT _row_id FROM keyed")
        # A column of that name is the column.
        mine.execute("CREATE TABLE own_rid (_row_id VARCHAR, n INT)")
        mine.execute("INSERT INTO own_rid VALUES ('mine', 1)")
        assert mine.execute("SELECT _row_id, n FROM own_rid").fetchall() == [("mine", 1)]
        assert mine.execute("DELETE FROM own_rid WHERE _row_id = 'mine'").rowcount == 1
