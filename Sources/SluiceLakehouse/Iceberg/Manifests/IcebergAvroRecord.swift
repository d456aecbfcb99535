import SluiceCore
import SluiceFormats

/// A record read from an Iceberg metadata file, its fields found by Iceberg field id: files
/// written by other implementations may order fields differently, omit optional ones, or
/// (v1 files) lack v2 fields, and Iceberg readers match fields by id, not position.
struct IcebergAvroRecord {
    let schema: AvroSchema
    let values: [AvroValue]
    /// Field id to position in `values`.
    let positions: [Int: Int]
    /// What the record is, for error messages (`data_file`).
    let name: String

    /// The record `value` of `schema` (a union with null is looked through).
    init(_ value: AvroValue, schema: AvroSchema, name: String) throws(SluiceError) {
        let recordSchema = schema.nonNullBranch
        guard let fields = recordSchema.fields, case .record(let values) = value, values.count == fields.count else {
            throw IcebergAvroRecord.invalid("\(name) is not a record")
        }
        var positions: [Int: Int] = [:]
        for (index, field) in fields.enumerated() {
            if let id = field.fieldID { positions[id] = index }
        }
        self.schema = recordSchema
        self.values = values
        self.positions = positions
        self.name = name
    }

    static func invalid(_ problem: String) -> SluiceError {
        SluiceError(.dataCorrupted, "invalid Iceberg manifest: \(problem)")
    }

    /// The value of field `id`, nil when the field is absent or null.
    func value(_ id: Int) -> AvroValue? {
        guard let index = positions[id], index < values.count, !values[index].isNull else { return nil }
        return values[index]
    }

    /// The schema of field `id` (a union with null looked through).
    func fieldSchema(_ id: Int) -> AvroSchema? {
        guard let index = positions[id], let fields = schema.fields, index < fields.count else { return nil }
        return fields[index].type.nonNullBranch
    }

    func optionalLong(_ id: Int, _ field: String) throws(SluiceError) -> Int64? {
        guard let value = value(id) else { return nil }
        guard let integer = value.integerValue else { throw IcebergAvroRecord.invalid("\(name).\(field) is not an integer") }
        return integer
    }

    func optionalInt(_ id: Int, _ field: String) throws(SluiceError) -> Int32? {
        guard let integer = try optionalLong(id, field) else { return nil }
        guard let int = Int32(exactly: integer) else { throw IcebergAvroRecord.invalid("\(name).\(field) \(integer) is out of range for an int") }
        return int
    }

    func long(_ id: Int, _ field: String) throws(SluiceError) -> Int64 {
        guard let integer = try optionalLong(id, field) else { throw IcebergAvroRecord.invalid("\(name).\(field) is missing") }
        return integer
    }

    func int(_ id: Int, _ field: String) throws(SluiceError) -> Int32 {
        guard let integer = try optionalInt(id, field) else { throw IcebergAvroRecord.invalid("\(name).\(field) is missing") }
        return integer
    }

    func optionalString(_ id: Int, _ field: String) throws(SluiceError) -> String? {
        guard let value = value(id) else { return nil }
        guard let text = value.stringValue else { throw IcebergAvroRecord.invalid("\(name).\(field) is not a string") }
        return text
    }

    func string(_ id: Int, _ field: String) throws(SluiceError) -> String {
        guard let text = try optionalString(id, field) else { throw IcebergAvroRecord.invalid("\(name).\(field) is missing") }
        return text
    }

    func optionalBytes(_ id: Int, _ field: String) throws(SluiceError) -> [UInt8]? {
        guard let value = value(id) else { return nil }
        guard let bytes = value.bytesValue else { throw IcebergAvroRecord.invalid("\(name).\(field) is not binary") }
        return bytes
    }

    func optionalBoolean(_ id: Int, _ field: String) throws(SluiceError) -> Bool? {
        guard let value = value(id) else { return nil }
        guard let flag = value.booleanValue else { throw IcebergAvroRecord.invalid("\(name).\(field) is not a boolean") }
        return flag
    }

    /// A list of integers (`split_offsets`, `equality_ids`; pyiceberg writes the latter as longs).
    func optionalLongs(_ id: Int, _ field: String) throws(SluiceError) -> [Int64]? {
        guard let value = value(id) else { return nil }
        guard let elements = value.arrayValue else { throw IcebergAvroRecord.invalid("\(name).\(field) is not a list") }
        var integers: [Int64] = []
        integers.reserveCapacity(elements.count)
        for element in elements {
            guard let integer = element.integerValue else { throw IcebergAvroRecord.invalid("\(name).\(field) holds a non-integer") }
            integers.append(integer)
        }
        return integers
    }

    /// A map from field id, written as an array of key/value records (or, by some writers, as
    /// an Avro map with the ids as string keys).
    func optionalIDMap<Mapped>(_ id: Int, _ field: String, _ convert: (AvroValue) -> Mapped?) throws(SluiceError) -> [Int32: Mapped]? {
        guard let value = value(id) else { return nil }
        var result: [Int32: Mapped] = [:]
        switch value {
        case .array(let entries):
            for entry in entries {
                guard case .record(let pair) = entry, pair.count == 2, let key = pair[0].integerValue, let id = Int32(exactly: key),
                      let mapped = convert(pair[1]) else {
                    throw IcebergAvroRecord.invalid("\(name).\(field) holds an invalid entry")
                }
                result[id] = mapped
            }
        case .map(let entries):
            for (key, entry) in entries {
                guard let id = Int32(key), let mapped = convert(entry) else { throw IcebergAvroRecord.invalid("\(name).\(field) holds an invalid entry") }
                result[id] = mapped
            }
        default:
            throw IcebergAvroRecord.invalid("\(name).\(field) is not a map")
        }
        return result
    }
}
