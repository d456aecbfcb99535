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
}
