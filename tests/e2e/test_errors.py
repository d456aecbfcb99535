"""Errors reach psycopg with the right SQLSTATE, and neither the connection nor the server is
harmed: after each error the same connection answers, in the simple and the extended protocol."""

from __future__ import annotations

import psycopg
import pytest

from harness import Endpoint

# (SQL, SQLSTATE): one case or more for each kind of bad input.
BAD_INPUTS = [
    pytest.param("SELEC 1", "42601", id="syntax"),
    pytest.param("SELECT (1", "42601", id="syntax-unclosed"),
    pytest.param("SELECT * FROM no_such_table_e2e", "42P01", id="unknown-table"),
    pytest.param("SELECT no_such_column FROM errs", "42703", id="unknown-column"),
    pytest.param("SELECT * FROM errs WHERE 1", "42804", id="datatype-mismatch"),
    pytest.param("SELECT 1 + 'a'::varchar", "42883", id="no-operator"),
    pytest.param("SELECT upper(1)", "42883", id="no-function"),
    pytest.param("SELECT 1 / 0", "22012", id="division-by-zero"),
    pytest.param("SELECT 2147483647::int + 1", "22003", id="int-overflow"),
    pytest.param("CREATE TABLE errs (x int)", "42P07", id="duplicate-table"),
    pytest.param("SELECT 'abc'::int", "22P02", id="bad-int-input"),
    pytest.param("INSERT INTO errs VALUES (NULL, 'x')", "23502", id="not-null"),
]


@pytest.fixture(scope="module")
def errs_table(target: Endpoint) -> None:
    with psycopg.connect(target.conninfo, autocommit=True) as conn:
        conn.execute("CREATE TABLE errs (id int NOT NULL, name varchar)")
        conn.execute("INSERT INTO errs VALUES (1, 'one')")


@pytest.mark.parametrize("sql, sqlstate", BAD_INPUTS)
def test_simple_protocol_error(conn: psycopg.Connection, errs_table, sql: str, sqlstate: str) -> None:
    with pytest.raises(psycopg.Error) as caught:
        conn.execute(sql)
    assert caught.value.sqlstate == sqlstate, caught.value
    assert caught.value.diag.severity in ("ERROR", "FATAL")
    assert caught.value.diag.message_primary
    assert conn.execute("SELECT count(*) FROM errs").fetchone() == (1,)


@pytest.mark.parametrize("sql, params, sqlstate", [
    pytest.param("SELECT %s::int", ("abc",), "22P02", id="bad-parameter-text"),
    pytest.param("SELECT %s::int / %s::int", (1, 0), "22012", id="division-by-zero"),
    pytest.param("SELECT * FROM no_such_table_e2e WHERE x = %s", (1,), "42P01", id="unknown-table"),
    pytest.param("SELECT nope FROM errs WHERE id = %s", (1,), "42703", id="unknown-column"),
    pytest.param("INSERT INTO errs VALUES (%s, %s)", (None, "x"), "23502", id="not-null"),
])
def test_extended_protocol_error(conn: psycopg.Connection, errs_table, sql: str, params: tuple, sqlstate: str) -> None:
    with pytest.raises(psycopg.Error) as caught:
        conn.execute(sql, params)
    assert caught.value.sqlstate == sqlstate, caught.value
    # The server skipped to Sync and answers the next extended query.
    assert conn.execute("SELECT count(*) FROM errs WHERE id = %s", (1,)).fetchone() == (1,)


def test_error_in_prepared_statement_then_reuse(conn: psycopg.Connection, errs_table) -> None:
    query = "SELECT 10 / %s::int"
    assert conn.execute(query, (5,), prepare=True).fetchone() == (2,)
    with pytest.raises(psycopg.errors.DivisionByZero):
        conn.execute(query, (0,), prepare=True)
    assert conn.execute(query, (2,), prepare=True).fetchone() == (5,)


def test_error_position_for_syntax_error(conn: psycopg.Connection) -> None:
    with pytest.raises(psycopg.errors.SyntaxError) as caught:
        conn.execute("SELECT 1 FROM WHERE")
    assert caught.value.diag.statement_position is not None
    assert 1 <= int(caught.value.diag.statement_position) <= len("SELECT 1 FROM WHERE")


def test_failed_transaction_is_aborted_until_rollback(target: Endpoint, errs_table) -> None:
    with psycopg.connect(target.conninfo) as conn:
        conn.execute("SELECT 1")
        with pytest.raises(psycopg.errors.DivisionByZero):
            conn.execute("SELECT 1 / 0")
        with pytest.raises(psycopg.errors.InFailedSqlTransaction):
            conn.execute("SELECT 1")
        conn.rollback()
        assert conn.execute("SELECT 2").fetchone() == (2,)


def test_other_sessions_unaffected(target: Endpoint, errs_table) -> None:
    with psycopg.connect(target.conninfo, autocommit=True) as bad, psycopg.connect(target.conninfo, autocommit=True) as good:
        for sql, sqlstate in [(p.values[0], p.values[1]) for p in BAD_INPUTS]:
            with pytest.raises(psycopg.Error):
                bad.execute(sql)
            assert good.execute("SELECT name FROM errs").fetchone() == ("one",)
