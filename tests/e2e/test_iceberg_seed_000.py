"""Seed 000 end to end on Sluice alone: its source.sql and sink.sql, verbatim apart from the
template values, with the built-in Iceberg REST catalog as Polaris and the warehouse on the
local disk or on a local S3 server (moto). Seed 000's own pyiceberg snippet, with its headers
and scope, loads `balloon_pops.leaderboard`, and DuckDB's iceberg extension reads it too.

The oracle: with `force_append_only` every new version of a view row is appended, so for every
player the table's latest version (the highest total: scores are positive) must equal the row
`mv_leaderboard` shows once every event is in, and no table row may be a version the view never
had (each appended total is at most the final one, with the same player)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import duckdb
import psycopg
import pytest
from pyiceberg.catalog.rest import RestCatalog

from harness import MotoServer, SluiceServer
from harness.moto_server import ACCESS_KEY, REGION, SECRET_KEY
from harness.sluice_server import sluice_binary
from duckdb_support import duckdb_with
from source_support import connect, source_status, wait_until

REPO_ROOT = Path(__file__).resolve().parents[2]
SEEDS = REPO_ROOT / "tests" / "fixtures" / "seeds"
SINKS = ["leaderboard", "balloon_color_stats", "realtime_scores", "balloon_colored_pops", "color_performance_trends"]


def _fill(template: str, values: dict[str, str]) -> str:
    """Jinja-style `{{ name }}` and `{{ name | default("x") }}` placeholders, as Ansible fills them."""
    def value(match: re.Match) -> str:
        name, default = match.group(1), match.group(3)
        return values.get(name, default if default is not None else match.group(0))
    filled = re.sub(r"\{\{\s*(\w+)\s*(\|\s*default\(\"([^\"]*)\"\)\s*)?\}\}", value, template)
    assert "{{" not in filled, filled
    return filled


def _psql(server: SluiceServer, script: str, tmp_path: Path, name: str) -> list[str]:
    path = tmp_path / name
    path.write_text(script)
    endpoint = server.endpoint()
    run = subprocess.run(["psql", "-h", endpoint.host, "-p", str(endpoint.port), "-U", "root", "-d", "dev", "-v", "ON_ERROR_STOP=1",
                          "-f", str(path)], capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr.decode()
    return run.stdout.decode().split()


def _seed_catalog(server: SluiceServer) -> RestCatalog:
    """Seed 000's pyiceberg snippet, pointed at the built-in catalog."""
    POLARIS_BASE_URI = server.catalog_base
    CATALOG_URI = f"{POLARIS_BASE_URI}/api/catalog"
    OAUTH2_SERVER_URI = f"{POLARIS_BASE_URI}/api/catalog/v1/oauth/tokens"
    catalog_name = "balloon-game"
    client_id, client_secret, realm = "root", "secret", "default-realm"
    return RestCatalog(
        name=catalog_name,
        **{
            "uri": CATALOG_URI,
            "credential": f"{client_id}:{client_secret}",
            "header.content-type": "application/vnd.api+json",
            "header.X-Iceberg-Access-Delegation": "vended-credentials",
            "header.Polaris-Realm": realm,
            "oauth2-server-uri": OAUTH2_SERVER_URI,
            "warehouse": catalog_name,
            "scope": "PRINCIPAL_ROLE:ALL",
        },
    )


def _duckdb(server: SluiceServer, s3: MotoServer | None) -> duckdb.DuckDBPyConnection:
    con = duckdb_with("iceberg", "avro", "httpfs")
    base = server.catalog_base
    con.execute(f"CREATE SECRET cat (TYPE iceberg, CLIENT_ID 'root', CLIENT_SECRET 'secret', "
                f"OAUTH2_SERVER_URI '{base}/api/catalog/v1/oauth/tokens', OAUTH2_SCOPE 'PRINCIPAL_ROLE:ALL')")
    if s3 is not None:
        con.execute(f"CREATE SECRET lake (TYPE s3, KEY_ID '{ACCESS_KEY}', SECRET '{SECRET_KEY}', REGION '{REGION}', "
                    f"ENDPOINT '{s3.host}:{s3.port}', URL_STYLE 'path', USE_SSL false)")
    con.execute(f"ATTACH 'balloon-game' AS lake (TYPE iceberg, SECRET cat, ENDPOINT '{base}/api/catalog')")
    return con


def _run_seed(server: SluiceServer, tmp_path: Path, s3_endpoint: str) -> None:
    bootstrap = server.kafka_bootstrap
    topic = "balloon-game-events"
    source = _fill((SEEDS / "000_source.sql").read_text(), {
        "balloon_game_kafka_topic": topic, "balloon_game_kafka_bootstrap_servers": bootstrap})
    sink = _fill((SEEDS / "000_sink.sql").read_text(), {
        "balloon_game_db": "balloon_pops", "plf_catalog_name": "balloon-game",
        "plf_polaris_catalog_uri": f"{server.catalog_base}/api/catalog", "principal_client_id": "root",
        "principal_client_secret": "secret", "plf_aws_endpoint_url": s3_endpoint, "plf_aws_region": REGION})
    # The topic exists before the source starts at its latest offset.
    gen = subprocess.run([str(sluice_binary()), "gen", "balloon", "--count", "1", "--seed", "1", "--topic", topic,
                          "--bootstrap", bootstrap], capture_output=True, timeout=120)
    assert gen.returncode == 0, gen.stderr.decode()
    assert _psql(server, source, tmp_path, "source.sql") == ["CREATE_SOURCE"] + ["CREATE_MATERIALIZED_VIEW"] * 5
    assert _psql(server, sink, tmp_path, "sink.sql") == ["CREATE_SINK"] * 5

    count = 3000
    gen = subprocess.run([str(sluice_binary()), "gen", "balloon", "--count", str(count), "--seed", "7", "--topic", topic,
                          "--bootstrap", bootstrap], capture_output=True, timeout=120)
    assert gen.returncode == 0, gen.stderr.decode()
    with connect(server) as conn:
        wait_until(lambda: sum(source_status(conn, "balloon_game_events")[:2]) >= count, 60, "the source to read the events")
        conn.execute("FLUSH")
        assert conn.execute("SELECT sum(rows_read) FROM sluice_sources").fetchone()[0] == count
        assert conn.execute("SELECT count(*) FROM sluice_sinks WHERE connector = 'iceberg'").fetchone() == (5,)
        assert sorted(name for (name,) in conn.execute("SHOW SINKS").fetchall()) == sorted(SINKS)


def _check_leaderboard(server: SluiceServer, s3: MotoServer | None) -> None:
    with connect(server) as conn:
        view = {row[0]: row for row in conn.execute("SELECT player, total_score, bonus_hits, event_ts FROM mv_leaderboard").fetchall()}
    assert len(view) > 1
    catalog = _seed_catalog(server)

    def latest() -> dict | None:
        table = catalog.load_table("balloon_pops.leaderboard")
        rows = table.scan().to_arrow().to_pylist()
        best: dict[str, dict] = {}
        for row in rows:
            if row["player"] not in best or row["total_score"] > best[row["player"]]["total_score"]:
                best[row["player"]] = row
        return rows if {p: (r["player"], r["total_score"], r["bonus_hits"], r["event_ts"]) for p, r in best.items()} == view else None

    rows = wait_until(latest, 90, "the leaderboard table's latest versions to equal mv_leaderboard")
    for row in rows:
        final = view[row["player"]]
        assert row["total_score"] <= final[1] and row["bonus_hits"] <= final[2] and row["event_ts"] <= final[3]
    # The seed's snippet: count the records and show a few.
    table = catalog.load_table("balloon_pops.leaderboard")
    assert len(list(table.scan().to_arrow().to_pylist())) == len(rows)
    summary = table.current_snapshot().summary
    assert summary["sluice.sink-name"] == "leaderboard" and int(summary["sluice.epoch"]) > 0

    con = _duckdb(server, s3)
    seen = con.execute("SELECT player, max(total_score), count(*) FROM lake.balloon_pops.leaderboard GROUP BY player").fetchall()
    assert {player: best for player, best, _ in seen} == {player: row[1] for player, row in view.items()}
    assert sum(n for _, _, n in seen) >= len(rows)

    # Every sink's table has rows, and each windowed table's totals equal its view's for the
    # windows the view holds (the highest version per window).
    with connect(server) as conn:
        windows = {(p, ws): total for p, total, ws in conn.execute("SELECT player, total_score, window_start FROM mv_realtime_scores").fetchall()}
    def realtime() -> bool:
        rows = catalog.load_table("balloon_pops.realtime_scores").scan().to_arrow().to_pylist()
        best: dict[tuple, int] = {}
        for row in rows:
            key = (row["player"], row["window_start"])
            best[key] = max(best.get(key, 0), row["total_score"])
        return best == windows
    wait_until(realtime, 90, "realtime_scores to equal mv_realtime_scores")
    with connect(server) as conn:
        for name in SINKS:
            wait_until(lambda: len(catalog.load_table(f"balloon_pops.{name}").scan().to_arrow()) > 0, 60,
                       f"rows in {name}: {conn.execute('SELECT * FROM sluice_sinks WHERE name = %s', (name,)).fetchall()}")


def test_seed_000_sinks_on_a_local_warehouse(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--barrier-interval-ms", "200"]) as server:
        # The seed's S3 settings name MinIO; a local warehouse never uses them.
        _run_seed(server, tmp_path, "http://127.0.0.1:9000")
        _check_leaderboard(server, None)
        assert list((tmp_path / "data" / "warehouse" / "balloon-game" / "balloon_pops" / "leaderboard" / "data").glob("*.parquet"))


def test_seed_000_sinks_on_local_s3(tmp_path: Path) -> None:
    with MotoServer() as s3:
        s3.create_bucket("warehouse")
        env = {"AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_REGION": REGION}
        with SluiceServer(data_dir=tmp_path / "data", env=env, extra_args=[
                "--barrier-interval-ms", "200", "--warehouse-root", "s3://warehouse/lake", "--s3-endpoint", s3.endpoint]) as server:
            _run_seed(server, tmp_path, s3.endpoint)
            _check_leaderboard(server, s3)
            keys = [item["Key"] for item in s3.client().list_objects_v2(Bucket="warehouse", Prefix="lake/balloon-game/balloon_pops/leaderboard/data/")["Contents"]]
            assert keys and all(key.endswith(".parquet") for key in keys)
            assert not (tmp_path / "data" / "warehouse").exists()
