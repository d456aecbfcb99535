import SluiceCore

/// ksqlDB's SQL (docs.ksqldb.io, "ksqlDB SQL reference"): its statements around the Postgres
/// dialect's queries, expressions, types and options.
extension Parser {
    /// All statements of the text, split at `;`.
    mutating func parseKsqlStatements() throws(SluiceError) -> [KsqlStatement] {
        var statements: [KsqlStatement] = []
        while true {
            while consumeSymbol(";") {}
            if isAtEnd { return statements }
            let first = current
            let kind = try parseKsqlStatementKind()
            guard isSymbol(";") || isAtEnd else { throw syntaxError() }
            let last = tokens[max(index - 1, 0)]
            statements.append(KsqlStatement(kind, sourceText: sourceText(from: first.start, to: last.end)))
        }
    }

    private mutating func parseKsqlStatementKind() throws(SluiceError) -> KsqlStatement.Kind {
        guard current.kind == .word else { throw syntaxError() }
        switch current.text {
        case "select":
            return try parseKsqlSelect()
        case "create":
            return try parseKsqlCreate()
        case "insert":
            advance()
            try expectKeyword("into")
            let name = try parseObjectName()
            return .insertInto(name, try parseKsqlQuery().query)
        case "show", "list":
            advance()
            if isKeyword("connectors") || ((isKeyword("source") || isKeyword("sink")) && isKeyword("connectors", at: 1)) {
                let isSource: Bool? = consumeKeyword("source") ? true : consumeKeyword("sink") ? false : nil
                advance()
                return .listConnectors(isSource: isSource)
            }
            guard current.kind == .word, let listing = KsqlListing(rawValue: current.text.uppercased()) else { throw syntaxError() }
            advance()
            _ = consumeKeyword("extended")
            return .list(listing)
        case "describe":
            advance()
            if isKeyword("connector"), peek().kind == .word || peek().kind == .quotedIdentifier || peek().kind == .string {
                advance()
                return .describeConnector(try parseKsqlConnectorName())
            }
            let extended = consumeKeyword("extended")
            return .describe(try parseObjectName(), extended: extended)
        case "drop":
            advance()
            if consumeKeyword("connector") {
                let ifExists = consumeKeywords("if", "exists")
                return .dropConnector(try parseKsqlConnectorName(), ifExists: ifExists)
            }
            let isTable: Bool
            if consumeKeyword("stream") {
                isTable = false
            } else {
                try expectKeyword("table")
                isTable = true
            }
            let ifExists = consumeKeywords("if", "exists")
            let name = try parseObjectName()
            let deleteTopic = consumeKeywords("delete", "topic")
            return .drop(isTable: isTable, name: name, ifExists: ifExists, deleteTopic: deleteTopic)
        case "terminate":
            advance()
            if consumeKeyword("all") { return .terminate(nil) }
            return .terminate(try parseKsqlName())
        case "print":
            advance()
            let topic = try parseKsqlName()
            let fromBeginning = consumeKeywords("from", "beginning")
            var limit: Int?
            if consumeKeyword("limit") {
                guard current.kind == .integer, let value = Int(advance().text) else { throw syntaxError() }
                limit = value
            }
            return .print(topic: topic, fromBeginning: fromBeginning, limit: limit)
        case "set":
            advance()
            guard current.kind == .string else { throw syntaxError() }
            let key = advance().text
            try expectSymbol("=")
            guard current.kind == .string else { throw syntaxError() }
            return .setProperty(key, advance().text)
        case "unset":
            advance()
            guard current.kind == .string else { throw syntaxError() }
            return .unsetProperty(advance().text)
        default:
            throw syntaxError()
        }
    }

    /// A name as ksqlDB writes topics and query ids: a quoted string, or words and digits joined
    /// by `_`, `-` and `.` (`CSAS_MATCHES_1`, `'cricket.t20'`), as written.
    private mutating func parseKsqlName() throws(SluiceError) -> String {
        if current.kind == .string || current.kind == .quotedIdentifier { return advance().text }
        guard current.kind == .word else { throw syntaxError() }
        var name = rawText(of: advance())
        while (isSymbol("-") || isSymbol(".")) && (peek().kind == .word || peek().kind == .integer) && tokens[index].start == tokens[index - 1].end {
            name += advance().text
            name += rawText(of: advance())
        }
        return name
    }

    /// A connector's name: an identifier (folded to lower case) or a quoted one, as written.
    private mutating func parseKsqlConnectorName() throws(SluiceError) -> String {
        if current.kind == .string { return advance().text }
        return try parseIdentifier()
    }

    /// `SELECT … [EMIT CHANGES|FINAL] [LIMIT n]`.
    private mutating func parseKsqlSelect() throws(SluiceError) -> KsqlStatement.Kind {
        let (query, emitChanges) = try parseKsqlQuery()
        return .select(query, emitChanges: emitChanges)
    }

    /// A query and whether it ends in `EMIT CHANGES`; ksqlDB writes LIMIT after EMIT.
    private mutating func parseKsqlQuery() throws(SluiceError) -> (query: Query, emitChanges: Bool) {
        try refuseKsqlWindows()
        var query = try parseQuery()
        queryTextEnd = tokens[max(index - 1, 0)].end
        var emitChanges = false
        if consumeKeyword("emit") {
            if consumeKeyword("final") {
                throw SluiceError(.featureNotSupported, "EMIT FINAL is not supported", position: tokens[index - 1].position)
            }
            try expectKeyword("changes")
            emitChanges = true
        }
        if query.limit == nil, consumeKeyword("limit") { query.limit = try parseExpression() }
        if isKeyword("partition") || isKeyword("window") {
            throw SluiceError(.featureNotSupported, "\(current.text.uppercased()) is not supported by Sluice's ksqlDB door", position: current.position)
        }
        return (query, emitChanges)
    }

    /// ksqlDB's windowed aggregation (`WINDOW TUMBLING|HOPPING|SESSION (…)`) is refused by name,
    /// not as a syntax error at its parenthesis (Postgres's WINDOW clause names windows).
    private func refuseKsqlWindows() throws(SluiceError) {
        var offset = index
        while offset + 1 < tokens.count, !(tokens[offset].kind == .symbol && tokens[offset].text == ";"), tokens[offset].kind != .end {
            let token = tokens[offset]
            let next = tokens[offset + 1]
            if token.kind == .word, token.text == "window", next.kind == .word, ["tumbling", "hopping", "session"].contains(next.text) {
                throw SluiceError(
                    .featureNotSupported, "WINDOW \(next.text.uppercased()) is not supported by Sluice's ksqlDB door",
                    hint: "Sluice's own SQL has windows: GROUP BY window_start over TUMBLE(…) or HOP(…) on the SQL port.", position: token.position)
            }
            offset += 1
        }
    }

    /// `CREATE [OR REPLACE] STREAM|TABLE …`, with columns or `AS SELECT`.
    private mutating func parseKsqlCreate() throws(SluiceError) -> KsqlStatement.Kind {
        advance()
        let orReplace = consumeKeywords("or", "replace")
        if (isKeyword("source") || isKeyword("sink")) && isKeyword("connector", at: 1) {
            guard !orReplace else { throw syntaxError() }
            let isSource = advance().text == "source"
            advance()
            let ifNotExists = consumeKeywords("if", "not", "exists")
            let name = try parseKsqlConnectorName()
            guard isKeyword("with") else { throw syntaxError() }
            return .createConnector(KsqlCreateConnector(isSource: isSource, name: name, ifNotExists: ifNotExists, properties: try parseWithOptions()))
        }
        _ = consumeKeyword("source")
        let isTable: Bool
        if consumeKeyword("stream") {
            isTable = false
        } else if consumeKeyword("table") {
            isTable = true
        } else {
            throw syntaxError()
        }
        let ifNotExists = consumeKeywords("if", "not", "exists")
        let name = try parseObjectName()
        var columns: [ColumnDefinition] = []
        if isSymbol("(") { columns = try parseKsqlColumns() }
        let options = isKeyword("with") ? try parseKsqlOptions() : []
        if consumeKeyword("as") {
            guard columns.isEmpty else { throw syntaxError() }
            let start = current.start
            let (query, _) = try parseKsqlQuery()
            let text = sourceText(from: start, to: queryTextEnd)
            return .createAsSelect(
                KsqlCreateAsSelect(isTable: isTable, name: name, ifNotExists: ifNotExists, orReplace: orReplace, options: options, query: query, queryText: text))
        }
        return .create(KsqlCreate(isTable: isTable, name: name, ifNotExists: ifNotExists, orReplace: orReplace, columns: columns, options: options))
    }

    /// `(name type [KEY | PRIMARY KEY] [HEADERS], …)`.
    private mutating func parseKsqlColumns() throws(SluiceError) -> [ColumnDefinition] {
        try expectSymbol("(")
        let columns = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) -> ColumnDefinition in
            let start = parser.position
            let name = try parser.parseColumnIdentifier()
            if parser.isKeyword("map"), parser.isSymbol("<", at: 1) {
                throw SluiceError(.featureNotSupported, "MAP types are not supported by Sluice's ksqlDB door", position: parser.current.position)
            }
            var column = ColumnDefinition(name: name, type: try parser.parseTypeName(), at: start)
            if parser.consumeKeyword("key") || parser.consumeKeywords("primary", "key") { column.constraints.append(.primaryKey) }
            if parser.isKeyword("headers") || parser.isKeyword("header") {
                throw SluiceError(.featureNotSupported, "HEADERS columns are not supported", position: parser.current.position)
            }
            return column
        }
        try expectSymbol(")")
        return columns
    }

    /// `WITH (KEY = value, …)`: the keys upper-cased, as ksqlDB reads them.
    private mutating func parseKsqlOptions() throws(SluiceError) -> [WithOption] {
        try parseWithOptions().map { option in
            var option = option
            option.key = option.key.uppercased()
            return option
        }
    }
}

extension SQLParser {
    /// Parses ksqlDB's SQL: every statement of `sql`, for the ksqlDB REST API.
    ///
    /// - Throws: `42601` syntax errors with the character position of the offending token,
    ///   `0A000` for ksqlDB clauses Sluice does not carry out (`EMIT FINAL`, `WINDOW`, …).
    package static func parseKsql(_ sql: String) throws(SluiceError) -> [KsqlStatement] {
        var parser = try Parser(sql)
        parser.isKsql = true
        return try parser.parseKsqlStatements()
    }
}
