"""Seed 002 end to end on one binary: the game API (a Flask app like the seed's game_api.py,
logging each action to Kafka with kafka-python), driven by Apache Bench as the seed's
generate_events.sh does; a source over the topic; the seed's Spark filter as a materialized
view; a Parquet landing zone that rolls every 10 seconds, a folder per event type; and
`hive_events` over the landed files, whose DESCRIBE shows the seed's twelve columns and whose
count grows as files land, as Presto's did. Then the same without Kafka, the API posting to a
webhook table.

The oracle is what `ab` sent (its counts per endpoint, fixed in the script) and DuckDB reading
the landed files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
from kafka import KafkaAdminClient
from kafka.admin import NewTopic

from duckdb_support import duckdb_with
from harness import SluiceServer
from harness.ports import free_port, wait_for_port
from harness.sluice_server import sluice_binary
from source_support import connect, wait_until

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "seed_002"
# One round of generate_events.sh: 2 default calls (filtered out) and these game events.
PER_ROUND = {"purchase_sword": 8, "join_guild": 6, "quit_guild": 1, "get_paid": 7}
SEED_COLUMNS = [
    ("raw_event", "character varying"), ("timestamp", "character varying"), ("accept", "character varying"),
    ("host", "character varying"), ("user_agent", "character varying"), ("event_type", "character varying"),
    ("user", "character varying"), ("price", "numeric(10,0)"), ("type", "character varying"), ("fee", "numeric(10,0)"),
    ("name", "character varying"), ("amount", "numeric(10,0)"),
]


def _statements(text: str) -> list[str]:
    """The statements of a script, comments dropped."""
    statements = []
    for statement in text.split(";\n"):
        body = "\n".join(line for line in statement.splitlines() if not line.strip().startswith("--")).strip()
        if body:
            statements.append(body)
    return statements


def _pipeline(kafka: str, data_dir: Path) -> list[str]:
    """Seed 002's pipeline as `sluice demo game-api` runs it: the topic's source, the seed's
    filter as a view, the landing zone under `data_dir`/game_events and hive_events over it."""
    run = subprocess.run([str(sluice_binary()), "demo", "game-api", "--print-sql", "--kafka-listen", kafka, "--data-dir", str(data_dir)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return _statements(run.stdout)


class GameAPI:
    """The Flask app on a free loopback port, stopped by PID."""

    def __init__(self, env: dict[str, str]):
        self.port = free_port("127.0.0.1")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "flask", "--app", str(SEED / "game_api.py"), "run", "--host", "127.0.0.1", "--port", str(self.port)],
            env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port("127.0.0.1", self.port, timeout=30)

    def generate(self, rounds: int = 1) -> None:
        subprocess.run([str(SEED / "generate_events.sh")], check=True, timeout=120,
                       env={**os.environ, "GAME_API": f"http://127.0.0.1:{self.port}", "ROUNDS": str(rounds)})

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def _check_landing(conn: psycopg.Connection, landing: Path, rounds: int) -> None:
    total = sum(PER_ROUND.values()) * rounds
    # The sink rolls a file every 10 seconds: the count grows as they land, as Presto saw it.
    wait_until(lambda: conn.execute("SELECT count(*) FROM hive_events").fetchone()[0] == total, 60, f"{total} events in hive_events")
    described = [(name, kind) for name, kind, *_ in conn.execute("DESCRIBE hive_events").fetchall() if name != "table description"]
    assert described == SEED_COLUMNS
    by_type = dict(conn.execute("SELECT event_type, count(*) FROM hive_events GROUP BY event_type").fetchall())
    assert by_type == {kind: n * rounds for kind, n in PER_ROUND.items()}
    # A folder per event type, read back by DuckDB with the same rows.
    oracle = duckdb_with().execute(f"""SELECT event_type, "user", host, user_agent, accept, price, type, fee, name, amount
        FROM read_parquet('{landing}/*/*.parquet', hive_partitioning = 1)""").fetchall()
    ours = conn.execute("SELECT event_type, \"user\", host, user_agent, accept, price, type, fee, name, amount FROM hive_events").fetchall()
    assert sorted(map(str, oracle)) == sorted(map(str, ours))
    assert sorted(p.name for p in landing.iterdir() if not p.name.startswith(".")) == sorted(f"event_type={kind}" for kind in PER_ROUND)
    # What the API logged, as ab sent it: the user from the Host header, ab's User-Agent.
    assert conn.execute("""SELECT count(*) FROM hive_events WHERE event_type = 'get_paid' AND "user" = 'user1'
        AND host = 'user1.comcast.com' AND user_agent LIKE 'ApacheBench%' AND amount = 120 AND fee = 6""").fetchone() == (7 * rounds,)
    assert conn.execute("SELECT count(*) FROM hive_events WHERE raw_event LIKE '%\"event_type\": \"purchase_sword\"%' AND price IN (15, 7)").fetchone() == (8 * rounds,)


def test_seed_002_game_api_through_kafka_to_a_parquet_landing_zone(tmp_path: Path) -> None:
    landing = tmp_path / "game_events"
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--barrier-interval-ms", "200"]) as server:
        admin = KafkaAdminClient(bootstrap_servers=server.kafka_bootstrap, request_timeout_ms=10000)
        admin.create_topics([NewTopic("events", 1, 1)])
        admin.close()
        with connect(server) as conn:
            statements = _pipeline(server.kafka_bootstrap, tmp_path)
            assert [s.split("(")[0].split()[:3] for s in statements] == [
                ["CREATE", "SOURCE", "game_api_events"], ["CREATE", "MATERIALIZED", "VIEW"], ["CREATE", "SINK", "game_events_landing"],
                ["CREATE", "SOURCE", "hive_events"]]
            for statement in statements:
                conn.execute(statement)
            api = GameAPI({"KAFKA_BOOTSTRAP": server.kafka_bootstrap})
            try:
                api.generate()
                _check_landing(conn, landing, rounds=1)
                # The firehose goes on: the count grows with the next files.
                api.generate()
                _check_landing(conn, landing, rounds=2)
                assert conn.execute("SELECT count(*) FROM game_api_events WHERE event_type = 'default'").fetchone() == (4,)
            finally:
                api.stop()


def test_seed_002_game_api_through_a_webhook_table(tmp_path: Path) -> None:
    landing = tmp_path / "game_events"
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--barrier-interval-ms", "200"]) as server, connect(server) as conn:
        # The webhook table and the view over it, then the Kafka pipeline's landing zone and Hive table.
        landing_statements = [s for s in _pipeline(server.kafka_bootstrap, tmp_path) if s.startswith(("CREATE SINK", "CREATE SOURCE hive_events"))]
        for statement in _statements((SEED / "webhook_ingest.sql").read_text()) + landing_statements:
            conn.execute(statement)
        api = GameAPI({"SLUICE_WEBHOOK_URL": f"{server.webhook_base}/webhook/dev/public/game_api_hooks"})
        try:
            api.generate()
            _check_landing(conn, landing, rounds=1)
        finally:
            api.stop()
