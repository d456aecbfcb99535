import Foundation
import SluiceCore
import SluiceState
import Testing

@testable import SluiceServer

/// Statements too big for one log record (more than ``ChunkStaging/chunksInMemory`` chunks):
/// logged as parts under one statement number and a `committed` record. Recovery applies a
/// statement's parts only when its `committed` record made it to the log, so a crash part way
/// leaves none of it; with the record, all of it comes back, for INSERT, UPDATE and DELETE, in
/// tables with and without a primary key.
@Suite struct TableJournalPartsTests {
    /// Rows enough for several parts.
    static let rows = 40_000

    /// Cuts the last record (a statement's `committed` record) off the newest log segment, as a
    /// crash between its last part and its end would leave the log.
    static func dropLastRecord(in directory: String) throws {
        let wal = "\(directory)/wal"
        let segments = try WriteAheadLog.segments(in: wal)
        for segment in segments.reversed() {
            let path = WriteAheadLog.path(of: segment, in: wal)
            var ends: [Int64] = []
            var last: [UInt8]?
            _ = try WriteAheadLog.scan(directory: wal, from: segment, before: segment + 1) { (payload, end) throws(SluiceError) in
                last = Array(payload)
                ends.append(end.offset)
            }
            guard let last, ends.count >= 1 else { continue }
            #expect(TableLogRecord.committedStatement(in: last) != nil, "the last record is not a statement's end")
            let keep = ends.count >= 2 ? ends[ends.count - 2] : 0
            #expect(truncate(path, off_t(keep)) == 0)
            return
        }
        Issue.record("no log record to drop")
    }

    @Test(arguments: [true, false])
    func anInsertInPartsCountsOnlyOnceItsEndIsLogged(keyed: Bool) async throws {
        let path = TableJournalTests.directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var sql = try SQLHarness(dataDirectory: path)
        try await sql.run(keyed ? "CREATE TABLE t (id bigint PRIMARY KEY, v varchar)" : "CREATE TABLE t (id bigint, v varchar)")
        try await sql.run("INSERT INTO t VALUES (0, 'before')")
        try await sql.run("INSERT INTO t SELECT g, 'row ' || g FROM generate_series(1, \(Self.rows)) g")
        #expect(try await sql.rows("SELECT count(*) FROM t") == [["\(Self.rows + 1)"]])
        sql.database.stop()
        // Whole: every row comes back.
        sql = try SQLHarness(dataDirectory: path)
        #expect(try await sql.rows("SELECT count(*), sum(id) FROM t") == [["\(Self.rows + 1)", "\(Self.rows * (Self.rows + 1) / 2)"]])
        sql.database.stop()
        // A second big statement whose end the crash cut off: none of it. (No barrier but the
        // statement's, so no checkpoint comes between its end and the crash.)
        sql = try SQLHarness(dataDirectory: path, barrierIntervalMilliseconds: 3_600_000)
        try await sql.run("INSERT INTO t SELECT g, 'again' FROM generate_series(\(Self.rows + 1), \(2 * Self.rows)) g")
        sql.database.stop()
        try Self.dropLastRecord(in: path)
        sql = try SQLHarness(dataDirectory: path)
        #expect(try await sql.rows("SELECT count(*), max(id), count(*) FILTER (WHERE v = 'again') FROM t") == [["\(Self.rows + 1)", "\(Self.rows)", "0"]])
        // The table goes on taking writes, which come back after the next restart.
        try await sql.run("INSERT INTO t VALUES (-1, 'after')")
        sql.database.stop()
        sql = try SQLHarness(dataDirectory: path)
        #expect(try await sql.rows("SELECT count(*), min(id) FROM t") == [["\(Self.rows + 2)", "-1"]])
        sql.database.stop()
    }

    @Test(arguments: [true, false])
    func updatesAndDeletesInPartsComeBackWholeOrNotAtAll(keyed: Bool) async throws {
        let path = TableJournalTests.directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var sql = try SQLHarness(dataDirectory: path)
        try await sql.run(keyed ? "CREATE TABLE t (id bigint PRIMARY KEY, v bigint)" : "CREATE TABLE t (id bigint, v bigint)")
        try await sql.run("INSERT INTO t SELECT g, g FROM generate_series(1, \(Self.rows)) g")
        #expect(try await sql.run("UPDATE t SET v = v * 2 WHERE id % 2 = 0").commandTag == "UPDATE \(Self.rows / 2)")
        #expect(try await sql.run("DELETE FROM t WHERE id % 4 = 1").commandTag == "DELETE \(Self.rows / 4)")
        let expected = try await sql.rows("SELECT count(*), sum(id), sum(v) FROM t")
        // Oracle: even ids doubled, ids 1 mod 4 gone.
        let model = (1 ... Self.rows).filter { $0 % 4 != 1 }
        #expect(expected == [["\(model.count)", "\(model.reduce(0, +))", "\(model.reduce(0) { $0 + ($1 % 2 == 0 ? 2 * $1 : $1) })"]])
        sql.database.stop()
        sql = try SQLHarness(dataDirectory: path, barrierIntervalMilliseconds: 3_600_000)
        #expect(try await sql.rows("SELECT count(*), sum(id), sum(v) FROM t") == expected)
        // An update whose end is lost leaves the rows as they were.
        try await sql.run("UPDATE t SET v = 0")
        sql.database.stop()
        try Self.dropLastRecord(in: path)
        sql = try SQLHarness(dataDirectory: path)
        #expect(try await sql.rows("SELECT count(*), sum(id), sum(v) FROM t") == expected)
        sql.database.stop()
    }

    @Test func aStatementInPartsHoldsCheckpointsBackAndCheckpointWaitsForIt() async throws {
        let path = TableJournalTests.directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sql = try SQLHarness(dataDirectory: path, barrierIntervalMilliseconds: 5)
        try await sql.run("CREATE TABLE t (id bigint PRIMARY KEY, v bigint)")
        let runtime = sql.database.streams.runtime
        let journal = try #require(sql.database.tables.journal)
        try await sql.run("CHECKPOINT")
        let before = journal.history.count
        runtime.holdCheckpoints()
        let checkpoint = Task { try await sql.run("CHECKPOINT") }
        // Barriers go on while the hold lasts, and none is a checkpoint.
        for _ in 0 ..< 3 {
            let epoch = runtime.committedEpoch
            await runtime.flush()
            #expect(runtime.committedEpoch > epoch)
        }
        sql.database.streams.waitForStateCheckpoints()
        #expect(journal.history.count == before)
        runtime.releaseCheckpoints()
        try await checkpoint.value
        #expect(journal.history.count > before)
        sql.database.stop()
    }
}
