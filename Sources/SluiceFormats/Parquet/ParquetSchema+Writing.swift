import SluiceCore

/// The writer's mapping from Sluice types to Parquet's, which is Iceberg's ("Parquet" in the
/// Iceberg spec's appendix), so pyiceberg, DuckDB and pyarrow read the values Sluice meant.
extension ParquetSchemaTree {
    /// The tree and the `SchemaElement`s (root first, depth-first) for `columns`.
    ///
    /// Refuses what Parquet cannot hold as Iceberg maps it: `interval` (0A000), unconstrained
    /// `numeric` (the caller picks a precision and scale), precision above 38.
    static func forWriting(_ columns: [ParquetColumnSchema]) throws(SluiceError) -> (ParquetSchemaTree, [ParquetSchemaElement]) {
        var builder = WritingSchemaBuilder()
        builder.elements.append(ParquetSchemaElement(name: "schema", childCount: Int32(columns.count)))
        var nodes: [ParquetNode] = []
        for column in columns {
            nodes.append(try builder.add(column, path: [], definitionLevel: 0, repetitionLevel: 0))
        }
        return (ParquetSchemaTree(columns: nodes, leaves: builder.leaves), builder.elements)
    }

    /// The bytes a FIXED_LEN_BYTE_ARRAY needs for an unscaled decimal of `precision` digits:
    /// the least `n` with 2^(8n-1) > 10^precision - 1.
    static func decimalByteWidth(precision: Int) -> Int {
        let largest = Decimal.powerOfTen(precision) - 1
        var width = 1
        while width < 16, (Int128(1) << (8 * width - 1)) - 1 < largest { width += 1 }
        return width
    }
}

private struct WritingSchemaBuilder {
    var elements: [ParquetSchemaElement] = []
    var leaves: [ParquetLeaf] = []

    mutating func add(_ column: ParquetColumnSchema, path: [String], definitionLevel parentDefinition: Int, repetitionLevel: Int) throws(SluiceError) -> ParquetNode {
        let repetition = column.nullable ? ParquetRepetition.optional : .required
        let definitionLevel = parentDefinition + (column.nullable ? 1 : 0)
        let path = path + [column.name]
        var element = ParquetSchemaElement(repetition: repetition.rawValue, name: column.name, fieldID: column.fieldID)
        switch column.type {
        case .structure(let fields):
            guard column.children.count == fields.count, !fields.isEmpty else {
                throw SluiceError(.invalidParameterValue, "parquet struct column \"\(column.name)\" needs one child schema per field and at least one field")
            }
            element.childCount = Int32(fields.count)
            elements.append(element)
            var children: [ParquetNode] = []
            for child in column.children {
                children.append(try add(child, path: path, definitionLevel: definitionLevel, repetitionLevel: repetitionLevel))
            }
            return ParquetNode(name: column.name, type: column.type, nullable: column.nullable, fieldID: column.fieldID, kind: .structure(children), definitionLevel: definitionLevel)
        case .list:
            guard column.children.count == 1, let child = column.children.first else {
                throw SluiceError(.invalidParameterValue, "parquet list column \"\(column.name)\" needs one child schema, its element")
            }
            // parquet-format LogicalTypes.md, "Lists": <name> (LIST) { repeated group list { <element> } }.
            element.childCount = 1
            element.convertedType = ParquetConvertedType.list
            element.logicalType = .list
            elements.append(element)
            elements.append(ParquetSchemaElement(repetition: ParquetRepetition.repeated.rawValue, name: "list", childCount: 1))
            var elementSchema = child
            elementSchema.name = "element"
            let repeatedLevel = repetitionLevel + 1
            let elementNode = try add(elementSchema, path: path + ["list"], definitionLevel: definitionLevel + 1, repetitionLevel: repeatedLevel)
            return ParquetNode(
                name: column.name, type: column.type, nullable: column.nullable, fieldID: column.fieldID,
                kind: .list(element: [elementNode], repetitionLevel: repeatedLevel, elementDefinitionLevel: definitionLevel + 1),
                definitionLevel: definitionLevel)
        default:
            let (physical, typeLength, conversion) = try annotate(&element, column.type, name: column.name)
            elements.append(element)
            leaves.append(ParquetLeaf(
                path: path, physicalType: physical, typeLength: typeLength, maxDefinitionLevel: definitionLevel,
                maxRepetitionLevel: repetitionLevel, type: column.type, fieldID: column.fieldID, conversion: conversion))
            return ParquetNode(name: column.name, type: column.type, nullable: column.nullable, fieldID: column.fieldID, kind: .leaf(leaves.count - 1), definitionLevel: definitionLevel)
        }
    }

    /// Sets the physical type and annotations of a primitive column.
    private func annotate(_ element: inout ParquetSchemaElement, _ type: DataType, name: String) throws(SluiceError) -> (ParquetPhysicalType, Int, ParquetLeafConversion) {
        var physical: ParquetPhysicalType
        var typeLength = 0
        var conversion: ParquetLeafConversion
        switch type {
        case .boolean:
            physical = .boolean; conversion = .boolean
        case .int16:
            physical = .int32; conversion = .int32ToInt16
            element.convertedType = ParquetConvertedType.int16
            element.logicalType = .integer(bitWidth: 16, isSigned: true)
        case .int32:
            physical = .int32; conversion = .int32
        case .int64:
            physical = .int64; conversion = .int64(multiplier: 1, divisor: 1)
        case .float32:
            physical = .float; conversion = .float
        case .float64:
            physical = .double; conversion = .double
        case .decimal(let precision?, let scale):
            let scale = scale ?? 0
            guard precision >= 1, precision <= 38, scale >= 0, scale <= precision else {
                throw SluiceError(.featureNotSupported, "parquet cannot hold numeric(\(precision),\(scale)) in column \"\(name)\"",
                                  detail: "Parquet decimals have a precision from 1 to 38 and a scale from 0 to the precision.")
            }
            if precision <= 9 {
                physical = .int32
            } else if precision <= 18 {
                physical = .int64
            } else {
                physical = .fixedLenByteArray
                typeLength = ParquetSchemaTree.decimalByteWidth(precision: precision)
                element.typeLength = Int32(typeLength)
            }
            conversion = .decimal(scale: scale)
            element.convertedType = ParquetConvertedType.decimal
            element.scale = Int32(scale)
            element.precision = Int32(precision)
            element.logicalType = .decimal(scale: Int32(scale), precision: Int32(precision))
        case .decimal(nil, _):
            throw SluiceError(.featureNotSupported, "parquet cannot hold unconstrained numeric column \"\(name)\"",
                              hint: "Give the column a precision and scale, as numeric(38, 9).")
        case .varchar:
            physical = .byteArray; conversion = .bytes
            element.convertedType = ParquetConvertedType.utf8
            element.logicalType = .string
        case .jsonb:
            physical = .byteArray; conversion = .bytes
            element.convertedType = ParquetConvertedType.json
            element.logicalType = .json
        case .bytea:
            physical = .byteArray; conversion = .bytes
        case .date:
            physical = .int32; conversion = .int32
            element.convertedType = ParquetConvertedType.date
            element.logicalType = .date
        case .time:
            physical = .int64; conversion = .int64(multiplier: 1, divisor: 1)
            element.convertedType = ParquetConvertedType.timeMicros
            element.logicalType = .time(isAdjustedToUTC: false, unit: .micros)
        case .timestamp, .timestamptz:
            physical = .int64; conversion = .int64(multiplier: 1, divisor: 1)
            element.convertedType = ParquetConvertedType.timestampMicros
            element.logicalType = .timestamp(isAdjustedToUTC: type == .timestamptz, unit: .micros)
        case .interval:
            throw SluiceError(.featureNotSupported, "parquet files cannot hold interval column \"\(name)\"")
        case .unknown:
            throw SluiceError(.featureNotSupported, "parquet files cannot hold column \"\(name)\" of unknown type")
        case .structure, .list:
            throw SluiceError.internalError("nested type reached the primitive mapping")
        }
        element.type = physical.rawValue
        return (physical, typeLength, conversion)
    }
}

extension ParquetSchemaElement {
    init(type: Int32? = nil, repetition: Int32?, name: String, childCount: Int32? = nil, fieldID: Int32? = nil) {
        self.init()
        self.type = type
        self.repetition = repetition
        self.name = name
        self.childCount = childCount
        self.fieldID = fieldID
    }

    init(name: String, childCount: Int32) {
        self.init()
        self.name = name
        self.childCount = childCount
    }
}
