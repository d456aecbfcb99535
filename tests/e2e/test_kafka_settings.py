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
    (["--log-cleaner-backoff-ms", "0"], "--log-cleaner-backoff-ms must be positive"),
])
def test_impossible_settings_are_refused(tmp_path, args: list[str], message: str) -> None:
    for command in (["broker", "--listen", "127.0.0.1:0"], ["serve", "--listen", "127.0.0.1:0", "--kafka-listen", "127.0.0.1:0"]):
        result = subprocess.run([str(sluice_binary()), *command, "--data-dir", str(tmp_path / "d"), *args],
                                capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
        assert result.returncode != 0
        assert message in result.stderr.decode(), result.stderr.decode()


def test_create_topics_refuses_unknown_configs_and_bad_values_with_invalid_config() -> None:
    """CreateTopics checks each config as Kafka does: an unknown name or a value of the wrong
    kind is INVALID_CONFIG (40) with Kafka's message, and no topic is made; good ones are kept
    and DescribeConfigs shows them."""
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic
    from kafka.errors import InvalidConfigurationError
    from confluent_kafka.admin import NewTopic as ConfluentTopic

    with SluiceServer() as server:
        bootstrap = server.kafka_bootstrap
        admin = AdminClient({"bootstrap.servers": bootstrap})
        bad = {
            unique_topic("cfg-unknown"): ({"retention.msec": "1000"}, "Unknown topic config name: retention.msec"),
            unique_topic("cfg-long"): ({"retention.ms": "a week"}, "Not a number of type LONG"),
            unique_topic("cfg-min"): ({"segment.bytes": "10"}, "Value must be at least 14"),
            unique_topic("cfg-choice"): ({"cleanup.policy": "forever"}, "List must hold only: delete, compact"),
            unique_topic("cfg-bool"): ({"preallocate": "yes"}, "Expected value to be either true or false"),
        }
        futures = admin.create_topics([ConfluentTopic(name, 1, 1, config=config) for name, (config, _) in bad.items()])
        for name, future in futures.items():
            with pytest.raises(Exception) as failure:
                future.result(10)
            error = failure.value.args[0]
            assert error.code() == KafkaError.INVALID_CONFIG, (name, error)
            assert bad[name][1] in error.str(), (name, error.str())
        assert not set(bad) & set(admin.list_topics(timeout=10).topics)

        good = unique_topic("cfg-good")
        futures = admin.create_topics([ConfluentTopic(good, 1, 1, config={"retention.ms": "86400000", "cleanup.policy": "compact,delete"})])
        futures[good].result(10)
        described = admin.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, good)])
        entries = next(iter(described.values())).result(10)
        assert entries["retention.ms"].value == "86400000"
        assert entries["cleanup.policy"].value == "compact,delete"

        # kafka-python's admin client gets the same error.
        client = KafkaAdminClient(bootstrap_servers=bootstrap)
        try:
            with pytest.raises(InvalidConfigurationError):
                client.create_topics([NewTopic(unique_topic("cfg-python"), 1, 1, topic_configs={"min.insync.replicas": "0"})])
        finally:
            client.close()


def test_alter_configs_change_a_topics_settings_at_once_and_refuse_bad_ones() -> None:
    """AlterConfigs (replacing every override) and IncrementalAlterConfigs (SET, DELETE, APPEND,
    SUBTRACT) from kafka-python's and confluent-kafka's admin clients: DescribeConfigs shows the
    change, a bad value is INVALID_CONFIG with Kafka's message and changes nothing, validate-only
    changes nothing, an unknown topic is UNKNOWN_TOPIC_OR_PARTITION. A retention set this way
    takes effect on the running log."""
    from kafka import KafkaAdminClient
    from kafka.admin import AlterConfigOp
    from kafka.admin import ConfigResource as PythonResource
    from kafka.admin import ConfigResourceType
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry
    from confluent_kafka.admin import NewTopic as ConfluentTopic

    with SluiceServer(extra_args=["--log-segment-bytes", "4096", "--log-retention-check-interval-ms", "100"]) as server:
        bootstrap = server.kafka_bootstrap
        admin = AdminClient({"bootstrap.servers": bootstrap})
        topic = unique_topic("alter")
        admin.create_topics([ConfluentTopic(topic, 1, 1, config={"retention.ms": "86400000"})])[topic].result(10)

        def described() -> dict[str, tuple[str, bool]]:
            entries = next(iter(admin.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, topic)]).values())).result(10)
            return {name: (entry.value, entry.is_default) for name, entry in entries.items()}

        client = KafkaAdminClient(bootstrap_servers=bootstrap)
        try:
            # Incremental (kafka-python picks IncrementalAlterConfigs when the broker has it).
            result = client.alter_configs([PythonResource(ConfigResourceType.TOPIC, topic, configs={
                "cleanup.policy": (AlterConfigOp.APPEND, "compact"), "max.message.bytes": "2000000"})])
            assert described()["cleanup.policy"] == ("delete,compact", False), result
            assert described()["max.message.bytes"] == ("2000000", False)
            assert described()["retention.ms"] == ("86400000", False)
            client.alter_configs([PythonResource(ConfigResourceType.TOPIC, topic, configs={
                "cleanup.policy": (AlterConfigOp.SUBTRACT, "delete"), "max.message.bytes": (AlterConfigOp.DELETE, None)})])
            assert described()["cleanup.policy"] == ("compact", False)
            assert described()["max.message.bytes"][1] is True
            # The legacy AlterConfigs (kafka-python sends the other overrides along with it).
            client.alter_configs([PythonResource(ConfigResourceType.TOPIC, topic, configs={"cleanup.policy": "delete"})],
                                 incremental=False, raise_on_unknown=False)
            assert described()["cleanup.policy"] == ("delete", False)
            assert described()["retention.ms"] == ("86400000", False)
        finally:
            client.close()
        # confluent-kafka's legacy AlterConfigs sends only what it sets: every other override
        # goes back to its default.
        resource = ConfigResource(ConfigResource.Type.TOPIC, topic, set_config={"cleanup.policy": "compact"})
        with pytest.warns(DeprecationWarning):
            admin.alter_configs([resource])[resource].result(10)
        assert described()["cleanup.policy"] == ("compact", False)
        assert described()["retention.ms"][1] is True

        # confluent-kafka: a bad value and an unknown name are refused with INVALID_CONFIG.
        for name, value, message in [("retention.ms", "soon", "Not a number of type LONG"),
                                     ("retention.msec", "1", "Unknown topic config name: retention.msec")]:
            resource = ConfigResource(ConfigResource.Type.TOPIC, topic,
                                      incremental_configs=[ConfigEntry(name, value, incremental_operation=AlterConfigOpType.SET)])
            with pytest.raises(Exception) as failure:
                admin.incremental_alter_configs([resource])[resource].result(10)
            error = failure.value.args[0]
            assert error.code() == KafkaError.INVALID_CONFIG and message in error.str(), error
        assert described()["retention.ms"][1] is True
        # Validate-only checks and changes nothing.
        resource = ConfigResource(ConfigResource.Type.TOPIC, topic,
                                  incremental_configs=[ConfigEntry("retention.ms", "1000", incremental_operation=AlterConfigOpType.SET)])
        admin.incremental_alter_configs([resource], validate_only=True)[resource].result(10)
        assert described()["retention.ms"][1] is True
        missing = ConfigResource(ConfigResource.Type.TOPIC, unique_topic("alter-missing"),
                                 incremental_configs=[ConfigEntry("retention.ms", "1000", incremental_operation=AlterConfigOpType.SET)])
        with pytest.raises(Exception) as failure:
            admin.incremental_alter_configs([missing])[missing].result(10)
        assert failure.value.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART

        # A retention set at run time applies to the running log: with retention.bytes at one
        # segment, the closed segments go. (The topic compacts since the legacy AlterConfigs
        # above, which would refuse these keyless records and ignore retention: back to delete.)
        resource = ConfigResource(ConfigResource.Type.TOPIC, topic,
                                  incremental_configs=[ConfigEntry("cleanup.policy", "delete", incremental_operation=AlterConfigOpType.SET)])
        admin.incremental_alter_configs([resource])[resource].result(10)
        values = [b"%04d:" % n + b"v" * 500 for n in range(40)]
        _produce_one_batch_each(bootstrap, topic, values)
        assert _watermarks(bootstrap, topic)[0] == 0
        resource = ConfigResource(ConfigResource.Type.TOPIC, topic,
                                  incremental_configs=[ConfigEntry("retention.bytes", "4096", incremental_operation=AlterConfigOpType.SET)])
        admin.incremental_alter_configs([resource])[resource].result(10)
        wait_until(lambda: _watermarks(bootstrap, topic)[0] > 0, 20, "retention to apply the altered retention.bytes")
