"""Postgres CDC as RisingWave users write it (`CREATE SOURCE pg WITH (connector = 'postgres-cdc',
…)`, then `CREATE TABLE t (… PRIMARY KEY …) FROM pg TABLE 'public.t'`), against a real
PostgreSQL with `wal_level = logical` started by the harness. The oracle is always the upstream
table itself: after inserts, updates (of keys too), deletes, truncates, TOAST values, a large
transaction, SIGKILLs of Sluice and a crash of PostgreSQL, the Sluice table equals
`SELECT * FROM` upstream, both read as text through psycopg."""

from __future__ import annotations

import random
import time
from pathlib import Path

import psycopg
import pytest

from harness import PostgresServer, SluiceServer
from source_support import connect, wait_until


@pytest.fixture(scope="module")
def upstream():
    with PostgresServer(logical=True) as server:
        yield server


def _pg(server: PostgresServer, dbname: str = "dev") -> psycopg.Connection:
    return psycopg.connect(server.endpoint(dbname).conninfo, autocommit=True)


def _source(server: PostgresServer, name: str = "pg", dbname: str = "dev", extra: str = "") -> str:
    return f"""CREATE SOURCE {name} WITH (connector = 'postgres-cdc', hostname = '{server.host}', port = '{server.port}',
        username = 'root', password = '', database.name = '{dbname}'{extra})"""


def _rows(conn: psycopg.Connection, query: str) -> list[tuple]:
    return [tuple(None if v is None else str(v) for v in row) for row in conn.execute(query).fetchall()]


def _equal_eventually(server: SluiceServer, upstream: PostgresServer, query: str, timeout: float = 60, dbname: str = "dev") -> list[tuple]:
    """Waits until `query` answers the same in Sluice and upstream; returns the rows."""
    last: dict = {}

    def same():
        with connect(server) as conn, _pg(upstream, dbname) as pg:
            pg.execute("SET timezone = 'UTC'")
            ours, theirs = _rows(conn, query), _rows(pg, query)
            last.update(ours=ours[:5], theirs=theirs[:5], counts=(len(ours), len(theirs)))
            return theirs if ours == theirs else None
    try:
        return wait_until(same, timeout, f"Sluice to equal upstream for {query}")
    except AssertionError:
        raise AssertionError(f"Sluice and upstream differ for {query}: {last}") from None


def test_snapshot_then_every_kind_of_change(upstream: PostgresServer) -> None:
    with _pg(upstream) as pg:
        pg.execute("""CREATE TABLE orders (id int PRIMARY KEY, customer text, amount numeric(10,2), paid boolean, placed timestamptz,
            day date, tags text[], doc jsonb, score double precision, big bigint)""")
        pg.execute("""INSERT INTO orders SELECT g, 'c' || (g % 7), g * 1.25, g % 2 = 0, '2024-01-01 00:00:00+00'::timestamptz + g * interval '1 hour',
            DATE '2024-01-01' + g, ARRAY['t' || g, NULL], jsonb_build_object('g', g), g / 3.0, g * 10000000000 FROM generate_series(1, 2000) g""")
    query = "SELECT id, customer, amount, paid, placed, day, tags, doc, score, big FROM orders ORDER BY id"
    with SluiceServer() as server, connect(server) as conn:
        conn.execute(_source(upstream))
        conn.execute("""CREATE TABLE orders (id int PRIMARY KEY, customer varchar, amount numeric, paid boolean, placed timestamptz,
            day date, tags varchar[], doc jsonb, score double precision, big bigint) FROM pg TABLE 'public.orders'""")
        rows = _equal_eventually(server, upstream, query)
        assert len(rows) == 2000
        with _pg(upstream) as pg:
            pg.execute("INSERT INTO orders (id, customer, amount) SELECT g, 'new', 1 FROM generate_series(2001, 2500) g")
            pg.execute("UPDATE orders SET amount = amount + 1, customer = customer || '!' WHERE id % 5 = 0")
            pg.execute("UPDATE orders SET id = id + 10000 WHERE id % 97 = 0")  # the key moves
            pg.execute("DELETE FROM orders WHERE id % 11 = 0")
            with pg.transaction():
                pg.execute("INSERT INTO orders (id, customer) VALUES (-1, 'in a transaction')")
                pg.execute("UPDATE orders SET paid = NOT paid WHERE id < 100")
                pg.execute("DELETE FROM orders WHERE id = -1")
        rows = _equal_eventually(server, upstream, query)
        assert 2000 < len(rows) < 2500
        assert conn.execute("SELECT rows_rejected FROM sluice_sources WHERE name = 'orders'").fetchone() == (0,)
        # TRUNCATE empties the table; rows after it arrive.
        with _pg(upstream) as pg:
            pg.execute("TRUNCATE orders")
            pg.execute("INSERT INTO orders (id, customer) VALUES (1, 'after truncate'), (2, 'x')")
        assert _equal_eventually(server, upstream, query) == [("1", "after truncate") + (None,) * 8, ("2", "x") + (None,) * 8]
        # A view over the table follows it.
        conn.execute("CREATE MATERIALIZED VIEW per_customer AS SELECT customer, count(*) AS n FROM orders GROUP BY customer")
        with _pg(upstream) as pg:
            pg.execute("INSERT INTO orders (id, customer) SELECT g, 'c' || (g % 3) FROM generate_series(10, 40) g")
        _equal_eventually(server, upstream, query)
        conn.execute("FLUSH")
        with _pg(upstream) as pg:
            expected = _rows(pg, "SELECT customer, count(*) FROM orders GROUP BY customer ORDER BY customer")
        assert _rows(conn, "SELECT customer, n FROM per_customer ORDER BY customer") == expected


def test_snapshot_values_a_column_does_not_take_are_counted_and_the_rest_kept(upstream: PostgresServer) -> None:
    """The snapshot casts a column of a batch at a time; a batch with a value its column does not
    take (a bigint past a declared int) is cast again a row at a time, so only that row is left
    out and counted, and values the quick casts do not read (infinity, a BC timestamp, a signed
    integer) still arrive through the general ones."""
    with _pg(upstream) as pg:
        pg.execute("DROP TABLE IF EXISTS narrow")
        pg.execute("CREATE TABLE narrow (id bigint PRIMARY KEY, small bigint, at timestamptz, flag boolean, label text)")
        pg.execute("""INSERT INTO narrow SELECT g, g - 1500, '2024-01-01 00:00:00+00'::timestamptz + g * interval '1 second',
            g % 2 = 0, CASE WHEN g % 10 = 0 THEN NULL ELSE 'n' || g END FROM generate_series(1, 3000) g""")
        pg.execute("UPDATE narrow SET small = 1099511627776 WHERE id IN (1500, 2999)")
        pg.execute("UPDATE narrow SET at = 'infinity' WHERE id = 2500")
        pg.execute("UPDATE narrow SET at = '0044-03-15 12:00:00+00 BC' WHERE id = 2501")
    with SluiceServer() as server, connect(server) as conn:
        conn.execute(_source(upstream))
        conn.execute("""CREATE TABLE narrow (id bigint PRIMARY KEY, small int, at timestamptz, flag boolean, label varchar)
            FROM pg TABLE 'public.narrow'""")
        wait_until(lambda: conn.execute("SELECT rows_read + rows_rejected FROM sluice_sources WHERE name = 'narrow'").fetchone()[0] >= 3000,
                   60, "the snapshot to be taken")
        assert conn.execute("SELECT rows_read, rows_rejected FROM sluice_sources WHERE name = 'narrow'").fetchone() == (2998, 2)
        query = "SELECT id, small, at::text, flag, label FROM narrow WHERE id NOT IN (1500, 2999) ORDER BY id"
        rows = _equal_eventually(server, upstream, query)
        assert len(rows) == 2998
        assert conn.execute("SELECT count(*) FROM narrow WHERE id IN (1500, 2999)").fetchone() == (0,)


def test_star_takes_the_upstream_columns_and_key(upstream: PostgresServer) -> None:
    with _pg(upstream) as pg:
        pg.execute("CREATE TABLE players (team text, name text, runs int, born date, PRIMARY KEY (team, name))")
        pg.execute("INSERT INTO players VALUES ('a', 'x', 10, '1990-01-02'), ('a', 'y', NULL, NULL), ('b', 'x', 3, '2000-02-29')")
    with SluiceServer() as server, connect(server) as conn:
        conn.execute(_source(upstream))
        conn.execute("CREATE TABLE players (*) FROM pg TABLE 'public.players'")
        columns = conn.execute("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'players' ORDER BY ordinal_position").fetchall()
        assert columns == [("team", "character varying"), ("name", "character varying"), ("runs", "integer"), ("born", "date")]
        query = "SELECT team, name, runs, born FROM players ORDER BY team, name"
        _equal_eventually(server, upstream, query)
        with _pg(upstream) as pg:
            pg.execute("UPDATE players SET runs = 99 WHERE team = 'a' AND name = 'y'")
            pg.execute("DELETE FROM players WHERE team = 'b'")
        assert _equal_eventually(server, upstream, query) == [("a", "x", "10", "1990-01-02"), ("a", "y", "99", None)]


def test_unchanged_toast_values_and_a_large_transaction(upstream: PostgresServer) -> None:
    with _pg(upstream) as pg:
        pg.execute("CREATE TABLE docs (id int PRIMARY KEY, title text, body text)")
        # Bodies of random text, too large to keep in the row: PostgreSQL stores them out of
        # line and leaves them out of an update's new row when they did not change.
        pg.execute("INSERT INTO docs SELECT g, 't' || g, (SELECT string_agg(md5(random()::text || g || s), '') FROM generate_series(1, 400) s) FROM generate_series(1, 20) g")
        pg.execute("CREATE TABLE events (id bigint PRIMARY KEY, kind int)")
    with SluiceServer() as server, connect(server) as conn:
        conn.execute(_source(upstream))
        conn.execute("CREATE TABLE docs (id int PRIMARY KEY, title varchar, body varchar) FROM pg TABLE 'public.docs'")
        conn.execute("CREATE TABLE events (id bigint PRIMARY KEY, kind int) FROM pg TABLE 'public.events'")
        query = "SELECT id, title, md5(body), length(body) FROM docs ORDER BY id"
        _equal_eventually(server, upstream, query)
        with _pg(upstream) as pg:
            pg.execute("UPDATE docs SET title = title || ' (edited)' WHERE id % 2 = 0")
            pg.execute("UPDATE docs SET body = body || 'more' WHERE id = 3")
        rows = _equal_eventually(server, upstream, query)
        assert rows[1][1] == "t2 (edited)" and int(rows[1][3]) == 400 * 32
        # One transaction of a million rows, applied without holding it whole.
        with _pg(upstream) as pg:
            pg.execute("INSERT INTO events SELECT g, g % 10 FROM generate_series(1, 1000000) g")
        _equal_eventually(server, upstream, "SELECT count(*), sum(id), sum(kind) FROM events", timeout=300)


def test_kills_of_sluice_and_a_postgres_crash_lose_and_double_nothing(tmp_path: Path) -> None:
    """Upstream writes go on while Sluice is SIGKILLed at random moments and PostgreSQL crashes
    once; at the end the table equals upstream, and the slot's confirmed position never passed
    what Sluice had made durable (else changes would be missing)."""
    rng = random.Random(20261127)
    with PostgresServer(logical=True) as pg_server:
        with _pg(pg_server) as pg:
            pg.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance bigint, version int)")
            pg.execute("INSERT INTO accounts SELECT g, 100, 0 FROM generate_series(1, 500) g")
        data = tmp_path / "data"
        args = ["--barrier-interval-ms", "100"]

        def churn(count: int) -> None:
            with _pg(pg_server) as pg:
                for _ in range(count):
                    a, b = rng.randrange(1, 700), rng.randrange(1, 700)
                    with pg.transaction():
                        pg.execute("INSERT INTO accounts VALUES (%s, 0, 0) ON CONFLICT (id) DO UPDATE SET balance = accounts.balance - 1, version = accounts.version + 1", (a,))
                        pg.execute("UPDATE accounts SET balance = balance + 1, version = version + 1 WHERE id = %s", (b,))
                        if rng.random() < 0.1:
                            pg.execute("DELETE FROM accounts WHERE id = %s", (rng.randrange(1, 700),))

        for round_number in range(6):
            with SluiceServer(data_dir=data, extra_args=args) as server:
                if round_number == 0:
                    with connect(server) as conn:
                        conn.execute(_source(pg_server))
                        conn.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance bigint, version int) FROM pg TABLE 'public.accounts'")
                churn(150)
                if round_number == 3:
                    pg_server.restart(kill=True)
                    churn(100)
                time.sleep(rng.uniform(0.05, 1.0))
                server.kill()
                server.process.wait(timeout=10)
            churn(50)  # while Sluice is down
        with SluiceServer(data_dir=data, extra_args=args) as server:
            _equal_eventually(server, pg_server, "SELECT id, balance, version FROM accounts ORDER BY id", timeout=120)
            with connect(server) as conn:
                status = conn.execute("SELECT status FROM sluice_sources WHERE name = 'accounts'").fetchone()[0]
            assert status == "running", status


def test_a_snapshot_cut_short_by_a_kill_is_copied_again_from_an_empty_table(tmp_path: Path) -> None:
    """Sluice dies in the middle of the snapshot (a failpoint after its third chunk of rows,
    which the log holds); rows it had copied are then deleted and changed upstream. The snapshot
    copied again must not keep the deleted rows."""
    with PostgresServer(logical=True) as pg_server:
        with _pg(pg_server) as pg:
            pg.execute("CREATE TABLE items (id int PRIMARY KEY, note text)")
            pg.execute("INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 20000) g")
        data = tmp_path / "data"
        with SluiceServer(data_dir=data, env={"SLUICE_FAILPOINT": "cdc-snapshot-chunk@3"}) as server:
            with connect(server) as conn:
                conn.execute(_source(pg_server))
                try:
                    conn.execute("CREATE TABLE items (id int PRIMARY KEY, note text) FROM pg TABLE 'public.items'")
                except psycopg.OperationalError:
                    pass  # the failpoint may kill the server before the statement's answer
            assert server.process.wait(timeout=60) == -9
        with _pg(pg_server) as pg:
            pg.execute("DELETE FROM items WHERE id <= 2000 AND id % 3 = 0")
            pg.execute("UPDATE items SET note = 'changed' WHERE id % 7 = 0")
        with SluiceServer(data_dir=data) as server:
            rows = _equal_eventually(server, pg_server, "SELECT id, note FROM items ORDER BY id")
            assert len(rows) == 20000 - 666


def test_an_idle_slot_moves_on(upstream: PostgresServer) -> None:
    """Writes to a table outside the publication move the server's WAL on; the slot's confirmed
    position follows it (through keepalives and checkpoints), so it does not hold WAL back."""
    with _pg(upstream) as pg:
        pg.execute("CREATE TABLE quiet (id int PRIMARY KEY)")
        pg.execute("CREATE TABLE busy (id serial PRIMARY KEY, pad text)")
    with SluiceServer(extra_args=["--barrier-interval-ms", "100"]) as server, connect(server) as conn:
        conn.execute(_source(upstream, extra=", publication.name = 'quiet_only', slot.name = 'idle'"))
        conn.execute("CREATE TABLE quiet (id int PRIMARY KEY) FROM pg TABLE 'public.quiet'")
        wait_until(lambda: conn.execute("SELECT status FROM sluice_sources WHERE name = 'quiet'").fetchone()[0] == "running", 30, "the stream")

        def confirmed() -> int:
            with _pg(upstream) as pg:
                return pg.execute("SELECT confirmed_flush_lsn - '0/0' FROM pg_replication_slots WHERE slot_name LIKE 'idle\\_%'").fetchone()[0]
        before = confirmed()
        with _pg(upstream) as pg:
            pg.execute("INSERT INTO busy (pad) SELECT repeat('x', 200) FROM generate_series(1, 20000)")
            target = pg.execute("SELECT pg_current_wal_lsn() - '0/0'").fetchone()[0]
        assert target > before
        wait_until(lambda: confirmed() >= target, 60, "the idle slot's confirmed position to pass the other table's writes")


def test_upstream_ddl_stops_the_table_with_a_clear_error(upstream: PostgresServer) -> None:
    with _pg(upstream) as pg:
        pg.execute("CREATE TABLE shifting (id int PRIMARY KEY, a int, b text)")
        pg.execute("INSERT INTO shifting VALUES (1, 1, 'one')")
    with SluiceServer() as server, connect(server) as conn:
        conn.execute(_source(upstream))
        conn.execute("CREATE TABLE shifting (id int PRIMARY KEY, a int, b varchar) FROM pg TABLE 'public.shifting'")
        _equal_eventually(server, upstream, "SELECT id, a, b FROM shifting ORDER BY id")
        with _pg(upstream) as pg:
            pg.execute("ALTER TABLE shifting DROP COLUMN b")
            pg.execute("INSERT INTO shifting VALUES (2, 2)")
        wait_until(lambda: conn.execute("SELECT status FROM sluice_sources WHERE name = 'shifting'").fetchone()[0].startswith("stopped"), 30,
                   "the table to stop")
        status = conn.execute("SELECT status FROM sluice_sources WHERE name = 'shifting'").fetchone()[0]
        assert 'no longer has column "b"' in status, status
        # No wrong row: the table keeps what it had.
        assert conn.execute("SELECT id, a, b FROM shifting").fetchall() == [(1, 1, "one")]


def test_mistakes_are_clear_errors(upstream: PostgresServer) -> None:
    upstream.add_password_user("cdc_user", "good")
    with _pg(upstream) as pg:
        pg.execute("CREATE TABLE keyless (a int)")
        pg.execute("CREATE TABLE keyed (id int PRIMARY KEY, v text)")
        pg.execute("CREATE PUBLICATION only_keyless FOR TABLE keyless")
    host, port = upstream.host, upstream.port
    with PostgresServer() as plain, SluiceServer() as server, connect(server) as conn:
        cases = [
            (f"CREATE SOURCE s WITH (connector = 'postgres-cdc', hostname = '{host}', port = '{port}', username = 'cdc_user', password = 'bad', database.name = 'dev')",
             "28P01", "password authentication failed"),
            ("CREATE SOURCE s WITH (connector = 'postgres-cdc', hostname = '127.0.0.1', port = '1', username = 'root', database.name = 'dev')",
             "HV00N", "cannot connect"),
            (f"CREATE SOURCE s WITH (connector = 'postgres-cdc', hostname = '{plain.host}', port = '{plain.port}', username = 'root', database.name = 'dev')",
             "55000", "wal_level = logical"),
            (f"CREATE SOURCE s WITH (connector = 'postgres-cdc', hostname = '{host}', port = '{port}', username = 'root', database.name = 'dev', "
             "publication.name = 'absent', publication.create.enable = 'false')", "HV00R", "publication \"absent\" does not exist"),
            (f"CREATE SOURCE s WITH (connector = 'postgres-cdc', hostname = '{host}', username = 'root')", "42601", "database.name"),
        ]
        for statement, sqlstate, message in cases:
            with pytest.raises(psycopg.Error) as raised:
                conn.execute(statement)
            assert raised.value.sqlstate == sqlstate and message in str(raised.value), (statement, raised.value.sqlstate, str(raised.value))
        conn.execute(_source(upstream))
        conn.execute(_source(upstream, name="strict", extra=", publication.name = 'only_keyless', publication.create.enable = 'false'"))
        conn.execute("CREATE TABLE plain_table (id int PRIMARY KEY)")
        cases = [
            ("CREATE TABLE t (id int PRIMARY KEY) FROM pg TABLE 'public.absent'", "HV00R", "does not exist"),
            ("CREATE TABLE t (a int PRIMARY KEY) FROM pg TABLE 'public.keyless'", "42P16", "no primary key"),
            ("CREATE TABLE t (id int, v varchar, PRIMARY KEY (v)) FROM pg TABLE 'public.keyed'", "42P16", "is not the upstream table's"),
            ("CREATE TABLE t (id int PRIMARY KEY, nope int) FROM pg TABLE 'public.keyed'", "42703", "no column \"nope\""),
            ("CREATE TABLE t (id int, v varchar) FROM pg TABLE 'public.keyed'", "42P16", "needs a primary key"),
            ("CREATE TABLE t (id int PRIMARY KEY) FROM strict TABLE 'public.keyed'", "22023", "does not publish table public.keyed"),
            ("CREATE TABLE t (id int PRIMARY KEY) FROM plain_table TABLE 'public.keyed'", "42809", "is not a CDC source"),
            ("CREATE TABLE t (id int PRIMARY KEY) FROM nothing TABLE 'public.keyed'", "42P01", "does not exist"),
            ("CREATE TABLE t (id int PRIMARY KEY, v varchar) ON CONFLICT DO UPDATE FULL WITH VERSION COLUMN(id) FROM pg TABLE 'public.keyed'",
             "0A000", "WITH VERSION COLUMN"),
            ("CREATE TABLE t (id int PRIMARY KEY, v varchar) WITH (dedup.key = 'id', dedup.window = '1 hour') FROM pg TABLE 'public.keyed'",
             "0A000", "dedup"),
        ]
        for statement, sqlstate, message in cases:
            with pytest.raises(psycopg.Error) as raised:
                conn.execute(statement)
            assert raised.value.sqlstate == sqlstate and message in str(raised.value), (statement, raised.value.sqlstate, str(raised.value))
        # The shared source is read through its tables.
        with pytest.raises(psycopg.Error) as raised:
            conn.execute("SELECT * FROM pg").fetchall()
        assert raised.value.sqlstate == "0A000" and "read through tables" in str(raised.value)
        assert conn.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 't'").fetchone() == (0,)


def test_for_all_tables_makes_a_table_of_each_upstream_table(upstream: PostgresServer) -> None:
    """Materialize's `FOR ALL TABLES`: a table for each table the publication publishes, with the
    upstream columns and keys; one without a primary key is left out with a warning."""
    database = upstream.create_database("every")
    with psycopg.connect(database.conninfo, autocommit=True) as pg:
        pg.execute("CREATE TABLE teams (id int PRIMARY KEY, name text)")
        pg.execute("CREATE TABLE venues (city text, ground text, capacity int, PRIMARY KEY (city, ground))")
        pg.execute("CREATE TABLE scratch (note text)")
        pg.execute("INSERT INTO teams VALUES (1, 'India'), (2, 'Australia')")
        pg.execute("INSERT INTO venues VALUES ('Mumbai', 'Wankhede', 33000), ('Melbourne', 'MCG', 100024)")
        pg.execute("CREATE PUBLICATION everything FOR TABLE teams, venues, scratch")
    with SluiceServer() as server, connect(server) as conn:
        notices: list[str] = []
        conn.add_notice_handler(lambda diagnostic: notices.append(diagnostic.message_primary))
        conn.execute(_source(upstream, name="every_src", dbname=database.dbname, extra=", publication.name = 'everything'") + " FOR ALL TABLES")
        assert any("teams, venues" in n for n in notices), notices
        assert any("left out public.scratch" in n for n in notices), notices
        keys = conn.execute("""SELECT table_name, column_name FROM information_schema.key_column_usage
            WHERE table_name IN ('teams', 'venues') ORDER BY table_name, ordinal_position""").fetchall()
        assert keys == [("teams", "id"), ("venues", "city"), ("venues", "ground")]
        with psycopg.connect(database.conninfo, autocommit=True) as pg:
            pg.execute("UPDATE venues SET capacity = capacity + 1 WHERE city = 'Mumbai'")
            pg.execute("INSERT INTO teams VALUES (3, 'England')")
        _equal_eventually(server, upstream, "SELECT id, name FROM teams ORDER BY id", dbname=database.dbname)
        _equal_eventually(server, upstream, "SELECT city, ground, capacity FROM venues ORDER BY city", dbname=database.dbname)
        assert conn.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'scratch'").fetchone() == (0,)
