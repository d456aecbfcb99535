/// SQL that real clients and the seed workloads send; every entry must parse and round-trip.
enum Corpus {
    static let seeds: [String] = [
        """
        CREATE SOURCE IF NOT EXISTS balloon_game_events (player string, balloon_color string, score integer, page_id integer, favorite_color_bonus boolean, event_ts timestamptz)
        WITH (connector='kafka', topic='t', properties.bootstrap.server='localhost:9092', scan.startup.mode='latest') FORMAT PLAIN ENCODE JSON
        """,
        "CREATE MATERIALIZED VIEW IF NOT EXISTS mv_leaderboard AS SELECT player, sum(score) as total_score, count(case when favorite_color_bonus = true then 1 end) as bonus_hits, max(event_ts) as event_ts FROM balloon_game_events GROUP BY player",
        "CREATE MATERIALIZED VIEW IF NOT EXISTS mv_realtime_scores AS SELECT player, sum(score) as total_score, window_start, window_end FROM TUMBLE(balloon_game_events, event_ts, INTERVAL '15 SECONDS') GROUP BY player, window_start, window_end",
        "CREATE SINK IF NOT EXISTS leaderboard FROM mv_leaderboard WITH (connector='iceberg', type = 'append-only', force_append_only='true', database.name = 'db', table.name = 'leaderboard', catalog.type = 'rest', catalog.uri = 'http://x', s3.path.style.access = 'true')",
        "DROP SOURCE IF EXISTS user_events CASCADE",
        "CREATE MATERIALIZED VIEW latest_user_state AS SELECT e.id, e.name, e.age FROM user_events e JOIN (SELECT id, MAX(event_order) AS latest_order FROM user_events GROUP BY id) latest ON e.id = latest.id AND e.event_order = latest.latest_order WHERE e.op != 'delete'",
        "SELECT customer_id, COUNT(*) OVER w as transactions_1h FROM payment_charges WINDOW w AS (PARTITION BY customer_id ORDER BY created_at RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW)",
        "SELECT CASE WHEN failure_code IN ('null', 'NULL', '') THEN NULL ELSE failure_code END as failure_code, CASE WHEN card_country ~ '^[A-Z]{2}$' THEN card_country ELSE NULL END FROM t",
        "CREATE TABLE kafka_catalog.payments_db.payment_charges (event_id STRING, amount DECIMAL(10, 2), metadata ROW<order_id STRING, user_email STRING>, `3ds_authenticated` STRING, created_at TIMESTAMP(3), WATERMARK FOR created_at AS created_at - INTERVAL '5' SECOND) WITH ('connector' = 'kafka', 'format' = 'json')",
    ]

    /// psql 15 `\dt` and `\d t` (src/bin/psql/describe.c).
    static let psql: [String] = [
        """
        SELECT n.nspname as "Schema",
          c.relname as "Name",
          CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
          pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
        FROM pg_catalog.pg_class c
             LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
             LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
        WHERE c.relkind IN ('r','p','')
              AND n.nspname <> 'pg_catalog'
              AND n.nspname !~ '^pg_toast'
              AND n.nspname <> 'information_schema'
          AND pg_catalog.pg_table_is_visible(c.oid)
        ORDER BY 1,2;
        """,
        """
        SELECT c.oid,
          n.nspname,
          c.relname
        FROM pg_catalog.pg_class c
             LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default
          AND pg_catalog.pg_table_is_visible(c.oid)
        ORDER BY 2, 3;
        """,
        """
        SELECT c.relchecks, c.relkind, c.relhasindex, c.relhasrules, c.relhastriggers, c.relrowsecurity, c.relforcerowsecurity, false AS relhasoids, c.relispartition, pg_catalog.array_to_string(c.reloptions || array(select 'toast.' || x from pg_catalog.unnest(tc.reloptions) x), ', ')
        , c.reltablespace, CASE WHEN c.reloftype = 0 THEN '' ELSE c.reloftype::pg_catalog.regtype::pg_catalog.text END, c.relpersistence, c.relreplident, am.amname
        FROM pg_catalog.pg_class c
         LEFT JOIN pg_catalog.pg_class tc ON (c.reltoastrelid = tc.oid)
        LEFT JOIN pg_catalog.pg_am am ON (c.relam = am.oid)
        WHERE c.oid = '16384';
        """,
        """
        SELECT a.attname,
          pg_catalog.format_type(a.atttypid, a.atttypmod),
          (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
           FROM pg_catalog.pg_attrdef d
           WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
          a.attnotnull,
          (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t
           WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation,
          a.attidentity,
          a.attgenerated
        FROM pg_catalog.pg_attribute a
        WHERE a.attrelid = '16384' AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum;
        """,
        """
        SELECT c2.relname, i.indisprimary, i.indisunique, i.indisclustered, i.indisvalid, pg_catalog.pg_get_indexdef(i.indexrelid, 0, true),
          pg_catalog.pg_get_constraintdef(con.oid, true), contype, condeferrable, condeferred, i.indisreplident, c2.reltablespace
        FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i
          LEFT JOIN pg_catalog.pg_constraint con ON (conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x'))
        WHERE c.oid = '16384' AND c.oid = i.indrelid AND i.indexrelid = c2.oid
        ORDER BY i.indisprimary DESC, c2.relname;
        """,
        """
        SELECT pubname
             , NULL
             , NULL
        FROM pg_catalog.pg_publication p
             JOIN pg_catalog.pg_publication_namespace pn ON p.oid = pn.pnpubid
             JOIN pg_catalog.pg_class pc ON pc.relnamespace = pn.pnnspid
        WHERE pc.oid ='16384' and pg_catalog.pg_relation_is_publishable('16384')
        UNION
        SELECT pubname
             , pg_get_expr(pr.prqual, c.oid)
             , (CASE WHEN pr.prattrs IS NOT NULL THEN
                 (SELECT string_agg(attname, ', ')
                   FROM pg_catalog.generate_series(0, pg_catalog.array_upper(pr.prattrs::pg_catalog.int2[], 1)) s,
                        pg_catalog.pg_attribute
                  WHERE attrelid = pr.prrelid AND attnum = prattrs[s])
                ELSE NULL END) FROM pg_catalog.pg_publication p
             JOIN pg_catalog.pg_publication_rel pr ON p.oid = pr.prpubid
             JOIN pg_catalog.pg_class c ON c.oid = pr.prrelid
        WHERE pr.prrelid = '16384'
        UNION
        SELECT pubname
             , NULL
             , NULL
        FROM pg_catalog.pg_publication p
        WHERE p.puballtables AND pg_catalog.pg_relation_is_publishable('16384')
        ORDER BY 1;
        """,
        """
        SELECT c.oid::pg_catalog.regclass
        FROM pg_catalog.pg_class c, pg_catalog.pg_inherits i
        WHERE c.oid = i.inhparent AND i.inhrelid = '16384'
          AND c.relkind != 'p' AND c.relkind != 'I'
        ORDER BY inhseqno;
        """,
        "SELECT 'x'::pg_catalog.regclass::pg_catalog.oid",
    ]

    /// SQLAlchemy 2 with psycopg 3 (server-side parameters) and driver start-up queries.
    static let clients: [String] = [
        "select version()",
        "select pg_catalog.version()",
        "select current_schema()",
        "show standard_conforming_strings",
        "SHOW TRANSACTION ISOLATION LEVEL",
        "SET extra_float_digits = 3",
        "SET application_name = 'PostgreSQL JDBC Driver'",
        "SET search_path TO public, \"$user\"",
        "SELECT CAST('test plain returns' AS VARCHAR(60)) AS anon_1",
        "SELECT CAST('test unicode returns' AS VARCHAR(60)) AS anon_1",
        "SELECT typname AS name, oid, typarray AS array_oid, oid::regtype::text AS regtype, typdelim AS delimiter FROM pg_type t WHERE t.oid = to_regtype($1) ORDER BY t.oid",
        """
        SELECT pg_catalog.pg_class.relname
        FROM pg_catalog.pg_class JOIN pg_catalog.pg_namespace ON pg_catalog.pg_namespace.oid = pg_catalog.pg_class.relnamespace
        WHERE pg_catalog.pg_class.relkind = ANY (ARRAY[$1::VARCHAR, $2::VARCHAR]) AND pg_catalog.pg_class.relpersistence != $3::VARCHAR AND pg_catalog.pg_table_is_visible(pg_catalog.pg_class.oid) AND pg_catalog.pg_namespace.nspname != $4::VARCHAR
        """,
        """
        SELECT pg_catalog.pg_class.relname
        FROM pg_catalog.pg_class JOIN pg_catalog.pg_namespace ON pg_catalog.pg_namespace.oid = pg_catalog.pg_class.relnamespace
        WHERE pg_catalog.pg_class.relname = $1::VARCHAR AND pg_catalog.pg_class.relkind = ANY (ARRAY[$2::VARCHAR, $3::VARCHAR, $4::VARCHAR, $5::VARCHAR, $6::VARCHAR]) AND pg_catalog.pg_table_is_visible(pg_catalog.pg_class.oid) AND pg_catalog.pg_namespace.nspname != $7::VARCHAR
        """,
        """
        SELECT pg_catalog.pg_attribute.attname AS name, pg_catalog.format_type(pg_catalog.pg_attribute.atttypid, pg_catalog.pg_attribute.atttypmod) AS format_type, (SELECT pg_catalog.pg_get_expr(pg_catalog.pg_attrdef.adbin, pg_catalog.pg_attrdef.adrelid) AS pg_get_expr_1
        FROM pg_catalog.pg_attrdef
        WHERE pg_catalog.pg_attrdef.adrelid = pg_catalog.pg_attribute.attrelid AND pg_catalog.pg_attrdef.adnum = pg_catalog.pg_attribute.attnum AND pg_catalog.pg_attribute.atthasdef) AS "default", pg_catalog.pg_attribute.attnotnull AS not_null, pg_catalog.pg_class.relname AS table_name, pg_catalog.pg_description.description AS comment, pg_catalog.pg_attribute.attgenerated AS generated, (SELECT json_build_object($1::VARCHAR, pg_catalog.pg_attribute.attidentity = $2::VARCHAR, $3::VARCHAR, pg_catalog.pg_sequence.seqstart, $4::VARCHAR, pg_catalog.pg_sequence.seqincrement, $5::VARCHAR, pg_catalog.pg_sequence.seqmin, $6::VARCHAR, pg_catalog.pg_sequence.seqmax, $7::VARCHAR, pg_catalog.pg_sequence.seqcache, $8::VARCHAR, pg_catalog.pg_sequence.seqcycle) AS json_build_object_1
        FROM pg_catalog.pg_sequence
        WHERE pg_catalog.pg_attribute.attidentity != $9::VARCHAR AND pg_catalog.pg_sequence.seqrelid = CAST(CAST(pg_catalog.pg_get_serial_sequence(CAST(CAST(pg_catalog.pg_attribute.attrelid AS REGCLASS) AS TEXT), pg_catalog.pg_attribute.attname) AS REGCLASS) AS OID)) AS identity_options
        FROM pg_catalog.pg_class LEFT OUTER JOIN pg_catalog.pg_attribute ON pg_catalog.pg_class.oid = pg_catalog.pg_attribute.attrelid AND pg_catalog.pg_attribute.attnum > $10::INTEGER AND NOT pg_catalog.pg_attribute.attisdropped LEFT OUTER JOIN pg_catalog.pg_description ON pg_catalog.pg_description.objoid = pg_catalog.pg_attribute.attrelid AND pg_catalog.pg_description.objsubid = pg_catalog.pg_attribute.attnum JOIN pg_catalog.pg_namespace ON pg_catalog.pg_namespace.oid = pg_catalog.pg_class.relnamespace
        WHERE pg_catalog.pg_class.relkind = ANY (ARRAY[$11::VARCHAR, $12::VARCHAR, $13::VARCHAR, $14::VARCHAR, $15::VARCHAR]) AND pg_catalog.pg_table_is_visible(pg_catalog.pg_class.oid) AND pg_catalog.pg_namespace.nspname != $16::VARCHAR AND pg_catalog.pg_class.relname IN ($17::VARCHAR) ORDER BY pg_catalog.pg_class.relname, pg_catalog.pg_attribute.attnum
        """,
        """
        SELECT attr.conrelid, array_agg(CAST(attr.attname AS TEXT) ORDER BY attr.ord) AS cols, attr.conname, min(attr.description) AS description, NULL AS extra
        FROM (SELECT con.conrelid AS conrelid, con.conname AS conname, con.conindid AS conindid, con.description AS description, con.ord AS ord, pg_catalog.pg_attribute.attname AS attname
        FROM pg_catalog.pg_attribute JOIN (SELECT pg_catalog.pg_constraint.conrelid AS conrelid, pg_catalog.pg_constraint.conname AS conname, pg_catalog.pg_constraint.conindid AS conindid, unnest(pg_catalog.pg_constraint.conkey) AS attnum, generate_subscripts(pg_catalog.pg_constraint.conkey, $1::INTEGER) AS ord, pg_catalog.pg_description.description AS description
        FROM pg_catalog.pg_constraint LEFT OUTER JOIN pg_catalog.pg_description ON pg_catalog.pg_description.objoid = pg_catalog.pg_constraint.oid
        WHERE pg_catalog.pg_constraint.contype = $2::VARCHAR AND pg_catalog.pg_constraint.conrelid IN ($3::INTEGER)) AS con ON pg_catalog.pg_attribute.attnum = con.attnum AND pg_catalog.pg_attribute.attrelid = con.conrelid
        WHERE con.conrelid IN ($4::INTEGER)) AS attr GROUP BY attr.conrelid, attr.conname ORDER BY attr.conrelid, attr.conname
        """,
        "BEGIN",
        "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY",
        "START TRANSACTION READ ONLY",
        "COMMIT",
        "ROLLBACK",
        "DISCARD ALL",
        "DEALLOCATE PREPARE s1",
        "SET TIME ZONE 'UTC'",
        "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED",
    ]

    /// Statements of every kind.
    static let statements: [String] = [
        "SELECT 1",
        "CREATE FUNCTION add1(a INT) RETURNS INT LANGUAGE SQL RETURN a + 1",
        "create or replace function s.f(int, b numeric(10, 2)) returns numeric as $$ select $1 * b $$ language sql immutable strict",
        "CREATE FUNCTION g() LANGUAGE SQL CALLED ON NULL INPUT RETURNS varchar AS 'select ''x'''",
        "DROP FUNCTION IF EXISTS add1(int), s.f RESTRICT",
        "GRANT SELECT, INSERT ON t, s.u TO alice, PUBLIC WITH GRANT OPTION",
        "GRANT ALL PRIVILEGES ON MATERIALIZED VIEW mv TO bob GRANTED BY CURRENT_USER",
        "GRANT SELECT ON ALL MATERIALIZED VIEWS IN SCHEMA public, s TO reader",
        "GRANT USAGE, CREATE ON SCHEMA s TO \"Mixed Case\"",
        "GRANT CREATE, TEMP ON DATABASE dev TO alice",
        "REVOKE GRANT OPTION FOR SELECT ON SOURCE src FROM alice CASCADE",
        "REVOKE ALL ON SINK k FROM PUBLIC",
        "revoke delete on table t from bob restrict",
        "SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b DESC NULLS LAST LIMIT 10 OFFSET 5",
        "SELECT * FROM t FETCH FIRST 3 ROWS ONLY",
        "WITH x AS (SELECT 1 AS a), y (b) AS (SELECT 2) SELECT x.*, y.b FROM x CROSS JOIN y",
        "SELECT a FROM t UNION ALL SELECT b FROM u INTERSECT SELECT c FROM v EXCEPT SELECT 4",
        "(SELECT 1) UNION (SELECT 2 ORDER BY 1 LIMIT 1)",
        "VALUES (1, 'a'), (2, 'b')",
        "SELECT * FROM (VALUES (1, 'a')) AS v (n, s)",
        "SELECT * FROM a NATURAL JOIN b FULL OUTER JOIN c USING (id) RIGHT JOIN d ON TRUE",
        "SELECT * FROM generate_series(1, 10) AS g (n), LATERAL (SELECT n * 2) AS d",
        "SELECT * FROM unnest(ARRAY[1, 2]) WITH ORDINALITY AS u (x, i)",
        "SELECT * FROM HOP(bids, ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE)",
        "SELECT * FROM s JOIN t FOR SYSTEM_TIME AS OF PROCTIME() AS u ON s.k = u.k LEFT JOIN v FOR SYSTEM_TIME AS OF s.p_time ON TRUE",
        "SELECT string_agg(DISTINCT name, ',' ORDER BY name) FILTER (WHERE id > 0) FROM t",
        "SELECT row_number() OVER (PARTITION BY a ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING) FROM t",
        "SELECT first_value(b) OVER (PARTITION BY a ORDER BY b SESSION WITH GAP INTERVAL '10' SECOND) FROM t",
        "SELECT count(*) OVER w FROM t WINDOW w AS (PARTITION BY a ORDER BY b SESSION WITH GAP 3)",
        "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM t",
        "SELECT EXTRACT(EPOCH FROM ts), SUBSTRING(s FROM 2 FOR 3), POSITION('a' IN s), TRIM(LEADING 'x' FROM s), TRIM(s), OVERLAY(s PLACING 'ab' FROM 2 FOR 1) FROM t",
        "SELECT coalesce(a, b), nullif(a, 0), greatest(1, 2), least(3, 4)",
        "SELECT EXISTS (SELECT 1), (SELECT max(x) FROM t), ARRAY(SELECT 1), ARRAY[[1, 2], [3, 4]], a[1], a[1:2], (r).f, ROW(1, 2), (1, 2)",
        "SELECT CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIMESTAMP, CURRENT_USER, SESSION_USER, CURRENT_SCHEMA",
        "SELECT TIMESTAMP '2024-01-01 00:00:00', DATE '2024-01-01', TIMESTAMPTZ '2024-01-01 00:00:00Z', INTERVAL '1' HOUR TO SECOND",
        "SELECT x::int[], CAST(x AS double precision), y::timestamp(3) with time zone, z::character varying(20), CAST(s AS STRUCT<a int, b varchar>)",
        "SELECT a IS NOT DISTINCT FROM b, a IS TRUE, a IS NOT UNKNOWN, a BETWEEN SYMMETRIC 1 AND 2, a NOT LIKE 'x%' ESCAPE '!', a ILIKE 'y', a SIMILAR TO 'z'",
        "SELECT data->'a'->>'b', data #> '{a}', data @> '{}'::jsonb, a && b, x ~* 'y', x !~* 'z', x % 2, 2 ^ 3, a || b",
        "SELECT ts AT TIME ZONE 'UTC', name COLLATE \"C\" FROM t",
        "SELECT x = ANY (ARRAY[1, 2]), x <> ALL (SELECT y FROM u), x IN (SELECT y FROM u), x NOT IN (1, 2)",
        "SELECT $1, E'a\\nb', $$dollar$$, $tag$x$tag$, U&'\\0041'",
        "INSERT INTO t (a, b) VALUES (1, DEFAULT), (2, 'x') RETURNING a",
        "INSERT INTO t SELECT * FROM u",
        "INSERT INTO t DEFAULT VALUES",
        "UPDATE t SET a = a + 1, b = DEFAULT FROM u WHERE t.id = u.id RETURNING *",
        "DELETE FROM t AS x USING u WHERE x.id = u.id",
        "CREATE TABLE IF NOT EXISTS t (id int PRIMARY KEY, name varchar NOT NULL DEFAULT 'x', v double precision NULL, tags varchar[], PRIMARY KEY (id)) APPEND ONLY WITH (connector = 'kafka', topic = 't') FORMAT PLAIN ENCODE JSON",
        "CREATE TABLE keep_last (id int PRIMARY KEY, v int) ON CONFLICT DO UPDATE FULL",
        "CREATE TABLE keep_first (id int PRIMARY KEY, v int) ON CONFLICT DO NOTHING WITH (connector = 'kafka', topic = 't') FORMAT PLAIN ENCODE JSON",
        "CREATE TABLE keep_values (id int PRIMARY KEY, v int) ON CONFLICT DO UPDATE IF NOT NULL",
        "CREATE TABLE latest (id int PRIMARY KEY, v int, ver bigint) ON CONFLICT DO UPDATE FULL WITH VERSION COLUMN(ver) WITH (connector = 'kafka', topic = 't') FORMAT PLAIN ENCODE JSON",
        "CREATE TABLE t2 AS SELECT * FROM t",
        "CREATE TABLE w (ts timestamp, c int AS 1 + 1, WATERMARK FOR ts AS ts - INTERVAL '5 seconds')",
        "CREATE SOURCE s (a int, b varchar) WITH (connector = 'datagen', datagen.rows.per.second = 10) FORMAT PLAIN ENCODE AVRO (schema.registry = 'http://r')",
        "CREATE SOURCE s2 WITH (connector = 'kafka', password = secret my_secret) FORMAT DEBEZIUM ENCODE JSON",
        "CREATE SINK s AS SELECT * FROM mv WITH (connector = 'blackhole') FORMAT UPSERT ENCODE JSON",
        "CREATE VIEW v (a) AS SELECT 1",
        "CREATE MATERIALIZED VIEW mv AS SELECT window_start, count(*) FROM TUMBLE(t, ts, INTERVAL '1 minute') GROUP BY window_start EMIT ON WINDOW CLOSE",
        "CREATE INDEX idx ON t (a DESC, b) INCLUDE (c) DISTRIBUTED BY (a)",
        "CREATE SCHEMA IF NOT EXISTS s",
        "CREATE DATABASE d",
        "DROP TABLE IF EXISTS a, s.b RESTRICT",
        "DROP MATERIALIZED VIEW mv",
        "DROP VIEW v",
        "DROP SINK k",
        "DROP INDEX i",
        "DROP SCHEMA s CASCADE",
        "DROP DATABASE d",
        "SHOW TABLES",
        "SHOW TABLES FROM public LIKE 't%'",
        "SHOW MATERIALIZED VIEWS",
        "SHOW SOURCES",
        "SHOW SINKS",
        "SHOW VIEWS",
        "SHOW DATABASES",
        "SHOW SCHEMAS",
        "SHOW COLUMNS FROM t",
        "SHOW CREATE TABLE t",
        "SHOW CREATE MATERIALIZED VIEW mv",
        "SHOW ALL",
        "SHOW TIME ZONE",
        "SET SESSION a = DEFAULT",
        "SET LOCAL b TO 'x', 2, -3, on",
        "RESET c",
        "RESET ALL",
        "DESCRIBE t",
        "DESC s.t",
        "EXPLAIN SELECT 1",
        "EXPLAIN ANALYZE SELECT 1",
        "EXPLAIN (verbose, type physical) CREATE MATERIALIZED VIEW m AS SELECT 1",
        "EXPLAIN CREATE MATERIALIZED VIEW m AS SELECT a FROM t",
        "FLUSH",
        "END",
        "ABORT",
        "DEALLOCATE ALL",
        "COMMENT ON TABLE t IS 'hello'",
        "COMMENT ON COLUMN t.a IS NULL",
    ]

    static var all: [String] { seeds + psql + clients + statements }
}
