extension CreateFunction: CustomStringConvertible {
    /// The statement in PostgreSQL's order: parameters, RETURNS, LANGUAGE, the options, the body.
    package var description: String {
        var text = "CREATE " + (orReplace ? "OR REPLACE " : "") + "FUNCTION \(name)("
        text += parameters.map(\.description).joined(separator: ", ") + ") RETURNS \(returnType)"
        if let language { text += " LANGUAGE \(language.uppercased())" }
        if let volatility { text += " \(volatility.rawValue)" }
        if let isStrict { text += isStrict ? " RETURNS NULL ON NULL INPUT" : " CALLED ON NULL INPUT" }
        switch body {
        case .string(let body): text += " AS " + quoteStringLiteral(body)
        case .returnExpression(let expression): text += " RETURN \(expression)"
        }
        return text
    }
}

extension FunctionParameter: CustomStringConvertible {
    package var description: String {
        (name.map { quoteIdentifierIfNeeded($0) + " " } ?? "") + type.description
    }
}

extension DropFunction: CustomStringConvertible {
    package var description: String {
        let names = targets.map { target in
            target.name.description + (target.parameterTypes.map { "(" + $0.map(\.description).joined(separator: ", ") + ")" } ?? "")
        }
        return "DROP FUNCTION " + (ifExists ? "IF EXISTS " : "") + names.joined(separator: ", ") + (cascade ? " CASCADE" : "")
    }
}
