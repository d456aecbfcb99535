import SluiceCore
import Testing

@testable import SluiceSQL

/// ksqlDB's SQL parses into the same AST nodes as the Postgres dialect's: its queries are the
/// queries `SQLParser.parse` builds, its columns and options the same definitions.
@Suite struct KsqlStatementTests {
    func one(_ sql: String) throws -> KsqlStatement.Kind {
        let statements = try SQLParser.parseKsql(sql)
        #expect(statements.count == 1)
        return try #require(statements.first).kind
    }

    @Test func createStreamWithColumnsAndOptions() throws {
        let kind = try one("CREATE STREAM t20_init (payload VARCHAR, id INT KEY, tags ARRAY<STRING>) WITH (kafka_topic='mongo.t20', VALUE_FORMAT='JSON', PARTITIONS=2);")
        guard case .create(let create) = kind else { Issue.record("not a CREATE: \(kind)"); return }
        #expect(!create.isTable)
        #expect(create.name == ObjectName("t20_init"))
        #expect(create.columns.map(\.name) == ["payload", "id", "tags"])
        #expect(create.columns[1].constraints == [.primaryKey])
        #expect(create.columns[2].type?.arrayDimensions == 1)
        #expect(create.options.map(\.key) == ["KAFKA_TOPIC", "VALUE_FORMAT", "PARTITIONS"])
        #expect(create.option("KAFKA_TOPIC") == .string("mongo.t20"))
        #expect(create.option("PARTITIONS") == .number("2"))
    }

    @Test func createTableWithPrimaryKey() throws {
        guard case .create(let create) = try one("CREATE TABLE IF NOT EXISTS teams (name STRING PRIMARY KEY, captain VARCHAR) WITH (KAFKA_TOPIC='teams', VALUE_FORMAT='JSON')") else {
            Issue.record("not a CREATE")
            return
        }
        #expect(create.isTable && create.ifNotExists)
        #expect(create.columns[0].constraints == [.primaryKey])
    }

    @Test func createAsSelectCarriesTheSameQueryAsPostgres() throws {
        let select = "SELECT EXTRACTJSONFIELD(payload, '$.info.city') AS city FROM t20_init WHERE payload IS NOT NULL"
        guard case .createAsSelect(let create) = try one("CREATE STREAM cities WITH (KAFKA_TOPIC='cities') AS \(select) EMIT CHANGES;") else {
            Issue.record("not a CSAS")
            return
        }
        guard case .query(let expected) = try SQLParser.parse(select)[0].kind else { Issue.record("not a query"); return }
        #expect(create.query == expected)
        #expect(create.queryText == select)
        #expect(create.option("KAFKA_TOPIC") == .string("cities"))
    }

    @Test func pushAndPullQueries() throws {
        guard case .select(let push, let emitChanges) = try one("SELECT * FROM s EMIT CHANGES LIMIT 3;") else { Issue.record("not a SELECT"); return }
        #expect(emitChanges)
        #expect(push.limit == Expression(.literal(.integer(3))))
        guard case .select(_, let pullEmits) = try one("SELECT a FROM t WHERE k = 'x';") else { Issue.record("not a SELECT"); return }
        #expect(!pullEmits)
    }

    @Test func listingsAndUtilityStatements() throws {
        #expect(try one("SHOW STREAMS;") == .list(.streams))
        #expect(try one("LIST TABLES EXTENDED") == .list(.tables))
        #expect(try one("show queries") == .list(.queries))
        #expect(try one("SHOW TOPICS") == .list(.topics))
        #expect(try one("DESCRIBE EXTENDED players") == .describe(ObjectName("players"), extended: true))
        #expect(try one("DROP STREAM IF EXISTS players DELETE TOPIC") == .drop(isTable: false, name: ObjectName("players"), ifExists: true, deleteTopic: true))
        #expect(try one("DROP TABLE teams") == .drop(isTable: true, name: ObjectName("teams"), ifExists: false, deleteTopic: false))
        #expect(try one("TERMINATE CSAS_PLAYERS_3") == .terminate("CSAS_PLAYERS_3"))
        #expect(try one("TERMINATE ALL") == .terminate(nil))
        #expect(try one("PRINT 'mongo.t20' FROM BEGINNING LIMIT 5") == .print(topic: "mongo.t20", fromBeginning: true, limit: 5))
        #expect(try one("SET 'auto.offset.reset' = 'earliest'") == .setProperty("auto.offset.reset", "earliest"))
        #expect(try one("INSERT INTO all_scores SELECT * FROM new_scores") != .list(.streams))
    }

    @Test func severalStatementsKeepTheirText() throws {
        let statements = try SQLParser.parseKsql("SHOW STREAMS;\n  DESCRIBE s ;")
        #expect(statements.map(\.sourceText) == ["SHOW STREAMS", "DESCRIBE s"])
    }

    @Test func refusalsAndSyntaxErrors() {
        #expect(throws: SluiceError.self) { try SQLParser.parseKsql("FROBNICATE everything") }
        #expect(throws: SluiceError.self) { try SQLParser.parseKsql("CREATE STREAM s (a INT) AS SELECT 1") }
        do {
            _ = try SQLParser.parseKsql("SELECT * FROM s EMIT FINAL")
            Issue.record("EMIT FINAL parsed")
        } catch {
            #expect(error.code == .featureNotSupported)
        }
    }
}

/// ksqlDB's `struct->field` reads a field in ksqlDB's SQL; the Postgres dialect keeps `->` as
/// jsonb's operator.
@Suite struct KsqlFieldAccessTests {
    @Test func arrowIsFieldAccessInKsqlOnly() throws {
        guard case .select(let query, _) = try SQLParser.parseKsql("SELECT info->city->name FROM s")[0].kind,
              case .select(let select) = query.body, case .expression(let expression, _) = select.projection[0]
        else {
            Issue.record("not a select")
            return
        }
        let info = Expression(.column(["info"]))
        #expect(expression == Expression(.fieldAccess(Expression(.fieldAccess(info, field: "city")), field: "name")))
        let postgres = try SQLParser.parseExpression("info->'city'")
        guard case .binary = postgres.node else {
            Issue.record("-> is not an operator in the Postgres dialect: \(postgres)")
            return
        }
    }
}

/// ksqlDB's `'text' + x` concatenation and its MAP type.
@Suite struct KsqlOperatorTests {
    func projection(_ sql: String) throws -> Expression? {
        guard case .select(let query, _) = try SQLParser.parseKsql(sql)[0].kind, case .select(let select) = query.body,
              case .expression(let expression, _) = select.projection[0]
        else { return nil }
        return expression
    }

    @Test func plusWithAStringLiteralConcatenates() throws {
        let concatenated = try #require(try projection("SELECT 'Match ' + id + ' at ' + city FROM s"))
        guard case .binary(let left, .concat, _) = concatenated.node, case .binary(let inner, .concat, _) = left.node,
              case .binary(_, .concat, _) = inner.node
        else {
            Issue.record("not a concatenation: \(concatenated)")
            return
        }
        // Between operands of unknown types, the binder decides (`||` for strings, `+` else).
        let sum = try #require(try projection("SELECT a + 1 FROM s"))
        guard case .function(let call) = sum.node, call.name == ObjectName(SQLParser.ksqlPlus), call.arguments.count == 2 else {
            Issue.record("a + 1 is not ksql_plus: \(sum)")
            return
        }
        #expect(sum.description == "ksql_plus(a, 1)")
        guard case .binary(_, .plus, _) = try SQLParser.parseExpression("'1' + 2").node else {
            Issue.record("the Postgres dialect's + changed")
            return
        }
    }

    @Test func mapTypesAreRefusedClearly() {
        do {
            _ = try SQLParser.parseKsql("CREATE STREAM s (m MAP<STRING, INT>) WITH (KAFKA_TOPIC='t')")
            Issue.record("MAP parsed")
        } catch {
            #expect(error.code == .featureNotSupported)
        }
    }
}

@Suite struct KsqlWindowTests {
    @Test func windowedAggregationsAreRefusedByName() {
        do {
            _ = try SQLParser.parseKsql("CREATE TABLE w AS SELECT a, COUNT(*) FROM s WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY a;")
            Issue.record("WINDOW TUMBLING parsed")
        } catch {
            #expect(error.code == .featureNotSupported)
            #expect(error.message.contains("TUMBLING"))
        }
    }

}

/// ksqlDB's connector statements, their property keys as written.
@Suite struct KsqlConnectorStatementTests {
    func one(_ sql: String) throws -> KsqlStatement.Kind {
        let statements = try SQLParser.parseKsql(sql)
        #expect(statements.count == 1)
        return try #require(statements.first).kind
    }

    @Test func connectorStatements() throws {
        let create = try one("CREATE SOURCE CONNECTOR IF NOT EXISTS pg_orders WITH ('connector.class' = 'io.debezium.connector.postgresql.PostgresConnector', 'database.port' = 5432, 'Table.Include.List' = 'public.orders');")
        #expect(create == .createConnector(KsqlCreateConnector(isSource: true, name: "pg_orders", ifNotExists: true, properties: [
            WithOption(key: "connector.class", value: .string("io.debezium.connector.postgresql.PostgresConnector")),
            WithOption(key: "database.port", value: .number("5432")), WithOption(key: "Table.Include.List", value: .string("public.orders")),
        ])))
        guard case .createConnector(let sink) = try one("CREATE SINK CONNECTOR `Jdbc_Out` WITH ('topics' = 'a')") else {
            Issue.record("not a CREATE SINK CONNECTOR")
            return
        }
        #expect(!sink.isSource && !sink.ifNotExists && sink.name == "Jdbc_Out")
        #expect(try one("SHOW CONNECTORS") == .listConnectors(isSource: Bool?.none))
        #expect(try one("LIST SOURCE CONNECTORS;") == .listConnectors(isSource: true))
        #expect(try one("SHOW SINK CONNECTORS") == .listConnectors(isSource: false))
        #expect(try one("DESCRIBE CONNECTOR pg_orders") == .describeConnector("pg_orders"))
        #expect(try one("DROP CONNECTOR IF EXISTS pg_orders") == .dropConnector("pg_orders", ifExists: true))
        #expect(try one("DROP CONNECTOR \"Pg\"") == .dropConnector("Pg", ifExists: false))
        // A stream named connector is still described as a stream.
        #expect(try one("DESCRIBE connector") == .describe(ObjectName("connector"), extended: false))
        #expect(throws: SluiceError.self) { try SQLParser.parseKsql("CREATE SOURCE CONNECTOR c") }
    }
}
