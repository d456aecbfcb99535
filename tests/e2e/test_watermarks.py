"""Watermarks end to end, against the built-in broker: a source with `WATERMARK FOR`, in Flink's
quoted-interval form and RisingWave's, drops late events and counts them in `sluice_sources`;
windowed views with and without `EMIT ON WINDOW CLOSE`, a hopping window, and a view over an
emit-on-close view equal DuckDB's answers over the events the watermark keeps, through a
`kill -9` and a restart; and the mistakes at CREATE are refused with their SQLSTATEs.

The oracle applies the watermark's rule itself, independently of the server: events in topic
order (one partition), each late when its time is below the largest `ts - 5 s` of the events
kept before it. A window closes when the watermark on its start passes it: a tumbling window
starting at `s` once `tumble_start(watermark) > s`, a hopping window of 15 s sliding by 5 s once
the earliest window that can still hold the watermark starts after it."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
import psycopg
import pytest
from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic

from harness import SluiceServer
from harness.ports import free_port
from source_support import comparable_rows, connect, kept_by_watermark, micros, wait_until

BASE = datetime(2026, 11, 1, tzinfo=timezone.utc)
SECOND = 1_000_000
TUMBLE = 10 * SECOND
HOP_SLIDE, HOP_SIZE = 5 * SECOND, 15 * SECOND
LAG = 5 * SECOND

VIEWS = {
    "eowc_scores": """
  SELECT player, count(*) AS pops, sum(score) AS points, max(score) AS best, window_start, window_end
  FROM TUMBLE(events, ts, INTERVAL '10 SECONDS')
  GROUP BY player, window_start, window_end
  EMIT ON WINDOW CLOSE""",
    "live_scores": """
  SELECT player, count(*) AS pops, sum(score) AS points, count(DISTINCT score) AS kinds, window_start, window_end
  FROM TUMBLE(events, ts, INTERVAL '10 SECONDS')
  GROUP BY player, window_start, window_end""",
    "eowc_hops": """
  SELECT count(*) AS pops, sum(score) AS points, window_start
  FROM HOP(events, ts, INTERVAL '5 SECONDS', INTERVAL '15 SECONDS')
  GROUP BY window_start
  EMIT ON WINDOW CLOSE""",
    "window_totals": """
  SELECT window_start, sum(points) AS points, count(*) AS players FROM eowc_scores GROUP BY window_start""",
    # No window here to clean: every event the source keeps counts.
    "kept_events": """
  SELECT count(*) AS events, sum(score) AS points FROM events""",
}


def _events(rng: random.Random, start: int, count: int) -> list[dict]:
    """Events 100 ms apart, each time moved back by up to 5.5 s or on by up to 0.5 s: some late."""
    return [{"player": f"p{rng.randrange(6)}", "score": rng.randrange(1, 50),
             "ts": (BASE + timedelta(microseconds=(start + i) * 100_000 + rng.randrange(-55, 5) * 100_000)).isoformat()}
            for i in range(count)]


def _kept(events: list[dict]) -> tuple[list[dict], int, int]:
    """The events the watermark keeps, how many are late, and the watermark after them."""
    return kept_by_watermark(events, LAG)


def _expected(events: list[dict], tmp_path: Path) -> dict[str, list[tuple]]:
    kept, _, watermark = _kept(events)
    dump = tmp_path / "kept.json"
    dump.write_text("\n".join(json.dumps({**e, "us": micros(e["ts"])}) for e in kept))
    db = duckdb.connect()
    db.execute("CREATE TABLE e AS SELECT player, score, us FROM read_json(?, columns = {player: 'varchar', score: 'integer', ts: 'varchar', us: 'bigint'})",
               [str(dump)])
    tumble_closed = watermark // TUMBLE * TUMBLE
    hop_closed = watermark // HOP_SLIDE * HOP_SLIDE - (HOP_SIZE - HOP_SLIDE)
    windows = f"SELECT *, us // {TUMBLE} * {TUMBLE} AS ws FROM e"
    scores = f"SELECT player, count(*), sum(score), max(score), ws, ws + {TUMBLE} FROM ({windows}) GROUP BY player, ws"
    hops = f"""SELECT *, us // {HOP_SLIDE} * {HOP_SLIDE} - k * {HOP_SLIDE} AS ws FROM e, range({HOP_SIZE // HOP_SLIDE}) AS r(k)"""
    return {
        "eowc_scores": db.execute(f"SELECT * FROM ({scores}) WHERE #5 < {tumble_closed}").fetchall(),
        "live_scores": db.execute(
            f"SELECT player, count(*), sum(score), count(DISTINCT score), ws, ws + {TUMBLE} FROM ({windows}) GROUP BY player, ws").fetchall(),
        "eowc_hops": db.execute(f"SELECT count(*), sum(score), ws FROM ({hops}) WHERE ws < {hop_closed} GROUP BY ws").fetchall(),
        "window_totals": db.execute(
            f"SELECT ws, sum(s), count(*) FROM (SELECT player, ws, sum(score) AS s FROM ({windows}) GROUP BY player, ws) "
            f"WHERE ws < {tumble_closed} GROUP BY ws").fetchall(),
        "kept_events": db.execute("SELECT count(*), sum(score) FROM e").fetchall(),
    }


def _actual(server: SluiceServer) -> dict[str, list[tuple]]:
    with connect(server) as conn:
        conn.execute("FLUSH")
        return {name: comparable_rows(conn.execute(f"SELECT * FROM {name}").fetchall()) for name in VIEWS}


def _produce(bootstrap: str, events: list[dict]) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    for event in events:
        producer.send("scores", value=json.dumps(event).encode(), partition=0)
    producer.flush(timeout=60)
    producer.close()


def _late(conn: psycopg.Connection, name: str) -> tuple[int, int]:
    return conn.execute("SELECT rows_read, rows_late FROM sluice_sources WHERE name = %s", (name,)).fetchone()


def _wait_equal(server: SluiceServer, expected: dict[str, list[tuple]], context: str) -> None:
    want = {name: comparable_rows(rows) for name, rows in expected.items()}
    for name, rows in want.items():
        assert rows, f"{context}: the oracle has no rows for {name}: the test data closes no window"
    last: dict = {}

    def equal():
        last.update(_actual(server))
        return last == want
    try:
        wait_until(equal, 60, f"{context}: the views to equal DuckDB's answers")
    except AssertionError:
        for name in VIEWS:
            assert last.get(name) == want[name], f"{context}: {name} differs from DuckDB\n{server.log()[-2000:]}"
        raise


def test_late_events_windows_and_emit_on_close_follow_the_watermark(tmp_path: Path) -> None:
    data, port = tmp_path / "data", free_port()
    rng = random.Random(29)
    batches = [_events(rng, 0, 1500), _events(rng, 1500, 1500), _events(rng, 3000, 1500)]
    # The first events after the restart are 20 s behind: late for a source that kept its
    # watermark through the crash.
    batches[2] = _events(rng, 2800, 10) + batches[2]
    with SluiceServer(data_dir=data, kafka_port=port) as server:
        admin = KafkaAdminClient(bootstrap_servers=server.kafka_bootstrap, request_timeout_ms=10000)
        admin.create_topics([NewTopic("scores", 1, 1)])
        admin.close()
        with connect(server) as conn:
            # Flink's quoted-interval form here; RisingWave's for the second source.
            conn.execute(f"""CREATE SOURCE events (player varchar, score int, ts timestamptz,
                WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
                WITH (connector = 'kafka', topic = 'scores', properties.bootstrap.server = '{server.kafka_bootstrap}',
                      scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
            conn.execute(f"""CREATE SOURCE events_rw (player varchar, score int, ts timestamptz,
                WATERMARK FOR ts AS ts - INTERVAL '5 seconds')
                WITH (connector = 'kafka', topic = 'scores', properties.bootstrap.server = '{server.kafka_bootstrap}',
                      scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
            for name, sql in VIEWS.items():
                conn.execute(f"CREATE MATERIALIZED VIEW {name} AS {sql}")
            conn.execute("CREATE MATERIALIZED VIEW rw_form AS SELECT count(*) AS n FROM events_rw")
        _produce(server.kafka_bootstrap, batches[0] + batches[1])
        produced = batches[0] + batches[1]
        _, late, _ = _kept(produced)
        assert 50 < late < 1000, "the test data should have some late events, not mostly"
        with connect(server) as conn:
            wait_until(lambda: _late(conn, "events")[0] == len(produced), 60, "the source to read every event")
            wait_until(lambda: _late(conn, "events_rw")[0] == len(produced), 60, "the second source to read every event")
            assert _late(conn, "events")[1] == late
            assert _late(conn, "events_rw")[1] == late
            conn.execute("FLUSH")
            assert conn.execute("SELECT n FROM rw_form").fetchone()[0] == len(produced) - late
        _wait_equal(server, _expected(produced, tmp_path), "before the crash")
        server.kill()

    # After a crash the views restart from their last checkpoint and the source from its
    # positions and watermark there: the same events are late as in one uninterrupted run.
    with SluiceServer(data_dir=data, kafka_port=port) as server:
        _produce(server.kafka_bootstrap, batches[2])
        _wait_equal(server, _expected(batches[0] + batches[1] + batches[2], tmp_path), "after the restart")


@pytest.fixture(scope="module")
def server():
    with SluiceServer() as server:
        yield server


@pytest.mark.parametrize("statement, sqlstate, message", [
    ("CREATE SOURCE bad (id int, ts timestamptz, WATERMARK FOR id AS id - 5) {with}", "42804", "timestamp or timestamptz"),
    ("CREATE SOURCE bad (id int, ts timestamptz, WATERMARK FOR nope AS ts) {with}", "42703", "nope"),
    ("CREATE SOURCE bad (id int, ts timestamptz, WATERMARK FOR ts AS id) {with}", "42804", "WATERMARK"),
    ("CREATE SOURCE bad (id int, ts timestamptz, WATERMARK FOR ts AS now()) {with}", "0A000", "non-deterministic"),
    ("CREATE SOURCE bad (id int, ts timestamptz, WATERMARK FOR ts AS ts, WATERMARK FOR ts AS ts) {with}", "0A000", "one WATERMARK"),
    ("CREATE SOURCE bad (id int, ts timestamptz, WATERMARK FOR ts AS max(ts)) {with}", "42803", "aggregate"),
    ("CREATE TABLE bad (id int, ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)", "0A000", "APPEND ONLY"),
    ("CREATE TABLE bad (id int, ts timestamptz, WATERMARK FOR id AS id) APPEND ONLY", "42804", "timestamp or timestamptz"),
    ("CREATE MATERIALIZED VIEW bad AS SELECT id, count(*) FROM plain GROUP BY id EMIT ON WINDOW CLOSE", "0A000", "EMIT ON WINDOW CLOSE"),
    ("CREATE MATERIALIZED VIEW bad AS SELECT window_start, count(*) FROM TUMBLE(plain, ts, INTERVAL '1' MINUTE) "
     "GROUP BY window_start EMIT ON WINDOW CLOSE", "0A000", "watermark"),
])
def test_watermark_mistakes_are_refused(server: SluiceServer, statement: str, sqlstate: str, message: str) -> None:
    with_clause = (f"WITH (connector = 'kafka', topic = 'nothing', properties.bootstrap.server = '{server.kafka_bootstrap}') "
                   "FORMAT PLAIN ENCODE JSON")
    with connect(server) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS plain (id int, ts timestamptz)")
        with pytest.raises(psycopg.Error) as failure:
            conn.execute(statement.format(**{"with": with_clause}))
        assert failure.value.sqlstate == sqlstate, failure.value
        assert message in str(failure.value)
        assert conn.execute("SELECT count(*) FROM pg_class WHERE relname = 'bad'").fetchone()[0] == 0
