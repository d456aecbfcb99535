import SluiceCore

extension Parser {
    /// `CREATE …`: tables, views, sources, sinks, indexes, schemas and databases.
    mutating func parseCreate() throws(SluiceError) -> Statement.Kind {
        advance()
        let orReplace = consumeKeywords("or", "replace")
        if consumeKeywords("materialized", "view") { return .createView(try parseCreateView(materialized: true, orReplace: orReplace)) }
        if consumeKeyword("view") { return .createView(try parseCreateView(materialized: false, orReplace: orReplace)) }
        if consumeKeyword("function") { return .createFunction(try parseCreateFunction(orReplace: orReplace)) }
        if orReplace { throw syntaxError() }
        if consumeKeyword("table") { return .createTable(try parseCreateTable()) }
        if consumeKeyword("source") { return .createSource(try parseCreateSource()) }
        if consumeKeyword("sink") { return .createSink(try parseCreateSink()) }
        if consumeKeyword("index") { return .createIndex(try parseCreateIndex(unique: false)) }
        if consumeKeywords("unique", "index") { return .createIndex(try parseCreateIndex(unique: true)) }
        if consumeKeyword("schema") {
            let ifNotExists = consumeKeywords("if", "not", "exists")
            return .createSchema(try parseObjectName(), ifNotExists: ifNotExists)
        }
        if consumeKeyword("database") {
            let ifNotExists = consumeKeywords("if", "not", "exists")
            return .createDatabase(try parseObjectName(), ifNotExists: ifNotExists)
        }
        if consumeKeyword("catalog") {
            let ifNotExists = consumeKeywords("if", "not", "exists")
            let name = try parseLabel()
            return .catalog(.create(name: name, ifNotExists: ifNotExists, options: isKeyword("with") ? try parseWithOptions() : []))
        }
        if consumeKeyword("secret") {
            let ifNotExists = consumeKeywords("if", "not", "exists")
            let name = try parseObjectName()
            let options = isKeyword("with") ? try parseWithOptions() : []
            try expectKeyword("as")
            guard current.kind == .string else { throw syntaxError() }
            let start = current.start
            let value = advance().text
            // The value is masked wherever the statement's text is shown.
            optionValueSpans.append(("secret", .string(value), start ..< tokens[index - 1].end))
            return .createSecret(name: name, ifNotExists: ifNotExists, options: options, value: value)
        }
        if isKeyword("role") || isKeyword("user") {
            let isUser = advance().text == "user"
            let name = try parseRoleName()
            return .createRole(CreateRole(name: name, isUser: isUser, options: try parseRoleOptions()))
        }
        throw syntaxError()
    }

    /// A role's name: an identifier, which may be a keyword Postgres lets name a role (`user`
    /// aside, as in Postgres, which refuses reserved words there).
    mutating func parseRoleName() throws(SluiceError) -> String {
        try parseIdentifier()
    }

    /// `[WITH] option …` of `CREATE ROLE` and `ALTER ROLE`, as Postgres spells them.
    mutating func parseRoleOptions() throws(SluiceError) -> [RoleOption] {
        _ = consumeKeyword("with")
        var options: [RoleOption] = []
        while current.kind == .word {
            let word = current.text
            let flags: [String: (Bool) -> RoleOption] = [
                "superuser": RoleOption.superuser, "createdb": RoleOption.createDB, "createrole": RoleOption.createRole,
                "login": RoleOption.login, "inherit": RoleOption.inherit, "replication": RoleOption.replication,
                "bypassrls": RoleOption.bypassRLS,
            ]
            if let make = flags[word] {
                advance()
                options.append(make(true))
            } else if word.hasPrefix("no"), let make = flags[String(word.dropFirst(2))] {
                advance()
                options.append(make(false))
            } else if word == "password" || word == "encrypted" {
                if word == "encrypted" { advance() }
                try expectKeyword("password")
                if consumeKeyword("null") {
                    options.append(.password(nil))
                } else {
                    guard current.kind == .string else { throw syntaxError() }
                    options.append(.password(advance().text))
                }
            } else if word == "connection" {
                advance()
                try expectKeyword("limit")
                let negative = consumeSymbol("-")
                guard current.kind == .integer, let limit = Int(advance().text) else { throw syntaxError() }
                options.append(.connectionLimit(negative ? -limit : limit))
            } else if word == "valid" {
                advance()
                try expectKeyword("until")
                guard current.kind == .string else { throw syntaxError() }
                options.append(.validUntil(advance().text))
            } else {
                break
            }
        }
        return options
    }

    private mutating func parseCreateTable() throws(SluiceError) -> CreateTable {
        let ifNotExists = consumeKeywords("if", "not", "exists")
        var table = CreateTable(name: try parseObjectName(), ifNotExists: ifNotExists)
        if isSymbol("("), isSymbol("*", at: 1), isSymbol(")", at: 2) {
            // `(*)`: the upstream table's columns (`FROM source TABLE '…'` must follow).
            advance(); advance(); advance()
            table.takesUpstreamColumns = true
        } else if isSymbol("(") {
            let elements = try parseTableElements()
            table.columns = elements.columns
            table.constraints = elements.constraints
            table.watermarks = elements.watermarks
        }
        table.includes = try parseIncludeColumns()
        if consumeKeywords("append", "only") { table.isAppendOnly = true }
        if consumeKeywords("on", "conflict") {
            table.onConflict = try parseConflictBehavior()
            if consumeKeywords("with", "version", "column") {
                try expectSymbol("(")
                table.versionColumn = try parseIdentifier()
                try expectSymbol(")")
            }
        }
        if isKeyword("with"), isSymbol("(", at: 1) { table.options = try parseWithOptions() }
        table.format = try parseFormatEncode()
        if consumeKeyword("from") {
            let source = try parseObjectName()
            try expectKeyword("table")
            guard current.kind == .string else { throw syntaxError() }
            table.cdcTable = CDCTableReference(source: source, upstream: advance().text)
            return table
        }
        if table.takesUpstreamColumns { throw syntaxError() }
        if consumeKeyword("validate") {
            var secret: String?
            if consumeKeyword("secret") { secret = try parseIdentifier() }
            try expectKeyword("as")
            table.validate = WebhookValidation(secret: secret, expression: try parseExpression())
        } else if consumeKeyword("as") {
            table.query = try parseQuery()
        } else if table.columns.contains(where: { $0.type == nil && !$0.constraints.contains(where: Self.isGenerated) }) {
            throw syntaxError()
        } else if table.columns.isEmpty && table.constraints.isEmpty && table.format == nil && table.options.isEmpty {
            throw syntaxError()
        }
        return table
    }

    /// `INCLUDE kind [AS name]`, repeated.
    private mutating func parseIncludeColumns() throws(SluiceError) -> [IncludeColumn] {
        var includes: [IncludeColumn] = []
        while consumeKeyword("include") {
            // The kinds are words a column name may not be (`offset`, `partition`): any word will do.
            guard current.kind == .word || current.kind == .quotedIdentifier else { throw syntaxError() }
            let kind = advance().text.lowercased()
            let alias = consumeKeyword("as") ? try parseIdentifier() : nil
            includes.append(IncludeColumn(kind: kind, alias: alias))
        }
        return includes
    }

    /// What follows `ON CONFLICT` in RisingWave's CREATE TABLE.
    private mutating func parseConflictBehavior() throws(SluiceError) -> ConflictBehavior {
        if consumeKeywords("do", "nothing") || consumeKeyword("ignore") { return .ignore }
        if consumeKeywords("do", "update", "full") || consumeKeyword("overwrite") { return .overwrite }
        if consumeKeywords("do", "update", "if", "not", "null") { return .updateIfNotNull }
        throw syntaxError()
    }

    private static func isGenerated(_ constraint: ColumnConstraint) -> Bool {
        if case .generated = constraint { return true }
        return false
    }

    private mutating func parseCreateSource() throws(SluiceError) -> CreateSource {
        let ifNotExists = consumeKeywords("if", "not", "exists")
        var source = CreateSource(name: try parseObjectName(), ifNotExists: ifNotExists)
        if isSymbol("("), peek(1).text == "*", isSymbol(")", at: 2) {
            // `(*)`: the columns are the connector's to say (RisingWave's spelling of none).
            index += 3
        } else if isSymbol("(") {
            let elements = try parseTableElements()
            source.columns = elements.columns
            source.constraints = elements.constraints
            source.watermarks = elements.watermarks
        }
        source.includes = try parseIncludeColumns()
        guard isKeyword("with") else { throw syntaxError() }
        source.options = try parseWithOptions()
        source.format = try parseFormatEncode()
        if consumeKeywords("for", "all", "tables") { source.forAllTables = true }
        return source
    }

    private mutating func parseCreateSink() throws(SluiceError) -> CreateSink {
        let ifNotExists = consumeKeywords("if", "not", "exists")
        let name = try parseObjectName()
        let input: CreateSink.Input
        if consumeKeyword("from") {
            input = .relation(try parseObjectName())
        } else if consumeKeyword("as") {
            input = .query(try parseQuery())
        } else {
            throw syntaxError()
        }
        var sink = CreateSink(name: name, ifNotExists: ifNotExists, input: input)
        if isKeyword("with") { sink.options = try parseWithOptions() }
        sink.format = try parseFormatEncode()
        return sink
    }

    private mutating func parseCreateView(materialized: Bool, orReplace: Bool) throws(SluiceError) -> CreateView {
        let ifNotExists = consumeKeywords("if", "not", "exists")
        let name = try parseObjectName()
        let columns = isSymbol("(") ? try parseParenthesizedIdentifiers() : []
        let options = isKeyword("with") ? try parseWithOptions() : []
        try expectKeyword("as")
        let first = current
        let query = try parseQuery()
        let queryText = sourceText(from: first.start, to: tokens[max(index - 1, 0)].end)
        let emitOnWindowClose = consumeKeywords("emit", "on", "window", "close")
        return CreateView(
            name: name, isMaterialized: materialized, ifNotExists: ifNotExists, orReplace: orReplace, columns: columns,
            options: options, query: query, queryText: queryText, emitOnWindowClose: emitOnWindowClose)
    }

    private mutating func parseCreateIndex(unique: Bool) throws(SluiceError) -> CreateIndex {
        let ifNotExists = consumeKeywords("if", "not", "exists")
        let name: ObjectName? = isKeyword("on") ? nil : try parseObjectName()
        try expectKeyword("on")
        let table = try parseObjectName()
        if consumeKeyword("using") { _ = try parseIdentifier() }
        try expectSymbol("(")
        let keys = try parseOrderByList()
        try expectSymbol(")")
        var index = CreateIndex(name: name, table: table, isUnique: unique, ifNotExists: ifNotExists, keys: keys)
        if consumeKeyword("include") { index.include = try parseParenthesizedIdentifiers() }
        if consumeKeywords("distributed", "by") {
            try expectSymbol("(")
            index.distributedBy = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseExpression() }
            try expectSymbol(")")
        }
        return index
    }

    // MARK: Table elements

    struct TableElements {
        var columns: [ColumnDefinition] = []
        var constraints: [TableConstraint] = []
        var watermarks: [WatermarkDefinition] = []
    }

    /// `(column definitions, table constraints, watermarks)`.
    mutating func parseTableElements() throws(SluiceError) -> TableElements {
        try expectSymbol("(")
        var elements = TableElements()
        if consumeSymbol(")") { return elements }
        repeat {
            if isKeyword("watermark"), isKeyword("for", at: 1) {
                index += 2
                let column = try parseColumnIdentifier()
                try expectKeyword("as")
                elements.watermarks.append(WatermarkDefinition(column: column, expression: try parseExpression()))
            } else if isKeyword("primary") || isKeyword("unique") || isKeyword("constraint") {
                elements.constraints.append(try parseTableConstraint())
            } else {
                elements.columns.append(try parseColumnDefinition())
            }
        } while consumeSymbol(",")
        try expectSymbol(")")
        return elements
    }

    private mutating func parseTableConstraint() throws(SluiceError) -> TableConstraint {
        let name: String? = consumeKeyword("constraint") ? try parseIdentifier() : nil
        if consumeKeywords("primary", "key") {
            let columns = try parseParenthesizedIdentifiers()
            _ = consumeKeywords("not", "enforced")
            return .primaryKey(columns, name: name)
        }
        try expectKeyword("unique")
        return .unique(try parseParenthesizedIdentifiers(), name: name)
    }

    private mutating func parseColumnDefinition() throws(SluiceError) -> ColumnDefinition {
        let start = position
        let name = try parseColumnIdentifier()
        var type: TypeName?
        if !isSymbol(","), !isSymbol(")"), !isKeyword("as") { type = try parseTypeName() }
        var column = ColumnDefinition(name: name, type: type, at: start)
        while true {
            if consumeKeywords("not", "null") {
                column.constraints.append(.notNull)
            } else if consumeKeyword("null") {
                column.constraints.append(.null)
            } else if consumeKeywords("primary", "key") {
                _ = consumeKeywords("not", "enforced")
                column.constraints.append(.primaryKey)
            } else if consumeKeyword("unique") {
                column.constraints.append(.unique)
            } else if consumeKeyword("default") {
                column.constraints.append(.defaultValue(try parseSubexpression(above: Precedence.isTest)))
            } else if consumeKeyword("as") {
                column.constraints.append(.generated(try parseExpression()))
            } else if consumeKeywords("generated", "always", "as") {
                try expectSymbol("(")
                column.constraints.append(.generated(try parseExpression()))
                try expectSymbol(")")
                _ = consumeKeyword("stored")
            } else if consumeKeyword("metadata") {
                var key: String?
                if consumeKeyword("from") {
                    guard current.kind == .string else { throw syntaxError() }
                    key = advance().text
                }
                _ = consumeKeyword("virtual")
                column.constraints.append(.metadata(key))
            } else if consumeKeyword("constraint") {
                _ = try parseIdentifier()
            } else {
                return column
            }
        }
    }

    // MARK: Options

    /// `WITH (key = value, …)`.
    mutating func parseWithOptions() throws(SluiceError) -> [WithOption] {
        try expectKeyword("with")
        return try parseOptionList()
    }

    /// `(key = value, …)`; keys are dotted words or quoted strings.
    mutating func parseOptionList() throws(SluiceError) -> [WithOption] {
        try expectSymbol("(")
        if consumeSymbol(")") { return [] }
        let options = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseOption() }
        try expectSymbol(")")
        return options
    }

    private mutating func parseOption() throws(SluiceError) -> WithOption {
        let start = position
        var key: String
        if current.kind == .string {
            key = advance().text
        } else {
            key = try parseLabel()
            while consumeSymbol(".") { key += "." + (try parseLabel()) }
        }
        try expectSymbol("=")
        let valueStart = current.start
        let value: OptionValue
        switch current.kind {
        case .string:
            value = .string(advance().text)
        case .integer, .decimal:
            value = .number(advance().text)
        case .symbol where (isSymbol("-") || isSymbol("+")) && (peek().kind == .integer || peek().kind == .decimal):
            let sign = advance().text == "-" ? "-" : ""
            value = .number(sign + advance().text)
        case .word where current.text == "secret" && (peek().kind == .word || peek().kind == .quotedIdentifier):
            advance()
            value = .secret(try parseObjectName())
        case .word, .quotedIdentifier:
            var word = advance().text
            while consumeSymbol(".") { word += "." + (try parseLabel()) }
            value = .word(word)
        default:
            throw syntaxError()
        }
        optionValueSpans.append((key, value, valueStart ..< tokens[index - 1].end))
        return WithOption(key: key, value: value, at: start)
    }

    /// `FORMAT x ENCODE y [(options)] [KEY ENCODE z]`, or nil when absent.
    mutating func parseFormatEncode() throws(SluiceError) -> FormatEncode? {
        guard consumeKeyword("format") else { return nil }
        let format = try parseLabel().uppercased()
        try expectKeyword("encode")
        var formatEncode = FormatEncode(format: format, encode: try parseLabel().uppercased())
        if isSymbol("(") { formatEncode.options = try parseOptionList() }
        if consumeKeyword("key") {
            try expectKeyword("encode")
            formatEncode.keyEncode = try parseLabel().uppercased()
        }
        return formatEncode
    }
}
