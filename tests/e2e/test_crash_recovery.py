"""What a write acknowledged survives a crash: `kill -9` at random moments and at named failpoints
while a client writes. After each restart the tables hold exactly the acknowledged statements (and
possibly the one in flight when the server died, whole or not at all), and the views over them
(a GROUP BY, a join, a GROUP BY the general aggregate keeps in ordered state, and the integer
aggregate's min and max under deletes over many groups, its sums over a two-column key, and
its one group without GROUP BY)
equal the same queries computed here from
that history. The servers run under the smallest memory limit, so state goes to disk and back.

The writer runs in its own process and records each statement's number in a file once the server
has answered it. The history is a fixed function of the statement number, so the expected tables
after n statements are computed here without the server (`_model`). `SLUICE_CRASH_ROUNDS` sets the
number of random kills (10 by default; the full run takes 50)."""

from __future__ import annotations

import inspect
import math
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psycopg
import pytest

from harness import SluiceServer, processes

SETUP = [
    "CREATE TABLE acct (id int PRIMARY KEY, v bigint)",
    "CREATE TABLE events (k int, n int)",
    "CREATE MATERIALIZED VIEW per_k AS SELECT k, count(*) AS c, sum(n) AS s FROM events GROUP BY k",
    "CREATE MATERIALIZED VIEW matched AS SELECT acct.id, acct.v, events.k FROM acct JOIN events ON acct.id = events.n",
    # The general aggregate (DISTINCT, and max kept as an ordered multiset under deletes).
    "CREATE MATERIALIZED VIEW spread AS SELECT k, count(DISTINCT n % 10) AS d, max(n) AS m FROM events GROUP BY k",
    # The integer aggregate's min and max under deletes, over many groups most of which go cold:
    # under the tiny memory limit below, their groups and values move to spilled pages and back.
    "CREATE MATERIALIZED VIEW bounds AS SELECT n % 97 AS b, min(k) AS lo, max(n) AS hi, count(*) AS c FROM events GROUP BY n % 97",
    # The integer aggregate over a key of two columns: groups found by their encoded key bytes,
    # their key values kept as typed rows that are released and compacted as groups come and go.
    "CREATE MATERIALIZED VIEW pairs AS SELECT k, n % 7 AS r, count(*) AS c, sum(n) AS s FROM events GROUP BY k, n % 7",
    # The integer aggregate without GROUP BY, which folds whole chunks into its one group, min
    # and max under deletes.
    "CREATE MATERIALIZED VIEW whole AS SELECT count(*) AS c, sum(n) AS s, min(n) AS lo, max(n) AS hi FROM events",
    # Secondary indexes, built again from the recovered tables: lookups through them must find
    # what scans find.
    "CREATE INDEX events_k_n ON events (k, n DESC)",
    "CREATE INDEX acct_v ON acct (v)",
]

# Every server runs with the smallest memory limit: every page the state store may evict, and
# the integer aggregate's cold groups, go to disk, so recovery and the spill paths meet kill -9.
SERVER_ARGS = ["--memory-limit", "1"]


def _statement(i: int) -> str:
    """Statement i of the history: inserts, updates and deletes over both tables."""
    kind = i % 5
    if kind == 0:
        return f"INSERT INTO acct VALUES ({i}, {i})"
    if kind == 1:
        return f"UPDATE acct SET v = v + 1 WHERE id = {i - 11}"
    if kind == 2:
        return f"INSERT INTO events VALUES ({i % 7}, {i - 2}), ({(i + 3) % 7}, {i + 8})"
    if kind == 3:
        return f"DELETE FROM acct WHERE id = {i - 43}"
    return f"DELETE FROM events WHERE n = {i - 52}"


def _model(count: int) -> tuple[dict[int, int], Counter]:
    """The tables after statements 0 ..< count."""
    acct: dict[int, int] = {}
    events: Counter = Counter()
    for i in range(count):
        kind = i % 5
        if kind == 0:
            acct[i] = i
        elif kind == 1 and i - 11 in acct:
            acct[i - 11] += 1
        elif kind == 2:
            events[(i % 7, i - 2)] += 1
            events[((i + 3) % 7, i + 8)] += 1
        elif kind == 3:
            acct.pop(i - 43, None)
        elif kind == 4:
            for row in [row for row in events if row[1] == i - 52]:
                del events[row]
    return acct, events


_WRITER = """
import sys, psycopg
exec(sys.argv[4])  # defines _statement
conninfo, start, acks = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with psycopg.connect(conninfo, autocommit=True) as connection, open(acks, "a") as out:
    i = start
    while True:
        connection.execute(_statement(i))
        out.write(f"{i}\\n")
        out.flush()
        i += 1
"""


def _acknowledged(path: Path) -> int:
    """How many statements the writer has seen answered (the number of complete lines)."""
    if not path.exists():
        return 0
    text = path.read_text()
    return text.count("\n")


def _start_writer(server: SluiceServer, start: int, acks: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, server.endpoint().conninfo, str(start), str(acks), inspect.getsource(_statement)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def _wait_for_acks(acks: Path, target: int, writer: subprocess.Popen, server: SluiceServer) -> None:
    deadline = time.monotonic() + 60
    while _acknowledged(acks) < target:
        if writer.poll() is not None:
            errors = writer.stderr.read().decode(errors="replace") if writer.stderr else ""
            raise AssertionError(f"the writer stopped with {writer.returncode} before the kill\n{errors}\n{server.log()[-3000:]}")
        assert time.monotonic() < deadline, f"{_acknowledged(acks)} of {target} statements in 60 s\n{server.log()[-3000:]}"
        time.sleep(0.01)


def _check(server: SluiceServer, acked: int, context: str) -> int:
    """Asserts the tables equal the history's first `acked` statements, or `acked + 1` (the one in
    flight, applied whole); the views equal their queries over that state. Returns the count that
    matched."""
    with psycopg.connect(server.endpoint().conninfo, autocommit=True) as connection:
        acct = dict(connection.execute("SELECT id, v FROM acct").fetchall())
        events = Counter(connection.execute("SELECT k, n FROM events").fetchall())
        connection.execute("FLUSH")
        per_k = sorted(connection.execute("SELECT k, c, s FROM per_k").fetchall())
        matched = sorted(connection.execute("SELECT id, v, k FROM matched").fetchall())
        spread = sorted(connection.execute("SELECT k, d, m FROM spread").fetchall())
        bounds = sorted(connection.execute("SELECT b, lo, hi, c FROM bounds").fetchall())
        pairs = sorted(connection.execute("SELECT k, r, c, s FROM pairs").fetchall())
        whole = connection.execute("SELECT c, s, lo, hi FROM whole").fetchall()
        assert "BatchIndexScan" in "".join(row[0] for row in connection.execute("EXPLAIN SELECT n FROM events WHERE k = 3").fetchall())
        by_index = {k: Counter(connection.execute(f"SELECT k, n FROM events WHERE k = {k}").fetchall()) for k in range(7)}
        ranged = Counter(connection.execute("SELECT k, n FROM events WHERE k = 2 AND n >= 20 AND n < 300").fetchall())
        accounts = sorted(connection.execute("SELECT id, v FROM acct WHERE v > 50 AND v <= 400").fetchall())
    assert all(by_index[k] == Counter({row: times for row, times in events.items() if row[0] == k}) for k in range(7)), f"{context}: index k"
    assert ranged == Counter({row: times for row, times in events.items() if row[0] == 2 and 20 <= row[1] < 300}), f"{context}: index range"
    assert accounts == sorted((i, v) for i, v in acct.items() if 50 < v <= 400), f"{context}: index v"
    candidates = [n for n in (acked, acked + 1) if _model(n) == (acct, events)]
    assert candidates, (
        f"{context}: after {acked} acknowledged statements the tables match neither {acked} nor {acked + 1} statements "
        f"(acct has {len(acct)} rows, the model {len(_model(acked)[0])}; events {sum(events.values())} vs "
        f"{sum(_model(acked)[1].values())})\n{server.log()[-3000:]}")
    expected_per_k: dict[int, list[int]] = {}
    for (k, n), times in events.items():
        entry = expected_per_k.setdefault(k, [0, 0])
        entry[0] += times
        entry[1] += n * times
    assert per_k == sorted((k, c, s) for k, (c, s) in expected_per_k.items()), f"{context}: per_k"
    expected_matched = sorted((n, acct[n], k) for (k, n), times in events.items() if n in acct for _ in range(times))
    assert matched == expected_matched, f"{context}: matched"
    expected_spread: dict[int, tuple[set[int], int]] = {}
    for (k, n) in events:
        digits, top = expected_spread.get(k, (set(), n))
        digits.add(n % 10)
        expected_spread[k] = (digits, max(top, n))
    assert spread == sorted((k, len(d), m) for k, (d, m) in expected_spread.items()), f"{context}: spread"
    expected_bounds: dict[int, list[int]] = {}
    for (k, n), times in events.items():
        entry = expected_bounds.setdefault(n % 97, [k, n, 0])
        entry[0] = min(entry[0], k)
        entry[1] = max(entry[1], n)
        entry[2] += times
    assert bounds == sorted((b, lo, hi, c) for b, (lo, hi, c) in expected_bounds.items()), f"{context}: bounds"
    expected_pairs: dict[tuple[int, int], list[int]] = {}
    for (k, n), times in events.items():
        # SQL's % keeps the dividend's sign (-2 % 7 is -2).
        entry = expected_pairs.setdefault((k, int(math.fmod(n, 7))), [0, 0])
        entry[0] += times
        entry[1] += n * times
    assert pairs == sorted((k, r, c, s) for (k, r), (c, s) in expected_pairs.items()), f"{context}: pairs"
    values = [n for (_, n), times in events.items() for _ in range(times)]
    expected_whole = (len(values), sum(values), min(values), max(values)) if values else (0, None, None, None)
    assert whole == [expected_whole], f"{context}: whole"
    return candidates[-1]


def _crash_rounds(tmp_path: Path, rounds: int, seed: int, failpoint: str | None = None) -> None:
    data = tmp_path / "data"
    acks = tmp_path / "acks"
    rng = random.Random(seed)
    with SluiceServer(data_dir=data, extra_args=SERVER_ARGS) as first:
        with psycopg.connect(first.endpoint().conninfo, autocommit=True) as connection:
            for statement in SETUP:
                connection.execute(statement)
        first.stop()
    applied = 0
    for round_ in range(rounds):
        environment_failpoint = failpoint and round_ % 2 == 0
        if environment_failpoint:
            os.environ["SLUICE_FAILPOINT"] = f"{failpoint}@{rng.randrange(5, 80)}"
        try:
            server = SluiceServer(data_dir=data, extra_args=[*SERVER_ARGS, "--barrier-interval-ms", "3600000"]).start()
        finally:
            os.environ.pop("SLUICE_FAILPOINT", None)
        writer = _start_writer(server, applied, acks)
        try:
            if environment_failpoint:
                # The failpoint kills the server; the writer then fails on its connection.
                assert writer.wait(timeout=60) != 0
                errors = writer.stderr.read().decode(errors="replace") if writer.stderr else ""
                try:
                    code = server.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    code = None
                assert code == -signal.SIGKILL, f"the failpoint did not fire\n{errors}\n{server.log()[-3000:]}"
            else:
                _wait_for_acks(acks, applied + rng.randrange(5, 60), writer, server)
                server.kill()
                writer.wait(timeout=30)
        finally:
            processes.stop_process(writer, signal.SIGKILL, timeout=10)
            server.stop()
        with SluiceServer(data_dir=data, extra_args=SERVER_ARGS) as restarted:
            assert "recovered in" in restarted.log(), restarted.log()
            applied = _check(restarted, _acknowledged(acks), f"round {round_}")
        # The next writer goes on from the statements that survived (rewritten to the file).
        acks.write_text("".join(f"{i}\n" for i in range(applied)))
    print(f"crash rounds: {rounds}, statements that survived: {applied}")
    # Every round wrote something that survived.
    assert applied >= rounds * 5, f"only {applied} statements over {rounds} rounds"


def test_random_kills_lose_no_acknowledged_write(tmp_path: Path) -> None:
    _crash_rounds(tmp_path, int(os.environ.get("SLUICE_CRASH_ROUNDS", "10")), seed=11)


@pytest.mark.parametrize("failpoint", ["wal-append"])
def test_a_kill_inside_a_log_append_loses_no_acknowledged_write(tmp_path: Path, failpoint: str) -> None:
    _crash_rounds(tmp_path, 4, seed=23, failpoint=failpoint)


@pytest.mark.parametrize("failpoint", ["state-run-written", "state-after-manifest"])
def test_a_kill_inside_a_checkpoint_loses_nothing(tmp_path: Path, failpoint: str) -> None:
    """CHECKPOINT killed before and after its manifest is written: the restart recovers from the
    previous checkpoint and the log, or from the new one; either way every row is there. (No
    barrier but the statements': the CHECKPOINT is the first checkpoint the failpoint meets.)"""
    data = tmp_path / "data"
    with SluiceServer(data_dir=data, extra_args=[*SERVER_ARGS, "--barrier-interval-ms", "3600000"]) as first:
        with psycopg.connect(first.endpoint().conninfo, autocommit=True) as connection:
            for statement in SETUP:
                connection.execute(statement)
            for i in range(40):
                connection.execute(_statement(i))
            connection.execute("CHECKPOINT")
            for i in range(40, 90):
                connection.execute(_statement(i))
    os.environ["SLUICE_FAILPOINT"] = failpoint
    try:
        server = SluiceServer(data_dir=data, extra_args=[*SERVER_ARGS, "--barrier-interval-ms", "3600000"]).start()
    finally:
        os.environ.pop("SLUICE_FAILPOINT", None)
    try:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as connection:
            for i in range(90, 120):
                connection.execute(_statement(i))
            with pytest.raises(psycopg.OperationalError):
                connection.execute("CHECKPOINT")
        assert server.process.wait(timeout=10) == -signal.SIGKILL
    finally:
        server.stop()
    with SluiceServer(data_dir=data, extra_args=SERVER_ARGS) as restarted:
        assert _check(restarted, 120, failpoint) == 120
        state = sorted(p.name for p in (data / "state").iterdir())
        assert any(name.startswith("MANIFEST-") for name in state), state
