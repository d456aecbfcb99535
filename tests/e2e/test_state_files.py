"""Damaged state files and a full disk: a checkpoint file with a flipped byte or cut short is caught
by its checksum and named, and recovery falls back to the previous checkpoint and the log after
it; a damaged log segment before the newest is refused with its path; a disk that fills up fails
the write with SQLSTATE 53100, keeps the server serving reads, and loses nothing acknowledged.

Each test writes a fixed history and checks the recovered tables against it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import psycopg
import pytest

from harness import SluiceServer


def _run(server: SluiceServer, *statements: str) -> None:
    with psycopg.connect(server.endpoint().conninfo, autocommit=True) as connection:
        for statement in statements:
            connection.execute(statement)


def _rows(server: SluiceServer) -> list[tuple]:
    with psycopg.connect(server.endpoint().conninfo, autocommit=True) as connection:
        return sorted(connection.execute("SELECT id, note FROM kept").fetchall())


def _inserts(start: int, stop: int) -> list[str]:
    return [f"INSERT INTO kept VALUES ({i}, 'row {i}')" for i in range(start, stop)]


def _expected(stop: int) -> list[tuple]:
    return [(i, f"row {i}") for i in range(stop)]


def _two_checkpoints(data: Path) -> None:
    """Rows 0..29 with a checkpoint after 10 and after 20: two checkpoints, and the log after each."""
    with SluiceServer(data_dir=data) as server:
        _run(server, "CREATE TABLE kept (id int PRIMARY KEY, note varchar)", *_inserts(0, 10), "CHECKPOINT",
             *_inserts(10, 20), "CHECKPOINT", *_inserts(20, 30))
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as connection:
            done = connection.execute("SELECT epoch, status, tables FROM sluice_checkpoints WHERE kind = 'tables' ORDER BY epoch").fetchall()
        assert len(done) == 2 and all(status == "done" and tables == 1 for _, status, tables in done), done
        server.kill()


def _newest(data: Path, kind: str) -> Path:
    """The newest checkpoint's manifest (`MANIFEST-`) or table file (`.chunks`)."""
    files = [p for p in (data / "tables").iterdir() if p.name.startswith(kind) or p.name.endswith(kind)]
    return max(files, key=lambda p: int(p.name.split("-")[-1].split(".")[0]))


def _flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at % len(data)] ^= 0x5A
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["manifest", "table file", "table file cut short"])
def test_a_damaged_checkpoint_falls_back_to_the_previous_one(tmp_path: Path, damage: str) -> None:
    data = tmp_path / "data"
    _two_checkpoints(data)
    if damage == "manifest":
        _flip(_newest(data, "MANIFEST-"), 30)
    elif damage == "table file":
        _flip(_newest(data, ".chunks"), 40)
    else:
        victim = _newest(data, ".chunks")
        victim.write_bytes(victim.read_bytes()[:-9])
    with SluiceServer(data_dir=data) as server:
        assert _rows(server) == _expected(30)
        log = server.log()
        assert "passed over a damaged checkpoint" in log and ("checksum" in log or "truncated" in log), log


def test_a_damaged_older_log_segment_is_refused_with_its_path(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with SluiceServer(data_dir=data) as server:
        _run(server, "CREATE TABLE kept (id int PRIMARY KEY, note varchar)", *_inserts(0, 20))
        server.kill()
    # A restart starts a new segment; the one written above is now an older one.
    with SluiceServer(data_dir=data) as server:
        _run(server, *_inserts(20, 25))
        server.kill()
    segments = sorted((data / "wal").iterdir())
    assert len(segments) >= 2, segments
    _flip(segments[0], 100)
    server = SluiceServer(data_dir=data, start_timeout=10)
    with pytest.raises(RuntimeError) as failure:
        server.start()
    assert segments[0].name in str(failure.value) and "damaged" in str(failure.value), str(failure.value)


def test_a_full_disk_fails_writes_keeps_reads_and_loses_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(data)], check=True)
    try:
        acknowledged = 0
        with SluiceServer(data_dir=data, extra_args=["--no-broker"]) as server:
            with psycopg.connect(server.endpoint().conninfo, autocommit=True) as connection:
                connection.execute("CREATE TABLE kept (id int PRIMARY KEY, note varchar)")
                padding = "x" * 2000
                with pytest.raises(psycopg.Error) as failure:
                    for i in range(100_000):
                        connection.execute(f"INSERT INTO kept VALUES ({i}, 'row {i}{padding}')")
                        acknowledged = i + 1
                assert failure.value.sqlstate == "53100", failure.value
                assert acknowledged > 100
                # The server still answers, and reads see every acknowledged row.
                assert connection.execute("SELECT count(*) FROM kept").fetchone()[0] >= acknowledged
                with pytest.raises(psycopg.Error) as again:
                    connection.execute("INSERT INTO kept VALUES (-1, 'after')")
                assert again.value.sqlstate in ("53100", "58030"), again.value
                with pytest.raises(psycopg.Error) as checkpoint:
                    connection.execute("CHECKPOINT")
                assert checkpoint.value.sqlstate == "53100", checkpoint.value
                failed = connection.execute("SELECT status FROM sluice_checkpoints").fetchall()
                assert failed and failed[-1][0].startswith("failed:"), failed
            server.kill()
        subprocess.run(["mount", "-o", "remount,size=64m", str(data)], check=True)
        with SluiceServer(data_dir=data, extra_args=["--no-broker"]) as server:
            with psycopg.connect(server.endpoint().conninfo, autocommit=True) as connection:
                ids = [row[0] for row in connection.execute("SELECT id FROM kept ORDER BY id").fetchall()]
            # Every acknowledged row, and at most the one whose write failed with it.
            assert ids[:acknowledged] == list(range(acknowledged)) and len(ids) <= acknowledged + 1, (len(ids), acknowledged)
            _run(server, "INSERT INTO kept VALUES (-1, 'after')", "CHECKPOINT")
    finally:
        subprocess.run(["umount", "-l", str(data)], check=False)
