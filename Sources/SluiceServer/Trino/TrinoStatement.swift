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
    /// Anything else: SQL for the session.
    case sql(String)

    /// Recognizes `text`; a statement of ours is `.sql`.
    static func parse(_ text: String) throws(SluiceError) -> TrinoStatement {
        let tokens = try Self.tokens(text)
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
            guard tokens.count > 3 else { return .executeImmediate(statement: tokens[2].text, using: nil) }
            guard words[3] == "using", tokens.count > 4 else { throw SluiceError(.syntaxError, "line 1:1: expected USING after the statement") }
            let scalars = Array(text.unicodeScalars)
            var using = String.UnicodeScalarView(scalars[tokens[4].start...])
            while let last = using.last, last == ";" || last.properties.isWhitespace { using.removeLast() }
            return .executeImmediate(statement: tokens[2].text, using: String(using))
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

    /// A word of the statement: a name (quoted or not, with its dots) or a string.
    private struct Token {
        var text: String
        /// Where it starts in the text, in Unicode scalars.
        var start = 0
        var isQuoted = false
        var isString = false
        /// A dotted name's parts, quotes removed.
        var parts: [String] = []
    }

    private static func objectName(_ token: Token) throws(SluiceError) -> ObjectName {
        guard !token.isString, !token.parts.isEmpty, !token.parts.contains(where: \.isEmpty) else {
            throw SluiceError(.syntaxError, "line 1:1: mismatched input '\(token.text)': expected a name")
        }
        return ObjectName(token.parts)
    }

    /// Splits `text` into words: `a.b."C d"` is one token, `'…'` a string; a final `;` and
    /// whitespace are dropped. Only the statements above are read this way; others only need
    /// their first words.
    private static func tokens(_ text: String) throws(SluiceError) -> [Token] {
        var tokens: [Token] = []
        var characters = Array(text.unicodeScalars)
        while let last = characters.last, last == ";" || last.properties.isWhitespace { characters.removeLast() }
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.properties.isWhitespace {
                index += 1
                continue
            }
            let start = index
            if character == "'" {
                var value = String.UnicodeScalarView()
                index += 1
                while true {
                    guard index < characters.count else { throw SluiceError(.syntaxError, "line 1:1: unterminated string") }
                    if characters[index] == "'" {
                        if index + 1 < characters.count, characters[index + 1] == "'" {
                            value.append("'")
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    value.append(characters[index])
                    index += 1
                }
                tokens.append(Token(text: String(value), start: start, isString: true))
                continue
            }
            // A name: parts joined by dots, each plain or in double quotes.
            var token = Token(text: "", start: start)
            var part = String.UnicodeScalarView()
            var raw = String.UnicodeScalarView()
            while index < characters.count, !characters[index].properties.isWhitespace {
                let scalar = characters[index]
                raw.append(scalar)
                if scalar == "\"" {
                    token.isQuoted = true
                    index += 1
                    while true {
                        guard index < characters.count else { throw SluiceError(.syntaxError, "line 1:1: unterminated quoted name") }
                        raw.append(characters[index])
                        if characters[index] == "\"" {
                            if index + 1 < characters.count, characters[index + 1] == "\"" {
                                part.append("\"")
                                index += 2
                                continue
                            }
                            index += 1
                            break
                        }
                        part.append(characters[index])
                        index += 1
                    }
                    continue
                }
                if scalar == "." {
                    token.parts.append(String(part))
                    part = String.UnicodeScalarView()
                } else {
                    // Unquoted names fold to lower case, as Trino's do.
                    part.append(contentsOf: String(scalar).lowercased().unicodeScalars)
                }
                index += 1
            }
            token.parts.append(String(part))
            token.text = String(raw)
            tokens.append(token)
        }
        return tokens
    }
}
