"""Tests of the harness itself, so that its Sluice path is known to work before Sluice serves:
`SluiceServer` runs a stand-in binary (stand_in_sluice.py, a relay to a real PostgreSQL) with the
same command line, readiness rule and SIGTERM handling that `sluice serve` must have."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import psycopg
import pytest

from harness import PostgresServer, SluiceServer
from harness.ports import free_port

TESTS_DIR = Path(__file__).resolve().parents[1]
STAND_IN = Path(__file__).resolve().parent / "stand_in_sluice.py"


def _script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "fake-sluice"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def stand_in(tmp_path: Path) -> Path:
    return _script(tmp_path, f'exec "{sys.executable}" "{STAND_IN}" "$@"')


def _port_is_closed(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return False
    except OSError:
        return True


def test_server_lifecycle(stand_in: Path) -> None:
    server = SluiceServer(binary=stand_in).start()
    try:
        endpoint = server.endpoint()
        assert (endpoint.host, endpoint.user, endpoint.dbname, endpoint.kind) == ("127.0.0.1", "root", "dev", "sluice")
        with psycopg.connect(endpoint.conninfo) as conn:
            assert conn.execute("SELECT current_user, current_database()").fetchone() == ("root", "dev")
        assert (server.data_dir / "stand-in").read_text() == "served\n"
        assert "--data-dir" in server.log() and "serving on" in server.log()
        workdir, process = server.workdir, server.process
    finally:
        code = server.stop()
    assert code == 0, server.log()  # it stopped on SIGTERM, not SIGKILL
    assert process.poll() == 0
    assert not workdir.exists()
    assert "stand-in sluice: stopped" in server.log()
    assert _port_is_closed(server.port)


def test_slt_files_run_through_the_sluice_path(stand_in: Path) -> None:
    sys.path.insert(0, str(TESTS_DIR / "slt"))
    import runner as slt

    for name in ("query/pgcompat_joins.slt", "dml/pgcompat_update_delete.slt"):
        with SluiceServer(binary=stand_in) as server:
            result = slt.Runner(lambda: slt.connect(server.endpoint().conninfo), engine="sluice").run_file(TESTS_DIR / "slt" / name)
        assert result.ok and result.executed > 10, result.failures


def test_exit_before_listening_is_reported_with_the_log(tmp_path: Path) -> None:
    server = SluiceServer(binary=_script(tmp_path, 'echo "cannot open data dir" >&2\nexit 3'))
    with pytest.raises(RuntimeError, match=r"exited with code 3 before accepting connections(.|\n)*cannot open data dir"):
        server.start()
    assert server.process.poll() == 3


def test_server_that_never_listens_times_out_and_is_stopped(tmp_path: Path) -> None:
    server = SluiceServer(binary=_script(tmp_path, "exec sleep 120"), start_timeout=1)
    with pytest.raises(RuntimeError, match="did not accept connections"):
        server.start()
    assert server.process.poll() is not None  # SIGTERM ended it


def test_server_that_ignores_sigterm_is_killed(tmp_path: Path) -> None:
    server = SluiceServer(binary=_script(tmp_path, "trap '' TERM\nexec sleep 120"), start_timeout=1, stop_timeout=1)
    with pytest.raises(RuntimeError):
        server.start()
    assert server.process.poll() == -9  # SIGKILLed


def test_fixed_kafka_port_is_passed_to_serve(tmp_path: Path) -> None:
    server = SluiceServer(binary=_script(tmp_path, 'echo "args: $*" >&2\nexit 3'), kafka_port=19092)
    with pytest.raises(RuntimeError, match=r"args: serve .*--kafka-listen 127\.0\.0\.1:19092"):
        server.start()
    assert server.kafka_bootstrap == "127.0.0.1:19092"


def test_missing_binary(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="no Sluice binary"):
        SluiceServer(binary=tmp_path / "nope").start()


def test_postgres_server_lifecycle() -> None:
    with PostgresServer() as server:
        port = server.port
        with psycopg.connect(server.endpoint().conninfo) as conn:
            assert conn.execute("SHOW timezone").fetchone() == ("UTC",)
            assert conn.execute("SELECT current_user, current_database()").fetchone() == ("root", "dev")
        other = server.create_database("x")
        with psycopg.connect(other.conninfo) as conn:
            assert conn.execute("SELECT current_database()").fetchone() == ("x_1",)
        server.drop_database(other)
    assert server.process.poll() is not None
    assert _port_is_closed(port)


def test_free_port_is_bindable() -> None:
    port = free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))
