"""TLS with `--tls-cert` and `--tls-key`, with a certificate authority and server certificate made
here by the `openssl` command: psql, psycopg and pg8000 connect with sslmode=require and
verify-full (which checks the certificate's chain and host name), a plain connection is
refused where TLS is required, and the dashboard and the Iceberg catalog answer HTTPS only."""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pg8000.native
import psycopg
import pytest

from harness import SluiceServer
from harness.ports import free_port
from harness.sluice_server import sluice_binary
from tls_support import make_certificates, openssl


@pytest.fixture(scope="module")
def certificates(tmp_path_factory) -> dict[str, Path]:
    """A CA, and a server certificate it signed for the name `localhost` only (not 127.0.0.1),
    so that verify-full by address fails and by name succeeds."""
    return make_certificates(tmp_path_factory.mktemp("tls"))


def _tls_args(certificates) -> list[str]:
    return ["--tls-cert", str(certificates["cert"]), "--tls-key", str(certificates["key"]), "--kafka-ssl-listen", f"127.0.0.1:{free_port()}"]


@pytest.fixture(scope="module")
def server(certificates, tmp_path_factory):
    args = _tls_args(certificates) + ["--require-tls-on-loopback"]
    with SluiceServer(data_dir=tmp_path_factory.mktemp("tls-data") / "data", extra_args=args) as sluice:
        with psycopg.connect(host="localhost", port=sluice.port, user="root", dbname="dev", autocommit=True, sslmode="require") as conn:
            conn.execute("CREATE USER alice WITH PASSWORD 'tls-secret'")
            conn.execute("CREATE TABLE secrets_in_transit (x int)")
            conn.execute("INSERT INTO secrets_in_transit VALUES (42)")
            conn.execute("GRANT SELECT ON secrets_in_transit TO alice")
        yield sluice


def _psql(server: SluiceServer, dsn: str, sql: str) -> subprocess.CompletedProcess:
    return subprocess.run(["psql", dsn, "-X", "-tA", "-c", sql], capture_output=True, text=True, timeout=30,
                          env={**os.environ, "PGPASSWORD": "tls-secret", "PGCONNECT_TIMEOUT": "10"})


def test_psql_verify_full_connects_over_tls(server: SluiceServer, certificates) -> None:
    dsn = f"host=localhost port={server.port} dbname=dev user=alice sslmode=verify-full sslrootcert={certificates['ca']}"
    run = _psql(server, dsn, "SELECT x FROM secrets_in_transit")
    assert run.returncode == 0 and run.stdout.strip() == "42", run.stderr
    info = subprocess.run(["psql", dsn, "-X", "-c", "\\conninfo"], capture_output=True, text=True, timeout=30,
                          env={**os.environ, "PGPASSWORD": "tls-secret"})
    assert "SSL connection (protocol: TLSv1." in info.stdout, info.stdout + info.stderr


def test_verify_full_checks_the_host_name_and_the_authority(server: SluiceServer, certificates, tmp_path) -> None:
    # The certificate names localhost, not 127.0.0.1.
    run = _psql(server, f"host=127.0.0.1 port={server.port} dbname=dev user=alice sslmode=verify-full sslrootcert={certificates['ca']}", "SELECT 1")
    assert run.returncode != 0 and "does not match host name" in run.stderr, run.stderr
    # A certificate authority that did not sign it.
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out", "other.pem", "-days", "1",
             "-subj", "/CN=Other CA", cwd=tmp_path)
    run = _psql(server, f"host=localhost port={server.port} dbname=dev user=alice sslmode=verify-full sslrootcert={tmp_path / 'other.pem'}", "SELECT 1")
    assert run.returncode != 0 and "certificate verify failed" in run.stderr, run.stderr


def test_psycopg_and_pg8000_over_tls(server: SluiceServer, certificates) -> None:
    with psycopg.connect(host="localhost", port=server.port, user="alice", password="tls-secret", dbname="dev",
                         sslmode="verify-full", sslrootcert=str(certificates["ca"])) as conn:
        assert conn.execute("SELECT x FROM secrets_in_transit").fetchone() == (42,)
        assert conn.pgconn.ssl_in_use
    context = ssl.create_default_context(cafile=str(certificates["ca"]))
    con = pg8000.native.Connection(user="alice", password="tls-secret", host="localhost", port=server.port, database="dev",
                                   ssl_context=context, timeout=30)
    assert con.run("SELECT x FROM secrets_in_transit") == [[42]]
    con.close()


def test_plain_connections_are_refused_where_tls_is_required(server: SluiceServer) -> None:
    with pytest.raises(psycopg.OperationalError) as raised:
        psycopg.connect(host="localhost", port=server.port, user="alice", password="tls-secret", dbname="dev", sslmode="disable")
    assert "no encryption" in str(raised.value)
    with pytest.raises(Exception) as raised:
        # pg8000 tries TLS unless told not to (ssl_context=False).
        pg8000.native.Connection(user="alice", password="tls-secret", host="localhost", port=server.port, database="dev", timeout=30,
                                 ssl_context=False)
    assert "28000" in str(raised.value)


def test_without_the_loopback_requirement_loopback_may_choose(certificates, tmp_path) -> None:
    args = _tls_args(certificates)
    with SluiceServer(data_dir=tmp_path / "data", extra_args=args) as sluice:
        with psycopg.connect(host="localhost", port=sluice.port, user="root", dbname="dev", sslmode="disable") as conn:
            assert not conn.pgconn.ssl_in_use
        with psycopg.connect(host="localhost", port=sluice.port, user="root", dbname="dev", sslmode="verify-full",
                             sslrootcert=str(certificates["ca"])) as conn:
            assert conn.pgconn.ssl_in_use and conn.execute("SELECT 7").fetchone() == (7,)


def test_http_ports_serve_https_only(server: SluiceServer, certificates) -> None:
    context = ssl.create_default_context(cafile=str(certificates["ca"]))
    dashboard = server.http_base.replace("http://127.0.0.1", "https://localhost")
    with urllib.request.urlopen(f"{dashboard}/health", context=context, timeout=10) as response:
        assert response.status == 200
    catalog = server.catalog_base.replace("http://127.0.0.1", "https://localhost")
    request = urllib.request.Request(f"{catalog}/v1/oauth/tokens", data=b"grant_type=client_credentials&client_id=root&client_secret=secret&scope=PRINCIPAL_ROLE:ALL",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, context=context, timeout=10) as response:
        assert "access_token" in json.loads(response.read())
    registry = server.schema_registry_url.replace("http://127.0.0.1", "https://localhost")
    with urllib.request.urlopen(f"{registry}/subjects", context=context, timeout=10) as response:
        assert json.loads(response.read()) == []
    for base in (server.http_base, server.catalog_base, server.schema_registry_url):
        with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
            urllib.request.urlopen(f"{base}/health", timeout=10).read()


def test_bad_certificate_files_stop_the_start_with_a_clear_error(certificates, tmp_path) -> None:
    run = subprocess.run([str(sluice_binary()), "serve", "--data-dir", str(tmp_path / "d"), "--listen", "127.0.0.1:0",
                          "--kafka-listen", "127.0.0.1:0", "--catalog-listen", "127.0.0.1:0", "--dashboard-listen", "127.0.0.1:0",
                          "--tls-cert", str(tmp_path / "missing.pem"), "--tls-key", str(certificates["key"])],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "could not read the TLS certificate" in run.stderr, run.stderr
    run = subprocess.run([str(sluice_binary()), "serve", "--tls-cert", str(certificates["cert"])], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "--tls-cert and --tls-key go together" in run.stderr, run.stderr
