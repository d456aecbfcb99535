"""Reading Iceberg with SELECT, as RisingWave's Iceberg source does: a table pyiceberg writes
(pyarrow's Parquet files, pyiceberg's manifests) becomes a source whose columns come from the
table's schema; queries over it equal DuckDB's over the same table (the oracle), and a WHERE on
the partition column or on a column whose files' bounds rule it out skips those files, which
`sluice_sources.status` reports."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from pathlib import Path

import psycopg
import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import DecimalType, LongType, NestedField, StringType, TimestamptzType

from harness import SluiceServer
from duckdb_support import duckdb_with
from source_support import connect

UTC = dt.timezone.utc


def _status(conn: psycopg.Connection) -> str:
    return conn.execute("SELECT status FROM sluice_sources WHERE name = 'lake'").fetchone()[0]


def _files_read(status: str) -> int:
    """The data files the last scan read (the rest were skipped by manifest summaries,
    partition values or column bounds)."""
    match = re.search(r"data files: (\d+) of (\d+)", status)
    assert match, status
    return int(match.group(1))


def test_select_over_a_pyiceberg_table(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as conn:
        catalog = RestCatalog("lake", uri=server.catalog_base, credential="root:secret", warehouse="lake",
                              **{"oauth2-server-uri": f"{server.catalog_base}/v1/oauth/tokens"})
        catalog.create_namespace("shop")
        schema = Schema(
            NestedField(1, "id", LongType(), required=False), NestedField(2, "region", StringType(), required=False),
            NestedField(3, "amount", DecimalType(10, 2), required=False), NestedField(4, "ordered_at", TimestamptzType(), required=False))
        spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="region"))
        table = catalog.create_table("shop.orders", schema=schema, partition_spec=spec)
        arrow = schema.as_arrow()
        # Four appends: each region's ids in their own range, so files have tight bounds.
        for batch, region in enumerate(["eu", "us", "eu", "apac"]):
            ids = list(range(batch * 1000, batch * 1000 + 500))
            table.append(pa.table({
                "id": pa.array(ids, pa.int64()), "region": [region] * len(ids),
                "amount": pa.array([Decimal(i % 997) / 4 for i in ids], pa.decimal128(10, 2)),
                "ordered_at": pa.array([dt.datetime(2024, 1, 1, tzinfo=UTC) + dt.timedelta(minutes=i) for i in ids], pa.timestamp("us", tz="UTC")),
            }, schema=arrow))

        conn.execute("""CREATE SOURCE lake WITH (connector = 'iceberg', database.name = 'shop', table.name = 'orders',
            warehouse.path = 'lake')""")
        columns = conn.execute("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'lake' ORDER BY ordinal_position").fetchall()
        assert columns == [("id", "bigint"), ("region", "character varying"), ("amount", "numeric"), ("ordered_at", "timestamp with time zone")]

        duck = duckdb_with("avro", "iceberg")
        location = catalog.load_table("shop.orders").metadata_location
        for query in [
            "SELECT count(*), sum(id), sum(amount), min(ordered_at), max(ordered_at) FROM {t}",
            "SELECT region, count(*), sum(amount) FROM {t} GROUP BY region ORDER BY region",
            "SELECT id, amount FROM {t} WHERE region = 'us' AND id % 97 = 0 ORDER BY id",
        ]:
            ours = conn.execute(query.format(t="lake")).fetchall()
            theirs = duck.execute(query.format(t=f"iceberg_scan('{location}')")).fetchall()
            assert [tuple(r) for r in ours] == [tuple(r) for r in theirs], query
        assert _files_read(_status(conn)) == 1  # the last query read one region's file

        # Pruned by column bounds: only the file whose ids reach 3100.
        assert conn.execute("SELECT count(*) FROM lake WHERE id >= 3100").fetchone() == (400,)
        assert _files_read(_status(conn)) == 1
        # A filter that prunes nothing reads everything; one that rules out every file reads none.
        assert conn.execute("SELECT count(*) FROM lake WHERE amount > 0").fetchone()[0] > 0
        assert _files_read(_status(conn)) == 4
        assert conn.execute("SELECT count(*) FROM lake WHERE id < 0").fetchone() == (0,)
        assert _files_read(_status(conn)) == 0

        # New snapshots are seen by the next query.
        table = catalog.load_table("shop.orders")
        table.append(pa.table({"id": pa.array([99999], pa.int64()), "region": ["eu"], "amount": pa.array([Decimal("1.00")], pa.decimal128(10, 2)),
                               "ordered_at": pa.array([None], pa.timestamp("us", tz="UTC"))}, schema=arrow))
        assert conn.execute("SELECT count(*) FROM lake").fetchone() == (2001,)

        # Mistakes are errors at CREATE.
        with pytest.raises(psycopg.Error) as missing:
            conn.execute("CREATE SOURCE nope WITH (connector = 'iceberg', database.name = 'shop', table.name = 'nothing', warehouse.path = 'lake')")
        assert missing.value.sqlstate == "42P01"
        with pytest.raises(psycopg.Error) as wrong:
            conn.execute("CREATE SOURCE nope (id bigint, colour varchar) WITH (connector = 'iceberg', database.name = 'shop', table.name = 'orders', warehouse.path = 'lake')")
        assert wrong.value.sqlstate == "42703"
