import Foundation
import SluiceCore
import Testing

@testable import SluiceServer

/// An APPEND ONLY table's `dedup.key` when the write-ahead log refuses a write: the write is
/// taken back whole, the seen keys and `rows_deduplicated` with it.
@Suite struct TableDedupTests {
    @Test func aWriteTheLogRefusesLeavesNoSeenKeys() async throws {
        let path = NSTemporaryDirectory() + "sluice-dedup-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sql = try SQLHarness(dataDirectory: path)
        defer { sql.database.stop() }
        try await sql.run("""
            CREATE TABLE events (event_id varchar, created_at timestamptz,
              WATERMARK FOR created_at AS created_at - INTERVAL '5 seconds') APPEND ONLY
            WITH (dedup.key = 'event_id', dedup.window = '1 hour')
            """)
        let id = try #require(sql.database.catalog.relation(named: "events")).id
        let deduplicator = try #require(sql.database.streams.connectors.deduplicator(for: id))
        try await sql.run("INSERT INTO events VALUES ('a', '2026-11-01 00:00:00+00')")
        #expect(deduplicator.seen.rowCount == 1)
        // A full disk, as the log sees it: the next append fails.
        let journal = try #require(sql.database.tables.journal)
        journal.log.refuseAppends(because: SluiceError(.diskFull, "could not write: No space left on device"))
        let error = await sql.error("INSERT INTO events VALUES ('b', '2026-11-01 00:00:01+00'), ('b', '2026-11-01 00:00:02+00'), ('a', '2026-11-01 00:00:03+00')")
        #expect(error?.code == .diskFull)
        // Nothing of the refused write stays: "b" unseen, nothing counted as a repeat.
        #expect(try await sql.rows("SELECT event_id FROM events") == [["a"]])
        #expect(deduplicator.seen.rowCount == 1)
        #expect(deduplicator.rowsDeduplicated.load(ordering: .relaxed) == 0)
    }
}
