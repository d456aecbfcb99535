"""Debezium's MongoDB change events read into a table (`CREATE TABLE t (_id … PRIMARY KEY,
payload jsonb) WITH (connector = 'kafka', …) FORMAT DEBEZIUM_MONGO ENCODE JSON`), as the
connector writes them: each document a JSON string of extended JSON, with and without Kafka
Connect's schema wrapper, ObjectId, string and numeric ids, message keys `{"id": "<id>"}`,
deletes followed by tombstones, and Debezium 1.x's `filter`. Creates, reads and updates upsert
the document by `_id`; deletes remove it; repeated events change nothing; what cannot be applied
is counted in `sluice_source_errors` and the table goes on. The oracle is the documents worked
out here, event by event."""

from __future__ import annotations

import json

import pytest
from kafka import KafkaProducer

from harness import SluiceServer
from source_support import connect, wait_until


@pytest.fixture(scope="module")
def server():
    with SluiceServer(extra_args=["--barrier-interval-ms", "100"]) as server:
        yield server


def _oid(n: int) -> str:
    return f"65bc9fb6c485f419{n:08x}"


def _event(op: str, after: dict | None, *, wrapped: bool, extra: dict | None = None) -> bytes:
    """A Debezium MongoDB change event: `after` is a JSON string, as the connector writes it."""
    payload = {"before": None, "after": json.dumps(after) if after is not None else None, "updateDescription": None,
               "source": {"version": "2.5.0.Final", "connector": "mongodb", "name": "atlas", "db": "cricket",
                          "collection": "t20", "rs": "rs0", "ord": 1, "ts_ms": 1700000000000},
               "op": op, "ts_ms": 1700000000123, "transaction": None}
    payload.update(extra or {})
    if wrapped:
        schema = {"type": "struct", "name": "atlas.cricket.t20.Envelope", "optional": False,
                  "fields": [{"type": "string", "optional": True, "name": "io.debezium.data.Json", "field": "after"}]}
        return json.dumps({"schema": schema, "payload": payload}).encode()
    return json.dumps(payload).encode()


def _key(document_id, wrapped: bool) -> bytes:
    """Debezium's message key: the id's extended JSON, as a string."""
    key = {"id": json.dumps(document_id)}
    return json.dumps({"schema": {"type": "struct", "fields": []}, "payload": key} if wrapped else key).encode()


def test_debezium_mongo_events_upsert_and_delete_documents_by_id(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    oracle: dict[str, dict] = {}

    def upsert(op: str, n: int, runs: int, wrapped: bool) -> None:
        document = {"_id": {"$oid": _oid(n)}, "team": f"team {n}", "runs": runs, "players": [f"p{n}a", f"p{n}b"],
                    "played": {"$date": 1700000000000 + n}}
        producer.send("atlas.cricket.t20", key=_key({"$oid": _oid(n)}, wrapped), value=_event(op, document, wrapped=wrapped))
        oracle[_oid(n)] = document

    def delete(n: int, wrapped: bool) -> None:
        producer.send("atlas.cricket.t20", key=_key({"$oid": _oid(n)}, wrapped), value=_event("d", None, wrapped=wrapped))
        producer.send("atlas.cricket.t20", key=_key({"$oid": _oid(n)}, wrapped), value=None)  # the tombstone
        oracle.pop(_oid(n), None)

    for n in range(1, 31):
        upsert("r" if n <= 10 else "c", n, n * 3, wrapped=n % 2 == 0)
    for n in range(1, 31, 4):
        upsert("u", n, n * 3 + 100, wrapped=n % 3 == 0)
    for n in range(2, 31, 7):
        delete(n, wrapped=n % 2 == 0)
    # Debezium 1.x names a deleted document by its filter.
    producer.send("atlas.cricket.t20", value=_event("d", None, wrapped=False, extra={"filter": json.dumps({"_id": {"$oid": _oid(5)}})}))
    oracle.pop(_oid(5))
    # The upstream repeats events (a restarted connector): nothing changes.
    for _ in range(2):
        upsert("u", 13, 777, wrapped=True)
        delete(16, wrapped=False)
    # What cannot be applied is rejected, counted, and the table goes on.
    bad = [
        b"not json",
        json.dumps({"op": "c", "after": json.dumps({"team": "no id"})}).encode(),
        json.dumps({"op": "u", "after": None, "patch": json.dumps({"$set": {"runs": 1}})}).encode(),
        json.dumps({"op": "c", "after": "{\"_id\": 1, "}).encode(),
        json.dumps({"op": "c", "after": json.dumps({"_id": 17})}).encode(),  # a number where the column is varchar
        json.dumps({"op": "m", "after": None}).encode(),
    ]
    for value in bad:
        producer.send("atlas.cricket.t20", value=value)
    upsert("c", 40, 1, wrapped=False)
    producer.flush()
    producer.close()

    with connect(server) as conn:
        conn.execute(f"""CREATE TABLE t20 (_id varchar PRIMARY KEY, payload jsonb) WITH (connector = 'kafka',
            topic = 'atlas.cricket.t20', properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'earliest')
            FORMAT DEBEZIUM_MONGO ENCODE JSON""")

        def caught_up():
            rows = conn.execute("SELECT _id, payload FROM t20 ORDER BY _id").fetchall()
            return rows if rows == [(key, oracle[key]) for key in sorted(oracle)] else None
        wait_until(caught_up, 30, "the table to hold the documents the events leave")
        # The document's fields, as a view over it reads them.
        totals = conn.execute("SELECT sum((payload->>'runs')::int), count(*) FILTER (WHERE payload->'players'->>1 LIKE 'p%b') FROM t20").fetchone()
        assert totals == (sum(d["runs"] for d in oracle.values()), len(oracle))
        errors = [e for (e,) in conn.execute("SELECT error FROM sluice_source_errors WHERE source_name = 't20'").fetchall()]
        assert len(errors) == len(bad), errors
        assert any("not a Debezium MongoDB event" in e for e in errors)
        assert any("no \"_id\"" in e for e in errors)
        assert any("patch" in e for e in errors)
        assert any('op "m" is not applied' in e for e in errors)
        conn.execute("DROP TABLE t20")


@pytest.mark.parametrize("id_type", ["bigint", "int", "jsonb"])
def test_numeric_and_jsonb_ids(server: SluiceServer, id_type: str) -> None:
    """Numeric ids, canonical (`{"$numberLong": "…"}`) or relaxed (a number), into integer and
    jsonb `_id` columns; deletes by the message key alone."""
    bootstrap = server.kafka_bootstrap
    topic = f"atlas.cricket.odi_{id_type}"
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    oracle: dict[int, dict] = {}
    for n in range(1, 21):
        document_id = {"$numberLong": str(n)} if n % 2 else n
        document = {"_id": document_id, "venue": f"ground {n % 4}", "overs": 50}
        producer.send(topic, key=_key(document_id, n % 3 == 0), value=_event("c", document, wrapped=n % 3 == 0))
        oracle[n] = document
    for n in (3, 4, 9):
        document_id = {"$numberLong": str(n)} if n % 2 else n
        producer.send(topic, key=_key(document_id, n % 2 == 0), value=_event("d", None, wrapped=n % 2 == 0))
        oracle.pop(n)
    producer.flush()
    producer.close()

    def expected_id(n: int):
        return oracle[n]["_id"] if id_type == "jsonb" else n

    with connect(server) as conn:
        conn.execute(f"""CREATE TABLE odi_{id_type} (_id {id_type} PRIMARY KEY, payload jsonb) WITH (connector = 'kafka',
            topic = '{topic}', properties.bootstrap.server = '{bootstrap}') FORMAT DEBEZIUM_MONGO ENCODE JSON""")
        if id_type == "jsonb":
            query = f"SELECT _id, payload FROM odi_{id_type} ORDER BY (payload->>'venue'), payload::varchar"
            want = sorted(((expected_id(n), oracle[n]) for n in oracle), key=lambda row: (row[1]["venue"], json.dumps(row[1])))
            got = lambda: sorted(conn.execute(query).fetchall(), key=lambda row: (row[1]["venue"], json.dumps(row[1])))
        else:
            query = f"SELECT _id, payload FROM odi_{id_type} ORDER BY _id"
            want = [(expected_id(n), oracle[n]) for n in sorted(oracle)]
            got = lambda: conn.execute(query).fetchall()
        wait_until(lambda: got() == want, 30, f"the {id_type} ids to match the events")
        conn.execute(f"DROP TABLE odi_{id_type}")


def test_tables_debezium_mongo_refuses(server: SluiceServer) -> None:
    """The shapes RisingWave refuses: a source, a column besides `_id` and `payload`, an id of
    another type, an `_id` that is not the key."""
    bootstrap = server.kafka_bootstrap
    with_clause = f"WITH (connector = 'kafka', topic = 'x', properties.bootstrap.server = '{bootstrap}') FORMAT DEBEZIUM_MONGO ENCODE JSON"
    with connect(server) as conn:
        for statement in [
            f"CREATE SOURCE s (_id varchar, payload jsonb) {with_clause}",
            f"CREATE TABLE t (_id varchar PRIMARY KEY, payload jsonb, team varchar) {with_clause}",
            f"CREATE TABLE t (_id double precision PRIMARY KEY, payload jsonb) {with_clause}",
            f"CREATE TABLE t (_id varchar, payload jsonb PRIMARY KEY) {with_clause}",
        ]:
            with pytest.raises(Exception, match="DEBEZIUM_MONGO"):
                conn.execute(statement)
