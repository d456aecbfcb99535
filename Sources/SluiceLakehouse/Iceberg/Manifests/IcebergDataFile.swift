import SluiceFormats

/// What a data file holds (`data_file.content`, field 134).
package enum IcebergFileContent: Int32, Hashable, Sendable {
    case data = 0
    case positionDeletes = 1
    case equalityDeletes = 2
}

/// A data or delete file as a manifest describes it (`data_file`, v2).
///
/// The metric maps are keyed by column field id. `partition` holds one value per field of the
/// manifest's partition type, in order (`.null` for a null partition value).
package struct IcebergDataFile: Hashable, Sendable {
    package var content: IcebergFileContent
    package var filePath: String
    /// `PARQUET`, `AVRO`, `ORC` or `PUFFIN` (Java writes upper case, readers take either).
    package var fileFormat: String
    package var partition: [AvroValue]
    package var recordCount: Int64
    package var fileSizeInBytes: Int64
    package var columnSizes: [Int32: Int64]?
    package var valueCounts: [Int32: Int64]?
    package var nullValueCounts: [Int32: Int64]?
    package var nanValueCounts: [Int32: Int64]?
    /// Lower bounds in Iceberg's single-value serialization (``IcebergSingleValue``).
    package var lowerBounds: [Int32: [UInt8]]?
    package var upperBounds: [Int32: [UInt8]]?
    package var keyMetadata: [UInt8]?
    package var splitOffsets: [Int64]?
    /// The field ids that define equality for an equality delete file.
    package var equalityIDs: [Int32]?
    package var sortOrderID: Int32?
    /// For a position delete file whose deletes all refer to one data file, that file.
    package var referencedDataFile: String?

    package init(
        content: IcebergFileContent = .data, filePath: String, fileFormat: String = "PARQUET", partition: [AvroValue] = [],
        recordCount: Int64, fileSizeInBytes: Int64, columnSizes: [Int32: Int64]? = nil, valueCounts: [Int32: Int64]? = nil,
        nullValueCounts: [Int32: Int64]? = nil, nanValueCounts: [Int32: Int64]? = nil, lowerBounds: [Int32: [UInt8]]? = nil,
        upperBounds: [Int32: [UInt8]]? = nil, keyMetadata: [UInt8]? = nil, splitOffsets: [Int64]? = nil, equalityIDs: [Int32]? = nil,
        sortOrderID: Int32? = nil, referencedDataFile: String? = nil
    ) {
        self.content = content
        self.filePath = filePath
        self.fileFormat = fileFormat
        self.partition = partition
        self.recordCount = recordCount
        self.fileSizeInBytes = fileSizeInBytes
        self.columnSizes = columnSizes
        self.valueCounts = valueCounts
        self.nullValueCounts = nullValueCounts
        self.nanValueCounts = nanValueCounts
        self.lowerBounds = lowerBounds
        self.upperBounds = upperBounds
        self.keyMetadata = keyMetadata
        self.splitOffsets = splitOffsets
        self.equalityIDs = equalityIDs
        self.sortOrderID = sortOrderID
        self.referencedDataFile = referencedDataFile
    }
}
