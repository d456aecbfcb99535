"""Flink SQL's spellings on the Postgres port (`SET sql_dialect = 'flink'`) and what the native
dialect gained with them: SIMILAR TO, whose answers equal PostgreSQL's (the oracle); REGEXP;
the dialect setting's checks; a connector table's Flink errors as ErrorResponses."""

from __future__ import annotations

import psycopg
import pytest

from harness import SluiceServer
from source_support import connect

TEXTS = ["abc", "abd", "a", "", "xyz", "a.c", "a%c", "aXc", "ABC", "abcabc", "a_c", "ab", "b", "a|b", "aaa", "(a)", "a+", "$a^", "[x]"]
PATTERNS = ["abc", "a%", "%c", "a_c", "%(b|d)%", "a.c", "a|b", "(a|b)*", "a+", "[a-c]%", "a\\%c", "a#_c", "_", "%", "", "a{2,3}", "[^a]%",
            "$a^", "%\\[x\\]%", "(a)", "a?b?c?"]


@pytest.fixture(scope="module")
def server():
    with SluiceServer() as running:
        yield running


def test_similar_to_equals_postgresql(server: SluiceServer, pg_oracle) -> None:
    oracle = pg_oracle.create_database("similar")
    try:
        with connect(server) as mine, psycopg.connect(oracle.conninfo, autocommit=True) as theirs:
            for pattern in PATTERNS:
                escape = " ESCAPE '#'" if "#" in pattern else ""
                sql = ("SELECT t, t SIMILAR TO %s" + escape + ", t NOT SIMILAR TO %s" + escape
                       + " FROM unnest(%s::varchar[]) AS u(t) ORDER BY t")
                assert mine.execute(sql, (pattern, pattern, TEXTS)).fetchall() == theirs.execute(sql, (pattern, pattern, TEXTS)).fetchall(), pattern
            with pytest.raises(psycopg.Error) as mine_error:
                mine.execute("SELECT 'a' SIMILAR TO 'a' ESCAPE 'xy'")
            with pytest.raises(psycopg.Error) as their_error:
                theirs.execute("SELECT 'a' SIMILAR TO 'a' ESCAPE 'xy'")
            assert mine_error.value.sqlstate == their_error.value.sqlstate
            for edge in ("SELECT 'a' SIMILAR TO 'a#' ESCAPE '#'", "SELECT 'a#' SIMILAR TO 'a#' ESCAPE '#'", "SELECT 'a' SIMILAR TO 'a' ESCAPE ''",
                         "SELECT 'a_b' SIMILAR TO 'a\\_b'"):
                assert mine.execute(edge).fetchall() == theirs.execute(edge).fetchall(), edge
            assert mine.execute("SELECT NULL::varchar SIMILAR TO 'a', 'a' SIMILAR TO NULL").fetchone() == (None, None)
    finally:
        pg_oracle.drop_database(oracle)


def test_flink_spellings_on_the_postgres_port(server: SluiceServer) -> None:
    with connect(server) as conn:
        assert conn.execute("SHOW sql_dialect").fetchone() == ("risingwave",)
        with pytest.raises(psycopg.errors.InvalidParameterValue):
            conn.execute("SET sql_dialect = 'hive'")
        conn.execute("SET sql_dialect = 'flink'")
        assert conn.execute("SHOW sql_dialect").fetchone() == ("flink",)
        conn.execute("CREATE TABLE fd_urls (id INT, url STRING, at TIMESTAMP_LTZ(3))")
        conn.execute("INSERT INTO fd_urls VALUES (1, 'https://a/x', TIMESTAMP '2026-01-01 00:00:00'), (2, 'http://b/y', NULL)")
        assert conn.execute("SELECT id FROM fd_urls WHERE REGEXP(url, '^https') ORDER BY id").fetchall() == [(1,)]
        assert conn.execute("SELECT id FROM fd_urls WHERE url SIMILAR TO 'http://%' ORDER BY id").fetchall() == [(2,)]
        assert conn.execute("SELECT id FROM fd_urls WHERE url ~ 'b/' ORDER BY id").fetchall() == [(2,)]
        # A Flink connector table's mistakes, with Flink's words, over the wire.
        with pytest.raises(psycopg.errors.InvalidParameterValue) as raised:
            conn.execute("CREATE TABLE fd_k (a INT) WITH ('connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='127.0.0.1:1', "
                         "'format'='json', 'scan.startup.mode'='earliest-offset', 'bogus.option'='1')")
        assert "Unsupported options found for 'kafka'" in str(raised.value) and "bogus.option" in str(raised.value)
        with pytest.raises(psycopg.errors.FeatureNotSupported) as raised:
            conn.execute("CREATE TABLE fd_j (a INT) WITH ('connector'='jdbc')")
        assert "jdbc" in str(raised.value)
        # Back in Sluice's own dialect, Flink's WITH keys are the connector's own business again.
        conn.execute("SET sql_dialect = 'risingwave'")
        with pytest.raises(psycopg.Error):
            conn.execute("CREATE TABLE fd_k2 (a INT) WITH ('connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='127.0.0.1:1', 'format'='json')")


def test_metadata_and_computed_columns_of_a_kafka_table(server: SluiceServer) -> None:
    """Flink's `METADATA FROM 'timestamp'` (a Kafka message's timestamp, as RisingWave's INCLUDE),
    `METADATA VIRTUAL` named by the column, and computed columns, PROCTIME() among them; the
    values checked against what was produced."""
    from kafka import KafkaProducer
    from kafka.admin import KafkaAdminClient, NewTopic

    bootstrap = server.kafka_bootstrap
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    admin.create_topics([NewTopic("fd_meta", 1, 1)])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    base = 1767225600000  # 2026-01-01 00:00:00 UTC
    for i in range(3):
        producer.send("fd_meta", value=b'{"id": %d}' % i, timestamp_ms=base + i * 1000)
    producer.flush()
    producer.close()
    with connect(server) as conn:
        conn.execute("SET sql_dialect = 'flink'")
        conn.execute("SET TIME ZONE 'UTC'")
        conn.execute(f"""CREATE TABLE fd_meta (
            id INT,
            ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
            `partition` INT METADATA VIRTUAL,
            doubled AS id * 2,
            pt AS PROCTIME()
        ) WITH ('connector' = 'kafka', 'topic' = 'fd_meta', 'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
                'scan.startup.mode' = 'earliest-offset')""")
        rows = conn.execute('SELECT id, ts, "partition", doubled, pt IS NOT NULL FROM fd_meta ORDER BY id').fetchall()
        assert [(r[0], r[1].timestamp() * 1000, r[2], r[3], r[4]) for r in rows] == [
            (i, base + i * 1000, "0", i * 2, True) for i in range(3)]
        with pytest.raises(psycopg.errors.FeatureNotSupported) as raised:
            conn.execute(f"CREATE TABLE fd_bad (id INT, t STRING METADATA FROM 'topic') WITH ('connector' = 'kafka', 'topic' = 'fd_meta', "
                         f"'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json')")
        assert "Invalid metadata key 'topic'" in str(raised.value)
        conn.execute("SET sql_dialect = 'risingwave'")
        with pytest.raises(psycopg.errors.FeatureNotSupported) as raised:
            conn.execute(f"CREATE SOURCE fd_native (id INT, ts TIMESTAMPTZ METADATA FROM 'timestamp') WITH (connector = 'kafka', topic = 'fd_meta', "
                         f"properties.bootstrap.server = '{bootstrap}') FORMAT PLAIN ENCODE JSON")
        assert "INCLUDE timestamp AS ts" in raised.value.diag.message_hint


def test_flinks_date_functions_in_a_flink_session(server: SluiceServer) -> None:
    """TO_TIMESTAMP, TO_DATE, DATE_FORMAT and FROM_UNIXTIME as Flink's, with Java's patterns,
    in a Flink session; the expected values worked out with Python's datetime. Sluice's own
    to_timestamp(double) is untouched in its own dialect."""
    import datetime as dt

    moment = dt.datetime(2026, 3, 4, 5, 6, 7)
    with connect(server) as conn:
        conn.execute("SET TIME ZONE 'UTC'")
        conn.execute("SET sql_dialect = 'flink'")
        row = conn.execute(
            "SELECT TO_TIMESTAMP('2026-03-04 05:06:07'), TO_TIMESTAMP('04/03/2026 05:06', 'dd/MM/yyyy HH:mm'), TO_DATE('2026-05-06'), "
            "TO_DATE('06.05.2026', 'dd.MM.yyyy'), DATE_FORMAT(TIMESTAMP '2026-03-04 05:06:07', 'yyyy-MM-dd''T''HH:mm:ss'), "
            "DATE_FORMAT(TIMESTAMP '2026-03-04 05:06:07.250', 'dd MMM yy, hh:mm:ss.SSS a'), FROM_UNIXTIME(86400), FROM_UNIXTIME(0, 'yyyy/MM/dd')").fetchone()
        assert row[0] == moment
        assert row[1] == moment.replace(second=0)
        assert row[2] == dt.date(2026, 5, 6) and row[3] == dt.date(2026, 5, 6)
        assert row[4] == moment.strftime("%Y-%m-%dT%H:%M:%S")
        assert row[5] == "04 Mar 26, 05:06:07.250 AM"
        assert row[6] == "1970-01-02 00:00:00" and row[7] == "1970/01/01"
        with pytest.raises(psycopg.errors.InvalidParameterValue):
            conn.execute("SELECT DATE_FORMAT(TIMESTAMP '2026-03-04 05:06:07', 'yyyy-QQ')")
        conn.execute("SET sql_dialect = 'risingwave'")
        assert conn.execute("SELECT to_timestamp(86400)").fetchone()[0] == dt.datetime(1970, 1, 2, tzinfo=dt.timezone.utc)


def test_group_offsets_start_where_the_group_committed(server: SluiceServer) -> None:
    """Flink's default `group-offsets`: each partition from the offset `properties.group.id`
    committed (set here by confluent-kafka's consumer), one the group has not committed from
    `properties.auto.offset.reset`; the source then commits its progress to that group."""
    from confluent_kafka import Consumer, TopicPartition
    from kafka import KafkaProducer
    from kafka.admin import KafkaAdminClient, NewTopic
    from source_support import wait_until

    bootstrap = server.kafka_bootstrap
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    admin.create_topics([NewTopic("fd_group", 2, 1)])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for partition in (0, 1):
        for i in range(5):
            producer.send("fd_group", value=b'{"id": %d}' % (partition * 10 + i), partition=partition)
    producer.flush()
    producer.close()
    group = Consumer({"bootstrap.servers": bootstrap, "group.id": "fd-readers", "enable.auto.commit": False})
    try:
        group.commit(offsets=[TopicPartition("fd_group", 0, 3)], asynchronous=False)
    finally:
        group.close()

    with connect(server) as conn:
        conn.execute("SET sql_dialect = 'flink'")
        conn.execute(f"""CREATE TABLE fd_group (id INT) WITH ('connector' = 'kafka', 'topic' = 'fd_group',
                'properties.bootstrap.servers' = '{bootstrap}', 'properties.group.id' = 'fd-readers',
                'properties.auto.offset.reset' = 'earliest', 'format' = 'json')""")
        conn.execute("SET sql_dialect = 'risingwave'")
        conn.execute("CREATE MATERIALIZED VIEW fd_group_ids AS SELECT id FROM fd_group")
        expected = [3, 4] + [10 + i for i in range(5)]
        wait_until(lambda: sorted(r[0] for r in conn.execute("SELECT id FROM fd_group_ids")) == expected, 30, "the view to read the group's rest")

    def committed():
        reader = Consumer({"bootstrap.servers": bootstrap, "group.id": "fd-readers", "enable.auto.commit": False})
        try:
            return [p.offset for p in reader.committed([TopicPartition("fd_group", 0), TopicPartition("fd_group", 1)], timeout=10)]
        finally:
            reader.close()
    wait_until(lambda: committed() == [5, 5], 30, "the source to commit its progress to the group")

    # RisingWave's spelling takes the mode too; an unknown mode names the ones there are.
    with connect(server) as conn:
        with pytest.raises(psycopg.errors.InvalidParameterValue) as raised:
            conn.execute(f"CREATE SOURCE fd_bad_mode (id INT) WITH (connector = 'kafka', topic = 'fd_group', properties.bootstrap.server = '{bootstrap}', "
                         "scan.startup.mode = 'somewhere') FORMAT PLAIN ENCODE JSON")
        assert "group-offsets" in str(raised.value)
