import SluiceCore

extension Parser {
    /// A type: multi-word names, modifiers, struct types with `<…>`, and array brackets.
    mutating func parseTypeName() throws(SluiceError) -> TypeName {
        try descend()
        defer { depth -= 1 }
        let start = position
        var type: TypeName
        if (isKeyword("struct") || isKeyword("row")) && isSymbol("<", at: 1) {
            advance()
            advance()
            type = TypeName(.structure(try parseStructFields(closing: ">")), at: start)
        } else if isKeyword("row") && isSymbol("(", at: 1) {
            advance()
            advance()
            type = TypeName(.structure(try parseStructFields(closing: ")")), at: start)
        } else if isKeyword("array") && isSymbol("<", at: 1) {
            // Flink's ARRAY<t>.
            advance()
            advance()
            type = try parseTypeName()
            try expectClosingAngle()
            type.arrayDimensions += 1
            type.position = start
        } else {
            type = try parseNamedType(at: start)
        }
        while true {
            if isSymbol("["), isSymbol("]", at: 1) {
                index += 2
                type.arrayDimensions += 1
            } else if isSymbol("["), peek().kind == .integer, isSymbol("]", at: 2) {
                index += 3
                type.arrayDimensions += 1
            } else if isKeyword("array") && !isSymbol("<", at: 1) && !isSymbol("(", at: 1) && !isSymbol("[", at: 1) {
                advance()
                type.arrayDimensions += 1
            } else {
                return type
            }
        }
    }

    private mutating func parseNamedType(at start: SourcePosition) throws(SluiceError) -> TypeName {
        guard current.kind == .word || current.kind == .quotedIdentifier else { throw syntaxError() }
        if current.kind == .word && Keywords.reserved.contains(current.text) { throw syntaxError() }
        let isQuoted = current.kind == .quotedIdentifier
        let first = advance().text
        if isQuoted || isSymbol(".") {
            var parts = [first]
            while consumeSymbol(".") { parts.append(try parseLabel()) }
            return TypeName(.named(ObjectName(parts)), modifiers: try parseTypeModifiers(), at: start)
        }
        var name = first
        var modifiers: [Int] = []
        var qualifier: IntervalQualifier?
        switch first {
        case "double":
            if consumeKeyword("precision") { name = "double precision" }
        case "character", "char", "nchar":
            if consumeKeyword("varying") { name = "character varying" } else if first != "char" { name = "character" }
            modifiers = try parseTypeModifiers()
        case "national":
            guard consumeKeyword("character") || consumeKeyword("char") else { throw syntaxError() }
            name = consumeKeyword("varying") ? "character varying" : "character"
            modifiers = try parseTypeModifiers()
        case "timestamp_ltz":
            // Flink's TIMESTAMP_LTZ(p): an instant, shown in the session's zone.
            modifiers = try parseTypeModifiers()
            name = "timestamp with time zone"
        case "timestamp", "time":
            modifiers = try parseTypeModifiers()
            if consumeKeywords("with", "time", "zone") || (first == "timestamp" && consumeKeywords("with", "local", "time", "zone")) {
                name = first + " with time zone"
            } else {
                _ = consumeKeywords("without", "time", "zone")
            }
        case "interval":
            qualifier = try parseIntervalQualifier()
            if qualifier == nil { modifiers = try parseTypeModifiers() }
        default:
            modifiers = try parseTypeModifiers()
        }
        return TypeName(.named(ObjectName(name)), modifiers: modifiers, intervalQualifier: qualifier, at: start)
    }

    /// `(n [, m])` after a type name.
    private mutating func parseTypeModifiers() throws(SluiceError) -> [Int] {
        guard isSymbol("("), peek().kind == .integer else { return [] }
        advance()
        var modifiers: [Int] = []
        repeat {
            guard current.kind == .integer, let value = Int(current.text) else { throw syntaxError() }
            advance()
            modifiers.append(value)
        } while consumeSymbol(",")
        try expectSymbol(")")
        return modifiers
    }

    /// `name type, …` up to the closing `>` or `)`.
    private mutating func parseStructFields(closing: String) throws(SluiceError) -> [StructTypeField] {
        var fields: [StructTypeField] = []
        if closing == ">" && isClosingAngle() {
            try expectClosingAngle()
            return fields
        }
        repeat {
            let name = try parseLabel()
            _ = consumeSymbol(":")
            fields.append(StructTypeField(name: name, type: try parseTypeName()))
        } while consumeSymbol(",")
        if closing == ">" { try expectClosingAngle() } else { try expectSymbol(")") }
        return fields
    }

    private func isClosingAngle() -> Bool {
        isSymbol(">") || isSymbol(">>") || isSymbol(">=")
    }

    /// Consumes one `>`, splitting a `>>` or `>=` token so nested types close one at a time.
    private mutating func expectClosingAngle() throws(SluiceError) {
        if consumeSymbol(">") { return }
        guard isSymbol(">>") || isSymbol(">=") else { throw syntaxError() }
        let token = current
        tokens[index] = Token(
            kind: .symbol, text: String(token.text.dropFirst()), start: token.start + 1, end: token.end, position: token.position + 1)
    }
}
