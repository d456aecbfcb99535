"""Seed 001's producer, unchanged (tests/fixtures/seeds/001_producer.py), against Sluice's broker:
it hard-codes localhost:9092 and topic user-events, creates the topic with KafkaAdminClient and
sends 100 JSON change events with kafka-python, sleeping a second after each. The test serves the
broker on 127.0.0.1:9092, makes `time.sleep` a no-op through a `sitecustomize` module on
PYTHONPATH, and reads the topic back with kcat exactly as a user of the seed would.

The script runs on the kafka-python it was written for, 2.x, from `.venv-seed` (`make deps`,
tests/requirements-seeds.txt; `$SLUICE_SEED_PYTHON` overrides the interpreter): it imports
`kafka.errors.NoBrokersAvailable`, which kafka-python 3 (in .venv) no longer has."""

from __future__ import annotations

import ast
import json
import os
import socket
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

import psycopg
import pytest
from kafka_support import kcat

from harness import SluiceServer

REPO_ROOT = Path(__file__).resolve().parents[2]
PRODUCER = REPO_ROOT / "tests" / "fixtures" / "seeds" / "001_producer.py"
INIT_SQL = REPO_ROOT / "tests" / "fixtures" / "seeds" / "001_init.sql"
SEED_PYTHON = Path(os.environ.get("SLUICE_SEED_PYTHON") or REPO_ROOT / ".venv-seed" / "bin" / "python")
SEED_PORT = 9092

SITECUSTOMIZE = '''\
"""Loaded at interpreter start-up (PYTHONPATH): the seed's one-second sleeps between sends become no-ops."""
import time

time.sleep = lambda seconds: None
'''


def _port_in_use(family: int, host: str, port: int) -> bool:
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(1)
            sock.connect((host, port))
            return True
    except OSError:
        return False


@pytest.fixture
def seed_broker():
    taken = [address for family, address in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")) if _port_in_use(family, address, SEED_PORT)]
    if taken:
        pytest.fail(f"port {SEED_PORT} is taken on {', '.join(taken)}: seed 001's producer hard-codes localhost:{SEED_PORT}, so this "
                    f"test needs that port; stop whatever listens there (a `make run`, a local Kafka) and run it again")
    with SluiceServer(kafka_port=SEED_PORT) as server:
        yield server


def _run_producer(tmp_path: Path) -> list[dict]:
    """Runs seed 001's producer.py unchanged (its sleeps made no-ops) and returns the events it
    printed as sent."""
    if not SEED_PYTHON.exists():
        pytest.fail(f"no seed environment at {SEED_PYTHON}: run `make deps`, which makes .venv-seed from tests/requirements-seeds.txt")
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    try:
        run = subprocess.run([str(SEED_PYTHON), str(PRODUCER)], cwd=tmp_path, env=env, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("seed 001's producer ran for more than 60 s: were its 100 one-second sleeps not replaced?")
    assert run.returncode == 0, f"producer.py exited with {run.returncode}:\n{run.stderr.decode(errors='replace')[-4000:]}"
    sent = [ast.literal_eval(line.removeprefix("Sent: ")) for line in run.stdout.decode().splitlines() if line.startswith("Sent: ")]
    assert len(sent) == 100
    return sent


def test_seed_001_producer_sends_100_events_that_kcat_reads_back(seed_broker: SluiceServer, tmp_path: Path) -> None:
    sent = _run_producer(tmp_path)
    out = kcat(f"localhost:{SEED_PORT}", "-t", "user-events", "-C", "-e")
    events = [json.loads(line) for line in out.splitlines()]
    assert [event["event_order"] for event in events] == list(range(1, 101))
    assert events == sent  # what the producer printed, field for field
    for event in events:
        assert event["id"] in (1, 2, 3) and event["op"] in ("insert", "update", "delete")
        assert (event["name"] is None) == (event["op"] == "delete")


def test_seed_001_init_sql_then_producer_fill_latest_user_state(seed_broker: SluiceServer, tmp_path: Path) -> None:
    """The seed's order: `psql -f init.sql` (the source and the view, before the topic exists),
    then `python producer.py`; then its two queries."""
    endpoint = seed_broker.endpoint()
    run = subprocess.run(["psql", "-h", endpoint.host, "-p", str(endpoint.port), "-U", "root", "-d", "dev", "-v", "ON_ERROR_STOP=1",
                          "-f", str(INIT_SQL)], capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr.decode()
    assert run.stdout.decode().split() == ["DROP_SOURCE", "DROP_MATERIALIZED_VIEW", "CREATE_SOURCE", "CREATE_MATERIALIZED_VIEW"]
    sent = _run_producer(tmp_path)

    # The latest event of each id, unless it deletes the id, worked out here from what was sent.
    latest: dict[int, dict] = {}
    for event in sent:
        if event["id"] not in latest or event["event_order"] > latest[event["id"]]["event_order"]:
            latest[event["id"]] = event
    expected = sorted((event["id"], event["name"], event["age"]) for event in latest.values() if event["op"] != "delete")

    with psycopg.connect(endpoint.conninfo, autocommit=True) as conn:
        deadline = time.monotonic() + 60
        while conn.execute("SELECT rows_read FROM sluice_sources WHERE name = 'user_events'").fetchone()[0] < 100:
            assert time.monotonic() < deadline, "the source did not read the producer's 100 events"
            time.sleep(0.05)
        conn.execute("FLUSH")
        assert conn.execute("SELECT * FROM latest_user_state ORDER BY id").fetchall() == expected
        history = conn.execute("SELECT * FROM user_events ORDER BY event_order DESC LIMIT 20").fetchall()
        assert [row[:5] for row in history] == [
            (event["id"], event["name"], event["age"], event["op"], event["event_order"]) for event in reversed(sent[-20:])]
        for row, event in zip(history, reversed(sent[-20:])):
            # ts is TIMESTAMP: the producer's UTC time, without its zone.
            assert row[5] == datetime.fromisoformat(event["ts"]).astimezone(timezone.utc).replace(tzinfo=None)
