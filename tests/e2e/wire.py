"""A minimal Postgres v3 frontend over a raw socket, for tests that send what no driver would.

Message formats: PostgreSQL docs, "Frontend/Backend Protocol", "Message Formats".
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from socket_client import Closed, SocketClient

PROTOCOL_3_0 = 196608
SSL_REQUEST_CODE = 80877103


@dataclass
class Message:
    type: bytes  # one byte, e.g. b"E"
    body: bytes

    def error_fields(self) -> dict[str, str]:
        """The fields of an ErrorResponse or NoticeResponse (code letter → text)."""
        fields = {}
        for part in self.body.split(b"\x00"):
            if part:
                fields[chr(part[0])] = part[1:].decode("utf-8", "replace")
        return fields


def startup_packet(user: str = "root", database: str = "dev", version: int = PROTOCOL_3_0) -> bytes:
    params = b"".join(key.encode() + b"\x00" + value.encode() + b"\x00" for key, value in (("user", user), ("database", database)))
    body = struct.pack("!i", version) + params + b"\x00"
    return struct.pack("!i", len(body) + 4) + body


def message(type_: bytes, body: bytes = b"") -> bytes:
    return type_ + struct.pack("!i", len(body) + 4) + body


def cstring(text: str) -> bytes:
    return text.encode() + b"\x00"


class WireClient(SocketClient):
    """One connection: send raw bytes, read typed backend messages."""

    def read_byte(self) -> bytes:
        self._fill(1)
        byte, self.buffer = self.buffer[:1], self.buffer[1:]
        return byte

    def read_message(self) -> Message:
        self._fill(5)
        type_, length = self.buffer[:1], struct.unpack("!i", self.buffer[1:5])[0]
        assert 4 <= length < 1 << 26, f"implausible backend message length {length} for type {type_!r}"
        self._fill(1 + length)
        body, self.buffer = self.buffer[5:1 + length], self.buffer[1 + length:]
        return Message(type_, body)

    def read_until(self, type_: bytes) -> list[Message]:
        """Messages up to and including the first of `type_`; stops early at an ErrorResponse."""
        messages = []
        while True:
            msg = self.read_message()
            messages.append(msg)
            if msg.type == type_ or msg.type == b"E":
                return messages

    def read_to_end(self) -> list[Message]:
        """Every message until the server closes the connection."""
        messages = []
        try:
            while True:
                messages.append(self.read_message())
        except Closed:
            return messages

    def login(self, user: str = "root", database: str = "dev") -> list[Message]:
        """Startup with trust authentication, up to ReadyForQuery."""
        self.send(startup_packet(user, database))
        messages = self.read_until(b"Z")
        assert messages[-1].type == b"Z", [m.type for m in messages]
        assert messages[0].type == b"R" and struct.unpack("!i", messages[0].body[:4])[0] == 0, messages[0]
        return messages
