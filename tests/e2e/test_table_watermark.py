"""A watermark on an APPEND ONLY table (RisingWave's): rows inserted behind the watermark (the
largest `ts - 2 s` of the rows kept before them, row by row) are dropped and never stored, the
table's change stream carries the watermark, and an EMIT ON WINDOW CLOSE view over it shows each
window once the watermark passes it. The watermark is in the checkpoints: after a kill -9 a row
behind it is still dropped."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import json

import psycopg
from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic

from harness import SluiceServer
from source_support import source_status, wait_until

BASE = datetime(2026, 11, 1, tzinfo=timezone.utc)


def _at(seconds: float) -> datetime:
    return BASE + timedelta(seconds=seconds)


def test_rows_behind_a_tables_watermark_are_dropped_and_windows_close(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with SluiceServer(data_dir=data_dir) as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            conn.execute("CREATE TABLE clicks (id int, ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) APPEND ONLY")
            conn.execute("""CREATE MATERIALIZED VIEW per_window AS SELECT window_start, count(*) AS n
                            FROM TUMBLE(clicks, ts, INTERVAL '10' SECOND) GROUP BY window_start EMIT ON WINDOW CLOSE""")
            # In one statement, row by row: 3 is behind 12 - 2 = 10; 4 is not (10 is not below 10).
            conn.execute("INSERT INTO clicks VALUES (1, %s), (2, %s), (3, %s), (4, %s), (5, NULL)",
                         [_at(1), _at(12), _at(9), _at(10)])
            # Later statements: 6 is behind; 7 raises the watermark to 21, closing [10, 20).
            conn.execute("INSERT INTO clicks VALUES (6, %s)", [_at(5)])
            conn.execute("INSERT INTO clicks VALUES (7, %s)", [_at(23)])
            conn.execute("FLUSH")
            assert sorted(conn.execute("SELECT id FROM clicks").fetchall()) == [(1,), (2,), (4,), (5,), (7,)]
            wait_until(lambda: conn.execute("SELECT window_start, n FROM per_window ORDER BY 1").fetchall() == [(_at(0), 1), (_at(10), 2)],
                       30, "the closed windows to show")
            conn.execute("CHECKPOINT")
        server.kill()
    with SluiceServer(data_dir=data_dir) as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            # Still behind the watermark of the run before.
            conn.execute("INSERT INTO clicks VALUES (8, %s), (9, %s)", [_at(20), _at(34)])
            conn.execute("FLUSH")
            assert sorted(conn.execute("SELECT id FROM clicks").fetchall()) == [(1,), (2,), (4,), (5,), (7,), (9,)]
            wait_until(lambda: conn.execute("SELECT window_start, n FROM per_window ORDER BY 1").fetchall()
                       == [(_at(0), 1), (_at(10), 2), (_at(20), 1)], 30, "the next window to close")


def test_a_kafka_fed_tables_late_rows_are_dropped_and_counted() -> None:
    """A table a connector feeds drops the rows behind its watermark as its source would, and
    counts them in `sluice_sources.rows_late`."""
    times = [1, 12, 9, 10, 5, 23, 20, 30]  # late: 9 (behind 10), 5 (behind 10), 20 (behind 21)
    with SluiceServer() as server:
        admin = KafkaAdminClient(bootstrap_servers=server.kafka_bootstrap, request_timeout_ms=10000)
        admin.create_topics([NewTopic("clicks", 1, 1)])
        admin.close()
        producer = KafkaProducer(bootstrap_servers=server.kafka_bootstrap, acks="all")
        for n, second in enumerate(times):
            producer.send("clicks", value=json.dumps({"id": n, "ts": _at(second).isoformat()}).encode(), partition=0)
        producer.flush(timeout=60)
        producer.close()
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            conn.execute(f"""CREATE TABLE clicks (id int, ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) APPEND ONLY
                WITH (connector = 'kafka', topic = 'clicks', properties.bootstrap.server = '{server.kafka_bootstrap}',
                      scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
            wait_until(lambda: source_status(conn, "clicks")[0] == len(times), 30, "the table to read every event")
            conn.execute("FLUSH")
            assert sorted(row[0] for row in conn.execute("SELECT id FROM clicks").fetchall()) == [0, 1, 3, 5, 7]
            assert conn.execute("SELECT rows_late FROM sluice_sources WHERE name = 'clicks'").fetchone() == (3,)


def test_rows_logged_after_the_last_checkpoint_still_raise_the_watermark(tmp_path: Path) -> None:
    """With no barrier for ten minutes, a row inserted after the last checkpoint is only in the
    log when the server is killed: replaying it raises the table's watermark again, so a row
    behind it is dropped after the restart too."""
    data_dir = tmp_path / "data"
    args = ["--barrier-interval-ms", "600000"]
    with SluiceServer(data_dir=data_dir, extra_args=args) as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            conn.execute("CREATE TABLE clicks (id int, ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) APPEND ONLY")
            conn.execute("INSERT INTO clicks VALUES (1, %s)", [_at(23)])
            conn.execute("CHECKPOINT")
            # Only in the log: the watermark is 38 now, 21 in the checkpoint.
            conn.execute("INSERT INTO clicks VALUES (2, %s)", [_at(40)])
        server.kill()
    with SluiceServer(data_dir=data_dir, extra_args=args) as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            conn.execute("INSERT INTO clicks VALUES (3, %s), (4, %s)", [_at(35), _at(39)])
            assert sorted(conn.execute("SELECT id FROM clicks").fetchall()) == [(1,), (2,), (4,)]
