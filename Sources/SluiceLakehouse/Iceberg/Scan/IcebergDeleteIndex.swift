import SluiceCore
import SluiceFormats

/// The live delete files of a snapshot, indexed by partition, so each data file finds the
/// ones that apply to it (Iceberg spec: "Scan Planning"):
///
/// - a position delete file applies when the data file's data sequence number is less than or
///   equal to the delete file's, their partitions (spec and values) are equal, and, when the
///   delete file names a `referenced_data_file` or bounds its `file_path` column, the data
///   file's path is within them;
/// - an equality delete file applies when the data file's data sequence number is strictly
///   less than the delete file's, and their partitions are equal or the delete file's spec is
///   unpartitioned (a global delete).
struct IcebergDeleteIndex {
    /// The field id of a position delete file's `file_path` column (spec: "Position Delete Files").
    static let filePathFieldID = 2_147_483_546
    /// The field id of a position delete file's `pos` column.
    static let positionFieldID = 2_147_483_545

    private struct PartitionKey: Hashable {
        var specID: Int
        var values: [AvroValue]
    }

    private var positionDeletes: [PartitionKey: [IcebergScanDeleteFile]] = [:]
    private var equalityDeletes: [PartitionKey: [IcebergScanDeleteFile]] = [:]
    private var globalEqualityDeletes: [IcebergScanDeleteFile] = []

    /// Adds a live delete file listed under `spec`.
    /// - Throws: `0A000` for deletion vectors (Puffin) and equality deletes without field ids.
    mutating func add(_ delete: IcebergScanDeleteFile, spec: IcebergPartitionSpec) throws(SluiceError) {
        let file = delete.file
        guard file.fileFormat.uppercased() != "PUFFIN" else {
            throw SluiceError(.featureNotSupported, "Iceberg deletion vectors are not supported", detail: "Delete file \"\(file.filePath)\" is a Puffin file.")
        }
        let key = PartitionKey(specID: delete.partitionSpecID, values: file.partition)
        switch file.content {
        case .positionDeletes:
            positionDeletes[key, default: []].append(delete)
        case .equalityDeletes:
            guard let ids = file.equalityIDs, !ids.isEmpty else {
                throw SluiceError(.dataCorrupted, "Iceberg equality delete file \"\(file.filePath)\" has no equality field ids")
            }
            if spec.isUnpartitioned {
                globalEqualityDeletes.append(delete)
            } else {
                equalityDeletes[key, default: []].append(delete)
            }
        case .data:
            break
        }
    }

    /// The delete files that apply to `task`'s data file.
    func deletes(for task: IcebergScanTask) -> [IcebergScanDeleteFile] {
        let key = PartitionKey(specID: task.partitionSpecID, values: task.dataFile.partition)
        let path = task.dataFile.filePath
        var result: [IcebergScanDeleteFile] = []
        for delete in positionDeletes[key] ?? [] where delete.dataSequenceNumber >= task.dataSequenceNumber {
            if let referenced = delete.file.referencedDataFile, referenced != path { continue }
            if !IcebergDeleteIndex.pathMayBeIn(delete.file, path) { continue }
            result.append(delete)
        }
        for delete in (equalityDeletes[key] ?? []) + globalEqualityDeletes where delete.dataSequenceNumber > task.dataSequenceNumber {
            result.append(delete)
        }
        return result
    }

    /// Whether the delete file's `file_path` bounds admit `path` (unknown bounds admit it).
    private static func pathMayBeIn(_ file: IcebergDataFile, _ path: String) -> Bool {
        let key = Int32(filePathFieldID)
        let lower = file.lowerBounds?[key].flatMap { IcebergSingleValue.decode($0, as: .varchar) }
        let upper = file.upperBounds?[key].flatMap { IcebergSingleValue.decode($0, as: .varchar) }
        let evidence = IcebergColumnEvidence(lower: lower, upper: upper, hasNaN: false)
        return evidence.mayMatch(.compare(fieldID: filePathFieldID, .equal, .string(path)))
    }
}
