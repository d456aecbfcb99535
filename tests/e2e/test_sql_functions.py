"""SQL functions as RisingWave's and PostgreSQL's users write them: `CREATE FUNCTION … LANGUAGE
SQL` (AS 'SELECT …', AS $$ … $$, RETURN expr), calls in queries, views, materialized views and
sinks, overloads, DROP FUNCTION's dependency rules, the errors' SQLSTATEs, and a restart after
`kill -9`. Results and SQLSTATEs are checked against a real PostgreSQL (the oracle) where the two
should agree, and by hand where Sluice decides otherwise (see docs/sql.md)."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from harness import SluiceServer
from psql_client import run_psql
from source_support import connect, wait_until

FUNCTIONS = [
    "CREATE FUNCTION add1(a INT) RETURNS INT LANGUAGE SQL RETURN a + 1",
    "CREATE FUNCTION add2(INT, INT) RETURNS INT AS 'select $1 + $2' LANGUAGE SQL",
    "CREATE FUNCTION twice(x INT) RETURNS BIGINT LANGUAGE SQL IMMUTABLE AS $$ SELECT add1(x) * 2 $$",
    "CREATE FUNCTION five_if_null(a INT) RETURNS INT LANGUAGE SQL RETURNS NULL ON NULL INPUT AS 'SELECT coalesce(a, 5)'",
    "CREATE FUNCTION or_five(a INT) RETURNS INT LANGUAGE SQL CALLED ON NULL INPUT AS 'SELECT coalesce(a, 5)'",
    "CREATE FUNCTION label(n INT, s TEXT) RETURNS TEXT LANGUAGE SQL STABLE RETURN s || ':' || n",
    "CREATE FUNCTION kind(a INT) RETURNS TEXT LANGUAGE SQL RETURN 'int'",
    "CREATE FUNCTION kind(a TEXT) RETURNS TEXT LANGUAGE SQL RETURN 'text'",
    "CREATE FUNCTION kind(a DOUBLE PRECISION) RETURNS TEXT LANGUAGE SQL RETURN 'double'",
    "CREATE FUNCTION half(a NUMERIC) RETURNS NUMERIC LANGUAGE SQL RETURN a / 2",
]

QUERIES = [
    "SELECT add1(1), add2(3, 4), twice(5), public.add1(10)",
    "SELECT add1(2::smallint), add1(NULL), twice(NULL)",
    "SELECT five_if_null(NULL), five_if_null(2), or_five(NULL), or_five(3)",
    "SELECT label(3, 'x'), label(NULL, 'y')",
    "SELECT kind(1), kind('x'), kind(1.5), kind(2::smallint), kind(3::bigint), kind('x'::text)",
    "SELECT half(3), half(7::int), half(1.5)",
    "SELECT add1(v) FROM (VALUES (1), (2), (NULL)) AS t (v) ORDER BY 1",
    "SELECT v FROM (VALUES (1), (2), (3)) AS t (v) WHERE add1(v) > 2 ORDER BY v",
    "SELECT add1(sum(v)) FROM (VALUES (1), (2), (3)) AS t (v)",
    # Errors: no such signature (a numeric or a text where an integer is declared), no such function.
    "SELECT add1(1.5)",
    "SELECT add1('x'::text)",
    "SELECT add2(1)",
    "SELECT nosuch(1)",
]

BAD_CREATES = [
    # A body that does not bind; a result of the wrong type; a duplicate; a parameter used twice.
    "CREATE FUNCTION bad1(a INT) RETURNS INT LANGUAGE SQL AS 'SELECT b + 1'",
    "CREATE FUNCTION bad2(a INT) RETURNS INT LANGUAGE SQL RETURN nosuch(a)",
    "CREATE FUNCTION bad3(a INT) RETURNS INT LANGUAGE SQL RETURN 'x'::text",
    "CREATE FUNCTION add1(b INT) RETURNS INT LANGUAGE SQL RETURN b",
    "CREATE FUNCTION bad4(a INT, a INT) RETURNS INT LANGUAGE SQL RETURN a",
    "CREATE FUNCTION bad5(a INT) RETURNS INT LANGUAGE SQL RETURN $2",
    "CREATE OR REPLACE FUNCTION add1(a INT) RETURNS BIGINT LANGUAGE SQL RETURN a",
    "DROP FUNCTION nosuch",
    "DROP FUNCTION add1(bigint)",
    "DROP FUNCTION kind",
]


@pytest.fixture(scope="module")
def server():
    with SluiceServer() as running:
        yield running


@pytest.fixture
def oracle(pg_oracle):
    endpoint = pg_oracle.create_database("sqlfunctions")
    try:
        yield endpoint
    finally:
        pg_oracle.drop_database(endpoint)


def _outcome(conn: psycopg.Connection, sql: str):
    try:
        cursor = conn.execute(sql)
        return ("rows", [tuple(str(value) if value is not None else None for value in row) for row in cursor.fetchall()]) if cursor.description else ("ok",)
    except psycopg.Error as error:
        return ("error", error.sqlstate)


def _error(conn: psycopg.Connection, sql: str) -> psycopg.Error:
    with pytest.raises(psycopg.Error) as raised:
        conn.execute(sql)
    return raised.value


def test_functions_and_their_errors_equal_postgresql(server: SluiceServer, oracle) -> None:
    with connect(server) as mine, psycopg.connect(oracle.conninfo, autocommit=True) as theirs:
        for sql in FUNCTIONS:
            mine.execute(sql)
            theirs.execute(sql)
        for sql in QUERIES + BAD_CREATES:
            assert _outcome(mine, sql) == _outcome(theirs, sql), sql
        # A bound parameter (psycopg sends 5 as a smallint) is widened as a literal is.
        assert mine.execute("SELECT add1(%s), label(%s, %s)", (5, 6, "y")).fetchone() == (6, "y:6")
        error = _error(mine, "SELECT add1('x'::text)")
        assert error.sqlstate == "42883" and "does not exist" in str(error)
        assert "explicit type casts" in (error.diag.message_hint or "")
        assert _error(mine, "DROP FUNCTION kind").sqlstate == "42725"
        # Both drop one overload by its types; the others stay.
        for conn in (mine, theirs):
            conn.execute("DROP FUNCTION kind(double precision)")
        assert _outcome(mine, "SELECT kind(1), kind('x')") == _outcome(theirs, "SELECT kind(1), kind('x')") == ("rows", [("int", "text")])
        for conn in (mine, theirs):
            conn.execute("DROP FUNCTION IF EXISTS nosuch(int), kind(int), kind(text)")
            conn.execute("DROP FUNCTION IF EXISTS kind")
        assert _outcome(mine, "SELECT kind(1)") == ("error", "42883")
        for sql in FUNCTIONS:
            name = sql.split("FUNCTION ")[1].split("(")[0]
            if name not in ("kind", "add1", "twice"):
                mine.execute(f"DROP FUNCTION IF EXISTS {name}")


def test_a_view_follows_a_replaced_body_as_postgresql(server: SluiceServer, oracle) -> None:
    with connect(server) as mine, psycopg.connect(oracle.conninfo, autocommit=True) as theirs:
        for conn in (mine, theirs):
            conn.execute("CREATE FUNCTION tenfold(a INT) RETURNS INT LANGUAGE SQL RETURN a * 10")
            conn.execute("CREATE TABLE vt (v INT)")
            conn.execute("INSERT INTO vt VALUES (1), (2)")
            conn.execute("CREATE VIEW vv AS SELECT tenfold(v) AS s FROM vt")
        assert _outcome(mine, "SELECT s FROM vv ORDER BY s") == _outcome(theirs, "SELECT s FROM vv ORDER BY s") == ("rows", [("10",), ("20",)])
        for conn in (mine, theirs):
            conn.execute("CREATE OR REPLACE FUNCTION tenfold(a INT) RETURNS INT LANGUAGE SQL RETURN a * 100")
        assert _outcome(mine, "SELECT s FROM vv ORDER BY s") == _outcome(theirs, "SELECT s FROM vv ORDER BY s") == ("rows", [("100",), ("200",)])
        # Dropping it while the view uses it: 2BP01 on both, naming the view.
        error = _error(mine, "DROP FUNCTION tenfold")
        assert error.sqlstate == "2BP01" and "view vv" in (error.diag.message_detail or "")
        assert _outcome(theirs, "DROP FUNCTION tenfold") == ("error", "2BP01")
        for conn in (mine, theirs):
            conn.execute("DROP FUNCTION tenfold CASCADE")
        assert _outcome(mine, "SELECT * FROM vv") == _outcome(theirs, "SELECT * FROM vv") == ("error", "42P01")
        mine.execute("DROP TABLE vt")


def test_materialized_view_and_sink_use_functions_and_hold_them(server: SluiceServer) -> None:
    with connect(server) as conn:
        conn.execute("CREATE FUNCTION inc(a INT) RETURNS INT LANGUAGE SQL RETURN a + 1")
        conn.execute("CREATE FUNCTION tag(a INT, b TEXT) RETURNS TEXT LANGUAGE SQL RETURN b || '-' || inc(a)")
        conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT, s SMALLINT, name TEXT)")
        conn.execute("INSERT INTO t VALUES (1, 10, 1, 'a'), (2, 20, 2, 'b')")
        conn.execute("CREATE MATERIALIZED VIEW m AS SELECT id, inc(v) AS w, tag(s, name) AS label FROM t WHERE inc(v) > 11")
        conn.execute("CREATE SINK k AS SELECT id, inc(v) AS w FROM t WITH (connector = 'blackhole')")
        conn.execute("FLUSH")
        assert conn.execute("SELECT * FROM m ORDER BY id").fetchall() == [(2, 21, "b-3")]
        conn.execute("INSERT INTO t VALUES (3, 30, 3, 'c'), (4, 5, 4, 'd')")
        conn.execute("UPDATE t SET v = 11 WHERE id = 1")
        conn.execute("FLUSH")
        expected = [(row_id, v + 1, f"{name}-{s + 1}") for row_id, v, s, name in [(1, 11, 1, "a"), (2, 20, 2, "b"), (3, 30, 3, "c")]]
        assert conn.execute("SELECT * FROM m ORDER BY id").fetchall() == expected

        # Dropping or replacing what the view and sink inlined is refused, naming them.
        error = _error(conn, "DROP FUNCTION inc")
        assert error.sqlstate == "2BP01"
        detail = error.diag.message_detail or ""
        assert "materialized view m" in detail and "sink k" in detail and "function tag(integer, character varying)" in detail
        assert _error(conn, "DROP FUNCTION tag(int, text)").sqlstate == "2BP01"
        assert _error(conn, "DROP FUNCTION tag(int, text) RESTRICT").sqlstate == "2BP01"
        assert _error(conn, "CREATE OR REPLACE FUNCTION inc(a INT) RETURNS INT LANGUAGE SQL RETURN a + 2").sqlstate == "2BP01"
        assert conn.execute("SELECT inc(1)").fetchone() == (2,)

        # CASCADE takes the sink, the view and the calling function with it.
        conn.execute("DROP FUNCTION inc CASCADE")
        names = {row[0] for row in conn.execute("SELECT relname FROM pg_class WHERE relname IN ('m', 'k', 't')").fetchall()}
        assert names == {"t"}
        assert _error(conn, "SELECT tag(1, 'x')").sqlstate == "42883"
        assert _error(conn, "SELECT * FROM m").sqlstate == "42P01"
        conn.execute("DROP TABLE t")


def test_catalog_lists_functions_and_schema_qualified_names_work(server: SluiceServer) -> None:
    with connect(server) as conn:
        conn.execute("CREATE SCHEMA fs")
        conn.execute("CREATE FUNCTION fs.neg(a INT) RETURNS INT LANGUAGE SQL RETURN -a")
        conn.execute("CREATE FUNCTION neg(a INT) RETURNS INT LANGUAGE SQL RETURN 0 - a - 1000")
        assert conn.execute("SELECT fs.neg(5), neg(5)").fetchone() == (-5, -1005)
        conn.execute("SET search_path = fs")
        assert conn.execute("SELECT neg(5), public.neg(5)").fetchone() == (-5, -1005)
        conn.execute("SET search_path = public")
        rows = conn.execute(
            "SELECT p.proname, n.nspname, p.pronargs, p.prorettype, p.prolang FROM pg_catalog.pg_proc p "
            "JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE p.proname = 'neg' ORDER BY n.nspname").fetchall()
        assert rows == [("neg", "fs", 1, 23, 14), ("neg", "public", 1, 23, 14)]
        assert conn.execute("SELECT name, arg_type_ids, return_type_id, language FROM rw_catalog.rw_functions WHERE name = 'neg'").fetchall() == [
            ("neg", [23], 23, "sql"), ("neg", [23], 23, "sql")]
        shown = conn.execute("SHOW FUNCTIONS").fetchall()
        assert ("neg", "a integer", "integer", "sql", "") in shown
        assert conn.execute("SHOW CREATE FUNCTION neg").fetchone() == ("neg", "CREATE FUNCTION neg(a INT) RETURNS INT LANGUAGE SQL RETURN 0 - a - 1000")
        # psql's \df reads pg_proc with pg_get_function_result and pg_get_function_arguments.
        listed = run_psql(server.endpoint(), "-A", "-t", "-c", "\\df").stdout.splitlines()
        assert "public|neg|integer|a integer|func" in listed, listed
        # A built-in's name and argument types are taken.
        error = _error(conn, "CREATE FUNCTION abs(a INT) RETURNS INT LANGUAGE SQL RETURN a")
        assert error.sqlstate == "42723"
        # Recursion, direct or through another function, is refused at CREATE.
        conn.execute("CREATE FUNCTION r1(a INT) RETURNS INT LANGUAGE SQL RETURN a")
        conn.execute("CREATE FUNCTION r2(a INT) RETURNS INT LANGUAGE SQL RETURN r1(a) + 1")
        error = _error(conn, "CREATE OR REPLACE FUNCTION r1(a INT) RETURNS INT LANGUAGE SQL RETURN r2(a)")
        assert error.sqlstate == "42P13" and "calls itself" in str(error)
        assert _error(conn, "CREATE OR REPLACE FUNCTION r1(a INT) RETURNS INT LANGUAGE SQL RETURN r1(a)").sqlstate == "42P13"
        assert conn.execute("SELECT r2(1)").fetchone() == (2,)
        # Only LANGUAGE SQL.
        assert _error(conn, "CREATE FUNCTION py(a INT) RETURNS INT LANGUAGE python AS 'return a'").sqlstate == "0A000"
        conn.execute("DROP FUNCTION r1 CASCADE")
        # A schema's functions go with it (CASCADE), and the views that call them.
        conn.execute("CREATE VIEW negv AS SELECT fs.neg(1) AS n")
        error = _error(conn, "DROP SCHEMA fs")
        assert error.sqlstate == "2BP01" and "function fs.neg(integer)" in (error.diag.message_detail or "")
        conn.execute("DROP SCHEMA fs CASCADE")
        assert _error(conn, "SELECT * FROM negv").sqlstate == "42P01"
        assert _error(conn, "SELECT fs.neg(1)").sqlstate == "42883"
        conn.execute("DROP FUNCTION neg")
        assert conn.execute("SELECT count(*) FROM pg_proc WHERE proname IN ('neg', 'r1', 'r2')").fetchone() == (0,)


def test_only_the_owner_replaces_or_drops_a_function(server: SluiceServer) -> None:
    with connect(server) as admin:
        admin.execute("CREATE USER fn_owner")
        admin.execute("CREATE USER fn_other")
        admin.execute("GRANT CREATE ON SCHEMA public TO fn_owner")
    as_owner = psycopg.connect(host=server.host, port=server.port, user="fn_owner", dbname="dev", autocommit=True)
    as_other = psycopg.connect(host=server.host, port=server.port, user="fn_other", dbname="dev", autocommit=True)
    with as_owner, as_other:
        as_owner.execute("CREATE FUNCTION owned() RETURNS TEXT LANGUAGE SQL RETURN 'mine'")
        # Anyone may call it (EXECUTE is PUBLIC's, as in PostgreSQL); only its owner may change it.
        assert as_other.execute("SELECT owned()").fetchone() == ("mine",)
        assert _error(as_other, "DROP FUNCTION owned").sqlstate == "42501"
        assert _error(as_other, "CREATE OR REPLACE FUNCTION owned() RETURNS TEXT LANGUAGE SQL RETURN 'theirs'").sqlstate == "42501"
        # Creating needs CREATE on the schema.
        assert _error(as_other, "CREATE FUNCTION other() RETURNS INT LANGUAGE SQL RETURN 1").sqlstate == "42501"
        as_owner.execute("CREATE OR REPLACE FUNCTION owned() RETURNS TEXT LANGUAGE SQL RETURN 'still mine'")
        assert as_other.execute("SELECT owned()").fetchone() == ("still mine",)
        as_owner.execute("DROP FUNCTION owned()")
    # Names a built-in aggregate takes cannot be a SQL function's: a call would be the aggregate.
    with connect(server) as admin:
        assert _error(admin, "CREATE FUNCTION sum(a INT) RETURNS INT LANGUAGE SQL RETURN a").sqlstate == "42723"
        assert _error(admin, "CREATE FUNCTION coalesce(a INT) RETURNS INT LANGUAGE SQL RETURN a").sqlstate == "42723"


def test_functions_survive_kill_9(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with SluiceServer(data_dir=data) as first:
        with connect(first) as conn:
            conn.execute("CREATE FUNCTION sq(a BIGINT) RETURNS BIGINT LANGUAGE SQL IMMUTABLE RETURN a * a")
            conn.execute("CREATE FUNCTION sq_plus(a BIGINT, b BIGINT) RETURNS BIGINT LANGUAGE SQL AS 'SELECT sq($1) + $2'")
            conn.execute("CREATE TABLE nums (n BIGINT)")
            conn.execute("INSERT INTO nums VALUES (1), (2), (3)")
            conn.execute("CREATE MATERIALIZED VIEW squares AS SELECT sum(sq_plus(n, 1)) AS total FROM nums")
            conn.execute("FLUSH")
            assert conn.execute("SELECT total FROM squares").fetchone() == (17,)
        first.kill()
    with SluiceServer(data_dir=data) as second:
        with connect(second) as conn:
            assert conn.execute("SELECT sq(4), sq_plus(2, 3)").fetchone() == (16, 7)
            wait_until(lambda: conn.execute("SELECT total FROM squares").fetchone() == (17,), 30, "the view after the restart")
            conn.execute("INSERT INTO nums VALUES (4)")
            conn.execute("FLUSH")
            assert conn.execute("SELECT total FROM squares").fetchone() == (34,)
            # The dependencies were kept too.
            assert _error(conn, "DROP FUNCTION sq").sqlstate == "2BP01"
            assert _error(conn, "DROP FUNCTION sq_plus").sqlstate == "2BP01"
            assert conn.execute("SELECT proname FROM pg_proc ORDER BY proname").fetchall() == [("sq",), ("sq_plus",)]
