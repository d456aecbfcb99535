"""A restart runs each materialized view and sink from the stream plan stored in the catalog,
without binding its SQL again; a view whose plan cannot be stored, a catalog written before
plans were stored, and a stored plan of another format version are bound from their SQL as
before. Either way the views hold, before and after each restart, what their queries mean:
DuckDB computes the same queries over the same rows, and the time windows and time zones are
computed here by hand."""

from __future__ import annotations

import base64
import json
from collections import Counter
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import duckdb
import psycopg

from harness import SluiceServer

START = datetime(2024, 3, 1, tzinfo=timezone.utc)
NOTES = ["apple", "banana", "avocado", "cherry"]
REGIONS = ["north", "south", "east", "west"]

SCHEMA = [
    "CREATE TABLE customers (id int PRIMARY KEY, region varchar)",
    "CREATE TABLE orders (id int PRIMARY KEY, customer int, amount numeric(10,2), placed timestamptz, note varchar)",
]

# The views, in creation order, as (name, SQL). `ranges` calls a table function other than
# generate_series over a column, whose plan holds a function made by the planner itself (the
# table function's rows as an array): it is not stored.
VIEWS = [
    ("by_region", "CREATE MATERIALIZED VIEW by_region AS SELECT c.region, count(*) AS n, sum(o.amount) AS total "
                  "FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region"),
    ("unmatched", "CREATE MATERIALIZED VIEW unmatched AS SELECT o.id, c.region FROM orders o LEFT JOIN customers c ON o.customer = c.id WHERE o.amount > 50"),
    ("top_orders", "CREATE MATERIALIZED VIEW top_orders AS SELECT id, amount FROM orders ORDER BY amount DESC, id LIMIT 5"),
    ("labels", "CREATE MATERIALIZED VIEW labels AS SELECT id, CASE WHEN amount >= 50 THEN 'big' WHEN amount >= 10 THEN 'mid' ELSE 'small' END AS size, "
               "coalesce(note, '-') AS shown, note LIKE 'a%' AS starts_a, regexp_replace(coalesce(note, ''), '[0-9]+', '#', 'g') AS masked, "
               "(amount * 10)::int AS tenths, id IN (3, 5, 7) AS few FROM orders"),
    ("local_days", "CREATE MATERIALIZED VIEW local_days AS SELECT id, placed AT TIME ZONE 'America/New_York' AS ny, date_trunc('hour', placed) AS hour FROM orders"),
    ("hourly", "CREATE MATERIALIZED VIEW hourly AS SELECT window_start, count(*) AS n, sum(amount) AS total FROM TUMBLE(orders, placed, INTERVAL '1 HOUR') GROUP BY window_start"),
    ("hops", "CREATE MATERIALIZED VIEW hops AS SELECT window_start, window_end, count(*) AS n FROM HOP(orders, placed, INTERVAL '30 MINUTES', INTERVAL '2 HOURS') "
             "GROUP BY window_start, window_end"),
    ("running", "CREATE MATERIALIZED VIEW running AS SELECT id, customer, sum(amount) OVER (PARTITION BY customer ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS pair_total, "
                "row_number() OVER (PARTITION BY customer ORDER BY id) AS nth FROM orders"),
    ("big_regions", "CREATE MATERIALIZED VIEW big_regions AS SELECT region, total FROM by_region WHERE total > 1950"),
    ("per_customer", "CREATE MATERIALIZED VIEW per_customer AS SELECT customer, id, amount FROM "
                     "(SELECT customer, id, amount, row_number() OVER (PARTITION BY customer ORDER BY amount DESC, id) AS r FROM orders) AS x WHERE r <= 2"),
    ("expanded", "CREATE MATERIALIZED VIEW expanded AS SELECT id, generate_series(1, id % 3 + 1) AS k FROM orders WHERE id <= 30"),
    ("documents", "CREATE MATERIALIZED VIEW documents AS SELECT id, jsonb_build_object('id', id, 'note', note) ->> 'note' AS note, (ROW(id, customer)).f2 AS customer FROM orders"),
    ("common", "CREATE MATERIALIZED VIEW common AS SELECT customer FROM orders WHERE amount > 50 INTERSECT SELECT id FROM customers"),
    ("ranges", "CREATE MATERIALIZED VIEW ranges AS SELECT o.id, r FROM orders o CROSS JOIN range(1, o.id % 4 + 1) AS r WHERE o.id <= 30"),
    ("audit", "CREATE SINK audit AS SELECT id, amount FROM orders WHERE amount > 90 WITH (connector = 'blackhole')"),
]
NAMES = [name for name, _ in VIEWS]
UNSTORED = ["ranges"]

# The same queries in DuckDB's SQL, over tables of the same rows.
DUCKDB = {
    "by_region": "SELECT c.region, count(*), sum(o.amount) FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region",
    "unmatched": "SELECT o.id, c.region FROM orders o LEFT JOIN customers c ON o.customer = c.id WHERE o.amount > 50",
    "top_orders": "SELECT id, amount FROM orders ORDER BY amount DESC, id LIMIT 5",
    "labels": "SELECT id, CASE WHEN amount >= 50 THEN 'big' WHEN amount >= 10 THEN 'mid' ELSE 'small' END, coalesce(note, '-'), note LIKE 'a%', "
              "regexp_replace(coalesce(note, ''), '[0-9]+', '#', 'g'), (amount * 10)::int, id IN (3, 5, 7) FROM orders",
    "running": "SELECT id, customer, sum(amount) OVER (PARTITION BY customer ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), "
               "row_number() OVER (PARTITION BY customer ORDER BY id) FROM orders",
    "big_regions": "SELECT c.region, sum(o.amount) FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region HAVING sum(o.amount) > 1950",
    "per_customer": "SELECT customer, id, amount FROM (SELECT customer, id, amount, row_number() OVER (PARTITION BY customer ORDER BY amount DESC, id) AS r FROM orders) WHERE r <= 2",
    "expanded": "SELECT id, unnest(generate_series(1, id % 3 + 1)) FROM orders WHERE id <= 30",
    "documents": "SELECT id, note, customer FROM orders",
    "common": "SELECT customer FROM orders WHERE amount > 50 INTERSECT SELECT id FROM customers",
    "ranges": "SELECT o.id, r.range FROM orders o CROSS JOIN range(1, o.id % 4 + 1) AS r WHERE o.id <= 30",
}


def _order(i: int) -> tuple:
    """Order i: customers 1..10 of which 9 and 10 do not exist, amounts with cents, notes with digits or NULL."""
    amount = Decimal(i * 37 % 1000) / 10
    note = None if i % 5 == 0 else f"{NOTES[i % 4]}{i % 3}"
    return (i, i * 7 % 10 + 1, amount.quantize(Decimal("0.01")), START + timedelta(minutes=7 * i), note)


def _customers() -> list[tuple]:
    return [(i, REGIONS[i % 4]) for i in range(1, 9)]


def _insert(conn: psycopg.Connection, table: str, rows: list[tuple]) -> None:
    width = len(rows[0])
    with conn.cursor() as cursor:
        cursor.executemany(f"INSERT INTO {table} VALUES ({', '.join(['%s'] * width)})", rows)


def _expected(orders: list[tuple]) -> dict[str, Counter]:
    """Each view's rows over `orders`: from DuckDB, and by hand for time windows and zones."""
    con = duckdb.connect()
    con.execute("CREATE TABLE customers (id int, region varchar)")
    con.execute("CREATE TABLE orders (id int, customer int, amount decimal(10,2), placed timestamptz, note varchar)")
    con.executemany("INSERT INTO customers VALUES (?, ?)", _customers())
    con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", orders)
    expected = {name: Counter(tuple(row) for row in con.execute(query).fetchall()) for name, query in DUCKDB.items()}
    con.close()
    new_york = ZoneInfo("America/New_York")
    expected["local_days"] = Counter(
        (i, placed.astimezone(new_york).replace(tzinfo=None), placed.replace(minute=0, second=0, microsecond=0)) for i, _, _, placed, _ in orders)
    hourly: dict[datetime, list] = {}
    hops: Counter = Counter()
    for _, _, amount, placed, _ in orders:
        start = placed.replace(minute=0, second=0, microsecond=0)
        group = hourly.setdefault(start, [0, Decimal(0)])
        group[0] += 1
        group[1] += amount
        latest = placed.replace(minute=placed.minute // 30 * 30, second=0, microsecond=0)
        for back in range(4):
            window = latest - timedelta(minutes=30 * back)
            hops[(window, window + timedelta(hours=2))] += 1
    expected["hourly"] = Counter((start, n, total) for start, (n, total) in hourly.items())
    expected["hops"] = Counter((start, end, n) for (start, end), n in hops.items())
    return expected


def _read(conn: psycopg.Connection) -> dict[str, Counter]:
    conn.execute("FLUSH")
    return {name: Counter(conn.execute(f"SELECT * FROM {name}").fetchall()) for name in NAMES if name != "audit"}


def _normalized(rows: dict[str, Counter]) -> dict[str, Counter]:
    """Rows with numbers as Decimals, so that DuckDB's and the server's types compare."""
    def value(item):
        return Decimal(item) if isinstance(item, (int, float)) and not isinstance(item, bool) else item
    return {name: Counter({tuple(value(item) for item in row): count for row, count in counter.items()}) for name, counter in rows.items()}


def _check(conn: psycopg.Connection, orders: list[tuple]) -> dict[str, Counter]:
    actual = _read(conn)
    expected = _expected(orders)
    for name in expected:
        assert _normalized({name: actual[name]}) == _normalized({name: expected[name]}), name
    return actual


def _plan_line(server: SluiceServer) -> str:
    lines = [line for line in server.log().splitlines() if "recovered in" in line]
    assert lines, server.log()[-3000:]
    return lines[-1]


def _grant(conn: psycopg.Connection) -> None:
    conn.execute("CREATE USER viewer")
    conn.execute("GRANT SELECT ON by_region, ranges TO viewer")


def _check_grants(server: SluiceServer) -> None:
    """The grants on the views hold after a restart, on views from stored plans or bound again."""
    with psycopg.connect(host=server.host, port=server.port, user="viewer", dbname="dev", autocommit=True) as conn:
        assert len(conn.execute("SELECT * FROM by_region").fetchall()) == 4
        assert len(conn.execute("SELECT * FROM ranges").fetchall()) > 0
        try:
            conn.execute("SELECT * FROM labels")
            raise AssertionError("viewer read labels")
        except psycopg.errors.InsufficientPrivilege:
            pass


def _catalog(data_dir: Path) -> dict:
    return json.loads((data_dir / "catalog.json").read_text())


def _create(data_dir: Path, orders: list[tuple], *, grant: bool) -> dict[str, Counter]:
    """A first server: the tables with `orders`, the views (checked against the oracle), and
    the grants when `grant`; returns what the views held."""
    with SluiceServer(data_dir=data_dir) as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            for statement in SCHEMA:
                conn.execute(statement)
            _insert(conn, "customers", _customers())
            _insert(conn, "orders", orders)
            for _, statement in VIEWS:
                conn.execute(statement)
            before = _check(conn, orders)
            if grant:
                _grant(conn)
    return before


def test_views_restart_from_stored_plans(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    orders = [_order(i) for i in range(1, 201)]
    before = _create(data_dir, orders, grant=True)

    # Every view but `ranges` keeps its plan in the catalog.
    relations = {relation["name"]: relation for relation in _catalog(data_dir)["relations"]}
    for name in NAMES:
        assert (relations[name].get("storedPlan") is None) == (name in UNSTORED), name
    stored = base64.b64decode(relations["hops"]["storedPlan"])
    assert stored[:3] == b"SP\x01"

    with SluiceServer(data_dir=data_dir) as server:
        line = _plan_line(server)
        assert f"{len(NAMES) - 1} views and sinks from stored plans, 1 bound again from their SQL (ranges: no stored plan)" in line, line
        assert "planned differently" not in line, line
        _check_grants(server)
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            assert _read(conn) == before
            # The restored plans go on maintaining the views.
            more = [_order(i) for i in range(201, 241)]
            _insert(conn, "orders", more)
            conn.execute("UPDATE orders SET amount = amount + 1 WHERE id % 11 = 0")
            conn.execute("DELETE FROM orders WHERE id % 13 = 0")
            orders = [
                (i, customer, amount + 1 if i % 11 == 0 else amount, placed, note)
                for i, customer, amount, placed, note in orders + more if i % 13 != 0
            ]
            after = _check(conn, orders)

    # A second restart, from the same stored plans.
    with SluiceServer(data_dir=data_dir) as server:
        assert f"{len(NAMES) - 1} views and sinks from stored plans" in _plan_line(server)
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            assert _read(conn) == after


def test_a_catalog_without_stored_plans_binds_again_and_stores_them(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    orders = [_order(i) for i in range(1, 121)]
    before = _create(data_dir, orders, grant=True)

    # As an earlier version wrote it (no `storedPlan`), but for one plan of a later format version.
    catalog = _catalog(data_dir)
    for relation in catalog["relations"]:
        plan = relation.pop("storedPlan", None)
        if relation["name"] == "top_orders":
            bytes_ = bytearray(base64.b64decode(plan))
            bytes_[2] = 99
            relation["storedPlan"] = base64.b64encode(bytes(bytes_)).decode()
    (data_dir / "catalog.json").write_text(json.dumps(catalog))

    with SluiceServer(data_dir=data_dir) as server:
        line = _plan_line(server)
        assert f"0 views and sinks from stored plans, {len(NAMES)} bound again from their SQL" in line, line
        assert "by_region: no stored plan" in line and "top_orders: stored plan format version 99 is not 1" in line, line
        _check_grants(server)
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            assert _read(conn) == before

    # Bound again, the views' plans were stored: the next start runs them.
    with SluiceServer(data_dir=data_dir) as server:
        assert f"{len(NAMES) - 1} views and sinks from stored plans, 1 bound again" in _plan_line(server)
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            assert _read(conn) == before


def test_a_stored_plan_whose_state_was_made_by_another_plan_rebuilds_it_once(tmp_path: Path) -> None:
    """As after a change of the operators' state layout: the stored plan's fingerprint differs
    from the one the checkpointed state was made by, so the views are rebuilt from their inputs
    (still from their stored plans), and the next start restores them from their state again."""
    data_dir = tmp_path / "data"
    orders = [_order(i) for i in range(1, 81)]
    before = _create(data_dir, orders, grant=False)

    catalog = _catalog(data_dir)
    for relation in catalog["relations"]:
        if relation["name"] == "hops":
            relation["planFingerprint"] = "0"
    (data_dir / "catalog.json").write_text(json.dumps(catalog))

    with SluiceServer(data_dir=data_dir) as server:
        line = _plan_line(server)
        assert "views rebuilt from their inputs (planned differently than their state was made: hops)" in line, line
        assert f"{len(NAMES) - 1} views and sinks from stored plans" in line, line
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            assert _read(conn) == before
    relations = {relation["name"]: relation for relation in _catalog(data_dir)["relations"]}
    assert relations["hops"]["planFingerprint"] != "0"

    with SluiceServer(data_dir=data_dir) as server:
        line = _plan_line(server)
        assert "views restored from state checkpoint" in line and f"{len(NAMES) - 1} views and sinks from stored plans" in line, line
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            assert _read(conn) == before
