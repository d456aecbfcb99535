import SluiceCore
import SluiceFormats
import Testing
@testable import SluiceLakehouse

/// The Avro schemas of manifests and manifest lists against the tables of the Iceberg spec
/// (format/spec.md, "Manifests" v2, "Manifest Lists" v2), transcribed by hand.
@Suite struct IcebergManifestSchemaTests {
    /// (name, field id, is optional, Avro type without the null branch) of `manifest_entry`.
    static let entryFields: [(String, Int, Bool, String)] = [
        ("status", 0, false, #""int""#), ("snapshot_id", 1, true, #""long""#), ("sequence_number", 3, true, #""long""#),
        ("file_sequence_number", 4, true, #""long""#),
    ]

    static let dataFileFields: [(String, Int, Bool)] = [
        ("content", 134, false), ("file_path", 100, false), ("file_format", 101, false), ("partition", 102, false),
        ("record_count", 103, false), ("file_size_in_bytes", 104, false), ("column_sizes", 108, true), ("value_counts", 109, true),
        ("null_value_counts", 110, true), ("nan_value_counts", 137, true), ("lower_bounds", 125, true), ("upper_bounds", 128, true),
        ("key_metadata", 131, true), ("split_offsets", 132, true), ("equality_ids", 135, true), ("sort_order_id", 140, true),
        ("referenced_data_file", 143, true),
    ]

    /// The key and value ids of the metric maps: map<117: int, 118: long> and so on.
    static let mapIDs: [String: (Int, Int, String)] = [
        "column_sizes": (117, 118, "long"), "value_counts": (119, 120, "long"), "null_value_counts": (121, 122, "long"),
        "nan_value_counts": (138, 139, "long"), "lower_bounds": (126, 127, "bytes"), "upper_bounds": (129, 130, "bytes"),
    ]

    static let manifestFileFields: [(String, Int, Bool, String)] = [
        ("manifest_path", 500, false, "string"), ("manifest_length", 501, false, "long"), ("partition_spec_id", 502, false, "int"),
        ("content", 517, false, "int"), ("sequence_number", 515, false, "long"), ("min_sequence_number", 516, false, "long"),
        ("added_snapshot_id", 503, false, "long"), ("added_files_count", 504, false, "int"), ("existing_files_count", 505, false, "int"),
        ("deleted_files_count", 506, false, "int"), ("added_rows_count", 512, false, "long"), ("existing_rows_count", 513, false, "long"),
        ("deleted_rows_count", 514, false, "long"), ("partitions", 507, true, "array"), ("key_metadata", 519, true, "bytes"),
    ]

    private func isOptional(_ schema: AvroSchema) -> Bool {
        if case .union(let branches) = schema.kind { return branches.count == 2 && branches[0].kind == .null }
        return false
    }

    @Test func manifestEntryHasTheSpecFieldIDs() throws {
        let partitionType = [IcebergManifestPartitionField(name: "region", fieldID: 1000, type: .optional(.string))]
        let entry = IcebergManifestSchemas.manifestEntry(partitionType: partitionType)
        #expect(entry.name == "manifest_entry")
        let fields = try #require(entry.fields)
        #expect(fields.count == 5)
        for (name, id, optional, type) in Self.entryFields {
            let field = try #require(fields.first { $0.name == name })
            #expect(field.fieldID == id, "\(name)")
            #expect(isOptional(field.type) == optional, "\(name)")
            #expect(field.type.nonNullBranch.jsonText == type, "\(name)")
            if optional { #expect(field.defaultValue == .null, "\(name)") }
        }
        let dataFileField = try #require(fields.last)
        #expect(dataFileField.name == "data_file" && dataFileField.fieldID == 2)
        let dataFile = dataFileField.type
        #expect(dataFile.name == "r2")
        let dataFields = try #require(dataFile.fields)
        #expect(dataFields.map(\.name) == Self.dataFileFields.map(\.0))
        for (field, (name, id, optional)) in zip(dataFields, Self.dataFileFields) {
            #expect(field.fieldID == id, "\(name)")
            #expect(isOptional(field.type) == optional, "\(name)")
            if let (keyID, valueID, valueType) = Self.mapIDs[name] {
                let map = field.type.nonNullBranch
                #expect(map.logicalType == .map, "\(name)")
                guard case .array(let pair) = map.kind else { Issue.record("\(name) is not an array"); continue }
                #expect(pair.name == "k\(keyID)_v\(valueID)")
                #expect(pair.fields?.map(\.name) == ["key", "value"])
                #expect(pair.fields?.map(\.fieldID) == [keyID, valueID])
                #expect(pair.fields?.map(\.type.jsonText) == [#""int""#, "\"\(valueType)\""])
            }
        }
        #expect(dataFields[13].type.nonNullBranch.elementID == 133)
        #expect(dataFields[13].type.nonNullBranch.jsonText == #"{"type":"array","items":"long","element-id":133}"#)
        #expect(dataFields[14].type.nonNullBranch.elementID == 136)
        #expect(dataFields[14].type.nonNullBranch.jsonText == #"{"type":"array","items":"int","element-id":136}"#)
        #expect(dataFields[3].type.jsonText == #"{"type":"record","name":"r102","fields":[{"name":"region","type":["null","string"],"default":null,"field-id":1000}]}"#)
        // The schema survives its own JSON form.
        #expect(try AvroSchema(json: entry.jsonText) == entry)
    }

    @Test func manifestFileHasTheSpecFieldIDs() throws {
        let schema = IcebergManifestSchemas.manifestFile
        #expect(schema.name == "manifest_file")
        let fields = try #require(schema.fields)
        #expect(fields.map(\.name) == Self.manifestFileFields.map(\.0))
        for (field, (name, id, optional, type)) in zip(fields, Self.manifestFileFields) {
            #expect(field.fieldID == id, "\(name)")
            #expect(isOptional(field.type) == optional, "\(name)")
            let base = field.type.nonNullBranch
            if case .array = base.kind { #expect(type == "array") } else { #expect(base.jsonText == "\"\(type)\"", "\(name)") }
        }
        let partitions = fields[13].type.nonNullBranch
        #expect(partitions.elementID == 508)
        guard case .array(let summary) = partitions.kind else { Issue.record("partitions is not an array"); return }
        #expect(summary.name == "r508")
        #expect(summary.fields?.map(\.name) == ["contains_null", "contains_nan", "lower_bound", "upper_bound"])
        #expect(summary.fields?.map(\.fieldID) == [509, 518, 510, 511])
        #expect(summary.fields?.map { isOptional($0.type) } == [false, true, true, true])
    }
}
