import SluiceCore

/// Splits SQL text into ``Token``s, working over UTF-8 bytes.
///
/// Follows the PostgreSQL lexer (`scan.l`): unquoted identifiers fold ASCII letters to lower case,
/// `--` and nested `/* */` comments are skipped, string constants come in the `'…'`, `E'…'`,
/// `U&'…'` and dollar-quoted forms. Backquoted identifiers are accepted as in Flink SQL.
/// - Complexity: O(n) in the length of the text.
package struct Lexer {
    @usableFromInline let bytes: [UInt8]
    @usableFromInline var index = 0
    /// Characters counted in `bytes[0..<countedOffset]`.
    private var countedCharacters = 0
    private var countedOffset = 0

    package init(_ sql: String) {
        self.bytes = Array(sql.utf8)
    }

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// All tokens of the text, ending with one ``Token/Kind/end`` token.
    package mutating func tokenize() throws(SluiceError) -> [Token] {
        var tokens: [Token] = []
        tokens.reserveCapacity(bytes.count / 4 + 1)
        while true {
            let token = try nextToken()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    /// The 1-based character position of a byte offset; offsets must not decrease between calls.
    mutating func position(ofByte offset: Int) -> Int {
        if offset < countedOffset {
            countedOffset = 0
            countedCharacters = 0
        }
        while countedOffset < offset && countedOffset < bytes.count {
            if bytes[countedOffset] & 0xC0 != 0x80 { countedCharacters += 1 }
            countedOffset += 1
        }
        return countedCharacters + 1
    }

    func byte(at offset: Int) -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    func text(from start: Int, to end: Int) -> String {
        String(decoding: bytes[start..<min(end, bytes.count)], as: UTF8.self)
    }

    mutating func makeToken(_ kind: Token.Kind, _ text: String, from start: Int) -> Token {
        Token(kind: kind, text: text, start: start, end: index, position: position(ofByte: start))
    }

    mutating func error(_ message: String, from start: Int, code: SQLState = .syntaxError) -> SluiceError {
        SluiceError(code, message, position: position(ofByte: start))
    }

    private mutating func nextToken() throws(SluiceError) -> Token {
        try skipWhitespaceAndComments()
        let start = index
        guard let first = byte(at: index) else {
            return makeToken(.end, "", from: start)
        }
        switch first {
        case UInt8(ascii: "'"):
            return try lexQuotedString(escapes: false)
        case UInt8(ascii: "\""):
            return try lexQuotedIdentifier(quote: first)
        case UInt8(ascii: "`"):
            return try lexQuotedIdentifier(quote: first)
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            return lexNumber()
        case UInt8(ascii: "."):
            if let next = byte(at: index + 1), Self.isDigit(next) { return lexNumber() }
            index += 1
            return makeToken(.symbol, ".", from: start)
        case UInt8(ascii: "$"):
            if let next = byte(at: index + 1), Self.isDigit(next) {
                index += 1
                while let digit = byte(at: index), Self.isDigit(digit) { index += 1 }
                return makeToken(.parameter, text(from: start + 1, to: index), from: start)
            }
            if let dollarQuoted = try lexDollarQuotedString() { return dollarQuoted }
            index += 1
            return makeToken(.symbol, "$", from: start)
        case UInt8(ascii: "e"), UInt8(ascii: "E"):
            if byte(at: index + 1) == UInt8(ascii: "'") {
                index += 1
                return try lexQuotedString(escapes: true, from: start)
            }
            return lexWord()
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            if byte(at: index + 1) == UInt8(ascii: "&"), byte(at: index + 2) == UInt8(ascii: "'") {
                index += 2
                return try lexUnicodeString(from: start)
            }
            return lexWord()
        default:
            if Self.isIdentifierStart(first) { return lexWord() }
            return try lexOperator()
        }
    }

    private mutating func skipWhitespaceAndComments() throws(SluiceError) {
        while let current = byte(at: index) {
            if Self.isWhitespace(current) {
                index += 1
            } else if current == UInt8(ascii: "-"), byte(at: index + 1) == UInt8(ascii: "-") {
                while let inComment = byte(at: index), inComment != UInt8(ascii: "\n") { index += 1 }
            } else if current == UInt8(ascii: "/"), byte(at: index + 1) == UInt8(ascii: "*") {
                let start = index
                var nesting = 0
                while true {
                    guard let inComment = byte(at: index) else {
                        throw error("unterminated /* comment at or near \"\(text(from: start, to: bytes.count))\"", from: start)
                    }
                    if inComment == UInt8(ascii: "/"), byte(at: index + 1) == UInt8(ascii: "*") {
                        nesting += 1
                        index += 2
                    } else if inComment == UInt8(ascii: "*"), byte(at: index + 1) == UInt8(ascii: "/") {
                        nesting -= 1
                        index += 2
                        if nesting == 0 { break }
                    } else {
                        index += 1
                    }
                }
            } else {
                return
            }
        }
    }

    private mutating func lexWord() -> Token {
        let start = index
        var hasUpper = false
        while let current = byte(at: index), Self.isIdentifierContinuation(current) {
            if current >= UInt8(ascii: "A") && current <= UInt8(ascii: "Z") { hasUpper = true }
            index += 1
        }
        let word: String
        if hasUpper {
            word = String(decoding: bytes[start..<index].lazy.map(Self.lowercased), as: UTF8.self)
        } else {
            word = text(from: start, to: index)
        }
        return makeToken(.word, word, from: start)
    }

    private mutating func lexNumber() -> Token {
        let start = index
        var isDecimal = false
        while let digit = byte(at: index), Self.isDigit(digit) { index += 1 }
        if byte(at: index) == UInt8(ascii: "."), byte(at: index + 1) != UInt8(ascii: ".") {
            isDecimal = true
            index += 1
            while let digit = byte(at: index), Self.isDigit(digit) { index += 1 }
        }
        if let marker = byte(at: index), marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            var exponentIndex = index + 1
            if let sign = byte(at: exponentIndex), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                exponentIndex += 1
            }
            if let digit = byte(at: exponentIndex), Self.isDigit(digit) {
                isDecimal = true
                index = exponentIndex
                while let more = byte(at: index), Self.isDigit(more) { index += 1 }
            }
        }
        return makeToken(isDecimal ? .decimal : .integer, text(from: start, to: index), from: start)
    }

    /// Operators, longest first; anything else is a one-byte symbol.
    private static let threeByteOperators: [String] = ["->>", "#>>", "!~*", "!~~", "~~*"]
    private static let twoByteOperators: [String] = [
        "::", "->", "#>", "@>", "<@", "<>", "!=", "<=", ">=", "||", "~*", "!~", "~~", "&&", "<<", ">>",
        "=>", "?|", "?&", "#-", "@@", "|/",
    ]
    private static let oneByteOperators: Set<UInt8> = Set("+-*/%^=<>~!@#&|?()[],;.:{}".utf8)

    /// Bytes that are a token alone, never the start of a longer operator.
    private static let punctuation: [String?] = (0 ..< 128).map { byte in
        "()[],;{}".utf8.contains(UInt8(byte)) ? String(UnicodeScalar(UInt8(byte))) : nil
    }

    private mutating func lexOperator() throws(SluiceError) -> Token {
        let start = index
        if bytes[index] < 128, let text = Self.punctuation[Int(bytes[index])] {
            index += 1
            return makeToken(.symbol, text, from: start)
        }
        for candidate in Self.threeByteOperators where matches(candidate) {
            index += 3
            return makeToken(.symbol, candidate, from: start)
        }
        for candidate in Self.twoByteOperators where matches(candidate) {
            index += 2
            return makeToken(.symbol, candidate, from: start)
        }
        let first = bytes[index]
        if Self.oneByteOperators.contains(first) {
            index += 1
            return makeToken(.symbol, String(UnicodeScalar(first)), from: start)
        }
        // A stray byte: report it with the whole character it starts.
        index += 1
        while let continuation = byte(at: index), continuation & 0xC0 == 0x80 { index += 1 }
        throw error("syntax error at or near \"\(text(from: start, to: index))\"", from: start)
    }

    private func matches(_ candidate: String) -> Bool {
        var offset = index
        for expected in candidate.utf8 {
            guard byte(at: offset) == expected else { return false }
            offset += 1
        }
        return true
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C || byte == 0x0B
    }

    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    static func isIdentifierContinuation(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || isDigit(byte) || byte == UInt8(ascii: "$")
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }
}
