import SluiceCore

/// A table schema: a struct of top-level fields with an id (Iceberg spec: "Schemas").
///
/// `identifierFieldIDs` name the columns that identify a row (the sink's primary key), which
/// engines use for equality deletes and upserts.
package struct IcebergSchema: Hashable, Sendable {
    package var schemaID: Int
    package var identifierFieldIDs: [Int]
    package var fields: [IcebergNestedField]

    package init(schemaID: Int = 0, identifierFieldIDs: [Int] = [], fields: [IcebergNestedField]) {
        self.schemaID = schemaID
        self.identifierFieldIDs = identifierFieldIDs
        self.fields = fields
    }

    /// The largest field id anywhere in the schema, nested fields included.
    package var highestFieldID: Int {
        IcebergType.structure(IcebergStructType(fields: fields)).highestFieldID
    }

    /// The top-level field named `name`.
    package func field(named name: String) -> IcebergNestedField? {
        fields.first { $0.name == name }
    }

    /// The field with `id`, searching nested structs (partition and sort sources may be nested).
    package func field(id: Int) -> IcebergNestedField? {
        func search(_ fields: [IcebergNestedField]) -> IcebergNestedField? {
            for field in fields {
                if field.id == id { return field }
                if case .structure(let inner) = field.type, let found = search(inner.fields) { return found }
            }
            return nil
        }
        return search(fields)
    }

    /// Whether two schemas have the same columns, ignoring their schema ids (Java reuses an
    /// existing schema instead of adding a duplicate).
    package func hasSameStructure(as other: IcebergSchema) -> Bool {
        fields == other.fields && Set(identifierFieldIDs) == Set(other.identifierFieldIDs)
    }

    package var json: JSONDocument {
        .object([
            "type": .string("struct"),
            "schema-id": .int(Int64(schemaID)),
            "identifier-field-ids": identifierFieldIDs.isEmpty ? nil : .array(identifierFieldIDs.map { .int(Int64($0)) }),
            "fields": .array(fields.map(\.json)),
        ])
    }

    package init(json: JSONDocument) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "schema")
        if let type = try object.optionalString("type"), type != "struct" {
            throw IcebergJSONFields.malformed("schema type must be \"struct\", not \"\(type)\"")
        }
        self.init(
            schemaID: try object.optionalInt("schema-id") ?? 0,
            identifierFieldIDs: try object.int64Array("identifier-field-ids").map { Int(truncatingIfNeeded: $0) },
            fields: try IcebergNestedField.list(try object.array("fields")))
    }
}
