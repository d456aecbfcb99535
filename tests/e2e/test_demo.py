"""`sluice demo`: one command to seed 000's running pipeline. Within 60 seconds of the start the
leaderboard has rows, an Iceberg snapshot exists and seed 000's pyiceberg snippet reads it; the
dashboard answers; Ctrl-C stops everything cleanly, and a second run resumes from the same data
directory. The SQL it runs is the seed's, checked against the fixture taken from the seed."""

from __future__ import annotations

import signal
import subprocess
import urllib.request
from pathlib import Path

import psycopg
from pyiceberg.catalog.rest import RestCatalog

from harness.ports import free_port
from harness.sluice_server import sluice_binary
from source_support import wait_until
from test_iceberg_seed_000 import _fill

SEEDS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "seeds"


def _without_comments(sql: str) -> list[str]:
    return [line.rstrip() for line in sql.splitlines() if line.strip() and not line.lstrip().startswith("--")]


class Demo:
    def __init__(self, data_dir: Path, scenario: str = "balloon"):
        self.scenario = scenario
        self.ports = {name: free_port() for name in ("sql", "kafka", "catalog", "http", "webhook")}
        self.data_dir = data_dir
        self.process: subprocess.Popen | None = None
        self.log = data_dir.parent / f"demo-{id(self)}.log"

    def args(self) -> list[str]:
        p = self.ports
        return [str(sluice_binary()), "demo", self.scenario, "--data-dir", str(self.data_dir), "--listen", f"127.0.0.1:{p['sql']}",
                "--kafka-listen", f"127.0.0.1:{p['kafka']}", "--catalog-listen", f"127.0.0.1:{p['catalog']}",
                "--dashboard-listen", f"127.0.0.1:{p['http']}", "--webhook-listen", f"127.0.0.1:{p['webhook']}"]

    def start(self) -> "Demo":
        self.process = subprocess.Popen(self.args(), stdout=open(self.log, "wb"), stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> int:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                return self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise AssertionError("the demo did not stop within 60 s of Ctrl-C:\n" + self.output())
        return self.process.returncode

    def sql(self, query: str) -> list[tuple]:
        with psycopg.connect(host="127.0.0.1", port=self.ports["sql"], user="root", dbname="dev", autocommit=True) as conn:
            return conn.execute(query).fetchall()

    def catalog(self) -> RestCatalog:
        # Seed 000's snippet, pointed at the demo's catalog.
        base = f"http://127.0.0.1:{self.ports['catalog']}"
        return RestCatalog(name="balloon-game", **{
            "uri": f"{base}/api/catalog", "credential": "root:secret", "header.content-type": "application/vnd.api+json",
            "header.X-Iceberg-Access-Delegation": "vended-credentials", "header.Polaris-Realm": "default-realm",
            "oauth2-server-uri": f"{base}/api/catalog/v1/oauth/tokens", "warehouse": "balloon-game", "scope": "PRINCIPAL_ROLE:ALL"})


def _reachable(demo: Demo) -> bool:
    if demo.process.poll() is not None:
        raise AssertionError("the demo exited:\n" + demo.output())
    try:
        return bool(demo.sql("SELECT 1"))
    except psycopg.OperationalError:
        return False


def _count(demo: Demo, view: str) -> int:
    """The view's rows; 0 while the demo has not created it yet (its SQL runs once the port is up)."""
    try:
        return demo.sql(f"SELECT count(*) FROM {view}")[0][0]
    except psycopg.errors.UndefinedTable:
        return 0


def test_demo_sql_is_the_seeds(tmp_path: Path) -> None:
    demo = Demo(tmp_path / "data")
    run = subprocess.run(demo.args() + ["--print-sql"], capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr.decode()
    values = {"balloon_game_kafka_topic": "balloon_game_events", "balloon_game_kafka_bootstrap_servers": f"127.0.0.1:{demo.ports['kafka']}",
              "balloon_game_db": "balloon_pops", "plf_catalog_name": "balloon-game",
              "plf_polaris_catalog_uri": f"http://127.0.0.1:{demo.ports['catalog']}/api/catalog", "principal_client_id": "root",
              "principal_client_secret": "secret", "plf_aws_endpoint_url": "http://127.0.0.1:9000", "plf_aws_region": "us-east-1"}
    expected = _fill((SEEDS / "000_source.sql").read_text(), values) + _fill((SEEDS / "000_sink.sql").read_text(), values)
    assert _without_comments(run.stdout.decode()) == _without_comments(expected)


def test_demo_runs_seed_000_and_resumes(tmp_path: Path) -> None:
    demo = Demo(tmp_path / "data").start()
    try:
        wait_until(lambda: _reachable(demo), 60, "the demo's SQL port")
        wait_until(lambda: _count(demo, "mv_leaderboard") > 0, 60, "the leaderboard to have rows")
        assert sorted(name for (name,) in demo.sql("SHOW SINKS")) == sorted(
            ["leaderboard", "balloon_color_stats", "realtime_scores", "balloon_colored_pops", "color_performance_trends"])

        def snapshot_rows() -> int:
            table = demo.catalog().load_table("balloon_pops.leaderboard")
            return len(table.scan().to_arrow()) if table.current_snapshot() else 0
        wait_until(lambda: snapshot_rows() > 0, 60, "an Iceberg snapshot pyiceberg reads")
        with urllib.request.urlopen(f"http://127.0.0.1:{demo.ports['http']}/ready", timeout=10) as response:
            assert response.status == 200
        with urllib.request.urlopen(f"http://127.0.0.1:{demo.ports['http']}/", timeout=10) as response:
            assert b"<title>Sluice</title>" in response.read()
        out = demo.output()
        assert "psql -h localhost -p" in out and f"http://127.0.0.1:{demo.ports['http']}/" in out and "load_table" in out
        pops = demo.sql("SELECT sum(total_score) FROM mv_leaderboard")[0][0]
    finally:
        code = demo.stop()
    assert code == 0, demo.output()

    # A second run finds the pipeline in the data directory and goes on from where it was.
    again = Demo(tmp_path / "data")
    again.ports = demo.ports
    again.start()
    try:
        wait_until(lambda: _reachable(again), 60, "the second run's SQL port")
        assert again.sql("SELECT sum(total_score) FROM mv_leaderboard")[0][0] >= pops
        wait_until(lambda: again.sql("SELECT sum(total_score) FROM mv_leaderboard")[0][0] > pops, 60, "new events after the restart")
        assert len(again.sql("SHOW SINKS")) == 5
    finally:
        assert again.stop() == 0, again.output()


def test_demo_sql_of_seeds_001_and_004(tmp_path: Path) -> None:
    from test_seed_004 import CLEANED, FEATURES, SOURCE, _adapted

    users = Demo(tmp_path / "data", "users")
    run = subprocess.run(users.args() + ["--print-sql"], capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr.decode()
    expected = (SEEDS / "001_init.sql").read_text().replace("'localhost:9092'", f"'127.0.0.1:{users.ports['kafka']}'")
    assert _without_comments(run.stdout.decode()) == _without_comments(expected)

    payments = Demo(tmp_path / "data", "payments")
    run = subprocess.run(payments.args() + ["--print-sql"], capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr.decode()
    bootstrap = f"127.0.0.1:{payments.ports['kafka']}"
    expected = "\n".join([_adapted(SOURCE, bootstrap) + ";", _adapted(CLEANED, bootstrap) + ";",
                          "CREATE MATERIALIZED VIEW payment_features AS\n" + _adapted(FEATURES, bootstrap) + ";"])
    squash = lambda text: " ".join(" ".join(_without_comments(text)).split())  # noqa: E731
    assert squash(run.stdout.decode()) == squash(expected)


def test_demo_users_and_payments_run(tmp_path: Path) -> None:
    for scenario, view in (("users", "latest_user_state"), ("payments", "payment_features")):
        demo = Demo(tmp_path / scenario, scenario).start()
        try:
            wait_until(lambda: _reachable(demo), 60, f"the {scenario} demo's SQL port")
            wait_until(lambda: _count(demo, view) > 0, 60, f"{view} to have rows")
            source = demo.sql("SELECT rows_read, rows_rejected FROM sluice_sources")[0]
            assert source[0] > 0, source
        finally:
            code = demo.stop()
        assert code == 0, demo.output()


def test_demo_game_api_lands_seed_002s_events(tmp_path: Path) -> None:
    """`sluice demo game-api`: seed 002's pipeline (the SQL test_seed_002 runs), its events
    generated into the topic, landed as Parquet by event type, and counted in hive_events."""
    demo = Demo(tmp_path / "data", "game-api")
    run = subprocess.run(demo.args() + ["--print-sql"], capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr.decode()
    printed = run.stdout.decode()
    # The SQL test_seed_002 runs against the real Flask app and ab, filled in for this demo.
    assert f"properties.bootstrap.server = '127.0.0.1:{demo.ports['kafka']}'" in printed
    assert f"fs.path = '{tmp_path / 'data'}/game_events'" in printed and f"posix_fs.root = '{tmp_path / 'data'}/game_events'" in printed
    demo.start()
    try:
        wait_until(lambda: _reachable(demo), 60, "the game-api demo's SQL port")
        wait_until(lambda: _count(demo, "hive_events") > 0, 60, "landed events in hive_events")
        kinds = {kind for (kind,) in demo.sql("SELECT DISTINCT event_type FROM hive_events")}
        assert kinds <= {"purchase_sword", "join_guild", "quit_guild", "get_paid"} and kinds
        assert any((tmp_path / "data" / "game_events").glob("event_type=*/*.parquet"))
    finally:
        code = demo.stop()
    assert code == 0, demo.output()


def test_demo_cricket_fills_the_warehouse(tmp_path: Path) -> None:
    """`sluice demo cricket`: seed 003's pipeline with a PostgreSQL of its own as the ODI upstream
    and the warehouse. Within seconds the warehouse, read with psycopg, holds matches of all three
    formats, each with its 22 players and 2 or 4 innings (as the generator makes every match), and
    the T20 events the generator repeats leave one row per match."""
    import re

    run = subprocess.run([str(sluice_binary()), "demo", "cricket", "--help"], capture_output=True, timeout=60)
    assert run.returncode == 0 and b"--no-postgres" in run.stdout and b"cricket" in run.stdout, run.stderr.decode()
    demo = Demo(tmp_path / "data", "cricket")
    demo.start()
    try:
        wait_until(lambda: _reachable(demo), 60, "the cricket demo's SQL port")
        found = wait_until(lambda: re.search(r"psql -h 127\.0\.0\.1 -p (\d+) -d warehouse", demo.output()), 60, "the warehouse in the banner")
        warehouse = f"host=127.0.0.1 port={found.group(1)} user=root dbname=warehouse"

        def complete_formats() -> set[str]:
            with psycopg.connect(warehouse, autocommit=True) as pg:
                rows = pg.execute("""SELECT m.format FROM match_metadata m
                    WHERE (SELECT count(*) FROM players p WHERE p.match_id = m.match_id) = 22
                      AND (SELECT count(*) FROM innings i WHERE i.match_id = m.match_id) IN (2, 4)""").fetchall()
            return {format for (format,) in rows}
        wait_until(lambda: complete_formats() == {"ODI", "T20", "Test"}, 90, "complete matches of every format in the warehouse")
        # The repeated T20 events were read and left one row per match.
        wait_until(lambda: demo.sql("SELECT rows_read FROM sluice_sources WHERE name = 't20_matches'")[0][0]
                   > demo.sql("SELECT count(*) FROM t20_matches")[0][0], 60, "a repeated T20 event")
        with psycopg.connect(warehouse, autocommit=True) as pg:
            assert pg.execute("SELECT count(*) - count(DISTINCT match_id) FROM match_metadata").fetchone() == (0,)
    finally:
        code = demo.stop()
    assert code == 0, demo.output()
