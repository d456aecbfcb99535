extension Copy: CustomStringConvertible {
    /// The statement in the parenthesized-options syntax.
    package var description: String {
        var text = "COPY "
        switch relation {
        case .table(let name, let columns):
            text += name.description
            if !columns.isEmpty { text += " (" + columns.map(quoteIdentifierIfNeeded).joined(separator: ", ") + ")" }
        case .query(let query):
            text += "(\(query))"
        }
        text += isFrom ? " FROM " : " TO "
        switch endpoint {
        case .client: text += isFrom ? "STDIN" : "STDOUT"
        case .file(let path): text += quoteStringLiteral(path)
        case .program(let command): text += "PROGRAM " + quoteStringLiteral(command)
        }
        if !options.isEmpty { text += " (" + options.map(\.description).joined(separator: ", ") + ")" }
        return text
    }
}

extension CopyOption: CustomStringConvertible {
    package var description: String {
        // Any word is an option name (keywords too), so only other spellings are quoted.
        let isWord = !name.isEmpty && name.unicodeScalars.allSatisfy { ("a" ... "z").contains($0) || $0 == "_" }
        let name = isWord ? name : "\"" + name.replacing("\"", with: "\"\"") + "\""
        return switch argument {
        case nil: name
        case .text(let value): "\(name) \(quoteStringLiteral(value))"
        case .star: "\(name) *"
        case .columns(let columns): "\(name) (" + columns.map(quoteIdentifierIfNeeded).joined(separator: ", ") + ")"
        }
    }
}
