"""ksqlDB's connector statements on Sluice's ksqlDB door, driven by `ksql-python-ng` against a
real PostgreSQL (`wal_level = logical`) started by the harness: a Debezium Postgres source
connector writing Debezium's change events of a table into `<prefix>.<schema>.<table>` (read
with kafka-python, through a ksqlDB stream and through a Sluice table with FORMAT DEBEZIUM), a
JDBC sink connector writing ksqlDB CSAS/CTAS topics into PostgreSQL tables (read back with
psycopg from PostgreSQL itself), SHOW/DESCRIBE/DROP CONNECTOR, connectors after a restart, the
classes and properties refused in ksqlDB's error shape, and `JSON_RECORDS`.

The oracle is PostgreSQL's own tables and the rows the test writes: every expected event and row
is worked out here."""

from __future__ import annotations

import json

import httpx
import ksql
import psycopg
import pytest
from kafka import KafkaConsumer, KafkaProducer
from ksql.errors import KSQLError

from harness import PostgresServer, SluiceServer, free_port
from source_support import connect, wait_until

EARLIEST = {"ksql.streams.auto.offset.reset": "earliest"}
DEBEZIUM = "io.debezium.connector.postgresql.PostgresConnector"
JDBC_SINK = "io.confluent.connect.jdbc.JdbcSinkConnector"
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"


@pytest.fixture(scope="module")
def upstream():
    with PostgresServer(logical=True) as server:
        yield server


@pytest.fixture(scope="module")
def server():
    with SluiceServer() as running:
        yield running


@pytest.fixture(scope="module")
def client(server: SluiceServer) -> ksql.KSQLAPI:
    return ksql.KSQLAPI(server.ksql_url)


def _pg(upstream: PostgresServer) -> psycopg.Connection:
    return psycopg.connect(upstream.endpoint("dev").conninfo, autocommit=True)


def _properties(**pairs: str) -> str:
    return ", ".join(f"'{key.replace('__', '.')}' = '{value}'" for key, value in pairs.items())


def debezium_connector(name: str, upstream: PostgresServer, prefix: str, tables: str, **extra: str) -> str:
    return f"""CREATE SOURCE CONNECTOR {name} WITH ('connector.class' = '{DEBEZIUM}',
        'database.hostname' = '{upstream.host}', 'database.port' = '{upstream.port}', 'database.user' = 'root',
        'database.password' = '', 'database.dbname' = 'dev', 'topic.prefix' = '{prefix}', 'table.include.list' = '{tables}',
        'plugin.name' = 'pgoutput', 'value.converter' = '{JSON_CONVERTER}', 'value.converter.schemas.enable' = 'false'
        {", " + _properties(**extra) if extra else ""});"""


def jdbc_sink(name: str, upstream: PostgresServer, topics: str, **extra: str) -> str:
    return f"""CREATE SINK CONNECTOR {name} WITH ('connector.class' = '{JDBC_SINK}',
        'connection.url' = 'jdbc:postgresql://{upstream.host}:{upstream.port}/dev', 'connection.user' = 'root',
        'topics' = '{topics}', 'value.converter' = '{JSON_CONVERTER}', 'value.converter.schemas.enable' = 'false'
        {", " + _properties(**extra) if extra else ""});"""


class TopicReader:
    """Reads a topic's messages (key, value; a tombstone's value is None) from the start."""

    def __init__(self, bootstrap: str, topic: str):
        self.consumer = KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest", isolation_level="read_committed",
                                      enable_auto_commit=False, group_id=None, consumer_timeout_ms=200)
        self.consumer.subscribe([topic])
        self.messages: list[tuple] = []

    def until(self, condition, what: str, timeout: float = 60) -> list[tuple]:
        def enough():
            for message in self.consumer:
                key = json.loads(message.key) if message.key else None
                value = json.loads(message.value) if message.value is not None else None
                self.messages.append((key, value))
            return self.messages if condition(self.messages) else None
        return wait_until(enough, timeout, what)

    def close(self) -> None:
        self.consumer.close()


def apply_events(messages: list[tuple]) -> dict:
    """The rows Debezium's events leave, by id."""
    rows: dict = {}
    for _, value in messages:
        if value is None:
            continue
        if value["op"] == "d":
            rows.pop(value["before"]["id"], None)
        else:
            rows[value["after"]["id"]] = value["after"]
    return rows


def upstream_rows(upstream: PostgresServer, table: str) -> dict:
    with _pg(upstream) as pg:
        cursor = pg.execute(f"SELECT * FROM {table}")
        names = [column.name for column in cursor.description]
        return {row[0]: dict(zip(names, row)) for row in cursor.fetchall()}


def pulled(client: ksql.KSQLAPI, query: str) -> list[list]:
    answer = json.loads("".join(client.query(query)))
    return [item["row"]["columns"] for item in answer[1:] if "row" in item]


def test_debezium_source_connector_writes_change_events(server: SluiceServer, client: ksql.KSQLAPI, upstream: PostgresServer):
    with _pg(upstream) as pg:
        pg.execute("CREATE TABLE orders (id int PRIMARY KEY, customer text, amount int)")
        pg.execute("INSERT INTO orders VALUES (1, 'ann', 10), (2, 'bob', 20), (3, 'cy', 30)")
    answer = client.ksql(debezium_connector("pg_orders", upstream, "shop", "public.orders", slot__name="dbz_orders", snapshot__mode="initial",
                                            decimal__handling__mode="string"))
    info = answer[0]
    assert info["@type"] == "connector_info"
    assert info["info"]["name"] == "PG_ORDERS" and info["info"]["type"] == "source"
    assert info["info"]["config"]["connector.class"] == DEBEZIUM and info["info"]["config"]["database.password"] == "********"
    assert any("decimal.handling.mode" in warning["message"] for warning in info["warnings"])

    reader = TopicReader(server.kafka_bootstrap, "shop.public.orders")
    snapshot = reader.until(lambda messages: len(messages) >= 3, "the snapshot's events")
    assert sorted(value["after"]["id"] for _, value in snapshot) == [1, 2, 3]
    assert all(value["op"] in ("c", "r") and value["before"] is None and "ts_ms" in value and "source" in value for _, value in snapshot)
    assert sorted(key["id"] for key, _ in snapshot) == [1, 2, 3]
    assert snapshot[0][1]["source"] == {"connector": "postgresql", "name": "shop", "db": "dev", "schema": "public", "table": "orders"}

    with _pg(upstream) as pg:
        pg.execute("INSERT INTO orders VALUES (4, 'dee', 40)")
        pg.execute("UPDATE orders SET amount = 11 WHERE id = 1")
        pg.execute("DELETE FROM orders WHERE id = 2")
    expected = upstream_rows(upstream, "orders")
    messages = reader.until(lambda messages: apply_events(messages) == expected, "the changes' events")
    events = [value for _, value in messages[3:]]
    update = next(value for value in events if value is not None and value["op"] == "u")
    assert update["before"] == {"id": 1, "customer": "ann", "amount": 10} and update["after"] == {"id": 1, "customer": "ann", "amount": 11}
    delete_at = next(index for index, value in enumerate(events) if value is not None and value["op"] == "d")
    assert events[delete_at]["before"]["id"] == 2 and events[delete_at]["after"] is None
    assert events[delete_at + 1] is None  # the tombstone after a delete, as Debezium writes
    reader.close()

    # A Sluice table reads the topic as Debezium's events.
    with connect(server) as conn:
        conn.execute(f"""CREATE TABLE orders_mirror (id int PRIMARY KEY, customer varchar, amount int)
            WITH (connector = 'kafka', topic = 'shop.public.orders', properties.bootstrap.server = '{server.kafka_bootstrap}',
                  scan.startup.mode = 'earliest') FORMAT DEBEZIUM ENCODE JSON""")
        wait_until(lambda: {row[0]: {"id": row[0], "customer": row[1], "amount": row[2]}
                            for row in conn.execute("SELECT id, customer, amount FROM orders_mirror").fetchall()} == expected,
                   60, "the mirror table to equal upstream")
        # The source fields are for Debezium's events only.
        with pytest.raises(psycopg.Error, match="FORMAT DEBEZIUM"):
            conn.execute(f"""CREATE SINK plain_out FROM orders_mirror WITH (connector = 'kafka', topic = 'plain_out',
                properties.bootstrap.server = '{server.kafka_bootstrap}', debezium.source.table = 'x', primary_key = 'id') FORMAT UPSERT ENCODE JSON""")

    # A ksqlDB stream over the topic sees the envelope's fields.
    client.ksql("""CREATE STREAM order_events (before STRUCT<id INT, customer VARCHAR, amount INT>,
                   after STRUCT<id INT, customer VARCHAR, amount INT>, op VARCHAR) WITH (KAFKA_TOPIC='shop.public.orders', VALUE_FORMAT='JSON');""",
                stream_properties=EARLIEST)
    wait_until(lambda: sorted(row[0] for row in pulled(client, "SELECT op FROM order_events WHERE op <> 'd';")) == ["c", "c", "c", "c", "u"],
               60, "the stream's events")

    listed = client.ksql("SHOW CONNECTORS;")[0]
    assert listed["@type"] == "connector_list"
    assert {"name": "PG_ORDERS", "type": "SOURCE", "className": DEBEZIUM, "state": "RUNNING"} in listed["connectors"]
    # The connector's parts are not ksqlDB streams, tables or queries.
    assert not any("KSQL_CONNECTOR" in s["name"] for s in client.ksql("SHOW STREAMS;")[0]["streams"])
    assert not any("KSQL_CONNECTOR" in q["id"] for q in client.ksql("SHOW QUERIES;")[0]["queries"])
    description = client.ksql('DESCRIBE CONNECTOR "PG_ORDERS";')[0]
    assert description["@type"] == "connector_description" and description["connectorClass"] == DEBEZIUM
    assert description["topics"] == ["shop.public.orders"]
    assert description["status"]["connector"]["state"] == "RUNNING"
    # The ksqlDB stream and the Sluice table over the topic.
    assert {source["name"] for source in description["sources"]} == {"ORDER_EVENTS", "ORDERS_MIRROR"}

    # Made again: IF NOT EXISTS answers a warning, without it ksqlDB's statement error.
    again = debezium_connector("pg_orders", upstream, "shop", "public.orders", slot__name="dbz_orders")
    assert client.ksql(again.replace("CONNECTOR pg_orders", "CONNECTOR IF NOT EXISTS pg_orders"))[0]["@type"] == "warning_entity"
    assert "already exists" in _refused(server, again)["message"]
    assert [c["name"] for c in client.ksql("LIST SOURCE CONNECTORS;")[0]["connectors"]] == ["PG_ORDERS"]

    client.ksql("DROP STREAM order_events;")
    dropped = client.ksql("DROP CONNECTOR pg_orders;")[0]
    assert dropped["@type"] == "drop_connector" and dropped["connectorName"] == "PG_ORDERS"
    assert "PG_ORDERS" not in {c["name"] for c in client.ksql("SHOW CONNECTORS;")[0]["connectors"]}
    with pytest.raises(KSQLError) as gone:
        client.ksql("DESCRIBE CONNECTOR pg_orders;")
    assert gone.value.error_code == 40001
    with connect(server) as conn:
        assert conn.execute("SELECT count(*) FROM sluice_sources WHERE name LIKE 'ksql_connector__pg_orders%'").fetchone() == (0,)


def test_jdbc_sink_connector_writes_ksqldb_topics_into_postgres(server: SluiceServer, client: ksql.KSQLAPI, upstream: PostgresServer):
    with _pg(upstream) as pg:
        pg.execute("CREATE TABLE big_hits (player text, runs int)")
        pg.execute("CREATE TABLE team_totals (team text PRIMARY KEY, total bigint)")
        pg.execute("CREATE TABLE team_totals_by_key (team text PRIMARY KEY, total bigint)")
        pg.execute("CREATE TABLE wrapped (player text, runs int)")
    client.ksql("""CREATE STREAM deliveries (player VARCHAR, team VARCHAR, runs INT) WITH (KAFKA_TOPIC='deliveries', VALUE_FORMAT='JSON', PARTITIONS=1);
                   CREATE STREAM hits WITH (KAFKA_TOPIC='big_hits') AS SELECT player, runs FROM deliveries WHERE runs >= 4;
                   CREATE TABLE totals AS SELECT team, SUM(runs) AS total FROM deliveries GROUP BY team;""", stream_properties=EARLIEST)
    hits = client.ksql(jdbc_sink("hits_pg", upstream, "big_hits", table__name__format="${topic}", insert__mode="insert", auto__create="true"))[0]
    assert hits["@type"] == "connector_info" and hits["info"]["type"] == "sink"
    assert any("auto.create" in warning["message"] for warning in hits["warnings"])
    client.ksql(jdbc_sink("totals_pg", upstream, "TOTALS", table__name__format="team_totals", insert__mode="upsert", pk__mode="record_value",
                          pk__fields="team"))
    # record_key without pk.fields: the key of the ksqlDB table over the topic.
    client.ksql(jdbc_sink("totals_by_key_pg", upstream, "TOTALS", table__name__format="team_totals_by_key", insert__mode="upsert",
                          pk__mode="record_key"))
    # Kafka Connect's {schema, payload} values (value.converter.schemas.enable=true), columns
    # from the ksqlDB stream declared over the topic.
    client.ksql("CREATE STREAM wrapped_deliveries (player VARCHAR, runs INT) WITH (KAFKA_TOPIC='wrapped_deliveries', VALUE_FORMAT='JSON', PARTITIONS=1);")
    client.ksql(jdbc_sink("wrapped_pg", upstream, "wrapped_deliveries", table__name__format="wrapped").replace(
        "'value.converter.schemas.enable' = 'false'", "'value.converter.schemas.enable' = 'true'"))
    deliveries = [("Kohli", "India", 4), ("Root", "England", 1), ("Rohit", "India", 6), ("Stokes", "England", 4), ("Gill", "India", 0),
                  ("Root", "England", 6)]
    producer = KafkaProducer(bootstrap_servers=server.kafka_bootstrap)
    for player, team, runs in deliveries:
        producer.send("deliveries", json.dumps({"player": player, "team": team, "runs": runs}).encode())
        producer.send("wrapped_deliveries", json.dumps({
            "schema": {"type": "struct", "optional": False, "fields": [{"field": "player", "type": "string", "optional": True},
                                                                        {"field": "runs", "type": "int32", "optional": True}]},
            "payload": {"player": player, "runs": runs}}).encode())
    producer.flush()
    producer.close()

    expected_hits = sorted((player, runs) for player, _, runs in deliveries if runs >= 4)
    totals: dict[str, int] = {}
    for _, team, runs in deliveries:
        totals[team] = totals.get(team, 0) + runs

    def written():
        with _pg(upstream) as pg:
            got_hits = sorted(pg.execute("SELECT player, runs FROM big_hits").fetchall())
            got_totals = dict(pg.execute("SELECT team, total FROM team_totals").fetchall())
            by_key = dict(pg.execute("SELECT team, total FROM team_totals_by_key").fetchall())
            wrapped = sorted(pg.execute("SELECT player, runs FROM wrapped").fetchall())
        expected_wrapped = sorted((player, runs) for player, _, runs in deliveries)
        if got_hits == expected_hits and got_totals == totals and by_key == totals and wrapped == expected_wrapped:
            return got_hits
        return None

    wait_until(written, 90, "PostgreSQL to hold the topics' rows")
    listed = {c["name"]: c for c in client.ksql("SHOW SINK CONNECTORS;")[0]["connectors"]}
    assert listed["HITS_PG"]["className"] == JDBC_SINK and listed["HITS_PG"]["type"] == "SINK"
    assert set(listed) >= {"HITS_PG", "TOTALS_PG"}
    assert all(c["type"] == "SOURCE" for c in client.ksql("SHOW SOURCE CONNECTORS;")[0]["connectors"])
    description = client.ksql("DESCRIBE CONNECTOR totals_pg;")[0]
    assert description["topics"] == ["TOTALS"] and [source["name"] for source in description["sources"]] == ["TOTALS"]
    for name in ("hits_pg", "totals_pg", "totals_by_key_pg", "wrapped_pg"):
        assert client.ksql(f"DROP CONNECTOR {name};")[0]["@type"] == "drop_connector"

    # A sink whose PostgreSQL table goes away: its task shows FAILED, with why.
    with _pg(upstream) as pg:
        pg.execute("CREATE TABLE doomed (player text, runs int)")
    client.ksql(jdbc_sink("doomed_pg", upstream, "big_hits", table__name__format="doomed"))
    assert client.ksql("DESCRIBE CONNECTOR doomed_pg;")[0]["status"]["tasks"][0]["state"] == "RUNNING"
    with _pg(upstream) as pg:
        wait_until(lambda: sorted(pg.execute("SELECT player, runs FROM doomed").fetchall()) == expected_hits, 60, "the doomed table's rows")
        pg.execute("DROP TABLE doomed")
    producer = KafkaProducer(bootstrap_servers=server.kafka_bootstrap)
    producer.send("deliveries", json.dumps({"player": "Bumrah", "team": "India", "runs": 6}).encode())
    producer.flush()
    producer.close()

    def failed():
        task = client.ksql("DESCRIBE CONNECTOR doomed_pg;")[0]["status"]["tasks"][0]
        return task if task["state"] == "FAILED" else None

    assert "doomed" in wait_until(failed, 60, "the sink's task to fail")["trace"]
    assert {c["name"]: c["state"] for c in client.ksql("SHOW CONNECTORS;")[0]["connectors"]}["DOOMED_PG"] == "FAILED"
    client.ksql("DROP CONNECTOR doomed_pg;")


def test_jdbc_sink_connector_deletes_rows_on_tombstones(server: SluiceServer, client: ksql.KSQLAPI, upstream: PostgresServer):
    """delete.enabled with pk.mode=record_key: a message with the key and a null value deletes
    the row in PostgreSQL, as Confluent's JDBC sink does."""
    with _pg(upstream) as pg:
        pg.execute("CREATE TABLE captains (team text PRIMARY KEY, captain text)")
    client.ksql("CREATE TABLE captains (team VARCHAR PRIMARY KEY, captain VARCHAR) WITH (KAFKA_TOPIC='captains', VALUE_FORMAT='JSON', PARTITIONS=1);")
    answer = client.ksql(jdbc_sink("captains_pg", upstream, "captains", insert__mode="upsert", pk__mode="record_key", delete__enabled="true"))
    assert answer[0]["warnings"] == []
    producer = KafkaProducer(bootstrap_servers=server.kafka_bootstrap)
    changes = [("India", "Rohit"), ("England", "Buttler"), ("India", "Suryakumar"), ("Australia", "Marsh"), ("England", None)]
    for team, captain in changes:
        value = None if captain is None else json.dumps({"team": team, "captain": captain}).encode()
        producer.send("captains", key=json.dumps({"team": team}).encode(), value=value)
    producer.flush()
    producer.close()
    expected = {"India": "Suryakumar", "Australia": "Marsh"}

    def written():
        with _pg(upstream) as pg:
            rows = dict(pg.execute("SELECT team, captain FROM captains").fetchall())
        return rows if rows == expected else None

    wait_until(written, 60, "PostgreSQL to hold the latest captains, England deleted")
    client.ksql("DROP CONNECTOR captains_pg;")


def _refused(server: SluiceServer, statement: str) -> dict:
    response = httpx.post(f"{server.ksql_url}/ksql", json={"ksql": statement, "streamsProperties": {}}, timeout=60)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["@type"] == "statement_error" and body["error_code"] == 40001, body
    return body


def test_refused_classes_and_properties_answer_in_ksqldb_shape(server: SluiceServer, client: ksql.KSQLAPI, upstream: PostgresServer):
    mongo = _refused(server, "CREATE SOURCE CONNECTOR m WITH ('connector.class' = 'com.mongodb.kafka.connect.MongoSourceConnector', 'connection.uri' = 'mongodb://x');")
    assert "no MongoDB connector" in mongo["message"]
    assert "MongoDB" in _refused(server, "CREATE SINK CONNECTOR m WITH ('connector.class' = 'com.mongodb.kafka.connect.MongoSinkConnector');")["message"]
    jdbc_source = _refused(server, "CREATE SOURCE CONNECTOR j WITH ('connector.class' = 'io.confluent.connect.jdbc.JdbcSourceConnector', 'connection.url' = 'jdbc:postgresql://h/d');")
    assert "JDBC source" in jdbc_source["message"] and DEBEZIUM in jdbc_source["message"]
    assert "not supported" in _refused(server, "CREATE SOURCE CONNECTOR x WITH ('connector.class' = 'com.acme.FileStreamSource');")["message"]
    assert "SOURCE CONNECTOR" in _refused(server, f"CREATE SINK CONNECTOR x WITH ('connector.class' = '{DEBEZIUM}');")["message"]
    assert "connector.class" in _refused(server, "CREATE SOURCE CONNECTOR x WITH ('topics' = 'a');")["message"]
    # Debezium's properties that change meaning.
    base = debezium_connector("bad", upstream, "bad", "public.orders")
    assert "table.include.list" in _refused(server, base.replace("'table.include.list' = 'public.orders',", ""))["message"]
    assert "pattern" in _refused(server, base.replace("'public.orders'", "'public.order.*'"))["message"]
    assert "snapshot.mode" in _refused(server, debezium_connector("bad", upstream, "bad", "public.orders", snapshot__mode="always"))["message"]
    assert "plugin.name" in _refused(server, base.replace("'pgoutput'", "'decoderbufs'"))["message"]
    assert "transforms" in _refused(server, debezium_connector("bad", upstream, "bad", "public.orders", transforms="unwrap"))["message"]
    assert "value.converter" in _refused(server, base.replace(JSON_CONVERTER, "io.confluent.connect.avro.AvroConverter"))["message"]
    # The JDBC sink's.
    client.ksql("CREATE STREAM sink_input (a INT) WITH (KAFKA_TOPIC='sink_input', VALUE_FORMAT='JSON', PARTITIONS=1);")
    assert "topics.regex" in _refused(server, jdbc_sink("bad", upstream, "sink_input", topics__regex="sink_.*"))["message"]
    assert "KAFKA_TOPIC='no_stream_here'" in _refused(server, jdbc_sink("bad", upstream, "no_stream_here"))["message"]
    assert "pk.mode" in _refused(server, jdbc_sink("bad", upstream, "sink_input", insert__mode="upsert"))["message"]
    with_schemas = jdbc_sink("bad", upstream, "sink_input", insert__mode="upsert", pk__mode="record_key", pk__fields="a", delete__enabled="true")
    assert "schemas.enable" in _refused(server, with_schemas.replace("'value.converter.schemas.enable' = 'false'",
                                                                     "'value.converter.schemas.enable' = 'true'"))["message"]
    assert "insert.mode" in _refused(server, jdbc_sink("bad", upstream, "sink_input", insert__mode="update"))["message"]
    # A PostgreSQL table that is not there: refused by the sink, and nothing is left behind.
    missing = _refused(server, jdbc_sink("bad", upstream, "sink_input", table__name__format="no_such_table"))
    assert "no_such_table" in missing["message"]
    assert "BAD" not in {c["name"] for c in client.ksql("SHOW CONNECTORS;")[0]["connectors"]}
    with connect(server) as conn:
        assert conn.execute("SELECT count(*) FROM sluice_sources WHERE name LIKE 'ksql_connector__bad%'").fetchone() == (0,)
    assert "does not exist" in _refused(server, "DROP CONNECTOR never_made;")["message"]
    assert client.ksql("DROP CONNECTOR IF EXISTS never_made;")[0]["@type"] == "warning_entity"
    assert httpx.get(f"{server.ksql_url}/healthcheck").json()["isHealthy"] is True


def test_connectors_survive_a_restart(tmp_path, upstream: PostgresServer):
    with _pg(upstream) as pg:
        pg.execute("CREATE TABLE kept (id int PRIMARY KEY, label text)")
        pg.execute("INSERT INTO kept VALUES (1, 'before the restart')")
    data_dir = tmp_path / "data"
    kafka = free_port()
    with SluiceServer(data_dir=data_dir, kafka_port=kafka) as first:
        client = ksql.KSQLAPI(first.ksql_url)
        client.ksql(debezium_connector("kept_cdc", upstream, "keep", "public.kept", slot__name="dbz_kept"))
        reader = TopicReader(first.kafka_bootstrap, "keep.public.kept")
        reader.until(lambda messages: len(messages) >= 1, "the snapshot's event")
        reader.close()
        first.kill()
    with SluiceServer(data_dir=data_dir, kafka_port=kafka) as second:
        client = ksql.KSQLAPI(second.ksql_url)
        assert [c["name"] for c in client.ksql("SHOW CONNECTORS;")[0]["connectors"]] == ["KEPT_CDC"]
        with _pg(upstream) as pg:
            pg.execute("INSERT INTO kept VALUES (2, 'after the restart')")
        reader = TopicReader(second.kafka_bootstrap, "keep.public.kept")
        messages = reader.until(lambda messages: 2 in apply_events(messages), "the event of a row written after the restart")
        assert apply_events(messages) == {1: {"id": 1, "label": "before the restart"}, 2: {"id": 2, "label": "after the restart"}}
        reader.close()
        client.ksql("DROP CONNECTOR kept_cdc;")


def test_json_records(server: SluiceServer, client: ksql.KSQLAPI):
    documents = [{"a": "x y", "b": {"c": [1, 2]}, "n": None}, {"z": 1.5, "t": True}]
    client.ksql("CREATE STREAM raw_docs (doc VARCHAR) WITH (KAFKA_TOPIC='raw_docs', VALUE_FORMAT='JSON', PARTITIONS=1);", stream_properties=EARLIEST)
    producer = KafkaProducer(bootstrap_servers=server.kafka_bootstrap)
    for document in documents + ["not json"]:
        producer.send("raw_docs", json.dumps({"doc": json.dumps(document) if isinstance(document, dict) else document}).encode())
    producer.flush()
    producer.close()
    # Each value is the member's JSON text, compact, as ksqlDB's map values are.
    expected = sorted([json.dumps({key: json.dumps(value, separators=(",", ":")) for key, value in document.items()}, sort_keys=True)
                       for document in documents] + ["null"])

    def records():
        rows = pulled(client, "SELECT JSON_RECORDS(doc) AS records FROM raw_docs;")
        got = sorted("null" if row[0] is None else json.dumps(json.loads(row[0]) if isinstance(row[0], str) else row[0], sort_keys=True) for row in rows)
        return got if got == expected else None

    wait_until(records, 60, "JSON_RECORDS of every document")
    with connect(server) as conn:
        assert conn.execute("""SELECT json_records('{"k": "v", "o": {"p" : 1}}')""").fetchone() == ({"k": '"v"', "o": '{"p":1}'},)
        assert conn.execute("""SELECT json_records('{"k": "v"}') ->> 'k', json_records('[1]')""").fetchone() == ('"v"', None)
