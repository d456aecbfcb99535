"""HTTP/2 with prior knowledge (h2c, RFC 9113 Section 3.3) on the HTTP listeners, beside HTTP/1.1 on
the same port: httpx's HTTP/2 client (as ksqlDB's Python client uses it), the h2 library over a
raw socket for what httpx does not expose (many streams at once, a small window, a reset),
Debian's `curl --http2-prior-knowledge`, and bad input answered with GOAWAY while the server
goes on serving. Answers over HTTP/2 equal HTTP/1.1's for the same requests."""

from __future__ import annotations

import shutil
import socket
import ssl
import struct
import subprocess
import threading

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.settings
import httpx
import pytest

from harness import SluiceServer

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


@pytest.fixture(scope="module")
def server():
    with SluiceServer() as server:
        yield server


def _h1(server: SluiceServer) -> httpx.Client:
    return httpx.Client(base_url=server.http_base, timeout=30)


def _h2(server: SluiceServer) -> httpx.Client:
    return httpx.Client(base_url=server.http_base, http2=True, http1=False, timeout=30)


def _answer(response: httpx.Response) -> tuple[int, str, bytes]:
    return response.status_code, response.headers.get("content-type", ""), response.content


class RawH2:
    """One HTTP/2 connection driven by the h2 library over a plain socket."""

    def __init__(self, server: SluiceServer, window: int | None = None, auto_ack: bool = True):
        host, port = server.http_base.removeprefix("http://").split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        if window is not None:
            self.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
        self.auto_ack = auto_ack
        self.flush()
        self.heads: dict[int, dict[str, str]] = {}
        self.bodies: dict[int, bytearray] = {}
        self.ended: set[int] = set()
        self.reset: dict[int, int] = {}
        self.terminated: h2.events.ConnectionTerminated | None = None
        self.unacknowledged: dict[int, int] = {}

    def flush(self) -> None:
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def request(self, method: str, path: str, body: bytes = b"", end: bool = True) -> int:
        stream = self.conn.get_next_available_stream_id()
        headers = [(":method", method), (":path", path), (":scheme", "http"), (":authority", "localhost")]
        if body:
            headers.append(("content-length", str(len(body))))
        self.conn.send_headers(stream, headers, end_stream=not body and end)
        if body:
            self.conn.send_data(stream, body, end_stream=end)
        self.flush()
        return stream

    def pump(self) -> bool:
        """Reads once and handles the events; False when the server closed the connection."""
        data = self.sock.recv(65536)
        if not data:
            return False
        for event in self.conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                self.heads[event.stream_id] = dict(event.headers)
                self.bodies.setdefault(event.stream_id, bytearray())
            elif isinstance(event, h2.events.DataReceived):
                self.bodies.setdefault(event.stream_id, bytearray()).extend(event.data)
                if self.auto_ack:
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                else:
                    self.unacknowledged[event.stream_id] = self.unacknowledged.get(event.stream_id, 0) + event.flow_controlled_length
            elif isinstance(event, h2.events.StreamEnded):
                self.ended.add(event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                self.reset[event.stream_id] = event.error_code
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.terminated = event
        self.flush()
        return True

    def until(self, condition) -> None:
        while not condition():
            assert self.pump(), "the server closed the connection"

    def close(self) -> None:
        self.sock.close()


def test_get_and_post_equal_http11(server: SluiceServer):
    requests = [
        ("GET", "/health", None),
        ("HEAD", "/health", None),
        ("GET", "/", None),
        ("GET", "/dashboard.js", None),
        ("GET", "/no/such/page", None),
        ("POST", "/api/query", b"SELECT 7 AS x, 'seven' AS y"),
        ("POST", "/api/query", b"SELECT * FROM generate_series(1, 300)"),
        ("POST", "/api/query", b"SELEC nonsense"),
    ]
    with _h1(server) as h1, _h2(server) as h2client:
        for method, path, body in requests:
            over2 = h2client.request(method, path, content=body)
            over1 = h1.request(method, path, content=body)
            assert over2.http_version == "HTTP/2" and over1.http_version == "HTTP/1.1"
            assert _answer(over2) == _answer(over1), (method, path)
            if method != "HEAD":
                assert over2.headers.get("content-length") == str(len(over2.content))
        assert h2client.get("/health").text == "ok\n"


@pytest.mark.parametrize("listener, method, path, body", [
    ("schema_registry_url", "GET", "/subjects", None),
    ("catalog_base", "GET", "/v1/config", None),
    ("webhook_base", "POST", "/webhook/dev/public/no_such_table", b'{"a": 1}'),
])
def test_every_listener_speaks_http2(server: SluiceServer, listener: str, method: str, path: str, body: bytes | None):
    base = getattr(server, listener)
    with httpx.Client(base_url=base, timeout=30) as h1, httpx.Client(base_url=base, http2=True, http1=False, timeout=30) as h2client:
        over2 = h2client.request(method, path, content=body)
        over1 = h1.request(method, path, content=body)
        assert over2.http_version == "HTTP/2"
        assert _answer(over2) == _answer(over1)


def test_request_body_past_the_bound_is_413(server: SluiceServer):
    with _h2(server) as client:
        response = client.post("/api/query", content=b"SELECT 1 -- " + b"x" * (2 << 20))
        assert response.status_code == 413
        # The connection goes on.
        assert client.get("/health").status_code == 200


def test_many_concurrent_streams_on_one_connection(server: SluiceServer):
    with _h1(server) as h1:
        expected = {n: h1.post("/api/query", content=f"SELECT {n} AS n, repeat('y', {n * 10}) AS pad".encode()).content for n in range(60)}
        health = h1.get("/health").content
    raw = RawH2(server)
    try:
        streams = {raw.request("POST", "/api/query", f"SELECT {n} AS n, repeat('y', {n * 10}) AS pad".encode()): n for n in range(60)}
        health_stream = raw.request("GET", "/health")
        # All 61 requests are in flight before any answer is read.
        raw.until(lambda: set(streams) | {health_stream} <= raw.ended)
        assert len(set(streams)) == 60
        for stream, n in streams.items():
            assert raw.heads[stream][":status"] == "200"
            assert bytes(raw.bodies[stream]) == expected[n]
        assert bytes(raw.bodies[health_stream]) == health
    finally:
        raw.close()


def test_large_answer_waits_for_the_clients_window(server: SluiceServer):
    sql = b"SELECT repeat('x', 300000) AS big"
    with _h1(server) as h1:
        expected = h1.post("/api/query", content=sql).content
    assert len(expected) > 300000
    raw = RawH2(server, window=1000, auto_ack=False)
    try:
        stream = raw.request("POST", "/api/query", sql)
        raw.until(lambda: len(raw.bodies.get(stream, b"")) >= 1000)
        # Exactly the stream's window, no byte more, until the client opens it.
        raw.sock.settimeout(0.5)
        with pytest.raises(socket.timeout):
            raw.pump()
        assert len(raw.bodies[stream]) == 1000 and stream not in raw.ended
        raw.sock.settimeout(30)
        # Then a window at a time (the connection's too).
        while stream not in raw.ended:
            pending = raw.unacknowledged.pop(stream, 0)
            if pending:
                raw.conn.acknowledge_received_data(pending, stream)
                raw.flush()
            raw.pump()
        assert bytes(raw.bodies[stream]) == expected
    finally:
        raw.close()


def test_streamed_answer_waits_for_the_clients_window(server: SluiceServer):
    # The dashboard's event feed is a streamed body: with a 100-byte window it sends 100 bytes.
    raw = RawH2(server, window=100, auto_ack=False)
    try:
        stream = raw.request("GET", "/events")
        raw.until(lambda: len(raw.bodies.get(stream, b"")) >= 100)
        raw.sock.settimeout(0.5)
        with pytest.raises(socket.timeout):
            raw.pump()
        assert len(raw.bodies[stream]) == 100
        assert raw.heads[stream]["content-type"] == "text/event-stream"
        raw.sock.settimeout(30)
        raw.conn.acknowledge_received_data(raw.unacknowledged.pop(stream), stream)
        raw.conn.increment_flow_control_window(1 << 20, stream)
        raw.flush()
        raw.auto_ack = True
        # The rest of the first event arrives once the window opens.
        raw.until(lambda: b"\n\n" in bytes(raw.bodies[stream])[len(b"retry: 1000\n\n"):])
        assert bytes(raw.bodies[stream]).startswith(b"retry: 1000\n\ndata: {")
    finally:
        raw.close()


def test_client_reset_mid_stream(server: SluiceServer):
    raw = RawH2(server)
    try:
        feed = raw.request("GET", "/events")
        raw.until(lambda: len(raw.bodies.get(feed, b"")) > 0)
        raw.conn.reset_stream(feed, h2.errors.ErrorCodes.CANCEL)
        raw.flush()
        # The connection goes on: new streams, another feed included, are answered.
        health = raw.request("GET", "/health")
        second = raw.request("GET", "/events")
        raw.until(lambda: health in raw.ended and len(raw.bodies.get(second, b"")) > 0)
        assert bytes(raw.bodies[health]) == b"ok\n"
        assert raw.terminated is None
    finally:
        raw.close()


def test_client_goaway_closes_after_the_answers(server: SluiceServer):
    raw = RawH2(server)
    try:
        stream = raw.request("POST", "/api/query", b"SELECT 3 AS three")
        # GOAWAY written by hand: the h2 library would take no frame after its own.
        raw.sock.sendall(_frame(7, 0, 0, struct.pack(">II", 0, 0)))
        # The answer in flight still comes, then the server closes the connection.
        while raw.pump():
            pass
        assert stream in raw.ended and raw.heads[stream][":status"] == "200"
        assert b'"rows":[[3]]' in bytes(raw.bodies[stream])
    finally:
        raw.close()


def test_http11_on_the_same_port(server: SluiceServer):
    with _h1(server) as h1:
        assert h1.get("/health").text == "ok\n"
    host, port = server.http_base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"\r\n\r\nok\n")


def test_curl_prior_knowledge(server: SluiceServer):
    curl = shutil.which("curl")
    assert curl, "curl is installed by tests/install-system-deps.sh"
    assert "HTTP2" in subprocess.run([curl, "-V"], capture_output=True, text=True, check=True).stdout
    out = subprocess.run([curl, "-s", "--http2-prior-knowledge", "-w", "\n%{http_version} %{http_code}", f"{server.http_base}/health"],
                         capture_output=True, text=True, check=True, timeout=30).stdout
    assert out == "ok\n\n2 200"
    posted = subprocess.run([curl, "-s", "--http2-prior-knowledge", "--data-binary", "SELECT 7 AS x", f"{server.http_base}/api/query"],
                            capture_output=True, text=True, check=True, timeout=30).stdout
    with _h1(server) as h1:
        assert posted == h1.post("/api/query", content=b"SELECT 7 AS x").text


def _goaway_code(server: SluiceServer, payload: bytes) -> int:
    """Sends `payload` on a fresh connection; returns the error code of the GOAWAY the server answers."""
    host, port = server.http_base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        # Sent from a thread while this one reads the answers (a flood's answers are large).
        sender = threading.Thread(target=_send_all, args=(sock, payload))
        sender.start()
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        sender.join()
    offset = 0
    codes = []
    while offset + 9 <= len(data):
        length = int.from_bytes(data[offset:offset + 3], "big")
        kind = data[offset + 3]
        if kind == 7:
            codes.append(struct.unpack(">I", data[offset + 13:offset + 17])[0])
        offset += 9 + length
    assert codes, f"no GOAWAY in {data!r}"
    return codes[-1]


def _send_all(sock: socket.socket, payload: bytes) -> None:
    try:
        sock.sendall(payload)
    except OSError:
        pass  # the server closed after its GOAWAY, before reading everything


def _frame(kind: int, flags: int, stream: int, payload: bytes) -> bytes:
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def test_bad_input_gets_goaway_and_others_are_served(server: SluiceServer):
    settings = _frame(4, 0, 0, b"")
    with _h2(server) as bystander:
        assert bystander.get("/health").status_code == 200
        # A preface that starts right and goes wrong.
        assert _goaway_code(server, b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n") == h2.errors.ErrorCodes.PROTOCOL_ERROR
        # A frame past SETTINGS_MAX_FRAME_SIZE (16,384).
        assert _goaway_code(server, PREFACE + settings + _frame(0, 0, 1, b"\0" * 20000)) == h2.errors.ErrorCodes.FRAME_SIZE_ERROR
        # HPACK garbage: an index past both tables, then an endless integer.
        assert _goaway_code(server, PREFACE + settings + _frame(1, 5, 1, b"\xff\xff\xff\xff\xff\xff\xff")) == h2.errors.ErrorCodes.COMPRESSION_ERROR
        # A flood of PINGs (past the 10,000 frames without a request a connection may send).
        flood = PREFACE + settings + b"".join(_frame(6, 0, 0, i.to_bytes(8, "big")) for i in range(12000))
        assert _goaway_code(server, flood) == h2.errors.ErrorCodes.ENHANCE_YOUR_CALM
        # The connection opened before, and new ones, are served.
        assert bystander.get("/health").status_code == 200
    with _h2(server) as client:
        assert client.get("/health").text == "ok\n"


def test_http2_inside_tls(tmp_path_factory):
    # With --tls-cert the dashboard serves HTTPS only; HTTP/2 with prior knowledge goes inside
    # the TLS session (no ALPN: httpx with http1=False speaks HTTP/2 without it).
    from harness.ports import free_port
    from tls_support import make_certificates

    certificates = make_certificates(tmp_path_factory.mktemp("h2-tls"), names="DNS:localhost,IP:127.0.0.1")
    trust = ssl.create_default_context(cafile=str(certificates["ca"]))
    args = ["--tls-cert", str(certificates["cert"]), "--tls-key", str(certificates["key"]), "--kafka-ssl-listen", f"127.0.0.1:{free_port()}"]
    with SluiceServer(extra_args=args) as server:
        base = server.http_base.replace("http://", "https://")
        with httpx.Client(base_url=base, http2=True, http1=False, verify=trust, timeout=30) as client:
            response = client.get("/health")
            assert response.http_version == "HTTP/2" and response.text == "ok\n"
            assert client.post("/api/query", content=b"SELECT 7 AS x").json()["rows"] == [[7]]
        with httpx.Client(base_url=base, verify=trust, timeout=30) as client:
            response = client.get("/health")
            assert response.http_version == "HTTP/1.1" and response.text == "ok\n"
