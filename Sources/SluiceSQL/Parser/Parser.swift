import SluiceCore

/// A recursive-descent parser over the tokens of one SQL text.
///
/// Recursion is bounded by ``maximumDepth`` so that deeply nested input fails with
/// `54001 stack depth limit exceeded` instead of overflowing the stack.
struct Parser {
    /// Nesting depth allowed for expressions and queries, as Postgres's default `max_stack_depth`
    /// allows about this many levels.
    static let maximumDepth = 1_000

    let bytes: [UInt8]
    var tokens: [Token]
    var index = 0
    var depth = 0
    /// For each `(` token: whether a run of `(` from it leads to SELECT, VALUES or WITH.
    var opensQuery: [Bool]
    /// `(` tokens at which parsing a subquery failed once, so it is not retried (keeps backtracking linear).
    var failedQueryStarts: Set<Int> = []
    /// Every `key = value` option parsed: its key, its value and the bytes the value was written
    /// in, for ``SQLParser/maskingSecrets(in:)``.
    var optionValueSpans: [(key: String, value: OptionValue, bytes: Range<Int>)] = []
    /// Where the last ksqlDB query's own text ended (before `EMIT CHANGES`).
    var queryTextEnd = 0
    /// ksqlDB's SQL (``SQLParser/parseKsql(_:)``): `a->b` reads a struct's field.
    var isKsql = false
    let stackGuard = StackGuard()
    /// With JDBC's and Trino's `?` placeholders: the parameter number of each `?` token (by
    /// token index, counted left to right, so backtracking cannot renumber them); nil: `?` is
    /// an operator character, as in Postgres.
    var questionMarkNumbers: [Int: Int]?

    init(_ sql: String, questionMarkParameters: Bool) throws(SluiceError) {
        try self.init(sql)
        guard questionMarkParameters else { return }
        var numbers: [Int: Int] = [:]
        for (tokenIndex, token) in tokens.enumerated() where token.kind == .symbol && token.text == "?" {
            numbers[tokenIndex] = numbers.count + 1
        }
        questionMarkNumbers = numbers
    }

    init(_ sql: String) throws(SluiceError) {
        var lexer = Lexer(sql)
        let tokens = try lexer.tokenize()
        self.bytes = lexer.bytes
        self.tokens = tokens
        self.opensQuery = Array(repeating: false, count: tokens.count)
        var tokenIndex = tokens.count - 2
        while tokenIndex >= 0 {
            if tokens[tokenIndex].kind == .symbol && tokens[tokenIndex].text == "(" {
                let next = tokens[tokenIndex + 1]
                if next.kind == .word {
                    opensQuery[tokenIndex] = next.text == "select" || next.text == "values" || next.text == "with"
                } else if next.kind == .symbol && next.text == "(" {
                    opensQuery[tokenIndex] = opensQuery[tokenIndex + 1]
                }
            }
            tokenIndex -= 1
        }
    }

    // MARK: Cursor

    var current: Token { tokens[min(index, tokens.count - 1)] }

    func peek(_ offset: Int = 1) -> Token {
        tokens[min(index + offset, tokens.count - 1)]
    }

    var isAtEnd: Bool { current.kind == .end }

    @discardableResult
    mutating func advance() -> Token {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    var position: SourcePosition { SourcePosition(current.position) }

    // MARK: Keywords and symbols

    func isKeyword(_ keyword: String) -> Bool {
        current.kind == .word && current.text == keyword
    }

    func isKeyword(_ keyword: String, at offset: Int) -> Bool {
        let token = peek(offset)
        return token.kind == .word && token.text == keyword
    }

    mutating func consumeKeyword(_ keyword: String) -> Bool {
        guard isKeyword(keyword) else { return false }
        advance()
        return true
    }

    /// Consumes the words in order if all of them come next.
    mutating func consumeKeywords(_ keywords: String...) -> Bool {
        for (offset, keyword) in keywords.enumerated() where !isKeyword(keyword, at: offset) { return false }
        index = min(index + keywords.count, tokens.count - 1)
        return true
    }

    mutating func expectKeyword(_ keyword: String) throws(SluiceError) {
        guard consumeKeyword(keyword) else { throw syntaxError() }
    }

    func isSymbol(_ symbol: String) -> Bool {
        current.kind == .symbol && current.text == symbol
    }

    func isSymbol(_ symbol: String, at offset: Int) -> Bool {
        let token = peek(offset)
        return token.kind == .symbol && token.text == symbol
    }

    mutating func consumeSymbol(_ symbol: String) -> Bool {
        guard isSymbol(symbol) else { return false }
        advance()
        return true
    }

    mutating func expectSymbol(_ symbol: String) throws(SluiceError) {
        guard consumeSymbol(symbol) else { throw syntaxError() }
    }

    // MARK: Identifiers

    /// An identifier: a quoted identifier, or a word that is not reserved.
    mutating func parseIdentifier() throws(SluiceError) -> String {
        switch current.kind {
        case .quotedIdentifier:
            return advance().text
        case .word where !Keywords.reserved.contains(current.text):
            return advance().text
        default:
            throw syntaxError()
        }
    }

    /// A column-position identifier: also excludes `type_func_name` keywords such as `join`.
    mutating func parseColumnIdentifier() throws(SluiceError) -> String {
        if current.kind == .word && Keywords.typeOrFunctionOnly.contains(current.text) { throw syntaxError() }
        return try parseIdentifier()
    }

    /// Any identifier or keyword, as after `AS` or a dot (`ColLabel`).
    mutating func parseLabel() throws(SluiceError) -> String {
        switch current.kind {
        case .quotedIdentifier, .word: return advance().text
        default: throw syntaxError()
        }
    }

    /// `a.b.c`.
    mutating func parseObjectName() throws(SluiceError) -> ObjectName {
        var parts = [try parseColumnIdentifier()]
        while isSymbol("."), peek().kind == .word || peek().kind == .quotedIdentifier {
            advance()
            parts.append(try parseLabel())
        }
        return ObjectName(parts)
    }

    /// `(a, b, c)`.
    mutating func parseParenthesizedIdentifiers() throws(SluiceError) -> [String] {
        try expectSymbol("(")
        var names = [try parseColumnIdentifier()]
        while consumeSymbol(",") { names.append(try parseColumnIdentifier()) }
        try expectSymbol(")")
        return names
    }

    /// Parses `item` repeatedly, separated by commas.
    mutating func parseCommaSeparated<Item>(_ item: (inout Parser) throws(SluiceError) -> Item) throws(SluiceError) -> [Item] {
        var items = [try item(&self)]
        while consumeSymbol(",") { items.append(try item(&self)) }
        return items
    }

    // MARK: Errors and depth

    /// `syntax error at or near "…"` at the current token, or `at end of input`.
    func syntaxError() -> SluiceError {
        syntaxError(at: current)
    }

    func syntaxError(at token: Token) -> SluiceError {
        if token.kind == .end {
            return SluiceError(.syntaxError, "syntax error at end of input", position: token.position)
        }
        return SluiceError(.syntaxError, "syntax error at or near \"\(rawText(of: token))\"", position: token.position)
    }

    func rawText(of token: Token) -> String {
        String(decoding: bytes[token.start..<token.end], as: UTF8.self)
    }

    func sourceText(from start: Int, to end: Int) -> String {
        String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
    }

    /// Enters one level of nesting; pair with `depth -= 1` in a `defer`. Fails when the nesting
    /// passes ``maximumDepth`` or the thread's stack runs low, whichever comes first.
    mutating func descend() throws(SluiceError) {
        depth += 1
        if depth > Self.maximumDepth || !stackGuard.hasRoom() { throw tooDeep() }
    }

    /// Adds a link to a left-deep chain (`a + b + c`, `x UNION y UNION z`, `t JOIN u JOIN v`).
    /// The parser loops over a chain, but its tree grows a level per link, and the binder, the
    /// optimizer and the executor recurse that deep: a chain counts as nesting.
    func extendChain(_ links: inout Int) throws(SluiceError) {
        links += 1
        if depth + links > Self.maximumDepth { throw tooDeep() }
    }

    private func tooDeep() -> SluiceError {
        SluiceError(
            .statementTooComplex, "stack depth limit exceeded",
            hint: "Nesting deeper than \(Self.maximumDepth) levels is not supported.", position: current.position)
    }
}
