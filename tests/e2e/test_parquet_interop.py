"""Our Parquet and Avro files, read by the implementations users have: rows of every type an
Iceberg sink writes (nulls included), in each codec a table can ask for
(`write.parquet.compression-codec`), read back by pyarrow straight from the data files, by
DuckDB's `read_parquet`, and through the table (manifests, Avro) by pyiceberg and DuckDB's
iceberg extension, with the values the test inserted.

The oracle is the Python values the rows were made from, not Sluice's own output."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.rest import RestCatalog

from harness import SluiceServer
from duckdb_support import duckdb_with
from source_support import connect, wait_until

UTC = dt.timezone.utc
COLUMNS = """id int, flag boolean, small smallint, big bigint, real_value real, double_value double precision,
    money numeric(10, 2), any_number numeric, name varchar, payload bytea, day date, clock time, at timestamp,
    at_zone timestamptz, doc jsonb, scores int[], tags varchar[], pair struct<a int, b varchar>"""
ROWS = [
    (1, True, 7, 9_000_000_000, 1.5, 2.25, Decimal("12.34"), Decimal("3.1415926535"), "ann", b"\x00\x01\xff", dt.date(2024, 2, 29),
     dt.time(12, 34, 56, 789000), dt.datetime(2024, 5, 1, 12, 0, 0, 123456), dt.datetime(2024, 5, 1, 10, 0, tzinfo=UTC),
     '{"k": [1, 2]}', [1, 2, 3], ["x", "y"], (1, "one")),
    (2, False, -32768, -1, -0.0, 1e300, Decimal("-99999999.99"), Decimal("0"), "", b"", dt.date(1970, 1, 1),
     dt.time(0, 0), dt.datetime(1969, 12, 31, 23, 59, 59, 999999), dt.datetime(1900, 1, 1, tzinfo=UTC), "null", [], [], (None, None)),
    (3, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None),
    (4, True, 32767, 2**63 - 1, 3.4e38, -2.5, Decimal("0.01"), Decimal("-123456789012345678.0123456789"), "zoë ✓", b"\x7f" * 100,
     dt.date(9999, 12, 31), dt.time(23, 59, 59, 999999), dt.datetime(2262, 4, 11), dt.datetime(2262, 4, 11, tzinfo=UTC),
     '{"a": {"b": null}}', [None, -5], [None, "z"], (-7, None)),
]
CODECS = {"zstd": "ZSTD", "snappy": "SNAPPY", "gzip": "GZIP", "uncompressed": "UNCOMPRESSED"}


def _expected(row: tuple, name: str):
    """A value as the readers give it back."""
    index = ["id", "flag", "small", "big", "real_value", "double_value", "money", "any_number", "name", "payload", "day", "clock", "at",
             "at_zone", "doc", "scores", "tags", "pair"].index(name)
    value = row[index]
    if name == "any_number" and value is not None:
        return value.quantize(Decimal("0.0000000001"))  # numeric is decimal(28, 10) in Iceberg, as in RisingWave
    if name == "pair" and value is not None:
        return {"a": value[0], "b": value[1]}
    return value


def _catalog(server: SluiceServer) -> RestCatalog:
    return RestCatalog("lake", uri=server.catalog_base, credential="root:secret", warehouse="lake",
                       **{"oauth2-server-uri": f"{server.catalog_base}/v1/oauth/tokens"})


def _duckdb() -> duckdb.DuckDBPyConnection:
    con = duckdb_with("avro", "iceberg")
    con.execute("SET TimeZone = 'UTC'")
    return con


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    data = tmp_path_factory.mktemp("parquet") / "data"
    with SluiceServer(data_dir=data) as server, connect(server) as conn:
        conn.execute(f"CREATE TABLE source ({COLUMNS}) APPEND ONLY")
        for row in ROWS:
            pair = "row(%s, %s)" if row[17] is not None else "NULL"
            placeholders = ", ".join(["%s"] * 17 + [pair])
            conn.execute(f"INSERT INTO source VALUES ({placeholders})", list(row[:17]) + list(row[17] or ()))
        sink = """CREATE SINK {name} FROM source WITH (connector = 'iceberg', type = 'append-only', database.name = 'types',
                  table.name = '{name}', warehouse.path = 'lake', commit_checkpoint_interval = '1')"""
        conn.execute(sink.format(name="zstd"))
        catalog = _catalog(server)
        zstd = wait_until(lambda: (t := catalog.load_table("types.zstd")).current_snapshot() and t, 30, "the zstd table's first commit")
        # The other codecs: tables made first, with the codec property, then the sinks into them.
        for codec in ("snappy", "gzip", "uncompressed"):
            catalog.create_table(f"types.{codec}", schema=zstd.schema(), properties={"write.parquet.compression-codec": codec})
            conn.execute(sink.format(name=codec))
        for codec in CODECS:
            wait_until(lambda: catalog.load_table(f"types.{codec}").current_snapshot() is not None, 30, f"the {codec} table's commit")
        yield server, catalog, data


@pytest.mark.parametrize("codec", list(CODECS))
def test_pyarrow_and_duckdb_read_our_data_files(tables, codec: str) -> None:
    server, catalog, data = tables
    files = sorted((data / "warehouse" / "lake" / "types" / codec / "data").glob("*.parquet"))
    assert files
    table = pq.read_table(files)
    assert pq.ParquetFile(files[0]).metadata.row_group(0).column(0).compression == CODECS[codec]
    # Iceberg's field ids are in the schema.
    assert [field.metadata[b"PARQUET:field_id"] for field in table.schema][:3] == [b"1", b"2", b"3"]
    rows = sorted(table.to_pylist(), key=lambda r: r["id"])
    assert len(rows) == len(ROWS)
    for row, expected in zip(rows, ROWS):
        for name in row:
            want = _expected(expected, name)
            got = row[name]
            if name == "at_zone" and got is not None:
                got = got.astimezone(UTC)
            if name == "real_value" and want is not None:
                assert got == pytest.approx(want, rel=1e-6), (name, got, want)
            else:
                assert got == want, (codec, name, got, want)

    con = _duckdb()
    paths = ", ".join(f"'{f}'" for f in files)
    assert con.execute(f"SELECT count(*), sum(big), max(name), min(day), epoch_us(max(at_zone)) FROM read_parquet([{paths}])").fetchone() == (
        4, 9_000_000_000 - 1 + 2**63 - 1, "zoë ✓", dt.date(1970, 1, 1), 9223286400000000)
    assert con.execute(f"SELECT money, any_number, scores, tags, pair FROM read_parquet([{paths}]) WHERE id = 4").fetchone() == (
        Decimal("0.01"), Decimal("-123456789012345678.0123456789"), [None, -5], [None, "z"], {"a": -7, "b": None})


def test_the_tables_read_through_their_manifests(tables) -> None:
    server, catalog, data = tables
    con = _duckdb()
    for codec in CODECS:
        table = catalog.load_table(f"types.{codec}")
        rows = sorted(table.scan().to_arrow().to_pylist(), key=lambda r: r["id"])
        assert [r["name"] for r in rows] == ["ann", "", None, "zoë ✓"]
        assert [r["money"] for r in rows] == [Decimal("12.34"), Decimal("-99999999.99"), None, Decimal("0.01")]
        # DuckDB reads the metadata file, manifest list and manifest (our Avro) itself.
        location = table.metadata_location
        assert con.execute(f"SELECT count(*), sum(id), count(pair) FROM iceberg_scan('{location}')").fetchone() == (4, 10, 3)
        # Column metrics: null counts and bounds in the manifest, as pyiceberg decodes them.
        files = list(table.scan().plan_files())
        stats = files[0].file
        name_id = table.schema().find_field("name").field_id
        assert stats.record_count == 4 and stats.null_value_counts[name_id] == 1
