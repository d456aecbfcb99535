/// The status of a manifest entry (`manifest_entry.status`, field 0).
package enum IcebergEntryStatus: Int32, Hashable, Sendable {
    case existing = 0
    case added = 1
    case deleted = 2
}

/// One entry of a manifest (`manifest_entry`, v2).
///
/// A writer leaves `snapshotID`, `sequenceNumber` and `fileSequenceNumber` nil for files added
/// by the snapshot being committed; they are inherited from the manifest list entry when read
/// (spec, "Sequence Number Inheritance"). Existing and deleted entries carry them explicitly.
package struct IcebergManifestEntry: Hashable, Sendable {
    package var status: IcebergEntryStatus
    package var snapshotID: Int64?
    /// The data sequence number.
    package var sequenceNumber: Int64?
    package var fileSequenceNumber: Int64?
    package var dataFile: IcebergDataFile

    package init(status: IcebergEntryStatus, snapshotID: Int64? = nil, sequenceNumber: Int64? = nil, fileSequenceNumber: Int64? = nil, dataFile: IcebergDataFile) {
        self.status = status
        self.snapshotID = snapshotID
        self.sequenceNumber = sequenceNumber
        self.fileSequenceNumber = fileSequenceNumber
        self.dataFile = dataFile
    }
}
