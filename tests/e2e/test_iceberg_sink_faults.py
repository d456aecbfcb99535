"""What an Iceberg sink does when its catalog or table is wrong or goes away: a clear error at
CREATE for an unreachable catalog, bad credentials, a table whose schema does not fit and
options that do not exist; and, when the catalog goes down while the sink runs, a sink that
reports `retrying` with the cause in `sluice_sinks`, keeps its rows, and commits each exactly
once when the catalog is back.

The outside catalog is a second Sluice server (its built-in REST catalog), so that it can be
killed and restarted on the same port with the same data."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog

from harness import SluiceServer
from harness.ports import free_port
from source_support import connect, wait_until


def _sqlstate(conn: psycopg.Connection, statement: str) -> tuple[str, str]:
    with pytest.raises(psycopg.Error) as failure:
        conn.execute(statement)
    return failure.value.sqlstate, str(failure.value)


def _sink(name: str, uri: str, credential: str = "root:secret", table: str | None = None, extra: str = "") -> str:
    return f"""CREATE SINK {name} AS SELECT * FROM t WITH (connector = 'iceberg', type = 'append-only',
        database.name = 'faults', table.name = '{table or name}', warehouse.path = 'lake', catalog.type = 'rest',
        catalog.uri = '{uri}', catalog.credential = '{credential}', commit_checkpoint_interval = '1'{extra})"""


def _catalog(base: str) -> RestCatalog:
    return RestCatalog("lake", uri=f"{base}/api/catalog", credential="root:secret", warehouse="lake",
                       **{"oauth2-server-uri": f"{base}/api/catalog/v1/oauth/tokens"})


def test_errors_at_create(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as conn:
        conn.execute("CREATE TABLE t (id bigint, name varchar) APPEND ONLY")
        closed = free_port()
        code, message = _sqlstate(conn, _sink("down", f"http://127.0.0.1:{closed}/api/catalog"))
        assert code == "HV00N", message
        assert str(closed) in message
        code, message = _sqlstate(conn, _sink("denied", f"{server.catalog_base}/api/catalog", credential="root:wrong"))
        assert code in {"28000", "28P01"}, message
        code, message = _sqlstate(conn, _sink("typo", f"{server.catalog_base}/api/catalog", extra=", s3.acess.key = 'x'"))
        assert code == "42601" and "s3.acess.key" in message
        # A table that exists with a column of another type.
        catalog = _catalog(server.catalog_base)
        catalog.create_namespace("faults")
        catalog.create_table("faults.wrong", schema=pa.schema([pa.field("id", pa.string()), pa.field("name", pa.string())]))
        code, message = _sqlstate(conn, _sink("mismatch", f"{server.catalog_base}/api/catalog", table="wrong"))
        assert code == "42804" and "id" in message, message
        catalog.create_table("faults.narrow", schema=pa.schema([pa.field("id", pa.int64())]))
        code, message = _sqlstate(conn, _sink("missing", f"{server.catalog_base}/api/catalog", table="narrow"))
        assert code == "42703" and "name" in message, message
        # Nothing half-made.
        assert conn.execute("SHOW SINKS").fetchall() == []


def test_a_catalog_outage_is_retried_without_loss_or_repeats(tmp_path: Path) -> None:
    port = free_port()
    lake_data = tmp_path / "lake"
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as conn:
        conn.execute("CREATE TABLE t (id bigint, name varchar) APPEND ONLY")
        with SluiceServer(data_dir=lake_data, catalog_port=port) as lake:
            base = lake.catalog_base
            conn.execute(_sink("out", f"{base}/api/catalog"))
            conn.execute("INSERT INTO t SELECT g, 'before' FROM generate_series(1, 100) AS g")
            conn.execute("FLUSH")
            wait_until(lambda: conn.execute("SELECT rows FROM sluice_sinks WHERE name = 'out'").fetchone()[0] == 100, 30,
                       "the first rows committed")
            lake.kill()
        # The catalog is gone: the sink keeps taking rows and says why it cannot commit.
        conn.execute("INSERT INTO t SELECT g, 'during' FROM generate_series(101, 250) AS g")
        conn.execute("FLUSH")
        state = wait_until(lambda: (row := conn.execute(
            "SELECT state, last_error, pending_epochs, commit_failures FROM sluice_sinks WHERE name = 'out'").fetchone())[0] == "retrying" and row,
            30, "the sink to report the outage")
        assert state[1] and str(port) in state[1], state
        assert state[2] >= 1 and state[3] >= 1
        # Queries and other sessions go on meanwhile.
        assert conn.execute("SELECT count(*) FROM t").fetchone() == (250,)
        with SluiceServer(data_dir=lake_data, catalog_port=port) as lake:
            conn.execute("INSERT INTO t SELECT g, 'after' FROM generate_series(251, 300) AS g")
            conn.execute("FLUSH")
            wait_until(lambda: conn.execute("SELECT rows, state FROM sluice_sinks WHERE name = 'out'").fetchone() == (300, "committed"), 90,
                       "the sink to commit everything once the catalog is back")
            rows = _catalog(lake.catalog_base).load_table("faults.out").scan().to_arrow().to_pylist()
            assert sorted(row["id"] for row in rows) == list(range(1, 301))
            assert conn.execute("SELECT last_error FROM sluice_sinks WHERE name = 'out'").fetchone() == (None,)
