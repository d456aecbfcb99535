"""ASOF JOIN and ASOF LEFT JOIN (RisingWave's and DuckDB's) in queries and views, each of the four
inequalities, equal to DuckDB's ASOF JOIN over the same rows, the views again after rounds of
random inserts and deletes on both sides. The quotes' times are distinct per symbol, so the
nearest quote is never a tie (where engines may pick different rows). A trade without a time
matches nothing, as a comparison with NULL holds for no row (DuckDB sorts NULL after every
time and matches it; that case is checked by hand)."""

from __future__ import annotations

import random

import duckdb
import psycopg

from harness import SluiceServer
from source_support import comparable_rows

SYMBOLS = ["a", "b", "c", "d", "e"]
FORMS = {
    "before": ("ASOF JOIN", "t.t >= q.t"),
    "strictly_before": ("ASOF LEFT JOIN", "t.t > q.t"),
    "after": ("ASOF LEFT JOIN", "q.t >= t.t"),
    "strictly_after": ("ASOF JOIN", "t.t < q.t"),
}


def _query(join: str, inequality: str) -> str:
    return f"SELECT t.id, t.sym, t.t, q.px, q.t AS qt FROM trades t {join} quotes q ON t.sym = q.sym AND {inequality}"


def test_asof_joins_equal_duckdb_in_queries_and_views() -> None:
    rng = random.Random(7)
    oracle = duckdb.connect()
    trade_ids = iter(range(1_000_000))
    used_times: dict[str, set[int]] = {s: set() for s in SYMBOLS}

    def trade() -> tuple:
        return (next(trade_ids), rng.choice(SYMBOLS), rng.randrange(1000))

    def quote() -> tuple:
        symbol = rng.choice(SYMBOLS)
        time = rng.randrange(1000)
        while time in used_times[symbol]:
            time = rng.randrange(1000)
        used_times[symbol].add(time)
        return (symbol, time, rng.randrange(1, 10_000))

    with SluiceServer() as server, psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
        for engine in (conn, oracle):
            engine.execute("CREATE TABLE trades (id int, sym varchar, t int)")
            engine.execute("CREATE TABLE quotes (sym varchar, t int, px int)")
        trades = [trade() for _ in range(400)]
        quotes = [quote() for _ in range(300)]

        def insert(table: str, rows: list[tuple]) -> None:
            if not rows:
                return
            values = ",".join("(" + ",".join("NULL" if v is None else repr(v) for v in row) + ")" for row in rows)
            for engine in (conn, oracle):
                engine.execute(f"INSERT INTO {table} VALUES {values}")

        insert("trades", trades)
        insert("quotes", quotes)
        for name, (join, inequality) in FORMS.items():
            expected = comparable_rows(oracle.execute(_query(join, inequality)).fetchall())
            assert len(expected) > 200
            assert comparable_rows(conn.execute(_query(join, inequality)).fetchall()) == expected, f"query {name}"
            conn.execute(f"CREATE MATERIALIZED VIEW asof_{name} AS {_query(join, inequality)}")

        for round_ in range(6):
            insert("trades", [trade() for _ in range(40)])
            insert("quotes", [quote() for _ in range(30)])
            gone_quotes = rng.sample(quotes, 20)
            gone_trades = rng.sample(trades, 20)
            for engine in (conn, oracle):
                for symbol, time, _ in gone_quotes:
                    engine.execute(f"DELETE FROM quotes WHERE sym = '{symbol}' AND t = {time}")
                engine.execute("DELETE FROM trades WHERE id IN (" + ",".join(str(row[0]) for row in gone_trades) + ")")
            quotes = [q for q in quotes if q not in gone_quotes]
            trades = [t for t in trades if t not in gone_trades]
            for symbol, time, _ in gone_quotes:
                used_times[symbol].discard(time)
            # A quote's price changes: the trades it was nearest to follow.
            symbol, time, _ = rng.choice(quotes)
            for engine in (conn, oracle):
                engine.execute(f"UPDATE quotes SET px = px + 1 WHERE sym = '{symbol}' AND t = {time}")
            conn.execute("FLUSH")
            for name, (join, inequality) in FORMS.items():
                expected = comparable_rows(oracle.execute(_query(join, inequality)).fetchall())
                assert comparable_rows(conn.execute(f"SELECT * FROM asof_{name}").fetchall()) == expected, f"view {name}, round {round_}"

        # A trade without a time, or of a symbol without quotes: kept by the left join alone.
        conn.execute("INSERT INTO trades VALUES (-1, 'a', NULL), (-2, 'zz', 5)")
        conn.execute("FLUSH")
        for name, (join, _) in FORMS.items():
            rows = conn.execute(f"SELECT id, px, qt FROM asof_{name} WHERE id < 0 ORDER BY id DESC").fetchall()
            assert rows == ([(-1, None, None), (-2, None, None)] if "LEFT" in join else []), name
