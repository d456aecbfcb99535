import Foundation
import SluiceCore
import SluiceFormats
import SluiceLakehouse
import Testing

/// A real Iceberg table in a temporary directory, built the way Sluice's sinks build tables:
/// Parquet files written with `ParquetWriter`, manifests with `IcebergManifestWriter`, commits
/// through `IcebergCatalogStore`. Its `rows()` is an independent scan (deletes applied by the
/// spec's rules, written here from the spec, not shared with the code under test).
struct IcebergTestTable: Sendable {
    /// One row: id (long, required), name (string), value (double).
    struct Row: Hashable, Sendable, CustomStringConvertible {
        var id: Int64
        var name: String?
        var value: Double?

        var description: String { "(\(id), \(name ?? "NULL"), \(value.map { String($0) } ?? "NULL"))" }
    }

    static let schema = IcebergSchema(schemaID: 0, identifierFieldIDs: [1], fields: [
        IcebergNestedField(id: 1, name: "id", isRequired: true, type: .long),
        IcebergNestedField(id: 2, name: "name", isRequired: false, type: .string),
        IcebergNestedField(id: 3, name: "value", isRequired: false, type: .double),
    ])
    static let regionSpec = IcebergPartitionSpec(specID: 0, fields: [
        IcebergPartitionField(sourceID: 2, fieldID: 1000, name: "name", transform: .identity),
    ])

    let directory: String
    let store: IcebergCatalogStore
    let catalog: IcebergWarehouseCatalog
    let identifier = IcebergTableIdentifier(namespace: ["db"], name: "events")
    let isPartitioned: Bool

    /// A new empty table; partitioned by identity(name) when `partitioned`.
    init(partitioned: Bool = false, properties: [String: String] = [:]) throws {
        directory = NSTemporaryDirectory() + "sluice-maintenance-\(UUID().uuidString.lowercased())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = try IcebergCatalogStore(rootDirectory: directory + "/catalog", warehouseRoot: directory + "/warehouse", fileIO: LocalFileIO())
        catalog = store.warehouse("wh")
        isPartitioned = partitioned
        try store.createNamespaceIfMissing(warehouse: "wh", ["db"])
        _ = try store.createTable(warehouse: "wh", namespace: ["db"], IcebergTableCreation(
            name: "events", schema: Self.schema, partitionSpec: partitioned ? Self.regionSpec : .unpartitioned, properties: properties))
    }

    func removeDirectory() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    var table: IcebergLoadedTable {
        get throws { try store.loadTable(warehouse: "wh", identifier) }
    }

    var location: String {
        get throws { try table.metadata.location }
    }

    /// The files stored under the table's location, as paths.
    func storedFiles() throws -> Set<String> {
        Set(try LocalFileIO().list(prefix: try location + "/").map(\.location))
    }

    // MARK: Writing

    /// The partition tuple of rows whose `name` is `partitionName`.
    func partition(_ partitionName: String?) -> [AvroValue] {
        isPartitioned ? [partitionName.map { .string($0) } ?? .null] : []
    }

    static let partitionType = [IcebergManifestPartitionField(name: "name", fieldID: 1000, type: .optional(.string))]

    /// Writes `rows` as one Parquet data file; returns its manifest description.
    func writeDataFile(_ rows: [Row], partitionName: String? = nil) throws -> IcebergDataFile {
        let chunk = Chunk(columns: [
            Column(type: .int64, values: rows.map { .int64($0.id) }),
            Column(type: .varchar, values: rows.map { $0.name.map { .string($0) } ?? .null }),
            Column(type: .float64, values: rows.map { $0.value.map { .float64($0) } ?? .null }),
        ])
        let path = try location + "/data/" + (isPartitioned ? "name=\(partitionName ?? "null")/" : "") + "\(UUID().uuidString.lowercased()).parquet"
        let size = try writeParquet(chunk, schema: [
            ParquetColumnSchema(name: "id", type: .int64, nullable: false, fieldID: 1),
            ParquetColumnSchema(name: "name", type: .varchar, nullable: true, fieldID: 2),
            ParquetColumnSchema(name: "value", type: .float64, nullable: true, fieldID: 3),
        ], to: path)
        return IcebergDataFile(content: .data, filePath: path, partition: partition(partitionName), recordCount: Int64(rows.count), fileSizeInBytes: Int64(size))
    }

    /// Writes an equality delete file on `id` deleting `ids`.
    func writeEqualityDeletes(ids: [Int64], partitionName: String? = nil) throws -> IcebergDataFile {
        let path = try location + "/data/eq-delete-\(UUID().uuidString.lowercased()).parquet"
        let size = try writeParquet(Chunk(columns: [Column(type: .int64, values: ids.map { .int64($0) })]),
                                    schema: [ParquetColumnSchema(name: "id", type: .int64, nullable: false, fieldID: 1)], to: path)
        return IcebergDataFile(content: .equalityDeletes, filePath: path, partition: partition(partitionName), recordCount: Int64(ids.count),
                               fileSizeInBytes: Int64(size), equalityIDs: [1])
    }

    /// Writes a position delete file deleting `positions` of the data file at `dataPath`.
    func writePositionDeletes(dataPath: String, positions: [Int64], partitionName: String? = nil) throws -> IcebergDataFile {
        let path = try location + "/data/pos-delete-\(UUID().uuidString.lowercased()).parquet"
        let size = try writeParquet(Chunk(columns: [
            Column(type: .varchar, values: positions.map { _ in .string(dataPath) }),
            Column(type: .int64, values: positions.map { .int64($0) }),
        ]), schema: [
            ParquetColumnSchema(name: "file_path", type: .varchar, nullable: false, fieldID: 2_147_483_546),
            ParquetColumnSchema(name: "pos", type: .int64, nullable: false, fieldID: 2_147_483_545),
        ], to: path)
        return IcebergDataFile(content: .positionDeletes, filePath: path, partition: partition(partitionName), recordCount: Int64(positions.count),
                               fileSizeInBytes: Int64(size))
    }

    private func writeParquet(_ chunk: Chunk, schema: [ParquetColumnSchema], to path: String) throws -> Int {
        let writer = try ParquetWriter(schema: schema, options: ParquetWriterOptions(compression: .zstd))
        try writer.write(chunk)
        var bytes = writer.takeOutput()
        bytes += try writer.finish().tail
        try LocalFileIO().write(path, bytes)
        return bytes.count
    }

    /// What a commit wrote and produced.
    struct Commit {
        var snapshotID: Int64
        var writtenFiles: [String]
        var metadataLocation: String?
    }

    /// Commits `files` (data or delete files) as one new snapshot on top of the current one.
    @discardableResult
    func commit(_ files: [IcebergDataFile], timestampMs: Int64 = Int64(Date().timeIntervalSince1970 * 1000), summary: [String: String] = [:],
                operation: String? = nil) throws -> Commit {
        let metadata = try table.metadata
        let snapshotID = IcebergSnapshot.newSnapshotID()
        let sequenceNumber = metadata.nextSequenceNumber
        let location = metadata.location
        var manifests: [IcebergManifestFile] = []
        var written: [String] = files.map(\.filePath)
        for content in [IcebergManifestContent.data, .deletes] {
            let selected = files.filter { ($0.content == .data) == (content == .data) }
            guard !selected.isEmpty else { continue }
            var writer = try IcebergManifestWriter(
                partitionType: isPartitioned ? Self.partitionType : [], content: content, tableSchemaJSON: Self.schema.json.text, schemaID: 0,
                partitionSpecJSON: JSONDocument.array((isPartitioned ? Self.regionSpec : .unpartitioned).fields.map(\.json)).text, partitionSpecID: 0)
            for file in selected { try writer.append(IcebergManifestEntry(status: .added, dataFile: file)) }
            let path = "\(location)/metadata/\(UUID().uuidString.lowercased())-m0.avro"
            let (bytes, manifest) = writer.finish(path: path, snapshotID: snapshotID, sequenceNumber: sequenceNumber)
            try LocalFileIO().write(path, bytes)
            written.append(path)
            manifests.append(manifest)
        }
        if let current = metadata.currentSnapshot {
            manifests += try IcebergManifestList.read(try LocalFileIO().read(current.manifestList)).manifests
        }
        let listPath = "\(location)/metadata/snap-\(snapshotID)-1-\(UUID().uuidString.lowercased()).avro"
        try LocalFileIO().write(listPath, try IcebergManifestList.write(
            manifests, snapshotID: snapshotID, parentSnapshotID: metadata.currentSnapshot?.snapshotID, sequenceNumber: sequenceNumber))
        written.append(listPath)
        let op = operation ?? (files.allSatisfy { $0.content == .data } ? "append" : "overwrite")
        let commit = metadata.snapshotCommit(snapshotID: snapshotID, manifestList: listPath, operation: op, summary: summary, timestampMs: timestampMs)
        let loaded = try store.commitTable(warehouse: "wh", identifier, requirements: commit.requirements, updates: commit.updates)
        return Commit(snapshotID: snapshotID, writtenFiles: written, metadataLocation: loaded.metadataLocation)
    }

    /// Appends `rows` as one new data file in one new snapshot.
    @discardableResult
    func append(_ rows: [Row], partitionName: String? = nil, timestampMs: Int64 = Int64(Date().timeIntervalSince1970 * 1000),
                summary: [String: String] = [:]) throws -> Commit {
        try commit([writeDataFile(rows, partitionName: partitionName)], timestampMs: timestampMs, summary: summary)
    }

    // MARK: Reading (an independent scan)

    /// The live entries of the current snapshot, with their inherited sequence numbers.
    func liveEntries() throws -> [(entry: IcebergManifestEntry, specID: Int32)] {
        guard let snapshot = try table.metadata.currentSnapshot else { return [] }
        var result: [(IcebergManifestEntry, Int32)] = []
        for manifestFile in try IcebergManifestList.read(try LocalFileIO().read(snapshot.manifestList)).manifests {
            let manifest = try IcebergManifest.read(try LocalFileIO().read(manifestFile.manifestPath), inheritingFrom: manifestFile)
            for entry in manifest.entries where entry.status != .deleted { result.append((entry, manifestFile.partitionSpecID)) }
        }
        return result
    }

    /// The live data files of the current snapshot.
    func dataFiles() throws -> [IcebergManifestEntry] {
        try liveEntries().map(\.entry).filter { $0.dataFile.content == .data }
    }

    func deleteFiles() throws -> [IcebergManifestEntry] {
        try liveEntries().map(\.entry).filter { $0.dataFile.content != .data }
    }

    /// Every row of the current snapshot, deletes applied (Iceberg spec, "Scan Planning"; this
    /// table's deletes are all in its own partition spec).
    func rows() throws -> [Row: Int] {
        let entries = try liveEntries().map(\.entry)
        let deletes = entries.filter { $0.dataFile.content != .data }
        var result: [Row: Int] = [:]
        for data in entries where data.dataFile.content == .data {
            let dataSequence = data.sequenceNumber ?? 0
            var deletedPositions = Set<Int64>()
            var deletedIDs = Set<Int64>()
            for delete in deletes where delete.dataFile.partition == data.dataFile.partition {
                let deleteSequence = delete.sequenceNumber ?? 0
                let columns = try readColumns(delete.dataFile.filePath)
                if delete.dataFile.content == .positionDeletes, dataSequence <= deleteSequence {
                    for (path, position) in zip(columns[2_147_483_546] ?? [], columns[2_147_483_545] ?? []) where path == .string(data.dataFile.filePath) {
                        if case .int64(let row) = position { deletedPositions.insert(row) }
                    }
                } else if delete.dataFile.content == .equalityDeletes, dataSequence < deleteSequence {
                    for value in columns[1] ?? [] { if case .int64(let id) = value { deletedIDs.insert(id) } }
                }
            }
            let columns = try readColumns(data.dataFile.filePath)
            let ids = columns[1] ?? [], names = columns[2] ?? [], values = columns[3] ?? []
            for position in ids.indices where !deletedPositions.contains(Int64(position)) {
                guard case .int64(let id) = ids[position] else { throw TestFailure("id is not a long") }
                if deletedIDs.contains(id) { continue }
                let name: String? = if case .string(let text) = names[position] { text } else { nil }
                let value: Double? = if case .float64(let number) = values[position] { number } else { nil }
                result[Row(id: id, name: name, value: value), default: 0] += 1
            }
        }
        return result
    }

    /// A Parquet file's top-level columns by field id, as values.
    func readColumns(_ path: String) throws -> [Int32: [Value]] {
        let reader = try ParquetReader(input: ParquetBytesInput(try LocalFileIO().read(path)))
        var result: [Int32: [Value]] = [:]
        for rowGroup in reader.rowGroups.indices {
            let chunk = try reader.readRowGroup(rowGroup)
            for (index, column) in chunk.columns.enumerated() {
                guard let id = reader.schema[index].fieldID else { continue }
                result[id, default: []] += (0 ..< chunk.count).map { column.value(at: $0) }
            }
        }
        return result
    }

    /// Rows as a multiset.
    static func multiset(_ rows: [Row]) -> [Row: Int] {
        rows.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    /// `count` rows with ids from `firstID`, names from `names` in turn.
    static func rows(from firstID: Int64, count: Int, names: [String?] = ["a", "b", nil]) -> [Row] {
        (0 ..< count).map { offset in
            let id = firstID + Int64(offset)
            return Row(id: id, name: names[offset % names.count], value: offset % 7 == 0 ? nil : Double(id) * 1.5)
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Sets a file's modification time to `ageMs` milliseconds ago.
func setAge(of path: String, ageMs: Int64) throws {
    let date = Date(timeIntervalSinceNow: -Double(ageMs) / 1000)
    try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
}

let nowMs: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
let dayMs: Int64 = 24 * 3_600_000
