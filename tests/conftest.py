"""Shared pytest fixtures: the Sluice server under test and the PostgreSQL oracle.

`SLUICE_E2E_TARGET=postgres` points every test that uses `target` at a fresh database on the
PostgreSQL oracle instead of at Sluice: that is how the tests themselves are checked.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Iterator

import pytest

TESTS_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS_DIR))

from harness import Endpoint, PostgresServer, SluiceServer  # noqa: E402

TARGET_KIND = os.environ.get("SLUICE_E2E_TARGET", "sluice")
if TARGET_KIND not in ("sluice", "postgres"):
    raise pytest.UsageError(f"SLUICE_E2E_TARGET must be 'sluice' or 'postgres', not {TARGET_KIND!r}")


@pytest.fixture(scope="session")
def pg_oracle() -> Iterator[PostgresServer]:
    """A PostgreSQL server for the whole run (superuser root, database dev, UTC, C collation)."""
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def fresh_target(request: pytest.FixtureRequest) -> Iterator[Endpoint]:
    """A fresh server to test: a new `sluice serve`, or a new database on the oracle when
    SLUICE_E2E_TARGET=postgres."""
    if TARGET_KIND == "postgres":
        oracle: PostgresServer = request.getfixturevalue("pg_oracle")
        endpoint = oracle.create_database("e2e")
        try:
            yield endpoint
        finally:
            oracle.drop_database(endpoint)
    else:
        with SluiceServer() as server:
            yield server.endpoint()


@pytest.fixture(scope="module")
def target(request: pytest.FixtureRequest) -> Iterator[Endpoint]:
    """The server under test, one per test module, so that at most one Sluice runs at a time."""
    with fresh_target(request) as endpoint:
        yield endpoint


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    """On failure, attach the log of the server the test talked to."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and "target" in getattr(item, "fixturenames", ()):
        endpoint = item.funcargs.get("target") if hasattr(item, "funcargs") else None
        if isinstance(endpoint, Endpoint):
            text = endpoint.log()
            if text:
                report.sections.append((f"{endpoint.kind} server log (port {endpoint.port})", text[-8000:]))
