"""Kafka transactions on the built-in broker, driven by confluent-kafka (librdkafka) as an
exactly-once producer would drive them: committed records are seen once by `read_committed`
consumers, aborted ones never; an open transaction holds such consumers at its first record
(the last stable offset); a second producer with the same transactional id fences the first and
aborts what it left open; offsets sent with a transaction reach the group only if it commits;
a producer that goes away is aborted after its timeout; and all of it holds across a restart
of the broker, SIGKILL included."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from kafka_support import unique_topic

from harness import SluiceServer
from source_support import wait_until


@pytest.fixture(scope="module")
def server():
    with SluiceServer() as server:
        yield server


def _producer(bootstrap: str, transactional_id: str, **settings) -> Producer:
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id, "linger.ms": 5, **settings})
    producer.init_transactions(20)
    return producer


def _read(bootstrap: str, topic: str, partitions: int, isolation: str, expected: int | None = None, idle: float = 1.0) -> list[tuple[int, int, bytes]]:
    """Every record of `topic` a consumer with `isolation` gets: (partition, offset, value),
    reading until `expected` records came (then `idle` more seconds, to catch extras) or, without
    `expected`, until nothing came for `idle` seconds."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"reader-{time.monotonic_ns()}", "isolation.level": isolation,
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    records: list[tuple[int, int, bytes]] = []
    deadline = time.monotonic() + 30
    quiet_since = time.monotonic()
    try:
        while time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is None:
                enough = expected is None or len(records) >= expected
                if enough and time.monotonic() - quiet_since >= idle:
                    break
                continue
            if message.error():
                if message.error().code() == KafkaError._PARTITION_EOF:
                    continue
                raise KafkaException(message.error())
            records.append((message.partition(), message.offset(), message.value()))
            quiet_since = time.monotonic()
    finally:
        consumer.close()
    return sorted(records)


def _values(records: list[tuple[int, int, bytes]]) -> list[bytes]:
    return sorted(value for _, _, value in records)


def _create(bootstrap: str, topic: str, partitions: int) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(20)


def test_committed_records_are_read_once_and_aborted_ones_never(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    topic = unique_topic("txn-basic")
    _create(bootstrap, topic, 2)
    producer = _producer(bootstrap, f"basic-{topic}")
    producer.begin_transaction()
    for n in range(10):
        producer.produce(topic, value=b"committed-%d" % n, partition=n % 2)
    producer.commit_transaction(20)
    producer.begin_transaction()
    for n in range(5):
        producer.produce(topic, value=b"aborted-%d" % n, partition=n % 2)
    producer.flush(20)
    producer.abort_transaction(20)
    producer.begin_transaction()
    producer.produce(topic, value=b"after", partition=0)
    producer.commit_transaction(20)

    committed = _read(bootstrap, topic, 2, "read_committed", expected=11)
    assert _values(committed) == sorted([b"committed-%d" % n for n in range(10)] + [b"after"])
    # read_uncommitted sees the aborted records too (and neither sees the markers).
    everything = _read(bootstrap, topic, 2, "read_uncommitted", expected=16)
    assert _values(everything) == sorted([b"committed-%d" % n for n in range(10)] + [b"aborted-%d" % n for n in range(5)] + [b"after"])
    # Each transaction ended with a marker in each partition it wrote: offsets skip them.
    offsets0 = [offset for partition, offset, _ in everything if partition == 0]
    assert offsets0 == sorted(offsets0) and offsets0[-1] > len(offsets0) - 1


def test_an_open_transaction_holds_read_committed_consumers_at_its_first_record(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    topic = unique_topic("txn-open")
    _create(bootstrap, topic, 1)
    plain = Producer({"bootstrap.servers": bootstrap})
    plain.produce(topic, value=b"before", partition=0)
    assert plain.flush(20) == 0
    producer = _producer(bootstrap, f"open-{topic}")
    producer.begin_transaction()
    producer.produce(topic, value=b"pending", partition=0)
    producer.flush(20)
    # A record produced outside the transaction after it began waits behind it too.
    plain.produce(topic, value=b"behind", partition=0)
    assert plain.flush(20) == 0

    assert _values(_read(bootstrap, topic, 1, "read_committed", expected=1)) == [b"before"]
    assert _values(_read(bootstrap, topic, 1, "read_uncommitted", expected=3)) == [b"before", b"behind", b"pending"]
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "lso", "isolation.level": "read_committed"})
    low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    consumer.close()
    assert (low, high) == (0, 1), "read_committed's high watermark is the last stable offset"

    producer.commit_transaction(20)
    assert _values(_read(bootstrap, topic, 1, "read_committed", expected=3)) == [b"before", b"behind", b"pending"]


def test_a_new_producer_with_the_same_id_fences_the_old_one_and_aborts_its_transaction(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    topic = unique_topic("txn-fence")
    _create(bootstrap, topic, 1)
    transactional_id = f"fence-{topic}"
    old = _producer(bootstrap, transactional_id)
    old.begin_transaction()
    old.produce(topic, value=b"zombie", partition=0)
    old.flush(20)

    new = _producer(bootstrap, transactional_id)
    with pytest.raises(KafkaException) as raised:
        old.commit_transaction(20)
    assert raised.value.args[0].fatal() or raised.value.args[0].code() in (KafkaError._FENCED, KafkaError.PRODUCER_FENCED,
                                                                        KafkaError.INVALID_PRODUCER_EPOCH)
    new.begin_transaction()
    new.produce(topic, value=b"successor", partition=0)
    new.commit_transaction(20)
    assert _values(_read(bootstrap, topic, 1, "read_committed", expected=1)) == [b"successor"]


def test_offsets_sent_with_a_transaction_reach_the_group_only_when_it_commits(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    source = unique_topic("txn-in")
    sink = unique_topic("txn-out")
    _create(bootstrap, source, 1)
    _create(bootstrap, sink, 1)
    plain = Producer({"bootstrap.servers": bootstrap})
    for n in range(6):
        plain.produce(source, value=b"%d" % n, partition=0)
    assert plain.flush(20) == 0

    group = f"copier-{source}"
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                         "auto.offset.reset": "earliest", "isolation.level": "read_committed"})
    consumer.assign([TopicPartition(source, 0, 0)])
    producer = _producer(bootstrap, f"copier-{source}")

    def copy(count: int, commit: bool) -> None:
        producer.begin_transaction()
        copied = 0
        while copied < count:
            message = consumer.poll(5)
            assert message is not None and not message.error(), message and message.error()
            producer.produce(sink, value=message.value() * 2, partition=0)
            copied += 1
        producer.send_offsets_to_transaction([TopicPartition(source, 0, message.offset() + 1)], consumer.consumer_group_metadata(), 20)
        if commit:
            producer.commit_transaction(20)
        else:
            producer.abort_transaction(20)

    copy(3, commit=True)
    assert consumer.committed([TopicPartition(source, 0)], timeout=10)[0].offset == 3
    copy(3, commit=False)
    assert consumer.committed([TopicPartition(source, 0)], timeout=10)[0].offset == 3, "an aborted transaction's offsets are not applied"
    consumer.close()
    assert _values(_read(bootstrap, sink, 1, "read_committed", expected=3)) == [b"00", b"11", b"22"]


def test_a_producer_that_goes_away_is_aborted_after_its_timeout(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    topic = unique_topic("txn-timeout")
    _create(bootstrap, topic, 1)
    stalled = _producer(bootstrap, f"stalled-{topic}", **{"transaction.timeout.ms": 1500})
    stalled.begin_transaction()
    stalled.produce(topic, value=b"abandoned", partition=0)
    stalled.flush(20)
    other = _producer(bootstrap, f"other-{topic}")
    other.begin_transaction()
    other.produce(topic, value=b"later", partition=0)
    other.commit_transaction(20)
    # Held behind the abandoned transaction until the broker aborts it.
    assert _read(bootstrap, topic, 1, "read_committed", idle=0.3) == []
    wait_until(lambda: _values(_read(bootstrap, topic, 1, "read_committed", idle=0.3)) == [b"later"], 20,
               "the abandoned transaction to be aborted")
    with pytest.raises(KafkaException):
        stalled.commit_transaction(10)


@pytest.mark.parametrize("how", ["stop", "kill"])
def test_transactions_survive_a_restart(tmp_path: Path, how: str) -> None:
    """After a restart the broker still knows the aborted transactions (from the markers in the
    logs), still holds an open one (from its internal transaction log) until the producer's
    successor aborts it, and keeps the producer's id."""
    topic = "txn-restart"
    with SluiceServer(data_dir=tmp_path / "data") as server:
        bootstrap = server.kafka_bootstrap
        _create(bootstrap, topic, 1)
        producer = _producer(bootstrap, "restarting")
        producer.begin_transaction()
        producer.produce(topic, value=b"aborted", partition=0)
        producer.flush(20)
        producer.abort_transaction(20)
        producer.begin_transaction()
        producer.produce(topic, value=b"committed", partition=0)
        producer.commit_transaction(20)
        producer.begin_transaction()
        producer.produce(topic, value=b"left-open", partition=0)
        producer.flush(20)
        if how == "kill":
            server.kill()
        else:
            server.stop()
    with SluiceServer(data_dir=tmp_path / "data") as server:
        bootstrap = server.kafka_bootstrap
        assert _values(_read(bootstrap, topic, 1, "read_committed", expected=1)) == [b"committed"]
        assert _values(_read(bootstrap, topic, 1, "read_uncommitted", expected=3)) == [b"aborted", b"committed", b"left-open"]
        successor = _producer(bootstrap, "restarting")
        successor.begin_transaction()
        successor.produce(topic, value=b"successor", partition=0)
        successor.commit_transaction(20)
        assert _values(_read(bootstrap, topic, 1, "read_committed", expected=2)) == [b"committed", b"successor"]
