"""Consumer groups against the built-in broker with real clients: a kafka-python group of three
members that rebalances as members join and leave, confluent-kafka's group consumer committing,
and committed offsets surviving a restart of the broker."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path

import confluent_kafka
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, OffsetAndMetadata, TopicPartition
from kafka.errors import CommitFailedError
from kafka_support import unique_topic

from harness import SluiceServer


def _produce(bootstrap: str, topic: str, count: int) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    for n in range(count):
        producer.send(topic, key=str(n).encode(), value=str(n).encode())
    producer.flush(timeout=60)
    producer.close()


def _create(bootstrap: str, topic: str, partitions: int) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    admin.create_topics({topic: {"num_partitions": partitions, "replication_factor": 1}})
    admin.close()


def test_a_group_of_three_reads_everything_across_rebalances(kafka_server: SluiceServer) -> None:
    bootstrap = kafka_server.kafka_bootstrap
    topic = unique_topic("group")
    _create(bootstrap, topic, 6)
    _produce(bootstrap, topic, 3000)
    seen: Counter[bytes] = Counter()
    owners: dict[str, set[int]] = {}
    lock = threading.Lock()
    done = threading.Event()

    def member(name: str, leave_after: int | None) -> None:
        consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id="three", client_id=name,
                                 auto_offset_reset="earliest", enable_auto_commit=False, max_poll_records=50,
                                 session_timeout_ms=6000, heartbeat_interval_ms=500)
        read = 0
        deadline = time.monotonic() + 60
        try:
            while not done.is_set() and time.monotonic() < deadline:
                batches = consumer.poll(timeout_ms=200)
                for partition, records in batches.items():
                    with lock:
                        owners.setdefault(name, set()).add(partition.partition)
                        for record in records:
                            seen[record.value] += 1
                    read += len(records)
                if batches:
                    try:
                        consumer.commit()
                    except CommitFailedError:
                        # A rebalance began: Kafka refuses the commit, the partitions move on,
                        # and their uncommitted records are read again by the next owner.
                        pass
                if leave_after is not None and read >= leave_after:
                    break
        finally:
            consumer.close()

    first = threading.Thread(target=member, args=("first", None))
    first.start()
    # The others join once the first has started reading: the group rebalances twice; the
    # third leaves early, and the group rebalances again.
    deadline = time.monotonic() + 30
    while not seen and time.monotonic() < deadline:
        time.sleep(0.05)
    others = [threading.Thread(target=member, args=("second", None)), threading.Thread(target=member, args=("third", 300))]
    for thread in others:
        thread.start()
    deadline = time.monotonic() + 60
    while len(seen) < 3000 and time.monotonic() < deadline:
        time.sleep(0.05)
    done.set()
    for thread in [first, *others]:
        thread.join(timeout=30)
    assert len(seen) == 3000, f"only {len(seen)} distinct messages read"
    # Work was shared: more than one member owned partitions at some point.
    assert len([name for name, partitions in owners.items() if partitions]) >= 2
    # Every partition's committed offset reached its end.
    checker = KafkaConsumer(bootstrap_servers=bootstrap, group_id="three", enable_auto_commit=False)
    partitions = [TopicPartition(topic, p) for p in range(6)]
    ends = checker.end_offsets(partitions)
    assert {p.partition: checker.committed(p) for p in partitions} == {p.partition: ends[p] for p in partitions}
    checker.close()


def test_confluent_group_consumer_commits_and_the_group_is_described(kafka_server: SluiceServer) -> None:
    bootstrap = kafka_server.kafka_bootstrap
    topic = unique_topic("ck-group")
    _create(bootstrap, topic, 3)
    _produce(bootstrap, topic, 600)
    consumer = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": "ck", "auto.offset.reset": "earliest",
                                         "enable.auto.commit": False})
    consumer.subscribe([topic])
    values = []
    deadline = time.monotonic() + 30
    while len(values) < 600 and time.monotonic() < deadline:
        message = consumer.poll(0.2)
        if message is not None and message.error() is None:
            values.append(message.value())
    assert sorted(values, key=int) == [str(n).encode() for n in range(600)]
    consumer.commit(asynchronous=False)
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    described = admin.describe_groups(["ck"])["ck"]
    assert described["group_state"] == "Stable" and len(described["members"]) == 1
    consumer.close()
    committed = admin.list_group_offsets("ck")["ck"]
    assert sum(meta.offset for meta in committed.values()) == 600
    admin.close()


def test_committed_offsets_survive_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "data"
    topic = "kept-offsets"
    with SluiceServer(data_dir=data) as server:
        _create(server.kafka_bootstrap, topic, 1)
        _produce(server.kafka_bootstrap, topic, 100)
        consumer = KafkaConsumer(topic, bootstrap_servers=server.kafka_bootstrap, group_id="keeper", auto_offset_reset="earliest",
                                 enable_auto_commit=False, max_poll_records=10)
        read = 0
        deadline = time.monotonic() + 30
        while read < 40 and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=200, max_records=10).values():
                read += len(records)
        consumer.commit({TopicPartition(topic, 0): OffsetAndMetadata(40, "", -1)})
        consumer.close()
    with SluiceServer(data_dir=data) as server:
        consumer = KafkaConsumer(topic, bootstrap_servers=server.kafka_bootstrap, group_id="keeper", auto_offset_reset="earliest",
                                 enable_auto_commit=False, consumer_timeout_ms=3000)
        offsets = [record.offset for record in consumer]
        consumer.close()
        assert offsets == list(range(40, 100))
