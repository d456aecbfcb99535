import SluiceCore

extension Parser {
    /// A FROM item with the joins that follow it.
    mutating func parseTableReference() throws(SluiceError) -> TableReference {
        var left = try parseTablePrimary()
        var links = 0
        while true {
            let natural = consumeKeyword("natural")
            let kind: JoinKind
            if consumeKeywords("cross", "join") {
                kind = .cross
            } else if consumeKeyword("join") || consumeKeywords("inner", "join") {
                kind = .inner
            } else if consumeKeywords("asof", "join") {
                kind = .asof
            } else if consumeKeywords("asof", "left") {
                _ = consumeKeyword("outer")
                try expectKeyword("join")
                kind = .asofLeft
            } else if consumeKeyword("left") {
                _ = consumeKeyword("outer")
                try expectKeyword("join")
                kind = .left
            } else if consumeKeyword("right") {
                _ = consumeKeyword("outer")
                try expectKeyword("join")
                kind = .right
            } else if consumeKeyword("full") {
                _ = consumeKeyword("outer")
                try expectKeyword("join")
                kind = .full
            } else {
                if natural { throw syntaxError() }
                return left
            }
            let right = try parseTablePrimary()
            let condition: JoinCondition
            if natural {
                condition = .natural
            } else if kind == .cross {
                condition = .none
            } else if consumeKeyword("on") {
                condition = .on(try parseExpression())
            } else if kind == .asof || kind == .asofLeft {
                // An ASOF join needs its inequality.
                throw syntaxError()
            } else if consumeKeyword("using") {
                condition = .using(try parseParenthesizedIdentifiers())
            } else {
                throw syntaxError()
            }
            left = .join(Join(left: left, right: right, kind: kind, condition: condition))
            try extendChain(&links)
        }
    }

    private mutating func parseTablePrimary() throws(SluiceError) -> TableReference {
        let start = position
        let isLateral = consumeKeyword("lateral")
        if isSymbol("(") {
            if let query = try attemptParenthesizedQuery() {
                return .subquery(query, alias: try parseTableAlias(), isLateral: isLateral, position: start)
            }
            try descend()
            defer { depth -= 1 }
            advance()
            let inner = try parseTableReference()
            try expectSymbol(")")
            return inner
        }
        if !isLateral, isKeyword("table"), isSymbol("(", at: 1) { return try parseWindowTableFunction(at: start) }
        let name = try parseObjectName()
        if isSymbol("(") {
            let call = try parseFunctionCall(name)
            let withOrdinality = consumeKeywords("with", "ordinality")
            return .function(call, alias: try parseTableAlias(), isLateral: isLateral, withOrdinality: withOrdinality, position: start)
        }
        if isLateral { throw syntaxError() }
        if consumeKeywords("for", "system_time", "as", "of") {
            // PROCTIME() or a processing-time column (Flink's `AS OF b.p_time`).
            _ = try parseSubexpression(above: Precedence.isTest)
            return .processingTime(name, alias: try parseTableAlias(), position: start)
        }
        return .table(name, alias: try parseTableAlias(), position: start)
    }

    /// Flink's window table functions, `TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1'
    /// MINUTE))` (and HOP, CUMULATE; arguments by position or as `DATA => …, TIMECOL => …`): the
    /// same call as RisingWave's `TUMBLE(t, ts, INTERVAL '1' MINUTE)`.
    private mutating func parseWindowTableFunction(at start: SourcePosition) throws(SluiceError) -> TableReference {
        index += 2
        try descend()
        defer { depth -= 1 }
        let name = try parseObjectName()
        try expectSymbol("(")
        var arguments: [Expression] = []
        repeat {
            // A named argument: its name is dropped (the order is Flink's).
            if current.kind == .word, isSymbol("=>", at: 1) || (isSymbol("=", at: 1) && isSymbol(">", at: 2)) {
                index += isSymbol("=>", at: 1) ? 2 : 3
            }
            let argumentStart = position
            if consumeKeyword("table") {
                arguments.append(Expression(.column(try parseObjectName().parts), at: argumentStart))
            } else if isKeyword("descriptor"), isSymbol("(", at: 1) {
                index += 2
                arguments.append(Expression(.column([try parseLabel()]), at: argumentStart))
                try expectSymbol(")")
            } else {
                arguments.append(try parseExpression())
            }
        } while consumeSymbol(",")
        try expectSymbol(")")
        try expectSymbol(")")
        return .function(FunctionCall(name: name, arguments: arguments), alias: try parseTableAlias(), isLateral: false, withOrdinality: false, position: start)
    }
}
