import Foundation
import Logging
import PostgresNIO

/// Connects with postgres-nio, creates a table, inserts rows with bound parameters, reads them
/// back (postgres-nio asks for binary results) and checks every decoded value.
@main
struct PGNIOCheck {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count >= 3, let port = Int(arguments[2]) else {
            FileHandle.standardError.write(Data("usage: pgnio-check HOST PORT [USER] [DATABASE]\n".utf8))
            exit(2)
        }
        let configuration = PostgresConnection.Configuration(
            host: arguments[1],
            port: port,
            username: arguments.count > 3 ? arguments[3] : "root",
            password: nil,
            database: arguments.count > 4 ? arguments[4] : "dev",
            tls: .disable
        )
        var logger = Logger(label: "pgnio-check")
        logger.logLevel = .warning
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            do {
                try await runChecks(on: connection, logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
            print("pgnio-check: all checks passed")
        } catch {
            FileHandle.standardError.write(Data("pgnio-check: FAILED: \(String(reflecting: error))\n".utf8))
            exit(1)
        }
    }
}

struct CheckFailure: Error, CustomStringConvertible {
    var description: String
}

func expect<Value: Equatable>(_ actual: Value, _ expected: Value, _ what: String) throws {
    guard actual == expected else {
        throw CheckFailure(description: "\(what): expected \(expected), got \(actual)")
    }
}

/// One row of the check table.
struct Row: Equatable {
    var id: Int
    var name: String
    var score: Double
    var isOK: Bool
    var day: Date
    var at: Date
}

let utcMidnight20240115 = Date(timeIntervalSince1970: 1_705_276_800)  // 2024-01-15 00:00:00 UTC
let utcMidnight20000101 = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01 00:00:00 UTC

func runChecks(on connection: PostgresConnection, logger: Logger) async throws {
    let table = "pgnio_check_\(UInt32.random(in: 1...UInt32.max))"
    try await connection.query(
        "CREATE TABLE \(unescaped: table) (id bigint, name varchar, score double precision, ok boolean, day date, at timestamptz)",
        logger: logger
    )

    let expected = [
        Row(id: 1, name: "ann", score: 1.5, isOK: true, day: utcMidnight20240115, at: utcMidnight20240115.addingTimeInterval(3_723.5)),
        Row(id: 2, name: "bob, \"quoted\"", score: -0.25, isOK: false, day: utcMidnight20000101, at: utcMidnight20000101),
        Row(id: 3, name: "", score: 0, isOK: true, day: utcMidnight20000101, at: utcMidnight20240115),
    ]
    let dayText = [1: "2024-01-15", 2: "2000-01-01", 3: "2000-01-01"]
    for row in expected {
        let day = dayText[row.id]!
        try await connection.query(
            "INSERT INTO \(unescaped: table) VALUES (\(row.id), \(row.name), \(row.score), \(row.isOK), \(day)::date, \(row.at))",
            logger: logger
        )
    }

    var actual: [Row] = []
    let rows = try await connection.query("SELECT id, name, score, ok, day, at FROM \(unescaped: table) ORDER BY id", logger: logger)
    for try await (id, name, score, isOK, day, at) in rows.decode((Int, String, Double, Bool, Date, Date).self) {
        actual.append(Row(id: id, name: name, score: score, isOK: isOK, day: day, at: at))
    }
    try expect(actual.count, expected.count, "row count")
    for (got, want) in zip(actual, expected) {
        try expect(got, want, "row \(want.id)")
    }

    // Parameters in WHERE, an aggregate, integers of other widths, and NULL.
    let minimum = 0.0
    let filtered = try await connection.query(
        "SELECT count(*), sum(id)::int, max(name) FROM \(unescaped: table) WHERE score >= \(minimum)",
        logger: logger
    )
    var summaries: [String] = []
    for try await (count, sum, name) in filtered.decode((Int, Int32, String).self) {
        summaries.append("\(count) \(sum) \(name)")
    }
    try expect(summaries, ["2 4 ann"], "filtered aggregate")

    let nulls = try await connection.query("SELECT NULL::int, 7::smallint, 'x'::varchar", logger: logger)
    for try await (missing, small, text) in nulls.decode((Int?, Int16, String).self) {
        try expect(missing, nil, "NULL int")
        try expect(small, 7, "smallint")
        try expect(text, "x", "varchar")
    }

    // An error carries its SQLSTATE and leaves the connection usable.
    do {
        try await connection.query("SELECT 1 / 0", logger: logger)
        throw CheckFailure(description: "SELECT 1 / 0 did not fail")
    } catch let error as PSQLError {
        try expect(error.serverInfo?[.sqlState], "22012", "SQLSTATE of division by zero")
    }
    let after = try await connection.query("SELECT \(41) + 1", logger: logger)
    for try await (value) in after.decode(Int.self) {
        try expect(value, 42, "query after an error")
    }

    try await connection.query("DROP TABLE \(unescaped: table)", logger: logger)
}
