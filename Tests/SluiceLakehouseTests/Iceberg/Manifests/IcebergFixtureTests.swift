import Foundation
import SluiceCore
import SluiceFormats
import Testing
@testable import SluiceLakehouse

/// Reads the manifest list and manifest pyiceberg wrote (Fixtures/iceberg/make_fixtures.py) and
/// compares with `expected.json`, pyiceberg's own reading of the same files.
@Suite struct IcebergFixtureTests {
    // This file is Tests/SluiceLakehouseTests/Iceberg/Manifests/IcebergFixtureTests.swift.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/iceberg")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func expected() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("expected.json")))
        return try #require(object as? [String: Any])
    }

    private func int64(_ any: Any?) -> Int64? { (any as? NSNumber)?.int64Value }

    private func hex(_ bytes: [UInt8]?) -> String? { bytes.map { $0.map { String(format: "%02x", $0) }.joined() } }

    private func idMap<T>(_ map: [Int32: T]?, _ render: (T) -> String) -> [String: String]? {
        map.map { Dictionary(uniqueKeysWithValues: $0.map { (String($0.key), render($0.value)) }) }
    }

    private func expectedIDMap(_ any: Any?) -> [String: String]? {
        guard let dictionary = any as? [String: Any] else { return nil }
        return dictionary.mapValues { value in (value as? String) ?? "\(int64(value) ?? -1)" }
    }

    @Test func theManifestListReadsAsPyicebergReadsIt() throws {
        let expected = try Self.expected()
        let listExpected = try #require(expected["manifest_list"] as? [String: Any])
        let list = try IcebergManifestList.read(Self.bytes("manifest-list.avro"))
        #expect(list.formatVersion == 2)
        #expect(list.snapshotID == int64(expected["snapshot_id"]))
        #expect(list.sequenceNumber == int64(expected["sequence_number"]))
        #expect(list.parentSnapshotID == nil)
        let manifest = try #require(list.manifests.first)
        #expect(list.manifests.count == 1)
        #expect(manifest.manifestPath == listExpected["manifest_path"] as? String)
        #expect(manifest.manifestLength == int64(listExpected["manifest_length"]))
        #expect(Int64(manifest.partitionSpecID) == int64(listExpected["partition_spec_id"]))
        #expect(Int64(manifest.content.rawValue) == int64(listExpected["content"]))
        #expect(manifest.sequenceNumber == int64(listExpected["sequence_number"]))
        #expect(manifest.minSequenceNumber == int64(listExpected["min_sequence_number"]))
        #expect(manifest.addedSnapshotID == int64(listExpected["added_snapshot_id"]))
        #expect(manifest.addedFilesCount.map(Int64.init) == int64(listExpected["added_files_count"]))
        #expect(manifest.existingFilesCount.map(Int64.init) == int64(listExpected["existing_files_count"]))
        #expect(manifest.deletedFilesCount.map(Int64.init) == int64(listExpected["deleted_files_count"]))
        #expect(manifest.addedRowsCount == int64(listExpected["added_rows_count"]))
        #expect(manifest.existingRowsCount == int64(listExpected["existing_rows_count"]))
        #expect(manifest.deletedRowsCount == int64(listExpected["deleted_rows_count"]))
        let summaries = try #require(listExpected["partitions"] as? [[String: Any]])
        #expect(manifest.partitions?.count == summaries.count)
        for (summary, want) in zip(manifest.partitions ?? [], summaries) {
            #expect(summary.containsNull == want["contains_null"] as? Bool)
            #expect(summary.containsNaN == want["contains_nan"] as? Bool)
            #expect(hex(summary.lowerBound) == want["lower_bound"] as? String)
            #expect(hex(summary.upperBound) == want["upper_bound"] as? String)
        }
    }

    @Test func theManifestReadsAsPyicebergReadsIt() throws {
        let expected = try Self.expected()
        let list = try IcebergManifestList.read(Self.bytes("manifest-list.avro"))
        let manifestFile = try #require(list.manifests.first)
        let manifest = try IcebergManifest.read(Self.bytes("manifest.avro"), inheritingFrom: manifestFile)
        #expect(manifest.formatVersion == 2)
        #expect(manifest.content == .data)
        #expect(manifest.partitionSpecID == 0)
        #expect(manifest.partitionType.map(\.name) == ["region", "day"])
        #expect(manifest.partitionType.map(\.fieldID) == [1000, 1001])
        #expect(manifest.partitionType.last?.type.nonNullBranch.logicalType == .date)
        let entries = try #require(expected["entries"] as? [[String: Any]])
        #expect(manifest.entries.count == entries.count)
        for (entry, want) in zip(manifest.entries, entries) {
            let file = entry.dataFile
            #expect(Int64(entry.status.rawValue) == int64(want["status"]))
            #expect(entry.snapshotID == int64(want["snapshot_id"]))
            #expect(entry.sequenceNumber == int64(want["sequence_number"]))
            #expect(entry.fileSequenceNumber == int64(want["file_sequence_number"]))
            #expect(Int64(file.content.rawValue) == int64(want["content"]))
            #expect(file.filePath == want["file_path"] as? String)
            #expect(file.fileFormat == want["file_format"] as? String)
            let partition = try #require(want["partition"] as? [Any])
            #expect(file.partition.count == 2)
            #expect(file.partition.first?.stringValue == partition.first as? String)
            #expect(file.partition.last?.integerValue == int64(partition.last))
            #expect(file.recordCount == int64(want["record_count"]))
            #expect(file.fileSizeInBytes == int64(want["file_size_in_bytes"]))
            #expect(idMap(file.columnSizes) { "\($0)" } == expectedIDMap(want["column_sizes"]))
            #expect(idMap(file.valueCounts) { "\($0)" } == expectedIDMap(want["value_counts"]))
            #expect(idMap(file.nullValueCounts) { "\($0)" } == expectedIDMap(want["null_value_counts"]))
            #expect(idMap(file.nanValueCounts) { "\($0)" } == expectedIDMap(want["nan_value_counts"]))
            #expect(idMap(file.lowerBounds) { hex($0) ?? "" } == expectedIDMap(want["lower_bounds"]))
            #expect(idMap(file.upperBounds) { hex($0) ?? "" } == expectedIDMap(want["upper_bounds"]))
            #expect(file.splitOffsets == (want["split_offsets"] as? [Any])?.compactMap { int64($0) })
            #expect(file.sortOrderID.map(Int64.init) == int64(want["sort_order_id"]))
        }
    }

    /// The table's column types (make_fixtures.py), for decoding bounds.
    static let columnTypes: [Int32: DataType] = [
        1: .int64, 2: .varchar, 3: .varchar, 4: .date, 5: .decimal(precision: 10, scale: 2), 6: .timestamptz,
    ]

    /// A decoded bound in the text pyiceberg's `str(from_bytes(...))` gives.
    private func text(_ value: Value?) -> String? {
        switch value {
        case .int64(let integer): "\(integer)"
        case .string(let string): string
        case .date(let days): "\(days)"
        case .timestamptz(let micros): "\(micros)"
        case .decimal(let decimal): decimal.textForm
        default: nil
        }
    }

    @Test func boundsDecodeAsPyicebergDecodesThem() throws {
        let list = try IcebergManifestList.read(Self.bytes("manifest-list.avro"))
        let manifest = try IcebergManifest.read(Self.bytes("manifest.avro"), inheritingFrom: try #require(list.manifests.first))
        let entries = try #require(try Self.expected()["entries"] as? [[String: Any]])
        var checked = 0
        for (entry, want) in zip(manifest.entries, entries) {
            for (bounds, key) in [(entry.dataFile.lowerBounds, "decoded_lower_bounds"), (entry.dataFile.upperBounds, "decoded_upper_bounds")] {
                let expected = try #require(want[key] as? [String: String])
                var decoded: [String: String] = [:]
                for (id, bytes) in bounds ?? [:] {
                    let type = try #require(Self.columnTypes[id])
                    decoded[String(id)] = text(IcebergSingleValue.decode(bytes, as: type))
                    // Encoding the decoded value gives the same bytes back.
                    #expect(IcebergSingleValue.decode(bytes, as: type).flatMap { IcebergSingleValue.encode($0, as: type) } == bytes)
                    checked += 1
                }
                #expect(decoded == expected)
            }
        }
        #expect(checked >= 20)
    }

    @Test func pyicebergsAddedEntriesLeaveSequenceNumbersToInheritance() throws {
        let manifest = try IcebergManifest.read(Self.bytes("manifest.avro"), inheritedSnapshotID: nil, inheritedSequenceNumber: nil)
        #expect(!manifest.entries.isEmpty)
        #expect(manifest.entries.allSatisfy { $0.status == .added && $0.sequenceNumber == nil && $0.fileSequenceNumber == nil })
        #expect(manifest.entries.allSatisfy { $0.dataFile.equalityIDs == nil && $0.dataFile.referencedDataFile == nil })
    }
}
