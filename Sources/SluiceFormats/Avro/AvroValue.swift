/// One Avro datum as a tree, for control-plane files (Iceberg manifests, manifest lists) where
/// a handful of records per file makes a tree the simple choice; the data path never holds
/// these per row.
///
/// Logical types are not applied: a `date` is its `.int`, a decimal its `.bytes` or `.fixed`.
/// Unions carry no branch index: decoding yields the chosen branch's value, and encoding picks
/// the first branch that takes the value (see ``AvroSchema/branchIndex(for:)``).
package indirect enum AvroValue: Hashable, Sendable {
    case null
    case boolean(Bool)
    case int(Int32)
    case long(Int64)
    case float(Float)
    case double(Double)
    case bytes([UInt8])
    case string(String)
    case fixed([UInt8])
    /// An enum's symbol.
    case enumeration(String)
    case array([AvroValue])
    case map([String: AvroValue])
    /// The field values in the order of the record schema's fields.
    case record([AvroValue])

    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value of the record field called `name`, when this is a record of `schema`.
    package func field(named name: String, in schema: AvroSchema) -> AvroValue? {
        guard case .record(let values) = self, let index = schema.fieldIndex(named: name), index < values.count else { return nil }
        return values[index]
    }

    /// The value of the record field with Iceberg `field-id` `id`, when this is a record of `schema`.
    package func field(withID id: Int, in schema: AvroSchema) -> AvroValue? {
        guard case .record(let values) = self, let index = schema.fieldIndex(withID: id), index < values.count else { return nil }
        return values[index]
    }

    /// An `int` or a `long`, as `Int64` (Iceberg readers take either where ids are written).
    package var integerValue: Int64? {
        switch self {
        case .int(let value): Int64(value)
        case .long(let value): value
        default: nil
        }
    }

    package var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The bytes of a `bytes` or `fixed` value.
    package var bytesValue: [UInt8]? {
        switch self {
        case .bytes(let bytes), .fixed(let bytes): bytes
        default: nil
        }
    }

    package var booleanValue: Bool? {
        if case .boolean(let flag) = self { return flag }
        return nil
    }

    package var arrayValue: [AvroValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    package var recordValue: [AvroValue]? {
        if case .record(let values) = self { return values }
        return nil
    }
}

extension AvroSchema {
    /// The union branch that encodes `value`: `null` for `.null`, else the first branch of the
    /// value's kind (`int` for `.int`, a record with as many fields for `.record`, a fixed of the
    /// same size for `.fixed`, an enum with the symbol for `.enumeration`). Nil if none does, or
    /// if this is not a union.
    package func branchIndex(for value: AvroValue) -> Int? {
        guard case .union(let branches) = kind else { return nil }
        return branches.firstIndex { $0.accepts(value) }
    }

    /// Whether `value` is of this (non-union) schema's kind, without looking inside containers.
    func accepts(_ value: AvroValue) -> Bool {
        switch (kind, value) {
        case (.null, .null), (.boolean, .boolean), (.int, .int), (.long, .long), (.float, .float), (.double, .double),
             (.bytes, .bytes), (.string, .string), (.array, .array), (.map, .map):
            return true
        case (.fixed(_, let size), .fixed(let bytes)):
            return bytes.count == size
        case (.enumeration(_, let symbols), .enumeration(let symbol)):
            return symbols.contains(symbol)
        case (.record(_, let fields), .record(let values)):
            return fields.count == values.count
        case (.reference, .record):
            // A recursive record; the encoder checks the fields against the definition.
            return true
        default:
            return false
        }
    }
}
