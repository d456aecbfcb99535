import SluiceCore
import SluiceFormats

/// Reads an Iceberg v2 table's snapshot into ``Chunk``s: plans which data files to read (with
/// their delete files), then reads each planned task.
///
/// ```swift
/// let scan = IcebergTableScan(metadata: metadata, fileIO: fileIO)
/// let plan = try scan.plan(fields: [1, 3], predicate: IcebergScanPredicate([.compare(fieldID: 1, .greaterThan, .int64(100))]))
/// for task in plan.tasks {                      // any thread, in any order
///     for chunk in try scan.read(task, fields: plan.fields) { … }   // the caller still filters rows
/// }
/// ```
///
/// Synchronous and blocking (``FileIO`` is): callers run it on their own threads, never on an
/// event loop. Columns are found by Iceberg field id, so renamed columns are found and columns
/// a file lacks read as nulls; `int`→`long`, `float`→`double` and decimal precision widening
/// are applied. Only Parquet data and delete files are read.
package struct IcebergTableScan: Sendable {
    package let metadata: IcebergTableMetadata
    package let fileIO: any FileIO
    /// The snapshot to read; nil for the table's current snapshot (`main`).
    package let snapshotID: Int64?
    /// Delete files decoded once and shared by every task this scan (and its copies) reads.
    package let deleteCache: IcebergDeleteFileCache

    package init(metadata: IcebergTableMetadata, fileIO: any FileIO, snapshotID: Int64? = nil,
                 deleteCache: IcebergDeleteFileCache = IcebergDeleteFileCache()) {
        self.metadata = metadata
        self.fileIO = fileIO
        self.snapshotID = snapshotID
        self.deleteCache = deleteCache
    }

    /// The schema whose field ids callers project: the table's current schema.
    package func schema() throws(SluiceError) -> IcebergSchema {
        guard let schema = metadata.currentSchema else {
            throw SluiceError(.dataCorrupted, "Iceberg table metadata has no schema with id \(metadata.currentSchemaID)")
        }
        return schema
    }

    /// The output columns for `fields`: top-level field ids of the current schema.
    /// - Throws: `42703` for an id that is not a top-level field, `0A000` for a map column.
    package func columns(for fields: [Int]) throws(SluiceError) -> [StructField] {
        let schema = try self.schema()
        var columns: [StructField] = []
        for id in fields {
            guard let field = schema.fields.first(where: { $0.id == id }) else {
                throw SluiceError(.undefinedColumn, "Iceberg table has no top-level column with field id \(id)")
            }
            columns.append(StructField(name: field.name, type: try field.type.sluiceType()))
        }
        return columns
    }

    /// Plans a scan of `fields` (top-level field ids of the current schema) that may skip
    /// whatever `predicate` rules out: manifests by partition summaries, data files by
    /// partition values and column metrics, and, with `choosingRowGroups`, row groups by
    /// their Parquet statistics (that reads every planned file's footer, one request each;
    /// without it the reader skips row groups itself, which parallelizes with the reads).
    ///
    /// Reads the manifest list and the data and delete manifests not pruned.
    /// - Throws: `42703`/`0A000` for fields as ``columns(for:)``; `22023` for a snapshot id the
    ///   table does not have; `58P01`/`58030` when a file cannot be read; `XX001` for corrupt
    ///   manifests; `0A000` for delete files this reader cannot apply (deletion vectors).
    package func plan(fields: [Int], predicate: IcebergScanPredicate? = nil, choosingRowGroups: Bool = false) throws(SluiceError) -> IcebergScanPlan {
        let schema = try self.schema()
        let columns = try self.columns(for: fields)
        let predicate = predicate.flatMap { $0.terms.isEmpty ? nil : $0 }
        guard let snapshot = try self.snapshot() else {
            return IcebergScanPlan(snapshotID: nil, fields: fields, columns: columns, predicate: predicate, tasks: [], counters: IcebergScanCounters())
        }
        var counters = IcebergScanCounters()
        var deleteIndex = IcebergDeleteIndex()
        var candidates: [IcebergScanTask] = []
        var filters: [Int: IcebergPartitionFilter] = [:]

        let manifestList = try IcebergManifestList.read(try fileIO.read(snapshot.manifestList))
        for manifestFile in manifestList.manifests {
            let specID = Int(manifestFile.partitionSpecID)
            guard let spec = metadata.partitionSpecs.first(where: { $0.specID == specID }) else {
                throw SluiceError(.dataCorrupted, "Iceberg manifest \"\(manifestFile.manifestPath)\" uses partition spec \(specID), which the table does not have")
            }
            var filter: IcebergPartitionFilter?
            if let predicate {
                let specFilter = filters[specID] ?? IcebergPartitionFilter(spec: spec, schema: schema, predicate: predicate)
                filters[specID] = specFilter
                filter = specFilter.isEmpty ? nil : specFilter
            }
            switch manifestFile.content {
            case .data:
                counters.dataManifests += 1
                if let filter, !filter.mayMatch(summaries: manifestFile.partitions) {
                    counters.dataManifestsPruned += 1
                    continue
                }
            case .deletes:
                counters.deleteManifests += 1
            }
            let manifest = try IcebergManifest.read(try fileIO.read(manifestFile.manifestPath), inheritingFrom: manifestFile)
            let positions = IcebergTableScan.partitionPositions(spec: spec, partitionType: manifest.partitionType)
            for entry in manifest.entries where entry.status != .deleted {
                let file = entry.dataFile
                let sequenceNumber = entry.sequenceNumber ?? 0
                switch file.content {
                case .data:
                    counters.dataFiles += 1
                    if let filter, !filter.mayMatch(partition: file.partition, positions: positions) {
                        counters.dataFilesPrunedByPartition += 1
                        continue
                    }
                    if let predicate, !file.mayMatch(predicate, schema: schema) {
                        counters.dataFilesPrunedByMetrics += 1
                        continue
                    }
                    candidates.append(IcebergScanTask(dataFile: file, dataSequenceNumber: sequenceNumber, partitionSpecID: specID, predicate: predicate))
                case .positionDeletes, .equalityDeletes:
                    counters.deleteFiles += 1
                    try deleteIndex.add(IcebergScanDeleteFile(file: file, dataSequenceNumber: sequenceNumber, partitionSpecID: specID), spec: spec)
                }
            }
        }

        var tasks: [IcebergScanTask] = []
        tasks.reserveCapacity(candidates.count)
        for var task in candidates {
            task.deletes = deleteIndex.deletes(for: task)
            if choosingRowGroups {
                let reader = try openParquet(task.dataFile)
                let (chosen, pruned) = rowGroups(of: reader, matching: predicate, schema: schema)
                task.rowGroups = chosen
                counters.rowGroups += reader.rowGroups.count
                counters.rowGroupsPruned += pruned
            }
            tasks.append(task)
        }
        return IcebergScanPlan(snapshotID: snapshot.snapshotID, fields: fields, columns: columns, predicate: predicate, tasks: tasks, counters: counters)
    }

    /// The snapshot to read: the one asked for, else `main`'s; nil for a table without one.
    func snapshot() throws(SluiceError) -> IcebergSnapshot? {
        guard let snapshotID else { return metadata.currentSnapshot }
        guard let snapshot = metadata.snapshot(id: snapshotID) else {
            throw SluiceError(.invalidParameterValue, "Iceberg table has no snapshot with id \(snapshotID)")
        }
        return snapshot
    }

    /// The row groups of `reader` that `predicate` does not rule out, and how many it does.
    func rowGroups(of reader: ParquetReader, matching predicate: IcebergScanPredicate?, schema: IcebergSchema) -> (chosen: [Int], pruned: Int) {
        guard let predicate else { return (Array(reader.rowGroups.indices), 0) }
        let statistics = IcebergParquetStatistics(schema: reader.schema)
        var chosen: [Int] = []
        for (index, rowGroup) in reader.rowGroups.enumerated() where statistics.mayMatch(predicate, rowGroup: rowGroup, schema: schema) {
            chosen.append(index)
        }
        return (chosen, reader.rowGroups.count - chosen.count)
    }

    /// For each field of `spec`, its position in a manifest's partition tuple: found by
    /// partition field id, or by position when the manifest does not name its fields.
    static func partitionPositions(spec: IcebergPartitionSpec, partitionType: [IcebergManifestPartitionField]) -> [Int?] {
        guard !partitionType.isEmpty else { return spec.fields.indices.map { $0 } }
        return spec.fields.map { field in partitionType.firstIndex { $0.fieldID == field.fieldID } }
    }
}
