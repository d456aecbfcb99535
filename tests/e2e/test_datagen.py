"""The datagen connector over psycopg, as RisingWave's load generator is used: sequences and
random columns within their bounds, a source that ends with its sequence, a later view that
starts from exactly the rows already made, a table fed by the generator, the rate never
exceeded, and every mistake in the options answered with an error at CREATE."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import psycopg
import pytest

from harness import SluiceServer
from source_support import connect, source_status, wait_until


@pytest.fixture(scope="module")
def server():
    with SluiceServer() as server:
        yield server


def _wait_finished(conn: psycopg.Connection, name: str) -> None:
    wait_until(lambda: source_status(conn, name)[2].startswith("finished"), 60, f"{name} to finish ({source_status(conn, name)})")
    conn.execute("FLUSH")


BASETIME = datetime(2025, 6, 1, 12, 0, 0, tzinfo=timezone.utc)


def test_sequence_and_random_columns_fill_a_view_and_a_later_view_sees_the_same_rows(server):
    with connect(server) as conn:
        conn.execute(f"""
            CREATE SOURCE gen_events (id int, score bigint, ratio double precision, name varchar, ok boolean, at timestamptz)
            WITH (connector = 'datagen',
                  fields.id.kind = 'sequence', fields.id.start = '1', fields.id.end = '500',
                  fields.score.min = '-20', fields.score.max = '20', fields.score.seed = '7',
                  fields.ratio.min = '0.5', fields.ratio.max = '1.5',
                  fields.name.length = '8',
                  fields.at.max_past = '1 hour', fields.at.basetime = '{BASETIME.isoformat()}',
                  datagen.rows.per.second = '2000')
            FORMAT PLAIN ENCODE JSON""")
        conn.execute("CREATE MATERIALIZED VIEW gen_all AS SELECT * FROM gen_events")
        conn.execute("""CREATE MATERIALIZED VIEW gen_totals AS
                        SELECT count(*) AS n, min(id) AS lo, max(id) AS hi, sum(id) AS total FROM gen_events""")
        _wait_finished(conn, "gen_events")
        assert source_status(conn, "gen_events")[:2] == (500, 0)
        assert conn.execute("SELECT n, lo, hi, total FROM gen_totals").fetchone() == (500, 1, 500, 500 * 501 // 2)

        rows = conn.execute("SELECT id, score, ratio, name, ok, at FROM gen_all ORDER BY id").fetchall()
        assert [row[0] for row in rows] == list(range(1, 501))
        assert all(-20 <= row[1] <= 20 for row in rows)
        assert all(0.5 <= row[2] <= 1.5 for row in rows)
        assert all(len(row[3]) == 8 and row[3].isalnum() for row in rows)
        assert all(BASETIME - timedelta(hours=1) <= row[5] <= BASETIME for row in rows)
        # Random, not constant: both booleans and many distinct scores appear.
        assert {row[4] for row in rows} == {True, False}
        assert len({row[1] for row in rows}) > 30

        # A view created afterwards starts from the very same rows, and so does a query of the
        # source itself.
        conn.execute("CREATE MATERIALIZED VIEW gen_all_later AS SELECT * FROM gen_events")
        later = conn.execute("SELECT id, score, ratio, name, ok, at FROM gen_all_later ORDER BY id").fetchall()
        assert later == rows
        assert conn.execute("SELECT id, score, ratio, name, ok, at FROM gen_events ORDER BY id").fetchall() == rows


def test_the_same_seed_makes_the_same_values(server):
    with connect(server) as conn:
        for name in ("seeded_a", "seeded_b"):
            conn.execute(f"""
                CREATE SOURCE {name} (id int, v int, s varchar)
                WITH (connector = 'datagen', fields.id.kind = 'sequence', fields.id.end = '99',
                      fields.v.seed = '42', fields.v.max = '1000000', fields.s.seed = '5', datagen.rows.per.second = '1000')""")
            conn.execute(f"CREATE MATERIALIZED VIEW {name}_all AS SELECT * FROM {name}")
        for name in ("seeded_a", "seeded_b"):
            _wait_finished(conn, name)
        a = conn.execute("SELECT id, v, s FROM seeded_a_all ORDER BY id").fetchall()
        b = conn.execute("SELECT id, v, s FROM seeded_b_all ORDER BY id").fetchall()
        assert len(a) == 100 and a == b


def test_a_table_stores_the_generated_rows(server):
    with connect(server) as conn:
        conn.execute("""
            CREATE TABLE gen_table (id bigint PRIMARY KEY, amount numeric(10,2), day date)
            WITH (connector = 'datagen', fields.id.kind = 'sequence', fields.id.start = '10', fields.id.end = '209',
                  fields.amount.min = '1', fields.amount.max = '100', fields.day.max_past = '30 days',
                  datagen.rows.per.second = '1000')""")
        _wait_finished(conn, "gen_table")
        count, low, high = conn.execute("SELECT count(*), min(id), max(id) FROM gen_table").fetchone()
        assert (count, low, high) == (200, 10, 209)
        amounts = [row[0] for row in conn.execute("SELECT amount FROM gen_table").fetchall()]
        assert all(1 <= amount <= 100 and amount == round(amount, 2) for amount in amounts)
        today = datetime.now(timezone.utc).date()
        days = [row[0] for row in conn.execute("SELECT day FROM gen_table").fetchall()]
        assert all(today - timedelta(days=31) <= day <= today for day in days)


def test_rows_are_never_made_faster_than_the_rate(server):
    with connect(server) as conn:
        conn.execute("CREATE SOURCE paced (v int) WITH (connector = 'datagen', datagen.rows.per.second = '40')")
        # Nothing is made while no view reads the source.
        time.sleep(0.3)
        assert source_status(conn, "paced")[0] == 0
        start = time.monotonic()
        conn.execute("CREATE MATERIALIZED VIEW paced_count AS SELECT count(*) AS n FROM paced")
        wait_until(lambda: source_status(conn, "paced")[0] >= 20, 30, "20 paced rows")
        for _ in range(5):
            made = source_status(conn, "paced")[0]
            assert made <= 40 * (time.monotonic() - start) + 1, f"{made} rows after {time.monotonic() - start:.2f} s"
            time.sleep(0.1)
        assert source_status(conn, "paced")[2] == "running"
        conn.execute("DROP SOURCE paced CASCADE")


@pytest.mark.parametrize("columns, options, sqlstate, message", [
    ("(v int)", "fields.v.colour = 'red'", "42601", 'unknown datagen option "fields.v.colour"'),
    ("(v int)", "fields.w.kind = 'sequence'", "22023", 'names no column'),
    ("(v int)", "fields.v.kind = 'shuffle'", "22023", "must be 'random' or 'sequence'"),
    ("(v varchar)", "fields.v.kind = 'sequence'", "0A000", "a datagen sequence makes numbers"),
    ("(v int)", "fields.v.start = '10', fields.v.end = '1', fields.v.kind = 'sequence'", "22023", "start is after its end"),
    ("(v int)", "fields.v.min = 'low'", "22023", "must be a number"),
    ("(v int)", "datagen.rows.per.second = '0'", "22023", 'option "datagen.rows.per.second" of the datagen connector must be a positive number'),
    ("(v timestamptz)", "fields.v.max_past = 'soon'", "22023", "max_past is not an interval"),
    ("(v int[])", "", "0A000", "does not make"),
])
def test_mistakes_in_the_options_are_errors_at_create(server, columns, options, sqlstate, message):
    with connect(server) as conn:
        extra = f", {options}" if options else ""
        with pytest.raises(psycopg.Error) as raised:
            conn.execute(f"CREATE SOURCE bad_gen {columns} WITH (connector = 'datagen'{extra})")
        assert raised.value.sqlstate == sqlstate
        assert message in str(raised.value)
        assert conn.execute("SELECT count(*) FROM sluice_sources WHERE name = 'bad_gen'").fetchone() == (0,)


def test_upsert_is_refused_for_datagen(server):
    with connect(server) as conn:
        with pytest.raises(psycopg.Error) as raised:
            conn.execute("""CREATE TABLE bad_upsert (v int PRIMARY KEY) WITH (connector = 'datagen')
                            FORMAT UPSERT ENCODE JSON""")
        assert raised.value.sqlstate == "0A000"
