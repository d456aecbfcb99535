import Foundation

/// Seed 001's init.sql (`/work/shared/seeds/001_*.txt`) as the seed writes it: a Kafka source of
/// user change events and the view of each user's latest state. The tests check it against
/// tests/fixtures/seeds/001_init.sql.
package enum UsersSeed {
    package static let initSQL = #"""
    DROP SOURCE IF EXISTS user_events CASCADE;
    DROP MATERIALIZED VIEW IF EXISTS latest_user_state CASCADE;

    CREATE SOURCE user_events (
        id INT,
        name VARCHAR,
        age INT,
        op VARCHAR,
        event_order BIGINT,
        ts TIMESTAMP
    )
    WITH (
        connector = 'kafka',
        topic = 'user-events',
        properties.bootstrap.server = 'localhost:9092',
        scan.startup.mode = 'earliest'
    )
    FORMAT PLAIN ENCODE JSON;

    CREATE MATERIALIZED VIEW latest_user_state AS
    SELECT e.id, e.name, e.age
    FROM user_events e
    JOIN (
        SELECT id, MAX(event_order) AS latest_order
        FROM user_events
        GROUP BY id
    ) latest
      ON e.id = latest.id AND e.event_order = latest.latest_order
    WHERE e.op != 'delete';
    """#
}

/// Seed 004's Flink SQL (`/work/shared/seeds/004_*.txt`) as the seed writes it: the payment
/// charges table over Kafka with its watermark, the data-quality cleaning and the one-hour rolling
/// fraud features. `PaymentsSeed.adapted` gives them in our dialect (the catalogs' names dropped,
/// the connector's options in RisingWave's `WITH` and `FORMAT`, a source and views in place of
/// Flink's tables), as tests/e2e/test_seed_004.py runs them.
package enum PaymentsSeed {
    package static let source = #"""
    CREATE TABLE kafka_catalog.payments_db.payment_charges (
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
    """#

    package static let cleaned = #"""
    -- Data quality transformation
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
    """#

    package static let features = #"""
    -- Rolling aggregates for fraud detection
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
    """#
}
/// Seed 000's SQL (`/work/shared/seeds/000_*.txt`), as the seed writes it, template variables
/// and all: its source.sql (the Kafka source and five materialized views) and its sink.sql
/// (an Iceberg sink per view; the seed prints the leaderboard's and says the other four are the
/// same with their names). `sluice demo balloon --print-sql` prints them filled in; the tests
/// check them against tests/fixtures/seeds, taken from the seed by hand.
package enum BalloonSeed {
    package static let source = #"""
    -- source events from Kafka
    CREATE SOURCE IF NOT EXISTS balloon_game_events (
     player string,
     balloon_color string,
     score integer,
     page_id integer,
     favorite_color_bonus boolean,
     event_ts timestamptz
    )
    WITH (
     connector='kafka',
     topic='{{ balloon_game_kafka_topic }}',
     properties.bootstrap.server='{{ balloon_game_kafka_bootstrap_servers }}',
     scan.startup.mode='latest'
    ) FORMAT PLAIN ENCODE JSON;

    -- Leaderboard stats
    CREATE MATERIALIZED VIEW IF NOT EXISTS mv_leaderboard AS
      SELECT
        player,
        sum(score) as total_score,
        count(case when favorite_color_bonus = true then 1 end) as bonus_hits,
        max(event_ts) as event_ts
      FROM balloon_game_events
      GROUP BY player;

    -- Overall Color Stats
    CREATE MATERIALIZED VIEW IF NOT EXISTS mv_balloon_color_stats AS
     SELECT
       player,
       balloon_color,
       count(*) as balloon_pops,
       sum(score) as points_by_color,
       count(CASE WHEN favorite_color_bonus = true THEN 1 END) as bonus_hits,
       max(event_ts) as event_ts
     FROM balloon_game_events
     GROUP BY
       player,
       balloon_color;

    -- Timeseries 
    -- Leaderboard over window of 15 seconds
    CREATE MATERIALIZED VIEW IF NOT EXISTS mv_realtime_scores AS
      SELECT
        player,
        sum(score) as total_score,
        window_start,
        window_end
      FROM TUMBLE(balloon_game_events, event_ts, INTERVAL '15 SECONDS')
      GROUP BY
        player,
        window_start,
        window_end;

    -- Analyze the various balloon_color pops in 15 seconds
    CREATE MATERIALIZED VIEW IF NOT EXISTS mv_balloon_colored_pops AS
     SELECT
       player,
       balloon_color,
       count(*) as balloon_pops,
       sum(score) as points_by_color,
       count(CASE WHEN favorite_color_bonus = true THEN 1 END) as bonus_hits,
       window_start,
       window_end
     FROM TUMBLE(balloon_game_events, event_ts, INTERVAL '15 SECONDS')
     GROUP BY
       player,
       balloon_color,
       window_start,
       window_end;

    -- Color based performance
    CREATE MATERIALIZED VIEW IF NOT EXISTS mv_color_performance_trends AS
     SELECT
      balloon_color,
      avg(score) as avg_score_per_pop,
      count(*) as total_pops,
      window_start,
      window_end
     FROM TUMBLE(balloon_game_events, event_ts, INTERVAL '15 SECONDS')
     GROUP BY
        balloon_color,
        window_start,
        window_end;
    """#

    package static let sink = #"""
    CREATE SINK IF NOT EXISTS leaderboard
     FROM mv_leaderboard
     WITH (
       connector='iceberg',
       type = 'append-only',
       force_append_only='true',
       database.name = '{{ balloon_game_db }}',
       table.name = 'leaderboard',

       warehouse.path = '{{ plf_catalog_name }}',
       catalog.name = '{{ plf_catalog_name }}',
       catalog.type = 'rest',
       catalog.uri = '{{ plf_polaris_catalog_uri }}',
       catalog.credential = '{{ principal_client_id }}:{{ principal_client_secret }}',
       catalog.scope='PRINCIPAL_ROLE:ALL',
       s3.endpoint = '{{ plf_aws_endpoint_url }}',
       s3.access.key = '{{ plf_aws_access_key_id  | default("test") }}',
       s3.secret.key = '{{ plf_aws_secret_access_key  | default("test") }}',
       s3.region = '{{ plf_aws_region }}',
       s3.path.style.access = 'true'
    );

    CREATE SINK IF NOT EXISTS balloon_color_stats
     FROM mv_balloon_color_stats
     WITH (
       connector='iceberg',
       type = 'append-only',
       force_append_only='true',
       database.name = '{{ balloon_game_db }}',
       table.name = 'balloon_color_stats',

       warehouse.path = '{{ plf_catalog_name }}',
       catalog.name = '{{ plf_catalog_name }}',
       catalog.type = 'rest',
       catalog.uri = '{{ plf_polaris_catalog_uri }}',
       catalog.credential = '{{ principal_client_id }}:{{ principal_client_secret }}',
       catalog.scope='PRINCIPAL_ROLE:ALL',
       s3.endpoint = '{{ plf_aws_endpoint_url }}',
       s3.access.key = '{{ plf_aws_access_key_id  | default("test") }}',
       s3.secret.key = '{{ plf_aws_secret_access_key  | default("test") }}',
       s3.region = '{{ plf_aws_region }}',
       s3.path.style.access = 'true'
    );

    CREATE SINK IF NOT EXISTS realtime_scores
     FROM mv_realtime_scores
     WITH (
       connector='iceberg',
       type = 'append-only',
       force_append_only='true',
       database.name = '{{ balloon_game_db }}',
       table.name = 'realtime_scores',

       warehouse.path = '{{ plf_catalog_name }}',
       catalog.name = '{{ plf_catalog_name }}',
       catalog.type = 'rest',
       catalog.uri = '{{ plf_polaris_catalog_uri }}',
       catalog.credential = '{{ principal_client_id }}:{{ principal_client_secret }}',
       catalog.scope='PRINCIPAL_ROLE:ALL',
       s3.endpoint = '{{ plf_aws_endpoint_url }}',
       s3.access.key = '{{ plf_aws_access_key_id  | default("test") }}',
       s3.secret.key = '{{ plf_aws_secret_access_key  | default("test") }}',
       s3.region = '{{ plf_aws_region }}',
       s3.path.style.access = 'true'
    );

    CREATE SINK IF NOT EXISTS balloon_colored_pops
     FROM mv_balloon_colored_pops
     WITH (
       connector='iceberg',
       type = 'append-only',
       force_append_only='true',
       database.name = '{{ balloon_game_db }}',
       table.name = 'balloon_colored_pops',

       warehouse.path = '{{ plf_catalog_name }}',
       catalog.name = '{{ plf_catalog_name }}',
       catalog.type = 'rest',
       catalog.uri = '{{ plf_polaris_catalog_uri }}',
       catalog.credential = '{{ principal_client_id }}:{{ principal_client_secret }}',
       catalog.scope='PRINCIPAL_ROLE:ALL',
       s3.endpoint = '{{ plf_aws_endpoint_url }}',
       s3.access.key = '{{ plf_aws_access_key_id  | default("test") }}',
       s3.secret.key = '{{ plf_aws_secret_access_key  | default("test") }}',
       s3.region = '{{ plf_aws_region }}',
       s3.path.style.access = 'true'
    );

    CREATE SINK IF NOT EXISTS color_performance_trends
     FROM mv_color_performance_trends
     WITH (
       connector='iceberg',
       type = 'append-only',
       force_append_only='true',
       database.name = '{{ balloon_game_db }}',
       table.name = 'color_performance_trends',

       warehouse.path = '{{ plf_catalog_name }}',
       catalog.name = '{{ plf_catalog_name }}',
       catalog.type = 'rest',
       catalog.uri = '{{ plf_polaris_catalog_uri }}',
       catalog.credential = '{{ principal_client_id }}:{{ principal_client_secret }}',
       catalog.scope='PRINCIPAL_ROLE:ALL',
       s3.endpoint = '{{ plf_aws_endpoint_url }}',
       s3.access.key = '{{ plf_aws_access_key_id  | default("test") }}',
       s3.secret.key = '{{ plf_aws_secret_access_key  | default("test") }}',
       s3.region = '{{ plf_aws_region }}',
       s3.path.style.access = 'true'
    );
    """#
}

/// The seeds' templates (seed 000's Ansible variables).
package enum SeedTemplate {
    /// Fills Jinja's `{{ name }}` and `{{ name | default("x") }}`, as Ansible does for the seed.
    package static func fill(_ template: String, _ values: [String: String]) -> String {
        var out = ""
        var rest = template[...]
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                out += rest[open.lowerBound...]
                return out
            }
            let body = rest[open.upperBound..<close.lowerBound]
            let parts = body.split(separator: "|", maxSplits: 1)
            let name = parts.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            var value = values[name]
            if value == nil, parts.count == 2, let quote = parts[1].firstIndex(of: "\""), let end = parts[1].lastIndex(of: "\""), quote < end {
                value = String(parts[1][parts[1].index(after: quote)..<end])
            }
            out += value ?? String(rest[open.lowerBound..<close.upperBound])
            rest = rest[close.upperBound...]
        }
        out += rest
        return out
    }
}

extension PaymentsSeed {
    /// A statement of seed 004 in our dialect: the catalogs' names dropped, Flink's connector
    /// options as RisingWave's `WITH … FORMAT PLAIN ENCODE JSON`, the Kafka table a source and the
    /// cleaned table a materialized view.
    package static func adapted(_ statement: String, kafka: String) -> String {
        var text = statement.replacingOccurrences(of: "kafka_catalog.payments_db.", with: "")
            .replacingOccurrences(of: "polaris_catalog.payments_db.", with: "")
        if let open = text.range(of: ") WITH ("), let close = text.range(of: ");", range: open.upperBound..<text.endIndex) {
            text.replaceSubrange(
                open.lowerBound..<close.upperBound,
                with: ") WITH (connector = 'kafka', topic = 'payment_charges', properties.bootstrap.server = '\(kafka)', "
                    + "scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON")
        }
        text = text.replacingOccurrences(of: "CREATE TABLE payment_charges (", with: "CREATE SOURCE payment_charges (")
            .replacingOccurrences(of: "CREATE TABLE payment_charges_cleaned AS", with: "CREATE MATERIALIZED VIEW payment_charges_cleaned AS")
        while let last = text.last, last.isWhitespace || last == ";" { text.removeLast() }
        return text
    }
}

/// Seed 002's pipeline on Sluice, as `sluice demo game-api` runs it and tests/e2e/test_seed_002.py
/// runs it against the real Flask app and `ab`: the game API's topic, the seed's Spark filter as
/// a view, the Parquet landing zone as a file sink, and `hive_events` over it. `{kafka}` and
/// `{landing}` are filled in.
package enum GameAPISeed {
    package static let pipeline = #"""
-- Seed 002 on Sluice: the topic the game API logs to, the seed's Spark filter as a view, its
-- Parquet landing zone as a file sink (a file every 10 seconds, a folder per event type), and
-- the Hive table over the landed files that Presto queried.
CREATE SOURCE game_api_events (
    "Accept" VARCHAR,
    "Host" VARCHAR,
    "User-Agent" VARCHAR,
    event_type VARCHAR,
    "user" VARCHAR,
    price DECIMAL(10, 0),
    type VARCHAR,
    fee DECIMAL(10, 0),
    name VARCHAR,
    amount DECIMAL(10, 0)
)
INCLUDE timestamp AS kafka_timestamp
INCLUDE payload AS raw
WITH (
    connector = 'kafka',
    topic = 'events',
    properties.bootstrap.server = '{kafka}',
    scan.startup.mode = 'earliest'
) FORMAT PLAIN ENCODE JSON;

-- The Spark job's transformation: the raw event and its time as text, the headers as columns,
-- and only the game's actions (the default event filtered out).
CREATE MATERIALIZED VIEW game_events AS
SELECT
    raw::VARCHAR AS raw_event,
    kafka_timestamp::VARCHAR AS "timestamp",
    "Accept" AS accept,
    "Host" AS host,
    "User-Agent" AS user_agent,
    event_type,
    "user",
    price,
    type,
    fee,
    name,
    amount
FROM game_api_events
WHERE event_type <> 'default';

CREATE SINK game_events_landing FROM game_events
WITH (
    connector = 'fs',
    fs.path = '{landing}',
    type = 'append-only',
    force_append_only = 'true',
    rollover_seconds = '10',
    partition_by = 'event_type'
) FORMAT PLAIN ENCODE PARQUET;

CREATE SOURCE hive_events (
    raw_event VARCHAR,
    "timestamp" VARCHAR,
    accept VARCHAR,
    host VARCHAR,
    user_agent VARCHAR,
    event_type VARCHAR,
    "user" VARCHAR,
    price DECIMAL(10, 0),
    type VARCHAR,
    fee DECIMAL(10, 0),
    name VARCHAR,
    amount DECIMAL(10, 0)
)
WITH (
    connector = 'posix_fs',
    posix_fs.root = '{landing}',
    match_pattern = '*.parquet'
) FORMAT PLAIN ENCODE PARQUET;
"""#

    /// The pipeline for a broker at `kafka` landing files in `landing`.
    package static func filled(kafka: String, landing: String) -> String {
        pipeline.replacingOccurrences(of: "{kafka}", with: kafka).replacingOccurrences(of: "{landing}", with: landing)
    }
}
