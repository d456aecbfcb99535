"""The real `psql` client: -c, -f scripts, and the meta-commands \\dt, \\d and \\d NAME.

Expected text is what psql prints for the same statements on PostgreSQL (checked by running these
tests with SLUICE_E2E_TARGET=postgres); the meta-command tests also compare with the oracle live.
"""

from __future__ import annotations

from pathlib import Path

from psql_client import run_psql

from harness import Endpoint
from harness.endpoint import command_tag


def test_command_aligned_output(target: Endpoint) -> None:
    result = run_psql(target, "-c", "SELECT 1 AS one, 'x' AS two, NULL::int AS three")
    assert result.stdout == (
        " one | two | three \n"
        "-----+-----+-------\n"
        "   1 | x   |      \n"
        "(1 row)\n"
        "\n"
    )


def test_command_unaligned_tuples_only(target: Endpoint) -> None:
    result = run_psql(target, "-A", "-t", "-c", "SELECT 40 + 2, 'forty two', true")
    assert result.stdout == "42|forty two|t\n"


def test_command_reports_sql_errors(target: Endpoint) -> None:
    result = run_psql(target, "-c", "SELECT * FROM no_such_table_psql", check=False)
    assert result.returncode != 0
    assert "ERROR:" in result.stderr
    assert "no_such_table_psql" in result.stderr


def test_script_file(target: Endpoint, tmp_path: Path, table_name: str) -> None:
    script = tmp_path / "script.sql"
    script.write_text(
        f"""
CREATE TABLE {table_name}_dept (id int, name varchar);
CREATE TABLE {table_name}_emp (id int, dept_id int, salary int);
INSERT INTO {table_name}_dept VALUES (1, 'eng'), (2, 'ops'), (3, 'empty');
INSERT INTO {table_name}_emp VALUES (10, 1, 100), (11, 1, 120), (12, 2, 90), (13, NULL, 70);
-- a join with an aggregate
SELECT d.name, count(e.id), sum(e.salary)
FROM {table_name}_dept d LEFT JOIN {table_name}_emp e ON e.dept_id = d.id
GROUP BY d.name
ORDER BY d.name;
UPDATE {table_name}_emp SET salary = salary + 10 WHERE dept_id = 2;
DELETE FROM {table_name}_emp WHERE dept_id IS NULL;
SELECT id, salary FROM {table_name}_emp ORDER BY id;
DROP TABLE {table_name}_emp;
DROP TABLE {table_name}_dept;
"""
    )
    result = run_psql(target, "-A", "-t", "-F", ",", "-f", str(script))
    assert result.stdout.split("\n") == [
        command_tag(target, "CREATE TABLE"),
        command_tag(target, "CREATE TABLE"),
        "INSERT 0 3",
        "INSERT 0 4",
        "empty,0,",
        "eng,2,220",
        "ops,1,90",
        "UPDATE 1",
        "DELETE 1",
        "10,100",
        "11,120",
        "12,100",
        command_tag(target, "DROP TABLE"),
        command_tag(target, "DROP TABLE"),
        "",
    ], result.stdout
    assert result.stderr == ""


def test_script_from_stdin_stops_at_first_error(target: Endpoint, table_name: str) -> None:
    script = f"CREATE TABLE {table_name} (v int);\nINSERT INTO {table_name} VALUES (1);\nSELECT 1/0;\nINSERT INTO {table_name} VALUES (2);\n"
    result = run_psql(target, "-q", "-f", "-", input=script, check=False)
    assert result.returncode == 3, result  # psql's code for an error in a script with ON_ERROR_STOP
    assert "division by zero" in result.stderr
    count = run_psql(target, "-A", "-t", "-c", f"SELECT count(*) FROM {table_name}")
    assert count.stdout == "1\n"


def _rows(output: str) -> list[list[str]]:
    """The lines of psql's unaligned output, split on `|`."""
    return [line.split("|") for line in output.strip("\n").split("\n")]


DESCRIBED_DDL = "CREATE TABLE {name} (id int NOT NULL, name varchar, amount numeric(10,2), score double precision, ok boolean, born date, seen timestamp, zoned timestamptz, big bigint, small smallint)"
DESCRIBED_COLUMNS = [
    ["id", "integer", "", "not null", ""],
    ["name", "character varying", "", "", ""],
    ["amount", "numeric(10,2)", "", "", ""],
    ["score", "double precision", "", "", ""],
    ["ok", "boolean", "", "", ""],
    ["born", "date", "", "", ""],
    ["seen", "timestamp without time zone", "", "", ""],
    ["zoned", "timestamp with time zone", "", "", ""],
    ["big", "bigint", "", "", ""],
    ["small", "smallint", "", "", ""],
]


def _describe(endpoint: Endpoint, name: str) -> list[list[str]]:
    return _rows(run_psql(endpoint, "-A", "-c", f"\\d {name}").stdout)


def test_describe_table(target: Endpoint, pg_oracle, table_name: str) -> None:
    run_psql(target, "-c", DESCRIBED_DDL.format(name=table_name))
    rows = _describe(target, table_name)
    assert rows[0] == [f'Table "public.{table_name}"'], rows
    assert rows[1] == ["Column", "Type", "Collation", "Nullable", "Default"], rows
    assert rows[2:2 + len(DESCRIBED_COLUMNS)] == DESCRIBED_COLUMNS, rows
    # The same table on PostgreSQL describes the same way.
    oracle = pg_oracle.create_database("psql")
    try:
        run_psql(oracle, "-c", DESCRIBED_DDL.format(name=table_name))
        assert _describe(oracle, table_name)[: 2 + len(DESCRIBED_COLUMNS)] == rows[: 2 + len(DESCRIBED_COLUMNS)]
    finally:
        pg_oracle.drop_database(oracle)


def test_describe_plus_on_views(target: Endpoint, pg_oracle, table_name: str) -> None:
    """`\\d+` on a table, a view and a materialized view: the same columns and storage as
    PostgreSQL shows, and each view's definition."""
    table, view, materialized = table_name, f"{table_name}_v", f"{table_name}_m"
    ddl = [
        f"CREATE TABLE {table} (id int NOT NULL, name varchar, price numeric(10,2))",
        f"CREATE VIEW {view} AS SELECT id, name FROM {table} WHERE price < 10",
        f"CREATE MATERIALIZED VIEW {materialized} AS SELECT count(*) AS n FROM {table}",
    ]
    described = {}
    oracle = pg_oracle.create_database("psql_plus")
    try:
        for endpoint in (target, oracle):
            for statement in ddl:
                run_psql(endpoint, "-c", statement)
            described[endpoint is oracle] = {
                name: _rows(run_psql(endpoint, "-A", "-c", f"\\d+ {name}").stdout) for name in (table, view, materialized)
            }
    finally:
        pg_oracle.drop_database(oracle)
    sluice, postgres = described[False], described[True]
    # psql shows a Compression column for servers from version 14; Sluice reports 13.
    for lines in postgres.values():
        if "Compression" in lines[1]:
            drop, width = lines[1].index("Compression"), len(lines[1])
            for line in lines[1:]:
                if len(line) == width:
                    del line[drop]
    assert sluice[view][0] == [f'View "public.{view}"']
    assert sluice[view][1] == ["Column", "Type", "Collation", "Nullable", "Default", "Storage", "Description"]
    assert sluice[view][2:4] == [["id", "integer", "", "", "", "plain", ""], ["name", "character varying", "", "", "", "extended", ""]]
    def columns_part(lines: list[list[str]]) -> list[list[str]]:
        # The title, header and column lines; a definition is each engine's own text.
        return lines[: next((i for i, line in enumerate(lines) if line == ["View definition:"]), len(lines))]

    for name in (table, view, materialized):
        assert columns_part(sluice[name]) == columns_part(postgres[name]), (name, sluice[name], postgres[name])
    view_text = "\n".join("|".join(line) for line in sluice[view])
    assert "View definition:" in view_text and f"from {table} where price < 10".lower() in view_text.lower()
    assert "View definition:" in "\n".join("|".join(line) for line in sluice[materialized])


def test_list_tables(target: Endpoint, table_name: str) -> None:
    run_psql(target, "-c", f"CREATE TABLE {table_name}_a (x int)", "-c", f"CREATE TABLE {table_name}_b (y varchar)")
    rows = _rows(run_psql(target, "-A", "-c", "\\dt").stdout)
    assert rows[0] == ["List of relations"], rows
    assert rows[1] == ["Schema", "Name", "Type", "Owner"], rows
    listed = {(row[0], row[1], row[2]) for row in rows[2:] if len(row) == 4}
    assert ("public", f"{table_name}_a", "table") in listed, rows
    assert ("public", f"{table_name}_b", "table") in listed, rows
    run_psql(target, "-c", f"DROP TABLE {table_name}_b")
    rows = _rows(run_psql(target, "-A", "-c", "\\dt").stdout)
    names = {row[1] for row in rows[2:] if len(row) == 4}
    assert f"{table_name}_a" in names and f"{table_name}_b" not in names, rows


def test_describe_without_name_lists_relations(target: Endpoint, table_name: str) -> None:
    run_psql(target, "-c", f"CREATE TABLE {table_name} (x int)")
    rows = _rows(run_psql(target, "-A", "-c", "\\d").stdout)
    assert rows[0] == ["List of relations"], rows
    assert rows[1] == ["Schema", "Name", "Type", "Owner"], rows
    assert any(row[:3] == ["public", table_name, "table"] for row in rows[2:]), rows


def test_describe_unknown_table(target: Endpoint) -> None:
    result = run_psql(target, "-c", "\\d no_such_table_described", check=False)
    assert 'Did not find any relation named "no_such_table_described".' in result.stderr
