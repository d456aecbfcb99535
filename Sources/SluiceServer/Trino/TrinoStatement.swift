import SluiceCore
import SluiceSQL

/// The statements of Trino's SQL that the door answers itself, from the catalogs, where Trino's
/// differ from ours (`SHOW CATALOGS`, `SHOW SCHEMAS FROM c`, `SHOW TABLES FROM c.s`, `DESCRIBE
/// t` with Trino's columns, `USE c.s`); every other statement goes to the SQL session as it is.
enum TrinoStatement: Equatable {
    case showCatalogs(like: String?)
    case showSchemas(catalog: String?, like: String?)
    case showTables(schema: ObjectName?, like: String?)
    case describe(ObjectName)
    case use(catalog: String?, schema: String)
    /// `EXECUTE IMMEDIATE 'statement' [USING value, …]`: the statement with its `?` bound to the
    /// values (the text after USING, a list of constants), as Trino's clients send parameters.
    case executeImmediate(statement: String, using: String?)
    /// `PREPARE name FROM statement`: the client keeps the statement (Trino's
    /// `X-Trino-Added-Prepare`) and sends it back with each request.
    case prepare(name: String, statement: String)
    /// `EXECUTE name [USING value, …]`: a statement the client sent back in
    /// `X-Trino-Prepared-Statement`, its `?` bound to the values.
    case execute(name: String, using: String?)
    /// `DEALLOCATE PREPARE name`: the client forgets the statement.
    case deallocate(name: String)
    /// Anything else: SQL for the session.
    case sql(String)

    /// Recognizes `text`; a statement of ours is `.sql`.
    static func parse(_ text: String) throws(SluiceError) -> TrinoStatement {
        // What the SQL lexer cannot read is the session's to refuse, with its own error.
        guard let tokens = try? Self.tokens(text) else { return .sql(text) }
        let words = tokens.map { $0.isQuoted ? "" : $0.text.lowercased() }
        func name(at index: Int) throws(SluiceError) -> ObjectName {
            guard index < tokens.count, index == tokens.count - 1 || words[index + 1] == "like" else {
                throw SluiceError(.syntaxError, "line 1:1: mismatched input: expected a name")
            }
            return try objectName(tokens[index])
        }
        func like(after index: Int) throws(SluiceError) -> String? {
            guard index < tokens.count else { return nil }
            guard words[index] == "like", index + 2 == tokens.count, tokens[index + 1].isString else {
                throw SluiceError(.syntaxError, "line 1:1: mismatched input '\(tokens[index].text)'")
            }
            return tokens[index + 1].text
        }
        /// The values after `USING` at token `index` (nil when the statement ends there).
        func using(at index: Int) throws(SluiceError) -> String? {
            guard tokens.count > index else { return nil }
            guard words[index] == "using", tokens.count > index + 1 else {
                throw SluiceError(.syntaxError, "line 1:1: mismatched input '\(tokens[index].text)': expected USING")
            }
            var using = String(decoding: Array(text.utf8)[tokens[index + 1].start...], as: UTF8.self)
            while let last = using.last, last == ";" || last.isWhitespace { using.removeLast() }
            return using
        }
        switch (words.first, words.count > 1 ? words[1] : nil) {
        case ("show", "catalogs"?):
            return .showCatalogs(like: try like(after: 2))
        case ("show", "schemas"?):
            if tokens.count > 2, words[2] == "from" || words[2] == "in" {
                let catalog = try name(at: 3)
                guard catalog.parts.count == 1 else { throw SluiceError(.syntaxError, "line 1:1: expected a catalog name") }
                return .showSchemas(catalog: catalog.name, like: try like(after: 4))
            }
            return .showSchemas(catalog: nil, like: try like(after: 2))
        case ("show", "tables"?):
            if tokens.count > 2, words[2] == "from" || words[2] == "in" {
                return .showTables(schema: try name(at: 3), like: try like(after: 4))
            }
            return .showTables(schema: nil, like: try like(after: 2))
        case ("show", "columns"?) where tokens.count == 4 && (words[2] == "from" || words[2] == "in"):
            return .describe(try objectName(tokens[3]))
        case ("describe", _) where tokens.count == 2, ("desc", _) where tokens.count == 2:
            return .describe(try objectName(tokens[1]))
        case ("execute", "immediate"?) where tokens.count >= 3 && tokens[2].isString:
            return .executeImmediate(statement: tokens[2].text, using: try using(at: 3))
        case ("execute", _?) where tokens.count >= 2:
            return .execute(name: try preparedName(tokens[1]), using: try using(at: 2))
        case ("prepare", _?) where tokens.count >= 4 && words[2] == "from":
            var statement = String(decoding: Array(text.utf8)[tokens[3].start...], as: UTF8.self)
            while let last = statement.last, last == ";" || last.isWhitespace { statement.removeLast() }
            return .prepare(name: try preparedName(tokens[1]), statement: statement)
        case ("deallocate", "prepare"?) where tokens.count == 3:
            return .deallocate(name: try preparedName(tokens[2]))
        case ("use", _) where tokens.count == 2:
            let target = try objectName(tokens[1])
            switch target.parts.count {
            case 1: return .use(catalog: nil, schema: target.parts[0])
            case 2: return .use(catalog: target.parts[0], schema: target.parts[1])
            default: throw SluiceError(.syntaxError, "line 1:5: USE takes catalog.schema or schema")
            }
        default:
            return .sql(text)
        }
    }

    /// A prepared statement's name: one identifier.
    private static func preparedName(_ token: Token) throws(SluiceError) -> String {
        guard !token.isString, token.parts.count == 1, !token.parts[0].isEmpty else {
            throw SluiceError(.syntaxError, "line 1:1: mismatched input '\(token.text)': expected a prepared statement's name")
        }
        return token.parts[0]
    }

    /// A word of the statement: a name (quoted or not, with its dots), a string, or a symbol.
    private struct Token {
        var text: String
        /// Where it starts in the text, in UTF-8 bytes.
        var start = 0
        var isQuoted = false
        var isString = false
        /// A dotted name's parts, quotes removed, unquoted ones folded to lower case.
        var parts: [String] = []
    }

    private static func objectName(_ token: Token) throws(SluiceError) -> ObjectName {
        guard !token.isString, !token.parts.isEmpty, !token.parts.contains(where: \.isEmpty) else {
            throw SluiceError(.syntaxError, "line 1:1: mismatched input '\(token.text)': expected a name")
        }
        return ObjectName(token.parts)
    }

    /// The statement's words, from the SQL lexer: `a.b."C d"` is one token, `'…'` a string; a
    /// final `;` is dropped. Only the statements above are read this way; others only need
    /// their first words.
    private static func tokens(_ text: String) throws(SluiceError) -> [Token] {
        var lexer = Lexer(text)
        var lexed = try lexer.tokenize()
        while let last = lexed.last, last.kind == .end || (last.kind == .symbol && last.text == ";") { lexed.removeLast() }
        var tokens: [Token] = []
        var index = 0
        while index < lexed.count {
            let token = lexed[index]
            index += 1
            switch token.kind {
            case .string:
                tokens.append(Token(text: token.text, start: token.start, isString: true))
            case .word, .quotedIdentifier:
                // A dotted name: its parts, each a word or a quoted identifier.
                var name = Token(text: token.text, start: token.start, isQuoted: token.kind == .quotedIdentifier, parts: [token.text])
                while index + 1 < lexed.count, lexed[index].kind == .symbol, lexed[index].text == ".",
                      lexed[index + 1].kind == .word || lexed[index + 1].kind == .quotedIdentifier {
                    name.isQuoted = name.isQuoted || lexed[index + 1].kind == .quotedIdentifier
                    name.parts.append(lexed[index + 1].text)
                    name.text += "." + lexed[index + 1].text
                    index += 2
                }
                tokens.append(name)
            default:
                tokens.append(Token(text: token.text, start: token.start))
            }
        }
        return tokens
    }
}
