"""Writes the pyiceberg fixtures the Swift tests read (IcebergFixtureTests.swift).

pyiceberg (0.12) creates a v2 table in a SQLite catalog under /tmp, partitioned by
identity(region) and identity(day), and appends three rows in two partitions (with a decimal
and a timestamptz column, so that the bounds cover those encodings too). This copies the
snapshot's manifest list and its one manifest here as `manifest-list.avro` and `manifest.avro`,
and writes `expected.json`: the same two files as pyiceberg's own reader sees them, which the
Swift tests compare with what Sluice's reader sees.

Run with a Python that has pyiceberg, pyarrow and sqlalchemy:
    python make_fixtures.py
Snapshot ids and file names are random, so every run changes all three files together.
"""
import datetime
import json
import os
import shutil

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.manifest import read_manifest_list
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from decimal import Decimal

from pyiceberg.conversions import from_bytes
from pyiceberg.types import DateType, DecimalType, LongType, NestedField, StringType, TimestamptzType

here = os.path.dirname(os.path.abspath(__file__))
warehouse = "/tmp/sluice-iceberg-fixtures"
shutil.rmtree(warehouse, ignore_errors=True)
os.makedirs(warehouse)

catalog = SqlCatalog("fixtures", uri=f"sqlite:///{warehouse}/catalog.db", warehouse=f"file://{warehouse}")
catalog.create_namespace("ns")
schema = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "name", StringType(), required=False),
    NestedField(3, "region", StringType(), required=False),
    NestedField(4, "day", DateType(), required=False),
    NestedField(5, "price", DecimalType(10, 2), required=False),
    NestedField(6, "at", TimestamptzType(), required=False),
)
spec = PartitionSpec(
    PartitionField(source_id=3, field_id=1000, transform=IdentityTransform(), name="region"),
    PartitionField(source_id=4, field_id=1001, transform=IdentityTransform(), name="day"),
)
table = catalog.create_table("ns.t", schema=schema, partition_spec=spec)
day = datetime.date(2024, 5, 1)
table.append(pa.table({
    "id": pa.array([1, 2, 3], pa.int64()),
    "name": pa.array(["a", "b", None], pa.string()),
    "region": pa.array(["eu", "eu", "us"], pa.string()),
    "day": pa.array([day, day, day], pa.date32()),
    "price": pa.array([Decimal("1.50"), Decimal("-2.25"), None], pa.decimal128(10, 2)),
    "at": pa.array([datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc)] * 3, pa.timestamp("us", tz="UTC")),
}))

io = PyArrowFileIO()
snapshot = table.current_snapshot()
manifest_files = list(read_manifest_list(io.new_input(snapshot.manifest_list)))
assert len(manifest_files) == 1
shutil.copy(snapshot.manifest_list.removeprefix("file://"), os.path.join(here, "manifest-list.avro"))
shutil.copy(manifest_files[0].manifest_path.removeprefix("file://"), os.path.join(here, "manifest.avro"))


def decoded_bounds(value):
    """Bounds as pyiceberg decodes them (Appendix D), rendered as text."""
    if value is None:
        return None
    return {str(key): str(from_bytes(schema.find_type(key), val)) for key, val in sorted(value.items())}


def id_map(value):
    return None if value is None else {str(key): (val.hex() if isinstance(val, bytes) else val) for key, val in sorted(value.items())}


def days_since_epoch(value):
    """A date partition value as the days Avro stores (pyiceberg may give a date or the int)."""
    if isinstance(value, datetime.date):
        return (value - datetime.date(1970, 1, 1)).days
    return value


manifest = manifest_files[0]
expected = {
    "snapshot_id": snapshot.snapshot_id,
    "sequence_number": snapshot.sequence_number,
    "manifest_list": {
        "manifest_path": manifest.manifest_path,
        "manifest_length": manifest.manifest_length,
        "partition_spec_id": manifest.partition_spec_id,
        "content": int(manifest.content),
        "sequence_number": manifest.sequence_number,
        "min_sequence_number": manifest.min_sequence_number,
        "added_snapshot_id": manifest.added_snapshot_id,
        "added_files_count": manifest.added_files_count,
        "existing_files_count": manifest.existing_files_count,
        "deleted_files_count": manifest.deleted_files_count,
        "added_rows_count": manifest.added_rows_count,
        "existing_rows_count": manifest.existing_rows_count,
        "deleted_rows_count": manifest.deleted_rows_count,
        "partitions": [
            {"contains_null": p.contains_null, "contains_nan": p.contains_nan,
             "lower_bound": p.lower_bound.hex() if p.lower_bound else None,
             "upper_bound": p.upper_bound.hex() if p.upper_bound else None}
            for p in manifest.partitions
        ],
    },
    "entries": [],
}
for entry in manifest.fetch_manifest_entry(io, discard_deleted=False):
    data_file = entry.data_file
    expected["entries"].append({
        "status": int(entry.status),
        "snapshot_id": entry.snapshot_id,
        "sequence_number": entry.sequence_number,
        "file_sequence_number": entry.file_sequence_number,
        "content": int(data_file.content),
        "file_path": data_file.file_path,
        "file_format": str(data_file.file_format.value),
        "partition": [data_file.partition[0], days_since_epoch(data_file.partition[1])],
        "record_count": data_file.record_count,
        "file_size_in_bytes": data_file.file_size_in_bytes,
        "column_sizes": id_map(data_file.column_sizes),
        "value_counts": id_map(data_file.value_counts),
        "null_value_counts": id_map(data_file.null_value_counts),
        "nan_value_counts": id_map(data_file.nan_value_counts),
        "lower_bounds": id_map(data_file.lower_bounds),
        "upper_bounds": id_map(data_file.upper_bounds),
        "decoded_lower_bounds": decoded_bounds(data_file.lower_bounds),
        "decoded_upper_bounds": decoded_bounds(data_file.upper_bounds),
        "split_offsets": data_file.split_offsets,
        "sort_order_id": data_file.sort_order_id,
    })
with open(os.path.join(here, "expected.json"), "w") as out:
    json.dump(expected, out, indent=1, sort_keys=True)
print(json.dumps(expected, indent=1, sort_keys=True))
