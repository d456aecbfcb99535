"""Writes the pyiceberg-made table that IcebergPyicebergFixtureTests reads.

Run with pyiceberg 0.12 and pyarrow (the repository's probe environment):

    /tmp/pyprobe/bin/python Tests/IcebergScanTests/Fixtures/make_fixtures.py

pyiceberg records absolute locations in metadata files, manifest lists and manifests. The
table is therefore written under the fixed prefix PREFIX and then copied into
Fixtures/pyiceberg/events; `expected.json` records the table location, and the test maps
that location prefix onto the copied directory with a path-rewriting FileIO.

The history: a v2 table partitioned by day(ts) and identity(category); an append; a schema
change (add `note`, rename `amount` to `price`); a second append; a delete by predicate
(pyiceberg 0.12 deletes copy-on-write: it drops or rewrites data files, no delete files); an
overwrite of one category. `expected.json` holds pyiceberg's own scan of the final snapshot
and of a few filtered scans (row ids and the number of files pyiceberg planned).
"""

import datetime
import json
import os
import shutil

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.expressions import And, EqualTo, GreaterThan, GreaterThanOrEqual, IsNull, LessThan
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import DayTransform, IdentityTransform
from pyiceberg.types import DoubleType, IntegerType, LongType, NestedField, StringType, TimestampType

PREFIX = "/tmp/sluice-pyiceberg-fixture"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "pyiceberg")

shutil.rmtree(PREFIX, ignore_errors=True)
os.makedirs(PREFIX)
catalog = SqlCatalog("fixture", uri=f"sqlite:///{PREFIX}/catalog.db", warehouse=f"file://{PREFIX}/warehouse")
catalog.create_namespace("db")

schema = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "ts", TimestampType(), required=False),
    NestedField(3, "category", StringType(), required=False),
    NestedField(4, "amount", DoubleType(), required=False),
    NestedField(5, "qty", IntegerType(), required=False),
)
spec = PartitionSpec(
    PartitionField(source_id=2, field_id=1000, transform=DayTransform(), name="ts_day"),
    PartitionField(source_id=3, field_id=1001, transform=IdentityTransform(), name="category"),
)
table = catalog.create_table("db.events", schema=schema, partition_spec=spec, properties={"format-version": "2"})


def ts(day, hour):
    return datetime.datetime(2024, 1, day, hour, 0, 0)


first = pa.Table.from_pylist(
    [
        {"id": i, "ts": ts(1 + i % 3, i % 24), "category": ["a", "b", "c"][i % 3], "amount": i * 1.5, "qty": i % 7}
        for i in range(1, 13)
    ],
    schema=pa.schema([
        ("id", pa.int64()), ("ts", pa.timestamp("us")), ("category", pa.string()), ("amount", pa.float64()), ("qty", pa.int32()),
    ]),
)
table.append(first)

with table.update_schema() as update:
    update.add_column("note", StringType())
    update.rename_column("amount", "price")

second = pa.Table.from_pylist(
    [
        {"id": i, "ts": ts(4 + i % 2, i % 24), "category": ["a", "d"][i % 2], "price": i * 0.25, "qty": None, "note": f"n{i}" if i % 3 else None}
        for i in range(13, 21)
    ],
    schema=pa.schema([
        ("id", pa.int64()), ("ts", pa.timestamp("us")), ("category", pa.string()), ("price", pa.float64()), ("qty", pa.int32()),
        ("note", pa.string()),
    ]),
)
table.append(second)

# Copy-on-write: rewrites the files of the partitions holding ids 4 and 14.
table.delete(EqualTo("id", 4))
table.delete(EqualTo("id", 14))

replacement = pa.Table.from_pylist(
    [{"id": 100 + i, "ts": ts(2, i), "category": "b", "price": 9.0 + i, "qty": i, "note": "replaced"} for i in range(3)],
    schema=second.schema,
)
table.overwrite(replacement, overwrite_filter=EqualTo("category", "b"))
table = catalog.load_table("db.events")


def as_json_rows(arrow_table):
    rows = []
    for row in arrow_table.to_pylist():
        out = dict(row)
        if out.get("ts") is not None:
            out["ts"] = int((out["ts"] - datetime.datetime(1970, 1, 1)) / datetime.timedelta(microseconds=1))
        rows.append(out)
    return sorted(rows, key=lambda r: r["id"])


filters = {
    "id_gt_15": GreaterThan("id", 15),
    "ts_before_jan3": LessThan("ts", "2024-01-03T00:00:00"),
    "category_a_from_jan4": And(EqualTo("category", "a"), GreaterThanOrEqual("ts", "2024-01-04T00:00:00")),
    "note_is_null": IsNull("note"),
}
expected = {
    "location": table.metadata.location,
    "metadata": os.path.relpath(table.metadata_location.removeprefix("file://"), table.metadata.location.removeprefix("file://")),
    "snapshot_count": len(table.metadata.snapshots),
    # Time travel: the first snapshot, before the schema change (its schema lacks `note`).
    "first_snapshot": {
        "id": table.metadata.snapshots[0].snapshot_id,
        "ids": sorted(r["id"] for r in table.scan(snapshot_id=table.metadata.snapshots[0].snapshot_id).to_arrow().to_pylist()),
    },
    "data_files": len(table.scan().plan_files()),
    "rows": as_json_rows(table.scan().to_arrow()),
    "filters": {
        name: {
            "ids": sorted(r["id"] for r in table.scan(row_filter=expression).to_arrow().to_pylist()),
            "planned_files": len(table.scan(row_filter=expression).plan_files()),
        }
        for name, expression in filters.items()
    },
}

shutil.rmtree(OUT, ignore_errors=True)
shutil.copytree(table.metadata.location.removeprefix("file://"), os.path.join(OUT, "events"))
with open(os.path.join(OUT, "expected.json"), "w") as file:
    json.dump(expected, file, indent=1, sort_keys=True)
    file.write("\n")
print(json.dumps({k: v for k, v in expected.items() if k != "rows"}, indent=1))
