import SluiceCore

/// An origin as a tag byte, then the arguments of its call.
extension FunctionOrigin: PlanCodable {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        switch self {
        case .function(let name, let argumentTypes):
            writer.write(byte: 0)
            writer.write(string: name)
            try writer.write(list: argumentTypes)
        case .binaryOperator(let symbol, let left, let right):
            writer.write(byte: 1)
            writer.write(string: symbol)
            try left.encode(into: &writer)
            try right.encode(into: &writer)
        case .unaryOperator(let symbol, let operand):
            writer.write(byte: 2)
            writer.write(string: symbol)
            try operand.encode(into: &writer)
        case .comparison(let op, let type):
            writer.write(byte: 3)
            writer.write(string: op.rawValue)
            try type.encode(into: &writer)
        case .distinctFrom(let type, let negated):
            writer.write(byte: 4)
            try type.encode(into: &writer)
            writer.write(bool: negated)
        case .arrayConstructor(let elementType, let count):
            writer.write(byte: 5)
            try elementType.encode(into: &writer)
            writer.write(int: count)
        case .quantified(let op, let all, let elementType):
            writer.write(byte: 6)
            writer.write(string: op.rawValue)
            writer.write(bool: all)
            try elementType.encode(into: &writer)
        case .arrayToString(let elementType):
            writer.write(byte: 7)
            try elementType.encode(into: &writer)
        case .arrayElement(let elementType):
            writer.write(byte: 8)
            try elementType.encode(into: &writer)
        case .arraySlice(let elementType, let hasLower, let hasUpper):
            writer.write(byte: 9)
            try elementType.encode(into: &writer)
            writer.write(bool: hasLower)
            writer.write(bool: hasUpper)
        case .arrayUpperBound(let elementType, let name):
            writer.write(byte: 10)
            try elementType.encode(into: &writer)
            writer.write(string: name)
        case .cardinality(let elementType):
            writer.write(byte: 11)
            try elementType.encode(into: &writer)
        case .atTimeZone(let type, let zoneType):
            writer.write(byte: 12)
            try type.encode(into: &writer)
            try zoneType.encode(into: &writer)
        case .windowEnd(let type, let size):
            writer.write(byte: 13)
            try type.encode(into: &writer)
            writer.write(int64: size)
        case .hopStarts(let type, let slide, let size, let offset):
            writer.write(byte: 14)
            try type.encode(into: &writer)
            writer.write(int64: slide)
            writer.write(int64: size)
            writer.write(int64: offset)
        case .jsonArrayElements(let asText):
            writer.write(byte: 15)
            writer.write(bool: asText)
        case .jsonMembers(let asText, let keysOnly):
            writer.write(byte: 16)
            writer.write(bool: asText)
            writer.write(bool: keysOnly)
        case .statisticalFinish(let aggregate, let sumType):
            writer.write(byte: 17)
            writer.write(string: aggregate.rawValue)
            try sumType.encode(into: &writer)
        case .orderedSetFinish(let aggregate, let elementType):
            writer.write(byte: 18)
            writer.write(string: aggregate.rawValue)
            try elementType.encode(into: &writer)
        case .jsonBuildObject(let argumentTypes):
            writer.write(byte: 19)
            try writer.write(list: argumentTypes)
        case .rowConstructor(let argumentTypes):
            writer.write(byte: 20)
            try writer.write(list: argumentTypes)
        case .structField(let index, let type):
            writer.write(byte: 21)
            writer.write(int: index)
            try type.encode(into: &writer)
        case .subscripts(let arrayType):
            writer.write(byte: 22)
            try arrayType.encode(into: &writer)
        case .series(let count):
            writer.write(byte: 23)
            writer.write(int: count)
        case .expandArray(let elementType):
            writer.write(byte: 24)
            try elementType.encode(into: &writer)
        case .setReturningField(let index, let elementType):
            writer.write(byte: 25)
            writer.write(int: index)
            try elementType.encode(into: &writer)
        case .grouping(let masks):
            writer.write(byte: 26)
            writer.write(ints: masks.map { Int($0) })
        case .setOperationCopies(let intersect, let all):
            writer.write(byte: 27)
            writer.write(bool: intersect)
            writer.write(bool: all)
        case .cumulateEnds(let type, let step, let size, let offset):
            writer.write(byte: 28)
            try type.encode(into: &writer)
            writer.write(int64: step)
            writer.write(int64: size)
            writer.write(int64: offset)
        }
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let tag = try reader.readByte()
        switch tag {
        case 0:
            let name = try reader.readString()
            self = .function(name: name, argumentTypes: try reader.readList(DataType.self))
        case 1:
            let symbol = try reader.readString()
            let left = try DataType(from: &reader)
            self = .binaryOperator(symbol, left, try DataType(from: &reader))
        case 2:
            let symbol = try reader.readString()
            self = .unaryOperator(symbol, try DataType(from: &reader))
        case 3:
            let op = try reader.readCase(ComparisonOperator.self)
            self = .comparison(op, try DataType(from: &reader))
        case 4:
            let type = try DataType(from: &reader)
            self = .distinctFrom(type, negated: try reader.readBool())
        case 5:
            let elementType = try DataType(from: &reader)
            let count = try reader.readIndex()
            // As many arguments as a plan could hold.
            guard count <= 65_536 else { throw PlanReader.corrupted("an array of \(count) arguments") }
            self = .arrayConstructor(elementType: elementType, count: count)
        case 6:
            let op = try reader.readCase(ComparisonOperator.self)
            let all = try reader.readBool()
            self = .quantified(op, all: all, elementType: try DataType(from: &reader))
        case 7: self = .arrayToString(elementType: try DataType(from: &reader))
        case 8: self = .arrayElement(elementType: try DataType(from: &reader))
        case 9:
            let elementType = try DataType(from: &reader)
            let hasLower = try reader.readBool()
            self = .arraySlice(elementType: elementType, hasLower: hasLower, hasUpper: try reader.readBool())
        case 10:
            let elementType = try DataType(from: &reader)
            self = .arrayUpperBound(elementType: elementType, name: try reader.readString())
        case 11: self = .cardinality(elementType: try DataType(from: &reader))
        case 12:
            let type = try DataType(from: &reader)
            self = .atTimeZone(type, zoneType: try DataType(from: &reader))
        case 13:
            let type = try DataType(from: &reader)
            self = .windowEnd(type, size: try reader.readInt64())
        case 14:
            let type = try DataType(from: &reader)
            let slide = try reader.readInt64()
            let size = try reader.readInt64()
            self = .hopStarts(type, slide: slide, size: size, offset: try reader.readInt64())
        case 15: self = .jsonArrayElements(asText: try reader.readBool())
        case 16:
            let asText = try reader.readBool()
            self = .jsonMembers(asText: asText, keysOnly: try reader.readBool())
        case 17:
            let aggregate = try reader.readCase(StatisticalAggregate.self)
            self = .statisticalFinish(aggregate, sumType: try DataType(from: &reader))
        case 18:
            let aggregate = try reader.readCase(OrderedSetAggregate.self)
            self = .orderedSetFinish(aggregate, elementType: try DataType(from: &reader))
        case 19: self = .jsonBuildObject(argumentTypes: try reader.readList(DataType.self))
        case 20: self = .rowConstructor(argumentTypes: try reader.readList(DataType.self))
        case 21:
            let index = try reader.readIndex()
            self = .structField(index, type: try DataType(from: &reader))
        case 22: self = .subscripts(arrayType: try DataType(from: &reader))
        case 23: self = .series(count: try reader.readIndex())
        case 24: self = .expandArray(elementType: try DataType(from: &reader))
        case 25:
            let index = try reader.readIndex()
            self = .setReturningField(index, elementType: try DataType(from: &reader))
        case 26:
            let count = try reader.readCount()
            var masks: [Int32] = []
            for _ in 0 ..< count { masks.append(try reader.readInteger(Int32.self)) }
            self = .grouping(masks: masks)
        case 27:
            let intersect = try reader.readBool()
            self = .setOperationCopies(intersect: intersect, all: try reader.readBool())
        case 28:
            let type = try DataType(from: &reader)
            let step = try reader.readInt64()
            let size = try reader.readInt64()
            self = .cumulateEnds(type, step: step, size: size, offset: try reader.readInt64())

        default: throw PlanReader.corrupted("unknown function origin tag \(tag)")
        }
    }
}

/// A function as its name and types, then its origin; read back by replaying the origin and
/// checking that it gives the name and types written.
extension ScalarFunction: PlanCodable {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        guard let origin else {
            throw SluiceError(.featureNotSupported, "function \(description) cannot be stored: it has no origin to rebuild it from")
        }
        writer.write(string: name)
        try writer.write(list: argumentTypes)
        try resultType.encode(into: &writer)
        try origin.encode(into: &writer)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let name = try reader.readString()
        let argumentTypes = try reader.readList(DataType.self)
        let resultType = try DataType(from: &reader)
        let origin = try FunctionOrigin(from: &reader)
        let rebuilt = try ScalarFunction(replaying: origin)
        guard rebuilt.name == name, rebuilt.argumentTypes == argumentTypes, rebuilt.resultType == resultType else {
            throw SluiceError(
                .dataCorrupted, "stored function \(name) rebuilds as \(rebuilt.description)",
                detail: "The stored plan was made by a version that resolved the function differently.")
        }
        self = rebuilt
    }
}
