import SluiceCore
import SluiceExpr

// The parts stream nodes hold, as stored plans write them (StreamPlan+Storage.swift).

extension TableScan: PlanCodable {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        writer.write(int: tableID)
        writer.write(string: tableName)
        writer.write(ints: columns)
        try writer.write(list: columnTypes)
        writer.write(bool: isAppendOnly)
        try writer.write(optional: index)
        writer.write(optionalInt: watermarkColumn)
        writer.write(bool: asOfProcessingTime)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let tableID = try reader.readInt()
        let tableName = try reader.readString()
        let columns = try reader.readIndexes()
        let columnTypes = try reader.readList(DataType.self)
        guard columns.count == columnTypes.count else { throw PlanReader.corrupted("a scan of \(tableName) types \(columnTypes.count) of \(columns.count) columns") }
        self.init(tableID: tableID, tableName: tableName, columns: columns, columnTypes: columnTypes, isAppendOnly: try reader.readBool())
        index = try reader.readOptional(IndexLookup.self)
        watermarkColumn = try reader.readOptionalInt()
        asOfProcessingTime = try reader.readBool()
    }
}

extension IndexLookup: PlanCodable {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        writer.write(int: indexID)
        writer.write(string: indexName)
        writer.write(strings: keyNames)
        try writer.write(list: prefix)
        try writer.write(optional: lower)
        try writer.write(optional: upper)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let indexID = try reader.readInt()
        let indexName = try reader.readString()
        let keyNames = try reader.readStrings()
        let prefix = try reader.readList(Value.self)
        guard prefix.count <= keyNames.count else { throw PlanReader.corrupted("an index lookup fixes more keys than \(indexName) has") }
        let lower = try reader.readOptional(KeyBound.self)
        let upper = try reader.readOptional(KeyBound.self)
        self.init(indexID: indexID, indexName: indexName, keyNames: keyNames, prefix: prefix, lower: lower, upper: upper)
    }
}

extension EquiJoin: PlanCodable where Input: PlanCodable {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try left.encode(into: &writer)
        try right.encode(into: &writer)
        writer.write(string: kind.rawValue)
        writer.write(ints: leftKeys)
        writer.write(ints: rightKeys)
        try writer.write(optional: residual)
        writer.write(bool: buildsLeft)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let left = try Input(from: &reader)
        let right = try Input(from: &reader)
        let kind = try reader.readCase(JoinKind.self)
        let leftKeys = try reader.readIndexes()
        let rightKeys = try reader.readIndexes()
        guard leftKeys.count == rightKeys.count else { throw PlanReader.corrupted("a join of \(leftKeys.count) left and \(rightKeys.count) right keys") }
        let residual = try reader.readOptional(ScalarExpr.self)
        self.init(left: left, right: right, kind: kind, leftKeys: leftKeys, rightKeys: rightKeys, residual: residual)
        buildsLeft = try reader.readBool()
    }
}

extension AggregateCall: PlanCodable {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        writer.write(string: kind.rawValue)
        writer.write(optionalInt: argument)
        writer.write(optionalInt: delimiter)
        writer.write(bool: distinct)
        writer.write(optionalInt: filter)
        try writer.write(list: orderBy)
        try resultType.encode(into: &writer)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let kind = try reader.readCase(AggregateKind.self)
        let argument = try reader.readOptionalInt()
        let delimiter = try reader.readOptionalInt()
        let distinct = try reader.readBool()
        let filter = try reader.readOptionalInt()
        let orderBy = try reader.readList(SortKey.self)
        let resultType = try DataType(from: &reader)
        self.init(kind: kind, argument: argument, delimiter: delimiter, distinct: distinct, filter: filter, orderBy: orderBy, resultType: resultType)
    }

    /// The input columns the call reads.
    var readColumns: [Int] {
        [argument, delimiter, filter].compactMap { $0 } + orderBy.map(\.column)
    }
}

extension WindowCall: PlanCodable {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        switch function {
        case .aggregate(let kind):
            writer.write(byte: 0)
            writer.write(string: kind.rawValue)
        case .lag: writer.write(byte: 1)
        case .lead: writer.write(byte: 2)
        case .firstValue: writer.write(byte: 3)
        case .lastValue: writer.write(byte: 4)
        case .ranking(let kind):
            writer.write(byte: 5)
            writer.write(string: kind.rawValue)
        }
        writer.write(optionalInt: argument)
        writer.write(int: offset)
        writer.write(optionalInt: defaultValue)
        try frame.encode(into: &writer)
        try resultType.encode(into: &writer)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let tag = try reader.readByte()
        let function: Function
        switch tag {
        case 0: function = .aggregate(try reader.readCase(AggregateKind.self))
        case 1: function = .lag
        case 2: function = .lead
        case 3: function = .firstValue
        case 4: function = .lastValue
        case 5: function = .ranking(try reader.readCase(WindowFunctionKind.self))
        default: throw PlanReader.corrupted("unknown window function tag \(tag)")
        }
        let argument = try reader.readOptionalInt()
        let offset = try reader.readInt()
        let defaultValue = try reader.readOptionalInt()
        let frame = try WindowFrameBounds(from: &reader)
        let resultType = try DataType(from: &reader)
        self.init(function: function, argument: argument, offset: offset, defaultValue: defaultValue, frame: frame, resultType: resultType)
    }
}

extension WindowFrameBounds: PlanCodable {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        writer.write(string: units.rawValue)
        try Self.encode(start, into: &writer)
        try Self.encode(end, into: &writer)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let units = try reader.readCase(Units.self)
        let start = try Self.readBound(from: &reader)
        self.init(units: units, start: start, end: try Self.readBound(from: &reader))
    }

    private static func encode(_ bound: Bound, into writer: inout PlanWriter) throws(SluiceError) {
        switch bound {
        case .unboundedPreceding: writer.write(byte: 0)
        case .preceding(let value):
            writer.write(byte: 1)
            try value.encode(into: &writer)
        case .currentRow: writer.write(byte: 2)
        case .following(let value):
            writer.write(byte: 3)
            try value.encode(into: &writer)
        case .unboundedFollowing: writer.write(byte: 4)
        }
    }

    private static func readBound(from reader: inout PlanReader) throws(SluiceError) -> Bound {
        let tag = try reader.readByte()
        switch tag {
        case 0: return .unboundedPreceding
        case 1: return .preceding(try Value(from: &reader))
        case 2: return .currentRow
        case 3: return .following(try Value(from: &reader))
        case 4: return .unboundedFollowing
        default: throw PlanReader.corrupted("unknown frame bound tag \(tag)")
        }
    }
}
