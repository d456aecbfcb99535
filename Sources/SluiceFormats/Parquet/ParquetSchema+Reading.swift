import SluiceCore

/// The reader's mapping from a file's `SchemaElement`s to Sluice columns: 3-level lists and the
/// legacy 2-level forms (parquet-format LogicalTypes.md, "Backward-compatibility rules"), maps
/// as lists of key/value structs, unannotated repeated fields as lists, and the primitive
/// annotations as ``primitiveMapping(of:)`` lists them.
extension ParquetSchemaTree {
    /// Nesting deeper than this is refused (no real schema comes close).
    static let maximumNesting = 64

    init(reading elements: [ParquetSchemaElement]) throws(SluiceError) {
        guard let root = elements.first, let rootChildren = root.childCount, rootChildren >= 0 else {
            throw ThriftCompactReader.corrupt("the schema has no root group")
        }
        var builder = ReadingSchemaBuilder(elements: elements)
        builder.position = 1
        var columns: [ParquetNode] = []
        for _ in 0 ..< min(Int(rootChildren), elements.count) {
            columns.append(try builder.field(parentDefinition: 0, repetitionLevel: 0, path: [], depth: 1))
        }
        guard columns.count == Int(rootChildren), builder.position == elements.count else {
            throw ThriftCompactReader.corrupt("the schema's child counts do not match its elements")
        }
        self.init(columns: columns, leaves: builder.leaves)
    }

    /// The Sluice type and conversion of a primitive column; 0A000 for what Sluice cannot hold.
    static func primitiveMapping(of element: ParquetSchemaElement) throws(SluiceError) -> (ParquetPhysicalType, Int, DataType, ParquetLeafConversion) {
        guard let raw = element.type, let physical = ParquetPhysicalType(rawValue: raw) else {
            throw ThriftCompactReader.corrupt("column \"\(element.name)\" has physical type \(element.type.map(String.init) ?? "none")")
        }
        let logical = element.logicalType ?? legacyLogicalType(element)
        func unsupported() -> SluiceError {
            SluiceError(.featureNotSupported, "parquet column \"\(element.name)\" has an unsupported type",
                        detail: "Physical type \(physical), annotation \(logical.map { "\($0)" } ?? "none").")
        }
        func decimal(_ scale: Int32, _ precision: Int32) throws(SluiceError) -> (DataType, ParquetLeafConversion) {
            guard precision >= 1, precision <= 38, scale >= 0, scale <= precision else { throw unsupported() }
            return (.decimal(precision: Int(precision), scale: Int(scale)), .decimal(scale: Int(scale)))
        }
        let mapping: (DataType, ParquetLeafConversion)
        var typeLength = 0
        switch physical {
        case .boolean:
            mapping = (.boolean, .boolean)
        case .int32:
            switch logical {
            case nil: mapping = (.int32, .int32)
            case .integer(let width, true)?: mapping = width <= 16 ? (.int16, .int32ToInt16) : (.int32, .int32)
            case .integer(let width, false)?:
                mapping = width <= 8 ? (.int16, .int32ToInt16) : width <= 16 ? (.int32, .int32) : (.int64, .uint32ToInt64)
            case .date?: mapping = (.date, .int32)
            case .decimal(let scale, let precision)?: mapping = try decimal(scale, precision)
            case .time(_, .millis)?: mapping = (.time, .int32MillisToMicros)
            default: throw unsupported()
            }
        case .int64:
            switch logical {
            case nil: mapping = (.int64, .int64(multiplier: 1, divisor: 1))
            case .integer(_, true)?: mapping = (.int64, .int64(multiplier: 1, divisor: 1))
            case .integer(_, false)?: mapping = (.decimal(precision: 20, scale: 0), .uint64ToDecimal)
            case .decimal(let scale, let precision)?: mapping = try decimal(scale, precision)
            case .timestamp(let isAdjustedToUTC, let unit)?: mapping = (isAdjustedToUTC ? .timestamptz : .timestamp, unitConversion(unit))
            case .time(_, let unit)?: mapping = (.time, unitConversion(unit))
            default: throw unsupported()
            }
        case .int96:
            mapping = (.timestamp, .int96ToMicros)
        case .float:
            mapping = (.float32, .float)
        case .double:
            mapping = (.float64, .double)
        case .byteArray:
            switch logical {
            case .string?, .enumeration?: mapping = (.varchar, .bytes)
            case .json?: mapping = (.jsonb, .bytes)
            case .decimal(let scale, let precision)?: mapping = try decimal(scale, precision)
            case nil, .bson?, .unknown?: mapping = (.bytea, .bytes)
            default: throw unsupported()
            }
        case .fixedLenByteArray:
            guard let length = element.typeLength, length > 0 else {
                throw ThriftCompactReader.corrupt("fixed-length column \"\(element.name)\" has no positive length")
            }
            typeLength = Int(length)
            switch logical {
            case .decimal(let scale, let precision)? where length <= 16: mapping = try decimal(scale, precision)
            case nil, .uuid?: mapping = (.bytea, .bytes)
            default: throw unsupported()
            }
        }
        return (physical, typeLength, mapping.0, mapping.1)
    }

    private static func unitConversion(_ unit: ParquetTimeUnit) -> ParquetLeafConversion {
        switch unit {
        case .millis: .int64(multiplier: 1000, divisor: 1)
        case .micros: .int64(multiplier: 1, divisor: 1)
        case .nanos: .int64(multiplier: 1, divisor: 1000)
        }
    }

    /// The logical type a legacy `ConvertedType` stands for (LogicalTypes.md gives each one);
    /// legacy time and timestamp types are adjusted to UTC.
    private static func legacyLogicalType(_ element: ParquetSchemaElement) -> ParquetLogicalType? {
        switch element.convertedType {
        case ParquetConvertedType.utf8?: .string
        case ParquetConvertedType.enumeration?: .enumeration
        case ParquetConvertedType.json?: .json
        case ParquetConvertedType.bson?: .bson
        case ParquetConvertedType.decimal?: .decimal(scale: element.scale ?? 0, precision: element.precision ?? 0)
        case ParquetConvertedType.date?: .date
        case ParquetConvertedType.timeMillis?: .time(isAdjustedToUTC: true, unit: .millis)
        case ParquetConvertedType.timeMicros?: .time(isAdjustedToUTC: true, unit: .micros)
        case ParquetConvertedType.timestampMillis?: .timestamp(isAdjustedToUTC: true, unit: .millis)
        case ParquetConvertedType.timestampMicros?: .timestamp(isAdjustedToUTC: true, unit: .micros)
        case ParquetConvertedType.uint8?: .integer(bitWidth: 8, isSigned: false)
        case ParquetConvertedType.uint16?: .integer(bitWidth: 16, isSigned: false)
        case ParquetConvertedType.uint32?: .integer(bitWidth: 32, isSigned: false)
        case ParquetConvertedType.uint64?: .integer(bitWidth: 64, isSigned: false)
        case ParquetConvertedType.int8?: .integer(bitWidth: 8, isSigned: true)
        case ParquetConvertedType.int16?: .integer(bitWidth: 16, isSigned: true)
        case ParquetConvertedType.int32?: .integer(bitWidth: 32, isSigned: true)
        case ParquetConvertedType.int64?: .integer(bitWidth: 64, isSigned: true)
        case nil: nil
        default: .other(-1)
        }
    }
}

private struct ReadingSchemaBuilder {
    let elements: [ParquetSchemaElement]
    var position = 0
    var leaves: [ParquetLeaf] = []

    /// The field at `position`, by its own repetition.
    mutating func field(parentDefinition: Int, repetitionLevel: Int, path: [String], depth: Int) throws(SluiceError) -> ParquetNode {
        guard position < elements.count else { throw ThriftCompactReader.corrupt("the schema ends inside a group") }
        let element = elements[position]
        switch element.repetition ?? ParquetRepetition.required.rawValue {
        case ParquetRepetition.repeated.rawValue:
            // An unannotated repeated field: a list that is never null, of required elements.
            let elementNode = try value(nullable: false, definitionLevel: parentDefinition + 1, repetitionLevel: repetitionLevel + 1, path: path, depth: depth)
            return ParquetNode(
                name: element.name, type: .list(elementNode.type), nullable: false, fieldID: element.fieldID,
                kind: .list(element: [elementNode], repetitionLevel: repetitionLevel + 1, elementDefinitionLevel: parentDefinition + 1),
                definitionLevel: parentDefinition)
        case ParquetRepetition.optional.rawValue:
            return try value(nullable: true, definitionLevel: parentDefinition + 1, repetitionLevel: repetitionLevel, path: path, depth: depth)
        case ParquetRepetition.required.rawValue:
            return try value(nullable: false, definitionLevel: parentDefinition, repetitionLevel: repetitionLevel, path: path, depth: depth)
        default:
            throw ThriftCompactReader.corrupt("column \"\(element.name)\" has repetition \(element.repetition ?? -1)")
        }
    }

    /// The element at `position` (and its children) as a value with the given levels.
    mutating func value(nullable: Bool, definitionLevel: Int, repetitionLevel: Int, path: [String], depth: Int) throws(SluiceError) -> ParquetNode {
        guard depth <= ParquetSchemaTree.maximumNesting else { throw ThriftCompactReader.corrupt("schema nested too deeply") }
        guard position < elements.count else { throw ThriftCompactReader.corrupt("the schema ends inside a group") }
        let element = elements[position]
        position += 1
        let path = path + [element.name]
        guard let childCount = element.childCount else {
            let (physical, typeLength, type, conversion) = try ParquetSchemaTree.primitiveMapping(of: element)
            leaves.append(ParquetLeaf(
                path: path, physicalType: physical, typeLength: typeLength, maxDefinitionLevel: definitionLevel,
                maxRepetitionLevel: repetitionLevel, type: type, fieldID: element.fieldID, conversion: conversion))
            return ParquetNode(name: element.name, type: type, nullable: nullable, fieldID: element.fieldID, kind: .leaf(leaves.count - 1), definitionLevel: definitionLevel)
        }
        guard childCount > 0, Int(childCount) <= elements.count - position else {
            throw ThriftCompactReader.corrupt("group \"\(element.name)\" has \(childCount) children")
        }
        let isList = element.logicalType == .list || element.convertedType == ParquetConvertedType.list
        let isMap = element.logicalType == .map || element.convertedType == ParquetConvertedType.map
            || element.convertedType == ParquetConvertedType.mapKeyValue
        if (isList || isMap), childCount == 1, elements[position].repetition == ParquetRepetition.repeated.rawValue {
            let repeated = elements[position]
            let elementDefinition = definitionLevel + 1
            let elementRepetition = repetitionLevel + 1
            let repeatedChildren = repeated.childCount ?? 0
            // LogicalTypes.md: the repeated field is itself the element when it is primitive, has
            // several fields, is named "array" or "<list>_tuple" (and for maps, always).
            let repeatedIsElement = isMap || repeated.childCount == nil || repeatedChildren > 1
                || repeated.name == "array" || repeated.name == element.name + "_tuple"
            let elementNode: ParquetNode
            if repeatedIsElement {
                elementNode = try value(nullable: false, definitionLevel: elementDefinition, repetitionLevel: elementRepetition, path: path, depth: depth + 1)
            } else {
                position += 1
                elementNode = try field(parentDefinition: elementDefinition, repetitionLevel: elementRepetition, path: path + [repeated.name], depth: depth + 2)
            }
            return ParquetNode(
                name: element.name, type: .list(elementNode.type), nullable: nullable, fieldID: element.fieldID,
                kind: .list(element: [elementNode], repetitionLevel: elementRepetition, elementDefinitionLevel: elementDefinition),
                definitionLevel: definitionLevel)
        }
        var children: [ParquetNode] = []
        for _ in 0 ..< childCount {
            children.append(try field(parentDefinition: definitionLevel, repetitionLevel: repetitionLevel, path: path, depth: depth + 1))
        }
        let type = DataType.structure(children.map { StructField(name: $0.name, type: $0.type) })
        return ParquetNode(name: element.name, type: type, nullable: nullable, fieldID: element.fieldID, kind: .structure(children), definitionLevel: definitionLevel)
    }
}
