"""Indexes on materialized views (RisingWave's `CREATE INDEX ON mv`): a query that filters on the
index's key reads the view through it (EXPLAIN shows the lookup), and its answers equal DuckDB's
over the same table rows, after every FLUSH of a seeded random stream of inserts, updates and
deletes, after an index is created on a view that already holds rows, after `DROP INDEX`, and
after the server is killed with SIGKILL and started again (the indexes are rebuilt from the
views' restored rows)."""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from collections import Counter
from decimal import Decimal
from pathlib import Path

import duckdb
import psycopg

from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic

from harness import SluiceServer
from harness.ports import free_port
from source_support import wait_until

SEED = 20261125
ROUNDS = 30

VIEWS = {
    # An aggregate: rows change in place under updates of their group.
    "by_k": "SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k",
    # A join of two tables: rows come and go in pairs, duplicates included.
    "pairs": "SELECT t.id, t.k, u.tag, t.v FROM t JOIN u ON t.k = u.k",
    # An append-only view (of a Kafka source) has hidden row ids.
    "events_big": "SELECT id, k, v FROM events WHERE v > 10",
}
INDEXES = [
    "CREATE INDEX by_k_s ON by_k (s DESC)",
    "CREATE INDEX pairs_tag_k ON pairs (tag, k)",
    "CREATE INDEX events_big_k ON events_big (k)",
]
# Each filter reads its view through an index (checked with EXPLAIN) and is compared with DuckDB.
LOOKUPS = [
    ("by_k", "by_k_s", "SELECT k, n, s FROM by_k WHERE s > {a}"),
    ("by_k", "by_k_s", "SELECT k, n, s FROM by_k WHERE s = {a}"),
    ("pairs", "pairs_tag_k", "SELECT id, k, tag, v FROM pairs WHERE tag = '{tag}'"),
    ("pairs", "pairs_tag_k", "SELECT id, k, tag, v FROM pairs WHERE tag = '{tag}' AND k >= {k} AND k < {k} + 5"),
    ("events_big", "events_big_k", "SELECT id, k, v FROM events_big WHERE k = {k}"),
]


def multiset(rows) -> Counter:
    return Counter(tuple(float(x) if isinstance(x, Decimal) else x for x in row) for row in rows)


class Workload:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.next_id = 0
        self.ids: list[int] = []
        self.events: list[tuple[int, int, int]] = []
        self.producer: KafkaProducer | None = None

    def produce_events(self, bootstrap: str) -> None:
        """A hundred events into the source's topic, acknowledged."""
        if self.producer is None:
            self.producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
        r = self.random
        for _ in range(100):
            event = (len(self.events), r.randrange(40), r.randrange(30))
            self.events.append(event)
            self.producer.send("mv-index-events", value=json.dumps(dict(zip(["id", "k", "v"], event))).encode())
        self.producer.flush()

    def statements(self) -> list[str]:
        r = self.random
        out = []
        ids = list(range(self.next_id, self.next_id + 80))
        self.next_id += 80
        self.ids += ids
        out.append("INSERT INTO t VALUES " + ", ".join(f"({i}, {r.randrange(40)}, {r.randrange(-20, 60)})" for i in ids))
        out.append("INSERT INTO u VALUES " + ", ".join(f"({r.randrange(40)}, '{r.choice('xyz')}')" for _ in range(6)))
        chosen = r.sample(self.ids, min(40, len(self.ids)))
        out.append(f"UPDATE t SET v = v + {r.randrange(-15, 15)}, k = (k + {r.randrange(3)}) % 40 WHERE id IN ({', '.join(map(str, chosen))})")
        if len(self.ids) > 600:
            gone = set(r.sample(self.ids, 80))
            self.ids = [i for i in self.ids if i not in gone]
            out.append(f"DELETE FROM t WHERE id IN ({', '.join(map(str, sorted(gone)))})")
        out.append(f"DELETE FROM u WHERE k = {r.randrange(40)} AND tag = '{r.choice('xyz')}'")
        return out


def run_round(conn: psycopg.Connection, workload: Workload, bootstrap: str) -> None:
    for statement in workload.statements():
        conn.execute(statement)
    workload.produce_events(bootstrap)


def flush(conn: psycopg.Connection, workload: Workload) -> None:
    """Every event produced read into the views, every table write in them."""
    wait_until(lambda: conn.execute("SELECT n FROM events_seen").fetchone() == (len(workload.events),), 60, "the source to read every event")
    conn.execute("FLUSH")


def duck_copy(conn: psycopg.Connection, workload: Workload) -> duckdb.DuckDBPyConnection:
    duck = duckdb.connect()
    duck.execute("CREATE TABLE t (id int, k int, v int); CREATE TABLE u (k int, tag varchar); CREATE TABLE events (id int, k int, v int)")
    duck.executemany("INSERT INTO events VALUES (?, ?, ?)", workload.events)
    for name in ["t", "u"]:
        rows = conn.execute(f"SELECT * FROM {name}").fetchall()
        if rows:
            duck.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' for _ in rows[0])})", rows)
    for name, query in VIEWS.items():
        duck.execute(f"CREATE VIEW {name} AS {query}")
    return duck


def check_lookups(conn: psycopg.Connection, workload: Workload, rng: random.Random, with_indexes: set[str]) -> None:
    duck = duck_copy(conn, workload)
    for _ in range(3):
        values = {"a": rng.randrange(-50, 400), "tag": rng.choice("xyz"), "k": rng.randrange(40)}
        # An equality on an aggregate's sum that exists, so the point lookup finds rows.
        sums = conn.execute("SELECT s FROM by_k ORDER BY k").fetchall()
        if sums:
            values["a"] = rng.choice(sums)[0] if rng.random() < 0.5 else values["a"]
        for view, index, template in LOOKUPS:
            query = template.format(**values)
            plan = "\n".join(row[0] for row in conn.execute(f"EXPLAIN {query}").fetchall())
            if index in with_indexes:
                assert f"BatchIndexScan {{ table: {view}, index: {index}" in plan, plan
            else:
                assert "BatchIndexScan" not in plan, plan
            actual = multiset(conn.execute(query).fetchall())
            expected = multiset(duck.execute(query).fetchall())
            assert actual == expected, (
                f"{query}: only ours {list((actual - expected).items())[:5]}, only DuckDB's {list((expected - actual).items())[:5]}")


def test_indexes_on_views_answer_lookups_like_their_views() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="sluice-mv-index-"))
    rng = random.Random(SEED + 1)
    workload = Workload(SEED)
    try:
        # The broker keeps its port across the restart: the source names it.
        kafka_port = free_port()
        server = SluiceServer(data_dir=data_dir, kafka_port=kafka_port).start()
        bootstrap = server.kafka_bootstrap
        try:
            with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
                conn.execute("CREATE TABLE t (id int PRIMARY KEY, k int, v int)")
                conn.execute("CREATE TABLE u (k int, tag varchar)")
                admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
                admin.create_topics([NewTopic("mv-index-events", 1, 1)])
                admin.close()
                conn.execute(
                    "CREATE SOURCE events (id int, k int, v int) WITH (connector='kafka', topic='mv-index-events', "
                    f"properties.bootstrap.server='{bootstrap}', scan.startup.mode='earliest') FORMAT PLAIN ENCODE JSON")
                conn.execute("CREATE MATERIALIZED VIEW events_seen AS SELECT count(*) AS n FROM events")
                for name, query in VIEWS.items():
                    conn.execute(f"CREATE MATERIALIZED VIEW {name} AS {query}")
                # Rows first: the indexes are built from views that hold some.
                for _ in range(3):
                    run_round(conn, workload, bootstrap)
                flush(conn, workload)
                for statement in INDEXES:
                    conn.execute(statement)
                indexed = {"by_k_s", "pairs_tag_k", "events_big_k"}
                check_lookups(conn, workload, rng, indexed)
                # Catalogs show the indexes as PostgreSQL does, for psql's \d.
                assert conn.execute(
                    "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                    "JOIN pg_class v ON v.oid = i.indrelid WHERE v.relname = 'pairs'").fetchall() == [("pairs_tag_k",)]
                for round_ in range(1, ROUNDS + 1):
                    run_round(conn, workload, bootstrap)
                    if round_ % 5 == 0:
                        flush(conn, workload)
                        check_lookups(conn, workload, rng, indexed)
                    if round_ == 15:
                        conn.execute("DROP INDEX by_k_s")
                        indexed.discard("by_k_s")
                    if round_ == 20:
                        conn.execute("CREATE INDEX by_k_s ON by_k (s DESC)")
                        indexed.add("by_k_s")
                flush(conn, workload)
                conn.execute("CHECKPOINT")
                # Writes after the checkpoint come back from the log, events from the topic.
                run_round(conn, workload, bootstrap)
                flush(conn, workload)
        finally:
            server.kill()
            server.stop()
        with SluiceServer(data_dir=data_dir, kafka_port=kafka_port) as server, psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            bootstrap = server.kafka_bootstrap
            workload.producer = None
            flush(conn, workload)
            check_lookups(conn, workload, rng, indexed)
            run_round(conn, workload, bootstrap)
            flush(conn, workload)
            check_lookups(conn, workload, rng, indexed)
            # An index goes with its view.
            conn.execute("DROP MATERIALIZED VIEW events_big")
            assert conn.execute("SELECT count(*) FROM pg_indexes WHERE indexname = 'events_big_k'").fetchone() == (0,)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def test_indexes_are_refused_on_plain_views_and_sources() -> None:
    with SluiceServer() as server, psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
        conn.execute("CREATE TABLE t (id int, k int)")
        conn.execute("CREATE VIEW plain AS SELECT * FROM t")
        try:
            conn.execute("CREATE INDEX plain_k ON plain (k)")
            raise AssertionError("an index on a view was accepted")
        except psycopg.errors.WrongObjectType as error:
            assert 'cannot create index on relation "plain"' in str(error)
