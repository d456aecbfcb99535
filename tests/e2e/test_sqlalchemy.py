"""SQLAlchemy 2 over psycopg: connecting (the dialect's start-up queries), reflection through
pg_catalog (get_table_names, get_columns) and Core statements."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from harness import Endpoint


@pytest.fixture
def engine(target: Endpoint):
    engine = sa.create_engine(f"postgresql+psycopg://{target.user}@{target.host}:{target.port}/{target.dbname}", connect_args={"connect_timeout": 10})
    try:
        yield engine
    finally:
        engine.dispose()


def test_connect_and_select(engine) -> None:
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT 1 + 1")).scalar_one() == 2
        assert conn.execute(sa.text("SELECT :a || :b"), {"a": "x", "b": "y"}).scalar_one() == "xy"


def test_reflection(engine, table_name: str) -> None:
    with engine.begin() as conn:
        conn.execute(sa.text(
            f"CREATE TABLE {table_name} (id int NOT NULL, name varchar, price numeric(10,2), score double precision,"
            " ok boolean, born date, seen timestamp, big bigint)"
        ))
    inspector = sa.inspect(engine)
    assert table_name in inspector.get_table_names()
    columns = {column["name"]: column for column in inspector.get_columns(table_name)}
    assert list(columns) == ["id", "name", "price", "score", "ok", "born", "seen", "big"]
    expected = {
        "id": sa.INTEGER, "name": sa.VARCHAR, "price": sa.NUMERIC, "score": postgresql.DOUBLE_PRECISION,
        "ok": sa.BOOLEAN, "born": sa.DATE, "seen": sa.TIMESTAMP, "big": sa.BIGINT,
    }
    for name, type_class in expected.items():
        assert isinstance(columns[name]["type"], type_class), (name, columns[name]["type"])
    assert (columns["price"]["type"].precision, columns["price"]["type"].scale) == (10, 2)
    assert columns["seen"]["type"].timezone is False
    assert columns["id"]["nullable"] is False
    assert columns["name"]["nullable"] is True


def test_core_insert_and_select(engine, table_name: str) -> None:
    metadata = sa.MetaData()
    table = sa.Table(
        table_name, metadata,
        sa.Column("id", sa.Integer, autoincrement=False),
        sa.Column("name", sa.String),
        sa.Column("price", sa.Numeric(10, 2)),
        sa.Column("day", sa.Date),
    )
    with engine.begin() as conn:
        conn.execute(sa.text(f"CREATE TABLE {table_name} (id int, name varchar, price numeric(10,2), day date)"))
        conn.execute(table.insert(), [
            {"id": 1, "name": "pen", "price": Decimal("1.50"), "day": dt.date(2024, 1, 1)},
            {"id": 2, "name": "ink", "price": Decimal("3.25"), "day": dt.date(2024, 1, 2)},
            {"id": 3, "name": "pad", "price": None, "day": None},
        ])
    with engine.connect() as conn:
        rows = conn.execute(sa.select(table.c.id, table.c.name, table.c.price).where(table.c.id > 1).order_by(table.c.id.desc())).all()
        assert [tuple(row) for row in rows] == [(3, "pad", None), (2, "ink", Decimal("3.25"))]
        total = conn.execute(sa.select(sa.func.count(), sa.func.sum(table.c.price)).select_from(table)).one()
        assert tuple(total) == (3, Decimal("4.75"))
        missing = table.c.day.is_(None)
        grouped = conn.execute(sa.select(missing.label("missing"), sa.func.count().label("n")).group_by(missing).order_by(missing)).all()
        assert [tuple(row) for row in grouped] == [(False, 2), (True, 1)]
    reflected = sa.Table(table_name, sa.MetaData(), autoload_with=engine)
    with engine.begin() as conn:
        conn.execute(reflected.update().where(reflected.c.id == 3).values(price=Decimal("0.99")))
        conn.execute(reflected.delete().where(reflected.c.id == 1))
        assert conn.execute(sa.select(reflected.c.id, reflected.c.price).order_by(reflected.c.id)).all() == [(2, Decimal("3.25")), (3, Decimal("0.99"))]
