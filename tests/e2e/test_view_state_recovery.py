"""Views over a Kafka source come back from their last state checkpoint after `kill -9`, and the
source goes on from the offsets that checkpoint holds: after each restart and the source catching
up, every view equals DuckDB's answer over every event produced (none lost, none counted twice) and
over the acknowledged table writes.

The pipeline is seed 000's source and two GROUP BY views as written, seed 001's source and its
view (a join of the source with its own GROUP BY) as written, a join of seed 000's source with a
table taking UPDATEs, the table, and views of the table against the source through a semi join
with a condition, an anti join without keys, NOT IN and a scalar subquery correlated by `<`, a
group top-N and a window function over a ROWS frame. Each round produces a batch of events and updates the table,
then the server dies: at a random point of the source's reading, or at a named failpoint of the
state checkpoint (after its run file, during a compaction, after its manifest).
`SLUICE_VIEW_CRASH_ROUNDS` sets the random rounds (4 by default)."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
import pytest
from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic

from harness import SluiceServer
from harness.ports import free_port
from source_support import connect, wait_until

PLAYERS = [f"player{i}" for i in range(13)]
COLORS = ["red", "blue", "green", "yellow", "purple"]
BASE = datetime(2026, 11, 1, tzinfo=timezone.utc)
BATCH = 20_000

SEEDS = Path(__file__).resolve().parents[1] / "fixtures" / "seeds"


def _seed_000(bootstrap: str) -> str:
    """Seed 000's source and views as the seed prints them, its template variables filled in."""
    return ((SEEDS / "000_source.sql").read_text().replace("{{ balloon_game_kafka_topic }}", "balloon-game")
            .replace("{{ balloon_game_kafka_bootstrap_servers }}", bootstrap))


def _seed_001(bootstrap: str) -> str:
    """Seed 001's init.sql as written, pointed at the server's broker."""
    return (SEEDS / "001_init.sql").read_text().replace("localhost:9092", bootstrap)


def _views(script: str) -> dict[str, str]:
    """The queries of a script's materialized views, by name."""
    return {m.group(1): m.group(2) for m in re.finditer(
        r"CREATE MATERIALIZED VIEW (?:IF NOT EXISTS )?(\w+) AS(.*?);", script, re.S)}


SEED_VIEWS = {**_views(_seed_000("")), **_views(_seed_001(""))}
USER_OPS = ["create", "update", "delete"]
USER_BATCH = 3_000

VIEWS = {
    "mv_leaderboard": SEED_VIEWS["mv_leaderboard"],
    "mv_balloon_color_stats": SEED_VIEWS["mv_balloon_color_stats"],
    "team_scores": """
  SELECT teams.team, count(*) AS pops, sum(balloon_game_events.score) AS points
  FROM balloon_game_events JOIN teams ON balloon_game_events.player = teams.player
  GROUP BY teams.team""",
    # The join kinds that keep each row's match degree, an ARRAY subquery kept as one aggregate
    # and a scalar subquery decorrelated by its domain, each with its state in state tables.
    "team_hot_players": """
  SELECT player, team FROM teams WHERE EXISTS (
    SELECT 1 FROM balloon_game_events e WHERE e.player = teams.player AND e.score > teams.team * 12 + 40)""",
    "team_quiet_players": """
  SELECT player FROM teams WHERE NOT EXISTS (SELECT 1 FROM balloon_game_events e WHERE e.score > teams.team * 20 + 10)""",
    "team_pages_unseen": """
  SELECT player, team FROM teams WHERE team + 4 NOT IN (SELECT page_id FROM balloon_game_events WHERE score = 49)""",
    "team_low_scores": """
  SELECT player, (SELECT count(*) FROM balloon_game_events e WHERE e.score < teams.team * 10) AS low FROM teams""",
    # Group top-N and an over-window: their ordered partitions are state tables (ties broken by
    # the events' distinct times, so the oracle's rows are the only answer).
    "top_scores": """
  SELECT player, score, event_ts FROM (
    SELECT player, score, event_ts, row_number() OVER (PARTITION BY player ORDER BY score DESC, event_ts) AS r
    FROM balloon_game_events) t WHERE r <= 3""",
    "page_running_scores": """
  SELECT player, event_ts, sum(score) OVER (PARTITION BY player ORDER BY event_ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s
  FROM balloon_game_events WHERE page_id = 3""",
}


def _event(i: int) -> dict:
    return {
        "player": PLAYERS[i % len(PLAYERS)], "balloon_color": COLORS[(i // 3) % len(COLORS)], "score": i % 50,
        "page_id": i % 7, "favorite_color_bonus": i % 3 == 0,
        "event_ts": (BASE + timedelta(milliseconds=i)).isoformat().replace("+00:00", "Z"),
    }


def _user_event(i: int) -> dict:
    return {"id": i % 40, "name": f"user{i % 40}-{i}", "age": 20 + i % 30, "op": USER_OPS[(i // 7) % 3], "event_order": i,
            "ts": (BASE + timedelta(seconds=i)).strftime("%Y-%m-%d %H:%M:%S")}


def _produce(bootstrap: str, start: int, stop: int, users: tuple[int, int] = (0, 0)) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    for i in range(start, stop):
        producer.send("balloon-game", value=json.dumps(_event(i)).encode(), partition=i % 2)
    for i in range(*users):
        producer.send("user-events", value=json.dumps(_user_event(i)).encode())
    producer.flush(timeout=60)
    producer.close()


def _expected(produced: int, users: int, teams: dict[str, int]) -> dict[str, list[tuple]]:
    """Every view's rows, by DuckDB over the events produced and the table's acknowledged rows."""
    db = duckdb.connect()
    db.execute("SET TimeZone = 'UTC'")
    db.execute("""CREATE TABLE balloon_game_events (player varchar, balloon_color varchar, score integer, page_id integer,
                  favorite_color_bonus boolean, event_ts timestamptz)""")
    # The same events as `_event` makes, generated in DuckDB.
    db.execute(f"""INSERT INTO balloon_game_events SELECT
        'player' || (i % {len(PLAYERS)}), {COLORS!r}[(i // 3) % {len(COLORS)} + 1], i % 50, i % 7, i % 3 = 0,
        TIMESTAMPTZ '{BASE.isoformat()}' + to_milliseconds(i) FROM range({produced}) AS r(i)""")
    db.execute("CREATE TABLE teams (player varchar PRIMARY KEY, team integer)")
    db.executemany("INSERT INTO teams VALUES (?, ?)", list(teams.items()))
    db.execute(f"""CREATE TABLE user_events AS SELECT i % 40 AS id, 'user' || (i % 40) || '-' || i AS name, 20 + i % 30 AS age,
        {USER_OPS!r}[(i // 7) % 3 + 1] AS op, i AS event_order FROM range({users}) AS r(i)""")
    # Timestamps leave DuckDB as microseconds since 1970 (its timestamptz values need pytz).
    expected = {
        name: _normalized(db.execute(f"SELECT * REPLACE (epoch_us(event_ts) AS event_ts) FROM ({sql})" if "event_ts" in sql else sql).fetchall())
        for name, sql in VIEWS.items()}
    expected["latest_user_state"] = _normalized(db.execute(SEED_VIEWS["latest_user_state"]).fetchall())
    return expected


def _normalized(rows: list[tuple]) -> list[tuple]:
    """Rows with timestamps as microseconds since 1970 and numbers as ints, sorted."""
    def value(v):
        if isinstance(v, datetime):
            return int(v.timestamp() * 1_000_000)
        return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
    return sorted(tuple(value(v) for v in row) for row in rows)


def _pops(server: SluiceServer) -> int:
    with connect(server) as conn:
        return conn.execute("SELECT coalesce(sum(balloon_pops), 0) FROM mv_balloon_color_stats").fetchone()[0]


def _check(server: SluiceServer, produced: int, users: int, teams: dict[str, int], context: str) -> None:
    expected = _expected(produced, users, teams)
    wait_until(lambda: _pops(server) == produced, 120, f"{context}: {produced} events in the views")

    def users_caught_up():
        with connect(server) as conn:
            return _normalized(conn.execute("SELECT * FROM latest_user_state").fetchall()) == expected["latest_user_state"]
    # The user events have no count to wait for: the view is polled until it equals DuckDB's.
    wait_until(users_caught_up, 120, f"{context}: latest_user_state equal to DuckDB's over {users} user events")
    with connect(server) as conn:
        conn.execute("FLUSH")
        actual = {name: _normalized(conn.execute(f"SELECT * FROM {name}").fetchall()) for name in [*VIEWS, "latest_user_state"]}
    for name in [*VIEWS, "latest_user_state"]:
        assert actual[name] == expected[name], f"{context}: {name} differs from DuckDB\n{server.log()[-2000:]}"


def _setup(server: SluiceServer, teams: dict[str, int]) -> None:
    admin = KafkaAdminClient(bootstrap_servers=server.kafka_bootstrap, request_timeout_ms=10000)
    admin.create_topics([NewTopic("balloon-game", 2, 1), NewTopic("user-events", 1, 1)])
    admin.close()
    for script in (_seed_000(server.kafka_bootstrap), _seed_001(server.kafka_bootstrap)):
        endpoint = server.endpoint()
        run = subprocess.run(["psql", "-h", endpoint.host, "-p", str(endpoint.port), "-U", "root", "-d", "dev", "-v", "ON_ERROR_STOP=1"],
                             input=script.encode(), capture_output=True, timeout=60)
        assert run.returncode == 0, run.stderr.decode()
    with connect(server) as conn:
        conn.execute("CREATE TABLE teams (player varchar PRIMARY KEY, team int)")
        for player, team in teams.items():
            conn.execute("INSERT INTO teams VALUES (%s, %s)", (player, team))
        for name in (n for n in VIEWS if n not in SEED_VIEWS):
            conn.execute(f"CREATE MATERIALIZED VIEW {name} AS {VIEWS[name]}")


def _rounds(tmp_path: Path, rounds: int, seed: int, failpoint: str | None = None, environment: dict | None = None) -> None:
    data, port = tmp_path / "data", free_port()
    rng = random.Random(seed)
    teams = {player: i % 4 for i, player in enumerate(PLAYERS)}
    with SluiceServer(data_dir=data, kafka_port=port) as server:
        _setup(server, teams)
        _produce(server.kafka_bootstrap, 0, BATCH, (0, USER_BATCH))
        produced, users = BATCH, USER_BATCH
        _check(server, produced, users, teams, "before any crash")
        server.kill()
    restored = 0
    for round_ in range(rounds):
        extra = dict(environment or {})
        if failpoint:
            extra["SLUICE_FAILPOINT"] = f"{failpoint}@{rng.randrange(2, 6)}"
        saved = {key: os.environ.get(key) for key in extra}
        os.environ.update(extra)
        try:
            server = SluiceServer(data_dir=data, kafka_port=port).start()
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        try:
            restored += "views restored from state checkpoint" in server.log()
            player = PLAYERS[rng.randrange(len(PLAYERS))]
            teams[player] = rng.randrange(4)
            with connect(server) as conn:
                conn.execute("UPDATE teams SET team = %s WHERE player = %s", (teams[player], player))
            _produce(server.kafka_bootstrap, produced, produced + BATCH, (users, users + USER_BATCH))
            produced += BATCH
            users += USER_BATCH
            if failpoint:
                # Checkpoints come every barrier: the failpoint fires within seconds.
                code = server.process.wait(timeout=60)
                assert code == -signal.SIGKILL, f"the failpoint did not fire ({code})\n{server.log()[-3000:]}"
            else:
                # Killed while the source reads the batch (or just after).
                target = produced - BATCH + rng.randrange(BATCH)
                wait_until(lambda: _pops(server) >= target, 60, f"round {round_}: {target} events read")
                server.kill()
        except subprocess.TimeoutExpired:
            raise AssertionError(f"round {round_}: the server did not die at {failpoint}\n{server.log()[-3000:]}")
        finally:
            server.stop()
    with SluiceServer(data_dir=data, kafka_port=port) as server:
        restored += "views restored from state checkpoint" in server.log()
        _check(server, produced, users, teams, f"after {rounds} crashes")
    # Recovery used the checkpoints, not a replay of the topic from its start.
    assert restored == rounds + 1, f"views restored from a checkpoint in {restored} of {rounds + 1} starts"


def test_views_over_a_source_lose_and_repeat_no_event_across_kills(tmp_path: Path) -> None:
    _rounds(tmp_path, int(os.environ.get("SLUICE_VIEW_CRASH_ROUNDS", "4")), seed=5)


@pytest.mark.parametrize("failpoint", ["state-run-written", "state-after-manifest", "state-compaction"])
def test_a_kill_inside_a_state_checkpoint_loses_nothing(tmp_path: Path, failpoint: str) -> None:
    # Every second delta is followed by a base: compactions come often enough to die in one.
    _rounds(tmp_path, 2, seed=11, failpoint=failpoint, environment={"SLUICE_STATE_MAX_DELTAS": "2"})
