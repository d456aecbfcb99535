import SluiceCore
import SluiceSQL

/// Walking the syntax tree, and the column names Postgres gives unaliased select items.
extension Binder {
    static func walk(_ expression: Expression, _ visit: (Expression) -> Bool) {
        guard visit(expression) else { return }
        for child in children(of: expression) { walk(child, visit) }
    }

    static func containsSubquery(_ expression: Expression) -> Bool {
        var found = false
        walk(expression) { node in
            switch node.node {
            case .subquery, .exists, .inSubquery, .arraySubquery: found = true
            default: break
            }
            return !found
        }
        return found
    }

    /// The direct subexpressions of `expression` (subqueries are not entered).
    static func children(of expression: Expression) -> [Expression] {
        switch expression.node {
        case .column, .literal, .typedLiteral, .interval, .parameter, .valueFunction, .defaultValue, .exists, .subquery, .arraySubquery:
            return []
        case .unary(_, let operand), .isNull(let operand, _), .isBoolean(let operand, _, _), .cast(let operand, _, _),
            .collate(let operand, _), .extract(_, let operand), .fieldAccess(let operand, _), .inSubquery(let operand, _, _):
            return [operand]
        case .binary(let left, _, let right), .quantified(let left, _, _, let right), .isDistinctFrom(let left, let right, _),
            .atTimeZone(let left, let right), .position(let left, let right), .element(let left, let right):
            return [left, right]
        case .between(let operand, let low, let high, _, _):
            return [operand, low, high]
        case .inList(let operand, let list, _):
            return [operand] + list
        case .like(let operand, let pattern, let escape, _, _), .similarTo(let operand, let pattern, let escape, _):
            return [operand, pattern] + (escape.map { [$0] } ?? [])
        case .caseWhen(let operand, let branches, let otherwise):
            return (operand.map { [$0] } ?? []) + branches.flatMap { [$0.condition, $0.result] } + (otherwise.map { [$0] } ?? [])
        case .function(let call):
            return call.arguments + (call.filter.map { [$0] } ?? []) + call.orderBy.map(\.expression)
        case .substring(let operand, let from, let length):
            return [operand] + (from.map { [$0] } ?? []) + (length.map { [$0] } ?? [])
        case .trim(let operand, _, let characters):
            return [operand] + (characters.map { [$0] } ?? [])
        case .overlay(let operand, let placing, let from, let length):
            return [operand, placing, from] + (length.map { [$0] } ?? [])
        case .array(let elements), .row(let elements, _):
            return elements
        case .slice(let operand, let lower, let upper):
            return [operand] + (lower.map { [$0] } ?? []) + (upper.map { [$0] } ?? [])
        }
    }

    /// The column name Postgres gives an unaliased select item.
    /// Whether `expression` is named after a type (a typed literal, or casts down to one that
    /// has no name of its own): a cast of it is named after its own type instead.
    private static func isNamedByType(_ expression: Expression) -> Bool {
        switch expression.node {
        case .typedLiteral: return true
        case .cast(let operand, _, _): return isNamedByType(operand) || outputName(of: operand) == "?column?"
        default: return false
        }
    }

    static func outputName(of expression: Expression) -> String {
        switch expression.node {
        case .column(let parts): return parts.last ?? "?column?"
        case .function(let call): return call.name.name
        case .cast(let operand, let typeName, _):
            // A cast takes its operand's name when that is a column's or a function's, else its
            // type's (a cast of a cast of a literal: the outer type), as PostgreSQL names it.
            if !isNamedByType(operand) {
                let inner = outputName(of: operand)
                if inner != "?column?" { return inner }
            }
            if typeName.simpleName.lowercased() == "text" { return "text" }
            return (try? typeName.resolvedDataType()).map(Self.internalTypeName) ?? typeName.simpleName
        case .typedLiteral(let typeName, _): return (try? typeName.resolvedDataType()).map(Self.internalTypeName) ?? typeName.simpleName
        case .interval: return "interval"
        case .atTimeZone: return "timezone"
        case .caseWhen: return "case"
        case .extract: return "extract"
        case .substring: return "substring"
        case .position: return "position"
        case .trim: return "btrim"
        case .exists: return "exists"
        case .collate(let operand, _): return outputName(of: operand)
        case .fieldAccess(_, let field): return field
        case .valueFunction(let function):
            switch function {
            case .currentDate: return "current_date"
            case .currentTimestamp: return "current_timestamp"
            case .currentUser: return "current_user"
            case .sessionUser: return "session_user"
            case .currentSchema: return "current_schema"
            default: return function.rawValue.lowercased()
            }
        case .subquery(let query):
            if case .select(let select) = query.body, select.projection.count == 1, case .expression(let inner, let alias) = select.projection[0] {
                return alias ?? outputName(of: inner)
            }
            return "?column?"
        default: return "?column?"
        }
    }

    /// Postgres's internal type names, used for the names of cast columns (`'1'::int` is "int4").
    static func internalTypeName(_ type: DataType) -> String {
        switch type {
        case .boolean: "bool"
        case .int16: "int2"
        case .int32: "int4"
        case .int64: "int8"
        case .float32: "float4"
        case .float64: "float8"
        case .decimal: "numeric"
        case .varchar: "varchar"
        case .date: "date"
        case .time: "time"
        case .timestamp: "timestamp"
        case .timestamptz: "timestamptz"
        case .interval: "interval"
        case .jsonb: "jsonb"
        case .bytea: "bytea"
        default: type.sqlName
        }
    }
}
