import Foundation
import SluiceConnectors
import SluiceCore
import SluicePostgresClient
import SluiceServer

/// `sluice bench front-doors`: the same GROUP BY query's result rows a second to the client
/// through each front door, beside the Postgres wire (psql's COPY out), and a trivial
/// statement's round trip through each (a client's whole exchange: for Flink's gateway, submit,
/// status and fetch). Goal: each protocol moves rows at ≥ 0.5× the Postgres wire's rate, and a
/// trivial statement takes ≤ 2 ms.
///
/// The server runs in process; the clients are blocking sockets on this thread (psql for COPY,
/// libpq for the Postgres wire's trivial statements).
package struct FrontDoorsBenchmark {
    package var groups: Int
    package var runs: Int
    package var statements: Int

    package init(groups: Int, runs: Int, statements: Int) {
        self.groups = max(groups, 1)
        self.runs = max(runs, 1)
        self.statements = max(statements, 10)
    }

    static let query = "SELECT k, count(*) AS n, sum(v) AS total FROM door_rows GROUP BY k"

    package func run() async throws {
        let directory = try benchDirectory(named: "front-doors")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = benchServerConfiguration(directory: directory)
        configuration.flinkGateway = FrontDoorAddress(host: "127.0.0.1", port: 0)
        var trinoSettings = TrinoConfiguration()
        trinoSettings.port = 0
        configuration.trino = trinoSettings
        var ksqlSettings = KsqlConfiguration()
        ksqlSettings.port = 0
        configuration.ksql = ksqlSettings
        let server = try await SluiceServer.start(configuration)
        let session = SQLSession(database: server.database, user: "root", databaseName: "dev", parameters: [:])
        _ = try await session.execute(script: """
            CREATE TABLE door_rows (k bigint, v double precision);
            INSERT INTO door_rows SELECT i % \(groups), (i % 1000) * 0.5 FROM generate_series(1, \(groups * 5)) AS i;
            FLUSH
            """)
        guard let flinkPort = server.flinkGateway?.server.port else { throw SluiceError.internalError("the Flink gateway did not start") }
        guard let trinoPort = server.trino?.port else { throw SluiceError.internalError("the Trino door did not start") }
        guard let ksqlPort = server.ksql?.port else { throw SluiceError.internalError("the ksqlDB door did not start") }
        let sqlPort = server.sqlServer.port
        report("sluice bench front-doors: \(groups) result rows of `\(Self.query)`, best of \(runs); \(statements) trivial statements a door")

        let postgres = try best { () throws -> Int in try copyOut(port: sqlPort) }
        report(String(format: "  rows/s  Postgres wire (psql COPY out)    %10.0f", postgres))
        let flink = try best { () throws -> Int in try flinkRows(port: flinkPort) }
        report(String(format: "  rows/s  Flink SQL gateway (JSON pages)   %10.0f   %.2f× the Postgres wire", flink, flink / postgres))
        let trino = try best { () throws -> Int in try trinoRows(port: trinoPort) }
        report(String(format: "  rows/s  Trino protocol (nextUri pages)   %10.0f   %.2f× the Postgres wire", trino, trino / postgres))
        let ksql = try best { () throws -> Int in try ksqlRows(port: ksqlPort) }
        report(String(format: "  rows/s  ksqlDB /query-stream (lines)     %10.0f   %.2f× the Postgres wire", ksql, ksql / postgres))

        let pgTrivial = try postgresTrivial(port: sqlPort)
        report(String(format: "  SELECT 1  Postgres wire (libpq)          p50 %6.3f ms  p99 %6.3f ms", pgTrivial.p50, pgTrivial.p99))
        let flinkTrivial = try flinkTrivial(port: flinkPort)
        report(String(format: "  SELECT 1  Flink SQL gateway (3 requests) p50 %6.3f ms  p99 %6.3f ms", flinkTrivial.p50, flinkTrivial.p99))
        let trinoTrivial = try trinoTrivial(port: trinoPort)
        report(String(format: "  SELECT 1  Trino protocol (POST, pages)   p50 %6.3f ms  p99 %6.3f ms", trinoTrivial.p50, trinoTrivial.p99))
        let ksqlTrivial = try ksqlTrivial(port: ksqlPort)
        report(String(format: "  SELECT 1  ksqlDB /query-stream (1 POST)  p50 %6.3f ms  p99 %6.3f ms", ksqlTrivial.p50, ksqlTrivial.p99))
        try await server.shutdown()
    }

    /// The best rows/s over ``runs`` runs of `body`, which returns the rows it received.
    private func best(_ body: () throws -> Int) throws -> Double {
        var best = 0.0
        for _ in 0 ..< runs {
            let start = ContinuousClock.now
            let rows = try body()
            let seconds = (ContinuousClock.now - start).inSeconds
            guard rows == groups else { throw SluiceError(.internalError, "\(rows) rows arrived, not \(groups)") }
            best = max(best, Double(rows) / seconds)
        }
        return best
    }

    /// psql's `COPY (query) TO STDOUT`: the lines it printed.
    private func copyOut(port: Int) throws -> Int {
        let run = try LocalProcess.run([
            "psql", "-X", "-q", "-h", "127.0.0.1", "-p", String(port), "-U", "root", "-d", "dev", "-c", "COPY (\(Self.query)) TO STDOUT",
        ])
        guard run.status == 0 else { throw SluiceError(.ioError, "psql failed: \(run.errors)") }
        return run.output.utf8.count { $0 == UInt8(ascii: "\n") }
    }

    /// Flink's gateway as its clients use it: a session, the statement, its status until it
    /// finished, then every page: the rows received.
    private func flinkRows(port: Int) throws -> Int {
        let client = try BenchHTTPClient(port: port, what: "Flink SQL gateway")
        let session = try Self.field("sessionHandle", of: client.request("POST", "/v3/sessions", body: Array("{}".utf8)))
        defer { _ = try? client.request("DELETE", "/v3/sessions/\(session)") }
        let operation = try flinkSubmit(Self.query, session: session, client: client)
        let marker = Array(#"{"kind":"#.utf8)
        var rows = 0
        var token = 0
        while true {
            let page = try client.request("GET", "/v3/sessions/\(session)/operations/\(operation)/result/\(token)?rowFormat=JSON")
            guard page.status == 200 else { throw SluiceError(.ioError, "the gateway answered \(page.status) for a page") }
            rows += Self.occurrences(of: marker, in: page.body)
            // The last page (EOS) has no next page's address, which comes after the rows.
            guard String(decoding: page.body.suffix(512), as: UTF8.self).contains(#""nextResultUri""#) else { return rows }
            token += 1
        }
    }

    /// Trino's protocol as its clients use it: the statement's POST, then each `nextUri` until
    /// there is none: the rows received.
    private func trinoRows(port: Int) throws -> Int {
        let client = try BenchHTTPClient(port: port, what: "Trino door")
        var rows = 0
        var answer = try client.request("POST", "/v1/statement", body: Array(Self.query.utf8), headers: [("X-Trino-User", "root")])
        while true {
            guard answer.status == 200 else { throw SluiceError(.ioError, "the Trino door answered \(answer.status)") }
            rows += Self.arrayElements(after: Array(#""data":["#.utf8), in: answer.body)
            guard let next = Self.nextURI(in: answer.body) else { return rows }
            answer = try client.request("GET", next, headers: [("X-Trino-User", "root")])
        }
    }

    /// A trivial statement as a Trino client runs it: the POST, and pages until the end.
    private func trinoTrivial(port: Int) throws -> Latency {
        let client = try BenchHTTPClient(port: port, what: "Trino door")
        var samples: [Double] = []
        for _ in 0 ..< statements {
            let start = ContinuousClock.now
            var answer = try client.request("POST", "/v1/statement", body: Array("SELECT 1".utf8), headers: [("X-Trino-User", "root")])
            while answer.status == 200, let next = Self.nextURI(in: answer.body) {
                answer = try client.request("GET", next, headers: [("X-Trino-User", "root")])
            }
            samples.append((ContinuousClock.now - start).inSeconds * 1000)
            guard answer.status == 200 else { throw SluiceError(.ioError, "the Trino door answered \(answer.status)") }
        }
        return Self.latency(samples)
    }

    /// ksqlDB's `/query-stream` as its clients use it (delimited: a metadata line, then a line
    /// per row): the rows received.
    private func ksqlRows(port: Int) throws -> Int {
        let client = try BenchHTTPClient(port: port, what: "ksqlDB door")
        var body: [UInt8] = []
        JSONDocument.object(["sql": .string(Self.query + ";"), "properties": .object([])]).write(to: &body)
        var lines = 0
        let status = try client.request(
            "POST", "/query-stream", body: body, headers: [("Content-Type", "application/json"), ("Accept", "application/vnd.ksqlapi.delimited.v1")]
        ) { piece in lines += piece.count { $0 == UInt8(ascii: "\n") } }
        guard status == 200 else { throw SluiceError(.ioError, "the ksqlDB door answered \(status)") }
        return lines - 1
    }

    private func ksqlTrivial(port: Int) throws -> Latency {
        let client = try BenchHTTPClient(port: port, what: "ksqlDB door")
        var body: [UInt8] = []
        JSONDocument.object(["sql": .string("SELECT 1;"), "properties": .object([])]).write(to: &body)
        var samples: [Double] = []
        for _ in 0 ..< statements {
            let start = ContinuousClock.now
            let answer = try client.request(
                "POST", "/query-stream", body: body, headers: [("Content-Type", "application/json"), ("Accept", "application/vnd.ksqlapi.delimited.v1")])
            samples.append((ContinuousClock.now - start).inSeconds * 1000)
            guard answer.status == 200 else {
                throw SluiceError(.ioError, "the ksqlDB door answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            }
        }
        return Self.latency(samples)
    }

    /// The path of a QueryResults' `nextUri`, when it has one.
    private static func nextURI(in body: [UInt8]) -> String? {
        let marker = Array(#""nextUri":""#.utf8)
        guard let found = body.firstRange(of: marker) else { return nil }
        guard let end = body[found.upperBound...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let uri = String(decoding: body[found.upperBound ..< end], as: UTF8.self)
        guard let scheme = uri.range(of: "://"), let slash = uri[scheme.upperBound...].firstIndex(of: "/") else { return uri }
        return String(uri[slash...])
    }

    /// How many elements the JSON array right after `key` holds (strings skipped whole).
    private static func arrayElements(after key: [UInt8], in body: [UInt8]) -> Int {
        guard let found = body.firstRange(of: key) else { return 0 }
        var depth = 1
        var count = 0
        var inString = false
        var escaped = false
        var index = found.upperBound
        while index < body.count, depth > 0 {
            let byte = body[index]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    if depth == 1 { count += 1 }
                    depth += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
                default: break
                }
            }
            index += 1
        }
        return count
    }

    /// Submits `statement` in `session` and waits (polling its status) until it finished.
    private func flinkSubmit(_ statement: String, session: String, client: BenchHTTPClient) throws -> String {
        var body: [UInt8] = []
        JSONDocument.object(["statement": .string(statement)]).write(to: &body)
        let operation = try Self.field("operationHandle", of: client.request("POST", "/v3/sessions/\(session)/statements", body: body))
        while true {
            let status = try Self.field("status", of: client.request("GET", "/v3/sessions/\(session)/operations/\(operation)/status"))
            if status == "FINISHED" { return operation }
            guard status == "RUNNING" else { throw SluiceError(.ioError, "the statement ended \(status)") }
            // As a client polls: not in a loop that takes a core from the statement.
            Thread.sleep(forTimeInterval: 0.001)
        }
    }

    struct Latency {
        var p50: Double
        var p99: Double
    }

    private static func latency(_ samples: [Double]) -> Latency {
        let sorted = samples.sorted()
        return Latency(p50: sorted[sorted.count / 2], p99: sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
    }

    private func postgresTrivial(port: Int) throws -> Latency {
        let connection = try PostgresConnection(PostgresConnectionSettings(host: "127.0.0.1", port: String(port), database: "dev", user: "root"))
        var samples: [Double] = []
        for _ in 0 ..< statements {
            let start = ContinuousClock.now
            _ = try connection.execute("SELECT 1")
            samples.append((ContinuousClock.now - start).inSeconds * 1000)
        }
        return Self.latency(samples)
    }

    /// A trivial statement as a gateway client runs it: submit, status, first page.
    private func flinkTrivial(port: Int) throws -> Latency {
        let client = try BenchHTTPClient(port: port, what: "Flink SQL gateway")
        let session = try Self.field("sessionHandle", of: client.request("POST", "/v3/sessions", body: Array("{}".utf8)))
        var samples: [Double] = []
        for _ in 0 ..< statements {
            let start = ContinuousClock.now
            let operation = try flinkSubmit("SELECT 1", session: session, client: client)
            let page = try client.request("GET", "/v3/sessions/\(session)/operations/\(operation)/result/0?rowFormat=JSON")
            samples.append((ContinuousClock.now - start).inSeconds * 1000)
            guard page.status == 200 else { throw SluiceError(.ioError, "the gateway answered \(page.status)") }
            _ = try client.request("DELETE", "/v3/sessions/\(session)/operations/\(operation)/close")
        }
        _ = try client.request("DELETE", "/v3/sessions/\(session)")
        return Self.latency(samples)
    }

    /// A string member of an answer's JSON object.
    private static func field(_ name: String, of answer: (status: Int, body: [UInt8])) throws -> String {
        guard answer.status == 200, let value = (try? JSONDocument.parse(answer.body))?[name]?.stringValue else {
            throw SluiceError(.ioError, "unexpected answer \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
        }
        return value
    }

    private static func occurrences(of marker: [UInt8], in bytes: [UInt8]) -> Int {
        guard bytes.count >= marker.count, let first = marker.first else { return 0 }
        var count = 0
        var index = 0
        let last = bytes.count - marker.count
        while index <= last {
            if bytes[index] == first && bytes[index ..< index + marker.count].elementsEqual(marker) {
                count += 1
                index += marker.count
            } else {
                index += 1
            }
        }
        return count
    }
}
