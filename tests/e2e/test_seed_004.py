"""Seed 004's Flink SQL on Sluice: its payment_charges table as a source (its columns as the seed
writes them, ROW<…>, backquoted names and TIMESTAMP(3) included, with its watermark; only the
connector's WITH clause in our dialect), its data-quality transformation and its one-hour
rolling fraud features as materialized views, fed by `sluice gen payments`, each equal to
DuckDB's answer over the same events read back from the topic.

The events the watermark keeps are worked out here, independently: in topic order (one
partition), an event is late when its `created_at` is below the largest `created_at - 5 s` of
the events kept before it."""

from __future__ import annotations

import json
import re
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import duckdb
from kafka import KafkaAdminClient
from kafka.admin import NewTopic
from kafka_support import read_topic

from harness import SluiceServer
from harness.sluice_server import sluice_binary
from source_support import comparable_rows, connect, wait_until

SEED = Path(__file__).resolve().parents[2].parent / "shared" / "seeds" / "004_e207f97af027f7c5.txt"


def _seed_sql() -> dict[str, str]:
    """The seed's statements this test runs, cut from the write-up as printed."""
    text = SEED.read_text() if SEED.exists() else ""
    blocks = re.findall(r"```sql\n(.*?)```", text, re.S)
    found: dict[str, str] = {}
    for block in blocks:
        if "CREATE TABLE kafka_catalog.payments_db.payment_charges (" in block:
            found["source"] = block
        if "payment_charges_cleaned AS" in block:
            found["cleaned"] = block
        if "OVER w as transactions_1h" in block:
            found["features"] = block
    return found


# The statements as the seed writes them (copied here so the test runs where the write-up is not).
SOURCE = """CREATE TABLE kafka_catalog.payments_db.payment_charges (
    event_id STRING,
    event_type STRING,
    provider STRING,
    charge_id STRING,
    customer_id STRING,
    amount DECIMAL(10, 2),
    currency STRING,
    status STRING,
    failure_code STRING,
    failure_message STRING,
    payment_method_id STRING,
    payment_method_type STRING,
    card_brand STRING,
    card_last4 STRING,
    card_exp_month INT,
    card_exp_year INT,
    card_country STRING,
    billing_country STRING,
    billing_postal_code STRING,
    merchant_id STRING,
    merchant_name STRING,
    description STRING,
    metadata ROW<
        order_id STRING,
        user_email STRING,
        subscription_id STRING
    >,
    risk_score INT,
    risk_level STRING,
    `3ds_authenticated` STRING,
    created_at TIMESTAMP(3),
    updated_at TIMESTAMP(3),
    WATERMARK FOR created_at AS created_at - INTERVAL '5' SECOND
) WITH (
    'connector' = 'kafka',
    'properties.bootstrap.servers' = 'kafka-broker:29092',
    'format' = 'json',
    'scan.startup.mode' = 'earliest-offset',
    'topic' = 'payment_charges'
);
"""

CLEANED = """-- Data quality transformation
CREATE TABLE polaris_catalog.payments_db.payment_charges_cleaned AS
SELECT
    event_id,
    event_type,
    UPPER(provider) as provider,  -- Normalize provider names
    charge_id,
    customer_id,
    amount,
    UPPER(currency) as currency,  -- Standardize currency codes
    status,
    -- Convert various null representations to actual NULL
    CASE
        WHEN failure_code IN ('null', 'NULL', '') THEN NULL
        ELSE failure_code
    END as failure_code,
    -- Validate country codes (only allow valid 2-letter codes)
    CASE
        WHEN card_country ~ '^[A-Z]{2}$' THEN card_country
        ELSE NULL
    END as card_country,
    risk_score,
    risk_level,
    created_at,
    updated_at
FROM kafka_catalog.payments_db.payment_charges;
"""

FEATURES = """-- Rolling aggregates for fraud detection
SELECT
    customer_id,
    COUNT(*) OVER w as transactions_1h,
    SUM(amount) OVER w as total_amount_1h,
    AVG(risk_score) OVER w as avg_risk_1h
FROM kafka_catalog.payments_db.payment_charges
WINDOW w AS (
    PARTITION BY customer_id
    ORDER BY created_at
    RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW
);
"""


def duckdb_payment_charges(dump: Path) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection whose payment_charges table holds the events of `dump` (NDJSON), with
    the columns the seed's queries read."""
    db = duckdb.connect()
    db.execute("""CREATE TABLE payment_charges AS SELECT * FROM read_json(?, columns = {
        event_id: 'varchar', event_type: 'varchar', provider: 'varchar', charge_id: 'varchar', customer_id: 'varchar',
        amount: 'decimal(10,2)', currency: 'varchar', status: 'varchar', failure_code: 'varchar', card_country: 'varchar',
        risk_score: 'integer', risk_level: 'varchar', created_at: 'timestamp', updated_at: 'timestamp'})""", [str(dump)])
    return db


def test_the_copied_statements_are_the_seeds() -> None:
    seed = _seed_sql()
    if not seed:
        return  # (the write-up is not on this machine: the copies stand)
    squash = lambda text: " ".join(text.split())  # noqa: E731
    assert squash(seed["source"]) == squash(SOURCE)
    assert squash(seed["cleaned"]) == squash(CLEANED)
    assert squash(seed["features"]) == squash(FEATURES)


def _adapted(statement: str, bootstrap: str) -> str:
    """The catalog names dropped, the Flink connector options in RisingWave's WITH and FORMAT."""
    statement = statement.replace("kafka_catalog.payments_db.", "").replace("polaris_catalog.payments_db.", "")
    statement = re.sub(r"\) WITH \(.*?\);", f") WITH (connector = 'kafka', topic = 'payment_charges', "
                       f"properties.bootstrap.server = '{bootstrap}', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON",
                       statement, flags=re.S)
    statement = statement.replace("CREATE TABLE payment_charges (", "CREATE SOURCE payment_charges (")
    statement = statement.replace("CREATE TABLE payment_charges_cleaned AS", "CREATE MATERIALIZED VIEW payment_charges_cleaned AS")
    return statement.rstrip().rstrip(";")


def test_seed_004_cleaning_and_rolling_features_equal_duckdb(tmp_path: Path) -> None:
    count = 4000
    with SluiceServer() as server:
        bootstrap = server.kafka_bootstrap
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
        admin.create_topics([NewTopic("payment_charges", 1, 1)])
        admin.close()
        with connect(server) as conn:
            conn.execute(_adapted(SOURCE, bootstrap))
            conn.execute(_adapted(CLEANED, bootstrap))
            conn.execute("CREATE MATERIALIZED VIEW payment_features AS\n" + _adapted(FEATURES, bootstrap))
        gen = subprocess.run([str(sluice_binary()), "gen", "payments", "--count", str(count), "--seed", "11", "--topic", "payment_charges",
                              "--bootstrap", bootstrap], capture_output=True, timeout=120)
        assert gen.returncode == 0, gen.stderr.decode()

        events = [json.loads(record.value) for record in read_topic(bootstrap, "payment_charges")[0]]
        assert len(events) == count
        # The watermark's rule, in topic order.
        kept, watermark = [], None
        for event in events:
            at = datetime.fromisoformat(event["created_at"])
            if watermark is not None and at < watermark:
                continue
            kept.append(event)
            watermark = max(watermark, at - timedelta(seconds=5)) if watermark else at - timedelta(seconds=5)
        dump = tmp_path / "kept.json"
        dump.write_text("\n".join(json.dumps(event) for event in kept))

        db = duckdb_payment_charges(dump)
        cleaned_sql = _adapted(CLEANED, bootstrap).split(" AS\n", 1)[1].replace(
            "card_country ~ '^[A-Z]{2}$'", "regexp_full_match(card_country, '^[A-Z]{2}$')")
        expected = {
            "payment_charges_cleaned": comparable_rows(db.execute(cleaned_sql).fetchall()),
            "payment_features": comparable_rows(db.execute(_adapted(FEATURES, bootstrap)).fetchall()),
        }
        assert len(expected["payment_features"]) == len(kept)
        assert any(row[8] is None for row in expected["payment_charges_cleaned"]), "some failure codes spelled as null strings"

        with connect(server) as conn:
            wait_until(lambda: conn.execute("SELECT rows_read FROM sluice_sources WHERE name = 'payment_charges'").fetchone()[0] == count,
                       60, "the source to read every event")
            late = conn.execute("SELECT rows_late FROM sluice_sources WHERE name = 'payment_charges'").fetchone()[0]
            assert late == count - len(kept)
            conn.execute("FLUSH")
            for name, rows in expected.items():
                actual = comparable_rows(conn.execute(f"SELECT * FROM {name}").fetchall())
                assert actual == rows, f"{name} differs from DuckDB"
