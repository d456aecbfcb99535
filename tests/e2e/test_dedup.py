"""Dropping repeated events, both ways issue 42 asks for (seed 003's "a source may crash and repeat
events", seed 004's duplicate payment events):

- RisingWave's `ON CONFLICT DO UPDATE [FULL | IF NOT NULL] WITH VERSION COLUMN(c)` on a table with
  a primary key, through every way rows enter it (INSERT, COPY, a Kafka table, a webhook table,
  Debezium upserts), against the rows worked out here by RisingWave's rule (the stored row gives way
  when its version is at most the new one, NULLs first);
- the source and table options `dedup.key` and `dedup.window`, with a real Kafka client producing
  to the built-in broker, against the events worked out here row by row (the watermark first, then
  the repeats within the window), also across SIGKILLs mid-stream; and their mistakes as SQL errors.
"""

from __future__ import annotations

import json
import random
import time
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

import psycopg
import pytest
from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic

from harness import SluiceServer
from harness.ports import free_port
from kafka_support import produce_acknowledged
from source_support import connect, micros, wait_until

BASE = datetime(2026, 11, 1, tzinfo=timezone.utc)
WINDOW = 60_000_000  # dedup.window = '1 minute', in microseconds
LAG = 5_000_000  # WATERMARK FOR created_at AS created_at - INTERVAL '5 seconds'


@pytest.fixture(scope="module")
def server():
    with SluiceServer(extra_args=["--barrier-interval-ms", "100"]) as server:
        yield server


# MARK: ON CONFLICT … WITH VERSION COLUMN


def _version_history(seed: int, count: int) -> list[tuple[int, str | None, int | None]]:
    """Rows (id, v, ver) with few keys and few versions, so conflicts, ties and NULL versions are common."""
    rng = random.Random(seed)
    rows = []
    for n in range(count):
        ver = None if rng.random() < 0.15 else rng.randrange(0, 6)
        rows.append((rng.randrange(0, 12), None if rng.random() < 0.2 else f"v{n}", ver))
    return rows


def _version_oracle(rows, patch: bool) -> dict[int, tuple[str | None, int | None]]:
    """Each key's stored row after `rows` in order, by RisingWave's rule."""
    table: dict[int, tuple[str | None, int | None]] = {}
    for key, value, ver in rows:
        if key in table:
            stored = table[key][1]
            if stored is not None and (ver is None or stored > ver):
                continue
            if patch:
                old = table[key]
                table[key] = (value if value is not None else old[0], ver if ver is not None else old[1])
                continue
        table[key] = (value, ver)
    return table


def _stored(conn: psycopg.Connection, table: str) -> dict[int, tuple[str | None, int | None]]:
    return {row[0]: (row[1], row[2]) for row in conn.execute(f"SELECT id, v, ver FROM {table}").fetchall()}


def _post(url: str, body: bytes) -> int:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status


@pytest.mark.parametrize("action", ["DO UPDATE FULL", "DO UPDATE IF NOT NULL"])
def test_version_column_holds_for_every_way_rows_enter(server: SluiceServer, action: str) -> None:
    rows = _version_history(7 if "FULL" in action else 8, 300)
    expected = _version_oracle(rows, patch="NOT NULL" in action)
    suffix = "full" if "FULL" in action else "patch"
    columns = "(id int PRIMARY KEY, v varchar, ver bigint)"
    clause = f"ON CONFLICT {action} WITH VERSION COLUMN(ver)"
    bootstrap = server.kafka_bootstrap
    topic, debezium_topic = f"versions-{suffix}", f"versions-dbz-{suffix}"
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    admin.create_topics([NewTopic(topic, 1, 1), NewTopic(debezium_topic, 1, 1)])
    admin.close()
    with connect(server) as conn:
        for way in ("by_insert", "by_copy"):
            conn.execute(f"CREATE TABLE {way}_{suffix} {columns} {clause}")
        conn.execute(f"""CREATE TABLE by_kafka_{suffix} {columns} {clause} WITH (connector = 'kafka', topic = '{topic}',
            properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
        conn.execute(f"""CREATE TABLE by_debezium_{suffix} {columns} {clause} WITH (connector = 'kafka', topic = '{debezium_topic}',
            properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'earliest') FORMAT DEBEZIUM ENCODE JSON""")
        conn.execute(f"CREATE TABLE by_webhook_{suffix} {columns} {clause} WITH (connector = 'webhook') VALIDATE AS true")
        conn.execute(f"CREATE MATERIALIZED VIEW by_kafka_{suffix}_view AS SELECT id, v, ver FROM by_kafka_{suffix}")

        # INSERT, a few rows a statement (rows of one statement meet one after the other).
        for start in range(0, len(rows), 7):
            conn.execute(f"INSERT INTO by_insert_{suffix} VALUES " + ", ".join(["(%s, %s, %s)"] * len(rows[start:start + 7])),
                         [value for row in rows[start:start + 7] for value in row])
        # COPY, all in one.
        with conn.cursor().copy(f"COPY by_copy_{suffix} (id, v, ver) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        # Kafka, plain JSON rows and Debezium change events, one partition so in order.
        producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
        for key, value, ver in rows:
            after = {"id": key, "v": value, "ver": ver}
            producer.send(topic, value=json.dumps(after).encode())
            producer.send(debezium_topic, value=json.dumps({"before": None, "after": after, "op": "u", "ts_ms": 0}).encode())
        producer.flush()
        producer.close()
        # Webhook deliveries, one row each.
        for key, value, ver in rows:
            assert _post(f"{server.webhook_base}/webhook/dev/public/by_webhook_{suffix}", json.dumps({"id": key, "v": value, "ver": ver}).encode()) == 200

        assert _stored(conn, f"by_insert_{suffix}") == expected
        assert _stored(conn, f"by_copy_{suffix}") == expected
        assert _stored(conn, f"by_webhook_{suffix}") == expected
        for table in (f"by_kafka_{suffix}", f"by_debezium_{suffix}"):
            wait_until(lambda: conn.execute("SELECT rows_read FROM sluice_sources WHERE name = %s", (table,)).fetchone()[0] >= len(rows),
                       60, f"{table} to read every message")
            assert _stored(conn, table) == expected
        conn.execute("FLUSH")
        assert _stored(conn, f"by_kafka_{suffix}_view") == expected


# MARK: dedup.key and dedup.window


def _payments(seed: int, count: int) -> list[dict]:
    """Seed 004's payment events as a provider that crashes and repeats them sends them: time
    moves on a second or so an event; a fifth are repeats of a recent event (same id and time),
    some repeats come after the watermark passed them (late), and some ids come back a while later
    with a new time (a new event under an old id, past the window)."""
    rng = random.Random(seed)
    events: list[dict] = []
    now = 0.0
    for n in range(count):
        now += rng.uniform(0.2, 1.6)
        roll = rng.random()
        if events and roll < 0.2:
            events.append(dict(rng.choice(events[-20:])))
        elif events and roll < 0.25:
            events.append(dict(rng.choice(events)))
        elif events and roll < 0.3:
            again = dict(rng.choice(events))
            again["created_at"] = (BASE + timedelta(seconds=now)).isoformat()
            events.append(again)
        else:
            events.append({"event_id": f"evt_{n:05d}", "provider": rng.choice(["stripe", "braintree", "adyen"]),
                           "amount": round(rng.uniform(1, 500), 2), "created_at": (BASE + timedelta(seconds=now)).isoformat()})
    return events


def _dedup_oracle(events: list[dict]) -> tuple[list[dict], int, int]:
    """The events a source with the watermark and `dedup.key = 'event_id'`, `dedup.window = '1
    minute'` keeps, row by row: late ones dropped first, then an event whose id was kept with a
    time at most the window away (either way) is a repeat; a kept event's id takes the later time.
    Also how many were late and how many were repeats."""
    watermark = -(2**63)
    seen: dict[str, int] = {}
    kept, late, repeats = [], 0, 0
    for event in events:
        at = micros(event["created_at"])
        if at < watermark:
            late += 1
            continue
        watermark = max(watermark, at - LAG)
        held = seen.get(event["event_id"])
        if held is not None and abs(at - held) <= WINDOW:
            repeats += 1
            continue
        kept.append(event)
        seen[event["event_id"]] = max(held if held is not None else at, at)
    return kept, late, repeats


PAYMENT_COLUMNS = """(event_id varchar, provider varchar, amount decimal, created_at timestamptz,
    WATERMARK FOR created_at AS created_at - INTERVAL '5 seconds')"""


def _kafka_options(bootstrap: str, topic: str) -> str:
    return (f"connector = 'kafka', topic = '{topic}', properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'earliest', "
            "dedup.key = 'event_id', dedup.window = '1 minute'")


def _counts(conn: psycopg.Connection, relation: str) -> dict[tuple[str, int], int]:
    """How many rows of `relation` each (event id, time in microseconds) has."""
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    return {(row[0], (row[1] - epoch) // timedelta(microseconds=1)): row[2] for row in conn.execute(
        f"SELECT event_id, created_at, count(*) FROM {relation} GROUP BY event_id, created_at").fetchall()}


def _expected_counts(kept: list[dict]) -> dict[tuple[str, int], int]:
    counts: dict[tuple[str, int], int] = {}
    for event in kept:
        key = (event["event_id"], micros(event["created_at"]))
        counts[key] = counts.get(key, 0) + 1
    return counts


def test_a_kafka_source_and_table_drop_repeated_payment_events(server: SluiceServer) -> None:
    events = _payments(20261127, 1500)
    kept, late, repeats = _dedup_oracle(events)
    assert repeats > 100 and late > 10 and len(kept) < len(events)
    # Ids that came back past the window are kept again: the oracle keeps some id twice.
    assert len({event["event_id"] for event in kept}) < len(kept)
    bootstrap = server.kafka_bootstrap
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    admin.create_topics([NewTopic("payment_charges", 1, 1)])
    admin.close()
    with connect(server) as conn:
        conn.execute(f"CREATE SOURCE charges {PAYMENT_COLUMNS} WITH ({_kafka_options(bootstrap, 'payment_charges')}) FORMAT PLAIN ENCODE JSON")
        conn.execute(f"""CREATE TABLE charges_table {PAYMENT_COLUMNS} APPEND ONLY
            WITH ({_kafka_options(bootstrap, 'payment_charges')}) FORMAT PLAIN ENCODE JSON""")
        conn.execute("CREATE MATERIALIZED VIEW charges_once AS SELECT event_id, created_at FROM charges")
        conn.execute("""CREATE MATERIALIZED VIEW totals AS SELECT provider, count(*) AS n, sum(amount) AS amount FROM charges GROUP BY provider""")
        producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
        for event in events:
            producer.send("payment_charges", value=json.dumps(event).encode())
        producer.flush()
        producer.close()

        def read_all() -> bool:
            rows = conn.execute("SELECT name, rows_read FROM sluice_sources WHERE name IN ('charges', 'charges_table')").fetchall()
            return len(rows) == 2 and all(read >= len(events) for _, read in rows)
        wait_until(read_all, 60, "both connectors to read every event")
        conn.execute("FLUSH")
        expected = _expected_counts(kept)
        assert _counts(conn, "charges_once") == expected
        assert _counts(conn, "charges_table") == expected
        totals = {row[0]: (row[1], row[2]) for row in conn.execute("SELECT provider, n, amount FROM totals").fetchall()}
        for provider in {event["provider"] for event in kept}:
            mine = [event for event in kept if event["provider"] == provider]
            assert totals[provider][0] == len(mine)
            assert float(totals[provider][1]) == pytest.approx(sum(event["amount"] for event in mine))
        for name in ("charges", "charges_table"):
            row = conn.execute("SELECT rows_late, rows_deduplicated FROM sluice_sources WHERE name = %s", (name,)).fetchone()
            assert row == (late, repeats), name
        # A view made later over the source starts from the same events (its history deduplicated too).
        conn.execute("CREATE MATERIALIZED VIEW charges_later AS SELECT event_id, created_at FROM charges")
        later = _counts(conn, "charges_later")
        assert set(later) == set(expected) and all(n == 1 for n in later.values())
        # So does a query of the source itself.
        scanned = conn.execute("SELECT count(*), count(DISTINCT (event_id, created_at)) FROM charges").fetchone()
        assert scanned[0] == scanned[1]


def test_dedup_options_are_checked_with_clear_errors(server: SluiceServer) -> None:
    bootstrap = server.kafka_bootstrap
    kafka = f"connector = 'kafka', topic = 'nothing', properties.bootstrap.server = '{bootstrap}'"
    cases = [
        (f"CREATE SOURCE bad1 {PAYMENT_COLUMNS} WITH ({kafka}, dedup.key = 'missing', dedup.window = '1 hour') FORMAT PLAIN ENCODE JSON",
         "42703", "missing"),
        (f"CREATE SOURCE bad2 {PAYMENT_COLUMNS} WITH ({kafka}, dedup.key = 'event_id', dedup.window = '-1 hour') FORMAT PLAIN ENCODE JSON",
         "22023", "positive"),
        (f"CREATE SOURCE bad3 {PAYMENT_COLUMNS} WITH ({kafka}, dedup.key = 'event_id', dedup.window = 'soon') FORMAT PLAIN ENCODE JSON",
         "22023", "interval"),
        (f"CREATE SOURCE bad4 {PAYMENT_COLUMNS} WITH ({kafka}, dedup.key = 'event_id') FORMAT PLAIN ENCODE JSON", "42601", "dedup.window"),
        (f"CREATE SOURCE bad5 (event_id varchar, created_at timestamptz) WITH ({kafka}, dedup.key = 'event_id', dedup.window = '1 hour') "
         "FORMAT PLAIN ENCODE JSON", "42P16", "WATERMARK"),
        ("CREATE TABLE bad6 (event_id varchar PRIMARY KEY, created_at timestamptz) WITH (dedup.key = 'event_id', dedup.window = '1 hour')",
         "42P16", "APPEND ONLY"),
        (f"CREATE SOURCE bad7 {PAYMENT_COLUMNS} WITH ({kafka}, dedup.key = 'event_id, event_id', dedup.window = '1 hour') "
         "FORMAT PLAIN ENCODE JSON", "42701", "twice"),
    ]
    with connect(server) as conn:
        for sql, sqlstate, words in cases:
            with pytest.raises(psycopg.Error) as failure:
                conn.execute(sql)
            assert failure.value.sqlstate == sqlstate, (sql, failure.value)
            assert words in str(failure.value), (sql, failure.value)
        # None of them was created.
        assert conn.execute("SELECT count(*) FROM sluice_sources WHERE name LIKE 'bad%'").fetchone() == (0,)


def test_an_append_only_table_drops_repeated_inserts(server: SluiceServer) -> None:
    """The options hold for rows written by INSERT too: the watermark, then the repeats."""
    events = _payments(42, 300)
    kept, late, repeats = _dedup_oracle(events)
    with connect(server) as conn:
        conn.execute(f"CREATE TABLE typed {PAYMENT_COLUMNS} APPEND ONLY WITH (dedup.key = 'event_id', dedup.window = '1 minute')")
        for start in range(0, len(events), 13):
            part = events[start:start + 13]
            conn.execute("INSERT INTO typed VALUES " + ", ".join(["(%s, %s, %s, %s)"] * len(part)),
                         [value for event in part for value in (event["event_id"], event["provider"], event["amount"], event["created_at"])])
        assert _counts(conn, "typed") == _expected_counts(kept)


# MARK: across SIGKILL


KILL_ROUNDS = 6
PER_ROUND = 400


def _round_events(round_number: int) -> dict[int, bytes]:
    """Round `round_number`'s messages, numbered: new events, and repeats of the last round's
    (the same id and time) as a provider that crashed would send again. Times move a tenth of a
    second a message, so every repeat is within the window and none is late."""
    messages: dict[int, bytes] = {}
    for n in range(PER_ROUND):
        number = round_number * PER_ROUND + n
        if round_number > 0 and n % 4 == 0:
            event_number = (round_number - 1) * PER_ROUND + n + 1
        else:
            event_number = number
        at = BASE + timedelta(milliseconds=100 * event_number)
        messages[number] = json.dumps({"event_id": f"evt_{event_number:06d}", "provider": "stripe", "amount": 1.0,
                                       "created_at": at.isoformat()}).encode()
    return messages


def test_repeats_across_a_kill_are_still_dropped(tmp_path: Path) -> None:
    """A Kafka source and an APPEND ONLY table read payment events while the server is SIGKILLed
    mid-stream; repeats of events seen before the last checkpoint arrive after each restart. At
    the end each acknowledged event is in the view and the table exactly once. The oracle is the
    set of event ids among the messages the broker acknowledged."""
    data, kafka = tmp_path / "data", free_port()
    rng = random.Random(4242)
    args = ["--barrier-interval-ms", "100"]
    acknowledged: dict[int, bytes] = {}
    for round_number in range(KILL_ROUNDS):
        with SluiceServer(data_dir=data, kafka_port=kafka, extra_args=args) as server:
            if round_number == 0:
                admin = KafkaAdminClient(bootstrap_servers=server.kafka_bootstrap, request_timeout_ms=10000)
                admin.create_topics([NewTopic("charges", 1, 1)])
                admin.close()
                with connect(server) as conn:
                    options = _kafka_options(server.kafka_bootstrap, "charges")
                    conn.execute(f"CREATE SOURCE charges {PAYMENT_COLUMNS} WITH ({options}) FORMAT PLAIN ENCODE JSON")
                    conn.execute(f"CREATE TABLE charges_table {PAYMENT_COLUMNS} APPEND ONLY WITH ({options}) FORMAT PLAIN ENCODE JSON")
                    conn.execute("CREATE MATERIALIZED VIEW charge_counts AS SELECT event_id, count(*) AS n FROM charges GROUP BY event_id")
            messages = _round_events(round_number)
            sent = produce_acknowledged(server.kafka_bootstrap, "charges", messages, partitions=1)
            acknowledged.update({number: messages[number] for number in sent})
            # Killed at a random moment while the readers take the round in.
            time.sleep(rng.uniform(0.0, 0.8))
            server.kill()
            server.process.wait(timeout=10)

    expected = {json.loads(value)["event_id"] for value in acknowledged.values()}
    with SluiceServer(data_dir=data, kafka_port=kafka, extra_args=args) as server, connect(server) as conn:
        def caught_up() -> bool:
            return conn.execute("SELECT count(*) FROM charges_table").fetchone()[0] >= len(expected) and \
                conn.execute("SELECT count(*) FROM charge_counts").fetchone()[0] >= len(expected)
        wait_until(caught_up, 120, f"the table and the view to hold all {len(expected)} acknowledged events")
        conn.execute("FLUSH")
        counts = dict(conn.execute("SELECT event_id, n FROM charge_counts").fetchall())
        repeated = {event: n for event, n in counts.items() if n > 1}
        assert not repeated, f"events in the view more than once: {list(repeated.items())[:10]}"
        assert set(counts) == expected
        table = conn.execute("SELECT event_id, count(*) FROM charges_table GROUP BY event_id").fetchall()
        assert {event for event, _ in table} == expected
        assert all(n == 1 for _, n in table), [row for row in table if row[1] > 1][:10]
