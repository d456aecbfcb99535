"""pgjdbc, the JDBC driver DBeaver and other Java tools use: compiles tests/clients/jdbc/Metadata.java
with OpenJDK 17 against Debian's postgresql.jar (libpostgresql-jdbc-java) and runs it against
the server and against PostgreSQL (the oracle). DatabaseMetaData's answers (schemas, tables,
columns with their JDBC types and sizes, primary keys, indexes, foreign keys, type info) and the
prepared statements' results must be PostgreSQL's."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Iterator

import psycopg
import pytest

from harness import Endpoint

REPO_ROOT = Path(__file__).resolve().parents[2]
SOURCE = REPO_ROOT / "tests" / "clients" / "jdbc" / "Metadata.java"
DRIVER = Path(os.environ.get("PGJDBC_JAR", "/usr/share/java/postgresql.jar"))
TABLE = "jt"
VIEW = "jv"
DDL = [
    f"CREATE TABLE {TABLE} (id int PRIMARY KEY, name varchar NOT NULL, price numeric(10,2), qty bigint,"
    " ratio double precision, ok boolean, born date, seen timestamp, stamped timestamptz)",
    f"CREATE MATERIALIZED VIEW {VIEW} AS SELECT id, name, price FROM {TABLE}",
]


@pytest.fixture(scope="module")
def metadata_class(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory holding the compiled Metadata class."""
    javac = shutil.which("javac")
    assert javac, "javac is not on PATH: install openjdk-17-jdk-headless (tests/install-system-deps.sh does)"
    assert DRIVER.is_file(), f"no pgjdbc at {DRIVER}: install libpostgresql-jdbc-java (tests/install-system-deps.sh does)"
    classes = tmp_path_factory.mktemp("jdbc-classes")
    build = subprocess.run(
        [javac, "-d", str(classes), "-cp", str(DRIVER), str(SOURCE)], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
    assert build.returncode == 0, f"javac failed:\n{build.stdout}\n{build.stderr}"
    return classes


def _run(endpoint: Endpoint, classes: Path) -> dict[str, list[list[str]]]:
    """Creates the table and view at `endpoint`, runs Metadata there and returns its lines by section."""
    with psycopg.connect(endpoint.conninfo, autocommit=True) as conn:
        for statement in DDL:
            conn.execute(statement)
    url = f"jdbc:postgresql://{endpoint.host}:{endpoint.port}/{endpoint.dbname}?user={endpoint.user}"
    result = subprocess.run(
        ["java", "-cp", f"{DRIVER}{os.pathsep}{classes}", "Metadata", url, TABLE, VIEW],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert result.returncode == 0, f"Metadata exited {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    sections: dict[str, list[list[str]]] = defaultdict(list)
    for line in result.stdout.splitlines():
        section, *fields = line.split("\t")
        sections[section].append(fields)
    return sections


@pytest.fixture(scope="module")
def answers(target: Endpoint, pg_oracle, metadata_class: Path) -> Iterator[tuple[dict, dict]]:
    """What Metadata prints on the server under test and on a fresh oracle database."""
    oracle = pg_oracle.create_database("jdbc")
    try:
        yield _run(target, metadata_class), _run(oracle, metadata_class)
    finally:
        pg_oracle.drop_database(oracle)


def test_no_errors(answers: tuple[dict, dict]) -> None:
    sluice, postgres = answers
    assert postgres["error"] == []
    assert sluice["error"] == []


@pytest.mark.parametrize("section", [
    "product", "user", "quote", "terms", "connection", "schema", "table_type", "table", "table_by_name", "view_by_name",
    "column", "primary_key", "index", "imported_key", "exported_key", "insert_count", "result_column", "row", "row_named",
])
def test_section_matches_postgres(answers: tuple[dict, dict], section: str) -> None:
    sluice, postgres = answers
    assert sluice[section] == postgres[section]


def test_columns(answers: tuple[dict, dict]) -> None:
    sluice, _ = answers
    # TABLE_NAME COLUMN_NAME ORDINAL_POSITION DATA_TYPE TYPE_NAME COLUMN_SIZE DECIMAL_DIGITS
    # NUM_PREC_RADIX NULLABLE IS_NULLABLE COLUMN_DEF IS_AUTOINCREMENT IS_GENERATEDCOLUMN
    columns = {(row[0], row[1]): row[2:] for row in sluice["column"]}
    assert columns[(TABLE, "id")][:8] == ["1", "4", "int4", "10", "0", "10", "0", "NO"]  # INTEGER, NOT NULL
    assert columns[(TABLE, "name")][:8] == ["2", "12", "varchar", "2147483647", "0", "10", "0", "NO"]  # VARCHAR
    assert columns[(TABLE, "price")][:8] == ["3", "2", "numeric", "10", "2", "10", "1", "YES"]  # NUMERIC(10,2)
    assert columns[(TABLE, "qty")][1:3] == ["-5", "int8"]  # BIGINT
    assert columns[(TABLE, "ratio")][1:3] == ["8", "float8"]  # DOUBLE
    assert columns[(TABLE, "ok")][1:3] == ["-7", "bool"]  # BIT
    assert columns[(TABLE, "born")][1:3] == ["91", "date"]  # DATE
    assert columns[(TABLE, "seen")][1:5] == ["93", "timestamp", "29", "6"]  # TIMESTAMP
    assert columns[(TABLE, "stamped")][1:3] == ["93", "timestamptz"]
    assert [name for (relation, name) in columns if relation == VIEW] == ["id", "name", "price"]
    assert columns[(VIEW, "price")][1:5] == ["2", "numeric", "10", "2"]


def test_keys_and_tables(answers: tuple[dict, dict]) -> None:
    sluice, _ = answers
    assert sluice["schema"] == [["information_schema"], ["pg_catalog"], ["public"]]
    assert sluice["table_by_name"] == [["public", TABLE, "TABLE"]]
    assert sluice["view_by_name"] == [["public", VIEW, "MATERIALIZED VIEW"]]
    assert sluice["primary_key"] == [[TABLE, "id", "1", f"{TABLE}_pkey"]]
    assert sluice["imported_key"] == [] and sluice["exported_key"] == []


def test_type_info(answers: tuple[dict, dict]) -> None:
    # PostgreSQL has many more types; each Sluice has must be described as PostgreSQL does.
    sluice, postgres = answers
    described = {row[0]: row for row in postgres["type_info"]}
    assert {"int4", "int8", "numeric", "varchar", "timestamptz"} <= {row[0] for row in sluice["type_info"]}
    for row in sluice["type_info"]:
        assert row == described.get(row[0]), row[0]


def test_prepared_statements(answers: tuple[dict, dict]) -> None:
    sluice, _ = answers
    expected = [["1", "pen", "1.50", "10", "0.5", "t", "2024-01-01"], ["2", "ink", "3.25", "20", "\\N", "\\N", "\\N"]]
    assert sluice["insert_count"] == [["1"], ["1"]]
    assert sluice["row"] == expected * 5
    assert sluice["row_named"] == expected
    price = next(row for row in sluice["result_column"] if row[0] == "price")
    assert price[2:6] == ["2", "numeric", "10", "2"]
