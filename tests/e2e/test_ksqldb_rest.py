"""ksqlDB's REST API on Sluice (`sluice serve --ksql-listen`), driven by ksqlDB's Python client
`ksql-python-ng` as seed 003 drives ksqlDB: an init stream over a topic of MongoDB change events
whose value carries the document as a JSON `payload` string, three `CREATE STREAM … AS SELECT
EXTRACTJSONFIELD(…)` streams splitting it into match metadata, players and innings topics,
SHOW/DESCRIBE, push and pull queries, `/query-stream` and `/close-query` over HTTP/1.1, and
ksqlDB's error bodies.

The oracle is the events the test produces: every expected output row is worked out here from
the generated documents, with Python's own JSON and path walking, never from Sluice's output."""

from __future__ import annotations

import json
import random
import threading
import time

import httpx
import ksql
import pytest
from kafka import KafkaConsumer, KafkaProducer
from ksql.errors import KSQLError

from harness import SluiceServer, free_port
from source_support import wait_until

EARLIEST = {"ksql.streams.auto.offset.reset": "earliest"}
CITIES = ["Mumbai", "Melbourne", "London", "Cape Town", "Wellington", "Lahore", "Colombo"]
TEAMS = ["India", "Australia", "England", "South Africa", "New Zealand", "Pakistan", "Sri Lanka"]


@pytest.fixture(scope="module")
def server():
    with SluiceServer() as running:
        yield running


@pytest.fixture(scope="module")
def client(server: SluiceServer) -> ksql.KSQLAPI:
    # The constructor reads GET /info (KsqlServerInfo's version).
    return ksql.KSQLAPI(server.ksql_url)


def match_document(rng: random.Random, match_id: str) -> dict:
    """A T20 match as the MongoDB document the seed's application server inserts."""
    home, away = rng.sample(TEAMS, 2)
    innings = [{"team": team, "runs": rng.randint(80, 240), "wickets": rng.randint(0, 10)} for team in (home, away)]
    return {
        "_id": {"$oid": f"{rng.getrandbits(96):024x}"}, "match_id": match_id,
        "info": {"city": rng.choice(CITIES), "dates": [f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"], "teams": [home, away],
                 "players": {home: [f"{home[:3]}{k}" for k in range(3)], away: [f"{away[:3]}{k}" for k in range(3)]},
                 "outcome": {"winner": rng.choice([home, away])}},
        "innings": innings,
    }


def change_event(document: dict) -> bytes:
    """The value the MongoDB connector writes (JsonConverter with schemas): the full document as
    a JSON string in `payload`."""
    return json.dumps({"schema": {"type": "string", "optional": False}, "payload": json.dumps(document)}).encode()


def produce(bootstrap: str, topic: str, values: list[bytes]) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for value in values:
        producer.send(topic, value)
    producer.flush()
    producer.close()


def read_topic(bootstrap: str, topic: str, expected: int) -> list[dict]:
    """The JSON values on `topic`, read_committed from the start, once `expected` of them came."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest", isolation_level="read_committed",
                             enable_auto_commit=False, group_id=None, consumer_timeout_ms=200)
    consumer.subscribe([topic])
    values: list[dict] = []

    def enough():
        for message in consumer:
            values.append(json.loads(message.value))
        return len(values) >= expected

    try:
        wait_until(enough, 60, f"{expected} messages on {topic}")
    finally:
        consumer.close()
    return values


def lowered(row: dict) -> dict:
    return {key.lower(): value for key, value in row.items()}


def test_seed_003_streams_split_a_mongo_topic(server: SluiceServer, client: ksql.KSQLAPI):
    rng = random.Random(3)
    topic = "atlas.cricket.t20_matches"
    documents = [match_document(rng, f"t20-{n:03d}") for n in range(1, 21)]
    produce(server.kafka_bootstrap, topic, [change_event(document) for document in documents])

    created = client.ksql(
        f"CREATE STREAM t20_init (payload VARCHAR) WITH (KAFKA_TOPIC='{topic}', VALUE_FORMAT='JSON');", stream_properties=EARLIEST)
    assert created[0]["@type"] == "currentStatus"
    assert created[0]["commandStatus"]["status"] == "SUCCESS"
    # Three streams in one request, as the seed's transform script sends them.
    answers = client.ksql("""
        CREATE STREAM match_metadata WITH (KAFKA_TOPIC='t20_match_metadata', VALUE_FORMAT='JSON') AS
            SELECT EXTRACTJSONFIELD(payload, '$.match_id') AS match_id, EXTRACTJSONFIELD(payload, '$.info.city') AS city,
                   EXTRACTJSONFIELD(payload, '$.info.dates[0]') AS match_date, EXTRACTJSONFIELD(payload, '$.info.outcome.winner') AS winner
            FROM t20_init EMIT CHANGES;
        CREATE STREAM players AS
            SELECT EXTRACTJSONFIELD(payload, '$.match_id') AS match_id, EXTRACTJSONFIELD(payload, '$.info.teams[0]') AS home,
                   EXTRACTJSONFIELD(payload, '$.info.players') AS squads
            FROM t20_init EMIT CHANGES;
        CREATE STREAM innings AS
            SELECT EXTRACTJSONFIELD(payload, '$.match_id') AS match_id, EXTRACTJSONFIELD(payload, '$.innings[0].team') AS batting_first,
                   CAST(EXTRACTJSONFIELD(payload, '$.innings[0].runs') AS INT) AS first_runs,
                   CAST(EXTRACTJSONFIELD(payload, '$.innings[1].runs') AS INT) AS second_runs
            FROM t20_init;
    """, stream_properties=EARLIEST)
    assert [answer["commandStatus"]["queryId"] for answer in answers] == ["CSAS_MATCH_METADATA", "CSAS_PLAYERS", "CSAS_INNINGS"]

    # The oracle, from the documents themselves.
    metadata = sorted(({"match_id": d["match_id"], "city": d["info"]["city"], "match_date": d["info"]["dates"][0],
                        "winner": d["info"]["outcome"]["winner"]} for d in documents), key=lambda r: r["match_id"])
    players = sorted(({"match_id": d["match_id"], "home": d["info"]["teams"][0], "squads": d["info"]["players"]} for d in documents),
                     key=lambda r: r["match_id"])
    innings = sorted(({"match_id": d["match_id"], "batting_first": d["innings"][0]["team"], "first_runs": d["innings"][0]["runs"],
                       "second_runs": d["innings"][1]["runs"]} for d in documents), key=lambda r: r["match_id"])

    # ksqlDB names a stream's topic after it, upper-cased, unless KAFKA_TOPIC says otherwise, and
    # the fields of its values after the columns, upper-cased.
    raw_metadata = read_topic(server.kafka_bootstrap, "t20_match_metadata", len(documents))
    assert all(set(v) == {"MATCH_ID", "CITY", "MATCH_DATE", "WINNER"} for v in raw_metadata)
    got_metadata = sorted((lowered(v) for v in raw_metadata), key=lambda r: r["match_id"])
    assert got_metadata == metadata
    got_players = sorted((lowered(v) for v in read_topic(server.kafka_bootstrap, "PLAYERS", len(documents))), key=lambda r: r["match_id"])
    # The squads object comes out as JSON text, as EXTRACTJSONFIELD returns objects.
    assert [dict(r, squads=json.loads(r["squads"])) for r in got_players] == players
    got_innings = sorted((lowered(v) for v in read_topic(server.kafka_bootstrap, "INNINGS", len(documents))), key=lambda r: r["match_id"])
    assert got_innings == innings

    streams = client.ksql("SHOW STREAMS;")[0]
    assert streams["@type"] == "streams"
    listed = {s["name"]: s for s in streams["streams"]}
    assert {"T20_INIT", "MATCH_METADATA", "PLAYERS", "INNINGS"} <= set(listed)
    assert listed["T20_INIT"]["topic"] == topic and listed["T20_INIT"]["type"] == "STREAM"
    assert listed["MATCH_METADATA"]["topic"] == "t20_match_metadata"
    assert listed["PLAYERS"]["topic"] == "PLAYERS" and listed["PLAYERS"]["valueFormat"] == "JSON"

    queries = {q["id"]: q for q in client.ksql("SHOW QUERIES;")[0]["queries"]}
    assert {"CSAS_MATCH_METADATA", "CSAS_PLAYERS", "CSAS_INNINGS"} <= set(queries)
    assert queries["CSAS_INNINGS"]["sinkKafkaTopics"] == ["INNINGS"]
    assert queries["CSAS_INNINGS"]["sinks"] == ["INNINGS"]
    assert queries["CSAS_INNINGS"]["queryString"].startswith("CREATE STREAM innings AS SELECT")

    description = client.ksql("DESCRIBE innings;")[0]
    assert description["@type"] == "sourceDescription"
    source = description["sourceDescription"]
    assert source["name"] == "INNINGS" and source["type"] == "STREAM" and source["topic"] == "INNINGS"
    assert [(f["name"], f["schema"]["type"]) for f in source["fields"]] == [
        ("MATCH_ID", "STRING"), ("BATTING_FIRST", "STRING"), ("FIRST_RUNS", "INTEGER"), ("SECOND_RUNS", "INTEGER")]
    assert [q["id"] for q in source["writeQueries"]] == ["CSAS_INNINGS"]
    assert {q["id"] for q in client.ksql("DESCRIBE t20_init;")[0]["sourceDescription"]["readQueries"]} >= {"CSAS_MATCH_METADATA", "CSAS_INNINGS"}

    # A pull query over /query: ksqlDB's header, then one row object per row.
    text = "".join(client.query("SELECT match_id, city, winner FROM match_metadata;"))
    answer = json.loads(text)
    assert answer[0]["header"]["schema"] == "`MATCH_ID` STRING, `CITY` STRING, `WINNER` STRING"
    rows = sorted(tuple(item["row"]["columns"]) for item in answer[1:])
    assert rows == sorted((r["match_id"], r["city"], r["winner"]) for r in metadata)

    # TERMINATE stops a query; DROP … DELETE TOPIC drops the stream and its topic.
    client.ksql("TERMINATE CSAS_INNINGS;")
    assert "CSAS_INNINGS" not in {q["id"] for q in client.ksql("SHOW QUERIES;")[0]["queries"]}
    client.ksql("DROP STREAM innings DELETE TOPIC;")
    assert "INNINGS" not in {s["name"] for s in client.ksql("SHOW STREAMS;")[0]["streams"]}
    assert "INNINGS" not in {t["name"] for t in client.ksql("SHOW TOPICS;")[0]["topics"]}
    # The init stream is still read by two queries: ksqlDB refuses to drop it.
    with pytest.raises(KSQLError) as refused:
        client.ksql("DROP STREAM t20_init;")
    assert "CSAS_MATCH_METADATA" in str(refused.value)


def test_push_query_streams_new_rows_until_closed(server: SluiceServer, client: ksql.KSQLAPI):
    topic = "push_events"
    client.ksql(f"CREATE STREAM push_events (payload VARCHAR) WITH (KAFKA_TOPIC='{topic}', VALUE_FORMAT='JSON', PARTITIONS=1);",
                stream_properties=EARLIEST)
    rng = random.Random(7)
    early = [match_document(rng, f"early-{n}") for n in range(3)]
    produce(server.kafka_bootstrap, topic, [change_event(d) for d in early])

    chunks: list[str] = []
    finished = threading.Event()

    def consume():
        try:
            for chunk in client.query("SELECT EXTRACTJSONFIELD(payload, '$.match_id') AS match_id, EXTRACTJSONFIELD(payload, '$.info.city') AS city "
                                      "FROM push_events WHERE EXTRACTJSONFIELD(payload, '$.match_id') LIKE 'late-%' EMIT CHANGES;"):
                chunks.append(chunk)
        finally:
            finished.set()

    reader = threading.Thread(target=consume, daemon=True)
    reader.start()
    # The header names the query; rows come only for events produced from now on.
    header = wait_until(lambda: "".join(chunks).partition("\n")[0] if "header" in "".join(chunks) else None, 30, "the push query's header")
    query_id = json.loads(header.lstrip("[").rstrip(","))["header"]["queryId"]
    late = [match_document(rng, f"late-{n}") for n in range(4)]
    produce(server.kafka_bootstrap, topic, [change_event(d) for d in late])

    def rows():
        found = []
        for line in "".join(chunks).split("\n"):
            line = line.strip().lstrip("[").rstrip(",").rstrip("]")
            if line.startswith('{"row"'):
                found.append(tuple(json.loads(line)["row"]["columns"]))
        return found if len(found) >= len(late) else None

    got = wait_until(rows, 60, "the late events through the push query")
    assert sorted(got) == sorted((d["match_id"], d["info"]["city"]) for d in late)
    assert query_id in {q["id"] for q in client.ksql("SHOW QUERIES;")[0]["queries"]}
    assert client.close_query(query_id) is True
    assert finished.wait(30), "the push query's stream did not end after /close-query"
    assert query_id not in {q["id"] for q in client.ksql("SHOW QUERIES;")[0]["queries"]}
    # Its temporary sink is gone too.
    assert client.close_query(query_id) is False


def test_query_stream_over_http1(server: SluiceServer, client: ksql.KSQLAPI):
    client.ksql("CREATE STREAM scores (player VARCHAR, runs INT) WITH (KAFKA_TOPIC='scores', VALUE_FORMAT='JSON', PARTITIONS=1);",
                stream_properties=EARLIEST)
    produced = [{"player": f"p{n}", "runs": n * 7 % 50} for n in range(12)]
    produce(server.kafka_bootstrap, "scores", [json.dumps(v).encode() for v in produced])
    client.ksql("CREATE STREAM big_scores AS SELECT player, runs FROM scores WHERE runs >= 20;", stream_properties=EARLIEST)
    expected = sorted((v["player"], v["runs"]) for v in produced if v["runs"] >= 20)
    wait_until(lambda: len(read_topic(server.kafka_bootstrap, "BIG_SCORES", len(expected))) >= len(expected), 60, "BIG_SCORES")

    body = {"sql": "SELECT player, runs FROM big_scores;", "properties": {}}
    delimited = httpx.post(f"{server.ksql_url}/query-stream", json=body, headers={"Accept": "application/vnd.ksqlapi.delimited.v1"}, timeout=30)
    assert delimited.status_code == 200
    assert delimited.headers["content-type"].startswith("application/vnd.ksqlapi.delimited.v1")
    # Rows stream out as the executor gives them: a chunked body, no Content-Length.
    assert delimited.headers.get("transfer-encoding") == "chunked" and "content-length" not in delimited.headers
    lines = [line for line in delimited.text.split("\n") if line.strip()]
    metadata = json.loads(lines[0])
    assert metadata["columnNames"] == ["PLAYER", "RUNS"] and metadata["columnTypes"] == ["STRING", "INTEGER"]
    assert sorted(tuple(json.loads(line)) for line in lines[1:]) == expected

    as_json = httpx.post(f"{server.ksql_url}/query-stream", json=body, headers={"Accept": "application/json"}, timeout=30)
    assert as_json.headers["content-type"].startswith("application/json")
    document = as_json.json()
    assert document[0]["columnNames"] == ["PLAYER", "RUNS"]
    assert sorted(tuple(row) for row in document[1:]) == expected


def test_query_stream_over_http2_through_the_client(server: SluiceServer, client: ksql.KSQLAPI):
    """ksql-python-ng's own HTTP/2 path (`query(…, use_http2=True)`: httpx with HTTP/2 prior
    knowledge, no HTTP/1.1): a pull query's rows, then a push query that streams rows produced
    after it started, over one HTTP/2 stream each."""
    client.ksql("CREATE STREAM h2_scores (player VARCHAR, runs INT) WITH (KAFKA_TOPIC='h2_scores', VALUE_FORMAT='JSON', PARTITIONS=1);",
                stream_properties=EARLIEST)
    produced = [{"player": f"q{n}", "runs": n * 11 % 40} for n in range(9)]
    produce(server.kafka_bootstrap, "h2_scores", [json.dumps(v).encode() for v in produced])
    client.ksql("CREATE STREAM h2_high AS SELECT player, runs FROM h2_scores WHERE runs >= 15;", stream_properties=EARLIEST)
    expected = sorted((v["player"], v["runs"]) for v in produced if v["runs"] >= 15)
    wait_until(lambda: len(read_topic(server.kafka_bootstrap, "H2_HIGH", len(expected))) >= len(expected), 60, "H2_HIGH")

    text = "".join(client.query("SELECT player, runs FROM h2_high;", use_http2=True))
    lines = [line for line in text.split("\n") if line.strip()]
    metadata = json.loads(lines[0])
    assert metadata["columnNames"] == ["PLAYER", "RUNS"]
    assert sorted(tuple(json.loads(line)) for line in lines[1:]) == expected

    chunks: list[str] = []
    finished = threading.Event()

    def consume():
        try:
            for chunk in client.query("SELECT player, runs FROM h2_scores WHERE runs > 100 EMIT CHANGES;", use_http2=True):
                chunks.append(chunk)
        finally:
            finished.set()

    reader = threading.Thread(target=consume, daemon=True)
    reader.start()
    header = wait_until(lambda: "".join(chunks).split("\n")[0] if "queryId" in "".join(chunks) else None, 30, "the push query's metadata")
    query_id = json.loads(header)["queryId"]
    late = [{"player": f"late{n}", "runs": 200 + n} for n in range(3)]
    produce(server.kafka_bootstrap, "h2_scores", [json.dumps(v).encode() for v in late])

    def rows():
        found = [tuple(json.loads(line)) for line in "".join(chunks).split("\n")[1:] if line.strip().startswith("[")]
        return found if len(found) >= len(late) else None

    assert sorted(wait_until(rows, 60, "the late rows over HTTP/2")) == sorted((v["player"], v["runs"]) for v in late)
    assert client.close_query(query_id) is True
    assert finished.wait(30), "the HTTP/2 stream did not end after /close-query"


def test_tables_keep_the_latest_row_per_key(server: SluiceServer, client: ksql.KSQLAPI):
    client.ksql("CREATE TABLE captains (team VARCHAR PRIMARY KEY, captain VARCHAR) WITH (KAFKA_TOPIC='captains', VALUE_FORMAT='JSON', PARTITIONS=1);",
                stream_properties=EARLIEST)
    updates = [("India", "Rohit"), ("England", "Buttler"), ("India", "Suryakumar"), ("Australia", "Marsh"), ("England", "Brook")]
    produce(server.kafka_bootstrap, "captains", [json.dumps({"team": t, "captain": c}).encode() for t, c in updates])
    latest = {team: captain for team, captain in updates}
    assert "CAPTAINS" in {t["name"] for t in client.ksql("SHOW TABLES;")[0]["tables"]}

    def pulled():
        answer = json.loads("".join(client.query("SELECT team, captain FROM captains;")))
        rows = {tuple(item["row"]["columns"]) for item in answer[1:]}
        return rows if rows == set(latest.items()) else None

    wait_until(pulled, 60, "the table's latest captains")
    answer = json.loads("".join(client.query("SELECT captain FROM captains WHERE team = 'India';")))
    assert [item["row"]["columns"] for item in answer[1:]] == [["Suryakumar"]]


def test_errors_in_ksqldb_shape(server: SluiceServer, client: ksql.KSQLAPI):
    with pytest.raises(KSQLError) as unknown:
        client.ksql("FROBNICATE ALL THE THINGS;")
    assert unknown.value.error_code == 40001
    with pytest.raises(KSQLError) as option:
        client.ksql("CREATE STREAM bad_options (a INT) WITH (KAFKA_TOPIC='bad_options', VALUE_FORMAT='JSON', PARTITIONS=1, BOGUS='x');")
    assert option.value.error_code == 40001
    assert "BOGUS" in str(option.value)
    with pytest.raises(KSQLError) as missing_topic:
        client.ksql("CREATE STREAM no_topic (a INT) WITH (KAFKA_TOPIC='never_created', VALUE_FORMAT='JSON');")
    assert "PARTITIONS" in str(missing_topic.value)
    with pytest.raises(KSQLError) as missing_stream:
        client.ksql("DROP STREAM no_such_stream;")
    assert missing_stream.value.error_code == 40001
    client.ksql("DROP STREAM IF EXISTS no_such_stream;")
    # A SELECT belongs to /query, as ksqlDB says.
    with pytest.raises(KSQLError) as select:
        client.ksql("SELECT * FROM no_such_stream EMIT CHANGES;")
    assert select.value.error_code == 40002

    malformed = httpx.post(f"{server.ksql_url}/ksql", content=b"{not json", headers={"Content-Type": "application/vnd.ksql.v1+json"})
    assert malformed.status_code == 400
    assert malformed.json()["@type"] == "generic_error" and malformed.json()["error_code"] == 40000
    statement = httpx.post(f"{server.ksql_url}/ksql", json={"ksql": "SHOW STREAMS; CREATE STREAM x (a INT) WITH (KAFKA_TOPIC='nope');"})
    assert statement.status_code == 400
    error = statement.json()
    assert error["@type"] == "statement_error" and error["error_code"] == 40001
    assert error["statementText"].startswith("CREATE STREAM x")
    assert error["entities"][0]["@type"] == "streams"
    bad_query = httpx.post(f"{server.ksql_url}/query-stream", json={"sql": "SELECT * FROM nothing_here;", "properties": {}})
    assert bad_query.status_code == 400 and bad_query.json()["@type"] == "statement_error"
    # The server is still there.
    assert httpx.get(f"{server.ksql_url}/healthcheck").json()["isHealthy"] is True
    assert client.get_ksql_version() == "0.29.0"


def test_a_client_that_goes_away_frees_its_push_query(server: SluiceServer, client: ksql.KSQLAPI):
    client.ksql("CREATE STREAM ticks (n INT) WITH (KAFKA_TOPIC='ticks', VALUE_FORMAT='JSON', PARTITIONS=1);", stream_properties=EARLIEST)
    before = {q["id"] for q in client.ksql("SHOW QUERIES;")[0]["queries"]}
    body = {"sql": "SELECT n FROM ticks EMIT CHANGES;", "properties": {}}
    with httpx.Client(timeout=30) as http:
        with http.stream("POST", f"{server.ksql_url}/query-stream", json=body) as response:
            assert response.status_code == 200
            lines = response.iter_lines()
            metadata = json.loads(next(lines))
            query_id = metadata["queryId"]
            assert metadata["columnNames"] == ["N"]
            assert query_id in {q["id"] for q in client.ksql("SHOW QUERIES;")[0]["queries"]}
    # The connection is closed: the server notices at its next heartbeat and drops the query.
    wait_until(lambda: {q["id"] for q in client.ksql("SHOW QUERIES;")[0]["queries"]} == before, 30, "the push query to be freed")
    # Its topic is gone from the broker too.
    consumer = KafkaConsumer(bootstrap_servers=server.kafka_bootstrap)
    try:
        wait_until(lambda: not any(name.startswith("_ksql_push") for name in consumer.topics()), 30, "the push query's topic to be deleted")
    finally:
        consumer.close()


def test_push_query_with_limit_ends_by_itself(server: SluiceServer, client: ksql.KSQLAPI):
    client.ksql("CREATE STREAM limited (n INT) WITH (KAFKA_TOPIC='limited', VALUE_FORMAT='JSON', PARTITIONS=1);", stream_properties=EARLIEST)
    produce(server.kafka_bootstrap, "limited", [json.dumps({"n": n}).encode() for n in range(10)])
    text = "".join(client.query("SELECT n FROM limited WHERE n >= 0 EMIT CHANGES LIMIT 3;", stream_properties=EARLIEST))
    answer = json.loads(text)
    assert answer[-1] == {"finalMessage": "Limit Reached"}
    rows = [item["row"]["columns"][0] for item in answer[1:-1]]
    assert len(rows) == 3 and set(rows) <= set(range(10)) and len(set(rows)) == 3


def test_structs_arrays_and_ksqldb_functions(server: SluiceServer, client: ksql.KSQLAPI):
    client.ksql("""CREATE STREAM typed_matches (match_id VARCHAR, info STRUCT<city VARCHAR, teams ARRAY<VARCHAR>>, extra VARCHAR)
                   WITH (KAFKA_TOPIC='typed_matches', VALUE_FORMAT='JSON', PARTITIONS=1);""", stream_properties=EARLIEST)
    rng = random.Random(11)
    events = []
    for n in range(8):
        teams = rng.sample(TEAMS, 2)
        events.append({"match_id": f"m{n}", "info": {"city": rng.choice(CITIES), "teams": teams},
                       "extra": json.dumps({"toss": teams[0], "umpires": 2, **({"dls": True} if n % 3 == 0 else {})})})
    produce(server.kafka_bootstrap, "typed_matches", [json.dumps(e).encode() for e in events])
    client.ksql("""CREATE STREAM typed_flat AS SELECT match_id, info->city AS city, ARRAY_CONTAINS(info->teams, 'India') AS india,
                   JSON_KEYS(extra) AS extra_keys, 'Match ' + match_id + ' at ' + info->city AS label FROM typed_matches;
                   CREATE STREAM typed_teams AS SELECT match_id, EXPLODE(info->teams) AS team FROM typed_matches;""", stream_properties=EARLIEST)
    flat = sorted((lowered(v) for v in read_topic(server.kafka_bootstrap, "TYPED_FLAT", len(events))), key=lambda r: r["match_id"])
    assert flat == [{"match_id": e["match_id"], "city": e["info"]["city"], "india": "India" in e["info"]["teams"],
                     "extra_keys": list(json.loads(e["extra"]).keys()), "label": f"Match {e['match_id']} at {e['info']['city']}"} for e in events]
    # A pull query answers STRUCT and ARRAY values as JSON, fields upper-cased as ksqlDB does.
    answer = json.loads("".join(client.query("SELECT match_id, info FROM typed_matches;")))
    assert sorted((item["row"]["columns"][0], json.dumps(item["row"]["columns"][1], sort_keys=True)) for item in answer[1:]) == sorted(
        (e["match_id"], json.dumps({"CITY": e["info"]["city"], "TEAMS": e["info"]["teams"]}, sort_keys=True)) for e in events)
    teams = sorted((v["match_id"], v["team"]) for v in map(lowered, read_topic(server.kafka_bootstrap, "TYPED_TEAMS", 2 * len(events))))
    assert teams == sorted((e["match_id"], team) for e in events for team in e["info"]["teams"])
    # `+` between two string columns concatenates, between numbers adds (the binder knows the types).
    client.ksql("""CREATE STREAM typed_sums AS SELECT match_id + extra AS joined, LENGTH(match_id) + 1 AS width FROM typed_matches;""",
                stream_properties=EARLIEST)
    sums = sorted((lowered(v) for v in read_topic(server.kafka_bootstrap, "TYPED_SUMS", len(events))), key=lambda r: r["joined"])
    assert sums == sorted(({"joined": e["match_id"] + e["extra"], "width": len(e["match_id"]) + 1} for e in events), key=lambda r: r["joined"])


def test_push_queries_start_from_their_own_offset_reset(server: SluiceServer, client: ksql.KSQLAPI):
    client.ksql("CREATE STREAM resets (n INT) WITH (KAFKA_TOPIC='resets', VALUE_FORMAT='JSON', PARTITIONS=1);", stream_properties=EARLIEST)
    produce(server.kafka_bootstrap, "resets", [json.dumps({"n": n}).encode() for n in range(5)])
    # earliest: the rows already on the topic.
    answer = json.loads("".join(client.query("SELECT n FROM resets EMIT CHANGES LIMIT 5;", stream_properties=EARLIEST)))
    assert sorted(item["row"]["columns"][0] for item in answer[1:-1]) == [0, 1, 2, 3, 4]
    # latest (ksqlDB's default): only what is produced once the query runs.
    chunks: list[str] = []
    finished = threading.Event()

    def consume():
        try:
            for chunk in client.query("SELECT n FROM resets EMIT CHANGES LIMIT 3;"):
                chunks.append(chunk)
        finally:
            finished.set()

    threading.Thread(target=consume, daemon=True).start()
    wait_until(lambda: "header" in "".join(chunks), 30, "the push query's header")
    query_id = json.loads("".join(chunks).partition("\n")[0].lstrip("[").rstrip(","))["header"]["queryId"]
    # The private source has taken its start once the query is listed; produce after that.
    wait_until(lambda: query_id in {q["id"] for q in client.ksql("SHOW QUERIES;")[0]["queries"]}, 30, "the query to run")
    produce(server.kafka_bootstrap, "resets", [json.dumps({"n": n}).encode() for n in range(100, 103)])
    assert finished.wait(60), "the LIMIT 3 push query did not end"
    answer = json.loads("".join(chunks))
    assert sorted(item["row"]["columns"][0] for item in answer[1:-1]) == [100, 101, 102]
    assert "RESETS" in {s["name"] for s in client.ksql("SHOW STREAMS;")[0]["streams"]}
    assert not any(s["name"].startswith("KSQL_PUSH") for s in client.ksql("SHOW STREAMS;")[0]["streams"])


def test_insert_into_and_table_as_select(server: SluiceServer, client: ksql.KSQLAPI):
    client.ksql("""CREATE STREAM innings_a (team VARCHAR, runs INT) WITH (KAFKA_TOPIC='innings_a', VALUE_FORMAT='JSON', PARTITIONS=1);
                   CREATE STREAM innings_b (side VARCHAR, score INT) WITH (KAFKA_TOPIC='innings_b', VALUE_FORMAT='JSON', PARTITIONS=1);
                   CREATE STREAM all_innings (team VARCHAR, runs INT) WITH (KAFKA_TOPIC='all_innings', VALUE_FORMAT='JSON', PARTITIONS=1);""",
                stream_properties=EARLIEST)
    rng = random.Random(5)
    first = [{"team": rng.choice(TEAMS), "runs": rng.randint(50, 300)} for _ in range(15)]
    second = [{"side": rng.choice(TEAMS), "score": rng.randint(50, 300)} for _ in range(10)]
    produce(server.kafka_bootstrap, "innings_a", [json.dumps(v).encode() for v in first])
    produce(server.kafka_bootstrap, "innings_b", [json.dumps(v).encode() for v in second])
    inserted = client.ksql("""INSERT INTO all_innings SELECT team, runs FROM innings_a;
                              INSERT INTO all_innings SELECT side AS team, score AS runs FROM innings_b;""", stream_properties=EARLIEST)
    assert all(answer["commandStatus"]["queryId"].startswith("INSERTQUERY_") for answer in inserted)
    merged = [(v["team"], v["runs"]) for v in first] + [(v["side"], v["score"]) for v in second]
    got = read_topic(server.kafka_bootstrap, "all_innings", len(merged))
    assert sorted((v["team"], v["runs"]) for v in map(lowered, got)) == sorted(merged)

    created = client.ksql("CREATE TABLE runs_by_team AS SELECT team, SUM(runs) AS total, COUNT(*) AS innings FROM innings_a GROUP BY team;",
                          stream_properties=EARLIEST)
    assert created[0]["commandStatus"]["queryId"] == "CTAS_RUNS_BY_TEAM"
    totals: dict[str, tuple[int, int]] = {}
    for v in first:
        total, count = totals.get(v["team"], (0, 0))
        totals[v["team"]] = (total + v["runs"], count + 1)
    assert "RUNS_BY_TEAM" in {t["name"] for t in client.ksql("SHOW TABLES;")[0]["tables"]}

    def pulled():
        answer = json.loads("".join(client.query("SELECT team, total, innings FROM runs_by_team;")))
        rows = {item["row"]["columns"][0]: (item["row"]["columns"][1], item["row"]["columns"][2]) for item in answer[1:]}
        return rows if rows == totals else None

    wait_until(pulled, 60, "the table's totals")
    # The upsert topic, folded by key, is the table.
    consumer = KafkaConsumer(bootstrap_servers=server.kafka_bootstrap, auto_offset_reset="earliest", isolation_level="read_committed",
                             enable_auto_commit=False, group_id=None, consumer_timeout_ms=200)
    consumer.subscribe(["RUNS_BY_TEAM"])
    folded: dict[str, tuple[int, int]] = {}

    def topic_folds_to_table():
        for message in consumer:
            value = lowered(json.loads(message.value)) if message.value else None
            key = json.loads(message.key)
            team = lowered(key)["team"] if isinstance(key, dict) else key
            if value is None:
                folded.pop(team, None)
            else:
                folded[value["team"]] = (value["total"], value["innings"])
        return folded == totals

    try:
        wait_until(topic_folds_to_table, 60, "RUNS_BY_TEAM to fold to the table")
    finally:
        consumer.close()


def test_print_shows_a_topics_records(server: SluiceServer, client: ksql.KSQLAPI):
    values = [{"over": n, "runs": n % 7} for n in range(6)]
    producer = KafkaProducer(bootstrap_servers=server.kafka_bootstrap)
    for n, value in enumerate(values):
        producer.send("overs", key=f"k{n}".encode(), value=json.dumps(value).encode(), partition=0)
    producer.flush()
    producer.close()
    text = "".join(client.query("PRINT 'overs' FROM BEGINNING LIMIT 4;"))
    lines = [line for line in text.split("\n") if line.strip()]
    assert lines[:2] == ["Key format: KAFKA_STRING", "Value format: JSON"]
    records = [line for line in lines if line.startswith("rowtime: ")]
    assert len(records) == 4
    for n, line in enumerate(records):
        assert f", key: k{n}, value: " in line and line.endswith(", partition: 0")
        assert json.loads(line.split(", value: ", 1)[1].rsplit(", partition: ", 1)[0]) == values[n]
    with pytest.raises(ValueError):
        "".join(client.query("PRINT 'no_such_topic' FROM BEGINNING;"))


def test_streams_and_queries_survive_a_restart_and_push_queries_do_not(tmp_path):
    data_dir = tmp_path / "data"
    # The streams' sources and sinks name the broker's address: the same port after the restart.
    kafka = free_port()
    with SluiceServer(data_dir=data_dir, kafka_port=kafka) as first:
        client = ksql.KSQLAPI(first.ksql_url)
        client.ksql("""CREATE STREAM balls (over INT, runs INT) WITH (KAFKA_TOPIC='balls', VALUE_FORMAT='JSON', PARTITIONS=1);
                       CREATE STREAM boundaries AS SELECT over, runs FROM balls WHERE runs >= 4;
                       CREATE STREAM all_balls (over INT, runs INT) WITH (KAFKA_TOPIC='all_balls', VALUE_FORMAT='JSON', PARTITIONS=1);""",
                    stream_properties=EARLIEST)
        first_insert = client.ksql("INSERT INTO all_balls SELECT over, runs FROM balls;", stream_properties=EARLIEST)[0]["commandStatus"]["queryId"]
        produce(first.kafka_bootstrap, "balls", [json.dumps({"over": n, "runs": n % 7}).encode() for n in range(20)])
        body = {"sql": "SELECT over FROM balls EMIT CHANGES;", "properties": {}}
        with httpx.Client(timeout=30) as http, http.stream("POST", f"{first.ksql_url}/query-stream", json=body) as response:
            lines = response.iter_lines()
            push_id = json.loads(next(lines))["queryId"]
            assert push_id in {q["id"] for q in client.ksql("SHOW QUERIES;")[0]["queries"]}
            # The server dies under the push query.
            first.kill()
    with SluiceServer(data_dir=data_dir, kafka_port=kafka) as second:
        client = ksql.KSQLAPI(second.ksql_url)
        assert {"BALLS", "BOUNDARIES", "ALL_BALLS"} <= {s["name"] for s in client.ksql("SHOW STREAMS;")[0]["streams"]}
        assert {q["id"] for q in client.ksql("SHOW QUERIES;")[0]["queries"]} == {"CSAS_BOUNDARIES", first_insert}
        expected = sorted((n, n % 7) for n in range(20) if n % 7 >= 4)
        got = read_topic(second.kafka_bootstrap, "BOUNDARIES", len(expected))
        assert sorted({(v["over"], v["runs"]) for v in map(lowered, got)}) == expected
        # INSERT INTO after a restart takes a query id no earlier INSERT holds.
        second_insert = client.ksql("INSERT INTO all_balls SELECT over, runs FROM balls;", stream_properties=EARLIEST)[0]["commandStatus"]["queryId"]
        assert second_insert != first_insert
        # A new push query runs under the same names the dead one had.
        answer = json.loads("".join(client.query("SELECT over FROM balls EMIT CHANGES LIMIT 2;", stream_properties=EARLIEST)))
        assert answer[-1] == {"finalMessage": "Limit Reached"} and len(answer) == 4


def test_create_or_replace_and_refused_windows(server: SluiceServer, client: ksql.KSQLAPI):
    created = client.ksql("CREATE STREAM replaced (a INT) WITH (KAFKA_TOPIC='replaced', VALUE_FORMAT='JSON', PARTITIONS=1, TIMESTAMP='a');")
    # An option taken but not carried out is named in the answer's warnings.
    assert any("TIMESTAMP" in warning["message"] for warning in created[0]["warnings"])
    client.ksql("CREATE OR REPLACE STREAM replaced (a INT, b VARCHAR) WITH (KAFKA_TOPIC='replaced', VALUE_FORMAT='JSON');")
    fields = client.ksql("DESCRIBE replaced;")[0]["sourceDescription"]["fields"]
    assert [(f["name"], f["schema"]["type"]) for f in fields] == [("A", "INTEGER"), ("B", "STRING")]
    with pytest.raises(KSQLError) as windowed:
        client.ksql("CREATE TABLE per_minute AS SELECT b, COUNT(*) AS n FROM replaced WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY b;")
    assert windowed.value.error_code == 40001 and "TUMBLING" in str(windowed.value)


def test_inserts_stream_over_http1(server: SluiceServer, client: ksql.KSQLAPI):
    client.ksql("CREATE STREAM inserted (player VARCHAR, runs INT) WITH (KAFKA_TOPIC='inserted', VALUE_FORMAT='JSON', PARTITIONS=1);")
    rows = [{"PLAYER": f"p{n}", "RUNS": n * 3} for n in range(5)]
    body = "\n".join([json.dumps({"target": "INSERTED"})] + [json.dumps(r) for r in rows] + ["not json"])
    answer = httpx.post(f"{server.ksql_url}/inserts-stream", content=body.encode(), timeout=30)
    assert answer.status_code == 200
    acks = [json.loads(line) for line in answer.text.split("\n") if line.strip()]
    assert acks[:5] == [{"status": "ok", "seq": n} for n in range(5)]
    assert acks[5]["status"] == "error" and acks[5]["seq"] == 5
    # The rows are on the topic, and the stream reads them (its columns match the keys).
    assert sorted((v["PLAYER"], v["RUNS"]) for v in read_topic(server.kafka_bootstrap, "inserted", 5)) == sorted((r["PLAYER"], r["RUNS"]) for r in rows)
    pulled = json.loads("".join(client.query("SELECT player, runs FROM inserted;")))
    assert sorted(tuple(item["row"]["columns"]) for item in pulled[1:]) == sorted((r["PLAYER"], r["RUNS"]) for r in rows)
    unknown = httpx.post(f"{server.ksql_url}/inserts-stream", content=json.dumps({"target": "NOWHERE"}).encode(), timeout=30)
    assert unknown.status_code == 400 and unknown.json()["@type"] == "generic_error"


def test_avro_and_delimited_formats(server: SluiceServer, client: ksql.KSQLAPI):
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroDeserializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    # DELIMITED in: comma-separated values, read by column position.
    lines = [f"{n},bowler{n % 3},{n % 6}" for n in range(12)]
    produce(server.kafka_bootstrap, "deliveries_csv", [line.encode() for line in lines])
    client.ksql("""CREATE STREAM deliveries (ball INT, bowler VARCHAR, runs INT)
                   WITH (KAFKA_TOPIC='deliveries_csv', VALUE_FORMAT='DELIMITED');""", stream_properties=EARLIEST)
    # AVRO out: the CSAS topic's values decode with the schema the built-in registry holds.
    client.ksql("CREATE STREAM deliveries_avro WITH (VALUE_FORMAT='AVRO') AS SELECT ball, bowler, runs FROM deliveries WHERE runs > 0;",
                stream_properties=EARLIEST)
    expected = sorted((n, f"bowler{n % 3}", n % 6) for n in range(12) if n % 6 > 0)
    consumer = KafkaConsumer(bootstrap_servers=server.kafka_bootstrap, auto_offset_reset="earliest", isolation_level="read_committed",
                             enable_auto_commit=False, group_id=None, consumer_timeout_ms=200)
    consumer.subscribe(["DELIVERIES_AVRO"])
    deserializer = AvroDeserializer(SchemaRegistryClient({"url": server.schema_registry_url}))
    decoded: list[dict] = []

    def enough():
        for message in consumer:
            decoded.append(deserializer(message.value, SerializationContext("DELIVERIES_AVRO", MessageField.VALUE)))
        return len(decoded) >= len(expected)

    try:
        wait_until(enough, 60, "the Avro stream's values")
    finally:
        consumer.close()
    assert sorted((d["BALL"], d["BOWLER"], d["RUNS"]) for d in decoded) == expected
    listed = {s["name"]: s for s in client.ksql("SHOW STREAMS;")[0]["streams"]}
    assert listed["DELIVERIES"]["valueFormat"] == "DELIMITED" and listed["DELIVERIES_AVRO"]["valueFormat"] == "AVRO"


def test_garbled_requests_never_crash_the_door(server: SluiceServer, client: ksql.KSQLAPI):
    """Statements cut and shuffled from valid ones' words, and bodies that are not what the
    endpoints take: every answer is ksqlDB's JSON (200 or an error body), and the server goes on."""
    # (No ALL among the words: TERMINATE ALL would end the other tests' queries on this server.)
    rng = random.Random(44)
    words = ("CREATE STREAM TABLE OR REPLACE IF NOT EXISTS g ( a INT KEY , b VARCHAR PRIMARY STRUCT < c > ARRAY ) WITH KAFKA_TOPIC = 'g' "
             "VALUE_FORMAT 'JSON' PARTITIONS 1 AS SELECT * FROM nowhere WHERE EMIT CHANGES LIMIT 2 ; DROP DELETE TOPIC TERMINATE SHOW "
             "DESCRIBE PRINT FROM BEGINNING INSERT INTO EXTRACTJSONFIELD -> + 'x' 3 QUERIES STREAMS TOPICS WINDOW TUMBLING").split()
    for _ in range(150):
        statement = " ".join(rng.choice(words) for _ in range(rng.randint(1, 14)))
        for endpoint, key in (("ksql", "ksql"), ("query-stream", "sql")):
            answer = httpx.post(f"{server.ksql_url}/{endpoint}", json={key: statement, "properties": {}}, timeout=30)
            assert answer.status_code in (200, 400), (statement, answer.status_code, answer.text)
            # (Queries read `nowhere`, which does not exist: no push query starts and waits.)
            if answer.status_code == 400:
                assert answer.json()["@type"] in ("statement_error", "generic_error"), (statement, answer.text)
    for body in (b"", b"[]", b'{"ksql": 3}', b'{"ksql": "SHOW STREAMS;", "streamsProperties": []}', b"\xff\xfe", b'{"queryId": 1}'):
        for endpoint in ("ksql", "query", "query-stream", "close-query", "inserts-stream"):
            answer = httpx.post(f"{server.ksql_url}/{endpoint}", content=body, timeout=30)
            assert answer.status_code in (200, 400, 404), (endpoint, body, answer.status_code)
    assert httpx.get(f"{server.ksql_url}/healthcheck", timeout=30).json()["isHealthy"] is True


def test_a_body_past_the_bound_is_refused_whole(server: SluiceServer, client: ksql.KSQLAPI):
    """A request body longer than the door reads (16 MiB) is answered 413 in ksqlDB's error
    shape, on every endpoint, not run cut short; the door goes on."""
    statement = "SHOW STREAMS; " * (17 * 1024 * 1024 // 14 + 1)
    for endpoint, key in (("ksql", "ksql"), ("query-stream", "sql"), ("close-query", "queryId")):
        answer = httpx.post(f"{server.ksql_url}/{endpoint}", json={key: statement}, timeout=60)
        assert answer.status_code == 413, endpoint
        assert answer.json()["error_code"] == 41300
    assert client.ksql("SHOW STREAMS;")[0]["@type"] == "streams"


def test_logins_as_on_the_sql_port(tmp_path):
    """The door's clients log in as the SQL port's would from their address: a role with a
    password proves it with HTTP Basic (ksql-python-ng's api_key and secret); a wrong one is 401
    in ksqlDB's error shape."""
    import psycopg

    with SluiceServer(data_dir=tmp_path / "data") as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            conn.execute("CREATE USER ksql_bob PASSWORD 'builder'")
        refused = httpx.post(f"{server.ksql_url}/ksql", json={"ksql": "SHOW STREAMS;"}, auth=("ksql_bob", "wrong"), timeout=30)
        assert refused.status_code == 401 and refused.json()["error_code"] == 40100
        bob = ksql.KSQLAPI(server.ksql_url, api_key="ksql_bob", secret="builder")
        assert bob.ksql("SHOW STREAMS;")[0]["@type"] == "streams"
