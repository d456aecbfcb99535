"""Kafka sources end to end, against the built-in broker: seed 000's source and five views exactly
as the seed prints them (template variables filled in), fed by `sluice gen balloon` and checked
against totals computed here, and DuckDB's answers, from the same events read back with
kafka-python; a topic with 1%
malformed messages; SELECT on a source; tables fed by Kafka; partitions added while reading; the
consumer group the source commits to; and every mistake at CREATE answered with an error."""

from __future__ import annotations

import json
import random
import re
import subprocess
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import duckdb
import psycopg
import pytest
from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewPartitions, NewTopic
from kafka_support import read_topic, unique_topic

from harness import SluiceServer
from harness.sluice_server import sluice_binary
from source_support import comparable_rows, connect, source_status, wait_until

REPO_ROOT = Path(__file__).resolve().parents[2]
SEED_000 = REPO_ROOT / "tests" / "fixtures" / "seeds" / "000_source.sql"


@pytest.fixture(scope="module")
def server():
    with SluiceServer() as server:
        yield server


def _wait_for_rows(conn: psycopg.Connection, name: str, total: int, timeout: float = 60) -> None:
    """Waits until the source has read or rejected `total` messages, then FLUSHes so every view
    shows them."""
    wait_until(lambda: sum(source_status(conn, name)[:2]) >= total, timeout,
               f"source {name} to take {total} messages (now {source_status(conn, name)})")
    conn.execute("FLUSH")


def _produce(bootstrap: str, topic: str, values: list[bytes], partition: int | None = 0, keys: list[bytes | None] | None = None) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    for index, value in enumerate(values):
        producer.send(topic, value=value, key=keys[index] if keys else None, partition=partition)
    producer.flush(timeout=60)
    producer.close()


def _create_topic(bootstrap: str, topic: str, partitions: int = 1) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    admin.create_topics([NewTopic(topic, partitions, 1)])
    admin.close()


# -- seed 000 --------------------------------------------------------------------------------

def test_seed_000_source_and_views_follow_sluice_gen_balloon(server: SluiceServer, tmp_path: Path) -> None:
    bootstrap = server.kafka_bootstrap
    topic = unique_topic("balloon")
    _create_topic(bootstrap, topic)
    # Events already in the topic: scan.startup.mode='latest' leaves them out.
    old = [json.dumps({"player": "Old", "balloon_color": "red", "score": 1000, "page_id": 1, "favorite_color_bonus": True,
                       "event_ts": "2020-01-01T00:00:00Z"}).encode()] * 10
    _produce(bootstrap, topic, old)

    script = SEED_000.read_text()
    script = script.replace("{{ balloon_game_kafka_topic }}", topic).replace("{{ balloon_game_kafka_bootstrap_servers }}", bootstrap)
    assert "{{" not in script
    sql = tmp_path / "source.sql"
    sql.write_text(script)
    endpoint = server.endpoint()
    run = subprocess.run(["psql", "-h", endpoint.host, "-p", str(endpoint.port), "-U", "root", "-d", "dev", "-v", "ON_ERROR_STOP=1",
                          "-f", str(sql)], capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr.decode()
    assert run.stdout.decode().split() == ["CREATE_SOURCE"] + ["CREATE_MATERIALIZED_VIEW"] * 5

    count = 20000
    gen = subprocess.run([str(sluice_binary()), "gen", "balloon", "--count", str(count), "--seed", "7", "--topic", topic,
                          "--bootstrap", bootstrap], capture_output=True, timeout=120)
    assert gen.returncode == 0, gen.stderr.decode()

    # The same events, read back independently.
    records = [record for partition in read_topic(bootstrap, topic).values() for record in partition]
    events = [json.loads(record.value) for record in records if record.offset >= len(old) or record.partition != 0]
    assert len(events) == count

    with connect(server) as conn:
        _wait_for_rows(conn, "balloon_game_events", count)
        totals: dict[str, list] = defaultdict(lambda: [0, 0, None])
        colors: dict[tuple[str, str], list] = defaultdict(lambda: [0, 0, 0, None])
        for event in events:
            at = datetime.fromisoformat(event["event_ts"].replace("Z", "+00:00"))
            total = totals[event["player"]]
            total[0] += event["score"]
            total[1] += 1 if event["favorite_color_bonus"] is True else 0
            total[2] = at if total[2] is None else max(total[2], at)
            color = colors[(event["player"], event["balloon_color"])]
            color[0] += 1
            color[1] += event["score"]
            color[2] += 1 if event["favorite_color_bonus"] is True else 0
            color[3] = at if color[3] is None else max(color[3], at)
        leaderboard = conn.execute("SELECT player, total_score, bonus_hits, event_ts FROM mv_leaderboard ORDER BY player").fetchall()
        assert leaderboard == [(player, *values) for player, values in sorted(totals.items())]
        assert "Old" not in {row[0] for row in leaderboard}
        stats = conn.execute("SELECT player, balloon_color, balloon_pops, points_by_color, bonus_hits, event_ts "
                             "FROM mv_balloon_color_stats ORDER BY player, balloon_color").fetchall()
        assert stats == [(*key, *values) for key, values in sorted(colors.items())]
        assert source_status(conn, "balloon_game_events")[1] == 0

        # All five views against DuckDB over the same events, as written; each TUMBLE as the
        # window arithmetic it stands for: 15-second windows from the Unix epoch.
        db = duckdb.connect()
        db.execute("SET TimeZone = 'UTC'")
        dump = tmp_path / "events.json"
        dump.write_text("\n".join(json.dumps(event) for event in events))
        db.execute("CREATE TABLE balloon_game_events AS SELECT * FROM read_json(?, columns = {player: 'varchar', balloon_color: 'varchar', "
                   "score: 'integer', page_id: 'integer', favorite_color_bonus: 'boolean', event_ts: 'timestamptz'})", [str(dump)])
        windows = ("(SELECT *, epoch_us(event_ts) // 15000000 * 15000000 AS window_start, "
                   "epoch_us(event_ts) // 15000000 * 15000000 + 15000000 AS window_end FROM balloon_game_events)")
        views = _views(script)
        assert len(views) == 5
        for name, sql in views.items():
            oracle = sql.replace("TUMBLE(balloon_game_events, event_ts, INTERVAL '15 SECONDS')", windows)
            # (A time with a zone as DuckDB's microseconds, as comparable_rows has ours.)
            oracle = oracle.replace("max(event_ts)", "epoch_us(max(event_ts))")
            expected = comparable_rows(db.execute(oracle).fetchall())
            actual = comparable_rows(conn.execute(f"SELECT * FROM {name}").fetchall())
            assert len(expected) > 3, name
            assert actual == expected, f"{name} differs from DuckDB"


def _views(script: str) -> dict[str, str]:
    """The queries of a script's materialized views, by name."""
    return {m.group(1): m.group(2) for m in re.finditer(r"CREATE MATERIALIZED VIEW (?:IF NOT EXISTS )?(\w+) AS(.*?);", script, re.S)}


# -- bad rows --------------------------------------------------------------------------------

def _malformed(rng: random.Random, n: int) -> bytes:
    kinds = [
        b"not json at all",
        b'{"id": 1, "amount": ',  # truncated
        b'[1, 2, 3]',  # not an object
        b'{"id": "abc", "amount": 5}',  # not a number
        b'{"id": 3000000000, "amount": 5}',  # out of range for integer
        b'{"id": 7, "amount": 5, "at": "yesterday"}',  # not a timestamp
        b'{"id": 8, "amount": 5, "name": "bad \\ud800 surrogate"}',
        b'\xff\xfe{"id": 1}',  # not UTF-8
    ]
    return kinds[n % len(kinds)]


def test_malformed_messages_are_skipped_counted_and_kept(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    topic = unique_topic("dirty")
    rng = random.Random(11)
    values: list[bytes] = []
    bad_offsets: list[int] = []
    good_sum = 0
    for offset in range(10000):
        if rng.random() < 0.01:
            values.append(_malformed(rng, len(bad_offsets)))
            bad_offsets.append(offset)
        else:
            amount = rng.randrange(-1000, 1000)
            good_sum += amount
            # Fields in any order, names in any case, extra fields ignored.
            fields = [("id", offset), ("AMOUNT", amount), ("at", "2024-05-01T12:00:00Z"), ("name", f"n{offset}"), ("extra", [1, {"x": 2}])]
            rng.shuffle(fields)
            values.append(json.dumps(dict(fields)).encode())
    _produce(bootstrap, topic, values)
    name = f"dirty_{len(bad_offsets)}"
    with connect(server) as conn:
        conn.execute(f"""CREATE SOURCE {name} (id int, amount int, at timestamptz, name varchar)
                         WITH (connector = 'kafka', topic = '{topic}', properties.bootstrap.server = '{bootstrap}',
                               scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
        conn.execute(f"CREATE MATERIALIZED VIEW {name}_totals AS SELECT count(*) AS n, sum(amount) AS total FROM {name}")
        _wait_for_rows(conn, name, len(values))
        assert conn.execute(f"SELECT n, total FROM {name}_totals").fetchone() == (len(values) - len(bad_offsets), good_sum)
        read, rejected, status = source_status(conn, name)
        assert (read, rejected) == (len(values) - len(bad_offsets), len(bad_offsets))
        assert status == "running"
        errors = conn.execute("SELECT \"partition\", \"offset\", error, payload FROM sluice_source_errors WHERE source_name = %s "
                              "ORDER BY \"offset\"", (name,)).fetchall()
        assert [row[1] for row in errors] == bad_offsets
        assert all(row[0] == 0 and row[2] for row in errors)
        for (_, offset, error, payload) in errors:
            assert payload == values[offset][:256].decode("utf-8", errors="replace")
        by_payload = {values[offset]: error for (_, offset, error, _) in errors}
        assert 'field "id"' in by_payload[b'{"id": 3000000000, "amount": 5}'] and "out of range" in by_payload[b'{"id": 3000000000, "amount": 5}']
        assert 'field "at"' in by_payload[b'{"id": 7, "amount": 5, "at": "yesterday"}']
        assert "not a JSON object" in by_payload[b'[1, 2, 3]']


# -- queries, tables, partitions, groups -----------------------------------------------------

def test_select_on_a_source_reads_what_the_topic_holds(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    topic = unique_topic("scan")
    _create_topic(bootstrap, topic, partitions=2)
    _produce(bootstrap, topic, [json.dumps({"k": n, "v": f"v{n}"}).encode() for n in range(0, 50)], partition=0)
    _produce(bootstrap, topic, [json.dumps({"k": n, "v": f"v{n}"}).encode() for n in range(50, 80)], partition=1)
    with connect(server) as conn:
        conn.execute(f"CREATE SOURCE scan_{topic.replace('-', '_')} (k int, v varchar) WITH (connector = 'kafka', topic = '{topic}', "
                     f"properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'latest') FORMAT PLAIN ENCODE JSON")
        name = f"scan_{topic.replace('-', '_')}"
        rows = conn.execute(f"SELECT k, v FROM {name} ORDER BY k").fetchall()
        assert rows == [(n, f"v{n}") for n in range(80)]
        assert conn.execute(f"SELECT count(*), sum(k) FROM {name} WHERE k >= 40").fetchone() == (40, sum(range(40, 80)))
        assert name in [row[0] for row in conn.execute("SHOW SOURCES").fetchall()]
        assert [row[:2] for row in conn.execute(f"DESCRIBE {name}").fetchall()][:2] == [("k", "integer"), ("v", "character varying")]


def test_table_fed_by_kafka_stores_rows_and_views_follow(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    topic = unique_topic("table")
    _produce(bootstrap, topic, [json.dumps({"id": n, "qty": n % 7}).encode() for n in range(1000)])
    with connect(server) as conn:
        conn.execute(f"CREATE TABLE kt (id int PRIMARY KEY, qty int) WITH (connector = 'kafka', topic = '{topic}', "
                     f"properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON")
        conn.execute("CREATE MATERIALIZED VIEW kt_by_qty AS SELECT qty, count(*) AS n FROM kt GROUP BY qty")
        _wait_for_rows(conn, "kt", 1000)
        assert conn.execute("SELECT count(*), sum(qty) FROM kt").fetchone() == (1000, sum(n % 7 for n in range(1000)))
        # A key that comes again replaces its row (the primary key upserts).
        _produce(bootstrap, topic, [json.dumps({"id": 5, "qty": 100}).encode()])
        _wait_for_rows(conn, "kt", 1001)
        assert conn.execute("SELECT qty FROM kt WHERE id = 5").fetchone() == (100,)
        expected = defaultdict(int)
        for n in range(1000):
            expected[100 if n == 5 else n % 7] += 1
        assert conn.execute("SELECT qty, n FROM kt_by_qty ORDER BY qty").fetchall() == sorted(expected.items())


def test_partitions_added_later_are_followed_and_progress_is_committed(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    topic = unique_topic("grow")
    _create_topic(bootstrap, topic, partitions=1)
    name = "grow_" + topic.split("-")[-1]
    with connect(server) as conn:
        conn.execute(f"CREATE SOURCE {name} (n int) WITH (connector = 'kafka', topic = '{topic}', "
                     f"properties.bootstrap.server = '{bootstrap}') FORMAT PLAIN ENCODE JSON")
        conn.execute(f"CREATE MATERIALIZED VIEW {name}_sum AS SELECT count(*) AS c, sum(n) AS s FROM {name}")
        _produce(bootstrap, topic, [json.dumps({"n": n}).encode() for n in range(100)], partition=0)
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
        admin.create_partitions({topic: NewPartitions(total_count=3)})
        _produce(bootstrap, topic, [json.dumps({"n": n}).encode() for n in range(100, 130)], partition=2)
        _wait_for_rows(conn, name, 130)
        assert conn.execute(f"SELECT c, s FROM {name}_sum").fetchone() == (130, sum(range(130)))
        # The group named after the source shows how far it read.
        def committed():
            group = f"sluice-{name}"
            offsets = {tp.partition: meta.offset for tp, meta in admin.list_group_offsets(group).get(group, {}).items()}
            return offsets in ({0: 100, 2: 30}, {0: 100, 1: 0, 2: 30})
        wait_until(committed, 20, "the source's progress to be committed to its group")
        admin.close()


def _source_with_a_view(conn: psycopg.Connection, bootstrap: str, prefix: str, count: int) -> tuple[str, str]:
    """`count` messages `{"n": …}` in a new topic, a source over it from the earliest, and view
    `<source>_a` (count and sum) that has read them all. Returns the topic and the source's name."""
    topic = unique_topic(prefix)
    _produce(bootstrap, topic, [json.dumps({"n": n}).encode() for n in range(count)])
    name = f"{prefix}_" + topic.split("-")[-1]
    conn.execute(f"CREATE SOURCE {name} (n int) WITH (connector = 'kafka', topic = '{topic}', "
                 f"properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON")
    conn.execute(f"CREATE MATERIALIZED VIEW {name}_a AS SELECT count(*) AS c, sum(n) AS s FROM {name}")
    _wait_for_rows(conn, name, count)
    return topic, name


def test_a_second_view_starts_from_what_the_first_saw(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    with connect(server) as conn:
        topic, name = _source_with_a_view(conn, bootstrap, "views", 500)
        conn.execute(f"CREATE MATERIALIZED VIEW {name}_b AS SELECT count(*) AS c, max(n) AS m FROM {name}")
        _produce(bootstrap, topic, [json.dumps({"n": n}).encode() for n in range(500, 700)])
        _wait_for_rows(conn, name, 700)
        assert conn.execute(f"SELECT c, s FROM {name}_a").fetchone() == (700, sum(range(700)))
        assert conn.execute(f"SELECT c, m FROM {name}_b").fetchone() == (700, 699)
        with pytest.raises(psycopg.errors.DependentObjectsStillExist):
            conn.execute(f"DROP SOURCE {name}")
        conn.execute(f"DROP SOURCE {name} CASCADE")
        assert name not in [row[0] for row in conn.execute("SHOW SOURCES").fetchall()]
        assert conn.execute("SELECT count(*) FROM sluice_sources WHERE name = %s", (name,)).fetchone() == (0,)


def test_a_view_whose_backfill_cannot_read_the_topic_is_an_error_and_not_made(server: SluiceServer, tmp_path: Path) -> None:
    """A new view reads the source's history from the topic as its backfill runs (never all of it
    at once, nor with writers waiting). When the topic's cluster is gone by then, its CREATE fails
    with the reason and the view is not left half made; the server serves on."""
    with SluiceServer(data_dir=tmp_path / "upstream") as upstream:
        bootstrap = upstream.kafka_bootstrap
        with connect(server) as conn:
            _, name = _source_with_a_view(conn, bootstrap, "gone", 300)
            assert conn.execute(f"SELECT c FROM {name}_a").fetchone() == (300,)
            upstream.kill()
            with pytest.raises(psycopg.Error) as raised:
                conn.execute(f"CREATE MATERIALIZED VIEW {name}_b AS SELECT count(*) AS c FROM {name}")
            # The cluster unreachable (HV00N), or no record read for a minute (08001).
            assert raised.value.sqlstate in ("HV00N", "08001"), raised.value
            assert bootstrap in str(raised.value)
            views = [row[0] for row in conn.execute("SHOW MATERIALIZED VIEWS").fetchall()]
            assert f"{name}_b" not in views and f"{name}_a" in views
            assert conn.execute(f"SELECT c FROM {name}_a").fetchone() == (300,)
            conn.execute(f"DROP SOURCE {name} CASCADE")


# -- mistakes at CREATE ----------------------------------------------------------------------

def _create(conn: psycopg.Connection, with_options: str, fmt: str = "FORMAT PLAIN ENCODE JSON") -> None:
    conn.execute(f"CREATE SOURCE oops (a int) WITH ({with_options}) {fmt}")


@pytest.mark.parametrize("options, fmt, sqlstate, message", [
    ("connector = 'kafkaa', topic = 't'", "FORMAT PLAIN ENCODE JSON", "0A000", 'unknown connector "kafkaa"'),
    ("connector = 'kafka', topik = 't', properties.bootstrap.server = 'B'", "FORMAT PLAIN ENCODE JSON", "42601", 'unknown option "topik"'),
    ("connector = 'kafka', properties.bootstrap.server = 'B'", "FORMAT PLAIN ENCODE JSON", "42601", 'needs option "topic"'),
    ("connector = 'kafka', topic = 't'", "FORMAT PLAIN ENCODE JSON", "42601", 'needs option "properties.bootstrap.server"'),
    ("connector = 'kafka', topic = 't', properties.bootstrap.server = 'B', scan.startup.mode = 'newest'", "FORMAT PLAIN ENCODE JSON",
     "22023", "option \"scan.startup.mode\" of the kafka connector must be 'earliest', 'latest', 'timestamp', 'group-offsets', not 'newest'"),
    ("connector = 'kafka', topic = 't', properties.bootstrap.server = 'B', properties.no.such.thing = '1'", "FORMAT PLAIN ENCODE JSON",
     "22023", "no.such.thing"),
    ("connector = 'kafka', topic = 't', properties.bootstrap.server = 'B'", "FORMAT PLAIN ENCODE AVRO", "22023", 'needs option "schema.registry"'),
    ("connector = 'kafka', topic = 't', properties.bootstrap.server = 'B'", "FORMAT PLAIN ENCODE PROTOBUF", "0A000", "ENCODE PROTOBUF"),
    ("connector = 'kafka', topic = 't', properties.bootstrap.server = 'B'", "FORMAT UPSERT ENCODE JSON", "22023", "FORMAT UPSERT needs"),
    ("connector = 'kafka', topic = 't', properties.bootstrap.server = 'B'", "", "42601", "needs a format"),
])
def test_mistakes_in_create_source_are_errors(server: SluiceServer, options: str, fmt: str, sqlstate: str, message: str) -> None:
    with connect(server) as conn:
        with pytest.raises(psycopg.Error) as raised:
            _create(conn, options.replace("'B'", f"'{server.kafka_bootstrap}'"), fmt)
        assert raised.value.sqlstate == sqlstate
        assert message in str(raised.value)
        assert conn.execute("SELECT 1").fetchone() == (1,)  # the session goes on


def test_unreachable_broker_is_an_error_at_create_not_a_hang(server: SluiceServer) -> None:
    with connect(server) as conn:
        started = time.monotonic()
        with pytest.raises(psycopg.Error) as raised:
            _create(conn, "connector = 'kafka', topic = 't', properties.bootstrap.server = '127.0.0.1:1'")
        assert raised.value.sqlstate == "HV00N"
        assert "cannot reach the Kafka cluster at 127.0.0.1:1" in str(raised.value)
        assert time.monotonic() - started < 30


def test_a_missing_topic_is_waited_for_with_a_notice(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    topic = unique_topic("later")
    name = "later_" + topic.split("-")[-1]
    with connect(server) as conn:
        notices: list[str] = []
        conn.add_notice_handler(lambda diagnostic: notices.append(diagnostic.message_primary))
        conn.execute(f"CREATE SOURCE {name} (n int) WITH (connector = 'kafka', topic = '{topic}', "
                     f"properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'latest') FORMAT PLAIN ENCODE JSON")
        assert any(f'topic "{topic}" does not exist yet' in notice for notice in notices), notices
        conn.execute(f"CREATE MATERIALIZED VIEW {name}_c AS SELECT count(*) AS c FROM {name}")
        wait_until(lambda: "waiting for topic" in source_status(conn, name)[2], 10, "the waiting status")
        _produce(bootstrap, topic, [json.dumps({"n": n}).encode() for n in range(25)])
        _wait_for_rows(conn, name, 25)
        assert conn.execute(f"SELECT c FROM {name}_c").fetchone() == (25,)


def test_include_columns_and_csv_messages(server: SluiceServer) -> None:
    """RisingWave's INCLUDE: each message's timestamp, partition, offset, key and whole payload as
    columns, compared with what kafka-python's record metadata says it produced; and a topic of
    CSV lines read with ENCODE CSV."""
    topic = unique_topic("include")
    _create_topic(server.kafka_bootstrap, topic, partitions=2)
    producer = KafkaProducer(bootstrap_servers=server.kafka_bootstrap, acks="all")
    sent = []
    for i in range(20):
        value = json.dumps({"id": i, "name": f"n{i}"}).encode()
        metadata = producer.send(topic, value=value, key=f"k{i}".encode(), partition=i % 2, timestamp_ms=1_764_000_000_000 + i).get(timeout=30)
        sent.append((i, f"n{i}", metadata.timestamp, str(metadata.partition), str(metadata.offset), f"k{i}".encode()))
    producer.close()
    with connect(server) as conn:
        conn.execute(f"""CREATE SOURCE inc (id int, name varchar) INCLUDE timestamp AS ts INCLUDE partition INCLUDE offset AS off
            INCLUDE key AS k INCLUDE payload WITH (connector = 'kafka', topic = '{topic}',
            properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
        described = [(name, kind) for name, kind, *_ in conn.execute("DESCRIBE inc").fetchall() if name != "table description"]
        assert described == [("id", "integer"), ("name", "character varying"), ("ts", "timestamp with time zone"),
                             ("_rw_kafka_partition", "character varying"), ("off", "character varying"), ("k", "bytea"),
                             ("_rw_kafka_payload", "jsonb")]
        rows = conn.execute("""SELECT id, name, (extract(epoch FROM ts) * 1000)::bigint, _rw_kafka_partition, off, k,
            _rw_kafka_payload->>'name' FROM inc ORDER BY id""").fetchall()
        assert [row[:6] for row in rows] == [(i, n, t, p, o, bytes(k)) for i, n, t, p, o, k in sent]
        assert [row[6] for row in rows] == [f"n{i}" for i in range(20)]
        conn.execute("CREATE MATERIALIZED VIEW inc_view AS SELECT _rw_kafka_partition AS p, count(*) AS n, max(ts) AS last FROM inc GROUP BY 1")
        wait_until(lambda: conn.execute("SELECT sum(n) FROM inc_view").fetchone()[0] == 20, 30, "the view over INCLUDE columns")
        with pytest.raises(psycopg.Error) as failure:
            conn.execute("CREATE SOURCE bad (id int) INCLUDE headers WITH (connector = 'datagen')")
        assert failure.value.sqlstate == "0A000"
        with pytest.raises(psycopg.Error) as failure:
            conn.execute("CREATE SOURCE bad (id int) INCLUDE offset WITH (connector = 'datagen')")
        assert failure.value.sqlstate == "0A000"

    csv_topic = unique_topic("csv")
    _create_topic(server.kafka_bootstrap, csv_topic)
    _produce(server.kafka_bootstrap, csv_topic, [b'1,"a, quoted",2.5', b"2,plain,", b"oops,x,1", b'3,"say ""hi""",-1'])
    with connect(server) as conn:
        conn.execute(f"""CREATE SOURCE csv_src (id int, label varchar, score double precision) WITH (connector = 'kafka', topic = '{csv_topic}',
            properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE CSV""")
        assert conn.execute("SELECT id, label, score FROM csv_src ORDER BY id").fetchall() == [(1, "a, quoted", 2.5), (2, "plain", None), (3, 'say "hi"', -1.0)]
        conn.execute("CREATE MATERIALIZED VIEW csv_view AS SELECT count(*) AS n FROM csv_src")
        _wait_for_rows(conn, "csv_src", 4)
        assert conn.execute("SELECT n FROM csv_view").fetchone() == (3,)
        assert source_status(conn, "csv_src")[1] == 1
