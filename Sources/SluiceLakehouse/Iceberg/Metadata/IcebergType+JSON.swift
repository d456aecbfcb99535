import SluiceCore

// Iceberg spec: Appendix C, "JSON serialization" of schemas and types.

extension IcebergType {
    /// A primitive as its name string; nested types as objects.
    package var json: JSONDocument {
        switch self {
        case .structure(let structure):
            return .object(["type": .string("struct"), "fields": .array(structure.fields.map(\.json))])
        case .list(let list):
            return .object([
                "type": .string("list"),
                "element-id": .int(Int64(list.elementID)),
                "element": list.element.json,
                "element-required": .bool(list.isElementRequired),
            ])
        case .map(let map):
            return .object([
                "type": .string("map"),
                "key-id": .int(Int64(map.keyID)),
                "key": map.key.json,
                "value-id": .int(Int64(map.valueID)),
                "value": map.value.json,
                "value-required": .bool(map.isValueRequired),
            ])
        default:
            return .string(primitiveName ?? "")
        }
    }

    package init(json: JSONDocument) throws(SluiceError) {
        if case .string(let name) = json {
            guard let type = IcebergType(primitiveName: name) else {
                throw IcebergJSONFields.malformed("unknown Iceberg type \"\(name)\"")
            }
            self = type
            return
        }
        let fields = try IcebergJSONFields(json, context: "type")
        switch try fields.string("type") {
        case "struct":
            self = .structure(IcebergStructType(fields: try IcebergNestedField.list(try fields.array("fields"))))
        case "list":
            self = .list(IcebergListType(
                elementID: try fields.int("element-id"),
                element: try IcebergType(json: fields.value("element") ?? .null),
                isElementRequired: try fields.bool("element-required")))
        case "map":
            self = .map(IcebergMapType(
                keyID: try fields.int("key-id"),
                key: try IcebergType(json: fields.value("key") ?? .null),
                valueID: try fields.int("value-id"),
                value: try IcebergType(json: fields.value("value") ?? .null),
                isValueRequired: try fields.bool("value-required")))
        case let other:
            throw IcebergJSONFields.malformed("unknown Iceberg type \"\(other)\"")
        }
    }
}

extension IcebergNestedField {
    package var json: JSONDocument {
        .object([
            "id": .int(Int64(id)),
            "name": .string(name),
            "required": .bool(isRequired),
            "type": type.json,
            "doc": doc.map { .string($0) },
        ])
    }

    package init(json: JSONDocument) throws(SluiceError) {
        let fields = try IcebergJSONFields(json, context: "field")
        self.init(
            id: try fields.int("id"),
            name: try fields.string("name"),
            isRequired: try fields.bool("required"),
            type: try IcebergType(json: fields.value("type") ?? .null),
            doc: try fields.optionalString("doc"))
    }

    static func list(_ elements: [JSONDocument]) throws(SluiceError) -> [IcebergNestedField] {
        var result: [IcebergNestedField] = []
        result.reserveCapacity(elements.count)
        for element in elements { result.append(try IcebergNestedField(json: element)) }
        return result
    }
}
