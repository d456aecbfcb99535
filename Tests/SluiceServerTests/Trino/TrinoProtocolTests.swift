import Foundation
import SluiceCore
import SluiceSQL
import Testing

@testable import SluiceServer

/// The Trino door's pieces: type names and signatures as Trino's clients read them, values in
/// Trino's JSON forms, the QueryResults shape, error names from SQLSTATEs, the statements the
/// door answers itself, and paging a result through ``TrinoQuery``.
@Suite struct TrinoProtocolTests {
    private func json(_ write: (inout TrinoJSONWriter) -> Void) -> String {
        var writer = TrinoJSONWriter()
        write(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func typeNamesAreTrinos() {
        let expected: [(DataType, String)] = [
            (.boolean, "boolean"), (.int16, "smallint"), (.int32, "integer"), (.int64, "bigint"), (.float32, "real"),
            (.float64, "double"), (.decimal(precision: 10, scale: 2), "decimal(10,2)"), (.decimal(precision: 10, scale: nil), "decimal(10,0)"),
            (.varchar, "varchar"), (.date, "date"), (.timestamp, "timestamp(6)"), (.timestamptz, "timestamp(6) with time zone"),
            (.jsonb, "json"), (.bytea, "varbinary"), (.list(.int32), "array(integer)"),
            (.structure([StructField(name: "a", type: .int64), StructField(name: "b c", type: .varchar)]), "row(a bigint, \"b c\" varchar)"),
        ]
        for (type, name) in expected { #expect(TrinoTypes.name(of: type) == name) }
    }

    @Test func signaturesCarryTheArgumentsClientsRead() {
        #expect(json { TrinoTypes.writeSignature(of: .decimal(precision: 10, scale: 2), to: &$0) }
            == #"{"rawType":"decimal","arguments":[{"kind":"LONG","value":10},{"kind":"LONG","value":2}]}"#)
        #expect(json { TrinoTypes.writeSignature(of: .varchar, to: &$0) } == #"{"rawType":"varchar","arguments":[{"kind":"LONG","value":2147483647}]}"#)
        #expect(json { TrinoTypes.writeSignature(of: .int64, to: &$0) } == #"{"rawType":"bigint","arguments":[]}"#)
        #expect(json { TrinoTypes.writeSignature(of: .list(.boolean), to: &$0) }
            == #"{"rawType":"array","arguments":[{"kind":"TYPE","value":{"rawType":"boolean","arguments":[]}}]}"#)
        #expect(json { TrinoTypes.writeSignature(of: .structure([StructField(name: "x", type: .timestamp)]), to: &$0) }
            == #"{"rawType":"row","arguments":[{"kind":"NAMED_TYPE","value":{"fieldName":{"name":"x"},"typeSignature":{"rawType":"timestamp","arguments":[{"kind":"LONG","value":6}]}}}]}"#)
    }

    @Test func valuesInTrinosJSONForms() throws {
        let micros: Int64 = 1_704_164_645_123_000  // 2024-01-02 03:04:05.123 UTC
        let columns: [(Column, String)] = [
            (Column(type: .int64, values: [.int64(-7)]), "-7"),
            (Column(type: .varchar, values: [.string("a \"b\"\n")]), #""a \"b\"\n""#),
            (Column(type: .decimal(precision: 10, scale: 2), values: [.decimal(try Decimal(parsingText: "12.30"))]), #""12.30""#),
            (Column(type: .timestamp, values: [.timestamp(micros)]), #""2024-01-02 03:04:05.123000""#),
            (Column(type: .timestamp, values: [.timestamp(micros - 123_000)]), #""2024-01-02 03:04:05.000000""#),
            (Column(type: .timestamptz, values: [.timestamptz(micros)]), #""2024-01-02 03:04:05.123000 UTC""#),
            (Column(type: .date, values: [.date(19_724)]), #""2024-01-02""#),
            (Column(type: .float64, values: [.float64(.nan)]), #""NaN""#),
            (Column(type: .float64, values: [.float64(-.infinity)]), #""-Infinity""#),
            (Column(type: .float64, values: [.float64(0.1)]), "0.1"),
            (Column(type: .boolean, values: [.bool(true)]), "true"),
            (Column(type: .bytea, values: [.bytea([0, 255])]), #""AP8=""#),
            (Column(type: .list(.int32), values: [.list([.int32(1), .null])]), "[1,null]"),
            (Column(type: .int32, values: [.null]), "null"),
        ]
        for (column, expected) in columns {
            #expect(json { TrinoTypes.writeValue(column, at: 0, to: &$0) } == expected)
            // The per-chunk writer of the data path writes the same.
            #expect(json { TrinoColumnWriter(column).write(0, to: &$0) } == expected)
        }
    }

    @Test func errorNamesFromSQLStates() {
        #expect(TrinoError(SluiceError(.syntaxError, "x")).name == "SYNTAX_ERROR")
        #expect(TrinoError(SluiceError(.undefinedTable, "x")).name == "TABLE_NOT_FOUND")
        #expect(TrinoError(SluiceError(.undefinedColumn, "x")).name == "COLUMN_NOT_FOUND")
        #expect(TrinoError(SluiceError(.featureNotSupported, "x")).name == "NOT_SUPPORTED")
        #expect(TrinoError(SluiceError(.uniqueViolation, "x")).name == "GENERIC_USER_ERROR")
        #expect(TrinoError(SluiceError(.uniqueViolation, "x")).type == "USER_ERROR")
        #expect(TrinoError(SluiceError(.internalError, "x")).type == "INTERNAL_ERROR")
        let error = TrinoError(SluiceError(.undefinedTable, "relation \"t\" does not exist"))
        let text = json { error.write(to: &$0) }
        let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(object?["errorName"] as? String == "TABLE_NOT_FOUND")
        #expect(object?["errorCode"] as? Int == 46)
        #expect(object?["message"] as? String == "relation \"t\" does not exist")
    }

    @Test func statementsTheDoorAnswers() throws {
        #expect(try TrinoStatement.parse("SHOW CATALOGS;") == .showCatalogs(like: nil))
        #expect(try TrinoStatement.parse("show schemas from Hive like 'd%'") == .showSchemas(catalog: "hive", like: "d%"))
        #expect(try TrinoStatement.parse("SHOW TABLES IN iceberg.payments_db") == .showTables(schema: ObjectName(["iceberg", "payments_db"]), like: nil))
        #expect(try TrinoStatement.parse("describe hive_events;") == .describe(ObjectName("hive_events")))
        #expect(try TrinoStatement.parse("SHOW COLUMNS FROM \"My Table\"") == .describe(ObjectName("My Table")))
        #expect(try TrinoStatement.parse("USE hive.default") == .use(catalog: "hive", schema: "default"))
        #expect(try TrinoStatement.parse("select count(*) from hive_events;") == .sql("select count(*) from hive_events;"))
        #expect(throws: SluiceError.self) { try TrinoStatement.parse("SHOW TABLES FROM") }
        #expect(TrinoStatement.matches("payments_db", "pay%_db"))
        #expect(!TrinoStatement.matches("public", "p_l%"))
    }

    @Test func resultsPageByPageAndRetriesGetTheSamePage() async throws {
        let harness = try SQLHarness()
        let session = SQLSession(database: harness.database, user: "root", databaseName: "dev", parameters: [:])
        let query = TrinoQuery(id: "q1", slug: "s", session: session) {
            do throws(SluiceError) {
                return try await TrinoStatement.sql("SELECT g, 'label ' || g FROM generate_series(1, 150000) AS g").run(
                    session: session, names: TrinoSessionNames(), catalogs: TrinoCatalogs(catalog: harness.database.catalog, store: nil, icebergWarehouse: nil))
            } catch {
                return .failed(TrinoError(error))
            }
        }
        let uris = TrinoURIs(base: "http://localhost:8080")
        let first = try #require(JSONSerialization.jsonObject(with: Data(query.queuedPage(uris).body)) as? [String: Any])
        #expect(first["nextUri"] as? String == "http://localhost:8080/v1/statement/executing/q1/s/1")
        #expect(await query.page(2, uris) == nil)
        var token = 1
        var total = 0
        var pages = 0
        while true {
            let page = try #require(await query.page(token, uris))
            #expect(page.body.count < TrinoQuery.pageBytes + 256 * 1024)
            // A retry of the token just served answers the same bytes.
            #expect(await query.page(token, uris)?.body == page.body)
            let object = try #require(JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any])
            #expect((object["columns"] as? [[String: Any]])?.map { $0["type"] as? String } == ["integer", "varchar"])
            for row in object["data"] as? [[Any]] ?? [] { total += row[0] as? Int ?? 0 }
            pages += 1
            guard page.hasNext else {
                #expect((object["stats"] as? [String: Any])?["state"] as? String == "FINISHED")
                break
            }
            token += 1
        }
        #expect(pages > 1)
        #expect(total == 150_000 * 150_001 / 2)
    }
}

/// Named prepared statements: the statements, and the header the client keeps them in.
@Suite struct TrinoPreparedStatementTests {
    @Test func preparedStatementsParse() throws {
        #expect(try TrinoStatement.parse("PREPARE st_1 FROM SELECT ? + 1;") == .prepare(name: "st_1", statement: "SELECT ? + 1"))
        #expect(try TrinoStatement.parse("EXECUTE st_1 USING 41, 'x'") == .execute(name: "st_1", using: "41, 'x'"))
        #expect(try TrinoStatement.parse("EXECUTE st_1") == .execute(name: "st_1", using: nil))
        #expect(try TrinoStatement.parse("DEALLOCATE PREPARE st_1") == .deallocate(name: "st_1"))
        #expect(throws: SluiceError.self) { try TrinoStatement.parse("EXECUTE st_1 WITH 1") }
        #expect(throws: SluiceError.self) { try TrinoStatement.parse("EXECUTE 'st_1'") }
    }

    @Test func headersRoundTrip() throws {
        let statement = "SELECT 'a b,c=d%é' FROM t WHERE x = ?"
        let encoded = TrinoPreparedStatements.encode(statement)
        #expect(!encoded.contains(",") && !encoded.contains("=") && !encoded.contains(" "))
        #expect(TrinoPreparedStatements.decode(["st_1=\(encoded), st_2=SELECT+1"]) == ["st_1": statement, "st_2": "SELECT 1"])
        #expect(TrinoPreparedStatements.decode(["st_1"]) == nil)
        #expect(TrinoPreparedStatements.decode(["st_1=%4"]) == nil)
        #expect(TrinoPreparedStatements.decode(["st_1=%FF"]) == nil)
        #expect(TrinoPreparedStatements.decode(["", " , "]) == [:])
    }

    @Test func randomHeadersNeverCrashTheDecoder() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("%+=, abcXYZ019é\u{0}".unicodeScalars)
        for _ in 0 ..< 5_000 {
            let length = Int.random(in: 0 ... 40, using: &generator)
            var text = ""
            for _ in 0 ..< length { text.unicodeScalars.append(alphabet.randomElement(using: &generator)!) }
            if let decoded = TrinoPreparedStatements.decode([text]) {
                for (name, statement) in decoded {
                    #expect(!name.isEmpty)
                    #expect(TrinoPreparedStatements.decode(["\(name)=\(TrinoPreparedStatements.encode(statement))"]) == [name: statement])
                }
            }
        }
    }
}
