"""Fixtures for the end-to-end client tests: connections to the server under test (`target`)."""

from __future__ import annotations

import itertools
import os
from typing import Iterator

import psycopg
import pytest

from harness import Endpoint, SluiceServer

_names = itertools.count(1)


@pytest.fixture
def conn(target: Endpoint) -> Iterator[psycopg.Connection]:
    """An autocommit psycopg connection to the server under test."""
    with psycopg.connect(target.conninfo, autocommit=True) as connection:
        yield connection


@pytest.fixture
def table_name() -> str:
    """A table name no other test in this run uses (tests of a module share one server)."""
    return f"t{os.getpid()}_{next(_names)}"


@pytest.fixture(scope="module")
def kafka_server() -> Iterator[SluiceServer]:
    """A `sluice serve` whose built-in broker the Kafka tests of one module share
    (`kafka_server.kafka_bootstrap`). Always Sluice, also with SLUICE_E2E_TARGET=postgres: the
    oracle has no Kafka side, so these tests check Sluice's broker against the clients instead."""
    with SluiceServer() as server:
        yield server


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    """On failure, attach the log of the Kafka tests' server."""
    outcome = yield
    report = outcome.get_result()
    server = getattr(item, "funcargs", {}).get("kafka_server")
    if report.failed and isinstance(server, SluiceServer):
        text = server.log()
        if text:
            report.sections.append((f"sluice server log (Kafka on {server.kafka_bootstrap})", text[-8000:]))
