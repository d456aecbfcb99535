"""State behind the watermark goes: an interval join, a window join, a group top-N, a
deduplication and a union, over two Kafka sources with `WATERMARK FOR`, equal DuckDB's answers
over the events the watermarks keep, and hold a fraction of the state the same views keep over
the same topics read without a watermark (which keep every row, and must equal DuckDB over every
event).

The oracle applies the watermark's rule itself, per topic (one partition each): an event is late
when its time is below the largest `ts - 2 s` of the events kept before it."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic

from harness import SluiceServer
from harness.ports import free_port
from source_support import comparable_rows, connect, kept_by_watermark, micros, wait_until

BASE = datetime(2026, 11, 1, tzinfo=timezone.utc)
SECOND = 1_000_000
WINDOW = 5 * SECOND
LAG = 2 * SECOND
AUCTIONS = 40

# Each view over `{bids}` and `{auctions}`: the watermarked sources, or the plain ones.
VIEWS = {
    "interval_joined": """
  WITH j AS (SELECT b.auction, b.price, b.ts FROM {bids} b JOIN {auctions} a
             ON b.auction = a.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '1' SECOND)
  SELECT window_start, count(*) AS pairs, sum(price) AS prices FROM TUMBLE(j, ts, INTERVAL '5' SECOND) GROUP BY window_start""",
    "window_joined": """
  WITH b AS (SELECT auction, window_start, count(*) AS bids, max(price) AS top FROM TUMBLE({bids}, ts, INTERVAL '5' SECOND)
             GROUP BY auction, window_start),
       a AS (SELECT id, window_start, count(*) AS auctions FROM TUMBLE({auctions}, ts, INTERVAL '5' SECOND) GROUP BY id, window_start)
  SELECT b.window_start, sum(b.bids) AS bids, sum(b.top) AS tops, sum(a.auctions) AS auctions, count(*) AS pairs
  FROM b JOIN a ON b.auction = a.id AND b.window_start = a.window_start GROUP BY b.window_start""",
    "top_bids": """
  SELECT auction, price, ts, window_start FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY auction, window_start ORDER BY price DESC, ts) AS rn
    FROM TUMBLE({bids}, ts, INTERVAL '5' SECOND)) WHERE rn <= 2""",
    "first_bids": """
  WITH d AS (SELECT auction, price, window_start FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY auction, window_start ORDER BY ts, price) AS rn
    FROM TUMBLE({bids}, ts, INTERVAL '5' SECOND)) WHERE rn = 1)
  SELECT window_start, count(*) AS auctions, sum(price) AS prices FROM d GROUP BY window_start""",
    "all_events": """
  WITH u AS (SELECT auction AS id, ts FROM {bids} UNION ALL SELECT id, ts FROM {auctions})
  SELECT window_start, count(*) AS events, count(DISTINCT id) AS ids FROM TUMBLE(u, ts, INTERVAL '5' SECOND) GROUP BY window_start""",
}


def _events(rng: random.Random, count: int, per_second: int, fields) -> list[dict]:
    """Events `per_second` apart in simulated time, each moved back by up to 2.5 s or on by
    up to 0.2 s: some late."""
    step = SECOND // per_second
    return [{**fields(rng), "ts": (BASE + timedelta(microseconds=i * step + rng.randrange(-25, 2) * 100_000)).isoformat()}
            for i in range(count)]


def _kept(events: list[dict]) -> list[dict]:
    return kept_by_watermark(events, LAG)[0]


def _expected(bids: list[dict], auctions: list[dict], tmp_path: Path) -> dict[str, list[tuple]]:
    db = duckdb.connect()
    for name, events, columns in (("b", bids, "auction: 'integer', price: 'integer'"), ("a", auctions, "id: 'integer'")):
        dump = tmp_path / f"{name}.json"
        dump.write_text("\n".join(json.dumps({**e, "us": micros(e["ts"])}) for e in events))
        db.execute(f"CREATE TABLE {name} AS SELECT *, us // {WINDOW} * {WINDOW} AS ws "
                   f"FROM read_json(?, columns = {{{columns}, ts: 'varchar', us: 'bigint'}})", [str(dump)])
    return {
        "interval_joined": db.execute(
            f"SELECT b.us // {WINDOW} * {WINDOW} AS w, count(*), sum(price) FROM b JOIN a ON b.auction = a.id "
            f"AND b.us BETWEEN a.us AND a.us + {SECOND} GROUP BY w").fetchall(),
        "window_joined": db.execute(
            "WITH bb AS (SELECT auction, ws, count(*) AS n, max(price) AS top FROM b GROUP BY ALL), "
            "aa AS (SELECT id, ws, count(*) AS n FROM a GROUP BY ALL) "
            "SELECT bb.ws, sum(bb.n), sum(bb.top), sum(aa.n), count(*) FROM bb JOIN aa ON bb.auction = aa.id AND bb.ws = aa.ws "
            "GROUP BY bb.ws").fetchall(),
        "top_bids": db.execute(
            "SELECT auction, price, us, ws FROM (SELECT *, row_number() OVER (PARTITION BY auction, ws ORDER BY price DESC, us) AS rn "
            "FROM b) WHERE rn <= 2").fetchall(),
        "first_bids": db.execute(
            "SELECT ws, count(*), sum(price) FROM (SELECT *, row_number() OVER (PARTITION BY auction, ws ORDER BY us, price) AS rn "
            "FROM b) WHERE rn = 1 GROUP BY ws").fetchall(),
        "all_events": db.execute(
            "SELECT ws, count(*), count(DISTINCT id) FROM (SELECT auction AS id, ws FROM b UNION ALL SELECT id, ws FROM a) "
            "GROUP BY ws").fetchall(),
    }


def _normalized(name: str, rows: list[tuple]) -> list[tuple]:
    """Times as microseconds since the epoch, as the oracle has them."""
    def value(v):
        return (v - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(microseconds=1) if isinstance(v, datetime) else v
    return comparable_rows([tuple(value(v) for v in row) for row in rows])


def _produce(bootstrap: str, topic: str, events: list[dict]) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    for event in events:
        producer.send(topic, value=json.dumps(event).encode(), partition=0)
    producer.flush(timeout=60)
    producer.close()


def test_state_behind_the_watermark_is_dropped_and_results_equal_duckdb(tmp_path: Path) -> None:
    rng = random.Random(41)
    seconds = 90
    bids = _events(rng, seconds * 60, 60, lambda r: {"auction": r.randrange(AUCTIONS), "price": r.randrange(1, 10_000)})
    auctions = _events(rng, seconds * 8, 8, lambda r: {"id": r.randrange(AUCTIONS)})
    with SluiceServer() as server:
        admin = KafkaAdminClient(bootstrap_servers=server.kafka_bootstrap, request_timeout_ms=10000)
        admin.create_topics([NewTopic("bids", 1, 1), NewTopic("auctions", 1, 1)])
        admin.close()
        with connect(server) as conn:
            for topic, columns in (("bids", "auction int, price int, ts timestamptz"), ("auctions", "id int, ts timestamptz")):
                with_clause = (f"WITH (connector = 'kafka', topic = '{topic}', properties.bootstrap.server = '{server.kafka_bootstrap}', "
                               "scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON")
                conn.execute(f"CREATE SOURCE {topic} ({columns}, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) {with_clause}")
                conn.execute(f"CREATE SOURCE {topic}_all ({columns}) {with_clause}")
            for name, sql in VIEWS.items():
                conn.execute(f"CREATE MATERIALIZED VIEW {name} AS {sql.format(bids='bids', auctions='auctions')}")
                conn.execute(f"CREATE MATERIALIZED VIEW {name}_all AS {sql.format(bids='bids_all', auctions='auctions_all')}")
        _produce(server.kafka_bootstrap, "bids", bids)
        _produce(server.kafka_bootstrap, "auctions", auctions)

        kept_bids, kept_auctions = _kept(bids), _kept(auctions)
        assert 100 < len(bids) - len(kept_bids) < len(bids) // 4, "the test data should have some late bids, not mostly"
        want = {name: comparable_rows(rows) for name, rows in _expected(kept_bids, kept_auctions, tmp_path).items()}
        want_all = {name: comparable_rows(rows) for name, rows in _expected(bids, auctions, tmp_path).items()}
        last: dict = {}

        def equal() -> bool:
            with connect(server) as conn:
                conn.execute("FLUSH")
                for name in VIEWS:
                    last[name] = _normalized(name, conn.execute(f"SELECT * FROM {name}").fetchall())
                    last[name + "_all"] = _normalized(name, conn.execute(f"SELECT * FROM {name}_all").fetchall())
            return all(last[name] == want[name] and last[name + "_all"] == want_all[name] for name in VIEWS)
        try:
            wait_until(equal, 120, "the views to equal DuckDB's answers")
        except AssertionError:
            for name in VIEWS:
                assert last.get(name) == want[name], f"{name} differs from DuckDB\n{server.log()[-2000:]}"
                assert last.get(name + "_all") == want_all[name], f"{name}_all differs from DuckDB"
            raise

        with connect(server) as conn:
            state = dict(conn.execute("SELECT name, state_bytes FROM rw_fragments").fetchall())
        for name in VIEWS:
            # The same rows in and out, but only the last windows' state kept.
            assert state[name] * 3 < state[name + "_all"], f"{name} keeps {state[name]} bytes of state, {state[name + '_all']} without a watermark"


def test_cleaned_state_comes_back_after_a_kill_and_results_still_equal_duckdb(tmp_path: Path) -> None:
    """The same watermarked views, killed with -9 halfway through the events and started again on
    the same data directory: the joins', top-N's and aggregates' cleaned state and the sources'
    watermarks come back from the checkpoint, and every view still equals DuckDB over all the
    events the watermarks keep."""
    rng = random.Random(43)
    seconds = 60
    bids = _events(rng, seconds * 60, 60, lambda r: {"auction": r.randrange(AUCTIONS), "price": r.randrange(1, 10_000)})
    auctions = _events(rng, seconds * 8, 8, lambda r: {"id": r.randrange(AUCTIONS)})
    data, port = tmp_path / "data", free_port()
    with SluiceServer(data_dir=data, kafka_port=port) as server:
        admin = KafkaAdminClient(bootstrap_servers=server.kafka_bootstrap, request_timeout_ms=10000)
        admin.create_topics([NewTopic("bids", 1, 1), NewTopic("auctions", 1, 1)])
        admin.close()
        with connect(server) as conn:
            for topic, columns in (("bids", "auction int, price int, ts timestamptz"), ("auctions", "id int, ts timestamptz")):
                conn.execute(f"CREATE SOURCE {topic} ({columns}, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH (connector = 'kafka', "
                             f"topic = '{topic}', properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest') "
                             "FORMAT PLAIN ENCODE JSON")
            for name, sql in VIEWS.items():
                conn.execute(f"CREATE MATERIALIZED VIEW {name} AS {sql.format(bids='bids', auctions='auctions')}")
            _produce(server.kafka_bootstrap, "bids", bids[: len(bids) // 2])
            _produce(server.kafka_bootstrap, "auctions", auctions[: len(auctions) // 2])
            wait_until(lambda: conn.execute("SELECT sum(rows_read) FROM sluice_sources").fetchone()[0]
                       == len(bids) // 2 + len(auctions) // 2, 60, "the sources to read the first half")
            conn.execute("FLUSH")
        server.kill()
    with SluiceServer(data_dir=data, kafka_port=port) as server:
        _produce(server.kafka_bootstrap, "bids", bids[len(bids) // 2:])
        _produce(server.kafka_bootstrap, "auctions", auctions[len(auctions) // 2:])
        want = {name: comparable_rows(rows) for name, rows in _expected(_kept(bids), _kept(auctions), tmp_path).items()}
        last: dict = {}

        def equal() -> bool:
            with connect(server) as conn:
                conn.execute("FLUSH")
                for name in VIEWS:
                    last[name] = _normalized(name, conn.execute(f"SELECT * FROM {name}").fetchall())
            return all(last[name] == want[name] for name in VIEWS)
        try:
            wait_until(equal, 120, "the views to equal DuckDB's answers after the restart")
        except AssertionError:
            for name in VIEWS:
                assert last.get(name) == want[name], f"{name} differs from DuckDB after the restart\n{server.log()[-2000:]}"
            raise
