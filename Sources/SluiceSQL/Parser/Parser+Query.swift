import SluiceCore

extension Parser {
    /// `[WITH …] body [ORDER BY …] [LIMIT …] [OFFSET …] [FETCH …]`.
    mutating func parseQuery() throws(SluiceError) -> Query {
        try descend()
        defer { depth -= 1 }
        var with: WithClause?
        if consumeKeyword("with") { with = try parseWithClause() }
        var query = Query(with: with, body: try parseSetExpression(above: 0))
        if consumeKeywords("order", "by") { query.orderBy = try parseOrderByList() }
        var sawLimit = false
        var sawOffset = false
        while true {
            if !sawLimit, consumeKeyword("limit") {
                sawLimit = true
                query.limit = consumeKeyword("all") ? nil : try parseExpression()
            } else if !sawOffset, consumeKeyword("offset") {
                sawOffset = true
                query.offset = try parseExpression()
                if !consumeKeyword("rows") { _ = consumeKeyword("row") }
            } else if !sawLimit, consumeKeyword("fetch") {
                sawLimit = true
                guard consumeKeyword("first") || consumeKeyword("next") else { throw syntaxError() }
                if isKeyword("row") || isKeyword("rows") {
                    query.limit = Expression(.literal(.integer(1)), at: position)
                } else {
                    query.limit = try parseSubexpression(above: Precedence.additive)
                }
                guard consumeKeyword("rows") || consumeKeyword("row") else { throw syntaxError() }
                try expectKeyword("only")
            } else {
                return query
            }
        }
    }

    private mutating func parseWithClause() throws(SluiceError) -> WithClause {
        let isRecursive = consumeKeyword("recursive")
        let tables = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in
            let name = try parser.parseIdentifier()
            let columns = parser.isSymbol("(") ? try parser.parseParenthesizedIdentifiers() : []
            try parser.expectKeyword("as")
            var isMaterialized: Bool?
            if parser.consumeKeyword("materialized") {
                isMaterialized = true
            } else if parser.consumeKeywords("not", "materialized") {
                isMaterialized = false
            }
            try parser.expectSymbol("(")
            let query = try parser.parseQuery()
            try parser.expectSymbol(")")
            return CommonTableExpression(alias: TableAlias(name: name, columns: columns), query: query, isMaterialized: isMaterialized)
        }
        return WithClause(isRecursive: isRecursive, tables: tables)
    }

    /// Set operations: `INTERSECT` binds tighter than `UNION` and `EXCEPT`, all left-associative.
    private mutating func parseSetExpression(above minimum: Int) throws(SluiceError) -> SetExpression {
        var left = try parseSetOperand()
        var links = 0
        while current.kind == .word {
            let setOperator: SetOperator
            let precedence: Int
            switch current.text {
            case "union": (setOperator, precedence) = (.union, 1)
            case "except": (setOperator, precedence) = (.except, 1)
            case "intersect": (setOperator, precedence) = (.intersect, 2)
            default: return left
            }
            guard precedence > minimum else { return left }
            advance()
            let isAll = consumeKeyword("all")
            if !isAll { _ = consumeKeyword("distinct") }
            if consumeKeyword("corresponding") {
                let by: [String]? = consumeKeyword("by") ? try parseParenthesizedIdentifiers() : nil
                let right = try parseSetExpression(above: precedence)
                left = .corresponding(setOperator, isAll: isAll, by: by, left, right)
            } else {
                let right = try parseSetExpression(above: precedence)
                left = .setOperation(setOperator, isAll: isAll, left, right)
            }
            try extendChain(&links)
        }
        return left
    }

    private mutating func parseSetOperand() throws(SluiceError) -> SetExpression {
        if isKeyword("select") { return .select(try parseSelect()) }
        if isKeyword("values") { return try parseValues() }
        if isSymbol("(") {
            try descend()
            defer { depth -= 1 }
            advance()
            let query = try parseQuery()
            try expectSymbol(")")
            if query.with == nil && query.orderBy.isEmpty && query.limit == nil && query.offset == nil {
                return query.body
            }
            return .query(query)
        }
        throw syntaxError()
    }

    /// `VALUES (…), (…)`.
    mutating func parseValues() throws(SluiceError) -> SetExpression {
        try expectKeyword("values")
        let rows = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in
            try parser.expectSymbol("(")
            let row = try parser.parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseExpression() }
            try parser.expectSymbol(")")
            return row
        }
        return .values(rows)
    }

    private mutating func parseSelect() throws(SluiceError) -> Select {
        let start = position
        try expectKeyword("select")
        var select = Select(projection: [], at: start)
        if consumeKeyword("distinct") {
            if consumeKeyword("on") {
                try expectSymbol("(")
                select.distinct = .on(try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseExpression() })
                try expectSymbol(")")
            } else {
                select.distinct = .distinct
            }
        } else {
            _ = consumeKeyword("all")
        }
        select.projection = try parseSelectList()
        if consumeKeyword("from") {
            select.from = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseTableReference() }
        }
        if consumeKeyword("where") { select.filter = try parseExpression() }
        if consumeKeywords("group", "by") {
            _ = consumeKeyword("all")
            select.groupBy = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseGroupingElement() }
        }
        if consumeKeyword("having") { select.having = try parseExpression() }
        if consumeKeyword("window") {
            select.windows = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in
                let name = try parser.parseIdentifier()
                try parser.expectKeyword("as")
                try parser.expectSymbol("(")
                let specification = try parser.parseWindowSpecification()
                try parser.expectSymbol(")")
                return NamedWindow(name: name, specification: specification)
            }
        }
        return select
    }

    /// Items of a select list or `RETURNING`.
    mutating func parseSelectList() throws(SluiceError) -> [SelectItem] {
        try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseSelectItem() }
    }

    private mutating func parseSelectItem() throws(SluiceError) -> SelectItem {
        let start = position
        if consumeSymbol("*") { return .wildcard(qualifier: [], position: start) }
        let expression = try parseExpression()
        if case .column(let parts) = expression.node, isSymbol("."), isSymbol("*", at: 1) {
            index += 2
            return .wildcard(qualifier: parts, position: start)
        }
        return .expression(expression, alias: try parseColumnAlias())
    }

    /// `AS label` or an implicit alias that cannot be read as anything else.
    private mutating func parseColumnAlias() throws(SluiceError) -> String? {
        if consumeKeyword("as") { return try parseLabel() }
        if current.kind == .quotedIdentifier { return advance().text }
        if current.kind == .word && !Keywords.notImplicitAlias.contains(current.text) { return advance().text }
        return nil
    }

    /// `[AS] alias [(columns)]` after a FROM item.
    mutating func parseTableAlias() throws(SluiceError) -> TableAlias? {
        let name: String
        if consumeKeyword("as") {
            name = try parseIdentifier()
        } else if current.kind == .quotedIdentifier || (current.kind == .word && !Keywords.notImplicitAlias.contains(current.text)) {
            name = advance().text
        } else {
            return nil
        }
        let columns = isSymbol("(") ? try parseParenthesizedIdentifiers() : []
        return TableAlias(name: name, columns: columns)
    }
}

extension Parser {
    /// One GROUP BY element: an expression (`ROLLUP(…)` and `CUBE(…)` parse as calls), `()`,
    /// or `GROUPING SETS (element, …)`, which becomes a call named `grouping sets` whose
    /// arguments are its elements (a parenthesized list is a row).
    mutating func parseGroupingElement() throws(SluiceError) -> Expression {
        let start = position
        if isKeyword("grouping"), isKeyword("sets", at: 1) {
            index += 2
            try expectSymbol("(")
            let elements = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseGroupingElement() }
            try expectSymbol(")")
            return Expression(.function(FunctionCall(name: ObjectName("grouping sets"), arguments: elements)), at: start)
        }
        if isSymbol("("), isSymbol(")", at: 1) {
            index += 2
            return Expression(.row([], explicit: false), at: start)
        }
        return try parseExpression()
    }
}
