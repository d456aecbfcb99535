"""A SELECT over a source reads the outside system now: a Kafka topic's records or an Iceberg
table's files. The rows go a chunk at a time into a table of the state store, which spills
past `--memory-limit`, so a query of a topic or table much larger than the limit answers
exactly instead of holding it all in memory.

The server runs with a 4 MiB limit; the topic and the table hold about 30 MiB of rows each. The
answers are checked against DuckDB over the same generated rows, and the state store must have
written pages out during the scans (before this, a scan collected every row in one array)."""

from __future__ import annotations

import json

import duckdb
from confluent_kafka import Producer

from harness import SluiceServer
from source_support import connect, wait_until

ROWS = 200_000


def _memory(conn) -> dict[str, int]:
    cursor = conn.execute("SELECT * FROM sluice_memory")
    return dict(zip([column.name for column in cursor.description], cursor.fetchone()))


def test_scans_of_large_sources_spill_and_answer_exactly(tmp_path) -> None:
    args = ["--memory-limit", "4MB", "--barrier-interval-ms", "200"]
    oracle = duckdb.connect()
    want = oracle.execute(
        f"SELECT count(*), sum(i), count(DISTINCT i % 1000), sum(length(repeat('x', (i % 100)::int))) FROM range({ROWS}) t(i)").fetchone()
    with SluiceServer(data_dir=tmp_path / "data", extra_args=args) as server, connect(server) as conn:
        producer = Producer({"bootstrap.servers": server.kafka_bootstrap, "linger.ms": 20, "acks": "all"})
        for i in range(ROWS):
            producer.produce("big", json.dumps({"id": i, "pad": "x" * (i % 100), "note": f"row number {i} of the big topic"}).encode())
            if i % 10_000 == 0:
                producer.poll(0)
        assert producer.flush(60) == 0
        conn.execute("""CREATE SOURCE big (id bigint, pad varchar, note varchar) WITH (connector = 'kafka', topic = 'big',
            properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""" % server.kafka_bootstrap)
        before = _memory(conn)["pages_evicted"]
        got = conn.execute("SELECT count(*), sum(id), count(DISTINCT id % 1000), sum(length(pad)) FROM big").fetchone()
        assert tuple(int(v) for v in got) == tuple(int(v) for v in want)
        after_kafka = _memory(conn)["pages_evicted"]
        assert after_kafka > before, "the topic's rows went through the state store's budget"

        # The same rows through an Iceberg table and back with a SELECT over an Iceberg source.
        conn.execute("CREATE TABLE rows_t (id bigint, pad varchar, note varchar) APPEND ONLY")
        conn.execute("""CREATE SINK lake FROM rows_t WITH (connector = 'iceberg', type = 'append-only', database.name = 'mem',
            table.name = 'rows', warehouse.path = 'lake', commit_checkpoint_interval = '1', enable_compaction = 'false')""")
        conn.execute("INSERT INTO rows_t SELECT id, pad, note FROM big")
        conn.execute("FLUSH")
        wait_until(lambda: conn.execute("SELECT rows FROM sluice_sinks WHERE name = 'lake'").fetchone()[0] >= ROWS, 60,
                   "the sink to commit every row")
        before = _memory(conn)["pages_evicted"]
        conn.execute("CREATE SOURCE lake_rows WITH (connector = 'iceberg', database.name = 'mem', table.name = 'rows', warehouse.path = 'lake')")
        got = conn.execute("SELECT count(*), sum(id), count(DISTINCT id % 1000), sum(length(pad)) FROM lake_rows").fetchone()
        assert tuple(int(v) for v in got) == tuple(int(v) for v in want)
        assert _memory(conn)["pages_evicted"] > before, "the table's rows went through the state store's budget"
