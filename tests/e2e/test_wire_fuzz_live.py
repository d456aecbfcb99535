"""Seeded random and mutated byte streams sent to a live server: each connection ends in an
answer or a close within the timeout, and the server keeps serving other sessions throughout."""

from __future__ import annotations

import random
import socket
import struct

import psycopg
from wire import cstring, message, startup_packet

from harness import Endpoint

SQL = ["SELECT 1", "SELECT * FROM fuzzed", "CREATE TABLE fuzzed (a int)", "INSERT INTO fuzzed VALUES (1)", "SELEC", "SELECT (1"]


def _stream(rng: random.Random) -> bytes:
    out = startup_packet() if rng.random() < 0.8 else b""
    for _ in range(rng.randint(1, 6)):
        sql = rng.choice(SQL)
        kind = rng.randrange(7)
        if kind == 0:
            out += message(b"Q", cstring(sql))
        elif kind == 1:
            out += message(b"P", cstring("s") + cstring(sql) + struct.pack("!h", 0))
        elif kind == 2:
            out += message(b"B", cstring("") + cstring("s") + struct.pack("!hhih", 0, 1, 1, 0)[:6] + b"\x00\x00")
        elif kind == 3:
            out += message(b"E", cstring("") + struct.pack("!i", rng.randint(0, 3)))
        elif kind == 4:
            out += message(b"S")
        else:
            out += bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
    data = bytearray(out)
    for _ in range(rng.randint(0, 4)):
        if data:
            data[rng.randrange(len(data))] = rng.randrange(256)
    if rng.random() < 0.3 and data:
        del data[rng.randrange(len(data)):]
    return bytes(data)


def test_live_server_survives_fuzzed_connections(target: Endpoint) -> None:
    rng = random.Random(20261122)
    with psycopg.connect(target.conninfo, autocommit=True) as watcher:
        for round_ in range(300):
            with socket.create_connection((target.host, target.port), timeout=10) as sock:
                sock.sendall(_stream(rng))
                sock.shutdown(socket.SHUT_WR)
                try:
                    while sock.recv(65536):
                        pass
                except ConnectionResetError:
                    pass
            if round_ % 50 == 0:
                assert watcher.execute("SELECT 40 + 2").fetchone() == (42,)
        assert watcher.execute("SELECT 40 + 2").fetchone() == (42,)
