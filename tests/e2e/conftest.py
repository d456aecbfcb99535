"""Fixtures for the end-to-end client tests: connections to the server under test (`target`)."""

from __future__ import annotations

import itertools
import os
from typing import Iterator

import psycopg
import pytest

from harness import Endpoint

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
