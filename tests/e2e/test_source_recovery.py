"""Kafka-fed state after `kill -9`: a table fed by a Kafka topic holds every message exactly once
after a crash in the middle of reading (its rows and the offsets they reach are logged together,
and reading resumes after the last logged row); a source created with
`scan.startup.mode = 'latest'` keeps the offsets it resolved at CREATE, so after a restart its view
counts the same events, none lost and none twice. The broker is the server's own, on a fixed port
across restarts (the connectors name it in their options)."""

from __future__ import annotations

import json
from pathlib import Path

from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic

from harness import SluiceServer
from harness.ports import free_port
from source_support import connect, wait_until


def _produce(bootstrap: str, topic: str, start: int, stop: int) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    for i in range(start, stop):
        producer.send(topic, value=json.dumps({"id": i, "v": i % 97}).encode(), partition=i % 2)
    producer.flush(timeout=60)
    producer.close()


def _create_topic(bootstrap: str, topic: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    admin.create_topics([NewTopic(topic, 2, 1)])
    admin.close()


def _count(server: SluiceServer, sql: str) -> int:
    with connect(server) as conn:
        return conn.execute(sql).fetchone()[0]


def test_a_kafka_table_holds_every_message_once_after_a_crash_mid_read(tmp_path: Path) -> None:
    data, port = tmp_path / "data", free_port()
    total = 100_000
    with SluiceServer(data_dir=data, kafka_port=port) as server:
        _create_topic(server.kafka_bootstrap, "feed")
        _produce(server.kafka_bootstrap, "feed", 0, total)
        with connect(server) as conn:
            conn.execute(f"""CREATE TABLE fed (id int, v int) WITH (connector = 'kafka', topic = 'feed',
                properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
            # Killed while reading: some rows in, not all.
            seen = wait_until(lambda: (n := conn.execute("SELECT count(*) FROM fed").fetchone()[0]) > 0 and n, 60, "the first rows")
        server.kill()
    assert seen < total, "the table read everything before the kill: make the topic larger"
    with SluiceServer(data_dir=data, kafka_port=port) as server:
        wait_until(lambda: _count(server, "SELECT count(*) FROM fed") >= total, 120, f"{total} rows after the restart")
        with connect(server) as conn:
            rows, distinct, low, high = conn.execute("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM fed").fetchone()
        assert (rows, distinct, low, high) == (total, total, 0, total - 1)


def test_a_latest_source_starts_where_it_first_did_after_a_crash(tmp_path: Path) -> None:
    data, port = tmp_path / "data", free_port()
    with SluiceServer(data_dir=data, kafka_port=port) as server:
        _create_topic(server.kafka_bootstrap, "live")
        _produce(server.kafka_bootstrap, "live", 0, 1000)  # before the source: never read
        with connect(server) as conn:
            conn.execute(f"""CREATE SOURCE live_events (id int, v int) WITH (connector = 'kafka', topic = 'live',
                properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'latest') FORMAT PLAIN ENCODE JSON""")
            conn.execute("CREATE MATERIALIZED VIEW live_totals AS SELECT count(*) AS n, sum(v) AS s, min(id) AS low FROM live_events")
        _produce(server.kafka_bootstrap, "live", 1000, 3000)
        wait_until(lambda: _count(server, "SELECT n FROM live_totals") == 2000, 60, "2000 events in the view")
        server.kill()
    with SluiceServer(data_dir=data, kafka_port=port) as server:
        _produce(server.kafka_bootstrap, "live", 3000, 3500)
        wait_until(lambda: _count(server, "SELECT n FROM live_totals") >= 2500, 60, "2500 events in the view after the restart")
        with connect(server) as conn:
            conn.execute("FLUSH")
            n, s, low = conn.execute("SELECT n, s, low FROM live_totals").fetchone()
        assert (n, s, low) == (2500, sum(i % 97 for i in range(1000, 3500)), 1000)
