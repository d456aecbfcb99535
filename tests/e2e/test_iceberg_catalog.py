"""The built-in Iceberg REST catalog, as clients use it: pyiceberg with seed 000's settings
(Polaris's `/api/catalog` prefix, root:secret, its scope and headers) creates, appends, commits,
conflicts, renames and drops; DuckDB's iceberg extension reads the tables; and requests a client
gets wrong (no or a forged token, bad secrets, malformed JSON, stale requirements, an
idempotency key repeated) get the REST spec's status codes and error bodies, never a crash."""

from __future__ import annotations

import datetime
import decimal
import json
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from duckdb_support import duckdb_with
import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import CommitFailedException, NoSuchTableError
from pyiceberg.table.update import AssertRefSnapshotId, SetPropertiesUpdate

from harness import SluiceServer


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with SluiceServer(data_dir=tmp_path_factory.mktemp("catalog") / "data") as server:
        yield server


def _catalog(base: str) -> RestCatalog:
    return RestCatalog("sluice", **{
        "uri": f"{base}/api/catalog",
        "credential": "root:secret",
        "header.content-type": "application/vnd.api+json",
        "header.X-Iceberg-Access-Delegation": "vended-credentials",
        "header.Polaris-Realm": "default-realm",
        "oauth2-server-uri": f"{base}/api/catalog/v1/oauth/tokens",
        "warehouse": "balloon-game",
        "scope": "PRINCIPAL_ROLE:ALL",
    })


def _request(method: str, url: str, body: bytes | None = None, headers: dict[str, str] | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            return response.status, json.loads(text) if text else {}
    except urllib.error.HTTPError as error:
        text = error.read()
        return error.code, json.loads(text) if text else {}


def _token(base: str, client_id: str = "root", secret: str = "secret") -> tuple[int, dict]:
    form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret,
                                   "scope": "PRINCIPAL_ROLE:ALL"}).encode()
    return _request("POST", f"{base}/api/catalog/v1/oauth/tokens", form, {"Content-Type": "application/x-www-form-urlencoded"})


SCHEMA = pa.schema([
    pa.field("player", pa.string(), nullable=False),
    pa.field("balloon_color", pa.string()),
    pa.field("score", pa.int64()),
    pa.field("price", pa.decimal128(10, 2)),
    pa.field("popped_at", pa.timestamp("us", tz="UTC")),
])
AT = datetime.datetime(2024, 5, 1, 12, 0, tzinfo=datetime.timezone.utc)
FIRST = pa.table({"player": ["ann", "bob"], "balloon_color": ["red", "blue"], "score": pa.array([10, 20], pa.int64()),
                  "price": pa.array([decimal.Decimal("1.50"), None], pa.decimal128(10, 2)),
                  "popped_at": pa.array([AT, AT], pa.timestamp("us", tz="UTC"))}, schema=SCHEMA)
SECOND = pa.table({"player": ["cy"], "balloon_color": [None], "score": pa.array([30], pa.int64()),
                   "price": pa.array([None], pa.decimal128(10, 2)), "popped_at": pa.array([None], pa.timestamp("us", tz="UTC"))}, schema=SCHEMA)


def test_pyiceberg_with_seed_000s_settings_and_duckdb(server: SluiceServer) -> None:
    catalog = _catalog(server.catalog_base)
    catalog.create_namespace("balloon_pops", {"owner": "tests"})
    assert ("balloon_pops",) in catalog.list_namespaces()
    assert catalog.load_namespace_properties("balloon_pops")["owner"] == "tests"
    table = catalog.create_table("balloon_pops.pops", schema=SCHEMA)
    table.append(FIRST)
    table.append(SECOND)
    loaded = catalog.load_table("balloon_pops.pops")
    assert len(loaded.metadata.snapshots) == 2 and loaded.metadata.last_sequence_number == 2
    rows = loaded.scan().to_arrow().sort_by("player").to_pylist()
    assert [(r["player"], r["score"], r["balloon_color"], r["price"]) for r in rows] == [
        ("ann", 10, "red", decimal.Decimal("1.50")), ("bob", 20, "blue", None), ("cy", 30, None, None)]

    # A commit whose requirement no longer holds: 409, CommitFailedException.
    stale = catalog.load_table("balloon_pops.pops")
    table.append(SECOND)
    with pytest.raises(CommitFailedException):
        catalog.commit_table(stale, (AssertRefSnapshotId(ref="main", snapshot_id=stale.metadata.current_snapshot_id),),
                             (SetPropertiesUpdate(updates={"k": "v"}),))
    stale.append(SECOND)  # pyiceberg's retry on fresh metadata lands
    assert len(catalog.load_table("balloon_pops.pops").metadata.snapshots) == 4

    # A staged create, committed with assert-create; then rename and drop.
    with catalog.create_table_transaction("balloon_pops.staged", schema=SCHEMA) as transaction:
        transaction.append(FIRST)
    assert catalog.load_table("balloon_pops.staged").scan().to_arrow().num_rows == 2
    catalog.rename_table("balloon_pops.staged", "balloon_pops.renamed")
    assert catalog.table_exists("balloon_pops.renamed") and not catalog.table_exists("balloon_pops.staged")
    catalog.drop_table("balloon_pops.renamed")
    with pytest.raises(NoSuchTableError):
        catalog.load_table("balloon_pops.renamed")

    con = duckdb_with("httpfs", "avro", "iceberg")
    base = server.catalog_base
    con.execute(f"CREATE SECRET s (TYPE iceberg, CLIENT_ID 'root', CLIENT_SECRET 'secret', "
                f"OAUTH2_SERVER_URI '{base}/api/catalog/v1/oauth/tokens', OAUTH2_SCOPE 'PRINCIPAL_ROLE:ALL')")
    con.execute(f"ATTACH 'balloon-game' AS cat (TYPE iceberg, SECRET s, ENDPOINT '{base}/api/catalog')")
    assert con.execute("SELECT player, score FROM cat.balloon_pops.pops ORDER BY player, score").fetchall() == [
        ("ann", 10), ("bob", 20), ("cy", 30), ("cy", 30), ("cy", 30)]


def test_requests_a_client_gets_wrong(server: SluiceServer) -> None:
    base = server.catalog_base
    # Tokens: the right secret gets one with the scope asked; a wrong one is refused.
    status, body = _token(base)
    assert status == 200 and body["token_type"].lower() == "bearer" and body["access_token"]
    token = body["access_token"]
    status, body = _token(base, secret="wrong")
    assert status == 401 and body["error"] == "invalid_client"
    status, body = _token(base, client_id="nobody")
    assert status == 401

    config = f"{base}/api/catalog/v1/config?warehouse=errors"
    # No token, a forged one: 401 with the ErrorModel body, on both prefixes.
    for url in (config, f"{base}/v1/config?warehouse=errors"):
        status, body = _request("GET", url)
        assert status == 401 and body["error"]["code"] == 401 and body["error"]["type"]
    status, _ = _request("GET", config, headers={"Authorization": "Bearer " + token[:-4] + "AAAA"})
    assert status == 401
    auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    status, body = _request("GET", config, headers=auth)
    assert status == 200 and body["overrides"]["prefix"] == "errors"
    namespaces = f"{base}/api/catalog/v1/errors/namespaces"

    # Malformed and wrong-shaped JSON: 400, never a crash.
    for bad in (b"{", b"[]", b'{"namespace": "not-a-list"}', b"\xff\xfe", b'{"namespace": [1, 2]}'):
        status, body = _request("POST", namespaces, bad, auth)
        assert status == 400, (bad, status, body)
        assert body["error"]["code"] == 400
    # Missing things: 404 with the exception's type.
    status, body = _request("GET", f"{namespaces}/nowhere", headers=auth)
    assert status == 404 and body["error"]["type"] == "NoSuchNamespaceException"
    status, body = _request("POST", namespaces, json.dumps({"namespace": ["ns"]}).encode(), auth)
    assert status == 200
    status, body = _request("GET", f"{namespaces}/ns/tables/nothing", headers=auth)
    assert status == 404 and body["error"]["type"] == "NoSuchTableException"
    # Twice: 409 AlreadyExists.
    status, body = _request("POST", namespaces, json.dumps({"namespace": ["ns"]}).encode(), auth)
    assert status == 409 and body["error"]["type"] == "AlreadyExistsException"

    # A table, then a commit with a stale requirement: 409 CommitFailedException.
    create = {"name": "t", "schema": {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "a", "required": False, "type": "long"}]}}
    status, body = _request("POST", f"{namespaces}/ns/tables", json.dumps(create).encode(), auth)
    assert status == 200 and body["metadata"]["format-version"] == 2
    commit = {"requirements": [{"type": "assert-current-schema-id", "current-schema-id": 7}],
              "updates": [{"action": "set-properties", "updates": {"k": "v"}}]}
    status, body = _request("POST", f"{namespaces}/ns/tables/t", json.dumps(commit).encode(), auth)
    assert status == 409 and body["error"]["type"] == "CommitFailedException"

    # An idempotency key repeated: the stored reply, the change made once.
    keyed = {**auth, "Idempotency-Key": "0190c1b4-6d8e-7b3a-9f2e-1a2b3c4d5e6f"}
    good = {"requirements": [], "updates": [{"action": "set-properties", "updates": {"n": "1"}}]}
    first = _request("POST", f"{namespaces}/ns/tables/t", json.dumps(good).encode(), keyed)
    again = _request("POST", f"{namespaces}/ns/tables/t", json.dumps(good).encode(), keyed)
    assert first[0] == again[0] == 200
    assert first[1]["metadata-location"] == again[1]["metadata-location"]
    status, body = _request("GET", f"{namespaces}/ns/tables/t", headers=auth)
    assert body["metadata-location"] == first[1]["metadata-location"]
    # A namespace with a table is not dropped.
    status, body = _request("DELETE", f"{namespaces}/ns", headers=auth)
    assert status == 409
