"""SQLAlchemy 2.1 reflection through pg_catalog: the Inspector's answers for a table (with
secondary indexes) and a materialized view on Sluice must equal PostgreSQL's for the same DDL
(the oracle), and a table
reflected with `autoload_with` must work for Core statements."""

from __future__ import annotations

from decimal import Decimal
from typing import Iterator

import pytest
import sqlalchemy as sa

from harness import Endpoint

# Column types whose names Sluice keeps as PostgreSQL does (varchar(n), char(n) and text are all
# `character varying` in Sluice, so lengths and text are left out here).
COLUMNS = (
    "id int NOT NULL, code bigint NOT NULL, name varchar NOT NULL, price numeric(10,2), amount numeric,"
    " ratio double precision, small smallint, approx real, ok boolean, day date, at_time time,"
    " seen timestamp, stamped timestamptz, span interval, doc jsonb, raw bytea, PRIMARY KEY (id, code)"
)
TABLE = "items"
VIEW = "items_by_name"
VIEW_QUERY = f"SELECT name, count(*) AS n, sum(price) AS total FROM {TABLE} GROUP BY name"


def _engine(endpoint: Endpoint) -> sa.Engine:
    return sa.create_engine(
        f"postgresql+psycopg://{endpoint.user}@{endpoint.host}:{endpoint.port}/{endpoint.dbname}", connect_args={"connect_timeout": 10})


@pytest.fixture(scope="module")
def engines(target: Endpoint, pg_oracle) -> Iterator[tuple[sa.Engine, sa.Engine]]:
    """Engines on the server under test and on a fresh oracle database, both holding the table
    and the materialized view."""
    oracle = pg_oracle.create_database("reflect")
    sluice, postgres = _engine(target), _engine(oracle)
    try:
        for engine in (sluice, postgres):
            with engine.begin() as conn:
                conn.execute(sa.text(f"CREATE TABLE {TABLE} ({COLUMNS})"))
                conn.execute(sa.text(f"INSERT INTO {TABLE} (id, code, name, price) VALUES (1, 10, 'pen', 1.50), (2, 20, 'ink', 3.25)"))
                conn.execute(sa.text(f"CREATE MATERIALIZED VIEW {VIEW} AS {VIEW_QUERY}"))
                conn.execute(sa.text(f"CREATE INDEX items_name ON {TABLE} (name)"))
                conn.execute(sa.text(f"CREATE INDEX items_day_seen ON {TABLE} (day DESC, seen NULLS FIRST) INCLUDE (price)"))
        yield sluice, postgres
    finally:
        sluice.dispose()
        postgres.dispose()
        pg_oracle.drop_database(oracle)


def _columns(inspector: sa.Inspector, name: str) -> list[dict]:
    """`get_columns` with each type as its repr (type objects do not compare by value)."""
    return [{**column, "type": repr(column["type"])} for column in inspector.get_columns(name)]


def _answers(engine: sa.Engine) -> dict:
    inspector = sa.inspect(engine)
    return {
        "schemas": inspector.get_schema_names(),
        "tables": inspector.get_table_names(),
        "views": inspector.get_view_names(),
        "materialized_views": inspector.get_materialized_view_names(),
        "has_table": [inspector.has_table(name) for name in (TABLE, VIEW, "no_such_table")],
        "table_columns": _columns(inspector, TABLE),
        "view_columns": _columns(inspector, VIEW),
        "primary_key": inspector.get_pk_constraint(TABLE),
        "view_primary_key": inspector.get_pk_constraint(VIEW),
        "indexes": inspector.get_indexes(TABLE),
        "foreign_keys": inspector.get_foreign_keys(TABLE),
        "unique_constraints": inspector.get_unique_constraints(TABLE),
        "check_constraints": inspector.get_check_constraints(TABLE),
        "table_comment": inspector.get_table_comment(TABLE),
        "table_options": inspector.get_table_options(TABLE),
        "sequences": inspector.get_sequence_names(),
        "enums": inspector.get_enums(),
        "domains": inspector.get_domains(),
    }


def test_inspector_matches_postgres(engines: tuple[sa.Engine, sa.Engine]) -> None:
    sluice, postgres = engines
    expected = _answers(postgres)
    actual = _answers(sluice)
    for key in expected:
        assert actual[key] == expected[key], key
    # What the oracle says, spelled out (so a wrong oracle set-up cannot pass unnoticed).
    assert actual["schemas"] == ["information_schema", "public"]
    assert actual["tables"] == [TABLE]
    assert actual["materialized_views"] == [VIEW]
    assert actual["has_table"] == [True, True, False]
    assert actual["primary_key"]["constrained_columns"] == ["id", "code"]
    assert actual["primary_key"]["name"] == f"{TABLE}_pkey"
    assert [(index["name"], index["column_names"]) for index in actual["indexes"]] == [
        ("items_day_seen", ["day", "seen"]), ("items_name", ["name"])]
    columns = {column["name"]: column for column in actual["table_columns"]}
    assert columns["price"]["type"] == "NUMERIC(precision=10, scale=2)"
    assert columns["stamped"]["type"] == "TIMESTAMP(timezone=True)"
    assert [columns[name]["nullable"] for name in ("id", "code", "name", "price")] == [False, False, False, True]
    assert [(column["name"], column["type"]) for column in actual["view_columns"]] == [
        ("name", "VARCHAR()"), ("n", "BIGINT()"), ("total", "NUMERIC()")]


def test_view_definition(engines: tuple[sa.Engine, sa.Engine]) -> None:
    sluice, _ = engines
    # PostgreSQL prints its own deparsed query; Sluice gives the statement as written.
    definition = sa.inspect(sluice).get_view_definition(VIEW)
    assert "count(*)" in definition.lower() and TABLE in definition


def test_autoload_table(engines: tuple[sa.Engine, sa.Engine]) -> None:
    sluice, postgres = engines
    tables = [sa.Table(TABLE, sa.MetaData(), autoload_with=engine) for engine in (sluice, postgres)]
    shapes = [
        [(column.name, repr(column.type), column.nullable, column.primary_key) for column in table.columns] for table in tables]
    assert shapes[0] == shapes[1]
    items = tables[0]
    assert [column.name for column in items.primary_key] == ["id", "code"]
    with sluice.connect() as conn:
        rows = conn.execute(sa.select(items.c.id, items.c.name, items.c.price).where(items.c.code > 5).order_by(items.c.id)).all()
    assert [tuple(row) for row in rows] == [(1, "pen", Decimal("1.50")), (2, "ink", Decimal("3.25"))]
    view = sa.Table(VIEW, sa.MetaData(), autoload_with=sluice)
    assert [column.name for column in view.columns] == ["name", "n", "total"]
