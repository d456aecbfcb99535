import SluiceCore
import SluiceFormats

// Iceberg spec: manifests, the `data_file` struct (v2). Field ids as in the spec's table.

extension IcebergDataFile {
    /// The `r2` record of this file, positional per ``IcebergManifestSchemas/dataFile(partitionType:)``.
    func avroValue() -> AvroValue {
        func countMap(_ map: [Int32: Int64]?) -> AvroValue {
            guard let map else { return .null }
            return .array(map.keys.sorted().map { .record([.int($0), .long(map[$0] ?? 0)]) })
        }
        func boundMap(_ map: [Int32: [UInt8]]?) -> AvroValue {
            guard let map else { return .null }
            return .array(map.keys.sorted().map { .record([.int($0), .bytes(map[$0] ?? [])]) })
        }
        return .record([
            .int(content.rawValue),
            .string(filePath),
            .string(fileFormat),
            .record(partition),
            .long(recordCount),
            .long(fileSizeInBytes),
            countMap(columnSizes),
            countMap(valueCounts),
            countMap(nullValueCounts),
            countMap(nanValueCounts),
            boundMap(lowerBounds),
            boundMap(upperBounds),
            keyMetadata.map { .bytes($0) } ?? .null,
            splitOffsets.map { .array($0.map { .long($0) }) } ?? .null,
            equalityIDs.map { .array($0.map { .int($0) }) } ?? .null,
            sortOrderID.map { .int($0) } ?? .null,
            referencedDataFile.map { .string($0) } ?? .null,
        ])
    }

    /// The file a `data_file` record of any Iceberg writer describes, its fields found by id.
    init(_ record: IcebergAvroRecord) throws(SluiceError) {
        let contentCode = try record.optionalInt(134, "content") ?? 0
        guard let content = IcebergFileContent(rawValue: contentCode) else {
            throw IcebergAvroRecord.invalid("data_file.content \(contentCode) is not 0, 1 or 2")
        }
        var partition: [AvroValue] = []
        if let partitionValue = record.value(102), let partitionSchema = record.fieldSchema(102) {
            partition = try IcebergAvroRecord(partitionValue, schema: partitionSchema, name: "data_file.partition").values
        }
        let counts: (AvroValue) -> Int64? = { $0.integerValue }
        let bytes: (AvroValue) -> [UInt8]? = { $0.bytesValue }
        var equalityIDs: [Int32]?
        if let ids = try record.optionalLongs(135, "equality_ids") {
            var converted: [Int32] = []
            for id in ids {
                guard let int = Int32(exactly: id) else { throw IcebergAvroRecord.invalid("data_file.equality_ids holds \(id)") }
                converted.append(int)
            }
            equalityIDs = converted
        }
        self.init(
            content: content,
            filePath: try record.string(100, "file_path"),
            fileFormat: try record.string(101, "file_format"),
            partition: partition,
            recordCount: try record.long(103, "record_count"),
            fileSizeInBytes: try record.long(104, "file_size_in_bytes"),
            columnSizes: try record.optionalIDMap(108, "column_sizes", counts),
            valueCounts: try record.optionalIDMap(109, "value_counts", counts),
            nullValueCounts: try record.optionalIDMap(110, "null_value_counts", counts),
            nanValueCounts: try record.optionalIDMap(137, "nan_value_counts", counts),
            lowerBounds: try record.optionalIDMap(125, "lower_bounds", bytes),
            upperBounds: try record.optionalIDMap(128, "upper_bounds", bytes),
            keyMetadata: try record.optionalBytes(131, "key_metadata"),
            splitOffsets: try record.optionalLongs(132, "split_offsets"),
            equalityIDs: equalityIDs,
            sortOrderID: try record.optionalInt(140, "sort_order_id"),
            referencedDataFile: try record.optionalString(143, "referenced_data_file"))
    }
}
