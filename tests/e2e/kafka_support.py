"""Helpers for the Kafka client tests: kcat runs, unique topic names, reading a topic to its end
with kafka-python (without a consumer group, so reads do not depend on the coordinator)."""

from __future__ import annotations

import itertools
import os
import subprocess
import time

from kafka import KafkaConsumer, TopicPartition

from harness import sluice_binary

_names = itertools.count(1)


def unique_topic(prefix: str) -> str:
    """A topic name no other test of this run uses (tests of a module share one broker)."""
    return f"{prefix}-{os.getpid()}-{next(_names)}"


def kcat(bootstrap: str, *args: str, input: bytes | None = None, timeout: float = 60) -> str:
    """Runs `kcat -b BOOTSTRAP ARGS...` and returns its stdout; fails the test on a non-zero exit
    (showing kcat's stderr) or after `timeout` seconds."""
    result = subprocess.run(["kcat", "-b", bootstrap, *args], input=input, capture_output=True, timeout=timeout)
    assert result.returncode == 0, f"kcat {' '.join(args)} exited with {result.returncode}: {result.stderr.decode(errors='replace')}"
    return result.stdout.decode()


def sluice_tool(bootstrap: str, *args: str, input: bytes | None = None, timeout: float = 60) -> str:
    """Runs the binary under test's Kafka tool, `sluice ARGS... --bootstrap BOOTSTRAP` (`produce`,
    `consume`, `topic ...`), and returns its stdout; fails the test on a non-zero exit."""
    command = [str(sluice_binary()), *args, "--bootstrap", bootstrap]
    result = subprocess.run(command, input=input, capture_output=True, timeout=timeout)
    assert result.returncode == 0, f"sluice {' '.join(args)} exited with {result.returncode}: {result.stderr.decode(errors='replace')}"
    return result.stdout.decode()


def read_topic(bootstrap: str, topic: str, timeout: float = 30) -> dict[int, list]:
    """Every record of every partition of `topic`, from the log start to the end offsets the
    broker reports when reading starts: partition → the ConsumerRecords in the order fetched."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, auto_offset_reset="earliest",
                             enable_auto_commit=False, request_timeout_ms=10000)
    try:
        partitions = consumer.partitions_for_topic(topic)
        assert partitions, f"no partitions for topic {topic!r}"
        assigned = [TopicPartition(topic, partition) for partition in sorted(partitions)]
        consumer.assign(assigned)
        consumer.seek_to_beginning()
        ends = consumer.end_offsets(assigned)
        records: dict[int, list] = {tp.partition: [] for tp in assigned}
        deadline = time.monotonic() + timeout
        while any(consumer.position(tp) < ends[tp] for tp in assigned):
            assert time.monotonic() < deadline, (
                f"read of {topic!r} stuck at {{{', '.join(f'{tp.partition}: {consumer.position(tp)}' for tp in assigned)}}}, "
                f"end offsets {{{', '.join(f'{tp.partition}: {ends[tp]}' for tp in assigned)}}}")
            for tp, batch in consumer.poll(timeout_ms=500).items():
                records[tp.partition].extend(batch)
        return records
    finally:
        consumer.close()


def produce_acknowledged(bootstrap: str, topic: str, values: dict[int, bytes], partitions: int = 2, keys: dict[int, bytes] | None = None) -> set[int]:
    """Sends each numbered value (number `i` to partition `i % partitions`, with `keys[i]` as its
    key when given) with acks=all and no
    retries; returns the numbers the broker acknowledged (all of them unless the server died
    while they were in flight): the oracle of the exactly-once tests that kill the server."""
    from kafka import KafkaProducer

    futures = {}
    producer = None
    try:
        producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5, retries=0, request_timeout_ms=5000, max_block_ms=5000)
        for i, value in values.items():
            futures[i] = producer.send(topic, key=(keys or {}).get(i), value=value, partition=i % partitions)
        producer.flush(timeout=30)
    except Exception:  # noqa: BLE001 - the server may die mid-produce; the futures say what was acknowledged
        pass
    if producer is not None:
        producer.close(timeout=5)
    return {i for i, future in futures.items() if future.is_done and future.succeeded()}
