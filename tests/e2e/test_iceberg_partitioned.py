"""Sinks into partitioned Iceberg tables: pyiceberg creates tables partitioned by day, bucket,
truncate and identity transforms; Sluice's sinks write into them, one file per partition, each
file's manifest entry carrying its partition tuple.

Oracles: pyiceberg's own transforms say which partition every row belongs in (each data file's
rows must all map to its recorded partition), and the rows read back by pyiceberg and DuckDB
equal the rows inserted (append-only) or the view (upsert, by DuckDB and pyiceberg, which apply position
deletes)."""

from __future__ import annotations


import pyarrow.parquet as pq
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.expressions import EqualTo
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform, TruncateTransform
from pyiceberg.types import IntegerType, LongType, NestedField, StringType, TimestamptzType

from harness import SluiceServer
from duckdb_support import duckdb_with
from source_support import connect, wait_until


def _catalog(server: SluiceServer) -> RestCatalog:
    base = server.catalog_base
    return RestCatalog("lake", uri=base, credential="root:secret", warehouse="lake", **{"oauth2-server-uri": f"{base}/v1/oauth/tokens"})


def _duckdb(location: str, columns: str) -> list[tuple]:
    with duckdb_with("iceberg", "avro") as con:
        return sorted(con.execute(f"SELECT {columns} FROM iceberg_scan('{location}')").fetchall())


def test_append_only_sink_splits_rows_by_the_tables_partition_spec(tmp_path) -> None:
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--barrier-interval-ms", "100"]) as server, connect(server) as conn:
        catalog = _catalog(server)
        catalog.create_namespace("parts")
        schema = Schema(
            NestedField(1, "id", LongType(), required=False), NestedField(2, "name", StringType(), required=False),
            NestedField(3, "ts", TimestamptzType(), required=False), NestedField(4, "score", IntegerType(), required=False))
        spec = PartitionSpec(
            PartitionField(3, 1000, DayTransform(), "ts_day"), PartitionField(1, 1001, BucketTransform(4), "id_bucket"),
            PartitionField(2, 1002, TruncateTransform(2), "name_trunc"))
        catalog.create_table("parts.events", schema, partition_spec=spec)

        conn.execute("CREATE TABLE events (id bigint, name varchar, ts timestamptz, score int) APPEND ONLY")
        conn.execute("""CREATE SINK s FROM events WITH (connector = 'iceberg', type = 'append-only', database.name = 'parts',
            table.name = 'events', warehouse.path = 'lake', commit_checkpoint_interval = '1', enable_compaction = 'false')""")
        conn.execute("""INSERT INTO events SELECT g, (ARRAY['alpha', 'beta', 'gamma', 'alps', NULL])[1 + g % 5],
            TIMESTAMPTZ '2026-11-20 23:30:00+00' + g * INTERVAL '37 minutes', g % 100 FROM generate_series(1, 500) AS g""")
        conn.execute("FLUSH")
        expected = sorted(conn.execute("SELECT id, name, ts, score FROM events").fetchall())
        wait_until(lambda: conn.execute("SELECT rows FROM sluice_sinks").fetchone()[0] >= 500, 30, "the sink to commit every row")

        table = catalog.load_table("parts.events")
        rows = sorted((r["id"], r["name"], r["ts"], r["score"]) for r in table.scan().to_arrow().to_pylist())
        assert rows == expected
        # Every file holds one partition's rows, and its recorded tuple is pyiceberg's for them.
        tasks = list(table.scan().plan_files())
        assert len(tasks) > 20, "rows spread over days, buckets and prefixes make many files"
        day, bucket, trunc = DayTransform().transform(TimestamptzType()), BucketTransform(4).transform(LongType()), TruncateTransform(2).transform(StringType())
        for task in tasks:
            file = task.file
            stored = (file.partition[0], file.partition[1], file.partition[2])
            path = file.file_path.removeprefix("file://")
            for row in pq.read_table(path).to_pylist():
                micros = int(row["ts"].timestamp() * 1_000_000)
                assert (day(micros), bucket(row["id"]), trunc(row["name"])) == stored, (file.file_path, row)
        # Partition pruning by pyiceberg over our manifests.
        filtered = table.scan(row_filter=EqualTo("name", "beta"))
        assert sorted(r["id"] for r in filtered.to_arrow().to_pylist()) == [r[0] for r in expected if r[1] == "beta"]
        assert len(list(filtered.plan_files())) < len(tasks)
        assert _duckdb(table.metadata_location, "id, name, ts, score") == expected
        # A spec over a column the sink does not write is refused at CREATE.
        try:
            conn.execute("""CREATE SINK bad AS SELECT id, score FROM events WITH (connector = 'iceberg', type = 'append-only',
                database.name = 'parts', table.name = 'events', warehouse.path = 'lake')""")
            raise AssertionError("a sink without the partition source columns was accepted")
        except Exception as error:  # noqa: BLE001 - the SQLSTATE is the assertion
            assert getattr(error, "sqlstate", None) == "0A000", error


def test_upsert_sink_into_a_partitioned_table_equals_the_view(tmp_path) -> None:
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--barrier-interval-ms", "100"]) as server, connect(server) as conn:
        catalog = _catalog(server)
        catalog.create_namespace("parts")
        schema = Schema(
            NestedField(1, "name", StringType(), required=False), NestedField(2, "n", LongType(), required=False),
            NestedField(3, "total", LongType(), required=False))
        catalog.create_table("parts.totals", schema, partition_spec=PartitionSpec(PartitionField(1, 1000, IdentityTransform(), "name")))

        conn.execute("CREATE TABLE t (id int PRIMARY KEY, name varchar, score int)")
        conn.execute("CREATE MATERIALIZED VIEW totals AS SELECT name, count(*) AS n, sum(score) AS total FROM t GROUP BY name")
        conn.execute("""CREATE SINK s FROM totals WITH (connector = 'iceberg', type = 'upsert', primary_key = 'name',
            database.name = 'parts', table.name = 'totals', warehouse.path = 'lake', commit_checkpoint_interval = '1',
            enable_compaction = 'false')""")
        conn.execute("INSERT INTO t SELECT g, 'p' || (g % 7), g FROM generate_series(1, 70) AS g")
        conn.execute("FLUSH")
        location = lambda: catalog.load_table("parts.totals").metadata_location  # noqa: E731
        # The first rows committed before they change: a FLUSH under load need not be a
        # checkpoint, and rows written and deleted in one commit need no delete file.
        first = sorted(conn.execute("SELECT name, n, total FROM totals").fetchall())
        wait_until(lambda: _duckdb(location(), "name, n, total") == first, 30, "DuckDB to read the first rows")
        conn.execute("UPDATE t SET score = score * 2 WHERE id % 3 = 0")
        conn.execute("DELETE FROM t WHERE name = 'p3'")
        conn.execute("UPDATE t SET name = 'p9' WHERE id < 10")
        conn.execute("FLUSH")
        view = sorted(conn.execute("SELECT name, n, total FROM totals").fetchall())
        # The view by hand: scores 1..70 in groups by g % 7, doubled where g % 3 = 0, group 3
        # deleted, ids below 10 moved to p9.
        scores = {g: (g * 2 if g % 3 == 0 else g) for g in range(1, 71) if g % 7 != 3}
        groups: dict[str, list[int]] = {}
        for g, score in scores.items():
            groups.setdefault("p9" if g < 10 else f"p{g % 7}", []).append(score)
        assert view == sorted((name, len(v), sum(v)) for name, v in groups.items())
        wait_until(lambda: _duckdb(location(), "name, n, total") == view, 30, "DuckDB to read the view's rows")
        # Deletes went into the partitions of the rows they delete, by position: every row of a
        # position delete file names a data file of its partition, and p3's group is gone, so
        # its partition has one. No equality delete was needed, and pyiceberg reads the table.
        table = catalog.load_table("parts.totals")
        files = table.inspect.files().to_pylist()
        assert [f for f in files if f["content"] == 2] == []
        deletes = [f for f in files if f["content"] == 1]
        assert "p3" in {f["partition"]["name"] for f in deletes}
        for file in deletes:
            named = {row["file_path"] for row in pq.read_table(file["file_path"].removeprefix("file://")).to_pylist()}
            assert all(f"/name={file['partition']['name']}/" in path for path in named), (file["file_path"], named)
        assert sorted((r["name"], r["n"], r["total"]) for r in table.scan().to_arrow().to_pylist()) == view


def test_compaction_keeps_partitions_apart(tmp_path) -> None:
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--barrier-interval-ms", "100"]) as server, connect(server) as conn:
        catalog = _catalog(server)
        catalog.create_namespace("parts")
        schema = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "name", StringType(), required=False))
        catalog.create_table("parts.small", schema, partition_spec=PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "name")))
        conn.execute("CREATE TABLE small (id bigint, name varchar) APPEND ONLY")
        conn.execute("""CREATE SINK s FROM small WITH (connector = 'iceberg', type = 'append-only', database.name = 'parts',
            table.name = 'small', warehouse.path = 'lake', commit_checkpoint_interval = '1', compaction_interval_sec = '1')""")
        # Ten commits, each a small file in each of three partitions.
        for batch in range(10):
            conn.execute("INSERT INTO small SELECT g, (ARRAY['a', 'b', 'c'])[1 + g %% 3] FROM generate_series(%s, %s) AS g",
                         (batch * 30, batch * 30 + 29))
            conn.execute("FLUSH")
            wait_until(lambda: conn.execute("SELECT rows FROM sluice_sinks").fetchone()[0] >= (batch + 1) * 30, 30, f"batch {batch}")
        expected = sorted(conn.execute("SELECT id, name FROM small").fetchall())

        def compacted():
            table = catalog.load_table("parts.small")
            tasks = list(table.scan().plan_files())
            return tasks if len(tasks) == 3 else None
        tasks = wait_until(compacted, 60, "compaction to leave one file per partition")
        assert sorted(task.file.partition[0] for task in tasks) == ["a", "b", "c"]
        for task in tasks:
            names = {row["name"] for row in pq.read_table(task.file.file_path.removeprefix("file://")).to_pylist()}
            assert names == {task.file.partition[0]}
        table = catalog.load_table("parts.small")
        assert sorted((r["id"], r["name"]) for r in table.scan().to_arrow().to_pylist()) == expected
        assert _duckdb(table.metadata_location, "id, name") == expected
