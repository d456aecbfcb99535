"""`sluice_memory_by_owner` and `/metrics` say where the process's memory goes (issue 40, item 5).

One server with a 64 MB `--memory-limit` and its broker. Its owners come in a fixed order: the
state store's pages, the queries' operators, a big statement's staged rows, rows written to
tables and not yet in their pages, sources' prefetched messages, sinks' buffered rows, the
broker's log indexes, what the process holds besides, then the process's resident set and its
peak. The rows that tell of the process agree with the kernel's `/proc/<pid>/status`; rows
written to a table count under "table writes" until a read merges them into the table's pages;
records produced to the broker count under its indexes; `/metrics` has the same owners as
`sluice_memory_bytes{owner=…}`.
"""

from __future__ import annotations

import urllib.request

from kafka import KafkaProducer
from prometheus_client.parser import text_string_to_metric_families

from harness import SluiceServer
from source_support import connect, wait_until

OWNERS = [
    "state pages", "query operators", "statement staging", "table writes", "source buffers", "sink buffers", "broker indexes",
    "other", "process", "process peak",
]


def _owners(conn) -> dict[str, int]:
    rows = conn.execute("SELECT owner, bytes FROM sluice_memory_by_owner").fetchall()
    assert [owner for owner, _ in rows] == OWNERS
    return dict(rows)


def _status_bytes(pid: int, field: str) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def test_memory_by_owner_tells_where_memory_goes(tmp_path):
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--memory-limit", "64MB"]) as server:
        with connect(server) as conn:
            owners = _owners(conn)
            rss_before = _status_bytes(server.process.pid, "VmRSS")
            peak = _status_bytes(server.process.pid, "VmHWM")
            # The process's rows are the kernel's figures, read as the query ran.
            assert 0.5 * rss_before <= owners["process"] <= 2 * rss_before, (owners, rss_before)
            assert owners["process peak"] >= owners["process"]
            assert owners["process peak"] <= peak
            counted = sum(owners[name] for name in OWNERS[:7])
            assert owners["other"] == max(0, owners["process"] - counted)

            # 20,000 rows staged in a table until a read merges them into its pages.
            conn.execute("CREATE TABLE t (id bigint PRIMARY KEY, s varchar)")
            conn.execute("INSERT INTO t SELECT g, repeat('x', 40) || g FROM generate_series(1, 20000) g")
            staged = _owners(conn)["table writes"]
            assert staged >= 20_000 * 40, staged
            assert conn.execute("SELECT count(*) FROM t").fetchone() == (20_000,)
            assert _owners(conn)["table writes"] == 0

            # Records in the broker's log: its indexes hold an entry every 4 KiB of batches.
            producer = KafkaProducer(bootstrap_servers=server.kafka_bootstrap, acks="all", linger_ms=0)
            for i in range(2_000):
                producer.send("owners", (b"%06d" % i) * 200)
            producer.flush(timeout=60)
            producer.close()
            wait_until(lambda: _owners(conn)["broker indexes"] > 0, 30, "the broker's indexes to be counted")

            with urllib.request.urlopen(f"{server.http_base}/metrics", timeout=10) as response:
                text = response.read().decode()
            samples = {
                sample.labels.get("owner"): sample.value
                for family in text_string_to_metric_families(text)
                for sample in family.samples
                if sample.name == "sluice_memory_bytes"
            }
            assert sorted(samples) == sorted(OWNERS)
            assert samples["broker indexes"] > 0
            assert samples["process"] > 0
