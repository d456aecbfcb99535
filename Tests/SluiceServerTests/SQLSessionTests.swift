import Foundation
import SluiceCore
import SluicePGWire
import Testing

@testable import SluiceServer

/// Runs SQL through a session the way the wire server does, returning each statement's rows as
/// Postgres text (NULL as nil).
struct SQLHarness {
    let database: Database
    let session: SQLSession

    init(dataDirectory: String? = nil, barrierIntervalMilliseconds: Int = 1000) throws {
        database = try Database(dataDirectory: dataDirectory, barrierIntervalMilliseconds: barrierIntervalMilliseconds)
        session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
    }

    @discardableResult
    func run(_ sql: String, parameters: [Value] = []) async throws -> PGStatementResult {
        var last = PGStatementResult(commandTag: "")
        for statement in try await session.prepare(sql, parameterTypes: []) {
            last = try await session.execute(statement, parameters: parameters).collected()
        }
        return last
    }

    func rows(_ sql: String) async throws -> [[String?]] {
        let result = try await run(sql)
        return result.chunks.flatMap { chunk in
            (0 ..< chunk.count).map { row in
                chunk.columns.map { column in column.isNull(row) ? nil : column.value(at: row).textForm }
            }
        }
    }

    func error(_ sql: String) async -> SluiceError? {
        do {
            try await run(sql)
            return nil
        } catch let error as SluiceError {
            return error
        } catch {
            return nil
        }
    }
}

@Suite struct SQLSessionTests {
    @Test func tablesWithPrimaryKeysUpsertOnInsert() async throws {
        let sql = try SQLHarness()
        try await sql.run("CREATE TABLE t (id int PRIMARY KEY, name varchar)")
        try await sql.run("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
        let result = try await sql.run("INSERT INTO t VALUES (1, 'A')")
        #expect(result.commandTag == "INSERT 0 1")
        #expect(try await sql.rows("SELECT id, name FROM t ORDER BY id") == [["1", "A"], ["2", "b"]])
    }

    @Test func updateAndDeleteReportTheirRowCounts() async throws {
        let sql = try SQLHarness()
        try await sql.run("CREATE TABLE t (k int, v bigint)")
        try await sql.run("INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)")
        #expect(try await sql.run("UPDATE t SET v = v + 1 WHERE k >= 2").commandTag == "UPDATE 2")
        #expect(try await sql.run("DELETE FROM t WHERE v = 21").commandTag == "DELETE 1")
        #expect(try await sql.rows("SELECT k, v FROM t ORDER BY k") == [["1", "10"], ["3", "31"]])
    }

    @Test func groupByJoinAndSubqueryGiveTheOracleAnswers() async throws {
        // Expected rows checked against PostgreSQL 15 with the same statements.
        let sql = try SQLHarness()
        try await sql.run("CREATE TABLE e (player varchar, score int, bonus boolean)")
        try await sql.run("INSERT INTO e VALUES ('ann', 10, true), ('bob', 5, false), ('ann', 7, false), ('cy', 1, NULL)")
        #expect(
            try await sql.rows(
                "SELECT player, sum(score) AS total, count(CASE WHEN bonus = true THEN 1 END) AS hits FROM e GROUP BY player ORDER BY total DESC")
                == [["ann", "17", "1"], ["bob", "5", "0"], ["cy", "1", "0"]])
        #expect(
            try await sql.rows("SELECT player FROM e WHERE score = (SELECT max(score) FROM e)") == [["ann"]])
        #expect(
            try await sql.rows("SELECT DISTINCT player FROM e WHERE player IN (SELECT player FROM e WHERE score > 4) ORDER BY 1")
                == [["ann"], ["bob"]])
    }

    @Test func errorsCarryPostgresSQLStates() async throws {
        let sql = try SQLHarness()
        try await sql.run("CREATE TABLE t (a int)")
        #expect(await sql.error("SELEC 1")?.code == .syntaxError)
        #expect(await sql.error("SELECT * FROM missing")?.code == .undefinedTable)
        #expect(await sql.error("SELECT b FROM t")?.code == .undefinedColumn)
        #expect(await sql.error("SELECT 1 / 0")?.code == .divisionByZero)
        #expect(await sql.error("SELECT 2147483647 + 1")?.code == .numericValueOutOfRange)
        #expect(await sql.error("CREATE TABLE t (a int)")?.code == .duplicateTable)
        #expect(await sql.error("SELECT a FROM t WHERE a")?.code == .datatypeMismatch)
        #expect(await sql.error("SELECT a, count(*) FROM t")?.code == .groupingError)
        #expect(await sql.error("INSERT INTO t VALUES ('x')")?.code == .invalidTextRepresentation)
    }

    @Test func tablesSurviveARestartOfTheDataDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-test-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let sql = try SQLHarness(dataDirectory: directory)
            try await sql.run("CREATE TABLE t (id int PRIMARY KEY, name varchar)")
            try await sql.run("INSERT INTO t VALUES (1, 'a'), (2, NULL)")
            try await sql.database.shutdown()
        }
        let reopened = try SQLHarness(dataDirectory: directory)
        #expect(try await reopened.rows("SELECT id, name FROM t ORDER BY id") == [["1", "a"], ["2", nil]])
        try await reopened.run("INSERT INTO t VALUES (1, 'z')")
        #expect(try await reopened.rows("SELECT name FROM t WHERE id = 1") == [["z"]])
    }

    /// A view's state is kept with a hash of the plan that made it: a start that plans the view
    /// differently (a newer optimizer) rebuilds it from its inputs instead of restoring state
    /// that does not fit; an unchanged plan restores.
    @Test func aViewPlannedDifferentlyAtStartIsRebuiltNotRestored() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-test-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let sql = try SQLHarness(dataDirectory: directory)
            try await sql.run("CREATE TABLE a (k int, v int); CREATE TABLE b (k int, w int)")
            try await sql.run("CREATE MATERIALIZED VIEW j AS SELECT a.k, sum(v + w) AS s FROM a, b WHERE a.k = b.k AND w > 1 GROUP BY a.k")
            try await sql.run("INSERT INTO a VALUES (1, 10), (2, 20), (3, 30); INSERT INTO b VALUES (1, 5), (2, 1), (3, 7), (3, 2)")
            try await sql.run("FLUSH")
            try await sql.run("CHECKPOINT")
            try await sql.database.shutdown()
        }
        let expected: [[String?]] = [["1", "15"], ["3", "69"]]
        do {
            let same = try SQLHarness(dataDirectory: directory)
            #expect(same.database.recovery?.stateSummary?.contains("restored from state checkpoint") == true, "\(same.database.recovery?.stateSummary ?? "")")
            #expect(try await same.rows("SELECT k, s FROM j ORDER BY k") == expected)
            try await same.run("CHECKPOINT")
            try await same.database.shutdown()
        }
        // As if an older planner had made the view's state.
        let catalogPath = directory + "/catalog.json"
        let text = try String(contentsOfFile: catalogPath, encoding: .utf8)
        let fingerprint = try #require(text.firstMatch(of: /"planFingerprint"\s*:\s*"([0-9a-f]+)"/)?.1)
        try text.replacingOccurrences(of: "\"\(fingerprint)\"", with: "\"0\"").write(toFile: catalogPath, atomically: true, encoding: .utf8)
        let changed = try SQLHarness(dataDirectory: directory)
        #expect(changed.database.recovery?.stateSummary?.contains("planned differently than their state was made: j") == true, "\(changed.database.recovery?.stateSummary ?? "")")
        #expect(try await changed.rows("SELECT k, s FROM j ORDER BY k") == expected)
        try await changed.run("INSERT INTO b VALUES (2, 4)")
        try await changed.run("FLUSH")
        #expect(try await changed.rows("SELECT k, s FROM j ORDER BY k") == [["1", "15"], ["2", "24"], ["3", "69"]])
    }
}
