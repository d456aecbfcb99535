import SluiceCore

/// An Avro schema (Avro specification, "Schema Declaration"): a type, its logical-type
/// annotation, and the other attributes its JSON carried.
///
/// Named types (records, enums, fixed) are written out in full wherever they occur; a second
/// occurrence of a name in the JSON text is replaced by the definition when parsed, and written
/// back as the bare name. Only a recursive reference (a record that contains itself) stays a
/// ``Kind/reference(_:)``, resolved through ``namedTypes`` when values are decoded.
///
/// Extra attributes are kept in ``properties`` (for Iceberg: `element-id` on arrays, `key-id`
/// and `value-id` on maps, `adjust-to-utc` on timestamps), so a schema read from a file is
/// written back with them.
package struct AvroSchema: Hashable, Sendable {
    package indirect enum Kind: Hashable, Sendable {
        case null
        case boolean
        case int
        case long
        case float
        case double
        case bytes
        case string
        case fixed(name: String, size: Int)
        case enumeration(name: String, symbols: [String])
        case array(items: AvroSchema)
        case map(values: AvroSchema)
        case record(name: String, fields: [AvroField])
        /// The branches in order; none of them is itself a union.
        case union([AvroSchema])
        /// The full name of a named type being defined around this point (recursion only).
        case reference(String)
    }

    package var kind: Kind
    package var logicalType: AvroLogicalType?
    /// Attributes other than those the specification defines for the type, in their order.
    package var properties: [JSONDocument.Member]

    package init(_ kind: Kind, logicalType: AvroLogicalType? = nil, properties: [JSONDocument.Member] = []) {
        self.kind = kind
        self.logicalType = logicalType
        self.properties = properties
    }

    package static let null = AvroSchema(.null)
    package static let boolean = AvroSchema(.boolean)
    package static let int = AvroSchema(.int)
    package static let long = AvroSchema(.long)
    package static let float = AvroSchema(.float)
    package static let double = AvroSchema(.double)
    package static let bytes = AvroSchema(.bytes)
    package static let string = AvroSchema(.string)

    /// `["null", schema]`: how Iceberg writes an optional field, array element or map value.
    package static func optional(_ schema: AvroSchema) -> AvroSchema {
        AvroSchema(.union([.null, schema]))
    }

    /// A record named `name` (a full name, namespace included when there is one).
    package static func record(_ name: String, _ fields: [AvroField], properties: [JSONDocument.Member] = []) -> AvroSchema {
        AvroSchema(.record(name: name, fields: fields), properties: properties)
    }

    /// An array of `items`, with Iceberg's `element-id` when given.
    package static func array(_ items: AvroSchema, elementID: Int? = nil) -> AvroSchema {
        AvroSchema(.array(items: items), properties: elementID.map { [JSONDocument.Member("element-id", .int(Int64($0)))] } ?? [])
    }

    /// A map of `values` (keys are strings), with Iceberg's `key-id` and `value-id` when given.
    package static func map(_ values: AvroSchema, keyID: Int? = nil, valueID: Int? = nil) -> AvroSchema {
        var properties: [JSONDocument.Member] = []
        if let keyID { properties.append(JSONDocument.Member("key-id", .int(Int64(keyID)))) }
        if let valueID { properties.append(JSONDocument.Member("value-id", .int(Int64(valueID)))) }
        return AvroSchema(.map(values: values), properties: properties)
    }

    /// Iceberg's representation of a map whose keys are not strings (spec, Appendix A): an array
    /// of two-field records `k<key id>_v<value id>` with fields `key` and `value`, annotated with
    /// the logical type `map`.
    package static func icebergMap(key: AvroSchema, keyID: Int, value: AvroSchema, valueID: Int) -> AvroSchema {
        let entry = AvroSchema.record("k\(keyID)_v\(valueID)", [
            AvroField("key", key, fieldID: keyID),
            AvroField("value", value, fieldID: valueID),
        ])
        return AvroSchema(.array(items: entry), logicalType: .map)
    }

    /// The value of attribute `key`, if the schema has it.
    package func property(_ key: String) -> JSONDocument? {
        properties.first { $0.key == key }?.value
    }

    /// Iceberg's `element-id` of an array.
    package var elementID: Int? { property("element-id")?.integerValue.map { Int($0) } }
    /// Iceberg's `key-id` of a map.
    package var keyID: Int? { property("key-id")?.integerValue.map { Int($0) } }
    /// Iceberg's `value-id` of a map.
    package var valueID: Int? { property("value-id")?.integerValue.map { Int($0) } }

    /// The fields, when this is a record.
    package var fields: [AvroField]? {
        if case .record(_, let fields) = kind { return fields }
        return nil
    }

    /// The full name of a named type, or nil for the others.
    package var name: String? {
        switch kind {
        case .fixed(let name, _), .enumeration(let name, _), .record(let name, _), .reference(let name): name
        default: nil
        }
    }

    /// The position of the record field called `name`, if this is a record that has one.
    package func fieldIndex(named name: String) -> Int? {
        fields?.firstIndex { $0.name == name }
    }

    /// The position of the record field whose Iceberg `field-id` is `id`.
    package func fieldIndex(withID id: Int) -> Int? {
        fields?.firstIndex { $0.fieldID == id }
    }

    /// The schema itself, or for a union of `null` and one other branch, that branch: the
    /// value type of an Iceberg optional field.
    package var nonNullBranch: AvroSchema {
        guard case .union(let branches) = kind else { return self }
        let others = branches.filter { $0.kind != .null }
        return others.count == 1 ? others[0] : self
    }

    /// Every named type defined in this schema, by full name: what resolves a
    /// ``Kind/reference(_:)``.
    package var namedTypes: [String: AvroSchema] {
        var names: [String: AvroSchema] = [:]
        collectNamedTypes(into: &names)
        return names
    }

    private func collectNamedTypes(into names: inout [String: AvroSchema]) {
        switch kind {
        case .fixed(let name, _), .enumeration(let name, _):
            names[name] = self
        case .record(let name, let fields):
            guard names[name] == nil else { return }
            names[name] = self
            for field in fields { field.type.collectNamedTypes(into: &names) }
        case .array(let items): items.collectNamedTypes(into: &names)
        case .map(let values): values.collectNamedTypes(into: &names)
        case .union(let branches): for branch in branches { branch.collectNamedTypes(into: &names) }
        case .null, .boolean, .int, .long, .float, .double, .bytes, .string, .reference: break
        }
    }
}

/// One field of a record schema.
package struct AvroField: Hashable, Sendable {
    package var name: String
    package var type: AvroSchema
    /// The field's default, as JSON; nil when it has none (distinct from a `null` default, which
    /// Iceberg writes for optional fields).
    package var defaultValue: JSONDocument?
    package var doc: String?
    /// Attributes other than `name`, `type`, `default` and `doc`, in their order; Iceberg's
    /// `field-id` is one.
    package var properties: [JSONDocument.Member]

    package init(_ name: String, _ type: AvroSchema, defaultValue: JSONDocument? = nil, doc: String? = nil, properties: [JSONDocument.Member] = []) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.doc = doc
        self.properties = properties
    }

    /// A field with Iceberg's `field-id`; an optional type (a union with `null` first) gets the
    /// `null` default Iceberg writes.
    package init(_ name: String, _ type: AvroSchema, fieldID: Int, doc: String? = nil) {
        var isOptional = false
        if case .union(let branches) = type.kind, branches.first?.kind == .null { isOptional = true }
        self.init(name, type, defaultValue: isOptional ? .null : nil, doc: doc, properties: [JSONDocument.Member("field-id", .int(Int64(fieldID)))])
    }

    /// Iceberg's `field-id` of this field, if it has one.
    package var fieldID: Int? {
        properties.first { $0.key == "field-id" }?.value.integerValue.map { Int($0) }
    }
}

/// The logical types of the Avro specification, plus Iceberg's `map` on arrays of key/value
/// records; any other annotation is kept by name.
package enum AvroLogicalType: Hashable, Sendable {
    /// On `int`: days since 1970-01-01.
    case date
    /// On `int`: milliseconds after midnight.
    case timeMillis
    /// On `long`: microseconds after midnight.
    case timeMicros
    /// On `long`: milliseconds since 1970-01-01 00:00:00 UTC.
    case timestampMillis
    /// On `long`: microseconds since 1970-01-01 00:00:00 UTC (Iceberg adds `adjust-to-utc`).
    case timestampMicros
    case localTimestampMillis
    case localTimestampMicros
    /// On `bytes` or `fixed`: a big-endian two's-complement unscaled value.
    case decimal(precision: Int, scale: Int)
    /// On `string` (the specification) or `fixed(16)` (Iceberg).
    case uuid
    /// Iceberg's annotation of an array of key/value records that represents a map.
    case map
    /// An annotation this code does not interpret, kept so the schema round-trips.
    case other(String)

    /// The `logicalType` attribute's value.
    package var name: String {
        switch self {
        case .date: "date"
        case .timeMillis: "time-millis"
        case .timeMicros: "time-micros"
        case .timestampMillis: "timestamp-millis"
        case .timestampMicros: "timestamp-micros"
        case .localTimestampMillis: "local-timestamp-millis"
        case .localTimestampMicros: "local-timestamp-micros"
        case .decimal: "decimal"
        case .uuid: "uuid"
        case .map: "map"
        case .other(let name): name
        }
    }
}
