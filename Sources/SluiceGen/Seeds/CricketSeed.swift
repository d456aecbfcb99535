/// Seed 003's pipeline as SQL, as RisingWave users would write it: three upstreams (ODI rows in
/// PostgreSQL by CDC, T20 documents from MongoDB through Debezium on a topic, Test YAML files),
/// views taking them apart into the seed's three streams, a Kafka sink per stream (its "topic
/// segregation"), and each topic dumped into a PostgreSQL warehouse by an upsert sink.
/// `tests/e2e/test_seed_003.py` runs the same pipeline against real PostgreSQL servers.
package enum CricketSeed {
    /// Where a PostgreSQL database is.
    package struct Database: Sendable {
        package var host: String
        package var port: Int
        package var name: String
        package var user: String

        package init(host: String, port: Int, name: String, user: String) {
            self.host = host
            self.port = port
            self.name = name
            self.user = user
        }
    }

    /// The topic Debezium's MongoDB connector writes the T20 collection's changes to.
    package static let mongoTopic = "atlas.cricket.t20_matches"

    /// The upstream table of ODI matches, loaded from CSV.
    package static let upstreamTable = """
        CREATE TABLE odi_matches (match_id text PRIMARY KEY, match_date date NOT NULL, venue text, team_1 text, team_2 text,
            team_1_players text, team_2_players text, team_1_runs int, team_1_wickets int, team_1_overs numeric(4,1),
            team_2_runs int, team_2_wickets int, team_2_overs numeric(4,1), winner text)
        """

    /// The warehouse's three tables, keyed as the streams are.
    package static let warehouseTables = [
        """
        CREATE TABLE match_metadata (match_id text PRIMARY KEY, format text NOT NULL, team_1 text, team_2 text, venue text,
            match_date date, winner text)
        """,
        "CREATE TABLE players (match_id text, team text, player text, PRIMARY KEY (match_id, team, player))",
        "CREATE TABLE innings (match_id text, innings_no int, team text, runs int, wickets int, overs numeric(5,1), PRIMARY KEY (match_id, innings_no))",
    ]

    /// The three streams and their keys.
    package static let streams: [(name: String, key: String)] = [
        ("match_metadata", "match_id"), ("players", "match_id,team,player"), ("innings", "match_id,innings_no"),
    ]

    /// The pipeline's statements. Without `upstream` the ODI matches are left out; without
    /// `warehouse` the streams end in their topics.
    package static func statements(kafka: String, yamlRoot: String, upstream: Database?, warehouse: Database?) -> [String] {
        var statements: [String] = []
        if let upstream {
            statements += [
                """
                CREATE SOURCE cricket_pg WITH (connector = 'postgres-cdc', hostname = '\(upstream.host)', port = '\(upstream.port)',
                    username = '\(upstream.user)', password = '', database.name = '\(upstream.name)', schema.name = 'public')
                """,
                """
                CREATE TABLE odi_matches (match_id varchar PRIMARY KEY, match_date date, venue varchar, team_1 varchar, team_2 varchar,
                    team_1_players varchar, team_2_players varchar, team_1_runs int, team_1_wickets int, team_1_overs numeric,
                    team_2_runs int, team_2_wickets int, team_2_overs numeric, winner varchar) FROM cricket_pg TABLE 'public.odi_matches'
                """,
            ]
        }
        statements += [
            """
            CREATE TABLE t20_matches (_id varchar PRIMARY KEY, payload jsonb) WITH (connector = 'kafka', topic = '\(mongoTopic)',
                properties.bootstrap.server = '\(kafka)', scan.startup.mode = 'earliest') FORMAT DEBEZIUM_MONGO ENCODE JSON
            """,
            """
            CREATE TABLE test_matches (match_id varchar PRIMARY KEY, meta jsonb, info jsonb, innings jsonb) WITH (connector = 'posix_fs',
                posix_fs.root = '\(yamlRoot)', match_pattern = '*.yaml') FORMAT PLAIN ENCODE YAML
            """,
        ]
        let odi = upstream != nil
        // The seed's stream processing: each shape taken apart into the same three streams. The
        // T20 branches name their columns, since they come first when there is no ODI branch.
        statements.append(view("match_metadata", [
            odi ? "SELECT match_id, 'ODI' AS format, team_1, team_2, venue, match_date, nullif(winner, '') AS winner FROM odi_matches" : nil,
            """
            SELECT payload->>'match_id' AS match_id, 'T20' AS format, payload->'info'->'teams'->>0 AS team_1,
                payload->'info'->'teams'->>1 AS team_2, payload->'info'->>'venue' AS venue,
                (payload->'info'->'dates'->>0)::date AS match_date, payload->'info'->'outcome'->>'winner' AS winner FROM t20_matches
            """,
            """
            SELECT match_id, 'Test', info->'teams'->>0, info->'teams'->>1, info->>'venue', (info->'dates'->>0)::date,
                info->'outcome'->>'winner' FROM test_matches
            """,
        ]))
        statements.append(view("players", [
            odi ? """
                SELECT match_id, team_1 AS team, split_part(team_1_players, ';', n) AS player FROM odi_matches,
                    generate_series(1, length(team_1_players) - length(replace(team_1_players, ';', '')) + 1) AS n
                """ : nil,
            odi ? """
                SELECT match_id, team_2, split_part(team_2_players, ';', n) FROM odi_matches,
                    generate_series(1, length(team_2_players) - length(replace(team_2_players, ';', '')) + 1) AS n
                """ : nil,
            """
            SELECT t.payload->>'match_id' AS match_id, p.key AS team, jsonb_array_elements_text(p.value) AS player
                FROM t20_matches t, jsonb_each(t.payload->'info'->'players') p
            """,
            "SELECT m.match_id, p.key, jsonb_array_elements_text(p.value) FROM test_matches m, jsonb_each(m.info->'players') p",
        ]))
        statements.append(view("innings", [
            odi ? """
                SELECT match_id, 1 AS innings_no, team_1 AS team, team_1_runs AS runs, team_1_wickets AS wickets, team_1_overs AS overs
                    FROM odi_matches
                """ : nil,
            odi ? "SELECT match_id, 2, team_2, team_2_runs, team_2_wickets, team_2_overs FROM odi_matches" : nil,
            """
            SELECT t.payload->>'match_id' AS match_id, (i->>'number')::int AS innings_no, i->>'team' AS team,
                (i->>'runs')::int AS runs, (i->>'wickets')::int AS wickets, (i->>'overs')::numeric AS overs
                FROM t20_matches t, jsonb_array_elements(t.payload->'innings') i
            """,
            """
            SELECT m.match_id, substr(e.key, 1, 1)::int, e.value->>'team', (e.value->>'runs')::int, (e.value->>'wickets')::int,
                (e.value->>'overs')::numeric FROM test_matches m, jsonb_array_elements(m.innings) i, jsonb_each(i) e
            """,
        ]))
        // Topic segregation: a topic per stream.
        for stream in streams {
            statements.append("""
                CREATE SINK \(stream.name)_to_kafka FROM \(stream.name) WITH (connector = 'kafka', properties.bootstrap.server = '\(kafka)',
                    topic = '\(stream.name)', primary_key = '\(stream.key)') FORMAT UPSERT ENCODE JSON
                """)
        }
        // Each stream's topic read back, and dumped into the warehouse.
        let topicColumns = [
            "match_id varchar PRIMARY KEY, format varchar, team_1 varchar, team_2 varchar, venue varchar, match_date date, winner varchar",
            "match_id varchar, team varchar, player varchar, PRIMARY KEY (match_id, team, player)",
            "match_id varchar, innings_no int, team varchar, runs int, wickets int, overs numeric, PRIMARY KEY (match_id, innings_no)",
        ]
        for (stream, columns) in zip(streams, topicColumns) {
            statements.append("""
                CREATE TABLE \(stream.name)_topic (\(columns)) WITH (connector = 'kafka', topic = '\(stream.name)',
                    properties.bootstrap.server = '\(kafka)', properties.isolation.level = 'read_committed') FORMAT UPSERT ENCODE JSON
                """)
        }
        if let warehouse {
            let url = "jdbc:postgresql://\(warehouse.host):\(warehouse.port)/\(warehouse.name)?user=\(warehouse.user)"
            for stream in streams {
                statements.append("""
                    CREATE SINK \(stream.name)_to_warehouse FROM \(stream.name)_topic WITH (connector = 'jdbc', jdbc.url = '\(url)',
                        table.name = '\(stream.name)', type = 'upsert', primary_key = '\(stream.key)')
                    """)
            }
        }
        return statements
    }

    /// `CREATE MATERIALIZED VIEW name AS` the union of `branches` (nil ones left out).
    private static func view(_ name: String, _ branches: [String?]) -> String {
        "CREATE MATERIALIZED VIEW \(name) AS\n" + branches.compactMap { $0 }.joined(separator: "\nUNION ALL\n")
    }
}
