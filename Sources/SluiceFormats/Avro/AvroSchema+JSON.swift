import SluiceCore

// Avro specification, "Schema Declaration" and "Names": the JSON form of schemas.

extension AvroSchema {
    /// Parses a schema from its JSON text, resolving named types (full names, namespaces
    /// inherited from the enclosing named type) as the specification describes.
    ///
    /// A logical type on a type it does not apply to, or with invalid attributes, is kept as
    /// ``AvroLogicalType/other(_:)`` and not interpreted (the specification says to ignore it).
    ///
    /// - Throws: `invalidJSONText` for text that is not JSON; `invalidParameterValue` for JSON
    ///   that is not a valid schema (an unknown type name, a record without fields, a duplicate
    ///   name definition, a union inside a union).
    package init(json text: String) throws(SluiceError) {
        var parser = AvroSchemaParser()
        self = try parser.parse(try JSONDocument.parse(text), namespace: nil)
    }

    /// The schema as compact JSON text: each named type defined where it first occurs and
    /// referred to by its full name after that.
    package var jsonText: String {
        var defined: Set<String> = []
        return json(defined: &defined).text
    }

    /// The schema as a JSON value.
    package var json: JSONDocument {
        var defined: Set<String> = []
        return json(defined: &defined)
    }

    private func json(defined: inout Set<String>) -> JSONDocument {
        var members: [JSONDocument.Member] = []
        switch kind {
        case .null, .boolean, .int, .long, .float, .double, .bytes, .string:
            let name = primitiveName
            guard logicalType != nil || !properties.isEmpty else { return .string(name) }
            members.append(JSONDocument.Member("type", .string(name)))
        case .reference(let name):
            return .string(name)
        case .fixed(let name, let size):
            if defined.contains(name) { return .string(name) }
            defined.insert(name)
            members += [JSONDocument.Member("type", .string("fixed")), JSONDocument.Member("name", .string(name)), JSONDocument.Member("size", .int(Int64(size)))]
        case .enumeration(let name, let symbols):
            if defined.contains(name) { return .string(name) }
            defined.insert(name)
            members += [
                JSONDocument.Member("type", .string("enum")), JSONDocument.Member("name", .string(name)),
                JSONDocument.Member("symbols", .array(symbols.map { .string($0) })),
            ]
        case .array(let items):
            members += [JSONDocument.Member("type", .string("array")), JSONDocument.Member("items", items.json(defined: &defined))]
        case .map(let values):
            members += [JSONDocument.Member("type", .string("map")), JSONDocument.Member("values", values.json(defined: &defined))]
        case .record(let name, let fields):
            if defined.contains(name) { return .string(name) }
            defined.insert(name)
            var fieldValues: [JSONDocument] = []
            for field in fields {
                var fieldMembers = [JSONDocument.Member("name", .string(field.name)), JSONDocument.Member("type", field.type.json(defined: &defined))]
                if let defaultValue = field.defaultValue { fieldMembers.append(JSONDocument.Member("default", defaultValue)) }
                if let doc = field.doc { fieldMembers.append(JSONDocument.Member("doc", .string(doc))) }
                fieldMembers += field.properties
                fieldValues.append(.object(fieldMembers))
            }
            members += [JSONDocument.Member("type", .string("record")), JSONDocument.Member("name", .string(name)), JSONDocument.Member("fields", .array(fieldValues))]
        case .union(let branches):
            return .array(branches.map { $0.json(defined: &defined) })
        }
        if let logicalType {
            members.append(JSONDocument.Member("logicalType", .string(logicalType.name)))
            if case .decimal(let precision, let scale) = logicalType {
                members += [JSONDocument.Member("precision", .int(Int64(precision))), JSONDocument.Member("scale", .int(Int64(scale)))]
            }
        }
        members += properties
        return .object(members)
    }

    private var primitiveName: String {
        switch kind {
        case .null: "null"
        case .boolean: "boolean"
        case .int: "int"
        case .long: "long"
        case .float: "float"
        case .double: "double"
        case .bytes: "bytes"
        case .string: "string"
        case .fixed, .enumeration, .array, .map, .record, .union, .reference: ""
        }
    }
}

/// The state of one schema parse: the named types defined so far, and those whose definition
/// is still open (a reference to one of them is recursion).
private struct AvroSchemaParser {
    var defined: [String: AvroSchema] = [:]
    var open: Set<String> = []

    static let primitives: [String: AvroSchema.Kind] = [
        "null": .null, "boolean": .boolean, "int": .int, "long": .long, "float": .float, "double": .double, "bytes": .bytes, "string": .string,
    ]

    func invalid(_ problem: String) -> SluiceError {
        SluiceError(.invalidParameterValue, "invalid Avro schema: \(problem)")
    }

    mutating func parse(_ json: JSONDocument, namespace: String?) throws(SluiceError) -> AvroSchema {
        switch json {
        case .string(let name):
            if let primitive = AvroSchemaParser.primitives[name] { return AvroSchema(primitive) }
            return try resolve(name, namespace: namespace)
        case .array(let elements):
            var branches: [AvroSchema] = []
            for element in elements {
                let branch = try parse(element, namespace: namespace)
                if case .union = branch.kind { throw invalid("a union directly inside a union") }
                branches.append(branch)
            }
            return AvroSchema(.union(branches))
        case .object(let members):
            return try parseObject(members, namespace: namespace)
        case .null, .bool, .int, .double:
            throw invalid("a schema must be a string, an array or an object")
        }
    }

    mutating func resolve(_ name: String, namespace: String?) throws(SluiceError) -> AvroSchema {
        let candidates = name.contains(".") || namespace == nil ? [name] : [namespace.map { $0 + "." + name } ?? name, name]
        for candidate in candidates {
            if let schema = defined[candidate] { return schema }
            if open.contains(candidate) { return AvroSchema(.reference(candidate)) }
        }
        throw invalid("unknown type \"\(name)\"")
    }

    mutating func parseObject(_ members: [JSONDocument.Member], namespace: String?) throws(SluiceError) -> AvroSchema {
        guard let typeValue = members.first(where: { $0.key == "type" })?.value else { throw invalid("an object without \"type\"") }
        guard case .string(let type) = typeValue else {
            // {"type": {...}} or {"type": [...]}: the nested schema is the type.
            return try parse(typeValue, namespace: namespace)
        }
        var consumed: Set<String> = ["type", "logicalType"]
        var schema: AvroSchema
        switch type {
        case "record", "error":
            let (fullName, innerNamespace) = try name(of: members, namespace: namespace)
            consumed.formUnion(["name", "namespace", "fields"])
            guard case .array(let fieldValues)? = members.first(where: { $0.key == "fields" })?.value else {
                throw invalid("record \"\(fullName)\" has no \"fields\" array")
            }
            open.insert(fullName)
            var fields: [AvroField] = []
            var names: Set<String> = []
            for fieldValue in fieldValues {
                let field = try parseField(fieldValue, namespace: innerNamespace)
                guard names.insert(field.name).inserted else { throw invalid("record \"\(fullName)\" has two fields named \"\(field.name)\"") }
                fields.append(field)
            }
            open.remove(fullName)
            schema = AvroSchema(.record(name: fullName, fields: fields))
        case "enum":
            let (fullName, _) = try name(of: members, namespace: namespace)
            consumed.formUnion(["name", "namespace", "symbols"])
            guard case .array(let symbolValues)? = members.first(where: { $0.key == "symbols" })?.value else {
                throw invalid("enum \"\(fullName)\" has no \"symbols\" array")
            }
            var symbols: [String] = []
            for symbolValue in symbolValues {
                guard let symbol = symbolValue.stringValue, !symbols.contains(symbol) else { throw invalid("enum \"\(fullName)\" has an invalid or repeated symbol") }
                symbols.append(symbol)
            }
            schema = AvroSchema(.enumeration(name: fullName, symbols: symbols))
        case "fixed":
            let (fullName, _) = try name(of: members, namespace: namespace)
            consumed.formUnion(["name", "namespace", "size"])
            guard let size = members.first(where: { $0.key == "size" })?.value.integerValue, size >= 0, size <= Int64(Int32.max) else {
                throw invalid("fixed \"\(fullName)\" has no valid \"size\"")
            }
            schema = AvroSchema(.fixed(name: fullName, size: Int(size)))
        case "array":
            consumed.insert("items")
            guard let items = members.first(where: { $0.key == "items" })?.value else { throw invalid("an array without \"items\"") }
            schema = AvroSchema(.array(items: try parse(items, namespace: namespace)))
        case "map":
            consumed.insert("values")
            guard let values = members.first(where: { $0.key == "values" })?.value else { throw invalid("a map without \"values\"") }
            schema = AvroSchema(.map(values: try parse(values, namespace: namespace)))
        default:
            if let primitive = AvroSchemaParser.primitives[type] {
                schema = AvroSchema(primitive)
            } else {
                // A named type referred to through {"type": "Name"}.
                return try resolve(type, namespace: namespace)
            }
        }
        if let logicalName = members.first(where: { $0.key == "logicalType" })?.value.stringValue {
            let logicalType = AvroSchemaParser.logicalType(logicalName, on: schema.kind, members: members)
            schema.logicalType = logicalType
            if case .decimal = logicalType { consumed.formUnion(["precision", "scale"]) }
        }
        schema.properties = members.filter { !consumed.contains($0.key) }
        if let name = schema.name {
            // The specification forbids a second definition, but pyiceberg writes one for each
            // partition field of a repeated decimal or fixed type: the same definition again is
            // taken as a reference; a different one is an error.
            if let earlier = defined[name] {
                guard earlier == schema else { throw invalid("type \"\(name)\" is defined twice, differently") }
            }
            defined[name] = schema
        }
        return schema
    }

    mutating func parseField(_ json: JSONDocument, namespace: String?) throws(SluiceError) -> AvroField {
        guard case .object(let members) = json else { throw invalid("a record field must be an object") }
        guard let name = members.first(where: { $0.key == "name" })?.value.stringValue, !name.isEmpty else {
            throw invalid("a record field without a name")
        }
        guard let type = members.first(where: { $0.key == "type" })?.value else { throw invalid("field \"\(name)\" has no type") }
        let schema = try parse(type, namespace: namespace)
        let defaultValue = members.first { $0.key == "default" }?.value
        let doc = members.first { $0.key == "doc" }?.value.stringValue
        let properties = members.filter { !["name", "type", "default", "doc"].contains($0.key) }
        return AvroField(name, schema, defaultValue: defaultValue, doc: doc, properties: properties)
    }

    /// The full name of a named type and the namespace its nested definitions inherit.
    func name(of members: [JSONDocument.Member], namespace: String?) throws(SluiceError) -> (String, String?) {
        guard let name = members.first(where: { $0.key == "name" })?.value.stringValue, !name.isEmpty else {
            throw invalid("a named type without a name")
        }
        if let dot = name.lastIndex(of: ".") {
            return (name, String(name[..<dot]))
        }
        let ownNamespace = members.first { $0.key == "namespace" }?.value.stringValue ?? namespace
        guard let ownNamespace, !ownNamespace.isEmpty else { return (name, nil) }
        return (ownNamespace + "." + name, ownNamespace)
    }

    /// The logical type `name` means on `kind`, or ``AvroLogicalType/other(_:)`` where it does
    /// not apply.
    static func logicalType(_ name: String, on kind: AvroSchema.Kind, members: [JSONDocument.Member]) -> AvroLogicalType {
        switch (name, kind) {
        case ("date", .int): return .date
        case ("time-millis", .int): return .timeMillis
        case ("time-micros", .long): return .timeMicros
        case ("timestamp-millis", .long): return .timestampMillis
        case ("timestamp-micros", .long): return .timestampMicros
        case ("local-timestamp-millis", .long): return .localTimestampMillis
        case ("local-timestamp-micros", .long): return .localTimestampMicros
        case ("uuid", .string), ("uuid", .fixed(_, 16)): return .uuid
        case ("map", .array): return .map
        case ("decimal", .bytes), ("decimal", .fixed):
            guard let precision = members.first(where: { $0.key == "precision" })?.value.integerValue, precision > 0 else { return .other(name) }
            let scale = members.first { $0.key == "scale" }?.value.integerValue ?? 0
            guard scale >= 0, scale <= precision, precision <= 1000 else { return .other(name) }
            if case .fixed(_, let size) = kind {
                // A fixed of n bytes holds at most floor(log10(2^(8n-1) - 1)) digits.
                let maximumDigits = size == 0 ? 0 : Int((Double(8 * size - 1) * 0.30102999566398120).rounded(.down))
                guard precision <= maximumDigits else { return .other(name) }
            }
            return .decimal(precision: Int(precision), scale: Int(scale))
        default:
            return .other(name)
        }
    }
}
