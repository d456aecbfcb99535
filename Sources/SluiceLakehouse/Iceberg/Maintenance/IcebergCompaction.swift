import Foundation
import SluiceCore
import SluiceFormats

/// What one compaction round did.
package struct IcebergCompactionResult: Hashable, Sendable {
    package enum Outcome: Hashable, Sendable {
        /// No partition needed rewriting (or the table has no snapshot).
        case nothingToCompact
        /// The `replace` snapshot was committed.
        case committed(snapshotID: Int64)
        /// Another writer committed first; the files this round wrote were deleted and the
        /// table is unchanged. The next round plans again from the new state.
        case abandonedOnConflict
    }

    package var outcome: Outcome
    package var rewrittenDataFiles = 0
    package var addedDataFiles = 0
    /// Delete files whose deletes the new files apply, removed from the table.
    package var removedDeleteFiles = 0
    package var rewrittenBytes: Int64 = 0
    package var addedBytes: Int64 = 0
    /// Rows of the rewritten files, deleted ones included.
    package var rewrittenRecords: Int64 = 0
    package var addedRecords: Int64 = 0

    package init(outcome: Outcome) {
        self.outcome = outcome
    }
}

/// Rewrites a table's small data files into files of about the target size and folds the
/// delete files that apply to them into the new files (Java's `RewriteDataFiles`, bin-pack,
/// one group per partition); see ``IcebergCompactionPlan`` for what is chosen.
///
/// A round reads the chosen files with ``ParquetReader`` in the current schema (columns matched
/// by field id, promoted types widened, missing columns null), drops the rows that position and
/// equality deletes remove, writes new ZSTD Parquet files under the table's `data/` (in the
/// directory of each partition's first input file), and commits one `replace` snapshot: a new
/// manifest adding the new files, and the manifests that listed rewritten data files or removed
/// delete files rewritten with those entries `DELETED` and the rest `EXISTING`, keeping their
/// sequence numbers. The commit requires `main` to still point at the snapshot planned from.
///
/// Sequence numbers (Iceberg spec, "Sequence Numbers", "Scan Planning"): the new files get the
/// data sequence number of the starting snapshot, as Java's `RewriteFiles` does with
/// `use-starting-sequence-number`. Every delete present at the start is then no newer than the
/// new files, so none applies to them (equality deletes need a strictly newer sequence number;
/// position deletes name other paths), while any delete committed after the start would be
/// newer and still apply. The file sequence number is the new snapshot's, inherited.
///
/// On a commit conflict (`40001`) the round deletes everything it wrote and reports
/// ``IcebergCompactionResult/Outcome/abandonedOnConflict``. On any other commit error the
/// outcome is unknown, so the files are left for orphan cleanup and the error is thrown.
package struct IcebergCompaction: Sendable {
    package let catalog: any IcebergCatalog
    package let fileIO: any FileIO
    package let identifier: IcebergTableIdentifier
    package let options: IcebergMaintenanceOptions
    /// Milliseconds since the epoch (the snapshot's timestamp).
    package let clock: @Sendable () -> Int64

    package init(catalog: any IcebergCatalog, fileIO: any FileIO, identifier: IcebergTableIdentifier,
                 options: IcebergMaintenanceOptions = IcebergMaintenanceOptions(),
                 clock: @escaping @Sendable () -> Int64 = icebergMaintenanceSystemClock) {
        self.catalog = catalog
        self.fileIO = fileIO
        self.identifier = identifier
        self.options = options
        self.clock = clock
    }

    /// Loads the table and runs one round.
    /// - Throws: `42P01` when the table does not exist; see ``run(on:)``.
    package func run() async throws(SluiceError) -> IcebergCompactionResult {
        guard let table = try await catalog.loadTable(identifier) else {
            throw IcebergCatalogError.noSuchTable(identifier.namespace, identifier.name)
        }
        return try await run(on: table)
    }

    /// Runs one round from `table` as loaded.
    /// - Throws: `0A000` for a v1 table or a column type compaction cannot rewrite; file and
    ///   catalog errors.
    package func run(on table: IcebergLoadedTable) async throws(SluiceError) -> IcebergCompactionResult {
        let compaction = self
        let prepared = try await offloadBlocking { () throws(SluiceError) -> IcebergPreparedReplace? in try compaction.prepare(table.metadata) }
        guard let prepared else { return IcebergCompactionResult(outcome: .nothingToCompact) }
        var result = prepared.result
        do throws(SluiceError) {
            _ = try await catalog.commitTable(identifier, requirements: prepared.requirements, updates: prepared.updates)
        } catch where error.code == IcebergCatalogError.commitConflictCode {
            let fileIO = self.fileIO
            _ = try? await offloadBlocking { () throws(SluiceError) in prepared.deleteWrittenFiles(fileIO) }
            result.outcome = .abandonedOnConflict
            return result
        }
        return result
    }

    /// Plans, rewrites and writes the new metadata files; nil when there is nothing to do.
    /// Everything it wrote is deleted again when it throws.
    func prepare(_ metadata: IcebergTableMetadata) throws(SluiceError) -> IcebergPreparedReplace? {
        guard metadata.formatVersion >= 2 else {
            throw SluiceError(.featureNotSupported, "compaction of Iceberg format version \(metadata.formatVersion) tables is not supported")
        }
        guard let snapshot = metadata.currentSnapshot else { return nil }
        guard let schema = metadata.currentSchema else { throw SluiceError(.dataCorrupted, "the iceberg table has no current schema") }
        let files = try IcebergSnapshotFiles.read(snapshot, fileIO: fileIO)
        let properties = metadata.properties
        let target = options.targetFileSizeBytes
            ?? IcebergMaintenanceProperties.positiveInteger(IcebergMaintenanceProperties.targetFileSizeBytes, in: properties)
            ?? IcebergMaintenanceProperties.defaultTargetFileSizeBytes
        let rowGroupBytes = IcebergMaintenanceProperties.positiveInteger(IcebergMaintenanceProperties.rowGroupSizeBytes, in: properties)
            ?? IcebergMaintenanceProperties.defaultRowGroupSizeBytes
        let unpartitioned = metadata.unpartitionedSpecIDs
        let plan = IcebergCompactionPlan(files: files, unpartitionedSpecIDs: unpartitioned, targetFileSizeBytes: target,
                                         minInputFiles: options.minInputFiles)
        guard !plan.isEmpty else { return nil }

        var location = metadata.location
        while location.hasSuffix("/") { location.removeLast() }
        let runID = UUID().uuidString.lowercased()
        var written: [String] = []
        do throws(SluiceError) {
            let rewriter = try IcebergGroupRewriter(fileIO: fileIO, schema: schema, tableLocation: location, targetBytes: target,
                                                    rowGroupBytes: rowGroupBytes, runID: runID)
            var contents = IcebergDeleteContents(fileIO: fileIO)
            var added: [IcebergAddedFiles] = []
            var positionsRead: [String: Set<String>] = [:]
            for group in plan.groups {
                let newFiles = try rewriter.rewrite(group, contents: &contents, written: &written)
                for delete in group.deletes.joined() where delete.file.content == .positionDeletes && positionsRead[delete.path] == nil {
                    positionsRead[delete.path] = Set(try contents.positions(in: delete).keys)
                }
                let partitionType = group.dataFiles.first.flatMap { files.contents[$0.manifestPath]?.partitionType } ?? []
                added.append(IcebergAddedFiles(specID: group.partition.specID, partitionType: partitionType, files: newFiles))
            }
            let removableDeletes = plan.removableDeleteFiles(files: files, unpartitionedSpecIDs: unpartitioned, positionsRead: positionsRead)
            return try IcebergPreparedReplace.write(
                metadata: metadata, snapshot: snapshot, files: files, rewritten: plan.groups.flatMap(\.dataFiles),
                removedDeletes: removableDeletes, added: added, tableLocation: location, runID: runID,
                timestampMs: clock(), fileIO: fileIO, written: &written)
        } catch {
            for path in written { try? fileIO.delete(path) }
            throw error
        }
    }
}

/// Reads a group's data files in the current schema, drops deleted rows, and writes the rest.
struct IcebergGroupRewriter {
    let fileIO: any FileIO
    let fields: [IcebergNestedField]
    let types: [DataType]
    let parquetSchema: [ParquetColumnSchema]
    /// Field id → index of the column among `fields`.
    let columnIndex: [Int32: Int]
    let tableLocation: String
    let targetBytes: Int64
    let rowGroupBytes: Int64
    let runID: String

    init(fileIO: any FileIO, schema: IcebergSchema, tableLocation: String, targetBytes: Int64, rowGroupBytes: Int64, runID: String) throws(SluiceError) {
        self.fileIO = fileIO
        fields = schema.fields
        var types: [DataType] = []
        for field in schema.fields { types.append(try field.type.sluiceType()) }
        self.types = types
        parquetSchema = try IcebergParquetColumns.writeSchema(schema.fields)
        var columnIndex: [Int32: Int] = [:]
        for (index, field) in schema.fields.enumerated() { columnIndex[Int32(truncatingIfNeeded: field.id)] = index }
        self.columnIndex = columnIndex
        self.tableLocation = tableLocation
        self.targetBytes = targetBytes
        self.rowGroupBytes = rowGroupBytes
        self.runID = runID
    }

    /// Rewrites `group`; appends the locations of the files it finished to `written`, also when
    /// it throws.
    func rewrite(_ group: IcebergCompactionGroup, contents: inout IcebergDeleteContents, written: inout [String]) throws(SluiceError) -> [IcebergDataFile] {
        let partition = group.dataFiles.first?.file.partition ?? []
        let writer = IcebergRollingFileWriter(
            fileIO: fileIO, directory: directory(for: group), schema: parquetSchema, partition: partition, targetBytes: targetBytes,
            rowGroupBytes: rowGroupBytes, runID: "\(runID)-\(written.count)")
        do throws(SluiceError) {
            for (data, deletes) in zip(group.dataFiles, group.deletes) {
                let filter = try IcebergRowFilter(data: data, deletes: deletes, contents: &contents, columnIndex: columnIndex, columnTypes: types)
                try copyRows(of: data, filter: filter, into: writer)
            }
            let files = try writer.finish()
            written += files.map(\.filePath)
            return files
        } catch {
            writer.abort()
            written += writer.files.map(\.filePath)
            throw error
        }
    }

    /// The partition's own directory when its first file lies under `data/` (a Hive-style
    /// partition path), else `data/`.
    private func directory(for group: IcebergCompactionGroup) -> String {
        let dataRoot = tableLocation + "/data"
        guard let first = group.dataFiles.first?.path, first.hasPrefix(dataRoot + "/"), let slash = first.lastIndex(of: "/") else { return dataRoot }
        return String(first[..<slash])
    }

    private func copyRows(of data: IcebergLiveFile, filter: IcebergRowFilter, into writer: IcebergRollingFileWriter) throws(SluiceError) {
        try IcebergDataFileColumns.read(data.path, fields: fields, fileIO: fileIO) { (read, position) throws(SluiceError) in
            var chunk = read
            if !filter.isEmpty, let kept = filter.keptRows(of: chunk, firstPosition: position) {
                chunk = Chunk(columns: chunk.columns.map { $0.gather(kept) }, count: kept.count)
            }
            try writer.write(chunk)
        }
    }
}
