"""`file_scan(…)` as RisingWave has it: a query reads Parquet, CSV and JSON-lines files on local
disk or S3 (moto's server) without a source, the columns taken from the files. The oracle is
DuckDB reading the same files; pyarrow and DuckDB write them."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
import pyarrow as pa
import pyarrow.parquet as pq

from duckdb_support import duckdb_with
from harness import MotoServer, SluiceServer
from source_support import connect, statement_error as _error

ARGS = ["--barrier-interval-ms", "100"]


def _write(root: Path) -> None:
    root.mkdir()
    for part in range(3):
        ids = list(range(part * 100, part * 100 + 100))
        pq.write_table(pa.table({"id": pa.array(ids, pa.int64()), "name": [f"n{i % 7}" for i in ids],
                                 "score": pa.array([i * 0.5 for i in ids], pa.float64())}), root / f"part-{part}.parquet")
    oracle = duckdb_with()
    oracle.execute(f"COPY (SELECT * FROM read_parquet('{root}/*.parquet')) TO '{root}/all.csv' (HEADER)")
    with open(root / "all.jsonl", "w") as out:
        for row in oracle.execute(f"SELECT id, name, score FROM read_parquet('{root}/*.parquet') ORDER BY id").fetchall():
            out.write(json.dumps({"id": row[0], "name": row[1], "score": row[2], "tags": [row[1]]}) + "\n")


def test_local_parquet_csv_and_json_files_read_as_duckdb_reads_them(tmp_path: Path) -> None:
    root = tmp_path / "files"
    _write(root)
    oracle = duckdb_with()
    expected = sorted(oracle.execute(f"SELECT id, name, score FROM read_parquet('{root}/*.parquet')").fetchall())
    with SluiceServer(data_dir=tmp_path / "data", extra_args=ARGS) as server, connect(server) as conn:
        # One file, a glob, a folder (its CSV and JSON files are not Parquet: a glob keeps to the Parquet ones).
        one = sorted(conn.execute(f"SELECT id, name, score FROM file_scan('parquet', 'posix_fs', '{root}/part-1.parquet')").fetchall())
        assert one == [row for row in expected if 100 <= row[0] < 200]
        assert sorted(conn.execute(f"SELECT * FROM file_scan('parquet', 'posix_fs', '{root}/*.parquet')").fetchall()) == expected
        cursor = conn.execute(f"SELECT * FROM file_scan('parquet', 'posix_fs', '{root}/part-0.parquet') LIMIT 0")
        assert [column.name for column in cursor.description] == ["id", "name", "score"]
        # An aggregate over the files equals DuckDB's.
        query = "SELECT name, count(*), sum(score) FROM {} GROUP BY name ORDER BY name"
        assert conn.execute(query.format(f"file_scan('parquet', 'posix_fs', '{root}/*.parquet')")).fetchall() == \
            oracle.execute(query.format(f"read_parquet('{root}/*.parquet')")).fetchall()
        # CSV: the header's names, as text; DuckDB's CSV.
        csv_rows = conn.execute(f"SELECT id::bigint, name, score::float8 FROM file_scan('csv', 'posix_fs', '{root}/all.csv')").fetchall()
        assert sorted(csv_rows) == sorted(oracle.execute(f"SELECT id, name, score FROM read_csv('{root}/all.csv')").fetchall())
        # JSON lines: the first line's keys, typed by their values.
        cursor = conn.execute(f"SELECT id, name, score, tags FROM file_scan('json', 'posix_fs', '{root}/all.jsonl') ORDER BY id")
        assert [(c.name, c.type_code) for c in cursor.description] == [("id", 20), ("name", 1043), ("score", 701), ("tags", 3802)]
        json_rows = cursor.fetchall()
        assert [(r[0], r[1], r[2]) for r in json_rows] == sorted(expected)
        assert all(r[3] == [r[1]] for r in json_rows)
        # It reads the files as they are now: a new one is seen by the next query.
        pq.write_table(pa.table({"id": pa.array([1000], pa.int64()), "name": ["late"], "score": [1.0]}), root / "part-9.parquet")
        assert conn.execute(f"SELECT count(*) FROM file_scan('parquet', 'posix_fs', '{root}/*.parquet')").fetchone() == (301,)
        # Into a table: INSERT … SELECT and CREATE TABLE AS.
        conn.execute(f"CREATE TABLE loaded AS SELECT * FROM file_scan('parquet', 'posix_fs', '{root}/*.parquet')")
        assert conn.execute("SELECT count(*), max(id) FROM loaded").fetchone() == (301, 1000)

        # Mistakes are errors with the right codes, and the server goes on.
        assert _error(conn, f"CREATE MATERIALIZED VIEW v AS SELECT * FROM file_scan('parquet', 'posix_fs', '{root}/*.parquet')").sqlstate == "0A000"
        assert _error(conn, f"SELECT * FROM file_scan('orc', 'posix_fs', '{root}/x')").sqlstate == "22023"
        assert _error(conn, f"SELECT * FROM file_scan('parquet', 'gcs', '{root}/x')").sqlstate == "22023"
        assert _error(conn, "SELECT * FROM file_scan('parquet', 'posix_fs', 'relative/path')").sqlstate == "22023"
        assert _error(conn, f"SELECT * FROM file_scan('parquet', 'posix_fs', '{root}/none-*.parquet')").sqlstate == "HV00R"
        assert _error(conn, f"SELECT * FROM file_scan('parquet', 'posix_fs', '{root}/all.csv')").sqlstate is not None
        assert _error(conn, "SELECT * FROM file_scan('parquet', 'posix_fs')").sqlstate == "42883"
        assert _error(conn, "SELECT * FROM file_scan('parquet', 'posix_fs', 1)").sqlstate == "22023"
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_s3_files_through_moto(tmp_path: Path) -> None:
    root = tmp_path / "files"
    _write(root)
    with MotoServer() as moto:
        s3 = boto3.client("s3", endpoint_url=moto.endpoint, aws_access_key_id="key", aws_secret_access_key="secret", region_name="us-east-1")
        s3.create_bucket(Bucket="lake")
        for part in range(3):
            s3.upload_file(str(root / f"part-{part}.parquet"), "lake", f"scores/part-{part}.parquet")
        s3.put_object(Bucket="lake", Key="other/part-9.parquet", Body=(root / "part-0.parquet").read_bytes())
        with SluiceServer(data_dir=tmp_path / "data", extra_args=ARGS) as server, connect(server) as conn:
            # RisingWave's six arguments, the region given as the store's endpoint.
            folder = conn.execute(f"""SELECT count(*), sum(id) FROM file_scan('parquet', 's3', '{moto.endpoint}', 'key', 'secret',
                's3://lake/scores/')""").fetchone()
            assert folder == (300, sum(range(300)))
            one = conn.execute(f"""SELECT count(*), min(id) FROM file_scan('parquet', 's3', 'us-east-1', 'key', 'secret',
                's3://lake/scores/part-2.parquet', '{moto.endpoint}')""").fetchone()
            assert one == (100, 200)
            bad = _error(conn, f"SELECT * FROM file_scan('parquet', 's3', '{moto.endpoint}', 'key', 'secret', 'lake/scores/')")
            assert bad.sqlstate == "22023"
