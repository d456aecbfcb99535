"""The sqllogictest suite as pytest tests.

- `test_sluice[FILE]`: every `tests/slt/**/*.slt` against a fresh Sluice server (one per file).
- `test_postgres_oracle[FILE]`: every `pgcompat_*.slt` against the PostgreSQL oracle, in a new
  database per file. Both must pass: the oracle run is what proves the expectations right.
- `test_suite_shape`: every file parses, has its header, and the suite covers its areas.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

import runner as slt
from harness import fresh_target

SLT_DIR = Path(__file__).resolve().parent
FILES = sorted(SLT_DIR.rglob("*.slt"))
PGCOMPAT_FILES = [path for path in FILES if path.name.startswith("pgcompat_")]
AREAS = ("types", "expr", "query", "dml", "ddl", "errors", "session", "mv")
FILE_TIMEOUT = 180.0  # seconds for one file; a hung server fails the file instead of the run


def _id(path: Path) -> str:
    return str(path.relative_to(SLT_DIR))


def _report(result: slt.FileResult, log: str) -> str:
    text = f"{len(result.failures)} failure(s) in {_id(result.path)} ({result.executed} records run):\n\n"
    text += "\n\n".join(result.failures)
    if log:
        text += "\n\n--- server log (last lines) ---\n" + log[-6000:]
    return text


def _run(endpoint, path: Path, engine: str) -> slt.FileResult:
    # On a hang, the watchdog ends the sessions; the runner then reports "connection lost".
    watchdog = threading.Timer(FILE_TIMEOUT, endpoint.interrupt)
    watchdog.daemon = True
    watchdog.start()
    try:
        return slt.Runner(lambda: slt.connect(endpoint.conninfo), engine=engine).run_file(path)
    finally:
        watchdog.cancel()


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_sluice(path: Path, request: pytest.FixtureRequest) -> None:
    with fresh_target(lambda: request.getfixturevalue("pg_oracle")) as endpoint:
        result = _run(endpoint, path, "sluice")
        assert result.executed > 0, f"{_id(path)} ran no records"
        assert result.ok, _report(result, endpoint.log())


@pytest.mark.parametrize("path", PGCOMPAT_FILES, ids=_id)
def test_postgres_oracle(path: Path, pg_oracle) -> None:
    endpoint = pg_oracle.create_database("slt")
    try:
        result = _run(endpoint, path, "postgres")
    finally:
        pg_oracle.drop_database(endpoint)
    assert result.executed > 0, f"{_id(path)} ran no records"
    assert result.ok, _report(result, "")


def test_suite_shape() -> None:
    """Each file parses and has `# name:` / `# description:`; unordered results are sorted; the
    areas exist; enough records; most files are checked by the oracle."""
    assert FILES, "no .slt files found"
    total = 0
    problems = []
    for path in FILES:
        head = path.read_text(encoding="utf-8").split("\n")[:2]
        if not (head[0].startswith("# name: ") and len(head) > 1 and head[1].startswith("# description: ")):
            problems.append(f"{_id(path)}: must start with '# name: ' and '# description: ' lines")
        if head and head[0].startswith("# name: ") and head[0][len("# name: "):].strip() != _id(path):
            problems.append(f"{_id(path)}: '# name:' should be {_id(path)}")
        try:
            records = slt.parse_file(path)
        except slt.SLTSyntaxError as error:
            problems.append(str(error))
            continue
        total += slt.count_records(records)
        for record in records:
            # Row order is only defined by ORDER BY (or by DESCRIBE's column order, or EXPLAIN's tree).
            unordered = record.kind == "query" and not record.expect_error and record.sort_mode == "nosort"
            if unordered and len(record.expected) > 1 and not re.search(r"\bORDER\s+BY\b|^\s*(DESCRIBE|EXPLAIN)\b", record.sql, re.I):
                problems.append(f"{record.location}: several rows without ORDER BY need rowsort or valuesort")
    assert not problems, "\n".join(problems)
    missing = [area for area in AREAS if not any(p.relative_to(SLT_DIR).parts[0] == area for p in FILES)]
    assert not missing, f"no .slt files in areas {missing}"
    assert total >= 250, f"only {total} records in the suite"
    assert len(PGCOMPAT_FILES) * 2 > len(FILES), "most files should be pgcompat_ (checked by the oracle)"
