import SluiceCore

/// A compiled SQL `LIKE` pattern: `%` matches any run of characters, `_` exactly one character,
/// and the escape character (a backslash unless `ESCAPE` names another, none for `ESCAPE ''`)
/// makes the next character literal.
///
/// Matching works on UTF-8 bytes: literals compare byte-wise and `_` steps over one whole
/// character. As in Postgres, a pattern ending in a lone backslash is only an error when the
/// match reaches it with text left over (SQLSTATE 22025).
struct LikePattern {
    enum Token: Equatable {
        case literal([UInt8])
        /// `_`
        case anyCharacter
        /// `%`
        case anySequence
        /// A trailing escape character with nothing to escape.
        case danglingEscape
    }

    let tokens: [Token]

    /// Compiles `pattern`; `escape` is the UTF-8 of the escape character, nil for none.
    init(_ pattern: UnsafeBufferPointer<UInt8>, escape: [UInt8]? = [UInt8(ascii: "\\")]) {
        var tokens: [Token] = []
        var literal: [UInt8] = []
        func flush() {
            if !literal.isEmpty { tokens.append(.literal(literal)) }
            literal.removeAll(keepingCapacity: true)
        }
        var offset = 0
        while offset < pattern.count {
            // The escape character is looked at first, so that `ESCAPE '%'` makes `%%` a literal `%`.
            if let escape, Self.bytes(pattern, at: offset, startWith: escape) {
                offset += escape.count
                if offset == pattern.count {
                    flush()
                    tokens.append(.danglingEscape)
                } else {
                    let length = UTF8Bytes.characterLength(at: offset, in: pattern)
                    literal.append(contentsOf: pattern[offset ..< offset + length])
                    offset += length
                }
                continue
            }
            switch pattern[offset] {
            case UInt8(ascii: "%"):
                flush()
                if tokens.last != .anySequence { tokens.append(.anySequence) }
                offset += 1
            case UInt8(ascii: "_"):
                flush()
                tokens.append(.anyCharacter)
                offset += 1
            default:
                let length = UTF8Bytes.characterLength(at: offset, in: pattern)
                literal.append(contentsOf: pattern[offset ..< offset + length])
                offset += length
            }
        }
        flush()
        self.tokens = tokens
    }

    /// Whether `text` matches the whole pattern.
    /// - Complexity: O(text × pattern) in the worst case, linear without `%`.
    func matches(_ text: UnsafeBufferPointer<UInt8>) throws(SluiceError) -> Bool {
        var textOffset = 0
        var tokenIndex = 0
        // The most recent `%` and where in the text its match currently ends; on a mismatch the
        // `%` absorbs one more character and matching resumes after it.
        var starToken = -1
        var starTextOffset = 0
        while true {
            if tokenIndex < tokens.count {
                switch tokens[tokenIndex] {
                case .anySequence:
                    starToken = tokenIndex
                    starTextOffset = textOffset
                    tokenIndex += 1
                    continue
                case .anyCharacter:
                    if textOffset < text.count {
                        textOffset += UTF8Bytes.characterLength(at: textOffset, in: text)
                        tokenIndex += 1
                        continue
                    }
                case .literal(let bytes):
                    if bytes.count <= text.count - textOffset, Self.bytes(text, at: textOffset, equal: bytes) {
                        textOffset += bytes.count
                        tokenIndex += 1
                        continue
                    }
                case .danglingEscape:
                    if textOffset < text.count {
                        throw SluiceError(SQLState("22025"), "LIKE pattern must not end with escape character")
                    }
                }
            } else if textOffset == text.count {
                return true
            }
            guard starToken >= 0, starTextOffset < text.count else { return false }
            starTextOffset += UTF8Bytes.characterLength(at: starTextOffset, in: text)
            textOffset = starTextOffset
            tokenIndex = starToken + 1
        }
    }

    private static func bytes(_ text: UnsafeBufferPointer<UInt8>, at offset: Int, startWith prefix: [UInt8]) -> Bool {
        prefix.count <= text.count - offset && bytes(text, at: offset, equal: prefix)
    }

    @inline(__always)
    private static func bytes(_ text: UnsafeBufferPointer<UInt8>, at offset: Int, equal literal: [UInt8]) -> Bool {
        for index in literal.indices where text[offset + index] != literal[index] { return false }
        return true
    }
}

/// The `LIKE`/`ILIKE` family of operators.
enum PatternMatching {
    /// `text [NOT] LIKE pattern` or `ILIKE`: the pattern is compiled once per distinct value in a
    /// call, so a constant pattern column compiles once.
    /// With `withEscape`, a third argument is the `ESCAPE` string: empty for none, else one character.
    static func like(negated: Bool, caseInsensitive: Bool, withEscape: Bool = false) -> ScalarFunction {
        let name = (negated ? "not " : "") + (caseInsensitive ? "ilike" : "like")
        let argumentTypes: [DataType] = withEscape ? [.varchar, .varchar, .varchar] : [.varchar, .varchar]
        return ScalarFunction(name: name, argumentTypes: argumentTypes, resultType: .boolean) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let text = StringArgument(arguments[0])
            let pattern = StringArgument(arguments[1])
            let escape = withEscape ? StringArgument(arguments[2]) : nil
            var cachedPatternBytes: ArraySlice<UInt8>? = nil
            var cachedEscapeBytes: ArraySlice<UInt8>? = nil
            var compiled = LikePattern(UnsafeBufferPointer(start: nil, count: 0))
            var foldedText: [UInt8] = []
            return try Kernels.values(arguments, rowCount: rowCount, type: .boolean) { (rowIndex: Int) throws(SluiceError) -> Bool in
                let patternBytes = pattern.slice(rowIndex)
                let escapeBytes = escape?.slice(rowIndex)
                if cachedPatternBytes.map({ $0.elementsEqual(patternBytes) }) != true
                    || cachedEscapeBytes.map({ escapeBytes?.elementsEqual($0) ?? false }) == false
                {
                    var source = Array(patternBytes)
                    if caseInsensitive { source = foldCase(source) }
                    var escapeCharacter: [UInt8]? = [UInt8(ascii: "\\")]
                    if let escapeBytes {
                        guard escapeBytes.filter({ !UTF8Bytes.isContinuation($0) }).count <= 1 else {
                            throw SluiceError(SQLState("22025"), "invalid escape string", hint: "Escape string must be empty or one character.")
                        }
                        escapeCharacter = escapeBytes.isEmpty ? nil : (caseInsensitive ? foldCase(Array(escapeBytes)) : Array(escapeBytes))
                    }
                    compiled = source.withUnsafeBufferPointer { LikePattern($0, escape: escapeCharacter) }
                    cachedPatternBytes = patternBytes
                    cachedEscapeBytes = escapeBytes
                }
                let matched: Bool
                if caseInsensitive {
                    foldedText = foldCase(Array(text.slice(rowIndex)))
                    matched = try foldedText.withUnsafeBufferPointer { (buffer) throws(SluiceError) -> Bool in try compiled.matches(buffer) }
                } else {
                    matched = try text.withBytes(rowIndex) { (buffer) throws(SluiceError) -> Bool in try compiled.matches(buffer) }
                }
                return matched != negated
            }
        }
    }

    /// Lower-cases for `ILIKE`: byte-wise for ASCII, through Unicode case mapping otherwise.
    static func foldCase(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.allSatisfy({ $0 < 0x80 }) { return bytes.map(StringFunctions.asciiLower) }
        return Array(String(decoding: bytes, as: UTF8.self).lowercased().utf8)
    }
}
