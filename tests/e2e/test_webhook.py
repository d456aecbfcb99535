"""Webhook tables as RisingWave has them: `CREATE TABLE … WITH (connector = 'webhook') VALIDATE
SECRET s AS secure_compare(…)`, requests to `POST /webhook/dev/<schema>/<table>` signed as
GitHub signs them, the answer codes, typed columns and NDJSON batches, an idempotency header,
bounded bodies, and a 200 that means durable: every row acknowledged survives kill -9, once.

The signatures are computed by Python's hmac module; the oracle for the rows is what was sent."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import socket
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import psycopg
import pytest

from duckdb_support import duckdb_with
from harness import SluiceServer
from source_support import connect, wait_until


def _post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, headers=headers or {}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def _signed(body: bytes, secret: bytes = b"TEST_WEBHOOK") -> dict[str, str]:
    return {"X-Hub-Signature-256": "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest(), "Content-Type": "application/json"}


def test_github_style_signed_deliveries_and_the_answer_codes(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as conn:
        conn.execute("CREATE SECRET test_secret WITH (backend = 'meta') AS 'TEST_WEBHOOK'")
        conn.execute("""CREATE TABLE wbhtable (data JSONB) WITH (connector = 'webhook') VALIDATE SECRET test_secret AS secure_compare(
            headers->>'x-hub-signature-256', 'sha256=' || encode(hmac(test_secret, data, 'sha256'), 'hex'))""")
        url = f"{server.webhook_base}/webhook/dev/public/wbhtable"
        delivery = json.dumps({"action": "opened", "number": 7, "repository": {"name": "sluice"}}).encode()
        assert _post(url, delivery, _signed(delivery))[0] == 200
        # Acknowledged means queryable at once.
        assert conn.execute("SELECT data->>'action', (data->>'number')::int, data->'repository'->>'name' FROM wbhtable").fetchall() == [("opened", 7, "sluice")]
        # A wrong signature, a missing one, a signature of another body: 401, nothing added.
        assert _post(url, delivery, _signed(delivery, b"wrong"))[0] == 401
        assert _post(url, delivery, {})[0] == 401
        assert _post(url, b'{"action": "closed"}', _signed(delivery))[0] == 401
        # Unknown table 404, a table without a webhook 403, a body that is not JSON 422.
        assert _post(f"{server.webhook_base}/webhook/dev/public/nothing", delivery)[0] == 404
        assert _post(f"{server.webhook_base}/webhook/other/public/wbhtable", delivery)[0] == 404
        conn.execute("CREATE TABLE plain (a int)")
        assert _post(f"{server.webhook_base}/webhook/dev/public/plain", b'{"a": 1}')[0] == 403
        assert _post(url, b"{not json", _signed(b"{not json"))[0] == 422
        assert conn.execute("SELECT count(*) FROM wbhtable").fetchone() == (1,)
        # The secret is never shown; a secret in use cannot be dropped.
        definition = conn.execute("SHOW CREATE TABLE wbhtable").fetchone()[1]
        assert "TEST_WEBHOOK" not in definition
        with pytest.raises(psycopg.Error) as failure:
            conn.execute("DROP SECRET test_secret")
        assert failure.value.sqlstate == "2BP01"
        with pytest.raises(psycopg.Error) as failure:
            conn.execute("CREATE SECRET test_secret AS 'again'")
        assert failure.value.sqlstate == "42710"
        with pytest.raises(psycopg.Error) as failure:
            conn.execute("CREATE TABLE bad (data JSONB) WITH (connector = 'webhook') VALIDATE SECRET missing AS true")
        assert failure.value.sqlstate == "42704"
        with pytest.raises(psycopg.Error) as failure:
            conn.execute("CREATE TABLE bad (data JSONB) WITH (connector = 'webhook', batched = 'true')")
        assert failure.value.sqlstate == "42601" and 'Did you mean "is_batched"' in failure.value.diag.message_hint
    # The secret and the table survive a restart.
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as conn:
        url = f"{server.webhook_base}/webhook/dev/public/wbhtable"
        second = json.dumps({"action": "closed"}).encode()
        assert _post(url, second, _signed(second))[0] == 200
        assert conn.execute("SELECT count(*) FROM wbhtable").fetchone() == (2,)


def test_typed_columns_batches_and_an_idempotency_header(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as conn:
        conn.execute("""CREATE TABLE events (event_type varchar, user_name varchar, amount numeric, at timestamptz)
            WITH (connector = 'webhook', is_batched = 'true')""")
        url = f"{server.webhook_base}/webhook/dev/public/events"
        lines = [{"event_type": "purchase_a_sword", "user_name": f"u{i}", "amount": i * 10, "at": "2026-11-26T10:00:00Z"} for i in range(1000)]
        assert _post(url, "\n".join(json.dumps(line) for line in lines).encode())[0] == 200
        assert conn.execute("SELECT count(*), sum(amount), min(at) FROM events").fetchone()[:2] == (1000, sum(i * 10 for i in range(1000)))
        # One bad line refuses the whole request, naming the line.
        status, message = _post(url, b'{"event_type": "ok"}\n{"amount": "lots"}\n')
        assert status == 422 and b"line 2" in message
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (1000,)

        conn.execute("""CREATE TABLE deliveries (delivery varchar PRIMARY KEY, action varchar) ON CONFLICT DO NOTHING
            WITH (connector = 'webhook', idempotency_header = 'X-GitHub-Delivery')""")
        url = f"{server.webhook_base}/webhook/dev/public/deliveries"
        for attempt in range(3):  # a sender retrying after a timeout
            assert _post(url, b'{"action": "opened"}', {"X-GitHub-Delivery": "d-1"})[0] == 200
        assert _post(url, b'{"action": "closed"}', {"X-GitHub-Delivery": "d-2"})[0] == 200
        assert sorted(conn.execute("SELECT delivery, action FROM deliveries").fetchall()) == [("d-1", "opened"), ("d-2", "closed")]
        assert conn.execute("SELECT rows_read FROM sluice_sources WHERE name = 'events'").fetchone() == (1000,)


def test_an_oversized_or_slow_body_is_refused_and_the_server_keeps_serving(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--webhook-max-body-bytes", str(1 << 20)]) as server, connect(server) as conn:
        conn.execute("CREATE TABLE t (data JSONB) WITH (connector = 'webhook')")
        url = f"{server.webhook_base}/webhook/dev/public/t"
        # A 100 MB body, sent as a stream: refused with 413 without the server reading it all.
        big = b'{"x": "' + b"a" * (100 << 20) + b'"}'
        try:
            status, _ = _post(url, big)
        except (ConnectionError, urllib.error.URLError):
            status = 413  # the server may close the connection as soon as it has answered
        assert status == 413
        # A client that sends half a request and stalls holds nothing that stops others.
        slow = socket.create_connection(("127.0.0.1", server.webhook_port))
        slow.sendall(b"POST /webhook/dev/public/t HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"x\": ")
        try:
            assert _post(url, b'{"x": 1}')[0] == 200
            assert conn.execute("SELECT count(*) FROM t").fetchone() == (1,)
        finally:
            slow.close()


def test_acknowledged_deliveries_survive_kills_exactly_once_into_a_file_sink(tmp_path: Path) -> None:
    """Clients post numbered events while the server is killed; every event answered 200 is in
    the table and in the sink's Parquet files exactly once afterwards."""
    data, out = tmp_path / "data", tmp_path / "out"
    rng = random.Random(4560)
    acknowledged: set[int] = set()
    next_id = 0
    lock = threading.Lock()

    def client(base: str, stop: threading.Event) -> None:
        nonlocal next_id
        while not stop.is_set():
            with lock:
                first = next_id
                next_id += 10
            body = "\n".join(json.dumps({"id": i, "kind": f"k{i % 3}"}) for i in range(first, first + 10)).encode()
            try:
                status, _ = _post(f"{base}/webhook/dev/public/ev", body)
            except Exception:  # noqa: BLE001 - the server died mid-request: not acknowledged
                return
            if status == 200:
                with lock:
                    acknowledged.update(range(first, first + 10))

    for round_number in range(5):
        with SluiceServer(data_dir=data, extra_args=["--barrier-interval-ms", "50"]) as server:
            if round_number == 0:
                with connect(server) as conn:
                    conn.execute("CREATE TABLE ev (id bigint, kind varchar) APPEND ONLY WITH (connector = 'webhook', is_batched = 'true')")
                    conn.execute(f"""CREATE SINK ev_files FROM ev WITH (connector = 'fs', fs.path = '{out}', type = 'append-only',
                        rollover_seconds = '1', partition_by = 'kind') FORMAT PLAIN ENCODE PARQUET""")
            stop = threading.Event()
            clients = [threading.Thread(target=client, args=(server.webhook_base, stop)) for _ in range(4)]
            for thread in clients:
                thread.start()
            time.sleep(rng.uniform(0.3, 1.5))
            server.kill()
            server.process.wait(timeout=10)
            stop.set()
            for thread in clients:
                thread.join(timeout=30)
    assert len(acknowledged) > 100
    with SluiceServer(data_dir=data, extra_args=["--barrier-interval-ms", "50"]) as server, connect(server) as conn:
        in_table = [row[0] for row in conn.execute("SELECT id FROM ev").fetchall()]
        assert not [i for i, n in Counter(in_table).items() if n > 1]
        assert acknowledged <= set(in_table)

        def complete() -> list[int] | None:
            if not any(out.rglob("*.parquet")):
                return None
            ids = [row[0] for row in duckdb_with().execute(f"SELECT id FROM read_parquet('{out}/*/*.parquet')").fetchall()]
            repeated = [i for i, n in Counter(ids).items() if n > 1]
            assert not repeated, f"rows in the sink's files more than once: {repeated[:10]}"
            return ids if set(ids) >= set(in_table) else None
        ids = wait_until(complete, 60, "every row of the table in the sink's files")
        assert set(ids) == set(in_table)


@pytest.mark.parametrize("algorithm", ["md5", "sha1", "sha256"])
def test_hmac_and_encodings_match_pythons(tmp_path: Path, algorithm: str) -> None:
    """The validation functions against Python's hmac, hashlib and base64: short and long keys
    (a key longer than the block is hashed first), text and bytea."""
    import base64

    message = "The quick brown fox jumps over the lazy dog"
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as conn:
        for key in ("key", "k" * 100):
            expected = hmac.new(key.encode(), message.encode(), getattr(hashlib, algorithm)).digest()
            got = conn.execute(f"SELECT hmac(%s, %s, '{algorithm}'), encode(hmac(%s, %s, '{algorithm}'), 'base64')",
                               (key, message, key, message)).fetchone()
            assert bytes(got[0]) == expected and got[1] == base64.b64encode(expected).decode()
        assert bytes(conn.execute("SELECT sha256(%s)", (message.encode(),)).fetchone()[0]) == hashlib.sha256(message.encode()).digest()
        assert conn.execute("SELECT decode(encode(%s::bytea, 'hex'), 'hex') = %s::bytea", (b"\x00\xff", b"\x00\xff")).fetchone() == (True,)
