import SluiceCore

/// How a table's rows map to partitions (Iceberg spec: "Partitioning").
///
/// Partition field ids start at 1000 (`partitionFieldIDStart`) and are tracked table-wide by
/// `last-partition-id`, so a field keeps its id across spec evolution.
package struct IcebergPartitionSpec: Hashable, Sendable {
    package var specID: Int
    package var fields: [IcebergPartitionField]

    /// The first partition field id the spec assigns (Java's `PARTITION_DATA_ID_START`).
    package static let partitionFieldIDStart = 1000

    package init(specID: Int = 0, fields: [IcebergPartitionField] = []) {
        self.specID = specID
        self.fields = fields
    }

    /// The spec with no fields.
    package static let unpartitioned = IcebergPartitionSpec()

    package var isUnpartitioned: Bool { fields.allSatisfy { $0.transform == .void } }

    /// The highest field id, or 999 when there are none (so the next id is 1000).
    package var lastAssignedFieldID: Int {
        fields.map(\.fieldID).max() ?? IcebergPartitionSpec.partitionFieldIDStart - 1
    }

    /// Whether the two specs partition alike, ignoring spec ids.
    package func hasSameFields(as other: IcebergPartitionSpec) -> Bool { fields == other.fields }

    /// The partition tuple's struct type for `schema` (the `partition` field of a manifest entry).
    package func partitionType(for schema: IcebergSchema) throws(SluiceError) -> IcebergStructType {
        var result: [IcebergNestedField] = []
        for field in fields {
            guard let source = schema.field(id: field.sourceID) else {
                throw SluiceError(.undefinedColumn, "partition field \"\(field.name)\" refers to missing source column id \(field.sourceID)")
            }
            result.append(IcebergNestedField(id: field.fieldID, name: field.name, isRequired: false,
                                             type: try field.transform.resultType(for: source.type)))
        }
        return IcebergStructType(fields: result)
    }

    package var json: JSONDocument {
        .object(["spec-id": .int(Int64(specID)), "fields": .array(fields.map(\.json))])
    }

    package init(json: JSONDocument) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "partition spec")
        self.init(specID: try object.optionalInt("spec-id") ?? 0, fields: try IcebergPartitionField.list(try object.array("fields")))
    }
}

/// One field of a partition spec.
package struct IcebergPartitionField: Hashable, Sendable {
    package var sourceID: Int
    package var fieldID: Int
    package var name: String
    package var transform: IcebergTransform

    package init(sourceID: Int, fieldID: Int, name: String, transform: IcebergTransform) {
        self.sourceID = sourceID
        self.fieldID = fieldID
        self.name = name
        self.transform = transform
    }

    package var json: JSONDocument {
        .object([
            "source-id": .int(Int64(sourceID)),
            "field-id": .int(Int64(fieldID)),
            "name": .string(name),
            "transform": .string(transform.description),
        ])
    }

    /// `fallbackFieldID` is used for v1 specs written without field ids (1000, 1001, ...).
    package init(json: JSONDocument, fallbackFieldID: Int) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "partition field")
        self.init(
            sourceID: try object.int("source-id"),
            fieldID: try object.optionalInt("field-id") ?? fallbackFieldID,
            name: try object.string("name"),
            transform: IcebergTransform(try object.string("transform")))
    }

    static func list(_ elements: [JSONDocument]) throws(SluiceError) -> [IcebergPartitionField] {
        var result: [IcebergPartitionField] = []
        for (position, element) in elements.enumerated() {
            result.append(try IcebergPartitionField(json: element, fallbackFieldID: IcebergPartitionSpec.partitionFieldIDStart + position))
        }
        return result
    }
}

/// A table's write order (Iceberg spec: "Sorting"); order id 0 is reserved for "unsorted".
package struct IcebergSortOrder: Hashable, Sendable {
    package var orderID: Int
    package var fields: [IcebergSortField]

    package init(orderID: Int, fields: [IcebergSortField]) {
        self.orderID = orderID
        self.fields = fields
    }

    package static let unsorted = IcebergSortOrder(orderID: 0, fields: [])

    package var json: JSONDocument {
        .object(["order-id": .int(Int64(orderID)), "fields": .array(fields.map(\.json))])
    }

    package init(json: JSONDocument) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "sort order")
        var fields: [IcebergSortField] = []
        for element in try object.array("fields") { fields.append(try IcebergSortField(json: element)) }
        self.init(orderID: try object.int("order-id"), fields: fields)
    }
}

/// One key of a sort order.
package struct IcebergSortField: Hashable, Sendable {
    package var sourceID: Int
    package var transform: IcebergTransform
    package var isDescending: Bool
    package var isNullsFirst: Bool

    package init(sourceID: Int, transform: IcebergTransform = .identity, isDescending: Bool = false, isNullsFirst: Bool = true) {
        self.sourceID = sourceID
        self.transform = transform
        self.isDescending = isDescending
        self.isNullsFirst = isNullsFirst
    }

    package var json: JSONDocument {
        .object([
            "source-id": .int(Int64(sourceID)),
            "transform": .string(transform.description),
            "direction": .string(isDescending ? "desc" : "asc"),
            "null-order": .string(isNullsFirst ? "nulls-first" : "nulls-last"),
        ])
    }

    package init(json: JSONDocument) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "sort field")
        let direction = try object.string("direction")
        let nullOrder = try object.string("null-order")
        guard direction == "asc" || direction == "desc" else { throw IcebergJSONFields.malformed("invalid sort direction \"\(direction)\"") }
        guard nullOrder == "nulls-first" || nullOrder == "nulls-last" else { throw IcebergJSONFields.malformed("invalid null order \"\(nullOrder)\"") }
        self.init(sourceID: try object.int("source-id"), transform: IcebergTransform(try object.string("transform")),
                  isDescending: direction == "desc", isNullsFirst: nullOrder == "nulls-first")
    }
}
