"""Avro with a schema registry (`FORMAT PLAIN|UPSERT|DEBEZIUM ENCODE AVRO (schema.registry = …)`),
against Sluice alone: confluent-kafka's `AvroSerializer` registers its schemas with the built-in
registry (`--schema-registry-listen`) and produces to the built-in broker; sources and tables read
the messages (columns from the registry when none are listed), older and newer writer schemas
alike (schema evolution by Avro's resolution rules); the registry refuses what Confluent's refuses,
with its error codes, and keeps its schemas across a restart; a malformed message is a counted bad
row; and Avro sinks are read back with `AvroDeserializer` by a `read_committed` consumer. The
oracle is what the tests produced (or, for sinks, the view read over SQL)."""

from __future__ import annotations

import json
import time
import uuid
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import psycopg
import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.serialization import MessageField, SerializationContext

from harness import SluiceServer
from kafka_support import unique_topic
from source_support import connect, source_status, wait_until


@pytest.fixture(scope="module")
def server():
    with SluiceServer(extra_args=["--barrier-interval-ms", "100"]) as server:
        yield server


def _registry(server: SluiceServer) -> SchemaRegistryClient:
    return SchemaRegistryClient({"url": server.schema_registry_url})


def _produce(server: SluiceServer, topic: str, messages: list[tuple[bytes | None, bytes | None]]) -> None:
    """Produces `(key, value)` messages to `topic`, waiting for every acknowledgement."""
    producer = Producer({"bootstrap.servers": server.kafka_bootstrap, "acks": "all"})
    failures = []
    for key, value in messages:
        producer.produce(topic, key=key, value=value, on_delivery=lambda error, _: failures.append(error) if error else None)
    assert producer.flush(30) == 0
    assert not failures, failures


def _serialize(serializer: AvroSerializer, topic: str, records: list[dict], field: str = MessageField.VALUE) -> list[bytes]:
    return [serializer(record, SerializationContext(topic, field)) for record in records]


def _read_committed(server: SluiceServer, topic: str, expected: int) -> list[tuple[bytes | None, bytes | None]]:
    """The first `expected` (key, value) messages a read_committed consumer gets from `topic`,
    in offset order (one partition)."""
    consumer = Consumer({"bootstrap.servers": server.kafka_bootstrap, "group.id": f"avro-check-{time.monotonic_ns()}",
                         "isolation.level": "read_committed", "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(topic, 0, 0)])
    messages = []
    deadline = time.monotonic() + 60
    try:
        while len(messages) < expected and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is None:
                continue
            if message.error():
                if message.error().code() in (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._PARTITION_EOF):
                    continue
                raise KafkaException(message.error())
            messages.append((message.key(), message.value()))
    finally:
        consumer.close()
    assert len(messages) == expected, f"{len(messages)} messages of {expected} on {topic}"
    return messages


ORDER_SCHEMA = json.dumps({
    "type": "record", "name": "Order", "namespace": "shop",
    "fields": [
        {"name": "id", "type": "int"},
        {"name": "customer", "type": "string"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "quantity", "type": "long"},
        {"name": "ratio", "type": "double"},
        {"name": "paid", "type": "boolean"},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "placed", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "SHIPPED"]}},
        {"name": "ref", "type": {"type": "string", "logicalType": "uuid"}},
    ],
})


def _order(n: int) -> dict:
    return {
        "id": n, "customer": f"c{n % 7}", "amount": Decimal(f"{n}.{n % 100:02d}"), "quantity": n * 1_000_000_007, "ratio": n / 8,
        "paid": n % 2 == 0, "note": None if n % 3 == 0 else f"note {n} ✓", "placed": datetime(2026, 1, 1, 0, n % 60, tzinfo=timezone.utc),
        "day": date(2026, 1, 1 + n % 28), "status": "SHIPPED" if n % 4 == 0 else "NEW", "ref": str(uuid.UUID(int=n)),
    }


def test_avro_serializer_messages_fill_a_source_and_a_table(server: SluiceServer) -> None:
    """A source created without columns takes them from the registry's `<topic>-value`; a table
    with its columns listed (in another order and case, some of the fields) matches them by
    name. Both hold exactly what was produced."""
    topic = unique_topic("avro-orders")
    registry = _registry(server)
    serializer = AvroSerializer(registry, ORDER_SCHEMA)
    orders = [_order(n) for n in range(1, 201)]
    _produce(server, topic, [(None, value) for value in _serialize(serializer, topic, orders)])
    assert registry.get_latest_version(f"{topic}-value").version == 1

    with connect(server) as conn:
        conn.execute(f"""CREATE SOURCE orders WITH (connector = 'kafka', topic = '{topic}', properties.bootstrap.server = '{server.kafka_bootstrap}',
            scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE AVRO (schema.registry = '{server.schema_registry_url}')""")
        columns = conn.execute("""SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'orders'
            ORDER BY ordinal_position""").fetchall()
        assert [name for name, _ in columns] == ["id", "customer", "amount", "quantity", "ratio", "paid", "note", "placed", "day", "status", "ref"]
        assert dict(columns)["amount"] == "numeric" and dict(columns)["placed"] == "timestamp with time zone" and dict(columns)["day"] == "date"
        rows = conn.execute("SELECT id, customer, amount, quantity, ratio, paid, note, placed, day, status, ref FROM orders ORDER BY id").fetchall()
        assert rows == [(o["id"], o["customer"], o["amount"], o["quantity"], o["ratio"], o["paid"], o["note"], o["placed"], o["day"], o["status"], o["ref"])
                        for o in orders]

        conn.execute(f"""CREATE TABLE order_totals ("REF" varchar, Amount numeric(12, 3), ID bigint PRIMARY KEY, missing varchar) WITH (
            connector = 'kafka', topic = '{topic}', properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest')
            FORMAT PLAIN ENCODE AVRO (schema.registry = '{server.schema_registry_url}')""")
        expected = [(o["ref"], o["amount"], o["id"], None) for o in orders]
        wait_until(lambda: conn.execute('SELECT "REF", amount, id, missing FROM order_totals ORDER BY id').fetchall() == expected, 30,
                   "the table to hold every order")
        assert source_status(conn, "order_totals")[1] == 0
        conn.execute("DROP TABLE order_totals")
        conn.execute("DROP SOURCE orders")


def test_schema_evolution_reads_old_and_new_writers(server: SluiceServer) -> None:
    """v2 adds a field with a default (BACKWARD compatible). A table made while v1 was the latest
    reads both writers (v1's messages lack the field: NULL; v2's fill it); a source made under v2
    gives v1's messages the field's default, as Avro's resolution rules say."""
    topic = unique_topic("avro-evolve")
    registry = _registry(server)
    v1 = {"type": "record", "name": "Reading", "fields": [{"name": "id", "type": "int"}, {"name": "label", "type": "string"}]}
    v2 = {"type": "record", "name": "Reading", "fields": [*v1["fields"], {"name": "score", "type": "double", "default": 1.5}]}
    old = AvroSerializer(registry, json.dumps(v1))
    _produce(server, topic, [(None, value) for value in _serialize(old, topic, [{"id": n, "label": f"old{n}"} for n in range(1, 11)])])
    with connect(server) as conn:
        conn.execute(f"""CREATE TABLE readings_v1 (id int, label varchar, score double precision) WITH (connector = 'kafka', topic = '{topic}',
            properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest')
            FORMAT PLAIN ENCODE AVRO (schema.registry = '{server.schema_registry_url}')""")
        new = AvroSerializer(registry, json.dumps(v2))
        _produce(server, topic, [(None, value) for value in _serialize(new, topic, [{"id": n, "label": f"new{n}", "score": n * 2.0} for n in range(11, 21)])])
        assert registry.get_latest_version(f"{topic}-value").version == 2
        expected_v1 = [(n, f"old{n}", None) for n in range(1, 11)] + [(n, f"new{n}", n * 2.0) for n in range(11, 21)]
        wait_until(lambda: conn.execute("SELECT id, label, score FROM readings_v1 ORDER BY id").fetchall() == expected_v1, 30,
                   "the v1 table to read both writers")

        conn.execute(f"""CREATE SOURCE readings_v2 WITH (connector = 'kafka', topic = '{topic}', properties.bootstrap.server = '{server.kafka_bootstrap}',
            scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE AVRO (schema.registry = '{server.schema_registry_url}')""")
        rows = conn.execute("SELECT id, label, score FROM readings_v2 ORDER BY id").fetchall()
        assert rows == [(n, f"old{n}", 1.5) for n in range(1, 11)] + [(n, f"new{n}", n * 2.0) for n in range(11, 21)]
        conn.execute("DROP SOURCE readings_v2")
        conn.execute("DROP TABLE readings_v1")


def test_the_registry_refuses_a_body_over_its_bound_and_keeps_serving(server: SluiceServer) -> None:
    """A request body over 16 MiB is a 413 before it is read further; the registry then answers
    the next request as before."""
    import httpx
    subject = f"{unique_topic('oversize')}-value"
    reply = httpx.post(f"{server.schema_registry_url}/subjects/{subject}/versions", content=b"x" * (17 << 20),
                       headers={"Content-Type": "application/vnd.schemaregistry.v1+json"}, timeout=60)
    assert reply.status_code == 413, (reply.status_code, reply.text[:200])
    schema = Schema(json.dumps({"type": "record", "name": "R", "fields": [{"name": "a", "type": "string"}]}), "AVRO")
    assert _registry(server).register_schema(subject, schema) > 0


def test_the_registry_refuses_what_confluents_refuses(server: SluiceServer) -> None:
    """Incompatible schemas (409/409), invalid ones (422/42201), missing subjects, versions and
    schemas (404 with 40401, 40402, 40403); compatibility levels per subject, ids shared between
    subjects, and soft and permanent deletes."""
    registry = _registry(server)
    subject = f"{unique_topic('refusals')}-value"
    v1 = Schema(json.dumps({"type": "record", "name": "R", "fields": [{"name": "a", "type": "string"}]}), "AVRO")
    first = registry.register_schema(subject, v1)
    assert registry.register_schema(subject, v1) == first, "registering the same schema again gives its id"
    assert registry.register_schema(f"{subject}-copy", v1) == first, "the same schema in another subject has the same id"

    changed_type = Schema(json.dumps({"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]}), "AVRO")
    with pytest.raises(SchemaRegistryError) as refused:
        registry.register_schema(subject, changed_type)
    assert (refused.value.http_status_code, refused.value.error_code) == (409, 409)
    assert registry.test_compatibility(subject, changed_type) is False

    # A field without a default cannot be added under BACKWARD; with a default it can.
    no_default = Schema(json.dumps({"type": "record", "name": "R", "fields": [{"name": "a", "type": "string"}, {"name": "b", "type": "int"}]}), "AVRO")
    with pytest.raises(SchemaRegistryError) as refused:
        registry.register_schema(subject, no_default)
    assert refused.value.error_code == 409
    registry.set_compatibility(subject, "FORWARD")
    assert registry.get_compatibility(subject) == "FORWARD"
    assert registry.test_compatibility(subject, no_default) is True
    v2 = registry.register_schema(subject, no_default)
    assert v2 != first and registry.get_versions(subject) == [1, 2]

    with pytest.raises(SchemaRegistryError) as invalid:
        registry.register_schema(subject, Schema('{"type": "record", "name": "R", "fields": [{"name": "a", "type": "nope"}]}', "AVRO"))
    assert (invalid.value.http_status_code, invalid.value.error_code) == (422, 42201)
    with pytest.raises(SchemaRegistryError) as missing:
        registry.get_latest_version("no-such-subject-value")
    assert (missing.value.http_status_code, missing.value.error_code) == (404, 40401)
    with pytest.raises(SchemaRegistryError) as missing:
        registry.get_version(subject, 99)
    assert missing.value.error_code == 40402
    with pytest.raises(SchemaRegistryError) as missing:
        registry.get_schema(987654)
    assert missing.value.error_code == 40403
    with pytest.raises(SchemaRegistryError) as missing:
        registry.lookup_schema(subject, changed_type)
    assert missing.value.error_code == 40403
    assert registry.lookup_schema(subject, v1).version == 1

    assert registry.delete_subject(f"{subject}-copy") == [1]
    assert f"{subject}-copy" not in registry.get_subjects()
    assert registry.delete_subject(f"{subject}-copy", permanent=True) == [1]
    assert registry.get_schema(first).schema_str, "the schema stays while a subject holds it"


def test_a_malformed_avro_message_is_a_counted_bad_row(server: SluiceServer) -> None:
    """A payload without the magic byte, a truncated record, schema ids the registry does not
    have, bytes left after the record and a frame too short are rejected, counted in `sluice_source_errors`, and
    the table goes on with the next message."""
    topic = unique_topic("avro-bad")
    registry = _registry(server)
    serializer = AvroSerializer(registry, json.dumps({"type": "record", "name": "Item", "fields": [
        {"name": "id", "type": "int"}, {"name": "name", "type": "string"}]}))
    good = _serialize(serializer, topic, [{"id": n, "name": f"item{n}"} for n in range(1, 5)])
    bad = [b'{"id": 9, "name": "json"}', good[0][:-3], b"\x00\x00\x01\x86\xa0" + good[0][5:], b"\x00\xff\xff\xff\xff" + good[0][5:],
           good[1] + b"\x00", b"\x00\x00"]
    _produce(server, topic, [(None, good[0]), (None, good[1]), *[(None, value) for value in bad], (None, good[2]), (None, good[3])])
    with connect(server) as conn:
        conn.execute(f"""CREATE TABLE items (id int, name varchar) WITH (connector = 'kafka', topic = '{topic}',
            properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest')
            FORMAT PLAIN ENCODE AVRO (schema.registry = '{server.schema_registry_url}')""")
        wait_until(lambda: conn.execute("SELECT id, name FROM items ORDER BY id").fetchall() == [(n, f"item{n}") for n in range(1, 5)], 30,
                   "the good rows")
        errors = wait_until(lambda: (rows := conn.execute("SELECT error FROM sluice_source_errors WHERE source_name = 'items'").fetchall())
                            and len(rows) == len(bad) and rows, 30, "the bad rows to be recorded")
        messages = " | ".join(message for (message,) in errors)
        assert "magic byte" in messages and "Avro schema 100000" in messages and "after the record" in messages, messages
        assert source_status(conn, "items")[1] == len(bad)
        conn.execute("DROP TABLE items")


def test_upsert_avro_keys_update_and_delete_a_table(server: SluiceServer) -> None:
    """FORMAT UPSERT ENCODE AVRO: Avro keys (a record of the key) and values; a tombstone deletes
    its key's row. A key that is plain text still works for a one-column key."""
    topic = unique_topic("avro-upsert-in")
    registry = _registry(server)
    keys = AvroSerializer(registry, json.dumps({"type": "record", "name": "Key", "fields": [{"name": "id", "type": "int"}]}))
    values = AvroSerializer(registry, json.dumps({"type": "record", "name": "Account", "fields": [
        {"name": "id", "type": "int"}, {"name": "owner", "type": "string"}, {"name": "balance", "type": "long"}]}))
    oracle: dict[int, tuple[str, int]] = {}
    messages = []
    for n in range(1, 31):
        oracle[n] = (f"o{n}", n * 10)
        messages.append((keys({"id": n}, SerializationContext(topic, MessageField.KEY)), values({"id": n, "owner": f"o{n}", "balance": n * 10},
                                                                                                SerializationContext(topic, MessageField.VALUE))))
    for n in range(1, 31, 4):
        oracle[n] = (f"o{n}", n * 10 + 1)
        messages.append((keys({"id": n}, SerializationContext(topic, MessageField.KEY)), values({"id": n, "owner": f"o{n}", "balance": n * 10 + 1},
                                                                                                SerializationContext(topic, MessageField.VALUE))))
    for n in range(2, 31, 5):
        oracle.pop(n)
        messages.append((keys({"id": n}, SerializationContext(topic, MessageField.KEY)), None))
    oracle.pop(3)
    messages.append((b"3", None))
    _produce(server, topic, messages)
    with connect(server) as conn:
        conn.execute(f"""CREATE TABLE accounts (id int PRIMARY KEY, owner varchar, balance bigint) WITH (connector = 'kafka', topic = '{topic}',
            properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest')
            FORMAT UPSERT ENCODE AVRO (schema.registry = '{server.schema_registry_url}')""")
        expected = [(n, *oracle[n]) for n in sorted(oracle)]
        wait_until(lambda: conn.execute("SELECT id, owner, balance FROM accounts ORDER BY id").fetchall() == expected, 30,
                   "the table to hold what the upserts say")
        assert source_status(conn, "accounts")[1] == 0
        conn.execute("DROP TABLE accounts")
        # RisingWave's form without the columns: the registry's schema gives them, the statement
        # names the key among them.
        conn.execute(f"""CREATE TABLE accounts_from_schema (PRIMARY KEY (id)) WITH (connector = 'kafka', topic = '{topic}',
            properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest')
            FORMAT UPSERT ENCODE AVRO (schema.registry = '{server.schema_registry_url}')""")
        columns = conn.execute("""SELECT column_name, data_type, is_nullable FROM information_schema.columns
            WHERE table_name = 'accounts_from_schema' ORDER BY ordinal_position""").fetchall()
        assert columns == [("id", "integer", "NO"), ("owner", "character varying", "YES"), ("balance", "bigint", "YES")], columns
        wait_until(lambda: conn.execute("SELECT id, owner, balance FROM accounts_from_schema ORDER BY id").fetchall() == expected, 30,
                   "the table without listed columns to hold what the upserts say")
        # A deleted key stays deleted through the table's key (an update of a kept one replaces it).
        assert conn.execute("SELECT count(*) FROM accounts_from_schema WHERE id = 2").fetchone()[0] == 0
        for statement, sqlstate, words in [
            ("(PRIMARY KEY (nope))", "42703", 'column "nope" named in PRIMARY KEY'),
            ("(PRIMARY KEY (id)) INCLUDE offset AS at", "42P16", "INCLUDE needs the table's columns listed"),
        ]:
            with pytest.raises(psycopg.Error) as failure:
                conn.execute(f"""CREATE TABLE refused {statement} WITH (connector = 'kafka', topic = '{topic}',
                    properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest')
                    FORMAT UPSERT ENCODE AVRO (schema.registry = '{server.schema_registry_url}')""")
            assert failure.value.sqlstate == sqlstate and words in str(failure.value), (statement, failure.value)
        conn.execute("DROP TABLE accounts_from_schema")


def test_debezium_avro_events_become_upserts_and_deletes(server: SluiceServer) -> None:
    """FORMAT DEBEZIUM ENCODE AVRO with envelopes as Debezium's Avro converter writes them: `r`,
    `c` and `u` upsert `after`, `d` deletes the key of `before` or, when it is null, of the Avro
    message key; tombstones carry nothing; `t` is a counted bad row."""
    topic = unique_topic("avro-dbz")
    registry = _registry(server)
    value = {"type": "record", "name": "Value", "namespace": "shop.public.accounts",
             "fields": [{"name": "id", "type": "int"}, {"name": "owner", "type": ["null", "string"], "default": None}]}
    envelope = AvroSerializer(registry, json.dumps({"type": "record", "name": "Envelope", "namespace": "shop.public.accounts", "fields": [
        {"name": "before", "type": ["null", value], "default": None},
        {"name": "after", "type": ["null", "Value"], "default": None},
        {"name": "source", "type": {"type": "record", "name": "Source", "fields": [{"name": "db", "type": "string"}, {"name": "lsn", "type": ["null", "long"]}]}},
        {"name": "op", "type": "string"},
        {"name": "ts_ms", "type": ["null", "long"], "default": None},
    ]}))
    key = AvroSerializer(registry, json.dumps({"type": "record", "name": "Key", "namespace": "shop.public.accounts", "fields": [{"name": "id", "type": "int"}]}))

    def event(op: str, before: dict | None, after: dict | None) -> bytes:
        return envelope({"before": before, "after": after, "source": {"db": "shop", "lsn": 7}, "op": op, "ts_ms": 1700000000000},
                        SerializationContext(topic, MessageField.VALUE))

    def key_of(n: int) -> bytes:
        return key({"id": n}, SerializationContext(topic, MessageField.KEY))

    messages = [(key_of(n), event("r", None, {"id": n, "owner": f"o{n}"})) for n in range(1, 11)]
    messages += [(key_of(2), event("u", {"id": 2, "owner": "o2"}, {"id": 2, "owner": None})),
                 (key_of(3), event("d", {"id": 3, "owner": "o3"}, None)), (key_of(3), None),
                 (key_of(4), event("d", None, None)), (None, event("t", None, None)),
                 (key_of(11), event("c", None, {"id": 11, "owner": "new"}))]
    _produce(server, topic, messages)
    with connect(server) as conn:
        conn.execute(f"""CREATE TABLE dbz_accounts (id int PRIMARY KEY, owner varchar) WITH (connector = 'kafka', topic = '{topic}',
            properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest')
            FORMAT DEBEZIUM ENCODE AVRO (schema.registry = '{server.schema_registry_url}')""")
        expected = [(1, "o1"), (2, None)] + [(n, f"o{n}") for n in range(5, 11)] + [(11, "new")]
        wait_until(lambda: conn.execute("SELECT id, owner FROM dbz_accounts ORDER BY id").fetchall() == expected, 30,
                   "the table to hold what the events say")
        # Without the columns: those of the envelope's `after` record.
        conn.execute(f"""CREATE TABLE dbz_from_schema (PRIMARY KEY (id)) WITH (connector = 'kafka', topic = '{topic}',
            properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest')
            FORMAT DEBEZIUM ENCODE AVRO (schema.registry = '{server.schema_registry_url}')""")
        wait_until(lambda: conn.execute("SELECT id, owner FROM dbz_from_schema ORDER BY id").fetchall() == expected, 30,
                   "the table without listed columns to hold what the events say")
        conn.execute("DROP TABLE dbz_from_schema")
        errors = wait_until(lambda: conn.execute("SELECT error FROM sluice_source_errors WHERE source_name = 'dbz_accounts'").fetchall(), 30,
                            "the truncate event to be rejected")
        assert len(errors) == 1 and 'op "t" is not applied' in errors[0][0], errors
        conn.execute("DROP TABLE dbz_accounts")


def test_avro_sinks_are_read_by_avro_deserializer(server: SluiceServer) -> None:
    """A view's changes through Kafka sinks with ENCODE AVRO: PLAIN and UPSERT messages decode
    with `AvroDeserializer` (the writer schemas fetched from the registry by id) to the rows;
    the UPSERT topic folded by key equals the view; a DEBEZIUM sink's envelopes, read back by a
    DEBEZIUM ENCODE AVRO table, give a copy equal to the original."""
    registry = _registry(server)
    deserializer = AvroDeserializer(registry)
    plain_topic, upsert_topic, debezium_topic = unique_topic("avro-plain"), unique_topic("avro-upsert"), unique_topic("avro-debezium")
    with connect(server) as conn:
        conn.execute("""CREATE TABLE original (id int PRIMARY KEY, name varchar, price numeric(10, 2), weight double precision, at timestamptz,
            day date, tags varchar[], flag boolean)""")
        conn.execute("""INSERT INTO original SELECT g, 'n' || g, g * 1.25, g / 4.0, TIMESTAMPTZ '2026-01-01 00:00:00+00' + g * INTERVAL '1 minute',
            DATE '2026-01-01' + g, ARRAY['a' || g, NULL], g % 2 = 0 FROM generate_series(1, 50) g""")
        conn.execute("INSERT INTO original VALUES (51, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
        for topic, form in [(plain_topic, "PLAIN"), (upsert_topic, "UPSERT"), (debezium_topic, "DEBEZIUM")]:
            option = ", force_append_only = 'true'" if form == "PLAIN" else ""
            conn.execute(f"""CREATE SINK {form.lower()}_avro FROM original WITH (connector = 'kafka', properties.bootstrap.server = '{server.kafka_bootstrap}',
                topic = '{topic}', primary_key = 'id') FORMAT {form} ENCODE AVRO (schema.registry = '{server.schema_registry_url}'{option})""")
        conn.execute(f"""CREATE TABLE copy (id int PRIMARY KEY, name varchar, price numeric(10, 2), weight double precision, at timestamptz,
            day date, tags varchar[], flag boolean) WITH (connector = 'kafka', topic = '{debezium_topic}',
            properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest', properties.isolation.level = 'read_committed')
            FORMAT DEBEZIUM ENCODE AVRO (schema.registry = '{server.schema_registry_url}')""")
        conn.execute("FLUSH")
        conn.execute("UPDATE original SET name = 'changed', price = price + 1 WHERE id % 5 = 0")
        conn.execute("DELETE FROM original WHERE id % 7 = 0")
        conn.execute("FLUSH")
        view = conn.execute("SELECT id, name, price, weight, at, day, tags, flag FROM original ORDER BY id").fetchall()
        assert len(view) == 51 - 7

        def record(row: tuple) -> dict:
            return dict(zip(["id", "name", "price", "weight", "at", "day", "tags", "flag"], row))

        # PLAIN: each inserted row once, then the updates' new versions.
        plain = _read_committed(server, plain_topic, 51 + 10)
        decoded = [deserializer(value, SerializationContext(plain_topic, MessageField.VALUE)) for _, value in plain]
        start = datetime(2026, 1, 1, tzinfo=timezone.utc)
        assert sorted(decoded[:51], key=lambda row: row["id"]) == [
            record((n, f"n{n}", Decimal(n) * Decimal("1.25"), n / 4.0, start + timedelta(minutes=n), date(2026, 1, 1) + timedelta(days=n), [f"a{n}", None], n % 2 == 0))
            for n in range(1, 51)] + [record((51, None, None, None, None, None, None, None))]
        assert sorted((row["id"], row["name"], row["price"]) for row in decoded[51:]) == [
            (n, "changed", Decimal(n) * Decimal("1.25") + 1) for n in range(5, 51, 5)]
        # UPSERT: folded by key, the view.
        upsert = _read_committed(server, upsert_topic, 51 + 10 + 7)
        folded: dict[int, dict] = {}
        for key, value in upsert:
            id_ = deserializer(key, SerializationContext(upsert_topic, MessageField.KEY))["id"]
            if value is None:
                folded.pop(id_, None)
            else:
                folded[id_] = deserializer(value, SerializationContext(upsert_topic, MessageField.VALUE))
        assert [folded[n] for n in sorted(folded)] == [record(row) for row in view]
        assert registry.get_latest_version(f"{upsert_topic}-key").schema.schema_str.startswith('{"type":"record"')
        # DEBEZIUM: the envelope, and its copy.
        first = deserializer(_read_committed(server, debezium_topic, 1)[0][1], SerializationContext(debezium_topic, MessageField.VALUE))
        assert first["op"] == "c" and first["before"] is None and 1 <= first["after"]["id"] <= 51 and first["ts_ms"] > 0
        wait_until(lambda: conn.execute("SELECT id, name, price, weight, at, day, tags, flag FROM copy ORDER BY id").fetchall() == view, 30,
                   "the Debezium copy to equal the original")
        for form in ["plain", "upsert", "debezium"]:
            conn.execute(f"DROP SINK {form}_avro")
        conn.execute("DROP TABLE copy")
        conn.execute("DROP TABLE original")


def test_create_sink_fails_when_the_registry_refuses_its_schema(server: SluiceServer) -> None:
    """A sink whose derived schema the subject's compatibility level refuses is an error at
    CREATE SINK that says why."""
    topic = unique_topic("avro-refused")
    registry = _registry(server)
    registry.register_schema(f"{topic}-value", Schema(json.dumps({"type": "record", "name": "Other", "fields": [{"name": "x", "type": "string"}]}), "AVRO"))
    registry.set_compatibility(f"{topic}-value", "FORWARD")
    with connect(server) as conn:
        conn.execute("CREATE TABLE refused_source (id int)")
        with pytest.raises(Exception) as refused:
            conn.execute(f"""CREATE SINK refused FROM refused_source WITH (connector = 'kafka', properties.bootstrap.server = '{server.kafka_bootstrap}',
                topic = '{topic}') FORMAT PLAIN ENCODE AVRO (schema.registry = '{server.schema_registry_url}', force_append_only = 'true')""")
        assert "refused the schema" in str(refused.value) and "incompatible" in str(refused.value), str(refused.value)
        assert registry.get_versions(f"{topic}-value") == [1]
        conn.execute("DROP TABLE refused_source")


def test_the_registry_survives_a_restart(tmp_path) -> None:
    """Registered schemas, their ids and versions, and compatibility levels are kept under the
    data directory: after a restart the same ids answer, and new schemas get new ids."""
    data = tmp_path / "data"
    first_schema = Schema(json.dumps({"type": "record", "name": "Kept", "fields": [{"name": "a", "type": "string"}]}), "AVRO")
    second_schema = Schema(json.dumps({"type": "record", "name": "Kept", "fields": [{"name": "a", "type": "string"},
                                                                                    {"name": "b", "type": "int", "default": 0}]}), "AVRO")
    with SluiceServer(data_dir=data) as server:
        registry = _registry(server)
        first = registry.register_schema("kept-value", first_schema)
        second = registry.register_schema("kept-value", second_schema)
        assert registry.register_schema("other-value", second_schema) == second
        registry.set_compatibility("kept-value", "FULL")
    with SluiceServer(data_dir=data) as server:
        registry = _registry(server)
        assert sorted(registry.get_subjects()) == ["kept-value", "other-value"]
        assert registry.get_versions("kept-value") == [1, 2]
        assert registry.get_version("kept-value", 1).schema_id == first
        assert registry.get_latest_version("kept-value").schema_id == second
        assert json.loads(registry.get_schema(first).schema_str) == json.loads(first_schema.schema_str)
        assert registry.get_compatibility("kept-value") == "FULL"
        third = registry.register_schema("third-value", Schema(json.dumps({"type": "record", "name": "New", "fields": []}), "AVRO"))
        assert third not in (first, second)


def test_the_registry_takes_the_sql_ports_logins(tmp_path) -> None:
    """Where SQL needs a password (here `--auth-loopback scram`), so does the registry: HTTP Basic
    with a SQL user's password, as confluent-kafka sends `basic.auth.user.info`; without it, or
    with a wrong one, Confluent's 401 (40101). A source passes its `schema.registry.username`."""
    data = tmp_path / "data"
    with SluiceServer(data_dir=data) as trusting, connect(trusting) as conn:
        conn.execute("CREATE USER avro_writer WITH PASSWORD 'w-secret' SUPERUSER")
    with SluiceServer(data_dir=data, extra_args=["--auth-loopback", "scram"]) as server:
        topic = unique_topic("avro-login")
        subject = f"{topic}-value"
        for config in ({"url": server.schema_registry_url}, {"url": server.schema_registry_url, "basic.auth.user.info": "avro_writer:wrong"}):
            with pytest.raises(SchemaRegistryError) as refused:
                SchemaRegistryClient(config).get_subjects()
            assert refused.value.http_status_code == 401 and refused.value.error_code == 40101, refused.value
        registry = SchemaRegistryClient({"url": server.schema_registry_url, "basic.auth.user.info": "avro_writer:w-secret"})
        serializer = AvroSerializer(registry, ORDER_SCHEMA)
        orders = [_order(n) for n in range(1, 11)]
        _produce_with_login(server, topic, _serialize(serializer, topic, orders))
        assert subject in registry.get_subjects()
        with psycopg.connect(server.endpoint().conninfo.replace("user=root", "user=avro_writer") + " password=w-secret", autocommit=True) as conn:
            conn.execute(f"""CREATE SOURCE logged_orders WITH (connector = 'kafka', topic = '{topic}',
                properties.bootstrap.server = '{server.kafka_bootstrap}', properties.sasl.mechanism = 'PLAIN',
                properties.security.protocol = 'SASL_PLAINTEXT', properties.sasl.username = 'avro_writer', properties.sasl.password = 'w-secret',
                scan.startup.mode = 'earliest')
                FORMAT PLAIN ENCODE AVRO (schema.registry = '{server.schema_registry_url}', schema.registry.username = 'avro_writer',
                schema.registry.password = 'w-secret')""")
            assert conn.execute("SELECT id FROM logged_orders ORDER BY id").fetchall() == [(o["id"],) for o in orders]


def _produce_with_login(server: SluiceServer, topic: str, values: list[bytes]) -> None:
    producer = Producer({"bootstrap.servers": server.kafka_bootstrap, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                         "sasl.username": "avro_writer", "sasl.password": "w-secret"})
    for value in values:
        producer.produce(topic, value=value)
    assert producer.flush(30) == 0
