"""Which server a test talks to: Sluice by default, the PostgreSQL oracle on request."""

from __future__ import annotations

import contextlib
import os
from typing import Callable, Iterator

from .endpoint import Endpoint
from .postgres_server import PostgresServer
from .sluice_server import SluiceServer


def target_kind() -> str:
    """`$SLUICE_E2E_TARGET`: `sluice` (default) or `postgres` (to check the tests themselves)."""
    kind = os.environ.get("SLUICE_E2E_TARGET", "sluice")
    if kind not in ("sluice", "postgres"):
        raise ValueError(f"SLUICE_E2E_TARGET must be 'sluice' or 'postgres', not {kind!r}")
    return kind


@contextlib.contextmanager
def fresh_target(oracle: Callable[[], PostgresServer]) -> Iterator[Endpoint]:
    """A fresh server to test: a new `sluice serve`, or with SLUICE_E2E_TARGET=postgres a new
    database on the oracle (`oracle()` returns the running PostgresServer)."""
    if target_kind() == "postgres":
        server = oracle()
        endpoint = server.create_database("e2e")
        try:
            yield endpoint
        finally:
            server.drop_database(endpoint)
    else:
        with SluiceServer() as server:
            yield server.endpoint()
