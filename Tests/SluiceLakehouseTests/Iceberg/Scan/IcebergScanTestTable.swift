import Foundation
import SluiceCore
import SluiceFormats
@testable import SluiceLakehouse

/// A table built in a temporary directory with the real writers: Parquet files from
/// `ParquetWriter`, manifests from `IcebergManifestWriter`, manifest lists from
/// `IcebergManifestList.write`, and metadata through `IcebergTableMetadata` updates.
final class IcebergScanTestTable {
    let directory: String
    let fileIO = LocalFileIO()
    var metadata: IcebergTableMetadata
    /// The manifests of the current snapshot.
    private(set) var manifests: [IcebergManifestFile] = []
    private var fileCounter = 0
    private var clock: Int64 = 1_700_000_000_000

    init(_ label: String, schema: IcebergSchema, spec: IcebergPartitionSpec = .unpartitioned) {
        directory = "\(NSTemporaryDirectory())sluice-scan-tests/\(label)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(atPath: directory + "/metadata", withIntermediateDirectories: true)
        metadata = IcebergTableMetadata(tableUUID: UUID().uuidString, location: directory, schema: schema, partitionSpec: spec, lastUpdatedMs: clock)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    var scan: IcebergTableScan { IcebergTableScan(metadata: metadata, fileIO: fileIO) }

    var schema: IcebergSchema { metadata.currentSchema! }

    /// Writes a Parquet file, one row group per chunk, and describes it as a manifest would,
    /// with column metrics from the writer's summary unless `metrics` is false.
    func writeFile(
        _ columns: [ParquetColumnSchema], rowGroups: [Chunk], partition: [AvroValue] = [], content: IcebergFileContent = .data,
        equalityIDs: [Int32]? = nil, metrics: Bool = true, referencedDataFile: String? = nil
    ) throws -> IcebergDataFile {
        fileCounter += 1
        let path = "\(directory)/data/file-\(fileCounter).parquet"
        let writer = try ParquetWriter(schema: columns, options: ParquetWriterOptions(compression: .snappy, rowGroupBytes: 1))
        var bytes: [UInt8] = []
        for chunk in rowGroups {
            try writer.write(chunk)
            bytes += writer.takeOutput()
        }
        let (tail, summary) = try writer.finish()
        bytes += tail
        try fileIO.write(path, bytes)
        var file = IcebergDataFile(
            content: content, filePath: path, partition: partition, recordCount: summary.rowCount, fileSizeInBytes: Int64(bytes.count),
            equalityIDs: equalityIDs, referencedDataFile: referencedDataFile)
        if metrics {
            var values: [Int32: Int64] = [:], nulls: [Int32: Int64] = [:], nans: [Int32: Int64] = [:]
            var lower: [Int32: [UInt8]] = [:], upper: [Int32: [UInt8]] = [:]
            for column in summary.columns where column.path.count == 1 {
                guard let id = column.fieldID else { continue }
                values[id] = column.valueCount
                nulls[id] = column.nullCount
                if let nanCount = column.nanCount { nans[id] = nanCount }
                if let min = column.min.flatMap({ IcebergSingleValue.encode($0, as: column.type) }) { lower[id] = min }
                if let max = column.max.flatMap({ IcebergSingleValue.encode($0, as: column.type) }) { upper[id] = max }
            }
            file.valueCounts = values
            file.nullValueCounts = nulls
            file.nanValueCounts = nans
            file.lowerBounds = lower
            file.upperBounds = upper
        }
        return file
    }

    /// A position delete file deleting `deletes` (data file path, row position), sorted as the spec requires.
    func writePositionDeletes(_ deletes: [(String, Int64)], partition: [AvroValue] = []) throws -> IcebergDataFile {
        let sorted = deletes.sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
        let chunk = Chunk(columns: [
            Column(type: .varchar, values: sorted.map { .string($0.0) }),
            Column(type: .int64, values: sorted.map { .int64($0.1) }),
        ])
        return try writeFile(
            [ParquetColumnSchema(name: "file_path", type: .varchar, nullable: false, fieldID: 2_147_483_546),
             ParquetColumnSchema(name: "pos", type: .int64, nullable: false, fieldID: 2_147_483_545)],
            rowGroups: [chunk], partition: partition, content: .positionDeletes)
    }

    /// Commits a snapshot adding `data` and `deletes` in new manifests; earlier manifests stay.
    @discardableResult
    func commit(data: [IcebergDataFile] = [], deletes: [IcebergDataFile] = []) throws -> IcebergSnapshot {
        let snapshotID = Int64(metadata.snapshots.count + 1) * 1000
        let sequenceNumber = metadata.nextSequenceNumber
        var newManifests = manifests
        for (files, content) in [(data, IcebergManifestContent.data), (deletes, .deletes)] where !files.isEmpty {
            var writer = try manifestWriter(content: content)
            for file in files { try writer.append(IcebergManifestEntry(status: .added, dataFile: file)) }
            let path = "\(directory)/metadata/m-\(snapshotID)-\(content.metadataValue).avro"
            let (bytes, manifestFile) = writer.finish(path: path, snapshotID: snapshotID, sequenceNumber: sequenceNumber)
            try fileIO.write(path, bytes)
            newManifests.append(manifestFile)
        }
        return try finishCommit(snapshotID: snapshotID, manifests: newManifests, operation: "append")
    }

    /// Commits a snapshot that removes the data files at `paths`: their manifests are rewritten
    /// with those entries `deleted` and the others `existing`.
    @discardableResult
    func removeFiles(_ paths: Set<String>) throws -> IcebergSnapshot {
        let snapshotID = Int64(metadata.snapshots.count + 1) * 1000
        let sequenceNumber = metadata.nextSequenceNumber
        var newManifests: [IcebergManifestFile] = []
        for manifestFile in manifests {
            let manifest = try IcebergManifest.read(try fileIO.read(manifestFile.manifestPath), inheritingFrom: manifestFile)
            guard manifest.entries.contains(where: { paths.contains($0.dataFile.filePath) }) else {
                newManifests.append(manifestFile)
                continue
            }
            var writer = try manifestWriter(content: manifestFile.content)
            for entry in manifest.entries where entry.status != .deleted {
                var rewritten = entry
                rewritten.status = paths.contains(entry.dataFile.filePath) ? .deleted : .existing
                if rewritten.status == .deleted { rewritten.snapshotID = snapshotID }
                try writer.append(rewritten)
            }
            let path = "\(directory)/metadata/m-\(snapshotID)-rewrite-\(newManifests.count).avro"
            let (bytes, rewrittenFile) = writer.finish(path: path, snapshotID: snapshotID, sequenceNumber: sequenceNumber)
            try fileIO.write(path, bytes)
            newManifests.append(rewrittenFile)
        }
        return try finishCommit(snapshotID: snapshotID, manifests: newManifests, operation: "delete")
    }

    /// Makes `schema` (with fresh or reused field ids, as the caller wrote them) current.
    func evolve(to schema: IcebergSchema) throws {
        clock += 1
        metadata = try metadata.applying([.addSchema(schema, lastColumnID: nil), .setCurrentSchema(-1)], now: clock)
    }

    private func manifestWriter(content: IcebergManifestContent) throws -> IcebergManifestWriter {
        let spec = metadata.defaultPartitionSpec!
        let partitionType = try spec.partitionType(for: schema).fields.map { field in
            IcebergManifestPartitionField(name: field.name, fieldID: field.id, type: .optional(Self.avroSchema(field.type)))
        }
        return try IcebergManifestWriter(
            partitionType: partitionType, content: content, tableSchemaJSON: schema.json.text, schemaID: Int32(schema.schemaID),
            partitionSpecJSON: JSONDocument.array(spec.fields.map(\.json)).text, partitionSpecID: Int32(spec.specID))
    }

    private func finishCommit(snapshotID: Int64, manifests newManifests: [IcebergManifestFile], operation: String) throws -> IcebergSnapshot {
        let listPath = "\(directory)/metadata/snap-\(snapshotID).avro"
        let list = try IcebergManifestList.write(
            newManifests, snapshotID: snapshotID, parentSnapshotID: metadata.currentSnapshot?.snapshotID,
            sequenceNumber: metadata.nextSequenceNumber)
        try fileIO.write(listPath, list)
        clock += 1000
        let (_, updates) = metadata.snapshotCommit(snapshotID: snapshotID, manifestList: listPath, operation: operation, summary: [:], timestampMs: clock)
        metadata = try metadata.applying(updates, now: clock)
        manifests = newManifests
        return metadata.currentSnapshot!
    }

    /// The Avro schema of a partition value of `type` (spec, Appendix A).
    static func avroSchema(_ type: IcebergType) -> AvroSchema {
        switch type {
        case .boolean: AvroSchema(.boolean)
        case .int: AvroSchema(.int)
        case .long: AvroSchema(.long)
        case .date: AvroSchema(.int, logicalType: .date)
        case .timestamp: AvroSchema(.long, logicalType: .timestampMicros)
        case .string: AvroSchema(.string)
        default: AvroSchema(.bytes)
        }
    }
}

extension IcebergTableScan {
    /// Every row the plan's tasks read, as values.
    func rows(_ plan: IcebergScanPlan, statistics: inout IcebergScanReadStatistics) throws -> [[Value]] {
        var rows: [[Value]] = []
        for task in plan.tasks {
            for chunk in try read(task, fields: plan.fields, statistics: &statistics) { rows += chunk.rows }
        }
        return rows
    }

    func rows(fields: [Int], predicate: IcebergScanPredicate? = nil) throws -> [[Value]] {
        var statistics = IcebergScanReadStatistics()
        return try rows(plan(fields: fields, predicate: predicate), statistics: &statistics)
    }
}

/// Sorts rows by their first column (an integer id), for order-independent comparisons.
func sortedByID(_ rows: [[Value]]) -> [[Value]] {
    rows.sorted { lhs, rhs in
        guard case .int64(let left)? = lhs.first, case .int64(let right)? = rhs.first else { return false }
        return left < right
    }
}

/// A chunk of `id` (bigint) values.
func idChunk(_ ids: some Sequence<Int64>) -> Chunk {
    Chunk(columns: [Column(type: .int64, values: ids.map { .int64($0) })])
}
