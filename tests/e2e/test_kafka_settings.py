"""The broker's settings as a user gives them on the command line (`sluice serve` and
`sluice broker` take Kafka's property names as options): partitions of auto-created topics,
auto-creation turned off, retention by size and by time applied by the broker's own timer, and
clear refusals of impossible values."""

from __future__ import annotations

import subprocess

import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource
from kafka_support import kcat, unique_topic

from harness import SluiceServer
from harness.sluice_server import sluice_binary
from source_support import wait_until


def _produce_one_batch_each(bootstrap: str, topic: str, values: list[bytes]) -> None:
    """Produces every value as its own batch (flushing after each), acks=all."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, "acks": "all"})
    errors: list[KafkaError] = []
    for value in values:
        producer.produce(topic, value=value, partition=0, on_delivery=lambda error, _m: error and errors.append(error))
        assert producer.flush(20) == 0
    assert errors == []


def _watermarks(bootstrap: str, topic: str) -> tuple[int, int]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "watermarks", "enable.auto.commit": False})
    try:
        return consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    finally:
        consumer.close()


def test_retention_by_size_deletes_the_oldest_closed_segments() -> None:
    with SluiceServer(extra_args=["--log-segment-bytes", "4096", "--log-retention-bytes", "8192",
                                  "--log-retention-check-interval-ms", "100"]) as server:
        bootstrap = server.kafka_bootstrap
        topic = unique_topic("retention-size")
        values = [b"%04d:" % n + b"v" * 500 for n in range(60)]  # about 30 KB: several 4 KB segments
        _produce_one_batch_each(bootstrap, topic, values)
        # Retention runs every 100 ms while the batches arrive: wait for it to catch up with the
        # last one, until the log holds no more than the limit plus the active segment (one more
        # segment's worth).
        def within_limit():
            low, high = _watermarks(bootstrap, topic)
            return (low, high) if low > 0 and high == len(values) and (high - low) * len(values[0]) <= 8192 + 2 * 4096 else None
        low, high = wait_until(within_limit, 20, "retention to bring the log within its limit")
        assert high == len(values)
        # What is left is the newest records, whole, in order, ending at the last one.
        out = kcat(bootstrap, "-C", "-e", "-q", "-o", "beginning", "-t", topic, "-f", "%o %s\n")
        lines = out.splitlines()
        # (Retention may have moved the start again since the watermarks were read.)
        first = int(lines[0].split()[0])
        assert first >= low
        assert lines == [f"{n} {values[n].decode()}" for n in range(first, high)]

        admin = AdminClient({"bootstrap.servers": bootstrap})
        broker_resource = ConfigResource(ConfigResource.Type.BROKER, "1")
        configs = admin.describe_configs([broker_resource])[broker_resource].result(timeout=10)
        assert configs["log.segment.bytes"].value == "4096"


def test_retention_by_time_deletes_closed_segments_past_the_age() -> None:
    with SluiceServer(extra_args=["--log-segment-bytes", "2048", "--log-retention-ms", "1000",
                                  "--log-retention-check-interval-ms", "100"]) as server:
        bootstrap = server.kafka_bootstrap
        topic = unique_topic("retention-time")
        values = [b"%04d:" % n + b"t" * 300 for n in range(20)]
        _produce_one_batch_each(bootstrap, topic, values)
        # Only closed segments go: once they are older than a second, the log starts inside the
        # last (active) segment, and the newest record is still there.
        low, high = wait_until(lambda: (lambda w: w if w[0] > 10 else None)(_watermarks(bootstrap, topic)), 20,
                              "time retention to delete the old segments")
        assert high == len(values) and low < high
        out = kcat(bootstrap, "-C", "-e", "-q", "-o", "beginning", "-t", topic, "-f", "%o\n")
        assert out.split() == [str(n) for n in range(low, high)]


def test_partitions_and_auto_creation_settings() -> None:
    with SluiceServer(extra_args=["--partitions", "3", "--log-flush", "250ms"]) as server:
        bootstrap = server.kafka_bootstrap
        topic = unique_topic("auto3")
        kcat(bootstrap, "-P", "-t", topic, "-p", "0", input=b"a\n")
        metadata = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic, timeout=10)
        assert sorted(metadata.topics[topic].partitions) == [0, 1, 2]

    with SluiceServer(extra_args=["--disable-auto-create-topics"]) as server:
        bootstrap = server.kafka_bootstrap
        topic = unique_topic("noauto")
        metadata = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic, timeout=10)
        assert metadata.topics[topic].error is not None
        assert metadata.topics[topic].error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART
        reports: list[KafkaError | None] = []
        producer = Producer({"bootstrap.servers": bootstrap, "message.timeout.ms": 3000})
        producer.produce(topic, value=b"x", on_delivery=lambda error, _m: reports.append(error))
        producer.flush(20)
        assert len(reports) == 1 and reports[0] is not None
        assert reports[0].code() in (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._MSG_TIMED_OUT, KafkaError._UNKNOWN_TOPIC)
        assert topic not in AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).topics


@pytest.mark.parametrize("args, message", [
    (["--log-flush", "soon"], "--log-flush takes never, always or a positive number of milliseconds"),
    (["--log-flush", "0ms"], "--log-flush takes never, always or a positive number of milliseconds"),
    (["--partitions", "0"], "--partitions must be at least 1"),
    (["--log-segment-bytes", "10"], "--log-segment-bytes must be at least 1024"),
])
def test_impossible_settings_are_refused(tmp_path, args: list[str], message: str) -> None:
    for command in (["broker", "--listen", "127.0.0.1:0"], ["serve", "--listen", "127.0.0.1:0", "--kafka-listen", "127.0.0.1:0"]):
        result = subprocess.run([str(sluice_binary()), *command, "--data-dir", str(tmp_path / "d"), *args],
                                capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
        assert result.returncode != 0
        assert message in result.stderr.decode(), result.stderr.decode()
