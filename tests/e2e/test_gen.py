"""`sluice gen` against the built-in broker: what it produces to a topic is, partition by
partition, exactly what `--output -` prints for the same seed, and the balloon game's scores
add up by the demo's rule.

Balloon events are keyed by player, so each record must sit in the partition the Java client's
murmur2 partitioner (kafka-python's `murmur2`) picks for its key, in generation order; Nexmark
events have no key and go round-robin."""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict

from kafka.partitioner.default import murmur2
from kafka_support import read_topic, unique_topic

from harness import SluiceServer
from harness.sluice_server import sluice_binary

# The balloon-popper demo's GAME_CONFIG colors; "black" is a favorite no balloon has (0 points).
POINTS = {"red": 100, "blue": 75, "green": 60, "yellow": 50, "purple": 40, "brown": 35, "orange": 45,
          "pink": 55, "gold": 90, "grey": 70, "white": 80, "black": 0}
PARTITIONS = 3


def gen(*args: str) -> subprocess.CompletedProcess:
    result = subprocess.run([str(sluice_binary()), "gen", *args], capture_output=True, timeout=120)
    assert result.returncode == 0, f"sluice gen {' '.join(args)} exited with {result.returncode}: {result.stderr.decode(errors='replace')}"
    return result


def ndjson_lines(*args: str) -> list[bytes]:
    return gen(*args, "--output", "-").stdout.splitlines()


def test_balloon_topic_equals_ndjson_per_partition_and_scores_add_up(kafka_server: SluiceServer) -> None:
    topic = unique_topic("balloon")
    result = gen("balloon", "--count", "5000", "--seed", "7", "--topic", topic, "--partitions", str(PARTITIONS),
                 "--bootstrap", kafka_server.kafka_bootstrap)
    summary = result.stderr.decode()
    assert "5000 events" in summary and topic in summary, summary
    lines = ndjson_lines("balloon", "--count", "5000", "--seed", "7")
    assert len(lines) == 5000
    assert lines == ndjson_lines("balloon", "--count", "5000", "--seed", "7"), "same seed, different output"

    expected: dict[int, list[bytes]] = defaultdict(list)
    for line in lines:
        player = json.loads(line)["player"].encode()
        expected[(murmur2(player) & 0x7FFFFFFF) % PARTITIONS].append(line)
    records = read_topic(kafka_server.kafka_bootstrap, topic)
    assert sorted(records) == list(range(PARTITIONS))
    for partition in range(PARTITIONS):
        got = [record.value for record in records[partition]]
        assert got == expected[partition], f"partition {partition}: {len(got)} records, {len(expected[partition])} expected"
        for record in records[partition]:
            assert record.key == json.loads(record.value)["player"].encode()

    # Per-player totals by the rule (points, doubled on a favorite-color bonus) match the scores sent.
    sent: dict[str, int] = defaultdict(int)
    by_rule: dict[str, int] = defaultdict(int)
    bonus_colors: dict[str, set[str]] = defaultdict(set)
    for line in lines:
        event = json.loads(line)
        assert list(event) == ["player", "balloon_color", "score", "page_id", "favorite_color_bonus", "event_ts"]
        sent[event["player"]] += event["score"]
        by_rule[event["player"]] += POINTS[event["balloon_color"]] * (2 if event["favorite_color_bonus"] else 1)
        if event["favorite_color_bonus"]:
            bonus_colors[event["player"]].add(event["balloon_color"])
    assert sent == by_rule
    assert len(sent) == 10
    # Each player plays one character, with two favorite colors.
    assert all(len(colors) <= 2 for colors in bonus_colors.values()), bonus_colors


def test_nexmark_round_robin_and_other_generators(kafka_server: SluiceServer) -> None:
    topic = unique_topic("nexmark")
    gen("nexmark", "--count", "3000", "--topic", topic, "--partitions", str(PARTITIONS), "--bootstrap", kafka_server.kafka_bootstrap)
    lines = ndjson_lines("nexmark", "--count", "3000")
    records = read_topic(kafka_server.kafka_bootstrap, topic)
    for partition in range(PARTITIONS):
        assert [record.value for record in records[partition]] == lines[partition::PARTITIONS]
        assert all(record.key is None for record in records[partition])

    # Every generator's lines parse, and a different seed changes them.
    for args in (["user-cdc"], ["payments", "--kind", "refunds"], ["payments", "--kind", "subscriptions"], ["nexmark", "--kind", "bid"]):
        first = ndjson_lines(*args, "--count", "200", "--seed", "1")
        assert len(first) == 200 and all(json.loads(line) for line in first)
        assert first != ndjson_lines(*args, "--count", "200", "--seed", "2")


def test_paced_run_takes_its_time_and_uses_the_wall_clock(kafka_server: SluiceServer) -> None:
    topic = unique_topic("paced")
    result = gen("user-cdc", "--rate", "20", "--duration", "1", "--topic", topic, "--bootstrap", kafka_server.kafka_bootstrap)
    summary = result.stderr.decode()
    count = int(summary.split(" events")[0].rsplit(" ", 1)[1])
    assert 15 <= count <= 22, summary
    records = read_topic(kafka_server.kafka_bootstrap, topic)
    values = [json.loads(record.value) for partition in records.values() for record in partition]
    assert len(values) == count
    assert all(not value["ts"].startswith("2025-01-01") for value in values)
