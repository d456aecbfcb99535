import SluiceCore
import Testing

@testable import SluiceSQL

/// Flink SQL as seed 004 types it, lowered onto Sluice's own statements.
@Suite struct FlinkDialectTests {
    private func flink(_ sql: String) throws -> Statement.Kind {
        let statements = try SQLParser.parse(sql, dialect: .flink)
        try #require(statements.count == 1)
        return statements[0].kind
    }

    private func options(_ list: [WithOption]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: list.map { ($0.key, $0.value.text) })
    }

    @Test func catalogStatementsParse() throws {
        #expect(try flink("CREATE CATALOG kafka_catalog WITH ('type'='generic_in_memory');")
            == .catalog(.create(name: "kafka_catalog", ifNotExists: false, options: [WithOption(key: "type", value: .string("generic_in_memory"))])))
        #expect(try flink("CREATE DATABASE kafka_catalog.payments_db") == .catalog(.createDatabase(ObjectName(["kafka_catalog", "payments_db"]), ifNotExists: false)))
        #expect(try flink("CREATE DATABASE IF NOT EXISTS db") == .catalog(.createDatabase(ObjectName("db"), ifNotExists: true)))
        #expect(try flink("USE CATALOG c") == .catalog(.useCatalog("c")))
        #expect(try flink("USE c.db") == .catalog(.useDatabase(ObjectName(["c", "db"]))))
        #expect(try flink("SHOW CATALOGS") == .catalog(.showCatalogs))
        #expect(try flink("SHOW CURRENT CATALOG") == .catalog(.showCurrentCatalog))
        #expect(try flink("SHOW CURRENT DATABASE") == .catalog(.showCurrentDatabase))
        #expect(try flink("DROP CATALOG IF EXISTS c") == .catalog(.drop(name: "c", ifExists: true)))
        #expect(try flink("SHOW JOBS") == .catalog(.showJobs))
        #expect(try flink("STOP JOB '228d70913eab60dda85c5e7f78b5782c' WITH SAVEPOINT WITH DRAIN")
            == .catalog(.stopJob("228d70913eab60dda85c5e7f78b5782c", savepoint: true, drain: true)))
        #expect(throws: SluiceError.self) { try flink("STOP JOB abc") }
        // Each prints as it parses.
        for sql in ["CREATE CATALOG c WITH ('type'='iceberg', 'uri'='http://x:8181/api')", "USE CATALOG c", "DROP CATALOG c", "SHOW CATALOGS", "STOP JOB 'a''b' WITH DRAIN"] {
            let kind = try flink(sql)
            #expect(try SQLParser.parse(Statement(kind).description).first?.kind == kind, "\(sql)")
        }
    }

    @Test func windowTableFunctionsAreRisingWavesCalls() throws {
        let flinkForm = try flink("SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) AS w")
        let ours = try SQLParser.parse("SELECT * FROM TUMBLE(bids, ts, INTERVAL '1' MINUTE) AS w")[0].kind
        #expect(flinkForm == ours)
        let named = try flink("SELECT * FROM TABLE(HOP(DATA => TABLE s.bids, TIMECOL => DESCRIPTOR(ts), SLIDE => INTERVAL '5' SECOND, SIZE => INTERVAL '10' SECOND))")
        #expect(named == (try SQLParser.parse("SELECT * FROM HOP(s.bids, ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND)")[0].kind))
        #expect(throws: SluiceError.self) { try flink("SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)") }
        #expect(try SQLParser.parseTypeName("TIMESTAMP_LTZ(3)") == (try SQLParser.parseTypeName("timestamp(3) with time zone")))
        #expect(try SQLParser.parseTypeName("TIMESTAMP(3) WITH LOCAL TIME ZONE") == (try SQLParser.parseTypeName("timestamp(3) with time zone")))
    }

    @Test func seedKafkaTableBecomesASource() throws {
        let sql = """
            CREATE TABLE kafka_catalog.payments_db.payment_charges (
                event_id STRING,
                amount DECIMAL(10, 2),
                metadata ROW<
                    order_id STRING,
                    user_email STRING
                >,
                `3ds_authenticated` STRING,
                created_at TIMESTAMP(3),
                WATERMARK FOR created_at AS created_at - INTERVAL '5' SECOND
            ) WITH (
                'connector' = 'kafka',
                'properties.bootstrap.servers' = 'kafka-broker:29092',
                'format' = 'json',
                'scan.startup.mode' = 'earliest-offset',
                'topic' = 'payment_charges',
                'json.ignore-parse-errors' = 'true'
            );
            """
        guard case .createSource(let source) = try flink(sql) else {
            Issue.record("not a source")
            return
        }
        #expect(source.name == ObjectName(["kafka_catalog", "payments_db", "payment_charges"]))
        #expect(source.columns.map(\.name) == ["event_id", "amount", "metadata", "3ds_authenticated", "created_at"])
        #expect(source.watermarks.map(\.column) == ["created_at"])
        #expect(options(source.options) == [
            "connector": "kafka", "topic": "payment_charges", "properties.bootstrap.server": "kafka-broker:29092", "scan.startup.mode": "earliest",
        ])
        #expect(source.format == FormatEncode(format: "PLAIN", encode: "JSON"))
    }

    @Test func startupModesAndFormats() throws {
        func lowered(_ extra: String, format: String = "json") throws -> (options: [String: String], format: FormatEncode?) {
            let kind = try flink("CREATE TABLE t (a INT) WITH ('connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='h:1', 'format'='\(format)'\(extra))")
            guard case .createSource(let source) = kind else { throw SluiceError(.internalError, "not a source") }
            return (options(source.options), source.format)
        }
        #expect(try lowered(", 'scan.startup.mode'='latest-offset'").options["scan.startup.mode"] == "latest")
        #expect(try lowered("").options["scan.startup.mode"] == "latest")
        #expect(try lowered(", 'scan.startup.mode'='group-offsets', 'properties.auto.offset.reset'='earliest'").options["scan.startup.mode"] == "earliest")
        let timestamp = try lowered(", 'scan.startup.mode'='timestamp', 'scan.startup.timestamp-millis'='1700000000000'").options
        #expect(timestamp["scan.startup.mode"] == "timestamp" && timestamp["scan.startup.timestamp.millis"] == "1700000000000")
        let grouped = try lowered(", 'properties.group.id'='g1', 'properties.client.id'='c'").options
        // With a group, Flink's default mode reads what the group committed.
        #expect(grouped["properties.group.id"] == "g1" && grouped["properties.client.id"] == "c" && grouped["scan.startup.mode"] == "group-offsets")
        #expect(try lowered("", format: "csv").format?.encode == "CSV")
        #expect(try lowered("", format: "debezium-json").format == FormatEncode(format: "DEBEZIUM", encode: "JSON"))
        let avro = try lowered(", 'avro-confluent.url'='http://r:8081'", format: "avro-confluent").format
        #expect(avro?.encode == "AVRO" && avro?.options.first?.key == "schema.registry")
    }

    @Test func refusalsAreFlinks() throws {
        let base = "CREATE TABLE t (a INT) WITH ('connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='h:1', 'format'='json'"
        func message(_ sql: String) -> String {
            do {
                _ = try flink(sql)
                return ""
            } catch {
                return (error as? SluiceError)?.message ?? "\(error)"
            }
        }
        #expect(message(base + ", 'sink.partitioner'='fixed', 'bogus'='1')").hasPrefix("Unsupported options found for 'kafka'.\n\nUnsupported options:\n\nbogus\nsink.partitioner"))
        #expect(message(base + ", 'scan.startup.mode'='specific-offsets')").contains("Invalid value for option 'scan.startup.mode'"))
        #expect(message(base + ", 'scan.startup.mode'='timestamp')").contains("'scan.startup.timestamp-millis' is required"))
        #expect(message("CREATE TABLE t (a INT) WITH ('connector'='kafka', 'properties.bootstrap.servers'='h:1', 'format'='json')").contains("topic"))
        #expect(message("CREATE TABLE t (a INT) WITH ('connector'='kafka', 'topic'='t', 'format'='json')").contains("properties.bootstrap.servers"))
        #expect(message("CREATE TABLE t (a INT) WITH ('connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='h:1')").contains("'format'"))
        #expect(message(base.replacingOccurrences(of: "'json'", with: "'raw'") + ")").contains("format factory for identifier 'raw'"))
        #expect(message("CREATE TABLE t (a INT) WITH ('connector'='jdbc')").contains("factory for identifier 'jdbc'"))
        #expect(message("CREATE TABLE t (a INT, PRIMARY KEY (a) NOT ENFORCED) WITH ('connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='h:1', 'format'='json')")
            .contains("doesn't support defining PRIMARY KEY"))
        #expect(message("CREATE TABLE t (a INT) WITH ('connector'='upsert-kafka', 'topic'='t', 'properties.bootstrap.servers'='h:1', 'value.format'='json', 'key.format'='json')")
            .contains("PRIMARY KEY"))
    }

    @Test func upsertKafkaAndDatagenAndFiles() throws {
        let upsert = try flink("""
            CREATE TABLE u (k STRING, v INT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector'='upsert-kafka', 'topic'='u',
              'properties.bootstrap.servers'='h:1', 'key.format'='json', 'value.format'='json')
            """)
        guard case .createTable(let table) = upsert else {
            Issue.record("not a table")
            return
        }
        #expect(table.format == FormatEncode(format: "UPSERT", encode: "JSON"))
        #expect(options(table.options)["topic"] == "u")
        guard case .createSource(let generated) = try flink(
            "CREATE TABLE g (id INT) WITH ('connector'='datagen', 'rows-per-second'='5', 'fields.id.kind'='sequence', 'fields.id.start'='1')")
        else {
            Issue.record("not a source")
            return
        }
        #expect(options(generated.options) == ["connector": "datagen", "datagen.rows.per.second": "5", "fields.id.kind": "sequence", "fields.id.start": "1"])
        guard case .createSource(let files) = try flink("CREATE TABLE f (id INT) WITH ('connector'='filesystem', 'path'='file:///data/in', 'format'='csv')") else {
            Issue.record("not a source")
            return
        }
        #expect(options(files.options) == ["connector": "posix_fs", "posix_fs.root": "/data/in"])
        #expect(files.format?.encode == "CSV")
        // The native dialect leaves Flink's spelling alone (its binder refuses what it does not know).
        #expect(try SQLParser.parse("CREATE TABLE g (id INT) WITH ('connector'='datagen')").first.map { if case .createTable = $0.kind { true } else { false } } == true)
    }

    @Test func javaDatePatternsBecomeToCharPatterns() throws {
        #expect(try FlinkFunctions.toCharPattern("yyyy-MM-dd HH:mm:ss") == "YYYY-MM-DD HH24:MI:SS")
        #expect(try FlinkFunctions.toCharPattern("yyyy-MM-dd'T'HH:mm:ss.SSS") == "YYYY-MM-DD\"T\"HH24:MI:SS.MS")
        #expect(try FlinkFunctions.toCharPattern("dd MMM yy, hh:mm a, EEE") == "DD Mon YY, HH12:MI AM, Dy")
        #expect(try FlinkFunctions.toCharPattern("'it''s' yyyy") == "\"it's\" YYYY")
        #expect(try FlinkFunctions.toCharPattern("SSSSSS") == "US")
        #expect(throws: SluiceError.self) { try FlinkFunctions.toCharPattern("yyyy QQ") }
    }

    @Test func durationsReadAsFlinkReadsThem() {
        #expect(FlinkDialect.durationMilliseconds("10s") == 10_000)
        #expect(FlinkDialect.durationMilliseconds("10 s") == 10_000)
        #expect(FlinkDialect.durationMilliseconds(" 1 min ") == 60_000)
        #expect(FlinkDialect.durationMilliseconds("500") == 500)
        #expect(FlinkDialect.durationMilliseconds("2 h") == 7_200_000)
        #expect(FlinkDialect.durationMilliseconds("1500us") == 2)
        #expect(FlinkDialect.durationMilliseconds("3 SECONDS") == 3000)
        #expect(FlinkDialect.durationMilliseconds("often") == nil)
        #expect(FlinkDialect.durationMilliseconds("10 parsecs") == nil)
        #expect(FlinkDialect.durationMilliseconds("") == nil)
        #expect(FlinkDialect.durationMilliseconds("99999999999999999999 d") == nil)
        #expect(FlinkDialect.checkpointsPerCommit(interval: 10_000, checkpointMilliseconds: 1000) == 10)
        #expect(FlinkDialect.checkpointsPerCommit(interval: 10_500, checkpointMilliseconds: 1000) == 11)
        #expect(FlinkDialect.checkpointsPerCommit(interval: 100, checkpointMilliseconds: 1000) == 1)
    }
}
