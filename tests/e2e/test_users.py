"""Users and passwords on the SQL port: roles made with CREATE USER / ROLE log in with SCRAM-SHA-256
from psql, psycopg and pg8000; wrong passwords (28P01), unknown users and NOLOGIN roles (28000) are
refused; a thousand bad guesses from ten clients get nobody in and cost them time while a right
client still logs in within a second; passwords are kept only as SCRAM verifiers, in a file only
the server's user can read; and Sluice will not trust every client on a shared address."""

from __future__ import annotations

import base64
import json
import os
import socket
import stat
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pg8000.native
import psycopg
import pytest

from harness import SluiceServer
from harness.ports import free_port
from harness.sluice_server import sluice_binary
from source_support import connect, wait_until

PASSWORDS = {"alice": "wonder land", "bob": "b0b's pa$$"}


def _sqlstate(error: Exception) -> str | None:
    args = getattr(error, "args", ())
    return args[0].get("C") if args and isinstance(args[0], dict) else getattr(error, "sqlstate", None)


def _pg8000(server: SluiceServer, user: str, password: str | None) -> pg8000.native.Connection:
    return pg8000.native.Connection(user=user, password=password, host=server.host, port=server.port, database="dev", timeout=30)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server whose loopback clients must use SCRAM, with users made while it trusted them."""
    data = tmp_path_factory.mktemp("users") / "data"
    with SluiceServer(data_dir=data) as trusting, connect(trusting) as conn:
        conn.execute(f"CREATE USER alice WITH PASSWORD '{PASSWORDS['alice']}'")
        conn.execute("CREATE USER bob PASSWORD 'first'")
        conn.execute("ALTER USER bob WITH PASSWORD 'b0b''s pa$$' CREATEDB")
        conn.execute("CREATE ROLE reader PASSWORD 'r'")  # a role, NOLOGIN by default
        conn.execute("CREATE USER admin WITH SUPERUSER PASSWORD 'admin'")
        conn.execute("ALTER USER root WITH PASSWORD 'root'")
    with SluiceServer(data_dir=data, extra_args=["--auth-loopback", "scram"]) as scram:
        yield scram


def test_scram_logins_from_psql_psycopg_and_pg8000(server: SluiceServer) -> None:
    run = subprocess.run(["psql", "-h", server.host, "-p", str(server.port), "-U", "alice", "-d", "dev", "-tAc", "SELECT 40 + 2"],
                         capture_output=True, timeout=30, env={**os.environ, "PGPASSWORD": PASSWORDS["alice"]})
    assert run.returncode == 0 and run.stdout.decode().strip() == "42", run.stderr.decode()
    with psycopg.connect(host=server.host, port=server.port, user="bob", password=PASSWORDS["bob"], dbname="dev") as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    con = _pg8000(server, "admin", "admin")
    assert con.run("SELECT 2") == [[2]]
    con.close()


def test_wrong_passwords_unknown_users_and_nologin_roles_are_refused(server: SluiceServer) -> None:
    cases = [("alice", "wrong", "28P01"), ("mallory", "x", "28000"), ("reader", "r", "28000"), ("root", "wrong", "28P01")]
    for user, password, expected in cases:
        with pytest.raises(Exception) as raised:
            _pg8000(server, user, password)
        assert _sqlstate(raised.value) == expected, (user, raised.value)
    run = subprocess.run(["psql", "-h", server.host, "-p", str(server.port), "-U", "alice", "-d", "dev", "-c", "SELECT 1"],
                         capture_output=True, timeout=30, env={**os.environ, "PGPASSWORD": "nope"})
    assert run.returncode != 0 and 'password authentication failed for user "alice"' in run.stderr.decode()
    with pytest.raises(psycopg.OperationalError, match='role "mallory" does not exist'):
        psycopg.connect(host=server.host, port=server.port, user="mallory", password="x", dbname="dev")


def test_guessing_passwords_gets_nobody_in_and_does_not_hold_others_up(server: SluiceServer) -> None:
    accepted: list[str] = []
    refused = 0
    lock = threading.Lock()

    def guess(worker: int) -> None:
        nonlocal refused
        for attempt in range(100):
            try:
                _pg8000(server, "alice", f"guess-{worker}-{attempt}").close()
                with lock:
                    accepted.append(f"{worker}-{attempt}")
            except Exception as error:  # noqa: BLE001 - the SQLSTATE is the assertion
                assert _sqlstate(error) == "28P01", error
                with lock:
                    refused += 1

    workers = [threading.Thread(target=guess, args=(n,)) for n in range(10)]
    start = time.monotonic()
    for worker in workers:
        worker.start()
    # Meanwhile the right password keeps working, each login within a second.
    logins = []
    while any(worker.is_alive() for worker in workers):
        began = time.monotonic()
        con = _pg8000(server, "alice", PASSWORDS["alice"])
        assert con.run("SELECT 1") == [[1]]
        con.close()
        logins.append(time.monotonic() - began)
        time.sleep(0.2)
    for worker in workers:
        worker.join()
    elapsed = time.monotonic() - start
    assert accepted == [] and refused == 1000
    assert len(logins) >= 5 and max(logins) < 1.0, logins
    # Each refusal waits a quarter of a second: ten clients take 25 s for their hundred guesses each.
    assert elapsed >= 25, elapsed
    metrics = _http(server, "/metrics", ("admin", "admin"))[1]
    failed = next(line for line in metrics.splitlines() if line.startswith("sluice_failed_logins_total"))
    assert float(failed.split()[-1]) >= 1000


def _http(server: SluiceServer, path: str, credentials: tuple[str, str] | None, body: bytes | None = None) -> tuple[int, str]:
    """The status and body of a request to the HTTP app, with Basic credentials if given."""
    request = urllib.request.Request(f"{server.http_base}{path}", data=body)
    if credentials:
        token = base64.b64encode(f"{credentials[0]}:{credentials[1]}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_the_http_app_takes_the_same_users(server: SluiceServer) -> None:
    """Where SQL clients need passwords, so does the dashboard: HTTP Basic with a SQL user's
    password. The whole pipeline (graph, views, metrics) takes a superuser; the SQL box runs as
    the user who logged in, with that user's privileges; /health and /ready stay open."""
    assert _http(server, "/health", None)[0] == 200
    assert _http(server, "/ready", None)[0] == 200
    for path in ("/", "/metrics", "/api/state"):
        assert _http(server, path, None)[0] == 401
        assert _http(server, path, ("admin", "wrong"))[0] == 401
        assert _http(server, path, ("mallory", "admin"))[0] == 401
    assert _http(server, "/", ("alice", PASSWORDS["alice"]))[0] == 200
    assert _http(server, "/metrics", ("alice", PASSWORDS["alice"]))[0] == 403
    assert _http(server, "/api/state", ("alice", PASSWORDS["alice"]))[0] == 403
    status, metrics = _http(server, "/metrics", ("admin", "admin"))
    assert status == 200 and "sluice_failed_logins_total" in metrics
    con = _pg8000(server, "admin", "admin")
    con.run("CREATE TABLE IF NOT EXISTS http_private (x int)")
    con.run("INSERT INTO http_private VALUES (5)")
    con.close()
    status, answer = _http(server, "/api/query", ("alice", PASSWORDS["alice"]), b"SELECT x FROM http_private")
    assert status == 200 and json.loads(answer)["error"]["sqlstate"] == "42501", answer
    status, answer = _http(server, "/api/query", ("admin", "admin"), b"SELECT x FROM http_private")
    assert status == 200 and json.loads(answer)["rows"] == [[5]], answer


def test_roles_in_pg_roles_and_psql_du(server: SluiceServer) -> None:
    con = _pg8000(server, "admin", "admin")
    rows = con.run("SELECT rolname, rolsuper, rolcanlogin, rolcreatedb, rolpassword FROM pg_roles ORDER BY rolname")
    assert rows == [["admin", True, True, False, "********"], ["alice", False, True, False, "********"],
                    ["bob", False, True, True, "********"], ["reader", False, False, False, "********"],
                    ["root", True, True, True, "********"]]
    assert sorted(r[0] for r in con.run("SELECT usename FROM pg_user")) == ["admin", "alice", "bob", "root"]
    con.close()
    run = subprocess.run(["psql", "-h", server.host, "-p", str(server.port), "-U", "admin", "-d", "dev", "-c", r"\du"],
                         capture_output=True, timeout=30, env={**os.environ, "PGPASSWORD": "admin"})
    assert run.returncode == 0, run.stderr.decode()
    text = run.stdout.decode()
    for name in ("admin", "alice", "bob", "reader", "root"):
        assert name in text, text
    assert "Cannot login" in text and "Superuser" in text


def test_who_may_create_alter_and_drop_roles(server: SluiceServer) -> None:
    alice = _pg8000(server, "alice", PASSWORDS["alice"])
    for statement in ["CREATE USER eve", "DROP USER bob", "ALTER USER bob NOLOGIN", "ALTER USER alice SUPERUSER"]:
        with pytest.raises(Exception) as raised:
            alice.run(statement)
        assert _sqlstate(raised.value) == "42501", statement
    # A user may change its own password.
    alice.run("ALTER USER alice PASSWORD 'new one'")
    alice.close()
    _pg8000(server, "alice", "new one").close()
    admin = _pg8000(server, "admin", "admin")
    admin.run(f"ALTER USER alice PASSWORD '{PASSWORDS['alice']}'")
    admin.run("CREATE USER temp PASSWORD 't'")
    _pg8000(server, "temp", "t").close()
    admin.run("ALTER USER temp NOLOGIN")
    with pytest.raises(Exception) as raised:
        _pg8000(server, "temp", "t")
    assert _sqlstate(raised.value) == "28000"
    admin.run("DROP USER temp")
    with pytest.raises(Exception) as raised:
        _pg8000(server, "temp", "t")
    assert _sqlstate(raised.value) == "28000"
    for statement, expected in [("CREATE USER alice", "42710"), ("DROP USER nobody", "42704"), ("DROP USER admin", "55006"),
                                ("DROP USER root", "2BP01"), ("CREATE USER pg_x", "42939"), ("ALTER USER nobody LOGIN", "42704"),
                                ("CREATE USER x PASSWORD ''", "22023")]:
        with pytest.raises(Exception) as raised:
            admin.run(statement)
        assert _sqlstate(raised.value) == expected, statement
    admin.run("DROP USER IF EXISTS nobody")
    admin.close()


def test_passwords_are_kept_as_verifiers_readable_by_the_owner_only(server: SluiceServer) -> None:
    catalog = server.data_dir / "catalog.json"
    text = catalog.read_text()
    for password in PASSWORDS.values():
        assert f'"{password}"' not in text
    assert "storedKey" in text
    assert stat.S_IMODE(catalog.stat().st_mode) == 0o600


def _non_loopback_address() -> str | None:
    """An address of this machine that is not loopback, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: no packet is sent for a UDP connect
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def _serve_on_every_address(data_dir: Path, port: int) -> subprocess.Popen:
    """`sluice serve` on 0.0.0.0:`port` with the default logins, once it listens (stopped by the caller)."""
    process = subprocess.Popen([str(sluice_binary()), "serve", "--listen", f"0.0.0.0:{port}", "--data-dir", str(data_dir),
                                "--no-broker", "--no-catalog", "--no-dashboard", "--no-webhook", "--no-schema-registry", "--no-flink-gateway", "--no-trino", "--no-ksql"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def listening() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False
    wait_until(listening, 30, "the server on 0.0.0.0")
    return process


def test_trust_is_refused_on_a_shared_address(tmp_path: Path) -> None:
    port = free_port()
    refused = subprocess.run([str(sluice_binary()), "serve", "--listen", f"0.0.0.0:{port}", "--auth", "trust", "--data-dir", str(tmp_path / "a"),
                              "--no-broker", "--no-catalog", "--no-dashboard", "--no-webhook", "--no-schema-registry", "--no-flink-gateway", "--no-trino", "--no-ksql"], capture_output=True, timeout=30)
    assert refused.returncode != 0 and b"refusing --auth trust" in refused.stderr, refused.stderr
    # The default, SCRAM for the others, starts; with it a non-loopback client must prove who it is.
    with SluiceServer(data_dir=tmp_path / "b", host="127.0.0.1") as local, connect(local) as conn:
        conn.execute("CREATE USER carol PASSWORD 'c'")
    address = _non_loopback_address()
    process = _serve_on_every_address(tmp_path / "b", port)
    try:
        # Loopback clients are trusted by default.
        pg8000.native.Connection(user="root", host="127.0.0.1", port=port, database="dev", timeout=30).close()
        if address is not None:
            with pytest.raises(Exception) as raised:
                pg8000.native.Connection(user="root", password="anything", host=address, port=port, database="dev", timeout=30)
            assert _sqlstate(raised.value) == "28P01"
            pg8000.native.Connection(user="carol", password="c", host=address, port=port, database="dev", timeout=30).close()
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_loopback_asks_for_the_password_a_role_has(tmp_path: Path) -> None:
    """By default (`--auth-loopback auto`) a loopback client gets in without a password only as a
    role that has none (root, until it is given one); a role with a password must give it, by
    SCRAM (28P01 otherwise), from loopback as from other addresses. Kafka clients, the dashboard
    and `is_superuser` follow the role. `--auth-loopback trust` keeps trusting everyone."""
    data = tmp_path / "data"
    with SluiceServer(data_dir=data) as server:
        root = _pg8000(server, "root", None)
        root.run("CREATE USER dora WITH PASSWORD 'right one'")
        root.run("CREATE USER ned")  # no password
        root.close()
        for password in ("wrong", "", "right onE"):
            with pytest.raises(Exception) as raised:
                _pg8000(server, "dora", password).close()
            assert _sqlstate(raised.value) == "28P01", (password, raised.value)
        with pytest.raises(psycopg.OperationalError) as refused:
            psycopg.connect(host=server.host, port=server.port, user="dora", password="nope", dbname="dev").close()
        assert "password authentication failed" in str(refused.value)
        run = subprocess.run(["psql", "-h", server.host, "-p", str(server.port), "-U", "dora", "-d", "dev", "-w", "-tAc", "SELECT 1"],
                             capture_output=True, timeout=30, env={k: v for k, v in os.environ.items() if k != "PGPASSWORD"})
        assert run.returncode != 0 and b"password" in run.stderr, run.stderr
        with psycopg.connect(host=server.host, port=server.port, user="dora", password="right one", dbname="dev") as conn:
            assert conn.execute("SELECT current_user").fetchone() == ("dora",)
            assert conn.info.parameter_status("is_superuser") == "off"
        with psycopg.connect(host=server.host, port=server.port, user="ned", dbname="dev") as conn:
            assert conn.execute("SELECT session_user").fetchone() == ("ned",)
        with psycopg.connect(host=server.host, port=server.port, user="root", dbname="dev") as conn:
            assert conn.info.parameter_status("is_superuser") == "on"
            # SET ROLE reports the new role's is_superuser, as PostgreSQL does.
            conn.execute("SET ROLE ned")
            assert conn.info.parameter_status("is_superuser") == "off"
            assert conn.execute("SELECT current_user, session_user").fetchone() == ("ned", "root")
            conn.execute("RESET ROLE")
            assert conn.info.parameter_status("is_superuser") == "on"

        # The dashboard: open while root has no password; then it asks, as SQL does.
        assert _http(server, "/api/state", None)[0] == 200
        with psycopg.connect(host=server.host, port=server.port, user="root", dbname="dev", autocommit=True) as conn:
            conn.execute("ALTER USER root WITH PASSWORD 'root pw'")
        assert _http(server, "/api/state", None)[0] == 401
        assert _http(server, "/api/state", ("root", "wrong"))[0] == 401
        assert _http(server, "/api/state", ("root", "root pw"))[0] == 200
        with pytest.raises(psycopg.OperationalError) as raised:
            psycopg.connect(host=server.host, port=server.port, user="root", dbname="dev").close()
        assert "no password supplied" in str(raised.value), raised.value
        with pytest.raises(Exception) as raised:
            _pg8000(server, "root", "root pW").close()
        assert _sqlstate(raised.value) == "28P01", raised.value

        # Kafka clients: SASL with a wrong password is refused on loopback too.
        from kafka import KafkaProducer
        from kafka.errors import KafkaError
        with pytest.raises(KafkaError):
            KafkaProducer(bootstrap_servers=server.kafka_bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                          sasl_plain_username="dora", sasl_plain_password="wrong", request_timeout_ms=5000).close()
        from kafka import KafkaAdminClient
        admin = KafkaAdminClient(bootstrap_servers=server.kafka_bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                                 sasl_plain_username="dora", sasl_plain_password="right one", request_timeout_ms=10000)
        assert isinstance(admin.list_topics(), list)
        admin.close()

        address = _non_loopback_address()
    # `--auth-loopback trust` keeps today's behaviour for those who ask for it.
    with SluiceServer(data_dir=data, extra_args=["--auth-loopback", "trust"]) as trusting:
        with psycopg.connect(host=trusting.host, port=trusting.port, user="dora", password="wrong", dbname="dev") as conn:
            assert conn.execute("SELECT current_user").fetchone() == ("dora",)
    # From another address, the same rule as ever: the password or 28P01.
    if address is not None:
        port = free_port()
        process = _serve_on_every_address(data, port)
        try:
            with pytest.raises(Exception) as raised:
                pg8000.native.Connection(user="dora", password="wrong", host=address, port=port, database="dev", timeout=30)
            assert _sqlstate(raised.value) == "28P01"
            pg8000.native.Connection(user="dora", password="right one", host=address, port=port, database="dev", timeout=30).close()
        finally:
            process.terminate()
            process.wait(timeout=30)
