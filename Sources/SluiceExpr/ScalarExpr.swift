import SluiceCore

/// A bound, typed scalar expression over the columns of an input chunk.
///
/// Evaluation is vectorized: ``ExpressionEvaluator`` turns an expression and a chunk into a
/// column, a chunk at a time. Binding has already resolved names to column indexes, chosen
/// functions by argument type, and inserted casts, so evaluation never looks at names.
package indirect enum ScalarExpr: Sendable, Equatable, CustomStringConvertible {
    /// Column `index` of the input chunk.
    case column(Int, DataType)
    case literal(Value, DataType)
    /// A built-in function or operator applied to arguments.
    case call(ScalarFunction, [ScalarExpr])
    case cast(ScalarExpr, DataType)
    /// Three-valued AND over two or more operands.
    case and([ScalarExpr])
    /// Three-valued OR over two or more operands.
    case or([ScalarExpr])
    case not(ScalarExpr)
    /// `IS NULL` (or `IS NOT NULL` when negated).
    case isNull(ScalarExpr, negated: Bool)
    /// Searched CASE: the first branch whose condition is true gives the value.
    case caseWhen([CaseBranch], otherwise: ScalarExpr?, DataType)
    /// The first non-null argument.
    case coalesce([ScalarExpr], DataType)

    /// The type of the values this expression produces.
    package var type: DataType {
        switch self {
        case .column(_, let type), .literal(_, let type), .cast(_, let type), .caseWhen(_, _, let type),
            .coalesce(_, let type):
            type
        case .call(let function, _): function.resultType
        case .and, .or, .not, .isNull: .boolean
        }
    }

    /// True when the expression reads no column (it is the same for every row).
    package var isConstant: Bool {
        switch self {
        case .column: false
        case .literal: true
        case .call(let function, let arguments): function.isDeterministic && arguments.allSatisfy(\.isConstant)
        case .cast(let operand, _), .not(let operand), .isNull(let operand, _): operand.isConstant
        case .and(let operands), .or(let operands), .coalesce(let operands, _): operands.allSatisfy(\.isConstant)
        case .caseWhen(let branches, let otherwise, _):
            branches.allSatisfy { $0.condition.isConstant && $0.result.isConstant } && (otherwise?.isConstant ?? true)
        }
    }

    /// The operands of a top-level AND, flattened.
    package var conjuncts: [ScalarExpr] {
        if case .and(let operands) = self { return operands.flatMap(\.conjuncts) }
        return [self]
    }

    /// The column indexes this expression reads.
    package var referencedColumns: Set<Int> {
        var result = Set<Int>()
        visit { if case .column(let index, _) = $0 { result.insert(index) } }
        return result
    }

    /// Calls `body` on this expression and every subexpression, parents first.
    package func visit(_ body: (ScalarExpr) -> Void) {
        body(self)
        switch self {
        case .column, .literal: break
        case .call(_, let arguments): arguments.forEach { $0.visit(body) }
        case .cast(let operand, _), .not(let operand), .isNull(let operand, _): operand.visit(body)
        case .and(let operands), .or(let operands), .coalesce(let operands, _): operands.forEach { $0.visit(body) }
        case .caseWhen(let branches, let otherwise, _):
            for branch in branches {
                branch.condition.visit(body)
                branch.result.visit(body)
            }
            otherwise?.visit(body)
        }
    }

    /// This expression with every column index replaced through `mapping`.
    package func remappingColumns(_ mapping: (Int) -> Int) -> ScalarExpr {
        switch self {
        case .column(let index, let type): .column(mapping(index), type)
        case .literal: self
        case .call(let function, let arguments): .call(function, arguments.map { $0.remappingColumns(mapping) })
        case .cast(let operand, let type): .cast(operand.remappingColumns(mapping), type)
        case .not(let operand): .not(operand.remappingColumns(mapping))
        case .isNull(let operand, let negated): .isNull(operand.remappingColumns(mapping), negated: negated)
        case .and(let operands): .and(operands.map { $0.remappingColumns(mapping) })
        case .or(let operands): .or(operands.map { $0.remappingColumns(mapping) })
        case .coalesce(let operands, let type): .coalesce(operands.map { $0.remappingColumns(mapping) }, type)
        case .caseWhen(let branches, let otherwise, let type):
            .caseWhen(
                branches.map {
                    CaseBranch(condition: $0.condition.remappingColumns(mapping), result: $0.result.remappingColumns(mapping))
                }, otherwise: otherwise?.remappingColumns(mapping), type)
        }
    }

    package var description: String {
        switch self {
        case .column(let index, _): "$\(index)"
        case .literal(let value, let type):
            value.isNull ? "null:\(type.sqlName)" : (type == .varchar ? "'\(value.textForm)'" : value.textForm)
        case .call(let function, let arguments):
            "\(function.name)(\(arguments.map(\.description).joined(separator: ", ")))"
        case .cast(let operand, let type): "\(operand)::\(type.sqlName)"
        case .and(let operands): "(" + operands.map(\.description).joined(separator: " AND ") + ")"
        case .or(let operands): "(" + operands.map(\.description).joined(separator: " OR ") + ")"
        case .not(let operand): "NOT \(operand)"
        case .isNull(let operand, let negated): "\(operand) IS \(negated ? "NOT " : "")NULL"
        case .caseWhen(let branches, let otherwise, _):
            "CASE " + branches.map { "WHEN \($0.condition) THEN \($0.result)" }.joined(separator: " ")
                + (otherwise.map { " ELSE \($0)" } ?? "") + " END"
        case .coalesce(let operands, _): "coalesce(" + operands.map(\.description).joined(separator: ", ") + ")"
        }
    }
}

/// One `WHEN condition THEN result` arm of a CASE expression.
package struct CaseBranch: Sendable, Equatable {
    package var condition: ScalarExpr
    package var result: ScalarExpr

    package init(condition: ScalarExpr, result: ScalarExpr) {
        self.condition = condition
        self.result = result
    }
}
