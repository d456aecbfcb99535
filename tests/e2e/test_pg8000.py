"""pg8000 (a pure-Python driver with its own protocol code) in its native and DB-API modes."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pg8000.dbapi
import pg8000.native
import pytest

from harness import Endpoint


def _native(target: Endpoint) -> pg8000.native.Connection:
    return pg8000.native.Connection(user=target.user, host=target.host, port=target.port, database=target.dbname, timeout=30)


def test_native_parameters(target: Endpoint, table_name: str) -> None:
    con = _native(target)
    try:
        assert con.run("SELECT :x::int + 1, :s || '!', :f::float8 * 2", x=41, s="hi", f=1.25) == [[42, "hi!", 2.5]]
        con.run(f"CREATE TABLE {table_name} (id int, name varchar, price numeric(8,2), day date, ok boolean)")
        rows = [(1, "pen", Decimal("1.50"), dt.date(2024, 1, 2), True), (2, "ink", Decimal("12.00"), dt.date(2024, 2, 3), False)]
        for row in rows:
            con.run(f"INSERT INTO {table_name} VALUES (:id, :name, :price, :day, :ok)", id=row[0], name=row[1], price=row[2], day=row[3], ok=row[4])
        assert con.row_count == 1
        result = con.run(f"SELECT id, name, price, day, ok FROM {table_name} WHERE id >= :low ORDER BY id", low=1)
        assert [tuple(row) for row in result] == rows
        assert [column["name"] for column in con.columns] == ["id", "name", "price", "day", "ok"]
    finally:
        con.close()


def test_native_prepared_statement(target: Endpoint) -> None:
    con = _native(target)
    try:
        statement = con.prepare("SELECT :a::int * :b::int")
        assert [statement.run(a=a, b=7)[0][0] for a in range(1, 4)] == [7, 14, 21]
        statement.close()
    finally:
        con.close()


def test_native_error_then_recovery(target: Endpoint) -> None:
    con = _native(target)
    try:
        with pytest.raises(pg8000.native.DatabaseError) as caught:
            con.run("SELECT 1 / 0")
        assert caught.value.args[0]["C"] == "22012"
        assert con.run("SELECT 'still here'") == [["still here"]]
    finally:
        con.close()


def test_dbapi(target: Endpoint, table_name: str) -> None:
    con = pg8000.dbapi.connect(user=target.user, host=target.host, port=target.port, database=target.dbname, timeout=30)
    try:
        cur = con.cursor()
        cur.execute(f"CREATE TABLE {table_name} (id int, label varchar, weight double precision)")
        cur.executemany(f"INSERT INTO {table_name} VALUES (%s, %s, %s)", [(1, "a", 0.5), (2, "b", 1.5), (3, None, None)])
        con.commit()
        cur.execute(f"SELECT id, label, weight FROM {table_name} WHERE id <> %s ORDER BY id", (2,))
        assert [tuple(row) for row in cur.fetchall()] == [(1, "a", 0.5), (3, None, None)]
        cur.execute(f"SELECT count(*), sum(weight) FROM {table_name}")
        assert tuple(cur.fetchone()) == (3, 2.0)
        assert [d[0] for d in cur.description] == ["count", "sum"]
        con.commit()
    finally:
        con.close()
