"""Flink's SQL Gateway REST API, driven by its Python client from PyPI (`flink-sql-gateway-api`,
generated from Flink's OpenAPI spec): sessions, statements as operations, results fetched page
by page by token in Flink's JSON row format, errors in Flink's `{"errors": [...]}` shape.

The rows expected are worked out here from what was inserted, not read from Sluice."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import json
import subprocess

import duckdb
import httpx
import pytest
from flink_gateway_api import Client
from flink_gateway_api.api.default import (
    cancel_operation,
    close_operation,
    close_session,
    configure_session,
    execute_statement,
    fetch_results,
    get_api_version,
    get_info,
    get_operation_status,
    get_session_config,
    open_session,
    trigger_session,
)
from flink_gateway_api.models import (
    ConfigureSessionRequestBody,
    ExecuteStatementRequestBody,
    OpenSessionRequestBody,
    RowFormat,
)

from harness import SluiceServer
from harness.sluice_server import sluice_binary
from kafka import KafkaAdminClient
from kafka.admin import NewTopic
from kafka_support import read_topic
from duckdb_support import duckdb_with
from source_support import connect, wait_until
from pyiceberg.catalog.rest import RestCatalog
from harness.ports import free_port
from test_seed_004 import CLEANED, SOURCE, duckdb_payment_charges


@pytest.fixture(scope="module")
def server():
    with SluiceServer() as running:
        yield running


def _client(server: SluiceServer, version: str = "v3") -> Client:
    return Client(base_url=f"http://127.0.0.1:{server.flink_gateway_port}/{version}", timeout=httpx.Timeout(60.0))


def _finished(client: Client, session: str, operation: str) -> str:
    """The operation's status once it no longer runs."""
    state: list[str] = []

    def done() -> bool:
        state[:] = [get_operation_status.sync(session, operation, client=client).status]
        return state[0] not in ("RUNNING", "PENDING", "INITIALIZED")
    wait_until(done, 60, f"operation {operation} to finish")
    return state[0]


def _run(client: Client, session: str, statement: str) -> tuple[list, list, dict]:
    """Runs `statement` and fetches every page: (columns, rows as (kind, fields), the first page's body)."""
    operation = execute_statement.sync(session, client=client, body=ExecuteStatementRequestBody(statement=statement)).operation_handle
    assert _finished(client, session, operation) == "FINISHED"
    columns, rows, first, token = [], [], None, 0
    while True:
        page = fetch_results.sync(session, operation, token, client=client, row_format=RowFormat.JSON)
        body = page.to_dict()
        first = first or body
        if not columns:
            columns = body["results"].get("columns", [])
        for row in body["results"]["data"]:
            rows.append((row["kind"], row["fields"]))
        following = body.get("nextResultUri")
        if following is None:
            break
        token = int(following.split("/result/")[1].split("?")[0])
    return columns, rows, first


def test_info_and_api_versions(server: SluiceServer) -> None:
    client = _client(server)
    info = get_info.sync(client=client)
    assert info.product_name == "Apache Flink" and info.version.startswith("2.")
    assert get_api_version.sync(client=client).versions == ["V1", "V2", "V3", "V4"]
    # Every version's paths are served, and the unversioned ones.
    for prefix in ("/v1", "/v2", "/v3", "/v4", ""):
        answer = httpx.get(f"http://127.0.0.1:{server.flink_gateway_port}{prefix}/info")
        assert answer.status_code == 200 and answer.json()["productName"] == "Apache Flink"


def test_statements_pages_and_types(server: SluiceServer) -> None:
    client = _client(server)
    session = open_session.sync(client=client, body=OpenSessionRequestBody.from_dict({"sessionName": "pages"})).session_handle
    assert session
    columns, rows, first = _run(client, session, "CREATE TABLE gw_orders (id INT, name VARCHAR, amount DECIMAL(10, 2), at TIMESTAMP)")
    assert first["resultKind"] == "SUCCESS" and rows == [("INSERT", ["OK"])]

    count = 10_000
    with connect(server) as conn:
        conn.execute("INSERT INTO gw_orders SELECT i, 'n' || i, i * 0.25, TIMESTAMP '2026-01-01 00:00:00' + i * INTERVAL '1 second' "
                     "FROM generate_series(1, %s) AS i", (count,))
        conn.execute("FLUSH")

    columns, rows, first = _run(client, session, "SELECT id, name, amount, at FROM gw_orders ORDER BY id")
    assert first["resultKind"] == "SUCCESS_WITH_CONTENT" and first["isQueryResult"] is True and first["jobID"]
    assert [column["name"] for column in columns] == ["id", "name", "amount", "at"]
    types = [column["logicalType"] for column in columns]
    assert types[0]["type"] == "INTEGER"
    assert types[1]["type"] == "VARCHAR"
    assert (types[2]["type"], types[2]["precision"], types[2]["scale"]) == ("DECIMAL", 10, 2)
    assert types[3]["type"] == "TIMESTAMP_WITHOUT_TIME_ZONE"
    assert len(rows) == count
    for i, (kind, fields) in enumerate(rows, start=1):
        assert kind == "INSERT"
        assert fields[0] == i and fields[1] == f"n{i}"
        assert Decimal(str(fields[2])) == Decimal(i) * Decimal("0.25")
    # The timestamps in Flink's SQL form.
    assert rows[0][1][3] == "2026-01-01 00:00:01" and rows[3599][1][3] == "2026-01-01 01:00:00"
    close_session.sync(session, client=client)


def test_tokens_refetch_and_order(server: SluiceServer) -> None:
    client = _client(server, "v2")
    session = open_session.sync(client=client, body=OpenSessionRequestBody.from_dict({})).session_handle
    operation = execute_statement.sync(session, client=client, body=ExecuteStatementRequestBody(
        statement="SELECT i FROM generate_series(1, 9000) AS i")).operation_handle
    assert _finished(client, session, operation) == "FINISHED"
    base = f"http://127.0.0.1:{server.flink_gateway_port}/v2/sessions/{session}/operations/{operation}/result"
    first = httpx.get(f"{base}/0?rowFormat=JSON").json()
    again = httpx.get(f"{base}/0?rowFormat=JSON").json()
    assert first == again and len(first["data"] if "data" in first else first["results"]["data"]) > 0
    assert first["nextResultUri"].startswith(f"/v2/sessions/{session}/operations/{operation}/result/1")
    skipped = httpx.get(f"{base}/5?rowFormat=JSON")
    assert skipped.status_code == 400 and "token" in skipped.json()["errors"][-1]
    seen = [row["fields"][0] for row in first["results"]["data"]]
    token = 1
    while True:
        body = httpx.get(f"{base}/{token}?rowFormat=JSON").json()
        seen += [row["fields"][0] for row in body["results"]["data"]]
        if "nextResultUri" not in body:
            assert body["resultType"] == "EOS"
            break
        token += 1
    assert seen == list(range(1, 9001))
    # Plain text rows are refused, as an unknown format is.
    assert httpx.get(f"{base}/{token}?rowFormat=PLAIN_TEXT").status_code == 400
    assert close_operation.sync(session, operation, client=client).status == "CLOSED"
    gone = httpx.get(f"{base}/0?rowFormat=JSON")
    assert gone.status_code == 404 and gone.json()["errors"]


def test_errors_in_flinks_shape(server: SluiceServer) -> None:
    client = _client(server)
    port = server.flink_gateway_port
    session = open_session.sync(client=client, body=OpenSessionRequestBody.from_dict({})).session_handle
    operation = execute_statement.sync(session, client=client, body=ExecuteStatementRequestBody(statement="SELEC 1")).operation_handle
    assert _finished(client, session, operation) == "ERROR"
    failed = httpx.get(f"http://127.0.0.1:{port}/v3/sessions/{session}/operations/{operation}/result/0?rowFormat=JSON")
    assert failed.status_code == 500
    errors = failed.json()["errors"]
    assert "SQLSTATE 42601" in errors[-1] and "ParseException" in errors[-1]

    operation = execute_statement.sync(session, client=client, body=ExecuteStatementRequestBody(
        statement="SELECT * FROM no_such_table")).operation_handle
    assert _finished(client, session, operation) == "ERROR"
    failed = httpx.get(f"http://127.0.0.1:{port}/v3/sessions/{session}/operations/{operation}/result/0?rowFormat=JSON")
    assert failed.status_code == 500 and "no_such_table" in failed.json()["errors"][-1]

    # Unknown sessions and operations, malformed bodies, unknown paths: Flink's error body, never a crash.
    missing = httpx.post(f"http://127.0.0.1:{port}/v3/sessions/not-a-session/statements", json={"statement": "SELECT 1"})
    assert missing.status_code == 404 and "does not exist" in missing.json()["errors"][-1]
    for body in (b"{", b"[]", b'{"statement": 5.5e999999}', b'{"nothing": 1}', b"\xff\xfe"):
        bad = httpx.post(f"http://127.0.0.1:{port}/v3/sessions/{session}/statements", content=body)
        assert bad.status_code == 400 and bad.json()["errors"], body
    assert httpx.get(f"http://127.0.0.1:{port}/v3/nowhere").status_code == 404
    two = execute_statement.sync(session, client=client, body=ExecuteStatementRequestBody(statement="SELECT 1; SELECT 2")).operation_handle
    assert _finished(client, session, two) == "ERROR"
    # The session still works after all that.
    _, rows, _ = _run(client, session, "SELECT 41 + 1")
    assert rows == [("INSERT", [42])]


def test_cancel_heartbeat_configure_and_close(server: SluiceServer) -> None:
    client = _client(server, "v4")
    session = open_session.sync(client=client, body=OpenSessionRequestBody.from_dict({
        "properties": {"pipeline.name": "gateway test"}, "sessionName": "s1"})).session_handle
    config = get_session_config.sync(session, client=client).properties.to_dict()
    assert config["pipeline.name"] == "gateway test"
    assert trigger_session.sync_detailed(session, client=client).status_code == 200

    # A statement that runs long is cancelled, and its session goes on.
    operation = execute_statement.sync(session, client=client, body=ExecuteStatementRequestBody(
        statement="SELECT count(*) FROM generate_series(1, 5000000000) AS a")).operation_handle
    assert cancel_operation.sync(session, operation, client=client).status == "CANCELED"
    assert get_operation_status.sync(session, operation, client=client).status == "CANCELED"

    # Flink's SET and RESET of a configuration key, seen in the session's configuration.
    for statement in ("SET 'execution.checkpointing.interval' = '10s'", "SET 'table.exec.state.ttl' = '1 h'"):
        assert configure_session.sync_detailed(session, client=client, body=ConfigureSessionRequestBody(statement=statement)).status_code == 200
    config = get_session_config.sync(session, client=client).properties.to_dict()
    assert config["execution.checkpointing.interval"] == "10s" and config["table.exec.state.ttl"] == "1 h"
    # A checkpoint interval that is no duration is refused, and the one set stays.
    refused = configure_session.sync_detailed(session, client=client, body=ConfigureSessionRequestBody(
        statement="SET 'execution.checkpointing.interval' = 'often'"))
    assert refused.status_code == 500 and b"execution.checkpointing.interval" in refused.content
    assert get_session_config.sync(session, client=client).properties.to_dict()["execution.checkpointing.interval"] == "10s"
    _, rows, _ = _run(client, session, "RESET 'table.exec.state.ttl'")
    assert rows == [("INSERT", ["OK"])]
    assert "table.exec.state.ttl" not in get_session_config.sync(session, client=client).properties.to_dict()
    _, rows, _ = _run(client, session, "RESET")
    assert "execution.checkpointing.interval" not in get_session_config.sync(session, client=client).properties.to_dict()

    configured = configure_session.sync_detailed(session, client=client, body=ConfigureSessionRequestBody(statement="CREATE TABLE gw_configured (k INT)"))
    assert configured.status_code == 200
    _, rows, _ = _run(client, session, "SELECT count(*) FROM gw_configured")
    assert rows == [("INSERT", [0])]
    bad = httpx.post(f"http://127.0.0.1:{server.flink_gateway_port}/v4/sessions/{session}/configure-session",
                     json={"statement": "CREATE TABLE gw_configured (k INT)"})
    assert bad.status_code == 500 and "gw_configured" in bad.json()["errors"][-1]

    assert close_session.sync(session, client=client).status == "CLOSED"
    gone = httpx.post(f"http://127.0.0.1:{server.flink_gateway_port}/v4/sessions/{session}/heartbeat")
    assert gone.status_code == 404


def test_sessions_are_separate_and_concurrent(server: SluiceServer) -> None:
    client = _client(server)
    sessions = [open_session.sync(client=client, body=OpenSessionRequestBody.from_dict({})).session_handle for _ in range(8)]
    assert len(set(sessions)) == 8
    operations = [execute_statement.sync(s, client=client, body=ExecuteStatementRequestBody(
        statement=f"SELECT sum(i) FROM generate_series(1, {1000 * (n + 1)}) AS i")).operation_handle for n, s in enumerate(sessions)]
    for n, (session, operation) in enumerate(zip(sessions, operations)):
        assert _finished(client, session, operation) == "FINISHED"
        page = fetch_results.sync(session, operation, 0, client=client, row_format=RowFormat.JSON).to_dict()
        total = 1000 * (n + 1)
        assert page["results"]["data"][0]["fields"] == [total * (total + 1) // 2]
    for session in sessions:
        assert close_session.sync(session, client=client).status == "CLOSED"


def test_seed_004_through_the_gateway(server: SluiceServer, tmp_path) -> None:
    """Seed 004's Flink statements as its users type them into Flink's SQL client (the broker's
    address aside): the in-memory catalog, its database, the Kafka table; then counts and the
    cleaning transformation's SELECT through the gateway, equal to DuckDB's over the events read
    back from the topic."""
    bootstrap = server.kafka_bootstrap
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    admin.create_topics([NewTopic("payment_charges", 1, 1)])
    admin.close()
    client = _client(server)
    session = open_session.sync(client=client, body=OpenSessionRequestBody.from_dict({"sessionName": "seed 004"})).session_handle
    for statement in ("CREATE CATALOG kafka_catalog WITH ('type'='generic_in_memory');", "CREATE DATABASE kafka_catalog.payments_db;",
                      SOURCE.replace("kafka-broker:29092", bootstrap), "SET 'execution.checkpointing.interval' = '10s';"):
        _, rows, first = _run(client, session, statement)
        assert first["resultKind"] == "SUCCESS" and rows == [("INSERT", ["OK"])], statement
    _, rows, _ = _run(client, session, "SHOW CATALOGS")
    assert rows == [("INSERT", ["default_catalog"]), ("INSERT", ["kafka_catalog"])]

    count = 600
    gen = subprocess.run([str(sluice_binary()), "gen", "payments", "--count", str(count), "--seed", "7", "--topic", "payment_charges",
                          "--bootstrap", bootstrap], capture_output=True, timeout=120)
    assert gen.returncode == 0, gen.stderr.decode()
    events = [json.loads(record.value) for record in read_topic(bootstrap, "payment_charges")[0]]
    assert len(events) == count

    def counted() -> int:
        return _run(client, session, "SELECT COUNT(*) FROM kafka_catalog.payments_db.payment_charges;")[1][0][1][0]
    wait_until(lambda: counted() == count, 60, "the gateway's count to reach every event")

    dump = tmp_path / "events.json"
    dump.write_text("\n".join(json.dumps(event) for event in events))
    db = duckdb_payment_charges(dump)
    select = CLEANED.split(" AS\n", 1)[1].rstrip().rstrip(";")
    expected = db.execute(select.replace("kafka_catalog.payments_db.payment_charges", "payment_charges")
                          .replace("card_country ~ '^[A-Z]{2}$'", "regexp_full_match(card_country, '^[A-Z]{2}$')")
                          + " ORDER BY event_id").fetchall()
    columns, rows, _ = _run(client, session, select + " ORDER BY event_id")
    assert [column["name"] for column in columns][:4] == ["event_id", "event_type", "provider", "charge_id"]
    got = [tuple(fields) for _, fields in rows]
    assert len(got) == len(expected) == count
    for mine, theirs in zip(got, expected):
        assert mine[:5] == theirs[:5]
        assert Decimal(str(mine[5])) == theirs[5]
        assert mine[6:9] == theirs[6:9] and mine[9:12] == theirs[9:12]
        assert [datetime.fromisoformat(text) for text in mine[12:14]] == list(theirs[12:14])
    assert any(row[8] is None for row in got), "some failure codes spelled as null strings become NULL"
    close_session.sync(session, client=client)


POLARIS = """CREATE CATALOG polaris_catalog WITH (
    'type'='iceberg',
    'catalog-type'='rest',
    'uri'='http://polaris:8181/api/catalog',
    'warehouse'='polariscatalog',
    'oauth2-server-uri'='http://polaris:8181/api/catalog/v1/oauth/tokens',
    'credential'='root:secret',
    'scope'='PRINCIPAL_ROLE:ALL'
);"""

SINK = """CREATE TABLE polaris_catalog.payments_db.payment_charges AS
    SELECT * FROM kafka_catalog.payments_db.payment_charges;"""

RECENT = """SELECT
    charge_id,
    customer_id,
    amount,
    currency,
    status,
    provider,
    created_at
FROM polaris_catalog.payments_db.payment_charges
ORDER BY created_at DESC
LIMIT 10;"""


def _kept(events: list[dict]) -> list[dict]:
    """The events the source's watermark keeps, in topic order: an event is late when its
    created_at is below the largest created_at - 5 s of those kept before it."""
    kept, watermark = [], None
    for event in events:
        at = datetime.fromisoformat(event["created_at"])
        if watermark is not None and at < watermark:
            continue
        kept.append(event)
        candidate = at - timedelta(seconds=5)
        watermark = candidate if watermark is None else max(watermark, candidate)
    return kept


def test_seed_004_verbatim_into_iceberg(tmp_path) -> None:
    """Seed 004 as its users type it into Flink's SQL client, word for word: its broker and
    catalog host names reach this process's through --host-alias. The CTAS jobs land the events
    in Iceberg tables that pyiceberg reads back; SELECT COUNT(*) through the gateway grows to the
    events the watermark keeps; the cleaning transformation's table equals DuckDB's answer."""
    kafka_port, catalog_port = free_port(), free_port()
    aliases = [f"--host-alias=kafka-broker:29092=127.0.0.1:{kafka_port}", f"--host-alias=polaris:8181=127.0.0.1:{catalog_port}"]
    with SluiceServer(kafka_port=kafka_port, catalog_port=catalog_port, extra_args=aliases) as server:
        bootstrap = server.kafka_bootstrap
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
        admin.create_topics([NewTopic("payment_charges", 1, 1)])
        admin.close()
        client = _client(server)
        session = open_session.sync(client=client, body=OpenSessionRequestBody.from_dict({})).session_handle
        statements = ["CREATE CATALOG kafka_catalog WITH ('type'='generic_in_memory');", "CREATE DATABASE kafka_catalog.payments_db;", SOURCE,
                      POLARIS, "CREATE DATABASE polaris_catalog.payments_db;", "SET 'execution.checkpointing.interval' = '10s';", SINK, CLEANED]
        for statement in statements:
            _, rows, first = _run(client, session, statement)
            assert first["resultKind"] == "SUCCESS", statement
        _, rows, _ = _run(client, session, "SHOW SINKS")
        assert sorted(fields[0] for _, fields in rows) == [
            "insert-into_polaris_catalog.payments_db.payment_charges", "insert-into_polaris_catalog.payments_db.payment_charges_cleaned"]
        # 'execution.checkpointing.interval' = '10s' paces the jobs' commits: every 10 of the
        # server's one-second checkpoints.
        with connect(server) as conn:
            definitions = [row[0] for row in conn.execute("SELECT definition FROM rw_catalog.rw_sinks WHERE name LIKE 'insert-into_%'")]
        assert len(definitions) == 2 and all("commit_checkpoint_interval = '10'" in text for text in definitions), definitions

        count = 800
        gen = subprocess.run([str(sluice_binary()), "gen", "payments", "--count", str(count), "--seed", "5", "--topic", "payment_charges",
                              "--bootstrap", bootstrap], capture_output=True, timeout=120)
        assert gen.returncode == 0, gen.stderr.decode()
        events = [json.loads(record.value) for record in read_topic(bootstrap, "payment_charges")[0]]
        assert len(events) == count
        kept = _kept(events)

        seen: list[int] = []

        def counted() -> bool:
            seen.append(_run(client, session, "SELECT COUNT(*) FROM polaris_catalog.payments_db.payment_charges;")[1][0][1][0])
            return seen[-1] == len(kept)
        wait_until(counted, 90, "the Iceberg table's count to reach the kept events")
        assert seen == sorted(seen), "the count only grows"

        # The Iceberg tables as another engine's client reads them.
        catalog = RestCatalog("polariscatalog", uri=f"{server.catalog_base}/api/catalog", credential="root:secret", warehouse="polariscatalog",
                              **{"oauth2-server-uri": f"{server.catalog_base}/api/catalog/v1/oauth/tokens"})
        landed = catalog.load_table("payments_db.payment_charges").scan().to_arrow().to_pylist()
        assert sorted(row["event_id"] for row in landed) == sorted(event["event_id"] for event in kept)
        wait_until(lambda: len(catalog.load_table("payments_db.payment_charges_cleaned").scan().to_arrow()) == len(kept), 60,
                   "the cleaned table to land")
        cleaned = catalog.load_table("payments_db.payment_charges_cleaned").scan().to_arrow().to_pylist()

        dump = tmp_path / "kept.json"
        dump.write_text("\n".join(json.dumps(event) for event in kept))
        db = duckdb_payment_charges(dump)
        select = CLEANED.split(" AS\n", 1)[1].rstrip().rstrip(";").replace("kafka_catalog.payments_db.payment_charges", "payment_charges")
        expected = {row[0]: row for row in db.execute(
            select.replace("card_country ~ '^[A-Z]{2}$'", "regexp_full_match(card_country, '^[A-Z]{2}$')")).fetchall()}
        names = ["event_id", "event_type", "provider", "charge_id", "customer_id", "amount", "currency", "status", "failure_code",
                 "card_country", "risk_score", "risk_level", "created_at", "updated_at"]
        assert len(cleaned) == len(expected)
        for row in cleaned:
            theirs = expected[row["event_id"]]
            for index, name in enumerate(names[:12]):
                assert row[name] == theirs[index], (name, row, theirs)
            assert [row["created_at"].replace(tzinfo=None), row["updated_at"].replace(tzinfo=None)] == list(theirs[12:14])

        # Flink's jobs: the two CTAS; stopping one ends it, and its Iceberg table stays.
        _, rows, _ = _run(client, session, "SHOW JOBS")
        jobs = {fields[1]: fields[0] for _, fields in rows}
        assert set(jobs) == {"insert-into_polaris_catalog.payments_db.payment_charges", "insert-into_polaris_catalog.payments_db.payment_charges_cleaned"}
        assert all(len(job) == 32 for job in jobs.values()) and all(fields[2] == "RUNNING" for _, fields in rows)
        _run(client, session, f"STOP JOB '{jobs['insert-into_polaris_catalog.payments_db.payment_charges_cleaned']}'")
        _, rows, _ = _run(client, session, "SHOW JOBS")
        assert [fields[1] for _, fields in rows] == ["insert-into_polaris_catalog.payments_db.payment_charges"]
        failed = execute_statement.sync(session, client=client, body=ExecuteStatementRequestBody(statement="STOP JOB '00000000000000000000000000000001'"))
        assert _finished(client, session, failed.operation_handle) == "ERROR"
        assert len(catalog.load_table("payments_db.payment_charges_cleaned").scan().to_arrow()) == len(kept)

        # Then the seed's analytics through Trino's client (trino --server … --catalog iceberg), against
        # DuckDB's over the same Iceberg table.
        from test_trino_protocol import SEED_004_QUERIES
        import trino
        location = catalog.load_table("payments_db.payment_charges").metadata_location
        duck = duckdb_with("avro", "iceberg")
        cursor = trino.dbapi.connect(host=server.host, port=server.trino_port, user="root", catalog="iceberg").cursor()
        for query in SEED_004_QUERIES:
            cursor.execute(query)
            ours = [tuple(row) for row in cursor.fetchall()]
            theirs = duck.execute(query.replace("payments_db.payment_charges", f"iceberg_scan('{location}')")).fetchall()
            assert len(ours) == len(theirs) > 0, query
            def comparable(row):
                return tuple(round(float(v), 6) if isinstance(v, (Decimal, float)) else v for v in row)
            assert sorted(map(comparable, ours)) == sorted(map(comparable, theirs)), query

        # The seed's "recent charges" query through the gateway, against DuckDB's.
        _, rows, _ = _run(client, session, RECENT)
        want = db.execute("SELECT charge_id, customer_id, amount, currency, status, provider, created_at FROM payment_charges "
                          "ORDER BY created_at DESC LIMIT 10").fetchall()
        assert [(f[0], f[1], Decimal(str(f[2])), f[3], f[4], f[5], datetime.fromisoformat(f[6])) for _, f in rows] == want
        close_session.sync(session, client=client)


def test_window_table_functions_equal_duckdb(server: SluiceServer) -> None:
    """Flink's TUMBLE, HOP and CUMULATE table functions through the gateway, each window's sum
    equal to DuckDB's over the same rows with the windows spelled out."""
    client = _client(server)
    session = open_session.sync(client=client, body=OpenSessionRequestBody.from_dict({})).session_handle
    _run(client, session, "CREATE TABLE gw_bids (id INT, price DECIMAL(10, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)")
    # In time order: none falls behind the watermark.
    rows = sorted(((i, (i * 37) % 1000 / 100, f"2026-01-01 00:{(i * 7) % 60:02d}:{(i * 13) % 60:02d}") for i in range(1, 301)), key=lambda row: row[2])
    with connect(server) as conn:
        conn.execute("INSERT INTO gw_bids VALUES " + ", ".join(f"({i}, {p}, TIMESTAMP '{t}')" for i, p, t in rows))
        conn.execute("FLUSH")
    db = duckdb.connect()
    db.execute("CREATE TABLE bids (id INT, price DECIMAL(10, 2), ts TIMESTAMP)")
    db.executemany("INSERT INTO bids VALUES (?, ?, ?)", [(i, p, t) for i, p, t in rows])
    cases = {
        "TUMBLE(TABLE gw_bids, DESCRIPTOR(ts), INTERVAL '5' MINUTE)":
            "SELECT time_bucket(INTERVAL 5 MINUTE, ts) AS ws, time_bucket(INTERVAL 5 MINUTE, ts) + INTERVAL 5 MINUTE AS we, price FROM bids",
        "HOP(TABLE gw_bids, DESCRIPTOR(ts), INTERVAL '2' MINUTE, INTERVAL '6' MINUTE)":
            "SELECT time_bucket(INTERVAL 2 MINUTE, ts) - k * INTERVAL 2 MINUTE AS ws, time_bucket(INTERVAL 2 MINUTE, ts) - k * INTERVAL 2 MINUTE + INTERVAL 6 MINUTE AS we, price "
            "FROM bids, range(0, 3) AS r(k)",
        "CUMULATE(TABLE gw_bids, DESCRIPTOR(ts), INTERVAL '10' MINUTE, INTERVAL '30' MINUTE)":
            "SELECT time_bucket(INTERVAL 30 MINUTE, ts) AS ws, time_bucket(INTERVAL 30 MINUTE, ts) + k * INTERVAL 10 MINUTE AS we, price "
            "FROM bids, range(1, 4) AS r(k) WHERE time_bucket(INTERVAL 30 MINUTE, ts) + k * INTERVAL 10 MINUTE > ts",
    }
    for window, spelled in cases.items():
        _, got, _ = _run(client, session, f"SELECT window_start, window_end, SUM(price) AS total, COUNT(*) AS n FROM TABLE({window}) "
                                          "GROUP BY window_start, window_end ORDER BY window_start, window_end")
        want = db.execute(f"SELECT ws, we, SUM(price), COUNT(*) FROM ({spelled}) GROUP BY ws, we ORDER BY ws, we").fetchall()
        assert [(datetime.fromisoformat(f[0]), datetime.fromisoformat(f[1]), Decimal(str(f[2])), f[3]) for _, f in got] == want, window
    close_session.sync(session, client=client)


def test_logins_as_on_the_sql_port(tmp_path) -> None:
    """The gateway's clients log in as the SQL port's would from their address: a role with a
    password proves it with HTTP Basic (a wrong one is 401 in Flink's error shape), and its
    statements run with that role's privileges."""
    with SluiceServer(data_dir=tmp_path / "data") as server:
        with connect(server) as conn:
            conn.execute("CREATE USER gw_alice PASSWORD 'wonder'")
            conn.execute("CREATE TABLE gw_secret (a int)")
        base = f"http://127.0.0.1:{server.flink_gateway_port}/v3"
        refused = httpx.post(f"{base}/sessions", json={}, auth=("gw_alice", "wrong"))
        assert refused.status_code == 401 and refused.json()["errors"]
        alice = Client(base_url=base, httpx_args={"auth": ("gw_alice", "wonder")})
        session = open_session.sync(client=alice, body=OpenSessionRequestBody.from_dict({})).session_handle
        assert get_session_config.sync(session, client=alice).properties.to_dict()["sql-gateway.session.user"] == "gw_alice"
        operation = execute_statement.sync(session, client=alice, body=ExecuteStatementRequestBody(statement="SELECT * FROM gw_secret")).operation_handle
        assert _finished(alice, session, operation) == "ERROR"
        failed = httpx.get(f"{base}/sessions/{session}/operations/{operation}/result/0?rowFormat=JSON", auth=("gw_alice", "wonder"))
        assert failed.status_code == 500 and "SQLSTATE 42501" in failed.json()["errors"][-1]
        # A body past the gateway's bound is 413, not a statement cut short.
        big = httpx.post(f"{base}/sessions/{session}/statements", json={"statement": "SELECT 1 " + " " * (2 << 20)}, auth=("gw_alice", "wonder"))
        assert big.status_code == 413 and big.json()["errors"]
