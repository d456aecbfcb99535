import SluiceCore

extension Parser {
    /// All statements of the text, split at `;`.
    mutating func parseStatements() throws(SluiceError) -> [Statement] {
        var statements: [Statement] = []
        while true {
            while consumeSymbol(";") {}
            if isAtEnd { return statements }
            let first = current
            let kind = try parseStatementKind()
            guard isSymbol(";") || isAtEnd else { throw syntaxError() }
            let last = tokens[max(index - 1, 0)]
            statements.append(Statement(kind, sourceText: sourceText(from: first.start, to: last.end), at: SourcePosition(first.position)))
        }
    }

    /// One statement, dispatching on its first word.
    mutating func parseStatementKind() throws(SluiceError) -> Statement.Kind {
        if isSymbol("(") { return .query(try parseQuery()) }
        guard current.kind == .word else { throw syntaxError() }
        switch current.text {
        case "select", "values", "with":
            return .query(try parseQuery())
        case "insert":
            return .insert(try parseInsert())
        case "update":
            return .update(try parseUpdate())
        case "delete":
            return .delete(try parseDelete())
        case "copy":
            return .copy(try parseCopy())
        case "create":
            return try parseCreate()
        case "drop":
            if isKeyword("catalog", at: 1) {
                index += 2
                let ifExists = consumeKeywords("if", "exists")
                return .catalog(.drop(name: try parseLabel(), ifExists: ifExists))
            }
            if isKeyword("role", at: 1) || isKeyword("user", at: 1) {
                advance()
                advance()
                let ifExists = consumeKeywords("if", "exists")
                let names = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseRoleName() }
                return .dropRoles(names: names, ifExists: ifExists)
            }
            if isKeyword("function", at: 1) { return .dropFunction(try parseDropFunction()) }
            return .drop(try parseDrop())
        case "show":
            advance()
            if consumeKeyword("catalogs") { return .catalog(.showCatalogs) }
            if consumeKeywords("current", "catalog") { return .catalog(.showCurrentCatalog) }
            if consumeKeywords("current", "database") { return .catalog(.showCurrentDatabase) }
            if consumeKeyword("jobs") { return .catalog(.showJobs) }
            return .show(try parseShow())
        case "stop" where isKeyword("job", at: 1):
            index += 2
            guard current.kind == .string else { throw syntaxError() }
            let job = advance().text
            var savepoint = false
            var drain = false
            while consumeKeyword("with") {
                if consumeKeyword("savepoint") { savepoint = true } else if consumeKeyword("drain") { drain = true } else { throw syntaxError() }
            }
            return .catalog(.stopJob(job, savepoint: savepoint, drain: drain))
        case "use":
            advance()
            if consumeKeyword("catalog") { return .catalog(.useCatalog(try parseLabel())) }
            return .catalog(.useDatabase(try parseObjectName()))
        case "set":
            advance()
            return try parseSet()
        case "reset":
            advance()
            // Flink's `RESET` (every setting) and `RESET 'key'`.
            if isAtEnd || isSymbol(";") { return .reset("all") }
            if current.kind == .string { return .reset(advance().text) }
            if consumeKeywords("time", "zone") { return .reset("timezone") }
            if consumeKeywords("session", "authorization") { return .reset("session_authorization") }
            return .reset(try parseVariableName())
        case "describe", "desc":
            advance()
            return .describe(try parseObjectName())
        case "explain":
            advance()
            return .explain(try parseExplain())
        case "flush":
            advance()
            return .flush
        case "checkpoint":
            advance()
            return .checkpoint
        case "begin", "start":
            let isStart = advance().text == "start"
            if isStart { try expectKeyword("transaction") } else { _ = consumeKeyword("transaction") || consumeKeyword("work") }
            return .begin(try parseTransactionModes())
        case "commit", "end":
            advance()
            _ = consumeKeyword("transaction") || consumeKeyword("work")
            _ = consumeKeywords("and", "no", "chain")
            return .commit
        case "grant", "revoke":
            if isRoleGrant { return .grantRole(try parseGrantRole()) }
            return .grant(try parseGrant())
        case "savepoint":
            advance()
            return .savepoint(.define, name: try parseColumnIdentifier())
        case "release":
            advance()
            _ = consumeKeyword("savepoint")
            return .savepoint(.release, name: try parseColumnIdentifier())
        case "rollback", "abort":
            advance()
            _ = consumeKeyword("transaction") || consumeKeyword("work")
            if consumeKeyword("to") {
                _ = consumeKeyword("savepoint")
                return .savepoint(.rollbackTo, name: try parseColumnIdentifier())
            }
            _ = consumeKeywords("and", "no", "chain")
            return .rollback
        case "discard":
            advance()
            guard current.kind == .word, ["all", "plans", "sequences", "temp", "temporary"].contains(current.text) else {
                throw syntaxError()
            }
            let target = advance().text
            return .discard(target == "temporary" ? "temp" : target)
        case "deallocate":
            advance()
            _ = consumeKeyword("prepare")
            if consumeKeyword("all") { return .deallocate(nil) }
            return .deallocate(try parseIdentifier())
        case "comment":
            advance()
            return .comment(try parseComment())
        case "alter":
            advance()
            return try parseAlter()
        default:
            throw syntaxError()
        }
    }

    // MARK: DML

    private mutating func parseInsert() throws(SluiceError) -> Insert {
        advance()
        try expectKeyword("into")
        let table = try parseObjectName()
        var columns: [String] = []
        if isSymbol("("), !opensQuery[index] { columns = try parseParenthesizedIdentifiers() }
        var source: Query?
        if !consumeKeywords("default", "values") { source = try parseQuery() }
        var insert = Insert(table: table, columns: columns, source: source)
        if consumeKeyword("returning") { insert.returning = try parseSelectList() }
        return insert
    }

    private mutating func parseUpdate() throws(SluiceError) -> Update {
        advance()
        let table = try parseObjectName()
        // SET is not a reserved word, so it would otherwise be read as the alias.
        let alias = isKeyword("set") ? nil : try parseTableAlias()?.name
        try expectKeyword("set")
        let assignments = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in
            let start = parser.position
            let column = try parser.parseColumnIdentifier()
            try parser.expectSymbol("=")
            return Assignment(column: column, value: try parser.parseExpression(), at: start)
        }
        var update = Update(table: table, alias: alias, assignments: assignments)
        if consumeKeyword("from") {
            update.from = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseTableReference() }
        }
        if consumeKeyword("where") { update.filter = try parseExpression() }
        if consumeKeyword("returning") { update.returning = try parseSelectList() }
        return update
    }

    private mutating func parseDelete() throws(SluiceError) -> Delete {
        advance()
        try expectKeyword("from")
        let table = try parseObjectName()
        var delete = Delete(table: table, alias: try parseTableAlias()?.name)
        if consumeKeyword("using") {
            delete.using = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseTableReference() }
        }
        if consumeKeyword("where") { delete.filter = try parseExpression() }
        if consumeKeyword("returning") { delete.returning = try parseSelectList() }
        return delete
    }

    // MARK: Utility statements

    private mutating func parseDrop() throws(SluiceError) -> Drop {
        advance()
        let objectType = try parseObjectType()
        let ifExists = consumeKeywords("if", "exists")
        let names = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseObjectName() }
        var cascade = false
        if consumeKeyword("cascade") { cascade = true } else { _ = consumeKeyword("restrict") }
        return Drop(objectType: objectType, ifExists: ifExists, names: names, cascade: cascade)
    }

    mutating func parseObjectType() throws(SluiceError) -> ObjectType {
        if consumeKeywords("materialized", "view") { return .materializedView }
        guard current.kind == .word else { throw syntaxError() }
        let objectType: ObjectType? =
            switch current.text {
            case "table": .table
            case "view": .view
            case "source": .source
            case "sink": .sink
            case "index": .index
            case "schema": .schema
            case "database": .database
            case "column": .column
            case "function": .function
            case "secret": .secret
            default: nil
            }
        guard let objectType else { throw syntaxError() }
        advance()
        return objectType
    }

    private mutating func parseShow() throws(SluiceError) -> Show {
        let listings: [(String, String?, Show.Listing)] = [
            ("tables", nil, .tables), ("materialized", "views", .materializedViews), ("views", nil, .views),
            ("sources", nil, .sources), ("sinks", nil, .sinks), ("indexes", nil, .indexes), ("databases", nil, .databases),
            ("schemas", nil, .schemas), ("functions", nil, .functions),
        ]
        for (first, second, listing) in listings where isKeyword(first) && (second.map { isKeyword($0, at: 1) } ?? true) {
            index += second == nil ? 1 : 2
            var schema: ObjectName?
            if consumeKeyword("from") || consumeKeyword("in") { schema = try parseObjectName() }
            var pattern: String?
            if consumeKeyword("like") {
                guard current.kind == .string else { throw syntaxError() }
                pattern = advance().text
            }
            return .list(listing, schema: schema, like: pattern)
        }
        if isKeyword("columns"), isKeyword("from", at: 1) || isKeyword("in", at: 1) {
            index += 2
            return .columns(try parseObjectName())
        }
        if consumeKeyword("create") {
            let objectType = try parseObjectType()
            return .create(objectType, try parseObjectName())
        }
        if consumeKeyword("all") { return .all }
        if consumeKeywords("transaction", "isolation", "level") { return .variable("transaction_isolation") }
        if consumeKeywords("time", "zone") { return .variable("timezone") }
        if consumeKeywords("session", "authorization") { return .variable("session_authorization") }
        return .variable(try parseVariableName())
    }

    /// A configuration parameter name, dotted parts joined.
    private mutating func parseVariableName() throws(SluiceError) -> String {
        var name = try parseLabel()
        while consumeSymbol(".") { name += "." + (try parseLabel()) }
        return name
    }

    private mutating func parseSet() throws(SluiceError) -> Statement.Kind {
        // Flink's `SET` (every setting, as `SHOW ALL`) and `SET 'key' = 'value'`, whose key is a
        // configuration key as written (`'execution.checkpointing.interval'`).
        if isAtEnd || isSymbol(";") { return .show(.all) }
        if current.kind == .string {
            let name = advance().text
            guard consumeSymbol("=") else { throw syntaxError() }
            guard current.kind == .string else { throw syntaxError() }
            return .setVariable(SetVariable(name: name, isLocal: false, value: .values([advance().text])))
        }
        var isLocal = false
        if consumeKeyword("local") {
            isLocal = true
        } else if consumeKeywords("session", "characteristics", "as") {
            try expectKeyword("transaction")
            return .setTransaction(try parseTransactionModes())
        } else {
            _ = consumeKeyword("session")
        }
        if consumeKeyword("transaction") { return .setTransaction(try parseTransactionModes()) }
        if consumeKeyword("role") {
            // `SET ROLE name | NONE` (and the GUC's `SET role TO name`).
            _ = consumeKeyword("to") || consumeSymbol("=")
            if consumeKeyword("none") || consumeKeyword("default") { return .setVariable(SetVariable(name: "role", isLocal: isLocal, value: .default)) }
            return .setVariable(SetVariable(name: "role", isLocal: isLocal, value: .values([try parseSetValue()])))
        }
        let name: String
        if consumeKeywords("time", "zone") {
            name = "timezone"
            if consumeKeyword("local") || consumeKeyword("default") {
                return .setVariable(SetVariable(name: name, isLocal: isLocal, value: .default))
            }
            return .setVariable(SetVariable(name: name, isLocal: isLocal, value: .values([try parseSetValue()])))
        } else if consumeKeyword("names") {
            name = "client_encoding"
            return .setVariable(SetVariable(name: name, isLocal: isLocal, value: .values([try parseSetValue()])))
        } else if consumeKeyword("schema") {
            name = "search_path"
            return .setVariable(SetVariable(name: name, isLocal: isLocal, value: .values([try parseSetValue()])))
        } else {
            name = try parseVariableName()
        }
        guard consumeKeyword("to") || consumeSymbol("=") else { throw syntaxError() }
        if consumeKeyword("default") { return .setVariable(SetVariable(name: name, isLocal: isLocal, value: .default)) }
        let values = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseSetValue() }
        return .setVariable(SetVariable(name: name, isLocal: isLocal, value: .values(values)))
    }

    /// A `SET` value as text: a string, a signed number, or a word.
    private mutating func parseSetValue() throws(SluiceError) -> String {
        var sign = ""
        if isSymbol("-") || isSymbol("+") { sign = advance().text == "-" ? "-" : "" }
        switch current.kind {
        case .integer, .decimal:
            return sign + advance().text
        case .string, .word, .quotedIdentifier:
            guard sign.isEmpty else { throw syntaxError() }
            var value = advance().text
            // `SET search_path = "$user", public` and dotted words such as `rw.x`.
            while current.kind != .string, consumeSymbol(".") { value += "." + (try parseLabel()) }
            return value
        default:
            throw syntaxError()
        }
    }

    /// Transaction modes as phrases: `isolation level read committed`, `read only`, `not deferrable`.
    private mutating func parseTransactionModes() throws(SluiceError) -> [String] {
        var modes: [String] = []
        while !isAtEnd && !isSymbol(";") {
            if !modes.isEmpty { _ = consumeSymbol(",") }
            if consumeKeywords("isolation", "level") {
                let levels = [["serializable"], ["repeatable", "read"], ["read", "committed"], ["read", "uncommitted"]]
                guard let level = levels.first(where: { words in words.enumerated().allSatisfy { isKeyword($1, at: $0) } }) else {
                    throw syntaxError()
                }
                index += level.count
                modes.append((["isolation", "level"] + level).joined(separator: " "))
            } else if consumeKeywords("read", "only") {
                modes.append("read only")
            } else if consumeKeywords("read", "write") {
                modes.append("read write")
            } else if consumeKeyword("deferrable") {
                modes.append("deferrable")
            } else if consumeKeywords("not", "deferrable") {
                modes.append("not deferrable")
            } else {
                throw syntaxError()
            }
        }
        return modes
    }

    private mutating func parseExplain() throws(SluiceError) -> Explain {
        var explain = Explain(statement: Statement(.flush))
        if isSymbol("("), peek().kind == .word, !opensQuery[index] {
            advance()
            explain.options = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in
                let name = try parser.parseLabel()
                var value: String?
                if !parser.isSymbol(","), !parser.isSymbol(")") {
                    switch parser.current.kind {
                    case .word, .string, .integer, .decimal, .quotedIdentifier: value = parser.advance().text
                    default: throw parser.syntaxError()
                    }
                }
                return ExplainOption(name: name, value: value)
            }
            try expectSymbol(")")
        } else {
            explain.isAnalyze = consumeKeyword("analyze") || consumeKeyword("analyse")
            explain.isVerbose = consumeKeyword("verbose")
        }
        let first = current
        let kind = try parseStatementKind()
        explain.statement = Statement(
            kind, sourceText: sourceText(from: first.start, to: tokens[max(index - 1, 0)].end), at: SourcePosition(first.position))
        return explain
    }

    private mutating func parseComment() throws(SluiceError) -> Comment {
        try expectKeyword("on")
        let objectType = try parseObjectType()
        let name = try parseObjectName()
        try expectKeyword("is")
        if consumeKeyword("null") { return Comment(objectType: objectType, name: name, text: nil) }
        guard current.kind == .string else { throw syntaxError() }
        return Comment(objectType: objectType, name: name, text: advance().text)
    }

    /// `ALTER kind [IF EXISTS] name …`: the rest is skipped; the binder rejects it.
    private mutating func parseAlter() throws(SluiceError) -> Statement.Kind {
        if isKeyword("role") || isKeyword("user") {
            advance()
            let name = try parseRoleName()
            if consumeKeywords("rename", "to") { return .alterRole(AlterRole(name: name, renameTo: try parseRoleName())) }
            let options = try parseRoleOptions()
            guard !options.isEmpty else { throw syntaxError() }
            return .alterRole(AlterRole(name: name, options: options))
        }
        var objectType = ""
        if consumeKeywords("materialized", "view") {
            objectType = "MATERIALIZED VIEW"
        } else if current.kind == .word {
            objectType = advance().text.uppercased()
        } else {
            throw syntaxError()
        }
        _ = consumeKeywords("if", "exists")
        var name: ObjectName?
        if current.kind == .word || current.kind == .quotedIdentifier, !Keywords.reserved.contains(current.text) {
            name = try parseObjectName()
        }
        var nesting = 0
        while !isAtEnd && !(nesting == 0 && isSymbol(";")) {
            if isSymbol("(") { nesting += 1 }
            if isSymbol(")") { nesting -= 1 }
            advance()
        }
        return .alter(objectType: objectType, name: name)
    }
}
