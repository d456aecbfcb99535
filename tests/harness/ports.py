"""Loopback ports: pick a free one, wait until a server accepts on it."""

from __future__ import annotations

import socket
import subprocess
import time


_handed_out: set[int] = set()


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on `host` that nothing listens on right now (the kernel picks it) and that
    this test run has not handed out before.

    The kernel may pick the same port for two binds in a row once the first socket is closed,
    so a server given two ports (SQL and Kafka) could be told to listen twice on one port.
    """
    for _ in range(1000):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((host, 0))
            port = sock.getsockname()[1]
        if port not in _handed_out:
            _handed_out.add(port)
            return port
    raise RuntimeError(f"no free port on {host} that this run has not used")


def wait_for_port(
    host: str,
    port: int,
    timeout: float,
    process: subprocess.Popen | None = None,
    what: str = "server",
) -> None:
    """Polls until `host:port` accepts a TCP connection.

    Raises `RuntimeError` when `process` exits first or `timeout` seconds pass.
    """
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what} exited with code {process.returncode} before accepting connections on {host}:{port}")
        try:
            with socket.create_connection((host, port), timeout=1.0):
                return
        except OSError:
            pass
        if time.monotonic() >= deadline:
            raise RuntimeError(f"{what} did not accept connections on {host}:{port} within {timeout:.0f}s")
        time.sleep(delay)  # back-off between polls of the port, not a wait for a guessed duration
        delay = min(delay * 2, 0.2)
