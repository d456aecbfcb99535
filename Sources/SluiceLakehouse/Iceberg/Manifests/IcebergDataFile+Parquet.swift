import SluiceCore
import SluiceFormats

extension IcebergDataFile {
    /// The manifest's description of a Parquet data file we wrote at `location` (`size` bytes):
    /// metrics by field id from the writer's summary, bounds in Iceberg's single-value encoding
    /// for top-level columns (as Java writes them by default; nested leaves get counts only).
    package init(parquetFile location: String, size: Int, summary: ParquetFileSummary, partition: [AvroValue] = []) {
        var columnSizes: [Int32: Int64] = [:]
        var valueCounts: [Int32: Int64] = [:]
        var nullCounts: [Int32: Int64] = [:]
        var nanCounts: [Int32: Int64] = [:]
        var lower: [Int32: [UInt8]] = [:]
        var upper: [Int32: [UInt8]] = [:]
        for column in summary.columns {
            guard let id = column.fieldID else { continue }
            columnSizes[id] = column.compressedSize
            valueCounts[id] = column.valueCount
            nullCounts[id] = column.nullCount
            if let nan = column.nanCount { nanCounts[id] = nan }
            guard column.path.count == 1 else { continue }
            if let min = column.min, let bytes = IcebergSingleValue.encode(min, as: column.type) { lower[id] = bytes }
            if let max = column.max, let bytes = IcebergSingleValue.encode(max, as: column.type) { upper[id] = bytes }
        }
        self.init(
            content: .data, filePath: location, fileFormat: "PARQUET", partition: partition, recordCount: summary.rowCount,
            fileSizeInBytes: Int64(size), columnSizes: columnSizes, valueCounts: valueCounts, nullValueCounts: nullCounts,
            nanValueCounts: nanCounts, lowerBounds: lower, upperBounds: upper)
    }
}
