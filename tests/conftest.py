"""Shared pytest fixtures: the Sluice server under test and the PostgreSQL oracle.

`SLUICE_E2E_TARGET=postgres` points every test that uses `target` at a fresh database on the
PostgreSQL oracle instead of at Sluice: that is how the tests themselves are checked.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

import pytest

TESTS_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS_DIR))

from harness import Endpoint, PostgresServer, fresh_target, target_kind  # noqa: E402

try:
    target_kind()
except ValueError as error:
    raise pytest.UsageError(str(error)) from None


@pytest.fixture(scope="session")
def pg_oracle() -> Iterator[PostgresServer]:
    """A PostgreSQL server for the whole run (superuser root, database dev, UTC, C collation)."""
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def target(request: pytest.FixtureRequest) -> Iterator[Endpoint]:
    """The server under test, one per test module, so that at most one Sluice runs at a time."""
    with fresh_target(lambda: request.getfixturevalue("pg_oracle")) as endpoint:
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
