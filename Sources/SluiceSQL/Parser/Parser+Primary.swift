import SluiceCore

extension Parser {
    /// Interval fields accepted after `INTERVAL '…'`.
    static let intervalFields: Set<String> = ["year", "month", "day", "hour", "minute", "second"]

    /// Type names that introduce a typed string constant even though they are keywords.
    private static let literalTypeWords: Set<String> = ["timestamp", "timestamptz", "date", "time", "timetz"]

    /// A constant, name, function call, parenthesized expression or special form.
    mutating func parsePrimaryExpression() throws(SluiceError) -> Expression {
        let start = position
        let token = current
        switch token.kind {
        case .integer:
            advance()
            if let value = Int64(token.text) { return Expression(.literal(.integer(value)), at: start) }
            return Expression(.literal(.numeric(token.text)), at: start)
        case .decimal:
            advance()
            return Expression(.literal(.numeric(token.text)), at: start)
        case .string:
            advance()
            return Expression(.literal(.string(token.text)), at: start)
        case .parameter:
            advance()
            guard let number = Int(token.text), number > 0 else {
                throw SluiceError(.syntaxError, "there is no parameter $\(token.text)", position: token.position)
            }
            return Expression(.parameter(number), at: start)
        case .symbol:
            if token.text == "(" { return try parseParenthesizedExpression() }
            if token.text == "[" { return try parseArrayElements() }
            if token.text == "?", let number = questionMarkNumbers?[index] {
                advance()
                return Expression(.parameter(number), at: start)
            }
            throw syntaxError()
        case .quotedIdentifier:
            return try parseNameOrCall()
        case .word:
            return try parseWordExpression()
        case .end:
            throw syntaxError()
        }
    }

    private mutating func parseWordExpression() throws(SluiceError) -> Expression {
        let start = position
        let word = current.text
        let followedByParenthesis = isSymbol("(", at: 1)
        switch word {
        case "null":
            advance()
            return Expression(.literal(.null), at: start)
        case "true", "false":
            advance()
            return Expression(.literal(.boolean(word == "true")), at: start)
        case "default":
            advance()
            return Expression(.defaultValue, at: start)
        case "case":
            return try parseCase()
        case "cast" where followedByParenthesis, "try_cast" where followedByParenthesis:
            advance()
            advance()
            let operand = try parseExpression()
            try expectKeyword("as")
            let type = try parseTypeName()
            try expectSymbol(")")
            return Expression(.cast(operand, type, word == "cast" ? .function : .tryCast), at: start)
        case "exists" where followedByParenthesis:
            advance()
            guard let query = try attemptParenthesizedQuery() else { throw syntaxError(at: peek()) }
            return Expression(.exists(query), at: start)
        case "array":
            advance()
            if isSymbol("(") {
                guard let query = try attemptParenthesizedQuery() else { throw syntaxError(at: peek()) }
                return Expression(.arraySubquery(query), at: start)
            }
            guard isSymbol("[") else { throw syntaxError() }
            return try parseArrayElements(at: start)
        case "row" where followedByParenthesis:
            advance()
            advance()
            var fields: [Expression] = []
            if !isSymbol(")") {
                fields = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseExpression() }
            }
            try expectSymbol(")")
            return Expression(.row(fields, explicit: true), at: start)
        case "interval" where peek().kind == .string:
            advance()
            let text = advance().text
            return Expression(.interval(text, try parseIntervalQualifier()), at: start)
        case "extract" where followedByParenthesis, "substring" where followedByParenthesis,
            "position" where followedByParenthesis, "trim" where followedByParenthesis, "overlay" where followedByParenthesis:
            if let special = try parseSpecialFunction(word) { return special }
            return try parseNameOrCall()
        default:
            break
        }
        if let function = SQLValueFunction(rawValue: word.uppercased()), !followedByParenthesis {
            advance()
            return Expression(.valueFunction(function), at: start)
        }
        if peek().kind == .string, !Keywords.reserved.contains(word) || Self.literalTypeWords.contains(word) {
            let type = TypeName(.named(ObjectName(word)), at: start)
            advance()
            return Expression(.typedLiteral(type, advance().text), at: start)
        }
        if Keywords.notColumnName.contains(word) && !(followedByParenthesis && Keywords.typeOrFunctionOnly.contains(word)) {
            throw syntaxError()
        }
        // Column-name keywords such as VALUES may name a column but never a function.
        if followedByParenthesis && Keywords.notFunctionName.contains(word) {
            throw syntaxError()
        }
        return try parseNameOrCall()
    }

    /// `a`, `a.b.c`, or a call `f(…)` / `s.f(…)`, stopping before `.*`.
    private mutating func parseNameOrCall() throws(SluiceError) -> Expression {
        let start = position
        var parts = [advance().text]
        while isSymbol("."), peek().kind == .word || peek().kind == .quotedIdentifier {
            advance()
            parts.append(advance().text)
        }
        if isSymbol("(") {
            return Expression(.function(try parseFunctionCall(ObjectName(parts))), at: start)
        }
        if current.kind == .string {
            // `pg_catalog.timestamptz '…'`, `"int4" '1'`
            let type = TypeName(.named(ObjectName(parts)), at: start)
            return Expression(.typedLiteral(type, advance().text), at: start)
        }
        return Expression(.column(parts), at: start)
    }

    /// `(expr)`, `(a, b)` (an implicit row) or `(SELECT …)`.
    private mutating func parseParenthesizedExpression() throws(SluiceError) -> Expression {
        let start = position
        if let query = try attemptParenthesizedQuery() {
            return Expression(.subquery(query), at: start)
        }
        try expectSymbol("(")
        let first = try parseExpression()
        if consumeSymbol(",") {
            var fields = [first]
            fields += try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseExpression() }
            try expectSymbol(")")
            return Expression(.row(fields, explicit: false), at: start)
        }
        try expectSymbol(")")
        // Keep a marker that the expression was parenthesized so `(x).f` may follow; the node
        // itself is unchanged.
        if isSymbol("."), case .column = first.node, peek().kind == .word || peek().kind == .quotedIdentifier {
            advance()
            let field = try parseLabel()
            return Expression(.fieldAccess(first, field: field), at: start)
        }
        return first
    }

    /// `[a, b]` after `ARRAY`, or nested inside it.
    private mutating func parseArrayElements(at start: SourcePosition? = nil) throws(SluiceError) -> Expression {
        let start = start ?? position
        try descend()
        defer { depth -= 1 }
        try expectSymbol("[")
        var elements: [Expression] = []
        if !isSymbol("]") {
            elements = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in
                parser.isSymbol("[") ? try parser.parseArrayElements() : try parser.parseExpression()
            }
        }
        try expectSymbol("]")
        return Expression(.array(elements), at: start)
    }

    /// `CASE [operand] WHEN … THEN … [ELSE …] END`.
    private mutating func parseCase() throws(SluiceError) -> Expression {
        let start = position
        advance()
        let operand: Expression? = isKeyword("when") ? nil : try parseExpression()
        var branches: [CaseBranch] = []
        while consumeKeyword("when") {
            let condition = try parseExpression()
            try expectKeyword("then")
            branches.append(CaseBranch(condition: condition, result: try parseExpression()))
        }
        if branches.isEmpty { throw syntaxError() }
        let otherwise: Expression? = consumeKeyword("else") ? try parseExpression() : nil
        try expectKeyword("end")
        return Expression(.caseWhen(operand: operand, branches: branches, otherwise: otherwise), at: start)
    }

    /// `SECOND`, `HOUR TO SECOND`, `SECOND(3)` after an interval constant or type.
    mutating func parseIntervalQualifier() throws(SluiceError) -> IntervalQualifier? {
        guard current.kind == .word, Self.intervalFields.contains(current.text) else { return nil }
        var qualifier = IntervalQualifier(leading: advance().text)
        if consumeKeyword("to") {
            guard current.kind == .word, Self.intervalFields.contains(current.text) else { throw syntaxError() }
            qualifier.trailing = advance().text
        }
        if qualifier.trailing ?? qualifier.leading == "second", isSymbol("("), peek().kind == .integer {
            advance()
            qualifier.precision = Int(advance().text)
            try expectSymbol(")")
        }
        return qualifier
    }

    // MARK: Function calls

    /// The rest of a call after its name: `(…) [WITHIN GROUP (…)] [FILTER (…)] [OVER …]`.
    mutating func parseFunctionCall(_ name: ObjectName) throws(SluiceError) -> FunctionCall {
        try expectSymbol("(")
        var call = FunctionCall(name: name)
        if consumeSymbol("*") {
            call.isStar = true
        } else if !isSymbol(")") {
            if consumeKeyword("distinct") {
                call.isDistinct = true
            } else {
                _ = consumeKeyword("all")
            }
            _ = consumeKeyword("variadic")
            call.arguments = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in
                // Named arguments `name => value` keep only the value.
                if parser.current.kind == .word, parser.isSymbol("=>", at: 1) { parser.index += 2 }
                return try parser.parseExpression()
            }
            if consumeKeywords("order", "by") { call.orderBy = try parseOrderByList() }
        }
        try expectSymbol(")")
        if consumeKeywords("within", "group") {
            try expectSymbol("(")
            try expectKeyword("order")
            try expectKeyword("by")
            call.orderBy = try parseOrderByList()
            call.isWithinGroup = true
            try expectSymbol(")")
        }
        if isKeyword("filter"), isSymbol("(", at: 1) {
            index += 2
            try expectKeyword("where")
            call.filter = try parseExpression()
            try expectSymbol(")")
        }
        if consumeKeyword("over") {
            if isSymbol("(") {
                advance()
                call.over = .specification(try parseWindowSpecification())
                try expectSymbol(")")
            } else {
                call.over = .named(try parseIdentifier())
            }
        }
        return call
    }

    /// The inside of `OVER (…)` or `WINDOW w AS (…)`.
    mutating func parseWindowSpecification() throws(SluiceError) -> WindowSpecification {
        var specification = WindowSpecification()
        if current.kind == .quotedIdentifier
            || (current.kind == .word && !["partition", "order", "rows", "range", "groups", "session"].contains(current.text)
                && !Keywords.reserved.contains(current.text))
        {
            specification.baseName = advance().text
        }
        if consumeKeywords("partition", "by") {
            specification.partitionBy = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseExpression() }
        }
        if consumeKeywords("order", "by") { specification.orderBy = try parseOrderByList() }
        if consumeKeyword("session") {
            try expectKeyword("with")
            try expectKeyword("gap")
            specification.frame = WindowFrame(units: .session, start: .preceding(try parseExpression()))
            return specification
        }
        let units: WindowFrame.Units? =
            if isKeyword("rows") { .rows } else if isKeyword("range") { .range } else if isKeyword("groups") { .groups } else { nil }
        if let units {
            advance()
            if consumeKeyword("between") {
                let frameStart = try parseFrameBound()
                try expectKeyword("and")
                specification.frame = WindowFrame(units: units, start: frameStart, end: try parseFrameBound())
            } else {
                specification.frame = WindowFrame(units: units, start: try parseFrameBound())
            }
        }
        return specification
    }

    private mutating func parseFrameBound() throws(SluiceError) -> WindowFrame.Bound {
        if consumeKeywords("unbounded", "preceding") { return .unboundedPreceding }
        if consumeKeywords("unbounded", "following") { return .unboundedFollowing }
        if consumeKeywords("current", "row") { return .currentRow }
        let offset = try parseSubexpression(above: Precedence.and)
        if consumeKeyword("preceding") { return .preceding(offset) }
        if consumeKeyword("following") { return .following(offset) }
        throw syntaxError()
    }

    /// `expr [ASC|DESC] [NULLS FIRST|LAST], …`.
    mutating func parseOrderByList() throws(SluiceError) -> [OrderByItem] {
        try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in
            var item = OrderByItem(expression: try parser.parseExpression())
            if parser.consumeKeyword("asc") {
                item.ascending = true
            } else if parser.consumeKeyword("desc") {
                item.ascending = false
            }
            if parser.consumeKeywords("nulls", "first") {
                item.nullsFirst = true
            } else if parser.consumeKeywords("nulls", "last") {
                item.nullsFirst = false
            }
            return item
        }
    }
}
