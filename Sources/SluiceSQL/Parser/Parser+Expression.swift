import SluiceCore

/// Binding strength of operators, weakest first, as in the PostgreSQL manual's
/// "Operator Precedence" table (section 4.1.6).
enum Precedence {
    static let or = 1
    static let and = 2
    static let not = 3
    static let isTest = 4
    static let comparison = 5
    static let likeBetweenIn = 6
    static let otherOperator = 7
    static let additive = 8
    static let multiplicative = 9
    static let power = 10
    static let atTimeZoneCollate = 11
    static let unary = 12
}

extension Parser {
    /// A complete expression (`a_expr`).
    mutating func parseExpression() throws(SluiceError) -> Expression {
        try parseSubexpression(above: 0)
    }

    /// An expression whose operators all bind tighter than `minimum`.
    mutating func parseSubexpression(above minimum: Int) throws(SluiceError) -> Expression {
        try descend()
        defer { depth -= 1 }
        var expression = try parsePrefixExpression()
        var links = 0
        while let combined = try parseInfix(after: expression, above: minimum) {
            expression = combined
            try extendChain(&links)
        }
        return expression
    }

    private mutating func parsePrefixExpression() throws(SluiceError) -> Expression {
        let start = position
        if isKeyword("not") {
            advance()
            let operand = try parseSubexpression(above: Precedence.not)
            return Expression(.unary(.not, operand), at: start)
        }
        if current.kind == .symbol {
            let unary: UnaryOperator? =
                switch current.text {
                case "-": .minus
                case "+": .plus
                case "~": .bitwiseNot
                case "@": .absoluteValue
                case "|/": .squareRoot
                default: nil
                }
            if let unary {
                advance()
                let operand = try parseSubexpression(above: Precedence.unary)
                if unary == .minus, case .literal(let literal) = operand.node, let negated = Self.negate(literal) {
                    return Expression(.literal(negated), at: start)
                }
                return Expression(.unary(unary, operand), at: start)
            }
        }
        let primary = try parsePrimaryExpression()
        return try parsePostfix(primary)
    }

    static func negate(_ literal: Literal) -> Literal? {
        switch literal {
        case .integer(let value):
            // -(-9223372036854775808) does not fit in Int64: keep it as numeric text.
            if value == .min { return .numeric("9223372036854775808") }
            return .integer(-value)
        case .numeric(let text):
            if text.hasPrefix("-") { return nil }
            if let value = Int64("-" + text) { return .integer(value) }
            return .numeric("-" + text)
        default: return nil
        }
    }

    /// `::type`, `[index]`, `[lower:upper]` and `.field` after a primary expression.
    mutating func parsePostfix(_ primary: Expression) throws(SluiceError) -> Expression {
        var expression = primary
        while true {
            if isSymbol("::") {
                advance()
                let type = try parseTypeName()
                expression = Expression(.cast(expression, type, .doubleColon), at: expression.position)
            } else if isSymbol("[") {
                advance()
                var lower: Expression?
                if !isSymbol(":") { lower = try parseExpression() }
                if consumeSymbol(":") {
                    let upper: Expression? = isSymbol("]") ? nil : try parseExpression()
                    try expectSymbol("]")
                    expression = Expression(.slice(expression, lower: lower, upper: upper), at: expression.position)
                } else {
                    try expectSymbol("]")
                    guard let lower else { throw syntaxError() }
                    expression = Expression(.element(expression, index: lower), at: expression.position)
                }
            } else if isSymbol("."), peek().kind == .word || peek().kind == .quotedIdentifier, Self.allowsFieldAccess(expression) {
                advance()
                let field = try parseLabel()
                expression = Expression(.fieldAccess(expression, field: field), at: expression.position)
            } else {
                return expression
            }
        }
    }

    private static func allowsFieldAccess(_ expression: Expression) -> Bool {
        switch expression.node {
        case .column, .literal, .parameter: false
        default: true
        }
    }

    // MARK: Infix operators

    /// The operator after `left` combined with its right operand, or nil when none binds here.
    private mutating func parseInfix(after left: Expression, above minimum: Int) throws(SluiceError) -> Expression? {
        let start = left.position
        let token = current
        switch token.kind {
        case .word:
            switch token.text {
            case "or" where Precedence.or > minimum:
                advance()
                return Expression(.binary(left, .or, try parseSubexpression(above: Precedence.or)), at: start)
            case "and" where Precedence.and > minimum:
                advance()
                return Expression(.binary(left, .and, try parseSubexpression(above: Precedence.and)), at: start)
            case "is" where Precedence.isTest > minimum:
                advance()
                return try parseIsTest(left)
            case "isnull" where Precedence.isTest > minimum:
                advance()
                return Expression(.isNull(left, negated: false), at: start)
            case "notnull" where Precedence.isTest > minimum:
                advance()
                return Expression(.isNull(left, negated: true), at: start)
            case "not" where Precedence.likeBetweenIn > minimum:
                let next = peek()
                guard next.kind == .word, ["like", "ilike", "between", "in", "similar"].contains(next.text) else { return nil }
                advance()
                return try parsePredicate(left, negated: true)
            case "like", "ilike", "between", "in", "similar":
                guard Precedence.likeBetweenIn > minimum else { return nil }
                return try parsePredicate(left, negated: false)
            case "at" where Precedence.atTimeZoneCollate > minimum && isKeyword("time", at: 1) && isKeyword("zone", at: 2):
                index += 3
                let zone = try parseSubexpression(above: Precedence.atTimeZoneCollate)
                return Expression(.atTimeZone(left, zone: zone), at: start)
            case "collate" where Precedence.atTimeZoneCollate > minimum:
                advance()
                return Expression(.collate(left, try parseObjectName()), at: start)
            case "operator" where Precedence.otherOperator > minimum && isSymbol("(", at: 1):
                let binary = try parseOperatorConstruct()
                return try parseBinaryOperand(left, binary, precedence: Precedence.otherOperator)
            default:
                return nil
            }
        case .symbol:
            // ksqlDB's `struct->field`: a field access, binding as tightly as `.` does.
            if isKsql, token.text == "->", peek().kind == .word || peek().kind == .quotedIdentifier {
                advance()
                return Expression(.fieldAccess(left, field: try parseLabel()), at: start)
            }
            guard let (binary, precedence) = Self.infixOperator(token.text), precedence > minimum else { return nil }
            advance()
            switch token.text {
            case "~~", "!~~", "~~*", "!~~*":
                let pattern = try parseSubexpression(above: precedence)
                return Expression(
                    .like(left, pattern: pattern, escape: nil, caseInsensitive: token.text.hasSuffix("*"), negated: token.text.hasPrefix("!")),
                    at: start)
            default:
                return try parseBinaryOperand(left, binary, precedence: precedence)
            }
        default:
            return nil
        }
    }

    /// The right operand of a binary operator, or `op ANY|SOME|ALL (…)`.
    private mutating func parseBinaryOperand(_ left: Expression, _ binary: BinaryOperator, precedence: Int) throws(SluiceError) -> Expression {
        let quantifier: Quantifier? =
            if isKeyword("any") || isKeyword("some") { .any } else if isKeyword("all") { .all } else { nil }
        if let quantifier, isSymbol("(", at: 1) {
            advance()
            let operandStart = position
            let operand: Expression
            if let query = try attemptParenthesizedQuery() {
                operand = Expression(.subquery(query), at: operandStart)
            } else {
                try expectSymbol("(")
                operand = try parseExpression()
                try expectSymbol(")")
            }
            return Expression(.quantified(left, binary, quantifier, operand), at: left.position)
        }
        let right = try parseSubexpression(above: precedence)
        // ksqlDB's `+` concatenates strings and adds numbers. Where either side is a string
        // literal the parser knows it is text; otherwise the operands' types, which the binder
        // knows, decide: `ksql_plus(a, b)` (kept so in a view's definition).
        if isKsql, binary == .plus {
            if Self.isStringLiteral(left) || Self.isStringLiteral(right) {
                return Expression(.binary(left, .concat, right), at: left.position)
            }
            return Expression(.function(FunctionCall(name: ObjectName(SQLParser.ksqlPlus), arguments: [left, right])), at: left.position)
        }
        return Expression(.binary(left, binary, right), at: left.position)
    }

    private static func isStringLiteral(_ expression: Expression) -> Bool {
        if case .literal(.string) = expression.node { return true }
        if case .binary(_, .concat, _) = expression.node { return true }
        return false
    }

    static func infixOperator(_ symbol: String) -> (BinaryOperator, Int)? {
        switch symbol {
        case "=", "<>", "!=", "<", ">", "<=", ">=": (BinaryOperator(symbol: symbol), Precedence.comparison)
        case "+", "-": (BinaryOperator(symbol: symbol), Precedence.additive)
        case "*", "/", "%": (BinaryOperator(symbol: symbol), Precedence.multiplicative)
        case "^": (.power, Precedence.power)
        case "(", ")", "[", "]", ",", ";", ".", ":", "::", "{", "}", "$", "=>": nil
        default: (BinaryOperator(symbol: symbol), Precedence.otherOperator)
        }
    }

    /// `OPERATOR(schema.op)`.
    private mutating func parseOperatorConstruct() throws(SluiceError) -> BinaryOperator {
        advance()  // OPERATOR
        try expectSymbol("(")
        var schema: [String] = []
        while current.kind == .word || current.kind == .quotedIdentifier {
            schema.append(advance().text)
            try expectSymbol(".")
        }
        guard current.kind == .symbol, Self.infixOperator(current.text) != nil || current.text == "~~" else { throw syntaxError() }
        let symbol = advance().text
        try expectSymbol(")")
        if schema.isEmpty || schema == ["pg_catalog"] { return BinaryOperator(symbol: symbol) }
        return .custom("OPERATOR(\(schema.map(quoteIdentifierIfNeeded).joined(separator: ".")).\(symbol))")
    }

    /// After `IS`: `[NOT] NULL|TRUE|FALSE|UNKNOWN|DISTINCT FROM x`.
    private mutating func parseIsTest(_ left: Expression) throws(SluiceError) -> Expression {
        let negated = consumeKeyword("not")
        let start = left.position
        if consumeKeyword("null") { return Expression(.isNull(left, negated: negated), at: start) }
        if consumeKeyword("true") { return Expression(.isBoolean(left, value: true, negated: negated), at: start) }
        if consumeKeyword("false") { return Expression(.isBoolean(left, value: false, negated: negated), at: start) }
        if consumeKeyword("unknown") { return Expression(.isBoolean(left, value: nil, negated: negated), at: start) }
        if consumeKeywords("distinct", "from") {
            let right = try parseSubexpression(above: Precedence.isTest)
            return Expression(.isDistinctFrom(left, right, negated: negated), at: start)
        }
        throw syntaxError()
    }

    /// `LIKE`, `ILIKE`, `SIMILAR TO`, `BETWEEN`, `IN` after an optional `NOT`.
    private mutating func parsePredicate(_ left: Expression, negated: Bool) throws(SluiceError) -> Expression {
        let start = left.position
        let keyword = advance().text
        switch keyword {
        case "like", "ilike":
            let pattern = try parseSubexpression(above: Precedence.likeBetweenIn)
            let escape: Expression? = consumeKeyword("escape") ? try parseSubexpression(above: Precedence.likeBetweenIn) : nil
            return Expression(.like(left, pattern: pattern, escape: escape, caseInsensitive: keyword == "ilike", negated: negated), at: start)
        case "similar":
            try expectKeyword("to")
            let pattern = try parseSubexpression(above: Precedence.likeBetweenIn)
            let escape: Expression? = consumeKeyword("escape") ? try parseSubexpression(above: Precedence.likeBetweenIn) : nil
            return Expression(.similarTo(left, pattern: pattern, escape: escape, negated: negated), at: start)
        case "between":
            let symmetric = consumeKeyword("symmetric")
            if !symmetric { _ = consumeKeyword("asymmetric") }
            let low = try parseSubexpression(above: Precedence.likeBetweenIn)
            try expectKeyword("and")
            let high = try parseSubexpression(above: Precedence.likeBetweenIn)
            return Expression(.between(left, low: low, high: high, negated: negated, symmetric: symmetric), at: start)
        default:  // in
            guard isSymbol("(") else { throw syntaxError() }
            if let query = try attemptParenthesizedQuery() {
                return Expression(.inSubquery(left, query, negated: negated), at: start)
            }
            try expectSymbol("(")
            let list = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseExpression() }
            try expectSymbol(")")
            return Expression(.inList(left, list, negated: negated), at: start)
        }
    }

    /// At a `(` that may open a subquery: the parenthesized query, or nil (with the cursor
    /// unmoved) when the parentheses hold an expression.
    ///
    /// `((SELECT 1) + 1)` first tries a query and falls back to an expression; each `(` is
    /// tried as a query at most once, so backtracking stays linear.
    mutating func attemptParenthesizedQuery() throws(SluiceError) -> Query? {
        let start = index
        guard isSymbol("("), opensQuery[start], !failedQueryStarts.contains(start) else { return nil }
        let savedDepth = depth
        do {
            advance()
            let query = try parseQuery()
            try expectSymbol(")")
            return query
        } catch {
            let opensDirectly = tokens[start + 1].kind == .word
            if error.code == .statementTooComplex || opensDirectly { throw error }
            failedQueryStarts.insert(start)
            index = start
            depth = savedDepth
            return nil
        }
    }
}
