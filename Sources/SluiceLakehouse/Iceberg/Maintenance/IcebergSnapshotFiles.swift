import SluiceCore
import SluiceFormats

/// The partition a file belongs to for delete matching: its spec id and partition tuple
/// (Iceberg spec, "Scan Planning": "both spec and partition values").
package struct IcebergPartitionKey: Hashable, Sendable {
    package var specID: Int32
    package var values: [AvroValue]

    package init(specID: Int32, values: [AvroValue]) {
        self.specID = specID
        self.values = values
    }
}

/// A live data or delete file of a snapshot, as its manifest lists it, with the sequence
/// numbers and snapshot id inherited from the manifest list already filled in.
package struct IcebergLiveFile: Hashable, Sendable {
    package var entry: IcebergManifestEntry
    /// The manifest that lists the file.
    package var manifestPath: String
    package var partitionSpecID: Int32

    package var file: IcebergDataFile { entry.dataFile }
    package var path: String { entry.dataFile.filePath }
    /// The data sequence number (0 when a v1 manifest left it unknown).
    package var dataSequenceNumber: Int64 { entry.sequenceNumber ?? 0 }
    package var partition: IcebergPartitionKey { IcebergPartitionKey(specID: partitionSpecID, values: entry.dataFile.partition) }
}

/// Every manifest of one snapshot, read, and the live files they list.
package struct IcebergSnapshotFiles: Sendable {
    package var manifestListLocation: String
    package var manifests: [IcebergManifestFile]
    /// The manifests' contents, keyed by manifest path.
    package var contents: [String: IcebergManifest]
    /// Live (added or existing) data files, in manifest order.
    package var dataFiles: [IcebergLiveFile]
    /// Live position and equality delete files, in manifest order.
    package var deleteFiles: [IcebergLiveFile]

    /// Reads `snapshot`'s manifest list and every manifest in it.
    ///
    /// - Throws: what ``FileIO`` throws for a missing file, `XX001` for a damaged one.
    package static func read(_ snapshot: IcebergSnapshot, fileIO: any FileIO) throws(SluiceError) -> IcebergSnapshotFiles {
        let list = try IcebergManifestList.read(try fileIO.read(snapshot.manifestList))
        var contents: [String: IcebergManifest] = [:]
        var dataFiles: [IcebergLiveFile] = []
        var deleteFiles: [IcebergLiveFile] = []
        for manifestFile in list.manifests {
            let manifest = try IcebergManifest.read(try fileIO.read(manifestFile.manifestPath), inheritingFrom: manifestFile)
            contents[manifestFile.manifestPath] = manifest
            for entry in manifest.entries where entry.status != .deleted {
                let live = IcebergLiveFile(entry: entry, manifestPath: manifestFile.manifestPath, partitionSpecID: manifestFile.partitionSpecID)
                if entry.dataFile.content == .data {
                    dataFiles.append(live)
                } else {
                    deleteFiles.append(live)
                }
            }
        }
        return IcebergSnapshotFiles(
            manifestListLocation: snapshot.manifestList, manifests: list.manifests, contents: contents,
            dataFiles: dataFiles, deleteFiles: deleteFiles)
    }
}

/// Which delete files apply to which data files (Iceberg spec, "Scan Planning"):
/// - a position delete file applies to a data file of the same partition (spec and values)
///   whose data sequence number is less than or equal to the delete's, and, when the delete
///   names a `referenced_data_file`, only to that file;
/// - an equality delete file applies to a data file whose data sequence number is strictly
///   less than the delete's, of the same partition, or of any partition when the delete's
///   spec is unpartitioned (a global delete).
package struct IcebergDeleteMatcher: Sendable {
    private var byPartition: [IcebergPartitionKey: [IcebergLiveFile]] = [:]
    private var global: [IcebergLiveFile] = []

    /// - Parameter unpartitionedSpecIDs: the ids of specs with no (non-void) fields.
    package init(deleteFiles: [IcebergLiveFile], unpartitionedSpecIDs: Set<Int32>) {
        for delete in deleteFiles {
            if delete.file.content == .equalityDeletes, unpartitionedSpecIDs.contains(delete.partitionSpecID) {
                global.append(delete)
            } else {
                byPartition[delete.partition, default: []].append(delete)
            }
        }
    }

    /// The delete files that apply to `data`.
    package func deletes(applyingTo data: IcebergLiveFile) -> [IcebergLiveFile] {
        var result: [IcebergLiveFile] = []
        for delete in byPartition[data.partition] ?? [] where Self.applies(delete, to: data) { result.append(delete) }
        for delete in global where Self.applies(delete, to: data) { result.append(delete) }
        return result
    }

    /// The sequence-number and referenced-file rules; the partition rule is the caller's.
    static func applies(_ delete: IcebergLiveFile, to data: IcebergLiveFile) -> Bool {
        switch delete.file.content {
        case .positionDeletes:
            if let referenced = delete.file.referencedDataFile, referenced != data.path { return false }
            return data.dataSequenceNumber <= delete.dataSequenceNumber
        case .equalityDeletes:
            return data.dataSequenceNumber < delete.dataSequenceNumber
        case .data:
            return false
        }
    }
}

extension IcebergTableMetadata {
    /// The ids of the table's specs that do not partition (no fields, or only `void` ones).
    package var unpartitionedSpecIDs: Set<Int32> {
        Set(partitionSpecs.filter(\.isUnpartitioned).map { Int32(truncatingIfNeeded: $0.specID) })
    }
}
