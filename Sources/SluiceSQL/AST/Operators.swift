/// A prefix operator.
package enum UnaryOperator: String, Hashable, Sendable {
    case plus = "+"
    case minus = "-"
    case not = "NOT"
    /// `~x`, bitwise not.
    case bitwiseNot = "~"
    /// `@x`, absolute value.
    case absoluteValue = "@"
    /// `|/x`, square root.
    case squareRoot = "|/"
}

/// An infix operator. Operators with no case of their own are `.custom`, keeping the symbol.
///
/// `OPERATOR(pg_catalog.~)` parses to the operator it names (`.regexMatch`); the schema is dropped
/// when it is `pg_catalog` and kept in `.custom` otherwise.
package enum BinaryOperator: Hashable, Sendable {
    case or, and
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case plus, minus, multiply, divide, modulo, power
    /// `||`.
    case concat
    /// `~`, `~*`, `!~`, `!~*`.
    case regexMatch, regexMatchCaseInsensitive, regexNotMatch, regexNotMatchCaseInsensitive
    /// `->`, `->>`, `#>`, `#>>`: JSON access.
    case jsonGet, jsonGetText, jsonPath, jsonPathText
    /// `@>`, `<@`.
    case contains, containedBy
    /// `?`, `?|`, `?&`: JSON key existence.
    case jsonHasKey, jsonHasAnyKey, jsonHasAllKeys
    /// `#-`: delete a JSON path.
    case jsonDeletePath
    /// `&&`: overlap.
    case overlaps
    /// `&`, `|`, `#`, `<<`, `>>`.
    case bitwiseAnd, bitwiseOr, bitwiseXor, shiftLeft, shiftRight
    /// Any other operator, spelled as written, with its schema if `OPERATOR(schema.op)` gave one.
    case custom(String)

    /// The operator as SQL writes it.
    package var symbol: String {
        switch self {
        case .or: "OR"
        case .and: "AND"
        case .equal: "="
        case .notEqual: "<>"
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        case .plus: "+"
        case .minus: "-"
        case .multiply: "*"
        case .divide: "/"
        case .modulo: "%"
        case .power: "^"
        case .concat: "||"
        case .regexMatch: "~"
        case .regexMatchCaseInsensitive: "~*"
        case .regexNotMatch: "!~"
        case .regexNotMatchCaseInsensitive: "!~*"
        case .jsonGet: "->"
        case .jsonGetText: "->>"
        case .jsonPath: "#>"
        case .jsonPathText: "#>>"
        case .contains: "@>"
        case .containedBy: "<@"
        case .jsonHasKey: "?"
        case .jsonHasAnyKey: "?|"
        case .jsonHasAllKeys: "?&"
        case .jsonDeletePath: "#-"
        case .overlaps: "&&"
        case .bitwiseAnd: "&"
        case .bitwiseOr: "|"
        case .bitwiseXor: "#"
        case .shiftLeft: "<<"
        case .shiftRight: ">>"
        case .custom(let symbol): symbol
        }
    }

    /// The operator a symbol names, `.custom` when it has no case of its own.
    package init(symbol: String) {
        switch symbol {
        case "=": self = .equal
        case "<>", "!=": self = .notEqual
        case "<": self = .less
        case "<=": self = .lessOrEqual
        case ">": self = .greater
        case ">=": self = .greaterOrEqual
        case "+": self = .plus
        case "-": self = .minus
        case "*": self = .multiply
        case "/": self = .divide
        case "%": self = .modulo
        case "^": self = .power
        case "||": self = .concat
        case "~": self = .regexMatch
        case "~*": self = .regexMatchCaseInsensitive
        case "!~": self = .regexNotMatch
        case "!~*": self = .regexNotMatchCaseInsensitive
        case "->": self = .jsonGet
        case "->>": self = .jsonGetText
        case "#>": self = .jsonPath
        case "#>>": self = .jsonPathText
        case "@>": self = .contains
        case "<@": self = .containedBy
        case "?": self = .jsonHasKey
        case "?|": self = .jsonHasAnyKey
        case "?&": self = .jsonHasAllKeys
        case "#-": self = .jsonDeletePath
        case "&&": self = .overlaps
        case "&": self = .bitwiseAnd
        case "|": self = .bitwiseOr
        case "#": self = .bitwiseXor
        case "<<": self = .shiftLeft
        case ">>": self = .shiftRight
        default: self = .custom(symbol)
        }
    }
}
