import Foundation
import SluiceCore
import SluiceState
import Testing

@testable import SluiceServer

/// Tables recovered from the write-ahead log and checkpoints, against a model: a seeded random
/// history of INSERT, UPDATE, DELETE and CHECKPOINT over a keyed table and a bag, cut by
/// "crashes" (the database dropped without a clean stop, a new one opened on the same directory)
/// at random points. After a restart both tables equal the model, read at once or after more
/// writes and checkpoints (the recovered tables are read in at their first use).
@Suite struct TableJournalTests {
    static func directory() -> String {
        let path = NSTemporaryDirectory() + "sluice-journal-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test(arguments: [UInt64(5), 6])
    func randomHistoriesWithCrashesAndCheckpointsMatchAModel(seed: UInt64) async throws {
        let path = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var random = SplitMix64(seed: seed)
        var keyed: [Int: Int] = [:]
        var bag: [Int: Int] = [:]  // value → copies
        var sql = try SQLHarness(dataDirectory: path)
        try await sql.run("CREATE TABLE keyed (id int PRIMARY KEY, v int)")
        try await sql.run("CREATE TABLE bag (x int)")
        for round in 0 ..< 12 {
            for _ in 0 ..< Int(random.next() % 40) {
                let id = Int(random.next() % 30)
                let value = Int(random.next() % 1000)
                switch random.next() % 7 {
                case 0, 1:
                    try await sql.run("INSERT INTO keyed VALUES (\(id), \(value))")
                    keyed[id] = value
                case 2:
                    try await sql.run("UPDATE keyed SET v = v + 1 WHERE id <= \(id)")
                    for key in keyed.keys where key <= id { keyed[key]! += 1 }
                case 3:
                    try await sql.run("DELETE FROM keyed WHERE id = \(id)")
                    keyed[id] = nil
                case 4:
                    try await sql.run("INSERT INTO bag VALUES (\(id)), (\(id)), (\(id + 1))")
                    bag[id, default: 0] += 2
                    bag[id + 1, default: 0] += 1
                case 5:
                    try await sql.run("DELETE FROM bag WHERE x = \(id)")
                    bag[id] = nil
                default:
                    try await sql.run("CHECKPOINT")
                }
            }
            // A crash: no clean stop, no checkpoint.
            sql.database.stop()
            sql = try SQLHarness(dataDirectory: path)
            // Some rounds go on without reading: the tables stay on disk while the next round's
            // writes and checkpoints come (and a crash may come first).
            if round < 11 && random.next() % 3 == 0 { continue }
            let keyedRows = try await sql.rows("SELECT id, v FROM keyed ORDER BY id")
            #expect(keyedRows == keyed.sorted { $0.key < $1.key }.map { ["\($0.key)", "\($0.value)"] }, "round \(round)")
            let bagRows = try await sql.rows("SELECT x, count(*) FROM bag GROUP BY x ORDER BY x")
            #expect(bagRows == bag.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { ["\($0.key)", "\($0.value)"] }, "round \(round)")
        }
        sql.database.stop()
    }

    @Test func aTableDroppedAndCreatedAgainUnderItsIDStartsEmpty() async throws {
        let path = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var sql = try SQLHarness(dataDirectory: path)
        try await sql.run("CREATE TABLE first (a int)")
        try await sql.run("CREATE TABLE doomed (a int, b varchar)")
        try await sql.run("INSERT INTO doomed VALUES (1, 'x'), (2, 'y')")
        let doomed = try #require(sql.database.catalog.relation(named: "doomed")).id
        try await sql.run("DROP TABLE doomed")
        sql.database.stop()
        sql = try SQLHarness(dataDirectory: path)
        // Ids are never given twice (an earlier version gave the highest again after a restart,
        // which the log's drop record guards against for its data directories).
        try await sql.run("CREATE TABLE reborn (c bigint)")
        #expect(try #require(sql.database.catalog.relation(named: "reborn")).id > doomed)
        try await sql.run("INSERT INTO reborn VALUES (7)")
        sql.database.stop()
        sql = try SQLHarness(dataDirectory: path)
        #expect(try await sql.rows("SELECT c FROM reborn") == [["7"]])
        sql.database.stop()
    }

    /// A data directory whose tables an earlier version checkpointed in files of their own
    /// (`tables/`): its rows come back from that checkpoint and the log after it, the state
    /// checkpoints then hold the table, and once two of them do the old files are gone.
    @Test func tablesCheckpointedByAnEarlierVersionComeBackAndMoveToTheStateCheckpoints() async throws {
        let path = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var sql = try SQLHarness(dataDirectory: path)
        try await sql.run("CREATE TABLE t (id int PRIMARY KEY, v varchar)")
        try await sql.run("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
        let id = try #require(sql.database.catalog.relation(named: "t")).id
        sql.database.stop()
        sql = try SQLHarness(dataDirectory: path)
        try await sql.run("INSERT INTO t VALUES (3, 'c')")
        sql.database.stop()
        // As the earlier version left it: the rows of log segment 1 in a table checkpoint at
        // segment 2, the segment before it removed, no state checkpoint.
        try FileManager.default.removeItem(atPath: "\(path)/state")
        try FileManager.default.removeItem(atPath: WriteAheadLog.path(of: 1, in: "\(path)/wal"))
        try FileManager.default.createDirectory(atPath: "\(path)/tables", withIntermediateDirectories: true)
        var file = TableFile.header
        ChunkCodec.encode(Chunk(columns: [
            Column(type: .int32, values: [.int32(1), .int32(2)]), Column(type: .varchar, values: [.string("a"), .string("b")]),
        ]), into: &file)
        try Files.writeChecksummed(file, to: "\(path)/tables/\(id)-2.chunks")
        try Files.writeChecksummed(Array("SLUICE-TABLES-MANIFEST-1\nsegment 2\ntable \(id)\n".utf8), to: "\(path)/tables/MANIFEST-2")
        // (No barrier but the statements': the test's CHECKPOINTs are the only checkpoints.)
        sql = try SQLHarness(dataDirectory: path, barrierIntervalMilliseconds: 3_600_000)
        #expect(sql.database.recovery?.summary.hasPrefix("tables from the table checkpoint at log segment 2, 1 log records replayed") == true)
        #expect(try await sql.rows("SELECT id, v FROM t ORDER BY id") == [["1", "a"], ["2", "b"], ["3", "c"]])
        try await sql.run("CHECKPOINT")
        #expect(FileManager.default.fileExists(atPath: "\(path)/tables/MANIFEST-2"))
        try await sql.run("INSERT INTO t VALUES (4, 'd')")
        try await sql.run("CHECKPOINT")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(path)/tables").isEmpty)
        try await sql.run("INSERT INTO t VALUES (5, 'e')")
        sql.database.stop()
        sql = try SQLHarness(dataDirectory: path)
        #expect(sql.database.recovery?.summary.hasPrefix("tables from state checkpoint") == true)
        #expect(try await sql.rows("SELECT id, v FROM t ORDER BY id") == [["1", "a"], ["2", "b"], ["3", "c"], ["4", "d"], ["5", "e"]])
        sql.database.stop()
    }
}
