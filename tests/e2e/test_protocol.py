"""The wire protocol at the byte level: malformed and truncated frames are refused (an
ErrorResponse with SQLSTATE 08P01, or the connection closed without one) and never hang or harm the
server; SSLRequest, Terminate and row-limited Execute (portal suspension) work as PostgreSQL does."""

from __future__ import annotations

import socket
import struct

import psycopg
import pytest
from wire import Closed, Message, WireClient, cstring, message, startup_packet

from harness import Endpoint

PROTOCOL_VIOLATION = "08P01"


def _assert_refused(client: WireClient, allowed_codes: tuple[str, ...] = (PROTOCOL_VIOLATION,)) -> None:
    """The server answers with nothing but an error (of an allowed code) and closes, in time."""
    try:
        messages = client.read_to_end()
    except (TimeoutError, socket.timeout):
        pytest.fail("the server neither answered nor closed the connection within 10 s")
    finally:
        client.close()
    assert all(m.type in (b"E", b"N") for m in messages), f"unexpected messages {[m.type for m in messages]}"
    for error in (m for m in messages if m.type == b"E"):
        assert error.error_fields().get("C") in allowed_codes, error.error_fields()


def _assert_healthy(target: Endpoint) -> None:
    with psycopg.connect(target.conninfo, autocommit=True) as conn:
        assert conn.execute("SELECT 40 + 2").fetchone() == (42,)


@pytest.fixture
def client(target: Endpoint):
    client = WireClient(target.host, target.port)
    yield client
    client.close()
    _assert_healthy(target)


# -- before startup -----------------------------------------------------------------------------

def test_startup_length_too_small(client: WireClient) -> None:
    client.send(struct.pack("!i", 4))
    _assert_refused(client)


def test_startup_length_huge(client: WireClient) -> None:
    client.send(struct.pack("!i", 0x7FFFFFFF) + struct.pack("!i", 196608) + b"user\x00root\x00\x00")
    _assert_refused(client)


def test_garbage_instead_of_startup(client: WireClient) -> None:
    client.send(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
    _assert_refused(client)


def test_truncated_startup(client: WireClient) -> None:
    packet = startup_packet()
    client.send(packet[: len(packet) // 2])
    client.sock.shutdown(socket.SHUT_WR)
    _assert_refused(client)


def test_unsupported_protocol_version(client: WireClient) -> None:
    client.send(startup_packet(version=9999 << 16))
    _assert_refused(client, allowed_codes=(PROTOCOL_VIOLATION, "0A000"))


def test_ssl_request_is_declined_then_plain_startup_works(client: WireClient) -> None:
    client.send(struct.pack("!ii", 8, 80877103))
    assert client.read_byte() == b"N"
    client.login()
    client.send(message(b"Q", cstring("SELECT 1")))
    types = [m.type for m in client.read_until(b"Z")]
    assert types == [b"T", b"D", b"C", b"Z"], types


# -- after startup ------------------------------------------------------------------------------

def test_unknown_message_type(client: WireClient) -> None:
    client.login()
    client.send(message(b"!", b"whatever"))
    _assert_refused(client)


def test_message_length_below_minimum(client: WireClient) -> None:
    client.login()
    client.send(b"Q" + struct.pack("!i", 2))
    _assert_refused(client)


def test_message_length_huge(client: WireClient) -> None:
    client.login()
    client.send(b"Q" + struct.pack("!i", 0x7FFFFFFF) + b"SELECT 1\x00")
    _assert_refused(client)


def test_query_string_without_terminator(client: WireClient) -> None:
    """Either an 08P01 error (the session may go on) or a close; never a result."""
    client.login()
    client.send(b"Q" + struct.pack("!i", 4 + 8) + b"SELECT 1")
    try:
        messages = client.read_until(b"Z")
    except Closed:
        return
    assert messages[0].type == b"E", [m.type for m in messages]
    assert messages[0].error_fields()["C"] == PROTOCOL_VIOLATION


def test_truncated_message_then_close(client: WireClient) -> None:
    client.login()
    client.send(b"Q" + struct.pack("!i", 4 + 100) + b"SELECT")
    client.sock.shutdown(socket.SHUT_WR)
    _assert_refused(client)


def test_terminate_closes_cleanly(client: WireClient) -> None:
    client.login()
    client.send(message(b"X"))
    assert client.read_to_end() == []


def test_empty_query(client: WireClient) -> None:
    client.login()
    client.send(message(b"Q", cstring("")))
    types = [m.type for m in client.read_until(b"Z")]
    assert types == [b"I", b"Z"], types


# -- extended protocol: fetching a portal in pieces ------------------------------------------------

def _data_row_values(msg: Message) -> list[str | None]:
    count = struct.unpack("!h", msg.body[:2])[0]
    values, offset = [], 2
    for _ in range(count):
        length = struct.unpack("!i", msg.body[offset:offset + 4])[0]
        offset += 4
        if length < 0:
            values.append(None)
        else:
            values.append(msg.body[offset:offset + length].decode())
            offset += length
    return values


def test_execute_with_row_limit_suspends_portal(client: WireClient) -> None:
    client.login()
    sql = "SELECT x FROM (VALUES (1), (2), (3), (4), (5)) AS v(x) ORDER BY x"
    parse = message(b"P", cstring("") + cstring(sql) + struct.pack("!h", 0))
    bind = message(b"B", cstring("") + cstring("") + struct.pack("!hhh", 0, 0, 0))
    describe = message(b"D", b"P" + cstring(""))
    execute_two = message(b"E", cstring("") + struct.pack("!i", 2))
    client.send(parse + bind + describe + execute_two + message(b"H"))  # Flush, not Sync: keep the portal
    first = client.read_until(b"s")
    assert [m.type for m in first] == [b"1", b"2", b"T", b"D", b"D", b"s"], [m.type for m in first]
    assert [_data_row_values(m) for m in first if m.type == b"D"] == [["1"], ["2"]]

    client.send(execute_two + message(b"H"))
    second = client.read_until(b"s")
    assert [_data_row_values(m) for m in second if m.type == b"D"] == [["3"], ["4"]]

    client.send(message(b"E", cstring("") + struct.pack("!i", 0)) + message(b"S"))
    rest = client.read_until(b"Z")
    assert [m.type for m in rest] == [b"D", b"C", b"Z"], [m.type for m in rest]
    assert _data_row_values(rest[0]) == ["5"]
    assert rest[1].body == cstring("SELECT 1")  # the tag counts the rows of this Execute only


def test_bind_with_wrong_parameter_count(client: WireClient) -> None:
    """Bind supplying one value to a statement with two parameters: 08P01, then the session
    goes on after Sync."""
    client.login()
    parse = message(b"P", cstring("two") + cstring("SELECT $1::int + $2::int") + struct.pack("!h", 0))
    one_value = struct.pack("!hh", 0, 1) + struct.pack("!i", 1) + b"7" + struct.pack("!h", 0)
    bind = message(b"B", cstring("") + cstring("two") + one_value)
    client.send(parse + bind + message(b"S"))
    messages = client.read_until(b"Z")
    errors = [m for m in messages if m.type == b"E"]
    assert len(errors) == 1, [m.type for m in messages]
    fields = errors[0].error_fields()
    assert fields["C"] == PROTOCOL_VIOLATION, fields
    assert "requires 2" in fields["M"], fields
    client.send(message(b"Q", cstring("SELECT 1")))
    assert [m.type for m in client.read_until(b"Z")][-1:] == [b"Z"]
