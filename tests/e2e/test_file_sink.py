"""File sinks (`connector = 'fs'`) as RisingWave writes them: Parquet, JSON lines and CSV files
that DuckDB and pyarrow read back with the same values, Hive-style partition folders, the
option errors every connector gives, and exactly once across kill -9 (at random moments and
between the write of a file and its rename).

The oracle for values is the table the sink reads, queried over the wire; the files are read by
DuckDB and pyarrow, not by Sluice."""

from __future__ import annotations

import random
import time
from collections import Counter
from pathlib import Path

import psycopg
import pyarrow.dataset as ds
import pytest

from duckdb_support import duckdb_with
from harness import SluiceServer
from source_support import connect, statement_error as _error, wait_until


def _visible_files(root: Path, suffix: str) -> list[Path]:
    return sorted(p for p in root.rglob(f"*.{suffix}") if ".sluice-staging" not in p.parts)


ROWS = [
    (1, "buy", "sword", 10.5, True, "2026-11-26 10:00:00"),
    (2, "join", "guild, the \"first\"", None, False, "2026-11-26 10:00:01"),
    (3, "buy", None, 2.25, None, "2026-11-26 10:00:02"),
    (4, "quit", "line\nbreak", -1.0, True, None),
    (5, "join", "", 0.0, False, "2026-11-27 00:00:00"),
]


def _load(conn: psycopg.Connection) -> None:
    conn.execute("CREATE TABLE events (id bigint, kind varchar, item varchar, price double precision, ok boolean, ts timestamp)")
    conn.cursor().executemany("INSERT INTO events VALUES (%s, %s, %s, %s, %s, %s)", ROWS)


def test_parquet_files_partitioned_by_a_column_read_back_by_duckdb_and_pyarrow(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--barrier-interval-ms", "100"]) as server, connect(server) as conn:
        _load(conn)
        conn.execute(f"""CREATE SINK files FROM events WITH (connector = 'fs', fs.path = '{out}', type = 'append-only', force_append_only = 'true',
            rollover_seconds = '1', partition_by = 'kind', success_file = 'true') FORMAT PLAIN ENCODE PARQUET""")
        expected = sorted(conn.execute("SELECT id, kind, item, price, ok, ts FROM events").fetchall())

        def landed() -> bool:
            con = duckdb_with()
            files = _visible_files(out, "parquet")
            if not files:
                return False
            return con.execute(f"SELECT count(*) FROM read_parquet('{out}/**/*.parquet', hive_partitioning = 1)").fetchone()[0] == len(ROWS)
        assert wait_until(landed, 30, "the sink's files to hold every row")
        con = duckdb_with()
        got = con.execute(f"""SELECT id, kind, item, price, ok, ts FROM read_parquet('{out}/**/*.parquet', hive_partitioning = 1)
            ORDER BY id""").fetchall()
        assert sorted(got) == expected
        # One folder per kind, Hive-style, each with its _SUCCESS; the partition column is in
        # the folder name, not in the files.
        assert sorted(p.name for p in out.iterdir() if p.is_dir() and not p.name.startswith(".")) == ["kind=buy", "kind=join", "kind=quit"]
        assert all((out / name / "_SUCCESS").exists() for name in ("kind=buy", "kind=join", "kind=quit"))
        assert "kind" not in con.execute(f"SELECT * FROM read_parquet('{_visible_files(out, 'parquet')[0]}') LIMIT 0").description[0]
        table = ds.dataset(str(out), format="parquet", partitioning="hive").to_table()
        assert sorted(table.column("id").to_pylist()) == [1, 2, 3, 4, 5]
        by_id = {row["id"]: row for row in table.to_pylist()}
        assert by_id[2]["item"] == 'guild, the "first"' and by_id[2]["price"] is None and by_id[2]["kind"] == "join"

        # Rows inserted later land in new files; none is written twice.
        conn.execute("INSERT INTO events VALUES (6, 'buy', 'shield', 3.0, true, '2026-11-26 11:00:00')")
        assert wait_until(lambda: duckdb_with().execute(
            f"SELECT count(*) FROM read_parquet('{out}/**/*.parquet')").fetchone()[0] == len(ROWS) + 1, 30, "the new row's file")
        assert conn.execute("SELECT files > 0, rows FROM sluice_sinks WHERE name = 'files'").fetchone() == (True, 6)


def test_many_partitions_in_one_epoch_keep_files_and_buffers_bounded(tmp_path: Path) -> None:
    """600 partitions in one statement (6,000 rows) under a 64 MB memory limit: at most 512 files are open at
    once (an older one is finished for a new folder) and their row groups go out past the
    sink's buffer share, so the rows land in more files than partitions, every row once."""
    out = tmp_path / "out"
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--barrier-interval-ms", "100", "--memory-limit", "64MB"]) as server, \
            connect(server) as conn:
        conn.execute("CREATE TABLE wide (id bigint, k int, payload varchar) APPEND ONLY")
        conn.execute(f"""CREATE SINK parts FROM wide WITH (connector = 'fs', fs.path = '{out}', type = 'append-only',
            rollover_seconds = '1', partition_by = 'k') FORMAT PLAIN ENCODE PARQUET""")
        conn.execute("INSERT INTO wide SELECT g, g % 600, repeat('x', 200) || g FROM generate_series(1, 6000) AS g")
        conn.execute("FLUSH")

        def landed() -> bool:
            if not _visible_files(out, "parquet"):
                return False
            return duckdb_with().execute(f"SELECT count(*) FROM read_parquet('{out}/**/*.parquet', hive_partitioning = 1)").fetchone()[0] == 6000
        # Files still open at the barriers are finished by their rollover a second on.
        assert wait_until(landed, 60, "every row in the partitions' files")
        con = duckdb_with()
        rows = con.execute(f"""SELECT count(*), count(DISTINCT id), count(DISTINCT k), bool_and(id % 600 = k::bigint)
            FROM read_parquet('{out}/**/*.parquet', hive_partitioning = 1)""").fetchone()
        assert rows == (6000, 6000, 600, True)
        assert len(_visible_files(out, "parquet")) > 600
        assert conn.execute("SELECT last_error FROM sluice_sinks WHERE name = 'parts'").fetchone() == (None,)


@pytest.mark.parametrize("encode", ["JSON", "CSV"])
def test_json_and_csv_files_read_back_by_duckdb(tmp_path: Path, encode: str) -> None:
    out = tmp_path / "out"
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--barrier-interval-ms", "100"]) as server, connect(server) as conn:
        _load(conn)
        conn.execute(f"""CREATE SINK files FROM events WITH (connector = 'fs', fs.path = '{out}', type = 'append-only', force_append_only = 'true',
            rollover_seconds = '1') FORMAT PLAIN ENCODE {encode}""")
        expected = sorted(conn.execute("SELECT id, kind, item, price, ok, ts FROM events").fetchall())
        suffix = encode.lower()
        reader = (f"read_json('{out}/*.json', format = 'newline_delimited', columns = {{id: 'BIGINT', kind: 'VARCHAR', item: 'VARCHAR', "
                  "price: 'DOUBLE', ok: 'BOOLEAN', ts: 'TIMESTAMP'})") if encode == "JSON" else \
                 (f"read_csv('{out}/*.csv', header = true, columns = {{id: 'BIGINT', kind: 'VARCHAR', item: 'VARCHAR', price: 'DOUBLE', "
                  "ok: 'BOOLEAN', ts: 'TIMESTAMP'}, nullstr = '', allow_quoted_nulls = false)")
        assert wait_until(lambda: bool(_visible_files(out, suffix)) and duckdb_with().execute(f"SELECT count(*) FROM {reader}").fetchone()[0] == len(ROWS),
                          30, "the sink's files to hold every row")
        got = duckdb_with().execute(f"SELECT id, kind, item, price, ok, ts FROM {reader}").fetchall()
        assert sorted(got) == expected


def test_mistakes_in_a_file_sink_are_errors_at_create(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as conn:
        _load(conn)
        base = f"connector = 'fs', fs.path = '{out}', type = 'append-only', force_append_only = 'true'"
        error = _error(conn, f"CREATE SINK s FROM events WITH ({base}, rollover_secs = '5') FORMAT PLAIN ENCODE PARQUET")
        assert error.sqlstate == "42601"
        assert 'unknown option "rollover_secs"' in str(error)
        # The closest option leads the list.
        assert 'Did you mean "rollover_seconds"' in error.diag.message_hint
        assert error.diag.message_hint.index("rollover_seconds") < error.diag.message_hint.index("max_row_count")
        error = _error(conn, f"CREATE SINK s FROM events WITH ({base}, rollover_seconds = 'soon') FORMAT PLAIN ENCODE PARQUET")
        assert error.sqlstate == "22023" and "rollover_seconds" in str(error)
        error = _error(conn, "CREATE SINK s FROM events WITH (connector = 'fs', type = 'append-only', force_append_only = 'true') FORMAT PLAIN ENCODE PARQUET")
        assert error.sqlstate == "42601" and '"fs.path"' in str(error)
        assert _error(conn, f"CREATE SINK s FROM events WITH ({base}) FORMAT PLAIN ENCODE AVRO").sqlstate == "0A000"
        assert _error(conn, f"CREATE SINK s FROM events WITH ({base}) FORMAT PLAIN ENCODE CSV (delimiter = ';;')").sqlstate == "22023"
        assert _error(conn, f"CREATE SINK s FROM events WITH ({base}) FORMAT PLAIN ENCODE CSV (header = 'false')").sqlstate == "42601"
        assert _error(conn, f"CREATE SINK s FROM events WITH ({base}, partition_by = 'nope') FORMAT PLAIN ENCODE PARQUET").sqlstate == "42703"
        assert _error(conn, f"CREATE SINK s FROM events WITH ({base})").sqlstate == "42601"
        assert _error(conn, "CREATE SINK s FROM events WITH (connector = 'fs', fs.path = 'relative/dir', type = 'append-only', force_append_only = 'true') FORMAT PLAIN ENCODE JSON").sqlstate == "22023"
        # Every connector checks its options the same way.
        assert _error(conn, "CREATE SINK s FROM events WITH (connector = 'blackhole', colour = 'red')").sqlstate == "42601"
        error = _error(conn, """CREATE SOURCE k (v int) WITH (connector = 'kafka', topik = 't', properties.bootstrap.server = 'localhost:1')
            FORMAT PLAIN ENCODE JSON""")
        assert error.sqlstate == "42601" and 'Did you mean "topic"' in error.diag.message_hint
        assert _error(conn, "CREATE SOURCE g (v int) WITH (connector = 'datagen', datagen.rows.per.second = 'fast')").sqlstate == "22023"
        assert conn.execute("SHOW SINKS").fetchall() == []
        assert not _visible_files(out, "parquet")


# While files are open every barrier (50 ms) prepares and commits, so the failpoints are armed
# for a later hit: the restarted server must first accept connections and take new rows.
ROUNDS = [None, "file-sink-mid-commit@2", None, "sink-after-prepare@40", None, "sink-before-commit@40", None, "sink-after-commit@40", None]
PER_ROUND = 400


def test_kills_lose_and_repeat_no_row_of_a_file_sink(tmp_path: Path) -> None:
    """A table feeds a partitioned Parquet sink; the server is killed at random moments and at
    the failpoints between a file's write and its rename. Every acknowledged INSERT's rows end
    up in the files exactly once, as DuckDB counts them."""
    data, out = tmp_path / "data", tmp_path / "out"
    rng = random.Random(20261126)
    args = ["--barrier-interval-ms", "50"]
    inserted: set[int] = set()
    next_id = 0

    def insert_some(server: SluiceServer, count: int) -> None:
        nonlocal next_id
        try:
            with connect(server) as conn:
                for _ in range(count // 20):
                    ids = list(range(next_id, next_id + 20))
                    next_id += 20
                    conn.execute("INSERT INTO ev SELECT i, 'k' || (i %% 3)::varchar FROM unnest(%s::bigint[]) AS i", (ids,))
                    inserted.update(ids)
        except psycopg.Error:
            pass  # the server died mid-statement: what was acknowledged is in `inserted`

    for round_number, failpoint in enumerate(ROUNDS):
        env = {"SLUICE_FAILPOINT": failpoint} if failpoint else None
        with SluiceServer(data_dir=data, extra_args=args, env=env, may_die_at_start=env is not None) as server:
            if round_number == 0:
                with connect(server) as conn:
                    conn.execute("CREATE TABLE ev (id bigint, kind varchar)")
                    conn.execute(f"""CREATE SINK s FROM ev WITH (connector = 'fs', fs.path = '{out}', type = 'append-only', force_append_only = 'true',
                        rollover_seconds = '1', max_row_count = '150', partition_by = 'kind') FORMAT PLAIN ENCODE PARQUET""")
            if failpoint:
                def died() -> bool:
                    if server.process.poll() is None:
                        insert_some(server, 40)
                    return server.process.poll() is not None
                wait_until(died, 60, f"the server to die at {failpoint}")
            else:
                insert_some(server, PER_ROUND)
                time.sleep(rng.uniform(0.05, 1.5))
                server.kill()
                server.process.wait(timeout=10)

    with SluiceServer(data_dir=data, extra_args=args) as server:
        def complete() -> list[int] | None:
            if not _visible_files(out, "parquet"):
                return None
            ids = [row[0] for row in duckdb_with().execute(f"SELECT id FROM read_parquet('{out}/**/*.parquet')").fetchall()]
            repeated = [i for i, n in Counter(ids).items() if n > 1]
            assert not repeated, f"rows in the files more than once: {repeated[:10]}"
            return ids if inserted <= set(ids) else None
        ids = wait_until(complete, 60, f"all {len(inserted)} acknowledged rows in the files")
        assert set(ids) <= set(range(next_id))
        kinds = duckdb_with().execute(f"""SELECT count(*) FROM read_parquet('{out}/**/*.parquet', hive_partitioning = 1)
            WHERE kind <> 'k' || (id % 3)::varchar""").fetchone()[0]
        assert kinds == 0
        with connect(server) as conn:
            assert conn.execute("SELECT last_error FROM sluice_sinks WHERE name = 's'").fetchone() == (None,)


def test_s3_sink_through_moto_uploads_at_commit_exactly_once(tmp_path: Path) -> None:
    """connector = 's3' as a sink: files staged locally, uploaded when their checkpoint commits,
    partitioned like the local sink; killed between two uploads of a commit and restarted, the
    bucket holds every row once, as pyarrow reads the objects."""
    import io

    import boto3
    import pyarrow.parquet as pq

    from harness import MotoServer

    with MotoServer() as moto:
        s3 = boto3.client("s3", endpoint_url=moto.endpoint, aws_access_key_id="key", aws_secret_access_key="secret", region_name="us-east-1")
        s3.create_bucket(Bucket="lake")
        options = f"""connector = 's3', s3.bucket_name = 'lake', s3.path = 'landing/events', s3.region_name = 'us-east-1',
            s3.credentials.access = 'key', s3.credentials.secret = 'secret', s3.endpoint_url = '{moto.endpoint}', type = 'append-only',
            rollover_seconds = '1', partition_by = 'kind', success_file = 'true'"""
        data = tmp_path / "data"
        with SluiceServer(data_dir=data, extra_args=["--barrier-interval-ms", "50"], env={"SLUICE_FAILPOINT": "file-sink-mid-commit"}) as server:
            with connect(server) as conn:
                conn.execute("CREATE TABLE ev (id bigint, kind varchar) APPEND ONLY")
                conn.execute(f"CREATE SINK s3_files FROM ev WITH ({options}) FORMAT PLAIN ENCODE PARQUET")
                for start in range(0, 600, 100):
                    conn.execute("INSERT INTO ev SELECT g, 'k' || (g %% 3)::varchar FROM generate_series(%s, %s) AS g", (start, start + 99))
                    if server.process.poll() is not None:
                        break
            wait_until(lambda: server.process.poll() is not None, 60, "the server to die between two uploads")

        def ids() -> list[int]:
            found = []
            for page in s3.get_paginator("list_objects_v2").paginate(Bucket="lake", Prefix="landing/events/"):
                for item in page.get("Contents", []):
                    if item["Key"].endswith(".parquet"):
                        body = s3.get_object(Bucket="lake", Key=item["Key"])["Body"].read()
                        table = pq.read_table(io.BytesIO(body))
                        kind = item["Key"].split("/")[2]
                        found += [(i, kind) for i in table.column("id").to_pylist()]
            assert all(kind == f"kind=k{i % 3}" for i, kind in found)
            return [i for i, _ in found]

        with SluiceServer(data_dir=data, extra_args=["--barrier-interval-ms", "50"]) as server, connect(server) as conn:
            inserted = [row[0] for row in conn.execute("SELECT id FROM ev").fetchall()]
            assert inserted
            def complete() -> bool:
                found = ids()
                assert len(found) == len(set(found)), "a row was uploaded twice"
                return set(found) == set(inserted)
            wait_until(complete, 60, "every row of the table in the bucket")
            keys = [item["Key"] for item in s3.list_objects_v2(Bucket="lake", Prefix="landing/events/")["Contents"]]
            assert "landing/events/kind=k0/_SUCCESS" in keys
            assert not any(".sluice-staging" in key for key in keys)
