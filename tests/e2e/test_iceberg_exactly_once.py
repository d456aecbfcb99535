"""Exactly once into Iceberg across crashes: a Kafka source feeds an append-only Iceberg sink
while the server is SIGKILLed, at random moments and at the failpoints between a sink's prepare
and its commit (after prepare, before the commit, after the commit but before the sink records
it). After recovery the table holds every event exactly once, and no two snapshots of the sink
carry the same epoch.

The events are numbered; the oracle is the set of numbers produced (every produce is
acknowledged by the broker before the kill, and the broker's log survives a kill -9)."""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from pathlib import Path

from kafka import KafkaAdminClient
from kafka.admin import NewTopic
from kafka_support import produce_acknowledged
from pyiceberg.catalog.rest import RestCatalog

from harness import SluiceServer
from harness.ports import free_port
from source_support import connect, wait_until

ROUNDS = ["sink-after-prepare", None, "sink-before-commit", None, "sink-after-commit", None, "sink-after-prepare@3", None]
PER_ROUND = 3000


def _produce(bootstrap: str, start: int, stop: int) -> set[int]:
    """Sends events `start..<stop`; returns the ids the broker acknowledged."""
    return produce_acknowledged(bootstrap, "events", {i: json.dumps({"id": i, "v": i % 13}).encode() for i in range(start, stop)})


def _catalog(server: SluiceServer) -> RestCatalog:
    return RestCatalog("lake", uri=server.catalog_base, credential="root:secret", warehouse="lake")


def _ids(server: SluiceServer) -> list[int]:
    table = _catalog(server).load_table("exact.events")
    return [row["id"] for row in table.scan(selected_fields=("id",)).to_arrow().to_pylist()]


def test_kills_between_prepare_and_commit_lose_and_repeat_nothing(tmp_path: Path) -> None:
    data, kafka, catalog = tmp_path / "data", free_port(), free_port()
    rng = random.Random(20261125)
    produced = 0
    args = ["--barrier-interval-ms", "100"]
    acknowledged: set[int] = set()
    for round_number, failpoint in enumerate(ROUNDS):
        with SluiceServer(data_dir=data, kafka_port=kafka, catalog_port=catalog, extra_args=args) as server:
            if round_number == 0:
                admin = KafkaAdminClient(bootstrap_servers=server.kafka_bootstrap, request_timeout_ms=10000)
                admin.create_topics([NewTopic("events", 2, 1)])
                admin.close()
                with connect(server) as conn:
                    conn.execute(f"""CREATE SOURCE events (id bigint, v int) WITH (connector = 'kafka', topic = 'events',
                        properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
                    conn.execute("""CREATE SINK exact AS SELECT id, v FROM events WITH (connector = 'iceberg', type = 'append-only',
                        database.name = 'exact', table.name = 'events', warehouse.path = 'lake', commit_checkpoint_interval = '2')""")
            acknowledged |= _produce(server.kafka_bootstrap, produced, produced + PER_ROUND)
            produced += PER_ROUND
            # Killed at a random moment while the sink works (at once before a failpoint round).
            time.sleep(0 if failpoint else rng.uniform(0.05, 1.5))
            server.kill()
            server.process.wait(timeout=10)
        if failpoint:
            # The restarted server takes the events again from its checkpoint, and a few new
            # ones, and dies when its sink reaches the failpoint.
            with SluiceServer(data_dir=data, kafka_port=kafka, catalog_port=catalog, extra_args=args,
                              env={"SLUICE_FAILPOINT": failpoint}, may_die_at_start=True) as server:
                # A few events at a time until it dies: a failpoint at the third prepare needs
                # three epochs with rows, which the replay alone may not give.
                def died() -> bool:
                    nonlocal produced, acknowledged
                    if server.process.poll() is None:
                        acknowledged |= _produce(server.kafka_bootstrap, produced, produced + 5)
                        produced += 5
                    return server.process.poll() is not None
                wait_until(died, 60, f"the server to die at {failpoint}")

    with SluiceServer(data_dir=data, kafka_port=kafka, catalog_port=catalog, extra_args=args) as server:
        def complete() -> list[int] | None:
            ids = _ids(server)
            repeated = [i for i, n in Counter(ids).items() if n > 1]
            assert not repeated, f"events in the table more than once: {repeated[:10]}"
            return ids if acknowledged <= set(ids) else None
        ids = wait_until(complete, 120, f"all {len(acknowledged)} acknowledged events in the table")
        # Nothing that was not sent; nothing twice (checked above); every acknowledged event.
        assert set(ids) <= set(range(produced))
        # At most the five in flight when each round's server died went unacknowledged.
        assert len(acknowledged) >= produced - 5 * len(ROUNDS)
        table = _catalog(server).load_table("exact.events")
        epochs = [snapshot.summary["sluice.epoch"] for snapshot in table.snapshots() if snapshot.summary and "sluice.epoch" in snapshot.summary.additional_properties]
        assert len(epochs) == len(set(epochs)), f"an epoch was committed twice: {sorted(epochs)}"
        with connect(server) as conn:
            state, failures, error = conn.execute("SELECT state, commit_failures, last_error FROM sluice_sinks WHERE name = 'exact'").fetchone()
        assert error is None, error
