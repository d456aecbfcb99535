"""A raw TCP connection for the wire-level tests (Postgres and Kafka): send bytes, read exactly
as many as asked. Every read is bounded by `timeout` seconds, so a server that neither answers
nor closes raises `TimeoutError` (a test failure, never a hang)."""

from __future__ import annotations

import socket


class Closed(Exception):
    """The server closed (or reset) the connection."""


class SocketClient:
    def __init__(self, host: str, port: int, timeout: float = 10.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buffer = b""

    def close(self) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _fill(self, count: int) -> None:
        """Reads until `count` bytes are buffered; raises `Closed` if the connection ends first."""
        while len(self.buffer) < count:
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                raise Closed(f"connection closed with {len(self.buffer)} unread bytes")
            self.buffer += chunk
