"""Trino's client protocol (`sluice serve --trino-listen`) with the real Python clients: Trino's
`trino` DB-API driver and Presto's `prestodb` (presto-python-client), as the seeds' `trino` and
`presto` command lines speak it. SHOW and DESCRIBE answer in Trino's shapes and type names; typed
results convert to the Python values psycopg gives over the Postgres port for the same queries
(the oracle); a large result comes page by page; cancels free the query; errors carry Trino's
error names; bad requests get 4xx. Seed 002's two Presto lines run verbatim over a file source
named hive_events (catalog hive, schema default), and seed 004's two Trino queries verbatim over
an Iceberg table that a sink fills in the built-in catalog (catalog iceberg), equal to DuckDB's
reading the same Iceberg table."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import prestodb
import psycopg
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import requests
import trino
from pyiceberg.catalog.rest import RestCatalog

from duckdb_support import duckdb_with
from harness import SluiceServer
from source_support import connect, wait_until


def _trino(server: SluiceServer, **kwargs) -> trino.dbapi.Connection:
    return trino.dbapi.connect(host=server.host, port=server.trino_port, user="root", timezone="UTC", **kwargs)


def _rows(conn, query: str) -> list[tuple]:
    cursor = conn.cursor()
    cursor.execute(query)
    return [tuple(row) for row in cursor.fetchall()]


def _statement(server: SluiceServer, sql: str | bytes, headers: dict[str, str] | None = None) -> requests.Response:
    return requests.post(f"http://{server.host}:{server.trino_port}/v1/statement", data=sql,
                         headers={"X-Trino-User": "root", **(headers or {})}, timeout=30)


def _follow(first: requests.Response) -> list[dict]:
    """Every page of a query, from its POST's answer to the page without a nextUri."""
    pages = [first.json()]
    while "nextUri" in pages[-1]:
        answer = requests.get(pages[-1]["nextUri"], timeout=60)
        assert answer.status_code == 200, answer.text
        pages.append(answer.json())
    return pages


def test_show_describe_and_use(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as pg:
        pg.execute("CREATE TABLE orders (id bigint, qty integer, price numeric(10,2), note varchar, placed timestamp, "
                   "placed_tz timestamptz, ok boolean, ratio double precision, day date)")
        pg.execute("CREATE SCHEMA shop")
        pg.execute("CREATE TABLE shop.items (sku varchar, n smallint)")
        conn = _trino(server, catalog="sluice", schema="public")
        assert {"sluice", "hive", "iceberg"} <= {row[0] for row in _rows(conn, "SHOW CATALOGS")}
        assert _rows(conn, "SHOW CATALOGS LIKE 'h%'") == [("hive",)]
        assert {"public", "shop"} <= {row[0] for row in _rows(conn, "SHOW SCHEMAS")}
        assert ("default",) in _rows(conn, "SHOW SCHEMAS FROM hive")
        assert _rows(conn, "SHOW TABLES") == [("orders",)]
        assert _rows(conn, "SHOW TABLES FROM sluice.shop") == [("items",)]
        # Trino's DESCRIBE: Column | Type | Extra | Comment, with Trino's type names.
        cursor = conn.cursor()
        cursor.execute("DESCRIBE orders")
        assert [column[0] for column in cursor.description] == ["Column", "Type", "Extra", "Comment"]
        assert [tuple(row[:2]) for row in cursor.fetchall()] == [
            ("id", "bigint"), ("qty", "integer"), ("price", "decimal(10,2)"), ("note", "varchar"), ("placed", "timestamp(6)"),
            ("placed_tz", "timestamp(6) with time zone"), ("ok", "boolean"), ("ratio", "double"), ("day", "date")]
        assert _rows(conn, "SHOW COLUMNS FROM sluice.shop.items") == [("sku", "varchar", "", ""), ("n", "smallint", "", "")]

        # Names resolve with the session's catalog and schema, in one, two or three parts.
        pg.execute("INSERT INTO shop.items VALUES ('a', 1), ('b', 2)")
        assert _rows(conn, "SELECT count(*) FROM sluice.shop.items") == [(2,)]
        assert _rows(conn, "SELECT count(*) FROM shop.items") == [(2,)]
        # USE sets the client's catalog and schema (X-Trino-Set-Catalog / -Schema).
        unset = _trino(server)
        cursor = unset.cursor()
        cursor.execute("USE sluice.shop")
        cursor.fetchall()
        assert unset._client_session.catalog == "sluice" and unset._client_session.schema == "shop"
        assert _rows(unset, "SELECT sku FROM items ORDER BY sku") == [("a",), ("b",)]
        # presto-python-client sends the X-Presto-* spellings.
        presto = prestodb.dbapi.connect(host=server.host, port=server.trino_port, user="root", catalog="sluice", schema="shop")
        cursor = presto.cursor()
        cursor.execute("SELECT count(*) FROM items")
        assert cursor.fetchall() == [[2]]
        answer = _statement(server, "USE sluice.shop", {"X-Presto-Catalog": "hive"})
        while "nextUri" in answer.json():
            answer = requests.get(answer.json()["nextUri"], timeout=10)
        assert (answer.headers["X-Presto-Set-Catalog"], answer.headers["X-Presto-Set-Schema"]) == ("sluice", "shop")


TYPED_QUERIES = [
    "SELECT * FROM typed ORDER BY id",
    "SELECT id, qty * 2, price + 1, upper(note), placed + interval '1 day', day - 1, ratio / 4 FROM typed ORDER BY id",
    "SELECT note, count(*), sum(price), avg(qty), min(placed), max(placed_tz) FROM typed GROUP BY note ORDER BY note",
    "SELECT date_trunc('day', placed), count(*) FROM typed GROUP BY 1 ORDER BY 1",
    "SELECT ARRAY[id, qty], blob, t FROM typed ORDER BY id",
    "SELECT 1, 'x', true, 1.5, NULL",
]


def test_typed_results_equal_psycopgs(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as pg:
        pg.execute("CREATE TABLE typed (id bigint, qty integer, small smallint, price numeric(10,2), note varchar, placed timestamp, "
                   "placed_tz timestamptz, ok boolean, ratio double precision, real_ratio real, day date, t time, blob bytea)")
        pg.execute("""INSERT INTO typed VALUES
            (1, 10, 1, 12.34, 'alpha', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.5+02', true, 0.1, 0.25, '2024-02-29', '12:34:56.789', '\\x00ff10'),
            (2, -3, -1, -0.01, 'beta "quoted" \\ back', '1999-12-31 23:59:59', '2000-01-01 00:00:00+00', false, 12345.678, -1.5, '1970-01-01', '00:00:00', ''),
            (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            (4, 7, 7, 99999999.99, 'ünïcödé ✓ line
break', '2024-01-02 00:00:00', '2024-06-30 12:00:00-07', true, -2.5, 3.0, '2024-01-02', '23:59:59.999999', '\\x41')""")
        conn = _trino(server, catalog="sluice", schema="public")
        for query in TYPED_QUERIES:
            ours = _rows(conn, query)
            theirs = [tuple(row) for row in pg.execute(query).fetchall()]
            assert ours == theirs, query
        # Parameters: the trino client sends EXECUTE IMMEDIATE '… ? …' USING its values.
        query = "SELECT id, note, price FROM typed WHERE id > ? AND note <> ? AND placed < ? AND ok = ? ORDER BY id"
        values = (1, "x?y", dt.datetime(2024, 1, 2, 1, 0, 0), True)
        cursor = conn.cursor()
        cursor.execute(query, values)
        assert [tuple(row) for row in cursor.fetchall()] == [
            tuple(row) for row in pg.execute(query.replace("?", "%s"), values).fetchall()] == [(4, "ünïcödé ✓ line\nbreak", Decimal("99999999.99"))]
        cursor = conn.cursor()
        cursor.execute("SELECT count(*) FROM typed WHERE note = '?' OR id = ?", (2,))
        assert cursor.fetchall() == [[1]]
        # Trino's approx_distinct, answered exactly.
        assert _rows(conn, "SELECT approx_distinct(note), approx_distinct(ok) FROM typed") == [
            tuple(pg.execute("SELECT count(DISTINCT note), count(DISTINCT ok) FROM typed").fetchone())]
        # presto-python-client converts nothing: integers, text and booleans come as JSON gives them.
        presto = prestodb.dbapi.connect(host=server.host, port=server.trino_port, user="root", catalog="sluice", schema="public")
        cursor = presto.cursor()
        cursor.execute("SELECT id, qty, note, ok FROM typed ORDER BY id")
        assert [tuple(row) for row in cursor.fetchall()] == [tuple(row) for row in pg.execute("SELECT id, qty, note, ok FROM typed ORDER BY id").fetchall()]
        # Named prepared statements, the clients' legacy path: presto-python-client sends
        # PREPARE, then EXECUTE … USING with the statement sent back in X-Presto-Prepared-Statement,
        # then DEALLOCATE PREPARE; trino's client does so with legacy_prepared_statements.
        cursor = presto.cursor()
        cursor.execute("SELECT id, note FROM typed WHERE id >= ? AND note <> ? ORDER BY id", (2, "alpha"))
        assert [tuple(row) for row in cursor.fetchall()] == [tuple(row) for row in pg.execute(
            "SELECT id, note FROM typed WHERE id >= 2 AND note <> 'alpha' ORDER BY id").fetchall()]
        legacy = _trino(server, catalog="sluice", schema="public", legacy_prepared_statements=True).cursor()
        legacy.execute("SELECT count(*), max(qty) FROM typed WHERE id < ?", (3,))
        assert legacy.fetchall() == [[2, 10]]
        # The header's statements are checked: one that is not URL-encoded text, or an unknown name, is an error.
        assert _statement(server, "EXECUTE st_1", {"X-Trino-Prepared-Statement": "st_1=%ZZ"}).status_code == 400
        unknown = _follow(_statement(server, "EXECUTE st_2 USING 1", {"X-Trino-Catalog": "sluice"}))
        assert unknown[-1]["error"]["message"] == "Prepared statement not found: st_2"
        added = _statement(server, "PREPARE st_3 FROM SELECT ? + 1", {"X-Trino-Catalog": "sluice"})
        name, _, encoded = added.headers["X-Trino-Added-Prepare"].partition("=")
        assert name == "st_3"
        executed = _follow(_statement(server, "EXECUTE st_3 USING 41", {"X-Trino-Catalog": "sluice", "X-Trino-Prepared-Statement": f"st_3={encoded}"}))
        assert [row for page in executed for row in page.get("data", [])] == [[42]]
        # Decimals are strings and timestamps Trino's text in the JSON itself.
        pages = _follow(_statement(server, "SELECT price, placed, placed_tz FROM typed WHERE id = 1", {"X-Trino-Catalog": "sluice"}))
        data = [row for page in pages for row in page.get("data", [])]
        assert data == [["12.34", "2024-01-02 03:04:05.123456", "2024-01-02 01:04:05.500000 UTC"]]
        columns = next(page["columns"] for page in pages if "columns" in page)
        assert [column["type"] for column in columns] == ["decimal(10,2)", "timestamp(6)", "timestamp(6) with time zone"]
        assert columns[0]["typeSignature"] == {"rawType": "decimal", "arguments": [{"kind": "LONG", "value": 10}, {"kind": "LONG", "value": 2}]}


def test_a_large_result_comes_page_by_page(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data") as server:
        query = "SELECT g, g * 2 AS twice, 'row ' || g AS label FROM generate_series(1, 200000) AS g"
        pages = _follow(_statement(server, query))
        data_pages = [page for page in pages if page.get("data")]
        assert len(data_pages) > 3
        rows = [row for page in data_pages for row in page["data"]]
        assert len(rows) == 200000
        assert rows[0] == [1, 2, "row 1"] and rows[-1] == [200000, 400000, "row 200000"]
        assert sum(row[0] for row in rows) == 200000 * 200001 // 2
        assert pages[-1]["stats"]["state"] == "FINISHED"
        # The same through the DB-API client, iterated.
        conn = _trino(server, catalog="sluice", schema="public")
        cursor = conn.cursor()
        cursor.execute(query)
        count = total = 0
        for row in cursor:
            count += 1
            total += row[1]
        assert (count, total) == (200000, 200000 * 200001)


def test_cancel_and_abandoned_queries_are_freed(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--trino-abandoned-query-seconds", "3"]) as server:
        query = "SELECT g FROM generate_series(1, 3000000) AS g"
        first = _statement(server, query).json()
        page = requests.get(first["nextUri"], timeout=60).json()
        assert page.get("data") and "nextUri" in page
        # DELETE of nextUri cancels: 204, and the query is gone.
        assert requests.delete(page["nextUri"], timeout=10).status_code == 204
        assert requests.get(page["nextUri"], timeout=10).status_code == 404
        # The DB-API client's cancel does the same mid-result.
        conn = _trino(server, catalog="sluice", schema="public")
        cursor = conn.cursor()
        cursor.execute(query)
        assert cursor.fetchone() == [1]
        cursor.cancel()
        # A client that goes away mid-result: the query is dropped once not asked about.
        first = _statement(server, query).json()
        page = requests.get(first["nextUri"], timeout=60).json()
        assert "nextUri" in page
        info = f"http://{server.host}:{server.trino_port}/v1/query/{first['id']}"
        assert requests.get(info, timeout=10).status_code == 200
        wait_until(lambda: requests.get(info, timeout=10).status_code == 404, 30, "the abandoned query dropped")
        assert requests.get(page["nextUri"], timeout=10).status_code == 404
        # The server still answers.
        assert _rows(conn, "SELECT 41 + 1") == [(42,)]


def test_errors_carry_trinos_names(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as pg:
        pg.execute("CREATE TABLE t (a int)")
        conn = _trino(server, catalog="sluice", schema="public")
        for query, name in [
            ("SELEC 1", "SYNTAX_ERROR"),
            ("SELECT * FROM missing", "TABLE_NOT_FOUND"),
            ("SELECT b FROM t", "COLUMN_NOT_FOUND"),
            ("SELECT 1 / 0", "DIVISION_BY_ZERO"),
            ("SELECT * FROM nowhere.public.t", "CATALOG_NOT_FOUND"),
            ("SHOW TABLES FROM sluice.nothing", "SCHEMA_NOT_FOUND"),
            ("DESCRIBE missing", "TABLE_NOT_FOUND"),
        ]:
            with pytest.raises(trino.exceptions.TrinoUserError) as failure:
                _rows(conn, query)
            assert failure.value.error_name == name, query
            assert failure.value.error_type == "USER_ERROR"
        with pytest.raises(prestodb.exceptions.PrestoUserError) as failure:
            presto = prestodb.dbapi.connect(host=server.host, port=server.trino_port, user="root", catalog="sluice", schema="public")
            cursor = presto.cursor()
            cursor.execute("SELECT * FROM missing")
            cursor.fetchall()
        assert failure.value.error_name == "TABLE_NOT_FOUND"

        # Bad requests: 4xx, and the server goes on.
        base = f"http://{server.host}:{server.trino_port}"
        assert _statement(server, "").status_code == 400
        assert _statement(server, b"SELECT '\xff\xfe'").status_code == 400
        assert _statement(server, "SELECT 1", {"X-Trino-Session": "no_equals_sign"}).status_code == 400
        assert _statement(server, "SELECT 1", {"X-Trino-Time-Zone": "Not/AZone"}).status_code == 400
        assert _statement(server, "SELECT 1", {"X-Trino-Schema": "public"}).status_code == 400
        assert _statement(server, "SELECT 1" + " " * (2 << 20)).status_code == 413
        assert requests.get(f"{base}/v1/statement/executing/nope/nope/1", timeout=10).status_code == 404
        assert requests.get(f"{base}/v1/statement/executing/nope/nope/x", timeout=10).status_code == 400
        assert requests.delete(f"{base}/v1/statement/executing/nope/nope/1", timeout=10).status_code == 404
        first = _statement(server, "SELECT g FROM generate_series(1, 3000000) AS g").json()
        skipped = first["nextUri"].rsplit("/", 1)[0] + "/9"
        assert requests.get(skipped, timeout=10).status_code == 404
        assert requests.delete(first["nextUri"], timeout=10).status_code == 204
        assert _rows(conn, "SELECT count(*) FROM t") == [(0,)]


SEED_002_COLUMNS = [
    ("raw_event", pa.string()), ("timestamp", pa.string()), ("accept", pa.string()), ("host", pa.string()),
    ("user_agent", pa.string()), ("event_type", pa.string()), ("user", pa.string()), ("price", pa.decimal128(10, 0)),
    ("type", pa.string()), ("fee", pa.decimal128(10, 0)), ("name", pa.string()), ("amount", pa.decimal128(10, 0)),
]


def test_seed_002_presto_lines_over_hive_events(tmp_path: Path) -> None:
    landing = tmp_path / "game_events"
    landing.mkdir()
    schema = pa.schema(SEED_002_COLUMNS)
    for part, event_type in enumerate(["purchase_sword", "join_guild", "get_paid"]):
        count = 5 + part * 3
        pq.write_table(pa.table({
            "raw_event": [f'{{"event_type": "{event_type}", "n": {i}}}' for i in range(count)],
            "timestamp": [f"2024-01-0{part + 1} 00:00:{i:02d}" for i in range(count)],
            "accept": ["*/*"] * count, "host": ["localhost:5000"] * count, "user_agent": ["ApacheBench/2.3"] * count,
            "event_type": [event_type] * count, "user": [f"user{i % 2}" for i in range(count)],
            "price": pa.array([Decimal(15) if event_type == "purchase_sword" else None] * count, pa.decimal128(10, 0)),
            "type": [None] * count, "fee": pa.array([None] * count, pa.decimal128(10, 0)), "name": [None] * count,
            "amount": pa.array([Decimal(i) for i in range(count)], pa.decimal128(10, 0)),
        }, schema=schema), landing / f"part-{part}.parquet")
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as pg:
        # As seed 002's pipeline makes it (`sluice demo game-api --print-sql`).
        pg.execute(f"""CREATE SOURCE hive_events (raw_event VARCHAR, "timestamp" VARCHAR, accept VARCHAR, host VARCHAR,
            user_agent VARCHAR, event_type VARCHAR, "user" VARCHAR, price DECIMAL(10, 0), type VARCHAR, fee DECIMAL(10, 0),
            name VARCHAR, amount DECIMAL(10, 0))
            WITH (connector = 'posix_fs', posix_fs.root = '{landing}', match_pattern = '*.parquet') FORMAT PLAIN ENCODE PARQUET""")
        pg.execute("CREATE TABLE not_a_file (a int)")
        # presto --server presto:8080 --catalog hive --schema default
        presto = prestodb.dbapi.connect(host=server.host, port=server.trino_port, user="root", catalog="hive", schema="default")
        cursor = presto.cursor()
        # The seed's lines as typed (the CLI sends them without the final semicolon; either is taken).
        cursor.execute("describe hive_events;")
        described = cursor.fetchall()
        assert [tuple(row[:2]) for row in described] == [
            ("raw_event", "varchar"), ("timestamp", "varchar"), ("accept", "varchar"), ("host", "varchar"), ("user_agent", "varchar"),
            ("event_type", "varchar"), ("user", "varchar"), ("price", "decimal(10,0)"), ("type", "varchar"), ("fee", "decimal(10,0)"),
            ("name", "varchar"), ("amount", "decimal(10,0)")]
        cursor = presto.cursor()
        cursor.execute("select count(*) from hive_events;")
        count = cursor.fetchall()
        assert count == [[pg.execute("SELECT count(*) FROM hive_events").fetchone()[0]]] == [[5 + 8 + 11]]
        cursor = presto.cursor()
        cursor.execute("show tables")
        assert cursor.fetchall() == [["hive_events"]]
        # A table is not in the hive catalog.
        with pytest.raises(prestodb.exceptions.PrestoUserError) as failure:
            cursor = presto.cursor()
            cursor.execute("select count(*) from not_a_file")
            cursor.fetchall()
        assert failure.value.error_name == "TABLE_NOT_FOUND"


SEED_004_QUERIES = [
    """SELECT provider, status, COUNT(*) as transaction_count, AVG(amount) as avg_amount, SUM(amount) as total_amount
FROM payments_db.payment_charges GROUP BY provider, status ORDER BY total_amount DESC;""",
    """SELECT card_country, COUNT(*) as count FROM payments_db.payment_charges
WHERE card_country NOT IN ('US', 'CA', 'GB', 'FR', 'DE', 'AU') GROUP BY card_country ORDER BY count DESC;""",
]


def test_seed_004_trino_queries_over_an_iceberg_sink(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as pg:
        pg.execute("CREATE TABLE charges (id bigint, provider varchar, status varchar, amount numeric(10,2), card_country varchar, "
                   "created_at timestamptz) APPEND ONLY")
        providers = ["stripe", "adyen", "paypal", "square"]
        statuses = ["succeeded", "failed", "pending"]
        countries = ["US", "CA", "GB", "FR", "DE", "AU", "BR", "IN", "JP", "MX", "NG", "SG"]
        # Country k on (k + 1) * 8 rows: distinct counts, so ORDER BY count has no ties.
        country_of = [country for k, country in enumerate(countries) for _ in range((k + 1) * 8)]
        rows = []
        for i in range(len(country_of)):
            country = country_of[(i * 7) % len(country_of)]
            rows.append((i, providers[i % 4], statuses[i % 3], Decimal(i * 7 % 1000) / 4 + Decimal(i % 12) / 100, country,
                         dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(minutes=i)))
        with pg.cursor() as cursor:
            cursor.executemany("INSERT INTO charges VALUES (%s, %s, %s, %s, %s, %s)", rows)
        pg.execute(f"""CREATE SINK payment_charges_sink AS SELECT * FROM charges WITH (connector = 'iceberg', type = 'append-only',
            database.name = 'payments_db', table.name = 'payment_charges', warehouse.path = 'lake', catalog.type = 'rest',
            catalog.uri = '{server.catalog_base}/api/catalog', catalog.credential = 'root:secret', create_table_if_not_exists = 'true',
            commit_checkpoint_interval = '1')""")
        # trino --server localhost:8080 --catalog iceberg
        conn = _trino(server, catalog="iceberg")

        def landed() -> bool:
            try:
                return _rows(conn, "SELECT count(*) FROM payments_db.payment_charges") == [(len(rows),)]
            except trino.exceptions.TrinoUserError:
                return False

        wait_until(landed, 60, "every row in the Iceberg table")
        assert ("payments_db",) in _rows(conn, "SHOW SCHEMAS")
        assert _rows(conn, "SHOW TABLES FROM payments_db") == [("payment_charges",)]
        assert ("payment_charges",) in _rows(conn, "SHOW TABLES FROM lake.payments_db")
        assert [row[:2] for row in _rows(conn, "DESCRIBE payments_db.payment_charges")] == [
            ("id", "bigint"), ("provider", "varchar"), ("status", "varchar"), ("amount", "decimal(10,2)"), ("card_country", "varchar"),
            ("created_at", "timestamp(6) with time zone")]

        catalog = RestCatalog("lake", uri=f"{server.catalog_base}/api/catalog", credential="root:secret", warehouse="lake",
                              **{"oauth2-server-uri": f"{server.catalog_base}/api/catalog/v1/oauth/tokens"})
        location = catalog.load_table("payments_db.payment_charges").metadata_location
        duck = duckdb_with("avro", "iceberg")
        for query in SEED_004_QUERIES:
            ours = _rows(conn, query)
            theirs = duck.execute(query.replace("payments_db.payment_charges", f"iceberg_scan('{location}')")).fetchall()
            assert len(ours) == len(theirs) > 0, query
            for mine, reference in zip(ours, theirs):
                # DuckDB's AVG of a decimal is a double; ours is exact.
                assert [float(v) if isinstance(v, Decimal) else v for v in mine] == pytest.approx(
                    [float(v) if isinstance(v, Decimal) else v for v in reference]), query
                assert mine[:2] == tuple(reference[:2])


def test_users_log_in_as_on_the_sql_port(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as pg:
        pg.execute("CREATE TABLE secret (a int)")
        pg.execute("INSERT INTO secret VALUES (1)")
        pg.execute("CREATE USER alice")
        pg.execute("CREATE USER bob WITH PASSWORD 'bob-pw'")
        pg.execute("GRANT SELECT ON secret TO bob")
        # On loopback under --auth-loopback auto, a role without a password is who X-Trino-User
        # names, with that role's privileges.
        alice = trino.dbapi.connect(host=server.host, port=server.trino_port, user="alice", catalog="sluice", schema="public")
        with pytest.raises(trino.exceptions.TrinoUserError) as failure:
            _rows(alice, "SELECT * FROM secret")
        assert failure.value.error_name == "PERMISSION_DENIED"
        with psycopg.connect(host=server.host, port=server.port, user="alice", dbname="dev") as as_alice:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                as_alice.execute("SELECT * FROM secret")
        # A role with a password must give it (HTTP Basic), as psql must.
        assert _statement(server, "SELECT 1", {"X-Trino-User": "bob"}).status_code == 401
        assert _statement(server, "SELECT 1", {"X-Trino-User": "nobody"}).status_code == 401
        answer = requests.post(f"http://{server.host}:{server.trino_port}/v1/statement", data="SELECT count(*) FROM secret",
                               headers={"X-Trino-User": "bob", "X-Trino-Catalog": "sluice"}, auth=("bob", "bob-pw"), timeout=30)
        rows = [row for page in _follow(answer) for row in page.get("data", [])]
        assert rows == [[1]]
        assert requests.post(f"http://{server.host}:{server.trino_port}/v1/statement", data="SELECT 1",
                             headers={"X-Trino-User": "bob"}, auth=("bob", "wrong"), timeout=30).status_code == 401


def _warehouse_table(server: SluiceServer, warehouse: str, rows: int) -> None:
    """payments_db.charges in `warehouse` of the built-in catalog, with `rows` rows (pyiceberg)."""
    catalog = RestCatalog(warehouse, uri=f"{server.catalog_base}/api/catalog", credential="root:secret", warehouse=warehouse,
                          **{"oauth2-server-uri": f"{server.catalog_base}/api/catalog/v1/oauth/tokens"})
    catalog.create_namespace("payments_db")
    table = catalog.create_table("payments_db.charges", schema=pa.schema([pa.field("id", pa.int64())]))
    table.append(pa.table({"id": pa.array(range(rows), pa.int64())}))


def test_a_schema_in_two_warehouses(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data") as server:
        _warehouse_table(server, "lake", 3)
        _warehouse_table(server, "lake2", 5)
        conn = _trino(server, catalog="iceberg")
        with pytest.raises(trino.exceptions.TrinoUserError) as failure:
            _rows(conn, "SELECT count(*) FROM payments_db.charges")
        assert "lake" in failure.value.message and "lake2" in failure.value.message
        # Each warehouse is a catalog of its own name.
        assert _rows(conn, "SELECT count(*) FROM lake.payments_db.charges") == [(3,)]
        assert _rows(conn, "SELECT count(*) FROM lake2.payments_db.charges") == [(5,)]
        assert {"lake", "lake2"} <= {row[0] for row in _rows(conn, "SHOW CATALOGS")}
    # --trino-iceberg-warehouse picks one for the catalog iceberg.
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--trino-iceberg-warehouse", "lake2"]) as server:
        assert _rows(_trino(server, catalog="iceberg"), "SELECT count(*) FROM payments_db.charges") == [(5,)]
