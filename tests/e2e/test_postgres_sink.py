"""Postgres sinks as RisingWave writes them (`CREATE SINK … WITH (connector = 'jdbc',
jdbc.url = 'jdbc:postgresql://…', table.name, type)` and `connector = 'postgres'`), into a real
PostgreSQL started by the harness, read back with psycopg as a warehouse's readers would:
- an append-only sink's rows, of every common type, equal what Sluice holds (PostgreSQL parses
  each value itself, so both sides are read through PostgreSQL's own types);
- an upsert sink's table equals its view after inserts, updates and deletes;
- every acknowledged row exactly once across SIGKILLs of Sluice (at random moments and at the
  failpoints between prepare and commit) and a crash of PostgreSQL;
- mistakes at CREATE SINK are clear errors with their SQLSTATEs."""

from __future__ import annotations

import random
import signal
import time
from collections import Counter
from pathlib import Path

import psycopg
import pytest

from harness import PostgresServer, SluiceServer
from source_support import connect, wait_until


@pytest.fixture(scope="module")
def warehouse():
    with PostgresServer() as server:
        yield server


def _pg(warehouse: PostgresServer, dbname: str = "dev") -> psycopg.Connection:
    return psycopg.connect(warehouse.endpoint(dbname).conninfo, autocommit=True)


def _jdbc(warehouse: PostgresServer, dbname: str = "dev") -> str:
    return f"jdbc:postgresql://{warehouse.host}:{warehouse.port}/{dbname}?user=root"


def test_append_only_rows_of_every_common_type_arrive_as_sluice_holds_them(warehouse: PostgresServer) -> None:
    columns = """id bigint, small smallint, n int, price numeric, ratio double precision, real_ real, flag boolean,
        name varchar, note text, day date, at timestamp, at_tz timestamptz, blob bytea, tags varchar[], doc jsonb, span interval"""
    with _pg(warehouse) as pg:
        pg.execute(f"CREATE TABLE typed ({columns.replace('varchar[]', 'text[]')})")
    with SluiceServer() as server, connect(server) as conn:
        conn.execute(f"CREATE TABLE typed ({columns}) APPEND ONLY")
        conn.execute(f"""CREATE SINK typed_out FROM typed WITH (connector = 'jdbc', jdbc.url = '{_jdbc(warehouse)}',
            table.name = 'typed', type = 'append-only')""")
        conn.execute("""INSERT INTO typed VALUES
            (1, -3, 7, 12345.678901, '1.5e300', 0.25, true, 'plain', E'tab\\there, line\\nbreak, back\\\\slash', '2024-02-29',
             '2024-01-02 03:04:05.123456', '2024-06-01 12:00:00+02', '\\x00ff10'::bytea, ARRAY['a', 'b c', NULL], '{"k": [1, 2, {"x": null}]}',
             INTERVAL '1 day 02:03:04'),
            (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            (3, 32767, -2147483648, -0.000001, -0.0, 'NaN', false, 'üñí©ødé ✓', '\\N is not null', '0001-01-01', '1999-12-31 23:59:59',
             '1970-01-01 00:00:00+00', ''::bytea, ARRAY[]::varchar[], '[]', INTERVAL '-3 months')""")
        conn.execute("INSERT INTO typed SELECT g, g % 100, g, g * 1.5, g / 7.0, g, g % 2 = 0, 'n' || g, NULL::text, DATE '2024-01-01' + (g % 300)::int, "
                     "NULL::timestamp, NULL::timestamptz, NULL::bytea, NULL::varchar[], NULL::jsonb, NULL::interval FROM generate_series(4, 5000) AS g")
        conn.execute("FLUSH")
        wait_until(lambda: conn.execute("SELECT rows FROM sluice_sinks WHERE name = 'typed_out'").fetchone()[0] == 5000, 60, "5000 rows committed")
        # Both sides as PostgreSQL's text output of the same types: Sluice's through its wire
        # protocol, PostgreSQL's own through psycopg; the table's values were parsed by PostgreSQL.
        select = "SELECT id, small, n, price, ratio, real_, flag, name, note, day, at, at_tz, blob, tags, doc, span FROM typed ORDER BY id"
        ours = [tuple(map(str, row)) for row in conn.execute(select).fetchall()]
        with _pg(warehouse) as pg:
            pg.execute("SET timezone = 'UTC'")
            theirs = [tuple(map(str, row)) for row in pg.execute(select).fetchall()]
            assert pg.execute("SELECT count(*) FROM sluice_sink_progress").fetchone() == (1,)
        assert len(theirs) == 5000
        assert theirs == ours
        # Spot checks worked out by hand, independent of either side's output.
        with _pg(warehouse) as pg:
            row = pg.execute("SELECT note, blob, tags, doc -> 'k' -> 2, at_tz = '2024-06-01 10:00:00+00', ratio, span FROM typed WHERE id = 1").fetchone()
            assert row[0] == "tab\there, line\nbreak, back\\slash"
            assert bytes(row[1]) == b"\x00\xff\x10"
            assert row[2] == ["a", "b c", None]
            assert row[3] == {"x": None}
            assert row[4] is True
            assert row[5] == 1.5e300
            assert str(row[6]) == "1 day, 2:03:04"
            assert pg.execute("SELECT note, name FROM typed WHERE id = 3").fetchone() == ("\\N is not null", "üñí©ødé ✓")
            assert pg.execute("SELECT count(*), count(small), sum(n) FROM typed WHERE id = 2").fetchone() == (1, 0, None)
        conn.execute("DROP SINK typed_out")


def test_an_upsert_sink_keeps_the_table_equal_to_its_view(warehouse: PostgresServer) -> None:
    with _pg(warehouse) as pg:
        pg.execute("CREATE TABLE totals (player varchar PRIMARY KEY, runs bigint, innings bigint, extra text DEFAULT 'kept')")
    rng = random.Random(42)
    with SluiceServer() as server, connect(server) as conn:
        conn.execute("CREATE TABLE balls (id int PRIMARY KEY, player varchar, runs int)")
        conn.execute("CREATE MATERIALIZED VIEW totals AS SELECT player, sum(runs) AS runs, count(*) AS innings FROM balls GROUP BY player")
        conn.execute(f"""CREATE SINK totals_out FROM totals WITH (connector = 'postgres', host = '{warehouse.host}', port = '{warehouse.port}',
            user = 'root', database = 'dev', table = 'totals', type = 'upsert', primary_key = 'player')""")
        next_id = 0
        for round_number in range(12):
            # Inserts, updates of runs and of who scored, and deletes that empty a group.
            for _ in range(300):
                conn.execute("INSERT INTO balls VALUES (%s, %s, %s)", (next_id, f"p{rng.randrange(40)}", rng.randrange(7)))
                next_id += 1
            conn.execute("UPDATE balls SET runs = runs + 1 WHERE id %% 7 = %s", (round_number % 7,))
            conn.execute("UPDATE balls SET player = 'p' || (id %% 45)::varchar WHERE id %% 11 = %s", (round_number % 11,))
            conn.execute("DELETE FROM balls WHERE player = %s", (f"p{rng.randrange(45)}",))
        conn.execute("FLUSH")
        view = sorted(conn.execute("SELECT player, runs, innings FROM totals").fetchall())
        assert 20 < len(view) <= 45

        def same() -> bool:
            with _pg(warehouse) as pg:
                return sorted(pg.execute("SELECT player, runs, innings FROM totals").fetchall()) == view
        wait_until(same, 60, "the PostgreSQL table to equal the view")
        with _pg(warehouse) as pg:
            # Columns the sink does not write keep their defaults.
            assert pg.execute("SELECT DISTINCT extra FROM totals").fetchall() == [("kept",)]
        assert conn.execute("SELECT last_error FROM sluice_sinks WHERE name = 'totals_out'").fetchone() == (None,)
        conn.execute("DROP SINK totals_out")


def test_mistakes_at_create_sink_are_clear_errors(warehouse: PostgresServer) -> None:
    warehouse.add_password_user("writer", "right-password")
    with _pg(warehouse) as pg:
        pg.execute("CREATE TABLE keyless (id int, v text)")
        pg.execute("CREATE TABLE keyed (id int PRIMARY KEY, v text)")
    host, port = warehouse.host, warehouse.port
    with SluiceServer() as server, connect(server) as conn:
        conn.execute("CREATE TABLE src (id int, v varchar) APPEND ONLY")
        cases = [
            # A refused password (28P01), and no password at all.
            (f"connector = 'jdbc', jdbc.url = 'jdbc:postgresql://{host}:{port}/dev?user=writer&password=wrong', table.name = 'keyed', type = 'append-only'",
             "28P01", "password authentication failed"),
            (f"connector = 'postgres', host = '{host}', port = '{port}', user = 'writer', password = 'nope', database = 'dev', table = 'keyed', type = 'append-only'",
             "28P01", "password authentication failed"),
            # Nothing listens there (HV00N).
            ("connector = 'jdbc', jdbc.url = 'jdbc:postgresql://127.0.0.1:1/dev?user=root', table.name = 'keyed', type = 'append-only'",
             "HV00N", "cannot connect to PostgreSQL"),
            # A missing database, table and column.
            (f"connector = 'jdbc', jdbc.url = 'jdbc:postgresql://{host}:{port}/nodb?user=root', table.name = 'keyed', type = 'append-only'",
             "HV00N", "nodb"),
            (f"connector = 'jdbc', jdbc.url = 'jdbc:postgresql://{host}:{port}/dev?user=root', table.name = 'absent', type = 'append-only'",
             "42P01", "does not exist"),
            (f"connector = 'jdbc', jdbc.url = 'jdbc:postgresql://{host}:{port}/dev?user=root', table.name = 'keyed', schema.name = 'other', type = 'append-only'",
             "42P01", "other.keyed"),
            # An upsert sink into a table without a key on its primary_key.
            (f"connector = 'jdbc', jdbc.url = 'jdbc:postgresql://{host}:{port}/dev?user=root', table.name = 'keyless', type = 'upsert', primary_key = 'id'",
             "42P10", "no primary key or unique index on (id)"),
            (f"connector = 'jdbc', jdbc.url = 'jdbc:postgresql://{host}:{port}/dev?user=root', table.name = 'keyed', type = 'upsert', primary_key = 'v'",
             "42P10", "no primary key or unique index on (v)"),
            # Not PostgreSQL, not a URL, options missing or unknown.
            ("connector = 'jdbc', jdbc.url = 'jdbc:mysql://h:3306/db', table.name = 'keyed', type = 'append-only'", "0A000", "jdbc:mysql"),
            (f"connector = 'jdbc', jdbc.url = 'jdbc:postgresql://{host}:{port}/dev?user=root', type = 'append-only'", "42601", "table.name"),
            (f"connector = 'jdbc', jdbc.url = 'jdbc:postgresql://{host}:notaport/dev', table.name = 'keyed', type = 'append-only'", "22023", "notaport"),
            (f"connector = 'jdbc', jdbc.url = 'jdbc:postgresql://{host}:{port}/dev', table.name = 'keyed', type = 'append-only'", "22023", "needs a user"),
            (f"connector = 'postgres', host = '{host}', port = '{port}', user = 'root', database = 'dev', table = 'keyed', type = 'append-only', tabel = 'x'",
             "42601", "tabel"),
        ]
        for options, sqlstate, message in cases:
            with pytest.raises(psycopg.Error) as raised:
                conn.execute(f"CREATE SINK bad FROM src WITH ({options})")
            assert raised.value.sqlstate == sqlstate and message in str(raised.value), (options, raised.value.sqlstate, str(raised.value))
            # No password shows in an error.
            assert "right-password" not in str(raised.value) and "password=wrong" not in str(raised.value)
        assert conn.execute("SELECT count(*) FROM rw_catalog.rw_sinks WHERE name = 'bad'").fetchone() == (0,)
        # The right password works; SHOW CREATE SINK hides it, in the URL as in the option.
        conn.execute(f"""CREATE SINK good FROM src WITH (connector = 'jdbc', table.name = 'keyed', type = 'append-only',
            jdbc.url = 'jdbc:postgresql://{host}:{port}/dev?user=writer&password=right-password')""")
        shown = conn.execute("SHOW CREATE SINK good").fetchone()[1]
        assert "right-password" not in shown and "password=[REDACTED]" in shown, shown
        conn.execute("INSERT INTO src VALUES (1, 'one')")
        conn.execute("FLUSH")
        wait_until(lambda: _pg(warehouse).execute("SELECT * FROM keyed").fetchall() == [(1, "one")], 30, "the row written as writer")


ROUNDS = ["sink-after-prepare", None, "sink-before-commit", "postgres-crash", None, "sink-after-commit", None]
PER_ROUND = 3000


def test_kills_of_sluice_and_a_postgres_crash_lose_and_repeat_nothing(tmp_path: Path, warehouse: PostgresServer) -> None:
    """Rows inserted into a Sluice table flow through an append-only sink (and an upsert sink of
    a count per bucket) while Sluice is SIGKILLed at random moments and at the failpoints around
    its commits, and PostgreSQL crashes once; at the end PostgreSQL holds each acknowledged row
    exactly once and the counts equal the view. The oracle: the ids whose INSERT was
    acknowledged."""
    database = warehouse.create_database("exact")
    with psycopg.connect(database.conninfo, autocommit=True) as pg:
        pg.execute("CREATE TABLE events (id bigint, bucket int)")
        pg.execute("CREATE TABLE buckets (bucket int PRIMARY KEY, n bigint)")
    url = _jdbc(warehouse, database.dbname)
    data = tmp_path / "data"
    rng = random.Random(20261127)
    args = ["--barrier-interval-ms", "100"]
    acknowledged: set[int] = set()
    next_id = 0

    def insert_some(server: SluiceServer, count: int) -> None:
        nonlocal next_id
        try:
            with connect(server) as conn:
                for _ in range(count // 100):
                    ids = list(range(next_id, next_id + 100))
                    next_id += 100
                    conn.execute("INSERT INTO events SELECT g, g %% 13 FROM generate_series(%s, %s) AS g", (ids[0], ids[-1]))
                    acknowledged.update(ids)
        except psycopg.Error:
            pass  # the server died mid-statement: what was acknowledged is in `acknowledged`

    for round_number, failpoint in enumerate(ROUNDS):
        env = {"SLUICE_FAILPOINT": failpoint} if failpoint and failpoint.startswith("sink-") else None
        with SluiceServer(data_dir=data, extra_args=args, env=env, may_die_at_start=env is not None) as server:
            if round_number == 0:
                with connect(server) as conn:
                    conn.execute("CREATE TABLE events (id bigint, bucket int) APPEND ONLY")
                    conn.execute("CREATE MATERIALIZED VIEW buckets AS SELECT bucket, count(*) AS n FROM events GROUP BY bucket")
                    conn.execute(f"CREATE SINK events_out FROM events WITH (connector = 'jdbc', jdbc.url = '{url}', table.name = 'events', type = 'append-only')")
                    conn.execute(f"""CREATE SINK buckets_out FROM buckets WITH (connector = 'jdbc', jdbc.url = '{url}', table.name = 'buckets',
                        type = 'upsert', primary_key = 'bucket')""")
            if env is not None:
                def died() -> bool:
                    if server.process.poll() is None:
                        insert_some(server, 200)
                    return server.process.poll() is not None
                wait_until(died, 60, f"the server to die at {failpoint}")
                assert server.process.returncode == -signal.SIGKILL, server.log()
                continue
            insert_some(server, PER_ROUND)
            if failpoint == "postgres-crash":
                # PostgreSQL dies under the sink and comes back; the sink retries meanwhile.
                warehouse.restart(kill=True)
                insert_some(server, PER_ROUND)
            time.sleep(rng.uniform(0.05, 1.5))
            server.kill()
            server.process.wait(timeout=10)

    with SluiceServer(data_dir=data, extra_args=args) as server, connect(server) as conn:
        conn.execute("FLUSH")
        counts = sorted(conn.execute("SELECT bucket, n FROM buckets").fetchall())

        def complete() -> list[int] | None:
            with psycopg.connect(database.conninfo) as pg:
                ids = [row[0] for row in pg.execute("SELECT id FROM events").fetchall()]
            repeated = [i for i, n in Counter(ids).items() if n > 1]
            assert not repeated, f"rows in PostgreSQL more than once: {repeated[:10]}"
            return ids if acknowledged <= set(ids) else None
        ids = wait_until(complete, 120, f"all {len(acknowledged)} acknowledged rows in PostgreSQL")
        assert len(acknowledged) >= 4 * PER_ROUND
        assert set(ids) <= set(range(next_id))
        # The upsert sink's counts equal the view's, and the view counts exactly the table.
        assert sum(n for _, n in counts) == conn.execute("SELECT count(*) FROM events").fetchone()[0]
        wait_until(lambda: sorted(psycopg.connect(database.conninfo).execute("SELECT bucket, n FROM buckets").fetchall()) == counts, 60,
                   "the buckets in PostgreSQL to equal the view")
        for name in ("events_out", "buckets_out"):
            assert conn.execute("SELECT last_error FROM sluice_sinks WHERE name = %s", (name,)).fetchone() == (None,)
        # Committed epochs' staging files are gone.
        wait_until(lambda: not any(p.name.startswith("epoch-") for p in (data / "connectors").rglob("epoch-*")), 30, "the staging files removed")


def test_an_unreachable_postgres_is_retried_and_reported(tmp_path: Path) -> None:
    """The sink's PostgreSQL goes away: commits fail and `sluice_sinks` says why, nothing is
    lost; when it is back, the rows arrive."""
    with PostgresServer() as pg_server:
        with _pg(pg_server) as pg:
            pg.execute("CREATE TABLE t (id int)")
        with SluiceServer() as server, connect(server) as conn:
            conn.execute("CREATE TABLE t (id int) APPEND ONLY")
            conn.execute(f"CREATE SINK t_out FROM t WITH (connector = 'jdbc', jdbc.url = '{_jdbc(pg_server)}', table.name = 't', type = 'append-only')")
            conn.execute("INSERT INTO t SELECT * FROM generate_series(1, 100)")
            wait_until(lambda: _pg(pg_server).execute("SELECT count(*) FROM t").fetchone() == (100,), 30, "the first rows")
            assert pg_server.process is not None
            pg_server.restart(kill=True)  # the sink's connection breaks
            pg_server.execute("postgres", "ALTER DATABASE dev ALLOW_CONNECTIONS false")
            conn.execute("INSERT INTO t SELECT * FROM generate_series(101, 300)")
            wait_until(lambda: conn.execute("SELECT commit_failures > 0 AND last_error IS NOT NULL FROM sluice_sinks WHERE name = 't_out'").fetchone()[0],
                       30, "a failed commit reported")
            error = conn.execute("SELECT last_error FROM sluice_sinks WHERE name = 't_out'").fetchone()[0]
            assert "PostgreSQL" in error, error
            pg_server.execute("postgres", "ALTER DATABASE dev ALLOW_CONNECTIONS true")
            def arrived() -> bool:
                with _pg(pg_server) as pg:
                    return pg.execute("SELECT count(*), count(DISTINCT id), sum(id) FROM t").fetchone() == (300, 300, 300 * 301 // 2)
            wait_until(arrived, 90, "every row after the outage, once")
            wait_until(lambda: conn.execute("SELECT last_error FROM sluice_sinks WHERE name = 't_out'").fetchone() == (None,), 30, "the error cleared")


def test_rows_shipped_into_a_live_transaction_arrive_once_when_postgres_restarts_under_it() -> None:
    """An append-only sink ships an epoch's rows into an open PostgreSQL transaction while the
    epoch runs: PostgreSQL has taken them before the checkpoint, and nobody sees them until its
    commit. PostgreSQL is killed while such a transaction is open; that epoch commits from its
    staging file instead, each row once, and the next epoch ships live again."""
    with PostgresServer() as pg_server:
        with _pg(pg_server) as pg:
            pg.execute("CREATE TABLE wide (id int, pad text)")
        # One checkpoint a minute: an epoch lasts until CHECKPOINT ends it.
        args = ["--barrier-interval-ms", "1000", "--checkpoint-frequency", "60"]
        with SluiceServer(extra_args=args) as server, connect(server) as conn:
            conn.execute("CREATE TABLE wide (id int, pad varchar) APPEND ONLY")
            conn.execute(f"CREATE SINK wide_out FROM wide WITH (connector = 'jdbc', jdbc.url = '{_jdbc(pg_server)}', table.name = 'wide', type = 'append-only')")

            def insert(first: int, last: int) -> None:
                # About 200 bytes a row: megabytes of COPY text, shipped a megabyte at a time.
                conn.execute("INSERT INTO wide SELECT g, repeat('p', 190) || g FROM generate_series(%s, %s) AS g", (first, last))

            def copied_live() -> int:
                # Rows a COPY into `wide` has taken and not committed (PostgreSQL 14's progress view).
                with _pg(pg_server) as pg:
                    row = pg.execute("SELECT sum(tuples_processed) FROM pg_stat_progress_copy WHERE relid = 'wide'::regclass").fetchone()
                    return int(row[0] or 0)

            def visible() -> tuple:
                with _pg(pg_server) as pg:
                    return pg.execute("SELECT count(*), count(DISTINCT id), coalesce(sum(id), 0) FROM wide").fetchone()

            insert(1, 20000)
            wait_until(lambda: copied_live() > 0, 30, "rows copied into a live transaction before the checkpoint")
            assert visible() == (0, 0, 0)
            # PostgreSQL dies with the transaction open; the epoch goes on.
            pg_server.restart(kill=True)
            insert(20001, 40000)
            conn.execute("CHECKPOINT")
            wait_until(lambda: visible() == (40000, 40000, 40000 * 40001 // 2), 60, "the epoch committed from its file, once")
            # The next epoch ships live again, on fresh connections.
            insert(40001, 60000)
            wait_until(lambda: copied_live() > 0, 30, "the next epoch's rows in a live transaction")
            assert visible()[0] == 40000
            conn.execute("CHECKPOINT")
            wait_until(lambda: visible() == (60000, 60000, 60000 * 60001 // 2), 60, "the next epoch committed live, once")
            with _pg(pg_server) as pg:
                assert pg.execute("SELECT count(*) FROM sluice_sink_progress").fetchone() == (1,)
            wait_until(lambda: conn.execute("SELECT last_error FROM sluice_sinks WHERE name = 'wide_out'").fetchone() == (None,), 30, "no error left")
            assert conn.execute("SELECT rows FROM sluice_sinks WHERE name = 'wide_out'").fetchone() == (60000,)
            conn.execute("DROP SINK wide_out")


def test_an_upsert_sink_recovers_from_a_commit_postgres_refused(warehouse: PostgresServer) -> None:
    """PostgreSQL refuses an upsert sink's commit (a trigger raises) and later takes it: the
    retried commit writes the rows. A rolled-back commit once took the sink's temporary tables
    with it and every retry failed for want of them."""
    with _pg(warehouse) as pg:
        pg.execute("CREATE TABLE gate (closed boolean)")
        pg.execute("INSERT INTO gate VALUES (true)")
        pg.execute("CREATE TABLE gated (id int PRIMARY KEY, v text)")
        pg.execute("""CREATE FUNCTION refuse_while_closed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF (SELECT closed FROM gate) THEN RAISE EXCEPTION 'the gate is closed'; END IF; RETURN NEW; END $$""")
        pg.execute("CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON gated FOR EACH ROW EXECUTE FUNCTION refuse_while_closed()")
    with SluiceServer() as server, connect(server) as conn:
        conn.execute("CREATE TABLE src (id int PRIMARY KEY, v varchar)")
        conn.execute(f"""CREATE SINK gated_out FROM src WITH (connector = 'jdbc', jdbc.url = '{_jdbc(warehouse)}', table.name = 'gated',
            type = 'upsert', primary_key = 'id')""")
        conn.execute("INSERT INTO src VALUES (1, 'one'), (2, 'two')")
        wait_until(lambda: "the gate is closed" in (conn.execute("SELECT last_error FROM sluice_sinks WHERE name = 'gated_out'").fetchone()[0] or ""),
                   30, "a refused commit reported")
        with _pg(warehouse) as pg:
            pg.execute("UPDATE gate SET closed = false")
        wait_until(lambda: _pg(warehouse).execute("SELECT id, v FROM gated ORDER BY id").fetchall() == [(1, "one"), (2, "two")], 90,
                   "the rows once PostgreSQL takes them")
        wait_until(lambda: conn.execute("SELECT last_error FROM sluice_sinks WHERE name = 'gated_out'").fetchone() == (None,), 30, "the error cleared")
