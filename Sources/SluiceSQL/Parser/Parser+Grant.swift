import SluiceCore

extension Parser {
    /// `GRANT …` and `REVOKE …` of privileges on relations, schemas and databases, in Postgres's
    /// grammar with RisingWave's object kinds (`SOURCE`, `SINK`, `MATERIALIZED VIEW`).
    mutating func parseGrant() throws(SluiceError) -> Grant {
        let isRevoke = advance().text == "revoke"
        var grantOption = false
        if isRevoke, consumeKeywords("grant", "option", "for") { grantOption = true }
        let privileges = try parsePrivileges()
        try expectKeyword("on")
        let target = try parseGrantTarget()
        let tail = try parseGranteesAndOptions(isRevoke: isRevoke, option: "grant")
        return Grant(
            isRevoke: isRevoke, privileges: privileges, target: target, grantees: tail.grantees, grantOption: grantOption || tail.option,
            grantedBy: tail.grantedBy, cascade: tail.cascade)
    }

    /// Whether the GRANT or REVOKE at the cursor is of membership in roles: its list ends at TO or
    /// FROM with no ON before (`GRANT reader TO bob`), or it revokes ADMIN OPTION FOR.
    var isRoleGrant: Bool {
        if isKeyword("revoke"), isKeyword("admin", at: 1) { return true }
        var offset = 1
        while true {
            let token = peek(offset)
            if token.kind == .end || (token.kind == .symbol && token.text == ";") { return false }
            if token.kind == .word {
                if token.text == "on" { return false }
                if token.text == "to" || token.text == "from" { return true }
            }
            offset += 1
        }
    }

    /// `GRANT role, … TO role, … [WITH ADMIN OPTION] [GRANTED BY role]` and
    /// `REVOKE [ADMIN OPTION FOR] role, … FROM role, … [GRANTED BY role] [CASCADE | RESTRICT]`.
    mutating func parseGrantRole() throws(SluiceError) -> GrantRole {
        let isRevoke = advance().text == "revoke"
        var adminOption = false
        if isRevoke, consumeKeywords("admin", "option", "for") { adminOption = true }
        let roles = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseRoleName() }
        let tail = try parseGranteesAndOptions(isRevoke: isRevoke, option: "admin")
        return GrantRole(
            isRevoke: isRevoke, roles: roles, grantees: tail.grantees, adminOption: adminOption || tail.option, grantedBy: tail.grantedBy,
            cascade: tail.cascade)
    }

    /// What follows the list of privileges or roles in GRANT and REVOKE: `TO | FROM [GROUP] role,
    /// …`, then GRANT's `WITH {GRANT | ADMIN} OPTION`, `GRANTED BY role`, and REVOKE's `CASCADE |
    /// RESTRICT`.
    private mutating func parseGranteesAndOptions(
        isRevoke: Bool, option: String
    ) throws(SluiceError) -> (grantees: [String], option: Bool, grantedBy: String?, cascade: Bool) {
        try expectKeyword(isRevoke ? "from" : "to")
        let grantees = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in
            _ = parser.consumeKeyword("group")
            return try parser.parseRoleSpecification()
        }
        let withOption = !isRevoke && consumeKeywords("with", option, "option")
        var grantedBy: String?
        if consumeKeywords("granted", "by") { grantedBy = try parseRoleSpecification() }
        var cascade = false
        if isRevoke {
            if consumeKeyword("cascade") { cascade = true } else { _ = consumeKeyword("restrict") }
        }
        return (grantees, withOption, grantedBy, cascade)
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
        // A kind word is a kind only before a name: in `GRANT SELECT ON secret TO bob` it is the
        // table's name, as in Postgres (whose kind words are not reserved either).
        func isKind(_ words: String...) -> Bool {
            words.enumerated().allSatisfy { isKeyword($0.element, at: $0.offset) } && !endsObjectName(at: words.count)
        }
        var kind: ObjectType?
        if isKind("materialized", "view") {
            index += 2
            kind = .materializedView
        } else if consumeKeyword("table") {
            kind = .table
        } else if isKind("view") {
            advance()
            kind = .view
        } else if isKind("source") {
            advance()
            kind = .source
        } else if isKind("sink") {
            advance()
            kind = .sink
        } else if current.kind == .word, ["function", "sequence", "procedure", "routine", "type", "domain", "language", "tablespace", "foreign", "large", "connection", "secret", "subscription"].contains(current.text), !endsObjectName(at: 1) {
            throw SluiceError(.featureNotSupported, "GRANT on \(current.text.uppercased()) is not supported")
        }
        return .relations(kind: kind, names: try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseObjectName() })
    }

    /// Whether the token `offset` ahead ends an object name or a list of them (`TO`, `FROM`, a
    /// comma, a dot, the end), so that the word before it was a name, not a kind.
    private func endsObjectName(at offset: Int) -> Bool {
        isKeyword("to", at: offset) || isKeyword("from", at: offset) || isSymbol(",", at: offset) || isSymbol(".", at: offset)
            || isSymbol(";", at: offset) || peek(offset).kind == .end
    }

    /// A role name, `PUBLIC` (as `public`), or `CURRENT_USER` / `SESSION_USER` / `CURRENT_ROLE`
    /// (as those words, for the binder to resolve).
    private mutating func parseRoleSpecification() throws(SluiceError) -> String {
        if current.kind == .word, ["current_user", "session_user", "current_role"].contains(current.text) { return advance().text }
        return try parseRoleName()
    }
}
