/// Seed 000's SQL (`/work/shared/seeds/000_*.txt`), as the seed writes it, template variables
/// and all: its source.sql (the Kafka source and five materialized views) and its sink.sql
/// (an Iceberg sink per view; the seed prints the leaderboard's and says the other four are the
/// same with their names). `sluice demo balloon --print-sql` prints them filled in; the tests
/// check them against tests/fixtures/seeds, taken from the seed by hand.
enum BalloonSeed {
    static let source = #"""
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

    static let sink = #"""
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
