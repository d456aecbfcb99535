/// What a manifest tracks: data files or delete files (the manifest metadata `content`, and
/// `manifest_file.content`, field 517).
package enum IcebergManifestContent: Int32, Hashable, Sendable {
    case data = 0
    case deletes = 1

    /// The manifest metadata value: `data` or `deletes`.
    package var metadataValue: String {
        switch self {
        case .data: "data"
        case .deletes: "deletes"
        }
    }
}

/// A partition field's summary over all files of a manifest (`field_summary`, fields 509–511,
/// 518), bounds in Iceberg's single-value serialization.
package struct IcebergFieldSummary: Hashable, Sendable {
    package var containsNull: Bool
    package var containsNaN: Bool?
    package var lowerBound: [UInt8]?
    package var upperBound: [UInt8]?

    package init(containsNull: Bool, containsNaN: Bool? = nil, lowerBound: [UInt8]? = nil, upperBound: [UInt8]? = nil) {
        self.containsNull = containsNull
        self.containsNaN = containsNaN
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }
}

/// One entry of a manifest list: a manifest and its summary (`manifest_file`, v2).
///
/// The file and row counts are required in v2 and optional in v1 manifest lists, where a
/// null count means "not known, assume non-zero"; so they are optional here, and the writer
/// refuses nil.
package struct IcebergManifestFile: Hashable, Sendable {
    package var manifestPath: String
    package var manifestLength: Int64
    package var partitionSpecID: Int32
    package var content: IcebergManifestContent
    package var sequenceNumber: Int64
    package var minSequenceNumber: Int64
    package var addedSnapshotID: Int64
    package var addedFilesCount: Int32?
    package var existingFilesCount: Int32?
    package var deletedFilesCount: Int32?
    package var addedRowsCount: Int64?
    package var existingRowsCount: Int64?
    package var deletedRowsCount: Int64?
    /// One summary per field of the manifest's partition spec, in order.
    package var partitions: [IcebergFieldSummary]?
    package var keyMetadata: [UInt8]?

    package init(
        manifestPath: String, manifestLength: Int64, partitionSpecID: Int32, content: IcebergManifestContent = .data,
        sequenceNumber: Int64, minSequenceNumber: Int64, addedSnapshotID: Int64, addedFilesCount: Int32?, existingFilesCount: Int32?,
        deletedFilesCount: Int32?, addedRowsCount: Int64?, existingRowsCount: Int64?, deletedRowsCount: Int64?,
        partitions: [IcebergFieldSummary]? = nil, keyMetadata: [UInt8]? = nil
    ) {
        self.manifestPath = manifestPath
        self.manifestLength = manifestLength
        self.partitionSpecID = partitionSpecID
        self.content = content
        self.sequenceNumber = sequenceNumber
        self.minSequenceNumber = minSequenceNumber
        self.addedSnapshotID = addedSnapshotID
        self.addedFilesCount = addedFilesCount
        self.existingFilesCount = existingFilesCount
        self.deletedFilesCount = deletedFilesCount
        self.addedRowsCount = addedRowsCount
        self.existingRowsCount = existingRowsCount
        self.deletedRowsCount = deletedRowsCount
        self.partitions = partitions
        self.keyMetadata = keyMetadata
    }
}
