"""`catalog.type = 'storage'`: a sink and a source with no catalog service, the table's metadata
kept in the warehouse's folders as Iceberg's Hadoop catalog keeps it (`metadata/v<N>.metadata.json`
and `metadata/version-hint.text`), on the local disk and on a local S3 server (moto).

Readers that know the layout read the table without Sluice: DuckDB's `iceberg_scan` on the
table's folder (it follows the version hint), and pyiceberg's `StaticTable` on the metadata file
the hint names. The oracle is the rows inserted, by hand."""

from __future__ import annotations

from pathlib import Path

import duckdb
from pyiceberg.table import StaticTable

from harness import MotoServer, SluiceServer
from harness.moto_server import ACCESS_KEY, REGION, SECRET_KEY
from duckdb_support import duckdb_with
from source_support import connect, wait_until

EXPECTED = [(i, f"name {i}", i * 1.5) for i in range(1, 301)]


def _duckdb(s3: MotoServer | None) -> duckdb.DuckDBPyConnection:
    con = duckdb_with("iceberg", "avro", "httpfs")
    if s3 is not None:
        con.execute(f"CREATE SECRET lake (TYPE s3, KEY_ID '{ACCESS_KEY}', SECRET '{SECRET_KEY}', REGION '{REGION}', "
                    f"ENDPOINT '{s3.host}:{s3.port}', URL_STYLE 'path', USE_SSL false)")
    return con


def _run(server: SluiceServer, warehouse: str, s3: MotoServer | None, read_text) -> None:
    s3_options = ""
    if s3 is not None:
        s3_options = (f", s3.endpoint = '{s3.endpoint}', s3.region = '{REGION}', s3.access.key = '{ACCESS_KEY}', "
                      f"s3.secret.key = '{SECRET_KEY}', s3.path.style.access = 'true'")
    with connect(server) as conn:
        conn.execute("CREATE TABLE t (id int, name varchar, score double precision) APPEND ONLY")
        conn.execute(f"""CREATE SINK s FROM t WITH (connector = 'iceberg', type = 'append-only', catalog.type = 'storage',
            warehouse.path = '{warehouse}', database.name = 'db', table.name = 'scores', commit_checkpoint_interval = '1'{s3_options})""")
        for start in (1, 101, 201):
            conn.execute("INSERT INTO t SELECT g, 'name ' || g, g * 1.5 FROM generate_series(%s, %s) AS g", (start, start + 99))
            conn.execute("FLUSH")
        wait_until(lambda: conn.execute("SELECT rows FROM sluice_sinks").fetchone()[0] >= 300, 30, "the sink to commit every row")
        assert conn.execute("SELECT last_error FROM sluice_sinks").fetchone() == (None,)

        table_folder = f"{warehouse.rstrip('/')}/db/scores"
        version = int(read_text(f"{table_folder}/metadata/version-hint.text"))
        assert version >= 2, "created, then committed"
        con = _duckdb(s3)
        assert sorted(con.execute(f"SELECT id, name, score FROM iceberg_scan('{table_folder}')").fetchall()) == EXPECTED
        static = StaticTable.from_metadata(
            f"{table_folder}/metadata/v{version}.metadata.json",
            properties={} if s3 is None else {"s3.endpoint": s3.endpoint, "s3.access-key-id": ACCESS_KEY,
                                              "s3.secret-access-key": SECRET_KEY, "s3.region": REGION})
        assert sorted((r["id"], r["name"], r["score"]) for r in static.scan().to_arrow().to_pylist()) == EXPECTED

        # And back through a source over the same storage catalog.
        conn.execute(f"""CREATE SOURCE back WITH (connector = 'iceberg', catalog.type = 'storage', warehouse.path = '{warehouse}',
            database.name = 'db', table.name = 'scores'{s3_options})""")
        assert sorted(conn.execute("SELECT id, name, score FROM back").fetchall()) == EXPECTED
        # A storage catalog needs a warehouse folder.
        try:
            conn.execute("CREATE SINK bad FROM t WITH (connector = 'iceberg', type = 'append-only', catalog.type = 'storage', "
                         "database.name = 'db', table.name = 'x')")
            raise AssertionError("a storage catalog without warehouse.path was accepted")
        except Exception as error:  # noqa: BLE001 - the SQLSTATE is the assertion
            assert getattr(error, "sqlstate", None) == "22023", error


def test_storage_catalog_on_local_disk(tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse"
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--barrier-interval-ms", "100"]) as server:
        _run(server, f"file://{warehouse}", None, lambda location: Path(location.removeprefix("file://")).read_text())


def test_storage_catalog_on_s3(tmp_path: Path) -> None:
    with MotoServer() as s3:
        s3.create_bucket("lake")
        client = s3.client()

        def read_text(location: str) -> str:
            bucket, _, key = location.removeprefix("s3://").partition("/")
            return client.get_object(Bucket=bucket, Key=key)["Body"].read().decode()

        with SluiceServer(data_dir=tmp_path / "data", extra_args=["--barrier-interval-ms", "100"]) as server:
            _run(server, "s3://lake/warehouse", s3, read_text)
