import SluiceCore

// PostgreSQL's grammar for COPY (gram.y `CopyStmt`), both the parenthesized option list and the
// option words of the syntax before 9.0, which map onto the same options.
extension Parser {
    mutating func parseCopy() throws(SluiceError) -> Copy {
        advance()
        var options: [CopyOption] = []
        if consumeKeyword("binary") { options.append(CopyOption(name: "format", argument: .text("binary"))) }
        let relation: Copy.Relation
        if consumeSymbol("(") {
            let query = try parseQuery()
            try expectSymbol(")")
            relation = .query(query)
        } else {
            let name = try parseObjectName()
            relation = .table(name, columns: isSymbol("(") ? try parseParenthesizedIdentifiers() : [])
        }
        let isFrom: Bool
        if consumeKeyword("from") {
            isFrom = true
        } else {
            try expectKeyword("to")
            isFrom = false
        }
        if case .query = relation, isFrom { throw syntaxError() }
        let endpoint: Copy.Endpoint
        if consumeKeyword("program") {
            endpoint = .program(try parseCopyString())
        } else if current.kind == .string {
            endpoint = .file(advance().text)
        } else if isFrom ? consumeKeyword("stdin") : consumeKeyword("stdout") {
            endpoint = .client
        } else {
            throw syntaxError()
        }
        // `[USING] DELIMITERS 'x'`, older still.
        if consumeKeywords("using", "delimiters") || consumeKeyword("delimiters") {
            options.append(CopyOption(name: "delimiter", argument: .text(try parseCopyString())))
        }
        let hasWith = consumeKeyword("with")
        if consumeSymbol("(") {
            options += try parseCommaSeparated { (parser) throws(SluiceError) in try parser.parseCopyGenericOption() }
            try expectSymbol(")")
        } else {
            while let option = try parseCopyLegacyOption() { options.append(option) }
            if hasWith, options.isEmpty { throw syntaxError() }
        }
        return Copy(relation: relation, isFrom: isFrom, endpoint: endpoint, options: options)
    }

    /// `name [argument]` in the parenthesized list (`copy_generic_opt_elem`).
    private mutating func parseCopyGenericOption() throws(SluiceError) -> CopyOption {
        let name = try parseLabel()
        switch current.kind {
        case .string, .integer, .decimal, .word:
            return CopyOption(name: name, argument: .text(advance().text))
        case .symbol where current.text == "*":
            advance()
            return CopyOption(name: name, argument: .star)
        case .symbol where current.text == "(":
            return CopyOption(name: name, argument: .columns(try parseParenthesizedIdentifiers()))
        case .symbol where current.text == "-" && (peek().kind == .integer || peek().kind == .decimal):
            advance()
            return CopyOption(name: name, argument: .text("-" + advance().text))
        case .symbol, .quotedIdentifier, .parameter, .end:
            return CopyOption(name: name)
        }
    }

    /// One option word of the old syntax (`copy_opt_item`), or nil when none comes next.
    private mutating func parseCopyLegacyOption() throws(SluiceError) -> CopyOption? {
        guard current.kind == .word else { return nil }
        switch current.text {
        case "binary":
            advance()
            return CopyOption(name: "format", argument: .text("binary"))
        case "csv":
            advance()
            return CopyOption(name: "format", argument: .text("csv"))
        case "header":
            advance()
            return CopyOption(name: "header", argument: .text("true"))
        case "freeze":
            advance()
            return CopyOption(name: "freeze", argument: .text("true"))
        case "delimiter", "null", "quote", "escape", "encoding":
            let name = advance().text
            _ = consumeKeyword("as")
            return CopyOption(name: name, argument: .text(try parseCopyString()))
        case "force":
            advance()
            if consumeKeyword("quote") {
                if consumeSymbol("*") { return CopyOption(name: "force_quote", argument: .star) }
                return CopyOption(name: "force_quote", argument: .columns(try parseCopyColumnList()))
            }
            if consumeKeywords("not", "null") {
                return CopyOption(name: "force_not_null", argument: .columns(try parseCopyColumnList()))
            }
            try expectKeyword("null")
            return CopyOption(name: "force_null", argument: .columns(try parseCopyColumnList()))
        default:
            return nil
        }
    }

    /// `a, b` without parentheses (the old syntax's `columnList`).
    private mutating func parseCopyColumnList() throws(SluiceError) -> [String] {
        try parseCommaSeparated { (parser) throws(SluiceError) in try parser.parseColumnIdentifier() }
    }

    private mutating func parseCopyString() throws(SluiceError) -> String {
        guard current.kind == .string else { throw syntaxError() }
        return advance().text
    }
}
