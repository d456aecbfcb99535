"""Kafka sinks as RisingWave writes them (`CREATE SINK … WITH (connector = 'kafka', …) FORMAT
PLAIN|UPSERT|DEBEZIUM ENCODE JSON`), read back with confluent-kafka's `read_committed`
consumer: the messages say what the view did (folded by key, an upsert topic equals the view,
checked against rows worked out here), one topic split into three by three sinks (seed 003's
"topic segregation"), and every change exactly once across SIGKILLs, at random moments and at
the failpoints between a sink's prepare and its commit."""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from pathlib import Path

import psycopg
import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition
from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic

from kafka_support import produce_acknowledged

from harness import SluiceServer
from harness.ports import free_port
from source_support import connect, wait_until


def _messages(bootstrap: str, topic: str, expected: int | None = None, idle: float = 1.0) -> list[tuple[bytes | None, bytes | None]]:
    """Every (key, value) on `topic` a read_committed consumer gets, in offset order per
    partition (partitions one after another), reading until `expected` came and then `idle`
    seconds more, or without `expected` until nothing came for `idle` seconds."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"check-{time.monotonic_ns()}", "isolation.level": "read_committed",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest", "enable.partition.eof": False})
    metadata = consumer.list_topics(topic, timeout=10)
    partitions = sorted(metadata.topics[topic].partitions) if topic in metadata.topics else [0]
    consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
    messages: list[tuple[int, int, bytes | None, bytes | None]] = []
    deadline = time.monotonic() + 60
    quiet_since = time.monotonic()
    try:
        while time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is None:
                if (expected is None or len(messages) >= expected) and time.monotonic() - quiet_since >= idle:
                    break
                continue
            if message.error():
                if message.error().code() == KafkaError.UNKNOWN_TOPIC_OR_PART:
                    continue
                raise KafkaException(message.error())
            messages.append((message.partition(), message.offset(), message.key(), message.value()))
            quiet_since = time.monotonic()
    finally:
        consumer.close()
    return [(key, value) for _, _, key, value in sorted(messages, key=lambda m: (m[0], m[1]))]


def _fold(messages: list[tuple[bytes | None, bytes | None]]) -> dict[str, dict]:
    """An upsert topic folded: each key's last value, tombstones removing it."""
    state: dict[str, dict] = {}
    for key, value in messages:
        assert key is not None
        if value is None:
            state.pop(key.decode(), None)
        else:
            state[key.decode()] = json.loads(value)
    return state


@pytest.fixture(scope="module")
def server():
    with SluiceServer(extra_args=["--barrier-interval-ms", "100"]) as server:
        yield server


def test_upsert_and_plain_sinks_say_what_the_view_did(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    with connect(server) as conn:
        conn.execute("CREATE TABLE scores (player varchar PRIMARY KEY, team varchar, points int)")
        conn.execute("CREATE MATERIALIZED VIEW team_points AS SELECT team, sum(points) AS points, count(*) AS players FROM scores GROUP BY team")
        conn.execute(f"""CREATE SINK team_upserts FROM team_points WITH (connector = 'kafka', properties.bootstrap.server = '{bootstrap}',
            topic = 'team-upserts', primary_key = 'team') FORMAT UPSERT ENCODE JSON""")
        conn.execute(f"""CREATE SINK team_text_keys FROM team_points WITH (connector = 'kafka', properties.bootstrap.server = '{bootstrap}',
            topic = 'team-text-keys', primary_key = 'team') FORMAT UPSERT ENCODE JSON KEY ENCODE TEXT""")
        conn.execute(f"""CREATE SINK score_log FROM scores WITH (connector = 'kafka', properties.bootstrap.server = '{bootstrap}',
            topic = 'score-log') FORMAT PLAIN ENCODE JSON (force_append_only = 'true')""")
        # The oracle: the table's rows, kept here statement by statement.
        rows: dict[str, tuple[str, int]] = {}
        inserted: list[dict] = []
        for n in range(40):
            player, team = f"p{n}", f"t{n % 4}"
            conn.execute("INSERT INTO scores VALUES (%s, %s, %s)", (player, team, n))
            rows[player] = (team, n)
            inserted.append({"player": player, "team": team, "points": n})
        conn.execute("UPDATE scores SET points = points * 2 WHERE team = 't1'")
        for player, (team, points) in list(rows.items()):
            if team == "t1":
                rows[player] = (team, points * 2)
                inserted.append({"player": player, "team": team, "points": points * 2})
        conn.execute("DELETE FROM scores WHERE team = 't3'")
        rows = {p: v for p, v in rows.items() if v[0] != "t3"}
        conn.execute("FLUSH")

        expected = {}
        for team, points in rows.values():
            entry = expected.setdefault(team, {"team": team, "points": 0, "players": 0})
            entry["points"] += points
            entry["players"] += 1
        folded = _fold(_messages(bootstrap, "team-upserts"))
        assert folded == {json.dumps({"team": team}, separators=(",", ":")): value for team, value in expected.items()}
        # The view agrees with the oracle too.
        assert {team: (points, players) for team, points, players in conn.execute("SELECT team, points, players FROM team_points").fetchall()} == {
            team: (value["points"], value["players"]) for team, value in expected.items()}
        assert _fold(_messages(bootstrap, "team-text-keys")) == {team: value for team, value in expected.items()}
        # The plain sink: every new version of a row, deletes dropped.
        logged = [json.loads(value) for _, value in _messages(bootstrap, "score-log")]
        assert sorted(logged, key=json.dumps) == sorted(inserted, key=json.dumps)
        for name in ["team_upserts", "team_text_keys", "score_log"]:
            conn.execute(f"DROP SINK {name}")
        conn.execute("DROP MATERIALIZED VIEW team_points")
        conn.execute("DROP TABLE scores")


def test_a_debezium_sink_writes_change_events_with_before_and_after(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    with connect(server) as conn:
        conn.execute("CREATE TABLE accounts (id int PRIMARY KEY, owner varchar, balance bigint)")
        conn.execute(f"""CREATE SINK account_changes FROM accounts WITH (connector = 'kafka', properties.bootstrap.server = '{bootstrap}',
            topic = 'account-changes', primary_key = 'id') FORMAT DEBEZIUM ENCODE JSON""")
        conn.execute("INSERT INTO accounts VALUES (1, 'ann', 10), (2, 'bob', 20)")
        conn.execute("FLUSH")
        conn.execute("UPDATE accounts SET balance = 15 WHERE id = 1")
        conn.execute("FLUSH")
        conn.execute("DELETE FROM accounts WHERE id = 2")
        conn.execute("FLUSH")
        messages = _messages(bootstrap, "account-changes", expected=5)
        events = [(json.loads(key), json.loads(value) if value is not None else None) for key, value in messages]
        # Per key, in order (keys may land on different partitions).
        by_key: dict[int, list] = {}
        for key, event in events:
            by_key.setdefault(key["id"], []).append(event and (event["op"], event["before"], event["after"]))
        assert by_key == {
            1: [("c", None, {"id": 1, "owner": "ann", "balance": 10}),
                ("u", {"id": 1, "owner": "ann", "balance": 10}, {"id": 1, "owner": "ann", "balance": 15})],
            2: [("c", None, {"id": 2, "owner": "bob", "balance": 20}),
                ("d", {"id": 2, "owner": "bob", "balance": 20}, None),
                None],
        }
        assert all(event is None or (event["source"]["table"] == "account_changes" and event["ts_ms"] > 0) for _, event in events)
        conn.execute("DROP SINK account_changes")
        conn.execute("DROP TABLE accounts")


def test_one_topic_split_into_three_by_three_sinks(server: SluiceServer) -> None:
    """Seed 003's topic segregation: one topic of mixed events, three sinks, each topic holding
    its kind only, each event once."""
    bootstrap = server.kafka_bootstrap
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    kinds = ["match", "player", "innings"]
    sent = {kind: [] for kind in kinds}
    for n in range(300):
        kind = kinds[n % 3]
        event = {"id": n, "kind": kind, "detail": f"{kind}-{n}"}
        sent[kind].append(event)
        producer.send("cricket-events", value=json.dumps(event).encode())
    producer.flush()
    producer.close()
    with connect(server) as conn:
        conn.execute(f"""CREATE SOURCE cricket (id int, kind varchar, detail varchar) WITH (connector = 'kafka', topic = 'cricket-events',
            properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
        for kind in kinds:
            conn.execute(f"""CREATE SINK {kind}_split AS SELECT id, detail FROM cricket WHERE kind = '{kind}' WITH (connector = 'kafka',
                properties.bootstrap.server = '{bootstrap}', topic = 'cricket-{kind}') FORMAT PLAIN ENCODE JSON""")
        # (Read once committed: a consumer that starts before its topic exists waits for
        # librdkafka's next metadata refresh.)
        wait_until(lambda: conn.execute("SELECT count(*) FROM sluice_sinks WHERE name LIKE '%_split' AND rows >= 100").fetchone()[0] == 3,
                   60, "the three sinks to commit their events")
        for kind in kinds:
            got = _messages(bootstrap, f"cricket-{kind}", expected=100)
            assert sorted(json.loads(value)["id"] for _, value in got) == [event["id"] for event in sent[kind]]
            assert all(json.loads(value)["detail"].startswith(kind) for _, value in got)
        # A source over a sink's topic reads it to its end at once, though the topic ends in a
        # transaction marker that no consumer is handed (it waited a minute for it, then failed).
        conn.execute(f"""CREATE SOURCE match_back (id int, detail varchar) WITH (connector = 'kafka', topic = 'cricket-match',
            properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
        conn.execute("SET statement_timeout = '20s'")
        assert conn.execute("SELECT count(*), count(DISTINCT id) FROM match_back").fetchone() == (100, 100)
        conn.execute("RESET statement_timeout")
        conn.execute("DROP SOURCE match_back")
        for kind in kinds:
            conn.execute(f"DROP SINK {kind}_split")
        conn.execute("DROP SOURCE cricket")


def test_bad_kafka_sinks_are_refused_with_clear_errors(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    with connect(server) as conn:
        conn.execute("CREATE TABLE things (id int PRIMARY KEY, name varchar)")
        cases = [
            (f"WITH (connector = 'kafka', properties.bootstrap.server = '{bootstrap}') FORMAT PLAIN ENCODE JSON (force_append_only = 'true')", 'needs option "topic"'),
            ("WITH (connector = 'kafka', topic = 'x') FORMAT PLAIN ENCODE JSON (force_append_only = 'true')", "properties.bootstrap.server"),
            (f"WITH (connector = 'kafka', properties.bootstrap.server = '{bootstrap}', topic = 'x') FORMAT UPSERT ENCODE JSON", "primary_key"),
            (f"WITH (connector = 'kafka', properties.bootstrap.server = '{bootstrap}', topic = 'x') FORMAT PLAIN ENCODE AVRO (force_append_only = 'true')", 'needs option "schema.registry"'),
            (f"WITH (connector = 'kafka', properties.bootstrap.server = '{bootstrap}', topic = 'x') FORMAT PLAIN ENCODE PROTOBUF (force_append_only = 'true')", "ENCODE PROTOBUF"),
            (f"WITH (connector = 'kafka', properties.bootstrap.server = '{bootstrap}', topic = 'x', primary_key = 'id, name') "
             "FORMAT UPSERT ENCODE JSON KEY ENCODE TEXT", "one column"),
            (f"WITH (connector = 'kafka', properties.bootstrap.server = '{bootstrap}', topic = 'x', topik = 'y') FORMAT PLAIN ENCODE JSON (force_append_only = 'true')", "topic"),
            ("WITH (connector = 'kafka', properties.bootstrap.server = '127.0.0.1:1', topic = 'x', properties.socket.timeout.ms = '2000', "
             "properties.transaction.timeout.ms = '3000') FORMAT PLAIN ENCODE JSON (force_append_only = 'true')", "cannot start its producer"),
        ]
        for clause, message in cases:
            with pytest.raises(psycopg.Error) as raised:
                conn.execute(f"CREATE SINK bad FROM things {clause}")
            assert message in str(raised.value), (clause, str(raised.value))
        assert conn.execute("SELECT count(*) FROM rw_catalog.rw_sinks WHERE name = 'bad'").fetchone() == (0,)
        conn.execute("DROP TABLE things")


ROUNDS = ["sink-after-prepare", None, "sink-before-commit", None, "sink-after-commit", None, None]
PER_ROUND = 2000


def _produce(bootstrap: str, start: int, stop: int) -> set[int]:
    """Sends events `start..<stop`; returns the ids the broker acknowledged."""
    return produce_acknowledged(bootstrap, "orders", {i: json.dumps({"id": i, "amount": i % 97}).encode() for i in range(start, stop)})


def test_kills_at_any_moment_lose_and_repeat_nothing(tmp_path: Path) -> None:
    """A Kafka source feeds an exactly-once Kafka sink while the server is SIGKILLed; after
    recovery a read_committed consumer of the sink's topic sees every acknowledged event exactly
    once. The oracle is the set of numbered events the broker acknowledged."""
    data, kafka = tmp_path / "data", free_port()
    rng = random.Random(20261127)
    args = ["--barrier-interval-ms", "100"]
    produced = 0
    acknowledged: set[int] = set()
    for round_number, failpoint in enumerate(ROUNDS):
        with SluiceServer(data_dir=data, kafka_port=kafka, extra_args=args) as server:
            if round_number == 0:
                admin = KafkaAdminClient(bootstrap_servers=server.kafka_bootstrap, request_timeout_ms=10000)
                admin.create_topics([NewTopic("orders", 2, 1), NewTopic("orders-copy", 3, 1)])
                admin.close()
                with connect(server) as conn:
                    conn.execute(f"""CREATE SOURCE orders (id bigint, amount int) WITH (connector = 'kafka', topic = 'orders',
                        properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
                    conn.execute(f"""CREATE SINK orders_copy AS SELECT id, amount FROM orders WITH (connector = 'kafka',
                        properties.bootstrap.server = '{server.kafka_bootstrap}', topic = 'orders-copy') FORMAT PLAIN ENCODE JSON""")
            acknowledged |= _produce(server.kafka_bootstrap, produced, produced + PER_ROUND)
            produced += PER_ROUND
            time.sleep(0 if failpoint else rng.uniform(0.05, 1.5))
            server.kill()
            server.process.wait(timeout=10)
        if failpoint:
            with SluiceServer(data_dir=data, kafka_port=kafka, extra_args=args, env={"SLUICE_FAILPOINT": failpoint}, may_die_at_start=True) as server:
                def died() -> bool:
                    nonlocal produced, acknowledged
                    if server.process.poll() is None:
                        acknowledged |= _produce(server.kafka_bootstrap, produced, produced + 5)
                        produced += 5
                    return server.process.poll() is not None
                wait_until(died, 60, f"the server to die at {failpoint}")

    with SluiceServer(data_dir=data, kafka_port=kafka, extra_args=args) as server:
        def complete() -> list[int] | None:
            ids = [json.loads(value)["id"] for _, value in _messages(server.kafka_bootstrap, "orders-copy", idle=0.5)]
            repeated = [i for i, n in Counter(ids).items() if n > 1]
            assert not repeated, f"events on the sink's topic more than once: {repeated[:10]}"
            return ids if acknowledged <= set(ids) else None
        ids = wait_until(complete, 120, f"all {len(acknowledged)} acknowledged events on the sink's topic")
        assert set(ids) <= set(range(produced))
        assert len(acknowledged) >= produced - 5 * len(ROUNDS)
        with connect(server) as conn:
            (error,) = conn.execute("SELECT last_error FROM sluice_sinks WHERE name = 'orders_copy'").fetchone()
        assert error is None, error
