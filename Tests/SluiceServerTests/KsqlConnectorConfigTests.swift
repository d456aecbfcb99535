import SluiceCore
import SluiceSQL
import Testing

@testable import SluiceServer

/// Kafka Connect configurations as ksqlDB's connector statements give them, read into what
/// Sluice carries out: what is taken, what is warned about and what is refused.
@Suite struct KsqlConnectorConfigTests {
    func properties(_ pairs: KeyValuePairs<String, String>) -> KsqlConnectorProperties {
        KsqlConnectorProperties(pairs.map { WithOption(key: $0.key, value: .string($0.value)) })
    }

    let debezium: KeyValuePairs<String, String> = [
        "connector.class": KsqlConnectorClass.debeziumPostgres, "database.hostname": "db", "database.user": "cdc", "database.password": "pw",
        "database.dbname": "shop", "database.server.name": "legacy", "table.include.list": "public.orders, inventory.items,customers",
        "plugin.name": "pgoutput", "tasks.max": "1", "decimal.handling.mode": "string",
    ]

    @Test func debeziumPostgresTakesItsProperties() throws {
        var given = properties(debezium)
        let config = try DebeziumPostgresConfig(&given)
        #expect(config.host == "db" && config.port == "5432" && config.user == "cdc" && config.password == "pw" && config.database == "shop")
        #expect(config.tables.map { "\($0.schema).\($0.table)" } == ["public.orders", "inventory.items", "public.customers"])
        #expect(config.topic(config.tables[1]) == "legacy.inventory.items")
        #expect(config.publication == "dbz_publication" && config.createsPublication && config.takesSnapshot && config.slot == nil)
        #expect(given.warnings == ["decimal.handling.mode is not carried out by Sluice and was ignored"])
        #expect(given.json["database.password"] == .string("********"))
    }

    @Test func debeziumPostgresRefusesWhatChangesTheEvents() {
        for (key, value) in [
            ("snapshot.mode", "always"), ("plugin.name", "wal2json"), ("table.exclude.list", "public.x"), ("transforms", "unwrap"),
            ("value.converter", "io.confluent.connect.avro.AvroConverter"), ("table.include.list", "public.orders_.*"),
        ] {
            var given = KsqlConnectorProperties(debezium.map { WithOption(key: $0.key, value: .string($0.key == key ? value : $0.value)) }
                + (debezium.contains { $0.key == key } ? [] : [WithOption(key: key, value: .string(value))]))
            #expect(throws: SluiceError.self, "\(key) = \(value)") { try DebeziumPostgresConfig(&given) }
        }
        var never = KsqlConnectorProperties(debezium.map { WithOption(key: $0.key, value: .string($0.value)) } + [WithOption(key: "snapshot.mode", value: .string("never"))])
        #expect((try? DebeziumPostgresConfig(&never))?.takesSnapshot == false)
    }

    @Test func jdbcSinkTakesItsProperties() throws {
        var given = properties([
            "connector.class": KsqlConnectorClass.jdbcSink, "connection.url": "jdbc:postgresql://pg:5432/warehouse", "connection.user": "w",
            "topics": "HITS, TOTALS", "table.name.format": "analytics.kafka_${topic}", "insert.mode": "upsert", "pk.mode": "record_value",
            "pk.fields": "TEAM", "auto.create": "true", "batch.size": "500",
        ])
        let config = try JDBCSinkConfig(&given)
        #expect(config.topics == ["HITS", "TOTALS"] && config.user == "w" && config.password == nil)
        #expect(config.table(of: "HITS").schema == "analytics" && config.table(of: "HITS").table == "kafka_HITS")
        #expect(config.insertMode == .upsert && config.keyMode == .recordValue && config.keyFields == ["team"] && !config.deletesRows)
        #expect(given.warnings.count == 2)
        #expect(given.warnings.contains { $0.hasPrefix("auto.create") } && given.warnings.contains { $0.hasPrefix("batch.size") })
    }

    @Test func jdbcSinkRefusesWhatItCannotDo() {
        let base: [(String, String)] = [("connection.url", "jdbc:postgresql://pg/db"), ("topics", "t")]
        for extra in [
            [("topics.regex", "t.*")], [("insert.mode", "update")], [("insert.mode", "upsert")], [("pk.mode", "kafka")],
            [("delete.enabled", "true"), ("pk.mode", "record_value")], [("dialect.name", "MySqlDatabaseDialect")],
            [("connection.url", "jdbc:mysql://m/db")], [("auto.create", "maybe")],
        ] {
            var given = KsqlConnectorProperties((base.filter { key in !extra.contains { $0.0 == key.0 } } + extra).map { WithOption(key: $0.0, value: .string($0.1)) })
            #expect(throws: SluiceError.self, "\(extra)") { try JDBCSinkConfig(&given) }
        }
    }

    @Test func classesSluiceDoesNotHaveAreRefusedNamingTheAlternative() {
        #expect(KsqlConnectorClass.refusal("com.mongodb.kafka.connect.MongoSourceConnector", isSource: true).message.contains("no MongoDB connector"))
        #expect(KsqlConnectorClass.refusal(KsqlConnectorClass.jdbcSource, isSource: true).hint?.contains(KsqlConnectorClass.debeziumPostgres) == true)
        #expect(KsqlConnectorClass.refusal(KsqlConnectorClass.jdbcSink, isSource: true).message.contains("CREATE SINK CONNECTOR"))
        #expect(KsqlConnectorClass.refusal("org.example.Other", isSource: false).code == .featureNotSupported)
    }

    @Test func relationNamesSayWhichConnectorTheyBelongTo() {
        #expect(KsqlConnectorCatalog.relationName("pg", "cdc") == "ksql_connector__pg__cdc")
        #expect(KsqlConnectorCatalog.parse("ksql_connector__pg__table_0").map { [$0.connector, $0.part] } == ["pg", "table_0"])
        #expect(KsqlConnectorCatalog.parse("ksql_connector__a__b__sink_3").map { [$0.connector, $0.part] } == ["a__b", "sink_3"])
        #expect(KsqlConnectorCatalog.parse("orders") == nil)
    }
}
