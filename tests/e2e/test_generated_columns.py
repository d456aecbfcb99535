"""A source's generated columns, `name [type] AS expr`, as Flink and RisingWave write them: computed
from the decoded columns as rows arrive (`PROCTIME()` is the arrival time), read by views and by
SELECT like any column, a watermark on one (Flink's Nexmark DDL), and a row whose expression
fails rejected and counted, the pipeline going on. Expected values are worked out here."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone

import psycopg
import pytest
from kafka import KafkaProducer
from kafka_support import unique_topic

from harness import SluiceServer
from source_support import connect, source_status, wait_until


@pytest.fixture(scope="module")
def server():
    with SluiceServer() as server:
        yield server


def _produce(bootstrap: str, topic: str, rows: list[dict]) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    for row in rows:
        producer.send(topic, value=json.dumps(row).encode(), partition=0)
    producer.flush(timeout=60)
    producer.close()


def test_generated_columns_are_computed_as_rows_arrive_and_failing_rows_are_rejected(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    topic = unique_topic("gen")
    rows = [{"id": n, "cents": n * 250, "d": 0 if n % 10 == 7 else n % 3 + 1} for n in range(100)]
    with connect(server) as conn:
        conn.execute(f"""CREATE SOURCE payments (
                           id int, cents bigint, d int,
                           amount AS cents / 100.0,
                           share numeric AS cents / d,
                           p_time TIMESTAMPTZ AS PROCTIME())
                         WITH (connector = 'kafka', topic = '{topic}', properties.bootstrap.server = '{bootstrap}',
                               scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
        described = conn.execute("DESCRIBE payments").fetchall()
        assert [row[:2] for row in described][:6] == [
            ("id", "integer"), ("cents", "bigint"), ("d", "integer"), ("amount", "numeric"), ("share", "numeric"),
            ("p_time", "timestamp with time zone")]
        conn.execute("CREATE MATERIALIZED VIEW paid AS SELECT id, amount, share, p_time FROM payments")
        before = datetime.now(timezone.utc) - timedelta(seconds=1)
        _produce(bootstrap, topic, rows)
        wait_until(lambda: sum(source_status(conn, "payments")[:2]) >= len(rows), 60, "the source to take every row")
        after = datetime.now(timezone.utc) + timedelta(seconds=1)
        conn.execute("FLUSH")
        failing = [row for row in rows if row["d"] == 0]
        read, rejected, status = source_status(conn, "payments")
        assert (read, rejected, status) == (len(rows) - len(failing), len(failing), "running")
        errors = conn.execute("SELECT error FROM sluice_source_errors WHERE source_name = 'payments'").fetchall()
        assert len(errors) == len(failing) and all("generated column" in e[0] and "division by zero" in e[0] for e in errors), errors
        view = conn.execute("SELECT id, amount, share, p_time FROM paid ORDER BY id").fetchall()
        kept = [row for row in rows if row["d"] != 0]
        assert [(r[0], r[1], r[2]) for r in view] == [
            (row["id"], psycopg.types.numeric.Decimal(row["cents"]) / 100, psycopg.types.numeric.Decimal(row["cents"] // row["d"])) for row in kept]
        assert all(before <= r[3] <= after for r in view), (before, after, view[:3])
        # A query of the source computes them too.
        assert conn.execute("SELECT count(*), sum(amount) FROM payments WHERE share IS NOT NULL").fetchone() == (
            len(kept), psycopg.types.numeric.Decimal(sum(row["cents"] for row in kept)) / 100)


def test_a_watermark_on_a_generated_column_drops_late_rows(server: SluiceServer) -> None:
    """Flink's Nexmark shape: the event time is a CASE over nested fields, the watermark on it."""
    bootstrap = server.kafka_bootstrap
    topic = unique_topic("genwm")
    with connect(server) as conn:
        conn.execute(f"""CREATE SOURCE ev (
                           kind int, a STRUCT<t TIMESTAMP>, b STRUCT<t TIMESTAMP>,
                           date_time AS CASE WHEN kind = 0 THEN (a).t ELSE (b).t END,
                           WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND)
                         WITH (connector = 'kafka', topic = '{topic}', properties.bootstrap.server = '{bootstrap}',
                               scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
        conn.execute("""CREATE MATERIALIZED VIEW ev_counts AS
                        SELECT window_start, count(*) AS n FROM TUMBLE(ev, date_time, INTERVAL '10' SECOND) GROUP BY window_start""")
        # :00, :03, :12 (the watermark rises to :08), then :05 is late; :11 is not.
        times = [(0, "00:00:00"), (1, "00:00:03"), (0, "00:00:12"), (1, "00:00:05"), (0, "00:00:11")]
        _produce(bootstrap, topic, [
            {"kind": kind, "a": {"t": f"2025-01-01 {t}"} if kind == 0 else None, "b": {"t": f"2025-01-01 {t}"} if kind == 1 else None}
            for kind, t in times])
        wait_until(lambda: conn.execute("SELECT rows_read FROM sluice_sources WHERE name = 'ev'").fetchone()[0] == len(times), 60,
                   "the source to read every row")
        conn.execute("FLUSH")
        assert conn.execute("SELECT rows_late FROM sluice_sources WHERE name = 'ev'").fetchone() == (1,)
        assert conn.execute("SELECT window_start, n FROM ev_counts ORDER BY 1").fetchall() == [
            (datetime(2025, 1, 1, 0, 0, 0), 2), (datetime(2025, 1, 1, 0, 0, 10), 2)]


@pytest.mark.parametrize("sql, sqlstate, message", [
    ("CREATE TABLE gt (a int, b AS a + 1)", "0A000", "generated columns are supported on sources only"),
    ("CREATE SOURCE gs (a int, b AS a + 1 PRIMARY KEY) WITH (connector = 'datagen')", "42P16", "takes no other constraint"),
    ("CREATE SOURCE gs (a int, b AS c + 1) WITH (connector = 'datagen')", "42703", 'column "c" does not exist'),
    ("CREATE SOURCE gs (a int, b int AS 'x' || a) WITH (connector = 'datagen')", "42804", "generated column"),
    ("CREATE SOURCE gs (a int, b AS count(a)) WITH (connector = 'datagen')", "42803", "generated column"),
])
def test_mistakes_in_generated_columns_are_errors(server: SluiceServer, sql: str, sqlstate: str, message: str) -> None:
    with connect(server) as conn:
        with pytest.raises(psycopg.Error) as raised:
            conn.execute(sql)
        assert raised.value.sqlstate == sqlstate, (raised.value.sqlstate, str(raised.value))
        assert message in str(raised.value)
