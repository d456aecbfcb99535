import Foundation
import SluiceCore
import SluiceDataflow
import SluiceFormats
import SluiceLakehouse
import SluiceLakehouseClients
import Synchronization

/// `CREATE SINK … WITH (connector = 'iceberg', …)`: appends the sink's rows to an Iceberg table
/// through a REST catalog (the built-in one by default), exactly once (design 0009):
/// - each checkpoint barrier's rows become Parquet data files under the table's `data/`
///   (``prepare(epoch:)``), described by a token the checkpoint keeps;
/// - a commit adds one snapshot with one new manifest for every epoch it covers, its summary
///   tagged with the sink's id and last epoch;
/// - before committing, the sink finds the last epoch it committed in the table's snapshots and
///   skips what it holds, so a commit repeated after a crash adds nothing.
///
/// With `type = 'append-only'` only inserts are written: with `force_append_only` an update's
/// new row is an insert and deletes are dropped, as RisingWave does.
package final class IcebergSink: StreamSink {
    private let description: SinkDescription
    private let options: IcebergTableOptions
    private let catalog: IcebergCatalogAccess
    private let lakehouse: Lakehouse
    /// The table as the sink last loaded or committed it, and its data writer.
    private let table = Mutex<IcebergLoadedTable?>(nil)
    /// Touched only by the fragment's thread (write and prepare).
    private nonisolated(unsafe) var writer: IcebergDataWriter?
    /// Files written for epochs not yet prepared, in parts that commit as snapshots in order (an
    /// upsert epoch larger than the buffer has several): kept across a failed prepare.
    private nonisolated(unsafe) var unprepared: [[IcebergDataFile]] = []
    /// An upsert sink's changes since the last part was written, merged by key (nil:
    /// append-only); written as a part of the epoch once it holds `lakehouse.upsertBufferBytes`.
    private nonisolated(unsafe) var upserts: IcebergUpsertBatch?
    /// An upsert sink's writer of parts, with its index of where the rows it wrote lie.
    private nonisolated(unsafe) let upsertWriter: IcebergUpsertWriter?
    /// What the sink holds until its next commit, in the process's memory ledger.
    private let buffered = MemoryShare(.sinkBuffers)

    /// Summary keys of the snapshots a sink commits.
    package static let sinkIDKey = "sluice.sink-id"
    package static let epochKey = "sluice.epoch"
    /// Which part of its epoch a snapshot is ("2/3"), when an upsert epoch has several.
    package static let partKey = "sluice.part"

    /// One snapshot to commit: an epoch's files, or one part of them.
    private struct PartSnapshot {
        var epoch: UInt64
        var part: String?
        var files: [IcebergDataFile]
    }

    package init(_ description: SinkDescription, lakehouse: Lakehouse, validate: Bool) throws(SluiceError) {
        self.description = description
        self.lakehouse = lakehouse
        options = try IcebergTableOptions(description.options)
        if !description.appendOnly {
            guard !description.primaryKey.isEmpty else {
                throw SluiceError(.invalidParameterValue, "an upsert iceberg sink needs primary_key")
            }
            upserts = IcebergUpsertBatch(keyColumns: description.primaryKey, types: description.columns.map(\.type))
            upsertWriter = IcebergUpsertWriter(sinkID: description.sinkID, keyColumns: description.primaryKey)
        } else {
            upsertWriter = nil
        }
        catalog = try IcebergCatalogAccess.resolve(options, lakehouse: lakehouse)
        if validate { _ = try loadOrCreateTable() }
    }

    // MARK: StreamSink

    package func write(_ chunk: StreamChunk) throws(SluiceError) {
        defer { buffered.set((upserts?.byteCount ?? 0) + (writer?.bufferedBytes ?? 0)) }
        if upserts != nil {
            upserts?.take(chunk)
            // Past the buffer: the epoch so far becomes a part. On failure the batch keeps the
            // rows, for the next write or the prepare.
            if let bytes = upserts?.byteCount, bytes >= lakehouse.upsertBufferBytes { try writeUpsertPart(epoch: currentEpochHint) }
            return
        }
        // Append-only: inserts and the new rows of updates.
        guard let rows = chunk.insertedRows else { return }
        let writer = try dataWriter()
        try writer.write(rows, epoch: currentEpochHint)
    }

    /// Writes the upsert batch as one part of the epoch, and empties it.
    private func writeUpsertPart(epoch: UInt64) throws(SluiceError) {
        // No copy of the batch is held past its result, so emptying it reuses its buffers.
        guard let result = upserts.flatMap({ $0.isEmpty ? nil : $0.result() }) else { return }
        unprepared.append(try writeUpserts(result, epoch: epoch))
        upserts?.removeAll()
    }

    package func prepare(epoch: UInt64) throws(SluiceError) -> [UInt8]? {
        defer { buffered.set((upserts?.byteCount ?? 0) + (writer?.bufferedBytes ?? 0)) }
        // The batch is kept until both files are written, so a failed prepare loses nothing.
        try writeUpsertPart(epoch: epoch)
        if let writer {
            do {
                let files = try writer.finish()
                if !files.isEmpty { unprepared.append(files) }
            } catch {
                writer.abandon()
                self.writer = nil
                throw error
            }
        }
        currentEpochHint = epoch + 1
        guard !unprepared.isEmpty else { return nil }
        let token = try IcebergDataFile.encodeParts(unprepared, partitionType: try partitionType(of: try cachedTable()))
        unprepared = []
        return token
    }

    package func commit(_ prepared: [PreparedEpoch]) throws(SluiceError) -> SinkCommitSummary {
        var attempt = 0
        while true {
            attempt += 1
            let loaded = try loadOrCreateTable()
            let last = Self.lastEpoch(in: loaded.metadata, sinkID: description.sinkID)
            let due = prepared.filter { $0.epoch > (last ?? 0) }
            guard let tag = due.last?.epoch else { return SinkCommitSummary() }
            var snapshots: [PartSnapshot] = []
            let partitionType = try partitionType(of: loaded)
            for entry in due {
                let parts = try IcebergDataFile.decodeParts(entry.token, partitionType: partitionType)
                for (index, files) in parts.enumerated() {
                    snapshots.append(PartSnapshot(epoch: entry.epoch, part: parts.count > 1 ? "\(index + 1)/\(parts.count)" : nil, files: files))
                }
            }
            if upserts == nil { snapshots = [PartSnapshot(epoch: tag, part: nil, files: snapshots.flatMap(\.files))] }
            let settled = try settleFallbacks(&snapshots, in: loaded)
            let files = snapshots.flatMap(\.files).filter { $0.content == .data }
            do throws(SluiceError) {
                let committed: IcebergLoadedTable
                do throws(SluiceError) {
                    committed = try commitSnapshots(snapshots, to: loaded)
                } catch {
                    settled.delete(settled.written)
                    throw error
                }
                table.withLock { $0 = committed }
                settled.delete(settled.unneeded)
                maintainIfDue(committed)
                return SinkCommitSummary(files: files.count, rows: files.reduce(0) { $0 + Int($1.recordCount) })
            } catch where error.code == IcebergCatalogError.commitConflictCode && attempt < 5 {
                // Another writer committed first: load the table again and retry on top of it.
                table.withLock { $0 = nil }
                continue
            }
        }
    }

    /// When maintenance last ran (on the committer's thread, after a commit).
    private nonisolated(unsafe) var lastMaintenance = ContinuousClock.now
    /// What the last maintenance round did (for tests and `sluice_sinks`' readers).
    package let lastMaintenanceReport = Mutex<IcebergMaintenanceReport?>(nil)

    /// Compacts the table's small files and expires its old snapshots, at most every
    /// `compaction_interval_sec`, right after a commit on the committer's thread: the sink's own
    /// commits never race it. A failed round is reported and tried again next time; it never
    /// fails the commit.
    private func maintainIfDue(_ loaded: IcebergLoadedTable) {
        guard options.compaction || options.snapshotExpiration else { return }
        guard ContinuousClock.now - lastMaintenance >= .seconds(options.compactionIntervalSeconds) else {
            maintenanceOwed = true
            return
        }
        lastMaintenance = ContinuousClock.now
        maintenanceOwed = false
        do {
            let fileIO = try Self.fileIO(for: loaded, options: options, lakehouse: lakehouse)
            let maintenance = IcebergTableMaintenance(
                catalog: catalog.shared, fileIO: fileIO, identifier: options.identifier,
                options: IcebergMaintenanceOptions(
                    compactsDataFiles: options.compaction, expiresSnapshots: options.snapshotExpiration,
                    maxSnapshotAgeMs: options.snapshotMaxAgeMilliseconds, retainedSummaryKeys: [Self.sinkIDKey]))
            let report = try IcebergCatalogAccess.wait { () async throws(SluiceError) in try await maintenance.runOnce() }
            lastMaintenanceReport.withLock { $0 = report }
            table.withLock { $0 = nil }
        } catch {
            lastMaintenanceReport.withLock { $0 = nil }
        }
    }

    /// A commit came too soon after the last maintenance round to run one: the next idle
    /// checkpoint past the interval runs it, so the last commits' small files and equality
    /// deletes do not wait for more writes.
    private nonisolated(unsafe) var maintenanceOwed = false

    package func idle() {
        guard maintenanceOwed, let loaded = try? cachedTable() else { return }
        maintainIfDue(loaded)
    }

    package func lastCommittedEpoch() throws(SluiceError) -> UInt64? {
        guard let loaded = try catalog.loadTable(options.identifier) else { return nil }
        return Self.lastEpoch(in: loaded.metadata, sinkID: description.sinkID)
    }

    package func close() {}

    package var stateTables: SinkStateTables? { upsertWriter?.index.state }

    /// An upsert part's files (``IcebergUpsertWriter``): the deletes of the keys it touched and
    /// the rows it left. All or nothing: a failure drops what was written.
    private func writeUpserts(_ result: IcebergUpsertResult, epoch: UInt64) throws(SluiceError) -> [IcebergDataFile] {
        guard let upsertWriter else { return [] }
        // The table as it is now, so the index follows what other writers did up to here.
        let loaded = try loadOrCreateTable()
        let data = try dataWriter()
        do throws(SluiceError) {
            let fields = try Self.columns(of: loaded.metadata, for: description)
            let key = description.primaryKey
            let writers = IcebergUpsertWriter.Writers(
                data: data,
                equalityDeletes: try Self.makeWriter(for: loaded, description: description, options: options, lakehouse: lakehouse, keyColumns: key),
                fallback: try Self.makeWriter(
                    for: loaded, description: description, options: options, lakehouse: lakehouse, keyColumns: key,
                    kind: IcebergUpsertWriter.fallbackKind),
                fileIO: try Self.fileIO(for: loaded, options: options, lakehouse: lakehouse), compression: try Self.compression(of: loaded.metadata),
                keyFields: key.map { fields[$0] })
            return try upsertWriter.write(result, epoch: epoch, loaded: loaded, writers: writers)
        } catch {
            data.abandon()
            writer = nil
            throw error
        }
    }

    /// Settles the parts' fallback deletes (``IcebergUpsertWriter/settle(_:metadata:sinkID:fileIO:keyFields:)``).
    private func settleFallbacks(_ snapshots: inout [PartSnapshot], in loaded: IcebergLoadedTable) throws(SluiceError) -> IcebergUpsertWriter.Settled {
        guard upserts != nil, snapshots.contains(where: { $0.files.contains(where: IcebergUpsertWriter.isFallback) }) else { return .init() }
        let fields = try Self.columns(of: loaded.metadata, for: description)
        var parts = snapshots.map(\.files)
        let settled = try IcebergUpsertWriter.settle(
            &parts, metadata: loaded.metadata, sinkID: description.sinkID,
            fileIO: try Self.fileIO(for: loaded, options: options, lakehouse: lakehouse), keyFields: description.primaryKey.map { fields[$0] },
            compression: try Self.compression(of: loaded.metadata))
        for index in snapshots.indices { snapshots[index].files = parts[index] }
        return settled
    }

    // MARK: The table

    /// Epochs are numbered by the runtime; files are named by the epoch they start in.
    private nonisolated(unsafe) var currentEpochHint: UInt64 = 0

    private func dataWriter() throws(SluiceError) -> IcebergDataWriter {
        if let writer { return writer }
        let loaded = try cachedTable()
        let made = try Self.makeWriter(for: loaded, description: description, options: options, lakehouse: lakehouse)
        writer = made
        return made
    }

    private func cachedTable() throws(SluiceError) -> IcebergLoadedTable {
        if let loaded = table.withLock({ $0 }) { return loaded }
        return try loadOrCreateTable()
    }

    /// The table, created from the sink's columns when it does not exist (and
    /// `create_table_if_not_exists` is not false); checked against the sink's columns.
    @discardableResult
    private func loadOrCreateTable() throws(SluiceError) -> IcebergLoadedTable {
        try catalog.createNamespaceIfMissing(options.namespace)
        var loaded = try catalog.loadTable(options.identifier)
        if loaded == nil {
            guard options.createTableIfNotExists else {
                throw SluiceError(
                    .undefinedTable, "iceberg table \(options.identifier) does not exist",
                    hint: "Create it first, or set create_table_if_not_exists = 'true'.")
            }
            let fields = description.columns.map { StructField(name: $0.name, type: $0.type) }
            let schema = try IcebergSchema(columns: fields)
            do {
                loaded = try catalog.createTable(namespace: options.namespace, IcebergTableCreation(name: options.table, schema: schema))
            } catch where error.code == .duplicateTable || error.message.contains("already exists") {
                // Created meanwhile by another sink or client.
                loaded = try catalog.loadTable(options.identifier)
            }
        }
        guard let loaded else { throw SluiceError(.undefinedTable, "iceberg table \(options.identifier) does not exist") }
        _ = try Self.partitioner(for: loaded.metadata, fields: try Self.columns(of: loaded.metadata, for: description))
        _ = try Self.compression(of: loaded.metadata)
        table.withLock { $0 = loaded }
        return loaded
    }

    /// The table's field for each sink column, by name: it must exist with a type the column's
    /// values fit.
    static func columns(of metadata: IcebergTableMetadata, for description: SinkDescription) throws(SluiceError) -> [IcebergNestedField] {
        guard let schema = metadata.currentSchema else { throw SluiceError(.dataCorrupted, "the iceberg table has no current schema") }
        var fields: [IcebergNestedField] = []
        for column in description.columns {
            guard let field = schema.field(named: column.name) else {
                throw SluiceError(
                    .undefinedColumn, "the iceberg table has no column \"\(column.name)\", which the sink writes",
                    hint: "Its columns are \(schema.fields.map(\.name).joined(separator: ", ")).")
            }
            let tableType = try field.type.sluiceType()
            guard fits(column.type, into: tableType) else {
                throw SluiceError(
                    .datatypeMismatch,
                    "column \"\(column.name)\" is \(column.type.sqlName) in the sink but \(field.type) in the iceberg table")
            }
            fields.append(field)
        }
        for field in schema.fields where field.isRequired && !fields.contains(where: { $0.id == field.id }) {
            throw SluiceError(.notNullViolation, "the iceberg table's required column \"\(field.name)\" is not among the sink's columns")
        }
        return fields
    }

    /// Whether values of `source` can be written to a column of `target` without loss of meaning.
    static func fits(_ source: DataType, into target: DataType) -> Bool {
        if source == target { return true }
        switch (source, target) {
        case (.int16, .int32), (.int16, .int64), (.int32, .int64), (.float32, .float64), (.decimal, .decimal), (.jsonb, .varchar):
            return true
        case (.list(let a), .list(let b)):
            return a == b
        default:
            return false
        }
    }

    /// A writer of the sink's columns, or with `keyColumns` of an equality-delete file of those.
    static func makeWriter(
        for loaded: IcebergLoadedTable, description: SinkDescription, options: IcebergTableOptions, lakehouse: Lakehouse,
        keyColumns: [Int]? = nil, kind: String? = nil
    ) throws(SluiceError) -> IcebergDataWriter {
        let fields = try columns(of: loaded.metadata, for: description)
        var columns: [IcebergDataWriter.Column] = []
        for field in fields { columns.append(.init(fieldID: Int32(field.id), type: try field.type.sluiceType())) }
        let written = keyColumns ?? Array(fields.indices)
        let schema = written.map { parquetColumn(fields[$0].name, fields[$0].type, required: fields[$0].isRequired, id: fields[$0].id) }
        let fileIO = try self.fileIO(for: loaded, options: options, lakehouse: lakehouse)
        let target = loaded.metadata.properties["write.target-file-size-bytes"].flatMap { Int($0) } ?? (512 << 20)
        return IcebergDataWriter(
            columns: columns, parquetSchema: schema, fileIO: fileIO, tableLocation: loaded.metadata.location, sinkID: description.sinkID,
            targetFileBytes: target, compression: try compression(of: loaded.metadata),
            equalityFieldIDs: keyColumns.map { $0.map { Int32(fields[$0].id) } }, written: written,
            partitioner: try partitioner(for: loaded.metadata, fields: fields), kind: kind)
    }

    /// The table's default partition spec over the sink's columns (`fields`, in the sink's
    /// order); nil for an unpartitioned table. A spec over a column the sink does not write is
    /// refused with 0A000 at CREATE.
    static func partitioner(for metadata: IcebergTableMetadata, fields: [IcebergNestedField]) throws(SluiceError) -> IcebergPartitioner? {
        guard let spec = metadata.defaultPartitionSpec, !spec.isUnpartitioned, let schema = metadata.currentSchema else { return nil }
        var sourceColumns: [Int: Int] = [:]
        for (index, field) in fields.enumerated() { sourceColumns[field.id] = index }
        return try IcebergPartitioner(spec: spec, schema: schema, sourceColumns: sourceColumns)
    }

    /// The manifest partition type of the table's default spec (empty when unpartitioned).
    private func partitionType(of loaded: IcebergLoadedTable) throws(SluiceError) -> [IcebergManifestPartitionField] {
        guard let spec = loaded.metadata.defaultPartitionSpec, !spec.isUnpartitioned, let schema = loaded.metadata.currentSchema else { return [] }
        return try spec.manifestPartitionType(for: schema)
    }

    /// The table's `write.parquet.compression-codec` (Iceberg's default, zstd, when unset).
    static func compression(of metadata: IcebergTableMetadata) throws(SluiceError) -> ParquetCompression {
        switch metadata.properties["write.parquet.compression-codec"]?.lowercased() {
        case nil, "zstd": return .zstd
        case "snappy": return .snappy
        case "gzip": return .gzip
        case "uncompressed", "none": return .uncompressed
        case let other?:
            throw SluiceError(
                .featureNotSupported, "the iceberg table's write.parquet.compression-codec '\(other)' is not supported",
                hint: "Sinks write zstd, snappy, gzip or uncompressed Parquet.")
        }
    }

    /// The Parquet column of an Iceberg field, with the field ids of nested fields too.
    static func parquetColumn(_ name: String, _ type: IcebergType, required: Bool, id: Int) -> ParquetColumnSchema {
        let sluiceType = (try? type.sluiceType()) ?? .varchar
        switch type {
        case .structure(let structure):
            let children = structure.fields.map { parquetColumn($0.name, $0.type, required: $0.isRequired, id: $0.id) }
            return ParquetColumnSchema(name: name, type: sluiceType, nullable: !required, fieldID: Int32(id), children: children)
        case .list(let list):
            let element = parquetColumn("element", list.element, required: list.isElementRequired, id: list.elementID)
            return ParquetColumnSchema(name: name, type: sluiceType, nullable: !required, fieldID: Int32(id), children: [element])
        default:
            return ParquetColumnSchema(name: name, type: sluiceType, nullable: !required, fieldID: Int32(id))
        }
    }

    /// Where the table's files are written: S3 with the sink's `s3.*` options, else the
    /// catalog's vended settings, else the server's; local paths directly.
    static func fileIO(for loaded: IcebergLoadedTable, options: IcebergTableOptions, lakehouse: Lakehouse) throws(SluiceError) -> any FileIO {
        try fileIO(location: loaded.metadata.location, vended: loaded.config, options: options, lakehouse: lakehouse)
    }

    /// The file IO for files under `location`, given a catalog's `vended` settings.
    static func fileIO(location: String, vended: [String: String], options: IcebergTableOptions, lakehouse: Lakehouse) throws(SluiceError) -> any FileIO {
        guard try FileIOs.scheme(of: location) == .s3 else { return LocalFileIO() }
        let base = lakehouse.s3
        let endpoint = options.s3Endpoint ?? vended["s3.endpoint"] ?? base?.endpoint
        let region = options.s3Region ?? vended["s3.region"] ?? vended["client.region"] ?? base?.region
        let accessKey = options.s3AccessKey ?? vended["s3.access-key-id"] ?? base?.accessKeyID
        let secretKey = options.s3SecretKey ?? vended["s3.secret-access-key"] ?? base?.secretAccessKey
        let pathStyle = options.s3PathStyle ?? vended["s3.path-style-access"].map { $0 == "true" }
        let addressing: S3Addressing? = pathStyle.map { $0 ? .pathStyle : .virtualHost } ?? base?.addressing
        let config = try S3Config.fromEnvironment(
            endpoint: endpoint, region: region, accessKeyID: accessKey, secretAccessKey: secretKey, addressing: addressing)
        return try S3FileIO(config: config)
    }

    /// The last epoch this sink committed to the table: the newest snapshot on `main`'s
    /// history whose summary carries the sink's id.
    static func lastEpoch(in metadata: IcebergTableMetadata, sinkID: String) -> UInt64? {
        var snapshot = metadata.currentSnapshot
        var seen = 0
        while let current = snapshot, seen < metadata.snapshots.count {
            if current.summary[sinkIDKey] == sinkID, let text = current.summary[epochKey], let epoch = UInt64(text) { return epoch }
            snapshot = current.parentSnapshotID.flatMap { metadata.snapshot(id: $0) }
            seen += 1
        }
        return nil
    }

    /// Commits `snapshots` (in epoch order) in one catalog commit, each as a snapshot on top of
    /// the one before: new manifests of its data and delete files, and a manifest list of those
    /// and the manifests before. An append-only sink commits all its epochs as one snapshot; an
    /// upsert sink one snapshot per epoch part, since a part's equality deletes must not apply to
    /// its own rows, only to those of older snapshots (design 0009).
    private func commitSnapshots(
        _ snapshots: [PartSnapshot], to loaded: IcebergLoadedTable
    ) throws(SluiceError) -> IcebergLoadedTable {
        var metadata = loaded.metadata
        let fileIO = try Self.fileIO(for: loaded, options: options, lakehouse: lakehouse)
        guard let schema = metadata.currentSchema else { throw SluiceError(.dataCorrupted, "the iceberg table has no current schema") }
        var location = metadata.location
        while location.hasSuffix("/") { location.removeLast() }
        let spec = metadata.defaultPartitionSpec ?? .unpartitioned
        let specJSON = JSONDocument.array(spec.fields.map(\.json)).text
        let partitionType = try partitionType(of: loaded)
        var manifests: [IcebergManifestFile] = []
        if let current = metadata.currentSnapshot {
            manifests = try IcebergManifestList.read(try fileIO.read(current.manifestList)).manifests
        }
        var requirements: [IcebergTableRequirement]?
        var updates: [IcebergTableUpdate] = []
        for snapshot in snapshots {
            let snapshotID = IcebergSnapshot.newSnapshotID()
            let sequenceNumber = metadata.nextSequenceNumber
            let unique = UUID().uuidString.lowercased()
            let data = snapshot.files.filter { $0.content == .data }
            let deletes = snapshot.files.filter { $0.content != .data }
            var added: [IcebergManifestFile] = []
            for (number, (files, content)) in [(data, IcebergManifestContent.data), (deletes, .deletes)].enumerated() where !files.isEmpty {
                var writer = try IcebergManifestWriter(
                    partitionType: partitionType, content: content, tableSchemaJSON: schema.json.text, schemaID: Int32(schema.schemaID),
                    partitionSpecJSON: specJSON, partitionSpecID: Int32(spec.specID))
                for file in files {
                    try writer.append(IcebergManifestEntry(status: .added, snapshotID: snapshotID, sequenceNumber: nil, fileSequenceNumber: nil, dataFile: file))
                }
                let path = "\(location)/metadata/\(unique)-m\(number).avro"
                let (bytes, manifest) = writer.finish(path: path, snapshotID: snapshotID, sequenceNumber: sequenceNumber)
                try fileIO.write(path, bytes)
                added.append(manifest)
            }
            manifests.insert(contentsOf: added, at: 0)
            let listPath = "\(location)/metadata/snap-\(snapshotID)-1-\(unique).avro"
            try fileIO.write(listPath, try IcebergManifestList.write(
                manifests, snapshotID: snapshotID, parentSnapshotID: metadata.currentSnapshot?.snapshotID, sequenceNumber: sequenceNumber))
            let commit = metadata.snapshotCommit(
                snapshotID: snapshotID, manifestList: listPath, operation: deletes.isEmpty ? "append" : "overwrite",
                summary: summary(
                    data: data, deletes: deletes, previous: metadata.currentSnapshot?.summary ?? [:], epoch: snapshot.epoch, part: snapshot.part),
                timestampMs: Int64(Date().timeIntervalSince1970 * 1000))
            if requirements == nil { requirements = commit.requirements }
            updates += commit.updates
            metadata = try metadata.applying(commit.updates, now: Int64(Date().timeIntervalSince1970 * 1000))
        }
        return try catalog.commitTable(options.identifier, requirements: requirements ?? [], updates: updates)
    }

    /// A snapshot's summary (Iceberg's `added-*` and `total-*` counts) with the sink's tags.
    private func summary(
        data: [IcebergDataFile], deletes: [IcebergDataFile], previous: [String: String], epoch: UInt64, part: String?
    ) -> [String: String] {
        let addedRows = data.reduce(Int64(0)) { $0 + $1.recordCount }
        let positionDeletes = deletes.filter { $0.content == .positionDeletes }
        let equalityDeletes = deletes.filter { $0.content == .equalityDeletes }
        let addedPositionDeletes = positionDeletes.reduce(Int64(0)) { $0 + $1.recordCount }
        let addedEqualityDeletes = equalityDeletes.reduce(Int64(0)) { $0 + $1.recordCount }
        let addedBytes = (data + deletes).reduce(Int64(0)) { $0 + $1.fileSizeInBytes }
        func total(_ key: String, plus added: Int64) -> String { String((previous[key].flatMap { Int64($0) } ?? 0) + added) }
        var summary: [String: String] = [
            "added-data-files": String(data.count), "added-records": String(addedRows), "added-files-size": String(addedBytes),
            "total-data-files": total("total-data-files", plus: Int64(data.count)), "total-records": total("total-records", plus: addedRows),
            "total-files-size": total("total-files-size", plus: addedBytes),
            "total-delete-files": total("total-delete-files", plus: Int64(deletes.count)),
            "total-position-deletes": total("total-position-deletes", plus: addedPositionDeletes),
            "total-equality-deletes": total("total-equality-deletes", plus: addedEqualityDeletes),
            Self.sinkIDKey: description.sinkID, Self.epochKey: String(epoch), "sluice.sink-name": description.name,
        ]
        if let part { summary[Self.partKey] = part }
        if !deletes.isEmpty { summary["added-delete-files"] = String(deletes.count) }
        if !positionDeletes.isEmpty {
            summary["added-position-delete-files"] = String(positionDeletes.count)
            summary["added-position-deletes"] = String(addedPositionDeletes)
        }
        if !equalityDeletes.isEmpty {
            summary["added-equality-delete-files"] = String(equalityDeletes.count)
            summary["added-equality-deletes"] = String(addedEqualityDeletes)
        }
        return summary
    }
}
