#!/usr/bin/env python3
"""A sqllogictest runner for Sluice (the dialect DuckDB and RisingWave use), over psycopg.

Records (separated by blank lines; see docs/testing.md for the full conventions):

    statement ok | statement error [SQLSTATE] [message regex] | statement count N
    <SQL>

    query <type letters> [nosort|rowsort|valuesort]
    <SQL>
    ----
    <expected rows>

    query error [SQLSTATE] [message regex]
    <SQL>

    skipif <engine> / onlyif <engine>   (before a record; engines: sluice, postgres)
    halt                                (stop reading the file)
    include <path or glob>              (relative to the including file)
    # comment

Every value is compared in the text form the server sent (psycopg loads every type as the raw
text, nothing is parsed): NULL prints as `NULL`, the empty string as `(empty)`, a newline inside a
value as `\\n`, a tab as `\\t`. In an expected row, columns are separated by a tab if the line has
one, otherwise by runs of spaces; a query with one column takes the whole line as its value.

Usage:
    python tests/slt/runner.py --host 127.0.0.1 --port 4566 FILE...
    python tests/slt/runner.py --port 5432 --engine postgres --create-db FILE...
    python tests/slt/runner.py --port 4566 --complete FILE...   # drafting only, see below

`--complete` rewrites the expected output of every query record with what the server returned.
It is for drafting: every line it writes must be checked by a person or by the PostgreSQL oracle
before it is committed.
"""

from __future__ import annotations

import argparse
import glob
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import psycopg
from psycopg import pq
from psycopg.adapt import Loader

ENGINES = ("sluice", "postgres")
SORT_MODES = ("nosort", "rowsort", "valuesort")
SQLSTATE_PATTERN = re.compile(r"^[0-9A-Z]{5}$")

# Which type OIDs a type letter accepts (None: any type). `T` is the catch-all for text, dates,
# times, intervals, jsonb, structs; `I` integers; `R` real, double precision and numeric; `B` bool.
TYPE_LETTERS: dict[str, frozenset[int] | None] = {
    "I": frozenset({20, 21, 23}),
    "R": frozenset({700, 701, 1700}),
    "B": frozenset({16}),
    "T": None,
}


class SLTSyntaxError(Exception):
    """A malformed .slt file (reported with file:line)."""


@dataclass
class Record:
    """One statement or query of an .slt file, with where it sits in the file."""

    kind: str  # "statement", "query" or "halt"
    path: Path
    line: int  # 1-based line of the record's first line
    sql: str = ""
    expect_error: bool = False
    error_code: str | None = None
    error_regex: str | None = None
    expect_count: int | None = None
    types: str = ""
    sort_mode: str = "nosort"
    expected: list[str] = field(default_factory=list)
    conditions: list[tuple[str, str]] = field(default_factory=list)
    # 0-based line indexes, for --complete: the header, the end of the SQL (the `----` line or
    # where it would go) and the end of the expected rows (exclusive).
    header_index: int = 0
    sql_end_index: int = 0
    results_end_index: int = 0
    has_separator: bool = False

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    def applies_to(self, engine: str) -> bool:
        for condition, name in self.conditions:
            if condition == "skipif" and name == engine:
                return False
            if condition == "onlyif" and name != engine:
                return False
        return True


# -- parsing ----------------------------------------------------------------------------------


def parse_file(path: Path | str, _including: tuple[Path, ...] = ()) -> list[Record]:
    """The records of an .slt file, with `include`s expanded."""
    path = Path(path)
    if path.resolve() in _including:
        raise SLTSyntaxError(f"{path}: include cycle")
    lines = path.read_text(encoding="utf-8").split("\n")
    records: list[Record] = []
    conditions: list[tuple[str, str]] = []
    index = 0

    def error(message: str, at: int) -> SLTSyntaxError:
        return SLTSyntaxError(f"{path}:{at + 1}: {message}")

    def block(start: int, stop_at_separator: bool) -> int:
        """The index of the first blank line (or `----`) at or after `start`."""
        end = start
        while end < len(lines) and lines[end].strip() != "":
            if stop_at_separator and lines[end].strip() == "----":
                break
            end += 1
        return end

    while index < len(lines):
        stripped = lines[index].strip()
        if not stripped or stripped.startswith("#"):
            index += 1
            continue
        words = stripped.split()
        keyword = words[0]
        if keyword in ("skipif", "onlyif"):
            if len(words) != 2 or words[1] not in ENGINES:
                raise error(f"expected `{keyword} <{'|'.join(ENGINES)}>`", index)
            conditions.append((keyword, words[1]))
            index += 1
            continue
        if keyword == "halt":
            records.append(Record("halt", path, index + 1, conditions=conditions, header_index=index))
            conditions = []
            index += 1
            continue
        if keyword == "include":
            if len(words) != 2:
                raise error("expected `include <path>`", index)
            matches = sorted(glob.glob(str(path.parent / words[1])))
            if not matches:
                raise error(f"include matches no file: {words[1]}", index)
            for match in matches:
                records.extend(parse_file(match, _including + (path.resolve(),)))
            index += 1
            continue
        if keyword not in ("statement", "query"):
            raise error(f"unknown record type {keyword!r}", index)

        record = Record(keyword, path, index + 1, conditions=conditions, header_index=index)
        conditions = []
        if len(words) < 2:
            raise error(f"`{keyword}` needs a mode", index)
        if words[1] == "error":
            record.expect_error = True
            rest = stripped.split(None, 2)[2] if len(words) > 2 else ""
            if rest:
                first, _, remainder = rest.partition(" ")
                if SQLSTATE_PATTERN.match(first):
                    record.error_code = first
                    rest = remainder.strip()
                record.error_regex = rest or None
        elif keyword == "statement":
            if words[1] == "ok" and len(words) == 2:
                pass
            elif words[1] == "count" and len(words) == 3 and words[2].isdigit():
                record.expect_count = int(words[2])
            else:
                raise error("expected `statement ok`, `statement error [SQLSTATE] [regex]` or `statement count N`", index)
        else:
            record.types = words[1]
            unknown = set(record.types) - set(TYPE_LETTERS)
            if unknown:
                raise error(f"unknown type letter(s) {''.join(sorted(unknown))}; use {''.join(TYPE_LETTERS)}", index)
            if len(words) > 2:
                if words[2] not in SORT_MODES:
                    raise error(f"unknown sort mode {words[2]!r}; use one of {', '.join(SORT_MODES)}", index)
                record.sort_mode = words[2]
            if len(words) > 3:
                raise error("unexpected words after the sort mode", index)

        sql_start = index + 1
        sql_end = block(sql_start, stop_at_separator=(keyword == "query" and not record.expect_error))
        if sql_end == sql_start:
            raise error("record has no SQL", index)
        record.sql = "\n".join(lines[sql_start:sql_end])
        record.sql_end_index = sql_end
        record.results_end_index = sql_end
        index = sql_end
        if index < len(lines) and lines[index].strip() == "----":
            record.has_separator = True
            results_end = block(index + 1, stop_at_separator=False)
            record.expected = [line.rstrip("\r") for line in lines[index + 1:results_end]]
            record.results_end_index = results_end
            index = results_end
        records.append(record)
    if conditions:
        raise error("condition not followed by a record", len(lines) - 1)
    return records


def count_records(records: Iterable[Record]) -> int:
    return sum(1 for record in records if record.kind in ("statement", "query"))


# -- values as text ---------------------------------------------------------------------------


class RawTextLoader(Loader):
    """Loads a value as the exact text the server sent."""

    def load(self, data) -> str:
        return bytes(data).decode("utf-8")


def load_everything_as_text(conn: psycopg.Connection) -> None:
    """Makes `conn` return every column as the server's text, whatever its type OID."""
    oids = {0}
    for info in conn.adapters.types:
        oids.add(info.oid)
        if getattr(info, "array_oid", 0):
            oids.add(info.array_oid)
    # Loaders registered by OID only (not in the types registry) would otherwise still parse.
    oids.update(oid for oid in getattr(conn.adapters, "_loaders", [{}])[pq.Format.TEXT] if isinstance(oid, int))
    for oid in oids:
        conn.adapters.register_loader(oid, RawTextLoader)


def connect(conninfo: str) -> psycopg.Connection:
    """An autocommit psycopg connection that returns every value as the server's text."""
    conn = psycopg.connect(conninfo, autocommit=True)
    load_everything_as_text(conn)
    return conn


def render_value(value: str | None) -> str:
    if value is None:
        return "NULL"
    if value == "":
        return "(empty)"
    return value.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")


def render_row(values: list[str]) -> str:
    """One row as a results line: spaces between columns unless a value holds a space."""
    separator = "\t" if any(" " in value for value in values) else " "
    return separator.join(values)


def split_row(line: str, columns: int) -> list[str] | None:
    """An expected line's columns, or None when it does not have `columns` of them."""
    if columns == 1:
        return [line]
    values = line.split("\t") if "\t" in line else line.split()
    return values if len(values) == columns else None


def letter_for(oid: int) -> str:
    for letter, accepted in TYPE_LETTERS.items():
        if accepted is not None and oid in accepted:
            return letter
    return "T"


# -- running ----------------------------------------------------------------------------------


@dataclass
class QueryOutcome:
    """What the server answered to one record."""

    error: psycopg.Error | None = None
    rows: list[list[str]] | None = None  # rendered values; None when there was no result set
    oids: list[int] = field(default_factory=list)
    rowcount: int = -1


@dataclass
class FileResult:
    path: Path
    failures: list[str] = field(default_factory=list)
    executed: int = 0
    skipped: int = 0

    @property
    def ok(self) -> bool:
        return not self.failures


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.split("\n")) if text else prefix + "(nothing)"


def _describe_error(error: psycopg.Error) -> str:
    message = error.diag.message_primary or str(error).strip()
    return f"ERROR {error.sqlstate or '?????'}: {message}"


class Runner:
    """Runs .slt files on connections from `connect` (one connection per file).

    `engine` names the server for `skipif`/`onlyif`. With `complete=True`, query records get the
    server's output written into the file instead of being checked.
    """

    def __init__(self, connect: Callable[[], psycopg.Connection], engine: str = "sluice", complete: bool = False):
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}")
        self.connect = connect
        self.engine = engine
        self.complete = complete

    def run_file(self, path: Path | str) -> FileResult:
        path = Path(path)
        result = FileResult(path)
        try:
            records = parse_file(path)
        except SLTSyntaxError as error:
            result.failures.append(str(error))
            return result
        try:
            conn = self.connect()
        except psycopg.Error as error:
            result.failures.append(f"{path}: cannot connect: {error}")
            return result
        completions: list[tuple[Record, QueryOutcome]] = []
        try:
            for record in records:
                if record.kind == "halt":
                    if record.applies_to(self.engine):
                        break
                    continue
                if not record.applies_to(self.engine):
                    result.skipped += 1
                    continue
                result.executed += 1
                outcome = self._execute(conn, record)
                if self.complete and record.kind == "query" and not record.expect_error and outcome.error is None:
                    completions.append((record, outcome))
                    continue
                failure = self._check(record, outcome)
                if failure:
                    result.failures.append(failure)
                if conn.closed or conn.broken:
                    result.failures.append(f"{record.location}: connection lost; the rest of the file was not run")
                    break
        finally:
            conn.close()
        if self.complete and completions:
            self._write_completions(path, completions)
        return result

    def _execute(self, conn: psycopg.Connection, record: Record) -> QueryOutcome:
        outcome = QueryOutcome()
        try:
            with conn.cursor() as cursor:
                # No parameters: psycopg sends the simple query protocol, the SQL exactly as written.
                cursor.execute(record.sql)
                outcome.rowcount = cursor.rowcount
                if cursor.description is not None:
                    outcome.oids = [column.type_code for column in cursor.description]
                    outcome.rows = [[render_value(value) for value in row] for row in cursor.fetchall()]
        except psycopg.Error as error:
            outcome.error = error
        return outcome

    def _check(self, record: Record, outcome: QueryOutcome) -> str | None:
        head = f"{record.location}: {record.kind}"
        sql = _indent(record.sql)
        if record.expect_error:
            if outcome.error is None:
                return f"{head} succeeded, but an error was expected ({record.error_code or 'any SQLSTATE'})\n{sql}"
            if record.error_code and outcome.error.sqlstate != record.error_code:
                return f"{head} failed with the wrong SQLSTATE: expected {record.error_code}, got {_describe_error(outcome.error)}\n{sql}"
            message = outcome.error.diag.message_primary or str(outcome.error)
            if record.error_regex and not re.search(record.error_regex, message):
                return f"{head} error message does not match /{record.error_regex}/: {_describe_error(outcome.error)}\n{sql}"
            return None
        if outcome.error is not None:
            return f"{head} failed: {_describe_error(outcome.error)}\n{sql}"
        if record.kind == "statement":
            if record.expect_count is not None and outcome.rowcount != record.expect_count:
                return f"{head} affected {outcome.rowcount} rows, expected {record.expect_count}\n{sql}"
            return None
        return self._check_query(record, outcome, head, sql)

    def _check_query(self, record: Record, outcome: QueryOutcome, head: str, sql: str) -> str | None:
        if outcome.rows is None:
            return f"{head} returned no result set (was it a statement?)\n{sql}"
        columns = len(record.types)
        if len(outcome.oids) != columns:
            return f"{head} returned {len(outcome.oids)} columns, the record declares {columns} ({record.types})\n{sql}"
        for position, (letter, oid) in enumerate(zip(record.types, outcome.oids)):
            accepted = TYPE_LETTERS[letter]
            if accepted is not None and oid not in accepted:
                return f"{head} column {position + 1} has type OID {oid} ({letter_for(oid)}), the record declares {letter}\n{sql}"

        actual_lines = self._result_lines(record.sort_mode, outcome.rows)
        if record.sort_mode == "valuesort":
            expected_values = sorted(value for line in record.expected for value in (line.split("\t") if "\t" in line else line.split()))
            matches = expected_values == sorted(value for row in outcome.rows for value in row)
        else:
            expected_rows = [split_row(line, columns) for line in record.expected]
            if any(row is None for row in expected_rows):
                bad = next(line for line, row in zip(record.expected, expected_rows) if row is None)
                return f"{head} expected row {bad!r} does not have {columns} columns (use tabs between values that hold spaces)\n{sql}"
            actual_rows = outcome.rows
            if record.sort_mode == "rowsort":
                expected_rows = sorted(expected_rows)
                actual_rows = sorted(actual_rows)
            matches = expected_rows == actual_rows
        if matches:
            return None
        expected_text = "\n".join(record.expected)
        return (
            f"{head} result mismatch ({record.sort_mode})\n{sql}\n"
            f"  expected ({len(record.expected)} lines):\n{_indent(expected_text)}\n"
            f"  actual ({len(actual_lines)} lines):\n{_indent(chr(10).join(actual_lines))}"
        )

    @staticmethod
    def _result_lines(sort_mode: str, rows: list[list[str]]) -> list[str]:
        if sort_mode == "valuesort":
            return sorted(value for row in rows for value in row)
        if sort_mode == "rowsort":
            rows = sorted(rows)
        return [render_row(row) for row in rows]

    def _write_completions(self, path: Path, completions: list[tuple[Record, QueryOutcome]]) -> None:
        lines = path.read_text(encoding="utf-8").split("\n")
        for record, outcome in sorted(completions, key=lambda item: item[0].header_index, reverse=True):
            if record.path != path:
                continue  # records from included files are completed by running those files
            rows = outcome.rows or []
            types = "".join(letter_for(oid) for oid in outcome.oids)
            header = f"query {types}" + (f" {record.sort_mode}" if record.sort_mode != "nosort" else "")
            new_results = ["----", *self._result_lines(record.sort_mode, rows)]
            lines[record.sql_end_index:record.results_end_index] = new_results
            lines[record.header_index] = header
        path.write_text("\n".join(lines), encoding="utf-8")


# -- command line -----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run sqllogictest files against Sluice or PostgreSQL.")
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=4566)
    parser.add_argument("--user", default="root")
    parser.add_argument("--dbname", default="dev")
    parser.add_argument("--engine", choices=ENGINES, default="sluice", help="name for skipif/onlyif (default: sluice)")
    parser.add_argument("--create-db", action="store_true", help="run each file in a new database (CREATE DATABASE slt_N), dropped afterwards")
    parser.add_argument("--complete", action="store_true", help="DRAFTING ONLY: overwrite expected query output with the server's; check every line before committing")
    args = parser.parse_args(argv)

    base = f"host={args.host} port={args.port} user={args.user} connect_timeout=10"
    failed = 0
    for number, path in enumerate(args.files, 1):
        dbname = args.dbname
        if args.create_db:
            dbname = f"slt_{number}"
            with psycopg.connect(f"{base} dbname={args.dbname}", autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{dbname}"')
                admin.execute(f'CREATE DATABASE "{dbname}"')
        try:
            runner = Runner(lambda: connect(f"{base} dbname={dbname}"), engine=args.engine, complete=args.complete)
            result = runner.run_file(path)
        finally:
            if args.create_db:
                with psycopg.connect(f"{base} dbname={args.dbname}", autocommit=True) as admin:
                    admin.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        status = "ok" if result.ok else f"{len(result.failures)} FAILED"
        print(f"{path}: {result.executed} records run, {result.skipped} skipped: {status}")
        for failure in result.failures:
            print(failure, end="\n\n")
        failed += not result.ok
    if args.complete:
        print("--complete wrote the server's output: check every line by hand or against the oracle before committing.", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
