"""Real Kafka clients against Sluice's built-in broker: kcat (librdkafka), kafka-python and
confluent-kafka produce, consume, manage topics, look up offsets and get Kafka's error codes.
No consumer groups (the broker has no group coordinator yet): consumers use `assign()`."""

from __future__ import annotations

import json
import random
import time
from collections import defaultdict

import kafka.errors
import pytest
from confluent_kafka import KafkaError, Producer
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import InvalidReplicationFactorError, InvalidTopicError, OffsetOutOfRangeError, TopicAlreadyExistsError
from kafka.partitioner import murmur2
from kafka_support import kcat, read_topic, sluice_tool, unique_topic
from kafka_wire import (API_FIND_COORDINATOR, KafkaWireClient, api_versions_v0, decode_api_versions_v0, decode_fetch_v4, fetch_v4,
                        record_batch_headers)

from harness import SluiceServer


@pytest.fixture(scope="module")
def bootstrap(kafka_server: SluiceServer) -> str:
    return kafka_server.kafka_bootstrap


@pytest.fixture(scope="module")
def admin(bootstrap: str):
    client = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    yield client
    client.close()


def _create(admin: KafkaAdminClient, topic: str, partitions: int) -> None:
    result = admin.create_topics({topic: {"num_partitions": partitions, "replication_factor": 1}})
    assert [(t["name"], t["error_code"], t["num_partitions"]) for t in result["topics"]] == [(topic, 0, partitions)]


# -- kcat ---------------------------------------------------------------------------------------

def test_kcat_produces_ndjson_and_reads_it_back_in_order(bootstrap: str, kafka_server: SluiceServer) -> None:
    topic = unique_topic("kcat")
    lines = [json.dumps({"n": n, "text": f"line {n}", "even": n % 2 == 0}) for n in range(200)]
    kcat(bootstrap, "-P", "-t", topic, input=("\n".join(lines) + "\n").encode())
    out = kcat(bootstrap, "-C", "-e", "-q", "-o", "beginning", "-t", topic, "-f", "%o %s\n")
    assert out.splitlines() == [f"{offset} {line}" for offset, line in enumerate(lines)]


def test_kcat_lists_topic_with_its_partitions_and_broker(bootstrap: str, admin: KafkaAdminClient) -> None:
    topic = unique_topic("kcat-list")
    _create(admin, topic, 4)
    metadata = json.loads(kcat(bootstrap, "-L", "-J", "-t", topic))
    host, port = bootstrap.rsplit(":", 1)
    assert [(b["id"], b["name"]) for b in metadata["brokers"]] == [(1, f"{host}:{port}")]
    [listed] = metadata["topics"]
    assert listed["topic"] == topic
    assert [(p["partition"], p["leader"], [r["id"] for r in p["replicas"]], [r["id"] for r in p["isrs"]]) for p in listed["partitions"]] == [
        (index, 1, [1], [1]) for index in range(4)]
    # The plain listing names the same: what a person reading `kcat -L` sees.
    text = kcat(bootstrap, "-L", "-t", topic)
    assert f'topic "{topic}" with 4 partitions:' in text
    assert f"broker 1 at {host}:{port}" in text


# -- kafka-python -------------------------------------------------------------------------------

def test_admin_creates_lists_and_deletes_topics(bootstrap: str, admin: KafkaAdminClient) -> None:
    topic = unique_topic("admin")
    _create(admin, topic, 3)
    with pytest.raises(TopicAlreadyExistsError):
        admin.create_topics({topic: {"num_partitions": 3, "replication_factor": 1}})
    replicated = unique_topic("admin-rf3")
    with pytest.raises(InvalidReplicationFactorError):
        admin.create_topics({replicated: {"num_partitions": 1, "replication_factor": 3}})
    topics = admin.list_topics()
    assert topic in topics and replicated not in topics
    [described] = admin.describe_topics([topic])
    assert described["error_code"] == 0
    assert sorted((p["partition_index"], p["leader_id"]) for p in described["partitions"]) == [(0, 1), (1, 1), (2, 1)]

    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    for n in range(5):
        producer.send(topic, value=b"old %d" % n, partition=n % 3).get(timeout=10)
    producer.close()
    result = admin.delete_topics([topic])
    assert [(t["name"], t["error_code"]) for t in result["topics"]] == [(topic, 0)]
    assert topic not in admin.list_topics()

    # The name is free again, and the new topic starts empty.
    _create(admin, topic, 2)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False)
    try:
        partitions = [TopicPartition(topic, 0), TopicPartition(topic, 1)]
        assert consumer.beginning_offsets(partitions) == {tp: 0 for tp in partitions}
        assert consumer.end_offsets(partitions) == {tp: 0 for tp in partitions}
    finally:
        consumer.close()


def test_keyed_messages_are_read_once_in_order_from_the_partitioners_partition(bootstrap: str, admin: KafkaAdminClient) -> None:
    topic = unique_topic("keyed")
    _create(admin, topic, 3)
    rng = random.Random(3000)
    sent = [(f"user-{rng.randrange(120)}".encode(), f"{n}:{rng.random()}".encode()) for n in range(3000)]
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    futures = [producer.send(topic, key=key, value=value) for key, value in sent]
    producer.flush(timeout=30)
    acked = [future.get(timeout=10) for future in futures]
    producer.close()

    # kafka-python's DefaultPartitioner: murmur2 of the key bytes, positive, modulo the partitions.
    for (key, _), metadata in zip(sent, acked):
        assert metadata.partition == (murmur2(key) & 0x7FFFFFFF) % 3, key
    partitions_of_key = defaultdict(set)
    for (key, _), metadata in zip(sent, acked):
        partitions_of_key[key].add(metadata.partition)
    assert all(len(partitions) == 1 for partitions in partitions_of_key.values())
    assert len({p for ps in partitions_of_key.values() for p in ps}) == 3, "120 keys should use all three partitions"

    records = read_topic(bootstrap, topic)
    expected: dict[int, list] = {0: [], 1: [], 2: []}
    for (key, value), metadata in zip(sent, acked):
        expected[metadata.partition].append((metadata.offset, key, value))
    for partition in range(3):
        got = [(r.offset, r.key, r.value) for r in records[partition]]
        # Exactly once, in send order, at the offsets the acknowledgements named: 0, 1, 2, ...
        assert got == expected[partition], f"partition {partition}"
        assert [offset for offset, _, _ in got] == list(range(len(got)))
    assert sum(len(r) for r in records.values()) == 3000


_BASE_TIME = 1_700_000_000_000


def _timestamped_topic(bootstrap: str, admin: KafkaAdminClient) -> str:
    """A two-partition topic: partition 0 holds 100 records 10 ms apart from `_BASE_TIME`, in three
    batches (offsets 0-30, 31-77, 78-99); partition 1 is empty."""
    topic = unique_topic("offsets")
    _create(admin, topic, 2)
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=1000, batch_size=1 << 20)
    for n in range(100):
        producer.send(topic, value=b"%d" % n, partition=0, timestamp_ms=_BASE_TIME + 10 * n)
        if n in (30, 77):
            producer.flush()
    producer.flush()
    producer.close()
    return topic


def _lookup(consumer: KafkaConsumer, partition: TopicPartition, timestamp: int) -> tuple[int, int] | None:
    found = consumer.offsets_for_times({partition: timestamp})[partition]
    return None if found is None else (found.offset, found.timestamp)


def test_list_offsets_earliest_latest_and_for_times(bootstrap: str, admin: KafkaAdminClient) -> None:
    topic = _timestamped_topic(bootstrap, admin)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False)
    try:
        p0, p1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
        assert consumer.beginning_offsets([p0, p1]) == {p0: 0, p1: 0}
        assert consumer.end_offsets([p0, p1]) == {p0: 100, p1: 0}
        # Targets at the first record of each batch find that record's offset.
        assert [_lookup(consumer, p0, _BASE_TIME + t)[0] for t in (-1, 0, 310, 780)] == [0, 0, 31, 78]
        # Nothing at or after a time past the last record, nor in an empty partition.
        assert _lookup(consumer, p0, _BASE_TIME + 991) is None
        assert _lookup(consumer, p1, _BASE_TIME) is None
    finally:
        consumer.close()


def test_offsets_for_times_finds_the_record_inside_a_batch(bootstrap: str, admin: KafkaAdminClient) -> None:
    topic = _timestamped_topic(bootstrap, admin)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False)
    try:
        p0 = TopicPartition(topic, 0)
        # Kafka (ListOffsets, KIP-79): the earliest offset whose timestamp is at or after the
        # target, with that record's own timestamp, also in the middle of a batch.
        assert _lookup(consumer, p0, _BASE_TIME - 1) == (0, _BASE_TIME)
        assert _lookup(consumer, p0, _BASE_TIME + 5) == (1, _BASE_TIME + 10)
        assert _lookup(consumer, p0, _BASE_TIME + 420) == (42, _BASE_TIME + 420)
        assert _lookup(consumer, p0, _BASE_TIME + 421) == (43, _BASE_TIME + 430)
        assert _lookup(consumer, p0, _BASE_TIME + 305) == (31, _BASE_TIME + 310)
        assert _lookup(consumer, p0, _BASE_TIME + 990) == (99, _BASE_TIME + 990)
    finally:
        consumer.close()


# -- confluent-kafka ----------------------------------------------------------------------------

def _codec_librdkafka_sends(codec: str, host: str, port: int) -> str:
    """librdkafka enables lz4 only for brokers that advertise FindCoordinator v0 (its feature map
    dates LZ4 support by that API: src/rdkafka_feature.c, RD_KAFKA_FEATURE_LZ4); otherwise it
    logs "Broker does not support compression type lz4: not compressing batch" and sends the batch
    uncompressed. Sluice advertises FindCoordinator once its group coordinator serves it."""
    if codec != "lz4":
        return codec
    with KafkaWireClient(host, port) as client:
        ranges = decode_api_versions_v0(client.call(api_versions_v0(1), 1)).ranges
    low, _high = ranges.get(API_FIND_COORDINATOR, (1, 0))
    return "lz4" if low == 0 else "none"


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_idempotent_producer_with_each_compression(bootstrap: str, codec: str) -> None:
    topic = unique_topic(f"ck-{codec}")
    rng = random.Random(codec)
    values = [json.dumps({"n": n, "codec": codec, "pad": "x" * rng.randrange(200), "r": rng.random()}) for n in range(1000)]
    reports: list[tuple[KafkaError | None, int | None]] = []
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "compression.type": codec,
                         "linger.ms": 20, "message.timeout.ms": 30000})
    for n, value in enumerate(values):
        producer.produce(topic, value=value.encode(), key=b"k%d" % n, partition=0,
                         on_delivery=lambda error, message: reports.append((error, message.offset() if error is None else None)))
        producer.poll(0)
    assert producer.flush(30) == 0, "messages still undelivered after 30 s"
    assert [error for error, _ in reports if error is not None] == []
    assert sorted(offset for _, offset in reports) == list(range(len(values)))

    out = kcat(bootstrap, "-C", "-e", "-q", "-o", "beginning", "-t", topic, "-f", "%o %k %s\n")
    assert out.splitlines() == [f"{n} k{n} {value}" for n, value in enumerate(values)]
    # Sluice's own consumer decompresses librdkafka's batches (raw snappy, LZ4 and zstd frames
    # without content size) to exactly the values produced.
    assert sluice_tool(bootstrap, "consume", topic, "--exit-at-end").splitlines() == values

    # Stored as received: the batches keep the producer's codec and its idempotent producer id.
    host, port = bootstrap.rsplit(":", 1)
    headers = []
    with KafkaWireClient(host, int(port)) as client:
        offset, correlation = 0, 1
        while offset < len(values):
            fetched = decode_fetch_v4(client.call(fetch_v4(correlation, topic, 0, offset), correlation))[(topic, 0)]
            assert fetched.error_code == 0
            batch = record_batch_headers(fetched.records)
            assert batch, f"no whole batch at offset {offset}"
            headers += batch
            offset = batch[-1].base_offset + batch[-1].record_count
            correlation += 1
    assert {h.compression for h in headers} == {_codec_librdkafka_sends(codec, host, int(port))}
    assert len({h.producer_id for h in headers}) == 1 and headers[0].producer_id >= 0
    assert [h.base_sequence for h in headers] == [h.base_offset for h in headers]  # one producer from sequence 0


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_sluice_produce_compresses_and_librdkafka_reads_it(bootstrap: str, codec: str) -> None:
    """`sluice produce --compression` writes batches in each codec's Kafka framing (xerial snappy,
    as the Java client does); librdkafka (kcat) and `sluice consume` read them back."""
    topic = unique_topic(f"sp-{codec}")
    rng = random.Random(f"produce-{codec}")
    values = [json.dumps({"n": n, "pad": "y" * rng.randrange(300)}) for n in range(700)]
    sluice_tool(bootstrap, "produce", topic, "--compression", codec, "--batch", "250",
                input="".join(value + "\n" for value in values).encode())

    assert kcat(bootstrap, "-C", "-e", "-q", "-o", "beginning", "-t", topic, "-f", "%s\n").splitlines() == values
    assert sluice_tool(bootstrap, "consume", topic, "--exit-at-end").splitlines() == values

    host, port = bootstrap.rsplit(":", 1)
    with KafkaWireClient(host, int(port)) as client:
        fetched = decode_fetch_v4(client.call(fetch_v4(1, topic, 0, 0, max_bytes=8 << 20), 1))[(topic, 0)]
    headers = record_batch_headers(fetched.records)
    assert [h.record_count for h in headers] == [250, 250, 200]
    assert {h.compression for h in headers} == {codec}


# -- errors on the wire -------------------------------------------------------------------------

def test_invalid_topic_name_is_refused(bootstrap: str, admin: KafkaAdminClient) -> None:
    reports: list[KafkaError | None] = []
    producer = Producer({"bootstrap.servers": bootstrap, "message.timeout.ms": 10000})
    producer.produce("bad topic!", value=b"x", on_delivery=lambda error, _message: reports.append(error))
    assert producer.flush(20) == 0
    [error] = reports
    assert error is not None and error.code() == KafkaError.TOPIC_EXCEPTION, error
    assert kafka.errors.for_code(error.code()) is InvalidTopicError  # Kafka's INVALID_TOPIC_EXCEPTION, 17

    # kafka-python checks names itself before producing; the admin API sends them as they are.
    with pytest.raises(InvalidTopicError):
        admin.create_topics({"bad topic!": {"num_partitions": 1, "replication_factor": 1}})
    [described] = admin.describe_topics(["bad topic!"])
    assert described["error_code"] == InvalidTopicError.errno
    assert "bad topic!" not in admin.list_topics()


def test_fetch_past_the_end_is_offset_out_of_range(bootstrap: str, admin: KafkaAdminClient) -> None:
    topic = unique_topic("range")
    _create(admin, topic, 1)
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    for n in range(10):
        producer.send(topic, value=b"%d" % n).get(timeout=10)
    producer.close()
    partition = TopicPartition(topic, 0)

    strict = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, auto_offset_reset="none", enable_auto_commit=False)
    try:
        strict.assign([partition])
        strict.seek(partition, 25)
        deadline = time.monotonic() + 15
        with pytest.raises(OffsetOutOfRangeError) as raised:
            while time.monotonic() < deadline:
                assert strict.poll(timeout_ms=500) == {}, "records returned for an offset past the end"
        assert partition in raised.value.args[0]
    finally:
        strict.close()

    # With a reset policy the client handles the same error by starting over from the beginning.
    resetting = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, auto_offset_reset="earliest", enable_auto_commit=False)
    try:
        resetting.assign([partition])
        resetting.seek(partition, 25)
        got = []
        deadline = time.monotonic() + 15
        while len(got) < 10 and time.monotonic() < deadline:
            got += [r.value for r in resetting.poll(timeout_ms=500).get(partition, [])]
        assert got == [b"%d" % n for n in range(10)]
    finally:
        resetting.close()
