"""Topics with `cleanup.policy=compact` (Kafka's log compaction) through the real clients: a topic
created compacted with confluent-kafka's AdminClient and another altered to compact with
kafka-python's KafkaAdminClient, many updates of a few keys, then a read from the beginning that
finds each key's last value only, at the offset it was given, with the watermarks unchanged; a
record without a key is refused with INVALID_RECORD."""

from __future__ import annotations

import os

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic
from kafka_support import read_topic, unique_topic

from harness import SluiceServer
from source_support import wait_until

KEYS = [f"key-{n}" for n in range(10)]
ROUNDS = 40


def _value(key: str, round: int) -> bytes:
    """An update of `key`: random, so that compression does not shrink it and segments fill."""
    return f"{key}:{round}:{os.urandom(40).hex()}".encode()


@pytest.fixture(scope="module")
def server():
    # The cleaner looks every 100 ms, so the tests wait little for it.
    with SluiceServer(extra_args=["--log-cleaner-backoff-ms", "100"]) as server:
        yield server


def _watermarks(bootstrap: str, topic: str) -> tuple[int, int]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "watermarks", "enable.auto.commit": False})
    try:
        return consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    finally:
        consumer.close()


def _read_all(bootstrap: str, topic: str) -> list[tuple[int, str | None, bytes | None]]:
    """Every record of partition 0 from the beginning to the end: (offset, key, value)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "compaction-reader", "enable.auto.commit": False,
                         "enable.partition.eof": True})
    records: list[tuple[int, str | None, bytes | None]] = []
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        while True:
            message = consumer.poll(10)
            assert message is not None, f"no record nor end of partition within 10 s after {records[-1:]}"
            if message.error():
                if message.error().code() == KafkaError._PARTITION_EOF:
                    return records
                raise KafkaException(message.error())
            key = message.key()
            records.append((message.offset(), key.decode() if key is not None else None, message.value()))
    finally:
        consumer.close()


def _latest(records: list[tuple[int, str | None, bytes | None]]) -> dict[str | None, tuple[int, bytes | None]]:
    """Each key's last record as read: key → (offset, value)."""
    return {key: (offset, value) for offset, key, value in records}


def _compacted(bootstrap: str, topic: str, expected: int):
    """The records of `topic` once every key appears once (the cleaner has been through the
    closed segments), and there are `expected` of them."""
    records = _read_all(bootstrap, topic)
    keys = [key for _, key, _ in records]
    return records if len(keys) == len(set(keys)) == expected else None


def test_a_topic_created_compacted_keeps_each_keys_last_value_at_its_offset(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    topic = unique_topic("compacted")
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1, config={"cleanup.policy": "compact", "segment.bytes": "4096"})])[topic].result(10)

    # lz4 batches of several records each (linger), every key updated ROUNDS times.
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "compression.type": "lz4", "acks": "all"})
    given: dict[str, int] = {}
    last: dict[str, bytes] = {}
    errors: list[KafkaError] = []

    def delivered(error, message) -> None:
        if error is not None:
            errors.append(error)
        else:
            given[message.key().decode()] = message.offset()

    for round in range(ROUNDS):
        for key in KEYS:
            last[key] = _value(key, round)
            producer.produce(topic, key=key, value=last[key], partition=0, on_delivery=delivered)
        producer.poll(0)
    assert producer.flush(20) == 0 and errors == []
    # Records with keys of their own after the updates, enough to close the segment holding the
    # last updates: the cleaner never touches the active segment. Each goes in a batch of its
    # own, so that they fill more than a segment whatever the batching (60 in one compressed
    # batch could all fit beside the last updates).
    fillers = [f"filler-{n}" for n in range(60)]
    for key in fillers:
        producer.produce(topic, key=key, value=_value(key, 0), partition=0, on_delivery=delivered)
        assert producer.flush(20) == 0
    assert errors == []
    total = ROUNDS * len(KEYS) + len(fillers)
    assert _watermarks(bootstrap, topic) == (0, total)

    records = wait_until(lambda: _compacted(bootstrap, topic, len(KEYS) + len(fillers)), 30, "the cleaner to compact the topic")
    offsets = [offset for offset, _, _ in records]
    assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)
    latest = _latest(records)
    for key in KEYS:
        assert latest[key] == (given[key], last[key])
    assert all(latest[key][0] == given[key] for key in fillers)
    # Compaction removes records, never offsets: the watermarks stay.
    assert _watermarks(bootstrap, topic) == (0, total)

    # A record without a key is refused, and nothing is appended.
    reports: list[KafkaError | None] = []
    keyless = Producer({"bootstrap.servers": bootstrap, "message.timeout.ms": 10000, "retries": 0})
    keyless.produce(topic, value=b"no key", partition=0, on_delivery=lambda error, _m: reports.append(error))
    keyless.flush(20)
    assert len(reports) == 1 and reports[0] is not None and reports[0].code() == KafkaError.INVALID_RECORD, reports
    assert _watermarks(bootstrap, topic) == (0, total)


def test_a_topic_altered_to_compact_is_cleaned_and_refuses_keyless_records(server: SluiceServer) -> None:
    from kafka import KafkaAdminClient, KafkaProducer
    from kafka.admin import ConfigResource as PythonResource
    from kafka.admin import ConfigResourceType
    from kafka.errors import InvalidRecordError

    bootstrap = server.kafka_bootstrap
    topic = unique_topic("altered")
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(10)

    # kafka-python's producer is idempotent: its batches carry a producer id and sequences.
    producer = KafkaProducer(bootstrap_servers=bootstrap, compression_type="gzip", linger_ms=5)
    try:
        # Keyless records written while the topic still deletes: the cleaner drops them later,
        # as Kafka's does.
        for n in range(5):
            producer.send(topic, value=b"keyless %d" % n, partition=0)
        producer.flush(20)

        client = KafkaAdminClient(bootstrap_servers=bootstrap)
        try:
            client.alter_configs([PythonResource(ConfigResourceType.TOPIC, topic, configs={
                "cleanup.policy": "compact", "segment.bytes": "4096"})])
        finally:
            client.close()
        resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
        described = admin.describe_configs([resource])[resource].result(10)
        assert described["cleanup.policy"].value == "compact"

        futures = {}
        last: dict[str, bytes | None] = {}
        for round in range(ROUNDS):
            for key in KEYS:
                # key-0's last update is a tombstone: it stays (delete.retention.ms is a day).
                last[key] = None if key == "key-0" and round == ROUNDS - 1 else _value(key, round)
                futures[key] = producer.send(topic, key=key.encode(), value=last[key], partition=0)
        producer.flush(20)
        given = {key: future.get(10).offset for key, future in futures.items()}
        fillers = [f"filler-{n}" for n in range(60)]
        # One batch each, to fill more than a segment whatever the batching.
        for key in fillers:
            producer.send(topic, key=key.encode(), value=_value(key, 0), partition=0)
            producer.flush(20)

        # A keyless record now fails with INVALID_RECORD.
        with pytest.raises(InvalidRecordError):
            producer.send(topic, value=b"no key", partition=0).get(10)
    finally:
        producer.close(5)
    total = 5 + ROUNDS * len(KEYS) + len(fillers)
    assert _watermarks(bootstrap, topic) == (0, total)

    records = wait_until(lambda: _compacted(bootstrap, topic, len(KEYS) + len(fillers)), 30, "the cleaner to compact the topic")
    latest = _latest(records)
    assert None not in latest
    assert latest["key-0"] == (given["key-0"], None)
    for key in KEYS:
        assert latest[key] == (given[key], last[key])
    assert _watermarks(bootstrap, topic) == (0, total)

    # kafka-python's consumer reads the cleaned log to its end too (across the gaps).
    read = read_topic(bootstrap, topic)[0]
    assert [(r.offset, r.key.decode(), r.value) for r in read] == [(offset, key, value) for offset, key, value in records]
