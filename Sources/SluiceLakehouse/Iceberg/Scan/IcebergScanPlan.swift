import SluiceCore

/// What a scan of one snapshot reads: one task per data file that may hold matching rows,
/// with the delete files that apply to it, and counters that show how much pruning skipped.
///
/// A value: it can be printed for `EXPLAIN`, compared in tests, and its tasks handed to
/// other threads to be read with ``IcebergTableScan/read(_:fields:)``.
package struct IcebergScanPlan: Hashable, Sendable {
    /// The snapshot scanned; nil for a table without snapshots (then there are no tasks).
    package var snapshotID: Int64?
    /// The projected field ids, in output column order.
    package var fields: [Int]
    /// The output columns: the fields' current names and their Sluice types.
    package var columns: [StructField]
    package var predicate: IcebergScanPredicate?
    package var tasks: [IcebergScanTask]
    package var counters: IcebergScanCounters

    package init(snapshotID: Int64?, fields: [Int], columns: [StructField], predicate: IcebergScanPredicate?,
                 tasks: [IcebergScanTask], counters: IcebergScanCounters) {
        self.snapshotID = snapshotID
        self.fields = fields
        self.columns = columns
        self.predicate = predicate
        self.tasks = tasks
        self.counters = counters
    }
}

/// One data file to read, with the delete files that apply to it.
package struct IcebergScanTask: Hashable, Sendable {
    package var dataFile: IcebergDataFile
    /// The file's data sequence number (inherited from its manifest when it was added).
    package var dataSequenceNumber: Int64
    package var partitionSpecID: Int
    /// Position and equality delete files to apply while reading, in manifest order.
    package var deletes: [IcebergScanDeleteFile]
    /// The scan's predicate, kept so reading can skip row groups by their statistics.
    package var predicate: IcebergScanPredicate?
    /// The row groups to read when planning chose them from the file's footer; nil means the
    /// reader decides (all row groups that `predicate` does not rule out).
    package var rowGroups: [Int]?

    package init(dataFile: IcebergDataFile, dataSequenceNumber: Int64, partitionSpecID: Int, deletes: [IcebergScanDeleteFile] = [],
                 predicate: IcebergScanPredicate? = nil, rowGroups: [Int]? = nil) {
        self.dataFile = dataFile
        self.dataSequenceNumber = dataSequenceNumber
        self.partitionSpecID = partitionSpecID
        self.deletes = deletes
        self.predicate = predicate
        self.rowGroups = rowGroups
    }
}

/// A live delete file of the snapshot, as planning matched it to data files.
package struct IcebergScanDeleteFile: Hashable, Sendable {
    package var file: IcebergDataFile
    package var dataSequenceNumber: Int64
    package var partitionSpecID: Int

    package init(file: IcebergDataFile, dataSequenceNumber: Int64, partitionSpecID: Int) {
        self.file = file
        self.dataSequenceNumber = dataSequenceNumber
        self.partitionSpecID = partitionSpecID
    }
}

/// How much of the snapshot planning looked at and skipped.
package struct IcebergScanCounters: Hashable, Sendable, CustomStringConvertible {
    /// Data manifests in the manifest list, and those skipped by their partition summaries.
    package var dataManifests = 0
    package var dataManifestsPruned = 0
    /// Delete manifests read (they are never skipped).
    package var deleteManifests = 0
    /// Live data files in the manifests read (those of pruned manifests are not counted).
    package var dataFiles = 0
    /// Data files skipped by their partition values.
    package var dataFilesPrunedByPartition = 0
    /// Data files skipped by their column metrics (bounds, null counts).
    package var dataFilesPrunedByMetrics = 0
    /// Live delete files in the snapshot.
    package var deleteFiles = 0
    /// Row groups of the planned files, and those skipped by statistics; counted only when
    /// planning reads footers (`choosingRowGroups`), else at read time.
    package var rowGroups = 0
    package var rowGroupsPruned = 0

    package init() {}

    package var dataFilesPruned: Int { dataFilesPrunedByPartition + dataFilesPrunedByMetrics }

    package var description: String {
        "manifests: \(dataManifests - dataManifestsPruned) of \(dataManifests) (+\(deleteManifests) delete), "
            + "data files: \(dataFiles - dataFilesPruned) of \(dataFiles) (pruned \(dataFilesPrunedByPartition) by partition, "
            + "\(dataFilesPrunedByMetrics) by metrics), delete files: \(deleteFiles), "
            + "row groups: \(rowGroups - rowGroupsPruned) of \(rowGroups)"
    }
}

/// What reading tasks did, for `EXPLAIN ANALYZE` and tests; accumulates over calls.
package struct IcebergScanReadStatistics: Hashable, Sendable {
    /// Row groups of the files read, and those skipped by their statistics.
    package var rowGroups = 0
    package var rowGroupsPruned = 0
    /// Rows decoded, and rows removed by delete files.
    package var rowsRead = 0
    package var rowsDeleted = 0

    package init() {}
}
