"""Debezium tables (`FORMAT DEBEZIUM ENCODE JSON` and `FORMAT DEBEZIUM_MONGO ENCODE JSON`) across
SIGKILLs: change events (creates, updates, deletes and repeats) are produced to the built-in
broker in rounds while the server is killed at random moments; after each restart the table goes
on from its logged position, and at the end each table equals the rows worked out here from the
acknowledged events in order (the last version of each key; a deleted key absent)."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from kafka import KafkaAdminClient
from kafka.admin import NewTopic

from harness import SluiceServer
from harness.ports import free_port
from kafka_support import produce_acknowledged
from source_support import connect, wait_until

ROUNDS = 6
PER_ROUND = 400


def _debezium(op: str, before: dict | None, after: dict | None) -> bytes:
    return json.dumps({"before": before, "after": after, "op": op, "ts_ms": 1}).encode()


def _mongo(op: str, after: dict | None) -> bytes:
    payload = {"after": json.dumps(after) if after is not None else None, "op": op, "ts_ms": 1,
               "source": {"connector": "mongodb", "db": "cricket", "collection": "players"}}
    return json.dumps({"payload": payload}).encode()


def _mongo_key(key: int) -> bytes:
    return json.dumps({"id": json.dumps(f"k{key}")}).encode()


def test_debezium_tables_hold_every_acknowledged_change_across_kills(tmp_path: Path) -> None:
    rng = random.Random(20261127)
    data, kafka = tmp_path / "data", free_port()
    args = ["--barrier-interval-ms", "100"]
    # The oracle, applied in the order the events were acknowledged (one partition each).
    rows: dict[int, int] = {}
    documents: dict[int, int] = {}

    def produce(server: SluiceServer, round_number: int) -> None:
        events: list[tuple[int, str, int | None]] = []
        for serial in range(PER_ROUND):
            key = rng.randrange(60)
            if rng.random() < 0.2:
                events.append((key, "d", None))
            else:
                events.append((key, "u" if key in rows else "c", round_number * 10_000 + serial))
        # One partition each, so the acknowledged events apply to the oracle in order.
        relational = {i: _debezium(op, {"id": key, "score": 0} if op == "d" else None,
                                   None if op == "d" else {"id": key, "score": score})
                      for i, (key, op, score) in enumerate(events)}
        mongo = {i: _mongo(op, None if op == "d" else {"_id": f"k{key}", "score": score}) for i, (key, op, score) in enumerate(events)}
        acked = produce_acknowledged(server.kafka_bootstrap, "accounts", relational, partitions=1)
        acked_mongo = produce_acknowledged(server.kafka_bootstrap, "players", mongo, partitions=1, keys={i: _mongo_key(events[i][0]) for i in mongo})
        for index, (key, op, score) in enumerate(events):
            if index in acked:
                if op == "d":
                    rows.pop(key, None)
                else:
                    rows[key] = score
            if index in acked_mongo:
                if op == "d":
                    documents.pop(key, None)
                else:
                    documents[key] = score

    for round_number in range(ROUNDS):
        with SluiceServer(data_dir=data, kafka_port=kafka, extra_args=args) as server:
            if round_number == 0:
                admin = KafkaAdminClient(bootstrap_servers=server.kafka_bootstrap, request_timeout_ms=10000)
                admin.create_topics([NewTopic("accounts", 1, 1), NewTopic("players", 1, 1)])
                admin.close()
                with connect(server) as conn:
                    conn.execute(f"""CREATE TABLE accounts (id int PRIMARY KEY, score int) WITH (connector = 'kafka', topic = 'accounts',
                        properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest') FORMAT DEBEZIUM ENCODE JSON""")
                    conn.execute(f"""CREATE TABLE players (_id varchar PRIMARY KEY, payload jsonb) WITH (connector = 'kafka', topic = 'players',
                        properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest')
                        FORMAT DEBEZIUM_MONGO ENCODE JSON""")
            produce(server, round_number)
            time.sleep(rng.uniform(0.05, 1.0))
            server.kill()
            server.process.wait(timeout=10)

    with SluiceServer(data_dir=data, kafka_port=kafka, extra_args=args) as server, connect(server) as conn:
        expected_rows = sorted(rows.items())
        wait_until(lambda: conn.execute("SELECT id, score FROM accounts ORDER BY id").fetchall() == expected_rows, 60,
                   "the Debezium table to equal the acknowledged changes")
        expected_documents = sorted((f"k{key}", score) for key, score in documents.items())
        wait_until(lambda: sorted(conn.execute("SELECT _id, (payload ->> 'score')::int FROM players").fetchall()) == expected_documents, 60,
                   "the Debezium-Mongo table to equal the acknowledged changes")
        assert len(expected_rows) > 20 and len(expected_documents) > 20
        for table in ("accounts", "players"):
            assert conn.execute("SELECT rows_rejected FROM sluice_sources WHERE name = %s", (table,)).fetchone() == (0,)
