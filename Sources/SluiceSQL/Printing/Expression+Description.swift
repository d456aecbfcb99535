extension Expression: CustomStringConvertible {
    /// The expression as SQL that parses back to an equal expression; compound operands are
    /// parenthesized.
    package var description: String {
        switch node {
        case .column(let parts):
            return parts.map(quoteIdentifierIfNeeded).joined(separator: ".")
        case .literal(let literal):
            return literal.description
        case .typedLiteral(let type, let value):
            return "\(type) \(quoteStringLiteral(value))"
        case .interval(let value, let qualifier):
            return "INTERVAL \(quoteStringLiteral(value))" + (qualifier.map { " \($0)" } ?? "")
        case .parameter(let number):
            return "$\(number)"
        case .unary(let unary, let operand):
            switch unary {
            case .not: return "NOT \(operand.operandText)"
            case .minus, .plus: return "\(unary.rawValue)\(operand.operandText)"
            default: return "\(unary.rawValue) \(operand.operandText)"
            }
        case .binary(let left, let binary, let right):
            return "\(left.operandText) \(binary.printedSymbol) \(right.operandText)"
        case .quantified(let left, let binary, let quantifier, let right):
            let inner: String
            if case .subquery(let query) = right.node { inner = query.description } else { inner = right.description }
            return "\(left.operandText) \(binary.printedSymbol) \(quantifier.rawValue) (\(inner))"
        case .isNull(let operand, let negated):
            return "\(operand.operandText) IS \(negated ? "NOT " : "")NULL"
        case .isBoolean(let operand, let value, let negated):
            let word = value.map { $0 ? "TRUE" : "FALSE" } ?? "UNKNOWN"
            return "\(operand.operandText) IS \(negated ? "NOT " : "")\(word)"
        case .isDistinctFrom(let left, let right, let negated):
            return "\(left.operandText) IS \(negated ? "NOT " : "")DISTINCT FROM \(right.operandText)"
        case .between(let operand, let low, let high, let negated, let symmetric):
            return "\(operand.operandText) \(negated ? "NOT " : "")BETWEEN \(symmetric ? "SYMMETRIC " : "")\(low.operandText) AND \(high.operandText)"
        case .inList(let operand, let list, let negated):
            return "\(operand.operandText) \(negated ? "NOT " : "")IN (\(list.map(\.description).joined(separator: ", ")))"
        case .inSubquery(let operand, let query, let negated):
            return "\(operand.operandText) \(negated ? "NOT " : "")IN (\(query))"
        case .like(let operand, let pattern, let escape, let caseInsensitive, let negated):
            var text = "\(operand.operandText) \(negated ? "NOT " : "")\(caseInsensitive ? "ILIKE" : "LIKE") \(pattern.operandText)"
            if let escape { text += " ESCAPE \(escape.operandText)" }
            return text
        case .similarTo(let operand, let pattern, let escape, let negated):
            var text = "\(operand.operandText) \(negated ? "NOT " : "")SIMILAR TO \(pattern.operandText)"
            if let escape { text += " ESCAPE \(escape.operandText)" }
            return text
        case .caseWhen(let operand, let branches, let otherwise):
            var text = "CASE"
            if let operand { text += " \(operand)" }
            for branch in branches { text += " WHEN \(branch.condition) THEN \(branch.result)" }
            if let otherwise { text += " ELSE \(otherwise)" }
            return text + " END"
        case .cast(let operand, let type, let syntax):
            switch syntax {
            case .function: return "CAST(\(operand) AS \(type))"
            case .tryCast: return "TRY_CAST(\(operand) AS \(type))"
            case .doubleColon: return "\(operand.operandText)::\(type)"
            }
        case .collate(let operand, let collation):
            return "\(operand.operandText) COLLATE \(collation)"
        case .atTimeZone(let operand, let zone):
            return "\(operand.operandText) AT TIME ZONE \(zone.operandText)"
        case .function(let call):
            return call.description
        case .extract(let field, let source):
            return "EXTRACT(\(quoteIdentifierIfNeeded(field)) FROM \(source))"
        case .substring(let source, let from, let length):
            var text = "SUBSTRING(\(source)"
            if let from { text += " FROM \(from)" }
            if let length { text += " FOR \(length)" }
            return text + ")"
        case .position(let needle, let haystack):
            return "POSITION(\(needle.operandText) IN \(haystack))"
        case .trim(let source, let side, let characters):
            return "TRIM(\(side.rawValue) \(characters.map { "\($0) " } ?? "")FROM \(source))"
        case .overlay(let source, let replacement, let from, let length):
            return "OVERLAY(\(source) PLACING \(replacement) FROM \(from)\(length.map { " FOR \($0)" } ?? ""))"
        case .exists(let query):
            return "EXISTS (\(query))"
        case .subquery(let query):
            return "(\(query))"
        case .array(let elements):
            return "ARRAY[\(elements.map(\.description).joined(separator: ", "))]"
        case .arraySubquery(let query):
            return "ARRAY(\(query))"
        case .element(let operand, let index):
            return "\(operand.operandText)[\(index)]"
        case .slice(let operand, let lower, let upper):
            return "\(operand.operandText)[\(lower?.description ?? ""):\(upper?.description ?? "")]"
        case .fieldAccess(let operand, let field):
            return "(\(operand)).\(quoteIdentifierIfNeeded(field))"
        case .row(let fields, let explicit):
            let list = fields.map(\.description).joined(separator: ", ")
            // (An empty unmarked row is GROUP BY's empty grouping set, `()`.)
            if fields.isEmpty && !explicit { return "()" }
            return explicit || fields.count < 2 ? "ROW(\(list))" : "(\(list))"
        case .valueFunction(let function):
            return function.rawValue
        case .defaultValue:
            return "DEFAULT"
        }
    }

    /// The expression as an operand: parenthesized unless it is atomic.
    var operandText: String {
        switch node {
        case .column, .typedLiteral, .interval, .parameter, .caseWhen, .function, .extract, .substring, .position, .trim,
            .overlay, .exists, .subquery, .array, .arraySubquery, .row, .valueFunction, .defaultValue, .fieldAccess:
            return description
        case .cast(_, _, let syntax) where syntax != .doubleColon:
            return description
        case .literal(let literal):
            switch literal {
            case .integer(let value) where value < 0: return "(\(description))"
            case .numeric(let text) where text.hasPrefix("-"): return "(\(description))"
            default: return description
            }
        default:
            return "(\(description))"
        }
    }
}

extension BinaryOperator {
    var printedSymbol: String {
        switch self {
        case .custom(let symbol) where symbol.hasPrefix("OPERATOR("): symbol
        // Written bare, these parse as LIKE (`OPERATOR(pg_catalog.~~)` keeps the binary form).
        case _ where ["~~", "!~~", "~~*", "!~~*"].contains(symbol): "OPERATOR(pg_catalog.\(symbol))"
        default: symbol
        }
    }
}

extension Literal: CustomStringConvertible {
    package var description: String {
        switch self {
        case .integer(let value): "\(value)"
        case .numeric(let text): text
        case .string(let text): quoteStringLiteral(text)
        case .boolean(let value): value ? "TRUE" : "FALSE"
        case .null: "NULL"
        }
    }
}

extension IntervalQualifier: CustomStringConvertible {
    package var description: String {
        var text = leading.uppercased()
        if let trailing { text += " TO \(trailing.uppercased())" }
        if let precision { text += "(\(precision))" }
        return text
    }
}

extension FunctionCall: CustomStringConvertible {
    package var description: String {
        if name.parts == ["grouping sets"] { return "GROUPING SETS (" + arguments.map(\.description).joined(separator: ", ") + ")" }
        var text = name.description + "("
        if isStar {
            text += "*"
        } else {
            if isDistinct { text += "DISTINCT " }
            text += arguments.map(\.description).joined(separator: ", ")
            if !orderBy.isEmpty && !isWithinGroup { text += " ORDER BY " + orderBy.map(\.description).joined(separator: ", ") }
        }
        text += ")"
        if isWithinGroup { text += " WITHIN GROUP (ORDER BY " + orderBy.map(\.description).joined(separator: ", ") + ")" }
        if let filter { text += " FILTER (WHERE \(filter))" }
        switch over {
        case .named(let window): text += " OVER \(quoteIdentifierIfNeeded(window))"
        case .specification(let specification): text += " OVER (\(specification))"
        case nil: break
        }
        return text
    }
}

extension OrderByItem: CustomStringConvertible {
    package var description: String {
        var text = expression.description
        if let ascending { text += ascending ? " ASC" : " DESC" }
        if let nullsFirst { text += nullsFirst ? " NULLS FIRST" : " NULLS LAST" }
        return text
    }
}

extension WindowSpecification: CustomStringConvertible {
    package var description: String {
        var parts: [String] = []
        if let baseName { parts.append(quoteIdentifierIfNeeded(baseName)) }
        if !partitionBy.isEmpty { parts.append("PARTITION BY " + partitionBy.map(\.description).joined(separator: ", ")) }
        if !orderBy.isEmpty { parts.append("ORDER BY " + orderBy.map(\.description).joined(separator: ", ")) }
        if let frame { parts.append(frame.description) }
        return parts.joined(separator: " ")
    }
}

extension WindowFrame: CustomStringConvertible {
    package var description: String {
        if units == .session, case .preceding(let gap) = start { return "SESSION WITH GAP \(gap.operandText)" }
        guard let end else { return "\(units.rawValue) \(start)" }
        return "\(units.rawValue) BETWEEN \(start) AND \(end)"
    }
}

extension WindowFrame.Bound: CustomStringConvertible {
    package var description: String {
        switch self {
        case .unboundedPreceding: "UNBOUNDED PRECEDING"
        case .preceding(let offset): "\(offset.operandText) PRECEDING"
        case .currentRow: "CURRENT ROW"
        case .following(let offset): "\(offset.operandText) FOLLOWING"
        case .unboundedFollowing: "UNBOUNDED FOLLOWING"
        }
    }
}

extension TypeName: CustomStringConvertible {
    package var description: String {
        var text: String
        switch base {
        case .structure(let fields):
            text = "STRUCT<" + fields.map { "\(quoteIdentifierIfNeeded($0.name)) \($0.type)" }.joined(separator: ", ") + ">"
        case .named(let name):
            let modifierText = modifiers.isEmpty ? "" : "(" + modifiers.map(String.init).joined(separator: ", ") + ")"
            if name.parts.count == 1, name.name == "timestamp with time zone" || name.name == "time with time zone" {
                text = String(name.name.dropLast(" with time zone".count)) + modifierText + " with time zone"
            } else if name.parts.count == 1, TypeName.multiWordNames.contains(name.name) {
                text = name.name + modifierText
            } else {
                text = name.parts.map(printedTypeNamePart).joined(separator: ".") + modifierText
            }
            if let intervalQualifier { text += " \(intervalQualifier)" }
        }
        for _ in 0..<arrayDimensions { text += "[]" }
        return text
    }
}

/// A part of a type name: keywords such as `timestamp` stay bare, since a type position reads them as types.
private func printedTypeNamePart(_ part: String) -> String {
    let isPlain = !part.isEmpty && part.utf8.enumerated().allSatisfy { offset, byte in
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || byte == UInt8(ascii: "_")
            || (offset > 0 && byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
    return isPlain && !Keywords.reserved.contains(part) ? part : quoteIdentifierIfNeeded(part)
}

extension TypeName {
    /// The canonical multi-word type names, printed as words; any other name with a space is
    /// a quoted identifier and printed quoted.
    static let multiWordNames: Set<String> = [
        "double precision", "character varying", "time without time zone", "timestamp without time zone", "bit varying",
        "national character", "national character varying", "char varying",
    ]
}
