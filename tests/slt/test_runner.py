"""Tests of the sqllogictest runner itself: it must parse the format, and it must fail when the
server's answer differs from the file (checked against the PostgreSQL oracle)."""

from __future__ import annotations

from pathlib import Path

import pytest

import runner as slt

SAMPLE = """# name: sample
# description: every record kind

statement ok
CREATE TABLE t (a int, b varchar)

statement count 2
INSERT INTO t VALUES (1, 'x y'), (2, NULL)

statement error 22012
SELECT 1 / 0

statement error 42P01 relation "nope" does not exist
SELECT * FROM nope

query IT rowsort
SELECT a, b FROM t
----
1	x y
2 NULL

skipif postgres
query I
SELECT 1
----
999

onlyif postgres
query I valuesort
SELECT a FROM t
----
2 1

query error 42703
SELECT c FROM t

halt

query I
SELECT 'never run'
----
x
"""


def _write(tmp_path: Path, text: str, name: str = "sample.slt") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_parse_every_record_kind(tmp_path: Path) -> None:
    records = slt.parse_file(_write(tmp_path, SAMPLE))
    kinds = [(r.kind, r.line) for r in records]
    assert kinds == [("statement", 4), ("statement", 7), ("statement", 10), ("statement", 13), ("query", 16),
                     ("query", 23), ("query", 29), ("query", 34), ("halt", 37), ("query", 39)]
    count, error, message_error, rowsort, skipped, onlyif, query_error = records[1:8]
    assert count.expect_count == 2
    assert (error.expect_error, error.error_code, error.error_regex) == (True, "22012", None)
    assert (message_error.error_code, message_error.error_regex) == ("42P01", 'relation "nope" does not exist')
    assert (rowsort.types, rowsort.sort_mode, rowsort.expected) == ("IT", "rowsort", ["1\tx y", "2 NULL"])
    assert skipped.conditions == [("skipif", "postgres")] and not skipped.applies_to("postgres") and skipped.applies_to("sluice")
    assert onlyif.conditions == [("onlyif", "postgres")] and not onlyif.applies_to("sluice")
    assert query_error.expect_error and query_error.error_code == "42703"
    assert slt.count_records(records) == 9


@pytest.mark.parametrize("text, message", [
    ("query X\nSELECT 1\n----\n1\n", "unknown type letter"),
    ("query I sideways\nSELECT 1\n", "unknown sort mode"),
    ("statement maybe\nSELECT 1\n", "expected `statement ok`"),
    ("statement ok\n\n", "record has no SQL"),
    ("skipif mysql\nstatement ok\nSELECT 1\n", "expected `skipif"),
    ("frobnicate\n", "unknown record type"),
])
def test_parse_errors_name_the_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(slt.SLTSyntaxError, match=message) as caught:
        slt.parse_file(_write(tmp_path, text))
    assert "sample.slt:1:" in str(caught.value)


def test_include(tmp_path: Path) -> None:
    _write(tmp_path, "statement ok\nSELECT 1\n", "part.slt")
    records = slt.parse_file(_write(tmp_path, "include part.slt\n\nstatement ok\nSELECT 2\n"))
    assert [r.sql for r in records] == ["SELECT 1", "SELECT 2"]


def test_row_splitting_and_rendering() -> None:
    assert slt.split_row("1 two  3", 3) == ["1", "two", "3"]
    assert slt.split_row("1\ttwo words\t3", 3) == ["1", "two words", "3"]
    assert slt.split_row("a whole line", 1) == ["a whole line"]
    assert slt.split_row("1 two words", 2) is None
    assert [slt.render_value(v) for v in (None, "", "a\nb", "t\tab")] == ["NULL", "(empty)", "a\\nb", "t\\tab"]
    assert slt.render_row(["1", "x y"]) == "1\tx y"
    assert slt.render_row(["1", "xy"]) == "1 xy"


@pytest.fixture
def oracle_db(pg_oracle):
    endpoint = pg_oracle.create_database("runner")
    yield endpoint
    pg_oracle.drop_database(endpoint)


def test_sample_passes_on_postgres(tmp_path: Path, oracle_db) -> None:
    result = slt.Runner(lambda: slt.connect(oracle_db.conninfo), engine="postgres").run_file(_write(tmp_path, SAMPLE))
    assert result.failures == []
    assert (result.executed, result.skipped) == (7, 1)


def test_wrong_expectations_fail(tmp_path: Path, oracle_db) -> None:
    wrong = """statement ok
CREATE TABLE t (a int)

statement count 5
INSERT INTO t VALUES (1), (2)

statement ok
SELECT 1 / 0

statement error 22003
SELECT 1 / 0

statement error 22012 no such message
SELECT 1 / 0

statement error
SELECT 1

query I
SELECT a FROM t
----
2
1

query B
SELECT a FROM t ORDER BY a
----
1
2

query II
SELECT a FROM t
----
1 1

query I
CREATE TABLE u (b int)
"""
    result = slt.Runner(lambda: slt.connect(oracle_db.conninfo), engine="postgres").run_file(_write(tmp_path, wrong))
    messages = result.failures
    assert len(messages) == 9, "\n\n".join(messages)
    expected_fragments = [
        ":4: statement affected 2 rows, expected 5",
        ":7: statement failed: ERROR 22012",
        ":10: statement failed with the wrong SQLSTATE: expected 22003, got ERROR 22012",
        ":13: statement error message does not match /no such message/",
        ":16: statement succeeded, but an error was expected",
        ":19: query result mismatch (nosort)",
        ":25: query column 1 has type OID 23 (I), the record declares B",
        ":31: query returned 1 columns, the record declares 2",
        ":36: query returned no result set",
    ]
    for message, fragment in zip(messages, expected_fragments):
        assert fragment in message, message
    assert "expected (2 lines):\n    2\n    1\n  actual (2 lines):\n    1\n    2" in messages[5]


def test_complete_mode_writes_actual_output(tmp_path: Path, oracle_db) -> None:
    draft = _write(tmp_path, "query T rowsort\nSELECT x FROM (VALUES ('b'), ('a c'), (NULL), ('')) AS v(x)\n\nquery I\nSELECT 42\n----\n0\n")
    result = slt.Runner(lambda: slt.connect(oracle_db.conninfo), engine="postgres", complete=True).run_file(draft)
    assert result.failures == []
    assert draft.read_text() == "query T rowsort\nSELECT x FROM (VALUES ('b'), ('a c'), (NULL), ('')) AS v(x)\n----\n(empty)\nNULL\na c\nb\n\nquery I\nSELECT 42\n----\n42\n"
    rerun = slt.Runner(lambda: slt.connect(oracle_db.conninfo), engine="postgres").run_file(draft)
    assert rerun.failures == [] and rerun.executed == 2
