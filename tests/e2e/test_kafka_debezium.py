"""Debezium's change events read into a table (`CREATE TABLE … WITH (connector = 'kafka', …)
FORMAT DEBEZIUM ENCODE JSON`), with and without Kafka Connect's schema wrapper: creates,
snapshot reads and updates are upserts of `after`, deletes remove the key of `before` (or of the
message key), tombstones carry nothing, and repeated events change nothing (seed 003's "a source
may crash and repeat events"). Events that are not Debezium's are counted in
`sluice_source_errors` and the table goes on. The oracle is the rows worked out here, event by
event; a second test sends a table through a Debezium sink and back through a Debezium table."""

from __future__ import annotations

import json

import pytest
from kafka import KafkaProducer

from harness import SluiceServer
from source_support import connect, wait_until


@pytest.fixture(scope="module")
def server():
    with SluiceServer(extra_args=["--barrier-interval-ms", "100"]) as server:
        yield server


def _event(op: str, before: dict | None, after: dict | None, wrapped: bool) -> bytes:
    payload = {"before": before, "after": after, "op": op, "ts_ms": 1700000000000,
               "source": {"connector": "postgresql", "db": "shop", "table": "accounts", "lsn": 1234}}
    if wrapped:
        return json.dumps({"schema": {"type": "struct", "name": "shop.public.accounts.Envelope", "fields": []}, "payload": payload}).encode()
    return json.dumps(payload).encode()


def test_debezium_events_become_upserts_and_deletes_by_key(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    oracle: dict[int, tuple[str, int]] = {}
    sent = 0

    def send(op: str, before: dict | None, after: dict | None, key: dict | None = None, wrapped: bool = False) -> None:
        nonlocal sent
        producer.send("shop.accounts", key=json.dumps(key).encode() if key else None, value=_event(op, before, after, wrapped))
        sent += 1
        if op in ("c", "r", "u"):
            oracle[after["id"]] = (after["owner"], after["balance"])
        elif op == "d":
            oracle.pop((before or key)["id"], None)

    for n in range(1, 21):
        send("r", None, {"id": n, "owner": f"o{n}", "balance": n * 10}, wrapped=n % 2 == 0)
    for n in range(1, 21, 3):
        send("u", {"id": n, "owner": f"o{n}", "balance": n * 10}, {"id": n, "owner": f"o{n}", "balance": n * 10 + 1}, wrapped=n % 2 == 1)
    for n in range(2, 21, 5):
        send("d", {"id": n, "owner": f"o{n}", "balance": n * 10}, None)
        producer.send("shop.accounts", key=json.dumps({"id": n}).encode(), value=None)  # Debezium's tombstone
        sent += 1
    # A delete whose before is null (REPLICA IDENTITY NOTHING): the message key names the row.
    send("d", None, None, key={"id": 3})
    # The source crashes and repeats events: applying them again changes nothing.
    send("u", {"id": 4, "owner": "o4", "balance": 40}, {"id": 4, "owner": "o4", "balance": 41})
    send("u", {"id": 4, "owner": "o4", "balance": 40}, {"id": 4, "owner": "o4", "balance": 41})
    send("d", {"id": 7}, None)
    send("d", {"id": 7}, None)
    send("c", None, {"id": 30, "owner": "new", "balance": 300}, wrapped=True)
    # What is not a Debezium event is rejected, counted, and the table goes on.
    for bad in [b"not json", b'{"after":{"id":1}}', b'{"op":"c","after":null}', b'{"op":"t"}', b'{"op":"c","after":{"id":"x"}}']:
        producer.send("shop.accounts", value=bad)
        sent += 1
    send("c", None, {"id": 31, "owner": "last", "balance": 310})
    producer.flush()
    producer.close()

    with connect(server) as conn:
        conn.execute(f"""CREATE TABLE accounts (id int PRIMARY KEY, owner varchar, balance bigint) WITH (connector = 'kafka',
            topic = 'shop.accounts', properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'earliest') FORMAT DEBEZIUM ENCODE JSON""")

        def caught_up():
            rows = conn.execute("SELECT id, owner, balance FROM accounts ORDER BY id").fetchall()
            return rows if rows == [(i, *oracle[i]) for i in sorted(oracle)] else None
        wait_until(caught_up, 30, "the table to hold what the events say")
        errors = conn.execute("SELECT error FROM sluice_source_errors WHERE source_name = 'accounts'").fetchall()
        assert len(errors) == 5, errors
        assert any("not a Debezium event" in message for (message,) in errors)
        assert any('op "t" is not applied' in message for (message,) in errors)
        assert any('without "after"' in message for (message,) in errors)
        conn.execute("DROP TABLE accounts")


def test_a_debezium_sink_and_a_debezium_table_round_trip(server: SluiceServer) -> None:
    """What a Debezium sink writes, a Debezium table reads back: the copy equals the original
    after inserts, updates and deletes."""
    bootstrap = server.kafka_bootstrap
    with connect(server) as conn:
        conn.execute("CREATE TABLE original (id int PRIMARY KEY, name varchar, score double precision, seen timestamptz)")
        conn.execute(f"""CREATE SINK original_changes FROM original WITH (connector = 'kafka', properties.bootstrap.server = '{bootstrap}',
            topic = 'original-changes', primary_key = 'id') FORMAT DEBEZIUM ENCODE JSON""")
        conn.execute(f"""CREATE TABLE copy (id int PRIMARY KEY, name varchar, score double precision, seen timestamptz) WITH (connector = 'kafka',
            topic = 'original-changes', properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'earliest',
            properties.isolation.level = 'read_committed') FORMAT DEBEZIUM ENCODE JSON""")
        conn.execute("INSERT INTO original SELECT g, 'n' || g, g * 1.5, TIMESTAMPTZ '2026-01-01 00:00:00+00' + g * INTERVAL '1 minute' FROM generate_series(1, 500) g")
        conn.execute("UPDATE original SET score = score + 100, name = NULL WHERE id % 7 = 0")
        conn.execute("DELETE FROM original WHERE id % 11 = 0")
        conn.execute("INSERT INTO original VALUES (1000, 'late', NULL, NULL)")
        conn.execute("FLUSH")
        expected = conn.execute("SELECT * FROM original ORDER BY id").fetchall()
        assert len(expected) == 500 - 45 + 1
        wait_until(lambda: conn.execute("SELECT * FROM copy ORDER BY id").fetchall() == expected, 30, "the copy to equal the original")
        conn.execute("DROP TABLE copy")
        conn.execute("DROP SINK original_changes")
        conn.execute("DROP TABLE original")
