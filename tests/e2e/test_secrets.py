"""Connectors' secrets stay secret: the passwords, keys, tokens and credentials a source or sink
is created with (in `WITH (…)`, in `FORMAT … ENCODE … (…)`, or as the password of a URL) never
appear in SHOW CREATE, in any system table or view, in the dashboard's API, in an error a client
gets, or in the server's log; and the data directory that keeps them is its owner's alone
(0700, the catalog file 0600).

One Kafka source (SASL settings, which the built-in broker's plaintext listener leaves unused),
one Iceberg sink into the built-in catalog with S3 and catalog credentials, an Iceberg sink to a
second server's catalog through a URL with a password, whose catalog then goes away (so the
sink's error path runs and its `last_error` is shown), and mistakes at CREATE whose errors would
quote the secrets. Then a restart, whose start replays every definition."""

from __future__ import annotations

import json
import re
import stat
import urllib.request
from pathlib import Path

import psycopg
import pytest
from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic
from kafka_support import unique_topic

from harness import SluiceServer
from harness.ports import free_port
from source_support import connect, source_status, wait_until

REPO_ROOT = Path(__file__).resolve().parents[2]
SYSTEM_TABLES = REPO_ROOT / "Sources" / "SluicePlanner" / "System" / "Tables"

# Distinctive, so that finding one anywhere is a leak and nothing else.
KAFKA_PASSWORD = "kafka-Pw-7f3c9e1a"
REGISTRY_PASSWORD = "registry-Pw-b41d"
S3_ACCESS_KEY = "AKIA-E2E-5C0FFEE"
S3_SECRET_KEY = "s3-Secret-41d8b2e"
CATALOG_SECRET = "catalog-Cred-9a7e"
CATALOG_TOKEN = "tok-3b9f0d2c77"
URL_PASSWORD = "url-Pw-0e5a77"
RUNTIME_URL_PASSWORD = "url-Pw-runtime-88c1"
TYPO_PASSWORD = "typo-Pw-6d2f"
STORED_SECRET = "stored-Pw-51ab9c"
SECRETS = [KAFKA_PASSWORD, REGISTRY_PASSWORD, S3_ACCESS_KEY, S3_SECRET_KEY, CATALOG_SECRET, CATALOG_TOKEN, URL_PASSWORD,
           RUNTIME_URL_PASSWORD, TYPO_PASSWORD, STORED_SECRET]


def _leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


def _create_error(conn: psycopg.Connection, statement: str) -> psycopg.Error:
    with pytest.raises(psycopg.Error) as failure:
        conn.execute(statement)
    return failure.value


def _error_text(error: psycopg.Error) -> str:
    diag = error.diag
    return "\n".join(filter(None, [str(error), diag.message_primary, diag.message_detail, diag.message_hint, diag.context]))


def _system_relations() -> list[str]:
    """Every relation the system catalog serves: the name each file under `System/Tables/`
    declares (`static let name = "…"`), one table per file."""
    names = sorted({name for path in SYSTEM_TABLES.rglob("*.swift")
                    for name in re.findall(r'^\s*static let name = "([a-z_]+)"', path.read_text(), re.MULTILINE)})
    assert {"rw_sources", "rw_sinks", "pg_views", "views", "sluice_sinks"} <= set(names), names
    return names


def _every_system_row(conn: psycopg.Connection) -> tuple[dict[str, str], set[str]]:
    """The text of every row of every system relation, by qualified name; and the names of the
    relations with a definition-like column."""
    texts: dict[str, str] = {}
    with_definitions: set[str] = set()
    for name in _system_relations():
        for schema in ("", "pg_catalog.", "rw_catalog.", "information_schema."):
            try:
                cursor = conn.execute(f"SELECT * FROM {schema}{name}")
            except psycopg.Error:
                continue
            columns = [column.name for column in cursor.description]
            texts[f"{schema}{name}"] = json.dumps([columns] + [[str(value) for value in row] for row in cursor.fetchall()])
            if any(word in column for column in columns for word in ("definition", "statement", "error", "status", "options")):
                with_definitions.add(name)
    return texts, with_definitions


def _dashboard(server: SluiceServer) -> str:
    with urllib.request.urlopen(f"{server.http_base}/api/state", timeout=30) as response:
        state = response.read().decode()
    texts = [state]
    for sql in ("SHOW CREATE SOURCE clicks", "SHOW CREATE SINK lake", "SELECT * FROM rw_sources", "SELECT * FROM rw_sinks",
                "SELECT * FROM sluice_sinks"):
        request = urllib.request.Request(f"{server.http_base}/api/query", data=sql.encode(), method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            texts.append(response.read().decode())
    return "\n".join(texts)


def _check_nothing_shows_a_secret(server: SluiceServer, conn: psycopg.Connection) -> None:
    shown = {
        "SHOW CREATE SOURCE clicks": conn.execute("SHOW CREATE SOURCE clicks").fetchone()[1],
        "SHOW CREATE TABLE registered": conn.execute("SHOW CREATE TABLE registered").fetchone()[1],
        "SHOW CREATE SINK lake": conn.execute("SHOW CREATE SINK lake").fetchone()[1],
        "SHOW CREATE SINK remote": conn.execute("SHOW CREATE SINK remote").fetchone()[1],
    }
    for statement, text in shown.items():
        assert not _leaks(text), (statement, text)
        assert "[REDACTED]" in text, (statement, text)
    # What stays: the options that are no secret, and the user of the catalog's URL.
    assert "properties.sasl.username = 'svc'" in shown["SHOW CREATE SOURCE clicks"]
    assert "\"properties.sasl.password\" = [REDACTED]" in shown["SHOW CREATE SOURCE clicks"]
    assert "schema.registry.password = [REDACTED]" in shown["SHOW CREATE TABLE registered"]
    assert "s3.secret.key = [REDACTED]" in shown["SHOW CREATE SINK lake"]
    assert "catalog.uri = 'http://svc:[REDACTED]@127.0.0.1:" in shown["SHOW CREATE SINK remote"]

    texts, with_definitions = _every_system_row(conn)
    assert {"rw_sources", "rw_sinks", "rw_materialized_views", "pg_views", "pg_matviews", "views", "sluice_sinks", "sluice_sources",
            "sluice_source_errors", "rw_ddl_progress"} <= with_definitions, sorted(with_definitions)
    for relation, text in texts.items():
        assert not _leaks(text), (relation, text[:2000])
    definitions = conn.execute("SELECT definition FROM rw_sources UNION ALL SELECT definition FROM rw_sinks").fetchall()
    # (clicks_ref names its secret, and shows the name.)
    assert len(definitions) == 5 and sum("[REDACTED]" in row[0] for row in definitions) == 4, definitions
    for (oid,) in conn.execute("SELECT oid FROM pg_class").fetchall():
        viewdef = conn.execute("SELECT pg_get_viewdef(%s)", (oid,)).fetchone()[0]
        assert not _leaks(viewdef or ""), viewdef

    assert not _leaks(_dashboard(server))


def _check_the_data_directory(server: SluiceServer, conn: psycopg.Connection) -> None:
    data = server.data_dir
    assert stat.S_IMODE(data.stat().st_mode) == 0o700, oct(data.stat().st_mode)
    catalog_file = data / "catalog.json"
    assert stat.S_IMODE(catalog_file.stat().st_mode) == 0o600, oct(catalog_file.stat().st_mode)
    key_file = data / "catalog.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and len(key_file.read_bytes()) == 32
    # After a checkpoint, no file under the data directory holds a secret in clear: the catalog
    # keeps them sealed (a restart opens them).
    conn.execute("CHECKPOINT")
    files = [path for path in data.rglob("*") if path.is_file()]
    assert catalog_file in files and len(files) > 3, files
    for path in files:
        content = path.read_bytes()
        found = [secret for secret in SECRETS if secret.encode() in content]
        assert not found, (str(path), found)
    assert "sealedRelations" in catalog_file.read_text() and "sealedSecrets" in catalog_file.read_text()


def test_secrets_are_never_shown(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o755)
    lake_port = free_port()
    with SluiceServer(data_dir=data_dir) as server, connect(server) as conn:
        bootstrap = server.kafka_bootstrap
        topic = unique_topic("secrets")
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
        admin.create_topics([NewTopic(topic, 1, 1)])
        admin.close()

        # A Kafka source with SASL settings: the plaintext listener leaves them unused.
        conn.execute(f"""CREATE SOURCE clicks (id bigint, page varchar) WITH (connector = 'kafka', topic = '{topic}',
            properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'earliest', properties.sasl.mechanism = 'PLAIN',
            properties.sasl.username = 'svc', "properties.sasl.password" = '{KAFKA_PASSWORD}') FORMAT PLAIN ENCODE JSON""")
        # A source whose password is a stored secret, named (RisingWave's `SECRET name`).
        conn.execute(f"CREATE SECRET kafka_pw WITH (backend = 'meta') AS '{STORED_SECRET}'")
        conn.execute(f"""CREATE SOURCE clicks_ref (id bigint, page varchar) WITH (connector = 'kafka', topic = '{topic}',
            properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'earliest', properties.sasl.mechanism = 'PLAIN',
            properties.sasl.username = 'svc', properties.sasl.password = SECRET kafka_pw) FORMAT PLAIN ENCODE JSON""")
        shown = conn.execute("SHOW CREATE SOURCE clicks_ref").fetchone()[1]
        assert "properties.sasl.password = SECRET kafka_pw" in shown and STORED_SECRET not in shown, shown
        error = _create_error(conn, "DROP SECRET kafka_pw")
        assert error.sqlstate == "2BP01" and "clicks_ref" in str(error), _error_text(error)
        error = _create_error(conn, f"""CREATE SOURCE no_secret (id bigint) WITH (connector = 'kafka', topic = '{topic}',
            properties.bootstrap.server = '{bootstrap}', properties.sasl.password = SECRET missing) FORMAT PLAIN ENCODE JSON""")
        assert error.sqlstate == "42704" and "missing" in str(error), _error_text(error)
        # A table whose secret is in the options after ENCODE (a schema registry's password).
        conn.execute(f"""CREATE TABLE registered (id bigint, page varchar) WITH (connector = 'kafka', topic = '{topic}',
            properties.bootstrap.server = '{bootstrap}') FORMAT PLAIN ENCODE JSON (schema.registry = 'http://127.0.0.1:1',
            schema.registry.username = 'reg', schema.registry.password = '{REGISTRY_PASSWORD}')""")
        producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
        for index in range(10):
            producer.send(topic, json.dumps({"id": index, "page": f"/p{index}"}).encode())
        producer.flush(timeout=60)
        producer.close()

        # An Iceberg sink into the built-in catalog, written with every kind of credential.
        conn.execute("CREATE MATERIALIZED VIEW pages AS SELECT page, count(*) AS hits FROM clicks GROUP BY page")
        wait_until(lambda: source_status(conn, "clicks")[0] >= 10, 60, "the source to read its messages")
        conn.execute(f"""CREATE SINK lake FROM pages WITH (connector = 'iceberg', type = 'upsert', primary_key = 'page',
            database.name = 'secrets', table.name = 'pages', warehouse.path = 'lake', commit_checkpoint_interval = '1',
            catalog.credential = 'svc:{CATALOG_SECRET}', catalog.token = '{CATALOG_TOKEN}', s3.access.key = '{S3_ACCESS_KEY}',
            s3.secret.key = E'{S3_SECRET_KEY}')""")
        conn.execute("FLUSH")
        wait_until(lambda: conn.execute("SELECT rows FROM sluice_sinks WHERE name = 'lake'").fetchone()[0] >= 10, 60,
                   "the sink to commit the view's rows")

        # A sink to another server's catalog, through a URL with a password; then that catalog
        # goes away, and the sink says why it cannot commit.
        conn.execute("CREATE TABLE t (id bigint, name varchar) APPEND ONLY")
        with SluiceServer(data_dir=tmp_path / "lake", catalog_port=lake_port):
            conn.execute(f"""CREATE SINK remote AS SELECT * FROM t WITH (connector = 'iceberg', type = 'append-only',
                database.name = 'secrets', table.name = 'remote', warehouse.path = 'lake', catalog.type = 'rest',
                catalog.uri = 'http://svc:{RUNTIME_URL_PASSWORD}@127.0.0.1:{lake_port}/api/catalog',
                catalog.credential = 'root:secret', commit_checkpoint_interval = '1')""")
        conn.execute("INSERT INTO t SELECT g, 'row' FROM generate_series(1, 50) AS g")
        conn.execute("FLUSH")
        last_error = wait_until(
            lambda: conn.execute("SELECT last_error FROM sluice_sinks WHERE name = 'remote'").fetchone()[0], 60,
            "the sink to report that its catalog is gone")
        assert not _leaks(last_error), last_error
        assert "[REDACTED]" in last_error or "127.0.0.1" in last_error, last_error

        # Mistakes at CREATE whose errors would quote a secret: an unreachable catalog's URL, and a
        # Kafka property the client refuses.
        closed = free_port()
        error = _create_error(conn, f"""CREATE SINK down AS SELECT * FROM t WITH (connector = 'iceberg', type = 'append-only',
            database.name = 'secrets', table.name = 'down', warehouse.path = 'lake', catalog.type = 'rest',
            catalog.uri = 'http://svc:{URL_PASSWORD}@127.0.0.1:{closed}/api/catalog', catalog.credential = 'root:secret')""")
        assert error.sqlstate == "HV00N" and str(closed) in str(error) and not _leaks(_error_text(error)), _error_text(error)
        error = _create_error(conn, f"""CREATE SOURCE typo (id bigint) WITH (connector = 'kafka', topic = '{topic}',
            properties.bootstrap.server = '{bootstrap}', properties.sasl.password.typo = '{TYPO_PASSWORD}') FORMAT PLAIN ENCODE JSON""")
        assert error.sqlstate == "22023" and "sasl.password.typo" in str(error) and not _leaks(_error_text(error)), _error_text(error)

        _check_nothing_shows_a_secret(server, conn)
        _check_the_data_directory(server, conn)

    log = server.log()
    assert "shutting down" in log, log[-2000:]
    assert not _leaks(log), log[-4000:]

    # A restart replays every definition (the remote catalog is still gone).
    with SluiceServer(data_dir=data_dir) as server, connect(server) as conn:
        wait_until(lambda: conn.execute("SELECT last_error FROM sluice_sinks WHERE name = 'remote'").fetchone()[0], 60,
                   "the restarted sink to report that its catalog is gone")
        _check_nothing_shows_a_secret(server, conn)
        _check_the_data_directory(server, conn)
    log = server.log()
    assert not _leaks(log), log[-4000:]
