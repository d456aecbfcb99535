import SluiceCore
import SluiceHTTP
import SluicePGWire
import Testing

@testable import SluiceServer

/// The ksqlDB door's JSON answers: type names and rows as ksqlDB writes them, its framing of
/// `/query` and `/query-stream`, and its error bodies for requests that cannot run.
@Suite struct KsqlDoorTests {
    @Test func typeNamesAreKsqlDBs() {
        #expect(KsqlJSON.typeName(.varchar) == "STRING")
        #expect(KsqlJSON.typeName(.int32) == "INTEGER")
        #expect(KsqlJSON.typeName(.int64) == "BIGINT")
        #expect(KsqlJSON.typeName(.float64) == "DOUBLE")
        #expect(KsqlJSON.typeName(.decimal(precision: 10, scale: 2)) == "DECIMAL(10, 2)")
        #expect(KsqlJSON.typeName(.list(.varchar)) == "ARRAY<STRING>")
        #expect(KsqlJSON.typeName(.structure([StructField(name: "city", type: .varchar)])) == "STRUCT<`CITY` STRING>")
        #expect(KsqlJSON.schemaText([PGColumn(name: "match_id", type: .varchar), PGColumn(name: "runs", type: .int32)]) == "`MATCH_ID` STRING, `RUNS` INTEGER")
    }

    @Test func rowsAreJSONArraysOfTheirValues() throws {
        let chunk = Chunk(columns: [
            Column(type: .varchar, values: [.string("Cape \"Town\""), .null]),
            Column(type: .int32, values: [.int32(187), .int32(-3)]),
            Column(type: .float64, values: [.float64(2.5), .float64(.infinity)]),
            Column(type: .boolean, values: [.bool(true), .bool(false)]),
            Column(type: .jsonb, values: [.jsonb(#"{"a": [1, 2]}"#), .null]),
        ])
        var out: [UInt8] = []
        KsqlJSON.appendRow(chunk, 0, zone: .utc, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"["Cape \"Town\"",187,2.5,true,{"a": [1, 2]}]"#)
        out.removeAll()
        KsqlJSON.appendRow(chunk, 1, zone: .utc, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"[null,-3,"Infinity",false,null]"#)
    }

    @Test func arraysAndStructsAreJSON() {
        let info = DataType.structure([StructField(name: "city", type: .varchar), StructField(name: "teams", type: .list(.varchar))])
        let chunk = Chunk(columns: [
            Column(type: .list(.int32), values: [.list([.int32(0), .null, .int32(2)])]),
            Column(type: info, values: [.structure([.string("Cape Town"), .list([.string("SA"), .string("NZ")])])]),
        ])
        var out: [UInt8] = []
        KsqlJSON.appendRow(chunk, 0, zone: .utc, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"[[0,null,2],{"CITY":"Cape Town","TEAMS":["SA","NZ"]}]"#)
    }

    @Test func framingOfBothQueryEndpointsIsValidJSON() throws {
        let columns = [PGColumn(name: "a", type: .int32)]
        for format in [KsqlRowFormat(api: .classic, acceptsJSON: false), KsqlRowFormat(api: .stream, acceptsJSON: true)] {
            var out = format.header(queryID: "q1", columns: columns)
            for value in [1, 2] { format.appendRow({ $0 += Array("[\(value)]".utf8) }, to: &out) }
            out += format.trailer(finalMessage: "Limit Reached")
            guard case .array(let items) = try JSONDocument.parse(out) else {
                Issue.record("not an array")
                continue
            }
            #expect(items.count == (format.api == .classic ? 4 : 3))
        }
        let delimited = KsqlRowFormat(api: .stream, acceptsJSON: false)
        var out = delimited.header(queryID: "q2", columns: columns)
        delimited.appendRow({ $0 += Array("[7]".utf8) }, to: &out)
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(try JSONDocument.parse(lines[0])["columnNames"] == .array([.string("A")]))
        #expect(try JSONDocument.parse(lines[0])["columnTypes"] == .array([.string("INTEGER")]))
        #expect(lines[1] == "[7]")
        #expect(delimited.contentType == "application/vnd.ksqlapi.delimited.v1")
    }

    func post(_ service: KsqlService, _ body: String) async throws -> (Int, JSONDocument) {
        let response = await service.ksql(HTTPServerRequest(method: .POST, uri: "/ksql", body: Array(body.utf8)))
        guard case .bytes(let bytes) = response.body else { throw SluiceError(.internalError, "streamed answer") }
        return (Int(response.status.code), try JSONDocument.parse(bytes))
    }

    @Test func requestsAnsweredInKsqlDBsShape() async throws {
        let database = try Database(dataDirectory: nil, barrierIntervalMilliseconds: 1000)
        let service = KsqlService(database: database, broker: nil, bootstrap: nil, schemaRegistryURL: nil)

        let (listed, streams) = try await post(service, #"{"ksql": "SHOW STREAMS; SHOW TABLES;", "streamsProperties": {}}"#)
        #expect(listed == 200)
        guard case .array(let entities) = streams else { Issue.record("not a list"); return }
        #expect(entities.map { $0["@type"] } == [.string("streams"), .string("tables")])
        #expect(entities[0]["streams"] == .array([]))

        let (malformed, generic) = try await post(service, "{not json")
        #expect(malformed == 400)
        #expect(generic["@type"] == .string("generic_error") && generic["error_code"] == .int(40000))

        let (unknown, statement) = try await post(service, #"{"ksql": "SHOW TOPICS; FROBNICATE;"}"#)
        #expect(unknown == 400)
        #expect(statement["@type"] == .string("statement_error") && statement["error_code"] == .int(40001))

        let (select, endpoint) = try await post(service, #"{"ksql": "SHOW TOPICS; SELECT * FROM s EMIT CHANGES;"}"#)
        #expect(select == 400)
        #expect(endpoint["error_code"] == .int(40002))
        #expect(endpoint["entities"].map { entities in if case .array(let items) = entities { items.count } else { -1 } } == 1)

        let (noBroker, refused) = try await post(service, #"{"ksql": "CREATE STREAM s (a INT) WITH (KAFKA_TOPIC='t', VALUE_FORMAT='JSON');"}"#)
        #expect(noBroker == 400)
        #expect(refused["message"]?.stringValue?.contains("broker") == true)

        let (badOption, option) = try await post(service, #"{"ksql": "CREATE STREAM s (a INT) WITH (KAFKA_TOPIC='t', NOPE=1);"}"#)
        #expect(badOption == 400)
        #expect(option["message"] == .string("Invalid config variable(s) in the WITH clause: NOPE"))
        try await database.shutdown()
    }
}

@Suite struct KsqlPrintTests {
    @Test func rowtimeIsUTCInPrintsLayout() {
        #expect(KsqlService.rowtime(0) == "1970/01/01 00:00:00.000 Z")
        #expect(KsqlService.rowtime(1_704_879_000_123) == "2024/01/10 09:30:00.123 Z")
        #expect(KsqlService.rowtime(951_782_400_000) == "2000/02/29 00:00:00.000 Z")
        #expect(KsqlService.rowtime(-1) == "1969/12/31 23:59:59.999 Z")
    }
}
