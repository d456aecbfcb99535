import Foundation
import SluiceCore
import SluiceFormats
import Testing
@testable import SluiceLakehouse

/// Reads the table that `Fixtures/make_fixtures.py` had pyiceberg 0.12 write (day(ts) and
/// identity(category) partitions, a schema change, copy-on-write deletes, an overwrite) and
/// compares with pyiceberg's own scans, recorded in `Fixtures/pyiceberg/expected.json`.
///
/// pyiceberg wrote absolute locations under `expected.json`'s `location`; a ``RelocatedFileIO``
/// maps that prefix onto the fixture directory, so the files are read unmodified.
@Suite struct IcebergPyicebergFixtureTests {
    static let fixtureDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/pyiceberg").path

    struct Fixture {
        let scan: IcebergTableScan
        let expected: [String: Any]
        let schema: IcebergSchema
    }

    static func load(snapshotID: Int64? = nil) throws -> Fixture {
        let expectedData = try Data(contentsOf: URL(fileURLWithPath: fixtureDirectory + "/expected.json"))
        let expected = try #require(try JSONSerialization.jsonObject(with: expectedData) as? [String: Any])
        let location = try #require(expected["location"] as? String)
        let metadataPath = try #require(expected["metadata"] as? String)
        let fileIO = RelocatedFileIO(from: location, to: fixtureDirectory + "/events", base: LocalFileIO())
        let metadata = try IcebergTableMetadata(bytes: try fileIO.read(location + "/" + metadataPath))
        return Fixture(scan: IcebergTableScan(metadata: metadata, fileIO: fileIO, snapshotID: snapshotID), expected: expected, schema: try #require(metadata.currentSchema))
    }

    /// The fixture's row `row` as values of the current schema's fields, in schema order.
    static func values(_ row: [String: Any], schema: IcebergSchema) -> [Value] {
        schema.fields.map { field in
            guard let value = row[field.name], !(value is NSNull) else { return .null }
            switch field.type {
            case .long: return .int64((value as? NSNumber)?.int64Value ?? 0)
            case .int: return .int32((value as? NSNumber)?.int32Value ?? 0)
            case .double: return .float64((value as? NSNumber)?.doubleValue ?? 0)
            case .timestamp: return .timestamp((value as? NSNumber)?.int64Value ?? 0)
            default: return .string(value as? String ?? "")
            }
        }
    }

    @Test func everyRowMatchesPyicebergsScan() throws {
        let fixture = try Self.load()
        #expect(fixture.schema.fields.map(\.name) == ["id", "ts", "category", "price", "qty", "note"])
        let fields = fixture.schema.fields.map(\.id)
        let plan = try fixture.scan.plan(fields: fields)
        #expect(plan.tasks.count == fixture.expected["data_files"] as? Int)
        #expect(plan.tasks.allSatisfy { $0.deletes.isEmpty })
        let rows = sortedByID(try fixture.scan.rows(fields: fields))
        let expectedRows = try #require(fixture.expected["rows"] as? [[String: Any]]).map { Self.values($0, schema: fixture.schema) }
        #expect(rows == expectedRows)
    }

    @Test func filteredScansKeepEveryRowPyicebergReturns() throws {
        let fixture = try Self.load()
        let filters = try #require(fixture.expected["filters"] as? [String: [String: Any]])
        let january = Int64(19723) * TemporalUnits.microsecondsPerDay  // 2024-01-01
        let day = TemporalUnits.microsecondsPerDay
        let predicates: [String: [IcebergScanTerm]] = [
            "id_gt_15": [.compare(fieldID: 1, .greaterThan, .int64(15))],
            "ts_before_jan3": [.compare(fieldID: 2, .lessThan, .timestamp(january + 2 * day))],
            "category_a_from_jan4": [.compare(fieldID: 3, .equal, .string("a")), .compare(fieldID: 2, .greaterThanOrEqual, .timestamp(january + 3 * day))],
            "note_is_null": [.isNull(fieldID: 6)],
        ]
        let fields = fixture.schema.fields.map(\.id)
        for (name, terms) in predicates {
            let expected = try #require(filters[name])
            let plan = try fixture.scan.plan(fields: fields, predicate: IcebergScanPredicate(terms), choosingRowGroups: true)
            // We prune at least as well as pyiceberg's planning on these predicates.
            #expect(plan.tasks.count <= (expected["planned_files"] as? Int ?? 0), "\(name): \(plan.counters)")
            var statistics = IcebergScanReadStatistics()
            let rows = try fixture.scan.rows(plan, statistics: &statistics)
            // Filter rows as the caller would, with the same terms.
            let matching = rows.filter { row in
                terms.allSatisfy { term in
                    guard let position = fields.firstIndex(of: term.fieldID) else { return false }
                    return IcebergPartitionPruningTests.satisfies(row[position], term)
                }
            }
            let ids = matching.compactMap { row -> Int64? in
                if case .int64(let id) = row[0] { return id }
                return nil
            }.sorted()
            #expect(ids == (expected["ids"] as? [Int] ?? []).map(Int64.init), "\(name)")
        }
    }

    @Test func anOlderSnapshotReadsWithTheCurrentSchema() throws {
        let first = try #require(try Self.load().expected["first_snapshot"] as? [String: Any])
        let snapshotID = try #require((first["id"] as? NSNumber)?.int64Value)
        let fixture = try Self.load(snapshotID: snapshotID)
        let rows = try fixture.scan.rows(fields: [1, 6, 4])
        #expect(sortedByID(rows).map { $0[0] } == (first["ids"] as? [Int] ?? []).map { .int64(Int64($0)) })
        // `note` did not exist yet; `price` was called `amount` and is found by id.
        #expect(rows.allSatisfy { $0[1] == .null && $0[2] != .null })
    }
}

/// A file IO that serves locations under `from` out of the directory `to` of `base`, for
/// tables whose metadata records absolute locations of another machine.
struct RelocatedFileIO: FileIO {
    let from: String
    let to: String
    let base: any FileIO

    func map(_ location: String) -> String {
        location.hasPrefix(from) ? to + location.dropFirst(from.count) : location
    }

    func write(_ location: String, _ bytes: [UInt8]) throws(SluiceError) { try base.write(map(location), bytes) }
    func read(_ location: String) throws(SluiceError) -> [UInt8] { try base.read(map(location)) }
    func read(_ location: String, range: Range<Int>) throws(SluiceError) -> [UInt8] { try base.read(map(location), range: range) }
    func size(_ location: String) throws(SluiceError) -> Int? { try base.size(map(location)) }
    func delete(_ location: String) throws(SluiceError) { try base.delete(map(location)) }
    func list(prefix: String) throws(SluiceError) -> [FileEntry] { try base.list(prefix: map(prefix)) }
    func output(_ location: String) throws(SluiceError) -> any FileOutput { try base.output(map(location)) }
}
