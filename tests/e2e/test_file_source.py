"""File sources (`connector = 'posix_fs'`, and `'s3'` against moto's server) as RisingWave
writes them: Parquet written by pyarrow, CSV written by DuckDB, gzip'd JSON lines; Hive folders
as columns; new files picked up as they land; `SELECT` over the files now, pruned by folder;
`CREATE SOURCE t (*)`; bad files and rows counted while the source goes on; and a file source
→ view → file sink pipeline that loses and repeats nothing across kill -9.

The oracle is DuckDB reading the same files."""

from __future__ import annotations

import gzip
import json
import random
import time
from collections import Counter
from pathlib import Path

import boto3
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from duckdb_support import duckdb_with
from harness import MotoServer, SluiceServer
from source_support import connect, statement_error as _error, wait_until

ARGS = ["--barrier-interval-ms", "100"]


def _write_events(root: Path) -> None:
    """Hive folders of Parquet by pyarrow, as Spark lands them."""
    for kind, ids in (("buy", [1, 2, 3]), ("join", [4, 5]), ("quit", [6])):
        folder = root / f"event_type={kind}" / "dt=2026-11-26"
        folder.mkdir(parents=True)
        pq.write_table(pa.table({"id": pa.array(ids, pa.int64()), "user_name": [f"u{i}" for i in ids],
                                 "amount": pa.array([i * 1.5 for i in ids], pa.float64())}), folder / "part-0.parquet")
    (root / "_SUCCESS").write_text("")
    (root / ".staging").mkdir()
    pq.write_table(pa.table({"id": [99]}), root / ".staging" / "hidden.parquet")


def test_parquet_hive_folders_read_as_duckdb_reads_them(tmp_path: Path) -> None:
    root = tmp_path / "events"
    _write_events(root)
    oracle = duckdb_with()
    query = f"SELECT id, user_name, amount, event_type, dt FROM read_parquet('{root}/*/*/*.parquet', hive_partitioning = 1)"
    with SluiceServer(data_dir=tmp_path / "data", extra_args=ARGS) as server, connect(server) as conn:
        conn.execute(f"""CREATE SOURCE events (*) WITH (connector = 'posix_fs', posix_fs.root = '{root}', match_pattern = '*.parquet')
            FORMAT PLAIN ENCODE PARQUET""")
        described = [(name, kind) for name, kind, *_ in conn.execute("DESCRIBE events").fetchall() if name != "table description"]
        assert described == [("id", "bigint"), ("user_name", "character varying"), ("amount", "double precision"),
                             ("event_type", "character varying"), ("dt", "character varying")]
        expected = sorted(tuple(str(v) if isinstance(v, __import__("datetime").date) else v for v in row) for row in oracle.execute(query).fetchall())
        assert sorted(conn.execute("SELECT id, user_name, amount, event_type, dt FROM events").fetchall()) == expected
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (6,)
        # A WHERE on a folder column reads only that folder's files.
        assert conn.execute("SELECT sum(id) FROM events WHERE event_type = 'buy'").fetchone() == (6,)
        assert conn.execute("SELECT status FROM sluice_sources WHERE name = 'events'").fetchone()[0] == "last scan: 1 files read, 2 skipped by their folders"

        # A view over the source, and files landing after it: the count grows.
        conn.execute("CREATE MATERIALIZED VIEW per_kind AS SELECT event_type, count(*) AS n, sum(amount) AS total FROM events GROUP BY event_type")
        assert wait_until(lambda: conn.execute("SELECT sum(n) FROM per_kind").fetchone()[0] == 6, 20, "the view to read every file")
        folder = root / "event_type=buy" / "dt=2026-11-27"
        folder.mkdir()
        pq.write_table(pa.table({"id": pa.array([7, 8], pa.int64()), "user_name": ["u7", "u8"], "amount": [1.0, 2.0]}), folder / "part-1.parquet")
        assert wait_until(lambda: conn.execute("SELECT n FROM per_kind WHERE event_type = 'buy'").fetchone() == (5,), 20, "the new file's rows")
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (8,)
        # A second view starts from what the source has read (only the columns it reads are
        # decoded): its columns hold the files' values, the others are not needed.
        conn.execute("CREATE MATERIALIZED VIEW amounts AS SELECT count(user_name) AS named, sum(amount) AS total, max(id) AS last FROM events")
        assert conn.execute("SELECT named, total, last FROM amounts").fetchone() == (8, 1.5 * 21 + 3.0, 8)


def test_csv_by_duckdb_and_gzipped_json_lines(tmp_path: Path) -> None:
    root = tmp_path / "in"
    root.mkdir()
    oracle = duckdb_with()
    oracle.execute(f"""COPY (SELECT i AS id, 'name ' || i AS name, CASE WHEN i % 3 = 0 THEN NULL ELSE i * 0.5 END AS score,
        DATE '2026-11-01' + i::INTEGER AS day FROM range(1, 2001) t(i)) TO '{root}/people.csv' (HEADER, DELIMITER ',')""")
    with gzip.open(root / "more.json.gz", "wt") as out:
        for i in range(1, 1501):
            out.write(json.dumps({"id": i, "name": f"j{i}", "score": None if i % 5 == 0 else i / 4, "day": "2026-11-26"}) + "\n")
    with SluiceServer(data_dir=tmp_path / "data", extra_args=ARGS) as server, connect(server) as conn:
        conn.execute(f"""CREATE SOURCE people (id int, name varchar, score double precision, day date) WITH (connector = 'posix_fs',
            posix_fs.root = '{root}', match_pattern = '*.csv') FORMAT PLAIN ENCODE CSV""")
        conn.execute(f"""CREATE SOURCE more (id int, name varchar, score double precision, day date) WITH (connector = 'posix_fs',
            posix_fs.root = '{root}', match_pattern = '*.json.gz') FORMAT PLAIN ENCODE JSON""")
        expected = oracle.execute(f"SELECT count(*), sum(id), sum(score), count(score), max(day) FROM read_csv('{root}/people.csv')").fetchone()
        got = conn.execute("SELECT count(*), sum(id), sum(score), count(score), max(day) FROM people").fetchone()
        assert got == expected
        expected = oracle.execute(f"SELECT count(*), sum(id), sum(score), count(score) FROM read_json('{root}/more.json.gz')").fetchone()
        assert conn.execute("SELECT count(*), sum(id), sum(score), count(score) FROM more").fetchone() == expected
        conn.execute("CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(id) AS s FROM more")
        assert wait_until(lambda: conn.execute("SELECT n, s FROM totals").fetchone() == (1500, 1500 * 1501 // 2), 20, "the view over gzip'd JSON")


def test_bad_rows_and_bad_files_are_counted_and_the_source_goes_on(tmp_path: Path) -> None:
    root = tmp_path / "in"
    root.mkdir()
    (root / "a.csv").write_text('id,name\n1,one\nnot a number,two\n3,"three, with a comma"\n4\n5,"unclosed\n')
    good = pa.table({"id": pa.array(range(100), pa.int32()), "name": [f"n{i}" for i in range(100)]})
    pq.write_table(good, root / "good.parquet")
    whole = (root / "good.parquet").read_bytes()
    (root / "truncated.parquet").write_bytes(whole[: len(whole) // 2])
    with SluiceServer(data_dir=tmp_path / "data", extra_args=ARGS) as server, connect(server) as conn:
        conn.execute(f"""CREATE TABLE csv_rows (id int, name varchar) WITH (connector = 'posix_fs', posix_fs.root = '{root}',
            match_pattern = '*.csv') FORMAT PLAIN ENCODE CSV""")
        conn.execute(f"""CREATE SOURCE pq (id int, name varchar) WITH (connector = 'posix_fs', posix_fs.root = '{root}',
            match_pattern = '*.parquet') FORMAT PLAIN ENCODE PARQUET""")
        conn.execute("CREATE MATERIALIZED VIEW pq_count AS SELECT count(*) AS n FROM pq")
        assert wait_until(lambda: conn.execute("SELECT count(*) FROM csv_rows").fetchone()[0] == 2, 20, "the good CSV rows")
        assert sorted(conn.execute("SELECT id, name FROM csv_rows").fetchall()) == [(1, "one"), (3, "three, with a comma")]
        assert wait_until(lambda: conn.execute("SELECT n FROM pq_count").fetchone() == (100,), 20, "the good Parquet file's rows")
        errors = conn.execute("SELECT source_name, error FROM sluice_source_errors ORDER BY source_name, error").fetchall()
        csv_errors = [e for s, e in errors if s == "csv_rows"]
        assert len(csv_errors) == 3, csv_errors
        assert any("a.csv: line 3" in e and "integer" in e for e in csv_errors), csv_errors
        assert any("a.csv: line 5" in e and "1 fields" in e for e in csv_errors), csv_errors
        assert any("a.csv: line 6" in e and "quote" in e for e in csv_errors), csv_errors
        pq_errors = [e for s, e in errors if s == "pq"]
        assert len(pq_errors) == 1 and "truncated.parquet" in pq_errors[0], pq_errors
        # The server goes on serving, and new files are still read.
        (root / "b.csv").write_text("id,name\n10,ten\n")
        assert wait_until(lambda: conn.execute("SELECT count(*) FROM csv_rows").fetchone()[0] == 3, 20, "the next file")


def test_mistakes_in_a_file_source_are_errors_at_create(tmp_path: Path) -> None:
    root = tmp_path / "in"
    root.mkdir()
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as conn:
        error = _error(conn, f"CREATE SOURCE s (a int) WITH (connector = 'posix_fs', posix_fs.rot = '{root}') FORMAT PLAIN ENCODE CSV")
        assert error.sqlstate == "42601" and 'Did you mean "posix_fs.root"' in error.diag.message_hint
        assert _error(conn, "CREATE SOURCE s (a int) WITH (connector = 'posix_fs', match_pattern = '*.csv') FORMAT PLAIN ENCODE CSV").sqlstate == "42601"
        assert _error(conn, f"CREATE SOURCE s (a int) WITH (connector = 'posix_fs', posix_fs.root = '{root}', refresh.interval.sec = 'often') FORMAT PLAIN ENCODE CSV").sqlstate == "22023"
        assert _error(conn, f"CREATE SOURCE s (a int) WITH (connector = 'posix_fs', posix_fs.root = '{root}') FORMAT PLAIN ENCODE AVRO").sqlstate == "0A000"
        assert _error(conn, f"CREATE SOURCE s (a int) WITH (connector = 'posix_fs', posix_fs.root = '{root}') FORMAT PLAIN ENCODE CSV (header = 'no')").sqlstate == "42601"
        # Columns from files only when there is a file, and a CSV header or a YAML document says none.
        assert _error(conn, f"CREATE SOURCE s (*) WITH (connector = 'posix_fs', posix_fs.root = '{root}') FORMAT PLAIN ENCODE CSV").sqlstate == "HV00R"
        assert _error(conn, f"CREATE SOURCE s (*) WITH (connector = 'posix_fs', posix_fs.root = '{root}') FORMAT PLAIN ENCODE PARQUET").sqlstate == "HV00R"
        assert _error(conn, f"CREATE SOURCE s (*) WITH (connector = 'posix_fs', posix_fs.root = '{root}') FORMAT PLAIN ENCODE YAML").sqlstate == "42601"
        (root / "a.csv").write_text("x,y\n1,2\n")
        assert _error(conn, f"CREATE SOURCE s (*) WITH (connector = 'posix_fs', posix_fs.root = '{root}') FORMAT PLAIN ENCODE CSV (without_header = 'true')").sqlstate == "42601"
        assert conn.execute("SELECT count(*) FROM rw_sources").fetchone() == (0,)


def test_s3_files_through_moto(tmp_path: Path) -> None:
    with MotoServer() as moto:
        s3 = boto3.client("s3", endpoint_url=moto.endpoint, aws_access_key_id="key", aws_secret_access_key="secret", region_name="us-east-1")
        s3.create_bucket(Bucket="lake")
        for part in range(3):
            lines = "".join(json.dumps({"id": part * 10 + i, "kind": f"k{i % 2}"}) + "\n" for i in range(10))
            s3.put_object(Bucket="lake", Key=f"events/part-{part}.json", Body=lines.encode())
        s3.put_object(Bucket="lake", Key="other/skip.json", Body=b'{"id": 1000}\n')
        with SluiceServer(data_dir=tmp_path / "data", extra_args=ARGS) as server, connect(server) as conn:
            conn.execute(f"""CREATE SOURCE s3_events (id int, kind varchar) WITH (connector = 's3', s3.bucket_name = 'lake',
                s3.region_name = 'us-east-1', s3.credentials.access = 'key', s3.credentials.secret = 'secret',
                s3.endpoint_url = '{moto.endpoint}', match_pattern = 'events/*.json', refresh.interval.sec = '0.2') FORMAT PLAIN ENCODE JSON""")
            assert conn.execute("SELECT count(*), sum(id) FROM s3_events").fetchone() == (30, sum(range(30)))
            conn.execute("CREATE MATERIALIZED VIEW by_kind AS SELECT kind, count(*) AS n FROM s3_events GROUP BY kind")
            assert wait_until(lambda: conn.execute("SELECT sum(n) FROM by_kind").fetchone()[0] == 30, 20, "the view over S3 files")
            s3.put_object(Bucket="lake", Key="events/part-3.json", Body=b'{"id": 500, "kind": "k0"}\n')
            assert wait_until(lambda: conn.execute("SELECT n FROM by_kind WHERE kind = 'k0'").fetchone() == (16,), 20, "the new object")


ROUNDS = 6


def test_a_file_source_to_file_sink_pipeline_loses_and_repeats_nothing_across_kills(tmp_path: Path) -> None:
    """Files land while the server is killed at random moments: the view's sink holds each input
    row whose kind passes the filter exactly once, as DuckDB reads input and output."""
    data, inbox, out = tmp_path / "data", tmp_path / "inbox", tmp_path / "out"
    inbox.mkdir()
    rng = random.Random(1126)
    written = 0

    def land(count: int) -> None:
        nonlocal written
        for _ in range(count):
            ids = list(range(written, written + 500))
            written += 500
            table = pa.table({"id": pa.array(ids, pa.int64()), "kind": [f"k{i % 4}" for i in ids]})
            temporary = inbox / f".tmp-{ids[0]}"
            pq.write_table(table, temporary, row_group_size=100)
            temporary.rename(inbox / f"batch-{ids[0]:08d}.parquet")

    land(2)
    for round_number in range(ROUNDS):
        with SluiceServer(data_dir=data, extra_args=["--barrier-interval-ms", "50"]) as server:
            if round_number == 0:
                with connect(server) as conn:
                    conn.execute(f"""CREATE SOURCE inbox (id bigint, kind varchar) WITH (connector = 'posix_fs', posix_fs.root = '{inbox}',
                        match_pattern = '*.parquet', refresh.interval.sec = '0.1') FORMAT PLAIN ENCODE PARQUET""")
                    conn.execute("CREATE MATERIALIZED VIEW kept AS SELECT id, kind FROM inbox WHERE kind <> 'k3'")
                    conn.execute(f"""CREATE SINK kept_files FROM kept WITH (connector = 'fs', fs.path = '{out}', type = 'append-only',
                        force_append_only = 'true', rollover_seconds = '1', partition_by = 'kind') FORMAT PLAIN ENCODE PARQUET""")
            land(2)
            time.sleep(rng.uniform(0.05, 1.2))
            server.kill()
            server.process.wait(timeout=10)
    land(1)
    expected = {i for i in range(written) if i % 4 != 3}
    with SluiceServer(data_dir=data, extra_args=["--barrier-interval-ms", "50"]) as server:
        def complete() -> list[int] | None:
            if not any(out.rglob("*.parquet")):
                return None
            ids = [row[0] for row in duckdb_with().execute(f"SELECT id FROM read_parquet('{out}/*/*.parquet')").fetchall()]
            repeated = [i for i, n in Counter(ids).items() if n > 1]
            assert not repeated, f"rows in the sink's files more than once: {repeated[:10]}"
            return ids if set(ids) >= expected else None
        ids = wait_until(complete, 90, f"all {len(expected)} rows in the sink's files")
        assert set(ids) == expected
        with connect(server) as conn:
            assert conn.execute("SELECT rows_rejected FROM sluice_sources WHERE name = 'inbox'").fetchone() == (0,)


MATCH_YAML = """\
meta:
  data_version: 0.9
  created: 2019-06-27
  revision: 1
info:
  city: Bristol
  dates:
  - 2017-06-04
  gender: female
  match_type: ODI
  outcome:
    by:
      runs: 6  # a comment
    winner: England
  teams:
  - England
  - 'South Africa'
  toss: {decision: bat, winner: England}
  note: >
    folded
    text
innings:
- 1st innings:
    team: England
    deliveries:
    - 0.1:
        batsman: "T Beaumont"
        runs: {batsman: 0, extras: 0, total: 0}
"""


def test_yaml_files_read_as_pyyaml_reads_them(tmp_path: Path) -> None:
    """ENCODE YAML: a document a row (cricsheet's match files, as seed 003 has them), or a list of
    mappings a row each; compared with what PyYAML reads from the same files."""
    import yaml

    root = tmp_path / "matches"
    root.mkdir()
    (root / "1001.yaml").write_text(MATCH_YAML)
    (root / "1002.yaml").write_text(MATCH_YAML.replace("Bristol", "Leicester").replace("runs: 6", "wickets: 3"))
    players = [{"id": i, "name": f"player {i}", "team": "England" if i % 2 else "South Africa", "caps": i * 3} for i in range(40)]
    with gzip.open(root / "players.yml.gz", "wt") as out:
        out.write(yaml.safe_dump(players))
    (root / "broken.yaml").write_text("info: [unclosed\n")
    with SluiceServer(data_dir=tmp_path / "data", extra_args=ARGS) as server, connect(server) as conn:
        conn.execute(f"""CREATE SOURCE matches (meta jsonb, info jsonb, innings jsonb) WITH (connector = 'posix_fs', posix_fs.root = '{root}',
            match_pattern = '*.yaml') FORMAT PLAIN ENCODE YAML""")
        conn.execute(f"""CREATE SOURCE players (id int, name varchar, team varchar, caps bigint) WITH (connector = 'posix_fs',
            posix_fs.root = '{root}', match_pattern = '*.yml.gz') FORMAT PLAIN ENCODE YAML""")
        rows = conn.execute("SELECT meta, info, innings FROM matches ORDER BY info->>'city'").fetchall()
        expected = [yaml.safe_load((root / name).read_text()) for name in ("1001.yaml", "1002.yaml")]
        expected.sort(key=lambda document: document["info"]["city"])
        normalize = lambda value: json.loads(json.dumps(value, default=str))  # noqa: E731 - dates as PyYAML's str()
        assert [normalize({"meta": m, "info": i, "innings": n}) for m, i, n in rows] == [normalize(document) for document in expected]
        assert sorted(conn.execute("SELECT id, name, team, caps FROM players").fetchall()) == [
            (p["id"], p["name"], p["team"], p["caps"]) for p in players]
        conn.execute("CREATE MATERIALIZED VIEW per_city AS SELECT info->>'city' AS city, count(*) AS n FROM matches GROUP BY 1")
        wait_until(lambda: conn.execute("SELECT count(*) FROM per_city").fetchone() == (2,), 20, "the view over YAML files")
        errors = [e for (e,) in conn.execute("SELECT error FROM sluice_source_errors WHERE source_name = 'matches'").fetchall()]
        assert len(errors) == 1 and "broken.yaml" in errors[0] and "YAML line 1" in errors[0], errors


def test_views_reading_different_columns_each_see_their_columns_as_duckdb_does(tmp_path: Path) -> None:
    """The source decodes only the Parquet columns its views read; a view made while the file
    is being read for another view (which reads other columns) still gets every value of its
    own columns, from the backfill or from the stream."""
    root = tmp_path / "wide"
    folder = root / "kind=a"
    folder.mkdir(parents=True)
    count = 1_000_000
    ids = pa.array(range(count), pa.int64())
    table = pa.table({"id": ids, "score": pc.cast(pc.remainder(ids, 997), pa.int32()),
                      "name": pc.binary_join_element_wise("n", pc.cast(pc.remainder(ids, 101), pa.string()), ""),
                      "weight": pc.multiply(pc.cast(pc.remainder(ids, 13), pa.float64()), 0.25)})
    pq.write_table(table, folder / "part-0.parquet", row_group_size=2_000)
    oracle = duckdb_with()
    files = f"read_parquet('{root}/*/*.parquet', hive_partitioning = 1)"
    with SluiceServer(data_dir=tmp_path / "data", extra_args=ARGS) as server, connect(server) as conn:
        conn.execute(f"""CREATE SOURCE wide (id bigint, score int, name varchar, weight double precision, kind varchar)
            WITH (connector = 'posix_fs', posix_fs.root = '{root}', match_pattern = '**/*.parquet') FORMAT PLAIN ENCODE PARQUET""")
        views = {
            "by_score": ("SELECT count(*) AS n, sum(score) AS s FROM wide", "SELECT count(*), sum(score) FROM {}"),
            "by_name": ("SELECT count(name) AS n, max(name) AS m, sum(weight) AS w FROM wide", "SELECT count(name), max(name), sum(weight) FROM {}"),
            "by_kind": ("SELECT kind, count(*) AS n, max(id) AS m FROM wide GROUP BY kind", "SELECT kind, count(*), max(id) FROM {} GROUP BY kind"),
        }
        # The first starts the reading; the others are made while it goes on.
        for name, (query, _) in views.items():
            conn.execute(f"CREATE MATERIALIZED VIEW {name} AS {query}")
            assert wait_until(lambda: conn.execute("SELECT n FROM by_score").fetchone()[0] > 0, 60, "the source to start reading")
        assert wait_until(lambda: conn.execute("SELECT n FROM by_score").fetchone() == (count,), 60, "the source to read the file")
        # One made after everything was read starts from the source's backfill.
        conn.execute("CREATE MATERIALIZED VIEW late AS SELECT sum(id) AS i, count(weight) AS w FROM wide")
        views["late"] = ("", "SELECT sum(id), count(weight) FROM {}")
        # A file landing later reaches every view with its columns.
        more = root / "kind=b"
        more.mkdir()
        pq.write_table(table.slice(0, 5_000), more / "part-1.parquet", row_group_size=1_000)
        assert wait_until(lambda: conn.execute("SELECT n FROM by_score").fetchone() == (count + 5_000,), 60, "the new file")
        assert wait_until(lambda: conn.execute("SELECT w FROM late").fetchone() == (count + 5_000,), 60, "the new file in the late view")
        for name, (_, expected) in views.items():
            mine = sorted(conn.execute(f"SELECT * FROM {name}").fetchall())
            theirs = sorted(tuple(float(v) if isinstance(v, float) else v for v in row) for row in oracle.execute(expected.format(files)).fetchall())
            assert mine == theirs, name


def test_generated_columns_and_watermarks_read_the_columns_they_need(tmp_path: Path) -> None:
    """A view that reads only a generated column, or only a column beside the watermark's, still
    gets the values those are made from: such sources decode every Parquet column."""
    root = tmp_path / "gen"
    root.mkdir()
    count = 50_000
    ids = pa.array(range(count), pa.int64())
    pq.write_table(pa.table({"a": ids, "b": pc.multiply(ids, 3),
                             "ts": pc.cast(pc.add(pc.multiply(ids, 1_000_000), 1_764_000_000_000_000), pa.timestamp("us", tz="UTC"))}),
                   root / "part-0.parquet", row_group_size=4_000)
    oracle = duckdb_with()
    files = f"read_parquet('{root}/*.parquet')"
    with SluiceServer(data_dir=tmp_path / "data", extra_args=ARGS) as server, connect(server) as conn:
        conn.execute(f"""CREATE SOURCE gen (a bigint, b bigint, ts timestamptz, total AS a + b)
            WITH (connector = 'posix_fs', posix_fs.root = '{root}', match_pattern = '*.parquet') FORMAT PLAIN ENCODE PARQUET""")
        conn.execute(f"""CREATE SOURCE marked (a bigint, b bigint, ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '1' HOUR)
            WITH (connector = 'posix_fs', posix_fs.root = '{root}', match_pattern = '*.parquet') FORMAT PLAIN ENCODE PARQUET""")
        conn.execute("CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(total) AS s FROM gen")
        conn.execute("CREATE MATERIALIZED VIEW bs AS SELECT count(*) AS n, sum(b) AS s FROM marked")
        assert wait_until(lambda: conn.execute("SELECT n FROM totals").fetchone() == (count,), 60, "the generated column's view")
        assert wait_until(lambda: conn.execute("SELECT n FROM bs").fetchone() == (count,), 60, "the watermarked source's view")
        assert conn.execute("SELECT s FROM totals").fetchone()[0] == oracle.execute(f"SELECT sum(a + b) FROM {files}").fetchone()[0]
        assert conn.execute("SELECT s FROM bs").fetchone()[0] == oracle.execute(f"SELECT sum(b) FROM {files}").fetchone()[0]
