import SluiceCore

extension Parser {
    /// `GRANT …` and `REVOKE …` of privileges on relations, schemas and databases, in Postgres's
    /// grammar with RisingWave's object kinds (`SOURCE`, `SINK`, `MATERIALIZED VIEW`).
    mutating func parseGrant() throws(SluiceError) -> Grant {
        let isRevoke = advance().text == "revoke"
        var grantOption = false
        if isRevoke, consumeKeywords("grant", "option", "for") { grantOption = true }
        let privileges = try parsePrivileges()
        guard consumeKeyword("on") else {
            // `GRANT role TO role`: membership in a role.
            throw SluiceError(.featureNotSupported, "granting membership in a role is not supported yet", hint: "Grant privileges on objects to each user.")
        }
        let target = try parseGrantTarget()
        try expectKeyword(isRevoke ? "from" : "to")
        let grantees = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in
            _ = parser.consumeKeyword("group")
            return try parser.parseRoleSpecification()
        }
        if !isRevoke, consumeKeywords("with", "grant", "option") { grantOption = true }
        var grantedBy: String?
        if consumeKeywords("granted", "by") { grantedBy = try parseRoleSpecification() }
        var cascade = false
        if isRevoke {
            if consumeKeyword("cascade") { cascade = true } else { _ = consumeKeyword("restrict") }
        }
        return Grant(
            isRevoke: isRevoke, privileges: privileges, target: target, grantees: grantees, grantOption: grantOption,
            grantedBy: grantedBy, cascade: cascade)
    }

    /// `ALL [PRIVILEGES]` (nil) or a list of privilege words.
    private mutating func parsePrivileges() throws(SluiceError) -> [Privilege]? {
        if consumeKeyword("all") {
            _ = consumeKeyword("privileges")
            if isSymbol("(") { throw SluiceError(.featureNotSupported, "column privileges are not supported yet") }
            return nil
        }
        return try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) -> Privilege in
            guard parser.current.kind == .word else { throw parser.syntaxError() }
            let word = parser.current.text == "temp" ? "temporary" : parser.current.text
            guard let privilege = Privilege(rawValue: word.uppercased()) else {
                // A word that is no privilege before TO or a comma: `GRANT role, … TO …`.
                if parser.isKeyword("to", at: 1) || parser.isKeyword("from", at: 1) || parser.isSymbol(",", at: 1) {
                    throw SluiceError(.featureNotSupported, "granting membership in a role is not supported yet", hint: "Grant privileges on objects to each user.")
                }
                throw SluiceError(.syntaxError, "unrecognized privilege type \"\(parser.current.text)\"")
            }
            parser.advance()
            if parser.isSymbol("(") { throw SluiceError(.featureNotSupported, "column privileges are not supported yet") }
            return privilege
        }
    }

    private mutating func parseGrantTarget() throws(SluiceError) -> GrantTarget {
        if consumeKeyword("schema") { return .schemas(try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseObjectName() }) }
        if consumeKeyword("database") { return .databases(try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseObjectName() }) }
        if isKeyword("all") {
            let kinds: [(words: [String], kind: ObjectType)] = [
                (["tables"], .table), (["views"], .view), (["materialized", "views"], .materializedView), (["sources"], .source),
                (["sinks"], .sink),
            ]
            for (words, kind) in kinds where words.enumerated().allSatisfy({ isKeyword($0.element, at: 1 + $0.offset) }) {
                index = min(index + 1 + words.count, tokens.count - 1)
                try expectKeyword("in")
                try expectKeyword("schema")
                return .allInSchemas(kind: kind, schemas: try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseObjectName() })
            }
            throw syntaxError()
        }
        var kind: ObjectType?
        if consumeKeywords("materialized", "view") {
            kind = .materializedView
        } else if consumeKeyword("table") {
            kind = .table
        } else if consumeKeyword("view") {
            kind = .view
        } else if consumeKeyword("source") {
            kind = .source
        } else if consumeKeyword("sink") {
            kind = .sink
        } else if current.kind == .word, ["function", "sequence", "procedure", "routine", "type", "domain", "language", "tablespace", "foreign", "large", "connection", "secret", "subscription"].contains(current.text) {
            throw SluiceError(.featureNotSupported, "GRANT on \(current.text.uppercased()) is not supported")
        }
        return .relations(kind: kind, names: try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseObjectName() })
    }

    /// A role name, `PUBLIC` (as `public`), or `CURRENT_USER` / `SESSION_USER` / `CURRENT_ROLE`
    /// (as those words, for the binder to resolve).
    private mutating func parseRoleSpecification() throws(SluiceError) -> String {
        if current.kind == .word, ["current_user", "session_user", "current_role"].contains(current.text) { return advance().text }
        return try parseRoleName()
    }
}
