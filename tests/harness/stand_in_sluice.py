#!/usr/bin/env python3
"""A stand-in for `sluice serve`, used only to test the harness itself: it takes the same
arguments (`serve --listen HOST:PORT --data-dir DIR`), serves the Postgres protocol there by
running a real PostgreSQL (user root, database dev) on a private port and relaying connections to
it, and shuts down on SIGTERM like a server should. It opens HOST:PORT only once PostgreSQL
answers queries, which is the readiness rule the harness expects of Sluice.

Usage: stand_in_sluice.py serve --listen 127.0.0.1:PORT --data-dir DIR
"""

from __future__ import annotations

import argparse
import signal
import socket
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.postgres_server import PostgresServer  # noqa: E402


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, sink):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _relay(listener: socket.socket, backend_port: int) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        backend = socket.create_connection(("127.0.0.1", backend_port))
        for source, sink in ((client, backend), (backend, client)):
            threading.Thread(target=_pipe, args=(source, sink), daemon=True).start()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["serve"])
    parser.add_argument("--listen", required=True)
    parser.add_argument("--data-dir", required=True, type=Path)
    parser.add_argument("--kafka-listen")
    parser.add_argument("--catalog-listen")
    parser.add_argument("--dashboard-listen")
    parser.add_argument("--webhook-listen")
    parser.add_argument("--schema-registry-listen")
    parser.add_argument("--flink-gateway-listen")
    parser.add_argument("--trino-listen")
    parser.add_argument("--ksql-listen")
    args = parser.parse_args()
    host, port = args.listen.rsplit(":", 1)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    server = PostgresServer().start()
    (args.data_dir / "stand-in").write_text("served\n")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, int(port)))
    listener.listen(64)
    threading.Thread(target=_relay, args=(listener, server.port), daemon=True).start()
    print(f"stand-in sluice: serving on {host}:{port}", flush=True)
    stop.wait()
    listener.close()
    server.stop()
    print("stand-in sluice: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
