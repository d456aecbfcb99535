import SluiceCore

extension Parser {
    /// `CREATE [OR REPLACE] FUNCTION` after `FUNCTION`: the name, the parameters, then `RETURNS`,
    /// `LANGUAGE`, `AS`/`RETURN`, volatility and null-input behaviour in any order, as
    /// PostgreSQL takes them.
    mutating func parseCreateFunction(orReplace: Bool) throws(SluiceError) -> CreateFunction {
        let name = try parseObjectName()
        let parameters = try parseFunctionParameters()
        var returnType: TypeName?
        var language: String?
        var body: FunctionBody?
        var volatility: FunctionVolatility?
        var isStrict: Bool?
        while !isAtEnd && !isSymbol(";") {
            if consumeKeywords("returns", "null", "on", "null", "input") || consumeKeyword("strict") {
                isStrict = true
            } else if consumeKeywords("called", "on", "null", "input") {
                isStrict = false
            } else if consumeKeyword("returns") {
                guard returnType == nil else { throw syntaxError() }
                returnType = try parseTypeName()
            } else if consumeKeyword("language") {
                guard language == nil else { throw syntaxError() }
                guard current.kind == .word || current.kind == .quotedIdentifier || current.kind == .string else { throw syntaxError() }
                language = advance().text.lowercased()
            } else if consumeKeyword("as") {
                guard body == nil, current.kind == .string else { throw syntaxError() }
                body = .string(advance().text)
            } else if consumeKeyword("return") {
                guard body == nil else { throw syntaxError() }
                body = .returnExpression(try parseExpression())
            } else if current.kind == .word, let found = FunctionVolatility(rawValue: current.text.uppercased()) {
                guard volatility == nil else { throw syntaxError() }
                advance()
                volatility = found
            } else if consumeKeyword("parallel") {
                // PARALLEL SAFE|UNSAFE|RESTRICTED: taken, and meaningless here.
                guard ["safe", "unsafe", "restricted"].contains(current.text), current.kind == .word else { throw syntaxError() }
                advance()
            } else {
                throw syntaxError()
            }
        }
        guard let returnType else {
            throw SluiceError(.invalidFunctionDefinition, "function result type must be specified", position: current.position)
        }
        guard let body else {
            throw SluiceError(.invalidFunctionDefinition, "no function body specified", position: current.position)
        }
        return CreateFunction(
            name: name, orReplace: orReplace, parameters: parameters, returnType: returnType, language: language, body: body,
            volatility: volatility, isStrict: isStrict)
    }

    /// `( [[IN] [name] type [, …]] )`. A parameter's first word is its name unless it reads as a
    /// whole type by itself (`f(int)`, `f(double precision)`).
    mutating func parseFunctionParameters() throws(SluiceError) -> [FunctionParameter] {
        try expectSymbol("(")
        if consumeSymbol(")") { return [] }
        let parameters = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in try parser.parseFunctionParameter() }
        try expectSymbol(")")
        return parameters
    }

    private mutating func parseFunctionParameter() throws(SluiceError) -> FunctionParameter {
        if isKeyword("in"), !isSymbol(",", at: 1), !isSymbol(")", at: 1) { advance() }
        if isKeyword("out") || isKeyword("inout") || isKeyword("variadic") {
            throw SluiceError(.featureNotSupported, "\(current.text.uppercased()) parameters are not supported", position: current.position)
        }
        let start = index
        let startDepth = depth
        if let type = try? parseTypeName(), isSymbol(",") || isSymbol(")") {
            return FunctionParameter(type: type)
        }
        index = start
        depth = startDepth
        let name = try parseIdentifier()
        let type = try parseTypeName()
        if isKeyword("default") || isSymbol("=") {
            throw SluiceError(.featureNotSupported, "parameter defaults are not supported", position: current.position)
        }
        return FunctionParameter(name: name, type: type)
    }

    /// `DROP FUNCTION [IF EXISTS] name [(argtypes)], … [CASCADE|RESTRICT]`.
    mutating func parseDropFunction() throws(SluiceError) -> DropFunction {
        advance()
        advance()
        let ifExists = consumeKeywords("if", "exists")
        let targets = try parseCommaSeparated { (parser: inout Parser) throws(SluiceError) in
            let name = try parser.parseObjectName()
            guard parser.isSymbol("(") else { return DropFunction.Target(name: name) }
            return DropFunction.Target(name: name, parameterTypes: try parser.parseFunctionParameters().map(\.type))
        }
        var cascade = false
        if consumeKeyword("cascade") { cascade = true } else { _ = consumeKeyword("restrict") }
        return DropFunction(ifExists: ifExists, targets: targets, cascade: cascade)
    }
}
