"""Views over a Kafka source come back from their last state checkpoint after `kill -9`, and the
source goes on from the offsets that checkpoint holds: after each restart and the source catching
up, every view equals DuckDB's answer over every event produced (none lost, none counted twice) and
over the acknowledged table writes.

The pipeline is seed 000's source and two GROUP BY views as written, a join of the source with a
table taking UPDATEs, and the table. Each round produces a batch of events and updates the table,
then the server dies: at a random point of the source's reading, or at a named failpoint of the
state checkpoint (after its run file, during a compaction, after its manifest).
`SLUICE_VIEW_CRASH_ROUNDS` sets the random rounds (4 by default)."""

from __future__ import annotations

import json
import os
import random
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

SOURCE = """CREATE SOURCE IF NOT EXISTS balloon_game_events (
 player string,
 balloon_color string,
 score integer,
 page_id integer,
 favorite_color_bonus boolean,
 event_ts timestamptz
)
WITH (
 connector='kafka',
 topic='balloon-game',
 properties.bootstrap.server='{bootstrap}',
 scan.startup.mode='earliest'
) FORMAT PLAIN ENCODE JSON"""

VIEWS = {
    "mv_leaderboard": """
  SELECT
    player,
    sum(score) as total_score,
    count(case when favorite_color_bonus = true then 1 end) as bonus_hits,
    max(event_ts) as event_ts
  FROM balloon_game_events
  GROUP BY player""",
    "mv_balloon_color_stats": """
 SELECT
   player,
   balloon_color,
   count(*) as balloon_pops,
   sum(score) as points_by_color,
   count(CASE WHEN favorite_color_bonus = true THEN 1 END) as bonus_hits,
   max(event_ts) as event_ts
 FROM balloon_game_events
 GROUP BY
   player,
   balloon_color""",
    "team_scores": """
  SELECT teams.team, count(*) AS pops, sum(balloon_game_events.score) AS points
  FROM balloon_game_events JOIN teams ON balloon_game_events.player = teams.player
  GROUP BY teams.team""",
}


def _event(i: int) -> dict:
    return {
        "player": PLAYERS[i % len(PLAYERS)], "balloon_color": COLORS[(i // 3) % len(COLORS)], "score": i % 50,
        "page_id": i % 7, "favorite_color_bonus": i % 3 == 0,
        "event_ts": (BASE + timedelta(milliseconds=i)).isoformat().replace("+00:00", "Z"),
    }


def _produce(bootstrap: str, start: int, stop: int) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    for i in range(start, stop):
        producer.send("balloon-game", value=json.dumps(_event(i)).encode(), partition=i % 2)
    producer.flush(timeout=60)
    producer.close()


def _expected(produced: int, teams: dict[str, int]) -> dict[str, list[tuple]]:
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
    # Timestamps leave DuckDB as microseconds since 1970 (its timestamptz values need pytz).
    return {
        name: _normalized(db.execute(f"SELECT * REPLACE (epoch_us(event_ts) AS event_ts) FROM ({sql})" if "event_ts" in sql else sql).fetchall())
        for name, sql in VIEWS.items()}


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


def _check(server: SluiceServer, produced: int, teams: dict[str, int], context: str) -> None:
    wait_until(lambda: _pops(server) == produced, 120, f"{context}: {produced} events in the views")
    with connect(server) as conn:
        conn.execute("FLUSH")
        actual = {name: _normalized(conn.execute(f"SELECT * FROM {name}").fetchall()) for name in VIEWS}
    expected = _expected(produced, teams)
    for name in VIEWS:
        assert actual[name] == expected[name], f"{context}: {name} differs from DuckDB\n{server.log()[-2000:]}"


def _setup(server: SluiceServer, teams: dict[str, int]) -> None:
    admin = KafkaAdminClient(bootstrap_servers=server.kafka_bootstrap, request_timeout_ms=10000)
    admin.create_topics([NewTopic("balloon-game", 2, 1)])
    admin.close()
    with connect(server) as conn:
        conn.execute("CREATE TABLE teams (player varchar PRIMARY KEY, team int)")
        for player, team in teams.items():
            conn.execute("INSERT INTO teams VALUES (%s, %s)", (player, team))
        conn.execute(SOURCE.format(bootstrap=server.kafka_bootstrap))
        for name, sql in VIEWS.items():
            conn.execute(f"CREATE MATERIALIZED VIEW IF NOT EXISTS {name} AS {sql}")


def _rounds(tmp_path: Path, rounds: int, seed: int, failpoint: str | None = None, environment: dict | None = None) -> None:
    data, port = tmp_path / "data", free_port()
    rng = random.Random(seed)
    teams = {player: i % 4 for i, player in enumerate(PLAYERS)}
    produced = 0
    with SluiceServer(data_dir=data, kafka_port=port) as server:
        _setup(server, teams)
        _produce(server.kafka_bootstrap, 0, BATCH)
        produced = BATCH
        _check(server, produced, teams, "before any crash")
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
            _produce(server.kafka_bootstrap, produced, produced + BATCH)
            produced += BATCH
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
        _check(server, produced, teams, f"after {rounds} crashes")
    # Recovery used the checkpoints, not a replay of the topic from its start.
    assert restored == rounds + 1, f"views restored from a checkpoint in {restored} of {rounds + 1} starts"


def test_views_over_a_source_lose_and_repeat_no_event_across_kills(tmp_path: Path) -> None:
    _rounds(tmp_path, int(os.environ.get("SLUICE_VIEW_CRASH_ROUNDS", "4")), seed=5)


@pytest.mark.parametrize("failpoint", ["state-run-written", "state-after-manifest", "state-compaction"])
def test_a_kill_inside_a_state_checkpoint_loses_nothing(tmp_path: Path, failpoint: str) -> None:
    # Every second delta is followed by a base: compactions come often enough to die in one.
    _rounds(tmp_path, 2, seed=11, failpoint=failpoint, environment={"SLUICE_STATE_MAX_DELTAS": "2"})
