import SluiceCore

/// An expression as a tag byte, then its case's fields; operands nest.
extension ScalarExpr: PlanCodable {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        switch self {
        case .column(let index, let type):
            writer.write(byte: 0)
            writer.write(int: index)
            try type.encode(into: &writer)
        case .literal(let value, let type):
            writer.write(byte: 1)
            try value.encode(into: &writer)
            try type.encode(into: &writer)
        case .call(let function, let arguments):
            writer.write(byte: 2)
            try function.encode(into: &writer)
            try writer.write(list: arguments)
        case .cast(let operand, let type):
            writer.write(byte: 3)
            try operand.encode(into: &writer)
            try type.encode(into: &writer)
        case .and(let operands):
            writer.write(byte: 4)
            try writer.write(list: operands)
        case .or(let operands):
            writer.write(byte: 5)
            try writer.write(list: operands)
        case .not(let operand):
            writer.write(byte: 6)
            try operand.encode(into: &writer)
        case .isNull(let operand, let negated):
            writer.write(byte: 7)
            try operand.encode(into: &writer)
            writer.write(bool: negated)
        case .caseWhen(let branches, let otherwise, let type):
            writer.write(byte: 8)
            writer.write(unsigned: UInt64(branches.count))
            for branch in branches {
                try branch.condition.encode(into: &writer)
                try branch.result.encode(into: &writer)
            }
            try writer.write(optional: otherwise)
            try type.encode(into: &writer)
        case .coalesce(let operands, let type):
            writer.write(byte: 9)
            try writer.write(list: operands)
            try type.encode(into: &writer)
        }
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        self = try reader.nested { (reader: inout PlanReader) throws(SluiceError) in try ScalarExpr.read(from: &reader) }
    }

    private static func read(from reader: inout PlanReader) throws(SluiceError) -> ScalarExpr {
        let tag = try reader.readByte()
        switch tag {
        case 0:
            let index = try reader.readIndex()
            return .column(index, try DataType(from: &reader))
        case 1:
            let value = try Value(from: &reader)
            return .literal(value, try DataType(from: &reader))
        case 2:
            let function = try ScalarFunction(from: &reader)
            let arguments = try reader.readList(ScalarExpr.self)
            guard arguments.count == function.argumentTypes.count else {
                throw PlanReader.corrupted("\(function.name) called with \(arguments.count) arguments")
            }
            return .call(function, arguments)
        case 3:
            let operand = try ScalarExpr(from: &reader)
            return .cast(operand, try DataType(from: &reader))
        case 4: return .and(try reader.readList(ScalarExpr.self))
        case 5: return .or(try reader.readList(ScalarExpr.self))
        case 6: return .not(try ScalarExpr(from: &reader))
        case 7:
            let operand = try ScalarExpr(from: &reader)
            return .isNull(operand, negated: try reader.readBool())
        case 8:
            let count = try reader.readCount()
            var branches: [CaseBranch] = []
            for _ in 0 ..< count {
                let condition = try ScalarExpr(from: &reader)
                branches.append(CaseBranch(condition: condition, result: try ScalarExpr(from: &reader)))
            }
            let otherwise = try reader.readOptional(ScalarExpr.self)
            return .caseWhen(branches, otherwise: otherwise, try DataType(from: &reader))
        case 9:
            let operands = try reader.readList(ScalarExpr.self)
            return .coalesce(operands, try DataType(from: &reader))
        default: throw PlanReader.corrupted("unknown expression tag \(tag)")
        }
    }
}
